"""Rprop (resilient backpropagation) with MindSpore 2.10's update (measured; torch's formula)."""
from __future__ import annotations

import numpy as np

from ...ops import functional as F
from ...tensor import Parameter, ParameterTuple
from .optimizer import Optimizer, check_float, check_float_in_range


def _check_pair(arg: str, value) -> tuple:
    if not isinstance(value, tuple):
        raise TypeError(f"For Rprop, {arg} must be a tuple, but got {type(value)}.")
    if len(value) != 2:
        raise ValueError(f"For Rprop, {arg} must be a tuple with the size of 2, but got {len(value)}.")
    return value


class Rprop(Optimizer):
    """Per element, with prev the previous step's (kept) gradient:

        g*prev > 0: step <- min(step*etaplus, max_step)
        g*prev < 0: step <- max(step*etaminus, min_step), and g counts as 0 (no move)
        otherwise:  step unchanged (clipped to [min_step, max_step])
        w <- w - step * sign(g);  prev <- g

    The step sizes start at the learning rate, read at the first step only: a list or a
    schedule gives its first rate and is not read again (measured on MindSpore 2.10, where a
    dynamic rate's `step_size` holds zeros until then). State: `prev.<p>` (zeros),
    `step_size.<p>`. torch.optim.Rprop takes the same steps."""

    def __init__(self, params, learning_rate=0.1, etas=(0.5, 1.2), step_sizes=(1e-6, 50.), weight_decay=0.):
        super().__init__(learning_rate, params, weight_decay)
        etaminus, etaplus = _check_pair("etas", etas)
        min_step, max_step = _check_pair("step_sizes", step_sizes)
        self.etaminus = check_float_in_range("Rprop", "etaminus", etaminus, 0.0, 1.0)
        if not isinstance(etaplus, float):
            raise TypeError(f"For 'Rprop', the 'etaplus' must be 'float',  but got '{type(etaplus).__name__}'.")
        if not etaplus > 1.0:
            raise ValueError(f"For Rprop, etaplus must be greater than 1.0, but got etaplus {etaplus}.")
        self.etaplus = etaplus
        self.min_step = check_float("Rprop", "min_step_sizes", min_step, float("-inf"))
        self.max_step = check_float("Rprop", "max_step_sizes", max_step, float("-inf"))
        if min_step > max_step:
            raise ValueError(f"For Rprop, maximal step size should not be less than minimal step size, but got "
                             f"{min_step} > {max_step}.")
        self.prev = self.parameters.clone(prefix="prev", init="zeros")
        self.step_size = ParameterTuple(
            Parameter(np.full(p.shape, float(lr.asnumpy()) if isinstance(lr, Parameter) and lr.ndim == 0 else 0.0,
                              p.dtype.np_dtype), name=f"step_size.{p.name}")
            for p, lr in zip(self.parameters, self.group_lr))

    def construct(self, gradients):
        grads = self.prepare_gradients(gradients)
        first = F.equal(self.global_step, 0)   # read before step_lr advances it
        lrs = self.lr_per_parameter(self.step_lr())
        for p, g, prev, step_size, lr in zip(self.parameters, grads, self.prev, self.step_size, lrs):
            product = F.mul(g, prev)
            grows, shrinks = F.greater(product, 0.0), F.less(product, 0.0)
            factor = F.select(grows, self.etaplus, F.select(shrinks, self.etaminus, F.ones_like(g)))
            step = F.limit(F.mul(F.select(first, lr, step_size), factor), self.min_step, self.max_step)
            g = F.select(shrinks, F.zeros_like(g), g)
            F.assign(step_size, step)
            F.assign(prev, g)
            F.assign(p, F.sub(p, F.mul(step, F.sign(g))))

"""SGD and Momentum with MindSpore's update rules (MINDSPORE_NOTES.md section 4)."""
from __future__ import annotations

import numpy as np

from ...ops import functional as F
from ...tensor import Parameter
from .optimizer import Optimizer, check_hyperparameter


def _scalar_param(value: float, name: str) -> Parameter:
    return Parameter(np.array(value, np.float32), name=name)


class SGD(Optimizer):
    """accum <- g on the first step (no dampening), then momentum*accum + (1-dampening)*g;
    w <- w - lr*accum, or w - lr*(g + momentum*accum) with nesterov. With momentum 0 it is
    plain w <- w - lr*g. State: `accum.<p>` (zeros), `stat.<p>` (ones: a first-step flag)."""

    def __init__(self, params, learning_rate=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0,
                 nesterov=False, loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        if self.dynamic_weight_decay:   # MindSpore 2.10's SGD refuses it too (measured)
            raise TypeError("For 'SGD', dynamic weight decay is currently not supported, the argument 'weight_decay' "
                            "or 'weight_decay' set in grouped 'params' must be float or int type.")
        momentum = check_hyperparameter("SGD", "momentum", momentum, 0.0)
        dampening = check_hyperparameter("SGD", "dampening", dampening, 0.0)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("For 'SGD', if 'nesterov' is true, 'momentum' must be > 0.0 and 'dampening' must "
                             f"equal to 0.0, but got 'momentum' {momentum}, 'dampening' {dampening}")
        self.dampening, self.nesterov, self.has_momentum = float(dampening), bool(nesterov), momentum > 0
        self.momentum = _scalar_param(momentum, "momentum")
        self.accum = self.parameters.clone(prefix="accum", init="zeros")
        self.stat = self.parameters.clone(prefix="stat", init="ones")

    def construct(self, gradients):
        grads = self.prepare_gradients(gradients)
        lrs = self.lr_per_parameter(self.step_lr())
        for p, g, accum, stat, lr in zip(self.parameters, grads, self.accum, self.stat, lrs):
            step = g
            if self.has_momentum:
                later = F.add(F.mul(accum, self.momentum), F.mul(g, 1.0 - self.dampening))
                new_accum = F.select(F.greater(stat, 0), g, later)
                F.assign(accum, new_accum)
                F.assign(stat, F.zeros_like(stat))
                step = F.add(g, F.mul(new_accum, self.momentum)) if self.nesterov else new_accum
            F.assign(p, F.sub(p, F.mul(step, lr)))


class Momentum(Optimizer):
    """v <- momentum*v + g; w <- w - lr*v. State: `moments.<p>`.

    `use_nesterov` is accepted and, as measured on MindSpore 2.10 (CPU), changes nothing:
    its ApplyMomentum gives bitwise the same result either way."""

    def __init__(self, params, learning_rate, momentum, weight_decay=0.0, loss_scale=1.0, use_nesterov=False):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        if not isinstance(momentum, float):
            raise TypeError(f"For 'Momentum', the 'momentum' should be float, but got {type(momentum).__name__}")
        if not momentum >= 0:   # NaN too
            raise ValueError(f"For 'Momentum', the 'momentum' should be at least 0.0, but got {momentum}")
        self.use_nesterov = bool(use_nesterov)
        self.momentum = _scalar_param(momentum, "momentum")
        self.moments = self.parameters.clone(prefix="moments", init="zeros")

    def construct(self, gradients):
        grads = self.prepare_gradients(gradients)
        lrs = self.lr_per_parameter(self.step_lr())
        for p, g, v, lr in zip(self.parameters, grads, self.moments, lrs):
            new_v = F.add(F.mul(v, self.momentum), g)
            F.assign(v, new_v)
            F.assign(p, F.sub(p, F.mul(new_v, lr)))

"""MindSpore 2.10's gradient wrappers WithGradCell and ForwardValueAndGrad, over GradOperation."""
from __future__ import annotations

from ..ops import functional as F
from ..ops.higher_order import GradOperation
from ..tensor import Tensor
from .cell import Cell
from .wrap import WithLossCell


class WithGradCell(Cell):
    """The gradients of `network` (with `loss_fn`: of loss_fn(network(data), label)) w.r.t. its
    trainable parameters, as a tuple. The output's sensitivity is ones, or `sens` (a number
    scales the gradients; a Tensor is the output's cotangent), as measured on 2.10."""

    is_training_step = True   # exported as the step it runs, not in inference mode (compiler/export.py)

    def __init__(self, network, loss_fn=None, sens=None):
        super().__init__(auto_prefix=False)
        self.network, self.loss_fn, self.sens = network, loss_fn, sens
        self.network_with_loss = network if loss_fn is None else WithLossCell(network, loss_fn)
        self.weights = list(network.trainable_params())
        self.grad = GradOperation(get_by_list=True, sens_param=isinstance(sens, Tensor))

    def construct(self, *inputs):
        grad_fn = self.grad(self.network_with_loss, self.weights)
        if isinstance(self.sens, Tensor):
            return grad_fn(*inputs, self.sens)
        grads = grad_fn(*inputs)
        if self.sens is not None:
            grads = tuple(F.mul(g, float(self.sens)) for g in grads)
        return grads


class ForwardValueAndGrad(Cell):
    """(network(*inputs), gradients), the gradients as GradOperation(get_all, get_by_list,
    sens_param) gives them: the first input's bare by default, every input's with get_all, the
    `weights`' with get_by_list, ((inputs...), (weights...)) with both; with sens_param the last
    argument is the output's cotangent (not passed to the network)."""

    is_training_step = True   # exported as the step it runs, not in inference mode (compiler/export.py)

    def __init__(self, network, weights=None, get_all=False, get_by_list=False, sens_param=False):
        super().__init__(auto_prefix=False)
        if get_by_list and weights is None:
            raise TypeError(f"For 'ForwardValueAndGrad', when 'get_by_list' is set to True, the argument 'weights' "
                            f"must be Parameters array, but got '{type(weights)}'")
        self.network = network
        self.weights = weights if weights is None else list(weights)
        self.get_all, self.get_by_list, self.sens_param = get_all, get_by_list, sens_param
        self.grad = GradOperation(get_all=get_all, get_by_list=get_by_list, sens_param=sens_param)

    def construct(self, *inputs):
        value = self.network(*(inputs[:-1] if self.sens_param else inputs))
        return value, self.grad(self.network, self.weights)(*inputs)

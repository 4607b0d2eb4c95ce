"""`TrainOneStepCell`: forward, gradients of the loss w.r.t. the optimizer's weights, update."""
from __future__ import annotations

from ..ops import functional as F
from .cell import Cell


class TrainOneStepCell(Cell):
    """`loss = network(*inputs)`, then `optimizer(grads)` with grads of `sens * loss` w.r.t.
    `optimizer.parameters`; returns the loss computed before the update (MindSpore's
    TrainOneStepCell; auto_prefix=False, so no parameter is renamed)."""

    def __init__(self, network: Cell, optimizer, sens: float = 1.0):
        super().__init__(auto_prefix=False)
        from .optim import Optimizer
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"TrainOneStepCell: 'optimizer' must be a graphcell.nn Optimizer, got "
                            f"{type(optimizer).__name__}")
        self.network = network
        self.network.set_grad()
        self.optimizer = optimizer
        self.weights = optimizer.parameters
        self.sens = float(sens)

    def construct(self, *inputs):
        from ..api.grad import value_and_grad
        loss, grads = value_and_grad(self.network, None, self.weights)(*inputs)
        if self.sens != 1.0:  # the gradient of sum(sens * loss)
            grads = tuple(F.mul(g, self.sens) for g in grads)
        self.optimizer(grads)
        return loss

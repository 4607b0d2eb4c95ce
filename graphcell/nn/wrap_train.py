"""`TrainOneStepCell`: forward, gradients of the loss w.r.t. the optimizer's weights, update."""
from __future__ import annotations

from ..ops import functional as F
from .cell import Cell


class TrainOneStepCell(Cell):
    """`loss = network(*inputs)`, then `optimizer(grads)` with grads of `sens * loss` w.r.t.
    `optimizer.parameters`; returns the loss computed before the update, and with
    `return_grad=True` `(loss, grads)` (MindSpore's TrainOneStepCell; sens=None is 1.0;
    auto_prefix=False, so no parameter is renamed)."""

    is_training_step = True   # exported as the step it runs, not in inference mode (compiler/export.py)

    def __init__(self, network: Cell, optimizer, sens=None, return_grad: bool = False):
        super().__init__(auto_prefix=False)
        from .optim import Optimizer
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"TrainOneStepCell: 'optimizer' must be a graphcell.nn Optimizer, got "
                            f"{type(optimizer).__name__}")
        self.network = network
        self.network.set_grad()
        self.optimizer = optimizer
        self.weights = optimizer.parameters
        if sens is not None and (isinstance(sens, bool) or not isinstance(sens, (int, float))):
            raise TypeError(f"TrainOneStepCell: 'sens' must be a number or None, got {type(sens).__name__}")
        self.sens = 1.0 if sens is None else float(sens)
        self.sense_flag = sens is not None
        self.return_grad = bool(return_grad)
        # what 2.10's TrainOneStepCell offers the subclasses model-zoo code writes (construct calls
        # self.grad(self.network, self.weights)(*inputs, sens) and self.grad_reducer(grads))
        from ..ops.higher_order import GradOperation
        from .layer.basic import Identity
        self.grad = GradOperation(get_by_list=True, sens_param=True)
        self.grad_no_sens = GradOperation(get_by_list=True)
        self.grad_reducer = Identity()    # one device: nothing to reduce
        self.reducer_flag = False
        self.parallel_mode = "stand_alone"

    def construct(self, *inputs):
        from ..api.grad import value_and_grad
        loss, grads = value_and_grad(self.network, None, self.weights)(*inputs)
        if self.sens != 1.0:  # the gradient of sum(sens * loss)
            grads = tuple(F.mul(g, self.sens) for g in grads)
        self.optimizer(grads)
        return (loss, grads) if self.return_grad else loss

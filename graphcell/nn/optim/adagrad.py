"""Adagrad with MindSpore 2.10's update (ApplyAdagrad on CPU, measured)."""
from __future__ import annotations

from ...ops import functional as F
from ...ops import optimizer_updates as U
from .optimizer import Optimizer, check_bool, check_float


class Adagrad(Optimizer):
    """accum <- accum + g^2; w <- w - lr * g / sqrt(accum + 1e-8).

    State: `accum.<p>`, starting at `accum` (0.1). torch.optim.Adagrad takes the same steps
    but for its eps (1e-10, added outside the square root).

    `update_slots=False` is accepted and, as measured on MindSpore 2.10 (CPU), changes
    nothing: its ApplyAdagrad updates accum either way (as its Momentum ignores use_nesterov).
    """

    def __init__(self, params, accum=0.1, learning_rate=0.001, update_slots=True, loss_scale=1.0,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        accum = check_float("Adagrad", "accum", accum, 0.0)
        self.update_slots = check_bool("Adagrad", "update_slots", update_slots)
        self.accum = self.parameters.clone(prefix="accum", init=accum)

    def construct(self, gradients):
        grads = self.prepare_gradients(gradients)
        lrs = self.lr_per_parameter(self.step_lr())
        for p, g, accum, lr in zip(self.parameters, grads, self.accum, lrs):
            new_p, new_accum = U.adagrad(p, accum, lr, g)
            F.assign(accum, new_accum)
            F.assign(p, new_p)

"""Adadelta with MindSpore 2.10's update (ApplyAdadelta on CPU, measured; torch's formula)."""
from __future__ import annotations

from ...ops import functional as F
from ...ops import optimizer_updates as U
from .optimizer import Optimizer, check_float, check_float_in_range


class Adadelta(Optimizer):
    """accum <- rho*accum + (1-rho)*g^2
    update = sqrt(accum_update + eps) * g / sqrt(accum + eps)
    accum_update <- rho*accum_update + (1-rho)*update^2;  w <- w - lr*update

    State: `accum.<p>`, `accum_update.<p>` (zeros). torch.optim.Adadelta is the same."""

    def __init__(self, params, learning_rate=1.0, rho=0.9, epsilon=1e-6, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.rho = check_float_in_range("Adadelta", "rho", rho, 0.0, 1.0, closed=True)
        self.epsilon = check_float("Adadelta", "epsilon", epsilon, 0.0)
        self.accum = self.parameters.clone(prefix="accum", init="zeros")
        self.accum_update = self.parameters.clone(prefix="accum_update", init="zeros")

    def construct(self, gradients):
        grads = self.prepare_gradients(gradients)
        lrs = self.lr_per_parameter(self.step_lr())
        rho = self.rho
        for p, g, accum, accum_update, lr in zip(self.parameters, grads, self.accum, self.accum_update, lrs):
            new_p, accum_new, accum_update_new = U.adadelta(p, accum, accum_update, lr, rho, self.epsilon, g)
            F.assign(accum, accum_new)
            F.assign(accum_update, accum_update_new)
            F.assign(p, new_p)

"""FTRL with MindSpore 2.10's update (ApplyFtrl)."""
from __future__ import annotations

from ...ops import functional as F
from ...ops import optimizer_updates as U
from .optimizer import Optimizer, check_bool, check_float


class FTRL(Optimizer):
    """Follow-the-regularized-leader (McMahan et al.), per element, with p = -lr_power:

        accum' = accum + g^2
        linear <- linear + g - (accum'^p - accum^p) / lr * w
        w <- (sign(linear)*l1 - linear) / (accum'^p / lr + 2*l2)   where |linear| > l1, else 0
        accum <- accum'

    State: `moments.<p>` (accum, starting at `initial_accum`), `linear.<p>` (zeros). As in
    MindSpore, `learning_rate` must be a fixed float > 0 (no list, schedule or group 'lr'),
    and without groups weight decay applies to every Parameter ('beta'/'gamma' included).
    MindSpore 2.10's CPU kernel gives bitwise this formula at l1 = 0 (measured); with l1 > 0 it
    uses +l1 where linear < 0 (w = (l1 - linear)/q), which moves those weights the wrong way;
    graphcell keeps the documented sign(linear)*l1. MindSpore deprecates FTRL since 2.9.
    """

    def __init__(self, params, initial_accum=0.1, learning_rate=0.001, lr_power=-0.5, l1=0.0, l2=0.0,
                 use_locking=False, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale=loss_scale)
        if self.dynamic_lr or self.is_group_lr:
            raise ValueError(f"For 'FTRL', dynamic learning rate and group learning rate are currently not supported "
                             f"in FTRL, they should all be false, but got dynamic learning rate {self.dynamic_lr} "
                             f"and group learning rate {self.is_group_lr}.")
        initial_accum = check_float("FTRL", "initial_accum", initial_accum, 0.0)
        lr = check_float("FTRL", "learning_rate", learning_rate, 0.0, above=True)
        if not isinstance(lr_power, float):
            check_float("FTRL", "lr_power", lr_power, 0.0)   # the type error
        if not lr_power <= 0.0:
            raise ValueError(f"For 'FTRL', the argument 'lr_power' must <= 0.0, but got {lr_power}.")
        self.lr, self.lr_power = lr, lr_power
        self.l1 = check_float("FTRL", "l1", l1, 0.0)
        self.l2 = check_float("FTRL", "l2", l2, 0.0)
        self.use_locking = check_bool("FTRL", "use_locking", use_locking)
        if not self.is_group:
            self.decay_flags = (True,) * len(self.parameters)
        self.moments = self.parameters.clone(prefix="moments", init=initial_accum)
        self.linear = self.parameters.clone(prefix="linear", init="zeros")

    def construct(self, gradients):
        grads = self.prepare_gradients(gradients)
        lr = self.step_lr()
        for p, g, accum, linear in zip(self.parameters, grads, self.moments, self.linear):
            new_p, new_accum, new_linear = U.ftrl(p, accum, linear, g, lr, self.l1, self.l2, self.lr_power)
            F.assign(p, new_p)
            F.assign(accum, new_accum)
            F.assign(linear, new_linear)

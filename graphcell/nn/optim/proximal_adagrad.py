"""ProximalAdagrad with MindSpore 2.10's update (ApplyProximalAdagrad on CPU, measured)."""
from __future__ import annotations

from ...ops import functional as F
from ...ops import optimizer_updates as U
from .optimizer import Optimizer, check_bool, check_float


class ProximalAdagrad(Optimizer):
    """Adagrad followed by the proximal step of l1 and l2, with the rate per element:

        accum <- accum + g^2;  r = lr / sqrt(accum);  v = w - r*g
        w <- sign(v) / (1 + r*l2) * max(|v| - r*l1, 0)

    As measured on MindSpore 2.10 (and as TensorFlow's ApplyProximalAdagrad): l1 and l2 are
    scaled by r, not by lr as MindSpore's docstring writes (the two agree at l1 = l2 = 0).
    State: `accum.<p>`, starting at `accum` (0.1). MindSpore deprecates it since 2.9."""

    def __init__(self, params, accum=0.1, learning_rate=0.001, l1=0.0, l2=0.0, use_locking=False, loss_scale=1.0,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        accum = check_float("ProximalAdagrad", "accum", accum, 0.0)
        self.l1 = check_float("ProximalAdagrad", "l1", l1, 0.0)
        self.l2 = check_float("ProximalAdagrad", "l2", l2, 0.0)
        self.use_locking = check_bool("ProximalAdagrad", "use_locking", use_locking)
        self.accum = self.parameters.clone(prefix="accum", init=accum)

    def construct(self, gradients):
        grads = self.prepare_gradients(gradients)
        lrs = self.lr_per_parameter(self.step_lr())
        for p, g, accum, lr in zip(self.parameters, grads, self.accum, lrs):
            new_p, accum_new = U.proximal_adagrad(p, accum, lr, self.l1, self.l2, g)
            F.assign(accum, accum_new)
            F.assign(p, new_p)

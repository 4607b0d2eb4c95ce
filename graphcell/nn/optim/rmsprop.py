"""RMSProp with MindSpore 2.10's update (ApplyRMSProp / ApplyCenteredRMSProp)."""
from __future__ import annotations

from ...ops import functional as F
from .optimizer import Optimizer, check_bool, check_float


class RMSProp(Optimizer):
    """ms <- decay*ms + (1-decay)*g^2; mom <- momentum*mom + lr*g/sqrt(ms + eps); w <- w - mom.

    centered: mg <- decay*mg + (1-decay)*g and the root is sqrt(ms - mg^2 + eps).
    State: `mean_square.<p>` (starting at **ones**), `moment.<p>` (zeros) and, centered,
    `mean_grad.<p>` (zeros). This is not torch's RMSprop: there the mean square starts at
    zero, eps is added outside the root and lr multiplies after the momentum.

    eps inside the root is MindSpore's documented formula, and what its CPU kernels compute
    for the centered form and for the plain form's last n % 8 elements; its plain CPU kernel
    adds eps outside the root for the elements it processes 8 at a time (measured on 2.10,
    so results there depend on an element's position; indistinguishable at the default eps).
    """

    def __init__(self, params, learning_rate=0.1, decay=0.9, momentum=0.0, epsilon=1e-10, use_locking=False,
                 centered=False, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.decay = check_float("RMSProp", "decay", decay, 0.0)
        self.momentum = check_float("RMSProp", "momentum", momentum, 0.0)
        self.epsilon = check_float("RMSProp", "epsilon", epsilon, 0.0, above=True)
        self.use_locking = check_bool("RMSProp", "use_locking", use_locking)
        self.centered = check_bool("RMSProp", "centered", centered)
        if self.centered:
            self.mg = self.parameters.clone(prefix="mean_grad", init="zeros")
        self.ms = self.parameters.clone(prefix="mean_square", init="ones")
        self.moment = self.parameters.clone(prefix="moment", init="zeros")

    def construct(self, gradients):
        grads = self.prepare_gradients(gradients)
        lrs = self.lr_per_parameter(self.step_lr())
        d = self.decay
        mgs = self.mg if self.centered else (None,) * len(grads)
        for p, g, ms, mom, mg, lr in zip(self.parameters, grads, self.ms, self.moment, mgs, lrs):
            new_ms = F.add(F.mul(ms, d), F.mul(F.square(g), 1.0 - d))
            F.assign(ms, new_ms)
            if self.centered:
                new_mg = F.add(F.mul(mg, d), F.mul(g, 1.0 - d))
                F.assign(mg, new_mg)
                new_ms = F.sub(new_ms, F.square(new_mg))
            new_mom = F.add(F.mul(mom, self.momentum), F.div(F.mul(g, lr), F.sqrt(F.add(new_ms, self.epsilon))))
            F.assign(mom, new_mom)
            F.assign(p, F.sub(p, new_mom))

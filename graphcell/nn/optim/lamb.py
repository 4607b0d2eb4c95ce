"""Lamb with MindSpore's update (its Lamb kernel; MindSpore 2.10 has none on CPU)."""
from __future__ import annotations

from ... import dtype as mstype
from ...ops import functional as F
from .optimizer import Optimizer, check_float


def _check_beta(name: str, value) -> float:
    value = check_float("Lamb", name, value, 0.0)
    if not 0.0 < value < 1.0:
        raise ValueError(f"For 'Lamb', the '{name}' must be in range of (0.0, 1.0), but got {value} with type "
                         f"'float'.")
    return value


class Lamb(Optimizer):
    """Layer-wise adaptive Adam. With t the step count (global_step after this call's increment):

        m <- b1*m + (1-b1)*g;  v <- b2*v + (1-b2)*g^2
        u = (m / (1-b1^t)) / (sqrt(v / (1-b2^t)) + eps) + weight_decay*w
        w <- w - lr * r * u,   r = ||w|| / ||u|| when both norms are > 0, else 1

    per Parameter (the norms are over the whole Parameter). The decay is part of the update
    (decoupled), for names without 'beta'/'gamma' (or per group). State: `lamb_m.<p>`,
    `lamb_v.<p>`. MindSpore 2.10's CPU backend has no Lamb kernel ("Unsupported op [Lamb] on
    CPU"), so this follows its GPU kernel (lamb_impl.cu): no clipping of r, t from global_step.
    """

    decoupled_weight_decay = True

    def __init__(self, params, learning_rate, beta1=0.9, beta2=0.999, eps=1e-6, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        self.beta1, self.beta2 = _check_beta("beta1", beta1), _check_beta("beta2", beta2)
        self.eps = check_float("Lamb", "eps", eps, 0.0, above=True)
        self.moments1 = self.parameters.clone(prefix="lamb_m", init="zeros")
        self.moments2 = self.parameters.clone(prefix="lamb_v", init="zeros")

    def construct(self, gradients):
        grads = self.prepare_gradients(gradients)
        decays = self.weight_decays()   # before step_lr moves global_step
        lrs = self.lr_per_parameter(self.step_lr())
        b1, b2 = self.beta1, self.beta2
        t = F.reshape(F.cast(self.global_step, mstype.float32), ())   # already advanced: 1 at the first call
        correction1 = F.sub(1.0, F.pow(F.full((), b1, mstype.float32), t))
        correction2 = F.sub(1.0, F.pow(F.full((), b2, mstype.float32), t))
        for p, g, m, v, decay, lr in zip(self.parameters, grads, self.moments1, self.moments2, decays, lrs):
            m_new = F.add(F.mul(m, b1), F.mul(g, 1.0 - b1))
            v_new = F.add(F.mul(v, b2), F.mul(F.square(g), 1.0 - b2))
            F.assign(m, m_new)
            F.assign(v, v_new)
            update = F.div(F.div(m_new, correction1), F.add(F.sqrt(F.div(v_new, correction2)), self.eps))
            if decay is not None:
                update = F.add(update, F.mul(p, decay))
            w_norm = F.sqrt(F.reduce_sum(F.square(p)))
            u_norm = F.sqrt(F.reduce_sum(F.square(update)))
            both = F.logical_and(F.greater(w_norm, 0.0), F.greater(u_norm, 0.0))
            # Divide by 1 where a norm is 0, so neither branch of the select makes a NaN.
            ratio = F.select(both, F.div(w_norm, F.select(both, u_norm, F.ones_like(u_norm))), F.ones_like(w_norm))
            F.assign(p, F.sub(p, F.mul(update, F.mul(ratio, lr))))

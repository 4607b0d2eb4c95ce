"""AdaMax with MindSpore 2.10's update (ApplyAdaMax on CPU, measured)."""
from __future__ import annotations

import numpy as np

from ...ops import functional as F
from ...tensor import Parameter
from .optimizer import Optimizer, check_float, check_float_in_range


class AdaMax(Optimizer):
    """Adam with the infinity norm, with t the step count:

        m <- b1*m + (1-b1)*g;  v <- max(b2*v, |g|);  w <- w - lr/(1 - b1^t) * m/(v + eps)

    State: `beta1_power` (shape [1], holding b1^t), `moment1.<p>`, `moment2.<p>` (zeros).
    torch.optim.Adamax puts eps inside the max (max(b2*v, |g| + eps)): the same steps but
    where |g| is small against eps."""

    def __init__(self, params, learning_rate=0.001, beta1=0.9, beta2=0.999, eps=1e-08, weight_decay=0.0,
                 loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.beta1 = check_float_in_range("AdaMax", "beta1", beta1, 0.0, 1.0)
        self.beta2 = check_float_in_range("AdaMax", "beta2", beta2, 0.0, 1.0)
        self.eps = check_float("AdaMax", "eps", eps, 0.0, above=True)
        self.beta1_power = Parameter(np.ones(1, np.float32), name="beta1_power")
        self.moment1 = self.parameters.clone(prefix="moment1", init="zeros")
        self.moment2 = self.parameters.clone(prefix="moment2", init="zeros")

    def construct(self, gradients):
        grads = self.prepare_gradients(gradients)
        lrs = self.lr_per_parameter(self.step_lr())
        beta1_power = F.mul(self.beta1_power, self.beta1)
        F.assign(self.beta1_power, beta1_power)
        correction = F.reshape(F.sub(1.0, beta1_power), ())
        for p, g, m, v, lr in zip(self.parameters, grads, self.moment1, self.moment2, lrs):
            m_new = F.add(F.mul(m, self.beta1), F.mul(g, 1.0 - self.beta1))
            v_new = F.maximum(F.mul(v, self.beta2), F.abs(g))
            F.assign(m, m_new)
            F.assign(v, v_new)
            step = F.div(m_new, F.add(v_new, self.eps))
            F.assign(p, F.sub(p, F.mul(step, F.div(lr, correction))))

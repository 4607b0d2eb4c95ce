"""Adam and AdamWeightDecay with MindSpore's formulas (MINDSPORE_NOTES.md section 4)."""
from __future__ import annotations

import numpy as np

from ...ops import functional as F
from ...tensor import Parameter
from .optimizer import Optimizer, check_hyperparameter


def _check_betas(name, beta1, beta2, eps):
    for arg, value in (("beta1", beta1), ("beta2", beta2)):
        check_hyperparameter(name, arg, value, 0.0, above=True, below=1.0)
    check_hyperparameter(name, "eps", eps, 0.0, above=True)


class Adam(Optimizer):
    """m <- b1*m + (1-b1)*g; v <- b2*v + (1-b2)*g^2; alpha = lr*sqrt(1-b2^t)/(1-b1^t);
    w <- w - alpha*m/(sqrt(v) + eps)  (eps is added to the *uncorrected* sqrt(v)).

    use_nesterov: w <- w - alpha*(b1*m + (1-b1)*g)/(sqrt(v) + eps).
    use_amsgrad: vhat <- max(vhat, v); w <- w - alpha*m/(sqrt(vhat) + eps); it ignores
    use_nesterov, as MindSpore does.
    State: `beta1_power`, `beta2_power` (scalars holding b^t), `moment1.<p>`, `moment2.<p>`
    and, with amsgrad, `vhat.<p>`."""

    power_shape = ()   # LazyAdam's beta powers have shape [1]

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
                 use_nesterov=False, weight_decay=0.0, loss_scale=1.0, use_amsgrad=False):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        _check_betas(type(self).__name__, beta1, beta2, eps)
        self.beta1, self.beta2, self.eps = float(beta1), float(beta2), float(eps)
        self.use_nesterov, self.use_amsgrad = bool(use_nesterov), bool(use_amsgrad)
        self.beta1_power = Parameter(np.ones(self.power_shape, np.float32), name="beta1_power")
        self.beta2_power = Parameter(np.ones(self.power_shape, np.float32), name="beta2_power")
        self.moment1 = self.parameters.clone(prefix="moment1", init="zeros")
        self.moment2 = self.parameters.clone(prefix="moment2", init="zeros")
        if self.use_amsgrad:
            self.vhat = self.parameters.clone(prefix="vhat", init="zeros")

    def construct(self, gradients):
        grads = self.prepare_gradients(gradients)
        lrs = self.lr_per_parameter(self.step_lr())
        b1, b2 = self.beta1, self.beta2
        beta1_power = F.mul(self.beta1_power, b1)
        beta2_power = F.mul(self.beta2_power, b2)
        F.assign(self.beta1_power, beta1_power)
        F.assign(self.beta2_power, beta2_power)
        alphas = {}   # lr * sqrt(1 - b2^t) / (1 - b1^t), once per distinct learning rate
        beta1_power, beta2_power = F.reshape(beta1_power, ()), F.reshape(beta2_power, ())
        for lr in lrs:
            if id(lr) not in alphas:
                alphas[id(lr)] = F.div(F.mul(lr, F.sqrt(F.sub(1.0, beta2_power))), F.sub(1.0, beta1_power))
        vhats = self.vhat if self.use_amsgrad else (None,) * len(grads)
        for p, g, m, v, vhat, lr in zip(self.parameters, grads, self.moment1, self.moment2, vhats, lrs):
            m_new = F.add(F.mul(m, b1), F.mul(g, 1.0 - b1))
            v_new = F.add(F.mul(v, b2), F.mul(F.square(g), 1.0 - b2))
            F.assign(m, m_new)
            F.assign(v, v_new)
            if self.use_amsgrad:
                v_new = F.maximum(vhat, v_new)
                F.assign(vhat, v_new)
                direction = m_new
            elif self.use_nesterov:
                direction = F.add(F.mul(m_new, b1), F.mul(g, 1.0 - b1))
            else:
                direction = m_new
            update = F.div(direction, F.add(F.sqrt(v_new), self.eps))
            F.assign(p, F.sub(p, F.mul(update, alphas[id(lr)])))


class AdamWeightDecay(Optimizer):
    """Adam without bias correction and with decoupled weight decay:
    w <- w - lr*(m/(sqrt(v) + eps) + weight_decay*w) (decay only for names without
    'beta'/'gamma'). State: `adam_m.<p>`, `adam_v.<p>`."""

    decoupled_weight_decay = True
    centralizes_gradients = False   # MindSpore's AdamWeightDecay ignores 'grad_centralization'

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-6, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        _check_betas("AdamWeightDecay", beta1, beta2, eps)
        self.beta1, self.beta2, self.eps = float(beta1), float(beta2), float(eps)
        self.moments1 = self.parameters.clone(prefix="adam_m", init="zeros")
        self.moments2 = self.parameters.clone(prefix="adam_v", init="zeros")

    def construct(self, gradients):
        grads = self.prepare_gradients(gradients)
        decays = self.weight_decays()   # before step_lr moves global_step
        lrs = self.lr_per_parameter(self.step_lr())
        b1, b2 = self.beta1, self.beta2
        for p, g, m, v, decay, lr in zip(self.parameters, grads, self.moments1, self.moments2, decays, lrs):
            m_new = F.add(F.mul(m, b1), F.mul(g, 1.0 - b1))
            v_new = F.add(F.mul(v, b2), F.mul(F.square(g), 1.0 - b2))
            F.assign(m, m_new)
            F.assign(v, v_new)
            update = F.div(m_new, F.add(F.sqrt(v_new), self.eps))
            if decay is not None:
                update = F.add(update, F.mul(p, decay))
            F.assign(p, F.sub(p, F.mul(update, lr)))


AdamW = AdamWeightDecay

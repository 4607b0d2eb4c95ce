"""experimental.optim's Adam family: Adam and AdamW (mint.optim's update, 2.10's experimental
state), Adamax, NAdam and RAdam (torch.optim's updates; 2.10 measured within 3e-7 of torch over
three steps with two groups, GRAPH and PYNATIVE mode alike)."""
from __future__ import annotations

import math

import numpy as np

from ... import dtype as mstype
from ...mint.optim import adam as mint_adam
from ...mint.optim.optimizer import Optimizer, check_betas, check_range
from ...ops import functional as F
from ...tensor import Parameter
from .common import advance, check_at_least, start_gradient, step_counter


def _bias_correction(step, beta: float):
    """1 - beta^t, as -expm1(t*log(beta)) (float32 loses 1 - 0.999's digits)."""
    return F.neg(F.expm1(F.mul(step, math.log(beta)))) if beta else 1.0


class Adam(mint_adam.Adam):
    """mint.optim.Adam's update; state as 2.10's experimental Adam: `exp_avg.<p>`, `exp_avg_sq.<p>`,
    `max_exp_avg_sq.<p>` (always, zeros without amsgrad) and `state_step` (int32, 0-d). A Tensor
    `lr` is taken (mint's refuses one). (2.10 with amsgrad and betas (0.8, 0.99) differs from
    torch by 1.6e-5 after three steps; graphcell follows torch.)"""

    tensor_lr = True
    step_counter = staticmethod(step_counter)

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False, *,
                 maximize=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize)

    def state_changed(self):
        if not self.__dict__.get("_amsgrad_state", False):
            self.max_exp_avg_sq = self.parameters.clone(prefix="max_exp_avg_sq", init="zeros")
            object.__setattr__(self, "_amsgrad_state", True)


class AdamW(Adam):
    """Adam with decoupled weight decay (default 0.01): w <- w*(1 - lr*weight_decay) first."""

    decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize)


class _Moments(Optimizer):
    """The base of Adamax, NAdam and RAdam: `step_t` (int32), then `exp_avg.<p>` and a second
    moment (`second` names it), 2.10's order; betas, eps and weight_decay checked as 2.10."""

    second = "exp_avg_sq"

    def __init__(self, params, defaults: dict):
        check_range(defaults["lr"], "lr", what="learning rate")
        super().__init__(params, defaults)
        self.step_t = step_counter()
        self.exp_avg = self.parameters.clone(prefix="exp_avg", init="zeros")
        setattr(self, self.second, self.parameters.clone(prefix=self.second, init="zeros"))
        self.state_changed()

    @property
    def state_prefixes(self) -> tuple:
        return ("exp_avg", self.second)

    def check_group(self, group):
        name = type(self).__name__
        check_at_least(name, "eps", group["eps"], strict=name == "Adamax")
        check_range(group["weight_decay"], "weight_decay", what="weight_decay value")
        group["betas"] = check_betas(group["betas"])

    def construct(self, gradients):
        step = advance(self.step_t)
        for index, (group, lr, rows) in enumerate(self.groups_of_parameters(gradients, self.exp_avg,
                                                                            getattr(self, self.second))):
            beta1 = float(group["betas"][0])
            terms = self.group_terms(index, group, step)
            for p, g, m, v in rows:
                g = start_gradient(p, g, group)
                m_new = F.add(F.mul(m, beta1), F.mul(g, 1.0 - beta1))
                F.assign(m, m_new)
                F.assign(p, F.sub(p, self.update(group, lr, step, terms, g, m_new, v)))

    def group_terms(self, index, group, step):
        """What a group's update shares between its parameters (computed once per step)."""
        return None

    def update(self, group, lr, step, terms, g, m_new, v):
        """The step to subtract from w; updates the second moment `v`."""
        raise NotImplementedError


class Adamax(_Moments):
    """u <- max(b2*u, |g| + eps); w <- w - lr/(1-b1^t) * m/u. State `exp_inf.<p>`."""

    second = "exp_inf"

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, *, maximize=False):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize))

    def update(self, group, lr, step, terms, g, m_new, u):
        beta1, beta2 = (float(b) for b in group["betas"])
        u_new = F.maximum(F.mul(u, beta2), F.add(F.abs(g), float(group["eps"])))
        F.assign(u, u_new)
        return F.mul(F.div(lr, _bias_correction(step, beta1)), F.div(m_new, u_new))


class NAdam(_Moments):
    """Nesterov Adam (torch's): mu_t = b1*(1 - 0.5*0.96^(t*momentum_decay)); the product of the
    mu's so far is kept per group in the Parameter `mu_product_group_<i>`, out of the Parameter
    lists and checkpoint, as 2.10's Python list (measured). No `maximize` (2.10's signature)."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, momentum_decay=4e-3):
        check_at_least("NAdam", "momentum_decay", momentum_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay))

    def state_changed(self):
        products = self.__dict__.setdefault("_mu_products", [])
        for index in range(len(products), len(self.param_groups)):
            products.append(Parameter(np.array(1.0, np.float32), name=f"mu_product_group_{index}"))

    def _unlisted_parameters(self) -> tuple:
        return super()._unlisted_parameters() + tuple(self._mu_products)

    def group_terms(self, index, group, step):
        """(mu_t, mu_{t+1}, the product of mu_1..mu_t), the product's Parameter updated."""
        beta1, decay = float(group["betas"][0]), float(group["momentum_decay"])

        def mu(t):
            return F.mul(F.sub(1.0, F.mul(F.exp(F.mul(t, decay * math.log(0.96))), 0.5)), beta1)
        product = self._mu_products[index]
        mu_now, mu_next = mu(step), mu(F.add(step, 1.0))
        new_product = F.mul(product, mu_now)
        F.assign(product, new_product)
        return mu_now, mu_next, new_product

    def update(self, group, lr, step, terms, g, m_new, v):
        beta2 = float(group["betas"][1])
        mu_now, mu_next, product = terms
        v_new = F.add(F.mul(v, beta2), F.mul(F.square(g), 1.0 - beta2))
        F.assign(v, v_new)
        denom = F.add(F.sqrt(F.div(v_new, _bias_correction(step, beta2))), float(group["eps"]))
        grad_part = F.mul(F.div(F.mul(lr, F.sub(1.0, mu_now)), F.sub(1.0, product)), F.div(g, denom))
        next_product = F.mul(product, mu_next)
        moment_part = F.mul(F.div(F.mul(lr, mu_next), F.sub(1.0, next_product)), F.div(m_new, denom))
        return F.add(grad_part, moment_part)


class RAdam(_Moments):
    """Rectified Adam (torch's): with rho_t = rho_inf - 2t*b2^t/(1-b2^t) above 5, the Adam step
    scaled by the rectification term; otherwise w <- w - lr * m/(1-b1^t). No `maximize`."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))

    def update(self, group, lr, step, terms, g, m_new, v):
        beta1, beta2 = (float(b) for b in group["betas"])
        v_new = F.add(F.mul(v, beta2), F.mul(F.square(g), 1.0 - beta2))
        F.assign(v, v_new)
        m_hat = F.div(m_new, _bias_correction(step, beta1))
        correction2 = _bias_correction(step, beta2)
        rho_inf = 2.0 / (1.0 - beta2) - 1.0
        if rho_inf <= 5.0:   # rho_t < rho_inf never exceeds 5: never rectified
            return F.mul(m_hat, lr)
        rho_t = F.sub(rho_inf, F.div(F.mul(F.mul(step, 2.0), F.exp(F.mul(step, math.log(beta2)))), correction2))
        rectified = F.cast(F.greater(rho_t, 5.0), mstype.float32)
        safe_rho = F.maximum(rho_t, 5.0)   # keeps the unused branch finite
        rect = F.sqrt(F.div(F.mul(F.mul(F.sub(safe_rho, 4.0), F.sub(safe_rho, 2.0)), rho_inf),
                            F.mul(safe_rho, (rho_inf - 4.0) * (rho_inf - 2.0))))
        adaptive = F.div(F.sqrt(correction2), F.add(F.sqrt(v_new), float(group["eps"])))
        scale = F.add(F.mul(F.mul(adaptive, rect), rectified), F.sub(1.0, rectified))
        return F.mul(F.mul(m_hat, lr), scale)

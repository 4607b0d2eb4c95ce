"""mint.optim.Adam, AdamW and FusedAdamW: torch.optim's updates (bias-corrected, eps added to
sqrt(v)/sqrt(1-beta2^t), as torch; 2.10's Adam measured within 3e-7 of torch over three steps;
its CPU build has no AdamW kernel, so AdamW follows torch)."""
from __future__ import annotations

import math

import numpy as np

from ... import dtype as mstype
from ...ops import functional as F
from ...tensor import Parameter, Tensor
from .optimizer import Optimizer, check_betas, check_range


class Adam(Optimizer):
    """g <- -g with maximize; g <- g + weight_decay*w (coupled; AdamW decays w instead);
    m <- b1*m + (1-b1)*g; v <- b2*v + (1-b2)*g^2 (amsgrad: vmax <- max(vmax, v));
    w <- w - lr/(1-b1^t) * m / (sqrt(v)/sqrt(1-b2^t) + eps). State (2.10's names): `exp_avg.<p>`,
    `exp_avg_sq.<p>`, `state_step` (float32 [1]) and, when any group has amsgrad,
    `max_exp_avg_sq.<p>` (2.10 keeps those outside its checkpoint; graphcell saves them)."""

    decoupled = False
    tensor_lr = False   # mint's Adam refuses a Tensor rate; experimental.optim's takes a scalar one (2.10)

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=None, amsgrad=False, *,
                 maximize=False):
        if weight_decay is None:
            weight_decay = 0.01 if self.decoupled else 0.0
        if isinstance(lr, Tensor) and not self.tensor_lr:   # 2.10's check (a group's 'lr' may be one)
            raise TypeError(f"For '{type(self).__name__}', the type of 'lr' should be 'float', but got type 'Tensor'.")
        if not isinstance(lr, Tensor):
            check_range(lr, "lr", what="learning rate")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                                      maximize=maximize))
        self.exp_avg = self.parameters.clone(prefix="exp_avg", init="zeros")
        self.exp_avg_sq = self.parameters.clone(prefix="exp_avg_sq", init="zeros")
        self.state_changed()
        self.state_step = self.step_counter("state_step")

    @property
    def state_prefixes(self) -> tuple:
        amsgrad = self.__dict__.get("_amsgrad_state", False)
        return ("exp_avg", "exp_avg_sq") + (("max_exp_avg_sq",) if amsgrad else ())

    def state_changed(self):
        """max_exp_avg_sq exists once any group has amsgrad (zeros for every parameter; an
        unused alias of exp_avg_sq before)."""
        amsgrad = any(g["amsgrad"] for g in self.param_groups)
        if amsgrad and not self.__dict__.get("_amsgrad_state", False):
            self.max_exp_avg_sq = self.parameters.clone(prefix="max_exp_avg_sq", init="zeros")
        elif not amsgrad:
            self.max_exp_avg_sq = self.exp_avg_sq   # unused placeholder, same Parameters
        object.__setattr__(self, "_amsgrad_state", amsgrad)

    def check_group(self, group):
        check_range(group["eps"], "eps", what="epsilon value")
        check_range(group["weight_decay"], "weight_decay", what="weight_decay value")
        group["betas"] = check_betas(group["betas"])

    def add_param_group(self, param_group):
        """As the base's; the group also gets its own step count, `state_step_group_<i>`, as
        torch counts steps per parameter: its bias corrections start from its first step."""
        super().add_param_group(param_group)
        name = f"state_step_group_{len(self.param_groups) - 1}"
        setattr(self, name, self.step_counter(name))

    @staticmethod
    def step_counter(name: str) -> Parameter:
        """A step count: 2.10's mint.optim keeps it as float32 [1] (experimental.optim: int32 0-d)."""
        return Parameter(np.zeros([1], np.float32), name=name)

    @staticmethod
    def _count(counter):
        step = F.add(counter, 1)
        F.assign(counter, step)
        return F.reshape(F.cast(step, mstype.float32), ())

    def construct(self, gradients):
        shared_step = self._count(self.state_step)
        for index, (group, lr, rows) in enumerate(self.groups_of_parameters(gradients, self.exp_avg, self.exp_avg_sq,
                                                                            self.max_exp_avg_sq)):
            own = getattr(self, f"state_step_group_{index}", None)
            step = shared_step if own is None else self._count(own)
            beta1, beta2 = (float(b) for b in group["betas"])
            decay, eps = float(group["weight_decay"]), float(group["eps"])
            # 1 - beta^t as -expm1(t*log(beta)): in float32, 1 - 0.999 loses 1e-5 of its value
            # (torch computes it in float64)
            correction1 = F.neg(F.expm1(F.mul(step, math.log(beta1)))) if beta1 else 1.0
            correction2 = F.sqrt(F.neg(F.expm1(F.mul(step, math.log(beta2))))) if beta2 else 1.0
            step_size = F.div(lr, correction1)
            for p, g, m, v, vmax in rows:
                g = F.neg(g) if group["maximize"] else g
                if decay and self.decoupled:
                    p_now = F.mul(p, F.sub(1.0, F.mul(lr, decay)))
                    F.assign(p, p_now)
                elif decay:
                    g = F.add(g, F.mul(p, decay))
                m_new = F.add(F.mul(m, beta1), F.mul(g, 1.0 - beta1))
                v_new = F.add(F.mul(v, beta2), F.mul(F.square(g), 1.0 - beta2))
                F.assign(m, m_new)
                F.assign(v, v_new)
                if group["amsgrad"]:
                    v_new = F.maximum(vmax, v_new)
                    F.assign(vmax, v_new)
                denom = F.add(F.div(F.sqrt(v_new), correction2), eps)
                F.assign(p, F.sub(p, F.mul(step_size, F.div(m_new, denom))))


class AdamW(Adam):
    """Adam with decoupled weight decay: w <- w*(1 - lr*weight_decay) before the Adam step
    (default weight_decay 0.01)."""

    decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize)


class FusedAdamW(AdamW):
    """AdamW (2.10 fuses its parameters into one buffer on Ascend; the update is the same)."""

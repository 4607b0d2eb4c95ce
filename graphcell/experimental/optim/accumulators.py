"""experimental.optim's optimizers that scale by accumulated squared gradients: Adadelta,
Adagrad and RMSprop (torch.optim's updates; 2.10 measured equal to torch within 2e-6 over three
steps with two groups)."""
from __future__ import annotations

from ...mint.optim.optimizer import Optimizer, check_range
from ...ops import functional as F
from .common import advance, check_at_least, start_gradient, step_counter


def _average(old, new, rate: float):
    """rate*old + (1-rate)*new."""
    return F.add(F.mul(old, rate), F.mul(new, 1.0 - rate))


class Adadelta(Optimizer):
    """s <- rho*s + (1-rho)*g^2; d = sqrt(u+eps)/sqrt(s+eps) * g; u <- rho*u + (1-rho)*d^2;
    w <- w - lr*d. State (2.10's names): `accum.<p>` (s), `accum_update.<p>` (u)."""

    state_prefixes = ("accum", "accum_update")

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0.0, *, maximize=False):
        check_range(lr, "lr", what="learning rate")
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize))
        self.accum = self.parameters.clone(prefix="accum", init="zeros")
        self.accum_update = self.parameters.clone(prefix="accum_update", init="zeros")

    def check_group(self, group):
        if not isinstance(group["rho"], float):
            raise TypeError(f"For 'Adadelta', the 'rho' must be 'float',  but got '{type(group['rho']).__name__}'.")
        if not 0.0 <= group["rho"] <= 1.0:
            raise ValueError(f"Invalid rho value: {group['rho']}")
        check_range(group["eps"], "eps", what="epsilon value")
        check_range(group["weight_decay"], "weight_decay", what="weight_decay value")

    def construct(self, gradients):
        for group, lr, rows in self.groups_of_parameters(gradients, self.accum, self.accum_update):
            rho, eps = float(group["rho"]), float(group["eps"])
            for p, g, s, u in rows:
                g = start_gradient(p, g, group)
                s_new = _average(s, F.square(g), rho)
                F.assign(s, s_new)
                delta = F.mul(F.div(F.sqrt(F.add(u, eps)), F.sqrt(F.add(s_new, eps))), g)
                F.assign(u, _average(u, F.square(delta), rho))
                F.assign(p, F.sub(p, F.mul(delta, lr)))


class Adagrad(Optimizer):
    """s <- s + g^2; w <- w - lr/(1 + (t-1)*lr_decay) * g/(sqrt(s) + eps). State: `accum.<p>`
    (starting at initial_accumulator_value), then `step_t` (int32), 2.10's names and order."""

    state_prefixes = ("accum",)

    def __init__(self, params, lr=1e-2, lr_decay=0.0, weight_decay=0.0, initial_accumulator_value=0.0, eps=1e-10,
                 *, maximize=False):
        check_range(lr, "lr", what="learning rate")
        check_at_least("Adagrad", "lr_decay", lr_decay)
        check_at_least("Adagrad", "initial_accumulator_value", initial_accumulator_value)
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value, maximize=maximize))
        self.accum = self.parameters.clone(prefix="accum", init=float(initial_accumulator_value))
        self.step_t = step_counter()

    def check_group(self, group):
        check_range(group["eps"], "eps", what="epsilon value")
        check_range(group["weight_decay"], "weight_decay", what="weight_decay value")

    def construct(self, gradients):
        step = advance(self.step_t)
        for group, lr, rows in self.groups_of_parameters(gradients, self.accum):
            rate = F.div(lr, F.add(F.mul(F.sub(step, 1.0), float(group["lr_decay"])), 1.0))
            for p, g, s in rows:
                g = start_gradient(p, g, group)
                s_new = F.add(s, F.square(g))
                F.assign(s, s_new)
                F.assign(p, F.sub(p, F.mul(rate, F.div(g, F.add(F.sqrt(s_new), float(group["eps"]))))))


class RMSprop(Optimizer):
    """s <- alpha*s + (1-alpha)*g^2; centered: a <- alpha*a + (1-alpha)*g and s - a^2 replaces s;
    d = g/(sqrt(s) + eps); with momentum, b <- momentum*b + d and w <- w - lr*b, else w - lr*d.
    State (2.10's names): `mean_grad.<p>` (a), `mean_square.<p>` (s), `moment.<p>` (b)."""

    state_prefixes = ("mean_grad", "mean_square", "moment")

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0.0, momentum=0.0, centered=False,
                 maximize=False):
        check_range(lr, "lr", what="learning rate")
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                                      weight_decay=weight_decay, maximize=maximize))
        self.mean_grad = self.parameters.clone(prefix="mean_grad", init="zeros")
        self.mean_square = self.parameters.clone(prefix="mean_square", init="zeros")
        self.moment = self.parameters.clone(prefix="moment", init="zeros")

    def check_group(self, group):
        for name in ("alpha", "eps", "momentum", "weight_decay"):
            check_at_least("RMSprop", name, group[name])

    def construct(self, gradients):
        for group, lr, rows in self.groups_of_parameters(gradients, self.mean_grad, self.mean_square, self.moment):
            alpha, momentum = float(group["alpha"]), float(group["momentum"])
            for p, g, a, s, b in rows:
                g = start_gradient(p, g, group)
                s_new = _average(s, F.square(g), alpha)
                F.assign(s, s_new)
                if group["centered"]:
                    a_new = _average(a, g, alpha)
                    F.assign(a, a_new)
                    s_new = F.sub(s_new, F.square(a_new))
                d = F.div(g, F.add(F.sqrt(s_new), float(group["eps"])))
                if momentum > 0:
                    d = F.add(F.mul(b, momentum), d)
                    F.assign(b, d)
                F.assign(p, F.sub(p, F.mul(d, lr)))

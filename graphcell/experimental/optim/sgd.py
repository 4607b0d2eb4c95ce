"""experimental.optim's SGD, ASGD and Rprop (torch.optim's updates; 2.10 measured equal to torch,
bit for bit, over three steps with two groups)."""
from __future__ import annotations

from ... import dtype as mstype
from ...mint.optim.optimizer import Optimizer, check_range
from ...mint.optim.sgd import SGD as MintSGD
from ...ops import functional as F
from ...tensor import Tensor
from .common import advance, check_at_least, start_gradient, step_counter


class SGD(Optimizer):
    """mint.optim.SGD's update; state as 2.10's experimental SGD: `accum.<p>` (the momentum
    buffer) and `stat.<p>` (ones until the parameter's first step, then zeros: the first step
    takes g itself as the buffer). Groups carry 2.10's `grad_centralization` (False; an Ascend
    option)."""

    state_prefixes = ("accum", "stat")
    check_group = MintSGD.check_group

    def __init__(self, params, lr, momentum=0, dampening=0, weight_decay=0.0, nesterov=False, *, maximize=False):
        if not isinstance(lr, Tensor):
            check_range(lr, "lr", what="learning rate")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov, maximize=maximize, grad_centralization=False))
        self.accum = self.parameters.clone(prefix="accum", init="zeros")
        self.stat = self.parameters.clone(prefix="stat", init="ones")

    def construct(self, gradients):
        for group, lr, rows in self.groups_of_parameters(gradients, self.accum, self.stat):
            momentum, dampening = float(group["momentum"]), float(group["dampening"])
            for p, g, buf, first in rows:
                g = start_gradient(p, g, group)
                if momentum:
                    later = F.add(F.mul(buf, momentum), F.mul(g, 1.0 - dampening))
                    new_buf = F.add(F.mul(g, first), F.mul(later, F.sub(1.0, first)))
                    F.assign(buf, new_buf)
                    g = F.add(g, F.mul(new_buf, momentum)) if group["nesterov"] else new_buf
                F.assign(first, F.zeros_like(first))
                F.assign(p, F.sub(p, F.mul(g, lr)))


class ASGD(Optimizer):
    """Averaged SGD (torch's): at step t, eta = lr/(1 + lambd*lr*(t-1))^alpha and
    mu = 1/max(1, t-1-t0); w <- w*(1 - lambd*eta) - eta*g; ax <- ax + mu*(w - ax). State (2.10's
    names): `ax.<p>`, `step_t` (int32); eta and mu follow from the step (2.10 keeps them in
    Python lists)."""

    state_prefixes = ("ax",)

    def __init__(self, params, lr=0.01, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0, maximize=False):
        check_at_least("ASGD", "lr", lr, strict=True)
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                                      maximize=maximize))
        self.ax = self.parameters.clone(prefix="ax", init="zeros")
        self.step_t = step_counter()

    def check_group(self, group):
        check_range(group["weight_decay"], "weight_decay", what="weight_decay value")

    def construct(self, gradients):
        done = F.cast(self.step_t, mstype.float32)   # t - 1
        advance(self.step_t)
        for group, lr, rows in self.groups_of_parameters(gradients, self.ax):
            lambd = float(group["lambd"])
            eta = F.div(lr, F.pow(F.add(F.mul(F.mul(lr, lambd), done), 1.0), float(group["alpha"])))
            mu = F.div(1.0, F.maximum(F.sub(done, float(group["t0"])), 1.0))
            for p, g, ax in rows:
                g = start_gradient(p, g, group)
                p_new = F.sub(F.mul(p, F.sub(1.0, F.mul(eta, lambd))), F.mul(g, eta))
                F.assign(p, p_new)
                F.assign(ax, F.add(ax, F.mul(F.sub(p_new, ax), mu)))


class Rprop(Optimizer):
    """Resilient backprop (torch's): each element's step size grows by etas[1] where the
    gradient kept its sign, shrinks by etas[0] where it flipped (that gradient then counts as 0),
    clipped to step_sizes; w <- w - sign(g)*size. State (2.10's names): `prev.<p>`,
    `step_size.<p>` (the group's rate at the first step), `step_t` (int32)."""

    state_prefixes = ("prev", "step_size")

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, maximize=False):
        check_range(lr, "lr", what="learning rate")
        super().__init__(params, dict(lr=lr, etas=etas, step_sizes=step_sizes, maximize=maximize))
        self.prev = self.parameters.clone(prefix="prev", init="zeros")
        self.step_size = self.parameters.clone(prefix="step_size", init="zeros")
        self.step_t = step_counter()

    def check_group(self, group):
        minus, plus = group["etas"]
        if not 0.0 < minus < 1.0:
            raise ValueError(f"For 'Rprop', the 'etas[0]' must be in range of (0.0, 1.0), but got {minus} with type "
                             f"'{type(minus).__name__}'.")
        if not plus > 1.0:
            raise ValueError(f"For 'Rprop', the 'etas[1]' must be greater than 1.0, but got {plus} with type "
                             f"'{type(plus).__name__}'.")
        group.setdefault("weight_decay", 0.0)   # 2.10's groups carry it (unused)

    def add_param_group(self, param_group):
        """As the base's; the new parameters' step sizes start at the group's rate (the others'
        start at their first step, which the new ones missed)."""
        super().add_param_group(param_group)
        group = self.param_groups[-1]
        for size in tuple(self.step_size)[-len(group["params"]):]:
            size.set_data(F.full_like(size, float(group["lr"].asnumpy())))

    def construct(self, gradients):
        first = F.cast(F.equal(self.step_t, 0), mstype.float32)
        advance(self.step_t)
        for group, lr, rows in self.groups_of_parameters(gradients, self.prev, self.step_size):
            minus, plus = (float(e) for e in group["etas"])
            low, high = (float(s) for s in group["step_sizes"])
            for p, g, prev, size in rows:
                g = F.neg(g) if group["maximize"] else g
                start = F.add(F.mul(size, F.sub(1.0, first)), F.mul(lr, first))   # the rate at the first step
                agreement = F.sign(F.mul(g, prev))
                factor = F.add(F.add(F.mul(F.cast(F.greater(agreement, 0), mstype.float32), plus - 1.0),
                                     F.mul(F.cast(F.less(agreement, 0), mstype.float32), minus - 1.0)), 1.0)
                size_new = F.clamp(F.mul(start, factor), low, high)
                F.assign(size, size_new)
                g = F.mul(g, F.cast(F.greater_equal(agreement, 0), mstype.float32))
                F.assign(p, F.sub(p, F.mul(F.sign(g), size_new)))
                F.assign(prev, g)

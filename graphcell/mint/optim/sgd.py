"""mint.optim.SGD: torch.optim.SGD's update (measured equal, bit for bit, on MindSpore 2.10)."""
from __future__ import annotations

import numpy as np

from ...ops import functional as F
from ...tensor import Parameter, Tensor
from .optimizer import Optimizer, check_range


class SGD(Optimizer):
    """g <- -g with maximize; g <- g + weight_decay*w; with momentum, buf <- g at the first step,
    then momentum*buf + (1-dampening)*g, and g <- buf (g + momentum*buf with nesterov);
    w <- w - lr*g. State: `momentum_buf.<p>` (zeros) and `step_t` (int32, 0-d), 2.10's names."""

    state_prefixes = ("momentum_buf",)

    def __init__(self, params, lr, momentum=0, dampening=0, weight_decay=0, nesterov=False, *, maximize=False):
        if not isinstance(lr, Tensor):   # a scalar Tensor rate is checked with the groups' (2.10's and torch's)
            check_range(lr, "lr", what="learning rate")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov, maximize=maximize))
        self.momentum_buf = self.parameters.clone(prefix="momentum_buf", init="zeros")
        self.step_t = Parameter(np.array(0, np.int32), name="step_t")

    def check_group(self, group):
        check_range(group["momentum"], "momentum", what="momentum value")
        check_range(group["weight_decay"], "weight_decay", what="weight_decay value")
        if group["nesterov"] and (group["momentum"] <= 0 or group["dampening"] != 0):
            raise ValueError("For 'SGD', if 'nesterov' is true, 'momentum' must be > 0.0 and 'dampening' must equal "
                             f"to 0.0, but got 'momentum' {group['momentum']}, 'dampening' {group['dampening']}")

    def construct(self, gradients):
        first = F.equal(self.step_t, 0)
        for group, lr, rows in self.groups_of_parameters(gradients, self.momentum_buf):
            momentum, dampening = float(group["momentum"]), float(group["dampening"])
            for p, g, buf in rows:
                g = F.neg(g) if group["maximize"] else g
                if group["weight_decay"]:
                    g = F.add(g, F.mul(p, float(group["weight_decay"])))
                if momentum:
                    later = F.add(F.mul(buf, momentum), F.mul(g, 1.0 - dampening))
                    new_buf = F.select(first, g, later)
                    F.assign(buf, new_buf)
                    g = F.add(g, F.mul(new_buf, momentum)) if group["nesterov"] else new_buf
                F.assign(p, F.sub(p, F.mul(g, lr)))
        F.assign(self.step_t, F.add(self.step_t, 1))

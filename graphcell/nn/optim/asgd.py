"""ASGD (averaged SGD) with MindSpore 2.10's update (measured; torch.optim.ASGD's formula)."""
from __future__ import annotations

import numpy as np

from ... import dtype as mstype
from ...ops import functional as F
from ...tensor import Parameter, ParameterTuple
from .optimizer import Optimizer, check_float


def per_parameter_scalars(params, prefix: str, value: float) -> ParameterTuple:
    """One float32 scalar state Parameter per weight, named '<prefix><weight name>' (no dot,
    as MindSpore names ASGD's `mu_`/`eta_`)."""
    return ParameterTuple(Parameter(np.array(value, np.float32), name=f"{prefix}{p.name}")
                          for p in params)


class ASGD(Optimizer):
    """With t the step count (1 at the first call) and lr this step's learning rate:

        w <- w * (1 - lambd * eta) - eta * g         (eta: lr at t = 1, else the stored eta)
        ax <- w where mu == 1, else ax + (w - ax) * mu   (mu: the stored one, from step t-1)
        eta <- lr / (1 + lambd * lr * t)^alpha;  mu <- 1 / max(1, t - t0)

    State: `mu_<p>` (scalars, ones), `eta_<p>` (scalars: the learning rate when it is a fixed
    float, else zeros until the first step, as measured on MindSpore 2.10) and `ax_.<p>` (the
    average, zeros). Weight decay is added to the gradient (MindSpore's base Optimizer).
    torch.optim.ASGD takes the same steps for a fixed learning rate."""

    def __init__(self, params, learning_rate=0.1, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        self.lambd = check_float("ASGD", "lambd", lambd, float("-inf"))
        self.alpha = check_float("ASGD", "alpha", alpha, float("-inf"))
        self.t0 = check_float("ASGD", "t0", t0, float("-inf"))
        rates = [float(lr.asnumpy()) if isinstance(lr, Parameter) and lr.ndim == 0 else 0.0 for lr in self.group_lr]
        self.mu = per_parameter_scalars(self.parameters, "mu_", 1.0)
        self.eta = ParameterTuple(Parameter(np.array(rate, np.float32), name=f"eta_{p.name}")
                                  for p, rate in zip(self.parameters, rates))
        self.ax = self.parameters.clone(prefix="ax_", init="zeros")

    def construct(self, gradients):
        grads = self.prepare_gradients(gradients)
        lrs = self.lr_per_parameter(self.step_lr())
        t = F.reshape(F.cast(self.global_step, mstype.float32), ())   # already advanced: 1 at the first call
        first = F.equal(t, 1.0)
        for p, g, mu, eta, ax, lr in zip(self.parameters, grads, self.mu, self.eta, self.ax, lrs):
            eta_now = F.select(first, lr, eta)
            w = F.sub(F.mul(p, F.sub(1.0, F.mul(eta_now, self.lambd))), F.mul(eta_now, g))
            F.assign(p, w)
            F.assign(ax, F.select(F.equal(mu, 1.0), w, F.add(ax, F.mul(F.sub(w, ax), mu))))
            F.assign(eta, F.div(lr, F.pow(F.add(F.mul(F.mul(lr, self.lambd), t), 1.0), self.alpha)))
            F.assign(mu, F.div(1.0, F.maximum(F.sub(t, self.t0), 1.0)))

"""What experimental.optim's optimizers share: 2.10's range checks, the int32 step count, and the
gradient each update starts from (negated with maximize, plus weight_decay * w)."""
from __future__ import annotations

import numbers

import numpy as np

from ... import dtype as mstype
from ...ops import functional as F
from ...tensor import Parameter


def check_at_least(optimizer: str, name: str, value, low: float = 0.0, strict: bool = False):
    """2.10's "For Adagrad, the lr_decay must be greater than or equal to 0.0, but got -1."."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"For '{optimizer}', the '{name}' must be 'float', but got '{type(value).__name__}'.")
    if value < low or (strict and value == low):
        relation = "greater than" if strict else "greater than or equal to"
        raise ValueError(f"For {optimizer}, the {name} must be {relation} {low}, but got {value}.")
    return value


def step_counter(name: str = "step_t") -> Parameter:
    """2.10's step count: an int32 0-d Parameter, one for all groups."""
    return Parameter(np.array(0, np.int32), name=name)


def advance(counter: Parameter):
    """Adds one to the count; the new count as a float32 scalar (the update's t)."""
    step = F.add(counter, 1)
    F.assign(counter, step)
    return F.cast(step, mstype.float32)


def start_gradient(p, g, group: dict):
    """torch's order: -g with maximize, then + weight_decay * w."""
    g = F.neg(g) if group.get("maximize") else g
    decay = float(group.get("weight_decay", 0.0))
    return F.add(g, F.mul(p, decay)) if decay else g

"""Learning-rate lists, one value per step (MindSpore's `mindspore.nn.dynamic_lr`).

Each helper returns a Python list of `total_step` floats, for an optimizer's
`learning_rate`; step i belongs to epoch floor(i / step_per_epoch)
(MINDSPORE_NOTES.md section 5).
"""
from __future__ import annotations

import math
import numbers

__all__ = ["piecewise_constant_lr", "exponential_decay_lr", "natural_exp_decay_lr", "inverse_decay_lr",
           "cosine_decay_lr", "polynomial_decay_lr", "warmup_lr"]


def _positive_int(fn, name, value):
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"For '{fn}', the '{name}' must be a positive int, but got {value!r}")


def _positive_float(fn, name, value, allow_zero=False):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or value < 0 or (value == 0 and not allow_zero):
        raise ValueError(f"For '{fn}', the '{name}' must be a number {'>= 0' if allow_zero else '> 0'}, "
                         f"but got {value!r}")


def _check_common(fn, learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch):
    _positive_float(fn, "learning_rate", learning_rate)
    _positive_float(fn, "decay_rate", decay_rate)
    for name, value in (("total_step", total_step), ("step_per_epoch", step_per_epoch),
                        ("decay_epoch", decay_epoch)):
        _positive_int(fn, name, value)


def piecewise_constant_lr(milestone, learning_rates):
    """`([2, 5], [0.1, 0.05])` -> [0.1, 0.1, 0.05, 0.05, 0.05]: milestone[i] is where
    learning_rates[i] ends (cumulative step counts, strictly increasing)."""
    milestone, learning_rates = list(milestone), list(learning_rates)
    if len(milestone) != len(learning_rates):
        raise ValueError(f"For 'piecewise_constant_lr', the size of 'milestone' ({len(milestone)}) must equal "
                         f"the size of 'learning_rates' ({len(learning_rates)})")
    lr, last = [], 0
    for end, value in zip(milestone, learning_rates):
        _positive_int("piecewise_constant_lr", "milestone", end)
        if end <= last:
            raise ValueError(f"For 'piecewise_constant_lr', the 'milestone' must be strictly increasing, got "
                             f"{milestone}")
        lr += [float(value)] * (end - last)
        last = end
    return lr


def exponential_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair=False):
    """lr * decay_rate^(epoch / decay_epoch), the exponent floored with is_stair."""
    _check_common("exponential_decay_lr", learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch)
    out = []
    for i in range(total_step):
        p = math.floor(i / step_per_epoch) / decay_epoch
        out.append(learning_rate * decay_rate ** (math.floor(p) if is_stair else p))
    return out


def natural_exp_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair=False):
    """lr * exp(-decay_rate * epoch); with is_stair the epoch is floored to a multiple of
    decay_epoch."""
    _check_common("natural_exp_decay_lr", learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch)
    out = []
    for i in range(total_step):
        epoch = math.floor(i / step_per_epoch)
        if is_stair:
            epoch = math.floor(epoch / decay_epoch) * decay_epoch
        out.append(learning_rate * math.exp(-decay_rate * epoch))
    return out


def inverse_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair=False):
    """lr / (1 + decay_rate * epoch / decay_epoch), the ratio floored with is_stair."""
    _check_common("inverse_decay_lr", learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch)
    out = []
    for i in range(total_step):
        p = math.floor(i / step_per_epoch) / decay_epoch
        out.append(learning_rate / (1 + decay_rate * (math.floor(p) if is_stair else p)))
    return out


def cosine_decay_lr(min_lr, max_lr, total_step, step_per_epoch, decay_epoch):
    """min_lr + (max_lr - min_lr)/2 * (1 + cos(pi * min(epoch, decay_epoch) / decay_epoch))."""
    _positive_float("cosine_decay_lr", "min_lr", min_lr, allow_zero=True)
    _positive_float("cosine_decay_lr", "max_lr", max_lr)
    for name, value in (("total_step", total_step), ("step_per_epoch", step_per_epoch),
                        ("decay_epoch", decay_epoch)):
        _positive_int("cosine_decay_lr", name, value)
    if min_lr >= max_lr:
        raise ValueError(f"For 'cosine_decay_lr', the 'max_lr' should be greater than 'min_lr', but got "
                         f"'max_lr' {max_lr} and 'min_lr' {min_lr}")
    delta = 0.5 * (max_lr - min_lr)
    return [min_lr + delta * (1 + math.cos(math.pi * min(math.floor(i / step_per_epoch), decay_epoch) / decay_epoch))
            for i in range(total_step)]


def polynomial_decay_lr(learning_rate, end_learning_rate, total_step, step_per_epoch, decay_epoch, power,
                        update_decay_epoch=False):
    """(lr - end) * (1 - epoch/decay)^power + end, with epoch capped at decay_epoch, or with
    update_decay_epoch the decay stretched to the next multiple of decay_epoch."""
    fn = "polynomial_decay_lr"
    _positive_float(fn, "learning_rate", learning_rate)
    _positive_float(fn, "end_learning_rate", end_learning_rate, allow_zero=True)
    _positive_float(fn, "power", power)
    for name, value in (("total_step", total_step), ("step_per_epoch", step_per_epoch),
                        ("decay_epoch", decay_epoch)):
        _positive_int(fn, name, value)
    delta = learning_rate - end_learning_rate
    out = []
    for i in range(total_step):
        epoch = math.floor(i / step_per_epoch)
        decay = decay_epoch
        if update_decay_epoch:
            decay = decay_epoch * max(math.ceil(epoch / decay_epoch), 1)
        else:
            epoch = min(epoch, decay_epoch)
        out.append(delta * (1 - epoch / decay) ** power + end_learning_rate)
    return out


def warmup_lr(learning_rate, total_step, step_per_epoch, warmup_epoch):
    """lr * min(epoch, warmup_epoch) / warmup_epoch, starting at 0:
    `(0.1, 6, 2, 2)` -> [0, 0, 0.05, 0.05, 0.1, 0.1]."""
    _positive_float("warmup_lr", "learning_rate", learning_rate)
    for name, value in (("total_step", total_step), ("step_per_epoch", step_per_epoch),
                        ("warmup_epoch", warmup_epoch)):
        _positive_int("warmup_lr", name, value)
    return [learning_rate * min(math.floor(i / step_per_epoch), warmup_epoch) / warmup_epoch
            for i in range(total_step)]

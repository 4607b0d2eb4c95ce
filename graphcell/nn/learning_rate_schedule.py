"""Learning-rate schedules as Cells, called with the optimizer's `global_step`
(MindSpore's `mindspore.nn.learning_rate_schedule`; MINDSPORE_NOTES.md section 5).

A schedule is computed with graphcell.ops on the step Tensor, so it runs inside a compiled
training step (and under vmap) like any other op; the step is cast to float32 first.
"""
from __future__ import annotations

import math
import numbers

from .. import dtype as mstype
from ..ops import functional as F
from .cell import Cell

__all__ = ["LearningRateSchedule", "ExponentialDecayLR", "NaturalExpDecayLR", "InverseDecayLR",
           "CosineDecayLR", "PolynomialDecayLR", "WarmUpLR"]


def _check_positive(cls, name, value, allow_zero=False):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or value < 0 or (value == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"For '{cls}', the '{name}' must be a number {bound}, but got {value!r}")


def _check_steps(cls, name, value):
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"For '{cls}', the '{name}' must be a positive int, but got {value!r}")


class LearningRateSchedule(Cell):
    """Base class: `construct(global_step) -> learning rate` (float32)."""

    def construct(self, global_step):
        raise NotImplementedError(f"{type(self).__name__} must define construct(global_step)")


def _step(global_step):
    return F.cast(global_step, mstype.float32)


class _DecayLR(LearningRateSchedule):
    """Shared arguments of the exponential, natural-exponential and inverse decays."""

    def __init__(self, learning_rate, decay_rate, decay_steps, is_stair=False):
        super().__init__()
        cls = type(self).__name__
        _check_positive(cls, "learning_rate", learning_rate)
        _check_positive(cls, "decay_rate", decay_rate)
        _check_steps(cls, "decay_steps", decay_steps)
        self.learning_rate, self.decay_rate = float(learning_rate), float(decay_rate)
        self.decay_steps, self.is_stair = decay_steps, bool(is_stair)

    def _progress(self, global_step):
        p = F.div(_step(global_step), float(self.decay_steps))
        return F.floor(p) if self.is_stair else p


class ExponentialDecayLR(_DecayLR):
    """lr * decay_rate^(t / decay_steps) (floor of the exponent with is_stair)."""

    def construct(self, global_step):
        return F.mul(F.pow(F.full_like(_step(global_step), self.decay_rate), self._progress(global_step)),
                     self.learning_rate)


class NaturalExpDecayLR(_DecayLR):
    """lr * exp(-decay_rate * t), t rounded down to a multiple of decay_steps with is_stair.
    MindSpore's code, as its natural_exp_decay_lr list: its docstring's formula divides t by
    decay_steps, which the Cell does not do."""

    def construct(self, global_step):
        t = _step(global_step)
        if self.is_stair:
            t = F.mul(F.floor(F.div(t, float(self.decay_steps))), float(self.decay_steps))
        return F.mul(F.exp(F.mul(t, -self.decay_rate)), self.learning_rate)


class InverseDecayLR(_DecayLR):
    """lr / (1 + decay_rate * t / decay_steps) (floor of t / decay_steps with is_stair)."""

    def construct(self, global_step):
        return F.div(self.learning_rate, F.add(F.mul(self._progress(global_step), self.decay_rate), 1.0))


class CosineDecayLR(LearningRateSchedule):
    """min_lr + (max_lr - min_lr)/2 * (1 + cos(pi * min(t, T)/T)), computed through sin as
    MindSpore does (1 + sin(pi*(p + 1/2)))."""

    def __init__(self, min_lr, max_lr, decay_steps):
        super().__init__()
        _check_positive("CosineDecayLR", "min_lr", min_lr, allow_zero=True)
        _check_positive("CosineDecayLR", "max_lr", max_lr)
        _check_steps("CosineDecayLR", "decay_steps", decay_steps)
        if min_lr >= max_lr:
            raise ValueError(f"For 'CosineDecayLR', the 'max_lr' should be greater than 'min_lr', but got "
                             f"'max_lr' {max_lr} and 'min_lr' {min_lr}")
        self.min_lr, self.max_lr, self.decay_steps = float(min_lr), float(max_lr), decay_steps

    def construct(self, global_step):
        p = F.div(F.minimum(_step(global_step), float(self.decay_steps)), float(self.decay_steps))
        cos_part = F.add(F.sin(F.mul(F.add(p, 0.5), math.pi)), 1.0)
        return F.add(F.mul(cos_part, 0.5 * (self.max_lr - self.min_lr)), self.min_lr)


class PolynomialDecayLR(LearningRateSchedule):
    """(lr - end) * (1 - min(t, T)/T)^power + end; with update_decay_steps, T grows to the
    next multiple of decay_steps at or above t instead."""

    def __init__(self, learning_rate, end_learning_rate, decay_steps, power, update_decay_steps=False):
        super().__init__()
        _check_positive("PolynomialDecayLR", "learning_rate", learning_rate)
        _check_positive("PolynomialDecayLR", "end_learning_rate", end_learning_rate, allow_zero=True)
        _check_positive("PolynomialDecayLR", "power", power)
        _check_steps("PolynomialDecayLR", "decay_steps", decay_steps)
        self.learning_rate, self.end_learning_rate = float(learning_rate), float(end_learning_rate)
        self.decay_steps, self.power, self.update_decay_steps = decay_steps, float(power), bool(update_decay_steps)

    def construct(self, global_step):
        t = _step(global_step)
        T = float(self.decay_steps)
        if self.update_decay_steps:
            periods = F.maximum(F.ceil(F.div(t, T)), 1.0)
            decay = F.mul(periods, T)
        else:
            t, decay = F.minimum(t, T), T
        frac = F.sub(1.0, F.div(t, decay))
        return F.add(F.mul(F.pow(frac, self.power), self.learning_rate - self.end_learning_rate),
                     self.end_learning_rate)


class WarmUpLR(LearningRateSchedule):
    """lr * min(t, warmup_steps) / warmup_steps: 0 at t = 0."""

    def __init__(self, learning_rate, warmup_steps):
        super().__init__()
        _check_positive("WarmUpLR", "learning_rate", learning_rate)
        _check_steps("WarmUpLR", "warmup_steps", warmup_steps)
        self.learning_rate, self.warmup_steps = float(learning_rate), warmup_steps

    def construct(self, global_step):
        frac = F.div(F.minimum(_step(global_step), float(self.warmup_steps)), float(self.warmup_steps))
        return F.mul(frac, self.learning_rate)

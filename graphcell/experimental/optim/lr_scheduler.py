"""mindspore.experimental.optim.lr_scheduler: torch.optim.lr_scheduler's schedulers over
graphcell's torch-style optimizers (mint.optim and experimental.optim).

A scheduler runs in Python between steps: `scheduler.step()` computes each group's rate (torch's
formulas; 2.10's sequences measured equal to torch's within float32 rounding over 20 epochs) and
writes it with `group['lr'] = value`, i.e. into the group's rate Parameter, so an optimizer
compiled once (eagerly or inside a user's `jit` step) uses it at its next call without
recompiling. `get_last_lr()` gives the rates as float32 0-d Tensors, as 2.10. (2.10 keeps
`last_epoch` in a float32 Parameter `last_epoch_<Name>`; graphcell keeps an int, as torch.)
"""
from __future__ import annotations

import math
from bisect import bisect_right
from collections import Counter

import numpy as np

from ...mint.optim.optimizer import Optimizer
from ...tensor import Tensor

__all__ = ["StepLR", "LinearLR", "LRScheduler", "ExponentialLR", "PolynomialLR", "MultiplicativeLR",
           "ConstantLR", "MultiStepLR", "LambdaLR", "SequentialLR", "ReduceLROnPlateau", "CyclicLR",
           "CosineAnnealingWarmRestarts", "CosineAnnealingLR"]


def _rate(group) -> float:
    """A group's current rate as a Python float (its Parameter's float32 value)."""
    lr = group["lr"]
    return float(lr.asnumpy()) if isinstance(lr, Tensor) else float(lr)


def _last_rates(optimizer) -> list:
    return [Tensor(np.array(_rate(g), np.float32)) for g in optimizer.param_groups]


def _check_optimizer(optimizer):
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


def _per_group(name: str, optimizer, value) -> list:
    """One value per group: a list/tuple as given (its length checked), a number repeated."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(optimizer.param_groups):
            raise ValueError(f"expected {len(optimizer.param_groups)} values for {name}, got {len(value)}")
        return list(value)
    return [value] * len(optimizer.param_groups)


class LRScheduler:
    """The base: `base_lrs` (each group's 'initial_lr', set from its rate when `last_epoch` is
    -1), `last_epoch`, and `step()`, which advances the epoch and writes `get_lr()`'s rates."""

    def __init__(self, optimizer, last_epoch=-1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", _rate(group))
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] when resuming an "
                                   "optimizer")
        self.base_lrs = [float(g["initial_lr"]) for g in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._step_count = 0
        self.step()

    def get_lr(self) -> list:
        """Each group's rate at `last_epoch`, from the current rates (torch's chainable form)."""
        raise NotImplementedError

    def get_last_lr(self) -> list:
        """The rates the last `step()` set, as float32 0-d Tensors (2.10's type)."""
        return list(self._last_lr)

    def step(self, epoch=None):
        self._step_count += 1
        if epoch is None:
            self.last_epoch += 1
            values = self.get_lr()
        else:   # jump to `epoch`: the closed form where the schedule has one (SequentialLR uses step(0))
            self.last_epoch = epoch
            values = self._get_closed_form_lr() if hasattr(self, "_get_closed_form_lr") else self.get_lr()
        for group, value in zip(self.optimizer.param_groups, values):
            group["lr"] = value
        self._last_lr = _last_rates(self.optimizer)

    def _current(self) -> list:
        return [_rate(g) for g in self.optimizer.param_groups]


class StepLR(LRScheduler):
    """lr * gamma every `step_size` epochs."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._current()
        return [lr * self.gamma for lr in self._current()]

    def _get_closed_form_lr(self):
        return [base * self.gamma ** (self.last_epoch // self.step_size) for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """lr * gamma at each milestone (a Counter: a milestone given twice multiplies by gamma^2)."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones, self.gamma = Counter(milestones), gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch not in self.milestones:
            return self._current()
        return [lr * self.gamma ** self.milestones[self.last_epoch] for lr in self._current()]

    def _get_closed_form_lr(self):
        passed = bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return [base * self.gamma ** passed for base in self.base_lrs]


class ConstantLR(LRScheduler):
    """lr * factor until epoch `total_iters`, then lr."""

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor, self.total_iters = factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0:
            return [lr * self.factor for lr in self._current()]
        if self.last_epoch != self.total_iters:
            return self._current()
        return [lr / self.factor for lr in self._current()]

    def _get_closed_form_lr(self):
        done = self.last_epoch >= self.total_iters
        return [base * (self.factor + done * (1 - self.factor)) for base in self.base_lrs]


class LinearLR(LRScheduler):
    """lr * a factor going linearly from start_factor to end_factor over `total_iters` epochs."""

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and less than or equal "
                             "to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor, self.end_factor, self.total_iters = start_factor, end_factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0:
            return [lr * self.start_factor for lr in self._current()]
        if self.last_epoch > self.total_iters:
            return self._current()
        change = self.end_factor - self.start_factor
        ratio = 1.0 + change / (self.total_iters * self.start_factor + (self.last_epoch - 1) * change)
        return [lr * ratio for lr in self._current()]

    def _get_closed_form_lr(self):
        done = min(self.total_iters, self.last_epoch) / self.total_iters
        return [base * (self.start_factor + (self.end_factor - self.start_factor) * done) for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """lr * gamma every epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0:
            return self._current()
        return [lr * self.gamma for lr in self._current()]

    def _get_closed_form_lr(self):
        return [base * self.gamma ** self.last_epoch for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """base * (1 - epoch/total_iters)^power, then 0 (held) after total_iters."""

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters, self.power = total_iters, power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0 or self.last_epoch > self.total_iters:
            return self._current()
        factor = ((1.0 - self.last_epoch / self.total_iters) / (1.0 - (self.last_epoch - 1) / self.total_iters)) \
            ** self.power
        return [lr * factor for lr in self._current()]

    def _get_closed_form_lr(self):
        return [base * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters) ** self.power
                for base in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """eta_min + (base - eta_min) * (1 + cos(pi * epoch / T_max)) / 2, continued past T_max as
    torch's recursive form does (back up again)."""

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):  # noqa: N803 - torch's names
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        e, t_max, low = self.last_epoch, self.T_max, self.eta_min
        if e == 0:
            return self._current()
        if self._step_count == 1 and e > 0:
            return self._get_closed_form_lr()
        if (e - 1 - t_max) % (2 * t_max) == 0:
            return [lr + (base - low) * (1 - math.cos(math.pi / t_max)) / 2
                    for lr, base in zip(self._current(), self.base_lrs)]
        ratio = (1 + math.cos(math.pi * e / t_max)) / (1 + math.cos(math.pi * (e - 1) / t_max))
        return [ratio * (lr - low) + low for lr in self._current()]

    def _get_closed_form_lr(self):
        return [self.eta_min + (base - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base in self.base_lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing from base to eta_min over T_i epochs, restarting at base; T_i starts at
    T_0 and is multiplied by T_mult at each restart."""

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0, last_epoch=-1):  # noqa: N803 - torch's names
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"T_0 should be an integer and equal or greater than 0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"T_mult should be an integer and equal or greater than 1, but got {T_mult}")
        self.T_0, self.T_i, self.T_mult, self.eta_min = T_0, T_0, T_mult, eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [self.eta_min + (base - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
                for base in self.base_lrs]

    def step(self, epoch=None):
        """Without `epoch`, one epoch on; with one (a float allowed), the schedule at that epoch."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur -= self.T_i
                self.T_i *= self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult ** n
            else:
                self.T_i, self.T_cur = self.T_0, epoch
        self._step_count += 1
        self.last_epoch = math.floor(epoch)
        for group, value in zip(self.optimizer.param_groups, self.get_lr()):
            group["lr"] = value
        self._last_lr = _last_rates(self.optimizer)


class CyclicLR(LRScheduler):
    """Cycles each group's rate between base_lr and max_lr: up over step_size_up epochs, down over
    step_size_down; the amplitude scaled per cycle ('triangular': 1, 'triangular2': halved each
    cycle) or per epoch ('exp_range': gamma^epoch), or by `scale_fn`. (No momentum cycling:
    2.10's has no cycle_momentum.)"""

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None, mode="triangular",
                 gamma=1.0, scale_fn=None, scale_mode="cycle", last_epoch=-1):
        _check_optimizer(optimizer)
        base_lrs = _per_group("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for value, group in zip(base_lrs, optimizer.param_groups):
                group["lr"] = value
        self.max_lrs = _per_group("max_lr", optimizer, max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size, self.step_ratio = up + down, up / (up + down)
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode, self.gamma = mode, gamma
        if scale_fn is None:
            self.scale_fn = {"triangular": lambda x: 1.0, "triangular2": lambda x: 1 / (2.0 ** (x - 1)),
                             "exp_range": lambda x: gamma ** x}[mode]
            self.scale_mode = "iterations" if mode == "exp_range" else "cycle"
        else:
            self.scale_fn, self.scale_mode = scale_fn, scale_mode
        super().__init__(optimizer, last_epoch)
        self.base_lrs = [float(b) for b in base_lrs]

    def get_lr(self):
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        scale = x / self.step_ratio if x <= self.step_ratio else (x - 1) / (self.step_ratio - 1)
        factor = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        return [base + (high - base) * scale * factor for base, high in zip(self.base_lrs, self.max_lrs)]


class LambdaLR(LRScheduler):
    """base * lr_lambda(epoch) (one function, or one per group)."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        _check_optimizer(optimizer)
        self.lr_lambdas = _lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [base * fn(self.last_epoch) for fn, base in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(LRScheduler):
    """lr * lr_lambda(epoch) every epoch after the first (one function, or one per group)."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        _check_optimizer(optimizer)
        self.lr_lambdas = _lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch <= 0:
            return self._current()
        return [lr * fn(self.last_epoch) for fn, lr in zip(self.lr_lambdas, self._current())]


def _lambdas(optimizer, lr_lambda) -> list:
    if isinstance(lr_lambda, (list, tuple)):
        if len(lr_lambda) != len(optimizer.param_groups):
            raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got {len(lr_lambda)}")
        return list(lr_lambda)
    return [lr_lambda] * len(optimizer.param_groups)


class SequentialLR:
    """Runs `schedulers[i]` from milestones[i-1] on; each one after the first starts from its
    epoch 0 (its closed form at 0) when its milestone is reached."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        _check_optimizer(optimizer)
        if len(schedulers) != len(milestones) + 1:
            raise ValueError("Sequential Schedulers expects number of schedulers provided to be one more than the "
                             f"number of milestone points, but got number of schedulers {len(schedulers)} and the "
                             f"number of milestones {len(milestones)}")
        for i, scheduler in enumerate(schedulers):
            if getattr(scheduler, "optimizer", None) is not optimizer:
                raise ValueError("Sequential Schedulers expects all schedulers to belong to the same optimizer, but "
                                 f"got schedulers at index {i} to be different than the optimizer passed in.")
        self.optimizer, self._schedulers, self._milestones = optimizer, list(schedulers), list(milestones)
        self.last_epoch = last_epoch + 1
        # the schedulers' constructors each took a step: back to the initial rates, then only the
        # first scheduler's epoch 0
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        for scheduler in self._schedulers:
            scheduler.last_epoch -= 1
        self._schedulers[0]._step_count = 0
        self._schedulers[0].step()
        self._last_lr = self._schedulers[0].get_last_lr()

    def step(self):
        self.last_epoch += 1
        index = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[index]
        if index > 0 and self._milestones[index - 1] == self.last_epoch:
            scheduler.step(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()

    def get_last_lr(self) -> list:
        return list(self._last_lr)


class ReduceLROnPlateau:
    """Multiplies each group's rate by `factor` (not below its min_lr) once the metric has not
    improved (by `threshold`, relative or absolute) for more than `patience` epochs, then waits
    `cooldown` epochs before counting again. `step(metrics)` takes the epoch's metric."""

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4, threshold_mode="rel",
                 cooldown=0, min_lr=0, eps=1e-8):
        if factor >= 1.0:
            raise ValueError("The lr factor should be less than 1.0.")
        _check_optimizer(optimizer)
        if mode not in ("min", "max"):
            raise ValueError(f"`mode` should be 'min' or 'max', but got {mode}.")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"`threshold mode` should be 'rel' or 'abs', but got {threshold_mode}.")
        self.optimizer, self.mode, self.factor, self.patience = optimizer, mode, factor, patience
        self.threshold, self.threshold_mode, self.cooldown, self.eps = threshold, threshold_mode, cooldown, eps
        if isinstance(min_lr, (list, tuple)) and len(min_lr) != len(optimizer.param_groups):
            raise ValueError(f"expected {len(optimizer.param_groups)} min_lrs, got {len(min_lr)}")
        self.min_lrs = _per_group("min_lr", optimizer, min_lr)
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.best, self.wait, self.cooldown_counter, self.last_epoch = self.mode_worse, 0, 0, 0
        self._last_lr = _last_rates(optimizer)

    def _is_better(self, current: float) -> bool:
        sign = -1.0 if self.mode == "min" else 1.0   # rel: best*(1 -/+ threshold) (stays inf at first)
        bound = self.best * (1.0 + sign * self.threshold) if self.threshold_mode == "rel" \
            else self.best + sign * self.threshold
        return current < bound if self.mode == "min" else current > bound

    def step(self, metrics):
        current = float(metrics.asnumpy()) if isinstance(metrics, Tensor) else float(metrics)
        self.last_epoch += 1
        if self._is_better(current):
            self.best, self.wait = current, 0
        else:
            self.wait += 1
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self.wait > self.patience:
            for group, low in zip(self.optimizer.param_groups, self.min_lrs):
                old = _rate(group)
                new = max(old * self.factor, low)
                if old - new > self.eps:
                    group["lr"] = new
            self.cooldown_counter, self.wait = self.cooldown, 0
        self._last_lr = _last_rates(self.optimizer)

    def get_last_lr(self) -> list:
        return list(self._last_lr)

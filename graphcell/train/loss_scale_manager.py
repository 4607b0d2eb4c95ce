"""Loss-scale managers (MindSpore 2.10's `amp.FixedLossScaleManager` /
`amp.DynamicLossScaleManager`): hold the scale's settings and make the update cell that
`nn.TrainOneStepWithLossScaleCell` (and `amp.build_train_network`) trains with.

`update_loss_scale(overflow)` is MindSpore's host-side rule, kept as it is: it grows the scale
when (t - last overflow) is a multiple of scale_window, while the update cell grows it when
scale_window <= t - last overflow and then restarts the count; both are measured on 2.10.
"""
from __future__ import annotations

import numbers


class LossScaleManager:
    """Base class: get_loss_scale(), update_loss_scale(overflow), get_update_cell()."""

    def get_loss_scale(self):
        raise NotImplementedError

    def update_loss_scale(self, overflow):
        raise NotImplementedError

    def get_update_cell(self):
        raise NotImplementedError


def _check_number(arg: str, value) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"The argument '{arg}' must be a number, but got {type(value).__name__}")


class FixedLossScaleManager(LossScaleManager):
    """A fixed scale. With drop_overflow_update=True (the default) the training cell skips
    steps whose gradients overflow (update cell: FixedLossScaleUpdateCell); with False there
    is no update cell, and the optimizer's own `loss_scale` should equal this scale."""

    def __init__(self, loss_scale=128.0, drop_overflow_update=True):
        _check_number("loss_scale", loss_scale)
        if loss_scale < 1:
            raise ValueError(f"The argument 'loss_scale' must be >= 1, but got {loss_scale}")
        self._loss_scale = loss_scale
        self._drop_overflow_update = drop_overflow_update

    def get_loss_scale(self):
        return self._loss_scale

    def get_drop_overflow_update(self):
        return self._drop_overflow_update

    def update_loss_scale(self, overflow):
        """A fixed scale never changes."""

    def get_update_cell(self):
        from ..nn.loss_scale import FixedLossScaleUpdateCell
        if not self._drop_overflow_update:
            return None
        return FixedLossScaleUpdateCell(self._loss_scale)


class DynamicLossScaleManager(LossScaleManager):
    """A scale that halves (by scale_factor) on overflow and doubles after scale_window steps
    without one; its update cell is DynamicLossScaleUpdateCell."""

    def __init__(self, init_loss_scale=2 ** 24, scale_factor=2, scale_window=2000):
        _check_number("init_loss_scale", init_loss_scale)
        if init_loss_scale < 1.0:
            raise ValueError(f"The argument 'init_loss_scale' must be > 1, but got {init_loss_scale}")
        if isinstance(scale_window, bool) or not isinstance(scale_window, int):
            raise TypeError(f"For 'DynamicLossScaleManager', the 'scale_window' must be int, but got "
                            f"'{type(scale_window).__name__}'")
        if scale_window <= 0:
            raise ValueError(f"For 'DynamicLossScaleManager', the 'scale_window' must be int and must > 0, but got "
                             f"'{scale_window}' with type 'int'.")
        _check_number("scale_factor", scale_factor)
        if scale_factor <= 0:
            raise ValueError(f"The argument 'scale_factor' must be > 0, but got {scale_factor}")
        self.loss_scale = init_loss_scale
        self.scale_window = scale_window
        self.scale_factor = scale_factor
        self.increase_ratio = scale_factor
        self.decrease_ratio = 1 / scale_factor
        self.cur_iter = 1
        self.last_overflow_iter = 0
        self.bad_step_max = 1000
        self.bad_step = 0

    def get_loss_scale(self):
        return self.loss_scale

    def update_loss_scale(self, overflow):
        if overflow:
            self.loss_scale = max(self.loss_scale * self.decrease_ratio, 1)
            self.last_overflow_iter = self.cur_iter
            self.bad_step += 1
        else:
            if (self.cur_iter - self.last_overflow_iter) % self.scale_window == 0:
                self.loss_scale *= self.increase_ratio
            self.bad_step = 0
        if self.bad_step > self.bad_step_max:
            raise RuntimeError(f"Dynamic loss scale: {self.bad_step} overflows in a row, more than the maximum "
                               f"{self.bad_step_max}.")
        self.cur_iter += 1

    def get_drop_overflow_update(self):
        return True

    def get_update_cell(self):
        from ..nn.loss_scale import DynamicLossScaleUpdateCell
        return DynamicLossScaleUpdateCell(self.loss_scale, self.scale_factor, self.scale_window)

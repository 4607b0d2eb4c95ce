"""Loss-scaled training steps (MindSpore's `nn.TrainOneStepWithLossScaleCell` with
`nn.FixedLossScaleUpdateCell` / `nn.DynamicLossScaleUpdateCell`).

The step differentiates `loss` with the sens `scale` (so the backward pass computes in the
scaled range, where a float16 gradient overflows as it would), divides the gradients by the
scale, and skips the optimizer when any gradient is inf or NaN. An update cell then adjusts
the scale, kept in the `scale_sense` Parameter: both the skipping and the adjustment are
graph ops (a `cond` and selects), so the step compiles, vmaps (each member skips on its own
overflow) and exports to ONNX like any training step.
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import dtype as mstype
from ..ops import functional as F
from ..tensor import Parameter, Tensor
from .cell import Cell
from .wrap_train import TrainOneStepCell


def _check_number(cls: str, arg: str, value, *, integer: bool = False, low: float = 0.0) -> None:
    kinds = (int,) if integer else (numbers.Real,)
    if isinstance(value, bool) or not isinstance(value, kinds) or not value > low or not np.isfinite(value):
        kind = "an int" if integer else "a finite number"
        raise ValueError(f"For '{cls}', the '{arg}' must be {kind} > {low:g}, but got {value!r}")


class FixedLossScaleUpdateCell(Cell):
    """A fixed scale: `construct(scale, overflow)` returns `overflow` and changes nothing."""
    is_training_step = True   # as DynamicLossScaleUpdateCell's: part of a training step

    def __init__(self, loss_scale_value):
        super().__init__()
        _check_number("FixedLossScaleUpdateCell", "loss_scale_value", loss_scale_value)
        self.loss_scale_value = loss_scale_value

    def get_loss_scale(self):
        return self.loss_scale_value

    def construct(self, _, overflow):
        return overflow


class DynamicLossScaleUpdateCell(Cell):
    """MindSpore 2.10's rule, step by step (t counts calls from 1; last starts at 0):

        on overflow: scale <- max(scale / scale_factor, 1)
        grow = scale_window <= t - last
        if overflow or grow: last <- t
        if grow and not overflow: scale <- scale * scale_factor
        t <- t + 1

    so the scale doubles (by default) after `scale_window` steps without overflow. State:
    the int32 Parameters `current_iterator_step` (t) and `last_overflow_iterator_step`
    (last); the scale is the Parameter passed to construct (the training cell's
    `scale_sense`). Returns `overflow`.
    """
    # It writes training state: amp leaves its Parameters, and the scale passed in, float32
    # Parameters (graphcell/amp.py), and export keeps the step's modes (compiler/export.py).
    is_training_step = True

    def __init__(self, loss_scale_value, scale_factor, scale_window):
        super().__init__()
        cls = "DynamicLossScaleUpdateCell"
        _check_number(cls, "loss_scale_value", loss_scale_value)
        _check_number(cls, "scale_factor", scale_factor)
        _check_number(cls, "scale_window", scale_window, integer=True)
        self.loss_scale_value = loss_scale_value
        self.scale_factor = float(scale_factor)
        self.scale_window = int(scale_window)
        self.cur_iter = Parameter(np.array(1, np.int32), name="current_iterator_step")
        self.last_overflow_iter = Parameter(np.array(0, np.int32), name="last_overflow_iterator_step")

    def get_loss_scale(self):
        return self.loss_scale_value

    def construct(self, loss_scale, overflow):
        overflow = F.cast(F.reshape(overflow, ()), mstype.bool_)
        shrunk = F.select(overflow, F.maximum(F.div(loss_scale, self.scale_factor), 1.0), loss_scale)
        grow = F.less_equal(self.scale_window, F.sub(self.cur_iter, self.last_overflow_iter))
        F.assign(self.last_overflow_iter,
                 F.select(F.logical_or(overflow, grow), self.cur_iter, self.last_overflow_iter))
        grown = F.select(F.logical_and(grow, F.logical_not(overflow)), F.mul(shrunk, self.scale_factor), shrunk)
        F.assign(loss_scale, grown)
        F.assign(self.cur_iter, F.add(self.cur_iter, 1))
        return overflow


class TrainOneStepWithLossScaleCell(TrainOneStepCell):
    """`(loss, overflow, scale) = cell(*inputs)`, as MindSpore 2.10 returns them (measured,
    with its GPU overflow check; its CPU backend has no overflow kernel):

    - grads = d(loss)/d(weights) computed with sens `scale`, then times 1/scale;
    - overflow = some gradient element is inf or NaN (a bool scalar);
    - the update cell (if `scale_sense` is one) adjusts the scale; the optimizer runs only
      when there was no overflow (the step counter and optimizer state stay put otherwise);
    - returns the loss computed before the update, the overflow flag and the scale after the
      update cell.

    `scale_sense`: an update cell (the scale starts at its `get_loss_scale()`) or a Tensor of
    shape () or (1,) (a fixed scale; overflowing steps are still skipped). The scale is the
    float32 Parameter `scale_sense`; `set_sense_scale(Tensor)` changes it.
    """

    def __init__(self, network, optimizer, scale_sense):
        super().__init__(network, optimizer, sens=None)
        self.loss_scaling_manager = None
        if isinstance(scale_sense, Cell):
            self.loss_scaling_manager = scale_sense
            value = np.asarray(scale_sense.get_loss_scale(), np.float32)
        elif isinstance(scale_sense, Tensor):
            if tuple(scale_sense.shape) not in ((), (1,)):
                raise ValueError("For 'TrainOneStepWithLossScaleCell', the shape of 'scale_sense' must be (1,) or "
                                 f"(), but got {tuple(scale_sense.shape)}.")
            value = scale_sense.asnumpy()
        else:
            raise TypeError("For 'TrainOneStepWithLossScaleCell', the 'scale_sense' must be Cell or Tensor, but "
                            f"got 'scale_sense' type: {type(scale_sense).__name__}.")
        self.scale_sense = Parameter(value, name="scale_sense")

    def set_sense_scale(self, sens):
        if not isinstance(sens, Tensor):
            raise TypeError("For 'TrainOneStepWithLossScaleCell', the type of 'sens' must be Tensor, but got "
                            f"{type(sens).__name__}")
        self.scale_sense.set_data(sens)

    def construct(self, *inputs):
        from ..amp import all_finite
        from ..api.grad import value_and_grad
        from ..ops.control_flow import cond
        scale = self.scale_sense

        def scaled_loss(*args):
            # Differentiating loss * scale gives the backward pass the cotangent `scale`, as
            # MindSpore's sens does; the loss itself comes back as the aux output.
            loss = self.network(*args)
            return F.mul(loss, F.cast(scale, loss.dtype)), loss
        (_, loss), grads = value_and_grad(scaled_loss, None, self.weights, has_aux=True)(*inputs)
        grads = tuple(F.mul(g, F.cast(F.reciprocal(scale), g.dtype)) for g in grads)
        overflow = F.logical_not(all_finite(grads))
        if self.loss_scaling_manager is not None:
            overflow = self.loss_scaling_manager(scale, overflow)
        cond(overflow, lambda: (), lambda: self._update(grads))
        return loss, overflow, F.add(self.scale_sense, 0.0)

    def _update(self, grads):
        self.optimizer(grads)
        return ()

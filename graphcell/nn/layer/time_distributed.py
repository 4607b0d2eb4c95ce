"""MindSpore 2.10's TimeDistributed: a layer applied at every step of a time axis."""
from __future__ import annotations

from ...ops import functional as F
from ...ops.op_base import Operator
from ..cell import Cell


class TimeDistributed(Cell):
    """`layer` at every step of `time_axis` of an input of rank >= 3.

    reshape_with_axis=None: the layer runs on each time slice (the time axis removed) and the
    results are stacked on `time_axis`. Otherwise the time axis is merged with
    `reshape_with_axis` into one axis, the layer runs once, and that axis is split again. Where
    the axes are placed follows 2.10 exactly (measured over every axis pair of rank-3, 4 and 5
    inputs): with t = time_axis > w = reshape_with_axis the time axis moves to w + 1 and axes
    (w, w + 1) merge; with t <= w the axis w - 1 moves to position t and axes (w - 1, w) merge
    (which merges the time axis only when t >= w - 1); the output keeps that moved order. t =
    w = 0 fails in 2.10 (a Transpose error) and is refused here.
    """

    def __init__(self, layer, time_axis, reshape_with_axis=None):
        super().__init__()
        if not isinstance(layer, (Cell, Operator)):
            raise TypeError(f"For 'TimeDistributed', the 'layer' must be Cell or Primitive instance, but got type: "
                            f"{type(layer).__name__}.")
        for name, value in (("time_axis", time_axis), ("reshape_with_axis", reshape_with_axis)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise TypeError(f"For 'TimeDistributed', the type of '{name}' must be 'int', but got "
                                f"'{type(value).__name__}'.")
        self.layer, self.time_axis, self.reshape_with_axis = layer, time_axis, reshape_with_axis

    def construct(self, inputs):
        if inputs.ndim < 3:
            raise ValueError(f"For 'TimeDistributed', the inputs shape must be at least 3D, but got {inputs.ndim}.")
        rank = inputs.ndim
        t = self.time_axis % rank
        if self.reshape_with_axis is None:
            steps = [self.layer(step) for step in F.unstack(inputs, t)]
            out_rank = steps[0].ndim + 1
            if not -out_rank <= self.time_axis < out_rank:
                raise ValueError(f"For 'TimeDistributed', the value of 'time_axis' must be in range of "
                                 f"[{-out_rank}, {out_rank - 1}], but got {self.time_axis}.")
            return F.stack(steps, self.time_axis)
        w = self.reshape_with_axis % rank
        if t == w == 0:
            raise ValueError("For 'TimeDistributed', time_axis and reshape_with_axis are both axis 0, which 2.10 "
                             "cannot merge (its Transpose fails); give reshape_with_axis another axis.")
        if t > w:
            moved, place, first = t, w + 1, w
        else:
            moved, place, first = w - 1, t, w - 1
        perm = [a for a in range(rank) if a != moved]
        perm.insert(place, moved)
        x = F.transpose(inputs, tuple(perm)) if perm != list(range(rank)) else inputs
        pair = tuple(x.shape[first:first + 2])
        x = F.reshape(x, tuple(x.shape[:first]) + (-1,) + tuple(x.shape[first + 2:]))
        y = self.layer(x)
        return F.reshape(y, tuple(y.shape[:first]) + pair + tuple(y.shape[first + 1:]))

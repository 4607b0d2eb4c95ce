"""MindSpore 2.10's array layers Roll, Range, OneHot and Unflatten (arguments, attributes, dtypes
and errors measured on 2.10's CPU build; its nn.Roll has no CPU kernel there, "The kernel Roll
unregistered", so Roll's values follow numpy's roll, as its documentation does)."""
from __future__ import annotations

import math
import numbers

import numpy as np

from ... import dtype as mstype
from ...ops import composite
from ...ops import functional as F
from ...tensor import Tensor
from ..cell import Cell


def _is_int(v) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _int_or_ints(value, name: str, op: str) -> list:
    if isinstance(value, (tuple, list)) and all(_is_int(v) for v in value):
        return list(value)
    if _is_int(value):
        return [value]
    raise TypeError(f"For '{op}', the type of '{name}' should be one of '['int', 'tuple', 'list']', but got type "
                    f"'{type(value).__name__}'.")


class Roll(Cell):
    """Rolls the input by `shift` along `axis` (ints, or sequences of one length): elements
    shifted past the end come back at the start."""

    def __init__(self, shift, axis):
        super().__init__()
        shifts, axes = _int_or_ints(shift, "shift", "Roll"), _int_or_ints(axis, "axis", "Roll")
        if len(shifts) != len(axes):
            raise ValueError(f"For 'Roll', the shape of 'shift' and the shape of 'axis' must be the same, but got the "
                             f"length of 'shift' {len(shifts)} and the length of 'axis' {len(axes)}.")
        self.shift, self.axis = shift, axis
        self._shifts, self._axes = shifts, axes

    def construct(self, input_x):
        for a in self._axes:
            if not -input_x.ndim <= a < input_x.ndim:
                raise ValueError(f"For 'Roll', the 'axis' must be in range of [-{input_x.ndim}, {input_x.ndim}), but "
                                 f"got {a} with type 'int'.")
        return composite.roll(input_x, self._shifts, self._axes)


class Range(Cell):
    """start, start + delta, ... below limit (above it for a negative delta); Range(n) is
    [0, n). Int32 when every bound is an int, else float32, computed in float64 and rounded
    (measured: Range(0, 1, 0.3) ends at float32(0.9), not 3 * float32(0.3)). The values are
    made once, at construction; `construct()` takes no input."""

    def __init__(self, start, limit=None, delta=1):
        super().__init__()
        bounds = [v.item() if isinstance(v, Tensor) else v for v in (start, limit, delta)]
        for name, v in zip(("start", "limit", "delta"), bounds):
            if v is not None and not isinstance(v, numbers.Real):
                raise TypeError(f"For 'Range', the type of '{name}' should be int or float, but got "
                                f"'{type(v).__name__}'.")
        start, limit, delta = bounds
        if limit is None:
            start, limit = 0, start
        if delta == 0:
            raise ValueError("For 'Range', the 'delta' can not be zero.")
        integers = all(isinstance(v, numbers.Integral) for v in (start, limit, delta))
        self.ms_dtype = mstype.int32 if integers else mstype.float32
        self.result_tensor = Tensor(np.arange(start, limit, delta).astype(self.ms_dtype.np_dtype))

    def construct(self):
        return self.result_tensor


class OneHot(Cell):
    """on_value where an index equals the class, off_value elsewhere, the `depth` classes on
    axis `axis` (-1: last) of the result, in `dtype`. Indices are int32 or int64; one outside
    [0, depth) gives a row of off_value."""

    def __init__(self, axis=-1, depth=1, on_value=1.0, off_value=0.0, dtype=mstype.float32):
        super().__init__()
        self.axis, self.depth, self.on_value, self.off_value, self.dtype = axis, depth, on_value, off_value, dtype

    def construct(self, indices):
        if indices.dtype not in (mstype.int32, mstype.int64):
            raise TypeError("For primitive[OneHot], the input argument[indices] must be a type of {Tensor[Int32], "
                            f"Tensor[Int64]}}, but got Tensor[{indices.dtype}].")
        if not -1 <= self.axis <= indices.ndim:
            raise ValueError(f"For primitive[OneHot], the axis value must be in [-1,{indices.ndim}], but got "
                             f"{self.axis}.")
        if self.depth < 0:
            raise ValueError(f"For primitive[OneHot], the depth value must be greater than or equal to 0, but got "
                             f"{self.depth}.")
        dtype = mstype.to_dtype(self.dtype)
        if dtype not in (mstype.float16, mstype.float32, mstype.int32, mstype.int64):
            raise TypeError("For primitive[OneHot], the input argument[off_value] must be a type of {Tensor[Float16], "
                            f"Tensor[Float32], Tensor[Int32], Tensor[Int64]}}, but got Tensor[{dtype}].")
        return F.one_hot(indices, self.depth, self.on_value, self.off_value, self.axis, dtype=dtype)


class Unflatten(Cell):
    """Splits axis `axis` into `unflattened_size` (one entry may be -1, inferred)."""

    def __init__(self, axis, unflattened_size):
        super().__init__()
        if not _is_int(axis):
            raise TypeError(f"For 'Unflatten', the type of 'axis' must be 'int', but got '{type(axis).__name__}'.")
        if not isinstance(unflattened_size, (tuple, list)):
            raise TypeError(f"For 'Unflatten', the type of 'unflattended_size' should be one of '['list', 'tuple']', "
                            f"but got type '{type(unflattened_size).__name__}'.")
        self.axis, self.unflattened_size = axis, tuple(unflattened_size)

    def construct(self, input):  # noqa: A002 - MindSpore's name
        axis = F._axis(self.axis, input.ndim, "Unflatten: axis")
        sizes, n = self.unflattened_size, input.shape[axis]
        known = math.prod(s for s in sizes if s != -1)
        if sizes.count(-1) > 1:
            raise ValueError(f"For 'Unflatten', only one dimension can be inferred, got {sizes}")
        if (n % known if -1 in sizes and known else known != n):
            raise ValueError(f"For 'Unflatten', unflattened_size {sizes} does not fit axis {axis} of size {n} "
                             f"(input shape {list(input.shape)})")
        return F.reshape(input, input.shape[:axis] + sizes + input.shape[axis + 1:])

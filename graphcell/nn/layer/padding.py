"""Padding layers over ops.pad: ZeroPad2d, ConstantPad1d/2d/3d, ReflectionPad1d/2d/3d and
ReplicationPad1d/2d/3d, with MindSpore 2.10's arguments and checks (measured).

`padding` is an int (every side of the layer's 1, 2 or 3 trailing axes) or a flat tuple
(left, right, top, bottom, front, back), the last axis first. Constant pads take negative
amounts (they crop); reflection mirrors without repeating the edge and needs less padding than
the axis; replication repeats the edge and, as MindSpore's, takes the layer's unbatched or
batched rank only (a padding of 2k numbers: rank k+1 or k+2).
"""
from __future__ import annotations

import numbers

from ...ops import composite
from ...ops import functional as F
from ..cell import Cell


def _is_int(v) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


class _ConstantPadNd(Cell):
    _axes = 2   # how many trailing axes an int padding covers

    def __init__(self, padding, value):
        super().__init__()
        name = type(self).__name__
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"For '{name}', the type of parameter 'value' must be in [int, float], but got "
                            f"{type(value)}")
        if _is_int(padding):
            padding = (int(padding),) * (2 * self._axes)
        elif isinstance(padding, tuple) and all(_is_int(p) for p in padding):
            if len(padding) % 2:
                raise ValueError(f"For '{name}', the length of parameter 'padding' with tuple type must be a "
                                 f"multiple of 2, but got {len(padding)}")
            if self._axes == 1 and len(padding) != 2:
                raise ValueError(f"For '{name}', the length of parameter 'padding' with tuple type must equal to 2."
                                 f"but got {len(padding)}")
            if len(padding) > 2 * self._axes:
                raise ValueError(f"For '{name}', the length of parameter 'padding' with tuple type must no more "
                                 f"than {2 * self._axes}.but got {len(padding)}")
        else:
            raise TypeError(f"For '{name}', the type of parameter 'padding' must be in [int, tuple], but got "
                            f"{type(padding)}")
        self.padding, self.value = tuple(int(p) for p in padding), value

    def construct(self, x):
        self.check_input(x, what="input")
        if x.ndim < len(self.padding) // 2:
            raise ValueError(f"For '{type(self).__name__}', a padding of {len(self.padding)} numbers pads the last "
                             f"{len(self.padding) // 2} axes, but the input has rank {x.ndim}.")
        return F.pad(x, self.padding, "constant", self.value)

    def extend_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last axis with `value`: padding an int or (left, right)."""
    _axes = 1


class ConstantPad2d(_ConstantPadNd):
    """Pads the last two axes with `value`: padding an int or up to (left, right, top, bottom)."""
    _axes = 2


class ConstantPad3d(_ConstantPadNd):
    """Pads the last three axes with `value`: padding an int or up to (left, right, top, bottom,
    front, back)."""
    _axes = 3


class ZeroPad2d(ConstantPad2d):
    """ConstantPad2d with zeros."""

    def __init__(self, padding):
        super().__init__(padding, 0)


class _ModePadNd(Cell):
    _axes = 1
    _mode = "reflect"

    def __init__(self, padding):
        super().__init__()
        name = type(self).__name__
        if _is_int(padding):
            padding = (int(padding),) * (2 * self._axes)
        elif not (isinstance(padding, tuple) and all(_is_int(p) for p in padding)):
            raise TypeError(f"For '{name}' the input 'padding' must be an integer or tuple, but got "
                            f"{type(padding).__name__}")
        if len(padding) % 2:
            raise ValueError(f"For '{name}' the length of input 'padding' must be divisible by 2, but got padding of "
                             f"length {len(padding)}. ")
        if self._mode == "reflect" and any(p < 0 for p in padding):
            raise ValueError(f"For '{name}' every element in 'padding' must be >= 0. but got {tuple(padding)}. ")
        self.padding = tuple(int(p) for p in padding)

    def construct(self, x):
        self.check_input(x, what="input")
        k = len(self.padding) // 2
        if self._mode == "replicate" and x.ndim not in (k + 1, k + 2):
            raise ValueError(f"For '{type(self).__name__}', a padding of {2 * k} numbers takes a {k + 1}-D or "
                             f"{k + 2}-D input, but got {x.ndim}-D.")
        if x.ndim < k:
            raise ValueError(f"For padding with length {2 * k}, the dimension of the tensor should be at least {k}, "
                             f"but got {x.ndim}")
        return F.pad(x, self.padding, self._mode)

    def extend_repr(self):
        return f"padding={self.padding}"


class ReflectionPad1d(_ModePadNd):
    """Mirrors the last axis without repeating its edge: padding an int or (left, right)."""
    _axes, _mode = 1, "reflect"


class ReflectionPad2d(_ModePadNd):
    """Mirrors the last two axes: padding an int or (left, right, top, bottom)."""
    _axes, _mode = 2, "reflect"


class ReflectionPad3d(_ModePadNd):
    """Mirrors the last three axes: padding an int or (left, right, top, bottom, front, back)."""
    _axes, _mode = 3, "reflect"


class ReplicationPad1d(_ModePadNd):
    """Repeats the last axis' edge elements: padding an int or (left, right); [C, W] or [N, C, W]."""
    _axes, _mode = 1, "replicate"


class ReplicationPad2d(_ModePadNd):
    """Repeats the edges of the last two axes: [C, H, W] or [N, C, H, W]."""
    _axes, _mode = 2, "replicate"


class ReplicationPad3d(_ModePadNd):
    """Repeats the edges of the last three axes: [C, D, H, W] or [N, C, D, H, W]."""
    _axes, _mode = 3, "replicate"


class Pad(Cell):
    """MindSpore's nn.Pad: `paddings` a tuple of one (before, after) pair per input axis; mode
    'CONSTANT' (zeros), 'REFLECT' (mirrored without the edge) or 'SYMMETRIC' (mirrored with it)."""

    def __init__(self, paddings, mode="CONSTANT"):
        super().__init__()
        if not isinstance(paddings, tuple):
            raise TypeError(f"For 'Pad', the type of 'paddings' must be tuple, but got {type(paddings).__name__}.")
        if not all(isinstance(p, tuple) and len(p) == 2 and all(_is_int(v) and v >= 0 for v in p) for p in paddings):
            raise ValueError(f"For 'Pad', each entry of 'paddings' must be a pair of non-negative ints, but got "
                             f"{paddings}.")
        if mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
            raise ValueError(f"For 'Pad', the 'mode' must be str and must be in "
                             f"'['CONSTANT', 'REFLECT', 'SYMMETRIC']', but got '{mode}'.")
        self.paddings, self.mode = paddings, mode

    def construct(self, x):
        if len(self.paddings) != x.ndim:
            raise ValueError(f"For 'Pad', the length of 'paddings' must be equal to the rank of 'input_x', but got "
                             f"{len(self.paddings)} vs {x.ndim}")
        if self.mode != "SYMMETRIC":
            return F.pad(x, self.paddings, "constant" if self.mode == "CONSTANT" else "reflect")
        for axis, (lo, hi) in enumerate(self.paddings):
            n = x.shape[axis]
            if lo > n or hi > n:
                raise ValueError(f"For 'Pad', a SYMMETRIC padding must be at most the axis' size {n}, but got "
                                 f"{(lo, hi)} on axis {axis}.")
            parts = [x]
            if lo:
                parts.insert(0, composite.flip(F.slice_axis(x, axis, 0, lo), (axis,)))
            if hi:
                parts.append(composite.flip(F.slice_axis(x, axis, n - hi, n), (axis,)))
            x = F.concat(parts, axis) if len(parts) > 1 else x
        return x

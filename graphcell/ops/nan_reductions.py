"""`nanmedian`: the lower median of the non-NaN values along an axis, with its index, as
MindSpore 2.10 gives them (measured on its CPU build): the element at position (count - 1) // 2
of a stable sort of the numbers (equal values in index order: [2, 1, 2, 1] gives 1 at index 3),
NaN where a slice is all NaN. Composed of a sort and gathers, so the gradient reaches the
element picked (MindSpore's: [3, 1, 2] gives [0, 0, 1]).

A slice of NaN only gives the index of its first NaN; MindSpore's partial sort leaves an index
that depends on the length (0 for 1 to 3 NaN, then 2, 2, 3, 5, 6 for 4 to 8), which graphcell
does not copy.
"""
from __future__ import annotations

import numbers

from .. import dtype as mstype
from ..tensor import Tensor
from . import functional as F
from .composite import isnan
from .sorting import sort

__all__ = ["nanmedian"]

_MEDIAN_DTYPES = (mstype.float32, mstype.float64, mstype.int16, mstype.int32, mstype.int64)


def nanmedian(input, axis=-1, keepdims=False):  # noqa: A002 - MindSpore's names
    """(values, int64 indices) of the lower median of the non-NaN elements along `axis`
    (float32, float64, int16, int32 or int64 input)."""
    x = F.as_tensor(input)
    if x.dtype not in _MEDIAN_DTYPES:
        raise TypeError("For primitive[Median], the input argument[x] must be a type of {Tensor[Float32], "
                        f"Tensor[Float64], Tensor[Int16], Tensor[Int32], Tensor[Int64]}}, but got Tensor[{x.dtype}].")
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"For 'Median', the type of 'axis' should be 'int', but got type '{type(axis).__name__}'.")
    rank = max(x.ndim, 1)
    if not -rank <= axis < rank:
        raise ValueError(f"For primitive[Median], the axis must be in [{-rank},{rank}), but got {axis}.")
    if x.ndim == 0:
        return x, Tensor(0, mstype.int64)
    axis %= x.ndim
    if x.shape[axis] == 0:
        raise ValueError(f"For 'nanmedian', axis {axis} is empty (shape {list(x.shape)}): it has no median")
    values, indices = sort(x, axis)          # stable, NaN last
    count = F.reduce_sum(F.cast(F.logical_not(isnan(x)), mstype.int32), axis, True)
    middle = F.maximum(F.floor_div(F.sub(count, 1), 2), 0)   # all NaN: the first NaN
    value, index = F.gather_elements(values, axis, middle), F.gather_elements(indices, axis, middle)
    if not keepdims:
        value, index = F.squeeze(value, axis), F.squeeze(index, axis)
    return value, F.cast(index, mstype.int64)

"""mint's constructors: torch's signatures (`size` as ints or one tuple, keyword `dtype`) and
dtypes (an integer fill or range is int64, a float one float32, a bool fill bool)."""
from __future__ import annotations

import numbers

from .. import dtype as mstype
from ..dtype import to_dtype
from .. import ops
from ..ops import functional as F


def _size(size) -> tuple:
    """size given as ints, or as one tuple/list."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    return tuple(int(d) for d in size)


def _fill_dtype(value, dtype):
    if dtype is not None:
        return to_dtype(dtype)
    if isinstance(value, bool):
        return mstype.bool_
    if isinstance(value, numbers.Integral):
        return mstype.int64
    if isinstance(value, complex):
        return mstype.complex64
    if isinstance(value, numbers.Real):
        return mstype.float32
    return F.as_tensor(value).dtype


def arange(start=0, end=None, step=1, *, dtype=None):
    """[start, end) in steps of step; int64 for integer bounds, float32 when one is a float."""
    return F.arange(start, end, step, dtype)


def linspace(start, end, steps, *, dtype=None):
    """steps evenly spaced values from start to end, both included; float32 unless dtype."""
    out = ops.linspace(start, end, steps)
    return out if dtype is None else F.cast(out, dtype)


def eye(n, m=None, dtype=None):
    return F.eye(n, m, dtype)


def full(size, fill_value, *, dtype=None):
    return F.full(tuple(size), fill_value, _fill_dtype(fill_value, dtype))


def full_like(input, fill_value, *, dtype=None):  # noqa: A002 - mint's names
    """input's shape, in input's dtype unless dtype."""
    x = F.as_tensor(input)
    return F.full(tuple(x.shape), fill_value, to_dtype(dtype) if dtype is not None else x.dtype)


def zeros(size, *, dtype=None):
    return F.zeros(_size((size,)), dtype or mstype.float32)


def ones(size, *, dtype=None):
    return F.ones(_size((size,)), dtype or mstype.float32)


def zeros_like(input, *, dtype=None):  # noqa: A002
    return full_like(input, 0, dtype=dtype)


def ones_like(input, *, dtype=None):  # noqa: A002
    return full_like(input, 1, dtype=dtype)


def empty(*size, dtype=None, device=None, pin_memory=False):
    """A Tensor of `size` (graphcell fills it with zeros: its values are unspecified in torch)."""
    return F.zeros(_size(size), dtype or mstype.float32)


def empty_like(input, *, dtype=None, device=None, pin_memory=False):  # noqa: A002
    return zeros_like(input, dtype=dtype)

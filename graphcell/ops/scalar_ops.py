"""MindSpore 2.10's ops on Python numbers: `scalar_to_tensor` and `scalar_cast`.

Both take a Python number, or a number the graph computes (a GraphScalar: a counter of a
tensor `while`, `mutable(n)`, `x.item()` inside jit; graph_scalar.py), and refuse a Tensor
with 2.10's words (measured).
"""
from __future__ import annotations

import numbers

from .. import dtype as mstype
from ..dtype import to_dtype
from ..graph_scalar import GraphScalar, mark
from ..tensor import Tensor

_CAST_TYPES = (mstype.int64, mstype.float64, mstype.bool_)


def _number(x, op: str, kinds: str):
    if type(x) is GraphScalar or (isinstance(x, numbers.Number) and not isinstance(x, (complex, Tensor))):
        return x
    raise TypeError(f"For '{op}', the type of 'x' should be one of {kinds}, but got type '{type(x).__name__}'.")


def scalar_to_tensor(input_x, dtype=mstype.float32) -> Tensor:
    """A 0-d Tensor of `dtype` holding the number (an int too big for an integer dtype wraps:
    300 as Int8 is 44, as in 2.10)."""
    from .functional import _wrapped_int, as_tensor
    x = _number(input_x, "ScalarToTensor", "'['bool', 'int', 'float']'")
    dtype = to_dtype(dtype)
    if isinstance(x, GraphScalar):
        return Tensor._symbolic(x.astype(dtype)._payload) if x.is_symbolic else as_tensor(x, dtype)
    if isinstance(x, numbers.Integral) and not isinstance(x, bool) and dtype.np_dtype.kind in "iu":
        x = _wrapped_int(int(x), dtype.np_dtype)
    return Tensor(x, dtype)


def scalar_cast(input_x, input_y):
    """The number as `input_y` (int64: truncated toward zero, float64, or bool): a Python
    number, or inside a graph a number of the graph."""
    x = _number(input_x, "ScalarCast", "'['bool', 'Number']'")
    dtype = to_dtype(input_y)
    if dtype not in _CAST_TYPES:
        raise ValueError("For 'ScalarCast', the supported type is in the list: [mindspore.int64, mindspore.float64, "
                         f"mindspore.bool], but got {dtype}")
    if isinstance(x, GraphScalar):
        if dtype is mstype.bool_:
            return mark(x != 0)
        return mark(x.astype(dtype))
    return {mstype.int64: int, mstype.float64: float, mstype.bool_: bool}[dtype](x)

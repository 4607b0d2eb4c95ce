"""Comparisons and logic of mindspore.numpy: elementwise comparisons and logical functions with
`dtype=`, isclose, whole-array equality, membership (in1d, isin) and dtype promotion.

array_equal and array_equiv return 0-d Bool Tensors (as MindSpore 2.10), so they trace; arrays
of different shapes are simply unequal.
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import dtype as mstype
from .. import ops
from ..dtype import DType, to_dtype
from ..ops import functional as F
from ..tensor import Tensor
from ._helpers import operands, promote, tensor, with_dtype


def _compare(op, name):
    def fn(x1, x2, dtype=None):
        return with_dtype(op(*operands(x1, x2)), dtype)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"numpy's {name}, elementwise with broadcasting: a Bool Tensor (`dtype` casts it)."
    return fn


equal = _compare(ops.eq, "equal")
not_equal = _compare(ops.ne, "not_equal")
greater = _compare(ops.gt, "greater")
greater_equal = _compare(ops.ge, "greater_equal")
less = _compare(ops.lt, "less")
less_equal = _compare(ops.le, "less_equal")
logical_and = _compare(ops.logical_and, "logical_and")
logical_or = _compare(ops.logical_or, "logical_or")
logical_xor = _compare(ops.logical_xor, "logical_xor")


def logical_not(a, dtype=None) -> Tensor:
    return with_dtype(ops.logical_not(tensor(a)), dtype)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False) -> Tensor:
    """|a - b| <= atol + rtol * |b|, elementwise (NaNs equal with equal_nan)."""
    a, b = promote(a, b)
    return ops.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


def _all(x: Tensor) -> Tensor:
    return ops.all(x, tuple(range(x.ndim)), False) if x.ndim else x


def array_equal(a1, a2, equal_nan=False) -> Tensor:
    """Whether a1 and a2 have one shape and equal elements (a 0-d Bool Tensor)."""
    a, b = promote(a1, a2)
    if a.shape != b.shape:
        return Tensor(np.array(False))
    same = ops.eq(a, b)
    if equal_nan and a.dtype.is_floating:
        same = ops.logical_or(same, ops.logical_and(ops.isnan(a), ops.isnan(b)))
    return _all(same)


def array_equiv(a1, a2) -> Tensor:
    """Whether a1 and a2 broadcast together and are equal everywhere (a 0-d Bool Tensor)."""
    a, b = promote(a1, a2)
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        return Tensor(np.array(False))
    return _all(ops.eq(a, b))


def in1d(ar1, ar2, invert=False) -> Tensor:
    """Whether each element of the flattened ar1 is in ar2 (a 1-D Bool Tensor)."""
    return isin(F.reshape(tensor(ar1), (-1,)), ar2, invert)


def isin(element, test_elements, invert=False) -> Tensor:
    """Whether each element is in test_elements, shaped like `element`."""
    x, tests = promote(element, test_elements)
    tests = F.reshape(tests, (1,) * x.ndim + (-1,))
    found = ops.any(ops.eq(F.expand_dims(x, x.ndim), tests), (x.ndim,), False)
    return ops.logical_not(found) if invert else found


def promote_types(type1, type2) -> DType:
    """The dtype two dtypes promote to (MindSpore's rules: Int32 with Float16 is Float16)."""
    return mstype.result_dtype(to_dtype(type1), to_dtype(type2))


def _dtype_of(x) -> DType:
    if isinstance(x, Tensor):
        return x.dtype
    if isinstance(x, bool):
        return mstype.bool_
    if isinstance(x, numbers.Integral):
        return mstype.int32
    if isinstance(x, numbers.Real):
        return mstype.float32
    try:
        return to_dtype(x)
    except (TypeError, ValueError, KeyError):
        return tensor(x).dtype


def result_type(*arrays_and_dtypes) -> DType:
    """The dtype the Tensors, dtypes and Python numbers promote to together."""
    return mstype.result_dtype(*(_dtype_of(x) for x in arrays_and_dtypes))


def isscalar(element) -> bool:
    """Whether `element` is a Python or numpy scalar (a Tensor is not)."""
    return isinstance(element, (numbers.Number, str, bytes, np.generic))

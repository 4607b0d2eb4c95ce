"""What graphcell.numpy's modules share: turning arguments into Tensors with mindspore.numpy's
default dtypes, numpy's axis arguments, and the host read of the eager-only functions."""
from __future__ import annotations

import numbers

import numpy as np

from .. import dtype as mstype
from ..dtype import to_dtype
from ..ops import functional as F
from ..tensor import Tensor

# mindspore.numpy makes Python ints Int32 and Python floats Float32 (measured on 2.10: mnp.array([1, 2]),
# mnp.arange(5), mnp.full(2, 7) are Int32)
_DEFAULTS = {np.dtype(np.int64): mstype.int32, np.dtype(np.float64): mstype.float32}


def tensor(x, dtype=None) -> Tensor:
    """`x` as a Tensor; Python numbers and lists take mindspore.numpy's Int32/Float32, a list
    holding Tensors is stacked (so it stays traceable)."""
    if isinstance(x, Tensor):
        return x if dtype is None else F.cast(x, to_dtype(dtype))
    if isinstance(x, (list, tuple)) and any(isinstance(v, Tensor) for v in _leaves(x)):
        parts = [tensor(v) for v in x]
        common = mstype.result_dtype(*(p.dtype for p in parts))
        out = F.stack([F.cast(p, common) for p in parts], 0)
        return out if dtype is None else F.cast(out, to_dtype(dtype))
    if dtype is not None:
        return Tensor(np.asarray(x), to_dtype(dtype))
    value = np.asarray(x)
    if not isinstance(x, np.ndarray) and not isinstance(x, np.generic):
        return Tensor(value, _DEFAULTS.get(value.dtype, None) or mstype.to_dtype(value.dtype))
    return Tensor(value)


def _leaves(x):
    for v in x:
        if isinstance(v, (list, tuple)):
            yield from _leaves(v)
        else:
            yield v


def tensors(*xs) -> list:
    return [tensor(x) for x in xs]


def operands(a, b) -> tuple:
    """Two operands of a binary function: Python scalars stay scalars (ops give them the other
    operand's dtype, as MindSpore's weak typing does), everything else becomes a Tensor."""
    if isinstance(a, numbers.Number) and isinstance(b, numbers.Number):
        return tensor(a), tensor(b)
    a = a if isinstance(a, numbers.Number) else tensor(a)
    b = b if isinstance(b, numbers.Number) else tensor(b)
    return a, b


def promote(*xs) -> list:
    """Tensors cast to the dtype they promote to together."""
    ts = [tensor(x) for x in xs]
    common = mstype.result_dtype(*(t.dtype for t in ts))
    return [t if t.dtype is common else F.cast(t, common) for t in ts]


def as_float(x) -> Tensor:
    """Floating Tensors as they are, others in Float32 (mindspore.numpy's float functions)."""
    x = tensor(x)
    return x if x.dtype.is_floating else F.cast(x, mstype.float32)


def with_dtype(x: Tensor, dtype) -> Tensor:
    """The `dtype=` argument of mindspore.numpy's functions: the result cast to it."""
    return x if dtype is None else F.cast(x, to_dtype(dtype))


def axes(axis, ndim: int, name: str = "axis") -> tuple:
    """numpy's axis argument as a sorted tuple of non-negative axes; None means all."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (list, tuple)):
        items = tuple(axis)
    elif isinstance(axis, numbers.Integral):
        items = (axis,)
    else:
        raise TypeError(f"{name} should be int, tuple or None, but got {type(axis).__name__}")
    out = []
    for a in items:
        if not isinstance(a, numbers.Integral) or isinstance(a, bool):
            raise TypeError(f"{name} should be int, but got {type(a).__name__}")
        if not -ndim <= a < max(ndim, 1):
            raise ValueError(f"axis {a} is out of bounds for array of dimension {ndim}")
        out.append(int(a) % max(ndim, 1))
    if len(set(out)) != len(out):
        raise ValueError(f"duplicate value in '{name}': {items}")
    return tuple(sorted(out))


def one_axis(axis, ndim: int) -> int:
    if not isinstance(axis, numbers.Integral) or isinstance(axis, bool):
        raise TypeError(f"axis should be int, but got {type(axis).__name__}")
    if not -ndim <= axis < max(ndim, 1):
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return int(axis) % max(ndim, 1)


def host(name: str, x, instead: str) -> np.ndarray:
    """`x`'s value on the host for a function whose output shape depends on the values; in graph
    mode a GraphModeError that says why and names `instead` (as ops.unique's does)."""
    from ..frontend.tracer import GraphModeError  # imported here: the tracer imports ops
    if not isinstance(x, Tensor):
        return np.asarray(x)
    try:
        return x._host(f"numpy.{name}")
    except GraphModeError:
        raise GraphModeError(
            f"numpy.{name} has an output shape that depends on the input's values, and graph mode "
            f"(jit, vmap, grad) builds graphs of static shapes; call it eagerly, or use {instead}") from None


def shape_tuple(shape) -> tuple:
    if isinstance(shape, numbers.Integral):
        return (int(shape),)
    return tuple(int(s) for s in shape)

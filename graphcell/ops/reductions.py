"""Reductions over a tuple of axes (no keepdims: the functional layer reshapes)."""
from __future__ import annotations

import jax.numpy as jnp

from ..dtype import DType, bool_
from ..ir.core import TensorType
from .primitive import Primitive, check

REDUCERS: dict[str, Primitive] = {}


def _axes_rule(name):
    def rule(x: TensorType, *, axes: tuple) -> TensorType:
        check(all(0 <= a < x.ndim for a in axes) and len(set(axes)) == len(axes),
              f"{name}: axes {axes} are invalid for a tensor of rank {x.ndim}")
        return TensorType(tuple(d for i, d in enumerate(x.shape) if i not in axes), x.dtype)
    return rule


def reducer(name: str, fn) -> Primitive:
    prim = Primitive(name, _axes_rule(name), lambda x, *, axes: fn(x, axis=axes))
    REDUCERS[name] = prim
    return prim


reduce_sum = reducer("reduce_sum", jnp.sum)
reduce_max = reducer("reduce_max", jnp.max)
reduce_min = reducer("reduce_min", jnp.min)
reduce_prod = reducer("reduce_prod", jnp.prod)


def _arg_rule(name):
    def rule(x: TensorType, *, axis: int, index_dtype: DType) -> TensorType:
        check(0 <= axis < x.ndim, f"{name}: axis {axis} is out of range for rank {x.ndim}")
        check(x.dtype is not bool_, f"{name} needs a numeric tensor")
        return TensorType(x.shape[:axis] + x.shape[axis + 1:], index_dtype)
    return rule


argmax = Primitive("argmax", _arg_rule("argmax"),
                   lambda x, *, axis, index_dtype: jnp.argmax(x, axis=axis).astype(index_dtype.np_dtype))
argmin = Primitive("argmin", _arg_rule("argmin"),
                   lambda x, *, axis, index_dtype: jnp.argmin(x, axis=axis).astype(index_dtype.np_dtype))

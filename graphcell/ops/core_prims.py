"""Primitives for constants, casts and gradient barriers."""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from ..dtype import DType, to_dtype
from ..ir.core import TensorType
from . import batching
from .ad_util import F, no_gradient
from .primitive import Literal, Primitive, check

constant = Primitive(
    "constant",
    lambda *, value: TensorType(value.array.shape, to_dtype(value.array.dtype)),
    lambda *, value: jnp.asarray(value.array),
    eager_jit=False)  # a jit per constant would compile once per distinct array
constant.def_batch(batching.not_batchable(constant))
constant.def_vjp(no_gradient)


def constant_value(builder, array):
    """A `constant` node for `array` in `builder`, shared by equal constants."""
    literal = Literal(np.asarray(array))
    cache = builder.constants
    value = cache.get(literal)
    if value is None:
        (value,) = builder.add_node(constant, (), {"value": literal})
        cache[literal] = value
    return value


def _cast_rule(x: TensorType, *, dtype: DType) -> TensorType:
    check(isinstance(dtype, DType), f"cast needs a graphcell dtype, got {dtype!r}")
    return TensorType(x.shape, dtype)


# jnp, also for numpy operands (constant folding): numpy's astype wraps float -> int out of
# range where XLA saturates (a folded cast of 300.0 to uint8 gave 44, the unfolded 255).
def _cast_impl(x, *, dtype):
    x = jnp.asarray(x)
    if jnp.iscomplexobj(x) and not dtype.is_complex:
        x = jnp.real(x)   # the real part, as MindSpore 2.10's astype (measured), without numpy's warning
    return x.astype(dtype.np_dtype)


cast = Primitive("cast", _cast_rule, _cast_impl)
cast.def_batch(batching.vectorized(cast))


@cast.def_vjp
def _cast_vjp(ctx, cts, primals, outs, *, dtype):
    x, ct = primals[0], cts[0]
    if not x.dtype.is_inexact:
        return (None,)
    if ct.dtype.is_complex and not x.dtype.is_complex:   # real -> complex: the real part's share
        from .complex_ops import real
        ct = real(ct)
    return (F.cast(ct, x.dtype),)


# Identity in value; its cotangent is zero. Used by losses and by users (ops.stop_gradient).
stop_gradient = Primitive("stop_gradient", lambda x: x, lambda x: x)
stop_gradient.def_batch(batching.vectorized(stop_gradient))
stop_gradient.def_vjp(no_gradient)

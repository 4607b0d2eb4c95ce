"""Primitives for constants, casts and gradient barriers."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np

from ..dtype import DType, exact_cast, to_dtype
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


# XLA's conversion, also for numpy operands (constant folding): numpy's astype wraps float -> int
# out of range where XLA saturates (a folded cast of 300.0 to uint8 gave 44, the unfolded 255).
# lax, not jnp.real: a jax.numpy function is a nested jit (see elementwise._lax_binary).
def _cast_impl(x, *, dtype):
    x = jnp.asarray(x)
    if jnp.iscomplexobj(x) and not dtype.is_complex:
        x = jax.lax.real(x)   # the real part, as MindSpore 2.10's astype (measured), without numpy's warning
    return jax.lax.convert_element_type(x, dtype.np_dtype)


cast = Primitive("cast", _cast_rule, _cast_impl)
cast.def_batch(batching.vectorized(cast))


def _nan_or_subnormal(x):
    magnitude = np.abs(x)
    tiny = ml_dtypes.finfo(magnitude.dtype).smallest_normal
    return bool(np.isnan(magnitude).any() or ((magnitude < tiny) & (magnitude != 0)).any())


def _cast_host(x, *, dtype):
    """numpy's cast where it is exact, hence XLA's (constant folding: a jax cast is one compile per
    dtype pair and shape, two in every process for Momentum's int64 -> float32 scalars): where
    every value of x's dtype survives, or x's integers all fit the float's mantissa. Casts that
    round or saturate go through XLA, and so do NaNs (their payloads) and subnormals (XLA's CPU
    flushes them: float32 1e-40 becomes float64 0)."""
    x = np.asarray(x)
    src = to_dtype(x.dtype)
    if exact_cast(src, dtype) and not (src.is_inexact and _nan_or_subnormal(x)):
        return x.astype(dtype.np_dtype)
    if src.is_integer and dtype.is_floating and x.size:
        limit = 2 ** (ml_dtypes.finfo(dtype.np_dtype).nmant + 1)
        if -limit <= int(x.min()) and int(x.max()) <= limit:
            return x.astype(dtype.np_dtype)
    return _cast_impl(x, dtype=dtype)


cast.host_impl = _cast_host


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

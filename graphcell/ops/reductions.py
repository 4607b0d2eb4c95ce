"""Reductions over a tuple of axes (no keepdims: the functional layer reshapes)."""
from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from ..dtype import DType, bool_, int32
from ..ir.core import TensorType
from . import batching
from . import shape_ops
from .elementwise import refuse_complex
from .ad_util import F, no_gradient
from .primitive import Primitive, check

REDUCERS: dict[str, Primitive] = {}


def _axes_rule(name, has_identity: bool):
    def rule(x: TensorType, *, axes: tuple) -> TensorType:
        check(all(0 <= a < x.ndim for a in axes) and len(set(axes)) == len(axes),
              f"{name}: axes {axes} are invalid for a tensor of rank {x.ndim}")
        if not has_identity:   # max and min: complex numbers have no order
            refuse_complex(name, x)
        check(has_identity or all(x.shape[a] for a in axes),
              f"{name}: axes {axes} of {x} include one of size 0 (reducing over an axis of size 0: "
              "max and min of nothing are undefined)")
        return TensorType(tuple(d for i, d in enumerate(x.shape) if i not in axes), x.dtype)
    return rule


def reducer(name: str, fn, keeps_dtype_by_argument: bool = False, has_identity: bool = True) -> Primitive:
    """`keeps_dtype_by_argument`: jnp.sum and jnp.prod widen int32 and bool to int64 (numpy's
    rule) unless told the dtype; the result keeps the input's dtype, as the type rule says.
    Told float16 or bfloat16 they would also accumulate in it; untold, jax accumulates those in
    float32 and rounds once, as MindSpore 2.10's ReduceSum does (measured: a float16 sum of 40
    values is the float32 sum rounded, where a float16 accumulator drifts by 16 ulps)."""
    def keep_dtype(x, *, axes):
        half = x.dtype in (jnp.float16, jnp.bfloat16)
        return fn(x, axis=axes) if half else fn(x, axis=axes, dtype=x.dtype)
    impl = keep_dtype if keeps_dtype_by_argument else (lambda x, *, axes: fn(x, axis=axes))
    prim = Primitive(name, _axes_rule(name, has_identity), impl)
    prim.def_batch(batching.reducer(prim))
    REDUCERS[name] = prim
    return prim


def _sum_keeping_dtype(x, axis):
    """jnp.sum's result keeping x's dtype, as `reducer` describes (above), in lax: jnp.sum is a
    nested jit, over 100 us per node inside jit's trace. float16 and bfloat16 accumulate in
    float32 and round once; a bool sum told dtype bool is jnp's reduce_or."""
    x = jnp.asarray(x)
    if x.dtype == np.bool_:
        return jax.lax.reduce_or(x, axis)
    if x.dtype in (jnp.float16, jnp.bfloat16):
        return jax.lax.convert_element_type(jax.lax.reduce_sum(jax.lax.convert_element_type(x, np.float32), axis),
                                            x.dtype)
    return jax.lax.reduce_sum(x, axis)


reduce_sum = reducer("reduce_sum", _sum_keeping_dtype)
reduce_max = reducer("reduce_max", jnp.max, has_identity=False)
reduce_min = reducer("reduce_min", jnp.min, has_identity=False)
reduce_prod = reducer("reduce_prod", jnp.prod, keeps_dtype_by_argument=True)


def _arg_rule(name):
    def rule(x: TensorType, *, axis: int, index_dtype: DType) -> TensorType:
        check(0 <= axis < x.ndim, f"{name}: axis {axis} is out of range for rank {x.ndim}")
        check(x.dtype is not bool_, f"{name} needs a numeric tensor")
        refuse_complex(name, x)
        return TensorType(x.shape[:axis] + x.shape[axis + 1:], index_dtype)
    return rule


argmax = Primitive("argmax", _arg_rule("argmax"),
                   lambda x, *, axis, index_dtype: jnp.argmax(x, axis=axis).astype(index_dtype.np_dtype))
argmin = Primitive("argmin", _arg_rule("argmin"),
                   lambda x, *, axis, index_dtype: jnp.argmin(x, axis=axis).astype(index_dtype.np_dtype))


def _arg_batch(prim):
    def rule(ctx, args, dims, *, axis, index_dtype):
        (x,), (d,) = args, dims
        axis = batching.unbatched_axis(axis, d)
        return prim.bind(x, axis=axis, index_dtype=index_dtype), d - (axis < d)
    return rule


argmax.def_batch(_arg_batch(argmax))
argmin.def_batch(_arg_batch(argmin))
argmax.def_vjp(no_gradient)
argmin.def_vjp(no_gradient)


# How many elements `axes` of x hold, as a scalar of `dtype`: a mean's divisor. A node, not a
# constant, so that an ONNX export with a dynamic batch computes it from the input's shape
# (a constant would keep the example batch's count: x - x.mean() was wrong at other sizes).
def _count_rule(x: TensorType, *, axes: tuple, dtype: DType) -> TensorType:
    check(all(0 <= a < x.ndim for a in axes), f"element_count: axes {axes} are invalid for rank {x.ndim}")
    return TensorType((), dtype)


element_count = Primitive(
    "element_count", _count_rule,
    lambda x, *, axes, dtype: jnp.asarray(math.prod(x.shape[a] for a in axes), dtype.np_dtype))


@element_count.def_batch
def _count_batch(ctx, args, dims, *, axes, dtype):
    (x,), (d,) = args, dims
    return element_count.bind(x, axes=tuple(batching.unbatched_axis(a, d) for a in axes), dtype=dtype), None


element_count.def_vjp(no_gradient)


# -- vjp rules: a reduction's cotangent is broadcast back over the reduced axes.
def _expand_back(ct, x, axes):
    kept = tuple(i for i in range(x.ndim) if i not in axes)
    return shape_ops.broadcast_in_dim.bind(ct, shape=x.shape, dims=kept)


@reduce_sum.def_vjp
def _reduce_sum_vjp(ctx, cts, primals, outs, *, axes):
    return (_expand_back(cts[0], primals[0], axes),)


def _chooser_vjp(ctx, cts, primals, outs, *, axes):
    # jax's rule: the cotangent is shared equally among the elements equal to the extremum.
    x, out = primals[0], outs[0]
    hit = F.cast(F.equal(x, _expand_back(out, x, axes)), x.dtype)
    share = F.div(cts[0], F.reduce_sum(hit, axes))
    return (F.mul(hit, _expand_back(share, x, axes)),)


reduce_max.def_vjp(_chooser_vjp)
reduce_min.def_vjp(_chooser_vjp)


@reduce_prod.def_vjp
def _reduce_prod_vjp(ctx, cts, primals, outs, *, axes):
    # The product of the other elements: prod / x where the slice has no zero; where it has
    # one zero, that element gets the product of the rest and the others 0; with two or more,
    # every element gets 0 (jax's values; prod / x alone gave nan at a zero).
    x = primals[0]
    zero = F.equal(x, 0)
    safe = F.select(zero, F.ones_like(x), x)
    others = _expand_back(F.reduce_prod(safe, axes), x, axes)          # the product of the nonzeros
    zeros = _expand_back(F.reduce_sum(F.cast(zero, int32), axes), x, axes)
    partial = F.select(F.equal(zeros, 0), F.div(others, safe),
                       F.select(F.logical_and(F.equal(zeros, 1), zero), others, F.zeros_like(x)))
    return (F.mul(_expand_back(cts[0], x, axes), partial),)

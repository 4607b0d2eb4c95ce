"""Scans and sorts along one axis: cumsum, cumprod, sort, top_k (primitives and their rules),
and MindSpore 2.x's functional ops over them (`cumsum`, `cumprod`, `sort`, `argsort`, `topk`).

Order semantics, the same under XLA, eagerly and in onnxruntime (tests/test_ops_sorting.py):
- sorts are stable: equal values keep their order of index, ascending and descending alike
  (descending is not the reverse of ascending: `sort([1, 1], descending=True)` gives indices
  [0, 1], as MindSpore's documents say of topk and as onnxruntime's TopK does);
- NaN is the largest value: last ascending, first descending (numpy's and jax's NaN-last
  ascending sort, whose reversal gives NaN first); -0.0 equals 0.0 (numpy; ties by index);
- indices are int32, as MindSpore documents for ops.sort, ops.argsort and ops.topk.
top_k is `sort` then the first k, rather than `lax.top_k`, which orders -0.0 below 0.0.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtype as mstype
from ..dtype import DType, bool_
from ..ir.core import TensorType
from . import batching, shape_ops
from .elementwise import refuse_complex
from .ad_util import F
from .primitive import Primitive, check


# -- cumsum, cumprod --------------------------------------------------------------------------------

def _scan_rule(name):
    def rule(x: TensorType, *, axis: int, reverse: bool) -> TensorType:
        check(0 <= axis < x.ndim, f"{name}: axis {axis} is out of range for rank {x.ndim}")
        check(x.dtype is not bool_, f"{name} needs a numeric tensor, got {x}")
        return x
    return rule


cumsum_p = Primitive("cumsum", _scan_rule("cumsum"),
                     lambda x, *, axis, reverse: jax.lax.cumsum(x, axis, reverse))
cumprod_p = Primitive("cumprod", _scan_rule("cumprod"),
                      lambda x, *, axis, reverse: jax.lax.cumprod(x, axis, reverse))


def _scan_batch(prim):
    def rule(ctx, args, dims, *, axis, reverse):
        (x,), (d,) = args, dims
        return prim.bind(x, axis=batching.unbatched_axis(axis, d), reverse=reverse), d
    return rule


cumsum_p.def_batch(_scan_batch(cumsum_p))
cumprod_p.def_batch(_scan_batch(cumprod_p))


@cumsum_p.def_vjp
def _cumsum_vjp(ctx, cts, primals, outs, *, axis, reverse):
    return (cumsum_p.bind(cts[0], axis=axis, reverse=not reverse),)


@cumprod_p.def_vjp
def _cumprod_vjp(ctx, cts, primals, outs, *, axis, reverse):
    # d y_i / d x_j = prod_{k <= i, k != j} x_k for j <= i (k >= i, j >= i when reversed):
    # row j of an [n, n] matrix holds x with x_j replaced by 1, whose cumprod gives, at column
    # i, that product, with no division (exact at zeros, any number of them; jax's values).
    # It costs n times the input's memory along the axis (n^2 per slice).
    x, ct = F.moveaxis(primals[0], axis, -1), F.moveaxis(cts[0], axis, -1)
    n = x.shape[-1]
    eye = F.Tensor(np.eye(n, dtype=bool))
    rows = F.select(eye, F.ones_like(F.expand_dims(x, -2)), F.expand_dims(x, -2))    # [..., j, k]
    partial = cumprod_p.bind(rows, axis=rows.ndim - 1, reverse=reverse)               # [..., j, i]
    after = np.tril(np.ones((n, n), bool)) if reverse else np.triu(np.ones((n, n), bool))  # i >= j
    terms = F.select(F.Tensor(after), F.mul(F.expand_dims(ct, -2), partial), F.zeros_like(partial))
    return (F.moveaxis(F.reduce_sum(terms, -1), -1, axis),)


# -- sort, top_k ------------------------------------------------------------------------------------

def _sort_impl(x, *, axis, descending, index_dtype):
    iota = jax.lax.broadcasted_iota(jnp.int32 if x.shape[axis] < 2**31 else jnp.int64, x.shape, axis)
    if not descending:
        values, idx = jax.lax.sort((x, iota), dimension=axis, num_keys=1, is_stable=True)
    else:  # ascending by (x, -index), reversed: larger first, equal ones by index
        values, neg = jax.lax.sort((x, -iota), dimension=axis, num_keys=2)
        values, idx = jnp.flip(values, axis), -jnp.flip(neg, axis)
    return values, idx.astype(index_dtype.np_dtype)


def _sort_rule(x: TensorType, *, axis: int, descending: bool, index_dtype: DType):
    check(0 <= axis < x.ndim, f"sort: axis {axis} is out of range for rank {x.ndim}")
    refuse_complex("sort", x)
    check(index_dtype.is_integer, f"sort: index_dtype must be an integer type, got {index_dtype}")
    return x, TensorType(x.shape, index_dtype)


sort_p = Primitive("sort", _sort_rule, _sort_impl, multiple_results=True)


def _top_k_impl(x, *, k, axis, largest, index_dtype):
    values, idx = _sort_impl(x, axis=axis, descending=largest, index_dtype=index_dtype)
    return (jax.lax.slice_in_dim(values, 0, k, axis=axis), jax.lax.slice_in_dim(idx, 0, k, axis=axis))


def _top_k_rule(x: TensorType, *, k: int, axis: int, largest: bool, index_dtype: DType):
    check(0 <= axis < x.ndim, f"top_k: axis {axis} is out of range for rank {x.ndim}")
    refuse_complex("top_k", x)
    check(0 <= k <= x.shape[axis], f"top_k: k={k} is out of range for an axis of size {x.shape[axis]} ({x})")
    check(index_dtype.is_integer, f"top_k: index_dtype must be an integer type, got {index_dtype}")
    shape = x.shape[:axis] + (k,) + x.shape[axis + 1:]
    return TensorType(shape, x.dtype), TensorType(shape, index_dtype)


top_k_p = Primitive("top_k", _top_k_rule, _top_k_impl, multiple_results=True)


def _sort_batch(prim):
    def rule(ctx, args, dims, *, axis, **attrs):
        (x,), (d,) = args, dims
        return prim.bind(x, axis=batching.unbatched_axis(axis, d), **attrs), (d, d)
    return rule


sort_p.def_batch(_sort_batch(sort_p))
top_k_p.def_batch(_sort_batch(top_k_p))


def _sort_vjp(ctx, cts, primals, outs, *, axis, **attrs):
    # values = take_along_axis(x, indices): the cotangent goes back to where each value came
    # from (a scatter-add; the indices are distinct, so nothing adds up).
    if cts[0] is None:
        return (None,)
    return (shape_ops._take_along_vjp(ctx, (cts[0],), (primals[0], outs[1]), outs, axis=axis)[0],)


sort_p.def_vjp(_sort_vjp)
top_k_p.def_vjp(_sort_vjp)


# -- the functional API (MindSpore 2.x names and signatures) ----------------------------------------

def _prepare_scan(x, axis, dtype, name):
    from .functional import _axis, as_tensor, cast
    x = as_tensor(x)
    if dtype is not None:
        x = cast(x, dtype)
    elif x.dtype is bool_:
        x = cast(x, mstype.int32)   # bools are counted in int32, as reduce_sum counts them
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise TypeError(f"{name}: the axis must be an int, got {axis!r}")
    return x, _axis(int(axis), x.ndim)


def cumsum(x, axis, dtype=None):
    """The cumulative sum of `x` along `axis` (MindSpore's ops.cumsum): `x` is cast to `dtype`
    first when given; the result has the input's dtype (bools count in int32)."""
    x, axis = _prepare_scan(x, axis, dtype, "cumsum")
    if x.ndim == 0:
        return x
    return cumsum_p.bind(x, axis=axis, reverse=False)


def cumprod(input, dim, dtype=None):  # noqa: A002 - MindSpore's names
    """The cumulative product of `input` along `dim` (MindSpore's ops.cumprod); `dtype` as in
    `cumsum`. Its gradient is exact where elements are 0 (see the vjp rule). Without `dtype`,
    integers and bools multiply in int64 (MindSpore 2.10, measured: Int8, UInt8, Int16, Int32
    and bool give Int64), floats keep their dtype."""
    from .functional import as_tensor
    x = as_tensor(input)
    if dtype is None and (x.dtype.is_integer or x.dtype is bool_):
        dtype = mstype.int64
    x, axis = _prepare_scan(x, dim, dtype, "cumprod")
    if x.ndim == 0:
        return x
    return cumprod_p.bind(x, axis=axis, reverse=False)


def _sort_args(x, axis, name):
    from .functional import _axis, as_tensor, reshape
    x = as_tensor(x)
    if x.ndim == 0:
        return reshape(x, (1,)), 0, True
    return x, _axis(axis, x.ndim), False


def sort(input_x, axis=-1, descending=False):
    """(values, indices) of `input_x` sorted along `axis` (MindSpore's ops.sort); indices are
    int32. Stable; NaN sorts as the largest value (last ascending, first descending)."""
    from .functional import reshape
    x, axis, scalar = _sort_args(input_x, axis, "sort")
    values, idx = sort_p.bind(x, axis=axis, descending=bool(descending), index_dtype=mstype.int32)
    if scalar:
        values, idx = reshape(values, ()), reshape(idx, ())
    return values, idx


def argsort(input, axis=-1, descending=False):  # noqa: A002 - MindSpore's names
    """The int32 indices that sort `input` along `axis` (MindSpore's ops.argsort); stable."""
    return sort(input, axis, descending)[1]


def topk(input, k, dim=None, largest=True, sorted=True):  # noqa: A002 - MindSpore's names
    """(values, indices) of the k largest (`largest=False`: smallest) elements along `dim`
    (default: the last axis), as MindSpore's ops.topk; indices int32. Equal values come in
    order of index; NaN counts as the largest value. The result is always sorted (`sorted=False`
    allows any order, and sorted is one)."""
    from .functional import reshape
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool):
        raise TypeError(f"topk: k must be an int, got {k!r}")
    x, axis, scalar = _sort_args(input, -1 if dim is None else dim, "topk")
    if not 0 <= k <= x.shape[axis]:
        raise ValueError(f"topk: k={k} is out of range for dimension {axis} of size {x.shape[axis]}")
    values, idx = top_k_p.bind(x, k=int(k), axis=axis, largest=bool(largest), index_dtype=mstype.int32)
    if scalar and k == 1:
        values, idx = reshape(values, ()), reshape(idx, ())
    return values, idx


__all__ = ["cumsum", "cumprod", "sort", "argsort", "topk"]

"""Primitives that move data without arithmetic: reshape, transpose, broadcast, concat,
slice, pad, and gather/scatter along one axis."""
from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from ..ir.core import TensorType
from .primitive import Primitive, check, same_dtype


def _reshape_rule(x: TensorType, *, shape: tuple) -> TensorType:
    check(all(isinstance(d, int) and d >= 0 for d in shape), f"reshape: bad target shape {shape}")
    check(math.prod(shape) == math.prod(x.shape),
          f"reshape: cannot reshape {list(x.shape)} ({math.prod(x.shape)} elements) "
          f"to {list(shape)} ({math.prod(shape)} elements)")
    return TensorType(shape, x.dtype)


reshape = Primitive("reshape", _reshape_rule, lambda x, *, shape: jnp.reshape(x, shape))


def _transpose_rule(x: TensorType, *, perm: tuple) -> TensorType:
    check(sorted(perm) == list(range(x.ndim)), f"transpose: {perm} is not a permutation of "
          f"the {x.ndim} axes")
    return TensorType(tuple(x.shape[p] for p in perm), x.dtype)


transpose = Primitive("transpose", _transpose_rule, lambda x, *, perm: jnp.transpose(x, perm))


def _broadcast_rule(x: TensorType, *, shape: tuple, dims: tuple) -> TensorType:
    """`dims[i]` is the output axis that input axis i maps to (lax.broadcast_in_dim)."""
    check(len(dims) == x.ndim and list(dims) == sorted(set(dims)) and all(0 <= d < len(shape) for d in dims),
          f"broadcast_in_dim: dims {dims} do not fit input rank {x.ndim} and output rank {len(shape)}")
    for i, d in enumerate(dims):
        check(x.shape[i] in (1, shape[d]),
              f"broadcast_in_dim: input axis {i} of size {x.shape[i]} cannot broadcast to {shape[d]}")
    return TensorType(tuple(shape), x.dtype)


broadcast_in_dim = Primitive(
    "broadcast_in_dim", _broadcast_rule,
    lambda x, *, shape, dims: jax.lax.broadcast_in_dim(x, shape, dims))


def _concat_rule(*xs: TensorType, axis: int) -> TensorType:
    check(len(xs) >= 1, "concatenate needs at least one tensor")
    dtype = same_dtype("concatenate", *xs)
    rank = xs[0].ndim
    check(0 <= axis < rank, f"concatenate: axis {axis} is out of range for rank {rank}")
    for x in xs:
        check(x.ndim == rank and all(a == b for i, (a, b) in enumerate(zip(x.shape, xs[0].shape)) if i != axis),
              "concatenate: shapes " + ", ".join(str(list(t.shape)) for t in xs)
              + f" differ outside axis {axis}")
    shape = list(xs[0].shape)
    shape[axis] = sum(x.shape[axis] for x in xs)
    return TensorType(tuple(shape), dtype)


concatenate = Primitive("concatenate", _concat_rule, lambda *xs, axis: jnp.concatenate(xs, axis=axis))


def _slice_rule(x: TensorType, *, start: tuple, limit: tuple, strides: tuple) -> TensorType:
    check(len(start) == len(limit) == len(strides) == x.ndim, "slice: one start/limit/stride per axis")
    shape = []
    for d, s, l, st in zip(x.shape, start, limit, strides):
        check(0 <= s <= l <= d and st >= 1, f"slice: [{s}:{l}:{st}] is out of range for size {d}")
        shape.append(max(0, -(-(l - s) // st)))
    return TensorType(tuple(shape), x.dtype)


slice_ = Primitive("slice", _slice_rule,
                   lambda x, *, start, limit, strides: jax.lax.slice(x, start, limit, strides))


def _pad_rule(x: TensorType, v: TensorType, *, lo: tuple, hi: tuple) -> TensorType:
    check(v.ndim == 0 and v.dtype is x.dtype, f"pad: the padding value must be a scalar of {x.dtype}")
    check(len(lo) == len(hi) == x.ndim, "pad: one (lo, hi) pair per axis")
    shape = tuple(d + a + b for d, a, b in zip(x.shape, lo, hi))
    check(all(d >= 0 for d in shape), f"pad: negative size {shape}")
    return TensorType(shape, x.dtype)


pad = Primitive("pad", _pad_rule,
                lambda x, v, *, lo, hi: jax.lax.pad(x, v, tuple((a, b, 0) for a, b in zip(lo, hi))))


def _take_rule(x: TensorType, idx: TensorType, *, axis: int) -> TensorType:
    check(idx.dtype.is_integer, f"take: indices must be integers, got {idx}")
    check(0 <= axis < x.ndim, f"take: axis {axis} is out of range for rank {x.ndim}")
    return TensorType(x.shape[:axis] + idx.shape + x.shape[axis + 1:], x.dtype)


# Out-of-range indices clip, as XLA gathers do; ONNX Gather would fail instead.
take = Primitive("take", _take_rule,
                 lambda x, idx, *, axis: jnp.take(x, idx, axis=axis, mode="clip"))


def _take_along_rule(x: TensorType, idx: TensorType, *, axis: int) -> TensorType:
    check(idx.dtype.is_integer, f"take_along_axis: indices must be integers, got {idx}")
    check(idx.ndim == x.ndim and 0 <= axis < x.ndim, "take_along_axis: indices must have the rank of x")
    return TensorType(idx.shape, x.dtype)


take_along_axis = Primitive(
    "take_along_axis", _take_along_rule,
    lambda x, idx, *, axis: jnp.take_along_axis(x, idx, axis=axis, mode="clip"))


def _scatter_add_rule(x: TensorType, idx: TensorType, upd: TensorType, *, axis: int) -> TensorType:
    check(idx.dtype.is_integer, f"scatter_add: indices must be integers, got {idx}")
    same_dtype("scatter_add", x, upd)
    expected = x.shape[:axis] + idx.shape + x.shape[axis + 1:]
    check(upd.shape == expected, f"scatter_add: updates {list(upd.shape)} should be {list(expected)}")
    return x


def _scatter_add_impl(x, idx, upd, *, axis):
    # Adds upd into x at positions idx along `axis` (the transpose of take).
    moved = jnp.moveaxis(x, axis, 0)
    upd_moved = jnp.moveaxis(upd, list(range(axis, axis + idx.ndim)), list(range(idx.ndim)))
    return jnp.moveaxis(moved.at[idx].add(upd_moved, mode="clip"), 0, axis)


scatter_add = Primitive("scatter_add", _scatter_add_rule, _scatter_add_impl)

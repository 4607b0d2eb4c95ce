"""Primitives that move data without arithmetic: reshape, transpose, broadcast, concat,
slice, rev, pad, and gather/scatter along one axis."""
from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from ..ir.core import TensorType
from . import batching
from .batching import unbatched_axis
from .ad_util import F, dilate, pad_or_crop
from .primitive import Primitive, check, same_dtype


def _reshape_rule(x: TensorType, *, shape: tuple) -> TensorType:
    check(all(isinstance(d, int) and d >= 0 for d in shape), f"reshape: bad target shape {shape}")
    check(math.prod(shape) == math.prod(x.shape),
          f"reshape: cannot reshape {list(x.shape)} ({math.prod(x.shape)} elements) "
          f"to {list(shape)} ({math.prod(shape)} elements)")
    return TensorType(shape, x.dtype)


# lax, not jax.numpy, here and below: jnp adds argument checks per node (elementwise._lax_binary)
reshape = Primitive("reshape", _reshape_rule, lambda x, *, shape: jax.lax.reshape(x, shape))


@reshape.def_batch
def _reshape_batch(ctx, args, dims, *, shape):
    (x,), (d,) = args, dims
    member_shape = x.shape[:d] + x.shape[d + 1:]
    if 0 < d <= len(shape) and shape[:d] == member_shape[:d]:  # the axes before d survive: no move
        return reshape.bind(x, shape=shape[:d] + (ctx.axis_size,) + shape[d:]), d
    return reshape.bind(batching.move(x, d, 0), shape=(ctx.axis_size,) + tuple(shape)), 0


def _transpose_rule(x: TensorType, *, perm: tuple) -> TensorType:
    check(sorted(perm) == list(range(x.ndim)), f"transpose: {perm} is not a permutation of "
          f"the {x.ndim} axes")
    return TensorType(tuple(x.shape[p] for p in perm), x.dtype)


transpose = Primitive("transpose", _transpose_rule, lambda x, *, perm: jax.lax.transpose(x, perm))


@transpose.def_batch
def _transpose_batch(ctx, args, dims, *, perm):
    (x,), (d,) = args, dims
    new_perm = [unbatched_axis(p, d) for p in perm]
    new_perm.insert(d, d)  # the mapped axis stays where it is
    return transpose.bind(x, perm=tuple(new_perm)), d


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


@broadcast_in_dim.def_batch
def _broadcast_batch(ctx, args, mapped, *, shape, dims):  # `dims` is the attr here
    (x,), (d,) = args, mapped
    return broadcast_in_dim.bind(batching.move(x, d, 0), shape=(ctx.axis_size,) + tuple(shape),
                                 dims=(0,) + tuple(a + 1 for a in dims)), 0


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


@concatenate.def_batch
def _concat_batch(ctx, args, dims, *, axis):
    if len(set(dims)) == 1:  # all batched at one place
        d = dims[0]
        return concatenate.bind(*args, axis=unbatched_axis(axis, d)), d
    xs = [batching.materialize(x, d, ctx.axis_size) for x, d in zip(args, dims)]
    return concatenate.bind(*xs, axis=axis + 1), 0


def _slice_rule(x: TensorType, *, start: tuple, limit: tuple, strides: tuple) -> TensorType:
    check(len(start) == len(limit) == len(strides) == x.ndim, "slice: one start/limit/stride per axis")
    shape = []
    for d, s, l, st in zip(x.shape, start, limit, strides):
        check(0 <= s <= l <= d and st >= 1, f"slice: [{s}:{l}:{st}] is out of range for size {d}")
        shape.append(max(0, -(-(l - s) // st)))
    return TensorType(tuple(shape), x.dtype)


slice_ = Primitive("slice", _slice_rule,
                   lambda x, *, start, limit, strides: jax.lax.slice(x, start, limit, strides))


@slice_.def_batch
def _slice_batch(ctx, args, dims, *, start, limit, strides):
    (x,), (d,) = args, dims
    ins = lambda t, v: t[:d] + (v,) + t[d:]  # noqa: E731
    return slice_.bind(x, start=ins(start, 0), limit=ins(limit, ctx.axis_size), strides=ins(strides, 1)), d


def _rev_rule(x: TensorType, *, axes: tuple) -> TensorType:
    check(list(axes) == sorted(set(axes)) and all(0 <= a < x.ndim for a in axes),
          f"rev: axes {axes} must be distinct, ascending axes of a rank-{x.ndim} tensor")
    return x


# Reverses the elements along `axes` (lax.rev): a negative-step slice's order, which ONNX Slice
# takes with step -1 whatever the axis' size (a gather by reversed indices fixes the size).
rev = Primitive("rev", _rev_rule, lambda x, *, axes: jax.lax.rev(x, axes))


@rev.def_batch
def _rev_batch(ctx, args, dims, *, axes):
    (x,), (d,) = args, dims
    return rev.bind(x, axes=tuple(unbatched_axis(a, d) for a in axes)), d


def _pad_rule(x: TensorType, v: TensorType, *, lo: tuple, hi: tuple) -> TensorType:
    check(v.ndim == 0 and v.dtype is x.dtype, f"pad: the padding value must be a scalar of {x.dtype}")
    check(len(lo) == len(hi) == x.ndim, "pad: one (lo, hi) pair per axis")
    shape = tuple(d + a + b for d, a, b in zip(x.shape, lo, hi))
    check(all(d >= 0 for d in shape), f"pad: negative size {shape}")
    return TensorType(shape, x.dtype)


pad = Primitive("pad", _pad_rule,
                lambda x, v, *, lo, hi: jax.lax.pad(x, v, tuple((a, b, 0) for a, b in zip(lo, hi))))


@pad.def_batch
def _pad_batch(ctx, args, dims, *, lo, hi):
    (x, v), (d, dv) = args, dims
    if dv is not None:  # a per-member padding value: rare, done member by member
        return batching.unrolled(pad)(ctx, args, dims, lo=lo, hi=hi)
    return pad.bind(x, v, lo=lo[:d] + (0,) + lo[d:], hi=hi[:d] + (0,) + hi[d:]), d


def _take_rule(x: TensorType, idx: TensorType, *, axis: int) -> TensorType:
    check(idx.dtype.is_integer, f"take: indices must be integers, got {idx}")
    check(0 <= axis < x.ndim, f"take: axis {axis} is out of range for rank {x.ndim}")
    return TensorType(x.shape[:axis] + idx.shape + x.shape[axis + 1:], x.dtype)


# Out-of-range indices clip, as XLA gathers do; ONNX Gather would fail instead.
take = Primitive("take", _take_rule,
                 lambda x, idx, *, axis: jnp.take(x, idx, axis=axis, mode="clip"))


@take.def_batch
def _take_batch(ctx, args, dims, *, axis):
    (x, idx), (dx, di) = args, dims
    if di is None:
        a = unbatched_axis(axis, dx)
        return take.bind(x, idx, axis=a), dx if dx < a else dx + idx.ndim - 1
    if dx is None:
        return take.bind(x, idx, axis=axis), axis + di
    # Both mapped: one gather from the members' rows laid end to end, indices offset per member.
    from . import functional as F
    n, size = ctx.axis_size, x.shape[unbatched_axis(axis, dx)]
    x = F.moveaxis(batching.move(x, dx, 0), axis + 1, 1)           # [N, A, rest...]
    flat = F.reshape(x, (n * size,) + x.shape[2:])
    idx = F.clamp(batching.move(idx, di, 0), 0, size - 1)          # clip per member, as take does
    offsets = F.reshape(F.arange(0, n * size, size, dtype=idx.dtype), (n,) + (1,) * (idx.ndim - 1))
    out = take.bind(flat, F.add(idx, offsets), axis=0)              # [N, I..., pre..., post...]
    ni = idx.ndim - 1
    perm = [0] + list(range(ni + 1, ni + 1 + axis)) + list(range(1, ni + 1)) + \
        list(range(ni + 1 + axis, out.ndim))
    return F.transpose(out, perm), 0


def _take_along_rule(x: TensorType, idx: TensorType, *, axis: int) -> TensorType:
    check(idx.dtype.is_integer, f"take_along_axis: indices must be integers, got {idx}")
    check(idx.ndim == x.ndim and 0 <= axis < x.ndim, "take_along_axis: indices must have the rank of x")
    return TensorType(idx.shape, x.dtype)


take_along_axis = Primitive(
    "take_along_axis", _take_along_rule,
    lambda x, idx, *, axis: jnp.take_along_axis(x, idx, axis=axis, mode="clip"))


@take_along_axis.def_batch
def _take_along_batch(ctx, args, dims, *, axis):
    x, idx = (batching.materialize(a, d, ctx.axis_size) for a, d in zip(args, dims))
    return take_along_axis.bind(x, idx, axis=axis + 1), 0


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


@scatter_add.def_batch
def _scatter_add_batch(ctx, args, dims, *, axis):
    (x, idx, upd), (dx, di, du) = args, dims
    n = ctx.axis_size
    x, upd = batching.materialize(x, dx, n), batching.materialize(upd, du, n)
    if di is None:
        return scatter_add.bind(x, idx, upd, axis=axis + 1), 0
    # Per-member indices (an embedding's gradient under vmap, x[t] = v): one scatter into the
    # members' rows laid end to end, indices offset per member, as take's rule gathers.
    size = x.shape[axis + 1]
    moved = F.moveaxis(x, axis + 1, 1)                              # [N, A, pre..., post...]
    idx = F.clamp(batching.move(idx, di, 0), 0, size - 1)          # clip per member, as scatter_add does
    offsets = F.reshape(F.arange(0, n * size, size, dtype=idx.dtype), (n,) + (1,) * (idx.ndim - 1))
    ni = idx.ndim - 1
    perm = [0] + list(range(1 + axis, 1 + axis + ni)) + list(range(1, 1 + axis)) + \
        list(range(1 + axis + ni, upd.ndim))
    out = scatter_add.bind(F.reshape(moved, (n * size,) + moved.shape[2:]), F.add(idx, offsets),
                           F.transpose(upd, perm), axis=0)
    return F.moveaxis(F.reshape(out, moved.shape), 1, axis + 1), 0


# -- vjp rules: each is the transpose of a linear data movement.
@reshape.def_vjp
def _reshape_vjp(ctx, cts, primals, outs, *, shape):
    return (F.reshape(cts[0], primals[0].shape),)


@transpose.def_vjp
def _transpose_vjp(ctx, cts, primals, outs, *, perm):
    inverse = sorted(range(len(perm)), key=perm.__getitem__)
    return (F.transpose(cts[0], inverse),)


@broadcast_in_dim.def_vjp
def _broadcast_vjp(ctx, cts, primals, outs, *, shape, dims):
    x = primals[0]
    summed = [a for a in range(len(shape)) if a not in dims]
    summed += [d for i, d in enumerate(dims) if x.shape[i] == 1 and shape[d] != 1]
    ct = F.reduce_sum(cts[0], sorted(summed)) if summed else cts[0]  # () would sum every axis
    return (F.reshape(ct, x.shape),)


@concatenate.def_vjp
def _concat_vjp(ctx, cts, primals, outs, *, axis):
    pieces, start = [], 0
    for x in primals:
        pieces.append(F.slice_axis(cts[0], axis, start, start + x.shape[axis]))
        start += x.shape[axis]
    return tuple(pieces)


@slice_.def_vjp
def _slice_vjp(ctx, cts, primals, outs, *, start, limit, strides):
    x, ct = primals[0], dilate(cts[0], strides)
    hi = tuple(d - s - n for d, s, n in zip(x.shape, start, ct.shape))
    return (pad_or_crop(ct, start, hi),)


@rev.def_vjp
def _rev_vjp(ctx, cts, primals, outs, *, axes):
    return (rev.bind(cts[0], axes=axes),)


@pad.def_vjp
def _pad_vjp(ctx, cts, primals, outs, *, lo, hi):
    ct = cts[0]
    ct_x = pad_or_crop(ct, tuple(-a for a in lo), tuple(-b for b in hi))
    ct_v = F.sub(F.reduce_sum(ct), F.reduce_sum(ct_x)) if ctx.needs[1] else None
    return ct_x, ct_v


@take.def_vjp
def _take_vjp(ctx, cts, primals, outs, *, axis):
    x, idx = primals
    return scatter_add.bind(F.zeros_like(x), idx, cts[0], axis=axis), None


@take_along_axis.def_vjp
def _take_along_vjp(ctx, cts, primals, outs, *, axis):
    # A scatter-add into the flattened x, at each index's flat (C-order) position.
    x, idx = primals
    strides = [math.prod(x.shape[i + 1:]) for i in range(x.ndim)]
    grid = np.indices(idx.shape)
    base = sum(grid[b] * strides[b] for b in range(x.ndim) if b != axis)
    flat = F.add(F.mul(F.clamp(idx, 0, x.shape[axis] - 1), strides[axis]),
                 F.Tensor(np.asarray(base), idx.dtype))
    zeros = F.broadcast_to(F.Tensor(0, x.dtype), (math.prod(x.shape),))
    out = scatter_add.bind(zeros, flat, cts[0], axis=0)
    return F.reshape(out, x.shape), None


@scatter_add.def_vjp
def _scatter_add_vjp(ctx, cts, primals, outs, *, axis):
    idx, ct = primals[1], cts[0]
    return ct, None, take.bind(ct, idx, axis=axis)


# Exact numpy forms of the primitives that only move elements (Primitive.host_impl): constant
# folding runs them instead of compiling the jax impl once per shape.
def _broadcast_host(x, *, shape, dims):
    expanded = np.reshape(x, [x.shape[dims.index(d)] if d in dims else 1 for d in range(len(shape))])
    return np.broadcast_to(expanded, shape)


reshape.host_impl = lambda x, *, shape: np.reshape(x, shape)
broadcast_in_dim.host_impl = _broadcast_host
transpose.host_impl = lambda x, *, perm: np.transpose(x, perm)
slice_.host_impl = lambda x, *, start, limit, strides: x[tuple(map(slice, start, limit, strides))]
rev.host_impl = lambda x, *, axes: np.flip(x, axes) if axes else x
concatenate.host_impl = lambda *xs, axis: np.concatenate(xs, axis=axis)

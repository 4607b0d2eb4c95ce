"""Array manipulation of mindspore.numpy: shapes and axes, joining and splitting, flips and rolls,
padding, indexing by arrays (take, choose, where, select, piecewise) and per-slice application.

Written with graphcell's ops, so each traces, and (but for apply_along_axis's per-slice loop over a
Python function, which unrolls) keeps the graph small. MindSpore 2.10's differences from numpy are
kept (measured): `squeeze` leaves a named axis that is not 1, `take` and `choose` clip by default
(take counts a negative index from the end first), `split` gives a tuple for a section count and
a list for split points, `ravel_multi_index` returns Float32.
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import dtype as mstype
from .. import ops
from ..ops import functional as F
from ..tensor import Tensor
from ._helpers import axes as _axes, one_axis, promote, shape_tuple, tensor


def reshape(x, new_shape) -> Tensor:
    return F.reshape(tensor(x), shape_tuple(new_shape))


def ravel(x) -> Tensor:
    return F.reshape(tensor(x), (-1,))


def transpose(a, axes=None) -> Tensor:
    """`a` with its axes permuted (reversed by default)."""
    x = tensor(a)
    perm = tuple(reversed(range(x.ndim))) if axes is None else tuple(one_axis(i, x.ndim) for i in axes)
    return F.transpose(x, perm)


def expand_dims(a, axis) -> Tensor:
    """`a` with size-1 axes inserted at `axis` (an int or a tuple, counted in the result)."""
    x = tensor(a)
    where = _axes(axis, x.ndim + (len(axis) if isinstance(axis, (tuple, list)) else 1))
    shape = list(x.shape)
    for i in where:
        shape.insert(i, 1)
    return F.reshape(x, tuple(shape))


def squeeze(a, axis=None) -> Tensor:
    """`a` without its size-1 axes (those of `axis` only; a named axis that is not 1 stays, as in
    MindSpore 2.10)."""
    x = tensor(a)
    chosen = range(x.ndim) if axis is None else _axes(axis, x.ndim)
    drop = {i for i in chosen if x.shape[i] == 1}
    return F.reshape(x, tuple(s for i, s in enumerate(x.shape) if i not in drop))


def swapaxes(x, axis1, axis2) -> Tensor:
    x = tensor(x)
    return F.swapaxes(x, one_axis(axis1, x.ndim), one_axis(axis2, x.ndim))


def moveaxis(a, source, destination) -> Tensor:
    """Moves axes `source` to places `destination` (ints or equally long tuples)."""
    x = tensor(a)
    src = [source] if isinstance(source, numbers.Integral) else list(source)
    dst = [destination] if isinstance(destination, numbers.Integral) else list(destination)
    if len(src) != len(dst):
        raise ValueError("`source` and `destination` arguments must have the same number of elements")
    src = [one_axis(i, x.ndim) for i in src]
    dst = [one_axis(i, x.ndim) for i in dst]
    order = [i for i in range(x.ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return F.transpose(x, tuple(order))


def rollaxis(x, axis, start=0) -> Tensor:
    """Moves `axis` to before position `start` (numpy's rollaxis)."""
    x = tensor(x)
    axis = one_axis(axis, x.ndim)
    if not -x.ndim <= start <= x.ndim:
        raise ValueError(f"start {start} is out of bounds for array of dimension {x.ndim}")
    start = start % (x.ndim + 1) if start < 0 else start
    if start > axis:
        start -= 1
    return moveaxis(x, axis, start) if start != axis else x


def broadcast_to(array, shape) -> Tensor:
    return F.broadcast_to(tensor(array), shape_tuple(shape))


def broadcast_arrays(*args) -> list:
    xs = [tensor(a) for a in args]
    shape = np.broadcast_shapes(*(x.shape for x in xs))
    return [F.broadcast_to(x, shape) for x in xs]


def _at_least(arys, rank, place):
    out = []
    for a in arys:
        x = tensor(a)
        if x.ndim < rank:
            x = F.reshape(x, place(x.shape))
        out.append(x)
    return out[0] if len(out) == 1 else out


def atleast_1d(*arys):
    return _at_least(arys, 1, lambda s: (1,))


def atleast_2d(*arys):
    return _at_least(arys, 2, lambda s: (1,) * (2 - len(s)) + s)


def atleast_3d(*arys):
    """0-d -> [1, 1, 1], [n] -> [1, n, 1], [m, n] -> [m, n, 1] (numpy's placement)."""
    return _at_least(arys, 3, lambda s: (1, 1, 1) if not s else (1, s[0], 1) if len(s) == 1 else s + (1,))


def concatenate(arrays, axis=0) -> Tensor:
    """Joins `arrays` along `axis`; `axis=None` joins them flattened."""
    xs = promote(*arrays)
    if axis is None:
        return F.concat([F.reshape(x, (-1,)) for x in xs], 0)
    return F.concat(xs, one_axis(axis, xs[0].ndim))


def stack(arrays, axis=0) -> Tensor:
    xs = promote(*arrays)
    return F.stack(xs, one_axis(axis, xs[0].ndim + 1))


def hstack(tup) -> Tensor:
    xs = promote(*tup)
    return F.concat(xs, 0 if xs[0].ndim == 1 else 1)


def vstack(tup) -> Tensor:
    return F.concat(atleast_2d(*promote(*tup)) if len(tup) > 1 else [atleast_2d(*tup)], 0)


def dstack(tup) -> Tensor:
    return F.concat(atleast_3d(*promote(*tup)) if len(tup) > 1 else [atleast_3d(*tup)], 2)


def column_stack(tup) -> Tensor:
    """1-D arrays become columns; the columns (and 2-D arrays) join along axis 1."""
    xs = [F.reshape(x, (x.shape[0], 1)) if x.ndim == 1 else x for x in promote(*tup)]
    return F.concat(xs, 1)


def append(arr, values, axis=None) -> Tensor:
    return concatenate([arr, values], axis)


def _split(x, indices_or_sections, axis, exact):
    x = tensor(x)
    axis = one_axis(axis, x.ndim)
    if isinstance(indices_or_sections, numbers.Integral):
        if exact and x.shape[axis] % indices_or_sections:
            raise ValueError(f"array split does not result in an equal division: axis {axis} of length "
                             f"{x.shape[axis]} into {indices_or_sections} sections")
        return tuple(ops.tensor_split(x, int(indices_or_sections), axis))
    return list(ops.tensor_split(x, [int(i) for i in indices_or_sections], axis))


def split(x, indices_or_sections, axis=0):
    """Equal sections (a tuple; the count must divide the axis) or pieces between split points
    (a list), as MindSpore 2.10 returns them."""
    return _split(x, indices_or_sections, axis, exact=True)


def array_split(x, indices_or_sections, axis=0):
    """split, but a section count need not divide the axis (the first pieces are one longer)."""
    return _split(x, indices_or_sections, axis, exact=False)


def hsplit(x, indices_or_sections):
    """split along axis 1 (MindSpore 2.10 refuses 1-D input)."""
    return split(x, indices_or_sections, axis=1)


def vsplit(x, indices_or_sections):
    return split(x, indices_or_sections, axis=0)


def dsplit(x, indices_or_sections):
    return split(x, indices_or_sections, axis=2)


def flip(m, axis=None) -> Tensor:
    x = tensor(m)
    return ops.flip(x, _axes(axis, x.ndim))


def fliplr(m) -> Tensor:
    return ops.fliplr(tensor(m))


def flipud(m) -> Tensor:
    return ops.flipud(tensor(m))


def rot90(a, k=1, axes=(0, 1)) -> Tensor:
    return ops.rot90(tensor(a), k, tuple(axes))


def roll(a, shift, axis=None) -> Tensor:
    """Elements shifted along `axis` (flattened and reshaped back when None)."""
    x = tensor(a)
    if axis is None:
        return F.reshape(ops.roll(F.reshape(x, (-1,)), shift, 0), x.shape)
    return ops.roll(x, shift, axis)


def tile(a, reps) -> Tensor:
    x = tensor(a)
    reps = shape_tuple(reps)
    if len(reps) < x.ndim:
        reps = (1,) * (x.ndim - len(reps)) + reps
    return ops.tile(x, reps)


def repeat(a, repeats, axis=None) -> Tensor:
    """Each element repeated `repeats` times (an int, or one count per element along `axis`)."""
    x = tensor(a)
    if axis is None:
        x, axis = F.reshape(x, (-1,)), 0
    if isinstance(repeats, (list, tuple)) and len(repeats) == 1:
        repeats = repeats[0]
    return ops.repeat_interleave(x, repeats, one_axis(axis, x.ndim))


# ---- pad ----

def _pad_pairs(pad_width, ndim, name="pad_width"):
    """numpy's pad_width forms (n, (n,), (before, after), one pair per axis) as a list of pairs."""
    width = np.asarray(pad_width if not isinstance(pad_width, Tensor) else pad_width.asnumpy())
    if width.ndim == 0:
        width = width.reshape(1, 1)
    elif width.ndim == 1:
        width = width.reshape(1, -1)
    return [tuple(p) for p in np.broadcast_to(width, (ndim, 2)).tolist()]


def _pad_axis(x, axis, before, after, mode, **kw):
    n = x.shape[axis]
    if before == 0 and after == 0:
        return x
    if mode in ("edge", "reflect", "symmetric", "wrap"):
        # the source index of every output position, worked out in numpy on an arange
        source = np.pad(np.arange(n), (before, after), mode="edge" if mode == "edge" else mode)
        out = F.gather(x, Tensor(source.astype(np.int32)), axis)
        if mode in ("reflect", "symmetric") and kw.get("reflect_type") == "odd":
            edge = np.where(np.arange(source.size) < before, 0, n - 1).astype(np.int32)
            doubled = F.gather(x, Tensor(edge), axis) * 2 - out
            inside = np.zeros(source.size, bool)
            inside[before:before + n] = True
            shape = [1] * x.ndim
            shape[axis] = source.size
            out = ops.where(Tensor(inside.reshape(shape)), out, doubled)
        return out
    if mode == "linear_ramp":
        # from the end value to the edge value, in `before` (and `after`) equal steps
        end_before, end_after = kw["end_values"]
        work = x.dtype if x.dtype.is_floating else mstype.float32
        first = F.cast(F.slice_axis(x, axis, 0, 1), work)
        last = F.cast(F.slice_axis(x, axis, n - 1, n), work)
        shape = [1] * x.ndim
        shape[axis] = before
        head = end_before + (first - end_before) * Tensor(np.arange(before).reshape(shape) / max(before, 1), work)
        shape[axis] = after
        tail = last + (end_after - last) * Tensor(np.arange(1, after + 1).reshape(shape) / max(after, 1), work)
        parts = [F.cast(head, x.dtype), x, F.cast(tail, x.dtype)]
        return F.concat([p for p, size in zip(parts, (before, n, after)) if size], axis)
    if mode in ("maximum", "minimum", "mean"):
        stat_before, stat_after = kw["stat_length"]
        reduce = {"maximum": F.reduce_max, "minimum": F.reduce_min, "mean": _mean_keep}[mode]
        head = reduce(F.slice_axis(x, axis, 0, min(stat_before or n, n)), (axis,), True)
        tail = reduce(F.slice_axis(x, axis, n - min(stat_after or n, n), n), (axis,), True)
        head = F.broadcast_to(head, tuple(before if i == axis else s for i, s in enumerate(x.shape)))
        tail = F.broadcast_to(tail, tuple(after if i == axis else s for i, s in enumerate(x.shape)))
        return F.concat([p for p, size in zip((head, x, tail), (before, n, after)) if size], axis)
    raise ValueError(f"mode {mode!r} is not supported")


def _mean_keep(x, axis, keepdims):
    out = F.reduce_mean(F.cast(x, mstype.float32) if not x.dtype.is_floating else x, axis, keepdims)
    return out if x.dtype.is_floating else F.cast(out, x.dtype)      # truncated, as MindSpore 2.10's


def pad(arr, pad_width, mode="constant", stat_length=None, constant_values=0, end_values=0,
        reflect_type="even", **kwargs) -> Tensor:
    """numpy's pad: modes constant, edge, linear_ramp, maximum, mean, minimum, reflect, symmetric,
    wrap and empty (zeros here); a callable mode is called as numpy calls it. 'median' is not
    supported, as in MindSpore 2.10."""
    x = tensor(arr)
    pairs = _pad_pairs(pad_width, x.ndim)
    if callable(mode):
        raise NotImplementedError("a function as pad's mode is not supported")
    if mode == "median":
        raise NotImplementedError("median mode is not supported yet")
    if mode in ("constant", "empty"):
        values = _pad_pairs(constant_values if mode == "constant" else 0, x.ndim)
        for axis, ((before, after), (v_before, v_after)) in enumerate(zip(pairs, values)):
            if v_before == v_after:
                x = F.pad(x, [(before, after) if i == axis else (0, 0) for i in range(x.ndim)], value=v_before)
            else:
                x = F.pad(x, [(before, 0) if i == axis else (0, 0) for i in range(x.ndim)], value=v_before)
                x = F.pad(x, [(0, after) if i == axis else (0, 0) for i in range(x.ndim)], value=v_after)
        return x
    if mode not in ("edge", "reflect", "symmetric", "wrap", "linear_ramp", "maximum", "minimum", "mean"):
        raise ValueError(f"mode {mode!r} is not supported")
    ends = _pad_pairs(end_values, x.ndim)
    stats = _pad_pairs(0 if stat_length is None else stat_length, x.ndim)
    for axis, (before, after) in enumerate(pairs):
        x = _pad_axis(x, axis, int(before), int(after), mode, reflect_type=reflect_type, end_values=ends[axis],
                      stat_length=stats[axis])
    return x


# ---- picking elements ----

def _bounded(index: Tensor, n: int, mode: str) -> Tensor:
    if mode == "wrap":
        return ops.remainder(index, n)
    if mode == "clip":
        return ops.clamp(index, 0, n - 1)
    if mode == "raise":
        raise NotImplementedError('"raise" mode is not implemented')
    raise ValueError(f"mode should be 'clip', 'wrap' or 'raise', got {mode!r}")


def take(a, indices, axis=None, mode="clip") -> Tensor:
    """The elements of `a` at `indices` along `axis` (of the flattened `a` when None); indices
    out of range clip (after a negative one counts from the end) or wrap, as MindSpore 2.10."""
    x = tensor(a)
    if axis is None:
        x, axis = F.reshape(x, (-1,)), 0
    axis = one_axis(axis, x.ndim)
    n = x.shape[axis]
    index = F.cast(tensor(indices), mstype.int32)
    if mode == "clip":
        index = ops.where(ops.lt(index, 0), index + n, index)
    index = _bounded(index, n, mode)
    return F.take_in_range(x, index, axis)


def take_along_axis(arr, indices, axis) -> Tensor:
    """arr's elements at `indices` along `axis` (indices shaped like arr, broadcasting on the
    other axes); `axis=None` picks from the flattened arr."""
    x = tensor(arr)
    index = tensor(indices)
    if axis is None:
        x, axis = F.reshape(x, (-1,)), 0
    axis = one_axis(axis, x.ndim)
    if index.ndim != x.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    others = np.broadcast_shapes(*(tuple(1 if i == axis else s for i, s in enumerate(t.shape)) for t in (x, index)))
    x = F.broadcast_to(x, tuple(x.shape[axis] if i == axis else s for i, s in enumerate(others)))
    index = F.broadcast_to(index, tuple(index.shape[axis] if i == axis else s for i, s in enumerate(others)))
    index = ops.where(ops.lt(index, 0), index + x.shape[axis], index)
    return ops.gather_elements(x, axis, index)


def choose(a, choices, mode="clip") -> Tensor:
    """choices[a[i]][i] for each i, everything broadcast together; `a` out of range clips (a
    negative index to 0) or wraps."""
    index = F.cast(tensor(a), mstype.int32)
    picks = promote(*choices)
    shape = np.broadcast_shapes(index.shape, *(c.shape for c in picks))
    index = F.broadcast_to(_bounded(index, len(picks), "clip" if mode == "raise" else mode), shape)
    out = F.broadcast_to(picks[0], shape)
    for i, choice in enumerate(picks[1:], 1):
        out = ops.where(ops.eq(index, i), choice, out)
    return out


def where(condition, x=None, y=None):
    """x where `condition` holds, else y (broadcast together, in their common dtype); with the
    condition alone, the indices of its nonzero elements (eager only)."""
    if x is None and y is None:
        from .data_dependent import nonzero_indices
        return nonzero_indices(condition)
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    x, y = promote(x, y)
    return ops.where(F.cast(tensor(condition), mstype.bool_), x, y)


def select(condlist, choicelist, default=0) -> Tensor:
    """The choice of the first condition that holds, element by element; `default` where none does."""
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    choices = promote(*choicelist)
    out = F.cast(tensor(default), choices[0].dtype)
    for cond, choice in reversed(list(zip(condlist, choices))):
        out = ops.where(F.cast(tensor(cond), mstype.bool_), choice, out)
    return out


def piecewise(x, condlist, funclist, *args, **kw) -> Tensor:
    """funclist[i] (a function of x, or a value) where condlist[i] holds; one extra entry in
    funclist is the value where no condition holds; elsewhere 0."""
    x = tensor(x)
    if isinstance(condlist, Tensor) or not isinstance(condlist, (list, tuple)):
        condlist = [condlist]
    conds = [F.broadcast_to(F.cast(tensor(c), mstype.bool_), x.shape) for c in condlist]
    if len(funclist) == len(conds) + 1:
        otherwise = conds[0] if len(conds) == 1 else F.reduce_max(F.stack([F.cast(c, mstype.int32) for c in conds]),
                                                                  (0,), False) > 0
        conds.append(ops.logical_not(otherwise))
    elif len(funclist) != len(conds):
        raise ValueError(f"with {len(conds)} condition(s), either {len(conds)} or {len(conds) + 1} functions are expected")
    out = F.zeros_like(x)
    for cond, fn in zip(conds, funclist):
        value = fn(x, *args, **kw) if callable(fn) else fn
        out = ops.where(cond, F.cast(tensor(value), x.dtype), out)
    return out


def apply_along_axis(func1d, axis, arr, *args, **kwargs) -> Tensor:
    """func1d applied to each 1-D slice of `arr` along `axis` (a Python loop over the slices,
    unrolled when traced); the slices' results take the place of that axis."""
    x = tensor(arr)
    axis = one_axis(axis, x.ndim)
    moved = F.moveaxis(x, axis, -1) if axis != x.ndim - 1 else x
    outer = moved.shape[:-1]
    rows = F.reshape(moved, (-1, moved.shape[-1]))
    results = [tensor(func1d(rows[i], *args, **kwargs)) for i in range(rows.shape[0])]
    out = F.reshape(F.stack(results, 0), outer + results[0].shape)
    if results[0].ndim == 0:
        return out
    # the result's axes sit where `axis` was
    order = list(range(len(outer)))
    res_axes = list(range(len(outer), out.ndim))
    return F.transpose(out, tuple(order[:axis] + res_axes + order[axis:]))


def apply_over_axes(func, a, axes) -> Tensor:
    """func(a, axis) for each axis in turn, a result that lost the axis getting it back as 1."""
    x = tensor(a)
    for axis in ([axes] if isinstance(axes, numbers.Integral) else axes):
        result = func(x, axis)
        x = result if result.ndim == x.ndim else expand_dims(result, axis)
    return x


def unravel_index(indices, shape, order="C") -> tuple:
    """The coordinates (Int32) of flat `indices` in an array of `shape`."""
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    index = F.cast(tensor(indices), mstype.int32)
    shape = shape_tuple(shape)
    dims = shape[::-1] if order == "C" else shape
    coords = []
    for d in dims:
        coords.append(ops.remainder(index, d))
        index = ops.floor_divide(index, d)
    return tuple(coords[::-1] if order == "C" else coords)


def ravel_multi_index(multi_index, dims, mode="clip", order="C") -> Tensor:
    """The flat index of each coordinate tuple in an array of shape `dims`; coordinates out of
    range clip or wrap. Float32, as MindSpore 2.10 returns it."""
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    dims = shape_tuple(dims)
    coords = [_bounded(F.cast(tensor(c), mstype.int32), d, mode) for c, d in zip(multi_index, dims)]
    strides = np.cumprod((1,) + dims[::-1][:-1])[::-1] if order == "C" else np.cumprod((1,) + dims[:-1])
    flat = coords[0] * int(strides[0])
    for c, s in zip(coords[1:], strides[1:]):
        flat = flat + c * int(s)
    return F.cast(flat, mstype.float32)

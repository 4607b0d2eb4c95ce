"""Indexing and scatter ops with MindSpore 2.10's names and semantics: `index_select`,
`gather_d`, `gather_nd`, `scatter`, `tensor_scatter_elements`, `scatter_nd` and
`tensor_scatter_update/add/sub/max/min/mul/div`.

They are composed of existing primitives (take, scatter_add, sort, select), so each works
eagerly, under jit (XLA and onnxruntime: Gather, ScatterND, TopK, Where), under vmap and under
grad with no rules of its own. Every scatter comes down to one form: rows [S, R...] of the
input (R empty for the elementwise scatters), updates [M, R...] and a flat row index [M]. 'add'
is the scatter_add primitive. The others sort the writes by row, stably: an update takes each
row's last write (so the gradient reaches the winning update only, as jax's scatter gives);
max, min and mul reduce each row's writes with a segmented log-step scan (`log_scan.py`) over
the sorted updates and combine the result with the row (div divides by the product).

Indices, as measured on MindSpore 2.10 (CPU):
- negative indices count from the end (scatter, tensor_scatter_elements, index_select and
  gather_d do so in MindSpore; its scatter_nd and tensor_scatter_update/add raise);
- writes outside the input are dropped (scatter and tensor_scatter_elements drop them in
  MindSpore; the ND ops raise, which a compiled graph cannot); a gather clips an index out of
  range to the nearest end (MindSpore raises);
- where indices repeat, 'add' accumulates and an update's last write wins (MindSpore's CPU
  kernels do the same; its documents leave the winner unspecified); mul multiplies by every
  update and div divides by each (by their product: the same up to rounding, and integers
  truncate toward zero either way); max and min take the extreme of the row and its updates,
  a NaN update never winning and a NaN in the input staying (measured).
- gradients: max and min share the cotangent equally among the row and the updates equal to
  the result (MindSpore 2.10's and jax's rule); mul and div give each update its true share of
  the product (MindSpore 2.10 gives each update the gradient it would have alone, wrong where
  indices repeat: measured, not copied).
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from . import functional as F, shape_ops, sorting
from .composite import fmod, isnan
from .log_scan import log_step_scan

__all__ = ["index_select", "gather_d", "gather_nd", "scatter", "tensor_scatter_elements", "scatter_nd",
           "tensor_scatter_update", "tensor_scatter_add", "tensor_scatter_sub", "tensor_scatter_max",
           "tensor_scatter_min", "tensor_scatter_mul", "tensor_scatter_div"]

# Writers are counted in float32 (the scatter_add that finds them must run in onnxruntime too):
# exact up to 2**24 writes.
_MAX_WRITES = 1 << 24


# -- gathers ---------------------------------------------------------------------------------

def index_select(input, axis, index):  # noqa: A002 - MindSpore's names
    """input's slices at the 1-D `index` along `axis` (MindSpore's ops.index_select)."""
    index = F.as_tensor(index)
    if not index.dtype.is_integer:
        raise TypeError(f"index_select: index must be an int32 or int64 Tensor, got {index.dtype}")
    if index.ndim != 1:
        raise ValueError(f"index_select: the dimension of index must be 1, got {index.ndim}")
    return F.gather(input, index, axis)


def gather_d(x, dim, index):
    """MindSpore's ops.gather_d: ops.gather_elements under its older name."""
    return F.gather_elements(x, dim, index)


def gather_nd(input_x, indices):
    """input_x at the index vectors on the last axis of `indices` (MindSpore's ops.gather_nd):
    out[...] = input_x[indices[..., 0], ..., indices[..., K-1]], of shape indices.shape[:-1] +
    input_x.shape[K:]. A 0-d index is one vector of length 1; K = 0 repeats the whole input. A
    negative index counts from the end; one out of range is clipped to the nearest end
    (MindSpore raises for both)."""
    x, indices = F.as_tensor(input_x), F.as_tensor(indices)
    _check_index("gather_nd", indices)
    if indices.ndim == 0:
        indices = F.reshape(indices, (1,))
    depth = indices.shape[-1]
    if depth > x.ndim:
        raise ValueError(f"gather_nd: the index vectors' length indices.shape[-1] = {depth} must not exceed the "
                         f"input's rank {x.ndim}")
    lead, rest = indices.shape[:-1], x.shape[depth:]
    count = math.prod(lead)
    vectors = F.reshape(indices, (count, depth))
    flat = Tensor(np.zeros(count, np.int32))
    for k in range(depth):
        idx, _ = _wrapped(F.reshape(F.slice_axis(vectors, 1, k, k + 1), (count,)), x.shape[k], clip=True)
        flat = F.add(flat, F.mul(idx, math.prod(x.shape[k + 1:depth])))
    rows = F.reshape(x, (math.prod(x.shape[:depth]),) + rest)
    return F.reshape(F.take_in_range(rows, flat, 0), lead + rest)


# -- elementwise scatters along one axis -------------------------------------------------------

def scatter(input, axis, index, src):  # noqa: A002
    """A copy of `input` with src[i][j] written at [index[i][j]][j] for axis 0 (at
    [i][index[i][j]] for axis 1, and so on): MindSpore's ops.scatter. `index` has input's rank
    and no more than its size on the other axes; `src` has index's shape (or is a number)."""
    return _elements("scatter", input, axis, index, src, "none")


def tensor_scatter_elements(input_x, indices, updates, axis=0, reduction="none"):
    """`scatter` with its arguments in this order; reduction 'add' adds the updates instead
    (repeated indices accumulate; bools are or-ed)."""
    if reduction not in ("none", "add"):
        raise ValueError(f"tensor_scatter_elements: reduction must be 'none' or 'add', got {reduction!r}")
    return _elements("tensor_scatter_elements", input_x, axis, indices, updates, reduction)


def _elements(name, x, axis, index, src, reduction):
    x, index = F.as_tensor(x), F.as_tensor(index)
    _check_index(name, index)
    if index.ndim != x.ndim:
        raise ValueError(f"{name}: the index must have the input's rank {x.ndim}, got shape {list(index.shape)}")
    axis = F._axis(axis, x.ndim)
    F._along_index(x, index.shape, axis, name)          # checks the index's shape
    src = _updates(name, src, x, index.shape)
    count = math.prod(index.shape)
    if count == 0:
        return x
    idx, valid = _wrapped(index, x.shape[axis])
    strides = [math.prod(x.shape[a + 1:]) for a in range(x.ndim)]
    grid = np.indices(index.shape)
    base = sum(grid[a] * strides[a] for a in range(x.ndim) if a != axis)   # static: the other axes' offsets
    flat = F.add(F.mul(idx, strides[axis]), Tensor(np.asarray(base), idx.dtype))
    out = _rows_scatter(F.reshape(x, (x.size,)), F.reshape(flat, (count,)), F.reshape(valid, (count,)),
                        F.reshape(src, (count,)), reduction)
    return F.reshape(out, x.shape)


# -- scatters by index vectors (the first K axes) ------------------------------------------------

def tensor_scatter_update(input_x, indices, updates):
    """A copy of `input_x` with `updates` written where `indices` point (MindSpore's
    ops.tensor_scatter_update): indices [..., K] name positions in input_x's first K axes, and
    updates has shape indices.shape[:-1] + input_x.shape[K:]."""
    return _by_vectors("tensor_scatter_update", input_x, indices, updates, "none")


def tensor_scatter_add(input_x, indices, updates):
    """`tensor_scatter_update`, adding the updates (repeated indices accumulate)."""
    return _by_vectors("tensor_scatter_add", input_x, indices, updates, "add")


def tensor_scatter_sub(input_x, indices, updates):
    """`tensor_scatter_update`, subtracting the updates."""
    return _by_vectors("tensor_scatter_sub", input_x, indices, F.neg(F.as_tensor(updates)), "add")


def tensor_scatter_max(input_x, indices, updates):
    """`tensor_scatter_update`, keeping the larger of each element and the updates written to it
    (a NaN update never wins; a NaN element stays). Not for bools."""
    return _by_vectors("tensor_scatter_max", input_x, indices, updates, "max")


def tensor_scatter_min(input_x, indices, updates):
    """`tensor_scatter_update`, keeping the smaller of each element and the updates written to
    it (a NaN update never wins; a NaN element stays). Not for bools."""
    return _by_vectors("tensor_scatter_min", input_x, indices, updates, "min")


def tensor_scatter_mul(input_x, indices, updates):
    """`tensor_scatter_update`, multiplying each element by every update written to it. Not for
    bools."""
    return _by_vectors("tensor_scatter_mul", input_x, indices, updates, "mul")


def tensor_scatter_div(input_x, indices, updates):
    """`tensor_scatter_update`, dividing each element by every update written to it: integers
    truncate toward zero, as MindSpore's; an integer divided by 0 is 0 (MindSpore 2.10's CPU
    kernel dies of SIGFPE: measured). Not for bools."""
    return _by_vectors("tensor_scatter_div", input_x, indices, updates, "div")


def scatter_nd(indices, updates, shape):
    """Zeros of `shape` (updates' dtype) with `updates` added where `indices` point
    (MindSpore's ops.scatter_nd; repeated indices accumulate)."""
    updates = F.as_tensor(updates)
    if not isinstance(shape, (tuple, list)) or not all(isinstance(d, numbers.Integral) for d in shape):
        raise TypeError(f"scatter_nd: shape must be a tuple of ints, got {shape!r}")
    zeros = F.broadcast_to(Tensor(0, updates.dtype), tuple(int(d) for d in shape))
    return _by_vectors("scatter_nd", zeros, indices, updates, "add")


def _by_vectors(name, x, indices, updates, reduction):
    x, indices = F.as_tensor(x), F.as_tensor(indices)
    _check_index(name, indices)
    if reduction in ("max", "min", "mul", "div") and x.dtype is mstype.bool_:
        raise TypeError(f"{name}: input_x must be a numeric tensor, got Bool")
    if indices.ndim < 2:
        raise ValueError(f"{name}: indices must have rank 2 or more (index vectors on the last axis), got "
                         f"shape {list(indices.shape)}")
    depth = indices.shape[-1]
    if not 1 <= depth <= x.ndim:
        raise ValueError(f"{name}: the index vectors' length indices.shape[-1] = {depth} must be in [1, {x.ndim}] "
                         f"for an input of shape {list(x.shape)}")
    rest = x.shape[depth:]
    updates = _updates(name, updates, x, indices.shape[:-1] + rest)
    count, rows = math.prod(indices.shape[:-1]), math.prod(x.shape[:depth])
    if count == 0:
        return x
    vectors = F.reshape(indices, (count, depth))
    flat, valid = None, None
    for k in range(depth):
        idx, ok = _wrapped(F.reshape(F.slice_axis(vectors, 1, k, k + 1), (count,)), x.shape[k])
        term = F.mul(idx, math.prod(x.shape[k + 1:depth]))
        flat = term if flat is None else F.add(flat, term)
        valid = ok if valid is None else F.logical_and(valid, ok)
    out = _rows_scatter(F.reshape(x, (rows,) + rest), flat, valid, F.reshape(updates, (count,) + rest), reduction)
    return F.reshape(out, x.shape)


# -- the shared core -----------------------------------------------------------------------------

def _check_index(name, index: Tensor) -> None:
    if not index.dtype.is_integer:
        raise TypeError(f"{name}: indices must be an int32 or int64 Tensor, got {index.dtype}")


def _updates(name, updates, x: Tensor, shape: tuple) -> Tensor:
    """The updates as a Tensor of x's dtype and `shape`: a number is broadcast; a Tensor must
    have both already (MindSpore refuses others)."""
    if isinstance(updates, (numbers.Number, np.generic)):
        return F.broadcast_to(Tensor(updates, x.dtype), shape)
    updates = F.as_tensor(updates)
    if updates.dtype is not x.dtype:
        raise TypeError(f"{name}: the updates must have the input's dtype {x.dtype}, got {updates.dtype}")
    if updates.shape != tuple(shape):
        raise ValueError(f"{name}: the updates must have shape {list(shape)}, got {list(updates.shape)}")
    return updates


def _wrapped(index: Tensor, size: int, clip: bool = False):
    """int32 indices with negative ones counted from the end, and whether each is in range.
    Out of range ones become 0, or with `clip` the nearest end."""
    if index.dtype.np_dtype.kind == "i":
        index = F.select(F.less(index, 0), F.add(index, size), index)
    valid = F.logical_and(F.greater_equal(index, 0), F.less(index, size))
    # Out-of-range entries are replaced before the cast, which would wrap int64 ones into range.
    if clip:
        return F.cast(F.clamp(index, 0, max(size - 1, 0)), mstype.int32), valid
    return F.cast(F.select(valid, index, 0), mstype.int32), valid


def _rows_scatter(rows: Tensor, flat: Tensor, valid: Tensor, updates: Tensor, reduction: str) -> Tensor:
    """rows [S, R...] with updates [M, R...] added ('add'), written ('none': of several writes
    to one row the last wins), or combined ('max', 'min', 'mul', 'div') at rows flat [M] where
    valid [M]."""
    count, size = flat.shape[0], rows.shape[0]
    if size >= 1 << 31:
        raise ValueError(f"scatter: at most 2**31 - 1 positions can be scattered into, got {size}")
    mask = F.reshape(valid, (count,) + (1,) * (updates.ndim - 1))
    if reduction == "add":
        if rows.dtype is mstype.bool_:      # a logical or, as MindSpore's bool 'add'
            summed = _rows_scatter(F.cast(rows, mstype.int32), flat, valid, F.cast(updates, mstype.int32), "add")
            return F.not_equal(summed, 0)
        return shape_ops.scatter_add.bind(rows, flat, F.select(mask, updates, 0), axis=0)
    ordered, position, last = _sorted_writes(flat, valid, size)
    if reduction == "none":
        writer = _to_rows(ordered, last, F.cast(position, mstype.float32), size)  # 1 + the last write, or 0
        taken = F.take_in_range(updates, F.maximum(F.sub(writer, 1), 0), 0)
        return F.select(_row_mask(F.greater(writer, 0), rows), taken, rows)
    slot = _to_rows(ordered, last, Tensor(np.arange(count, dtype=np.float32)), size)  # 1 + its last sorted write
    written = _row_mask(F.greater(slot, 0), rows)

    def reduced(values, combine):
        """Each row's writes combined (in the order written), at the rows: [S, R...]."""
        (runs,) = log_step_scan((F.take_in_range(values, position, 0),), 0, combine, keys=ordered)
        return F.take_in_range(runs, F.maximum(F.sub(slot, 1), 0), 0)
    if reduction in ("max", "min"):
        return _extreme(rows, flat, valid, updates, written, reduced, F.greater if reduction == "max" else F.less)
    product = reduced(updates, lambda earlier, later: (F.mul(earlier[0], later[0]),))
    if reduction == "mul":
        return F.select(written, F.mul(rows, product), rows)
    return F.select(written, _divide(rows, product), rows)


def _extreme(rows, flat, valid, updates, written, reduced, better):
    """The max (`better` F.greater) or min of each row and its updates; NaN updates never win,
    NaN rows stay. The value is computed apart from the gradient, which the row and the updates
    equal to the result share equally."""
    r, u = F.stop_gradient(rows), F.stop_gradient(updates)
    if r.dtype.is_floating:
        worst = -math.inf if better is F.greater else math.inf
        u = F.select(isnan(u), worst, u)
    best = reduced(u, lambda earlier, later: (F.select(better(later[0], earlier[0]), later[0], earlier[0]),))
    value = F.select(F.logical_and(written, better(best, r)), best, r)
    if not r.dtype.is_floating:
        return value
    tied_rows = F.cast(F.equal(r, value), r.dtype)
    at_writes = F.take_in_range(value, flat, 0)
    tied_updates = F.cast(F.logical_and(F.equal(u, at_writes), _row_mask(valid, u)), r.dtype)
    ties = F.maximum(shape_ops.scatter_add.bind(tied_rows, flat, tied_updates, axis=0), 1.0)   # per row
    row_share = F.div(tied_rows, ties)
    update_share = F.div(tied_updates, F.take_in_range(ties, flat, 0))
    from_updates = F.mul(update_share, _detached_minus(updates))
    pulled = F.add(F.mul(row_share, _detached_minus(rows)),
                   shape_ops.scatter_add.bind(F.zeros_like(r), flat, from_updates, axis=0))
    return F.sub(value, pulled)   # value - (+0.0): the value exactly (-0.0 too), with the shares' gradient


def _detached_minus(x: Tensor) -> Tensor:
    """0.0 whose gradient with respect to x is -1 where x is finite (0 elsewhere: inf - inf
    and NaN would make the value NaN)."""
    finite = F.select(F.isfinite(x), x, F.zeros_like(x))
    return F.sub(F.stop_gradient(finite), finite)


def _divide(x: Tensor, y: Tensor) -> Tensor:
    """x / y; integers truncate toward zero (MindSpore's TensorScatterDiv) and give 0 for y = 0."""
    if x.dtype.is_floating:
        return F.div(x, y)
    zero = F.equal(y, 0)
    y = F.select(zero, F.ones_like(y), y)
    exact = F.sub(x, fmod(x, y))                    # a multiple of y: the division has no remainder
    return F.select(zero, F.zeros_like(x), F.floor_div(exact, y))


def _row_mask(flags: Tensor, like: Tensor) -> Tensor:
    """[S] flags shaped to broadcast over rows like `like` [S, R...]."""
    return F.reshape(flags, (flags.shape[0],) + (1,) * (like.ndim - 1))


def _sorted_writes(flat: Tensor, valid: Tensor, size: int):
    """The writes sorted by row, stably (invalid ones after every row): (each sorted write's row,
    its position among the writes, whether it is its row's last)."""
    count = flat.shape[0]
    if count >= _MAX_WRITES:
        raise ValueError(f"scatter: at most {_MAX_WRITES - 1} updates in one scatter, got {count}")
    key = F.stop_gradient(F.select(valid, flat, size))
    ordered, position = sorting.sort_p.bind(key, axis=0, descending=False, index_dtype=mstype.int32)
    following = F.concat([F.slice_axis(ordered, 0, 1, count), Tensor(np.array([size + 1], np.int32))])
    last = F.logical_and(F.not_equal(ordered, following), F.less(ordered, size))
    return ordered, position, last


def _to_rows(ordered: Tensor, last: Tensor, marks: Tensor, size: int) -> Tensor:
    """For each of `size` rows, 1 + the float32 `marks` of the last of its sorted writes, or 0
    where none writes: the last of each run adds its mark (plus one) to its row, and only it."""
    mark = F.select(last, F.add(marks, 1.0), 0.0)
    out = shape_ops.scatter_add.bind(F.broadcast_to(Tensor(0, mstype.float32), (size,)), ordered, mark, axis=0)
    return F.stop_gradient(F.cast(out, mstype.int32))

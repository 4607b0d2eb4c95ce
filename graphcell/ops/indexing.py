"""Indexing and scatter ops with MindSpore 2.10's names and semantics: `index_select`,
`gather_d`, `scatter`, `tensor_scatter_elements`, `scatter_nd`, `tensor_scatter_update`,
`tensor_scatter_add` and `tensor_scatter_sub`.

They are composed of existing primitives (take, scatter_add, sort, select), so each works
eagerly, under jit (XLA and onnxruntime: Gather, ScatterND, TopK, Where), under vmap and under
grad with no rules of its own. Every scatter comes down to one form: rows [S, R...] of the
input (R empty for the elementwise scatters), updates [M, R...] and a flat row index [M]. 'add'
is the scatter_add primitive; an update is a select between the input's rows and the updates
gathered at each row's writer, found with a stable sort of the row indices (the last write to
a row wins), so the gradient reaches the winning update only (jax's scatter gives the same).

Indices, as measured on MindSpore 2.10 (CPU):
- negative indices count from the end (scatter, tensor_scatter_elements, index_select and
  gather_d do so in MindSpore; its scatter_nd and tensor_scatter_update/add raise);
- writes outside the input are dropped (scatter and tensor_scatter_elements drop them in
  MindSpore; the ND ops raise, which a compiled graph cannot); a gather clips an index out of
  range to the nearest end (MindSpore raises);
- where indices repeat, 'add' accumulates and an update's last write wins (MindSpore's CPU
  kernels do the same; its documents leave the winner unspecified).
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from . import functional as F, shape_ops, sorting

__all__ = ["index_select", "gather_d", "scatter", "tensor_scatter_elements", "scatter_nd",
           "tensor_scatter_update", "tensor_scatter_add", "tensor_scatter_sub"]

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


def _wrapped(index: Tensor, size: int):
    """int32 indices with negative ones counted from the end, and whether each is in range."""
    if index.dtype.np_dtype.kind == "i":
        index = F.select(F.less(index, 0), F.add(index, size), index)
    valid = F.logical_and(F.greater_equal(index, 0), F.less(index, size))
    # Out-of-range entries are masked by `valid`; zeroing them first keeps int64 ones from
    # wrapping into range when cast.
    return F.cast(F.select(valid, index, 0), mstype.int32), valid


def _rows_scatter(rows: Tensor, flat: Tensor, valid: Tensor, updates: Tensor, reduction: str) -> Tensor:
    """rows [S, R...] with updates [M, R...] added ('add') or written ('none') at rows flat [M]
    where valid [M]; of several writes to one row the last wins."""
    count = flat.shape[0]
    if rows.shape[0] >= 1 << 31:
        raise ValueError(f"scatter: at most 2**31 - 1 positions can be scattered into, got {rows.shape[0]}")
    mask = F.reshape(valid, (count,) + (1,) * (updates.ndim - 1))
    if reduction == "add":
        if rows.dtype is mstype.bool_:      # a logical or, as MindSpore's bool 'add'
            summed = _rows_scatter(F.cast(rows, mstype.int32), flat, valid, F.cast(updates, mstype.int32), "add")
            return F.not_equal(summed, 0)
        return shape_ops.scatter_add.bind(rows, flat, F.select(mask, updates, 0), axis=0)
    writer = _last_writers(flat, valid, rows.shape[0])                 # [S]: 1 + the writing update, or 0
    taken = F.take_in_range(updates, F.maximum(F.sub(writer, 1), 0), 0)
    written = F.reshape(F.greater(writer, 0), (rows.shape[0],) + (1,) * (rows.ndim - 1))
    return F.select(written, taken, rows)


def _last_writers(flat: Tensor, valid: Tensor, size: int) -> Tensor:
    """For each of `size` rows, 1 + the position in `flat` of the last valid write to it, or 0
    where none writes. A stable sort brings each row's writes together in their order; the last
    of each run adds its position (plus one) to its row, and only it: no sum of several."""
    count = flat.shape[0]
    if count >= _MAX_WRITES:
        raise ValueError(f"scatter: at most {_MAX_WRITES - 1} updates in one scatter, got {count}")
    key = F.stop_gradient(F.select(valid, flat, size))                 # invalid writes sort after every row
    ordered, position = sorting.sort_p.bind(key, axis=0, descending=False, index_dtype=mstype.int32)
    following = F.concat([F.slice_axis(ordered, 0, 1, count), Tensor(np.array([size + 1], np.int32))])
    last = F.logical_and(F.not_equal(ordered, following), F.less(ordered, size))
    mark = F.select(last, F.add(F.cast(position, mstype.float32), 1.0), 0.0)
    writer = shape_ops.scatter_add.bind(F.broadcast_to(Tensor(0, mstype.float32), (size,)), ordered, mark, axis=0)
    return F.stop_gradient(F.cast(writer, mstype.int32))

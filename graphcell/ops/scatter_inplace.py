"""MindSpore 2.10's in-place scatters: `scatter_add/mul/div/max/min/update`,
`scatter_nd_add/sub/mul/div/max/min/update`, `index_add` and `inplace_index_add`.

Measured on MindSpore 2.10 (CPU), eagerly and under `ms.jit`: each writes its result into
`input_x`, a Parameter or a plain Tensor alike, and returns a Tensor holding the result. Here
the result is computed with the scatters of `indexing.py` (so jit, vmap, grad and ONNX follow)
and written back as `x[i] = v` writes: a Parameter's write is an `ops.assign` (a state update
inside a trace, written to the Parameter when the compiled graph returns), a plain Tensor holds
the new value from then on (inside a trace, for the rest of the trace: a Tensor passed to a
jitted function as an argument is not written back to the caller's Tensor, as MindSpore's jit
does).

Indices, measured: a negative or out-of-range index is an error in MindSpore. Eagerly, where
the index values are known, it is here too (MindSpore's message); inside a compiled graph,
which cannot raise on values, such writes are dropped. Where indices repeat, 'add'
accumulates, the last 'update' wins, mul/div apply every update. Updates of another dtype are
cast to the input's where that loses nothing (int32 updates into a float32 input), as MindSpore
converts them; otherwise TypeError (MindSpore's refusal: an in-place op keeps its dtype).

scatter_max follows MindSpore's CPU kernel, `x = x > u ? x : u` for each update in turn: a NaN
update wins and a NaN element is replaced by the next update (the other ops' NaN rules are
tensor_scatter_*'s, which MindSpore's kernels share).
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from . import functional as F, indexing, shape_ops
from .composite import isnan
from .log_scan import log_step_scan

__all__ = ["scatter_add", "scatter_mul", "scatter_div", "scatter_max", "scatter_min",
           "scatter_update", "scatter_nd_add", "scatter_nd_sub", "scatter_nd_mul", "scatter_nd_div",
           "scatter_nd_max", "scatter_nd_min", "scatter_nd_update", "index_add", "inplace_index_add"]

_KERNELS = {"add": "ScatterAdd", "sub": "ScatterSub", "mul": "ScatterMul", "div": "ScatterDiv",
            "max": "ScatterMax", "min": "ScatterMin", "update": "ScatterUpdate"}


# -- writing back ----------------------------------------------------------------------------

def write_back(name: str, x, new: Tensor) -> Tensor:
    """Makes `x` hold `new` (a Parameter through ops.assign, a Tensor by rebinding its value,
    as `x[i] = v` does) and returns `new`."""
    if isinstance(x, Tensor):   # Tensor._write: a Parameter's is an ops.assign
        x._write(new, name)
    return new


def _input(name: str, x) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{name}', input_x must be a Parameter or a Tensor (it is written in place), "
                        f"got {type(x).__name__}")
    if x.dtype is mstype.bool_:
        raise TypeError(f"For '{name}', input_x must be a numeric Tensor, got Bool")
    return x


def coerced_updates(name: str, updates, x: Tensor):
    """`updates` in x's dtype where the cast loses nothing (MindSpore's implicit conversion);
    numbers are left to the scatter, which broadcasts them."""
    if not isinstance(updates, Tensor):
        return updates if isinstance(updates, (int, float)) else F.as_tensor(updates)
    if updates.dtype is x.dtype:
        return updates
    if mstype.result_dtype(x.dtype, updates.dtype) is not x.dtype:
        raise TypeError(f"For '{name}', updates of dtype {updates.dtype} cannot be converted to input_x's dtype "
                        f"{x.dtype}: an in-place operator keeps its input's dtype")
    return F.cast(updates, x.dtype)


def _known(t: Tensor):
    """t's values where they are known here (eagerly, or an eager grad's trace), else None."""
    if not t.is_symbolic:
        return t._host("index check")
    from ..frontend.concrete import array_of
    known = array_of(t)
    return None if known is None else np.asarray(known)


def strict_indices(kernel: str, indices, size: int, error=None) -> Tensor:
    """`indices` checked to lie in [0, size): eagerly an error naming the first that does not
    (MindSpore's, or `error(bad)`); in a graph, negative ones are moved out of range, so the
    scatter drops them with the others."""
    indices = F.as_tensor(indices)
    if not indices.dtype.is_integer:
        raise TypeError(f"For primitive[{kernel}], the input argument[indices type] must be a type of "
                        f"{{Tensor[Int32], Tensor[Int64]}}, but got Tensor[{indices.dtype}].")
    known = _known(indices)
    if known is not None:
        bad = known[(known < 0) | (known >= size)]
        if bad.size:
            raise RuntimeError(error(int(bad.flat[0])) if error else
                               f"For '{kernel}', the value of indices should be in [0, {size}), but got "
                               f"'{int(bad.flat[0])}' in indices.")
        return indices
    if indices.dtype.np_dtype.kind == "i":
        indices = F.select(F.less(indices, 0), F.full((), size, indices.dtype), indices)
    return indices


# -- scatter_* : rows of input_x at 1-D (or any-rank) indices --------------------------------------

def _rows(op: str, input_x, indices, updates) -> Tensor:
    kernel = _KERNELS[op]
    x = _input(kernel, input_x)
    if x.ndim == 0:
        raise ValueError(f"For '{kernel}', input_x must have at least one dimension")
    indices = strict_indices(kernel, indices, x.shape[0])
    updates = coerced_updates(kernel, updates, x)
    if op == "div":
        _no_zero_divisor(kernel, updates)
    expected = indices.shape + x.shape[1:]
    if isinstance(updates, Tensor) and updates.shape != expected:
        raise ValueError(f"For {kernel}, updates_shape = indices_shape + input_x_shape[1:], but got input_x_shape: "
                         f"{x.shape}, indices_shape: {indices.shape}, updates_shape: {updates.shape}.")
    count = max(1, math.prod(indices.shape))
    vectors = F.reshape(indices, (count, 1))
    if isinstance(updates, Tensor):
        updates = F.reshape(updates, (count,) + x.shape[1:])
    new = _scatter(kernel, op, x, vectors, updates)
    return write_back(kernel, input_x, new)


def _no_zero_divisor(kernel: str, updates) -> None:
    """MindSpore 2.10's ScatterDiv refuses a 0 among known updates (float ones too: measured);
    scatter_nd_div does not check. Traced updates cannot be read."""
    known = updates if not isinstance(updates, Tensor) else _known(updates)
    if known is not None and (np.asarray(known) == 0).any():
        raise ValueError(f"For '{kernel}', updates must not contain 0")


def _scatter(kernel: str, op: str, x: Tensor, vectors: Tensor, updates) -> Tensor:
    if op == "max":
        return _kernel_max(kernel, x, vectors, updates)
    reduction = {"update": "none", "sub": "add"}.get(op, op)
    if op == "sub":
        updates = F.neg(F.as_tensor(updates, x.dtype))
    return indexing._by_vectors(kernel, x, vectors, updates, reduction)


def scatter_add(input_x, indices, updates):
    """Adds `updates` [indices.shape + input_x.shape[1:]] to input_x's rows at `indices`, in place
    (a Parameter or a Tensor: see the module's docstring), and returns the result. Repeated
    indices accumulate."""
    return _rows("add", input_x, indices, updates)


def scatter_mul(input_x, indices, updates):
    """`scatter_add`, multiplying by each update."""
    return _rows("mul", input_x, indices, updates)


def scatter_div(input_x, indices, updates):
    """`scatter_add`, dividing by each update (integers truncate toward zero)."""
    return _rows("div", input_x, indices, updates)


def scatter_max(input_x, indices, updates):
    """`scatter_add`, keeping `x > u ? x : u` for each update in turn (MindSpore's kernel: a NaN
    update wins; a NaN element gives way to the next update)."""
    return _rows("max", input_x, indices, updates)


def scatter_min(input_x, indices, updates):
    """`scatter_add`, keeping the smaller (a NaN update never wins; a NaN element stays)."""
    return _rows("min", input_x, indices, updates)


def scatter_update(input_x, indices, updates):
    """`scatter_add`, writing the updates (of repeated indices the last wins)."""
    return _rows("update", input_x, indices, updates)


# -- scatter_nd_* : index vectors on indices' last axis ---------------------------------------------

def _vectors(op: str, input_x, indices, updates) -> Tensor:
    kernel = "ScatterNd" + _KERNELS[op][len("Scatter"):]
    x = _input(kernel, input_x)
    indices = F.as_tensor(indices)
    if indices.ndim >= 1 and 1 <= indices.shape[-1] <= x.ndim and indices.dtype.is_integer:
        bound = np.asarray(x.shape[:indices.shape[-1]])
        known = _known(indices)
        if known is not None:
            bad = ((known < 0) | (known >= bound)).reshape(-1, bound.size).any(1)
            if bad.any():
                raise RuntimeError(f"For '{kernel}', the index vector {known.reshape(-1, bound.size)[bad][0].tolist()} "
                                   f"is out of range for input_x of shape {list(x.shape)}")
        elif indices.dtype.np_dtype.kind == "i":     # negative: out of range, dropped in a graph
            indices = F.select(F.less(indices, 0), F.full((), int(bound.max()), indices.dtype), indices)
    new = _scatter(kernel, op, x, indices, coerced_updates(kernel, updates, x))
    return write_back(kernel, input_x, new)


def scatter_nd_add(input_x, indices, updates, use_locking=False):
    """Adds `updates` [indices.shape[:-1] + input_x.shape[K:]] where the index vectors on
    indices' last axis (of length K) point, in place, and returns the result."""
    return _vectors("add", input_x, indices, updates)


def scatter_nd_sub(input_x, indices, updates, use_locking=False):
    """`scatter_nd_add`, subtracting."""
    return _vectors("sub", input_x, indices, updates)


def scatter_nd_mul(input_x, indices, updates, use_locking=False):
    """`scatter_nd_add`, multiplying."""
    return _vectors("mul", input_x, indices, updates)


def scatter_nd_div(input_x, indices, updates, use_locking=False):
    """`scatter_nd_add`, dividing (integers truncate toward zero)."""
    return _vectors("div", input_x, indices, updates)


def scatter_nd_max(input_x, indices, updates, use_locking=False):
    """`scatter_nd_add`, keeping `x > u ? x : u` for each update in turn (as scatter_max)."""
    return _vectors("max", input_x, indices, updates)


def scatter_nd_min(input_x, indices, updates, use_locking=False):
    """`scatter_nd_add`, keeping the smaller."""
    return _vectors("min", input_x, indices, updates)


def scatter_nd_update(input_x, indices, updates, use_locking=True):
    """`scatter_nd_add`, writing the updates (of repeated index vectors the last wins)."""
    return _vectors("update", input_x, indices, updates)


# -- index_add: 1-D indices along an axis ------------------------------------------------------------

def _along_axis(kernel: str, x, indices, y, axis, error) -> Tensor:
    x = _input(kernel, x)
    axis = F._axis(int(axis), x.ndim)
    indices = F.as_tensor(indices)
    if indices.ndim != 1:
        raise ValueError(f"For '{kernel}', indices must be 1-D, got shape {list(indices.shape)}")
    indices = strict_indices(kernel, indices, x.shape[axis], error)
    y = coerced_updates(kernel, y, x)
    expected = x.shape[:axis] + indices.shape + x.shape[axis + 1:]
    if not isinstance(y, Tensor) or y.shape != expected:
        raise ValueError(f"For '{kernel}', the updates must have shape {list(expected)}, got "
                         f"{list(F.as_tensor(y).shape)}")
    idx, valid = indexing._wrapped(indices, x.shape[axis])
    shape = (1,) * axis + (indices.shape[0],) + (1,) * (x.ndim - axis - 1)
    y = F.select(F.reshape(valid, shape), y, F.zeros_like(y))
    return shape_ops.scatter_add.bind(x, idx, y, axis=axis)


def index_add(x, indices, y, axis, use_lock=True, check_index_bound=True):
    """Adds y's slices along `axis` to x's at the 1-D `indices`, in place (a Parameter or a
    Tensor), and returns the result; y has x's shape with indices' length on `axis`."""
    def error(bad):
        return f"For 'IndexAdd', the indices are out of range: got {bad} for axis {axis} of size {x.shape[axis]}"
    return write_back("IndexAdd", x, _along_axis("IndexAdd", x, indices, y, axis, error))


def inplace_index_add(var, indices, updates, axis):
    """MindSpore's ops.inplace_index_add: `index_add` with its arguments in this order."""
    size = var.shape[axis] if isinstance(var, Tensor) else 0

    def error(bad):
        return f"For 'InplaceIndexAdd', the value of 'indices' must be in range [0, {size}), but got {bad}."
    return write_back("InplaceIndexAdd", var, _along_axis("InplaceIndexAdd", var, indices, updates, axis, error))


# -- MindSpore's scatter_max fold ---------------------------------------------------------------------

def _kernel_max(kernel: str, x: Tensor, vectors: Tensor, updates) -> Tensor:
    """x with each row folded with its updates in write order by `r = r > u ? r : u`. Over a
    run of writes the fold is either a constant (the run holds a NaN: the max of what follows
    the last NaN, NaN if nothing does) or `r -> max(r, M)` (NaN r -> M): a pair (has_nan, value)
    that composes associatively, so the runs reduce with the segmented log-step scan. Floats
    only need it; integers are tensor_scatter_max. The gradient goes to the winner."""
    if not x.dtype.is_floating:
        return indexing._by_vectors(kernel, x, vectors, updates, "max")
    updates = indexing._updates(kernel, updates, x, vectors.shape[:-1] + x.shape[vectors.shape[-1]:])
    depth, rest = vectors.shape[-1], x.shape[vectors.shape[-1]:]
    count, size = math.prod(vectors.shape[:-1]), math.prod(x.shape[:depth])
    if count == 0:
        return x
    vectors = F.reshape(vectors, (count, depth))
    flat, valid = None, None
    for k in range(depth):
        idx, ok = indexing._wrapped(F.reshape(F.slice_axis(vectors, 1, k, k + 1), (count,)), x.shape[k])
        term = F.mul(idx, math.prod(x.shape[k + 1:depth]))
        flat = term if flat is None else F.add(flat, term)
        valid = ok if valid is None else F.logical_and(valid, ok)
    rows = F.reshape(x, (size,) + rest)
    upd = F.reshape(updates, (count,) + rest)
    ordered, position, last = indexing._sorted_writes(flat, valid, size)
    slot = indexing._to_rows(ordered, last, Tensor(np.arange(count, dtype=np.float32)), size)

    def combine(earlier, later):
        (nan_a, a), (nan_b, b) = earlier, later
        fresh = F.select(isnan(a), b, F.maximum(a, b))
        return F.logical_or(nan_a, nan_b), F.select(nan_b, b, fresh)
    picked = F.take_in_range(upd, position, 0)
    runs = log_step_scan((isnan(picked), picked), 0, combine, keys=ordered)
    at = F.maximum(F.sub(slot, 1), 0)
    has_nan, value = (F.take_in_range(r, at, 0) for r in runs)
    folded = F.select(has_nan, value, F.select(isnan(rows), value, F.maximum(rows, value)))
    written = indexing._row_mask(F.greater(slot, 0), rows)
    return F.reshape(F.select(written, folded, rows), x.shape)

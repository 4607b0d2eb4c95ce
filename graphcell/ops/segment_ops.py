"""Segment reductions with MindSpore 2.10's names and semantics: `unsorted_segment_sum/max/
min/prod` and `sparse_segment_mean`.

Measured on MindSpore 2.10 (CPU): segment_ids' shape is a prefix of x's; output row s
reduces the slices of x whose id is s; a negative id is skipped, one >= num_segments is an
error (eagerly here too; a compiled graph skips it); an empty segment holds the reduction's
identity: 0, 1, the dtype's lowest finite value for max (-3.4028235e38 in float32,
-2147483648 in int32) and its highest for min; max and min skip NaN (an all-NaN segment is
the identity), sum and prod carry it; bools are refused. They are the scatters of
`indexing.py` into rows filled with the identity, so jit, vmap, grad and ONNX follow.

sparse_segment_mean's output has segment_ids[-1] + 1 rows: a shape that depends on the
values, so it runs eagerly only, as `ops.unique` does (graph mode raises GraphModeError).
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from . import functional as F, indexing
from .scatter_inplace import _known

__all__ = ["unsorted_segment_sum", "unsorted_segment_max", "unsorted_segment_min", "unsorted_segment_prod",
           "sparse_segment_mean"]


def _num_segments(kernel: str, num_segments) -> int:
    if isinstance(num_segments, Tensor):
        num_segments = num_segments._host(f"{kernel}'s num_segments").item()
    if not isinstance(num_segments, numbers.Integral) or isinstance(num_segments, bool):
        raise TypeError(f"For '{kernel}', num_segments must be an int, got {num_segments!r}")
    if num_segments <= 0:
        raise ValueError(f"For '{kernel}', num_segments value must be greater than 0, but got: {num_segments}.")
    return int(num_segments)


def _identity(reduction: str, dtype) -> float:
    if reduction in ("add", "mul"):
        return 0 if reduction == "add" else 1
    info = np.finfo(dtype.np_dtype) if dtype.is_floating else np.iinfo(dtype.np_dtype)
    return info.min if reduction == "max" else info.max


def _segments(kernel: str, reduction: str, x, segment_ids, num_segments) -> Tensor:
    x, ids = F.as_tensor(x), F.as_tensor(segment_ids)
    if x.dtype is mstype.bool_:
        raise TypeError(f"For '{kernel}', input_x must be a numeric Tensor, got Bool")
    if not ids.dtype.is_integer:
        raise TypeError(f"For '{kernel}', segment_ids must be an int32 or int64 Tensor, got {ids.dtype}")
    if ids.shape != x.shape[:ids.ndim]:
        raise ValueError(f"For '{kernel}', the shape of 'segment_ids' {list(ids.shape)} must be a prefix of the "
                         f"shape of 'input_x' {list(x.shape)}")
    n = _num_segments(kernel, num_segments)
    known = _known(ids)
    if known is not None and (known >= n).any():
        raise RuntimeError(f"For '{kernel}', segment_ids must be less than num_segments {n}, got "
                           f"{int(known[known >= n][0])}")
    rest = x.shape[ids.ndim:]
    count = math.prod(ids.shape)
    flat = F.reshape(ids, (count,))
    valid = F.logical_and(F.greater_equal(flat, 0), F.less(flat, n))
    index = F.cast(F.select(valid, flat, 0), mstype.int32)
    rows = F.broadcast_to(Tensor(_identity(reduction, x.dtype), x.dtype), (n,) + rest)
    if count == 0:   # no slices: every segment is empty (MindSpore 2.10's CPU kernels refuse this)
        return rows
    return indexing._rows_scatter(rows, index, valid, F.reshape(x, (count,) + rest), reduction)


def unsorted_segment_sum(input_x, segment_ids, num_segments):
    """The sum of input_x's slices per segment id: [num_segments] + input_x.shape[ids.ndim:]."""
    return _segments("UnsortedSegmentSum", "add", input_x, segment_ids, num_segments)


def unsorted_segment_max(x, segment_ids, num_segments):
    """The max per segment (NaN skipped; an empty segment holds the dtype's lowest value)."""
    return _segments("UnsortedSegmentMax", "max", x, segment_ids, num_segments)


def unsorted_segment_min(x, segment_ids, num_segments):
    """The min per segment (NaN skipped; an empty segment holds the dtype's highest value)."""
    return _segments("UnsortedSegmentMin", "min", x, segment_ids, num_segments)


def unsorted_segment_prod(x, segment_ids, num_segments):
    """The product per segment (an empty segment holds 1)."""
    return _segments("UnsortedSegmentProd", "mul", x, segment_ids, num_segments)


def sparse_segment_mean(x, indices, segment_ids):
    """The mean of x's rows x[indices[j]] per segment segment_ids[j] (sorted, non-negative):
    [segment_ids[-1] + 1] + x.shape[1:]; a segment with no rows is 0. Eager only (the row count
    is a value); the gradient reaches x through the gather."""
    x, indices, ids = F.as_tensor(x), F.as_tensor(indices), F.as_tensor(segment_ids)
    if not x.dtype.is_floating or x.dtype is mstype.bfloat16:
        raise TypeError(f"For primitive[SparseSegmentMean], the input argument[x] must be a type of "
                        f"{{Tensor[Float16], Tensor[Float32], Tensor[Float64]}}, but got Tensor[{x.dtype}].")
    if indices.dtype not in (mstype.int32, mstype.int64) or ids.dtype is not indices.dtype:
        raise TypeError(f"For primitive[SparseSegmentMean], indices and segment_ids must be both int32 or both "
                        f"int64, got {indices.dtype} and {ids.dtype}")
    if indices.ndim != 1 or ids.shape != indices.shape:
        raise ValueError(f"For 'SparseSegmentMean', indices and segment_ids must be 1-D of one length, got "
                         f"{list(indices.shape)} and {list(ids.shape)}")
    rows, segs = _values("sparse_segment_mean", indices), _values("sparse_segment_mean", ids)
    if rows.size and ((rows < 0) | (rows >= x.shape[0])).any():
        raise RuntimeError(f"For 'SparseSegmentMean', indices must be in [0, {x.shape[0]}), got "
                           f"{int(rows[(rows < 0) | (rows >= x.shape[0])][0])}")
    if segs.size and (segs[0] < 0 or (np.diff(segs) < 0).any()):
        raise RuntimeError("For 'SparseSegmentMean', segment_ids must be sorted and non-negative, got "
                           f"{segs.tolist()}")
    n = int(segs[-1]) + 1 if segs.size else 0
    picked = F.gather(x, Tensor(rows.astype(np.int32)), 0)
    sums = unsorted_segment_sum(picked, Tensor(segs.astype(np.int32)), max(n, 1))
    counts = np.maximum(np.bincount(segs, minlength=n), 1).astype(x.dtype.np_dtype)
    out = F.div(sums, Tensor(counts.reshape((-1,) + (1,) * (x.ndim - 1))))
    return F.slice_axis(out, 0, 0, n)


def _values(op: str, t: Tensor) -> np.ndarray:
    """t's values; in graph mode, an error that says the op is eager-only."""
    from ..frontend.tracer import GraphModeError
    try:
        return np.asarray(t._host(f"ops.{op}")).astype(np.int64)
    except GraphModeError:
        raise GraphModeError(f"ops.{op} has an output shape that depends on segment_ids' values, and graph mode "
                             f"(jit, vmap, grad) builds graphs of static shapes; call it eagerly, or use "
                             f"ops.unsorted_segment_sum with a fixed num_segments, divided by the counts") from None


def sorted_segments(kernel: str, reduction: str, x, segment_ids) -> Tensor:
    """MindSpore 2.10's SegmentSum/Mean/Max/Min/Prod (classes only in 2.10): x's slices reduced
    per segment id, the ids 1-D, sorted, non-negative and as many as x's rows; the output has
    segment_ids[-1] + 1 rows, a shape that depends on the values, so it runs eagerly only (as
    sparse_segment_mean). Measured: an empty segment is 0 for every reduction but prod (1); an
    integer mean truncates toward zero. Max and min skip NaN here (2.10's CPU kernels give
    NaN for max, but not for min, of [1, nan]; graphcell does not copy that)."""
    if not isinstance(x, Tensor) or not isinstance(segment_ids, Tensor):
        bad, value = ("x_type", x) if not isinstance(x, Tensor) else ("segment_ids_type", segment_ids)
        raise TypeError(f"For Primitive[{kernel}], the type of input argument[{bad}] must be Tensor but got "
                        f"{type(value).__name__}.")
    ids = segment_ids
    if x.dtype is mstype.bool_:
        raise TypeError(f"For primitive[{kernel}], the input argument[x_type] must be a numeric Tensor, but got "
                        f"Tensor[Bool].")
    if ids.dtype not in (mstype.int32, mstype.int64):
        raise TypeError(f"For primitive[{kernel}], the input argument[segment_ids_type] must be a type of "
                        f"{{Tensor[Int32], Tensor[Int64]}}, but got Tensor[{ids.dtype}].")
    if x.ndim < 1:
        raise ValueError(f"For primitive[{kernel}], the rank of 'x' must be greater than or equal to 1, but got 0.")
    if ids.ndim != 1:
        raise ValueError(f"For primitive[{kernel}], the rank of 'segment_ids' must be equal to 1, but got {ids.ndim}.")
    if ids.shape[0] != x.shape[0]:
        raise ValueError(f"For '{kernel}', the amount of data for segment_ids must be equal to the first dimension "
                         f"of the shape of input_x, but got {ids.shape[0]} and {x.shape[0]}.")
    segs = _values(kernel, ids)
    if segs.size == 0:
        raise ValueError("For 'SegmentOp', segment_ids input cannot be empty.")
    if segs[0] < 0:
        raise ValueError(f"For 'SegmentOp', the values of segment_ids must be nonnegative, but got {int(segs.min())}.")
    if (np.diff(segs) < 0).any():
        raise ValueError("For 'SegmentOp', segment_ids must be a tensor with element values sorted in ascending order.")
    n = int(segs[-1]) + 1
    index = Tensor(segs.astype(np.int32))
    counts = np.bincount(segs, minlength=n).reshape((n,) + (1,) * (x.ndim - 1))
    if reduction == "mean":
        divisor = Tensor(np.maximum(counts, 1).astype(x.dtype.np_dtype))
        # (an integer mean truncates toward zero, as measured)
        return F.div(_segments(kernel, "add", x, index, n), divisor,
                     rounding_mode="trunc" if x.dtype.is_integer else None)
    out = _segments(kernel, reduction, x, index, n)
    if reduction in ("max", "min"):   # an empty segment is 0, not the reduction's identity
        out = F.select(Tensor(np.broadcast_to(counts > 0, out.shape)), out, F.zeros_like(out))
    return out

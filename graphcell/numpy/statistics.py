"""Reductions and statistics of mindspore.numpy: sums, means, extrema, variances, their nan-
ignoring forms, cumulative sums and products, arg-extrema, averages and counts.

`axis=None` reduces every axis (numpy's meaning; ops' reductions take `()` for that). Dtypes
follow MindSpore 2.10 as measured: an integer sum is Int64, an integer mean or average is
truncated back to the input's dtype (mnp.mean([1, 2]) is Int32 1), std and var of integers are
Float32, cumsum keeps Int32 (a bool cumsum is Int32), argmax is Int64 and argmin Int32.
"""
from __future__ import annotations

import numbers

from .. import dtype as mstype
from .. import ops
from ..ops import functional as F
from ..tensor import Tensor
from ._helpers import as_float, axes as _axes, one_axis, tensor, with_dtype


def _reduce_axes(x: Tensor, axis) -> tuple:
    return _axes(axis, x.ndim)


def _sum(x: Tensor, axis: tuple, keepdims: bool) -> Tensor:
    # ops' reduce_sum reads () as "every axis": an empty axis list (a 0-d input) is no reduction
    return F.reduce_sum(x, axis, keepdims) if axis else x


def sum(a, axis=None, dtype=None, keepdims=False, initial=None) -> Tensor:  # noqa: A001 - mindspore.numpy's name
    """The sum over `axis` (every axis when None); bools, int8/16/32 and uint8 sum in Int64,
    uint16/32/64 keep their dtype (ops.sum's rule, measured on mindspore.numpy 2.10 too)."""
    x = tensor(a)
    if dtype is not None:
        x = with_dtype(x, dtype)
    elif F._widens_to_int64(x.dtype):
        x = F.cast(x, mstype.int64)
    out = _sum(x, _reduce_axes(x, axis), keepdims)
    if initial is not None:
        out = out + initial
    return out


def _mean(x: Tensor, axis: tuple, keepdims: bool) -> Tensor:
    if not axis:
        return x
    return F.reduce_mean(x, axis, keepdims)


def mean(a, axis=None, keepdims=False, dtype=None) -> Tensor:
    """The mean over `axis`; an integer input's mean is truncated to its dtype (MindSpore 2.10)."""
    x = tensor(a)
    out = _mean(as_float(x), _reduce_axes(x, axis), keepdims)
    if not x.dtype.is_floating and dtype is None:
        out = F.cast(out, x.dtype)
    return with_dtype(out, dtype)


def _extremum(reduce_name, a, axis, keepdims, initial, where):
    x = tensor(a)
    fn = ops.amax if reduce_name == "max" else ops.amin
    axis = _reduce_axes(x, axis)
    if not axis and initial is None and where is None:
        return x
    where = None if where is True else where
    return fn(x, axis, keepdims, initial=initial, where=where)


def amax(a, axis=None, keepdims=False, initial=None, where=True) -> Tensor:
    """The largest element over `axis`; `initial` takes part, `where` masks elements out."""
    return _extremum("max", a, axis, keepdims, initial, where)


def amin(a, axis=None, keepdims=False, initial=None, where=True) -> Tensor:
    return _extremum("min", a, axis, keepdims, initial, where)


max = amax  # noqa: A001 - mindspore.numpy's names
min = amin  # noqa: A001


def ptp(x, axis=None, keepdims=False) -> Tensor:
    """max - min over `axis`."""
    return amax(x, axis, keepdims) - amin(x, axis, keepdims)


def _var(x: Tensor, axis: tuple, ddof, keepdims: bool) -> Tensor:
    # an integer input is centred on its mean truncated to an integer, as MindSpore 2.10 does
    # (mnp.var([1, 0]) is 0.5): mean() truncates integer means
    centre = as_float(mean(x, axis, True))
    x = as_float(x)
    count = 1
    for i in axis:
        count *= x.shape[i]
    centred = x - centre
    return F.reduce_sum(centred * centred, axis, keepdims) / float(count - ddof)


def var(x, axis=None, ddof=0, keepdims=False) -> Tensor:
    """The variance over `axis` with divisor N - ddof; integers in Float32."""
    x = tensor(x)
    return _var(x, _reduce_axes(x, axis), ddof, keepdims)


def std(x, axis=None, ddof=0, keepdims=False) -> Tensor:
    return ops.sqrt(var(x, axis, ddof, keepdims))


# ---- nan-ignoring reductions ----

def _nan_zeroed(a):
    x = tensor(a)
    if not x.dtype.is_floating:
        return x, None
    nan = ops.isnan(x)
    return ops.where(nan, F.zeros_like(x), x), nan


def nansum(a, axis=None, dtype=None, keepdims=False) -> Tensor:
    """The sum over `axis` with NaNs counted as zero; an integer or bool input keeps its dtype
    (MindSpore 2.10, measured: Int8 for int8, Bool for bool), unlike `sum`."""
    x, _ = _nan_zeroed(a)
    out = sum(x, axis, dtype, keepdims)
    return out if dtype is not None or x.dtype.is_floating else F.cast(out, x.dtype)


def _nan_count(x: Tensor, nan, axis: tuple, keepdims: bool) -> Tensor:
    present = F.cast(ops.logical_not(nan), x.dtype) if nan is not None else F.ones_like(as_float(x))
    return _sum(present, axis, keepdims)


def nanmean(a, axis=None, dtype=None, keepdims=False) -> Tensor:
    """The mean over `axis` of the elements that are not NaN."""
    x, nan = _nan_zeroed(a)
    x = as_float(x)
    axis = _reduce_axes(x, axis)
    return with_dtype(_sum(x, axis, keepdims) / _nan_count(x, nan, axis, keepdims), dtype)


def _nan_extremum(a, axis, dtype, keepdims, largest):
    """NaNs left out; where every element is NaN, NaN (numpy's; MindSpore 2.10 gives garbage)."""
    x = tensor(a)
    if not x.dtype.is_floating:
        return with_dtype((amax if largest else amin)(x, axis, keepdims), dtype)
    nan = ops.isnan(x)
    out = (amax if largest else amin)(ops.where(nan, F.full_like(x, float("-inf") if largest else float("inf")), x),
                                      axis, keepdims)
    all_nan = ops.all(nan, axis, keepdims)
    return with_dtype(ops.where(all_nan, F.full_like(out, float("nan")), out), dtype)


def nanmax(a, axis=None, dtype=None, keepdims=False) -> Tensor:
    return _nan_extremum(a, axis, dtype, keepdims, True)


def nanmin(a, axis=None, dtype=None, keepdims=False) -> Tensor:
    return _nan_extremum(a, axis, dtype, keepdims, False)


def nanvar(a, axis=None, dtype=None, ddof=0, keepdims=False) -> Tensor:
    """The variance over `axis` of the elements that are not NaN, divisor count - ddof."""
    x, nan = _nan_zeroed(a)
    x = as_float(x)
    axis = _reduce_axes(x, axis)
    count = _nan_count(x, nan, axis, True)
    centred = x - _sum(x, axis, True) / count
    if nan is not None:
        centred = ops.where(nan, F.zeros_like(centred), centred)
    out = _sum(centred * centred, axis, keepdims) / ((count if keepdims else _sum_squeeze(count, axis)) - ddof)
    return with_dtype(out, dtype)


def _sum_squeeze(count: Tensor, axis: tuple) -> Tensor:
    return F.reshape(count, tuple(s for i, s in enumerate(count.shape) if i not in axis))


def nanstd(a, axis=None, dtype=None, ddof=0, keepdims=False) -> Tensor:
    return with_dtype(ops.sqrt(nanvar(a, axis, None, ddof, keepdims)), dtype)


# ---- cumulative ----

def _cumulative(op, a, axis, dtype, unsigned_to=mstype.int32):
    """Along `axis` (the flattened input when None), in `dtype`, else the input's dtype; bools
    and integers narrower than 32 bits in Int32 (an unsigned one in `unsigned_to`), as
    mindspore.numpy 2.10 (measured)."""
    x = tensor(a)
    if axis is None:
        x, axis = F.reshape(x, (-1,)), 0
    if dtype is not None:
        x = with_dtype(x, dtype)
    elif x.dtype is mstype.bool_ or x.dtype.is_integer and x.dtype.itemsize < 4:
        x = F.cast(x, unsigned_to if x.dtype.np_dtype.kind == "u" else mstype.int32)
    return op(x, one_axis(axis, x.ndim), x.dtype)


def cumsum(a, axis=None, dtype=None) -> Tensor:
    """Running sums along `axis` (of the flattened input when None), in the input's dtype."""
    return _cumulative(ops.cumsum, a, axis, dtype)


def cumprod(a, axis=None, dtype=None) -> Tensor:
    """Running products; an unsigned 8- or 16-bit input in UInt32 (measured)."""
    return _cumulative(ops.cumprod, a, axis, dtype, mstype.uint32)


def nancumsum(a, axis=None, dtype=None) -> Tensor:
    """cumsum with NaNs counted as zero."""
    x, _ = _nan_zeroed(a)
    return cumsum(x, axis, dtype)


def _arg(op, a, axis, index_dtype):
    x = tensor(a)
    if axis is None:
        x, axis = F.reshape(x, (-1,)), 0
    return F.cast(op(x, axis=one_axis(axis, x.ndim)), index_dtype)


def argmax(a, axis=None) -> Tensor:
    """The index of the largest element (of the flattened input when axis is None), Int64."""
    return _arg(ops.argmax, a, axis, mstype.int64)


def argmin(a, axis=None) -> Tensor:
    """The index of the smallest element, Int32 (MindSpore 2.10's argmin and argmax differ)."""
    return _arg(ops.argmin, a, axis, mstype.int32)


def average(x, axis=None, weights=None, returned=False):
    """The weighted mean over `axis` (weights 1-D along `axis`, or shaped like x); with
    returned=True also the sum of the weights, broadcast like the average."""
    x = tensor(x)
    axes = _reduce_axes(x, axis)
    values = as_float(x)
    if weights is None:
        avg = _mean(values, axes, False)
        total = F.full_like(avg, float(_count(x, axes)))
    else:
        w = as_float(weights)
        if w.shape != x.shape:
            if axis is None or not isinstance(axis, numbers.Integral) or w.ndim != 1:
                raise TypeError("Axis must be specified when shapes of x and weights differ.")
            if w.shape[0] != x.shape[axes[0]]:
                raise ValueError("Length of weights not compatible with specified axis.")
            w = F.reshape(w, tuple(-1 if i == axes[0] else 1 for i in range(x.ndim)))
        w = F.broadcast_to(w, x.shape)
        total = _sum(w, axes, False)
        avg = _sum(values * w, axes, False) / total
    if not x.dtype.is_floating:
        avg = F.cast(avg, x.dtype)
    return (avg, total) if returned else avg


def _count(x: Tensor, axes: tuple) -> int:
    n = 1
    for i in axes:
        n *= x.shape[i]
    return n


def count_nonzero(x, axis=None, keepdims=False) -> Tensor:
    """The number of nonzero elements over `axis`, Int32."""
    x = tensor(x)
    nonzero = F.cast(ops.ne(x, F.zeros((), x.dtype)), mstype.int32)
    return _sum(nonzero, _reduce_axes(x, axis), keepdims)


def sometrue(a, axis=None, keepdims=False) -> Tensor:
    """Whether any element over `axis` is nonzero."""
    x = tensor(a)
    axes = _reduce_axes(x, axis)
    nonzero = ops.ne(x, F.zeros((), x.dtype)) if x.dtype is not mstype.bool_ else x
    if not axes:
        return nonzero
    return ops.any(nonzero, axes, keepdims)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None) -> Tensor:
    """The sum of the `offset` diagonal of the (axis1, axis2) planes; integers and bools in
    Int64 (MindSpore 2.10, measured for int8/16/32/64, uint8/16; its Bool result for a bool
    input, the diagonal or-ed, is not copied: numpy sums in Int64 too)."""
    diagonal = ops.diagonal(tensor(a), offset, axis1, axis2)
    if dtype is None and not diagonal.dtype.is_floating:
        dtype = mstype.int64
    return F.reduce_sum(with_dtype(diagonal, dtype), (diagonal.ndim - 1,), False)


def size(a, axis=None) -> int:
    """The number of elements (along `axis`), a Python int."""
    x = tensor(a)
    if axis is None:
        n = 1
        for s in x.shape:
            n *= s
        return n
    return x.shape[one_axis(axis, x.ndim)]

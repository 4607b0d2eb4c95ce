"""Binning of mindspore.numpy: histogram, histogram2d, histogramdd, histogram_bin_edges, digitize,
searchsorted and bincount.

Histograms have a static shape (the bin count is an argument), so they are written with ops and
trace: each sample's bin is a row of comparisons with the edges (the last bin closed on the right,
as numpy's), summed with its weight. Counts and edges are Float32, as MindSpore 2.10 returns them.
bincount's length is the largest value + 1 unless `length` is given, so without it bincount runs
eagerly only.
"""
from __future__ import annotations

import builtins
import numbers

import numpy as np

from .. import dtype as mstype
from .. import ops
from ..ops import functional as F
from ..tensor import Tensor
from ._helpers import as_float, host, tensor


def _edges(values: Tensor, bins, range_) -> Tensor:
    """The bin edges: given ones, or `bins` equal bins over `range_` (the data's span when None)."""
    if not isinstance(bins, numbers.Integral):
        return as_float(bins)
    if bins < 1:
        raise ValueError("`bins` must be positive, when an integer")
    steps = Tensor(np.arange(bins + 1, dtype=np.float32) / bins)
    if range_ is not None:
        lo, hi = float(range_[0]), float(range_[1])
        if lo > hi:
            raise ValueError("max must be larger than min in range parameter.")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        return Tensor(np.linspace(lo, hi, bins + 1).astype(np.float32))
    lo, hi = F.reduce_min(values, (), False), F.reduce_max(values, (), False)
    same = ops.eq(lo, hi)
    lo, hi = ops.where(same, lo - 0.5, lo), ops.where(same, hi + 0.5, hi)
    return lo + (hi - lo) * steps


def _membership(values: Tensor, edges: Tensor) -> Tensor:
    """[N, bins] Float32: 1 where a value falls in a bin ([lo, hi), the last bin [lo, hi])."""
    v = F.reshape(values, (-1, 1))
    lo, hi = F.reshape(edges[:-1], (1, -1)), F.reshape(edges[1:], (1, -1))
    inside = ops.logical_and(ops.ge(v, lo), ops.lt(v, hi))
    last = np.zeros((1, edges.shape[0] - 1), bool)
    last[0, -1] = True
    at_end = ops.logical_and(Tensor(last), ops.eq(v, F.reshape(edges[-1:], (1, 1))))
    return F.cast(ops.logical_or(inside, at_end), mstype.float32)


def histogram_bin_edges(a, bins=10, range=None, weights=None) -> Tensor:  # noqa: A002 - numpy's names
    values = as_float(a)
    return _edges(F.reshape(values, (-1,)), bins, range)


def histogram(a, bins=10, range=None, weights=None, density=False) -> tuple:  # noqa: A002
    """(counts, edges) of the flattened `a`: counts Float32, weighted by `weights`; with
    density=True normalised so that the histogram integrates to 1."""
    values = F.reshape(as_float(a), (-1,))
    edges = _edges(values, bins, range)
    member = _membership(values, edges)
    if weights is not None:
        member = member * F.reshape(F.cast(tensor(weights), mstype.float32), (-1, 1))
    counts = F.reduce_sum(member, (0,), False)
    if density:
        counts = counts / (F.reduce_sum(counts, (), False) * (edges[1:] - edges[:-1]))
    return counts, edges


def histogramdd(sample, bins=10, range=None, weights=None, density=False) -> tuple:  # noqa: A002
    """(counts, [edges per dimension]) of the [N, D] sample."""
    points = as_float(sample)
    if points.ndim == 1:
        points = F.reshape(points, (-1, 1))
    dims = points.shape[1]
    bins = list(bins) if isinstance(bins, (list, tuple)) else [bins] * dims
    ranges = list(range) if range is not None else [None] * dims
    if len(bins) != dims or len(ranges) != dims:
        raise ValueError("The dimension of bins and range must equal the number of dimensions of the sample.")
    edges, members = [], []
    for d in builtins.range(dims):
        column = points[:, d]
        e = _edges(column, bins[d], ranges[d])
        edges.append(e)
        members.append(_membership(column, e))
    joint = members[0]
    if weights is not None:
        joint = joint * F.reshape(F.cast(tensor(weights), mstype.float32), (-1, 1))
    for m in members[1:]:
        joint = F.expand_dims(joint, joint.ndim) * F.reshape(m, (m.shape[0],) + (1,) * (joint.ndim - 1) + (m.shape[1],))
    counts = F.reduce_sum(joint, (0,), False)
    if density:
        volume = None
        for d, e in enumerate(edges):
            width = F.reshape(e[1:] - e[:-1], tuple(-1 if i == d else 1 for i in builtins.range(dims)))
            volume = width if volume is None else volume * width
        counts = counts / (F.reduce_sum(counts, (), False) * volume)
    return counts, edges



def histogram2d(x, y, bins=10, range=None, weights=None, density=False) -> tuple:  # noqa: A002
    """(counts, x edges, y edges) of the points (x[i], y[i])."""
    points = F.stack([F.reshape(as_float(x), (-1,)), F.reshape(as_float(y), (-1,))], 1)
    counts, (x_edges, y_edges) = histogramdd(points, bins, range, weights, density)
    return counts, x_edges, y_edges


def searchsorted(a, v, side="left", sorter=None) -> Tensor:
    """Where each of v would go in the sorted 1-D `a` (after sorting it by `sorter`), Int32."""
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right', got {side!r}")
    sequence = tensor(a)
    if sorter is not None:
        sequence = F.take_in_range(sequence, F.cast(tensor(sorter), mstype.int32), 0)
    values = tensor(v)
    scalar = values.ndim == 0
    if scalar:
        values = F.reshape(values, (1,))
    sequence, values = (F.cast(t, mstype.result_dtype(sequence.dtype, values.dtype)) for t in (sequence, values))
    out = F.cast(ops.searchsorted(sequence, values, right=side == "right"), mstype.int32)
    return F.reshape(out, ()) if scalar else out


def digitize(x, bins, right=False) -> Tensor:
    """The index of the bin each x falls in, for increasing or decreasing `bins`, Int32."""
    values, edges = as_float(x), as_float(bins)
    n = edges.shape[0]
    side = "left" if right else "right"
    rising = searchsorted(edges, values, side=side)
    falling = n - searchsorted(ops.flip(edges, (0,)), values, side=side)
    return ops.where(ops.le(edges[0], edges[n - 1]), rising, falling)


def bincount(x, weights=None, minlength=0, length=None) -> Tensor:
    """The number of times each value 0, 1, ... occurs in the non-negative int x (weighted by
    `weights`), Float32; its length is max(x) + 1 (at least `minlength`), which needs x's values,
    so it runs eagerly only unless `length` fixes it."""
    values = tensor(x)
    if values.dtype.is_floating or values.dtype is mstype.bool_:
        raise TypeError("bincount: x must be of integer type")
    if length is None:
        known = host("bincount", values, "bincount(..., length=n), which has a static output size")
        if known.size and known.min() < 0:
            raise ValueError("bincount: x must be non-negative")
        length = max(int(known.max()) + 1 if known.size else 0, minlength)
    hits = F.cast(ops.eq(F.reshape(values, (-1, 1)), Tensor(np.arange(length, dtype=np.int32).reshape(1, -1),
                                                                values.dtype)), mstype.float32)
    if weights is not None:
        hits = hits * F.reshape(F.cast(tensor(weights), mstype.float32), (-1, 1))
    return F.reduce_sum(hits, (0,), False)

"""Log-step (Hillis-Steele) scans, built from existing primitives.

A scan with an associative `combine(earlier, later)` along an axis of length n takes
ceil(log2 n) steps: step d combines each position with the one d before it (a slice and a
concat shift the operands by d; a constant mask keeps the first d positions as they are).
That is O(n log n) work and O(n) memory where comparing every pair along the axis was n^2 of
both, and every step is ordinary ops, so vmap, grad and both backends follow with no rules.

With `keys` (sorted along the axis), positions combine only within a run of equal keys: a
segmented scan, which the scatters use to reduce each row's writes.

A running maximum, as traced (`log_step_scan((x,), 0, lambda e, l: (F.maximum(e[0], l[0]),))`):

    graph running_max(%x: f32[3]) {
      %0:f32[1] = slice(%x) {limit=(1,), start=(0,), strides=(1,)}
      %1:f32[2] = slice(%x) {limit=(2,), start=(0,), strides=(1,)}
      %2:f32[3] = concatenate(%0, %1) {axis=0}
      %3:f32[3] = max(%2, %x)
      %4:bool[3] = constant() {value=[False,True,True]}
      %5:f32[3] = select(%4, %3, %x)
      %6:f32[2] = slice(%5) {limit=(2,), start=(0,), strides=(1,)}
      %7:f32[1] = slice(%5) {limit=(1,), start=(0,), strides=(1,)}
      %8:f32[3] = concatenate(%6, %7) {axis=0}
      %9:f32[3] = max(%8, %5)
      %10:bool[3] = constant() {value=[False,False,True]}
      %11:f32[3] = select(%10, %9, %5)
      return %11
    }
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..tensor import Tensor
from . import functional as F


def log_step_scan(values: tuple, axis: int, combine: Callable, keys: Tensor | None = None) -> tuple:
    """The inclusive scan of the Tensors `values` (one shape) along `axis`: position i holds
    combine over positions 0..i, folded left to right. `combine(earlier, later)` takes and
    returns tuples like `values` and must be associative. `keys`, 1-D along `axis` and sorted,
    restarts the scan at each change of key."""
    values = tuple(values)
    n = values[0].shape[axis]
    ndim = values[0].ndim
    layout = (n,) + (1,) * (ndim - 1 - axis)     # a mask along `axis`, broadcast over the rest
    step = 1
    while step < n:
        earlier = tuple(_shifted(v, axis, step) for v in values)
        keep = Tensor(np.arange(n).reshape(layout) >= step)   # the first `step` have no partner
        if keys is not None:
            same = F.equal(_shifted(keys, 0, step), keys)
            keep = F.logical_and(keep, F.reshape(same, layout))
        joined = combine(earlier, values)
        values = tuple(F.select(keep, j, v) for j, v in zip(joined, values))
        step *= 2
    return values


def _shifted(x: Tensor, axis: int, step: int) -> Tensor:
    """x moved `step` places along `axis`: position i holds x[i - step]; the first `step`
    positions hold x's first elements (masked by the caller)."""
    n = x.shape[axis]
    return F.concat([F.slice_axis(x, axis, 0, step), F.slice_axis(x, axis, 0, n - step)], axis)

"""Differences, calculus, signals and polynomials of mindspore.numpy: diff, ediff1d, gradient,
trapz, convolve, correlate, interp, unwrap and polyadd/polysub/polymul/polyder/polyint/polyval.

Convolution is a product with a Toeplitz matrix gathered from the kernel (static indices), so it
traces, differentiates and exports like any matmul. polyder, polyint and polyval of integers are
Float32, as in MindSpore 2.10.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from .. import dtype as mstype
from .. import ops
from ..ops import functional as F
from ..tensor import Tensor
from ._helpers import as_float, one_axis, promote, tensor


def diff(a, n=1, axis=-1, prepend=None, append=None) -> Tensor:
    """The n-th differences along `axis`, after joining `prepend` and `append` (scalars broadcast)."""
    x = tensor(a)
    axis = one_axis(axis, x.ndim)
    parts = []
    for extra in (prepend, None, append):
        if extra is None:
            continue
        e = F.cast(tensor(extra), x.dtype)
        if e.ndim == 0:
            e = F.broadcast_to(e, tuple(1 if i == axis else s for i, s in enumerate(x.shape)))
        parts.append(e)
    if prepend is not None or append is not None:
        pieces = ([parts[0]] if prepend is not None else []) + [x] + ([parts[-1]] if append is not None else [])
        x = F.concat(pieces, axis)
    for _ in range(n):
        length = x.shape[axis]
        later, earlier = F.slice_axis(x, axis, 1, length), F.slice_axis(x, axis, 0, length - 1)
        # bools differ where they change (numpy's not_equal; MindSpore 2.10, measured)
        x = ops.not_equal(later, earlier) if x.dtype is mstype.bool_ else later - earlier
    return x


def ediff1d(ary, to_end=None, to_begin=None) -> Tensor:
    """Differences of the flattened array, with `to_begin` and `to_end` joined on."""
    x = F.reshape(tensor(ary), (-1,))
    out = [x[1:] - x[:-1]]
    if to_begin is not None:
        out.insert(0, F.reshape(F.cast(tensor(to_begin), x.dtype), (-1,)))
    if to_end is not None:
        out.append(F.reshape(F.cast(tensor(to_end), x.dtype), (-1,)))
    return F.concat(out, 0)


def _one_gradient(x: Tensor, axis: int, spacing: float) -> Tensor:
    n = x.shape[axis]
    if n < 2:
        raise ValueError("Shape of array too small to calculate a numerical gradient, at least 2 elements are required.")
    head = (F.slice_axis(x, axis, 1, 2) - F.slice_axis(x, axis, 0, 1)) / spacing
    tail = (F.slice_axis(x, axis, n - 1, n) - F.slice_axis(x, axis, n - 2, n - 1)) / spacing
    if n == 2:
        return F.concat([head, tail], axis)
    inner = (F.slice_axis(x, axis, 2, n) - F.slice_axis(x, axis, 0, n - 2)) / (2.0 * spacing)
    return F.concat([head, inner, tail], axis)


def gradient(f, *varargs, axis=None, edge_order=1):
    """Central differences inside, one-sided at the edges, along each axis (scalar spacings); one
    Tensor for one axis, else a list."""
    if edge_order != 1:
        raise NotImplementedError("edge_order != 1 not implemented")
    x = as_float(f)
    if axis is None:
        axes = list(range(x.ndim))
    elif isinstance(axis, numbers.Integral):
        axes = [one_axis(axis, x.ndim)]
    else:
        axes = [one_axis(a, x.ndim) for a in axis]
    if not varargs:
        spacings = [1.0] * len(axes)
    elif len(varargs) == 1:
        spacings = [varargs[0]] * len(axes)
    elif len(varargs) == len(axes):
        spacings = list(varargs)
    else:
        raise TypeError("invalid number of arguments")
    for s in spacings:
        if not isinstance(s, numbers.Number):
            raise TypeError("graphcell.numpy.gradient takes scalar spacings only")
    out = [_one_gradient(x, a, float(s)) for a, s in zip(axes, spacings)]
    return out[0] if len(out) == 1 else out


def trapz(y, x=None, dx=1.0, axis=-1) -> Tensor:
    """The trapezoidal-rule integral of y along `axis`, at points x or spacing dx."""
    y = as_float(y)
    axis = one_axis(axis, y.ndim)
    n = y.shape[axis]
    if x is None:
        d = dx
    else:
        xs = as_float(x)
        d = xs[1:] - xs[:-1] if xs.ndim == 1 else diff(xs, axis=axis)
        if xs.ndim == 1:
            d = F.reshape(d, tuple(-1 if i == axis else 1 for i in range(y.ndim)))
    mid = (F.slice_axis(y, axis, 1, n) + F.slice_axis(y, axis, 0, n - 1)) * d
    return F.reduce_sum(mid, (axis,), False) / 2.0


def _full_convolution(a: Tensor, v: Tensor) -> Tensor:
    """sum_i a[i] v[k - i] for every k of the full output: a Toeplitz matrix of v times a."""
    n, m = a.shape[0], v.shape[0]
    k = np.arange(n + m - 1)[:, None] - np.arange(n)[None, :]
    k = np.where((k >= 0) & (k < m), k, m)          # index m: the zero appended to v
    toeplitz = F.take_in_range(F.concat([v, F.zeros((1,), v.dtype)], 0), Tensor(k.astype(np.int32)), 0)
    return F.reshape(F.matmul(toeplitz, F.reshape(a, (n, 1))), (n + m - 1,))


def _mode_slice(full: Tensor, n: int, m: int, mode: str) -> Tensor:
    if mode == "full":
        return full
    short, long_ = min(n, m), max(n, m)
    if mode == "same":
        start = (short - 1) // 2
        return full[start:start + long_]
    if mode == "valid":
        return full[short - 1:long_]
    raise ValueError(f"mode must be 'full', 'same' or 'valid', got {mode!r}")


def convolve(a, v, mode="full") -> Tensor:
    """The discrete linear convolution of two 1-D sequences (numpy's modes)."""
    a, v = promote(a, v)
    if a.ndim != 1 or v.ndim != 1:
        raise ValueError("object too deep for desired array")
    if a.shape[0] == 0 or v.shape[0] == 0:
        raise ValueError("inputs cannot be empty")
    return _mode_slice(_full_convolution(a, v), a.shape[0], v.shape[0], mode)


def correlate(a, v, mode="valid") -> Tensor:
    """The cross-correlation of two 1-D sequences: convolve(a, v reversed)."""
    a, v = promote(a, v)
    if a.ndim != 1 or v.ndim != 1:
        raise ValueError("object too deep for desired array")
    return convolve(a, ops.flip(v, (0,)), mode)


def interp(x, xp, fp, left=None, right=None) -> Tensor:
    """Piecewise-linear interpolation of (xp, fp) at x (xp increasing); outside, `left`/`right`
    (fp's end values by default)."""
    x, xp, fp = as_float(x), as_float(xp), as_float(fp)
    n = xp.shape[0]
    if n < 2:
        raise ValueError("xp must hold at least two points")
    i = ops.clamp(F.cast(ops.searchsorted(xp, x, right=True), mstype.int32) - 1, 0, n - 2)
    x0, x1 = F.take_in_range(xp, i, 0), F.take_in_range(xp, i + 1, 0)
    y0, y1 = F.take_in_range(fp, i, 0), F.take_in_range(fp, i + 1, 0)
    out = y0 + (x - x0) * (y1 - y0) / (x1 - x0)
    low = fp[0] if left is None else left
    high = fp[n - 1] if right is None else right
    out = ops.where(ops.lt(x, xp[0]), F.broadcast_to(F.cast(tensor(low), out.dtype), out.shape), out)
    return ops.where(ops.gt(x, xp[n - 1]), F.broadcast_to(F.cast(tensor(high), out.dtype), out.shape), out)


def unwrap(p, discont=math.pi, axis=-1) -> Tensor:
    """Phases with jumps over `discont` replaced by their 2*pi complements (numpy's unwrap)."""
    x = as_float(p)
    axis = one_axis(axis, x.ndim)
    n = x.shape[axis]
    dd = diff(x, axis=axis)
    ddmod = ops.remainder(dd + math.pi, 2 * math.pi) - math.pi
    ddmod = ops.where(ops.logical_and(ops.eq(ddmod, -math.pi), ops.gt(dd, 0)), F.full_like(ddmod, math.pi), ddmod)
    correction = ops.where(ops.lt(ops.abs(dd), discont), F.zeros_like(dd), ddmod - dd)
    rest = F.slice_axis(x, axis, 1, n) + ops.cumsum(correction, axis)
    return F.concat([F.slice_axis(x, axis, 0, 1), rest], axis)


# ---- polynomials: coefficients from the highest power down ----

def _poly(p) -> Tensor:
    x = tensor(p)
    if x.ndim != 1:
        raise ValueError("Input must be 1d or non-empty ndarray.")
    return x


def _aligned(a1, a2) -> tuple:
    a, b = promote(_poly(a1), _poly(a2))
    n = max(a.shape[0], b.shape[0])
    return F.pad(a, [(n - a.shape[0], 0)]), F.pad(b, [(n - b.shape[0], 0)])


def polyadd(a1, a2) -> Tensor:
    a, b = _aligned(a1, a2)
    return a + b


def polysub(a1, a2) -> Tensor:
    a, b = _aligned(a1, a2)
    return a - b


def polymul(a1, a2) -> Tensor:
    return convolve(_poly(a1), _poly(a2))


def polyder(p, m=1) -> Tensor:
    """The m-th derivative's coefficients (Float32 for integers)."""
    if m < 0:
        raise ValueError("Order of derivative must be positive (see polyint)")
    x = as_float(_poly(p))
    for _ in range(m):
        n = x.shape[0]
        if n <= 1:
            return F.zeros((0,), x.dtype)
        x = x[:-1] * Tensor(np.arange(n - 1, 0, -1), x.dtype)
    return x


def polyint(p, m=1, k=None) -> Tensor:
    """The m-th antiderivative's coefficients; k: the integration constants (one, or m of them)."""
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    constants = [0.0] * m if k is None else ([k] * m if isinstance(k, numbers.Number) else list(k))
    if len(constants) == 1:   # one constant serves every integration (numpy; MindSpore 2.10, measured)
        constants *= m
    if len(constants) < m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
    x = as_float(_poly(p))
    for i in range(m):
        n = x.shape[0]
        x = F.concat([x / Tensor(np.arange(n, 0, -1), x.dtype), F.full((1,), float(constants[i]), x.dtype)], 0)
    return x


def polyval(p, x) -> Tensor:
    """The polynomial's value at x, by Horner's rule (Float32 for integers)."""
    coeffs = as_float(_poly(p))
    x = as_float(x)
    out = F.zeros_like(x)
    for i in range(coeffs.shape[0]):
        out = out * x + coeffs[i]
    return out

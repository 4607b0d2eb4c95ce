"""mindspore.scipy.fft: dct, idct, dctn and idctn, with MindSpore 2.10's signatures and
results (measured on its CPU build): type II only, and always orthonormal (2.10 gives the
norm='ortho' values whatever `norm` says); `n` / `s` zero-pad or truncate each axis first;
integers give float32.

Each transform is a matmul with the orthonormal DCT-II matrix (its transpose for the inverse)
along the axis, so jit, grad, vmap and ONNX export work unchanged.
"""
from __future__ import annotations

import numpy as np

from .. import dtype as mstype
from ..ops import functional as F
from ..tensor import Tensor

__all__ = ["dct", "idct", "dctn", "idctn"]


def _dct_matrix(n: int, dtype) -> Tensor:
    """C [n, n] with C[k, i] = s_k cos(pi k (2 i + 1) / (2 n)), orthonormal (C^-1 = C^T)."""
    k, i = np.arange(n).reshape(n, 1), np.arange(n).reshape(1, n)
    c = np.cos(np.pi * k * (2 * i + 1) / (2 * n)) * np.sqrt(2.0 / n)
    c[0] /= np.sqrt(2.0)
    return Tensor(c.astype(dtype.np_dtype))


def _resized(x: Tensor, n, axis: int) -> Tensor:
    if n is None or n == x.shape[axis]:
        return x
    if n < x.shape[axis]:
        return F.slice_axis(x, axis, 0, n)
    pads = [(0, 0)] * x.ndim
    pads[axis] = (0, n - x.shape[axis])
    return F.pad(x, pads)


def _transform(x: Tensor, type, n, axis: int, inverse: bool) -> Tensor:  # noqa: A002
    if type != 2:
        raise ValueError("Only dct type II is supported currently.")
    axis = axis % x.ndim
    x = _resized(x, n, axis)
    c = _dct_matrix(x.shape[axis], x.dtype)
    moved = F.swapaxes(x, axis, -1)
    out = F.matmul(moved, c if inverse else F.swapaxes(c, 0, 1))     # y = C x along the axis
    return F.swapaxes(out, axis, -1)


def _float(x) -> Tensor:
    x = F.as_tensor(x)
    return x if x.dtype.is_floating else F.cast(x, mstype.float32)


def dct(x, type=2, n=None, axis=-1, norm=None):  # noqa: A002 - scipy's names
    """The orthonormal type-II DCT along `axis`."""
    return _transform(_float(x), type, n, axis, inverse=False)


def idct(x, type=2, n=None, axis=-1, norm=None):  # noqa: A002
    """The inverse of dct: the orthonormal type-III DCT along `axis`."""
    return _transform(_float(x), type, n, axis, inverse=True)


def _over_axes(x, type, s, axes, inverse):  # noqa: A002
    x = _float(x)
    if axes is None:
        axes = tuple(range(x.ndim)) if s is None else tuple(range(x.ndim - len(s), x.ndim))
    axes = (axes,) if isinstance(axes, int) else tuple(axes)
    sizes = (None,) * len(axes) if s is None else ((s,) if isinstance(s, int) else tuple(s))
    for axis, n in zip(axes, sizes):
        x = _transform(x, type, n, axis, inverse)
    return x


def dctn(x, type=2, s=None, axes=None, norm=None):  # noqa: A002
    """dct over each of `axes` (all by default; the last len(s) with s)."""
    return _over_axes(x, type, s, axes, inverse=False)


def idctn(x, type=2, s=None, axes=None, norm=None):  # noqa: A002
    """idct over each of `axes`."""
    return _over_axes(x, type, s, axes, inverse=True)

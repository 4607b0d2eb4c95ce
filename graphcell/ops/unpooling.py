"""MindSpore 2.10's ops.max_unpool1d/2d/3d: the partial inverse of a max pool with
return_indices. Each value is scattered to its index in a zero plane (flat within L, H*W or
D*H*W, as the pools return them); of repeated indices the last write wins (measured), and the
gradient reaches only that write. Composite (tensor_scatter_elements), so every backend, vmap
and grad follow."""
from __future__ import annotations

import numbers

import numpy as np

from ..tensor import Tensor
from . import functional as F
from .indexing import tensor_scatter_elements
from .pooling import pool_ints
from .scatter_inplace import _known

__all__ = ["max_unpool1d", "max_unpool2d", "max_unpool3d"]


def _output_sizes(op: str, in_sizes, kernel, stride, pads, output_size) -> tuple:
    """The default (in - 1) * stride - 2 * padding + kernel per axis, or `output_size` (the
    spatial sizes, or a full shape whose trailing axes are taken), each within a stride of the
    default (MindSpore's bounds)."""
    default = tuple((n - 1) * s - 2 * p + k for n, k, s, p in zip(in_sizes, kernel, stride, pads))
    if output_size is None or len(output_size) == 0:
        sizes = default
    else:
        if not isinstance(output_size, (tuple, list)) or not all(
                isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in output_size):
            raise TypeError(f"For '{op}', 'output_size' must be a tuple of ints, but got {output_size!r}.")
        if len(output_size) < len(default):
            raise ValueError(f"For '{op}', 'output_size' must hold {len(default)} spatial sizes or a full shape, but "
                             f"got {output_size!r}.")
        sizes = tuple(int(v) for v in output_size[len(output_size) - len(default):])
        low = tuple(d - s for d, s in zip(default, stride))
        high = tuple(d + s for d, s in zip(default, stride))
        if not all(lo < v < hi for v, lo, hi in zip(sizes, low, high)):
            raise ValueError(f"{op}: the spatial sizes of 'output_size' {list(sizes)} must be between {list(low)} and "
                             f"{list(high)} (exclusive).")
    if any(v < 1 for v in sizes):
        raise ValueError(f"For '{op}', the output size {list(sizes)} must be positive.")
    return sizes


def _check_index_range(op: str, indices, plane: int) -> None:
    """Known indices must lie in the output plane [0, plane) (MindSpore 2.10's kernel raises a
    RuntimeError, measured; a compiled graph cannot raise on values and drops them)."""
    known = _known(indices)
    if known is None:
        return
    bad = known[(known < 0) | (known >= plane)]
    if bad.size:
        raise RuntimeError(f"For '{op}', every index must be in [0, {plane}) (flat within the output's spatial "
                           f"plane), but got {int(bad.flat[0])}.")


def _max_unpool(op: str, nsp: int, x, indices, kernel_size, stride, padding, output_size):
    for name, t in (("x", x), ("indices", indices)):
        if not isinstance(t, Tensor):
            raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got {type(t).__name__}.")
    if not indices.dtype.is_integer:
        raise TypeError(f"For '{op}', 'indices' must be int32 or int64, but got {indices.dtype}.")
    if x.ndim not in (nsp + 1, nsp + 2):
        raise ValueError(f"For '{op}', the input must be {nsp + 1}-D or {nsp + 2}-D, but got {x.ndim}-D.")
    if tuple(indices.shape) != tuple(x.shape):
        raise ValueError(f"For '{op}', 'indices' must have the shape of 'x' {list(x.shape)}, but got "
                         f"{list(indices.shape)}.")
    kernel = pool_ints(kernel_size, nsp, "kernel_size", op)
    strides = kernel if stride is None else pool_ints(stride, nsp, "stride", op)
    pads = pool_ints(padding, nsp, "padding", op, 0)
    in_sizes = tuple(x.shape[-nsp:])
    sizes = _output_sizes(op, in_sizes, kernel, strides, pads, output_size)
    lead = tuple(x.shape[:-nsp])
    count, plane = int(np.prod(in_sizes)), int(np.prod(sizes))
    _check_index_range(op, indices, plane)
    values = F.reshape(x, lead + (count,))
    where = F.reshape(indices, lead + (count,))
    zeros = F.zeros(lead + (plane,), x.dtype)
    out = tensor_scatter_elements(zeros, where, values, axis=len(lead))
    return F.reshape(out, lead + sizes)


def max_unpool1d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """[N, C, L] or [C, L] values scattered to `indices` (flat within each output row of length
    (L - 1) * stride - 2 * padding + kernel_size, or output_size's last entry)."""
    return _max_unpool("max_unpool1d", 1, x, indices, kernel_size, stride, padding, output_size)


def max_unpool2d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """[N, C, H, W] or [C, H, W] values scattered to `indices` (flat within each output H*W
    plane); kernel_size, stride and padding an int or (h, w)."""
    return _max_unpool("max_unpool2d", 2, x, indices, kernel_size, stride, padding, output_size)


def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """[N, C, D, H, W] or [C, D, H, W] values scattered to `indices` (flat within each output
    D*H*W volume)."""
    return _max_unpool("max_unpool3d", 3, x, indices, kernel_size, stride, padding, output_size)

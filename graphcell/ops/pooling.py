"""Pooling ops with MindSpore 2.x's names: adaptive average and max pooling (1-D to 3-D), 1-D and
2-D average pooling, power-average (lp) pooling, ops.max_pool2d, max_pool3d and avg_pool3d, and
the window arithmetic that nn's pooling layers share.

Composite: written with the functional layer, so every backend, vmap and grad follow. An adaptive
pool's windows are torch's and MindSpore's, [floor(i*L/O), ceil((i+1)*L/O)) on each axis. Where
they have one length and a constant stride (O divides L, and many other sizes) the pool is one
reduce_window; elsewhere each output's window is gathered onto a new axis (padded to the longest
window by repeating its last element), then reduced.
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from . import functional as F

__all__ = ["adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
           "adaptive_max_pool2d", "adaptive_max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d", "lp_pool1d",
           "lp_pool2d", "max_pool2d", "max_pool3d"]


# -- window arithmetic ------------------------------------------------------------------------

def adaptive_windows(size: int, out: int) -> tuple[list, list]:
    """Each output's window [start, end) over an axis of `size` (torch's and MindSpore's)."""
    starts = [(i * size) // out for i in range(out)]
    ends = [-(-((i + 1) * size) // out) for i in range(out)]
    return starts, ends


def _regular(starts: list, ends: list):
    """(kernel, stride) when the windows are one reduce_window's, else None."""
    lengths = {e - s for s, e in zip(starts, ends)}
    steps = {b - a for a, b in zip(starts, starts[1:])} or {1}
    if len(lengths) != 1 or len(steps) != 1 or min(steps) < 1:
        return None
    return lengths.pop(), steps.pop()


def ceil_extra(size: int, kernel: int, stride: int, lo: int, hi: int) -> int:
    """Extra padding after the input so the last partial window counts (ceil_mode), unless that
    window would start past the input and its leading padding (torch's rule, which MindSpore's
    'pad' mode follows): it would hold padding only."""
    span = size + lo + hi - kernel
    out = -(-span // stride) + 1
    if (out - 1) * stride >= size + lo:
        out -= 1
    return max(0, (out - 1) * stride + kernel - (size + lo + hi))


def pool_output(size: int, kernel: int, stride: int, lo: int, hi: int, dilation: int = 1) -> int:
    """The number of windows along an axis of `size` padded by (lo, hi)."""
    return (size + lo + hi - dilation * (kernel - 1) - 1) // stride + 1


def max_pool_nd(x, kernel: tuple, stride: tuple, pads: tuple, dilation: tuple = None, return_indices=False):
    """Max pooling over the trailing len(kernel) axes of `x`, padded by `pads` ((lo, hi) per axis,
    ceil_mode's extra included; padding never wins). Without dilation or indices: one
    reduce_window. With them: each output's window is gathered from the flattened plane (a
    static table) and argmax picks its first maximum in row-major window order (MindSpore's and
    torch's choice among equals, and where the gradient goes); with return_indices also its
    int64 index into the plane (D*H*W, H*W or L)."""
    nsp = len(kernel)
    dilation = tuple(dilation) if dilation is not None else (1,) * nsp
    lead = x.ndim - nsp
    if not return_indices and all(d == 1 for d in dilation):
        return F.max_pool(x, (1,) * lead + tuple(kernel), (1,) * lead + tuple(stride), ((0, 0),) * lead + tuple(pads))
    table = _window_table(x.shape[lead:], kernel, stride, pads, dilation)
    outs, slots = table.shape[:-1], table.shape[-1]
    plane = F.reshape(x, x.shape[:lead] + (int(np.prod(x.shape[lead:])),))
    picked = F.take_in_range(plane, Tensor(table.astype(np.int32)), lead)        # [..., outs..., slots]
    first = F.argmax(picked, -1, keepdim=True)
    values = F.squeeze(F.gather_elements(picked, picked.ndim - 1, first), -1)
    if not return_indices:
        return values
    offsets = Tensor((np.arange(int(np.prod(outs))) * slots).reshape(outs).astype(np.int64))
    where = F.take_in_range(Tensor(table.reshape(-1).astype(np.int64)), F.add(F.squeeze(first, -1), offsets), 0)
    return values, where


def _window_table(sizes, kernel, stride, pads, dilation) -> np.ndarray:
    """[outputs..., window elements]: the flat index into the plane of each output's window
    elements in row-major order. A padding slot repeats the window's first real element: the
    same value under the same index, so it changes neither the maximum nor the index found."""
    nsp = len(sizes)
    flat, real, outs = np.zeros((), np.int64), np.ones((), bool), []
    plane_strides = [int(np.prod(sizes[i + 1:])) for i in range(nsp)]
    for i, (n, k, s, (lo, hi), d) in enumerate(zip(sizes, kernel, stride, pads, dilation)):
        out = pool_output(n, k, s, lo, hi, d)
        if out < 1:
            raise ValueError(f"pooling: the window {list(kernel)} (dilation {list(dilation)}) is larger than the "
                             f"padded input {list(sizes)}")
        outs.append(out)
        shape = [1] * (2 * nsp)
        shape[i], shape[nsp + i] = out, k
        pos = (np.arange(out)[:, None] * s - lo + np.arange(k)[None, :] * d).reshape(shape)
        flat = flat + pos * plane_strides[i]
        real = real & (pos >= 0) & (pos < n)
    full = tuple(outs) + tuple(kernel)
    flat = np.broadcast_to(flat, full).reshape(-1, int(np.prod(kernel)))
    real = np.broadcast_to(real, full).reshape(flat.shape)
    if not real.any(axis=1).all():
        raise ValueError("pooling: a window holds padding only; padding must be at most half the kernel")
    first = flat[np.arange(len(flat)), real.argmax(axis=1)]
    return np.where(real, flat, first[:, None]).reshape(tuple(outs) + (flat.shape[1],))


def avg_pool(x, window: tuple, strides: tuple, pads: tuple, counted_pads: tuple, divisor_override=None):
    """Average pooling over the trailing len(window) axes of `x`. `pads` ((lo, hi) per pooled
    axis) are the padding applied; `counted_pads` the part of it the divisor counts (the explicit
    padding with count_include_pad, else none): each output divides its window's sum by its real
    elements plus the counted padding inside it (torch's and MindSpore's rule)."""
    lead = x.ndim - len(window)
    full = lambda t, fill: (fill,) * lead + tuple(t)  # noqa: E731
    total = F.sum_pool(x, full(window, 1), full(strides, 1), full(pads, (0, 0)))
    if divisor_override:
        return F.div(total, float(divisor_override))
    if all(p == (0, 0) for p in pads):
        return F.div(total, float(np.prod(window)))
    # The divisors are static, computed here (a graph op over a constant would be folded at
    # compile time, one more compile): the window sums of ones over the input and its counted
    # padding, zeros over the rest of the padding.
    counted = np.pad(np.ones(x.shape[lead:]), counted_pads, constant_values=1)
    counts = np.pad(counted, tuple((lo - clo, hi - chi) for (lo, hi), (clo, chi) in zip(pads, counted_pads)))
    for axis, (k, s) in enumerate(zip(window, strides)):
        starts = range(0, counts.shape[axis] - k + 1, s)
        counts = np.stack([counts.take(range(i, i + k), axis).sum(axis) for i in starts], axis)
    return F.div(total, Tensor(counts.astype(x.dtype.np_dtype)))


# -- adaptive pooling -------------------------------------------------------------------------

def _pool_axis(x, axis: int, out: int, reducer: str):
    """x with `axis` pooled into `out` adaptive windows: their max, or their sum ('sum')."""
    starts, ends = adaptive_windows(x.shape[axis], out)
    regular = _regular(starts, ends)
    if regular is not None:
        kernel, stride = regular
        if kernel == stride == 1:
            return x
        window, steps = [1] * x.ndim, [1] * x.ndim
        window[axis], steps[axis] = kernel, stride
        pool = F.max_pool if reducer == "max" else F.sum_pool
        return pool(x, window, steps, ((0, 0),) * x.ndim)
    longest = max(e - s for s, e in zip(starts, ends))
    index = np.array([[min(s + j, e - 1) for j in range(longest)] for s, e in zip(starts, ends)], np.int32)
    picked = F.take_in_range(x, Tensor(index), axis)                    # [..., out, longest, ...]
    if longest == 1:
        return F.squeeze(picked, axis + 1)
    if reducer == "max":
        # a reduce_window, not reduce_max: the gradient goes to the first maximum of a window
        # (as MaxPool's and torch's), where reduce_max's shares it among equal elements
        window = [1] * picked.ndim
        window[axis + 1] = longest
        pooled = F.max_pool(picked, window, window, ((0, 0),) * picked.ndim)
        return F.squeeze(pooled, axis + 1)
    real = (np.arange(longest)[None, :] < (np.array(ends) - np.array(starts))[:, None])
    real = real.reshape(real.shape + (1,) * (x.ndim - axis - 1))
    return F.reduce_sum(F.select(Tensor(real), picked, 0.0), axis + 1)


def _adaptive(x, sizes: tuple, reducer: str):
    """Adaptive pooling of the trailing len(sizes) axes to `sizes`. The last axis is pooled
    first: separable max pooling then picks the first maximum in row-major order, as torch."""
    nsp = len(sizes)
    lead = x.ndim - nsp
    windows = [adaptive_windows(x.shape[lead + i], o) for i, o in enumerate(sizes)]
    regular = [_regular(*w) for w in windows]
    if all(r == (1, 1) for r in regular):   # output_size is the input's
        return x
    if reducer == "max" and all(r is not None for r in regular):   # one reduce_window
        return F.max_pool(x, (1,) * lead + tuple(r[0] for r in regular), (1,) * lead + tuple(r[1] for r in regular),
                          ((0, 0),) * x.ndim)
    if reducer == "avg":
        summed_in = mstype.float32 if x.dtype is mstype.float16 else x.dtype   # as ops.mean
        y = F.cast(x, summed_in)
        if all(r is not None for r in regular):
            kernels = tuple(r[0] for r in regular)
            return F.cast(avg_pool(y, kernels, tuple(r[1] for r in regular), ((0, 0),) * nsp, ((0, 0),) * nsp),
                          x.dtype)
        for i in reversed(range(nsp)):
            y = _pool_axis(y, lead + i, sizes[i], "sum")
        lengths = [np.array(e) - np.array(s) for s, e in windows]
        counts = lengths[0]
        for more in lengths[1:]:
            counts = np.multiply.outer(counts, more)
        return F.cast(F.div(y, Tensor(counts.astype(summed_in.np_dtype))), x.dtype)
    for i in reversed(range(nsp)):
        x = _pool_axis(x, lead + i, sizes[i], "max")
    return x


def _check_float(x, op: str):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', the input must be a Tensor, but got {type(x).__name__}.")
    if not x.dtype.is_floating:
        raise TypeError(f"For '{op}', the input must be float16, float32 or float64, but got {x.dtype}.")


def _output_size_2d(output_size, shape, op: str) -> tuple:
    """MindSpore's 2-D output_size: an int, or a pair of ints or None (None keeps that axis)."""
    return output_size_nd(output_size, shape, op, 2)


def output_size_nd(output_size, shape, op: str, n: int) -> tuple:
    """An adaptive pool's output_size: an int, or n ints or None (None keeps that axis)."""
    def bad_type():
        kind = "two" if n == 2 else "three"
        return TypeError(f"For '{op}', the 'output_size' must be an int or a tuple of {kind} ints or None, "
                         f"but got {output_size!r}.")
    if isinstance(output_size, bool):
        raise bad_type()
    if isinstance(output_size, numbers.Integral):
        sizes = (output_size,) * n
    elif isinstance(output_size, (tuple, list)):
        if len(output_size) != n:
            raise ValueError(f"For '{op}', the 'output_size' must have {n} entries, but got {len(output_size)}.")
        sizes = tuple(output_size)
    else:
        raise bad_type()
    out = []
    for i, size in enumerate(sizes):
        if size is None:
            out.append(shape[i])
        elif isinstance(size, bool) or not isinstance(size, numbers.Integral):
            raise bad_type()
        elif size < 1:
            raise ValueError(f"For '{op}', the 'output_size[{i}]' must be a positive int or None, but got {size}.")
        else:
            out.append(int(size))
    return tuple(out)


def adaptive_avg_pool2d(input, output_size):  # noqa: A002 - MindSpore's names
    """The average of each adaptive window of the last two axes of a [N, C, H, W] or [C, H, W]
    input (float). `output_size`: an int, or (h, w) where None keeps that axis' size."""
    _check_float(input, "adaptive_avg_pool2d")
    if input.ndim not in (3, 4):
        raise ValueError(f"For 'adaptive_avg_pool2d', the input must be 3-D or 4-D, but got shape {list(input.shape)}.")
    return _adaptive(input, _output_size_2d(output_size, input.shape[-2:], "adaptive_avg_pool2d"), "avg")


def adaptive_max_pool2d(input, output_size, return_indices=False):  # noqa: A002
    """The maximum of each adaptive window of the last two axes of a [N, C, H, W] or [C, H, W]
    input (float); with return_indices, also each maximum's index into the H*W plane (int64,
    the first maximum in row-major order, as torch and MindSpore)."""
    _check_float(input, "adaptive_max_pool2d")
    if input.ndim not in (3, 4):
        raise ValueError(f"For 'adaptive_max_pool2d', the input must be 3-D or 4-D, but got shape {list(input.shape)}.")
    sizes = _output_size_2d(output_size, input.shape[-2:], "adaptive_max_pool2d")
    if not isinstance(return_indices, bool):
        raise TypeError(f"For 'adaptive_max_pool2d', 'return_indices' must be a bool, but got {return_indices!r}.")
    if return_indices:
        return _max_with_indices(input, sizes)
    return _adaptive(input, sizes, "max")


def _check_3d(input, op: str):  # noqa: A002
    _check_float(input, op)
    if input.ndim not in (4, 5):
        raise ValueError(f"For primitive[{op}], the the rank of x must be in [4,5], but got {input.ndim}.")


def adaptive_avg_pool3d(input, output_size):  # noqa: A002
    """The average of each adaptive window of the last three axes of [N, C, D, H, W] or
    [C, D, H, W] (float). `output_size`: an int, or (d, h, w) where None keeps that axis."""
    _check_3d(input, "AdaptiveAvgPool3D")
    return _adaptive(input, output_size_nd(output_size, input.shape[-3:], "adaptive_avg_pool3d", 3), "avg")


def adaptive_max_pool3d(input, output_size, return_indices=False):  # noqa: A002
    """The maximum of each adaptive window of the last three axes of [N, C, D, H, W] or
    [C, D, H, W]; with return_indices also each maximum's index into the D*H*W volume (int32, as
    MindSpore 2.10's; the first maximum in row-major order)."""
    _check_3d(input, "AdaptiveMaxPool3D")
    sizes = output_size_nd(output_size, input.shape[-3:], "adaptive_max_pool3d", 3)
    if not isinstance(return_indices, bool):
        raise TypeError(f"For 'adaptive_max_pool3d', 'return_indices' must be a bool, but got {return_indices!r}.")
    if return_indices:
        return _max_with_indices(input, sizes, mstype.int32)
    return _adaptive(input, sizes, "max")


def _max_with_indices(x, sizes, index_dtype=mstype.int64):
    """The adaptive maxima over the trailing len(sizes) axes and their flat indices into that
    plane (H*W or D*H*W): each output's window (padded by repeating its last element, which never
    wins a tie) gathered from the flattened plane; argmax's first maximum in row-major order picks
    the value and, through a static table, the index."""
    nsp = len(sizes)
    plane = tuple(x.shape[-nsp:])
    windows = [adaptive_windows(n, o) for n, o in zip(plane, sizes)]
    cells = []
    for out in np.ndindex(*sizes):
        ranges = [np.arange(windows[a][0][i], windows[a][1][i]) for a, i in enumerate(out)]
        cells.append(np.ravel_multi_index(np.meshgrid(*ranges, indexing="ij"), plane).reshape(-1))
    longest = max(len(cell) for cell in cells)
    table = np.stack([np.concatenate([cell, np.full(longest - len(cell), cell[-1])]) for cell in cells])
    table = table.reshape(tuple(sizes) + (longest,))
    flat = F.reshape(x, x.shape[:-nsp] + (int(np.prod(plane)),))
    picked = F.take_in_range(flat, Tensor(table.astype(np.int32)), flat.ndim - 1)   # [..., outs..., longest]
    first = F.argmax(picked, -1, keepdim=True)
    values = F.squeeze(F.gather_elements(picked, picked.ndim - 1, first), -1)
    offsets = (np.arange(int(np.prod(sizes))) * longest).reshape(sizes)
    where = F.take_in_range(Tensor(table.reshape(-1).astype(index_dtype.np_dtype)),
                            F.add(F.squeeze(first, -1), Tensor(offsets.astype(np.int64))), 0)
    return values, where


def _check_output_size_1d(output_size, op: str):
    if isinstance(output_size, bool) or not isinstance(output_size, numbers.Integral):
        raise TypeError(f"For '{op}', the type of 'output_size' should be 'int', but got type "
                        f"'{type(output_size).__name__}'.")
    if output_size < 1:
        raise ValueError(f"For '{op}', the 'output_size' must be int and must >= 1, but got '{output_size}'.")


def _check_1d(x, output_size: int, op: str):
    """MindSpore 2.10's 1-D adaptive pools: a 3-D input whose length output_size divides."""
    _check_float(x, op)
    _check_output_size_1d(output_size, op)
    if x.ndim != 3:
        raise ValueError(f"For {op}, the input must has 3 dim, but got {x.ndim}.")
    length = x.shape[-1]
    if length < output_size:
        raise ValueError(f"For {op}, the input's last dimension must be greater or equal to output size "
                         f"{output_size}, but got {length}.")
    if length % output_size:
        raise ValueError(f"For {op}, the input's last dimension must be divisible by output size "
                         f"{output_size}, but got {length}.")


def adaptive_avg_pool1d(input, output_size):  # noqa: A002
    """[N, C, L] -> [N, C, output_size], each the average of L/output_size elements
    (MindSpore 2.10 asks that output_size divide L)."""
    _check_1d(input, output_size, "adaptive_avg_pool1d")
    return _adaptive(input, (int(output_size),), "avg")


def adaptive_max_pool1d(input, output_size):  # noqa: A002
    """[N, C, L] -> [N, C, output_size], each the maximum of L/output_size elements
    (MindSpore 2.10 asks that output_size divide L)."""
    _check_1d(input, output_size, "adaptive_max_pool1d")
    return _adaptive(input, (int(output_size),), "max")


# -- 1-D average pooling ------------------------------------------------------------------------

def _int_arg(value, name: str, op: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"For '{op}', the type of '{name}' should be 'int', but got type '{type(value).__name__}'.")
    if value < minimum:
        raise ValueError(f"For '{op}', '{name}' must be >= {minimum}, but got {value}.")
    return int(value)


def avg_pool1d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False, count_include_pad=True):
    """MindSpore's ops.avg_pool1d over [N, C, L]: `padding` pads both ends (at most half the
    kernel), ceil_mode keeps a last partial window, count_include_pad counts the padding in the
    divisor."""
    op = "avg_pool1d"
    _check_float(input_x, op)
    if input_x.ndim != 3:
        raise ValueError(f"For '{op}', the input must be 3-D [N, C, L], but got shape {list(input_x.shape)}.")
    kernel = _int_arg(kernel_size, "kernel_size", op, 1)
    step = _int_arg(stride, "stride", op, 1)
    if isinstance(padding, (tuple, list)):
        if len(padding) != 1:
            raise ValueError(f"For {op}, padding should be int or tuple of length 1.")
        padding = padding[0]
    pad = _int_arg(padding, "padding", op, 0)
    if 2 * pad > kernel:
        raise ValueError(f"For '{op}', the padding ({pad} at each end) must be at most half the kernel size "
                         f"({kernel}).")
    length = input_x.shape[-1]
    hi = pad + (ceil_extra(length, kernel, step, pad, pad) if ceil_mode else 0)
    if length + pad + hi < kernel:
        raise ValueError(f"For '{op}', the kernel size {kernel} is larger than the padded input length "
                         f"{length + 2 * pad}.")
    counted = ((pad, pad),) if count_include_pad else ((0, 0),)
    return avg_pool(input_x, (kernel,), (step,), ((pad, hi),), counted)


# -- ops.max_pool2d, max_pool3d and avg_pool3d ----------------------------------------------------

def pool_ints(value, n: int, name: str, op: str, low: int = 1) -> tuple:
    """A pooling op's kernel_size, stride, padding or dilation: an int or a tuple of n ints, each
    at least `low` (MindSpore 2.10 refuses lists)."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, tuple)):
        raise TypeError(f"For '{op}', the type of '{name}' should be one of '['int', 'tuple']', but got type "
                        f"'{type(value).__name__}'.")
    values = (int(value),) * n if isinstance(value, numbers.Integral) else value
    if len(values) != n or not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) and v >= low
                                   for v in values):
        kind = "positive" if low else "non-negative"
        raise ValueError(f"For '{op}', '{name}' must be a {kind} int or a tuple of {n} {kind} ints, but got {value}.")
    return tuple(int(v) for v in values)


def check_half_kernel(op: str, pads, kernel) -> None:
    """MindSpore's (and torch's) bound on pooling padding: lo + hi at most the kernel on each axis."""
    if any(lo + hi > k for (lo, hi), k in zip(pads, kernel)):
        raise ValueError(f"For '{op}', the padding must be at most half the kernel size on each axis (the two "
                         f"sides together at most the kernel), but got padding {[tuple(p) for p in pads]} and "
                         f"kernel_size {tuple(kernel)}.")


def with_ceil(sizes, kernel, stride, pads, dilation, ceil_mode: bool) -> tuple:
    """`pads` with ceil_mode's extra padding after each axis (torch's rule: no window that starts
    in the trailing padding), the kernel's dilated extent counted."""
    if not ceil_mode:
        return tuple(pads)
    return tuple((lo, hi + ceil_extra(n, d * (k - 1) + 1, s, lo, hi))
                 for n, k, s, (lo, hi), d in zip(sizes, kernel, stride, pads, dilation))


def _max_pool(op: str, nsp: int, x, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', the input x must be a Tensor, but got {type(x).__name__}.")
    if x.ndim != nsp + 2:
        raise ValueError(f"For '{op}', the input x rank must be equal to {nsp + 2}, but got {x.ndim}.")
    kernel = pool_ints(kernel_size, nsp, "kernel_size", op)
    strides = kernel if stride is None else pool_ints(stride, nsp, "stride", op)
    pads = tuple((p, p) for p in pool_ints(padding, nsp, "padding", op, 0))
    dilation = pool_ints(dilation, nsp, "dilation", op)
    check_half_kernel(op, pads, kernel)
    pads = with_ceil(x.shape[2:], kernel, strides, pads, dilation, bool(ceil_mode))
    return max_pool_nd(x, kernel, strides, pads, dilation, bool(return_indices))


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
    """MindSpore 2.10's ops.max_pool2d over [N, C, H, W]: stride defaults to kernel_size, padding
    (an int or (h, w), at most half the kernel) pads both sides and never wins; with
    return_indices also each maximum's int64 index into its H*W plane (the first among equals)."""
    return _max_pool("max_pool2d", 2, x, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool3d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """MindSpore 2.10's ops.max_pool3d over [N, C, D, H, W]: max_pool2d's rules on three axes (note
    the order: ceil_mode before return_indices); indices into each D*H*W volume."""
    return _max_pool("max_pool3d", 3, x, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def avg_pool3d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=0):
    """MindSpore 2.10's ops.avg_pool3d over [N, C, D, H, W] (float): `padding` an int or six ints
    (head, tail, top, bottom, left, right), the two sides of an axis together at most its kernel;
    the divisor counts each window's real elements, with count_include_pad the explicit padding
    too (never ceil_mode's); a nonzero divisor_override replaces it."""
    op = "avg_pool3d"
    _check_float(input_x, op)
    if input_x.ndim != 5:
        raise ValueError(f"For '{op}', the input must be 5-D [N, C, D, H, W], but got shape {list(input_x.shape)}.")
    kernel = pool_ints(kernel_size, 3, "kernel_size", op)
    strides = pool_ints(stride, 3, "stride", op)
    if isinstance(padding, numbers.Integral) and not isinstance(padding, bool):
        flat = (int(padding),) * 6
    elif isinstance(padding, tuple) and len(padding) == 6:
        flat = padding
    else:
        raise (TypeError if isinstance(padding, list) else ValueError)(
            f"For {op}, padding should be int or tuple of length 6.")
    if not all(isinstance(p, numbers.Integral) and not isinstance(p, bool) and p >= 0 for p in flat):
        raise ValueError(f"For '{op}', the padding must be non-negative ints, but got {padding}.")
    if isinstance(divisor_override, bool) or not isinstance(divisor_override, numbers.Integral) or divisor_override < 0:
        raise ValueError(f"For '{op}', the 'divisor_override' must be int and must >= 0, but got {divisor_override!r}.")
    explicit = tuple(flat[i:i + 2] for i in range(0, 6, 2))
    check_half_kernel(op, explicit, kernel)
    pads = with_ceil(input_x.shape[2:], kernel, strides, explicit, (1, 1, 1), bool(ceil_mode))
    if any(pool_output(n, k, s, lo, hi) < 1 for n, k, s, (lo, hi) in zip(input_x.shape[2:], kernel, strides, pads)):
        raise ValueError(f"For '{op}', the padded input {list(input_x.shape[2:])} is smaller than the kernel {kernel}.")
    counted = explicit if count_include_pad else ((0, 0),) * 3
    return avg_pool(input_x, kernel, strides, pads, counted, int(divisor_override) or None)


def _avg_pool2d_ints(value, name: str, n_allowed: tuple) -> tuple:
    """avg_pool2d's kernel_size, stride (2) or padding (4): an int or a tuple of that length."""
    op = "avg_pool2d"
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return (int(value),) * n_allowed[0]
    if isinstance(value, list):
        raise TypeError(f"For '{op}', the '{name}' must be int, but got 'list'")
    if isinstance(value, tuple) and len(value) in n_allowed:
        return value
    kind = TypeError if not isinstance(value, tuple) else ValueError
    raise kind(f"For {op}, {name} should be int or tuple of length {n_allowed[-1]}.")


def avg_pool2d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=0):
    """MindSpore 2.10's ops.avg_pool2d over [N, C, H, W] (float): avg_pool3d's rules (as 2.10
    computes it, with a depth of 1); `padding` an int or (top, bottom, left, right)."""
    if not isinstance(input_x, Tensor):
        raise TypeError(f"For 'avg_pool2d', the input must be a Tensor, but got {type(input_x).__name__}.")
    if input_x.ndim != 4:
        raise ValueError(f"For primitive[AvgPool3D], the x_rank must be equal to 5, but got {input_x.ndim + 1}.")
    kernel = _avg_pool2d_ints(kernel_size, "kernel_size", (2,))
    strides = _avg_pool2d_ints(stride, "stride", (2,))
    pads = _avg_pool2d_ints(padding, "padding", (4,))
    out = avg_pool3d(F.expand_dims(input_x, 2), (1,) + tuple(kernel), (1,) + tuple(strides), (0, 0) + tuple(pads),
                     ceil_mode, count_include_pad, divisor_override)
    return F.squeeze(out, 2)


def _lp(x, norm_type, op: str):
    if isinstance(norm_type, bool) or not isinstance(norm_type, numbers.Real):
        raise TypeError(f"For {op}, the type of 'norm_type' must be int or float, but got {type(norm_type).__name__}.")
    if norm_type == 0:
        raise ValueError(f"For {op}, the value of 'norm_type' can not be 0.")
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', the input must be a Tensor, but got {type(x).__name__}.")
    return x if x.dtype.is_floating else F.cast(x, mstype.float32)


def _lp_finish(avg, norm_type, window: int):
    """torch's and MindSpore's (sign(a) * relu(|a|) * window)^(1/p) of the windows' average a of
    x^p: a ceil_mode window's partial average is scaled by the full window (measured equal)."""
    total = F.mul(F.mul(F.sign(avg), F.relu(F.abs(avg))), float(window))
    return F.pow(total, 1.0 / norm_type)


def lp_pool1d(x, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum over each window of x^p)^(1/p) along the last axis of [N, C, L] or [C, L]; stride
    defaults to the kernel."""
    x = _lp(x, norm_type, "lp_pool1d")
    squeeze = x.ndim == 2
    y = F.expand_dims(x, 0) if squeeze else x
    step = kernel_size if stride is None else stride
    avg = avg_pool1d(F.pow(y, float(norm_type)), kernel_size, step, 0, ceil_mode)
    out = _lp_finish(avg, norm_type, kernel_size)
    return F.squeeze(out, 0) if squeeze else out


def lp_pool2d(x, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum over each window of x^p)^(1/p) over the last two axes of [N, C, H, W]; stride
    defaults to the kernel."""
    x = _lp(x, norm_type, "lp_pool2d")
    kernel = _avg_pool2d_ints(kernel_size, "kernel_size", (2,))
    step = kernel if stride is None else stride
    avg = avg_pool2d(F.pow(x, float(norm_type)), kernel, step, 0, ceil_mode)
    return _lp_finish(avg, norm_type, int(np.prod(kernel)))

"""Resampling: `ops.interpolate` (and `ops.upsample`, `nn.Upsample`) with MindSpore 2.10's modes.

Every mode but 'area' is one primitive, `resize`, over the trailing len(sizes) axes. Each output
position samples a few input positions with fixed weights (its *taps*), the same for every row,
so the taps are worked out once per shape, in numpy, with the float32 arithmetic MindSpore's
kernels use (measured on MindSpore 2.10; its values are in tests/test_resize.py):

- nearest:        src = min(floor(d * step), n - 1), step = n_in / n_out (float32), or 1 / scale_factor;
- nearest-exact:  src = min(floor((d + 0.5) * step), n - 1);
- linear:         half-pixel, s = step * (d + 0.5) - 0.5 clamped at 0; or with align_corners
                  s = d * (n_in - 1) / (n_out - 1); two taps, floor(s) and the next, weighted by
                  the fraction (torch's values);
- cubic:          TensorFlow's ResizeBicubic, which MindSpore's bicubic is: half-pixel with Keys'
                  kernel (a = -0.5), taps outside the input dropped and the rest renormalised; with
                  align_corners, a = -0.75 read from a 1024-step table (the fraction rounded to
                  1/1024), edge taps repeated. Not torch's (a = -0.75 everywhere): up to 0.23 apart.

The jax lowering gathers each tap along its axis and sums them weighted, the last axis first
(as the kernels do); the gradient is the transposed map, one matrix product per axis. ONNX gets
one Resize where onnxruntime's coordinate arithmetic (emulated here in numpy) picks the same
taps, else the same gathers as XLA.
"""
from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

from .. import dtype as mstype
from ..ir.core import TensorType
from ..tensor import Tensor
from . import batching
from . import functional as F
from .primitive import Primitive, check

__all__ = ["interpolate", "upsample"]

METHODS = ("nearest", "nearest-exact", "linear", "cubic")
_TABLE_STEPS = 1024   # TensorFlow's bicubic coefficient table


# -- taps: where each output samples its input -------------------------------------------------

def _step(n_in: int, n_out: int, align_corners: bool, scale) -> np.float32:
    """Input positions per output position, in float32 as the kernels compute it."""
    f32 = np.float32
    if align_corners:
        return f32(n_in - 1) / f32(n_out - 1) if n_out > 1 else f32(0)
    if scale is not None:
        return f32(1.0 / scale)
    return f32(n_in) / f32(n_out)


def _cubic(t: np.ndarray, a: float) -> np.ndarray:
    """Keys' cubic convolution weights of the taps at -1, 0, 1, 2 for a fraction t in [0, 1)."""
    f32, a = np.float32, np.float32(a)

    def near(x):   # |x| <= 1
        return ((a + f32(2)) * x - (a + f32(3))) * x * x + f32(1)

    def far(x):    # 1 < |x| < 2
        return ((a * x - f32(5) * a) * x + f32(8) * a) * x - f32(4) * a
    one = f32(1)
    return np.stack([far(t + one), near(t), near(one - t), far(f32(2) - t)])


def taps(n_in: int, n_out: int, method: str, align_corners: bool, scale=None) -> tuple[np.ndarray, np.ndarray]:
    """(indices int32 [k, n_out], weights float32 [k, n_out]): output d is
    sum_j x[indices[j, d]] * weights[j, d]."""
    f32 = np.float32
    step = _step(n_in, n_out, align_corners, scale)
    d = np.arange(n_out)
    if method == "nearest":
        src = np.floor(d.astype(f32) * step)
        return np.minimum(src, n_in - 1).astype(np.int32)[None], np.ones((1, n_out), f32)
    if method == "nearest-exact":   # (d + 0.5) in double, the product rounded to float32 (torch's)
        src = np.floor(((d + 0.5) * np.float64(step)).astype(f32))
        return np.minimum(src, n_in - 1).astype(np.int32)[None], np.ones((1, n_out), f32)
    if align_corners:
        s = d.astype(f32) * step
    else:
        s = step * (d.astype(f32) + f32(0.5)) - f32(0.5)
    if method == "linear":
        s = np.maximum(s, f32(0))
        i0 = np.minimum(np.floor(s).astype(np.int64), n_in - 1)
        frac = np.clip(s - i0.astype(f32), f32(0), f32(1))
        i1 = np.minimum(i0 + 1, n_in - 1)
        return np.stack([i0, i1]).astype(np.int32), np.stack([f32(1) - frac, frac])
    base = np.floor(s).astype(np.int64)
    frac = s - base.astype(f32)
    index = base[None] + np.arange(-1, 3)[:, None]
    # the table's entries: the kernel at the fraction rounded to 1/1024
    frac = (np.rint(frac * f32(_TABLE_STEPS)) / _TABLE_STEPS).astype(f32)
    if align_corners:
        weights = _cubic(frac, -0.75)
    else:               # taps outside the input dropped, the rest renormalised
        weights = np.where((index >= 0) & (index < n_in), _cubic(frac, -0.5), f32(0))
        weights = (weights / weights.sum(0, keepdims=True)).astype(f32)
    return np.clip(index, 0, n_in - 1).astype(np.int32), weights.astype(f32)


def _axis_taps(in_shape: tuple, sizes: tuple, method: str, align_corners: bool, scales) -> list:
    lead = len(in_shape) - len(sizes)
    return [taps(in_shape[lead + i], n, method, align_corners, None if scales is None else scales[i])
            for i, n in enumerate(sizes)]


def transfer_matrix(n_in: int, n_out: int, method: str, align_corners: bool, scale=None) -> np.ndarray:
    """The [n_out, n_in] matrix of the resampling of one axis (repeated taps summed)."""
    index, weight = taps(n_in, n_out, method, align_corners, scale)
    m = np.zeros((n_out, n_in), np.float32)
    for j in range(index.shape[0]):
        np.add.at(m, (np.arange(n_out), index[j]), weight[j])
    return m


# -- the primitive ------------------------------------------------------------------------------

def _resize_rule(x: TensorType, *, sizes, method, align_corners, scales) -> TensorType:
    k = len(sizes)
    check(method in METHODS, f"resize: method must be one of {METHODS}, got {method!r}")
    check(1 <= k <= x.ndim, f"resize: {k} output sizes for a rank-{x.ndim} input")
    check(all(n >= 1 for n in sizes) and all(n >= 1 for n in x.shape[x.ndim - k:]),
          f"resize: {x} to sizes {sizes}: every size must be positive")
    check(scales is None or len(scales) == k, "resize: one scale per resized axis")
    check(method.startswith("nearest") or x.dtype.is_floating,
          f"resize: {method} interpolation needs a float input, got {x}")
    return TensorType(x.shape[:x.ndim - k] + tuple(sizes), x.dtype)


def _resize_impl(x, *, sizes, method, align_corners, scales):
    lead = x.ndim - len(sizes)
    for i, (index, weight) in reversed(list(enumerate(_axis_taps(x.shape, sizes, method, align_corners, scales)))):
        axis = lead + i
        if method.startswith("nearest"):
            x = jnp.take(x, index[0], axis=axis)
            continue
        shape = (-1,) + (1,) * (x.ndim - axis - 1)
        terms = [jnp.take(x, index[j], axis=axis) * weight[j].astype(x.dtype).reshape(shape)
                 for j in range(index.shape[0])]
        x = terms[0]
        for term in terms[1:]:
            x = x + term
    return x


resize = Primitive("resize", _resize_rule, _resize_impl)


@resize.def_batch
def _resize_batch(ctx, args, dims, **attrs):
    (x,), (d,) = args, dims
    return resize.bind(batching.move(x, d, 0), **attrs), 0


@resize.def_vjp
def _resize_vjp(ctx, cts, primals, outs, *, sizes, method, align_corners, scales):
    """The transposed map: per resized axis, the cotangent times that axis' matrix."""
    x, ct = primals[0], cts[0]
    lead = x.ndim - len(sizes)
    for i, n in enumerate(sizes):
        axis = lead + i
        m = transfer_matrix(x.shape[axis], n, method, align_corners, None if scales is None else scales[i])
        moved = F.moveaxis(ct, axis, -1)
        ct = F.moveaxis(F.matmul(moved, Tensor(m.astype(x.dtype.np_dtype))), -1, axis)
    return (ct,)


# -- ops.interpolate ------------------------------------------------------------------------------

_MODES = ["nearest", "linear", "bilinear", "bicubic", "area", "nearest-exact", "trilinear"]   # MindSpore's order
_RANKS = {"nearest": (3, 4, 5), "linear": (3,), "bilinear": (4,), "bicubic": (4,), "trilinear": (5,),
          "area": (3, 4, 5), "nearest-exact": (3, 4)}
_METHOD = {"nearest": "nearest", "nearest-exact": "nearest-exact", "linear": "linear", "bilinear": "linear",
           "trilinear": "linear", "bicubic": "cubic"}


def _per_axis_arg(value, name: str, kind: type, spatial: int) -> tuple:
    """interpolate's `size` (kind int) or `scale_factor` (kind float): one positive number, or
    one per spatial axis, with MindSpore 2.10's messages (a bool inside a `size` tuple is
    refused as not positive, a bool alone as not an int)."""
    op, kind_name = "For 'interpolate'", kind.__name__

    def check(v, label: str, element: bool):
        if element and kind is int and isinstance(v, bool):
            raise TypeError(f"{op}, the '{label}' must be int and must > 0, but got '{v}' with type 'bool'.")
        if not isinstance(v, kind) or isinstance(v, bool):
            raise TypeError(f"{op}, the '{label}' must be {kind_name}, but got '{type(v).__name__}'")
        if not v > 0:
            raise ValueError(f"{op}, the '{label}' must be {kind_name} and must > 0, but got '{v}' with type "
                             f"'{kind_name}'.")

    if isinstance(value, (tuple, list)):
        values = tuple(value)
        for i, v in enumerate(values):
            check(v, f"{name}[{i}]", element=True)
    else:
        check(value, name, element=False)
        values = (value,) * spatial
    if len(values) != spatial:
        raise ValueError(f"{op}, 'input' and '{name}' must have the same spatial dimensions, but got 'input' is "
                         f"{spatial}D, '{name}' is {len(values)}D")
    return values


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,  # noqa: A002
                recompute_scale_factor=None) -> Tensor:
    """Resamples the spatial axes (all after the first two) of a [N, C, ...] input to `size`, or
    to floor(in * scale_factor), with MindSpore 2.10's modes: 'nearest' and 'area' (3-D to 5-D
    inputs), 'nearest-exact' (3-D, 4-D), 'linear' (3-D), 'bilinear' and 'bicubic' (4-D),
    'trilinear' (5-D). `align_corners` (linear modes only) maps the corner pixels' centres onto
    each other; otherwise pixel centres are half-pixel aligned. A scale_factor also sets the
    coordinate mapping (1 / scale_factor per step), unless `recompute_scale_factor` asks for
    the one implied by the output size. Nearest modes take any dtype; the rest floats
    (float16 computed in float32).

    MindSpore's CPU kernels refuse a scale_factor without recompute_scale_factor=True in the
    3-D and 4-D modes; graphcell takes it, with the mapping MindSpore's 5-D modes and torch use.
    """
    op = "For 'interpolate'"
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}, 'input' must be a tensor, but got {type(input)}")
    if not isinstance(mode, str) or mode not in _MODES:
        raise ValueError(f"{op}, 'mode' must be in '{_MODES}', but got {mode}")
    if size is not None and scale_factor is not None:
        raise ValueError(f"{op}, 'size' and 'scale_factor' cannot be set simultaneously")
    if size is None and scale_factor is None:
        raise ValueError(f"{op}, 'size' and 'scale_factor' cannot be both empty")
    for name, flag in (("align_corners", align_corners), ("recompute_scale_factor", recompute_scale_factor)):
        if flag is not None and not isinstance(flag, bool):
            raise TypeError(f"{op}, the '{name}' must be a bool, but got {type(flag).__name__}.")
    spatial = max(input.ndim - 2, 0)
    if size is not None:
        if recompute_scale_factor:
            raise ValueError(f"{op}, it is incorrect to set 'recompute_scale_factor' to True after specifying an "
                             f"explicit 'size'.")
        sizes, scales = _per_axis_arg(size, "size", int, spatial), None
    else:
        scales = _per_axis_arg(scale_factor, "scale_factor", float, spatial)
        sizes = tuple(math.floor(n * s) for n, s in zip(input.shape[2:], scales))
        if not all(n > 0 for n in sizes):
            raise ValueError(f"{op}, the output size {sizes} from 'scale_factor' {scale_factor} for an input of "
                             f"spatial shape {input.shape[2:]} must be positive.")
        if recompute_scale_factor:
            scales = None
    if input.ndim not in _RANKS[mode]:
        allowed = list(_RANKS[mode])
        raise ValueError(f"{op}, {mode} only support '{allowed}'D, but got {input.ndim}D")
    if align_corners is not None and mode in ("nearest", "nearest-exact", "area"):
        raise ValueError(f"{op}, 'align_corners' option cannot currently be set with the mode = {mode}, and dim = "
                         f"{input.ndim}D")
    if mode != "nearest" and mode != "nearest-exact" and not input.dtype.is_floating:
        raise TypeError(f"{op}, mode '{mode}' needs a float input, but got {input.dtype}.")
    if mode == "area":
        from . import pooling
        if input.ndim == 3:
            return pooling.adaptive_avg_pool1d(input, sizes[0])
        return pooling._adaptive(input, sizes, "avg")
    align = bool(align_corners)
    if mode == "linear" and sizes[0] == 1:
        align = True   # MindSpore's 1-D linear takes the first element for a single output (measured)
    computed_in = mstype.float32 if input.dtype in (mstype.float16, mstype.bfloat16) else input.dtype
    x = F.cast(input, computed_in) if computed_in is not input.dtype else input
    out = resize.bind(x, sizes=sizes, method=_METHOD[mode], align_corners=align, scales=None if align else scales)
    return F.cast(out, input.dtype) if computed_in is not input.dtype else out


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None,  # noqa: A002
             recompute_scale_factor=None) -> Tensor:
    """MindSpore's ops.upsample: ops.interpolate under another name."""
    return interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor)


"""MindSpore 2.10's ScaleAndTranslate and ExtractGlimpse (TensorFlow's kernels), composed from
existing ops. Values as measured on 2.10's CPU build (tests/test_tf_style_ops.py).

ScaleAndTranslate is TensorFlow's scale_and_translate: output pixel o samples the input at
(o + 0.5) / scale - translate / scale, weighting input pixels within the kernel's radius (times
1 / scale when antialiasing a downscale), the weights normalised to sum to 1 and none for a
sample outside [0, size]. Separable, so it is two products with [out, in] weight matrices
(as ResizeArea); scale and translation must be constant Tensors (they set the weights). The
weights are computed in float32 as TensorFlow's kernel does (a sample at exactly 4.0 rather than
3.99999984 drops a gaussian tap, as 2.10 does); at an exact box-kernel tie (|x| == 0.5) 2.10's
rounding can differ (measured: at one tie 2.10 gives the tap weight 0.5 where this gives 0).

ExtractGlimpse is TensorFlow's ExtractGlimpse (version 1): offsets (y, x) are un-normalised
(times the image size), un-centred (halved, plus half the image), less half the glimpse, then
truncated toward zero; glimpse pixels outside the image are filled with `noise`: 'zero' zeros,
'uniform' draws in [-1, 1) (2.10's range, measured), 'gaussian' draws with each channel's mean
and standard deviation (TensorFlow's; 2.10's draws differ).
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from . import functional as F
from .math_classes import static_ints
from .op_base import Operator, check_bool

__all__: list[str] = []


def _lanczos(radius):
    def kernel(x):
        x = abs(x)
        if x > radius:
            return 0.0
        if x <= 1e-3:
            return 1.0
        return radius * math.sin(math.pi * x) * math.sin(math.pi * x / radius) / (math.pi * math.pi * x * x)
    return kernel, float(radius)


def _gaussian(x):
    radius, sigma = 1.5, 0.5
    x = abs(x)
    return 0.0 if x >= radius else math.exp(-x * x / (2.0 * sigma * sigma))


def _box(x):
    x = abs(x)
    return 1.0 if x < 0.5 else (0.5 if x == 0.5 else 0.0)


def _triangle(x):
    x = abs(x)
    return 1.0 - x if x < 1.0 else 0.0


def _keys_cubic(x):
    x = abs(x)
    if x >= 2.0:
        return 0.0
    if x >= 1.0:
        return ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0
    return (1.5 * x - 2.5) * x * x + 1.0


def _mitchell_cubic(x):
    x = abs(x)
    if x >= 2.0:
        return 0.0
    if x >= 1.0:
        return (((-7.0 / 18.0) * x + 2.0) * x - 10.0 / 3.0) * x + 16.0 / 9.0
    return (((7.0 / 6.0) * x - 2.0) * x) * x + 8.0 / 9.0


_KERNELS = {"lanczos1": _lanczos(1), "lanczos3": _lanczos(3), "lanczos5": _lanczos(5),
            "gaussian": (_gaussian, 1.5), "box": (_box, 1.0), "triangle": (_triangle, 1.0),
            "keyscubic": (_keys_cubic, 2.0), "mitchellcubic": (_mitchell_cubic, 2.0)}


def scale_weights(size_in: int, size_out: int, scale: float, translate: float, kernel_type: str,
                  antialias: bool) -> np.ndarray:
    """[out, in] float32 weights of TensorFlow's scale_and_translate along one axis, in float32
    arithmetic as its kernel: a sample landing a rounding error inside the kernel's radius counts."""
    kernel, radius = _KERNELS[kernel_type]
    f32 = np.float32
    inv_scale = f32(1.0) / f32(scale)
    inv_translate = -inv_scale * f32(translate)
    kernel_scale = max(inv_scale, f32(1.0)) if antialias else f32(1.0)
    reach = f32(radius) * kernel_scale
    w = np.zeros((size_out, size_in), np.float64)
    for o in range(size_out):
        sample = (f32(o) + f32(0.5)) * inv_scale + inv_translate
        if sample < 0 or sample > size_in:
            continue
        start = min(max(math.ceil(sample - reach - f32(0.5)), 0), size_in - 1)
        stop = min(max(math.floor(sample + reach - f32(0.5)), 0), size_in - 1) + 1
        row = [kernel(float((f32(i) + f32(0.5) - sample) * (f32(1.0) / kernel_scale))) for i in range(start, stop)]
        total = sum(row)
        if abs(total) >= 1000 * np.finfo(np.float32).tiny:
            row = [v / total for v in row]
        w[o, start:stop] = row
    return w.astype(np.float32)


def _static_floats(op: str, arg: str, value) -> tuple:
    if not isinstance(value, Tensor) or value.is_symbolic:
        raise TypeError(f"For '{op}', '{arg}' must be a constant float Tensor (known when the graph is built).")
    return tuple(float(v) for v in value.asnumpy().reshape(-1))


class ScaleAndTranslate(Operator):
    """ScaleAndTranslate(kernel_type='lanczos3', antialias=True)(images [B, H, W, C], size (2 ints),
    scale (2 floats), translation (2 floats)) -> float32 [B, size[0], size[1], C]."""

    def __init__(self, kernel_type="lanczos3", antialias=True):
        if not isinstance(kernel_type, str) or kernel_type not in _KERNELS:
            raise ValueError(f"For 'ScaleAndTranslate', the 'kernel_type' must be str and must be in "
                             f"'{list(_KERNELS)}', but got '{kernel_type}'.")
        super().__init__(kernel_type=kernel_type, antialias=check_bool("ScaleAndTranslate", "antialias", antialias))

    def __call__(self, images, size, scale, translation):
        op = "ScaleAndTranslate"
        x = F.as_tensor(images)
        if x.ndim != 4:
            raise ValueError(f"For primitive[{op}], the images's rank' must be equal to 4, but got {x.ndim}.")
        out = static_ints(op, "size", size)
        scales, shifts = _static_floats(op, "scale", scale), _static_floats(op, "translation", translation)
        if len(out) != 2 or len(scales) != 2 or len(shifts) != 2:
            raise ValueError(f"For primitive[{op}], size, scale and translation must each hold 2 values.")
        if min(out) <= 0 or min(scales) <= 0:
            raise ValueError(f"For '{op}', 'size' and 'scale' must be positive, but got {out} and {scales}.")
        wy, wx = (Tensor(scale_weights(x.shape[1 + i], out[i], scales[i], shifts[i], self.kernel_type,
                                       self.antialias)) for i in range(2))
        x = F.cast(x, mstype.float32)
        rows = F.transpose(F.matmul(wy, F.transpose(x, (0, 3, 1, 2))), (0, 1, 3, 2))   # [B, C, W, out_h]
        y = F.matmul(wx, rows)                                                         # [B, C, out_w, out_h]
        return F.transpose(y, (0, 3, 2, 1))


_NOISES = ("uniform", "gaussian", "zero")


def _window_starts(offsets, sizes, glimpse, centered: bool, normalized: bool):
    """The int32 [B] top/left corner of each glimpse, for y then x."""
    starts = []
    for axis in range(2):
        v = F.squeeze(F.slice_axis(offsets, 1, axis, axis + 1), 1)
        if normalized:
            v = F.mul(v, float(sizes[axis]))
        if centered:
            v = F.add(F.div(v, 2.0), sizes[axis] / 2.0)
        v = F.sub(v, glimpse[axis] / 2.0)
        starts.append(F.cast(v, mstype.int32))           # toward zero, as C++'s cast
    return starts


class ExtractGlimpse(Operator):
    """ExtractGlimpse(centered=True, normalized=True, uniform_noise=True, noise='uniform')(x [B, H, W, C],
    size (2 ints), offsets [B, 2] (y, x)) -> [B, size[0], size[1], C]."""

    def __init__(self, centered=True, normalized=True, uniform_noise=True, noise="uniform"):
        op = "ExtractGlimpse"
        if not isinstance(noise, str) or noise not in _NOISES:
            raise ValueError(f"For '{op}', the 'noise' must be str and must be in '{list(_NOISES)}', but got "
                             f"'{noise}'.")
        uniform_noise = check_bool(op, "uniform_noise", uniform_noise)
        if uniform_noise and noise != "uniform":
            raise ValueError(f"For '{op}', the value of 'noise' must be uniform when uniform_noise is True, but got "
                             f"{noise}.")
        super().__init__(centered=check_bool(op, "centered", centered),
                         normalized=check_bool(op, "normalized", normalized), uniform_noise=uniform_noise,
                         noise=noise)

    def __call__(self, x, size, offsets):
        op = "ExtractGlimpse"
        x, offsets = F.as_tensor(x), F.as_tensor(offsets)
        if x.ndim != 4:
            raise ValueError(f"For primitive[{op}], the input x must be 4-D, but got {x.ndim}-D.")
        glimpse = static_ints(op, "size", size)
        if len(glimpse) != 2 or min(glimpse) <= 0:
            raise ValueError(f"For primitive[{op}], the size must hold 2 positive values, but got {glimpse}.")
        if offsets.shape != (x.shape[0], 2):
            raise ValueError(f"For primitive[{op}], the offsets must be [batch, 2], but got {tuple(offsets.shape)}.")
        batch, height, width, channels = x.shape
        y0, x0 = _window_starts(F.cast(offsets, mstype.float32), (height, width), glimpse, self.centered,
                                self.normalized)
        rows = F.add(F.expand_dims(y0, 1), Tensor(np.arange(glimpse[0], dtype=np.int32)))     # [B, gh]
        cols = F.add(F.expand_dims(x0, 1), Tensor(np.arange(glimpse[1], dtype=np.int32)))     # [B, gw]
        row_in = F.logical_and(F.greater_equal(rows, 0), F.less(rows, height))
        col_in = F.logical_and(F.greater_equal(cols, 0), F.less(cols, width))
        rows, cols = F.minimum(F.maximum(rows, 0), height - 1), F.minimum(F.maximum(cols, 0), width - 1)
        picked = F.gather_elements(x, 1, F.broadcast_to(F.reshape(rows, (batch, glimpse[0], 1, 1)),
                                                        (batch, glimpse[0], width, channels)))
        picked = F.gather_elements(picked, 2, F.broadcast_to(F.reshape(cols, (batch, 1, glimpse[1], 1)),
                                                             (batch, glimpse[0], glimpse[1], channels)))
        inside = F.expand_dims(F.logical_and(F.expand_dims(row_in, 2), F.expand_dims(col_in, 1)), -1)
        return F.select(inside, picked, self._fill(x, (batch, *glimpse, channels)))

    def _fill(self, x, shape):
        if self.noise == "zero":
            return F.zeros(shape, x.dtype)
        if self.noise == "uniform":
            return F.cast(F.uniform(shape, -1.0, 1.0), x.dtype)
        work = F.cast(x, mstype.float32)
        mean = F.reduce_mean(work, (1, 2), True)
        std = F.sqrt(F.reduce_mean(F.square(F.sub(work, mean)), (1, 2), True))
        return F.cast(F.add(mean, F.mul(std, F.normal(shape))), x.dtype)

"""MindSpore 2.10's TensorFlow-style image operators, over existing ops: RGBToHSV, HSVToRGB,
AdjustHue, AdjustSaturation, ResizeArea, ExtractVolumePatches and `col2im`. Values, dtypes and
errors as measured on 2.10's CPU build (tests/test_image_ops.py).

HSV is TensorFlow's: hue in [0, 1) (a sixth per colour sector), saturation (max - min) / max,
value max. HSVToRGB reads the colour sector as floor(6 * hue) and paints hues outside [0, 1) in the red
channel only, as 2.10 does (measured).
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from . import functional as F
from . import patches as PT
from .array_classes import Col2Im
from .math_classes import static_ints
from .op_base import Operator, check_bool, exporter

__all__ = ["col2im"]
CLASSES: list[str] = []
_export = exporter(CLASSES)

_FLOATS = (mstype.float16, mstype.float32, mstype.float64)


def _float_image(op: str, x, what: str = "type of input 'images'") -> Tensor:
    x = F.as_tensor(x)
    if x.dtype not in _FLOATS:
        raise TypeError(f"For primitive[{op}], the input argument[{what}] must be a type of {{Tensor[Float16], "
                        f"Tensor[Float32], Tensor[Float64]}}, but got Tensor[{x.dtype}].")
    return x


def _channels(x):
    return [F.squeeze(F.slice_axis(x, -1, i, i + 1), -1) for i in range(3)]


def _rgb_to_hsv(x):
    """float32 [..., 3] RGB -> HSV (TensorFlow's formulas)."""
    r, g, b = _channels(x)
    v = F.maximum(F.maximum(r, g), b)
    spread = F.sub(v, F.minimum(F.minimum(r, g), b))
    s = F.select(F.greater(v, 0.0), F.div(spread, F.select(F.greater(v, 0.0), v, 1.0)), 0.0)
    norm = F.div(1.0 / 6.0, F.select(F.greater(spread, 0.0), spread, 1.0))
    h = F.select(F.equal(r, v), F.mul(F.sub(g, b), norm),
                 F.select(F.equal(g, v), F.add(F.mul(F.sub(b, r), norm), 2.0 / 6.0),
                          F.add(F.mul(F.sub(r, g), norm), 4.0 / 6.0)))
    h = F.select(F.greater(spread, 0.0), h, 0.0)
    h = F.select(F.less(h, 0.0), F.add(h, 1.0), h)
    return h, s, v


def _hsv_to_rgb(h, s, v):
    """float32 H, S, V -> [..., 3] RGB (TensorFlow's formulas; see the module's note)."""
    dh = F.mul(h, 6.0)
    sector = F.floor(dh)
    c = F.mul(v, s)
    m = F.sub(v, c)
    within_two = F.sub(dh, F.mul(F.floor(F.div(dh, 2.0)), 2.0))          # dh mod 2, in [0, 2)
    x = F.mul(c, F.sub(1.0, F.abs(F.sub(within_two, 1.0))))
    zero = F.zeros_like(c)
    # (r, g, b) of sectors 0..5; any other sector: (c, 0, 0)
    table = [(c, x, zero), (x, c, zero), (zero, c, x), (zero, x, c), (x, zero, c), (c, zero, x)]
    out = [c, zero, zero]
    for k, rgb in enumerate(table):
        here = F.equal(sector, float(k))
        out = [F.select(here, new, old) for new, old in zip(rgb, out)]
    return F.stack([F.add(o, m) for o in out], -1)


def _last_is_three(op: str, x, message: str):
    if x.ndim == 0 or x.shape[-1] != 3:
        raise ValueError(message.format(op=op, got=x.shape[-1] if x.ndim else 0))


@_export
class RGBToHSV(Operator):
    """RGB images [..., 3] (floats in [0, 1]) to HSV, in the input's dtype."""

    def __call__(self, images):
        x = _float_image("RGBToHSV", images)
        _last_is_three("RGBToHSV", x, "For primitive[{op}], the last dimension of input 'images' must be equal to 3, "
                                      "but got {got}.")
        return F.cast(F.stack(_rgb_to_hsv(F.cast(x, mstype.float32)), -1), x.dtype)


@_export
class HSVToRGB(Operator):
    """HSV images [N, H, W, 3] to RGB, in the input's dtype."""

    def __call__(self, x):
        x = _float_image("HSVToRGB", x, "x")
        if x.ndim != 4:
            raise ValueError(f"For primitive[HSVToRGB], the the dimension of [x] must be equal to 4, but got {x.ndim}.")
        _last_is_three("HSVToRGB", x, "For primitive[{op}], the the last dimension of the shape of [x] must be equal to "
                                      "3, but got {got}.")
        return F.cast(_hsv_to_rgb(*_channels(F.cast(x, mstype.float32))), x.dtype)


def _adjust_checks(op: str, image, factor, factor_name: str):
    x = _float_image(op, image, "image")
    if not isinstance(factor, Tensor):
        raise TypeError(f"For Primitive[{op}], the type of input argument[{factor_name}] must be Tensor but got "
                        f"{type(factor).__name__}.")
    if factor.dtype != mstype.float32:
        raise TypeError(f"For primitive[{op}], the input argument[{factor_name}] must be a type of {{Tensor[Float32]}}, "
                        f"but got Tensor[{factor.dtype}].")
    return x


@_export
class AdjustHue(Operator):
    """RGB images [..., H, W, 3] with `delta` (a float32 Tensor) added to the hue, modulo 1."""

    def __call__(self, image, delta):
        x = _adjust_checks("AdjustHue", image, delta, "delta")
        if x.ndim < 3:
            raise ValueError(f"For primitive[AdjustHue], the dimension of image must be greater than or equal to 3, but "
                             f"got {x.ndim}.")
        _last_is_three("AdjustHue", x, "For primitive[{op}], the last dimension of image must be equal to 3, but got "
                                       "{got}.")
        h, s, v = _rgb_to_hsv(F.cast(x, mstype.float32))
        h = F.add(h, delta)
        h = F.sub(h, F.floor(h))
        return F.cast(_hsv_to_rgb(h, s, v), x.dtype)


@_export
class AdjustSaturation(Operator):
    """RGB images [..., H, W, 3] with the saturation multiplied by `scale` (a float32 Tensor),
    clipped to [0, 1]."""

    def __call__(self, image, scale):
        op = "AdjustSaturation"
        x = _adjust_checks(op, image, scale, "scale")
        if x.ndim < 3:
            raise ValueError(f"For primitive[{op}], the dimension of {op} input image must be greater than or equal to "
                             f"3, but got {x.ndim}.")
        _last_is_three(op, x, "For primitive[{op}], the last dimension of {op} input image must be equal to 3, but got "
                              "{got}.")
        h, s, v = _rgb_to_hsv(F.cast(x, mstype.float32))
        s = F.minimum(F.maximum(F.mul(s, scale), 0.0), 1.0)
        return F.cast(_hsv_to_rgb(h, s, v), x.dtype)


# -- ResizeArea -------------------------------------------------------------------------------------

def _area_weights(size_in: int, size_out: int, align_corners: bool) -> np.ndarray:
    """[out, in]: how much of input pixel i falls in output pixel o's span [o*scale, (o+1)*scale),
    over scale (TensorFlow's resize_area; spans past the edge reuse the last pixel)."""
    scale = (size_in - 1) / (size_out - 1) if align_corners and size_out > 1 else size_in / size_out
    scale = float(np.float32(scale))
    w = np.zeros((size_out, size_in), np.float64)
    for o in range(size_out):
        start, stop = o * scale, (o + 1) * scale
        v = math.floor(start)
        while v < stop:
            overlap = (min(v + 1, stop) - start) if v < start else (stop - v if v + 1 > stop else 1.0)
            w[o, min(v, size_in - 1)] += overlap
            v += 1
    return (w / scale).astype(np.float32)


@_export
class ResizeArea(Operator):
    """Area resizing of NHWC images to `size` (a Tensor of two ints); float32."""

    def __init__(self, align_corners=False):
        super().__init__(align_corners=check_bool("ResizeArea", "align_corners", align_corners))

    def __call__(self, images, size):
        x = F.as_tensor(images)
        if not isinstance(size, Tensor):
            raise TypeError(f"For Primitive[ResizeArea], the type of input argument[size] must be Tensor but got "
                            f"{type(size).__name__}.")
        if x.ndim != 4:
            raise ValueError(f"For primitive[ResizeArea], the images dimension must be equal to 4, but got {x.ndim}.")
        out = static_ints("ResizeArea", "size", size)
        if len(out) != 2:
            raise ValueError(f"For primitive[ResizeArea], the input1 num must be equal to 2, but got {len(out)}.")
        if min(out) <= 0:
            raise ValueError("For 'ResizeArea', 'size' should only contain positive number.")
        wy = Tensor(_area_weights(x.shape[1], out[0], self.align_corners))
        wx = Tensor(_area_weights(x.shape[2], out[1], self.align_corners))
        x = F.cast(x, mstype.float32)
        rows = F.transpose(F.matmul(wy, F.transpose(x, (0, 3, 1, 2))), (0, 1, 3, 2))   # [N, C, W, out_h]
        y = F.matmul(wx, rows)                                                         # [N, C, out_w, out_h]
        return F.transpose(y, (0, 3, 2, 1))


# -- ExtractVolumePatches -------------------------------------------------------------------------------

def _five(op: str, name: str, value) -> tuple:
    values = static_ints(op, name, value)
    if len(values) == 3:
        values = (1, 1) + values
    if len(values) != 5 or values[0] != 1 or values[1] != 1:
        bad = next((i for i in (0, 1) if len(values) > i and values[i] != 1), 0)
        raise ValueError(f"For '{op}', the '{name}[{bad}]' must be int and must = 1, but got "
                         f"'{values[bad] if len(values) > bad else None}' with type 'int'.")
    if min(values) < 1:
        raise ValueError(f"For '{op}', the '{name}' must be positive, but got {values}.")
    return values


@_export
class ExtractVolumePatches(Operator):
    """The [kd, kh, kw] patches of an NCDHW volume as channels: [N, kd*kh*kw*C, oD, oH, oW],
    kernel position major and channel minor (TensorFlow's layout); 'SAME' pads as TensorFlow."""

    def __init__(self, kernel_size, strides, padding):
        op = "ExtractVolumePatches"
        if not isinstance(padding, str) or padding.upper() not in ("VALID", "SAME"):
            raise ValueError(f"For '{op}', the 'padding' must be str and must be in '['VALID', 'SAME']', but got "
                             f"'{padding}'.")
        super().__init__(kernel_size=_five(op, "kernel_size", kernel_size), strides=_five(op, "strides", strides),
                         padding=padding.upper())

    def __call__(self, input_x):
        x = F.as_tensor(input_x)
        if x.ndim != 5:
            raise ValueError(f"For primitive[ExtractVolumePatches], the input shape must be equal to 5, but got {x.ndim}.")
        kernel, stride = self.kernel_size[2:], self.strides[2:]
        if self.padding == "SAME":
            pads = [F.same_padding(n, k, s, 1) for n, k, s in zip(x.shape[2:], kernel, stride)]
            if any(any(p) for p in pads):
                x = F.pad(x, (*pads[2], *pads[1], *pads[0]))
        else:
            for axis, (n, k) in enumerate(zip(x.shape[2:], kernel), 2):
                if n < k:
                    raise ValueError(f"For primitive[ExtractVolumePatches], the padding = VALID, input[{axis}] - "
                                     f"kernel_size[{axis}] must be greater than or equal to 0, but got {n - k}.")
        out = [(n - k) // s + 1 for n, k, s in zip(x.shape[2:], kernel, stride)]
        pieces = []
        for a in range(kernel[0]):
            depth = F.slice_axis(x, 2, a, a + stride[0] * (out[0] - 1) + 1, stride[0])
            for b in range(kernel[1]):
                rows = F.slice_axis(depth, 3, b, b + stride[1] * (out[1] - 1) + 1, stride[1])
                for c in range(kernel[2]):
                    pieces.append(F.slice_axis(rows, 4, c, c + stride[2] * (out[2] - 1) + 1, stride[2]))
        patches = F.stack(pieces, 1)                                       # [N, kd*kh*kw, C, oD, oH, oW]
        return F.reshape(patches, (x.shape[0], len(pieces) * x.shape[1], *out))


# -- col2im ------------------------------------------------------------------------------------------------

def col2im(input_x, output_size, kernel_size, dilation, padding_value, stride):
    """Im2Col's transpose: [N, C, kh * kw, L] blocks summed back into [N, C, *output_size]
    (ops.Col2Im as a function; note the argument order: dilation, then padding, then stride)."""
    x = F.as_tensor(input_x)
    if x.ndim != 4:
        raise ValueError(f"For primitive[Col2Im], the x dimension must be equal to 4, but got {x.ndim}.")
    op = Col2Im(kernel_size, dilation, padding_value, stride)
    size = static_ints("Col2Im", "output_size", output_size)
    blocks = PT._blocks(size, op.kernel_size, op.dilation, op.padding, op.stride)
    if math.prod(blocks) != x.shape[3] or min(blocks) < 1:
        raise ValueError(f"For 'Col2Im', size of input's 4th dimension must be equal to calculated number of sliding "
                         f"blocks, but got input.size[3]: {x.shape[3]}, calculated number of sliding blocks: "
                         f"{max(blocks[0], 0) * max(blocks[1], 0)}. Please refer to Mindspore official website API docs "
                         "for details about how the number of sliding blocks is calculated.")
    return op(x, size)

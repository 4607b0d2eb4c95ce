"""ops.DeformableOffsets and ops.deformable_conv2d (MindSpore 2.10's, measured on its CPU kernel).

DeformableOffsets(strides, pads, kernel_size, dilations, data_format, deformable_groups,
modulated)(x [N, C, H, W], offsets [N, 3 * dg * kh * kw, Ho, Wo]) -> [N, C, Ho * kh, Wo * kw]:
kernel point (i, j) of output pixel (oh, ow) samples x bilinearly at row
oh * stride_h - pad_top + i * dilation_h + dy and column ow * stride_w - pad_left + j * dilation_w + dx,
times a mask m, into out[n, c, oh * kh + i, ow * kw + j]. The offsets' channels are all the dx
(group-major, then point i * kw + j), then all the dy, then all the masks, the mask taken as it is
(no sigmoid); channel c reads deformable group c // (C / dg); a corner pixel outside x reads zero
(torchvision's deform_conv2d). deformable_conv2d is that, then a convolution with
stride = kernel_size (groups, bias), as 2.10 composes it. Measured on 2.10: a float64 reference
agrees to 1.5e-6 over strides, pads, dilations and deformable groups (tests/test_deformable.py).

Composite (grid_sampling.sample_pixels: gathers and weights), so XLA, ONNX, vmap and grad follow;
the gradient reaches x through the gathers, the offsets through the bilinear weights (floor is
constant almost everywhere) and the mask directly.
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from . import functional as F
from .grid_sampling import sample_pixels
from .op_base import Operator

__all__ = ["deformable_conv2d"]

_OP = "DeformableOffsets"


def _four(name: str, values, what: str):
    if not isinstance(values, tuple):
        raise TypeError(f"For '{_OP}', the type of '{name}' should be 'tuple', but got type '{type(values).__name__}'.")
    if len(values) != 4:
        raise ValueError(f"For '{_OP}', the '{what} size' must be int and must = 4, but got '{len(values)}' with type "
                         f"'int'.")
    return tuple(int(v) for v in values)


def _check_attrs(strides, pads, kernel_size, dilations, data_format, deformable_groups, modulated):
    strides = _four("strides", strides, "strides")
    if strides[:2] != (1, 1):
        raise ValueError(f"For '{_OP}', The N and C dimensions of 'strides' must be set to 1.")
    pads = _four("pads", pads, "pads")
    for p in pads:
        if p < 0:
            raise ValueError(f"For '{_OP}', the element of 'pads' should not be negative number, but got {p}.")
    if not isinstance(kernel_size, tuple):
        raise TypeError(f"For '{_OP}', the type of 'kernel_size' should be 'tuple', but got type "
                        f"'{type(kernel_size).__name__}'.")
    if len(kernel_size) != 2:
        raise ValueError(f"For '{_OP}', the 'kernel_size size' must be int and must = 2, but got "
                         f"'{len(kernel_size)}' with type 'int'.")
    dilations = _four("dilations", dilations, "dilations")
    if dilations[:2] != (1, 1):
        raise ValueError(f"For '{_OP}', The N and C dimensions of 'dilations' must be set to 1.")
    # (2.10 lets a zero stride, dilation or kernel size through to a nonsense output size)
    for name, v in (("strides", strides[2:]), ("dilations", dilations[2:]), ("kernel_size", kernel_size)):
        if min(v) < 1:
            raise ValueError(f"For '{_OP}', the H and W values of '{name}' must be positive, but got {tuple(v)}.")
    if data_format != "NCHW":
        raise ValueError(f"For '{_OP}', only the 'NCHW' data_format is supported, but got {data_format!r}.")
    if isinstance(deformable_groups, bool) or not isinstance(deformable_groups, numbers.Integral):
        raise TypeError(f"For '{_OP}', the type of 'deformable_groups' should be 'int', but got type "
                        f"'{type(deformable_groups).__name__}'.")
    if deformable_groups <= 0:
        raise ValueError(f"For '{_OP}', the 'deformable_groups' must be int and must > 0, but got "
                         f"'{deformable_groups}' with type 'int'.")
    if modulated is not True:
        raise ValueError(f"For '{_OP}', The modulated must be set to True.")
    return strides[2:], pads, tuple(int(k) for k in kernel_size), dilations[2:], int(deformable_groups)


def _check_inputs(x, offsets, pads, kernel, strides, dilations, groups):
    if not isinstance(x, Tensor) or not isinstance(offsets, Tensor) or x.dtype is not offsets.dtype:
        bad, value = ("x", x) if not isinstance(x, Tensor) else ("offsets", offsets)
        raise TypeError(f"The primitive[{_OP}]'s input arguments[offsets, x] must be all tensor and those type must "
                        f"be same. But got input argument[{bad}]:{type(value).__name__}")
    if offsets.dtype not in (mstype.float16, mstype.float32):
        raise TypeError(f"For primitive[{_OP}], the input argument[offsets] must be a type of {{Tensor[Float16], "
                        f"Tensor[Float32]}}, but got Tensor[{offsets.dtype}].")
    for name, t in (("x", x), ("offsets", offsets)):
        if t.ndim != 4:
            raise ValueError(f"For primitive[{_OP}], the {name} shape size must be equal to 4, but got {t.ndim}.")
    channels = x.shape[1]
    if channels % groups:
        raise ValueError(f"For '{_OP}', 'C_in' of input 'x' shape must be divisible by 'deformable_groups', but got "
                         f"'C_in' of input 'x' shape: {channels}, and 'deformable_groups': {groups}.")
    if offsets.shape[1] != 3 * kernel[0] * kernel[1] * groups:
        raise ValueError(f"For '{_OP}', 'C_in' of input 'offsets' shape must be equal to 3 * kernel_height * "
                         f"kernel_width * deformable_groups, but got 'C_in' of input 'offsets' shape: "
                         f"{offsets.shape[1]}, kernel_height: {kernel[0]}, kernel_width: {kernel[1]}, "
                         f"deformable_groups: {groups}.")
    out = tuple((x.shape[2 + a] + pads[2 * a] + pads[2 * a + 1] - dilations[a] * (kernel[a] - 1) - 1) // strides[a] + 1
                for a in range(2))
    if tuple(offsets.shape[2:]) != out:
        raise ValueError(f"For '{_OP}, the H and W dims of offsets input should be equal to the computed H and W dims "
                         f"of the output of deformable_conv2d. But got H and W dims of offsets input: "
                         f"{tuple(offsets.shape[2:])}, computed H and W dims of the output of deformable_conv2d: {out}.")
    return out


def deformable_offsets(x, offsets, strides, pads, kernel, dilations, groups):
    """The checked DeformableOffsets: x [N, C, H, W] sampled at the offset kernel points."""
    (ho, wo) = _check_inputs(x, offsets, pads, kernel, strides, dilations, groups)
    n, c, h, w = x.shape
    kh, kw = kernel
    # offsets -> [3, N * dg, Ho * kh * Wo * kw] in the output's layout (row oh * kh + i, column ow * kw + j)
    o = F.reshape(offsets, (n, 3, groups, kh, kw, ho, wo))
    o = F.reshape(F.transpose(o, (1, 0, 2, 5, 3, 6, 4)), (3, n * groups, ho * kh * wo * kw))
    dx, dy, mask = (F.squeeze(F.slice_axis(o, 0, i, i + 1), 0) for i in range(3))
    rows = (np.arange(ho)[:, None] * strides[0] - pads[0] + np.arange(kh)[None, :] * dilations[0]).reshape(-1, 1)
    cols = (np.arange(wo)[:, None] * strides[1] - pads[2] + np.arange(kw)[None, :] * dilations[1]).reshape(1, -1)
    base_y = np.broadcast_to(rows, (ho * kh, wo * kw)).reshape(-1).astype(x.dtype.np_dtype)
    base_x = np.broadcast_to(cols, (ho * kh, wo * kw)).reshape(-1).astype(x.dtype.np_dtype)
    coords = [F.add(dy, Tensor(base_y)), F.add(dx, Tensor(base_x))]
    flat = F.reshape(x, (n * groups, c // groups, h * w))
    sampled = F.mul(sample_pixels(flat, coords, (h, w)), F.expand_dims(mask, 1))
    return F.reshape(sampled, (n, c, ho * kh, wo * kw))


class DeformableOffsets(Operator):
    """DeformableOffsets(strides, pads, ksize, dilations=(1, 1, 1, 1), data_format='NCHW',
    deformable_groups=1, modulated=True)(x, offsets): see the module's docstring."""

    def __init__(self, strides, pads, ksize, dilations=(1, 1, 1, 1), data_format="NCHW", deformable_groups=1,
                 modulated=True):
        s, p, k, d, g = _check_attrs(strides, pads, ksize, dilations, data_format, deformable_groups, modulated)
        super().__init__(strides=s, pads=p, ksize=k, dilations=d, data_format=data_format, deformable_groups=g,
                         modulated=modulated)

    def __call__(self, x, offsets):
        return deformable_offsets(x, offsets, self.strides, self.pads, self.ksize, self.dilations,
                                  self.deformable_groups)


def deformable_conv2d(x, weight, offsets, kernel_size, strides, padding, bias=None, dilations=(1, 1, 1, 1), groups=1,
                      deformable_groups=1, modulated=True):
    """MindSpore 2.10's ops.deformable_conv2d: DeformableOffsets, then a convolution of the
    sampled [N, C, Ho * kh, Wo * kw] with stride kernel_size, `groups`, and `bias` [C_out]."""
    s, p, k, d, g = _check_attrs(strides, padding, kernel_size, dilations, "NCHW", deformable_groups, modulated)
    sampled = deformable_offsets(x, offsets, s, p, k, d, g)
    out = F.conv2d(sampled, weight, None, stride=k, groups=groups)
    if bias is not None:
        out = F.add(out, F.reshape(bias, (1, -1, 1, 1)))
    return out

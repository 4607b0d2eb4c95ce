"""TensorFlow-derived sliding-window operator classes of MindSpore 2.10: ExtractImagePatches,
Dilation2D and DepthwiseConv2dNative, on NCHW input.

2.10's CPU build runs none of them (ExtractImagePatches and DepthwiseConv2dNative: "Unsupported op
... on CPU"; Dilation2D fails in its own attribute handling, "Cast failed, original value: SAME"),
so the values follow TensorFlow's kernels, which 2.10's documentation describes; the constructors'
normalised attributes and messages are 2.10's (measured). All three are composed of strided
slices, pads and a convolution, so XLA, ONNX, vmap and grad follow.

- ExtractImagePatches: nn.Unfold's patches (ops/patches.py): [N, C, H, W] -> [N, kr * kc * C, oh, ow],
  each patch's kernel row, then column, then channel (TensorFlow's depth order).
- Dilation2D: grayscale dilation, out[n, c, y, x] = max over (i, j) of
  x[n, c, y * sh + i * dh - pad_top, x * sw + j * dw - pad_left] + filter[c, i, j], positions
  outside x left out of the max (TensorFlow's kernel; 'SAME' pads as TensorFlow, the odd pixel
  after). The gradient goes to the maximum's position.
- DepthwiseConv2dNative: a convolution with one group per channel, weight [1, C, kh, kw] (2.10's
  check). With channel_multiplier > 1 2.10 infers C * multiplier output channels from the same
  [1, C, kh, kw] weight, but no kernel computes them, so their values are unknown: refused here.
"""
from __future__ import annotations

import numbers

import numpy as np

from ..tensor import Tensor
from . import functional as F
from .op_base import Operator
from .patches import _blocks, _window_slices, extract_image_patches

__all__: list[str] = []


def _four_list(op: str, name: str, values):
    if not isinstance(values, (list, tuple)):
        raise TypeError(f"For '{op}', the type of '{name}' should be one of '[list of int, tuple of int]', but got "
                        f"{type(values)}.")
    values = tuple(values)
    if len(values) != 4 or values[0] != 1 or values[3] != 1 or any(
            isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 1 for v in values):
        raise ValueError(f"For '{op}', '{name}' must be [1, row, col, 1] with positive row and col, but got "
                         f"{list(values)}.")
    return int(values[1]), int(values[2])


def _check_nchw(op: str, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', the input 'x' must be a Tensor, but got {type(x).__name__}.")
    if x.ndim != 4:
        raise ValueError(f"For '{op}', the input 'x' must be a 4-D Tensor [N, C, H, W], but got {x.ndim}-D.")


class ExtractImagePatches(Operator):
    """ExtractImagePatches(ksizes, strides, rates, padding='valid')(x [N, C, H, W]) ->
    [N, ksize_row * ksize_col * C, out_row, out_col]; `ksizes`, `strides`, `rates` are
    [1, row, col, 1], `padding` "SAME" or "VALID" in any case."""

    def __init__(self, ksizes, strides, rates, padding="VALID"):
        op = "ExtractImagePatches"
        pairs = [_four_list(op, name, v) for name, v in (("ksizes", ksizes), ("strides", strides), ("rates", rates))]
        if not isinstance(padding, str):
            raise TypeError(f"For '{op}', the input 'padding' should be a str, but got {type(padding)}.")
        if padding.upper() not in ("SAME", "VALID"):
            raise ValueError(f"For '{op}', 'padding' must be 'SAME' or 'VALID' (any case), but got {padding!r}.")
        super().__init__(ksizes=pairs[0], strides=pairs[1], rates=pairs[2], padding=padding.upper())

    def __call__(self, x):
        _check_nchw("ExtractImagePatches", x)
        return extract_image_patches(x, self.ksizes, self.strides, self.rates, self.padding.lower())


def _dilation2d_attr(name: str, value) -> tuple:
    """2.10's stride/dilation: an int, (h, w) or (1, 1, h, w), stored as (1, 1, h, w)."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, tuple)):
        raise TypeError(f"For 'Dilation2D', the type of '{name}' should be one of '['int', 'tuple']', but got type "
                        f"'{type(value).__name__}'.")
    values = (value, value) if isinstance(value, numbers.Integral) else value
    if len(values) not in (2, 4) or any(isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 1
                                        for v in values):
        raise ValueError(f"For 'Dilation2D' attr '{name}' should be an positive int number or a tuple of two or four "
                         f"positive int numbers, but got {value}")
    if len(values) == 4 and tuple(values[:2]) != (1, 1):
        raise ValueError(f"For 'Dilation2D' attr '{name}' should be [1, 1, {name}_height, {name}_weigth]when "
                         f"data_format is 'NCHW', but got {value}")
    return (1, 1) + tuple(int(v) for v in values[-2:])


class Dilation2D(Operator):
    """Dilation2D(stride, dilation, pad_mode='SAME', data_format='NCHW')(x [N, C, H, W],
    filter [C, kh, kw]): grayscale morphological dilation (see the module's docstring)."""

    def __init__(self, stride, dilation, pad_mode="SAME", data_format="NCHW"):
        stride, dilation = _dilation2d_attr("stride", stride), _dilation2d_attr("dilation", dilation)
        if not isinstance(pad_mode, str) or pad_mode not in ("VALID", "SAME", "valid", "same"):
            raise ValueError(f"For 'Dilation2D', the 'pad_mode' must be str and must be in "
                             f"'['VALID', 'SAME', 'valid', 'same']', but got '{pad_mode}'.")
        if data_format == "NHWC":
            raise ValueError("For 'Dilation2D', NHWC format is not supported at present.")
        if data_format != "NCHW":
            raise ValueError(f"For 'Dilation2D', the 'data_format' must be 'NCHW', but got '{data_format}'.")
        super().__init__(stride=stride, dilation=dilation, pad_mode=pad_mode.upper(), data_format=data_format)

    def __call__(self, x, filter):  # noqa: A002 - MindSpore's name
        _check_nchw("Dilation2D", x)
        if not isinstance(filter, Tensor) or filter.ndim != 3 or filter.shape[0] != x.shape[1]:
            raise ValueError(f"For 'Dilation2D', 'filter' must be a 3-D Tensor [C, kh, kw] with x's {x.shape[1]} "
                             f"channels, but got {getattr(filter, 'shape', type(filter).__name__)}.")
        if filter.dtype is not x.dtype:
            raise TypeError(f"For 'Dilation2D', 'x' and 'filter' must have one dtype, but got {x.dtype} and "
                            f"{filter.dtype}.")
        kernel, stride, rate = tuple(filter.shape[1:]), self.stride[2:], self.dilation[2:]
        if self.pad_mode == "SAME":
            pads = [F.same_padding(size, k, s, d) for size, k, s, d in zip(x.shape[2:], kernel, stride, rate)]
            # outside positions are left out of the max: padded with -inf
            x = F.pad(x, (*pads[1], *pads[0]), value=float("-inf")) if any(any(p) for p in pads) else x
        out = _blocks(tuple(x.shape[2:]), kernel, rate, (0, 0), stride)
        if min(out) < 1:
            raise ValueError(f"For 'Dilation2D', the input's spatial size {tuple(x.shape[2:])} is smaller than the "
                             f"dilated filter of size {kernel} and dilation {rate}.")
        taps = [F.add(window, F.reshape(F.slice_axis(F.slice_axis(filter, 1, i, i + 1), 2, j, j + 1),
                                        (1, x.shape[1], 1, 1)))
                for window, (i, j) in zip(_window_slices(x, kernel, rate, stride, out), np.ndindex(*kernel))]
        return F.reduce_max(F.stack(taps, 0), 0) if len(taps) > 1 else taps[0]


def _pair_attr(name: str, value) -> tuple:
    values = (value, value) if isinstance(value, numbers.Integral) and not isinstance(value, bool) else value
    if not isinstance(values, tuple) or len(values) != 2 or any(
            isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 1 for v in values):
        raise ValueError(f"For 'DepthwiseConv2dNative' attr '{name}' must be an positive int number or a tuple of two "
                         f"positive int numbers, but got {value}")
    return tuple(int(v) for v in values)


class DepthwiseConv2dNative(Operator):
    """DepthwiseConv2dNative(channel_multiplier, kernel_size, mode=3, pad_mode='valid', pad=0,
    stride=1, dilation=1, group=1)(x [N, C, H, W], weight [1, C, kh, kw]) -> [N, C, oh, ow]."""

    def __init__(self, channel_multiplier, kernel_size, mode=3, pad_mode="valid", pad=0, stride=1, dilation=1,
                 group=1):
        op = "DepthwiseConv2dNative"
        if isinstance(channel_multiplier, bool) or not isinstance(channel_multiplier, numbers.Integral) \
                or channel_multiplier <= 0:
            raise ValueError(f"For '{op}', the 'channel_multiplier' must be int and must > 0, but got "
                             f"'{channel_multiplier}' with type '{type(channel_multiplier).__name__}'.")
        kernel = _pair_attr("kernel_size", kernel_size)
        if mode != 3:
            raise ValueError(f"For '{op}', the 'mode' must be int and must = 3, but got '{mode}' with type "
                             f"'{type(mode).__name__}'.")
        if not isinstance(pad_mode, str) or pad_mode.lower() not in ("valid", "same", "pad"):
            raise ValueError(f"For '{op}', the 'pad_mode' must be str and must be in '['valid', 'same', 'pad']', but "
                             f"got '{pad_mode}'.")
        pads = (pad,) * 4 if isinstance(pad, numbers.Integral) else tuple(pad)
        if len(pads) != 4 or any(p < 0 for p in pads):
            raise ValueError(f"For '{op}', 'pad' must be a non-negative int or a tuple of four, but got {pad}.")
        if pad_mode.lower() != "pad" and any(pads):
            raise ValueError(f"For '{op}', the 'pad' must be zero or (0, 0, 0, 0) when 'pad_mode' is not \"pad\", "
                             f"but got 'pad' is {pad} and 'pad_mode' is {pad_mode}.")
        strides = _pair_attr("stride", stride)
        if strides[0] != strides[1]:
            raise ValueError(f"The height and width of 'stride' must be equal,but got height:{strides[0]},  "
                             f"width:{strides[1]}")
        dilations = _pair_attr("dilation", dilation)
        super().__init__(channel_multiplier=int(channel_multiplier), kernel_size=kernel, mode=3,
                         pad_mode=pad_mode.lower(), pad=pads, stride=(1, 1) + strides, dilation=(1, 1) + dilations,
                         group=group)

    def __call__(self, x, weight):
        op = "DepthwiseConv2dNative"
        _check_nchw(op, x)
        if not isinstance(weight, Tensor) or weight.ndim != 4:
            raise ValueError(f"For '{op}', 'weight' must be a 4-D Tensor [1, C, kh, kw].")
        if weight.shape[0] != 1:
            raise ValueError(f"For '{op}', the batch of 'weight' must be 1, but got {weight.shape[0]}")
        if weight.shape[1] != x.shape[1]:
            raise ValueError(f"For '{op}', the 'x_shape[1]' should be = w_shape[1]: {weight.shape[1]}, but got "
                             f"{x.shape[1]}.")
        if tuple(weight.shape[2:]) != self.kernel_size:
            raise ValueError(f"For '{op}', the 'kernel_size' should be = w_shape[2:4]: {tuple(weight.shape[2:])}, but "
                             f"got {self.kernel_size}.")
        if self.channel_multiplier != 1:
            raise ValueError(f"For '{op}', channel_multiplier {self.channel_multiplier} has no defined values: "
                             f"the weight [1, C, kh, kw] holds one filter per channel and MindSpore 2.10 has no "
                             f"kernel that computes more (use ops.Conv2D with group=C).")
        channels = x.shape[1]
        filters = F.reshape(weight, (channels, 1) + self.kernel_size)
        padding = ((self.pad[0], self.pad[1]), (self.pad[2], self.pad[3]))
        return F.conv2d(x, filters, None, stride=self.stride[2:], pad_mode=self.pad_mode, padding=padding,
                        dilation=self.dilation[2:], groups=channels)

"""Conv2d with MindSpore's pad modes ('same' puts the odd extra row bottom/right)."""
from __future__ import annotations

import math

from ...ops import functional as F
from ..cell import Cell
from ._init import default_bias_init, default_weight_init, make_param


def _pair(v, name):
    if isinstance(v, int):
        return (v, v)
    v = tuple(v)
    if len(v) != 2:
        raise ValueError(f"{name} must be an int or a pair, got {v}")
    return v


same_padding = F.same_padding


def explicit_padding(pad_mode: str, padding, spatial, kernel, stride, dilation, op="Conv2D"):
    """((top, bottom), (left, right)) for MindSpore's pad_mode and padding arguments."""
    mode = pad_mode.lower()
    if mode not in ("same", "valid", "pad"):
        raise ValueError(f"For '{op}', pad_mode must be 'same', 'valid' or 'pad', got {pad_mode!r}")
    pads = (padding,) * 4 if isinstance(padding, int) else tuple(padding)
    if len(pads) != 4:
        raise ValueError(f"For '{op}', padding must be an int or (top, bottom, left, right)")
    if mode != "pad" and any(pads):
        raise ValueError(f"For '{op}', the 'pad' must be zero when 'pad_mode' is not 'pad', but got "
                         f"'pad': {padding} and 'pad_mode': {pad_mode}.")
    if mode == "valid":
        return ((0, 0), (0, 0))
    if mode == "pad":
        return ((pads[0], pads[1]), (pads[2], pads[3]))
    return tuple(same_padding(spatial[i], kernel[i], stride[i], dilation[i]) for i in range(2))


def check_data_format(layer: str, data_format: str) -> None:
    """Layers compute in NCHW only; NHWC is refused rather than computed over the wrong axes."""
    if data_format != "NCHW":
        raise ValueError(f"{layer}: only data_format='NCHW' is supported, got {data_format!r}; "
                         "transpose the input with ops.transpose(x, (0, 3, 1, 2))")


class Conv2d(Cell):
    """2-D convolution over NCHW input; weight [out, in/group, kh, kw]; no bias by default."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0,
                 dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
                 data_format="NCHW", dtype="float32"):
        super().__init__()
        check_data_format("Conv2d", data_format)
        if in_channels % group or out_channels % group:
            raise ValueError(f"Conv2d: group={group} must divide in_channels={in_channels} and "
                             f"out_channels={out_channels}")
        self.in_channels, self.out_channels, self.group, self.has_bias = in_channels, out_channels, group, has_bias
        self.kernel_size = _pair(kernel_size, "kernel_size")
        self.stride = _pair(stride, "stride")
        self.dilation = _pair(dilation, "dilation")
        self.pad_mode, self.padding = pad_mode, padding
        explicit_padding(pad_mode, padding, (1, 1), self.kernel_size, self.stride, self.dilation)  # validate
        shape = (out_channels, in_channels // group, *self.kernel_size)
        self.weight = make_param(weight_init if weight_init is not None else default_weight_init(),
                                 shape, "weight", dtype)
        self.bias = None
        if has_bias:
            fan_in = (in_channels // group) * math.prod(self.kernel_size)
            self.bias = make_param(bias_init if bias_init is not None else default_bias_init(fan_in),
                                   (out_channels,), "bias", dtype)

    def construct(self, x):
        self.check_input(x, rank=4, what="input [N, C, H, W]")
        self.check_input(x, axis=1, size=self.in_channels, what=f"input (in_channels={self.in_channels})",
                         dtype=self.weight.dtype)
        pads = explicit_padding(self.pad_mode, self.padding, x.shape[2:], self.kernel_size,
                                self.stride, self.dilation)
        out = F.conv2d_padded(x, self.weight, self.stride, pads, self.dilation, self.group)
        if self.has_bias:
            out = F.add(out, F.reshape(self.bias, (1, -1, 1, 1)))
        return out

    def extend_repr(self):
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}, "
                f"padding={self.padding}, dilation={self.dilation}, group={self.group}, "
                f"has_bias={self.has_bias}")

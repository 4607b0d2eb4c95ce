"""MindSpore 2.10's convolution layers: Conv1d, Conv2d, Conv3d, Conv1dTranspose, Conv2dTranspose,
Conv3dTranspose.

Pad modes as MindSpore's ('same' puts the odd extra row bottom/right). Parameters are stored as
MindSpore stores them, so checkpoints interchange: Conv2d weight [out, in/group, kh, kw],
Conv2dTranspose [in, out/group, kh, kw], Conv3d [out, in/group, kd, kh, kw], Conv3dTranspose
[in, out/group, kd, kh, kw], and the 1-D layers keep a height-1 kernel axis,
Conv1d [out, in/group, 1, k] and Conv1dTranspose [in, out/group, 1, k] (MindSpore computes them
as 2-D convolutions of height 1; graphcell drops the axis and convolves in 1-D).
"""
from __future__ import annotations

import math

import numpy as np

from ...ops import functional as F
from ...ops.convolution import (_check_3d_transpose_args, conv3d_transpose_padded, conv_padded,
                                conv_transpose_padded, transposed_extent)
from ..cell import Cell
from ._init import default_bias_init, default_weight_init, make_param


def _pair(v, name):
    if isinstance(v, int):
        return (v, v)
    v = tuple(v)
    if len(v) != 2:
        raise ValueError(f"{name} must be an int or a pair, got {v}")
    return v


def _conv_pair(layer: str, name: str, value) -> tuple:
    """A 2-D layer's kernel_size, stride or dilation: an int or two, each > 0 (MindSpore 2.10's
    checks and messages)."""
    if isinstance(value, bool) or not isinstance(value, (int, tuple)):
        raise TypeError(f"When expanding an int number to tuple, input type must be integer or tuple[int], "
                        f"but got {type(value)}")
    values = (value, value) if isinstance(value, int) else value
    if len(values) != 2:
        raise TypeError(f"When expanding an int number to tuple, input tuple dimension must be 2, but got {value}")
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
            raise ValueError(f"For '{layer}', the '{name} item' must be int and must > 0, but got '{v}' with type "
                             f"'{type(v).__name__}'.")
    return values


def _check_conv2d_args(layer: str, in_channels, out_channels, padding, group) -> None:
    """The channel, padding and group checks MindSpore 2.10's 2-D layers make, with its messages."""
    for name, value in (("in_channels", in_channels), ("out_channels", out_channels), ("group", group)):
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ValueError(f"For '{layer}', the '{name}' must be int and must > 0, but got '{value}' with type "
                             f"'{type(value).__name__}'.")
    if isinstance(padding, int) and not isinstance(padding, bool):
        if padding < 0:
            raise ValueError(f"For '{layer}', the 'padding' must be int and must >= 0, but got '{padding}' with "
                             f"type 'int'.")
    elif isinstance(padding, tuple):
        if len(padding) != 4:
            what = ("'Conv2dTranspose', the 'padding size'" if layer == "Conv2dTranspose" else "'Conv2D', the 'pad size'")
            raise ValueError(f"For {what} must be int and must = 4, but got '{len(padding)}' with type 'int'.")
        for p in padding:
            if isinstance(p, bool) or not isinstance(p, int) or p < 0:
                raise ValueError(f"For '{layer}', the 'padding item' must be int and must >= 0, but got '{p}' with "
                                 f"type '{type(p).__name__}'.")
    else:
        raise TypeError(f"For '{layer}', the type of 'padding' should be one of '['int', 'tuple']', but got type "
                        f"'{type(padding).__name__}'.")


def _check_group_divides(layer: str, in_channels: int, out_channels: int, group: int) -> None:
    """MindSpore 2.10's divisibility messages: the transposed layers name the attribute."""
    if layer.endswith("Transpose"):
        for name, value in (("attr 'in_channels'", in_channels), ("'out_channels'", out_channels)):
            if value % group:
                raise ValueError(f"For '{layer}', the {name} must be divisible by attr 'group', but got "
                                 f"{name.split()[-1]}: {value} and 'group': {group}.")
    elif in_channels % group or out_channels % group:
        raise ValueError(f"The argument 'group' should be divisible by 'in_channels' and 'out_channels', but got "
                         f"group:{group}, in_channels:{in_channels}, out_channels:{out_channels}.")


def _pad_mode_message(layer: str, pad_mode) -> str:
    return (f"For '{layer}', the 'pad_mode' must be str and must be in '['valid', 'same', 'pad']', "
            f"but got '{pad_mode}'.")


same_padding = F.same_padding


def explicit_padding(pad_mode: str, padding, spatial, kernel, stride, dilation, op="Conv2D"):
    """((top, bottom), (left, right)) for MindSpore's pad_mode and padding arguments."""
    mode = pad_mode.lower() if isinstance(pad_mode, str) else pad_mode
    if mode not in ("same", "valid", "pad"):
        raise ValueError(_pad_mode_message(op, pad_mode))
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


def conv_params(cell, weight_shape, out_channels, has_bias, weight_init, bias_init, dtype) -> None:
    """`cell.weight` and `cell.bias` as MindSpore's _Conv makes them, in its draw order: weight
    HeUniform(sqrt 5) unless given; with has_bias, bias U(+-1/sqrt(fan_in)) unless given, fan_in
    = weight_shape[1] * prod(kernel) of the stored weight (so (out/group)*k for a transposed
    layer); without, bias is None."""
    # the initializers used are kept, as MindSpore keeps them (its repr prints them)
    cell.weight_init = weight_init if weight_init is not None else default_weight_init()
    cell.weight = make_param(cell.weight_init, weight_shape, "weight", dtype)
    cell.bias, cell.bias_init = None, bias_init
    if has_bias:
        fan_in = weight_shape[1] * math.prod(weight_shape[2:])
        if bias_init is None:
            cell.bias_init = default_bias_init(fan_in)
        cell.bias = make_param(cell.bias_init, (out_channels,), "bias", dtype)


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
        _check_conv2d_args("Conv2d", in_channels, out_channels, padding, group)
        self.kernel_size = _conv_pair("Conv2d", "kernel_size", kernel_size)
        self.stride = _conv_pair("Conv2d", "stride", stride)
        self.dilation = _conv_pair("Conv2d", "dilation", dilation)
        _check_group_divides("Conv2d", in_channels, out_channels, group)
        self.in_channels, self.out_channels, self.group, self.has_bias = in_channels, out_channels, group, has_bias
        self.pad_mode, self.padding = pad_mode, padding
        self.weight_init, self.bias_init, self.format = weight_init, bias_init, data_format
        explicit_padding(pad_mode, padding, (1, 1), self.kernel_size, self.stride, self.dilation)  # validate
        conv_params(self, (out_channels, in_channels // group, *self.kernel_size), out_channels, has_bias,
                    weight_init, bias_init, dtype)

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
        return _conv_repr(self)


def _conv_repr(cell, data_format: str = "NCHW") -> str:
    """MindSpore 2.10's printed arguments of a convolution layer (output_padding is not among them)."""
    return (f"input_channels={cell.in_channels}, output_channels={cell.out_channels}, "
            f"kernel_size={cell.kernel_size}, stride={cell.stride}, pad_mode={cell.pad_mode}, "
            f"padding={cell.padding}, dilation={cell.dilation}, group={cell.group}, "
            f"has_bias={cell.has_bias}, weight_init={cell.weight_init}, bias_init={cell.bias_init}, "
            f"format={data_format}")


def _int_arg(layer: str, name: str, value, low: int) -> int:
    """The 1-D layers take plain ints (MindSpore 2.10's TypeError for a tuple)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For '{layer}', the type of '{name}' should be 'int', but got type "
                        f"'{type(value).__name__}'.")
    if value < low:
        raise ValueError(f"For '{layer}', the '{name}' must be int and must >= {low}, but got '{value}' with type "
                         f"'int'.")
    return value


def _check_group(layer: str, in_channels: int, out_channels: int, group: int) -> None:
    if not isinstance(group, int) or isinstance(group, bool) or group < 1:
        raise ValueError(f"For '{layer}', the 'group' must be int and must > 0, but got '{group}' with type "
                         f"'{type(group).__name__}'.")
    _check_group_divides(layer, in_channels, out_channels, group)


def _check_pad_mode(layer: str, pad_mode) -> str:
    if not isinstance(pad_mode, str) or pad_mode.lower() not in ("same", "valid", "pad"):
        raise ValueError(_pad_mode_message(layer, pad_mode))
    return pad_mode.lower()


def _init_1d(cell, layer: str, in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation,
             group, has_bias) -> int:
    """Checks a 1-D layer's arguments and sets MindSpore's attributes, those of the height-1
    2-D convolution it runs; returns the kernel length."""
    k = _int_arg(layer, "kernel_size", kernel_size, 1)
    s = _int_arg(layer, "stride", stride, 1)
    p = _int_arg(layer, "padding", padding, 0)
    d = _int_arg(layer, "dilation", dilation, 1)
    _check_group(layer, in_channels, out_channels, group)
    cell.pad_mode = _check_pad_mode(layer, pad_mode)
    cell.in_channels, cell.out_channels, cell.group, cell.has_bias = in_channels, out_channels, group, has_bias
    cell.kernel_size, cell.stride, cell.dilation, cell.padding = (1, k), (1, s), (1, d), (0, 0, p, p)
    return k


def _weight_3d_to_4d(layer: str, weight_init):
    """A 1-D layer's weight_init array [a, b, k] becomes the stored [a, b, 1, k], as MindSpore
    2.10 does (which takes 3-D arrays only)."""
    if weight_init is None or isinstance(weight_init, str) or not hasattr(weight_init, "__array__"):
        return weight_init
    array = weight_init.asnumpy() if hasattr(weight_init, "asnumpy") else np.asarray(weight_init)
    if array.ndim != 3:
        raise ValueError(f"For '{layer}', a weight_init array must be 3-D [channels, channels/group, "
                         f"kernel_size], got shape {array.shape}")
    return np.expand_dims(array, 2)


class Conv1d(Cell):
    """1-D convolution over [N, C, L]; weight stored [out, in/group, 1, k]; no bias by default.
    kernel_size, stride, padding and dilation are ints; padding pads both ends (pad_mode 'pad')."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0,
                 dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None, dtype="float32"):
        super().__init__()
        k = _init_1d(self, "Conv1d", in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                     dilation, group, has_bias)
        explicit_padding(self.pad_mode, self.padding, (1, 1), self.kernel_size, self.stride, self.dilation)
        conv_params(self, (out_channels, in_channels // group, 1, k), out_channels, has_bias,
                    _weight_3d_to_4d("Conv1d", weight_init), bias_init, dtype)

    def construct(self, x):
        self.check_input(x, rank=3, what="input [N, C, L]")
        self.check_input(x, axis=1, size=self.in_channels, what=f"input (in_channels={self.in_channels})",
                         dtype=self.weight.dtype)
        _, pads = explicit_padding(self.pad_mode, self.padding, (1, x.shape[2]), self.kernel_size,
                                   self.stride, self.dilation)
        w = F.reshape(self.weight, self.weight.shape[:2] + self.weight.shape[3:])
        out = conv_padded(x, w, self.stride[1:], (pads,), self.dilation[1:], self.group)
        if self.has_bias:
            out = F.add(out, F.reshape(self.bias, (1, -1, 1)))
        return out

    def extend_repr(self):
        return _conv_repr(self)


def _transposed_padding(layer: str, pad_mode: str, padding, count: int):
    """MindSpore's padding argument (an int >= 0, or `count` ints) as ((lo, hi), ...) pairs."""
    pads = (padding,) * count if isinstance(padding, int) and not isinstance(padding, bool) else padding
    if not isinstance(pads, (tuple, list)) or len(pads) != count or \
            not all(isinstance(p, int) and not isinstance(p, bool) and p >= 0 for p in pads):
        raise ValueError(f"For '{layer}', padding must be an int >= 0 or a tuple of {count} of them "
                         f"(top, bottom, left, right), got {padding!r}")
    if pad_mode != "pad" and any(pads):
        raise ValueError(f"For '{layer}', the 'pad' must be zero or (0, 0, 0, 0) when 'pad_mode' is not "
                         f"\"pad\", but got 'pad' is {padding} and 'pad_mode' is {pad_mode}.")
    return tuple((pads[i], pads[i + 1]) for i in range(0, count, 2))


class Conv2dTranspose(Cell):
    """2-D transposed convolution over NCHW input (the input gradient of Conv2d with the same
    arguments); weight stored [in, out/group, kh, kw]; no bias by default. output_padding (pad
    mode 'pad' only, below max(stride, dilation)) appends that many rows and columns of zeros
    at the bottom and right after the bias add, as MindSpore 2.10 does (torch computes values
    there; ops.conv_transpose2d follows torch). MindSpore 2.10's Conv2dTranspose has no
    data_format argument."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0,
                 output_padding=0, dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
                 dtype="float32"):
        super().__init__()
        _check_conv2d_args("Conv2dTranspose", in_channels, out_channels, padding, group)
        self.kernel_size = _conv_pair("Conv2dTranspose", "kernel_size", kernel_size)
        self.stride = _conv_pair("Conv2dTranspose", "stride", stride)
        self.dilation = _conv_pair("Conv2dTranspose", "dilation", dilation)
        _check_group("Conv2dTranspose", in_channels, out_channels, group)
        self.in_channels, self.out_channels, self.group, self.has_bias = in_channels, out_channels, group, has_bias
        self.weight_init, self.bias_init, self.format = weight_init, bias_init, "NCHW"
        self.pad_mode, self.padding, self.output_padding = _check_pad_mode("Conv2dTranspose", pad_mode), padding, output_padding
        self._pads = _transposed_padding("Conv2dTranspose", self.pad_mode, padding, 4)
        self._extra = self._output_padding(output_padding)
        conv_params(self, (in_channels, out_channels // group, *self.kernel_size), out_channels, has_bias,
                    weight_init, bias_init, dtype)

    def _output_padding(self, output_padding):
        extra = _pair(output_padding, "output_padding")
        for e, s, d in zip(extra, self.stride, self.dilation):
            if not 0 <= e < max(s, d):
                raise ValueError(f"For 'Conv2dTranspose', output_padding must be in range of [0, max(stride, "
                                 f"dilation)), got {output_padding} (stride {self.stride}, dilation {self.dilation})")
        if any(extra) and self.pad_mode != "pad":
            raise ValueError("For 'Conv2dTranspose', when output_padding is not zero, pad_mode must be 'pad', "
                             f"got pad_mode {self.pad_mode!r} and output_padding {output_padding}")
        return extra

    def construct(self, x):
        self.check_input(x, rank=4, what="input [N, C, H, W]")
        self.check_input(x, axis=1, size=self.in_channels, what=f"input (in_channels={self.in_channels})",
                         dtype=self.weight.dtype)
        crop, size = transposed_extent(self.pad_mode, self._pads, x.shape[2:], self.kernel_size,
                                       self.stride, self.dilation)
        out = conv_transpose_padded(x, self.weight, self.stride, crop, size, self.dilation, self.group)
        if self.has_bias:
            out = F.add(out, F.reshape(self.bias, (1, -1, 1, 1)))
        if any(self._extra):
            out = F.pad(out, [(0, 0), (0, 0), (0, self._extra[0]), (0, self._extra[1])])
        return out

    def extend_repr(self):
        return _conv_repr(self, "NCDHW" if len(self.kernel_size) == 3 else "NCHW")


class Conv1dTranspose(Cell):
    """1-D transposed convolution over [N, C, L]; weight stored [in, out/group, 1, k]; no bias by
    default; ints for kernel_size, stride, padding and dilation; no output_padding (MindSpore 2.10
    has none here)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0,
                 dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None, dtype="float32"):
        super().__init__()
        k = _init_1d(self, "Conv1dTranspose", in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                     dilation, group, has_bias)
        self._pads = _transposed_padding("Conv1dTranspose", self.pad_mode, self.padding, 4)[1:]
        conv_params(self, (in_channels, out_channels // group, 1, k), out_channels, has_bias,
                    _weight_3d_to_4d("Conv1dTranspose", weight_init), bias_init, dtype)

    def construct(self, x):
        self.check_input(x, rank=3, what="input [N, C, L]")
        self.check_input(x, axis=1, size=self.in_channels, what=f"input (in_channels={self.in_channels})",
                         dtype=self.weight.dtype)
        crop, size = transposed_extent(self.pad_mode, self._pads, x.shape[2:], self.kernel_size[1:],
                                       self.stride[1:], self.dilation[1:])
        w = F.reshape(self.weight, self.weight.shape[:2] + self.weight.shape[3:])
        out = conv_transpose_padded(x, w, self.stride[1:], crop, size, self.dilation[1:], self.group)
        if self.has_bias:
            out = F.add(out, F.reshape(self.bias, (1, -1, 1)))
        return out

    def extend_repr(self):
        return _conv_repr(self)


# -- 3-D layers ---------------------------------------------------------------------------------

def _triple(layer: str, name: str, value, low: int = 1) -> tuple:
    """A 3-D layer's kernel_size, stride, dilation or output_padding: an int or three ints, at
    least `low` (MindSpore 2.10's checks and messages)."""
    if isinstance(value, bool) or not isinstance(value, (int, tuple)):
        raise TypeError(f"For '{layer}', the type of '{name}' should be one of '['int', 'tuple']', but got type "
                        f"'{type(value).__name__}'.")
    values = (value,) * 3 if isinstance(value, int) else value
    if len(values) != 3 or not all(isinstance(v, int) and not isinstance(v, bool) and v >= low for v in values):
        kind = "positive integer" if low else "non-negative integer"
        raise ValueError(f"For '{layer}', the parameter '{name}' must be an {kind} or a tuple of three {kind}, "
                         f"but got {values}")
    return tuple(values)


def _padding_3d(layer: str, pad_mode: str, padding) -> tuple:
    """MindSpore's 3-D padding (an int, or six ints (head, tail, top, bottom, left, right)) as
    ((lo, hi),) * 3; nonzero only in pad mode."""
    if isinstance(padding, bool) or not isinstance(padding, (int, tuple)):
        raise TypeError(f"For '{layer}', the type of 'padding' should be one of '['int', 'tuple']', but got type "
                        f"'{type(padding).__name__}'.")
    pads = (padding,) * 6 if isinstance(padding, int) else padding
    if len(pads) != 6:
        raise ValueError(f"For '{layer}', the 'padding size' must be int and must = 6, but got '{len(pads)}' with "
                         f"type 'int'.")
    for p in pads:
        if isinstance(p, bool) or not isinstance(p, int) or p < 0:
            raise ValueError(f"For '{layer}', the 'padding' must be int and must >= 0, but got '{p}' with type "
                             f"'{type(p).__name__}'.")
    prim = {"Conv3d": "Conv3D", "Conv3dTranspose": "Conv3DTranspose"}[layer]
    if pad_mode != "pad" and any(pads):
        raise ValueError(f"For '{prim}', the 'pad' must be zero or (0, 0, 0, 0, 0, 0) when 'pad_mode' is not "
                         f"\"pad\", but got 'pad' is {padding} and 'pad_mode' is {pad_mode}.")
    return tuple(pads[i:i + 2] for i in range(0, 6, 2))


class _Conv3dBase(Cell):
    """The arguments both 3-D layers check, as MindSpore 2.10 checks them."""

    def __init__(self, layer, in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation, group,
                 has_bias, data_format):
        super().__init__()
        self.kernel_size = _triple(layer, "kernel_size", kernel_size)
        self.stride = _triple(layer, "stride", stride)
        self.dilation = _triple(layer, "dilation", dilation)
        prim = {"Conv3d": "Conv3D", "Conv3dTranspose": "Conv3DTranspose"}[layer]
        if not isinstance(pad_mode, str) or pad_mode.lower() not in ("same", "valid", "pad"):
            raise ValueError(f"For '{prim}', the 'pad_mode' must be str and must be in '['valid', 'same', 'pad']', "
                             f"but got '{pad_mode}'.")
        if data_format != "NCDHW":
            raise ValueError(f"For '{layer}', only data_format='NCDHW' is supported, but got {data_format!r}.")
        if not isinstance(group, int) or isinstance(group, bool) or group < 1 or in_channels % group \
                or out_channels % group:
            raise ValueError(f"The argument 'group' should be divisible by 'in_channels' and 'out_channels', but got "
                             f"group:{group}, in_channels:{in_channels}, out_channels:{out_channels}.")
        self._pads = _padding_3d(layer, pad_mode.lower(), padding)
        self.in_channels, self.out_channels, self.group, self.has_bias = in_channels, out_channels, group, has_bias
        self.pad_mode, self.padding, self.data_format = pad_mode, padding, data_format

    def _check(self, x):
        self.check_input(x, rank=5, what="input [N, C, D, H, W]")
        self.check_input(x, axis=1, size=self.in_channels, what=f"input (in_channels={self.in_channels})",
                         dtype=self.weight.dtype)

    def _add_bias(self, out):
        return F.add(out, F.reshape(self.bias, (1, -1, 1, 1, 1))) if self.has_bias else out


class Conv3d(_Conv3dBase):
    """3-D convolution over [N, C, D, H, W]; weight [out, in/group, kd, kh, kw]; no bias by
    default. padding: an int or (head, tail, top, bottom, left, right), pad mode 'pad' only."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, dilation=1,
                 group=1, has_bias=False, weight_init=None, bias_init=None, data_format="NCDHW", dtype="float32"):
        super().__init__("Conv3d", in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation,
                         group, has_bias, data_format)
        conv_params(self, (out_channels, in_channels // group, *self.kernel_size), out_channels, has_bias,
                    weight_init, bias_init, dtype)

    def construct(self, x):
        self._check(x)
        if self.pad_mode.lower() == "same":
            pads = tuple(same_padding(n, k, s, d) for n, k, s, d in
                         zip(x.shape[2:], self.kernel_size, self.stride, self.dilation))
        else:
            pads = self._pads
        return self._add_bias(conv_padded(x, self.weight, self.stride, pads, self.dilation, self.group))

    def extend_repr(self):
        return _conv_repr(self, "NCDHW")


class Conv3dTranspose(_Conv3dBase):
    """3-D transposed convolution over [N, C, D, H, W] (the input gradient of Conv3d with the
    same arguments); weight stored [in, out/group, kd, kh, kw]; no bias by default.
    output_padding (pad mode 'pad' only, below max(stride, dilation)) extends each axis at the
    end with computed elements, as torch's ConvTranspose3d (Conv2dTranspose's appends zeros:
    both measured on MindSpore 2.10). The depth dilation must be 1, as MindSpore's."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, dilation=1,
                 group=1, output_padding=0, has_bias=False, weight_init=None, bias_init=None, data_format="NCDHW",
                 dtype="float32"):
        super().__init__("Conv3dTranspose", in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                         dilation, group, has_bias, data_format)
        self.output_padding = _triple("Conv3dTranspose", "output_padding", output_padding, 0)
        _check_3d_transpose_args(pad_mode.lower(), self.output_padding, self.stride, self.dilation)
        conv_params(self, (in_channels, out_channels // group, *self.kernel_size), out_channels, has_bias,
                    weight_init, bias_init, dtype)

    def construct(self, x):
        self._check(x)
        out = conv3d_transpose_padded(x, self.weight, self.pad_mode.lower(), self._pads, self.stride, self.dilation,
                                      self.group, self.output_padding)
        return self._add_bias(out)

    def extend_repr(self):
        return _conv_repr(self, "NCDHW" if len(self.kernel_size) == 3 else "NCHW")

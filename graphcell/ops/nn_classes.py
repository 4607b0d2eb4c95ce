"""MindSpore 2.10's neural-network operator classes beyond operations.py's: 3-D convolution and
pooling, transposed convolution, adaptive pooling, TensorFlow-style resizing, batch norm,
losses and random draws (ops.Conv3D, ops.ResizeBilinearV2, ops.NLLLoss, ops.Multinomial, ...),
over graphcell's functional ops; operations.py re-exports them.

Constructor arguments, call inputs and outputs are 2.10's, measured on its CPU build
(tests/data/mindspore_op_classes.json). Random classes draw graphcell's numbers (MindSpore's
Philox streams cannot be reproduced) with 2.10's shapes and dtypes; seed = seed2 = 0 draws
from the global generator, other seeds give the same numbers on every call (graphcell's
functional seed rule).
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from . import classification_losses as CL
from . import convolution as CV
from . import functional as F
from . import grid_sampling as GS
from . import losses as LS
from . import normalization as NM
from . import pooling as PL
from . import random_draws as RD
from . import regression_losses as RL
from . import resize as RS
from . import unpooling as UP
from .math_classes import static_ints
from .op_base import (exporter, Operator, check_bool, check_choice, check_dtype, check_float, check_int, check_positive_int,
                      is_int)

__all__: list[str] = []


_export = exporter(__all__)


def _ints(op: str, arg: str, value, n: int, lengths=(1,), minimum=1) -> tuple:
    """An int or a tuple of ints (of one of `lengths`, the last n taken: (1, 1, d, h, w) -> (d, h, w))."""
    values = (value,) if is_int(value) else value
    if not isinstance(values, (tuple, list)) or not all(is_int(v) for v in values) or \
            len(values) not in set(lengths) | {1, n}:
        raise TypeError(f"For '{op}', '{arg}' must be an int or a tuple of {n} ints, but got {value!r}.")
    values = tuple(int(v) for v in values)
    if any(v < minimum for v in values):
        raise ValueError(f"For '{op}', '{arg}' must hold ints >= {minimum}, but got {value!r}.")
    return values * n if len(values) == 1 else values[-n:]


def _pairs(op: str, arg: str, value, n: int) -> tuple:
    """An int or 2n ints (before, after per axis) as n (before, after) pairs."""
    values = (value,) * 2 * n if is_int(value) else value
    if not isinstance(values, (tuple, list)) or len(values) != 2 * n or not all(is_int(v) and v >= 0 for v in values):
        raise ValueError(f"For '{op}', '{arg}' must be an int or {2 * n} non-negative ints, but got {value!r}.")
    return tuple((int(values[2 * i]), int(values[2 * i + 1])) for i in range(n))


def _same_pads(sizes, kernel, stride, dilation=None) -> tuple:
    """TensorFlow's 'SAME' padding: out = ceil(in / stride), the odd element after."""
    dilation = dilation or (1,) * len(sizes)
    pads = []
    for n, k, s, d in zip(sizes, kernel, stride, dilation):
        total = max((math.ceil(n / s) - 1) * s + d * (k - 1) + 1 - n, 0)
        pads.append((total // 2, total - total // 2))
    return tuple(pads)


def _ceil_pads(sizes, kernel, stride, pads) -> tuple:
    """Extra tail padding so that a partial last window counts (ceil_mode)."""
    out = []
    for n, k, s, (lo, hi) in zip(sizes, kernel, stride, pads):
        span = n + lo + hi - k
        windows = -(-span // s) + 1
        if (windows - 1) * s >= n + lo:   # the last window must start inside the input or left padding
            windows -= 1
        out.append((lo, max(hi, (windows - 1) * s + k - n - lo)))
    return tuple(out)


def _data_format(op: str, value, allowed) -> str:
    return check_choice(op, "data_format", value, allowed)


# == dense, convolution ========================================================================

@_export
class Dense(Operator):
    """x @ w.T + b (b optional)."""

    def __call__(self, x, w, b=None):
        return F.dense(x, w, b)


class _ConvBase(Operator):
    def _common(self, op, kernel_size, mode, pad_mode, stride, dilation, group, n, modes=("valid", "same", "pad")):
        if mode != 1:
            raise ValueError(f"For '{op}', the 'mode' must be int and must = 1, but got '{mode}'.")
        return dict(kernel_size=_ints(op, "kernel_size", kernel_size, n), mode=1,
                    pad_mode=check_choice(op, "pad_mode", pad_mode.lower() if isinstance(pad_mode, str) else pad_mode,
                                          modes),
                    stride=_ints(op, "stride", stride, n, (n + 2,)),
                    dilation=_ints(op, "dilation", dilation, n, (n + 2,)),
                    group=check_positive_int(op, "group", group))


@_export
class Conv3D(_ConvBase):
    """A 3-D convolution of x [N, C, D, H, W] by weight [out_channel, C / group, kd, kh, kw]
    (bias optional); pad_mode 'valid', 'same' or 'pad' (`pad` an int or six ints, the two sides
    of an axis equal)."""

    def __init__(self, out_channel, kernel_size, mode=1, pad_mode="valid", pad=0, stride=1, dilation=1, group=1,
                 data_format="NCDHW"):
        attrs = self._common("Conv3D", kernel_size, mode, pad_mode, stride, dilation, group, 3)
        pads = _pairs("Conv3D", "pad", pad, 3)
        if attrs["pad_mode"] != "pad" and any(map(any, pads)):
            raise ValueError(f"For 'Conv3D', the 'pad' must be zero when 'pad_mode' is not 'pad', but got {pad!r}.")
        super().__init__(out_channel=check_positive_int("Conv3D", "out_channel", out_channel), pad=pads, **attrs,
                         data_format=_data_format("Conv3D", data_format, ("NCDHW",)))

    def __call__(self, x, weight, bias=None):
        if any(lo != hi for lo, hi in self.pad):
            raise ValueError(f"For 'Conv3D', graphcell takes 'pad' with equal sides per axis, but got {self.pad}.")
        return CV.conv3d(x, weight, bias, self.stride, self.pad_mode, tuple(lo for lo, _ in self.pad), self.dilation,
                         self.group)


@_export
class Conv3DTranspose(_ConvBase):
    """The transposed 3-D convolution of dout [N, in_channel, D, H, W] by weight [in_channel,
    out_channel / group, kd, kh, kw] (bias optional), as ops.conv3d_transpose."""

    def __init__(self, in_channel, out_channel, kernel_size, mode=1, pad_mode="valid", pad=0, stride=1, dilation=1,
                 group=1, output_padding=0, data_format="NCDHW"):
        attrs = self._common("Conv3DTranspose", kernel_size, mode, pad_mode, stride, dilation, group, 3)
        super().__init__(in_channel=check_positive_int("Conv3DTranspose", "in_channel", in_channel),
                         out_channel=check_positive_int("Conv3DTranspose", "out_channel", out_channel),
                         pad=_pairs("Conv3DTranspose", "pad", pad, 3), **attrs,
                         output_padding=_ints("Conv3DTranspose", "output_padding", output_padding, 3, (5,), 0),
                         data_format=_data_format("Conv3DTranspose", data_format, ("NCDHW",)))

    def __call__(self, dout, weight, bias=None):
        pads = tuple(p for pair in self.pad for p in pair)
        out = CV.conv3d_transpose(dout, weight, self.pad_mode, pads, self.stride, self.dilation, self.group,
                                  self.output_padding)
        return out if bias is None else F.add(out, F.reshape(bias, (1, -1, 1, 1, 1)))


@_export
class Conv2DTranspose(_ConvBase):
    """The gradient of Conv2D(out_channel, kernel_size, ...) with respect to its input, whose
    shape `input_size` is given to the call: dout [N, O, H', W'] by the forward weight [O,
    C / group, kh, kw] gives [N, C, H, W]."""

    def __init__(self, out_channel, kernel_size, pad_mode="valid", pad=0, pad_list=None, mode=1, stride=1,
                 dilation=1, group=1, data_format="NCHW"):
        attrs = self._common("Conv2DTranspose", kernel_size, mode, pad_mode, stride, dilation, group, 2)
        pads = _pairs("Conv2DTranspose", "pad", pad, 2)
        if pad_list is not None:
            pads = _pairs("Conv2DTranspose", "pad_list", pad_list, 2)
        super().__init__(out_channel=check_positive_int("Conv2DTranspose", "out_channel", out_channel), pad=pads,
                         **attrs, data_format=_data_format("Conv2DTranspose", data_format, ("NCHW",)))

    def __call__(self, dout, weight, input_size):
        size = static_ints("Conv2DTranspose", "input_size", input_size)
        if len(size) != 4:
            raise ValueError(f"For 'Conv2DTranspose', 'input_size' must be (N, C, H, W), but got {size}.")
        spatial = size[2:]
        if self.pad_mode == "pad":
            crop = tuple(lo for lo, _ in self.pad)
        elif self.pad_mode == "same":
            crop = tuple(lo for lo, _ in _same_pads(spatial, self.kernel_size, self.stride, self.dilation))
        else:
            crop = (0, 0)
        return CV.conv_transpose_padded(dout, weight, self.stride, crop, spatial, self.dilation, self.group)


@_export
class Conv2DBackpropInput(Conv2DTranspose):
    """Conv2DTranspose's old name."""


# == pooling ===================================================================================

def _adaptive_size(op: str, output_size, n: int) -> tuple:
    values = (output_size,) * n if is_int(output_size) or output_size is None else output_size
    if not isinstance(values, (tuple, list)) or len(values) != n or \
            not all(v is None or (is_int(v) and v > 0) for v in values):
        raise ValueError(f"For '{op}', 'output_size' must be a positive int or a tuple of {n} (positive ints or "
                         f"None), but got {output_size!r}.")
    return tuple(values)


def _fill_none(sizes, shape) -> tuple:
    return tuple(d if s is None else s for s, d in zip(sizes, shape[-len(sizes):]))


@_export
class AdaptiveAvgPool2D(Operator):
    """The mean of each adaptive window of the last two axes (None keeps an axis' size)."""

    def __init__(self, output_size):
        super().__init__(output_size=_adaptive_size("AdaptiveAvgPool2D", output_size, 2))

    def __call__(self, input_x):
        x = F.as_tensor(input_x)
        return PL.adaptive_avg_pool2d(x, _fill_none(self.output_size, x.shape))


@_export
class AdaptiveAvgPool3D(Operator):
    """The mean of each adaptive window of the last three axes (None keeps an axis' size)."""

    def __init__(self, output_size):
        super().__init__(output_size=_adaptive_size("AdaptiveAvgPool3D", output_size, 3))

    def __call__(self, x):
        x = F.as_tensor(x)
        return PL.adaptive_avg_pool3d(x, _fill_none(self.output_size, x.shape))


@_export
class AdaptiveMaxPool2D(Operator):
    """(the maximum of each adaptive window, its int64 index into the H*W plane)."""

    def __init__(self, output_size):
        super().__init__(output_size=_adaptive_size("AdaptiveMaxPool2D", output_size, 2))

    def __call__(self, input):  # noqa: A002
        x = F.as_tensor(input)
        return PL.adaptive_max_pool2d(x, _fill_none(self.output_size, x.shape), True)


@_export
class AdaptiveMaxPool3D(Operator):
    """(the maximum of each adaptive window of the last three axes, its int32 index into the
    D*H*W volume); output_size, a 1-D integer Tensor of three, is given to the call."""

    def __call__(self, x, output_size):
        sizes = static_ints("AdaptiveMaxPool3D", "output_size", output_size)
        return PL.adaptive_max_pool3d(x, sizes, True)


@_export
class MaxPoolWithArgmax(Operator):
    """(the largest element of each window of [N, C, H, W], its int32 index into the C*H*W
    block of its sample); pad_mode 'valid' or 'same' (deprecated in 2.10 for MaxPoolWithArgmaxV2)."""

    def __init__(self, kernel_size=1, strides=1, pad_mode="valid", data_format="NCHW"):
        op = "MaxPoolWithArgmax"
        super().__init__(kernel_size=_ints(op, "kernel_size", kernel_size, 2, (4,)),
                         strides=_ints(op, "strides", strides, 2, (4,)),
                         pad_mode=check_choice(op, "pad_mode", pad_mode.lower() if isinstance(pad_mode, str)
                                               else pad_mode, ("valid", "same")),
                         data_format=_data_format(op, data_format, ("NCHW",)))

    def __call__(self, x):
        x = F.as_tensor(x)
        if x.ndim != 4:
            raise ValueError(f"For 'MaxPoolWithArgmax', the input must be 4-D [N, C, H, W], but got {list(x.shape)}.")
        pads = ((0, 0), (0, 0))
        if self.pad_mode == "same":   # all the padding after (measured), unlike the other 'same' modes
            pads = tuple((0, lo + hi) for lo, hi in _same_pads(x.shape[2:], self.kernel_size, self.strides))
        lowest = float(np.finfo(x.dtype.np_dtype).min) if x.dtype.is_floating else int(np.iinfo(x.dtype.np_dtype).min)
        padded = F.pad(x, ((0, 0), (0, 0)) + pads, value=lowest) if any(map(any, pads)) else x
        out, index = PL.max_pool2d(padded, self.kernel_size, self.strides, 0, 1, True)
        h, w = x.shape[2:]
        if padded is not x:   # an index into the padded plane, back into the input's
            width = padded.shape[3]
            rows = F.floor_div(index, width)
            index = F.add(F.mul(rows, w), F.sub(index, F.mul(rows, width)))
        # the index counts over the channels too: c * H * W + the index in the plane (measured)
        channel = Tensor(np.arange(x.shape[1]).reshape(1, -1, 1, 1) * h * w, index.dtype)
        return out, F.cast(F.add(index, channel), mstype.int32)


def _pool3d_pads(op, x, kernel, strides, pad_mode, pads) -> tuple:
    """The padding of each spatial axis: 'same' TensorFlow's, 'valid' none, 'pad' `pads`."""
    if x.ndim != 5:
        raise ValueError(f"For '{op}', the input must be 5-D [N, C, D, H, W], but got shape {list(x.shape)}.")
    if pad_mode == "same":
        return _same_pads(x.shape[2:], kernel, strides)
    return ((0, 0),) * 3 if pad_mode == "valid" else pads


@_export
class AvgPool3D(Operator):
    """The mean of each kernel_size window of [N, C, D, H, W]. pad_mode 'valid', 'same' (the
    divisor counts real elements) or 'pad' (`pad` an int or six ints; count_include_pad counts
    the padding; a nonzero divisor_override replaces the divisor)."""

    def __init__(self, kernel_size=1, strides=1, pad_mode="valid", pad=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=0, data_format="NCDHW"):
        op = "AvgPool3D"
        super().__init__(kernel_size=_ints(op, "kernel_size", kernel_size, 3, (5,)),
                         strides=_ints(op, "strides", strides, 3, (5,)),
                         pad_mode=check_choice(op, "pad_mode", pad_mode.lower() if isinstance(pad_mode, str)
                                               else pad_mode, ("valid", "same", "pad")),
                         pad=_pairs(op, "pad", pad, 3), ceil_mode=check_bool(op, "ceil_mode", ceil_mode),
                         count_include_pad=check_bool(op, "count_include_pad", count_include_pad),
                         divisor_override=check_int(op, "divisor_override", divisor_override, minimum=0),
                         data_format=_data_format(op, data_format, ("NCDHW",)))

    def __call__(self, x):
        x = F.as_tensor(x)
        base = _pool3d_pads("AvgPool3D", x, self.kernel_size, self.strides, self.pad_mode, self.pad)
        pads = _ceil_pads(x.shape[2:], self.kernel_size, self.strides, base) if self.ceil_mode else base
        window, strides = (1, 1) + self.kernel_size, (1, 1) + self.strides
        total = F.sum_pool(x, window, strides, ((0, 0), (0, 0)) + pads)
        if self.divisor_override:
            return F.div(total, float(self.divisor_override))
        # The divisor counts the real elements, and with count_include_pad the 'same' or 'pad'
        # padding too (measured), never ceil_mode's extra tail.
        ones = np.ones((1, 1) + x.shape[2:], x.dtype.np_dtype)
        counted = ((0, 0),) * 3
        if self.count_include_pad:
            ones, counted = np.pad(ones, ((0, 0), (0, 0)) + base, constant_values=1), base
        extra = tuple((lo - c_lo, hi - c_hi) for (lo, hi), (c_lo, c_hi) in zip(pads, counted))
        counts = F.sum_pool(Tensor(ones), window, strides, ((0, 0), (0, 0)) + extra)
        return F.div(total, counts)


@_export
class MaxPool3D(Operator):
    """The largest element of each window of [N, C, D, H, W]; pad_mode 'VALID', 'SAME' or
    'PAD' (`pad_list` an int or six ints); padding never wins."""

    def __init__(self, kernel_size=1, strides=1, pad_mode="VALID", pad_list=0, ceil_mode=None, data_format="NCDHW"):
        op = "MaxPool3D"
        super().__init__(kernel_size=_ints(op, "kernel_size", kernel_size, 3, (5,)),
                         strides=_ints(op, "strides", strides, 3, (5,)),
                         pad_mode=check_choice(op, "pad_mode", pad_mode, ("VALID", "SAME", "PAD"), upper=True),
                         pad_list=_pairs(op, "pad_list", pad_list, 3),
                         ceil_mode=None if ceil_mode is None else check_bool(op, "ceil_mode", ceil_mode),
                         data_format=_data_format(op, data_format, ("NCDHW",)))

    def __call__(self, x):
        x = F.as_tensor(x)
        pads = _pool3d_pads("MaxPool3D", x, self.kernel_size, self.strides, self.pad_mode.lower(), self.pad_list)
        if self.ceil_mode:
            pads = _ceil_pads(x.shape[2:], self.kernel_size, self.strides, pads)
        return F.max_pool(x, (1, 1) + self.kernel_size, (1, 1) + self.strides, ((0, 0), (0, 0)) + pads)


@_export
class MaxPoolWithArgmaxV2(Operator):
    """(the largest element of each window of [N, C, H, W], its index into the H*W plane)."""

    def __init__(self, kernel_size, strides=None, pads=0, dilation=(1, 1), ceil_mode=False, argmax_type=mstype.int64):
        op = "MaxPoolWithArgmaxV2"
        kernel = _ints(op, "kernel_size", kernel_size, 2, (4,))
        strides = kernel if strides is None else _ints(op, "strides", strides, 2, (4,))
        super().__init__(kernel_size=kernel, strides=strides,
                         pads=_ints(op, "pads", pads, 2, (4,), 0), dilation=_ints(op, "dilation", dilation, 2, (4,)),
                         ceil_mode=check_bool(op, "ceil_mode", ceil_mode),
                         argmax_type=check_dtype(op, "argmax_type", argmax_type, (mstype.int32, mstype.int64)))

    def __call__(self, x):
        out, index = PL.max_pool2d(x, self.kernel_size, self.strides, self.pads, self.dilation, True, self.ceil_mode)
        return out, F.cast(index, self.argmax_type)


@_export
class MaxPool3DWithArgmax(Operator):
    """(the largest element of each window of [N, C, D, H, W], its index into the D*H*W
    volume, of argmax_type); `pads` pads both sides of each axis and never wins."""

    def __init__(self, ksize, strides, pads, dilation=(1, 1, 1), ceil_mode=False, data_format="NCDHW",
                 argmax_type=mstype.int64):
        op = "MaxPool3DWithArgmax"
        super().__init__(ksize=_ints(op, "ksize", ksize, 3, (5,)), strides=_ints(op, "strides", strides, 3, (5,)),
                         pads=_ints(op, "pads", pads, 3, (), 0), dilation=_ints(op, "dilation", dilation, 3, (5,)),
                         ceil_mode=check_bool(op, "ceil_mode", ceil_mode),
                         data_format=_data_format(op, data_format, ("NCDHW",)),
                         argmax_type=check_dtype(op, "argmax_type", argmax_type, (mstype.int32, mstype.int64)))

    def __call__(self, x):
        out, index = PL.max_pool3d(x, self.ksize, self.strides, self.pads, self.dilation, self.ceil_mode, True)
        return out, F.cast(index, self.argmax_type)


class _MaxUnpool(Operator):
    _n, _fn, _format = 2, None, "NCHW"

    def __init__(self, ksize, strides=0, pads=0, output_shape=(), data_format=None):
        op, n = self.name, self._n
        kernel = _ints(op, "ksize", ksize, n, (n + 2,))
        strides = kernel if strides == 0 else _ints(op, "strides", strides, n, (n + 2,))
        if not isinstance(output_shape, (tuple, list)) or not all(is_int(v) for v in output_shape):
            raise TypeError(f"For '{op}', 'output_shape' must be a tuple of ints, but got {output_shape!r}.")
        super().__init__(ksize=kernel, strides=strides, pads=_ints(op, "pads", pads, n, (n + 2,), 0),
                         output_shape=tuple(int(v) for v in output_shape),
                         data_format=_data_format(op, data_format or self._format, (self._format,)))

    def __call__(self, x, argmax):
        size = self.output_shape[-self._n:] if self.output_shape else None
        return type(self)._fn(x, argmax, self.ksize, self.strides, self.pads, size)


@_export
class MaxUnpool2D(_MaxUnpool):
    """MaxPool's partial inverse: each value written at its argmax in a zero H*W plane."""
    _fn = staticmethod(UP.max_unpool2d)

    def __init__(self, ksize, strides=0, pads=0, output_shape=(), data_format="NCHW"):
        super().__init__(ksize, strides, pads, output_shape, data_format)


@_export
class MaxUnpool3D(_MaxUnpool):
    """MaxPool3D's partial inverse: each value written at its argmax in a zero D*H*W volume."""
    _n, _fn, _format = 3, staticmethod(UP.max_unpool3d), "NCDHW"

    def __init__(self, ksize, strides=0, pads=0, output_shape=(), data_format="NCDHW"):
        super().__init__(ksize, strides, pads, output_shape, data_format)


# == normalization =============================================================================

@_export
class LRN(Operator):
    """Local response normalisation across channels (TensorFlow's)."""

    def __init__(self, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region="ACROSS_CHANNELS"):
        super().__init__(depth_radius=check_int("LRN", "depth_radius", depth_radius, minimum=0),
                         bias=check_float("LRN", "bias", bias), alpha=check_float("LRN", "alpha", alpha),
                         beta=check_float("LRN", "beta", beta),
                         norm_region=check_choice("LRN", "norm_region", norm_region, ("ACROSS_CHANNELS",)))

    def __call__(self, x):
        return NM.lrn(x, self.depth_radius, self.bias, self.alpha, self.beta, self.norm_region)


@_export
class BatchNorm(Operator):
    """(y, batch_mean, batch_variance, reserve_space_1, reserve_space_2) over [N, C, ...]. As
    MindSpore 2.10's CPU kernel (measured): the second and third outputs are zeros; in training
    the fourth and fifth are the batch's mean and biased variance, and `mean`/`variance`, when
    Parameters, move toward the batch's (ops.batch_norm's update); in inference all four are
    zeros and y uses `mean` and `variance`."""

    def __init__(self, is_training=False, epsilon=1e-5, momentum=0.1, data_format="NCHW"):
        # (NHWC follows the documentation: 2.10's CPU kernel fails on it, "Memcpy_s error")
        super().__init__(is_training=check_bool("BatchNorm", "is_training", is_training),
                         epsilon=check_float("BatchNorm", "epsilon", epsilon, above=0.0, maximum=1.0),
                         momentum=check_float("BatchNorm", "momentum", momentum, minimum=0.0, maximum=1.0),
                         data_format=_data_format("BatchNorm", data_format, ("NCHW", "NHWC")))

    def __call__(self, input_x, scale, bias, mean, variance):
        x = F.as_tensor(input_x)
        if self.data_format == "NHWC":
            x = F.moveaxis(x, -1, 1)
        axes = (0,) + tuple(range(2, x.ndim))
        if self.is_training:
            batch_mean = F.mean(x, axes)
            batch_var = F.mean(F.square(F.sub(x, F.reshape(batch_mean, (1, -1) + (1,) * (x.ndim - 2)))), axes)
        y = NM.batch_norm(x, mean, variance, scale, bias, self.is_training, self.momentum, self.epsilon)
        if self.data_format == "NHWC":
            y = F.moveaxis(y, 1, -1)
        zeros = F.zeros((x.shape[1],), mstype.float32)
        if self.is_training:
            return y, zeros, zeros, batch_mean, batch_var
        return y, zeros, zeros, zeros, zeros


# == sampling and resizing =====================================================================

@_export
class AffineGrid(Operator):
    """The sampling grid of the affine matrices theta [N, 2, 3] ([N, 3, 4]) over output_size."""

    def __init__(self, align_corners=False):
        super().__init__(align_corners=check_bool("AffineGrid", "align_corners", align_corners))

    def __call__(self, theta, output_size):
        return GS.affine_grid(theta, static_ints("AffineGrid", "output_size", output_size), self.align_corners)


class _GridSampler(Operator):
    _modes = ("bilinear", "nearest", "bicubic")

    def __init__(self, interpolation_mode="bilinear", padding_mode="zeros", align_corners=False):
        op = self.name
        super().__init__(interpolation_mode=check_choice(op, "interpolation_mode", interpolation_mode, self._modes),
                         padding_mode=check_choice(op, "padding_mode", padding_mode, ("zeros", "border", "reflection")),
                         align_corners=check_bool(op, "align_corners", align_corners))

    def __call__(self, input_x, grid):
        return GS.grid_sample(input_x, grid, self.interpolation_mode, self.padding_mode, self.align_corners)


@_export
class GridSampler2D(_GridSampler):
    """input_x [N, C, H, W] sampled at grid [N, H', W', 2] (x, y in [-1, 1])."""


@_export
class GridSampler3D(_GridSampler):
    """input_x [N, C, D, H, W] sampled at grid [N, D', H', W', 3]."""
    _modes = ("bilinear", "nearest")


def _source(n_in: int, n_out: int, coordinate: str) -> np.ndarray:
    """Each output position's source coordinate (float32, as TensorFlow's kernels)."""
    f32 = np.float32
    d = np.arange(n_out).astype(f32)
    if coordinate == "align_corners":
        scale = f32(n_in - 1) / f32(n_out - 1) if n_out > 1 else f32(0)
        return d * scale
    scale = f32(n_in) / f32(n_out)
    if coordinate == "half_pixel":
        return (d + f32(0.5)) * scale - f32(0.5)
    return d * scale   # "asymmetric": TensorFlow's legacy mapping


def _linear_matrix(n_in: int, n_out: int, coordinate: str) -> np.ndarray:
    s = np.maximum(_source(n_in, n_out, coordinate), np.float32(0))
    lower = np.minimum(np.floor(s).astype(np.int64), n_in - 1)
    upper = np.minimum(lower + 1, n_in - 1)
    frac = (s - lower).astype(np.float32)
    m = np.zeros((n_out, n_in), np.float32)
    np.add.at(m, (np.arange(n_out), lower), 1 - frac)
    np.add.at(m, (np.arange(n_out), upper), frac)
    return m


def _cubic_matrix(n_in: int, n_out: int, coordinate: str) -> np.ndarray:
    """TensorFlow's ResizeBicubic: Keys' kernel with a = -0.5 and out-of-range taps dropped (the
    rest renormalised) for half-pixel centres; a = -0.75 and edge taps repeated otherwise; the
    fraction rounded to the 1/1024 table."""
    f32 = np.float32
    s = _source(n_in, n_out, coordinate)
    base = np.floor(s).astype(np.int64)
    frac = (np.rint((s - base).astype(f32) * f32(1024)) / 1024).astype(f32)
    index = base[None] + np.arange(-1, 3)[:, None]
    if coordinate == "half_pixel":
        weights = np.where((index >= 0) & (index < n_in), RS._cubic(frac, -0.5), f32(0))
        weights = weights / weights.sum(0, keepdims=True)
    else:
        weights = RS._cubic(frac, -0.75)
    m = np.zeros((n_out, n_in), np.float32)
    for j in range(4):
        np.add.at(m, (np.arange(n_out), np.clip(index[j], 0, n_in - 1)), weights[j].astype(f32))
    return m


def _nearest_index(n_in: int, n_out: int, coordinate: str) -> np.ndarray:
    """The source element of each output: rounded ('align_corners'), or the floor of the
    legacy source ('asymmetric'), of (d + 0.5) * scale (TensorFlow's half-pixel rule, V2's),
    or of the half-pixel source (d + 0.5) * scale - 0.5 ('half_pixel_floor': V1's, measured)."""
    if coordinate == "half_pixel":
        src = np.floor((np.arange(n_out) + np.float32(0.5)) * (np.float32(n_in) / np.float32(n_out)))
    elif coordinate == "half_pixel_floor":
        src = np.floor(_source(n_in, n_out, "half_pixel"))
    elif coordinate == "align_corners":
        src = np.floor(_source(n_in, n_out, coordinate) + np.float32(0.5))   # roundf (s >= 0)
    else:
        src = np.floor(_source(n_in, n_out, "asymmetric"))
    return np.clip(src, 0, n_in - 1).astype(np.int32)


def _coordinate(op: str, align_corners: bool, half_pixel_centers: bool) -> str:
    if align_corners and half_pixel_centers:
        raise ValueError(f"For '{op}', the 'half_pixel_centers' must be False when 'align_corners' is True, but got "
                         f"True.")
    return "align_corners" if align_corners else "half_pixel" if half_pixel_centers else "asymmetric"


def _resample(op: str, x, sizes, kind: str, coordinate: str) -> Tensor:
    """x's trailing len(sizes) axes resampled to `sizes`: nearest gathers, linear and cubic
    one matrix product per axis (weights worked out in numpy once per shape)."""
    x = F.as_tensor(x)
    lead = x.ndim - len(sizes)
    if kind != "nearest" and not x.dtype.is_floating:
        raise TypeError(f"For '{op}', the input must be a float Tensor, but got {x.dtype}.")
    for i, n_out in enumerate(sizes):
        axis, n_in = lead + i, x.shape[lead + i]
        if n_out <= 0:
            raise ValueError(f"For '{op}', the output sizes must be positive, but got {tuple(sizes)}.")
        if kind == "nearest":
            x = F.gather(x, Tensor(_nearest_index(n_in, n_out, coordinate)), axis)
            continue
        m = (_linear_matrix if kind == "linear" else _cubic_matrix)(n_in, n_out, coordinate)
        moved = F.moveaxis(x, axis, -1)
        x = F.moveaxis(F.matmul(moved, Tensor(m.T.astype(x.dtype.np_dtype))), -1, axis)
    return x


def _resize_size(op: str, size, n: int) -> tuple:
    sizes = static_ints(op, "size", size)
    if len(sizes) != n:
        raise ValueError(f"For '{op}', 'size' must have {n} values, but got {sizes}.")
    return sizes


class _TFResize(Operator):
    _kind = "linear"

    def __init__(self, align_corners=False, half_pixel_centers=False):
        op = self.name
        super().__init__(align_corners=check_bool(op, "align_corners", align_corners),
                         half_pixel_centers=check_bool(op, "half_pixel_centers", half_pixel_centers))
        _coordinate(op, self.align_corners, self.half_pixel_centers)

    def _resize(self, x, size, half_pixel="half_pixel"):
        x = F.as_tensor(x)
        if x.ndim != 4:
            raise ValueError(f"For '{self.name}', the input must be 4-D [N, C, H, W], but got {list(x.shape)}.")
        coordinate = _coordinate(self.name, self.align_corners, self.half_pixel_centers)
        return _resample(self.name, x, _resize_size(self.name, size, 2), self._kind,
                         half_pixel if coordinate == "half_pixel" else coordinate)


@_export
class ResizeBilinearV2(_TFResize):
    """[N, C, H, W] resized to `size` by bilinear interpolation (TensorFlow's coordinates:
    corner-aligned, half-pixel, or the legacy d * in / out)."""

    def __call__(self, x, size):
        return self._resize(x, size)


@_export
class ResizeNearestNeighborV2(_TFResize):
    """[N, C, H, W] resized to `size` by the nearest element (TensorFlow's rules)."""
    _kind = "nearest"

    def __call__(self, x, size):
        return self._resize(x, size)


@_export
class ResizeBicubic(_TFResize):
    """[N, C, H, W] resized to `size` by TensorFlow's bicubic interpolation."""
    _kind = "cubic"

    def __call__(self, images, size):
        return self._resize(images, size)


@_export
class ResizeNearestNeighbor(_TFResize):
    """[N, C, H, W] resized to `size` (given at construction) by the nearest element; with
    half_pixel_centers the floor of (d + 0.5) * scale - 0.5 (measured; V2 drops the - 0.5)."""
    _kind = "nearest"

    def __init__(self, size, align_corners=False, half_pixel_centers=False):
        super().__init__(align_corners, half_pixel_centers)
        self.add_prim_attr("size", _resize_size("ResizeNearestNeighbor", size, 2))

    def __call__(self, input_x):
        return self._resize(input_x, self.size, "half_pixel_floor")   # V1's half-pixel rule differs from V2's


@_export
class ResizeLinear1D(Operator):
    """[N, C, W] resized to `size` (one value) by linear interpolation; coordinates
    'align_corners' or 'half_pixel'."""

    def __init__(self, coordinate_transformation_mode="align_corners"):
        super().__init__(coordinate_transformation_mode=check_choice(
            "ResizeLinear1D", "coordinate_transformation_mode", coordinate_transformation_mode,
            ("align_corners", "half_pixel")))   # 2.10 accepts 'asymmetric' here, then refuses to run it

    def __call__(self, x, size):
        x = F.as_tensor(x)
        if x.ndim != 3:
            raise ValueError(f"For 'ResizeLinear1D', the input must be 3-D [N, C, W], but got {list(x.shape)}.")
        return _resample("ResizeLinear1D", x, _resize_size("ResizeLinear1D", size, 1), "linear",
                         self.coordinate_transformation_mode)


def _upsample_args(op: str, output_size, scales):
    if (output_size is None) == (scales is None):
        raise ValueError(f"For '{op}', exactly one of 'output_size' and 'scales' must be given.")
    if output_size is not None:
        return static_ints(op, "output_size", output_size), None
    if isinstance(scales, Tensor):
        scales = tuple(float(v) for v in scales.asnumpy().reshape(-1))
    return None, tuple(float(s) for s in scales)


@_export
class UpsampleNearest3D(Operator):
    """[N, C, D, H, W] resized by the nearest element to output_size, or by `scales`."""

    def __call__(self, x, output_size=None, scales=None):
        size, scales = _upsample_args("UpsampleNearest3D", output_size, scales)
        return RS.interpolate(x, size, scales, "nearest")


@_export
class UpsampleTrilinear3D(Operator):
    """[N, C, D, H, W] resized by trilinear interpolation to output_size, or by `scales`."""

    def __init__(self, align_corners=False):
        super().__init__(align_corners=check_bool("UpsampleTrilinear3D", "align_corners", align_corners))

    def __call__(self, x, output_size=None, scales=None):
        size, scales = _upsample_args("UpsampleTrilinear3D", output_size, scales)
        return RS.interpolate(x, size, scales, "trilinear", self.align_corners)


# == dropout ===================================================================================

class _ChannelDropout(Operator):
    _rank = 4

    def __init__(self, keep_prob=0.5):
        super().__init__(keep_prob=check_float(self.name, "keep_prob", keep_prob, minimum=0.0, maximum=1.0))

    def __call__(self, x):
        x = F.as_tensor(x)
        if x.ndim != self._rank:
            raise ValueError(f"For '{self.name}', the input must be {self._rank}-D, but got shape {list(x.shape)}.")
        channels = x.shape[:2] + (1,) * (x.ndim - 2)
        keep = F.less(F.uniform(channels), self.keep_prob)
        mask = F.broadcast_to(keep, x.shape)
        scale = 0.0 if self.keep_prob == 0.0 else 1.0 / self.keep_prob
        return F.select(mask, F.mul(x, scale), F.zeros_like(x)), mask


@_export
class Dropout2D(_ChannelDropout):
    """(output, bool mask): each channel of [N, C, H, W] kept with probability keep_prob and
    scaled by 1 / keep_prob, or zeroed."""


@_export
class Dropout3D(_ChannelDropout):
    """(output, bool mask): Dropout2D's channel dropout over [N, C, D, H, W]."""
    _rank = 5


# == losses ====================================================================================

_REDUCTIONS = ("none", "mean", "sum")


class _Loss(Operator):
    _reductions = _REDUCTIONS

    def __init__(self, reduction="mean"):
        super().__init__(reduction=check_choice(self.name, "reduction", reduction, self._reductions))


@_export
class BCEWithLogitsLoss(_Loss):
    """Binary cross entropy of sigmoid(input) against target, weighted, pos_weight on the positives."""

    def __call__(self, input, target, weight, pos_weight):  # noqa: A002
        return CL.binary_cross_entropy_with_logits(input, target, weight, pos_weight, self.reduction)


@_export
class BinaryCrossEntropy(_Loss):
    """-w (y log x + (1 - y) log(1 - x)) of probabilities x (weight optional)."""

    def __call__(self, logits, labels, weight=None):
        return LS.binary_cross_entropy(logits, labels, weight, self.reduction)


@_export
class KLDivLoss(_Loss):
    """labels * (log(labels) - logits), reduced ('batchmean' divides the sum by the batch)."""
    _reductions = ("none", "mean", "sum", "batchmean")

    def __call__(self, logits, labels):
        return LS.kl_div(logits, labels, self.reduction)


@_export
class NLLLoss(_Loss):
    """(loss, total_weight) of log-probabilities logits [N, C] and class labels [N]:
    -weight[label] * logits[label], reduced; total_weight the sum of the non-ignored targets'
    weights (every reduction, as MindSpore 2.10)."""

    def __init__(self, reduction="mean", ignore_index=-100):
        super().__init__(reduction)
        self.add_prim_attr("ignore_index", check_int("NLLLoss", "ignore_index", ignore_index))

    def __call__(self, logits, labels, weight):
        labels, weight = F.as_tensor(labels), F.as_tensor(weight)
        loss = CL.nll_loss(logits, labels, weight, self.ignore_index, self.reduction)
        kept = F.not_equal(labels, self.ignore_index)
        safe = F.select(kept, labels, F.zeros_like(labels))
        target_weights = F.select(kept, F.gather(weight, safe, 0), F.zeros((), weight.dtype))
        return loss, F.reduce_sum(target_weights)


@_export
class SmoothL1Loss(_Loss):
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta, of d = prediction - target."""

    def __init__(self, beta=1.0, reduction="none"):
        super().__init__(reduction)
        self.add_prim_attr("beta", check_float("SmoothL1Loss", "beta", beta, above=0.0))

    def __call__(self, prediction, target):
        return LS.smooth_l1_loss(prediction, target, self.beta, self.reduction)


@_export
class SoftMarginLoss(_Loss):
    """log(1 + exp(-y x)), reduced (no CPU kernel in MindSpore 2.10; its documentation's semantics)."""

    def __call__(self, input, target):  # noqa: A002
        return RL.soft_margin_loss(input, target, self.reduction)


@_export
class MultiMarginLoss(_Loss):
    """The multi-class hinge loss max(0, margin - x[y] + x[i])^p over i != y, weighted by class."""

    def __init__(self, p=1, margin=1.0, reduction="mean"):
        super().__init__(reduction)
        p = check_int("MultiMarginLoss", "p", p)
        if p not in (1, 2):
            raise ValueError(f"For 'MultiMarginLoss', 'p' must be 1 or 2, but got {p}.")
        self.add_prim_attr("p", p)
        self.add_prim_attr("margin", check_float("MultiMarginLoss", "margin", margin))

    def __call__(self, inputs, target, weight=None):
        return CL.multi_margin_loss(inputs, target, self.p, self.margin, weight, self.reduction)


@_export
class SigmoidCrossEntropyWithLogits(Operator):
    """The elementwise binary cross entropy of sigmoid(logits) against label."""

    def __call__(self, logits, label):
        return CL.binary_cross_entropy_with_logits(logits, label, None, None, "none")


# == random draws ==============================================================================

class _Seeded(Operator):
    def __init__(self, seed=0, seed2=0):
        op = self.name
        super().__init__(seed=check_int(op, "seed", seed, minimum=0), seed2=check_int(op, "seed2", seed2, minimum=0))

    @property
    def _seed(self):
        """None (the global generator) for seed = seed2 = 0, else one seed of both."""
        return None if not (self.seed or self.seed2) else (self.seed << 32) | self.seed2


def _shape_arg(op: str, shape) -> tuple:
    return static_ints(op, "shape", shape)


@_export
class Bernoulli(Operator):
    """0 or 1 of x's shape and dtype, 1 with probability p (a number or a Tensor); seed -1:
    the global generator."""

    def __init__(self, seed=-1, offset=0):
        super().__init__(seed=check_int("Bernoulli", "seed", seed, minimum=-1),
                         offset=check_int("Bernoulli", "offset", offset, minimum=0))

    def __call__(self, x, p):
        return RD.bernoulli(x, p, None if self.seed == -1 else self.seed)


@_export
class Multinomial(_Seeded):
    """num_samples class indices per row of the probabilities x, drawn with replacement, of `dtype`."""

    def __init__(self, seed=0, seed2=0, dtype=mstype.int32):
        super().__init__(seed, seed2)
        self.add_prim_attr("dtype", check_dtype("Multinomial", "dtype", dtype, (mstype.int32, mstype.int64)))

    def __call__(self, x, num_samples):
        return F.cast(RD.multinomial(x, num_samples, True, self._seed), self.dtype)


@_export
class RandomCategorical(Operator):
    """num_sample class indices per row of the 2-D logits, of `dtype`; the call's seed 0 draws
    from the global generator."""

    def __init__(self, dtype=mstype.int64):
        super().__init__(dtype=check_dtype("RandomCategorical", "dtype", dtype,
                                           (mstype.int16, mstype.int32, mstype.int64)))

    def __call__(self, logits, num_sample, seed=0):
        return RD.random_categorical(logits, num_sample, seed, self.dtype)


@_export
class RandomGamma(_Seeded):
    """Gamma(alpha) draws of shape + alpha.shape."""

    def __call__(self, shape, alpha):
        return RD.random_gamma(_shape_arg("RandomGamma", shape), alpha, self._seed)


@_export
class RandomPoisson(_Seeded):
    """Poisson(rate) draws of shape + rate.shape, of `dtype`."""

    def __init__(self, seed=0, seed2=0, dtype=mstype.int64):
        super().__init__(seed, seed2)
        self.add_prim_attr("dtype", check_dtype("RandomPoisson", "dtype", dtype,
                                                (mstype.int32, mstype.int64, mstype.float16, mstype.float32,
                                                 mstype.float64)))

    def __call__(self, shape, rate):
        return RD.random_poisson(_shape_arg("RandomPoisson", shape), rate, self._seed, self.dtype)


@_export
class Poisson(_Seeded):
    """int32 Poisson(mean) draws of `shape` broadcast with mean's (the class's documented dtype; no
    CPU kernel in MindSpore 2.10)."""

    def __call__(self, shape, mean):
        return F.cast(RD.poisson(_shape_arg("Poisson", shape), mean, self._seed), mstype.int32)


@_export
class RandomShuffle(_Seeded):
    """x's rows (along the first axis) in a random order."""

    def __call__(self, x):
        return RD.shuffle(x, self._seed)


@_export
class StandardLaplace(_Seeded):
    """float32 draws from Laplace(0, 1) of `shape`."""

    def __call__(self, shape):
        return RD.standard_laplace(_shape_arg("StandardLaplace", shape), self._seed)

"""MindSpore 2.10's small math layers: Norm, MatMul, Moments, ReduceLogSumExp and BiDense (whose
`weight` [out, in1, in2] and `bias` [out] are drawn from U(+-1/sqrt(in1_channels)) in that order,
bit for bit as 2.10's after set_seed, measured)."""
from __future__ import annotations

import math

from ...common.initializer import Uniform
from ...dtype import float16, float32
from ...ops import functional as F
from ..cell import Cell
from ._init import make_param


class Norm(Cell):
    """sqrt(sum(x^2)) over `axis` (() every axis)."""

    def __init__(self, axis=(), keep_dims=False):
        super().__init__()
        self.axis, self.keep_dims = axis, keep_dims

    def construct(self, x):
        return F.sqrt(F.reduce_sum(F.square(x), self.axis, self.keep_dims))

    def extend_repr(self):
        return f"axis={self.axis}, keep_dims={self.keep_dims}"


class MatMul(Cell):
    """ops.matmul of x1 and x2 (broadcasting their batch axes), each transposed first if asked."""

    def __init__(self, transpose_x1=False, transpose_x2=False):
        super().__init__()
        self.transpose_x1, self.transpose_x2 = transpose_x1, transpose_x2

    def construct(self, x1, x2):
        if self.transpose_x1 and x1.ndim >= 2:
            x1 = F.swapaxes(x1, -1, -2)
        if self.transpose_x2 and x2.ndim >= 2:
            x2 = F.swapaxes(x2, -1, -2)
        return F.matmul(x1, x2)


class Moments(Cell):
    """(mean, biased variance) over `axis` (None or (): every axis); float16 is computed in
    float32 and cast back (as measured: 2.10 returns float16)."""

    def __init__(self, axis=None, keep_dims=None):
        super().__init__()
        self.axis = () if axis is None else axis
        self.keep_dims = bool(keep_dims)

    def construct(self, x):
        if not x.dtype.is_floating:   # MindSpore 2.10 refuses integers (and float64, which is kept here)
            raise TypeError(f"For 'Moments', the 'input x' should be one of [mindspore.float16, mindspore.float32], "
                            f"but got 'mindspore.{x.dtype.name}'.")
        wide = F.cast(x, float32) if x.dtype is float16 else x
        mean = F.mean(wide, self.axis, True)
        var = F.mean(F.square(F.sub(wide, mean)), self.axis, self.keep_dims)
        if not self.keep_dims:
            mean = F.mean(wide, self.axis, False)
        return F.cast(mean, x.dtype), F.cast(var, x.dtype)


class ReduceLogSumExp(Cell):
    """log(sum(exp(x))) over `axis`, computed stably."""

    def __init__(self, axis, keep_dims=False):
        super().__init__()
        self.axis, self.keep_dims = axis, keep_dims

    def construct(self, x):
        return F.logsumexp(x, self.axis, self.keep_dims)


class BiDense(Cell):
    """y = x1^T W x2 + b for each output: input1 [..., in1], input2 [..., in2] -> [..., out]."""

    def __init__(self, in1_channels, in2_channels, out_channels, weight_init=None, bias_init=None, has_bias=True,
                 dtype=float32):
        super().__init__()
        for name, value in (("in1_channels", in1_channels), ("in2_channels", in2_channels),
                            ("out_channels", out_channels)):
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"For 'BiDense', the '{name}' must be int and must > 0, but got '{value}' with type "
                                 f"'{type(value).__name__}'.")
        self.in1_channels, self.in2_channels, self.out_channels = in1_channels, in2_channels, out_channels
        self.has_bias = has_bias
        bound = 1.0 / math.sqrt(in1_channels)
        self.weight = make_param(weight_init if weight_init is not None else Uniform(bound),
                                 (out_channels, in1_channels, in2_channels), "weight", dtype)
        self.bias = None
        if has_bias:
            self.bias = make_param(bias_init if bias_init is not None else Uniform(bound), (out_channels,), "bias",
                                   dtype)

    def construct(self, input1, input2):
        for name, x, size in (("input1", input1, self.in1_channels), ("input2", input2, self.in2_channels)):
            if x.shape[-1] != size:
                which = name[-1]
                raise ValueError(f"For 'BiDense', the last dimension of '{name}' must be same as "
                                 f"'in{which}_channels', but got {x.shape[-1]} of '{name}' and {size} of "
                                 f"'in{which}_channels'")
        lead = tuple(input1.shape[:-1])
        x1 = F.reshape(input1, (-1, self.in1_channels))
        x2 = F.reshape(input2, (-1, self.in2_channels))
        # (x1 W_o) . x2 for each output o: one matmul to [M, out * in2], then a product and a sum
        w = F.reshape(F.transpose(self.weight, (1, 0, 2)), (self.in1_channels, -1))
        left = F.reshape(F.matmul(x1, w), (-1, self.out_channels, self.in2_channels))
        y = F.reduce_sum(F.mul(left, F.expand_dims(x2, 1)), -1)
        if self.bias is not None:
            y = F.add(y, self.bias)
        return F.reshape(y, lead + (self.out_channels,))

    def extend_repr(self):
        s = (f"in1_channels={self.in1_channels}, in2_channels={self.in2_channels}, "
             f"output_channels={self.out_channels}")
        return s + (", has_bias=True" if self.has_bias else "")

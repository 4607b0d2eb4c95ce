"""MaxPool2d and AvgPool2d with MindSpore's defaults (stride 1, pad_mode 'valid')."""
from __future__ import annotations

import numpy as np

from ...ops import functional as F
from ...tensor import Tensor
from ..cell import Cell
from .conv import _pair, explicit_padding


def _ceil_extra(size, kernel, stride, lo, hi):
    """Extra bottom/right padding so the last partial window counts (ceil_mode)."""
    span = size + lo + hi - kernel
    return (-span) % stride if span % stride else 0


class _Pool2d(Cell):
    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1,
                 ceil_mode=False, op="MaxPool2d"):
        super().__init__()
        self.kernel_size, self.stride = _pair(kernel_size, "kernel_size"), _pair(stride, "stride")
        if _pair(dilation, "dilation") != (1, 1):
            raise ValueError(f"{op}: dilation other than 1 is not supported")
        self.pad_mode, self.padding, self.ceil_mode, self.op = pad_mode, padding, ceil_mode, op
        explicit_padding(pad_mode, padding, (1, 1), self.kernel_size, self.stride, (1, 1), op)

    def _window(self, x):
        self.check_input(x, rank=4, what="input [N, C, H, W]")
        pads = explicit_padding(self.pad_mode, self.padding, x.shape[2:], self.kernel_size,
                                self.stride, (1, 1), self.op)
        if self.ceil_mode:
            pads = tuple((lo, hi + _ceil_extra(x.shape[2 + i], self.kernel_size[i], self.stride[i], lo, hi))
                         for i, (lo, hi) in enumerate(pads))
        return (1, 1, *self.kernel_size), (1, 1, *self.stride), ((0, 0), (0, 0), *pads)

    def extend_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}"


class MaxPool2d(_Pool2d):
    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1,
                 return_indices=False, ceil_mode=False, data_format="NCHW"):
        super().__init__(kernel_size, stride, pad_mode, padding, dilation, ceil_mode, "MaxPool2d")
        if return_indices:
            raise ValueError("MaxPool2d: return_indices=True is not supported")

    def construct(self, x):
        return F.max_pool(x, *self._window(x))


class AvgPool2d(_Pool2d):
    """'same' and ceil_mode divide by the real elements of each window; 'pad' by kh*kw
    unless count_include_pad=False."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None, data_format="NCHW"):
        super().__init__(kernel_size, stride, pad_mode, padding, 1, ceil_mode, "AvgPool2d")
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def construct(self, x):
        window, strides, pads = self._window(x)
        total = F.sum_pool(x, window, strides, pads)
        if self.divisor_override:
            return F.div(total, float(self.divisor_override))
        real_only = self.pad_mode.lower() == "same" or not self.count_include_pad or self.ceil_mode
        if not real_only or all(p == (0, 0) for p in pads):
            return F.div(total, float(np.prod(self.kernel_size)))
        # The divisor per output position counts the real (unpadded) elements of its window.
        ones = np.ones((1, 1) + x.shape[2:], dtype=x.dtype.np_dtype)
        counts = F.sum_pool(Tensor(ones), window, strides, pads)
        return F.div(total, counts)

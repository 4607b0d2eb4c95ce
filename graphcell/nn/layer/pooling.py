"""MaxPool2d and AvgPool2d with MindSpore's defaults (stride 1, pad_mode 'valid')."""
from __future__ import annotations

import numpy as np

from ...ops import functional as F
from ...tensor import Tensor
from ..cell import Cell
from .conv import _pair, check_data_format, explicit_padding


def _ceil_extra(size, kernel, stride, lo, hi):
    """Extra bottom/right padding so the last partial window counts (ceil_mode), unless that
    window would start past the input and its left padding (torch's rule, which MindSpore's
    'pad' mode follows): it would hold padding only."""
    span = size + lo + hi - kernel
    out = -(-span // stride) + 1
    if (out - 1) * stride >= size + lo:
        out -= 1
    return max(0, (out - 1) * stride + kernel - (size + lo + hi))


def _pool_padding(padding, op):
    """MindSpore's pooling padding: an int, (p,) or (height, width), each padding both sides of
    its axis; (top, bottom, left, right) as Conv2d's is taken too."""
    if isinstance(padding, int):
        return padding
    pads = tuple(int(p) for p in padding)
    if len(pads) == 1:
        return pads[0]
    if len(pads) == 2:
        return (pads[0], pads[0], pads[1], pads[1])
    if len(pads) == 4:
        return pads
    raise ValueError(f"For '{op}', padding must be an int or a tuple of one or two ints (height, width), "
                     f"got {padding!r}")


class _Pool2d(Cell):
    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1,
                 ceil_mode=False, op="MaxPool2d"):
        super().__init__()
        self.kernel_size, self.stride = _pair(kernel_size, "kernel_size"), _pair(stride, "stride")
        if _pair(dilation, "dilation") != (1, 1):
            raise ValueError(f"{op}: dilation other than 1 is not supported")
        self.pad_mode, self.padding, self.ceil_mode, self.op = pad_mode, _pool_padding(padding, op), ceil_mode, op
        explicit_padding(pad_mode, self.padding, (1, 1), self.kernel_size, self.stride, (1, 1), op)

    def _window(self, x):
        """(window, strides, padding) over [N, C, H, W], and the padding without ceil_mode's."""
        self.check_input(x, rank=4, what="input [N, C, H, W]")
        explicit = explicit_padding(self.pad_mode, self.padding, x.shape[2:], self.kernel_size,
                                    self.stride, (1, 1), self.op)
        pads = explicit
        if self.ceil_mode:
            pads = tuple((lo, hi + _ceil_extra(x.shape[2 + i], self.kernel_size[i], self.stride[i], lo, hi))
                         for i, (lo, hi) in enumerate(pads))
        return (1, 1, *self.kernel_size), (1, 1, *self.stride), ((0, 0), (0, 0), *pads), explicit

    def extend_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}"


class MaxPool2d(_Pool2d):
    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1,
                 return_indices=False, ceil_mode=False, data_format="NCHW"):
        super().__init__(kernel_size, stride, pad_mode, padding, dilation, ceil_mode, "MaxPool2d")
        check_data_format("MaxPool2d", data_format)
        if return_indices:
            raise ValueError("MaxPool2d: return_indices=True is not supported")

    def construct(self, x):
        return F.max_pool(x, *self._window(x)[:3])


class AvgPool2d(_Pool2d):
    """'same' divides by the real elements of each window; 'pad' by kh*kw, or with ceil_mode
    by the window's elements and explicit padding (torch's rule), and by the real elements only
    with count_include_pad=False."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None, data_format="NCHW"):
        super().__init__(kernel_size, stride, pad_mode, padding, 1, ceil_mode, "AvgPool2d")
        check_data_format("AvgPool2d", data_format)
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def construct(self, x):
        window, strides, pads, explicit = self._window(x)
        total = F.sum_pool(x, window, strides, pads)
        if self.divisor_override:
            return F.div(total, float(self.divisor_override))
        if all(p == (0, 0) for p in pads[2:]):
            return F.div(total, float(np.prod(self.kernel_size)))
        # The divisor per output position counts its window's real elements, and with
        # count_include_pad in 'pad' mode the explicit padding too, never ceil_mode's extra.
        counted = np.ones(x.shape[2:], dtype=x.dtype.np_dtype)
        if self.pad_mode.lower() == "pad" and self.count_include_pad:
            counted = np.pad(counted, explicit, constant_values=1)
            pads = ((0, 0), (0, 0)) + tuple((0, hi - h) for (_, hi), (_, h) in zip(pads[2:], explicit))
        counts = F.sum_pool(Tensor(counted[None, None]), window, strides, pads)
        return F.div(total, counts)

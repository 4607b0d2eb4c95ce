"""Pooling layers with MindSpore's defaults (stride 1, pad_mode 'valid'): MaxPool2d, AvgPool2d,
MaxPool1d, AvgPool1d, and the adaptive pools."""
from __future__ import annotations

import numbers

from ...ops import functional as F
from ...ops import pooling as P
from ..cell import Cell
from .conv import _pair, check_data_format, explicit_padding


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
    """The window arithmetic of MindSpore's pools, over (H, W). The 1-D pools are the 2-D ones
    over a height of 1 (kernel, stride and padding 1, 1 and 0 on it), with that axis dropped from
    the windows they pool with, so their graphs pool the [N, C, L] input directly."""
    _spatial = 2
    _ranks = (4,)
    _layout = "[N, C, H, W]"

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1,
                 ceil_mode=False, op="MaxPool2d"):
        super().__init__()
        self.kernel_size, self.stride = _pair(kernel_size, "kernel_size"), _pair(stride, "stride")
        if _pair(dilation, "dilation") != (1, 1):
            raise ValueError(f"{op}: dilation other than 1 is not supported")
        self.pad_mode, self.padding, self.ceil_mode, self.op = pad_mode, _pool_padding(padding, op), ceil_mode, op
        explicit_padding(pad_mode, self.padding, (1, 1), self.kernel_size, self.stride, (1, 1), op)

    def _window(self, x):
        """(window, strides, padding) over x's pooled axes (the last one or two), and the
        padding without ceil_mode's."""
        self.check_input(x, rank=self._ranks, what=f"input {self._layout}")
        spatial = (1,) * (2 - self._spatial) + tuple(x.shape[-self._spatial:])
        explicit = explicit_padding(self.pad_mode, self.padding, spatial, self.kernel_size,
                                    self.stride, (1, 1), self.op)
        pads = explicit
        if self.ceil_mode:
            pads = tuple((lo, hi + P.ceil_extra(spatial[i], self.kernel_size[i], self.stride[i], lo, hi))
                         for i, (lo, hi) in enumerate(pads))
        drop = 2 - self._spatial
        return self.kernel_size[drop:], self.stride[drop:], pads[drop:], explicit[drop:]

    def _full(self, x, window, strides, pads):
        """The per-axis window of x's rank: 1s (no padding) over the leading axes."""
        lead = x.ndim - len(window)
        return (1,) * lead + tuple(window), (1,) * lead + tuple(strides), ((0, 0),) * lead + tuple(pads)

    def extend_repr(self):
        drop = 2 - self._spatial
        return f"kernel_size={self.kernel_size[drop:]}, stride={self.stride[drop:]}, pad_mode={self.pad_mode}"


class MaxPool2d(_Pool2d):
    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1,
                 return_indices=False, ceil_mode=False, data_format="NCHW"):
        super().__init__(kernel_size, stride, pad_mode, padding, dilation, ceil_mode, "MaxPool2d")
        check_data_format("MaxPool2d", data_format)
        if return_indices:
            raise ValueError("MaxPool2d: return_indices=True is not supported")

    def construct(self, x):
        window, strides, pads, _ = self._window(x)
        return F.max_pool(x, *self._full(x, window, strides, pads))


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
        # The divisor counts each window's real elements, and with count_include_pad in 'pad'
        # mode the explicit padding too, never ceil_mode's extra.
        counted = explicit if self.pad_mode.lower() == "pad" and self.count_include_pad else ((0, 0),) * len(pads)
        return P.avg_pool(x, window, strides, pads, counted, self.divisor_override)


# -- 1-D pools ----------------------------------------------------------------------------------

def _length_arg(value, name: str, op: str, tuples: bool) -> int:
    """A 1-D pool's kernel_size or stride: a positive int (or, where MindSpore takes it, (int,))."""
    if tuples and isinstance(value, (tuple, list)) and len(value) == 1:
        value = value[0]
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"For '{op}', the '{name}' must be int, but got '{type(value).__name__}'")
    if value < 1:
        raise ValueError(f"For '{op}', the '{name}' must be an positive int number or a tuple, but got {value}")
    return int(value)


def _padding_arg(padding, op: str) -> int:
    if isinstance(padding, (tuple, list)):
        if len(padding) != 1:
            raise ValueError(f"For {op}, the padding must be a int or tuple/list contains one int, but got "
                             f"tuple/list with length:{len(padding)}.")
        padding = padding[0]
    if isinstance(padding, bool) or not isinstance(padding, numbers.Integral) or padding < 0:
        raise ValueError(f"For {op}, the padding must be a non-negative int, but got {padding!r}.")
    return int(padding)


class _Pool1d(_Pool2d):
    """Over [N, C, L] or [C, L] inputs (MindSpore 2.10 takes both)."""
    _spatial = 1
    _ranks = (2, 3)
    _layout = "[N, C, L] or [C, L]"

    def __init__(self, kernel_size, stride, pad_mode, padding, ceil_mode, op, tuples):
        kernel = _length_arg(kernel_size, "kernel_size", op, tuples)
        step = _length_arg(stride, "stride", op, tuples)
        mode = pad_mode.upper() if isinstance(pad_mode, str) else pad_mode
        if mode not in ("VALID", "SAME", "PAD"):
            raise ValueError(f"For '{op}', the 'pad_mode' must be str and must be in '['VALID', 'SAME', 'PAD']', "
                             f"but got '{mode}'.")
        pad = _padding_arg(padding, op)
        if mode != "PAD" and pad:
            raise ValueError(f"For '{op}', 'padding' must be 0 when 'pad_mode' is not 'pad', but got padding "
                             f"{pad} and pad_mode '{pad_mode}'.")
        super().__init__((1, kernel), (1, step), pad_mode, (0, 0, pad, pad), 1, ceil_mode, op)


class MaxPool1d(_Pool1d):
    """Max pooling over the last axis. Padding never wins the max; in 'pad' mode it is at most
    half the kernel, and ceil_mode is taken in 'pad' mode only (MindSpore 2.10's checks)."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        op = "MaxPool1d"
        if (isinstance(pad_mode, str) and pad_mode.lower() != "pad"
                and (padding != 0 or dilation != 1 or return_indices or ceil_mode)):
            raise ValueError(f"For {op}, the parameter 'padding', 'dilation', 'return_indices', 'ceil_mode' can "
                             f"not be set to non-default value when pad_mode is not 'pad', but got "
                             f"pad_mode:{pad_mode}.")
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode, op, tuples=False)
        if dilation != 1:
            raise ValueError(f"{op}: dilation other than 1 is not supported")
        if return_indices:
            raise ValueError(f"{op}: return_indices=True is not supported")
        pad, kernel = self.padding[2], self.kernel_size[1]
        if 2 * pad > kernel:
            raise ValueError(f"For {op}, the padding ({pad}) must be at most half the kernel size ({kernel}).")

    def construct(self, x):
        window, strides, pads, _ = self._window(x)
        return F.max_pool(x, *self._full(x, window, strides, pads))


class AvgPool1d(_Pool1d):
    """Average pooling over the last axis, with AvgPool2d's divisors ('same': the real
    elements; 'pad': the kernel, or with count_include_pad=False the real elements)."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True):
        op = "AvgPool1d"
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode, op, tuples=True)
        pad, kernel = self.padding[2], self.kernel_size[1]
        if 2 * pad > kernel:
            raise ValueError(f"For {op}, the padding ({pad} at each end) must be at most half the kernel size "
                             f"({kernel}).")
        self.count_include_pad = count_include_pad

    def construct(self, x):
        window, strides, pads, explicit = self._window(x)
        counted = explicit if self.pad_mode.lower() == "pad" and self.count_include_pad else ((0, 0),)
        return P.avg_pool(x, window, strides, pads, counted)


# -- adaptive pools ---------------------------------------------------------------------------

class AdaptiveAvgPool2d(Cell):
    """The average of each adaptive window over [N, C, H, W] or [C, H, W] (ops.adaptive_avg_pool2d).
    `output_size`: an int, or (h, w) where None keeps that axis' size."""

    def __init__(self, output_size):
        super().__init__()
        P._output_size_2d(output_size, (1, 1), "AdaptiveAvgPool2d")   # checked now, applied per input
        self.output_size = output_size

    def construct(self, x):
        return P.adaptive_avg_pool2d(x, self.output_size)

    def extend_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveMaxPool2d(Cell):
    """The maximum of each adaptive window over [N, C, H, W] or [C, H, W]; with return_indices,
    (values, int64 indices into each H*W plane)."""

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        P._output_size_2d(output_size, (1, 1), "AdaptiveMaxPool2d")
        if not isinstance(return_indices, bool):
            raise TypeError(f"For 'AdaptiveMaxPool2d', 'return_indices' must be a bool, but got {return_indices!r}")
        self.output_size, self.return_indices = output_size, return_indices

    def construct(self, x):
        return P.adaptive_max_pool2d(x, self.output_size, self.return_indices)

    def extend_repr(self):
        return f"output_size={self.output_size}, return_indices={self.return_indices}"


class AdaptiveAvgPool1d(Cell):
    """[N, C, L] -> [N, C, output_size], averages of L/output_size elements (output_size must
    divide L, as in MindSpore 2.10)."""

    def __init__(self, output_size):
        super().__init__()
        P._check_output_size_1d(output_size, "AdaptiveAvgPool1d")
        self.output_size = output_size

    def construct(self, x):
        P._check_1d(x, self.output_size, "AdaptiveAvgPool1d")
        return P.adaptive_avg_pool1d(x, self.output_size)

    def extend_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(Cell):
    """[N, C, L] -> [N, C, output_size], maxima of L/output_size elements (output_size must
    divide L, as in MindSpore 2.10)."""

    def __init__(self, output_size):
        super().__init__()
        P._check_output_size_1d(output_size, "AdaptiveMaxPool1d")
        self.output_size = output_size

    def construct(self, x):
        P._check_1d(x, self.output_size, "AdaptiveMaxPool1d")
        return P.adaptive_max_pool1d(x, self.output_size)

    def extend_repr(self):
        return f"output_size={self.output_size}"

"""Pooling layers with MindSpore's defaults (stride 1, pad_mode 'valid'): MaxPool1d/2d/3d,
AvgPool1d/2d/3d, and the adaptive pools."""
from __future__ import annotations

import numbers

from ...ops import pooling as P
from ..cell import Cell
from .conv import _pair, check_data_format, explicit_padding, same_padding


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

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False, op="MaxPool2d"):
        super().__init__()
        if self._spatial == 2:
            _pool2d_arg(kernel_size, "kernel_size", op)
            _pool2d_arg(stride, "stride", op)
            _pool_pad_mode(pad_mode, op)
        # what MindSpore 2.10 prints: the 2-D pools' arguments as given (the 1-D pools set theirs)
        self._printed = (kernel_size, stride)
        self.kernel_size, self.stride = _pair(kernel_size, "kernel_size"), _pair(stride, "stride")
        self._dilation = (1, 1)   # MaxPool's dilation, (1, d) for MaxPool1d
        self.pad_mode, self.padding, self.ceil_mode, self.op = pad_mode, _pool_padding(padding, op), ceil_mode, op
        explicit_padding(pad_mode, self.padding, (1, 1), self.kernel_size, self.stride, (1, 1), op)

    def _window(self, x):
        """(window, strides, padding) over x's pooled axes (the last one or two), and the
        padding without ceil_mode's."""
        self.check_input(x, rank=self._ranks, what=f"input {self._layout}")
        spatial = (1,) * (2 - self._spatial) + tuple(x.shape[-self._spatial:])
        explicit = explicit_padding(self.pad_mode, self.padding, spatial, self.kernel_size,
                                    self.stride, (1, 1), self.op)
        pads = P.with_ceil(spatial, self.kernel_size, self.stride, explicit, self._dilation, self.ceil_mode)
        drop = 2 - self._spatial
        return self.kernel_size[drop:], self.stride[drop:], pads[drop:], explicit[drop:]

    def extend_repr(self):
        kernel, stride = self._printed
        return f"kernel_size={kernel}, stride={stride}, pad_mode={self.pad_mode.upper()}"


def _pool2d_arg(value, name: str, op: str) -> None:
    """A 2-D pool's kernel_size or stride: a positive int or a tuple of them (MindSpore 2.10's messages)."""
    if isinstance(value, bool) or not isinstance(value, (int, tuple)):
        raise TypeError(f"For '{op}', the type of '{name}' should be one of '['int', 'tuple']', but got type "
                        f"'{type(value).__name__}'.")
    values = (value,) if isinstance(value, int) else value
    if not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in values):
        raise ValueError(f"For '{op}', the '{name}' must be an positive int number or a tuple, but got {value}")


def _pool_pad_mode(pad_mode, op: str) -> str:
    mode = pad_mode.upper() if isinstance(pad_mode, str) else pad_mode
    if mode not in ("VALID", "SAME", "PAD"):
        raise ValueError(f"For '{op}', the 'pad_mode' must be str and must be in '['VALID', 'SAME', 'PAD']', "
                         f"but got '{mode}'.")
    return mode


def _check_pad_mode_only(op: str, pad_mode, padding, dilation, return_indices, ceil_mode) -> None:
    """MindSpore 2.10's MaxPool1d and MaxPool2d take these arguments in pad mode 'pad' only."""
    if (isinstance(pad_mode, str) and pad_mode.lower() != "pad"
            and (padding != 0 or dilation != 1 or return_indices or ceil_mode)):
        raise ValueError(f"For {op}, the parameter 'padding', 'dilation', 'return_indices', 'ceil_mode' can "
                         f"not be set to non-default value when pad_mode is not 'pad', but got "
                         f"pad_mode:{pad_mode}.")


def _max_dilation(op: str, dilation, n: int) -> tuple:
    """MaxPool1d's or MaxPool2d's dilation: an int or a tuple of 1 or n ints >= 1, as n ints."""
    if isinstance(dilation, list):
        raise ValueError(f"For {op}, the 'dilation' must be int or tuple, but got {type(dilation)}.")
    values = (dilation,) if isinstance(dilation, int) else tuple(dilation)
    if len(values) not in (1, n):
        raise ValueError(f"For {op}, the length of 'dilation' must be 1{' or 2' * (n == 2)}, but got {len(values)}.")
    if not all(isinstance(d, int) and not isinstance(d, bool) and d >= 1 for d in values):
        raise ValueError(f"For '{op}', the parameter 'dilation' must be a positive int or a tuple of positive ints, "
                         f"but got {dilation!r}.")
    return values * n if len(values) == 1 else values


class MaxPool2d(_Pool2d):
    """Max pooling over [N, C, H, W] or [C, H, W]. In pad mode 'pad' only (MindSpore 2.10's
    rule): padding (an int or (h, w), at most half the kernel), dilation, ceil_mode and
    return_indices, which adds each maximum's int64 index into its H*W plane (the first among
    equals, torch's index)."""
    _ranks = (3, 4)
    _layout = "[N, C, H, W] or [C, H, W]"

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1,
                 return_indices=False, ceil_mode=False, data_format="NCHW"):
        op = "MaxPool2d"
        _check_pad_mode_only(op, pad_mode, padding, dilation, return_indices, ceil_mode)
        if isinstance(padding, (tuple, list)) and len(padding) not in (1, 2):
            raise ValueError(f"For {op}, the length of padding must equal to 2, but got {len(padding)}.")
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode, op)
        check_data_format(op, data_format)
        self.dilation = self._dilation = _max_dilation(op, dilation, 2)
        self.return_indices = return_indices
        pads = self.padding if isinstance(self.padding, tuple) else (self.padding,) * 4
        if any(p < 0 for p in pads):
            raise ValueError(f"For '{op}', the padding must be non-negative, but got {padding!r}.")
        P.check_half_kernel(op, (pads[:2], pads[2:]), self.kernel_size)

    def construct(self, x):
        window, strides, pads, _ = self._window(x)
        return P.max_pool_nd(x, window, strides, pads, self._dilation, bool(self.return_indices))


class AvgPool2d(_Pool2d):
    """'same' divides by the real elements of each window; 'pad' by kh*kw, or with ceil_mode
    by the window's elements and explicit padding (torch's rule), and by the real elements only
    with count_include_pad=False. Takes [N, C, H, W] or [C, H, W], as MaxPool2d."""
    _ranks = (3, 4)
    _layout = "[N, C, H, W] or [C, H, W]"

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None, data_format="NCHW"):
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode, "AvgPool2d")
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
        mode = _pool_pad_mode(pad_mode, op)
        pad = _padding_arg(padding, op)
        if mode != "PAD" and pad:
            raise ValueError(f"For '{op}', 'padding' must be 0 when 'pad_mode' is not 'pad', but got padding "
                             f"{pad} and pad_mode '{pad_mode}'.")
        super().__init__((1, kernel), (1, step), pad_mode, (0, 0, pad, pad), ceil_mode, op)
        # MindSpore 2.10 prints the height-1 2-D pool's window, in pad mode MaxPool1d's 3-D one
        # and AvgPool1d's arguments as given
        if mode != "PAD":
            self._printed = ((1, kernel), (1, step))
        elif op == "MaxPool1d":
            self._printed = ((1, 1, kernel), (1, 1, step))
        else:
            self._printed = (kernel_size, stride)


class MaxPool1d(_Pool1d):
    """Max pooling over the last axis. Padding never wins the max; padding (at most half the
    kernel), dilation, ceil_mode and return_indices (int64 indices along L) are taken in 'pad'
    mode only (MindSpore 2.10's checks)."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        op = "MaxPool1d"
        _check_pad_mode_only(op, pad_mode, padding, dilation, return_indices, ceil_mode)
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode, op, tuples=False)
        (d,) = _max_dilation(op, dilation, 1)
        self.dilation, self._dilation, self.return_indices = dilation, (1, d), return_indices
        pad, kernel = self.padding[2], self.kernel_size[1]
        if 2 * pad > kernel:
            raise ValueError(f"For {op}, the padding ({pad}) must be at most half the kernel size ({kernel}).")

    def construct(self, x):
        window, strides, pads, _ = self._window(x)
        return P.max_pool_nd(x, window, strides, pads, self._dilation[1:], bool(self.return_indices))


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


# -- 3-D pools ----------------------------------------------------------------------------------

def _pool3d_ints(value, name: str, op: str, prim: str) -> tuple:
    """A 3-D pool's kernel_size or stride: a positive int or three (MindSpore 2.10's messages)."""
    if isinstance(value, bool) or not isinstance(value, (int, tuple)):
        raise TypeError(f"For '{op}', the type of '{name}' should be one of '['int', 'tuple']', but got type "
                        f"'{type(value).__name__}'.")
    if isinstance(value, int):
        if value < 1:
            raise ValueError(f"For '{op}', the '{name}' must be an positive int number or a tuple, but got {value}")
        return (value,) * 3
    if len(value) != 3 or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in value):
        raise ValueError(f"For '{prim}', the parameter '{name}' must be an positive integer or a tuple of three "
                         f"positive integer, but got {value}")
    return value


class _Pool3d(Cell):
    """The arguments and windows of MaxPool3d and AvgPool3d over [N, C, D, H, W] or [C, D, H, W]
    (float): 'same' pads as Conv3d (the odd element after), 'pad' pads both sides of each axis
    by `padding` (an int or (d, h, w)), at most half the kernel."""

    def __init__(self, op: str, prim: str, kernel_size, stride, pad_mode, padding, ceil_mode):
        super().__init__()
        self._kernel = _pool3d_ints(kernel_size, "kernel_size", op, prim)
        self._stride = _pool3d_ints(stride, "stride", op, prim)
        mode = pad_mode.upper() if isinstance(pad_mode, str) else pad_mode
        if mode not in ("VALID", "SAME", "PAD"):
            raise ValueError(f"For '{op}', the 'pad_mode' must be str and must be in '['VALID', 'SAME', 'PAD']', "
                             f"but got '{mode}'.")
        pads = (padding,) * 3 if isinstance(padding, int) else tuple(padding)
        if len(pads) == 1:
            pads = pads * 3
        if len(pads) != 3:
            raise ValueError(f"For {op}, the length of padding must equal to 3, but got {len(pads)}." if op == "MaxPool3d"
                             else f"For {op}, the padding must be a int or tuple/list contains 1 or 3 int, but got "
                                  f"tuple/list with length:{len(pads)}.")
        if not all(isinstance(p, int) and not isinstance(p, bool) and p >= 0 for p in pads):
            raise ValueError(f"For '{op}', the parameter 'padding' must be an non-negative integer or a tuple of three "
                             f"non-negative integer, but got {pads}")
        self._pads = tuple((p, p) for p in pads)
        P.check_half_kernel(op, self._pads, self._kernel)
        self.kernel_size, self.stride, self.pad_mode, self.padding = kernel_size, stride, mode, padding
        self.ceil_mode, self.op = ceil_mode, op

    def _explicit(self, x):
        """The padding of x's three pooled axes (ceil_mode's extra not included)."""
        self.check_input(x, rank=(4, 5), what="input [N, C, D, H, W] or [C, D, H, W]")
        P._check_float(x, self.op)
        if self.pad_mode == "SAME":
            return tuple(same_padding(n, k, s, 1) for n, k, s in zip(x.shape[-3:], self._kernel, self._stride))
        return self._pads if self.pad_mode == "PAD" else ((0, 0),) * 3

    def _check_size(self, x, pads, dilation=(1, 1, 1)):
        if any(P.pool_output(n, k, s, lo, hi, d) < 1
               for n, k, s, (lo, hi), d in zip(x.shape[-3:], self._kernel, self._stride, pads, dilation)):
            raise ValueError(f"For '{self.op}', the input's {list(x.shape[-3:])} (padded by {list(pads)}) is smaller "
                             f"than the kernel {self._kernel}.")

    def extend_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}"


class MaxPool3d(_Pool3d):
    """Max pooling over [N, C, D, H, W] or [C, D, H, W]. dilation, return_indices (int64 indices
    into each D*H*W volume, the first maximum among equals) and ceil_mode in pad mode 'pad' only,
    as MindSpore 2.10."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        op = "MaxPool3d"
        not_pad = not (isinstance(pad_mode, str) and pad_mode.lower() == "pad")
        if not_pad and (dilation != 1 or return_indices):
            raise ValueError(f"For {op}, the pad_mode must be 'pad' when dilation is not 1 or return_indices is True, "
                             f"but got pad_mode:{pad_mode}.")
        super().__init__(op, "MaxPool3D", kernel_size, stride, pad_mode, padding, ceil_mode)
        if not_pad and any(lo for lo, _ in self._pads):
            raise ValueError(f"For 'MaxPool3D', the 'pad_list' must be zero or (0, 0, 0, 0, 0, 0) when 'pad_mode' is "
                             f"not \"pad\", but got 'pad_list' is {tuple(lo for lo, _ in self._pads)} and 'pad_mode' "
                             f"is {pad_mode}.")
        if not_pad and ceil_mode:
            raise ValueError("When the 'pad_mode' is 'same' or 'valid', the 'ceil_mode' only supports 'None'.")
        dilations = (dilation,) * 3 if isinstance(dilation, int) else dilation
        if not isinstance(dilations, tuple) or len(dilations) != 3 or \
                not all(isinstance(d, int) and not isinstance(d, bool) and d >= 1 for d in dilations):
            raise ValueError(f"For 'MaxPool3d', the parameter 'dilation' must be an positive integer or a tuple of "
                             f"three positive integer, but got {dilation!r}")
        self.dilation, self.return_indices = dilations, return_indices

    def construct(self, x):
        explicit = self._explicit(x)
        pads = P.with_ceil(x.shape[-3:], self._kernel, self._stride, explicit, self.dilation, bool(self.ceil_mode))
        self._check_size(x, pads, self.dilation)
        return P.max_pool_nd(x, self._kernel, self._stride, pads, self.dilation, bool(self.return_indices))


class AvgPool3d(_Pool3d):
    """Average pooling over [N, C, D, H, W] or [C, D, H, W]. The divisor counts each window's
    real elements, and with count_include_pad the padding of 'same' and 'pad' modes too (in
    'same' mode too, unlike AvgPool2d: measured on MindSpore 2.10), never ceil_mode's extra;
    divisor_override (> 0) replaces it."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        op = "AvgPool3d"
        super().__init__(op, "AvgPool3D", kernel_size, stride, pad_mode, padding, ceil_mode)
        if self.pad_mode != "PAD" and any(lo for lo, _ in self._pads):
            raise ValueError(f"For 'AvgPool3D', the 'pad' must be zero or (0, 0, 0, 0, 0, 0) when 'pad_mode' is not "
                             f"\"PAD\", but got 'pad' is {tuple(v for lo, _ in self._pads for v in (lo, lo))} and "
                             f"'pad_mode' is {pad_mode}.")
        if not isinstance(count_include_pad, bool):
            raise TypeError(f"For 'AvgPool3D', the type of 'count_include_pad' should be 'bool', but got type "
                            f"'{type(count_include_pad).__name__}'.")
        if divisor_override is not None and (isinstance(divisor_override, bool) or not isinstance(divisor_override, int)
                                             or divisor_override <= 0):
            raise ValueError(f"For '{op}', the 'divisor_override' must be > 0, but got {divisor_override}.")
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def construct(self, x):
        explicit = self._explicit(x)
        ceil = bool(self.ceil_mode) and self.pad_mode != "SAME"
        pads = P.with_ceil(x.shape[-3:], self._kernel, self._stride, explicit, (1, 1, 1), ceil)
        self._check_size(x, pads)
        counted = explicit if self.count_include_pad else ((0, 0),) * 3
        return P.avg_pool(x, self._kernel, self._stride, pads, counted, self.divisor_override)


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

"""MindSpore 2.10's LPPool1d/2d, AdaptiveAvgPool3d/AdaptiveMaxPool3d and MaxUnpool1d/2d/3d layers,
over ops (pooling.py, unpooling.py). None holds a Parameter (as measured)."""
from __future__ import annotations

from ...ops import pooling as P
from ...ops import unpooling as U
from ..cell import Cell


class _LPPool(Cell):
    _fn = None

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode

    def construct(self, x):
        return type(self)._fn(x, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class LPPool1d(_LPPool):
    """ops.lp_pool1d over [N, C, L] or [C, L]."""
    _fn = staticmethod(P.lp_pool1d)


class LPPool2d(_LPPool):
    """ops.lp_pool2d over [N, C, H, W]."""
    _fn = staticmethod(P.lp_pool2d)


class AdaptiveAvgPool3d(Cell):
    """ops.adaptive_avg_pool3d over [N, C, D, H, W] or [C, D, H, W]."""

    def __init__(self, output_size):
        super().__init__()
        P.output_size_nd(output_size, (1, 1, 1), "AdaptiveAvgPool3d", 3)   # checked now, applied per input
        self.output_size = output_size

    def construct(self, input):  # noqa: A002 - MindSpore's name
        return P.adaptive_avg_pool3d(input, self.output_size)


class AdaptiveMaxPool3d(Cell):
    """ops.adaptive_max_pool3d; with return_indices, (values, int32 indices into each D*H*W)."""

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        P.output_size_nd(output_size, (1, 1, 1), "AdaptiveMaxPool3d", 3)
        if not isinstance(return_indices, bool):
            raise TypeError(f"For 'AdaptiveMaxPool3d', 'return_indices' must be a bool, but got {return_indices!r}")
        self.output_size, self.return_indices = output_size, return_indices

    def construct(self, input):  # noqa: A002
        return P.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class _MaxUnpool(Cell):
    _fn = None

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = kernel_size if stride is None else stride   # as MindSpore stores it
        self.padding = padding

    def construct(self, x, indices, output_size=None):
        return type(self)._fn(x, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool1d(_MaxUnpool):
    """ops.max_unpool1d; construct(x, indices, output_size=None)."""
    _fn = staticmethod(U.max_unpool1d)


class MaxUnpool2d(_MaxUnpool):
    """ops.max_unpool2d; construct(x, indices, output_size=None)."""
    _fn = staticmethod(U.max_unpool2d)


class MaxUnpool3d(_MaxUnpool):
    """ops.max_unpool3d; construct(x, indices, output_size=None)."""
    _fn = staticmethod(U.max_unpool3d)

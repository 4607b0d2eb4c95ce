"""MindSpore 2.10's FractionalMaxPool2d / FractionalMaxPool3d layers over ops.fractional_max_pool2d/3d
(ops/fractional_pool.py). Like 2.10's, the constructor checks nothing: a missing output_size
and output_ratio fails at the call, with the functional's message."""
from __future__ import annotations

from ...ops import fractional_pool as FP
from ..cell import Cell


class _FractionalMaxPool(Cell):
    _fn = None

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None):
        super().__init__()
        self.kernel_size, self.output_size, self.output_ratio = kernel_size, output_size, output_ratio
        self.return_indices, self._random_samples = return_indices, _random_samples

    def construct(self, input):  # noqa: A002 - MindSpore's name
        return type(self)._fn(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                              self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPool):
    """ops.fractional_max_pool2d over [N, C, H, W] or [C, H, W]."""
    _fn = staticmethod(FP.fractional_max_pool2d)


class FractionalMaxPool3d(_FractionalMaxPool):
    """ops.fractional_max_pool3d over [N, C, D, H, W] or [C, D, H, W]."""
    _fn = staticmethod(FP.fractional_max_pool3d)

"""MindSpore 2.10's image layers CentralCrop and ImageGradients (measured on 2.10's CPU build)."""
from __future__ import annotations

import numpy as np

from ...ops import functional as F
from ..cell import Cell


class CentralCrop(Cell):
    """The centre of [N, C, H, W] or [C, H, W] images: on each of H and W, start =
    int((n - n * fraction) / 2) (n * fraction in float32) and size = n - 2 * start (measured:
    fraction 0.5 crops 6 x 5 to 4 x 3)."""

    def __init__(self, central_fraction):
        super().__init__()
        if isinstance(central_fraction, bool) or not isinstance(central_fraction, float):
            raise TypeError(f"For 'CentralCrop', the type of 'central_fraction' should be 'float', but got type "
                            f"'{type(central_fraction).__name__}'.")
        if not 0.0 < central_fraction <= 1.0:
            raise ValueError(f"For 'CentralCrop', the 'central_fraction' must be in range of (0.0, 1.0], but got "
                             f"{central_fraction} with type 'float'.")
        self.central_fraction = central_fraction

    def construct(self, image):
        if image.ndim not in (3, 4):
            raise ValueError(f"For 'CentralCrop', the dimension of 'image' must be 3 or 4, but got {image.ndim}.")
        if self.central_fraction == 1.0:
            return image
        out = image
        for axis in (image.ndim - 2, image.ndim - 1):
            n = image.shape[axis]
            start = int((float(n) - float(np.float32(n * self.central_fraction))) / 2)
            out = F.slice_axis(out, axis, start, n - start)
        return out


class ImageGradients(Cell):
    """(dy, dx) of [N, C, H, W] images: the next row's (column's) value minus this one's, zero on
    the last row (column)."""

    def construct(self, images):
        if images.ndim != 4:
            raise ValueError(f"For 'ImageGradients', the dimension of 'images' must be 4d, but got {images.ndim}.")
        h, w = images.shape[2:]
        dy = F.sub(F.slice_axis(images, 2, 1, h), F.slice_axis(images, 2, 0, h - 1))
        dx = F.sub(F.slice_axis(images, 3, 1, w), F.slice_axis(images, 3, 0, w - 1))
        dy = F.pad(dy, ((0, 0), (0, 0), (0, 1), (0, 0)))
        dx = F.pad(dx, ((0, 0), (0, 0), (0, 0), (0, 1)))
        return dy, dx

"""Layers that resample or rearrange pixels: Upsample, PixelShuffle, PixelUnshuffle and Unfold
(MindSpore 2.10's arguments; the ops are in ops/resize.py and ops/patches.py)."""
from __future__ import annotations

import numbers

from ...ops import patches as P
from ...ops import resize as R
from ..cell import Cell


class Upsample(Cell):
    """ops.interpolate as a layer: `size` or `scale_factor`, `mode` ('nearest' by default),
    `align_corners` and `recompute_scale_factor`, checked when called (as MindSpore does)."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.size, self.scale_factor, self.mode = size, scale_factor, mode
        self.align_corners, self.recompute_scale_factor = align_corners, recompute_scale_factor

    def construct(self, x):
        return R.interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners,
                             self.recompute_scale_factor)

    def extend_repr(self):
        what = f"size={self.size}" if self.size is not None else f"scale_factor={self.scale_factor}"
        return f"{what}, mode={self.mode}, align_corners={self.align_corners}"


class PixelShuffle(Cell):
    """[..., C*r*r, H, W] -> [..., C, H*r, W*r] (ops.pixel_shuffle)."""

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = P._factor(upscale_factor, "upscale_factor")

    def construct(self, x):
        return P.pixel_shuffle(x, self.upscale_factor)

    def extend_repr(self):
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Cell):
    """[..., C, H*r, W*r] -> [..., C*r*r, H, W] (ops.pixel_unshuffle)."""

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = P._factor(downscale_factor, "downscale_factor")

    def construct(self, x):
        return P.pixel_unshuffle(x, self.downscale_factor)

    def extend_repr(self):
        return f"downscale_factor={self.downscale_factor}"


def _row_col(values, name: str, labels: tuple) -> tuple:
    """MindSpore's [1, row, col, 1] argument as (row, col)."""
    if not isinstance(values, (tuple, list)):
        raise TypeError(f"For 'Unfold', the type of '{name}' should be one of '['tuple', 'list']', but got type "
                        f"'{type(values).__name__}'.")
    values = list(values)
    if len(values) != 4 or values[0] != 1 or values[3] != 1:
        raise ValueError(f"For 'Unfold' the format of '{name}' must be [1, {labels[0]}, {labels[1]}, 1], but got "
                         f"{values}.")
    row, col = values[1], values[2]
    if any(isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 1 for v in (row, col)):
        raise ValueError(f"For 'Unfold' the {labels[0]} and {labels[1]} in '{name}' must be an positive integer "
                         f"number, but got {labels[0]} is {row}, {labels[1]} is {col}")
    return int(row), int(col)


class Unfold(Cell):
    """Image patches into channels: [N, C, H, W] -> [N, kr*kc*C, out_row, out_col], MindSpore's
    nn.Unfold (its ExtractImagePatches). `ksizes`, `strides` and `rates` are [1, row, col, 1];
    `padding` 'valid' takes whole patches only, 'same' pads with zeros as TensorFlow does.
    The channel axis holds each patch's kernel row, then column, then input channel (TensorFlow's
    layout: MindSpore 2.10's CPU build has no kernel for this op, so it could not be measured)."""

    def __init__(self, ksizes, strides, rates, padding="valid"):
        super().__init__()
        self.ksizes = _row_col(ksizes, "ksizes", ("ksize_row", "ksize_col"))
        self.strides = _row_col(strides, "strides", ("stride_row", "stride_col"))
        self.rates = _row_col(rates, "rates", ("rate_row", "rate_col"))
        if not isinstance(padding, str):
            raise TypeError(f"For 'ExtractImagePatches', the input 'padding' should be a str, but got "
                            f"{type(padding)}.")
        if padding.lower() not in ("same", "valid"):
            raise ValueError(f"For 'Unfold', 'padding' must be 'same' or 'valid' (any case), but got {padding!r}.")
        self.padding = padding.lower()

    def construct(self, x):
        self.check_input(x, rank=4, what="input [N, C, H, W]")
        return P.extract_image_patches(x, self.ksizes, self.strides, self.rates, self.padding)

    def extend_repr(self):
        return f"ksizes={self.ksizes}, strides={self.strides}, rates={self.rates}, padding={self.padding}"

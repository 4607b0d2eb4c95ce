"""Blocks of pixels moved between the spatial and channel axes: `pixel_shuffle` and
`pixel_unshuffle`, `unfold` (im2col) and `fold` (col2im), and nn.Unfold's patch extraction.

Composite (reshapes, transposes, strided slices, pads): every backend, vmap and grad follow.
Orders and messages measured on MindSpore 2.10 (tests/test_patches.py).
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ..tensor import Tensor
from . import functional as F
from .ad_util import dilate, pad_or_crop

__all__ = ["pixel_shuffle", "pixel_unshuffle", "unfold", "fold"]


def _check_tensor(x, op: str):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', the 'input' must be a Tensor, but got '{type(x).__name__}'.")


def _factor(value, name: str) -> int:
    if isinstance(value, bool):
        raise TypeError(f"The '{name}' must be int and must > 0, but got '{value}' with type 'bool'.")
    if not isinstance(value, numbers.Integral):
        raise TypeError(f"The '{name}' must be int, but got '{type(value).__name__}'")
    if value <= 0:
        raise ValueError(f"The '{name}' must be int and must > 0, but got '{value}' with type 'int'.")
    return int(value)


def pixel_shuffle(input, upscale_factor):  # noqa: A002 - MindSpore's names
    """[..., C*r*r, H, W] -> [..., C, H*r, W*r]: each channel group of r*r becomes an r x r block
    (channel c*r*r + i*r + j lands at row h*r + i, column w*r + j)."""
    _check_tensor(input, "pixel_shuffle")
    r = _factor(upscale_factor, "upscale_factor")
    if input.ndim < 3:
        raise ValueError(f"For pixel_shuffle, the dimension of `input` should be larger than 2, but got {input.ndim}.")
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise ValueError("For 'pixel_shuffle', the length of third to last dimension is not divisible by "
                         "`upscale_factor` squared.")
    k = len(lead)
    x = F.reshape(input, (*lead, c // (r * r), r, r, h, w))
    x = F.transpose(x, (*range(k + 1), k + 3, k + 1, k + 4, k + 2))        # [..., C, H, r, W, r]
    return F.reshape(x, (*lead, c // (r * r), h * r, w * r))


def pixel_unshuffle(input, downscale_factor):  # noqa: A002
    """[..., C, H*r, W*r] -> [..., C*r*r, H, W], pixel_shuffle's inverse."""
    _check_tensor(input, "pixel_unshuffle")
    r = _factor(downscale_factor, "downscale_factor")
    if input.ndim < 3:
        raise ValueError(f"For pixel_unshuffle, the dimension of `input` should be larger than 2, but got "
                         f"{input.ndim}.")
    *lead, c, h, w = input.shape
    if h % r or w % r:
        raise ValueError("For 'pixel_unshuffle', the length of second to last 2 dimension should be divisible by "
                         "downscale_factor.")
    k = len(lead)
    x = F.reshape(input, (*lead, c, h // r, r, w // r, r))
    x = F.transpose(x, (*range(k + 1), k + 2, k + 4, k + 1, k + 3))        # [..., C, r, r, H, W]
    return F.reshape(x, (*lead, c * r * r, h // r, w // r))


# -- im2col and col2im --------------------------------------------------------------------------

def _pair(value, name: str, op: str, minimum: int) -> tuple:
    """An int or a 1- or 2-sequence of ints, each >= minimum, as (h, w)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        values = (int(value),)
    elif isinstance(value, (tuple, list)):
        values = tuple(value)
        if len(values) not in (1, 2):
            raise ValueError(f"For '{op}', the {name} size should be in : [1, 2], but got {len(values)}.")
    else:
        raise TypeError(f"For '{op}', the type of '{name}' should be one of '['int', 'tuple', 'list']', but got type "
                        f"'{type(value).__name__}'.")
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < minimum:
            relation = "> 0" if minimum == 1 else ">= 0"
            raise ValueError(f"For '{op}', the '{name}[{i}]' must be int and must {relation}, but got '{v}' with type "
                             f"'{type(v).__name__}'.")
    return (int(values[0]),) * 2 if len(values) == 1 else (int(values[0]), int(values[1]))


def _blocks(size: tuple, kernel: tuple, dilation: tuple, padding: tuple, stride: tuple) -> tuple:
    return tuple((n + 2 * p - d * (k - 1) - 1) // s + 1
                 for n, k, d, p, s in zip(size, kernel, dilation, padding, stride))


def _window_slices(x, kernel: tuple, dilation: tuple, stride: tuple, out: tuple) -> list:
    """x[..., i*dh :: sh, j*dw :: sw] cut to `out`, for each kernel position (i, j) row-major."""
    h_axis, w_axis = x.ndim - 2, x.ndim - 1
    pieces = []
    for i in range(kernel[0]):
        rows = F.slice_axis(x, h_axis, i * dilation[0], i * dilation[0] + stride[0] * (out[0] - 1) + 1, stride[0])
        for j in range(kernel[1]):
            pieces.append(F.slice_axis(rows, w_axis, j * dilation[1], j * dilation[1] + stride[1] * (out[1] - 1) + 1,
                                       stride[1]))
    return pieces


def _block_args(kernel_size, dilation, padding, stride, op: str) -> tuple:
    """unfold's and fold's sliding-block arguments, each an int or a pair, as four pairs."""
    return (_pair(kernel_size, "kernel_size", op, 1), _pair(dilation, "dilation", op, 1),
            _pair(padding, "padding", op, 0), _pair(stride, "stride", op, 1))


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    """im2col: [N, C, H, W] -> [N, C*kh*kw, L], each column one sliding block (zero padding
    `padding` on both sides of each spatial axis), channel-major then kernel row and column,
    blocks in row-major order (torch's and MindSpore's layout)."""
    _check_tensor(input, "unfold")
    kernel, dil, pad, step = _block_args(kernel_size, dilation, padding, stride, "unfold")
    if input.ndim != 4:
        raise ValueError(f"For 'unfold', the dimension of input must be equal to 4, but got {input.ndim}.")
    n, c, h, w = input.shape
    out = _blocks((h, w), kernel, dil, pad, step)
    if min(out) < 1:
        raise ValueError(f"For 'unfold', given input with spatial size {(h, w)}, kernel_size={kernel}, "
                         f"dilation={dil}, padding={pad}, the array of sliding blocks would be {out}, but its "
                         f"components must be at least one.")
    x = F.pad(input, (pad[1], pad[1], pad[0], pad[0])) if any(pad) else input
    cols = F.stack(_window_slices(x, kernel, dil, step, out), 2)           # [N, C, kh*kw, oh, ow]
    return F.reshape(cols, (n, c * kernel[0] * kernel[1], out[0] * out[1]))


def _output_size(output_size) -> tuple:
    """fold's output_size: MindSpore takes a Tensor of two ints; ints and tuples are taken too."""
    if isinstance(output_size, Tensor):
        try:
            values = np.asarray(output_size.asnumpy()).reshape(-1).tolist()
        except Exception as error:   # a traced Tensor: the output shape must be static
            raise TypeError("For 'fold', 'output_size' must be known when the graph is built: a constant Tensor, "
                            "a tuple or an int") from error
        return _pair(tuple(int(v) for v in values), "output_size", "fold", 1)
    return _pair(output_size, "output_size", "fold", 1)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    """col2im, unfold's transpose: [N, C*kh*kw, L] -> [N, C, H, W] with (H, W) = output_size,
    each column's block added back in place (overlaps summed), then the padding cut off."""
    _check_tensor(input, "fold")
    size = _output_size(output_size)
    kernel, dil, pad, step = _block_args(kernel_size, dilation, padding, stride, "fold")
    if input.ndim != 3:
        raise ValueError(f"For 'fold', the dimension of input must be equal to 3, but got {input.ndim}.")
    n, ck, length = input.shape
    kk = kernel[0] * kernel[1]
    if ck % kk:
        raise ValueError(f"For 'fold', the input's second dimension {ck} must be divisible by the product of "
                         f"'kernel_size' {kk}.")
    out = _blocks(size, kernel, dil, pad, step)
    if min(out) < 1 or math.prod(out) != length:
        expected = max(out[0], 0) * max(out[1], 0)
        raise ValueError(f"For 'fold', size of input's last dimension must be equal to calculated number of sliding "
                         f"blocks, but got {length}, calculated number of sliding blocks: {expected} (output_size="
                         f"{size}, kernel_size={kernel}, dilation={dil}, padding={pad}, stride={step}).")
    c = ck // kk
    blocks = F.reshape(input, (n, c, kk, out[0], out[1]))
    padded = (size[0] + 2 * pad[0], size[1] + 2 * pad[1])
    total = None
    for index in range(kk):
        i, j = divmod(index, kernel[1])
        block = dilate(F.squeeze(F.slice_axis(blocks, 2, index, index + 1), 2), (1, 1) + step)
        lo = (0, 0, i * dil[0], j * dil[1])
        hi = (0, 0, padded[0] - lo[2] - block.shape[2], padded[1] - lo[3] - block.shape[3])
        placed = pad_or_crop(block, lo, hi)
        total = placed if total is None else F.add(total, placed)
    return pad_or_crop(total, (0, 0, -pad[0], -pad[1]), (0, 0, -pad[0], -pad[1]))


def extract_image_patches(x, kernel: tuple, stride: tuple, rate: tuple, padding: str):
    """nn.Unfold's [N, C, H, W] -> [N, kh*kw*C, oh, ow], TensorFlow's ExtractImagePatches layout
    (kernel row, then column, then channel); 'same' pads as TensorFlow (the odd pixel after)."""
    n, c, h, w = x.shape
    if padding == "same":
        pads = [F.same_padding(size, k, s, d) for size, k, s, d in zip((h, w), kernel, stride, rate)]
        x = F.pad(x, (*pads[1], *pads[0])) if any(any(p) for p in pads) else x
    out = _blocks(x.shape[2:], kernel, rate, (0, 0), stride)
    if min(out) < 1:
        raise ValueError(f"For 'Unfold', the input's spatial size {(h, w)} is smaller than the dilated kernel of "
                         f"ksizes {kernel} and rates {rate}.")
    patches = F.stack(_window_slices(x, kernel, rate, stride, out), 1)     # [N, kh*kw, C, oh, ow]
    return F.reshape(patches, (n, kernel[0] * kernel[1] * c, out[0], out[1]))

"""OpenCV's GaussianBlur for vision.GaussianBlur, in numpy (2.10 runs OpenCV's), with its default
border (reflect-101).

uint8 takes OpenCV's bit-exact path: each 1-D kernel in 8-bit fixed point (rounded with error
diffusion so it sums to exactly 256), an exact integer row pass, then the column pass rounded off
16 bits, half up. Floats take the double kernel in float32 and two float32 passes.
"""
from __future__ import annotations

import math

import numpy as np

FRACTION_BITS = 8

# OpenCV's kernels for sigma <= 0 and the small odd sizes
_SMALL_KERNELS = {1: [1.0], 3: [0.25, 0.5, 0.25], 5: [0.0625, 0.25, 0.375, 0.25, 0.0625],
                  7: [0.03125, 0.109375, 0.21875, 0.28125, 0.21875, 0.109375, 0.03125]}


def gaussian_kernel(n: int, sigma: float) -> np.ndarray:
    """cv::getGaussianKernel's double values: exp(-x^2 / (2 sigma^2)) normalised, the centre
    taking what makes the sum exactly 1 (its bit-exact form)."""
    if sigma <= 0 and n in _SMALL_KERNELS:
        return np.array(_SMALL_KERNELS[n])
    if sigma <= 0:
        sigma = ((n - 1) * 0.5 - 1) * 0.3 + 0.8
    scale = -0.125 / (sigma * sigma)              # x counts half-pixel steps: x = 2 i - (n - 1)
    half = (n - 1) // 2
    values = [math.exp((x * x) * scale) for x in range(1 - n, 1 - n + 2 * half, 2)]
    mul = 1.0 / (2.0 * sum(values) + 1.0)
    side = [v * mul for v in values]
    return np.array(side + [1.0 - 2.0 * sum(side)] + side[::-1])


def _fixed_kernel(kernel: np.ndarray) -> np.ndarray:
    """The kernel in 8-bit fixed point, rounded with error diffusion from the ends inwards and the
    centre tap making the sum 256 (OpenCV's getGaussianKernelFixedPoint_ED)."""
    n = len(kernel)
    one = 1 << FRACTION_BITS
    out = np.zeros(n, np.int64)
    err = 0.0
    for i in range(n // 2):
        value = kernel[i] * one + err
        rounded = int(np.rint(value))
        err = value - rounded
        out[i] = out[n - 1 - i] = rounded
    out[n // 2] = one - 2 * int(out[:n // 2].sum())
    return out


def _taps(length: int, ksize: int) -> np.ndarray:
    """(length, ksize) source indices of each output, reflected at the borders (reflect-101)."""
    index = np.arange(length)[:, None] + np.arange(ksize)[None] - ksize // 2
    if length == 1:
        return np.zeros_like(index)
    period = 2 * (length - 1)
    index = np.abs(index) % period
    return np.where(index >= length, period - index, index)


def _filter(x: np.ndarray, kernel: np.ndarray, axis: int) -> np.ndarray:
    taps = _taps(x.shape[axis], len(kernel))
    out = None
    for k, weight in enumerate(kernel):
        term = np.take(x, taps[:, k], axis) * weight
        out = term if out is None else out + term
    return out


def gaussian_blur(img: np.ndarray, ksize_x: int, ksize_y: int, sigma_x: float, sigma_y: float) -> np.ndarray:
    """img (<H, W, C>) blurred by the ksize_x (width) x ksize_y (height) Gaussian."""
    kx, ky = gaussian_kernel(ksize_x, sigma_x), gaussian_kernel(ksize_y, sigma_y)
    if img.dtype == np.uint8:
        rows = _filter(img.astype(np.int64), _fixed_kernel(kx), axis=1)            # 8 fraction bits
        total = _filter(rows, _fixed_kernel(ky), axis=0)                             # 16 fraction bits
        return np.clip((total + (1 << (2 * FRACTION_BITS - 1))) >> (2 * FRACTION_BITS), 0, 255).astype(np.uint8)
    x = img.astype(np.float32)
    out = _filter(_filter(x, kx.astype(np.float32), axis=1), ky.astype(np.float32), axis=0)
    return out.astype(img.dtype)

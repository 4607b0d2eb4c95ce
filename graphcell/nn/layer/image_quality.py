"""MindSpore 2.10's image quality measures nn.PSNR, nn.SSIM and nn.MSSSIM over [N, C, H, W]
images, one value per image ([N], float32).

They are written with ordinary ops (one valid convolution of the stacked statistics' planes
with the Gaussian window, 2 x 2 average pools between MS-SSIM's scales), so jit, vmap, grad and
ONNX follow. Arguments, checks, messages and values are 2.10's, measured on its CPU build in
graph mode (its PyNative mode fails in all three with "For 'ScalarCast', the supported type is
in the list ..."):

- PSNR casts both images to float32 (uint8 images are not rescaled: max_val stays as given)
  and returns 10 log10(max_val^2 / MSE), inf for equal images.
- SSIM and MS-SSIM take float16 or float32 images (computed in float32). The window is the
  outer product of a normalised 1-D Gaussian of filter_size taps, used without padding;
  SSIM is the mean over channels and positions of the SSIM map.
- MS-SSIM computes (SSIM, contrast-structure) at len(power_factors) scales, halving the images
  by 2 x 2 average pools (odd rows and columns dropped), clamps each at 0 (ReLU) and returns
  prod(cs_i ** p_i for every scale but the last) * ssim_last ** p_last.
"""
from __future__ import annotations

import numbers

import numpy as np

from ... import dtype as mstype
from ...ops import functional as F
from ...ops.math_ops import log10
from ...ops.pooling import avg_pool2d
from ...tensor import Tensor
from ..cell import Cell


# -- constructor checks, in 2.10's wording ---------------------------------------------------------

def _check_max_val(op: str, max_val):
    if isinstance(max_val, bool) or not isinstance(max_val, (int, float)):
        raise TypeError(f"For '{op}', the type of 'max_val' should be one of '['int', 'float']', but got type "
                        f"'{type(max_val).__name__}'.")
    if max_val <= 0:
        raise ValueError(f"For '{op}', the argument 'max_val' must > 0.0, but got {max_val}.")
    return max_val


def _check_filter(op: str, filter_size, filter_sigma, k1, k2):
    if isinstance(filter_size, bool):
        raise TypeError(f"For '{op}', the 'filter_size' must be int and must >= 1, but got '{filter_size}' with type "
                        "'bool'.")
    if not isinstance(filter_size, int):
        raise TypeError(f"For '{op}', the 'filter_size' must be int, but got '{type(filter_size).__name__}'")
    if filter_size < 1:
        raise ValueError(f"For '{op}', the 'filter_size' must be int and must >= 1, but got '{filter_size}' with type "
                         "'int'.")
    if not isinstance(filter_sigma, float):
        raise TypeError(f"For '{op}', the 'filter_sigma' must be float, but got '{type(filter_sigma).__name__}'")
    if filter_sigma <= 0:
        raise ValueError(f"For '{op}', the 'filter_sigma' must be float and must > 0, but got '{filter_sigma}' with "
                         "type 'float'.")
    for name, value in (("k1", k1), ("k2", k2)):
        if not isinstance(value, float):
            raise TypeError(f"For '{op}', the type of '{name}' should be 'float', but got type "
                            f"'{type(value).__name__}'.")


def _gaussian_window(size: int, sigma: float) -> np.ndarray:
    """The [1, 1, size, size] window: the outer product of a normalised 1-D Gaussian centred on
    tap (size - 1) // 2 (an even window leans left, as 2.10's: measured with filter_size 4)."""
    taps = np.exp(-((np.arange(size) - (size - 1) // 2) ** 2) / (2.0 * sigma * sigma))
    taps /= taps.sum()
    return np.outer(taps, taps).astype(np.float32).reshape(1, 1, size, size)


# -- call checks --------------------------------------------------------------------------------

def _check_4d(op: str, img, name: str):
    if img.ndim != 4:
        raise ValueError(f"For '{op}', the dimension of '{name}' must be 4d, but got {img.ndim}.")


def _check_same(img1, img2):
    if img1.dtype != img2.dtype:
        raise TypeError(f"For 'SameTypeShape', the x dtype should be = y dtype: {img2.dtype}, but got {img1.dtype}.")
    if img1.shape != img2.shape:
        raise ValueError(f"For 'SameTypeShape', the x shape should be = y shape: {tuple(img2.shape)}, but got "
                         f"{tuple(img1.shape)}.")


def _check_ssim_inputs(op: str, img1, img2, filter_size: int):
    if img1.dtype not in (mstype.float32, mstype.float16):
        raise TypeError(f"For '{op}', the 'img1' should be one of [mindspore.float32, mindspore.float16], but got "
                        f"'mindspore.{str(img1.dtype).lower()}'.")
    _check_4d(op, img1, "img1")
    for axis in (2, 3):
        if img1.shape[axis] < filter_size:
            raise ValueError(f"For '{op}', the img1 shape[{axis}] should be >= filter_size: {filter_size}, but got "
                             f"{img1.shape[axis]}.")
    _check_same(img1, img2)


# -- the measures ---------------------------------------------------------------------------------

def _ssim_and_cs(img1, img2, window: np.ndarray, c1: float, c2: float):
    """(mean SSIM, mean contrast-structure) per image, [N] each. The five local statistics
    are one convolution: their planes stacked on the batch axis, each convolved alone."""
    n, c, h, w = img1.shape
    planes = F.concat([img1, img2, F.mul(img1, img1), F.mul(img2, img2), F.mul(img1, img2)], 0)
    planes = F.reshape(planes, (5 * n * c, 1, h, w))
    local = F.conv2d(planes, Tensor(window))
    k = window.shape[-1]
    local = F.reshape(local, (5, n, c, h - k + 1, w - k + 1))
    mu1, mu2, e11, e22, e12 = (F.reshape(F.slice_axis(local, 0, i, i + 1), local.shape[1:]) for i in range(5))
    mu1_mu2, mu1_sq, mu2_sq = F.mul(mu1, mu2), F.mul(mu1, mu1), F.mul(mu2, mu2)
    sigma1_sq, sigma2_sq, sigma12 = F.sub(e11, mu1_sq), F.sub(e22, mu2_sq), F.sub(e12, mu1_mu2)
    cs_map = F.div(F.add(F.mul(sigma12, 2.0), c2), F.add(F.add(sigma1_sq, sigma2_sq), c2))
    luminance = F.div(F.add(F.mul(mu1_mu2, 2.0), c1), F.add(F.add(mu1_sq, mu2_sq), c1))
    ssim_map = F.mul(luminance, cs_map)
    return F.mean(ssim_map, (1, 2, 3)), F.mean(cs_map, (1, 2, 3))


class PSNR(Cell):
    """Peak signal-to-noise ratio, 10 log10(max_val^2 / MSE) per image of [N, C, H, W] (float32)."""

    def __init__(self, max_val=1.0):
        super().__init__()
        self.max_val = _check_max_val("PSNR", max_val)

    def construct(self, img1, img2):
        _check_4d("PSNR", img1, "img1")
        _check_4d("PSNR", img2, "img2")
        _check_same(img1, img2)
        diff = F.sub(F.cast(img1, mstype.float32), F.cast(img2, mstype.float32))
        mse = F.mean(F.mul(diff, diff), (1, 2, 3))
        return F.mul(log10(F.div(float(self.max_val) ** 2, mse)), 10.0)


class SSIM(Cell):
    """Structural similarity per image of [N, C, H, W] (float16 or float32; float32 out)."""

    def __init__(self, max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03):
        super().__init__()
        self.max_val = _check_max_val("SSIM", max_val)
        _check_filter("SSIM", filter_size, filter_sigma, k1, k2)
        self.filter_size, self.filter_sigma, self.k1, self.k2 = filter_size, filter_sigma, k1, k2

    def construct(self, img1, img2):
        _check_ssim_inputs("SSIM", img1, img2, self.filter_size)
        window = _gaussian_window(self.filter_size, self.filter_sigma)
        c1, c2 = (self.k1 * self.max_val) ** 2, (self.k2 * self.max_val) ** 2
        ssim, _ = _ssim_and_cs(F.cast(img1, mstype.float32), F.cast(img2, mstype.float32), window, c1, c2)
        return ssim


class MSSSIM(Cell):
    """Multi-scale SSIM per image of [N, C, H, W] (float16 or float32; float32 out), one scale
    per power factor."""

    def __init__(self, max_val=1.0, power_factors=(0.0448, 0.2856, 0.3001, 0.2363, 0.1333), filter_size=11,
                 filter_sigma=1.5, k1=0.01, k2=0.03):
        super().__init__()
        self.max_val = _check_max_val("MSSSIM", max_val)
        if not isinstance(power_factors, (tuple, list)):
            raise TypeError(f"For 'MSSSIM', the type of 'power_factors' should be one of '['tuple', 'list']', but got "
                            f"type '{type(power_factors).__name__}'.")
        for p in power_factors:
            if isinstance(p, bool) or not isinstance(p, numbers.Real):
                raise TypeError(f"For 'MSSSIM', 'power_factors' must hold numbers, but got {power_factors!r}.")
        _check_filter("MSSSIM", filter_size, filter_sigma, k1, k2)
        self.power_factors = tuple(float(p) for p in power_factors)
        self.filter_size, self.filter_sigma, self.k1, self.k2 = filter_size, filter_sigma, k1, k2

    def construct(self, img1, img2):
        _check_ssim_inputs("MSSSIM", img1, img2, self.filter_size)
        levels = len(self.power_factors)
        smallest = min(img1.shape[2:]) // 2 ** (levels - 1)
        if smallest < self.filter_size:
            raise ValueError(f"For 'MSSSIM', the images are too small for {levels} scales: their last scale's "
                             f"{smallest} rows or columns (H and W halved {levels - 1} times) are fewer than "
                             f"filter_size {self.filter_size}; got shape {tuple(img1.shape)}.")
        window = _gaussian_window(self.filter_size, self.filter_sigma)
        c1, c2 = (self.k1 * self.max_val) ** 2, (self.k2 * self.max_val) ** 2
        x, y = F.cast(img1, mstype.float32), F.cast(img2, mstype.float32)
        result = None
        for level, power in enumerate(self.power_factors):
            ssim, cs = _ssim_and_cs(x, y, window, c1, c2)
            last = level == levels - 1
            term = F.pow(F.relu(ssim if last else cs), power)
            result = term if result is None else F.mul(result, term)
            if not last:
                x, y = avg_pool2d(x, 2, 2), avg_pool2d(y, 2, 2)
        return result

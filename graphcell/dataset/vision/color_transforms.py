"""The colour transforms of mindspore.dataset.vision (AdjustBrightness ... Equalize, GaussianBlur and
their Random forms), on numpy HWC images. The arithmetic is adjust.py's and blur.py's (bit-exact
with 2.10 on uint8, measured); the argument checks and image messages are 2.10's.

Random forms draw their factor uniformly from 2.10's range with the transform's own generator
(seeded from the dataset seed, see transforms._Random); the draws are not MindSpore's.
"""
from __future__ import annotations

import numbers

import numpy as np

from . import _args, adjust, blur
from .transforms import _Random


class AdjustBrightness:
    """img * brightness_factor (0 gives black, 1 the image)."""

    def __init__(self, brightness_factor):
        self.brightness_factor = float(_args.number(brightness_factor, "brightness_factor", 0, _args.UINT24))

    def __call__(self, img):
        return adjust.brightness(_args.image(img, "AdjustBrightness", channels=(1, 3)), self.brightness_factor)


class AdjustContrast:
    """Blends an RGB image with the mean of its gray: 0 gives that mean, 1 the image."""

    def __init__(self, contrast_factor):
        self.contrast_factor = float(_args.number(contrast_factor, "contrast_factor", 0, _args.UINT24))

    def __call__(self, img):
        return adjust.contrast(_args.image(img, "AdjustContrast", ranks=(3,), channels=(3,)), self.contrast_factor)


class AdjustGamma:
    """gain * img ** gamma on [0, 1] intensities (2.10's uint8 table, see adjust.gamma)."""

    def __init__(self, gamma, gain=1):
        self.gamma = float(_args.number(gamma, "gamma", 0, _args.UINT24, name=""))
        self.gain = float(_args.number(gain, "gain", -_args.UINT24, _args.UINT24))

    def __call__(self, img):
        img = np.asarray(img)
        channels = 1 if img.ndim == 2 else img.shape[-1]
        if channels not in (1, 3):
            raise RuntimeError(f"AdjustGamma: channel of input image should be 1 or 3, but got: {channels}")
        return adjust.gamma(img, self.gamma, self.gain)


class AdjustHue:
    """Turns the hue of an RGB image by hue_factor of a full turn, in [-0.5, 0.5]."""

    def __init__(self, hue_factor):
        self.hue_factor = float(_args.number(hue_factor, "hue_factor", -0.5, 0.5))

    def __call__(self, img):
        return adjust.hue(_args.image(img, "AdjustHue", ranks=(3,), channels=(3,)), self.hue_factor)


class AdjustSaturation:
    """Blends an RGB image with its gray: 0 gives the gray, 1 the image."""

    def __init__(self, saturation_factor):
        self.saturation_factor = float(_args.number(saturation_factor, "saturation_factor", 0, _args.UINT24,
                                                    name=""))

    def __call__(self, img):
        return adjust.saturation(_args.image(img, "AdjustSaturation", ranks=(3,), channels=(3,)),
                                 self.saturation_factor)


class AdjustSharpness:
    """Blends with a smoothed copy: 0 blurs, 1 gives the image, 2 sharpens."""

    def __init__(self, sharpness_factor):
        self.sharpness_factor = float(_args.number(sharpness_factor, "sharpness_factor", 0, _args.UINT24, name=""))

    def __call__(self, img):
        return adjust.sharpness(_args.image(img, "AdjustSharpness"), self.sharpness_factor)


class Invert:
    """255 - img, on <H, W, 3> images."""

    def __call__(self, img):
        img = _args.hwc3(img, "Invert")
        if img.shape[2] != 3:
            raise RuntimeError(f"Invert: the number of channels of input tensor is not 3, but got: {img.shape[2]}")
        return adjust.invert(img)


class Posterize:
    """Keeps the top `bits` bits of each uint8 (or int8) value."""

    def __init__(self, bits):
        self.bits = int(_args.number(bits, "bits", 0, 8, types=(int,)))

    def __call__(self, img):
        img = _args.image(img, "Posterize")
        if img.dtype not in (np.uint8, np.int8):
            raise RuntimeError(f"Posterize: data type of input image should be int8 or uint8, but got {img.dtype}")
        return adjust.posterize(img, self.bits)


def _threshold(threshold, name="threshold"):
    if isinstance(threshold, numbers.Real) and not isinstance(threshold, bool):
        threshold = (threshold,)
    threshold = tuple(threshold)
    for i, t in enumerate(threshold):
        _args.number(t, f"{name}[{i}]", 0, 255)
    if len(threshold) == 2 and threshold[0] > threshold[1]:
        raise ValueError(f"{name} must be in order of (min, max).")
    return threshold


class Solarize:
    """255 - value for the values >= threshold, or inside a (min, max) threshold."""

    def __init__(self, threshold):
        self.threshold = _threshold(threshold)

    def __call__(self, img):
        img = _args.image(img, "Solarize", channels=(1, 3))
        low, high = (self.threshold[0], np.inf) if len(self.threshold) == 1 else self.threshold
        return adjust.solarize(img, low, high)


class AutoContrast:
    """Stretches each channel to [0, 255] after dropping `cutoff` percent from each end of its
    histogram and ignoring the values in `ignore` (uint8 images)."""

    def __init__(self, cutoff=0.0, ignore=None):
        self.cutoff = float(_args.number(cutoff, "cutoff", 0, 50, right_open=True))
        ignore = [] if ignore is None else [ignore] if isinstance(ignore, numbers.Integral) else list(ignore)
        for value in ignore:
            _args.number(value, "ignore", 0, 255, types=(int,))
        self.ignore = ignore

    def __call__(self, img):
        img = _args.image(img, "AutoContrast")
        channels = 1 if img.ndim == 2 else img.shape[2]
        if channels not in (1, 3):
            raise RuntimeError(f"AutoContrast: channel of input image should be 1 or 3, but got: {channels}")
        return adjust.autocontrast(_args.uint8_only(img, "AutoContrast"), self.cutoff, self.ignore)


class Equalize:
    """Equalizes each channel's histogram (OpenCV's equalizeHist; uint8 images)."""

    def __call__(self, img):
        img = _args.image(img, "Equalize")
        channels = 1 if img.ndim == 2 else img.shape[2]
        if channels not in (1, 3):
            raise RuntimeError(f"Equalize: channel of input image should be 1 or 3, but got: {channels}")
        return adjust.equalize(_args.uint8_only(img, "Equalize"))


class GaussianBlur:
    """Gaussian blur with an odd kernel_size (width, height) and sigma (x, y); sigma None (or 0)
    is OpenCV's ((size - 1) * 0.5 - 1) * 0.3 + 0.8."""

    def __init__(self, kernel_size, sigma=None):
        sizes = (kernel_size, kernel_size) if isinstance(kernel_size, numbers.Integral) else tuple(kernel_size)
        for k in sizes:
            _args.number(k, "kernel_size", 1, _args.UINT24, types=(int,))
            if k % 2 == 0:
                raise ValueError("Input kernel_size is not an odd value.")
        sigmas = (0.0, 0.0) if sigma is None else (sigma, sigma) if isinstance(sigma, numbers.Real) else tuple(sigma)
        for s in sigmas:
            _args.number(s, "sigma", 0, _args.UINT24)
        self.kernel_size, self.sigma = sizes, tuple(
            float(s) if s > 0 else ((k - 1) * 0.5 - 1) * 0.3 + 0.8 for s, k in zip(sigmas, sizes))

    def __call__(self, img):
        img = _args.image(img, "GaussianBlur")
        hwc = img if img.ndim == 3 else img[:, :, None]
        out = blur.gaussian_blur(hwc, *self.kernel_size, *self.sigma)
        return out if img.ndim == 3 else out[:, :, 0]


class RgbToHsv:
    """RGB -> HSV (colorsys's, in float64) of <C, H, W> images, or <H, W, C> with is_hwc=True
    (a batch may lead)."""

    def __init__(self, is_hwc=False):
        self.is_hwc = bool(is_hwc)

    _SHAPES = "(H, W, C)/(N, H, W, C)/(C ,H, W)/(N, C, H, W)"      # 2.10's message, its comma included

    def _convert(self, img, fn):
        img = np.asarray(img)
        if img.ndim not in (3, 4):
            raise TypeError(f"img shape should be {self._SHAPES}. Got {img.shape}.")
        axis = -1 if self.is_hwc else -3
        if img.shape[axis] != 3:
            raise TypeError(f"img should be 3 channels RGB img. Got {img.shape[axis]} channels.")
        return np.moveaxis(fn(np.moveaxis(img, axis, -1)), -1, axis)

    def __call__(self, rgb_imgs):
        return self._convert(rgb_imgs, adjust.rgb_to_hsv)


class HsvToRgb(RgbToHsv):
    """HSV -> RGB (colorsys's, in float64), the inverse of RgbToHsv."""
    _SHAPES = "(H, W, C)/(N, H, W, C)/(C, H, W)/(N, C, H, W)"

    def __call__(self, hsv_imgs):
        return self._convert(hsv_imgs, adjust.hsv_to_rgb)


# --- random forms ----------------------------------------------------------------------------

class _RandomApply(_Random):
    """Runs `make()`'s transform with probability `prob`."""

    def __init__(self, prob):
        super().__init__()
        self.prob = _args.prob(prob)

    def _maybe(self, img, transform):
        return transform(img) if self._uniform() < self.prob else np.asarray(img)


class RandomInvert(_RandomApply):
    def __init__(self, prob=0.5):
        super().__init__(prob)

    def __call__(self, img):
        return self._maybe(img, Invert())


class RandomEqualize(_RandomApply):
    def __init__(self, prob=0.5):
        super().__init__(prob)

    def __call__(self, img):
        return self._maybe(img, Equalize())


class RandomAutoContrast(_RandomApply):
    def __init__(self, cutoff=0.0, ignore=None, prob=0.5):
        super().__init__(prob)
        self.transform = AutoContrast(cutoff, ignore)

    def __call__(self, img):
        return self._maybe(img, self.transform)


class RandomAdjustSharpness(_RandomApply):
    def __init__(self, degree, prob=0.5):
        super().__init__(prob)
        self.transform = AdjustSharpness(degree)

    def __call__(self, img):
        return self._maybe(img, self.transform)


class _RandomFactor(_Random):
    """Draws a factor uniformly from `degrees` (min, max) and applies `transform(factor)`."""
    transform = None

    def __init__(self, degrees=(0.1, 1.9)):
        super().__init__()
        self.degrees = tuple(float(d) for d in _args.min_max(degrees, "degrees", 0, _args.UINT24))

    def _draw(self, low, high):
        return low + (high - low) * self._uniform()

    def __call__(self, img):
        return type(self).transform(self._draw(*self.degrees))(img)


class RandomSharpness(_RandomFactor):
    transform = AdjustSharpness


class RandomColor(_RandomFactor):
    """AdjustSaturation by a random degree (2.10's RandomColor, measured equal)."""
    transform = AdjustSaturation


class RandomColorAdjust(_RandomFactor):
    """Brightness, contrast, saturation and hue by random factors, in that order (2.10's order,
    measured). A number b gives (max(0, 1 - b), 1 + b); hue h gives (-h, h), h <= 0.5."""

    def __init__(self, brightness=(1, 1), contrast=(1, 1), saturation=(1, 1), hue=(0, 0)):
        _Random.__init__(self)
        self.brightness = _args.min_max(brightness, "brightness", 0, _args.UINT24, center=1,
                                        what=f"brightness value should be in (min,max) format. Got {brightness}.")
        self.contrast = _args.min_max(contrast, "contrast", 0, _args.UINT24, center=1,
                                      what=f"contrast value should be in (min,max) format. Got {contrast}.")
        self.saturation = _args.min_max(saturation, "saturation", 0, _args.UINT24, center=1,
                                        what=f"saturation value should be in (min,max) format. Got {saturation}.")
        if isinstance(hue, numbers.Real) and not isinstance(hue, bool):
            _args.number(hue, "hue", 0, 0.5)
            hue = (-hue, hue)
        self.hue = _args.min_max(hue, "hue", -0.5, 0.5, what=f"hue value should be in (min,max) format. Got {hue}.")

    def __call__(self, img):
        img = _args.image(img, "RandomColorAdjust", ranks=(3,), channels=(3,))
        steps = [(self.brightness, (1, 1), AdjustBrightness), (self.contrast, (1, 1), AdjustContrast),
                 (self.saturation, (1, 1), AdjustSaturation), (self.hue, (0, 0), AdjustHue)]
        for span, identity, transform in steps:
            if tuple(span) != identity:
                img = transform(self._draw(*span))(img)
        return img


class RandomPosterize(_Random):
    """Posterize with a random number of bits in `bits` (min, max), in [1, 8]."""

    def __init__(self, bits=(8, 8)):
        super().__init__()
        self.bits = _args.min_max(bits, "bits", 1, 8)

    def __call__(self, img):
        low, high = self.bits
        return Posterize(int(low + self._integer(int(high - low))))(img)


class RandomSolarize(_Random):
    """Solarize inside a random (min, max) threshold: two draws from `threshold`, sorted."""

    def __init__(self, threshold=(0, 255)):
        super().__init__()
        self.threshold = _args.min_max(threshold, "threshold", 0, 255)

    def __call__(self, img):
        low, high = self.threshold
        a, b = (int(low + self._integer(int(high - low))) for _ in range(2))
        return Solarize((min(a, b), max(a, b)))(img)

"""mindspore.dataset.vision.transforms: image transforms for `map`, on numpy HWC images (MindSpore 2.10's
names, arguments and output dtypes, measured).

    image_transforms = [vision.Rescale(1.0 / 255.0, 0), vision.Normalize(mean=(0.1307,), std=(0.3081,)),
                        vision.HWC2CHW()]
    ds = ds.map(operations=image_transforms, input_columns="image")

Rescale and Normalize compute in float32. The random transforms draw from a numpy generator
seeded from the dataset seed (`graphcell.set_seed` / `dataset.config.set_seed`), so seeded runs
repeat; their draws are not MindSpore's. Resize is OpenCV's cv::resize (NEAREST, LINEAR, CUBIC,
AREA) or Pillow's bicubic (PILCUBIC), as 2.10 runs them: see _resize.py.
"""
from __future__ import annotations

import numbers
import threading

import numpy as np

from .. import config
from . import _resize, color, warp
from .decode import Decode  # noqa: F401 - mindspore.dataset.vision.transforms.Decode
from .utils import Border, ConvertMode, Inter


def _image(img, what: str) -> np.ndarray:
    img = np.asarray(img)
    if img.ndim not in (2, 3):
        raise RuntimeError(f"{what}: the image must be <H, W> or <H, W, C>, got shape {img.shape}.")
    return img


def _pair(size, what: str) -> tuple[int, int]:
    if isinstance(size, numbers.Integral) and not isinstance(size, bool):
        size = (size, size)
    size = tuple(size)
    if len(size) != 2 or any(not isinstance(s, numbers.Integral) or s <= 0 for s in size):
        raise ValueError(f"{what}: size must be a positive int or a (height, width) pair, got {size!r}.")
    return int(size[0]), int(size[1])


def _padding(padding, what: str) -> tuple[int, int, int, int]:
    """(left, top, right, bottom) from an int, a (left/right, top/bottom) pair or four values."""
    if isinstance(padding, numbers.Integral):
        padding = (padding,) * 4
    padding = tuple(int(p) for p in padding)
    if len(padding) == 2:
        padding = padding * 2
    if len(padding) != 4 or min(padding) < 0:
        raise ValueError(f"{what}: padding must be an int or a sequence of 2 or 4 non-negative ints, got {padding!r}.")
    return padding


def _pad(img, left, top, right, bottom, fill_value=0, padding_mode=Border.CONSTANT):
    widths = [(top, bottom), (left, right)] + [(0, 0)] * (img.ndim - 2)
    if padding_mode is Border.CONSTANT:
        fill = np.asarray(fill_value)
        if fill.ndim == 0:
            return np.pad(img, widths, constant_values=fill_value)
        out = np.empty((img.shape[0] + top + bottom, img.shape[1] + left + right) + img.shape[2:], img.dtype)
        out[...] = fill.astype(img.dtype)        # one value per channel
        out[top:top + img.shape[0], left:left + img.shape[1]] = img
        return out
    return np.pad(img, widths, mode=padding_mode.value)


class _Random:
    """A transform's own generator, seeded from the dataset seed when one is set."""

    def __init__(self):
        self._rng = np.random.default_rng(config.seed_or_none())
        self._lock = threading.Lock()          # map runs rows on worker threads

    def _uniform(self) -> float:
        with self._lock:
            return float(self._rng.random())

    def _integer(self, high: int) -> int:
        with self._lock:
            return int(self._rng.integers(0, high + 1))


class Rescale:
    """img * rescale + shift, in float32."""

    def __init__(self, rescale, shift):
        self.rescale, self.shift = np.float32(rescale), np.float32(shift)

    def __call__(self, img):
        return np.asarray(img).astype(np.float32) * self.rescale + self.shift


class Normalize:
    """(img - mean) / std per channel, in float32; `is_hwc=False` for <C, H, W> images."""

    def __init__(self, mean, std, is_hwc=True):
        self.mean, self.std = np.asarray(mean, np.float32).ravel(), np.asarray(std, np.float32).ravel()
        if self.mean.size != self.std.size or not self.mean.size:
            raise ValueError(f"Normalize: mean and std must have one value per channel, got {len(self.mean)} and "
                             f"{len(self.std)}.")
        if (self.std <= 0).any():
            raise ValueError(f"Normalize: std must be positive, got {self.std.tolist()}.")
        self.is_hwc = bool(is_hwc)

    def __call__(self, img):
        img = _image(img, "Normalize").astype(np.float32)
        channels = 1 if img.ndim == 2 else img.shape[-1 if self.is_hwc else 0]
        if self.mean.size not in (1, channels):
            raise RuntimeError(f"Normalize: the image has {channels} channel(s) but mean and std have "
                               f"{self.mean.size} values.")
        shape = (-1,) if self.is_hwc or img.ndim == 2 else (-1, 1, 1)
        return (img - self.mean.reshape(shape)) / self.std.reshape(shape)


class HWC2CHW:
    """<H, W, C> -> <C, H, W>; a 2-D image is returned as it is (as 2.10)."""

    def __call__(self, img):
        img = _image(img, "HWC2CHW")
        return img if img.ndim == 2 else np.ascontiguousarray(img.transpose(2, 0, 1))


class ToTensor:
    """<H, W, C> image -> <C, H, W> in `output_type`, divided by 255."""

    def __init__(self, output_type=np.float32):
        self.output_type = np.dtype(output_type) if not hasattr(output_type, "np_dtype") else output_type.np_dtype

    def __call__(self, img):
        img = _image(img, "ToTensor")
        img = img[:, :, None] if img.ndim == 2 else img
        return (img.astype(np.float32) / np.float32(255)).transpose(2, 0, 1).astype(self.output_type)


class ConvertColor:
    """Converts between BGR, RGB, their alpha forms and gray (OpenCV's cvtColor, as 2.10)."""

    def __init__(self, convert_mode):
        if not isinstance(convert_mode, ConvertMode):
            raise TypeError(f"Argument convert_mode with value {convert_mode!r} is not of type "
                            f"[<enum 'ConvertMode'>], but got {type(convert_mode)}.")
        self.convert_mode = convert_mode

    def __call__(self, img):
        return color.convert_color(_image(img, "ConvertColor"), self.convert_mode)


class HorizontalFlip:
    def __call__(self, img):
        return np.ascontiguousarray(_image(img, "HorizontalFlip")[:, ::-1])


class VerticalFlip:
    def __call__(self, img):
        return np.ascontiguousarray(_image(img, "VerticalFlip")[::-1])


class _RandomFlip(_Random):
    """The flip (`flip`, a transform class) with probability `prob`."""
    flip = None

    def __init__(self, prob=0.5):
        super().__init__()
        self.prob = float(prob)

    def __call__(self, img):
        return self.flip()(img) if self._uniform() < self.prob else np.asarray(img)


class RandomHorizontalFlip(_RandomFlip):
    flip = HorizontalFlip


class RandomVerticalFlip(_RandomFlip):
    flip = VerticalFlip


class Pad:
    """Pads (left, top, right, bottom): `padding` is an int, a (left/right, top/bottom) pair or four ints."""

    def __init__(self, padding, fill_value=0, padding_mode=Border.CONSTANT):
        self.padding, self.fill_value, self.padding_mode = _padding(padding, "Pad"), fill_value, padding_mode

    def __call__(self, img):
        return _pad(_image(img, "Pad"), *self.padding, self.fill_value, self.padding_mode)


class CenterCrop:
    """The centre `size` window (offsets rounded down); a side larger than the image is padded with
    zeros, the odd row or column above or left (as 2.10)."""

    def __init__(self, size):
        self.size = _pair(size, "CenterCrop")

    def __call__(self, img):
        img = _image(img, "CenterCrop")
        (h, w), (th, tw) = img.shape[:2], self.size
        if th > h or tw > w:
            ph, pw = max(th - h, 0), max(tw - w, 0)
            img = _pad(img, pw - pw // 2, ph - ph // 2, pw // 2, ph // 2)   # the odd row/column before
            h, w = img.shape[:2]
        top, left = (h - th) // 2, (w - tw) // 2
        return img[top:top + th, left:left + tw]


class RandomCrop(_Random):
    """A random `size` window, after `padding` (and, with pad_if_needed, padding up to `size`)."""

    def __init__(self, size, padding=None, pad_if_needed=False, fill_value=0, padding_mode=Border.CONSTANT):
        super().__init__()
        self.size = _pair(size, "RandomCrop")
        self.padding = _padding(padding, "RandomCrop") if padding is not None else None
        self.pad_if_needed, self.fill_value, self.padding_mode = bool(pad_if_needed), fill_value, padding_mode

    def __call__(self, img):
        img = _image(img, "RandomCrop")
        if self.padding:
            img = _pad(img, *self.padding, self.fill_value, self.padding_mode)
        (th, tw) = self.size
        if self.pad_if_needed and (img.shape[0] < th or img.shape[1] < tw):
            ph, pw = max(th - img.shape[0], 0), max(tw - img.shape[1], 0)
            img = _pad(img, pw, ph, pw, ph, self.fill_value, self.padding_mode)
        h, w = img.shape[:2]
        if th > h or tw > w:
            raise RuntimeError(f"RandomCrop: the crop size {self.size} is larger than the image ({h}, {w}); "
                               "pass padding or pad_if_needed=True.")
        top, left = self._integer(h - th), self._integer(w - tw)
        return img[top:top + th, left:left + tw]


class Resize:
    """Resizes to `size` (h, w), or the shorter side to an int `size` keeping the aspect ratio."""

    def __init__(self, size, interpolation=Inter.LINEAR):
        if isinstance(size, numbers.Integral) and not isinstance(size, bool):
            if size <= 0:
                raise ValueError(f"Resize: size must be positive, got {size}.")
            self.size = int(size)
        else:
            self.size = _pair(size, "Resize")
        if Inter(interpolation) is Inter.ANTIALIAS:
            raise NotImplementedError("Resize: interpolation ANTIALIAS needs PIL images, which graphcell does not "
                                      "have; use LINEAR, CUBIC, AREA, NEAREST or PILCUBIC")
        self.interpolation = Inter(interpolation)

    def _target(self, h, w):
        if isinstance(self.size, tuple):
            return self.size
        s = self.size
        return (s, int(w * s / h)) if h <= w else (int(h * s / w), s)

    def __call__(self, img):
        img = _image(img, "Resize")
        target = self._target(*img.shape[:2])
        if self.interpolation is Inter.PILCUBIC:
            if img.ndim != 3 or img.shape[2] != 3:
                raise RuntimeError("Resize: Interpolation mode PILCUBIC only supports image with 3 channels, but got: "
                                   f"<{','.join(map(str, img.shape))}>")
            return _resize.pil_bicubic_resize(img, *target)
        hwc = img if img.ndim == 3 else img[:, :, None]
        out = _resize.opencv_resize(hwc, *target, _OPENCV_MODES[self.interpolation])
        return out if img.ndim == 3 else out[:, :, 0]


_OPENCV_MODES = {Inter.NEAREST: "nearest", Inter.LINEAR: "linear", Inter.CUBIC: "cubic", Inter.AREA: "area"}


class RandomResizedCrop(_Random):
    """A random window of `scale` times the area and `ratio` aspect (up to `max_attempts` draws,
    else the centre window of the nearest ratio), resized to `size`."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3. / 4., 4. / 3.), interpolation=Inter.BILINEAR,
                 max_attempts=10):
        super().__init__()
        self.size = _pair(size, "RandomResizedCrop")
        self.scale, self.ratio = tuple(float(s) for s in scale), tuple(float(r) for r in ratio)
        if not 0 <= self.scale[0] <= self.scale[1] or not 0 < self.ratio[0] <= self.ratio[1]:
            raise ValueError(f"RandomResizedCrop: scale and ratio must be non-decreasing (min, max) pairs, got "
                             f"{scale!r} and {ratio!r}.")
        self.resize = Resize(self.size, interpolation)
        self.max_attempts = int(max_attempts)

    def _window(self, h, w):
        log_lo, log_hi = np.log(self.ratio)
        for _ in range(self.max_attempts):
            area = h * w * (self.scale[0] + (self.scale[1] - self.scale[0]) * self._uniform())
            aspect = float(np.exp(log_lo + (log_hi - log_lo) * self._uniform()))
            cw, ch = int(round(np.sqrt(area * aspect))), int(round(np.sqrt(area / aspect)))
            if 0 < cw <= w and 0 < ch <= h:
                return self._integer(h - ch), self._integer(w - cw), ch, cw
        aspect = w / h
        if aspect < self.ratio[0]:
            cw, ch = w, int(round(w / self.ratio[0]))
        elif aspect > self.ratio[1]:
            ch, cw = h, int(round(h * self.ratio[1]))
        else:
            ch, cw = h, w
        ch, cw = max(min(ch, h), 1), max(min(cw, w), 1)
        return (h - ch) // 2, (w - cw) // 2, ch, cw

    def __call__(self, img):
        img = _image(img, "RandomResizedCrop")
        top, left, ch, cw = self._window(*img.shape[:2])
        return self.resize(img[top:top + ch, left:left + cw])


class Rotate:
    """Rotates by `degrees` counter-clockwise about `center` ((x, y); the image centre by default),
    keeping the size or, with `expand`, growing to hold the whole rotated image; uncovered pixels
    are `fill_value`. OpenCV's warpAffine (see warp.py), as 2.10: NEAREST, BILINEAR, BICUBIC or AREA
    (which warps as BILINEAR)."""

    def __init__(self, degrees, resample=Inter.NEAREST, expand=False, center=None, fill_value=0):
        if Inter(resample) is Inter.ANTIALIAS:
            raise RuntimeError("Unsupported interpolation, only support NEAREST, LINEAR, CUBIC, AREA and PILCUBIC.")
        self.degrees, self.resample, self.expand = float(degrees), Inter(resample), bool(expand)
        self.center, self.fill_value = center, fill_value

    def __call__(self, img):
        img = _image(img, "Rotate")
        if self.resample not in warp.MODES:
            raise RuntimeError("Rotate: Invalid InterpolationMode, check input value of enum.")
        hwc = img if img.ndim == 3 else img[:, :, None]
        h, w = hwc.shape[:2]
        cx, cy = self.center if self.center is not None else ((w - 1) / 2, (h - 1) / 2)
        matrix = warp.rotation_matrix(cx, cy, self.degrees)
        th, tw = h, w
        if self.expand:
            cos, sin = abs(matrix[0, 0]), abs(matrix[0, 1])
            box_h, box_w = h * cos + w * sin, w * cos + h * sin      # the rotated image's bounding box
            th, tw = int(round(box_h)), int(round(box_w))
            matrix[0, 2] += (box_w - w) / 2                          # its centre at the box's (unrounded)
            matrix[1, 2] += (box_h - h) / 2
        # 2.10 fills with an (R, G, B) fill_value reversed, a 1-channel image with its last value
        fill = np.asarray(self.fill_value, hwc.dtype).ravel()[::-1][:hwc.shape[2]]
        out = warp.warp_affine(hwc, matrix, th, tw, warp.MODES[self.resample], fill)
        return out if img.ndim == 3 else out[:, :, 0]


# the other transforms live in modules by job; mindspore.dataset.vision.transforms holds them all
from .color_transforms import (  # noqa: E402,F401
    AdjustBrightness, AdjustContrast, AdjustGamma, AdjustHue, AdjustSaturation, AdjustSharpness, AutoContrast, Equalize,
    GaussianBlur, HsvToRgb, Invert, Posterize, RandomAdjustSharpness, RandomAutoContrast, RandomColor, RandomColorAdjust,
    RandomEqualize, RandomInvert, RandomPosterize, RandomSharpness, RandomSolarize, RgbToHsv, Solarize)
from .geometry_transforms import (  # noqa: E402,F401
    Affine, Crop, CutMixBatch, CutOut, Erase, LinearTransformation, MixUpBatch, NormalizePad, PadToSize, RandomAffine,
    RandomErasing, RandomResize, RandomRotation, ResizedCrop, ToNumpy, ToType, get_image_num_channels, get_image_size)
from .pil_transforms import FiveCrop, Grayscale, RandomGrayscale, TenCrop  # noqa: E402,F401
from .perspective import Perspective, RandomPerspective  # noqa: E402,F401
from .augment_policies import (AutoAugment, RandAugment, RandomSelectSubpolicy, TrivialAugmentWide,  # noqa: E402,F401
                               UniformAugment)
from .bbox_transforms import (BoundingBoxAugment, RandomCropWithBBox, RandomHorizontalFlipWithBBox,  # noqa: E402,F401
                              RandomResizedCropWithBBox, RandomResizeWithBBox, RandomVerticalFlipWithBBox,
                              ResizeWithBBox)
from .extra_transforms import MixUp, RandomCropDecodeResize, RandomLighting, SlicePatches  # noqa: E402,F401

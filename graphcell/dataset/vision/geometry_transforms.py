"""The crop, erase, pad, resize and rotation transforms of mindspore.dataset.vision that the first
module (transforms.py) lacks, and the batch mixers, on numpy images (2.10's arguments, checks and
messages, measured). Random forms draw from 2.10's ranges with the transform's own generator
(seeded from the dataset seed); the draws are not MindSpore's.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from . import _args, warp
from .transforms import Resize, Rotate, _pad, _Random
from .utils import Border, Inter


class Crop:
    """The size (h, w) window whose top-left corner is coordinates (top, left)."""

    def __init__(self, coordinates, size):
        coordinates = tuple(coordinates)
        for i, c in enumerate(coordinates):
            _args.number(c, f"coordinates[{i}]", 0, _args.INT32_MAX, types=(int,))
        self.coordinates, self.size = coordinates, _args.size_pair(size)

    def __call__(self, img):
        img = _args.image(img, "Crop")
        (top, left), (h, w) = self.coordinates, self.size
        if top + h > img.shape[0]:
            raise RuntimeError(f"Crop: Crop height dimension: {top + h} exceeds image height: {img.shape[0]}")
        if left + w > img.shape[1]:
            raise RuntimeError(f"Crop: Crop width dimension: {left + w} exceeds image width: {img.shape[1]}")
        return img[top:top + h, left:left + w].copy()


class ResizedCrop:
    """Crops (top, left, height, width), then resizes to `size` with `interpolation`."""

    def __init__(self, top, left, height, width, size, interpolation=Inter.BILINEAR):
        _args.number(top, "top", 0, _args.INT32_MAX, types=(int,))
        _args.number(left, "left", 0, _args.INT32_MAX, types=(int,))
        _args.number(height, "height", 1, _args.INT32_MAX, types=(int,))
        _args.number(width, "width", 1, _args.INT32_MAX, types=(int,))
        self.crop = Crop((top, left), (height, width))
        self.resize = Resize(size, interpolation)

    def __call__(self, img):
        img = _args.image(img, "ResizedCrop")
        return self.resize(self.crop(img))


def _erase_value(value, dtype, channels):
    return np.broadcast_to(np.asarray(value, np.float64), (channels,)).astype(dtype)


class Erase:
    """Fills the (top, left, height, width) box of an <H, W, 3> image with `value` (one number or
    one per channel); the box is clipped to the image. `inplace` writes into the input array."""

    def __init__(self, top, left, height, width, value=0.0, inplace=False):
        _args.number(top, "top", 0, _args.INT32_MAX, types=(int,))
        _args.number(left, "left", 0, _args.INT32_MAX, types=(int,))
        _args.number(height, "height", 1, _args.INT32_MAX, types=(int,))
        _args.number(width, "width", 1, _args.INT32_MAX, types=(int,))
        values = (value,) if isinstance(value, numbers.Real) else tuple(value)
        for i, v in enumerate(values):
            _args.number(v, f"value[{i}]", 0, 255)
        self.box, self.value, self.inplace = (top, left, height, width), values, bool(inplace)

    def __call__(self, img):
        img = _args.hwc3(img, "Erase")
        if img.shape[2] != 3:
            raise RuntimeError(f"Erase: channel of input image should be 3, but got: {img.shape[2]}")
        out = img if self.inplace else img.copy()
        top, left, h, w = self.box
        out[top:top + h, left:left + w] = _erase_value(self.value, img.dtype, 3)
        return out


class PadToSize:
    """Pads to `size` (h, w) with the image at `offset` (top, left; None centres it, rounding the
    offsets down), filled as Pad fills."""

    def __init__(self, size, offset=None, fill_value=0, padding_mode=Border.CONSTANT):
        self.size = _args.size_pair(size, low=1, high=_args.INT32_MAX)
        if offset is not None:
            offset = _args.size_pair(offset, "offset", low=0, high=_args.INT32_MAX)
        self.offset, self.fill_value, self.padding_mode = offset, fill_value, Border(padding_mode)

    def __call__(self, img):
        img = _args.image(img, "PadToSize", channels=(1, 3))
        (h, w), (th, tw) = img.shape[:2], self.size
        if th < h or tw < w:
            raise RuntimeError("PadToSize: the target size to pad should be no less than the original image size, "
                               f"but got target size ({th}, {tw}) and original size ({h}, {w}).")
        top, left = self.offset if self.offset is not None else ((th - h) // 2, (tw - w) // 2)
        if top + h > th or left + w > tw:
            raise RuntimeError(f"PadToSize: the sum of offset and original image size should be no more than the "
                               f"target size, but got offset ({top}, {left}), original size ({h}, {w}) and target "
                               f"size ({th}, {tw}).")
        return _pad(img, left, top, tw - w - left, th - h - top, self.fill_value, self.padding_mode)


class CutOut(_Random):
    """Zeroes `num_patches` length x length boxes at random places (each may reach past the
    image, and is clipped; 2.10's range of box corners, measured: from -length to the size)."""

    def __init__(self, length, num_patches=1, is_hwc=True):
        super().__init__()
        self.length = int(_args.number(length, "length", 1, _args.UINT24, types=(int,), name=""))
        self.num_patches = int(_args.number(num_patches, "num_patches", 1, _args.UINT24, types=(int,), name=""))
        self.is_hwc = bool(is_hwc)

    def __call__(self, img):
        img = np.array(_args.image(img, "CutOut", ranks=(3,)))
        hwc = img if self.is_hwc else img.transpose(1, 2, 0)           # a view: writes reach img
        h, w = hwc.shape[:2]
        for _ in range(self.num_patches):
            top = self._integer(h + self.length) - self.length
            left = self._integer(w + self.length) - self.length
            hwc[max(top, 0):max(top + self.length, 0), max(left, 0):max(left + self.length, 0)] = 0
        return img


class RandomErasing(_Random):
    """With probability `prob`, erases a random box of a <C, H, W> image: its area a `scale`
    fraction of the image, its aspect in `ratio` (log-uniform), up to `max_attempts` draws;
    filled with `value` (one number or one per channel) or, with value='random', normal noise."""

    def __init__(self, prob=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False, max_attempts=10):
        super().__init__()
        self.prob = _args.prob(prob)
        self.scale = _args.min_max(scale, "scale", 0, _args.UINT24)
        self.ratio = _args.min_max(ratio, "ratio", 0, _args.UINT24)
        if isinstance(value, str):
            if value != "random":
                raise ValueError(f"The value for erasing should be either a single value, or a string 'random', or a "
                                 f"sequence of 3 elements for RGB respectively, got {value!r}.")
        else:
            values = (value,) if isinstance(value, numbers.Real) else tuple(value)
            for v in values:
                _args.number(v, "value", 0, 255, types=(int,))
            value = values
        self.value, self.inplace = value, bool(inplace)
        self.max_attempts = int(_args.number(max_attempts, "max_attempts", 1, _args.UINT24, types=(int,)))

    def _box(self, h, w):
        log_lo, log_hi = np.log(self.ratio)
        for _ in range(self.max_attempts):
            area = h * w * (self.scale[0] + (self.scale[1] - self.scale[0]) * self._uniform())
            aspect = float(np.exp(log_lo + (log_hi - log_lo) * self._uniform()))
            eh, ew = int(round(np.sqrt(area * aspect))), int(round(np.sqrt(area / aspect)))
            if 0 < eh < h and 0 < ew < w:
                return self._integer(h - eh), self._integer(w - ew), eh, ew
        return None

    def __call__(self, img):
        img = np.asarray(img)
        if img.ndim != 3:
            raise TypeError(f"img should be a 3-dimensional <C, H, W> array, got shape {img.shape}.")
        if self._uniform() >= self.prob:
            return img
        box = self._box(*img.shape[1:])
        if box is None:
            return img
        top, left, eh, ew = box
        out = img if self.inplace else img.copy()
        if self.value == "random":
            with self._lock:
                noise = self._rng.standard_normal((img.shape[0], eh, ew))
            out[:, top:top + eh, left:left + ew] = noise.astype(img.dtype)
        else:
            fill = np.asarray(self.value, np.float64).reshape(-1, 1, 1)
            out[:, top:top + eh, left:left + ew] = np.broadcast_to(fill, (img.shape[0], eh, ew)).astype(img.dtype)
        return out


class RandomResize(_Random):
    """Resize to `size` with a random interpolation among NEAREST, LINEAR, CUBIC and AREA."""
    MODES = (Inter.LINEAR, Inter.NEAREST, Inter.CUBIC, Inter.AREA)

    def __init__(self, size):
        super().__init__()
        if isinstance(size, numbers.Integral):
            _args.number(size, "size", 1, _args.UINT24, types=(int,), name="")
        else:
            _args.size_pair(size)
        self.resizes = [Resize(size, mode) for mode in self.MODES]

    def __call__(self, img):
        return self.resizes[self._integer(len(self.MODES) - 1)](img)


class RandomRotation(_Random):
    """Rotate by a random angle in `degrees` (min, max; a number d means (-d, d))."""

    def __init__(self, degrees, resample=Inter.NEAREST, expand=False, center=None, fill_value=0):
        super().__init__()
        if isinstance(degrees, numbers.Real) and not isinstance(degrees, bool):
            _args.number(degrees, "degrees", 0, _args.UINT24)
            degrees = (-degrees, degrees)
        self.degrees = _args.min_max(degrees, "degrees", -_args.UINT24, _args.UINT24)
        Rotate(0, resample, expand, center, fill_value)                   # checks the other arguments
        self.resample, self.expand, self.center, self.fill_value = resample, expand, center, fill_value

    def __call__(self, img):
        low, high = self.degrees
        angle = low + (high - low) * self._uniform()
        return Rotate(angle, self.resample, self.expand, self.center, self.fill_value)(img)


def affine_matrix(degrees, translate, scale, shear, h, w) -> np.ndarray:
    """The forward 2 x 3 matrix of Affine: rotate (clockwise) by `degrees`, shear by (x, y) degrees
    and scale about the centre ((w - 1) / 2, (h - 1) / 2), then shift by translate * (w, h) pixels
    (torchvision's composition; 2.10's, measured)."""
    rot, sx, sy = (math.radians(v) for v in (degrees, *shear))
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    cx, cy = (w - 1) * 0.5, (h - 1) * 0.5
    m = np.array([[a * scale, b * scale, 0.0], [c * scale, d * scale, 0.0]])
    m[0, 2] = cx + translate[0] * w - (m[0, 0] * cx + m[0, 1] * cy)
    m[1, 2] = cy + translate[1] * h - (m[1, 0] * cx + m[1, 1] * cy)
    return m


def _warp_resample(resample, op):
    resample = Inter(resample)
    if resample is Inter.ANTIALIAS:
        raise RuntimeError("Unsupported interpolation, only support NEAREST, LINEAR, CUBIC, AREA and PILCUBIC.")
    return resample


def _shear_pair(shear):
    if isinstance(shear, numbers.Real) and not isinstance(shear, bool):
        return (float(shear), 0.0)
    shear = tuple(shear)
    if len(shear) != 2:
        raise TypeError("The length of shear should be 2.")
    return tuple(float(_args.number(v, "shear", -180, 180)) for v in shear)


class Affine:
    """Rotation (clockwise `degrees`), translation (fractions of the width and height), scale and
    shear (x, y degrees; a number is x) about the image centre, by OpenCV's warpAffine (warp.py);
    uncovered pixels are `fill_value` (one value or R, G, B)."""

    def __init__(self, degrees, translate, scale, shear, resample=Inter.NEAREST, fill_value=0):
        self.degrees = float(_args.number(degrees, "degrees", -180, 180))
        translate = tuple(translate)
        if len(translate) != 2:
            raise TypeError("The length of translate should be 2.")
        for i, t in enumerate(translate):
            _args.number(t, f"translate[{i}]", -1.0, 1.0)
        if _args.number(scale, "scale", -_args.UINT24, _args.UINT24) <= 0:
            raise ValueError("Input scale must be greater than 0.")
        self.translate, self.scale, self.shear = translate, float(scale), _shear_pair(shear)
        self.resample, self.fill_value = _warp_resample(resample, "Affine"), fill_value

    def __call__(self, img):
        return _affine(img, self.degrees, self.translate, self.scale, self.shear, self.resample, self.fill_value)


def _affine(img, degrees, translate, scale, shear, resample, fill_value):
    img = _args.image(img, "Affine")
    if resample not in warp.MODES:
        raise RuntimeError("Affine: Invalid InterpolationMode, only support Linear, Nearest, Cubic and Area.")
    hwc = img if img.ndim == 3 else img[:, :, None]
    h, w = hwc.shape[:2]
    fill = np.asarray(fill_value, hwc.dtype).ravel()             # R, G, B order (measured; Rotate's is reversed)
    fill = np.broadcast_to(fill, (hwc.shape[2],)) if fill.size == 1 else fill[:hwc.shape[2]]
    matrix = affine_matrix(degrees, translate, scale, shear, h, w)
    out = warp.warp_affine(hwc, matrix, h, w, warp.MODES[resample], fill)
    return out if img.ndim == 3 else out[:, :, 0]


class RandomAffine(_Random):
    """Affine with parameters drawn uniformly: degrees (a number d means (-d, d)), translate
    (x_min, x_max[, y_min, y_max]) fractions, scale (min, max), shear (a number s means x in
    (-s, s); two values an x range; four, x and y ranges)."""

    def __init__(self, degrees, translate=None, scale=None, shear=None, resample=Inter.NEAREST, fill_value=0):
        super().__init__()
        if isinstance(degrees, numbers.Real) and not isinstance(degrees, bool):
            _args.number(degrees, "degrees", 0, _args.UINT24)
            degrees = (-degrees, degrees)
        self.degrees = _args.min_max(degrees, "degrees", -_args.UINT24, _args.UINT24)
        self.translate = (0.0, 0.0, 0.0, 0.0)
        if translate is not None:
            translate = tuple(translate)
            if len(translate) not in (2, 4):
                raise TypeError("translate should be a list or tuple of length 2 or 4.")
            for t in translate:
                _args.number(t, "translate", -1.0, 1.0, name="")
            self.translate = translate if len(translate) == 4 else translate + (0.0, 0.0)
        self.scale = (1.0, 1.0)
        if scale is not None:
            scale = tuple(scale)
            if len(scale) != 2 or scale[1] < scale[0]:
                raise ValueError("Input scale[1] must be equal to or greater than scale[0].")
            if scale[0] <= 0:
                raise ValueError("Input scale[0] must be greater than 0.")
            self.scale = scale
        self.shear = (0.0, 0.0, 0.0, 0.0)
        if shear is not None:
            if isinstance(shear, numbers.Real) and not isinstance(shear, bool):
                _args.number(shear, "shear", 0, _args.UINT24)
                shear = (-shear, shear)
            shear = tuple(shear)
            if len(shear) not in (2, 4):
                raise TypeError("shear must be of length 2 or 4.")
            self.shear = shear if len(shear) == 4 else shear + (0.0, 0.0)
        self.resample, self.fill_value = _warp_resample(resample, "RandomAffine"), fill_value

    def _draw(self, low, high):
        return low + (high - low) * self._uniform()

    def __call__(self, img):
        t, sh = self.translate, self.shear
        return _affine(img, self._draw(*self.degrees), (self._draw(t[0], t[1]), self._draw(t[2], t[3])),
                       self._draw(*self.scale), (self._draw(sh[0], sh[1]), self._draw(sh[2], sh[3])),
                       self.resample, self.fill_value)


# --- whole-image helpers -----------------------------------------------------------------------

def get_image_num_channels(image) -> int:
    """The channel count of an <H, W> (1) or <H, W, C> image."""
    image = np.asarray(image)
    if image.ndim not in (2, 3):
        raise RuntimeError(f"GetImageNumChannels: the image must be <H, W> or <H, W, C>, got shape {image.shape}.")
    return 1 if image.ndim == 2 else int(image.shape[2])


def get_image_size(image) -> list:
    """[height, width] of an <H, W> or <H, W, C> image."""
    image = np.asarray(image)
    if image.ndim not in (2, 3):
        raise RuntimeError(f"GetImageSize: the image must be <H, W> or <H, W, C>, got shape {image.shape}.")
    return [int(image.shape[0]), int(image.shape[1])]


class NormalizePad:
    """Normalize, then a fourth channel of zeros, in `dtype` (float32 or float16)."""

    def __init__(self, mean, std, dtype="float32", is_hwc=True):
        from .transforms import Normalize
        if dtype not in ("float32", "float16"):
            raise ValueError(f"dtype should be 'float32' or 'float16', got {dtype!r}.")
        self.normalize, self.dtype, self.is_hwc = Normalize(mean, std, is_hwc), np.dtype(dtype), bool(is_hwc)

    def __call__(self, img):
        img = np.asarray(img)
        axis = -1 if self.is_hwc or img.ndim == 2 else 0
        channels = 1 if img.ndim == 2 else img.shape[axis]
        if channels != self.normalize.mean.size:
            raise RuntimeError(f"NormalizePad: number of channels does not match the size of mean and std vectors, "
                               f"got channels: {channels}, size of mean: {self.normalize.mean.size}")
        out = self.normalize(img)
        out = out[..., None] if img.ndim == 2 else out
        pad = [(0, 0)] * out.ndim
        pad[-1 if self.is_hwc or img.ndim == 2 else 0] = (0, 1)
        return np.pad(out, pad).astype(self.dtype)


class ToType:
    """Casts to `data_type` (a numpy or graphcell dtype), as numpy's astype."""

    def __init__(self, data_type):
        from ..transforms.transforms import TypeCast
        self.cast = TypeCast(data_type)

    def __call__(self, img):
        return self.cast(img)


class ToNumpy:
    """A PIL image (or anything array-like) as a numpy array."""

    def __call__(self, img):
        return np.array(img)


class LinearTransformation:
    """(flattened image - mean_vector) @ transformation_matrix, reshaped back (a whitening)."""

    def __init__(self, transformation_matrix, mean_vector):
        self.matrix, self.mean = np.asarray(transformation_matrix), np.asarray(mean_vector)
        if self.matrix.ndim != 2 or self.matrix.shape[0] != self.matrix.shape[1]:
            raise ValueError(f"transformation_matrix should be a square matrix. Got shape {self.matrix.shape} instead.")
        if self.mean.shape != (self.matrix.shape[0],):
            raise ValueError(f"mean_vector length {self.mean.size} should match either one dimension of the square "
                             f"transformation_matrix {self.matrix.shape}.")

    def __call__(self, img):
        img = np.asarray(img)
        if img.size != self.matrix.shape[0]:
            raise ValueError(f"transformation_matrix shape {self.matrix.shape} not compatible with Numpy image shape "
                             f"{img.shape}.")
        flat = img.reshape(1, -1) - self.mean
        return (flat @ self.matrix).reshape(img.shape)


# --- batch mixers ---------------------------------------------------------------------------------

def _one_hot_batch(labels, op, message):
    labels = np.asarray(labels)
    if labels.ndim not in (2, 3):
        raise RuntimeError(f"{op}: {message}{labels.ndim}")
    return labels


class MixUpBatch(_Random):
    """Mixes each image (and one-hot label) of a batch with another of the same batch (a random
    pairing), by a weight drawn from Beta(alpha, alpha)."""

    def __init__(self, alpha=1.0):
        super().__init__()
        self.alpha = float(_args.number(alpha, "alpha", 0, _args.UINT24))
        if self.alpha <= 0:
            raise ValueError(f"Input alpha is not within the required interval of (0, {_args.UINT24}].")

    def __call__(self, images, labels):
        images = np.asarray(images)
        labels = _one_hot_batch(labels, "MixUpBatch", "wrong labels shape. The second column (labels) must have a "
                                "shape of NC or NLC where N is the batch size, L is the number of labels in each "
                                "row, and C is the number of classes. labels must be in one-hot format and in a "
                                "batch, but got rank: ")
        if images.ndim != 4:
            raise RuntimeError(f"MixUpBatch: images must be a batch <N, H, W, C> or <N, C, H, W>, got shape "
                               f"{images.shape}.")
        with self._lock:
            lam = float(self._rng.beta(self.alpha, self.alpha))
            order = self._rng.permutation(len(images))
        mixed = images.astype(np.float32) * np.float32(lam) + images[order].astype(np.float32) * np.float32(1 - lam)
        if images.dtype.kind in "iu":
            mixed = np.rint(mixed)
        labels32 = labels.astype(np.float32)
        mixed_labels = labels32 * np.float32(lam) + labels32[order] * np.float32(1 - lam)
        return mixed.astype(images.dtype), mixed_labels


class CutMixBatch(_Random):
    """With probability `prob` per image, pastes a box of another image of the batch into it; the box
    covers 1 - lam of the area, lam drawn from Beta(alpha, alpha), and the one-hot labels mix by the
    pasted area."""

    def __init__(self, image_batch_format, alpha=1.0, prob=1.0):
        super().__init__()
        from .utils import ImageBatchFormat
        self.image_batch_format = ImageBatchFormat(image_batch_format)
        self.alpha = float(_args.number(alpha, "alpha", 0, _args.UINT24))
        if self.alpha <= 0:
            raise ValueError(f"Input alpha is not within the required interval of (0, {_args.UINT24}].")
        self.prob = _args.prob(prob)

    def __call__(self, images, labels):
        from .utils import ImageBatchFormat
        images = np.array(images)
        labels = _one_hot_batch(labels, "CutMixBatch", "input label is not in shape of <Batch,Class> or "
                                "<Batch,Row,Class>, but got dimension: ")
        if images.ndim != 4:
            raise RuntimeError(f"CutMixBatch: images must be a batch <N, H, W, C> or <N, C, H, W>, got shape "
                               f"{images.shape}.")
        nhwc = images if self.image_batch_format is ImageBatchFormat.NHWC else images.transpose(0, 2, 3, 1)
        source = nhwc.copy()
        out_labels = labels.astype(np.float32).copy()
        n, h, w = nhwc.shape[:3]
        with self._lock:
            order = self._rng.permutation(n)
        for i in range(n):
            if self._uniform() >= self.prob:
                continue
            with self._lock:
                lam = float(self._rng.beta(self.alpha, self.alpha))
            cut = np.sqrt(1.0 - lam)
            ch, cw = int(h * cut), int(w * cut)
            cy, cx = self._integer(h - 1), self._integer(w - 1)
            y0, y1 = np.clip([cy - ch // 2, cy + ch // 2], 0, h)
            x0, x1 = np.clip([cx - cw // 2, cx + cw // 2], 0, w)
            nhwc[i, y0:y1, x0:x1] = source[order[i], y0:y1, x0:x1]
            share = np.float32((y1 - y0) * (x1 - x0) / (h * w))
            out_labels[i] = labels[i] * (np.float32(1) - share) + labels[order[i]] * share
        return images, out_labels

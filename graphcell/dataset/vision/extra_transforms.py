"""The smaller leftovers of mindspore.dataset.vision: SlicePatches (tiling), RandomLighting (AlexNet's
PCA colour noise), MixUp (2.10's Python batch mixer) and RandomCropDecodeResize (Decode, then
RandomResizedCrop). Checks and messages are 2.10's (measured); random draws are the transform's own
(seeded from the dataset seed), not MindSpore's."""
from __future__ import annotations

import numpy as np

from . import _args
from .decode import Decode
from .transforms import RandomResizedCrop, _pad, _Random
from .utils import Inter, SliceMode

# AlexNet's RGB eigenvalues (0..255 scale) and eigenvectors (columns), as GluonCV and 2.10 use them
LIGHTING_EIGVAL = np.array([55.46, 4.794, 1.148])
LIGHTING_EIGVEC = np.array([[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140], [-0.5836, -0.6948, 0.4203]])


class SlicePatches:
    """Cuts the image into num_height x num_width patches (row by row), padding the image with
    fill_value up to whole patches (SliceMode.PAD) or dropping the remainder (DROP)."""

    def __init__(self, num_height=1, num_width=1, slice_mode=SliceMode.PAD, fill_value=0):
        self.num_height = int(_args.number(num_height, "num_height", 1, _args.INT32_MAX, types=(int,)))
        self.num_width = int(_args.number(num_width, "num_width", 1, _args.INT32_MAX, types=(int,)))
        if not isinstance(slice_mode, SliceMode):
            raise TypeError(f"Argument slice_mode with value {slice_mode!r} is not of type [<enum 'SliceMode'>], "
                            f"but got {type(slice_mode)}.")
        self.slice_mode = slice_mode
        self.fill_value = int(_args.number(fill_value, "fill_value", 0, 255, types=(int,)))

    def __call__(self, img):
        img = _args.image(img, "SlicePatches")
        h, w = img.shape[:2]
        if self.num_height > h or self.num_width > w:
            raise RuntimeError(f"SlicePatches: The number of patches on height axis ({self.num_height}) and width axis "
                               f"({self.num_width}) should be no more than the image height ({h}) and width ({w}).")
        if self.slice_mode is SliceMode.PAD:
            ph, pw = -(-h // self.num_height), -(-w // self.num_width)
            img = _pad(img, 0, 0, pw * self.num_width - w, ph * self.num_height - h, self.fill_value)
        else:
            ph, pw = h // self.num_height, w // self.num_width
        patches = tuple(img[i * ph:(i + 1) * ph, j * pw:(j + 1) * pw].copy()
                        for i in range(self.num_height) for j in range(self.num_width))
        return patches[0] if len(patches) == 1 else patches             # one patch: an array (as 2.10)


class RandomLighting(_Random):
    """Adds eigvec @ (a * eigval) to every RGB pixel, each a of the three drawn from N(0, alpha)
    (AlexNet's PCA lighting); uint8 results rounded and saturated, alpha 0 gives the image."""

    def __init__(self, alpha=0.05):
        super().__init__()
        self.alpha = float(_args.number(alpha, "alpha", 0, _args.UINT24))

    def __call__(self, img):
        img = np.asarray(img)
        if img.ndim != 3 or img.shape[2] != 3:
            raise RuntimeError(f"RandomLighting: input tensor is not in shape of <H,W,C> or channel is not 3, got "
                               f"shape {img.shape}.")
        if self.alpha == 0:
            return img.copy()
        with self._lock:
            draws = self._rng.normal(0.0, self.alpha, 3)
        shift = (LIGHTING_EIGVEC @ (draws * LIGHTING_EIGVAL)).astype(np.float32)
        out = img.astype(np.float32) + shift
        if img.dtype.kind in "iu":
            info = np.iinfo(img.dtype)
            return np.clip(np.rint(out), info.min, info.max).astype(img.dtype)
        return out.astype(img.dtype)


class MixUp(_Random):
    """2.10's Python MixUp of a batch (images <N, ...>, one-hot labels <N, C>), in float64: with
    is_single, each image mixes with another of the batch (a random pairing) by lam ~ Beta(alpha,
    alpha); otherwise each mixes with the same place of the previous batch (the first batch
    passes unchanged), by its own lam."""

    def __init__(self, batch_size, alpha, is_single=True):
        super().__init__()
        self.batch_size = int(_args.number(batch_size, "batch_size", 1, _args.UINT24, types=(int,), name=""))
        self.alpha = float(_args.number(alpha, "alpha", 0, _args.UINT24))
        if self.alpha <= 0:
            raise ValueError("Input alpha must be greater than 0.")
        if not isinstance(is_single, bool):
            raise TypeError(f"Argument is_single with value {is_single!r} is not of type [<class 'bool'>], but got "
                            f"{type(is_single)}.")
        self.is_single = is_single
        self._previous = None

    def __call__(self, image, label):
        image, label = np.asarray(image, np.float64), np.asarray(label, np.float64)
        if image.shape[0] != self.batch_size or label.shape[0] != self.batch_size:
            raise ValueError(f"MixUp: the batch has {image.shape[0]} images and {label.shape[0]} labels, but "
                             f"batch_size is {self.batch_size}.")
        if self.is_single:
            with self._lock:
                lam = float(self._rng.beta(self.alpha, self.alpha))
                order = self._rng.permutation(self.batch_size)
            return lam * image + (1 - lam) * image[order], lam * label + (1 - lam) * label[order]
        previous, self._previous = self._previous, (image, label)
        if previous is None:
            return image, label
        with self._lock:
            lam = self._rng.beta(self.alpha, self.alpha, self.batch_size)
        lam_image = lam.reshape((-1,) + (1,) * (image.ndim - 1))
        lam_label = lam.reshape((-1,) + (1,) * (label.ndim - 1))
        return (lam_image * image + (1 - lam_image) * previous[0],
                lam_label * label + (1 - lam_label) * previous[1])


class RandomCropDecodeResize(RandomResizedCrop):
    """Decodes encoded image bytes, then RandomResizedCrop (a random window of `scale` times the
    area and `ratio` aspect, resized to `size`)."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3. / 4., 4. / 3.), interpolation=Inter.BILINEAR,
                 max_attempts=10):
        super().__init__(size, scale, ratio, interpolation, max_attempts)
        self._decode = None

    def __call__(self, img):
        if self._decode is None:
            self._decode = Decode()
        return super().__call__(self._decode(img))

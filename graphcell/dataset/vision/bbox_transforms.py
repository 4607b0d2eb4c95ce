"""The bounding-box transforms of mindspore.dataset.vision: each takes (image, bboxes), bboxes an
<N, 4 + k> float32 array of rows (x, y, width, height, extra...), and returns both, the boxes moved
with the image (extra columns kept). Checks and messages are 2.10's (measured); unlike 2.10, the
input boxes are never changed in place (2.10 writes the flipped boxes into the caller's array).
"""
from __future__ import annotations

import numpy as np

from . import _args
from .transforms import RandomCrop, RandomResizedCrop, Resize, _Random, _pad
from .utils import Border, Inter


def check_bboxes(img, bboxes) -> np.ndarray:
    """The boxes as a float32 copy, checked against the image as 2.10 checks them."""
    bboxes = np.asarray(bboxes)
    if bboxes.ndim < 2:
        raise RuntimeError("BoundingBox: bounding boxes should have to be two-dimensional matrix at least, but got "
                           f"{bboxes.ndim} dimension.")
    if bboxes.shape[1] < 4:
        raise RuntimeError(f"BoundingBox: bounding boxes should be have at least 4 features, but got: "
                           f"{bboxes.shape[1]}")
    if bboxes.dtype != np.float32:
        raise RuntimeError(f"BoundingBox: bounding boxes must be float32, got {bboxes.dtype}.")
    h, w = img.shape[:2]
    for x, y, bw, bh in bboxes[:, :4]:
        if x < 0 or y < 0:
            raise RuntimeError(f"BoundingBox: the coordinates of the bounding boxes has negative value, got: "
                               f"({x:f},{y:f}).")
        if x + bw > w or y + bh > h:
            raise RuntimeError(f"BoundingBox: bounding boxes is out of bounds of the image, as image width: {w}, "
                               f"bbox width coordinate: {x + bw:f}, and image height: {h}, bbox height coordinate: "
                               f"{y + bh:f}")
    return bboxes.copy()


def crop_bboxes(bboxes, top, left, height, width) -> np.ndarray:
    """The boxes clipped to the (top, left, height, width) window, in its coordinates; boxes
    outside it are dropped."""
    x0 = np.maximum(bboxes[:, 0], left)
    y0 = np.maximum(bboxes[:, 1], top)
    x1 = np.minimum(bboxes[:, 0] + bboxes[:, 2], left + width)
    y1 = np.minimum(bboxes[:, 1] + bboxes[:, 3], top + height)
    keep = (x1 > x0) & (y1 > y0)
    out = bboxes[keep].copy()
    out[:, 0], out[:, 1] = x0[keep] - left, y0[keep] - top
    out[:, 2], out[:, 3] = x1[keep] - x0[keep], y1[keep] - y0[keep]
    return out.astype(np.float32)


def scale_bboxes(bboxes, h, w, th, tw) -> np.ndarray:
    """The boxes of an (h, w) image resized to (th, tw): x and width times tw / w, y and height
    times th / h (float32 ratios)."""
    out = bboxes.copy()
    sx, sy = np.float32(tw / w), np.float32(th / h)
    out[:, 0] *= sx
    out[:, 2] *= sx
    out[:, 1] *= sy
    out[:, 3] *= sy
    return out


class ResizeWithBBox:
    """Resize (size (h, w), or the shorter side to an int), with the boxes scaled."""

    def __init__(self, size, interpolation=Inter.BILINEAR):
        self.resize = Resize(size, interpolation)

    def __call__(self, img, bboxes):
        img = _args.image(img, "ResizeWithBBox")
        bboxes = check_bboxes(img, bboxes)
        out = self.resize(img)
        return out, scale_bboxes(bboxes, *img.shape[:2], *out.shape[:2])


class RandomResizeWithBBox(_Random):
    """ResizeWithBBox with a random interpolation among NEAREST, LINEAR, CUBIC and AREA."""
    MODES = (Inter.LINEAR, Inter.NEAREST, Inter.CUBIC, Inter.AREA)

    def __init__(self, size):
        super().__init__()
        self.resizes = [ResizeWithBBox(size, mode) for mode in self.MODES]

    def __call__(self, img, bboxes):
        return self.resizes[self._integer(len(self.MODES) - 1)](img, bboxes)


class _RandomFlipWithBBox(_Random):
    axis = None

    def __init__(self, prob=0.5):
        super().__init__()
        self.prob = _args.prob(prob)

    def __call__(self, img, bboxes):
        img = _args.image(img, type(self).__name__)
        bboxes = check_bboxes(img, bboxes)
        if self._uniform() >= self.prob:
            return img, bboxes
        axis = self.axis
        out = np.ascontiguousarray(np.flip(img, axis))
        size, start, extent = (img.shape[1], 0, 2) if axis == 1 else (img.shape[0], 1, 3)
        bboxes[:, start] = size - bboxes[:, start] - bboxes[:, extent]
        return out, bboxes


class RandomHorizontalFlipWithBBox(_RandomFlipWithBBox):
    """Flips left-right with probability `prob`; x becomes width - x - box width."""
    axis = 1


class RandomVerticalFlipWithBBox(_RandomFlipWithBBox):
    """Flips top-bottom with probability `prob`; y becomes height - y - box height."""
    axis = 0


class RandomCropWithBBox(RandomCrop):
    """RandomCrop (with its padding), the boxes shifted by the padding and clipped to the window."""

    def __init__(self, size, padding=None, pad_if_needed=False, fill_value=0, padding_mode=Border.CONSTANT):
        super().__init__(size, padding, pad_if_needed, fill_value, padding_mode)

    def __call__(self, img, bboxes):
        img = _args.image(img, "RandomCropWithBBox")
        bboxes = check_bboxes(img, bboxes)
        left = top = 0
        if self.padding:
            img = _pad(img, *self.padding, self.fill_value, self.padding_mode)
            left, top = self.padding[0], self.padding[1]
        th, tw = self.size
        if self.pad_if_needed and (img.shape[0] < th or img.shape[1] < tw):
            ph, pw = max(th - img.shape[0], 0), max(tw - img.shape[1], 0)
            img = _pad(img, pw, ph, pw, ph, self.fill_value, self.padding_mode)
            left, top = left + pw, top + ph
        bboxes[:, 0] += left
        bboxes[:, 1] += top
        h, w = img.shape[:2]
        if th > h or tw > w:
            raise RuntimeError(f"RandomCropWithBBox: the crop size {self.size} is larger than the image ({h}, {w}); "
                               "pass padding or pad_if_needed=True.")
        y, x = self._integer(h - th), self._integer(w - tw)
        return img[y:y + th, x:x + tw], crop_bboxes(bboxes, y, x, th, tw)


class RandomResizedCropWithBBox(RandomResizedCrop):
    """RandomResizedCrop, the boxes clipped to the window and scaled with it."""

    def __call__(self, img, bboxes):
        img = _args.image(img, "RandomResizedCropWithBBox")
        bboxes = check_bboxes(img, bboxes)
        top, left, ch, cw = self._window(*img.shape[:2])
        out = self.resize(img[top:top + ch, left:left + cw])
        return out, scale_bboxes(crop_bboxes(bboxes, top, left, ch, cw), ch, cw, *out.shape[:2])


class BoundingBoxAugment(_Random):
    """With probability `ratio` per box, applies `transform` to the box's pixels (x, y, width,
    height truncated to whole pixels), resized back (LINEAR) if the transform changed their size;
    boxes in order, each on the image as the earlier ones left it. The boxes are unchanged."""

    def __init__(self, transform, ratio=0.3):
        super().__init__()
        if not callable(transform):
            raise TypeError(f"Argument transform with value {transform!r} is not of type [<class 'TensorOperation'>]"
                            f", but got {type(transform)}.")
        self.transform = transform
        self.ratio = float(_args.number(ratio, "ratio", 0.0, 1.0))

    def __call__(self, img, bboxes):
        img = np.array(_args.image(img, "BoundingBoxAugment"))
        bboxes = check_bboxes(img, bboxes)
        for x, y, w, h in bboxes[:, :4].astype(np.int64):
            if self._uniform() >= self.ratio or w <= 0 or h <= 0:
                continue
            patch = np.asarray(self.transform(img[y:y + h, x:x + w].copy()))
            if patch.shape[:2] != (h, w):
                patch = Resize((int(h), int(w)))(patch)
            img[y:y + h, x:x + w] = patch
        return img, bboxes

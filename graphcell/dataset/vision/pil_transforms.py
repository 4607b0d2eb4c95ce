"""The transforms 2.10 runs only on PIL images (Grayscale, RandomGrayscale, FiveCrop, TenCrop): they take
what Decode(to_pil=True) gives and return PIL images, through Pillow's own operations, as 2.10
does; a numpy image is refused with 2.10's message. Pillow is imported only when one is called."""
from __future__ import annotations

from . import _args
from .transforms import _Random


def _pil(img):
    from .decode import _pillow_image
    image = _pillow_image()
    if not isinstance(img, image.Image):
        raise TypeError(f"img should be PIL image. Got {type(img)}. Use Decode() for encoded data or ToPIL() for "
                        "decoded data.")
    return image


class Grayscale:
    """The image's luminance (Pillow's "L"), as 1 or 3 identical channels."""

    def __init__(self, num_output_channels=1):
        if num_output_channels not in (1, 3):
            raise ValueError(f"Number of channels of the output grayscale image should be either 1 or 3. "
                             f"Got {num_output_channels}.")
        self.num_output_channels = num_output_channels

    def __call__(self, img):
        image = _pil(img)
        gray = img.convert("L")
        return gray if self.num_output_channels == 1 else image.merge("RGB", [gray, gray, gray])


class RandomGrayscale(_Random):
    """Grayscale with probability `prob`, keeping the image's channel count (1 or 3)."""

    def __init__(self, prob=0.1):
        super().__init__()
        self.prob = _args.prob(prob)

    def __call__(self, img):
        _pil(img)
        if self._uniform() >= self.prob:
            return img
        return Grayscale(1 if img.mode == "L" else 3)(img)


def _five(img, size):
    h, w = size
    width, height = img.size
    if h > height or w > width:
        raise ValueError(f"Crop size {size} is larger than input image size {(height, width)}.")
    top, left = int(round((height - h) / 2.0)), int(round((width - w) / 2.0))
    boxes = [(0, 0), (width - w, 0), (0, height - h), (width - w, height - h), (left, top)]
    return tuple(img.crop((x, y, x + w, y + h)) for x, y in boxes)


class FiveCrop:
    """The four corner crops and the centre crop (top-left, top-right, bottom-left, bottom-right, centre)."""

    def __init__(self, size):
        self.size = _args.size_pair(size)

    def __call__(self, img):
        _pil(img)
        return _five(img, self.size)


class TenCrop(FiveCrop):
    """FiveCrop of the image and of its flip (left-right, or top-bottom with use_vertical_flip)."""

    def __init__(self, size, use_vertical_flip=False):
        super().__init__(size)
        if not isinstance(use_vertical_flip, bool):
            raise TypeError(f"Argument use_vertical_flip with value {use_vertical_flip!r} is not of type "
                            f"[<class 'bool'>], but got {type(use_vertical_flip)}.")
        self.use_vertical_flip = use_vertical_flip

    def __call__(self, img):
        image = _pil(img)
        flip = image.Transpose.FLIP_TOP_BOTTOM if self.use_vertical_flip else image.Transpose.FLIP_LEFT_RIGHT
        return _five(img, self.size) + _five(img.transpose(flip), self.size)


"""vision.Perspective (OpenCV's getPerspectiveTransform and warpPerspective, as 2.10 runs them: see
warp.py; uint8 bit-exact with 2.10, measured) and vision.RandomPerspective, which 2.10 runs only on
PIL images, through Pillow's own perspective transform (as here)."""
from __future__ import annotations

import numbers

import numpy as np

from . import _args, warp
from .transforms import _Random
from .utils import Inter


def _points(points, arg):
    if not isinstance(points, (list, tuple)):
        raise TypeError(f"Argument {arg} with value {points!r} is not of type [<class 'list'>, <class 'tuple'>], "
                        f"but got {type(points)}.")
    if len(points) != 4:
        raise TypeError(f"{arg} should be a list or tuple of length 4.")
    for i, point in enumerate(points):
        if not isinstance(point, (list, tuple)) or len(point) != 2:
            raise TypeError(f"{arg}[{i}] should be a list or tuple of length 2.")
        for j, v in enumerate(point):
            _args.number(v, f"{arg}[{i}][{j}]", -_args.INT32_MAX - 1, _args.INT32_MAX, types=(int,))
    return [list(p) for p in points]


class Perspective:
    """Warps the image so that the four start_points ([x, y] each) land on the four end_points;
    uncovered pixels are 0. On numpy images OpenCV's warpPerspective: NEAREST, BILINEAR, BICUBIC,
    AREA and PILCUBIC (both warp as BILINEAR, as 2.10); on PIL images Pillow's perspective
    transform (NEAREST, BILINEAR, BICUBIC), as 2.10, which also sends ANTIALIAS there."""

    def __init__(self, start_points, end_points, interpolation=Inter.BILINEAR):
        self.start_points, self.end_points = _points(start_points, "start_points"), _points(end_points, "end_points")
        if not isinstance(interpolation, Inter):
            raise TypeError(f"Argument interpolation with value {interpolation!r} is not of type [<enum 'Inter'>], "
                            f"but got {type(interpolation)}.")
        self.interpolation = interpolation

    def __call__(self, img):
        if self.interpolation is Inter.ANTIALIAS or not isinstance(img, np.ndarray) and hasattr(img, "transform"):
            if isinstance(img, np.ndarray):
                raise TypeError(f"img should be PIL image. Got {type(img)}. Use Decode() for encoded data or ToPIL() "
                                "for decoded data.")
            from .pil_transforms import _pil
            image = _pil(img)
            if self.interpolation not in _PIL_FILTERS:
                if self.interpolation is Inter.ANTIALIAS:
                    raise ValueError("Image.Resampling.LANCZOS (1) cannot be used. Use Image.Resampling.NEAREST (0), "
                                     "Image.Resampling.BILINEAR (2) or Image.Resampling.BICUBIC (3)")
                raise TypeError("Current Interpolation is not supported with PIL input.")
            resample = getattr(image.Resampling, _PIL_FILTERS[self.interpolation])
            return perspective_pil(img, self.start_points, self.end_points, resample)
        img = _args.image(img, "Perspective")
        hwc = img if img.ndim == 3 else img[:, :, None]
        matrix = warp.perspective_matrix(self.start_points, self.end_points)
        mode = warp.MODES.get(self.interpolation, "linear")                 # PILCUBIC warps as LINEAR
        out = warp.warp_perspective(hwc, matrix, *hwc.shape[:2], mode, 0)
        return out if img.ndim == 3 else out[:, :, 0]


_PIL_FILTERS = {Inter.NEAREST: "NEAREST", Inter.BILINEAR: "BILINEAR", Inter.BICUBIC: "BICUBIC"}


class RandomPerspective(_Random):
    """With probability `prob`, moves each corner of a PIL image inwards by up to distortion_scale
    of half the width and height (a random draw per corner and axis) and warps the image so, with
    Pillow's perspective transform; uncovered pixels are 0."""

    def __init__(self, distortion_scale=0.5, prob=0.5, interpolation=Inter.BICUBIC):
        super().__init__()
        self.distortion_scale = float(_args.number(distortion_scale, "distortion_scale", 0.0, 1.0))
        self.prob = _args.prob(prob)
        if not isinstance(interpolation, Inter):
            raise TypeError(f"Argument interpolation with value {interpolation!r} is not of type [<enum 'Inter'>], "
                            f"but got {type(interpolation)}.")
        self.interpolation = interpolation

    def corners(self, width, height):
        """(start, end): the image's corners and where they move (top-left, top-right,
        bottom-right, bottom-left; [x, y] each)."""
        dx, dy = int(self.distortion_scale * (width // 2)), int(self.distortion_scale * (height // 2))
        shift = [(self._integer(dx), self._integer(dy)) for _ in range(4)]
        right, bottom = width - 1, height - 1
        start = [[0, 0], [right, 0], [right, bottom], [0, bottom]]
        end = [[shift[0][0], shift[0][1]], [right - shift[1][0], shift[1][1]],
               [right - shift[2][0], bottom - shift[2][1]], [shift[3][0], bottom - shift[3][1]]]
        return start, end

    def __call__(self, img):
        from .pil_transforms import _pil
        image = _pil(img)
        if self._uniform() >= self.prob:
            return img
        start, end = self.corners(*img.size)
        return perspective_pil(img, start, end, getattr(image.Resampling, _PIL_FILTERS.get(self.interpolation,
                                                                                            "BICUBIC")))


def perspective_pil(img, start, end, resample):
    """Pillow's perspective transform of the PIL image taking the points `start` to `end`. Pillow
    maps each output pixel back, so the coefficients take end to start: the least-squares
    solution of the 8 equations (exact for four points in general position; bit-exact with 2.10's
    coefficients, measured, also for degenerate points)."""
    from .decode import _pillow_image
    a, b = np.zeros((8, 8)), np.zeros(8)
    for i, ((x, y), (u, v)) in enumerate(zip(end, start)):
        a[2 * i] = (x, y, 1, 0, 0, 0, -u * x, -u * y)
        a[2 * i + 1] = (0, 0, 0, x, y, 1, -v * x, -v * y)
        b[2 * i], b[2 * i + 1] = u, v
    coeffs = np.linalg.lstsq(a, b, rcond=None)[0]
    return img.transform(img.size, _pillow_image().Transform.PERSPECTIVE, tuple(coeffs.tolist()), resample)

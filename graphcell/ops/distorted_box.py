"""ops.SampleDistortedBoundingBoxV2: TensorFlow's sample_distorted_bounding_box (v2), which
MindSpore 2.10's CPU kernel runs, with 2.10's arguments, output dtypes and messages (measured).

Each of max_attempts tries draws an aspect ratio uniformly in aspect_ratio_range, the crop height
between the smallest and largest that give an area in area_range (times the image's) and fit the
image (lrint rounding, float32, as TF's GenerateRandomCrop), the width as round(height * ratio),
then a uniform top-left corner; a try is kept when the crop covers at least min_object_covered
of some bounding box's area (boxes scaled to pixels and truncated to ints, as TF). The first kept
try is the result; when none is, the whole image. Outputs: begin [y, x, 0] and size [h, w, -1]
in image_size's dtype, and the crop as a normalised box [1, 1, 4] (y_min, x_min, y_max, x_max).

The tries are drawn all at once and the first kept one picked (static shapes: jit, vmap and
ONNX follow); the numbers are graphcell's draws, not 2.10's Philox stream (as in random_more.py:
seed = seed2 = 0 draws from the global generator, any other pair gives the same crop every call).
The box checks that read values (in [0, 1], min <= max, min_object_covered in [0, 1]) run eagerly.
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from . import functional as F
from .math_classes import static_ints
from .op_base import Operator, check_bool
from .random_draws import _open_uniform
from .random_more import _seed

__all__: list[str] = []

_OP = "SampleDistortedBoundingBoxV2"
_IMAGE_SIZE_TYPES = (mstype.int16, mstype.int32, mstype.int64, mstype.int8, mstype.uint8)


def _range_attr(name: str, values, check) -> tuple:
    values = tuple(values)
    if len(values) != 2:
        raise ValueError(f"For primitive[{_OP}], the {name} elements must be equal to 2, but got {len(values)}.")
    check(values)
    return tuple(float(v) for v in values)


def _check_aspect(values):
    if min(values) <= 0:
        raise ValueError(f"For '{_OP}', aspect_ratio_range must be positive.")
    if values[0] >= values[1]:
        raise ValueError(f"For '{_OP}', aspect_ratio_range[0] must less than aspect_ratio_range[1].")


def _check_area(values):
    for v in values:
        if not 0 < v <= 1:
            raise ValueError(f"For primitive[{_OP}], the area_range value must be in (0,1], but got {v:g}.")


def _check_inputs(image_size, bounding_boxes, min_object_covered):
    if not isinstance(image_size, Tensor) or image_size.dtype not in _IMAGE_SIZE_TYPES:
        got = f"Tensor[{image_size.dtype}]" if isinstance(image_size, Tensor) else type(image_size).__name__
        raise TypeError(f"For primitive[{_OP}], the input argument[image_size] must be a type of {{Tensor[Int16], "
                        f"Tensor[Int32], Tensor[Int64], Tensor[Int8], Tensor[UInt8]}}, but got {got}.")
    if image_size.shape != (3,):
        raise ValueError(f"For primitive[{_OP}], the image_size elements must be equal to 3, but got "
                         f"{image_size.shape[0] if image_size.ndim == 1 else image_size.ndim}.")
    if not isinstance(bounding_boxes, Tensor) or bounding_boxes.ndim != 3:
        raise ValueError(f"For primitive[{_OP}], the bounding_boxes dimension must be equal to 3, but got "
                         f"{getattr(bounding_boxes, 'ndim', type(bounding_boxes).__name__)}.")
    if bounding_boxes.shape[2] != 4:
        raise ValueError(f"For primitive[{_OP}], the elements of each bounding box in bounding_boxes must be equal to "
                         f"4, but got {bounding_boxes.shape[2]}.")
    if not isinstance(min_object_covered, Tensor) or min_object_covered.dtype is not mstype.float32:
        got = f"Tensor[{min_object_covered.dtype}]" if isinstance(min_object_covered, Tensor) else \
            type(min_object_covered).__name__
        raise TypeError(f"For primitive[{_OP}], the input argument[min_object_covered] must be a type of "
                        f"{{Tensor[Float32]}}, but got {got}.")
    if min_object_covered.size != 1:
        raise ValueError(f"For primitive[{_OP}], the min_object_covered dimension must be equal to 1, but got "
                         f"{min_object_covered.ndim}.")


def _check_values(boxes, covered):
    """The checks 2.10's kernel makes on the values (eagerly: a graph cannot raise on them)."""
    if not covered.is_symbolic:
        c = float(covered.asnumpy().reshape(-1)[0])
        if not 0.0 <= c <= 1.0:
            raise RuntimeError(f"For '{_OP}', min_object_covered must be in [0.0, 1.0], got: [{c:g}].")
    if not boxes.is_symbolic:
        b = boxes.asnumpy().reshape(-1, 4)
        outside = b[(b < 0) | (b > 1)]
        if outside.size:
            raise RuntimeError(f"For '{_OP}', all bounding box coordinates must in [0.0, 1.0], got: [{outside[0]:g}].")
        for lo, hi, name in ((0, 2, "y"), (1, 3, "x")):
            bad = b[b[:, lo] > b[:, hi]]
            if bad.size:
                raise RuntimeError(f"For '{_OP}', {name}_min of bounding box must be less than {name}_max, got: "
                                   f"[{bad[0, lo]:g}] and [{bad[0, hi]:g}].")


def _lrint(x):
    return F.round(x)     # half to even, as lrintf in the default rounding mode


class SampleDistortedBoundingBoxV2(Operator):
    """SampleDistortedBoundingBoxV2(seed=0, seed2=0, aspect_ratio_range=(0.75, 1.33),
    area_range=(0.05, 1.0), max_attempts=100, use_image_if_no_bounding_boxes=False)(image_size
    [3], bounding_boxes [batch, N, 4], min_object_covered [1]) -> (begin, size, bboxes)."""

    def __init__(self, seed=0, seed2=0, aspect_ratio_range=(0.75, 1.33), area_range=(0.05, 1.0), max_attempts=100,
                 use_image_if_no_bounding_boxes=False):
        aspect = _range_attr("aspect_ratio_range", aspect_ratio_range, _check_aspect)
        area = _range_attr("area_range", area_range, _check_area)
        if isinstance(max_attempts, bool) or not isinstance(max_attempts, numbers.Integral) or max_attempts <= 0:
            raise ValueError(f"For '{_OP}', the 'max_attempts' must be int and must > 0, but got '{max_attempts}' "
                             f"with type '{type(max_attempts).__name__}'.")
        if not isinstance(use_image_if_no_bounding_boxes, bool):
            raise TypeError(f"For '{_OP}', the 'use_image_if_no_bounding_boxes' must be a bool, but got "
                            f"{type(use_image_if_no_bounding_boxes).__name__}.")
        super().__init__(seed=int(seed), seed2=int(seed2), aspect_ratio_range=aspect, area_range=area,
                         max_attempts=int(max_attempts),
                         use_image_if_no_bounding_boxes=check_bool(_OP, "use_image_if_no_bounding_boxes",
                                                                   use_image_if_no_bounding_boxes))

    def __call__(self, image_size, bounding_boxes, min_object_covered):
        _check_inputs(image_size, bounding_boxes, min_object_covered)
        height, width, _ = static_ints(_OP, "image_size", image_size)
        if height <= 0 or width <= 0:
            raise RuntimeError(f"For '{_OP}', image height and width must be positive, got: [{height}] and "
                               f"[{width}].")
        if bounding_boxes.shape[0] * bounding_boxes.shape[1] == 0:
            if not self.use_image_if_no_bounding_boxes:
                raise ValueError(f"For '{_OP}', batch or N in bounding_boxes whose shape is [batch, N, 4] equals 0, "
                                 f"which means no bounding boxes provided as input. Set "
                                 f"use_image_if_no_bounding_boxes=True if you wish to not provide any bounding boxes.")
            boxes = Tensor(np.array([[0.0, 0.0, 1.0, 1.0]], np.float32))
        else:
            _check_values(bounding_boxes, min_object_covered)
            boxes = F.reshape(F.cast(bounding_boxes, mstype.float32), (-1, 4))
        y, x, h, w = self._crop(height, width, boxes, F.reshape(min_object_covered, ()))
        # through int32, so that -1 wraps in an unsigned dtype (uint8: 255, as 2.10 gives)
        begin = F.cast(F.cast(F.stack([y, x, F.zeros_like(y)]), mstype.int32), image_size.dtype)
        size = F.cast(F.cast(F.stack([h, w, F.sub(F.zeros_like(h), 1.0)]), mstype.int32), image_size.dtype)
        corners = [F.div(y, float(height)), F.div(x, float(width)), F.div(F.add(y, h), float(height)),
                   F.div(F.add(x, w), float(width))]
        return begin, size, F.reshape(F.stack(corners), (1, 1, 4))

    def _crop(self, height: int, width: int, boxes, covered):
        """(y, x, h, w) float32 scalars of the first kept try, else of the whole image."""
        tries = self.max_attempts
        draws = _open_uniform((4, tries), _seed(self.seed, self.seed2))
        u_ratio, u_height, u_y, u_x = (F.squeeze(F.slice_axis(draws, 0, i, i + 1), 0) for i in range(4))
        lo, hi = self.aspect_ratio_range
        ratio = F.add(F.mul(u_ratio, hi - lo), lo)
        min_area = np.float32(self.area_range[0]) * np.float32(width) * np.float32(height)
        max_area = np.float32(self.area_range[1]) * np.float32(width) * np.float32(height)
        h = _lrint(F.sqrt(F.div(float(min_area), ratio)))
        most = _lrint(F.sqrt(F.div(float(max_area), ratio)))
        # the largest height whose width, round(height * ratio), fits the image
        fitted = F.floor(F.div(width + 0.5 - 1e-7, ratio))
        fitted = F.select(F.greater(_lrint(F.mul(fitted, ratio)), float(width)), F.sub(fitted, 1.0), fitted)
        most = F.select(F.greater(_lrint(F.mul(most, ratio)), float(width)), fitted, most)
        most = F.minimum(most, float(height))
        h = F.minimum(h, most)
        h = F.add(h, F.floor(F.mul(u_height, F.add(F.sub(most, h), 1.0))))
        for step, wrong in ((1.0, lambda area: F.less(area, float(min_area))),
                            (-1.0, lambda area: F.greater(area, float(max_area)))):
            area = F.mul(_lrint(F.mul(h, ratio)), h)
            h = F.select(wrong(area), F.add(h, step), h)
        w = _lrint(F.mul(h, ratio))
        area = F.mul(w, h)
        fits = F.logical_and(F.logical_and(F.greater_equal(area, float(min_area)), F.less_equal(area, float(max_area))),
                             F.logical_and(F.logical_and(F.less_equal(w, float(width)), F.less_equal(h, float(height))),
                                           F.logical_and(F.greater(w, 0.0), F.greater(h, 0.0))))
        y = F.floor(F.mul(u_y, F.sub(float(height), h)))
        x = F.floor(F.mul(u_x, F.sub(float(width), w)))
        fits = F.logical_and(fits, self._covers(boxes, covered, y, x, h, w, height, width))
        first = F.argmax(F.cast(fits, mstype.int32), 0)       # the first kept try (0 when none is)
        picked = [F.gather(v, first, 0) for v in (y, x, h, w)]
        found = F.any(fits)
        whole = (0.0, 0.0, float(height), float(width))
        return tuple(F.select(found, v, F.full_like(v, full)) for v, full in zip(picked, whole))

    @staticmethod
    def _covers(boxes, covered, y, x, h, w, height, width):
        """[tries]: whether the crop covers at least `covered` of some box of at least one pixel."""
        scale = Tensor(np.array([height, width, height, width], np.float32))
        pixels = F.floor(F.mul(boxes, scale))   # [B, 4] y0 x0 y1 x1, truncated (non-negative)
        col = lambda v: F.expand_dims(v, 1)   # noqa: E731 - tries on rows, boxes on columns
        y0, x0, y1, x1 = (F.expand_dims(F.squeeze(F.slice_axis(pixels, 1, i, i + 1), 1), 0) for i in range(4))
        inter_h = F.maximum(F.sub(F.minimum(col(F.add(y, h)), y1), F.maximum(col(y), y0)), 0.0)
        inter_w = F.maximum(F.sub(F.minimum(col(F.add(x, w)), x1), F.maximum(col(x), x0)), 0.0)
        box_area = F.mul(F.sub(y1, y0), F.sub(x1, x0))
        big_enough = F.greater_equal(box_area, 1.0)
        fraction = F.div(F.mul(inter_h, inter_w), F.maximum(box_area, 1.0))
        enough = F.logical_and(big_enough, F.greater_equal(fraction, covered))
        crop_ok = F.greater_equal(F.mul(h, w), 1.0)
        return F.logical_and(crop_ok, F.greater(F.reduce_max(F.cast(enough, mstype.int32), 1), 0))

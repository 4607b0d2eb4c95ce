"""MindSpore 2.10's object-detection operators: ops.iou, ops.bounding_box_encode / _decode,
ops.check_valid, ops.crop_and_resize, and the computations behind the ROIAlign and NMSWithMask
classes (detection_classes.py).

Composite, over static shapes: XLA, onnxruntime, vmap and grad follow from the ops they are
built of. Values are MindSpore 2.10's as measured on its CPU build (tests/test_detection_ops.py
holds the literals):
- iou and the box coders use the "+1" pixel convention (a box [0, 0, 4, 4] is 5 wide);
  NMSWithMask's overlap does not.
- crop_and_resize is TensorFlow's CropAndResize (normalised [y1, x1, y2, x2] boxes, points
  outside the image read `extrapolation_value`, a float32 result for every input dtype).
- roi_align is Detectron's ROIAlign: `roi_end_mode=1` adds 1 to the roi's end before scaling
  and leaves a degenerate roi degenerate, `roi_end_mode=0` widens a roi to at least 1; a
  `sample_num <= 0` grid has int(roi size / bin count) points per bin (0 gives NaN, as there).
- nms_with_mask sorts by score (stable: equal scores keep their input order, where MindSpore's
  CPU sort does not) and suppresses greedily (overlap > threshold) in a fori_loop, so it keeps
  its input's shape under jit and vmap; its index output is 0..N-1, as 2.10 gives.
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from . import functional as F
from .control_flow import fori_loop
from .op_base import is_int
from .sorting import sort

__all__ = ["iou", "bounding_box_encode", "bounding_box_decode", "check_valid", "crop_and_resize"]

_F16_F32 = (mstype.float16, mstype.float32)


def _type_set(dtypes) -> str:
    return "{" + ", ".join(f"Tensor[{d}]" for d in dtypes) + "}"


def _tensor(prim: str, position: int, value) -> Tensor:
    if not isinstance(value, Tensor):
        raise TypeError(f"For primitive[{prim}], the input[{position}] should be a Tensor, but got "
                        f"{type(value).__name__}.")
    return value


def _dtype_in(prim: str, arg: str, t: Tensor, dtypes) -> None:
    if t.dtype not in dtypes:
        raise TypeError(f"For primitive[{prim}], the input argument[{arg}] must be a type of {_type_set(dtypes)}, "
                        f"but got Tensor[{t.dtype}].")


def _same_dtype(prim: str, a: Tensor, b: Tensor) -> None:
    if a.dtype is not b.dtype:
        raise TypeError(f"For primitive[{prim}], the input type must be same.")


def strict_float(op: str, arg: str, value) -> float:
    """A Python float: MindSpore's detection classes refuse an int here."""
    if not isinstance(value, float):
        raise TypeError(f"For '{op}', the type of '{arg}' should be 'float', but got type '{type(value).__name__}'.")
    return value


def _float_quad(op: str, arg: str, value) -> tuple:
    if not isinstance(value, tuple):
        raise TypeError(f"For '{op}', the type of '{arg}' should be 'tuple', but got type '{type(value).__name__}'.")
    if len(value) != 4:
        raise ValueError(f"For '{op}', the '{arg} len' must be int and must = 4, but got '{len(value)}' with type "
                         f"'int'.")
    for i, v in enumerate(value):
        strict_float(op, f"{arg}[{i}]", v)
    return value


def _columns(boxes: Tensor, n: int = 4) -> list:
    """The first n columns of [N, k] boxes, each [N]."""
    return [F.squeeze(F.slice_axis(boxes, 1, i, i + 1), 1) for i in range(n)]


# -- iou --------------------------------------------------------------------------------------------

def iou(anchor_boxes, gt_boxes, mode="iou"):
    """The overlap of every ground-truth box [M, 4] with every anchor [N, 4], (x1, y1, x2, y2)
    in pixels, inclusive ("+1" widths): [M, N], 'iou' (intersection over union) or 'iof'
    (intersection over the ground-truth box's area, as measured on MindSpore 2.10)."""
    if mode not in ("iou", "iof"):
        raise KeyError(f"For 'IOU', only 'iou' or 'iof' are supported, but got 'mode': {mode}.")
    anchors, gts = _tensor("IOU", 0, anchor_boxes), _tensor("IOU", 1, gt_boxes)
    _dtype_in("IOU", "x", anchors, (mstype.float16, mstype.float32, mstype.float64))
    _same_dtype("IOU", anchors, gts)
    if anchors.ndim != 2 or gts.ndim != 2:
        raise ValueError(f"For 'IOU', input x, y must have the same dimension size and must be 2. But got x size = "
                         f"{anchors.ndim}, y size = {gts.ndim}.")
    for name, t in (("anchor_boxes", anchors), ("gt_boxes", gts)):
        if t.shape[1] != 4:
            raise ValueError(f"For primitive[IOU], the {name}.shape[1] must be equal to 4, but got {t.shape[1]}.")
    ax1, ay1, ax2, ay2 = (F.expand_dims(c, 0) for c in _columns(anchors))     # [1, N]
    gx1, gy1, gx2, gy2 = (F.expand_dims(c, 1) for c in _columns(gts))         # [M, 1]
    width = F.maximum(F.add(F.sub(F.minimum(ax2, gx2), F.maximum(ax1, gx1)), 1.0), 0.0)
    height = F.maximum(F.add(F.sub(F.minimum(ay2, gy2), F.maximum(ay1, gy1)), 1.0), 0.0)
    inter = F.mul(width, height)
    gt_area = F.mul(F.add(F.sub(gx2, gx1), 1.0), F.add(F.sub(gy2, gy1), 1.0))
    if mode == "iof":
        return F.div(inter, gt_area)
    anchor_area = F.mul(F.add(F.sub(ax2, ax1), 1.0), F.add(F.sub(ay2, ay1), 1.0))
    return F.div(inter, F.sub(F.add(anchor_area, gt_area), inter))


# -- box coders -------------------------------------------------------------------------------------

def _check_box_pair(op: str, first: str, second: str, a, b) -> tuple:
    a, b = _tensor(op, 0, a), _tensor(op, 1, b)
    _dtype_in(op, "x_dtype", a, _F16_F32)
    _same_dtype(op, a, b)
    if a.ndim != 2:
        raise ValueError(f"For primitive[{op}], the anchor box rank must be equal to 2, but got {a.ndim}.")
    if b.ndim != 2:
        raise ValueError(f"For primitive[{op}], the {second} rank must be equal to 2, but got {b.ndim}.")
    if a.shape[0] != b.shape[0]:
        raise ValueError(f"For '{op}', '{first}' and '{second}' must have the same first dimension. But got "
                         f"{first}_shape[0]: {a.shape[0]}, {second}_shape[0]: {b.shape[0]}.")
    for name, t in ((first, a), (second, b)):
        if t.shape[1] != 4:
            raise ValueError(f"For '{op}', '{name}' last dimension must be 4, but got: {t.shape[1]}.")
    return a, b


def _centres(boxes: Tensor) -> tuple:
    """(x centre, y centre, width, height) of inclusive pixel boxes, each [N]."""
    x1, y1, x2, y2 = _columns(boxes)
    return (F.mul(F.add(x1, x2), 0.5), F.mul(F.add(y1, y2), 0.5),
            F.add(F.sub(x2, x1), 1.0), F.add(F.sub(y2, y1), 1.0))


def bounding_box_encode(anchor_box, groundtruth_box, means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0)):
    """The deltas [N, 4] (dx, dy, dw, dh) that take each anchor to its ground-truth box,
    normalised by `means` and `stds`: dx = (gx - px) / pw, dw = log(gw / pw), ..."""
    means, stds = _float_quad("BoundingBoxEncode", "means", means), _float_quad("BoundingBoxEncode", "stds", stds)
    anchors, gts = _check_box_pair("BoundingBoxEncode", "anchor_box", "groundtruth_box", anchor_box, groundtruth_box)
    px, py, pw, ph = _centres(anchors)
    gx, gy, gw, gh = _centres(gts)
    deltas = (F.div(F.sub(gx, px), pw), F.div(F.sub(gy, py), ph), F.log(F.div(gw, pw)), F.log(F.div(gh, ph)))
    return F.stack([F.div(F.sub(d, m), s) for d, m, s in zip(deltas, means, stds)], 1)


def _check_max_shape(max_shape) -> tuple:
    if not isinstance(max_shape, tuple):
        raise TypeError(f"For 'BoundingBoxDecode', the type of 'max_shape' should be 'tuple', but got type "
                        f"'{type(max_shape).__name__}'.")
    if len(max_shape) != 2:
        raise ValueError(f"For 'BoundingBoxDecode', the 'max_shape len' must be int and must = 2, but got "
                         f"'{len(max_shape)}' with type 'int'.")
    for i, v in enumerate(max_shape):
        if not is_int(v):
            raise TypeError(f"For 'BoundingBoxDecode', the type of 'max_shape[{i}]' should be 'int', but got type "
                            f"'{type(v).__name__}'.")
    return tuple(int(v) for v in max_shape)


def _clip_coordinate(value, high: int):
    """value clipped to [0, high]; a negative `high` leaves the top open (measured on 2.10)."""
    value = F.maximum(value, 0.0)
    return F.minimum(value, float(high)) if high >= 0 else value


def bounding_box_decode(anchor_box, deltas, max_shape, means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0),
                        wh_ratio_clip=0.016):
    """The boxes [N, 4] that `deltas` make of the anchors (bounding_box_encode's inverse), dw and
    dh clipped to +-|log(wh_ratio_clip)| (not at all when wh_ratio_clip <= 0), x clipped to
    [0, max_shape[1]] and y to [0, max_shape[0]]."""
    max_h, max_w = _check_max_shape(max_shape)
    means, stds = _float_quad("BoundingBoxDecode", "means", means), _float_quad("BoundingBoxDecode", "stds", stds)
    clip = strict_float("BoundingBoxDecode", "wh_ratio_clip", wh_ratio_clip)
    anchors, d = _check_box_pair("BoundingBoxDecode", "anchor_box", "deltas", anchor_box, deltas)
    dx, dy, dw, dh = (F.add(F.mul(c, s), m) for c, m, s in zip(_columns(d), means, stds))
    if clip > 0:
        limit = abs(math.log(clip))
        dw, dh = F.clamp(dw, -limit, limit), F.clamp(dh, -limit, limit)
    px, py, pw, ph = _centres(anchors)
    gw, gh = F.mul(pw, F.exp(dw)), F.mul(ph, F.exp(dh))
    gx, gy = F.add(px, F.mul(pw, dx)), F.add(py, F.mul(ph, dy))
    half_w, half_h = F.mul(gw, 0.5), F.mul(gh, 0.5)
    x1 = _clip_coordinate(F.add(F.sub(gx, half_w), 0.5), max_w)
    y1 = _clip_coordinate(F.add(F.sub(gy, half_h), 0.5), max_h)
    x2 = _clip_coordinate(F.sub(F.add(gx, half_w), 0.5), max_w)
    y2 = _clip_coordinate(F.sub(F.add(gy, half_h), 0.5), max_h)
    return F.stack([x1, y1, x2, y2], 1)


# -- check_valid ------------------------------------------------------------------------------------

_CHECK_VALID_DTYPES = (mstype.float16, mstype.float32, mstype.int16, mstype.uint8)


def check_valid(bboxes, img_metas):
    """Whether each box [N, 4] (x1, y1, x2, y2) lies in the image `img_metas` (height, width,
    ratio): x1, y1 >= 0, x2 <= width * ratio - 1 and y2 <= height * ratio - 1 (bool [N])."""
    boxes, metas = _tensor("CheckValid", 0, bboxes), _tensor("CheckValid", 1, img_metas)
    _dtype_in("CheckValid", "bboxes", boxes, _CHECK_VALID_DTYPES)
    _dtype_in("CheckValid", "img_metas", metas, _CHECK_VALID_DTYPES)
    if boxes.ndim != 2:
        raise ValueError(f"For primitive[CheckValid], the bboxes rank must be equal to 2, but got {boxes.ndim}.")
    if metas.ndim != 1:
        raise ValueError(f"For primitive[CheckValid], the img_metas rank must be equal to 1, but got {metas.ndim}.")
    if boxes.shape[1] != 4:
        raise ValueError(f"For 'CheckValid', the last dimension of 'bboxes' must equal to 4, but got: "
                         f"{boxes.shape[1]}.")
    if metas.shape[0] != 3:
        raise ValueError(f"For 'CheckValid', the first dimension of 'img_metas' must equal to 3, but got: "
                         f"{metas.shape[0]}.")
    # float32 holds every allowed dtype's values exactly
    x1, y1, x2, y2 = _columns(F.cast(boxes, mstype.float32))
    height, width, ratio = (F.slice_axis(F.cast(metas, mstype.float32), 0, i, i + 1) for i in range(3))
    inside = [F.greater_equal(x1, 0.0), F.greater_equal(y1, 0.0),
              F.less_equal(x2, F.sub(F.mul(width, ratio), 1.0)), F.less_equal(y2, F.sub(F.mul(height, ratio), 1.0))]
    valid = inside[0]
    for more in inside[1:]:
        valid = F.logical_and(valid, more)
    return valid


# -- crop_and_resize --------------------------------------------------------------------------------

_CROP_DTYPES = (mstype.float16, mstype.float32, mstype.float64, mstype.int16, mstype.int32, mstype.int64,
                mstype.int8, mstype.uint16, mstype.uint8)
CROP_METHODS = ("bilinear", "nearest", "bilinear_v2")


def _check_crop(image, boxes, box_indices, crop_size, method, extrapolation_value) -> tuple:
    if method not in CROP_METHODS:
        raise ValueError(f"For 'CropAndResize', the 'method' must be str and must be in '{list(CROP_METHODS)}', but "
                         f"got '{method}'.")
    strict_float("CropAndResize", "extrapolation_value", extrapolation_value)
    if not isinstance(image, Tensor):
        raise TypeError("For crop_and_resize, the input image must be a tensor")
    for name, t in (("boxes", boxes), ("box_indices", box_indices)):
        if not isinstance(t, Tensor):
            raise TypeError(f"For crop_and_resize, the input {name} must be a tensor")
    _dtype_in("CropAndResize", "x", image, _CROP_DTYPES)
    if boxes.dtype is not mstype.float32:
        raise TypeError(f"For crop_and_resize, the input boxes must be Float32, but got {boxes.dtype}")
    if box_indices.dtype is not mstype.int32:
        raise TypeError(f"For crop_and_resize, the input box_indices must be Int32, but got {box_indices.dtype}")
    if not isinstance(crop_size, tuple):
        raise TypeError(f"For crop_and_resize, the input crop_size must be a tuple, but got {type(crop_size)}")
    if len(crop_size) != 2:
        raise ValueError(f"For crop_and_resize, the crop_size's length must be 2, bot got {len(crop_size)}")
    if not all(is_int(v) for v in crop_size):
        raise TypeError("For crop_and_resize, the crop_size's value must be int.")
    if not all(v > 0 for v in crop_size):
        raise ValueError("For crop_and_resize, the crop_size's value must be positive.")
    if image.ndim != 4:
        raise ValueError(f"For crop_and_resize, the input image must be 4D Tensor, but got is {image.ndim}D")
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise ValueError(f"For crop_and_resize, the input boxes must be 2D and the second-dim must be 4, but got "
                         f"{tuple(boxes.shape)}")
    if box_indices.ndim != 1:
        raise ValueError(f"For crop_and_resize, the input box_indices must be 1D, but got {tuple(box_indices.shape)}")
    if box_indices.shape[0] != boxes.shape[0]:
        raise ValueError(f"For crop_and_resize, the first dim of input box_indices must be equal to that of input "
                         f"boxes, but got {box_indices.shape[0]} vs {boxes.shape[0]}")
    check_batch_index("CropAndResize", box_indices, image.shape[0])
    return tuple(int(v) for v in crop_size)


def check_batch_index(op: str, index: Tensor, batch: int) -> None:
    """A batch index outside [0, batch) is an error where its value is known (eagerly); under jit
    the gather clamps it."""
    if index.is_symbolic:
        return
    values = np.asarray(index.asnumpy()).reshape(-1)
    bad = values[(values < 0) | (values >= batch)]
    if bad.size:
        if op == "ROIAlign":
            raise RuntimeError(f"image_index {bad[0]:g} must be a number in [0,{batch - 1}]")
        raise ValueError(f"For '{op}', the value of box_index must be in [0, {batch}), but got [{bad[0]}].")


def _sample_axis(low, high, size: int, count: int):
    """TensorFlow's sample positions along an axis of `size` pixels: [N, count] from the
    normalised box ends low, high [N]."""
    low, high = F.expand_dims(low, 1), F.expand_dims(high, 1)
    if count == 1:
        return F.mul(F.mul(F.add(low, high), 0.5), float(size - 1))
    scale = F.div(F.mul(F.sub(high, low), float(size - 1)), float(count - 1))
    steps = Tensor(np.arange(count, dtype=np.float32).reshape(1, count))
    return F.add(F.mul(low, float(size - 1)), F.mul(steps, scale))


def _sample_axis_v2(low, high, size: int, count: int):
    """2.10's 'bilinear_v2' sample positions [N, count] (measured): the box covers the whole pixels
    int(low * size) .. int(high * size) (C's int(), toward zero), resized with half-pixel centres;
    a position stays within that span (an empty or reversed span reads its first pixel) and within
    the image."""
    def whole(edge):
        return F.cast(F.cast(F.mul(edge, float(size)), mstype.int32), mstype.float32)
    first = whole(low)
    span = F.add(F.sub(whole(high), first), 1.0)                                      # [N]
    steps = Tensor((np.arange(count, dtype=np.float32) + 0.5).reshape(1, count))
    span = F.expand_dims(span, 1)
    at = F.sub(F.div(F.mul(steps, span), float(count)), 0.5)
    at = F.maximum(F.minimum(at, F.sub(span, 1.0)), 0.0)
    return F.clamp(F.add(F.expand_dims(first, 1), at), 0.0, float(size - 1))


def _gather_pixels(flat, batch_offset, ys, xs, width: int):
    """flat [B*H*W, C] at rows batch_offset [N, 1, 1] + ys [N, h, 1] * width + xs [N, 1, w]
    (int32, in range) -> [N, h, w, C]."""
    index = F.add(F.add(batch_offset, F.mul(ys, width)), xs)
    return F.gather(flat, index, 0)


def crop_and_resize(image, boxes, box_indices, crop_size, method="bilinear", extrapolation_value=0.0):
    """Crops of `image` [B, H, W, C] at `boxes` [N, 4] (y1, x1, y2, x2, normalised: 0 and 1 are
    the first and last pixel centres) from the images `box_indices` [N], each resized to
    `crop_size` (h, w): float32 [N, h, w, C]. Points outside the image read
    `extrapolation_value`; 'nearest' rounds halves up, 'bilinear' interpolates; 'bilinear_v2'
    interpolates over the box's whole pixels with half-pixel centres and never extrapolates."""
    crop_h, crop_w = _check_crop(image, boxes, box_indices, crop_size, method, extrapolation_value)
    batch, height, width, channels = image.shape
    n = boxes.shape[0]
    y1, x1, y2, x2 = _columns(boxes)
    sample_axis = _sample_axis_v2 if method == "bilinear_v2" else _sample_axis
    ys = sample_axis(y1, y2, height, crop_h)                                      # [N, h]
    xs = sample_axis(x1, x2, width, crop_w)                                       # [N, w]
    inside = F.logical_and(
        F.expand_dims(F.logical_and(F.greater_equal(ys, 0.0), F.less_equal(ys, float(height - 1))), 2),
        F.expand_dims(F.logical_and(F.greater_equal(xs, 0.0), F.less_equal(xs, float(width - 1))), 1))
    flat = F.reshape(F.cast(image, mstype.float32), (batch * height * width, channels))
    offset = F.reshape(F.mul(F.clamp(box_indices, 0, batch - 1), height * width), (n, 1, 1))

    def pixel_index(coord, size: int, axis: int):
        # clamped so that points outside still index the image (their value is replaced)
        index = F.cast(F.clamp(coord, 0.0, float(size - 1)), mstype.int32)
        return F.expand_dims(index, axis)

    if method == "nearest":
        out = _gather_pixels(flat, offset, pixel_index(F.floor(F.add(ys, 0.5)), height, 2),
                             pixel_index(F.floor(F.add(xs, 0.5)), width, 1), width)
    else:
        top, left = F.floor(ys), F.floor(xs)
        y_frac = F.reshape(F.sub(ys, top), (n, crop_h, 1, 1))
        x_frac = F.reshape(F.sub(xs, left), (n, 1, crop_w, 1))
        t, b = pixel_index(top, height, 2), pixel_index(F.ceil(ys), height, 2)
        l, r = pixel_index(left, width, 1), pixel_index(F.ceil(xs), width, 1)

        def row(y):
            lo = _gather_pixels(flat, offset, y, l, width)
            return F.add(lo, F.mul(F.sub(_gather_pixels(flat, offset, y, r, width), lo), x_frac))

        upper = row(t)
        out = F.add(upper, F.mul(F.sub(row(b), upper), y_frac))
    if method == "bilinear_v2":
        return out
    return F.select(F.expand_dims(inside, 3), out, float(extrapolation_value))


# -- ROIAlign ---------------------------------------------------------------------------------------

def _roi_axis(start, end, bins: int, grid, grid_max: int, size: int, clamp_to_one: bool):
    """Sample coordinates [R, bins * grid_max] along one axis, their bilinear corners and
    weights, and the mask of points within each roi's grid (adaptive grids vary per roi).

    `grid` is an int (every roi) or a float32 Tensor [R] (per roi)."""
    extent = F.sub(end, start)
    if clamp_to_one:
        extent = F.maximum(extent, 1.0)
    bin_size = F.div(extent, float(bins))                                            # [R]
    steps = np.arange(bins * grid_max)
    bin_index = Tensor((steps // grid_max).astype(np.float32).reshape(1, -1))
    sub_index = Tensor((steps % grid_max).astype(np.float32).reshape(1, -1) + 0.5)
    per = F.expand_dims(grid, 1) if isinstance(grid, Tensor) else float(grid)
    coord = F.add(F.add(F.expand_dims(start, 1), F.mul(bin_index, F.expand_dims(bin_size, 1))),
                  F.div(F.mul(sub_index, F.expand_dims(bin_size, 1)), per))
    used = F.less(sub_index, per) if isinstance(grid, Tensor) else None
    # Detectron's bilinear_interpolate: points beyond [-1, size] read 0, the rest clamp to the edge
    valid = F.logical_and(F.greater_equal(coord, -1.0), F.less_equal(coord, float(size)))
    c = F.maximum(coord, 0.0)
    low = F.floor(c)
    at_edge = F.greater_equal(low, float(size - 1))
    low = F.select(at_edge, F.full_like(low, float(size - 1)), low)
    c = F.select(at_edge, low, c)
    high = F.select(at_edge, low, F.add(low, 1.0))
    frac = F.sub(c, low)
    weights = (F.sub(1.0, frac), frac)
    return (F.cast(low, mstype.int32), F.cast(high, mstype.int32)), weights, valid, used


def adaptive_grid(rois: np.ndarray, bins_h: int, bins_w: int, scale: float, end_mode: int) -> tuple:
    """Per-roi sample counts (int(roi height / bins), int(roi width / bins)) of a sample_num <= 0
    ROIAlign, from rois known at trace time."""
    r = rois.astype(np.float32)
    extra = np.float32(end_mode)
    width = (r[:, 3] + extra) * np.float32(scale) - r[:, 1] * np.float32(scale)
    height = (r[:, 4] + extra) * np.float32(scale) - r[:, 2] * np.float32(scale)
    if end_mode == 0:
        width, height = np.maximum(width, 1), np.maximum(height, 1)
    return (np.trunc(height / np.float32(bins_h)).astype(np.int64), np.trunc(width / np.float32(bins_w)).astype(np.int64))


def _traced_adaptive_grid(starts, ends, bins: tuple, sizes: tuple, clamp_to_one: bool):
    """adaptive_grid's counts from traced rois (float32 Tensors [R], y then x) and their static
    bound: a roi within the feature map has at most ceil(size / bins) samples per bin along an
    axis, so the sample layout is that wide and a mask drops the unused ones. A roi reaching
    beyond the map, which eagerly gets a larger grid, is capped at the bound under jit."""
    grids, bounds = [], []
    for start, end, n_bins, size in zip(starts, ends, bins, sizes):
        extent = F.sub(end, start)
        if clamp_to_one:
            extent = F.maximum(extent, 1.0)
        bound = max(-(-size // n_bins), 1)
        per_bin = F.cast(F.cast(F.div(extent, float(n_bins)), mstype.int32), mstype.float32)   # int(): toward zero
        grids.append(F.minimum(per_bin, float(bound)))
        bounds.append(bound)
    return tuple(grids), tuple(bounds)


def roi_align(features, rois, pooled_height: int, pooled_width: int, spatial_scale: float, sample_num: int,
              roi_end_mode: int):
    """ROIAlign over features [N, C, H, W] and rois [R, 5] (batch index, x1, y1, x2, y2 in input
    pixels): [R, C, pooled_height, pooled_width], each bin the mean of a grid of bilinear samples."""
    _, channels, height, width = features.shape
    n_rois = rois.shape[0]
    work = F.cast(features, mstype.float32)      # MindSpore's float16 kernel overflows; this computes in float32
    r = F.cast(rois, mstype.float32)
    index, x1, y1, x2, y2 = _columns(r, 5)
    extra = float(roi_end_mode)
    starts = (F.mul(y1, spatial_scale), F.mul(x1, spatial_scale))
    ends = (F.mul(F.add(y2, extra), spatial_scale), F.mul(F.add(x2, extra), spatial_scale))
    if sample_num > 0:
        grids, grid_max, count = (sample_num, sample_num), (sample_num, sample_num), float(sample_num * sample_num)
    else:
        if rois.is_symbolic:
            grids, grid_max = _traced_adaptive_grid(starts, ends, (pooled_height, pooled_width), (height, width),
                                                    roi_end_mode == 0)
            count = F.reshape(F.mul(*grids), (-1, 1, 1, 1))
        else:
            gh, gw = adaptive_grid(rois.asnumpy(), pooled_height, pooled_width, spatial_scale, roi_end_mode)
            grid_max = (max(int(gh.max(initial=0)), 1), max(int(gw.max(initial=0)), 1))
            grids = (Tensor(gh.astype(np.float32)), Tensor(gw.astype(np.float32)))
            count = Tensor((gh * gw).astype(np.float32).reshape(-1, 1, 1, 1))
    axes = [_roi_axis(starts[i], ends[i], (pooled_height, pooled_width)[i], grids[i], grid_max[i],
                      (height, width)[i], roi_end_mode == 0) for i in range(2)]
    (ylo, yhi), (wy0, wy1), vy, uy = axes[0]
    (xlo, xhi), (wx0, wx1), vx, ux = axes[1]
    sy, sx = ylo.shape[1], xlo.shape[1]
    ok = F.logical_and(F.expand_dims(vy, 2), F.expand_dims(vx, 1))                  # [R, sy, sx]
    for used, axis in ((uy, 2), (ux, 1)):
        if used is not None:
            ok = F.logical_and(ok, F.expand_dims(used, axis))
    flat = F.reshape(F.transpose(work, (0, 2, 3, 1)), (-1, channels))              # [N*H*W, C]
    offset = F.reshape(F.mul(F.cast(index, mstype.int32), height * width), (n_rois, 1, 1))
    total = None
    for yi, wy in ((ylo, wy0), (yhi, wy1)):
        for xi, wx in ((xlo, wx0), (xhi, wx1)):
            weight = F.mul(F.expand_dims(wy, 2), F.expand_dims(wx, 1))
            term = F.mul(_gather_pixels(flat, offset, F.expand_dims(yi, 2), F.expand_dims(xi, 1), width),
                         F.expand_dims(F.select(ok, weight, 0.0), 3))
            total = term if total is None else F.add(total, term)
    # [R, sy, sx, C] -> bins: [R, ph, gh, pw, gw, C] summed over the grids
    total = F.reshape(total, (n_rois, pooled_height, sy // pooled_height, pooled_width, sx // pooled_width, channels))
    sums = F.transpose(F.reduce_sum(total, (2, 4)), (0, 3, 1, 2))
    return F.cast(F.div(sums, count), features.dtype)


# -- NMSWithMask ------------------------------------------------------------------------------------

def nms_with_mask(bboxes, iou_threshold: float):
    """(boxes sorted by score [N, 5], 0..N-1 int32 [N], kept bool [N]) of greedy non-maximum
    suppression: a box is dropped when it overlaps a kept higher-scoring box by more than
    `iou_threshold` (intersection over union, widths x2 - x1)."""
    n = bboxes.shape[0]
    scores = F.squeeze(F.slice_axis(bboxes, 1, 4, 5), 1)
    _, order = sort(scores, 0, True)
    boxes = F.gather(bboxes, order, 0)
    x1, y1, x2, y2 = _columns(F.cast(boxes, mstype.float32))
    area = F.mul(F.sub(x2, x1), F.sub(y2, y1))

    def pair(a, b):
        return F.expand_dims(a, 1), F.expand_dims(b, 0)

    w = F.maximum(F.sub(F.minimum(*pair(x2, x2)), F.maximum(*pair(x1, x1))), 0.0)
    h = F.maximum(F.sub(F.minimum(*pair(y2, y2)), F.maximum(*pair(y1, y1))), 0.0)
    inter = F.mul(w, h)
    overlap = F.div(inter, F.sub(F.add(*pair(area, area)), inter))
    later = Tensor(np.triu(np.ones((n, n), bool), 1))
    suppresses = F.logical_and(F.greater(overlap, float(iou_threshold)), later)     # [i, j]: i drops j

    def step(i, keep):
        kept_i = F.gather(keep, i, 0)
        return F.logical_and(keep, F.logical_not(F.logical_and(kept_i, F.gather(suppresses, i, 0))))

    keep = fori_loop(0, n, step, F.ones((n,), mstype.bool_)) if n else F.ones((0,), mstype.bool_)
    return boxes, Tensor(np.arange(n, dtype=np.int32)), keep

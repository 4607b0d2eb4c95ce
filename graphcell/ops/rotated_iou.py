"""ops.rotated_iou: IoU (or IoF) of rotated rectangles. MindSpore 2.10 runs it on Ascend only
("Unsupported op [RotatedIou] on CPU"), so this follows its documentation (and torch_npu's
npu_rotated_iou, which it wraps): boxes [B, N, 5] and query_boxes [B, K, 5] as
(x_center, y_center, w, h, angle) ('xywht'), or with trans=True as (x1, y1, x2, y2, angle)
('xyxyt'), the angle in degrees, counter-clockwise (the documents do not say which way: a box
turned the other way gives the mirrored arrangement's overlap); mode 1 divides by the first box's
area (IoF), any other mode by the union; is_cross gives [B, N, K], else the aligned pairs [B, N].
v_threshold widens the test of a corner inside the other box, e_threshold the test of two edges
crossing (both 0 by default).

The intersection is the convex polygon of the corners of each box inside the other and the
crossings of their edges (24 candidates, masked), ordered by angle about their centroid (a sort),
its area by the shoelace formula, the candidates not kept replaced by the first kept one (adding
no area). Composite: jit, vmap, grad and ONNX follow.
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from . import functional as F
from .math_ops import atan2
from .sorting import sort

__all__ = ["rotated_iou"]

_UNIT = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]], np.float32)   # counter-clockwise


def _part(t, i):
    return F.squeeze(F.slice_axis(t, -1, i, i + 1), -1)


def _corners(boxes, trans: bool):
    """[..., 5] -> [..., 4, 2] corners, counter-clockwise."""
    a, b, c, d, angle = (_part(boxes, i) for i in range(5))
    if trans:
        a, b, c, d = F.div(F.add(a, c), 2.0), F.div(F.add(b, d), 2.0), F.sub(c, a), F.sub(d, b)
    theta = F.mul(angle, math.pi / 180.0)
    cos, sin = F.expand_dims(F.cos(theta), -1), F.expand_dims(F.sin(theta), -1)
    dx = F.mul(F.expand_dims(c, -1), Tensor(_UNIT[:, 0]))       # [..., 4]
    dy = F.mul(F.expand_dims(d, -1), Tensor(_UNIT[:, 1]))
    x = F.add(F.expand_dims(a, -1), F.sub(F.mul(dx, cos), F.mul(dy, sin)))
    y = F.add(F.expand_dims(b, -1), F.add(F.mul(dx, sin), F.mul(dy, cos)))
    return F.stack([x, y], -1), F.mul(c, d)


def _cross(ax, ay, bx, by):
    return F.sub(F.mul(ax, by), F.mul(ay, bx))


def _inside(points, polygon, tolerance: float):
    """[..., P] whether each point [..., P, 2] lies in the counter-clockwise polygon [..., 4, 2]."""
    px, py = (F.expand_dims(_part(points, i), -1) for i in range(2))                   # [..., P, 1]
    start = F.expand_dims(polygon, -3)                                                 # [..., 1, 4, 2]
    end = F.expand_dims(F.concat([F.slice_axis(polygon, -2, 1, 4), F.slice_axis(polygon, -2, 0, 1)], -2), -3)
    sx, sy, ex, ey = _part(start, 0), _part(start, 1), _part(end, 0), _part(end, 1)
    side = _cross(F.sub(ex, sx), F.sub(ey, sy), F.sub(px, sx), F.sub(py, sy))          # [..., P, 4]
    return F.all(F.greater_equal(side, -tolerance), -1)


def _crossings(p, q, tolerance: float):
    """The 16 crossings of p's and q's edges ([..., 4, 2] each): points [..., 16, 2], kept [..., 16]."""
    def edges(poly):
        nxt = F.concat([F.slice_axis(poly, -2, 1, 4), F.slice_axis(poly, -2, 0, 1)], -2)
        return poly, F.sub(nxt, poly)
    (a, da), (b, db) = edges(p), edges(q)
    a, da = F.expand_dims(a, -2), F.expand_dims(da, -2)                                # [..., 4, 1, 2]
    b, db = F.expand_dims(b, -3), F.expand_dims(db, -3)                                # [..., 1, 4, 2]
    den = _cross(_part(da, 0), _part(da, 1), _part(db, 0), _part(db, 1))               # [..., 4, 4]
    ab = F.sub(b, a)
    parallel = F.equal(den, 0.0)
    safe = F.select(parallel, F.ones_like(den), den)
    t = F.div(_cross(_part(ab, 0), _part(ab, 1), _part(db, 0), _part(db, 1)), safe)
    u = F.div(_cross(_part(ab, 0), _part(ab, 1), _part(da, 0), _part(da, 1)), safe)
    ok = F.logical_not(parallel)
    for v in (t, u):
        ok = F.logical_and(ok, F.logical_and(F.greater_equal(v, -tolerance), F.less_equal(v, 1.0 + tolerance)))
    point = F.add(a, F.mul(da, F.expand_dims(t, -1)))                                  # [..., 4, 4, 2]
    lead = tuple(point.shape[:-3])
    return F.reshape(point, lead + (16, 2)), F.reshape(ok, lead + (16,))


def _intersection_area(p, q, v_threshold: float, e_threshold: float):
    points, kept = _crossings(p, q, e_threshold)
    points = F.concat([p, q, points], -2)                                               # [..., 24, 2]
    kept = F.concat([_inside(p, q, v_threshold), _inside(q, p, v_threshold), kept], -1)
    weight = F.cast(kept, points.dtype)
    count = F.maximum(F.reduce_sum(weight, -1, keepdims=True), 1.0)
    centre = F.div(F.reduce_sum(F.mul(points, F.expand_dims(weight, -1)), -2, keepdims=True),
                   F.expand_dims(count, -1))
    rel = F.sub(points, centre)
    angle = F.select(kept, atan2(_part(rel, 1), _part(rel, 0)), F.full_like(weight, 10.0))   # not kept: last
    _, order = sort(angle, -1)
    order = F.cast(order, mstype.int32)
    rel = F.stack([F.gather_elements(_part(rel, i), -1, order) for i in range(2)], -1)
    kept = F.gather_elements(kept, -1, order)
    first = F.slice_axis(rel, -2, 0, 1)
    rel = F.select(F.expand_dims(kept, -1), rel, F.broadcast_to(first, rel.shape))
    nxt = F.concat([F.slice_axis(rel, -2, 1, 24), first], -2)
    twice = F.reduce_sum(_cross(_part(rel, 0), _part(rel, 1), _part(nxt, 0), _part(nxt, 1)), -1)
    return F.mul(F.abs(twice), 0.5)


def _check(boxes, query_boxes):
    """2.10's checks and messages (measured), where it has them."""
    for name, t in (("boxes", boxes), ("query_boxes", query_boxes)):
        if not isinstance(t, Tensor):
            raise TypeError(f"For 'rotated_iou', '{name}' must be a Tensor, but got {type(t).__name__}.")
        if t.ndim != 3:
            raise ValueError(f"For 'rotated_iou', '{name}' must be [B, N, 5], but got shape {tuple(t.shape)}.")
        if t.shape[2] != 5:
            raise ValueError(f"For primitive[RotatedIou], the shape third Dim must be equal to 5, but got "
                             f"{t.shape[2]}.")
    if boxes.shape[0] != query_boxes.shape[0]:
        raise ValueError(f"For RotatedIou, the input boxes_shape, query_boxes_shape must have the same first dim size. "
                         f"But boxes first dim size = {boxes.shape[0]}, query_boxes first dim size = "
                         f"{query_boxes.shape[0]}.")
    if boxes.dtype not in (mstype.float16, mstype.float32, mstype.bfloat16) or boxes.dtype is not query_boxes.dtype:
        raise ValueError("input boxes type is illegal.")


def rotated_iou(boxes, query_boxes, trans=False, mode=0, is_cross=True, v_threshold=0.0, e_threshold=0.0):
    """[B, N, K] (is_cross) or [B, N] (aligned) IoU, or IoF with mode=1, of rotated boxes."""
    _check(boxes, query_boxes)
    if not is_cross and boxes.shape[1] != query_boxes.shape[1]:
        raise ValueError(f"For 'rotated_iou', aligned boxes (is_cross=False) need N == K, but got "
                         f"{boxes.shape[1]} and {query_boxes.shape[1]}.")
    dtype = boxes.dtype
    p, area_p = _corners(F.cast(boxes, mstype.float32), trans)
    q, area_q = _corners(F.cast(query_boxes, mstype.float32), trans)
    if is_cross:
        n, k = boxes.shape[1], query_boxes.shape[1]
        p = F.broadcast_to(F.expand_dims(p, 2), (boxes.shape[0], n, k, 4, 2))
        q = F.broadcast_to(F.expand_dims(q, 1), (boxes.shape[0], n, k, 4, 2))
        area_p, area_q = F.expand_dims(area_p, 2), F.expand_dims(area_q, 1)
    inter = _intersection_area(p, q, float(v_threshold), float(e_threshold))
    total = F.abs(area_p) if mode == 1 else F.sub(F.add(F.abs(area_p), F.abs(area_q)), inter)
    ratio = F.select(F.greater(total, 0.0), F.div(inter, F.select(F.greater(total, 0.0), total, F.ones_like(total))),
                     F.zeros_like(total))
    return F.cast(ratio, dtype)

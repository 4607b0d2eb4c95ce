"""ops.NonMaxSuppressionV3: TensorFlow's non_max_suppression_v3 (2.10's CPU build has no kernel:
"Unsupported op [NonMaxSuppressionV3] on CPU"; its argument checks and messages are measured).

boxes [N, 4] (corners in either order: TensorFlow's IoU orders them, and a box of no area overlaps
nothing), scores [N], max_output_size, iou_threshold and score_threshold 0-d Tensors -> the int32
indices of the boxes greedy suppression keeps, best score first (equal scores by index): a box
scoring above score_threshold is kept unless its IoU with a kept box exceeds iou_threshold, until
max_output_size are kept. The length depends on the values, so it runs eagerly on the host
(dynamic_shape.py's rule); ops.NMSWithMask and ops.CombinedNonMaxSuppression have static shapes.
"""
from __future__ import annotations

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from .dynamic_shape import _host
from .op_base import Operator

__all__: list[str] = []

_OP = "NonMaxSuppressionV3"


def _tf_iou(a: np.ndarray, b: np.ndarray) -> float:
    ay0, ay1 = sorted((a[0], a[2]))
    ax0, ax1 = sorted((a[1], a[3]))
    by0, by1 = sorted((b[0], b[2]))
    bx0, bx1 = sorted((b[1], b[3]))
    area_a, area_b = (ay1 - ay0) * (ax1 - ax0), (by1 - by0) * (bx1 - bx0)
    if area_a <= 0 or area_b <= 0:
        return 0.0
    inter = max(min(ay1, by1) - max(ay0, by0), 0.0) * max(min(ax1, bx1) - max(ax0, bx0), 0.0)
    return float(inter / (area_a + area_b - inter))


def _check(boxes, scores, max_output_size, iou_threshold, score_threshold):
    for t in (boxes, scores, iou_threshold, score_threshold):
        if not isinstance(t, Tensor):
            raise TypeError(f"For primitive[{_OP}], the inputs must be Tensors, but got {type(t).__name__}.")
    if boxes.dtype not in (mstype.float16, mstype.float32):
        raise TypeError(f"For primitive[{_OP}], the input argument[boxes_type] must be a type of {{Tensor[Float16], "
                        f"Tensor[Float32]}}, but got Tensor[{boxes.dtype}].")
    if not (boxes.dtype is scores.dtype is iou_threshold.dtype is score_threshold.dtype):
        raise TypeError(f"For primitive[{_OP}], the input type must be same.")
    if not isinstance(max_output_size, Tensor) or max_output_size.dtype not in (mstype.int32, mstype.int64):
        got = f"Tensor[{max_output_size.dtype}]" if isinstance(max_output_size, Tensor) else \
            type(max_output_size).__name__
        raise TypeError(f"For primitive[{_OP}], the input argument[max_output_size_type] must be a type of {{Int32, "
                        f"Int64, Tensor[Int32], Tensor[Int64]}}, but got {got}.")
    if boxes.ndim != 2:
        raise ValueError(f"For primitive[{_OP}], the boxes rank must be equal to 2, but got {boxes.ndim}.")
    if boxes.shape[1] != 4:
        raise ValueError(f"For primitive[{_OP}], the boxes second dimension must be equal to 4, but got "
                         f"{boxes.shape[1]}.")
    if scores.ndim != 1:
        raise ValueError(f"For primitive[{_OP}], the scores rank must be equal to 1, but got {scores.ndim}.")
    if scores.shape[0] != boxes.shape[0]:
        raise ValueError(f"For primitive[{_OP}], the scores length must be equal to {boxes.shape[0]}, but got "
                         f"{scores.shape[0]}.")
    for name, t in (("max_output_size", max_output_size), ("iou_threshold", iou_threshold),
                    ("score_threshold", score_threshold)):
        if t.ndim != 0:
            raise ValueError(f"For primitive[{_OP}], the {name} size must be equal to 0, but got {t.ndim}.")


class NonMaxSuppressionV3(Operator):
    """NonMaxSuppressionV3()(boxes, scores, max_output_size, iou_threshold, score_threshold) ->
    the kept boxes' int32 indices (eagerly only)."""

    def __call__(self, boxes, scores, max_output_size, iou_threshold, score_threshold):
        _check(boxes, scores, max_output_size, iou_threshold, score_threshold)
        b, s, most, iou_t, score_t = (_host("non_max_suppression_v3", t) for t in
                                      (boxes, scores, max_output_size, iou_threshold, score_threshold))
        b, s = b.astype(np.float32), s.astype(np.float32)
        most, iou_t, score_t = int(most), float(iou_t), float(score_t)
        if most < 0:
            raise ValueError(f"For '{_OP}', max_output_size must be non-negative, but got {most}.")
        if not 0.0 <= iou_t <= 1.0:
            raise ValueError(f"For '{_OP}', iou_threshold must be in [0, 1], but got {iou_t:g}.")
        kept: list[int] = []
        for i in sorted(range(len(s)), key=lambda k: (-s[k], k)):
            if len(kept) >= most or not s[i] > score_t:
                break
            if all(_tf_iou(b[i], b[j]) <= iou_t for j in kept):
                kept.append(i)
        return Tensor(np.array(kept, np.int32))

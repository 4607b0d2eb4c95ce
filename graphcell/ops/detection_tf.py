"""ops.CombinedNonMaxSuppression: TensorFlow's combined_non_max_suppression, with MindSpore 2.10's
values (measured, tests/test_tf_style_ops.py):
- per class, boxes above score_threshold are sorted by score (ties: lower index first) and
  suppressed greedily when their IoU with a kept box exceeds iou_threshold; at most
  max_output_size_per_class are kept. IoU is TensorFlow's: corners ordered first, a zero-area box
  overlaps nothing, computed on the unclipped boxes.
- the kept boxes of all classes are sorted by score (ties in class order), the first
  max_total_size kept (min(max_total_size, max_output_size_per_class * num_classes) with
  pad_per_class), the rest zero; clip_boxes clips the coordinates to [0, 1].
- outputs: boxes [B, T, 4], scores [B, T], classes [B, T] (float32), valid_detections [B] int32.

Fixed-size throughout (a fori_loop over the candidates, as nms_with_mask), so it runs under jit
and exports to ONNX; the two sizes must be constant Tensors (they set the output's shape).
"""
from __future__ import annotations

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from . import functional as F
from .control_flow import fori_loop
from .detection import _dtype_in, _tensor
from .math_classes import static_ints
from .op_base import Operator, check_bool
from .sorting import cumsum, sort

__all__: list[str] = []

_OP = "CombinedNonMaxSuppression"


def _tf_iou(boxes):
    """[..., N, N] IoU of boxes [..., N, 4] (y1, x1, y2, x2 in any corner order); 0 where either
    box has no area."""
    y1, x1, y2, x2 = (F.squeeze(F.slice_axis(boxes, -1, i, i + 1), -1) for i in range(4))
    ymin, ymax, xmin, xmax = F.minimum(y1, y2), F.maximum(y1, y2), F.minimum(x1, x2), F.maximum(x1, x2)
    area = F.mul(F.sub(ymax, ymin), F.sub(xmax, xmin))

    def pair(a, combine):
        return combine(F.expand_dims(a, -1), F.expand_dims(a, -2))

    h = F.maximum(F.sub(pair(ymax, F.minimum), pair(ymin, F.maximum)), 0.0)
    w = F.maximum(F.sub(pair(xmax, F.minimum), pair(xmin, F.maximum)), 0.0)
    inter = F.mul(h, w)
    union = F.sub(pair(area, F.add), inter)
    both = F.logical_and(F.greater(F.expand_dims(area, -1), 0.0), F.greater(F.expand_dims(area, -2), 0.0))
    return F.select(both, F.div(inter, F.select(both, union, 1.0)), 0.0)


def _greedy_keep(suppresses, keep):
    """keep [..., N] after greedy suppression in index order: a kept box i drops every later j
    with suppresses[..., i, j]."""
    n = keep.shape[-1]
    axis = keep.ndim - 1

    def step(i, keep):
        kept_i = F.expand_dims(F.gather(keep, i, axis), -1)
        return F.logical_and(keep, F.logical_not(F.logical_and(kept_i, F.gather(suppresses, i, axis))))

    return fori_loop(0, n, step, keep) if n else keep


def combined_non_max_suppression(boxes, scores, max_per_class: int, max_total: int, iou_threshold,
                                 score_threshold, pad_per_class: bool, clip_boxes: bool):
    batch, n, q, _ = boxes.shape
    classes = scores.shape[2]
    per_class = F.transpose(F.broadcast_to(boxes, (batch, n, classes, 4)) if q == 1 else boxes, (0, 2, 1, 3))
    ranked_scores, order = sort(F.transpose(scores, (0, 2, 1)), -1, True)                 # [B, C, N]
    ranked_boxes = F.gather_elements(per_class, 2, F.broadcast_to(F.expand_dims(order, -1),
                                                                  (batch, classes, n, 4)))
    later = Tensor(np.triu(np.ones((n, n), bool), 1))
    suppresses = F.logical_and(F.greater(_tf_iou(ranked_boxes), iou_threshold), later)
    keep = _greedy_keep(suppresses, F.greater(ranked_scores, score_threshold))
    keep = F.logical_and(keep, F.less_equal(cumsum(F.cast(keep, mstype.int32), -1), max_per_class))
    # all classes' survivors, class-major, so that a stable sort puts equal scores in class order
    flat_scores = F.reshape(F.select(keep, ranked_scores, float("-inf")), (batch, classes * n))
    flat_boxes = F.reshape(ranked_boxes, (batch, classes * n, 4))
    flat_classes = Tensor(np.repeat(np.arange(classes, dtype=np.float32), n))
    total = min(max_total, max_per_class * classes) if pad_per_class else max_total
    top_scores, top = sort(flat_scores, -1, True)
    take = min(total, classes * n)
    top_scores, top = F.slice_axis(top_scores, 1, 0, take), F.slice_axis(top, 1, 0, take)
    top_boxes = F.gather_elements(flat_boxes, 1, F.broadcast_to(F.expand_dims(top, -1), (batch, take, 4)))
    top_classes = F.gather(flat_classes, top, 0)
    count = F.reduce_sum(F.cast(keep, mstype.int32), (1, 2))
    valid = F.minimum(count, max_total)
    used = F.less(Tensor(np.arange(take, dtype=np.int32)), F.expand_dims(valid, 1))       # [B, take]
    top_scores = F.select(used, top_scores, 0.0)
    top_classes = F.select(used, top_classes, 0.0)
    if clip_boxes:
        top_boxes = F.minimum(F.maximum(top_boxes, 0.0), 1.0)
    top_boxes = F.select(F.expand_dims(used, -1), top_boxes, 0.0)
    if total > take:
        extra = total - take
        top_boxes = F.pad(top_boxes, (0, 0, 0, extra))
        top_scores, top_classes = F.pad(top_scores, (0, extra)), F.pad(top_classes, (0, extra))
    return top_boxes, top_scores, top_classes, F.cast(valid, mstype.int32)


def _threshold(name: str, value):
    t = _tensor(_OP, 0, value)
    if not t.is_symbolic:
        v = float(t.asnumpy())
        if name == "iou_threshold" and not 0.0 <= v <= 1.0:
            raise ValueError(f"For {_OP}, iou_threshold must be in [0,1], but got {v:g}.")
    return F.cast(t, mstype.float32)


class CombinedNonMaxSuppression(Operator):
    """CombinedNonMaxSuppression(pad_per_class=False, clip_boxes=True)(boxes [B, N, q, 4],
    scores [B, N, C], max_output_size_per_class, max_total_size, iou_threshold, score_threshold)
    -> (nmsed_boxes, nmsed_scores, nmsed_classes, valid_detections)."""

    def __init__(self, pad_per_class=False, clip_boxes=True):
        super().__init__(pad_per_class=check_bool(_OP, "pad_per_class", pad_per_class),
                         clip_boxes=check_bool(_OP, "clip_boxes", clip_boxes))

    def __call__(self, boxes, scores, max_output_size_per_class, max_total_size, iou_threshold, score_threshold):
        boxes, scores = _tensor(_OP, 0, boxes), _tensor(_OP, 1, scores)
        _dtype_in(_OP, "boxes", boxes, (mstype.float32,))
        _dtype_in(_OP, "scores", scores, (mstype.float32,))
        if boxes.ndim != 4 or boxes.shape[3] != 4:
            raise ValueError(f"For primitive[{_OP}], the boxes must be 4-D with a last dimension of 4, but got "
                             f"shape {tuple(boxes.shape)}.")
        if scores.ndim != 3 or scores.shape[:2] != boxes.shape[:2] or boxes.shape[2] not in (1, scores.shape[2]):
            raise ValueError(f"For primitive[{_OP}], the scores must be [batch, num_boxes, num_classes] with boxes' "
                             f"first two dimensions and q equal to 1 or num_classes, but got boxes "
                             f"{tuple(boxes.shape)} and scores {tuple(scores.shape)}.")
        (per_class,) = static_ints(_OP, "max_output_size_per_class", max_output_size_per_class)
        (total,) = static_ints(_OP, "max_total_size", max_total_size)
        for name, v in (("max_output_size_per_class", per_class), ("max_total_size", total)):
            if v <= 0:
                raise ValueError(f"For {_OP}, {name} must be > 0, but got {v}.")
        iou = _threshold("iou_threshold", iou_threshold)
        score = _threshold("score_threshold", score_threshold)
        return combined_non_max_suppression(boxes, scores, per_class, total, iou, score, self.pad_per_class,
                                            self.clip_boxes)

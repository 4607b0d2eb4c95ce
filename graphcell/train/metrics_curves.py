"""Curve metrics: `ROC` (false/true positive rates per threshold) and `auc` (the area under a
curve), with MindSpore 2.10's measured semantics."""
from __future__ import annotations

import numpy as np

from .metrics import Metric, _check_type, _update_first, rearrange_inputs

__all__ = ["ROC", "auc"]


def _roc_curve(scores: np.ndarray, positive: np.ndarray):
    """(fpr, tpr, thresholds) at every distinct score, highest first, from (0, 0) at a threshold
    one above the highest score (thresholds keep the scores' dtype)."""
    order = np.argsort(-scores, kind="stable")
    scores, positive = scores[order], positive[order].astype(np.float64)
    last_of_each = np.r_[np.flatnonzero(np.diff(scores)), scores.size - 1]
    tps = np.cumsum(positive)[last_of_each]
    fps = last_of_each + 1 - tps
    tps, fps = np.r_[0.0, tps], np.r_[0.0, fps]
    thresholds = np.r_[scores[last_of_each][:1] + 1, scores[last_of_each]]
    if fps[-1] <= 0:
        raise ValueError("For 'ROC.eval', there is no negative samples in true value, false positive value is "
                         "meaningless.")
    if tps[-1] <= 0:
        raise ValueError("For 'ROC.eval', there is no positive samples in true value, true positive value is "
                         "meaningless.")
    return fps / fps[-1], tps / tps[-1], thresholds


class ROC(Metric):
    """Receiver operating characteristic of the last update (MindSpore 2.10 keeps only the last
    update's inputs, measured).

    Binary: y_pred scores of y's shape; a sample is positive where y == pos_label (default 1);
    eval() is (fpr, tpr, thresholds). Multi-class: y_pred [N, class_num] scores and y [N] class
    indices; eval() is three lists with one-vs-rest curves per class.
    """

    def __init__(self, class_num=None, pos_label=None):
        super().__init__()
        self.class_num = class_num if class_num is None else _check_type("class_num", class_num, int, "int")
        self.pos_label = pos_label if pos_label is None else _check_type("pos_label", pos_label, int, "int")
        self.clear()

    def clear(self):
        self.y_pred, self.y = None, None

    @rearrange_inputs
    def update(self, *inputs):
        self._check_inputs(inputs, 2, "predicted value, true value")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y_pred.ndim == y.ndim:
            if self.class_num not in (None, 1):
                raise ValueError("For 'ROC', when predicted value (input[0]) and true value (input[1]) have the same "
                                 f"shape, the 'class_num' must be 1, but got {self.class_num}.")
            if y_pred.shape != y.shape:
                raise ValueError(f"For 'ROC', predicted value {list(y_pred.shape)} and true value {list(y.shape)} "
                                 "must have the same shape.")
            y_pred, y = y_pred.reshape(-1), y.reshape(-1)
        elif y_pred.ndim == y.ndim + 1:
            classes = y_pred.shape[1]
            if self.class_num != classes:
                raise ValueError("For 'ROC', the 'class_num' must equal the number of classes from predicted value "
                                 f"(input[0]), but got 'class_num' {self.class_num}, the number of classes from "
                                 f"predicted value {classes}.")
            if self.pos_label is not None:
                raise ValueError("For 'ROC', when the dimension of predicted value (input[0]) equals the dimension "
                                 "of true value (input[1]) add 1, the 'pos_label' must be None, but got "
                                 f"{self.pos_label}.")
            y_pred = np.moveaxis(y_pred, 1, -1).reshape(-1, classes)  # classes on axis 1, other axes samples
            y = y.reshape(-1)
            if y.shape[0] != y_pred.shape[0]:
                raise ValueError(f"For 'ROC', predicted value has {y_pred.shape[0]} samples but true value has "
                                 f"{y.shape[0]}.")
        else:
            raise ValueError("For 'ROC', predicted value (input[0]) and true value (input[1]) must have same "
                             "dimensions, or the dimension of predicted value equal the dimension of true value "
                             f"add 1, but got predicted value ndim: {y_pred.ndim}, true value ndim: {y.ndim}.")
        self.y_pred, self.y = y_pred, y

    def eval(self):
        if self.y_pred is None:
            raise _update_first()
        if self.y_pred.ndim == 1:
            return _roc_curve(self.y_pred, self.y == (1 if self.pos_label is None else self.pos_label))
        curves = [_roc_curve(self.y_pred[:, c], self.y == c) for c in range(self.y_pred.shape[1])]
        return tuple(list(parts) for parts in zip(*curves))


def auc(x, y, reorder=False):
    """Area under the curve through the points (x, y), by the trapezoidal rule. x must be
    increasing or decreasing unless `reorder` sorts the points by x first."""
    if not isinstance(x, np.ndarray) or not isinstance(y, np.ndarray):
        raise TypeError(f"For 'auc', the argument 'x' and 'y' must all be np.ndarray, but got {type(x)}, {type(y)}")
    x, y = _column(x), _column(y)
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"Found input variables with inconsistent numbers of samples: {[x.shape[0], y.shape[0]]}.")
    if x.shape[0] < 2:
        raise ValueError(f"For 'auc', the argument 'x' needs at least 2 points, but got {x.shape[0]}.")
    direction = 1
    if reorder:
        order = np.lexsort((y, x))
        x, y = x[order], y[order]
    else:
        dx = np.diff(x)
        if (dx < 0).any():
            if not (dx <= 0).all():
                raise ValueError("For 'auc', if the argument is False, the argument 'x' array must be increasing or "
                                 f"decreasing, but got 'x': {x}")
            direction = -1
    return np.float64(direction * np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2.0))


def _column(values: np.ndarray) -> np.ndarray:
    if values.ndim == 2 and values.shape[1] == 1:
        values = values.reshape(-1)
    if values.ndim != 1:
        raise ValueError("For 'auc', the input must be a 1-dimensional array, or a 2-dimensional array with the "
                         f"second dimension of 1, but got shape {values.shape}.")
    return values

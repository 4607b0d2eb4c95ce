"""Confusion-matrix metrics: `ConfusionMatrix` (the class-by-class count matrix) and
`ConfusionMatrixMetric` (sensitivity, precision, ... from per-channel TP/FP/TN/FN counts of
one-hot segmentation masks), with MindSpore 2.10's measured semantics."""
from __future__ import annotations

import warnings

import numpy as np

from .metrics import Metric, _check_type, _update_first, rearrange_inputs

__all__ = ["ConfusionMatrix", "ConfusionMatrixMetric"]


class ConfusionMatrix(Metric):
    """[num_classes, num_classes] counts, rows the true class and columns the predicted one.

    y_pred is either class indices of y's shape (a float y_pred is first binarised with
    `y_pred >= threshold`) or scores with one more axis, the classes on axis 1 (arg-max).
    `normalize`: 'no_norm', 'target' (rows sum to 1), 'prediction' (columns) or 'all';
    a row or column with no samples normalises to 0.
    """
    _NORMALIZE = ("no_norm", "target", "prediction", "all")

    def __init__(self, num_classes, normalize="no_norm", threshold=0.5):
        super().__init__()
        self.num_classes = _check_type("num_classes", num_classes, int, "int")
        if num_classes < 1:
            raise ValueError(f"For 'ConfusionMatrix', 'num_classes' must be a positive int, but got {num_classes}.")
        if normalize not in self._NORMALIZE:
            raise ValueError(f"For 'ConfusionMatrix', the argument 'normalize' must be in {list(self._NORMALIZE)}, "
                             f"but got {normalize}.")
        self.normalize = normalize
        self.threshold = _check_type("threshold", threshold, float, "float")
        self.clear()

    def clear(self):
        self.confusion_matrix = np.zeros((self.num_classes, self.num_classes))
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs):
        self._check_inputs(inputs, 2, "predicted value, true value")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y_pred.ndim == y.ndim + 1:
            y_pred = y_pred.argmax(axis=1)
        elif y_pred.ndim != y.ndim:
            raise ValueError("For 'ConfusionMatrix.update', predicted value (input[0]) and true value (input[1]) "
                             "should have same dimensions, or the dimension of predicted value equals the dimension "
                             f"of true value add 1, but got predicted value ndim: {y_pred.ndim}, true value ndim: "
                             f"{y.ndim}.")
        elif np.issubdtype(y_pred.dtype, np.floating):
            y_pred = y_pred >= self.threshold
        if y_pred.shape != y.shape:
            raise ValueError(f"For 'ConfusionMatrix.update', predicted classes {list(y_pred.shape)} and true value "
                             f"{list(y.shape)} should have the same shape.")
        y_pred, y = y_pred.reshape(-1).astype(np.int64), y.reshape(-1).astype(np.int64)
        for name, v in (("predicted", y_pred), ("true", y)):
            if v.size and (v.min() < 0 or v.max() >= self.num_classes):
                raise ValueError(f"For 'ConfusionMatrix.update', the {name} classes must be in "
                                 f"[0, {self.num_classes}), but got values {np.unique(v)[:10].tolist()}.")
        self.confusion_matrix += np.bincount(y * self.num_classes + y_pred, minlength=self.num_classes ** 2
                                             ).reshape(self.num_classes, self.num_classes)
        self._is_update = True

    def eval(self):
        if not self._is_update:
            raise _update_first()
        matrix = self.confusion_matrix
        if self.normalize == "no_norm":
            return matrix.copy()
        if self.normalize == "all":
            return matrix / matrix.sum()
        axis = 1 if self.normalize == "target" else 0
        totals = matrix.sum(axis=axis, keepdims=True)
        return np.divide(matrix, totals, out=np.zeros_like(matrix), where=totals != 0)


def _ratio(num, den):
    """num / den, nan where den == 0 (the metric is undefined there)."""
    num, den = np.broadcast_arrays(np.asarray(num, np.float64), np.asarray(den, np.float64))
    return np.divide(num, den, out=np.full(num.shape, np.nan), where=den != 0)


def _prevalence_threshold(tp, fp, tn, fn):
    tpr, tnr = _ratio(tp, tp + fn), _ratio(tn, tn + fp)
    return _ratio(np.sqrt(tpr * (1.0 - tnr)) + tnr - 1.0, tpr + tnr - 1.0)


def _mcc(tp, fp, tn, fn):
    return _ratio(tp * tn - fp * fn, np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)))


# name -> f(tp, fp, tn, fn), each an array of counts
_FORMULAS = {
    "sensitivity": lambda tp, fp, tn, fn: _ratio(tp, tp + fn),
    "specificity": lambda tp, fp, tn, fn: _ratio(tn, tn + fp),
    "precision": lambda tp, fp, tn, fn: _ratio(tp, tp + fp),
    "negative predictive value": lambda tp, fp, tn, fn: _ratio(tn, tn + fn),
    "miss rate": lambda tp, fp, tn, fn: _ratio(fn, tp + fn),
    "fall out": lambda tp, fp, tn, fn: _ratio(fp, tn + fp),
    "false discovery rate": lambda tp, fp, tn, fn: _ratio(fp, tp + fp),
    "false omission rate": lambda tp, fp, tn, fn: _ratio(fn, tn + fn),
    "prevalence threshold": _prevalence_threshold,
    "threat score": lambda tp, fp, tn, fn: _ratio(tp, tp + fn + fp),
    "accuracy": lambda tp, fp, tn, fn: _ratio(tp + tn, tp + fp + tn + fn),
    "balanced accuracy": lambda tp, fp, tn, fn: (_ratio(tp, tp + fn) + _ratio(tn, tn + fp)) / 2.0,
    "f1 score": lambda tp, fp, tn, fn: _ratio(2.0 * tp, 2.0 * tp + fp + fn),
    "matthews correlation coefficient": _mcc,
    "fowlkes mallows index": lambda tp, fp, tn, fn: np.sqrt(_ratio(tp, tp + fp) * _ratio(tp, tp + fn)),
    "informedness": lambda tp, fp, tn, fn: _ratio(tp, tp + fn) + _ratio(tn, tn + fp) - 1.0,
    "markedness": lambda tp, fp, tn, fn: _ratio(tp, tp + fp) + _ratio(tn, tn + fn) - 1.0,
}
_ALIASES = {"tpr": "sensitivity", "recall": "sensitivity", "hit rate": "sensitivity",
            "tnr": "specificity", "selectivity": "specificity", "ppv": "precision",
            "npv": "negative predictive value", "fnr": "miss rate", "fpr": "fall out",
            "fdr": "false discovery rate", "for": "false omission rate", "pt": "prevalence threshold",
            "ts": "threat score", "csi": "threat score", "ba": "balanced accuracy", "f1": "f1 score",
            "mcc": "matthews correlation coefficient", "fm": "fowlkes mallows index", "bm": "informedness",
            "mk": "markedness"}


class ConfusionMatrixMetric(Metric):
    """One of the confusion-matrix measures (`metric_name`: 'sensitivity', 'precision', 'f1 score',
    'mcc', ...; case-insensitive) of one-hot masks y_pred, y of shape [batch, channel, ...].

    TP/FP/TN/FN are counted per sample and channel over the remaining axes: TP where
    y_pred + y == 2, TN where it is 0 (so only exact 0/1 predictions count), FN and FP the rest
    of y's positives and negatives. As measured on MindSpore 2.10, `skip_channel=False` drops
    channel 0 and `skip_channel=True` keeps every channel (the reverse of its documentation).
    - calculation_method=False: the counts are summed over all samples and channels of every
      update; eval() is the measure of those totals, a shape [1] array (nan before any update
      or where undefined); `decrease` is not used.
    - calculation_method=True: each update takes the measure per sample and channel (nan
      where undefined) and reduces it by `decrease`: 'mean' (nan-mean over channels, then
      mean over the samples that have one) or 'sum' (nan-sum). eval() is the average of the
      updates' values weighted by their defined samples ('mean') or entries ('sum'), a Python
      float, as MindSpore computes it. MindSpore 2.10 fails on the other `decrease` values
      there; graphcell refuses them.
    """
    _DECREASE = ("none", "mean", "sum", "mean_batch", "sum_batch", "mean_channel", "sum_channel")

    def __init__(self, skip_channel=True, metric_name="sensitivity", calculation_method=False, decrease="mean"):
        super().__init__()
        self.skip_channel = _check_type("skip_channel", skip_channel, bool, "bool")
        self.calculation_method = _check_type("calculation_method", calculation_method, bool, "bool")
        name = str(metric_name).lower()
        name = _ALIASES.get(name, name)
        if name not in _FORMULAS:
            raise ValueError(f"For 'ConfusionMatrixMetric', the 'metric_name' must be one of "
                             f"{sorted(_FORMULAS) + sorted(_ALIASES)}, but got '{metric_name}'.")
        self.metric_name = metric_name
        self._formula = _FORMULAS[name]
        if decrease not in self._DECREASE:
            raise ValueError(f"The 'decrease' must be str and must be in '{list(self._DECREASE)}', but got "
                             f"'{decrease}'.")
        if calculation_method and decrease not in ("mean", "sum"):
            raise ValueError(f"For 'ConfusionMatrixMetric', with calculation_method=True 'decrease' must be 'mean' or "
                             f"'sum' (MindSpore 2.10 fails on the others), but got '{decrease}'.")
        self.decrease = decrease
        self.clear()

    def clear(self):
        self._totals = np.zeros(4)  # tp, fp, tn, fn over everything (calculation_method=False)
        self._weighted_sum, self._weight = 0.0, 0  # calculation_method=True

    @rearrange_inputs
    def update(self, *inputs):
        self._check_inputs(inputs, 2, "predicted value, true value")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y_pred.ndim < 2:
            raise ValueError("For 'ConfusionMatrix.update', the predicted value (input[0]) must have at least 2 "
                             f"dimensions, but got {y_pred.ndim}.")
        if y.shape != y_pred.shape:
            raise ValueError(f"The 'y_shape' should be = y_pred_shape: {y_pred.shape}, but got {y.shape}.")
        if not self.skip_channel:
            y_pred, y = y_pred[:, 1:], y[:, 1:]
        y_pred = y_pred.reshape(*y_pred.shape[:2], -1).astype(np.float64)
        y = y.reshape(y_pred.shape).astype(np.float64)
        # MindSpore's counting (measured): TP where y_pred + y == 2 and TN where it is 0, so only
        # exact 0/1 predictions count (0.7 or 1.5 is neither); FN and FP are the rest of y's
        # positives and negatives.
        total = y_pred + y
        tp, tn = (total == 2).sum(-1), (total == 0).sum(-1)
        positives = y.sum(-1)
        fn, fp = positives - tp, y.shape[-1] - positives - tn
        counts = np.stack([tp, fp, tn, fn]).astype(np.float64)  # [4, B, C]
        if not self.calculation_method:
            self._totals += counts.reshape(4, -1).sum(1)
            return
        values = self._formula(*counts)  # [B, C], nan where undefined
        defined = ~np.isnan(values)
        with warnings.catch_warnings():  # an all-nan sample has no channel mean, by design
            warnings.simplefilter("ignore", RuntimeWarning)
            if self.decrease == "mean":
                per_sample = np.nanmean(values, axis=1)
                weight = int((~np.isnan(per_sample)).sum())
                value = np.nanmean(per_sample) if weight else 0.0
            else:
                weight, value = int(defined.sum()), np.nansum(values)
        # MindSpore keeps the weighted sum of each update's value (weight: the defined samples
        # for 'mean', the defined entries for 'sum') and divides by the weights at eval
        self._weighted_sum += float(value) * weight
        self._weight += weight

    def eval(self):
        if not self.calculation_method:
            return np.atleast_1d(self._formula(*self._totals))
        if self._weight == 0:
            raise RuntimeError("The 'ConfusionMatrixMetric' can not be calculated, because the number of samples is "
                               "0, please check whether your inputs(predicted value, true value) are empty, or has "
                               "called update method before calling eval method.")
        return self._weighted_sum / self._weight

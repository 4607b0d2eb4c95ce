"""Evaluation metrics with MindSpore's `clear / update / eval` protocol and semantics.

`update` takes Tensors, numpy arrays or lists and accumulates in numpy (float64), so a
metric never enters a graph; `eval` returns a Python/numpy number (or a per-class array).
"""
from __future__ import annotations

import functools
import sys

import numpy as np

__all__ = ["Metric", "rearrange_inputs", "Accuracy", "TopKCategoricalAccuracy", "Top1CategoricalAccuracy",
           "Top5CategoricalAccuracy", "Loss", "MAE", "MSE", "Precision", "Recall", "Fbeta", "F1"]


def rearrange_inputs(update):
    """Decorator for `update`: reorders its inputs by the metric's `set_indexes` choice."""
    @functools.wraps(update)
    def wrapper(self, *inputs):
        if self.indexes is not None:
            inputs = tuple(inputs[i] for i in self.indexes)
        return update(self, *inputs)
    return wrapper


class Metric:
    """Base class: subclasses implement clear(), update(*inputs) and eval()."""

    def __init__(self):
        self._indexes = None

    @property
    def indexes(self):
        return self._indexes

    def set_indexes(self, indexes):
        """Use inputs[i] for i in `indexes` as update's inputs (e.g. [0, 2] picks logits, label)."""
        if not isinstance(indexes, list) or not all(isinstance(i, int) for i in indexes):
            raise ValueError(f"set_indexes: indexes must be a list of ints, got {indexes!r}")
        self._indexes = indexes
        return self

    def __call__(self, *inputs):
        self.clear()
        self.update(*inputs)
        return self.eval()

    def clear(self):
        raise NotImplementedError

    def update(self, *inputs):
        raise NotImplementedError

    def eval(self):
        raise NotImplementedError

    @staticmethod
    def _convert_data(data) -> np.ndarray:
        if hasattr(data, "asnumpy"):
            return data.asnumpy()
        if isinstance(data, (np.ndarray, list, tuple, int, float, np.number)):
            return np.asarray(data)
        raise TypeError(f"metric inputs must be Tensors, numpy arrays or lists, got {type(data).__name__}")

    @staticmethod
    def _is_onehot(y: np.ndarray) -> bool:
        """All entries 0/1 with exactly one 1 per row (MindSpore's one-hot label check)."""
        return y.ndim > 1 and bool(np.isin(y, (0, 1)).all()) and bool((y.sum(axis=-1) == 1).all())

    def _check_inputs(self, inputs, count: int, what: str | None = None):
        if len(inputs) != count:   # MindSpore 2.10's message
            what = what or ("predicted value, true value" if count == 2 else "loss")
            raise ValueError(f"For '{type(self).__name__}.update', it needs {count} input{'s' if count > 1 else ''} "
                             f"({what}), but got {len(inputs)}")


def _update_first() -> RuntimeError:
    """MindSpore's error for eval() on metrics that keep their inputs rather than counts."""
    return RuntimeError("Please call the 'update' method before calling 'eval' method.")


def _check_type(name: str, value, types, type_names: str):
    """MindSpore's argument type check and message (bool is not an int here)."""
    types = types if isinstance(types, tuple) else (types,)
    if isinstance(value, bool) and bool not in types or not isinstance(value, types):
        raise TypeError(f"The type of '{name}' should be '{type_names}', but got type '{type(value).__name__}'.")
    return value


def _check_choice(name: str, value, choices):
    if value not in choices:
        raise ValueError(f"The '{name}' must be str and must be in '{list(choices)}', but got '{value}'.")
    return value


class _Float64(np.float64):
    """A metric's result: a numpy float64, as MindSpore 2.10 returns, that prints as a Python float
    does (as numpy < 2's float64 does under 2.10), so `print(model.eval(ds))` reads the same."""
    __repr__ = float.__repr__
    __str__ = float.__repr__


def _samples_zero(name: str) -> RuntimeError:
    """MindSpore 2.10's message (measured; Loss's names no inputs)."""
    inputs = "" if name == "Loss" else "your inputs (predicted value, true value) are empty, or "
    return RuntimeError(f"The '{name}' can not be calculated, because the number of samples is 0, please check "
                        f"whether {inputs}has called update method before calling eval method.")


class _ClassificationMetric(Metric):
    """Shared input handling of Accuracy, Precision, Recall and Fbeta."""

    def __init__(self, eval_type="classification"):
        super().__init__()
        if eval_type not in ("classification", "multilabel"):   # MindSpore 2.10's type and message
            raise TypeError(f"The argument 'eval_type' must be in {{'classification', 'multilabel'}}, but got "
                            f"{eval_type}")
        self._type = eval_type

    def _prepare(self, inputs) -> tuple[np.ndarray, np.ndarray]:
        """(y_pred, y) as [N, C] one-hot/0-1 matrices."""
        self._check_inputs(inputs, 2)
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        name = type(self).__name__
        if self._type == "classification":
            if y_pred.ndim != 2:
                raise ValueError(f"{name}: y_pred must be [N, C] scores, got shape {list(y_pred.shape)}")
            if y.ndim == y_pred.ndim and self._is_onehot(y):
                y = y.argmax(axis=1)
            y = y.reshape(-1)
            if y.shape[0] != y_pred.shape[0]:
                raise ValueError(f"In classification case, y_pred (predicted value) shape and y (true value) shape "
                                 f"can not match, y shape should be equal to y_pred shape that the value at index 1 "
                                 f"is deleted. Such as y_pred shape (1, 2, 3), then y shape should be (1, 3). But got "
                                 f"y_pred shape {y_pred.shape} and y shape {y.shape}")
        elif y_pred.shape != y.shape or not np.isin(y_pred, (0, 1)).all() or not np.isin(y, (0, 1)).all():
            raise ValueError(f"{name} (multilabel): y_pred and y must be 0/1 arrays of one shape, got "
                             f"{list(y_pred.shape)} and {list(y.shape)}")
        classes = y_pred.shape[1]
        if self._class_num == 0:
            self._class_num = classes
        elif classes != self._class_num:
            raise ValueError(f"{name}: earlier inputs had {self._class_num} classes, these have {classes}")
        if self._type == "multilabel":  # classes on axis 1, any further axes are more samples
            return (np.moveaxis(y_pred, 1, -1).reshape(-1, classes),
                    np.moveaxis(y, 1, -1).reshape(-1, classes))
        labels = y.astype(np.int64)
        if (labels != y).any() or labels.min(initial=0) < 0 or labels.max(initial=0) >= classes:
            raise ValueError(f"{name}: labels must be class indices in [0, {classes}), got values "
                             f"{np.unique(y)[:10].tolist()}")
        eye = np.eye(classes)
        return eye[y_pred.argmax(axis=1)], eye[labels]


class Accuracy(_ClassificationMetric):
    """Fraction of samples whose arg-max prediction equals the label (index or one-hot);
    with eval_type='multilabel', of samples whose 0/1 predictions all match."""

    def __init__(self, eval_type="classification"):
        super().__init__(eval_type)
        self.clear()

    def clear(self):
        self._correct_num, self._total_num, self._class_num = 0, 0, 0

    @rearrange_inputs
    def update(self, *inputs):
        if self._type == "classification" and self._single_column(inputs):
            # one score column: a binary prediction, rounded half to even as MindSpore 2.10 does
            y_pred = np.round(self._convert_data(inputs[0])).reshape(-1)
            y = self._convert_data(inputs[1]).reshape(-1)
            if y.shape[0] != y_pred.shape[0]:
                raise ValueError(f"In classification case, y_pred (predicted value) shape and y (true value) "
                                 f"shape can not match, but got y_pred shape {y_pred.shape[0], 1} and y shape "
                                 f"{y.shape}")
            correct = y_pred == y
        else:
            y_pred, y = self._prepare(inputs)
            correct = (y_pred == y).all(axis=1)
        self._correct_num += int(correct.sum())
        self._total_num += correct.shape[0]

    def _single_column(self, inputs) -> bool:
        self._check_inputs(inputs, 2)
        shape = np.shape(inputs[0].asnumpy() if hasattr(inputs[0], "asnumpy") else inputs[0])
        return len(shape) == 2 and shape[1] == 1

    def eval(self):
        if self._total_num == 0:
            raise _samples_zero("Accuracy")
        return _Float64(self._correct_num / self._total_num)


class TopKCategoricalAccuracy(Metric):
    """Fraction of samples whose label is among the k highest scores."""

    def __init__(self, k):
        super().__init__()
        if not isinstance(k, int):    # MindSpore 2.10's checks (a bool is an int there)
            raise TypeError(f"For 'TopKCategoricalAccuracy', the type of the argument 'k' should be int, but got "
                            f"'k' type: {type(k)}.")
        if k < 1:
            raise ValueError(f"For 'TopKCategoricalAccuracy', the argument 'k' must be at least 1, but got 'k' "
                             f"value: {k}.")
        self.k = k
        self.clear()

    def clear(self):
        self._correct_num, self._samples_num = 0, 0

    @rearrange_inputs
    def update(self, *inputs):
        self._check_inputs(inputs, 2)
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y_pred.ndim != 2:
            raise ValueError(f"{type(self).__name__}: y_pred must be [N, C] scores, got shape {list(y_pred.shape)}")
        if y.ndim == y_pred.ndim and self._is_onehot(y):
            y = y.argmax(axis=1)
        # stable sort: among equal scores the lower class index ranks first
        top = np.argsort(-y_pred, axis=1, kind="stable")[:, : self.k]
        correct = (top == y.reshape(-1, 1)).any(axis=1)
        self._correct_num += int(correct.sum())
        self._samples_num += y_pred.shape[0]

    def eval(self):
        if self._samples_num == 0:
            raise _samples_zero(type(self).__name__)
        return _Float64(self._correct_num / self._samples_num)


class Top1CategoricalAccuracy(TopKCategoricalAccuracy):
    def __init__(self):
        super().__init__(1)


class Top5CategoricalAccuracy(TopKCategoricalAccuracy):
    def __init__(self):
        super().__init__(5)


class Loss(Metric):
    """Average of the losses given to update (each a scalar, or a 1-D array that is averaged)."""

    def __init__(self):
        super().__init__()
        self.clear()

    def clear(self):
        self._sum_loss, self._total_num = 0.0, 0

    def update(self, *inputs):
        self._check_inputs(inputs, 1)
        loss = self._convert_data(inputs[0])
        if loss.ndim == 0:
            loss = loss.reshape(1)
        if loss.ndim != 1:
            raise ValueError(f"For 'Loss.update', the dimension of your input (loss) must be 1, but got {loss.ndim}.")
        self._sum_loss += float(loss.mean(-1))
        self._total_num += 1

    def eval(self):
        if self._total_num == 0:
            raise _samples_zero("Loss")
        return _Float64(self._sum_loss / self._total_num)


class _ErrorMetric(Metric):
    """MAE/MSE: the error summed over each sample's elements, averaged over samples (axis 0)."""

    def __init__(self):
        super().__init__()
        self.clear()

    def clear(self):
        self._error_sum, self._samples_num = 0.0, 0

    def _error(self, diff):
        raise NotImplementedError

    @rearrange_inputs
    def update(self, *inputs):
        self._check_inputs(inputs, 2)
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y.size != y_pred.size:
            raise ValueError(f"{type(self).__name__}: y_pred {list(y_pred.shape)} and y {list(y.shape)} differ in size")
        diff = y.reshape(y_pred.shape).astype(np.float64) - y_pred.astype(np.float64)
        self._error_sum += float(self._error(diff).sum())
        # Samples are y_pred's rows (MindSpore counts y's, which differs only for a reshaped y).
        self._samples_num += y_pred.shape[0] if y_pred.ndim else 1

    def eval(self):
        if self._samples_num == 0:
            raise _samples_zero(type(self).__name__)
        return _Float64(self._error_sum / self._samples_num)


class MAE(_ErrorMetric):
    """Mean absolute error: sum |y - y_pred| / number of samples."""

    def _error(self, diff):
        return np.abs(diff)


class MSE(_ErrorMetric):
    """Mean squared error: sum (y - y_pred)^2 / number of samples."""

    def _error(self, diff):
        return diff * diff


class _PerClassCounts(_ClassificationMetric):
    """Accumulates per-class true positives, predicted positives and actual positives; with
    eval_type='multilabel', Precision and Recall count per sample instead, as MindSpore does
    (one value per sample seen, their mean with average=True)."""
    eps = sys.float_info.min  # MindSpore's: 0/0 classes give 0, not nan
    multilabel_per_sample = True

    def __init__(self, eval_type="classification"):
        super().__init__(eval_type)
        self.clear()

    def clear(self):
        self._class_num = 0
        self._true_positives = self._positives = self._actual_positives = 0

    @rearrange_inputs
    def update(self, *inputs):
        y_pred, y = self._prepare(inputs)
        per_sample = self._type == "multilabel" and self.multilabel_per_sample
        counts = [(y_pred * y).sum(axis=int(per_sample)), y_pred.sum(axis=int(per_sample)),
                  y.sum(axis=int(per_sample))]
        totals = [self._true_positives, self._positives, self._actual_positives]
        if per_sample:  # one entry per sample seen
            totals = [c if np.ndim(t) == 0 else np.concatenate([t, c]) for t, c in zip(totals, counts)]
        else:
            totals = [t + c for t, c in zip(totals, counts)]
        self._true_positives, self._positives, self._actual_positives = totals

    def _check_samples(self):
        if self._class_num == 0:
            raise _samples_zero(type(self).__name__)

    @staticmethod
    def _reduce(per_class, average: bool):
        return _Float64(per_class.mean()) if average else per_class


class Precision(_PerClassCounts):
    """Per class TP / (TP + FP) (per sample with eval_type='multilabel'); `eval(average=True)`
    is their unweighted mean."""

    def eval(self, average=False):
        self._check_samples()
        return self._reduce(self._true_positives / (self._positives + self.eps), average)


class Recall(_PerClassCounts):
    """Per class TP / (TP + FN) (per sample with eval_type='multilabel'); `eval(average=True)`
    is their unweighted mean."""

    def eval(self, average=False):
        self._check_samples()
        return self._reduce(self._true_positives / (self._actual_positives + self.eps), average)


class Fbeta(_PerClassCounts):
    """Per class (1 + b^2) TP / (b^2 (TP + FN) + TP + FP); `eval(average=True)` is the mean.
    (MindSpore's Fbeta has no eval_type; graphcell's 'multilabel' counts per class.)"""
    multilabel_per_sample = False

    def __init__(self, beta, eval_type="classification"):
        if not isinstance(beta, (int, float)) or isinstance(beta, bool) or beta <= 0:
            raise ValueError(f"For 'Fbeta', the argument 'beta' must be greater than 0, but got {beta}.")
        self.beta = float(beta)
        super().__init__(eval_type)

    def eval(self, average=False):
        self._check_samples()
        b2 = self.beta ** 2
        fbeta = (1.0 + b2) * self._true_positives / (b2 * self._actual_positives + self._positives + self.eps)
        return self._reduce(fbeta, average)


class F1(Fbeta):
    """Fbeta with beta = 1: per class 2 TP / (2 TP + FP + FN)."""

    def __init__(self, eval_type="classification"):
        super().__init__(1.0, eval_type)


# 2.10's mindspore.train.metrics is a package holding every metric and the name lookup; the other metric
# modules import this one, so their names are looked up on first use
_ELSEWHERE = {"ConfusionMatrix": "metrics_confusion", "ConfusionMatrixMetric": "metrics_confusion",
              "ROC": "metrics_curves", "auc": "metrics_curves", "BleuScore": "metrics_language",
              "Perplexity": "metrics_language", "OcclusionSensitivity": "metrics_occlusion",
              "Dice": "metrics_segmentation", "HausdorffDistance": "metrics_segmentation",
              "MeanSurfaceDistance": "metrics_segmentation", "RootMeanSquareDistance": "metrics_segmentation",
              "CosineSimilarity": "metrics_similarity", "get_metric_fn": "metrics_registry",
              "get_metrics": "metrics_registry", "names": "metrics_registry"}


def __getattr__(name):
    if name in _ELSEWHERE:
        import importlib
        return getattr(importlib.import_module(f"{__package__}.{_ELSEWHERE[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

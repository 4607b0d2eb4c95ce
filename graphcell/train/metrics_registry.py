"""Metric names: `names`, `get_metric_fn` and `get_metrics`, MindSpore 2.10's lookup of
metrics by string (case-sensitive: 'F1' is upper-case there, 'auc' is the function)."""
from __future__ import annotations

from . import metrics as _base
from .metrics_confusion import ConfusionMatrix, ConfusionMatrixMetric
from .metrics_curves import ROC, auc
from .metrics_language import BleuScore, Perplexity
from .metrics_occlusion import OcclusionSensitivity
from .metrics_segmentation import Dice, HausdorffDistance, MeanSurfaceDistance, RootMeanSquareDistance
from .metrics_similarity import CosineSimilarity

__all__ = ["names", "get_metric_fn", "get_metrics"]

_METRICS = {
    "accuracy": _base.Accuracy, "acc": _base.Accuracy, "precision": _base.Precision, "recall": _base.Recall,
    "F1": _base.F1, "dice": Dice, "roc": ROC, "auc": auc, "bleu_score": BleuScore,
    "cosine_similarity": CosineSimilarity, "occlusion_sensitivity": OcclusionSensitivity,
    "topk": _base.TopKCategoricalAccuracy, "hausdorff_distance": HausdorffDistance,
    "top_1_accuracy": _base.Top1CategoricalAccuracy, "top_5_accuracy": _base.Top5CategoricalAccuracy,
    "mae": _base.MAE, "mse": _base.MSE, "loss": _base.Loss, "mean_surface_distance": MeanSurfaceDistance,
    "root_mean_square_distance": RootMeanSquareDistance, "perplexity": Perplexity,
    "confusion_matrix": ConfusionMatrix, "confusion_matrix_metric": ConfusionMatrixMetric,
}


def names() -> list[str]:
    """The names get_metric_fn knows, sorted."""
    return sorted(_METRICS)


def get_metric_fn(name, *args, **kwargs):
    """The metric called `name`, built with `args` and `kwargs` (for 'auc', auc(*args, **kwargs))."""
    if name not in _METRICS:
        raise KeyError(f"For 'get_metric_fn', unsupported metric {name}, please refer to official website for more "
                       "details about supported metrics.")
    return _METRICS[name](*args, **kwargs)


def get_metrics(metrics):
    """None -> None; a set of names -> {name: metric}; a dict of name -> Metric is checked and
    returned."""
    if metrics is None:
        return None
    if isinstance(metrics, dict):
        for key, value in metrics.items():
            if not isinstance(key, str) or not isinstance(value, _base.Metric):
                raise TypeError("For 'get_metrics', if 'metrics' is dict, the key in 'metrics' must be string and "
                                "value in 'metrics' must be Metric, but got key:"
                                f"{type(key)}, value:{type(value)}.")
        return metrics
    if isinstance(metrics, set):
        return {name: get_metric_fn(name) for name in metrics}
    raise TypeError(f"For 'get_metrics', the argument 'metrics' must be None, dict or set, but got {metrics}")

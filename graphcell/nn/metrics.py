"""graphcell.nn.metrics: MindSpore's `mindspore.nn.metrics` module, the metrics of graphcell.train."""
from ..train import (F1, MAE, MSE, ROC, Accuracy, BleuScore, ConfusionMatrix, ConfusionMatrixMetric,  # noqa: F401
                     CosineSimilarity, Dice, Fbeta, HausdorffDistance, Loss, MeanSurfaceDistance, Metric,
                     OcclusionSensitivity, Perplexity, Precision, Recall, RootMeanSquareDistance,
                     Top1CategoricalAccuracy, Top5CategoricalAccuracy, TopKCategoricalAccuracy, auc, get_metric_fn,
                     get_metrics, names, rearrange_inputs)

"""graphcell.train: checkpoints (MindSpore .ckpt and safetensors, ensembles, PyTorch import).

``save_checkpoint``/``load_checkpoint``/``load_param_into_net`` behave like MindSpore 2.10's; see
``serialization`` for the details and ``torch_import`` for the PyTorch name mapping.
"""
from .ckpt_format import CheckpointError
from ._param_load import ParameterLoadError
from .serialization import (extract_member, load_checkpoint, load_param_into_net, save_checkpoint,
                            stack_checkpoints)
from .torch_import import load_torch_state_dict
from .callback import (Callback, CheckpointConfig, LossMonitor, ModelCheckpoint, ProgressBar, RunContext,
                       TimeMonitor)
from .callback_extra import EarlyStopping, History, LambdaCallback, LearningRateScheduler, ReduceLROnPlateau
from .metrics import (F1, MAE, MSE, Accuracy, Fbeta, Loss, Metric, Precision, Recall, Top1CategoricalAccuracy,
                      Top5CategoricalAccuracy, TopKCategoricalAccuracy, rearrange_inputs)
from .metrics_confusion import ConfusionMatrix, ConfusionMatrixMetric
from .metrics_curves import ROC, auc
from .metrics_language import BleuScore, Perplexity
from .metrics_occlusion import OcclusionSensitivity
from .metrics_segmentation import Dice, HausdorffDistance, MeanSurfaceDistance, RootMeanSquareDistance
from .metrics_similarity import CosineSimilarity
from .metrics_registry import get_metric_fn, get_metrics, names
from .model import Model
from .loss_scale_manager import DynamicLossScaleManager, FixedLossScaleManager, LossScaleManager
from .amp_train import build_train_network
from .data_sink import DatasetHelper, connect_network_with_dataset, data_sink
from .callback_resilience import BackupAndRestore, OnRequestExit
from .flops_collector import FlopsUtilizationCollector
from .ckpt_convert import ckpt_to_safetensors, load_checkpoint_async, merge_sliced_parameter, safetensors_to_ckpt
from .distributed_ckpt import build_searched_strategy, load_distributed_checkpoint
from .parallel_ckpt import get_ckpt_path_with_strategy

__all__ = ["save_checkpoint", "load_checkpoint", "load_param_into_net", "stack_checkpoints",
           "extract_member", "load_torch_state_dict", "CheckpointError", "ParameterLoadError",
           "Model", "Callback", "RunContext", "LossMonitor", "TimeMonitor", "ModelCheckpoint", "CheckpointConfig",
           "ProgressBar", "EarlyStopping", "History", "LambdaCallback", "LearningRateScheduler", "ReduceLROnPlateau",
           "Metric", "Accuracy", "Loss", "MAE", "MSE", "Precision", "Recall", "Fbeta", "F1",
           "TopKCategoricalAccuracy", "Top1CategoricalAccuracy", "Top5CategoricalAccuracy", "rearrange_inputs",
           "ConfusionMatrix", "ConfusionMatrixMetric", "ROC", "auc", "BleuScore", "Perplexity", "OcclusionSensitivity",
           "Dice", "HausdorffDistance", "MeanSurfaceDistance", "RootMeanSquareDistance", "CosineSimilarity",
           "get_metric_fn", "get_metrics", "names",
           "LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager", "build_train_network",
           "data_sink", "DatasetHelper", "connect_network_with_dataset", "BackupAndRestore", "OnRequestExit",
           "FlopsUtilizationCollector", "ckpt_to_safetensors", "safetensors_to_ckpt", "load_checkpoint_async",
           "merge_sliced_parameter", "build_searched_strategy", "load_distributed_checkpoint", "get_ckpt_path_with_strategy",
           "export", "load"]


def __getattr__(name):
    """export/load (2.10's mindspore.train.export/load) load the ONNX exporter on first use."""
    if name in ("export", "load"):
        from ..compiler import export as exporter
        return getattr(exporter, name)
    raise AttributeError(f"module 'graphcell.train' has no attribute {name!r}")

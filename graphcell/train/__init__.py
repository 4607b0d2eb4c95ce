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
                      Top5CategoricalAccuracy, TopKCategoricalAccuracy)
from .model import Model
from .loss_scale_manager import DynamicLossScaleManager, FixedLossScaleManager, LossScaleManager
from .amp_train import build_train_network

__all__ = ["save_checkpoint", "load_checkpoint", "load_param_into_net", "stack_checkpoints",
           "extract_member", "load_torch_state_dict", "CheckpointError", "ParameterLoadError",
           "Model", "Callback", "RunContext", "LossMonitor", "TimeMonitor", "ModelCheckpoint", "CheckpointConfig",
           "ProgressBar", "EarlyStopping", "History", "LambdaCallback", "LearningRateScheduler", "ReduceLROnPlateau",
           "Metric", "Accuracy", "Loss", "MAE", "MSE", "Precision", "Recall", "Fbeta", "F1",
           "TopKCategoricalAccuracy", "Top1CategoricalAccuracy", "Top5CategoricalAccuracy",
           "LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager", "build_train_network"]

"""graphcell.nn: Cells, layers, losses, optimizers, learning-rate schedules and metrics
(MindSpore's `mindspore.nn` names)."""
from .cell import Cell, CellDict, CellList, SequentialCell  # noqa: F401
from .layer import *  # noqa: F401,F403
from .loss import (BCELoss, BCEWithLogitsLoss, CosineEmbeddingLoss, CrossEntropyLoss, HuberLoss,  # noqa: F401
                   KLDivLoss, L1Loss, LossBase, MarginRankingLoss, MSELoss, NLLLoss, SmoothL1Loss,
                   SoftmaxCrossEntropyWithLogits)
from .more_losses import (CTCLoss, DiceLoss, FocalLoss, GaussianNLLLoss, HingeEmbeddingLoss, L1LossExt,  # noqa: F401
                          MAELoss, MultiClassDiceLoss, MultiLabelSoftMarginLoss, MultilabelMarginLoss, MultiMarginLoss,
                          PoissonNLLLoss, RMSELoss, SoftMarginLoss, TripletMarginLoss, TripletMarginWithDistanceLoss)
from .wrap import WithEvalCell, WithLossCell  # noqa: F401
from .graph_cell import GraphCell  # noqa: F401
from .sampled_softmax import SampledSoftmaxLoss  # noqa: F401
from .grad_accumulation import GradAccumulationCell  # noqa: F401

# Names whose modules load on first use: name -> module.
_LAZY = {
    **dict.fromkeys(["Optimizer", "SGD", "Momentum", "Adam", "AdamWeightDecay", "AdamW", "Adagrad", "RMSProp",
                     "Lamb", "FTRL", "LARS", "ASGD", "AdaMax", "Adadelta", "AdaFactor", "LazyAdam",
                     "ProximalAdagrad", "Rprop"],
                    "graphcell.nn.optim"),
    **dict.fromkeys(["LearningRateSchedule", "CosineDecayLR", "ExponentialDecayLR", "WarmUpLR",
                     "PolynomialDecayLR", "NaturalExpDecayLR", "InverseDecayLR"],
                    "graphcell.nn.learning_rate_schedule"),
    **dict.fromkeys(["piecewise_constant_lr", "exponential_decay_lr", "natural_exp_decay_lr",
                     "inverse_decay_lr", "cosine_decay_lr", "polynomial_decay_lr", "warmup_lr"],
                    "graphcell.nn.dynamic_lr"),
    **dict.fromkeys(["TrainOneStepCell"], "graphcell.nn.wrap_train"),
    **dict.fromkeys(["WithGradCell", "ForwardValueAndGrad"], "graphcell.nn.wrap_grad"),
    **dict.fromkeys(["TrainOneStepWithLossScaleCell", "FixedLossScaleUpdateCell", "DynamicLossScaleUpdateCell"],
                    "graphcell.nn.loss_scale"),
    **dict.fromkeys(["DistributedGradReducer"], "graphcell.nn.grad_reducer"),
    **dict.fromkeys(["Jvp", "Vjp"], "graphcell.nn.cell_grad"),
    **dict.fromkeys(["SparseToDense", "SparseTensorDenseMatmul"], "graphcell.nn.sparse_cells"),
    **dict.fromkeys(["PipelineCell", "MicroBatchInterleaved"], "graphcell.nn.grad_accumulation"),
    "no_init_parameters": "graphcell.nn.no_init",
    # mindspore.nn still exports the metrics (mindspore.train.metrics' __all__)
    **dict.fromkeys(["Metric", "rearrange_inputs", "Accuracy", "Top1CategoricalAccuracy",
                     "Top5CategoricalAccuracy", "TopKCategoricalAccuracy", "Loss", "MAE", "MSE", "Precision",
                     "Recall", "Fbeta", "F1", "ConfusionMatrix", "ConfusionMatrixMetric", "ROC", "auc", "BleuScore",
                     "Perplexity", "OcclusionSensitivity", "Dice", "HausdorffDistance", "MeanSurfaceDistance",
                     "RootMeanSquareDistance", "CosineSimilarity", "get_metric_fn", "names", "get_metrics"],
                    "graphcell.train"),
}


def __getattr__(name):
    import importlib
    if name == "probability":   # the subpackage nn.probability (distributions, bijectors)
        return importlib.import_module("graphcell.nn.probability")
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module 'graphcell.nn' has no attribute {name!r}")
    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value

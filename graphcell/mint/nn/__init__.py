"""mindspore.mint.nn: PyTorch-style layers (mint.nn.Linear, mint.nn.Conv2d, ...).

As in MindSpore 2.10, several names are nn's torch-style layers themselves (mint.nn.Linear is
nn.Linear, mint.nn.LayerNorm is nn.LayerNormExt, ...); the rest are in `layers.py`."""
from ...nn import (AdaptiveMaxPool2d, AvgPool1dExt as AvgPool1d, AvgPool2dExt as AvgPool2d,  # noqa: F401
                   AvgPool3dExt as AvgPool3d, Cell, Dropout2dExt as Dropout2d, DropoutExt as Dropout,
                   EmbeddingExt as Embedding, HShrink as Hardshrink, HSigmoid as Hardsigmoid, HSwish as Hardswish,
                   Identity, L1LossExt as L1Loss, LayerNormExt as LayerNorm, Linear, LogSoftmaxExt as LogSoftmax,
                   MaxPool2dExt as MaxPool2d, PReLUExt as PReLU, ReLU, SoftMarginLoss, SoftShrink as Softshrink)
from . import functional  # noqa: F401
from .layers import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveAvgPool3d, AdaptiveMaxPool1d,  # noqa: F401
                     BatchNorm1d, BatchNorm2d, BatchNorm3d, BCELoss, BCEWithLogitsLoss, ConstantPad1d, ConstantPad2d,
                     ConstantPad3d, Conv1d, Conv2d, Conv3d, ConvTranspose2d, CosineEmbeddingLoss, CrossEntropyLoss, ELU,
                     Flatten, Fold, GELU, GLU, GroupNorm, Hardtanh, KLDivLoss, LogSigmoid, MaxUnpool2d, Mish,
                     MSELoss, NLLLoss, PixelShuffle, ReflectionPad1d, ReflectionPad2d, ReflectionPad3d, ReLU6,
                     ReplicationPad1d, ReplicationPad2d, ReplicationPad3d, SELU, Sigmoid, SiLU, SmoothL1Loss, Softmax,
                     SyncBatchNorm, Tanh, Threshold, Unfold, Upsample, UpsamplingBilinear2d, UpsamplingNearest2d,
                     ZeroPad1d, ZeroPad2d, ZeroPad3d)

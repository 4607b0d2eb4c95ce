"""graphcell.nn: Cells, layers, losses (MindSpore's `mindspore.nn` names)."""
from .cell import Cell, CellList, SequentialCell  # noqa: F401
from .layer import *  # noqa: F401,F403
from .loss import (BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, LossBase, MSELoss, NLLLoss,  # noqa: F401
                   SoftmaxCrossEntropyWithLogits)
from .wrap import WithEvalCell, WithLossCell  # noqa: F401

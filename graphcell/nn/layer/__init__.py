from .basic import *  # noqa: F401,F403
from .conv import Conv1d, Conv1dTranspose, Conv2d, Conv2dTranspose  # noqa: F401
from .normalization import BatchNorm1d, BatchNorm2d, Embedding, LayerNorm  # noqa: F401
from .pooling import AvgPool2d, MaxPool2d  # noqa: F401

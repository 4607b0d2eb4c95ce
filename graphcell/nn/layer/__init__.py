from .basic import *  # noqa: F401,F403
from .conv import Conv1d, Conv1dTranspose, Conv2d, Conv2dTranspose, Conv3d, Conv3dTranspose  # noqa: F401
from .padding import (ConstantPad1d, ConstantPad2d, ConstantPad3d, ReflectionPad1d, ReflectionPad2d,  # noqa: F401
                      ReflectionPad3d, ReplicationPad1d, ReplicationPad2d, ReplicationPad3d, ZeroPad2d)
from .resampling import PixelShuffle, PixelUnshuffle, Unfold, Upsample  # noqa: F401
from .normalization import (BatchNorm1d, BatchNorm2d, BatchNorm3d, Embedding, GroupNorm, InstanceNorm1d,  # noqa: F401
                            InstanceNorm2d, LayerNorm)
from .pooling import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool1d, AdaptiveMaxPool2d,  # noqa: F401
                      AvgPool1d, AvgPool2d, AvgPool3d, MaxPool1d, MaxPool2d, MaxPool3d)
from .rnn_cells import GRUCell, LSTMCell, RNNCell  # noqa: F401
from .rnns import GRU, LSTM, RNN  # noqa: F401
from .transformer import (MultiheadAttention, Transformer, TransformerDecoder, TransformerDecoderLayer,  # noqa: F401
                          TransformerEncoder, TransformerEncoderLayer)
from .gamma_cells import DiGamma, IGamma, LBeta, LGamma  # noqa: F401

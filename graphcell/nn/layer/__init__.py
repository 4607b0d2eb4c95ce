from .basic import *  # noqa: F401,F403
from .linalg_layers import MatDet, MatInverse, MatrixDiag, MatrixDiagPart, MatrixSetDiag, Tril, Triu  # noqa: F401
from .conv import Conv1d, Conv1dTranspose, Conv2d, Conv2dTranspose, Conv3d, Conv3dTranspose  # noqa: F401
from .padding import (ConstantPad1d, ConstantPad2d, ConstantPad3d, ReflectionPad1d, ReflectionPad2d,  # noqa: F401
                      ReflectionPad3d, ReplicationPad1d, ReplicationPad2d, ReplicationPad3d, ZeroPad2d, Pad)
from .resampling import PixelShuffle, PixelUnshuffle, Unfold, Upsample  # noqa: F401
from .normalization import (BatchNorm1d, BatchNorm2d, BatchNorm3d, Embedding, GroupNorm, InstanceNorm1d,  # noqa: F401
                            InstanceNorm2d, InstanceNorm3d, LayerNorm)
from .pooling import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool1d, AdaptiveMaxPool2d,  # noqa: F401
                      AvgPool1d, AvgPool2d, AvgPool3d, MaxPool1d, MaxPool2d, MaxPool3d)
from .rnn_cells import GRUCell, LSTMCell, RNNCell  # noqa: F401
from .rnns import GRU, LSTM, RNN  # noqa: F401
from .transformer import (MultiheadAttention, Transformer, TransformerDecoder, TransformerDecoderLayer,  # noqa: F401
                          TransformerEncoder, TransformerEncoderLayer)
from .channel_layers import (ChannelShuffle, Dropout1d, Dropout2d, Dropout3d, GLU, LRN, RReLU,  # noqa: F401
                             Softmax2d)
from .pooling_more import (AdaptiveAvgPool3d, AdaptiveMaxPool3d, LPPool1d, LPPool2d, MaxUnpool1d,  # noqa: F401
                           MaxUnpool2d, MaxUnpool3d)
from .math_layers import BiDense, MatMul, Moments, Norm, ReduceLogSumExp  # noqa: F401
from .image import CentralCrop, ImageGradients  # noqa: F401
from .image_quality import MSSSIM, PSNR, SSIM  # noqa: F401
from .gamma_cells import DiGamma, IGamma, LBeta, LGamma  # noqa: F401
from .array_layers import OneHot, Range, Roll, Unflatten  # noqa: F401
from .ext_layers import (AvgPool1dExt, AvgPool2dExt, AvgPool3dExt, Dropout2dExt, DropoutExt, EmbeddingExt,  # noqa: F401
                         LayerNormExt, Linear, LogSoftmaxExt, MaxPool2dExt, PReLUExt)
from .misc_cells import ClipByNorm, Conv2dBnAct, DenseBnAct, L1Regularizer, SyncBatchNorm  # noqa: F401
from .embedding_lookup import EmbeddingLookup, MultiFieldEmbeddingLookup  # noqa: F401
from .time_distributed import TimeDistributed  # noqa: F401
from .fractional_pooling import FractionalMaxPool2d, FractionalMaxPool3d  # noqa: F401

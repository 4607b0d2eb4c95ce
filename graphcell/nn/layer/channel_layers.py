"""Layers over MindSpore 2.10's newer functional ops: the channel-wise dropouts, ChannelShuffle,
GLU, RReLU, Softmax2d and LRN. None holds a Parameter (as measured on 2.10)."""
from __future__ import annotations

from ...ops import activations as A
from ...ops import channel_ops as C
from ...ops import functional as F
from ...ops import normalization as N
from ...tensor import Tensor
from ..cell import Cell


class _ChannelDropout(Cell):
    """Zeroes whole channels with probability `p` in training mode (set_train), else the input."""
    _fn = None

    def __init__(self, p=0.5):
        super().__init__()
        if not isinstance(p, float):
            raise TypeError(f"For '{type(self).__name__}', the type of 'p' should be 'float', but got type "
                            f"'{type(p).__name__}'.")
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"For '{type(self).__name__}', the 'p' must be a number in range [0, 1], but got {p}.")
        self.p = p

    def construct(self, x):
        return type(self)._fn(x, self.p, self.training)

    def extend_repr(self):
        return f"p={self.p}"


class Dropout1d(_ChannelDropout):
    """Over [N, C, L] or [C, L]."""
    _fn = staticmethod(C.dropout1d)


class Dropout2d(_ChannelDropout):
    """Over [N, C, H, W]."""
    _fn = staticmethod(C.dropout2d)


class Dropout3d(_ChannelDropout):
    """Over [N, C, D, H, W]."""
    _fn = staticmethod(C.dropout3d)


class ChannelShuffle(Cell):
    def __init__(self, groups):
        super().__init__()
        if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1:
            raise ValueError(f"For 'ChannelShuffle', the 'groups' must be a positive int, but got {groups!r}.")
        self.groups = groups

    def construct(self, x):
        # the Cell regroups any [N, C, ...] (2-D and 3-D too, measured); ops.channel_shuffle wants 4-D+
        if not isinstance(x, Tensor) or x.ndim < 2:
            raise ValueError(f"For 'ChannelShuffle', the input must be a Tensor of at least 2 dimensions [N, C, ...], "
                             f"but got {getattr(x, 'shape', type(x).__name__)}.")
        return C.channel_shuffle(x, self.groups) if x.ndim >= 4 else C.shuffle_channels(x, self.groups)


class GLU(Cell):
    """a * sigmoid(b), the halves of the input along `axis`."""

    def __init__(self, axis=-1):
        super().__init__()
        self.dim = axis

    def construct(self, x):
        return A.glu(x, self.dim)


class RReLU(Cell):
    """Negative inputs times a slope drawn from [lower, upper) per element. MindSpore 2.10 draws
    in evaluation mode too (measured: its slopes differ per element after set_train(False));
    this follows it, where torch would use (lower + upper) / 2."""

    def __init__(self, lower=1 / 8, upper=1 / 3):
        super().__init__()
        for name, value in (("lower", lower), ("upper", upper)):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"For 'RReLU', the type of '{name}' must be int or float, but got "
                                f"{type(value).__name__}.")
        if lower > upper:
            raise ValueError(f"For RReLU, the value of 'upper' must be greater than or equal to 'lower', but got "
                             f"upper: {upper}, lower: {lower}. ")
        self.lower, self.upper = float(lower), float(upper)

    def construct(self, x):
        return A.rrelu(x, self.lower, self.upper)


class Softmax2d(Cell):
    """Softmax over the channels (axis -3) of [N, C, H, W] or [C, H, W]."""

    def construct(self, x):
        if x.ndim not in (3, 4):
            raise ValueError(f"For 'Softmax2d', the in_shape must have 3 or 4 dims, but got {x.ndim}.")
        return F.softmax(x, -3)


class LRN(Cell):
    """ops.lrn with these arguments."""

    def __init__(self, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region="ACROSS_CHANNELS"):
        super().__init__()
        self.depth_radius, self.bias, self.alpha, self.beta = depth_radius, bias, alpha, beta
        self.norm_region = norm_region

    def construct(self, input_x):
        return N.lrn(input_x, self.depth_radius, self.bias, self.alpha, self.beta, self.norm_region)

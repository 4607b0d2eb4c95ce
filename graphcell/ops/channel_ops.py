"""Ops that treat each channel ([N, C, ...]'s axis 1) as one unit: MindSpore 2.10's channel-wise
dropouts (ops.dropout1d/2d/3d) and ops.channel_shuffle. Composite, so every backend, vmap and
grad follow; draws come from graphcell's random state, as ops.dropout's."""
from __future__ import annotations

import numbers

from .. import dtype as mstype
from ..tensor import Tensor
from . import functional as F

__all__ = ["dropout1d", "dropout2d", "dropout3d", "channel_shuffle"]


def channel_dropout(input, p, training, op: str, ranks: tuple, message: str):  # noqa: A002
    """Zeroes whole channels with probability p and scales the kept ones by 1 / (1 - p): one draw
    per (sample, channel), or per channel of an unbatched input (rank ranks[0])."""
    if not isinstance(input, Tensor):
        raise TypeError(f"For {op}, the input must be a Tensor, but got {type(input).__name__}.")
    if not isinstance(p, float):
        raise TypeError(f"For {op}, 'p' must be float, but got type {type(p)}.")
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"For {op}, the 'p' must be a number in range [0, 1], but got {p}.")
    if input.ndim not in ranks:
        raise ValueError(message.format(rank=input.ndim))
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return F.mul(input, 0)
    lead = 1 if input.ndim == ranks[0] and len(ranks) > 1 else 2
    mask_shape = tuple(input.shape[:lead]) + (1,) * (input.ndim - lead)
    wide = input if input.dtype.is_floating else F.cast(input, mstype.float32)
    keep = F.less(F.uniform(mask_shape, dtype=wide.dtype), 1.0 - p)
    out = F.select(keep, F.div(wide, 1.0 - p), F.mul(wide, 0.0))
    return out if out.dtype is input.dtype else F.cast(out, input.dtype)


def dropout1d(input, p=0.5, training=True):  # noqa: A002 - MindSpore's names
    """Channel-wise dropout of [N, C, L] or [C, L] (p a float in [0, 1])."""
    return channel_dropout(input, p, training, "dropout1d", (2, 3),
                           "For dropout1d, input shape should be 2D or 3D, but got {rank}.")


def dropout2d(input, p=0.5, training=True):  # noqa: A002
    """Channel-wise dropout of [N, C, H, W]."""
    return channel_dropout(input, p, training, "dropout2d", (4,),
                           "For primitive[Dropout2D], the rank of input  must be equal to 4 , but got {rank}.")


def dropout3d(input, p=0.5, training=True):  # noqa: A002
    """Channel-wise dropout of [N, C, D, H, W]."""
    return channel_dropout(input, p, training, "dropout3d", (5,),
                           "For primitive[Dropout3D], the rank of input  must be equal to 5 , but got {rank}.")


def channel_shuffle(x, groups):
    """[N, C, ...] with its channels regrouped: viewed as (groups, C / groups), transposed
    (ShuffleNet's shuffle; MindSpore 2.10 asks for at least 4 axes)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"For ChannelShuffle, the input must be a Tensor, but got {type(x).__name__}.")
    if isinstance(groups, bool) or not isinstance(groups, numbers.Integral):
        raise ValueError("For 'ChannelShuffle', attr 'group' must be an positive int number")
    if groups < 1:
        raise ValueError(f"For ChannelShuffle, number of groups to divide channels in must be positive, but got "
                         f"{groups}.")
    if x.ndim < 4:
        raise TypeError(f"For ChannelShuffle, expect input with > 3 dims, but got {x.ndim}.")
    return shuffle_channels(x, groups)


def shuffle_channels(x, groups: int):
    """channel_shuffle's regrouping of axis 1 for any [N, C, ...] (nn.ChannelShuffle takes 2-D
    and 3-D inputs too: measured on MindSpore 2.10, where ops.channel_shuffle refuses them)."""
    channels, rest = x.shape[1], tuple(x.shape[2:])
    if channels % groups:
        raise ValueError("For ChannelShuffle, number of channels must be divisible by groups.")
    grouped = F.reshape(x, (-1, groups, channels // groups) + rest)
    order = (0, 2, 1) + tuple(range(3, grouped.ndim))
    return F.reshape(F.transpose(grouped, order), (-1, channels) + rest)

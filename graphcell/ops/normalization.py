"""Normalisation ops written with the functional layer: MindSpore's ops.group_norm, and the
instance normalisation that nn.InstanceNorm1d/2d compute (MindSpore 2.10 has no ops form)."""
from __future__ import annotations

import numbers

from .. import dtype as mstype
from ..tensor import Tensor
from . import functional as F

__all__ = ["group_norm"]


def _normalize(x, axes: tuple, eps: float):
    """(x - mean) / sqrt(var + eps) over `axes`, with the biased variance."""
    mean = F.mean(x, axes, True)
    centered = F.sub(x, mean)
    var = F.mean(F.square(centered), axes, True)
    return F.mul(centered, F.rsqrt(F.add(var, eps)))


def _affine(normed, weight, bias, dtype):
    """normed * weight + bias, one per channel (axis 1), in the input's dtype."""
    bshape = (-1,) + (1,) * (normed.ndim - 2)
    if weight is not None:
        normed = F.mul(normed, F.reshape(F.as_tensor(weight), bshape))
    if bias is not None:
        normed = F.add(normed, F.reshape(F.as_tensor(bias), bshape))
    return F.cast(normed, dtype)


def _float_input(x, op: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', the input must be a Tensor, but got {type(x).__name__}.")
    if not x.dtype.is_floating:
        raise TypeError(f"For '{op}', the input must be a float Tensor, but got {x.dtype}.")
    return x


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):  # noqa: A002 - MindSpore's names
    """Normalises [N, C, ...] over each group of C/num_groups channels and the remaining axes
    (biased variance), then `weight` and `bias` per channel (none: 1 and 0). Computed in float32
    or wider (float16 input is cast back)."""
    x = _float_input(input, "group_norm")
    if x.ndim < 2:
        raise ValueError(f"For 'group_norm', the input must be [N, C, ...], but got shape {list(x.shape)}.")
    if isinstance(num_groups, bool) or not isinstance(num_groups, numbers.Integral) or num_groups < 1:
        raise ValueError(f"For 'group_norm', 'num_groups' must be a positive int, but got {num_groups!r}.")
    channels = x.shape[1]
    if channels % num_groups:
        raise ValueError(f"For GroupNorm, the 'num_channels' must be divided by 'num_groups', but got "
                         f"'num_channels': {channels} ,'num_groups': {num_groups}")
    wide = x if x.dtype is not mstype.float16 else F.cast(x, mstype.float32)
    # -1 for the batch: the same constant at every batch size (a dynamic-batch export needs it)
    grouped = F.reshape(wide, (-1, num_groups, channels // num_groups) + tuple(x.shape[2:]))
    normed = F.reshape(_normalize(grouped, tuple(range(2, grouped.ndim)), eps), (-1,) + tuple(x.shape[1:]))
    return _affine(normed, weight, bias, x.dtype)


def instance_norm(x, weight=None, bias=None, eps=1e-5):
    """Normalises each sample's channel of [N, C, ...] over its other axes (biased variance),
    then `weight` and `bias` per channel."""
    x = _float_input(x, "instance_norm")
    wide = x if x.dtype is not mstype.float16 else F.cast(x, mstype.float32)
    return _affine(_normalize(wide, tuple(range(2, x.ndim)), eps), weight, bias, x.dtype)

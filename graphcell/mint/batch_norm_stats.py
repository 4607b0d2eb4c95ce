"""mint's pieces of a synchronised batch norm, torch's semantics (SyncBatchNorm's building
blocks): per-channel statistics of one shard (`batch_norm_stats`), their merge across shards
weighted by element counts (`batch_norm_gather_stats_with_counts`, which also updates the
running statistics in place), and the normalisation itself (`batch_norm_elemt`). Channels
are axis 1. MindSpore 2.10's CPU build has no kernel for them ("The kernel BatchNormStats
unregistered", measured), nor has torch's CPU build: they are checked against numpy."""
from __future__ import annotations

from ..ops import functional as F
from ..ops.scatter_inplace import write_back
from ..tensor import Tensor

__all__ = ["batch_norm_stats", "batch_norm_elemt", "batch_norm_gather_stats_with_counts"]


def _channels_input(op: str, input) -> Tensor:  # noqa: A002
    if not isinstance(input, Tensor):
        raise TypeError(f"For '{op}', 'input' must be a Tensor, but got {type(input).__name__}.")
    if input.ndim < 2:
        raise ValueError(f"For '{op}', 'input' must have at least 2 dimensions [N, C, ...], "
                         f"but got shape {list(input.shape)}.")
    if not input.dtype.is_floating:
        raise TypeError(f"For '{op}', 'input' must be a float Tensor, but got {input.dtype}.")
    return input


def _per_channel(t: Tensor, ndim: int) -> Tensor:
    """A [C] vector shaped to broadcast against [N, C, ...]."""
    return F.reshape(t, (1, -1) + (1,) * (ndim - 2))


def batch_norm_stats(input, eps):  # noqa: A002 - torch's names
    """(mean, invstd) over every axis but the channel axis 1: invstd = 1 / sqrt(var + eps),
    var the biased variance."""
    x = _channels_input("batch_norm_stats", input)
    axes = (0,) + tuple(range(2, x.ndim))
    mean = F.mean(x, axes, keep_dims=True)
    var = F.mean(F.square(F.sub(x, mean)), axes)
    return F.reshape(mean, (-1,)), F.rsqrt(F.add(var, float(eps)))


def batch_norm_elemt(input, weight=None, bias=None, mean=None, invstd=None, eps=1e-5):  # noqa: A002
    """(input - mean) * invstd * weight + bias per channel (axis 1); weight and bias optional.
    `eps` is not used (invstd has it already), as in torch."""
    x = _channels_input("batch_norm_elemt", input)
    if mean is None or invstd is None:
        raise TypeError("For 'batch_norm_elemt', 'mean' and 'invstd' must be Tensors, not None.")
    y = F.mul(F.sub(x, _per_channel(mean, x.ndim)), _per_channel(invstd, x.ndim))
    if weight is not None:
        y = F.mul(y, _per_channel(weight, x.ndim))
    if bias is not None:
        y = F.add(y, _per_channel(bias, x.ndim))
    return y


def batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean=None, running_var=None,  # noqa: A002
                                        momentum=0.1, eps=1e-5, counts=None):
    """The global (mean, invstd) of G shards' statistics (`mean`, `invstd`: [G, C]; `counts`:
    [G] elements per channel in each shard), as a parallel variance merge. `running_mean` and
    `running_var`, when given, are updated in place: (1 - momentum) * running + momentum *
    batch value, with the unbiased variance. `input` gives only the dtype, as in torch."""
    op = "batch_norm_gather_stats_with_counts"
    _channels_input(op, input)
    if counts is None:
        raise TypeError(f"For '{op}', 'counts' must be a Tensor of the shards' element counts, not None.")
    if mean.ndim != 2 or invstd.shape != mean.shape:
        raise ValueError(f"For '{op}', 'mean' and 'invstd' must both be [shards, channels], but got "
                         f"{list(mean.shape)} and {list(invstd.shape)}.")
    c = F.reshape(F.cast(counts, mean.dtype), (-1, 1))
    n = F.reduce_sum(c)
    total_mean = F.div(F.reduce_sum(F.mul(c, mean), 0), n)
    var = F.sub(F.reciprocal(F.square(invstd)), float(eps))   # each shard's biased variance
    spread = F.add(var, F.square(F.sub(mean, total_mean)))
    total_var = F.div(F.reduce_sum(F.mul(c, spread), 0), n)
    if running_mean is not None:
        write_back(op, running_mean, F.add(F.mul(running_mean, 1.0 - momentum), F.mul(total_mean, float(momentum))))
    if running_var is not None:
        unbiased = F.mul(total_var, F.div(n, F.sub(n, 1.0)))
        write_back(op, running_var, F.add(F.mul(running_var, 1.0 - momentum), F.mul(unbiased, float(momentum))))
    return F.cast(total_mean, input.dtype), F.cast(F.rsqrt(F.add(total_var, float(eps))), input.dtype)

"""Regression, margin and distance losses with MindSpore 2.10's names, defaults and formulas
(measured on MindSpore 2.10 CPU where its kernels run there; else torch's formulas, which
2.10's documents give): mse_loss, l1_loss, gaussian_nll_loss, hinge_embedding_loss,
soft_margin_loss, triplet_margin_loss. `poisson_nll_loss` (nn.PoissonNLLLoss's; 2.10 has no
ops form) and `triplet_distance_loss` serve nn's Cells.
"""
from __future__ import annotations

import math

from .. import dtype as mstype
from ..tensor import Tensor
from . import functional as F
from .composite import norm
from .losses import _floats, _number, _same_dtype, _tensor, check_reduction, reduce_loss

__all__ = ["mse_loss", "l1_loss", "gaussian_nll_loss", "hinge_embedding_loss", "soft_margin_loss",
           "triplet_margin_loss"]


def _operands(op: str, input, target):  # noqa: A002
    for name, value in (("input", input), ("target", target)):
        if not isinstance(value, Tensor):
            raise TypeError(f"For {op}, the `{name}` must be tensor, but got {type(value).__name__}.")
    return F._pair(input, target)


def mse_loss(input, target, reduction="mean"):  # noqa: A002
    """(input - target)**2, broadcast; integers count in float32 (as measured)."""
    x, y = _operands("ops.mse_loss", input, target)
    check_reduction(reduction, "mse_loss")
    if not x.dtype.is_floating:
        x, y = F.cast(x, mstype.float32), F.cast(y, mstype.float32)
    return reduce_loss(F.square(F.sub(x, y)), reduction)


def l1_loss(input, target, reduction="mean"):  # noqa: A002
    """|input - target|, broadcast. Integers stay integers, the mean truncated (MindSpore 2.10:
    l1_loss of int32 [1, 2] and [0, 0] is 1)."""
    x, y = _operands("ops.l1_loss", input, target)
    check_reduction(reduction, "l1_loss")
    loss = F.abs(F.sub(x, y))
    if reduction == "mean" and not loss.dtype.is_floating:
        return F.cast(F.mean(F.cast(loss, mstype.float64)), loss.dtype)
    return reduce_loss(loss, reduction)


def gaussian_nll_loss(x, target, var, full=False, eps=1e-06, reduction="mean"):
    """0.5 * (log(var) + (x - target)**2 / var), plus 0.5 * log(2 pi) with `full`; var below
    `eps` counts as eps and gets no gradient there (MindSpore's clamp, measured: a negative var
    is clamped too, where torch raises). var may lack x's last axis, or have it of size 1; the
    rest broadcasts. Integers count in float32."""
    op = "gaussian_nll_loss"
    for name, value in (("x", x), ("target", target), ("var", var)):
        _tensor(value, name, op)
    if not isinstance(full, bool):
        raise TypeError(f"For '{op}', 'full' must be a bool, but got {type(full)}.")
    if isinstance(eps, bool) or not isinstance(eps, float) or eps <= 0:
        raise ValueError(f"For '{op}', 'eps' must be a positive float, but got {eps}.")
    check_reduction(reduction, op)
    if var.ndim == x.ndim - 1 and tuple(var.shape) == tuple(x.shape[:-1]):
        var = F.expand_dims(var, -1)         # one variance per sample, for every feature
    dtype = x.dtype if x.dtype.is_floating else mstype.float32
    x, target, var = (F.cast(v, dtype) for v in (x, target, var))
    var = F.select(F.less(var, eps), F.cast(eps, dtype), var)
    loss = F.mul(F.add(F.log(var), F.div(F.square(F.sub(x, target)), var)), 0.5)
    if full:
        loss = F.add(loss, 0.5 * math.log(2 * math.pi))
    return reduce_loss(loss, reduction)


def hinge_embedding_loss(inputs, targets, margin=1.0, reduction="mean"):
    """inputs where targets == 1, max(0, margin - inputs) where targets == -1, and 0 for any
    other target (MindSpore selects on the two values, measured; torch adds both terms there).
    Broadcast; targets must be float."""
    op = "hinge_embedding_loss"
    _tensor(inputs, "inputs", op)
    _tensor(targets, "targets", op)
    if not targets.dtype.is_floating:
        raise TypeError(f"For 'HingeEmbeddingLoss', the dtype of the second input must be float, but got "
                        f"{targets.dtype}.")
    _number(margin, "margin", op)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"For 'HingeEmbeddingLoss', 'reduction' must be one of 'none', 'mean', 'sum', but got "
                         f"{reduction}.")
    x, t = F._pair(inputs, targets)
    pos = F.select(F.equal(t, 1.0), x, 0.0)
    neg = F.select(F.equal(t, -1.0), F.relu(F.sub(float(margin), x)), 0.0)
    return reduce_loss(F.add(pos, neg), reduction)


def soft_margin_loss(input, target, reduction="mean"):  # noqa: A002
    """log(1 + exp(-target * input)), broadcast.

    MindSpore 2.10 has no CPU kernel for it (measured: 'The kernel SoftMarginLoss
    unregistered'); this is torch's formula, which MindSpore's documents give."""
    op = "soft_margin_loss"
    _floats(op, input=input, target=target)
    check_reduction(reduction, op)
    x, y = F._pair(input, target)
    return reduce_loss(F.softplus(F.neg(F.mul(x, y))), reduction)


def _distance(a, b, p, eps: float):
    """The p-norm of a - b (+ eps, torch's pairwise_distance) over axis 1, MindSpore's axis
    (measured on nn.TripletMarginWithDistanceLoss: a [3, 2, 2] input gives [3, 2])."""
    diff = F.sub(a, b)
    return norm(F.add(diff, eps) if eps else diff, p, 1)


def triplet_distance_loss(dist_pos, dist_neg, dist_swap, margin: float, reduction: str):
    """max(0, d(a, p) - d(a, n) + margin), with d(a, n) the smaller of it and d(p, n) when
    `dist_swap` is given."""
    if dist_swap is not None:
        dist_neg = F.minimum(dist_neg, dist_swap)
    return reduce_loss(F.relu(F.add(F.sub(dist_pos, dist_neg), float(margin))), reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False, reduction="mean"):
    """max(0, |a - p + eps|_p - |a - n + eps|_p + margin), the norms over axis 1; `swap` takes
    the smaller of |a - n| and |p - n|.

    MindSpore 2.10 has no CPU kernel for it (measured: 'Unsupported op [TripletMarginLoss] on
    CPU'); this is torch's formula (its documents'), the norm over axis 1 as MindSpore's
    TripletMarginWithDistanceLoss takes it (torch takes the last axis: the two agree on
    [N, D])."""
    op = "triplet_margin_loss"
    for name, value in (("anchor", anchor), ("positive", positive), ("negative", negative)):
        _tensor(value, name, op)
    _same_dtype(op, "anchor", anchor, "positive", positive)
    _same_dtype(op, "anchor", anchor, "negative", negative)
    _number(margin, "margin", op, (float,))
    _number(p, "p", op, (int,))
    _number(eps, "eps", op, (float,))
    if not isinstance(swap, bool):
        raise TypeError(f"For '{op}', the type of 'swap' should be bool, but got type '{type(swap).__name__}'.")
    check_reduction(reduction, op)
    if max(anchor.ndim, positive.ndim, negative.ndim) <= 1:
        raise ValueError(f"For '{op}', the inputs must be [N, D, ...] (the distance is over axis 1), but got ranks "
                         f"{anchor.ndim}, {positive.ndim} and {negative.ndim}.")
    dist_swap = _distance(positive, negative, p, eps) if swap else None
    return triplet_distance_loss(_distance(anchor, positive, p, eps), _distance(anchor, negative, p, eps),
                                 dist_swap, margin, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, eps=1e-08, reduction="mean"):  # noqa: A002
    """exp(input) - target * input with `log_input`, else input - target * log(input + eps);
    `full` adds Stirling's target * log(target) - target + 0.5 * log(2 pi target) where target
    > 1 (torch's formula; MindSpore 2.10's values, measured)."""
    op = "PoissonNLLLoss"
    _floats(op, input=input)
    x, y = F._pair(input, _tensor(target, "target", op))
    if log_input:
        loss = F.sub(F.exp(x), F.mul(y, x))
    else:
        loss = F.sub(x, F.mul(y, F.log(F.add(x, float(eps)))))
    if full:
        big = F.greater(y, 1.0)
        safe = F.select(big, y, 1.0)            # log(y) never sees y <= 0
        stirling = F.add(F.sub(F.mul(safe, F.log(safe)), safe), F.mul(F.log(F.mul(safe, 2 * math.pi)), 0.5))
        loss = F.add(loss, F.select(big, stirling, 0.0))
    return reduce_loss(loss, reduction)

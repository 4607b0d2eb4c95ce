"""Loss functions with MindSpore 2.10's names, defaults, checks and formulas (each measured on
MindSpore 2.10 CPU), written with the functional layer. nn's loss Cells call them.

Reductions are MindSpore's: 'none', 'mean' (over every element), 'sum'; kl_div also takes
'batchmean' (the sum over the first axis' size).
"""
from __future__ import annotations

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from . import functional as F

__all__ = ["smooth_l1_loss", "huber_loss", "binary_cross_entropy", "kl_div", "cosine_embedding_loss",
           "margin_ranking_loss"]

_REDUCTIONS = ("mean", "sum", "none")


def check_reduction(reduction, op: str, allowed=_REDUCTIONS) -> str:
    if reduction not in allowed:
        raise ValueError(f"For '{op}', the 'reduction' must be in {list(allowed)}, but got {reduction}.")
    return reduction


def reduce_loss(loss, reduction: str):
    if reduction == "mean":
        return F.mean(loss)
    if reduction == "sum":
        return F.reduce_sum(loss)
    return loss


def _tensor(x, name: str, op: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got {type(x).__name__}.")
    return x


def _floats(op: str, **named) -> None:
    for name, x in named.items():
        if not _tensor(x, name, op).dtype.is_floating:
            raise TypeError(f"For '{op}', '{name}' must be a float Tensor (float16, float32 or float64), but got "
                            f"{x.dtype}.")


def _same_shape(op: str, a_name: str, a, b_name: str, b) -> None:
    if tuple(a.shape) != tuple(b.shape):
        raise ValueError(f"For '{op}', '{a_name}' and '{b_name}' must have one shape (no broadcasting), but got "
                         f"{list(a.shape)} and {list(b.shape)}.")


def _same_dtype(op: str, a_name: str, a, b_name: str, b) -> None:
    if a.dtype is not b.dtype:
        raise TypeError(f"For '{op}', '{a_name}' and '{b_name}' must have one dtype, but got {a.dtype} and "
                        f"{b.dtype}.")


def _number(value, name: str, op: str, kinds=(int, float)):
    if isinstance(value, bool) or not isinstance(value, kinds):
        wanted = " or ".join(k.__name__ for k in kinds)
        raise TypeError(f"For '{op}', the type of '{name}' should be {wanted}, but got type '{type(value).__name__}'.")
    return value


def smooth_l1_loss(input, target, beta=1.0, reduction="none"):  # noqa: A002 - MindSpore's names
    """0.5 * d**2 / beta where |d| < beta, else |d| - 0.5 * beta, with d = input - target.
    `input` and `target` are float and of one shape (MindSpore's SmoothL1Loss does not
    broadcast); beta > 0. Default reduction 'none'."""
    op = "smooth_l1_loss"
    _floats(op, input=input, target=target)
    _same_shape(op, "input", input, "target", target)
    _number(beta, "beta", op)
    if beta <= 0:
        raise ValueError(f"For '{op}', 'beta' must be greater than 0, but got {beta}.")
    check_reduction(reduction, op)
    diff = F.abs(F.sub(input, target))
    quadratic = F.div(F.mul(F.square(diff), 0.5), float(beta))
    return reduce_loss(F.select(F.less(diff, float(beta)), quadratic, F.sub(diff, 0.5 * beta)), reduction)


def huber_loss(input, target, reduction="mean", delta=1.0):  # noqa: A002
    """0.5 * d**2 where |d| < delta, else delta * (|d| - 0.5 * delta), with d = input - target
    (broadcast; integers count in float32). delta > 0."""
    op = "huber_loss"
    x, y = F._pair(_tensor(input, "input", op), _tensor(target, "target", op))
    _number(delta, "delta", op)
    if delta <= 0:
        raise ValueError(f"For '{op}', the argument 'delta' must > 0.0, but got {delta}.")
    check_reduction(reduction, op)
    if not x.dtype.is_floating:
        x, y = F.cast(x, mstype.float32), F.cast(y, mstype.float32)
    diff = F.abs(F.sub(x, y))
    linear = F.mul(F.sub(diff, 0.5 * delta), float(delta))
    return reduce_loss(F.select(F.less(diff, float(delta)), F.mul(F.square(diff), 0.5), linear), reduction)


def binary_cross_entropy(logits, labels, weight=None, reduction="mean"):
    """-weight * (labels * log(logits + 1e-12) + (1 - labels) * log(1 - logits + 1e-12)), on
    probabilities `logits` (MindSpore's name) and `labels` of one shape and float dtype; `weight`
    (same dtype) broadcasts to them.

    The values are MindSpore's (its kernel adds 1e-12 inside the logs; torch clamps the logs at
    -100 instead). The gradient is this formula's: MindSpore's kernel uses torch's
    (logits - labels) / max(logits * (1 - logits), 1e-12), which agrees except where a logit
    is within about 1e-6 of 0 or 1."""
    op = "binary_cross_entropy"
    _floats(op, logits=logits, labels=labels)
    _same_shape(op, "logits", logits, "labels", labels)
    _same_dtype(op, "logits", logits, "labels", labels)
    check_reduction(reduction, op)
    eps = 1e-12
    pos = F.mul(labels, F.log(F.add(logits, eps)))
    # -(p - 1), not 1 - p: XLA folds (1 - p) + 1e-12 into (1 + 1e-12) - p, which is log(0) at p == 1
    # (a saturated sigmoid), where MindSpore gives log(1e-12)
    neg = F.mul(F.sub(1.0, labels), F.log(F.add(F.neg(F.sub(logits, 1.0)), eps)))
    loss = F.neg(F.add(pos, neg))
    if weight is not None:
        weight = _tensor(weight, "weight", op)
        _same_dtype(op, "logits", logits, "weight", weight)
        try:
            fits = np.broadcast_shapes(weight.shape, logits.shape) == tuple(logits.shape)
        except ValueError:
            fits = False
        if not fits:
            raise ValueError(f"For '{op}', the shape of 'weight' {list(weight.shape)} can not broadcast to the "
                             f"shape of 'logits' {list(logits.shape)}.")
        loss = F.mul(loss, weight)
    return reduce_loss(loss, reduction)


def kl_div(logits, labels, reduction="mean"):
    """labels * (log(labels) - logits) where labels > 0, else 0; `logits` are log-probabilities.
    'mean' divides the sum by the element count, 'batchmean' by the first axis' size.

    `labels` get no gradient, as in MindSpore 2.10 (its KLDivLoss gradient is for the logits
    only: ops.grad gives zeros for the labels)."""
    op = "kl_div"
    check_reduction(reduction, "KLDivLoss", ("none", "mean", "batchmean", "sum"))
    _floats(op, logits=logits, labels=labels)
    _same_shape(op, "logits", logits, "labels", labels)
    _same_dtype(op, "logits", logits, "labels", labels)
    labels = F.stop_gradient(labels)
    positive = F.greater(labels, 0)
    safe = F.select(positive, labels, 1.0)     # log(0) never computed
    loss = F.select(positive, F.mul(labels, F.sub(F.log(safe), logits)), 0.0)
    if reduction == "batchmean":
        if logits.ndim == 0:
            raise ValueError(f"For '{op}', reduction 'batchmean' needs a batch axis, but got a 0-d input.")
        return F.div(F.reduce_sum(loss), F.element_count(loss, 0, loss.dtype))
    return reduce_loss(loss, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """Per sample, the cosine similarity c of input1 and input2 over axis 1: 1 - c where
    target == 1, max(0, c - margin) where target == -1, and 0 for any other target value (as
    MindSpore, which selects on the two values). c = <x1, x2> / (|x1| |x2|) with no epsilon: a
    zero vector gives NaN, as in MindSpore. margin is in [-1, 1]."""
    op = "cosine_embedding_loss"
    for name, value in (("input1", input1), ("input2", input2), ("target", target)):
        _tensor(value, name, op)
    _number(margin, "margin", op)
    if not -1.0 <= margin <= 1.0:
        raise ValueError(f"For '{op}', the 'margin' must be in range of [-1.0, 1.0], but got {margin}.")
    check_reduction(reduction, op)
    _same_shape(op, "input1", input1, "input2", input2)
    _same_dtype(op, "input1", input1, "input2", input2)
    if input1.ndim < 2:
        raise ValueError(f"For '{op}', the inputs must be [N, D, ...] (the cosine is over axis 1), but got shape "
                         f"{list(input1.shape)}.")
    if target.dtype is mstype.bool_:
        target = F.cast(target, mstype.int32)   # True counts as 1, False as neither 1 nor -1
    dot = F.reduce_sum(F.mul(input1, input2), 1)
    norms = F.mul(F.sqrt(F.reduce_sum(F.square(input1), 1)), F.sqrt(F.reduce_sum(F.square(input2), 1)))
    cosine = F.div(dot, norms)
    pos = F.select(F.equal(target, 1), F.sub(1.0, cosine), 0.0)
    # MindSpore's Maximum gives 0 for max(NaN, 0): a zero vector's NaN cosine costs nothing where target == -1
    hinge = F.sub(cosine, float(margin))
    hinge = F.select(F.equal(hinge, hinge), hinge, 0.0)
    neg = F.select(F.equal(target, -1), F.maximum(hinge, 0.0), 0.0)
    return reduce_loss(F.add(pos, neg), reduction)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """max(0, -target * (input1 - input2) + margin), broadcast; the three of one dtype. The
    gradient passes where the hinge is exactly 0 (MindSpore's clamp)."""
    op = "margin_ranking_loss"
    for name, value in (("input1", input1), ("input2", input2), ("target", target)):
        _tensor(value, name, op)
    _number(margin, "margin", op, (float,))
    check_reduction(reduction, op)
    _same_dtype(op, "input1", input1, "input2", input2)
    if target.dtype is not input1.dtype:
        raise TypeError(f"For {op}, the target dtype should be equal to input1 dtype, but got target dtype:"
                        f"{target.dtype}, input1 dtype:{input1.dtype}.")
    hinge = F.add(F.mul(F.neg(target), F.sub(input1, input2)), float(margin))
    return reduce_loss(F.select(F.less(hinge, 0), 0.0, hinge), reduction)

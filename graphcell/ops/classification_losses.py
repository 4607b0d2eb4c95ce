"""Classification losses with MindSpore 2.10's names, defaults and formulas (measured on
MindSpore 2.10 CPU, where its kernels run there; else torch's formulas, which 2.10's documents
give): cross_entropy, nll_loss, binary_cross_entropy_with_logits, multi_margin_loss,
multilabel_margin_loss, multilabel_soft_margin_loss. nn's loss Cells call them.

Class indices: the class axis is 1 (0 for an unbatched 1-D input); a negative index other than
`ignore_index` counts from the end, as MindSpore's GatherD does. Eagerly, an index out of
[-C, C) raises; traced indices cannot be read, and one out of range picks no class.
"""
from __future__ import annotations

import numpy as np

from .. import dtype as mstype
from . import functional as F
from .losses import _floats, _number, _tensor, check_reduction, reduce_loss
from .sorting import cumsum

__all__ = ["cross_entropy", "nll_loss", "binary_cross_entropy_with_logits", "multi_margin_loss",
           "multilabel_margin_loss", "multilabel_soft_margin_loss"]


def class_axis(x) -> int:
    return 1 if x.ndim > 1 else 0


def per_class(weight, axis: int, ndim: int):
    """A [C] weight shaped to broadcast along the class axis of an ndim-D input."""
    return F.reshape(weight, tuple(-1 if a == axis else 1 for a in range(ndim)))


def _check_target_values(op: str, target, n_classes: int, low: int, ignore=None) -> None:
    """Eager integer targets must lie in [low, n_classes) (or equal `ignore`), as MindSpore's
    kernels check; traced ones cannot be read."""
    if target.is_symbolic or target.size == 0:
        return
    values = np.asarray(target.asnumpy())
    bad = values[((values < low) | (values >= n_classes)) & ((values != ignore) if ignore is not None else True)]
    if bad.size:
        raise ValueError(f"For '{op}', the value of 'target' must be in [{low}, {n_classes}), but got: "
                         f"{bad.flat[0]}.")


def _class_weight(op: str, weight, logp, n_classes: int):
    if weight is None:
        return None
    weight = _tensor(weight, "weight", op)
    if tuple(weight.shape) != (n_classes,):
        raise ValueError(f"For '{op}', 'weight' must be a 1-D Tensor of the {n_classes} classes, but got shape "
                         f"{list(weight.shape)}.")
    return F.cast(weight, logp.dtype)


def _indexed_nll(op, logp, target, weight, ignore_index, reduction, label_smoothing):
    """-logp at the target class (times its weight) over log-probabilities `logp`, with
    `ignore_index` entries costing 0, and with label smoothing ls: (1 - ls) * that + ls / C *
    the weighted sum over every class. 'mean' divides by the targets' total weight (torch's and
    MindSpore's rule; NaN when every target is ignored)."""
    axis = class_axis(logp)
    n_classes = logp.shape[axis]
    expected = tuple(d for a, d in enumerate(logp.shape) if a != axis)
    if not target.dtype.is_integer:
        raise TypeError(f"For '{op}', 'target' must be an integer Tensor (int32 or int64), but got {target.dtype}.")
    if tuple(target.shape) != expected:
        raise ValueError(f"For '{op}', 'target' must have the input's shape without its class axis {axis}, "
                         f"{list(expected)}, but got {list(target.shape)}.")
    _check_target_values(op, target, n_classes, -n_classes, ignore_index)
    weight = _class_weight(op, weight, logp, n_classes)
    valid = F.cast(F.not_equal(target, ignore_index), logp.dtype)
    index = F.select(F.not_equal(target, ignore_index), target, 0)
    index = F.select(F.less(index, 0), F.add(index, n_classes), index)
    hot = F.one_hot(index, n_classes, axis=axis, dtype=logp.dtype)
    wide = per_class(weight, axis, logp.ndim) if weight is not None else None
    target_weight = F.mul(F.reduce_sum(F.mul(hot, wide), axis), valid) if wide is not None else valid
    loss = F.mul(F.neg(F.reduce_sum(F.mul(hot, logp), axis)), target_weight)
    if label_smoothing > 0:
        every = F.mul(logp, wide) if wide is not None else logp
        smooth = F.mul(F.neg(F.reduce_sum(every, axis)), valid)
        loss = F.add(F.mul(loss, 1.0 - label_smoothing), F.mul(smooth, label_smoothing / n_classes))
    if reduction == "mean":
        return F.div(F.reduce_sum(loss), F.reduce_sum(target_weight))
    return reduce_loss(loss, reduction)


def _check_smoothing(op: str, label_smoothing) -> float:
    # MindSpore 2.10 takes any float here (1.5 runs: measured), so no range is checked
    return float(_number(label_smoothing, "label_smoothing", op))


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):  # noqa: A002
    """Cross entropy of softmax(input) over the class axis (1, or 0 for a 1-D input) against
    class indices (an integer `target` without the class axis) or class probabilities (a float
    `target` of the input's shape). `weight`: one per class (cast to the input's dtype);
    `label_smoothing` ls mixes the target with the uniform distribution, (1 - ls) * target +
    ls / C. With indices, 'mean' divides by the targets' total weight."""
    op = "cross_entropy"
    input = _tensor(input, "input", op)  # noqa: A001
    target = _tensor(target, "target", op)
    if not input.dtype.is_floating:
        raise TypeError(f"For '{op}', the input dtype should be float16, float32 or float64, but got dtype: "
                        f"{input.dtype}.")
    check_reduction(reduction, op)
    label_smoothing = _check_smoothing(op, label_smoothing)
    axis = class_axis(input)
    logp = F.log_softmax(input, axis)
    if target.dtype.is_integer:
        return _indexed_nll(op, logp, target, weight, ignore_index, reduction, label_smoothing)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"For '{op}', class probabilities 'target' must have the input's shape "
                         f"{list(input.shape)}, but got {list(target.shape)}.")
    n_classes = input.shape[axis]
    target = F.cast(target, logp.dtype)
    if label_smoothing > 0:
        target = F.add(F.mul(target, 1.0 - label_smoothing), label_smoothing / n_classes)
    weight = _class_weight(op, weight, logp, n_classes)
    every = F.mul(logp, per_class(weight, axis, logp.ndim)) if weight is not None else logp
    return reduce_loss(F.neg(F.reduce_sum(F.mul(target, every), axis)), reduction)


def nll_loss(inputs, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    """-inputs at the target class over log-probabilities `inputs` [N, C, ...] (or [C]), times
    the class's `weight`; `ignore_index` targets cost 0; label smoothing as cross_entropy's.
    'mean' divides by the targets' total weight.

    MindSpore 2.10 returns the unreduced losses for an unknown `reduction` (measured: 'bad'
    gives 'none''s result); graphcell raises, as its other losses do."""
    op = "nll_loss"
    _floats(op, inputs=inputs)
    target = _tensor(target, "target", op)
    check_reduction(reduction, op)
    label_smoothing = _check_smoothing(op, label_smoothing)
    return _indexed_nll(op, inputs, target, weight, ignore_index, reduction, label_smoothing)


def _broadcast_to_input(op: str, name: str, value, input):  # noqa: A002
    value = F.cast(_tensor(value, name, op), input.dtype)
    try:
        fits = np.broadcast_shapes(value.shape, input.shape) == tuple(input.shape)
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"For '{op}', the shape of '{name}' {list(value.shape)} can not broadcast to the input's "
                         f"shape {list(input.shape)}.")
    return value


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction="mean"):  # noqa: A002
    """-weight * (pos_weight * target * log(sigmoid(input)) + (1 - target) * log(1 - sigmoid(input))),
    computed as softplus terms that never overflow. `input` and `target` are float and of one
    shape (a float16 and a float32 meet in float32, as measured); `weight` and `pos_weight`
    (one per class, the last axis) broadcast to them."""
    op = "binary_cross_entropy_with_logits"
    _floats(op, input=input, target=target)
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(f"For '{op}', 'input' and 'target' must have one shape, but got {list(input.shape)} and "
                         f"{list(target.shape)}.")
    check_reduction(reduction, op)
    x, y = F._pair(input, target)
    # -log(1 - sigmoid(x)) = softplus(x) = max(x, 0) + log1p(exp(-|x|)): exp never overflows
    soft_plus = F.add(F.relu(x), F.log1p(F.exp(F.neg(F.abs(x)))))
    if pos_weight is None:
        loss = F.sub(soft_plus, F.mul(x, y))
    else:   # pos_weight*y*softplus(-x) + (1-y)*softplus(x), softplus(-x) = softplus(x) - x
        pw = _broadcast_to_input(op, "pos_weight", pos_weight, x)
        loss = F.add(F.mul(F.mul(pw, y), F.sub(soft_plus, x)), F.mul(F.sub(1.0, y), soft_plus))
    if weight is not None:
        loss = F.mul(loss, _broadcast_to_input(op, "weight", weight, x))
    return reduce_loss(loss, reduction)


def multi_margin_loss(input, target, p=1, margin=1, weight=None, reduction="mean"):  # noqa: A002
    """Per sample of input [N, C]: sum over j != y of weight[y] * max(0, margin - x[y] + x[j])**p,
    divided by C; p is 1 or 2.

    MindSpore 2.10's ops form takes an int margin only and int64 targets only (measured; its
    nn.MultiMarginLoss takes a float margin): graphcell takes an int or a float margin and any
    integer targets."""
    op = "multi_margin_loss"
    _floats(op, input=input)
    target = _tensor(target, "target", op)
    _number(margin, "margin", op)
    if isinstance(p, bool) or p not in (1, 2):
        raise ValueError(f"For 'MultiMarginLoss', the 'p' must be int and must in {{1, 2}}, but got '{p}'.")
    check_reduction(reduction, op)
    if input.ndim != 2 or target.ndim != 1 or target.shape[0] != input.shape[0]:
        raise ValueError(f"For '{op}', the input must be [N, C] and the target [N], but got shapes "
                         f"{list(input.shape)} and {list(target.shape)}.")
    if not target.dtype.is_integer:
        raise TypeError(f"For '{op}', 'target' must be an integer Tensor, but got {target.dtype}.")
    n_classes = input.shape[1]
    _check_target_values(op, target, n_classes, 0)
    hot = F.one_hot(target, n_classes, dtype=input.dtype)
    picked = F.expand_dims(F.reduce_sum(F.mul(hot, input), 1), 1)
    hinge = F.relu(F.add(F.sub(input, picked), float(margin)))
    if p == 2:
        hinge = F.square(hinge)
    hinge = F.mul(hinge, F.sub(1.0, hot))          # j == y costs nothing
    if weight is not None:
        weight = _tensor(weight, "weight", op)
        if weight.dtype is not input.dtype:
            raise TypeError(f"For '{op}', 'weight' must have the input's dtype {input.dtype}, but got "
                            f"{weight.dtype}.")
        hinge = F.mul(hinge, F.expand_dims(F.reduce_sum(F.mul(hot, weight), 1), 1))
    return reduce_loss(F.div(F.reduce_sum(hinge, 1), float(n_classes)), reduction)


def multilabel_margin_loss(input, target, reduction="mean"):  # noqa: A002
    """Per sample of input [N, C] (or [C]): sum over the target classes j and the other classes
    i of max(0, 1 - (x[j] - x[i])), divided by C. `target` (integers, the input's shape) lists
    the target classes, ended by the first -1.

    MindSpore 2.10 has no CPU kernel for it (measured: 'Unsupported op [MultilabelMarginLoss]
    on CPU'); this is torch's formula, which MindSpore's documents give."""
    op = "multilabel_margin_loss"
    _floats(op, input=input)
    target = _tensor(target, "target", op)
    check_reduction(reduction, op)
    if input.ndim not in (1, 2) or tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"For '{op}', the input must be [C] or [N, C] and the target of its shape, but got "
                         f"{list(input.shape)} and {list(target.shape)}.")
    if not target.dtype.is_integer:
        raise TypeError(f"For '{op}', 'target' must be an integer Tensor, but got {target.dtype}.")
    n_classes = input.shape[-1]
    _check_target_values(op, target, n_classes, -1)
    # the slots before the first -1 hold targets
    listed = F.equal(cumsum(F.cast(F.equal(target, -1), mstype.int32), -1), 0)
    slot = F.select(listed, target, 0)
    slot_hot = F.mul(F.one_hot(slot, n_classes, dtype=input.dtype), F.expand_dims(F.cast(listed, input.dtype), -1))
    is_target = F.reduce_max(slot_hot, -2)                                   # [..., C]
    slot_value = F.reduce_sum(F.mul(slot_hot, F.expand_dims(input, -2)), -1)  # x[target[k]]: [..., K]
    hinge = F.relu(F.add(F.sub(F.expand_dims(input, -2), F.expand_dims(slot_value, -1)), 1.0))   # [..., K, C]
    hinge = F.mul(F.mul(hinge, F.expand_dims(F.cast(listed, input.dtype), -1)),
                  F.expand_dims(F.sub(1.0, is_target), -2))
    return reduce_loss(F.div(F.reduce_sum(hinge, (-2, -1)), float(n_classes)), reduction)


def multilabel_soft_margin_loss(input, target, weight=None, reduction="mean"):  # noqa: A002
    """-(y * log(sigmoid(x)) + (1 - y) * log(1 - sigmoid(x))), times `weight`, averaged over the
    last axis (MindSpore's rule for any rank, measured), then reduced. `target` (0/1; integers
    count as the input's dtype) and `weight` broadcast."""
    op = "multilabel_soft_margin_loss"
    _floats(op, input=input)
    target = F.cast(_tensor(target, "target", op), input.dtype)
    check_reduction(reduction, op)
    # -log(sigmoid(x)) = softplus(-x); -log(1 - sigmoid(x)) = softplus(x)
    loss = F.add(F.mul(target, F.softplus(F.neg(input))), F.mul(F.sub(1.0, target), F.softplus(input)))
    if weight is not None:
        loss = F.mul(loss, F.cast(_tensor(weight, "weight", op), input.dtype))
    return reduce_loss(F.mean(loss, -1), reduction)

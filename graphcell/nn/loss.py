"""Losses with MindSpore's formulas and defaults (MINDSPORE_NOTES.md section 3); the newer ones
call their ops form in ops/losses.py."""
from __future__ import annotations

from .. import dtype as mstype
from ..ops import functional as F
from ..ops import classification_losses as CL
from ..ops import losses as L
from ..tensor import Tensor
from .cell import Cell


class LossBase(Cell):
    def __init__(self, reduction: str = "mean"):
        super().__init__()
        if reduction not in ("mean", "sum", "none"):
            raise ValueError(f"{type(self).__name__}: reduction must be 'mean', 'sum' or 'none', "
                             f"got {reduction!r}")
        self.reduction = reduction

    def get_loss(self, x, weights=1.0):
        if not (isinstance(weights, float) and weights == 1.0):
            x = F.mul(x, weights)
        if self.reduction == "mean":
            return F.mean(x)
        if self.reduction == "sum":
            return F.reduce_sum(x)
        return x


class MSELoss(LossBase):
    def construct(self, logits, labels):
        return self.get_loss(F.square(F.sub(logits, labels)))


class L1Loss(LossBase):
    def construct(self, logits, labels):
        return self.get_loss(F.abs(F.sub(logits, labels)))


class SoftmaxCrossEntropyWithLogits(LossBase):
    """Per-sample cross entropy of softmax(logits); reduction defaults to 'none'."""

    def __init__(self, sparse: bool = False, reduction: str = "none"):
        super().__init__(reduction)
        self.sparse = sparse

    def construct(self, logits, labels):
        logp = F.log_softmax(logits, -1)
        if self.sparse:
            if labels.dtype not in (mstype.int32, mstype.int64):
                raise TypeError(f"SoftmaxCrossEntropyWithLogits(sparse=True): labels must be int32 "
                                f"or int64 class indices, got {labels.dtype}")
            if labels.ndim != logits.ndim - 1:   # the one-hot's shape would only confuse
                raise ValueError(f"For 'SoftmaxCrossEntropyWithLogits' with sparse=True, 'labels' must be class "
                                 f"indices of shape logits.shape[:-1] = {list(logits.shape[:-1])}, but got "
                                 f"{list(labels.shape)}; pass sparse=False for one-hot or probability labels.")
            labels = F.one_hot(labels, logits.shape[-1], dtype=logits.dtype)
        elif labels.dtype is not logits.dtype:   # MindSpore 2.10's error, rather than a silent cast
            raise TypeError(f"For primitive[SoftmaxCrossEntropyWithLogits], the input type must be same. "
                            f"name:[label_type]:Tensor[{labels.dtype}]. name:[logits_type]:Tensor[{logits.dtype}]. "
                            f"With sparse=False labels are one-hot or probabilities of the logits' dtype; "
                            f"for class indices pass sparse=True.")
        _check_label_shape(tuple(labels.shape), tuple(logits.shape))
        return self.get_loss(F.neg(F.reduce_sum(F.mul(labels, logp), -1)))


def _check_label_shape(label_shape: tuple, logits_shape: tuple) -> None:
    """2.10's error for labels (one-hot, when sparse) that do not match the logits, rather than a
    broadcasting error inside; a dynamic dimension is taken to match."""
    if len(label_shape) != len(logits_shape) or any(
            isinstance(a, int) and isinstance(b, int) and a != b for a, b in zip(label_shape, logits_shape)):
        raise ValueError(f"For 'SoftmaxCrossEntropyWithLogits', evaluator arg 'label' shape must be consistent with "
                         f"'logits' shape, but got 'label' shape: {label_shape}, 'logits' shape: {logits_shape}.")


class CrossEntropyLoss(LossBase):
    """Cross entropy over class indices (int32) or class probabilities, with label smoothing
    and class weights as MindSpore computes them."""

    def __init__(self, weight=None, ignore_index: int = -100, reduction: str = "mean",
                 label_smoothing: float = 0.0):
        super().__init__(reduction)
        if not 0.0 <= label_smoothing <= 1.0:
            raise ValueError(f"For 'CrossEntropyLoss', the 'label_smoothing' must be in range of [0.0, 1.0], but got "
                             f"{label_smoothing} with type '{type(label_smoothing).__name__}'.")
        self.weight, self.ignore_index, self.label_smoothing = weight, ignore_index, label_smoothing

    def construct(self, logits, labels):
        if labels.dtype.is_integer:
            if labels.dtype is not mstype.int32:
                raise TypeError(f"For 'CrossEntropyLoss', the 'labels' should be Int32, but got "
                                f"'mindspore.{labels.dtype.name}'.")
            self.check_indices(labels, logits.shape[CL.class_axis(logits)], "labels", ignore=self.ignore_index)
        elif labels.ndim != logits.ndim:   # float class indices: 2.10 asks for int32
            raise TypeError(f"For 'CrossEntropyLoss', the 'labels' should be Int32, but got "
                            f"'mindspore.{labels.dtype.name}'.")
        elif labels.shape != logits.shape:
            raise ValueError(f"For 'CrossEntropyLoss', the shape of 'logits' should be (N, C, d_0, d_1, ...), and the "
                             f"shape of 'labels' should be (N, C, d_0, d_1, ...), but get 'logits' shape: "
                             f"{tuple(logits.shape)} and 'labels' shape: {tuple(labels.shape)}.")
        return CL.cross_entropy(logits, labels, self.weight, self.ignore_index, self.reduction, self.label_smoothing)


class NLLLoss(LossBase):
    def __init__(self, weight=None, ignore_index: int = -100, reduction: str = "mean"):
        super().__init__(reduction)
        self.weight, self.ignore_index = weight, ignore_index

    def construct(self, logits, labels):
        self.check_indices(labels, logits.shape[CL.class_axis(logits)], "labels", ignore=self.ignore_index)
        return CL.nll_loss(logits, labels, self.weight, self.ignore_index, self.reduction)


class BCEWithLogitsLoss(LossBase):
    """-w * (pos_weight * y * log(sigmoid(x)) + (1 - y) * log(1 - sigmoid(x))), MindSpore's
    arguments; `weight` and `pos_weight` broadcast against the logits (pos_weight: one per class,
    the last axis)."""

    def __init__(self, reduction: str = "mean", weight=None, pos_weight=None):
        super().__init__(reduction)
        self.weight, self.pos_weight = weight, pos_weight

    def construct(self, logits, labels):
        return CL.binary_cross_entropy_with_logits(logits, labels, self.weight, self.pos_weight, self.reduction)


class SmoothL1Loss(LossBase):
    """0.5 * d**2 / beta where |d| < beta, else |d| - 0.5 * beta (d = logits - labels, of one
    shape). MindSpore's defaults: beta=1.0, reduction='none'."""

    def __init__(self, beta: float = 1.0, reduction: str = "none"):
        super().__init__(reduction)
        if isinstance(beta, bool) or not isinstance(beta, (int, float)) or beta <= 0:
            raise ValueError(f"For 'SmoothL1Loss', 'beta' must be a number greater than 0, but got {beta!r}.")
        self.beta = beta

    def construct(self, logits, labels):
        return L.smooth_l1_loss(logits, labels, self.beta, self.reduction)


class HuberLoss(LossBase):
    """0.5 * d**2 where |d| < delta, else delta * (|d| - 0.5 * delta); broadcasts."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0):
        super().__init__(reduction)
        if isinstance(delta, bool) or not isinstance(delta, (int, float)) or delta <= 0:
            raise ValueError(f"For 'HuberLoss', the argument 'delta' must be a number > 0, but got {delta!r}.")
        self.delta = delta

    def construct(self, logits, labels):
        return L.huber_loss(logits, labels, self.reduction, self.delta)


class BCELoss(LossBase):
    """Binary cross entropy on probabilities, MindSpore's formula (1e-12 inside the logs);
    `weight` (a Tensor of the logits' dtype) broadcasts to them."""

    def __init__(self, weight=None, reduction: str = "mean"):
        super().__init__(reduction)
        if weight is not None and not isinstance(weight, Tensor):
            raise TypeError(f"For 'BCELoss', 'weight' must be a Tensor or None, but got {type(weight).__name__}.")
        self.weight = weight

    def construct(self, logits, labels):
        return L.binary_cross_entropy(logits, labels, self.weight, self.reduction)


class KLDivLoss(LossBase):
    """labels * (log(labels) - logits) where labels > 0 (logits are log-probabilities);
    reduction 'mean' (over every element, MindSpore's default), 'batchmean', 'sum' or 'none'.
    The labels get no gradient, as in MindSpore."""

    def __init__(self, reduction: str = "mean"):
        super().__init__()
        self.reduction = L.check_reduction(reduction, "KLDivLoss", ("none", "mean", "batchmean", "sum"))

    def construct(self, logits, labels):
        return L.kl_div(logits, labels, self.reduction)


class CosineEmbeddingLoss(LossBase):
    """1 - cos(x1, x2) where labels == 1, max(0, cos(x1, x2) - margin) where labels == -1
    (cosine over axis 1). margin: a float in [-1, 1]."""

    def __init__(self, margin: float = 0.0, reduction: str = "mean"):
        super().__init__(reduction)
        if isinstance(margin, bool) or not isinstance(margin, float):
            raise TypeError(f"For 'CosineEmbeddingLoss', the type of 'margin' should be 'float', but got type "
                            f"'{type(margin).__name__}'.")
        if not -1.0 <= margin <= 1.0:
            raise ValueError(f"For 'CosineEmbeddingLoss', the 'margin' must be in range of [-1.0, 1.0], but got "
                             f"{margin}.")
        self.margin = margin

    def construct(self, logits_x1, logits_x2, labels):
        return L.cosine_embedding_loss(logits_x1, logits_x2, labels, self.margin, self.reduction)


class MarginRankingLoss(LossBase):
    """max(0, -target * (input1 - input2) + margin); margin a float."""

    def __init__(self, margin: float = 0.0, reduction: str = "mean"):
        super().__init__(reduction)
        if isinstance(margin, bool) or not isinstance(margin, float):
            raise TypeError(f"For 'MarginRankingLoss', the type of 'margin' should be 'float', but got type "
                            f"'{type(margin).__name__}'.")
        self.margin = margin

    def construct(self, input1, input2, target):
        return L.margin_ranking_loss(input1, input2, target, self.margin, self.reduction)

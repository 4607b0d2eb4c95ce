"""Losses with MindSpore's formulas and defaults (MINDSPORE_NOTES.md section 3); the newer ones
call their ops form in ops/losses.py."""
from __future__ import annotations

from .. import dtype as mstype
from ..ops import functional as F
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
            labels = F.one_hot(labels, logits.shape[-1], dtype=logits.dtype)
        return self.get_loss(F.neg(F.reduce_sum(F.mul(labels, logp), -1)))


class CrossEntropyLoss(LossBase):
    """Cross entropy over class indices (int32) or class probabilities, with label smoothing
    and class weights as MindSpore computes them."""

    def __init__(self, weight=None, ignore_index: int = -100, reduction: str = "mean",
                 label_smoothing: float = 0.0):
        super().__init__(reduction)
        if not 0.0 <= label_smoothing <= 1.0:
            raise ValueError(f"CrossEntropyLoss: label_smoothing must be in [0, 1], got {label_smoothing}")
        self.weight, self.ignore_index, self.label_smoothing = weight, ignore_index, label_smoothing

    def construct(self, logits, labels):
        n_classes = logits.shape[1] if logits.ndim > 1 else logits.shape[0]
        class_axis = 1 if logits.ndim > 1 else 0
        logp = F.log_softmax(logits, class_axis)
        weight = F.cast(self.weight, logits.dtype) if self.weight is not None else None
        eps = self.label_smoothing
        if labels.dtype.is_integer:
            if labels.dtype is not mstype.int32:
                raise TypeError(f"For 'CrossEntropyLoss', the 'labels' should be Int32, but got "
                                f"'mindspore.{labels.dtype.name}'.")
            self.check_indices(labels, n_classes, "labels", ignore=self.ignore_index)
            valid = F.not_equal(labels, self.ignore_index)
            safe = F.select(valid, labels, 0)
            hot = F.moveaxis(F.one_hot(safe, n_classes, dtype=logits.dtype), -1, class_axis)
            nll = F.neg(F.reduce_sum(F.mul(hot, logp), class_axis))
            w_y = F.reduce_sum(F.mul(hot, _bcast(weight, class_axis, logp.ndim)), class_axis) \
                if weight is not None else F.cast(F.ones_like(nll), logits.dtype)
            w_y = F.mul(w_y, F.cast(valid, logits.dtype))
            loss = F.mul(nll, w_y)
            if eps > 0:
                wl = F.mul(logp, _bcast(weight, class_axis, logp.ndim)) if weight is not None else logp
                smooth = F.mul(F.neg(F.reduce_sum(wl, class_axis)), F.cast(valid, logits.dtype))
                loss = F.add(F.mul(loss, 1 - eps), F.mul(smooth, eps / n_classes))
            if self.reduction == "mean":
                return F.div(F.reduce_sum(loss), F.reduce_sum(w_y))
            return F.reduce_sum(loss) if self.reduction == "sum" else loss
        target = F.add(F.mul(labels, 1 - eps), eps / n_classes) if eps > 0 else labels
        wl = F.mul(logp, _bcast(weight, class_axis, logp.ndim)) if weight is not None else logp
        loss = F.neg(F.reduce_sum(F.mul(target, wl), class_axis))
        return self.get_loss(loss)


def _bcast(weight, class_axis, ndim):
    return F.reshape(weight, tuple(-1 if a == class_axis else 1 for a in range(ndim)))


class NLLLoss(LossBase):
    def __init__(self, weight=None, ignore_index: int = -100, reduction: str = "mean"):
        super().__init__(reduction)
        self.weight, self.ignore_index = weight, ignore_index

    def construct(self, logits, labels):
        n_classes = logits.shape[1]
        self.check_indices(labels, n_classes, "labels", ignore=self.ignore_index)
        valid = F.not_equal(labels, self.ignore_index)
        hot = F.moveaxis(F.one_hot(F.select(valid, labels, 0), n_classes, dtype=logits.dtype), -1, 1)
        w = F.cast(valid, logits.dtype)
        if self.weight is not None:
            w = F.mul(w, F.reduce_sum(F.mul(hot, _bcast(F.cast(self.weight, logits.dtype), 1, logits.ndim)), 1))
        loss = F.mul(F.neg(F.reduce_sum(F.mul(hot, logits), 1)), w)
        if self.reduction == "mean":
            return F.div(F.reduce_sum(loss), F.reduce_sum(w))
        return F.reduce_sum(loss) if self.reduction == "sum" else loss


class BCEWithLogitsLoss(LossBase):
    """-w * (pos_weight * y * log(sigmoid(x)) + (1 - y) * log(1 - sigmoid(x))), MindSpore's
    arguments; `weight` and `pos_weight` broadcast against the logits (pos_weight: one per class,
    the last axis)."""

    def __init__(self, reduction: str = "mean", weight=None, pos_weight=None):
        super().__init__(reduction)
        self.weight, self.pos_weight = weight, pos_weight

    def construct(self, logits, labels):
        # softplus(x) - x*y: stable for large |x| (log1p(exp(-|x|)) never overflows).
        soft_plus = F.add(F.relu(logits), F.log1p(F.exp(F.neg(F.abs(logits)))))    # -log(1 - sigmoid(x))
        if self.pos_weight is None:
            loss = F.sub(soft_plus, F.mul(logits, labels))
        else:   # pos_weight*y*softplus(-x) + (1-y)*softplus(x), softplus(-x) = softplus(x) - x
            pw = F.cast(self.pos_weight, logits.dtype)
            loss = F.add(F.mul(F.mul(pw, labels), F.sub(soft_plus, logits)), F.mul(F.sub(1.0, labels), soft_plus))
        if self.weight is not None:
            loss = F.mul(loss, F.cast(self.weight, logits.dtype))
        return self.get_loss(loss)


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

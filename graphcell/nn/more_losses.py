"""MindSpore 2.10's newer loss Cells, their arguments, defaults, checks and formulas measured on
MindSpore 2.10 CPU; most call their ops form (ops/classification_losses.py,
ops/regression_losses.py, ops/ctc.py). FocalLoss, DiceLoss and MultiClassDiceLoss have no ops
form in MindSpore; their formulas are here."""
from __future__ import annotations

from .. import dtype as mstype
from ..ops import classification_losses as CL
from ..ops import functional as F
from ..ops import losses as L
from ..ops import regression_losses as RL
from ..ops.ctc import ctc_loss
from ..tensor import Tensor
from .loss import LossBase


def _reduction(op: str, reduction: str) -> str:
    return L.check_reduction(reduction, op)


def _float_arg(op: str, name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, float):
        raise TypeError(f"For '{op}', the type of '{name}' should be 'float', but got type '{type(value).__name__}'.")
    return value


class _Reduced(LossBase):
    """A loss whose only argument is MindSpore's reduction, checked with its message."""

    def __init__(self, reduction: str = "mean"):
        super().__init__()
        self.reduction = _reduction(type(self).__name__, reduction)


class L1LossExt(_Reduced):
    """|logits - labels|, broadcast (MindSpore 2.10 has no CPU kernel for it: 'The kernel
    L1LossExt unregistered', measured; this is its documented formula, ops.l1_loss's)."""

    def construct(self, logits, labels):
        return RL.l1_loss(logits, labels, self.reduction)


class MAELoss(_Reduced):
    """|logits - labels|, broadcast; integers stay integers (measured)."""

    def construct(self, logits, label):
        return RL.l1_loss(logits, label, self.reduction)


class RMSELoss(LossBase):
    """sqrt(mean((logits - label)**2)), broadcast; integers count in float32."""

    def construct(self, logits, label):
        return F.sqrt(RL.mse_loss(logits, label, "mean"))


class SoftMarginLoss(_Reduced):
    """log(1 + exp(-labels * logits)) (no CPU kernel in MindSpore 2.10; torch's formula)."""

    def construct(self, logits, labels):
        return RL.soft_margin_loss(logits, labels, self.reduction)


class MultilabelMarginLoss(_Reduced):
    """ops.multilabel_margin_loss (no CPU kernel in MindSpore 2.10; torch's formula)."""

    def construct(self, x, target):
        return CL.multilabel_margin_loss(x, target, self.reduction)


class MultiLabelSoftMarginLoss(LossBase):
    def __init__(self, weight=None, reduction: str = "mean"):
        super().__init__()
        self.weight, self.reduction = weight, _reduction("MultiLabelSoftMarginLoss", reduction)

    def construct(self, x, target):
        return CL.multilabel_soft_margin_loss(x, target, self.weight, self.reduction)


class MultiMarginLoss(LossBase):
    """ops.multi_margin_loss; margin a float (measured), a `weight` given to the call replaces
    the Cell's."""

    def __init__(self, p: int = 1, margin: float = 1.0, reduction: str = "mean", weight=None):
        super().__init__()
        self.margin = _float_arg("MultiMarginLoss", "margin", margin)
        if isinstance(p, bool) or p not in (1, 2):
            raise ValueError(f"For 'MultiMarginLoss', the 'p' must be int and must in {{1, 2}}, but got '{p}'.")
        self.p, self.weight, self.reduction = p, weight, _reduction("MultiMarginLoss", reduction)

    def construct(self, x, target, weight=None):
        return CL.multi_margin_loss(x, target, self.p, self.margin, weight if weight is not None else self.weight,
                                    self.reduction)


class HingeEmbeddingLoss(LossBase):
    def __init__(self, margin: float = 1.0, reduction: str = "mean"):
        super().__init__()
        self.margin = _float_arg("HingeEmbeddingLoss", "margin", margin)
        self.reduction = _reduction("HingeEmbeddingLoss", reduction)

    def construct(self, logits, labels):
        return RL.hinge_embedding_loss(logits, labels, self.margin, self.reduction)


class GaussianNLLLoss(LossBase):
    def __init__(self, *, full: bool = False, eps: float = 1e-06, reduction: str = "mean"):
        super().__init__()
        self.full, self.eps, self.reduction = full, eps, _reduction("GaussianNLLLoss", reduction)

    def construct(self, logits, labels, var):
        return RL.gaussian_nll_loss(logits, labels, var, self.full, self.eps, self.reduction)


class PoissonNLLLoss(LossBase):
    """exp(input) - target * input (`log_input`), else input - target * log(input + eps), plus
    Stirling's term where target > 1 with `full`."""

    def __init__(self, log_input: bool = True, full: bool = False, eps: float = 1e-08, reduction: str = "mean"):
        super().__init__()
        self.log_input, self.full, self.eps = log_input, full, eps
        self.reduction = _reduction("PoissonNLLLoss", reduction)

    def construct(self, input, target):  # noqa: A002 - MindSpore's names
        return RL.poisson_nll_loss(input, target, self.log_input, self.full, self.eps, self.reduction)


class TripletMarginLoss(LossBase):
    """ops.triplet_margin_loss. The call's `margin` counts only while the Cell's is 1.0 (MindSpore
    2.10 passes the Cell's margin when it is not 1.0, the call's otherwise: measured)."""

    def __init__(self, p: int = 2, swap: bool = False, eps: float = 1e-06, reduction: str = "mean",
                 margin: float = 1.0):
        super().__init__()
        self.p, self.swap, self.eps, self.margin = p, swap, eps, margin
        self.reduction = _reduction("TripletMarginLoss", reduction)

    def construct(self, x, positive, negative, margin=1.0):
        margin = self.margin if self.margin != 1.0 else margin
        return RL.triplet_margin_loss(x, positive, negative, margin, self.p, self.eps, self.swap, self.reduction)


class TripletMarginWithDistanceLoss(LossBase):
    """max(0, d(x, positive) - d(x, negative) + margin); d is `distance_function` or the
    2-norm over axis 1 with no epsilon (measured); `swap` takes the smaller of d(x, negative)
    and d(positive, negative)."""

    def __init__(self, distance_function=None, swap: bool = False, reduction: str = "mean", margin: float = 1.0):
        super().__init__()
        op = "TripletMarginWithDistanceLoss"
        if distance_function is not None and not callable(distance_function):
            raise TypeError(f"For '{op}', 'distance_function' must be callable or None, but got "
                            f"{type(distance_function).__name__}.")
        if isinstance(margin, bool) or not isinstance(margin, float):
            raise TypeError(f"For '{op}', the type of 'margin' must be 'float', but got '{type(margin).__name__}'.")
        if margin < 0:
            raise ValueError(f"For '{op}', 'margin' must be non-negative, but got {margin}.")
        if not isinstance(swap, bool):
            raise TypeError(f"For '{op}', 'swap' must be a bool, but got {type(swap).__name__}.")
        self.distance_function, self.swap, self.margin = distance_function, swap, margin
        self.reduction = _reduction(op, reduction)

    def _distance(self, a, b):
        if self.distance_function is not None:
            return self.distance_function(a, b)
        return RL._distance(a, b, 2, 0.0)

    def construct(self, x, positive, negative):
        swapped = self._distance(positive, negative) if self.swap else None
        return RL.triplet_distance_loss(self._distance(x, positive), self._distance(x, negative), swapped,
                                        self.margin, self.reduction)


class CTCLoss(LossBase):
    """ops.ctc_loss's loss (without its log_alpha). As 2.10's, it also takes one unbatched
    sample: log_probs [T, C], targets [S], input_lengths and target_lengths [1]; the loss is
    then a scalar whatever the reduction."""

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False):
        super().__init__()
        self.blank, self.zero_infinity = blank, zero_infinity
        self.reduction = _reduction("CTCLoss", reduction)

    def construct(self, log_probs, targets, input_lengths, target_lengths):
        unbatched = isinstance(log_probs, Tensor) and log_probs.ndim == 2
        if unbatched:   # a batch of one
            log_probs, targets = F.expand_dims(log_probs, 1), F.expand_dims(targets, 0)
        loss = ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction,
                        self.zero_infinity)[0]
        return F.reshape(loss, ()) if unbatched else loss


class FocalLoss(LossBase):
    """-weight[c] * (1 - p)**gamma * log(p) at the labelled classes, p = softmax(logits) over
    axis 1, for logits [N, C] to [N, C, H, W]. `labels` are one-hot (the logits' shape) or class
    indices ([N, 1, ...]). As measured on MindSpore 2.10: the loss is averaged over the spatial
    axes, then, for index labels, summed over the classes, so 'none' gives [N, C] for one-hot
    labels and [N] for indices."""

    def __init__(self, weight=None, gamma: float = 2.0, reduction: str = "mean"):
        super().__init__()
        if isinstance(gamma, bool) or not isinstance(gamma, float):
            raise TypeError(f"The type of 'gamma' should be 'float', but got type '{type(gamma).__name__}'.")
        if weight is not None:
            if not isinstance(weight, Tensor):
                raise TypeError(f"For 'FocalLoss', 'weight' must be a Tensor or None, but got "
                                f"{type(weight).__name__}.")
            if weight.ndim != 1:
                raise ValueError(f"For 'FocalLoss', the dimension of 'weight' must be 1, but got {weight.ndim}.")
        self.weight, self.gamma, self.reduction = weight, gamma, _reduction("FocalLoss", reduction)

    def construct(self, logits, labels):
        op = "FocalLoss"
        for name, value in (("logits", logits), ("labels", labels)):
            if not 2 <= value.ndim <= 4:
                raise ValueError(f"For '{op}', the dimensions of '{name}' must be in [2, 4], but got dimension of "
                                 f"'{name}' {value.ndim}.")
        if logits.ndim != labels.ndim:
            raise ValueError(f"For '{op}', the dimensions of 'logits' and 'labels' must be equal, but got dimension "
                             f"of 'logits' {logits.ndim} and dimension of 'labels' {labels.ndim}.")
        n_classes = logits.shape[1]
        if labels.shape[1] not in (1, n_classes):
            raise ValueError(f"For '{op}', the 'labels'.shape[1] must be one or equal to 'logits'.shape[1]: "
                             f"{n_classes}, but got {labels.shape[1]}.")
        indices = labels.shape[1] == 1 and n_classes != 1
        if indices:
            labels = F.one_hot(F.cast(F.squeeze(labels, 1), mstype.int32), n_classes, axis=1, dtype=logits.dtype)
        else:
            labels = F.cast(labels, logits.dtype)
        logp = F.log_softmax(logits, 1)
        focus = F.pow(F.sub(1.0, F.exp(logp)), self.gamma)
        loss = F.neg(F.mul(F.mul(labels, focus), logp))
        if self.weight is not None:
            loss = F.mul(loss, CL.per_class(F.cast(self.weight, logits.dtype), 1, logits.ndim))
        loss = F.mean(F.reshape(loss, (loss.shape[0], n_classes, -1)), -1)
        if indices:
            loss = F.reduce_sum(loss, 1)
        return self.get_loss(loss)


def _same_shape(op: str, logits, label) -> None:
    if tuple(logits.shape) != tuple(label.shape):
        raise ValueError(f"For '{op}', the 'logits_shape' should be = label_shape: {tuple(label.shape)}, but got "
                         f"{tuple(logits.shape)}.")


def _dice(logits, label, smooth: float):
    """1 - 2 * sum(logits * label) / (sum(logits**2) + sum(label**2) + smooth), over every
    element: `smooth` only in the denominator (measured on MindSpore 2.10: smooth 1.0 gives
    0.27126 where (2 I + smooth) / (U + smooth) would give 0.20002)."""
    overlap = F.reduce_sum(F.mul(logits, label))
    both = F.add(F.reduce_sum(F.mul(logits, logits)), F.reduce_sum(F.mul(label, label)))
    return F.sub(1.0, F.div(F.mul(overlap, 2.0), F.add(both, smooth)))


class DiceLoss(LossBase):
    """1 - 2 |X * Y| / (|X|^2 + |Y|^2 + smooth) over every element (measured: the squares, not
    the sums, and no smooth in the numerator). Integers count in float32."""

    def __init__(self, smooth: float = 1e-05):
        super().__init__()
        if isinstance(smooth, bool) or not isinstance(smooth, float):
            raise TypeError(f"The 'smooth' must be float, but got '{type(smooth).__name__}'")
        if smooth <= 0:
            raise ValueError(f"For 'DiceLoss', 'smooth' must be greater than 0, but got {smooth}.")
        self.smooth = smooth

    def construct(self, logits, label):
        _same_shape("DiceLoss", logits, label)
        dtype = logits.dtype if logits.dtype.is_floating else mstype.float32
        return _dice(F.cast(logits, dtype), F.cast(label, dtype), self.smooth)


class MultiClassDiceLoss(LossBase):
    """The mean over the C classes (axis 1) of DiceLoss(smooth=1e-5) between the activated
    logits and the label, leaving out class `ignore_indiex` (MindSpore's spelling) but still
    dividing by C; each class's dice times `weights[c]` (weights [C, K] make the result [K]).
    The softmax is over the last axis, as MindSpore 2.10 takes it (measured: on [N, C, L] it is
    not the class axis)."""

    def __init__(self, weights=None, ignore_indiex=None, activation="softmax"):
        super().__init__()
        op = "MultiClassDiceLoss"
        if weights is not None:
            if not isinstance(weights, Tensor):
                raise TypeError(f"For '{op}', 'weights' must be a Tensor or None, but got {type(weights).__name__}.")
            if weights.ndim != 2:
                raise ValueError(f"For '{op}', the dimension of 'weights' must be 2, but got {weights.ndim}.")
        if ignore_indiex is not None and (isinstance(ignore_indiex, bool) or not isinstance(ignore_indiex, int)):
            raise TypeError(f"For '{op}', 'ignore_indiex' must be an int or None, but got "
                            f"{type(ignore_indiex).__name__}.")
        if activation not in ("softmax", "sigmoid", None):
            raise ValueError(f"For '{op}', 'activation' must be 'softmax', 'sigmoid' or None, but got {activation!r}.")
        self.weights, self.ignore_indiex, self.activation = weights, ignore_indiex, activation

    def construct(self, logits, label):
        op = "MultiClassDiceLoss"
        _same_shape(op, logits, label)
        if logits.ndim < 2:
            raise ValueError(f"For '{op}', the 'logits' dimension must be greater than 1, but got {logits.ndim}.")
        n_classes = label.shape[1]
        if self.weights is not None and self.weights.shape[0] != n_classes:
            raise ValueError(f"For '{op}', the weight_shape[0] must be equal to label_shape[1], but got "
                             f"weight_shape[0]: {self.weights.shape[0]} and label_shape[1]: {n_classes}.")
        dtype = logits.dtype if logits.dtype.is_floating else mstype.float32
        logits, label = F.cast(logits, dtype), F.cast(label, dtype)
        if self.activation == "softmax":
            logits = F.softmax(logits, -1)
        elif self.activation == "sigmoid":
            logits = F.sigmoid(logits)
        total = None
        for c in range(n_classes):
            if c == self.ignore_indiex:
                continue
            dice = _dice(F.slice_axis(logits, 1, c, c + 1), F.slice_axis(label, 1, c, c + 1), 1e-5)
            if self.weights is not None:
                dice = F.mul(dice, F.cast(self.weights[c], dtype))
            total = dice if total is None else F.add(total, dice)
        if total is None:       # the one class ignored
            return F.zeros((), dtype)
        return F.div(total, float(n_classes))

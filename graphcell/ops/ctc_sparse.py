"""MindSpore 2.10's CTCLoss (v1, TensorFlow's form): logits [T, N, C] against sparse labels, the
blank the last class, returning each sample's loss and its gradient with respect to the
logits. Over ops/ctc.py's recursion: the sparse labels become padded targets (each sample's
labels in the order they appear; the second index column is not read, as 2.10's kernel), the
logits a log_softmax, and the gradient is graphcell's grad of the summed loss (softmax minus the
state occupancy, 0 past a sample's sequence length), as 2.10's (measured)."""
from __future__ import annotations

import numpy as np

from .. import dtype as mstype
from ..api.grad import value_and_grad
from ..tensor import Tensor
from . import ctc
from . import functional as F
from .op_base import Operator, check_bool, exporter
from .sorting import cumsum

CLASSES: list[str] = []
_export = exporter(CLASSES)

_FLOATS = (mstype.float16, mstype.float32, mstype.float64)


def _type_error(arg: str, allowed, got) -> TypeError:
    names = ", ".join(f"Tensor[{d}]" for d in allowed)
    return TypeError(f"For primitive[CTCLoss], the input argument[{arg}] must be a type of {{{names}}}, but got "
                     f"Tensor[{got}].")


def dense_labels(labels_indices, labels_values, batch: int, collapse_repeated: bool):
    """(targets [N, L] int32, lengths [N] int32) from sparse labels: sample n's labels in the
    order they appear, optionally with runs of one label collapsed to one."""
    count = labels_values.shape[0]
    owner = F.cast(F.squeeze(F.slice_axis(labels_indices, 1, 0, 1), 1), mstype.int32)
    earlier = Tensor(np.tril(np.ones((count, count), bool), -1))
    same = F.equal(F.expand_dims(owner, 1), F.expand_dims(owner, 0))
    position = F.reduce_sum(F.cast(F.logical_and(same, earlier), mstype.int32), 1)   # [L]
    samples = Tensor(np.arange(batch, dtype=np.int32))
    slots = Tensor(np.arange(max(count, 1), dtype=np.int32))
    at = F.logical_and(F.equal(F.reshape(owner, (1, count, 1)), F.reshape(samples, (batch, 1, 1))),
                       F.equal(F.reshape(position, (1, count, 1)), F.reshape(slots, (1, 1, -1))))  # [N, L, S]
    values = F.reshape(F.cast(labels_values, mstype.int32), (1, count, 1))
    targets = F.reduce_sum(F.mul(F.cast(at, mstype.int32), values), 1)
    lengths = F.reduce_sum(F.cast(F.equal(F.expand_dims(owner, 0), F.expand_dims(samples, 1)), mstype.int32), 1)
    if not collapse_repeated or count < 2:
        return targets, lengths
    # keep a label unless it repeats the one before it; move the kept ones to the front
    size = targets.shape[1]
    previous = F.concat([F.full((batch, 1), -1, mstype.int32), F.slice_axis(targets, 1, 0, size - 1)], 1)
    keep = F.logical_and(F.not_equal(targets, previous), F.less(slots, F.expand_dims(lengths, 1)))
    new_slot = F.sub(cumsum(F.cast(keep, mstype.int32), 1), 1)
    moved = F.logical_and(F.expand_dims(keep, 2), F.equal(F.expand_dims(new_slot, 2), F.reshape(slots, (1, 1, -1))))
    targets = F.reduce_sum(F.mul(F.cast(moved, mstype.int32), F.expand_dims(targets, 2)), 1)
    return targets, F.reduce_sum(F.cast(keep, mstype.int32), 1)


@_export
class CTCLoss(Operator):
    """CTCLoss(preprocess_collapse_repeated=False, ctc_merge_repeated=True,
    ignore_longer_outputs_than_inputs=False)(x, labels_indices, labels_values, sequence_length)
    -> (loss [N], gradient [T, N, C]), in x's dtype (float16 computed in float32)."""

    def __init__(self, preprocess_collapse_repeated=False, ctc_merge_repeated=True,
                 ignore_longer_outputs_than_inputs=False):
        super().__init__(
            preprocess_collapse_repeated=check_bool("CTCLoss", "preprocess_collapse_repeated",
                                                    preprocess_collapse_repeated),
            ctc_merge_repeated=check_bool("CTCLoss", "ctc_merge_repeated", ctc_merge_repeated),
            ignore_longer_outputs_than_inputs=check_bool("CTCLoss", "ignore_longer_outputs_than_inputs",
                                                         ignore_longer_outputs_than_inputs))

    def __call__(self, x, labels_indices, labels_values, sequence_length):
        x, labels_indices, labels_values, sequence_length = (
            F.as_tensor(v) for v in (x, labels_indices, labels_values, sequence_length))
        for arg, value, allowed in (("x", x, _FLOATS), ("labels_indices", labels_indices, (mstype.int64,)),
                                    ("labels_values", labels_values, (mstype.int32,)),
                                    ("sequence_length", sequence_length, (mstype.int32,))):
            if value.dtype not in allowed:
                raise _type_error(arg, allowed, value.dtype)
        if x.ndim != 3 or labels_indices.ndim != 2 or labels_indices.shape[1] != 2 or labels_values.ndim != 1 \
                or labels_values.shape[0] != labels_indices.shape[0] or tuple(sequence_length.shape) != (x.shape[1],):
            raise ValueError(f"For 'CTCLoss', x must be [T, N, C], labels_indices [L, 2], labels_values [L] and "
                             f"sequence_length [N], but got shapes {list(x.shape)}, {list(labels_indices.shape)}, "
                             f"{list(labels_values.shape)} and {list(sequence_length.shape)}.")
        batch = x.shape[1]
        targets, lengths = dense_labels(labels_indices, labels_values, batch, self.preprocess_collapse_repeated)
        if not (lengths.is_symbolic or sequence_length.is_symbolic or self.ignore_longer_outputs_than_inputs):
            short = np.nonzero(sequence_length.asnumpy() < lengths.asnumpy())[0]
            if short.size:
                i = short[0]
                raise RuntimeError(f"For 'CTCLoss, input time(sequence length) must be greater than output size(label "
                                   f"length), but got sequence length: {sequence_length.asnumpy()[i]} and label "
                                   f"length: {lengths.asnumpy()[i]}")
        work = mstype.float32 if x.dtype == mstype.float16 else x.dtype

        def losses(logits):
            log_probs = F.log_softmax(logits, -1)
            loss, _ = ctc.ctc_forward(log_probs, targets, sequence_length, lengths, x.shape[2] - 1,
                                      self.ctc_merge_repeated)
            return F.reduce_sum(loss), loss

        (_, loss), gradient = value_and_grad(losses, has_aux=True)(F.cast(x, work))
        return F.cast(loss, x.dtype), F.cast(gradient, x.dtype)

"""`nn.SampledSoftmaxLoss`: softmax cross entropy over the true classes and a sample of the
others, for many-class outputs (2.10's arguments, checks and messages, measured).

The loss given the sampled classes is TensorFlow's sampled_softmax_loss, which 2.10 computes
(checked against numpy on values measured on 2.10): each logit is x . w_c + b_c - log(expected
count of c), the true classes share a target of 1/num_true, and the loss is the cross entropy
of softmax over [true, sampled]. When `sampled_values` is None, num_sampled distinct classes are
drawn uniformly (2.10's UniformCandidateSampler, unique); with remove_accidental_hits they
avoid the batch's true classes, as 2.10's sampler does, and any left (more samples than other
classes) are masked out. Their expected counts are the exact inclusion probability
num_sampled / num_classes (2.10's sampler estimates it from its number of tries, so values
differ). Given `sampled_values`, 2.10 uses them as they are, hits included (measured), and so
does graphcell. The draws come from graphcell's generator (seed 0) or a stream of the Cell's
own (seed > 0); they are not 2.10's numbers."""
from __future__ import annotations

import numpy as np

from .. import dtype as mstype
from ..ops import functional as F
from ..ops.array_more import top_k
from ..tensor import Tensor
from .loss import LossBase

_OP = "SampledSoftmaxLoss"


def _sampler_int(name: str, value, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For 'UniformCandidateSampler', the type of '{name}' should be 'int', "
                        f"but got type '{type(value).__name__}'.")
    if value < minimum:
        raise ValueError(f"For 'UniformCandidateSampler', the value of {name} should be > : {minimum - 1}, "
                         f"but got {value}.")
    return value


class SampledSoftmaxLoss(LossBase):
    """construct(weights [C, D], biases [C], labels [N, num_true] int32/int64, logits [N, D])
    -> the loss per example [N] (reduction 'none', the default), or its mean or sum."""

    def __init__(self, num_sampled, num_classes, num_true=1, sampled_values=None, remove_accidental_hits=True,
                 seed=0, reduction="none"):
        if reduction not in ("mean", "sum", "none"):
            raise ValueError(f"For '{_OP}', the 'reduction' must be in ['mean', 'sum', 'none'], but got {reduction}.")
        super().__init__(reduction)
        if num_sampled > num_classes:
            raise ValueError(f"For '{_OP}', the 'num_sampled' must be smaller than or equal to 'num_classes', but "
                             f"got 'num_sampled': {num_sampled} and 'num_classes': {num_classes}.")
        if num_true < 1:
            raise ValueError(f"For '{_OP}', the 'num_true' must be greater than or equal to 1, but got {num_true}.")
        if sampled_values is not None:
            if not isinstance(sampled_values, (list, tuple)):
                raise TypeError(f"For '{_OP}', the type of 'sampled_values' must be a list or tuple, but got "
                                f"{type(sampled_values).__name__}.")
            if len(sampled_values) != 3:
                raise ValueError(f"For '{_OP}', the length of 'sampled_values' must be equal to 3, but got "
                                 f"{len(sampled_values)}.")
        if seed < 0:
            raise ValueError(f"For '{_OP}', the 'seed' must be greater than or equal to 0, but got {seed}.")
        self.num_sampled = _sampler_int("num_sampled", num_sampled, 1)
        self.num_classes = _sampler_int("range_max", num_classes, 1)
        self.num_true = _sampler_int("num_true", num_true, 1)
        if not isinstance(remove_accidental_hits, bool):
            raise TypeError("For 'UniformCandidateSampler', the type of 'remove_accidental_hits' should be 'bool', "
                            f"but got type '{type(remove_accidental_hits).__name__}'.")
        self.remove_accidental_hits = remove_accidental_hits
        self.sampled_values = tuple(sampled_values) if sampled_values is not None else None
        self.seed = seed
        from ..ops.operations import _KeyStream
        object.__setattr__(self, "_rng", _KeyStream(_OP, seed, 0))   # not a Parameter of the Cell

    def sample(self, labels):
        """(sampled classes [num_sampled] int32, true expected counts [N, num_true], sampled
        expected counts [num_sampled]), as 2.10's sampler returns them."""
        labels = F.reshape(labels, (-1, self.num_true))
        keys = F.uniform((self.num_classes,), key=self._rng.next())
        if self.remove_accidental_hits:   # the batch's true classes come last: drawn only when nothing else is left
            classes = F.reshape(Tensor(np.arange(self.num_classes, dtype=np.int64)), (-1, 1))
            is_true = F.any(F.equal(classes, F.reshape(F.cast(labels, mstype.int64), (1, -1))), 1)
            keys = F.sub(keys, F.cast(is_true, mstype.float32))
        _, sampled = top_k(keys, self.num_sampled)
        rate = self.num_sampled / self.num_classes
        return (sampled, F.full(tuple(labels.shape), rate, mstype.float32),
                F.full((self.num_sampled,), rate, mstype.float32))

    def construct(self, weights, biases, labels, logits):
        if not isinstance(labels, Tensor) or labels.dtype not in (mstype.int32, mstype.int64):
            got = f"mindspore.{labels.dtype.name}" if isinstance(labels, Tensor) else type(labels).__name__
            raise TypeError(f"For '{_OP}', the 'labels' should be one of [mindspore.int32, mindspore.int64], but got "
                            f"'{got}'.")
        labels = F.reshape(labels, (-1, self.num_true))
        drawn = self.sampled_values is None
        sampled, true_expected, sampled_expected = self.sample(labels) if drawn else self.sampled_values
        sampled = F.cast(sampled, mstype.int64)
        flat = F.reshape(F.cast(labels, mstype.int64), (-1,))
        true_w = F.reshape(F.gather(weights, flat, 0), (labels.shape[0], self.num_true, -1))
        true_logits = F.add(F.reduce_sum(F.mul(F.expand_dims(logits, 1), true_w), -1),
                            F.reshape(F.gather(biases, flat, 0), tuple(labels.shape)))
        true_logits = F.sub(true_logits, F.log(F.cast(true_expected, logits.dtype)))
        sampled_logits = F.add(F.matmul(logits, F.transpose(F.gather(weights, sampled, 0), (1, 0))),
                               F.gather(biases, sampled, 0))
        sampled_logits = F.sub(sampled_logits, F.log(F.cast(sampled_expected, logits.dtype)))
        if drawn and self.remove_accidental_hits:
            hits = F.any(F.equal(F.expand_dims(F.cast(labels, mstype.int64), 2), F.reshape(sampled, (1, 1, -1))), 1)
            lowest = float(np.finfo(logits.dtype.np_dtype).min)
            sampled_logits = F.select(hits, F.full(tuple(sampled_logits.shape), lowest, logits.dtype), sampled_logits)
        all_logits = F.concat((true_logits, sampled_logits), 1)
        loss = F.sub(F.logsumexp(all_logits, 1), F.mean(true_logits, 1))
        return self.get_loss(loss)

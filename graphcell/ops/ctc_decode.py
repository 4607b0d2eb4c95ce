"""ops.ctc_greedy_decoder: the best path of CTC logits, as a sparse result.

Its outputs' shapes depend on the values (how many labels each sequence decodes to), so,
like the ops of dynamic_shape.py, it runs eagerly on the host with numpy and raises in graph
mode. The algorithm is TensorFlow's, which MindSpore 2.10's CPU kernel follows (measured):
the blank is the last class; each step's arg-max class is emitted unless it is the blank or,
with merge_repeated, the same class as the step before (a blank between two equal classes
keeps both).
"""
from __future__ import annotations

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from .dynamic_shape import _host

__all__ = ["ctc_greedy_decoder"]


def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True):
    """inputs [max_time, batch, classes] (float logits), sequence_length [batch] (ints <= max_time).

    Returns (decoded_indices int64 [total, 2] of (batch, position), decoded_values int64
    [total], decoded_shape int64 [batch, longest decoded], log_probability [batch, 1] of the
    inputs' dtype: minus the sum of each step's largest logit)."""
    logits = _host("ctc_greedy_decoder", inputs)
    lengths = _host("ctc_greedy_decoder", sequence_length)
    if logits.ndim != 3 or logits.dtype.kind != "f":
        raise ValueError(f"For 'CTCGreedyDecoder', 'inputs' must be a 3-D float Tensor [max_time, batch_size, "
                         f"num_classes], but got shape {list(logits.shape)} of {logits.dtype}.")
    steps, batch, classes = logits.shape
    if lengths.shape != (batch,) or lengths.dtype.kind not in "iu":
        raise ValueError(f"For 'CTCGreedyDecoder', 'sequence_length' must be a 1-D integer Tensor of "
                         f"batch_size {batch}, but got shape {list(lengths.shape)} of {lengths.dtype}.")
    for b, n in enumerate(lengths):
        if not 0 <= n <= steps:   # MindSpore's words ("less than" where it means at most)
            raise ValueError(f"For 'CTCGreedyDecoder', sequence_length[{b}] {n} should be less than {steps}.")
    blank = classes - 1
    best = logits.argmax(-1)                                               # [T, N]
    decoded = []
    for b in range(batch):
        labels, previous = [], -1
        for t in range(int(lengths[b])):
            label = int(best[t, b])
            if label != blank and not (merge_repeated and label == previous):
                labels.append(label)
            previous = label
        decoded.append(labels)
    indices = np.array([(b, i) for b, labels in enumerate(decoded) for i in range(len(labels))],
                       np.int64).reshape(-1, 2)
    values = np.array([label for labels in decoded for label in labels], np.int64)
    shape = np.array([batch, max((len(labels) for labels in decoded), default=0)], np.int64)
    steps_in = np.arange(steps)[:, None] < lengths[None, :]
    log_probability = 0.0 - np.where(steps_in, logits.max(-1), 0).sum(0, dtype=logits.dtype)[:, None]  # no -0.0
    input_dtype = inputs.dtype if isinstance(inputs, Tensor) else mstype.float32
    return (Tensor(indices), Tensor(values), Tensor(shape), Tensor(log_probability, input_dtype))

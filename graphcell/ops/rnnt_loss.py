"""MindSpore 2.10's RNNTLoss (the transducer loss; an Ascend op, no CPU kernel): acts [B, T, U, V]
are logits (log-softmaxed over V inside), labels [B, U-1] int32, input_lengths and label_lengths
[B] int32. Returns (costs [B], grads), grads the costs' gradient with respect to acts, as 2.10
documents (the costs in acts' dtype; the documentation's "int32" cannot hold a loss).

The forward variables alpha[t, u] run as one `scan` over time; inside a step the recursion
along u, alpha[t, u] = logaddexp(alpha[t-1, u] + blank[t-1, u], alpha[t, u-1] + y[t, u-1]), is
a log-sum-exp over a lower-triangular [U, U] table of prefix sums, so the scan body has no inner
loop. The gradient is graphcell's grad of the summed costs, so jit, vmap and ONNX follow."""
from __future__ import annotations

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from . import functional as F
from .indexing import gather_d
from .op_base import Operator, check_int, exporter
from .sorting import cumsum

CLASSES: list[str] = []
_export = exporter(CLASSES)

_NEG = -1e30


def rnnt_costs(log_probs, labels, input_lengths, label_lengths, blank: int):
    """Each sample's -log P(labels | acts) from log_probs [B, T, U, V]."""
    batch, steps, positions, _ = log_probs.shape
    blank_lp = F.squeeze(F.slice_axis(log_probs, 3, blank, blank + 1), 3)                       # [B, T, U]
    if positions > 1:
        index = F.broadcast_to(F.reshape(F.cast(labels, mstype.int32), (batch, 1, positions - 1, 1)),
                               (batch, steps, positions - 1, 1))
        label_lp = F.squeeze(gather_d(F.slice_axis(log_probs, 2, 0, positions - 1), 3, index), 3)  # [B, T, U-1]
        prefix = F.concat([F.zeros((batch, steps, 1), log_probs.dtype), cumsum(label_lp, 2)], 2)  # [B, T, U]
    else:
        prefix = F.zeros((batch, steps, 1), log_probs.dtype)
    lower = Tensor(np.tril(np.ones((positions, positions), bool)))                                # [u, k]: k <= u
    from .scan_loop import scan

    def along_u(start, prefix_t):
        # alpha[u] = logsumexp_{k <= u} (start[k] + prefix[u] - prefix[k])
        table = F.add(F.expand_dims(F.sub(start, prefix_t), 1), F.expand_dims(prefix_t, 2))          # [B, u, k]
        return F.logsumexp(F.select(lower, table, _NEG), 2)

    first_start = F.concat([F.zeros((batch, 1), log_probs.dtype),
                            F.full((batch, positions - 1), _NEG, log_probs.dtype)], 1)
    alpha0 = along_u(first_start, prefix[:, 0])

    def step(alpha, xs):
        blank_prev, prefix_t = xs
        new = along_u(F.add(alpha, blank_prev), prefix_t)
        return new, new
    if steps > 1:
        _, rest = scan(step, alpha0, (F.transpose(blank_lp[:, :-1], (1, 0, 2)),
                                      F.transpose(prefix[:, 1:], (1, 0, 2))))
        alphas = F.concat([F.expand_dims(alpha0, 0), rest], 0)                                    # [T, B, U]
    else:
        alphas = F.expand_dims(alpha0, 0)
    final = F.add(F.transpose(alphas, (1, 0, 2)), blank_lp)                                       # [B, T, U]
    t_last = F.sub(F.cast(input_lengths, mstype.int32), 1)
    u_last = F.cast(label_lengths, mstype.int32)
    flat = F.reshape(final, (batch, steps * positions))
    at = F.expand_dims(F.add(F.mul(t_last, positions), u_last), 1)
    return F.neg(F.squeeze(gather_d(flat, 1, at), 1))


def _type_check(arg: str, value: Tensor, allowed: tuple, text: str) -> None:
    if value.dtype not in allowed:
        raise TypeError(f"For 'RNNTLoss', the element of '{arg}' must be {text}, but got Tensor[{value.dtype}].")


@_export
class RNNTLoss(Operator):
    """RNNTLoss(blank_label=0)(acts, labels, input_lengths, label_lengths) -> (costs, grads)."""

    def __init__(self, blank_label=0):
        super().__init__(blank_label=check_int("RNNTLoss", "blank_label", blank_label))

    def __call__(self, acts, labels, input_lengths, label_lengths):
        from ..api.grad import value_and_grad
        acts, labels, input_lengths, label_lengths = (F.as_tensor(v) for v in
                                                      (acts, labels, input_lengths, label_lengths))
        _type_check("acts_type", acts, (mstype.float32, mstype.float16), "one of Tensor[Float32], Tensor[Float16]")
        for arg, value in (("labels", labels), ("input_length", input_lengths), ("label_length", label_lengths)):
            _type_check(arg, value, (mstype.int32,), "Tensor[Int32]")
        if acts.ndim != 4:
            raise ValueError(f"For 'RNNTLoss', the 'acts_rank' must be int and must = 4, but got '{acts.ndim}' with "
                             f"type 'int'.")
        batch, _, positions, classes = acts.shape
        if tuple(labels.shape) != (batch, positions - 1) or tuple(input_lengths.shape) != (batch,) \
                or tuple(label_lengths.shape) != (batch,):
            raise ValueError(f"For 'RNNTLoss', labels must be [B, U-1] = {[batch, positions - 1]} and the lengths "
                             f"[B] = {[batch]}, but got {list(labels.shape)}, {list(input_lengths.shape)} and "
                             f"{list(label_lengths.shape)}.")
        if not 0 <= self.blank_label < classes:
            raise ValueError(f"For 'RNNTLoss', the 'blank_label' must be in [0, {classes}), but got "
                             f"{self.blank_label}.")
        work = mstype.float32

        def total(x):
            costs = rnnt_costs(F.log_softmax(x, -1), labels, input_lengths, label_lengths, self.blank_label)
            return F.reduce_sum(costs), costs
        (_, costs), grads = value_and_grad(total, has_aux=True)(F.cast(acts, work))
        return F.cast(costs, acts.dtype), F.cast(grads, acts.dtype)

"""ctc_loss: the connectionist temporal classification loss (MindSpore 2.10's ops.ctc_loss,
CTCLossV2), its forward recursion a `scan` over time in log space.

The targets, padded to [N, S], are extended with blanks to 2S+1 states (blank, y1, blank, y2,
..., blank). alpha[t, s] is the log-probability of all paths through the first t+1 frames that
end in state s:

    alpha[t, s] = logsumexp(alpha[t-1, s], alpha[t-1, s-1], alpha[t-1, s-2] if s holds a label
                            that differs from the one two states back) + log_probs[t, ext[s]]

started from a virtual alpha[-1] = (0, -inf, ...), so one step gives alpha[0] = (lp(blank),
lp(y1), -inf, ...). A sample's alpha stops moving after its input length; its loss is
-logsumexp(alpha[2 tl], alpha[2 tl - 1]).

The gradient is MindSpore's (measured equal to torch's): with respect to log_probs it is
exp(log_probs) - the state occupancy, torch's rule, which assumes log_probs is a log_softmax
(then the gradient reaching the logits is the exact one either way). The exact gradient of the
recursion is -occupancy; a zero-valued term, exp(lp) - stop_gradient(exp(lp)) over each
sample's frames, adds the difference.
"""
from __future__ import annotations

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from . import functional as F
from .losses import _tensor, check_reduction
from .scan_loop import scan

__all__ = ["ctc_loss"]

_NEG_INF = float("-inf")


def _logsumexp(*terms):
    """log(sum(exp(terms))), elementwise, -inf where every term is -inf, with finite
    gradients there (0), so a state no path reaches passes no NaN back."""
    top = terms[0]
    for term in terms[1:]:
        top = F.maximum(top, term)
    top = F.stop_gradient(top)       # the max's own gradient cancels exactly
    reached = F.not_equal(top, _NEG_INF)
    shift = F.select(reached, top, 0.0)
    total = F.exp(F.sub(terms[0], shift))
    for term in terms[1:]:
        total = F.add(total, F.exp(F.sub(term, shift)))
    return F.select(reached, F.add(F.log(F.select(reached, total, 1.0)), shift), _NEG_INF)


def _shift_right(x, k: int):
    """x moved k states along axis 1, -inf filling the first k."""
    n, length = x.shape
    fill = F.full((n, min(k, length)), _NEG_INF, x.dtype)
    if k >= length:
        return fill
    return F.concat([fill, F.slice_axis(x, 1, 0, length - k)], 1)


def _check(log_probs, targets, input_lengths, target_lengths, blank):
    op = "ctc_loss"
    for name, value in (("log_probs", log_probs), ("targets", targets), ("input_lengths", input_lengths),
                        ("target_lengths", target_lengths)):
        _tensor(value, name, op)
    if log_probs.dtype not in (mstype.float32, mstype.float64):
        raise TypeError(f"For '{op}', 'log_probs' must be float32 or float64, but got {log_probs.dtype}.")
    for name, value in (("targets", targets), ("input_lengths", input_lengths), ("target_lengths", target_lengths)):
        if value.dtype not in (mstype.int32, mstype.int64):
            raise TypeError(f"For '{op}', '{name}' must be int32 or int64, but got {value.dtype}.")
    if log_probs.ndim != 3:
        raise ValueError(f"For '{op}', 'log_probs' must be [T, N, C] (3-D), but got shape {list(log_probs.shape)}.")
    _, n, c = log_probs.shape
    if targets.ndim != 2 or targets.shape[0] != n:
        raise ValueError(f"For '{op}', 'targets' must be [N, S] with N = {n}, but got shape {list(targets.shape)}.")
    for name, value in (("input_lengths", input_lengths), ("target_lengths", target_lengths)):
        if tuple(value.shape) != (n,):
            raise ValueError(f"For '{op}', '{name}' must be [N] with N = {n}, but got shape {list(value.shape)}.")
    if isinstance(blank, bool) or not isinstance(blank, int) or not 0 <= blank < c:
        raise ValueError(f"For '{op}', the blank must be in [0,{c}), but got {blank}.")
    # MindSpore's kernel checks these when it runs; here eagerly (traced lengths cannot be read)
    for name, value, most in (("input_lengths", input_lengths, log_probs.shape[0]),
                              ("target_lengths", target_lengths, targets.shape[1])):
        if not value.is_symbolic:
            bad = np.asarray(value.asnumpy())
            bad = bad[(bad < 0) | (bad > most)]
            if bad.size:
                raise ValueError(f"For '{op}', every '{name}' must be in [0, {most}], but got {bad.flat[0]}.")


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """The CTC loss of log-probabilities `log_probs` [T, N, C] against padded `targets` [N, S],
    with each sample's `input_lengths` and `target_lengths` [N]. Returns (loss, log_alpha) as
    MindSpore 2.10 does: loss [N] with reduction 'none', else a scalar ('mean' divides each
    loss by its target length, at least 1, then averages); log_alpha [N, T, 2S+1], the forward
    variables, -inf past a sample's input length and its 2 * target_length + 1 states.

    A target no path can produce (input too short) costs +inf with a NaN gradient over that
    sample's frames (2.10's and torch's), or 0 with a zero gradient with `zero_infinity` (torch's
    rule; 2.10 zeroes the gradient but returns the inf, contrary to its documentation). MindSpore
    2.10's CPU kernel raises when an input length is below its target length. float32 and
    float64, as MindSpore."""
    _check(log_probs, targets, input_lengths, target_lengths, blank)
    check_reduction(reduction, "ctc_loss")
    if not isinstance(zero_infinity, bool):
        raise TypeError(f"For 'ctc_loss', 'zero_infinity' must be a bool, but got {type(zero_infinity).__name__}.")
    loss, log_alpha = ctc_forward(log_probs, targets, input_lengths, target_lengths, blank)
    impossible = F.equal(loss, float("inf"))
    if zero_infinity:
        loss = F.select(impossible, F.zeros_like(loss), loss)
    else:
        loss = _nan_gradient_where_impossible(loss, impossible, log_probs, input_lengths)
    if reduction == "mean":
        loss = F.mean(F.div(loss, F.cast(F.maximum(F.cast(target_lengths, mstype.int32), 1), log_probs.dtype)))
    elif reduction == "sum":
        loss = F.reduce_sum(loss)
    return loss, log_alpha


def _nan_gradient_where_impossible(loss, impossible, log_probs, input_lengths):
    """`loss` unchanged, its gradient NaN over an impossible sample's frames (0 past its input
    length), as MindSpore 2.10's and torch's (exp(lp) - exp(log_alpha + log_beta + inf - lp)).
    A term of value 0 * NaN whose loss is then selected away: its cotangent (0) times the NaN
    scale gives the NaN gradient, while the value keeps the inf."""
    steps = log_probs.shape[0]
    frames = F.less(Tensor(np.arange(steps, dtype=np.int32).reshape(steps, 1)),
                    F.expand_dims(F.cast(input_lengths, mstype.int32), 0))
    nan_scale = F.stop_gradient(F.select(F.logical_and(frames, F.expand_dims(impossible, 0)), float("nan"), 0.0))
    zero = F.sub(log_probs, F.stop_gradient(log_probs))
    term = F.reduce_sum(F.mul(zero, F.cast(F.expand_dims(nan_scale, 2), log_probs.dtype)), (0, 2))
    return F.select(impossible, loss, F.add(loss, term))


def ctc_forward(log_probs, targets, input_lengths, target_lengths, blank: int, merge_repeated: bool = True):
    """(each sample's loss [N], log_alpha [N, T, 2S+1]) on checked operands. With
    `merge_repeated=False` (CTCLoss v1's ctc_merge_repeated, TensorFlow's rule) a label state
    cannot repeat from one frame to the next (each frame of a label is its own output symbol;
    blanks still can), and two equal labels need no blank between them."""
    steps, n, _ = log_probs.shape
    s = targets.shape[1]
    states = 2 * s + 1
    dtype = log_probs.dtype
    targets = F.cast(targets, mstype.int32)
    input_lengths = F.cast(input_lengths, mstype.int32)
    target_lengths = F.cast(target_lengths, mstype.int32)

    blanks = F.full((n, s), blank, mstype.int32)
    ext = F.concat([F.reshape(F.stack([blanks, targets], 2), (n, 2 * s)), F.full((n, 1), blank, mstype.int32)], 1)
    two_back = F.concat([F.full((n, 2), blank, mstype.int32), F.slice_axis(ext, 1, 0, states - 2)], 1) \
        if states > 2 else F.full((n, states), blank, mstype.int32)
    label_state = Tensor((np.arange(states) % 2 == 1) & (np.arange(states) >= 2))
    # without merging, a repeated label is its own symbol: it may follow its twin directly
    may_skip = F.logical_and(label_state, F.not_equal(ext, two_back)) if merge_repeated else label_state
    may_stay = Tensor(np.arange(states) % 2 == 0)   # the blanks' states
    # the log-probability of each state's symbol at every frame: [T, N, 2S+1]
    emit = F.gather_elements(log_probs, 2, F.broadcast_to(F.expand_dims(ext, 0), (steps, n, states)))
    live_state = F.less(Tensor(np.arange(states, dtype=np.int32)), F.expand_dims(F.add(F.mul(target_lengths, 2), 1), 1))

    def step(alpha, frame):
        emit_t, t = frame
        skip = F.select(may_skip, _shift_right(alpha, 2), _NEG_INF)
        stay = alpha if merge_repeated else F.select(may_stay, alpha, _NEG_INF)
        new = F.add(_logsumexp(stay, _shift_right(alpha, 1), skip), emit_t)
        running = F.expand_dims(F.less(t, input_lengths), 1)
        shown = F.select(F.logical_and(running, live_state), new, _NEG_INF)
        return F.select(running, new, alpha), shown

    start = Tensor(np.where(np.arange(states) == 0, 0.0, -np.inf).astype(dtype.name))
    alpha, shown = scan(step, F.broadcast_to(start, (n, states)), (emit, Tensor(np.arange(steps, dtype=np.int32))))
    # MindSpore's CTCLossV2 passes no gradient back through log_alpha (measured: its grad is 0)
    log_alpha = F.stop_gradient(F.transpose(shown, (1, 0, 2)))

    last = F.gather_elements(alpha, 1, F.expand_dims(F.mul(target_lengths, 2), 1))
    before = F.gather_elements(alpha, 1, F.expand_dims(F.maximum(F.sub(F.mul(target_lengths, 2), 1), 0), 1))
    before = F.select(F.expand_dims(F.greater(target_lengths, 0), 1), before, _NEG_INF)
    loss = F.neg(F.reshape(_logsumexp(last, before), (n,)))
    # torch's and MindSpore's gradient: + exp(lp) over each sample's frames (value 0, see the module doc)
    probs = F.exp(log_probs)
    frames = F.cast(F.less(Tensor(np.arange(steps, dtype=np.int32).reshape(steps, 1)),
                           F.expand_dims(input_lengths, 0)), dtype)
    loss = F.add(loss, F.reduce_sum(F.mul(F.sub(probs, F.stop_gradient(probs)), F.expand_dims(frames, 2)), (0, 2)))
    return loss, log_alpha

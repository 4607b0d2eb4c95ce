"""The ONNX rule for svd (ops/linalg.py): one-sided Jacobi (Hestenes) in ONNX Loops, for static
matrix sizes; the leading (batch) axes may be dynamic. The node count does not grow with the
matrix size: both loops index constant tables by their iteration counter.

For an m x n matrix, let p = max(m, n), q = min(m, n), and X the q x p matrix whose rows are
the columns of A (tall or square: X = A^T) or the rows of A (wide: X = A). The first Loop
rotates pairs of X's rows until every pair is orthogonal, accumulating the rotations in G
(q x q, from the identity):

- a sweep is q - 1 steps of q / 2 disjoint pairs (the round-robin "circle" schedule, with a
  zero row added when q is odd, which no rotation moves), every pair once a sweep; a step
  gathers the pairs' rows, rotates them at once and puts them back by the inverse
  permutation. The rotation zeroes the pair's inner product (Rutishauser's formula).
- it stops after the first sweep in which no pair's |x_i . x_j| / (|x_i| |x_j|) exceeded
  1e-15 sqrt(p) (4 to 8 sweeps for random matrices up to 32 x 20), or after 30 sweeps.
  Stopping on this relative measure is what gives the small singular values, and the rows
  that belong to them, their relative accuracy (Demmel and Veselic, 1992).

The singular values are the rows' norms, sorted descending (TopK, then a one-hot MatMul
permutes the rows, exactly). The rows divided by their norms are the p-sized singular
vectors (u when tall, v when wide), G's rows the q-sized ones. The second Loop completes the
p-sized ones to as many as the output has (q, or p with full_matrices): a row whose singular
value is 0 (rank deficiency), and each row past q, becomes e_j projected off the rows before
it, for the e_j that keeps the most (the largest diagonal entry of I - Z^T Z, at least
(p - i) / p), projected twice and normalized.

Everything is computed in float64 (a float32 input too, and the results cast back), on
A / max|A|, so that squares neither overflow nor underflow.

Signs: each pair of singular vectors is defined up to a common sign, which each algorithm
picks its own way (MindSpore 2.10's CPU kernel follows neither LAPACK's gesdd, which jax
runs, nor any simple rule, measured). The jax lowering and this rule both flip every pair so
that the largest-magnitude entry of u's column is positive (scikit-learn's `svd_flip`
convention; of entries within 0.1% of the largest, the first, so that a symmetric matrix's
(1, -1) / sqrt(2) gets the same sign on both), and a column of u or v that has no singular
value (full_matrices) by its own: the two backends then agree elementwise wherever the
vectors are unique (distinct singular values, and no entry just at 0.1% from the largest).
Where they are not unique (repeated singular values, the zero ones, the extra columns of
full_matrices past one) only the spaces they span agree.
"""
from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper

from ..ops.linalg import SIGN_ENTRY_TIE
from .onnx import onnx_dtype
from .onnx_linalg import _last2, _transpose_last2

MAX_SWEEPS = 30
TINY = 1e-300          # guards divisions by zero (a zero pair, a zero row)
ZERO_SINGULAR = 1e-140  # a singular value of A / max|A| at or below this is 0 (its row is completed):
#                         an exact 0, or a row whose squares near float64's underflow


def round_robin(q: int):
    """(left, right, inverse) index tables for q (even) rows: step t rotates the pairs
    (left[t][k], right[t][k]); inverse[t] puts the rows back from concat(left, right)."""
    players = list(range(q))
    left, right = [], []
    for _ in range(q - 1):
        left.append(players[:q // 2])
        right.append(players[q // 2:][::-1])
        players = [players[0], players[-1]] + players[1:-1]
    left, right = np.array(left, np.int64), np.array(right, np.int64)
    inverse = np.argsort(np.concatenate([left, right], axis=1), axis=1).astype(np.int64)
    return left, right, inverse


class _Body:
    """Builds one Loop body: ops go to a child builder, in the node's scope."""

    def __init__(self, ctx):
        self.ctx, self.b = ctx, ctx.b.child()

    def op(self, op_type, *inputs, n_out=1, **attrs):
        return self.b.op(op_type, inputs, scope=self.ctx.scope, n_out=n_out, **attrs)

    __call__ = op

    def f64(self, value):
        return self.b.const(np.asarray(value, np.float64))

    def graph(self, inputs: list, outputs: list, kind: str):
        """The body GraphProto; inputs and outputs are (name, shape-or-None, onnx type) with the
        iteration counter and condition first."""
        infos = lambda items: [helper.make_tensor_value_info(n, t, s) for n, s, t in items]  # noqa: E731
        return helper.make_graph(self.b.nodes, self.b.unique(kind), infos(inputs), infos(outputs))


def _rows_dims(ctx, rows, cols):
    """The dims of a [..., rows, cols] value with this node's batch axes (ints and named Syms)."""
    batch = ctx.in_dims[0][:-2]
    return [str(d) if not isinstance(d, int) else d for d in batch] + [rows, cols]


def _jacobi(ctx, x, p: int, q: int):
    """X [..., qe, p] (float64, qe even) -> (X rotated to orthogonal rows, G [..., qe, qe])."""
    qe = q + q % 2
    steps = qe - 1
    left, right, inverse = round_robin(qe)
    g0 = ctx.op("Expand", ctx.const(np.eye(qe)),
                ctx.op("Concat", ctx.op("Shape", x, end=-2), ctx.ints([qe, qe]), axis=0))
    body = _Body(ctx)
    b = body.b
    it, cond, x_in, g_in, worst_in = (b.unique(n) for n in ("iteration", "condition", "rows", "rotations", "worst"))
    step = body("Mod", it, b.ints(steps))
    at_l, at_r, back = (body("Gather", b.const(table), step, axis=0) for table in (left, right, inverse))
    l, r = body("Gather", x_in, at_l, axis=-2), body("Gather", x_in, at_r, axis=-2)         # [..., qe/2, p]
    dot = lambda u, v: body("ReduceSum", body("Mul", u, v), b.ints([-1]), keepdims=1)  # noqa: E731
    alpha, beta, gamma = dot(l, l), dot(r, r), dot(l, r)                                    # [..., qe/2, 1]
    # how far from orthogonal the pairs were, the largest this sweep
    ratio = body("Div", body("Abs", gamma), body("Max", body("Sqrt", body("Mul", alpha, beta)), body.f64(TINY)))
    first = body("Equal", step, b.ints(0))
    worst = body("Max", body("Where", first, body.f64(0.0), worst_in), body("ReduceMax", ratio, keepdims=0))
    # t = tan of the angle zeroing gamma: 2 gamma sgn(d) / (|d| + sqrt(d^2 + 4 gamma^2)), d = beta - alpha
    d = body("Sub", beta, alpha)
    sgn = body("Where", body("Less", d, body.f64(0.0)), body.f64(-1.0), body.f64(1.0))
    two_gamma = body("Add", gamma, gamma)
    root = body("Sqrt", body("Add", body("Mul", d, d), body("Mul", two_gamma, two_gamma)))
    t = body("Div", body("Mul", two_gamma, sgn), body("Max", body("Add", body("Abs", d), root), body.f64(TINY)))
    c = body("Div", body.f64(1.0), body("Sqrt", body("Add", body.f64(1.0), body("Mul", t, t))))
    s = body("Mul", c, t)

    def rotate(l, r):   # the pairs rotated, back in their rows
        new_l = body("Sub", body("Mul", c, l), body("Mul", s, r))
        new_r = body("Add", body("Mul", s, l), body("Mul", c, r))
        return body("Gather", body("Concat", new_l, new_r, axis=-2), back, axis=-2)
    x_out = body("Identity", rotate(l, r))
    g_l, g_r = body("Gather", g_in, at_l, axis=-2), body("Gather", g_in, at_r, axis=-2)
    g_out = body("Identity", rotate(g_l, g_r))
    tol = 1e-15 * np.sqrt(p)
    again = body("Or", body("Not", body("Equal", step, b.ints(steps - 1))), body("Greater", worst, body.f64(tol)))
    D = TensorProto.DOUBLE
    graph = body.graph(
        [(it, [], TensorProto.INT64), (cond, [], TensorProto.BOOL), (x_in, _rows_dims(ctx, qe, p), D),
         (g_in, _rows_dims(ctx, qe, qe), D), (worst_in, [], D)],
        [(again, [], TensorProto.BOOL), (x_out, _rows_dims(ctx, qe, p), D), (g_out, _rows_dims(ctx, qe, qe), D),
         (worst, [], D)], "jacobi")
    x, g, _ = ctx.op("Loop", ctx.ints(MAX_SWEEPS * steps), ctx.const(np.asarray(True)), x, g0,
                     ctx.const(np.asarray(0.0)), n_out=3, body=graph)
    return x, g


def _complete(ctx, z, good, rows: int, p: int):
    """Z [..., rows, p] (float64) with `good` [..., rows, 1] (1.0 or 0.0): each row that is not
    good becomes the unit vector orthogonal to the rows before it that keeps the most of some e_j."""
    body = _Body(ctx)
    b = body.b
    it, cond, z_in = b.unique("row"), b.unique("condition"), b.unique("vectors")
    index = b.const(np.arange(rows, dtype=np.int64).reshape(rows, 1))
    this = body("Equal", index, it)                                                       # [rows, 1]
    before = body("Mul", z_in, body("Cast", body("Less", index, it), to=TensorProto.DOUBLE))
    kept = body("Sub", body.f64(1.0), body("ReduceSum", body("Mul", before, before), b.ints([-2]), keepdims=1))
    j = body("ArgMax", kept, axis=-1, keepdims=1)                                         # [..., 1, 1]
    e_j = body("Cast", body("Equal", b.const(np.arange(p, dtype=np.int64)), j), to=TensorProto.DOUBLE)  # [.., 1, p]
    before_t = _transpose_last2(body, before, len(ctx.in_dims[0]))

    def project(v):   # v less its part in the rows before
        return body("Sub", v, body("MatMul", body("MatMul", v, before_t), before))
    v = project(project(e_j))
    v = body("Div", v, body("Sqrt", body("ReduceSum", body("Mul", v, v), b.ints([-1]), keepdims=1)))
    good_here = body("ReduceSum", body("Mul", good, body("Cast", this, to=TensorProto.DOUBLE)), b.ints([-2]),
                     keepdims=1)                                                          # [..., 1, 1]
    replace = body("And", this, body("Less", good_here, body.f64(0.5)))                   # [..., rows, 1]
    z_out = body("Where", replace, v, z_in)
    again = body("Identity", cond)
    D = TensorProto.DOUBLE
    graph = body.graph([(it, [], TensorProto.INT64), (cond, [], TensorProto.BOOL), (z_in, _rows_dims(ctx, rows, p), D)],
                       [(again, [], TensorProto.BOOL), (z_out, _rows_dims(ctx, rows, p), D)], "complete")
    return ctx.op("Loop", ctx.ints(rows), ctx.const(np.asarray(True)), z, body=graph)


def _reduce_max(ctx, x, axes):
    if ctx.opset >= 18:
        return ctx.op("ReduceMax", x, ctx.ints(axes), keepdims=1)
    return ctx.op("ReduceMax", x, axes=axes, keepdims=1)


def _largest_entry_sign(ctx, rows):
    """[..., r, c] -> [..., r, 1]: the sign (0 counts as +) of each row's first entry within
    SIGN_ENTRY_TIE of its largest magnitude (the jax lowering's `_largest_entry_signs`)."""
    magnitude = ctx.op("Abs", rows)
    bar = ctx.op("Mul", _reduce_max(ctx, magnitude, [-1]), ctx.const(np.asarray(1 - SIGN_ENTRY_TIE)))
    near = ctx.op("Cast", ctx.op("GreaterOrEqual", magnitude, bar), to=TensorProto.DOUBLE)
    at = ctx.op("ArgMax", near, axis=-1, keepdims=1)
    entry = ctx.op("GatherElements", rows, at, axis=-1)
    return ctx.op("Where", ctx.op("Less", entry, ctx.const(np.asarray(0.0))), ctx.const(np.asarray(-1.0)),
                  ctx.const(np.asarray(1.0)))


def svd(ctx, a, *, full_matrices, compute_uv):
    t = ctx.in_types[0]
    rank, (m, n) = t.ndim, t.shape[-2:]
    p, q, tall = max(m, n), min(m, n), m >= n
    x = ctx.op("Cast", _transpose_last2(ctx, a, rank) if tall else a, to=TensorProto.DOUBLE)   # [..., q, p]
    scale = _reduce_max(ctx, ctx.op("Abs", x), [-2, -1])
    zero = ctx.const(np.asarray(0.0))
    scale = ctx.op("Where", ctx.op("Equal", scale, zero), ctx.const(np.asarray(1.0)), scale)
    x = ctx.op("Div", x, scale)
    if q % 2:   # a zero row: the schedule wants pairs
        x = ctx.op("Pad", x, ctx.ints([0] * (rank - 2) + [0, 0] + [0] * (rank - 2) + [1, 0]))
    x, g = _jacobi(ctx, x, p, q)
    if q % 2:
        x, g = _last2(ctx, x, (0, q), None), _last2(ctx, g, (0, q), (0, q))
    norms = ctx.op("Sqrt", ctx.op("ReduceSum", ctx.op("Mul", x, x), ctx.ints([-1]), keepdims=0))   # [..., q]
    sigma, order = ctx.op("TopK", norms, ctx.ints([q]), axis=-1, largest=1, sorted=1, n_out=2)
    out_dtype = onnx_dtype(t.dtype)
    s = ctx.op("Cast", ctx.op("Mul", sigma, ctx.op("Squeeze", scale, ctx.ints([-1]))), to=out_dtype)
    if not compute_uv:
        return [s]
    # the rows in that order: a one-hot [..., q, q] permutation, applied by MatMul (exactly)
    moves = ctx.op("Cast", ctx.op("Equal", ctx.op("Unsqueeze", order, ctx.ints([-1])),
                                  ctx.const(np.arange(q, dtype=np.int64))), to=TensorProto.DOUBLE)
    x, g = ctx.op("MatMul", moves, x), ctx.op("MatMul", moves, g)
    sigma = ctx.op("Unsqueeze", sigma, ctx.ints([-1]))                                        # [..., q, 1]
    good = ctx.op("Greater", sigma, ctx.const(np.asarray(ZERO_SINGULAR)))
    z = ctx.op("Div", x, ctx.op("Where", good, sigma, ctx.const(np.asarray(1.0))))
    rows = p if full_matrices else q
    good = ctx.op("Cast", good, to=TensorProto.DOUBLE)
    if rows > q:
        pad = ctx.ints([0] * (rank - 2) + [0, 0] + [0] * (rank - 2) + [rows - q, 0])
        z, good = ctx.op("Pad", z, pad), ctx.op("Pad", good, pad)
    z = _complete(ctx, z, good, rows, p)
    # the signs: u's largest entry positive in each pair; the columns without a pair by their own
    z_sign = _largest_entry_sign(ctx, z)
    if tall:
        u_rows, v_rows = ctx.op("Mul", z, z_sign), ctx.op("Mul", g, _last2(ctx, z_sign, (0, q), None))
    else:
        g_sign = _largest_entry_sign(ctx, g)
        pair_signs = g_sign if rows == q else ctx.op("Concat", g_sign, _last2(ctx, z_sign, (q, rows), None), axis=-2)
        u_rows, v_rows = ctx.op("Mul", g, g_sign), ctx.op("Mul", z, pair_signs)
    u, v = (ctx.op("Cast", _transpose_last2(ctx, r, rank), to=out_dtype) for r in (u_rows, v_rows))
    return [s, u, v]


RULES = {"svd": svd}

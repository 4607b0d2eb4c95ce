"""The ONNX rule for eig (ops/eig_ops.py): the complex Schur form by the shifted QR algorithm, for
static matrix sizes; leading (batch) axes, dynamic ones too, are flattened into one. The model
computes in float64 on separate real and imaginary tensors (a float32 or complex64 input too, the
results cast back) and returns onnx_complex's pairs.

For an n x n matrix A, scaled by max_ij max(|Re A_ij|, |Im A_ij|) (so that squares neither overflow
nor underflow):

- Hessenberg reduction, unrolled over the n - 2 columns: complex Householder reflections
  I - tau v v^H that zero column k below row k + 1, applied on both sides (H = Q^H A Q), Q
  accumulated from the identity; ~90 nodes a column.
- the QR algorithm in one Loop, an iteration being one implicit single-shift QR sweep on the
  active block [lo, hi] (the last unreduced block; lo and hi per matrix, the rotations outside
  it masked to the identity): the first Givens rotation is that of (H_lo,lo - mu, H_lo+1,lo), the
  others chase the bulge down; each is applied to two rows and two columns of H and two
  columns of Q (static slices; Q only with compute_v). mu is the
  Wilkinson shift (the eigenvalue of H's trailing 2 x 2 block nearer its last entry), and every
  tenth sweep an exceptional shift H_hi,hi + 0.75 |H_hi,hi-1| (LAPACK's), which breaks the cycles
  of a Jordan block. A subdiagonal entry is negligible, and set to 0, at or below
  eps (|H_i-1,i-1| + |H_ii|) or eps ||H||_F (eps = 2^-52, ||H||_F ~ 1 after the scaling).
- it stops when every subdiagonal entry of every matrix is negligible, or after 30 max(n, 10)
  sweeps (LAPACK's cap), with whatever it has then. Random 8 x 8 matrices take 20 to 30 sweeps
  (measured; a batch runs until its slowest member is done), 5 x 5 ones about 15, triangular
  and diagonal ones 1, an 8 x 8 Jordan block 30 to 45.

The eigenvalues are diag(T) times the scale. With compute_v, the eigenvectors of the upper
triangular T by back-substitution, all eigenvalues at once (unrolled over the rows: y_jj = 1,
y_ij = -(T_i,i+1: y_i+1:,j) / (T_ii - w_j) for i < j, a divisor smaller than eps taken as eps,
LAPACK's trevc), then V = Q Y with unit columns, each multiplied by the phase that makes its
largest-magnitude entry real and positive (LAPACK's geev makes it real; for a complex input
positive too, for a real one its sign is the algorithm's: the two agree up to that sign).

Order: ascending |w| as the jax lowering sorts LAPACK's eigenvalues; magnitudes equal in float32
(a conjugate pair, which LAPACK puts +imag first) are ordered by descending imaginary part, then
by position. Eigenvalues whose magnitudes are closer than that, or exactly equal, may come in
another order than LAPACK's (the two algorithms' diagonals differ); their values agree.

Accuracy, measured against numpy (float64 input, relative to max|A|, sizes 1 to 8): eigenvalues
3e-14 at most (random real, complex, symmetric, triangular, diagonal with repeats, rotations),
eps^(1/k) for a k x k Jordan block (numpy's are as far off); residuals |A v - w v| 5e-15 at most;
vectors 5e-15 from LAPACK's (up to the sign) where eigenvalues are apart. float32 input: the same
computation, the results rounded (1e-7 relative).

Costs, n = 8, float64: eigenvalues only 453 nodes and a Loop body of 1,050 (95 kB), with vectors
856 and 1,265 (136 kB); onnxruntime ~30 ms for one matrix (24 sweeps of ~1 ms; LAPACK: 0.08 ms),
~70 ms (values) and ~200 ms (vectors) for 64. The body grows with n (about 150 nodes a rotation),
the rest with n too (the Hessenberg columns, the back-substitution's rows).

Not supported: dynamic matrix sizes (refused by name; dynamic batch axes are fine) and empty
matrices. eigvals' gradient exports: its complex matrix products are onnx_complex's dot_general.
"""
from __future__ import annotations

import numpy as np
from onnx import TensorProto

from .onnx import onnx_dtype
from .onnx_complex import pair, part
from .onnx_linalg import refuse_dynamic_matrix
from .onnx_svd import _Body

EPS = 2.0 ** -52
TINY = 1e-300
EXCEPTIONAL_EVERY = 10


# -- complex arithmetic on (real, imaginary) float64 pairs of names; `g` is a LowerCtx or a _Body

def _f64(g, value):
    return g.b.const(np.asarray(value, np.float64))


def _add(g, x, y):
    return g.op("Add", x[0], y[0]), g.op("Add", x[1], y[1])


def _sub(g, x, y):
    return g.op("Sub", x[0], y[0]), g.op("Sub", x[1], y[1])


def _mul(g, x, y):
    return (g.op("Sub", g.op("Mul", x[0], y[0]), g.op("Mul", x[1], y[1])),
            g.op("Add", g.op("Mul", x[0], y[1]), g.op("Mul", x[1], y[0])))


def _scale(g, x, c):
    """x times the real c."""
    return g.op("Mul", x[0], c), g.op("Mul", x[1], c)


def _conj(g, x):
    return x[0], g.op("Neg", x[1])


def _abs2(g, x):
    return g.op("Add", g.op("Mul", x[0], x[0]), g.op("Mul", x[1], x[1]))


def _div(g, x, y):
    return _scale(g, _mul(g, x, _conj(g, y)), g.op("Reciprocal", _abs2(g, y)))


def _where(g, cond, x, y):
    return g.op("Where", cond, x[0], y[0]), g.op("Where", cond, x[1], y[1])


def _matmul(g, x, y):
    mm = lambda u, v: g.op("MatMul", u, v)   # noqa: E731
    return (g.op("Sub", mm(x[0], y[0]), mm(x[1], y[1])), g.op("Add", mm(x[0], y[1]), mm(x[1], y[0])))


def _sqrt(g, z):
    """The principal square root: (sqrt((r + x) / 2), sign(y) sqrt((r - x) / 2))."""
    r = g.op("Sqrt", _abs2(g, z))
    half = _f64(g, 0.5)
    re = g.op("Sqrt", g.op("Mul", g.op("Max", g.op("Add", r, z[0]), _f64(g, 0.0)), half))
    im = g.op("Sqrt", g.op("Mul", g.op("Max", g.op("Sub", r, z[0]), _f64(g, 0.0)), half))
    negative = g.op("Less", z[1], _f64(g, 0.0))
    return re, g.op("Where", negative, g.op("Neg", im), im)


def _slice(g, x, axis, start, end):
    ints = g.b.ints
    return g.op("Slice", x[0], ints([start]), ints([end]), ints([axis])), \
        g.op("Slice", x[1], ints([start]), ints([end]), ints([axis]))


def _concat(g, parts, axis):
    parts = [p for p in parts if p is not None]
    if len(parts) == 1:
        return parts[0]
    return g.op("Concat", *[p[0] for p in parts], axis=axis), g.op("Concat", *[p[1] for p in parts], axis=axis)


def _diag(g, x, n, offset=0):
    """[B, n, n] -> [B, n]: entry i is x[i, i - offset] (0 where that is outside)."""
    mask = np.eye(n, k=-offset)
    return tuple(g.op("ReduceSum", g.op("Mul", p, _f64(g, mask)), g.b.ints([-1]), keepdims=0) for p in x)


# -- Hessenberg reduction ---------------------------------------------------------------------------

def _hessenberg(ctx, h, q, n):
    """H = Q^H A Q upper Hessenberg, Q unitary (both [B, n, n] pairs; q starts as the identity)."""
    rows = np.arange(n).reshape(n, 1)
    zero = _f64(ctx, 0.0)
    for k in range(n - 2):
        column = _slice(ctx, h, -1, k, k + 1)                                            # [B, n, 1]
        x = tuple(ctx.op("Where", ctx.const(rows > k), p, zero) for p in column)          # rows k+1..
        alpha = _slice(ctx, column, -2, k + 1, k + 2)                                     # [B, 1, 1]
        norm2 = ctx.op("ReduceSum", _abs2(ctx, x), ctx.ints([-2]), keepdims=1)
        norm, alpha_abs = ctx.op("Sqrt", norm2), ctx.op("Sqrt", _abs2(ctx, alpha))
        # v = x + phase(alpha) |x| e_k+1 (no cancellation), tau = 2 / v^H v = 1 / (|x| (|x| + |alpha|))
        unit = ctx.op("Greater", alpha_abs, zero)
        phase = _where(ctx, unit, _scale(ctx, alpha, ctx.op("Reciprocal", ctx.op("Max", alpha_abs, _f64(ctx, TINY)))),
                       (_f64(ctx, 1.0), zero))
        e = ctx.const((rows == k + 1).astype(np.float64))
        v = _add(ctx, x, _scale(ctx, phase, ctx.op("Mul", norm, e)))
        vhv = ctx.op("Mul", norm, ctx.op("Add", norm, alpha_abs))
        reflect = ctx.op("Greater", vhv, _f64(ctx, TINY))
        tau = ctx.op("Where", reflect, ctx.op("Reciprocal", ctx.op("Max", vhv, _f64(ctx, TINY))), zero)
        v_h = tuple(ctx.op("Transpose", p, perm=[0, 2, 1]) for p in _conj(ctx, v))        # [B, 1, n]
        tv = _scale(ctx, v, tau)
        h = _sub(ctx, h, _matmul(ctx, tv, _matmul(ctx, v_h, h)))                          # (I - tau v v^H) H
        h = _sub(ctx, h, _matmul(ctx, _matmul(ctx, h, tv), v_h))                          # ... (I - tau v v^H)
        if q is not None:
            q = _sub(ctx, q, _matmul(ctx, _matmul(ctx, q, tv), v_h))
    below = ctx.const(np.tril(np.ones((n, n), bool), -2))
    return _where(ctx, below, (zero, zero), h), q


# -- the QR algorithm -------------------------------------------------------------------------------

def _givens(g, x, y):
    """(c real, s) with [[c, s], [-conj(s), c]] [x; y] = [r; 0]."""
    nx = g.op("Sqrt", _abs2(g, x))
    r = g.op("Sqrt", g.op("Add", _abs2(g, x), _abs2(g, y)))
    safe_r = g.op("Max", r, _f64(g, TINY))
    phase = _where(g, g.op("Greater", nx, _f64(g, 0.0)), _scale(g, x, g.op("Reciprocal", g.op("Max", nx, _f64(g, TINY)))),
                   (_f64(g, 1.0), _f64(g, 0.0)))
    c = g.op("Div", nx, safe_r)
    s = _scale(g, _mul(g, phase, _conj(g, y)), g.op("Reciprocal", safe_r))
    zero_r = g.op("Not", g.op("Greater", r, _f64(g, 0.0)))
    return g.op("Where", zero_r, _f64(g, 1.0), c), _where(g, zero_r, (_f64(g, 0.0), _f64(g, 0.0)), s)


def _rotate(g, m, k, c, s, axis):
    """Rows (axis -2: G m) or columns (axis -1: m G^H) k, k + 1 of m rotated."""
    a, b = _slice(g, m, axis, k, k + 1), _slice(g, m, axis, k + 1, k + 2)
    if axis == -2:
        new_a = _add(g, _scale(g, a, c), _mul(g, s, b))
        new_b = _sub(g, _scale(g, b, c), _mul(g, _conj(g, s), a))
    else:
        new_a = _add(g, _scale(g, a, c), _mul(g, _conj(g, s), b))
        new_b = _sub(g, _scale(g, b, c), _mul(g, s, a))
    return new_a, new_b


def _put(g, m, k, new_a, new_b, axis, n):
    before = _slice(g, m, axis, 0, k) if k else None
    after = _slice(g, m, axis, k + 2, n) if k + 2 < n else None
    return _concat(g, [before, new_a, new_b, after], axis)


def _shift(g, h, n, hi, sweep):
    """The Wilkinson shift of the trailing 2 x 2 block at hi ([B, 1, 1] int64), or every
    EXCEPTIONAL_EVERY-th sweep the exceptional one."""
    index = g.b.const(np.arange(n, dtype=np.int64))
    hi = g.op("Squeeze", hi, g.b.ints([-1]))                                              # [B, 1]
    at_hi = g.op("Cast", g.op("Equal", index, hi), to=TensorProto.DOUBLE)                 # [B, n]
    at_before = g.op("Cast", g.op("Equal", index, g.op("Sub", hi, g.b.ints(1))), to=TensorProto.DOUBLE)

    def pick(vector, at):
        return tuple(g.op("ReduceSum", g.op("Mul", p, at), g.b.ints([-1]), keepdims=1) for p in vector)
    diag, sub = _diag(g, h, n), _diag(g, h, n, 1)
    sup = tuple(g.op("ReduceSum", g.op("Mul", p, _f64(g, np.eye(n, k=1))), g.b.ints([-2]), keepdims=0) for p in h)
    a, d = pick(diag, at_before), pick(diag, at_hi)                                       # [B, 1]
    b, c = pick(sup, at_hi), pick(sub, at_hi)           # H[hi-1, hi], H[hi, hi-1]
    p = _scale(g, _sub(g, a, d), _f64(g, 0.5))
    bc = _mul(g, b, c)
    root = _sqrt(g, _add(g, _mul(g, p, p), bc))
    plus, minus = _add(g, p, root), _sub(g, p, root)
    den = _where(g, g.op("Less", _abs2(g, plus), _abs2(g, minus)), minus, plus)
    usable = g.op("Greater", _abs2(g, den), _f64(g, TINY))
    safe_den = _where(g, usable, den, (_f64(g, 1.0), _f64(g, 0.0)))
    wilkinson = _where(g, usable, _sub(g, d, _div(g, bc, safe_den)), d)
    exceptional = (g.op("Add", d[0], g.op("Mul", _f64(g, 0.75), g.op("Sqrt", _abs2(g, c)))), d[1])
    odd = g.op("Equal", g.op("Mod", sweep, g.b.ints(EXCEPTIONAL_EVERY)), g.b.ints(EXCEPTIONAL_EVERY - 1))
    mu = _where(g, odd, exceptional, wilkinson)
    return tuple(g.op("Unsqueeze", m, g.b.ints([-1])) for m in mu)                        # [B, 1, 1]


def _deflate(g, h, n):
    """(H with its negligible subdiagonal entries zeroed, lo, hi [B, 1, 1] int64): the last
    unreduced block is [lo, hi]; hi = 0 when H is triangular."""
    diag, sub = _diag(g, h, n), _diag(g, h, n, 1)
    diag_abs = g.op("Sqrt", _abs2(g, diag))
    prev_abs = g.op("Pad", g.op("Slice", diag_abs, g.b.ints([0]), g.b.ints([n - 1]), g.b.ints([-1])),
                    g.b.ints([0, 1, 0, 0]))
    frobenius = g.op("Sqrt", g.op("ReduceSum", _abs2(g, h), g.b.ints([-2, -1]), keepdims=0))                         # [B]
    bar = g.op("Max", g.op("Mul", g.op("Add", diag_abs, prev_abs), _f64(g, EPS)),
               g.op("Unsqueeze", g.op("Mul", frobenius, _f64(g, EPS)), g.b.ints([-1])))
    small = g.op("LessOrEqual", g.op("Sqrt", _abs2(g, sub)), bar)                        # [B, n]
    split = g.op("Or", small, g.b.const(np.arange(n) == 0))                               # row 0: a block starts
    mask = g.op("And", g.op("Unsqueeze", small, g.b.ints([-1])), g.b.const(np.eye(n, k=-1, dtype=bool)))
    h = _where(g, mask, (_f64(g, 0.0), _f64(g, 0.0)), h)
    index = g.b.const(np.arange(n, dtype=np.int64))
    zero = g.b.ints(0)
    hi = _last_max(g, g.op("Where", split, zero, index))                                  # [B, 1]
    lo = _last_max(g, g.op("Where", g.op("And", split, g.op("LessOrEqual", index, hi)), index, zero))
    unsqueeze = lambda x: g.op("Unsqueeze", x, g.b.ints([-1]))   # noqa: E731
    return h, unsqueeze(lo), unsqueeze(hi)


def _last_max(g, x):
    """ReduceMax over the last axis, kept."""
    if g.b.opset >= 18:
        return g.op("ReduceMax", x, g.b.ints([-1]), keepdims=1)
    return g.op("ReduceMax", x, axes=[-1], keepdims=1)


def _schur(ctx, h0, q0, n, batch_dim):
    """(T, Q): T = Q^H A Q upper triangular, by sweeps in one Loop (Q not computed when q0 is None)."""
    body = _Body(ctx)
    b = body.b
    it, cond, sweeps_in = b.unique("sweep"), b.unique("condition"), b.unique("sweeps")
    names = [b.unique(n_) for n_ in ("h_re", "h_im", "q_re", "q_im")[:2 if q0 is None else 4]]
    h, q = (names[0], names[1]), None if q0 is None else (names[2], names[3])
    h, lo, hi = _deflate(body, h, n)
    mu = _shift(body, h, n, hi, it)
    zero = (_f64(body, 0.0), _f64(body, 0.0))
    for k in range(n - 1):
        active = body("And", body("LessOrEqual", lo, b.ints(k)), body("Greater", hi, b.ints(k)))   # [B, 1, 1]
        row_k, row_next = _slice(body, h, -2, k, k + 1), _slice(body, h, -2, k + 1, k + 2)
        x, y = _sub(body, _slice(body, row_k, -1, k, k + 1), mu), _slice(body, row_next, -1, k, k + 1)
        if k:   # past lo: the bulge below the subdiagonal, chased down
            first = body("Equal", lo, b.ints(k))
            x = _where(body, first, x, _slice(body, row_k, -1, k - 1, k))
            y = _where(body, first, y, _slice(body, row_next, -1, k - 1, k))
        c, s = _givens(body, x, y)
        c, s = body("Where", active, c, _f64(body, 1.0)), _where(body, active, s, zero)
        h = _put(body, h, k, *_rotate(body, h, k, c, s, -2), -2, n)
        h = _put(body, h, k, *_rotate(body, h, k, c, s, -1), -1, n)
        if q is not None:
            q = _put(body, q, k, *_rotate(body, q, k, c, s, -1), -1, n)
    h = _where(body, b.const(np.tril(np.ones((n, n), bool), -2)), zero, h)   # the chased bulge's rounding
    _, _, hi_after = _deflate(body, h, n)
    again = body("Greater", body("ReduceMax", hi_after, keepdims=0), b.ints(0))
    outs = [body("Identity", p) for p in (*h, *(q or ()))]
    count = body("Add", sweeps_in, b.ints(1))
    D, dims = TensorProto.DOUBLE, [batch_dim, n, n]
    graph = body.graph([(it, [], TensorProto.INT64), (cond, [], TensorProto.BOOL)] + [(nm, dims, D) for nm in names]
                       + [(sweeps_in, [], TensorProto.INT64)],
                       [(again, [], TensorProto.BOOL)] + [(o, dims, D) for o in outs]
                       + [(count, [], TensorProto.INT64)], "schur")
    # (the sweep count is carried for inspection: the Loop's last output)
    *t_q, _ = ctx.op("Loop", ctx.ints(30 * max(n, 10)), ctx.const(np.asarray(True)), *h0, *(q0 or ()), ctx.ints(0),
                     n_out=len(names) + 1, body=graph)
    return (t_q[0], t_q[1]), None if q0 is None else (t_q[2], t_q[3])


# -- eigenvectors and order -------------------------------------------------------------------------

def _triangular_vectors(ctx, t, w, n):
    """Y [B, n, n] upper triangular with T y_j = w_j y_j, y_jj = 1 (back-substitution, all j at once)."""
    eye = np.eye(n)
    w_row = tuple(ctx.op("Unsqueeze", p, ctx.ints([-2])) for p in w)                    # [B, 1, n]
    zeros = ctx.op("Mul", w_row[0], _f64(ctx, 0.0))
    rows = [(ctx.op("Add", zeros, _f64(ctx, eye[n - 1:n])), zeros)]                     # y's last row: e_n-1
    for i in range(n - 2, -1, -1):
        below = _concat(ctx, rows[::-1], -2)                                              # rows i+1.. [B?, n-i-1, n]
        t_row = _slice(ctx, _slice(ctx, t, -2, i, i + 1), -1, i + 1, n)                   # [B, 1, n-i-1]
        total = _matmul(ctx, t_row, below)                                                # [B, 1, n]
        den = _sub(ctx, _slice(ctx, _slice(ctx, t, -2, i, i + 1), -1, i, i + 1), w_row)
        tiny = ctx.op("Less", _abs2(ctx, den), _f64(ctx, EPS * EPS))
        den = _where(ctx, tiny, (_f64(ctx, EPS), _f64(ctx, 0.0)), den)
        y = _div(ctx, total, den)
        later = ctx.const(np.arange(n) > i)
        rows.append((ctx.op("Where", later, ctx.op("Neg", y[0]), _f64(ctx, eye[i:i + 1])),
                     ctx.op("Where", later, ctx.op("Neg", y[1]), _f64(ctx, 0.0))))
    return _concat(ctx, rows[::-1], -2)


def _unit_columns(ctx, v):
    """Each column of v divided by its norm and by the phase of its largest-magnitude entry."""
    size = _abs2(ctx, v)
    at = ctx.op("ArgMax", size, axis=-2, keepdims=1)                                      # [B, 1, n]
    entry = tuple(ctx.op("GatherElements", p, at, axis=-2) for p in v)
    norm = ctx.op("Sqrt", ctx.op("ReduceSum", size, ctx.ints([-2]), keepdims=1))
    factor = ctx.op("Mul", norm, ctx.op("Sqrt", _abs2(ctx, entry)))
    return _scale(ctx, _mul(ctx, v, _conj(ctx, entry)), ctx.op("Reciprocal", ctx.op("Max", factor, _f64(ctx, TINY))))


def _ascending(ctx, w, n):
    """[B, n, n] one-hot P with P w in ascending |w| (in float32), then descending imag, then position."""
    magnitude = ctx.op("Cast", ctx.op("Sqrt", _abs2(ctx, w)), to=TensorProto.FLOAT)
    col = lambda x: ctx.op("Unsqueeze", x, ctx.ints([-1]))   # noqa: E731 - i on rows, j on columns
    row = lambda x: ctx.op("Unsqueeze", x, ctx.ints([-2]))   # noqa: E731
    m_i, m_j, im_i, im_j = col(magnitude), row(magnitude), col(w[1]), row(w[1])
    same_m = ctx.op("Equal", m_i, m_j)
    before = ctx.op("Or", ctx.op("Less", m_i, m_j), ctx.op("And", same_m, ctx.op("Or", ctx.op("Greater", im_i, im_j), ctx.op(
        "And", ctx.op("Equal", im_i, im_j), ctx.const(np.triu(np.ones((n, n), bool), 1))))))   # [B, i, j]: i first
    rank = ctx.op("ReduceSum", ctx.op("Cast", before, to=TensorProto.INT64), ctx.ints([-2]), keepdims=1)   # [B, 1, n]
    return ctx.op("Cast", ctx.op("Equal", rank, ctx.const(np.arange(n, dtype=np.int64).reshape(n, 1))),
                  to=TensorProto.DOUBLE)


# -- the rule ---------------------------------------------------------------------------------------

def schur_form(ctx, re, im, n, compute_v, batch_name="eig_batch"):
    """(T, Q, scale) for the [B, n, n] float64 matrices re + i im (im None: real): T = Q^H (A / scale) Q
    upper triangular (Hessenberg reduction, then the QR sweeps), Q None unless compute_v, scale
    [B, 1, 1] ~ max|A_ij| (1 for a zero matrix). Shared with eigh's rule (onnx_eigh.py)."""
    if im is None:
        im = ctx.op("Mul", re, _f64(ctx, 0.0))
    # max(|re|, |im|), within sqrt 2 of max|A_ij|: |A_ij|^2 would underflow for entries below 1e-154
    size = ctx.op("Max", ctx.op("Abs", re), ctx.op("Abs", im))
    scale = ctx.op("ReduceMax", size, ctx.ints([-2, -1]), keepdims=1) if ctx.opset >= 18 else \
        ctx.op("ReduceMax", size, axes=[-2, -1], keepdims=1)
    scale = ctx.op("Where", ctx.op("Greater", scale, _f64(ctx, 0.0)), scale, _f64(ctx, 1.0))   # [B, 1, 1]
    a_ = _scale(ctx, (re, im), ctx.op("Reciprocal", scale))
    q = (ctx.op("Expand", ctx.const(np.eye(n)), ctx.op("Shape", re)), ctx.op("Mul", re, _f64(ctx, 0.0))) \
        if compute_v else None
    h, q = _hessenberg(ctx, a_, q, n)
    if n > 1:
        h, q = _schur(ctx, h, q, n, batch_name)
    return h, q, scale


def eig(ctx, a, *, compute_v):
    t = ctx.in_types[0]
    refuse_dynamic_matrix(ctx, ctx.in_dims[0])
    n, rank = t.shape[-1], t.ndim
    if n == 0:
        ctx.fail("no ONNX lowering for empty matrices")
    flat = ctx.ints([-1, n, n])
    if t.dtype.is_complex:
        parts = [part(ctx, a, i, rank) for i in (0, 1)]
    else:
        parts = [a, None]
    re = ctx.op("Reshape", ctx.op("Cast", parts[0], to=TensorProto.DOUBLE), flat)
    im = ctx.op("Reshape", ctx.op("Cast", parts[1], to=TensorProto.DOUBLE), flat) if parts[1] else None
    h, q, scale = schur_form(ctx, re, im, n, compute_v)
    w = _diag(ctx, h, n)                                                                  # [B, n]
    order = _ascending(ctx, w, n)                                                         # [B, n, n]
    w_sorted = tuple(ctx.op("Squeeze", ctx.op("MatMul", order, ctx.op("Unsqueeze", p, ctx.ints([-1]))),
                            ctx.ints([-1])) for p in w)
    w_sorted = _scale(ctx, w_sorted, ctx.op("Squeeze", scale, ctx.ints([-1])))
    out_real = onnx_dtype(ctx.out_types[0].dtype.real_dtype)
    batch = list(ctx.out_dims[0][:-1])

    def out(value, dims):
        parts = [ctx.op("Reshape", p, ctx.shape_tensor(dims)) for p in value]
        return ctx.op("Cast", pair(ctx, *parts, len(dims)), to=out_real)
    values = out(w_sorted, batch + [n])
    if not compute_v:
        return [values]
    v = _matmul(ctx, q, _triangular_vectors(ctx, h, w, n))
    v = _unit_columns(ctx, v)
    v = tuple(ctx.op("MatMul", p, ctx.op("Transpose", order, perm=[0, 2, 1])) for p in v)
    return [values, out(v, batch + [n, n])]

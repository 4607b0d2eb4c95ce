"""The ONNX rule for matrix_logarithm (ops/matrix_log.py), in float64 on (real, imaginary) pairs,
for static matrix sizes (leading axes, dynamic ones too, flattened into one batch axis).

The same inverse scaling and squaring as the jax lowering, on eig's Schur form
(onnx_eig.schur_form: A / scale = Q T Q^H, T upper triangular, scale ~ max|A_ij| real and positive,
so log A = Q (log T + log(scale) I) Q^H):

- square roots of T in one Loop while any matrix's ||T^(1/2^s) - I||_1 > 0.25 (at most 64): each
  the principal root of the diagonal, then one superdiagonal at a time from the ones below it
  (R_ij = (T_ij - (R R)_ij) / (R_ii + R_jj), unrolled over the n - 1 superdiagonals), as the jax
  lowering's _triangular_sqrt; a Jordan block needs no eigenvectors;
- log(I + X), X = R - I, by its Taylor series to X^27 in Horner form (||X||_1 <= 0.25 bounds the
  remainder by 0.25^28 / 28 / 0.75 ~ 7e-19) instead of the jax lowering's Pade quadrature, which
  needs eight triangular solves: a series is matrix products only;
- times 2^s. The jax lowering also puts the exact log(T_ii) on the diagonal; ONNX has no float64
  atan2, so here the diagonal is the series' too (its error ~2^s eps, measured below).

Measured against scipy.linalg.logm (complex128, tests/test_onnx_prims.py and
tests/test_matrix_log.py): random 3 x 3 and 4 x 4 matrices, log(-1) = i pi, a Jordan block: 1e-13.
"""
from __future__ import annotations

import numpy as np
from onnx import TensorProto

from .onnx import onnx_dtype
from .onnx_complex import pair, part
from .onnx_eig import _add, _diag, _div, _f64, _matmul, _scale, _sqrt, _sub, _where, schur_form
from .onnx_linalg import refuse_dynamic_matrix
from .onnx_svd import _Body

THETA = 0.25
MAX_ROOTS = 64
TERMS = 27


def _identity_like(g, x, n):
    """The complex identity, broadcast against [B, n, n] pairs."""
    return _f64(g, np.eye(n)), g.op("Mul", x[1], _f64(g, 0.0))


def _triangular_sqrt(g, t, n):
    """The principal square root of the upper-triangular [B, n, n] pair t."""
    diag = _sqrt(g, _diag(g, t, n))                                                       # [B, n]
    eye = _f64(g, np.eye(n))
    col = lambda p: g.op("Unsqueeze", p, g.b.ints([-1]))    # noqa: E731
    row = lambda p: g.op("Unsqueeze", p, g.b.ints([-2]))    # noqa: E731
    r = tuple(g.op("Mul", col(p), eye) for p in diag)
    den = tuple(g.op("Add", col(p), row(p)) for p in diag)                                  # R_ii + R_jj
    zero = g.op("Equal", g.op("Add", g.op("Abs", den[0]), g.op("Abs", den[1])), _f64(g, 0.0))
    den = (g.op("Where", zero, _f64(g, 1.0), den[0]), den[1])
    for d in range(1, n):
        fill = _div(g, _sub(g, t, _matmul(g, r, r)), den)
        r = _where(g, g.b.const(np.eye(n, k=d, dtype=bool)), fill, r)
    return r


def _one_norm_above(g, r, n):
    """Whether any matrix's ||r - I||_1 exceeds THETA (a bool scalar)."""
    x = _sub(g, r, _identity_like(g, r, n))
    size = g.op("Sqrt", g.op("Add", g.op("Mul", x[0], x[0]), g.op("Mul", x[1], x[1])))
    columns = g.op("ReduceSum", size, g.b.ints([-2]), keepdims=0)
    return g.op("Greater", g.op("ReduceMax", columns, keepdims=0), _f64(g, THETA))


def _roots(ctx, t, n, batch_name):
    """(R, s): T^(1/2^s) with every matrix within THETA of I (or s = MAX_ROOTS)."""
    body = _Body(ctx)
    b = body.b
    it, cond, s_in = b.unique("root"), b.unique("condition"), b.unique("roots")
    names = (b.unique("r_re"), b.unique("r_im"))
    r = _triangular_sqrt(body, names, n)
    again = _one_norm_above(body, r, n)
    outs = [body("Identity", p) for p in r]
    count = body("Add", s_in, b.ints(1))
    D, dims = TensorProto.DOUBLE, [batch_name, n, n]
    graph = body.graph([(it, [], TensorProto.INT64), (cond, [], TensorProto.BOOL)] + [(nm, dims, D) for nm in names]
                       + [(s_in, [], TensorProto.INT64)],
                       [(again, [], TensorProto.BOOL)] + [(o, dims, D) for o in outs]
                       + [(count, [], TensorProto.INT64)], "square_roots")
    r_re, r_im, s = ctx.op("Loop", ctx.ints(MAX_ROOTS), _one_norm_above(ctx, t, n), *t, ctx.ints(0),
                           n_out=3, body=graph)
    return (r_re, r_im), s


def _log_near_identity(ctx, r, n):
    """log(I + X), X = r - I, by the Taylor series in Horner form: X (c1 I + X (c2 I + ... c_m I))."""
    eye = _identity_like(ctx, r, n)
    x = _sub(ctx, r, eye)
    coefficient = lambda k: _scale(ctx, eye, _f64(ctx, (-1.0) ** (k + 1) / k))   # noqa: E731
    p = coefficient(TERMS)
    for k in range(TERMS - 1, 0, -1):
        p = _add(ctx, coefficient(k), _matmul(ctx, x, p))
    return _matmul(ctx, x, p)


def matrix_logarithm(ctx, a):
    t = ctx.in_types[0]
    refuse_dynamic_matrix(ctx, ctx.in_dims[0])
    n, rank = t.shape[-1], t.ndim
    if n == 0:
        ctx.fail("no ONNX lowering for empty matrices")
    flat = ctx.ints([-1, n, n])
    re, im = (ctx.op("Reshape", ctx.op("Cast", part(ctx, a, i, rank), to=TensorProto.DOUBLE), flat) for i in (0, 1))
    tri, q, scale = schur_form(ctx, re, im, n, compute_v=True, batch_name="logm_batch")
    roots, s = _roots(ctx, tri, n, "logm_batch")
    times = ctx.op("Pow", _f64(ctx, 2.0), ctx.op("Cast", s, to=TensorProto.DOUBLE))
    log = _scale(ctx, _log_near_identity(ctx, roots, n), times)
    log = (ctx.op("Add", log[0], ctx.op("Mul", ctx.op("Log", scale), _f64(ctx, np.eye(n)))), log[1])
    q_h = tuple(ctx.op("Transpose", p, perm=[0, 2, 1]) for p in q)
    out = _matmul(ctx, _matmul(ctx, q, log), (q_h[0], ctx.op("Neg", q_h[1])))
    shape = ctx.shape_tensor(list(ctx.out_dims[0]))
    parts = [ctx.op("Reshape", p, shape) for p in out]
    return ctx.op("Cast", pair(ctx, *parts, rank), to=onnx_dtype(ctx.out_types[0].dtype.real_dtype))

"""The ONNX rules for qr, geqrf and householder_product: Householder reflections unrolled over
the static columns, LAPACK's geqrf/orgqr computed the way its unblocked kernels (dgeqr2, dlarfg,
dlarf, dorg2r) do, so Q and R carry its signs, those jax's lowering returns:

- step k reflects rows k.. of column k, x = [alpha; below], onto beta e_k with
  beta = -sign(alpha) ||x|| (+0.0 counts as positive, -0.0 as negative), tau = (beta - alpha) / beta and
  v = [1; below / (alpha - beta)]; where `below` is exactly zero, tau = 0 and nothing moves
  (R[k, k] is alpha). R[k, k] is set to beta rather than computed.
- the remaining columns get A - tau v (v^T A); Q is the identity's first columns with the
  reflectors applied last to first.
The matrices are kept at full size ([..., m, 1] vectors, zero above row k), so every step is
the same ~20 broadcasting nodes and the leading (batch) axes may be dynamic. The norms are
scaled by the column's absolute sum (dnrm2 does not overflow either).

geqrf packs the same reflectors LAPACK's way (v below the diagonal, its 1 implicit; tau, 0 for
a last row's reflector), and householder_product (orgqr) reads them back into the same
[..., m, 1] vectors, so qr, geqrf + householder_product and ormqr share one reflection.
"""
from __future__ import annotations

import numpy as np

from .onnx_linalg import _last2, refuse_dynamic_matrix, static_matrices


def _batch_shaped(ctx, const, like, rows, cols):
    """`const` [rows, cols] broadcast to like's leading axes (when nothing else gave them)."""
    if ctx.in_types[0].ndim == 2:
        return const
    batch = ctx.op("Shape", like, start=0, end=-2)
    return ctx.op("Expand", const, ctx.op("Concat", batch, ctx.ints([rows, cols]), axis=0))


def householder(ctx, a, m, n, np_dtype):
    """geqrf of a [..., m, n]: (R's upper triangle and junk below it, [(v, tau), ...]) with v
    [..., m, 1] and tau [..., 1, 1], one reflector per column k < min(m - 1, n) (the last row's
    reflector is always the identity)."""
    def const(value):
        return ctx.const(np.asarray(value, np_dtype))
    rows = np.arange(m).reshape(m, 1)
    zero, one = const(0), const(1)
    reflectors = []
    for k in range(min(m - 1, n)):
        column = _last2(ctx, a, None, (k, k + 1))                                          # [..., m, 1]
        x = ctx.op("Where", ctx.const(rows >= k), column, zero)                            # [alpha; below]
        below = ctx.op("Where", ctx.const(rows > k), column, zero)
        alpha = _last2(ctx, column, (k, k + 1), None)                                      # [..., 1, 1]
        sums = [ctx.op("ReduceSum", ctx.op("Abs", v), ctx.ints([-2]), keepdims=1) for v in (x, below)]
        reflect = ctx.op("Greater", sums[1], zero)
        scale = ctx.op("Where", reflect, sums[0], one)
        scaled = ctx.op("Div", x, scale)
        norm = ctx.op("Mul", scale, ctx.op("Sqrt", ctx.op("ReduceSum", ctx.op("Mul", scaled, scaled),
                                                               ctx.ints([-2]), keepdims=1)))
        # LAPACK's sign(alpha) reads the sign bit: -0.0 is negative (1 / -0.0 = -inf)
        negative = ctx.op("Or", ctx.op("Less", alpha, zero), ctx.op("Less", ctx.op("Reciprocal", alpha), zero))
        # (nothing below: no reflection, R[k, k] is alpha itself)
        beta = ctx.op("Where", reflect, ctx.op("Where", negative, norm, ctx.op("Neg", norm)), alpha)
        tau = ctx.op("Where", reflect, ctx.op("Div", ctx.op("Sub", beta, alpha), beta), zero)
        divisor = ctx.op("Where", reflect, ctx.op("Sub", alpha, beta), one)
        v = ctx.op("Add", ctx.const((rows == k).astype(np_dtype)), ctx.op("Div", below, divisor))
        at_kk = np.zeros((m, n), bool)
        at_kk[k, k] = True
        a = ctx.op("Where", ctx.const(at_kk), beta, _reflect(ctx, a, v, tau))
        reflectors.append((v, tau))
    return a, reflectors


def _reflect(ctx, x, v, tau):
    """(I - tau v v^T) x, v [..., m, 1]."""
    w = ctx.op("ReduceSum", ctx.op("Mul", v, x), ctx.ints([-2]), keepdims=1)             # v^T x, [..., 1, c]
    return ctx.op("Sub", x, ctx.op("Mul", ctx.op("Mul", v, tau), w))


def form_q(ctx, reflectors, like, m, cols, np_dtype):
    """H_0 H_1 ... H_r-1 times the identity's first `cols` columns (dorg2r's order: last first)."""
    q = ctx.const(np.eye(m, cols, dtype=np_dtype))
    if not reflectors:
        return _batch_shaped(ctx, q, like, m, cols)
    for v, tau in reversed(reflectors):
        q = _reflect(ctx, q, v, tau)
    return q


def _reflector(ctx, a, tau, k, m, np_dtype):
    """(v, tau) of column k of packed reflectors a [..., m, n] and tau [..., t]: v is the
    column below the diagonal with a 1 at row k (what is on and above it is ignored)."""
    rows = np.arange(m).reshape(m, 1)
    below = ctx.op("Where", ctx.const(rows > k), _last2(ctx, a, None, (k, k + 1)), ctx.const(np.asarray(0, np_dtype)))
    v = ctx.op("Add", ctx.const((rows == k).astype(np_dtype)), below)
    tau_k = ctx.op("Unsqueeze", ctx.op("Slice", tau, ctx.ints([k]), ctx.ints([k + 1]), ctx.ints([-1])), ctx.ints([-1]))
    return v, tau_k


@static_matrices
def geqrf(ctx, a):
    t = ctx.in_types[0]
    *_, m, n = t.shape
    np_dtype = t.dtype.np_dtype
    if not m * n:
        ctx.fail("no ONNX lowering for empty matrices")
    packed, reflectors = householder(ctx, a, m, n, np_dtype)
    rows, cols = np.arange(m).reshape(m, 1), np.arange(n)
    for k, (v, _) in enumerate(reflectors):     # v_k below the diagonal of column k
        packed = ctx.op("Where", ctx.const((cols == k) & (rows > k)), v, packed)
    # the last row's reflector (m <= n) is the identity: tau 0 (a [..., 1, 1] zero of a's batch)
    zero = ctx.op("Where", ctx.const(np.zeros((1, 1), bool)), _last2(ctx, a, (0, 1), (0, 1)),
                  ctx.const(np.asarray(0, np_dtype)))
    taus = [tau for _, tau in reflectors] + [zero] * (min(m, n) - len(reflectors))
    tau = taus[0] if len(taus) == 1 else ctx.op("Concat", *taus, axis=-1)
    return [packed, ctx.op("Squeeze", tau, ctx.ints([-2]))]


def householder_product(ctx, a, tau):
    refuse_dynamic_matrix(ctx, ctx.in_dims[0])   # (tau's last two axes may be a batch's)
    if ctx.is_dynamic(ctx.in_dims[1][-1:]):
        refuse_dynamic_matrix(ctx, ctx.in_dims[1])
    t = ctx.in_types[0]
    *_, m, n = t.shape
    np_dtype = t.dtype.np_dtype
    reflectors = [_reflector(ctx, a, tau, k, m, np_dtype) for k in range(ctx.in_types[1].shape[-1])]
    return form_q(ctx, reflectors, a, m, n, np_dtype)


@static_matrices
def qr(ctx, a, *, full_matrices):
    t = ctx.in_types[0]
    *_, m, n = t.shape
    np_dtype = t.dtype.np_dtype
    k = m if full_matrices else min(m, n)
    r, reflectors = householder(ctx, a, m, n, np_dtype)
    if k < m:
        r = _last2(ctx, r, (0, k), None)
    r = ctx.op("Where", ctx.const(np.triu(np.ones((k, n), bool))), r, ctx.const(np.asarray(0, np_dtype)))
    return [form_q(ctx, reflectors, a, m, k, np_dtype), r]


RULES = {"qr": qr, "geqrf": geqrf, "householder_product": householder_product}

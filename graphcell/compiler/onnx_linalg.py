"""ONNX rules for the matrix primitives of ops/linalg_prims.py. ONNX has Det (onnxruntime's
for float32 and float16 only); everything else is unrolled over the static matrix size n,
with the leading (batch) axes left to broadcasting so that a dynamic batch exports:

- Gauss-Jordan elimination with partial pivoting (matrix_inverse; det in float64; slogdet;
  matrix_exp's Pade solve in onnx_expm.py): per column, ArgMax picks the pivot row, a one-hot
  row swap, the pivot row divided by the pivot and one rank-1 update; about 30 nodes a column.
  The pivots are LU's, so their product (signed by the swaps) is the determinant and their
  log-magnitudes sum to log|det|.
- cholesky column by column (Cholesky-Banachiewicz): column j is A's column j minus
  L[:, :j] L[j, :j]^T, divided by the root of its diagonal entry; ~10 nodes a column.
- triangular_solve row by row (forward or back substitution); ~5 nodes a row.
The node counts grow with n (measured, float32, batch 8: an inverse of n = 16 is 522 nodes and
38 kB, n = 32 1050 nodes; cholesky 155 and 315; slogdet 475 and 955); XLA runs LAPACK instead,
and the results agree to rounding (largest error relative to the largest entry: inverse 1e-5,
cholesky and slogdet 2e-7 for well-conditioned matrices). qr (onnx_householder.py) and
matrix_exp (onnx_expm.py) are unrolled likewise. Every rule here needs static matrix sizes:
a dynamic one is refused by name (`static_matrices`).
"""
from __future__ import annotations

import functools

import numpy as np

from ..dtype import float32, to_dtype
from .onnx import onnx_dtype


def static_matrices(rule):
    """The unrolled forms are built for one matrix size: a dynamic one (the last two axes of
    an operand follow the batch at export) has no ONNX lowering."""
    @functools.wraps(rule)
    def checked(ctx, *operands, **attrs):
        for dims in ctx.in_dims:
            refuse_dynamic_matrix(ctx, dims)
        return rule(ctx, *operands, **attrs)
    return checked


def refuse_dynamic_matrix(ctx, dims):
    """`static_matrices`' check of one operand's dims."""
    if ctx.is_dynamic(dims[-2:]):
        size = " x ".join(str(d) for d in dims[-2:])
        ctx.fail(f"no ONNX lowering for matrices of dynamic size {size} (the last two axes must be "
                 "static; the leading batch axes may be dynamic)")


def _last2(ctx, x, rows, cols):
    """x[..., r0:r1, c0:c1] (None keeps an axis whole)."""
    starts, ends, axes = [], [], []
    for axis, span in ((-2, rows), (-1, cols)):
        if span is not None:
            starts.append(span[0])
            ends.append(span[1])
            axes.append(axis)
    return ctx.op("Slice", x, ctx.ints(starts), ctx.ints(ends), ctx.ints(axes))


def _transpose_last2(ctx, x, rank):
    return ctx.op("Transpose", x, perm=list(range(rank - 2)) + [rank - 1, rank - 2])


def _gauss_jordan(ctx, a, x, n, np_dtype, safe_pivots=False):
    """Eliminates a [..., n, n] to the identity with partial pivoting, applying the same row
    operations to x (None: a alone). Returns (x, pivots [..., 1, 1] each, swapped flags).
    With safe_pivots a zero pivot (its column is zero from row k down) divides by 1, so a
    singular matrix's remaining pivots stay finite (the determinant's rules want that)."""
    rows = ctx.const(np.arange(n, dtype=np.int64).reshape(n, 1))
    minus_one = ctx.const(np.asarray(-1, np_dtype))
    pivots, swaps = [], []
    for k in range(n):
        e_k = ctx.const(np.eye(n, dtype=np_dtype)[:, k:k + 1])
        at_k = ctx.const(np.arange(n).reshape(n, 1) == k)
        magnitude = ctx.op("Abs", _last2(ctx, a, None, (k, k + 1)))                       # [..., n, 1]
        if k:
            magnitude = ctx.op("Where", ctx.const(np.arange(n).reshape(n, 1) >= k), magnitude, minus_one)
        p = ctx.op("ArgMax", magnitude, axis=-2, keepdims=1)                              # [..., 1, 1]
        one_hot_p = ctx.op("Cast", ctx.op("Equal", rows, p), to=onnx_dtype(to_dtype(np.dtype(np_dtype))))  # [.., n, 1]
        move = ctx.op("Sub", e_k, one_hot_p)

        def swap(m):   # rows k and p exchanged: m + (e_k - e_p) (m_p - m_k)
            row_p = ctx.op("ReduceSum", ctx.op("Mul", one_hot_p, m), ctx.ints([-2]), keepdims=1)
            return ctx.op("Add", m, ctx.op("Mul", move, ctx.op("Sub", row_p, _last2(ctx, m, (k, k + 1), None))))
        a = swap(a)
        x = swap(x) if x is not None else None
        pivot = _last2(ctx, a, (k, k + 1), (k, k + 1))
        pivots.append(pivot)
        swaps.append(ctx.op("Not", ctx.op("Equal", p, ctx.const(np.asarray(k, np.int64)))))
        if safe_pivots:
            zero = ctx.op("Equal", pivot, ctx.const(np.asarray(0, np_dtype)))
            pivot = ctx.op("Where", zero, ctx.const(np.asarray(1, np_dtype)), pivot)
        # row k / pivot, and column k cleared from the other rows with it. (Row k as
        # m[k] - ((pivot - 1) / pivot) m[k] cancels: ~pivot ulps, 1e-9 for expm's Pade solves.)
        column = _last2(ctx, a, None, (k, k + 1))

        def eliminate(m):
            row = ctx.op("Div", _last2(ctx, m, (k, k + 1), None), pivot)
            return ctx.op("Where", at_k, row, ctx.op("Sub", m, ctx.op("Mul", column, row)))
        if k < n - 1:
            a = eliminate(a)
        if x is not None:
            x = eliminate(x)
    return x, pivots, swaps


def _squeeze_last2(ctx, x):
    return ctx.op("Squeeze", x, ctx.ints([-2, -1]))


def _pivot_sign(ctx, swaps, np_dtype):
    """(-1) ** (number of row swaps), [..., 1, 1]."""
    flips = swaps[0]
    for s in swaps[1:]:
        flips = ctx.op("Xor", flips, s)
    return ctx.op("Where", flips, ctx.const(np.asarray(-1, np_dtype)), ctx.const(np.asarray(1, np_dtype)))


def _product(ctx, values):
    out = values[0]
    for v in values[1:]:
        out = ctx.op("Mul", out, v)
    return out


def matrix_inverse(ctx, a):
    t = ctx.in_types[0]
    n, np_dtype = t.shape[-1], t.dtype.np_dtype
    x, _, _ = _gauss_jordan(ctx, a, ctx.const(np.eye(n, dtype=np_dtype)), n, np_dtype)
    return x


def det(ctx, a):
    t = ctx.in_types[0]
    if t.dtype is float32:
        return ctx.op("Det", a)
    n, np_dtype = t.shape[-1], t.dtype.np_dtype    # onnxruntime has no float64 Det
    _, pivots, swaps = _gauss_jordan(ctx, a, None, n, np_dtype, safe_pivots=True)
    return _squeeze_last2(ctx, ctx.op("Mul", _product(ctx, pivots), _pivot_sign(ctx, swaps, np_dtype)))


def slogdet(ctx, a):
    """From the pivots, not Det: log|det| = sum log|pivot| does not overflow as det would."""
    t = ctx.in_types[0]
    n, np_dtype = t.shape[-1], t.dtype.np_dtype
    _, pivots, swaps = _gauss_jordan(ctx, a, None, n, np_dtype, safe_pivots=True)
    sign = _product(ctx, [ctx.op("Sign", p) for p in pivots] + [_pivot_sign(ctx, swaps, np_dtype)])
    logabs = ctx.op("Log", ctx.op("Abs", pivots[0]))
    for p in pivots[1:]:
        logabs = ctx.op("Add", logabs, ctx.op("Log", ctx.op("Abs", p)))
    return [_squeeze_last2(ctx, sign), _squeeze_last2(ctx, logabs)]


def cholesky(ctx, a):
    t = ctx.in_types[0]
    n, np_dtype = t.shape[-1], t.dtype.np_dtype
    columns = []
    for j in range(n):
        v = _last2(ctx, a, None, (j, j + 1))                                             # A[:, j]
        if j:
            done = columns[0] if j == 1 else ctx.op("Concat", *columns, axis=-1)         # L[:, :j]
            dots = ctx.op("ReduceSum", ctx.op("Mul", done, _last2(ctx, done, (j, j + 1), None)), ctx.ints([-1]),
                          keepdims=1)
            v = ctx.op("Sub", v, dots)
        root = ctx.op("Sqrt", _last2(ctx, v, (j, j + 1), None))
        below = ctx.const((np.arange(n) >= j).reshape(n, 1).astype(np_dtype))          # the lower triangle
        columns.append(ctx.op("Mul", ctx.op("Div", v, root), below))
    return columns[0] if n == 1 else ctx.op("Concat", *columns, axis=-1)


def triangular_solve(ctx, a, b, *, lower, transpose_a, unit_diagonal):
    t = ctx.in_types[0]
    n = t.shape[-1]
    if transpose_a:
        a, lower = _transpose_last2(ctx, a, t.ndim), not lower
    order = range(n) if lower else range(n - 1, -1, -1)
    solved = {}
    for i in order:
        rhs = _last2(ctx, b, (i, i + 1), None)                                            # [..., 1, k]
        done = sorted(solved)
        if done:
            lo, hi = (0, i) if lower else (i + 1, n)
            known = [solved[j] for j in done]
            known = known[0] if len(known) == 1 else ctx.op("Concat", *known, axis=-2)
            rhs = ctx.op("Sub", rhs, ctx.op("MatMul", _last2(ctx, a, (i, i + 1), (lo, hi)), known))
        solved[i] = rhs if unit_diagonal else ctx.op("Div", rhs, _last2(ctx, a, (i, i + 1), (i, i + 1)))
    rows = [solved[i] for i in range(n)]
    return rows[0] if n == 1 else ctx.op("Concat", *rows, axis=-2)


RULES = {name: static_matrices(rule) for name, rule in [
    ("det", det), ("slogdet", slogdet), ("matrix_inverse", matrix_inverse), ("cholesky", cholesky),
    ("triangular_solve", triangular_solve)]}

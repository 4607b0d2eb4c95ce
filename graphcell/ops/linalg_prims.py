"""Matrix decompositions and solves as primitives: det, slogdet, matrix_inverse, cholesky,
triangular_solve, qr and matrix_exp, over the last two axes of float32/float64 operands
(the leading axes are batch axes; float16 is computed in float32 by the functional layer).
det, slogdet, matrix_inverse, triangular_solve and qr take complex64/complex128 too; their
vjps are in jax's convention (ops/complex_ops.py): the holomorphic ones (det, inverse,
triangular_solve) keep plain transposes, slogdet and qr carry their conjugations.

Each is one jax call (jnp.linalg / lax.linalg / jax.scipy.linalg), so XLA runs LAPACK's
kernels. Batch rules move the mapped axis to the front (one more batch axis); vjp rules are
the textbook ones, written with the functional API and these primitives, so second-order
gradients and vmapped gradients work. The ONNX rules live in compiler/onnx_linalg.py (Det
natively, the rest unrolled for a static n), onnx_householder.py (qr) and onnx_expm.py
(matrix_exp).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..dtype import complex64, complex128, float32, float64
from ..ir.core import TensorType
from .ad_util import F
from .batching import materialize
from .primitive import Primitive, check, same_dtype


def _float_matrix(name: str, x: TensorType, square: bool = True, complex_ok: bool = False) -> None:
    check(x.ndim >= 2, f"{name} needs matrices in the last two axes, got {x}")
    if complex_ok:
        check(x.dtype in (float32, float64, complex64, complex128),
              f"{name} needs float32, float64, complex64 or complex128, got {x}")
    else:
        check(x.dtype in (float32, float64), f"{name} needs float32 or float64, got {x}")
    if square:
        check(x.shape[-1] == x.shape[-2], f"{name} needs square matrices, got {x}")


def _leading_batch(prim):
    """vmap of an op whose leading axes are batch axes already: the mapped axis goes first."""
    def rule(ctx, args, dims, **attrs):
        moved = [materialize(a, d, ctx.axis_size, 0) for a, d in zip(args, dims)]
        out = prim.bind(*moved, **attrs)
        if prim.multiple_results:
            return list(out), [0] * len(out)
        return out, 0
    return rule


def _mT(x):
    return F.swapaxes(x, -1, -2)


def _conj(x):
    from . import complex_ops   # ops/complex_ops imports the families this module belongs to
    return complex_ops.conj(x)


def _mH(x):
    """The conjugate transpose (the transpose of a real matrix)."""
    return _conj(_mT(x))


def _real_part(x):
    """Re(x) in x's own dtype (x itself when real)."""
    from . import complex_ops
    return F.cast(complex_ops.real(x), x.dtype) if x.dtype.is_complex else x


def _imag_part_times_i(x):
    """i Im(x) in x's own dtype (complex x only)."""
    from . import complex_ops
    return complex_ops.complex_from(F.zeros_like(complex_ops.imag(x)), complex_ops.imag(x))


def _eye_like(x):
    return F.Tensor(np.eye(x.shape[-1], dtype=x.dtype.np_dtype))


def _as_matrix(v):
    """[...] -> [..., 1, 1], for scaling matrices by per-matrix scalars."""
    return F.expand_dims(F.expand_dims(v, -1), -1)


# -- det and slogdet ------------------------------------------------------------------------

def _det_rule(x, **_):
    _float_matrix("det", x, complex_ok=True)
    return TensorType(x.shape[:-2], x.dtype)


det = Primitive("det", _det_rule, lambda x: jnp.linalg.det(x))
det.def_batch(_leading_batch(det))


@det.def_vjp
def _det_vjp(ctx, cts, primals, outs):
    """d det = det tr(A^-1 dA): the cotangent is g det A^-T. An exactly singular matrix gets 0,
    MindSpore 2.10's value (measured; the true gradient there is the adjugate, jax's). det is
    holomorphic, so the complex case is the same formula (jax's convention: no conjugation)."""
    (x,), (d,), (g,) = primals, outs, cts
    scale = _as_matrix(F.mul(g, d))
    singular = _as_matrix(F.equal(d, 0))
    safe = F.select(F.broadcast_to(singular, x.shape), F.broadcast_to(_eye_like(x), x.shape), x)
    grad = F.mul(scale, _mT(matrix_inverse.bind(safe)))
    return (F.select(F.broadcast_to(singular, x.shape), F.zeros_like(x), grad),)


def _slogdet_rule(x, **_):
    _float_matrix("slogdet", x, complex_ok=True)
    out = TensorType(x.shape[:-2], x.dtype)
    return out, out


def _slogdet_impl(x):
    # a complex matrix's log|det| comes out complex (zero imaginary part), as MindSpore 2.10's
    sign, logabs = jnp.linalg.slogdet(x)
    return sign, logabs.astype(x.dtype)


slogdet = Primitive("slogdet", _slogdet_rule, _slogdet_impl, multiple_results=True)
slogdet.def_batch(_leading_batch(slogdet))


@slogdet.def_vjp
def _slogdet_vjp(ctx, cts, primals, outs):
    """With t = tr(A^-1 dA): d log|det| = Re(t), and d sign = sign i Im(t) (0 for a real matrix,
    whose sign is piecewise constant). In jax's convention the cotangent is then
    (Re(g_logabs) + i Im(g_sign sign)) A^-T."""
    (x,), (sign, _) = primals, outs
    g_sign, g = cts
    if not x.dtype.is_complex:
        g_sign = None
        if g is None:
            return (None,)
    g = _real_part(g) if g is not None else F.zeros_like(sign)
    if g_sign is not None:
        g = F.add(g, _imag_part_times_i(F.mul(g_sign, sign)))
    return (F.mul(_as_matrix(g), _mT(matrix_inverse.bind(x))),)


# -- inverse --------------------------------------------------------------------------------

def _inverse_rule(x, **_):
    _float_matrix("matrix_inverse", x, complex_ok=True)
    return x


matrix_inverse = Primitive("matrix_inverse", _inverse_rule, lambda x: jnp.linalg.inv(x))
matrix_inverse.def_batch(_leading_batch(matrix_inverse))


@matrix_inverse.def_vjp
def _inverse_vjp(ctx, cts, primals, outs):
    """d(A^-1) = -A^-1 dA A^-1: the cotangent is -A^-T g A^-T (holomorphic: the same for complex
    A in jax's convention)."""
    inv_t = _mT(outs[0])
    return (F.neg(F.matmul(F.matmul(inv_t, cts[0]), inv_t)),)


# -- cholesky -------------------------------------------------------------------------------

def _cholesky_rule(x, **_):
    _float_matrix("cholesky", x)
    return x


# jnp.linalg.cholesky reads the lower triangle only (LAPACK's potrf) and gives NaNs where the
# matrix is not positive definite.
cholesky = Primitive("cholesky", _cholesky_rule, lambda x: jnp.linalg.cholesky(x))
cholesky.def_batch(_leading_batch(cholesky))


def _tril_half_diag(x):
    """The lower triangle with its diagonal halved (the Phi of the Cholesky derivative)."""
    n = x.shape[-1]
    weights = np.tril(np.ones((n, n)), -1) + 0.5 * np.eye(n)
    return F.mul(x, F.Tensor(weights.astype(x.dtype.np_dtype)))


@cholesky.def_vjp
def _cholesky_vjp(ctx, cts, primals, outs):
    """A = L L^T: gA = sym(L^-T Phi(L^T gL) L^-1), Phi the lower triangle with half its diagonal
    (Murray 2016; torch's and jax's), sym(X) = (X + X^T) / 2 since A is symmetric."""
    (lower,), (g,) = outs, cts
    phi = _tril_half_diag(F.matmul(_mT(lower), g))
    # L^-T phi L^-1 as two triangular solves: y = L^-T phi, then (L^-T y^T)^T = y L^-1
    y = triangular_solve.bind(lower, phi, lower=True, transpose_a=True, unit_diagonal=False)
    ga = _mT(triangular_solve.bind(lower, _mT(y), lower=True, transpose_a=True, unit_diagonal=False))
    return (F.mul(F.add(ga, _mT(ga)), 0.5),)


# -- triangular solve -----------------------------------------------------------------------

def _trsolve_rule(a, b, *, lower, transpose_a, unit_diagonal):
    _float_matrix("triangular_solve", a, complex_ok=True)
    same_dtype("triangular_solve", a, b)
    check(b.ndim == a.ndim and b.shape[:-2] == a.shape[:-2] and b.shape[-2] == a.shape[-1],
          f"triangular_solve: the right-hand side {b} does not match the matrices {a}")
    return b


def _trsolve_impl(a, b, *, lower, transpose_a, unit_diagonal):
    return jax.lax.linalg.triangular_solve(a, b, left_side=True, lower=lower, transpose_a=transpose_a,
                                           unit_diagonal=unit_diagonal)


# Solves op(A) X = B for X, op(A) = A or A^T, A triangular (only that triangle is read; with
# unit_diagonal the diagonal is taken as ones). Leading axes are batch axes on both operands.
triangular_solve = Primitive("triangular_solve", _trsolve_rule, _trsolve_impl)
triangular_solve.def_batch(_leading_batch(triangular_solve))


@triangular_solve.def_vjp
def _trsolve_vjp(ctx, cts, primals, outs, *, lower, transpose_a, unit_diagonal):
    """X = op(A)^-1 B: gB = op(A)^-T g, and gA's triangle of -gB X^T (transposed for op = T)."""
    a, (x,), (g,) = primals[0], outs, cts
    gb = triangular_solve.bind(a, g, lower=lower, transpose_a=not transpose_a, unit_diagonal=unit_diagonal)
    ga = None
    if ctx.needs[0]:
        outer = F.neg(F.matmul(x, _mT(gb)) if transpose_a else F.matmul(gb, _mT(x)))
        n = a.shape[-1]
        keep = np.tril(np.ones((n, n), bool), -1 if unit_diagonal else 0)
        keep = keep if lower else keep.T
        ga = F.select(F.Tensor(keep), outer, F.zeros_like(outer))
    return ga, (gb if ctx.needs[1] else None)


# -- qr -------------------------------------------------------------------------------------

def _qr_rule(x, *, full_matrices):
    _float_matrix("qr", x, square=False, complex_ok=True)
    *batch, m, n = x.shape
    k = m if full_matrices else min(m, n)
    return TensorType(tuple(batch) + (m, k), x.dtype), TensorType(tuple(batch) + (k, n), x.dtype)


def _qr_impl(x, *, full_matrices):
    q, r = jnp.linalg.qr(x, mode="complete" if full_matrices else "reduced")
    return q, r


qr = Primitive("qr", _qr_rule, _qr_impl, multiple_results=True)
qr.def_batch(_leading_batch(qr))


def _qr_square_or_tall_vjp(q, r, gq, gr):
    """A = QR with m >= n (reduced), in the conjugating convention (the gradient pairs with a
    tangent as Re tr(g^H dA)): gA = (gQ + Q copyltu(M)) R^-H, M = R gR^H - gQ^H Q,
    copyltu(M) = tril(M, -1) + tril(M, -1)^H + Re(diag(M)) (derived from dQ = dA R^-1 - Q (C - Omega),
    C = Q^H dA R^-1, Omega its skew-Hermitian part; R's diagonal is real, so a complex M's
    diagonal enters by its real part)."""
    m_ = F.sub(F.matmul(r, _mH(gr)), F.matmul(_mH(gq), q))
    n = m_.shape[-1]
    strict = np.tril(np.ones((n, n), bool), -1)
    m_strict = F.select(F.Tensor(strict), m_, F.zeros_like(m_))
    diagonal = F.mul(_real_part(m_), F.Tensor(np.eye(n, dtype=m_.dtype.np_dtype)))
    sym = F.add(F.add(m_strict, _mH(m_strict)), diagonal)
    rhs = F.add(gq, F.matmul(q, sym))
    # rhs R^-H = (R^-1 rhs^H)^H: one triangular solve with the upper R
    return _mH(triangular_solve.bind(r, _mH(rhs), lower=False, transpose_a=False, unit_diagonal=False))


@qr.def_vjp
def _qr_vjp(ctx, cts, primals, outs, *, full_matrices):
    """Built in the conjugating convention (torch's) and brought to jax's by conjugating the
    cotangents in and the gradient out (the identity for real matrices)."""
    (x,), (q, r) = primals, outs
    *_, m, n = x.shape
    if full_matrices and m != n:
        raise NotImplementedError(f"the gradient of qr with mode='complete' needs a square matrix (got {m} x {n}): "
                                  "the extra columns of q are not unique")
    gq = _conj(cts[0]) if cts[0] is not None else F.zeros_like(q)
    gr = _conj(cts[1]) if cts[1] is not None else F.zeros_like(r)
    if m >= n:
        return (_conj(_qr_square_or_tall_vjp(q, r, gq, gr)),)
    # wide: A = [X | Y], X = Q R1 square, Y = Q R2 (R2 = Q^H Y): gY = Q gR2, and gR2 adds
    # Y gR2^H to Q's cotangent for X's decomposition
    r1, gr1, gr2 = F.slice_axis(r, -1, 0, m), F.slice_axis(gr, -1, 0, m), F.slice_axis(gr, -1, m, n)
    y = F.slice_axis(x, -1, m, n)
    gx = _qr_square_or_tall_vjp(q, r1, F.add(gq, F.matmul(y, _mH(gr2))), gr1)
    return (_conj(F.concat([gx, F.matmul(q, gr2)], -1)),)


# -- matrix exponential ---------------------------------------------------------------------

def _expm_rule(x, **_):
    _float_matrix("matrix_exp", x)
    return x


def _expm_impl(x):
    return jax.scipy.linalg.expm(x)


matrix_exp = Primitive("matrix_exp", _expm_rule, _expm_impl)
matrix_exp.def_batch(_leading_batch(matrix_exp))


@matrix_exp.def_vjp
def _expm_vjp(ctx, cts, primals, outs):
    """The adjoint of the Frechet derivative: gA = L(A^T, g), the top-right block of
    expm([[A^T, g], [0, A^T]]) (Najfeld and Havel; Higham's block form)."""
    (x,), (g,) = primals, cts
    n = x.shape[-1]
    at = _mT(x)
    top = F.concat([at, g], -1)
    bottom = F.concat([F.zeros_like(at), at], -1)
    big = matrix_exp.bind(F.concat([top, bottom], -2))
    return (F.slice_axis(F.slice_axis(big, -2, 0, n), -1, n, 2 * n),)


__all__ = ["det", "slogdet", "matrix_inverse", "cholesky", "triangular_solve", "qr", "matrix_exp"]

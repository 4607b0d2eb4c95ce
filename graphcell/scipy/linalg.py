"""mindspore.scipy.linalg: block_diag, cho_factor, cho_solve, cholesky, det, eigh, inv, lstsq,
lu, lu_factor, lu_pivots_to_permutation, lu_solve and solve_triangular, with MindSpore 2.10's
signatures, results and messages (measured on its CPU build).

Built from graphcell's linalg primitives (cholesky, det, matrix_inverse, triangular_solve, svd,
eigh) and ordinary ops (the LU of graphcell/scipy/lu.py), so jit, grad and vmap work on all of
them. As 2.10: one 2-D matrix (solve_triangular also takes batches), int32/int64 computed in
float64, float16 refused; scipy's overwrite_*/check_finite/turbo/... arguments are accepted and
ignored. Departures, each measured on 2.10 where it fails: lu(permute_l=True) returns (P L, U)
as scipy (2.10 raises a MatMul TypeError), lu_solve takes a 1-D b (2.10 raises IndexError),
and eigh's eigenvectors have graphcell's phases (each column's largest entry real and positive,
ops/eigh_prim.py; 2.10's signs differ from that and from LAPACK's column by column).
"""
from __future__ import annotations

import numpy as np

from .. import dtype as mstype
from ..compiler.jit import jit
from ..ops import functional as F
from ..ops import linalg as _svd
from ..ops import linalg_prims as LP
from ..ops.complex_ops import conj as _conj
from ..ops.composite import tril, triu
from ..ops.eigh_prim import eigh as _eigh
from ..ops.linalg_solvers import _permutation
from ..ops.matrix_builders import block_diag as _block_diag
from ..tensor import Tensor
from .lu import lu_decompose, permutation_matrix

__all__ = ["block_diag", "inv", "cho_factor", "cholesky", "cho_solve", "eigh", "lu_factor", "lu", "solve_triangular",
           "lstsq", "det", "lu_pivots_to_permutation", "lu_solve"]

# The LU's column loop and the pivots' row swaps are many small ops: compiled once per shape
# (eagerly a 3 x 3 LU takes seconds op by op); inside a trace they inline.
_lu_decompose = jit(lu_decompose)

_MATRIX_DTYPES = (mstype.int32, mstype.int64, mstype.float32, mstype.float64)
# eigh takes complex Hermitian matrices too (2.x's Eigh primitive checks for these four float dtypes)
_EIGH_DTYPES = _MATRIX_DTYPES + (mstype.complex64, mstype.complex128)


def _matrix(name: str, a, dtypes=_MATRIX_DTYPES) -> Tensor:
    """a as one square float32/float64 matrix, with 2.10's checks and messages; integers become
    float64 (measured)."""
    a = F.as_tensor(a)
    if a.ndim != 2:
        raise ValueError(f"For '{name}', the dimension of 'a' should be 2, but got {a.ndim}.")
    if a.shape[0] != a.shape[1]:
        raise ValueError(f"For '{name}', the matrix 'a' should be a square matrix like (N, N), but got {a.shape}.")
    if a.dtype not in dtypes:
        names = ", ".join(f"mindspore.{d.name}" for d in dtypes)
        raise TypeError(f"For '{name}', the data type of 'a' should be one of [{names}], but got {a.dtype}.")
    return F.cast(a, mstype.float64) if a.dtype.is_integer else a


def block_diag(*arrs):
    """The 0-, 1- and 2-D arrs as the blocks of one block-diagonal matrix; no arrs give a
    float32 [1, 0] (measured)."""
    if not arrs:
        return F.zeros((1, 0), mstype.float32)
    if any(F.as_tensor(t).ndim > 2 for t in arrs):
        raise ValueError("Arguments to mindspore.scipy.linalg.block_diag must have at most 2 dimensions.")
    return _block_diag(*arrs)


def _cholesky_lower(name: str, a) -> Tensor:
    """The lower Cholesky factor; eagerly a matrix that is not positive definite raises 2.10's
    RuntimeError (traced it gives NaNs)."""
    a = _matrix(name, a)
    low = LP.cholesky.bind(a)
    if isinstance(low, Tensor) and not low.is_symbolic and np.isnan(low.asnumpy()).any() \
            and not np.isnan(a.asnumpy()).any():
        raise RuntimeError("Cholesky expects symmetric positive definite matrices as inputs.")
    return low


def cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    """The Cholesky factor of a symmetric positive definite a: upper U with a = U^T U, or lower L
    with a = L L^T; the other triangle is zeros. Only a's lower triangle is read."""
    low = _cholesky_lower("cholesky", a)
    return low if lower else F.swapaxes(low, 0, 1)


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    """(c, lower): c the Cholesky factor (its other triangle zeros, as 2.10's, measured), for
    cho_solve."""
    low = _cholesky_lower("cho_factor", a)
    return (low if lower else F.swapaxes(low, 0, 1)), lower


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    """x with A x = b, from cho_factor's (c, lower); b [N] or [N, M]."""
    c, lower = c_and_lower
    c, b = F.as_tensor(c), F.as_tensor(b)
    if c.ndim != 2 or b.ndim not in (1, 2) or b.shape[0] != c.shape[-1]:
        raise ValueError(f"For 'cho_solve', the last two dimensions of 'c' and 'b' should be matched, but got shape "
                         f"of {c.shape} and {b.shape}. Please make sure that the shape of 'c' and 'b' be like (N, N) "
                         "X (N, M) or (N, N) X (N).")
    rhs = F.cast(b if b.ndim == 2 else F.expand_dims(b, -1), c.dtype)
    # lower: L L^T x = b; upper: U^T U x = b
    y = LP.triangular_solve.bind(c, rhs, lower=bool(lower), transpose_a=not lower, unit_diagonal=False)
    x = LP.triangular_solve.bind(c, y, lower=bool(lower), transpose_a=bool(lower), unit_diagonal=False)
    return x if b.ndim == 2 else F.squeeze(x, -1)


def det(a, overwrite_a=False, check_finite=True):
    """The determinant of a square matrix (a 0-D tensor)."""
    return LP.det.bind(_matrix("det", a))


def inv(a, overwrite_a=False, check_finite=True):
    """The inverse of a square matrix."""
    return LP.matrix_inverse.bind(_matrix("inv", a))


def eigh(a, b=None, lower=True, eigvals_only=False, overwrite_a=False, overwrite_b=False, turbo=True, eigvals=None,
         type=1, check_finite=True):  # noqa: A002 - scipy's names
    """(w, v) of a real symmetric or complex Hermitian matrix read from its lower (or,
    lower=False, upper) triangle (a diagonal's imaginary parts ignored, as LAPACK's heevd): w the
    eigenvalues ascending, v the eigenvectors as columns; w alone with eigvals_only. A complex
    matrix's w has its dtype, a zero imaginary part (2.x's Eigh primitive infers w with a's
    dtype, from its source; not measured)."""
    if b is not None:
        raise ValueError("For 'eigh', currently only case b=None of 'eigh' is implemented.")
    x = _matrix("eigh", a, _EIGH_DTYPES)
    half = tril(x) if lower else triu(x)
    mirrored = F.swapaxes(tril(x, -1) if lower else triu(x, 1), 0, 1)
    w, v = _eigh.bind(F.add(half, _conj(mirrored) if x.dtype.is_complex else mirrored))
    if x.dtype.is_complex:
        w = F.cast(w, x.dtype)
    return w if eigvals_only else (w, v)


def lu_factor(a, overwrite_a=False, check_finite=True):
    """(lu, piv) of a square matrix: L (unit diagonal, not stored) and U packed in lu, piv the
    0-based int32 row swaps (row i swapped with row piv[i], in turn), as scipy's."""
    packed, pivots, _ = _lu_decompose(_matrix("lu_factor", a))
    return packed, pivots


def _lu_input(a) -> Tensor:
    a = F.as_tensor(a)
    if a.ndim != 2:
        raise ValueError(f"For 'lu', the dimension of 'a' should be 2, but got {a.ndim}.")
    if a.dtype not in _MATRIX_DTYPES:
        names = ", ".join(f"mindspore.{d.name}" for d in _MATRIX_DTYPES)
        raise TypeError(f"For 'lu', the data type of 'a' should be one of [{names}], but got {a.dtype}.")
    if a.shape[0] > a.shape[1]:
        raise ValueError("last two dimensions of LU decomposition must be row less or equal to col.")
    return F.cast(a, mstype.float64) if a.dtype.is_integer else a


def lu(a, permute_l=False, overwrite_a=False, check_finite=True):
    """(p, l, u) with a = p @ l @ u for a [M, N], M <= N (2.10 refuses M > N, measured): p the
    int32 permutation matrix, l [M, M] unit lower, u [M, N] upper. permute_l=True gives
    (p @ l, u)."""
    x = _lu_input(a)
    m = x.shape[0]
    packed, _, perm = _lu_decompose(x)
    low = F.add(tril(F.slice_axis(packed, 1, 0, m), -1), Tensor(np.eye(m, dtype=x.dtype.np_dtype)))
    up = triu(packed)
    p = F.swapaxes(permutation_matrix(perm, mstype.int32), 0, 1)        # a = P^T-of-row-order @ L @ U
    if permute_l:
        return F.matmul(F.cast(p, x.dtype), low), up
    return p, low, up


def lu_pivots_to_permutation(pivots, permutation_size: int):
    """The row order [permutation_size] int32 that 0-based pivots (row i swapped with row
    pivots[i], in turn) make: a's row perm[i] is row i of L U."""
    pivots = F.cast(F.as_tensor(pivots), mstype.int32)
    return _permutation(F.add(pivots, 1), int(permutation_size))


def _lu_solve(packed: Tensor, pivots: Tensor, rhs: Tensor, transposed: bool) -> Tensor:
    n = packed.shape[-1]
    p = permutation_matrix(lu_pivots_to_permutation(pivots, n), packed.dtype)   # P A = L U
    solve = LP.triangular_solve.bind
    if not transposed:  # L U x = P b
        y = solve(packed, F.matmul(p, rhs), lower=True, transpose_a=False, unit_diagonal=True)
        return solve(packed, y, lower=False, transpose_a=False, unit_diagonal=False)
    # A^T = U^T L^T P: U^T L^T (P x) = b
    y = solve(packed, rhs, lower=False, transpose_a=True, unit_diagonal=False)
    return F.matmul(F.swapaxes(p, 0, 1), solve(packed, y, lower=True, transpose_a=True, unit_diagonal=True))


_LU_SOLVES = {t: jit(lambda packed, pivots, rhs, t=t: _lu_solve(packed, pivots, rhs, t)) for t in (False, True)}


def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    """x with A x = b (trans=0), A^T x = b (1) or A^H x = b (2), from lu_factor's (lu, piv);
    b [N] or [N, M]."""
    if trans not in (0, 1, 2):
        raise ValueError(f"For 'lu_solve', the value of 'trans' should be one of (0, 1, 2), but got {trans}.")
    packed, pivots = lu_and_piv
    packed, b = F.as_tensor(packed), F.as_tensor(b)
    rhs = F.cast(b if b.ndim == 2 else F.expand_dims(b, -1), packed.dtype)
    x = _LU_SOLVES[trans != 0](packed, F.cast(F.as_tensor(pivots), mstype.int32), rhs)
    return x if b.ndim == 2 else F.squeeze(x, -1)


_TRANS = {0: False, "N": False, 1: True, "T": True, 2: True, "C": True}


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False, debug=None,
                     check_finite=True):
    """x with op(a) x = b for triangular a [..., N, N] (only its lower or upper triangle is read),
    op = identity (trans 0/'N') or transpose (1/'T', 2/'C'); b [..., N, M] or [..., N].
    Integer operands give float32 (measured)."""
    if trans not in _TRANS or isinstance(trans, bool):
        raise RuntimeError(f"For 'SolveTriangular', 'trans' must be in [0, 1, 2, 'N', 'T', 'C'], but got [{trans}].")
    a, b = F.as_tensor(a), F.as_tensor(b)
    vector = b.ndim == a.ndim - 1
    if a.ndim < 2 or a.shape[-1] != a.shape[-2] or not (vector or b.ndim == a.ndim) \
            or b.shape[:a.ndim - 1] != a.shape[:-1]:
        raise ValueError(f"For 'SolveTriangular', the last two dimensions of `a` and `b` should be matched, but got "
                         f"shape of {list(a.shape)} and {list(b.shape)}. Please make sure that the shape of `a` and `b` "
                         "be like [..., N, N] X [..., N, M] or [..., N, N ] X[..., N].")
    if a.dtype is not b.dtype:
        raise TypeError("For 'SolveTriangular' the type of a and b must be same, but got type of a is different from "
                        "that of b! ")
    if a.dtype.is_integer:
        a, b = F.cast(a, mstype.float32), F.cast(b, mstype.float32)
    rhs = F.expand_dims(b, -1) if vector else b
    x = LP.triangular_solve.bind(a, rhs, lower=bool(lower), transpose_a=_TRANS[trans],
                                 unit_diagonal=bool(unit_diagonal))
    return F.squeeze(x, -1) if vector else x


def lstsq(A, B, rcond=None, driver=None):  # noqa: N803 - scipy's names
    """(x, residues, rank, s) minimizing ||A x - B|| (the minimum-norm solution, from the SVD):
    residues is empty and s is empty unless driver is 'gelsd' or 'gelss' (measured on 2.10);
    rank is an int64 0-D tensor, counting singular values above rcond (default eps * max(M, N))
    times the largest."""
    a, b = F.as_tensor(A), F.as_tensor(B)
    if a.dtype.is_integer:
        a = F.cast(a, mstype.float64)
    b = F.cast(b, a.dtype)
    m, n = a.shape
    s, u, v = _svd.svd.bind(a, full_matrices=False, compute_uv=True)
    if rcond is None:
        rcond = float(np.finfo(a.dtype.np_dtype).eps) * max(m, n)
    keep = F.greater(s, F.mul(F.slice_axis(s, 0, 0, 1), rcond))
    inv_s = F.select(keep, F.div(F.ones_like(s), F.select(keep, s, F.ones_like(s))), F.zeros_like(s))
    rhs = b if b.ndim == 2 else F.expand_dims(b, -1)
    x = F.matmul(v, F.mul(F.expand_dims(inv_s, -1), F.matmul(F.swapaxes(u, 0, 1), rhs)))
    x = x if b.ndim == 2 else F.squeeze(x, -1)
    rank = F.reduce_sum(F.cast(keep, mstype.int64))
    empty = F.zeros((0,), a.dtype)
    return x, empty, rank, (s if driver in ("gelsd", "gelss") else empty)

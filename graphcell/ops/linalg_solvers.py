"""Determinants, inverses, factorizations and solves with MindSpore 2.10's names: det, slogdet,
logdet, matrix_determinant, log_matrix_determinant, inverse, matrix_solve, cholesky,
cholesky_solve, cholesky_inverse, qr, lstsq, lu_solve, lu_unpack, matrix_exp, matrix_power,
pinv.

They are built on the primitives of ops/linalg_prims.py (det, slogdet, matrix_inverse,
cholesky, triangular_solve, qr, matrix_exp) and svd, plus ordinary ops. Matrices are the last
two axes; the leading axes are batch axes. dtypes, argument checks and messages are 2.10's
(measured): integers are refused, float16 is computed in float32 and cast back.
Departures, each measured on 2.10: the inverse of a singular matrix is inf/nan here (2.10's
CPU kernel returns finite garbage); batched cholesky_inverse is right here (2.10's CPU kernel
mixes up the batch); matrix_exp runs here (2.10 has no CPU kernel).
"""
from __future__ import annotations

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from . import functional as F
from . import linalg, linalg_prims as LP
from .composite import tril, triu

__all__ = ["det", "slogdet", "logdet", "matrix_determinant", "log_matrix_determinant", "inverse", "matrix_solve",
           "cholesky", "cholesky_solve", "cholesky_inverse", "qr", "lstsq", "lu_solve", "lu_unpack", "matrix_exp",
           "matrix_power", "pinv"]

_FLOATS = (mstype.float16, mstype.float32, mstype.float64)
_COMPLEX = (mstype.complex64, mstype.complex128)


def _float_matrices(op: str, x, dtypes=_FLOATS, square: bool = True) -> Tensor:
    x = F.as_tensor(x)
    if x.dtype not in dtypes:
        names = ", ".join(f"Tensor[{d}]" for d in dtypes)
        raise TypeError(f"For '{op}', the input must be a type of {{{names}}}, but got Tensor[{x.dtype}].")
    if x.ndim < 2:
        raise ValueError(f"For '{op}', the rank of the input must be greater than or equal to 2, but got {x.ndim}.")
    if square and x.shape[-1] != x.shape[-2]:
        raise ValueError(f"For '{op}', the input must be square matrices in its last two dimensions, but got shape "
                         f"{list(x.shape)}.")
    return x


def _in_float32(fn, *xs):
    """Runs `fn` on float16 operands cast to float32 (the primitives take float32 and float64),
    casting the results back."""
    dtype = xs[0].dtype
    if dtype is not mstype.float16:
        return fn(*xs)
    out = fn(*[F.cast(x, mstype.float32) for x in xs])
    if isinstance(out, (tuple, list)):
        return type(out)(F.cast(o, dtype) if o is not None else None for o in out)
    return F.cast(out, dtype)


def _mT(x):
    return F.swapaxes(x, -1, -2)


def _is_concrete(x) -> bool:
    return isinstance(x, Tensor) and not x.is_symbolic


# -- determinants ----------------------------------------------------------------------------

def det(input):  # noqa: A002 - MindSpore's names
    """The determinant of the square matrices in the last two axes: a tensor of the leading
    shape. float16, float32, float64, complex64 and complex128 (measured)."""
    x = _float_matrices("det", input, _FLOATS + _COMPLEX)
    return _in_float32(LP.det.bind, x)


matrix_determinant = det


def slogdet(input):  # noqa: A002
    """(sign, log|det|) of the square matrices in the last two axes; a singular matrix gives
    (0, -inf), as MindSpore 2.10. A complex matrix's sign is det / |det| and its log|det| is
    complex too (zero imaginary part), as 2.10's (measured)."""
    x = _float_matrices("slogdet", input, _FLOATS + _COMPLEX)
    return _in_float32(lambda t: tuple(LP.slogdet.bind(t)), x)


log_matrix_determinant = slogdet


def logdet(input):  # noqa: A002
    """log(det): nan where the determinant is negative and -inf where it is 0 (measured), from
    slogdet, so a large determinant does not overflow first."""
    sign, logabs = slogdet(_float_matrices("logdet", input))
    return F.select(F.less(sign, 0), F.full_like(logabs, float("nan")), logabs)


# -- inverses and solves ---------------------------------------------------------------------

def inverse(input):  # noqa: A002
    """The inverse of the square matrices in the last two axes; float32, float64, complex64 and
    complex128 only, as MindSpore 2.10 (measured). A singular matrix gives inf/nan."""
    x = _float_matrices("inverse", input, (mstype.float32, mstype.float64) + _COMPLEX)
    return LP.matrix_inverse.bind(x)


def _broadcast_batch(a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """a [..., n, n] and b [..., n, k] with their leading axes broadcast to one shape."""
    batch = tuple(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]))
    return F.broadcast_to(a, batch + a.shape[-2:]), F.broadcast_to(b, batch + b.shape[-2:])


def matrix_solve(matrix, rhs, adjoint=False):
    """X with matrix @ X = rhs (matrix^T @ X = rhs with adjoint), as the inverse times rhs."""
    a = _float_matrices("matrix_solve", matrix)
    b = F.as_tensor(rhs)
    if b.ndim != a.ndim or b.shape[-2] != a.shape[-1]:
        raise ValueError(f"For 'matrix_solve', rhs must be [..., {a.shape[-1]}, K] like matrix {list(a.shape)}, but "
                         f"got shape {list(b.shape)}.")
    b = F.cast(b, a.dtype)

    def solve(a, b):
        inv = LP.matrix_inverse.bind(a)
        return F.matmul(_mT(inv) if adjoint else inv, b)
    return _in_float32(solve, a, b)


def _check_upper(op: str, upper) -> bool:
    if not isinstance(upper, bool):
        raise TypeError(f"For '{op}', the type of 'upper' must be bool, but got {type(upper).__name__}.")
    return upper


def cholesky(input_x, upper=False):
    """The Cholesky factor of the symmetric positive definite matrices in the last two axes:
    lower L with A = L L^T, or upper U = L^T with A = U^T U. Only the lower triangle is read.
    Eagerly a matrix that is not positive definite raises 2.10's error; traced it gives NaNs."""
    upper = _check_upper("cholesky", upper)
    x = _float_matrices("cholesky", input_x)
    lower = _in_float32(LP.cholesky.bind, x)
    if _is_concrete(lower) and np.isnan(lower.asnumpy()).any() and not np.isnan(x.asnumpy()).any():
        raise ValueError("Cholesky expects symmetric positive definite matrices as inputs.")
    return _mT(lower) if upper else lower


def _cholesky_solve_factor(b, factor, upper):
    """A^-1 b for A = L L^T (lower factor) or U^T U (upper)."""
    first = dict(lower=not upper, transpose_a=upper, unit_diagonal=False)
    second = dict(lower=not upper, transpose_a=not upper, unit_diagonal=False)
    return LP.triangular_solve.bind(factor, LP.triangular_solve.bind(factor, b, **first), **second)


def cholesky_solve(input, input2, upper=False):  # noqa: A002
    """X with A X = input, where input2 is A's Cholesky factor (lower, or upper with upper=True).
    Both 2-D or both 3-D, of one dtype (measured)."""
    upper = _check_upper("cholesky_solve", upper)
    b, factor = F.as_tensor(input), _float_matrices("cholesky_solve", input2)
    if b.ndim not in (2, 3) or b.ndim != factor.ndim:
        raise ValueError(f"For 'cholesky_solve', input and input2 must both be 2-D or both 3-D, but got shapes "
                         f"{list(b.shape)} and {list(factor.shape)}.")
    if b.dtype is not factor.dtype:
        raise TypeError(f"For 'cholesky_solve', the input types must be the same, but got {b.dtype} and "
                        f"{factor.dtype}.")
    if b.shape[-2] != factor.shape[-1]:
        raise ValueError(f"For 'cholesky_solve', input's rows ({b.shape[-2]}) must match input2's size "
                         f"({factor.shape[-1]}).")
    factor, b = _broadcast_batch(factor, b)
    return _in_float32(lambda f, t: _cholesky_solve_factor(t, f, upper), factor, b)


def cholesky_inverse(input_x, upper=False):
    """The inverse of A = L L^T (or U^T U with upper=True) from its factor input_x:
    L^-T L^-1 (U^-1 U^-T). As 2.10 (measured), a factor that is not triangular is used as it
    is: the result is (X X^T)^-1 (upper: (X^T X)^-1)."""
    upper = _check_upper("cholesky_inverse", upper)
    x = _float_matrices("cholesky_inverse", input_x, (mstype.float32, mstype.float64))
    inv = LP.matrix_inverse.bind(x)
    return F.matmul(inv, _mT(inv)) if upper else F.matmul(_mT(inv), inv)


# -- qr and least squares --------------------------------------------------------------------

def qr(input, mode="reduced"):  # noqa: A002
    """(Q, R) with input = Q R over the last two axes [..., M, N]: 'reduced' gives Q [..., M, K]
    and R [..., K, N], K = min(M, N); 'complete' Q [..., M, M] and R [..., M, N]. The signs are
    LAPACK's (R's diagonal may be negative; a complex R's diagonal is real), as 2.10's."""
    if mode not in ("reduced", "complete"):
        raise TypeError(f"For qr, the arg mode must be 'reduced' or 'complete', but got {mode}.")
    x = F.as_tensor(input)
    if x.ndim < 2:
        raise ValueError("The input matrix must be at least two dimensions")
    x = _float_matrices("qr", x, _FLOATS + _COMPLEX, square=False)
    return _in_float32(lambda t: tuple(LP.qr.bind(t, full_matrices=mode == "complete")), x)


def _least_squares(a: Tensor, b: Tensor) -> Tensor:
    """argmin ||a X - b|| for a full-rank a [M, N] (LAPACK's gels): R^-1 Q^T b from a = QR when
    M >= N, the minimum-norm Q R^-T b from a^T = QR when M < N."""
    m, n = a.shape[-2:]
    if m >= n:
        q, r = LP.qr.bind(a, full_matrices=False)
        return LP.triangular_solve.bind(r, F.matmul(_mT(q), b), lower=False, transpose_a=False, unit_diagonal=False)
    q, r = LP.qr.bind(_mT(a), full_matrices=False)
    return F.matmul(q, LP.triangular_solve.bind(r, b, lower=False, transpose_a=True, unit_diagonal=False))


def lstsq(input, A):  # noqa: A002, N803 - MindSpore's names
    """X minimizing ||input @ X - A|| for a full-rank 2-D input [M, N] and A [M, K]: the least
    squares solution when M >= N, the minimum-norm one when M < N (measured on 2.10, which
    solves input @ X = A). A rank-deficient input has no unique answer (2.10 returns a basic
    solution, this the QR one)."""
    x, a = F._pair(input, A)
    for name, t in (("x", x), ("a", a)):
        if t.ndim != 2:
            raise ValueError(f"For 'Lstsq', the dimension of {name} must be equal to 2, but got {name}_dim: {t.ndim}.")
    x = _float_matrices("lstsq", x, square=False)
    if a.shape[0] != x.shape[0]:
        raise ValueError(f"For 'Lstsq', the rows of x ({x.shape[0]}) and a ({a.shape[0]}) must be equal.")
    return _in_float32(_least_squares, x, a)


# -- LU --------------------------------------------------------------------------------------

def _permutation(pivots: Tensor, m: int) -> Tensor:
    """The row order [..., m] that LAPACK's 1-based pivots (row i swapped with pivots[i] - 1, in
    turn) make: A's row perm[i] is row i of L U. One select per pivot, so it traces, vmaps and
    exports with the pivots as data."""
    pivots = F.sub(F.cast(pivots, mstype.int32), 1)
    iota = Tensor(np.arange(m, dtype=np.int32))
    perm = F.broadcast_to(iota, pivots.shape[:-1] + (m,))
    for i in range(pivots.shape[-1]):
        p = F.slice_axis(pivots, -1, i, i + 1)
        at_i, at_p = F.slice_axis(perm, -1, i, i + 1), F.gather_elements(perm, -1, p)
        perm = F.select(F.equal(iota, i), at_p, F.select(F.equal(iota, p), at_i, perm))
    return perm


def _check_pivots(pivots: Tensor, m: int) -> None:
    if _is_concrete(pivots):
        values = pivots.asnumpy()
        if values.size and (values.min() < 1 or values.max() > m):
            raise ValueError("The value of the elements in LU_pivots must be greater than 1 and less than the size "
                             "of the penultimate dimension of LU_data.")


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):  # noqa: N803
    """(P, L, U) from a packed LU factorization [..., M, N] and its 1-based pivots [..., K]
    (K = min(M, N)): A = P @ L @ U, L [..., M, K] unit lower, U [..., K, N] upper, P [..., M, M];
    the parts not asked for are None (measured)."""
    lu, pivots = F.as_tensor(LU_data), F.as_tensor(LU_pivots)
    if lu.ndim < 2:
        raise ValueError(f"For 'lu_unpack', LU_data must have at least 2 dimensions, but got {lu.ndim}.")
    if not pivots.dtype.is_integer or pivots.dtype is mstype.bool_:
        raise TypeError(f"For 'lu_unpack', LU_pivots must be an integer tensor, but got {pivots.dtype}.")
    m, n = lu.shape[-2:]
    k = min(m, n)
    if pivots.shape[-1:] != (k,):
        raise ValueError(f"For 'lu_unpack', LU_pivots must be [..., {k}] for LU_data of shape {list(lu.shape)}, "
                         f"but got {list(pivots.shape)}.")
    _check_pivots(pivots, m)
    p = low = up = None
    if unpack_data:
        eye = Tensor(np.eye(m, k, dtype=lu.dtype.np_dtype))
        low = F.add(tril(F.slice_axis(lu, -1, 0, k), -1), eye)
        up = triu(F.slice_axis(lu, -2, 0, k))
    if unpack_pivots:
        perm = _permutation(pivots, m)
        rows = Tensor(np.arange(m, dtype=np.int32).reshape(m, 1))
        p = F.cast(F.equal(rows, F.expand_dims(perm, -2)), lu.dtype)
    return p, low, up


def lu_solve(b, LU_data, LU_pivots):  # noqa: N803
    """X with A X = b from A's packed LU factorization and 1-based int32 pivots (torch's and
    LAPACK's getrf form); leading axes broadcast."""
    rhs, lu, pivots = F.as_tensor(b), _float_matrices("lu_solve", LU_data), F.as_tensor(LU_pivots)
    if rhs.ndim < 2:
        raise ValueError(f"For 'LuSolve', x's dimension must be greater than or equal to 2, but got: {rhs.ndim}.")
    if pivots.dtype is not mstype.int32:
        raise TypeError(f"For primitive[LuSolve], the input argument[lu_pivots] must be a type of {{Tensor[Int32]}}, "
                        f"but got Tensor[{pivots.dtype}].")
    if rhs.dtype is not lu.dtype:
        raise TypeError(f"For 'LuSolve', b and LU_data must have one dtype, but got {rhs.dtype} and {lu.dtype}.")
    n = lu.shape[-1]
    if rhs.shape[-2] != n or pivots.shape[-1:] != (n,):
        raise ValueError(f"For 'LuSolve', b {list(rhs.shape)} and LU_pivots {list(pivots.shape)} do not match "
                         f"LU_data {list(lu.shape)}.")
    _check_pivots(pivots, n)
    batch = tuple(np.broadcast_shapes(rhs.shape[:-2], lu.shape[:-2], pivots.shape[:-1]))
    lu = F.broadcast_to(lu, batch + (n, n))
    rhs = F.broadcast_to(rhs, batch + rhs.shape[-2:])
    perm = _permutation(F.broadcast_to(pivots, batch + (n,)), n)
    rows = F.gather_elements(rhs, rhs.ndim - 2, F.broadcast_to(F.expand_dims(perm, -1), rhs.shape))

    def solve(lu, rows):
        y = LP.triangular_solve.bind(lu, rows, lower=True, transpose_a=False, unit_diagonal=True)
        return LP.triangular_solve.bind(lu, y, lower=False, transpose_a=False, unit_diagonal=False)
    return _in_float32(solve, lu, rows)


# -- matrix functions --------------------------------------------------------------------------

def matrix_exp(input):  # noqa: A002
    """exp of the square matrices in the last two axes (Pade approximation with scaling and
    squaring: jax's expm). MindSpore 2.10 has no CPU kernel for it (measured)."""
    x = _float_matrices("matrix_exp", input)
    return _in_float32(LP.matrix_exp.bind, x)


_POWER_DTYPES = (mstype.float32, mstype.float64, mstype.int8, mstype.int16, mstype.int32, mstype.int64, mstype.uint8)


def matrix_power(input, n):  # noqa: A002
    """The n-th power of the square matrices in the last two axes by repeated squaring; n = 0
    gives the identity, n < 0 the power of the inverse (float only). Integers wrap around as
    2.10's (measured)."""
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"For 'MatrixPower', the type of 'n' should be 'int', but got type '{type(n).__name__}'.")
    x = _float_matrices("MatrixPower", input, _POWER_DTYPES, square=False)
    if x.shape[-1] != x.shape[-2]:
        raise ValueError(f"For MatrixPower, dim[-1] and dim[-2] of x should be the same, but got dim[-1]: "
                         f"{x.shape[-1]} and dim[-2]: {x.shape[-2]}.")
    if n < 0:
        if not x.dtype.is_floating:
            raise ValueError("For MatrixPower, integral types are not supported for n < 0.")
        x, n = LP.matrix_inverse.bind(x), -n
    result, square = None, x
    while n:
        if n & 1:
            result = square if result is None else F.matmul(result, square)
        n >>= 1
        if n:
            square = F.matmul(square, square)
    if result is None:
        return F.broadcast_to(Tensor(np.eye(x.shape[-1], dtype=x.dtype.np_dtype)), x.shape)
    return result


def pinv(x, *, atol=None, rtol=None, hermitian=False):
    """The Moore-Penrose pseudo-inverse of the matrices in the last two axes, from the SVD:
    singular values at or below max(atol, rtol * largest) count as zero. rtol defaults to
    eps * max(M, N) when atol is not given, else 0 (measured). hermitian=True reads the lower
    triangle only, as 2.10 does (measured)."""
    a = F.as_tensor(x)
    if a.dtype not in (mstype.float32, mstype.float64):
        raise TypeError(f"For 'pinv', the 'x' should be one of [mindspore.float32, mindspore.float64], but got "
                        f"'mindspore.{a.dtype.name}'.")
    if a.ndim < 2:
        raise ValueError(f"input x should have 2 or more dimensions, but got {a.ndim}.")
    if hermitian:
        a = F.add(tril(a), _mT(tril(a, -1)))
    m, n = a.shape[-2:]
    s, u, v = linalg.svd.bind(a, full_matrices=False, compute_uv=True)
    largest = F.slice_axis(s, -1, 0, 1)
    if rtol is None:
        rtol = float(np.finfo(a.dtype.np_dtype).eps) * max(m, n) if atol is None else 0.0
    atol = 0.0 if atol is None else atol
    threshold = F.maximum(F.cast(F.as_tensor(atol), a.dtype), F.mul(largest, F.cast(F.as_tensor(rtol), a.dtype)))
    keep = F.greater(s, threshold)
    safe = F.select(keep, s, F.ones_like(s))   # no 1/0 in the dropped branch (its gradient would be nan)
    inv_s = F.select(keep, F.div(F.ones_like(s), safe), F.zeros_like(s))
    return F.matmul(F.mul(v, F.expand_dims(inv_s, -2)), _mT(u))

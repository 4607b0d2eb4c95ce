"""LU factorization with partial pivoting (LAPACK's getrf) composed from ordinary ops, so that
it traces, vmaps, differentiates and exports like any other graph; used by
graphcell.scipy.linalg's lu, lu_factor and lu_solve.

One elimination step per column (a Python loop: n steps of O(m n) ops each, meant for the
small matrices these functions see): the pivot is the first row with the largest magnitude in
the column at or below the diagonal (LAPACK's idamax), the two rows are swapped with selects,
and the rows below are eliminated with a rank-1 update.
"""
from __future__ import annotations

import numpy as np

from .. import dtype as mstype
from ..ops import functional as F
from ..tensor import Tensor


def _row(x: Tensor, index: Tensor) -> Tensor:
    """Row `index` (a [1] int tensor) of the matrix x, as [1, n]."""
    return F.gather_elements(x, 0, F.broadcast_to(F.reshape(index, (1, 1)), (1, x.shape[1])))


def lu_decompose(a: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """(packed LU [m, n], 0-based pivots [k] int32, row order [m] int32) of a [m, n], k =
    min(m, n): a's row perm[i] is row i of L U, and row i was swapped with row pivots[i] at
    step i. A zero pivot leaves its column unscaled, as LAPACK does."""
    m, n = a.shape
    rows = Tensor(np.arange(m, dtype=np.int32).reshape(m, 1))
    cols = Tensor(np.arange(n, dtype=np.int32).reshape(1, n))
    perm = Tensor(np.arange(m, dtype=np.int32).reshape(m, 1))
    pivots = []
    for k in range(min(m, n)):
        column = F.abs(F.slice_axis(F.slice_axis(a, 1, k, k + 1), 0, k, m))          # [m - k, 1]
        p = F.add(F.cast(F.reshape(F.argmax(column, 0), (1,)), mstype.int32), k)      # first largest
        pivots.append(p)
        is_k, is_p = F.equal(rows, k), F.equal(rows, F.reshape(p, (1, 1)))
        row_k, row_p = F.slice_axis(a, 0, k, k + 1), _row(a, p)
        a = F.select(is_k, F.broadcast_to(row_p, a.shape), F.select(is_p, F.broadcast_to(row_k, a.shape), a))
        perm_k, perm_p = F.slice_axis(perm, 0, k, k + 1), _row(perm, p)
        perm = F.select(is_k, F.broadcast_to(perm_p, perm.shape), F.select(is_p, F.broadcast_to(perm_k, perm.shape),
                                                                              perm))
        pivot_row = F.slice_axis(a, 0, k, k + 1)                                    # [1, n]
        diag = F.slice_axis(pivot_row, 1, k, k + 1)                                 # [1, 1]
        zero = F.equal(diag, 0)
        below = F.greater(rows, k)
        multipliers = F.select(below, F.div(F.slice_axis(a, 1, k, k + 1), F.select(zero, F.ones_like(diag), diag)),
                               F.zeros((m, 1), a.dtype))
        multipliers = F.select(zero, F.zeros_like(multipliers), multipliers)
        right = F.select(F.greater(cols, k), pivot_row, F.zeros_like(pivot_row))
        a = F.sub(a, F.mul(multipliers, right))
        a = F.select(F.logical_and(below, F.equal(cols, k)), F.broadcast_to(multipliers, a.shape), a)
    pivots = F.concat(pivots, 0) if pivots else Tensor(np.zeros((0,), np.int32))
    return a, pivots, F.reshape(perm, (m,))


def permutation_matrix(perm: Tensor, dtype) -> Tensor:
    """P [m, m] with P[i, j] = (perm[i] == j): (P x)[i] = x[perm[i]], P^T undoes it."""
    m = perm.shape[-1]
    return F.cast(F.equal(F.expand_dims(perm, -1), Tensor(np.arange(m, dtype=np.int32))), dtype)

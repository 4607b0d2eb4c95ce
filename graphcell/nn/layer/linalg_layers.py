"""MindSpore 2.10's matrix Cells: MatDet, MatInverse, MatrixDiag, MatrixDiagPart, MatrixSetDiag,
Tril and Triu, over graphcell's ops.

2.10 has no CPU kernels for the first five (measured: DetTriangle and MatrixDiag are
unsupported on CPU), so they follow its documentation and type checks: MatDet and MatInverse
take float16 and float32 and are documented for symmetric positive definite matrices (2.10
goes through a Cholesky factor; here the general det and inverse, equal on that domain).
"""
from __future__ import annotations

from ... import dtype as mstype
from ...ops import composite as CP
from ...ops import functional as F
from ...ops import linalg_solvers as LS
from ...ops import matrix_builders as MB
from ..cell import Cell

__all__ = ["MatDet", "MatInverse", "MatrixDiag", "MatrixDiagPart", "MatrixSetDiag", "Tril", "Triu"]


def _half_or_single(cell: str, a):
    a = F.as_tensor(a)
    if a.dtype not in (mstype.float16, mstype.float32):
        raise TypeError(f"For '{cell}', the 'input_a' should be one of [mindspore.float16, mindspore.float32], but "
                        f"got 'mindspore.{a.dtype.name}'.")
    return a


class MatDet(Cell):
    """The determinant of symmetric positive definite matrices [..., M, M]."""

    def construct(self, a):
        return LS.det(_half_or_single("MatDet", a))


class MatInverse(Cell):
    """The inverse of symmetric positive definite matrices [..., M, M] (float16 in float32)."""

    def construct(self, a):
        a = _half_or_single("MatInverse", a)
        if a.dtype is mstype.float16:
            return F.cast(LS.inverse(F.cast(a, mstype.float32)), mstype.float16)
        return LS.inverse(a)


class MatrixDiag(Cell):
    """[..., K] -> [..., K, K] matrices with the values on their diagonal."""

    def construct(self, input_x):
        x = F.as_tensor(input_x)
        if x.ndim < 1:
            raise ValueError(f"For '_get_matrix_diag_assist', the 'x rank' must be int and must >= 1, but got "
                             f"'{x.ndim}' with type 'int'.")
        return MB.diag_embed(x)


class MatrixDiagPart(Cell):
    """The main diagonal of matrices [..., M, N]: [..., min(M, N)]."""

    def construct(self, input_x):
        return MB.matrix_diag_part(input_x, 0, 0)


class MatrixSetDiag(Cell):
    """Matrices [..., M, N] with their main diagonal replaced by `diagonal` [..., min(M, N)]."""

    def construct(self, input_x, diagonal):
        return MB.matrix_set_diag(input_x, diagonal)


class Tril(Cell):
    """The lower triangle of the last two axes (j <= i + k), zeros elsewhere."""

    def construct(self, x, k=0):
        return CP.tril(x, k)


class Triu(Cell):
    """The upper triangle of the last two axes (j >= i + k), zeros elsewhere."""

    def construct(self, x, k=0):
        return CP.triu(x, k)

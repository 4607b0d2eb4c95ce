"""MindSpore 2.10's linear-algebra operator classes (ops.MatrixInverse, ops.Cholesky, ...), over
the functional ops of linalg_solvers.py and matrix_builders.py; operations.py re-exports them.
Constructor arguments and defaults are 2.10's (measured); the Tensor-valued arguments of the
V3 diagonal classes must be constants, as the functional forms' k."""
from __future__ import annotations

from .. import dtype as mstype
from . import functional as F
from . import linalg_prims as LP
from . import householder_ops as HO
from . import linalg_solvers as LS
from . import matrix_builders as MB
from .op_base import Operator, check_bool, check_choice, check_dtype, check_float, check_int

__all__ = ["MatrixInverse", "MatrixDeterminant", "LogMatrixDeterminant", "Cholesky", "CholeskySolve",
           "CholeskyInverse", "MatrixExp", "MatrixBandPart", "MatrixPower", "Qr", "Ger", "LuUnpack", "LuSolve",
           "Lstsq", "TrilIndices", "TriuIndices", "MatrixTriangularSolve", "MatrixSolve", "MatrixDiagV3",
           "MatrixDiagPartV3", "MatrixSetDiagV3", "Geqrf", "Orgqr", "Ormqr"]


class MatrixInverse(Operator):
    """The inverse of square matrices; its transpose with adjoint=True."""

    def __init__(self, adjoint=False):
        super().__init__(adjoint=check_bool("MatrixInverse", "adjoint", adjoint))

    def __call__(self, x):
        inv = LS.inverse(x)
        return F.swapaxes(inv, -1, -2) if self.adjoint else inv


class MatrixDeterminant(Operator):
    def __call__(self, input):  # noqa: A002 - MindSpore's names
        return LS.det(input)


class LogMatrixDeterminant(Operator):
    """(sign, log|det|)."""

    def __call__(self, input):  # noqa: A002
        return LS.slogdet(input)


class Cholesky(Operator):
    def __init__(self, upper=False):
        super().__init__(upper=check_bool("Cholesky", "upper", upper))

    def __call__(self, input_x):
        return LS.cholesky(input_x, self.upper)


class CholeskySolve(Operator):
    def __init__(self, upper=False):
        super().__init__(upper=check_bool("CholeskySolve", "upper", upper))

    def __call__(self, x1, x2):
        return LS.cholesky_solve(x1, x2, self.upper)


class CholeskyInverse(Operator):
    def __init__(self, upper=False):
        super().__init__(upper=check_bool("CholeskyInverse", "upper", upper))

    def __call__(self, input_x):
        return LS.cholesky_inverse(input_x, self.upper)


class MatrixExp(Operator):
    def __call__(self, input):  # noqa: A002
        return LS.matrix_exp(input)


class MatrixBandPart(Operator):
    def __call__(self, x, lower, upper):
        return MB.matrix_band_part(x, lower, upper)


class MatrixPower(Operator):
    def __init__(self, n):
        super().__init__(n=check_int("MatrixPower", "n", n))

    def __call__(self, x):
        return LS.matrix_power(x, self.n)


class Qr(Operator):
    """(Q, R): reduced, or complete with full_matrices=True."""

    def __init__(self, full_matrices=False):
        super().__init__(full_matrices=check_bool("Qr", "full_matrices", full_matrices))

    def __call__(self, x):
        return LS.qr(x, "complete" if self.full_matrices else "reduced")


class Ger(Operator):
    def __call__(self, x1, x2):
        return MB.ger(x1, x2)


class LuUnpack(Operator):
    def __init__(self, unpack_data=True, unpack_pivots=True):
        super().__init__(unpack_data=check_bool("LuUnpack", "unpack_data", unpack_data),
                         unpack_pivots=check_bool("LuUnpack", "unpack_pivots", unpack_pivots))

    def __call__(self, LU_data, LU_pivots):  # noqa: N803
        return LS.lu_unpack(LU_data, LU_pivots, self.unpack_data, self.unpack_pivots)


class LuSolve(Operator):
    def __call__(self, x, lu_data, lu_pivots):
        return LS.lu_solve(x, lu_data, lu_pivots)


class Lstsq(Operator):
    """X minimizing ||x @ X - a||; 2.10 accepts l2_regularizer 0.0 only (measured)."""

    def __init__(self, fast=True, l2_regularizer=0.0):
        l2 = check_float("Lstsq", "l2_regularizer", l2_regularizer)
        if l2 != 0.0:
            raise TypeError(f"For 'Lstsq', the 'l2_regularizer' should be 0.0, but got '{l2}'.")
        super().__init__(fast=check_bool("Lstsq", "fast", fast), l2_regularizer=l2)

    def __call__(self, x, a):
        return LS.lstsq(x, a)


class _TriangleIndices(Operator):
    _fn = None

    def __init__(self, row, col, offset=0, dtype=mstype.int32):
        name = type(self).__name__
        super().__init__(row=check_int(name, "row", row, 0), col=check_int(name, "col", col, 0),
                         offset=check_int(name, "offset", offset),
                         dtype=check_dtype(name, "dtype", dtype, (mstype.int32, mstype.int64)))

    def __call__(self):
        return type(self)._fn(self.row, self.col, self.offset, dtype=self.dtype)


class TrilIndices(_TriangleIndices):
    _fn = staticmethod(MB.tril_indices)


class TriuIndices(_TriangleIndices):
    _fn = staticmethod(MB.triu_indices)


class MatrixTriangularSolve(Operator):
    """X with A X = rhs for triangular A (lower by default; A^T with adjoint=True)."""

    def __init__(self, lower=True, adjoint=False):
        super().__init__(lower=check_bool("MatrixTriangularSolve", "lower", lower),
                         adjoint=check_bool("MatrixTriangularSolve", "adjoint", adjoint))

    def __call__(self, matrix, rhs):
        a = LS._float_matrices("MatrixTriangularSolve", matrix)
        b = F.cast(F.as_tensor(rhs), a.dtype)
        a, b = LS._broadcast_batch(a, b)
        return LS._in_float32(lambda p, q: LP.triangular_solve.bind(
            p, q, lower=self.lower, transpose_a=self.adjoint, unit_diagonal=False), a, b)


class MatrixSolve(Operator):
    def __init__(self, adjoint=False):
        super().__init__(adjoint=check_bool("MatrixSolve", "adjoint", adjoint))

    def __call__(self, matrix, rhs):
        return LS.matrix_solve(matrix, rhs, self.adjoint)


_ALIGNS = ["LEFT_RIGHT", "RIGHT_LEFT", "LEFT_LEFT", "RIGHT_RIGHT"]


class MatrixDiagV3(Operator):
    def __init__(self, align="RIGHT_LEFT"):
        super().__init__(align=check_choice("MatrixDiagV3", "align", align, _ALIGNS))

    def __call__(self, x, k, num_rows, num_cols, padding_value):
        rows, cols = (MB._static_ints("MatrixDiagV3", name, v)[0] for name, v in
                      (("num_rows", num_rows), ("num_cols", num_cols)))
        return MB.matrix_diag(x, k, rows, cols, padding_value, self.align)


class MatrixDiagPartV3(Operator):
    def __init__(self, align="RIGHT_LEFT"):
        super().__init__(align=check_choice("MatrixDiagPartV3", "align", align, _ALIGNS))

    def __call__(self, x, k, padding_value):
        return MB.matrix_diag_part(x, k, padding_value, self.align)


class MatrixSetDiagV3(Operator):
    def __init__(self, align="RIGHT_LEFT"):
        super().__init__(align=check_choice("MatrixSetDiagV3", "align", align, _ALIGNS))

    def __call__(self, x, diagonal, k):
        return MB.matrix_set_diag(x, diagonal, k, self.align)


class Geqrf(Operator):
    def __call__(self, input):  # noqa: A002
        return HO.geqrf(input)


class Orgqr(Operator):
    def __call__(self, x, tau):
        return HO.orgqr(x, tau)


class Ormqr(Operator):
    def __init__(self, left=True, transpose=False):
        super().__init__(left=check_bool("Ormqr", "left", left), transpose=check_bool("Ormqr", "transpose", transpose))

    def __call__(self, x, tau, other):
        return HO.ormqr(x, tau, other, self.left, self.transpose)

"""mint's matrix products and matrix functions: torch's names and keyword `beta`/`alpha`."""
from __future__ import annotations

from .. import dtype as mstype
from .. import ops
from ..ops import functional as F
from ..ops import linalg_prims as LP

from ..ops import addmm, addmv, cross, einsum, inverse, mm, outer  # noqa: F401
from ..tensor import Tensor


def check_same_dtype(op: str, x1, x2) -> None:
    """2.10's (and torch's) refusal of a product of two Tensors of different dtypes (measured:
    mint.matmul(float16, float32) is a TypeError, not a promotion)."""
    if isinstance(x1, Tensor) and isinstance(x2, Tensor) and x1.dtype != x2.dtype:
        raise TypeError(f"For '{op}', the type of 'x2' should be same as 'x1', but got 'x1' with type "
                        f"Tensor[{x1.dtype}] and 'x2' with type Tensor[{x2.dtype}].")


def matmul(input, other):  # noqa: A002 - mint's names
    check_same_dtype("MatMulExt", input, other)
    return ops.matmul(input, other)


def _scaled(value, factor):
    return value if factor == 1 and not isinstance(factor, bool) else F.mul(value, factor)


def _beta_alpha(input, product, beta, alpha):  # noqa: A002
    """beta * input + alpha * product; beta 0 ignores input (NaN in it included), as torch."""
    if beta == 0:
        return _scaled(product, alpha)
    return F.add(_scaled(input, beta), _scaled(product, alpha))


def bmm(input, mat2):  # noqa: A002 - mint's names
    check_same_dtype("BatchMatMulExt", input, mat2)
    return ops.bmm(input, mat2)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):  # noqa: A002
    """beta * input + alpha * (batch1 @ batch2), batch by batch."""
    return _beta_alpha(input, ops.bmm(batch1, batch2), beta, alpha)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):  # noqa: A002
    """beta * input + alpha * the sum over the batch of batch1 @ batch2."""
    return _beta_alpha(input, F.reduce_sum(ops.bmm(batch1, batch2), 0), beta, alpha)


def addr_(input, vec1, vec2, beta=1, alpha=1):  # noqa: A002
    """beta * input + alpha * outer(vec1, vec2) (named with torch's in-place underscore, it returns a new Tensor)."""
    return _beta_alpha(input, ops.outer(vec1, vec2), beta, alpha)


def mv(input, vec):  # noqa: A002
    return ops.mv(input, vec)


def dot(input, other):  # noqa: A002
    """The inner product of two 1-D tensors."""
    return ops.dot(input, other)


def vdot(input, other):  # noqa: A002
    """The inner product of two 1-D tensors, input conjugated first."""
    a = F.as_tensor(input)
    return ops.dot(ops.conj(a) if a.dtype.is_complex else a, other)


def diag(input, diagonal=0):  # noqa: A002
    """A 1-D input: the square matrix with it on diagonal `diagonal`; a 2-D input: that diagonal, 1-D."""
    x = F.as_tensor(input)
    if x.ndim == 1:
        return ops.diagflat(x, diagonal)
    if x.ndim == 2:
        return ops.diagonal(x, diagonal)
    raise ValueError(f"For 'diag', input must be 1-D or 2-D, but got {x.ndim}-D.")


def trace(input):  # noqa: A002
    """The sum of the main diagonal; integer and bool inputs sum in int64 (MindSpore's documents)."""
    x = F.as_tensor(input)
    if x.ndim != 2:
        raise ValueError(f"For 'trace', the dimension of input must be 2, but got {x.ndim}.")
    d = ops.diagonal(x)
    if not x.dtype.is_floating and not x.dtype.is_complex:
        d = F.cast(d, mstype.int64)
    return F.reduce_sum(d)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The p-norm distances between the rows of x1 and x2 (compute_mode is a speed hint in torch)."""
    return ops.cdist(x1, x2, p)


def cdist_(x1, x2, p=2.0):
    return ops.cdist(x1, x2, p)


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):  # noqa: N803 - torch's names
    """(X, A) with A @ X = b (A^T @ X = b with transpose) for triangular A, a tuple as torch's
    (solution, cloned_coefficient)."""
    a, rhs = F.as_tensor(A), F.as_tensor(b)
    x = LP.triangular_solve.bind(a, rhs, lower=not upper, transpose_a=bool(transpose),
                                 unit_diagonal=bool(unitriangular))
    return x, a.clone()

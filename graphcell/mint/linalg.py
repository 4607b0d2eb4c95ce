"""mindspore.mint.linalg: torch.linalg's names over graphcell.ops' linear algebra."""
from __future__ import annotations

from .. import ops


def inv(input):  # noqa: A002 - mint's names
    """The inverse of each square matrix of input's last two axes."""
    return ops.inverse(input)


def qr(A, mode="reduced"):  # noqa: N803
    """(Q, R) with A = Q R: 'reduced' or 'complete' (torch's 'r', R alone, is refused as by 2.10)."""
    return ops.qr(A, mode)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """The vector ord-norm over dim (every element for None): 2, inf, -inf, 0 or any p."""
    return ops.vector_norm(x, ord, dim, keepdim, dtype=dtype)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):  # noqa: A002, N803
    """The matrix norm over the two dims: 'fro', 'nuc', 2, -2, 1, -1, inf, -inf."""
    return ops.matrix_norm(A, ord, dim, keepdim, dtype=dtype)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: A002, N803
    """torch.linalg.norm: dim an int a vector norm, a pair a matrix norm; dim None with ord None
    the 2-norm of every element, with ord given a vector norm (1-D) or a matrix norm (2-D)."""
    return ops.norm(A, ord, dim, keepdim, dtype=dtype)

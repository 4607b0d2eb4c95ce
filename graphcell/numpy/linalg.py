"""Products and linear algebra of mindspore.numpy: dot, matmul, inner, outer, tensordot, kron,
cross, multi_dot, matrix_power, norm, vander, cov and corrcoef.

Operands of different dtypes promote to their common dtype first (numpy's rule; MindSpore 2.10's
MatMul refuses Float32 with Int32, which graphcell does not copy).
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from .. import ops
from ..ops import functional as F
from ..tensor import Tensor
from ._helpers import as_float, axes as _axes, promote, tensor, with_dtype


def _contract(a: Tensor, b: Tensor, axes_a: list, axes_b: list) -> Tensor:
    """Sums the products over axes_a of a paired with axes_b of b; the free axes of a, then of b."""
    free_a = [i for i in range(a.ndim) if i not in axes_a]
    free_b = [i for i in range(b.ndim) if i not in axes_b]
    k = 1
    for i in axes_a:
        k *= a.shape[i]
    left = F.reshape(F.transpose(a, tuple(free_a + list(axes_a))), (-1, k))
    right = F.reshape(F.transpose(b, tuple(list(axes_b) + free_b)), (k, -1))
    out = F.matmul(left, right)
    return F.reshape(out, tuple(a.shape[i] for i in free_a) + tuple(b.shape[i] for i in free_b))


def dot(a, b) -> Tensor:
    """numpy's dot: a product of scalars, vectors' inner product, else a sum over a's last axis
    and b's second-to-last (its only one when 1-D)."""
    a, b = promote(a, b)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    return _contract(a, b, [a.ndim - 1], [max(b.ndim - 2, 0)])


def matmul(x1, x2, dtype=None) -> Tensor:
    """The matrix product, broadcasting batch axes; 1-D operands act as a row or a column."""
    a, b = promote(x1, x2)
    return with_dtype(F.matmul(a, b), dtype)


def inner(a, b) -> Tensor:
    """The sum of products over the last axes of a and b."""
    a, b = promote(a, b)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    return _contract(a, b, [a.ndim - 1], [b.ndim - 1])


def outer(a, b) -> Tensor:
    """The outer product of the flattened a and b."""
    a, b = promote(a, b)
    return F.reshape(a, (-1, 1)) * F.reshape(b, (1, -1))


def tensordot(a, b, axes=2) -> Tensor:
    """Sums over the last `axes` axes of a and the first of b, or the axes the pair of lists names."""
    a, b = promote(a, b)
    if isinstance(axes, numbers.Integral):
        axes_a, axes_b = list(range(a.ndim - axes, a.ndim)), list(range(axes))
    else:
        axes_a, axes_b = axes
        axes_a = [axes_a] if isinstance(axes_a, numbers.Integral) else list(axes_a)
        axes_b = [axes_b] if isinstance(axes_b, numbers.Integral) else list(axes_b)
    axes_a = [i % a.ndim for i in axes_a]
    axes_b = [i % b.ndim for i in axes_b]
    if [a.shape[i] for i in axes_a] != [b.shape[i] for i in axes_b]:
        raise ValueError(f"shape-mismatch for sum: {a.shape} on axes {axes_a} and {b.shape} on axes {axes_b}")
    return _contract(a, b, axes_a, axes_b)


def kron(a, b) -> Tensor:
    a, b = promote(a, b)
    return ops.kron(a, b)


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None) -> Tensor:
    """The cross product of 3-vectors along the given axes (MindSpore 2.10 takes 3-vectors only)."""
    a, b = promote(a, b)
    if axis is not None:
        axisa = axisb = axisc = axis
    a = F.moveaxis(a, axisa % max(a.ndim, 1), -1) if a.ndim else a
    b = F.moveaxis(b, axisb % max(b.ndim, 1), -1) if b.ndim else b
    if a.shape[-1:] != (3,) or b.shape[-1:] != (3,):
        raise ValueError("incompatible dimensions for cross product (dimension must be 3)")
    a0, a1, a2 = (a[..., i] for i in range(3))
    b0, b1, b2 = (b[..., i] for i in range(3))
    out = F.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], -1)
    return F.moveaxis(out, -1, axisc % out.ndim) if out.ndim > 1 else out


def multi_dot(arrays) -> Tensor:
    """dot of the arrays in turn (the first and last may be 1-D)."""
    if len(arrays) < 2:
        raise ValueError("Expecting at least two arrays.")
    out = tensor(arrays[0])
    for x in arrays[1:]:
        out = dot(out, x)
    return out


def matrix_power(a, n) -> Tensor:
    """a @ a @ ... (n times) by squaring; n >= 0 (MindSpore 2.10 refuses negative n)."""
    if not isinstance(n, numbers.Integral):
        raise TypeError(f"exponent must be an integer, got {type(n).__name__}")
    if n < 0:
        raise ValueError("n < 0 is not supported now.")
    x = tensor(a)
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError("input must be a square array")
    result = None
    base = x
    while True:
        if n & 1:
            result = base if result is None else F.matmul(result, base)
        n >>= 1
        if not n:
            break
        base = F.matmul(base, base)
    if result is None:
        return F.broadcast_to(Tensor(np.eye(x.shape[-1]), x.dtype), x.shape)
    return result


def norm(x, ord=None, axis=None, keepdims=False) -> Tensor:  # noqa: A002 - numpy's names
    """numpy.linalg's norm: vector norms (ord None/2, inf, -inf, 0, p) over one axis, matrix
    norms ('fro', 1, -1, inf, -inf) over two; axis=None with ord=None is the 2-norm of the
    flattened x. The singular-value norms ('nuc', 2, -2) raise NotImplementedError, as in
    MindSpore 2.10."""
    x = as_float(x)
    if axis is None:
        if ord is None:
            return _p_norm(F.reshape(x, (-1,)), 2, (0,), False, x.ndim if keepdims else 0)
        axis = tuple(range(x.ndim))
    axes = _axes(axis, x.ndim)
    if len(axes) == 1:
        return _p_norm(x, 2 if ord is None else ord, axes, keepdims, None)
    if len(axes) != 2:
        raise ValueError("Improper number of dimensions to norm.")
    return _matrix_norm(x, "fro" if ord is None else ord, axes, keepdims)


def _p_norm(x, ord, axes, keepdims, restore_rank):  # noqa: A002
    if isinstance(ord, str):
        raise ValueError(f"Invalid norm order '{ord}' for vectors")
    magnitude = ops.abs(x)
    if ord == math.inf:
        out = F.reduce_max(magnitude, axes, keepdims)
    elif ord == -math.inf:
        out = F.reduce_min(magnitude, axes, keepdims)
    elif ord == 0:
        out = F.reduce_sum(F.cast(ops.ne(x, 0.0), x.dtype), axes, keepdims)
    elif ord == 1:
        out = F.reduce_sum(magnitude, axes, keepdims)
    elif ord == 2:
        out = ops.sqrt(F.reduce_sum(x * x, axes, keepdims))
    else:
        out = ops.pow(F.reduce_sum(ops.pow(magnitude, float(ord)), axes, keepdims), 1.0 / float(ord))
    if restore_rank:
        out = F.reshape(out, (1,) * restore_rank)
    return out


def _matrix_norm(x, ord, axes, keepdims):  # noqa: A002
    row, col = axes
    if ord == "fro":
        out = ops.sqrt(F.reduce_sum(x * x, axes, keepdims))
    elif ord in (1, -1):
        sums = F.reduce_sum(ops.abs(x), (row,), True)
        out = (F.reduce_max if ord == 1 else F.reduce_min)(sums, (col,), True)
    elif ord in (math.inf, -math.inf):
        sums = F.reduce_sum(ops.abs(x), (col,), True)
        out = (F.reduce_max if ord == math.inf else F.reduce_min)(sums, (row,), True)
    elif ord == "nuc":
        raise NotImplementedError("nuclear norm is not implemented")
    elif ord in (2, -2):
        raise NotImplementedError("2-norm is not implemented for matrices")
    else:
        raise ValueError(f"Invalid norm order {ord!r} for matrices")
    if not keepdims and ord != "fro":
        out = F.reshape(out, tuple(s for i, s in enumerate(out.shape) if i not in axes))
    return out


def vander(x, N=None, increasing=False) -> Tensor:  # noqa: N803 - numpy's names
    """The Vandermonde matrix of the 1-D x: columns x**(N-1), ..., x**0 (reversed if increasing)."""
    x = tensor(x)
    if x.ndim != 1:
        raise ValueError("x should be a 1-D Tensor")
    n = x.shape[0] if N is None else N
    powers = np.arange(n) if increasing else np.arange(n)[::-1].copy()
    return ops.pow(F.reshape(x, (-1, 1)), Tensor(powers.reshape(1, -1), x.dtype))


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, dtype=None) -> Tensor:
    """The covariance matrix of the variables in the rows (columns when rowvar=False) of m (and
    y), with numpy's frequency and analytic weights."""
    x = as_float(m)
    if x.ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    x = F.reshape(x, (1, -1)) if x.ndim < 2 else x
    if not rowvar and x.shape[0] != 1:
        x = F.transpose(x, (1, 0))
    if y is not None:
        other = as_float(y)
        other = F.reshape(other, (1, -1)) if other.ndim < 2 else other
        if not rowvar and other.shape[0] != 1:
            other = F.transpose(other, (1, 0))
        x, other = promote(x, other)
        x = F.concat([x, other], 0)
    if ddof is None:
        ddof = 0 if bias else 1
    n = x.shape[1]
    w = None
    if fweights is not None:
        f = tensor(fweights)
        if f.dtype.is_floating:
            raise TypeError("fweights must be integer")
        w = F.cast(f, x.dtype)
    if aweights is not None:
        a = F.cast(tensor(aweights), x.dtype)
        w = a if w is None else w * a
    if w is None:
        centred = x - F.reduce_mean(x, (1,), True)
        factor = float(n - ddof)
        out = F.matmul(centred, F.transpose(centred, (1, 0))) / factor
    else:
        w_sum = F.reduce_sum(w, (0,), False)
        avg = F.reduce_sum(x * w, (1,), True) / w_sum
        if ddof == 0:
            factor = w_sum
        elif aweights is None:
            factor = w_sum - ddof
        else:
            factor = w_sum - ddof * F.reduce_sum(w * F.cast(tensor(aweights), x.dtype), (0,), False) / w_sum
        centred = x - avg
        out = F.matmul(centred * w, F.transpose(centred, (1, 0))) / factor
    if out.shape == (1, 1):
        out = F.reshape(out, ())
    return with_dtype(out, dtype)


def corrcoef(x, y=None, rowvar=True, dtype=None) -> Tensor:
    """Pearson correlation coefficients: cov normalised by the standard deviations, clipped to [-1, 1]."""
    c = cov(x, y, rowvar)
    if c.ndim == 0:
        return with_dtype(c / c, dtype)
    d = ops.sqrt(ops.diagonal(c, 0, 0, 1))
    out = c / F.reshape(d, (-1, 1)) / F.reshape(d, (1, -1))
    return with_dtype(ops.clamp(out, -1.0, 1.0), dtype)

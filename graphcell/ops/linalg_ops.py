"""Linear-algebra-flavoured ops with MindSpore 2.10's names: products (mm, mv, t, kron, einsum),
the singular value decomposition (svd), norms (vector_norm, matrix_norm, renorm), distances
(cdist, dist, pdist, cosine_similarity) and trapz, vander, cov.

Each but svd is composed of functional-layer ops, so it decomposes into existing primitives at
trace time and works eagerly, under jit (XLA, onnxruntime), vmap and grad without rules of its
own. svd is a primitive (ops/linalg.py): LAPACK under XLA, one-sided Jacobi under onnxruntime
(compiler/onnx_svd.py, as ONNX has no SVD), the singular vectors' signs fixed the same way on
both (u's largest entry positive in each pair), so the two agree where the vectors are unique.
Integer inputs compute in float32 where MindSpore 2.10 does (measured).
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import dtype as mstype
from ..dtype import to_dtype
from ..tensor import Tensor
from . import functional as F
from . import linalg
from .complex_guard import refuse_complex_tensors
from .product_dtypes import check_product_dtypes as _check_product_dtypes
from .composite import _as_float, _axis_list, _matrix_norm, _vector_norm

__all__ = ["mm", "mv", "t", "kron", "einsum", "svd", "vector_norm", "matrix_norm", "renorm", "cdist", "dist",
           "pdist", "cosine_similarity", "trapz", "vander", "cov"]


# -- products --------------------------------------------------------------------------------

def mm(input, mat2):  # noqa: A002 - MindSpore's names
    """The matrix product of two 2-D tensors."""
    x, y = F.as_tensor(input), F.as_tensor(mat2)
    if x.ndim != 2 or y.ndim != 2:
        raise ValueError(f"mm: input and mat2 must be 2-D, got shapes {list(x.shape)} and {list(y.shape)}")
    _check_product_dtypes("MatMul", x, y)
    return F.matmul(x, y)


def mv(mat, vec):
    """The product of a 2-D `mat` [n, m] and a 1-D `vec` [m]: a 1-D [n]."""
    a, v = F.as_tensor(mat), F.as_tensor(vec)
    if a.ndim != 2 or v.ndim != 1:
        raise ValueError(f"mv: mat must be 2-D and vec 1-D, got shapes {list(a.shape)} and {list(v.shape)}")
    _check_product_dtypes("MatMul", a, v)
    return F.matmul(a, v)


def t(input):  # noqa: A002
    """A 2-D tensor transposed; 0-D and 1-D come back unchanged. MindSpore 2.10 also returns a
    3-D input unchanged (measured); graphcell refuses it, since that is never a transpose."""
    x = F.as_tensor(input)
    if x.ndim > 2:
        raise ValueError(f"t: input must be at most 2-D, got shape {list(x.shape)} (use ops.transpose)")
    return F.transpose(x, (1, 0)) if x.ndim == 2 else x


def kron(input, other):  # noqa: A002
    """The Kronecker product: out[i*q + k, ...] = input[i, ...] * other[k, ...]; the lower-rank
    operand gets leading 1s."""
    a, b = F._pair(input, other)
    nd = max(a.ndim, b.ndim)
    a = F.reshape(a, (1,) * (nd - a.ndim) + a.shape)
    b = F.reshape(b, (1,) * (nd - b.ndim) + b.shape)
    # interleave: a -> [p0, 1, p1, 1, ...], b -> [1, q0, 1, q1, ...]
    prod = F.mul(F.reshape(a, tuple(d for p in a.shape for d in (p, 1))),
                 F.reshape(b, tuple(d for q in b.shape for d in (1, q))))
    return F.reshape(prod, tuple(p * q for p, q in zip(a.shape, b.shape)))


def _einsum_terms(equation: str, operands: list) -> tuple[list, str]:
    """Each operand's labels (one character an axis, '...' spelled out as private upper-case
    letters aligned from the right) and the output's labels."""
    eq = equation.replace(" ", "")
    lhs, arrow, out = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise ValueError(f"einsum: the equation {equation!r} names {len(terms)} operands, got {len(operands)}")
    ell_rank = 0
    for term, x in zip(terms, operands):
        if "..." in term:
            ell_rank = max(ell_rank, x.ndim - len(term.replace("...", "")))
    ell = "".join(chr(ord("Z") - i) for i in range(ell_rank))[::-1]   # upper case: never a user label
    labels = []
    for term, x in zip(terms, operands):
        if any(c.isupper() for c in term) or any(not (c.isalpha() or c == ".") for c in term):
            raise ValueError(f"einsum: labels must be lower-case letters (and '...'), got {term!r}")
        if "..." in term:
            head, _, tail = term.partition("...")
            term = head + ell[ell_rank - (x.ndim - len(head) - len(tail)):] + tail
        if len(term) != x.ndim:
            raise ValueError(f"einsum: the term {term!r} has {len(term)} labels for an operand of shape "
                             f"{list(x.shape)}")
        if len(set(term)) != len(term):
            raise NotImplementedError(f"einsum: a label repeated within one operand ({term!r}: a diagonal or "
                                      "trace) is not supported; use ops.diagonal / ops.trace")
        labels.append(term)
    if arrow:
        out = out.replace("...", ell) if "..." in out else out
        if len(set(out)) != len(out) or any(c not in "".join(labels) for c in out):
            raise ValueError(f"einsum: the output {out!r} repeats a label or names one no operand has")
    else:   # implicit output: the ellipsis, then labels that appear once, in order
        once = sorted(c for c in set("".join(labels)) if "".join(labels).count(c) == 1 and c.islower())
        out = ell + "".join(once)
    return labels, out


def einsum(equation, *operands):
    """Einstein summation, lowered to reductions, one dot_general per pair of operands (left to
    right) and a final transpose. Supports explicit ('ij,jk->ik') and implicit outputs, '...',
    any number of operands, and labels summed away on one side; label sizes must agree exactly
    (no broadcasting of 1s). Repeated labels within one operand (diagonals) are refused."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not isinstance(equation, str):
        raise TypeError(f"einsum: equation must be a str, got {type(equation).__name__}")
    xs = [F.as_tensor(x) for x in operands]
    if not xs:
        raise ValueError("einsum: needs at least one operand")
    labels, out = _einsum_terms(equation, xs)
    sizes: dict = {}
    for term, x in zip(labels, xs):
        for c, d in zip(term, x.shape):
            if sizes.setdefault(c, d) != d:
                raise ValueError(f"einsum: label {c!r} has sizes {sizes[c]} and {d}")
    xs = list(xs)
    for i in range(1, len(xs)):
        xs[0], xs[i] = F._pair(xs[0], xs[i])

    def keep_after(k):   # labels still needed once operands 0..k are combined
        return set(out).union(*[set(t) for t in labels[k + 1:]])

    acc, acc_l = _sum_away(xs[0], labels[0], keep_after(0) | set(labels[1] if len(xs) > 1 else ""))
    for k in range(1, len(xs)):
        needed = keep_after(k)
        b, b_l = _sum_away(xs[k], labels[k], needed | set(acc_l))
        acc, acc_l = _sum_away(acc, acc_l, needed | set(b_l))
        shared = [c for c in acc_l if c in b_l]
        batch = [c for c in shared if c in needed]
        contract = [c for c in shared if c not in needed]
        acc = F.dot_general(acc, b, ([acc_l.index(c) for c in contract], [b_l.index(c) for c in contract]),
                            ([acc_l.index(c) for c in batch], [b_l.index(c) for c in batch]))
        acc_l = "".join(batch) + "".join(c for c in acc_l if c not in shared) + "".join(
            c for c in b_l if c not in shared)
    acc, acc_l = _sum_away(acc, acc_l, set(out))
    return F.transpose(acc, tuple(acc_l.index(c) for c in out)) if acc_l != out else acc


def _sum_away(x: Tensor, labels: str, needed: set) -> tuple[Tensor, str]:
    drop = [i for i, c in enumerate(labels) if c not in needed]
    if not drop:
        return x, labels
    return F.reduce_sum(x, tuple(drop)), "".join(c for c in labels if c in needed)


# -- decompositions ----------------------------------------------------------------------------

def svd(input, full_matrices=False, compute_uv=True):  # noqa: A002
    """The singular value decomposition of the matrices in input's last two axes [..., M, N]:
    (s, u, v) with input = u @ diag(s) @ v^T (v, not v^T, as MindSpore), s descending [..., K]
    (K = min(M, N)), u [..., M, K] and v [..., N, K], or [..., M, M] and [..., N, N] with
    full_matrices. compute_uv=False returns s alone. float32, float64, complex64 and complex128,
    as MindSpore 2.10 (measured; a complex input's s is complex with zero imaginary part, and
    input = u @ diag(s) @ v^H; the phases of a complex u's and v's columns are LAPACK's, not
    2.10's, which follow no rule measured). The signs of u's and v's columns are LAPACK's. Its
    gradient through u or v needs distinct singular values (jax's and torch's too), and a square
    input when full_matrices is set; a complex one has jax's phase convention (u's phases carry
    the gauge term)."""
    x = F.as_tensor(input)
    for name, flag in (("full_matrices", full_matrices), ("compute_uv", compute_uv)):
        if not isinstance(flag, bool):
            raise TypeError(f"svd: {name} must be a bool, got {type(flag).__name__}")
    if x.dtype not in (mstype.float32, mstype.float64, mstype.complex64, mstype.complex128):
        raise TypeError(f"svd: the dtype of input must be float32, float64, complex64 or complex128, got {x.dtype}")
    if x.ndim < 2:
        raise ValueError(f"svd: input must have 2 or more dimensions (matrices in the last two), got shape "
                         f"{list(x.shape)}")
    if x.size == 0:
        raise ValueError(f"svd: input must not be empty, got shape {list(x.shape)}")
    outs = linalg.svd.bind(x, full_matrices=full_matrices, compute_uv=compute_uv)
    return tuple(outs) if compute_uv else outs[0]


# -- norms -----------------------------------------------------------------------------------

def _norm_input(x, dtype) -> Tensor:
    x = F.as_tensor(x)
    if dtype is not None:
        x = F.cast(x, to_dtype(dtype))
    return _as_float(x)


def vector_norm(x, ord=2, axis=None, keepdims=False, *, dtype=None):  # noqa: A002
    """The vector p-norm over `axis` (None: every element): ord 2 (default), inf, -inf, 0 (the
    count of nonzeros), 1 or any p. Integer inputs compute in float32 (measured)."""
    t = _norm_input(x, dtype)
    axes = tuple(range(t.ndim)) if axis is None else tuple(_axis_list(axis, t.ndim, "vector_norm: axis"))
    if isinstance(ord, str):
        raise ValueError(f"vector_norm: ord must be a number, got {ord!r}")
    return _vector_norm(t, ord, axes, keepdims)


def matrix_norm(A, ord="fro", axis=(-2, -1), keepdims=False, *, dtype=None):  # noqa: A002
    """The matrix norm over the two axes in `axis`: 'fro', 'nuc' (the sum of the singular
    values), 2 and -2 (the largest and the smallest), 1, -1, inf, -inf. 'nuc', 2 and -2 are
    float32, whatever the input's dtype, as MindSpore 2.10's (measured)."""
    t = _norm_input(A, dtype)
    axes = _axis_list(axis, t.ndim, "matrix_norm: axis")
    if len(axes) != 2:
        raise ValueError(f"matrix_norm: axis must be a pair of axes, got {axis!r}")
    return _matrix_norm(t, ord, tuple(axes), keepdims)


def renorm(input, p, axis, maxnorm):  # noqa: A002
    """Each slice along `axis` whose p-norm exceeds `maxnorm` scaled down to norm `maxnorm`;
    the others unchanged."""
    x = F.as_tensor(input)
    if not x.dtype.is_floating:
        raise TypeError(f"renorm: input must be a float tensor, got {x.dtype}")
    if not isinstance(p, numbers.Real) or p <= 0:
        raise ValueError(f"renorm: p must be a positive number, got {p!r}")
    axis = F._axis(int(axis), x.ndim, "renorm: axis")
    others = tuple(a for a in range(x.ndim) if a != axis)
    norms = _vector_norm(x, float(p), others, True)
    scale = F.select(F.greater(norms, maxnorm), F.div(F.full_like(norms, maxnorm), norms), F.ones_like(norms))
    return F.mul(x, scale)


# -- distances -------------------------------------------------------------------------------

def _p_norm_last(diff: Tensor, p) -> Tensor:
    """The p-norm over the last axis, with a zero gradient where the distance is 0 (torch's)."""
    p = float(p)
    if p < 0:
        raise ValueError(f"the p-norm needs p >= 0, got {p}")
    return _vector_norm(diff, p, (diff.ndim - 1,), False)


def cdist(x1, x2, p=2.0):
    """Pairwise p-norm distances between the rows of x1 [..., M, D] and x2 [..., N, D]:
    [..., M, N]. p=0 counts differing coordinates, p=inf takes the largest."""
    a, b = F._pair(x1, x2)
    refuse_complex_tensors("cdist", a)
    a, b = _as_float(a), _as_float(b)
    if a.ndim < 2 or a.ndim != b.ndim or a.shape[-1] != b.shape[-1]:
        raise ValueError(f"cdist: x1 and x2 must be [..., M, D] and [..., N, D] of the same rank, got "
                         f"{list(a.shape)} and {list(b.shape)}")
    diff = F.sub(F.expand_dims(a, -2), F.expand_dims(b, -3))
    return _p_norm_last(diff, p)


def dist(input, other, p=2):  # noqa: A002
    """The p-norm of input - other (broadcast), over every element: a 0-D tensor."""
    a, b = F._pair(input, other)
    diff = F.reshape(_as_float(F.sub(a, b)), (-1,))
    return _p_norm_last(diff, p)


def pdist(input, p=2.0):  # noqa: A002
    """The p-norm distances between each pair of rows i < j of input [..., N, M], in row-major
    order of (i, j): [..., N(N-1)/2]."""
    x = _as_float(F.as_tensor(input))
    if x.ndim < 2:
        raise ValueError(f"pdist: input must be at least 2-D, got shape {list(x.shape)}")
    i, j = np.triu_indices(x.shape[-2], 1)
    axis = x.ndim - 2
    diff = F.sub(F.gather(x, Tensor(i.astype(np.int64)), axis), F.gather(x, Tensor(j.astype(np.int64)), axis))
    return _p_norm_last(diff, p)


def cosine_similarity(x1, x2, dim=1, eps=1e-08):
    """sum(x1 * x2) / max(|x1| |x2|, eps) along `dim` (inputs broadcast): 0 against a zero
    vector (measured)."""
    a, b = F._pair(x1, x2)
    a, b = _as_float(a), _as_float(b)
    nd = max(a.ndim, b.ndim)
    axis = F._axis(int(dim), nd, "cosine_similarity: dim")
    dot = F.reduce_sum(F.mul(a, b), axis)
    norms = F.mul(F.sqrt(F.reduce_sum(F.mul(a, a), axis - (nd - a.ndim))),
                  F.sqrt(F.reduce_sum(F.mul(b, b), axis - (nd - b.ndim))))
    return F.div(dot, F.maximum(norms, eps))


# -- integration, polynomials, statistics ----------------------------------------------------

def trapz(y, x=None, *, dx=1.0, dim=-1):
    """The trapezoid rule along `dim`: spacing `dx`, or sample points `x` (1-D, or y's shape)."""
    y = _as_float(F.as_tensor(y))
    axis = F._axis(int(dim), y.ndim, "trapz: dim")
    n = y.shape[axis]
    mids = F.mul(F.add(F.slice_axis(y, axis, 1, n), F.slice_axis(y, axis, 0, n - 1)), 0.5)
    if x is None:
        return F.mul(F.reduce_sum(mids, axis), dx)
    x = F.cast(_as_float(F.as_tensor(x)), y.dtype)
    if x.ndim == 1:
        if x.shape[0] != n:
            raise ValueError(f"trapz: x has {x.shape[0]} points for {n} samples along dim {dim}")
        x = F.reshape(x, tuple(n if a == axis else 1 for a in range(y.ndim)))
        xa = axis
    else:
        xa = F._axis(int(dim), x.ndim, "trapz: dim")
    spacing = F.sub(F.slice_axis(x, xa, 1, n), F.slice_axis(x, xa, 0, n - 1))
    return F.reduce_sum(F.mul(mids, spacing), axis)


def vander(x, N=None):  # noqa: N803 - MindSpore's name
    """The Vandermonde matrix of 1-D x: column j is x ** (N - 1 - j). Integers give int64, as
    MindSpore 2.10 (measured)."""
    x = F.as_tensor(x)
    if x.ndim != 1:
        raise ValueError(f"vander: x must be 1-D, got shape {list(x.shape)}")
    n = x.shape[0] if N is None else int(N)
    if n < 0:
        raise ValueError(f"vander: N must be non-negative, got {N}")
    if not x.dtype.is_floating:
        x = F.cast(x, mstype.int64)
    if n == 0:
        return F.zeros((x.shape[0], 0), x.dtype)
    cols = [F.ones_like(x)]   # products, not pow: exact for integers and a clean gradient at 0
    for _ in range(n - 1):
        cols.append(F.mul(cols[-1], x))
    return F.stack(cols[::-1], 1)


def cov(input, *, correction=1, fweights=None, aweights=None):  # noqa: A002
    """The covariance of the rows (variables) of `input` over its columns (observations),
    weighted by integer `fweights` and float `aweights` (torch's formula); a 1-D input is one
    variable (a 0-D result). Integers compute in float32."""
    x = _as_float(F.as_tensor(input))
    if x.ndim > 2:
        raise ValueError(f"cov: input must be 1-D or 2-D, got shape {list(x.shape)}")
    vec = x.ndim < 2
    x = F.reshape(x, (1, -1)) if vec else x
    n = x.shape[1]
    w = None
    if fweights is not None:
        w = F.cast(F.as_tensor(fweights), x.dtype)
    if aweights is not None:
        aw = F.cast(F.as_tensor(aweights), x.dtype)
        w = aw if w is None else F.mul(w, aw)
    if w is None:
        w_sum = F.element_count(x, 1, x.dtype)
        avg = F.mean(x, 1, True)
        norm = F.sub(w_sum, correction)
    else:
        if w.shape != (n,):
            raise ValueError(f"cov: the weights must be 1-D of the {n} observations, got {list(w.shape)}")
        w_sum = F.reduce_sum(w)
        avg = F.div(F.reduce_sum(F.mul(x, w), 1, True), w_sum)
        if correction == 0:
            norm = w_sum
        elif aweights is None:
            norm = F.sub(w_sum, correction)
        else:
            aw = F.cast(F.as_tensor(aweights), x.dtype)
            norm = F.sub(w_sum, F.div(F.mul(F.reduce_sum(F.mul(w, aw)), float(correction)), w_sum))
    xc = F.sub(x, avg)
    xw = xc if w is None else F.mul(xc, w)
    out = F.div(F.matmul(xw, F.transpose(xc, (1, 0))), F.maximum(norm, 0.0))
    return F.reshape(out, ()) if vec else out

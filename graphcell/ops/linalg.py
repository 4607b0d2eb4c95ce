"""dot_general: matrix products with explicit contracting and batch axes (lax's form); svd.

Output axes are the batch axes, then lhs free axes, then rhs free axes. The vmap pass only
has to add a batch axis pair; matmul, Dense and einsum-like contractions are built on it.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..dtype import complex64, complex128, float32, float64
from ..ir.core import TensorType
from .batching import move, unbatched_axis
from .ad_util import F
from .primitive import Primitive, check, same_dtype


def _dot_rule(x: TensorType, y: TensorType, *, contract: tuple, batch: tuple) -> TensorType:
    (lc, rc), (lb, rb) = contract, batch
    dtype = same_dtype("dot_general", x, y)
    check(len(lc) == len(rc) and len(lb) == len(rb), "dot_general: unpaired axes")
    for a, b in zip(lc + lb, rc + rb):  # messages built on failure only: this runs per node traced
        if not (0 <= a < x.ndim and 0 <= b < y.ndim):
            check(False, f"dot_general: axes out of range for {x} and {y}")
        if x.shape[a] != y.shape[b]:
            check(False, f"dot_general: axis {a} of {list(x.shape)} ({x.shape[a]}) does not match "
                  f"axis {b} of {list(y.shape)} ({y.shape[b]})")
    free_x = [d for i, d in enumerate(x.shape) if i not in lc + lb]
    free_y = [d for i, d in enumerate(y.shape) if i not in rc + rb]
    return TensorType(tuple([x.shape[a] for a in lb] + free_x + free_y), dtype)


def _dot_impl(x, y, *, contract, batch):
    return jax.lax.dot_general(x, y, (contract, batch), preferred_element_type=x.dtype)


dot_general = Primitive("dot_general", _dot_rule, _dot_impl)


@dot_general.def_batch
def _dot_batch(ctx, args, dims, *, contract, batch):
    """Both mapped: one more batch axis pair (a batched matmul). One mapped: the mapped axis
    is a free axis, so a shared input against N stacked weights is a single wide product."""
    (x, y), (dx, dy) = args, dims
    if dx is not None and dy is not None and ctx.target == "onnx":
        # onnxruntime runs N Gemms (bias and ReLU fused into each) faster than one batched
        # MatMul from batch 2 up (MLP ensembles, batch 32: 1.17-1.19x); members stay apart, as
        # unrolled convolutions do. Export's small-batch form ("onnx-batched") keeps the
        # batched MatMul, which wins at batch 1 (N=16: 0.78x).
        from .batching import SPLIT, member
        ctx.annotate("dot_strategy=unrolled")
        return [dot_general.bind(member(x, dx, i), member(y, dy, i), contract=contract, batch=batch)
                for i in range(ctx.axis_size)], SPLIT
    (lc, rc), (lb, rb) = contract, batch
    shift = lambda axes, d: tuple(unbatched_axis(a, d) for a in axes) if d is not None else axes  # noqa: E731
    lc, lb, rc, rb = shift(lc, dx), shift(lb, dx), shift(rc, dy), shift(rb, dy)
    if dx is not None and dy is not None:
        return dot_general.bind(x, y, contract=(lc, rc), batch=((dx,) + lb, (dy,) + rb)), 0
    out = dot_general.bind(x, y, contract=(lc, rc), batch=(lb, rb))
    free_x = [i for i in range(x.ndim) if i not in lc + lb]
    if dx is not None:
        return out, len(lb) + free_x.index(dx)
    free_y = [i for i in range(y.ndim) if i not in rc + rb]
    return out, len(lb) + len(free_x) + free_y.index(dy)


# -- vjp: each operand's cotangent is another dot_general of the cotangent with the other
# operand, then a transpose back to the operand's axis order (jax's transpose rules).
def _remaining(n, *removed):
    gone = set().union(*map(set, removed))
    return [i for i in range(n) if i not in gone]


def _dot_transpose_lhs(ct, x_ndim, y, contract, batch, swap_ans=False):
    (x_contract, y_contract), (x_batch, y_batch) = contract, batch
    x_kept = _remaining(x_ndim, x_contract, x_batch)
    y_kept = _remaining(y.ndim, y_contract, y_batch)
    nb = len(x_batch)
    ans_batch = list(range(nb))
    if swap_ans:
        ans_y = list(range(nb, nb + len(y_kept)))
    else:
        ans_y = list(range(nb + len(x_kept), nb + len(x_kept) + len(y_kept)))
    out = F.dot_general(ct, y, (ans_y, y_kept), (ans_batch, y_batch))
    x_contract_sorted_by_y = [x_contract[i] for i in sorted(range(len(y_contract)), key=y_contract.__getitem__)]
    order = list(x_batch) + x_kept + x_contract_sorted_by_y
    return F.transpose(out, sorted(range(len(order)), key=order.__getitem__))


@dot_general.def_vjp
def _dot_vjp(ctx, cts, primals, outs, *, contract, batch):
    (x, y), ct = primals, cts[0]
    (lc, rc), (lb, rb) = contract, batch
    ct_x = _dot_transpose_lhs(ct, x.ndim, y, contract, batch) if ctx.needs[0] else None
    ct_y = _dot_transpose_lhs(ct, y.ndim, x, (rc, lc), (rb, lb), swap_ans=True) if ctx.needs[1] else None
    return ct_x, ct_y


# -- svd: the singular value decomposition x = u diag(s) v^T over the last two axes, with
# MindSpore's output order (s, u, v) and v, not v^T. Without compute_uv, s alone. The signs
# of the singular vectors are canonical (`_canonical_signs`), so that the ONNX rule (one-sided
# Jacobi, compiler/onnx_svd.py) returns the same vectors as LAPACK.

def _svd_rule(x: TensorType, *, full_matrices: bool, compute_uv: bool) -> tuple:
    check(x.ndim >= 2, f"svd needs a matrix (2 or more axes), got {x}")
    check(x.dtype in (float32, float64, complex64, complex128),
          f"svd needs float32, float64, complex64 or complex128, got {x}")
    *batch, m, n = x.shape
    batch, k = tuple(batch), min(m, n)
    s = TensorType(batch + (k,), x.dtype)
    if not compute_uv:
        return (s,)
    return (s, TensorType(batch + (m, m if full_matrices else k), x.dtype),
            TensorType(batch + (n, n if full_matrices else k), x.dtype))


SIGN_ENTRY_TIE = 1e-3   # entries this close (relative) to a column's largest magnitude tie with it


def _largest_entry(q):
    """[..., r, c] -> [..., 1, c]: each column's first entry whose magnitude is within
    SIGN_ENTRY_TIE of the largest. The first of near-equal entries, not the largest: symmetric
    matrices have vectors like (1, -1) / sqrt(2), whose largest entry is whichever rounding
    made larger, on each backend its own."""
    magnitude = jnp.abs(q)
    near = magnitude >= (1 - SIGN_ENTRY_TIE) * jnp.max(magnitude, axis=-2, keepdims=True)
    return jnp.take_along_axis(q, jnp.argmax(near, axis=-2, keepdims=True), axis=-2)


def _largest_entry_signs(q):
    """[..., r, c] -> [..., 1, c]: the sign (0 counts as +) of each column's `_largest_entry`."""
    return jnp.where(_largest_entry(q) < 0, -1, 1).astype(q.dtype)


def largest_entry_phases(q):
    """[..., r, c] -> [..., 1, c]: the unit factor that makes each column's `_largest_entry`
    real and positive (1 for a zero entry); a real q's are its signs. Eigenvectors of a
    Hermitian matrix are unique up to such a factor (ops/eigh_prim.py)."""
    if not jnp.iscomplexobj(q):
        return _largest_entry_signs(q)
    entry = _largest_entry(q)
    size = jnp.abs(entry)
    return jnp.where(size > 0, jnp.conj(entry) / jnp.where(size > 0, size, 1), 1).astype(q.dtype)


def _canonical_signs(u, v):
    """Each pair (u_j, v_j) flipped so that u_j's largest-magnitude entry (the first of those
    within 0.1% of it) is positive, as scikit-learn's svd_flip; a column without a pair
    (full_matrices' extra columns) by its own. The signs are otherwise LAPACK's choice (which
    MindSpore 2.10's follow no more than they follow any simple rule, measured), and the ONNX
    rule, with other arithmetic, would make its own."""
    k = min(u.shape[-2], v.shape[-2])
    su, sv = _largest_entry_signs(u), _largest_entry_signs(v)
    return u * su, v * jnp.concatenate([su[..., :k], sv[..., k:]], axis=-1)


def _svd_impl(x, *, full_matrices, compute_uv):
    # a complex matrix's singular values come out complex (zero imaginary part), as MindSpore
    # 2.10's; its v is conj(vh)^T and its columns' phases are LAPACK's (no ONNX rule to match)
    if not compute_uv:
        return (jnp.linalg.svd(x, compute_uv=False).astype(x.dtype),)
    u, s, vh = jnp.linalg.svd(x, full_matrices=full_matrices)
    if jnp.iscomplexobj(x):
        return s.astype(x.dtype), u, jnp.conj(jnp.swapaxes(vh, -1, -2))
    u, v = _canonical_signs(u, jnp.swapaxes(vh, -1, -2))
    return s, u, v


svd = Primitive("svd", _svd_rule, _svd_impl, multiple_results=True)


@svd.def_batch
def _svd_batch(ctx, args, dims, **attrs):
    (x,), (d,) = args, dims
    outs = svd.bind(move(x, d, 0), **attrs)   # the leading axes are batch axes already
    return list(outs), [0] * len(outs)


def _mT(x):
    return F.swapaxes(x, -1, -2)


def _mH(x):
    from . import complex_ops   # imports this module's family: resolved at trace time
    return complex_ops.conj(_mT(x))


def _conj(x):
    from . import complex_ops
    return complex_ops.conj(x)


@svd.def_vjp
def _svd_vjp(ctx, cts, primals, outs, *, full_matrices, compute_uv):
    """torch's svd_backward (reduced u and v, k = min(m, n)), in the conjugating convention
    (the gradient pairs with a tangent as Re tr(g^H dA)):
    gx = u [(skew(u^H gu) / E) S + S (skew(v^H gv) / E) + diag(Re gs) + i Im(diag(u^H gu)) / S] v^H
         + (I - u u^H) gu S^-1 v^H + u S^-1 gv^H (I - v v^H),
    skew(a) = a - a^H off the diagonal, E[j, k] = s_k^2 - s_j^2 off the diagonal; the
    i Im(diag(u^H gu)) / S term (complex only) is the phase jax's jvp gives u's columns. The
    cotangents are conjugated in and the gradient out (jax's convention; the identity for real
    matrices). Without u's and v's cotangents only the diag(gs) term is built: singular values
    that repeat (a zero matrix's) divide by no E, so the norms' gradients stay finite there."""
    (x,) = primals
    *_, m, n = x.shape
    k = min(m, n)
    is_complex = x.dtype.is_complex
    gs = cts[0]
    gu, gv = (cts[1], cts[2]) if compute_uv else (None, None)
    gu = _conj(gu) if gu is not None else None
    gv = _conj(gv) if gv is not None else None
    if compute_uv:
        s, u, v = outs
    else:
        s, u, v = svd.bind(x, full_matrices=False, compute_uv=True)
    if full_matrices and m != n:
        if gu is not None or gv is not None:
            raise NotImplementedError("the gradient of svd through u or v with full_matrices=True needs a square "
                                      f"matrix (got {m} x {n}): the extra columns are not unique")
        u, v = F.slice_axis(u, -1, 0, k), F.slice_axis(v, -1, 0, k)
    eye = F.Tensor(np.eye(k, dtype=x.dtype.np_dtype))
    off_diagonal = F.Tensor((1 - np.eye(k)).astype(x.dtype.np_dtype))
    s_row, s_col = F.expand_dims(s, -2), F.expand_dims(s, -1)               # [.., 1, k], [.., k, 1]
    if gs is not None and is_complex:
        from . import complex_ops
        gs = F.cast(complex_ops.real(gs), x.dtype)
    inner = F.mul(F.expand_dims(gs if gs is not None else F.zeros_like(s), -1), eye)   # diag(gs)
    if gu is not None or gv is not None:
        squares = F.mul(s, s)
        gaps = F.add(F.sub(F.expand_dims(squares, -2), F.expand_dims(squares, -1)), eye)   # (its diagonal unused)
    if gu is not None:
        utgu = F.matmul(_mH(u), gu)
        inner = F.add(inner, F.mul(F.div(F.mul(F.sub(utgu, _mH(utgu)), off_diagonal), gaps), s_row))
        if is_complex:
            from . import complex_ops
            phase = complex_ops.imag(F.mul(utgu, eye))                        # Im(diag(u^H gu)), as a matrix
            inner = F.add(inner, F.div(complex_ops.complex_from(F.zeros_like(phase), phase), s_row))
    if gv is not None:
        vtgv = F.matmul(_mH(v), gv)
        inner = F.add(inner, F.mul(s_col, F.div(F.mul(F.sub(vtgv, _mH(vtgv)), off_diagonal), gaps)))
    gx = F.matmul(F.matmul(u, inner), _mH(v))
    if gu is not None and m > k:      # u u^H is not the identity: the part of gu outside u's span
        outside = F.sub(gu, F.matmul(u, utgu))
        gx = F.add(gx, F.matmul(F.div(outside, s_row), _mH(v)))
    if gv is not None and n > k:
        outside = F.sub(gv, F.matmul(v, vtgv))
        gx = F.add(gx, F.matmul(F.div(u, s_row), _mH(outside)))
    return (_conj(gx),)

"""eigh, the eigen-decomposition of symmetric (Hermitian) matrices, as a primitive: real
eigenvalues ascending [..., n] (float32/float64) and orthonormal (unitary) eigenvectors as
columns [..., n, n] of float32/float64/complex64/complex128 matrices in the last two axes
(leading axes are batch axes).

The operand is symmetrized first ((A + A^H) / 2, jax's `symmetrize_input`), so the vjp is the
Hermitian one; callers that read one triangle only (graphcell.scipy.linalg.eigh's `lower`)
mirror that triangle with ordinary ops before binding, and its gradient flows through them.
One jax call (LAPACK's syevd / heevd on the CPU). ONNX: eig's QR algorithm (compiler/onnx_eigh.py).

Phases: an eigenvector (of a simple eigenvalue) is unique up to a unit factor, which LAPACK
chooses by no stated rule, so both backends multiply each column by the factor that makes its
first entry within SIGN_ENTRY_TIE of its largest magnitude real and positive (svd's sign rule,
ops/linalg.py's `largest_entry_phases`; for a real matrix a sign).
"""
from __future__ import annotations

import jax
import numpy as np

from .. import dtype as mstype
from ..ir.core import TensorType
from .ad_util import F
from .linalg import SIGN_ENTRY_TIE, largest_entry_phases
from .linalg_prims import _conj, _float_matrix, _leading_batch, _mH
from .primitive import Primitive


def _eigh_rule(x, **_):
    _float_matrix("eigh", x, complex_ok=True)
    return TensorType(x.shape[:-1], x.dtype.real_dtype), x


def _eigh_impl(x):
    v, w = jax.lax.linalg.eigh(x, lower=True, symmetrize_input=True, sort_eigenvalues=True)
    return w, v * largest_entry_phases(v)


eigh = Primitive("eigh", _eigh_rule, _eigh_impl, multiple_results=True)
eigh.def_batch(_leading_batch(eigh))


def _pinned_entries(v):
    """[..., n, n] bool: each column's entry that the phase rule made real and positive (the
    first within SIGN_ENTRY_TIE of the column's largest magnitude, as `largest_entry_phases`)."""
    from . import complex_ops
    n = v.shape[-1]
    re, im = complex_ops.real(v), complex_ops.imag(v)
    magnitude = F.sqrt(F.add(F.mul(re, re), F.mul(im, im)))
    near = F.greater_equal(magnitude, F.mul(F.reduce_max(magnitude, (-2,), keepdims=True), 1 - SIGN_ENTRY_TIE))
    first = F.argmax(F.cast(near, mstype.int32), axis=-2, keepdims=True)                        # [..., 1, n]
    return F.equal(first, F.Tensor(np.arange(n, dtype=np.int64).reshape(n, 1)))


def _phase_cotangent(v, gv):
    """The cotangent part that the phase rule's own derivative adds (conjugating convention).
    A column's phase follows its pinned entry p: dv_k -> dv_k - i v_k Im(dv_pk) / v_pk, whose
    transpose adds i t_k / v_pk at row p, t_k = Im(gv_k^H v_k). t_k is 0 for a loss that the
    phases do not change (|v|^2, the eigenvalues, v v^H), so the term only matters for others."""
    from . import complex_ops
    pinned = F.cast(_pinned_entries(v), v.dtype.real_dtype)
    entry = F.reduce_sum(F.mul(pinned, complex_ops.real(v)), (-2,), keepdims=True)          # [..., 1, n], > 0
    t = F.neg(complex_ops.imag(F.reduce_sum(F.mul(_conj(v), gv), (-2,), keepdims=True)))
    step = F.div(t, entry)
    return F.mul(F.cast(pinned, v.dtype), complex_ops.complex_from(F.zeros_like(step), step))


@eigh.def_vjp
def _eigh_vjp(ctx, cts, primals, outs):
    """A = V diag(w) V^H: gA = V (diag(gw) + (V^H gV) / (w_j - w_i) off the diagonal) V^H,
    Hermitian-symmetrized (the textbook formula; jax's eigh_jvp transposed), in the conjugating
    convention: a complex cotangent is conjugated in and the gradient out (jax's convention; the
    identity for real matrices), and gV carries the phase rule's term (`_phase_cotangent`).
    Equal eigenvalues give inf/nan there, as jax and torch."""
    w, v = outs
    gw, gv = cts
    n, dtype = w.shape[-1], v.dtype
    off = F.Tensor(~np.eye(n, dtype=bool))
    w = F.cast(w, dtype)
    gaps = F.sub(F.expand_dims(w, -2), F.expand_dims(w, -1))          # [i, j] = w_j - w_i
    inner = F.zeros_like(gaps)
    if gv is not None:
        gv = _conj(gv)
        if dtype.is_complex:
            gv = F.add(gv, _phase_cotangent(v, gv))
        safe = F.select(off, gaps, F.ones_like(gaps))
        inner = F.select(off, F.div(F.matmul(_mH(v), gv), safe), inner)
    if gw is not None:
        inner = F.add(inner, F.mul(F.expand_dims(F.cast(gw, dtype), -1),
                                   F.Tensor(np.eye(n, dtype=dtype.np_dtype))))
    ga = F.matmul(F.matmul(v, inner), _mH(v))
    return (_conj(F.mul(F.add(ga, _mH(ga)), 0.5)),)


__all__ = ["eigh"]

"""eigh, the eigen-decomposition of symmetric (Hermitian) matrices, as a primitive: eigenvalues
ascending [..., n] and orthonormal eigenvectors as columns [..., n, n] of float32/float64
matrices in the last two axes (leading axes are batch axes).

The operand is symmetrized first ((A + A^T) / 2, jax's `symmetrize_input`), so the vjp is the
symmetric one; callers that read one triangle only (graphcell.scipy.linalg.eigh's `lower`)
mirror that triangle with ordinary ops before binding, and its gradient flows through them.
One jax call (LAPACK's syevd on the CPU). ONNX: eig's QR algorithm (compiler/onnx_eigh.py).
"""
from __future__ import annotations

import jax
import numpy as np

from ..ir.core import TensorType
from .ad_util import F
from .linalg_prims import _float_matrix, _leading_batch, _mT
from .primitive import Primitive


def _eigh_rule(x, **_):
    _float_matrix("eigh", x)
    return TensorType(x.shape[:-1], x.dtype), x


def _eigh_impl(x):
    w, v = jax.lax.linalg.eigh(x, lower=True, symmetrize_input=True, sort_eigenvalues=True)[::-1]
    return w, v


eigh = Primitive("eigh", _eigh_rule, _eigh_impl, multiple_results=True)
eigh.def_batch(_leading_batch(eigh))


@eigh.def_vjp
def _eigh_vjp(ctx, cts, primals, outs):
    """A = V diag(w) V^T: gA = V (diag(gw) + (V^T gV) / (w_j - w_i) off the diagonal) V^T,
    symmetrized (the textbook formula; jax's eigh_jvp transposed). Equal eigenvalues give
    inf/nan there, as jax and torch."""
    w, v = outs
    gw, gv = cts
    n = w.shape[-1]
    off = F.Tensor(~np.eye(n, dtype=bool))
    gaps = F.sub(F.expand_dims(w, -2), F.expand_dims(w, -1))          # [i, j] = w_j - w_i
    safe = F.select(off, gaps, F.ones_like(gaps))
    inner = F.zeros_like(gaps) if gv is None else F.select(off, F.div(F.matmul(_mT(v), gv), safe),
                                                            F.zeros_like(gaps))
    if gw is not None:
        inner = F.add(inner, F.mul(F.expand_dims(gw, -1), F.Tensor(np.eye(n, dtype=w.dtype.np_dtype))))
    ga = F.matmul(F.matmul(v, inner), _mT(v))
    return (F.mul(F.add(ga, _mT(ga)), 0.5),)


__all__ = ["eigh"]

"""LAPACK's Householder QR in its packed form, as two primitives over the last two axes of
float32/float64 operands (leading axes are batch axes):

- `geqrf(a)` -> (packed, tau): R on and above the diagonal, below it each reflector
  H_k = I - tau_k v_k v_k^T's vector v_k without its implicit leading 1; tau [..., min(m, n)];
- `householder_product(a, tau)` -> H_0 H_1 ... H_k-1's first n columns, a [..., m, n] packed
  reflectors (only the part below the diagonal is read), tau [..., k], m >= n >= k (LAPACK's
  orgqr).

Each is one jax call (LAPACK's dgeqrf and dorgqr on CPU). The ONNX rules are
compiler/onnx_householder.py's unrolled reflections. Neither has a gradient: MindSpore 2.10
has none either (measured: "Illegal primitive Geqrf's bprop not defined", and Orgqr's).
"""
from __future__ import annotations

from jax._src.lax import linalg as lax_linalg   # geqrf is not exported by jax.lax.linalg (jax 0.10)

from ..ir.core import TensorType
from .linalg_prims import _float_matrix, _leading_batch
from .primitive import Primitive, check, same_dtype

__all__ = ["geqrf", "householder_product"]


def _geqrf_rule(a):
    _float_matrix("geqrf", a, square=False)
    *batch, m, n = a.shape
    return a, TensorType(tuple(batch) + (min(m, n),), a.dtype)


def _geqrf_impl(a):
    packed, tau = lax_linalg.geqrf(a)
    return packed, tau


geqrf = Primitive("geqrf", _geqrf_rule, _geqrf_impl, multiple_results=True)
geqrf.def_batch(_leading_batch(geqrf))


def _householder_product_rule(a, tau):
    _float_matrix("householder_product", a, square=False)
    same_dtype("householder_product", a, tau)
    *batch, m, n = a.shape
    check(tau.ndim == a.ndim - 1 and tuple(tau.shape[:-1]) == tuple(batch) and m >= n >= tau.shape[-1],
          f"householder_product needs reflectors [..., m, n] and tau [..., k] with m >= n >= k, got {a} and {tau}")
    return a


householder_product = Primitive("householder_product", _householder_product_rule,
                                lambda a, tau: lax_linalg.householder_product(a, tau))
householder_product.def_batch(_leading_batch(householder_product))


def _no_bprop(op: str):
    def rule(ctx, cts, primals, outs, **attrs):
        raise RuntimeError(f"Illegal primitive {op}'s bprop not defined: {op} has no gradient "
                           "(as in MindSpore 2.10)")
    return rule


geqrf.def_vjp(_no_bprop("Geqrf"))
householder_product.def_vjp(_no_bprop("Orgqr"))

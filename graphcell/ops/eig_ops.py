"""Eigendecomposition of general square matrices: ops.eig, ops.eigvals and ops.Eig, with
MindSpore 2.10's outputs (measured): complex eigenvalues and eigenvectors for float32/float64
input (Complex64/Complex128), complex input kept, leading axes batched.

One primitive, `eig` {compute_v}: jax.numpy.linalg.eig (LAPACK geev on CPU; cusolver's geev on
CUDA), with the eigenvalues put in 2.10's order: ascending magnitude (a stable sort of LAPACK's
order, which puts a conjugate pair's +imag member first; 2.10's order within a pair follows
its own rounding). Eigenvectors are unit columns with LAPACK's phase (largest entry real);
2.10's have the same norm and another phase, so compare A v = w v, not v.

Gradient: 2.10 has none ("Illegal primitive Eig's bprop not defined", measured). graphcell
gives the eigenvalues' one, dw_i = u_i^T dA v_i with the rows u_i of V^-1 (jax's jvp),
transposed: gA = V^-T diag(g) V^T (real part for a real input). The eigenvectors' gradient
is refused with 2.10's message. ONNX (compiler/onnx_eig.py): the shifted QR algorithm in a Loop,
in float64, the same order; vectors equal up to the sign of a real input's (their largest entry
real and positive); eigvals' gradient exports too (its complex matrix products: onnx_complex).
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .. import dtype as mstype
from ..ir.core import TensorType
from .ad_util import F
from .batching import materialize
from .complex_ops import imag_part, make_complex, real_part
from .linalg_prims import matrix_inverse
from .op_base import Operator, check_bool
from .primitive import Primitive, ShapeError

__all__ = ["eig", "eigvals"]

_COMPLEX_OF = {mstype.float32: mstype.complex64, mstype.float64: mstype.complex128,
               mstype.complex64: mstype.complex64, mstype.complex128: mstype.complex128}


def _eig_rule(x: TensorType, *, compute_v: bool):
    if x.dtype not in _COMPLEX_OF or x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ShapeError(f"eig needs square float32/float64/complex matrices, got {x}")
    out = _COMPLEX_OF[x.dtype]
    values = TensorType(x.shape[:-1], out)
    return (values, TensorType(x.shape, out)) if compute_v else (values,)


def _eig_impl(x, *, compute_v):
    w, v = jnp.linalg.eig(x)
    order = jnp.argsort(jnp.abs(w), axis=-1, stable=True)   # MindSpore's ascending |w|
    w = jnp.take_along_axis(w, order, axis=-1)
    if not compute_v:
        return (w,)
    return w, jnp.take_along_axis(v, order[..., None, :], axis=-1)


eig_prim = Primitive("eig", _eig_rule, _eig_impl, multiple_results=True)


@eig_prim.def_batch
def _eig_batch(ctx, args, dims, *, compute_v):
    (x,), (d,) = args, dims
    outs = eig_prim.bind(materialize(x, d, ctx.axis_size, 0), compute_v=compute_v)   # one more batch axis
    return list(outs), [0] * len(outs)


def _complex_inverse(v):
    """V^-1 of a complex matrix through the real inverse of [[X, -Y], [Y, X]] (V = X + iY),
    which is [[P, -Q], [Q, P]] with V^-1 = P + iQ: matrix_inverse is real, and has its rules."""
    n = v.shape[-1]
    x, y = real_part.bind(v), imag_part.bind(v)
    block = F.concat([F.concat([x, F.neg(y)], -1), F.concat([y, x], -1)], -2)
    inv = matrix_inverse.bind(block)
    top = F.slice_axis(inv, -2, 0, n)
    return make_complex.bind(F.slice_axis(top, -1, 0, n), F.neg(F.slice_axis(top, -1, n, 2 * n)))


@eig_prim.def_vjp
def _eig_vjp(ctx, cts, primals, outs, *, compute_v):
    (x,), g = primals, cts[0]
    if compute_v and cts[1] is not None:
        raise RuntimeError("Illegal primitive Eig's bprop not defined: graphcell differentiates the eigenvalues "
                           "only (ops.eigvals), not the eigenvectors")
    if g is None:
        return (None,)
    v = outs[1] if compute_v else eig_prim.bind(x, compute_v=True)[1]
    # gA = V^-T diag(g) V^T: column i of V^-T scaled by g_i, times V^T
    grad = F.matmul(F.mul(F.swapaxes(_complex_inverse(v), -1, -2), F.expand_dims(g, -2)), F.swapaxes(v, -1, -2))
    return (grad if x.dtype.is_complex else real_part.bind(grad),)


def _check_input(A, name: str = "Eig"):
    from ..tensor import Tensor
    if not isinstance(A, Tensor):
        raise TypeError(f'Failed calling {name} with "{name}(x={type(A)})". The valid calling should be: '
                        f'"{name}(x=<Tensor>)".')
    if A.dtype not in _COMPLEX_OF:
        raise TypeError("For primitive[Eig], the input argument[x] must be a type of {Tensor[Complex128], "
                        f"Tensor[Complex64], Tensor[Float32], Tensor[Float64]}}, but got Tensor[{A.dtype}].")
    if A.ndim < 2:
        raise ValueError(f"For Eig, x should be at lease 2, but got a {A.ndim}-D Tensor.")
    if A.shape[-1] != A.shape[-2]:
        raise ValueError(f"For Eig, x should be square(squares), but got {A.shape[-2]}  {A.shape[-1]} "
                         "matrix(matrices).")
    return A


def eig(A):  # noqa: N803 - MindSpore's name
    """(eigenvalues [..., N], eigenvectors [..., N, N]) of the square matrices in A's last two
    axes: A v[:, i] = w[i] v[:, i]. Complex64 for float32 input, Complex128 for float64 (2.10,
    measured); eigenvalues in ascending magnitude, eigenvectors of unit norm (their phase is
    LAPACK's, not 2.10's)."""
    w, v = eig_prim.bind(_check_input(A), compute_v=True)
    return w, v


def eigvals(A):  # noqa: N803
    """The eigenvalues of eig(A), ascending in magnitude; differentiable (2.10's are not)."""
    (w,) = eig_prim.bind(_check_input(A), compute_v=False)
    return w


class Eig(Operator):
    """ops.Eig(compute_v=False)(x): (eigenvalues, eigenvectors), or with compute_v=False
    (eigenvalues, a 0-d complex zero), as 2.10 returns them (measured)."""

    def __init__(self, compute_v=False):
        super().__init__(compute_v=check_bool("Eig", "compute_v", compute_v))

    def __call__(self, x):
        if self.compute_v:
            return eig(x)
        w = eigvals(x)
        return w, F.as_tensor(np.zeros((), w.dtype.np_dtype))

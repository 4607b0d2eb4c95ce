"""ops.MatrixLogarithm: the principal matrix logarithm of complex64/complex128 matrices in the
last two axes (leading axes batched), as scipy.linalg.logm and MindSpore 2.10 give it (measured:
agreement to 1e-14 in complex128, log of a Jordan block exact, log(-1) = i*pi).

One primitive, `matrix_logarithm`, lowered through jax as a Schur-based inverse scaling and
squaring (Higham's method, as Eigen's MatrixLogarithm that 2.10 runs): A = Q T Q^H
(jax.scipy.linalg.schur: LAPACK on the CPU, so XLA on the CPU only), then square roots of the
triangular T (one superdiagonal at a time) until ||T - I||_1 <= 0.25, then log(I + X) by 8-point
Gauss-Legendre quadrature of X (I + tX)^-1 (its [8/8] Pade approximant), times 2^s; the diagonal
is replaced by the exact log(T_ii). Defective matrices (Jordan blocks) need no eigenvectors here.

No gradient (2.10: "Illegal primitive MatrixLogarithm's bprop not defined", measured). ONNX
(compiler/onnx_logm.py): eig's Schur form in float64 pairs, the square roots in a Loop, then a
series; the model's inputs and outputs are real, as for every complex value in ONNX.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .. import dtype as mstype
from ..ir.core import TensorType
from ..tensor import Tensor
from .householder_prims import _no_bprop
from .linalg_prims import _leading_batch
from .op_base import Operator
from .primitive import Primitive, ShapeError

__all__: list[str] = []

_COMPLEX = (mstype.complex64, mstype.complex128)
_THETA = 0.25            # ||X||_1 bound for the [8/8] Pade approximant (Higham: theta_8 ~ 0.37 in double)
_MAX_ROOTS = 64
_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(8)


def _rule(x: TensorType) -> TensorType:
    if x.dtype not in _COMPLEX or x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ShapeError(f"matrix_logarithm needs square complex64/complex128 matrices, got {x}")
    return x


def _triangular_sqrt(t):
    """The principal square root R of an upper-triangular t (R @ R = t): R_ii = sqrt(t_ii), then
    each superdiagonal d from the ones below it, R_ij = (t_ij - sum_{i<k<j} R_ik R_kj) / (R_ii + R_jj);
    while diagonals >= d are still zero, (R @ R)_ij on diagonal d is exactly that sum."""
    n = t.shape[-1]
    diag = jnp.sqrt(jnp.diagonal(t, axis1=-2, axis2=-1))
    r = diag[..., :, None] * jnp.eye(n, dtype=t.dtype)
    denominator = diag[..., :, None] + diag[..., None, :]
    denominator = jnp.where(denominator == 0, 1, denominator)
    offsets = jnp.arange(n)[None, :] - jnp.arange(n)[:, None]

    def superdiagonal(d, r):
        fill = (t - r @ r) / denominator
        return jnp.where(offsets == d, fill, r)

    return jax.lax.fori_loop(1, n, superdiagonal, r) if n > 1 else r


def _one_norm(x):
    return jnp.max(jnp.sum(jnp.abs(x), axis=-2), axis=-1)


def _triangular_log(t):
    n = t.shape[-1]
    eye = jnp.eye(n, dtype=t.dtype)

    def far(state):
        r, s = state
        return jnp.logical_and(jnp.max(_one_norm(r - eye)) > _THETA, s < _MAX_ROOTS)

    def root(state):
        r, s = state
        return _triangular_sqrt(r), s + 1

    r, s = jax.lax.while_loop(far, root, (t, jnp.int32(0)))
    x = r - eye
    log = jnp.zeros_like(t)
    for node, weight in zip(_NODES, _WEIGHTS):
        u = float(node + 1) / 2      # the nodes on [0, 1]; Python floats keep complex64 complex64
        solved = jax.scipy.linalg.solve_triangular(eye + u * x, x, lower=False)
        log = log + (float(weight) / 2) * solved
    log = log * (2.0 ** s).astype(t.real.dtype)
    exact = jnp.log(jnp.diagonal(t, axis1=-2, axis2=-1))
    return jnp.where(eye.astype(bool), exact[..., :, None] * eye, jnp.triu(log))


def _impl(x):
    t, q = jax.scipy.linalg.schur(x, output="complex")
    return (q @ _triangular_log(t) @ jnp.conj(jnp.swapaxes(q, -1, -2))).astype(x.dtype)


matrix_logarithm = Primitive("matrix_logarithm", _rule, _impl)
matrix_logarithm.def_batch(_leading_batch(matrix_logarithm))
matrix_logarithm.def_vjp(_no_bprop("MatrixLogarithm"))


class MatrixLogarithm(Operator):
    """ops.MatrixLogarithm()(x): logm of each complex matrix in x's last two axes."""

    def __call__(self, x):
        if not isinstance(x, Tensor):
            raise TypeError(f"For primitive[MatrixLogarithm], the input[0] should be a Tensor, but got "
                            f"{type(x).__name__}.")
        if x.dtype not in _COMPLEX:
            raise TypeError("For primitive[MatrixLogarithm], the input argument[x] must be a type of "
                            f"{{Tensor[Complex128], Tensor[Complex64]}}, but got Tensor[{x.dtype}].")
        if x.ndim < 2:
            raise ValueError(f"For primitive[MatrixLogarithm], the x rank must be greater than or equal to 2, but "
                             f"got {x.ndim}.")
        if x.shape[-1] != x.shape[-2]:
            raise ValueError(f"For MatrixLogarithm, the last two dimensions of input 'x' must be equal, but got "
                             f"x.shape = {tuple(x.shape)}.")
        return matrix_logarithm.bind(x)

"""The ONNX rule for eigh (ops/eigh_prim.py), symmetric eigen-decomposition, by eig's algorithm
(compiler/onnx_eig.py's `schur_form`: Hessenberg reduction and the shifted QR sweeps in a Loop, in
float64), for static matrix sizes; leading (batch) axes, dynamic ones too, are flattened into one.

The operand is symmetrized ((A + A^T) / 2, as the primitive does) and cast to float64. For a
symmetric matrix the Hessenberg form is tridiagonal and the QR sweeps (real shifts: a symmetric
2 x 2 block's Wilkinson shift is real, so the imaginary parts stay 0) drive it to a diagonal T:
the eigenvalues are diag(T) times the scale and the accumulated Q, a product of reflections and
rotations, holds orthonormal eigenvectors, repeated eigenvalues included (no back-substitution).
They are sorted ascending (TopK, equal values by position) and cast back to the input dtype.

Signs: LAPACK's (the jax lowering's syevd) follow no stated rule, so this rule makes each vector's
first entry within 0.1% of its largest magnitude positive (svd's rule, ops/linalg.py's
`_largest_entry_signs`); compare with jax up to each column's sign.

Accuracy, measured against numpy.linalg.eigh (sizes 1 to 8; random symmetric, diagonal and rotated
with repeated eigenvalues, zero, entries near 1e-200 and 1e150), relative to max|A|: float64
eigenvalues and residuals |A v - w v| 3e-15 at most, |V^T V - I| 2e-15; float32 1e-7.
Costs: eig's with vectors (its complex pairs, the imaginary parts all 0, are carried: twice the
real work), less the back-substitution; onnxruntime ~0.2 s for ten 8 x 8 matrices, session included.

Not supported: dynamic matrix sizes (refused by name; dynamic batch axes are fine) and empty
matrices.
"""
from __future__ import annotations

from onnx import TensorProto

from .onnx import onnx_dtype
from .onnx_eig import _diag, _f64, schur_form
from .onnx_linalg import refuse_dynamic_matrix
from .onnx_svd import _largest_entry_sign


def _canonical_signs(ctx, v):
    """Each column of v [B, n, n] flipped so that its first entry within SIGN_ENTRY_TIE of its
    largest magnitude is positive (svd's rule, onnx_svd.py, applied to the columns)."""
    return ctx.op("Mul", v, ctx.op("Transpose", _largest_entry_sign(ctx, ctx.op("Transpose", v, perm=[0, 2, 1])),
                                   perm=[0, 2, 1]))


def eigh(ctx, a):
    refuse_dynamic_matrix(ctx, ctx.in_dims[0])
    n = ctx.in_types[0].shape[-1]
    if n == 0:
        ctx.fail("no ONNX lowering for empty matrices")
    x = ctx.op("Reshape", ctx.op("Cast", a, to=TensorProto.DOUBLE), ctx.ints([-1, n, n]))
    x = ctx.op("Mul", ctx.op("Add", x, ctx.op("Transpose", x, perm=[0, 2, 1])), _f64(ctx, 0.5))
    t, q, scale = schur_form(ctx, x, None, n, compute_v=True, batch_name="eigh_batch")
    w = _diag(ctx, t[:1], n)[0]                                                               # [B, n]
    w, order = ctx.op("TopK", w, ctx.ints([n]), axis=-1, largest=0, sorted=1, n_out=2)      # [B, n] each
    w = ctx.op("Mul", w, ctx.op("Squeeze", scale, ctx.ints([-1])))
    columns = ctx.op("Expand", ctx.op("Unsqueeze", order, ctx.ints([-2])), ctx.op("Shape", q[0]))
    v = _canonical_signs(ctx, ctx.op("GatherElements", q[0], columns, axis=-1))
    out = onnx_dtype(ctx.out_types[0].dtype)
    batch = list(ctx.out_dims[0][:-1])
    return [ctx.op("Cast", ctx.op("Reshape", w, ctx.shape_tensor(batch + [n])), to=out),
            ctx.op("Cast", ctx.op("Reshape", v, ctx.shape_tensor(batch + [n, n])), to=out)]


__all__ = ["eigh"]

"""The ONNX rule for eigh (ops/eigh_prim.py), symmetric (Hermitian) eigen-decomposition, by eig's
algorithm (compiler/onnx_eig.py's `schur_form`: Hessenberg reduction and the shifted QR sweeps in a
Loop, in float64), for static matrix sizes; leading (batch) axes, dynamic ones too, are flattened
into one. A complex operand is onnx_complex's pair (its real and imaginary parts), and so are its
eigenvectors; its eigenvalues are a real tensor.

The operand is symmetrized ((A + A^H) / 2, as the primitive does: the real part symmetric, the
imaginary part antisymmetric) and cast to float64. For a Hermitian matrix the Hessenberg form is
tridiagonal and Hermitian and the QR sweeps drive it to a diagonal T (the Wilkinson shift of a
Hermitian 2 x 2 block is real, so T's diagonal stays real up to rounding): the eigenvalues are
Re diag(T) times the scale and the accumulated Q, a product of reflections and rotations, holds
orthonormal (unitary) eigenvectors, repeated eigenvalues included (no back-substitution). They are
sorted ascending (TopK, equal values by position) and cast back to the input's (real) dtype. A
real operand's imaginary parts, all 0, are carried through the sweeps but not read after.

Signs and phases: LAPACK's (the jax lowering's syevd / heevd) follow no stated rule, so both
backends multiply each vector by the unit factor that makes its first entry within 0.1% of its
largest magnitude real and positive (svd's rule, ops/linalg.py's `largest_entry_phases`; for a
real matrix a sign): the two backends' vectors agree where the eigenvalues are apart.

Accuracy, measured against numpy.linalg.eigh (sizes 1 to 8; random, diagonal and rotated with
repeated eigenvalues, zero, entries near 1e-200 and 1e150), relative to max|A|: float64
eigenvalues and residuals |A v - w v| 3e-15 at most, |V^T V - I| 2e-15; float32 1e-7. Complex128
(the same families, Hermitian, a random unitary rotation): eigenvalues 5e-15, residuals 3e-15,
|V^H V - I| 2e-15, vectors 4e-15 from the XLA path's; complex64 1e-7 (vectors 9e-7 from XLA's).
Costs: eig's with vectors (its complex pairs are carried: a real operand pays for imaginary
parts that stay 0), less the back-substitution; onnxruntime ~0.2 s for ten 8 x 8 matrices,
session included; a run of a built session ~14 ms real, ~15 ms complex128 (ten 8 x 8).

Not supported: dynamic matrix sizes (refused by name; dynamic batch axes are fine) and empty
matrices.
"""
from __future__ import annotations

from onnx import TensorProto

from ..ops.linalg import SIGN_ENTRY_TIE
from .onnx import onnx_dtype
from .onnx_complex import pair, part
from .onnx_eig import _abs2, _diag, _f64, _mul, _scale, schur_form
from .onnx_linalg import refuse_dynamic_matrix
from .onnx_svd import _largest_entry_sign, _reduce_max


def _canonical_signs(ctx, v):
    """Each column of v [B, n, n] flipped so that its first entry within SIGN_ENTRY_TIE of its
    largest magnitude is positive (svd's rule, onnx_svd.py, applied to the columns)."""
    return ctx.op("Mul", v, ctx.op("Transpose", _largest_entry_sign(ctx, ctx.op("Transpose", v, perm=[0, 2, 1])),
                                   perm=[0, 2, 1]))


def _canonical_phases(ctx, v):
    """Each column of the complex v (a [B, n, n] pair) times the unit factor that makes its first
    entry within SIGN_ENTRY_TIE of its largest magnitude real and positive (the jax lowering's
    `largest_entry_phases`)."""
    magnitude = ctx.op("Sqrt", _abs2(ctx, v))
    bar = ctx.op("Mul", _reduce_max(ctx, magnitude, [-2]), _f64(ctx, 1 - SIGN_ENTRY_TIE))
    at = ctx.op("ArgMax", ctx.op("Cast", ctx.op("GreaterOrEqual", magnitude, bar), to=TensorProto.DOUBLE),
                axis=-2, keepdims=1)                                                       # [B, 1, n]
    entry = tuple(ctx.op("GatherElements", p, at, axis=-2) for p in v)
    size = ctx.op("Sqrt", _abs2(ctx, entry))   # a unitary column's largest entry is >= 1 / sqrt(n)
    return _scale(ctx, _mul(ctx, v, (entry[0], ctx.op("Neg", entry[1]))), ctx.op("Reciprocal", size))


def eigh(ctx, a):
    t = ctx.in_types[0]
    refuse_dynamic_matrix(ctx, ctx.in_dims[0])
    n, rank = t.shape[-1], t.ndim
    if n == 0:
        ctx.fail("no ONNX lowering for empty matrices")
    flat = ctx.ints([-1, n, n])
    parts = [part(ctx, a, i, rank) for i in (0, 1)] if t.dtype.is_complex else [a]
    parts = [ctx.op("Reshape", ctx.op("Cast", p, to=TensorProto.DOUBLE), flat) for p in parts]
    # (A + A^H) / 2: the real part symmetric, the imaginary part antisymmetric
    re = ctx.op("Mul", ctx.op("Add", parts[0], ctx.op("Transpose", parts[0], perm=[0, 2, 1])), _f64(ctx, 0.5))
    im = None if len(parts) == 1 else \
        ctx.op("Mul", ctx.op("Sub", parts[1], ctx.op("Transpose", parts[1], perm=[0, 2, 1])), _f64(ctx, 0.5))
    t_form, q, scale = schur_form(ctx, re, im, n, compute_v=True, batch_name="eigh_batch")
    w = _diag(ctx, t_form[:1], n)[0]                                         # [B, n]: a Hermitian T's diagonal is real
    w, order = ctx.op("TopK", w, ctx.ints([n]), axis=-1, largest=0, sorted=1, n_out=2)      # [B, n] each
    w = ctx.op("Mul", w, ctx.op("Squeeze", scale, ctx.ints([-1])))
    columns = ctx.op("Expand", ctx.op("Unsqueeze", order, ctx.ints([-2])), ctx.op("Shape", q[0]))
    batch = list(ctx.out_dims[0][:-1])
    values = ctx.op("Cast", ctx.op("Reshape", w, ctx.shape_tensor(batch + [n])), to=onnx_dtype(ctx.out_types[0].dtype))
    if im is None:
        v = _canonical_signs(ctx, ctx.op("GatherElements", q[0], columns, axis=-1))
        return [values, ctx.op("Cast", ctx.op("Reshape", v, ctx.shape_tensor(batch + [n, n])),
                                to=onnx_dtype(ctx.out_types[1].dtype))]
    v = _canonical_phases(ctx, tuple(ctx.op("GatherElements", p, columns, axis=-1) for p in q))
    v = pair(ctx, *[ctx.op("Reshape", p, ctx.shape_tensor(batch + [n, n])) for p in v], len(batch) + 2)
    return [values, ctx.op("Cast", v, to=onnx_dtype(ctx.out_types[1].dtype.real_dtype))]


__all__ = ["eigh"]

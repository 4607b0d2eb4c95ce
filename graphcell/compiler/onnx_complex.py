"""Complex values in ONNX, which has no complex tensors: inside the lowering a complex value of
shape S is a real tensor of shape S + [2] (real, imaginary), the layout of ONNX's DFT.

`RULES` holds the rules of the primitives that may read or make complex values, used for a
node that does (`rule_for`); a primitive missing here is refused on complex values by name.
The model's inputs and outputs stay real (`onnx.lower` refuses complex ones), so a graph such as
`abs(rfft(x))`, a spectrogram or `irfft(rfft(x) * h)` exports.

The `fft` primitive transforms one axis at a time: a power-of-two length from 128 up with
ONNX DFT (onnxruntime's radix-2 FFT; a real input as DFT's [.., n, 1] form, onesided, and an
inverse real transform as the inverse DFT of the full conjugate-symmetric spectrum's real
part), any other length up to 1,024 as one MatMul with the transform's matrix, computed in float64:
onnxruntime's DFT of other lengths is a naive float32 sum, 31 ms for 64 rows of 1,000 points
(numpy: 0.7) and 1e-4 from numpy's values (the MatMul: float32 rounding).
"""
from __future__ import annotations

import numpy as np

from ..dtype import bool_
from . import onnx_rules as real
from .onnx import LowerCtx

DFT_MIN = 128      # power-of-two lengths from here use DFT (n log n), the rest a MatMul (n^2)
MATMUL_MAX = 1024  # ... up to this length; longer ones DFT too (onnxruntime's naive sum)


def touches_complex(node) -> bool:
    return any(v.dtype.is_complex for v in (*node.inputs, *node.outputs))


def rule_for(node):
    """The rule for `node` when it reads or makes a complex value, else None."""
    return RULES.get(node.primitive.name) if touches_complex(node) else None


# -- the pair layout ----------------------------------------------------------------------------

def part(ctx: LowerCtx, x: str, which: int, rank: int) -> str:
    """The real (0) or imaginary (1) part of pair tensor `x` whose complex shape has `rank` axes."""
    return ctx.op("Gather", x, ctx.const(np.asarray(which, np.int64)), axis=rank)


def pair(ctx: LowerCtx, re: str, im: str, rank: int) -> str:
    """re, im (same shape, `rank` axes) as one pair tensor."""
    axes = ctx.ints([rank])
    return ctx.op("Concat", ctx.op("Unsqueeze", re, axes), ctx.op("Unsqueeze", im, axes), axis=rank)


def with_zero_imag(ctx: LowerCtx, x: str, rank: int) -> str:
    """A real tensor as complex: its values, and 0 in a padded imaginary slot."""
    y = ctx.op("Unsqueeze", x, ctx.ints([rank]))
    return ctx.op("Pad", y, ctx.ints([0] * rank + [0] + [0] * rank + [1]))


def _last(ctx, x, start: int, rank: int) -> str:
    """Slot `start` of the pair axis, kept as an axis of 1 (broadcasts against pairs)."""
    return real.slice_(ctx, x, [rank], [start], [start + 1])


def _real_dtype(ctx, index=0):
    return ctx.node.inputs[index].dtype.real_dtype if index >= 0 else ctx.out_type.dtype.real_dtype


def _pair_const(ctx, values, dtype) -> str:
    return ctx.const(np.asarray(values, dtype.np_dtype))


# -- crossing between real and complex -----------------------------------------------------------

def real_part(ctx, x):
    return part(ctx, x, 0, len(ctx.in_types[0].shape))


def imag_part(ctx, x):
    return part(ctx, x, 1, len(ctx.in_types[0].shape))


def conj(ctx, x):
    return ctx.op("Mul", x, _pair_const(ctx, [1, -1], _real_dtype(ctx)))


def make_complex(ctx, re, im):
    dims = ctx.out_dims[0]
    if ctx.in_dims[0] != ctx.in_dims[1]:   # broadcasting parts: Concat wants one shape
        target = ctx.shape_tensor(dims, minus_one=False)
        re, im = ctx.op("Expand", re, target), ctx.op("Expand", im, target)
    return pair(ctx, re, im, len(dims))


def constant(ctx, *, value):
    array = value.array
    if ctx.is_dynamic(ctx.out_dims[0]):
        ctx.fail("a complex constant whose shape follows the batch has no ONNX form")
    return ctx.const(np.stack([array.real, array.imag], -1))


def cast(ctx, x, *, dtype):
    src, rank = ctx.in_types[0].dtype, len(ctx.in_types[0].shape)
    if src.is_complex and dtype.is_complex:
        return x if src is dtype else real.cast(ctx, x, dtype.real_dtype)
    if dtype.is_complex:
        return with_zero_imag(ctx, x if src is dtype.real_dtype else real.cast(ctx, x, dtype.real_dtype), rank)
    if dtype is bool_:   # z != 0: either part
        nonzero = ctx.op("Not", ctx.op("Equal", x, _pair_const(ctx, 0, src.real_dtype)))
        return ctx.op("Or", part(ctx, nonzero, 0, rank), part(ctx, nonzero, 1, rank))
    re = part(ctx, x, 0, rank)   # astype to a real dtype keeps the real part (MindSpore's)
    return re if dtype is src.real_dtype else real.cast(ctx, re, dtype)


# -- elementwise ----------------------------------------------------------------------------------

def _rank(ctx) -> int:
    return len(ctx.out_type.shape)


def mul(ctx, x, y):
    """(a + bi)(c + di) = [a, b] c + [-b, a] d, with c and d kept as axes of 1."""
    rx, ry = len(ctx.in_types[0].shape), len(ctx.in_types[1].shape)
    c, d = _last(ctx, y, 0, ry), _last(ctx, y, 1, ry)
    swapped = ctx.op("Mul", real.rev(ctx, x, axes=(rx,)), _pair_const(ctx, [-1, 1], _real_dtype(ctx)))
    return ctx.op("Add", ctx.op("Mul", x, c), ctx.op("Mul", swapped, d))


def _pair_scale(ctx, z, rank: int):
    """max(|re|, |im|) of each value (an axis of 1), 1 where it is 0: dividing by it keeps
    squares of huge or tiny parts from overflowing or flushing to zero (float32 past about
    1e19, below about 1e-19)."""
    m = ctx.op("ReduceMax", ctx.op("Abs", z), ctx.ints([rank]), keepdims=1)
    zero = ctx.const(np.zeros((), _real_dtype(ctx).np_dtype))
    one = ctx.const(np.ones((), _real_dtype(ctx).np_dtype))
    return ctx.op("Where", ctx.op("Equal", m, zero), one, m)


def div(ctx, x, y):
    """x conj(y') / (|y'|^2 s), y' = y / s scaled by y's larger part s (|y'|^2 is in [1, 2])."""
    ry = len(ctx.in_types[1].shape)
    scale = _pair_scale(ctx, y, ry)
    scaled = ctx.op("Div", y, scale)
    squares = ctx.op("ReduceSum", ctx.op("Mul", scaled, scaled), ctx.ints([ry]), keepdims=1)
    return ctx.op("Div", mul(ctx, x, conj(ctx, scaled)), ctx.op("Mul", squares, scale))


def abs_(ctx, x):
    """|z| in the complex dtype (MindSpore 2.10 keeps it): the modulus s |z / s| for the larger
    part s, as hypot (an infinite part gives inf, as numpy's), 0 imaginary."""
    rank = len(ctx.in_types[0].shape)
    scale = _pair_scale(ctx, x, rank)
    scaled = ctx.op("Div", x, scale)
    modulus = ctx.op("Mul", scale, ctx.op("Sqrt", ctx.op("ReduceSum", ctx.op("Mul", scaled, scaled),
                                                          ctx.ints([rank]), keepdims=1)))
    modulus = ctx.op("Where", ctx.op("IsInf", scale), scale, modulus)
    return ctx.op("Pad", modulus, ctx.ints([0] * (rank + 1) + [0] * rank + [1]))


def dot_general(ctx, x, y, *, contract, batch):
    """(a + bi).(c + di) = (a.c - b.d) + (a.d + b.c)i: four real products of the parts, each
    lowered by the real rule (the primitive takes operands of one dtype)."""
    (a, b), (c, d) = [(part(ctx, v, 0, t.ndim), part(ctx, v, 1, t.ndim)) for v, t in zip((x, y), ctx.in_types)]

    def dot(u, v):
        return real.dot_general(ctx, u, v, contract=contract, batch=batch)

    re = ctx.op("Sub", dot(a, c), dot(b, d))
    im = ctx.op("Add", dot(a, d), dot(b, c))
    return pair(ctx, re, im, len(ctx.out_dims[0]))


def exp(ctx, x):
    """e^a (cos b, sin b)."""
    rank = len(ctx.in_types[0].shape)
    b = _last(ctx, x, 1, rank)
    turn = ctx.op("Concat", ctx.op("Cos", b), ctx.op("Sin", b), axis=rank)
    return ctx.op("Mul", ctx.op("Exp", _last(ctx, x, 0, rank)), turn)


# -- shapes (the pair axis rides along last) -----------------------------------------------------

def reshape(ctx, x, *, shape):
    return real.reshape(ctx, x, tuple(ctx.out_dims[0]) + (2,))


def transpose(ctx, x, *, perm):
    return ctx.op("Transpose", x, perm=list(perm) + [len(perm)])


def broadcast_in_dim(ctx, x, *, shape, dims):
    if 0 in ctx.out_dims[0]:
        return ctx.const(np.zeros(tuple(ctx.out_type.shape) + (2,), _real_dtype(ctx, -1).np_dtype))
    from dataclasses import replace
    paired = replace(ctx, in_dims=[tuple(ctx.in_dims[0]) + (2,)], out_dims=[tuple(ctx.out_dims[0]) + (2,)])
    return real.broadcast_in_dim(paired, x, shape=tuple(shape) + (2,), dims=tuple(dims) + (len(shape),))


def pad(ctx, x, v, *, lo, hi):
    """Each part padded with its part of `v` (Pad's value is one scalar)."""
    if ctx.other is not None and (ctx.other.attrs["lo"], ctx.other.attrs["hi"]) != (lo, hi):
        ctx.fail("a pad of a complex value whose amounts follow the batch has no ONNX form")
    rank = len(lo)
    parts = [real.pad(ctx, part(ctx, x, i, rank), part(ctx, v, i, 0), lo=lo, hi=hi) for i in (0, 1)]
    return pair(ctx, *parts, rank)


def eq(ctx, x, y):
    """Both parts equal (abs's gradient tests z == 0)."""
    same, rank = ctx.op("Equal", x, y), len(ctx.out_type.shape)
    return ctx.op("And", part(ctx, same, 0, rank), part(ctx, same, 1, rank))


def select(ctx, p, x, y):
    return ctx.op("Where", ctx.op("Unsqueeze", p, ctx.ints([len(ctx.in_types[0].shape)])), x, y)


# -- fft ------------------------------------------------------------------------------------------

def _dft_matrix(n: int, kind: str, np_dtype) -> np.ndarray:
    """The real matrix M of one axis' transform on the interleaved (re, im) layout, in float64:
    `rfft` [n, 2m], `irfft` [2m, n] (m = n // 2 + 1), `fft` / `ifft` [2n, 2n]."""
    if kind == "irfft":
        m = n // 2 + 1
        k, t = np.arange(m)[:, None], np.arange(n)[None, :]
        angle = 2 * np.pi * k * t / n
        weight = np.full((m, 1), 2.0)
        weight[0] = 1.0
        if n % 2 == 0:
            weight[-1] = 1.0   # the zero and Nyquist bins count once; their imaginary parts not at all
        mat = np.empty((m, 2, n))
        mat[:, 0], mat[:, 1] = weight * np.cos(angle) / n, -weight * np.sin(angle) / n
        return mat.reshape(2 * m, n).astype(np_dtype)
    m = n // 2 + 1 if kind == "rfft" else n
    t, k = np.arange(n)[:, None], np.arange(m)[None, :]
    sign = 1.0 if kind == "ifft" else -1.0
    w = np.exp(sign * 2j * np.pi * ((t * k) % n) / n) / (n if kind == "ifft" else 1)
    if kind == "rfft":   # x_t (w.re, w.im)
        return np.stack([w.real, w.imag], -1).reshape(n, 2 * m).astype(np_dtype)
    mat = np.empty((n, 2, m, 2))   # (a + bi)(c + di): a -> (c, d), b -> (-d, c)
    mat[:, 0, :, 0], mat[:, 0, :, 1] = w.real, w.imag
    mat[:, 1, :, 0], mat[:, 1, :, 1] = -w.imag, w.real
    return mat.reshape(2 * n, 2 * m).astype(np_dtype)


def _uses_dft(n: int) -> bool:
    # (past MATMUL_MAX the matrix, 4n^2 entries for a complex axis, would outgrow the model)
    return (n >= DFT_MIN and n & (n - 1) == 0) or n > MATMUL_MAX


def _dft(ctx, x, axis: int, **attrs) -> str:
    if ctx.opset >= 20:
        return ctx.op("DFT", x, "", ctx.const(np.asarray(axis, np.int64)), **attrs)
    return ctx.op("DFT", x, axis=axis, **attrs)


def _by_matmul(ctx, x, kind: str, n: int, dtype, lead: list) -> str:
    """The transform of the last signal axis as one MatMul on the interleaved layout; x has
    dims lead + [signal] (+ [2] when complex)."""
    m = n // 2 + 1
    flat = x if kind == "rfft" else real.reshape(ctx, x, lead + [2 * (m if kind == "irfft" else n)])
    y = ctx.op("MatMul", flat, ctx.const(_dft_matrix(n, kind, dtype.np_dtype)))
    return y if kind == "irfft" else real.reshape(ctx, y, lead + [m if kind == "rfft" else n, 2])


def _c2c_axis(ctx, x, axis: int, rank: int, n: int, inverse: bool, dims: list, dtype) -> str:
    """One complex axis transformed; x a pair tensor of complex `dims` (rank axes)."""
    if _uses_dft(n):
        return _dft(ctx, x, axis, inverse=int(inverse))
    last = axis == rank - 1
    perm = [a for a in range(rank) if a != axis] + [axis, rank]
    y = x if last else ctx.op("Transpose", x, perm=perm)
    lead = [dims[a] for a in range(rank) if a != axis]
    y = _by_matmul(ctx, y, "ifft" if inverse else "fft", n, dtype, lead)
    return y if last else ctx.op("Transpose", y, perm=real.inverse(perm))


def fft(ctx, x, *, fft_type, lengths):
    in_dims = list(ctx.in_dims[0])
    rank, k = len(in_dims), len(lengths)
    if any(not isinstance(d, int) for d in in_dims[rank - k:]):
        ctx.fail("an FFT over a dynamic axis has no ONNX form")
    dtype = ctx.in_types[0].dtype.real_dtype
    axes = list(range(rank - k, rank))
    inverse = fft_type in ("ifft", "irfft")
    complex_dims = list(in_dims)
    if fft_type == "rfft":   # the last axis real-to-half-spectrum, then the others complex
        n = lengths[-1]
        if _uses_dft(n):
            x = _dft(ctx, ctx.op("Unsqueeze", x, ctx.ints([rank])), rank - 1, onesided=1)
        else:
            x = _by_matmul(ctx, x, "rfft", n, dtype, in_dims[:-1])
        complex_dims[-1] = n // 2 + 1
        for a, n in zip(axes[:-1], lengths[:-1]):
            x = _c2c_axis(ctx, x, a, rank, n, False, complex_dims, dtype)
        return x
    c2c_axes = list(zip(axes, lengths)) if fft_type != "irfft" else list(zip(axes[:-1], lengths[:-1]))
    for a, n in c2c_axes:
        x = _c2c_axis(ctx, x, a, rank, n, inverse, complex_dims, dtype)
    if fft_type != "irfft":
        return x
    n = lengths[-1]
    if not _uses_dft(n):
        return _by_matmul(ctx, x, "irfft", n, dtype, in_dims[:-1])
    # the full spectrum: X_0 .. X_{n/2}, then conj(X_{n/2-1} .. X_1); the inverse DFT's real part
    mirrored = real.slice_(ctx, x, [rank - 1], [n // 2 - 1], [0], [-1])
    full = ctx.op("Concat", x, conj(ctx, mirrored), axis=rank - 1)
    return part(ctx, _dft(ctx, full, rank - 1, inverse=1), 0, rank)


def eig(ctx, x, *, compute_v):
    """The shifted QR algorithm in a Loop, in float64 (compiler/onnx_eig.py, which builds on
    this module's pairs: imported when an eig is lowered)."""
    from .onnx_eig import eig as lower
    return lower(ctx, x, compute_v=compute_v)


def eigh(ctx, x):
    """A Hermitian matrix: eig's Schur form on (A + A^H) / 2, real eigenvalues, unitary vectors
    (compiler/onnx_eigh.py, imported when an eigh is lowered)."""
    from .onnx_eigh import eigh as lower
    return lower(ctx, x)


def matrix_logarithm(ctx, x):
    """Square roots of eig's Schur form in a Loop, then a series (compiler/onnx_logm.py)."""
    from .onnx_logm import matrix_logarithm as lower
    return lower(ctx, x)


RULES = {
    "real": real_part, "imag": imag_part, "conj": conj, "complex": make_complex,
    "constant": constant, "cast": cast, "fft": fft,
    "add": real.binary("Add"), "sub": real.binary("Sub"), "neg": real.unary("Neg"),
    "mul": mul, "div": div, "abs": abs_, "exp": exp, "select": select, "dot_general": dot_general,
    "eq": eq, "ne": lambda ctx, x, y: ctx.op("Not", eq(ctx, x, y)),
    # sums and counts over leading axes, slices, flips and concatenations along them
    "reduce_sum": real.reducer("ReduceSum"), "element_count": real.element_count,
    "slice": real.slice_rule, "rev": real.rev, "concatenate": real.concatenate,
    "stop_gradient": real.unary("Identity"),
    "reshape": reshape, "transpose": transpose, "broadcast_in_dim": broadcast_in_dim, "pad": pad,
    "eig": eig, "eigh": eigh, "matrix_logarithm": matrix_logarithm,
}

__all__ = ["RULES", "rule_for", "touches_complex"]

"""ONNX rules for the random primitives: jax's threefry2x32 written out in ONNX integer ops.

ONNX has no counter-based generator, so the hash itself is emitted (uint32 Add wraps, as it
must; BitShift/BitwiseOr make the rotations). Bits, keys and uniform floats match jax
bit for bit; normals go through the same erf-inverse polynomial as XLA (Giles, 2010), so they
agree to float rounding (float64 normals use the same single-precision polynomial, so they
are accurate to about 1e-7 relative, not to float64).
"""
from __future__ import annotations

import numpy as np

from ..dtype import uint32
from .onnx import LowerCtx

_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))


def _u32(ctx, value) -> str:
    return ctx.const(np.asarray(value, np.uint32))


def threefry2x32(ctx: LowerCtx, key: str, x0: str, x1: str) -> tuple[str, str]:
    """Hashes counter pairs (x0, x1) (uint32, broadcastable) under `key` (uint32[2])."""
    k0 = ctx.op("Gather", key, ctx.const(np.asarray(0, np.int64)), axis=0)
    k1 = ctx.op("Gather", key, ctx.const(np.asarray(1, np.int64)), axis=0)
    ks = [k0, k1, ctx.op("BitwiseXor", ctx.op("BitwiseXor", k0, k1), _u32(ctx, 0x1BD11BDA))]
    x0 = ctx.op("Add", x0, ks[0])
    x1 = ctx.op("Add", x1, ks[1])
    for i in range(5):
        for r in _ROTATIONS[i % 2]:
            x0 = ctx.op("Add", x0, x1)
            left = ctx.op("BitShift", x1, _u32(ctx, r), direction="LEFT")
            right = ctx.op("BitShift", x1, _u32(ctx, 32 - r), direction="RIGHT")
            x1 = ctx.op("BitwiseXor", x0, ctx.op("BitwiseOr", left, right))
        x0 = ctx.op("Add", x0, ks[(i + 1) % 3])
        x1 = ctx.op("Add", ctx.op("Add", x1, ks[(i + 2) % 3]), _u32(ctx, i + 1))
    return x0, x1


def random_split(ctx, key):
    # jax's "foldlike" split: hash the 64-bit iota (hi words 0, lo words 0, 1); key i is
    # (bits0[i], bits1[i]).
    b0, b1 = threefry2x32(ctx, key, _u32(ctx, [0, 0]), _u32(ctx, [0, 1]))
    both = ctx.op("Concat", ctx.op("Unsqueeze", b0, ctx.ints([1])), ctx.op("Unsqueeze", b1, ctx.ints([1])), axis=1)
    return [ctx.op("Gather", both, ctx.const(np.asarray(i, np.int64)), axis=0) for i in range(2)]


def random_fold_in(ctx, key, data):
    # threefry_2x32(key, [0, uint32(data)]): one counter pair, (0, data).
    d = data if ctx.in_types[1].dtype is uint32 else ctx.op("Cast", data, to=12)  # 12 = UINT32
    b0, b1 = threefry2x32(ctx, key, _u32(ctx, 0), d)
    one = ctx.ints([1])
    return ctx.op("Concat", ctx.op("Reshape", b0, one), ctx.op("Reshape", b1, one), axis=0)


def _bits(ctx, key, nbits: int) -> str:
    """jax's partitionable random bits for the output shape: uint32, or uint64 for 64 bits."""
    shape = ctx.shape_tensor(ctx.out_dims[0], minus_one=False)
    count = ctx.op("ReduceProd", shape, keepdims=0)
    iota = ctx.op("Range", ctx.const(np.asarray(0, np.int64)), count, ctx.const(np.asarray(1, np.int64)))
    lo = ctx.op("Reshape", ctx.op("Cast", iota, to=12), shape)   # the high words of a < 2**32 iota are 0
    b0, b1 = threefry2x32(ctx, key, _u32(ctx, 0), lo)
    if nbits == 64:
        hi = ctx.op("BitShift", ctx.op("Cast", b0, to=13), ctx.const(np.asarray(32, np.uint64)), direction="LEFT")
        return ctx.op("BitwiseOr", hi, ctx.op("Cast", b1, to=13))  # 13 = UINT64
    return ctx.op("BitwiseXor", b0, b1)


def _uniform01(ctx, key, np_dtype) -> str:
    """jax.random.uniform in [0, 1): the top mantissa bits, scaled (exact, no bitcast needed)."""
    finfo = np.finfo(np_dtype)
    nbits, nmant = finfo.bits, finfo.nmant
    rng_bits = 8 if nmant < 8 else nbits
    bits = _bits(ctx, key, 64 if rng_bits == 64 else 32)
    uint = np.uint64 if rng_bits == 64 else np.uint32
    if rng_bits < 32:
        bits = ctx.op("BitwiseAnd", bits, ctx.const(np.asarray((1 << rng_bits) - 1, uint)))
    mant = ctx.op("BitShift", bits, ctx.const(np.asarray(rng_bits - nmant, uint)), direction="RIGHT")
    from .onnx import onnx_dtype
    floats = ctx.op("Cast", mant, to=onnx_dtype(np.dtype(np_dtype)))
    return ctx.op("Mul", floats, ctx.const(np.asarray(2.0 ** -nmant, np_dtype)))


def random_uniform(ctx, key, *, shape, dtype):
    return _uniform01(ctx, key, dtype.np_dtype)


_ERFINV_LT5 = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
               -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_ERFINV_GE5 = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
               -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)


def random_normal(ctx, key, *, shape, dtype):
    # jax: u ~ U[nextafter(-1, 0), 1), then sqrt(2) * erfinv(u).
    np_dtype = dtype.np_dtype
    c = lambda v: ctx.const(np.asarray(v, np_dtype))  # noqa: E731
    lo = np.nextafter(np.asarray(-1.0, np_dtype), np.asarray(0.0, np_dtype))
    u01 = _uniform01(ctx, key, np_dtype)
    u = ctx.op("Max", ctx.op("Add", ctx.op("Mul", u01, c(1.0 - lo)), c(lo)), c(lo))
    x = _erfinv(ctx, u, np_dtype)
    return ctx.op("Mul", x, c(np.sqrt(2.0)))


def _erfinv(ctx, x, np_dtype):
    c = lambda v: ctx.const(np.asarray(v, np_dtype))  # noqa: E731
    one = c(1.0)
    # w = -log1p(-x*x), with log1p by Kahan's trick so small x keeps its precision.
    t = ctx.op("Neg", ctx.op("Mul", x, x))
    v = ctx.op("Add", t, one)
    log1p = ctx.op("Where", ctx.op("Equal", v, one), t,
                   ctx.op("Div", ctx.op("Mul", ctx.op("Log", v), t), ctx.op("Sub", v, one)))
    w = ctx.op("Neg", log1p)
    small = ctx.op("Less", w, c(5.0))
    w = ctx.op("Where", small, ctx.op("Sub", w, c(2.5)), ctx.op("Sub", ctx.op("Sqrt", w), c(3.0)))
    p = ctx.op("Where", small, c(_ERFINV_LT5[0]), c(_ERFINV_GE5[0]))
    for a, b in zip(_ERFINV_LT5[1:], _ERFINV_GE5[1:]):
        p = ctx.op("Add", ctx.op("Where", small, c(a), c(b)), ctx.op("Mul", p, w))
    result = ctx.op("Mul", p, x)
    edge = ctx.op("Equal", ctx.op("Abs", x), one)
    return ctx.op("Where", edge, ctx.op("Mul", x, c(np.inf)), result)

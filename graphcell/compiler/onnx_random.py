"""ONNX rules for the random primitives: jax's threefry2x32 written out in ONNX integer ops.

ONNX has no counter-based generator, so the hash itself is emitted (uint32 Add wraps, as it
must; BitShift/BitwiseOr make the rotations). Bits, keys and uniform floats match jax
bit for bit; normals go through the same erf-inverse polynomial as XLA (Giles, 2010), so they
agree to float rounding (float64 normals through XLA's float64 polynomial).
"""
from __future__ import annotations

import numpy as np

from ..dtype import uint32
from .onnx import LowerCtx

_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))


def _u32(ctx, value) -> str:
    return ctx.const(np.asarray(value, np.uint32))


def key_words(ctx: LowerCtx, key: str) -> tuple[str, str]:
    """A uint32[2] key's two words, scalars."""
    return tuple(ctx.op("Gather", key, ctx.const(np.asarray(i, np.int64)), axis=0) for i in range(2))


def threefry2x32(ctx: LowerCtx, key: str, x0: str, x1: str) -> tuple[str, str]:
    """Hashes counter pairs (x0, x1) (uint32, broadcastable) under `key` (uint32[2])."""
    return threefry2x32_words(ctx, *key_words(ctx, key), x0, x1)


def threefry2x32_words(ctx: LowerCtx, k0: str, k1: str, x0: str, x1: str) -> tuple[str, str]:
    """threefry2x32 under key words k0, k1 (uint32, broadcastable with the counters: an array
    of keys hashes elementwise)."""
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
    return hashed_bits(ctx, *threefry2x32(ctx, key, _u32(ctx, 0), lo), nbits)


def hashed_bits(ctx, b0: str, b1: str, nbits: int) -> str:
    """jax's random bits from one hash (b0, b1) per element: their xor, or both words for 64."""
    if nbits == 64:
        hi = ctx.op("BitShift", ctx.op("Cast", b0, to=13), ctx.const(np.asarray(32, np.uint64)), direction="LEFT")
        return ctx.op("BitwiseOr", hi, ctx.op("Cast", b1, to=13))  # 13 = UINT64
    return ctx.op("BitwiseXor", b0, b1)


def bits_width(np_dtype) -> int:
    """How many random bits jax.random.uniform draws per element of `np_dtype`: 32 or 64."""
    return 64 if np.finfo(np_dtype).bits == 64 else 32


def _uniform01(ctx, key, np_dtype) -> str:
    """jax.random.uniform in [0, 1) for the output shape."""
    return unit_floats(ctx, _bits(ctx, key, bits_width(np_dtype)), np_dtype)


def unit_floats(ctx, bits, np_dtype) -> str:
    """jax.random.uniform in [0, 1) from `bits_width` random bits: the top mantissa bits,
    scaled (exact, no bitcast needed)."""
    finfo = np.finfo(np_dtype)
    nbits, nmant = finfo.bits, finfo.nmant
    rng_bits = 8 if nmant < 8 else nbits
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
    return normal_from_unit(ctx, _uniform01(ctx, key, dtype.np_dtype), dtype.np_dtype)


def normal_from_unit(ctx, u01, np_dtype) -> str:
    """jax.random.normal from its uniform draws in [0, 1)."""
    c = lambda v: ctx.const(np.asarray(v, np_dtype))  # noqa: E731
    lo = np.nextafter(np.asarray(-1.0, np_dtype), np.asarray(0.0, np_dtype))
    u = ctx.op("Max", ctx.op("Add", ctx.op("Mul", u01, c(1.0 - lo)), c(lo)), c(lo))
    x = _erfinv(ctx, u, np_dtype)
    return ctx.op("Mul", x, c(np.sqrt(2.0)))


# XLA's float64 erfinv (Giles, 2010): three ranges of w, degree 22, 18 and 16.
_ERFINV64_LT6_25 = (
    -3.6444120640178196996e-21, -1.685059138182016589e-19, 1.2858480715256400167e-18, 1.115787767802518096e-17,
    -1.333171662854620906e-16, 2.0972767875968561637e-17, 6.6376381343583238325e-15, -4.0545662729752068639e-14,
    -8.1519341976054721522e-14, 2.6335093153082322977e-12, -1.2975133253453532498e-11, -5.4154120542946279317e-11,
    1.051212273321532285e-09, -4.1126339803469836976e-09, -2.9070369957882005086e-08, 4.2347877827932403518e-07,
    -1.3654692000834678645e-06, -1.3882523362786468719e-05, 0.0001867342080340571352, -0.00074070253416626697512,
    -0.0060336708714301490533, 0.24015818242558961693, 1.6536545626831027356)
_ERFINV64_LT16 = (
    2.2137376921775787049e-09, 9.0756561938885390979e-08, -2.7517406297064545428e-07, 1.8239629214389227755e-08,
    1.5027403968909827627e-06, -4.013867526981545969e-06, 2.9234449089955446044e-06, 1.2475304481671778723e-05,
    -4.7318229009055733981e-05, 6.8284851459573175448e-05, 2.4031110387097893999e-05, -0.0003550375203628474796,
    0.00095328937973738049703, -0.0016882755560235047313, 0.0024914420961078508066, -0.0037512085075692412107,
    0.005370914553590063617, 1.0052589676941592334, 3.0838856104922207635)
_ERFINV64_GE16 = (
    -2.7109920616438573243e-11, -2.5556418169965252055e-10, 1.5076572693500548083e-09, -3.7894654401267369937e-09,
    7.6157012080783393804e-09, -1.4960026627149240478e-08, 2.9147953450901080826e-08, -6.7711997758452339498e-08,
    2.2900482228026654717e-07, -9.9298272942317002539e-07, 4.5260625972231537039e-06, -1.9681778105531670567e-05,
    7.5995277030017761139e-05, -0.00021503011930044477347, -0.00013871931833623122026, 1.0103004648645343977,
    4.8499064014085844221)


def _erfinv(ctx, x, np_dtype):
    c = lambda v: ctx.const(np.asarray(v, np_dtype))  # noqa: E731
    one = c(1.0)
    # w = -log1p(-x*x), with log1p by Kahan's trick so small x keeps its precision.
    t = ctx.op("Neg", ctx.op("Mul", x, x))
    v = ctx.op("Add", t, one)
    log1p = ctx.op("Where", ctx.op("Equal", v, one), t,
                   ctx.op("Div", ctx.op("Mul", ctx.op("Log", v), t), ctx.op("Sub", v, one)))
    w = ctx.op("Neg", log1p)
    if np.dtype(np_dtype) == np.float64:
        return _erfinv64(ctx, x, w, c)
    small = ctx.op("Less", w, c(5.0))
    w = ctx.op("Where", small, ctx.op("Sub", w, c(2.5)), ctx.op("Sub", ctx.op("Sqrt", w), c(3.0)))
    p = ctx.op("Where", small, c(_ERFINV_LT5[0]), c(_ERFINV_GE5[0]))
    for a, b in zip(_ERFINV_LT5[1:], _ERFINV_GE5[1:]):
        p = ctx.op("Add", ctx.op("Where", small, c(a), c(b)), ctx.op("Mul", p, w))
    result = ctx.op("Mul", p, x)
    edge = ctx.op("Equal", ctx.op("Abs", x), one)
    return ctx.op("Where", edge, ctx.op("Mul", x, c(np.inf)), result)


def _erfinv64(ctx, x, w, c):
    """XLA's float64 polynomial in w = -log1p(-x^2): w - 3.125 below 6.25, sqrt(w) - 3.25 below
    16, sqrt(w) - 5 above; each range's Horner steps past its degree leave p as it is."""
    lt6, lt16 = ctx.op("Less", w, c(6.25)), ctx.op("Less", w, c(16.0))
    root = ctx.op("Sub", ctx.op("Sqrt", w), ctx.op("Where", lt16, c(3.25), c(5.0)))
    w = ctx.op("Where", lt6, ctx.op("Sub", w, c(3.125)), root)

    def coefficient(i):
        k = c(_ERFINV64_LT6_25[i])
        if i < 19:
            k = ctx.op("Where", lt6, k, c(_ERFINV64_LT16[i]))
        if i < 17:
            k = ctx.op("Where", lt16, k, c(_ERFINV64_GE16[i]))
        return k
    p = coefficient(0)
    for i in range(1, 23):
        step = ctx.op("Add", coefficient(i), ctx.op("Mul", p, w))
        p = step if i < 17 else ctx.op("Where", lt16 if i < 19 else lt6, step, p)
    edge = ctx.op("Equal", ctx.op("Abs", x), c(1.0))
    return ctx.op("Where", edge, ctx.op("Mul", x, c(np.inf)), ctx.op("Mul", p, x))

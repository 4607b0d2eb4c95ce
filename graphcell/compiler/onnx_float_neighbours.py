"""ONNX rule for `nextafter` (ops/float_neighbours.py). ONNX has no NextAfter and no bitcast,
so the step is arithmetic, which onnxruntime runs with subnormals kept.

The step is Rump, Zimmermann, Boldo and Melquiond's ("Computing predecessor and successor in
rounding to nearest", BIT 2009): with u = 2**-p (p the precision) and eta the smallest
subnormal, e = |c| * u * (1 + 2u) + eta, rounded twice, makes c + e and c - e round to c's two
neighbours. It fails just above the smallest normal (where u * |c| is subnormal and rounds
coarsely), so |c| below 2**(emin + p) is scaled up by 2**p first (exact) and the neighbour
scaled back (exact: a normal float); below 2 * tiny the spacing is eta itself. Checked against
numpy's nextafter in onnxruntime on 3.5 million float32 and float64 values each (random bit
patterns, powers of two and their neighbours, subnormals, zeros, infinities, NaN).
"""
from __future__ import annotations

import numpy as np

from .onnx import LowerCtx


def nextafter(ctx: LowerCtx, x: str, y: str) -> str:
    dtype = ctx.out_type.dtype.np_dtype
    info = np.finfo(dtype)
    p = info.nmant + 1

    def c(value):
        return ctx.const(np.asarray(value, dtype))

    magnitude = ctx.op("Abs", x)
    up = ctx.op("Greater", y, x)
    scale = ctx.op("Where", ctx.op("Less", magnitude, c(2.0 ** (info.minexp + p))), c(2.0 ** p), c(1.0))
    scaled = ctx.op("Mul", x, scale)
    step = ctx.op("Add", ctx.op("Mul", ctx.op("Abs", scaled), c(2.0 ** -p * (1 + 2.0 ** (1 - p)))),
                  c(info.smallest_subnormal))
    out = ctx.op("Div", ctx.op("Where", up, ctx.op("Add", scaled, step), ctx.op("Sub", scaled, step)), scale)
    eta = c(info.smallest_subnormal)   # the spacing below 2 * tiny
    near_zero = ctx.op("Where", up, ctx.op("Add", x, eta), ctx.op("Sub", x, eta))
    out = ctx.op("Where", ctx.op("Less", magnitude, c(2.0 * info.tiny)), near_zero, out)
    out = ctx.op("Where", ctx.op("IsInf", x), ctx.op("Mul", ctx.op("Sign", x), c(info.max)), out)
    equal = ctx.op("Equal", x, y)
    out = ctx.op("Where", equal, y, out)   # (every Where broadcasts x and y together)
    either_nan = ctx.op("Or", ctx.op("IsNaN", x), ctx.op("IsNaN", y))
    out = ctx.op("Where", either_nan, c(np.nan), out)
    # A zero result is y's zero where x == y, else x's sign (-eta toward 0 is -0.0). onnxruntime's
    # Where returns -0.0 from its second operand as +0.0, so the sign is set by a product.
    def negative(v):   # the sign bit: 1 / -0.0 is -inf
        return ctx.op("Less", ctx.op("Reciprocal", v), c(0.0))
    wanted = ctx.op("Or", ctx.op("And", equal, negative(y)), ctx.op("And", ctx.op("Not", equal), negative(x)))
    wrong = ctx.op("And", ctx.op("Equal", out, c(0.0)), ctx.op("Xor", wanted, negative(out)))
    return ctx.op("Mul", out, ctx.op("Where", wrong, c(-1.0), c(1.0)))

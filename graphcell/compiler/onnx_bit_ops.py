"""ONNX rules for the shift primitives (ops/bit_ops.py), with their MindSpore semantics: the
count modulo the promoted width (32 bits, 64 for 64-bit types), the result wrapped to the
input's dtype.

ONNX's BitShift takes unsigned types only, so the operands are cast to an unsigned type (narrow
types to uint32, as C promotes them; a cast between integer types keeps the low bits, two's
complement) and the result cast back. A signed right shift is arithmetic: for negative x it is
~((~x) >>> n), with ~x = -(x + 1) computed without overflow. The count is reduced with Mod
(fmod=0 takes the divisor's sign, so a count of -1 is 31), which needs no opset-18 bitwise op.
"""
from __future__ import annotations

import numpy as np

from .onnx import LowerCtx, onnx_dtype

_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _cast(ctx: LowerCtx, x: str, np_dtype) -> str:
    return ctx.op("Cast", x, to=onnx_dtype(np_dtype))


def _operands(ctx: LowerCtx, x: str, count: str):
    """(x in the width it is shifted in, the count modulo that width as uint, that width's
    signed and unsigned numpy dtypes)."""
    dtype = ctx.in_types[0].dtype.np_dtype
    bits = max(8 * dtype.itemsize, 32)
    count = ctx.op("Mod", count, ctx.const(np.asarray(bits, dtype)), fmod=0)
    unsigned = _UNSIGNED[bits // 8]
    signed = np.dtype(f"i{bits // 8}") if dtype.kind == "i" else unsigned
    wide = x if np.dtype(signed) == dtype else _cast(ctx, x, signed)
    return wide, _cast(ctx, count, unsigned), np.dtype(signed), unsigned


def _narrowed(ctx: LowerCtx, y: str, computed_in) -> str:
    dtype = ctx.out_type.dtype.np_dtype
    return y if np.dtype(computed_in) == dtype else _cast(ctx, y, dtype)


def shift_left(ctx: LowerCtx, x: str, count: str) -> str:
    wide, count, signed, unsigned = _operands(ctx, x, count)
    as_unsigned = wide if signed == unsigned else _cast(ctx, wide, unsigned)
    shifted = ctx.op("BitShift", as_unsigned, count, direction="LEFT")
    return _narrowed(ctx, shifted, unsigned)


def shift_right(ctx: LowerCtx, x: str, count: str) -> str:
    wide, count, signed, unsigned = _operands(ctx, x, count)
    if signed == unsigned:   # unsigned: a logical shift
        return _narrowed(ctx, ctx.op("BitShift", wide, count, direction="RIGHT"), unsigned)
    one = ctx.const(np.asarray(1, signed))
    negative = ctx.op("Less", wide, ctx.const(np.asarray(0, signed)))
    inverted = ctx.op("Neg", ctx.op("Add", wide, one))                    # ~x = -(x + 1) >= 0 for x < 0
    magnitude = ctx.op("Where", negative, inverted, wide)
    shifted = _cast(ctx, ctx.op("BitShift", _cast(ctx, magnitude, unsigned), count, direction="RIGHT"), signed)
    result = ctx.op("Where", negative, ctx.op("Sub", ctx.op("Neg", shifted), one), shifted)   # ~shifted
    return _narrowed(ctx, result, signed)

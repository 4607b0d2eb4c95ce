"""Bit shifts and population counts with MindSpore 2.10's names and semantics:
`bitwise_left_shift`, `bitwise_right_shift` (two primitives) and `population_count` (composed
of them).

MindSpore 2.10's CPU kernels shift as x86 does in C (measured on every integer dtype, with
counts from -70 to 70): the operands are promoted to 32 bits (64-bit types stay 64), the count
is taken modulo that width (`16 << 32` is 16, `-17 >> 33` is -9, a count of -1 is 31), and
the result is truncated back to the input's dtype (`int8(100) << 7` is 0). Right shifts are
arithmetic for signed types, logical for unsigned ones. XLA's shifts give 0 (or the sign) for
counts of the width or more, so the primitives take the count modulo the width first.

The ONNX rules (compiler/onnx_bit_ops.py) use BitShift, which ONNX has for unsigned types
only: signed operands are cast to their unsigned type and back, and a signed right shift
shifts ~x for negative x and complements the result.
"""
from __future__ import annotations

import numbers

import jax.numpy as jnp

from .. import dtype as mstype
from ..dtype import bool_
from ..ir.core import TensorType
from ..tensor import Tensor
from . import batching
from . import functional as F
from .ad_util import no_gradient
from .elementwise import broadcast_shapes
from .primitive import Primitive, ShapeError, same_dtype

__all__ = ["bitwise_left_shift", "bitwise_right_shift", "population_count"]


def _shift_rule(name):
    def rule(x: TensorType, y: TensorType) -> TensorType:
        dtype = same_dtype(name, x, y)
        if not dtype.is_integer or dtype is bool_:
            raise ShapeError(f"{name} needs integer tensors, got {x}, {y}")
        return TensorType(broadcast_shapes(name, x.shape, y.shape), dtype)
    return rule


def _promoted(x, count):
    """x and the count as C shifts them: narrow types in int32, the count modulo the width."""
    bits = 8 * x.dtype.itemsize
    if bits < 32:
        return x.astype(jnp.int32), count.astype(jnp.int32) & 31
    return x, count & (bits - 1)


def _shift_left(x, count):
    wide, count = _promoted(x, count)
    return jnp.left_shift(wide, count).astype(x.dtype)   # the narrowing cast wraps


def _shift_right(x, count):
    wide, count = _promoted(x, count)   # (arithmetic for signed types, logical for unsigned)
    return jnp.right_shift(wide, count).astype(x.dtype)


shift_left = Primitive("shift_left", _shift_rule("shift_left"), _shift_left)
shift_right = Primitive("shift_right", _shift_rule("shift_right"), _shift_right)
for _prim in (shift_left, shift_right):
    _prim.def_batch(batching.broadcasting(_prim))
    _prim.def_vjp(no_gradient)   # integers


_INTEGERS = "[Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64]"


def _shift_operands(fname: str, kernel: str, input, other):  # noqa: A002 - MindSpore's names
    """The two operands of one integer dtype: a Python int takes the Tensor's dtype."""
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError(f"For '{fname}', at least one of the inputs should be a Tensor.")
    for name, value in (("input", input), ("other", other)):
        if not isinstance(value, (Tensor, numbers.Integral)):
            raise TypeError(f"For '{fname}', '{name}' must be an integer, but got {name}:{type(value)}.")
    x, y = (v if isinstance(v, Tensor) else None for v in (input, other))
    for t in (x, y):
        if t is not None and (not t.dtype.is_integer or t.dtype is bool_):
            raise TypeError(f"For '{kernel}', the dtype of input should be one of {_INTEGERS}, but got {t.dtype}.")
    if x is not None and y is not None and x.dtype is not y.dtype:
        raise TypeError(f"For '{kernel}', the dtype of two args should be same, but the first arg dtype {x.dtype} "
                        f"are not consistent with second arg dtype {y.dtype}")
    like = x if x is not None else y
    return (F.as_tensor(int(v), like.dtype) if not isinstance(v, Tensor) else v for v in (input, other))


def bitwise_left_shift(input, other):  # noqa: A002
    """input << other, elementwise, in their integer dtype (a Python int takes the Tensor's):
    the count is taken modulo 32 (64 for 64-bit types) and the result wraps, as MindSpore
    2.10's CPU kernel computes it."""
    x, y = _shift_operands("bitwise_left_shift", "LeftShift", input, other)
    return shift_left.bind(x, y)


def bitwise_right_shift(input, other):  # noqa: A002
    """input >> other, elementwise: arithmetic for signed types, logical for unsigned ones; the
    count is taken modulo 32 (64 for 64-bit types), as MindSpore 2.10's CPU kernel does."""
    x, y = _shift_operands("bitwise_right_shift", "RightShift", input, other)
    return shift_right.bind(x, y)


def _popcount32(v: Tensor) -> Tensor:
    """The set bits of each int64 in [0, 2**32): sums of bit pairs, nibbles, then bytes."""
    def shr(t, k):
        return shift_right.bind(t, F.as_tensor(k, mstype.int64))

    def band(t, mask):
        return F.bitwise_and(t, F.as_tensor(mask, mstype.int64))
    v = F.sub(v, band(shr(v, 1), 0x55555555))
    v = F.add(band(v, 0x33333333), band(shr(v, 2), 0x33333333))
    v = band(F.add(v, shr(v, 4)), 0x0F0F0F0F)
    return band(shr(F.mul(v, F.as_tensor(0x01010101, mstype.int64)), 24), 0xFF)   # the byte sums, summed in byte 3


def _low_bits(v: Tensor, bits: int) -> Tensor:
    return F.bitwise_and(v, F.as_tensor((1 << bits) - 1, mstype.int64))


def population_count(input_x):
    """The number of set bits of each element (of its two's complement form for signed
    types), uint8, as MindSpore 2.10."""
    x = F.as_tensor(input_x)
    if not x.dtype.is_integer or x.dtype is bool_:
        raise TypeError("For primitive[PopulationCount], the input argument[input_x] must be a type of "
                        "{Tensor[Int16], Tensor[Int32], Tensor[Int64], Tensor[Int8], Tensor[UInt16], Tensor[UInt32], "
                        f"Tensor[UInt64], Tensor[UInt8]}}, but got Tensor[{x.dtype}].")
    bits = 8 * x.dtype.itemsize
    wide = F.cast(x, mstype.int64)   # (uint64 wraps to its two's complement; signed types sign-extend)
    if bits < 64:
        return F.cast(_popcount32(_low_bits(wide, bits)), mstype.uint8)
    high = _low_bits(shift_right.bind(wide, F.as_tensor(32, mstype.int64)), 32)
    count = F.add(_popcount32(_low_bits(wide, 32)), _popcount32(high))
    return F.cast(count, mstype.uint8)

"""`nextafter`: the next representable float after x in the direction of y. A primitive: its
jax lowering is XLA's NextAfter, which steps the bit pattern; composed of arithmetic it would
be wrong under XLA on CPU, which flushes subnormal results and operands to zero (jax's
setting: `float32(1e-45) * 1` is 0 there), so the steps through and next to the subnormal
range came out as x itself. XLA's NextAfter is exact elsewhere; a subnormal x still reads as
0 in its comparison with y there (`nextafter(1e-39, 0)` is 0, numpy's 9.99999e-40).

ONNX has no NextAfter and no bitcast; compiler/onnx_float_neighbours.py steps by arithmetic,
which onnxruntime runs with subnormals kept.

MindSpore 2.10 documents IEEE nextafter (`nextafter(0, 0.1)` is 1e-45 in float32) and its
float64 kernel gives it, but its float32 CPU kernel computes in float64 and rounds back, so it
returns x itself for every nonzero finite x (measured: `nextafter(1, 2)` is 1.0 there, and
`nextafter(0, -1)` is -0.0, float64's -5e-324 rounded). graphcell gives the documented value.
Its gradient is MindSpore's (measured): 1 for x, 0 for y.
"""
from __future__ import annotations

import jax.numpy as jnp

from .. import dtype as mstype
from ..ir.core import TensorType
from ..tensor import Tensor
from . import batching
from .ad_util import unbroadcast
from .elementwise import broadcast_shapes
from .primitive import Primitive, ShapeError, same_dtype

__all__ = ["nextafter"]


def _rule(x: TensorType, y: TensorType) -> TensorType:
    dtype = same_dtype("nextafter", x, y)
    if not dtype.is_floating:
        raise ShapeError(f"nextafter needs floating-point tensors, got {x}, {y}")
    return TensorType(broadcast_shapes("nextafter", x.shape, y.shape), dtype)


next_after = Primitive("nextafter", _rule, jnp.nextafter)
next_after.def_batch(batching.broadcasting(next_after))


@next_after.def_vjp
def _next_after_vjp(ctx, cts, primals, outs):
    return unbroadcast(cts[0], primals[0].shape), None


def nextafter(input, other):  # noqa: A002 - MindSpore's names
    """The next representable value after `input` toward `other`, elementwise (float32 or
    float64 Tensors, broadcasting): `other` itself where they are equal, NaN where either is
    NaN."""
    for t in (input, other):
        if not isinstance(t, Tensor):
            raise TypeError(f"For 'nextafter', the inputs must be Tensors, got {type(t).__name__}")
    for name, t in (("x1", input), ("x2", other)):
        if t.dtype not in (mstype.float32, mstype.float64):
            raise TypeError(f"For primitive[NextAfter], the input argument[{name}] must be a type of "
                            f"{{Tensor[Float32], Tensor[Float64]}}, but got Tensor[{t.dtype}].")
    if input.dtype is not other.dtype:
        raise TypeError(f"For primitive[NextAfter], the input type must be same, got {input.dtype} and {other.dtype}.")
    return next_after.bind(input, other)

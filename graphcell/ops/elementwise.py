"""Elementwise primitives: unary math, broadcasting binary ops, comparisons, select.

Binary primitives broadcast like numpy (as ONNX and XLA's front ends do) but need operands
of one dtype: the functional layer promotes dtypes first.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

from ..dtype import DType, bool_
from ..ir.core import TensorType
from .primitive import Primitive, check, same_dtype


def broadcast_shapes(name: str, *shapes: tuple) -> tuple:
    ndim = max(len(s) for s in shapes)
    out = []
    for axis in range(ndim):
        dims = {s[axis - ndim + len(s)] for s in shapes if axis - ndim + len(s) >= 0}
        dims.discard(1)
        check(len(dims) <= 1, f"{name}: shapes {' and '.join(str(list(s)) for s in shapes)} "
              "cannot be broadcast together")
        out.append(dims.pop() if dims else 1)
    return tuple(out)


UNARY: dict[str, Primitive] = {}
BINARY: dict[str, Primitive] = {}


def unary(name: str, fn, *, floats_only: bool = False, out_dtype: DType | None = None) -> Primitive:
    def rule(x: TensorType) -> TensorType:
        if floats_only:
            check(x.dtype.is_floating, f"{name} needs a floating-point tensor, got {x}")
        return TensorType(x.shape, out_dtype or x.dtype)
    prim = Primitive(name, rule, fn)
    UNARY[name] = prim
    return prim


def binary(name: str, fn, *, out_dtype: DType | None = None) -> Primitive:
    def rule(x: TensorType, y: TensorType) -> TensorType:
        dtype = same_dtype(name, x, y)
        return TensorType(broadcast_shapes(name, x.shape, y.shape), out_dtype or dtype)
    prim = Primitive(name, rule, fn)
    BINARY[name] = prim
    return prim


neg = unary("neg", jnp.negative)
exp = unary("exp", jnp.exp, floats_only=True)
log = unary("log", jnp.log, floats_only=True)
log1p = unary("log1p", jnp.log1p, floats_only=True)
expm1 = unary("expm1", jnp.expm1, floats_only=True)
sqrt = unary("sqrt", jnp.sqrt, floats_only=True)
rsqrt = unary("rsqrt", jax.lax.rsqrt, floats_only=True)
tanh = unary("tanh", jnp.tanh, floats_only=True)
logistic = unary("logistic", jax.nn.sigmoid, floats_only=True)
sin = unary("sin", jnp.sin, floats_only=True)
cos = unary("cos", jnp.cos, floats_only=True)
erf = unary("erf", jax.lax.erf, floats_only=True)
abs_ = unary("abs", jnp.abs)
sign = unary("sign", jnp.sign)
floor = unary("floor", jnp.floor, floats_only=True)
ceil = unary("ceil", jnp.ceil, floats_only=True)
round_ = unary("round", jnp.round, floats_only=True)  # half to even, as numpy and ONNX
logical_not = unary("not", jnp.logical_not)
is_finite = unary("is_finite", jnp.isfinite, floats_only=True, out_dtype=bool_)

add = binary("add", jnp.add)
sub = binary("sub", jnp.subtract)
mul = binary("mul", jnp.multiply)
div = binary("div", lambda x, y: jnp.divide(x, y) if jnp.issubdtype(x.dtype, jnp.inexact)
             else jnp.floor_divide(x, y))
pow_ = binary("pow", jnp.power)
maximum = binary("max", jnp.maximum)
minimum = binary("min", jnp.minimum)
logical_and = binary("and", jnp.logical_and)
logical_or = binary("or", jnp.logical_or)
eq = binary("eq", jnp.equal, out_dtype=bool_)
ne = binary("ne", jnp.not_equal, out_dtype=bool_)
lt = binary("lt", jnp.less, out_dtype=bool_)
le = binary("le", jnp.less_equal, out_dtype=bool_)
gt = binary("gt", jnp.greater, out_dtype=bool_)
ge = binary("ge", jnp.greater_equal, out_dtype=bool_)


def _select_rule(pred: TensorType, x: TensorType, y: TensorType) -> TensorType:
    check(pred.dtype is bool_, f"select needs a bool predicate, got {pred}")
    dtype = same_dtype("select", x, y)
    return TensorType(broadcast_shapes("select", pred.shape, x.shape, y.shape), dtype)


select = Primitive("select", _select_rule, jnp.where)

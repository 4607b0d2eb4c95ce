"""Elementwise primitives: unary math, broadcasting binary ops, comparisons, select.

Binary primitives broadcast like numpy (as ONNX and XLA's front ends do) but need operands
of one dtype: the functional layer promotes dtypes first.
"""
from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from ..dtype import DType, bool_
from ..ir.core import TensorType
from . import batching
from .ad_util import F, no_gradient, unbroadcast
from .primitive import Primitive, ShapeError, check, same_dtype


def broadcast_shapes(name: str, *shapes: tuple) -> tuple:
    first = shapes[0]
    if all(s == first for s in shapes[1:]):   # the common cases first: every binary op of a
        return tuple(first)                   # trace comes here
    if len(shapes) == 2 and not shapes[1]:
        return tuple(first)
    if len(shapes) == 2 and not first:
        return tuple(shapes[1])
    ndim = max(len(s) for s in shapes)
    out = []
    for axis in range(ndim):
        dims = {s[axis - ndim + len(s)] for s in shapes if axis - ndim + len(s) >= 0}
        dims.discard(1)
        if len(dims) > 1:   # (the message is built on failure only)
            raise ShapeError(f"{name}: shapes {' and '.join(str(list(s)) for s in shapes)} "
                             "cannot be broadcast together")
        out.append(dims.pop() if dims else 1)
    return tuple(out)


UNARY: dict[str, Primitive] = {}
ORDERED = {"lt", "le", "gt", "ge", "max", "min", "rem"}   # binary ops that compare magnitudes
BINARY: dict[str, Primitive] = {}


def _check_bits(name: str, *xs: TensorType) -> None:
    if any(x.dtype.is_floating for x in xs):
        raise ShapeError(f"{name} needs bool or integer tensors, got {', '.join(map(str, xs))}")


def refuse_complex(name: str, *xs: TensorType) -> None:
    """Ordering and piecewise ops have no meaning on complex numbers: a TypeError, as MindSpore
    2.10 gives (its Less on Complex64: "Unsupported data type")."""
    if any(x.dtype.is_complex for x in xs):
        raise TypeError(f"{name} does not support complex tensors, got {', '.join(map(str, xs))}")


# The float functions that are also defined on complex numbers (jax computes them there).
COMPLEX_OK = {"exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "tanh", "sin", "cos", "sinh", "cosh", "tan",
              "asin", "acos", "atan", "asinh", "acosh", "atanh", "logistic"}


def unary(name: str, fn, *, floats_only: bool = False, numbers_only: bool = False, bits_only: bool = False,
          out_dtype: DType | None = None) -> Primitive:
    def rule(x: TensorType, **attrs) -> TensorType:
        if x.dtype.is_complex and (floats_only or bits_only or name == "relu") and name not in COMPLEX_OK:
            refuse_complex(name, x)
        if floats_only and not x.dtype.is_inexact:
            raise ShapeError(f"{name} needs a floating-point tensor, got {x}")
        if numbers_only and x.dtype is bool_:
            raise ShapeError(f"{name} needs a numeric tensor, got {x}")
        if bits_only:
            _check_bits(name, x)
        return TensorType(x.shape, out_dtype or x.dtype)
    prim = Primitive(name, rule, fn)
    prim.def_batch(batching.vectorized(prim))
    UNARY[name] = prim
    return prim


def binary(name: str, fn, *, floats_only: bool = False, bits_only: bool = False,
           out_dtype: DType | None = None) -> Primitive:
    def rule(x: TensorType, y: TensorType) -> TensorType:
        dtype = same_dtype(name, x, y)
        if dtype.is_complex and (floats_only or bits_only or name in ORDERED):
            refuse_complex(name, x, y)
        if floats_only and not dtype.is_floating:
            raise ShapeError(f"{name} needs floating-point tensors, got {x}, {y}")
        if bits_only:
            _check_bits(name, x, y)
        return TensorType(broadcast_shapes(name, x.shape, y.shape), out_dtype or dtype)
    prim = Primitive(name, rule, fn)
    prim.def_batch(batching.broadcasting(prim))
    BINARY[name] = prim
    return prim


neg = unary("neg", lambda x: jax.lax.neg(x) if getattr(x, "dtype", np.bool_) != np.bool_ else jnp.negative(x))
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
# The trigonometric and hyperbolic family (ONNX has each as an op), erfc (1 - erf(x) loses every
# digit of the tail) and erfinv: ops/math_ops.py wraps them with MindSpore's names.
sinh = unary("sinh", jnp.sinh, floats_only=True)
cosh = unary("cosh", jnp.cosh, floats_only=True)
tan = unary("tan", jnp.tan, floats_only=True)
asin = unary("asin", jnp.arcsin, floats_only=True)
acos = unary("acos", jnp.arccos, floats_only=True)
atan = unary("atan", jnp.arctan, floats_only=True)
asinh = unary("asinh", jnp.arcsinh, floats_only=True)
acosh = unary("acosh", jnp.arccosh, floats_only=True)
atanh = unary("atanh", jnp.arctanh, floats_only=True)
erfc = unary("erfc", jax.lax.erfc, floats_only=True)
erfinv = unary("erfinv", jax.lax.erf_inv, floats_only=True)
# On complex numbers |x| in x's own dtype (MindSpore 2.10, measured: ops.abs of Complex64 is
# Complex64, imaginary part 0).
abs_ = unary("abs", lambda x: jnp.abs(x).astype(x.dtype))


def _sign(x):
    """-1, 0 or 1 from two comparisons for floats: NaN (and -0.0) gives 0, MindSpore 2.10's
    Sign (measured; jnp.sign keeps NaN and -0.0)."""
    if not jnp.issubdtype(x.dtype, jnp.floating):
        return jnp.sign(x)
    return (x > 0).astype(x.dtype) - (x < 0).astype(x.dtype)


sign = unary("sign", _sign)
floor = unary("floor", jnp.floor, floats_only=True)
ceil = unary("ceil", jnp.ceil, floats_only=True)
round_ = unary("round", jnp.round, floats_only=True)  # half to even, as numpy and ONNX
# not, and, or, xor: logical on bools, bitwise on integers (numpy's ~ & | ^); the functional
# layer's logical_* cast to bool first.
logical_not = unary("not", jnp.invert, bits_only=True)
is_finite = unary("is_finite", jnp.isfinite, floats_only=True, out_dtype=bool_)


def _relu(x):
    """x where x > 0, else 0: NaN gives 0, as MindSpore 2.10's ReLU (measured; max(x, 0) keeps
    NaN). onnxruntime's Relu keeps NaN, and its NaN-to-0 op (ThresholdedRelu) does not fuse into
    the Conv or Gemm before it (LeNet5 ensembles 1.06-1.6x slower), so ONNX keeps Relu.
    (lax, not jnp.where: see `_lax_binary`.)"""
    if not jnp.issubdtype(x.dtype, jnp.floating):
        return jnp.maximum(x, 0)
    zero = np.zeros((), x.dtype)
    return jax.lax.select(jax.lax.gt(x, zero), x, jax.lax.broadcast(zero, x.shape))


# Their own primitives, not max(x, 0) and a clamp: the gradient at the kinks is MindSpore's
# ReluGrad's and ReLU6Grad's (measured on 2.10: 0 at x = 0, 1 at x = 6), where max's balanced
# rule sends half, and the backward pass is a mask, not max's nine ops.
relu = unary("relu", _relu, numbers_only=True)
relu6 = unary("relu6", jax.nn.relu6, floats_only=True)


def _hard_swish(x):
    """x * relu6(x + 3) / 6, 0 from -3 down (-inf included: MindSpore 2.10's HSwish, measured)."""
    return jnp.where(x <= -3, jnp.zeros((), x.dtype), x * (jnp.clip(x + 3, 0, 6) / 6))


# HSigmoid, HSwish and Softsign: primitives for their gradients at the kinks and far out
# (MindSpore 2.10's, measured below), and ONNX has each as one op (HardSigmoid, HardSwish,
# Softsign; the compositions were 3-4 ops).
hard_sigmoid = unary("hard_sigmoid", lambda x: jnp.clip(x + 3, 0, 6) / 6, floats_only=True)
hard_swish = unary("hard_swish", _hard_swish, floats_only=True)
softsign = unary("softsign", lambda x: x / (1 + jnp.abs(x)), floats_only=True)
# So are LeakyReLU and ELU ({alpha=a}), which backends have as ops (ONNX LeakyRelu and Elu:
# as selects they were onnxruntime's Where, ~8x slower than an elementwise op, and ELU's
# expm1 a dozen ops more). ELU's gradient at 0 is alpha, as MindSpore's EluGrad and torch.
leaky_relu = unary("leaky_relu", lambda x, *, alpha: jax.nn.leaky_relu(x, alpha), floats_only=True)
elu = unary("elu", lambda x, *, alpha: jax.nn.elu(x, alpha), floats_only=True)


def _shrink(x, *, lambd, bias):
    zero = jnp.zeros((), x.dtype)
    return jnp.where(x < -lambd, x + bias, jnp.where(x > lambd, x - bias, zero))


# HardShrink ({bias=0}) and SoftShrink ({bias=lambd}) as ONNX's Shrink, which backends have as an
# op: x - bias above lambd, x + bias below -lambd, 0 between (and for NaN, as MindSpore 2.10).
shrink = unary("shrink", _shrink, floats_only=True)

def _lax_binary(lax_fn, jnp_fn, *, complex_ok: bool = True):
    """`jnp_fn` computed by `lax_fn` itself where the two are one op: operands of one dtype, not
    bool (jnp.add of bools is `or`) nor, for comparisons, complex. A jax.numpy function is a
    nested jit: inside jit's trace, jax infers and inlines each call again, over 100 us per
    node of a graph (a ResNet-50 training step has ~2,500 of these). The ranks are matched as
    jax.numpy does (leading unit axes), and lax broadcasts unit axes and scalars itself."""
    def impl(x, y):
        dtype = getattr(x, "dtype", None)
        if (dtype is None or dtype != getattr(y, "dtype", None) or dtype == np.bool_
                or (not complex_ok and jnp.issubdtype(dtype, jnp.complexfloating))):
            return jnp_fn(x, y)
        if x.ndim != y.ndim and x.ndim and y.ndim:
            rank = max(x.ndim, y.ndim)
            x, y = jax.lax.broadcast_to_rank(x, rank), jax.lax.broadcast_to_rank(y, rank)
        return lax_fn(x, y)
    return impl


def _divide(x, y):
    return jnp.floor_divide(x, y) if not jnp.issubdtype(x.dtype, jnp.inexact) else _true_divide(x, y)


_true_divide = _lax_binary(jax.lax.div, jnp.divide)
add = binary("add", _lax_binary(jax.lax.add, jnp.add))
sub = binary("sub", _lax_binary(jax.lax.sub, jnp.subtract))
mul = binary("mul", _lax_binary(jax.lax.mul, jnp.multiply))
div = binary("div", _divide)
def _power(x, y):
    """jnp.power, with an integer power's negative exponents truncated as C, MindSpore and
    ONNX Pow do (1/x rounded toward zero: 1 for x == 1, +-1 for x == -1, 0 otherwise);
    jnp.power's integer path returns garbage for them."""
    if not jnp.issubdtype(x.dtype, jnp.integer):
        return jnp.power(x, y)
    out = jnp.power(x, jnp.maximum(y, 0))
    odd = (y % 2) != 0
    inverse = jnp.where(x == 1, 1, jnp.where(x == -1, jnp.where(odd, -1, 1), 0)).astype(out.dtype)
    return jnp.where(y < 0, inverse, out)


pow_ = binary("pow", _power)
# atan2(y, x), the angle of the point (x, y): a primitive, not atan(y / x) and selects, so its
# gradient is x / (x^2 + y^2) everywhere (the composite's is NaN on the y axis).
atan2 = binary("atan2", jnp.arctan2, floats_only=True)
rem = binary("rem", jnp.fmod)   # C's fmod: the remainder takes x's sign (ONNX Mod with fmod=1)
maximum = binary("max", _lax_binary(jax.lax.max, jnp.maximum))
minimum = binary("min", _lax_binary(jax.lax.min, jnp.minimum))
logical_and = binary("and", jnp.bitwise_and, bits_only=True)
logical_or = binary("or", jnp.bitwise_or, bits_only=True)
logical_xor = binary("xor", jnp.bitwise_xor, bits_only=True)
eq = binary("eq", _lax_binary(jax.lax.eq, jnp.equal, complex_ok=False), out_dtype=bool_)
ne = binary("ne", _lax_binary(jax.lax.ne, jnp.not_equal, complex_ok=False), out_dtype=bool_)
lt = binary("lt", _lax_binary(jax.lax.lt, jnp.less, complex_ok=False), out_dtype=bool_)
le = binary("le", _lax_binary(jax.lax.le, jnp.less_equal, complex_ok=False), out_dtype=bool_)
gt = binary("gt", _lax_binary(jax.lax.gt, jnp.greater, complex_ok=False), out_dtype=bool_)
ge = binary("ge", _lax_binary(jax.lax.ge, jnp.greater_equal, complex_ok=False), out_dtype=bool_)


def _select_rule(pred: TensorType, x: TensorType, y: TensorType) -> TensorType:
    check(pred.dtype is bool_, f"select needs a bool predicate, got {pred}")
    dtype = same_dtype("select", x, y)
    return TensorType(broadcast_shapes("select", pred.shape, x.shape, y.shape), dtype)


def _select(pred, x, y):
    """jnp.where computed by lax.select (jnp.where is two nested jits): the operands broadcast
    to the common shape first, unit axes and missing leading axes included."""
    dtype = getattr(x, "dtype", None)
    if dtype is None or dtype != getattr(y, "dtype", None) or getattr(pred, "dtype", None) != np.bool_:
        return jnp.where(pred, x, y)
    shape = np.broadcast_shapes(pred.shape, x.shape, y.shape)
    pred, x, y = (a if a.shape == shape else
                  jax.lax.broadcast_in_dim(a, shape, tuple(range(len(shape) - a.ndim, len(shape))))
                  for a in (pred, x, y))
    return jax.lax.select(pred, x, y)


select = Primitive("select", _select_rule, _select)
select.def_batch(batching.broadcasting(select))


# -- vjp rules (ad_util has the signature). Unary rules give ct * dy/dx as a function of the
# input x and the output y; binary rules sum each operand's cotangent back to its shape.
def _unary_vjp(prim, deriv):
    @prim.def_vjp
    def rule(ctx, cts, primals, outs):
        return (F.mul(cts[0], deriv(primals[0], outs[0])),)
    return rule


_unary_vjp(neg, lambda x, y: F.full_like(x, -1.0))
_unary_vjp(exp, lambda x, y: y)
_unary_vjp(log, lambda x, y: F.reciprocal(x))
_unary_vjp(log1p, lambda x, y: F.reciprocal(F.add(x, 1.0)))
_unary_vjp(expm1, lambda x, y: F.add(y, 1.0))
_unary_vjp(sqrt, lambda x, y: F.div(0.5, y))
_unary_vjp(rsqrt, lambda x, y: F.mul(F.div(y, x), -0.5))
_unary_vjp(tanh, lambda x, y: F.sub(1.0, F.mul(y, y)))
_unary_vjp(logistic, lambda x, y: F.mul(y, F.sub(1.0, y)))
_unary_vjp(sin, lambda x, y: F.cos(x))
_unary_vjp(cos, lambda x, y: F.neg(F.sin(x)))
_unary_vjp(erf, lambda x, y: F.mul(F.exp(F.neg(F.mul(x, x))), 2.0 / math.sqrt(math.pi)))
_unary_vjp(erfc, lambda x, y: F.mul(F.exp(F.neg(F.mul(x, x))), -2.0 / math.sqrt(math.pi)))
_unary_vjp(erfinv, lambda x, y: F.mul(F.exp(F.mul(y, y)), math.sqrt(math.pi) / 2.0))
_unary_vjp(sinh, lambda x, y: cosh.bind(x))
_unary_vjp(cosh, lambda x, y: sinh.bind(x))
_unary_vjp(tan, lambda x, y: F.add(F.mul(y, y), 1.0))
# (1 - x)(1 + x) rather than 1 - x^2: exact near |x| = 1, where these derivatives blow up.
_unary_vjp(asin, lambda x, y: F.rsqrt(F.mul(F.sub(1.0, x), F.add(x, 1.0))))
_unary_vjp(acos, lambda x, y: F.neg(F.rsqrt(F.mul(F.sub(1.0, x), F.add(x, 1.0)))))
_unary_vjp(atan, lambda x, y: F.reciprocal(F.add(F.mul(x, x), 1.0)))
_unary_vjp(asinh, lambda x, y: F.rsqrt(F.add(F.mul(x, x), 1.0)))
_unary_vjp(acosh, lambda x, y: F.rsqrt(F.mul(F.sub(x, 1.0), F.add(x, 1.0))))
_unary_vjp(atanh, lambda x, y: F.reciprocal(F.mul(F.sub(1.0, x), F.add(x, 1.0))))


# A mask product rather than a select: the same numbers for every finite cotangent (an inf or
# NaN one where the input is <= 0 gives NaN, not 0), and onnxruntime's Where kernel is 8x
# slower than Greater+Cast+Mul (the LeNet5 ensemble step, N=4: 27 -> 37 ms with Where).
_unary_vjp(relu, lambda x, y: F.cast(F.greater(y, 0), y.dtype))
_unary_vjp(relu6, lambda x, y: F.cast(F.logical_and(F.greater(x, 0), F.less_equal(x, 6)), y.dtype))


def _shares(x, y, of_max: bool):
    """The shares of max(x, y)'s (or min's) cotangent that go to x and to y, MindSpore 2.10's
    rule (measured): 1 to the winner, 0 to the loser, 0.5 each at a tie, and 1 each where they
    do not compare (a NaN). Made of comparison masks, so a NaN input never makes a NaN share,
    in XLA or onnxruntime."""
    half_tie = F.mul(F.cast(F.equal(x, y), x.dtype), 0.5)
    x_above, y_above = F.cast(F.greater(x, y), x.dtype), F.cast(F.less(x, y), x.dtype)
    x_loses, y_loses = (y_above, x_above) if of_max else (x_above, y_above)
    return F.sub(F.sub(1.0, x_loses), half_tie), F.sub(F.sub(1.0, y_loses), half_tie)


@leaky_relu.def_vjp
def _leaky_relu_vjp(ctx, cts, primals, outs, *, alpha):
    # MindSpore 2.10's LeakyReLU is max(alpha * x, x) (min for alpha > 1) and its gradient is
    # max's (measured): 1 where x > 0, alpha below, (1 + alpha) / 2 at 0 and +-inf (ties of x and
    # alpha * x), 1 + alpha at NaN (both operands get the cotangent).
    (x,) = primals
    to_x, to_scaled = _shares(x, F.mul(x, alpha), of_max=alpha <= 1)
    slope = F.add(to_x, F.mul(to_scaled, alpha))
    return (F.mul(cts[0], slope),)


@hard_sigmoid.def_vjp
def _hard_sigmoid_vjp(ctx, cts, primals, outs):
    # 1/6 strictly between -3 and 3, and at NaN; 0 at +-3 and beyond (MindSpore 2.10's
    # HSigmoidGrad, measured; relu6(x + 3) / 6 gave 1/6 at 3).
    (x,), dtype = primals, outs[0].dtype
    outside = F.add(F.cast(F.less_equal(x, -3.0), dtype), F.cast(F.greater_equal(x, 3.0), dtype))
    return (F.mul(cts[0], F.mul(F.sub(1.0, outside), 1.0 / 6.0)),)


@hard_swish.def_vjp
def _hard_swish_vjp(ctx, cts, primals, outs):
    # (2x + 3) / 6 from -3 to 3, limits included (-0.5 at -3 and 1.5 at 3: MindSpore 2.10's
    # HSwishGrad, measured), 0 below, 1 above, NaN at NaN. The middle formula sees x clamped to
    # [-3, 3] (NaN stays NaN), so at +-inf it is finite and its mask zeroes it.
    (x,), dtype = primals, outs[0].dtype
    below, above = F.cast(F.less(x, -3.0), dtype), F.cast(F.greater(x, 3.0), dtype)
    inner = F.add(F.mul(F.minimum(F.maximum(x, -3.0), 3.0), 1.0 / 3.0), 0.5)
    slope = F.add(above, F.mul(F.sub(F.sub(1.0, below), above), inner))
    return (F.mul(cts[0], slope),)


# 1 / (1 + |x|)^2: 0 at +-inf (MindSpore 2.10's, measured; x / (1 + |x|)'s composed gradient
# was inf / inf there).
_unary_vjp(softsign, lambda x, y: F.square(F.reciprocal(F.add(F.abs(x), 1.0))))


@elu.def_vjp
def _elu_vjp(ctx, cts, primals, outs, *, alpha):
    # 1 where x > 0, alpha * exp(x) elsewhere (alpha at 0).
    (x,), dtype = primals, outs[0].dtype
    negative = F.mul(F.exp(F.minimum(x, 0)), alpha)
    slope = F.add(F.cast(F.greater(x, 0), dtype), F.mul(F.cast(F.less_equal(x, 0), dtype), negative))
    return (F.mul(cts[0], slope),)


@shrink.def_vjp
def _shrink_vjp(ctx, cts, primals, outs, *, lambd, bias):
    # 0 on [-lambd, lambd], thresholds included, 1 elsewhere and at NaN: MindSpore 2.10's
    # HShrinkGrad and SoftShrinkGrad, measured. A mask product (see relu's vjp above).
    (x,), dtype = primals, outs[0].dtype
    inside = F.logical_and(F.greater_equal(x, -lambd), F.less_equal(x, lambd))
    return (F.mul(cts[0], F.cast(F.logical_not(inside), dtype)),)


# |x|' = sign(x), 0 at 0: MindSpore's AbsGrad, torch and oneDNN (jax alone takes 1 there: an L1
# loss of equal tensors had a gradient of 1/n per element).
@abs_.def_vjp
def _abs_vjp(ctx, cts, primals, outs):
    (x,), (ct,) = primals, cts
    if not x.dtype.is_complex:
        return (F.mul(ct, F.sign(x)),)
    # |z| is real (its imaginary part is 0 whatever z): the real part of the cotangent times
    # conj(z) / |z|, 0 at 0 (jax's rule, in its convention of transposes without conjugation).
    from .complex_ops import conj, real
    unit = F.select(F.equal(x, 0), F.zeros_like(x), F.div(conj(x), outs[0]))
    return (F.mul(real(ct), unit),)
for _p in (sign, floor, ceil, round_, logical_not, is_finite, logical_and, logical_or, logical_xor,
           eq, ne, lt, le, gt, ge):
    _p.def_vjp(no_gradient)  # piecewise constant, or boolean


@add.def_vjp
def _add_vjp(ctx, cts, primals, outs):
    x, y = primals
    return unbroadcast(cts[0], x.shape), unbroadcast(cts[0], y.shape)


@sub.def_vjp
def _sub_vjp(ctx, cts, primals, outs):
    x, y = primals
    return unbroadcast(cts[0], x.shape), unbroadcast(F.neg(cts[0]), y.shape)


@mul.def_vjp
def _mul_vjp(ctx, cts, primals, outs):
    x, y = primals
    return unbroadcast(F.mul(cts[0], y), x.shape), unbroadcast(F.mul(cts[0], x), y.shape)


@rem.def_vjp
def _rem_vjp(ctx, cts, primals, outs):
    # rem(x, y) = x - trunc(x / y) * y, trunc piecewise constant.
    (x, y), (ct,) = primals, cts
    q = F.div(x, y)
    trunc = F.select(F.less(q, 0), F.ceil(q), F.floor(q))
    return unbroadcast(ct, x.shape), unbroadcast(F.neg(F.mul(ct, trunc)), y.shape)


@div.def_vjp
def _div_vjp(ctx, cts, primals, outs):
    (x, y), (ct,), (out,) = primals, cts, outs
    return unbroadcast(F.div(ct, y), x.shape), unbroadcast(F.neg(F.mul(ct, F.div(out, y))), y.shape)


@atan2.def_vjp
def _atan2_vjp(ctx, cts, primals, outs):
    # d/dy = x / (x^2 + y^2), d/dx = -y / (x^2 + y^2) (jax's rule).
    (y, x), (ct,) = primals, cts
    scaled = F.div(ct, F.add(F.mul(x, x), F.mul(y, y)))
    return unbroadcast(F.mul(scaled, x), y.shape), unbroadcast(F.neg(F.mul(scaled, y)), x.shape)


@pow_.def_vjp
def _pow_vjp(ctx, cts, primals, outs):
    # jax's rules: d/dx is 0 where y == 0; d/dy uses log(x) with x == 0 replaced by 1.
    (x, y), (ct,), (out,) = primals, cts, outs
    dx = F.select(F.equal(y, 0), F.zeros_like(out), F.mul(y, F.pow(x, F.sub(y, 1.0))))
    dy = F.mul(F.log(F.select(F.equal(x, 0), F.ones_like(x), x)), out)
    return unbroadcast(F.mul(ct, dx), x.shape), unbroadcast(F.mul(ct, dy), y.shape)


def _minmax_vjp(of_max: bool):
    # MindSpore 2.10's rule (measured; `_shares`): a tie sends half the cotangent to each
    # operand (jax's balanced rule too), a NaN the whole of it to both.
    def rule(ctx, cts, primals, outs):
        (x, y), (ct,) = primals, cts
        to_x, to_y = _shares(x, y, of_max)
        return unbroadcast(F.mul(ct, to_x), x.shape), unbroadcast(F.mul(ct, to_y), y.shape)
    return rule


maximum.def_vjp(_minmax_vjp(of_max=True))
minimum.def_vjp(_minmax_vjp(of_max=False))


@select.def_vjp
def _select_vjp(ctx, cts, primals, outs):
    (pred, x, y), (ct,) = primals, cts
    zero = F.zeros_like(ct)
    return None, unbroadcast(F.select(pred, ct, zero), x.shape), unbroadcast(F.select(pred, zero, ct), y.shape)

"""Elementwise math of mindspore.numpy: unary and binary functions with numpy's `dtype=` argument.

Dtypes follow MindSpore 2.10 as measured (tools/mindspore_numpy_cases.py): float functions take
integers in Float32 (`mnp.cos(int32)` is Float32), and so do ceil, trunc, fix and sign; exp2,
fabs, reciprocal, copysign and heaviside keep an integer input's dtype. Where MindSpore's CPU
kernels refuse an integer (log, floor, expm1, rint) graphcell computes in Float32 too.
"""
from __future__ import annotations

from .. import dtype as mstype
from .. import ops
from ..ops import functional as F
from ._helpers import as_float, operands, promote, tensor, with_dtype


def _float_unary(op, name):
    def fn(x, dtype=None):
        return with_dtype(op(as_float(x)), dtype)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"numpy's {name}, elementwise; integers are computed in Float32; `dtype` casts the result."
    return fn


def _same_unary(op, name):
    def fn(x, dtype=None):
        return with_dtype(op(tensor(x)), dtype)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"numpy's {name}, elementwise, in the input's dtype; `dtype` casts the result."
    return fn


arccosh = _float_unary(ops.acosh, "arccosh")
arcsin = _float_unary(ops.asin, "arcsin")
arcsinh = _float_unary(ops.asinh, "arcsinh")
arctan = _float_unary(ops.atan, "arctan")
arctanh = _float_unary(ops.atanh, "arctanh")
cos = _float_unary(ops.cos, "cos")
cosh = _float_unary(ops.cosh, "cosh")
sin = _float_unary(ops.sin, "sin")
sinh = _float_unary(ops.sinh, "sinh")
tan = _float_unary(ops.tan, "tan")
tanh = _float_unary(ops.tanh, "tanh")
exp = _float_unary(ops.exp, "exp")
expm1 = _float_unary(ops.expm1, "expm1")
log = _float_unary(ops.log, "log")
log10 = _float_unary(ops.log10, "log10")
log1p = _float_unary(ops.log1p, "log1p")
log2 = _float_unary(ops.log2, "log2")
sqrt = _float_unary(ops.sqrt, "sqrt")
ceil = _float_unary(ops.ceil, "ceil")
floor = _float_unary(ops.floor, "floor")
trunc = _float_unary(ops.trunc, "trunc")
rint = _float_unary(lambda x: ops.round(x), "rint")     # round half to even, as numpy


def _sign_keeping_nan(x):
    """numpy's sign: NaN stays NaN (MindSpore 2.10's mnp.sign, measured; ops.sign gives 0)."""
    return ops.select(ops.isnan(x), x, ops.sign(x)) if x.dtype.is_floating else ops.sign(x)


sign = _float_unary(_sign_keeping_nan, "sign")
deg2rad = _float_unary(ops.deg2rad, "deg2rad")
radians = _float_unary(ops.deg2rad, "radians")
rad2deg = _float_unary(ops.rad2deg, "rad2deg")
absolute = _same_unary(ops.abs, "absolute")
abs = _same_unary(ops.abs, "abs")  # noqa: A001 - mindspore.numpy's name
fabs = _same_unary(ops.abs, "fabs")
square = _same_unary(ops.square, "square")
bitwise_not = _same_unary(ops.bitwise_not, "bitwise_not")
invert = _same_unary(ops.bitwise_not, "invert")


def arccos(input, dtype=None):  # noqa: A002 - MindSpore 2.10's parameter name
    """numpy's arccos, elementwise; integers are computed in Float32; `dtype` casts the result."""
    return with_dtype(ops.acos(as_float(input)), dtype)


def negative(a, dtype=None):
    return with_dtype(ops.neg(tensor(a)), dtype)


def positive(a, dtype=None):
    """`a` itself (a copy), numpy's unary plus."""
    x = tensor(a)
    return with_dtype(x.copy() if x is a else x, dtype)


def cbrt(x, dtype=None):
    """The real cube root, elementwise (negative inputs give negative roots)."""
    x = as_float(x)
    return with_dtype(ops.sign(x) * ops.pow(ops.abs(x), 1.0 / 3.0), dtype)


def exp2(x, dtype=None):
    """2 ** x, in x's dtype (an integer x gives integers, as MindSpore 2.10)."""
    x = tensor(x)
    return with_dtype(ops.pow(F.full(x.shape, 2, x.dtype), x), dtype)


def reciprocal(x, dtype=None):
    """1 / x in x's dtype (integers divide toward zero: 1 // 2 is 0, as MindSpore 2.10)."""
    x = tensor(x)
    if x.dtype.is_floating:
        return with_dtype(ops.reciprocal(x), dtype)
    return with_dtype(F.cast(ops.trunc(1.0 / F.cast(x, mstype.float32)), x.dtype), dtype)


def fix(x):
    """Rounds toward zero, in Float32 for integers (MindSpore's fix has no `dtype`)."""
    return ops.trunc(as_float(x))


def around(a, decimals=0):
    """Rounds half to even at `decimals` places; integers are returned as they are."""
    a = tensor(a)
    if not a.dtype.is_floating:
        return a
    return ops.round(a, decimals=decimals)


def round(a, decimals=0):  # noqa: A001 - mindspore.numpy's name
    return around(a, decimals)


def signbit(x, dtype=None):
    """True where the sign bit is set (-0.0 included); integers compare with 0."""
    x = tensor(x)
    out = ops.signbit(x) if x.dtype.is_floating else ops.lt(x, 0)
    return with_dtype(out, dtype)


def isfinite(x, dtype=None):
    return with_dtype(ops.isfinite(tensor(x)), dtype)


def isinf(x, dtype=None):
    return with_dtype(ops.isinf(tensor(x)), dtype)


def isnan(x, dtype=None):
    return with_dtype(ops.isnan(tensor(x)), dtype)


def isneginf(x):
    return ops.isneginf(tensor(x))


def isposinf(x):
    return ops.isposinf(tensor(x))


# ---- binary functions ----

def _binary(op, name, floats=False):
    def fn(x1, x2, dtype=None):
        a, b = operands(x1, x2)
        if floats:
            a, b = (as_float(v) if not isinstance(v, (int, float)) else v for v in (a, b))
        return with_dtype(op(a, b), dtype)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"numpy's {name}, elementwise, with broadcasting; Python scalars take the other operand's "
                  "dtype; `dtype` casts the result." + (" Integers are computed in Float32." if floats else ""))
    return fn


add = _binary(ops.add, "add")
subtract = _binary(ops.sub, "subtract")
multiply = _binary(ops.mul, "multiply")
divide = _binary(ops.true_divide, "divide", floats=True)
true_divide = _binary(ops.true_divide, "true_divide", floats=True)
floor_divide = _binary(ops.floor_divide, "floor_divide")
remainder = _binary(ops.remainder, "remainder")
mod = _binary(ops.remainder, "mod")
fmod = _binary(ops.fmod, "fmod")
power = _binary(ops.pow, "power")
float_power = _binary(ops.pow, "float_power", floats=True)
maximum = _binary(ops.maximum, "maximum")
minimum = _binary(ops.minimum, "minimum")
arctan2 = _binary(ops.atan2, "arctan2", floats=True)
hypot = _binary(ops.hypot, "hypot", floats=True)
logaddexp = _binary(ops.logaddexp, "logaddexp", floats=True)
logaddexp2 = _binary(ops.logaddexp2, "logaddexp2", floats=True)
gcd = _binary(ops.gcd, "gcd")
lcm = _binary(ops.lcm, "lcm")
bitwise_and = _binary(ops.bitwise_and, "bitwise_and")
bitwise_or = _binary(ops.bitwise_or, "bitwise_or")
bitwise_xor = _binary(ops.bitwise_xor, "bitwise_xor")


def divmod(x1, x2, dtype=None):  # noqa: A001 - mindspore.numpy's name
    """(floor_divide(x1, x2), remainder(x1, x2))."""
    return floor_divide(x1, x2, dtype), remainder(x1, x2, dtype)


def copysign(x1, x2, dtype=None):
    """|x1| with x2's sign, in x1's dtype (MindSpore 2.10 keeps an integer x1's dtype)."""
    magnitude = ops.abs(tensor(x1))
    negative = ops.signbit(as_float(x2))
    return with_dtype(ops.where(negative, -magnitude, magnitude), dtype)


def heaviside(x1, x2, dtype=None):
    """0 where x1 < 0, x2 where x1 == 0, 1 where x1 > 0, in the operands' common dtype."""
    a, b = promote(x1, x2)
    return with_dtype(ops.where(ops.lt(a, 0), F.zeros_like(a), ops.where(ops.gt(a, 0), F.ones_like(a), b)), dtype)


def clip(x, xmin, xmax, dtype=None):
    """x limited to [xmin, xmax]; either bound may be None (not both)."""
    if xmin is None and xmax is None:
        raise ValueError("One of max or min must be given.")
    return with_dtype(ops.clamp(tensor(x), xmin, xmax), dtype)

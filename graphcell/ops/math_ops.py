"""Elementwise math with MindSpore 2.10's names, parameter names and edge values (measured).

The trigonometric and hyperbolic functions, atan2, erfc and erfinv bind primitives of their own
(ops/elementwise.py: ONNX has most of them as ops, and their gradients are one rule each), and
so do lgamma, digamma and polygamma (ops/special.py); the rest are compositions of existing
ops, so they work eagerly, under jit (XLA and onnxruntime), under vmap and under grad with no
rules of their own.

Dtypes, as MindSpore 2.10 on CPU gives them where it computes a result:
- float functions keep float16/32/64 and compute integer and bool inputs in float32;
- binary ones promote their operands first (a Python number takes the tensor's dtype);
- copysign keeps a float x's dtype, float_power is always float64, frac and sgn keep integers.
Where MindSpore's CPU build refuses a dtype it has no kernel for (sinh of an int32, hypot of a
float16, lerp of a float64) or refuses to promote (heaviside, addcmul of mixed dtypes), these
compute it as above instead; gcd and lcm need integers, as there.

A composite, as traced (`ops.logaddexp(x, y)`):

    graph logaddexp(%x: f32[3], %y: f32[3]) {
      %0:f32[3] = max(%x, %y)
      %1:bool[3] = eq(%x, %y)
      %2:f32[3] = sub(%x, %y)
      %3:f32[] = constant() {value=0.0}
      %4:f32[3] = select(%1, %3, %2)
      %5:f32[3] = abs(%4)
      %6:f32[3] = neg(%5)
      %7:f32[3] = exp(%6)
      %8:f32[3] = log1p(%7)
      %9:f32[3] = add(%0, %8)
      return %9
    }
"""
from __future__ import annotations

import math
import numbers

import ml_dtypes
import numpy as np

from .. import dtype as mstype
from ..dtype import result_dtype
from ..tensor import Tensor
from . import elementwise as ew
from . import functional as F
from . import special
from .complex_guard import refuse_complex_tensors
from .float_scalars import as_passed as _as_passed
from .composite import fmod, isnan, trunc
from .control_flow import while_loop

__all__ = [
    # trigonometric and hyperbolic
    "sinh", "cosh", "tan", "asin", "arcsin", "acos", "arccos", "atan", "arctan", "asinh", "arcsinh",
    "acosh", "arccosh", "atanh", "arctanh", "atan2", "arctan2", "hypot", "sinc", "deg2rad", "rad2deg",
    # exponentials and logarithms
    "log2", "log10", "exp2", "logaddexp", "logaddexp2", "xlogy", "logit", "float_power", "ldexp",
    # error function, the gamma family
    "erfc", "erfinv", "lgamma", "digamma", "polygamma",
    # signs and parts
    "frac", "copysign", "heaviside", "signbit", "sgn", "absolute", "positive",
    # combinations
    "lerp", "addcmul", "addcdiv", "nan_to_num", "fmax", "fmin", "gcd", "lcm",
]

LN2 = math.log(2.0)


def _float(x) -> Tensor:
    """`x` as a Tensor, integers and bools as float32 (complex ones as they are: MindSpore 2.10
    computes log2, exp2, sinc, asin... of a Complex64 in Complex64, measured)."""
    x = F.as_tensor(x)
    return x if x.dtype.is_inexact else F.cast(x, mstype.float32)


def _float_pair(a, b) -> tuple[Tensor, Tensor]:
    """Two operands promoted to one dtype, computed in float32 when that is not a float."""
    a, b = F._pair(a, b)
    if not a.dtype.is_inexact:
        a, b = F.cast(a, mstype.float32), F.cast(b, mstype.float32)
    return a, b


def _signed(magnitude: Tensor, negative: Tensor) -> Tensor:
    """`magnitude` negated where `negative`, as a product: onnxruntime's Where returns +0.0
    for a selected -0.0, and copysign(0, -1) is -0.0."""
    return F.mul(magnitude, F.select(negative, -1.0, F.full_like(magnitude, 1.0)))


# -- trigonometric and hyperbolic --------------------------------------------------------------

def sinh(input):  # noqa: A002 - MindSpore's names
    return ew.sinh.bind(_float(input))


def cosh(input):  # noqa: A002
    return ew.cosh.bind(_float(input))


def tan(input):  # noqa: A002
    return ew.tan.bind(_float(input))


def asin(input):  # noqa: A002
    """NaN outside [-1, 1]."""
    return ew.asin.bind(_float(input))


def arcsin(x):
    return asin(x)


def acos(input):  # noqa: A002
    """NaN outside [-1, 1]."""
    return ew.acos.bind(_float(input))


def arccos(input):  # noqa: A002
    return acos(input)


def atan(input):  # noqa: A002
    return ew.atan.bind(_float(input))


def arctan(input):  # noqa: A002
    return atan(input)


def asinh(input):  # noqa: A002
    return ew.asinh.bind(_float(input))


def arcsinh(input):  # noqa: A002
    return asinh(input)


def acosh(input):  # noqa: A002
    """NaN below 1."""
    return ew.acosh.bind(_float(input))


def arccosh(input):  # noqa: A002
    return acosh(input)


def atanh(input):  # noqa: A002
    """+-inf at +-1, NaN beyond."""
    return ew.atanh.bind(_float(input))


def arctanh(input):  # noqa: A002
    return atanh(input)


def atan2(input, other):  # noqa: A002
    """The angle of the point (other, input) in [-pi, pi], C's atan2: signed zeros pick the
    quadrant (atan2(0, -0) = pi, atan2(-0, -1) = -pi), atan2(inf, inf) = pi/4."""
    y, x = _float_pair(input, other)
    return ew.atan2.bind(y, x)


def arctan2(input, other):  # noqa: A002
    return atan2(input, other)


def hypot(input, other):  # noqa: A002
    """sqrt(input^2 + other^2) without overflow or underflow on the way (the larger magnitude
    times sqrt(1 + r^2), r <= 1); inf if either is infinite, even with a NaN (C's hypot)."""
    x, y = _float_pair(input, other)
    ax, ay = F.abs(x), F.abs(y)
    big, small = F.maximum(ax, ay), F.minimum(ax, ay)
    ratio = F.div(small, F.select(F.equal(big, 0), 1.0, big))      # 0 / 0 at the origin
    h = F.mul(big, F.sqrt(F.add(F.mul(ratio, ratio), 1.0)))
    return F.select(F.logical_or(F.equal(ax, math.inf), F.equal(ay, math.inf)), math.inf, h)


def sinc(input):  # noqa: A002
    """sin(pi x) / (pi x), 1 at 0 (with a zero gradient there), NaN at +-inf."""
    x = _float(input)
    zero = F.equal(x, 0)
    px = F.select(zero, 1.0, F.mul(x, math.pi))   # no 0 / 0, in the value or its gradient
    return F.select(zero, 1.0, F.div(F.sin(px), px))


def deg2rad(x):
    return F.mul(_float(x), math.pi / 180.0)


def rad2deg(x):
    return F.mul(_float(x), 180.0 / math.pi)


# -- exponentials and logarithms -------------------------------------------------------------

def log2(input):  # noqa: A002
    return F.mul(F.log(_float(input)), 1.0 / LN2)


def log10(input):  # noqa: A002
    return F.mul(F.log(_float(input)), 1.0 / math.log(10.0))


def exp2(input):  # noqa: A002
    """2 ** input, exact at integers (a power, not exp(x ln 2)). No Tensor method, as in
    MindSpore."""
    x = _float(input)
    return F.pow(2.0, x)


def _logaddexp(x: Tensor, y: Tensor, scale: float) -> Tensor:
    """max + log1p(exp(-|d|)) for d = (x - y) * scale, divided back by scale: never overflows.
    Equal operands give d = 0, so equal infinities give themselves (-inf + -inf stays -inf)."""
    m = F.maximum(x, y)
    d = F.select(F.equal(x, y), 0.0, F.sub(x, y))
    tail = F.log1p(F.exp(F.neg(F.abs(d)) if scale == 1.0 else F.mul(F.abs(d), -scale)))
    return F.add(m, tail if scale == 1.0 else F.mul(tail, 1.0 / scale))


def logaddexp(input, other):  # noqa: A002
    """log(exp(input) + exp(other)), computed stably. (MindSpore 2.10 on CPU gives NaN for two
    -inf operands; this gives -inf, as numpy and torch.)"""
    x, y = _float_pair(input, other)
    return _logaddexp(x, y, 1.0)


def logaddexp2(input, other):  # noqa: A002
    """log2(2**input + 2**other), computed stably (-inf for two -inf operands)."""
    x, y = _float_pair(input, other)
    return _logaddexp(x, y, LN2)


def xlogy(input, other):  # noqa: A002
    """input * log(other), 0 where input is 0 and other is not NaN (MindSpore's documented
    rule; its CPU kernel gives NaN for 0 * log(0)). The log never sees those places, so the
    gradient is finite there too."""
    x, y = _float_pair(input, other)
    y_nan = F.not_equal(y, y) if y.dtype.is_complex else isnan(y)
    zero = F.logical_and(F.equal(x, 0), F.logical_not(y_nan))
    safe_y = F.select(zero, 1.0, y)
    return F.select(zero, 0.0, F.mul(x, F.log(safe_y)))


def logit(input, eps=None):  # noqa: A002
    """log(z / (1 - z)); with eps >= 0, z is input limited to [eps, 1 - eps] first (MindSpore's
    order: below eps gives eps, then above 1 - eps gives 1 - eps). eps None or negative: no
    limit, and NaN outside [0, 1]."""
    if eps is not None and (isinstance(eps, bool) or not isinstance(eps, numbers.Real)):
        raise TypeError(f"logit: eps must be a float or None, got {type(eps).__name__}")
    x = _float(input)
    if eps is not None and eps >= 0:
        eps = float(eps)
        x = F.select(F.less(x, eps), eps, F.select(F.greater(x, 1.0 - eps), 1.0 - eps, x))
    return F.log(F.div(x, F.sub(1.0, x)))


def float_power(input, exponent):  # noqa: A002
    """input ** exponent in float64, always (MindSpore casts both operands to float64)."""
    base = F.cast(F.as_tensor(input), mstype.float64)
    return F.pow(base, F.cast(F.as_tensor(exponent), mstype.float64))


def ldexp(x, other):
    """x * 2 ** other, as MindSpore computes it: integer exponents as float32, so integer or
    bool operands give float32, and other need not be an integer."""
    exponent = _float(other)
    return F.mul(F.as_tensor(x), F.pow(2.0, exponent))


# -- error function --------------------------------------------------------------------------

def erfc(input):  # noqa: A002
    """1 - erf(input), accurate in the tail (erfc(9) is 4e-37, not 0)."""
    return ew.erfc.bind(_float(input))


def erfinv(input):  # noqa: A002
    """The inverse of erf: +-inf at +-1, NaN beyond. (MindSpore 2.10's CPU kernel loses digits
    above 0.99: 2.436 for erfinv(0.999999), which is 3.459.)"""
    return ew.erfinv.bind(_float(input))


# -- the gamma family ------------------------------------------------------------------------

def lgamma(input):  # noqa: A002
    """log |gamma(input)|: +inf at the poles 0, -1, -2, ... and at +-inf (measured)."""
    return special.lgamma.bind(_float(input))


def digamma(input):  # noqa: A002
    """The logarithmic derivative of gamma: NaN at the poles -1, -2, ... and at -inf, -inf at
    +0 and +inf at -0 (measured)."""
    return special.digamma.bind(_float(input))


def polygamma(n, input):  # noqa: A002
    """The n-th derivative of digamma (n = 0: digamma). `n` is an int or a constant 0-d integer
    Tensor (MindSpore 2.10 takes the Tensor only); a negative n gives NaN everywhere, as
    MindSpore's. For n >= 1: +inf (n odd) or -inf (n even) at the poles 0, -1, -2, ... and at
    -inf, NaN at +inf (measured)."""
    order = _polygamma_order(n)
    x = _float(input)
    if order < 0:
        return F.full_like(x, math.nan)
    return special.polygamma.bind(x, n=order)


def _polygamma_order(n) -> int:
    if isinstance(n, Tensor):
        if not n.dtype.is_integer:
            raise TypeError(f"polygamma: n must be an int32 or int64 Tensor (or an int), got {n.dtype}")
        if n.ndim != 0:
            raise ValueError(f"polygamma: n must be a 0-d Tensor, got shape {list(n.shape)}")
        if n.is_symbolic:
            raise TypeError("polygamma: n must be a constant (an int, or a Tensor made outside the traced "
                            "function): each order is a different function")
        return int(n.asnumpy())
    if isinstance(n, bool) or not isinstance(n, (numbers.Integral, np.integer)):
        raise TypeError(f"polygamma: n must be an int or a 0-d integer Tensor, got {type(n).__name__}")
    return int(n)


# -- signs and parts ---------------------------------------------------------------------------

def frac(x):
    """x - trunc(x), with x's sign (frac(-2.5) is -0.5); 0 for integers (bools as int64),
    NaN for infinities."""
    x = F.as_tensor(x)
    if not x.dtype.is_floating:
        return F.zeros_like(x, mstype.int64 if x.dtype is mstype.bool_ else None)
    return F.select(F.equal(x, 0), x, F.sub(x, trunc(x)))   # keeps -0.0


def copysign(x, other):
    """|x| with other's sign, where `other < 0` decides: as MindSpore computes it, -0.0 and
    NaN in other count as positive. A float x keeps its dtype; an integer or bool x gives
    float32."""
    x = _float(x)
    other = F.as_tensor(other)
    return _signed(F.abs(x), F.less(other, 0))


def heaviside(input, values):  # noqa: A002
    """0 where input < 0, `values` where input == 0, 1 where input > 0; 0 at NaN (MindSpore's)."""
    x, v = F._pair(input, values)
    return F.select(F.greater(x, 0), 1, F.select(F.equal(x, 0), v, 0))


def signbit(input):  # noqa: A002
    """input < 0, as MindSpore computes it: False for -0.0 and NaN (numpy and torch say True
    for -0.0)."""
    x = F.as_tensor(input)
    if x.dtype is mstype.bool_:
        return F.full_like(x, False, mstype.bool_)
    return F.less(x, 0)


def sgn(input):  # noqa: A002
    """-1, 0 or 1 in input's dtype; 0 at NaN and at -0.0 (MindSpore's)."""
    x = F.as_tensor(input)
    if not x.dtype.is_floating:
        return x if x.dtype is mstype.bool_ else F.sign(x)
    return F.select(F.greater(x, 0), 1.0, F.select(F.less(x, 0), -1.0, F.zeros_like(x)))


def absolute(input):  # noqa: A002
    return F.abs(input)


def positive(input):  # noqa: A002
    """input itself (any dtype, bool too)."""
    return F.as_tensor(input)


# -- combinations ------------------------------------------------------------------------------

def lerp(input, end, weight):  # noqa: A002
    """input + weight * (end - input), MindSpore's formula (not torch's two-sided one: lerp(1e8,
    1, 1) is 0 in float32). `weight` a number or a Tensor, cast to the result's dtype."""
    start, end = _float_pair(input, end)
    refuse_complex_tensors("lerp", start)
    if isinstance(weight, Tensor):
        weight = F.cast(weight, start.dtype)
    elif isinstance(weight, numbers.Real) and not isinstance(weight, bool):
        weight = float(weight)
    else:
        raise TypeError(f"lerp: weight must be a float or a Tensor, got {type(weight).__name__}")
    return F.add(start, F.mul(weight, F.sub(end, start)))


def _addc_operands(name: str, input, tensor1, tensor2, value):  # noqa: A002
    tensors = [F.as_tensor(t) for t in (input, tensor1, tensor2)]
    dtype = result_dtype(*[t.dtype for t in tensors])
    if dtype is mstype.bool_:
        raise TypeError(f"{name}: input, tensor1 and tensor2 must be numeric tensors, got Bool")
    tensors = [F.cast(t, dtype) for t in tensors]
    if isinstance(value, Tensor):
        value = F.cast(value, dtype)
    elif isinstance(value, numbers.Real):   # as MindSpore, cast to the tensors' dtype (0.5 -> 0)
        if isinstance(value, float):
            value = _as_passed(value, dtype)   # the user's float, float32-rounded first
        value = F.as_tensor(np.asarray(value).astype(dtype.np_dtype))
    else:
        raise TypeError(f"{name}: value must be a number or a Tensor, got {type(value).__name__}")
    return (*tensors, value)


def addcmul(input, tensor1, tensor2, value=1):  # noqa: A002
    """input + value * tensor1 * tensor2, broadcast; value a number or a Tensor."""
    x, t1, t2, value = _addc_operands("addcmul", input, tensor1, tensor2, value)
    return F.add(x, F.mul(F.mul(value, t1), t2))


def addcdiv(input, tensor1, tensor2, value=1):  # noqa: A002
    """input + value * tensor1 / tensor2, broadcast. Integers divide truncating toward zero,
    as MindSpore's int64 kernel does (value * tensor1 first)."""
    x, t1, t2, value = _addc_operands("addcdiv", input, tensor1, tensor2, value)
    num = F.mul(value, t1)
    if x.dtype.is_floating:
        return F.add(x, F.div(num, t2))
    num, t2 = F._pair(num, t2)
    quotient = ew.div.bind(F.sub(num, fmod(num, t2)), t2)   # an exact multiple: no rounding
    return F.add(x, quotient)


def nan_to_num(input, nan=None, posinf=None, neginf=None):  # noqa: A002
    """NaN -> nan (0.0 by default), +inf -> posinf, -inf -> neginf (by default the largest and
    the lowest finite value of input's dtype: 3.4028235e38 for float32, 65504 for float16).
    Replacements too large for the dtype become infinities. Integer and bool tensors are
    returned as they are."""
    x = F.as_tensor(input)
    refuse_complex_tensors("nan_to_num", x)
    if not x.dtype.is_floating:
        return x
    info = ml_dtypes.finfo(x.dtype.np_dtype)   # (numpy's finfo has no bfloat16)
    with np.errstate(over="ignore"):
        values = [float(np.asarray(v, x.dtype.np_dtype)) for v in
                  (0.0 if nan is None else nan, info.max if posinf is None else posinf,
                   info.min if neginf is None else neginf)]
    x = F.select(isnan(x), values[0], x)
    x = F.select(F.equal(x, math.inf), values[1], x)
    return F.select(F.equal(x, -math.inf), values[2], x)


def _nan_ignoring(x, other, pick):
    """x where pick(x, other) or other is NaN, other elsewhere (ties give other, as
    MindSpore's fmax); NaN only where both are NaN."""
    x, y = F._pair(x, other)
    take = pick(x, y)
    if x.dtype.is_floating:
        take = F.logical_or(take, isnan(y))
    return F.select(take, x, y)


def fmax(input, other):  # noqa: A002
    """The larger of the two, a NaN counting as missing."""
    return _nan_ignoring(input, other, F.greater)


def fmin(input, other):  # noqa: A002
    """The smaller of the two, a NaN counting as missing. (MindSpore 2.10 has no CPU kernel for
    it; the rules are fmax's.)"""
    return _nan_ignoring(input, other, F.less)


def _integer_pair(name: str, input, other) -> tuple[Tensor, Tensor]:  # noqa: A002
    x, y = F._pair(input, other)
    if not x.dtype.is_integer:
        raise TypeError(f"{name}: 'input' and 'other' must be integer tensors, got {x.dtype} and {y.dtype}")
    shape = ew.broadcast_shapes(name, x.shape, y.shape)
    return F.broadcast_to(x, shape), F.broadcast_to(y, shape)


def gcd(input, other):  # noqa: A002
    """The greatest common divisor, >= 0 (gcd(0, 0) is 0). Euclid's algorithm in a while loop
    that runs until every element is done: at most ~1.44 log2 of the largest value steps."""
    x, y = _integer_pair("gcd", input, other)

    def running(carry):
        return F.any(F.not_equal(carry[1], 0))

    def step(carry):
        a, b = carry
        done = F.equal(b, 0)
        return F.select(done, a, b), F.select(done, b, fmod(a, F.select(done, 1, b)))
    a, _ = while_loop(running, step, (F.abs(x), F.abs(y)))
    return F.abs(a)   # abs(INT_MIN) stays negative in the loop's remainders


def lcm(input, other):  # noqa: A002
    """The least common multiple, >= 0 (0 if either is 0): |input| / gcd * |other|, which wraps
    around on overflow as numpy's does."""
    x, y = _integer_pair("lcm", input, other)
    g = gcd(x, y)
    return F.mul(F.floor_div(F.abs(x), F.select(F.equal(g, 0), 1, g)), F.abs(y))

"""mint's elementwise math: graphcell.ops' functions under mint's argument names, with the
keyword arguments torch adds (`alpha=` on add/sub, `value=` on addcdiv/addcmul)."""
from __future__ import annotations

from .. import ops
from ..ops import functional as F

# the same function under the same argument names as mint's
from ..ops import (  # noqa: F401
    abs, acos, acosh, arccos, arccosh, arcsin, arcsinh, arctan, arctan2, arctanh, asin, asinh, atan, atan2, atanh,
    bitwise_and, bitwise_not, bitwise_or, bitwise_xor, ceil, cos, cosh, div, divide, erf, erfc, erfinv, exp, exp2,
    expm1, float_power, floor, floor_divide, fmod, gcd, imag, isfinite, isinf, isneginf, lerp, log, log10, log1p, log2,
    logaddexp, logaddexp2, logical_and, logical_not, logical_or, logical_xor, maximum, minimum, mul, nan_to_num,
    neg, negative, polar, pow, real, reciprocal, remainder, round, rsqrt, sigmoid, sign, sin, sinc, sinh, square,
    tan, tanh, trunc, xlogy, clamp, clip,
    eq, ne, ge, gt, le, lt, greater, greater_equal, less, less_equal, not_equal, isclose, allclose,
)


def _scaled(value, alpha):
    """alpha * value, skipping the multiply for alpha 1 (so integer inputs keep their dtype)."""
    return value if isinstance(alpha, (int, float)) and alpha == 1 and not isinstance(alpha, bool) else F.mul(value, alpha)


def add(input, other, *, alpha=1):  # noqa: A002 - mint's names
    """input + alpha * other."""
    return F.add(input, _scaled(other, alpha))


def sub(input, other, *, alpha=1):  # noqa: A002
    """input - alpha * other."""
    return F.sub(input, _scaled(other, alpha))


def addcdiv(input, tensor1, tensor2, *, value=1):  # noqa: A002
    """input + value * tensor1 / tensor2."""
    return F.add(input, _scaled(F.div(tensor1, tensor2), value))


def addcmul(input, tensor1, tensor2, *, value=1):  # noqa: A002
    """input + value * tensor1 * tensor2."""
    return F.add(input, _scaled(F.mul(tensor1, tensor2), value))


def sqrt(input):  # noqa: A002
    return ops.sqrt(input)


def frac(input):  # noqa: A002
    """input minus its truncation, with input's sign (torch's frac)."""
    return ops.frac(input)


def fix(input):  # noqa: A002
    """trunc's other name."""
    return ops.trunc(input)


def isnan(tensor):
    return ops.isnan(tensor)


def equal(input, other):  # noqa: A002
    """Whether input and other have the same shape and the same values: a 0-d bool Tensor
    (MindSpore documents a "Boolean tensor"; torch.equal's Python bool would not trace)."""
    a, b = F.as_tensor(input), F.as_tensor(other)
    if tuple(a.shape) != tuple(b.shape):
        return F.as_tensor(False)
    return ops.all(F.equal(a, b))


def softmax(input, dim, *, dtype=None):  # noqa: A002
    """exp(input) / sum(exp(input)) along dim, computed stably; dtype casts first."""
    x = F.as_tensor(input) if dtype is None else F.cast(input, dtype)
    return ops.softmax(x, dim)


def softmax_ext(input, dim=None, dtype=None):  # noqa: A002
    """softmax with dim None meaning the last axis (mint's other spelling)."""
    return softmax(input, -1 if dim is None else dim, dtype=dtype)

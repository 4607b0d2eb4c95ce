"""Activation functions with MindSpore 2.10's names, written with the functional layer (the
older ones, relu to log_softmax, live in functional.py). Values and gradients are torch's and
MindSpore's where MindSpore's CPU kernels are exact; where they are not (noted per function),
these keep the exact value."""
from __future__ import annotations

import numbers

from .. import dtype as mstype
from ..dtype import to_dtype
from ..tensor import Tensor
from . import elementwise as ew
from . import functional as F

__all__ = ["softsign", "logsigmoid", "hardtanh", "selu", "celu", "tanhshrink", "softmin", "hardshrink", "softshrink",
           "threshold", "prelu", "glu", "swiglu", "rrelu", "gumbel_softmax"]

# SELU's constants (Klambauer et al.), as MindSpore's SeLU and torch
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _float_tensor(x, op: str) -> Tensor:
    x = F.as_tensor(x)
    if not x.dtype.is_floating:
        raise TypeError(f"For '{op}', the input must be a float Tensor (float16, float32 or float64), but got "
                        f"{x.dtype}.")
    return x


def softsign(x):
    """x / (1 + |x|); its gradient, 1 / (1 + |x|)^2, is 0 at +-inf (MindSpore's)."""
    return ew.softsign.bind(_float_tensor(x, "softsign"))


def logsigmoid(x):
    """log(sigmoid(x)), computed as -softplus(-x): finite everywhere (MindSpore's kernel,
    log(1 / (1 + exp(-x))), overflows to -inf below about -88 and its gradient to NaN)."""
    x = _float_tensor(x, "logsigmoid")
    return F.neg(F.softplus(F.neg(x)))


def hardtanh(input, min_val=-1.0, max_val=1.0):  # noqa: A002 - MindSpore's names
    """`input` clamped to [min_val, max_val]; integers stay integers. At a limit the gradient is
    0.5 (MindSpore's: its Hardtanh is a maximum and a minimum, whose gradients share ties)."""
    for name, value in (("min_val", min_val), ("max_val", max_val)):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(f"For 'hardtanh', '{name}' must be a number, but got {type(value).__name__}.")
    x = F.as_tensor(input)
    if not x.dtype.is_floating:   # MindSpore clamps integers to the limits truncated toward 0
        min_val, max_val = int(min_val), int(max_val)
    return F.limit(x, min_val, max_val, "hardtanh")


def selu(input_x):
    """scale * elu(x, alpha) with SELU's constants. Its gradient is scale * alpha * exp(x) below
    0 (MindSpore 2.10's CPU SeLU gradient is wrong there: -0.80 at x = -1e4)."""
    x = _float_tensor(input_x, "selu")
    return F.mul(F.elu(x, _SELU_ALPHA), _SELU_SCALE)


def celu(x, alpha=1.0):
    """x where x > 0, else alpha * (exp(x / alpha) - 1); alpha a nonzero float (negative ones
    too, as MindSpore). The gradient at 0 is 1."""
    if isinstance(alpha, bool) or not isinstance(alpha, float):
        raise TypeError(f"For 'celu', the type of 'alpha' should be 'float', but got type '{type(alpha).__name__}'.")
    if alpha == 0:
        raise ValueError("For 'celu', the 'alpha' must be not equal to 0, but got 0.")
    x = _float_tensor(x, "celu")
    if alpha > 0:   # elu's primitive (ONNX Elu), over x / alpha
        if alpha == 1.0:
            return F.elu(x, 1.0)
        return F.mul(F.elu(F.div(x, alpha), 1.0), alpha)
    positive = F.greater(x, 0)
    # exp sees only the selected side, so the other never overflows into a NaN gradient
    below = F.mul(F.expm1(F.div(F.select(positive, 0.0, x), alpha)), alpha)
    return F.select(positive, x, below)


def tanhshrink(input):  # noqa: A002
    """x - tanh(x); integers in float32 (as MindSpore). MindSpore's CPU tanh is approximate
    (tanh(5) = 1.00001): this one is exact."""
    x = F.as_tensor(input)
    if not x.dtype.is_floating:
        x = F.cast(x, mstype.float32)
    return F.sub(x, F.tanh(x))


def softmin(x, axis=-1, *, dtype=None):
    """softmax(-x) over `axis` (an int or a tuple of ints); `dtype` casts the input first."""
    x = F.as_tensor(x)
    if dtype is not None:
        x = F.cast(x, to_dtype(dtype))
    x = _float_tensor(x, "softmin")
    return F.softmax(F.neg(x), axis)


def _lambd(lambd, op: str) -> float:
    """A shrink's threshold: a number (a bool counts as 0 or 1, as MindSpore) or a 0-d Tensor."""
    if isinstance(lambd, Tensor) and lambd.ndim == 0:
        return float(lambd.asnumpy())
    if not isinstance(lambd, numbers.Real):
        raise TypeError(f"For '{op}', 'lambd' must be a float, but got {type(lambd).__name__}.")
    return float(lambd)


def hardshrink(input, lambd=0.5):  # noqa: A002
    """x where |x| > lambd, else 0 (0 at the thresholds; a negative lambd keeps every x). The
    gradient is 1 outside [-lambd, lambd] and 0 on it, thresholds included (MindSpore 2.10's)."""
    x = _float_tensor(input, "hardshrink")
    return ew.shrink.bind(x, lambd=_lambd(lambd, "hardshrink"), bias=0.0)


def softshrink(input, lambd=0.5):  # noqa: A002
    """x - lambd above lambd, x + lambd below -lambd, else 0; lambd >= 0. The gradient is
    hardshrink's."""
    x = _float_tensor(input, "softshrink")
    lambd = _lambd(lambd, "softshrink")
    if lambd < 0:   # MindSpore 2.10 finds it when its kernel runs: a RuntimeError
        raise RuntimeError(f"For 'SoftShrink', the values for lambd should be greater or equal to 0, but found "
                           f"to be [{lambd:g}].")
    return ew.shrink.bind(x, lambd=lambd, bias=lambd)


def threshold(input, thr, value):  # noqa: A002 - MindSpore's names
    """`input` where it is greater than `thr`, else `value` (NaN too); the gradient is 1 above
    `thr` and 0 elsewhere (MindSpore 2.10's, measured). Integers stay integers."""
    x = F.as_tensor(input)
    if not x.dtype.is_floating and isinstance(value, float):
        value = int(value)   # 2.10 keeps an integer input's dtype, the value truncated (-2.5 -> -2)
    return F.select(F.greater(x, thr), x, value)


def prelu(input, weight):  # noqa: A002 - MindSpore's names
    """x where x > 0, else weight * x, `weight` a 1-D Tensor of one slope or one per channel
    (axis 1; a 1-D input's only axis counts as its channels)."""
    x = F.as_tensor(input)
    if x.dtype not in (mstype.float16, mstype.float32):
        raise TypeError(f"For primitive[PReLU], the input argument[x] must be a type of {{Float16, Float32}}, but got "
                        f"{x.dtype}.")
    w = F.as_tensor(weight)
    if w.ndim != 1:
        raise ValueError("The dimension of 'weight' must be 1" if w.ndim == 0 else
                         "The dimension of 'weight' must be less than or equal to 1")
    channels = x.shape[1] if x.ndim >= 2 else (x.shape[0] if x.ndim == 1 else 1)
    if w.shape[0] not in (1, channels):
        raise ValueError(f"For 'Prelu', the length of 'weight' must be equal to number of channels: {channels}, but "
                         f"got {list(w.shape)}.")
    if x.ndim >= 2:
        w = F.reshape(w, (-1,) + (1,) * (x.ndim - 2))
    return prelu_select(x, F.cast(w, x.dtype))


def prelu_select(x, w):
    """w * x where x <= 0, else x: a NaN takes x's side (gradient 1), and the slope's gradient
    sums x over the negative side only, so a +inf elsewhere adds nothing to it (MindSpore 2.10's
    gradients, measured; w * x over all of x gave inf * 0 = NaN)."""
    negative = F.less_equal(x, 0)
    return F.select(negative, F.mul(w, F.select(negative, x, 0.0)), x)


def _halves(x, axis, op: str):
    x = F.as_tensor(x)
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"For '{op}', the 'axis' must be an int, but got {type(axis).__name__}.")
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"Dimension out of range (expected to be in range of [{-x.ndim}, {x.ndim}), but got {axis})")
    if x.shape[axis] % 2:
        raise ValueError(f"For 'Split', x_shape[{axis % x.ndim}] must be divisible by output_num = 2, but got "
                         f"{x.shape[axis]}")
    return F.split(x, x.shape[axis] // 2, axis)


def glu(x, axis=-1):
    """a * sigmoid(b), a and b the halves of `x` along `axis` (whose size must be even)."""
    x = _float_tensor(x, "glu")
    a, b = _halves(x, axis, "glu")
    return F.mul(a, F.sigmoid(b))


def swiglu(input, dim=-1):  # noqa: A002
    """silu(a) * b, a and b the halves of `input` along `dim`. MindSpore 2.10 runs it on Ascend
    only; this is its documented formula."""
    x = _float_tensor(input, "swiglu")
    a, b = _halves(x, dim, "swiglu")
    return F.mul(F.silu(a), b)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3):  # noqa: A002
    """x where x >= 0, else x times a slope drawn uniformly from [lower, upper) for each element
    (MindSpore 2.10 draws in every call: its ops.rrelu has no training flag). Draws come from
    graphcell's random state; an integer input is computed in float32 and truncated back."""
    for name, value in (("lower", lower), ("upper", upper)):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"For 'rrelu', '{name}' must be an int or a float, but got {type(value)}")
    if lower > upper:
        raise ValueError(f"For 'rrelu', the value of 'upper' must be greater than or equal to 'lower', but got "
                         f"upper: {upper}, lower: {lower}. ")
    x = F.as_tensor(input)
    wide = x if x.dtype.is_floating else F.cast(x, mstype.float32)
    slope = F.uniform(wide.shape, float(lower), float(upper), dtype=wide.dtype)
    out = F.select(F.greater_equal(wide, 0), wide, F.mul(wide, slope))
    return out if out.dtype is x.dtype else F.cast(out, x.dtype)


def gumbel_softmax(logits, tau=1.0, hard=False, dim=-1):
    """softmax((logits + g) / tau) over `dim`, g drawn from Gumbel(0, 1) (graphcell's random
    state). With hard, the one-hot of its maximum, whose gradient is the soft sample's
    (straight-through)."""
    x = F.as_tensor(logits)
    if x.dtype not in (mstype.float16, mstype.float32):
        raise TypeError(f"For 'gumbel_softmax', the 'logits' should be one of [mindspore.float16, mindspore.float32], "
                        f"but got 'mindspore.{str(x.dtype).lower()}'.")
    if not isinstance(tau, float):
        raise TypeError(f"For 'gumbel_softmax', the type of 'tau' should be 'float', but got type "
                        f"'{type(tau).__name__}'.")
    if tau <= 0:
        raise ValueError(f"For 'gumbel_softmax', the 'tau' must be float and must > 0, but got '{tau}' with type "
                         f"'float'.")
    if not isinstance(hard, bool):
        raise TypeError(f"For 'gumbel_softmax', the type of 'hard' should be 'bool', but got type "
                        f"'{type(hard).__name__}'.")
    if isinstance(dim, bool) or not isinstance(dim, numbers.Integral) or not -x.ndim <= dim < x.ndim:
        raise ValueError(f"For 'gumbel_softmax', the 'dim' must be in range of [{-x.ndim}, {x.ndim}), but got {dim} "
                         f"with type '{type(dim).__name__}'.")
    # -log(-log(u)); u in (0, 1): the tiny floor keeps log finite where a draw is 0
    u = F.uniform(x.shape, dtype=mstype.float32)
    gumbel = F.neg(F.log(F.neg(F.log(F.maximum(u, 1e-20)))))
    soft = F.softmax(F.div(F.add(F.cast(x, mstype.float32), gumbel), tau), dim)
    if hard:
        pick = F.argmax(soft, dim, keepdim=True)
        one_hot = F.cast(F.equal(F.reshape(F.arange(x.shape[dim]), _along(x.ndim, dim)), pick), mstype.float32)
        soft = F.add(F.sub(one_hot, F.stop_gradient(soft)), soft)
    return F.cast(soft, x.dtype)


def _along(ndim: int, axis: int) -> tuple:
    """The shape that puts a vector on `axis` of an ndim-array."""
    shape = [1] * ndim
    shape[axis] = -1
    return tuple(shape)

"""The functional op API: thin wrappers that convert arguments and bind primitives.

Every user-facing op (and every Tensor method) lands here. Wrappers own the conveniences
that primitives do not have: Python scalars, dtype promotion, negative axes, `keepdims`,
`-1` in shapes. Composites (softmax, gelu, pooling helpers) are written with them, so they
decompose into primitives at trace time and every pass sees primitives only.
"""
from __future__ import annotations

import builtins
import functools
import math
import numbers

import numpy as np

from .. import dtype as mstype
from ..dtype import DType, result_dtype, to_dtype
from ..graph_scalar import GraphScalar, weak_dtype
from ..tensor import Parameter, Tensor, host_array
from .complex_guard import refuse_complex_tensors
from .float_scalars import as_passed as _as_passed
from .product_dtypes import check_product_dtypes as _check_product_dtypes
from . import core_prims, elementwise as ew, linalg, nn_prims, random_prims, reductions as red, shape_ops

# -- argument conversion -------------------------------------------------------------------


def as_tensor(x, dtype: DType | None = None) -> Tensor:
    if isinstance(x, Tensor):
        return x if dtype is None or x.dtype is dtype else cast(x, dtype)
    return Tensor(x, dtype)


def _pair(a, b, compare: bool = False) -> tuple[Tensor, Tensor]:
    """Converts two operands; a Python scalar takes the other operand's dtype (weak typing).
    An int the integer operand cannot hold wraps for arithmetic; a comparison or a true division
    (`compare`) widens to Int64 instead, so `int8_tensor < 300` is exact and `int8_tensor / 300`
    is 100 / 300 (MindSpore 2.10, measured)."""
    a_t, b_t = isinstance(a, Tensor), isinstance(b, Tensor)
    if a_t and b_t and (type(a) is GraphScalar) is not (type(b) is GraphScalar):
        # a graph's Python number meets a Tensor: it takes the Tensor's dtype, as the number would
        if type(a) is GraphScalar:
            a = as_tensor(a, weak_dtype(a, b))
        else:
            b = as_tensor(b, weak_dtype(b, a))
    elif a_t and not b_t:
        b = _scalar_like(b, a, compare)
    elif b_t and not a_t:
        a = _scalar_like(a, b, compare)
    elif not a_t and not b_t:
        a, b = as_tensor(a), as_tensor(b)
    if a.dtype is not b.dtype:
        common = result_dtype(a.dtype, b.dtype)
        a, b = as_tensor(a, common), as_tensor(b, common)
    return a, b


def _scalar_like(x, like: Tensor, compare: bool = False) -> Tensor:
    if isinstance(x, numbers.Number) or (isinstance(x, np.ndarray) and x.ndim == 0):
        given = x
        if isinstance(x, (np.generic, np.ndarray)):
            x = x.item()   # numpy scalars and 0-d arrays as the Python numbers they hold
        if isinstance(x, complex):
            raise TypeError(f"a Python complex ({x!r}) with a Tensor is not supported (MindSpore 2.10 refuses it "
                            "too): make it a Tensor first, e.g. Tensor(np.complex64(...))")
        if isinstance(x, int) and not -2 ** 63 <= x < 2 ** 63:
            raise RuntimeError(f"a Python int operand must fit in Int64, got {x} (MindSpore 2.10: 'Unable to cast "
                               "Python instance of type <class 'int'> to C++ type 'long''); make it a float or "
                               "a Tensor first")
        if isinstance(x, float) and not like.dtype.is_inexact:
            return _scalar(x, mstype.float32)
        if isinstance(x, float):
            x = _as_passed(x, like.dtype, given)   # the user's float: float32-rounded first
        if isinstance(x, bool) and like.dtype is not mstype.bool_:
            return _scalar(int(x), like.dtype)
        if like.dtype is mstype.bool_ and isinstance(x, numbers.Integral) and not isinstance(x, bool):
            return _scalar(x, mstype.int64)  # MindSpore 2.10 (measured): a bool Tensor with an int is Int64
        if isinstance(x, numbers.Integral) and like.dtype.np_dtype.kind in "iu":
            if compare and _wrapped_int(int(x), like.dtype.np_dtype) != x:
                return _scalar(x, mstype.int64)
            x = _wrapped_int(int(x), like.dtype.np_dtype)
        return _scalar(x, like.dtype)
    return as_tensor(x)


def _wrapped_int(x: int, np_dtype) -> int:
    """A Python int as the integer dtype holds it: MindSpore 2.10 (measured) wraps one that does
    not fit, as a C cast would (Int8 1 + 300 is 45, UInt8 1 + (-3) is 254)."""
    low, high = _int_bounds(np.dtype(np_dtype))
    if low <= x <= high:
        return x
    return (x - low) % (high - low + 1) + low


@functools.lru_cache(maxsize=None)
def _int_bounds(np_dtype) -> tuple[int, int]:
    """(min, max) of an integer dtype (np.iinfo builds an object a call: this is every scalar
    operand's path)."""
    info = np.iinfo(np_dtype)
    return int(info.min), int(info.max)


def _scalar(x, dtype: DType) -> Tensor:
    """A Python scalar operand as a Tensor; inside a trace, straight away a constant of the
    trace: an eager Tensor would be a device array, read back to the host when the trace
    lifts it (an N=16 training step met 944 of them: 0.2 s of its first call)."""
    from ..frontend.tracer import current_tracer
    tracer = current_tracer()
    if tracer is None:
        return Tensor(x, dtype)
    return Tensor._symbolic(tracer.constant(host_array(x, dtype)))


def _axis(axis: int, ndim: int, name: str = "axis") -> int:
    if not -ndim <= axis < max(ndim, 1):
        from ..frontend.tracer import at_user_line
        raise ValueError(f"{name} {axis} is out of range for a tensor of rank {ndim} "
                         f"(valid: [{-ndim}, {ndim})){at_user_line()}")
    return axis % ndim if ndim else 0


def _axes(axis, ndim: int) -> tuple:
    """Sorted non-negative axes; None and () are every axis (MindSpore's reductions take ()
    for all of them, their default, where numpy would reduce none)."""
    if axis is None or (isinstance(axis, (tuple, list)) and not axis):
        return tuple(range(ndim))
    if isinstance(axis, int):
        axis = (axis,)
    return tuple(sorted(_axis(a, ndim) for a in axis))


# -- elementwise ---------------------------------------------------------------------------

def _binop(prim, compare: bool = False):
    def op(input, other):  # noqa: A002 - MindSpore's names
        x, y = _pair(input, other, compare)
        return prim.bind(x, y)
    op.__name__ = prim.name
    return op


def sub(input, other):  # noqa: A002
    """input - other. Bool operands are refused, as MindSpore's Sub refuses them."""
    x, y = _pair(input, other)
    if x.dtype is mstype.bool_:
        raise TypeError("For primitive[Sub], the input argument[x] must be a type of {Tensor[Complex128], "
                        "Tensor[Complex64], Tensor[Float16], Tensor[Float32], Tensor[Float64], Tensor[Int16], "
                        "Tensor[Int32], Tensor[Int64], Tensor[Int8], Tensor[UInt16], Tensor[UInt32], "
                        "Tensor[UInt64], Tensor[UInt8]}, but got Tensor[Bool] (both operands are Bool). "
                        "For 'x != y' use ops.not_equal(x, y); for arithmetic, cast first: x.astype(graphcell.int32)")
    return ew.sub.bind(x, y)


add = _binop(ew.add)
mul = _binop(ew.mul)
maximum = _binop(ew.maximum)
minimum = _binop(ew.minimum)
equal = _binop(ew.eq, compare=True)
not_equal = _binop(ew.ne, compare=True)
less = _binop(ew.lt, compare=True)
less_equal = _binop(ew.le, compare=True)
greater = _binop(ew.gt, compare=True)
greater_equal = _binop(ew.ge, compare=True)
bitwise_and = _binop(ew.logical_and)   # bitwise on integers, logical on bools (numpy's & | ^)
bitwise_or = _binop(ew.logical_or)
bitwise_xor = _binop(ew.logical_xor)


def pow(input, exponent):  # noqa: A001,A002 - MindSpore's names
    x, y = _pair(input, exponent)
    return ew.pow_.bind(x, y)


def _bools(x) -> Tensor:
    x = as_tensor(x)
    if x.dtype.is_complex:   # nonzero, not cast's real part (2.10: logical_not([0, 1j]) is [True, False])
        return not_equal(x, 0)
    return cast(x, mstype.bool_)


# MindSpore's logical ops take any dtype as bool and give bools.
def logical_and(input, other):  # noqa: A002
    return ew.logical_and.bind(_bools(input), _bools(other))


def logical_or(input, other):  # noqa: A002
    return ew.logical_or.bind(_bools(input), _bools(other))


def logical_xor(input, other):  # noqa: A002
    return ew.logical_xor.bind(_bools(input), _bools(other))


def logical_not(input):  # noqa: A002
    return ew.logical_not.bind(_bools(input))


multiply, lt, le, gt, ge, eq, ne = mul, less, less_equal, greater, greater_equal, equal, not_equal


def subtract(input, other, *, alpha=1):  # noqa: A002
    """input - alpha * other (MindSpore's ops.subtract)."""
    return sub(input, other if alpha == 1 else mul(other, alpha))


def div(input, other, *, rounding_mode=None):  # noqa: A002
    """input / other (MindSpore's ops.div): true division, integers promoted to float32 first;
    rounding_mode 'floor' rounds the quotient down and 'trunc' toward zero, both keeping an
    integer input's dtype (MindSpore 2.10 on CPU has no integer 'floor' kernel: graphcell gives
    numpy's floor_divide there)."""
    if rounding_mode not in (None, "floor", "trunc"):
        raise ValueError(f"div: rounding_mode must be None, 'floor' or 'trunc', got {rounding_mode!r}")
    x, y = _pair(input, other, compare=rounding_mode is None)   # true division: an int is not wrapped
    if rounding_mode == "floor":
        return floor_div(x, y)
    if rounding_mode == "trunc":
        refuse_complex_tensors("trunc", x)
    if rounding_mode == "trunc" and not x.dtype.is_floating:
        q = floor_div(x, y)    # floor, then one up where the exact quotient was negative and inexact
        inexact = logical_and(not_equal(mul(q, y), x), not_equal(less(x, 0), less(y, 0)))
        inexact = logical_and(inexact, not_equal(y, 0))   # q is already saturated there
        return select(inexact, add(q, 1), q)
    if not x.dtype.is_inexact:
        x, y = cast(x, mstype.float32), cast(y, mstype.float32)
    out = ew.div.bind(x, y)
    if rounding_mode == "trunc":
        out = select(less(out, 0), ceil(out), floor(out))
    return out


divide = div


def true_divide(dividend, divisor):
    return div(dividend, divisor)


def floor_div(x, y):
    """floor(x / y); integers stay integers (MindSpore's FloorDiv)."""
    x, y = _pair(x, y)
    if x.dtype.is_floating:
        return floor(ew.div.bind(x, y))
    if x.dtype.is_complex:   # floor of the quotient's real part, imaginary 0 (MindSpore 2.10's FloorDiv, measured)
        from .complex_ops import real
        return cast(floor(real(ew.div.bind(x, y))), x.dtype)
    if x.dtype is mstype.bool_:
        return ew.div.bind(x, y)
    return _saturate_division_by_zero(x, y, ew.div.bind(x, _nonzero_divisor(y)))


def _nonzero_divisor(y):
    """An integer divisor with its zeros made 1: XLA leaves integer division by zero undefined
    (-1 and -2 on CPU) and onnxruntime's Div and Mod fail on it; the callers put MindSpore's
    answer there instead."""
    return select(equal(y, 0), ones_like(y), y)


def _saturate_division_by_zero(x, y, quotient):
    """An integer quotient where y is 0 as MindSpore 2.10's FloorDiv and TruncateDiv give it
    (measured): the dtype's largest value for x > 0, its smallest for x < 0, 0 for 0."""
    info = np.iinfo(x.dtype.np_dtype)
    signed = select(less(x, 0), full_like(quotient, int(info.min)), zeros_like(quotient))
    by_zero = select(greater(x, 0), full_like(quotient, int(info.max)), signed)
    return select(equal(y, 0), by_zero, quotient)


def mod(x, y):
    """Python's and numpy's x % y: the remainder takes y's sign. Floats go through C's
    fmod, which is exact (x - floor(x / y) * y loses the remainder of 1e8 % 3, and XLA's
    fused form of it gave -2)."""
    x, y = _pair(x, y)
    refuse_complex_tensors("floor_mod", x)
    if not x.dtype.is_floating:
        return sub(x, mul(floor_div(x, y), y))
    r = ew.rem.bind(x, y)
    wrong_sign = logical_and(not_equal(r, 0), not_equal(less(r, 0), less(y, 0)))
    return select(wrong_sign, add(r, y), r)


def _unop(prim):
    def op(input):  # noqa: A002 - MindSpore's names
        return prim.bind(as_tensor(input))
    op.__name__ = prim.name
    return op


def _float_unop(prim):
    """A float function MindSpore also takes integers and bools for: they are computed in
    float32 (sqrt(4) is 2.0)."""
    def op(input):  # noqa: A002
        x = as_tensor(input)
        return prim.bind(x if x.dtype.is_inexact else cast(x, mstype.float32))
    op.__name__ = prim.name
    return op


def _rounding(prim):
    """floor/ceil: an integer is its own rounding (MindSpore takes integers)."""
    def op(input):  # noqa: A002
        x = as_tensor(input)
        return x if x.dtype.is_integer else prim.bind(x)
    op.__name__ = prim.name
    return op


neg = _unop(ew.neg)
exp = _float_unop(ew.exp)
log = _float_unop(ew.log)
log1p = _float_unop(ew.log1p)
expm1 = _float_unop(ew.expm1)
rsqrt = _float_unop(ew.rsqrt)
tanh = _float_unop(ew.tanh)
sigmoid = _float_unop(ew.logistic)
sin = _float_unop(ew.sin)
cos = _float_unop(ew.cos)
erf = _float_unop(ew.erf)
abs = _unop(ew.abs_)  # noqa: A001
sign = _unop(ew.sign)
floor = _rounding(ew.floor)
ceil = _rounding(ew.ceil)
bitwise_not = _unop(ew.logical_not)
_sqrt = _float_unop(ew.sqrt)


def sqrt(x):
    return _sqrt(x)   # MindSpore's ops.sqrt names its argument x (exp, log, ... name it input)


def invert(x):
    """Bitwise not of integers, logical not of bools (MindSpore's ops.invert)."""
    return bitwise_not(x)


def round(input, *, decimals=0):  # noqa: A001,A002
    """Rounds half to even (MindSpore's ops.round); with `decimals`, to that many decimal places
    as round(input * 10**decimals) / 10**decimals (torch's formula; MindSpore 2.10's CPU kernel
    takes decimals=0 only). An integer is its own rounding."""
    x = as_tensor(input)
    if not isinstance(decimals, numbers.Integral) or isinstance(decimals, bool):
        raise TypeError(f"round: decimals must be an int, got {decimals!r}")
    if x.dtype.is_integer or x.dtype is mstype.bool_:
        return x
    if decimals == 0:
        return ew.round_.bind(x)
    scale = 10.0 ** int(decimals)
    return div(ew.round_.bind(mul(x, scale)), scale)


def isfinite(input):  # noqa: A002
    """True where `input` is finite: everywhere for integers and bools (MindSpore takes them)."""
    x = as_tensor(input)
    refuse_complex_tensors("isfinite", x)
    return ew.is_finite.bind(x) if x.dtype.is_floating else full_like(x, True, dtype=mstype.bool_)


negative = neg


def square(input):  # noqa: A002
    x = as_tensor(input)
    return mul(x, x)


def reciprocal(input):  # noqa: A002
    return div(1.0, as_tensor(input))


def select(condition, input, other):  # noqa: A002
    """Elementwise `input if condition else other` (MindSpore's ops.select / ops.where); either
    value may be a Python scalar."""
    cond = as_tensor(condition)
    if cond.dtype is not mstype.bool_:
        cond = cast(cond, mstype.bool_)
    x, y = _pair(input, other)
    return ew.select.bind(cond, x, y)


def where(condition, input, other):  # noqa: A002
    return select(condition, input, other)


def clamp(input, min=None, max=None):  # noqa: A002 - MindSpore's names
    """`input` limited to [min, max]; at least one limit (MindSpore's ops.clamp). The gradient
    is 1 from min to max, limits included, as MindSpore 2.10's clamp and Tensor.clip
    (measured); `clip_by_value` and hardtanh share it half and half at a limit instead."""
    x = as_tensor(input)
    if not x.dtype.is_floating:
        return limit(x, min, max, "clamp")
    # x itself wherever it is within the limits, so its gradient there is 1 (a limit too);
    # outside them, the limit (where min > max that is max everywhere, as torch and MindSpore)
    inside = [greater_equal(x, min)] if min is not None else []
    inside += [less_equal(x, max)] if max is not None else []
    # outside, the gradient is the limits' alone: x reaches `limited` through stop_gradient, so
    # a NaN x (outside every limit) has MindSpore's gradient 0, not max's and min's 1
    limited = limit(stop_gradient(x), min, max, "clamp")
    return select(inside[0] if len(inside) == 1 else logical_and(*inside), x, limited)


def limit(x, min=None, max=None, name: str = "clip_by_value"):  # noqa: A002
    """max(x, min), then min(that, max): the values of clamp, with maximum's and minimum's
    gradients (half of it to each side at a limit)."""
    if min is None and max is None:
        raise ValueError(f"{name}: at least one of 'min' and 'max' must be given")
    x = as_tensor(x)
    if min is not None:
        x = maximum(x, min)
    if max is not None:
        x = minimum(x, max)
    return x


def clip_by_value(x, clip_value_min=None, clip_value_max=None):
    """MindSpore's ops.clip_by_value: clamp's values; at a limit the gradient is 0.5 (measured
    on MindSpore 2.10, where clamp's is 1). The result keeps x's dtype (an Int32 x clipped to
    [2.5, 7.5] is Int32 [2, 7], a Float16 one by Float32 limits Float16: measured); a list or
    tuple of tensors is clipped one by one, as a tuple."""
    if isinstance(x, (list, tuple)):
        return tuple(clip_by_value(t, clip_value_min, clip_value_max) for t in x)
    x = as_tensor(x)
    return cast(limit(x, clip_value_min, clip_value_max), x.dtype)


def cast(input, dtype) -> Tensor:  # noqa: A002
    x = as_tensor(input)
    dtype = to_dtype(dtype)
    if x.dtype is dtype:
        return x
    return core_prims.cast.bind(x, dtype=dtype)


def stop_gradient(value):
    return core_prims.stop_gradient.bind(as_tensor(value))


# -- shapes --------------------------------------------------------------------------------

def reshape(input, shape) -> Tensor:  # noqa: A002
    x = as_tensor(input)
    if isinstance(shape, int):
        shape = (shape,)
    shape = [int(d) for d in shape]
    if shape.count(-1) > 1:
        raise ValueError(f"reshape: only one dimension may be -1, got {shape}")
    if -1 in shape:
        known = math.prod(d for d in shape if d != -1)
        if known == 0 or x.size % known:
            raise ValueError(f"reshape: cannot reshape {list(x.shape)} to {shape}")
        shape[shape.index(-1)] = x.size // known
    shape = tuple(shape)
    if shape == x.shape:
        return x
    return shape_ops.reshape.bind(x, shape=shape)


def flatten(input, order="C", *, start_dim=1, end_dim=-1) -> Tensor:  # noqa: A002
    """Axes start_dim..end_dim as one (MindSpore 2.10's ops.flatten, whose start_dim and end_dim
    are keyword-only); `order` 'F' flattens the axes reversed (column-major), as MindSpore does."""
    if order not in ("C", "F"):
        raise TypeError(f"flatten: order must be 'C' or 'F', got {order!r} (start_dim and end_dim are "
                        "keyword-only: flatten(x, start_dim=...))")
    x = as_tensor(input)
    if order == "F":
        x = transpose(x)
    if x.ndim == 0:
        return reshape(x, (1,))
    if x.ndim == 1 and start_dim in (0, 1):  # MindSpore returns a vector as it is
        return x
    s, e = _axis(start_dim, x.ndim), _axis(end_dim, x.ndim)
    if s > e:
        raise ValueError(f"flatten: start_dim {start_dim} comes after end_dim {end_dim} for a tensor of rank {x.ndim}")
    return reshape(x, x.shape[:s] + (math.prod(x.shape[s:e + 1]),) + x.shape[e + 1:])


def transpose(input, dims=None) -> Tensor:  # noqa: A002
    """`input` with its axes in the order `dims` (all reversed when None)."""
    x = as_tensor(input)
    perm = tuple(reversed(range(x.ndim))) if dims is None else tuple(_axis(p, x.ndim) for p in dims)
    if perm == tuple(range(x.ndim)):
        return x
    return shape_ops.transpose.bind(x, perm=perm)


def permute(input, axis) -> Tensor:  # noqa: A002
    """MindSpore's ops.permute: transpose with the axes' new order `axis`."""
    return transpose(input, axis)


def moveaxis(x, source: int, destination: int) -> Tensor:
    x = as_tensor(x)
    source, destination = _axis(source, x.ndim), _axis(destination, x.ndim)
    perm = [a for a in range(x.ndim) if a != source]
    perm.insert(destination, source)
    return transpose(x, perm)


def swapaxes(input, axis0: int, axis1: int) -> Tensor:  # noqa: A002
    x = as_tensor(input)
    perm = list(range(x.ndim))
    a, b = _axis(axis0, x.ndim), _axis(axis1, x.ndim)
    perm[a], perm[b] = perm[b], perm[a]
    return transpose(x, perm)


def squeeze(input, axis=None) -> Tensor:  # noqa: A002
    """Drops the size-1 axes among `axis` (all of them for None or ()); a named axis of another
    size stays, as MindSpore 2.x and torch do."""
    x = as_tensor(input)
    axes = [a for a in _axes(axis, x.ndim) if x.shape[a] == 1]
    return reshape(x, tuple(d for i, d in enumerate(x.shape) if i not in axes))


def expand_dims(input_x, axis: int) -> Tensor:
    x = as_tensor(input_x)
    axis = _axis(axis, x.ndim + 1)
    return reshape(x, x.shape[:axis] + (1,) + x.shape[axis:])


def unsqueeze(input, dim: int) -> Tensor:  # noqa: A002
    return expand_dims(input, dim)


def broadcast_to(input, shape) -> Tensor:  # noqa: A002
    x = as_tensor(input)
    shape = tuple(int(d) for d in shape)
    new = len(shape) - x.ndim
    if new < 0 or -1 in shape[:new]:
        raise ValueError(f"broadcast_to: cannot broadcast {list(x.shape)} to {list(shape)}"
                         + (" (-1 keeps an existing axis' size; a new axis needs its size)" if new >= 0 else ""))
    shape = tuple(x.shape[i - len(shape) + x.ndim] if d == -1 else d for i, d in enumerate(shape))
    if shape == x.shape:
        return x
    dims = tuple(range(len(shape) - x.ndim, len(shape)))
    return shape_ops.broadcast_in_dim.bind(x, shape=shape, dims=dims)


def tile(input, dims) -> Tensor:  # noqa: A002
    """numpy's and MindSpore's tile: `dims` repeats per axis, aligned from the last axis (a
    shorter tuple than the rank repeats the trailing axes; a longer one adds leading axes).
    A broadcast over an interleaved axis per input axis, then one reshape."""
    x = as_tensor(input)
    dims = _shape_arg(dims)
    if builtins.any(d < 0 for d in dims):
        raise ValueError(f"tile: dims must be non-negative, got {dims}")
    rank = builtins.max(len(dims), x.ndim)
    dims = (1,) * (rank - len(dims)) + dims
    x = reshape(x, (1,) * (rank - x.ndim) + x.shape)
    interleaved = tuple(s for pair in zip(dims, x.shape) for s in pair)
    spread = broadcast_to(reshape(x, tuple(s for d in x.shape for s in (1, d))), interleaved)
    return reshape(spread, tuple(d * s for d, s in zip(dims, x.shape)))


def repeat_interleave(input, repeats, axis=None) -> Tensor:  # noqa: A002
    """numpy's `repeat`: each element `repeats` times along `axis` (the flattened tensor when
    None); `repeats` an int, or one count per element along the axis."""
    x = as_tensor(input)
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
    axis = _axis(axis, x.ndim)
    if isinstance(repeats, Tensor):
        repeats = repeats.tolist()
    if isinstance(repeats, numbers.Integral) or (isinstance(repeats, (list, tuple)) and len(repeats) == 1):
        count = int(repeats if isinstance(repeats, numbers.Integral) else repeats[0])
        if count < 0:
            raise ValueError(f"repeat: repeats must be non-negative, got {count}")
        spread = broadcast_to(expand_dims(x, axis + 1), x.shape[:axis + 1] + (count,) + x.shape[axis + 1:])
        return reshape(spread, x.shape[:axis] + (x.shape[axis] * count,) + x.shape[axis + 1:])
    counts = [int(r) for r in repeats]
    if len(counts) != x.shape[axis] or builtins.any(c < 0 for c in counts):
        raise ValueError(f"repeat: repeats needs one non-negative count per element of axis {axis} "
                         f"({x.shape[axis]}), got {list(repeats)}")
    return take_in_range(x, Tensor(np.repeat(np.arange(len(counts)), counts), mstype.int64), axis)


def repeat_elements(x, rep: int, axis: int = 0) -> Tensor:
    """MindSpore's `ops.repeat_elements`: each slice along `axis` `rep` times."""
    return repeat_interleave(x, int(rep), axis)


def concat(tensors, axis: int = 0) -> Tensor:
    tensors = [as_tensor(t) for t in tensors]
    if not tensors:
        raise ValueError("concat: needs at least one tensor, got an empty sequence")
    common = result_dtype(*[t.dtype for t in tensors])
    tensors = [cast(t, common) for t in tensors]
    if len(tensors) == 1:
        return tensors[0]
    return shape_ops.concatenate.bind(*tensors, axis=_axis(axis, tensors[0].ndim))


cat = concatenate = concat


def stack(tensors, axis: int = 0) -> Tensor:
    tensors = [as_tensor(t) for t in tensors]
    axis = _axis(axis, tensors[0].ndim + 1)
    return concat([expand_dims(t, axis) for t in tensors], axis)


def unstack(input_x, axis: int = 0) -> list:
    x = as_tensor(input_x)
    axis = _axis(axis, x.ndim)
    return [squeeze(slice_axis(x, axis, i, i + 1), axis) for i in range(x.shape[axis])]


def slice_axis(x, axis: int, start: int, stop: int, step: int = 1) -> Tensor:
    x = as_tensor(x)
    starts, limits, strides = [0] * x.ndim, list(x.shape), [1] * x.ndim
    starts[axis], limits[axis], strides[axis] = start, stop, step
    if starts == [0] * x.ndim and limits == list(x.shape) and step == 1:
        return x
    return shape_ops.slice_.bind(x, start=tuple(starts), limit=tuple(limits), strides=tuple(strides))


def split(tensor, split_size_or_sections, axis: int = 0) -> tuple:
    x = as_tensor(tensor)
    axis = _axis(axis, x.ndim)
    n = x.shape[axis]
    if isinstance(split_size_or_sections, int):
        if split_size_or_sections <= 0:
            raise ValueError(f"split: split_size_or_sections must be a positive int, got {split_size_or_sections}")
        sizes = [split_size_or_sections] * (n // split_size_or_sections)
        if n % split_size_or_sections:
            sizes.append(n % split_size_or_sections)
    else:
        sizes = [int(s) for s in split_size_or_sections]
        if builtins.sum(sizes) != n or builtins.any(s < 0 for s in sizes):
            raise ValueError(f"split: the sections {sizes} must be non-negative and add up to axis {axis}'s "
                             f"size {n}")
    out, start = [], 0
    for s in sizes:
        out.append(slice_axis(x, axis, start, start + s))
        start += s
    return tuple(out)


_PAD_MODES = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}  # numpy's names


def pad(input_x, padding, mode="constant", value=None) -> Tensor:
    """MindSpore's ops.pad. `padding`: flat ints from the last axis back, (left, right, top,
    bottom, ...) (ops.pad's and torch's form), or one (before, after) pair per axis from the
    first axis (ops.Pad's form). `mode` 'constant' fills with `value` (0 when None; negative
    amounts crop), 'reflect' mirrors without repeating the edge, 'replicate' repeats the edge,
    'circular' wraps around (torch's modes, on any axes: MindSpore 2.10's CPU kernels take
    'replicate' on 3-d and larger inputs only)."""
    x = as_tensor(input_x)
    if not isinstance(mode, str) or mode not in ("constant",) + tuple(_PAD_MODES):
        raise ValueError(f"pad: mode must be 'constant', 'reflect', 'replicate' or 'circular', got {mode!r} "
                         "(the fill value is the keyword `value`)")
    paddings = list(padding)
    if paddings and builtins.all(isinstance(p, numbers.Integral) for p in paddings):
        if len(paddings) % 2 or len(paddings) // 2 > x.ndim:
            raise ValueError(f"pad: flat paddings come in (before, after) pairs from the last axis, at most "
                             f"{x.ndim} of them for a tensor of rank {x.ndim}; got {tuple(paddings)}")
        flat = [(paddings[i], paddings[i + 1]) for i in range(0, len(paddings), 2)]
        paddings = [(0, 0)] * (x.ndim - len(flat)) + flat[::-1]
    if len(paddings) > x.ndim:
        raise ValueError(f"pad: {len(paddings)} (before, after) pairs for a tensor of rank {x.ndim}")
    pairs = [tuple(int(a) for a in p) for p in paddings] + [(0, 0)] * (x.ndim - len(paddings))
    if mode != "constant":
        if value is not None:
            raise ValueError(f"pad: value is for mode 'constant' only, got value={value!r} with mode {mode!r}")
        return _pad_by_index(x, pairs, mode)
    fill = 0 if value is None else value
    return shape_ops.pad.bind(x, Tensor(fill, x.dtype), lo=tuple(p[0] for p in pairs),
                              hi=tuple(p[1] for p in pairs))


def _pad_by_index(x: Tensor, pairs: list, mode: str) -> Tensor:
    """Reflect, replicate or circular padding: per padded axis, one gather of the source
    positions numpy's pad gives (the positions are static)."""
    for axis, (lo, hi) in enumerate(pairs):
        if lo == hi == 0:
            continue
        n = x.shape[axis]
        if lo < 0 or hi < 0:
            raise ValueError(f"pad: mode {mode!r} takes non-negative padding, got ({lo}, {hi}) for axis {axis}")
        if mode == "reflect" and builtins.max(lo, hi) >= n:
            raise ValueError(f"pad: mode 'reflect' needs padding smaller than the axis, got ({lo}, {hi}) for "
                             f"axis {axis} of size {n}")
        if n == 0:
            raise ValueError(f"pad: mode {mode!r} cannot pad an empty axis ({axis})")
        source = np.pad(np.arange(n, dtype=np.int32), (lo, hi), mode=_PAD_MODES[mode])
        x = take_in_range(x, Tensor(source), axis)
    return x


def gather(input_params, input_indices, axis: int = 0, batch_dims: int = 0) -> Tensor:
    """MindSpore's ops.gather: input_params' slices at `input_indices` along `axis`; a negative
    index counts from the end, one out of range is clipped to it (as XLA's gathers do; MindSpore
    raises). With `batch_dims` b, the first b axes of both are batch axes, paired up rather than
    crossed: out[b..., i..., rest...] = params[b..., :, ...][indices[b..., i...]]."""
    x, indices = as_tensor(input_params), as_tensor(input_indices)
    axis = _axis(axis, x.ndim)
    if not indices.dtype.is_integer:
        raise TypeError(f"gather: input_indices must be integers, got {indices.dtype}")
    if indices.dtype.np_dtype.kind == "i":   # the size as a node: a dynamic axis' counts at run time
        indices = select(less(indices, 0), add(indices, element_count(x, axis, indices.dtype)), indices)
    if batch_dims:
        return _batched_gather(x, indices, axis, batch_dims)
    return take_in_range(x, indices, axis)


def _batched_gather(x: Tensor, indices: Tensor, axis: int, b: int) -> Tensor:
    """gather with b batch axes: the batch axes become one of size B, the members' rows at
    `axis` are laid end to end and the indices offset per member (one gather)."""
    b = _axis(b, indices.ndim + 1, "batch_dims")
    if not b <= axis or x.shape[:b] != indices.shape[:b]:
        raise ValueError(f"gather: batch_dims {b} needs axis >= batch_dims and equal leading axes, got axis "
                         f"{axis}, input_params {list(x.shape)} and input_indices {list(indices.shape)}")
    count, size = math.prod(x.shape[:b]), x.shape[axis]
    rest = x.shape[b:axis] + x.shape[axis + 1:]
    rows = reshape(moveaxis(x, axis, b), (count * size,) + rest)              # [B * A, rest...]
    idx = reshape(clamp(indices, 0, size - 1), (count,) + indices.shape[b:])
    offsets = Tensor(np.arange(count).reshape((count,) + (1,) * (idx.ndim - 1)) * size, idx.dtype)
    out = take_in_range(rows, add(idx, offsets), 0)                           # [B, I..., rest...]
    ni, pre = indices.ndim - b, axis - b
    perm = [0] + list(range(1 + ni, 1 + ni + pre)) + list(range(1, 1 + ni)) + list(range(1 + ni + pre, out.ndim))
    return reshape(transpose(out, perm), x.shape[:b] + out.shape[1 + ni:1 + ni + pre] + indices.shape[b:]
                   + x.shape[axis + 1:])


def take_in_range(x, indices, axis: int) -> Tensor:
    """gather for indices already in [0, size) (getitem's, repeat's, the layers'): no wrapping of
    negative ones."""
    return shape_ops.take.bind(x, indices, axis=axis)


def take(input, index) -> Tensor:  # noqa: A002
    """MindSpore's ops.take (torch.take): the elements of the flattened `input` at `index`, in
    `index`'s shape; a negative index counts from the end, one out of range is clipped.
    (MindSpore 2.10 documents it; its CPU build has no Take kernel.)"""
    return gather(reshape(input, (-1,)), index, 0)


def gather_elements(input, dim: int, index) -> Tensor:  # noqa: A002
    """out[i][j][k] = input[index[i][j][k]][j][k] for dim 0 (MindSpore's ops.gather_elements;
    index has input's rank)."""
    x, index = as_tensor(input), as_tensor(index)
    if not index.dtype.is_integer:
        raise TypeError(f"gather_elements: index must be integers, got {index.dtype}")
    if index.ndim != x.ndim:
        raise ValueError(f"gather_elements: index must have input's rank {x.ndim}, got shape {list(index.shape)}")
    dim = _axis(dim, x.ndim, "dim")
    return shape_ops.take_along_axis.bind(_along_index(x, index.shape, dim, "gather_elements"), index, axis=dim)


def _along_index(x: Tensor, index_shape: tuple, axis: int, name: str) -> Tensor:
    """`x` cut to an index's size on every axis but `axis` (MindSpore's gather_elements and
    scatter take an index smaller than the input there, and no larger)."""
    if builtins.any(i > d for a, (i, d) in enumerate(zip(index_shape, x.shape)) if a != axis):
        raise ValueError(f"{name}: index shape {list(index_shape)} must not exceed the input's "
                         f"{list(x.shape)} on any axis but {axis}")
    limits = tuple(d if a == axis else i for a, (i, d) in enumerate(zip(index_shape, x.shape)))
    if limits == x.shape:
        return x
    return shape_ops.slice_.bind(x, start=(0,) * x.ndim, limit=limits, strides=(1,) * x.ndim)


def one_hot(indices, depth: int, on_value=1, off_value=0, axis: int = -1, *, dtype=None) -> Tensor:
    """MindSpore's ops.one_hot: on_value where indices equals the class, off_value elsewhere,
    the class axis at `axis`; indices outside [0, depth) give a row of off_value. The output
    has on_value's dtype (the defaults 1 and 0 give int64, as measured on MindSpore 2.10)
    unless `dtype` (graphcell's) is given."""
    indices = as_tensor(indices)
    dtype = to_dtype(dtype) if dtype is not None else as_tensor(on_value).dtype
    classes = Tensor(np.arange(depth), indices.dtype)
    hot = equal(expand_dims(indices, -1), classes)
    out = select(hot, cast(on_value, dtype), cast(off_value, dtype))
    return out if axis == -1 else moveaxis(out, -1, axis)


def getitem(x: Tensor, index) -> Tensor:
    """numpy's indexing: ints, slices (negative steps too), None, Ellipsis, and integer arrays
    (Tensors, lists, ndarrays; negative entries count from the end). Several arrays, and ints
    beside them, broadcast together and pick elements (`logits[rows, labels]`: one per row);
    their dimensions go where the first one stood when they are adjacent, else in front."""
    x = as_tensor(x)
    index = _expanded(index, x.ndim)
    advanced_ints = builtins.any(isinstance(i, Tensor) for i in index)   # ints join the arrays (numpy)
    reversed_axes = _reversed_axes(index, x.shape)
    if reversed_axes:
        x = shape_ops.rev.bind(x, axes=reversed_axes)
    starts, limits, strides, out_shape, axis = [], [], [], [], 0
    arrays = []          # (output position, indices)
    for item in index:
        if item is None:
            out_shape.append(1)
            continue
        size = x.shape[axis]
        if isinstance(item, slice):
            _note_bounds_beyond(item, axis, size)
            start, stop, step = _forward_slice(item, size, axis in reversed_axes)
            # The slice's own bounds (x[::2]'s end is the axis' end, not its last element's),
            # so that an export with a dynamic axis sees them fixed or relative to the end.
            n = len(range(start, stop, step))
            s, e, st = (0, 0, 1) if n == 0 else (start, stop, step)
            starts.append(s), limits.append(e), strides.append(st)
            out_shape.append(n)
        elif isinstance(item, Tensor) or advanced_ints:
            arrays.append((len(out_shape), _wrapped(item, x, axis)))
            starts.append(0), limits.append(size), strides.append(1)
            out_shape.append(size)
        else:
            i = int(item)
            if not -size <= i < size:
                raise IndexError(f"index {i} is out of bounds for dimension with size {size}")   # 2.10's words
            i %= size
            starts.append(i), limits.append(i + 1), strides.append(1)
        axis += 1
    out = x
    if (starts, limits, strides) != ([0] * x.ndim, list(x.shape), [1] * x.ndim):
        out = shape_ops.slice_.bind(x, start=tuple(starts), limit=tuple(limits), strides=tuple(strides))
    out = reshape(out, tuple(out_shape))
    if len(arrays) == 1:
        return take_in_range(out, arrays[0][1], arrays[0][0])
    return _advanced(out, arrays) if arrays else out


def _note_bounds_beyond(item: slice, axis: int, size: int) -> None:
    """Tells the active traces about a bound beyond the axis (x[:100] or x[-100:] of 8 rows,
    all of them): traced, it is no slice at all, which an export with that axis dynamic must
    not take for the whole axis. A bound of exactly the size (x[:n]) is the whole axis."""
    beyond = [int(b) for b in (item.start, item.stop)
              if b is not None and not isinstance(b, Tensor) and not -size <= b <= size]
    if not beyond:   # the usual case, checked first: getitem is on every eager path
        return
    from ..frontend.tracer import current_tracer, note_clamped_slice
    if current_tracer() is not None:
        for bound in beyond:
            note_clamped_slice(axis, bound, size)


def _reversed_axes(index: tuple, shape: tuple) -> tuple:
    """The axes of x that an expanded index slices with a negative step (and picks from)."""
    real = [i for i in index if i is not None]
    return tuple(a for a, i in enumerate(real) if isinstance(i, slice) and i.step is not None
                 and i.step < 0 and len(range(*i.indices(shape[a]))) > 0)


def _forward_slice(item: slice, size: int, reversed_: bool) -> tuple:
    """(start, stop, step) of `item` over an axis of `size`; for a negative step, over the axis
    reversed: numpy's x[a:b:-k] is rev(x)[size-1-a : size-1-b : k]."""
    start, stop, step = item.indices(size)
    if not reversed_:
        return start, stop, step
    return size - 1 - start, size - 1 - stop, -step


def _expanded(index, rank: int) -> tuple:
    """An index as a tuple with one item per axis (Ellipsis filled in, trailing axes whole)
    and Nones where it inserts axes; lists and ndarrays become integer Tensors."""
    index = index if isinstance(index, tuple) else (index,)
    index = tuple(item for i in index for item in _index_items(i))
    n_real = builtins.sum(1 for i in index if i is not None and i is not Ellipsis)
    if n_real > rank:
        raise IndexError(f"too many indices ({n_real}) for a tensor of rank {rank}")
    at = next((k for k, i in enumerate(index) if i is Ellipsis), None)
    fill = (slice(None),) * (rank - n_real)
    return index[:at] + fill + index[at + 1:] if at is not None else index + fill


def setitem(x: Tensor, index, value) -> Tensor:
    """`x` with `x[index]` replaced by `value` (broadcast to `x[index]`'s shape; where an index
    repeats, the last write wins, as in numpy). Ints, slices, None and Ellipsis: see
    `_setitem_basic`; a bool Tensor: `_setitem_by_mask`; integer Tensors, lists and ndarrays:
    `_setitem_by_tensor` (a list's elements are checked against x's shape here, numpy's
    IndexError, and where they cannot collide at any size the writes need no comparing). Bool
    lists and ndarrays, whose length is the axis' size, and eagerly lists and strided slices:
    which elements the index writes is worked out here, once, and the new tensor is a select
    between `x` and the values taken to their places."""
    from ..frontend.tracer import current_tracer
    x = as_tensor(x)
    items = index if isinstance(index, tuple) else (index,)
    if builtins.any(isinstance(i, Tensor) and i.dtype is mstype.bool_ for i in items):
        return _setitem_by_mask(x, items, value)
    if builtins.any(isinstance(i, Tensor) for i in items):
        return _setitem_by_tensor(x, _expanded(items, x.ndim), value)
    # Eagerly no graph is exported, and the positions worked out in numpy take a few ops where
    # the forms that follow a dynamic batch take 10-20 (list and strided writes: 2-5x the time).
    eager = current_tracer() is None
    strided = builtins.any(isinstance(i, slice) and i.step not in (None, 1, -1) for i in items)
    if builtins.all(_is_basic(i) for i in items) and not (eager and strided):
        return _setitem_basic(x, _expanded(items, x.ndim), value)
    arrays = [np.asarray(i) for i in items if isinstance(i, (list, np.ndarray))]
    if not eager and builtins.all(a.dtype.kind in "iu" for a in arrays):
        _indexed_shape(x.shape, items)   # numpy's IndexError for an index out of bounds
        return _setitem_by_tensor(x, _expanded(items, x.ndim), value, distinct=_distinct_writes(items))
    positions = np.arange(x.size, dtype=np.int64).reshape(x.shape)[index]
    value = _assignable(value, positions.shape)
    if positions.size == 0:
        return x
    values = reshape(broadcast_to(cast(value, x.dtype), positions.shape), (-1,))
    source = np.zeros(x.size, np.int32)
    source[positions.ravel()] = np.arange(positions.size, dtype=np.int32)   # the last write wins
    written = np.zeros(x.size, np.bool_)
    written[positions.ravel()] = True
    flat = select(Tensor(written), take_in_range(values, Tensor(source), 0), reshape(x, (-1,)))
    return reshape(flat, x.shape)


def _distinct_writes(items: tuple) -> bool:
    """Whether an index of integer lists and ndarrays (and ints beside them, which numpy
    broadcasts with them) names distinct elements at every size of x: no index repeats and no
    axis mixes indices from the start with indices from the end (-1 and 4 are one row of 5)."""
    picks = [np.asarray(i) for i in items if isinstance(i, (list, np.ndarray))
             or (isinstance(i, numbers.Integral) and not isinstance(i, (bool, np.bool_)))]
    try:
        rows = np.stack([a.ravel() for a in np.broadcast_arrays(*picks)], 1)
    except ValueError:
        return False     # shapes that do not broadcast: _setitem_by_tensor says so
    mixed = builtins.any((col < 0).any() and (col >= 0).any() for col in rows.T)
    return not mixed and len(np.unique(rows, axis=0)) == len(rows)


def _is_basic(item) -> bool:
    """An index item that picks a box: an int, a slice, None or Ellipsis (not a bool)."""
    return item is None or item is Ellipsis or isinstance(item, slice) or (
        isinstance(item, numbers.Integral) and not isinstance(item, (bool, np.bool_)))


def _setitem_basic(x: Tensor, index: tuple, value) -> Tensor:
    """`x[index] = value` for ints, slices, None and Ellipsis, which write a box: the new tensor
    is select(mask, value, x), the mask the product of one mask per constrained axis, each a
    run of True padded with False (a strided slice's computed from the axis' positions,
    `_strided_hits`), and the value laid out on x's axes: padded to its place along the slices
    it spans (reversed first for a negative step; gathered for a strided one), left at size 1
    where it broadcasts. Pads and positions, not constants of x's size, so that an export with
    a dynamic batch computes `x[0] = v`, `x[-1] = v`, `x[1:] = v` and `x[::2] = v` at run time."""
    value = cast(_assignable(value, _indexed_shape(x.shape, index)), x.dtype)
    target_rank = builtins.sum(1 for i in index if i is None or isinstance(i, slice))
    v_shape = (1,) * (target_rank - value.ndim) + tuple(value.shape)
    on_axes, t = [], 0                 # the value's size on each axis of x
    for item in index:
        if item is None or isinstance(item, slice):
            if item is not None:
                on_axes.append(v_shape[t])
            t += 1
        else:
            on_axes.append(1)
    value = reshape(value, tuple(on_axes))
    mask, real = None, [i for i in index if i is not None]
    for axis, (item, n) in enumerate(zip(real, x.shape)):
        if isinstance(item, slice):
            picked = range(*item.indices(n))
        else:
            i = int(item)
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")
            picked = range(i % n, i % n + 1)
        if len(picked) == 0:
            return x
        first, last = builtins.min(picked[0], picked[-1]), builtins.max(picked[0], picked[-1])
        if builtins.abs(picked.step) == 1:
            if value.shape[axis] != 1:
                if picked.step < 0:
                    value = shape_ops.rev.bind(value, axes=(axis,))
                value = _pad_axis(value, axis, first, n - 1 - last, 0)
            if first == 0 and last == n - 1:
                continue                                       # the whole axis
            line = _pad_axis(broadcast_to(Tensor(True), (len(picked),)), 0, first, n - 1 - last, False)
        else:
            line, source = _strided_hits(x, axis, item)
            if value.shape[axis] != 1:   # (one element more: ONNX cannot gather from the empty
                # value of a slice that is empty at some batch sizes, x[1::2] of one row)
                value = take_in_range(_pad_axis(value, axis, 0, 1, 0), source, axis)
        line = reshape(line, tuple(n if a == axis else 1 for a in range(x.ndim)))
        mask = line if mask is None else logical_and(mask, line)
    if mask is None:                                           # every element is written
        return broadcast_to(value, x.shape)
    return select(mask, value, x)


def _positions(x: Tensor, axis: int) -> Tensor:
    """0, 1, ..., n - 1 (int32 [n]) for `axis` of x: in a trace a cumsum over ones, not a
    constant, so that an ONNX export with a dynamic axis counts them at run time (XLA folds
    it); eagerly, where nothing is exported, the constant."""
    from ..frontend.tracer import current_tracer
    from .sorting import cumsum_p
    if current_tracer() is None:
        return Tensor(np.arange(x.shape[axis], dtype=np.int32))
    ones = broadcast_to(Tensor(1, mstype.int32), (x.shape[axis],))
    return sub(cumsum_p.bind(ones, axis=0, reverse=False), 1)


def _strided_hits(x: Tensor, axis: int, item: slice) -> tuple:
    """For `x[..., item, ...] = v` with a strided slice on `axis`: which positions of the axis
    it writes (bool [n]) and, for each, the index of its value along the slice (int32 [n]).
    Computed from the positions 0..n-1 and the axis' size as nodes, a bound counted from the
    end as numpy counts it, so that an export with a dynamic axis writes the right rows at
    every size (x[::2] = v writes rows 0, 2, 4 of 5 and 0, 2 of 4)."""
    i = _positions(x, axis)
    count = element_count(x, axis, mstype.int32)
    at = lambda bound: Tensor(bound, mstype.int32) if bound >= 0 else add(count, bound)  # noqa: E731
    step = item.step
    if step > 0:   # from the start (clamped at 0) up to the stop
        first = Tensor(0, mstype.int32) if item.start is None else maximum(at(item.start), 0)
        offset = sub(i, first)
        inside = None if item.stop is None else less(i, at(item.stop))
    else:          # from the start (clamped at n - 1) down to the stop
        step = -step
        last = sub(count, 1)
        first = last if item.start is None else minimum(at(item.start), last)
        offset = sub(first, i)
        inside = None if item.stop is None else greater(i, at(item.stop))
    hits = logical_and(greater_equal(offset, 0), equal(ew.rem.bind(offset, Tensor(step, mstype.int32)), 0))
    hits = hits if inside is None else logical_and(hits, inside)
    return hits, floor_div(maximum(offset, 0), Tensor(step, mstype.int32))


def _pad_axis(x: Tensor, axis: int, before: int, after: int, value) -> Tensor:
    if before == after == 0:
        return x
    return shape_ops.pad.bind(x, Tensor(value, x.dtype), lo=tuple(before if a == axis else 0 for a in range(x.ndim)),
                              hi=tuple(after if a == axis else 0 for a in range(x.ndim)))


def _setitem_by_mask(x: Tensor, items: tuple, value) -> Tensor:
    """`x[mask] = value` with a bool Tensor `mask` over some axes of x (x[x > 0] = 0, or
    x[:, m] = v beside full slices): select(mask, value, x). As in MindSpore's graph mode, the
    value must be the same for every selected position (a scalar, or the shape of the axes
    after the mask): one value per selected element has a data-dependent shape."""
    at = next(k for k, i in enumerate(items) if isinstance(i, Tensor))
    mask, before, after = items[at], items[:at], items[at + 1:]
    whole = lambda i: i is Ellipsis or (isinstance(i, slice) and i == slice(None))  # noqa: E731
    if not builtins.all(whole(i) for i in before + after) or (before + after).count(Ellipsis) > 1:
        raise IndexError("x[mask] = value: a bool mask can stand beside full slices (:) and one Ellipsis only")
    lead = x.ndim - mask.ndim - len(after) if Ellipsis in before else len(before)
    if lead < 0 or tuple(x.shape[lead:lead + mask.ndim]) != tuple(mask.shape):
        raise IndexError(f"x[mask] = value: the mask's shape {list(mask.shape)} does not match x's axes from "
                         f"{lead} on (x has shape {list(x.shape)})")
    tail = tuple(x.shape[lead + mask.ndim:])
    value = as_tensor(value)
    per_element = tuple(x.shape[:lead]) + (1,) + tail   # x[mask]'s shape for one selected element
    if not _broadcasts_to(value.shape, per_element):
        raise ValueError(f"x[mask] = value: a value of shape {list(value.shape)} cannot be assigned: it must "
                         f"broadcast to {list(per_element)}, the same for every selected element (one value "
                         "per selected element would have a data-dependent shape)")
    value = cast(value, x.dtype)
    if value.ndim > len(tail):   # the selected elements' axis (size 1) becomes the mask's axes
        front = tuple(value.shape[:value.ndim - len(tail) - 1])
        value = reshape(value, front + (1,) * mask.ndim + tail)
    return select(reshape(mask, (1,) * lead + tuple(mask.shape) + (1,) * len(tail)), value, x)


def _setitem_by_tensor(x: Tensor, index: tuple, value, distinct: bool = False) -> Tensor:
    """`x[index] = value` where integer Tensors (and ints beside them, as numpy counts them)
    pick along some axes: which elements they name is known only when the graph runs. Those
    axes move to the front as one axis of their combined size S and the indices become one flat
    index f of K entries; each write that a later one overwrites is dropped (a K x K
    comparison, skipped when the caller knows the writes are `distinct`), so is each write out
    of range (an index list of the example's batch, in an export run at a smaller one), and a
    scatter-add of the survivors' order numbers tells each of the S positions its writer (0:
    none). Positions gather their writer's value; the slices on the other axes pick the region
    that changes."""
    real = [i for i in index if i is not None]
    picked_axes = [a for a, i in enumerate(real) if not isinstance(i, slice)]
    others = [a for a in range(x.ndim) if a not in picked_axes]
    sizes = [x.shape[a] for a in picked_axes]
    wrapped = [_wrapped(real[a], x, a) for a in picked_axes]
    flat, shape = _flat_index(wrapped, x, picked_axes)
    count, total = math.prod(shape), math.prod(sizes)
    flat = reshape(flat, (count,))
    inside = None   # [K]: the write's indices are in range (an int beside them was checked)
    for w, a in zip(wrapped, picked_axes):
        if isinstance(real[a], Tensor):
            ok = logical_and(greater_equal(w, 0), less(w, element_count(x, a, w.dtype)))
            inside = ok if inside is None else logical_and(inside, ok)
    if inside is not None:
        inside = reshape(broadcast_to(inside, shape), (count,))
    # The values, laid out as [K, the other axes' slices...]: x[index] puts the broadcast index
    # shape where the first array stood when the arrays are adjacent in the index, else in front.
    written_shape = _indexed_shape(x.shape, index)
    value = broadcast_to(cast(_assignable(value, written_shape), x.dtype), written_shape)
    first = next(k for k, i in enumerate(index) if i is not None and not isinstance(i, slice))
    last = max(k for k, i in enumerate(index) if i is not None and not isinstance(i, slice))
    adjacent = builtins.all(i is not None and not isinstance(i, slice) for i in index[first:last + 1])
    at = builtins.sum(1 for i in index[:first] if i is None or isinstance(i, slice)) if adjacent else 0
    nb = len(shape)
    value = transpose(value, list(range(at, at + nb)) + list(range(at)) + list(range(at + nb, value.ndim)))
    slices = tuple(real[a] for a in others)
    region_shape = tuple(len(range(*s.indices(x.shape[a]))) for s, a in zip(slices, others))
    if count == 0 or 0 in region_shape:
        return x
    value = reshape(value, (count,) + region_shape)
    # The last write to each position wins: drop every write a later one repeats. The order
    # numbers 1..K are a cumsum, not a constant: K follows the batch when the index does.
    from .sorting import cumsum_p
    order = cumsum_p.bind(ones_like(flat, mstype.float32), axis=0, reverse=False)
    if not distinct:
        later = less(expand_dims(order, 1), expand_dims(order, 0))
        if inside is not None:    # a write out of range overwrites nothing
            later = logical_and(later, expand_dims(inside, 0))
        repeated = any(logical_and(equal(expand_dims(flat, 1), expand_dims(flat, 0)), later), 1)
        order = select(repeated, Tensor(0, mstype.float32), order)
    if inside is not None:
        order = select(inside, order, Tensor(0, mstype.float32))
    writer = shape_ops.scatter_add.bind(broadcast_to(Tensor(0, mstype.float32), (total,)), flat, order, axis=0)
    writer = stop_gradient(cast(writer, mstype.int32))                    # [S]: writer's order, or 0
    moved = reshape(transpose(x, picked_axes + others), (total,) + tuple(x.shape[a] for a in others))
    region = getitem(moved, (slice(None),) + slices)                      # [S, region...]
    taken = take_in_range(value, maximum(sub(writer, 1), 0), 0)
    written = reshape(greater(writer, 0), (total,) + (1,) * len(others))
    region = select(written, taken, region)
    if builtins.any(s != slice(None) for s in slices):
        region = setitem(moved, (slice(None),) + slices, region)
    moved_shape = tuple(x.shape[a] for a in picked_axes + others)
    return transpose(reshape(region, moved_shape), list(np.argsort(picked_axes + others)))


def _indexed_shape(shape: tuple, index: tuple) -> tuple:
    """x[index]'s shape, Tensors standing for index arrays of their shape (numpy's rules)."""
    dummy = np.lib.stride_tricks.as_strided(np.zeros(1, np.bool_), shape, (0,) * len(shape))
    stand_ins = tuple(np.zeros(i.shape, np.intp) if isinstance(i, Tensor) else i for i in index)
    return dummy[stand_ins].shape


def _broadcasts_to(shape: tuple, target: tuple) -> bool:
    """Whether an array of `shape` broadcasts to exactly `target`."""
    try:
        return np.broadcast_shapes(tuple(shape), tuple(target)) == tuple(target)
    except ValueError:
        return False


def _assignable(value, shape: tuple) -> Tensor:
    """An assignment's value as a Tensor, once it is known to broadcast to x[index]'s shape."""
    value = as_tensor(value)
    if not _broadcasts_to(value.shape, shape):
        raise ValueError(f"x[index] = value: a value of shape {list(value.shape)} cannot be broadcast to "
                         f"x[index]'s shape {list(shape)}")
    return value


def _index_items(item) -> tuple:
    """One index item as the items `_expanded` works with (MindSpore 2.10's rules, measured):
    an array as an integer Tensor; a bool mask, eagerly (or in an eager grad, which knows its
    value), as the integer Tensors of its nonzero positions (numpy's x[mask] is
    x[mask.nonzero()]); True as None (a new axis of 1); False and floats are IndexErrors."""
    if isinstance(item, (bool, np.bool_)):
        if not item:
            raise IndexError("When tensor is indexed by a bool object, the value only support 'True'.")
        return (None,)
    if isinstance(item, (float, np.floating)):
        raise IndexError("Only support integers, slices(`:`), ellipsis(`...`), None, bool, tensor, int, list "
                         f"and tuple as index, but got {item} with type {type(item)}")
    if not isinstance(item, (Tensor, list, np.ndarray)):
        return (item,)
    idx = as_tensor(item)
    if idx.dtype is mstype.bool_ and idx.is_symbolic:
        from ..frontend.concrete import resolved
        idx = resolved(idx)   # an eager grad's mask has this call's value (2.10's PYNATIVE indexes by it)
    if idx.dtype is mstype.bool_ and not idx.is_symbolic:
        return tuple(Tensor(np.asarray(p, np.int64)) for p in np.nonzero(np.asarray(idx._payload)))
    return (_index_array(idx),)


def _index_array(item) -> Tensor:
    idx = as_tensor(item)
    if idx.dtype is mstype.bool_:
        raise TypeError("boolean-mask indexing has a data-dependent shape and is not supported in "
                        "graph mode (jit, vmap, grad); use ops.select(mask, x, 0) instead")
    if not idx.dtype.is_integer:
        raise IndexError(f"array indices must be integers, got {idx.dtype}")
    return idx


def _wrapped(item, x: Tensor, axis: int) -> Tensor:
    """Integer indices into `axis` of x, negative ones counted from the end: for a Tensor, by
    the axis' size as a graph node (`element_count`), which an export with a dynamic batch
    computes at run time."""
    size = x.shape[axis]
    if not isinstance(item, Tensor):
        i = int(item)
        if not -size <= i < size:
            raise IndexError(f"index {i} is out of bounds for an axis of size {size}")
        return Tensor(np.int32(i % size))
    return select(less(item, 0), add(item, element_count(x, axis, item.dtype)), item)


def _flat_index(arrays: list, x: Tensor, axes: list) -> tuple:
    """Integer index Tensors into `axes` of x, broadcast together (numpy's IndexError when
    they cannot be), as one C-order index into the axes' combined size; and their shape. The
    strides are `element_count` nodes, so that a dynamic axis among the later ones is counted
    at run time."""
    shapes = [tuple(a.shape) for a in arrays]
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:
        raise IndexError("shape mismatch: indexing arrays could not be broadcast together with shapes "
                         + " ".join(str(s) for s in shapes)) from None
    flat = None
    for k, idx in enumerate(arrays):
        term = broadcast_to(cast(idx, mstype.int32), shape)
        if k + 1 < len(arrays):
            term = mul(term, element_count(x, tuple(axes[k + 1:]), mstype.int32))
        flat = term if flat is None else add(flat, term)
    return flat, shape


def _advanced(x: Tensor, arrays: list) -> Tensor:
    """numpy's advanced indexing by several arrays at output positions `arrays[k][0]`: the
    indexed axes, moved to the front, become one axis of their combined size, and the indices
    broadcast together become one flat index into it."""
    positions = [pos for pos, _ in arrays]
    rest = [a for a in range(x.ndim) if a not in positions]
    sizes = [x.shape[p] for p in positions]
    flat, shape = _flat_index([idx for _, idx in arrays], x, positions)
    out = reshape(transpose(x, positions + rest), (math.prod(sizes),) + tuple(x.shape[a] for a in rest))
    out = take_in_range(out, flat, 0)                                     # [broadcast..., rest...]
    if positions != list(range(positions[0], positions[0] + len(positions))):
        return out                                                # not adjacent: in front
    front = list(range(len(shape), out.ndim))
    perm = front[:positions[0]] + list(range(len(shape))) + front[positions[0]:]
    return transpose(out, perm)


# -- reductions ----------------------------------------------------------------------------

def _reduce(prim, x, axis, keepdims):
    x = as_tensor(x)
    axes = _axes(axis, x.ndim)
    out = prim.bind(x, axes=axes) if axes else x
    if keepdims:
        out = reshape(out, tuple(1 if i in axes else d for i, d in enumerate(x.shape)))
    return out


def reduce_sum(x, axis=(), keepdims=False):
    """The input's dtype, as MindSpore's ReduceSum primitive (bools are counted in int32);
    `sum`, MindSpore 2.x's ops.sum and Tensor.sum, widens integers to 64 bits."""
    x = as_tensor(x)
    if x.dtype is mstype.bool_:
        x = cast(x, mstype.int32)
    return _reduce(red.reduce_sum, x, axis, keepdims)


def reduce_max(x, axis=(), keepdims=False):
    return _reduce(red.reduce_max, x, axis, keepdims)


def reduce_min(x, axis=(), keepdims=False):
    return _reduce(red.reduce_min, x, axis, keepdims)


def reduce_prod(x, axis=(), keepdims=False):
    return _reduce(red.reduce_prod, x, axis, keepdims)


def mean(x, axis=None, keep_dims=False):
    """Integers average in float32; float16 sums in float32 (1,000 values of 100 overflowed)."""
    x = as_tensor(x)
    if not x.dtype.is_inexact:
        x = cast(x, mstype.float32)
    if x.dtype is mstype.float16:
        return cast(mean(cast(x, mstype.float32), axis, keep_dims), mstype.float16)
    axes = _axes(axis, x.ndim)
    if math.prod(x.shape[a] for a in axes) == 0:   # numpy: nan (0 / 0); onnxruntime's ReduceMean: 0
        return _empty_reduction(x, axes, keep_dims, float("nan"))
    return div(reduce_sum(x, axes, keep_dims), element_count(x, axes, x.dtype.real_dtype))


def element_count(x, axis=None, dtype=mstype.float32) -> Tensor:
    """The number of elements over `axis` as a scalar of `dtype`: a graph node that an ONNX
    export with a dynamic batch computes from the input's shape."""
    x = as_tensor(x)
    axes = _axes(axis, x.ndim)
    if not axes:
        return Tensor(1, to_dtype(dtype))
    return red.element_count.bind(x, axes=axes, dtype=to_dtype(dtype))


def _empty_reduction(x: Tensor, axes: tuple, keep_dims: bool, value) -> Tensor:
    shape = tuple(1 if a in axes else d for a, d in enumerate(x.shape) if keep_dims or a not in axes)
    return full(shape, value, x.dtype)


def reduce_mean(x, axis=(), keep_dims=False):
    """`mean` with MindSpore's ops.reduce_mean default, () for every axis."""
    return mean(x, axis, keep_dims)


def sum(input, dim=None, keepdim=False, *, dtype=None, axis=None, keepdims=None):  # noqa: A001,A002
    """MindSpore 2.x's ops.sum: bools, int8/16/32 and uint8 sum in int64 (measured on 2.10;
    uint16/32/64 keep their dtype) unless `dtype` is given; `reduce_sum` (the ReduceSum
    primitive's rule) keeps an integer input's dtype. `axis`/`keepdims` are Tensor.sum's names
    for `dim`/`keepdim`."""
    dim = axis if axis is not None else dim
    keepdim = keepdims if keepdims is not None else keepdim
    x = as_tensor(input)
    if dtype is not None:
        x = cast(x, dtype)
    elif _widens_to_int64(x.dtype):
        x = cast(x, mstype.int64)
    return reduce_sum(x, dim, keepdim)


def _widens_to_int64(dtype) -> bool:
    """MindSpore 2.10's sum and prod (ops and Tensor methods, measured): bool, int8/16/32 and
    uint8 reduce in int64; uint16/32/64 keep their dtype."""
    return dtype in (mstype.bool_, mstype.int8, mstype.int16, mstype.int32, mstype.uint8)


def amax(input, axis=None, keepdims=False, *, initial=None, where=None):  # noqa: A002
    """The maximum over `axis` (all axes for None or ()), MindSpore's ops.amax: `initial` joins
    the compared values; `where` (a bool mask broadcast to input) leaves the masked-out elements
    out, and needs `initial` (as in MindSpore 2.10 and numpy)."""
    return _extremum(reduce_max, maximum, input, axis, keepdims, initial, where, "amax")


def amin(input, axis=None, keepdims=False, *, initial=None, where=None):  # noqa: A002
    """The minimum, as `amax`."""
    return _extremum(reduce_min, minimum, input, axis, keepdims, initial, where, "amin")


def _extremum(reduce, combine, x, axis, keepdims, initial, where, name):
    x = as_tensor(x)
    if where is not None:
        if initial is None:
            raise ValueError(f"{name}: initial value must be provided for where masks")
        x = select(broadcast_to(cast(where, mstype.bool_), x.shape), x, initial)
    out = reduce(x, axis, keepdims)
    return out if initial is None else cast(combine(out, initial), out.dtype)


def all(input, axis=None, keep_dims=False):  # noqa: A001,A002
    return _all_or_any(red.reduce_min, input, axis, keep_dims, True)


def any(input, axis=None, keep_dims=False):  # noqa: A001,A002
    return _all_or_any(red.reduce_max, input, axis, keep_dims, False)


def _all_or_any(prim, x, axis, keep_dims, empty):
    """min or max of bools; over an empty axis, all is True and any False (numpy)."""
    x = _bools(x)
    axes = _axes(axis, x.ndim)
    if builtins.any(x.shape[a] == 0 for a in axes):
        return _empty_reduction(x, axes, keep_dims, empty)
    return _reduce(prim, x, axes, keep_dims)


def _arg(prim, x, axis, keepdims, index_dtype):
    x = as_tensor(x)
    if axis is None:
        out = _arg(prim, reshape(x, (-1,)), 0, False, index_dtype)
        return reshape(out, (1,) * x.ndim) if keepdims else out
    axis = _axis(axis, x.ndim)
    out = prim.bind(x, axis=axis, index_dtype=index_dtype)
    return expand_dims(out, axis) if keepdims else out


def argmax(input, dim=None, keepdim=False, *, axis=None, keepdims=None):  # noqa: A002
    """MindSpore 2.10's ops.argmax(input, dim, keepdim): int64 indices (measured; Tensor.argmax's
    too, and its `axis`/`keepdims` names are taken here; the Argmax primitive's are int32)."""
    dim = axis if axis is not None else dim
    keepdim = keepdims if keepdims is not None else keepdim
    x = as_tensor(input)
    if x.dtype is mstype.bool_:   # MindSpore 2.10 takes bools here (argmin refuses them): True wins
        x = cast(x, mstype.int32)
    return _arg(red.argmax, x, dim, keepdim, mstype.int64)


def argmin(input, axis=None, keepdims=False):  # noqa: A002
    """MindSpore 2.10's ops.argmin(input, axis, keepdims): int32 indices (measured, unlike argmax)."""
    return _arg(red.argmin, input, axis, keepdims, mstype.int32)


def var(input, axis=None, ddof=0, keepdims=False):  # noqa: A002
    x = as_tensor(input)
    refuse_complex_tensors("var", x)
    axes = _axes(axis, x.ndim)
    centered = sub(x, mean(x, axes, True))
    return div(reduce_sum(square(centered), axes, keepdims), sub(element_count(x, axes, centered.dtype), ddof))


def std(input, axis=None, ddof=0, keepdims=False):  # noqa: A002
    return sqrt(var(input, axis, ddof, keepdims))


def logsumexp(input, dim=None, keepdim=False):  # noqa: A002
    """log(sum(exp(input))) over `dim` (all axes when None), computed stably."""
    x = as_tensor(input)
    axes = _axes(dim, x.ndim)
    keep_dims = keepdim
    m = reduce_max(x, axes, True)
    m = stop_gradient(select(isfinite(m), m, zeros_like(m)))   # an infinite max shifts nothing (jax)
    out = add(log(reduce_sum(exp(sub(x, m)), axes, True)), m)
    return out if keep_dims else squeeze(out, axes) if axes else out


# -- linear algebra ------------------------------------------------------------------------

def dot_general(x, y, contract, batch=((), ())) -> Tensor:
    x, y = _pair(x, y)
    return linalg.dot_general.bind(x, y, contract=(tuple(contract[0]), tuple(contract[1])),
                                   batch=(tuple(batch[0]), tuple(batch[1])))


# dot_general's attrs for [..., K] x [K, N] by the rank of x (matmul is a hot eager op).
_MATMUL_ATTRS: dict[int, dict] = {}


def matmul(input, other) -> Tensor:  # noqa: A002
    """numpy.matmul semantics: 1-D operands are promoted, batch axes broadcast."""
    if type(input) is Tensor and type(other) is Tensor and input._payload.dtype is other._payload.dtype:
        x, y = input, other   # the hot eager case: nothing for _pair to convert (dtypes are interned)
    else:
        _check_product_dtypes("MatMulExt", input, other)   # 2.10 promotes no product (ops/product_dtypes.py)
        x, y = _pair(input, other)
    x_shape, y_shape = x._payload.shape, y._payload.shape  # read once: matmul is a hot eager op
    if not x_shape or not y_shape:
        raise ValueError("matmul: operands must not be scalars; use mul")
    y_rows = y_shape[-2] if len(y_shape) > 1 else y_shape[0]
    if x_shape[-1] != y_rows:   # checked on the user's shapes, before 1-D promotion
        from ..frontend.tracer import at_user_line
        raise ValueError(f"matmul: shapes {list(x_shape)} and {list(y_shape)} do not align "
                         f"({x_shape[-1]} != {y_rows}){at_user_line()}")
    x1, y1 = len(x_shape) == 1, len(y_shape) == 1
    if x1:
        x = expand_dims(x, 0)
        x_shape = x.shape
    if y1:
        y = expand_dims(y, -1)
        y_shape = y.shape
    if len(y_shape) == 2:  # the common case, [..., K] x [K, N]: no batch axes needed
        # Bound directly with attrs built once per rank: _pair already ran.
        attrs = _MATMUL_ATTRS.get(len(x_shape))
        if attrs is None:
            attrs = _MATMUL_ATTRS[len(x_shape)] = {"contract": ((len(x_shape) - 1,), (0,)), "batch": ((), ())}
        out = linalg.dot_general.bind_canonical((x, y), dict(attrs))
    else:
        batch = np.broadcast_shapes(x.shape[:-2], y.shape[:-2])
        x = broadcast_to(x, batch + x.shape[-2:])
        y = broadcast_to(y, batch + y.shape[-2:])
        nb = len(batch)
        out = dot_general(x, y, ((nb + 1,), (nb,)), (tuple(range(nb)), tuple(range(nb))))
    if x1:
        out = squeeze(out, -2)
    if y1:
        out = squeeze(out, -1)
    return out


def dense(input, weight, bias=None) -> Tensor:  # noqa: A002
    """input @ weight.T + bias, with weight [out, in] as in MindSpore's Dense."""
    _check_product_dtypes("Dense", input, weight)
    out = dot_general(input, weight, ((as_tensor(input).ndim - 1,), (1,)))
    return out if bias is None else add(out, bias)


def bmm(input_x, mat2):
    _check_product_dtypes("BatchMatMul", input_x, mat2)
    return matmul(input_x, mat2)


# -- neural-network functions ---------------------------------------------------------------

def relu(input, inplace=False):  # noqa: A002
    """max(input, 0). inplace=True is refused: graphcell's graphs have no in-place ops (and
    MindSpore 2.10's CPU build has no InplaceReLU kernel); write x = ops.relu(x)."""
    if inplace:
        raise TypeError("relu: inplace=True is not supported by graphcell; use x = ops.relu(x)")
    return ew.relu.bind(as_tensor(input))


def relu6(x):
    x = as_tensor(x)
    return ew.relu6.bind(x) if x.dtype.is_floating else clamp(x, 0, 6)


def leaky_relu(input, alpha=0.2):  # noqa: A002
    x = as_tensor(input)
    if x.dtype.is_floating:
        return ew.leaky_relu.bind(x, alpha=float(alpha))
    # Integers stay integers, the slope truncated to one first (MindSpore 2.10: alpha 0.2 maps
    # -2 to 0, alpha 1.5 leaves it -2, alpha -2 maps it to 4).
    return select(greater(x, 0), x, mul(x, int(alpha)))


def elu(input_x, alpha=1.0):
    x = as_tensor(input_x)
    if x.dtype.is_floating:
        return ew.elu.bind(x, alpha=float(alpha))
    return select(greater(x, 0), x, mul(expm1(minimum(x, 0)), alpha))


def gelu(input, approximate: str | bool = "none"):  # noqa: A002
    """MindSpore's ops.gelu: exact (erf) by default, the tanh form with approximate='tanh'
    (nn.GELU's default is the tanh form: it passes its mode)."""
    x = as_tensor(input)
    refuse_complex_tensors("gelu", x)
    if approximate not in (True, False, "tanh", "none"):
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    if x.dtype is mstype.float16:
        # computed in float32, as MindSpore's float16 kernels: in float16 x^3 overflowed from
        # |x| = 40 (the tanh form's gradient was NaN there, MindSpore's 1 and 0), and rounding
        # each step lost small differences (1 + erf, sigmoid's 1 - s) to 0.2-0.7%
        return cast(gelu(cast(x, mstype.float32), approximate), mstype.float16)
    if approximate in (True, "tanh"):
        # 0.5 x (1 + tanh(u)) written as x sigmoid(2u): the same function, without 1 + tanh's
        # cancellation for negative x (gelu(-3) was 1e-5 off)
        twice_u = mul(add(x, mul(pow(x, 3.0), 0.044715)), 2.0 * math.sqrt(2.0 / math.pi))
        return mul(x, sigmoid(twice_u))
    return mul(mul(x, 0.5), add(erf(div(x, math.sqrt(2.0))), 1.0))


def fast_gelu(x):
    x = as_tensor(x)
    return mul(x, sigmoid(mul(x, 1.702)))


def silu(input):  # noqa: A002
    x = as_tensor(input)
    return mul(x, sigmoid(x))


def softplus(input, beta=1, threshold=20):  # noqa: A002
    """log(1 + exp(beta * input)) / beta, and input itself where beta * input > threshold
    (MindSpore's ops.softplus and torch's). With the default 20 (float16: 10, where float16's
    exp is still finite) the two agree to the dtype's precision. exp sees at most the
    threshold, so neither branch overflows, and the derivative is sigmoid(beta * x) everywhere
    (the former max(x, 0) + log1p(exp(-|x|)) gave -0.5 at 0, where abs and relu meet)."""
    x = as_tensor(input)
    refuse_complex_tensors("softplus", x)
    if x.dtype is mstype.float16:
        threshold = builtins.min(threshold, 10.0)   # float16's exp overflows above 11
    scaled = x if beta == 1 else mul(x, beta)
    # exp's argument is capped just above the threshold, which only the unselected side
    # reaches: at scaled == threshold the soft side is selected and min has no tie, whose
    # half share gave a gradient of 0.5 there (MindSpore's is sigmoid(threshold), 1.0)
    cap = float(np.nextafter(np.asarray(threshold, x.dtype.np_dtype), np.inf))
    soft = log1p(exp(minimum(scaled, cap)))
    return select(greater(scaled, threshold), x, soft if beta == 1 else div(soft, beta))


def mish(x):
    x = as_tensor(x)
    return mul(x, tanh(softplus(x)))


def hardsigmoid(input):  # noqa: A002
    """relu6(x + 3) / 6; its gradient is 1/6 strictly between -3 and 3 (MindSpore's)."""
    x = as_tensor(input)
    # Integers stay integers: the division rounds toward zero, as MindSpore 2.10's kernel does.
    return ew.hard_sigmoid.bind(x) if x.dtype.is_floating else div(relu6(add(x, 3)), 6, rounding_mode="trunc")


def hardswish(input):  # noqa: A002
    """x * relu6(x + 3) / 6, 0 from -3 down (-inf included, as MindSpore's)."""
    x = as_tensor(input)
    if x.dtype.is_floating:
        return ew.hard_swish.bind(x)
    return div(mul(x, relu6(add(x, 3))), 6, rounding_mode="trunc")   # integers stay integers, as 2.10's


def softmax(input, axis=-1, *, dtype=None):  # noqa: A002
    """exp(input) / sum(exp(input)) over `axis`; `dtype` casts the input first."""
    x = as_tensor(input)
    if dtype is not None:
        x = cast(x, dtype)
    refuse_complex_tensors("softmax", x)
    shifted = sub(x, stop_gradient(reduce_max(x, axis, True)))
    e = exp(shifted)
    return div(e, reduce_sum(e, axis, True))


def log_softmax(logits, axis=-1):
    x = as_tensor(logits)
    shifted = sub(x, stop_gradient(reduce_max(x, axis, True)))
    return sub(shifted, log(reduce_sum(exp(shifted), axis, True)))


def conv2d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):  # noqa: A002
    """MindSpore's ops.conv2d over NCHW input. pad_mode 'valid' (no padding unless `padding`
    says), 'pad' (`padding`: an int, (h, w), (top, bottom, left, right) or ((top, bottom),
    (left, right))) or 'same' (TensorFlow's: the odd extra row and column after)."""
    x, weight = _pair(input, weight)
    stride, dilation = _tuple2(stride), _tuple2(dilation)
    mode = pad_mode.lower() if isinstance(pad_mode, str) else pad_mode
    if mode == "same":
        pads = tuple(same_padding(x.shape[2 + i], weight.shape[2 + i], stride[i], dilation[i]) for i in range(2))
    elif mode in ("valid", "pad"):
        pads = _conv_pads(padding)
    else:
        raise ValueError(f"conv2d: pad_mode must be 'same', 'valid' or 'pad', got {pad_mode!r}")
    out = conv2d_padded(x, weight, stride, pads, dilation, groups)
    return out if bias is None else add(out, reshape(bias, (1, -1, 1, 1)))


def conv2d_padded(x, weight, stride, padding, dilation=(1, 1), groups=1) -> Tensor:
    """The convolution itself: `padding` ((top, bottom), (left, right)), `stride` and
    `dilation` pairs (what Conv2d computes from its pad mode)."""
    x, weight = _pair(x, weight)
    return nn_prims.conv.bind(x, weight, strides=_tuple2(stride), padding=tuple(tuple(p) for p in padding),
                              lhs_dilation=(1, 1), rhs_dilation=_tuple2(dilation), groups=groups, batch_groups=1)


def _conv_pads(padding) -> tuple:
    if isinstance(padding, numbers.Integral):
        return ((int(padding),) * 2,) * 2
    padding = tuple(padding)
    if len(padding) == 2 and builtins.all(isinstance(p, numbers.Integral) for p in padding):
        return ((padding[0],) * 2, (padding[1],) * 2)
    if len(padding) == 4:
        return ((padding[0], padding[1]), (padding[2], padding[3]))
    if len(padding) == 2:
        return tuple(tuple(p) for p in padding)
    raise ValueError(f"conv2d: padding must be an int, (h, w), (top, bottom, left, right) or "
                     f"((top, bottom), (left, right)), got {padding}")


def same_padding(size: int, kernel: int, stride: int, dilation: int) -> tuple[int, int]:
    """TensorFlow/MindSpore 'same': out = ceil(size/stride); the extra pixel goes after."""
    out = -(-size // stride)
    total = builtins.max((out - 1) * stride + dilation * (kernel - 1) + 1 - size, 0)
    return total // 2, total - total // 2


def _tuple2(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def max_pool(x, window, strides, padding):
    x = as_tensor(x)
    return nn_prims.reduce_window_max.bind(x, window=tuple(window), strides=tuple(strides),
                                           padding=tuple(tuple(p) for p in padding))


def sum_pool(x, window, strides, padding):
    x = as_tensor(x)
    return nn_prims.reduce_window_sum.bind(x, window=tuple(window), strides=tuple(strides),
                                           padding=tuple(tuple(p) for p in padding))


# -- state and randomness --------------------------------------------------------------------

def assign(variable: Parameter, value) -> Parameter:
    """Writes `value` into a Parameter: at once in PYNATIVE mode, as a state update in a trace."""
    from ..frontend.tracer import current_tracer
    if not isinstance(variable, Parameter):
        raise TypeError(f"assign needs a Parameter, got {type(variable).__name__}")
    value = cast(as_tensor(value), variable.dtype)
    if value.shape != variable.shape:
        value = broadcast_to(value, variable.shape)
    tracer = current_tracer()
    if tracer is None:
        variable.set_data(value)
    else:
        tracer.assign(variable, value)
    return variable


def assign_add(variable: Parameter, value) -> Parameter:
    return assign(variable, add(variable, value))


def assign_sub(variable: Parameter, value) -> Parameter:
    return assign(variable, sub(variable, value))


def addn(x):
    """The sum of a list or tuple of Tensors of one shape and dtype (MindSpore's AddN)."""
    if not isinstance(x, (list, tuple)):
        raise TypeError(f"For 'AddN', the input must be a list or tuple of Tensors, got {type(x).__name__}.")
    if not x:
        raise ValueError("For primitive[AddN], the input num must be greater than or equal to 1, but got 0.")
    tensors = [as_tensor(t) for t in x]
    for i, t in enumerate(tensors[1:], 1):
        if t.dtype != tensors[0].dtype:
            raise TypeError("For primitive[AddN], the input type must be same.")
        if tuple(t.shape) != tuple(tensors[0].shape):
            raise ValueError(f"For 'AddN', input shape must be same, but got shape of input[{i}]: "
                             f"{tuple(t.shape)}, shape of input[0]: {tuple(tensors[0].shape)}.")
    total = tensors[0]
    for t in tensors[1:]:
        total = add(total, t)
    return total


def random_key(state: Parameter | None = None) -> Tensor:
    """A fresh key from a key Parameter (by default graphcell's global generator's), which it
    advances (a state write)."""
    from .random_state import global_key
    state = global_key() if state is None else state
    new_state, key = random_prims.random_split.bind(state)
    assign(state, new_state)
    return key


def _draw_key(seed, key):
    """An explicit key, one derived from a seed (the same numbers for the same seed), or the
    next key of graphcell's global generator."""
    if key is not None:
        return key
    if seed is not None:
        from .random_state import _key_data
        return Tensor(_key_data(int(seed)))
    return random_key()


def uniform(shape, minval=0.0, maxval=1.0, seed=None, dtype=mstype.float32, *, key=None):
    """MindSpore's ops.uniform: `shape` values in [minval, maxval) (numbers or broadcastable
    Tensors); `key` a graphcell random key (uint32[2]) for explicit, per-member streams."""
    dtype = to_dtype(dtype)
    u = random_prims.random_uniform.bind(_draw_key(seed, key), shape=tuple(shape), dtype=dtype)
    if isinstance(minval, numbers.Number) and isinstance(maxval, numbers.Number) and (minval, maxval) == (0.0, 1.0):
        return u
    return add(mul(u, sub(maxval, minval)), minval)


def normal(shape, mean=0.0, stddev=1.0, seed=None, dtype=mstype.float32, *, key=None):
    """Normal draws of `shape`, `mean` + `stddev` * N(0, 1) (MindSpore's ops.normal order)."""
    z = random_prims.random_normal.bind(_draw_key(seed, key), shape=tuple(shape), dtype=to_dtype(dtype))
    if isinstance(mean, numbers.Number) and isinstance(stddev, numbers.Number) and (mean, stddev) == (0.0, 1.0):
        return z
    return add(mul(z, stddev), mean)


def standard_normal(shape, seed=None, *, key=None):
    """MindSpore's ops.standard_normal: float32 N(0, 1) draws of `shape`."""
    return normal(shape, seed=seed, key=key)


def dropout(input, p=0.5, training=True, seed=None):  # noqa: A002
    """Inverted dropout: zeroes with probability p, scales kept values by 1/(1-p); a `seed`
    gives the same mask each call (graphcell's streams, not MindSpore's numbers)."""
    x = as_tensor(input)
    if not training or p == 0:
        return x
    if p >= 1:
        return mul(x, 0.0)
    keep = less(uniform(x.shape, seed=seed, dtype=x.dtype), 1.0 - p)
    return select(keep, div(x, 1.0 - p), mul(x, 0.0))


# -- constructors ----------------------------------------------------------------------------

def _shape_arg(shape) -> tuple:
    return (int(shape),) if isinstance(shape, int) else tuple(int(d) for d in shape)


def full(size, fill_value, dtype=None) -> Tensor:
    """A Tensor of shape `size` filled with `fill_value`, of `dtype` or fill_value's dtype
    (MindSpore 2.10 truncates a float fill to Int64 when dtype is None: graphcell keeps the
    float, as MindSpore's documents say)."""
    dtype = to_dtype(dtype) if dtype is not None else as_tensor(fill_value).dtype
    return Tensor(np.full(_shape_arg(size), fill_value, dtype=dtype.np_dtype))


def zeros(size, dtype=None) -> Tensor:
    """float32 unless `dtype` is given."""
    return full(size, 0, dtype or mstype.float32)


def ones(shape, dtype=None) -> Tensor:
    """float32 unless `dtype` is given."""
    return full(shape, 1, dtype or mstype.float32)


def zeros_like(input, dtype=None) -> Tensor:  # noqa: A002
    x = as_tensor(input)
    return broadcast_to(Tensor(0, dtype or x.dtype), x.shape)


def ones_like(input, dtype=None) -> Tensor:  # noqa: A002
    x = as_tensor(input)
    return broadcast_to(Tensor(1, dtype or x.dtype), x.shape)


def full_like(input, fill_value, dtype=None) -> Tensor:  # noqa: A002
    x = as_tensor(input)
    return broadcast_to(Tensor(fill_value, dtype or x.dtype), x.shape)


def arange(start=0, end=None, step=1, dtype=None) -> Tensor:
    """[start, end) in steps of `step`; arange(n) is [0, n). int64 for integer bounds, float32
    when one is a float, unless `dtype` is given."""
    if end is None:
        start, end = 0, start
    values = np.arange(start, end, step)
    if dtype is None:
        dtype = mstype.float32 if values.dtype.kind == "f" else mstype.int64
    if values.dtype.kind == "f" and dtype.is_inexact:
        # MindSpore 2.10 (measured) computes a float range in float32 whatever the dtype:
        # arange(0.1, 1.0, 0.3, dtype=float64)[2] is float32's 0.1 + 2 * 0.3, 0.70000005
        values = np.float32(start) + np.arange(len(values), dtype=np.float32) * np.float32(step)
    return Tensor(values, dtype)


def eye(n, m=None, dtype=None) -> Tensor:
    """The n x m identity, float32 unless `dtype` is given."""
    return Tensor(np.eye(n, m), dtype or mstype.float32)

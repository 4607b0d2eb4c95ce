"""MindSpore's operator classes (`mindspore.ops.operations`, `from mindspore.ops import operations as P`).

Each class checks its constructor's arguments (MindSpore's wording: "For 'Softmax', the type
of 'axis' should be ...") and, when called, runs graphcell's functional ops, so it works
eagerly, under `jit`, `vmap` and `grad`, and exports to ONNX like the functional form:

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.reduce_sum = P.ReduceSum(keep_dims=True)
            self.matmul = P.MatMul(transpose_b=True)

        def construct(self, x, w):
            return self.reduce_sum(self.matmul(x, w), (1,))

Calls follow MindSpore 2.10's classes as measured there: the call arguments (an axis given to
the call, `Concat` taking a tuple), the output structure (`ArgMaxWithValue` gives (index,
value), `LayerNorm` (y, mean, variance), `Dropout` (output, mask)), the dtypes (`Argmax` int32,
`ArgMaxWithValue`'s index int64, `ReduceSum` keeping an integer dtype) and the defaults.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from .. import dtype as mstype
from ..tensor import Parameter, Tensor
from . import composite as CP
from . import functional as F
from . import indexing as IX
from . import math_ops as M
from . import random_prims, reductions as red, shape_ops, sorting
from .dynamic_shape import masked_select, nonzero, unique
from .product_dtypes import check_product_dtypes as _check_product_dtypes
from .op_base import (exporter, Operator, check_bool, check_call_int, check_choice, check_dtype, check_float, check_int,
                      check_int_or_ints, check_ints, check_positive_int, is_int)

__all__ = ["Operator"]


_export = exporter(__all__)


def _simple(name: str, fn, doc: str, arity: int = 1):
    """A class without constructor arguments that calls `fn` on its operands."""
    if arity == 1:
        def call(self, x):
            return fn(x)
    elif arity == 2:
        def call(self, x, y):
            return fn(x, y)
    else:
        def call(self, x, y, z):
            return fn(x, y, z)
    cls = type(name, (Operator,), {"__call__": call, "__doc__": doc, "__module__": __name__})
    return _export(cls)


def _is_traced() -> bool:
    from ..frontend.tracer import current_tracer
    return current_tracer() is not None


def _call_axes(op: str, axis, arg: str = "axis"):
    """A reduction's axis argument: an int, a tuple or list of ints, () (every axis) or a
    constant integer Tensor of them."""
    if isinstance(axis, Tensor):
        if axis.is_symbolic or not axis.dtype.is_integer or axis.ndim > 1:
            raise TypeError(f"For '{op}', '{arg}' must be an int, a tuple of ints or a constant 0-d or 1-d "
                            f"integer Tensor, but got a {'traced ' if axis.is_symbolic else ''}Tensor of shape "
                            f"{list(axis.shape)} and dtype {axis.dtype}.")
        values = axis.asnumpy().reshape(-1).tolist()
        return tuple(int(v) for v in values)
    if axis is None:
        return ()
    return check_int_or_ints(op, arg, axis)


def _float_input(op: str, x: Tensor) -> Tensor:
    if not x.dtype.is_floating:
        raise TypeError(f"For '{op}', the input must be a float Tensor (float16, float32 or float64), but got "
                        f"{x.dtype}.")
    return x


# == elementwise ===============================================================================

Abs = _simple("Abs", F.abs, "|x|")
Neg = _simple("Neg", F.neg, "-x")
Exp = _simple("Exp", F.exp, "e ** x (integers in float32)")
Expm1 = _simple("Expm1", F.expm1, "e ** x - 1")
Log = _simple("Log", F.log, "the natural logarithm")
Log1p = _simple("Log1p", F.log1p, "log(1 + x)")
Sqrt = _simple("Sqrt", F.sqrt, "the square root (integers in float32)")
Rsqrt = _simple("Rsqrt", F.rsqrt, "1 / sqrt(x)")
Square = _simple("Square", F.square, "x * x")
Reciprocal = _simple("Reciprocal", F.reciprocal, "1 / x (integers in float32)")
Inv = _simple("Inv", F.reciprocal, "1 / x")
Sin = _simple("Sin", F.sin, "sin(x)")
Cos = _simple("Cos", F.cos, "cos(x)")
Tanh = _simple("Tanh", F.tanh, "tanh(x)")
Erf = _simple("Erf", F.erf, "the error function")
Sign = _simple("Sign", F.sign, "-1, 0 or 1 by the sign of x")
Floor = _simple("Floor", F.floor, "rounds toward -inf")
Ceil = _simple("Ceil", F.ceil, "rounds toward +inf")
LogicalNot = _simple("LogicalNot", F.logical_not, "not x, elementwise")
Invert = _simple("Invert", F.invert, "bitwise not of an integer tensor")
IsNan = _simple("IsNan", CP.isnan, "True where x is NaN")
IsInf = _simple("IsInf", CP.isinf, "True where x is +inf or -inf")
IsFinite = _simple("IsFinite", F.isfinite, "True where x is neither NaN nor infinite")
StopGradient = _simple("StopGradient", F.stop_gradient, "x, with no gradient flowing back through it")
ZerosLike = _simple("ZerosLike", F.zeros_like, "zeros of x's shape and dtype")
OnesLike = _simple("OnesLike", F.ones_like, "ones of x's shape and dtype")
# over math_ops (loaded with this module: operator classes are themselves loaded on first use)
Sinh = _simple("Sinh", M.sinh, "sinh(x)")
Cosh = _simple("Cosh", M.cosh, "cosh(x)")
Tan = _simple("Tan", M.tan, "tan(x)")
Asin = _simple("Asin", M.asin, "arcsin(x)")
ACos = _simple("ACos", M.acos, "arccos(x)")
Atan = _simple("Atan", M.atan, "arctan(x)")
Asinh = _simple("Asinh", M.asinh, "arcsinh(x)")
Acosh = _simple("Acosh", M.acosh, "arccosh(x)")
Atanh = _simple("Atanh", M.atanh, "arctanh(x)")
Erfc = _simple("Erfc", M.erfc, "1 - erf(x)")
Erfinv = _simple("Erfinv", M.erfinv, "the inverse error function")
Lgamma = _simple("Lgamma", M.lgamma, "log |gamma(x)|")
Digamma = _simple("Digamma", M.digamma, "the logarithmic derivative of gamma")
Polygamma = _simple("Polygamma", M.polygamma, "polygamma(a, x): the a-th derivative of digamma (a a 0-d integer "
                    "Tensor)", arity=2)
Sinc = _simple("Sinc", M.sinc, "sin(pi x) / (pi x), 1 at 0")
Atan2 = _simple("Atan2", M.atan2, "the angle of (x, y) = (other, input), by quadrant", arity=2)
Hypot = _simple("Hypot", M.hypot, "sqrt(x ** 2 + y ** 2) without overflow", arity=2)


@_export
class Round(Operator):
    """Rounds half to even (0.5 -> 0, 1.5 -> 2), as MindSpore's Round; `decimals` must be 0
    (MindSpore 2.10 on CPU refuses others too)."""

    def __call__(self, input, decimals=0):  # noqa: A002 - MindSpore's names
        if decimals != 0:
            raise ValueError(f"For 'Round', only decimals=0 is supported, but got decimals={decimals!r}.")
        return F.round(input)


@_export
class Identity(Operator):
    """Its input (MindSpore returns a copy; graphcell's Tensors are immutable)."""

    def __call__(self, input_x):
        return F.as_tensor(input_x)


Add = _simple("Add", F.add, "x + y, broadcasting", 2)
Sub = _simple("Sub", F.sub, "x - y, broadcasting", 2)
Mul = _simple("Mul", F.mul, "x * y, broadcasting", 2)
Div = _simple("Div", F.div, "x / y: integers divide in float32", 2)
FloorDiv = _simple("FloorDiv", F.floor_div, "floor(x / y)", 2)
FloorMod = _simple("FloorMod", CP.floor_mod, "x - floor(x / y) * y: the divisor's sign", 2)
Mod = _simple("Mod", CP.fmod, "C's fmod: the dividend's sign", 2)
Pow = _simple("Pow", F.pow, "x ** y", 2)
Maximum = _simple("Maximum", F.maximum, "the larger of x and y", 2)
Minimum = _simple("Minimum", F.minimum, "the smaller of x and y", 2)
Equal = _simple("Equal", F.equal, "x == y", 2)
NotEqual = _simple("NotEqual", F.not_equal, "x != y", 2)
Greater = _simple("Greater", F.greater, "x > y", 2)
GreaterEqual = _simple("GreaterEqual", F.greater_equal, "x >= y", 2)
Less = _simple("Less", F.less, "x < y", 2)
LessEqual = _simple("LessEqual", F.less_equal, "x <= y", 2)
LogicalAnd = _simple("LogicalAnd", F.logical_and, "x and y, elementwise", 2)
LogicalOr = _simple("LogicalOr", F.logical_or, "x or y, elementwise", 2)
LogicalXor = _simple("LogicalXor", F.logical_xor, "x xor y, elementwise", 2)
BitwiseAnd = _simple("BitwiseAnd", F.bitwise_and, "x & y of integers", 2)
BitwiseOr = _simple("BitwiseOr", F.bitwise_or, "x | y of integers", 2)
BitwiseXor = _simple("BitwiseXor", F.bitwise_xor, "x ^ y of integers", 2)


@_export
class RealDiv(Operator):
    """x / y; integers stay integers (the quotient truncated toward zero), as MindSpore's
    RealDiv, where Div gives float32."""

    def __call__(self, x, y):
        x, y = F._pair(x, y)
        if x.dtype.is_floating:
            return F.div(x, y)
        return F.cast(CP.trunc(F.div(x, y)), x.dtype)


@_export
class DivNoNan(Operator):
    """x / y, and 0 where y is 0."""

    def __call__(self, x1, x2):
        x, y = F._pair(x1, x2)
        zero = F.equal(y, 0)
        return F.select(zero, F.zeros_like(F.div(x, y)), F.div(x, F.select(zero, F.ones_like(y), y)))


@_export
class SquaredDifference(Operator):
    """(x - y) ** 2."""

    def __call__(self, x, y):
        return F.square(F.sub(x, y))


@_export
class Xlogy(Operator):
    """x * log(y) over floats, 0 where x is 0, as ops.xlogy and MindSpore's documentation
    (MindSpore 2.10's CPU kernel gives NaN for 0 * log(0))."""

    def __call__(self, input, other):  # noqa: A002
        x, y = F._pair(input, other)
        if not x.dtype.is_floating:
            raise TypeError(f"For 'Xlogy', the inputs must be float Tensors, but got {x.dtype}.")
        return M.xlogy(x, y)


@_export
class AddN(Operator):
    """The sum of a tuple or list of Tensors of one shape."""

    def __call__(self, inputs):
        return F.addn(inputs)


@_export
class Lerp(Operator):
    """start + weight * (end - start)."""

    def __call__(self, input, end, weight):  # noqa: A002
        start = F.as_tensor(input)
        return F.add(start, F.mul(weight, F.sub(end, start)))


@_export
class Addcmul(Operator):
    """input + value * tensor1 * tensor2."""

    def __call__(self, input, tensor1, tensor2, value):  # noqa: A002
        return F.add(input, F.mul(value, F.mul(tensor1, tensor2)))


@_export
class Addcdiv(Operator):
    """input + value * tensor1 / tensor2."""

    def __call__(self, input, tensor1, tensor2, value):  # noqa: A002
        return F.add(input, F.mul(value, F.div(tensor1, tensor2)))


@_export
class IsClose(Operator):
    """|x - y| <= atol + rtol * |y| elementwise."""

    def __init__(self, rtol=1e-05, atol=1e-08, equal_nan=False):
        super().__init__(rtol=check_float("IsClose", "rtol", rtol), atol=check_float("IsClose", "atol", atol),
                         equal_nan=check_bool("IsClose", "equal_nan", equal_nan))

    def __call__(self, input, other):  # noqa: A002
        return CP.isclose(input, other, self.rtol, self.atol, self.equal_nan)


# == linear algebra ============================================================================

def _matmul(x, y, transpose_a: bool, transpose_b: bool) -> Tensor:
    """x @ y over the last two axes, the transposes folded into the contraction (no transpose
    nodes), leading axes broadcast."""
    x, y = F._pair(x, y)
    batch = tuple(np.broadcast_shapes(x.shape[:-2], y.shape[:-2]))
    x, y = F.broadcast_to(x, batch + x.shape[-2:]), F.broadcast_to(y, batch + y.shape[-2:])
    nb = len(batch)
    k_x, k_y = (nb if transpose_a else nb + 1), (nb + 1 if transpose_b else nb)
    if x.shape[k_x] != y.shape[k_y]:
        raise ValueError(f"matmul: the contracted dimensions differ: {list(x.shape)} (transpose_a={transpose_a}) "
                         f"and {list(y.shape)} (transpose_b={transpose_b})")
    out = F.dot_general(x, y, ((k_x,), (k_y,)), (tuple(range(nb)), tuple(range(nb))))
    # dot_general puts x's free axis before y's: [batch, M, N], as wanted.
    return out


@_export
class MatMul(Operator):
    """x @ y of two matrices, either transposed first."""

    def __init__(self, transpose_a=False, transpose_b=False):
        super().__init__(transpose_a=check_bool("MatMul", "transpose_a", transpose_a),
                         transpose_b=check_bool("MatMul", "transpose_b", transpose_b))

    def __call__(self, input, mat2):  # noqa: A002
        x, y = F.as_tensor(input), F.as_tensor(mat2)
        if x.ndim != 2 or y.ndim != 2:
            raise ValueError(f"For 'MatMul', the inputs must be 2-D, but got shapes {list(x.shape)} and "
                             f"{list(y.shape)} (BatchMatMul takes batches).")
        _check_product_dtypes("MatMul", x, y)
        return _matmul(x, y, self.transpose_a, self.transpose_b)


@_export
class BatchMatMul(Operator):
    """x @ y over the last two axes, either transposed first; leading axes broadcast."""

    def __init__(self, transpose_a=False, transpose_b=False):
        super().__init__(transpose_a=check_bool("BatchMatMul", "transpose_a", transpose_a),
                         transpose_b=check_bool("BatchMatMul", "transpose_b", transpose_b))

    def __call__(self, x, y):
        x, y = F.as_tensor(x), F.as_tensor(y)
        if x.ndim < 2 or y.ndim < 2:
            raise ValueError(f"For 'BatchMatMul', the inputs must have at least 2 dimensions, but got shapes "
                             f"{list(x.shape)} and {list(y.shape)}.")
        _check_product_dtypes("BatchMatMul", x, y)
        return _matmul(x, y, self.transpose_a, self.transpose_b)


Trace = _simple("Trace", CP.trace, "the sum of a matrix's diagonal")
Diag = _simple("Diag", CP.diag, "a diagonal matrix from a vector")


@_export
class Svd(Operator):
    """(s, u, v) of the matrices in the last two axes: input = u @ diag(s) @ v^T. With
    compute_uv=False, (s, zeros(1), zeros(1)): MindSpore 2.10's class returns three outputs
    either way (measured), where ops.svd returns s alone."""

    def __init__(self, full_matrices=False, compute_uv=True):
        super().__init__(full_matrices=check_bool("Svd", "full_matrices", full_matrices),
                         compute_uv=check_bool("Svd", "compute_uv", compute_uv))

    def __call__(self, input):  # noqa: A002
        from .linalg_ops import svd
        out = svd(input, self.full_matrices, self.compute_uv)
        if self.compute_uv:
            return out
        return out, F.zeros((1,), out.dtype), F.zeros((1,), out.dtype)


@_export
class Cross(Operator):
    """The cross product along `dim` (MindSpore's default -65530: the first axis of size 3)."""

    def __init__(self, dim=-65530):
        super().__init__(dim=check_int("Cross", "dim", dim))

    def __call__(self, input, other):  # noqa: A002
        return CP.cross(input, other, None if self.dim == -65530 else self.dim)


# == reductions ================================================================================

class _Reduce(Operator):
    """`keep_dims` at construction, the axes at the call: an int, a tuple or list, or () for
    every axis (the default)."""

    def __init__(self, keep_dims=False):
        super().__init__(keep_dims=check_bool(self.name, "keep_dims", keep_dims))

    def __call__(self, x, axis=()):
        x = F.as_tensor(x)
        return self._reduce(x, _call_axes(self.name, axis), self.keep_dims)


@_export
class ReduceSum(_Reduce):
    """The sum over `axis`, in the input's dtype (integers stay, a bool sum is any()).
    `skip_mode=True` returns the input as it is for axis (), as MindSpore documents (2.10's
    CPU kernel returns the total broadcast to the input's shape instead)."""

    def __init__(self, keep_dims=False, skip_mode=False):
        super().__init__(keep_dims)
        self.add_prim_attr("skip_mode", check_bool("ReduceSum", "skip_mode", skip_mode))

    def __call__(self, x, axis=()):
        x = F.as_tensor(x)
        axes = _call_axes("ReduceSum", axis)
        if self.skip_mode and axes == ():
            return x
        if x.dtype is mstype.bool_:
            return F.any(x, axes, self.keep_dims)
        return F.reduce_sum(x, axes, self.keep_dims)


@_export
class ReduceMean(_Reduce):
    """The mean over `axis`; integers stay integers (the mean truncated toward zero)."""

    def _reduce(self, x, axes, keep_dims):
        if x.dtype is mstype.bool_:
            raise TypeError("For 'ReduceMean', a bool input is not supported (MindSpore refuses it too).")
        out = F.mean(x, axes, keep_dims)
        return out if x.dtype.is_floating else F.cast(CP.trunc(out), x.dtype)


@_export
class ReduceMax(_Reduce):
    """The largest element over `axis`."""

    def _reduce(self, x, axes, keep_dims):
        return F.reduce_max(x, axes, keep_dims)


@_export
class ReduceMin(_Reduce):
    """The smallest element over `axis`."""

    def _reduce(self, x, axes, keep_dims):
        return F.reduce_min(x, axes, keep_dims)


@_export
class ReduceProd(_Reduce):
    """The product over `axis`, in the input's dtype (a bool product is all())."""

    def _reduce(self, x, axes, keep_dims):
        if x.dtype is mstype.bool_:
            return F.all(x, axes, keep_dims)
        return F.reduce_prod(x, axes, keep_dims)


@_export
class ReduceAll(_Reduce):
    """True where every element over `axis` is (non-zero); a bool Tensor."""

    def __call__(self, input, axis=None):  # noqa: A002
        return F.all(input, _call_axes("ReduceAll", axis), self.keep_dims)


@_export
class ReduceAny(_Reduce):
    """True where any element over `axis` is (non-zero); a bool Tensor."""

    def __call__(self, x, axis=()):
        return F.any(x, _call_axes("ReduceAny", axis), self.keep_dims)


_INDEX_TYPES = (mstype.int32, mstype.int64)


class _ArgReduce(Operator):
    _prim = None

    def __init__(self, axis=-1, output_type=mstype.int32):
        super().__init__(axis=check_int(self.name, "axis", axis),
                         output_type=check_dtype(self.name, "output_type", output_type, _INDEX_TYPES))

    def __call__(self, input_x):
        return F._arg(self._prim, input_x, self.axis, False, self.output_type)


@_export
class Argmax(_ArgReduce):
    """The index of the largest element along `axis` (the first of equal ones), int32 by default."""
    _prim = red.argmax


@_export
class Argmin(_ArgReduce):
    """The index of the smallest element along `axis` (the first of equal ones), int32 by default."""
    _prim = red.argmin


class _ArgWithValue(Operator):
    _prim = None

    def __init__(self, axis=0, keep_dims=False):
        super().__init__(axis=check_int(self.name, "axis", axis),
                         keep_dims=check_bool(self.name, "keep_dims", keep_dims))

    def __call__(self, input):  # noqa: A002
        x = F.as_tensor(input)
        index = F._arg(self._prim, x, self.axis, self.keep_dims, mstype.int64)
        values = (F.reduce_max if self._prim is red.argmax else F.reduce_min)(x, self.axis, self.keep_dims)
        return index, values


@_export
class ArgMaxWithValue(_ArgWithValue):
    """(index, value) of the largest element along `axis`; the index is int64 (MindSpore 2.10)."""
    _prim = red.argmax


@_export
class ArgMinWithValue(_ArgWithValue):
    """(index, value) of the smallest element along `axis`; the index is int64 (MindSpore 2.10)."""
    _prim = red.argmin


# == scans and sorts ===========================================================================

class _Scan(Operator):
    _prim = None
    _identity = 0

    def __init__(self, exclusive=False, reverse=False):
        super().__init__(exclusive=check_bool(self.name, "exclusive", exclusive),
                         reverse=check_bool(self.name, "reverse", reverse))

    def __call__(self, x, axis):
        x = F.as_tensor(x)
        axis = check_call_int(self.name, "axis", axis)
        if x.ndim == 0:
            return x
        axis = F._axis(axis, x.ndim)
        if self.exclusive:
            # Shift by one along the axis, the identity entering where the scan starts: exact,
            # where subtracting x from the inclusive scan would round.
            n = x.shape[axis]
            pads = [(0, 0)] * x.ndim
            if self.reverse:
                pads[axis] = (0, 1)
                x = F.slice_axis(F.pad(x, pads, value=self._identity), axis, 1, n + 1)
            else:
                pads[axis] = (1, 0)
                x = F.slice_axis(F.pad(x, pads, value=self._identity), axis, 0, n)
        return self._prim.bind(x, axis=axis, reverse=self.reverse)


@_export
class CumSum(_Scan):
    """The running sum along `axis`; `exclusive` leaves each element out of its own sum,
    `reverse` runs from the end."""
    _prim = sorting.cumsum_p
    _identity = 0


@_export
class CumProd(_Scan):
    """The running product along `axis`; `exclusive` and `reverse` as in CumSum."""
    _prim = sorting.cumprod_p
    _identity = 1


@_export
class TopK(Operator):
    """(values, indices) of the k largest elements along the last axis; indices int32. Equal
    values come in order of index. The result is sorted also with `sorted=False` (any order is
    allowed then; MindSpore's CPU kernel gives another)."""

    def __init__(self, sorted=True):  # noqa: A002 - MindSpore's names
        super().__init__(sorted=check_bool("TopK", "sorted", sorted))

    def __call__(self, input, k):  # noqa: A002
        return sorting.topk(input, check_call_int("TopK", "k", k), None, True, self.sorted)


@_export
class Sort(Operator):
    """(values, indices) sorted along `axis`; indices int32; stable."""

    def __init__(self, axis=-1, descending=False):
        super().__init__(axis=check_int("Sort", "axis", axis), descending=check_bool("Sort", "descending", descending))

    def __call__(self, x):
        return sorting.sort(x, self.axis, self.descending)


# == shapes and indexing =======================================================================

@_export
class Reshape(Operator):
    """x with a new shape (one -1 takes the remaining size)."""

    def __call__(self, input, shape):  # noqa: A002
        return F.reshape(input, check_int_or_ints("Reshape", "shape", shape))


@_export
class Transpose(Operator):
    """x with its axes permuted; `perm` names every axis."""

    def __call__(self, input, input_perm):  # noqa: A002
        x = F.as_tensor(input)
        perm = check_ints("Transpose", "input_perm", input_perm)
        if len(perm) != x.ndim:
            raise ValueError(f"For 'Transpose', the size of 'input_perm' must equal the rank of the input {x.ndim}, "
                             f"but got {perm}.")
        return F.transpose(x, perm)


@_export
class ExpandDims(Operator):
    """x with a new axis of size 1 at `axis`."""

    def __call__(self, input_x, axis):
        return F.expand_dims(input_x, check_call_int("ExpandDims", "axis", axis))


@_export
class Squeeze(Operator):
    """x without its size-1 axes among `axis` (all of them for ()); a named axis of another
    size stays (MindSpore 2.10, measured)."""

    def __init__(self, axis=()):
        super().__init__(axis=check_int_or_ints("Squeeze", "axis", axis))

    def __call__(self, input):  # noqa: A002
        return F.squeeze(input, self.axis)


@_export
class Flatten(Operator):
    """[N, ...] -> [N, prod(...)]; a vector [N] becomes [N, 1]."""

    def __call__(self, input_x):
        x = F.as_tensor(input_x)
        if x.ndim == 0:
            raise ValueError("For 'Flatten', the input must have at least 1 dimension, but got a 0-d Tensor.")
        return F.reshape(x, (x.shape[0], -1) if x.shape[0] else (0, math.prod(x.shape[1:])))


@_export
class Concat(Operator):
    """The tensors of a tuple or list joined along `axis`."""

    def __init__(self, axis=0):
        super().__init__(axis=check_int("Concat", "axis", axis))

    def __call__(self, tensors):
        if not isinstance(tensors, (tuple, list)):
            raise TypeError(f"For 'Concat', the input must be a tuple or list of Tensors, but got "
                            f"{type(tensors).__name__}.")
        return F.concat(tensors, self.axis)


@_export
class Stack(Operator):
    """The tensors of a tuple or list stacked along a new axis `axis`."""

    def __init__(self, axis=0):
        super().__init__(axis=check_int("Stack", "axis", axis))

    def __call__(self, x):
        if not isinstance(x, (tuple, list)) or not x:
            raise TypeError(f"For 'Stack', the input must be a non-empty tuple or list of Tensors, but got "
                            f"{type(x).__name__}.")
        return F.stack(x, self.axis)


@_export
class Unstack(Operator):
    """The slices along `axis`, that axis removed, as a tuple (`num`: their count, checked)."""

    def __init__(self, axis=0, num=None):
        super().__init__(axis=check_int("Unstack", "axis", axis),
                         num=None if num is None else check_positive_int("Unstack", "num", num))

    def __call__(self, x):
        x = F.as_tensor(x)
        out = tuple(F.unstack(x, self.axis))
        if self.num is not None and self.num != len(out):
            raise ValueError(f"For 'Unstack', 'num' is {self.num} but the input has {len(out)} slices along axis "
                             f"{self.axis}.")
        return out


@_export
class Split(Operator):
    """`output_num` equal pieces along `axis`, as a tuple."""

    def __init__(self, axis=0, output_num=1):
        super().__init__(axis=check_int("Split", "axis", axis),
                         output_num=check_positive_int("Split", "output_num", output_num))

    def __call__(self, input_x):
        x = F.as_tensor(input_x)
        axis = F._axis(self.axis, x.ndim)
        if x.shape[axis] % self.output_num:
            raise ValueError(f"For 'Split', x_shape[{axis}] must be divisible by output_num = {self.output_num}, but "
                             f"got {x.shape[axis]}")
        return F.split(x, x.shape[axis] // self.output_num, axis) if x.shape[axis] else (x,) * self.output_num


@_export
class Tile(Operator):
    """x repeated `dims` times per axis (aligned from the last axis)."""

    def __call__(self, input, dims):  # noqa: A002
        return F.tile(input, check_ints("Tile", "dims", dims))


@_export
class BroadcastTo(Operator):
    """x broadcast to `shape` (-1 keeps an axis' size)."""

    def __init__(self, shape):
        shape = check_int_or_ints("BroadcastTo", "shape", shape)
        shape = (shape,) if isinstance(shape, int) else shape
        for d in shape:
            if d < -1:
                raise ValueError(f"For 'BroadcastTo', each dimension of 'shape' must be -1 or >= 0, but got {shape}.")
        super().__init__(shape=shape)

    def __call__(self, input):  # noqa: A002
        return F.broadcast_to(input, self.shape)


@_export
class Slice(Operator):
    """x[begin : begin + size] per axis; a size of -1 runs to the end."""

    def __call__(self, input, begin, size):  # noqa: A002
        x = F.as_tensor(input)
        begin, size = check_ints("Slice", "begin", begin), check_ints("Slice", "size", size)
        if len(begin) != x.ndim or len(size) != x.ndim:
            raise ValueError(f"For 'Slice', 'begin' and 'size' need one entry per axis of the input (rank {x.ndim}), "
                             f"but got {begin} and {size}.")
        index = []
        for b, s, d in zip(begin, size, x.shape):
            end = d if s == -1 else b + s
            if not 0 <= b <= end <= d:
                raise ValueError(f"For 'Slice', begin {begin} and size {size} do not fit the input shape "
                                 f"{list(x.shape)}.")
            index.append(slice(b, end))
        return F.getitem(x, tuple(index))


def _bits(mask: int, n: int) -> list:
    return [bool(mask >> i & 1) for i in range(n)]


@_export
class StridedSlice(Operator):
    """x[begin:end:strides] with TensorFlow's masks: bit i of `begin_mask`/`end_mask` ignores
    begin[i]/end[i], of `ellipsis_mask` puts `...` there, of `new_axis_mask` a new axis, of
    `shrink_axis_mask` takes the single index begin[i] (dropping the axis)."""

    def __init__(self, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0):
        masks = dict(begin_mask=begin_mask, end_mask=end_mask, ellipsis_mask=ellipsis_mask,
                     new_axis_mask=new_axis_mask, shrink_axis_mask=shrink_axis_mask)
        super().__init__(**{k: check_int("StridedSlice", k, v, minimum=0) for k, v in masks.items()})
        if bin(self.ellipsis_mask).count("1") > 1:
            raise ValueError(f"For 'StridedSlice', only one bit of 'ellipsis_mask' may be set, but got "
                             f"{self.ellipsis_mask}.")

    def __call__(self, input_x, begin, end, strides):
        x = F.as_tensor(input_x)
        begin, end = check_ints("StridedSlice", "begin", begin), check_ints("StridedSlice", "end", end)
        strides = check_ints("StridedSlice", "strides", strides)
        n = len(begin)
        if len(end) != n or len(strides) != n:
            raise ValueError(f"For 'StridedSlice', 'begin', 'end' and 'strides' must have the same length, but got "
                             f"{begin}, {end} and {strides}.")
        if 0 in strides:
            raise ValueError(f"For 'StridedSlice', 'strides' must not contain 0, but got {strides}.")
        bm, em, el = _bits(self.begin_mask, n), _bits(self.end_mask, n), _bits(self.ellipsis_mask, n)
        nm, sm = _bits(self.new_axis_mask, n), _bits(self.shrink_axis_mask, n)
        index = []
        for i in range(n):
            if el[i]:
                index.append(Ellipsis)
            elif nm[i]:
                index.append(None)
            elif sm[i]:
                index.append(begin[i])
            else:
                index.append(slice(None if bm[i] else begin[i], None if em[i] else end[i], strides[i]))
        return F.getitem(x, tuple(index))


@_export
class Gather(Operator):
    """x's slices at `input_indices` along `axis` (a negative index counts from the end);
    with `batch_dims` b, the first b axes of x and the indices go together."""

    def __init__(self, batch_dims=0):
        super().__init__(batch_dims=check_int("Gather", "batch_dims", batch_dims, minimum=0))

    def __call__(self, input_params, input_indices, axis):
        x, idx = F.as_tensor(input_params), F.as_tensor(input_indices)
        axis = F._axis(check_call_int("Gather", "axis", axis), x.ndim)
        b = self.batch_dims
        if b == 0:
            return F.gather(x, idx, axis)
        if b > axis or b > idx.ndim or x.shape[:b] != idx.shape[:b]:
            raise ValueError(f"For 'Gather', batch_dims {b} needs axis >= batch_dims and the first {b} dimensions of "
                             f"the input {list(x.shape)} and the indices {list(idx.shape)} to agree.")
        # Fold the batch axes into the gathered one: each batch's indices offset to its rows.
        batch, size = math.prod(x.shape[:b]), x.shape[axis]
        moved = F.moveaxis(F.reshape(x, (batch,) + x.shape[b:]), axis - b + 1, 1)   # [B, size, pre, post]
        flat = F.reshape(moved, (batch * size,) + moved.shape[2:])
        idx = F.reshape(idx, (batch,) + idx.shape[b:])
        if idx.dtype.np_dtype.kind == "i":
            idx = F.select(F.less(idx, 0), F.add(idx, size), idx)
        offsets = Tensor(np.arange(batch).reshape((batch,) + (1,) * (idx.ndim - 1)) * size, idx.dtype)
        out = F.take_in_range(flat, F.add(idx, offsets), 0)                          # [B, idx..., pre, post]
        ni, npre = idx.ndim - 1, axis - b
        perm = [0] + list(range(1 + ni, 1 + ni + npre)) + list(range(1, 1 + ni)) + \
            list(range(1 + ni + npre, out.ndim))
        out = F.transpose(out, perm)
        return F.reshape(out, x.shape[:b] + out.shape[1:])


@_export
class GatherD(Operator):
    """out[i][j] = x[index[i][j]][j] (dim 0), x[i][index[i][j]] (dim 1), ...: index has x's
    rank and is no larger than x along the other axes."""

    def __call__(self, x, dim, index):
        x, index = F.as_tensor(x), F.as_tensor(index)
        dim = F._axis(check_call_int("GatherD", "dim", dim), x.ndim)
        if index.ndim != x.ndim:
            raise ValueError(f"For 'GatherD', the index must have the input's rank {x.ndim}, but got shape "
                             f"{list(index.shape)}.")
        # Crop x to the index's extent on the other axes (take_along_axis wants them equal).
        if any(i != dim and index.shape[i] != x.shape[i] for i in range(x.ndim)):
            x = F.getitem(x, tuple(slice(None) if i == dim else slice(0, index.shape[i]) for i in range(x.ndim)))
        if index.dtype.np_dtype.kind == "i":
            index = F.select(F.less(index, 0), F.add(index, x.shape[dim]), index)
        return F.gather_elements(x, dim, index)


GatherNd = _simple("GatherNd", IX.gather_nd, "input_x at the index vectors on the last axis of `indices`: out[...] = "
                   "input_x[indices[..., 0], ..., indices[..., K-1]], with input_x's remaining axes after", arity=2)
TensorScatterUpdate = _simple("TensorScatterUpdate", IX.tensor_scatter_update,
                              "input_x with `updates` written at `indices` (index vectors on the last axis)", arity=3)
TensorScatterAdd = _simple("TensorScatterAdd", IX.tensor_scatter_add,
                           "input_x with `updates` added at `indices` (index vectors on the last axis)", arity=3)
TensorScatterSub = _simple("TensorScatterSub", IX.tensor_scatter_sub, "input_x with `updates` subtracted at `indices`",
                           arity=3)
TensorScatterMax = _simple("TensorScatterMax", IX.tensor_scatter_max,
                           "input_x with the larger of each element and the `updates` written to it", arity=3)
TensorScatterMin = _simple("TensorScatterMin", IX.tensor_scatter_min,
                           "input_x with the smaller of each element and the `updates` written to it", arity=3)
TensorScatterMul = _simple("TensorScatterMul", IX.tensor_scatter_mul,
                           "input_x with each element multiplied by the `updates` written to it", arity=3)
TensorScatterDiv = _simple("TensorScatterDiv", IX.tensor_scatter_div,
                           "input_x with each element divided by the `updates` written to it", arity=3)


@_export
class ScatterNd(Operator):
    """Zeros of `shape` with `updates` added at `indices` (index vectors in the last axis);
    repeated indices add up, as MindSpore's."""

    def __call__(self, indices, updates, shape):
        return IX.scatter_nd(indices, updates, _shape("ScatterNd", shape))


@_export
class UnsortedSegmentSum(Operator):
    """out[s] = the sum of input_x's slices whose segment id is s, for s < num_segments;
    `segment_ids` covers input_x's leading axes. Ids outside [0, num_segments) are dropped
    (TensorFlow's rule; MindSpore 2.10's CPU kernel raises)."""

    def __call__(self, input_x, segment_ids, num_segments):
        x, ids = F.as_tensor(input_x), F.as_tensor(segment_ids)
        n = check_call_int("UnsortedSegmentSum", "num_segments", num_segments)
        if not ids.dtype.is_integer or x.shape[:ids.ndim] != ids.shape:
            raise ValueError(f"For 'UnsortedSegmentSum', segment_ids must be integers of the input's leading shape, "
                             f"but got {ids.dtype}{list(ids.shape)} for an input of shape {list(x.shape)}.")
        rest = x.shape[ids.ndim:]
        ids, x = F.reshape(ids, (-1,)), F.reshape(x, (-1,) + rest)
        valid = F.logical_and(F.greater_equal(ids, 0), F.less(ids, n))
        x = F.select(F.reshape(valid, (-1,) + (1,) * len(rest)), x, F.zeros_like(x))
        ids = F.select(valid, ids, F.zeros_like(ids))
        return shape_ops.scatter_add.bind(F.zeros((n,) + rest, x.dtype), ids, x, axis=0)


@_export
class Shape(Operator):
    """x's shape as a tuple of ints."""

    def __call__(self, x):
        return tuple(F.as_tensor(x).shape)


@_export
class Size(Operator):
    """x's number of elements, an int."""

    def __call__(self, input_x):
        return int(F.as_tensor(input_x).size)


@_export
class Rank(Operator):
    """x's number of dimensions, an int."""

    def __call__(self, x):
        return F.as_tensor(x).ndim


@_export
class DType(Operator):
    """x's dtype."""

    def __call__(self, x):
        return F.as_tensor(x).dtype


@_export
class Cast(Operator):
    """x converted to `dtype`."""

    def __call__(self, input_x, dtype):
        return F.cast(input_x, check_dtype("Cast", "dtype", dtype))


@_export
class Select(Operator):
    """x where `condition` is True, else y."""

    def __call__(self, condition, input, other):  # noqa: A002
        return F.select(condition, input, other)


@_export
class MaskedFill(Operator):
    """x with `value` where the bool `mask` is True."""

    def __call__(self, input_x, mask, value):
        return CP.masked_fill(input_x, mask, value)


@_export
class ReverseV2(Operator):
    """x with the order of elements reversed along each axis of `axis`."""

    def __init__(self, axis):
        if not isinstance(axis, (tuple, list)):
            raise TypeError(f"For 'ReverseV2', the type of 'axis' should be one of '[list of int, tuple of int]', but "
                            f"got {type(axis).__name__}.")
        super().__init__(axis=check_ints("ReverseV2", "axis", axis))

    def __call__(self, input):  # noqa: A002
        return CP.flip(input, self.axis)


@_export
class Roll(Operator):
    """x rolled by `shifts` along `dims` (the flattened tensor when dims is None)."""

    def __init__(self, shifts, dims=None):
        shifts = check_int_or_ints("Roll", "shifts", shifts)
        super().__init__(shifts=(shifts,) if isinstance(shifts, int) else shifts,
                         dims=None if dims is None else check_int_or_ints("Roll", "dims", dims))

    def __call__(self, input):  # noqa: A002
        return CP.roll(input, self.shifts, self.dims)


@_export
class Tril(Operator):
    """The lower triangle of the last two axes (j <= i + diagonal), zeros elsewhere."""

    def __init__(self, diagonal=0):
        super().__init__(diagonal=check_int("Tril", "diagonal", diagonal))

    def __call__(self, x):
        return CP.tril(x, self.diagonal)


@_export
class Triu(Operator):
    """The upper triangle of the last two axes (j >= i + diagonal), zeros elsewhere."""

    def __init__(self, diagonal=0):
        super().__init__(diagonal=check_int("Triu", "diagonal", diagonal))

    def __call__(self, input):  # noqa: A002
        return CP.triu(input, self.diagonal)


@_export
class Meshgrid(Operator):
    """Coordinate grids from a tuple of 1-D tensors ('xy': Cartesian, 'ij': matrix order)."""

    def __init__(self, indexing="xy"):
        super().__init__(indexing=check_choice("Meshgrid", "indexing", indexing, ("xy", "ij")))

    def __call__(self, inputs):
        if not isinstance(inputs, (tuple, list)):
            raise TypeError(f"For 'Meshgrid', the input must be a tuple or list of Tensors, but got "
                            f"{type(inputs).__name__}.")
        return CP.meshgrid(*inputs, indexing=self.indexing)


@_export
class Pad(Operator):
    """x padded with zeros: `paddings` has one (before, after) pair per axis."""

    def __init__(self, paddings):
        if not isinstance(paddings, tuple):
            raise TypeError(f"For 'Pad', the type of 'paddings' should be 'tuple', but got type "
                            f"'{type(paddings).__name__}'.")
        for pair in paddings:
            if not isinstance(pair, (tuple, list)) or len(pair) != 2 or not all(is_int(p) for p in pair):
                raise ValueError(f"For 'Pad', each item of 'paddings' must be a (before, after) pair of ints, but "
                                 f"got {paddings}.")
        super().__init__(paddings=tuple(tuple(int(p) for p in pair) for pair in paddings))

    def __call__(self, x):
        x = F.as_tensor(x)
        if len(self.paddings) != x.ndim:
            raise ValueError(f"For 'Pad', 'paddings' needs one pair per axis of the input (rank {x.ndim}), but got "
                             f"{len(self.paddings)}.")
        return F.pad(x, self.paddings)


# == constructors ==============================================================================

def _shape(op: str, shape) -> tuple:
    if is_int(shape):
        return (int(shape),)
    return check_ints(op, "shape", shape)


@_export
class Fill(Operator):
    """A Tensor of `dims` filled with `x`, of `dtype`."""

    def __call__(self, dtype, dims, x):
        dtype = check_dtype("Fill", "dtype", dtype)
        shape = _shape("Fill", dims)
        if isinstance(x, Tensor):
            return F.broadcast_to(F.cast(x, dtype), shape)
        return F.full(shape, x, dtype)


@_export
class Zeros(Operator):
    """Zeros of `size` (a shape), float32 unless `dtype` says."""

    def __call__(self, size, dtype=None):
        return F.zeros(_shape("Zeros", size), mstype.float32 if dtype is None else check_dtype("Zeros", "dtype", dtype))


@_export
class Ones(Operator):
    """Ones of `shape`, float32 unless `dtype` says."""

    def __call__(self, shape, dtype=None):
        return F.ones(_shape("Ones", shape), mstype.float32 if dtype is None else check_dtype("Ones", "dtype", dtype))


@_export
class Eye(Operator):
    """An n x m matrix of `dtype` with ones on the diagonal."""

    def __call__(self, n, m, dtype):
        n, m = check_positive_int("Eye", "n", n), check_positive_int("Eye", "m", m)
        return F.eye(n, m, check_dtype("Eye", "dtype", dtype))


@_export
class OneHot(Operator):
    """on_value where indices[...] == k along a new axis `axis` of size `depth`, off_value
    elsewhere (an index out of [0, depth) gives a row of off_value); the values' dtype."""

    def __init__(self, axis=-1):
        super().__init__(axis=check_int("OneHot", "axis", axis, minimum=-1))

    def __call__(self, indices, depth, on_value, off_value):
        indices = F.as_tensor(indices)
        if not indices.dtype.is_integer:
            raise TypeError(f"For 'OneHot', the indices must be an integer Tensor, but got {indices.dtype}.")
        depth = check_call_int("OneHot", "depth", depth)
        on, off = F._pair(on_value, off_value)
        if on.ndim or off.ndim:
            raise ValueError("For 'OneHot', 'on_value' and 'off_value' must be scalars.")
        hot = F.equal(F.expand_dims(indices, -1), Tensor(np.arange(depth), indices.dtype))
        out = F.select(hot, on, off)
        return out if self.axis == -1 else F.moveaxis(out, -1, self.axis)


@_export
class LinSpace(Operator):
    """`num` evenly spaced values from start to stop, both included."""

    def __call__(self, start, stop, num):
        return CP.linspace(start, stop, check_call_int("LinSpace", "num", num))


@_export
class Range(Operator):
    """start, start + step, ... below end: float32 for floats, int64 for integers (MindSpore 2.10,
    measured). The bounds must be known (Python numbers or eager Tensors)."""

    def __init__(self, maxlen=1000000):
        super().__init__(maxlen=check_positive_int("Range", "maxlen", maxlen))

    def __call__(self, start, end, step):
        values = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
        for name, v in zip(("start", "end", "step"), values):
            if not isinstance(v, numbers.Real) or isinstance(v, bool):
                raise TypeError(f"For 'Range', '{name}' must be a number or a 0-d Tensor, but got {v!r}.")
        if values[2] == 0:
            raise ValueError("For 'Range', 'step' must not be 0.")
        integral = all(is_int(v) for v in values)
        out = F.arange(*values, dtype=mstype.int64 if integral else mstype.float32)
        if out.size > self.maxlen:
            raise ValueError(f"For 'Range', the output has {out.size} elements, more than maxlen={self.maxlen}.")
        return out


# == neural networks ===========================================================================

ReLU = _simple("ReLU", F.relu, "max(x, 0)")
ReLU6 = _simple("ReLU6", F.relu6, "min(max(x, 0), 6)")
Sigmoid = _simple("Sigmoid", F.sigmoid, "1 / (1 + exp(-x))")
FastGeLU = _simple("FastGeLU", F.fast_gelu, "x * sigmoid(1.702 x)")
HSwish = _simple("HSwish", F.hardswish, "x * relu6(x + 3) / 6")
HSigmoid = _simple("HSigmoid", F.hardsigmoid, "relu6(x + 3) / 6")
Softplus = _simple("Softplus", F.softplus, "log(1 + exp(x))")
Mish = _simple("Mish", F.mish, "x * tanh(softplus(x))")


@_export
class GeLU(Operator):
    """GELU in its tanh form, 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), as MindSpore
    2.10's GeLU computes it (measured; ops.gelu's default is the exact erf form)."""

    def __call__(self, input):  # noqa: A002
        return F.gelu(input, "tanh")


@_export
class Softsign(Operator):
    """x / (1 + |x|)."""

    def __call__(self, x):
        x = _float_input("Softsign", F.as_tensor(x))
        return F.div(x, F.add(F.abs(x), 1.0))


_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


@_export
class SeLU(Operator):
    """scale * elu(x, alpha) with SELU's constants (1.0507..., 1.6732...)."""

    def __call__(self, input_x):
        return F.mul(F.elu(input_x, _SELU_ALPHA), _SELU_SCALE)


@_export
class Elu(Operator):
    """x for x > 0, alpha * (exp(x) - 1) else (MindSpore's kernel takes alpha 1.0 only; any
    float works here)."""

    def __init__(self, alpha=1.0):
        super().__init__(alpha=check_float("Elu", "alpha", alpha))

    def __call__(self, input_x):
        return F.elu(input_x, self.alpha)


class _SoftmaxLike(Operator):
    def __init__(self, axis=-1):
        super().__init__(axis=check_int_or_ints(self.name, "axis", axis, allow_list=False))


@_export
class Softmax(_SoftmaxLike):
    """exp(x) / sum(exp(x)) along `axis` (an int or a tuple, stored as a tuple as MindSpore does)."""

    def __init__(self, axis=-1):
        super().__init__(axis)
        if isinstance(self.axis, int):
            self.add_prim_attr("axis", (self.axis,))

    def __call__(self, input):  # noqa: A002
        return F.softmax(_float_input("Softmax", F.as_tensor(input)), self.axis)


@_export
class LogSoftmax(_SoftmaxLike):
    """x - log(sum(exp(x))) along `axis`."""

    def __call__(self, logits):
        return F.log_softmax(_float_input("LogSoftmax", F.as_tensor(logits)), self.axis)


@_export
class PReLU(Operator):
    """x where x > 0, else weight * x, `weight` one slope per channel (axis 1) or one for all."""

    def __call__(self, input, weight):  # noqa: A002
        x, w = F._pair(input, weight)
        if w.ndim != 1 or (w.shape[0] != 1 and (x.ndim < 2 or w.shape[0] != x.shape[1])):
            raise ValueError(f"For 'PReLU', the weight must be 1-D with one slope per channel (axis 1 of the input "
                             f"{list(x.shape)}) or a single one, but got shape {list(w.shape)}.")
        if x.ndim >= 2:
            w = F.reshape(w, (-1,) + (1,) * (x.ndim - 2))
        # x unless x <= 0: a NaN takes x's side, so its gradient is 1 (MindSpore 2.10's, measured)
        return F.select(F.less_equal(x, 0), F.mul(w, x), x)


_DATA_FORMATS = ("NCHW", "NHWC", "NCDHW")


@_export
class BiasAdd(Operator):
    """x + bias along the channel axis (axis 1 for NCHW and NCDHW, the last for NHWC)."""

    def __init__(self, data_format="NCHW"):
        super().__init__(data_format=check_choice("BiasAdd", "data_format", data_format, _DATA_FORMATS))

    def __call__(self, input_x, bias):
        x, b = F._pair(input_x, bias)
        if x.ndim < 2 or b.ndim != 1:
            raise ValueError(f"For 'BiasAdd', the input needs at least 2 dimensions and the bias 1, but got shapes "
                             f"{list(x.shape)} and {list(b.shape)}.")
        channel = x.ndim - 1 if self.data_format == "NHWC" else 1
        if b.shape[0] != x.shape[channel]:
            raise ValueError(f"For 'BiasAdd', the bias has {b.shape[0]} values for {x.shape[channel]} channels "
                             f"(axis {channel} of {list(x.shape)}).")
        return F.add(x, F.reshape(b, (-1,) + (1,) * (x.ndim - 1 - channel)))


def _window_arg(op: str, arg: str, value, lengths=(2,)) -> tuple:
    """An int or a tuple of positive ints, given as (h, w) or as (1, 1, h, w)."""
    if is_int(value) and value > 0:
        return (int(value), int(value))
    if isinstance(value, tuple) and len(value) in lengths and all(is_int(v) and v > 0 for v in value):
        return tuple(int(v) for v in value[-2:])
    if not is_int(value) and not isinstance(value, tuple):
        raise TypeError(f"For '{op}', the type of '{arg}' should be one of '['int', 'tuple']', but got type "
                        f"'{type(value).__name__}'.")
    sizes = " or ".join(str(n) for n in lengths)
    raise ValueError(f"For '{op}' attr '{arg}' must be an positive int number or a tuple of {sizes} positive int "
                     f"numbers, but got {value}")


@_export
class Conv2D(Operator):
    """A 2-D convolution of x [N, C, H, W] with weight [out_channel, C / group, kh, kw].
    pad_mode 'valid' (no padding), 'same' (out = ceil(in / stride), the odd extra row and column
    after) or 'pad' (`pad`: an int or (top, bottom, left, right))."""

    def __init__(self, out_channel, kernel_size, mode=1, pad_mode="valid", pad=0, stride=1, dilation=1, group=1,
                 data_format="NCHW"):
        op = "Conv2D"
        out_channel = check_positive_int(op, "out_channel", out_channel)
        kernel = _window_arg(op, "kernel_size", kernel_size)
        if mode != 1:
            raise ValueError(f"For 'Conv2D', the 'mode' must be int and must = 1, but got '{mode}'.")
        pad_mode = check_choice(op, "pad_mode", pad_mode, ("valid", "same", "pad"))
        if is_int(pad):
            pads = (int(pad),) * 4
        elif isinstance(pad, tuple) and len(pad) == 4 and all(is_int(p) for p in pad):
            pads = tuple(int(p) for p in pad)
        else:
            raise ValueError(f"For 'Conv2D', the 'pad' must be an int or a tuple of 4 ints (top, bottom, left, "
                             f"right), but got {pad!r}.")
        if any(p < 0 for p in pads):
            raise ValueError(f"For 'Conv2D', the 'pad item' must be int and must >= 0, but got {pad!r}.")
        if pad_mode != "pad" and any(pads):
            raise ValueError(f"For 'Conv2D', the 'pad' must be zero when 'pad_mode' is not 'pad', but got 'pad': "
                             f"{pad} and 'pad_mode': {pad_mode}.")
        stride = _window_arg(op, "stride", stride, (2, 4))
        dilation = _window_arg(op, "dilation", dilation, (2, 4))
        group = check_positive_int(op, "group", group)
        if data_format != "NCHW":
            raise ValueError(f"For 'Conv2D', only the 'NCHW' data_format is supported (MindSpore supports "
                             f"'NHWC' on GPU only), but got {data_format!r}.")
        super().__init__(out_channel=out_channel, kernel_size=kernel_size, mode=1, pad_mode=pad_mode, pad=pads,
                         stride=(1, 1) + stride, dilation=(1, 1) + dilation, group=group, data_format="NCHW",
                         groups=group)
        object.__setattr__(self, "_kernel", kernel)

    def __call__(self, x, weight):
        x, w = F._pair(x, weight)
        if x.ndim != 4 or w.ndim != 4:
            raise ValueError(f"For 'Conv2D', the input and the weight must be 4-D, but got shapes {list(x.shape)} "
                             f"and {list(w.shape)}.")
        expected = (self.out_channel, x.shape[1] // self.group) + self._kernel
        if w.shape != expected or x.shape[1] % self.group:
            raise ValueError(f"For 'Conv2D', the weight's shape {list(w.shape)} should be {list(expected)} "
                             f"(out_channel, in_channels / group, kernel_size) for an input of {x.shape[1]} channels.")
        stride, dilation = self.stride[2:], self.dilation[2:]
        if self.pad_mode == "same":
            pads = tuple(F.same_padding(x.shape[2 + i], self._kernel[i], stride[i], dilation[i]) for i in range(2))
        else:
            pads = ((self.pad[0], self.pad[1]), (self.pad[2], self.pad[3]))
        return F.conv2d_padded(x, w, stride, pads, dilation, self.group)


class _Pool(Operator):
    def __init__(self, kernel_size=1, strides=1, pad_mode="valid", data_format="NCHW"):
        op = self.name
        kernel = _window_arg(op, "kernel_size", kernel_size)
        strides = _window_arg(op, "strides", strides)
        pad_mode = check_choice(op, "pad_mode", pad_mode, ("VALID", "SAME"), upper=True)
        data_format = check_choice(op, "data_format", data_format, ("NCHW", "NHWC"))
        if data_format != "NCHW":
            raise ValueError(f"For '{op}', only the 'NCHW' data_format is supported (MindSpore supports 'NHWC' on "
                             f"GPU only), but got {data_format!r}.")
        # (1, 1, kh, kw), as MindSpore's MaxPool records them
        super().__init__(kernel_size=(1, 1) + kernel, strides=(1, 1) + strides, pad_mode=pad_mode,
                         data_format=data_format)

    def _window(self, x):
        if x.ndim != 4:
            raise ValueError(f"For '{self.name}', the input must be 4-D [N, C, H, W], but got shape {list(x.shape)}.")
        if self.pad_mode == "SAME":
            pads = tuple(F.same_padding(x.shape[2 + i], self.kernel_size[2 + i], self.strides[2 + i], 1)
                         for i in range(2))
        else:
            pads = ((0, 0), (0, 0))
        return self.kernel_size, self.strides, ((0, 0), (0, 0)) + pads


@_export
class MaxPool(_Pool):
    """The largest element of each kernel_size window, moved by `strides` ('SAME' padding
    never wins)."""

    def __call__(self, x):
        x = F.as_tensor(x)
        return F.max_pool(x, *self._window(x))


@_export
class AvgPool(_Pool):
    """The mean of each window; with 'SAME' the divisor counts the window's real elements."""

    def __call__(self, x):
        x = F.as_tensor(x)
        window, strides, pads = self._window(x)
        total = F.sum_pool(x, window, strides, pads)
        if all(p == (0, 0) for p in pads):
            return F.div(total, float(math.prod(self.kernel_size)))   # the leading 1s change nothing
        counts = F.sum_pool(Tensor(np.ones((1, 1) + x.shape[2:], x.dtype.np_dtype)), window, strides, pads)
        return F.div(total, counts)


@_export
class L2Normalize(Operator):
    """x / sqrt(max(sum(x ** 2, axis), epsilon))."""

    def __init__(self, axis=0, epsilon=1e-4):
        if is_int(axis):
            axis = [int(axis)]
        elif not isinstance(axis, (tuple, list)) or not all(is_int(a) for a in axis):
            raise TypeError(f"For 'L2Normalize', the type of 'axis' should be one of '['list', 'tuple']', but got type "
                            f"'{type(axis).__name__}'.")
        super().__init__(axis=list(axis), epsilon=check_float("L2Normalize", "epsilon", epsilon))

    def __call__(self, x):
        x = _float_input("L2Normalize", F.as_tensor(x))
        square_sum = F.reduce_sum(F.square(x), tuple(self.axis), True)
        return F.mul(x, F.rsqrt(F.maximum(square_sum, self.epsilon)))


@_export
class LayerNorm(Operator):
    """(y, mean, variance) normalising over the axes from `begin_norm_axis` on; gamma and beta
    span the axes from `begin_params_axis`. mean and variance (the biased one, without epsilon)
    keep the normalised axes as 1s and are float32 for a float16 input (MindSpore 2.10 on CPU,
    measured: its third output is the variance, not 1 / sqrt(variance + epsilon))."""

    def __init__(self, begin_norm_axis=1, begin_params_axis=1, epsilon=1e-7):
        super().__init__(begin_norm_axis=check_int("LayerNorm", "begin_norm_axis", begin_norm_axis),
                         begin_params_axis=check_int("LayerNorm", "begin_params_axis", begin_params_axis),
                         epsilon=check_float("LayerNorm", "epsilon", epsilon))

    def __call__(self, input_x, gamma, beta):
        x = _float_input("LayerNorm", F.as_tensor(input_x))
        begin = F._axis(self.begin_norm_axis, x.ndim, "begin_norm_axis")
        params = F._axis(self.begin_params_axis, x.ndim, "begin_params_axis")
        gamma, beta = F.as_tensor(gamma), F.as_tensor(beta)
        if gamma.shape != x.shape[params:] or beta.shape != x.shape[params:]:
            raise ValueError(f"For 'LayerNorm', gamma and beta must have shape {list(x.shape[params:])} (the input's "
                             f"axes from begin_params_axis), but got {list(gamma.shape)} and {list(beta.shape)}.")
        compute = mstype.float32 if x.dtype in (mstype.float16, mstype.bfloat16) else x.dtype
        xc = F.cast(x, compute)
        axes = tuple(range(begin, x.ndim))
        mean = F.mean(xc, axes, True)
        centered = F.sub(xc, mean)
        variance = F.mean(F.square(centered), axes, True)
        normed = F.mul(centered, F.rsqrt(F.add(variance, self.epsilon)))
        y = F.add(F.mul(normed, F.cast(gamma, compute)), F.cast(beta, compute))
        return F.cast(y, x.dtype), mean, variance


@_export
class Dropout(Operator):
    """(output, mask): each element kept with probability keep_prob and scaled by 1/keep_prob,
    the mask 1 where kept (the input's dtype). Always drops (a primitive has no training flag);
    Seed0/Seed1 not both 0 give the operator a stream of its own."""

    def __init__(self, keep_prob=0.5, Seed0=0, Seed1=0):  # noqa: N803 - MindSpore's names
        super().__init__(keep_prob=check_float("Dropout", "keep_prob", keep_prob, above=0.0, maximum=1.0),
                         Seed0=check_int("Dropout", "Seed0", Seed0, minimum=0),
                         Seed1=check_int("Dropout", "Seed1", Seed1, minimum=0))
        object.__setattr__(self, "_rng", _KeyStream("Dropout", self.Seed0, self.Seed1))

    def __call__(self, x):
        x = _float_input("Dropout", F.as_tensor(x))
        if self.keep_prob == 1.0:
            return x, F.ones_like(x)
        keep = F.less(F.uniform(x.shape, dtype=x.dtype, key=self._rng.next()), self.keep_prob)
        mask = F.cast(keep, x.dtype)
        return F.select(keep, F.div(x, self.keep_prob), F.zeros_like(x)), mask


# == losses ====================================================================================

@_export
class SoftmaxCrossEntropyWithLogits(Operator):
    """(loss, backprop) for logits and dense labels [N, C]: loss [N] = -sum(labels *
    log_softmax(logits)), backprop = softmax(logits) - labels."""

    def __call__(self, logits, labels):
        logits, labels = F._pair(logits, labels)
        _float_input("SoftmaxCrossEntropyWithLogits", logits)
        if logits.ndim != 2 or labels.shape != logits.shape:
            raise ValueError(f"For 'SoftmaxCrossEntropyWithLogits', logits and labels must both be [N, C], but got "
                             f"{list(logits.shape)} and {list(labels.shape)}.")
        logp = F.log_softmax(logits, -1)
        loss = F.neg(F.reduce_sum(F.mul(labels, logp), -1))
        return loss, F.sub(F.exp(logp), labels)


@_export
class SparseSoftmaxCrossEntropyWithLogits(Operator):
    """The mean over the batch of -log_softmax(logits)[label] for class-index labels [N]; with
    is_grad=True its gradient instead, (softmax(logits) - onehot(labels)) / N."""

    def __init__(self, is_grad=False):
        super().__init__(is_grad=check_bool("SparseSoftmaxCrossEntropyWithLogits", "is_grad", is_grad))
        self.add_prim_attr("sens", 1.0)

    def __call__(self, logits, labels):
        logits, labels = F.as_tensor(logits), F.as_tensor(labels)
        _float_input("SparseSoftmaxCrossEntropyWithLogits", logits)
        if not labels.dtype.is_integer or labels.shape != logits.shape[:-1]:
            raise ValueError(f"For 'SparseSoftmaxCrossEntropyWithLogits', labels must be integers of shape "
                             f"{list(logits.shape[:-1])}, but got {labels.dtype} of shape {list(labels.shape)}.")
        logp = F.log_softmax(logits, -1)
        hot = F.one_hot(labels, logits.shape[-1], dtype=logits.dtype)
        n = float(max(1, math.prod(labels.shape)))
        if self.is_grad:
            return F.div(F.sub(F.exp(logp), hot), n)
        return F.div(F.neg(F.reduce_sum(F.mul(hot, logp))), n)


@_export
class L2Loss(Operator):
    """sum(x ** 2) / 2, a scalar."""

    def __call__(self, x):
        x = _float_input("L2Loss", F.as_tensor(x))
        return F.div(F.reduce_sum(F.square(x)), 2.0)


# == state and debugging =======================================================================

def _checked_value(op: str, variable, value) -> Tensor:
    if not isinstance(variable, Parameter):
        raise TypeError(f"For '{op}', 'variable' must be a Parameter (graphcell's Tensors are immutable), but got "
                        f"{type(variable).__name__}.")
    value = F.as_tensor(value)
    if value.shape != variable.shape and value.ndim:
        raise ValueError(f"For '{op}', 'value' must have the same shape as 'variable'. But got 'value' shape: "
                         f"{list(value.shape)}, 'variable' shape: {list(variable.shape)}.")
    return value


def _new_value(variable: Parameter):
    """What the Assign family returns: a Tensor of the Parameter's new value eagerly (as
    MindSpore), the Parameter itself in a trace, where reading it gives the written value."""
    return variable if _is_traced() else variable.copy()


@_export
class Assign(Operator):
    """Writes `value` into the Parameter `variable` (cast to its dtype) and returns the new value."""

    def __init__(self):
        super().__init__(side_effect_mem=True)

    def __call__(self, variable, value):
        return _new_value(F.assign(variable, _checked_value("Assign", variable, value)))


@_export
class AssignAdd(Operator):
    """variable += value, on a Parameter; returns the new value."""

    def __init__(self):
        super().__init__(side_effect_mem=True)

    def __call__(self, variable, value):
        return _new_value(F.assign(variable, F.add(variable, _checked_value("AssignAdd", variable, value))))


@_export
class AssignSub(Operator):
    """variable -= value, on a Parameter; returns the new value."""

    def __init__(self):
        super().__init__(side_effect_mem=True)

    def __call__(self, variable, value):
        return _new_value(F.assign(variable, F.sub(variable, _checked_value("AssignSub", variable, value))))


@_export
class Depend(Operator):
    """Returns `value`. MindSpore uses it to order `expr` (a side effect) before value's users;
    graphcell's graphs order Parameter writes by data flow, so there is nothing to do."""

    def __init__(self):
        super().__init__(side_effect_propagate=1)

    def __call__(self, value, expr):
        return value


@_export
class CTCGreedyDecoder(Operator):
    """ops.ctc_greedy_decoder as an operator (eager only: its outputs' shapes depend on the values)."""

    def __init__(self, merge_repeated=True):
        super().__init__(merge_repeated=merge_repeated)
        self.merge_repeated = merge_repeated

    def __call__(self, inputs, sequence_length):
        from .ctc_decode import ctc_greedy_decoder
        return ctc_greedy_decoder(inputs, sequence_length, self.merge_repeated)


@_export
class Partial(Operator):
    """`Partial()(func, *bound)`: ops.partial as an operator."""

    def __call__(self, *args):
        from .graph_helpers import partial
        return partial(*args)


@_export
class Print(Operator):
    """Prints its arguments, one a line. Inside a compiled graph (jit, GRAPH_MODE, vmap, grad) it
    prints when the graph runs, on every call, in MindSpore 2.10's graph form (ops/graph_print.py);
    called eagerly (an eager grad's function too), at once, Tensors as their repr (2.10's PyNative Print)."""

    def __init__(self):
        super().__init__(side_effect_io=True)

    def __call__(self, *input_x):
        from .graph_print import print_values
        print_values(input_x)


# == randomness ================================================================================

class _KeyStream:
    """Where a random operator draws its keys: graphcell's global generator when both seeds
    are 0 (MindSpore's "random"), else a generator of the operator's own, seeded by (seed,
    seed2), so two operators with the same seeds give the same sequence of draws. Its state is
    a Parameter, read and advanced as state in traced code as the global key is."""

    def __init__(self, op: str, seed: int, seed2: int):
        self.state = None
        if seed or seed2:
            from .random_state import _key_data
            data = _key_data(((seed & 0xFFFFFFFF) << 32) | (seed2 & 0xFFFFFFFF))
            self.state = Parameter(data, name=f"{op}_rng_state", requires_grad=False)

    def next(self) -> Tensor:
        if self.state is None:
            return F.random_key()
        new_state, key = random_prims.random_split.bind(self.state)
        F.assign(self.state, new_state)
        return key


class _Random(Operator):
    def __init__(self, seed=0, seed2=0):
        op = self.name
        super().__init__(seed=check_int(op, "seed", seed, minimum=0), seed2=check_int(op, "seed2", seed2, minimum=0))
        object.__setattr__(self, "_rng", _KeyStream(op, self.seed, self.seed2))


def _draw_shape(op: str, shape) -> tuple:
    if isinstance(shape, Tensor):
        if shape.is_symbolic:
            raise TypeError(f"For '{op}', 'shape' must be known when the graph is built: a tuple of ints, not a traced "
                            "Tensor.")
        shape = tuple(int(d) for d in shape.asnumpy().reshape(-1))
    return _shape(op, shape)


@_export
class UniformReal(_Random):
    """float32 draws, uniform in [0, 1), of `shape`."""

    def __call__(self, shape):
        return F.uniform(_draw_shape("UniformReal", shape), key=self._rng.next())


@_export
class StandardNormal(_Random):
    """float32 draws from N(0, 1) of `shape`."""

    def __call__(self, shape):
        return F.normal(_draw_shape("StandardNormal", shape), key=self._rng.next())


@_export
class UniformInt(_Random):
    """int32 draws, uniform in [minval, maxval), of `shape` (minval and maxval int32 scalars)."""

    def __call__(self, shape, minval, maxval):
        shape = _draw_shape("UniformInt", shape)
        lo, hi = F.as_tensor(minval), F.as_tensor(maxval)
        if not lo.dtype.is_integer or not hi.dtype.is_integer or lo.ndim or hi.ndim:
            raise TypeError(f"For 'UniformInt', minval and maxval must be integer scalars, but got {lo.dtype}"
                            f"{list(lo.shape)} and {hi.dtype}{list(hi.shape)}.")
        if not lo.is_symbolic and not hi.is_symbolic and int(lo.asnumpy()) >= int(hi.asnumpy()):
            raise ValueError(f"For 'UniformInt', minval must be less than maxval, but got {int(lo.asnumpy())} and "
                             f"{int(hi.asnumpy())}.")
        # float64 keeps every int32 span exact; floor(u * span) < span since u < 1.
        u = F.uniform(shape, dtype=mstype.float64, key=self._rng.next())
        lo64, hi64 = F.cast(lo, mstype.float64), F.cast(hi, mstype.float64)
        return F.cast(F.add(F.floor(F.mul(u, F.sub(hi64, lo64))), lo64), mstype.int32)


# == data-dependent shapes (eager only, as the functional forms) ===============================

@_export
class Unique(Operator):
    """(values in order of first occurrence, each element's position in them); eager only."""

    def __call__(self, x):
        return unique(x)


@_export
class NonZero(Operator):
    """The int64 coordinates [count, rank] of the non-zero elements; eager only."""

    def __call__(self, input):  # noqa: A002
        return nonzero(input)


@_export
class MaskedSelect(Operator):
    """The elements where `mask` is True, as a vector; eager only."""

    def __call__(self, input, mask):  # noqa: A002
        return masked_select(input, mask)


# == linear algebra (linalg_classes.py) ==========================================================

from . import linalg_classes as _linalg_classes  # noqa: E402
from .linalg_classes import *  # noqa: F401,F403,E402
__all__ += _linalg_classes.__all__

# == more classes: math, arrays, nn (math_classes.py, array_classes.py, nn_classes.py) ===========

from . import array_classes as _array_classes, math_classes as _math_classes, nn_classes as _nn_classes  # noqa: E402
from .array_classes import *  # noqa: F401,F403,E402
from .math_classes import *  # noqa: F401,F403,E402
from .nn_classes import *  # noqa: F401,F403,E402
__all__ += _math_classes.__all__ + _array_classes.__all__ + _nn_classes.__all__
from .windows import BartlettWindow, BlackmanWindow, HammingWindow  # noqa: E402
from .space_depth import BatchToSpace, BatchToSpaceND, DepthToSpace, ReverseSequence, SpaceToBatch, SpaceToBatchND, SpaceToDepth  # noqa: E402,E501
__all__ += ["BartlettWindow", "BlackmanWindow", "HammingWindow", "BatchToSpace", "BatchToSpaceND", "DepthToSpace",
            "ReverseSequence", "SpaceToBatch", "SpaceToBatchND", "SpaceToDepth"]

from . import detection_classes as _detection_classes  # noqa: E402
from .detection_classes import *  # noqa: F401,F403,E402 - IOU, BoundingBoxEncode/Decode, CheckValid, CropAndResize, ROIAlign, NMSWithMask
__all__ += _detection_classes.__all__
from .fractional_pool import FractionalMaxPool3DWithFixedKsize, FractionalMaxPoolWithFixedKsize  # noqa: E402
__all__ += ["FractionalMaxPoolWithFixedKsize", "FractionalMaxPool3DWithFixedKsize"]
from .eig_ops import Eig  # noqa: E402
__all__.append("Eig")


# MindSpore's deprecated aliases of classes above (2.10 still exports them)
def _alias(name: str, cls, doc: str):
    __all__.append(name)
    return type(name, (cls,), {"__doc__": doc, "__module__": __name__})


TensorAdd = _alias("TensorAdd", Add, "Add's old name")
Gelu = _alias("Gelu", GeLU, "GeLU's old name")
FastGelu = _alias("FastGelu", FastGeLU, "FastGeLU's old name")
Pack = _alias("Pack", Stack, "Stack's old name")


@_export
class Unpack(Unstack):
    """Unstack's old name, without `num`."""

    def __init__(self, axis=0):
        super().__init__(axis)


@_export
class GatherV2(Gather):
    """Gather's old name, the batch_dims given to the call (MindSpore 2.10 wants four inputs)."""

    def __init__(self):
        super().__init__()

    def __call__(self, input_params, input_indices, axis, batch_dims=0):
        self.add_prim_attr("batch_dims", check_int("GatherV2", "batch_dims", batch_dims, minimum=0))
        return super().__call__(input_params, input_indices, axis)

# == unique values, segments, scatters, bits (index_segment_classes.py) ===========================

from . import index_segment_classes as _index_segment_classes  # noqa: E402
from .index_segment_classes import *  # noqa: F401,F403,E402
__all__ += _index_segment_classes.__all__

from .tf_style_classes import STFT, FractionalAvgPool, FractionalMaxPool  # noqa: E402
__all__ += ["STFT", "FractionalMaxPool", "FractionalAvgPool"]

from . import optimizer_classes as _optimizer_classes  # noqa: E402
from .optimizer_classes import *  # noqa: F401,F403,E402 - ApplyAdagrad, ApplyRMSProp, Adam, SGD, SparseApplyAdagrad, ...
__all__ += _optimizer_classes.__all__

from . import math_more as _math_more  # noqa: E402
from .math_more import Angle, ApproximateEqual, Complex, ComplexAbs, Conj, ConjugateTranspose, Imag, InTopK, Polar, Real  # noqa: E402,F401,E501
__all__ += _math_more.CLASSES

from . import random_more as _random_more  # noqa: E402
from .random_more import *  # noqa: F401,F403,E402
from .random_more import (Cauchy, Gamma, LogNormalReverse, LogUniformCandidateSampler, MultinomialWithReplacement,  # noqa: E402,F401
                          ParameterizedTruncatedNormal, RandomChoiceWithMask, RandpermV2, TruncatedNormal,
                          UniformCandidateSampler)
__all__ += _random_more.CLASSES

from . import image_ops as _image_ops  # noqa: E402
from .image_ops import (AdjustHue, AdjustSaturation, ExtractVolumePatches, HSVToRGB, ResizeArea,  # noqa: E402,F401
                        RGBToHSV)
__all__ += _image_ops.CLASSES

from . import math_more2 as _math_more2  # noqa: E402
from .math_more2 import (AccumulateNV2, CheckNumerics, CompareAndBitpack, DataFormatDimMap,  # noqa: E402,F401
                         DataFormatVecPermute, ListDiff, MatrixSolveLs, Padding, ScatterAddWithAxis, SplitV,
                         TridiagonalMatMul, TripletMarginLoss, CTCLossV2, LARSUpdate, MultilabelMarginLoss,
                         RaggedRange, NonMaxSuppressionWithOverlaps, EditDistance)
__all__ += _math_more2.CLASSES

from . import betainc as _betainc  # noqa: E402
from .betainc import Betainc  # noqa: E402,F401
__all__ += _betainc.CLASSES

from . import ctc_sparse as _ctc_sparse  # noqa: E402
from .ctc_sparse import CTCLoss  # noqa: E402,F401
__all__ += _ctc_sparse.CLASSES

from .matrix_log import MatrixLogarithm  # noqa: E402,F401
from .detection_tf import CombinedNonMaxSuppression  # noqa: E402,F401
from .image_tf import ExtractGlimpse, ScaleAndTranslate  # noqa: E402,F401
__all__ += ["MatrixLogarithm", "CombinedNonMaxSuppression", "ExtractGlimpse", "ScaleAndTranslate"]
from .deformable import DeformableOffsets  # noqa: E402,F401
from .tf_window_ops import DepthwiseConv2dNative, Dilation2D, ExtractImagePatches  # noqa: E402,F401
__all__ += ["DeformableOffsets", "DepthwiseConv2dNative", "Dilation2D", "ExtractImagePatches"]
from .distorted_box import SampleDistortedBoundingBoxV2  # noqa: E402,F401
from .nms_v3 import NonMaxSuppressionV3  # noqa: E402,F401
__all__ += ["SampleDistortedBoundingBoxV2", "NonMaxSuppressionV3"]

from . import rnn_classes as _rnn_classes  # noqa: E402
from .rnn_classes import BasicLSTMCell, DynamicGRUV2, DynamicRNN, LSTM  # noqa: E402,F401
__all__ += _rnn_classes.CLASSES

from . import rnnt_loss as _rnnt_loss  # noqa: E402
from .rnnt_loss import RNNTLoss  # noqa: E402,F401
__all__ += _rnnt_loss.CLASSES

from . import misc_op_classes as _misc_op_classes  # noqa: E402
from .misc_op_classes import *  # noqa: F401,F403,E402 - Eps, Fills, NoRepeatNGram, the sparse classes, ...
__all__ += _misc_op_classes.CLASSES

from . import leftover_op_classes as _leftover_op_classes  # noqa: E402
from .leftover_op_classes import ComputeAccidentalHits, FFTWithSize, Randperm  # noqa: E402,F401
__all__ += _leftover_op_classes.CLASSES

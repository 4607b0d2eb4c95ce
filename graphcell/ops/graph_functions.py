"""MindSpore 2.10's graph-level helpers from `mindspore.ops.functional` (model-zoo code writes
`F.tensor_mul`, `F.scalar_add`, `F.tuple_to_array`, `F.make_tuple`, `F.typeof`, ...); 2.10's
`mindspore.ops` has them too. They are thin names over graphcell's ops and Python itself;
values and messages measured on MindSpore 2.10 (CPU).

Several of them 2.10 runs only inside `jit` (PyNative raises "prim:... has no attr:__infer__"):
`scalar_ne`, `bool_and`/`bool_or`/`bool_eq`, `string_concat`/`string_eq`, `make_dict`,
`dict_setitem`, `switch`. graphcell gives their jit values in both modes. `scalar_to_array` and
`array_to_scalar` fail in both modes on 2.10's CPU build; graphcell gives the evident values
(a 0-d Tensor of the number's default dtype; a 0-d Tensor's Python number).
"""
from __future__ import annotations

import builtins
import copy
import math
import numbers
import operator

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from . import functional as F

__all__ = [
    "tensor_add", "tensor_sub", "tensor_mul", "tensor_div", "tensor_pow", "tensor_mod", "tensor_floordiv",
    "tensor_gt", "tensor_ge", "tensor_lt", "tensor_le", "tensor_exp", "tensor_expm1", "tensor_muls",
    "tensor_range", "tensor_slice", "floordiv", "floormod", "pows", "eps", "identity", "deepcopy", "soft_shrink",
    "shape_", "reshape_", "dyn_shape", "padding", "mixed_precision_cast", "broadcast_gradient_args",
    "scalar_add", "scalar_sub", "scalar_mul", "scalar_div", "scalar_floordiv", "scalar_mod", "scalar_pow",
    "scalar_eq", "scalar_ne", "scalar_gt", "scalar_ge", "scalar_lt", "scalar_le", "scalar_max", "scalar_min",
    "scalar_log", "scalar_uadd", "scalar_usub", "scalar_to_array", "tuple_to_array", "array_to_scalar",
    "tuple_getitem", "tuple_setitem", "tuple_len", "tuple_equal", "tuple_reversed", "tuple_div",
    "list_getitem", "list_setitem", "list_len", "list_equal", "dict_getitem", "dict_setitem",
    "bool_and", "bool_or", "bool_not", "bool_eq", "string_concat", "string_eq",
    "make_tuple", "make_list", "make_dict", "make_slice", "make_range", "shape_mul", "reduced_shape",
    "typeof", "hastype", "isconstant", "is_", "is_not", "in_dict", "not_in_dict", "switch", "switch_layer",
    "print_",
]

# -- Tensor arithmetic: 2.10's older names for ops.add, ops.mul, ... ---------------------------

def tensor_add(input, other):  # noqa: A002 - 2.10's parameter names, here and below
    return F.add(input, other)


def tensor_sub(x, y):
    return F.sub(x, y)


def tensor_mul(input, other):  # noqa: A002
    return F.mul(input, other)


def tensor_gt(input, other):  # noqa: A002
    return F.greater(input, other)


def tensor_ge(input, other):  # noqa: A002
    return F.greater_equal(input, other)


def tensor_lt(input, other):  # noqa: A002
    return F.less(input, other)


def tensor_le(input, other):  # noqa: A002
    return F.less_equal(input, other)


def tensor_exp(input):  # noqa: A002
    return F.exp(input)


def tensor_expm1(input):  # noqa: A002
    return F.expm1(input)


def tensor_div(x, y):
    """2.10's Div primitive: two integer Tensors divide truncating toward zero and keep their
    dtype (int32 [7,-7,5] / [2,2,-3] is [3,-3,-1], measured); else true division."""
    from . import div
    x, y = F.as_tensor(x), F.as_tensor(y)
    if x.dtype.is_integer and y.dtype.is_integer:
        return div(x, y, rounding_mode="trunc")
    return div(x, y)


def tensor_pow(input, exponent):  # noqa: A002
    from . import pow as _pow
    return _pow(input, exponent)


pows = tensor_pow


def tensor_mod(x, y):
    """Python's modulo (the divisor's sign), as 2.10's FloorMod: int32 [7,-7,5] % [2,2,-3] is [1,1,-1]."""
    from . import floor_mod
    return floor_mod(x, y)


def tensor_floordiv(input, other):  # noqa: A002
    from . import floor_div
    return floor_div(input, other)


floordiv = tensor_floordiv


floormod = tensor_mod


def tensor_muls(input, other):  # noqa: A002
    return F.mul(input, other)


def tensor_range(start, end, step):
    """ops.range: int64 for integer bounds (2.10: tensor_range(0, 5, 2) is int64 [0, 2, 4])."""
    from . import range as _range
    return _range(start, end, step)


def tensor_slice(input, begin, size):  # noqa: A002
    from . import slice as _slice
    return _slice(input, begin, size)


def eps(x):
    """The machine epsilon of x's float dtype, in x's shape (2.10: float32 1.1920929e-07,
    float16 0.000977, float64 2.22e-16)."""
    x = F.as_tensor(x)
    return F.full_like(x, float(np.finfo(x.dtype.np_dtype).eps))


def identity(x):
    return x


def deepcopy(input_x):
    return F.add(input_x, F.zeros_like(input_x)) if isinstance(input_x, Tensor) else copy.deepcopy(input_x)


def soft_shrink(input, lambd=0.5):  # noqa: A002
    from . import softshrink
    return softshrink(input, lambd)


def shape_(x):
    return tuple(F.as_tensor(x).shape)


def reshape_(input, shape):  # noqa: A002
    return F.reshape(input, shape)


def dyn_shape(input_x):
    """x's shape as an int64 Tensor (2.10: dyn_shape of a [3] Tensor is int64 [3])."""
    return Tensor(np.array(F.as_tensor(input_x).shape, np.int64))


def padding(x, pad_dim_size=8):
    """Zeros appended to a last axis of size 1, up to `pad_dim_size` (2.10: [[1],[1]] with 3 is
    [[1,0,0],[1,0,0]])."""
    x = F.as_tensor(x)
    if x.ndim == 0 or x.shape[-1] != 1:
        raise ValueError(f"For 'Padding', the last dimension of 'x' must be 1, but got {x.shape[-1:] or ()}.")
    return F.concat((x, F.zeros(tuple(x.shape[:-1]) + (pad_dim_size - 1,), x.dtype)), -1)


def mixed_precision_cast(dst_dtype, x):
    """Casts every floating Tensor in `input_x` (a Tensor, or a tuple/list/dict of them) to
    `dst_type`; integer Tensors and Python numbers pass unchanged (2.10, measured)."""
    if isinstance(x, Tensor):
        return F.cast(x, dst_dtype) if x.dtype.is_floating else x
    if isinstance(x, (tuple, list)):
        return type(x)(mixed_precision_cast(dst_dtype, v) for v in x)
    if isinstance(x, dict):
        return {k: mixed_precision_cast(dst_dtype, v) for k, v in x.items()}
    return x


def broadcast_gradient_args(x_shape, y_shape):
    """The axes each operand's gradient sums over after a broadcast (2.10: (2, 3) with (3,) is
    ((), (0,)))."""
    n = builtins.max(len(x_shape), len(y_shape))
    xs, ys = (1,) * (n - len(x_shape)) + tuple(x_shape), (1,) * (n - len(y_shape)) + tuple(y_shape)
    rx = tuple(i for i in range(n) if xs[i] == 1 and ys[i] != 1 or i < n - len(x_shape))
    ry = tuple(i for i in range(n) if ys[i] == 1 and xs[i] != 1 or i < n - len(y_shape))
    return rx, ry


# -- Python numbers ------------------------------------------------------------------------------

def _scalar_div(x, y):
    if y == 0:
        raise ValueError("The divisor could not be zero. But the divisor is zero now.")
    return x / y


def _binary(fn, name):
    def scalar_op(x, y):
        return fn(x, y)
    scalar_op.__name__ = scalar_op.__qualname__ = name
    return scalar_op


scalar_add, scalar_sub, scalar_mul = (_binary(f, n) for f, n in (
    (operator.add, "scalar_add"), (operator.sub, "scalar_sub"), (operator.mul, "scalar_mul")))
scalar_div = _binary(_scalar_div, "scalar_div")
scalar_floordiv, scalar_mod, scalar_pow = (_binary(f, n) for f, n in (
    (operator.floordiv, "scalar_floordiv"), (operator.mod, "scalar_mod"), (operator.pow, "scalar_pow")))
scalar_eq, scalar_ne, scalar_gt, scalar_ge, scalar_lt, scalar_le = (_binary(getattr(operator, n), "scalar_" + n)
                                                                    for n in ("eq", "ne", "gt", "ge", "lt", "le"))
scalar_max, scalar_min = _binary(builtins.max, "scalar_max"), _binary(builtins.min, "scalar_min")


def scalar_uadd(x):
    return +x


def scalar_usub(x):
    return -x


def scalar_log(x):
    return math.log(x)


def scalar_to_array(input_x):
    """A 0-d Tensor holding the number (int64, float32 or bool, as Tensor(x))."""
    return Tensor(input_x)


def tuple_to_array(input_x):
    """A 1-d Tensor of a tuple of numbers, int32 when the first is an int or bool, else float32;
    the rest are cast to it (2.10: (1, 2.5) is int32 [1, 2]; a list is refused)."""
    if not isinstance(input_x, tuple):
        raise TypeError(f'Failed calling TupleToTensor with "input_tuple={type(input_x).__name__}".')
    if not input_x:
        raise IndexError("tuple index out of range")
    dtype = np.float32 if isinstance(input_x[0], float) else np.int32
    return Tensor(np.array(input_x).astype(dtype))


def array_to_scalar(x):
    """The Python number of a 0-d Tensor (eager only)."""
    if not isinstance(x, Tensor) or x.ndim != 0:
        raise RuntimeError("array_to_scalar requires zero size shape.")
    if x.is_symbolic:
        raise TypeError("array_to_scalar: the value of a traced Tensor is not known while the graph is built")
    return x.asnumpy().item()


def shape_mul(input_data):
    return math.prod(input_data)


def reduced_shape(shape, axis):
    """`shape` with the reduced axes set to 1 (2.10: ((2,3,4), (1,)) is (2,1,4); () reduces all)."""
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    if not axes:
        return (1,) * len(shape)
    axes = {a % len(shape) for a in axes}
    return tuple(1 if i in axes else d for i, d in enumerate(shape))


# -- sequences, dicts, bools, strings --------------------------------------------------------------

tuple_getitem = list_getitem = dict_getitem = operator.getitem
tuple_len = list_len = len
tuple_equal = list_equal = bool_eq = string_eq = operator.eq
string_concat = operator.add
bool_and = operator.and_
bool_or = operator.or_
is_, is_not = operator.is_, operator.is_not


def tuple_setitem(x, index, value):
    return x[:index] + (value,) + x[index + 1:]


def list_setitem(x, index, value):
    """A new list (2.10 leaves the given list unchanged)."""
    out = list(x)
    out[index] = value
    return out


def dict_setitem(x, key, value):
    return {**x, key: value}


def tuple_reversed(x):
    return tuple(reversed(x))


def tuple_div(x, y):
    """Elementwise exact division of two int tuples (2.10 refuses a remainder)."""
    if len(x) != len(y):
        raise ValueError(f"The size of inputs of 'tuple_div' operator must be the same, but the size of divisor "
                         f"tuple is {len(y)}, the size of dividend tuple is {len(x)}.")
    for a, b in zip(x, y):
        if b == 0 or a % b:
            raise RuntimeError(f"The inputs of 'tuple_div' operator should be divisible, but they are not divisible "
                               f"now, the dividend is {a}, the divisor is {b}.")
    return tuple(a // b for a, b in zip(x, y))


def bool_not(x):
    """A bool Tensor (2.10: bool_not(True) is Tensor(False))."""
    return Tensor(not x)


def in_dict(key, d):
    return key in d


def not_in_dict(key, d):
    return key not in d


def make_tuple(*elements):
    return elements


def make_list(*elements):
    return list(elements)


def make_dict(keys, values):
    return dict(zip(keys, values))


def make_slice(start, stop, step):
    return slice(start, stop, step)


def make_range(start, stop=None, step=1):
    """A tuple: make_range(4) is (0, 1, 2, 3); make_range(1, 5, 2) is (1, 3)."""
    return tuple(range(start) if stop is None else range(start, stop, step))


# -- types and control ---------------------------------------------------------------------------

def typeof(x):
    """MindSpore's type of a value: `tensor[float32]` for a Tensor, int64/float32/bool for Python
    numbers, `list_`, `tuple_`, `type_none`, `string` (2.10, measured)."""
    if isinstance(x, Tensor):
        return mstype.TensorType(x.dtype)
    if isinstance(x, bool):
        return mstype.bool_
    if isinstance(x, numbers.Integral):
        return mstype.int64
    if isinstance(x, numbers.Real):
        return mstype.float32
    if isinstance(x, str):
        return mstype.string
    if x is None:
        return mstype.type_none
    if isinstance(x, list):
        return mstype.list_
    if isinstance(x, tuple):
        return mstype.tuple_
    raise TypeError(f"typeof: no MindSpore type for {type(x).__name__}")


def hastype(x, type_):
    """Whether x is of MindSpore type `type_` (2.10 under jit: a float32 Tensor has
    `tensor_type` but not `float32`; a tuple has neither)."""
    if isinstance(x, Tensor):
        return type_ is mstype.tensor_type or type_ == mstype.TensorType(x.dtype)
    if isinstance(x, (tuple, list, Tensor)) or x is None:
        return False
    try:
        return typeof(x) == type_
    except TypeError:
        return False


def isconstant(x):
    """False for a traced Tensor (one jit computes), True for anything known when tracing."""
    return not (isinstance(x, Tensor) and x.is_symbolic)


def switch(cond, true_branch, false_branch):
    """`true_branch` where `cond` holds, else `false_branch` (2.10 runs it under jit only)."""
    if isinstance(cond, Tensor):
        return F.select(F.cast(cond, mstype.bool_), true_branch, false_branch)
    return true_branch if cond else false_branch


def switch_layer(index, branches):
    """The branch at a known `index` (a Python int or a concrete Tensor)."""
    if isinstance(index, Tensor):
        if index.is_symbolic:
            raise TypeError("switch_layer: the index must be known while the graph is built (a traced index needs "
                            "ops.cond)")
        index = int(index.asnumpy())
    return branches[index]


def print_(*input_x):
    """ops.Print as a function: prints each argument on its own line (Tensors in MindSpore's form)."""
    from .operations import Print
    return Print()(*input_x)

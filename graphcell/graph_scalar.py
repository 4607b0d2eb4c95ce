"""Python numbers inside a graph: MindSpore 2.10's "variable scalars".

In graph mode a Python number that a tensor condition decides (an int counted in a tensor
`while`, a number assigned under a tensor `if`), a `mutable(n)` argument and `x.item()` have
no value while the graph is built, so graphcell holds them as 0-d Tensors. MindSpore keeps them
scalars, and 2.10 (measured) shows it in two ways that users meet:

- a jitted function (or a Cell in GRAPH_MODE) hands them back as Python numbers: a counter
  carried through a tensor `while` comes back as `int 5`, not as `Tensor(5)`;
- with a Tensor they take the Tensor's dtype, as a Python number does (Int32 [1, 2, 3] plus a
  counter is Int32; a Float16 Tensor times a float scalar is Float16).

`GraphScalar` is the 0-d Tensor that stands for such a number: Int64, Float32 or Bool, which
give back `int`, `float` or `bool`. Arithmetic and comparisons with Python numbers or other
GraphScalars keep it one (Python's `n + 1`, `n > 2`); anything else (ops, methods, a Tensor
operand) gives an ordinary Tensor. Traces keep the mark on their inputs and outputs
(`Traced.out_scalars`), and `inline`, run outside any trace, returns the Python numbers.
"""
from __future__ import annotations

from numbers import Number

from . import dtype as mstype
from .tensor import Tensor


class GraphScalar(Tensor):
    """A 0-d Tensor standing for a Python number (see the module docstring)."""
    __slots__ = ()
    stands_for_number = True   # what Tensor(n) asks (tensor.py cannot import this module)
    __hash__ = Tensor.__hash__

    def python_type(self) -> type:
        return _python_type(self.dtype)


def _python_type(d) -> type:
    return bool if d is mstype.bool_ else int if d.is_integer else float


def mark(t: Tensor) -> GraphScalar:
    """`t` (0-d) as a GraphScalar over the same payload."""
    s = object.__new__(GraphScalar)
    s._payload = t._payload
    return s


def is_scalar_operand(x) -> bool:
    """Whether `x` takes part in Python number arithmetic: a number or a GraphScalar."""
    return type(x) is GraphScalar or (isinstance(x, Number) and not isinstance(x, complex)
                                      and not isinstance(x, Tensor))


def _keeps(op):
    """The Tensor operator `op`, whose result is again a GraphScalar when the other operand is
    a Python number or a GraphScalar."""
    def method(self, other):
        out = op(self, other)
        if isinstance(out, Tensor) and out.ndim == 0 and is_scalar_operand(other):
            return mark(out)
        return out
    method.__name__ = op.__name__
    return method


def _keeps_unary(op):
    def method(self):
        return mark(op(self))
    method.__name__ = op.__name__
    return method


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
              "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__",
              "__rpow__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"):
    setattr(GraphScalar, _name, _keeps(getattr(Tensor, _name)))
for _name in ("__neg__", "__abs__"):
    setattr(GraphScalar, _name, _keeps_unary(getattr(Tensor, _name)))
del _name


def weak_dtype(scalar: GraphScalar, other: Tensor):
    """The dtype `scalar` takes facing the Tensor `other`: other's, as a Python number of its
    kind would (functional._scalar_like's rule), else its own."""
    kind, target = scalar.python_type(), other.dtype
    if kind is float and not target.is_inexact:
        return scalar.dtype   # a float with an integer or bool Tensor: Float32
    if kind is int and target is mstype.bool_:
        return scalar.dtype   # an int with a bool Tensor: Int64
    return target


def python_value(t: Tensor):
    """The number a concrete 0-d Tensor that stood for a GraphScalar holds (int, float or bool)."""
    return _python_type(t.dtype)(t.item())

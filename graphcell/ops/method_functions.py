"""MindSpore 2.10's functional forms of Tensor methods and predicates: ops.dtype,
is_tensor, is_floating_point, view_as, type_as and inv (each the Tensor method of the same job)."""
from __future__ import annotations

from ..tensor import Tensor
from . import functional as F

__all__ = ["dtype", "is_tensor", "is_floating_point", "view_as", "type_as", "inv"]


def dtype(x):
    """x's dtype (ops.DType)."""
    return F.as_tensor(x).dtype


def is_tensor(obj):
    return isinstance(obj, Tensor)


def is_floating_point(input):  # noqa: A002 - MindSpore's names
    return F.as_tensor(input).is_floating_point()


def view_as(input, other):  # noqa: A002
    """input reshaped to other's shape."""
    return F.as_tensor(input).view_as(other)


def type_as(input, other):  # noqa: A002
    """input cast to other's dtype."""
    return F.as_tensor(input).type_as(other)


def inv(x):
    """1 / x; an integer Tensor stays integer, the quotient truncated (Tensor.inv)."""
    return F.as_tensor(x).inv()

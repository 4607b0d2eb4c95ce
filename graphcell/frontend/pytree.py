"""Flattening nested arguments and results (tuples, lists, dicts) into Tensor leaves.

graphcell's own small version rather than jax.tree_util, because the leaves and the
containers are MindSpore's: Tensors and Parameters are leaves, numpy arrays become Tensor
leaves, ParameterTuple stays a ParameterTuple, and everything else (Python numbers, strings,
None, Cells) is static: part of the structure and of the jit cache key.

A class may make itself a container by defining `_tree_children()` (its parts, a tuple) and
a classmethod `_tree_build(children)`; the sparse tensors (COOTensor, CSRTensor, RowTensor)
do, so they pass through jit, grad and vmap as their Tensors, their shape part of the key.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..tensor import Tensor
from .mutable import MutableScalar


class Static:
    """A non-Tensor leaf, kept in the structure."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def key(self):
        v = self.value
        try:
            hash(v)
            return (type(v), v)
        except TypeError:
            return (type(v), id(v))


def flatten(tree, arrays_are_tensors: bool = True) -> tuple[list[Tensor], Any]:
    """Returns (tensor leaves, structure); `unflatten(structure, leaves)` inverts it."""
    leaves: list[Tensor] = []

    def walk(x):
        if isinstance(x, Tensor):
            leaves.append(x)
            return None  # a Tensor slot
        if arrays_are_tensors and isinstance(x, np.ndarray):
            leaves.append(Tensor(x))
            return None
        if isinstance(x, MutableScalar):  # `mutable(n)`: an input, not a constant of the trace
            leaves.append(x.as_tensor())
            return None
        if isinstance(x, (tuple, list)):
            return (type(x), tuple(walk(v) for v in x))
        if hasattr(type(x), "_tree_build"):
            return (type(x), tuple(walk(v) for v in x._tree_children()))
        if isinstance(x, dict):
            keys = tuple(x.keys())
            return (dict, keys, tuple(walk(x[k]) for k in keys))
        return Static(x)

    structure = walk(tree)
    return leaves, structure


def unflatten(structure, leaves) -> Any:
    it = iter(leaves)

    def build(s):
        if s is None:
            return next(it)
        if isinstance(s, Static):   # (a returned numpy array: each call gets its own)
            return s.value.copy() if isinstance(s.value, np.ndarray) else s.value
        if s[0] is dict:
            return {k: build(v) for k, v in zip(s[1], s[2])}
        kind, items = s
        values = [build(v) for v in items]
        if kind is tuple or kind is list:
            return kind(values)
        if hasattr(kind, "_tree_build"):
            return kind._tree_build(values)
        if hasattr(kind, "_fields"):  # namedtuple
            return kind(*values)
        return kind(values)

    return build(structure)


def numpy_scalars_as_python(structure):
    """`structure` with numpy scalar leaves as Python numbers: a compiled function returns
    `np.sum(a)` (JIT Fallback) as an `int`, as 2.10's graph mode does (measured)."""
    if structure is None:
        return None
    if isinstance(structure, Static):
        return Static(structure.value.item()) if isinstance(structure.value, np.generic) else structure
    if structure[0] is dict:
        return (dict, structure[1], tuple(numpy_scalars_as_python(s) for s in structure[2]))
    return (structure[0], tuple(numpy_scalars_as_python(s) for s in structure[1]))


def in_list(structure) -> list[bool]:
    """Per Tensor leaf of `structure`, whether it sits inside a list."""
    marks: list[bool] = []

    def walk(s, inside):
        if s is None:
            marks.append(inside)
        elif isinstance(s, Static):
            pass
        elif s[0] is dict:
            for v in s[2]:
                walk(v, inside)
        else:
            for v in s[1]:
                walk(v, inside or issubclass(s[0], list))

    walk(structure, False)
    return marks


def structure_key(structure) -> Any:
    """A hashable key for a structure: static leaves by value (or identity if unhashable)."""
    if structure is None:
        return None
    if isinstance(structure, Static):
        return structure.key()
    if structure[0] is dict:
        return (dict, structure[1], tuple(structure_key(s) for s in structure[2]))
    return (structure[0], tuple(structure_key(s) for s in structure[1]))

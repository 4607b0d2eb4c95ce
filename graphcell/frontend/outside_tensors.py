"""The Tensors a traced function can reach from outside it, to refuse their in-place writes.

MindSpore 2.10's graph mode (measured with ms.jit, and a GRAPH_MODE Cell's construct) writes back
an in-place write (`t.add_(1)`, ops.scatter_add) to a Tensor the function did not receive as an
argument: one in a closure or global (every call, later calls reading the new value), a plain
Tensor attribute of a Cell or of another object. graphcell's graphs read such a Tensor as a
constant and hand writes back to arguments and Parameters only; the write used to leave the
Tensor holding a value of the finished trace (an error at its next use, far from the cause).
Now the write fails where it is made, saying what to do.

Found before tracing, so Tensors the function makes itself (and fills in place) are not among
them: the function's closure cells, the globals its code names, one level of attributes of
those objects, and the plain Tensor attributes of a Cell being traced and its sub-cells.
"""
from __future__ import annotations

import types

from ..tensor import Parameter, Tensor


def outside_tensors(fn) -> dict[int, Tensor]:
    """id -> Tensor for every non-Parameter Tensor `fn` reaches from outside its arguments."""
    found: dict[int, Tensor] = {}
    owner = getattr(fn, "__self__", None)
    if hasattr(fn, "construct") and hasattr(fn, "cells_and_names"):
        owner, fn = fn, fn.construct
    if owner is not None and hasattr(owner, "cells_and_names"):
        for _, cell in owner.cells_and_names():
            _add_attributes(found, cell)
    func = getattr(fn, "__func__", fn)
    if isinstance(func, types.FunctionType):
        for cell in func.__closure__ or ():
            try:
                _add(found, cell.cell_contents, depth=1)
            except ValueError:  # an empty cell (a name assigned later)
                pass
        for name in _global_names(func.__code__):
            if name in func.__globals__:
                _add(found, func.__globals__[name], depth=1)
    return found


def _global_names(code) -> set:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return names


def _add(found: dict, obj, depth: int) -> None:
    if isinstance(obj, Tensor):
        if not isinstance(obj, Parameter):
            found[id(obj)] = obj
    elif isinstance(obj, (tuple, list)):
        for item in obj:
            if isinstance(item, Tensor):
                _add(found, item, 0)
    elif isinstance(obj, dict):
        for item in obj.values():
            if isinstance(item, Tensor):
                _add(found, item, 0)
    elif depth > 0 and not isinstance(obj, (type, types.ModuleType, types.FunctionType)) \
            and hasattr(obj, "__dict__"):
        _add_attributes(found, obj)


def _add_attributes(found: dict, obj) -> None:
    attributes = vars(obj)
    for value in [*attributes.values(), *(attributes.get("_buffers") or {}).values()]:  # a Cell's buffers
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            found[id(value)] = value

"""A Python float operand as MindSpore 2.10 passes it to an op: rounded to float32 first.

2.10 (measured, PYNATIVE and GRAPH_MODE alike) converts a Python float (or a numpy float scalar)
that meets a Tensor to float32 before casting it to the Tensor's dtype: `Float64 1.0 + 0.1` is
1.100000001490116 (not 1.1), `Float64 x == 0.1` is False for x = 0.1, `Float64 x * 1e40` is inf,
and a Float16 Tensor times 1 + 2**-11 + 2**-40 rounds twice (via float32) to 1. Operators,
their reversed forms, in-place operators, Tensor methods and ops taking the scalar (ops.add,
maximum, where, clamp, masked_fill, setitem ...) all do it. Tensor(0.1, float64), ops.fill,
ops.full and ops.full_like keep the float64 value; Python ints and bools are not rounded.

Only a float the user handed to graphcell is rounded: graphcell's own composites pass Python
floats to ops as well (series coefficients of float64 special functions), where MindSpore runs
a C++ kernel in full precision. A float is the user's when it is an argument of the outermost
graphcell call, the one the user's code made (found by identity on the stack).
"""
from __future__ import annotations

import sys

import numpy as np

from .. import dtype as mstype
from ..frontend.tracer import _PACKAGE_DIR

# the dtypes a float32-rounded float lands in differently from the float itself
_ROUNDED_TARGETS = (mstype.float64, mstype.complex128, mstype.float16, mstype.bfloat16)


def as_passed(x: float, target, given=None) -> float:
    """`x` as MindSpore 2.10 hands it to an op whose other operand has dtype `target`; `given`:
    the object the caller passed, when `x` was taken out of it (a numpy scalar's value)."""
    if target not in _ROUNDED_TARGETS:
        return x
    with np.errstate(over="ignore"):
        rounded = float(np.float32(x))
    if rounded == x or rounded != rounded or not _passed_by_user(x if given is None else given):
        return x
    return rounded


def _passed_by_user(x) -> bool:
    """Whether `x` (by identity) is an argument of the outermost graphcell frame on the stack,
    the call the user's code made."""
    frame, outermost = sys._getframe(1), None
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        outermost, frame = frame, frame.f_back
    if outermost is None:
        return True
    code = outermost.f_code
    count = code.co_argcount + code.co_kwonlyargcount
    count += bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)   # *args, **kwargs
    values = outermost.f_locals
    for name in code.co_varnames[:count]:
        v = values.get(name)
        if v is x:
            return True
        if isinstance(v, (tuple, list)) and any(e is x for e in v):
            return True
        if isinstance(v, dict) and any(e is x for e in v.values()):
            return True
    return False

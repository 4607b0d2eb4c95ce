"""MindSpore's functional graph helpers `ops.depend` and `ops.partial` (the operator classes
`ops.Depend` and `ops.Partial` are in operations.py)."""
from __future__ import annotations

import functools

__all__ = ["depend", "partial"]


def depend(value, expr):
    """Returns `value`. MindSpore orders `expr` (a side effect, such as an optimizer's update)
    before value's users; graphcell's graphs order Parameter writes by data flow already, so
    `loss = ops.depend(loss, optimizer(grads))` needs nothing more."""
    return value


def partial(*args):
    """`partial(func, *bound)`: func with its first arguments bound (a functools.partial, as
    MindSpore 2.10 returns)."""
    if not args or not callable(args[0]):
        raise TypeError(f"For 'partial', the first argument must be a callable, but got "
                        f"{type(args[0]).__name__ if args else 'nothing'}")
    return functools.partial(*args)

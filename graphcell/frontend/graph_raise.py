"""`raise` and `assert` under a tensor condition: the error is raised when the graph runs.

MindSpore 2.10's graph mode compiles `if x.sum() > 5: raise ValueError("too big")` and
`assert x.sum() > 0, "msg"` into checks of the run (measured): a call whose values take the
raising path raises that ValueError / AssertionError with the user's message, any other call
returns normally. Tracing runs both sides of a tensor `if`, so the raising side would raise
while the graph is built, for every input. Converted code therefore tags the exceptions its
`raise` statements make (`user_raise`); `cf_runtime.if_stmt` catches a tagged one escaping a
branch and calls `raise_in_branch`, and the `if` goes on as the other branch. Errors raised
elsewhere (a bad shape in a branch, library code) still fail while tracing.

`raise_in_branch` builds a `cond` on the raising side's condition whose taken branch is the
raising branch traced again, up to its raise, ending in the check: a host_call node
(ops/host_call.py) that raises the error. So what the branch does before raising (a print, a
Parameter write, a random draw) happens on the runs that take it only, as in Python, and a
message formatted from the branch's Tensors (f"sum is {x.sum()}", or a Tensor itself among the
error's arguments) shows this run's values (2.10: `sum is 10.0`, measured); the other branch of
that `cond` is empty (under vmap a per-member condition runs both, as for any tensor `if`;
the check raises for the first member that takes the raise). `assert test, message` is the
same with `not test` as the condition and `raise AssertionError(message)` as the branch: the
message is computed only on failing runs.

Eagerly, and where the condition's value is known (an eager grad), the `raise` is Python's.
ONNX has no exceptions: export leaves the check out, with a warning, as it does a print;
jit(backend="onnx") runs it on the host after the model (runtime/onnx_host_calls.py).
"""
from __future__ import annotations

_TAG = "_graphcell_user_raise"

ONNX_DROP = ("export: an ONNX model cannot raise: a `raise` or `assert` under a tensor condition is left "
             "out of the exported model")


def user_raise(exc):
    """The exception a converted `raise exc` raises, tagged as the user's own."""
    if isinstance(exc, type) and issubclass(exc, BaseException):
        exc = exc()
    if isinstance(exc, BaseException):
        try:
            setattr(exc, _TAG, True)
        except AttributeError:   # (an exception type with __slots__: raised at trace time, as before)
            pass
    return exc


def is_user_raise(exc) -> bool:
    return getattr(exc, _TAG, False) is True


def raise_in_branch(flag, branch, values: tuple, where) -> None:
    """The raising side of a tensor `if`: a run whose `flag` (a traced condition) is true runs
    `branch(*values)` up to its tagged raise, inside a `cond`, and raises that error."""
    from .cf_build import ControlFlowError, cond, predicate
    flag = predicate(flag, where)

    def raising(*values):
        try:
            branch(*values)
        except BaseException as e:
            if not is_user_raise(e):
                raise
            raise_when(flag, e)
            return ()
        raise ControlFlowError(f"the {where.label} raised an error when traced once and not when traced "
                               "again: what it raises must not depend on Python state the branch changes")

    cond(flag, raising, lambda *values: (), tuple(values), where=where)


def assert_(test, message_thunk, where=None):
    """`assert test, message`: Python's for a Python (or known) test, a run-time check for a
    traced one (the message, traced inside the check's `cond`, is computed on failing runs only)."""
    from .cf_build import Where, is_traced
    from .cf_runtime import not_
    from .concrete import resolved
    truth = resolved(test)
    if not is_traced(truth):
        if not truth:
            raise AssertionError(*(() if message_thunk is None else (message_thunk(),)))
        return

    def failing():
        raise user_raise(AssertionError(*(() if message_thunk is None else (message_thunk(),))))
    where = Where("assert") if where is None else Where("assert", *where)
    raise_in_branch(not_(test), failing, (), where)


# -- the check -------------------------------------------------------------------------------------

def raise_when(flag, error: BaseException) -> None:
    """Binds the check: a host_call that raises `error` after a run whose `flag` (a traced bool)
    is true. Its traced Tensors are the host call's operands, their values put into its
    arguments at run time."""
    from ..ops.host_call import HostFunction, host_call
    tensors = []
    for arg in error.args:
        _collect_traced(arg, tensors)
    label = f"raise {type(error).__name__}"
    host_call.bind(flag, *tensors, fn=HostFunction(_RaiseIf(error), (), label, onnx_drop=ONNX_DROP))


class _RaiseIf:
    """The host function of a check: raises `error` when the flag it receives is true, its
    arguments formatted with this run's values: a string formatted from traced Tensors (a
    DeferredText) again from the arrays, a traced Tensor as a Tensor of its array."""

    def __init__(self, error: BaseException):
        self.error, self.args = error, error.args   # args: what the trace made, kept for every run

    def __call__(self, flag, *arrays):
        if not flag.any():
            return
        values = iter(arrays)
        self.error.args = tuple(_with_values(a, values) for a in self.args)
        raise self.error


def _collect_traced(value, tensors: list) -> None:
    from ..ops.graph_print import DeferredText
    from .cf_build import is_traced
    if isinstance(value, DeferredText):
        tensors.extend(value.tensors)
    elif is_traced(value):
        tensors.append(value)
    elif type(value) in (tuple, list):
        for v in value:
            _collect_traced(v, tensors)


def _with_values(value, arrays):
    """`value` with its traced Tensors replaced by the next `arrays` (the order `_collect_traced` met them)."""
    from ..ops.graph_print import DeferredText, _line_texts
    from ..tensor import Tensor
    from .cf_build import is_traced
    if isinstance(value, DeferredText):
        return _line_texts(("text", value.parts), arrays)[0]
    if is_traced(value):
        return Tensor(next(arrays))
    if type(value) in (tuple, list):
        return type(value)(_with_values(v, arrays) for v in value)
    return value

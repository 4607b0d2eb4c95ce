"""`raise` and `assert` under a tensor condition: the error is raised when the graph runs.

MindSpore 2.10's graph mode compiles `if x.sum() > 5: raise ValueError("too big")` and
`assert x.sum() > 0, "msg"` into checks of the run (measured): a call whose values take the
raising path raises that ValueError / AssertionError with the user's message, any other call
returns normally. Tracing runs both sides of a tensor `if`, so the raising side would raise
while the graph is built, for every input. Converted code therefore tags the exceptions its
`raise` statements make (`user_raise`); `cf_runtime.if_stmt` catches a tagged one escaping a
branch and calls `raise_when(flag, error)`: a host_call node (ops/host_call.py) that raises
the error after a run whose flag is true, and the `if` goes on as the other branch (a message
formatted from the branch's Tensors, f"sum is {x.sum()}", is made by running the raising branch
again outside the `cond`, so that its Tensors are the graph's and the run formats them). Errors
raised elsewhere (a bad shape in a branch, library code) still fail while tracing.

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


def has_traced_text(error: BaseException) -> bool:
    """Whether an argument of `error` is a string formatted from traced Tensors."""
    from ..ops.graph_print import DeferredText
    return any(isinstance(a, DeferredText) for a in error.args)


class _RaiseIf:
    """The host function of a check: raises `error` when the flag it receives is true. An
    argument of the error formatted from traced Tensors (f"sum is {x.sum()}", a DeferredText)
    is formatted again with this run's values (2.10: `sum is 10.0`, measured)."""

    def __init__(self, error: BaseException, texts: tuple):
        self.error, self.texts = error, texts   # texts: (position in args, parts) per DeferredText

    def __call__(self, flag, *arrays):
        if not flag.any():
            return
        if self.texts:
            from ..ops.graph_print import _line_texts
            args, values = list(self.error.args), iter(arrays)
            for position, parts in self.texts:
                args[position] = _line_texts(("text", parts), values)[0]
            self.error.args = tuple(args)
        raise self.error


def raise_when(flag, error: BaseException) -> None:
    """Raises `error` when a run of the graph has a true `flag` (a traced bool Tensor)."""
    from ..ops.graph_print import DeferredText
    from ..ops.host_call import HostFunction, host_call
    from .cf_runtime import _bool_tensor
    texts, tensors = [], []
    for position, arg in enumerate(error.args):
        if isinstance(arg, DeferredText):
            texts.append((position, arg.parts))
            tensors.extend(arg.tensors)
    label = f"raise {type(error).__name__}"
    host_call.bind(_bool_tensor(flag), *tensors,
                   fn=HostFunction(_RaiseIf(error, tuple(texts)), (), label, onnx_drop=ONNX_DROP))


def assert_(test, message_thunk):
    """`assert test, message`: Python's for a Python (or known) test, a run-time check for a
    traced one."""
    from .cf_build import is_traced
    from .cf_runtime import not_
    from .concrete import resolved
    truth = resolved(test)
    if not is_traced(truth):
        if not truth:
            raise AssertionError(*(() if message_thunk is None else (message_thunk(),)))
        return
    error = AssertionError(*(() if message_thunk is None else (message_thunk(),)))
    raise_when(not_(test), error)

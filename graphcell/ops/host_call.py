"""The primitive that runs a user's Python function on the host inside a graph:

    %y0, %y1 = host_call(%x0, %x1) {fn=<Custom add>}

`fn` is a `HostFunction`: the Python callable, what its outputs are (shapes and dtypes, fixed
when the node is made) and how to name it in messages. Under jit it is a host callback
(`jax.experimental.io_callback`, ordered, as the backward hooks of ops/hooks.py), so the
function sees the real values, in program order, eagerly and under jit alike. It serves
`ops.Custom(func_type="pyfunc")` (ops/custom_ops.py), `ops.TensorDump`/`tensordump`,
`ops.DumpGradient` and `ops.Assert` (ops/host_dumps.py).

A function that raises, or returns outputs of other shapes or dtypes than declared, does not
fail inside XLA (which logs it and wraps it in a runtime error): the callback returns zeros,
skips the later host calls of the run, and the jit call raises the error itself once the run
ends (ops/hooks.py's `raise_hook_error`, which backward hooks share).

vmap runs the function once per member, in order, as a loop over members would (2.10 refuses
to vmap a Custom: measured). The gradient is the HostFunction's to give: a Custom with a
`bprop` routes its gradient through the custom_bprop marker instead, so a gradient reaching
this node is one the function has no rule for, and the vjp raises its `no_grad` message.
Running Python, it has no ONNX form: export fails with the "no ONNX rule" error (a print's or a
check's is left out, with a warning); jit(backend="onnx") runs it on the host between or after
its onnxruntime models (runtime/onnx_host_calls.py).
"""
from __future__ import annotations

import numpy as np
from jax.experimental import io_callback

import jax

from ..dtype import to_dtype
from ..ir.core import TensorType
from . import batching, hooks
from .primitive import Primitive


class HostFunction:
    """The attr saying what a host_call runs: `run(*arrays) -> tuple of arrays` on numpy
    arrays, its outputs' `(shape, dtype)`s, a `label` for messages ("Custom 'add'") and the
    `no_grad` message a gradient through it raises. Equal by `key` (default: the callable, by
    identity, and the outputs), so an eager grad finds its cached program for the same call.
    `batch(args, dims) -> outputs` (optional) maps it under vmap in its own way (default: once per
    member); `onnx_drop` (optional, for a function without outputs) is the warning with which
    export leaves the node out of an ONNX model instead of refusing it (ops/graph_print.py)."""
    __slots__ = ("run", "outs", "label", "no_grad", "key", "batch", "onnx_drop")

    def __init__(self, run, outs, label: str, no_grad: str = "", key=None, batch=None, onnx_drop: str = ""):
        self.run, self.outs, self.label = run, tuple((tuple(s), d) for s, d in outs), label
        self.no_grad = no_grad or f"grad: {label} runs Python on the host and has no gradient"
        self.key = (run, self.outs, label) if key is None else key
        self.batch, self.onnx_drop = batch, onnx_drop

    def __hash__(self):
        return hash(self.key)

    def __eq__(self, other):
        return isinstance(other, HostFunction) and self.key == other.key

    def __str__(self):
        return f"<{self.label}>"

    __repr__ = __str__


def _rule(*types, fn):
    return tuple(TensorType(tuple(shape), dtype) for shape, dtype in fn.outs)


def _impl(*arrays, fn):
    shapes = [jax.ShapeDtypeStruct(tuple(shape), dtype.np_dtype) for shape, dtype in fn.outs]
    return tuple(io_callback(lambda *a: _run_on_host(fn, a), shapes, *arrays, ordered=True))


# pure=False: the function may have effects (a file written, an assertion) and runs even when
# nothing reads its outputs.
host_call = Primitive("host_call", _rule, _impl, multiple_results=True, pure=False, eager_jit=False,
                      deterministic=False)
_unrolled = batching.unrolled(host_call)


@host_call.def_batch
def _batch(ctx, args, dims, *, fn):
    if fn.batch is not None:
        return fn.batch(args, dims)
    return _unrolled(ctx, args, dims, fn=fn)


hooks.HOST_CALLS.add(host_call)   # a jit call raises a host function's error after the run
# jit(backend="onnx") calls the function between its models, with the values io_callback would pass
host_call.host_callback = lambda arrays, *, fn: _run_on_host(fn, arrays)


@host_call.def_vjp
def _vjp(ctx, cts, primals, outs, *, fn):
    if not fn.outs:   # nothing flows back through a function without outputs (a print)
        return [None] * len(primals)
    raise RuntimeError(fn.no_grad)


def _zeros(fn):
    return [np.zeros(tuple(shape), dtype.np_dtype) for shape, dtype in fn.outs]


def _run_on_host(fn, arrays):
    if hooks._ERRORS:   # an earlier host call of this run failed: the run's result is an error
        return _zeros(fn)
    try:
        return checked_outputs(fn, fn.run(*[np.asarray(a) for a in arrays]))
    except BaseException as e:  # noqa: BLE001 - raised by hooks.raise_hook_error after the run
        with hooks._ERRORS_LOCK:
            hooks._ERRORS.append(e)
    return _zeros(fn)


def checked_outputs(fn, result) -> list:
    """The function's `result` (an array, a number, or a tuple/list of them) as the declared
    outputs, or a TypeError naming the function and the output that differs."""
    n = len(fn.outs)
    if n == 0:
        return []
    if n == 1 and not isinstance(result, (tuple, list)):
        result = (result,)
    if not isinstance(result, (tuple, list)) or len(result) != n:
        got = len(result) if isinstance(result, (tuple, list)) else 1
        raise TypeError(f"{fn.label} returned {got} output(s), but {n} were declared (out_shape/out_dtype)")
    out = []
    for i, (value, (shape, dtype)) in enumerate(zip(result, fn.outs)):
        array = np.asarray(value)
        if array.ndim == 0 and isinstance(value, (int, float, bool, complex)):
            array = array.astype(dtype.np_dtype)   # a Python number takes the declared dtype
        if array.dtype != dtype.np_dtype or array.shape != tuple(shape):
            got_dtype = to_dtype(array.dtype) if array.dtype.kind in "biufc" else array.dtype
            raise TypeError(f"{fn.label} returned output {i} as {got_dtype} of shape {list(array.shape)}, but "
                            f"out_dtype/out_shape declare {dtype} of shape {list(shape)}: return an array of the "
                            "declared dtype and shape (numpy's astype), or declare what it returns")
        out.append(array)
    return out

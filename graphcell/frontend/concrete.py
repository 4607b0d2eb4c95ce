"""The values of a trace that `grad` runs eagerly, computed when Python asks for one.

MindSpore's PYNATIVE grad runs the function as Python, so `if x.sum() > 0:`, `while
loss > tol:`, `for _ in range(n)` with a Tensor `n`, `x.item()` and `x.asnumpy()` read the
values of this call. graphcell's eager grad traces the function on every call (api/grad.py);
a trace made with `concrete=True` knows where its inputs' values are (the call's arrays, the
Parameters, captured Tensors of an enclosing trace that knows its own), and works out a
Value's array on request by running the nodes it depends on, each op eagerly as PYNATIVE
would, each once. Control flow then takes the branch this call's values take, as Python
does, and the graph holds that path alone: a `while` needs no trip count, and the gradient
is the taken path's (jax.grad's of the same Python). Traces under `jit` or `vmap` know no
values, and their tensor conditions stay `cond` / `while_loop` nodes.
"""
from __future__ import annotations

import contextlib
import functools
import threading

from ..ir.core import Value
from . import eager


class ConcreteValues:
    """Known arrays of one trace's Values, and where its inputs' arrays come from."""

    __slots__ = ("sources", "known", "params_known")

    def __init__(self, params_known: bool = True):
        self.sources: dict[Value, object] = {}  # input Value -> array, or a Tensor to ask
        self.known: dict[Value, object] = {}    # Value -> array
        # False for a grad traced inside jit or vmap: there a Parameter is an input of the
        # compiled graph, its value is the call's (or the member's), not the one it has now.
        self.params_known = params_known

    def evaluate(self, value: Value):
        """`value`'s array, or None when an input's is unknown (a capture of a trace that
        knows no values)."""
        stack = [value]
        known = self.known
        while stack:
            top = stack[-1]
            if top in known:
                stack.pop()
                continue
            node = top.producer
            if node is None:  # an input of the trace
                array = _source_array(self.sources.get(top))
                if array is None:
                    return None
                known[top] = array
                stack.pop()
                continue
            missing = [v for v in node.inputs if v not in known]
            if missing:
                stack.extend(missing)
                continue
            outs = _run(node.primitive, [known[v] for v in node.inputs], node.attrs)
            for v, out in zip(node.outputs, outs if node.primitive.multiple_results else (outs,)):
                known[v] = out
            stack.pop()
        return known[value]


def _source_array(source):
    if source is None:
        return None
    from ..tensor import Tensor
    return array_of(source) if isinstance(source, Tensor) else source


def _run(primitive, arrays, attrs):
    """One op, eagerly: the jitted impl that PYNATIVE dispatch caches (frontend/eager.py)."""
    key, run = eager.lookup(primitive, arrays, attrs)
    if run is None:
        run = functools.partial(primitive.impl, **attrs) if key is None else eager.remember(primitive, key, attrs)
    return run(*arrays)


def array_of(t):
    """The array of Tensor `t`: its payload when eager, the value its trace works out when it
    is symbolic in a trace that knows its inputs' values, else None."""
    payload = t._payload
    if not isinstance(payload, Value):
        return payload
    values = getattr(payload.tracer, "concrete", None)
    return None if values is None else values.evaluate(payload)


class _CompiledRegions(threading.local):
    depth = 0


_COMPILED = _CompiledRegions()


@contextlib.contextmanager
def compiled_region():
    """A jit function called inside a trace is traced into it: its Python is graph code (its
    prints print at run time, in 2.10's graph form) even inside an eager grad's trace."""
    _COMPILED.depth += 1
    try:
        yield
    finally:
        _COMPILED.depth -= 1


def runs_as_python(tracer) -> bool:
    """Whether Python traced by `tracer` runs as MindSpore's PYNATIVE runs it, on this call's
    values: an eager grad's trace (or a probe inside one) in PYNATIVE_MODE, outside any jit
    function it calls. 2.10 prints there at once, Tensors as their values (measured); under
    jit, vmap or GRAPH_MODE a print is a graph print."""
    values = getattr(tracer, "concrete", None)
    if values is None or not values.params_known or _COMPILED.depth:
        return False
    from ..context import PYNATIVE_MODE, get_context
    return get_context("mode") == PYNATIVE_MODE


def shown_now(t):
    """An eager Tensor of traced `t`'s value where its trace runs as Python (PYNATIVE's print,
    repr and str show the value), else None."""
    payload = t._payload
    if not isinstance(payload, Value) or not runs_as_python(payload.tracer):
        return None
    array = payload.tracer.concrete.evaluate(payload)
    from ..tensor import Tensor
    return None if array is None else Tensor._wrap(array)


def resolved(x):
    """`x`, or an eager Tensor of its value when it is a traced Tensor whose value is known:
    the runtime helpers of converted control flow then run Python's `if`/`while`/`for`."""
    from ..tensor import Tensor
    if not isinstance(x, Tensor) or not isinstance(x._payload, Value):
        return x
    array = array_of(x)
    return x if array is None else Tensor._wrap(array)

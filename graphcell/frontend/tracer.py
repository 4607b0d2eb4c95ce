"""Tracing: running user code on symbolic Tensors to record a Graph.

`bind` is the single entry point of every primitive application. With no active trace it
runs the primitive's jax implementation at once (PYNATIVE mode); inside a trace it appends a
node. Parameters met during a trace are lifted to graph inputs named by `param.name`; writes
to them (`ops.assign`, optimizer updates, BatchNorm statistics) are recorded and become
trailing graph outputs, so the graph stays a pure function.

Traces nest (grad or vmap inside jit): a symbolic Tensor of an outer trace used inside an
inner one becomes a "capture" input of the inner graph, and inlining maps it back.
"""
from __future__ import annotations

import functools
import os
import sys
import threading
import weakref
from typing import Any

from ..context import _CONTEXT
from ..ir.core import GraphBuilder, SourceInfo, TensorType, Value
from ..ops.primitive import Primitive, ShapeError
from ..tensor import SignatureOnly, Tensor
from . import eager
from .concrete import ConcreteValues

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class GraphModeError(RuntimeError):
    """User code did something graph mode cannot compile; the message says what to change."""


class _State(threading.local):
    def __init__(self):
        self.tracers: list[Tracer] = []
        self.scope: list[str] = []


STATE = _State()


def current_tracer() -> "Tracer | None":
    return STATE.tracers[-1] if STATE.tracers else None


def _params_known() -> bool:
    """Whether a value-knowing trace (an eager grad's, a loop condition's probe) started now
    may read Parameters' current values: not inside a trace that knows no values (jit, vmap, a
    branch), whose Parameters are graph inputs: a condition on one there must stay a `cond`,
    or the compiled graph (every ensemble member's too) keeps the branch of today's value."""
    outer = current_tracer()
    return outer is None or (outer.concrete is not None and outer.concrete.params_known)


def current_scope() -> str:
    return ".".join(s for s in STATE.scope if s)


class scope:
    """Context manager naming the Cell being run, for node provenance and error messages."""
    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __enter__(self):
        STATE.scope.append(self.name)

    def __exit__(self, *exc):
        STATE.scope.pop()


def user_source() -> SourceInfo:
    """The innermost frame outside graphcell: the user's line that caused this op. Python's
    frozen modules are not the user's either (`python -m graphcell.cli dump graphcell.nn:Dense`
    named `<frozen runpy>`): a library Cell traced from the command line has no source line."""
    frame = sys._getframe(2)
    while frame is not None and (frame.f_code.co_filename.startswith(_PACKAGE_DIR)
                                 or frame.f_code.co_filename.startswith("<frozen ")):
        frame = frame.f_back
    if frame is None:
        return SourceInfo("", 0, current_scope())
    return SourceInfo(frame.f_code.co_filename, frame.f_lineno, current_scope())


class Tracer(GraphBuilder):
    """A GraphBuilder that knows Tensors, Parameters and captured outer values."""

    def __init__(self, name: str = "graph", concrete: bool = False):
        super().__init__(name)
        # Where its inputs' values are, for an eager grad's trace (frontend/concrete.py)
        self.concrete = ConcreteValues(_params_known()) if concrete else None
        self.params: dict[int, tuple[Any, Value]] = {}      # id(Parameter) -> (param, input)
        self.param_reads: dict[int, Value] = {}   # id(Parameter) -> its input marked by its Tensor hooks
        self.captures: dict[int, tuple[Any, Value]] = {}    # id(outer Tensor) -> (tensor, input)
        self.state: dict[int, tuple[Any, Value]] = {}       # id(Parameter) -> (param, new value)
        self.constants: dict[Any, Value] = {}
        self.modes: dict[int, tuple] = {}  # id(Cell) -> (weakref, training): what the trace read
        # Slices whose bound lay beyond their axis (x[:100] of 8 rows): {(source, axis, bound, size)}
        self.clamped_slices: set = set()
        # The argument Tensors (ids), and for each one item-assigned, its value just before the
        # first `x[i] = v` on it: what the caller gets back (frontend/trace.py)
        self.arg_ids: frozenset = frozenset()
        # Tensors the traced function reaches from outside (frontend/outside_tensors.py): an
        # in-place write to one is refused, not left holding a value of this trace.
        self.outside: dict = {}
        self.setitem_frozen: dict[int, Any] = {}

    # -- values in and out --------------------------------------------------------------
    def new_arg(self, type: TensorType, name: str):
        from ..tensor import Tensor
        return Tensor._symbolic(self.add_input(type, name, "arg"))

    def note_setitem(self, t) -> None:
        """`t[i] = v` is about to rebind `t`: an argument keeps the value it holds now as the
        one handed back to the caller (MindSpore's graph mode: item assignment rebinds the
        name to a new Tensor, later in-place writes act on that)."""
        if id(t) in self.arg_ids and id(t) not in self.setitem_frozen:
            self.setitem_frozen[id(t)] = t._payload

    def lift(self, t) -> Value:
        """The Value standing for Tensor `t` in this trace."""
        from ..tensor import Parameter
        if isinstance(t, Parameter) and t._home is not None:
            return self._param(t)  # an ensemble member's: tracing needs its type, not its slice
        payload = t._payload
        if isinstance(payload, Value):
            if payload.tracer is self:
                return payload
            return self._capture(t)
        if isinstance(t, Parameter):
            return self._param(t)
        return self.constant(payload)

    def _param(self, t) -> Value:
        written = self.state.get(id(t))
        if written is not None:
            return written[1]
        entry = self.params.get(id(t))
        if entry is None:
            entry = (t, self.add_input(TensorType(t.shape, t.dtype), t.name, "param"))
            self.params[id(t)] = entry
            if self.concrete is not None and self.concrete.params_known:
                self.concrete.sources[entry[1]] = t
            hooks = getattr(t, "_grad_hooks", None)
            if hooks:   # Tensor.register_hook (ops/tensor_hooks.py)
                from ..ops.tensor_hooks import mark_all
                self.param_reads[id(t)] = mark_all(self, entry[1], hooks)
        return self.param_reads.get(id(t), entry[1]) if self.param_reads else entry[1]

    def _capture(self, t) -> Value:
        if t._payload.tracer not in STATE.tracers:  # its trace is over: a branch's value kept
            raise GraphModeError(
                "a Tensor from a finished trace was used outside it: a tensor `if` or loop body "
                "stored a Tensor on self, in a list or a global, and code after it read that; make "
                "it a variable the branch or loop assigns instead (both branches must assign it)")
        entry = self.captures.get(id(t))
        if entry is None:
            name = f"capture{len(self.captures)}"
            entry = (t, self.add_input(t._payload.type, name, "capture"))
            self.captures[id(t)] = entry
            if self.concrete is not None:
                self.concrete.sources[entry[1]] = t
        return entry[1]

    def constant(self, array) -> Value:
        from ..ops import core_prims
        return core_prims.constant_value(self, array)

    def assign(self, param, t) -> None:
        """Records `param := t`; later reads of `param` in this trace see the new value."""
        value = self.lift(t)
        if value.type != TensorType(param.shape, param.dtype):
            raise ShapeError(f"cannot assign {value.type} to Parameter {param.name!r} of type "
                             f"{TensorType(param.shape, param.dtype)}")
        self.state[id(param)] = (param, value)

    def add_input(self, type, name, kind="arg") -> Value:
        value = super().add_input(type, name, kind)
        value.tracer = self
        return value

    def add_node(self, primitive, inputs, attrs, source=None):
        outs = super().add_node(primitive, inputs, attrs, source)
        for v in outs:
            v.tracer = self
        return outs

    # -- the trace as a context -----------------------------------------------------------
    def __enter__(self):
        STATE.tracers.append(self)
        return self

    def __exit__(self, *exc):
        popped = STATE.tracers.pop()
        assert popped is self


class OriginTracer(Tracer):
    """A pass's tracer (vmap, grad): every node it emits gets the source of the node being
    rewritten (`origin`: file, line and Cell path) plus the pass's note (`[grad]`, a vmap rule's
    `[conv_strategy=wide]`), not the frame that happens to call `bind`."""

    def __init__(self, name):
        super().__init__(name)
        self.origin = SourceInfo()
        self.note = ""

    def add_node(self, primitive, inputs, attrs, source=None):
        src = self.origin
        if self.note:
            scope = f"{src.scope} [{self.note}]" if src.scope else f"[{self.note}]"
            src = SourceInfo(src.file, src.line, scope)
        return super().add_node(primitive, inputs, attrs, src)


def note_training_mode(cell) -> None:
    """Records that the active traces called `cell` in its current training mode: a trace of
    Dropout or BatchNorm depends on it, so a cached trace is reused only while it holds
    (`frontend.trace.TraceCache`)."""
    note_modes(((weakref.ref(cell), cell.training),))


def note_modes(modes) -> None:
    """Records (weakref to a Cell, training) pairs in every active trace: an inner trace or an
    inlined cached one makes its enclosing traces depend on the same modes."""
    for tracer in STATE.tracers:
        for ref, training in modes:
            tracer.modes.setdefault(id(ref()), (ref, training))


def note_clamped_slice(axis: int, bound: int, size: int) -> None:
    """Records in every active trace that a slice's `bound` lay beyond its axis of `size`
    (x[:100] of 8 rows takes all 8 and traces to nothing), with the user's line: an export
    whose axis is dynamic must not take it for the whole axis (compiler/export.py)."""
    note_clamped_slices(((user_source(), axis, bound, size),))


def note_clamped_slices(slices) -> None:
    """Adds (source, axis, bound, size) records to every active trace: an inner trace's, or
    an inlined cached one's, belong to the enclosing traces too."""
    for tracer in STATE.tracers:
        tracer.clamped_slices.update(slices)


def bind(primitive: Primitive, args: tuple, attrs: dict):
    """Applies `primitive` to Tensors `args`; returns a Tensor or a tuple of Tensors."""
    tracer = current_tracer()
    if tracer is None:
        arrays = []
        for a in args:
            payload = a._payload
            if isinstance(payload, Value):
                raise GraphModeError(
                    "a Tensor from a finished trace was used outside it (did a jitted function "
                    "store a Tensor on self or in a global?); return it from the function instead")
            arrays.append(payload)
        # The shape rule runs once per signature; its errors are the user's, jax's are not.
        key, run = eager.lookup(primitive, arrays, attrs)
        if run is None:
            for a in arrays:
                if isinstance(a, SignatureOnly):
                    a.__array__()   # its error: a dynamic-shape signature holds no values
            types = [Tensor._type_of(a) for a in args]
            try:
                primitive.infer(*types, **attrs)
            except ShapeError as e:
                _raise_with_types(primitive, types, attrs, e)
            if key is None:
                run = functools.partial(primitive.impl, **attrs)
            else:
                run = eager.remember(primitive, key, attrs)
        out = run(*arrays)
        result = tuple(Tensor._wrap(o) for o in out) if primitive.multiple_results else Tensor._wrap(out)
        if _CONTEXT["check_finite"]:  # PYNATIVE's check: the first op to produce a NaN or Inf
            from ..compiler.check_finite import check_eager
            check_eager(primitive, args, result, user_source())
        return result
    values = [tracer.lift(a) for a in args]
    try:
        outs = tracer.add_node(primitive, values, attrs, user_source())
    except ShapeError as e:
        _raise_with_types(primitive, [v.type for v in values], attrs, e)
    if primitive.multiple_results:
        return tuple(Tensor._symbolic(v) for v in outs)
    return Tensor._symbolic(outs[0])


def at_user_line() -> str:
    """` (at net.py:12)`: the user's line an error message should point at ("" when the call
    came from no user file, say a library Cell traced from the command line)."""
    src = user_source()
    return f" (at {src.file}:{src.line})" if src.file else ""


def _raise_with_types(primitive, types, attrs, error):
    where = current_scope()
    prefix = f"in Cell '{where}': " if where else ""
    operands = ", ".join(str(t) for t in types)
    raise ShapeError(f"{prefix}{primitive.name}({operands}): {error}{at_user_line()}") from None

"""`trace(fn, *args)`: runs a function or Cell on symbolic Tensors and returns a `Traced`:
the Graph plus the Python objects its inputs and outputs stand for."""
from __future__ import annotations

import contextlib
import gc
import inspect
from dataclasses import dataclass, field
from typing import Any, Callable

from ..graph_scalar import GraphScalar, mark, python_value
from ..ir.core import Graph, TensorType, Value
from ..tensor import Tensor
from . import pytree
from .ast_transform import converted
from .member_params import route_members_through_stacks
from .outside_tensors import outside_tensors
from .tracer import Tracer, current_tracer, note_clamped_slices, note_modes, note_training_mode


@dataclass
class Traced:
    """A traced function: `graph` and what its inputs and outputs mean.

    graph.inputs = args (len n_args), then `params` (Parameter objects), then `captures`
    (Tensors of an enclosing trace). graph.outputs = user outputs (rebuilt with `out_tree`),
    then the new values of `state_params`, then those of the arguments the function wrote in
    place (`arg_writes`: their indices among the args), all state outputs in `graph.state_names`.
    """
    graph: Graph
    n_args: int
    params: list
    captures: list
    state_params: list
    out_tree: Any
    cache: dict = field(default_factory=dict)
    # The Cells the trace called, each with the training mode it saw: (weakref, training).
    modes: tuple = ()
    # Slices whose bound lay beyond their axis, (source, axis, bound, size) (frontend/tracer.py)
    clamped_slices: frozenset = frozenset()
    # Argument leaves written in place (x.add_(1)), whose new values the caller's Tensors get.
    arg_writes: tuple = ()
    # Indices of the user output leaves that are Python numbers in the graph (GraphScalar,
    # graph_scalar.py): `inline` marks them again, or, outside a trace, returns the numbers.
    out_scalars: tuple = ()
    _modes_verdict: tuple = (-1, False)  # (mode epoch, whether `modes` held then)
    # How many leading outputs are the function's results (the rest are writes); a field,
    # not a property: `inline` reads it on every call.
    n_user: int = field(init=False)

    def __post_init__(self):
        self.n_user = len(self.graph.outputs) - len(self.state_params) - len(self.arg_writes)

    def input_tensors(self, args: list[Tensor]) -> list[Tensor]:
        return list(args) + list(self.params) + list(self.captures)

    def modes_hold(self) -> bool:
        """Whether every Cell the trace called is still in the mode it was traced in. Checked
        once per `set_train` anywhere (the mode epoch), so a cache lookup costs a comparison.
        A Cell that no longer exists was made inside the traced function, in its default mode."""
        epoch, holds = self._modes_verdict
        if epoch != _MODE_EPOCH[0]:
            holds = all(cell is None or cell.training == training
                        for cell, training in ((ref(), training) for ref, training in self.modes))
            self._modes_verdict = (_MODE_EPOCH[0], holds)
        return holds


# Bumped by every Cell.set_train: the cue for cached traces to recheck their Cells' modes.
_MODE_EPOCH = [0]


def bump_mode_epoch() -> None:
    _MODE_EPOCH[0] += 1


class TraceCache:
    """Traces by signature key. One key can hold a trace per set of training modes: switching
    between set_train(True) and set_train(False) (eval between epochs) finds the trace made
    for each mode again instead of retracing. The modes are the ones the trace read from the
    Cells it called, not a global state, so Cells made and freed elsewhere change nothing."""

    def __init__(self):
        self._by_key: dict[Any, list[Traced]] = {}

    def get(self, key) -> Traced | None:
        for traced in self._by_key.get(key, ()):
            if traced.modes_hold():
                return traced
        return None

    def __setitem__(self, key, traced: Traced) -> None:
        self._by_key.setdefault(key, []).append(traced)

    def values(self) -> list[Traced]:
        return [t for entries in self._by_key.values() for t in entries]

    def __len__(self) -> int:
        return sum(map(len, self._by_key.values()))

    def clear(self) -> None:
        self._by_key.clear()


def _arg_names(fn, n_leaves_per_arg: list[int]) -> list[str]:
    try:
        target = fn.construct if hasattr(fn, "construct") and not inspect.isfunction(fn) else fn
        # positional parameters up to a *args (whose arguments are arg<i>)
        names = []
        for p in inspect.signature(target).parameters.values():
            if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                break
            names.append(p.name)
    except (TypeError, ValueError):
        names = []
    out = []
    for i, n in enumerate(n_leaves_per_arg):
        base = names[i] if i < len(names) else f"arg{i}"
        out.extend([base] if n == 1 else [f"{base}.{j}" for j in range(n)])
    return out


@contextlib.contextmanager
def paused_gc():
    """Python's cyclic garbage collector off for a trace or an export: they allocate thousands
    of small objects, which trigger full collections, and a full collection walks every
    object in the process (jax's, onnx's, torch's): 150 ms out of an N=16 export's 300 ms
    when one lands. The objects are collected as usual afterwards."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def trace(fn: Callable, *args, name: str | None = None, hands_back_writes: bool = True,
          shares_aliases: bool = False, arrays_out: bool = False, **kwargs) -> Traced:
    """Traces `fn(*args, **kwargs)`. Tensor leaves of the arguments become graph inputs;
    everything else is a constant of the trace. With `hands_back_writes`, arguments the
    function writes in place are graph outputs too (`Traced.arg_writes`); control-flow bodies
    do without: their arguments are operands and carries, which they return. With
    `shares_aliases` (jit, whose cache key holds `alias_pattern`), a Tensor passed twice,
    `f(x, x)`, is one Tensor inside, as in MindSpore 2.10's graph mode (measured): a write
    through one name is read through the other and handed back once. Its second input is
    left unread. (An export keeps them apart: an example passed twice is two inputs.) With
    `arrays_out` (jit), a numpy array the function returns (JIT Fallback's `np.array(...)`) is
    handed back as that array, as 2.10 does (measured), not as a Tensor output."""
    with paused_gc():
        return _trace(fn, args, kwargs, name, concrete=False, hands_back_writes=hands_back_writes,
                      shares_aliases=shares_aliases, arrays_out=arrays_out)


def alias_pattern(leaves: list) -> tuple | None:
    """For each Tensor leaf the index of its first occurrence among `leaves`, or None when no
    Tensor occurs twice (the usual case, kept out of the key)."""
    first: dict[int, int] = {}
    pattern = tuple(first.setdefault(id(t), i) for i, t in enumerate(leaves))
    return pattern if len(first) < len(leaves) else None


def trace_with_values(fn: Callable, *args) -> Traced:
    """Traces `fn(*args)` for a call that runs now (an eager grad): the trace knows its
    arguments' values, so tensor conditions take this call's branch and `x.item()` reads
    this call's value (frontend/concrete.py), as MindSpore's PYNATIVE runs the Python."""
    with paused_gc():
        return _trace(fn, args, {}, None, concrete=True)


def _trace(fn: Callable, args: tuple, kwargs: dict, name: str | None, concrete: bool,
           hands_back_writes: bool = True, shares_aliases: bool = False, arrays_out: bool = False) -> Traced:
    leaves, structure = pytree.flatten((args, kwargs))
    counts = [len(pytree.flatten(a)[0]) for a in args]
    counts.append(len(leaves) - sum(counts))
    names = _arg_names(fn, counts[:-1]) + [f"kw{i}" for i in range(counts[-1])]
    if name is None:
        name = type(fn).__name__ if hasattr(fn, "construct") else getattr(fn, "__name__", "graph")
    tracer = Tracer(name, concrete=concrete)
    symbolic = [tracer.new_arg(TensorType(t.shape, t.dtype), n) for t, n in zip(leaves, names)]
    symbolic = [mark(s) if type(t) is GraphScalar else s for s, t in zip(symbolic, leaves)]
    aliases = alias_pattern(leaves) if shares_aliases else None
    if aliases is not None:
        symbolic = [symbolic[first] for first in aliases]
    tracer.arg_ids = frozenset(map(id, symbolic))
    tracer.outside = outside_tensors(fn)
    if concrete:  # an argument's value: its array, or what its own trace works out
        tracer.concrete.sources.update((s._payload, t) for s, t in zip(symbolic, leaves))
        _mark_hooked_args(tracer, symbolic, leaves)
    else:   # a grad inside (jit's trace) marks them: its trace_with_values reads these
        for s, t in zip(symbolic, leaves):
            hooks = getattr(t, "_grad_hooks", None)
            if hooks:
                s._grad_hooks = hooks
    s_args, s_kwargs = pytree.unflatten(structure, symbolic)
    with tracer:
        owner = getattr(fn, "__self__", None)
        if hasattr(owner, "set_train"):  # a Cell's method (`@jit def step(self, ...)`) reads its mode
            note_training_mode(owner)
        # Graph mode: tensor if/while/for compile to cond/while nodes (frontend/ast_transform.py).
        result = converted(fn)(*s_args, **s_kwargs)
        out_leaves, out_tree = pytree.flatten(result, arrays_are_tensors=not arrays_out)
        out_tree = pytree.numpy_scalars_as_python(out_tree)
        out_values = [tracer.lift(t) for t in out_leaves]
        arg_writes = _arg_writes(tracer, symbolic, pytree.in_list(structure)) if hands_back_writes else []
        rows = route_members_through_stacks(tracer)   # an ensemble member's Parameter: its stack's row
        if rows:
            out_values = [rows.get(v, v) for v in out_values]
            arg_writes = [(i, rows.get(v, v)) for i, v in arg_writes]
    state = list(tracer.state.values())
    # Inputs in the documented order (args, params, captures), not the order the trace met
    # them: `Traced.input_tensors` and `inline` rely on it.
    tracer.inputs = (tracer.inputs[:len(leaves)] + [v for _, v in tracer.params.values()]
                     + [v for _, v in tracer.captures.values()])
    graph = tracer.build(out_values + [v for _, v in state] + [v for _, v in arg_writes],
                         tuple(p.name for p, _ in state) + tuple(tracer.inputs[i].name for i, _ in arg_writes))
    return Traced(graph, len(leaves), [p for p, _ in tracer.params.values()],
                  [t for t, _ in tracer.captures.values()], [p for p, _ in state], out_tree,
                  modes=tuple(tracer.modes.values()), arg_writes=tuple(i for i, _ in arg_writes),
                  clamped_slices=frozenset(tracer.clamped_slices),
                  out_scalars=tuple(i for i, t in enumerate(out_leaves) if type(t) is GraphScalar))


def _mark_hooked_args(tracer: Tracer, symbolic: list[Tensor], leaves: list[Tensor]) -> None:
    """An eager grad's arguments that carry Tensor hooks (registered before the call) read
    their hooks' markers (ops/tensor_hooks.py)."""
    from ..ops.tensor_hooks import mark_all
    done = set()
    for s, t in zip(symbolic, leaves):
        hooks = getattr(t, "_grad_hooks", None)
        if hooks and id(s) not in done:
            done.add(id(s))
            s._payload = mark_all(tracer, s._payload, hooks)


def _arg_writes(tracer: Tracer, symbolic: list[Tensor], in_list: list[bool]) -> list:
    """(index, new value) of each argument the traced function wrote in place: its Tensor no
    longer holds the input value. MindSpore 2.10's graph mode (measured) hands such writes back
    to the caller's Tensor, except `x[i] = v`, which rebinds the name: from there on the
    argument is no longer written (the value just before it is handed back), and Tensors in
    a list argument (a copy), which are never written back."""
    from ..ops.tensor_hooks import unmarked
    writes, seen = [], set()
    for i, (t, value) in enumerate(zip(symbolic, tracer.inputs)):
        if id(t) in seen:   # an alias of an earlier argument (`f(x, x)`): handed back there
            continue
        seen.add(id(t))
        final = tracer.setitem_frozen.get(id(t), t._payload)
        if isinstance(final, Value):   # a Tensor hook's marker is no write
            final = unmarked(final)
        if final is not value and not in_list[i]:
            writes.append((i, final if isinstance(final, Value) else tracer.lift(Tensor._wrap(final))))
    return writes


def _write_back(params, values) -> None:
    """Applies a step's parameter writes all or nothing: a Ctrl-C arriving in the middle
    waits until every write is done, so no step is ever half applied."""
    pending = list(zip(params, values))
    interrupted = None
    while pending:
        try:
            while pending:
                param, new = pending[-1]
                param._payload = new._payload
                pending.pop()
        except KeyboardInterrupt as e:  # finish the writes, then let it through
            interrupted = e
    if interrupted is not None:
        raise interrupted


def inline(traced: Traced, args: list[Tensor]):
    """Runs a traced graph on Tensors: appended to the active trace, or compiled and run
    eagerly. Parameter writes and in-place writes to the arguments are applied. Returns the
    rebuilt outputs."""
    tracer = current_tracer()
    inputs = traced.input_tensors(args)
    n_user = traced.n_user
    if tracer is None:
        from ..compiler.jit import run_graph
        outs = run_graph(traced, inputs)
        # The graph's types guarantee each new value's shape and dtype: write the arrays
        # straight back (this runs once per training step, for every optimizer state).
        written = traced.state_params
        if traced.arg_writes:
            written = list(written) + [args[i] for i in traced.arg_writes]
        _write_back(written, outs[n_user:])
        for i in traced.out_scalars:   # MindSpore hands a graph's Python numbers back as numbers
            outs[i] = python_value(outs[i])
    else:
        from ..ir.core import replay
        note_modes(traced.modes)  # the enclosing trace depends on the modes this one read
        note_clamped_slices(traced.clamped_slices)
        values = [tracer.lift(t) for t in inputs]
        out_values = replay(traced.graph, tracer, values)
        outs = [Tensor._symbolic(v) for v in out_values]
        n_state = n_user + len(traced.state_params)
        for param, new in zip(traced.state_params, out_values[n_user:n_state]):
            tracer.state[id(param)] = (param, new)
        for i, new in zip(traced.arg_writes, outs[n_state:]):
            args[i]._write(new, "an in-place write")  # the enclosing trace's argument, in turn
        for i in traced.out_scalars:
            outs[i] = mark(outs[i])
    return pytree.unflatten(traced.out_tree, outs[:n_user])

"""Building `cond` / `while_loop` nodes from Python functions.

Each branch (or the loop's condition and body) is traced as a nested trace (`trace()`):
outer Tensors it reads become "capture" inputs, Parameters "param" inputs, and its
Parameter writes state. The results are then reconciled and the subgraphs closed over one
shared operand list:

- what the branches return (or what a loop body returns against its start) must agree in
  structure; a Python number facing a Tensor becomes a Tensor of that type, two different
  Python numbers become Tensors, an unset early-return value takes zeros of the other
  side's structure, and a variable that only one side defines is dropped (an error naming
  it when the code reads it afterwards);
- cond operands = explicit operands + the union of what either branch reads; its outputs
  = the branch outputs + the union of the Parameters either branch writes (a branch that
  does not write one passes its current value through), and after the node the tracer's
  state for each written Parameter is the node's output (so `if ok: self.opt(grads)`
  merges an optimizer step);
- while carries = the loop variables + the Parameters the body writes; everything else
  the condition or body reads is a loop-invariant operand.
"""
from __future__ import annotations

import functools
import os
import sys
from dataclasses import dataclass
from numbers import Number

import numpy as np

from .. import dtype as mstype
from ..graph_scalar import GraphScalar, mark
from ..ir.core import GraphBuilder, TensorType, replay
from ..tensor import Tensor
from . import pytree
from .trace import trace
from .tracer import GraphModeError, current_tracer

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class ControlFlowError(GraphModeError):
    """Tensor control flow that graph mode cannot compile as written; says what to change."""


@dataclass(frozen=True)
class Where:
    """The user's construct: its kind ("if", "while", "for", "ops.cond", ...), file and line."""
    what: str
    file: str = ""
    line: int = 0

    def __str__(self):
        return f"{self.file}:{self.line}" if self.file else "<unknown>"

    @property
    def label(self) -> str:
        return f"`{self.what}` at {self}"

    @property
    def tag(self) -> str:
        return f"L{self.line}" if self.line else "fn"

    @classmethod
    def of_caller(cls, what: str) -> "Where":
        frame = sys._getframe(1)
        while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
            frame = frame.f_back
        return cls(what, frame.f_code.co_filename, frame.f_lineno) if frame else cls(what)


def is_traced(x) -> bool:
    return isinstance(x, Tensor) and x.is_symbolic


class Undefined:
    """The value of a variable that is not defined at this point (assigned in one branch
    only, or first assigned inside a loop). Using it raises an error naming it."""
    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def _fail(self, *_):
        raise ControlFlowError(f"variable {self.name!r} is used before it is assigned on this path")

    __bool__ = __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = _fail
    __call__ = __getitem__ = __neg__ = __matmul__ = __lt__ = __gt__ = __le__ = __ge__ = __iter__ = _fail

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        self._fail()

    def __repr__(self):
        return f"<undefined {self.name}>"


class _Unset:
    """The early-return value before any `return` ran: merges with anything as zeros."""
    __slots__ = ()

    def __repr__(self):
        return "<no return value yet>"


UNSET = _Unset()


# -- specs: the shape of a result, with Tensor types at the leaves ---------------------------------
# ("T", TensorType) a Tensor; ("S", value) a Python value; ("U", None) undefined;
# ("seq", kind, [specs]) a tuple/list/namedtuple; ("dict", keys, [specs]).

def _spec(structure, types) -> tuple:
    it = iter(types)

    def walk(s):
        if s is None:
            return ("T", next(it))
        if isinstance(s, pytree.Static):
            return ("U", None) if isinstance(s.value, Undefined) else ("S", s.value)
        if s[0] is dict:
            return ("dict", s[1], [walk(c) for c in s[2]])
        return ("seq", s[0], [walk(c) for c in s[1]])
    return walk(structure)


def _spec_of_traced(traced) -> tuple:
    n_user = len(traced.graph.user_outputs)
    return _spec(traced.out_tree, [v.type for v in traced.graph.outputs[:n_user]])


def _spec_of_values(values) -> tuple:
    leaves, structure = pytree.flatten(values)
    return _spec(structure, [Tensor._type_of(t) for t in leaves])


def _is_number(v) -> bool:
    return isinstance(v, (Number, np.bool_)) and not isinstance(v, (complex, np.complexfloating))


def _same_static(a, b) -> bool:
    if a is b:
        return True
    if _is_number(a) and _is_number(b):
        return type(a) is type(b) and a == b
    return isinstance(a, (str, type(None))) and type(a) is type(b) and a == b


def _number_type(*values) -> TensorType:
    if all(isinstance(v, (bool, np.bool_)) for v in values):
        return TensorType((), mstype.bool_)
    if all(isinstance(v, (int, np.integer, bool, np.bool_)) for v in values):
        return TensorType((), mstype.int64)
    return TensorType((), mstype.float32)


def _describe(spec) -> str:
    kind = spec[0]
    if kind == "T":
        return f"a Tensor {spec[1]}"
    if kind == "S":
        return f"the Python value {spec[1]!r}"
    if kind == "U":
        return "undefined"
    return f"a {getattr(spec[1], '__name__', spec[1])} of {len(spec[2])}"


class _Reconciler:
    """Computes the common spec of two results (two branches, or a loop's start and body)."""

    def __init__(self, where: Where, names, live: dict, sides: tuple, loop: bool):
        self.where, self.names, self.live, self.sides, self.loop = where, names, live or {}, sides, loop
        self.returned = (False, False)  # (see top)

    def top(self, a, b):
        if self.names is not None and a[0] == b[0] == "seq" and len(a[2]) == len(b[2]) == len(self.names):
            # A side that has surely returned (the early-return flag a Python True there) leaves
            # its variables unread: one it did not assign takes the other side's value.
            flag = self.names.index("__gc_retf") if "__gc_retf" in self.names else None
            self.returned = tuple(flag is not None and side[2][flag] == ("S", True) for side in (a, b))
            return ("seq", a[1], [self.merge(x, y, n) for x, y, n in zip(a[2], b[2], self.names)])
        return self.merge(a, b, None)

    def fail(self, name, a, b, hint: str):
        if name == "__gc_retv":  # the early-return lowering's variable: speak of the function
            raise ControlFlowError(
                f"the function returns {_describe(a)} on one path and {_describe(b)} on another, chosen "
                f"by the traced Tensor condition of the {self.where.label}: a compiled function has "
                "one kind of result; return the same structure (Tensors, or equal Python values) on every path")
        what = f"variable {name!r}" if name else "the result"
        raise ControlFlowError(
            f"{what} is {_describe(a)} {self.sides[0]} and {_describe(b)} {self.sides[1]} of the "
            f"{self.where.label}, whose condition is a traced Tensor: {hint}")

    def merge(self, a, b, name):
        ka, kb = a[0], b[0]
        if ka == "U" or kb == "U":
            return self.undefined(a, b, name)
        if ka == "S" and isinstance(a[1], _Unset) or kb == "S" and isinstance(b[1], _Unset):
            other = b if ka == "S" and isinstance(a[1], _Unset) else a
            return other
        if ka == kb == "T":
            ta, tb = a[1], b[1]
            if ta != tb:
                what = "keep one shape and dtype across iterations (cast or reshape it before the loop)" \
                    if self.loop else "both branches must give it the same shape and dtype"
                self.fail(name, a, b, what)
            return a
        if ka == "T" and kb == "S" and _is_number(b[1]):
            return a
        if kb == "T" and ka == "S" and _is_number(a[1]):
            return b
        if ka == kb == "S":
            if _same_static(a[1], b[1]):
                return a
            if _is_number(a[1]) and _is_number(b[1]):
                return ("T", _number_type(a[1], b[1]))
            self.fail(name, a, b, "a Python object cannot depend on a Tensor condition; make it a Tensor "
                      "or assign it outside the tensor control flow")
        if ka == kb == "seq" and a[1] is b[1] and len(a[2]) == len(b[2]):
            return ("seq", a[1], [self.merge(x, y, name) for x, y in zip(a[2], b[2])])
        if ka == kb == "dict" and a[1] == b[1]:
            return ("dict", a[1], [self.merge(x, y, name) for x, y in zip(a[2], b[2])])
        self.fail(name, a, b, "give it the same structure on both sides")

    def undefined(self, a, b, name):
        if a[0] == b[0] == "U" or name is None or name not in self.live:
            return ("U", None)
        if not self.loop and self.returned[0 if a[0] == "U" else 1]:
            return b if a[0] == "U" else a
        line = self.live[name]
        if self.loop:
            raise ControlFlowError(
                f"variable {name!r} is first assigned inside the {self.where.label}, whose condition is "
                f"a traced Tensor, and is used after the loop (line {line}); assign it before the loop")
        side = self.sides[0] if a[0] != "U" else self.sides[1]
        raise ControlFlowError(
            f"variable {name!r} is assigned only {side} of the {self.where.label}, whose condition is a "
            f"traced Tensor (both branches are compiled), and is used after it (line {line}); assign "
            f"{name!r} before the `{self.where.what}` or in both branches")


def _coerce(value, spec, name=""):
    """`value` made to match `spec` (inside the trace that will use it)."""
    from ..ops import functional as F
    kind = spec[0]
    if kind == "U":
        return value if isinstance(value, Undefined) else Undefined(name)
    if kind == "S":  # an unset value (a return not yet made) takes the other side's
        return spec[1] if isinstance(value, _Unset) else value
    if kind == "T":
        t = spec[1]
        if isinstance(value, (_Unset, Undefined)):  # unread: the path has returned, or not yet
            return F.zeros(t.shape, t.dtype)
        if isinstance(value, Tensor):
            return value
        # A Python number that a tensor condition decides stays a number in the graph
        return mark(F.full(t.shape, value, t.dtype)) if t.shape == () else F.full(t.shape, value, t.dtype)
    children = spec[2]
    if isinstance(value, _Unset):
        items = [_coerce(UNSET, c, name) for c in children]
    elif kind == "dict":
        items = [_coerce(value[k], c, name) for k, c in zip(spec[1], children)]
    else:
        items = [_coerce(v, c, name) for v, c in zip(value, children)]
    if kind == "dict":
        return dict(zip(spec[1], items))
    k = spec[1]
    return k(*items) if hasattr(k, "_fields") else k(items)


def _coerce_top(values, spec, names):
    if names is not None and spec[0] == "seq" and len(spec[2]) == len(names):
        return type(values)(_coerce(v, c, n) for v, c, n in zip(values, spec[2], names))
    return _coerce(values, spec)


def _conforming(fn, spec, names):
    """`fn` (source-transformed, for tensor control flow inside it) whose result is coerced
    to `spec` (None: unchanged)."""
    from .ast_transform import converted
    fn = converted(fn)
    if spec is None:
        return fn

    @functools.wraps(fn)
    def wrapped(*args):
        return _coerce_top(fn(*args), spec, names)
    return wrapped


def _same_spec(a, b) -> bool:
    if a[0] != b[0]:
        return False
    if a[0] == "T":
        return a[1] == b[1]
    if a[0] == "S":
        return _same_static(a[1], b[1])
    if a[0] == "U":
        return True
    return a[1] == b[1] if a[0] == "dict" else (a[1] is b[1] and len(a[2]) == len(b[2])) and \
        all(_same_spec(x, y) for x, y in zip(a[2], b[2]))


def predicate(x, where: Where) -> Tensor:
    """A traced condition as bool[] (Python truthiness: nonzero is true)."""
    from ..ops import functional as F
    if not isinstance(x, Tensor):
        return F.as_tensor(bool(x))
    if x.dtype is not mstype.bool_:
        x = F.not_equal(x, F.zeros_like(x))
    if x.shape != ():
        if x.size != 1:
            raise ControlFlowError(
                f"the condition of the {where.label} is a Tensor of shape {list(x.shape)}; a tensor "
                "condition needs exactly one element: reduce it first (x.all(), x.any())")
        x = F.reshape(x, ())
    return x


# -- closing subgraphs over one operand list ---------------------------------------------------------

class _Operands:
    """The ordered, de-duplicated outer values that subgraphs read, keyed by outer Value."""

    def __init__(self, tracer):
        self.tracer = tracer
        self.values: list = []          # outer Values
        self.meta: list = []            # (name, kind) of the subgraph input
        self.index: dict = {}           # outer Value -> slot

    def slot(self, outer, name: str, kind: str) -> int:
        value = self.tracer.lift(outer)
        got = self.index.get(value)
        if got is None:
            got = self.index[value] = len(self.values)
            self.values.append(value)
            self.meta.append((name, kind))
        return got

    def add_reads(self, traced, skip: set = frozenset()):
        for p in traced.params:
            if id(p) not in skip:
                self.slot(p, p.name, "param")
        for c in traced.captures:
            self.slot(c, f"capture{len(self.values)}", "capture")


def _close(traced, name: str, lead: list, ops: _Operands, param_slot, written: list, outputs):
    """Rebuilds `traced.graph` with inputs `lead` (name, type, kind) + the shared operands.

    `param_slot(p, lead_inputs, op_inputs)` gives the new input standing for Parameter p;
    `outputs(user_outs, writes, lead_inputs, op_inputs)` the new graph's outputs."""
    b = GraphBuilder(name)
    lead_in = [b.add_input(t, n, k) for n, t, k in lead]
    op_in = [b.add_input(v.type, n, k) for v, (n, k) in zip(ops.values, ops.meta)]
    n_args = traced.n_args
    inputs = lead_in[:n_args]
    # Params and captures are interleaved in graph.inputs (in the order the trace met them).
    params, captures = iter(traced.params), iter(traced.captures)
    for v in traced.graph.inputs[n_args:]:
        if v.kind == "param":
            inputs.append(param_slot(next(params), lead_in, op_in))
        else:
            inputs.append(op_in[ops.index[ops.tracer.lift(next(captures))]])
    outs = replay(traced.graph, b, inputs)
    n_user = len(traced.graph.user_outputs)
    writes = {id(p): v for p, v in zip(traced.state_params, outs[n_user:])}
    return b.build(outputs(outs[:n_user], writes, lead_in, op_in))


def _union_params(*traced_list) -> list:
    seen, out = set(), []
    for t in traced_list:
        for p in t.state_params:
            if id(p) not in seen:
                seen.add(id(p))
                out.append(p)
    return out


def _trace_as(fn, args, name):
    # MindSpore 2.10 hands no in-place write made under a tensor `if` or `while` back (measured)
    return trace(fn, *args, name=name, hands_back_writes=False)


# -- cond ----------------------------------------------------------------------------------------

def cond(pred, true_fn, false_fn, operands: tuple, *, names=None, live=None, where: Where | None = None):
    """Builds a `cond` node in the active trace; returns the merged result of the branches."""
    from ..ops.control_flow import cond_p
    where = where or Where("if")
    tracer = current_tracer()
    pred = predicate(pred, where)
    sides = ("in the true branch", "in the false branch")
    reconciler = _Reconciler(where, names, live, sides, loop=False)
    spec = None
    for _ in range(3):
        traced = [_trace_as(_conforming(fn, spec, names), operands, f"{where.what.split('.')[-1]}_{label}_{where.tag}")
                  for fn, label in ((true_fn, "true"), (false_fn, "false"))]
        specs = [_spec_of_traced(t) for t in traced]
        target = reconciler.top(*specs)
        if all(_same_spec(s, target) for s in specs):
            break
        spec = target
    else:  # pragma: no cover - coercion makes both sides match the target
        raise AssertionError(f"cond at {where}: branches did not converge")

    leaves = pytree.flatten(operands)[0]
    ops = _Operands(tracer)
    written = _union_params(*traced)
    for t in traced:
        ops.add_reads(t)
    for p in written:  # a branch that does not write p returns its current value
        ops.slot(p, p.name, "param")
    lead = [(v.name, v.type, "arg") for v in traced[0].graph.inputs[:traced[0].n_args]]

    def param_slot(p, lead_in, op_in):
        return op_in[ops.index[tracer.lift(p)]]

    def outputs(user, writes, lead_in, op_in):
        return list(user) + [writes.get(id(p), op_in[ops.index[tracer.lift(p)]]) for p in written]

    graphs = [_close(t, t.graph.name, lead, ops, param_slot, written, outputs) for t in traced]
    outs = cond_p.bind(pred, *leaves, *[Tensor._symbolic(v) for v in ops.values],
                       then_branch=graphs[0], else_branch=graphs[1])
    n_user = len(outs) - len(written)
    for p, new in zip(written, outs[n_user:]):
        tracer.assign(p, new)
    return pytree.unflatten(traced[0].out_tree, _numbers(outs[:n_user], *[t.out_scalars for t in traced]))


# -- while ---------------------------------------------------------------------------------------

def while_loop(cond_fn, body_fn, init: tuple, *, names=None, live=None, where: Where | None = None,
               trip_count: int | None = None) -> tuple:
    """Builds a `while_loop` node: `cond_fn(*carry)` and `body_fn(*carry) -> carry`. Returns
    the final carry (a tuple like `init`)."""
    from ..ops.control_flow import while_p
    where = where or Where("while")
    tracer = current_tracer()
    reconciler = _Reconciler(where, names, live, ("before", "after one iteration"), loop=True)
    carry, spec = tuple(init), None
    for _ in range(4):
        body = _trace_as(_conforming(body_fn, spec, names), carry, f"{where.what}_body_{where.tag}")
        start, after = _spec_of_values(carry), _spec_of_traced(body)
        target = reconciler.top(start, after)
        if _same_spec(start, target) and _same_spec(after, target):
            break
        carry, spec = _coerce_top(carry, target, names), target
    else:
        raise ControlFlowError(f"the loop variables of the {where.label} do not settle to fixed types")

    cond_fn = _conforming(cond_fn, None, None)

    @functools.wraps(cond_fn)
    def cond_pred(*args):
        return predicate(cond_fn(*args), where)
    test = _trace_as(cond_pred, carry, f"{where.what}_cond_{where.tag}")
    if test.state_params:
        raise ControlFlowError(f"the condition of the {where.label} writes Parameter "
                               f"{test.state_params[0].name!r}; write it in the loop body instead")
    leaves = pytree.flatten(carry)[0]
    k = len(leaves)
    written = _union_params(body)
    ops = _Operands(tracer)
    skip = {id(p) for p in written}
    ops.add_reads(test, skip)
    ops.add_reads(body, skip)
    lead = [(v.name, v.type, "arg") for v in body.graph.inputs[:k]]
    lead += [(p.name, TensorType(p.shape, p.dtype), "arg") for p in written]
    carried = {id(p): k + j for j, p in enumerate(written)}

    def param_slot(p, lead_in, op_in):
        j = carried.get(id(p))
        return lead_in[j] if j is not None else op_in[ops.index[tracer.lift(p)]]

    def body_outputs(user, writes, lead_in, op_in):
        return list(user) + [writes.get(id(p), lead_in[carried[id(p)]]) for p in written]

    def cond_outputs(user, writes, lead_in, op_in):
        return list(user)

    body_graph = _close(body, body.graph.name, lead, ops, param_slot, written, body_outputs)
    cond_graph = _close(test, test.graph.name, lead, ops, param_slot, written, cond_outputs)
    extra = {} if trip_count is None else {"trip_count": int(trip_count)}
    outs = while_p.bind(*leaves, *written, *[Tensor._symbolic(v) for v in ops.values],
                        cond_graph=cond_graph, body_graph=body_graph, n_carry=k + len(written), **extra)
    for p, new in zip(written, outs[k:]):
        tracer.assign(p, new)
    carried = [i for i, t in enumerate(leaves) if type(t) is GraphScalar]
    return tuple(pytree.unflatten(body.out_tree, _numbers(outs[:k], body.out_scalars, carried)))


def _numbers(outs, *scalar_sets) -> list:
    """`outs` with the results that are Python numbers on every side (both branches; a loop's
    start and body) marked as such (GraphScalar)."""
    common = set(scalar_sets[0]).intersection(*scalar_sets[1:])
    return [mark(t) if i in common else t for i, t in enumerate(outs)]


__all__ = ["cond", "while_loop", "predicate", "is_traced", "Where", "Undefined", "UNSET",
           "ControlFlowError"]

"""Reverse-mode autodiff as a pass: `grad_graph(graph, wrt) -> Graph`.

The new graph replays the forward nodes, then walks them in reverse and asks each
primitive's vjp rule (declared beside the primitive, written with graphcell.ops) for its
inputs' cotangents, summing the cotangents of values used more than once. The result is
ordinary IR, so it can be vmapped, jitted or exported to ONNX like any other graph:

    graph f(%x: f32[3]) {                 graph grad_f(%x: f32[3]) {
      %0:f32[3] = sin(%x)                   %0:f32[3] = sin(%x)
      %1:f32[] = reduce_sum(%0) {axes=(0,)} %1:f32[] = reduce_sum(%0) {axes=(0,)}
      return %1                             ...   # ones, broadcast, cos(%x), mul
    }                                       return %1, %5
                                          }

Integer and bool values carry no gradient, `stop_gradient` blocks it, and values that do
not depend on a `wrt` input are never differentiated. Parameter writes of the forward graph
(BatchNorm statistics) pass through as the new graph's state outputs.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from ..ir.core import Graph, Node, SourceInfo, Value
from ..ops import core_prims
from ..ops import functional as F
from ..tensor import Tensor


@dataclass(frozen=True)
class VjpContext:
    """What the pass tells a vjp rule. `needs[i]`: input i wants a cotangent (a rule may
    return None for the others and skip their work). `active`: the forward graph's values
    that get cotangents. `shared`: one dict per pass, where a rule can leave values (of the
    graph being built) for a rule that runs after it (a backward hook's two markers)."""
    needs: tuple
    node: Node
    active: set | frozenset = frozenset()
    shared: dict = field(default_factory=dict)

    @property
    def source(self) -> SourceInfo:
        return self.node.source


# Backward nodes carry the source of the forward node whose vjp made them, noted `[grad]`
# (`conv2 [grad] net.py:20`), as MindSpore's IR puts them under `Gradients/`.
GRAD_NOTE = "grad"
# The note on the node that makes a parameter's gradient (shown after its Cell path, in place
# of `[grad]`). The vmap pass stacks the members' gradients there for onnxruntime, so that an
# optimizer's update runs once on the stacks; it survives inlining into an enclosing trace, as
# sources do.
PARAM_GRAD_NOTE = "param_grad"


def _note(node: Node, note: str) -> None:
    src = node.source
    if f"[{note}]" not in src.scope:
        scope = src.scope.removesuffix(f" [{GRAD_NOTE}]").removesuffix(f"[{GRAD_NOTE}]")
        node.source = SourceInfo(src.file, src.line, f"{scope} [{note}]" if scope else f"[{note}]")


def differentiable(value: Value) -> bool:
    return value.dtype.is_inexact


def grad_graph(graph: Graph, wrt: Sequence[int], outputs: Sequence[int] | None = None,
               with_sens: bool = False, name: str | None = None) -> Graph:
    """The graph computing `graph`'s outputs and the gradients with respect to inputs `wrt`.

    The differentiated quantity is sum_k sum(user_output[outputs[k]] * sens_k): with
    `with_sens` each sens_k is a new input (inserted after the leading "arg" inputs, one per
    entry of `outputs`), otherwise it is ones (the gradient of the outputs' sum).

    New graph: inputs = graph's args, [sens...], graph's other inputs; outputs = graph's
    user outputs, one gradient per `wrt` entry (zeros where the output does not depend on
    it), then graph's state outputs (same `state_names`).
    """
    from ..frontend.tracer import OriginTracer
    n_user = len(graph.user_outputs)
    outputs = tuple(range(n_user)) if outputs is None else tuple(outputs)
    for i in wrt:
        if not differentiable(graph.inputs[i]):
            raise TypeError(f"grad: input {graph.inputs[i].name!r} is {graph.inputs[i].dtype}; "
                            "gradients exist only for floating-point inputs")
    tracer = OriginTracer(name or f"grad_{graph.name}")
    n_args = next((i for i, v in enumerate(graph.inputs) if v.kind != "arg"), len(graph.inputs))
    env: dict[Value, Value] = {}
    for v in graph.inputs[:n_args]:
        env[v] = tracer.add_input(v.type, v.name, v.kind)
    sens = [tracer.add_input(graph.outputs[i].type, f"sens{k}", "arg") for k, i in enumerate(outputs)] \
        if with_sens else None
    for v in graph.inputs[n_args:]:
        env[v] = tracer.add_input(v.type, v.name, v.kind)

    active = _active_values(graph, wrt)
    with tracer:
        for node in graph.nodes:  # the forward pass, unchanged
            tracer.origin = node.source
            outs = tracer.add_node(node.primitive, tuple(env[v] for v in node.inputs), node.attrs)
            env.update(zip(node.outputs, outs))
        sym = lambda v: Tensor._symbolic(env[v])  # noqa: E731
        cts: dict[Value, Tensor] = {}
        shared: dict = {}

        def accumulate(value: Value, ct: Tensor, node: Node | None):
            if tuple(ct.shape) != value.shape or ct.dtype is not value.dtype:
                where = f"vjp of '{node.primitive.name}'" if node else "seed"
                raise AssertionError(f"{where} gave a cotangent {ct.dtype}{list(ct.shape)} for a value "
                                     f"{value.type}")  # a bug in a rule, not a user error
            cts[value] = ct if value not in cts else F.add(cts[value], ct)

        tracer.origin, tracer.note = SourceInfo(), GRAD_NOTE
        for k, i in enumerate(outputs):
            out = graph.outputs[i]
            if out in active:
                accumulate(out, Tensor._symbolic(sens[k]) if sens else F.ones_like(sym(out)), None)
        for node in reversed(graph.nodes):
            out_cts = tuple(cts.get(v) for v in node.outputs)
            needs = tuple(v in active for v in node.inputs)
            if all(c is None for c in out_cts) or not any(needs):
                continue
            rule = node.primitive.vjp_rule
            tracer.origin = node.source
            if rule is None:
                raise NotImplementedError(f"grad: primitive '{node.primitive.name}' has no vjp rule "
                                          f"(used at {node.source})")
            in_cts = rule(VjpContext(needs, node, active, shared), out_cts, tuple(sym(v) for v in node.inputs),
                          tuple(sym(v) for v in node.outputs), **node.attrs)
            for v, ct, need in zip(node.inputs, in_cts, needs):
                if need and ct is not None:
                    accumulate(v, ct, node)
        tracer.origin = SourceInfo()
        grads = [cts[graph.inputs[i]] if graph.inputs[i] in cts else F.zeros_like(sym(graph.inputs[i]))
                 for i in wrt]
        grad_values = [tracer.lift(g) for g in grads]
    for i, value in zip(wrt, grad_values):
        if graph.inputs[i].kind == "param" and value.producer is not None:
            _note(value.producer, PARAM_GRAD_NOTE)
    new_outputs = [env[v] for v in graph.user_outputs] + grad_values + [env[v] for v in graph.state_outputs]
    return prune(tracer.build(new_outputs, graph.state_names, graph.meta))


def _active_values(graph: Graph, wrt: Sequence[int]) -> set:
    """Values that depend differentiably on a `wrt` input: the only ones given cotangents."""
    active = {graph.inputs[i] for i in wrt}
    for node in graph.nodes:
        if node.primitive is core_prims.stop_gradient:
            continue
        if any(v in active for v in node.inputs):
            active.update(v for v in node.outputs if differentiable(v))
    return active


def prune(graph: Graph) -> Graph:
    """Drops pure nodes whose results nothing uses (cotangents computed for inputs that did
    not need them, constants of unused branches)."""
    live = set(graph.outputs)
    kept = []
    for node in reversed(graph.nodes):
        if not node.pure or any(v in live for v in node.outputs):
            kept.append(node)
            live.update(node.inputs)
    if len(kept) == len(graph.nodes):
        return graph
    kept_set = set(map(id, kept))
    for node in graph.nodes:
        if id(node) not in kept_set:
            for v in node.inputs:
                v.users = [u for u in v.users if u is not node]
    return Graph(graph.inputs, tuple(reversed(kept)), graph.outputs, graph.state_names, graph.name,
                 graph.meta)

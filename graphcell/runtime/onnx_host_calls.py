"""jit(backend="onnx") of a graph with host calls: onnxruntime models and Python, run in turn.

An ONNX model cannot call Python, yet prints, `raise`/`assert` checks under a tensor condition
(frontend/graph_raise.py), `ops.Custom` pyfuncs, tensordumps and backward hooks are host calls
(`host_call`, `backward_hook`: primitives with a `host_callback`) that the XLA backend runs as
ordered io_callbacks. Here the top-level nodes of the "onnx" pipeline's graph are cut at every
host call whose outputs are read (a Custom's result, the gradients a hook gives back):

    stage 0: model(x, params) -> values later stages and host calls read
    host call: Custom 'add'(those values) -> its outputs
    stage 1: model(x, params, ...) -> ...
    ...

A host call whose outputs nothing reads (a print, a check) does not cut: its operands become
outputs of the model of its stage and it runs after that model. Host calls run in program order
on numpy arrays, as io_callback passes them, and share the XLA path's error handling
(ops/hooks.py): the first error skips the later host calls and is raised, as itself, before the
next model runs. The caller sees only the graph's outputs.

A top-level `cond` with host calls in a branch (a print in an `if`, a `raise` under a tensor
condition, which frontend/graph_raise.py makes a cond whose taken branch ends in the check) is
a step of its own too: its predicate is read on the host and the branch taken runs as a plan of
the same kind, so its host calls run exactly when Python would run them. Host calls inside a
while/scan body cannot leave their ONNX Loop: a print's or a check's is left out with a warning
that names it and its Cell and points to the XLA backend; any other is refused with an error
that says the same.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from ..ir.core import Graph, GraphBuilder, Node, TensorType

__all__ = ["HostPlan", "host_plan"]


def _is_host_call(node: Node) -> bool:
    return node.primitive.host_callback is not None


def _branches_call_host(node: Node) -> bool:
    """Whether `node` is a cond with a host call in a branch (in a nested body too)."""
    from ..ops.control_flow import cond_p
    from ..ops.hooks import runs_hooks
    return node.primitive is cond_p and any(runs_hooks(node.attrs[k]) for k in ("then_branch", "else_branch"))


def _where(node: Node) -> str:
    src = node.source
    at = f" at {src.file}:{src.line}" if src.file else ""
    return f"{node.attrs.get('fn', node.primitive.name)} in Cell '{src.scope or '<top>'}'{at}"


@dataclass
class _Model:
    """One onnxruntime model: a stage's nodes, fed `inputs` and giving `outputs` (values of the
    pipeline graph); a complex value crosses as its real and imaginary parts."""
    graph: Graph
    inputs: list
    outputs: list
    session: object = None

    def run(self, env: dict) -> None:
        feeds = []
        for v in self.inputs:
            a = env[v]
            feeds += [np.ascontiguousarray(a.real), np.ascontiguousarray(a.imag)] if v.dtype.is_complex \
                else [_as_type(a, v.type)]
        outs = iter(self.session.run(*feeds))
        for v in self.outputs:
            if v.dtype.is_complex:
                re, im = next(outs), next(outs)
                env[v] = (re + 1j * im).astype(v.dtype.np_dtype)
            else:
                env[v] = _as_type(next(outs), v.type)


@dataclass
class _Call:
    """One host call, run on the values of its operands."""
    node: Node

    def run(self, env: dict) -> None:
        from ..ops.hooks import raise_hook_error
        node = self.node
        outs = node.primitive.host_callback([env[v] for v in node.inputs], **node.attrs)
        raise_hook_error()   # the function's own exception, as the XLA path raises it
        env.update(zip(node.outputs, outs))


@dataclass
class _Cond:
    """A cond with host calls in a branch: the predicate read on the host, the branch taken run
    as a plan of its own on the operands."""
    node: Node
    then_plan: "HostPlan"
    else_plan: "HostPlan"

    def run(self, env: dict) -> None:
        pred, *operands = (env[v] for v in self.node.inputs)
        plan = self.then_plan if bool(pred) else self.else_plan
        env.update(zip(self.node.outputs, plan.run(operands)))


class HostPlan:
    """The models and host calls of one graph, in the order they run (see the module doc)."""

    def __init__(self, graph: Graph, steps: list):
        self.graph, self.steps = graph, steps

    @property
    def models(self) -> list:
        """Every model to lower, the branches' included, in a fixed order."""
        found = []
        for step in self.steps:
            if isinstance(step, _Model):
                found.append(step)
            elif isinstance(step, _Cond):
                found += step.then_plan.models + step.else_plan.models
        return found

    def run(self, arrays) -> list:
        """All outputs of the graph (state writes included) for its input arrays, as numpy arrays."""
        env = {v: np.asarray(a) for v, a in zip(self.graph.inputs, arrays)}
        for step in self.steps:
            step.run(env)
        return [env[v] for v in self.graph.outputs]


def host_plan(graph: Graph) -> HostPlan:
    """Cuts `graph` (the "onnx" pipeline's) into models and host calls; warns of, or refuses,
    the host calls inside control-flow bodies. The models are lowered later (`HostPlan.models`)."""
    for node in graph.nodes:
        if not _branches_call_host(node):
            for sub in (a for a in node.attrs.values() if isinstance(a, Graph)):
                _check_nested(sub)
    read = {v for node in graph.nodes for v in node.inputs} | set(graph.outputs)
    # Segments: the nodes between host calls whose outputs are read, each followed by its calls.
    segments: list[tuple[list, list]] = [([], [])]
    for node in graph.nodes:
        if not (_is_host_call(node) or _branches_call_host(node)):
            segments[-1][0].append(node)
            continue
        segments[-1][1].append(node)
        if any(v in read for v in node.outputs):   # a cut: its results feed what follows
            segments.append(([], []))
    # What each segment must hand on: the values later nodes, host calls and the outputs read.
    needed_after: list[set] = []
    needed = set(graph.outputs)
    for nodes, calls in reversed(segments):
        for node in calls:
            needed.update(node.inputs)
        needed_after.append(set(needed))
        for node in nodes:
            needed.update(node.inputs)
    needed_after.reverse()
    steps = []
    for i, ((nodes, calls), needed) in enumerate(zip(segments, needed_after)):
        made = {v for node in nodes for v in node.outputs}
        outputs = [v for node in nodes for v in node.outputs if v in needed]
        if outputs:
            steps.append(_stage(graph, nodes, made, outputs, i))
        steps += [_Call(node) if _is_host_call(node) else
                  _Cond(node, host_plan(node.attrs["then_branch"]), host_plan(node.attrs["else_branch"]))
                  for node in calls]
    return HostPlan(graph, steps)


def _stage(graph: Graph, nodes: list, made: set, outputs: list, index: int) -> _Model:
    from ..ops.complex_ops import imag_part, make_complex, real_part
    inputs = list(dict.fromkeys(v for node in nodes for v in node.inputs if v not in made))   # in order, once
    b = GraphBuilder(graph.name)
    env = {}
    for k, v in enumerate(inputs):
        if v.dtype.is_complex:
            part = TensorType(v.shape, v.dtype.real_dtype)
            re, im = b.add_input(part, f"in{k}_re"), b.add_input(part, f"in{k}_im")
            env[v] = b.add_node(make_complex, (re, im), {})[0]
        else:
            env[v] = b.add_input(v.type, v.name or f"in{k}")
    for node in nodes:
        outs = b.add_node(node.primitive, tuple(env[v] for v in node.inputs), node.attrs, node.source)
        env.update(zip(node.outputs, outs))
    results = []
    for v in outputs:
        results += [b.add_node(real_part, (env[v],), {})[0], b.add_node(imag_part, (env[v],), {})[0]] \
            if v.dtype.is_complex else [env[v]]
    stage = b.build(results, meta={"host_stage": index})
    return _Model(stage, inputs, outputs)


def _check_nested(graph: Graph) -> None:
    """Host calls in a loop body (a while's or a scan's, a cond's within one): a print or a check
    is left out (warned), others refused."""
    from ..compiler.onnx import OnnxExportError
    for node in graph.nodes:
        for sub in (a for a in node.attrs.values() if isinstance(a, Graph)):
            _check_nested(sub)
        if not _is_host_call(node):
            continue
        if getattr(node.attrs.get("fn"), "onnx_drop", ""):
            warnings.warn(f"jit(backend='onnx'): {_where(node)} is inside a loop body (while or scan), "
                          "which runs inside onnxruntime and cannot call Python: it is left out and does "
                          "not run; use jit(backend='xla') to run it", UserWarning, stacklevel=2)
        else:
            raise OnnxExportError(f"jit(backend='onnx'): {_where(node)} runs Python inside a loop body "
                                  "(while or scan), which runs inside onnxruntime and cannot call Python; "
                                  "use jit(backend='xla'), or move it out of the loop")


def _as_type(array, type: TensorType) -> np.ndarray:
    """An onnxruntime array as the IR type's numpy dtype (bfloat16 may come back as its bits)."""
    array = np.asarray(array)
    want = np.dtype(type.dtype.np_dtype)
    if array.dtype != want:
        array = array.view(want) if array.dtype.itemsize == want.itemsize and array.dtype.kind in "uV" \
            else array.astype(want)
    return array

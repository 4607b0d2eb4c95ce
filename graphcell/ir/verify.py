"""The verifier: re-runs every node's shape rule and checks SSA form and order."""
from __future__ import annotations

from .core import Graph
from .printer import format_graph


class VerificationError(AssertionError):
    """A graph broke an IR invariant: a bug in a pass or the tracer, not a user error."""


def verify(graph: Graph) -> None:
    """Raises VerificationError, with the graph printed and the bad line marked."""
    defined = set(graph.inputs)
    if len(defined) != len(graph.inputs):
        _fail(graph, None, "an input appears twice")
    for i, node in enumerate(graph.nodes):
        for v in node.inputs:
            if v not in defined:
                _fail(graph, i, f"input %{v.name or '?'} is used before it is defined")
        try:
            expected = node.primitive.infer(*[v.type for v in node.inputs], **node.attrs)
        except Exception as e:  # noqa: BLE001 - any rule failure is a verification failure
            _fail(graph, i, f"shape rule failed: {e}")
        got = [v.type for v in node.outputs]
        if list(expected) != got:
            _fail(graph, i, f"output types {got} differ from the shape rule's {list(expected)}")
        for v in node.outputs:
            if v in defined:
                _fail(graph, i, "a value is defined twice")
            defined.add(v)
    for v in graph.outputs:
        if v not in defined:
            _fail(graph, None, f"output %{v.name or '?'} is not defined")
    if len(graph.state_names) > len(graph.outputs):
        _fail(graph, None, "more state names than outputs")


def _fail(graph: Graph, node_index: int | None, message: str):
    lines = format_graph(graph).splitlines()
    if node_index is not None:
        target = node_index + 1  # line 0 is the header
        lines[target] = lines[target] + "    <-- " + message
    raise VerificationError(f"{message}\n" + "\n".join(lines))

"""Common-subexpression elimination: one node per (primitive, inputs, attrs).

    graph f(%x: f32[3]) {                    graph f(%x: f32[3]) {
      %0:f32[3] = exp(%x)          cse         %0:f32[3] = exp(%x)
      %1:f32[3] = exp(%x)          -->         %1:f32[3] = add(%0, %0)
      %2:f32[3] = add(%0, %1)                  return %1
      return %2                              }
    }

Only pure primitives merge (`Primitive.pure`). Keys use the already-merged inputs, so whole
duplicated chains collapse in one walk; `constant` nodes merge by content (a `Literal`
hashes its bytes). Attrs are hashable by design (canonical tuples); a node whose attrs are
not is left alone. The first occurrence wins, so its source line is the one kept.
"""
from __future__ import annotations

from ..ir.core import Graph
from .base import PassResult, rebuild, remembered, result


def _key(node, ins):
    # Floats by repr: 0.0 == -0.0, and leaky_relu(alpha=-0.0) is not leaky_relu(alpha=0.0).
    attrs = tuple((k, (float, repr(v)) if isinstance(v, float) else v) for k, v in sorted(node.attrs.items()))
    return (node.primitive, ins, attrs)


def cse(graph: Graph) -> PassResult:
    """Merges pure nodes that apply one primitive to the same inputs with the same attrs."""
    subgraph_pass = remembered(cse)
    if not _has_duplicates(graph, subgraph_pass):   # (the pipeline's last round): no copy
        return PassResult(graph, False)
    seen: dict = {}

    def lookup(node, ins, builder):
        if not node.pure:
            return None
        try:
            return seen.get(_key(node, ins))
        except TypeError:  # an unhashable attr: never merged
            return None

    def record(node, ins, outs):
        if node.pure:
            try:
                seen.setdefault(_key(node, ins), outs)
            except TypeError:
                pass

    new, changed = rebuild(graph, lookup, subgraph_pass=subgraph_pass, on_copy=record)
    return result(graph, new, changed)


def _has_duplicates(graph: Graph, subgraph_pass) -> bool:
    """Whether `cse` would merge anything: the keys of the graph's own values, which a copy
    matches node for node up to its first merge."""
    keys: set = set()
    for node in graph.nodes:
        if any(isinstance(a, Graph) and subgraph_pass(a).changed for a in node.attrs.values()):
            return True
        if node.primitive.pure:
            key = _key(node, node.inputs)
            try:
                if key in keys:
                    return True
                keys.add(key)
            except TypeError:  # an unhashable attr: never merged
                pass
    return False

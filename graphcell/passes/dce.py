"""Dead-code elimination: drops pure nodes whose results nothing uses.

    graph f(%x: f32[3]) {                    graph f(%x: f32[3]) {
      %0:f32[3] = exp(%x)          dce         %0:f32[3] = neg(%x)
      %1:f32[3] = neg(%x)          -->         return %0
      return %1                              }
    }

A node is live if one of its outputs is a graph output (user outputs and parameter writes
alike) or feeds a live node. Impure nodes (`Primitive.pure` False) are always kept, and so
are the values they read. Graph inputs are never removed: they are the signature.
"""
from __future__ import annotations

from ..ir.core import Graph
from .base import PassResult, rebuild, result


def dce(graph: Graph) -> PassResult:
    """Removes dead pure nodes, in subgraphs too."""
    live = set(graph.outputs)
    kept: set[int] = set()
    for node in reversed(graph.nodes):
        if not node.pure or any(v in live for v in node.outputs):
            kept.add(id(node))
            live.update(node.inputs)
    new, changed = rebuild(graph, keep=lambda n: id(n) in kept, subgraph_pass=dce, scan_first=True)
    return result(graph, new, changed)

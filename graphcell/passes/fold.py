"""Constant folding: a pure node whose inputs are all constants becomes a constant.

    graph f(%x: f32[2]) {                                graph f(%x: f32[2]) {
      %0:f32[] = constant() {value=2.0}                    %0:f32[] = constant() {value=2.0}
      %1:f32[] = exp(%0)                       fold        %1:f32[] = constant() {value=7.38905...}
      %2:f32[2] = mul(%x, %1)                  -->         %2:f32[2] = mul(%x, %1)
      return %2                                            return %2
    }                                                    }

The node is evaluated with its primitive's jax implementation (the same code XLA runs), so
folding never changes a result. Primitives that only move or copy elements (reshape,
broadcast, transpose, slice, reverse, concatenate) declare an exact numpy `host_impl`, which
runs instead: jax compiles a program for every primitive and shape it runs eagerly, and the
broadcasts and reshapes of gradient rules made most of them (one pooling layer's gradient
under jit: 74 compiles, ~16 of its 20 s). So does `cast` where numpy's cast is exact (Momentum's
int64 -> float32 scalars were two compiles per process). The old constants stay; DCE removes
them when unused.

Size limits keep folding from bloating a graph: nothing over `max_elements` (default 1e5)
is folded, and a node that makes more elements than its inputs hold together (a broadcast,
an iota-like expansion) is folded only up to `max_expand` elements (default 1024): a
`broadcast_in_dim` of a scalar to a big shape is cheaper to keep than to store.
"""
from __future__ import annotations

import math

import numpy as np

from ..ir.core import Graph
from ..ops import core_prims
from ..ops.primitive import Literal
from .base import PassResult, rebuild, result



def constant_array(value) -> np.ndarray | None:
    """The array of a value made by a `constant` node, else None."""
    node = value.producer
    if node is not None and node.primitive is core_prims.constant:
        return node.attrs["value"].array
    return None


class FoldConstants:
    """`FoldConstants(max_elements=..., max_expand=...)(graph) -> PassResult`."""

    def __init__(self, max_elements: int = 100_000, max_expand: int = 1024):
        self.max_elements = int(max_elements)
        self.max_expand = int(max_expand)
        self.__name__ = "fold"

    def __repr__(self):
        return f"FoldConstants(max_elements={self.max_elements}, max_expand={self.max_expand})"

    def _worth_folding(self, node, arrays) -> bool:
        prim = node.primitive
        if not node.pure or prim is core_prims.constant or not node.outputs:
            return False
        if any(a is None for a in arrays):
            return False
        out_size = sum(math.prod(v.shape) for v in node.outputs)
        if out_size > self.max_elements:
            return False
        in_size = sum(a.size for a in arrays)
        return out_size <= max(in_size, self.max_expand)

    def __call__(self, graph: Graph) -> PassResult:
        def hook(node, ins, builder):
            arrays = [constant_array(v) for v in ins]
            if not self._worth_folding(node, arrays):
                return None
            results = (node.primitive.host_impl or node.primitive.impl)(*arrays, **node.attrs)
            results = tuple(results) if node.primitive.multiple_results else (results,)
            outs = []
            for old, array in zip(node.outputs, results):
                array = np.asarray(array)
                if array.shape != old.shape:  # an impl that disagrees with its shape rule: leave it
                    return None
                outs.append(array.astype(old.dtype.np_dtype, copy=False))
            return tuple(builder.add_node(core_prims.constant, (), {"value": Literal(a)})[0] for a in outs)

        new, changed = rebuild(graph, hook, subgraph_pass=self, scan_first=True)
        return result(graph, new, changed)


fold_constants = FoldConstants()

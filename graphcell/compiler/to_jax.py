"""Lowering a Graph to a Python function over jax arrays: one table lookup per node.

Under `jax.jit` this gives the same XLA program as hand-written jax code: the interpreter
loop runs once, at jax trace time.
"""
from __future__ import annotations

from ..ir.core import Graph


def graph_to_jax(graph: Graph):
    """Returns `fn(*arrays) -> tuple(arrays)` computing `graph`'s outputs."""
    nodes = [(n.primitive.impl, n.primitive.multiple_results, n.inputs, n.attrs, n.outputs)
             for n in graph.nodes]
    inputs, outputs = graph.inputs, graph.outputs

    def run(*arrays):
        env = dict(zip(inputs, arrays))
        for impl, multi, ins, attrs, outs in nodes:
            result = impl(*[env[v] for v in ins], **attrs)
            if multi:
                env.update(zip(outs, result))
            else:
                env[outs[0]] = result
        return tuple(env[v] for v in outputs)

    run.__name__ = graph.name
    return run


def stablehlo_text(graph: Graph) -> str:
    """The StableHLO module jax produces for the graph (what XLA compiles)."""
    import jax
    specs = [jax.ShapeDtypeStruct(v.shape, v.dtype.np_dtype) for v in graph.inputs]
    return jax.jit(graph_to_jax(graph)).lower(*specs).as_text()

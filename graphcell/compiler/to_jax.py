"""Lowering a Graph to a Python function over jax arrays: one table lookup per node.

Under `jax.jit` this gives the same XLA program as hand-written jax code: the interpreter
loop runs once, at jax trace time.

Each node lowers inside a `jax.named_scope` of its Cell path (`layer1.0.conv1` becomes
`layer1/0/conv1`, a pass's note a last part: `fc1/[grad]`) and located at its file:line
(`jax_locations.py`), so StableHLO locations (`jax.jit(fn).lower(...).as_text(debug_info=True)`),
XLA's op metadata and profiles name the user's Cell and line:
`jit(Net)/layer1/0/conv1/conv_general_dilated` at `model.py:31`. Consecutive nodes of one
Cell and line share one scope, entered once.
"""
from __future__ import annotations

import jax

from ..ir.core import Graph
from .jax_locations import located, scope_name


def graph_to_jax(graph: Graph):
    """Returns `fn(*arrays) -> tuple(arrays)` computing `graph`'s outputs."""
    names: dict[str, str] = {}
    runs: list[tuple[tuple, list]] = []   # ((scope name, file, line), their consecutive nodes)
    for n in graph.nodes:
        src = n.source
        name = names.get(src.scope)
        if name is None:
            name = names[src.scope] = scope_name(src.scope)
        entry = (n.primitive.impl, n.primitive.multiple_results, n.inputs, n.attrs, n.outputs)
        where = (name, src.file, src.line)
        if runs and runs[-1][0] == where:
            runs[-1][1].append(entry)
        else:
            runs.append((where, [entry]))
    inputs, outputs = graph.inputs, graph.outputs

    def run(*arrays):
        env = dict(zip(inputs, arrays))
        for (name, file, line), nodes in runs:
            with located(file, line):
                if name:
                    with jax.named_scope(name):
                        _lower(nodes, env)
                else:
                    _lower(nodes, env)
        return tuple(env[v] for v in outputs)

    run.__name__ = graph.name
    return run


def _lower(nodes: list, env: dict) -> None:
    for impl, multi, ins, attrs, outs in nodes:
        result = impl(*[env[v] for v in ins], **attrs)
        if multi:
            env.update(zip(outs, result))
        else:
            env[outs[0]] = result


def stablehlo_text(graph: Graph) -> str:
    """The StableHLO module jax produces for the graph (what XLA compiles)."""
    specs = [jax.ShapeDtypeStruct(v.shape, v.dtype.np_dtype) for v in graph.inputs]
    return jax.jit(graph_to_jax(graph)).lower(*specs).as_text()

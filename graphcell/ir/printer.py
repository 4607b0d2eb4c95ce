"""The canonical text form of a graph: one node a line, deterministic, no addresses.

    graph lenet(%x: f32[3,1,32,32], %conv1.weight: f32[6,1,5,5] param) {
      %0:f32[3,6,28,28] = conv(%x, %conv1.weight) {dilation=(1,1), groups=1, ...}  # conv1
      ...
      return %12
    }

Values are named in print order (inputs by their own names, node outputs %0, %1, ...).
An axis that a vmap pass mapped prints as `vmap:4`.
"""
from __future__ import annotations

import os

from .core import Graph, Node, Value


def format_type(value: Value) -> str:
    dims = [str(d) for d in value.shape]
    if value.mapped_axis is not None:
        dims[value.mapped_axis] = f"vmap:{dims[value.mapped_axis]}"
    return f"{value.dtype.short}[{','.join(dims)}]"


def format_attr(value) -> str:
    if isinstance(value, Graph):
        return f"<graph {value.name}>"
    if isinstance(value, str):
        return value
    if isinstance(value, tuple):
        inner = ",".join(format_attr(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    return str(value)


def _name(value: Value, names: dict) -> str:
    name = names.get(value)
    if name is None:  # a value from an enclosing graph, or not yet printed
        name = value.name or f"?{id(value) % 10000}"
    return "%" + name


def format_node(node: Node, names: dict, source: bool = True) -> str:
    for v in node.outputs:
        if v not in names:
            names[v] = str(sum(1 for k in names if k.kind == "node"))
    outs = ", ".join(f"{_name(v, names)}:{format_type(v)}" for v in node.outputs)
    args = ", ".join(_name(v, names) for v in node.inputs)
    plain = {k: v for k, v in node.attrs.items() if not isinstance(v, Graph)}
    attrs = ""
    if plain:
        attrs = " {" + ", ".join(f"{k}={format_attr(plain[k])}" for k in sorted(plain)) + "}"
    line = f"{outs} = {node.primitive.name}({args}){attrs}"
    if source:
        where = []
        if node.source.scope:
            where.append(node.source.scope)
        if node.source.file:
            where.append(f"{os.path.basename(node.source.file)}:{node.source.line}")
        if where:
            line += "  # " + " ".join(where)
    return line


def format_graph(graph: Graph, source: bool = False, indent: str = "", names: dict | None = None) -> str:
    names = {} if names is None else names
    for v in graph.inputs:
        names[v] = v.name
    params = ", ".join(
        f"%{v.name}: {format_type(v)}" + ("" if v.kind == "arg" else f" {v.kind}") for v in graph.inputs)
    lines = [f"{indent}graph {graph.name}({params}) {{"]
    for node in graph.nodes:
        lines.append(indent + "  " + format_node(node, names, source))
        for key in sorted(node.attrs):
            sub = node.attrs[key]
            if isinstance(sub, Graph):
                lines.append(f"{indent}    {key}:")
                lines.append(format_graph(sub, source, indent + "    ", names))
    results = [_name(v, names) for v in graph.user_outputs]
    results += [f"{n} <- {_name(v, names)}" for n, v in zip(graph.state_names, graph.state_outputs)]
    lines.append(f"{indent}  return {', '.join(results)}")
    lines.append(f"{indent}}}")
    return "\n".join(lines)

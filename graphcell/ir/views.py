"""Other views of a Graph: networkx (for analyses), Graphviz dot, and JSON (round-trips).

The JSON form (`to_json`, `graphcell dump --format json`), version 1:

    {"format": "graphcell.graph", "version": 1,
     "name": "LeNet5",
     "inputs": [{"name": "x", "kind": "arg" | "param" | "capture", "shape": [1, 1, 32, 32],
                 "dtype": "float32", "mapped_axis": 0 (only on a vmapped value)}, ...],
     "nodes": [{"op": "conv", "inputs": ["x", "conv1.weight"],
                "outputs": [{"name": "0", "shape": [...], "dtype": "float32"}],
                "attrs": {"strides": {"tuple": [1, 1]}, ...},
                "source": {"file": "/abs/lenet.py", "line": 21, "scope": "conv1"}}, ...],
     "outputs": ["14"], "state_names": []}

Values are named as the text form names them in each graph (inputs by name, node outputs
"0", "1", ... counted from 0 in every graph, subgraphs included). Attr values: JSON numbers,
strings, booleans and null as themselves; `{"tuple": [...]}`, `{"dtype": "float32"}`,
`{"graph": {...}}` (a subgraph, same layout without format and version) and `{"array":
base64 of the raw little-endian bytes, "dtype", "shape"}` (a constant). `from_json` reads
files without "format"/"version" (written before version 1) and refuses a newer version.
"""
from __future__ import annotations

import base64
import json
import math
from typing import TYPE_CHECKING

import numpy as np

from ..dtype import DType, to_dtype
from .core import Graph, GraphBuilder, SourceInfo, TensorType, Value
from .printer import format_attr, format_type

if TYPE_CHECKING:
    import networkx as nx


def _value_names(graph: Graph) -> dict:
    names = {v: v.name for v in graph.inputs}
    count = 0
    for node in graph.nodes:
        for v in node.outputs:
            names[v] = str(count)
            count += 1
    return names


def to_networkx(graph: Graph) -> nx.MultiDiGraph:
    """Nodes are graph inputs ("in:<name>"), ops ("op:<index>") and outputs ("out:<i>");
    edges carry the value's name, type and byte size (for memory and critical-path analyses)."""
    import networkx as nx   # here, not at `import graphcell`: it took 0.13 of its 0.70 s
    g = nx.MultiDiGraph(name=graph.name)
    producer = {}
    for v in graph.inputs:
        key = f"in:{v.name}"
        g.add_node(key, kind="input", label=v.name, type=str(v.type), role=v.kind)
        producer[v] = key
    for i, node in enumerate(graph.nodes):
        key = f"op:{i}"
        g.add_node(key, kind="op", label=node.primitive.name, primitive=node.primitive.name,
                   scope=node.source.scope, flops=node_flops(node))
        for v in node.inputs:
            g.add_edge(producer[v], key, value=v, type=str(v.type), bytes=value_bytes(v))
        for v in node.outputs:
            producer[v] = key
    for i, v in enumerate(graph.outputs):
        key = f"out:{i}"
        g.add_node(key, kind="output", label=f"out{i}")
        g.add_edge(producer[v], key, value=v, type=str(v.type), bytes=value_bytes(v))
    return g


def value_bytes(v: Value) -> int:
    return math.prod(v.shape) * v.dtype.itemsize


def node_flops(node) -> int:
    """Multiply-adds counted as 2 FLOPs for dot_general, conv and conv_transpose; one per element
    otherwise."""
    name = node.primitive.name
    out = node.outputs[0]
    if name == "dot_general":
        (lc, _), _ = node.attrs["contract"], None
        k = math.prod(node.inputs[0].shape[a] for a in lc)
        return 2 * math.prod(out.shape) * k
    if name == "conv":
        w = node.inputs[1]
        return 2 * math.prod(out.shape) * math.prod(w.shape[1:]) // max(1, node.attrs.get("batch_groups", 1))
    if name == "conv_transpose":  # each input element times its group's [O/g, k...] kernel slice
        return 2 * math.prod(node.inputs[0].shape) * math.prod(node.inputs[1].shape[1:])
    return math.prod(out.shape) if node.outputs else 0


def peak_live_bytes(graph: Graph) -> int:
    """Peak bytes of values alive at once when nodes run in graph order (inputs included)."""
    last_use = {}
    for i, node in enumerate(graph.nodes):
        for v in node.inputs:
            last_use[v] = i
    for v in graph.outputs:
        last_use[v] = len(graph.nodes)
    live = sum(value_bytes(v) for v in graph.inputs)
    peak = live
    for i, node in enumerate(graph.nodes):
        live += sum(value_bytes(v) for v in node.outputs)
        peak = max(peak, live)
        for v in set(node.inputs) | set(node.outputs):
            if last_use.get(v, -1) == i and v.kind not in ("arg", "param", "capture"):
                live -= value_bytes(v)
    return peak


def to_dot(graph: Graph) -> str:
    """Graphviz dot text: one box per op labelled with its primitive, its value name as the
    text form prints it (`%3`) and its Cell path; edges carry the value's type. A node's
    subgraphs (a cond's branches, a loop's body) are dashed clusters under it, their outputs
    joined to it by dashed edges; their ids are prefixed with the op's (`op:3/then_branch/...`)."""
    from .printer import format_graph
    names: dict = {}
    format_graph(graph, names=names)   # the text form's value names, subgraphs included
    lines = [f'digraph "{graph.name}" {{', "  rankdir=TB;", '  node [fontname="Helvetica", fontsize=10];']
    _dot_body(graph, "", "  ", names, lines)
    lines.append("}")
    return "\n".join(lines)


def _dot_body(graph: Graph, prefix: str, indent: str, names: dict, lines: list) -> None:
    g = to_networkx(graph)
    q = lambda key: f'"{prefix}{key}"'  # noqa: E731
    for key, data in g.nodes(data=True):
        if data["kind"] == "op":
            node = graph.nodes[int(key[3:])]
            label = f"{data['label']}\\n%{names.get(node.outputs[0], '?')}" if node.outputs else data["label"]
            label += f" {data['scope']}" if data.get("scope") else ""
            lines.append(f'{indent}{q(key)} [shape=box, label="{_dot_text(label)}"];')
        else:
            label = data["label"] + (f"\\n{data['type']}" if data.get("type") else "")
            lines.append(f'{indent}{q(key)} [shape=ellipse, label="{_dot_text(label)}"];')
    for a, b, data in g.edges(data=True):
        lines.append(f'{indent}{q(a)} -> {q(b)} [label="{data["type"]}"];')
    for i, node in enumerate(graph.nodes):
        for attr in sorted(k for k, v in node.attrs.items() if isinstance(v, Graph)):
            sub, inner = node.attrs[attr], f"{prefix}op:{i}/{attr}/"
            name = f"%{names.get(node.outputs[0], '?')} " if node.outputs else ""
            lines.append(f'{indent}subgraph "cluster_{inner}" {{')
            lines.append(f'{indent}  label="{_dot_text(name + attr + ": " + sub.name)}"; style=dashed;')
            _dot_body(sub, inner, indent + "  ", names, lines)
            lines.append(f"{indent}}}")
            for k in range(len(sub.outputs)):
                lines.append(f'{indent}"{inner}out:{k}" -> {q(f"op:{i}")} [style=dashed];')


def _dot_text(text: str) -> str:
    return text.replace('"', '\\"')


# -- JSON ---------------------------------------------------------------------------------

def _encode_attr(v):
    if isinstance(v, tuple):
        return {"tuple": [_encode_attr(x) for x in v]}
    if isinstance(v, DType):
        return {"dtype": v.name}
    if isinstance(v, Graph):
        return {"graph": graph_to_dict(v)}
    from ..ops.primitive import Literal
    if isinstance(v, Literal):
        a = v.array
        return {"array": base64.b64encode(np.ascontiguousarray(a).tobytes()).decode(),
                "dtype": to_dtype(a.dtype).name, "shape": list(a.shape)}
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    raise TypeError(f"attribute {v!r} cannot be written as JSON")


def _decode_attr(v):
    if isinstance(v, dict):
        if "tuple" in v:
            return tuple(_decode_attr(x) for x in v["tuple"])
        if "dtype" in v and "array" not in v:
            return to_dtype(v["dtype"])
        if "graph" in v:
            return graph_from_dict(v["graph"])
        if "array" in v:
            from ..ops.primitive import Literal
            raw = base64.b64decode(v["array"])
            return Literal(np.frombuffer(raw, to_dtype(v["dtype"]).np_dtype).reshape(v["shape"]))
    return v


JSON_FORMAT, JSON_VERSION = "graphcell.graph", 1


def _value_to_json(v: Value) -> dict:
    out = {"shape": list(v.shape), "dtype": v.dtype.name}
    if v.mapped_axis is not None:
        out["mapped_axis"] = v.mapped_axis
    return out


def graph_to_dict(graph: Graph) -> dict:
    names = _value_names(graph)
    return {
        "name": graph.name,
        "inputs": [{"name": v.name, "kind": v.kind, **_value_to_json(v)} for v in graph.inputs],
        "nodes": [{
            "op": n.primitive.name,
            "inputs": [names[v] for v in n.inputs],
            "outputs": [{"name": names[v], **_value_to_json(v)} for v in n.outputs],
            "attrs": {k: _encode_attr(a) for k, a in sorted(n.attrs.items())},
            "source": {"file": n.source.file, "line": n.source.line, "scope": n.source.scope},
        } for n in graph.nodes],
        "outputs": [names[v] for v in graph.outputs],
        "state_names": list(graph.state_names),
    }


def graph_from_dict(data: dict) -> Graph:
    """Rebuilds a Graph (re-running shape rules, so a tampered file fails loudly)."""
    from ..ops.primitive import PRIMITIVES
    import graphcell.ops  # noqa: F401 - registers the primitives
    builder = GraphBuilder(data["name"])
    env = {}
    for spec in data["inputs"]:
        env[spec["name"]] = builder.add_input(
            TensorType(tuple(spec["shape"]), to_dtype(spec["dtype"])), spec["name"], spec["kind"])
        env[spec["name"]].mapped_axis = spec.get("mapped_axis")
    for spec in data["nodes"]:
        prim = PRIMITIVES.get(spec["op"])
        if prim is None:
            raise ValueError(f"unknown primitive {spec['op']!r} in graph JSON")
        attrs = {k: _decode_attr(a) for k, a in spec["attrs"].items()}
        outs = builder.add_node(prim, tuple(env[n] for n in spec["inputs"]), attrs,
                                SourceInfo(**spec.get("source", {})))
        for out, o in zip(outs, spec["outputs"]):
            env[o["name"]] = out
            out.mapped_axis = o.get("mapped_axis")
    return builder.build([env[n] for n in data["outputs"]], tuple(data["state_names"]))


def to_json(graph: Graph, indent: int | None = 1) -> str:
    return json.dumps({"format": JSON_FORMAT, "version": JSON_VERSION, **graph_to_dict(graph)}, indent=indent)


def from_json(text: str) -> Graph:
    data = json.loads(text)
    if data.get("format", JSON_FORMAT) != JSON_FORMAT:
        raise ValueError(f"not a graphcell graph: its format is {data['format']!r}")
    if data.get("version", JSON_VERSION) > JSON_VERSION:
        raise ValueError(f"graph JSON version {data['version']} is newer than this graphcell reads "
                         f"({JSON_VERSION}); update graphcell")
    return graph_from_dict(data)


__all__ = ["to_networkx", "to_dot", "to_json", "from_json", "node_flops", "peak_live_bytes",
           "format_attr", "format_type"]

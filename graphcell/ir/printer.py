"""The canonical text form of a graph: one node a line, deterministic, no addresses.

    graph lenet(%x: f32[3,1,32,32], %conv1.weight: f32[6,1,5,5] param) {
      %0:f32[3,6,28,28] = conv(%x, %conv1.weight) {dilation=(1,1), groups=1, ...}  # conv1
      ...
      return %12
    }

Values are named in print order (inputs by their own names, node outputs %0, %1, ...).
An axis that a vmap pass mapped prints as `vmap:4`. A constant's numbers print in the shortest
form that reads back as the same value of its dtype (`1e-05` for float32's 1e-5). Everything
printed parses back with `graphcell.ir.parser.parse_graph`, except constants over
FULL_CONSTANT_LIMIT elements that are not all equal (`<N values>`; all equal: `<N values: all
1.0>`, which parses) and the graph's `meta`, which is not printed.
"""
from __future__ import annotations

import functools
import os
import re

import numpy as np

from .core import Graph, Node, Value


def format_type(value: Value) -> str:
    dims = [str(d) for d in value.shape]
    if value.mapped_axis is not None:
        dims[value.mapped_axis] = f"vmap:{dims[value.mapped_axis]}"
    return f"{value.dtype.short}[{','.join(dims)}]"


# Constants with at most this many elements print in full (and parse back, see parser.py);
# bigger ones print as `<N values>`, which keeps dumps readable but cannot be parsed, or, when
# every element is the same (a folded broadcast), as `<N values: all X>`, which can.
FULL_CONSTANT_LIMIT = 16

# A string attr prints bare (`padding=valid`) when it cannot be read back as anything else.
_BARE_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*\Z")
_RESERVED = {"True", "False", "None", "inf", "nan"}


def format_attr(value, typed: bool = False) -> str:
    """An attr's text. `typed`: the value is a constant's, whose dtype the output type gives the
    reader, so floats print in their own dtype's shortest form."""
    if isinstance(value, Graph):
        return f"<graph {value.name}>"
    if isinstance(value, str):
        bare = _BARE_WORD.match(value) and value not in _RESERVED and value not in _dtype_names()
        return value if bare else repr(value)
    from ..ops.primitive import Literal  # ops imports the IR: import it at call time
    if isinstance(value, Literal):
        return format_literal(value.array, typed)
    if isinstance(value, tuple):
        inner = ",".join(format_attr(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    return str(value)


def format_literal(array: np.ndarray, typed: bool = False) -> str:
    """A constant's values, exactly: `2.5`, `[1.0,-0.5]`, `[[1,2],[3,4]]` (its dtype and shape
    are the node's output type), or `<N values>` beyond FULL_CONSTANT_LIMIT elements (`<N values:
    all X>` when they are all X). `typed`: a float prints in the shortest form that reads back
    as the same value of its own dtype (`1e-05`); otherwise as the float64 it is exactly."""
    if array.size > FULL_CONSTANT_LIMIT:
        first = array.reshape(-1)[:1]
        if array.dtype.kind in "fc" or array.dtype.name == "bfloat16":
            same = np.all((array == first) | (np.isnan(array) & np.isnan(first)))
        else:
            same = np.all(array == first)
        if not same:
            return f"<{array.size} values>"
        return f"<{array.size} values: all {format_literal(first.reshape(()), typed)}>"
    if array.dtype.kind == "f" or array.dtype.name == "bfloat16":
        if typed and array.dtype.kind == "f":   # numpy's str of a float32 (float16) is its shortest
            # round-trip form (bfloat16's is not: it prints as the float64 it is)
            return _nested([str(x) for x in array.reshape(-1)], array.shape)
        array = array.astype(np.float64)  # exact; Python's repr of a float64 round-trips
    items = array.tolist()
    return _nested(items) if array.ndim else str(items)


def _nested(items, shape: tuple | None = None) -> str:
    """`[[1,2],[3,4]]`; with `shape`, `items` is the flat list of element texts."""
    if shape is not None:
        if not shape:
            return items[0]
        step = len(items) // shape[0] if shape[0] else 0
        return "[" + ",".join(_nested(items[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])) + "]"
    if isinstance(items, list):
        return "[" + ",".join(_nested(x) for x in items) + "]"
    return str(items)


@functools.lru_cache(maxsize=1)
def _dtype_names() -> frozenset:
    from ..dtype import ALL_DTYPES
    return frozenset(d.ms_name for d in ALL_DTYPES)


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
    typed = _is_constant(node)
    attrs = ""
    if plain:
        attrs = " {" + ", ".join(f"{k}={format_attr(plain[k], typed and k == 'value')}" for k in sorted(plain)) + "}"
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


def _is_constant(node: Node) -> bool:
    """A `constant` node, whose value the parser reads in its output's dtype and shape."""
    return node.primitive.name == "constant" and not node.inputs and len(node.outputs) == 1


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

"""The IR: `Value`, `Node`, `Graph`.

One graph type runs from the frontend to both backends. A `Graph` is a list of `Node`s in
topological order over SSA `Value`s. Parameters are lifted to graph inputs (their `kind` is
"param"), and parameter writes are extra trailing outputs named by `Graph.state_names`, so a
graph is a pure function: passes never need to know about Python objects.

Graphs are built once by a `GraphBuilder` (the tracer, or a pass) and then treated as
immutable: passes build new graphs.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Iterable, NamedTuple

from ..dtype import DType


class TensorType(NamedTuple):
    """The static type of a value: a shape of ints and a DType."""
    shape: tuple
    dtype: DType

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __str__(self):
        return f"{self.dtype.short}[{','.join(map(str, self.shape))}]"


class SourceInfo(NamedTuple):
    """Where a node came from: the user's file and line, and the Cell path (`fc1`)."""
    file: str = ""
    line: int = 0
    scope: str = ""

    def __str__(self):
        where = f"{self.file}:{self.line}" if self.file else ""
        if self.scope:
            return f"{where} in {self.scope}" if where else self.scope
        return where


class Value:
    """One tensor in a graph. `kind` is "arg", "param" or "capture" for graph inputs and
    "node" for node outputs. `mapped_axis` marks the ensemble/vmap axis when a pass knows it."""
    __slots__ = ("type", "name", "kind", "producer", "users", "mapped_axis", "tracer", "__weakref__")

    def __init__(self, type: TensorType, name: str = "", kind: str = "node", producer=None):
        self.type = type
        self.name = name
        self.kind = kind
        self.producer: Node | None = producer
        self.users: list[Node] = []
        self.mapped_axis: int | None = None
        self.tracer = None  # the Tracer that made it, while tracing

    @property
    def shape(self) -> tuple:
        return self.type.shape

    @property
    def dtype(self) -> DType:
        return self.type.dtype

    @property
    def ndim(self) -> int:
        return len(self.type.shape)

    def __repr__(self):
        return f"%{self.name}:{self.type}"


class Node:
    """One application of a primitive. `attrs` are canonical, hashable Python data.

    A node's primitive and attrs never change after it is made (passes build new nodes, with
    new attrs dicts, to rewrite one), so its purity is computed once, on first ask."""
    __slots__ = ("primitive", "inputs", "attrs", "outputs", "source", "_pure")

    def __init__(self, primitive, inputs: tuple, attrs: dict, outputs: tuple, source: SourceInfo):
        self.primitive = primitive
        self.inputs = inputs
        self.attrs = attrs
        self.outputs = outputs
        self.source = source
        self._pure: bool | None = None  # `pure`'s answer, once asked

    @property
    def output(self) -> Value:
        assert len(self.outputs) == 1, self.primitive.name
        return self.outputs[0]

    @property
    def pure(self) -> bool:
        """Whether passes may drop, merge or fold this node: its primitive is pure and so is every
        node of its subgraphs (a `cond` whose branch prints is not, though `cond` is).
        DCE, CSE and folding ask per node per pass: the answer is kept (see the class doc)."""
        pure = self._pure
        if pure is None:
            pure = self._pure = walk_purity(self)
        return pure

    def __repr__(self):
        from .printer import format_node
        return format_node(self, {})


def walk_purity(node: Node) -> bool:
    """`node.pure` computed afresh: its primitive's flag and every subgraph node's (each of
    those answered from its own cache, so a body is walked once per node that holds it)."""
    return node.primitive.pure and all(n.pure for a in node.attrs.values() if isinstance(a, Graph)
                                       for n in a.nodes)


@dataclass(eq=False)
class Graph:
    """A pure function over tensors.

    `inputs`: user arguments first, then parameters, then captured outer values.
    `outputs`: user outputs first, then the new values of updated parameters, whose names
    are `state_names` (one per trailing output).
    """
    inputs: tuple
    nodes: tuple
    outputs: tuple
    state_names: tuple = ()
    name: str = "graph"
    meta: dict = field(default_factory=dict)

    @property
    def user_outputs(self) -> tuple:
        return self.outputs[:len(self.outputs) - len(self.state_names)]

    @property
    def state_outputs(self) -> tuple:
        return self.outputs[len(self.outputs) - len(self.state_names):]

    def inputs_of_kind(self, kind: str) -> list:
        return [v for v in self.inputs if v.kind == kind]

    def __str__(self):
        """The canonical text form, without sources. `graph.format(source=True)` adds each
        node's Cell path and file:line as a comment, as `graphcell dump` and save_graphs show."""
        return self.format()

    def format(self, source: bool = False) -> str:
        """The canonical text form (`ir/printer.py`), which `ir.parser.parse_graph` reads back.
        `source=True` ends each node's line with `# <Cell path> <file>:<line>`:

            %3:f32[2,3] = add(%1, %2)  # fc1 model.py:12
        """
        from .printer import format_graph
        return format_graph(self, source=source)

    def to_networkx(self):
        from .views import to_networkx
        return to_networkx(self)

    def subgraphs(self) -> Iterable["Graph"]:
        for node in self.nodes:
            for attr in node.attrs.values():
                if isinstance(attr, Graph):
                    yield attr


class GraphBuilder:
    """Appends nodes, computing output types with each primitive's shape rule.

    Used by the tracer and by every pass, so a malformed node fails where it is made.
    """
    _counter = itertools.count()

    def __init__(self, name: str = "graph"):
        self.name = name
        self.inputs: list[Value] = []
        self.nodes: list[Node] = []
        self.source = SourceInfo()
        self._input_names: set[str] = set()

    def add_input(self, type: TensorType, name: str, kind: str = "arg") -> Value:
        """A graph input, named `name` made unique among the inputs (two Parameters may share
        a name, and the text form and JSON find values by name); an all-digit name would read
        as a node's number, so it gets a prefix."""
        base = name if not name.isdigit() else f"v{name}"
        name, k = base, 1
        while name in self._input_names:
            name, k = f"{base}_{k}", k + 1
        self._input_names.add(name)
        value = Value(type, name, kind)
        self.inputs.append(value)
        return value

    def add_node(self, primitive, inputs: tuple, attrs: dict, source: SourceInfo | None = None) -> tuple:
        out_types = primitive.infer(*[v.type for v in inputs], **attrs)
        node = Node(primitive, tuple(inputs), attrs, (), source or self.source)
        node.outputs = tuple(Value(t, "", "node", node) for t in out_types)
        for v in inputs:
            v.users.append(node)
        self.nodes.append(node)
        return node.outputs

    def build(self, outputs: Iterable[Value], state_names: tuple = (), meta: dict | None = None) -> Graph:
        return Graph(tuple(self.inputs), tuple(self.nodes), tuple(outputs), tuple(state_names),
                     self.name, dict(meta or {}))


def replay(graph: Graph, builder: GraphBuilder, inputs: list[Value], hook=None) -> list[Value]:
    """Copies `graph`'s nodes into `builder`, with `inputs` standing for the graph's inputs;
    returns the values standing for its outputs. `hook(node, new_inputs)` may return the
    outputs itself to rewrite a node (passes use this)."""
    env: dict[Value, Value] = dict(zip(graph.inputs, inputs))
    for node in graph.nodes:
        new_inputs = tuple(env[v] for v in node.inputs)
        outs = hook(node, new_inputs) if hook is not None else None
        if outs is None:
            outs = builder.add_node(node.primitive, new_inputs, node.attrs, node.source)
        for old, new in zip(node.outputs, outs):
            env[old] = new
    return [env[v] for v in graph.outputs]


def graph_signature(graph: Graph) -> tuple[Any, ...]:
    """A structural fingerprint: equal for graphs that compute the same thing with inputs of
    the same types (names ignored). Used to check that ensemble members share one graph."""
    index: dict[Value, int] = {v: i for i, v in enumerate(graph.inputs)}
    parts: list = [tuple(v.type for v in graph.inputs)]
    for node in graph.nodes:
        ins = tuple(index[v] for v in node.inputs)
        for v in node.outputs:
            index[v] = len(index)
        attrs = tuple((k, graph_signature(a) if isinstance(a, Graph) else a)
                      for k, a in sorted(node.attrs.items(), key=lambda kv: kv[0]))
        parts.append((node.primitive.name, ins, attrs))
    parts.append(tuple(index[v] for v in graph.outputs))
    return tuple(parts)

"""What every optimisation pass shares: `PassResult` and `rebuild`, the copy loop.

A pass never mutates its input: `rebuild` copies the graph into a fresh `GraphBuilder`
(new input Values too, so not even `Value.users` of the old graph changes), asking a hook
per node whether to copy it or to stand other values in for its outputs. The copy keeps
what passes must not lose: each node's source (file, line, Cell path), each value's
`mapped_axis`, the graph's name, state names and meta.

With `scan_first`, `rebuild` first asks the hooks about the graph's own nodes and copies only
when one would change something: the pipeline runs to a fixed point, so its last round changes
nothing, and copying a ResNet-50 training step's 3,700 nodes for each pass of that round was a
fifth of the pipeline's time.
"""
from __future__ import annotations

from typing import Callable, NamedTuple, Optional

from ..ir.core import Graph, GraphBuilder, Node, Value


class PassResult(NamedTuple):
    """A pass's answer: the new graph (the input itself when nothing changed) and whether
    anything changed."""
    graph: Graph
    changed: bool


# hook(node, new_inputs, builder) -> values standing for node.outputs, or None to copy it.
Hook = Callable[[Node, tuple, GraphBuilder], Optional[tuple]]


def rebuild(graph: Graph, hook: Hook | None = None, keep: Callable[[Node], bool] | None = None,
            subgraph_pass: Callable[[Graph], PassResult] | None = None,
            on_copy: Callable[[Node, tuple, tuple], None] | None = None,
            scan_first: bool = False) -> tuple[Graph, bool]:
    """Copies `graph`; returns (new graph, whether a hook, `keep` or a subgraph changed it).

    `keep(node)` False drops a node (DCE); `hook` may rewrite one; `subgraph_pass` is applied
    to Graph-valued attrs first (subgraphs are closed: they read only their own inputs);
    `on_copy(node, new_inputs, new_outputs)` hears of every plain copy (CSE records keys).
    While a hook runs, `builder.source` is the rewritten node's source, so the nodes the
    hook emits carry the user's line and Cell path.

    `scan_first` (for hooks that keep no state between calls; `on_copy` is not called by the
    scan): first run `keep`, the hook and the subgraph pass over `graph`'s own values, and
    return `(graph, False)`, no copy, when none of them changes anything (`would_change`).
    """
    if subgraph_pass is not None:
        subgraph_pass = remembered(subgraph_pass)   # the scan's answers serve the copy
    if scan_first and not would_change(graph, hook, keep, subgraph_pass):
        return graph, False
    builder = GraphBuilder(graph.name)
    env: dict[Value, Value] = {}
    for v in graph.inputs:
        new = builder.add_input(v.type, v.name, v.kind)
        new.mapped_axis = v.mapped_axis
        env[v] = new
    changed = False
    for node in graph.nodes:
        if keep is not None and not keep(node):
            changed = True
            continue
        ins = tuple(env[v] for v in node.inputs)
        attrs = node.attrs
        if subgraph_pass is not None and any(isinstance(a, Graph) for a in attrs.values()):
            attrs, sub_changed = _rewrite_subgraphs(attrs, subgraph_pass)
            changed |= sub_changed
        builder.source = node.source
        first_new = len(builder.nodes)
        outs = hook(node, ins, builder) if hook is not None else None
        if outs is None:
            outs = _copy_node(builder, node, ins, attrs)
            if on_copy is not None:
                on_copy(node, ins, outs)
        else:
            changed = True
        fresh = builder.nodes[first_new:]
        for old, new in zip(node.outputs, outs):
            # A value made just now stands for `old`: it carries old's mapped axis. Values
            # that existed before keep their own annotation.
            if any(new.producer is n for n in fresh):
                new.mapped_axis = old.mapped_axis
            env[old] = new
    new_graph = builder.build([env[v] for v in graph.outputs], graph.state_names, graph.meta)
    return new_graph, changed


class _Emitted(Exception):
    """A hook asked the scan's builder for a node: it is rewriting."""


class _ScanBuilder(GraphBuilder):
    """The builder a hook gets during `would_change`: emitting a node is a change, and is
    refused before it could touch the graph (add_node would join the operands' users)."""

    def add_node(self, primitive, inputs, attrs, source=None):
        raise _Emitted


def would_change(graph: Graph, hook: Hook | None = None, keep: Callable[[Node], bool] | None = None,
                 subgraph_pass: Callable[[Graph], PassResult] | None = None) -> bool:
    """Whether `rebuild(graph, hook, keep, subgraph_pass)` would change anything, found without
    copying: the hook sees the graph's own values, which a copy matches node for node up to
    its first change (same primitives, attrs, types and producers), so its answers are the
    copy's. A hook that emits a node counts as changing, whatever it returns."""
    builder = _ScanBuilder(graph.name)
    for node in graph.nodes:
        if keep is not None and not keep(node):
            return True
        if subgraph_pass is not None and any(isinstance(a, Graph) and subgraph_pass(a).changed
                                             for a in node.attrs.values()):
            return True
        if hook is not None:
            builder.source = node.source
            try:
                if hook(node, node.inputs, builder) is not None:
                    return True
            except _Emitted:
                return True
    return False


def remembered(subgraph_pass):
    """`subgraph_pass` answering each subgraph once (the scan's call serves the copy's)."""
    answers: dict[int, tuple[Graph, PassResult]] = {}

    def run(sub: Graph) -> PassResult:
        seen = answers.get(id(sub))
        if seen is None or seen[0] is not sub:
            seen = answers[id(sub)] = (sub, subgraph_pass(sub))
        return seen[1]
    return run


def _copy_node(builder: GraphBuilder, node: Node, ins: tuple, attrs: dict) -> tuple:
    """Appends a copy of `node` reading `ins`. When every input has its old type (always, for
    a plain copy) the output types are the old ones, so the shape rule is not re-run: that
    is most of a pass's time. The verifier re-runs every rule in debug mode."""
    if attrs is not node.attrs or any(a.type != b.type for a, b in zip(ins, node.inputs)):
        return builder.add_node(node.primitive, ins, attrs, node.source)
    new = Node(node.primitive, ins, attrs, (), node.source)
    new._pure = node._pure   # same primitive, same attrs dict: same purity, not re-walked
    new.outputs = tuple(Value(v.type, "", "node", new) for v in node.outputs)
    for v in ins:
        v.users.append(new)
    builder.nodes.append(new)
    return new.outputs


def _rewrite_subgraphs(attrs: dict, subgraph_pass) -> tuple[dict, bool]:
    """The attrs with each subgraph passed; `attrs` itself when no subgraph changed, so the
    copy is a plain one (no shape rule re-run, and it keeps the node's purity)."""
    new_attrs, changed = dict(attrs), False
    for key, value in attrs.items():
        if isinstance(value, Graph):
            result = subgraph_pass(value)
            if result.changed:
                new_attrs[key], changed = result.graph, True
    return (new_attrs if changed else attrs), changed


def result(old: Graph, new: Graph, changed: bool) -> PassResult:
    """The input graph itself when nothing changed, so callers can compare by identity."""
    return PassResult(new, True) if changed else PassResult(old, False)


def producer_of(value: Value, primitive) -> Node | None:
    """The node making `value` if it is an application of `primitive`, else None."""
    node = value.producer
    return node if node is not None and node.primitive is primitive else None

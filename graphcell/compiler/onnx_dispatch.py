"""One ONNX file, two lowerings of an ensemble, chosen per call by the batch size.

onnxruntime wants opposite forms of a vmapped ensemble at the two ends of the batch range: at
batch 1 per-node overhead dominates and the stacked form (one wide convolution, grouped ones,
batched matmuls: a dozen nodes) wins; from batch 2 up each member's own Conv+Relu+MaxPool
chain, fused and in cache, wins (see ops/nn_prims.py for the measurements). `dispatch_on_batch`
puts both lowerings in one model behind an `If` on the batch dimension:

    batch = Shape(x, start=axis, end=axis + 1)
    outputs = If(batch <= max_small, then=<small-batch graph>, else=<large-batch graph>)

The branches read the inputs and the initializers (the stacked parameters, stored once) from
the enclosing graph. Values of the small-batch branch are renamed apart (`small/...`); the
large-batch branch keeps its names, except its outputs, which the If itself now produces.
"""
from __future__ import annotations

import onnx
from onnx import helper, numpy_helper

SMALL_PREFIX = "small/"


def dispatch_on_batch(small: onnx.ModelProto, large: onnx.ModelProto, input_name: str, axis: int,
                      max_small: int) -> onnx.ModelProto:
    """A model running `small`'s graph when dimension `axis` of input `input_name` is at most
    `max_small`, else `large`'s. Both must have the same inputs and outputs (names, types)."""
    sg, lg = small.graph, large.graph
    if [i.name for i in sg.input] != [i.name for i in lg.input] or len(sg.output) != len(lg.output):
        raise ValueError("dispatch_on_batch: the two lowerings have different inputs or outputs")
    inputs = {i.name for i in lg.input}
    shared = {t.name: t for t in lg.initializer}

    # Initializers the small form shares with the large one (the stacked parameters) are stored
    # once; any other name of the small form gets the prefix.
    extra, renames = [], {}
    for t in sg.initializer:
        same = shared.get(t.name)
        if same is not None and same.SerializeToString() == t.SerializeToString():
            continue
        renames[t.name] = SMALL_PREFIX + t.name
        copy = onnx.TensorProto()
        copy.CopyFrom(t)
        copy.name = renames[t.name]
        extra.append(copy)
    for node in sg.node:
        for out in node.output:
            if out and out not in inputs:
                renames.setdefault(out, SMALL_PREFIX + out)

    outputs = [o.name for o in lg.output]
    then_branch = _branch(sg, "small_batch", renames)
    else_renames = {o: "large/" + o for o in outputs}
    else_branch = _branch(lg, "large_batch", else_renames)

    shape = helper.make_node("Shape", [input_name], ["dispatch/shape"], name="dispatch/Shape",
                             start=axis, end=axis + 1)
    limit = numpy_helper.from_array(_int64(max_small), "dispatch/max_small")
    # If takes any single-element condition: the bool[1] needs no Squeeze (one node less
    # on a path that costs microseconds at batch 1).
    small_enough = helper.make_node("LessOrEqual", ["dispatch/shape", "dispatch/max_small"], ["dispatch/small"],
                                   name="dispatch/LessOrEqual")
    choose = helper.make_node("If", ["dispatch/small"], outputs, name="batch_dispatch",
                              then_branch=then_branch, else_branch=else_branch,
                              doc_string=f"batch <= {max_small}: the stacked ensemble form; "
                                         "else each member's chain apart")
    graph = helper.make_graph([shape, small_enough, choose], lg.name, list(lg.input),
                              list(lg.output), list(lg.initializer) + extra + [limit],
                              doc_string=lg.doc_string)
    model = helper.make_model(graph, opset_imports=list(large.opset_import),
                              producer_name=large.producer_name, producer_version=large.producer_version)
    model.ir_version = large.ir_version
    return model


def _branch(graph: onnx.GraphProto, name: str, renames: dict) -> onnx.GraphProto:
    """`graph`'s nodes as an If branch: no inputs, values renamed by `renames`."""
    rn = lambda n: renames.get(n, n)  # noqa: E731
    nodes = [_renamed_node(node, name, renames) for node in graph.node]
    return helper.make_graph(nodes, name, [], _renamed_infos(graph.output, rn),
                             value_info=_renamed_infos(graph.value_info, rn))


def _renamed_node(node: onnx.NodeProto, scope: str, renames: dict) -> onnx.NodeProto:
    """A copy of `node` with its values renamed, and those of its subgraphs (an If's branches,
    a Loop's body read outer values by name, so they are renamed with them)."""
    rn = lambda n: renames.get(n, n)  # noqa: E731
    copy = onnx.NodeProto()
    copy.CopyFrom(node)
    copy.input[:] = [rn(i) for i in node.input]
    copy.output[:] = [rn(o) for o in node.output]
    if copy.name:
        copy.name = rn(copy.name) if copy.name in renames else f"{scope}/{copy.name}"
    for attr in copy.attribute:
        if attr.type == onnx.AttributeProto.GRAPH:
            _rename_subgraph(attr.g, scope, renames)
    return copy


def _rename_subgraph(graph: onnx.GraphProto, scope: str, renames: dict) -> None:
    """Renames `graph`'s values in place: its inputs, outputs, nodes and nested subgraphs."""
    rn = lambda n: renames.get(n, n)  # noqa: E731
    nodes = [_renamed_node(node, scope, renames) for node in graph.node]
    del graph.node[:]
    graph.node.extend(nodes)
    for infos in (graph.input, graph.output, graph.value_info):
        for info in infos:
            info.name = rn(info.name)
    for init in graph.initializer:
        init.name = rn(init.name)


def _renamed_infos(infos, rn) -> list:
    out = []
    for info in infos:
        copy = onnx.ValueInfoProto()
        copy.CopyFrom(info)
        copy.name = rn(info.name)
        out.append(copy)
    return out


def _int64(value: int):
    import numpy as np
    return np.array([value], dtype=np.int64)


__all__ = ["dispatch_on_batch"]

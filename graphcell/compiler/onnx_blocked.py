"""An ensemble's stacked form (compiler/onnx_dispatch.py's small-batch branch) rewritten so that
onnxruntime runs every layer in its blocked (NCHWc) kernels.

onnxruntime's CPU provider moves a Conv into its blocked layout when its channels per group fill
whole blocks (16 channels with AVX-512, 8 with AVX2); the reorders in and out of the layout, and
a grouped Conv outside it, cost more than the arithmetic at batch 1. The stacked form of a
LeNet5 ensemble has two such places:

  * the grouped Conv over the members' 6-channel activations (6 input channels a group): the
    Conv before it gets zero weights for 8 channels a member, and the grouped Conv takes two
    members a group (16 input channels, block-diagonal weights). 16/6 of the multiply-adds,
    but in blocked kernels with the activation and pooling of both Convs fused in the layout.
  * the dense layers, batched MatMuls over the flattened activations (a Transpose, then
    MatMul + Add + Relu per layer): the first is a grouped Conv whose kernel covers the whole
    map, the others grouped 1x1 Convs, each member's outputs padded to whole blocks with zero
    weights; one reorder out of the layout at the end, then the members' [N, batch, D] view.

Every padded channel holds zeros (or a finite value the next layer's zero weights ignore), so
the results are the stacked form's up to the float rounding of a differently blocked sum. The
new weights are expressions of the original initializers (Pad, Reshape, Mul by a 0/1 mask),
which onnxruntime folds once at session creation; a graph taking its parameters as inputs would
compute them every call, so `run` leaves such graphs alone.

Measured (LeNet5, onnxruntime CPU, 2 cores, batch 1, each file alternated with the hand-built
batched graph of bench/bench_onnx.py, medians of bursts): N=16 0.76-0.78, N=64 0.87-0.95 of its
time. Pairing is what lets the stacked form pay for as few as 4 members (`pairs_members`, read
by compiler/export.py's `stacked_form_pays`); at batch 2 and up it loses to the per-member form.
"""
from __future__ import annotations

import numpy as np
import onnx
from onnx import helper

from .onnx import OnnxBuilder, rename
from .onnx_dataflow import Dataflow, ints_attr

# onnxruntime's NCHWc block: 16 channels with AVX-512 (8 with AVX2, which 16 also fills).
BLOCK = 16
# Per-channel ops finite at 0: a padded channel stays finite, so zero weights ignore it.
_PER_CHANNEL = {"Relu", "LeakyRelu", "Sigmoid", "Tanh", "Elu", "Softplus", "HardSigmoid", "HardSwish",
                "MaxPool", "AveragePool"}
GROUPED_MARK = "conv_strategy=grouped"
# Names the block-diagonal mask of a grouped Conv that runs members in pairs.
PAIRED_MARK = "blocked/paired_members"
_OTHER_FLOATS = {onnx.TensorProto.FLOAT16, onnx.TensorProto.DOUBLE, onnx.TensorProto.BFLOAT16}


def run(b: OnnxBuilder, keep: set, constants: dict, shapes: dict, types: dict, runtime_inputs: set) -> None:
    """Both rewrites, on float32 graphs (the block-diagonal mask is float32) whose weights are
    constants (not in `runtime_inputs`)."""
    if any(t in _OTHER_FLOATS for t in types.values()):
        return
    _pad_grouped_conv_inputs(b, keep, constants, shapes, runtime_inputs)
    _dense_layers_as_convs(b, keep, constants, shapes, runtime_inputs)


def _roots(name: str, flow: Dataflow) -> set:
    """The graph inputs and initializers a value is computed from."""
    seen, todo, roots = set(), [name], set()
    while todo:
        n = todo.pop()
        if n in seen or not n:
            continue
        seen.add(n)
        node = flow.producer.get(n)
        if node is None:
            roots.add(n)
        else:
            todo += list(node.input)
    return roots


def _constant(name: str, flow: Dataflow, runtime_inputs: set) -> bool:
    """Whether a value is computed from initializers alone (onnxruntime folds it)."""
    return not _roots(name, flow) & runtime_inputs


# -- the grouped Conv's input channels --------------------------------------------------------------

def _pad_grouped_conv_inputs(b, keep, constants, shapes, runtime_inputs) -> None:
    if not any(n.op_type == "Conv" and GROUPED_MARK in n.name for n in b.nodes):
        return   # no stacked form: no dataflow to build
    flow = Dataflow(b.nodes, keep, constants, shapes)
    for conv in list(b.nodes):
        if conv.op_type != "Conv" or GROUPED_MARK not in conv.name:
            continue
        groups = ints_attr(conv, "group", True, 1)
        x_shape, w_shape = shapes.get(conv.input[0]), shapes.get(conv.output[0])
        if groups < 2 or x_shape is None or w_shape is None or len(x_shape) != 4 or -1 in x_shape[1:]:
            continue
        per_group = x_shape[1] // groups
        out_per_group = w_shape[1] // groups
        if per_group % BLOCK == 0:
            continue
        padded = 1 << (per_group - 1).bit_length()            # 6 -> 8: a power of two
        pair = max(1, BLOCK // padded)                         # members a group to fill a block
        if groups % pair or (pair * padded) % BLOCK or (pair * out_per_group) % BLOCK:
            continue
        # The chain back to the Conv making the grouped Conv's input: per-channel ops only.
        chain, node = [], flow.producer.get(conv.input[0])
        while node is not None and node.op_type in _PER_CHANNEL and flow.private(node.output[0]):
            chain.append(node)
            node = flow.producer.get(node.input[0])
        first = node
        if (first is None or first.op_type != "Conv" or ints_attr(first, "group", True, 1) != 1
                or not flow.private(first.output[0]) or not all(first.input)
                or not all(_constant(w, flow, runtime_inputs) for w in first.input[1:])
                or not _constant(conv.input[1], flow, runtime_inputs) or len(conv.input) > 2
                and conv.input[2] and not _constant(conv.input[2], flow, runtime_inputs)):
            continue
        kernel = ints_attr(first, "kernel_shape")
        kernel2 = ints_attr(conv, "kernel_shape")
        in_first = shapes.get(first.input[0])
        if kernel is None or kernel2 is None or in_first is None:
            continue
        scope = first.name
        new_nodes = []

        def op(op_type, inputs, **attrs):
            out = b.unique(f"{scope}/blocked/{op_type}")
            new_nodes.append(helper.make_node(op_type, inputs, [out], name=b.unique(f"{scope}/blocked/{op_type}"),
                                              **attrs))
            return out

        def pad_axis(value, rank, axis, extra):
            pads = [0] * (2 * rank)
            pads[rank + axis] = extra
            return op("Pad", [value, b.ints(pads)])

        extra = padded - per_group
        # The first Conv: each member's `per_group` output channels padded to `padded` with zeros.
        k_size = int(np.prod(kernel)) * in_first[1]
        w1 = op("Reshape", [first.input[1], b.ints([groups, per_group, k_size])])
        w1 = op("Reshape", [pad_axis(w1, 3, 1, extra), b.ints([groups * padded, in_first[1], *kernel])])
        inputs1 = [first.input[0], w1]
        if len(first.input) > 2 and first.input[2]:
            b1 = op("Reshape", [first.input[2], b.ints([groups, per_group])])
            inputs1.append(op("Reshape", [pad_axis(b1, 2, 1, extra), b.ints([groups * padded])]))
        first.input[:] = inputs1
        before_first, new_nodes = new_nodes, []
        # The grouped Conv: `pair` members a group, each reading its own padded channels.
        kk = int(np.prod(kernel2))
        w2 = op("Reshape", [conv.input[1], b.ints([groups // pair, pair, out_per_group, 1, per_group, kk])])
        w2 = pad_axis(w2, 6, 4, extra)
        if pair > 1:
            mask = np.eye(pair, dtype=np.float32).reshape(1, pair, 1, pair, 1, 1)
            w2 = op("Mul", [w2, b.const(mask)])
            new_nodes[-1].name = b.unique(f"{scope}/{PAIRED_MARK}")
        w2 = op("Reshape", [w2, b.ints([groups * out_per_group, pair * padded, *kernel2])])
        conv.input[1] = w2
        for attr in conv.attribute:
            if attr.name == "group":
                attr.i = groups // pair
        at = b.nodes.index(conv)
        b.nodes[at:at] = new_nodes
        at = b.nodes.index(first)
        b.nodes[at:at] = before_first
        # New names: the IR's value_info gives the old ones the unpadded channel count.
        rename(b.nodes, {v: b.unique(f"{v}/blocked") for v in [first.output[0], *(n.output[0] for n in chain)]})
        flow = Dataflow(b.nodes, keep, constants, shapes)


# -- the dense layers -------------------------------------------------------------------------------

def _dense_layers_as_convs(b, keep, constants, shapes, runtime_inputs) -> None:
    if not any(n.op_type == "Transpose" and ints_attr(n, "perm") == [1, 0, 2] for n in b.nodes):
        return
    flow = Dataflow(b.nodes, keep, constants, shapes)
    for transpose in list(b.nodes):
        found = _dense_chain(transpose, flow, shapes, runtime_inputs)

        if found is None:
            continue
        view, layers, maps, n = found
        _rewrite_dense(b, flow, view, transpose, layers, maps, n)
        flow = Dataflow(b.nodes, keep, constants, shapes)


def _dense_chain(transpose, flow: Dataflow, shapes: dict, runtime_inputs: set):
    """(view, layers, map shape, members) when `transpose` turns a Conv stack's [B, C, H, W]
    output, viewed as [B, N, C/N*H*W], into [N, B, K] read by batched dense layers
    (MatMul, Add of a [N, 1, D] bias, Relu between them), else None. `layers`: (matmul, add,
    relu or None) per layer."""
    if transpose.op_type != "Transpose" or ints_attr(transpose, "perm") != [1, 0, 2]:
        return None
    view = flow.made_by(transpose.input[0], "Reshape")
    if view is None or not flow.private(view.output[0]) or not flow.private(transpose.output[0]):
        return None
    maps, flat = shapes.get(view.input[0]), shapes.get(view.output[0])
    if maps is None or flat is None or len(maps) != 4 or len(flat) != 3 or -1 in maps[1:] or flat[0] != -1:
        return None
    n, k = flat[1], flat[2]
    if maps[1] % n or maps[1] // n * maps[2] * maps[3] != k:
        return None
    node = flow.producer.get(view.input[0])
    while node is not None and node.op_type in _PER_CHANNEL:
        node = flow.producer.get(node.input[0])
    if node is None or node.op_type != "Conv":
        return None
    layers, value = [], transpose.output[0]
    while True:
        matmul = flow.only_reader(value, "MatMul")
        if matmul is None or matmul.input[0] != value:
            break
        add = flow.only_reader(matmul.output[0], "Add")
        if add is None:
            break
        bias = add.input[1] if add.input[0] == matmul.output[0] else add.input[0]
        w_shape, b_shape = flow.static_shape(matmul.input[1]), shapes.get(bias)
        if w_shape is None or len(w_shape) != 3 or w_shape[0] != n or b_shape != (n, 1, w_shape[2]):
            break
        if not all(_constant(v, flow, runtime_inputs) for v in (matmul.input[1], bias)):
            break
        relu = flow.only_reader(add.output[0], "Relu")
        layers.append((matmul, add, bias, relu, w_shape))
        if relu is None:
            break
        value = relu.output[0]
    if not layers or layers[0][0].input[0] != transpose.output[0]:
        return None
    return view, layers, maps, n


def _rewrite_dense(b, flow, view, transpose, layers, maps, n) -> None:
    new_nodes = []
    scope = layers[0][0].name

    def op(op_type, inputs, out=None, **attrs):
        out = out or b.unique(f"{scope}/blocked/{op_type}")
        new_nodes.append(helper.make_node(op_type, inputs, [out], name=b.unique(f"{scope}/blocked/{op_type}"),
                                          **attrs))
        return out

    value, fan_in, fan_in_padded = view.input[0], None, None
    layer_shapes = [layer[4] for layer in layers]
    dead = {id(view), id(transpose)} | {id(x) for layer in layers for x in (layer[0], layer[1], layer[3]) if x}
    for i, (matmul, add, bias, relu, _) in enumerate(layers):
        k, d = layer_shapes[i][1:]
        d_padded = -(-d // BLOCK) * BLOCK
        made = flow.made_by(matmul.input[1], "Transpose")
        if made is not None and ints_attr(made, "perm") == [0, 2, 1] and flow.private(made.output[0]):
            w = made.input[0]                                                     # [N, D, K] as stored
            dead.add(id(made))
        else:
            w = op("Transpose", [matmul.input[1]], perm=[0, 2, 1])
        pads = [0, 0, 0, 0, d_padded - d, 0 if i == 0 else fan_in_padded - k]
        if any(pads):
            w = op("Pad", [w, b.ints(pads)])
        kernel = list(maps[2:]) if i == 0 else [1, 1]
        in_channels = maps[1] // n if i == 0 else fan_in_padded
        w = op("Reshape", [w, b.ints([n * d_padded, in_channels, *kernel])])
        bias_flat = op("Reshape", [bias, b.ints([n, d])])
        if d_padded != d:
            bias_flat = op("Pad", [bias_flat, b.ints([0, 0, 0, d_padded - d])])
        bias_flat = op("Reshape", [bias_flat, b.ints([n * d_padded])])
        value = op("Conv", [value, w, bias_flat], kernel_shape=kernel, group=n)
        if relu is not None:
            value = op("Relu", [value])
        fan_in, fan_in_padded = d, d_padded
    last = layers[-1][3] or layers[-1][1]
    out = last.output[0]
    value = op("Reshape", [value, b.ints([-1, n, fan_in_padded])])
    if fan_in_padded != fan_in:
        value = op("Transpose", [value], perm=[1, 0, 2])
        op("Slice", [value, b.ints([0]), b.ints([fan_in]), b.ints([2])], out=out)
    else:
        op("Transpose", [value], out=out, perm=[1, 0, 2])
    # In the place of the chain's last node: every weight and bias is made before it.
    at = b.nodes.index(last)
    at = sum(1 for x in b.nodes[:at] if id(x) not in dead)
    kept = [x for x in b.nodes if id(x) not in dead]
    b.nodes[:] = kept[:at] + new_nodes + kept[at:]


def pairs_members(graph: onnx.GraphProto) -> bool:
    """Whether a lowered graph runs a stacked form's grouped Conv with members paired in the
    blocked kernels (what makes the stacked form pay for few members: compiler/export.py)."""
    return any(PAIRED_MARK in n.name for n in graph.node)


__all__ = ["pairs_members", "run"]

"""An ensemble's members' LayerNorm over a shared input, folded into the Dense layers that
read it.

A vmapped ensemble normalises its shared input once and applies the members' scales and
biases to a stacked [N, batch, ..., D] copy (Mul, Add), which a Reshape and a Split hand to
the members: N copies of the activations written and read again. Where each member's share
is read only by a Dense layer (`onnx_dense_gemm`'s Reshape -> Gemm), the scale and bias fold
into that layer: Gemm(LN(x) * g + b, W, c) is Gemm(LN(x), W * g, c + b W) (for W read
transposed, transB), whose new weights are constant expressions that onnxruntime folds at
session creation. The members' Gemms then read the one normalised value, as it is.

Measured (bench/bench_models.py's encoder, N=4, onnxruntime CPU on 2 shared cores, old and
new files alternated in one process, ratio of medians new/old): batch 1 0.94-0.95, batch 32
0.97-1.01, batch 256 0.90-0.91. N LayerNormalizations with the members' own scales and
biases instead (no folding): 1.00, 0.98-1.00, 0.96-0.99.
"""
from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from .onnx import OnnxBuilder, value_scope
from .onnx_dataflow import Dataflow, ints_attr


def fold_member_norms(b: OnnxBuilder, keep: set, constants: dict, shapes: dict, types: dict) -> None:
    """Rewrites every Split handing N members their shares of LN(x) * scale + shift (the
    stacked [N, 1.., D] scale and shift, the LayerNormalization's own scale ones and shift
    zeros, float32), where each share is read only by a Dense Gemm over its rows."""
    nodes = b.nodes
    flow = Dataflow(nodes, keep, constants, shapes)
    before, replaced = {}, {}   # id(node) -> nodes emitted before it / in its place
    for split in nodes:
        found = _pattern(split, flow, shapes, types)
        if found is None:
            continue
        ln, scale, shift, chain, dense = found
        n, d = len(split.output), shapes[ln.output[0]][-1]
        scope = value_scope(ln.output[0])
        rows = b.unique(f"{ln.output[0]}/rows")
        made = [helper.make_node("Reshape", [ln.output[0], b.ints([-1, d])], [rows],
                                 name=b.node_name("Reshape", scope))]
        shares = []
        for stacked in (scale, shift):
            flat, parts = b.unique(f"{stacked}/members"), [b.unique(f"{stacked}/member_{i}") for i in range(n)]
            made += [helper.make_node("Reshape", [stacked, b.ints([n, d])], [flat], name=b.node_name("Reshape", scope)),
                     helper.make_node("Split", [flat], parts, name=b.node_name("Split", scope), axis=0,
                                      **({"num_outputs": n} if b.opset >= 18 else {}))]
            shares.append(parts)
        replaced[id(split)] = made
        for node in chain:
            replaced.setdefault(id(node), [])
        declared = b.root.declared.get(dense[0][0].output[0])
        if declared is not None:   # the rows' dims, as onnx_dense_gemm declared each member's
            b.root.declared[rows] = declared
        shapes[rows] = (-1, d)
        for (view, gemm), g, s in zip(dense, *shares):
            before[id(gemm)] = _folded(b, gemm, g, s, d)
            gemm.input[0] = rows
            replaced[id(view)] = []
    if replaced:
        nodes[:] = [m for node in nodes for m in before.get(id(node), []) + replaced.get(id(node), [node])]


def _folded(b: OnnxBuilder, gemm, g: str, s: str, d: int) -> list:
    """The nodes making `gemm`'s weights W * g and bias c + s W (g, s: [1, D]); rewires it."""
    w, c = gemm.input[1], gemm.input[2]
    trans_b = ints_attr(gemm, "transB", True, 0)
    scope = value_scope(gemm.output[0])
    made = []
    if not trans_b:   # W is [D, N]: g scales its rows
        column = b.unique(f"{g}/column")
        made.append(helper.make_node("Reshape", [g, b.ints([d, 1])], [column], name=b.node_name("Reshape", scope)))
        g = column
    weight, row, bias = b.unique(f"{w}/scaled"), b.unique(f"{c}/shifted_row"), b.unique(f"{c}/shifted")
    made += [helper.make_node("Mul", [w, g], [weight], name=b.node_name("Mul", scope)),
             helper.make_node("Gemm", [s, w, c], [row], name=b.node_name("Gemm", scope), transB=trans_b),
             helper.make_node("Reshape", [row, b.ints([-1])], [bias], name=b.node_name("Reshape", scope))]
    gemm.input[1], gemm.input[2] = weight, bias
    return made


def _pattern(split, flow: Dataflow, shapes: dict, types: dict):
    """(ln, stacked scale, stacked shift, the nodes between, [(rows view, gemm)] per member)
    when `split` hands the members their shares of LN(x) * scale + shift, each read by a
    Dense Gemm alone, else None."""
    if split.op_type != "Split" or ints_attr(split, "axis", True, 0) != 0 or len(split.input) > 1 \
            and split.input[1]:
        return None
    view = flow.made_by(split.input[0], "Reshape")
    add = flow.made_by(view.input[0], "Add") if view is not None and flow.private(view.output[0]) else None
    found = _affine(add, flow, "Add", "Mul")
    if found is None:
        return None
    mul, shift = found
    found = _affine(mul, flow, "Mul", "LayerNormalization")
    if found is None:
        return None
    ln, scale = found
    if ln.op_type != "LayerNormalization" or not _identity_affine(ln, flow) \
            or types.get(ln.output[0]) != TensorProto.FLOAT:
        return None
    x = shapes.get(ln.output[0])
    n = len(split.output)
    stacked = (n,) + (1,) * (len(x) - 1) + (x[-1],) if x is not None and -1 not in x[1:] else None
    if stacked is None or shapes.get(scale) != stacked or shapes.get(shift) != stacked:
        return None
    dense = []
    for share in split.output:
        rows = flow.only_reader(share, "Reshape")
        gemm = flow.only_reader(rows.output[0], "Gemm") if rows is not None else None
        if (gemm is None or gemm.input[0] != rows.output[0] or len(gemm.input) != 3
                or shapes.get(rows.output[0]) is None or flow.ints(rows.input[1]) != (-1, x[-1])
                or ints_attr(gemm, "transA", True, 0)
                or any(a.name in ("alpha", "beta") and a.f != 1.0 for a in gemm.attribute)):
            return None
        dense.append((rows, gemm))
    return ln, scale, shift, [mul, add, view], dense


def _affine(node, flow: Dataflow, op: str, inner: str):
    """(the `inner` node making one operand, read here alone; the other operand) when `node`
    is a binary `op` read once, else None."""
    if node is None or node.op_type != op or len(node.input) != 2 or not flow.private(node.output[0]):
        return None
    for side in (0, 1):
        producer = flow.made_by(node.input[side], inner)
        if producer is not None and flow.private(node.input[side]):
            return producer, node.input[1 - side]
    return None


def _identity_affine(ln, flow: Dataflow) -> bool:
    """Whether a LayerNormalization's own scale is all ones and its bias absent or all zeros."""
    def const(name, value):
        tensor = flow.constants.get(name)
        return tensor is not None and bool(np.all(numpy_helper.to_array(tensor) == value))
    return const(ln.input[1], 1.0) and (len(ln.input) < 3 or not ln.input[2] or const(ln.input[2], 0.0))

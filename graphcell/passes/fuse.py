"""Bias fusion: a product whose only use is a bias add becomes one fused node.

    graph f(%x: f32[3,4], %w: f32[5,4], %b: f32[5]) {           graph f(%x: f32[3,4], %w: f32[5,4], %b: f32[5]) {
      %0:f32[3,5] = dot_general(%x, %w) {batch=((),()),   fuse     %0:f32[3,5] = dot_general(%x, %w) {...}     (dead: DCE)
                                         contract=((1,),(1,))}  -->  %1:f32[3,5] = linear(%x, %w, %b) {contract=((1,),(1,))}
      %1:f32[3,5] = add(%0, %b)                                      return %1
      return %1                                                    }
    }

`FUSIONS` is the table: for a producer primitive, the consumer it fuses with, the fused
primitive (`ops/fused_prims.py`) and a rule that checks the pair and picks the bias operand.
The fused node is emitted where the add was, so every operand is already defined there; the
product (and a reshape that only shaped the bias) is left for DCE, as simplify leaves what it
bypasses. The ONNX lowering reads the same table through `find_fusions`, so a graph that did
not run the "onnx" pipeline still exports Gemm and Conv with their biases.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, NamedTuple

from ..ir.core import Graph, Node, Value
from ..ops import PRIMITIVES
from ..ops.fused_prims import conv_bias, linear
from .base import PassResult, producer_of, rebuild, result


class FusedBias(NamedTuple):
    """What a bias rule found: the bias operand, nodes only it needed, the fused node's attrs."""
    bias: Value
    absorbed: tuple
    attrs: dict


class FusionRule(NamedTuple):
    consumer: str        # the primitive that must be the product's only user
    fused: object        # the fused primitive
    bias: Callable       # bias(product_node, other_operand, single_use) -> FusedBias | None


@dataclass(frozen=True, eq=False)
class Fusion:
    """One match: `consumer`'s output is `primitive(*operands, **attrs)`; `absorbed` nodes
    (the product, a bias reshape) have no other use."""
    consumer: Node
    primitive: object
    operands: tuple
    attrs: dict
    absorbed: tuple
    source: object

    def as_node(self) -> Node:
        """The fused node over this graph's values, standing for the consumer's output (for
        backends that lower a matched graph without rebuilding it)."""
        return Node(self.primitive, self.operands, self.attrs, self.consumer.outputs, self.source)


# -- the table ------------------------------------------------------------------------------------

def _gemm_bias(product: Node, other: Value, single_use) -> FusedBias | None:
    """x @ w with 2-D operands, one contracting pair and a bias of [O] or [1, O] (ONNX Gemm)."""
    (lc, rc), (lb, _) = product.attrs["contract"], product.attrs["batch"]
    x, w = product.inputs
    o = product.outputs[0].shape[-1]
    if x.ndim != 2 or w.ndim != 2 or len(lc) != 1 or lb or other.shape not in ((o,), (1, o)):
        return None
    return FusedBias(other, (), {"contract": (lc, rc)})


def _channel_bias(product: Node, other: Value, single_use) -> FusedBias | None:
    """A convolution plus one bias per output channel, [1, O, 1...] (ONNX Conv's B); a bias
    reshaped from an [O] vector is used as that vector, and its reshape absorbed."""
    out = product.outputs[0]
    o = out.shape[1]
    if other.shape != (1, o) + (1,) * (out.ndim - 2):
        return None
    reshape = producer_of(other, PRIMITIVES["reshape"])
    if reshape is not None and reshape.inputs[0].shape == (o,):
        return FusedBias(reshape.inputs[0], (reshape,) if single_use(other) else (), dict(product.attrs))
    return FusedBias(other, (), dict(product.attrs))


FUSIONS: dict[str, FusionRule] = {
    "dot_general": FusionRule("add", linear, _gemm_bias),
    "conv": FusionRule("add", conv_bias, _channel_bias),
}


# -- matching ---------------------------------------------------------------------------------------

def find_fusions(graph: Graph) -> list[Fusion]:
    """Every legal (product, bias add) pair of `graph` (not of its subgraphs): the product's
    only use is the add, it is not a graph output, the add keeps its type (no broadcast
    beyond the bias), operands are floating point, and the bias shape suits the fused op."""
    uses: dict[Value, int] = {}
    for node in graph.nodes:
        for v in node.inputs:
            uses[v] = uses.get(v, 0) + 1
    outputs = set(graph.outputs)
    single_use = lambda v: uses.get(v, 0) == 1 and v not in outputs  # noqa: E731
    users = {v: node for node in graph.nodes for v in node.inputs}   # the last user; exact when single
    found, claimed = [], set()
    for node in graph.nodes:
        rule = FUSIONS.get(node.primitive.name)
        if rule is None or len(node.outputs) != 1:
            continue
        out = node.outputs[0]
        consumer = users.get(out)
        if not single_use(out) or consumer.primitive.name != rule.consumer or consumer in claimed:
            continue
        other = consumer.inputs[1] if consumer.inputs[0] is out else consumer.inputs[0]
        if not out.dtype.is_floating or consumer.outputs[0].type != out.type or other.dtype is not out.dtype:
            continue
        bias = rule.bias(node, other, single_use)
        if bias is None:
            continue
        claimed.add(consumer)
        found.append(Fusion(consumer, rule.fused, tuple(node.inputs) + (bias.bias,), bias.attrs,
                            (node,) + bias.absorbed, node.source))
    return found


# -- the pass ---------------------------------------------------------------------------------------

def fuse(graph: Graph) -> PassResult:
    """Replaces each bias add of `FUSIONS` by its fused node (in subgraphs too)."""
    fusions = {f.consumer: f for f in find_fusions(graph)}
    env: dict[Value, Value] = {}   # old value -> new, for the fused nodes' operands

    def on_copy(node, ins, outs):
        env.update(zip(node.outputs, outs))

    def hook(node, ins, builder):
        fusion = fusions.get(node)
        if fusion is None:
            return None
        env.update(zip(graph.inputs, builder.inputs))
        builder.source = fusion.source   # the product's line and Cell (the Gemm is fc1's)
        outs = builder.add_node(fusion.primitive, tuple(env[v] for v in fusion.operands), fusion.attrs)
        env.update(zip(node.outputs, outs))
        return outs

    new, changed = rebuild(graph, hook, subgraph_pass=fuse, on_copy=on_copy if fusions else None)
    return result(graph, new, changed)

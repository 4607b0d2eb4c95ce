"""Merging scans over the same operands: one loop instead of two.

A scan's vjp runs the forward loop again to stack the residuals its backward loop reads (the
forward node keeps none: `ops/scan_loop.py`), so a training step holds two scans over the
same operands, the forward and its replay:

    %5, %6 = scan(%h0, %xs, %w) {body=step, ...}               # final h, ys
    %7, %8 = scan(%h0, %xs, %w) {body=step_residuals, ...}     # final h, residuals per step

This pass makes them one scan whose body computes both bodies' outputs, the shared carry once
(`%5, %6, %8 = scan(%h0, %xs, %w)`): the recurrence runs once forward instead of twice.

Two scans merge when they read the same operands with the same length, direction and carry
layout, their bodies hold only pure nodes (a side effect must not run twice or vanish), and
the bodies' carries are the same computation: both bodies are replayed over one set of
inputs and common-subexpression elimination must turn their carry outputs into the same
values. Anything else is left alone.
"""
from __future__ import annotations

from ..ir.core import Graph, GraphBuilder, replay
from .base import PassResult, rebuild, result
from .cse import cse
from .dce import dce


def merge_scans(graph: Graph) -> PassResult:
    """Merges each later scan into the first earlier scan over the same operands."""
    from ..ops.scan_loop import scan_p
    first: dict = {}          # operands and layout -> the first scan node with them
    merged: dict = {}         # id(first scan) -> [its merged body, the later scans it absorbs]
    for node in graph.nodes:
        if node.primitive is not scan_p:
            continue
        key = (node.inputs, node.attrs["length"], node.attrs["reverse"], node.attrs["n_carry"],
               node.attrs["n_xs"])
        lead = first.setdefault(key, node)
        if lead is node:
            continue
        body, absorbed = merged.get(id(lead), (lead.attrs["body"], []))
        joint = _joint_body(body, node.attrs["body"], node.attrs["n_carry"])
        if joint is not None:
            merged[id(lead)] = (joint, absorbed + [node])
    if not merged:
        return result(graph, graph, False)

    stand_ins: dict = {}      # id(absorbed scan) -> the merged node's outputs standing for its own

    def hook(node, ins, builder):
        if id(node) in stand_ins:
            return stand_ins.pop(id(node))
        if id(node) not in merged:
            return None
        body, absorbed = merged[id(node)]
        outs = builder.add_node(node.primitive, ins, {**node.attrs, "body": body}, node.source)
        n_carry, at = node.attrs["n_carry"], len(node.outputs)
        for later in absorbed:
            n_ys = len(later.outputs) - n_carry
            stand_ins[id(later)] = tuple(outs[:n_carry]) + tuple(outs[at:at + n_ys])
            at += n_ys
        return tuple(outs[:len(node.outputs)])

    new, changed = rebuild(graph, hook)
    return result(graph, new, changed)


def _joint_body(a: Graph, b: Graph, n_carry: int) -> Graph | None:
    """One body computing `a`'s outputs then `b`'s per-step outputs, if both bodies are pure
    and compute the same carry; else None."""
    if not all(n.pure for body in (a, b) for n in body.nodes):
        return None
    builder = GraphBuilder(a.name)
    ins = [builder.add_input(v.type, v.name, v.kind) for v in a.inputs]
    outs_a, outs_b = replay(a, builder, ins), replay(b, builder, ins)
    both = cse(builder.build(outs_a + outs_b)).graph
    carry_a, carry_b = both.outputs[:n_carry], both.outputs[len(outs_a):len(outs_a) + n_carry]
    if any(x is not y for x, y in zip(carry_a, carry_b)):
        return None
    ys_b = both.outputs[len(outs_a) + n_carry:]
    joint = Graph(both.inputs, both.nodes, both.outputs[:len(outs_a)] + ys_b, (), a.name, dict(a.meta))
    return dce(joint).graph

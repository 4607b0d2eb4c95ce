"""Dtypes onnxruntime's CPU provider has no kernel for, per primitive: such a node is lowered at
a wider dtype between Casts, so that jit(backend="onnx") and exported models run what XLA runs.

ONNX defines MatMul and Pow for 32- and 64-bit numbers only, and onnxruntime registers Max, Min,
Where, Pad, ArgMax and the reductions for a few integer types (an int8 matmul was an invalid
model, an int16 `ops.maximum` or `ops.where` had no kernel, a float16 scatter-add failed when
it ran). The wider types give XLA's results: integer arithmetic wraps the same way once cast
back (a ring homomorphism), orders and selections are exact, and a bool matmul's nonzero sums
are its ORs. uint64 has no wider type that keeps its order: its orderings (sorts, top_k, arg- and
max/min reductions) run on int64 after flipping the top bit (x ^ 2**63 as int64 keeps uint64's
order, equal values stay equal), and the values they return are flipped back.
"""
from __future__ import annotations

import numpy as np

from ..dtype import float32, int32, int64
from ..ir.core import Node, TensorType, Value

_WIDER = {"int8": int32, "uint8": int32, "int16": int32, "uint16": int32, "uint32": int64,
          "uint64": int64, "bool_": int32, "float16": float32}
_SMALL = frozenset({"int8", "uint8", "int16", "uint16"})
_ORDERED = frozenset({"int16", "uint16", "uint32"})   # ArgMax/ArgMin, ReduceMax/ReduceMin

# primitive -> the operand and result dtypes onnxruntime lacks a kernel for (measured, 1.32)
LACKING = {
    "dot_general": _SMALL | {"bool_"}, "linear": _SMALL | {"bool_"},
    "pow": _SMALL | {"uint32", "uint64"},
    "max": frozenset({"int16", "uint16"}), "min": frozenset({"int16", "uint16"}),
    "relu": frozenset({"int16", "uint16"}), "pad": frozenset({"int16", "uint16"}),
    "reduce_window_max": frozenset({"int16", "uint16"}),
    "select": frozenset({"int16", "uint16", "uint64"}),
    "reduce_max": _ORDERED, "reduce_min": _ORDERED, "argmax": _ORDERED, "argmin": _ORDERED,
    # (exact, as int32 / int64 MatMul and Mul: onnx_int_reductions.py; uint32 MatMul failed batched)
    "reduce_sum": _SMALL | {"uint32", "uint64"}, "reduce_prod": _SMALL | {"uint32", "uint64"},
    "scatter_add": frozenset({"float16"}),
}
# orderings onnxruntime has no uint64 kernel for: run on int64 by an order-preserving map
ORDER_MAPPED = frozenset({"reduce_max", "reduce_min", "argmax", "argmin", "sort", "top_k"})
_TOP_BIT = np.iinfo(np.int64).min


def _flip_top_bit(ctx, x: str) -> str:
    """x ^ 2**63 on int64 bits: uint64's order as int64's (0 -> -2**63, 2**64 - 1 -> 2**63 - 1),
    its own inverse. Before opset 18 (no BitwiseXor) an Add of -2**63, the same bits (onnxruntime's
    int64 Add wraps)."""
    top = ctx.const(np.asarray(_TOP_BIT, np.int64))
    return ctx.op("BitwiseXor" if ctx.opset >= 18 else "Add", x, top)


def widened(node: Node, rule):
    """`node` and `rule`, or a copy of the node with its lacking dtypes widened (uint64 orderings
    mapped to int64) and a rule that casts the operands up and the results back."""
    name = node.primitive.name
    mapped = name in ORDER_MAPPED and any(v.dtype.name == "uint64" for v in node.inputs)
    lacking = frozenset({"uint64"}) if mapped else LACKING.get(name)
    if not lacking or not any(v.dtype.name in lacking for v in (*node.inputs, *node.outputs)):
        return node, rule

    def wide(v: Value) -> Value:
        if v.dtype.name not in lacking:
            return v
        return Value(TensorType(v.shape, _WIDER[v.dtype.name]), v.name, v.kind)

    wide_node = Node(node.primitive, tuple(map(wide, node.inputs)), node.attrs,
                     tuple(map(wide, node.outputs)), node.source)

    def run_wide(ctx, *names, **attrs):
        from .onnx import onnx_dtype
        names = [n if w is v else ctx.op("Cast", n, to=onnx_dtype(w.dtype))
                 for n, v, w in zip(names, node.inputs, wide_node.inputs)]
        if mapped:
            names = [n if w is v else _flip_top_bit(ctx, n) for n, v, w in zip(names, node.inputs, wide_node.inputs)]
        out = rule(ctx, *names, **attrs)
        outs = out if node.primitive.multiple_results else [out]
        if mapped:
            outs = [n if w is v else _flip_top_bit(ctx, n) for n, v, w in zip(outs, node.outputs, wide_node.outputs)]
        outs = [n if w is v else ctx.op("Cast", n, to=onnx_dtype(v.dtype))
                for n, v, w in zip(outs, node.outputs, wide_node.outputs)]
        return outs if node.primitive.multiple_results else outs[0]
    return wide_node, run_wide

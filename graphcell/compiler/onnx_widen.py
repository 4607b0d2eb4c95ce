"""Dtypes onnxruntime's CPU provider has no kernel for, per primitive: such a node is lowered at
a wider dtype between Casts, so that jit(backend="onnx") and exported models run what XLA runs.

ONNX defines MatMul and Pow for 32- and 64-bit numbers only, and onnxruntime registers Max, Min,
Where, Pad, ArgMax and the reductions for a few integer types (an int8 matmul was an invalid
model, an int16 `ops.maximum` or `ops.where` had no kernel, a float16 scatter-add failed when
it ran). The wider types give XLA's results: integer arithmetic wraps the same way once cast
back (a ring homomorphism), orders and selections are exact, and a bool matmul's nonzero sums
are its ORs. uint64 has no wider type that keeps its order, so its ordering reductions are refused.
"""
from __future__ import annotations

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
_REFUSED = {"reduce_max": "uint64", "reduce_min": "uint64", "argmax": "uint64", "argmin": "uint64"}


def widened(node: Node, rule):
    """`node` and `rule`, or a copy of the node with its lacking dtypes widened and a rule that
    casts the operands up and the results back."""
    name = node.primitive.name
    refused = _REFUSED.get(name)
    if refused is not None and any(v.dtype.name == refused for v in node.inputs):
        def refuse(ctx, *names, **attrs):
            ctx.fail(f"onnxruntime has no {refused} kernel for {name}, and no wider type keeps uint64's "
                     "order: cast to int64 first (values below 2**63), or use the XLA backend")
        return node, refuse
    lacking = LACKING.get(name)
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
        out = rule(ctx, *names, **attrs)
        outs = out if node.primitive.multiple_results else [out]
        outs = [n if w is v else ctx.op("Cast", n, to=onnx_dtype(v.dtype))
                for n, v, w in zip(outs, node.outputs, wide_node.outputs)]
        return outs if node.primitive.multiple_results else outs[0]
    return wide_node, run_wide

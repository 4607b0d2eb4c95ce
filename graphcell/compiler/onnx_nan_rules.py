"""ONNX rules for the max/min reductions, where onnxruntime's kernels treat NaN otherwise than XLA.

Measured (onnxruntime's CPU provider, float32, rows of 1 to 1,000):
- ReduceMax and ReduceMin give NaN only for a NaN at the start of a reduced row, and a NaN in a
  vector lane can make the result wrong (the max of [0, NaN, 2, ..., 99] came back 98); XLA's
  reductions (numpy's) are NaN wherever a row holds one. The raw reduction is kept and replaced
  by NaN where the row holds a NaN (one IsNaN and Cast over the input, then a reduction of that
  and a Where over the result: the full-size passes are the cheap elementwise ones).
- ArgMax and ArgMin skip a NaN unless it comes first; XLA's (numpy's) give the first NaN.
(MindSpore 2.10's CPU reductions also skip a NaN unless it comes first: graphcell keeps
numpy's rule, ops.max's docstring says why.)
Elementwise Max and Min propagate NaN from either side in onnxruntime as in XLA, and keep their
one op (MindSpore's `x > y ? x : y` would be a Where, 26x slower: see
tests/test_mindspore_special_values.py's NAN_MAX).
"""
from __future__ import annotations

import numpy as np

from ..dtype import bool_, int64, uint8
from .onnx_dataflow import scalar_value
from .onnx_rules import cast, reducer


def _nan_rows(ctx, x, axes) -> tuple[str, str]:
    """(uint8 IsNaN of x, bool `the row over axes holds a NaN`)."""
    is_nan = cast(ctx, ctx.op("IsNaN", x), uint8)
    if ctx.opset >= 18:
        held = ctx.op("ReduceMax", is_nan, ctx.ints(list(axes)), keepdims=0)
    else:
        held = ctx.op("ReduceMax", is_nan, axes=list(axes), keepdims=0)
    return is_nan, cast(ctx, held, bool_)


def nan_reducer(op_type: str):
    """ReduceMax / ReduceMin, NaN wherever the row holds a NaN (XLA's)."""
    raw = reducer(op_type)

    def rule(ctx, x, *, axes):
        out = raw(ctx, x, axes=axes)
        if not axes or not ctx.in_types[0].dtype.is_floating:
            return out
        _, held = _nan_rows(ctx, x, axes)
        return ctx.op("Where", held, ctx.const(np.asarray(np.nan, ctx.in_types[0].dtype.np_dtype)), out)
    return rule


def nan_arg(op_type: str):
    """ArgMax / ArgMin, the first NaN's index where the row holds one (XLA's)."""
    def rule(ctx, x, *, axis, index_dtype):
        out = ctx.op(op_type, x, axis=axis, keepdims=0)
        if ctx.in_types[0].dtype.is_floating:
            is_nan, held = _nan_rows(ctx, x, [axis])
            first = ctx.op("ArgMax", is_nan, axis=axis, keepdims=0, select_last_index=0)
            out = ctx.op("Where", held, first, out)
        return out if index_dtype is int64 else cast(ctx, out, index_dtype)
    return rule


def reduction_behind_nan_guard(flow, node):
    """When `node` is nan_reducer's Where over a reduction (Where(held, NaN, r)), (r's name,
    the guard's nodes), so a fusion that replaces the reduction drops the guard with it; else
    None. The guard only matters where the max is the result: softmax's shift by it gives NaN
    rows either way."""
    if node is None or node.op_type != "Where" or len(node.input) != 3:
        return None
    held = flow.made_by(node.input[0], "Cast")
    rows = flow.made_by(held.input[0], "ReduceMax") if held is not None else None
    is_nan = flow.made_by(rows.input[0], "Cast") if rows is not None else None
    test = flow.made_by(is_nan.input[0], "IsNaN") if is_nan is not None else None
    raw = flow.producer.get(node.input[2])
    if test is None or raw is None or raw.input[0] != test.input[0] \
            or not all(flow.private(n.output[0]) for n in (held, rows, is_nan, test)):
        return None
    value = scalar_value(flow.constants.get(node.input[1]))
    if value is None or not np.isnan(value):
        return None
    return node.input[2], [node, held, rows, is_nan, test]

"""Reshapes spelled so that ONNX shape inference keeps the dynamic dimensions' names.

A Reshape to a target with one dynamic dimension writes it as -1, which onnxruntime resolves
at run time, but which `onnx.shape_inference` can only call a fresh unknown (`unk__0`): every
value after a network's flatten, a head split or a `view(-1, C, H, W)` lost its `batch`, and
so did the model's outputs for tools that infer shapes (graphcell's own value_info says
`batch`; inference without it did not). Two spellings keep the name:

- the dynamic dimension sits where the input has the same one (`[batch, 16, 1, 1]` to
  `[batch, 16]`): ONNX's 0, "copy the input's dimension", in place of the -1;
- the Reshape only inserts or drops 1s (`[batch, 6]` to `[1, batch, 6]`): Unsqueeze or
  Squeeze, whose inference moves the dimensions as they are.

onnxruntime runs either as it ran the -1 (a Reshape, Unsqueeze and Squeeze are all views).
"""
from __future__ import annotations

import numpy as np
from onnx import helper, numpy_helper

from .onnx import OnnxBuilder, Sym


def spell_dynamic_reshapes(b: OnnxBuilder, dims: dict) -> None:
    """Rewrites b's top-level Reshapes to a constant target with one -1 (`dims`: ONNX value
    name -> its dims, ints and Syms, where the IR knows them)."""
    constants = {t.name: t for t in b.initializers}
    for i, node in enumerate(b.nodes):
        if node.op_type != "Reshape" or len(node.input) != 2 or node.input[1] not in constants \
                or any(a.name == "allowzero" and a.i for a in node.attribute):
            continue
        target = numpy_helper.to_array(constants[node.input[1]])
        src, out = dims.get(node.input[0]), dims.get(node.output[0])
        if target.ndim != 1 or int(np.sum(target == -1)) != 1 or src is None or out is None \
                or len(out) != len(target):
            continue
        at = int(np.flatnonzero(target == -1)[0])
        if at < len(src) and isinstance(out[at], Sym) and src[at] == out[at] and 0 not in target.tolist():
            copy = target.copy()
            copy[at] = 0
            node.input[1] = b.ints(copy.tolist())
            continue
        inserted, dropped = _ones_between(src, out), _ones_between(out, src)
        if inserted is not None or dropped is not None:
            op = "Unsqueeze" if inserted is not None else "Squeeze"
            scope = node.name.rpartition("/")[0]
            b.nodes[i] = helper.make_node(op, [node.input[0], b.ints(inserted if inserted is not None else dropped)],
                                          list(node.output), name=b.unique(f"{scope}/{op}" if scope else op))


def _ones_between(short: tuple, long: tuple) -> list | None:
    """The axes of `long` that are 1s inserted into `short` (which `long` otherwise equals,
    in order), or None when `long` is not `short` with 1s inserted."""
    if len(long) <= len(short):
        return None
    axes, j = [], 0
    for k, d in enumerate(long):
        if j < len(short) and d == short[j]:   # greedy: any match leaves 1s to insert
            j += 1
        elif isinstance(d, int) and d == 1:
            axes.append(k)
        else:
            return None
    return axes if j == len(short) else None


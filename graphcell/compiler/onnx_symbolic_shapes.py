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
A Reshape that a peephole made (the members' `x/members` merge) has no IR value, and so no
dims, for its result: there the -1 is the input's dynamic dimension when the other dimensions'
product is the same on both sides.

Inside a subgraph (a Loop or Scan body: a while loop, an RNN) inference could not read the
constants the body's Slices, Reshapes and Unsqueezes take from the main graph (ONNX's inference
sees only the subgraph's own initializers and Constant nodes), so every value there after a
Slice of a gate was `[unk__2, unk__3]`: `localize_shape_constants` gives each body its own copy
of the small int64 constants it reads.
"""
from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from .onnx import OnnxBuilder, Sym, subgraphs, value_scope

# int64 constants up to this many elements are shape arguments (starts, axes, targets) that a
# body gets a copy of; bigger ones (gather indices) do not size anything inference can see.
SHAPE_CONSTANT_MAX = 16


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
        if target.ndim != 1 or int(np.sum(target == -1)) != 1 or src is None \
                or (out is not None and len(out) != len(target)):
            continue
        at = int(np.flatnonzero(target == -1)[0])
        if at < len(src) and isinstance(src[at], Sym) and 0 not in target.tolist() \
                and _minus_one_is(src, target, at, out):
            copy = target.copy()
            copy[at] = 0
            node.input[1] = b.ints(copy.tolist())
            continue
        if out is None:
            continue
        inserted, dropped = _ones_between(src, out), _ones_between(out, src)
        if inserted is not None or dropped is not None:
            op = "Unsqueeze" if inserted is not None else "Squeeze"
            b.nodes[i] = helper.make_node(op, [node.input[0], b.ints(inserted if inserted is not None else dropped)],
                                          list(node.output), name=b.node_name(op, value_scope(node.name)))


def _minus_one_is(src: tuple, target, at: int, out: tuple | None) -> bool:
    """Whether a Reshape of `src` to `target` resolves its -1 (at `at`) to `src[at]`: the
    result's dims say so, or, without them, every other dimension is static and their
    products agree."""
    if out is not None:
        return out[at] == src[at]
    rest = [d for i, d in enumerate(src) if i != at]
    return all(isinstance(d, int) for d in rest) and \
        int(np.prod(rest)) == int(np.prod([t for i, t in enumerate(target.tolist()) if i != at]))


def localize_shape_constants(b: OnnxBuilder) -> None:
    """Gives every subgraph (at any depth) its own initializer for each small int64 constant
    of the main graph that its nodes read, so that ONNX shape inference, which cannot see the
    main graph's initializers from a body, follows the body's Slices and Reshapes."""
    shared = {t.name: t for t in b.initializers
              if t.data_type == TensorProto.INT64 and int(np.prod(t.dims)) <= SHAPE_CONSTANT_MAX}
    if not shared:
        return
    for node in b.nodes:
        for g in subgraphs(node):
            _localize(b, g, shared)


def _localize(b: OnnxBuilder, g: onnx.GraphProto, shared: dict) -> None:
    local: dict[str, str] = {}
    for node in g.node:
        for i, name in enumerate(node.input):
            if name not in shared:
                continue
            copy = local.get(name)
            if copy is None:
                copy = local[name] = b.unique(f"{g.name}/{name}")
                tensor = g.initializer.add()
                tensor.CopyFrom(shared[name])
                tensor.name = copy
            node.input[i] = copy
        for sub in subgraphs(node):
            _localize(b, sub, shared)


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


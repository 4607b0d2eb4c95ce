"""Fusions on the lowered ONNX nodes: patterns of several nodes that ONNX has as one op
(GlobalAveragePool / ReduceMean, Softmax / LogSoftmax, LayerNormalization, Attention).

onnxruntime runs each node of a pattern as its own kernel, with a pass over memory each; one
op runs as one kernel. A pattern becomes its op only where nothing else reads its intermediate
values (a training step's backward pass reads them: those stay) and never removes a value
named in `keep` (the graph's outputs).
"""
from __future__ import annotations

import numpy as np
import onnx
from onnx import helper

from .onnx import OnnxBuilder, value_scope
from .onnx_dataflow import Dataflow, ints_attr, scalar_value


def _named(b: OnnxBuilder, op_type: str, value: str) -> str:
    """The name of a node put in place of `value`'s producer: in that producer's scope."""
    return b.node_name(op_type, value_scope(value))


def fuse(b: OnnxBuilder, keep: set, constants, shapes: dict, types: dict) -> None:
    """Every fusion, in order (`constants()`: the initializers by name, read again after each
    fusion, which may add some)."""
    _layer_norm(b, keep, constants(), shapes)
    _means(b, keep, constants(), shapes, types)
    _softmax(b, keep, constants(), shapes)
    _attention(b, keep, constants(), shapes, types)


_POOL_TYPES = (onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16)   # onnxruntime CPU's GlobalAveragePool


def _means(b: OnnxBuilder, keep: set, constants: dict, shapes: dict, types: dict) -> None:
    """functional.mean, Div(ReduceSum(x, axes), count) (with keep_dims, a Reshape that keeps
    the axes sits before or after the Div), becomes one node over static axes:
    GlobalAveragePool (then Flatten without keep_dims) where x is [B, C, spatial...] and every spatial axis is averaged
    (a network's global pool, `ops.mean(x, (2, 3))`), ReduceMean otherwise. onnxruntime runs
    GlobalAveragePool in the blocked (NCHWc) layout of the convolutions before it, so the last
    activation is not reordered back to NCHW to be summed (small ResNet ensemble, N=4: batch 32
    35.0 -> 29.5-31.4 ms, batch 256 209-228 -> 188-200 ms). Not for float64: onnxruntime's CPU
    provider has no GlobalAveragePool for it (ReduceMean it has)."""
    nodes = b.nodes
    flow = Dataflow(nodes, keep, constants, shapes)

    def divisor(name):
        """A scalar constant's value, also through the Reshape that
        `onnx_peepholes._elementwise_before_reshape` gives the operand of a Div it moved above
        a view."""
        view = flow.made_by(name, "Reshape")
        return scalar_value(constants.get(view.input[0] if view is not None else name))

    def kept_view(name, kept):
        """`name`'s one reader when it is a Reshape to the shape with the axes kept, else None."""
        view = flow.only_reader(name, "Reshape")
        return view if view is not None and shapes.get(view.output[0]) == kept else None

    dead = set()
    for i, node in enumerate(nodes):
        x = shapes.get(node.input[0]) if node.op_type == "ReduceSum" and len(node.input) == 2 else None
        axes = sorted({a % len(x) for a in flow.ints(node.input[1]) or ()}) if x is not None else []
        if not axes or any(x[a] == -1 for a in axes):
            continue
        kept = tuple(1 if k in axes else d for k, d in enumerate(x))
        keepdims = ints_attr(node, "keepdims", single=True, default=1)
        # Sum, [view,] Div; or Sum, Div, view (`onnx_peepholes._elementwise_before_reshape` moved the Div up).
        before = kept_view(node.output[0], kept)
        div = flow.only_reader(before.output[0] if before is not None else node.output[0], "Div")
        if div is None or div.input[1] == div.input[0] or \
                divisor(div.input[1]) != float(np.prod([x[a] for a in axes])):
            continue
        after = kept_view(div.output[0], kept) if before is None else None
        out = (after or div).output[0]
        keepdims = 1 if before is not None or after is not None else keepdims
        dead.update(id(n) for n in (before, div, after) if n is not None)
        scalar_view = flow.producer.get(div.input[1])
        if scalar_view is not None and flow.uses.get(div.input[1]) == 1:
            dead.add(id(scalar_view))
        if len(x) < 3 or axes != list(range(2, len(x))) or types.get(node.input[0]) not in _POOL_TYPES:
            operands = [node.input[0]] + ([b.ints(axes)] if b.opset >= 18 else [])
            attrs = {} if b.opset >= 18 else {"axes": axes}
            nodes[i] = helper.make_node("ReduceMean", operands, [out], name=_named(b, "ReduceMean", out),
                                        keepdims=keepdims, **attrs)
            continue
        pooled = out if keepdims else b.unique(node.output[0] + "/global_pool")
        nodes[i] = helper.make_node("GlobalAveragePool", [node.input[0]], [pooled],
                                    name=_named(b, "GlobalAveragePool", node.output[0]))
        if not keepdims:   # the Div's place: Flatten to [B, C]
            flatten = helper.make_node("Flatten", [pooled], [out], name=_named(b, "Flatten", out), axis=1)
            nodes[nodes.index(div)] = flatten
            dead.discard(id(div))
    nodes[:] = [n for n in nodes if id(n) not in dead]


def _softmax(b: OnnxBuilder, keep: set, constants: dict, shapes: dict) -> None:
    """functional.softmax and log_softmax as ONNX's Softmax and LogSoftmax:

        m = max(x, a) (kept as an axis of one, through stop_gradient); e = Exp(x - m)
        Div(e, sum(e, a))                   -> Softmax(x, axis=a)
        Sub(x - m, Log(sum(Exp(x - m), a)))  -> LogSoftmax(x, axis=a)

    onnxruntime computes them the same way (the max subtracted first), in one pass over the
    data instead of six nodes. Only where no other node reads the intermediate values (a
    training step's backward pass reuses them: left as it is)."""
    from .onnx_nan_rules import reduction_behind_nan_guard   # (it imports onnx_rules, which imports this)
    nodes = b.nodes
    flow = Dataflow(nodes, keep, constants, shapes)
    exp_of = {n.input[0]: n for n in nodes if n.op_type == "Exp"}

    def one_axis(found):
        return found is not None and len(found[0]) == 1

    def shifted(name):
        """(x, axis, nodes) when `name` is Sub(x, max(x, axis)), else None."""
        sub = flow.made_by(name, "Sub")
        found = flow.reduction(sub.input[1], "ReduceMax", sub.input[0], guard=reduction_behind_nan_guard) \
            if sub is not None else None
        return (sub.input[0], found[0][0], found[1] + [sub]) if one_axis(found) else None

    def match(node):
        """(op, x, axis, the nodes it replaces) or None."""
        if node.op_type == "Div" and len(node.input) == 2:
            exp = flow.made_by(node.input[0], "Exp")
            if exp is None or not flow.private(exp.output[0], 2) or not flow.private(exp.input[0]):
                return None
            inner, total = shifted(exp.input[0]), flow.reduction(node.input[1], "ReduceSum", exp.output[0])
            if inner is not None and one_axis(total) and inner[1] == total[0][0]:
                return "Softmax", inner[0], inner[1], inner[2] + [exp] + total[1]
        if node.op_type == "Sub" and len(node.input) == 2 and flow.private(node.input[0], 2):
            exp, inner = exp_of.get(node.input[0]), shifted(node.input[0])
            if exp is None or inner is None or not flow.private(exp.output[0]):
                return None
            # The Log may sit on either side of the view that keeps the axis.
            total = flow.reduction(node.input[1], "ReduceSum", exp.output[0], ("Reshape", "Identity", "Log"))
            logs = [n.op_type for n in total[1]].count("Log") if total is not None else 0
            if one_axis(total) and total[0][0] == inner[1] and logs == 1:
                return "LogSoftmax", inner[0], inner[1], inner[2] + [exp] + total[1]
        return None

    dead = set()
    for i, node in enumerate(nodes):
        found = match(node)
        if found is not None:
            op, x, axis, replaced = found
            nodes[i] = helper.make_node(op, [x], [node.output[0]], name=_named(b, op, node.output[0]), axis=axis)
            dead.update(id(n) for n in replaced)
    nodes[:] = [n for n in nodes if id(n) not in dead]


def _layer_norm(b: OnnxBuilder, keep: set, constants: dict, shapes: dict) -> None:
    """nn.LayerNorm's normalisation as ONNX's LayerNormalization (opset 17):

        c = x - mean(x, axes); y = c * Reciprocal(Sqrt(mean(c * c, axes) + eps))
        -> LayerNormalization(x, ones, zeros, axis=axes[0], epsilon=eps)

    for axes that run to the last one; a following Mul by gamma and Add of beta of the
    normalised shape become its scale and bias (an ensemble's stacked gamma and beta stay
    apart; a member's slice of them, or a gamma computed in the graph, is an input like any
    other: the node takes the place of the last node it replaces, after its operands).
    onnxruntime computes it in one node instead of nine, as accurately as the two passes
    (rows of mean 3000: 3.4e-4 from float64, XLA's 5.2e-4); a LayerNorm-Dense-GELU-Dense block
    at batch 1 ran ~7% longer as nodes."""
    nodes = b.nodes
    flow = Dataflow(nodes, keep, constants, shapes)

    def normalised(node):
        """(x, axis, epsilon, its dtype, the nodes it replaces) when `node` (a Mul) is
        c * rsqrt(var + eps)."""
        c = node.input[0]
        centered = flow.made_by(c, "Sub")
        recip = flow.made_by(node.input[1], "Reciprocal")
        sqrt = flow.made_by(recip.input[0], "Sqrt") if recip is not None else None
        add = flow.made_by(sqrt.input[0], "Add") if sqrt is not None else None
        square = next((n for n in flow.readers.get(c, []) if n.op_type == "Mul" and list(n.input) == [c, c]), None)
        if centered is None or add is None or square is None or flow.uses.get(c) != 3 or c in keep \
                or not all(flow.private(v.output[0]) for v in (recip, sqrt, add, square)):
            return None
        x, eps = centered.input[0], scalar_value(constants.get(add.input[1]))
        mean, var = flow.mean(centered.input[1], x), flow.mean(add.input[0], square.output[0])
        shape = shapes.get(x)
        # The mean and the variance must be read by the pattern only (ops.LayerNorm returns them).
        if eps is None or mean is None or var is None or mean[0] != var[0] or not flow.private(add.input[0]) \
                or not flow.private(centered.input[1]) or mean[0] != list(range(mean[0][0], len(shape))):
            return None
        dtype = helper.tensor_dtype_to_np_dtype(constants[add.input[1]].data_type)
        return x, mean[0][0], eps, dtype, [centered, square, add, sqrt, recip] + mean[1] + var[1]

    def affine(name, op, normalized_shape):
        """(the node, its other operand) when `name`'s one reader is `op` with an operand of
        `normalized_shape`, else (None, None)."""
        node = flow.only_reader(name, op)
        other = (node.input[1] if node.input[0] == name else node.input[0]) if node is not None else None
        if other is None or shapes.get(other) != normalized_shape:
            return None, None
        return node, other

    dead, placed = set(), {}
    for node in nodes:
        found = normalised(node) if node.op_type == "Mul" and len(node.input) == 2 else None
        if found is None:
            continue
        x, axis, eps, dtype, replaced = found
        normalized_shape = tuple(shapes[x][axis:])
        if -1 in normalized_shape:
            continue
        last, scale, bias, replaced = node, None, None, replaced + [node]
        mul, gamma = affine(node.output[0], "Mul", normalized_shape)
        if mul is not None:
            last, scale, replaced = mul, gamma, replaced + [mul]
            add, beta = affine(mul.output[0], "Add", normalized_shape)
            if add is not None:
                last, bias, replaced = add, beta, replaced + [add]
        scale = scale or b.const(np.ones(normalized_shape, dtype))
        bias = bias or b.const(np.zeros(normalized_shape, dtype))
        out = last.output[0]
        placed[id(last)] = helper.make_node("LayerNormalization", [x, scale, bias], [out],
                                            name=_named(b, "LayerNormalization", out), axis=axis, epsilon=eps)
        dead.update(id(n) for n in replaced)
    nodes[:] = [placed.get(id(n), n) for n in nodes if id(n) not in dead or id(n) in placed]


_ATTENTION_TYPES = (onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16)


def _attention(b: OnnxBuilder, keep: set, constants: dict, shapes: dict, types: dict) -> None:
    """Scaled dot-product attention as ONNX's Attention (opset 23):

        Softmax(Q @ K^T * s [+ mask], axis=-1) @ V     (Q, K, V: [B, H, S, d]; s by Mul or Div,
        -> Attention(Q, K, V[, mask], scale=s)           on the scores or on Q; none: s = 1)

    and where Q, K and V are [B, S, H*d] values split into heads (a Reshape to [B, S, H, d],
    a Transpose (0, 2, 1, 3)) and the result goes back the same way, Attention over the 3-D
    values with q_num_heads = kv_num_heads = H, which leaves no transpose at all.
    onnxruntime runs it as one kernel (a pre-norm encoder block over 16 tokens, batch 32 and
    256: about 20% faster than the nodes, whose K transpose (0, 2, 3, 1) alone took 14%).
    Float32 and float16 (onnxruntime's CPU kernels; none for bfloat16), and only where no
    other node reads the scores or the probabilities (a training step's backward pass does:
    left as it is), and K^T comes from Transposes (which go): where another node makes it (an
    ensemble over a shared input splits all members' heads at once, then Splits them), K
    would need a Transpose back, and onnxruntime, which folds K^T's transpose into its MatMul,
    ran the nodes faster (4 self-attention members, batch 32: 3.9 vs 4.7 ms)."""
    if b.opset < 23:
        return
    nodes = b.nodes
    flow = Dataflow(nodes, keep, constants, shapes)

    def transposes(name):
        """(source, perm, nodes) when `name` is `source` through a chain of Transposes, each
        read once (perm composed), else (name, None, [])."""
        perm, chain, node = None, [], flow.made_by(name, "Transpose")
        while node is not None and flow.private(node.output[0]):
            rank = len(shapes.get(node.input[0]) or ())
            inner = list(ints_attr(node, "perm") or reversed(range(rank)))
            perm = inner if perm is None else [inner[i] for i in perm]
            chain.append(node)
            name, node = node.input[0], flow.made_by(node.input[0], "Transpose")
        return name, perm, chain

    def scaled(name, scale=1.0):
        """(unscaled value, scale, the Mul or Div) when `name` is a value times or divided
        by a scalar constant (read once), else (name, scale, None)."""
        node = flow.producer.get(name)
        if node is None or node.op_type not in ("Mul", "Div") or not flow.private(name):
            return name, scale, None
        for value, factor in ((node.input[0], node.input[1]), (node.input[1], node.input[0])):
            c = scalar_value(constants.get(factor))
            if c is not None and (node.op_type == "Mul" or factor == node.input[1]) and c != 0:
                return value, scale * (c if node.op_type == "Mul" else 1.0 / c), node
        return name, scale, None

    def heads(name, perm, chain):
        """(x, H, the Reshape) when the Transpose chain of `name` is (0, 2, 1, 3) of a Reshape
        (read once) of a [B, S, H*d] value x to [B, S, H, d], else None."""
        view = flow.made_by(name, "Reshape")
        x = view.input[0] if view is not None else None
        split, merged = shapes.get(name), shapes.get(x)
        if perm != [0, 2, 1, 3] or not chain or not flow.private(name) or split is None or merged is None \
                or len(merged) != 3 or merged != (split[0], split[1], split[2] * split[3]):
            return None
        return x, split[2], view

    def product(scores):
        """(the Q @ K^T MatMul, Q, scale, the nodes from it to `scores`) when `scores` is that
        product, scaled on the scores or on Q, else None."""
        unscaled, scale, by = scaled(scores)
        qk = flow.made_by(unscaled, "MatMul")
        if qk is None or not flow.private(unscaled):
            return None
        q, scale, by_q = scaled(qk.input[0], scale)
        return qk, q, scale, [n for n in (by, by_q, qk) if n is not None]

    def match(node):
        """(Q, (K's source, perm, Transposes), V, mask, scale, the nodes it replaces) when
        `node` (a MatMul) is Softmax(...) @ V, else None."""
        soft = flow.made_by(node.input[0], "Softmax")
        axis = ints_attr(soft, "axis", single=True) if soft is not None else None
        if soft is None or not flow.private(soft.output[0]) or not flow.private(soft.input[0]) \
                or len(shapes.get(soft.input[0]) or ()) != 4 or axis not in (3, -1, None):
            return None
        found, mask = product(soft.input[0]), None
        add = flow.made_by(soft.input[0], "Add")
        if add is not None:   # an additive mask, on either side
            for scores, other in ((add.input[0], add.input[1]), (add.input[1], add.input[0])):
                found = product(scores)
                if found is not None and len(shapes.get(other) or (0,) * 5) <= 4 \
                        and types.get(other) == types.get(found[1]):
                    mask, found = other, found[:3] + (found[3] + [add],)
                    break
                found = None
        if found is None:
            return None
        qk, q, scale, replaced = found
        q4, k4t, v4 = shapes.get(q), shapes.get(qk.input[1]), shapes.get(node.input[1])
        if types.get(q) not in _ATTENTION_TYPES or any(s is None or len(s) != 4 for s in (q4, k4t, v4)) \
                or not (q4[:2] == k4t[:2] == v4[:2] and q4[3] == k4t[2] and k4t[3] == v4[2]) \
                or shapes.get(soft.input[0]) != (*q4[:3], k4t[3]):   # (a mask may broadcast wider)
            return None
        k_source, k_perm, k_chain = transposes(qk.input[1])
        if not k_chain:   # K^T made by another node (see the docstring)
            return None
        k_perm = k_perm[:2] + [k_perm[3], k_perm[2]]   # K itself, before its last two axes swap
        return q, (k_source, k_perm, k_chain), node.input[1], mask, scale, replaced + [soft] + k_chain

    dead, inserted, expanded, wide_masks = set(), {}, {}, {}

    def full_query_rows(mask, q_len):
        """The mask with one row per query. ONNX lets the mask broadcast, but onnxruntime's
        Attention kernels (opsets 23 and 24; 1.32) do not broadcast its query axis (its -2):
        a key padding mask [B, 1, 1, S] failed with "inconsistent q_sequence_length". An
        Expand to q_len rows (once per mask), or None (no fusion) where q_len is dynamic."""
        m_shape = shapes.get(mask)
        if m_shape is None or len(m_shape) < 2 or m_shape[-2] == q_len:
            return mask
        if not isinstance(q_len, int):
            return None
        if mask not in wide_masks:
            wide = b.unique((mask.rpartition(":")[0] or mask) + "/rows")
            rows = b.ints([1] * (len(m_shape) - 2) + [q_len, 1])
            expanded.setdefault(i, []).append(helper.make_node("Expand", [mask, rows], [wide],
                                                               name=_named(b, "Expand", mask)))
            wide_masks[mask] = wide
        return wide_masks[mask]

    for i, node in enumerate(nodes):
        found = match(node) if node.op_type == "MatMul" else None
        if found is None:
            continue
        q, (k_source, k_perm, k_chain), v, mask, scale, replaced = found
        if mask is not None:
            mask = full_query_rows(mask, shapes.get(q)[2])
            if mask is None:
                continue
        out, attrs = node.output[0], {"scale": float(scale)}
        # The 3-D form: every operand a split into heads, the result merged back.
        back = flow.only_reader(out, "Transpose")
        merge = flow.only_reader(back.output[0], "Reshape") if back is not None else None
        q_walk, v_walk = transposes(q), transposes(v)
        split = [heads(*q_walk), heads(k_source, k_perm, k_chain), heads(*v_walk)]
        o4 = shapes.get(out)
        if merge is not None and all(split) and ints_attr(back, "perm") == [0, 2, 1, 3] and o4 is not None \
                and shapes.get(merge.output[0]) == (o4[0], o4[2], o4[1] * o4[3]) and split[0][1] == split[1][1]:
            operands = [x for x, _, _ in split]
            replaced += [view for _, _, view in split] + q_walk[2] + v_walk[2] + [back, merge]
            out, attrs = merge.output[0], dict(attrs, q_num_heads=split[0][1], kv_num_heads=split[1][1])
        else:
            k = k_source
            if k_perm != [0, 1, 2, 3]:
                k = b.unique(k_source + "/heads")
                inserted[i] = helper.make_node("Transpose", [k_source], [k], name=_named(b, "Transpose", k_source),
                                               perm=k_perm)
            operands = [q, k, v]
        if mask is not None:
            operands.append(mask)
        nodes[i] = helper.make_node("Attention", operands, [out], name=b.node_name("Attention", value_scope(node.name)),
                                    **attrs)
        dead.update(id(n) for n in replaced)
    nodes[:] = [m for i, n in enumerate(nodes) if id(n) not in dead
                for m in [*expanded.get(i, ()), *([inserted[i]] if i in inserted else []), n]]

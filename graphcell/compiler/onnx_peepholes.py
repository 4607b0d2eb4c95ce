"""Peepholes on the lowered ONNX nodes, run by `onnx.lower` after the primitives' rules.

onnxruntime runs every node it is given: a Reshape between a Conv and its ReLU costs a copy
and blocks the Conv+Relu fusion, a duplicated pool runs twice. These rewrites work on the node
list with the shapes the IR gave (`shapes`: ONNX name -> Reshape-target form, -1 for the one
dynamic dimension), never remove a value named in `keep` (the graph's outputs), and leave
everything else to onnxruntime's own optimisations.
"""
from __future__ import annotations

import numpy as np
import onnx
from onnx import helper, numpy_helper

from .onnx import SUBGRAPH_OPS, OnnxBuilder, rename, subgraphs


def run(b: OnnxBuilder, keep: set, shapes: dict, types: dict) -> None:
    """Every peephole, in the order that lets each see the previous ones' results
    (`types`: ONNX name -> element type, for the values the IR names)."""
    constants = lambda: {t.name: t for t in b.initializers}  # noqa: E731  (the peepholes add some)
    # Chains first, so that an op after several views sees the value they view.
    _merge_reshape_chains(b.nodes, keep, constants(), shapes)
    _merge_duplicates(b.nodes, keep)
    _member_slices_to_split(b, keep, constants(), shapes)
    _share_max_pools(b.nodes, keep)
    _elementwise_before_reshape(b, keep, shapes)
    _bias_into_conv(b, keep, shapes)
    _layer_norm(b, keep, constants(), shapes)
    _means(b, keep, constants(), shapes)
    _softmax(b, keep, constants(), shapes)
    _attention(b, keep, constants(), shapes, types)
    _merge_reshape_chains(b.nodes, keep, constants(), shapes)


class _Dataflow:
    """Who makes and who reads each value of a node list, for the pattern peepholes below."""

    def __init__(self, nodes: list, keep: set, constants: dict, shapes: dict):
        self.uses = _use_counts(nodes)
        self.producer = {o: n for n in nodes for o in n.output}
        self.readers: dict[str, list] = {}
        for n in nodes:
            for name in set(n.input):
                self.readers.setdefault(name, []).append(n)
        self.keep, self.constants, self.shapes = keep, constants, shapes
        self.ints = _int_reader(constants)

    def made_by(self, name: str, op: str):
        node = self.producer.get(name)
        return node if node is not None and node.op_type == op else None

    def private(self, name: str, readers: int = 1) -> bool:
        """Whether `name` is read exactly `readers` times and is no graph output."""
        return self.uses.get(name) == readers and name not in self.keep

    def only_reader(self, name: str, op: str):
        """The one node reading `name` (once, no graph output) when it is an `op`, else None."""
        found = self.readers.get(name, [])
        ok = len(found) == 1 and found[0].op_type == op and self.private(name)
        return found[0] if ok else None

    def reduction(self, name: str, op: str, x: str, through=("Reshape", "Identity")):
        """(axes, nodes) when `name` is `op` of `x` over some axes, viewed with those axes
        kept (through Reshapes and Identities, or the ops `through` names, each read once),
        else None."""
        chain, node = [], self.producer.get(name)
        while node is not None and node.op_type in through and self.private(node.output[0]):
            chain.append(node)
            node = self.producer.get(node.input[0])
        shape = self.shapes.get(x)
        if (node is None or node.op_type != op or node.input[0] != x or len(node.input) != 2 or shape is None
                or not self.private(node.output[0]) or not self.ints(node.input[1])):
            return None
        axes = sorted({a % len(shape) for a in self.ints(node.input[1])})
        if self.shapes.get(name) != tuple(1 if i in axes else d for i, d in enumerate(shape)):
            return None
        return axes, chain + [node]

    def mean(self, name: str, x: str):
        """(axes, nodes) when `name` is the mean of `x` over static axes as functional.mean
        writes it (a sum kept as axes of one, divided by the count), else None."""
        div = self.made_by(name, "Div")
        found = self.reduction(div.input[0], "ReduceSum", x) if div is not None else None
        if found is None or not self.private(div.input[0]):
            return None
        dims = [self.shapes[x][a] for a in found[0]]
        if -1 in dims or _scalar(self.constants.get(div.input[1])) != float(np.prod(dims)):
            return None
        return found[0], found[1] + [div]


# Elementwise ops that commute with a Reshape (a binary one when its other operand broadcasts
# along the Reshape's split axes).
_UNARY = {"Relu", "LeakyRelu", "Sigmoid", "Tanh", "Neg", "Abs", "Exp", "Log", "Sqrt", "Erf", "Elu", "Softplus"}
_BINARY = {"Mul", "Add", "Sub", "Div"}


def _axis_groups(merged: tuple, split: tuple) -> list | None:
    """How a Reshape from `merged` to `split` splits axes: for each axis of `merged`, the
    slice of `split` axes it becomes (their product is its size; -1, a dynamic dimension,
    only as itself), or None when the Reshape does more than split axes."""
    groups, k = [], 0
    for size in merged:
        start = k
        if k >= len(split):
            return None
        if size == -1 or split[k] == -1:
            if size != split[k]:
                return None
            k += 1
        else:
            product, k = split[k], k + 1
            while product < size and k < len(split) and split[k] != -1:
                product, k = product * split[k], k + 1
            if product != size:
                return None
        groups.append(slice(start, k))
    return groups if k == len(split) else None


def _elementwise_before_reshape(b: OnnxBuilder, keep: set, shapes: dict) -> None:
    """Rewrites Reshape -> elementwise op into op -> Reshape where nothing else reads the
    Reshape, so the op meets what produced the Reshape's input: a unary op (`_UNARY`) always,
    a binary one (`_BINARY`) when its other operand broadcasts along the Reshape's split axes
    (that operand is reshaped to match; a constant expression when it is one, which
    onnxruntime folds at session creation). An ensemble's wide or grouped Conv is viewed as
    [B, N, C, H, W] for the members' BatchNorm scales and biases and for the ReLU; moved above
    the view they meet the Conv, and onnxruntime folds and fuses them into it, as it does for
    each member's Conv in the per-member form. An op moved above one view may meet another."""
    nodes = b.nodes
    uses = _use_counts(nodes)
    producer = {o: n for n in nodes for o in n.output}

    def single_use_view(name):
        view = producer.get(name)
        ok = view is not None and view.op_type == "Reshape" and uses.get(name) == 1 and name not in keep
        return view if ok else None

    def crossing(node):
        """(side, view, other operand, its shape against the unsplit value) or None."""
        if node.op_type in _UNARY and len(node.input) == 1:
            view = single_use_view(node.input[0])
            return (0, view, None, None) if view is not None else None
        if node.op_type not in _BINARY or len(node.input) != 2:
            return None
        for side in (0, 1):
            view, other = single_use_view(node.input[side]), node.input[1 - side]
            if view is not None:
                small = _merged_operand_shape(shapes.get(view.input[0]), shapes.get(node.input[side]),
                                              shapes.get(other))
                return (side, view, other, small) if small is not None else None
        return None

    out, dead = [], set()
    for node in nodes:
        operands, views = [], []   # emitted before / after the moved op
        step = crossing(node)
        while step is not None:
            side, view, other, small = step
            moved = b.unique(node.output[0] + "/before_reshape")
            view_copy = onnx.NodeProto()
            view_copy.CopyFrom(view)
            view_copy.input[0], view_copy.output[:] = moved, [node.output[0]]
            op = onnx.NodeProto()
            op.CopyFrom(node)
            op.input[side], op.output[:] = view.input[0], [moved]
            if other is not None:
                reshaped = b.unique(f"{other}/merged")
                operands.append(helper.make_node("Reshape", [other, b.ints(small)], [reshaped], name=reshaped))
                op.input[1 - side] = reshaped
                shapes[reshaped] = tuple(small)
            if view.input[0] in shapes:
                shapes[moved] = shapes[view.input[0]]
            dead.add(id(view))
            views.insert(0, view_copy)
            producer[moved], producer[node.output[0]], uses[moved] = op, view_copy, 1
            node = op
            step = crossing(node)
        out += operands + [node] + views
    nodes[:] = [n for n in out if id(n) not in dead]


_NONDETERMINISTIC = {"RandomUniform", "RandomNormal", "RandomUniformLike", "RandomNormalLike", "Multinomial",
                     "Bernoulli"}


def _merge_duplicates(nodes: list, keep: set) -> None:
    """One node per (op, inputs, attributes): a training step traces its forward twice (for
    the loss and inside grad), and a max-pool gradient pads its input as the forward pool
    did; merged, the two pools meet in `_share_max_pools`. Nodes with subgraphs, random ops
    and nodes writing graph outputs stay."""
    seen, renames, out = {}, {}, []
    for node in nodes:
        if renames and any(i in renames for i in node.input):
            node.input[:] = [renames.get(i, i) for i in node.input]
        mergeable = (node.op_type not in _NONDETERMINISTIC and node.op_type not in SUBGRAPH_OPS
                     and not any(o in keep for o in node.output))
        if not mergeable:
            out.append(node)
            continue
        key = (node.domain, node.op_type, tuple(node.input), len(node.output), _attrs_key(node))
        first = seen.setdefault(key, node)
        if first is node:
            out.append(node)
        else:
            renames.update(zip(node.output, first.output))
    if renames:
        nodes[:] = out
        rename(nodes, renames)   # subgraphs read outer values by name too


def _member_slices_to_split(b: OnnxBuilder, keep: set, constants: dict, shapes: dict) -> None:
    """Every member's Slice of a stacked value, each followed by the Reshape that drops the
    sliced axis (how the vmap pass hands each member its weights and its part of a shared
    activation), becomes one Reshape merging that axis with the next and one Split into the
    members' values. For N=16 LeNet5 members, 290 such nodes became 14: onnxruntime
    constant-folds the weights' slices at session creation, ~0.1 ms a node (the session's
    creation 51-64 -> 23-48 ms), and runs the activations' ones at every call."""
    nodes = b.nodes
    flow = _Dataflow(nodes, keep, constants, shapes)
    ints = flow.ints
    groups: dict[tuple, dict[int, list]] = {}   # (data, axis) -> member -> [(slice, reshape)]
    for node in nodes:
        member = _member_slice(node, ints, shapes)
        view = flow.only_reader(node.output[0], "Reshape") if member is not None else None
        if view is None:
            continue
        data, axis, index = member
        squeezed = shapes[data][:axis] + shapes[data][axis + 1:]
        if ints(view.input[1]) != squeezed:
            continue
        groups.setdefault((data, axis), {}).setdefault(index, []).append((node, view))
    position = {id(n): i for i, n in enumerate(nodes)}
    dead, renames, splits = set(), {}, {}
    for (data, axis), members in groups.items():
        shape = shapes[data]
        if len(members) != shape[axis] or any(o.output[0] in keep for pairs in members.values()
                                             for _, o in pairs[1:]):
            continue   # a member without its slice: the Split would compute values nobody reads
        merged = list(shape[:axis]) + [-1 if shape[axis + 1] == -1 else shape[axis] * shape[axis + 1]]
        merged += shape[axis + 2:]
        flat = b.unique(f"{data}/members")
        outputs = [members[i][0][1].output[0] for i in range(shape[axis])]
        count = {"num_outputs": shape[axis]} if b.opset >= 18 else {}   # opset 17 splits by outputs
        first = min((s for pairs in members.values() for s, _ in pairs), key=lambda s: position[id(s)])
        splits[id(first)] = [helper.make_node("Reshape", [data, b.ints(merged)], [flat], name=flat),
                             helper.make_node("Split", [flat], outputs, name=b.unique(f"{data}/Split"),
                                              axis=axis, **count)]
        shapes[flat] = tuple(merged)
        for i, pairs in members.items():
            dead.update(id(n) for pair in pairs for n in pair)
            renames.update((view.output[0], outputs[i]) for _, view in pairs[1:])   # duplicate slices
    if not splits:
        return
    out = []
    for node in nodes:
        out += splits.get(id(node), [])
        if id(node) not in dead:
            out.append(node)
    nodes[:] = out
    rename(nodes, renames)


def _member_slice(node, ints, shapes: dict) -> tuple | None:
    """(data, axis, index) for a Slice taking one index of one axis, from a value of known
    shape whose next axis exists (so the two can merge), else None. `ints(name)`: a constant's
    int64 values, or None."""
    if node.op_type != "Slice" or not 3 <= len(node.input) <= 5 or shapes.get(node.input[0]) is None:
        return None
    starts, ends = ints(node.input[1]), ints(node.input[2])
    axes = ints(node.input[3]) if len(node.input) > 3 and node.input[3] else (0,)
    steps = ints(node.input[4]) if len(node.input) > 4 and node.input[4] else (1,)
    shape = shapes[node.input[0]]
    if starts is None or ends is None or axes is None or steps != (1,) or len(starts) != 1 or len(axes) != 1:
        return None
    axis = axes[0] + len(shape) if axes[0] < 0 else axes[0]
    index = starts[0]
    if 0 in shape or not (0 <= axis < len(shape) - 1 and shape[axis] > 0 and 0 <= index < shape[axis]
                          and ends[0] == index + 1):   # (a 0 in a Reshape target copies a dimension)
        return None
    return node.input[0], axis, index


def _int_reader(constants: dict):
    """`ints(name)`: an int64 constant's values as a tuple (None for anything else), each
    constant converted once."""
    memo: dict = {}

    def ints(name: str) -> tuple | None:
        if name not in memo:
            tensor = constants.get(name)
            memo[name] = (tuple(numpy_helper.to_array(tensor).reshape(-1).tolist())
                          if tensor is not None and tensor.data_type == onnx.TensorProto.INT64 else None)
        return memo[name]
    return ints


def _share_max_pools(nodes: list, keep: set) -> None:
    """One MaxPool where a training step has two of one input: the forward pass's (values)
    and an overlapping window's gradient (values and Indices, see onnx_rules.
    reduce_window_max_grad). The two-output node moves up to the first one's place and serves
    both (after `_merge_duplicates`, which leaves no two equal nodes)."""
    values: dict = {}
    renames, dead = {}, set()   # dead: positions
    for i, node in enumerate(list(nodes)):
        if node.op_type != "MaxPool" or node.output[0] in keep:
            continue
        key = (node.input[0], _attrs_key(node))
        if len(node.output) == 1:
            values.setdefault(key, i)
        elif key in values:
            j = values.pop(key)
            renames[nodes[j].output[0]] = node.output[0]
            nodes[j] = node
            dead.add(i)
    nodes[:] = [n for i, n in enumerate(nodes) if i not in dead]
    rename(nodes, renames)


def _attrs_key(node) -> tuple:
    return tuple(a.SerializeToString() for a in sorted(node.attribute, key=lambda a: a.name))


def _bias_into_conv(b: OnnxBuilder, keep: set, shapes: dict) -> None:
    """Add(Conv(x, w), bias) becomes Conv(x, w, bias) where the Conv has no bias and no other
    use and the bias is one value per output channel ([1, C, 1...] or [C, 1...]): a vmapped
    ensemble's wide convolution meets its members' biases only after `_elementwise_before_reshape`
    moved their Add above the [B, N, C, H, W] view, so the bias fusion table never saw them."""
    nodes = b.nodes
    uses = _use_counts(nodes)
    producer = {o: n for n in nodes for o in n.output}
    out, dead = [], set()
    for node in nodes:
        conv = bias = None
        if node.op_type == "Add" and len(node.input) == 2:
            for k in (0, 1):
                candidate = producer.get(node.input[k])
                if (candidate is not None and candidate.op_type == "Conv" and len(candidate.input) == 2
                        and uses.get(node.input[k]) == 1 and node.input[k] not in keep):
                    conv, bias = candidate, node.input[1 - k]
                    break
        out_shape, bias_shape = (shapes.get(conv.output[0]), shapes.get(bias)) if conv is not None else (None, None)
        if out_shape is None or bias_shape is None or not _per_channel(bias_shape, out_shape):
            out.append(node)
            continue
        channels = out_shape[1]
        flat = b.unique(f"{bias}/per_channel")
        fused = onnx.NodeProto()
        fused.CopyFrom(conv)
        fused.input.append(flat)
        fused.output[:] = [node.output[0]]
        out += [helper.make_node("Reshape", [bias, b.ints([channels])], [flat], name=flat), fused]
        dead.add(id(conv))
    nodes[:] = [n for n in out if id(n) not in dead]


def _means(b: OnnxBuilder, keep: set, constants: dict, shapes: dict) -> None:
    """functional.mean, Div(ReduceSum(x, axes), count) (with keep_dims, a Reshape that keeps
    the axes sits before or after the Div), becomes one node over static axes: GlobalAveragePool (then
    Flatten without keep_dims) where x is [B, C, spatial...] and every spatial axis is averaged
    (a network's global pool, `ops.mean(x, (2, 3))`), ReduceMean otherwise. onnxruntime runs
    GlobalAveragePool in the blocked (NCHWc) layout of the convolutions before it, so the last
    activation is not reordered back to NCHW to be summed (small ResNet ensemble, N=4: batch 32
    35.0 -> 29.5-31.4 ms, batch 256 209-228 -> 188-200 ms)."""
    nodes = b.nodes
    flow = _Dataflow(nodes, keep, constants, shapes)

    def divisor(name):
        """A scalar constant's value, also through the Reshape `_elementwise_before_reshape`
        gives the operand of a Div it moved above a view."""
        view = flow.made_by(name, "Reshape")
        return _scalar(constants.get(view.input[0] if view is not None else name))

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
        keepdims = next((a.i for a in node.attribute if a.name == "keepdims"), 1)
        # Sum, [view,] Div; or Sum, Div, view (`_elementwise_before_reshape` moved the Div up).
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
        if len(x) < 3 or axes != list(range(2, len(x))):
            operands = [node.input[0]] + ([b.ints(axes)] if b.opset >= 18 else [])
            attrs = {} if b.opset >= 18 else {"axes": axes}
            nodes[i] = helper.make_node("ReduceMean", operands, [out], name=out, keepdims=keepdims, **attrs)
            continue
        pooled = out if keepdims else b.unique(node.output[0] + "/global_pool")
        nodes[i] = helper.make_node("GlobalAveragePool", [node.input[0]], [pooled], name=pooled)
        if not keepdims:   # the Div's place: Flatten to [B, C]
            flatten = helper.make_node("Flatten", [pooled], [out], name=out, axis=1)
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
    nodes = b.nodes
    flow = _Dataflow(nodes, keep, constants, shapes)
    exp_of = {n.input[0]: n for n in nodes if n.op_type == "Exp"}

    def one_axis(found):
        return found is not None and len(found[0]) == 1

    def shifted(name):
        """(x, axis, nodes) when `name` is Sub(x, max(x, axis)), else None."""
        sub = flow.made_by(name, "Sub")
        found = flow.reduction(sub.input[1], "ReduceMax", sub.input[0]) if sub is not None else None
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
            nodes[i] = helper.make_node(op, [x], [node.output[0]], name=node.output[0], axis=axis)
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
    flow = _Dataflow(nodes, keep, constants, shapes)

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
        x, eps = centered.input[0], _scalar(constants.get(add.input[1]))
        mean, var = flow.mean(centered.input[1], x), flow.mean(add.input[0], square.output[0])
        shape = shapes.get(x)
        if eps is None or mean is None or var is None or mean[0] != var[0] \
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
        placed[id(last)] = helper.make_node("LayerNormalization", [x, scale, bias], [out], name=out,
                                            axis=axis, epsilon=eps)
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
    flow = _Dataflow(nodes, keep, constants, shapes)

    def transposes(name):
        """(source, perm, nodes) when `name` is `source` through a chain of Transposes, each
        read once (perm composed), else (name, None, [])."""
        perm, chain, node = None, [], flow.made_by(name, "Transpose")
        while node is not None and flow.private(node.output[0]):
            rank = len(shapes.get(node.input[0]) or ())
            inner = list(_ints_attr(node, "perm") or reversed(range(rank)))
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
            c = _scalar(constants.get(factor))
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
        axis = _ints_attr(soft, "axis", single=True) if soft is not None else None
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

    dead, inserted = set(), {}
    for i, node in enumerate(nodes):
        found = match(node) if node.op_type == "MatMul" else None
        if found is None:
            continue
        q, (k_source, k_perm, k_chain), v, mask, scale, replaced = found
        out, attrs = node.output[0], {"scale": float(scale)}
        # The 3-D form: every operand a split into heads, the result merged back.
        back = flow.only_reader(out, "Transpose")
        merge = flow.only_reader(back.output[0], "Reshape") if back is not None else None
        q_walk, v_walk = transposes(q), transposes(v)
        split = [heads(*q_walk), heads(k_source, k_perm, k_chain), heads(*v_walk)]
        o4 = shapes.get(out)
        if merge is not None and all(split) and _ints_attr(back, "perm") == [0, 2, 1, 3] and o4 is not None \
                and shapes.get(merge.output[0]) == (o4[0], o4[2], o4[1] * o4[3]) and split[0][1] == split[1][1]:
            operands = [x for x, _, _ in split]
            replaced += [view for _, _, view in split] + q_walk[2] + v_walk[2] + [back, merge]
            out, attrs = merge.output[0], dict(attrs, q_num_heads=split[0][1], kv_num_heads=split[1][1])
        else:
            k = k_source
            if k_perm != [0, 1, 2, 3]:
                k = b.unique(k_source + "/heads")
                inserted[i] = helper.make_node("Transpose", [k_source], [k], name=k, perm=k_perm)
            operands = [q, k, v]
        if mask is not None:
            operands.append(mask)
        nodes[i] = helper.make_node("Attention", operands, [out], name=out, **attrs)
        dead.update(id(n) for n in replaced)
    nodes[:] = [m for i, n in enumerate(nodes) if id(n) not in dead
                for m in ([inserted[i]] if i in inserted else []) + [n]]


def _ints_attr(node, name: str, single: bool = False):
    """A node's int or ints attribute (a list), or None when it has none."""
    for a in node.attribute:
        if a.name == name:
            return a.i if single else list(a.ints)
    return None


def _scalar(tensor) -> float | None:
    """A one-element floating-point constant's value, or None."""
    if tensor is None or tensor.data_type not in (onnx.TensorProto.FLOAT, onnx.TensorProto.DOUBLE,
                                                  onnx.TensorProto.FLOAT16):
        return None
    array = numpy_helper.to_array(tensor)
    return float(array.reshape(-1)[0]) if array.size == 1 else None


def _per_channel(bias: tuple, out: tuple) -> bool:
    """Whether `bias` broadcasts against a Conv output of shape `out` ([B, C, spatial...]) as
    one value per channel, adding no axis and no batch."""
    if len(out) < 3 or out[1] == -1 or len(bias) > len(out):
        return False
    aligned = (1,) * (len(out) - len(bias)) + tuple(bias)
    return aligned[0] == 1 and aligned[1] == out[1] and all(d == 1 for d in aligned[2:])


def _merged_operand_shape(merged, split, operand) -> list | None:
    """The shape that makes `operand` (broadcast against the `split` view of a `merged` value)
    broadcast the same way against the merged value itself, or None when there is none: along
    each group of split axes it must be all ones or the whole group."""
    if merged is None or split is None or operand is None or len(operand) > len(split) or -1 in operand:
        return None
    groups = _axis_groups(merged, split)
    if groups is None:
        return None
    aligned = (1,) * (len(split) - len(operand)) + tuple(operand)
    small = []
    for group in groups:
        dims = aligned[group]
        if all(d == 1 for d in dims):
            small.append(1)
        elif dims == split[group] and -1 not in dims:
            small.append(int(np.prod(dims)))
        else:
            return None
    return small


def _merge_reshape_chains(nodes: list, keep: set, constants: dict, shapes: dict) -> None:
    """Reshape(Reshape(x, s1), s2) becomes Reshape(x, s2) where the inner Reshape has no other
    use, and disappears when s2 is x's own shape (`shapes`): onnxruntime runs every Reshape it
    is given (a vmapped ensemble's Conv output is viewed as [B, N, C, H, W] for its ReLU and
    back as [B, N*C, H, W] for MaxPool: 8 Reshapes at batch 1 for LeNet5, none left; N=16,
    batch 1: 781 -> 701 us). Only when s2 is a constant whose entries do not depend on the
    inner Reshape's output (no 0, which ONNX reads as "copy the input's dimension", unless
    allowzero is set). Values named in `keep` (graph outputs) are never removed."""
    uses = _use_counts(nodes)
    producer = {o: n for n in nodes for o in n.output}
    targets = _int_reader(constants)
    dropped = set()
    for node in nodes:
        if node.op_type != "Reshape" or node.input[1] not in constants:
            continue
        allowzero = any(a.name == "allowzero" and a.i == 1 for a in node.attribute)
        if not allowzero and 0 in (targets(node.input[1]) or ()):
            continue
        inner = producer.get(node.input[0])
        if inner is None or inner.op_type != "Reshape" or uses.get(node.input[0]) != 1 or node.input[0] in keep:
            continue
        node.input[0] = inner.input[0]   # inner may itself have been a merged Reshape: fine
        dropped.add(id(inner))
    # A Reshape of a value to its own shape: its readers read the value.
    renames = {}
    for node in nodes:
        if (node.op_type == "Reshape" and id(node) not in dropped and node.output[0] not in keep
                and node.input[1] in constants and shapes.get(node.input[0]) is not None
                and targets(node.input[1]) == shapes[node.input[0]]):
            renames[node.output[0]] = node.input[0]
            dropped.add(id(node))
    nodes[:] = [n for n in nodes if id(n) not in dropped]
    rename(nodes, renames)   # subgraphs read outer values by name too


def _use_counts(nodes) -> dict:
    """How many times each name is read (by the nodes and their subgraphs)."""
    uses: dict[str, int] = {}
    for n in nodes:
        for name in _all_inputs(n):
            uses[name] = uses.get(name, 0) + 1
    return uses


def _all_inputs(node) -> list:
    """A node's inputs and the outer names its subgraphs read."""
    names = list(node.input)
    for g in subgraphs(node):
        for n in g.node:
            names += _all_inputs(n)
    return names

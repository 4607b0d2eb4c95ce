"""Peepholes on the lowered ONNX nodes, run by `onnx.lower` after the primitives' rules
(the fusions of several nodes into one op are `onnx_fusions`).

onnxruntime runs every node it is given: a Reshape between a Conv and its ReLU costs a copy
and blocks the Conv+Relu fusion, a duplicated pool runs twice. These rewrites work on the node
list with the shapes the IR gave (`shapes`: ONNX name -> Reshape-target form, -1 for the one
dynamic dimension), never remove a value named in `keep` (the graph's outputs), and leave
everything else to onnxruntime's own optimisations.
"""
from __future__ import annotations

import numpy as np
import onnx
from onnx import helper

from . import onnx_fusions
from .onnx import SUBGRAPH_OPS, OnnxBuilder, rename, value_scope
from .onnx_blocked import BLOCK
from .onnx_dataflow import Dataflow, int_reader, ints_attr, use_counts
from .onnx_dense_gemm import dense_bias_as_gemm
from .onnx_member_norms import fold_member_norms


def run(b: OnnxBuilder, keep: set, shapes: dict, types: dict, dims: dict | None = None) -> None:
    """Every peephole, in the order that lets each see the previous ones' results
    (`types`: ONNX name -> element type, for the values the IR names; `dims`: ONNX name ->
    (IR type, dims of ints and Syms), likewise)."""
    constants = lambda: {t.name: t for t in b.initializers}  # noqa: E731  (the peepholes add some)
    # Chains first, so that an op after several views sees the value they view.
    _merge_reshape_chains(b.nodes, keep, constants(), shapes)
    _merge_duplicates(b.nodes, keep)
    _member_slices_to_split(b, keep, constants(), shapes)
    _share_max_pools(b.nodes, keep)
    _elementwise_before_reshape(b, keep, shapes)
    _bias_into_conv(b, keep, shapes)
    onnx_fusions.fuse(b, keep, constants, shapes, types)
    dense_bias_as_gemm(b, keep, constants(), shapes, types, dims or {})   # after Attention took its MatMuls
    fold_member_norms(b, keep, constants(), shapes, types)   # into those Gemms
    _elementwise_before_reshape(b, keep, shapes, over_rows=True)   # over those Gemms' rows
    _merge_reshape_chains(b.nodes, keep, constants(), shapes)
    group_wide_convs(b, keep, constants(), shapes)


# Elementwise ops that commute with a Reshape (a binary one when its other operand broadcasts
# along the Reshape's split axes).
_UNARY = {"Relu", "LeakyRelu", "Sigmoid", "Tanh", "Neg", "Abs", "Exp", "Log", "Sqrt", "Erf", "Elu", "Softplus",
          "Shrink", "HardSigmoid", "HardSwish", "Softsign"}
_BINARY = {"Mul", "Add", "Sub", "Div"}


def _axis_groups(merged: tuple, split: tuple, split_dynamic: bool = False) -> list | None:
    """How a Reshape from `merged` to `split` splits axes: for each axis of `merged`, the
    slice of `split` axes it becomes (their product is its size), or None when the Reshape
    does more than split axes. A dynamic dimension (-1) becomes a -1 alone, or with
    `split_dynamic` a -1 and static axes beside it (rows [-1, 256] viewed as [-1, 16, 256]:
    the -1 is batch * 16)."""
    if -1 not in merged or not split_dynamic:
        found = _static_groups(merged, split, keep_dynamic=True)
        return found[0] if found is not None and found[1] == len(split) else None
    if merged.count(-1) != 1 or split.count(-1) != 1:
        return None
    i, j = merged.index(-1), split.index(-1)
    left = _static_groups(merged[:i], split[:j])
    right = _static_groups(merged[i + 1:][::-1], split[j + 1:][::-1])
    if left is None or right is None:
        return None
    n = len(split)
    tail = [slice(n - g.stop, n - g.start) for g in right[0]][::-1]
    return left[0] + [slice(left[1], n - right[1])] + tail


def _static_groups(merged: tuple, split: tuple, keep_dynamic: bool = False) -> tuple | None:
    """(groups, axes used): each static size of `merged` as the slice of the leading `split`
    axes whose product it is, or None where one is not; with `keep_dynamic`, a -1 of
    `merged` as a -1 of `split` alone."""
    groups, k = [], 0
    for size in merged:
        if keep_dynamic and size == -1 and k < len(split) and split[k] == -1:
            groups.append(slice(k, k + 1))
            k += 1
            continue
        if k >= len(split) or split[k] == -1 or size == -1:
            return None
        start, product, k = k, split[k], k + 1
        while product < size and k < len(split) and split[k] != -1:
            product, k = product * split[k], k + 1
        if product != size:
            return None
        groups.append(slice(start, k))
    return groups, k


def _elementwise_before_reshape(b: OnnxBuilder, keep: set, shapes: dict, over_rows: bool = False) -> None:
    """Rewrites Reshape -> elementwise op into op -> Reshape where nothing else reads the
    Reshape, so the op meets what produced the Reshape's input: a unary op (`_UNARY`) always,
    a binary one (`_BINARY`) when its other operand broadcasts along the Reshape's split axes
    (that operand is reshaped to match; a constant expression when it is one, which
    onnxruntime folds at session creation), or is the same view of a value of the same shape.
    An ensemble's wide or grouped Conv is viewed as [B, N, C, H, W] for the members' BatchNorm
    scales and biases and for the ReLU; moved above the view they meet the Conv, and
    onnxruntime folds and fuses them into it, as it does for each member's Conv in the
    per-member form. An op moved above one view may meet another.

    over_rows, for the call after `onnx_dense_gemm`, whose Dense layers over [B, S, K] are
    Gemms over rows [B*S, K] viewed back as [B, S, N]: also across a view that splits the
    dynamic axis ([-1, N] to [-1, S, N]), and across a view that several ops read when every
    one of them is elementwise (GELU reads its input twice; they cross one by one and the
    view goes). The GELU between two Dense layers then runs over the rows, and the views on
    either side cancel. Not in the first call: `onnx_fusions` reads its LayerNorm and softmax
    patterns through those views."""
    nodes = b.nodes
    uses = use_counts(nodes)
    producer = {o: n for n in nodes for o in n.output}
    readers: dict[str, list] = {}
    for n in nodes:
        for name in set(n.input):
            readers.setdefault(name, []).append(n.op_type)
    initializer_dims = {t.name: tuple(t.dims) for t in b.initializers}

    def movable_view(name):
        view = producer.get(name)
        if view is None or view.op_type != "Reshape" or name in keep:
            return None
        if uses.get(name) == 1:
            return view
        shared = over_rows and all(op in _UNARY or op in _BINARY for op in readers.get(name, ()))
        return view if shared else None

    def same_view(a, b_):
        """Two views with one target of values of one known shape."""
        return (a.input[1] == b_.input[1] and shapes.get(a.input[0]) is not None
                and shapes.get(a.input[0]) == shapes.get(b_.input[0]))

    def crossing(node):
        """(side, view, other operand, its shape against the unsplit value) or None; for two
        views alike, (side, view, the other view, None)."""
        if node.op_type in _UNARY and len(node.input) == 1:
            view = movable_view(node.input[0])
            return (0, view, None, None) if view is not None else None
        if node.op_type not in _BINARY or len(node.input) != 2:
            return None
        for side in (0, 1):
            view, other = movable_view(node.input[side]), node.input[1 - side]
            if view is not None:
                twin = movable_view(other) if over_rows else None
                if twin is not None and same_view(view, twin):
                    return (side, view, twin, None)
                operand = shapes.get(other, initializer_dims.get(other) if over_rows else None)
                small = _merged_operand_shape(shapes.get(view.input[0]), shapes.get(node.input[side]),
                                              operand, over_rows)
                if small is not None and over_rows and len(operand) <= len(small) and set(operand) <= {1}:
                    return (side, view, None, None)   # a scalar: it broadcasts against either shape
                return (side, view, other, small) if small is not None else None
        return None

    out, dead = [], set()

    def read_through(view, node, times: int) -> None:
        """The op moved above `view` reads the view's input instead of its output (`times`
        times): a view left unread goes; a shared one stays for its other readers, and its
        input has one reader more, which later crossings must count."""
        source, found = view.input[0], readers.setdefault(view.input[0], [])
        uses[view.output[0]] -= times
        if uses[view.output[0]] == 0:
            dead.add(id(view))
            if view.op_type in found:
                found.remove(view.op_type)   # the op takes the view's place
        else:
            uses[source] = uses.get(source, 0) + 1
        found.append(node.op_type)

    for node in nodes:
        operands, views = [], []   # emitted before / after the moved op
        step = crossing(node)
        while step is not None:
            side, view, other, small = step
            moved = b.unique(node.output[0] + "/before_reshape")
            view_copy = onnx.NodeProto()
            view_copy.CopyFrom(view)
            view_copy.input[0], view_copy.output[:] = moved, [node.output[0]]
            if uses[view.output[0]] > 1:   # a shared view's copies each need a name of their own
                view_copy.name = b.unique(view.name)
            op = onnx.NodeProto()
            op.CopyFrom(node)
            op.input[side], op.output[:] = view.input[0], [moved]
            if isinstance(other, onnx.NodeProto):   # the same view of the other operand
                op.input[1 - side] = other.input[0]
                for v in {id(view): view, id(other): other}.values():
                    read_through(v, node, 1 if node.input[0] != node.input[1] else 2)
                other = None
            else:
                read_through(view, node, 1)
            if other is not None:
                reshaped = b.unique(f"{other}/merged")
                operands.append(helper.make_node("Reshape", [other, b.ints(small)], [reshaped],
                                                  name=b.node_name("Reshape", value_scope(other))))
                op.input[1 - side] = reshaped
                shapes[reshaped] = tuple(small)
            if view.input[0] in shapes:
                shapes[moved] = shapes[view.input[0]]
            views.insert(0, view_copy)
            producer[moved], producer[node.output[0]], uses[moved] = op, view_copy, 1
            readers[moved] = [view_copy.op_type]
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
    flow = Dataflow(nodes, keep, constants, shapes)
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
        splits[id(first)] = [helper.make_node("Reshape", [data, b.ints(merged)], [flat],
                                              name=b.node_name("Reshape", value_scope(data))),
                             helper.make_node("Split", [flat], outputs, name=b.node_name("Split", value_scope(data)),
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
    moved their Add above the [B, N, C, H, W] view, so the bias fusion table never saw them.
    ConvTranspose likewise (its B input is the same per-output-channel bias): the transposed
    layers' bias adds, which the fusion table leaves alone, meet it only here."""
    nodes = b.nodes
    uses = use_counts(nodes)
    producer = {o: n for n in nodes for o in n.output}
    out, dead = [], set()
    for node in nodes:
        conv = bias = None
        if node.op_type == "Add" and len(node.input) == 2:
            for k in (0, 1):
                candidate = producer.get(node.input[k])
                if (candidate is not None and candidate.op_type in ("Conv", "ConvTranspose")
                        and len(candidate.input) == 2
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
        out += [helper.make_node("Reshape", [bias, b.ints([channels])], [flat],
                                 name=b.node_name("Reshape", value_scope(bias))), fused]
        dead.add(id(conv))
    nodes[:] = [n for n in out if id(n) not in dead]


def _per_channel(bias: tuple, out: tuple) -> bool:
    """Whether `bias` broadcasts against a Conv output of shape `out` ([B, C, spatial...]) as
    one value per channel, adding no axis and no batch."""
    if len(out) < 3 or out[1] == -1 or len(bias) > len(out):
        return False
    aligned = (1,) * (len(out) - len(bias)) + tuple(bias)
    return aligned[0] == 1 and aligned[1] == out[1] and all(d == 1 for d in aligned[2:])


def _merged_operand_shape(merged, split, operand, split_dynamic: bool = False) -> list | None:
    """The shape that makes `operand` (broadcast against the `split` view of a `merged` value)
    broadcast the same way against the merged value itself, or None when there is none: along
    each group of split axes it must be all ones or the whole group."""
    if merged is None or split is None or operand is None or len(operand) > len(split) or -1 in operand:
        return None
    groups = _axis_groups(merged, split, split_dynamic)
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
    uses = use_counts(nodes)
    producer = {o: n for n in nodes for o in n.output}
    targets = int_reader(constants)
    dropped = set()
    for node in nodes:
        if node.op_type != "Reshape" or node.input[1] not in constants:
            continue
        allowzero = ints_attr(node, "allowzero", single=True) == 1
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


# A wide convolution's members are computed in groups of about this many output channels:
# three of onnxruntime's 16-channel NCHWc blocks. One Conv over all N members' channels
# (LeNet5's conv1 at N=64: 384) writes an output far larger than the caches, which its
# activation, its pool, the reorder out of the blocked layout and the members' Split each read
# again; a group's output is N/G times smaller. LeNet5 ensembles in onnxruntime, groups of 8
# members (48 channels) against one Conv, ratio of medians (bench/RESULTS.md): N=64 batch 32
# 0.93-0.95, batch 64 0.84, batch 256 0.93-0.96; N=16 batch 32 0.80-0.99, batch 256 0.97-1.05.
# Hand-built files put groups of 16 members behind 8 and groups of 4 (24 channels) at 1.15x.
WIDE_GROUP_CHANNELS = 48
# Ops that act on each channel alone, so they commute with splitting the channels.
_PER_CHANNEL = {"Relu", "LeakyRelu", "Sigmoid", "Tanh", "Elu", "Softplus", "HardSigmoid", "HardSwish",
                "MaxPool", "AveragePool", "LpPool"}
# onnxruntime runs a pool in its blocked layout only over whole blocks of channels; over a
# partial last block (LeNet5's conv1 at N=4: 24 channels, 1.5 blocks) the Conv's output leaves
# the layout first, and the reorder reads the unpooled map, 4x the pooled one. A group whose
# chain pools gets zero-weight channels up to whole blocks, which its Split drops after the
# pool: the blocked Conv computed those channels anyway. LeNet5 N=4 (one group, 24 -> 32
# channels), hand-built files alternated with the unpadded one: batch 256 0.75-0.94, batch 32
# 0.80-0.82; per node, the reorder 1.74 -> 0.39 ms and the NCHW pool's 0.93 ms gone for a
# blocked one of 1.2 ms (bench/RESULTS.md).
_POOLS = {"MaxPool", "AveragePool", "LpPool"}


def group_wide_convs(b: OnnxBuilder, keep: set, constants: dict, shapes: dict) -> None:
    """A Conv (a vmapped ensemble's wide one over the shared input) whose output channels a
    Split hands to N members, through per-channel ops (activation, pool), becomes one such
    chain per group of members, each ending in its own Split (see WIDE_GROUP_CHANNELS), each
    padded to whole blocks when it pools (see _POOLS). Runs last: the graph's other rewrites
    (bias fusion, the members' Split) have shaped the pattern."""
    nodes = b.nodes
    flow = Dataflow(nodes, keep, constants, shapes)
    replaced, dead = {}, set()
    for split in nodes:
        found = _wide_conv_chain(split, flow, shapes)
        if found is None:
            continue
        conv, chain, members = found
        channels = shapes[conv.output[0]][1] // len(members)
        size = max(1, WIDE_GROUP_CHANNELS // channels)
        groups = [members[i:i + size] for i in range(0, len(members), size)]
        pools = any(op.op_type in _POOLS for op in chain)
        padding = [-len(g) * channels % BLOCK if pools else 0 for g in groups]
        if len(groups) == 1 and not padding[0]:
            continue
        replaced[id(split)] = _grouped_chains(b, conv, chain, groups, channels, padding,
                                                  len(shapes[conv.output[0]]))
        dead.update(id(n) for n in [conv, *chain])
    if replaced:
        nodes[:] = [m for n in nodes if id(n) not in dead for m in replaced.get(id(n), [n])]


def _wide_conv_chain(split, flow: Dataflow, shapes: dict):
    """(conv, chain, member outputs) when `split` splits a value's channels equally between
    its outputs and that value is a plain Conv's output through single-use per-channel ops,
    else None."""
    if split.op_type != "Split" or ints_attr(split, "axis", True, 0) != 1 or len(split.output) < 2:
        return None
    if len(split.input) > 1 and split.input[1]:   # explicit sizes: the members' equal shares only
        sizes = flow.ints(split.input[1])
        if sizes is None or len(set(sizes)) != 1:
            return None
    chain, value = [], split.input[0]
    node = flow.producer.get(value)
    while node is not None and node.op_type in _PER_CHANNEL and len(node.output) == 1 \
            and flow.private(node.output[0]):
        chain.insert(0, node)
        node = flow.producer.get(node.input[0])
    shape = shapes.get(node.output[0]) if node is not None else None
    if (node is None or node.op_type != "Conv" or not flow.private(node.output[0]) or shape is None
            or len(shape) < 3 or shape[1] == -1 or shape[1] % len(split.output)
            or ints_attr(node, "group", True, 1) != 1 or not all(node.input)
            or any(o in flow.keep for o in split.output)):
        return None
    return node, chain, list(split.output)


def _grouped_chains(b: OnnxBuilder, conv, chain: list, groups: list, channels: int, padding: list,
                    rank_of_weights: int) -> list:
    """The nodes computing `groups` (lists of member outputs) with one Conv, the `chain`'s
    ops and a Split per group; the weights (and bias) split by output channel, each group's
    padded with `padding[j]` zero channels, which its Split drops."""
    parts, out = [], []
    for k, operand in enumerate(conv.input[1:3], start=1):   # the weights, then the bias if any
        names = [operand]
        if len(groups) > 1:
            names = [b.unique(f"{operand}/group_{j}") for j in range(len(groups))]
            out.append(_split(b, operand, names, 0, [len(g) * channels for g in groups], f"{conv.name}/split_{k}"))
        for j, extra in enumerate(padding):
            if extra:
                padded = b.unique(f"{names[j]}/blocks")
                rank = 1 if k == 2 else rank_of_weights
                pads = [0] * (2 * rank)
                pads[rank] = extra   # zero output channels after the group's own
                out.append(helper.make_node("Pad", [names[j], b.ints(pads)], [padded],
                                            name=b.unique(f"{conv.name}/pad_{k}_group_{j}")))
                names[j] = padded
        parts.append(names)
    for j, members in enumerate(groups):
        value = conv.input[0]
        for op in [conv, *chain]:
            step = onnx.NodeProto()
            step.CopyFrom(op)
            step.name = b.unique(f"{op.name}/group_{j}")
            if op is conv:
                step.input[1:] = [names[j] for names in parts]
            else:
                step.input[0] = value
            last = op is (chain[-1] if chain else conv) and len(members) == 1 and not padding[j]
            step.output[:] = [members[0] if last else b.unique(f"{op.output[0]}/group_{j}")]
            value = step.output[0]
            out.append(step)
        if len(members) > 1 or padding[j]:
            outputs, sizes = list(members), [channels] * len(members)
            if padding[j]:
                outputs.append(b.unique(f"{value}/padding"))
                sizes.append(padding[j])
            out.append(_split(b, value, outputs, 1, sizes, f"{conv.name}/members_{j}"))
    return out


def _split(b: OnnxBuilder, value: str, outputs: list, axis: int, sizes: list, name: str):
    """A Split of `value` along `axis` into `outputs` of `sizes`: equal parts by count
    (num_outputs from opset 18), unequal ones by a sizes input."""
    if len(set(sizes)) > 1:
        return helper.make_node("Split", [value, b.ints(sizes)], outputs, name=b.unique(name), axis=axis)
    count = {"num_outputs": len(outputs)} if b.opset >= 18 else {}
    return helper.make_node("Split", [value], outputs, name=b.unique(name), axis=axis, **count)

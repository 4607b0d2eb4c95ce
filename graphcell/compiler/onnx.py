"""Lowering a Graph to an ONNX ModelProto.

The backend is a table keyed by primitive name (`onnx_rules.RULES`, also stored on each
primitive as `prim.onnx_rule`); every rule emits ONNX nodes through one small builder that
tracks names, the opset and initializers. A graph that uses a primitive with no rule is
rejected before anything is emitted, with every such op and its Cell path listed at once.

    >>> lowered = lower(traced.graph, opset=18)
    >>> [n.name for n in lowered.model.graph.node][:3]
    ['conv1/Conv', 'relu/Max', 'max_pool2d/MaxPool']

Dynamic dimensions: the IR has concrete shapes, so the exporter traces twice and hands the
lowering a `dims` map: for each IR value, a tuple whose entries are ints (static) or `Sym`s
(`k * batch`). Rules that turn shapes into tensors (reshape, broadcast, random) build them
with `ctx.shape_tensor`, which emits -1 or a runtime `Shape` computation where needed.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from ..dtype import DType
from ..ir.core import Graph, Node, TensorType, Value

DEFAULT_OPSET = 18
MIN_OPSET = 17


def max_opset() -> int:
    """The newest opset the installed onnx package knows."""
    return onnx.defs.onnx_opset_version()


class OnnxExportError(ValueError):
    """The graph cannot be expressed in ONNX; the message names every op and Cell at fault."""


class Sym(NamedTuple):
    """A dynamic dimension of size `k * <symbol>` (k = 1 for the symbol itself)."""
    name: str
    k: int = 1

    def __str__(self):
        return self.name if self.k == 1 else f"{self.k}*{self.name}"


def onnx_dtype(dtype) -> int:
    """The TensorProto element type of a graphcell DType or numpy dtype."""
    np_dtype = np.dtype(dtype.np_dtype if isinstance(dtype, DType) else dtype)
    if np_dtype.name == "bfloat16":
        return TensorProto.BFLOAT16
    return helper.np_dtype_to_tensor_dtype(np_dtype)


# -- the builder ------------------------------------------------------------------------------

class OnnxBuilder:
    """Collects nodes and initializers with unique, readable names for one ONNX graph."""

    def __init__(self, opset: int, parent: "OnnxBuilder | None" = None):
        self.opset = opset
        self.nodes: list[onnx.NodeProto] = []
        self.root = self if parent is None else parent.root
        if parent is None:
            self.initializers: list[onnx.TensorProto] = []
            self._taken: set[str] = set()
            self._consts: dict[tuple, str] = {}
            self.symbol_sources: dict[str, tuple[str, int, int]] = {}  # symbol -> (input, axis, size)
            self._symbols: dict[str, str] = {}
        else:  # a subgraph (If branch, Loop body): ONNX names are unique model-wide
            self.initializers, self._taken, self._consts = parent.initializers, parent._taken, parent._consts
            self.symbol_sources, self._symbols = parent.symbol_sources, parent._symbols
        # Shapes rules know for values the IR does not name (a pooling's 4-D result), in
        # Reshape target form (see reshape_target), for the Reshape peepholes after lowering.
        self.shapes: dict[str, tuple] = {}

    def child(self) -> "OnnxBuilder":
        """A builder for a subgraph; its constants live in the main graph (outer scope)."""
        return OnnxBuilder(self.opset, self)

    def unique(self, base: str) -> str:
        base = base or "v"
        name, i = base, 0
        while name in self._taken:
            i += 1
            name = f"{base}_{i}"
        self._taken.add(name)
        return name

    def reserve(self, name: str) -> str:
        if name in self._taken:
            raise OnnxExportError(f"the ONNX name {name!r} is used twice (input and output names must be distinct)")
        self._taken.add(name)
        return name

    def op(self, op_type: str, inputs, scope: str = "", n_out: int = 1, out_names=None, **attrs):
        """Appends one node named `<scope>/<op_type>`; returns its output name (or names)."""
        node_name = self.unique(f"{scope}/{op_type}" if scope else op_type)
        outs = list(out_names) if out_names else [self.unique(f"{node_name}:{i}") for i in range(n_out)]
        attrs = {k: v for k, v in attrs.items() if v is not None}
        self.nodes.append(helper.make_node(op_type, list(inputs), outs, name=node_name, **attrs))
        return outs[0] if n_out == 1 else outs

    def const(self, array, name: str = "") -> str:
        """An initializer holding `array`, shared by equal constants."""
        array = np.asarray(array)
        key = (array.dtype.str, array.shape, array.tobytes())
        found = self._consts.get(key)
        if found is None:
            if not name:
                flat = array.reshape(-1)
                body = "_".join(_short(v) for v in flat[:4]) if array.size <= 4 else f"{array.size}"
                name = f"const_{array.dtype.name}_{body}" if array.size else f"const_{array.dtype.name}_empty"
            found = self.unique(name)
            self.initializers.append(numpy_helper.from_array(array, found))
            self._consts[key] = found
        return found

    def ints(self, values) -> str:
        return self.const(np.asarray(values, np.int64))

    def symbol(self, name: str) -> str:
        """An int64[1] tensor holding the runtime size of dynamic dimension `name`."""
        got = self._symbols.get(name)
        if got is None:
            source = self.symbol_sources.get(name)
            if source is None:
                raise OnnxExportError(f"dynamic dimension {name!r} does not appear on any graph input")
            inp, axis, _ = source
            # In the main graph, so that every subgraph sees it.
            got = self.root.op("Shape", [inp], scope=f"dim.{name}", start=axis, end=axis + 1)
            self._symbols[name] = got
        return got


def _short(v) -> str:
    text = str(v.item() if hasattr(v, "item") else v)
    return re.sub(r"[^0-9A-Za-z.\-]", "", text)


# -- per-node context handed to rules --------------------------------------------------------

@dataclass
class LowerCtx:
    """What a rule sees: the builder, the node (for attrs, scope, types) and the dynamic dims."""
    b: OnnxBuilder
    node: Node
    in_dims: list
    out_dims: list
    other: Node | None = None   # the same node in the second trace (dynamic export), if any
    dims_of: object = None      # IR value -> dims, for subgraphs

    @property
    def scope(self) -> str:
        return self.node.source.scope

    @property
    def opset(self) -> int:
        return self.b.opset

    @property
    def in_types(self) -> list[TensorType]:
        return [v.type for v in self.node.inputs]

    @property
    def out_types(self) -> list[TensorType]:
        return [v.type for v in self.node.outputs]

    @property
    def out_type(self) -> TensorType:
        return self.node.outputs[0].type

    def op(self, op_type: str, *inputs, n_out: int = 1, **attrs):
        return self.b.op(op_type, inputs, scope=self.scope, n_out=n_out, **attrs)

    def const(self, array, dtype=None) -> str:
        return self.b.const(np.asarray(array, dtype.np_dtype if isinstance(dtype, DType) else dtype))

    def ints(self, values) -> str:
        return self.b.ints(values)

    def inline(self, graph: Graph, input_names: list, builder: "OnnxBuilder | None" = None) -> list[str]:
        """Lowers `graph`'s nodes into `builder` (default: this node's), its inputs standing
        for `input_names`; returns the names of its outputs."""
        names = dict(zip(graph.inputs, input_names))
        emit_nodes(builder or self.b, graph, names, self.dims_of)
        return [names[v] for v in graph.outputs]

    def value_info(self, name: str, value: Value) -> onnx.ValueInfoProto:
        return onnx_value_info(name, value.type, self.dims_of(value))

    def fail(self, message: str):
        raise OnnxExportError(f"{self.node.primitive.name} in Cell '{self.scope or '<top>'}': {message}")

    def is_dynamic(self, dims) -> bool:
        return any(isinstance(d, Sym) for d in dims)

    def shape_tensor(self, dims, minus_one: bool = True) -> str:
        """An int64 shape tensor for `dims` (ints and Syms). With `minus_one`, a single dynamic
        entry becomes -1 (for Reshape); otherwise dynamic entries are computed from the inputs."""
        dyn = [i for i, d in enumerate(dims) if isinstance(d, Sym)]
        if not dyn:
            return self.ints(list(dims))
        if minus_one and len(dyn) == 1:
            return self.ints([-1 if isinstance(d, Sym) else d for d in dims])
        parts = []
        for d in dims:
            if isinstance(d, Sym):
                size = self.b.symbol(d.name)
                parts.append(size if d.k == 1 else self.op("Mul", size, self.ints([d.k])))
            else:
                parts.append(self.ints([d]))
        return self.op("Concat", *parts, axis=0)

    def size_of(self, dim) -> str:
        """An int64[1] tensor with one dimension's size (static or dynamic)."""
        return self.shape_tensor([dim], minus_one=False)


# -- lowering a graph -------------------------------------------------------------------------

@dataclass
class Lowered:
    """The result of `lower`: the model and the ONNX name of every IR value."""
    model: onnx.ModelProto
    names: dict = field(default_factory=dict)          # IR Value -> ONNX name
    input_names: list = field(default_factory=list)
    output_names: list = field(default_factory=list)


def onnx_value_info(name: str, type: TensorType, dims=None) -> onnx.ValueInfoProto:
    dims = type.shape if dims is None else dims
    shape = [str(d) if isinstance(d, Sym) else int(d) for d in dims]
    return helper.make_tensor_value_info(name, onnx_dtype(type.dtype), shape)


def unsupported_ops(graph: Graph) -> list[str]:
    """One line per node whose primitive has no ONNX rule (empty when all lower)."""
    lines = []
    for sub in graph.subgraphs():
        lines += unsupported_ops(sub)
    for node in graph.nodes:
        if node.primitive.onnx_rule is None:
            src = node.source
            where = f" at {src.file}:{src.line}" if src.file else ""
            lines.append(f"  {node.primitive.name} in Cell '{src.scope or '<top>'}'{where}")
    return lines


def lower(graph: Graph, *, opset: int | None = None, params_as_inputs: bool = False,
          params: dict | None = None, input_names=None, output_names=None, dims: dict | None = None,
          other_graph: Graph | None = None, value_info: bool = True,
          doc: str = "", name: str | None = None) -> Lowered:
    """Lowers `graph` to an ONNX model.

    Non-argument inputs (parameters, captures) become initializers holding `params[value]`,
    or graph inputs with `params_as_inputs=True`.
    `dims` maps IR values to dims with `Sym` entries for dynamic dimensions (from
    `export`'s two traces); `other_graph` is the matching second trace, so rules can check
    that batch-dependent attributes scale as they assume.
    """
    from . import onnx_rules  # noqa: F401 - fills prim.onnx_rule
    opset = DEFAULT_OPSET if opset is None else int(opset)
    if not MIN_OPSET <= opset <= max_opset():
        raise ValueError(f"export: opset must be in [{MIN_OPSET}, {max_opset()}], got {opset}")
    missing = unsupported_ops(graph)
    if missing:
        raise OnnxExportError("these ops have no ONNX lowering:\n" + "\n".join(missing))
    dims = dims or {}
    dims_of = lambda v: dims.get(v, v.shape)  # noqa: E731

    b = OnnxBuilder(opset)
    names: dict[Value, str] = {}
    inputs = []
    args = [v for v in graph.inputs if v.kind == "arg"] if not params_as_inputs else list(graph.inputs)
    user_names = list(input_names or [])
    n_args = sum(1 for v in graph.inputs if v.kind == "arg")
    if len(user_names) > n_args:
        raise ValueError(f"export: {len(user_names)} input_names for {n_args} inputs")
    arg_index = 0
    for v in graph.inputs:
        if v.kind == "arg" and arg_index < len(user_names):
            onnx_name = user_names[arg_index]
        else:
            onnx_name = v.name
        arg_index += v.kind == "arg"
        names[v] = b.reserve(onnx_name)
        if v in args:
            inputs.append(onnx_value_info(names[v], v.type, dims_of(v)))
            for axis, d in enumerate(dims_of(v)):
                if isinstance(d, Sym) and d.name not in b.symbol_sources:
                    if d.k != 1:
                        raise OnnxExportError(f"input {onnx_name!r}: dimension {axis} is {d}, not a plain symbol")
                    b.symbol_sources[d.name] = (names[v], axis, v.shape[axis])
    initializers_first = [v for v in graph.inputs if v not in args]

    emit_nodes(b, graph, names, dims_of, other_graph)
    keep = {names[v] for v in graph.outputs}
    shapes = {**b.shapes, **{n: reshape_target(dims_of(v)) for v, n in names.items()}}  # for the peepholes
    constants = lambda: {t.name: t for t in b.initializers}  # noqa: E731  (the peepholes add some)
    # Chains first, so that an op after several views sees the value they view.
    _merge_reshape_chains(b.nodes, keep, constants(), shapes)
    _merge_duplicates(b.nodes, keep)
    _share_max_pools(b.nodes, keep)
    _binary_before_reshape(b, keep, shapes)
    _bias_into_conv(b, keep, shapes)
    _unary_before_reshape(b.nodes, keep, shapes)
    _merge_reshape_chains(b.nodes, keep, constants(), shapes)

    # Outputs: user names for user outputs, `<param>.new` for state writes.
    out_names = list(output_names or [])
    n_user = len(graph.user_outputs)
    if len(out_names) > n_user:
        raise ValueError(f"export: {len(out_names)} output_names for {n_user} outputs")
    default = ["output"] if n_user == 1 else [f"output_{i}" for i in range(n_user)]
    out_names += default[len(out_names):]
    out_names += [f"{s}.new" for s in graph.state_names]
    outputs = []
    renames: dict[str, str] = {}
    produced = {o for n in b.nodes for o in n.output}
    used_as_output: set[str] = set()
    for v, want in zip(graph.outputs, out_names):
        have = names[v]
        if have in produced and have not in used_as_output and have not in renames:
            renames[have] = want
            b.reserve(want)
        else:  # a graph input, or a value already returned once: copy it
            b.reserve(want)
            b.op("Identity", [have], scope="output", out_names=[want])
        used_as_output.add(have)
        outputs.append(onnx_value_info(want, v.type, dims_of(v)))
    _rename(b.nodes, renames)
    for v in list(names):
        names[v] = renames.get(names[v], names[v])

    initializers = [] if params_as_inputs else [
        numpy_helper.from_array(_param_array(params, v), names[v]) for v in initializers_first]
    # Constants that a rule made redundant (the 0 of a ReLU) are dropped.
    used = used_names(b.nodes) | {o.name for o in outputs}
    initializers += [t for t in b.initializers if t.name in used]
    infos = []
    if value_info:
        graph_io = {i.name for i in inputs} | {o.name for o in outputs}
        for node in graph.nodes:
            for v in node.outputs:
                n = names.get(v)
                if n is not None and n not in graph_io and n in produced | set(renames.values()):
                    infos.append(onnx_value_info(n, v.type, dims_of(v)))
                    graph_io.add(n)
    onnx_graph = helper.make_graph(b.nodes, name or graph.name, inputs, outputs, initializers,
                                   doc_string=doc, value_info=infos)
    model = helper.make_model(onnx_graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="graphcell", producer_version=_version())
    # onnxruntime reads the IR version; keep it to one that every supported runtime accepts.
    model.ir_version = min(model.ir_version, 10)
    return Lowered(model, names, [i.name for i in inputs], [o.name for o in outputs])


def emit_nodes(b: OnnxBuilder, graph: Graph, names: dict, dims_of, other_graph: Graph | None = None) -> None:
    """Runs every node's rule into `b`, filling `names` (IR value -> ONNX)."""
    from ..passes.fuse import find_fusions
    # The fuse pass's matches, for graphs that did not run the "onnx" pipeline: a bias add
    # lowers as its fused node (Gemm, Conv with B), and the nodes it absorbed emit nothing.
    fusions = {f.consumer: f for f in find_fusions(graph)}
    absorbed = {n for f in fusions.values() for n in f.absorbed}
    other_nodes = other_graph.nodes if other_graph is not None else None
    for index, node in enumerate(graph.nodes):
        if node in absorbed:
            continue
        node = fusions[node].as_node() if node in fusions else node
        ctx = LowerCtx(b, node, [dims_of(v) for v in node.inputs], [dims_of(v) for v in node.outputs],
                       other_nodes[index] if other_nodes is not None else None, dims_of)
        in_names = [names[v] for v in node.inputs]
        out = node.primitive.onnx_rule(ctx, *in_names, **node.attrs)
        outs = out if node.primitive.multiple_results else [out]
        for v, n in zip(node.outputs, outs):
            names[v] = n


def used_names(nodes) -> set:
    """Every name read by `nodes` or by the nodes of their subgraphs (If / Loop)."""
    used = set()
    for n in nodes:
        used.update(n.input)
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                used |= used_names(a.g.node) | {o.name for o in a.g.output}
    return used


# Elementwise ops of one input that commute with a Reshape.
_UNARY = {"Relu", "LeakyRelu", "Sigmoid", "Tanh", "Neg", "Abs", "Exp", "Log", "Sqrt", "Erf", "Elu", "Softplus"}


def reshape_target(dims) -> tuple | None:
    """A value's dims as a static Reshape target would spell them (its one dynamic dimension
    as -1), or None when it has several dynamic dimensions."""
    if sum(isinstance(d, Sym) for d in dims) > 1:
        return None
    return tuple(-1 if isinstance(d, Sym) else int(d) for d in dims)


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


def _binary_before_reshape(b: "OnnxBuilder", keep: set, shapes: dict) -> None:
    """Rewrites Reshape -> Mul/Add/Sub/Div by a value that broadcasts along the Reshape's
    split axes into the op on the unsplit value (its operand reshaped to match) -> Reshape.
    An ensemble's stacked form views a Conv's [B, N*C, H, W] output as [B, N, C, H, W] and
    multiplies and adds the members' BatchNorm scales there; moved above the view, the Mul and
    Add meet the Conv and onnxruntime folds them into it, as it does for each member's Conv in
    the per-member form. Values named in `keep` are never removed; the operand's Reshape is
    a constant expression when the operand is (onnxruntime folds it at session creation)."""
    nodes = b.nodes
    uses = _use_counts(nodes)
    producer = {o: n for n in nodes for o in n.output}

    def single_use_view(name):
        view = producer.get(name)
        ok = view is not None and view.op_type == "Reshape" and uses.get(name) == 1 and name not in keep
        return view if ok else None

    out, dead = [], set()
    for node in nodes:
        if node.op_type not in _BINARY or len(node.input) != 2:
            out.append(node)
            continue
        side = next((k for k in (0, 1) if single_use_view(node.input[k]) is not None), None)
        small = None
        if side is not None:
            view, other = producer[node.input[side]], node.input[1 - side]
            merged, split = shapes.get(view.input[0]), shapes.get(node.input[side])
            small = _merged_operand_shape(merged, split, shapes.get(other))
        if small is not None:
            moved = node.output[0] + "/before_reshape"
            reshaped = b.unique(f"{other}/merged")
            view_copy = onnx.NodeProto()
            view_copy.CopyFrom(view)
            view_copy.input[0] = moved
            view_copy.output[:] = [node.output[0]]
            op = onnx.NodeProto()
            op.CopyFrom(node)
            op.input[side], op.input[1 - side] = view.input[0], reshaped
            op.output[:] = [moved]
            out += [helper.make_node("Reshape", [other, b.ints(small)], [reshaped], name=reshaped), op, view_copy]
            dead.add(id(view))
            shapes[moved], shapes[reshaped] = merged, tuple(small)
            producer[node.output[0]] = view_copy
            uses[moved] = 1
        else:
            out.append(node)
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
        node.input[:] = [renames.get(i, i) for i in node.input]
        mergeable = (node.op_type not in _NONDETERMINISTIC and not any(o in keep for o in node.output)
                     and not any(a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS)
                                 for a in node.attribute))
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
        for n in nodes:   # subgraphs read outer values by name too
            for a in n.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    _rename_reads(a.g, renames)


def _rename_reads(graph: onnx.GraphProto, renames: dict) -> None:
    for n in graph.node:
        n.input[:] = [renames.get(i, i) for i in n.input]
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                _rename_reads(a.g, renames)


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
    if renames:
        nodes[:] = [n for i, n in enumerate(nodes) if i not in dead]
        for n in nodes:
            n.input[:] = [renames.get(i, i) for i in n.input]


def _attrs_key(node) -> tuple:
    return tuple(a.SerializeToString() for a in sorted(node.attribute, key=lambda a: a.name))


def _bias_into_conv(b: "OnnxBuilder", keep: set, shapes: dict) -> None:
    """Add(Conv(x, w), bias) becomes Conv(x, w, bias) where the Conv has no bias and no other
    use and the bias is one value per output channel ([1, C, 1...] or [C, 1...]): a vmapped
    ensemble's wide convolution meets its members' biases only after `_binary_before_reshape`
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


def _unary_before_reshape(nodes: list, keep: set, shapes: dict) -> None:
    """Rewrites Reshape -> unary op into unary op -> Reshape where the Reshape has no other use,
    so the op meets what produced the Reshape's input: a vmapped ensemble's wide Conv is viewed
    as [B, N, C, H, W] before its ReLU, and onnxruntime fuses Conv+Relu only when adjacent.
    Values named in `keep` (graph outputs) are never removed. `shapes` (ONNX name -> Reshape
    target form, see _reshape_target) learns the moved ops' outputs."""
    uses = _use_counts(nodes)
    producer = {o: i for i, n in enumerate(nodes) for o in n.output}
    pending = [i for i, n in enumerate(nodes) if n.op_type in _UNARY and len(n.input) == 1]
    while pending:   # an op moved above one Reshape may meet another (a chain of views)
        i = pending.pop()
        node = nodes[i]
        j = producer.get(node.input[0])
        if j is None or nodes[j].op_type != "Reshape" or uses.get(node.input[0]) != 1 or node.input[0] in keep:
            continue
        reshape, source = nodes[j], nodes[j].input[0]
        moved = node.output[0] + "/before_reshape"
        op = onnx.NodeProto()
        op.CopyFrom(node)
        op.input[:] = [source]
        op.output[:] = [moved]
        view = onnx.NodeProto()
        view.CopyFrom(reshape)
        view.input[0] = moved
        view.output[:] = [node.output[0]]
        nodes[j], nodes[i] = op, view
        if source in shapes:
            shapes[moved] = shapes[source]
        producer[moved] = j
        producer[node.output[0]] = i
        uses[moved] = 1
        pending.append(j)


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
    dropped = set()
    for node in nodes:
        if node.op_type != "Reshape" or node.input[1] not in constants:
            continue
        allowzero = any(a.name == "allowzero" and a.i == 1 for a in node.attribute)
        if not allowzero and 0 in numpy_helper.to_array(constants[node.input[1]]):
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
                and tuple(numpy_helper.to_array(constants[node.input[1]]).tolist()) == shapes[node.input[0]]):
            renames[node.output[0]] = node.input[0]
            dropped.add(id(node))
    nodes[:] = [n for n in nodes if id(n) not in dropped]
    if renames:
        for n in nodes:
            n.input[:] = [renames.get(i, i) for i in n.input]


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
    for a in node.attribute:
        if a.type == onnx.AttributeProto.GRAPH:
            for n in a.g.node:
                names += _all_inputs(n)
    return names


def _rename(nodes, renames: dict[str, str]) -> None:
    if not renames:
        return
    for n in nodes:
        for a in n.attribute:   # subgraphs read outer names too
            if a.type == onnx.AttributeProto.GRAPH:
                _rename(a.g.node, renames)
        for i, x in enumerate(n.input):
            if x in renames:
                n.input[i] = renames[x]
        for i, x in enumerate(n.output):
            if x in renames:
                n.output[i] = renames[x]


def _param_array(arrays: dict | None, value: Value) -> np.ndarray:
    if arrays is None or value not in arrays:
        raise OnnxExportError(f"no array for parameter {value.name!r}: export through graphcell.export, "
                              "or pass params_as_inputs=True")
    return np.asarray(arrays[value])


def _version() -> str:
    try:
        from .. import __version__
        return __version__
    except ImportError:  # pragma: no cover - during package init
        return "0"



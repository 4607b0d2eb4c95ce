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
(`k * batch + c`, or a strided slice's `ceil(batch / 2)`). Rules that turn shapes into tensors (reshape, broadcast, random) build them
with `ctx.shape_tensor`, which emits -1 or a runtime `Shape` computation where needed.
"""
from __future__ import annotations

import math
import re
import warnings
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from ..dtype import DType
from ..ir.core import Graph, Node, TensorType, Value

DEFAULT_OPSET = 18
MIN_OPSET = 17
# graphcell's own onnxruntime sessions (jit(backend="onnx")) use the first opset with
# Attention (onnx_fusions._attention); exported files keep DEFAULT_OPSET, which more
# runtimes read, unless the user asks for another.
RUNTIME_OPSET = 23
# A protobuf message cannot exceed 2 GiB: models about that size keep their tensors in a side
# file (export) and are not cached (onnx_cache).
PROTO_LIMIT = 2 ** 31 - 2 ** 24


def max_opset() -> int:
    """The newest opset the installed onnx package knows."""
    return onnx.defs.onnx_opset_version()


class OnnxExportError(ValueError):
    """The graph cannot be expressed in ONNX; the message names every op and Cell at fault."""


class Sym(NamedTuple):
    """A dynamic dimension of size `m * floor((k * <symbol> + c) / d)`. Most are `k * symbol + c`
    (d = m = 1; c from slices relative to the end: x[1:] has `batch - 1` rows); a strided slice
    divides (x[::2] has ceil(batch / 2) = floor((batch + 1) / 2) rows, d = 2), and a reshape
    that merges such a dimension with a static axis multiplies it (m). Build divided ones with
    `Sym.floor_div`, which keeps one spelling per function of the symbol. A slice of fixed
    length from a dynamic axis (x[-3:], x[:3]) clips: `lo` and `hi` bound the size (min(batch, 3)
    rows; see export_clamps.py)."""
    name: str
    k: int = 1
    c: int = 0
    d: int = 1
    m: int = 1
    lo: int | None = None
    hi: int | None = None

    @staticmethod
    def floor_div(name: str, k: int, c: int, d: int, m: int = 1) -> "Sym":
        """m * floor((k * name + c) / d), reduced: floor((g*k*n + c) / (g*d)) is
        floor((k*n + floor(c/g)) / d), and a divisor of 1 folds m into k and c."""
        g = math.gcd(k, d)
        k, c, d = k // g, c // g, d // g
        return Sym(name, k * m, c * m) if d == 1 else Sym(name, k, c, d, m)

    def __str__(self):
        text = self.name if self.k == 1 else f"{self.k}*{self.name}"
        if self.d == 1:
            text = text if self.c == 0 else f"{text}{self.c:+d}"
        else:
            # floor((kn + c) / d) is ceil((kn + c - d + 1) / d): the form with the smaller offset
            up = self.c - self.d + 1
            kind, c = ("ceil", up) if abs(up) < abs(self.c) else ("floor", self.c)
            text = f"{kind}({text}/{self.d})" if c == 0 else f"{kind}(({text}{c:+d})/{self.d})"
            text = text if self.m == 1 else f"{self.m}*{text}"
        text = text if self.hi is None else f"min({text},{self.hi})"
        # (the lower bound shown only where the size can reach it: batch 1 and up)
        return text if self.lo is None or self.unclipped.at(1) >= self.lo else f"max({text},{self.lo})"

    @property
    def plain(self) -> bool:
        """Whether this is the symbol itself (the size of an input's axis)."""
        return self == Sym(self.name)

    @property
    def unclipped(self) -> "Sym":
        return self._replace(lo=None, hi=None)

    def times(self, m: int) -> "Sym":
        """This dimension multiplied by `m` (a reshape merging it with a static axis)."""
        lo, hi = (None if b is None else b * m for b in (self.lo, self.hi))
        if self.d == 1:
            return Sym(self.name, self.k * m, self.c * m, lo=lo, hi=hi)
        return Sym(self.name, self.k, self.c, self.d, self.m * m, lo, hi)

    def plus(self, e: int) -> "Sym | None":
        """This dimension plus `e` (a pad or a concatenation with a static piece), or None
        when that has no spelling (e added to a multiple of a division)."""
        lo, hi = (None if b is None else b + e for b in (self.lo, self.hi))
        lo = lo if lo is None else max(lo, 0)   # (a size: x[-3:][1:] is max(min(batch, 3) - 1, 0))
        if self.m != 1:
            return None
        return Sym(self.name, self.k, self.c + e * self.d, self.d, 1, lo, hi)

    def divided(self, m: int) -> "Sym | None":
        """This dimension divided by `m`, or None when that is not exact at every size."""
        if self.lo is not None or self.hi is not None:
            return None
        if self.d != 1:
            return Sym(self.name, self.k, self.c, self.d, self.m // m) if self.m % m == 0 else None
        if self.k % m or self.c % m:
            return None
        return Sym(self.name, self.k // m, self.c // m)

    def at(self, size: int) -> int:
        """Its size when the symbol is `size`."""
        n = self.k * size + self.c if self.d == 1 else self.m * max(0, (self.k * size + self.c) // self.d)
        n = n if self.lo is None else max(n, self.lo)
        return n if self.hi is None else min(n, self.hi)


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
            self._suffix: dict[str, int] = {}   # base -> the last suffix `unique` gave it
            self._consts: dict[tuple, str] = {}
            self.symbol_sources: dict[str, tuple[str, int, int]] = {}  # symbol -> (input, axis, size)
            self._symbols: dict[str, str] = {}
            # The scope of nodes traced outside any sub-Cell: the traced function's name or the
            # Cell's class (`forward/MatMul`, `LeNet5/Add`), so that no node is named by its op alone.
            self.scope = ""
            # Dims of values the IR does not name, declared by rules where ONNX's inference
            # cannot find them (after a Resize, which drops a symbol): name -> (type, dims).
            self.declared: dict[str, tuple] = {}
        else:  # a subgraph (If branch, Loop body): ONNX names are unique model-wide
            self.initializers, self._taken, self._consts = parent.initializers, parent._taken, parent._consts
            self._suffix = parent._suffix
            self.symbol_sources, self._symbols = parent.symbol_sources, parent._symbols
        # Shapes rules know for values the IR does not name (a pooling's 4-D result), in
        # Reshape target form (see reshape_target), for the Reshape peepholes after lowering.
        self.shapes: dict[str, tuple] = {}

    def child(self) -> "OnnxBuilder":
        """A builder for a subgraph; its constants live in the main graph (outer scope)."""
        return OnnxBuilder(self.opset, self)

    def unique(self, base: str) -> str:
        base = base or "v"
        name, i = base, self._suffix.get(base, 0)   # from the last suffix: a base used k times
        while name in self._taken:                  # would probe k names each time
            i += 1
            name = f"{base}_{i}"
        self._suffix[base] = i
        self._taken.add(name)
        return name

    def reserve(self, name: str) -> str:
        if name in self._taken:
            raise OnnxExportError(f"the ONNX name {name!r} is used twice (input and output names must be distinct)")
        self._taken.add(name)
        return name

    def node_name(self, op_type: str, scope: str = "") -> str:
        """A unique node name `<scope>/<op_type>`, in the graph's own scope when `scope` is empty."""
        scope = scope or self.root.scope
        return self.unique(f"{scope}/{op_type}" if scope else op_type)

    def op(self, op_type: str, inputs, scope: str = "", n_out: int = 1, out_names=None, **attrs):
        """Appends one node named `<scope>/<op_type>`; returns its output name (or names)."""
        node_name = self.node_name(op_type, scope)
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


def scope_name(name: str) -> str:
    """A graph's name as a node-name scope: `<lambda>` is `lambda`, no slashes."""
    return re.sub(r"[^0-9A-Za-z_.\-]", "", name or "") or "graph"


def value_scope(value: str) -> str:
    """The scope of an ONNX value named `<scope>/<op>:<i>` ('' for a user's name such as `output`),
    for the nodes that peepholes and fusions put in its producer's place."""
    return value.rpartition("/")[0]


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
    small: object = None        # the trace below a clipped dimension's bound (export_clamps.SmallTrace)

    @property
    def scope(self) -> str:
        """The node's Cell path, or the graph's own scope (OnnxBuilder.scope) at top level."""
        return self.node.source.scope or self.b.root.scope

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

    def inline(self, graph: Graph, input_names: list, builder: "OnnxBuilder | None" = None,
               other: Graph | None = None) -> list[str]:
        """Lowers `graph`'s nodes into `builder` (default: this node's), its inputs standing
        for `input_names`; returns the names of its outputs. `other`: the same subgraph in
        the second trace (`other_attr`)."""
        names = dict(zip(graph.inputs, input_names))
        emit_nodes(builder or self.b, graph, names, self.dims_of, other)
        return [names[v] for v in graph.outputs]

    def other_attr(self, key: str):
        """Attr `key` of this node in the second trace (a subgraph's twin), or None."""
        return self.other.attrs.get(key) if self.other is not None else None

    def value_info(self, name: str, value: Value) -> onnx.ValueInfoProto:
        return onnx_value_info(name, value.type, self.dims_of(value))

    def declare(self, name: str, dims) -> str:
        """Records the dims (ints and Syms) of `name`, an intermediate of this rule with the
        node's dtype, for the model's value_info; returns `name`."""
        self.b.root.declared[name] = (self.out_type, tuple(dims))
        return name

    def fail(self, message: str):
        src = self.node.source
        at = f" (at {src.file}:{src.line})" if src.file else ""
        raise OnnxExportError(f"{self.node.primitive.name} in Cell '{src.scope or '<top>'}'{at}: {message}")

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
        parts = [self._dim_size(d) if isinstance(d, Sym) else self.ints([d]) for d in dims]
        return parts[0] if len(parts) == 1 else self.op("Concat", *parts, axis=0)

    def _dim_size(self, d: Sym) -> str:
        """An int64[1] tensor with the run-time size of `d`, computed from its symbol's input."""
        size = self.b.symbol(d.name)
        size = size if d.k == 1 else self.op("Mul", size, self.ints([d.k]))
        size = size if d.c == 0 else self.op("Add", size, self.ints([d.c]))
        if d.d != 1:   # Div truncates toward zero: a negative numerator (an empty slice) is 0 first
            size = size if d.c >= 0 else self.op("Max", size, self.ints([0]))
            size = self.op("Div", size, self.ints([d.d]))
        size = size if d.m == 1 else self.op("Mul", size, self.ints([d.m]))
        size = size if d.lo is None else self.op("Max", size, self.ints([d.lo]))
        return size if d.hi is None else self.op("Min", size, self.ints([d.hi]))

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


def carried(type: TensorType, dims=None) -> tuple:
    """The ONNX element type and dims that carry a value: a complex value of shape S is a real
    tensor of shape S + [2] (real, imaginary; ONNX has no complex tensors, see onnx_complex)."""
    dims = tuple(type.shape if dims is None else dims)
    if type.dtype.is_complex:
        return onnx_dtype(type.dtype.real_dtype), dims + (2,)
    return onnx_dtype(type.dtype), dims


def onnx_value_info(name: str, type: TensorType, dims=None) -> onnx.ValueInfoProto:
    elem_type, dims = carried(type, dims)
    shape = [str(d) if isinstance(d, Sym) else int(d) for d in dims]
    return helper.make_tensor_value_info(name, elem_type, shape)


def complex_boundary(graph: Graph, args) -> list[str]:
    """One line per complex model input or output: those stay refused (no complex tensors)."""
    hint = ("ONNX has no complex tensors: make it real first (ops.view_as_real, ops.real / ops.imag, "
            "ops.angle; ops.abs keeps the complex dtype)")
    lines = [f"  input {v.name!r} is {v.type}: {hint}" for v in args if v.dtype.is_complex]
    return lines + [f"  output {i} is {v.type}: {hint}" for i, v in enumerate(graph.outputs) if v.dtype.is_complex]


def unsupported_ops(graph: Graph, drop_warning: bool = True) -> list[str]:
    """One line per node whose primitive has no ONNX rule (empty when all lower). With
    `drop_warning`, each print or check left out warns (jit's runtime says so itself)."""
    from . import onnx_complex
    lines = []
    for sub in graph.subgraphs():
        lines += unsupported_ops(sub, drop_warning)
    for node in graph.nodes:
        # complex values are real pairs in ONNX, for the ops onnx_complex has rules for
        complex_values = onnx_complex.touches_complex(node)
        rule = onnx_complex.rule_for(node) if complex_values else node.primitive.onnx_rule
        if _dropped(node):   # a print: an ONNX model has none (ops/graph_print.py)
            if drop_warning:
                warnings.warn(node.attrs["fn"].onnx_drop)   # once per process, as Python warns
        elif rule is None or getattr(rule, "refuses", None) and rule.refuses(node):
            src = node.source
            where = f" at {src.file}:{src.line}" if src.file else ""
            why = " (on complex values: no ONNX form)" if complex_values else ""
            lines.append(f"  {node.primitive.name}{why} in Cell '{src.scope or '<top>'}'{where}")
    return lines


def model_text(graph: Graph) -> str:
    """The ONNX model of `graph` in onnx's printable syntax, with parameters as graph inputs
    (no weights): what `graphcell dump --format onnx` and save_graphs (level 2) write."""
    import onnx.printer
    return onnx.printer.to_text(lower(graph, params_as_inputs=True).model)


def lower(graph: Graph, *, opset: int | None = None, params_as_inputs: bool = False,
          params: dict | None = None, input_names=None, output_names=None, dims: dict | None = None,
          other_graph: Graph | None = None, small=None, value_info: bool = True,
          doc: str = "", name: str | None = None, drop_warning: bool = True) -> Lowered:
    """Lowers `graph` to an ONNX model.

    Non-argument inputs (parameters, captures) become initializers holding `params[value]`,
    or graph inputs with `params_as_inputs=True`.
    `dims` maps IR values to dims with `Sym` entries for dynamic dimensions (from
    `export`'s two traces); `other_graph` is the matching second trace, so rules can check
    that batch-dependent attributes scale as they assume; `small` (`export_clamps.SmallTrace`)
    the trace below the bound of a clipped dimension (`Sym.hi`), which tells how slices of it count.
    `drop_warning=False`: the prints and checks left out do not warn (the caller has).
    """
    from . import onnx_blocked, onnx_peepholes, onnx_rules  # noqa: F401 - onnx_rules fills prim.onnx_rule
    from .onnx_symbolic_shapes import localize_shape_constants, spell_dynamic_reshapes
    opset = DEFAULT_OPSET if opset is None else int(opset)
    if not MIN_OPSET <= opset <= max_opset():
        raise ValueError(f"export: opset must be in [{MIN_OPSET}, {max_opset()}], got {opset}")
    missing = unsupported_ops(graph, drop_warning)
    if missing:
        raise OnnxExportError("these ops have no ONNX lowering:\n" + "\n".join(missing))
    args = [v for v in graph.inputs if v.kind == "arg"] if not params_as_inputs else list(graph.inputs)
    complex_io = complex_boundary(graph, args)
    if complex_io:
        raise OnnxExportError("complex model inputs and outputs have no ONNX form:\n" + "\n".join(complex_io))
    dims = dims or {}
    dims_of = lambda v: dims.get(v, v.shape)  # noqa: E731

    b = OnnxBuilder(opset)
    b.scope = scope_name(name or graph.name)
    names: dict[Value, str] = {}
    inputs = []
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
                    if not d.plain:
                        raise OnnxExportError(f"input {onnx_name!r}: dimension {axis} is {d}, not a plain symbol")
                    b.symbol_sources[d.name] = (names[v], axis, v.shape[axis])
    initializers_first = [v for v in graph.inputs if v not in args]

    emit_nodes(b, graph, names, dims_of, other_graph, small)
    keep = {names[v] for v in graph.outputs}
    carriers = {n: carried(v.type, dims_of(v)) for v, n in names.items()}
    shapes = {**b.shapes, **{n: reshape_target(d) for n, (_, d) in carriers.items()}}  # for the peepholes
    types = {n: t for n, (t, _) in carriers.items()}
    onnx_peepholes.run(b, keep, shapes, types, {n: (v.type, dims_of(v)) for v, n in names.items()
                                                if not v.dtype.is_complex})
    onnx_blocked.run(b, keep, {t.name: t for t in b.initializers}, shapes, types, {names[v] for v in args})
    spell_dynamic_reshapes(b, {n: d for n, (_, d) in carriers.items()})   # last: the peepholes read -1s
    localize_shape_constants(b)

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
    rename(b.nodes, renames)
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
        named = produced | set(renames.values())
        for node in graph.nodes:
            for v in node.outputs:
                n = names.get(v)
                if n is not None and n not in graph_io and n in named:
                    infos.append(onnx_value_info(n, v.type, dims_of(v)))
                    graph_io.add(n)
        infos += [onnx_value_info(n, t, d) for n, (t, d) in b.declared.items() if n in named and n not in graph_io]
    onnx_graph = helper.make_graph(b.nodes, name or graph.name, inputs, outputs, initializers,
                                   doc_string=doc, value_info=infos)
    model = helper.make_model(onnx_graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="graphcell", producer_version=_version())
    # onnxruntime reads the IR version; keep it to one that every supported runtime accepts.
    model.ir_version = min(model.ir_version, 10)
    return Lowered(model, names, [i.name for i in inputs], [o.name for o in outputs])


def emit_nodes(b: OnnxBuilder, graph: Graph, names: dict, dims_of, other_graph: Graph | None = None,
               small=None) -> None:
    """Runs every node's rule into `b`, filling `names` (IR value -> ONNX)."""
    from ..passes.fuse import find_fusions
    from .onnx_complex import rule_for
    from .onnx_widen import widened
    # The fuse pass's matches, for graphs that did not run the "onnx" pipeline: a bias add
    # lowers as its fused node (Gemm, Conv with B), and the nodes it absorbed emit nothing.
    fusions = {f.consumer: f for f in find_fusions(graph)}
    absorbed = {n for f in fusions.values() for n in f.absorbed}
    other_nodes = other_graph.nodes if other_graph is not None else None
    live = _live_nodes(graph)
    for index, node in enumerate(graph.nodes):
        if node in absorbed or node not in live:
            continue
        node = fusions[node].as_node() if node in fusions else node
        in_dims, out_dims = [dims_of(v) for v in node.inputs], [dims_of(v) for v in node.outputs]
        in_names = [names[v] for v in node.inputs]
        rule = rule_for(node) or node.primitive.onnx_rule   # complex values: real pairs
        wide, rule = widened(node, rule)   # dtypes onnxruntime has no kernel for: computed wider
        ctx = LowerCtx(b, wide, in_dims, out_dims, other_nodes[index] if other_nodes is not None else None,
                       dims_of, small)
        out = rule(ctx, *in_names, **node.attrs)
        outs = out if node.primitive.multiple_results else [out]
        for v, n in zip(node.outputs, outs):
            names[v] = n


def _live_nodes(graph: Graph) -> set:
    """The nodes an output needs, and every impure one. `export` lowers the traced graph
    without the pipelines (its dims are keyed by traced values; export_passes.py runs dce only
    where scans merge), so what a trace computed for nothing, such as the forward of a
    gradient whose value is unused, is left out here."""
    live_values, live = set(graph.outputs), set()
    for node in reversed(graph.nodes):
        if _has_effects(node) or any(v in live_values for v in node.outputs):
            live.add(node)
            live_values.update(node.inputs)
    return live


def _dropped(node) -> bool:
    """A host call that export leaves out of the model (a print's: HostFunction.onnx_drop)."""
    fn = node.attrs.get("fn")
    return node.primitive.name == "host_call" and bool(getattr(fn, "onnx_drop", ""))


def _has_effects(node) -> bool:
    """Whether a node is lowered for its effects though nothing reads it (a dropped print is not)."""
    if node.primitive.pure:
        return any(_has_effects(n) for g in node.attrs.values() if isinstance(g, Graph) for n in g.nodes)
    return not _dropped(node)


# The ONNX ops with subgraph attributes: only their attributes need reading when names are
# looked for (reading every node's attributes is most of a big graph's renaming time).
SUBGRAPH_OPS = frozenset({"If", "Loop", "Scan", "SequenceMap"})


def subgraphs(node) -> list:
    """The subgraphs (GraphProtos) of `node`: its If branches or Loop/Scan body."""
    if node.op_type not in SUBGRAPH_OPS:
        return []
    return [a.g for a in node.attribute if a.type == onnx.AttributeProto.GRAPH]


def used_names(nodes) -> set:
    """Every name read by `nodes` or by the nodes of their subgraphs (If / Loop)."""
    used = set()
    for n in nodes:
        used.update(n.input)
        for g in subgraphs(n):
            used |= used_names(g.node) | {o.name for o in g.output}
    return used


def reshape_target(dims) -> tuple | None:
    """A value's dims as a static Reshape target would spell them (its one dynamic dimension
    as -1), or None when it has several dynamic dimensions."""
    if sum(isinstance(d, Sym) for d in dims) > 1:
        return None
    return tuple(-1 if isinstance(d, Sym) else int(d) for d in dims)


def rename(nodes, renames: dict[str, str]) -> None:
    """Renames the values `nodes` (and their subgraphs) read and write, old -> new."""
    if not renames:
        return
    for n in nodes:
        for g in subgraphs(n):   # subgraphs read outer names too
            rename(g.node, renames)
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
    array = np.asarray(arrays[value])
    return np.stack([array.real, array.imag], -1) if np.iscomplexobj(array) else array   # (carried)


def _version() -> str:
    try:
        from .. import __version__
        return __version__
    except ImportError:  # pragma: no cover - during package init
        return "0"



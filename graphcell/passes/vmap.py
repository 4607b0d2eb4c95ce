"""The vmap pass: rewrites every node of a graph with its primitive's batch rule.

`vmap_graph(graph, in_axes, out_axes, axis_size)` gives a new graph computing the old one for
`axis_size` members at once. A value that depends on no mapped input stays unbatched (the
node is copied as is); a batched value carries its mapped axis in `Value.mapped_axis`, which
the printer shows as `vmap:N`:

    graph f(%x: f32[vmap:4,3], %w: f32[3,2]) {
      %0:f32[vmap:4,2] = dot_general(%x, %w) {batch=((),()), contract=((1,),(0,))}
      return %0
    }

A rule may also return its output SPLIT (a list of per-member values, e.g. unrolled
convolutions): the following nodes then run member by member while the members' values have
at least `batching.SPLIT_MIN_ELEMENTS` elements together, and are stacked below that, so an
ensemble keeps the memory profile of a loop over its models where the tensors are big.

Rules bind primitives through a Tracer, so everything they emit is shape-checked. Emitted
nodes keep the source (file, line, Cell path) of the node they replace; a rule may add a
note (`ctx.annotate("conv_strategy=wide")`) that the dump shows after the Cell path.
"""
from __future__ import annotations

import math

from ..frontend.tracer import OriginTracer
from ..ir.core import Graph, SourceInfo, TensorType
from ..ops.batching import SPLIT, SPLIT_MIN_ELEMENTS, STACK_PARAMETER_GRADIENTS
from ..tensor import Tensor
from .grad import PARAM_GRAD_NOTE

RANDOMNESS = ("different", "same", "error")


class VmapError(ValueError):
    """A graph cannot be vmapped as asked (e.g. a per-member value written to a shared
    Parameter); the message names the value."""


class BatchContext:
    """What batch rules may read. The rule signature is fixed; new needs add fields here."""

    def __init__(self, axis_size: int, randomness: str = "different", conv_strategy: str | None = None,
                 target: str = "xla", **options):
        self.axis_size = axis_size
        self.randomness = randomness
        self.conv_strategy = conv_strategy
        self.target = target      # the backend the graph is lowered for: "xla" or "onnx"
        self.options = options
        # The share of the batch's rows one program runs at a time (< 1 when the graph will
        # be tiled): rules that choose by size scale the sizes they see by it.
        self.row_fraction = 1.0
        self.node = None          # the node being rewritten
        self._tracer = None

    def annotate(self, note: str) -> None:
        """Marks the nodes the current rule emits from now on (shown in the dump's source)."""
        self._tracer.note = note


def _insert(shape: tuple, axis: int, size: int) -> tuple:
    return tuple(shape[:axis]) + (size,) + tuple(shape[axis:])


def vmap_graph(graph: Graph, in_axes, out_axes, axis_size: int, *, randomness: str = "different",
               conv_strategy: str | None = None, target: str = "xla", name: str | None = None,
               **options) -> Graph:
    """Returns `graph` mapped over a new axis of size `axis_size`.

    in_axes: one int-or-None per graph input (where its mapped axis is, or unbatched);
    out_axes: one int-or-None per graph output (state outputs included). An unbatched output
    with an int out axis is broadcast; a batched output with out axis None is an error.
    target: the backend the result is lowered for ("xla" or "onnx"); rules with several
    lowerings (convolutions, the SPLIT form) choose by it.
    """
    if len(in_axes) != len(graph.inputs) or len(out_axes) != len(graph.outputs):
        raise ValueError(f"vmap_graph: {len(in_axes)} in_axes for {len(graph.inputs)} inputs and "
                         f"{len(out_axes)} out_axes for {len(graph.outputs)} outputs")
    if randomness not in RANDOMNESS:
        raise ValueError(f"vmap: randomness must be one of {RANDOMNESS}, got {randomness!r}")
    ctx = BatchContext(axis_size, randomness, conv_strategy, target, **options)
    meta = dict(graph.meta)
    if target == "xla":
        # The XLA pipeline will run a row-wise result over a large batch tile by tile
        # (passes/tile_rows.py): make the size-dependent choices for one tile's rows.
        from .tile_rows import plan_tile
        plan = plan_tile(graph, axis_size)
        if plan is not None:
            meta["row_tile"], rows = plan
            ctx.row_fraction = plan[0] / rows
    split_min_elements = SPLIT_MIN_ELEMENTS[target] / ctx.row_fraction
    # Members' gradients of mapped parameters are stacked where they are made (see
    # STACK_PARAMETER_GRADIENTS): known by the grad pass's note and their parameter's shape; by
    # shape alone an activation whose batch size equals a parameter's dimension was stacked at
    # that size and not at others, and an export lost its dynamic batch.
    gradient_shapes = {tuple(v.shape) for v, ax in zip(graph.inputs, in_axes)
                       if ax is not None and v.kind == "param"} if STACK_PARAMETER_GRADIENTS[target] else set()
    grad_note = f"[{PARAM_GRAD_NOTE}]"
    tracer = OriginTracer(name or f"vmap_{graph.name}")
    ctx._tracer = tracer
    env = {}
    for v, ax in zip(graph.inputs, in_axes):
        shape = v.shape if ax is None else _insert(v.shape, ax, axis_size)
        new = tracer.add_input(TensorType(shape, v.dtype), v.name, v.kind)
        new.mapped_axis = ax
        env[v] = (new, ax)
    with tracer:
        for node in graph.nodes:
            ins = [env[v] for v in node.inputs]
            dims = tuple(d for _, d in ins)
            tracer.origin, tracer.note = node.source, ""
            prim = node.primitive
            if SPLIT in dims and prim.deterministic:
                outs, out_dims = _per_member(ctx, node, ins)
            elif all(d is None for d in dims) and prim.deterministic:
                outs = tracer.add_node(prim, tuple(v for v, _ in ins), node.attrs)
                out_dims = (None,) * len(outs)
            else:
                ins = [_stacked(v, d) for v, d in ins]
                outs, out_dims = _apply_rule(ctx, node, ins, tuple(d for _, d in ins))
            for old, new, d in zip(node.outputs, outs, out_dims):
                if d == SPLIT and (math.prod(old.shape) * axis_size < split_min_elements
                                   or (tuple(old.shape) in gradient_shapes
                                       and grad_note in node.source.scope)):
                    new, d = _stacked(new, d)
                if d is not None and d != SPLIT:
                    new.mapped_axis = d
                env[old] = (new, d)
        tracer.origin, tracer.note = SourceInfo(), ""
        results = [_place_output(graph, i, *_stacked(*env[v]), oa, axis_size) for i, (v, oa)
                   in enumerate(zip(graph.outputs, out_axes))]
    return tracer.build(results, graph.state_names, meta)


def _stacked(value, d):
    """(value, dim) with a SPLIT value's members stacked on axis 0."""
    if d != SPLIT:
        return value, d
    from ..ops.functional import stack
    out = stack([Tensor._symbolic(v) for v in value], 0)._payload
    out.mapped_axis = 0
    return out, 0


def _per_member(ctx, node, ins):
    """Applies the node once per member: SPLIT inputs give their members, batched ones
    their slices, unbatched ones themselves. Every output is SPLIT."""
    from ..ops.batching import member
    prim = node.primitive
    results = []
    for i in range(ctx.axis_size):
        args = [Tensor._symbolic(v[i]) if d == SPLIT else member(Tensor._symbolic(v), d, i) for v, d in ins]
        out = prim.bind(*args, **node.attrs)
        results.append([t._payload for t in (out if prim.multiple_results else (out,))])
    return [list(per_output) for per_output in zip(*results)], (SPLIT,) * len(node.outputs)


def _apply_rule(ctx, node, ins, dims):
    prim = node.primitive
    if prim.batch_rule is None:
        raise NotImplementedError(f"vmap: primitive {prim.name!r} has no batch rule (node: {node})")
    ctx.node = node
    args = tuple(Tensor._symbolic(v) for v, _ in ins)
    out, out_dim = prim.batch_rule(ctx, args, dims, **node.attrs)
    if not prim.multiple_results:
        out, out_dim = (out,), (out_dim,)
    values = tuple([t._payload for t in o] if d == SPLIT else o._payload for o, d in zip(out, out_dim))
    for old, new, d in zip(node.outputs, values, out_dim):  # a rule bug, caught where it happens
        for member_value in (new if d == SPLIT else [new]):
            expected = old.shape if d in (None, SPLIT) else _insert(old.shape, d, ctx.axis_size)
            assert member_value.shape == expected and member_value.dtype is old.dtype, \
                f"batch rule of {prim.name} gave {member_value.type} at axis {d}, expected {expected} {old.dtype}"
    return values, tuple(out_dim)


def _place_output(graph, index, value, d, out_axis, axis_size):
    from ..ops.batching import materialize
    if out_axis is None:
        if d is not None:
            n_user = len(graph.outputs) - len(graph.state_names)
            name = graph.state_names[index - n_user] if index >= n_user else None
            if name == "global_rng_key":  # graphcell's own generator, advanced by some members only
                what = ("a random draw (Dropout, ops.uniform, ops.normal) runs under a tensor `if` or loop "
                        "whose condition differs per member, so graphcell's generator would advance for some "
                        "members only; draw before the `if` or loop, or pass each member an explicit key "
                        "(ops.uniform(shape, key=key))")
            elif name is not None and any(v.kind == "arg" and v.name == name for v in graph.inputs):
                what = (f"argument {name!r} is written in place with a value that differs per member, but "
                        "in_axes does not map it (None); map it, or write a copy made inside the function")
            elif name is not None:
                what = (f"Parameter {name!r} is written with a value that differs per member; a shared "
                        "Parameter cannot hold it (vmap a CellList to give each member its own)")
            else:
                what = f"output {index} differs per member but its out_axes is None"
            raise VmapError(f"vmap: {what}")
        return value
    t = materialize(Tensor._symbolic(value), d, axis_size, out_axis)
    t._payload.mapped_axis = out_axis
    return t._payload

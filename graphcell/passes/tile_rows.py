"""Row tiling: run a row-wise graph over a large batch in cache-sized tiles, one after another.

A graph is *row-wise* when each row of its outputs is computed from the same row of its
batched inputs alone, by the same computation for every row: inference of most networks
(no batch statistics, no loss over the batch, no random draws per row). Such a graph gives
the same results run on the whole batch or tile by tile, and on a CPU the tiles are faster
once the batch's intermediates outgrow the cache: an ensemble of 64 LeNet5 on a batch of 256
holds 300 MiB of first-layer activations in one program, and XLA streams each layer's output
through memory before the next layer reads it; as 16 tiles of 16 rows each layer's output
stays in cache (1470 ms -> 760 ms on the 2-core development machine; N=4: 105 -> 72 ms).
Since the direct CPU convolution (ops/cpu_conv.py) that ensemble runs as fast untiled; the
tiles keep its memory to one tile's (25 MiB instead of 296: the tiles stay in order only under
the scheduler ops/tiling.py asks XLA for).

The pass (last in the XLA pipeline) proves the graph row-wise with `row_axes`, a dataflow
analysis over the primitives that cannot mix rows, builds the graph again at the tile's row
count (`at_rows`) and wraps it in one `tile_rows` node (ops/tiling.py):

    graph vmap_LeNet5(%x: f32[256,1,32,32], %conv1.weight: f32[vmap:64,6,1,5,5] param, ...) {
      %0:f32[64,256,10] = tile_rows(%x, %conv1.weight, ...) {in_rows=(0,None,...), out_rows=(1,), rows=256}
          body:
          graph vmap_LeNet5(%x: f32[16,1,32,32], ...) { ... }
      return %0
    }

Anything the analysis does not know (a primitive without a row rule, a reduction over the
rows, a row-dependent constant) leaves the graph as it is: tiling is an optimisation, never
a requirement.
"""
from __future__ import annotations

import math
from typing import Callable, NamedTuple

from ..ir.core import Graph, GraphBuilder, Node, TensorType, Value
from ..ir.views import value_bytes
from ..ops import PRIMITIVES
from ..ops.elementwise import BINARY, UNARY
from ..ops.reductions import REDUCERS
from ..ops.tiling import tile_rows as tile_rows_p
from .base import PassResult

# The largest intermediate of one tile should fit in about this many bytes (a core's L2 on
# the machines measured: 4 MiB), and tiling starts when the whole batch's is 4x that. Measured
# on LeNet5 ensembles (bench/bench_vmap.py --tiles, 2 cores): tiles gain 20-45% where the
# batch's largest intermediate is 19 MB or more (N=4, 16, 64 at batch 256; N=64 at 32; one
# model at batch 1024: 10%), little or nothing at 5-10 MB (N=4 at 64 and 128, one model at
# 256) and lose at N=16, batch 32. Tiles of 8 to 128 rows were within this machine's noise
# of each other; below 16 rows each tile's ~N x layers kernel launches start to show.
TILE_BYTES = 4 << 20
MIN_TOTAL_BYTES = 4 * TILE_BYTES
MIN_TILE_ROWS = 16
# Each tile is a copy of the graph in the compiled program: cap the compile time.
MAX_TILES = 16


class NotRowwise(Exception):
    """The graph mixes rows (or the analysis cannot tell): leave it untiled."""


# -- the analysis: where each value keeps its rows ---------------------------------------------

class RowRule(NamedTuple):
    """A primitive's row rule (its `row_rule` slot). `out_axes(node, axes)` gets each input's
    row axis (None: the same for every row; called only when some input has rows) and returns
    each output's, or raises NotRowwise. `resize(node, axes, rows)`, for primitives whose attrs
    spell out the row count, gives the attrs at `rows` rows (`axes`: every value's row axis)."""
    out_axes: Callable
    resize: Callable | None = None


def _elementwise(node: Node, axes):
    (out,) = node.outputs
    found = {a + out.ndim - v.ndim for v, a in zip(node.inputs, axes) if a is not None}
    if len(found) != 1:
        raise NotRowwise
    (row,) = found
    for v, a in zip(node.inputs, axes):
        at = row - (out.ndim - v.ndim)
        if a is None and at >= 0 and v.shape[at] != 1:
            raise NotRowwise  # a row-free operand that still differs along the rows
    return (row,)


def _reshape(node: Node, axes):
    (x,), (a,), out = node.inputs, axes, node.outputs[0]
    # Rows survive a reshape that keeps the row axis whole and the axes before it together.
    before = math.prod(x.shape[:a])
    for o in range(out.ndim):
        if math.prod(out.shape[:o]) == before and out.shape[o] == x.shape[a]:
            return (o,)
    raise NotRowwise


def _resize_shape(node: Node, axes: dict, rows: int) -> dict:
    o, shape = axes[node.outputs[0]], node.attrs["shape"]
    return {**node.attrs, "shape": shape[:o] + (rows,) + shape[o + 1:]}


def _transpose(node: Node, axes):
    return (node.attrs["perm"].index(axes[0]),)


def _broadcast(node: Node, axes):
    (a,) = axes
    return (node.attrs["dims"][a],)  # the rule checks shape[dims[a]] against the row size


def _reduction(node: Node, axes):
    reduced, (a,) = node.attrs["axes"], axes
    if a in reduced:
        raise NotRowwise
    return (a - sum(r < a for r in reduced),)


def _arg_reduction(node: Node, axes):
    axis, (a,) = node.attrs["axis"], axes
    if a == axis:
        raise NotRowwise
    return (a - (axis < a),)


def _dot(node: Node, axes):
    (x, y), (ax, ay) = node.inputs, axes
    (lc, rc), (lb, rb) = node.attrs["contract"], node.attrs["batch"]
    free_x = [i for i in range(x.ndim) if i not in lc + lb]
    free_y = [i for i in range(y.ndim) if i not in rc + rb]
    if ax is not None and ay is not None:  # both rowed: only as a matching batch pair
        if ax in lb and rb[lb.index(ax)] == ay:
            return (lb.index(ax),)
        raise NotRowwise
    if ax is not None and ax in free_x:
        return (len(lb) + free_x.index(ax),)
    if ay is not None and ay in free_y:
        return (len(lb) + len(free_x) + free_y.index(ay),)
    raise NotRowwise  # rows contracted, or paired with a row-free batch axis


def _images(node: Node, axes):
    """Convolutions: rows are the images (axis 0 of the first operand), the weights row-free."""
    if axes[0] != 0 or any(a is not None for a in axes[1:]):
        raise NotRowwise
    return (0,)


def _conv(node: Node, axes):
    if node.attrs["batch_groups"] != 1:
        raise NotRowwise  # the weight-gradient form sums over images
    return _images(node, axes)


def _window(node: Node, axes):
    (a,), attrs = axes, node.attrs
    if attrs["window"][a] != 1 or attrs["strides"][a] != 1 or tuple(attrs["padding"][a]) != (0, 0):
        raise NotRowwise
    return (a,)


def _concatenate(node: Node, axes):
    if len(set(axes)) != 1 or axes[0] is None or axes[0] == node.attrs["axis"]:
        raise NotRowwise
    return (axes[0],)


def _slice(node: Node, axes):
    (x,), (a,), attrs = node.inputs, axes, node.attrs
    if (attrs["start"][a], attrs["limit"][a], attrs["strides"][a]) != (0, x.shape[a], 1):
        raise NotRowwise
    return (a,)


def _resize_slice(node: Node, axes: dict, rows: int) -> dict:
    a, limit = axes[node.inputs[0]], node.attrs["limit"]
    return {**node.attrs, "limit": limit[:a] + (rows,) + limit[a + 1:]}


def _rev(node: Node, axes):
    (a,) = axes
    if a in node.attrs["axes"]:
        raise NotRowwise
    return (a,)


def _pad(node: Node, axes):
    (a, av), attrs = axes, node.attrs
    if av is not None or attrs["lo"][a] != 0 or attrs["hi"][a] != 0:
        raise NotRowwise
    return (a,)


def _resize(node: Node, axes):
    """Resampling keeps the leading axes' rows apart; a resized axis mixes them."""
    (a,) = axes
    if a >= node.inputs[0].ndim - len(node.attrs["sizes"]):
        raise NotRowwise
    return (a,)


def _take(node: Node, axes):
    idx, (ax, ai), axis = node.inputs[1], axes, node.attrs["axis"]
    if ax is not None and ai is None and ax != axis:   # rows of a table, fixed indices
        return (ax if ax < axis else ax + idx.ndim - 1,)
    if ax is None and ai is not None:                  # a fixed table, rows of indices (embeddings)
        return (axis + ai,)
    raise NotRowwise


def _take_along(node: Node, axes):
    if len(set(axes)) != 1 or axes[0] == node.attrs["axis"]:
        raise NotRowwise
    return (axes[0],)


ROW_RULES = {
    **{name: RowRule(_elementwise) for name in (*UNARY, *BINARY, "select", "cast", "stop_gradient")},
    "reshape": RowRule(_reshape, _resize_shape), "transpose": RowRule(_transpose),
    "broadcast_in_dim": RowRule(_broadcast, _resize_shape),
    **{name: RowRule(_reduction) for name in REDUCERS},
    "argmax": RowRule(_arg_reduction), "argmin": RowRule(_arg_reduction),
    "dot_general": RowRule(_dot), "conv": RowRule(_conv), "conv_transpose": RowRule(_images),
    "reduce_window_max": RowRule(_window), "reduce_window_sum": RowRule(_window),
    "concatenate": RowRule(_concatenate), "slice": RowRule(_slice, _resize_slice), "rev": RowRule(_rev), "pad": RowRule(_pad),
    "take": RowRule(_take), "take_along_axis": RowRule(_take_along), "resize": RowRule(_resize),
}

for _name, _rule in ROW_RULES.items():
    PRIMITIVES[_name].row_rule = _rule


def batch_inputs(graph: Graph) -> tuple[list, int] | None:
    """Each input's row axis (None for parameters and scalars) and the number of rows.

    The rows are the first axis of the first "arg" input that is not its vmap axis (an
    ensemble's per-member batch); other args share them where that axis has the same size.
    None when no arg has such an axis."""
    def candidate(v: Value):
        return next((i for i in range(v.ndim) if i != v.mapped_axis), None)
    rows = next((v.shape[candidate(v)] for v in graph.inputs
                 if v.kind == "arg" and candidate(v) is not None), None)
    if rows is None:
        return None
    axes = []
    for v in graph.inputs:
        a = candidate(v) if v.kind == "arg" else None
        axes.append(a if a is not None and v.shape[a] == rows else None)
    return axes, rows


def row_axes(graph: Graph, in_axes: list, rows: int) -> dict:
    """Each value's row axis (None: the same for all rows) given the inputs'; raises
    NotRowwise when some output row would depend on other rows, or the analysis cannot tell."""
    axes: dict = dict(zip(graph.inputs, in_axes))
    for node in graph.nodes:
        if not node.pure:
            raise NotRowwise  # a side effect would run once per tile
        ins = [axes[v] for v in node.inputs]
        if all(a is None for a in ins):
            outs = (None,) * len(node.outputs)
        else:
            rule = node.primitive.row_rule
            if rule is None:
                raise NotRowwise
            outs = rule.out_axes(node, ins)
            if any(v.shape[a] != rows for v, a in zip(node.outputs, outs)):
                raise NotRowwise  # e.g. a broadcast that creates the row axis from size 1
        axes.update(zip(node.outputs, outs))
    n_user = len(graph.outputs) - len(graph.state_names)
    if any(axes[v] is not None for v in graph.outputs[n_user:]):
        raise NotRowwise  # a Parameter write that differs per row
    return axes


# -- the same graph at another row count --------------------------------------------------------

def _resized(t: TensorType, axis, rows: int) -> TensorType:
    if axis is None:
        return t
    return TensorType(t.shape[:axis] + (rows,) + t.shape[axis + 1:], t.dtype)


def at_rows(graph: Graph, axes: dict, rows: int, name: str | None = None) -> Graph:
    """`graph` rebuilt for `rows` rows (every row axis resized); each node's shape rule is run
    again and must agree, so a wrong row rule fails here rather than computing garbage."""
    builder = GraphBuilder(name or graph.name)
    env: dict[Value, Value] = {}
    for v in graph.inputs:
        new = builder.add_input(_resized(v.type, axes[v], rows), v.name, v.kind)
        new.mapped_axis = v.mapped_axis
        env[v] = new
    for node in graph.nodes:
        ins = tuple(env[v] for v in node.inputs)
        resize = node.primitive.row_rule.resize if node.primitive.row_rule is not None else None
        rowed = any(axes[v] is not None for v in node.inputs)
        attrs = resize(node, axes, rows) if rowed and resize is not None else node.attrs
        outs = builder.add_node(node.primitive, ins, attrs, node.source)
        for old, new in zip(node.outputs, outs):
            if new.type != _resized(old.type, axes[old], rows):
                raise NotRowwise
            new.mapped_axis = old.mapped_axis
            env[old] = new
    return builder.build([env[v] for v in graph.outputs], graph.state_names, graph.meta)


# -- the pass ------------------------------------------------------------------------------------

def largest_row_bytes(graph: Graph, axes: dict, rows: int) -> int:
    """Bytes per row of the graph's largest intermediate with rows."""
    return max((value_bytes(v) // rows for node in graph.nodes for v in node.outputs if axes[v] is not None),
               default=0)


def choose_tile(row_bytes: int, rows: int) -> int | None:
    """The tile's row count for `rows` rows whose largest intermediate takes `row_bytes` per
    row, or None when one program over all rows is as good (the batch's intermediate is under
    MIN_TOTAL_BYTES): the largest power of two whose intermediate fits TILE_BYTES (at least
    MIN_TILE_ROWS, at most MAX_TILES tiles), if that makes at least two tiles.
    `set_context(row_tile=k)` forces k rows (0: never tile)."""
    from ..context import get_context
    forced = get_context("row_tile")
    if forced is not None:
        return forced if 0 < forced < rows else None
    if row_bytes * rows <= MIN_TOTAL_BYTES:
        return None
    tile = MIN_TILE_ROWS
    while tile * 2 * row_bytes <= TILE_BYTES:
        tile *= 2
    tile = max(tile, -(-rows // MAX_TILES))
    return tile if rows >= 2 * tile else None


def plan_tile(graph: Graph, copies: int = 1) -> tuple[int, int] | None:
    """(tile, rows): the tile the XLA pipeline will use for `graph`'s rows run as `copies`
    members of a vmap (the vmap pass sizes its lowering choices by one tile's rows), or None
    if it will not tile."""
    seeds = batch_inputs(graph)
    if seeds is None:
        return None
    in_axes, rows = seeds
    if rows < 2:   # nothing to tile (and an empty batch has no bytes per row)
        return None
    try:
        axes = row_axes(graph, in_axes, rows)
    except NotRowwise:
        return None
    tile = choose_tile(largest_row_bytes(graph, axes, rows) * copies, rows)
    return None if tile is None else (tile, rows)


def tile_rows(graph: Graph) -> PassResult:
    """Wraps a row-wise graph over a large batch in one `tile_rows` node (see the module doc)."""
    seeds = batch_inputs(graph)
    if seeds is None or any(n.primitive is tile_rows_p for n in graph.nodes):
        return PassResult(graph, False)
    in_axes, rows = seeds
    if rows < 2:
        return PassResult(graph, False)
    try:
        axes = row_axes(graph, in_axes, rows)
        # A vmapped graph carries the tile its lowering choices were made for (vmap's plan).
        tile = graph.meta.get("row_tile") or choose_tile(largest_row_bytes(graph, axes, rows), rows)
        if tile is None:
            return PassResult(graph, False)
        body = at_rows(graph, axes, tile, f"{graph.name}_tile")
        tail = at_rows(graph, axes, rows % tile, f"{graph.name}_tail") if rows % tile else None
    except NotRowwise:
        return PassResult(graph, False)
    builder = GraphBuilder(graph.name)
    inputs = []
    for v in graph.inputs:
        new = builder.add_input(v.type, v.name, v.kind)
        new.mapped_axis = v.mapped_axis
        inputs.append(new)
    out_rows = tuple(axes[v] for v in graph.outputs)
    outs = builder.add_node(tile_rows_p, tuple(inputs),
                            {"body": body, "tail": tail, "in_rows": tuple(in_axes), "out_rows": out_rows,
                             "rows": rows})
    for old, new in zip(graph.outputs, outs):
        new.mapped_axis = old.mapped_axis
    return PassResult(builder.build(outs, graph.state_names, graph.meta), True)

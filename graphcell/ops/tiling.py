"""`tile_rows`: run a row-wise subgraph over a batch tile by tile (see passes/tile_rows.py).

    %5:f32[4,256,10] = tile_rows(%x, %w) {in_rows=(0, None), out_rows=(1,), rows=256}
        body:
        graph tile(%x: f32[16,1,32,32], %w: f32[4,6,1,5,5] param) { ... }
        tail:
        None

`body` is the graph at `tile` rows (its inputs' row axes have that size), `tail` the same
graph at the remainder when `rows` is not a multiple of the tile (else None). Inputs with a
row axis (`in_rows[i]` an int) are sliced; the others (parameters) are passed whole. Each
output's row axis is `out_rows[i]`; an output without one (None) is the same in every tile
and is taken from the first.

Only the XLA pipeline emits it, after every other pass (`lowering_only`): it has no batch,
vjp or ONNX rule.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

from ..ir.core import Graph, TensorType
from .subgraphs import jax_fn
from .primitive import Primitive, check


def tile_size(body: Graph, in_rows: tuple) -> int:
    """The number of rows one run of `body` takes."""
    return next(v.shape[ax] for v, ax in zip(body.inputs, in_rows) if ax is not None)


def _with_rows(t: TensorType, axis, rows: int) -> TensorType:
    if axis is None:
        return t
    return TensorType(t.shape[:axis] + (rows,) + t.shape[axis + 1:], t.dtype)


def _tile_rule(*ins: TensorType, body, tail, in_rows, out_rows, rows):
    tile = tile_size(body, in_rows)
    check(0 < tile < rows and (tail is None) == (rows % tile == 0),
          f"tile_rows: {rows} rows do not split into tiles of {tile}"
          + ("" if tail is None else f" and a tail of {rows % tile}"))
    for graph, size in ((body, tile), (tail, rows % tile)):
        if graph is None:
            continue
        expected = [_with_rows(t, ax, size) for t, ax in zip(ins, in_rows)]
        check([v.type for v in graph.inputs] == expected,
              f"tile_rows: the {size}-row graph takes {[str(v.type) for v in graph.inputs]}, "
              f"not the operands' tiles {[str(t) for t in expected]}")
    return tuple(_with_rows(v.type, ax, rows) for v, ax in zip(body.outputs, out_rows))


def _tile_impl(*arrays, body, tail, in_rows, out_rows, rows):
    tile = tile_size(body, in_rows)
    outputs, previous = [], None
    for start in range(0, rows, tile):
        size = min(tile, rows - start)
        run = jax_fn(body if size == tile else tail)
        rowed = [jax.lax.slice_in_dim(a, start, start + size, axis=ax)
                 for a, ax in zip(arrays, in_rows) if ax is not None]
        if previous is not None:
            # One tile after the other: tied to the previous tile's results, this tile's inputs
            # are not ready before that tile is done, so XLA cannot interleave the tiles (all
            # first layers, then all second layers...), which would bring back the large
            # working set that tiling removes.
            rowed, previous = jax.lax.optimization_barrier((rowed, previous))
            outputs[-1] = previous
        it = iter(rowed)
        previous = tuple(run(*[a if ax is None else next(it) for a, ax in zip(arrays, in_rows)]))
        outputs.append(previous)
    return tuple(outputs[0][i] if ax is None else jnp.concatenate([o[i] for o in outputs], axis=ax)
                 for i, ax in enumerate(out_rows))


# eager_jit=False: a jit cached per subgraph attr would keep every subgraph alive.
tile_rows = Primitive("tile_rows", _tile_rule, _tile_impl, multiple_results=True, eager_jit=False,
                      lowering_only=True)


# XLA's CPU scheduler by default orders a program for concurrency: it runs independent
# instructions breadth-first and drops the optimization barriers' order (jax 0.10: every
# tile's first layer, then every tile's pool...; an N=64 LeNet5 ensemble at batch 256 held
# all 16 tiles' first-layer maps, 300 MiB, as much as the untiled program). A program with a
# tile_rows node is compiled with the memory-optimized scheduler, which keeps the tiles in
# order: that ensemble then needs one tile's working set (see docs/architecture.md, "Row
# tiling"). Measured against the default scheduler on the same tiled program, N=16 batch 256:
# 75 -> 6.2 MiB and 0.76-0.79 of the time.
TILED_COMPILER_OPTIONS = {"xla_cpu_scheduler_type": "CPU_SCHEDULER_TYPE_MEMORY_OPTIMIZED"}


def compiler_options(graph: Graph) -> dict:
    """The XLA options `graph`'s program is compiled with: TILED_COMPILER_OPTIONS when it runs
    tiles (the pass puts the tile_rows node at the top level), else XLA's defaults."""
    return dict(TILED_COMPILER_OPTIONS) if any(n.primitive is tile_rows for n in graph.nodes) else {}

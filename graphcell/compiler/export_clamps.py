"""Dimensions that a slice of fixed length clips, for `export` with a dynamic axis.

x[-3:] over a dynamic batch has 3 rows from batch 3 on and fewer below: min(batch, 3), a `Sym`
with `hi`. The exporter's traces (export.py) are all past such a bound, so they agree on 3 and
would declare a constant, which onnxruntime contradicts at batch 2 (and a reshape or a mean
sized by it computes wrong there). This module finds the slices, traces once more below the
smallest bound, and gives each value whose size changes there a clipped dimension that follows
the slice, or refuses the export, naming the value, when none fits:

    x[-3:] * 2                 min(batch,3)
    x[1:4]                     min(batch-1,3)
    reshape(x[:3], (-1,))      min(5*batch,15)
    x[-3:][-1:]                min(batch,1)   (bounds read from the small trace: from the end)
    roll(x, 3, 0)              refused: at batch 2 it rolls by 1, not a slice of fixed bounds
"""
from __future__ import annotations

import sys
from dataclasses import dataclass

from ..ir.core import Graph
from .onnx import OnnxExportError, Sym

INT64_MAX = 2 ** 63 - 1


@dataclass
class SmallTrace:
    """The trace below every clipped dimension's bound, aligned with the example's trace: the
    twin of each node (None where tracing dropped a slice or reshape that does nothing at the
    small size: x[:3] of 2 rows) and of each value; `sizes` are its dynamic axes' sizes."""
    graph: Graph
    sizes: dict
    nodes: dict
    values: dict


def clipped_slices(a: Graph, b: Graph, dims: dict) -> list:
    """(node, axis, length) of each slice of a dynamic axis whose length is the same in both
    traces and smaller at some size from 1 on: [s:l], bounds from the start, is clip(n - s, 0,
    l - s) long; [-e1:-e2], from the end, clip(n - e2, 0, e1 - e2)."""
    from .export import _node_where
    found = []
    for na, nb in zip(a.nodes, b.nodes):
        if na.primitive.name != "slice":
            continue
        x = na.inputs[0]
        for axis, (n, length) in enumerate(zip(dims.get(x, x.shape), dims.get(na.outputs[0], na.outputs[0].shape))):
            if not isinstance(n, Sym) or isinstance(length, Sym):
                continue
            if na.attrs["strides"][axis] != 1 or n.m != 1 or n.hi is not None:
                raise OnnxExportError(
                    f"{_node_where(na)} takes {length} elements of dynamic axis {axis} ({n}) with a step or "
                    "from a strided or clipped slice: fewer at small sizes, which has no ONNX form here; slice "
                    "relative to the end (x[1:], x[::2]) or export with static shapes (dynamic_axes=False)")
            start, limit = na.attrs["start"][axis], na.attrs["limit"][axis]
            offset = start if nb.attrs["start"][axis] == start else x.shape[axis] - limit
            sym = Sym.floor_div(n.name, n.k, n.c - offset * n.d, n.d)._replace(lo=0, hi=length)
            if sym.unclipped.at(1) < length:
                found.append((na, axis, sym))
    return found


def small_sizes(clips: list, sizes: dict) -> dict:
    """`sizes` with each clipped symbol at the largest size below all its slices' bounds."""
    small = dict(sizes)
    for _, _, sym in clips:
        below = 1
        while sym.unclipped.at(below + 1) < sym.hi:
            below += 1
        small[sym.name] = min(small[sym.name], below)
    return small


def follow_clips(a: Graph, small: Graph, dims: dict, clips: list, sizes_a: dict, sizes: dict) -> SmallTrace:
    """Gives the clipped slices and every value whose size changes with them their clipped
    dimension in `dims` (x[-3:] * 2, a reshape or pad of it: a multiple of the slice's
    length or that plus a constant); refuses a value that follows none, or whose dimension
    at the small size is not what `dims` says."""
    from .export import _where
    nodes, values = _aligned(a, small, clips, sizes)
    for node, axis, sym in clips:
        out = node.outputs[0]
        entry = list(dims.get(out, out.shape))
        entry[axis] = sym
        dims[out] = tuple(entry)
    known = list(dict.fromkeys(sym for _, _, sym in clips))
    shown = _shown({s: n for s, n in sizes.items() if n != sizes_a[s]})
    for va, vs in values.items():
        dims_a = dims.get(va, va.shape)
        if len(dims_a) != len(vs.shape):
            raise OnnxExportError(f"a value of {_where(va)} has rank {len(dims_a)} at the example's size but "
                                  f"{len(vs.shape)} at {shown}" + _why(clips))
        entry = list(dims_a)
        for axis, (d, got) in enumerate(zip(dims_a, vs.shape)):
            want = max(d.at(sizes[d.name]), 0) if isinstance(d, Sym) else d
            if want == got:
                continue
            # what the node reads is clipped by, before any other clip (a constant's shape may come
            # from any: zeros(x[:3].shape)); one that is the same at both sizes before a multiple
            read = [e for v in (va.producer.inputs if va.producer is not None else ())
                    for e in dims.get(v, ()) if isinstance(e, Sym) and e.hi is not None]
            fits = [] if isinstance(d, Sym) else \
                [f for f in (_follow(c, d, got, sizes_a, sizes) for c in read or known) if f is not None]
            fits = {f for f in fits if f in known} or set(fits)
            if len(fits) != 1:
                raise OnnxExportError(
                    f"dimension {axis} of a value of {_where(va)} is {d} at the traced sizes, but {got} at "
                    f"{shown}, which no dynamic dimension that ONNX can spell gives" + _why(clips))
            entry[axis] = fits.pop()
            known.append(entry[axis])
        dims[va] = tuple(entry)
    return SmallTrace(small, sizes, nodes, values)


def _shown(sizes: dict) -> str:
    return ", ".join(f"{s} = {n}" for s, n in sorted(sizes.items()))


def _follow(clip: Sym, d: int, got: int, sizes_a: dict, sizes: dict) -> Sym | None:
    """`clip` times or plus the constant that makes it `d` at the example's size, if that
    also makes it `got` at the small size."""
    at_a, at_small = clip.at(sizes_a[clip.name]), clip.at(sizes[clip.name])
    if at_a and d % at_a == 0 and d // at_a * at_small == got:
        return clip.times(d // at_a)
    if d - at_a == got - at_small:
        return clip.plus(d - at_a)
    return None


def _why(clips: list) -> str:
    from .export import _node_where
    slices = "; ".join(f"{_node_where(n)}: {sym} along axis {axis}" for n, axis, sym in clips[:3])
    slices += f"; and {len(clips) - 3} more" if len(clips) > 3 else ""
    return (f". The traces are past the bound of slices of fixed length along a dynamic axis ({slices}), "
            "and below it the graph must follow them (elementwise ops, reshapes, pads and slices do); "
            "slice relative to the end (x[1:], x[:-1]) or export with static shapes (dynamic_axes=False)")


def _aligned(a: Graph, small: Graph, clips: list, sizes: dict):
    """({node of a: its twin or None}, {value of a: its twin}) for two traces of one program.
    A slice that takes a whole axis and a reshape to the same shape are not traced, so those
    may have no twin; a slice's twin must be one of its readings at the small size (x[-3:] of 2
    rows is whole, so the next slice there is another's)."""
    from .export import _node_where, _same_constants
    values = dict(zip(a.inputs, small.inputs))
    nodes, constants = {}, []
    rest = iter(small.nodes)
    twin = next(rest, None)
    for node in a.nodes:
        if node.primitive.name == "constant" and not (twin is not None and twin.primitive is node.primitive
                                                      and _same_constants(node, twin) is None):
            # equal constants are one node: zeros(x[:3].shape) and zeros(x.shape) are at batch 2
            same = next((c for c in constants if _same_constants(node, c) is None), None)
            if same is not None:
                nodes[node] = same
                values[node.outputs[0]] = same.outputs[0]
                continue
        if node.primitive.name == "slice":
            seen = [_readings(node, axis, values[node.inputs[0]].shape[axis]) for axis in range(node.inputs[0].ndim)]
        if twin is not None and twin.primitive is node.primitive \
                and [values.get(v) for v in node.inputs] == list(twin.inputs) \
                and _same_constants(node, twin) is None \
                and (node.primitive.name != "slice" or all(_reading(twin, i) in r for i, r in enumerate(seen))):
            nodes[node] = twin
            values.update(zip(node.outputs, twin.outputs))
            constants += [twin] if twin.primitive.name == "constant" else []
            twin = next(rest, None)
        elif node.primitive.name in ("slice", "reshape") and node.inputs[0] in values and (
                node.primitive.name == "reshape"
                or all((n, 0) in r for n, r in zip(values[node.inputs[0]].shape, seen))):
            nodes[node] = None
            values[node.outputs[0]] = values[node.inputs[0]]
        else:
            problem = (f"{_node_where(node)} is not in it" if twin is None else
                       f"{_node_where(node)} became {twin.primitive.name}"
                       if twin.primitive is not node.primitive else
                       _same_constants(node, twin) or f"{_node_where(node)} reads other values or other bounds")
            raise OnnxExportError(f"the graph traced below the bound of a clipped slice ({_shown(sizes)}) differs "
                                  f"({problem})" + _why(clips))
    if twin is not None or [values.get(v) for v in a.outputs] != list(small.outputs):
        raise OnnxExportError(f"the graph traced below the bound of a clipped slice ({_shown(sizes)}) has other "
                              "outputs" + _why(clips))
    return nodes, values


def _readings(node, axis: int, n: int) -> dict:
    """{(length, first index): (start, end) in ONNX} for each way to read slice `node`'s bounds
    along `axis` (each from the start or relative to the end; from the start first) over an
    axis of `n` elements."""
    size = node.inputs[0].shape[axis]
    start, limit, stride = (node.attrs[k][axis] for k in ("start", "limit", "strides"))
    from_end = lambda bound: bound - size if bound != size else INT64_MAX   # noqa: E731
    readings = {}
    for begin in (start, from_end(start)):
        for end in (limit, from_end(limit)):
            got = range(*slice(min(begin, sys.maxsize), min(end, sys.maxsize), stride).indices(n))
            readings.setdefault((len(got), got.start if len(got) else 0), (begin, end))
    return readings


def _reading(node, axis: int) -> tuple:
    """(length, first index) of slice `node` along `axis`."""
    got = range(*(node.attrs[k][axis] for k in ("start", "limit", "strides")))
    return len(got), got.start if len(got) else 0


def clipped_bounds(ctx, axis: int, start: int, limit: int, stride: int) -> tuple:
    """The ONNX bounds of a slice along a clipped axis (one whose size the example's traces
    share: `other` cannot tell from the start from relative to the end), as the trace below
    the clip saw them (from the start where both readings agree there)."""
    small = ctx.small
    if small is None:
        ctx.fail(f"slice [{start}:{limit}:{stride}] of axis {axis}, whose size ({ctx.in_dims[0][axis]}) a slice "
                 "of fixed length clips, is not supported inside a loop or cond")
    n = small.values[ctx.node.inputs[0]].shape[axis]
    twin = small.nodes.get(ctx.node)
    return _readings(ctx.node, axis, n)[_reading(twin, axis) if twin is not None else (n, 0)]

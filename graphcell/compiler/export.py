"""`graphcell.export`: a Cell, a function or a vmapped ensemble to one ONNX file.

    >>> graphcell.export(net, Tensor(np.zeros((1, 1, 32, 32), np.float32)), file_name="lenet")
    'lenet.onnx'

The IR has concrete shapes, so dynamic axes come from tracing twice: once with the example
inputs and once with the dynamic axes resized. The two graphs must have the same structure;
every dimension that differs is k * batch + c and becomes a named ONNX dimension (`batch`,
`2*batch`, `batch-1` for x[1:]), or a strided slice's length and what keeps it
(`ceil(batch/2)` for x[::2], `3*ceil(batch/2)` flattened); one with an offset or a division is
checked against a third trace. Reshapes with batch-dependent targets get -1 or a runtime shape.
A slice of fixed length (x[-3:]) is shorter below its bound: a fourth trace there gives it and
what follows it a clipped dimension (`min(batch,3)`, export_clamps.py).
"""
from __future__ import annotations

import contextlib
import json
import os
import stat
import tempfile
import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import onnx

from ..context import lowering_for
from ..frontend import pytree
from ..frontend.trace import Traced, _arg_names, bump_mode_epoch, trace
from ..ir.core import Graph
from ..ops.primitive import Literal
from ..tensor import Tensor
from .export_clamps import clipped_slices, follow_clips, small_sizes
from .export_ensemble import batch_axes, member_axis
from .export_passes import optimized
from .onnx import PROTO_LIMIT, Lowered, OnnxExportError, Sym, lower
from .onnx_cache import cached_model
from .save_graphs import onnx_compile

__all__ = ["export", "to_onnx", "OnnxExport", "OnnxExportError"]

@dataclass
class OnnxExport:
    """An exported model with what made it: the traced graph(s) and the IR -> ONNX name map."""
    model: onnx.ModelProto
    lowered: Lowered | None   # None when `export` read the model from the ONNX cache
    traced: Traced
    dynamic: dict = field(default_factory=dict)   # input name -> {axis: symbol}
    seconds: dict = field(default_factory=dict)   # trace / lower timings


# -- ensemble heads ---------------------------------------------------------------------------------

def _head_mean(out):
    from ..ops import functional as F
    return F.mean(F.softmax(out, -1), 0)


def _head_vote(out):
    from ..ops import functional as F
    votes = F.argmax(out, -1)                                   # [N, batch]
    counts = F.reduce_sum(F.one_hot(votes, out.shape[-1], dtype=out.dtype), 0)
    return F.argmax(counts, -1)                                 # ties go to the lower class


def _head_mean_std(out):
    from ..ops import functional as F
    probs = F.softmax(out, -1)
    mean = F.mean(probs, 0)
    std = F.sqrt(F.mean(F.square(F.sub(probs, mean)), 0))
    return mean, std


HEADS = {"mean": _head_mean, "vote": _head_vote, "mean_std": _head_mean_std}


def _with_head(fn, reduce):
    if reduce is None:
        return fn
    head = HEADS.get(reduce)
    if head is None:
        raise ValueError(f"export: reduce must be one of {sorted(HEADS)} or None, got {reduce!r}")

    def headed(*args):
        out = fn(*args)
        if not isinstance(out, Tensor) or out.ndim < 2:
            raise ValueError(f"export(reduce={reduce!r}) needs one ensemble output [members, batch, ...]")
        axis = member_axis(fn, out)
        if axis:   # out_axes put the members elsewhere: the heads reduce axis 0
            from ..ops import functional as F
            out = F.moveaxis(out, axis, 0)
        return head(out)
    headed.__name__ = getattr(fn, "__name__", type(fn).__name__)
    return headed


# -- dynamic axes -----------------------------------------------------------------------------------

def _normalize_axes(dynamic_axes, leaves, names, output_names=()) -> dict[int, dict[int, str]] | None:
    """{leaf index: {axis: symbol}}; None means "find the batch axis automatically". A list
    names its first axis `batch` and each further one `<input>_dynamic_axes_<k>` (torch.onnx's
    names: a list does not tie its axes together). The name of a tuple argument (an LSTM's
    `hx`, whose Tensors are the inputs `hx.0` and `hx.1`) gives the axes of each of its Tensors."""
    if dynamic_axes is None:
        return None
    if dynamic_axes is False or dynamic_axes == {}:
        return {}
    out: dict[int, dict[int, str]] = {}
    for key, axes in dict(dynamic_axes).items():
        if isinstance(key, int):
            indices = [key]
        elif key in names:
            indices = [names.index(key)]
        elif any(n.startswith(f"{key}.") for n in names):
            indices = [i for i, n in enumerate(names) if n.startswith(f"{key}.")]
        elif key in output_names or key == "output" or str(key).startswith("output_"):
            continue   # an output's axes (torch.onnx's convention): outputs follow the inputs
        else:
            raise ValueError(f"export: dynamic_axes names {key!r}, which is neither an input ({', '.join(names)}) "
                             "nor an output")
        for index in indices:
            if not 0 <= index < len(leaves):
                raise ValueError(f"export: dynamic_axes names input {key!r}, but there are {len(leaves)} inputs")
            name, ndim = names[index] if index < len(names) else str(index), leaves[index].ndim
            if isinstance(axes, dict):
                spec = {int(a): str(s) for a, s in axes.items()}
            else:
                spec = {int(a): "batch" if k == 0 else f"{name}_dynamic_axes_{k + 1}" for k, a in enumerate(axes)}
            for a in spec:
                if not -ndim <= a < ndim:
                    raise ValueError(f"export: dynamic_axes gives axis {a} of input {name!r}, which has rank {ndim}")
            out[index] = {a % ndim: s for a, s in spec.items()}
    return out


def _resized(leaves, axes: dict[int, dict[int, str]], sizes: dict[str, int]):
    new = []
    for i, t in enumerate(leaves):
        spec = axes.get(i)
        if not spec:
            new.append(t)
            continue
        shape = list(t.shape)
        for a, s in spec.items():
            shape[a] = sizes[s]
        new.append(Tensor(np.zeros(shape, t.dtype.np_dtype)))
    return new


def _same_structure(a: Graph, b: Graph) -> str | None:
    """None if the graphs are the same program up to shapes, else the first difference."""
    if len(a.inputs) != len(b.inputs) or len(a.nodes) != len(b.nodes) or len(a.outputs) != len(b.outputs):
        return (f"{len(a.nodes)} vs {len(b.nodes)} nodes, {len(a.inputs)} vs {len(b.inputs)} inputs, "
                f"{len(a.outputs)} vs {len(b.outputs)} outputs")
    ia = {v: i for i, v in enumerate(a.inputs)}
    ib = {v: i for i, v in enumerate(b.inputs)}
    for na, nb in zip(a.nodes, b.nodes):
        if na.primitive is not nb.primitive or len(na.inputs) != len(nb.inputs) \
                or [ia.get(v) for v in na.inputs] != [ib.get(v) for v in nb.inputs]:
            return f"{na.primitive.name} (Cell '{na.source.scope}') vs {nb.primitive.name}"
        problem = _same_constants(na, nb)
        if problem is not None:
            return problem
        for va, vb in zip(na.outputs, nb.outputs):
            if va.ndim != vb.ndim:
                return f"{na.primitive.name} (Cell '{na.source.scope}') changes rank with the batch size"
            ia[va], ib[vb] = len(ia), len(ib)
    if [ia[v] for v in a.outputs] != [ib[v] for v in b.outputs]:
        return "the outputs differ"
    return None


def _same_constants(na, nb) -> str | None:
    """A constant that differs between the two traces (x * x.shape[0]) would be exported with
    the example batch's value: wrong at every other batch size. One shaped by the batch
    (ones((x.shape[0], 2))) is expanded at run time from a slice along its dynamic axes, so
    those slices are compared. Subgraphs are compared too."""
    for key, va in na.attrs.items():
        vb = nb.attrs.get(key)
        if isinstance(va, Literal) and isinstance(vb, Literal):
            a, b = va.array, vb.array
            if a.ndim == b.ndim and a.shape != b.shape:
                seed = tuple(slice(0, 1) if da != db else slice(None) for da, db in zip(a.shape, b.shape))
                a, b = a[seed], b[seed]
            if a.shape != b.shape or not np.array_equal(a, b, equal_nan=True):
                shown = (f"{a.item()!r} at one batch size and {b.item()!r} at another" if a.size == b.size == 1
                         else f"of shape {list(a.shape)} at one batch size and {list(b.shape)} at another")
                # constants are shared and carry no line of their own: the first reader's
                src = next((n.source for n in [na] + list(na.outputs[0].users) if n.source.file), None)
                at = f" (read at {src.file}:{src.line})" if src is not None else ""
                return (f"a constant made in Cell '{na.source.scope}' is {shown}{at}: a number computed from a "
                        "shape (x.shape[0] used in arithmetic, say) is baked into the file; use ops on "
                        "Tensors (ops.element_count) instead")
        elif isinstance(va, Graph) and isinstance(vb, Graph):
            problem = _same_structure(va, vb)
            if problem is not None:
                return problem
    return None


def _value_pairs(a: Graph, b: Graph) -> list:
    """The (value of `a`, value of `b`) pairs of two traces of one program: inputs and node
    outputs, those of subgraphs (cond branches, loop bodies) too."""
    pairs = []

    def collect(ga: Graph, gb: Graph):
        pairs.extend(zip(ga.inputs, gb.inputs))
        for na, nb in zip(ga.nodes, gb.nodes):
            pairs.extend(zip(na.outputs, nb.outputs))
            for key, sub in na.attrs.items():
                if isinstance(sub, Graph) and isinstance(nb.attrs.get(key), Graph):
                    collect(sub, nb.attrs[key])
    collect(a, b)
    return pairs


def _where(value) -> str:
    return _node_where(value.producer) if value.producer is not None else f"input {value.name!r}"


def _node_where(node) -> str:
    """`node <op> in Cell '<path>' (at <file>:<line>)`, for export's errors."""
    src = node.source
    return f"node {node.primitive.name} in Cell '{src.scope}'" + (f" (at {src.file}:{src.line})" if src.file else "")


def _fit(da: int, db: int, sizes_a: dict, sizes_b: dict) -> list:
    """The `Sym`s k * symbol + c (k >= 1) through both traces' sizes, multiples of a symbol
    (c = 0) first: the other kind needs a third trace to be believed (`_check_offsets`)."""
    fits = []
    for sym, sa in sizes_a.items():
        step, grew = sizes_b[sym] - sa, db - da
        if grew > 0 and grew % step == 0:
            k = grew // step
            fits.append(Sym(sym, k, da - k * sa))
    multiples = [f for f in fits if f.c == 0]
    return multiples or fits


def _dims(a: Graph, b: Graph, sizes_a: dict, sizes_b: dict) -> dict:
    """For each value of `a`, its dims with `Sym`s where `b` (the other batch size) differs.
    Most fit k * batch + c; a strided slice's length is worked out from its bounds
    (`_slice_dim`), and a value of its size (x[::2] * 2), or a multiple of it (the slice
    flattened), takes that dimension."""
    dims, divided = {}, []
    for va, vb in _value_pairs(a, b):
        if va.shape == vb.shape:
            continue
        entry = []
        for axis, (da, db) in enumerate(zip(va.shape, vb.shape)):
            if da == db:
                entry.append(da)
                continue
            fits = [_slice_dim(va, vb, axis, dims, sizes_a, sizes_b)] if _divides(va, axis, dims) \
                else _fit(da, db, sizes_a, sizes_b)
            fits = [f for f in fits if f is not None] or _from_divided(da, db, divided, sizes_a, sizes_b)
            if len(fits) > 1:
                raise OnnxExportError(f"dimension {axis} ({da}) is a multiple of more than one dynamic axis "
                                      f"({', '.join(str(f) for f in fits)}); export with other example sizes")
            if not fits:
                raise OnnxExportError(
                    f"dimension {axis} of a value of {_where(va)} is {da} at one batch size and {db} at "
                    f"another: it is not k * batch + c for a dynamic axis, so it cannot be exported dynamically"
                    + _why_not(va, axis, divided))
            if fits[0].d != 1 and fits[0].divided(fits[0].m) not in divided:
                divided.append(fits[0].divided(fits[0].m))
            entry.append(fits[0])
        dims[va] = tuple(entry)
    return dims


def _divides(va, axis: int, dims: dict) -> bool:
    """Whether `va` is a slice that is strided along `axis` or slices a strided slice's length."""
    node = va.producer
    if node is None or node.primitive.name != "slice":
        return False
    n = dims.get(node.inputs[0], node.inputs[0].shape)[axis]
    return node.attrs["strides"][axis] > 1 or (isinstance(n, Sym) and n.d > 1)


def _slice_dim(va, vb, axis: int, dims: dict, sizes_a: dict, sizes_b: dict):
    """The length of a strided slice along a dynamic axis, or None. Its start must be the same
    in both traces and its end the same relative to the axis' end (x[1::2], x[:-1:3]; a
    negative step reverses the axis first), so the length is ceil((n - e - s) / step), which
    for n = floor((k * batch + c) / d) is floor((k * batch + c + d * (step - 1 - e - s)) / (d * step))."""
    na, nb = va.producer, vb.producer
    n = dims.get(na.inputs[0], na.inputs[0].shape)[axis]
    if not isinstance(n, Sym) or n.m != 1:
        return None
    size_a, size_b = na.inputs[0].shape[axis], nb.inputs[0].shape[axis]
    s, step = na.attrs["start"][axis], na.attrs["strides"][axis]
    e = size_a - na.attrs["limit"][axis]
    if nb.attrs["start"][axis] != s or size_b - nb.attrs["limit"][axis] != e:
        return None
    sym = Sym.floor_div(n.name, n.k, n.c + n.d * (step - 1 - e - s), n.d * step)
    if (sym.at(sizes_a[n.name]), sym.at(sizes_b[n.name])) != (va.shape[axis], vb.shape[axis]):
        return None
    return sym


def _from_divided(da: int, db: int, divided: list, sizes_a: dict, sizes_b: dict) -> list:
    """A divided dimension (a strided slice's length) that is `da` and `db` in the two traces
    times the same whole number (a reshape merging it with a static axis), or plus the same
    number (a pad, a concatenation with a static piece: floor((k*n + c) / d) + e is
    floor((k*n + c + e*d) / d))."""
    for sym in divided:
        sa, sb = sym.at(sizes_a[sym.name]), sym.at(sizes_b[sym.name])
        if sa and sb and da % sa == 0 and db % sb == 0 and da // sa == db // sb:
            return [sym.times(da // sa)]
        if da - sa == db - sb:
            return [Sym.floor_div(sym.name, sym.k, sym.c + (da - sa) * sym.d, sym.d)]
    return []


def _why_not(va, axis: int, divided: list) -> str:
    """A hint for a dimension `_dims` could not fit."""
    node = va.producer
    if node is not None and node.primitive.name == "slice":
        return (": a slice of a dynamic axis must start at a fixed index or one relative to the end and "
                "end likewise (x[1:], x[:-2], x[::2]); a bound that follows the size otherwise "
                "(ops.chunk, ops.tensor_split or x[:n // 2] over the batch) has no ONNX form")
    if divided:
        return (f" (the values of a strided slice of a dynamic axis, {', '.join(map(str, divided))} long, "
                "keep their length through elementwise ops, slices, pads and reshapes that merge them with "
                "static axes, not through a concatenation with the batch or arithmetic on sizes)")
    return ""


def _check_offsets(a: Graph, c: Graph, dims: dict, sizes_c: dict) -> None:
    """Every dimension `_dims` made from two traces, checked against a third: two points fit
    k * batch + c to any dimension that grows (batch * batch, say); three must agree."""
    for va, vc in _value_pairs(a, c):
        expected = tuple(d.at(sizes_c[d.name]) if isinstance(d, Sym) else d for d in dims.get(va, va.shape))
        if expected != vc.shape:
            axis = next(i for i, (e, d) in enumerate(zip(expected, vc.shape)) if e != d)
            raise OnnxExportError(
                f"dimension {axis} of a value of {_where(va)} is {va.shape[axis]} at one batch size and "
                f"{vc.shape[axis]} at another, which does not follow {dims.get(va, va.shape)[axis]}: it cannot be "
                "exported dynamically")


def _stride_primes(graph: Graph) -> set:
    """The primes that divide some slice's stride in `graph` (subgraphs included)."""
    primes = set()
    for node in graph.nodes:
        for st in node.attrs.get("strides", ()) if node.primitive.name == "slice" else ():
            p = 2
            while st > 1:
                while st % p == 0:
                    primes.add(p)
                    st //= p
                p += 1
        for sub in node.attrs.values():
            if isinstance(sub, Graph):
                primes |= _stride_primes(sub)
    return primes


def _unlike(example: int, size: int, primes: set) -> int:
    """`size`, or the next size after it whose remainder mod each of `primes` differs from the
    example's: a strided slice's length m * ceil(n / d) then grows by no whole multiple of the
    size's growth between the two, so no k * n + c fits it (at 5 and 11, 4 * ceil(n / 2) is 12
    and 24: 2 * n + 2), and a multiple of a strided slice's length fits no other."""
    while any((size - example) % p == 0 for p in primes):
        size += 1
    return size


def _third_sizes(sizes_a: dict, sizes_b: dict, dims: dict) -> dict:
    """The sizes of the checking trace: unlike the first two, and for a symbol that a strided
    slice divides by d, not of the same remainder mod d as both (the sizes 5, 11 and 17 all
    give 4 * ceil(batch / 2) = 2 * batch + 2)."""
    divisors: dict[str, set] = {}
    for entry in dims.values():
        for d in entry:
            if isinstance(d, Sym) and d.d > 1:
                divisors.setdefault(d.name, set()).add(d.d)
    sizes = {}
    for k, (s, n) in enumerate(sorted(sizes_a.items())):
        size = n * (3 + k) + 2
        while any(sizes_a[s] % d == sizes_b[s] % d == size % d for d in divisors.get(s, ())):
            size += 1
        sizes[s] = size
    return sizes


def _trace_dynamic(fn, args, leaves, structure, axes, names):
    """Traces at the example sizes and at resized ones; returns (traced, other, dims, dynamic
    spec, the trace below clipped slices' bounds or None)."""
    traced = trace(fn, *args, name=_name_of(fn))
    if not axes:
        return optimized([traced])[0], None, {}, {}, None
    sizes_a: dict[str, int] = {}
    for i, spec in axes.items():
        for a, s in spec.items():
            size = leaves[i].shape[a]
            if sizes_a.setdefault(s, size) != size:
                raise ValueError(f"export: dynamic axis {s!r} has sizes {sizes_a[s]} and {size} in the inputs")
    # Unlikely sizes whose ratios to the example's differ between symbols (2 + k + 1/n), so that
    # each dimension's ratio identifies its symbol (2n + 3 + 2k made batch 3 -> 9 and seq 5 -> 15:
    # 5 * batch and 3 * seq alike).
    sizes_b = {s: _unlike(n, n * (2 + k) + 1, _stride_primes(traced.graph))
               for k, (s, n) in enumerate(sorted(sizes_a.items()))}
    other = _trace_resized(fn, traced, leaves, structure, axes, sizes_b)
    dims = _dims(traced.graph, other.graph, sizes_a, sizes_b)
    third = None
    if any(isinstance(d, Sym) and (d.c or d.d > 1) for entry in dims.values() for d in entry):
        sizes_c = _third_sizes(sizes_a, sizes_b, dims)
        third = _trace_resized(fn, traced, leaves, structure, axes, sizes_c)
        _check_offsets(traced.graph, third.graph, dims, sizes_c)
    spec = {names[i]: dict(sorted(s.items())) for i, s in axes.items()}
    clip_trace, clips = None, clipped_slices(traced.graph, other.graph, dims)
    if not clips:
        # Passes in step over the traces (export_passes.py: merging an RNN's scans), and the
        # dims of what they made; the dims above checked the program as written. A clipped
        # slice's trace below its bound pairs with the traced graph as traced, so exports
        # with one skip the passes.
        before = traced.graph
        traced, other, *rest = optimized([traced, other] + ([third] if third is not None else []))
        if traced.graph is not before:
            dims = _dims(traced.graph, other.graph, sizes_a, sizes_b)
            if rest:
                _check_offsets(traced.graph, rest[0].graph, dims, sizes_c)
        return traced, other, dims, spec, None
    sizes_s = small_sizes(clips, sizes_a)
    try:
        small = _trace_resized(fn, traced, leaves, structure, axes, sizes_s, same_structure=False)
    except OnnxExportError as e:   # the net refuses those sizes itself (narrow(x, 0, 1, 3) at batch 3)
        warnings.warn(f"export: slices of fixed length along a dynamic axis are shorter at "
                      f"{', '.join(f'{s} = {n}' for s, n in sorted(sizes_s.items()))}, where the code does "
                      f"not run ({type(e.__cause__).__name__}: {e.__cause__}); the file declares their "
                      "length above that", RuntimeWarning, stacklevel=4)
    else:
        clip_trace = follow_clips(traced.graph, small.graph, dims, clips, sizes_a, sizes_s)
    return traced, other, dims, spec, clip_trace


def _trace_resized(fn, traced, leaves, structure, axes, sizes, same_structure: bool = True) -> Traced:
    """`fn` traced with the dynamic axes at `sizes`, which must give `traced`'s program
    (`same_structure`; below a clipped slice's bound, export_clamps compares)."""
    args, _ = pytree.unflatten(structure, _resized(leaves, axes, sizes))
    try:
        other = trace(fn, *args, name=_name_of(fn))
    except Exception as e:   # noqa: BLE001 - any failure: the code does not run at other sizes
        shown = ", ".join(f"{s} = {n}" for s, n in sorted(sizes.items()))
        raise OnnxExportError(f"tracing again with the dynamic axes resized ({shown}), to find which "
                              f"dimensions follow them, failed: {type(e).__name__}: {e}. The code must run at "
                              "every size of a dynamic axis; export with static shapes "
                              "(dynamic_axes=False) otherwise") from e
    if same_structure:
        _check_clamped_slices(traced, other)
    problem = _same_structure(traced.graph, other.graph) if same_structure else None
    if problem is not None:
        raise OnnxExportError(f"the graph changes with the batch size ({problem}); export with "
                              "static shapes (dynamic_axes=False) or make the code shape-independent")
    return other


def _check_clamped_slices(traced: Traced, other: Traced) -> None:
    """Refuses a slice whose bound lay beyond a dynamic axis in the example's trace: x[:100] of
    8 rows traced to no slice at all, so the file would take every row at any batch size. On
    a static axis the other trace records the same slice; a bound that follows the size
    (x[:2 * n]) is beyond the axis at every size."""
    for source, axis, bound, size in sorted(traced.clamped_slices - other.clamped_slices, key=str):
        if any((s, a) == (source, axis) and b != bound for s, a, b, _ in other.clamped_slices):
            continue
        where = f"at {source}: " if str(source) else ""
        raise OnnxExportError(
            f"{where}a slice of axis {axis} with bound {bound} reaches past the example's {size} elements, so it "
            f"traced as the whole axis, and with that axis dynamic the file would take every element at any size "
            f"where the code takes at most {abs(bound)}. Export with an example of more than {abs(bound)} along "
            "that axis (the slice is then traced, and the file clips it at smaller sizes), or with static shapes "
            "(dynamic_axes=False)")


def _auto_dynamic(fn, args, leaves, structure, names, sequence_first: bool = False, ensemble_axes=None):
    """Axis 0 of every input that shares the first input's axis-0 size; for an ensemble with
    mapped inputs (axis 0 = members) that fails to trace, axis 1. A net holding a sequence-first
    RNN (batch_first=False) takes its batch on axis 1 of every input (x, hx, an embedding's
    ids) and its sequence length on the first input's axis 0: both are tried first. A vmapped
    ensemble's own batch axes (`ensemble_axes`, from its in_axes) come before all of them: with
    in_axes=(None, 0) they are axis 0 of one input and axis 1 of the other."""
    last_error = None
    candidates = _batch_axis_candidates(leaves, sequence_first)
    if ensemble_axes and ensemble_axes not in candidates:
        candidates.insert(0, ensemble_axes)
    for axes in candidates:
        try:
            return _trace_dynamic(fn, args, leaves, structure, axes, names)
        except Exception as e:  # noqa: BLE001 - any failure means "not this axis"
            last_error = e
    warnings.warn(f"export: no dynamic batch axis found ({last_error}); exporting static shapes",
                  RuntimeWarning, stacklevel=4)
    return optimized([trace(fn, *args, name=_name_of(fn))])[0], None, {}, {}, None


def _batch_axis_candidates(leaves, sequence_first: bool):
    """The dynamic-axes specs `_auto_dynamic` tries, in order."""
    def batch_on(axis):
        tensors = [i for i, t in enumerate(leaves) if t.ndim > axis]
        if not tensors:
            return None
        size = leaves[tensors[0]].shape[axis]
        return {i: {axis: "batch"} for i in tensors if leaves[i].shape[axis] == size}

    candidates = [batch_on(0), batch_on(1)]
    if sequence_first and candidates[1]:
        # RNN inputs: x [seq_len, batch, ...], hx [layers, batch, hidden], seq_length [batch]
        first = min(candidates[1])
        size = leaves[first].shape[1]
        rnn_batch = {**candidates[1], **{i: {0: "batch"} for i, t in enumerate(leaves)
                                         if t.ndim == 1 and t.shape[0] == size}}
        with_sequence = {**rnn_batch, first: {0: "seq_len", 1: "batch"}}
        candidates = [with_sequence, rnn_batch, *candidates]
    return [c for c in candidates if c]


def _holds_sequence_first_rnn(net) -> bool:
    from ..nn.cell import Cell
    from ..nn.layer.rnns import _RNNBase
    return isinstance(net, Cell) and any(isinstance(cell, _RNNBase) and not cell.batch_first
                                         for _, cell in net.cells_and_names())


def _params_of(traced: Traced) -> dict:
    graph = traced.graph
    return {v: np.asarray(p._payload) for v, p in
            zip(graph.inputs[traced.n_args:], list(traced.params) + list(traced.captures))}


# Batch sizes at most this run an ensemble's stacked form (measured: batch 1 only; see
# ops/nn_prims.py and compiler/onnx_dispatch.py).
SMALL_BATCH_MAX = 1
# ...and only when a member's convolutions are small enough for onnxruntime's per-node
# overhead to dominate at batch 1: measured (bench_onnx.py, bench_models.py, batch 1), LeNet5
# (on average 0.18 M multiply-adds per convolution and row) runs 1.3x faster stacked; the small
# BN ResNet (2.0 M) 1.18x slower stacked (825 vs 701 us at N=4, 3.9 vs 3.3 ms at N=16).
SMALL_FORM_MAX_CONV_MACS = 1_000_000
# ...and only for this many members or more where it has no convolutions to pair (dense-only
# ensembles): before compiler/onnx_blocked.py the stacked form gained 3% at batch 1 for N=4 and
# 22-40% for N=16 and 64 (bench_onnx.py), and the If that chooses costs up to a few percent at
# every batch (session 18, each branch alternated with the same graph promoted to top level:
# N=4 0.96-0.99, N=16 and 64 0.96-1.05), so at N=4 it about cancelled.
SMALL_FORM_MIN_MEMBERS = 8
# With convolutions it depends on the lowered form (session 21, LeNet5, batch 1, the file with
# the If alternated with the per-member form alone, medians of bursts on a loaded 2-core machine):
# where compiler/onnx_blocked.py pairs the members' grouped Conv (a shared input, an even number
# of members) the stacked form pays from SMALL_FORM_MIN_PAIRED_MEMBERS: N=4 0.78-0.93, N=6
# 0.82-0.88, N=10 0.87-0.96 (N=2 0.99-1.06). Where it cannot (an odd number of members, or
# members with their own inputs, whose first Conv is grouped too), a convolutional stacked form
# loses below SMALL_FORM_MIN_UNPAIRED_MEMBERS: N=3, 5, 7 1.2-1.3, N=9 1.01-1.18, N=15 0.94-1.01;
# per-member inputs N=4 1.14-1.33, N=8 1.13-1.25, N=16 0.99-1.06, N=32 0.69-1.03.
SMALL_FORM_MIN_PAIRED_MEMBERS = 4
SMALL_FORM_MIN_UNPAIRED_MEMBERS = 32


def stacked_form_pays(n_members: int | None, conv_macs: float, paired: bool | None = None) -> bool:
    """Whether an ensemble's stacked form pays at batch <= SMALL_BATCH_MAX: convolutions of at
    most SMALL_FORM_MAX_CONV_MACS multiply-adds per member and row on average (`conv_macs`), and
    enough members (when known) for the form as lowered (`paired`: whether onnx_blocked paired
    the members' grouped Conv, `pairs_members`): SMALL_FORM_MIN_PAIRED_MEMBERS when paired,
    SMALL_FORM_MIN_UNPAIRED_MEMBERS for an unpaired form with convolutions, SMALL_FORM_MIN_MEMBERS
    without. `paired=None`, before the form is lowered: whether it can pay, paired or not (only
    convolutions pair). An export (`_with_small_batch_form`) and jit(backend="onnx") (api/vmap.py)
    both ask it before lowering the stacked form and again once it is lowered."""
    if conv_macs > SMALL_FORM_MAX_CONV_MACS:
        return False
    if n_members is None:
        return True
    if paired is None:
        return stacked_form_pays(n_members, conv_macs, False) or (
            conv_macs > 0 and stacked_form_pays(n_members, conv_macs, True))
    if paired:
        return n_members >= SMALL_FORM_MIN_PAIRED_MEMBERS
    return n_members >= (SMALL_FORM_MIN_UNPAIRED_MEMBERS if conv_macs > 0 else SMALL_FORM_MIN_MEMBERS)


def mean_conv_macs(graph) -> float:
    """Multiply-adds per row of the average convolution in `graph`."""
    from ..ir.views import node_flops
    from ..ops.nn_prims import conv
    macs = [node_flops(n) / 2 / n.outputs[0].shape[0] for n in graph.nodes if n.primitive is conv]
    return sum(macs) / len(macs) if macs else 0.0


def _with_small_batch_form(model, traced, fn, inputs, leaves, structure, arg_names, spec, lower_traced,
                           n_members=None):
    """For a graph whose onnxruntime lowering depends on the batch size (a vmapped ensemble's
    convolutions or per-member matmuls), adds the stacked form for batch <= SMALL_BATCH_MAX
    behind an If, where it pays (`stacked_form_pays`)."""
    from ..ir.core import graph_signature
    from ..ops.nn_prims import chose_by_target
    from .onnx_blocked import pairs_members
    from .onnx_dispatch import dispatch_on_batch
    batch = [(name, axis) for name, s in spec.items() for axis, symbol in s.items() if symbol == "batch"]
    if not batch or not chose_by_target(traced.graph):
        return model   # single models, ensembles over one shared-input layer: one graph for every target
    macs = mean_conv_macs(traced.graph)
    if not stacked_form_pays(n_members, macs):
        return model   # few members or big convolutions: the per-member form alone
    axes = {arg_names.index(name): dict(s) for name, s in spec.items()}
    with lowering_for("onnx-batched"):
        small, small_other, small_dims, _, small_clips = _trace_dynamic(fn, inputs, leaves, structure, axes,
                                                                        arg_names)
    if graph_signature(small.graph) == graph_signature(traced.graph):
        return model   # nothing in the graph depends on the target
    small_model = lower_traced(small, small_other, small_dims, small_clips).model
    if not stacked_form_pays(n_members, macs, pairs_members(small_model.graph)):
        return model   # members the blocked kernels could not pair, too few of them
    return dispatch_on_batch(small_model, model, *batch[0], SMALL_BATCH_MAX)


def _name_of(fn) -> str:
    return type(fn).__name__ if hasattr(fn, "construct") else getattr(fn, "__name__", "graph")


# -- building the model -----------------------------------------------------------------------------

def is_training_step(cell) -> bool:
    """Whether the Cell tree holds an optimizer or a gradient wrapper (TrainOneStepCell, ...):
    a step that trains, exported (and run by the `graphcell` command) in its own modes."""
    return any(getattr(c, "is_training_step", False) for _, c in cell.cells_and_names())


@contextlib.contextmanager
def inference_mode(net):
    """As mindspore.export: a Cell (or the CellList of a vmapped ensemble) is exported in
    inference mode, Dropout off and BatchNorm on its moving statistics, and each Cell's mode
    is restored after. A training step keeps its modes: a Cell tree holding an optimizer or a
    gradient wrapper (TrainOneStepCell, ...) is exported as the step it runs."""
    from ..nn.cell import Cell
    root = net if isinstance(net, Cell) else getattr(net, "fn", None)
    cells = [cell for _, cell in root.cells_and_names()] if isinstance(root, Cell) else []
    if not cells or is_training_step(root):
        yield
        return
    modes = [cell.training for cell in cells]
    root.set_train(False)
    try:
        yield
    finally:
        for cell, mode in zip(cells, modes):
            object.__setattr__(cell, "training", mode)
        bump_mode_epoch()


def to_onnx(net, *inputs, dynamic_axes=None, opset=None, input_names=None, output_names=None,
            reduce=None, params_as_inputs=False, members=None, member_checkpoints=None,
            metadata=None) -> OnnxExport:
    """Traces `net(*inputs)` and lowers it to an in-memory ONNX model (see `export`)."""
    from ..frontend.trace import paused_gc
    with paused_gc(), inference_mode(net):
        return _to_onnx(net, *inputs, dynamic_axes=dynamic_axes, opset=opset, input_names=input_names,
                        output_names=output_names, reduce=reduce, params_as_inputs=params_as_inputs,
                        members=members, member_checkpoints=member_checkpoints, metadata=metadata)


def _to_onnx(net, *inputs, dynamic_axes, opset, input_names, output_names, reduce, params_as_inputs,
             members, member_checkpoints, metadata, cache: bool = False) -> OnnxExport:
    t0 = time.perf_counter()
    fn = _with_head(net, reduce)
    if reduce == "mean_std" and output_names is None:   # not output_0 and output_1
        output_names = ["mean", "std"]
    leaves, structure = pytree.flatten((inputs, {}))
    if not all(isinstance(t, Tensor) for t in leaves):
        raise TypeError("export: the example inputs must be Tensors")
    arg_names = list(input_names or _arg_names(net, [len(pytree.flatten(a)[0]) for a in inputs]))
    arg_names += [f"arg{i}" for i in range(len(arg_names), len(leaves))]
    axes = _normalize_axes(dynamic_axes, leaves, arg_names, tuple(output_names or ()))
    with lowering_for("onnx"):  # the vmap pass picks onnxruntime's lowerings
        if axes is None:
            traced, other, dims, spec, clip_trace = _auto_dynamic(fn, inputs, leaves, structure, arg_names,
                                                                  _holds_sequence_first_rnn(net),
                                                                  batch_axes(net, inputs, leaves))
        else:
            traced, other, dims, spec, clip_trace = _trace_dynamic(fn, inputs, leaves, structure, axes,
                                                                   arg_names)
    onnx_compile(traced)   # set_context(save_graphs=...): the exported graph's stages
    t1 = time.perf_counter()
    lower_traced = lambda t, o, d, c: lower(  # noqa: E731
        t.graph, opset=opset, params=_params_of(t), params_as_inputs=params_as_inputs,
        input_names=arg_names, output_names=output_names, dims=d, other_graph=o.graph if o is not None else None,
        small=c)
    n_members = members
    if n_members is None and member_checkpoints is not None:
        n_members = len(member_checkpoints)
    if n_members is None and getattr(net, "ensemble", None) is not None:   # vmap(CellList)
        n_members = len(net.ensemble)
    lowerings = []

    def build():
        lowerings.append(lower_traced(traced, other, dims, clip_trace))
        model = lowerings[0].model
        if spec and not params_as_inputs:
            model = _with_small_batch_form(model, traced, fn, inputs, leaves, structure, arg_names, spec,
                                           lower_traced, n_members)
        return model

    if cache:   # everything the lowering and the small-batch form read
        parts = ("export", traced.graph, other.graph if other is not None else None,
                 clip_trace.graph if clip_trace is not None else None,
                 [dims.get(v) for v in traced.graph.inputs] + [dims.get(o) for n in traced.graph.nodes
                                                                for o in n.outputs] if dims else None,
                 [] if params_as_inputs else [np.asarray(a) for a in _params_of(traced).values()],
                 opset, params_as_inputs, arg_names, output_names, n_members, spec,
                 (SMALL_BATCH_MAX, SMALL_FORM_MAX_CONV_MACS, SMALL_FORM_MIN_MEMBERS,
                  SMALL_FORM_MIN_PAIRED_MEMBERS, SMALL_FORM_MIN_UNPAIRED_MEMBERS))
        model = cached_model(parts, build)
    else:
        model = build()
    lowered = lowerings[0] if lowerings else None
    props = {"graphcell.version": _version(), "graphcell.dynamic_axes": json.dumps(spec)}
    if n_members is not None:
        props["graphcell.members"] = str(int(n_members))
    if member_checkpoints is not None:
        props["graphcell.member_checkpoints"] = json.dumps([os.fspath(c) for c in member_checkpoints])
    if reduce is not None:
        props["graphcell.reduce"] = reduce
    if not params_as_inputs:   # the initializers nn.GraphCell's params_init may replace
        props["graphcell.parameters"] = json.dumps([p.name for p in traced.params])
    props.update({str(k): str(v) for k, v in (metadata or {}).items()})
    onnx.helper.set_model_props(model, props)
    t2 = time.perf_counter()
    return OnnxExport(model, lowered, traced, spec, {"trace": t1 - t0, "lower": t2 - t1})


def _version() -> str:
    from .. import __version__
    return __version__


def export(net, *inputs, file_name: str, file_format: str = "ONNX", dynamic_axes=None, opset=None,
           input_names=None, output_names=None, reduce=None, params_as_inputs: bool = False,
           members: int | None = None, member_checkpoints=None, metadata: dict | None = None,
           external_data: bool | None = None, check: bool = True, **kwargs) -> str:
    """Exports `net(*inputs)` to an ONNX file, in the shape of `mindspore.export`.

    - `net`: a Cell, a function, or a vmapped ensemble (`vmap(nn.CellList([...]), in_axes=...)`),
      anything `graphcell.trace` can trace; `inputs` are example Tensors.
    - `file_name`: ".onnx" is appended when missing (as MindSpore does). Returns the path.
    - `dynamic_axes`: None finds the batch axis (axis 0 of the inputs, or axis 1 for inputs
      mapped over ensemble members, or for a net holding a sequence-first RNN, whose first
      input's axis 0 becomes the dynamic `seq_len`); False exports static shapes; or `{"x": {0: "batch"}}` /
      `{"x": [0]}` / `{0: [0]}` by input name or position.
    - `opset`: 18 by default, anything from 17 to the newest the installed onnx knows.
    - `reduce`: an ensemble head appended in the graph: "mean" (mean softmax probabilities),
      "vote" (majority class), "mean_std" (mean and standard deviation of the probabilities; the
      outputs are named "mean" and "std" unless `output_names` says otherwise).
    - `params_as_inputs`: parameters as graph inputs instead of initializers.
    - `members`, `member_checkpoints`, `metadata`: stored in the model's metadata.
    - `external_data`: tensors in a side file `<name>.onnx.data`; automatic above 2 GB.
    - `check`: run `onnx.checker` on the result.
    A Cell (or a vmapped CellList) is exported in inference mode, as MindSpore does, unless it
    is a training step (see `inference_mode`); a function calling Cells exports them in the
    modes they are in.
    The write is atomic: a failed export leaves an existing file untouched. An ensemble with a
    dynamic batch holds two lowerings behind an `If` on the batch size: the stacked form for
    batch 1, each member's chain apart for larger batches (compiler/onnx_dispatch.py).
    """
    if kwargs:
        raise TypeError(f"export: unexpected arguments {sorted(kwargs)}")
    if str(file_format).upper() != "ONNX":
        if file_format not in ("AIR", "MINDIR"):   # 2.10's message for a format it does not know
            raise ValueError(f"For 'export', 'file_format' must be one of ['AIR', 'ONNX', 'MINDIR'], "
                             f"but got {file_format}.")
        raise ValueError(f"export: graphcell writes file_format='ONNX' only, got {file_format!r}")
    path = os.fspath(file_name)
    if not path.lower().endswith(".onnx"):
        path += ".onnx"
    from ..train.atomic import check_folder
    check_folder(path, "export: ")   # before tracing
    from ..frontend.trace import paused_gc
    with paused_gc(), inference_mode(net):   # as to_onnx, and from the ONNX cache when set_context(compile_cache_dir=...) is
        result = _to_onnx(net, *inputs, dynamic_axes=dynamic_axes, opset=opset, input_names=input_names,
                          output_names=output_names, reduce=reduce, params_as_inputs=params_as_inputs,
                          members=members, member_checkpoints=member_checkpoints, metadata=metadata, cache=True)
    save_model(result.model, path, external_data=external_data, check=check)
    return path


def save_model(model: onnx.ModelProto, path: str, external_data: bool | None = None, check: bool = True) -> None:
    """Writes `model` atomically; with external data (forced, or above 2 GB) the tensors go to
    `<path>.data` next to it."""
    from ..train.atomic import atomic_write
    size = sum(t.ByteSize() for t in model.graph.initializer)
    if external_data is None:
        external_data = size > PROTO_LIMIT
    if not external_data:
        if check:
            onnx.checker.check_model(model)
        atomic_write(path, model.SerializeToString())
        return
    directory = os.path.dirname(os.path.abspath(path))
    location = os.path.basename(path) + ".data"
    with tempfile.TemporaryDirectory(dir=directory) as tmp:
        tmp_model = os.path.join(tmp, os.path.basename(path))
        copy = onnx.ModelProto()
        copy.CopyFrom(model)
        onnx.save_model(copy, tmp_model, save_as_external_data=True, all_tensors_to_one_file=True,
                        location=location, size_threshold=1024)
        if check:
            onnx.checker.check_model(tmp_model)
        # The data first: a model file never points at a missing or stale data file. (A model
        # whose tensors are all under the threshold has none.)
        # onnx writes the data file 0600: give both files the mode the model had, or the
        # umask's, as atomic_write does (a server running as another user could not read it)
        mode = _file_mode(path)
        if os.path.exists(os.path.join(tmp, location)):
            os.chmod(os.path.join(tmp, location), mode)
            os.replace(os.path.join(tmp, location), os.path.join(directory, location))
        os.chmod(tmp_model, mode)
        os.replace(tmp_model, path)


def _file_mode(path: str) -> int:
    """The permission bits of `path`, or those a new file gets under the umask."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def load(file_name, **kwargs):
    """As mindspore.load, for the ONNX files graphcell writes: returns an `OnnxGraph` that
    `nn.GraphCell` runs (runtime/onnx_graph.py). A MindIR file is refused by name."""
    from ..runtime.onnx_graph import load_onnx
    return load_onnx(file_name, **kwargs)

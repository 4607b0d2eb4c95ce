"""A Dense layer over a batch of sequences as one Gemm: MatMul(x, w) + bias, x of rank >= 3
and w 2-D, becomes Reshape(x, [rows, K]) -> Gemm(., w, bias) -> Reshape back.

onnxruntime fuses MatMul + Add into a Gemm only for a 2-D MatMul, or for a higher-rank one
whose input shape is wholly static (its MatMulAddFusion adds the Reshapes then): with a
dynamic batch, every Dense layer of a transformer block ran its bias as a separate Add, a
second pass over the activations (12 of the 21 Adds of a 4-member encoder ensemble, 17% of
its time). The Reshapes are views; the Gemm adds the bias as it writes its output.

The flattened rows are `16*batch` for x of [batch, 16, K]: the two new values are declared
with that dimension (`Sym.times`), so that ONNX shape inference, which cannot resolve the
first Reshape's -1 itself, keeps a named dimension on them. The Reshape back reads its
target from the batch's input (`_Targets`), so that inference finds `batch` there even
without graphcell's value_info (its Shape and Concat cost ~2 us a call, which the Gemm's
gain covers at batch 1).

Measured (bench/bench_models.py's encoder, opset 23, onnxruntime CPU on 2 shared cores, old
and new files alternated in one process, ratio of medians new/old): batch 32 N=1 0.93, N=4
0.89-0.99; batch 1 N=1 0.99, N=4 0.97-0.98.
"""
from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper

from .onnx import OnnxBuilder, Sym, value_scope
from .onnx_dataflow import Dataflow, ints_attr

# Element types of onnxruntime's CPU Gemm.
_GEMM_TYPES = (TensorProto.FLOAT, TensorProto.DOUBLE)


def dense_bias_as_gemm(b: OnnxBuilder, keep: set, constants: dict, shapes: dict, types: dict,
                       dims: dict) -> None:
    """Rewrites every MatMul (of a rank >= 3 x with a static last axis, and a static 2-D w)
    whose one reader is an Add of a bias of one value per output column ([N], or [N] after
    1s) into the Reshape -> Gemm -> Reshape form. `dims`: ONNX name -> (IR type, dims of ints
    and Syms) of the values the IR names; x must be one of them (its rows' dimension is
    declared from its dims), with at most one dynamic dimension."""
    nodes = b.nodes
    flow = Dataflow(nodes, keep, constants, shapes)
    replaced, targets = {}, _Targets(b)
    for add in nodes:
        found = _dense(add, flow, shapes, types, dims)
        if found is None:
            continue
        matmul, weight, bias = found
        replaced[id(add)] = _as_gemm(b, matmul, weight, bias, add.output[0], shapes, dims, targets)
        replaced[id(matmul)] = []
        if weight[1]:   # the Transpose that Gemm's transB replaces
            replaced[id(flow.producer[matmul.input[1]])] = []
    if replaced:
        nodes[:] = targets.nodes + [m for n in nodes for m in replaced.get(id(n), [n])]


class _Targets:
    """The Reshape targets back from the rows: [batch, 16, N] is Concat(Shape(input)[axis],
    [16, N]), which ONNX shape inference follows (with data_prop) to `batch`, where a -1 would
    be a fresh `unk__0` for a model without graphcell's value_info. The nodes (one Shape per
    symbol, one Concat per target) go first in the graph: they read only a graph input."""

    def __init__(self, b: OnnxBuilder):
        self.b, self.nodes, self._sizes, self._targets = b, [], {}, {}

    def of(self, out_dims: tuple, fallback: tuple) -> str:
        syms = [d for d in out_dims if isinstance(d, Sym)]
        if not syms:
            return self.b.ints(list(out_dims))
        if len(syms) > 1 or not syms[0].plain or syms[0].name not in self.b.symbol_sources:
            return self.b.ints(list(fallback))   # (its -1 is the one dynamic dimension)
        key = tuple(str(d) for d in out_dims)
        if key not in self._targets:
            at = out_dims.index(syms[0])
            parts = [self.b.ints(list(out_dims[:at])), self._size(syms[0].name), self.b.ints(list(out_dims[at + 1:]))]
            parts = [p for p, n in zip(parts, (at, 1, len(out_dims) - at - 1)) if n]
            name = self.b.unique(f"dim.{syms[0].name}/target")
            self.nodes.append(helper.make_node("Concat", parts, [name], axis=0,
                                               name=self.b.node_name("Concat", f"dim.{syms[0].name}")))
            self._targets[key] = name
        return self._targets[key]

    def _size(self, symbol: str) -> str:
        if symbol not in self._sizes:
            inp, axis, _ = self.b.symbol_sources[symbol]
            name = self.b.unique(f"dim.{symbol}/size")
            self.nodes.append(helper.make_node("Shape", [inp], [name], name=self.b.node_name("Shape", f"dim.{symbol}"),
                                               start=axis, end=axis + 1))
            self._sizes[symbol] = name
        return self._sizes[symbol]


def _dense(add, flow: Dataflow, shapes: dict, types: dict, dims: dict):
    """(matmul, bias) when `add` adds a per-column bias to a private rank >= 3 MatMul of a
    2-D static weight, else None."""
    if add.op_type != "Add" or len(add.input) != 2:
        return None
    for side in (0, 1):
        matmul, bias = flow.made_by(add.input[side], "MatMul"), add.input[1 - side]
        if matmul is None or not flow.private(matmul.output[0]):
            continue
        x = matmul.input[0]
        weight = _weight(matmul.input[1], flow)
        w_shape = weight[2] if weight is not None else None
        x_shape, out_shape, bias_shape = shapes.get(x), shapes.get(add.output[0]), shapes.get(bias)
        if (x_shape is None or w_shape is None or bias_shape is None or x not in dims or add.output[0] not in dims
                or len(x_shape) < 3 or x_shape[-1] != w_shape[0]
                or types.get(x) not in _GEMM_TYPES or types.get(add.output[0]) != types.get(x)
                or out_shape != shapes.get(matmul.output[0])
                or sum(isinstance(d, Sym) for d in dims[x][1][:-1]) > 1):
            continue
        if len(bias_shape) <= len(out_shape) and bias_shape[-1:] == (w_shape[1],) \
                and all(d == 1 for d in bias_shape[:-1]):
            return matmul, weight, bias
    return None


def _weight(w: str, flow: Dataflow):
    """(operand, transB, (K, N)) for a static 2-D MatMul operand `w`: a Dense layer's is the
    Transpose of its [N, K] weight (read by this MatMul alone), which Gemm's transB reads as
    it is; else w itself."""
    transpose = flow.made_by(w, "Transpose")
    if transpose is not None and flow.private(w) and ints_attr(transpose, "perm") == [1, 0]:
        shape = flow.static_shape(transpose.input[0])
        if shape is not None and len(shape) == 2:
            return transpose.input[0], 1, shape[::-1]
    shape = flow.static_shape(w)
    return (w, 0, shape) if shape is not None and len(shape) == 2 else None


def _rows(lead: tuple):
    """The product of the leading dims (ints and at most one Sym)."""
    static = int(np.prod([d for d in lead if not isinstance(d, Sym)]))
    sym = next((d for d in lead if isinstance(d, Sym)), None)
    return static if sym is None else sym.times(static)


def _as_gemm(b: OnnxBuilder, matmul, weight: tuple, bias: str, out: str, shapes: dict, dims: dict,
             targets: _Targets) -> list:
    x = matmul.input[0]
    w, trans_b, (k, n) = weight
    type_, x_dims = dims[x]
    rows = _rows(tuple(x_dims[:-1]))
    flat_rows = -1 if isinstance(rows, Sym) else rows
    scope = value_scope(out)
    flat, product = b.unique(f"{x}/rows"), b.unique(f"{out}/rows")
    made = [helper.make_node("Reshape", [x, b.ints([flat_rows, k])], [flat], name=b.node_name("Reshape", scope))]
    if len(shapes[bias]) != 1:
        column = b.unique(f"{bias}/columns")
        made.append(helper.make_node("Reshape", [bias, b.ints([n])], [column], name=b.node_name("Reshape", scope)))
        bias, shapes[column] = column, (n,)
    made += [helper.make_node("Gemm", [flat, w, bias], [product], name=b.node_name("Gemm", scope),
                              **({"transB": 1} if trans_b else {})),
             helper.make_node("Reshape", [product, targets.of(tuple(dims[out][1]), shapes[out])], [out],
                              name=b.node_name("Reshape", scope))]
    for name, cols in ((flat, k), (product, n)):
        shapes[name] = (flat_rows, cols)
        b.root.declared[name] = (type_._replace(shape=(int(np.prod(type_.shape[:-1])), cols)), (rows, cols))
    return made

"""ONNX exports keep the dynamic batch's name through every layer, and name every node.

Shapes: each case is a small net exported with a dynamic batch. ONNX's own shape inference
(`infer_shapes(strict_mode=True)`, the reference) must agree with every shape graphcell
declares, and find no anonymous dimension (`unk__0`) anywhere, subgraphs included; onnxruntime
at another batch size must produce the declared shapes. Before: every value in an LSTM's or
GRU's Scan body after a gate's Slice was `[unk__2, unk__3]` (inference cannot read the main
graph's constants from a body), a GRUCell unrolled over time merged its inputs through a
Reshape whose -1 hid the batch, and a 1-D linear resize's Reshape/Resize pair was
`[unk__0, unk__1, unk__2, unk__3]`.

Names: every node is `<scope>/<op>`, unique, in the Cell's path, or for ops outside any
sub-Cell in the traced function's name or the Cell's class (torch.onnx writes `/Mul` there).
"""
import collections
import warnings

import numpy as np
import onnx
import onnxruntime as ort
import pytest

import graphcell as ms
from graphcell import nn, ops
from graphcell.compiler.export import to_onnx
from tests.test_export_dynamic_shapes import _check_declared

RNG = np.random.default_rng(0)


def _f(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


class _Fn(nn.Cell):
    def __init__(self, fn, **cells):
        super().__init__()
        self.fn = fn
        for k, v in cells.items():
            setattr(self, k, v)

    def construct(self, *xs):
        return self.fn(self, *xs)


def _gru_last(self, x):
    _, h = self.gru(x)
    return self.fc(h[-1])


def _while(self, x):
    i = ms.Tensor(0)
    while i < 3:
        x = self.fc(x) * 2.0
        i = i + 1
    return x + 1.0


def _unrolled_cell(self, x):
    h = ops.zeros((x.shape[0], 5), ms.float32)
    for t in range(x.shape[1]):
        h = self.cell(x[:, t], h)
    return h


def _split_concat(self, x):
    a, b = ops.split(x, 2, 1)
    return ops.concat((b, a, x), 1), ops.stack(ops.split(x, (1, 3), 1)[1:], 1)


# name: (net, example inputs of batch 4)
CASES = {
    "conv": (lambda: nn.SequentialCell([nn.Conv2d(3, 4, 3, stride=2), nn.ReLU()]), lambda: [_f(4, 3, 7, 7)]),
    "pool": (lambda: nn.SequentialCell([nn.MaxPool2d(2, 2), nn.AvgPool2d(2, 1), nn.AdaptiveAvgPool2d((2, 1))]),
             lambda: [_f(4, 3, 8, 8)]),
    "resize bilinear": (lambda: nn.Upsample(size=(7, 9), mode="bilinear"), lambda: [_f(4, 3, 4, 4)]),
    "resize nearest": (lambda: nn.Upsample(scale_factor=2.0, mode="nearest"), lambda: [_f(4, 3, 4, 4)]),
    "resize linear 1-D": (lambda: nn.Upsample(size=9, mode="linear"), lambda: [_f(4, 3, 4)]),
    "pad": (lambda: nn.SequentialCell([nn.ZeroPad2d(1), nn.ReflectionPad2d((1, 0, 2, 1))]), lambda: [_f(4, 3, 4, 4)]),
    "gather": (lambda: nn.Embedding(10, 4), lambda: [np.array([[1, 2, 3]] * 4, np.int32)]),
    "split concat": (lambda: _Fn(_split_concat), lambda: [_f(4, 4, 3)]),
    "lstm": (lambda: nn.LSTM(3, 5, num_layers=2, bidirectional=True, batch_first=True), lambda: [_f(4, 6, 3)]),
    "gru h[-1]": (lambda: _Fn(_gru_last, gru=nn.GRU(3, 5, batch_first=True), fc=nn.Dense(5, 2)), lambda: [_f(4, 6, 3)]),
    "while loop": (lambda: _Fn(_while, fc=nn.Dense(3, 3)), lambda: [_f(4, 3)]),
    "unrolled GRUCell": (lambda: _Fn(_unrolled_cell, cell=nn.GRUCell(3, 5)), lambda: [_f(4, 6, 3)]),
    "attention": (lambda: nn.MultiheadAttention(8, 2, batch_first=True), lambda: [_f(4, 5, 8)] * 3),
    "transformer": (lambda: nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), lambda: [_f(4, 5, 8)]),
}


def _graphs(graph):
    yield graph
    for node in graph.node:
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                yield from _graphs(attr.g)


def _dims(info):
    shape = info.type.tensor_type
    return [d.dim_param or d.dim_value for d in shape.shape.dim] if shape.HasField("shape") else None


def _export(name, net=None):
    make_net, make_inputs = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # no fallback to static shapes
        return to_onnx(net or make_net(), *[ms.Tensor(x) for x in make_inputs()]).model


@pytest.mark.parametrize("name", list(CASES))
def test_shape_inference_keeps_the_batch_name(name):
    model = _export(name)
    declared = {v.name: _dims(v) for v in list(model.graph.value_info) + list(model.graph.output)}
    assert all("batch" in map(str, _dims(o)) for o in model.graph.output)   # exported with a dynamic batch
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    seen = {v.name: _dims(v) for g in _graphs(inferred.graph) for v in list(g.value_info) + list(g.output)}
    assert {n: seen.get(n) for n in declared} == declared
    anonymous = {n: d for n, d in seen.items() if d is None or any(str(x).startswith("unk") for x in d)}
    assert not anonymous, f"values whose shape inference lost the batch: {anonymous}"

    # onnxruntime at batch 2: every declared shape is what it computes
    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    outputs = {o.name for o in probe.graph.output}
    probe.graph.output.extend(v for v in model.graph.value_info if v.name not in outputs)
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(probe.SerializeToString(), options, providers=["CPUExecutionProvider"])
    feeds = {i.name: x[:2] for i, x in zip(session.get_inputs(), CASES[name][1]())}
    for info, got in zip(probe.graph.output, session.run(None, feeds)):
        _check_declared(info, got.shape, 2)   # (a Dense's flattened rows are `5*batch`)


def test_subgraph_shape_constants_are_local():
    """The Scan body reads its Slices' bounds from its own initializers."""
    model = _export("gru h[-1]")
    body = next(n for n in model.graph.node if n.op_type == "Scan").attribute[0].g
    local = {t.name for t in body.initializer}
    slices = [n for n in body.node if n.op_type == "Slice"]
    assert slices and all(set(n.input[1:]) <= local for n in slices)
    assert all(t.data_type == onnx.TensorProto.INT64 for t in body.initializer)


def _node_names(model):
    return [n.name for g in _graphs(model.graph) for n in g.node]


def forward(x, w):
    return ops.matmul(x, w) + 1.0


class _Head(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(3, 4)

    def construct(self, x):
        return ops.relu(self.fc1(x)) * 2.0 + 1.0


def test_nodes_outside_cells_are_named_by_the_function_or_class():
    fn = to_onnx(forward, ms.Tensor(_f(4, 3)), ms.Tensor(_f(3, 2))).model
    assert [n.name for n in fn.graph.node] == ["forward/Gemm", "forward/Add"]
    head = to_onnx(_Head(), ms.Tensor(_f(4, 3))).model
    assert [n.name for n in head.graph.node] == ["fc1/Gemm", "_Head/Relu", "_Head/Mul", "_Head/Add"]
    lam = to_onnx(lambda x: x * 2.0, ms.Tensor(_f(4, 3))).model
    assert [n.name for n in lam.graph.node] == ["lambda/Mul"]


@pytest.mark.parametrize("name", ["while loop", "gru h[-1]", "transformer", "unrolled GRUCell"])
def test_every_node_name_is_scoped_unique_and_stable(name):
    net = CASES[name][0]()
    model = _export(name, net)
    names = _node_names(model)
    assert all(n and "/" in n and ":" not in n for n in names), names
    assert [n for n, c in collections.Counter(names).items() if c > 1] == []
    assert _export(name, net).SerializeToString() == model.SerializeToString()

"""A Dense layer over [batch, ..., K] exports as Reshape -> Gemm(bias) -> Reshape
(compiler/onnx_dense_gemm.py): onnxruntime fuses MatMul + Add only for 2-D or wholly static
shapes, so with a dynamic batch the bias was a separate Add."""
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


class Tokens(nn.Cell):
    """Dense layers over [B, S, 6] and [B, 2, S, 8] tokens, a matmul read twice (no bias to
    take), and a per-token bias ([S, N], not one value per column)."""

    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Dense(6, 8), nn.Dense(8, 4)
        self.w = ms.Parameter(ms.Tensor(_f(4, 4)), name="w")
        self.per_token = ms.Parameter(ms.Tensor(_f(3, 4)), name="per_token")

    def construct(self, x):
        h = ops.relu(self.fc1(x))                                  # [B, S, 8]
        y = self.fc2(ops.stack([h, h * 2.0], 1))                   # [B, 2, S, 4]: a 4-D Dense
        shared = ops.matmul(y, self.w)                             # read twice: stays a MatMul
        return shared + 1.0 + shared * 0.5, ops.matmul(h[:, :, :4], self.w) + self.per_token


def _export(net, x):
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # no fallback to static shapes
        return to_onnx(net, ms.Tensor(x)).model


def test_dense_over_tokens_is_one_gemm_with_xla_values_at_another_batch():
    ms.set_seed(0)
    net = Tokens()
    model = _export(net, _f(4, 3, 6))
    gemms = [n for n in model.graph.node if n.op_type == "Gemm"]
    assert len(gemms) == 2 and all(len(n.input) == 3 for n in gemms)   # the bias inside
    assert {onnx.helper.get_attribute_value(a) for n in gemms for a in n.attribute if a.name == "transB"} == {1}
    assert [n.op_type for n in model.graph.node].count("MatMul") == 2   # the shared one, the per-token one
    producer = {o: n for n in model.graph.node for o in n.output}
    assert {producer[n.input[0]].op_type for n in gemms} == {"Reshape"}
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    x = _f(5, 3, 6)   # (exported at batch 4)
    for got, want in zip(sess.run(None, {sess.get_inputs()[0].name: x}), ms.jit(net)(ms.Tensor(x))):
        np.testing.assert_allclose(got, want.asnumpy(), rtol=1e-5, atol=1e-5)


def test_flattened_rows_keep_a_batch_name_through_shape_inference():
    """The [B*S, K] rows are declared `3*batch` and `6*batch` (the 4-D Dense), which ONNX's
    strict shape inference keeps; onnxruntime computes those sizes."""
    ms.set_seed(0)
    model = _export(Tokens(), _f(4, 3, 6))
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    dims = {v.name: [d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim]
            for v in list(inferred.graph.value_info) + list(inferred.graph.output)}
    gemms = [n for n in model.graph.node if n.op_type == "Gemm"]
    assert sorted(dims[n.input[0]][0] for n in gemms) == ["3*batch", "6*batch"]
    assert not [n for n, d in dims.items() if any(str(x).startswith("unk") for x in d)]
    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    rows = [v for v in model.graph.value_info if v.name in {i for n in gemms for i in [n.input[0], n.output[0]]}]
    assert len(rows) == 4
    probe.graph.output.extend(rows)
    sess = ort.InferenceSession(probe.SerializeToString(), providers=["CPUExecutionProvider"])
    got = sess.run([v.name for v in rows], {sess.get_inputs()[0].name: _f(2, 3, 6)})
    for info, value in zip(rows, got):
        _check_declared(info, value.shape, 2)


def test_an_ensemble_of_dense_layers_over_tokens():
    """A vmapped ensemble of LayerNorm + Dense over a shared [B, S, K] input (as a transformer
    ensemble's): each member's Dense a Gemm, with the XLA path's values."""
    ms.set_seed(3)
    members = [nn.SequentialCell([nn.LayerNorm((6,)), nn.Dense(6, 5)]) for _ in range(3)]
    ensemble = ms.vmap(nn.CellList(members), in_axes=None)
    x = _f(4, 3, 6)
    model = _export(ensemble, x)
    producer = {o: n for n in model.graph.node for o in n.output}
    assert "MatMul" not in [n.op_type for n in model.graph.node]
    assert len([n for n in model.graph.node if n.op_type == "Gemm" and producer[n.input[0]].op_type == "Reshape"]) == 3
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    x = _f(2, 3, 6)
    np.testing.assert_allclose(sess.run(None, {sess.get_inputs()[0].name: x})[0],
                               ensemble(ms.Tensor(x)).asnumpy(), rtol=1e-5, atol=1e-5)


def test_a_dense_ensembles_first_layer_over_the_shared_input_is_one_gemm_with_its_relu(tmp_path):
    """The members' first Dense over a shared [B, K] input is one MatMul against their stacked
    weights ([K, N*O]), viewed as [B, N, O] for the members; their biases and ReLU cross the
    view back to the MatMul (onnx_rules._matmul records its shape), so that onnxruntime fuses
    the three into one Gemm: no Add, Relu or Reshape is left in its optimised graph."""
    ms.set_seed(4)
    members = [nn.SequentialCell([nn.Dense(12, 8), nn.ReLU(), nn.Dense(8, 3)]) for _ in range(3)]
    ensemble = ms.vmap(nn.CellList(members), in_axes=None)
    model = _export(ensemble, _f(4, 12))
    ops_used = [n.op_type for n in model.graph.node]
    assert ops_used.count("MatMul") == 1 and "Relu" in ops_used
    producer = {o: n for n in model.graph.node for o in n.output}
    (relu,) = [n for n in model.graph.node if n.op_type == "Relu" and producer[n.input[0]].op_type == "Add"]
    assert producer[producer[relu.input[0]].input[0]].op_type == "MatMul"   # no view between them
    options = ort.SessionOptions()
    options.optimized_model_filepath = str(tmp_path / "optimised.onnx")
    sess = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    optimised = [n.op_type for n in onnx.load(options.optimized_model_filepath).graph.node]
    assert not {"MatMul", "Add", "Relu", "Reshape"} & set(optimised), optimised
    for batch in (1, 5):
        x = _f(batch, 12)
        np.testing.assert_allclose(sess.run(None, {sess.get_inputs()[0].name: x})[0],
                                   ms.jit(ensemble)(ms.Tensor(x)).asnumpy(), rtol=1e-5, atol=1e-5)


class GeluMLP(nn.Cell):
    """LayerNorm -> Dense -> exact GELU -> Dense over [B, S, 6] tokens, as a transformer's MLP
    (an ensemble's members then each have their own Dense input, as the encoder's have)."""

    def __init__(self):
        super().__init__()
        self.norm, self.gelu = nn.LayerNorm((6,)), nn.GELU(approximate=False)
        self.fc1, self.fc2 = nn.Dense(6, 16), nn.Dense(16, 4)

    def construct(self, x):
        return self.fc2(self.gelu(self.fc1(self.norm(x))))


@pytest.mark.parametrize("members", [1, 3])
def test_a_gelu_between_two_dense_layers_runs_over_their_rows(members, tmp_path):
    """Each Dense is a Gemm over rows [B*S, K] viewed back as [B, S, N]; the GELU's ops (x
    read twice) cross the view between them, so the first Gemm's rows flow through the GELU
    into the second with no Reshape, in the file and in onnxruntime's optimised graph (one
    Gelu between two Gemms); values as the XLA path's at another batch."""
    ms.set_seed(5)
    net = GeluMLP() if members == 1 else ms.vmap(nn.CellList([GeluMLP() for _ in range(members)]), in_axes=None)
    model = _export(net, _f(4, 3, 6))
    producer = {o: n for n in model.graph.node for o in n.output}
    second = [n for n in model.graph.node if n.op_type == "Gemm" and n.input[0] in producer
              and producer[n.input[0]].op_type == "Mul"]
    assert len(second) == members   # the GELU's last Mul feeds each second Gemm
    for erf in (n for n in model.graph.node if n.op_type == "Erf"):
        assert producer[producer[erf.input[0]].input[0]].op_type == "Gemm"   # Erf(Div(rows))
    options = ort.SessionOptions()
    options.optimized_model_filepath = str(tmp_path / "optimised.onnx")
    sess = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    optimised = onnx.load(options.optimized_model_filepath).graph.node
    made = {o: n.op_type for n in optimised for o in n.output}
    gelus = [n for n in optimised if n.op_type == "Gelu"]
    assert len(gelus) == members and {made[n.input[0]] for n in gelus} == {"Gemm"}
    x = _f(2, 3, 6)
    np.testing.assert_allclose(sess.run(None, {sess.get_inputs()[0].name: x})[0],
                               ms.jit(net)(ms.Tensor(x)).asnumpy(), rtol=1e-5, atol=1e-5)



def test_ops_crossing_a_shared_view_keep_the_views_their_other_readers_need():
    """Two multinomial draws over one logit vector: their Log is viewed, and the view viewed
    again for several elementwise readers. An op crossing the shared outer view (kept for the
    others) then reads the inner view's value, which has a reader more; the op must not take
    the inner view away from the outer one (the model lost it and failed to load)."""
    from graphcell.compiler.jit import onnx_graph
    from graphcell.compiler.onnx import lower

    def draws(x):
        p = ops.abs(x) + 0.1
        return ops.multinomial(p, 4, seed=4), ops.multinomial(p, 3, False, seed=5)
    x = ms.Tensor(np.linspace(-1, 1, 6).astype(np.float32))
    model = lower(onnx_graph(ms.trace(draws, x)), value_info=False).model
    onnx.checker.check_model(model, full_check=True)
    for got, want in zip(ms.jit(draws, backend="onnx")(x), ms.jit(draws)(x)):
        np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())

"""An ensemble's members' LayerNorm over a shared input folds into the Dense layers reading
it (compiler/onnx_member_norms.py): one LayerNormalization, no stacked scale and shift, the
members' Gemms read its rows with folded weights; XLA's values."""
import warnings

import numpy as np
import onnx
import onnxruntime as ort
import pytest

import graphcell as ms
from graphcell import nn, ops
from graphcell.compiler.export import to_onnx

RNG = np.random.default_rng(0)


def _randomize(members):
    """Scales and shifts away from 1 and 0, so that a dropped or misplaced fold shows."""
    for m in members:
        for _, p in m.parameters_and_names():
            p.set_data(ms.Tensor(RNG.uniform(0.5, 1.5, p.shape).astype(np.float32)))


def _export(net, x):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return to_onnx(net, ms.Tensor(x)).model


class NormMatmul(nn.Cell):
    """LayerNorm, then a matmul by a [K, N] weight plus a bias (a Gemm without transB)."""

    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm((6,))
        self.w = ms.Parameter(ms.Tensor(np.ones((6, 5), np.float32)), name="w")
        self.b = ms.Parameter(ms.Tensor(np.ones(5, np.float32)), name="b")

    def construct(self, x):
        return ops.matmul(self.norm(x), self.w) + self.b


def _ensemble(transposed):
    """Members: LayerNorm then a Dense (its weight read transposed) or a NormMatmul."""
    ms.set_seed(4)
    make = (lambda: nn.SequentialCell([nn.LayerNorm((6,)), nn.Dense(6, 5)])) if transposed else NormMatmul
    members = [make() for _ in range(3)]
    _randomize(members)
    return ms.vmap(nn.CellList(members), in_axes=None)


@pytest.mark.parametrize("transposed", [True, False])
def test_members_layer_norm_folds_into_their_dense_gemms(transposed):
    ens = _ensemble(transposed)
    x = RNG.standard_normal((4, 3, 6)).astype(np.float32)
    model = _export(ens, x)
    kinds = [n.op_type for n in model.graph.node]
    assert kinds.count("LayerNormalization") == 1
    ln = next(n for n in model.graph.node if n.op_type == "LayerNormalization")
    rows = [n for n in model.graph.node if n.op_type == "Reshape" and n.input[0] == ln.output[0]]
    assert len(rows) == 1
    members = [n for n in model.graph.node if n.op_type == "Gemm" and n.input[0] == rows[0].output[0]]
    assert len(members) == 3
    assert {a.i for n in members for a in n.attribute if a.name == "transB"} == ({1} if transposed else set())
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    dims = {v.name: [d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim]
            for v in inferred.graph.value_info}
    assert dims[rows[0].output[0]] == ["3*batch", 6]
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    x = RNG.standard_normal((2, 3, 6)).astype(np.float32)
    np.testing.assert_allclose(sess.run(None, {sess.get_inputs()[0].name: x})[0], ens(ms.Tensor(x)).asnumpy(),
                               rtol=1e-5, atol=1e-5)


def test_a_member_share_read_by_another_op_keeps_the_stacked_form():
    """The normalised value also read as it is (a residual): no fold, XLA's values."""
    ms.set_seed(5)
    members = [nn.SequentialCell([nn.LayerNorm((6,)), nn.Dense(6, 6)]) for _ in range(2)]
    _randomize(members)

    class Residual(nn.Cell):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def construct(self, x):
            h = self.inner[0](x)
            return self.inner[1](h) + h

    ens = ms.vmap(nn.CellList([Residual(m) for m in members]), in_axes=None)
    x = RNG.standard_normal((4, 3, 6)).astype(np.float32)
    model = _export(ens, x)
    assert "Mul" in [n.op_type for n in model.graph.node]   # the stacked scale stays
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    np.testing.assert_allclose(sess.run(None, {sess.get_inputs()[0].name: x})[0], ens(ms.Tensor(x)).asnumpy(),
                               rtol=1e-5, atol=1e-5)

"""igamma (P and Q), igamma_grad_a and zeta in ONNX (compiler/onnx_igamma_zeta.py) against scipy,
on tests/igamma_zeta_grids.py's grids, one onnxruntime session per family; the same grids
against the XLA lowering, edges included, are records in tests/test_onnx_prims.py."""
import numpy as np
import onnx
import onnxruntime as ort
import scipy.special as sp

import graphcell as ms
from graphcell import nn, ops
from graphcell.compiler.onnx import lower
from graphcell.dtype import float64
from graphcell.ir.core import GraphBuilder, TensorType
from graphcell.ops import PRIMITIVES
from tests.igamma_zeta_grids import IGAMMA_A, IGAMMA_X, ZETA_Q, ZETA_X

F32, F64 = np.float32, np.float64


def run_nodes(nodes, a, x):
    """One ONNX model with a node per (primitive, attrs) on the same two float64 inputs, run once;
    also returns the model's node count, Loop bodies included."""
    b = GraphBuilder("family")
    ins = [b.add_input(TensorType(a.shape, float64), f"in{i}") for i in range(2)]
    outs = [b.add_node(PRIMITIVES[name], tuple(ins), attrs)[0] for name, attrs in nodes]
    model = lower(b.build(outs)).model
    onnx.checker.check_model(model, full_check=True)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])

    def count(graph):
        return sum(1 + sum(count(at.g) for at in n.attribute if at.type == onnx.AttributeProto.GRAPH)
                   for n in graph.node)
    return sess.run(None, {"in0": a, "in1": x}), count(model.graph)


def interior(a, x):
    """Where scipy and MindSpore 2.10 agree: a > 0, x >= 0, both finite (the edges differ:
    scipy's P(0, x) is 1, MindSpore's NaN)."""
    return (a > 0) & (x >= 0) & np.isfinite(a) & np.isfinite(x)


def central_difference(a, x):
    """d/da P by central differences of scipy's P, or of -Q where P is above 1/2 (so that the
    difference is of the smaller one, and keeps its digits), in steps of 1e-5 a."""
    h = 1e-5 * a
    upper = sp.gammainc(a, x) > 0.5
    fn = lambda t: np.where(upper, -sp.gammaincc(t, x), sp.gammainc(t, x))  # noqa: E731
    return (fn(a + h) - fn(a - h)) / (2 * h)


def test_igamma_family_matches_scipy_on_a_wide_grid():
    (p, q, dp_da), nodes = run_nodes([("igamma", {"upper": False}), ("igamma", {"upper": True}),
                                      ("igamma_grad_a", {})], IGAMMA_A, IGAMMA_X)
    assert nodes < 1000   # about 650, Loop bodies of 13 to 73 nodes included: no unrolled series
    inside = interior(IGAMMA_A, IGAMMA_X)
    a, x = IGAMMA_A[inside], IGAMMA_X[inside]
    # 1e-10: lgamma(1e4) = 82099.7 carries ~1e-11 of rounding into P's factor x^a e^-x / Gamma(a)
    np.testing.assert_allclose(p[inside], sp.gammainc(a, x), rtol=1e-10, atol=1e-300)
    np.testing.assert_allclose(q[inside], sp.gammaincc(a, x), rtol=1e-10, atol=1e-300)
    np.testing.assert_allclose(dp_da[inside], central_difference(a, x), rtol=1e-5, atol=1e-12)
    # the domain: NaN below 0 and at NaN; x = 0 gives P = 0, x = inf P = 1 (for finite a > 0)
    for out in (p, q, dp_da):
        assert np.isnan(out[(IGAMMA_A < 0) | (IGAMMA_X < 0) | np.isnan(IGAMMA_A) | np.isnan(IGAMMA_X)]).all()
    positive = (IGAMMA_A > 0) & np.isfinite(IGAMMA_A)
    assert (p[positive & (IGAMMA_X == 0)] == 0).all() and (q[positive & (IGAMMA_X == 0)] == 1).all()
    assert (p[positive & (IGAMMA_X == np.inf)] == 1).all()


def test_zeta_matches_scipy_on_a_wide_grid():
    (z,), nodes = run_nodes([("zeta", {})], ZETA_X, ZETA_Q)
    assert nodes < 200   # 142, unrolled: 10 series terms and 12 Bernoulli terms
    inside = (ZETA_X > 1) & (ZETA_Q > 0) & np.isfinite(ZETA_X) & np.isfinite(ZETA_Q)
    np.testing.assert_allclose(z[inside], sp.zeta(ZETA_X[inside], ZETA_Q[inside]), rtol=1e-13)
    # XLA's pattern off the domain: NaN for x < 1, inf at x = 1 and at the poles q = 0, -1, ...
    # for even x, NaN for a q <= 0 with x not an integer
    assert np.isnan(z[(ZETA_X < 1) & (ZETA_Q > 0)]).all() and (z[ZETA_X == 1] == np.inf).all()
    poles = (ZETA_Q <= 0) & (ZETA_Q == np.floor(ZETA_Q))
    even = np.isfinite(ZETA_X) & (np.fmod(np.nan_to_num(ZETA_X), 2) == 0)
    assert (z[poles & even] == np.inf).all() and np.isnan(z[poles & (ZETA_X == 3.0)]).all()
    assert np.isnan(z[(ZETA_Q == -2.5) & (ZETA_X == 2.5)]).all()
    np.testing.assert_allclose(z[(ZETA_Q == -2.5) & (ZETA_X == 3.0)], sp.zeta(3.0, -2.5), rtol=1e-13)


class SpecialNet(nn.Cell):
    def construct(self, a, x):
        # d/da P is igamma_grad_a in the traced gradient
        dp_da = ops.grad(lambda t: ops.igamma(t, x).sum())(a)
        return ops.igamma(a, x), ops.igammac(a, x), dp_da, ops.zeta(a + 1.0, x)


def test_export_with_a_dynamic_batch(tmp_path):
    a = np.array([[0.5, 2.0, 30.0], [1.0, 1e-3, 100.0]], F32)
    x = np.array([1.5, 0.25, 31.0], F32)
    path = ms.export(SpecialNet(), ms.Tensor(a), ms.Tensor(x), file_name=str(tmp_path / "special"),
                     dynamic_axes={"a": [0]}, input_names=["a", "x"])
    model = onnx.load(path)
    assert model.graph.input[0].type.tensor_type.shape.dim[0].dim_param
    # P's, Q's and dP/da's two (the gradient's forward P is unused: not in the file)
    assert sum(n.op_type == "Loop" for n in model.graph.node) == 6
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    for batch in (np.tile(a, (3, 1))[:5] * np.linspace(0.5, 2, 5, dtype=F32)[:, None], a[:1]):
        p, q, dp_da, z = sess.run(None, {"a": batch, "x": x})
        a64, x64 = batch.astype(F64), x.astype(F64)
        np.testing.assert_allclose(p, sp.gammainc(a64, x64), rtol=1e-6, atol=1e-37)   # (float32 underflows)
        np.testing.assert_allclose(q, sp.gammaincc(a64, x64), rtol=1e-6, atol=1e-37)
        np.testing.assert_allclose(dp_da, central_difference(a64, x64), rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(z, sp.zeta((batch + F32(1)).astype(F64), x64), rtol=1e-6, atol=1e-37)


def test_jit_with_the_onnx_backend():
    a, x = ms.Tensor(np.array([0.5, 3.0], F64)), ms.Tensor(np.array([2.0, 1.0], F64))
    fn = ms.jit(lambda a, x: (ops.igammac(a, x), ops.zeta(a + 1.5, x)), backend="onnx")
    q, z = fn(a, x)
    np.testing.assert_allclose(q.asnumpy(), sp.gammaincc([0.5, 3.0], [2.0, 1.0]), rtol=1e-12)
    np.testing.assert_allclose(z.asnumpy(), sp.zeta([2.0, 4.5], [2.0, 1.0]), rtol=1e-12)

"""The ONNX rules for qr (compiler/onnx_householder.py) and matrix_exp (compiler/onnx_expm.py)
against XLA's (LAPACK's geqrf/orgqr, jax's expm): every case of a table in one ONNX session and
one XLA compilation (tests/modes.run_table); a dynamic batch through export; a dynamic matrix
size refused by name."""
import numpy as np
import onnx
import onnxruntime as ort
import pytest
import scipy.linalg

import graphcell as ms
from graphcell import nn, ops
from graphcell.compiler.onnx import OnnxExportError
from graphcell.tensor import Tensor
from tests.modes import run_table

RNG = np.random.default_rng(15)
F32, F64 = np.float32, np.float64


def normal(*shape, dtype=F32):
    return RNG.standard_normal(shape).astype(dtype)


def qr_case(x, mode="reduced"):
    return (lambda t: ops.qr(t, mode), [x])


def with_zero_column(x, column):
    x = x.copy()
    x[..., column] = 0
    return x


# Exact in binary: reflecting [3, 4] onto [-5, 0] leaves zeros, so the repeated column's step
# has nothing below its diagonal (tau = 0, R[1, 1] = 0 from both).
REPEATED = np.array([[3, 3, 1], [4, 4, 2], [0, 0, 5], [0, 0, 1]], F32)
# LAPACK reads alpha's sign bit: -0.0 reflects to +||x||, 0.0 to -||x||
SIGNED_ZEROS = np.array([[[-0.0, 1, 2], [3, 4, 5], [1, 1, 1]], [[0.0, 1, 2], [3, 4, 5], [1, 1, 1]]], F32)
# Upper triangular: nothing below any pivot, so no reflection: Q = I and R = A (R's diagonal
# once came out negated, with Q = I)
UPPER = np.array([[[2, 1, 1], [0, 3, 1], [0, 0, -1]]], F32)
TALL = np.stack([normal(5, 3), with_zero_column(normal(5, 3), 1)])
SQUARE_F64 = np.stack([with_zero_column(normal(4, 4, dtype=F64), 0), normal(4, 4, dtype=F64)])
SQUARE_F64[1, :, 3] = SQUARE_F64[1, :, 0] - 2 * SQUARE_F64[1, :, 1]          # rank 3: the last column depends

# A batch holds several cases where the shapes agree: an XLA qr costs ~0.1 s to compile.
QR_CASES = {
    "tall": qr_case(TALL), "tall-complete": qr_case(TALL, "complete"),
    "square-signed-zeros": qr_case(np.concatenate([normal(1, 3, 3), SIGNED_ZEROS, UPPER])),
    "wide": qr_case(normal(2, 3, 5)), "batched-4d": qr_case(normal(2, 3, 4, 2)),
    "f64-square-zero-column-rank-deficient": qr_case(SQUARE_F64),
    "f64-wide-complete": qr_case(normal(2, 4, 5, dtype=F64), "complete"),
    "one-row": qr_case(normal(2, 1, 4)), "one-column": qr_case(normal(2, 4, 1), "complete"),
    "repeated-columns-zeros": qr_case(np.stack([REPEATED, np.zeros((4, 3), F32)]), "complete"),
    "tiny-below": qr_case(np.array([[-0.0, 1], [1e-30, 4], [0, 1]], F32)),
}


def test_qr_matches_xla_in_one_session():
    onnx_out, xla_out = run_table(QR_CASES, QR_CASES, "onnx"), run_table(QR_CASES, QR_CASES, "xla")
    for name in QR_CASES:
        x = QR_CASES[name][1][0]
        tol = 1e-12 if x.dtype == F64 else 2e-6
        for got, want in zip(onnx_out[name], xla_out[name]):
            assert got.shape == want.shape and got.dtype == want.dtype == x.dtype, name
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol * max(1, np.abs(x).max()), err_msg=name)
    # and the factorisations are right (not only alike): Q R = A, R's zeros, R[0, 0]'s signs
    q, r = onnx_out["tall-complete"]
    np.testing.assert_allclose(q @ r, TALL, atol=1e-5)
    np.testing.assert_allclose(q @ np.swapaxes(q, -1, -2), np.broadcast_to(np.eye(5), (2, 5, 5)), atol=1e-6)
    assert r[1, 1, 1] == 0 and onnx_out["repeated-columns-zeros"][1][0, 1, 1] == 0
    assert abs(onnx_out["f64-square-zero-column-rank-deficient"][1][1, 3, 3]) < 1e-14
    assert onnx_out["square-signed-zeros"][1][1, 0, 0] > 0 > onnx_out["square-signed-zeros"][1][2, 0, 0]
    np.testing.assert_array_equal(onnx_out["square-signed-zeros"][1][3], UPPER[0])


def test_qr_of_a_generic_rank_deficient_matrix():
    """When a column depends on the earlier ones inside a tall matrix, what lies below its
    diagonal is rounding noise, and LAPACK's next reflector (so that column of Q and R's later
    rows) follows the noise: only the leading factors are unique. Those agree with XLA."""
    x = (normal(6, 2, dtype=F64) @ normal(2, 4, dtype=F64))           # rank 2 of 4 columns
    cases = {"low-rank": qr_case(x)}
    (q, r), (xq, xr) = run_table(cases, cases, "onnx")["low-rank"], run_table(cases, cases, "xla")["low-rank"]
    np.testing.assert_allclose(q[:, :2], xq[:, :2], atol=1e-12)
    np.testing.assert_allclose(r[:2], xr[:2], atol=1e-12)
    np.testing.assert_allclose(q @ r, x, atol=1e-12)
    np.testing.assert_allclose(q.T @ q, np.eye(4), atol=1e-12)
    assert np.abs(r[2:, 2:]).max() < 1e-12


def scaled_to_norms(x, norms):
    """x's matrices scaled to the given 1-norms (max absolute column sum)."""
    return (x / np.abs(x).sum(-2).max(-1)[..., None, None] * np.reshape(norms, (-1, 1, 1))).astype(x.dtype)


# One batch per dtype whose matrices each need another Pade degree and count of squarings
# (jax vmaps expm over a batch): float32 degrees 3, 5, 7 and 7 with 3 squarings; float64 3, 5,
# 7, 9, 13, and 13 with 3 squarings; 0 (the identity); 1e6 needs 17 squarings, past jax's 16:
# NaN. (An XLA expm costs ~0.7 s to compile: two in all.)
EXPM_F32_NORMS = [1e-3, 0.5, 3.0, 50.0]
EXPM_F64_NORMS = [1e-3, 0.1, 0.5, 1.5, 3.0, 50.0, 0.0, 1e6]
EXPM_CASES = {
    "f32": (ops.matrix_exp, [scaled_to_norms(normal(4, 4, 4), EXPM_F32_NORMS).reshape(2, 2, 4, 4)]),
    "f64": (ops.matrix_exp, [np.nan_to_num(scaled_to_norms(normal(8, 3, 3, dtype=F64), EXPM_F64_NORMS))]),
}


def test_matrix_exp_matches_xla_in_one_session():
    onnx_out, xla_out = run_table(EXPM_CASES, EXPM_CASES, "onnx"), run_table(EXPM_CASES, EXPM_CASES, "xla")
    for name in EXPM_CASES:
        got, want = onnx_out[name], xla_out[name]
        tol = 1e-13 if want.dtype == F64 else 1e-5
        assert got.shape == want.shape and got.dtype == want.dtype, name
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=name)
        # relative to each matrix's largest entry (e^50 and e^-1e-3 meet in one batch)
        scale = np.abs(np.nan_to_num(want)).max(axis=(-2, -1), keepdims=True)
        np.testing.assert_array_less(np.nan_to_num(np.abs(got - want) / scale), tol, err_msg=name)
    f64 = onnx_out["f64"]
    assert np.isnan(f64[-1]).all() and not np.isnan(f64[:-1]).any()
    np.testing.assert_allclose(f64[:-1], [scipy.linalg.expm(a) for a in EXPM_CASES["f64"][1][0][:-1]], rtol=1e-11)
    np.testing.assert_array_equal(f64[-2], np.eye(3))


class QrExpm(nn.Cell):
    def construct(self, x):
        q, r = ops.qr(x, "complete")
        return q, r, ops.matrix_exp(x[:, :3] * 1.5)      # 1-norms ~3-15: 0 to 2 squarings


def test_export_with_a_dynamic_batch(tmp_path):
    """At batch sizes 2 and 5, against XLA run once on both batches together (jax's float32
    expm is itself ~5e-4 from the exact one on some 3 x 3 matrices: scipy's is no reference)."""
    path = str(tmp_path / "qr_expm.onnx")
    ms.export(QrExpm(), Tensor(normal(2, 4, 3)), file_name=path, opset=17)   # ReduceMax's attribute form
    model = onnx.load(path)
    assert model.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    x = normal(7, 4, 3) * 2
    xla = [w.asnumpy() for w in ms.jit(QrExpm())(Tensor(x))]
    for batch in (slice(0, 2), slice(2, 7)):
        got = sess.run(None, {sess.get_inputs()[0].name: x[batch]})
        for g, w in zip(got, xla):
            np.testing.assert_allclose(g, w[batch], rtol=1e-5, atol=1e-5 * np.abs(w[batch]).max())
    np.testing.assert_allclose(got[0], np.linalg.qr(x[2:], "complete")[0], atol=1e-5)   # numpy's LAPACK too


@pytest.mark.parametrize("fn", [lambda x: ops.qr(x)[1], lambda x: ops.matrix_exp(ops.matmul(x, ops.swapaxes(x, 0, 1)))])
def test_a_dynamic_matrix_size_is_refused(fn, tmp_path):
    class Net(nn.Cell):
        def construct(self, x):
            return fn(x)
    with pytest.raises(OnnxExportError, match=r"in Cell '<top>'.*: no ONNX lowering for matrices of dynamic size"):
        ms.export(Net(), Tensor(normal(4, 3)), file_name=str(tmp_path / "no"), dynamic_axes={0: [0]})

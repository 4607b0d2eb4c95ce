"""eigh's ONNX rule (compiler/onnx_eigh.py: eig's Hessenberg reduction and QR sweeps on the
symmetrized matrix, in float64), the primitive bound on a batch, against numpy.linalg.eigh and
the jax lowering (LAPACK's syevd): one ONNX model and one XLA function per dtype (modes.run_table)
holding sizes 1 to 6, a batch axis each.

Compared: eigenvalues (ascending) against numpy and XLA; eigenvectors orthonormal (V^T V = I, with
repeated eigenvalues too) and A v = w v; against XLA up to each column's sign where the eigenvalues
are apart (random matrices). The rule's sign convention (svd's) is checked on all of them.
"""
import numpy as np
import onnxruntime as ort
import pytest

import graphcell as gc
from graphcell.compiler.export import to_onnx
from graphcell.compiler.onnx import OnnxExportError
from graphcell.scipy import linalg as L
from graphcell.ops.eigh_prim import eigh
from tests.modes import run_table

RNG = np.random.default_rng(23)
SIZES = range(1, 7)
TOL = {np.float64: 1e-13, np.float32: 2e-6}   # relative to max|A|
KINDS = ["random", "random", "random", "diagonal_repeated", "rotated_repeated", "zero", "tiny", "huge"]


def family(n, dtype):
    """[8, n, n] symmetric matrices, the KINDS; tiny and huge ones test the scaling (float64's
    squares would underflow or overflow)."""
    s = RNG.standard_normal((3, n, n))
    s = s + np.swapaxes(s, -1, -2)
    q = np.linalg.qr(RNG.standard_normal((n, n)))[0]
    repeated = np.diag(np.sort(np.resize([2.0, -1.0], n)))
    big = 1e150 if dtype == np.float64 else 1e30
    small = 1e-200 if dtype == np.float64 else 1e-30
    return np.stack([*s, np.diag(np.resize([3.0, -1.0, 3.0], n)),
                     q @ repeated @ q.T, np.zeros((n, n)), small * s[0], big * s[1]]).astype(dtype)


def _eigh(a):
    return tuple(eigh.bind(a))


@pytest.mark.slow   # (~3 s a dtype: six eigh nodes, each a Loop)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_eigh_in_onnxruntime_matches_numpy_and_xla(dtype):
    table = {f"n{n}": (_eigh, [family(n, dtype)]) for n in SIZES}
    got, want = run_table(table, list(table), "onnx"), run_table(table, list(table), "jit")
    tol = TOL[dtype]
    for name, (_, (a,)) in table.items():
        (w, v), (xw, xv) = got[name], want[name]
        assert w.dtype == v.dtype == dtype and w.shape == xw.shape and v.shape == xv.shape
        n = a.shape[-1]
        a64, w64, v64 = a.astype(np.float64), w.astype(np.float64), v.astype(np.float64)
        scale = np.maximum(np.abs(a64).max(axis=(-2, -1)), 1e-300)[:, None]
        assert (np.abs(w64 - np.linalg.eigh(a64)[0]) <= tol * scale).all(), name
        assert (np.abs(w64 - xw) <= tol * scale).all(), name
        np.testing.assert_allclose(np.swapaxes(v64, -1, -2) @ v64, np.broadcast_to(np.eye(n), v.shape),
                                   atol=10 * np.finfo(dtype).eps * n, err_msg=name)
        residual = np.abs(a64 @ v64 - v64 * w64[:, None, :]).max(axis=(-2, -1)) / scale[:, 0]
        assert (residual <= tol).all(), (name, residual)
        # the sign convention: each column's first entry within 0.1% of its largest magnitude is positive
        near = np.abs(v64) >= 0.999 * np.abs(v64).max(axis=-2, keepdims=True)
        first = np.take_along_axis(v64, np.argmax(near, axis=-2)[:, None, :], axis=-2)
        assert (first > 0).all(), name
        for i in range(3):   # random: eigenvalues apart, vectors unique up to sign
            sign = np.sign(np.sum(v64[i] * xv[i], axis=0))
            np.testing.assert_allclose(v64[i], xv[i] * sign, atol=1e3 * tol, err_msg=name)


class _Eigh(gc.nn.Cell):
    def construct(self, x):
        return tuple(eigh.bind(x))


def test_eigh_export_with_a_dynamic_batch():
    a = RNG.standard_normal((3, 4, 4)).astype(np.float32)
    model = to_onnx(_Eigh(), gc.Tensor(a), dynamic_axes={0: [0]}).model
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    batch = RNG.standard_normal((5, 4, 4)).astype(np.float32)
    w, v = session.run(None, {session.get_inputs()[0].name: batch})
    sym = (batch + np.swapaxes(batch, -1, -2)).astype(np.float64) / 2
    np.testing.assert_allclose(w, np.linalg.eigh(sym)[0], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(sym @ v, v * w[:, None, :], atol=1e-5)


def test_a_dynamic_matrix_size_is_refused(tmp_path):
    class Net(gc.nn.Cell):
        def construct(self, x):
            return L.eigh(gc.ops.matmul(x, gc.ops.swapaxes(x, 0, 1)))[0]   # [m, m], m dynamic
    with pytest.raises(OnnxExportError, match=r"in Cell '<top>'.*: no ONNX lowering for matrices of dynamic size"):
        gc.export(Net(), gc.Tensor(np.ones((4, 3), np.float32)), file_name=str(tmp_path / "no"), dynamic_axes={0: [0]})

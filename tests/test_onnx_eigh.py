"""eigh's ONNX rule (compiler/onnx_eigh.py: eig's Hessenberg reduction and QR sweeps on the
symmetrized matrix, in float64), the primitive bound on a batch, against numpy.linalg.eigh and
the jax lowering (LAPACK's syevd / heevd): one ONNX model and one XLA function per dtype
(modes.run_table) holding sizes 1 to 6, a batch axis each; real symmetric and complex Hermitian.

Compared: eigenvalues (ascending) against numpy and XLA; eigenvectors orthonormal (V^H V = I, with
repeated eigenvalues too) and A v = w v; equal to XLA's where the eigenvalues are apart (random
matrices): both backends fix each column's sign (phase) by one rule, which is checked on all.
"""
import numpy as np
import onnxruntime as ort
import pytest

import graphcell as gc
from graphcell.compiler.export import to_onnx
from graphcell.compiler.onnx import OnnxExportError
from graphcell.ops import complex_ops
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
        # random: eigenvalues apart, vectors unique up to sign, which both backends fix alike
        np.testing.assert_allclose(v64[:3], xv[:3], atol=1e3 * tol, err_msg=name)


def hermitian_family(n, dtype):
    """[8, n, n] complex Hermitian matrices, `family`'s kinds: random, diagonal with repeats (a
    real diagonal), Q diag(repeats) Q^H for a random unitary Q, zero, tiny and huge."""
    z = RNG.standard_normal((3, n, n)) + 1j * RNG.standard_normal((3, n, n))
    h = z + np.conj(np.swapaxes(z, -1, -2))
    q = np.linalg.qr(RNG.standard_normal((n, n)) + 1j * RNG.standard_normal((n, n)))[0]
    repeated = np.diag(np.sort(np.resize([2.0, -1.0], n)))
    big = 1e150 if dtype == np.complex128 else 1e30
    small = 1e-200 if dtype == np.complex128 else 1e-30
    return np.stack([*h, np.diag(np.resize([3.0, -1.0, 3.0], n)).astype(complex),
                     q @ repeated @ q.conj().T, np.zeros((n, n)), small * h[0], big * h[1]]).astype(dtype)


def _eigh_of_parts(re, im):
    """eigh of re + i im, the complex vectors as their parts (ONNX models give real tensors)."""
    w, v = eigh.bind(complex_ops.complex_from(re, im))
    return w, complex_ops.real(v), complex_ops.imag(v)


def _check_hermitian(a, w, v, xw, xv, tol, name):
    """w, v (ONNX's) against numpy and xw, xv (XLA's), for `hermitian_family`'s matrices a."""
    n = a.shape[-1]
    a128, w64 = a.astype(np.complex128), w.astype(np.float64)
    scale = np.maximum(np.abs(a128).max(axis=(-2, -1)), 1e-300)[:, None]
    assert (np.abs(w64 - np.linalg.eigvalsh(a128)) <= tol * scale).all(), name
    assert (np.abs(w64 - xw) <= tol * scale).all(), name
    v128 = v.astype(np.complex128)
    np.testing.assert_allclose(np.conj(np.swapaxes(v128, -1, -2)) @ v128, np.broadcast_to(np.eye(n), v.shape),
                               atol=10 * np.finfo(w.dtype).eps * n, err_msg=name)
    residual = np.abs(a128 @ v128 - v128 * w64[:, None, :]).max(axis=(-2, -1)) / scale[:, 0]
    assert (residual <= tol).all(), (name, residual)
    # the phase convention: each column's first entry within 0.1% of its largest magnitude is real, > 0
    near = np.abs(v128) >= 0.999 * np.abs(v128).max(axis=-2, keepdims=True)
    first = np.take_along_axis(v128, np.argmax(near, axis=-2)[:, None, :], axis=-2)
    assert (first.real > 0).all() and (np.abs(first.imag) <= np.finfo(w.dtype).eps).all(), name
    np.testing.assert_allclose(v128[:3], xv[:3], atol=1e3 * tol, err_msg=name)   # random: the same vectors


@pytest.mark.slow   # (~4 s a dtype: six eigh nodes, each a Loop)
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_hermitian_eigh_in_onnxruntime_matches_numpy_and_xla(dtype):
    table = {f"n{n}": (_eigh_of_parts, [a.real, a.imag]) for n in SIZES for a in [hermitian_family(n, dtype)]}
    got, want = run_table(table, list(table), "onnx"), run_table(table, list(table), "jit")
    tol = TOL[np.float64 if dtype == np.complex128 else np.float32]
    for name, (_, (re, im)) in table.items():
        (w, v_re, v_im), (xw, x_re, x_im) = got[name], want[name]
        assert w.dtype == v_re.dtype == np.finfo(dtype).dtype and w.shape == xw.shape, name
        _check_hermitian(re + 1j * im, w, v_re + 1j * v_im, xw, x_re + 1j * x_im, tol, name)


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_hermitian_eigh_of_a_few_sizes_in_onnxruntime(dtype):
    """The quick form of the test above (sizes 1, 3 and 4 in one model), run by default."""
    table = {f"n{n}": (_eigh_of_parts, [a.real, a.imag]) for n in (1, 3, 4) for a in [hermitian_family(n, dtype)]}
    got, want = run_table(table, list(table), "onnx"), run_table(table, list(table), "jit")
    tol = TOL[np.float64 if dtype == np.complex128 else np.float32]
    for name, (_, (re, im)) in table.items():
        (w, v_re, v_im), (xw, x_re, x_im) = got[name], want[name]
        _check_hermitian(re + 1j * im, w, v_re + 1j * v_im, xw, x_re + 1j * x_im, tol, name)


def test_hermitian_eigh_with_two_batch_axes_and_a_dynamic_one():
    """[2, 3, 4, 4] Hermitian matrices (two batch axes), then a model whose first axis is dynamic
    run on 5: the values against numpy, the vectors against XLA's."""
    z = RNG.standard_normal((2, 3, 4, 4)) + 1j * RNG.standard_normal((2, 3, 4, 4))
    a = z + np.conj(np.swapaxes(z, -1, -2))
    (w, v_re, v_im), (xw, x_re, x_im) = [run_table({"a": (_eigh_of_parts, [a.real, a.imag])}, ["a"], mode)["a"]
                                          for mode in ("onnx", "jit")]
    assert w.shape == (2, 3, 4) and v_re.shape == (2, 3, 4, 4)
    np.testing.assert_allclose(w, np.linalg.eigvalsh(a), atol=1e-12)
    np.testing.assert_allclose(v_re + 1j * v_im, x_re + 1j * x_im, atol=1e-11)

    class Net(gc.nn.Cell):
        def construct(self, re, im):
            return _eigh_of_parts(re, im)
    small = a[0, :1].astype(np.complex64)
    model = to_onnx(Net(), gc.Tensor(small.real), gc.Tensor(small.imag), dynamic_axes={0: [0], 1: [0]}).model
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    batch = a[1, :].astype(np.complex64)
    batch = np.concatenate([batch, a[0, :2].astype(np.complex64)])                         # 5 matrices
    w, v_re, v_im = session.run(None, {i.name: x for i, x in zip(session.get_inputs(), (batch.real, batch.imag))})
    v = v_re + 1j * v_im
    np.testing.assert_allclose(w, np.linalg.eigvalsh(batch.astype(np.complex128)), atol=1e-5)
    np.testing.assert_allclose(batch @ v, v * w[:, None, :], atol=1e-5)


def test_the_gradient_of_a_hermitian_eigh_exports():
    """grad through a complex eigh (its vjp: complex products, the phase rule's term, a complex
    sum over rows) in onnxruntime equals XLA's, for a loss of the eigenvalues and of the
    vectors' parts (which depends on their phases)."""
    w1, w2 = RNG.standard_normal((2, 4, 4))

    def loss(re, im):
        w, v = eigh.bind(complex_ops.complex_from(re, im))
        return (w * gc.Tensor(np.arange(4.0))).sum() \
            + (complex_ops.real(v) * gc.Tensor(w1) + complex_ops.imag(v) * gc.Tensor(w2)).sum()
    grad = gc.grad(loss, grad_position=(0, 1))
    z = RNG.standard_normal((2, 4, 4))
    want = grad(gc.Tensor(z[0]), gc.Tensor(z[1]))
    got = gc.jit(grad, backend="onnx")(gc.Tensor(z[0]), gc.Tensor(z[1]))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), atol=1e-12)


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

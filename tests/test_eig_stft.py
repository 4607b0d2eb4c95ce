"""ops.eig / eigvals / Eig, ops.stft, the hfftn family and graphcell.numpy.fft against numpy,
jax, torch and values measured on MindSpore 2.10."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
import torch

import graphcell as gc
import graphcell.numpy as mnp
from graphcell import Tensor, ops
from graphcell.ops.complex_ops import complex_from

A = np.array([[1., 2., 0.], [-3., 1., 1.], [0.5, 0., 2.]])
BATCH = np.random.RandomState(0).randn(2, 3, 3)
SIGNAL = (np.sin(np.arange(16) * 0.7) + 0.1 * np.arange(16)).astype(np.float32)


def _by_magnitude_then_imag(w):
    return np.array(sorted(w, key=lambda z: (round(abs(z), 4), z.imag)))


def test_eig_values_vectors_order_and_dtypes():
    @gc.jit
    def every(a32, a64, batch, diag, z):
        return ops.eig(a32) + ops.eig(a64) + (ops.eigvals(batch),) + ops.eig(diag) + ops.eig(z)
    z = (A + 1j * A.T).astype(np.complex64)
    w32, v32, w64, v64, wb, wd, vd, wz, vz = [t.asnumpy() for t in every(
        Tensor(A.astype(np.float32)), Tensor(A), Tensor(BATCH.astype(np.float32)),
        Tensor(np.diag([3., 1., 2.]).astype(np.float32)), Tensor(z))]
    # MindSpore 2.10 (measured): Complex64 for float32, Complex128 for float64, complex kept
    assert (w32.dtype, v32.dtype, w64.dtype, v64.dtype, wz.dtype) == (np.complex64,) * 2 + (np.complex128,) * 2 + (
        np.complex64,)
    # ascending magnitude (2.10's order, measured); a conjugate pair's order is rounding's in 2.10
    ms_w32 = [2.1371176 + 0j, 0.9314418 - 2.480165j, 0.9314418 + 2.480165j]
    np.testing.assert_allclose(_by_magnitude_then_imag(w32), _by_magnitude_then_imag(ms_w32), rtol=2e-6)
    ms_batch = [[-0.7286129, 1.43301, 2.8239949], [-0.6551213 - 0.63156j, -0.6551214 + 0.63156j, 1.6373582]]
    np.testing.assert_allclose(wb[0], ms_batch[0], rtol=2e-6)
    np.testing.assert_allclose(_by_magnitude_then_imag(wb[1]), _by_magnitude_then_imag(ms_batch[1]), rtol=2e-6)
    # 2.10 on diag(3, 1, 2): values [1, 2, 3], vectors the permutation's unit columns
    np.testing.assert_array_equal(wd, [1, 2, 3])
    np.testing.assert_array_equal(vd, [[0, 0, 1], [1, 0, 0], [0, 1, 0]])
    for a, w, v, tol in ((A, w32, v32, 2e-6), (A, w64, v64, 1e-12), (z, wz, vz, 2e-6)):
        assert list(np.abs(w)) == sorted(np.abs(w))
        np.testing.assert_allclose(_by_magnitude_then_imag(w), _by_magnitude_then_imag(np.linalg.eigvals(a)),
                                   rtol=tol * 10)
        np.testing.assert_allclose(a @ v, v * w[None, :], atol=tol * 10)        # A v = w v
        np.testing.assert_allclose(np.linalg.norm(v, axis=0), 1, rtol=tol)     # unit columns, as 2.10's


def test_eig_class_tensor_method_and_errors():
    a = Tensor(A.astype(np.float32))
    w, placeholder = ops.Eig()(a)          # 2.10: compute_v=False gives a 0-d complex zero second
    assert placeholder.shape == () and placeholder.dtype is gc.complex64 and placeholder.asnumpy() == 0
    w2, v2 = ops.Eig(compute_v=True)(a)
    assert v2.shape == (3, 3)
    np.testing.assert_array_equal(w.asnumpy(), w2.asnumpy())
    np.testing.assert_array_equal(a.eigvals().asnumpy(), w.asnumpy())   # 2.10's own raises a TypeError
    with pytest.raises(TypeError, match="For 'Eig', the type of 'compute_v' should be 'bool'"):
        ops.Eig(compute_v=1)
    # MindSpore 2.10's messages (measured)
    with pytest.raises(TypeError, match=r"must be a type of \{Tensor\[Complex128\], Tensor\[Complex64\], "
                                        r"Tensor\[Float32\], Tensor\[Float64\]\}, but got Tensor\[Float16\]"):
        ops.eig(Tensor(A.astype(np.float16)))
    with pytest.raises(ValueError, match="For Eig, x should be at lease 2, but got a 1-D Tensor."):
        ops.eigvals(Tensor(np.ones(3, np.float32)))
    with pytest.raises(ValueError, match=r"x should be square\(squares\), but got 2  3 matrix\(matrices\)"):
        ops.eig(Tensor(np.ones((2, 3), np.float32)))
    with pytest.raises(TypeError, match="Failed calling Eig"):
        ops.eig(A)


def test_eigvals_gradient_against_jax_and_eigenvectors_refused():
    def loss(w):
        return (ops.real(w) ** 2).sum() + (ops.imag(w) ** 3).sum()

    def jax_loss(w):
        return (jnp.real(w) ** 2).sum() + (jnp.imag(w) ** 3).sum()
    got = gc.grad(lambda a: loss(ops.eigvals(a)))(Tensor(BATCH)).asnumpy()
    np.testing.assert_allclose(got, jax.grad(lambda a: jax_loss(jnp.linalg.eigvals(a)))(BATCH), rtol=1e-9, atol=1e-10)
    # 2.10 has no gradient at all ("Illegal primitive Eig's bprop not defined", measured)
    with pytest.raises(RuntimeError, match="Illegal primitive Eig's bprop not defined"):
        gc.grad(lambda a: ops.abs(ops.eig(a)[1]).sum())(Tensor(A))


@pytest.mark.slow
def test_eigvals_gradient_of_complex_input_and_under_vmap():
    def loss(w):
        return (ops.real(w) ** 2).sum() + (ops.imag(w) ** 3).sum()

    def jax_loss(w):
        return (jnp.real(w) ** 2).sum() + (jnp.imag(w) ** 3).sum()
    # complex input, through its real and imaginary parts
    gr, gi = gc.grad(lambda r, i: loss(ops.eigvals(complex_from(r, i))), grad_position=(0, 1))(
        Tensor(A), Tensor(A.T.copy()))
    jr, ji = jax.grad(lambda r, i: jax_loss(jnp.linalg.eigvals(r + 1j * i)), argnums=(0, 1))(A, A.T.copy())
    np.testing.assert_allclose(gr.asnumpy(), jr, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(gi.asnumpy(), ji, rtol=1e-9, atol=1e-10)
    # vmap of the gradient, against a loop
    per = gc.vmap(gc.grad(lambda a: loss(ops.eigvals(a))))(Tensor(BATCH)).asnumpy()
    want = jax.vmap(jax.grad(lambda a: jax_loss(jnp.linalg.eigvals(a))))(BATCH)
    np.testing.assert_allclose(per, want, rtol=1e-9, atol=1e-10)


# (eig's ONNX rule: tests/test_onnx_eig.py)


# -- stft -------------------------------------------------------------------------------------

_H8 = np.hanning(8).astype(np.float32)
_H6 = np.hanning(6).astype(np.float32)
# name: (graphcell call on the signal x, torch.stft keywords or None, MindSpore 2.10's shape)
STFT_CASES = {
    "default": (lambda x: ops.stft(x, 8), None, (5, 9, 2)),
    "hop3": (lambda x: ops.stft(x, 8, hop_length=3, return_complex=True), dict(hop_length=3), (5, 6)),
    "win_length6": (lambda x: ops.stft(x, 8, win_length=6, return_complex=True), dict(win_length=6), (5, 9)),
    "no_center": (lambda x: ops.stft(x, 8, center=False, return_complex=True), dict(center=False), (5, 5)),
    "normalized": (lambda x: ops.stft(x, 8, normalized=True, return_complex=True), dict(normalized=True), (5, 9)),
    "two_sided": (lambda x: ops.stft(x, 8, onesided=False, return_complex=True), dict(onesided=False), (8, 9)),
    "constant": (lambda x: ops.stft(x, 8, pad_mode='CONSTANT', return_complex=True), dict(pad_mode="constant"),
                 (5, 9)),
    "window": (lambda x: ops.stft(x, 8, window=Tensor(_H8), return_complex=True),
               dict(window=torch.tensor(_H8)), (5, 9)),
    "window6": (lambda x: ops.stft(x, 8, win_length=6, window=Tensor(_H6), return_complex=True),
                dict(win_length=6, window=torch.tensor(_H6)), (5, 9)),
    "complex_window": (lambda x: ops.stft(x, 8, window=Tensor(_H8.astype(np.complex64))),
                       dict(window=torch.tensor(_H8.astype(np.complex64))), (8, 9)),
    "batch_no_center": (lambda x: ops.stft(ops.stack([x, 2 * x]), 6, hop_length=3, center=False,
                                           return_complex=True), dict(hop_length=3, center=False), (2, 4, 4)),
    "n_fft30": (lambda x: ops.stft(x, 30, return_complex=True), dict(), (16, 3)),
    "odd5": (lambda x: ops.stft(x, 5, return_complex=True), dict(), (3, 16)),
    "constant40": (lambda x: ops.stft(x, 40, pad_mode='CONSTANT', return_complex=True), dict(pad_mode="constant"),
                   (21, 2)),
    "symmetric": (lambda x: ops.stft(x, 8, pad_mode='SYMMETRIC', return_complex=True), None, (5, 9)),
}
_TORCH_N_FFT = {"batch_no_center": 6, "n_fft30": 30, "odd5": 5, "constant40": 40}


@pytest.mark.filterwarnings("ignore:A window was not provided")   # torch's, on its default window
def test_stft_against_torch_and_mindspore():
    names = sorted(STFT_CASES)
    outs = gc.jit(lambda x: tuple(STFT_CASES[n][0](x) for n in names))(Tensor(SIGNAL))
    got = {n: o.asnumpy() for n, o in zip(names, outs)}
    for name, (_, keywords, shape) in STFT_CASES.items():
        assert got[name].shape == shape, name
        if keywords is None:
            continue
        signal = torch.tensor(SIGNAL)
        if name == "batch_no_center":
            signal = torch.stack([signal, 2 * signal])
        want = torch.stft(signal, _TORCH_N_FFT.get(name, 8), return_complex=True, **keywords).numpy()
        assert got[name].dtype == want.dtype, name
        np.testing.assert_allclose(got[name], want, atol=2e-6, err_msg=name)
    # MindSpore 2.10 (measured): return_complex=None on a real signal gives the real view
    np.testing.assert_allclose(got["default"][1, :3], [[1.327532, 0], [-0.7170011, 0.6105309], [-1.336496, -2.899992]],
                               atol=2e-6)
    np.testing.assert_allclose(got["symmetric"][:3, :3], [
        [6.185754, 4.7212996, 3.4230533],
        [2.297721 + 0.9517472j, -1.6844745 + 1.1367723j, -1.3364965 - 2.8999922j],
        [-0.766458 - 0.766458j, 1.1946793 - 0.26977497j, -0.17888582 - 0.01267767j]], atol=2e-6)
    np.testing.assert_allclose(got["odd5"][:, :3], [
        [3.859335, 3.8370945, 3.8278651],
        [1.179665 + 0.85707676j, -0.45746455 + 1.3656276j, -1.4430054 - 0.02185032j],
        [-0.1457081 - 0.4484434j, 0.3994615 + 0.26408076j, -0.47092706 + 0.01572678j]], atol=2e-6)


def test_stft_dtypes_complex_input_grad_and_vmap():
    x64 = Tensor(SIGNAL.astype(np.float64))
    assert ops.stft(x64, 8, return_complex=True).dtype is gc.complex128
    assert ops.stft(Tensor(SIGNAL), 8, window=Tensor(_H8.astype(np.float64)), return_complex=True).dtype \
        is gc.complex128                                      # 2.10: promoted with the window (measured)
    xc = (SIGNAL + 1j * SIGNAL[::-1]).astype(np.complex64)
    got = ops.stft(Tensor(xc), 8)                          # complex: two-sided, complex (2.10's defaults)
    np.testing.assert_allclose(got.asnumpy(), torch.stft(torch.tensor(xc), 8, return_complex=True).numpy(), atol=2e-6)
    assert ops.stft(Tensor(xc), 8, return_complex=False).shape == (8, 9, 2)
    # gradient (2.10 has none: "Illegal primitive STFT's bprop not defined") against torch's autograd
    g = gc.grad(lambda x: ops.abs(ops.stft(x, 8, window=Tensor(_H8), return_complex=True)).sum())(Tensor(SIGNAL))
    t = torch.tensor(SIGNAL.astype(np.float64), requires_grad=True)
    torch.stft(t, 8, window=torch.tensor(_H8.astype(np.float64)), return_complex=True).abs().sum().backward()
    np.testing.assert_allclose(g.asnumpy(), t.grad.numpy(), rtol=1e-4, atol=1e-5)
    batch = np.stack([SIGNAL, SIGNAL[::-1].copy()])
    mapped = gc.vmap(lambda x: ops.stft(x, 8, hop_length=3, return_complex=True))(Tensor(batch)).asnumpy()
    np.testing.assert_allclose(mapped, ops.stft(Tensor(batch), 8, hop_length=3, return_complex=True).asnumpy(),
                               atol=1e-6)


def test_stft_errors_are_mindspores():
    x = Tensor(SIGNAL)
    cases = [  # MindSpore 2.10's messages (measured)
        (lambda: ops.stft(x, 8, pad_mode='reflect'), ValueError, "For 'Pad', the 'mode' must be str and must be in "),
        (lambda: ops.stft(Tensor(SIGNAL.astype(np.float16)), 8), TypeError,
         r"For primitive\[STFT\], the input argument\[x\] must be a type of .* but got Tensor\[Float16\]"),
        (lambda: ops.stft(Tensor(np.ones((2, 2, 16), np.float32)), 8), ValueError,
         "Expected a 1-D tensor or a 2-D tensor, but got 3"),
        (lambda: ops.stft(x, 40), ValueError, r"paddings must be no greater than the dimension size: \[20\], \[20\] "
                                              r"not less than \[16\]"),
        (lambda: ops.stft(x, 34, pad_mode='SYMMETRIC'), ValueError, r"\[17\], \[17\] greater than \[16\]"),
        (lambda: ops.stft(x, 20, center=False), ValueError, r"the n_fft must be in \(0,16\], but got 20."),
        (lambda: ops.stft(x, 8, win_length=9), ValueError, r"the win_length must be in \(0,8\], but got 9."),
        (lambda: ops.stft(x, 8, hop_length=0), ValueError, "the hop_length must be greater than 0, but got 0."),
        (lambda: ops.stft(x, 8, window=Tensor(np.ones(5, np.float32))), ValueError,
         "the window_shape must be equal to 8, but got 5."),
        (lambda: ops.stft(x, 8, window=Tensor(np.ones((1, 8), np.float32))), ValueError,
         "the window_rank must be equal to 1, but got 2."),
        (lambda: ops.stft(Tensor(SIGNAL.astype(np.complex64)), 8, onesided=True), ValueError,
         "For onesided should be false if input is complex,but got 1"),
        (lambda: ops.stft(x, 8.0), TypeError, "For 'STFT', the type of 'n_fft' should be 'int', but got type 'float'."),
        (lambda: ops.stft(x, np.int64(8)), TypeError, "should be 'int', but got type 'int64'."),
        (lambda: ops.stft(x, 8, center=1), TypeError, "For 'stft', the type of 'center' should be 'bool'"),
        (lambda: ops.stft(SIGNAL, 8), TypeError, "must be a Tensor, CSRTensor or COOTensor"),
    ]
    for call, error, message in cases:
        with pytest.raises(error, match=message):
            call()


# -- hfft2/hfftn/ihfft2/ihfftn and graphcell.numpy.fft ----------------------------------------

def test_hermitian_nd_transforms_and_numpy_fft_names():
    rng = np.random.RandomState(1)
    c = (rng.randn(3, 4) + 1j * rng.randn(3, 4)).astype(np.complex64)
    r = rng.randn(3, 4).astype(np.float32)
    tc, tr = torch.tensor(c), torch.tensor(r)
    cases = {  # name: (graphcell, torch)
        "hfft2": (ops.hfft2(Tensor(c)), torch.fft.hfft2(tc)),
        "hfftn_s": (ops.hfftn(Tensor(c), s=(3, 5), norm="ortho"), torch.fft.hfftn(tc, s=(3, 5), norm="ortho")),
        "ihfft2": (ops.ihfft2(Tensor(r)), torch.fft.ihfft2(tr)),
        "ihfftn_dim": (ops.ihfftn(Tensor(r), dim=(0,), norm="forward"), torch.fft.ihfftn(tr, dim=(0,), norm="forward")),
        "np_fft": (mnp.fft.fft(Tensor(c), n=5, axis=0), torch.fft.fft(tc, n=5, dim=0)),
        "np_rfft2": (mnp.fft.rfft2(Tensor(r), axes=(0, 1)), torch.fft.rfft2(tr, dim=(0, 1))),
        "np_hfftn": (mnp.fft.hfftn(Tensor(c), axes=None), torch.fft.hfftn(tc)),
        "np_ihfftn": (mnp.fft.ihfftn(Tensor(r)), torch.fft.ihfftn(tr)),   # 2.10's calls hfftn (measured)
        "np_fftshift": (mnp.fft.fftshift(Tensor(r), axes=1), torch.fft.fftshift(tr, dim=1)),
        "np_fftfreq": (mnp.fft.fftfreq(5, 0.5), torch.fft.fftfreq(5, 0.5)),
    }
    for name, (got, want) in cases.items():
        want = want.resolve_conj().numpy()
        assert got.asnumpy().dtype == want.dtype, name
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-6, err_msg=name)
    # MindSpore 2.10 (measured): hfft2 of [3, 4] complex is [3, 6] Float32; the real input is taken too
    assert ops.hfft2(Tensor(r)).shape == (3, 6) and ops.hfft2(Tensor(r)).dtype is gc.float32

"""Complex dtypes and the FFT family against numpy.fft, jax (grad, vmap) and values measured on
MindSpore 2.10."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import graphcell as gc
from graphcell import Tensor, nn, ops
from graphcell.compiler.export import OnnxExportError, to_onnx

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 3, 4)).astype(np.float32)
C = (RNG.standard_normal((2, 3, 4)) + 1j * RNG.standard_normal((2, 3, 4))).astype(np.complex64)


def test_dtypes_promotion_and_repr():
    a = Tensor(np.array([1 + 2j, 3 - 1j], np.complex64))
    assert a.dtype is gc.complex64 and a.asnumpy().dtype == np.complex64
    assert str(gc.complex128) == "Complex128" and gc.dtype.to_dtype(np.complex128) is gc.complex128
    # MindSpore 2.10 (measured): a Python complex is Complex128; complex64 + float64 -> Complex128,
    # + float32 / int32 / int / float -> Complex64
    assert Tensor(1 + 2j).dtype is gc.complex128 and Tensor([1 + 2j, 2]).dtype is gc.complex128
    assert (a + Tensor(np.ones(2, np.float64))).dtype is gc.complex128
    for other in (Tensor(np.ones(2, np.float32)), Tensor(np.ones(2, np.int32)), 2, 2.5):
        assert (a + other).dtype is gc.complex64
    assert (a + Tensor(np.ones(2, np.complex128))).dtype is gc.complex128
    with pytest.raises(TypeError, match="Python complex"):
        a + (1 + 1j)
    # MindSpore 2.10's repr (measured)
    assert repr(Tensor(np.array([[0.5 + 1.5j, -1j], [2, 3.25]], np.complex64))) == (
        "Tensor(shape=[2, 2], dtype=Complex64, value=\n[[0.5+1.5j, -0-1j],\n [2+0j, 3.25+0j]])")
    assert repr(Tensor(np.array(0.5 - 1.5j, np.complex128))) == "Tensor(shape=[], dtype=Complex128, value= 0.5-1.5j)"
    assert a.astype(gc.float32).asnumpy().tolist() == [1.0, 3.0]   # the real part, as MindSpore


def test_elementwise_and_reductions_against_numpy():
    a, b = C[0, 0], C[1, 2]
    ta, tb = Tensor(a), Tensor(b)
    cases = {"add": (ta + tb, a + b), "sub": (ta - tb, a - b), "mul": (ta * tb, a * b), "div": (ta / tb, a / b),
             "neg": (-ta, -a), "exp": (ops.exp(ta), np.exp(a)), "log": (ops.log(ta), np.log(a)),
             "sqrt": (ops.sqrt(ta), np.sqrt(a)), "square": (ops.square(ta), a * a),
             "pow": (ops.pow(ta, tb), a ** b), "sum": (ops.sum(ta), a.sum()), "mean": (ops.mean(ta), a.mean()),
             "prod": (ops.prod(ta), a.prod()), "Tmean": (ta.mean(), a.mean()),
             "real": (ops.real(ta), a.real), "imag": (ops.imag(ta), a.imag), "conj": (ops.conj(ta), a.conj()),
             "angle": (ops.angle(ta), np.angle(a)), "Tangle": (ta.angle(), np.angle(a)),
             "view_as_real": (ops.view_as_real(ta), np.stack([a.real, a.imag], -1))}
    for name, (got, want) in cases.items():
        assert got.asnumpy().dtype == want.dtype, name
        np.testing.assert_allclose(got.asnumpy(), want, rtol=2e-5, atol=1e-6, err_msg=name)
    # MindSpore 2.10 (measured): abs keeps the complex dtype, imaginary part 0
    assert ops.abs(ta).dtype is gc.complex64
    np.testing.assert_allclose(ops.abs(ta).asnumpy(), np.abs(a), rtol=1e-6)
    # polar (MindSpore 2.10 value: polar(1.5, 1.5) = 0.1061058+1.4962425j)
    p = ops.polar(Tensor(np.float32([1.5, 2.0])), Tensor(np.float32([1.5, 2.0])))
    np.testing.assert_allclose(p.asnumpy(), [0.1061058 + 1.4962425j, -0.8322937 + 1.8185948j], rtol=1e-6)
    assert ops.is_complex(ta) and ta.is_complex() and not ops.is_complex(Tensor(X))
    # on real tensors (MindSpore 2.10): real is itself, imag zeros, conj itself, angle refused
    i = Tensor(np.int32([1, 2]))
    assert ops.real(i).dtype is gc.int32 and ops.imag(i).asnumpy().tolist() == [0, 0]
    with pytest.raises(TypeError):
        ops.angle(Tensor(X))
    with pytest.raises(TypeError):
        ops.view_as_real(Tensor(X))
    with pytest.raises(TypeError, match="Polar"):
        ops.polar(i, i)


@pytest.mark.parametrize("op", [lambda a: a < a, lambda a: ops.maximum(a, a), lambda a: ops.sort(a),
                                lambda a: ops.argmax(a), lambda a: ops.floor(a)])
def test_ordering_ops_refuse_complex(op):
    with pytest.raises(TypeError, match="complex"):
        op(Tensor(C[0, 0]))


def _np_ref(name, x, **kw):
    return getattr(np.fft, name)(x, **kw)


FFT_CASES = [("fft", X, {}), ("fft", C, dict(n=6, dim=1, norm="ortho")), ("fft", X, dict(n=2, norm="forward")),
             ("ifft", C, {}), ("ifft", C, dict(n=5, norm="forward")), ("fft2", C, {}),
             ("ifft2", C, dict(s=(2, 5), norm="ortho")), ("fftn", X, {}), ("ifftn", C, dict(dim=(0, 2))),
             ("rfft", X, {}), ("rfft", X, dict(n=7, dim=0, norm="ortho")), ("irfft", C, {}),
             ("irfft", C, dict(n=5, norm="forward")), ("rfft2", X, dict(s=(3, 5))), ("irfft2", C, {}),
             ("rfftn", X, {}), ("irfftn", C, dict(s=(2, 3, 4), dim=(0, 1, 2))), ("hfft", C, {}), ("hfft", C, dict(n=5, norm="ortho")),
             ("ihfft", X, {}), ("ihfft", X, dict(norm="forward"))]


@pytest.mark.parametrize("name, x, kw", FFT_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(FFT_CASES)])
def test_fft_family_against_numpy(name, x, kw):
    np_kw = {{"dim": "axes" if name[-1] in "2n" else "axis", "s": "s", "n": "n", "norm": "norm"}[k]: v
             for k, v in kw.items()}
    want = _np_ref(name, x.astype(np.complex128 if x.dtype.kind == "c" else np.float64), **np_kw)
    got = getattr(ops, name)(Tensor(x), **kw)
    assert got.shape == want.shape
    assert got.dtype is (gc.complex64 if want.dtype.kind == "c" else gc.float32)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-4, atol=1e-4)


def test_fft_values_measured_on_mindspore():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    # MindSpore 2.10: ops.fft of Int32 and Float16 is Complex64, of Float64 Complex128
    assert ops.fft(Tensor(x.astype(np.int32))).dtype is gc.complex64
    assert ops.fft(Tensor(x.astype(np.float16))).dtype is gc.complex64
    assert ops.fft(Tensor(x.astype(np.float64))).dtype is gc.complex128
    np.testing.assert_allclose(ops.fft(Tensor(x), n=2, norm="forward").asnumpy(),
                               [[0.5, -0.5], [3.5, -0.5]], atol=1e-6)
    np.testing.assert_allclose(ops.irfft(Tensor(x)).asnumpy(), [[1.0, -0.5, 0.0, -0.5], [4.0, -0.5, 0.0, -0.5]],
                               atol=1e-6)
    np.testing.assert_allclose(ops.fftshift(Tensor(x)).asnumpy(), [[5, 3, 4], [2, 0, 1]])
    np.testing.assert_allclose(ops.ifftshift(Tensor(x), dim=1).asnumpy(), [[1, 2, 0], [4, 5, 3]])
    np.testing.assert_allclose(ops.fftfreq(5, 0.5).asnumpy(), [0.0, 0.4, 0.8, -0.8, -0.4], rtol=1e-6)
    assert ops.fftfreq(4, dtype=gc.float64).dtype is gc.float64
    np.testing.assert_allclose(ops.rfftfreq(6).asnumpy(), [0, 1 / 6, 1 / 3, 0.5], rtol=1e-6)
    with pytest.raises(TypeError):
        ops.fftfreq(5, 2)
    with pytest.raises(ValueError, match="norm"):
        ops.fft(Tensor(x), norm="bad")
    with pytest.raises(ValueError, match="greater than 0"):
        ops.fft(Tensor(x), n=0)
    with pytest.raises(ValueError, match="dim"):
        ops.fft(Tensor(x), dim=2)
    with pytest.raises(TypeError):
        ops.fft(Tensor(x > 2))
    with pytest.raises(TypeError, match="real tensor"):
        ops.rfft(Tensor(C))


def test_fft_of_more_than_three_axes():
    x4 = RNG.standard_normal((2, 3, 2, 4))
    np.testing.assert_allclose(ops.fftn(Tensor(x4)).asnumpy(), np.fft.fftn(x4), atol=1e-12)
    np.testing.assert_allclose(ops.rfftn(Tensor(x4)).asnumpy(), np.fft.rfftn(x4), atol=1e-12)
    np.testing.assert_allclose(ops.irfftn(Tensor(np.fft.rfftn(x4)), s=x4.shape).asnumpy(), x4, atol=1e-12)


def _losses():
    """Real losses through complex intermediates: graphcell's and jax's forms."""
    return [
        (lambda x: ops.sum(ops.real(ops.rfft(x) * ops.conj(ops.rfft(x)))),
         lambda x: jnp.sum(jnp.abs(jnp.fft.rfft(x)) ** 2)),
        (lambda x: ops.sum(ops.real(ops.abs(ops.rfft(x, n=7)))), lambda x: jnp.sum(jnp.abs(jnp.fft.rfft(x, n=7)))),
        (lambda x: ops.sum(ops.irfft(ops.rfft(x) * ops.rfft(x)) * x), lambda x: jnp.sum(jnp.fft.irfft(
            jnp.fft.rfft(x) * jnp.fft.rfft(x), n=x.shape[-1]) * x)),
        (lambda x: ops.sum(ops.imag(ops.fft2(x, norm="ortho")) ** 2 + ops.angle(ops.ifft(x + 0.5))),
         lambda x: jnp.sum(jnp.imag(jnp.fft.fft2(x, norm="ortho")) ** 2 + jnp.angle(jnp.fft.ifft(x + 0.5)))),
        (lambda x: ops.sum(ops.real(ops.exp(ops.polar(x, x)) * ops.irfft2(ops.rfft2(x), s=x.shape[-2:]))),
         lambda x: jnp.sum(jnp.real(jnp.exp(x * jnp.exp(1j * x)) * jnp.fft.irfft2(jnp.fft.rfft2(x), s=x.shape[-2:])))),
        (lambda x: ops.sum(ops.hfft(ops.ihfft(x * x), n=4)), lambda x: jnp.sum(jnp.fft.hfft(jnp.fft.ihfft(x * x), n=4))),
    ]


@pytest.mark.parametrize("cases", [pytest.param((0, 2), id="rfft-irfft"),
                                   pytest.param((1, 3, 4, 5), id="others", marks=pytest.mark.slow)])
def test_gradients_through_complex_match_jax(cases):
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    for i in cases:
        ours, theirs = _losses()[i]
        got = gc.grad(ours)(Tensor(x)).asnumpy()
        want = np.asarray(jax.grad(theirs)(jnp.asarray(x)))
        np.testing.assert_allclose(got, want, rtol=2e-4, atol=2e-4, err_msg=f"loss {i}")


def test_vmap_matches_per_member():
    xs = RNG.standard_normal((3, 4, 6)).astype(np.float32)

    def f(x):
        return ops.real(ops.ifft(ops.rfft(x, dim=0), n=x.shape[0], dim=0)) + ops.view_as_real(ops.fft2(x))[..., 1]

    for in_axes in (0, 2):
        got = gc.vmap(f, in_axes=in_axes)(Tensor(xs)).asnumpy()
        want = np.stack([f(Tensor(np.take(xs, i, in_axes))).asnumpy() for i in range(xs.shape[in_axes])])
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


class _Spectrum(nn.Cell):
    def construct(self, x):
        return ops.real(ops.sqrt(ops.rfft(x)))   # (sqrt of a complex value has no ONNX form)


def test_onnx_export_names_complex_ops_without_an_onnx_form():
    # complex values lower as real pairs (tests/test_onnx_complex.py); the ops without a rule for them are named
    with pytest.raises(OnnxExportError) as info:
        to_onnx(_Spectrum(), Tensor(X), dynamic_axes=False)
    assert "  sqrt (on complex values: no ONNX form) in Cell" in str(info.value)

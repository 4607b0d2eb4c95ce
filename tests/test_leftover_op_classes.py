"""ops.ComputeAccidentalHits, Randperm, FFTWithSize and rotary_position_embedding
(ops/leftover_op_classes.py). FFTWithSize matched numpy's FFTs on MindSpore 2.10's CPU for every
mode and norm (measured), so numpy is the reference here; the others have no 2.10 CPU kernel and
follow its documentation: numpy references, 2.10's measured argument messages."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import graphcell as gc
from graphcell import Tensor, ops
from tests.modes import run_table

RNG = np.random.RandomState(0)
XR = RNG.randn(2, 3, 4).astype(np.float32)
XC = (RNG.randn(2, 3, 4) + 1j * RNG.randn(2, 3, 4)).astype(np.complex64)
HALF = XC[..., :3]


def test_compute_accidental_hits():
    true = Tensor(np.array([[1, 2], [0, 4], [3, 3]], np.int64))
    rows, ids, weights = ops.ComputeAccidentalHits(2)(true, Tensor(np.array([0, 1, 2, 3, 4], np.int64)))
    assert rows.asnumpy().tolist() == [0, 0, 1, 1, 2, 2] and rows.dtype == gc.int32    # 2.10's documented example
    assert ids.asnumpy().tolist() == [1, 2, 0, 4, 3, 3] and ids.dtype == gc.int64
    np.testing.assert_array_equal(weights.asnumpy(), np.full(6, np.finfo(np.float32).min, np.float32))
    # a repeated candidate counts at its last position (TensorFlow's rule); no hit -> empty
    rows, ids, _ = ops.ComputeAccidentalHits(1)(Tensor(np.array([[5], [7]], np.int64)),
                                                Tensor(np.array([5, 9, 5], np.int64)))
    assert rows.asnumpy().tolist() == [0] and ids.asnumpy().tolist() == [2]
    # 2.10's messages (measured)
    with pytest.raises(ValueError, match="For 'ComputeAccidentalHits', the argument 'num_true' must >= 1, but got 0."):
        ops.ComputeAccidentalHits(0)
    with pytest.raises(ValueError, match=r"true_classes shape\[1\]=2 must be equal to num_true= 3"):
        ops.ComputeAccidentalHits(3)(true, Tensor(np.array([0], np.int64)))
    with pytest.raises(TypeError, match=r"input argument\[sampled_candidates\] must be a type of \{Tensor\[Int64\]\}, "
                                        r"but got Tensor\[Int32\]"):
        ops.ComputeAccidentalHits(2)(true, Tensor(np.array([0], np.int32)))
    with pytest.raises(ValueError, match="the dim of sampled_candidates must be equal to 1, but got 2"):
        ops.ComputeAccidentalHits(2)(true, Tensor(np.array([[0]], np.int64)))


def test_randperm():
    op = ops.Randperm(max_length=8, pad=-1)
    n6 = Tensor(np.array([6], np.int32))
    gc.set_seed(3)
    first = op(n6).asnumpy()
    gc.set_seed(3)
    assert op(n6).asnumpy().tolist() == first.tolist()           # the global seed repeats it
    assert first.dtype == np.int32 and sorted(first[:6]) == list(range(6)) and first[6:].tolist() == [-1, -1]
    draws = {tuple(op(n6).asnumpy()) for _ in range(3)}
    assert len(draws) > 1                                         # the generator advances
    got = gc.jit(lambda n: ops.Randperm(5, 9, gc.float32)(n))(Tensor(np.array([3], np.int64))).asnumpy()
    assert got.dtype == np.float32 and sorted(got[:3]) == [0, 1, 2] and got[3:].tolist() == [9, 9]
    # 2.10's messages (measured)
    with pytest.raises(ValueError, match="the 'max_length' must be int and must >= 1, but got '0'"):
        ops.Randperm(max_length=0)
    with pytest.raises(TypeError, match="For 'Randperm', the type of 'pad' should be 'int', but got type 'float'"):
        ops.Randperm(2, pad=1.5)
    with pytest.raises(TypeError, match=r"the 'dtype' should be one of \[mindspore.int8, .*, mindspore.float64\], "
                                        r"but got 'mindspore.bool'"):
        ops.Randperm(4, dtype=gc.bool_)
    with pytest.raises(ValueError, match="the rank of input tensor must be equal 1. But got 0"):
        op(Tensor(np.array(3, np.int32)))
    with pytest.raises(ValueError, match="the shape value of input tensor must be equal 1. But got 2"):
        op(Tensor(np.array([2, 3], np.int32)))
    with pytest.raises(TypeError, match=r"input argument\[x\] must be a type of \{Tensor\[Int32\], Tensor\[Int64\]\}"):
        op(Tensor(np.array([3.0], np.float32)))
    with pytest.raises(ValueError, match="must be in"):
        op(Tensor(np.array([9], np.int32)))


def _fft_cases():
    axes = {1: (-1,), 2: (-2, -1)}
    cases = {}
    for nd in (1, 2):
        for norm in ("backward", "forward", "ortho"):
            a = axes[nd]
            sizes = HALF.shape[-nd:-1] + (5,)
            cases.update({
                f"c{nd}{norm}": (ops.FFTWithSize(nd, False, False, norm), XC, np.fft.fftn(XC, axes=a, norm=norm)),
                f"ic{nd}{norm}": (ops.FFTWithSize(nd, True, False, norm), XC, np.fft.ifftn(XC, axes=a, norm=norm)),
                f"r{nd}{norm}": (ops.FFTWithSize(nd, False, True, norm), XR, np.fft.rfftn(XR, axes=a, norm=norm)),
                f"r2{nd}{norm}": (ops.FFTWithSize(nd, False, True, norm, False), XR,
                                  np.fft.fftn(XR, axes=a, norm=norm)),
                f"ir{nd}{norm}": (ops.FFTWithSize(nd, True, True, norm), HALF, np.fft.irfftn(HALF, axes=a, norm=norm)),
                f"ir5{nd}{norm}": (ops.FFTWithSize(nd, True, True, norm, signal_sizes=sizes), HALF,
                                   np.fft.irfftn(HALF, s=sizes, axes=a, norm=norm)),
                f"ir2{nd}{norm}": (ops.FFTWithSize(nd, True, True, norm, False), XC,
                                   np.fft.ifftn(XC, axes=a, norm=norm).real)})
    return cases


def test_fft_with_size_values_under_jit():
    cases = _fft_cases()
    got = run_table({k: (op, (x,)) for k, (op, x, _) in cases.items()}, cases, "jit")
    for name, (_, _, want) in cases.items():
        assert got[name].dtype == want.astype(np.complex64 if want.dtype.kind == "c" else np.float32).dtype, name
        np.testing.assert_allclose(got[name], want, rtol=1e-4, atol=1e-4, err_msg=name)
    # integer input: complex64 out, measured on 2.10 (the first row of XR.astype(int32) is [1, 0, 0, 2])
    out = ops.FFTWithSize(1, False, True)(Tensor(XR.astype(np.int32)))
    assert out.dtype == gc.complex64 and out.asnumpy()[0, 0].tolist() == [3 + 0j, 1 + 2j, -1 + 0j]
    assert ops.FFTWithSize(1, True, True)(Tensor(HALF.astype(np.complex128))).dtype == gc.float64


def test_fft_with_size_messages():      # 2.10's messages (measured)
    x = Tensor(XC)
    with pytest.raises(ValueError, match="Failed to convert the value \"bad\" of input 'norm' of 'FFTWithSize' to enum"):
        ops.FFTWithSize(1, False, False, "bad")
    with pytest.raises(TypeError, match="the input 'norm' should be a str, but got <class 'int'>"):
        ops.FFTWithSize(1, False, False, 1)
    with pytest.raises(TypeError, match=r"in fft/ifft mode must be a type of \{Complex128, Complex64\}, but got Float32"):
        ops.FFTWithSize(1, False, False)(Tensor(XR))
    with pytest.raises(TypeError, match=r"in rfft mode must be a type of \{Bool, Float32, .*UInt8\}, but got Complex64"):
        ops.FFTWithSize(1, False, True)(x)
    with pytest.raises(TypeError, match=r"in irfft mode must be a type of \{Complex128, Complex64\}, but got Float32"):
        ops.FFTWithSize(1, True, True)(Tensor(XR))
    with pytest.raises(ValueError, match=r"the signal_ndim must be in \[1,3\], but got 4"):
        ops.FFTWithSize(4, True, True)(x)
    with pytest.raises(ValueError, match=r"signal_sizes is expected to be empty \(default\) or of signal_ndim=1D, but "
                                         r"got signal_sizes=\[const vector\]\{3, 4\}"):
        ops.FFTWithSize(1, True, True, signal_sizes=(3, 4))(Tensor(HALF))
    with pytest.raises(ValueError, match=r"got invalid signal_sizes: \[const vector\]\{9\}, a valid one should be "
                                         r"\[const vector\]\{4\}, or \[const vector\]\{5\}"):
        ops.FFTWithSize(1, True, True, signal_sizes=(9,))(Tensor(HALF))
    with pytest.raises(ValueError, match="the last dimension of the input cannot be 1, but got: 1"):
        ops.FFTWithSize(1, True, True)(Tensor(XC[..., :1]))
    with pytest.raises(ValueError, match="the rank of x must be greater than or equal to 1, but got 0"):
        ops.FFTWithSize(1, False, False)(Tensor(np.complex64(1)))


def _rotate(x, mode):
    """numpy's rotate-half (mode 0) or rotate-interleaved (mode 1)."""
    if mode == 0:
        half = x.shape[-1] // 2
        return np.concatenate([-x[..., half:], x[..., :half]], -1)
    out = np.empty_like(x)
    out[..., 0::2], out[..., 1::2] = -x[..., 1::2], x[..., 0::2]
    return out


def test_rotary_position_embedding_values_grad_and_messages():
    x = RNG.randn(2, 3, 4, 6).astype(np.float32)
    cos, sin = np.cos(RNG.randn(1, 1, 4, 6)).astype(np.float32), np.sin(RNG.randn(1, 1, 4, 6)).astype(np.float32)
    both = gc.jit(lambda a, c, s: tuple(ops.rotary_position_embedding(a, c, s, mode) for mode in (0, 1)))
    for mode, got in enumerate(both(Tensor(x), Tensor(cos), Tensor(sin))):
        np.testing.assert_allclose(got.asnumpy(), x * cos + _rotate(x, mode) * sin, rtol=1e-6, atol=1e-6)
    weight = RNG.randn(*x.shape).astype(np.float32)
    grad = gc.grad(lambda a: (ops.rotary_position_embedding(a, Tensor(cos), Tensor(sin), 1) * Tensor(weight)).sum())
    def rotate_pairs(a):
        return jnp.stack([-a[..., 1::2], a[..., 0::2]], -1).reshape(a.shape)
    want = jax.grad(lambda a: jnp.sum((a * cos + rotate_pairs(a) * sin) * weight))(x)
    np.testing.assert_allclose(grad(Tensor(x)).asnumpy(), want, rtol=1e-5, atol=1e-5)
    with pytest.raises(TypeError, match="the type of 'mode' should be 'int', but got type 'float'"):
        ops.rotary_position_embedding(Tensor(x), Tensor(cos), Tensor(sin), 1.0)
    with pytest.raises(TypeError, match="'x' must be a Tensor"):
        ops.rotary_position_embedding(x, Tensor(cos), Tensor(sin))


def test_fft_with_size_and_rotary_onnx_vmap():
    x = RNG.randn(2, 1, 3, 4).astype(np.float32)
    cos, sin = np.cos(x[:1]).astype(np.float32), np.sin(x[:1]).astype(np.float32)
    cases = {"rope0": (lambda a, c, s: ops.rotary_position_embedding(a, c, s, 0), (x, cos, sin)),
             "rope1": (lambda a, c, s: ops.rotary_position_embedding(a, c, s, 1), (x, cos, sin)),
             "rfft": (lambda a: ops.view_as_real(ops.FFTWithSize(2, False, True, "ortho")(a)), (XR,)),
             "irfft": (lambda re, im: ops.FFTWithSize(1, True, True, "forward", signal_sizes=(5,))(ops.Complex()(re, im)),
                       (HALF.real.copy(), HALF.imag.copy())),
             "ifft": (lambda re, im: ops.view_as_real(ops.FFTWithSize(1, True, False)(ops.Complex()(re, im))),
                      (XC.real.copy(), XC.imag.copy()))}
    onnx, xla = run_table(cases, cases, "onnx"), run_table(cases, cases, "jit")
    for name in cases:
        np.testing.assert_allclose(onnx[name], xla[name], rtol=1e-4, atol=1e-4, err_msg=name)
    batched = gc.vmap(ops.FFTWithSize(1, False, True, "ortho"))(Tensor(XR)).asnumpy()
    np.testing.assert_allclose(batched, np.fft.rfft(XR, norm="ortho"), rtol=1e-4, atol=1e-4)

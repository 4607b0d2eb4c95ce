"""The op surface beyond the elementwise basics on complex inputs, against numpy, torch and values
measured on MindSpore 2.10 (CPU): values and dtypes where it computes, a clear TypeError where it
refuses, MindSpore's gradient convention for complex inputs, and complex checkpoints."""
import numpy as np
import pytest
import torch

import graphcell as gc
from graphcell import Parameter, Tensor, nn, ops
from graphcell.train.ckpt_format import read_safetensors_file, write_safetensors_file

A = np.array([[1 + 2j, 3 - 1j], [0.5 + 0.5j, -2 + 1j]], np.complex64)
V = np.array([1 + 1j, 2 - 1j, -0.5 + 0j, -3j], np.complex64)
W = np.array([0.5 - 1j, -1 + 2j], np.complex64)


def _close(got, want, rtol=2e-5, dtype=None):
    got = got.asnumpy() if hasattr(got, "asnumpy") else np.asarray(got)
    assert got.dtype == (dtype or np.asarray(want).dtype), (got.dtype, np.asarray(want).dtype)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-5)


def test_values_in_one_jitted_table():
    """Functions MindSpore 2.10 computes on Complex64 (graphcell used to compute them on the real
    part): one compiled function, numpy/torch references and MindSpore's measured numbers."""
    v2 = V[:2]

    @gc.jit
    def table(a, v, v2, w):
        return (ops.log2(v2), ops.log10(v2), ops.exp2(v2), ops.sinc(v2), ops.xlogy(v2, v2), ops.asin(v2),
                ops.acos(v2), ops.atan(v2), ops.asinh(v2), ops.acosh(v2), ops.atanh(v2), ops.sigmoid(v),
                ops.silu(v), a.mH, ops.adjoint(a[None]), ops.vecdot(v2, w), ops.norm(a), ops.norm(v),
                ops.logical_not(v), ops.any(v[3:] * 0), v // (v + 1))
    got = table(Tensor(A), Tensor(V), Tensor(v2), Tensor(W))
    t = torch.from_numpy(v2)
    sig = 1 / (1 + np.exp(-V.astype(np.complex128)))
    want = [np.log2(v2), np.log10(v2), 2 ** v2, np.sinc(v2), v2 * np.log(v2), np.arcsin(v2), np.arccos(v2),
            np.arctan(v2), np.arcsinh(v2), np.arccosh(v2), np.arctanh(v2), sig.astype(np.complex64),
            (V * sig).astype(np.complex64), A.conj().T, A.conj().T[None], np.vdot(v2, W),
            np.complex64(np.linalg.norm(A)), np.complex64(np.linalg.norm(V)), V == 0, np.array(False),
            (np.floor((V / (V + 1)).real) + 0j).astype(np.complex64)]
    for g, w in zip(got, want):   # complex results stay Complex64, as MindSpore's
        w = np.asarray(w)
        _close(g, w.astype(np.complex64) if w.dtype.kind == "c" else w, rtol=1e-4)
    np.testing.assert_allclose(got[5].asnumpy(), torch.asin(t).numpy(), rtol=1e-5)
    # MindSpore 2.10 (measured)
    np.testing.assert_allclose(got[0].asnumpy(), [0.5 + 1.13309j, 1.16096 - 0.6689j], rtol=1e-4)
    np.testing.assert_allclose(got[3].asnumpy(), [-1.83804 - 1.83804j, 0.73522 - 1.47043j], rtol=1e-4)
    np.testing.assert_allclose(got[11].asnumpy()[3], 0.5 - 7.05071j, rtol=1e-4)
    np.testing.assert_allclose(got[15].asnumpy(), -4.5 + 1.5j, rtol=1e-6)
    np.testing.assert_allclose(got[16].asnumpy(), 4.52769 + 0j, rtol=1e-5)
    assert got[16].dtype is gc.complex64 and got[18].asnumpy().tolist() == [False, False, False, False]
    np.testing.assert_allclose(ops.floor_divide(Tensor(V), Tensor(np.complex64([0.5 + 1j, 1 - 1j, 2j, 1.5])))
                               .asnumpy(), [1, 1, 0, 0])   # MindSpore 2.10: the real part's floor, +0j
    # mT does not conjugate (2.10)
    np.testing.assert_array_equal(Tensor(A).mT.asnumpy(), A.T)
    np.testing.assert_array_equal(Tensor(A).H.asnumpy(), A.conj().T)
    np.testing.assert_array_equal(ops.any(Tensor(np.complex64([0, 1j]))).asnumpy(), True)


@pytest.mark.parametrize("name, fn", [
    ("isnan", ops.isnan), ("isinf", ops.isinf), ("isfinite", ops.isfinite),
    ("isclose", lambda x: ops.isclose(x, x)), ("nan_to_num", ops.nan_to_num), ("var", ops.var),
    ("softmax", ops.softmax), ("relu", ops.relu), ("lerp", lambda x: ops.lerp(x, x, 0.5)),
    ("cdist", lambda x: ops.cdist(x[None, None], x[None, None])), ("reduce_max", ops.amax),
    ("floor_mod", lambda x: x % x), ("trunc", lambda x: ops.div(x, x, rounding_mode="trunc")),
    ("gelu", ops.gelu), ("softplus", ops.softplus), ("norm", lambda x: ops.norm(x, 1)),
    ("atan2", lambda x: ops.atan2(x, x)), ("fmod", lambda x: ops.fmod(x, x))])
def test_refused_as_mindspore_refuses(name, fn):
    """MindSpore 2.10 raises TypeError on Complex64 for each (measured); graphcell did too, or
    gave real-part numbers, or failed inside numpy/jax."""
    with pytest.raises(TypeError, match=name):
        fn(Tensor(V))


def test_gradient_convention_is_mindsporess():
    """MindSpore 2.10 (measured): grad of sum(real(z)) is 1, of sum(imag(z)) is +1j, dL/dx + i dL/dy
    (torch's convention; its Mul and Pow have no complex gradient). graphcell gives that for every
    real loss: torch.autograd is the reference."""
    z = np.array([1 + 2j, -0.5 + 1j], np.complex64)
    np.testing.assert_array_equal(ops.grad(lambda z: ops.imag(z).sum())(Tensor(z)).asnumpy(), [1j, 1j])
    np.testing.assert_array_equal(ops.grad(lambda z: ops.real(z).sum())(Tensor(z)).asnumpy(), [1, 1])
    w = W
    for ours, theirs in [(lambda z: ops.real(ops.abs(z) ** 2).sum(), lambda z: (z.abs() ** 2).sum()),
                         (lambda z: ops.real(z * Tensor(w)).sum(), lambda z: (z * torch.from_numpy(w)).real.sum()),
                         (lambda z: ops.angle(ops.exp(z) / Tensor(w)).sum(),
                          lambda z: torch.angle(torch.exp(z) / torch.from_numpy(w)).sum())]:
        tz = torch.from_numpy(z.copy()).requires_grad_()
        theirs(tz).backward()
        _close(gc.jit(ops.grad(ours))(Tensor(z)), tz.grad.numpy(), rtol=1e-5)
    # a complex sens: torch's vjp
    tz = torch.from_numpy(z.copy()).requires_grad_()
    (tz * torch.from_numpy(w)).backward(torch.tensor([1j, 1], dtype=torch.complex64))
    _close(ops.grad(lambda z: z * Tensor(w), sens_param=True)(Tensor(z), Tensor(np.complex64([1j, 1]))),
           tz.grad.numpy())


def test_complex_parameter_gradient_descends():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.p = Parameter(Tensor(np.complex64([1 + 1j, 2 - 3j])), name="p")

        def construct(self, target):
            return ops.real(ops.abs(self.p - target) ** 2).sum()
    net, target = Net(), Tensor(np.complex64([0.5j, 1]))
    (g,) = ops.grad(net, None, net.trainable_params())(target)
    _close(g, 2 * (net.p.asnumpy() - target.asnumpy()))      # steepest ascent, as torch's
    stepped = net.p.asnumpy() - 0.1 * g.asnumpy()
    assert np.abs(stepped - target.asnumpy()).sum() < np.abs(net.p.asnumpy() - target.asnumpy()).sum()


def test_complex_checkpoint_bytes_and_round_trip(tmp_path):
    """MindSpore 2.10 writes tags Complex64/Complex128 with interleaved little-endian parts (its
    own load_checkpoint then fails with KeyError 'Complex64'): these are its bytes."""
    p = Parameter(Tensor(np.array([[1 + 2j, -3.5 + 0.25j]], np.complex64)), name="pc64")
    q = Parameter(Tensor(np.array([1 - 1j], np.complex128)), name="pc128")
    path = str(tmp_path / "c.ckpt")
    gc.save_checkpoint([{"name": "pc64", "data": p}, {"name": "pc128", "data": q}], path)
    ms_bytes = bytes.fromhex(
        "0a290a0470633634122108010802120943" "6f6d706c65783634" "1a10" "0000803f" "00000040" "000060c0" "0000803e"
        "0a290a057063313238122008011" "20a436f6d706c6578313238" "1a10" "000000000000f03f" "000000000000f0bf")
    assert open(path, "rb").read() == ms_bytes
    back = gc.load_checkpoint(path)
    assert back["pc64"].dtype is gc.complex64 and back["pc128"].dtype is gc.complex128
    np.testing.assert_array_equal(back["pc64"].asnumpy(), p.asnumpy())
    # safetensors: C64 as MindSpore writes it; complex128 has no tag, refused before any file exists
    st = str(tmp_path / "c.safetensors")
    write_safetensors_file(st, {"pc64": p.asnumpy()})
    assert b'"dtype":"C64"' in open(st, "rb").read()
    np.testing.assert_array_equal(read_safetensors_file(st)[0]["pc64"], p.asnumpy())
    with pytest.raises(TypeError, match="complex128 has no safetensors type"):
        write_safetensors_file(str(tmp_path / "d.safetensors"), {"q": q.asnumpy()})
    assert not (tmp_path / "d.safetensors").exists()

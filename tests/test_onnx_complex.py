"""Complex values in ONNX (compiler/onnx_complex.py): programs whose inputs and outputs are real,
run in onnxruntime as one model per dtype, against XLA and numpy.fft."""
import numpy as np
import pytest

import graphcell as gc
from graphcell import Tensor, nn, ops
from graphcell.compiler.export import OnnxExportError, to_onnx
from graphcell.ops.complex_ops import complex_from
from tests.modes import run_table

RNG = np.random.default_rng(16)
WINDOW = np.hanning(16)


def _x(*shape):
    return RNG.standard_normal(shape)


def _c(a, b):
    return a + 1j * b


def _parts(z):
    return np.stack([z.real, z.imag], -1)


# name: (graphcell fn, inputs (float64; cast per dtype), numpy reference). The MatMul form of the
# transform (lengths other than powers of two from 128) and the DFT form (128) both appear.
CASES = {
    "abs_rfft": (lambda a: ops.real(ops.abs(ops.rfft(a))), [_x(3, 10)], lambda a: np.abs(np.fft.rfft(a))),
    "rfft_parts_dft": (lambda a: ops.view_as_real(ops.rfft(a)), [_x(2, 128)],
                       lambda a: _parts(np.fft.rfft(a))),
    "rfft_padded": (lambda a: ops.imag(ops.rfft(a, n=9, dim=0)), [_x(5, 2)], lambda a: np.fft.rfft(a, n=9, axis=0).imag),
    "irfft_filter": (lambda a, h: ops.irfft(ops.rfft(a) * complex_from(h, -h), n=12), [_x(2, 12), _x(7)],
                     lambda a, h: np.fft.irfft(np.fft.rfft(a) * (h - 1j * h), n=12)),
    "irfft_dft": (lambda a, b: ops.irfft(complex_from(a, b), n=128), [_x(2, 65), _x(2, 65)],
                  lambda a, b: np.fft.irfft(_c(a, b), n=128)),
    "fft_ifft_parts": (lambda a, b: ops.real(ops.fft(complex_from(a, b))) + ops.imag(ops.ifft(complex_from(b, a))),
                       [_x(3, 6), _x(3, 6)], lambda a, b: np.fft.fft(_c(a, b)).real + np.fft.ifft(_c(b, a)).imag),
    "fft_cropped": (lambda a, b: ops.real(ops.fft(complex_from(a, b), n=4)), [_x(3, 6), _x(3, 6)],
                    lambda a, b: np.fft.fft(_c(a, b), n=4).real),
    "fft2_ortho": (lambda a: ops.view_as_real(ops.fft2(a, norm="ortho")), [_x(2, 5, 6)],
                   lambda a: _parts(np.fft.fft2(a, norm="ortho"))),
    "ifft_dft_axis0": (lambda a, b: ops.real(ops.ifft(complex_from(a, b), dim=0)), [_x(128, 3), _x(128, 3)],
                       lambda a, b: np.fft.ifft(_c(a, b), axis=0).real),
    "irfftn_rfftn": (lambda a: ops.irfftn(ops.rfftn(a) * 2, s=(4, 5, 6)), [_x(4, 5, 6)], lambda a: 2 * a),
    "hfft": (lambda a, b: ops.hfft(complex_from(a, b)), [_x(2, 5), _x(2, 5)], lambda a, b: np.fft.hfft(_c(a, b))),
    "spectrogram": (lambda a: ops.real(ops.abs(ops.rfft(ops.reshape(a, (4, 16)) * ops.cast(Tensor(WINDOW), a.dtype)))) ** 2,
                    [_x(64)], lambda a: np.abs(np.fft.rfft(a.reshape(4, 16) * WINDOW)) ** 2),
    "mean_exp_div": (lambda a, b: ops.view_as_real(ops.mean(ops.exp(complex_from(a, b)) / complex_from(b + 3, a), 1)),
                     [_x(3, 4), _x(3, 4)],
                     lambda a, b: _parts(np.mean(np.exp(_c(a, b)) / _c(b + 3, a), 1))),
    "conj_sub_neg_sum": (lambda a, b: ops.view_as_real(-(ops.conj(complex_from(a, b)) - complex_from(b, a)).sum(0)),
                         [_x(3, 4), _x(3, 4)], lambda a, b: _parts(-(np.conj(_c(a, b)) - _c(b, a)).sum(0))),
    # a gradient through complex values (abs's vjp: select on z == 0, here a zero row), against XLA only
    "grad_abs_exp": (gc.grad(lambda a: ops.sum(ops.real(ops.abs(ops.rfft(a))) + ops.real(ops.exp(ops.rfft(a) / 4)))),
                     [np.concatenate([np.zeros((1, 8)), _x(1, 8)])], None),
    # astype keeps the real part; the shape ops carry the pair axis
    "astype_and_shapes": (lambda a, b: ops.fftshift(ops.transpose(complex_from(a, b), (1, 0))).astype(a.dtype)
                          + ops.concat([complex_from(a, b), ops.zeros((1, 4), gc.complex64).astype(a.dtype)
                                        .astype(gc.complex64)], 0).astype(a.dtype)[:3].T,
                          [_x(3, 4), _x(3, 4)], lambda a, b: np.fft.fftshift(a.T) + a.T),
}
TOLERANCES = {np.float32: 2e-5, np.float64: 1e-12}


@pytest.mark.slow   # (3.6 s: ~30 programs; tests/test_onnx_prims.py checks each complex rule's primitive cheaply)
def test_complex_programs_in_onnxruntime_match_xla_and_numpy():
    # every program at both dtypes in one model (one onnxruntime session, one XLA compilation)
    table = {f"{name}-{np.dtype(dtype).name}": (fn, [a.astype(dtype) for a in ins], name, dtype)
             for name, (fn, ins, _) in CASES.items() for dtype in TOLERANCES}
    got, want = run_table(table, list(table), "onnx"), run_table(table, list(table), "jit")
    for key, (_, _, name, dtype) in table.items():
        g, w, tol = got[key], want[key], TOLERANCES[dtype]
        assert g.dtype == w.dtype == dtype and g.shape == w.shape, name
        scale = max(1.0, np.abs(w).max())
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol * scale, err_msg=key)
        if CASES[name][2] is not None:
            ref = CASES[name][2](*CASES[name][1])
            np.testing.assert_allclose(g, ref, rtol=tol, atol=tol * scale * 10, err_msg=key)


class _ComplexOut(nn.Cell):
    def construct(self, x):
        return ops.rfft(x)


class _ComplexLog(nn.Cell):
    def construct(self, x):
        return ops.real(ops.log(ops.rfft(x)))


def test_complex_model_outputs_and_unsupported_ops_are_refused_by_name():
    x = Tensor(np.ones((2, 8), np.float32))
    with pytest.raises(OnnxExportError, match=r"output 0 is c64\[2,5\]: ONNX has no complex tensors: make it real "
                                              r"first \(ops.view_as_real"):
        to_onnx(_ComplexOut(), x, dynamic_axes=False)
    with pytest.raises(OnnxExportError, match=r"  log \(on complex values: no ONNX form\) in Cell"):
        to_onnx(_ComplexLog(), x, dynamic_axes=False)


def test_complex_abs_and_division_keep_huge_and_tiny_parts_in_float32():
    """abs and division scale by the larger part first (hypot's way): the squares of 1e20 would
    overflow float32 and those of 3e-30 flush to zero. Against numpy in complex64, and XLA."""
    re = np.array([1e20, 3e-30, 3.0, 0.0, 2e38, -5e-38], np.float32)   # normal numbers: XLA flushes subnormals
    im = np.array([1e20, 4e-30, -4.0, 0.0, 1.0, 5e-38], np.float32)
    dre = np.array([1e20, 1e-30, 1e25, 2.0, 1e38, 2e-38], np.float32)
    dim = np.array([-1e20, 1e-30, 0.0, 2.0, 1e38, 2e-38], np.float32)

    def fn(a, b, c, d):
        z, w = complex_from(a, b), complex_from(c, d)
        return ops.real(ops.abs(z)), ops.view_as_real(z / w)

    cases = {"extremes": (fn, [re, im, dre, dim])}
    got, want = run_table(cases, ["extremes"], "onnx")["extremes"], run_table(cases, ["extremes"], "jit")["extremes"]
    z, w = re + 1j * im, dre + 1j * dim
    np.testing.assert_allclose(got[0], np.abs(z.astype(np.complex64)), rtol=1e-6)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6)
    quotient = _parts((z.astype(np.complex128) / w.astype(np.complex128)).astype(np.complex64))
    np.testing.assert_allclose(got[1], quotient, rtol=1e-5, atol=1e-44)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-5, atol=1e-44)

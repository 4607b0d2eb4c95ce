"""ops.Complex, Real, Imag, Conj, Angle, ComplexAbs, Polar, ConjugateTranspose, ApproximateEqual /
approximate_equal, InTopK / intopk, isreal (values and dtypes measured on MindSpore 2.10, CPU), and
addbmm / bidense against numpy; eagerly, as one jitted table and (the real-valued ops) one ONNX table."""
import numpy as np
import pytest

from graphcell import ops, Tensor
from tests.modes import run_table

f32, c64 = np.float32, np.complex64
Z = np.array([3 + 4j, -1 - 0.5j], c64)
X, Y = np.array([1.0, -2.0], f32), np.array([0.5, 3.0], f32)
M = np.array([[1 + 2j, 3j], [4, 5 - 1j]], c64)
P = np.array([[0.1, 0.9, 0.5], [0.7, 0.2, 0.7]], f32)
TARGET = np.array([2, 2], np.int32)
rng = np.random.RandomState(0)
INPUT, B1, B2 = rng.randn(2, 4).astype(f32), rng.randn(3, 2, 5).astype(f32), rng.randn(3, 5, 4).astype(f32)
X1, X2, W, BIAS = rng.randn(2, 3, 4).astype(f32), rng.randn(2, 3, 5).astype(f32), rng.randn(6, 4, 5).astype(f32), \
    rng.randn(6).astype(f32)

# name: (fn, inputs, expected, expected dtype); the expected values measured on MindSpore 2.10 unless numpy's
CASES = {
    "Complex": (lambda x, y: ops.Complex()(x, y), [X, Y], [1 + 0.5j, -2 + 3j], c64),
    "Real": (lambda z: ops.Real()(z), [Z], [3.0, -1.0], f32),
    "Imag": (lambda z: ops.Imag()(z), [Z], [4.0, -0.5], f32),
    "Conj": (lambda z: ops.Conj()(z), [Z], [3 - 4j, -1 + 0.5j], c64),
    "Angle": (lambda z: ops.Angle()(z), [Z], [0.9272952079772949, -2.677945137023926], f32),
    "ComplexAbs": (lambda z: ops.ComplexAbs()(z), [Z], [5.0, 1.1180340051651], f32),
    "Polar": (lambda x, y: ops.Polar()(x, y), [X, Y],
              [0.8775825500488281 + 0.4794255495071411j, 1.979984998703003 - 0.28224000334739685j], c64),
    "ConjugateTranspose": (lambda m: ops.ConjugateTranspose()(m, (1, 0)), [M], [[1 - 2j, 4], [-3j, 5 + 1j]], c64),
    "isreal_complex": (lambda z: ops.isreal(z), [Z], [False, False], np.bool_),
}
REAL_CASES = {
    "ApproximateEqual": (lambda x, y: ops.ApproximateEqual(0.6)(x, y), [X, Y], [True, False], np.bool_),
    "approximate_equal": (lambda x, y: ops.approximate_equal(x, y, 0.6), [X, Y], [True, False], np.bool_),
    "isreal": (lambda x: ops.isreal(x), [X], [True, True], np.bool_),
    "InTopK": (lambda p, t: ops.InTopK(1)(p, t), [P, TARGET], [False, True], np.bool_),   # a tie counts in
    "intopk": (lambda p, t: ops.intopk(p, t, 2), [P, TARGET], [True, True], np.bool_),
    "addbmm": (lambda i, a, b: ops.addbmm(i, a, b, beta=0.5, alpha=2.0), [INPUT, B1, B2],
               0.5 * INPUT + 2.0 * np.einsum("bij,bjk->ik", B1, B2), f32),
    "bidense": (lambda a, b, w, bias: ops.bidense(a, b, w, bias), [X1, X2, W, BIAS],
                np.einsum("nti,oij,ntj->nto", X1, W, X2) + BIAS, f32),
}
ALL = {**CASES, **REAL_CASES}


def _check(name, got):
    want, dtype = ALL[name][2], ALL[name][3]
    assert got.dtype == dtype, name
    np.testing.assert_allclose(got, np.asarray(want, dtype), rtol=2e-6, atol=2e-6, err_msg=name)


@pytest.mark.parametrize("name", sorted(ALL))
def test_eager(name):
    fn, inputs = ALL[name][:2]
    _check(name, fn(*(Tensor(a) for a in inputs)).asnumpy())


@pytest.mark.parametrize("mode,table", [("jit", ALL), ("onnx", REAL_CASES)])
def test_compiled_table(mode, table):
    for name, out in run_table(table, list(table), mode).items():
        _check(name, out)


def test_errors():
    with pytest.raises(TypeError, match="'k' should be 'int'"):
        ops.InTopK(1.5)
    with pytest.raises(ValueError, match="x1 must be 2-D"):
        ops.intopk(Tensor(X), Tensor(TARGET), 1)
    with pytest.raises(ValueError, match="must be 3-D"):
        ops.addbmm(Tensor(INPUT), Tensor(B1[0]), Tensor(B2[0]))

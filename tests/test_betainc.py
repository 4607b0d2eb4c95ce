"""ops.Betainc (ops/betainc.py): values, edges, errors and gradient against MindSpore 2.10's
numbers (measured) and scipy; its ONNX form against XLA on BETAINC_ABX in tests/test_onnx_prims.py."""
import numpy as np
import pytest
import scipy.special as sp

import graphcell as ms
from graphcell import Tensor, ops


def _grid():
    """a, b, x: a wide grid (both sides of the symmetry switch, tiny and large a, b) and the edges."""
    a, b, x = np.meshgrid([1e-3, 0.5, 1.0, 2.5, 30.0, 500.0], [1e-3, 0.7, 3.0, 80.0], [0.0, 1e-4, 0.3, 0.5, 0.9, 1.0])
    edges = np.array([[0.0, -1.0, 2.0, 2.0, np.nan, 2.0, np.inf, 2.0, 0.0],
                      [1.0, 1.0, 0.0, 2.0, 1.0, np.nan, 2.0, np.inf, 0.0],
                      [0.5, 0.5, 0.5, 1.5, 0.5, 0.5, 0.5, 0.5, 0.5]])
    return tuple(np.concatenate([v.ravel(), e]) for v, e in zip((a, b, x), edges))


BETAINC_ABX = _grid()

# measured on MindSpore 2.10: Betainc()(a, b, x) in float32 and float64 (the float64 operands
# were the float32 ones cast); NaN at a = 0, b = 0, a < 0, x > 1 and a NaN
A = [0.5, 1, 2, 3, 0.1, 5, 1, 1, 0, -1, 2, 2, np.nan]
B = [0.5, 2, 3, 1, 0.1, 5, 1, 1, 1, 1, 0, 2, 1]
X = [0.3, 0.5, 0.2, 0.9, 0.5, 0.5, 0, 1, 0.5, 0.5, 0.5, 1.5, 0.5]
MS_F64 = [0.36901012784593124, 0.75, 0.1808000045776367, 0.7289999420642866, 0.4999999999999997,
          0.5000000000000006, 0.0, 1.0] + [np.nan] * 5


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_betainc_matches_mindspore(dtype):
    out = ops.Betainc()(*(Tensor(np.array(v, np.float32).astype(dtype)) for v in (A, B, X)))
    assert out.dtype == ms.float32 if dtype is np.float32 else ms.float64
    np.testing.assert_allclose(out.asnumpy(), MS_F64, rtol=1e-6 if dtype is np.float32 else 1e-12, atol=1e-7)


def test_betainc_matches_scipy_on_a_grid():
    a, b, x = BETAINC_ABX
    out = ops.Betainc()(Tensor(a), Tensor(b), Tensor(x)).asnumpy()
    expected = np.where((a <= 0) | (b <= 0), np.nan, sp.betainc(a, b, x))   # 2.10's NaN at a, b <= 0
    expected = np.where(np.isinf(a) | np.isinf(b), out, expected)           # scipy has no limits there
    np.testing.assert_allclose(out, expected, rtol=1e-10, atol=1e-300)


def test_betainc_gradient_is_mindsporess():
    # measured on MindSpore 2.10: grad for (a, b, x) is (0, 0, x^(a-1) (1-x)^(b-1) / B(a, b))
    a, b, x = (Tensor(np.array(v, np.float32)) for v in ([0.5, 2.0, 3.0], [1.5, 2.0, 0.7], [0.3, 0.6, 0.8]))
    da, db, dx = ms.grad(lambda a, b, x: ops.Betainc()(a, b, x).sum(), grad_position=(0, 1, 2))(a, b, x)
    np.testing.assert_array_equal(da.asnumpy(), 0.0)
    np.testing.assert_array_equal(db.asnumpy(), 0.0)
    np.testing.assert_allclose(dx.asnumpy(), [0.97245276, 1.4399968, 1.6662948], rtol=5e-6)  # 2.10 rounds in float32


@pytest.mark.parametrize("args, error, message", [
    ((np.float16, np.float16, np.float16), TypeError,
     "For primitive[Betainc], the input argument[a] must be a type of {Tensor[Float32], Tensor[Float64]}, "
     "but got Tensor[Float16]."),
    ((np.float32, np.float64, np.float32), TypeError, "For primitive[Betainc], the input type must be same."),
])
def test_betainc_refuses_dtypes_as_mindspore(args, error, message):
    with pytest.raises(error) as info:
        ops.Betainc()(*(Tensor(np.ones(2, t)) for t in args))
    assert str(info.value).startswith(message)


def test_betainc_needs_one_shape():
    with pytest.raises(ValueError, match=r"For 'Betainc, shape of b \(3\) are not consistent with the shape a "
                                         r"\(2, 1\) \."):
        ops.Betainc()(Tensor(np.ones((2, 1), np.float32)), Tensor(np.ones(3, np.float32)),
                      Tensor(np.full((2, 3), 0.5, np.float32)))

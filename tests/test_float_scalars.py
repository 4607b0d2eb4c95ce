"""Python scalars meeting Tensors as MindSpore 2.10 combines them: a Python float is rounded to
float32 before it meets a Float64 / Complex128 / Float16 Tensor, an int divides unwrapped.
Every expected value below is bits measured on MindSpore 2.10 (CPU, PYNATIVE and GRAPH_MODE
gave the same bits)."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, ops
from tests.modes import MODES, run_table

F32_01 = float(np.float32(0.1))   # 0.10000000149011612: what 2.10 makes of 0.1


def _f64(*values):
    return np.array(values, np.float64)


X = _f64(1.0, -3.0)
# name: (fn, inputs, measured on MindSpore 2.10 as float64 values)
CASES = {
    "add": (lambda x: x + 0.1, [X], _f64(1.0 + F32_01, -3.0 + F32_01)),
    "radd": (lambda x: 0.1 + x, [X], _f64(1.0 + F32_01, -3.0 + F32_01)),
    "rsub": (lambda x: 0.1 - x, [X], _f64(F32_01 - 1.0, F32_01 + 3.0)),
    "mul_sub": (lambda x: x * 0.01 - 0.01, [X], np.frombuffer(bytes.fromhex("000000000000000000000040e17aa4bf"),
                                                               np.float64)),
    "div": (lambda x: x / 0.1, [X], np.frombuffer(bytes.fromhex("010000fbffff2340020080f8ffff3dc0"), np.float64)),
    "ops.maximum": (lambda x: ops.maximum(x, 0.1), [X], _f64(1.0, F32_01)),
    "ops.where": (lambda x: ops.where(x > 0, 0.1, x), [X], _f64(F32_01, -3.0)),
    "ops.clamp": (lambda x: ops.clamp(x, None, 0.1), [X], _f64(F32_01, -3.0)),
    "method": (lambda x: x.sub(0.1), [X], _f64(1.0 - F32_01, -3.0 - F32_01)),
    "overflow": (lambda x: x * 1e40, [X], _f64(np.inf, -np.inf)),
    "eq": (lambda x: x == 0.1, [_f64(0.1, F32_01)], np.array([False, True])),
    "int_kept": (lambda x: x + (2 ** 24 + 1), [X], _f64(2 ** 24 + 2, 2 ** 24 - 2)),
    "complex128": (lambda x: ops.real(ops.mul(ops.cast(x, ms.complex128), 0.1)), [X], _f64(F32_01, -3 * F32_01)),
}


@pytest.mark.parametrize("mode", MODES)
def test_float64_operand_is_float32_rounded(mode):
    outs = run_table(CASES, CASES, mode)
    for name, (_, _, want) in CASES.items():
        got = outs[name]
        assert got.dtype == want.dtype, name
        np.testing.assert_array_equal(got, want, err_msg=name)


def test_float64_constants_and_fills_keep_the_float64_value():
    # 2.10: Tensor(0.1, float64), ops.fill/full/full_like are 0.1 exactly
    for t in (Tensor(0.1, ms.float64), ops.fill(ms.float64, (1,), 0.1), ops.full((1,), 0.1, dtype=ms.float64),
              ops.full_like(Tensor(_f64(1.0)), 0.1)):
        assert t.asnumpy().reshape(-1)[0] == 0.1


def test_in_place_setitem_and_numpy_scalars():
    x = Tensor(X)
    x += 0.1
    np.testing.assert_array_equal(x.asnumpy(), _f64(1.0 + F32_01, -3.0 + F32_01))
    y = Tensor(X)
    y[0] = 0.1
    np.testing.assert_array_equal(y.asnumpy(), _f64(F32_01, -3.0))
    np.testing.assert_array_equal((Tensor(X) + np.float64(0.1)).asnumpy(), _f64(1.0 + F32_01, -3.0 + F32_01))
    np.testing.assert_array_equal(ops.addcmul(Tensor(X), Tensor(X), Tensor(X), 0.1).asnumpy(),
                                  _f64(1.0 + F32_01, -3.0 + 9 * F32_01))


def test_float16_rounds_through_float32():
    # 1 + 2**-11 + 2**-40 is above half an ulp of float16 at 1, but float32 drops 2**-40 and
    # the tie rounds to even: 2.10 gives 1.0
    h = Tensor(np.ones(2, np.float16))
    np.testing.assert_array_equal((h * (1.0 + 2 ** -11 + 2 ** -40)).asnumpy(), np.ones(2, np.float16))


def test_grad_and_vmap_see_the_rounded_float():
    x = Tensor(X)
    np.testing.assert_array_equal(ms.grad(lambda t: (t * 0.1).sum())(x).asnumpy(), _f64(F32_01, F32_01))

    def add_point_one(t):
        return t + 0.1
    np.testing.assert_array_equal(ms.vmap(add_point_one)(x).asnumpy(), _f64(1.0 + F32_01, -3.0 + F32_01))


def test_graphcell_composites_keep_float64_constants():
    # graphcell's own Python floats (here erf's) are not the user's: float64 stays float64
    np.testing.assert_allclose(ops.erf(Tensor(_f64(0.5))).asnumpy(), [0.5204998778130465], rtol=1e-15)


def test_int_operand_of_true_division_is_not_wrapped():
    y = Tensor(np.array([100, -3], np.int8))
    # measured: Int8 [100, -3] / 300 and 300 / Int8 [100, -3]
    np.testing.assert_array_equal((y / 300).asnumpy(), np.frombuffer(bytes.fromhex("abaaaa3e0ad723bc"), np.float32))
    np.testing.assert_array_equal((300 / y).asnumpy(), np.array([3.0, -100.0], np.float32))
    np.testing.assert_array_equal((y + 300).asnumpy(), np.array([-112, 41], np.int8))   # arithmetic still wraps


def test_int_operand_outside_int64_is_refused():
    with pytest.raises(RuntimeError, match="Int64"):
        Tensor(X) + 2 ** 63


def test_float_arange_is_computed_in_float32():
    # measured: arange(0.1, 1.0, 0.3) in float32 and in float64 (float32's values, widened)
    want = np.frombuffer(bytes.fromhex("cdcccc3dcdcccc3e3433333f"), np.float32)
    np.testing.assert_array_equal(ops.arange(0.1, 1.0, 0.3).asnumpy(), want)
    np.testing.assert_array_equal(ops.arange(0.1, 1.0, 0.3, dtype=ms.float64).asnumpy(), want.astype(np.float64))
    np.testing.assert_array_equal(ops.arange(1, 4, dtype=ms.float64).asnumpy(), _f64(1, 2, 3))

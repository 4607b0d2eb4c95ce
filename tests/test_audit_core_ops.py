"""Regression tests for the differences from MindSpore 2.10 that the session-15 audit of the core
functional ops (arithmetic, reductions, scans, sorting, clipping) found and fixed. Every literal
was measured on MindSpore 2.10 (CPU, PyNative)."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, ops

from tests.modes import run_table


# -- one table, compiled once per backend ----------------------------------------------------

I32, I64 = np.iinfo(np.int32), np.iinfo(np.int64)
Z3 = [0, 5, -5]


def _a(values, dtype):
    return np.array(values, dtype)


# name: (fn, inputs, the output measured on MindSpore 2.10, as numpy with its dtype)
CASES = {
    # integer division by zero: the dtype's extremes for x != 0, 0 for 0 / 0
    "floor_divide": (ops.floor_divide, [_a(Z3, np.int32), _a([0, 0, 0], np.int32)], _a([0, I32.max, I32.min], np.int32)),
    "floor_div": (ops.floor_div, [_a(Z3, np.int32), _a([0, 0, 0], np.int32)], _a([0, I32.max, I32.min], np.int32)),
    "truncate_div": (ops.truncate_div, [_a(Z3, np.int32), _a([0, 0, 0], np.int32)], _a([0, I32.max, I32.min], np.int32)),
    "floordiv_operator": (lambda x, y: x // y, [_a(Z3, np.int32), _a([0, 0, 0], np.int32)],
                          _a([0, I32.max, I32.min], np.int32)),
    "div_floor": (lambda x, y: ops.div(x, y, rounding_mode="floor"), [_a(Z3, np.int32), _a([0, 0, 0], np.int32)],
                  _a([0, I32.max, I32.min], np.int32)),
    "floor_divide_int8": (ops.floor_divide, [_a(Z3, np.int8), _a([0, 0, 0], np.int8)], _a([0, 127, -128], np.int8)),
    "floor_divide_int64": (ops.floor_divide, [_a(Z3, np.int64), _a([0, 0, 0], np.int64)],
                           _a([0, I64.max, I64.min], np.int64)),
    "floor_divide_uint8": (ops.floor_divide, [_a([0, 5], np.uint8), _a([0, 0], np.uint8)], _a([0, 255], np.uint8)),
    # MindSpore's truncate_div; its div(rounding_mode='trunc') gives the smallest int32 for every
    # element, 0 / 0 too (not copied: a float-cast artefact)
    "div_trunc": (lambda x, y: ops.div(x, y, rounding_mode="trunc"), [_a([0, 5, -5, 7], np.int32),
                  _a([0, 0, 0, 2], np.int32)], _a([0, I32.max, I32.min, 3], np.int32)),
    # nonzero divisors are untouched
    "floor_divide_signs": (ops.floor_divide, [_a([-7, 7, -7, 7], np.int32), _a([2, -2, -2, 2], np.int32)],
                           _a([-4, -4, 3, 3], np.int32)),
    "truncate_div_signs": (ops.truncate_div, [_a([-7, 7], np.int32), _a([2, -2], np.int32)], _a([-3, -3], np.int32)),
    # an integer x % 0, fmod's too, is x
    "fmod_by_zero": (ops.fmod, [_a(Z3, np.int32), _a([0, 0, 0], np.int32)], _a(Z3, np.int32)),
    "remainder_by_zero": (ops.remainder, [_a(Z3, np.int64), _a([0, 0, 0], np.int64)], _a(Z3, np.int64)),
    "fmod_signs": (ops.fmod, [_a([-7, 7, -7, 7], np.int32), _a([2, -2, -2, 2], np.int32)], _a([-1, 1, -1, 1], np.int32)),
    # ops.mean of integers keeps their dtype, truncated toward zero (as ReduceMean)
    "mean_int32_axis": (lambda x: ops.mean(x, axis=1), [_a([[-1, -2], [3, 4]], np.int32)], _a([-1, 3], np.int32)),
    "mean_int32_keep": (lambda x: ops.mean(x, axis=1, keep_dims=True), [_a([[-1, -2], [3, 4]], np.int32)],
                        _a([[-1], [3]], np.int32)),
    "mean_int32_all": (ops.mean, [_a([[1, 2], [3, 4]], np.int32)], _a(2, np.int32)),
    "mean_int64": (ops.mean, [_a([[-1, -2], [3, 4]], np.int64)], _a(1, np.int64)),
    "mean_uint8": (lambda x: ops.mean(x, axis=0), [_a([[1, 2], [3, 4]], np.uint8)], _a([2, 3], np.uint8)),
    "tensor_mean": (lambda x: x.mean(axis=1), [_a([[-1, -2], [3, 4]], np.int32)], _a([-1, 3], np.int32)),
    "mean_float": (lambda x: ops.mean(x, axis=0), [_a([[1, 2], [3, 4]], np.float32)], _a([2, 3], np.float32)),
    # ops.sum: bools, UInt8 and narrow signed integers in Int64; UInt16 and UInt32 keep their dtype
    **{f"sum_{np.dtype(d).name}": (lambda x: ops.sum(x, dim=0), [_a([[1, 0], [1, 1]], d)], _a([2, 1], want))
       for d, want in [(np.bool_, np.int64), (np.int8, np.int64), (np.int16, np.int64), (np.int32, np.int64),
                       (np.uint8, np.int64), (np.uint16, np.uint16), (np.uint32, np.uint32), (np.int64, np.int64)]},
    # ops.cumprod: integers and bools multiply in Int64 without a dtype; floats keep theirs
    **{f"cumprod_{np.dtype(d).name}": (lambda x: ops.cumprod(x, 0), [_a([1, 2, 3], d)],
                                       _a([1, 1, 1] if d is np.bool_ else [1, 2, 6], np.int64))
       for d in (np.int8, np.uint8, np.int16, np.int32, np.bool_)},
    "cumprod_dtype": (lambda x: ops.cumprod(x, 0, dtype=ms.int32), [_a([1, 2, 3], np.int32)], _a([1, 2, 6], np.int32)),
    "cumprod_float16": (lambda x: ops.cumprod(x, 0), [_a([1, 2, 3], np.float16)], _a([1, 2, 6], np.float16)),
    # ops.argmax takes bools (argmin refuses them in MindSpore and graphcell)
    "argmax_bool": (ops.argmax, [_a([True, False, True], np.bool_)], _a(0, np.int64)),
    "argmax_bool_dim": (lambda x: ops.argmax(x, dim=1), [_a([[False, True, True]], np.bool_)], _a([1], np.int64)),
    # clip_by_value keeps the input's dtype (ops.clamp promotes: Int32 with float limits is Float32)
    "clip_int32": (lambda x, lo, hi: ops.clip_by_value(x, lo, hi), [_a([1, 5, 9], np.int32), _a(2.5, np.float32),
                   _a(7.5, np.float32)], _a([2, 5, 7], np.int32)),
    "clip_int32_scalars": (lambda x: ops.clip_by_value(x, -7.5, 7.5), [_a([-9, 5, 9], np.int32)], _a([-7, 5, 7], np.int32)),
    "clip_uint8": (lambda x, lo, hi: ops.clip_by_value(x, lo, hi), [_a([1, 5, 9], np.uint8), _a(2.5, np.float32),
                   _a(7.5, np.float32)], _a([2, 5, 7], np.uint8)),
    "clip_float16": (lambda x, lo, hi: ops.clip_by_value(x, lo, hi), [_a([1, 5, 9], np.float16), _a(2, np.float32),
                     _a(7, np.float32)], _a([2, 5, 7], np.float16)),
    "clamp_int32": (lambda x: ops.clamp(x, 2.5, 7.5), [_a([1, 5, 9], np.int32)], _a([2.5, 5, 7.5], np.float32)),
}
# onnxruntime has no UInt16/UInt32 ReduceSum
ONNX_CASES = [n for n in CASES if n not in ("sum_uint16", "sum_uint32")]


@pytest.mark.parametrize("mode", ["jit", "onnx"])
def test_measured_table(mode):
    got = run_table(CASES, CASES if mode == "jit" else ONNX_CASES, mode)
    for name, out in got.items():
        want = CASES[name][2]
        assert out.dtype == want.dtype, (name, out.dtype, want.dtype)
        np.testing.assert_array_equal(out, want, err_msg=name)


def test_integer_division_by_zero_eager():
    out = ops.floor_divide(Tensor(Z3, ms.int32), Tensor([0, 0, 0], ms.int32))
    assert out.dtype == ms.int32
    np.testing.assert_array_equal(out.asnumpy(), [0, I32.max, I32.min])


def test_clip_by_value_clips_a_list_one_by_one():
    out = ops.clip_by_value([Tensor([1., 5.]), Tensor([9.])], 2.0, 7.0)
    assert isinstance(out, tuple) and len(out) == 2
    assert out[0].dtype == out[1].dtype == ms.float32
    np.testing.assert_array_equal(out[0].asnumpy(), [2., 5.])
    np.testing.assert_array_equal(out[1].asnumpy(), [7.])


def test_clip_by_value_gradient_is_still_half_at_a_limit():
    grad = ms.grad(lambda x: ops.clip_by_value(x, 2.0, 7.0).sum())(Tensor([1., 2., 5., 7., 9.]))
    np.testing.assert_array_equal(grad.asnumpy(), [0., 0.5, 1., 0.5, 0.])


def test_integer_mean_sums_exactly():
    """An integer mean is an int64 sum divided with truncation, not a float32 mean (which rounds
    100000001..100000004 to 100000000), the same through ops.mean and Tensor.mean, eagerly and
    under jit; a Tensor.mean(dtype=) converts first."""
    x = Tensor(np.array([[100000001, 100000002, 100000004], [-1, -4, 0]], np.int32))
    want = np.array([100000002, -1], np.int32)
    for got in (ops.mean(x, 1), x.mean(1), ms.jit(lambda t: ops.mean(t, 1))(x)):
        assert got.dtype == ms.int32
        np.testing.assert_array_equal(got.asnumpy(), want)
    np.testing.assert_allclose(x.mean(1, dtype=ms.float64).asnumpy(), [100000002 + 1 / 3, -5 / 3])

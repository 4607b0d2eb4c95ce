"""Findings of the session-22 audit of jit(backend="onnx") against the XLA backend: user programs
run under both, their results compared (the XLA path is the reference the backend promises to
match)."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor


def _both(fn, *args):
    return ms.jit(fn)(*args), ms.jit(fn, backend="onnx")(*args)


@pytest.mark.parametrize("src", ["float16", "float32", "float64"])
def test_a_float_cast_to_an_integer_type_saturates_and_maps_nan_to_zero_as_xla_does(src):
    """onnxruntime's Cast is C's conversion: -2.5 to uint8 was 254, NaN, inf and 3e9 to int32
    were -2**31, 300.0 to int8 was 44. XLA (eager and jit) saturates and maps NaN to 0."""
    x = Tensor(np.array([np.nan, np.inf, -np.inf, -2.5, 6e4, -6e4, 3e9, -3e9, 300.0, 2.7, -0.5], src))
    dtypes = (ms.uint8, ms.int8, ms.int16, ms.uint16, ms.int32, ms.uint32, ms.int64, ms.uint64)
    wants, gots = _both(lambda t: tuple(t.astype(d) for d in dtypes), x)
    for dtype, want, got in zip(dtypes, wants, gots):
        info = np.iinfo(dtype.np_dtype)
        assert want.asnumpy()[:3].tolist() == [0, info.max, info.min]   # the reference is XLA's saturation
        np.testing.assert_array_equal(got.asnumpy(), want.asnumpy(), err_msg=str(dtype))

"""graphcell.numpy against mindspore.numpy 2.10's values (measured on its CPU build by the
session-15 audit): reduction and scan dtypes, sign of NaN, tril/triu of a vector, bool diff,
polyint's single constant; nanmin/nanmax of an all-NaN slice follow numpy (NaN; MindSpore
gives garbage there)."""
import numpy as np

import pytest

import graphcell.numpy as mnp
from graphcell import Tensor


def T(data, dtype="float32"):  # noqa: N802
    return Tensor(np.array(data, dtype=dtype))


NAN = float("nan")
# name: (call, MindSpore's value, MindSpore's dtype name)
CASES = {
    "trace int32": (lambda: mnp.trace(T([[1, 2], [3, 4]], "int32")), 5, "Int64"),
    "trace int8": (lambda: mnp.trace(T([[1, 2], [3, 4]], "int8")), 5, "Int64"),
    "trace uint16": (lambda: mnp.trace(T([[1, 2], [3, 4]], "uint16")), 5, "Int64"),
    "trace offset": (lambda: mnp.trace(T([[1, 2], [3, 4]], "int32"), 1), 2, "Int64"),
    "trace 3-D": (lambda: mnp.trace(T(np.arange(8).reshape(2, 2, 2), "int32"), 0, 1, 2), [3, 11], "Int64"),
    "trace float16": (lambda: mnp.trace(T([[1, 2], [3, 4]], "float16")), 5, "Float16"),
    "sum uint16": (lambda: mnp.sum(T([1, 2], "uint16")), 3, "UInt16"),
    "sum uint32": (lambda: mnp.sum(T([1, 2], "uint32")), 3, "UInt32"),
    "sum int16": (lambda: mnp.sum(T([1, 2], "int16")), 3, "Int64"),
    "sum uint8": (lambda: mnp.sum(T([1, 2], "uint8")), 3, "Int64"),
    "cumsum int8": (lambda: mnp.cumsum(T([1, 2], "int8")), [1, 3], "Int32"),
    "cumsum uint8": (lambda: mnp.cumsum(T([1, 2], "uint8")), [1, 3], "Int32"),
    "cumsum int16": (lambda: mnp.cumsum(T([1, 2], "int16")), [1, 3], "Int32"),
    "cumprod int8": (lambda: mnp.cumprod(T([1, 2], "int8")), [1, 2], "Int32"),
    "cumprod int32": (lambda: mnp.cumprod(T([1, 2], "int32")), [1, 2], "Int32"),
    "cumprod uint8": (lambda: mnp.cumprod(T([1, 2], "uint8")), [1, 2], "UInt32"),
    "cumprod bool": (lambda: mnp.cumprod(T([True, True], "bool")), [1, 1], "Int32"),
    "nansum int32": (lambda: mnp.nansum(T([1, 2], "int32")), 3, "Int32"),
    "nansum int8": (lambda: mnp.nansum(T([1, 2], "int8")), 3, "Int8"),
    "sign nan": (lambda: mnp.sign(T([NAN, -0.0, -2.0])), [NAN, 0, -1], "Float32"),
    "triu vector": (lambda: mnp.triu(T([1, 2, 3])), [[1, 2, 3], [0, 2, 3], [0, 0, 3]], "Float32"),
    "tril vector": (lambda: mnp.tril(T([1, 2, 3]), -1), [[0, 0, 0], [1, 0, 0], [1, 2, 0]], "Float32"),
    "diff bool": (lambda: mnp.diff(T([True, False, True], "bool")), [True, True], "Bool"),
    # n=2 is numpy's [False] (MindSpore 2.10 gives [True]: not copied)
    "diff bool n=2": (lambda: mnp.diff(T([True, False, True], "bool"), n=2), [False], "Bool"),
    "polyint one k": (lambda: mnp.polyint(T([1, 1]), 2, k=T([1])), [1 / 6, 0.5, 1, 1], "Float32"),
    "polyint two k": (lambda: mnp.polyint(T([1, 1]), 2, k=T([1, 2])), [1 / 6, 0.5, 1, 2], "Float32"),
    "nanmin all-NaN row (numpy)": (lambda: mnp.nanmin(T([[1, NAN], [NAN, NAN]]), axis=1), [1, NAN], "Float32"),
    "nanmax keepdims": (lambda: mnp.nanmax(T([[1, NAN], [3, NAN]]), axis=0, keepdims=True), [[3, NAN]], "Float32"),
}


# A few cases for every run; the whole table (some thirty eager kernels, ~6 s) is slow.
QUICK = ("trace int32", "sum uint16", "cumprod int32", "sign nan", "triu vector", "diff bool", "polyint one k",
         "nanmin all-NaN row (numpy)")


def _check(names):
    for name in names:
        call, want, dtype = CASES[name]
        got = call()
        assert str(got.dtype) == dtype, name
        np.testing.assert_allclose(got.asnumpy().astype(np.float64), np.array(want, np.float64), rtol=1e-5,
                                   err_msg=name)


def test_numpy_functions_as_mindspore_2_10_quick():
    _check(QUICK)


@pytest.mark.slow
def test_numpy_functions_as_mindspore_2_10():
    _check(sorted(CASES))

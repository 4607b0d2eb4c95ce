"""Tensor methods against MindSpore 2.10's values (measured on its CPU build, PYNATIVE, by the
session-15 audit): the torch-style keyword forms MindSpore 2.10's overloaded methods take
(dim, keepdim, ...), two-int transpose, reduction dtypes, Python conversions and indexing with
bools and floats. Every expected value below is MindSpore's printed result."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor


def T(data, dtype="float32"):  # noqa: N802
    return Tensor(np.array(data, dtype=dtype))


X = [[1, 5], [3, 4]]
X3 = np.arange(24).reshape(2, 3, 4)

# name: (call, MindSpore's value, MindSpore's dtype name)
CASES = {
    "transpose(0,1) swaps": (lambda: T(X).transpose(0, 1), [[1, 3], [5, 4]], "Float32"),
    "transpose((0,1)) permutes": (lambda: T(X).transpose((0, 1)), X, "Float32"),
    "transpose(0,0)": (lambda: T(X).transpose(0, 0), X, "Float32"),
    "transpose(dim0,dim1)": (lambda: T(X).transpose(dim0=0, dim1=1), [[1, 3], [5, 4]], "Float32"),
    "3-D transpose(0,2)": (lambda: T(X3).transpose(0, 2)[1], X3.swapaxes(0, 2)[1], "Float32"),
    "3-D transpose(-1,0) shape": (lambda: T(X3).transpose(-1, 0).sum(0), X3.swapaxes(0, 2).sum(0), "Float32"),
    "sum(dim, keepdim)": (lambda: T(X).sum(dim=1, keepdim=True), [[6], [7]], "Float32"),
    "sum(1, True)": (lambda: T(X, "int32").sum(1, True), [[6], [7]], "Int64"),
    "sum uint8": (lambda: T([1, 2], "uint8").sum(), 3, "Int64"),
    "sum uint16": (lambda: T([1, 2], "uint16").sum(0), 3, "UInt16"),
    "sum int16 dim": (lambda: T([1, 2], "int16").sum(dim=0), 3, "Int64"),
    "mean int": (lambda: T([[1, 2], [3, 4]], "int32").mean(), 2, "Int32"),
    "mean int rows": (lambda: T([[1, 2], [3, 5]], "int32").mean(1), [1, 4], "Int32"),
    "mean negative int": (lambda: T([-1, -4], "int32").mean(), -2, "Int32"),
    "mean uint8": (lambda: T([1, 2], "uint8").mean(), 1, "UInt8"),
    "mean int keepdim": (lambda: T(X, "int32").mean(1, True), [[3], [3]], "Int32"),
    "mean dtype": (lambda: T(X, "int32").mean(dtype=ms.float32), 3.25, "Float32"),
    "mean dim keepdim": (lambda: T(X).mean(dim=1, keepdim=True), [[3], [3.5]], "Float32"),
    "prod int32": (lambda: T([[1, 2], [3, 4]], "int32").prod(), 24, "Int64"),
    "prod bool": (lambda: T([True, True], "bool").prod(), 1, "Int64"),
    "prod uint16": (lambda: T([1, 2], "uint16").prod(), 2, "UInt16"),
    "prod dim keepdim": (lambda: T(X, "int32").prod(dim=1, keepdim=True), [[5], [12]], "Int64"),
    "prod dtype": (lambda: T(X, "int32").prod(dtype=ms.float32), 60, "Float32"),
    "prod positional": (lambda: T([[2, 3]]).prod(0, True, ms.float64), [[2, 3]], "Float64"),
    "cumprod int32": (lambda: T([[1, 2], [3, 4]], "int32").cumprod(0), [[1, 2], [3, 8]], "Int64"),
    "cumprod bool": (lambda: T([True, True], "bool").cumprod(0), [1, 1], "Int64"),
    "cumsum int16": (lambda: T([1, 2], "int16").cumsum(0), [1, 3], "Int32"),
    "cumsum uint8": (lambda: T([1, 2], "uint8").cumsum(0), [1, 3], "Int32"),
    "cumsum bool": (lambda: T([True, False], "bool").cumsum(0), [1, 1], "Int32"),
    "cumsum dim": (lambda: T(X).cumsum(dim=1), [[1, 6], [3, 7]], "Float32"),
    "all dim": (lambda: T(X).all(dim=1), [True, True], "Bool"),
    "argmax dim keepdim": (lambda: T(X).argmax(dim=1, keepdim=True), [[1], [1]], "Int64"),
    "argmin dim": (lambda: T(X).argmin(dim=1), [0, 0], "Int32"),
    "std dim": (lambda: T(X).std(dim=1), [2.0, 0.5], "Float32"),
    "std dim keepdim": (lambda: T(X).std(dim=1, keepdim=True), [[2.0], [0.5]], "Float32"),
    "std correction=1": (lambda: T(X).std(dim=1, correction=1), [2.8284271, 0.70710677], "Float32"),
    "std correction=0": (lambda: T(X).std(correction=0), 1.47902, "Float32"),
    "median dim keepdim": (lambda: T(X).median(dim=1, keepdim=True)[0], [[1], [3]], "Float32"),
    "sort dim": (lambda: T(X).sort(dim=0)[0], [[1, 4], [3, 5]], "Float32"),
    "sort stable": (lambda: T(X).sort(stable=True)[0], [[1, 5], [3, 4]], "Float32"),
    "argsort dim": (lambda: T(X).argsort(dim=0), [[0, 1], [1, 0]], "Int32"),
    "split dim": (lambda: T(X).split(split_size=1, dim=1)[1], [[5], [4]], "Float32"),
    "chunk dim": (lambda: T(X).chunk(2, dim=1)[0], [[1], [3]], "Float32"),
    "tile dims": (lambda: T(X).tile(dims=(2, 1)), X + X, "Float32"),
    "gather dim index": (lambda: T(X).gather(dim=1, index=T([[0], [1]], "int64")), [[1], [4]], "Float32"),
    "index_select dim": (lambda: T(X).index_select(dim=1, index=T([1], "int32")), [[5], [4]], "Float32"),
    "clip min": (lambda: T(X).clip(min=2), [[2, 5], [3, 4]], "Float32"),
    "reshape shape": (lambda: T(X).reshape(shape=(4,)), [1, 5, 3, 4], "Float32"),
    "permute dims": (lambda: T(X).permute(dims=(1, 0)), [[1, 3], [5, 4]], "Float32"),
    "flatten order": (lambda: T(X).flatten(order="C"), [1, 5, 3, 4], "Float32"),
    "x[True]": (lambda: T([[1, 2], [3, 4]])[True], [[[1, 2], [3, 4]]], "Float32"),
    "x[0, True]": (lambda: T([[1, 2]])[0, True], [[1, 2]], "Float32"),
}
# bool-mask indexing has a data-dependent shape: eager only
EAGER_CASES = {
    "x[mask]": (lambda: T([[1, 2], [3, 4]])[T([True, False], "bool")], [[1, 2]], "Float32"),
    "x[2-D mask]": (lambda: T([[1, 2], [3, 4]])[T([[True, False], [False, True]], "bool")], [1, 4], "Float32"),
}


# A few of the table's cases, cheap enough for every run (the whole table compiles some fifty
# kernels eagerly, 10-15 s: it runs under the slow marker).
QUICK = ("transpose(0,1) swaps", "transpose((0,1)) permutes", "sum(1, True)", "sum uint8", "mean int",
         "prod int32", "x[True]", "x[mask]")


def _check(names):
    table = dict(CASES, **EAGER_CASES)
    for name in names:
        call, want, dtype = table[name]
        got = call()
        assert str(got.dtype) == dtype, name
        np.testing.assert_allclose(got.asnumpy(), np.array(want, np.float64), rtol=1e-5, err_msg=name)


def test_tensor_methods_as_mindspore_2_10_quick():
    _check(QUICK)


@pytest.mark.slow
def test_tensor_methods_as_mindspore_2_10():
    _check(sorted(set(CASES) | set(EAGER_CASES)))


def test_conversions_and_index_errors_as_mindspore_2_10():
    assert T([1.5]).type() == "Float32" and T([1.5]).type(ms.int32).dtype == ms.int32
    for convert in (int, float):
        with pytest.raises(ValueError, match="Only one element tensors can be converted to Python scalars"):
            convert(T([1, 2], "int32"))
    with pytest.raises(ValueError, match="should have only one element, but got 2, more than one element"):
        T([1, 2], "int32").item()
    with pytest.raises(ValueError, match="should have only one element, but got 0"):
        bool(T([]))
    with pytest.raises(IndexError, match="bool object, the value only support 'True'"):
        T([1, 2])[False]
    with pytest.raises(IndexError, match="Only support integers, slices.*but got 1.0"):
        T([1, 2])[1.0]
    with pytest.raises(TypeError, match="viewing the bits as another dtype is not supported"):
        T([1, 2]).view(ms.int32)

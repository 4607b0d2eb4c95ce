"""nonzero, argwhere, masked_select and unique: eager values against numpy and MindSpore 2.10's
measured outputs; in graph mode, a clear error."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import ops
from graphcell.frontend.tracer import GraphModeError

X = np.array([[0, 2, 0], [3, 0, 3]], np.float32)


def test_nonzero_and_argwhere_give_int64_row_major_indices():
    want = np.array([[0, 1], [1, 0], [1, 2]], np.int64)   # MindSpore 2.10's output for X
    for got in (ops.nonzero(ms.Tensor(X)), ops.argwhere(ms.Tensor(X)), ms.Tensor(X).nonzero()):
        assert got.dtype == ms.int64
        np.testing.assert_array_equal(got.asnumpy(), want)
    rows, cols = ops.nonzero(ms.Tensor(X), as_tuple=True)
    np.testing.assert_array_equal(rows.asnumpy(), want[:, 0])
    np.testing.assert_array_equal(cols.asnumpy(), want[:, 1])
    # NaN and -0.0: NaN is nonzero, -0.0 is zero (numpy's truth)
    np.testing.assert_array_equal(ops.nonzero(ms.Tensor(np.array([np.nan, 0, -0.0], np.float32))).asnumpy(), [[0]])
    empty = ops.nonzero(ms.Tensor(np.zeros((2, 3), np.float32)))
    assert empty.shape == (0, 2) and empty.dtype == ms.int64
    with pytest.raises(ValueError, match="at least one dimension"):
        ops.nonzero(ms.Tensor(np.float32(5.0)))


def test_masked_select_broadcasts_and_keeps_the_dtype():
    x = ms.Tensor(X)
    np.testing.assert_array_equal(ops.masked_select(x, x > 1).asnumpy(), [2, 3, 3])
    # the mask broadcasts against the input: [[True], [False]] keeps the first row
    got = ops.masked_select(x, ms.Tensor(np.array([[True], [False]])))
    np.testing.assert_array_equal(got.asnumpy(), [0, 2, 0])
    got = ms.Tensor(np.arange(3, dtype=np.int32)).masked_select(ms.Tensor(np.array([[True], [False]])))
    assert got.dtype == ms.int32
    np.testing.assert_array_equal(got.asnumpy(), [0, 1, 2])
    with pytest.raises(TypeError, match="'mask' must be a bool Tensor"):
        ops.masked_select(x, ms.Tensor(np.array([1, 0, 1], np.int32)))
    with pytest.raises(ValueError, match=r"\[2, 3\] and 'mask' \[2\] do not broadcast"):
        ops.masked_select(x, ms.Tensor(np.array([True, False])))


@pytest.mark.parametrize("values,want_values,want_index,index_dtype", [
    # MindSpore 2.10's outputs, measured: first-occurrence order, each NaN distinct
    (np.array([3, 1, 3, 2, 1], np.int32), [3, 1, 2], [0, 1, 0, 2, 1], np.int32),
    (np.array([5.0, -1.0, 5.0, 2.0, np.nan, -1.0], np.float32), [5, -1, 2, np.nan], [0, 1, 0, 2, 3, 1], np.int32),
    (np.array([np.nan, 1.0, np.nan, 1.0], np.float32), [np.nan, 1, np.nan], [0, 1, 2, 1], np.int32),
    (np.array([[2, 1], [1, 2]], np.int64), [2, 1], [[0, 1], [1, 0]], np.int64),
])
def test_unique_matches_mindspore(values, want_values, want_index, index_dtype):
    got_values, got_index = ops.unique(ms.Tensor(values))
    assert got_values.dtype == ms.Tensor(values).dtype
    np.testing.assert_array_equal(got_values.asnumpy(), np.array(want_values, values.dtype))
    assert got_index.asnumpy().dtype == index_dtype
    np.testing.assert_array_equal(got_index.asnumpy(), want_index)
    # and the defining property: values[index] rebuilds the input
    np.testing.assert_array_equal(got_values.asnumpy()[got_index.asnumpy()], values)


@pytest.mark.parametrize("op", [ops.nonzero, ops.argwhere, ops.unique, lambda x: ops.masked_select(x, x > 0)])
def test_graph_mode_refuses_with_a_static_shape_alternative(op):
    with pytest.raises(GraphModeError, match="depends on the input's values.*static shapes"):
        ms.jit(op)(ms.Tensor(X))
    with pytest.raises(GraphModeError, match="depends on the input's values"):
        ms.vmap(op)(ms.Tensor(np.stack([X, X])))

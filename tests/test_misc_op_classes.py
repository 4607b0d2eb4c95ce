"""Small 2.10 operator classes (ops/misc_op_classes.py): values measured on MindSpore 2.10's CPU
build held as literals, the Ascend-only ones against numpy."""
import numpy as np
import pytest

import graphcell as gc
from graphcell import Tensor, ops

F32 = np.float32
LOWEST = float(np.finfo(F32).min)


def test_eps_fills_map_uniform_no_repeat_ngram():
    assert ops.Eps()(Tensor(np.ones(2, np.float16))).asnumpy().tolist() == [0.0009765625] * 2   # measured on 2.10
    assert ops.Eps()(Tensor(np.ones(1, np.float64))).asnumpy().tolist() == [2.220446049250313e-16]
    with pytest.raises(TypeError, match=r"For primitive\[Eps\], the input argument\[x\] must be a type of"):
        ops.Eps()(Tensor(np.ones(2, np.int32)))
    assert ops.Fills()(Tensor(np.zeros((2, 2), np.int32)), 3.0).asnumpy().tolist() == [[3, 3], [3, 3]]
    with pytest.raises(ValueError, match=r"the rank of 'value' must be equal to 0, but got 1"):
        ops.Fills()(Tensor(np.zeros(3, F32)), Tensor(np.array([1.0, 2.0], F32)))
    # MapUniform: measured on 2.10 (C's truncating % and /)
    assert ops.MapUniform()(Tensor(np.array([0, 10, 2, 6, 7, -3], np.int32)), 5, 2).asnumpy().tolist() == \
        [0, 5, 1, 3, 8, -6]

    def ban(seq, probs, n):
        return gc.jit(lambda s, p: ops.NoRepeatNGram(n)(s, p))(Tensor(seq), Tensor(probs)).asnumpy()
    out = ban(np.array([[[1, 2, 1, 2, 5, 1, 2]]], np.int32), np.arange(10, dtype=F32).reshape(1, 1, 10), 3)
    want = np.arange(10, dtype=F32)
    want[[1, 5]] = LOWEST                     # measured on 2.10
    np.testing.assert_array_equal(out[0, 0], want)
    out = ban(np.array([[[1, 2, 1, 3, 5, 1]], [[4, 4, 4, 4, 4, 4]]], np.int32),
              np.arange(20, dtype=F32).reshape(2, 1, 10), 2)
    np.testing.assert_array_equal(out[:, 0], [[0, 1, LOWEST, LOWEST, 4, 5, 6, 7, 8, 9],
                                              [10, 11, 12, 13, LOWEST, 15, 16, 17, 18, 19]])
    with pytest.raises(ValueError, match="the 'ngram_size' must be int and must >= 1, but got '0'"):
        ops.NoRepeatNGram(0)
    with pytest.raises(ValueError, match=r"less than or equal to state_seq shape\[2\] \+ 1 which is 7 , but got 8"):
        ops.NoRepeatNGram(8)(Tensor(np.zeros((1, 1, 6), np.int32)), Tensor(np.zeros((1, 1, 4), F32)))


def test_histogram_confusion_matrix_sub_and_filter_scalars():
    x = np.array([-1.0, 0.0, 1.5, 2.0, 4.99, 5.0, 15], F32)
    got = ops.HistogramFixedWidth(5)(Tensor(x), Tensor(np.array([0.0, 5.0], F32))).asnumpy()
    np.testing.assert_array_equal(got, [2, 1, 1, 0, 3])     # tf.histogram_fixed_width's rule
    with pytest.raises(ValueError, match=r"the 'dtype' must be str and must be in '\['int32'\]'"):
        ops.HistogramFixedWidth(3, "float32")
    cm = ops.ConfusionMatrix(4)(Tensor(np.array([0, 1, 1, 3], np.int32)), Tensor(np.array([0, 1, 2, 3], np.int32)))
    want = np.zeros((4, 4), np.int32)
    np.add.at(want, ([0, 1, 1, 3], [0, 1, 2, 3]), 1)
    np.testing.assert_array_equal(cm.asnumpy(), want)
    with pytest.raises(TypeError, match="the type of 'predictions' should be same as 'labels'"):
        ops.ConfusionMatrix(4)(Tensor(np.array([0, 1], np.int64)), Tensor(np.array([0, 1], np.int32)))
    values, where = ops.SubAndFilter()(Tensor(np.array([1, 3, 5, 8, 9, 16], np.int32)), 10, 5)  # measured
    assert values.asnumpy().tolist() == [0, 3, 4] and where.asnumpy().tolist() == [2, 3, 4]
    assert ops.ScalarCast()(-2.7, gc.int64) == -2
    with pytest.raises(ValueError, match="the supported type is in the list"):
        ops.ScalarCast()(2.5, gc.float32)
    assert ops.ScalarToArray()(1.5).asnumpy() == 1.5


def test_sparse_classes_as_measured():
    c_ind, c_val, c_shape = ops.Coalesce()(Tensor(np.array([[2, 0, 0, 1], [1, 1, 1, 2]], np.int64)),
                                           Tensor(np.array([1, 5, 4, 2], F32)), Tensor(np.array([3, 3], np.int64)))
    assert c_ind.asnumpy().tolist() == [[0, 1, 2], [1, 2, 1]] and c_val.asnumpy().tolist() == [9, 2, 1]
    assert c_shape.asnumpy().tolist() == [3, 3] and ops.coalesce is not None
    with pytest.raises(ValueError, match=r"but got x_indices\[0\]\[0\] = 3, got x_shape\[0\] = 3"):
        ops.coalesce(Tensor(np.array([[3, 0], [1, 1]], np.int64)), Tensor(np.ones(2, F32)),
                     Tensor(np.array([3, 3], np.int64)))
    ix = Tensor(np.array([[0, 1], [1, 2], [1, 3], [2, 2]], np.int64))
    s_ind, s_val, s_shape = ops.SparseSlice()(ix, Tensor(np.array([1, 2, 3, 4], np.int64)),
                                              Tensor(np.array([3, 4], np.int64)), Tensor(np.array([1, 2], np.int64)),
                                              Tensor(np.array([5, 1], np.int64)))
    assert s_ind.asnumpy().tolist() == [[0, 0], [1, 0]] and s_val.asnumpy().tolist() == [2, 4]
    assert s_shape.asnumpy().tolist() == [2, 1]
    indices = Tensor(np.array([[0, 1], [1, 2], [0, 1]], np.int32))
    values = Tensor(np.array([1, 2, 3], F32))

    def dense_ops(i, v, d):
        return (ops.SparseToDense()(i, v, (3, 4)),
                ops.SparseTensorDenseMatmul()(i, v, (3, 4), d),
                ops.SparseTensorDenseAdd()(i, v, Tensor(np.array([3, 4], np.int32)), F.ones((3, 4), gc.float32)))
    from graphcell.ops import functional as F
    to_dense, product, added = gc.jit(dense_ops)(indices, values, Tensor(np.arange(8, dtype=F32).reshape(4, 2)))
    assert to_dense.asnumpy().tolist() == [[0, 3, 0, 0], [0, 0, 2, 0], [0, 0, 0, 0]]   # measured: last write
    assert product.asnumpy().tolist() == [[8, 12], [8, 10], [0, 0]]                    # measured: summed
    assert added.asnumpy().tolist() == [[1, 5, 1, 1], [1, 1, 3, 1], [1, 1, 1, 1]]
    adj = ops.SparseTensorDenseMatmul(True, True)(Tensor(np.array([[0, 1], [1, 2]], np.int32)),
                                                  Tensor(np.array([1, 2], F32)), (3, 4),
                                                  Tensor(np.arange(6, dtype=F32).reshape(2, 3)))
    assert adj.asnumpy().tolist() == [[0, 0], [0, 3], [2, 8], [0, 0]]                  # measured on 2.10
    with pytest.raises(ValueError, match=r"the 1th value in 0th dimension index: 5 of 'output' out of bounds"):
        ops.SparseToDense()(Tensor(np.array([[0, 1], [5, 2]], np.int32)), Tensor(np.ones(2, F32)), (3, 4))
    with pytest.raises(TypeError, match="the type of 'adjoint_st' should be 'bool', but got type 'int'"):
        ops.SparseTensorDenseMatmul(1)
    gathered = ops.SparseGatherV2()(Tensor(np.arange(12, dtype=F32).reshape(3, 4)), Tensor(np.array([1, 2])), 1)
    np.testing.assert_array_equal(gathered.asnumpy(), np.arange(12).reshape(3, 4)[:, [1, 2]])
    param = gc.Parameter(Tensor(np.ones(8, F32)), name="p")
    ops.ScatterNonAliasingAdd()(param, Tensor(np.array([[2], [4], [1], [7]], np.int32)),
                                Tensor(np.array([6, 7, 8, 9], F32)))
    assert param.asnumpy().tolist() == [1, 9, 7, 1, 8, 1, 1, 10]

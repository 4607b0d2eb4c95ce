"""MindSpore 2.10 operators added in wave 3: unique_with_pad, is_nonzero, UniqueConsecutive,
UnravelIndex, NthElement, Segment*, LeftShift/RightShift/PopulationCount/NextAfter, IndexPut,
MaskedScatter, FillDiagonal and the functional in-place ops. Expected values are numpy's or, where
marked, measured on MindSpore 2.10 (CPU)."""
import numpy as np
import pytest
import torch

import graphcell as ms
from graphcell import Tensor, ops
from graphcell.frontend.tracer import GraphModeError
from tests.modes import run_table

X6 = np.array([3, 1, 3, 2, 1, 5], np.int32)
XF = np.array([3., 1, 3, np.nan, np.nan, -0.0, 0.0], np.float32)
M23 = np.arange(6, dtype=np.float32).reshape(2, 3)
NTH = np.array([[3, 1, 2, 5], [9, 8, 7, 6]], np.float32)
I8 = np.array([1, -8, 100], np.int8)
C8 = np.array([2, 1, 7], np.int8)
MASK = np.array([[True, False, True], [False, True, False]])

# name: (fn, inputs, expected); every function composes static-shape ops, so one jitted (and
# one ONNX) program runs them all.
CASES = {
    # measured on MindSpore 2.10: first-occurrence order, pad, int32 indices; each NaN its own value
    "unique_with_pad": (lambda x: ops.unique_with_pad(x, 0), [X6],
                        (np.array([3, 1, 2, 5, 0, 0]), np.array([0, 1, 0, 2, 1, 3]))),
    "unique_with_pad_nan": (lambda x: ops.UniqueWithPad()(x, 9.0), [XF],
                            (np.array([3, 1, np.nan, np.nan, -0.0, 9, 9]), np.array([0, 1, 0, 2, 3, 4, 4]))),
    "unravel_index": (lambda i, d: ops.UnravelIndex()(i, d), [np.array([5, 7, 0], np.int32), np.array([3, 4], np.int32)],
                      np.stack(np.unravel_index([5, 7, 0], (3, 4)))),
    "nth_element": (lambda x: ops.NthElement()(x, 1), [NTH], np.sort(NTH, -1)[:, 1]),
    "nth_element_reverse": (lambda x: ops.NthElement(True)(x, 3), [NTH], np.sort(NTH, -1)[:, 0]),
    # measured on MindSpore 2.10 (int8 wraps; the count is taken modulo 32)
    "left_shift": (lambda a, b: ops.LeftShift()(a, b), [I8, C8], np.array([4, -16, 0])),
    "right_shift": (lambda a, b: ops.RightShift()(a, b), [I8, C8], np.array([0, -4, 0])),
    "population_count": (lambda x: ops.PopulationCount()(x), [np.array([7, -1, 0], np.int16)], np.array([3, 16, 0])),
    "next_after": (lambda a, b: ops.NextAfter()(a, b), [np.array([1., 0.]), np.array([2., -1.])],
                   np.nextafter([1., 0.], [2., -1.])),
    "index_put": (lambda x, v, i, j: ops.IndexPut()(x, v, (i, j)),
                  [M23, np.array([9.], np.float32), np.array([0, 1], np.int32), np.array([1, 2], np.int32)],
                  np.array([[0, 9, 2], [3, 4, 9]])),
    "index_put_accumulate": (lambda x, v, i, j: ops.IndexPut(1)(x, v, [i, j]),
                             [M23, np.array([9., 10.], np.float32), np.array([0, 0], np.int32),
                              np.array([1, 1], np.int32)], np.array([[0, 20, 2], [3, 4, 5]])),
    "masked_scatter": (lambda x, m, s: ops.MaskedScatter()(x, m, s), [M23, MASK, np.array([10., 11, 12, 13], np.float32)],
                       np.array([[10, 1, 11], [3, 12, 5]])),
    "masked_scatter_broadcast": (lambda x, m, s: ops.MaskedScatter()(x, m, s),
                                 [M23, np.array([True, False, True]), np.array([10., 11, 12, 13], np.float32)],
                                 np.array([[10, 1, 11], [12, 4, 13]])),
    # measured on MindSpore 2.10: numpy's wrap; an integer input takes 300.0 as uint8 44
    "fill_diagonal_wrap": (lambda x: ops.FillDiagonal(2.0, True)(x), [np.zeros((7, 3), np.float32)],
                           np.array([[2, 0, 0], [0, 2, 0], [0, 0, 2], [0, 0, 0], [2, 0, 0], [0, 2, 0], [0, 0, 2]])),
    "fill_diagonal_uint8": (lambda x: ops.FillDiagonal(300.0)(x), [np.zeros((2, 2), np.uint8)], np.array([[44, 0], [0, 44]])),
}


@pytest.mark.parametrize("mode", ["jit", "onnx"])
def test_composed_classes_in_one_program(mode):
    outs = run_table(CASES, CASES, mode)
    for name, (_, _, expected) in CASES.items():
        got = outs[name] if isinstance(expected, tuple) else (outs[name],)
        for g, e in zip(got, expected if isinstance(expected, tuple) else (expected,)):
            np.testing.assert_allclose(g, e, err_msg=name)


@pytest.mark.slow   # (eager: one compile per op, over 2 s)
def test_eager_dtypes():
    y, idx = ops.unique_with_pad(Tensor(X6), -1)
    assert (y.dtype, idx.dtype) == (ms.int32, ms.int32) and y.asnumpy().tolist() == [3, 1, 2, 5, -1, -1]
    y, idx = Tensor(np.array([3, 1, 3], np.int64)).unique_with_pad(2 ** 40)
    assert (y.dtype, idx.dtype) == (ms.int64, ms.int64) and y.asnumpy().tolist() == [3, 1, 2 ** 40]
    assert ops.PopulationCount()(Tensor(np.array([7], np.int16))).dtype == ms.uint8
    assert ops.NthElement()(Tensor(np.array([3, 1, 2], np.uint8)), Tensor(2, ms.int32)).asnumpy() == 3
    out = ops.UnravelIndex()(Tensor(np.array(5, np.int64)), Tensor(np.array([3, 4], np.int64)))
    assert out.dtype == ms.int64 and out.asnumpy().tolist() == [1, 1]


def test_unique_consecutive_class():
    x = Tensor(np.array([1, 1, 2, 2, 3, 1, 1, 2], np.int32))
    out, idx, counts = ops.UniqueConsecutive()(x)       # measured: the unasked outputs are 0-D int64 zeros
    assert out.asnumpy().tolist() == [1, 2, 3, 1, 2] and idx.shape == () and counts.dtype == ms.int64
    out, idx, counts = ops.UniqueConsecutive(True, True, 0)(Tensor(np.array([[1, 2], [1, 2], [3, 4]], np.int32)))
    assert (out.asnumpy().tolist(), idx.asnumpy().tolist(), counts.asnumpy().tolist()) == \
        ([[1, 2], [3, 4]], [0, 0, 1], [2, 1])


def test_is_nonzero():
    assert ops.is_nonzero(Tensor(np.array([[1.0]]))) is True
    assert ops.is_nonzero(Tensor(np.array(0))) is False
    assert ops.is_nonzero(Tensor(np.array([np.nan]))) is True     # measured on MindSpore 2.10
    with pytest.raises(ValueError, match="numel of input must be 1, but got 2"):
        ops.is_nonzero(Tensor(np.array([1, 2])))
    with pytest.raises(TypeError, match="input must be a Tensor"):
        ops.is_nonzero(3)


# measured on MindSpore 2.10 (x = [[1,2],[3,4],[5,6],[7,8.5]], ids [0,0,2,2]): an empty segment
# is 0 for all but prod, which gives 1
SEGMENTS = {"SegmentSum": [[4, 6], [0, 0], [12, 14.5]], "SegmentMean": [[2, 3], [0, 0], [6, 7.25]],
            "SegmentMax": [[3, 4], [0, 0], [7, 8.5]], "SegmentMin": [[1, 2], [0, 0], [5, 6]],
            "SegmentProd": [[3, 8], [1, 1], [35, 51]]}


@pytest.mark.slow   # (eager: one compile per op, over 2 s)
def test_segments_eager():
    x = Tensor(np.array([[1, 2], [3, 4], [5, 6], [7, 8.5]], np.float32))
    ids = Tensor(np.array([0, 0, 2, 2], np.int32))
    for name, expected in SEGMENTS.items():
        np.testing.assert_allclose(getattr(ops, name)()(x, ids).asnumpy(), expected, err_msg=name)
    # an integer mean truncates toward zero (measured: [1, 2] -> 1, [-3, -4] -> -3)
    mean = ops.SegmentMean()(Tensor(np.array([1, 2, -3, -4], np.int32)), Tensor(np.array([0, 0, 1, 1], np.int64)))
    assert mean.dtype == ms.int32 and mean.asnumpy().tolist() == [1, -3]
    # the sum wraps in uint8, as torch's segment_reduce would not: checked against numpy
    assert ops.SegmentSum()(Tensor(np.array([200, 100], np.uint8)), Tensor(np.array([0, 0], np.int32))).asnumpy() == 44


def test_segment_gradient_and_graph_mode():
    x = Tensor(np.array([1., 2., 3.], np.float32))
    ids = Tensor(np.array([0, 0, 1], np.int32))
    grad = ops.grad(lambda v: ops.SegmentProd()(v, ids).sum())(x)
    t = torch.tensor([1., 2., 3.], requires_grad=True)
    torch.segment_reduce(t, "prod", lengths=torch.tensor([2, 1])).sum().backward()
    np.testing.assert_allclose(grad.asnumpy(), t.grad.numpy())
    with pytest.raises(GraphModeError, match="SegmentSum.*static shapes"):
        ms.jit(lambda v, i: ops.SegmentSum()(v, i))(x, ids)


@pytest.mark.parametrize("call, error, message", [
    (lambda: ops.unique_with_pad(Tensor(np.array([[1]], np.int32)), 0), ValueError, "input_shape_size must be equal to 1"),
    (lambda: ops.unique_with_pad(Tensor(np.array([1], np.int8)), 0), TypeError, r"but got Tensor\[Int8\]"),
    (lambda: ops.unique_with_pad(Tensor(np.zeros(0, np.int32)), 0), ValueError, "empty tensor"),
    (lambda: ops.unique_with_pad(Tensor(np.array([1.], np.float32)), 9), TypeError, "pad_num must be a float"),
    (lambda: ops.UnravelIndex()(Tensor(np.array([12], np.int32)), Tensor(np.array([3, 4], np.int32))),
     ValueError, "Index out of boundary"),
    (lambda: ops.UnravelIndex()(Tensor(np.array([-1], np.int32)), Tensor(np.array([3, 4], np.int32))),
     ValueError, "Index must be greater than 0"),
    (lambda: ops.UnravelIndex()(Tensor(np.array([1], np.int32)), Tensor(np.array([3, 0], np.int32))),
     ValueError, "All dimensions must be greater than 0"),
    (lambda: ops.UnravelIndex()(Tensor(np.array([1], np.int32)), Tensor(np.array([3, 4], np.int64))),
     TypeError, "input type must be same"),
    (lambda: ops.NthElement()(Tensor(NTH), 4), ValueError, "n_value must be less than 4, but got 4"),
    (lambda: ops.NthElement()(Tensor(NTH), -1), ValueError, "greater than or equal to 0, but got -1"),
    (lambda: ops.NthElement()(Tensor(NTH), Tensor(1, ms.int64)), TypeError, r"argument\[n\]"),
    (lambda: ops.NthElement(1), TypeError, "'reverse' should be 'bool'"),
    (lambda: ops.SegmentSum()(Tensor(M23), Tensor(np.array([1, 0], np.int32))), ValueError, "sorted in ascending"),
    (lambda: ops.SegmentSum()(Tensor(M23), Tensor(np.array([-1, 0], np.int32))), ValueError, "nonnegative, but got -1"),
    (lambda: ops.SegmentSum()(Tensor(M23), Tensor(np.array([0], np.int32))), ValueError, "but got 1 and 2"),
    (lambda: ops.SegmentSum()(Tensor(M23), Tensor(np.array([0., 0.], np.float32))), TypeError, "segment_ids_type"),
    (lambda: ops.LeftShift()(Tensor(I8), 1), TypeError, "Failed calling LeftShift"),
    (lambda: ops.RightShift()(Tensor(I8), Tensor(np.array([1, 1, 1], np.int32))), TypeError, "should be same"),
    (lambda: ops.IndexPut(True), TypeError, "'accumulate' should be 'int', but got type 'bool'"),
    (lambda: ops.MaskedScatter()(Tensor(M23), Tensor(np.array([True, False, True])), Tensor(np.array([1.], np.float32))),
     ValueError, "number of elements of updates < number of ones in mask"),
    (lambda: ops.FillDiagonal(2), TypeError, "'fill_value' should be 'float', but got type 'int'"),
    (lambda: ops.FillDiagonal(1.0)(Tensor(np.zeros((2, 3, 2), np.float32))), ValueError, "same size in all dimensions"),
    (lambda: ops.FillDiagonal(1.0)(Tensor(np.zeros((2, 2), np.bool_))), TypeError, r"but got Tensor\[Bool\]"),
    (lambda: ops.zero_([1, 2]), TypeError, "Failed calling InplaceZero"),
])
def test_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.slow   # (eager: one compile per op, over 2 s)
def test_inplace_functional_forms():
    x = Tensor(np.array([0.25, 1.0, 0.5], np.float32))
    assert ops.clamp_(x, 0.3, 0.6) is x
    np.testing.assert_allclose(x.asnumpy(), [0.3, 0.6, 0.5])
    np.testing.assert_allclose(ops.tanh_(x).asnumpy(), np.tanh([0.3, 0.6, 0.5]), rtol=1e-6)
    np.testing.assert_allclose(ops.erfinv_(Tensor(np.array([0.5], np.float32))).asnumpy(),
                               torch.erfinv(torch.tensor([0.5])).numpy(), rtol=1e-5)
    ops.put_(x, Tensor(np.array([2], np.int64)), Tensor(np.array([9.], np.float32)))
    assert x.asnumpy()[2] == 9
    assert ops.zero_(x).asnumpy().tolist() == [0, 0, 0]
    draws = {name: getattr(ops, name)(Tensor(np.zeros(2000, np.float32)), *args).asnumpy()
             for name, args in [("uniform_", (2, 3)), ("normal_", (5, 0.5)), ("random_", (0, 4)),
                                ("exponential_", (2,)), ("bernoulli_", (0.25,))]}
    assert 2 <= draws["uniform_"].min() and draws["uniform_"].max() < 3
    assert abs(draws["normal_"].mean() - 5) < 0.1 and set(np.unique(draws["random_"])) == {0, 1, 2, 3}
    assert abs(draws["exponential_"].mean() - 0.5) < 0.1 and abs(draws["bernoulli_"].mean() - 0.25) < 0.05

"""mindspore.dataset.transforms' array transforms and random combinators against MindSpore 2.10 (CPU):
the literals were measured on 2.10 with the same inputs."""
import numpy as np
import pytest

from graphcell import dataset as ds
from graphcell.dataset import config, transforms as T
from graphcell.dataset.transforms import Relational

A = np.array([1, 2, 3], np.int32)
F = np.array([1.5, 2.5], np.float32)
M = np.arange(12, dtype=np.int64).reshape(3, 4)


@pytest.mark.parametrize("make, data, expected, dtype", [
    (lambda: T.Concatenate(), A, [1, 2, 3], np.int32),
    (lambda: T.Concatenate(0, np.array([9, 8], np.int32), np.array([7], np.int32)), A, [9, 8, 1, 2, 3, 7], np.int32),
    (lambda: T.Concatenate(-1, np.array([9], np.int32)), np.array([1], np.int32), [9, 1], np.int32),
    (lambda: T.Fill(7), A, [7, 7, 7], np.int32),
    (lambda: T.Fill(7.9), A, [7, 7, 7], np.int32),
    (lambda: T.Fill(True), A, [1, 1, 1], np.int32),
    (lambda: T.Fill(2.5), F, [2.5, 2.5], np.float32),
    (lambda: T.Mask(Relational.EQ, 2), A, [False, True, False], np.bool_),
    (lambda: T.Mask(Relational.EQ, 1.5), A, [True, False, False], np.bool_),      # the constant is cast to int32
    (lambda: T.Mask(Relational.GT, 1.5), A, [False, True, True], np.bool_),
    (lambda: T.Mask(Relational.LE, 2, np.int32), A, [1, 1, 0], np.int32),
    (lambda: T.Mask(Relational.GE, 2.5), F, [False, True], np.bool_),
    (lambda: T.Mask(Relational.LT, 2, np.float32), F, [1.0, 0.0], np.float32),
    (lambda: T.PadEnd([5]), A, [1, 2, 3, 0, 0], np.int32),
    (lambda: T.PadEnd([5], -1), A, [1, 2, 3, -1, -1], np.int32),
    (lambda: T.PadEnd([5], 1.5), A, [1, 2, 3, 1, 1], np.int32),
    (lambda: T.PadEnd([2]), A, [1, 2], np.int32),
    (lambda: T.PadEnd([4, 6], 1), M, [[0, 1, 2, 3, 1, 1], [4, 5, 6, 7, 1, 1], [8, 9, 10, 11, 1, 1], [1] * 6], np.int64),
    (lambda: T.Slice(1), A, [2], np.int32),
    (lambda: T.Slice(-1), A, [3], np.int32),
    (lambda: T.Slice([0, 2]), A, [1, 3], np.int32),
    (lambda: T.Slice(slice(0, 2)), A, [1, 2], np.int32),
    (lambda: T.Slice(None), A, [1, 2, 3], np.int32),
    (lambda: T.Slice(Ellipsis), A, [1, 2, 3], np.int32),
    (lambda: T.Slice(1, slice(1, 3)), M, [[5, 6]], np.int64),
])
def test_array_transforms_as_mindspore(make, data, expected, dtype):
    got = make()(data)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, expected)


def test_unique_and_duplicate():
    values, index, counts = T.Unique()(np.array([[5, 3], [5, 1]], np.int32))
    assert values.tolist() == [5, 3, 1] and index.tolist() == [0, 1, 0, 2] and counts.tolist() == [2, 1, 1]
    assert values.dtype == np.int32 and index.dtype == np.int32 and counts.dtype == np.int32
    values, index, counts = T.Unique()(np.array([[2.5, 1.5], [2.5, 0.5]], np.float32))
    assert values.dtype == np.float32 and values.tolist() == [2.5, 1.5, 0.5] and counts.tolist() == [2, 1, 1]
    a, b = T.Duplicate()(A)
    assert a.tolist() == b.tolist() == [1, 2, 3] and a is not b


@pytest.mark.parametrize("run, error, message", [
    (lambda: T.Concatenate(0, np.array([9.5]))(A), RuntimeError,
     "Concatenate: input datatype does not match the prepend datatype, got input datatype: int32, prepend datatype:float64"),
    (lambda: T.Concatenate(-1, np.array([[9], [8]])), ValueError, "can only prepend 1D arrays."),
    (lambda: T.Concatenate(1), ValueError, "only 1D concatenation supported."),
    (lambda: T.Concatenate(0, [1, 2]), TypeError, "Argument prepend with value [1, 2] is not of type [<class 'numpy.ndarray'>]"),
    (lambda: T.Concatenate()(M), RuntimeError, "Concatenate: only 1D input supported, got rank of input: 2"),
    (lambda: T.Fill(3)(np.array(["ab", "c"])), RuntimeError,
     "Fill: fill_value and the input tensor must be of the same data type when involving strings or bytes"),
    (lambda: T.Fill([1, 2]), TypeError, "Argument fill_value with value [1, 2] is not of type [<class 'str'>, <class 'float'>, "
     "<class 'bool'>, <class 'int'>, <class 'bytes'>], but got <class 'list'>."),
    (lambda: T.Mask("a", 2), TypeError, "Argument operator with value 'a' is not of type [<enum 'Relational'>]"),
    (lambda: T.PadEnd(5), TypeError, "Argument pad_shape with value 5 is not of type [<class 'list'>], but got <class 'int'>."),
    (lambda: T.Slice(5)(A), RuntimeError, "Index 5 is out of bounds."),
    (lambda: T.Unique()(A), RuntimeError, "Unique: input must be at least 2-D in order to do unique op, got rank:1"),
    (lambda: T.Unique()(np.array([["b", "a"]])), RuntimeError, "Unique: only support numeric datatype of input, got string."),
    (lambda: T.RandomApply([], 0.5), ValueError, "transforms list can not be empty."),
    (lambda: T.RandomApply([1], 0.5), TypeError, "transforms[0] is neither a transforms op (TensorOperation) nor a callable pyfunc."),
    (lambda: T.RandomApply([abs], 1.5), ValueError, "Input prob is not within the required interval of [0, 1]."),
    (lambda: T.RandomChoice([]), ValueError, "transforms list can not be empty."),
])
def test_errors_as_mindspore(run, error, message):
    with pytest.raises(error) as info:
        run()
    assert str(info.value).startswith(message)


def test_random_combinators():
    add, triple = (lambda x: x + 1), (lambda x: x * 3)
    assert T.RandomApply([add, triple], 1.0)(A).tolist() == [6, 9, 12]          # all, in order (measured)
    assert T.RandomApply([add, triple], 0.0)(A).tolist() == [1, 2, 3]
    config.set_seed(11)
    choice, order = T.RandomChoice([add, triple]), T.RandomOrder([add, triple])
    seen_choice = {tuple(choice(A).tolist()) for _ in range(40)}
    seen_order = {tuple(order(A).tolist()) for _ in range(40)}
    assert seen_choice == {(2, 3, 4), (3, 6, 9)}
    assert seen_order == {(6, 9, 12), (4, 7, 10)}                                # (x + 1) * 3 or x * 3 + 1
    config.set_seed(11)
    first = [choice(A).tolist() for choice in [T.RandomChoice([add, triple])] for _ in range(10)]
    config.set_seed(11)
    second = [choice(A).tolist() for choice in [T.RandomChoice([add, triple])] for _ in range(10)]
    assert first == second


def test_in_a_pipeline():
    data = ds.NumpySlicesDataset({"x": np.arange(6, dtype=np.int32).reshape(3, 2)}, shuffle=False)
    data = data.map(operations=[T.PadEnd([4], -1), T.Mask(Relational.GE, 2)], input_columns="x")
    rows = [r["x"].tolist() for r in data.create_dict_iterator(output_numpy=True)]
    assert rows == [[False, False, False, False], [True, True, False, False], [True, True, False, False]]

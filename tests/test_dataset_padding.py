"""padded_batch and bucket_batch_by_length. Every expected batch below was measured on
MindSpore 2.10 (CPU) with the same pipelines; no MindSpore is needed here."""
import numpy as np
import pytest

import graphcell.dataset as ds


def _ac():
    """Row i: a = arange(i + 1) (int32), c = i (int64); 5 rows."""
    def gen():
        for i in range(5):
            yield np.arange(i + 1, dtype=np.int32), np.int64(i)
    return ds.GeneratorDataset(gen, ["a", "c"], shuffle=False)


def _b():
    """Row i: b = full((2, i % 3 + 1), i) (float32)."""
    def gen():
        for i in range(5):
            yield (np.full((2, i % 3 + 1), i, np.float32),)
    return ds.GeneratorDataset(gen, ["b"], shuffle=False)


def _rows(d):
    return [[x.tolist() for x in r] for r in d.create_tuple_iterator(output_numpy=True, num_epochs=1)]


@pytest.mark.parametrize("make, pad_info, batch, expected", [
    (_ac, {}, 2, [[[[0, 0], [0, 1]], [0, 1]], [[[0, 1, 2, 0], [0, 1, 2, 3]], [2, 3]], [[[0, 1, 2, 3, 4]], [4]]]),
    (_ac, {"a": (None, -1)}, 2,
     [[[[0, -1], [0, 1]], [0, 1]], [[[0, 1, 2, -1], [0, 1, 2, 3]], [2, 3]], [[[0, 1, 2, 3, 4]], [4]]]),
    (_ac, {"a": ([6], 7)}, 2, [[[[0, 7, 7, 7, 7, 7], [0, 1, 7, 7, 7, 7]], [0, 1]],
                               [[[0, 1, 2, 7, 7, 7], [0, 1, 2, 3, 7, 7]], [2, 3]], [[[0, 1, 2, 3, 4, 7]], [4]]]),
    # a shorter shape cuts the rows; a float pad value is cast to the column's int32
    (_ac, {"a": ([3], 2.7)}, 2, [[[[0, 2, 2], [0, 1, 2]], [0, 1]], [[[0, 1, 2], [0, 1, 2]], [2, 3]],
                                 [[[0, 1, 2]], [4]]]),
    (_b, {"b": ([3, None], 0)}, 3,
     [[[[[0, 0, 0], [0, 0, 0], [0, 0, 0]], [[1, 1, 0], [1, 1, 0], [0, 0, 0]], [[2, 2, 2], [2, 2, 2], [0, 0, 0]]]],
      [[[[3, 0], [3, 0], [0, 0]], [[4, 4], [4, 4], [0, 0]]]]]),
])
def test_padded_batch_as_mindspore(make, pad_info, batch, expected):
    assert _rows(make().padded_batch(batch, pad_info=pad_info)) == expected


def test_padded_batch_strings_sizes_and_plain_batching():
    def gen():
        for s in ["a", "bcd", "ef"]:
            yield (np.array([s] * len(s)),)
    d = ds.GeneratorDataset(gen, ["s"], shuffle=False)
    assert _rows(d.padded_batch(2, pad_info={"s": None})) == [[[["a", "", ""], ["bcd"] * 3]], [[["ef", "ef"]]]]
    out = _rows(d.padded_batch(2, pad_info={"s": (None, "x")}))
    assert out[0] == [[["a", "x", "x"], ["bcd"] * 3]]
    p = _ac().padded_batch(2, pad_info={"a": ([6], 0)})
    assert (p.get_dataset_size(), p.get_batch_size(), p.output_shapes()) == (3, 2, [[2, 6], [2]])
    assert [str(t) for t in p.output_types()] == ["int32", "int64"]
    with pytest.raises(RuntimeError, match="different shapes"):   # pad_info=None: batch as it is
        _rows(_ac().padded_batch(2))
    with pytest.raises(RuntimeError, match="rank of pad_shape must be equal"):
        _rows(_ac().padded_batch(2, pad_info={"a": ([2, 3], 0)}))
    with pytest.raises(RuntimeError, match="column name: zz does not exist"):
        _ac().padded_batch(2, pad_info={"zz": None})


@pytest.mark.parametrize("pad_info, error, message", [
    ([1], TypeError, "Argument pad_info with value [1] is not of type [<class 'dict'>], but got <class 'list'>."),
    ({1: None}, TypeError, "Argument key in pad_info with value 1 is not of type [<class 'str'>]"),
    ({"a": [None, 1]}, TypeError, "Argument value in pad_info with value [None, 1] is not of type [<class 'tuple'>]"),
    ({"a": ([6],)}, ValueError, "value of pad_info should be a tuple of size 2."),
    ({"a": ("x", 0)}, TypeError, "Argument shape in pad_info with value x is not of type [<class 'list'>]"),
    ({"a": ([-1], 0)}, ValueError, "Input dim of shape in pad_info is not within the required interval"),
])
def test_padded_batch_argument_errors(pad_info, error, message):
    with pytest.raises(error) as info:
        _ac().padded_batch(2, pad_info=pad_info)
    assert message in str(info.value)


_LENGTHS = [3, 1, 5, 2, 7, 4, 2, 6, 1, 8]


def _lengths():
    def gen():
        for i, n in enumerate(_LENGTHS):
            yield np.full(n, i, np.int32), np.int64(i)
    return ds.GeneratorDataset(gen, ["a", "c"], shuffle=False)


def _batches(d):
    """Each batch as (a's shape, c's rows)."""
    return [(list(a.shape), c.tolist()) for a, c in d.create_tuple_iterator(output_numpy=True, num_epochs=1)]


@pytest.mark.parametrize("kwargs, expected", [
    (dict(), [([2, 5], [0, 2]), ([2, 2], [1, 3]), ([2, 7], [4, 7]), ([2, 2], [6, 8]), ([1, 4], [5]), ([1, 8], [9])]),
    (dict(bucket_batch_sizes=[2, 3, 1], drop_remainder=True),
     [([2, 2], [1, 3]), ([1, 7], [4]), ([3, 5], [0, 2, 5]), ([1, 6], [7]), ([2, 2], [6, 8]), ([1, 8], [9])]),
    (dict(pad_info={"a": ([9], -1)}),
     [([2, 9], [0, 2]), ([2, 9], [1, 3]), ([2, 9], [4, 7]), ([2, 9], [6, 8]), ([1, 9], [5]), ([1, 9], [9])]),
    (dict(column_names=["a", "c"], element_length_function=lambda a, c: int(c) % 3 + 2),
     [([2, 5], [1, 2]), ([2, 3], [0, 3]), ([2, 7], [4, 5]), ([2, 6], [7, 8]), ([2, 8], [6, 9])]),
    # pad_to_bucket_boundary pads a None axis of the shape to the bucket's boundary - 1
    (dict(bucket_boundaries=[3, 6, 9], bucket_batch_sizes=[2] * 4, pad_info={"a": ([None], 5)},
          pad_to_bucket_boundary=True),
     [([2, 5], [0, 2]), ([2, 2], [1, 3]), ([2, 8], [4, 7]), ([2, 2], [6, 8]), ([1, 5], [5]), ([1, 8], [9])]),
])
def test_bucket_batch_by_length_as_mindspore(kwargs, expected):
    args = dict(column_names=["a"], bucket_boundaries=[3, 6], bucket_batch_sizes=[2, 2, 2])
    args.update(kwargs)
    d = _lengths().bucket_batch_by_length(**args)
    assert _batches(d) == expected
    assert (d.get_dataset_size(), d.get_batch_size()) == (len(expected), 1)


def test_bucket_batch_by_length_values_and_errors():
    d = _lengths().bucket_batch_by_length(["a"], [3, 6], [2, 2, 2], pad_info={"a": ([None], 5)},
                                          pad_to_bucket_boundary=True)
    first = next(iter(d.create_tuple_iterator(output_numpy=True, num_epochs=1)))
    assert first[0].tolist() == [[0, 0, 0, 5, 5], [2, 2, 2, 2, 2]]
    with pytest.raises(RuntimeError, match="last bucket has no boundary"):
        _batches(d)
    with pytest.raises(RuntimeError, match="greater than or equal to 0, but got-1"):
        _batches(_lengths().bucket_batch_by_length(["a"], [3], [2, 2], element_length_function=lambda a: -1))


@pytest.mark.parametrize("args, error, message", [
    ((["a"], [6, 3], [2, 2, 2]), ValueError, "bucket_boundaries should be strictly increasing."),
    ((["a"], [3, 6], [2, 2]), ValueError, "bucket_batch_sizes must contain one element more than bucket_boundaries."),
    ((["a"], [0, 3], [2, 2, 2]), ValueError, "bucket_boundaries must only contain positive numbers."),
    ((["a"], [], [2]), ValueError, "bucket_boundaries cannot be empty."),
    ((["a"], [3], [0, 2]), ValueError, "bucket_batch_sizes should be a list of positive numbers."),
    (("a", [3], [2, 2]), TypeError, "Argument column_names with value a is not of type [<class 'list'>]"),
    ((["a", "c"], [3], [2, 2]), ValueError, "If element_length_function is not specified, exactly one column"),
    ((["zz"], [3], [2, 2]), RuntimeError, "input column name: zz doesn't exist in the dataset columns"),
])
def test_bucket_batch_by_length_argument_errors(args, error, message):
    with pytest.raises(error) as info:
        _lengths().bucket_batch_by_length(*args)
    assert message in str(info.value)

"""Dataset.split against MindSpore 2.10's measured parts, counts and messages."""
import numpy as np
import pytest

import graphcell as ms
import graphcell.dataset as ds


def _ys(d):
    return [int(r[0]) for r in d.create_tuple_iterator(output_numpy=True)]


def _ten(shuffle=False):
    return ds.NumpySlicesDataset({"y": np.arange(10, dtype=np.int32)}, shuffle=shuffle)


@pytest.mark.parametrize("sizes, parts", [
    # measured on MindSpore 2.10 (randomize=False)
    ([0.8, 0.2], [[0, 1, 2, 3, 4, 5, 6, 7], [8, 9]]),
    ([0.33, 0.33, 0.34], [[0, 1, 2, 3], [4, 5, 6], [7, 8, 9]]),
    ([3, 7], [[0, 1, 2], [3, 4, 5, 6, 7, 8, 9]]),
    ([0.25, 0.75], [[0, 1], [2, 3, 4, 5, 6, 7, 8, 9]]),
    ([0.14, 0.43, 0.43], [[0, 1], [2, 3, 4, 5], [6, 7, 8, 9]]),
])
def test_split_in_order(sizes, parts):
    got = _ten().split(sizes, randomize=False)
    assert isinstance(got, tuple)
    assert [_ys(p) for p in got] == parts
    assert [p.get_dataset_size() for p in got] == [len(p) for p in parts]


@pytest.mark.parametrize("sizes, error, message", [
    ([0.05, 0.95], RuntimeError, "Split percentage 0.05 is too small."),
    ([3, 3], RuntimeError, "Sum of split sizes 6 is not equal to dataset size 10."),
    ([0.5, 0.6], ValueError, "sizes is a list of float, but the percentages do not sum up to 1."),
    ([0.0, 1.0], ValueError, "sizes is a list of float, but there should be no numbers outside the range (0, 1]."),
    ([], ValueError, "sizes cannot be empty."),
    ([-1, 11], ValueError, "sizes is a list of int, but there should be no negative or zero numbers."),
    ([0.5, 5], ValueError, "sizes should be list of int or list of float."),
])
def test_split_errors_are_mindspores(sizes, error, message):
    with pytest.raises(error) as info:
        _ten().split(sizes, randomize=False)
    assert str(info.value) == message


def test_randomized_parts_are_disjoint_and_stable_across_epochs():
    ds.config.set_seed(0)
    a, b = _ten().split([0.5, 0.5])
    first = _ys(a)
    assert sorted(first + _ys(b)) == list(range(10)) and first != sorted(first)
    assert _ys(a) == first                                   # the same rows, same order, next epoch


def test_split_of_a_shuffled_source_and_of_a_generator_and_a_map():
    a, b = _ten(shuffle=True).split([0.5, 0.5], randomize=False)
    assert sorted(_ys(a) + _ys(b)) == list(range(10))        # by index: no overlap whatever the shuffle

    def gen():
        for i in range(10):
            yield (np.int32(i),)
    a, b = ds.GeneratorDataset(gen, ["y"], shuffle=False).split([0.3, 0.7], randomize=False)
    assert (_ys(a), _ys(b)) == ([0, 1, 2], [3, 4, 5, 6, 7, 8, 9])
    ms.set_seed(3)
    a, b = ds.GeneratorDataset(gen, ["y"], shuffle=False).split([0.5, 0.5])
    assert sorted(_ys(a) + _ys(b)) == list(range(10))
    mapped = _ten().map(lambda y: y * 2, input_columns=["y"])
    a, b = mapped.split([0.5, 0.5], randomize=False)
    assert (_ys(a), _ys(b)) == ([0, 2, 4, 6, 8], [10, 12, 14, 16, 18])   # measured on 2.10

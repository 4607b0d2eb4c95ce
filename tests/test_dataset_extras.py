"""Samplers (WeightedRandomSampler, IterSampler, user-defined Sampler), measured on MindSpore
2.10 (CPU) where 2.10 is deterministic; random draws are checked for their properties (2.10's
mt19937 streams are not reproduced). No MindSpore is needed here."""
import numpy as np
import pytest

import graphcell.dataset as ds


def _ids(sampler, n=10, epochs=1):
    d = ds.NumpySlicesDataset(np.arange(n), sampler=sampler)
    rows = [int(r[0]) for r in d.create_tuple_iterator(output_numpy=True, num_epochs=epochs)]
    return rows, d.get_dataset_size()


class _Reverse(ds.Sampler):
    def __iter__(self):
        yield from range(4, -1, -1)


@pytest.mark.parametrize("sampler, n, expected", [
    (ds.IterSampler([3, 1, 1, 4]), 6, ([3, 1, 1, 4], 4)),
    (ds.IterSampler([3, 1, 2, 4], num_samples=2), 6, ([3, 1], 2)),
    (_Reverse(), 6, ([4, 3, 2, 1, 0], 5)),
    (_Reverse(num_samples=2), 6, ([4, 3], 2)),
])
def test_iterable_and_user_samplers_as_mindspore(sampler, n, expected):
    assert _ids(sampler, n) == expected


def test_sampler_indices_out_of_range():
    with pytest.raises(ValueError, match="index 9 is out of range for a dataset of 6 rows"):
        _ids(ds.IterSampler([3, 9]), 6)


def test_weighted_random_sampler():
    ds.config.set_seed(0)
    rows, size = _ids(ds.WeightedRandomSampler([0, 0, 1, 0, 0, 1, 0, 0, 0, 0], 6))
    assert size == 6 and len(rows) == 6 and set(rows) <= {2, 5}          # 2.10 drew [5, 5, 5, 5, 5, 2]
    rows, size = _ids(ds.WeightedRandomSampler([1, 1, 1, 1]), 6)         # fewer weights than rows: size 6
    assert size == 6 and set(rows) <= {0, 1, 2, 3}
    rows, size = _ids(ds.WeightedRandomSampler([1] * 10, 5, replacement=False))
    assert size == 5 and len(set(rows)) == 5
    assert _ids(ds.WeightedRandomSampler([1, 1, 1], 7), 3)[1] == 3        # capped at the rows, as 2.10
    rows, _ = _ids(ds.WeightedRandomSampler([1, 1, 0], 3, replacement=False), 6)
    assert sorted(rows[:2]) == [0, 1] and rows[2] == 2                    # 2.10: [1, 0, 2], zero weight last
    counts = np.bincount(_ids(ds.WeightedRandomSampler([1, 3], 2000), 2000)[0], minlength=2)
    assert 0.70 < counts[1] / 2000 < 0.80


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(weights="a"), TypeError, "type of weights element must be number, but got w[0]: a, type: <class 'str'>."),
    (dict(weights=[1], replacement=1), TypeError, "replacement must be a boolean value but was: 1."),
    (dict(weights=[]), ValueError, "WeightedRandomSampler: weights vector must not be empty"),
    (dict(weights=[-1, 1]), ValueError,
     "WeightedRandomSampler: weights vector must not contain negative numbers, got: weights[0] = -1.000000"),
    (dict(weights=[0, 0]), ValueError, "WeightedRandomSampler: elements of weights vector must not be all zero"),
])
def test_weighted_random_sampler_errors(kwargs, error, message):
    with pytest.raises(error) as info:
        ds.WeightedRandomSampler(**kwargs)
    assert str(info.value) == message


def test_weighted_random_sampler_more_weights_than_rows():
    with pytest.raises(ValueError, match="but got weight size: 8, num of data: 4"):
        _ids(ds.WeightedRandomSampler([1] * 8, 8), 4)


# -- DSCallback in map (events measured on MindSpore 2.10) --------------------------------------

class _Log(ds.DSCallback):
    def __init__(self, step_size=1):
        super().__init__(step_size)
        self.events = []

    def _add(self, kind, r):
        self.events.append((kind, r.cur_epoch_num, r.cur_step_num, r.cur_step_num_in_epoch))

    def ds_begin(self, r):
        self._add("begin", r)

    def ds_epoch_begin(self, r):
        self._add("eb", r)

    def ds_epoch_end(self, r):
        self._add("ee", r)

    def ds_step_begin(self, r):
        self._add("sb", r)

    def ds_step_end(self, r):
        self._add("se", r)


def _by_kind(events):
    # 2.10 interleaves step begins and ends by its workers' timing; each kind's order is fixed
    return {k: [e[1:3] for e in events if e[0] == k] for k in ("begin", "eb", "sb", "se", "ee")}


def test_ds_callbacks_as_mindspore():
    cb = _Log()
    it = ds.NumpySlicesDataset(np.arange(3), shuffle=False).map(lambda x: x, callbacks=cb) \
        .create_tuple_iterator(num_epochs=2, output_numpy=True)
    for _ in range(2):
        for _ in it:
            pass
    assert _by_kind(cb.events) == {"begin": [(0, 0)], "eb": [(1, 0), (2, 3)],
                                   "sb": [(1, 1), (1, 2), (1, 3), (2, 4), (2, 5), (2, 6)],
                                   "se": [(1, 1), (1, 2), (1, 3), (2, 4), (2, 5), (2, 6)], "ee": [(1, 3), (2, 6)]}
    assert cb.events[0] == ("begin", 0, 0, 0) and cb.events[2][3] == 1
    cb = _Log(step_size=2)
    d = ds.NumpySlicesDataset(np.arange(5), shuffle=False).map(lambda x: x, callbacks=[cb])
    assert [int(r[0]) for r in d.create_tuple_iterator(num_epochs=1, output_numpy=True)] == [0, 1, 2, 3, 4]
    assert _by_kind(cb.events) == {"begin": [(0, 0)], "eb": [(1, 0)], "sb": [(1, 1), (1, 3), (1, 5)],
                                   "se": [(1, 1), (1, 3), (1, 5)], "ee": [(1, 5)]}


def test_ds_callback_errors():
    with pytest.raises(ValueError, match=r"Input step_size is not within the required interval of \[1, 2147483647\]"):
        ds.DSCallback(step_size=0)
    with pytest.raises(TypeError, match=r"Argument callbacks\[0\] with value 1 is not of type"):
        ds.NumpySlicesDataset(np.arange(5)).map(lambda x: x, callbacks=[1])

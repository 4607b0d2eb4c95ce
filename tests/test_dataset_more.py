"""Dataset behaviour pinned to MindSpore 2.10: leaving a loop early, map's column order,
samplers' num_samples. Expected values were measured on MindSpore 2.10 (CPU) with the same
pipelines; no MindSpore is needed here."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import graphcell.dataset as ds

ROOT = Path(__file__).resolve().parent.parent

# -- leaving a loop early, then exiting ----------------------------------------------------------

_BREAK = """
import numpy as np, graphcell.dataset as ds
for x, in ds.NumpySlicesDataset(np.ones((100, 4), np.float32), shuffle=False).batch(2).create_tuple_iterator():
    break
print(x.shape)
"""
_NEXT = """
import numpy as np, graphcell.dataset as ds
print(next(iter(ds.NumpySlicesDataset(np.ones((100, 4), np.float32), shuffle=False).batch(2)
                .create_dict_iterator()))["column_0"].shape)
"""
# a map that computes with Tensors runs jax in the prefetch thread itself
_JAX_MAP = """
import numpy as np, graphcell as gc, graphcell.dataset as ds
d = ds.NumpySlicesDataset(np.ones((100, 4), np.float32), shuffle=False).map(lambda v: (gc.Tensor(v) * 2).asnumpy())
for x, in d.batch(2).create_tuple_iterator():
    break
print(x.shape)
"""


def test_leaving_a_loop_early_then_exiting_does_not_abort():
    # the prefetch thread used to be inside jax when the interpreter shut down: SIGABRT
    # ("terminate called ...") in most runs. One interpreter exit per run, so five runs.
    programs = [_BREAK, _NEXT, _JAX_MAP, _BREAK, _NEXT]
    procs = [subprocess.Popen([sys.executable, "-c", p], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for p in programs]
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, f"exit status {proc.returncode}\n{err[-2000:]}"
        assert out.strip() in ("(2, 4)", "[2, 4]"), out


def test_iterator_rows_are_tensors_made_by_the_consumer():
    import threading
    from graphcell import Tensor
    made_in = set()
    original = Tensor.__init__

    def spy(self, *args, **kwargs):
        made_in.add(threading.current_thread().name)
        original(self, *args, **kwargs)

    Tensor.__init__ = spy
    try:
        rows = list(ds.NumpySlicesDataset(np.arange(6.0), shuffle=False).batch(2).create_tuple_iterator(num_epochs=1))
    finally:
        Tensor.__init__ = original
    assert all(isinstance(r[0], Tensor) for r in rows) and len(rows) == 3
    assert made_in == {threading.current_thread().name}


# -- map: column order when the column count changes (measured on MindSpore 2.10) ------------------

def _four():
    a = np.arange(3, dtype=np.int32)
    return ds.NumpySlicesDataset({"a": a, "b": a + 10, "c": a + 100, "d": a + 1000}, shuffle=False)


def _first(d):
    return d.get_col_names(), [x.item() for x in next(iter(d.create_tuple_iterator(output_numpy=True,
                                                                                    num_epochs=1)))]


@pytest.mark.parametrize("ins, fn, outs, names, values", [
    # one column into two: the outputs first, then the untouched columns in order
    ("b", lambda v: (v, v + 1), ["b1", "b2"], ["b1", "b2", "a", "c", "d"], [10, 11, 0, 100, 1000]),
    ("d", lambda v: (v, v + 1), ["b1", "b2"], ["b1", "b2", "a", "b", "c"], [1000, 1001, 0, 10, 100]),
    (None, lambda v: (v, v + 1), ["b1", "b2"], ["b1", "b2", "b", "c", "d"], [0, 1, 10, 100, 1000]),
    ("b", lambda v: (v, v + 5), ["x", "b"], ["x", "b", "a", "c", "d"], [10, 15, 0, 100, 1000]),
    # two into one, and two into three
    (["c", "b"], lambda u, v: u + v, ["s"], ["s", "a", "d"], [110, 0, 1000]),
    (["b", "c"], lambda u, v: u + v, ["c"], ["c", "a", "d"], [110, 0, 1000]),
    (["b", "d"], lambda u, v: (u, v, u + v), ["x", "y", "z"], ["x", "y", "z", "a", "c"], [10, 1000, 1010, 0, 100]),
    # as many outputs as inputs: output k takes input k's place
    ("c", lambda v: v * 2, ["cc"], ["a", "b", "cc", "d"], [0, 10, 200, 1000]),
    (["d", "b"], lambda u, v: (u + 1, v + 1), ["x", "y"], ["a", "y", "c", "x"], [0, 11, 100, 1001]),
    (["b", "c"], lambda u, v: (u + 1, v + 1), ["c", "b"], ["a", "c", "b", "d"], [0, 11, 101, 1000]),
])
def test_map_column_order_as_mindspore(ins, fn, outs, names, values):
    assert _first(_four().map(fn, input_columns=ins, output_columns=outs)) == (names, values)


def test_map_output_named_like_a_kept_column_is_refused():
    # MindSpore 2.10 keeps one of the two same-named columns silently (b -> a gives a=15 and
    # loses the old a); we refuse instead
    with pytest.raises(ValueError, match="clash with the kept columns"):
        _four().map(lambda v: (v, v + 5), input_columns="b", output_columns=["a", "x"])


def test_map_refuses_column_order_as_mindspore_2_10():
    with pytest.raises(TypeError, match="column_order"):
        _four().map(lambda v: v, input_columns="b", column_order=["b", "a", "c", "d"])
    _four().map(lambda v: v, input_columns="b", max_rowsize=16, cache=None)  # 2.10's others pass


@pytest.mark.parametrize("ins, outs, names", [
    # as many outputs as inputs: in place, as map (measured)
    (["b"], ["bb"], ["a", "bb", "c", "d"]),
    (["d", "b"], ["x", "y"], ["a", "y", "c", "x"]),
    # fewer or more: outputs first (2.10 then lists the rest in a hash-map order; we keep theirs)
    (["b"], ["b1", "b2"], ["b1", "b2", "a", "c", "d"]),
    (["b", "c"], ["s"], ["s", "a", "d"]),
])
def test_per_batch_map_column_order(ins, outs, names):
    def per_batch(*cols):
        cols = cols[:-1]
        return tuple(cols[k % len(cols)] for k in range(len(outs)))
    d = _four().batch(2, per_batch_map=per_batch, input_columns=ins, output_columns=outs)
    assert d.get_col_names() == names
    assert len(next(iter(d.create_tuple_iterator(num_epochs=1, output_numpy=True)))) == len(names)


# -- samplers: num_samples never exceeds the rows (measured on MindSpore 2.10, 5 rows) -------------

@pytest.mark.parametrize("make, rows, batches", [
    (lambda: ds.RandomSampler(replacement=True, num_samples=7), 5, 3),
    (lambda: ds.RandomSampler(replacement=True, num_samples=3), 3, 2),
    (lambda: ds.RandomSampler(replacement=True), 5, 3),
    (lambda: ds.RandomSampler(num_samples=7), 5, 3),
    (lambda: ds.RandomSampler(num_samples=0), 5, 3),
    (lambda: ds.SequentialSampler(num_samples=7), 5, 3),
    (lambda: ds.SequentialSampler(start_index=2, num_samples=7), 3, 2),
    (lambda: ds.SubsetSampler([4, 0, 2], num_samples=7), 3, 2),
    (lambda: ds.SubsetRandomSampler([4, 0, 2], num_samples=2), 2, 1),
    (lambda: ds.DistributedSampler(2, 0, shuffle=False, num_samples=7), 3, 2),
])
def test_sampler_size_and_rows_agree(make, rows, batches):
    data = np.arange(5, dtype=np.int32)
    d = ds.NumpySlicesDataset(data, sampler=make())
    got = [int(r[0]) for r in d.create_tuple_iterator(output_numpy=True, num_epochs=1)]
    assert d.get_dataset_size() == len(got) == rows
    assert set(got) <= set(range(5))
    b = ds.NumpySlicesDataset(data, sampler=make()).batch(2)
    assert b.get_dataset_size() == sum(1 for _ in b.create_tuple_iterator(output_numpy=True, num_epochs=1)) == batches


def test_random_sampler_with_replacement_repeats_rows():
    from graphcell import set_seed
    set_seed(3)
    got = [int(r[0]) for r in ds.NumpySlicesDataset(np.arange(5), sampler=ds.RandomSampler(replacement=True))
           .create_tuple_iterator(output_numpy=True, num_epochs=1)]
    assert len(got) == 5 and len(set(got)) < 5   # seed 3 draws a repeat: replacement is honoured


# -- project, rename, filter, zip, concat, len (rows measured on MindSpore 2.10) -------------------

def _ab(n=5, names=("a", "b"), off=0):
    return ds.NumpySlicesDataset({names[0]: np.arange(n, dtype=np.int32) + off,
                                  names[1]: np.arange(n, dtype=np.int32) * 10 + off}, shuffle=False)


def _rows(d):
    return [[x.tolist() for x in r] for r in d.create_tuple_iterator(output_numpy=True, num_epochs=1)]


@pytest.mark.parametrize("make, names, rows", [
    (lambda: _ab().project(["b", "a"]), ["b", "a"], [[0, 0], [10, 1], [20, 2], [30, 3], [40, 4]]),
    (lambda: _ab().project("b"), ["b"], [[0], [10], [20], [30], [40]]),
    (lambda: _ab().rename("a", "x"), ["x", "b"], [[0, 0], [1, 10], [2, 20], [3, 30], [4, 40]]),
    (lambda: _ab().rename(["a", "b"], ["b", "a"]), ["b", "a"], [[0, 0], [1, 10], [2, 20], [3, 30], [4, 40]]),
    (lambda: _ab().filter(lambda a, b: a % 2 == 0), ["a", "b"], [[0, 0], [2, 20], [4, 40]]),
    (lambda: _ab().filter(lambda b: np.array(b > 20), input_columns=["b"]), ["a", "b"], [[3, 30], [4, 40]]),
    (lambda: _ab().filter(lambda a: int(a), input_columns="a"), ["a", "b"], [[1, 10], [2, 20], [3, 30], [4, 40]]),
    (lambda: _ab().zip(_ab(3, ("c", "d"))), ["a", "b", "c", "d"],
     [[0, 0, 0, 0], [1, 10, 1, 10], [2, 20, 2, 20]]),
    (lambda: ds.zip((_ab(), _ab(2, ("c", "d")))), ["a", "b", "c", "d"], [[0, 0, 0, 0], [1, 10, 1, 10]]),
    (lambda: _ab(2).concat([_ab(1, off=100), _ab(2, off=200)]), ["a", "b"],
     [[0, 0], [1, 10], [100, 100], [200, 200], [201, 210]]),
    (lambda: _ab(2) + _ab(3, off=100), ["a", "b"], [[0, 0], [1, 10], [100, 100], [101, 110], [102, 120]]),
])
def test_column_and_dataset_combinators_as_mindspore(make, names, rows):
    d = make()
    assert d.get_col_names() == names
    assert _rows(d) == rows
    assert d.get_dataset_size() == len(d) == len(rows)


def test_concat_of_batches_and_len():
    d = _ab(3).batch(2).concat(_ab(2, off=100).batch(2))
    assert len(d) == 3 and [r[0] for r in _rows(d)] == [[0, 1], [2], [100, 101]]    # 2.10
    assert len(_ab(5).batch(2)) == 3


@pytest.mark.parametrize("make, error, message", [
    (lambda: _ab().project(["z"]), ValueError, "column 'z' is not in"),
    (lambda: _ab().project(["a", "a"]), ValueError, "duplicate"),
    (lambda: _ab().rename(["a", "b"], ["x"]), ValueError, "2 input_columns"),
    (lambda: _ab().rename(["a"], ["b"]), ValueError, "two columns named 'b'"),
    (lambda: _ab().zip(_ab(3)), ValueError, "column 'a' is in two of the datasets"),
    (lambda: _ab(2).concat(_ab(3, ("b", "a"))), ValueError, "same columns in the same order"),
    (lambda: _ab().zip([1]), TypeError, "not a graphcell dataset"),
])
def test_combinator_errors(make, error, message):
    # 2.10 reports these when iterating (RuntimeError); we refuse them when the pipeline is built
    with pytest.raises(error, match=message):
        make()


def test_concat_refuses_a_dtype_change_and_filter_a_non_scalar():
    from graphcell.dataset import DatasetError
    floats = ds.NumpySlicesDataset({"a": np.zeros(2, np.float32), "b": np.zeros(2, np.float32)}, shuffle=False)
    with pytest.raises(DatasetError, match="column dtypes"):
        _rows(_ab(2).concat(floats))
    with pytest.raises(DatasetError, match="one bool"):
        _rows(_ab().batch(2).filter(lambda a: a > 0, input_columns="a"))


def test_zip_children_draw_their_own_shuffles():
    from graphcell import set_seed
    set_seed(5)
    a = ds.NumpySlicesDataset({"a": np.arange(20)}, shuffle=True)
    b = ds.NumpySlicesDataset({"b": np.arange(20)}, shuffle=True)
    rows = _rows(a.zip(b))
    assert sorted(r[0] for r in rows) == list(range(20))
    assert [r[0] for r in rows] != [r[1] for r in rows]   # same depth, different orders

"""graphcell.dataset against plain-Python references of MindSpore's documented behaviour."""
import struct
import threading

import numpy as np
import pytest

import graphcell as ms
from graphcell import dataset as ds
from graphcell.dataset import DatasetError


class Rows:
    """Random-access source: row i is (i as float32 [2], i as int32)."""

    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        return np.full(2, i, np.float32), np.int32(i)

    def __len__(self):
        return self.n


def ids(dataset, num_epochs=1, column=1):
    """Per epoch, the flat list of ids in column `column` (rows or batches)."""
    it = dataset.create_tuple_iterator(num_epochs=num_epochs, output_numpy=True)
    return [[int(v) for row in it for v in np.atleast_1d(row[column])] for _ in range(num_epochs)]


# -- the seed program's pipeline ---------------------------------------------------------------

class MyDataset:  # verbatim from seed_migration_trainer.py
    def __init__(self):
        self.data = np.random.sample((5, 2))
        self.label = np.random.sample((5, 1))

    def __getitem__(self, index):
        return self.data[index], self.label[index]

    def __len__(self):
        return len(self.data)


def test_seed_pipeline_two_batches_per_epoch_over_two_epochs():
    source = MyDataset()
    dataset = ds.GeneratorDataset(source=source, column_names=["data", "label"], num_parallel_workers=2,
                                  shuffle=True, num_shards=1, shard_id=0)
    train = dataset.batch(batch_size=2, drop_remainder=True, num_parallel_workers=2)
    assert train.get_dataset_size() == 2
    assert train.get_col_names() == ["data", "label"] and train.get_batch_size() == 2
    it = train.create_dict_iterator(num_epochs=2)
    for _ in range(2):  # the Trainer's loop: the same iterator, one `for` per epoch
        batches = [data for data in it]
        assert len(batches) == 2
        for b in batches:
            assert isinstance(b["data"], ms.Tensor) and b["data"].shape == (2, 2) and b["label"].shape == (2, 1)
            assert b["data"].dtype == ms.float64
        rows = np.concatenate([b["data"].asnumpy() for b in batches])
        # every batch row is a distinct source row, with its own label
        idx = [int(np.flatnonzero((source.data == r).all(axis=1))[0]) for r in rows]
        assert len(set(idx)) == 4
        labels = np.concatenate([b["label"].asnumpy() for b in batches])
        np.testing.assert_array_equal(labels, source.label[idx])


# -- order, seeds, shards --------------------------------------------------------------------

def test_unshuffled_order_and_tensor_output():
    d = ds.GeneratorDataset(Rows(5), ["x", "i"], shuffle=False)
    rows = list(d)
    assert [int(r[1]) for r in rows] == [0, 1, 2, 3, 4]
    assert rows[2][0].dtype == ms.float32 and rows[2][1].dtype == ms.int32
    np.testing.assert_array_equal(rows[3][0].asnumpy(), [3, 3])


def test_shuffle_is_deterministic_under_set_seed_and_reshuffles_each_epoch():
    make = lambda: ds.GeneratorDataset(Rows(20), ["x", "i"], shuffle=True, num_parallel_workers=3)  # noqa: E731
    ms.set_seed(7)
    first = ids(make(), num_epochs=3)
    ms.set_seed(7)
    again = ids(make(), num_epochs=3)
    ms.set_seed(8)
    other = ids(make(), num_epochs=3)
    assert first == again
    assert first != other
    for epoch in first:
        assert sorted(epoch) == list(range(20))
    assert first[0] != first[1] != first[2]  # a new order each epoch
    assert first[0] != list(range(20))


def test_buffer_shuffle_is_deterministic_and_a_permutation():
    make = lambda: ds.GeneratorDataset(Rows(30), ["x", "i"], shuffle=False).shuffle(8)  # noqa: E731
    ms.set_seed(3)
    a = ids(make(), num_epochs=2)
    ms.set_seed(3)
    assert ids(make(), num_epochs=2) == a
    assert sorted(a[0]) == sorted(a[1]) == list(range(30))
    assert a[0] != a[1] and a[0] != list(range(30))
    with pytest.raises(ValueError, match="buffer_size"):
        make().shuffle(1)


def test_shards_follow_mindspore_distributed_sampler_unshuffled():
    # MindSpore's DistributedSampler: ceil(n/S) rows per shard, shard k reads positions
    # k, k+S, ... and wraps around to the start.
    expected = {0: [0, 3, 6, 9], 1: [1, 4, 7, 0], 2: [2, 5, 8, 1]}
    for k, rows in expected.items():
        d = ds.GeneratorDataset(Rows(10), ["x", "i"], shuffle=False, num_shards=3, shard_id=k)
        assert d.get_dataset_size() == 4
        assert ids(d)[0] == rows


@pytest.mark.parametrize("n,shards", [(12, 3), (10, 3), (7, 4)])
def test_shuffled_shards_partition_the_data(n, shards):
    ms.set_seed(11)
    parts = [ids(ds.GeneratorDataset(Rows(n), ["x", "i"], num_shards=shards, shard_id=k), num_epochs=2)
             for k in range(shards)]
    per_shard = -(-n // shards)
    for epoch in range(2):
        rows = [p[epoch] for p in parts]
        assert all(len(r) == per_shard for r in rows)
        flat = [i for r in rows for i in r]
        assert set(flat) == set(range(n))  # the union is everything
        if n % shards == 0:
            assert len(flat) == n  # disjoint
        else:
            assert len(flat) - len(set(flat)) == per_shard * shards - n  # only the wrap-around padding repeats
    assert parts[0][0] != parts[0][1]  # reshuffled per epoch, consistently across shards


def test_shard_arguments_are_checked():
    with pytest.raises(ValueError, match="together"):
        ds.GeneratorDataset(Rows(4), ["x", "i"], num_shards=2)
    with pytest.raises(ValueError, match="shard_id"):
        ds.GeneratorDataset(Rows(4), ["x", "i"], num_shards=2, shard_id=2)
    with pytest.raises(ValueError, match="sampler and shuffle"):
        ds.GeneratorDataset(Rows(4), ["x", "i"], shuffle=True, sampler=ds.SequentialSampler())


def test_parallel_workers_keep_sampler_order():
    ms.set_seed(5)
    serial = ids(ds.GeneratorDataset(Rows(50), ["x", "i"], num_parallel_workers=1).batch(4), num_epochs=2)
    ms.set_seed(5)
    parallel = ids(ds.GeneratorDataset(Rows(50), ["x", "i"], num_parallel_workers=4).batch(4, num_parallel_workers=3),
                   num_epochs=2)
    assert serial == parallel


def test_samplers():
    assert ids(ds.GeneratorDataset(Rows(6), ["x", "i"], sampler=ds.SequentialSampler(2, 3)))[0] == [2, 3, 4]
    assert ids(ds.GeneratorDataset(Rows(6), ["x", "i"], sampler=[5, 0, 3]))[0] == [5, 0, 3]
    sub = ids(ds.GeneratorDataset(Rows(9), ["x", "i"], sampler=ds.SubsetRandomSampler([1, 4, 8])))[0]
    assert sorted(sub) == [1, 4, 8]
    assert ds.GeneratorDataset(Rows(9), ["x", "i"], num_samples=4).get_dataset_size() == 4
    assert len(ids(ds.GeneratorDataset(Rows(9), ["x", "i"], num_samples=4))[0]) == 4


# -- batch, map, repeat, take, skip ------------------------------------------------------------

@pytest.mark.parametrize("drop,expected", [(True, [[0, 1], [2, 3], [4, 5]]),
                                           (False, [[0, 1], [2, 3], [4, 5], [6]])])
def test_batch_drop_remainder_and_size(drop, expected):
    d = ds.GeneratorDataset(Rows(7), ["x", "i"], shuffle=False).batch(2, drop_remainder=drop)
    assert d.get_dataset_size() == len(expected)
    got = [b[1].tolist() for b in d.create_tuple_iterator(num_epochs=1, output_numpy=True)]
    assert got == expected
    xs = [b[0] for b in d.create_tuple_iterator(num_epochs=1, output_numpy=True)]
    np.testing.assert_array_equal(xs[1], [[2, 2], [3, 3]])


def test_repeat_take_skip_sizes_and_rows():
    base = ds.GeneratorDataset(Rows(5), ["x", "i"], shuffle=False)
    cases = [(base.repeat(3), list(range(5)) * 3),
             (base.take(3), [0, 1, 2]),
             (base.skip(2), [2, 3, 4]),
             (base.repeat(2).skip(3).take(4), [3, 4, 0, 1]),
             (base.batch(2).repeat(2), [0, 1, 2, 3, 4] * 2)]
    for d, rows in cases:
        assert ids(d)[0] == rows
    assert [d.get_dataset_size() for d, _ in cases] == [15, 3, 3, 4, 6]
    assert base.repeat().get_dataset_size() == -1
    assert ids(base.repeat().take(7))[0] == [0, 1, 2, 3, 4, 0, 1]


PIPELINES = {  # each reshuffles every epoch; rows are 10 ids, batched by 2 where named
    "sampler": lambda: ds.GeneratorDataset(Rows(10), ["x", "i"], shuffle=True, num_parallel_workers=2),
    "sampler, batched": lambda: ds.GeneratorDataset(Rows(10), ["x", "i"], shuffle=True).batch(2),
    "buffer shuffle": lambda: ds.GeneratorDataset(Rows(10), ["x", "i"], shuffle=False).shuffle(4),
}


@pytest.mark.parametrize("pipeline", sorted(PIPELINES))
@pytest.mark.parametrize("init_epoch, skipped", [(1, 0), (2, 0), (1, 3)])
def test_init_step_replays_the_uninterrupted_order(pipeline, init_epoch, skipped):
    """An iterator started at a global step (MindSpore's set_init_step, what Model.train uses to
    resume) reads what an uninterrupted iterator reads from that step on: the epoch number, not
    the iterator's own count, seeds the shuffle."""
    make = PIPELINES[pipeline]
    ms.set_seed(4)
    full = ids(make(), num_epochs=3, column=1)
    assert full[0] != full[1] != full[2]                      # else an epoch-0 replay would pass too
    dataset = make()
    size = dataset.get_dataset_size()
    dataset.set_init_step(init_epoch * size + skipped)
    assert dataset.batch(1).get_init_step() == init_epoch * size + skipped  # a child's step is inherited
    ms.set_seed(4)
    got = ids(dataset, num_epochs=3 - init_epoch, column=1)
    per_row = len(full[0]) // size                             # ids per row (2 once batched)
    want = [full[init_epoch][skipped * per_row:]] + full[init_epoch + 1:]
    assert got == want


def test_set_init_step_is_checked():
    dataset = ds.GeneratorDataset(Rows(4), ["x", "i"])
    assert dataset.get_init_step() == 0
    for bad in (-1, 1.5, True, None):
        with pytest.raises(ValueError, match="set_init_step: init_step must be a non-negative int"):
            dataset.set_init_step(bad)


def test_repeat_reshuffles_each_pass():
    ms.set_seed(2)
    got = ids(ds.GeneratorDataset(Rows(10), ["x", "i"]).repeat(2))[0]
    assert sorted(got[:10]) == sorted(got[10:]) == list(range(10))
    assert got[:10] != got[10:]


def test_map_one_and_many_columns():
    base = ds.GeneratorDataset(Rows(4), ["x", "i"], shuffle=False)
    d = base.map(lambda x: x * 10, input_columns="x")
    rows = list(d.create_tuple_iterator(num_epochs=1, output_numpy=True))
    np.testing.assert_array_equal(rows[3][0], [30, 30])
    chained = base.map([lambda i: i + 1, lambda i: i * 2], input_columns=["i"], num_parallel_workers=2)
    assert ids(chained)[0] == [2, 4, 6, 8]
    split = base.map(lambda x, i: (x.sum(), i, -i), input_columns=["x", "i"], output_columns=["s", "i", "neg"])
    assert split.get_col_names() == ["s", "i", "neg"]
    row = next(iter(split.create_dict_iterator(num_epochs=1, output_numpy=True)))
    assert row["s"] == 0 and row["neg"] == 0
    last = list(split.create_dict_iterator(num_epochs=1, output_numpy=True))[-1]
    assert (last["s"], last["i"], last["neg"]) == (6.0, 3, -3)
    with pytest.raises(ValueError, match="not in the dataset's columns"):
        base.map(lambda z: z, input_columns="z")
    with pytest.raises(RuntimeError, match="not in the dataset's columns"):   # 2.10's type, too
        base.map(lambda z: z, input_columns="z")


def test_per_batch_map():
    seen = []

    def add_offset(xs, ids_, info):
        seen.append((info.get_batch_num(), info.get_epoch_num()))
        return [x + info.get_batch_num() * 100 for x in xs], ids_

    d = ds.GeneratorDataset(Rows(5), ["x", "i"], shuffle=False).batch(
        2, per_batch_map=add_offset, input_columns=["x", "i"])
    it = d.create_tuple_iterator(num_epochs=2, output_numpy=True)
    epochs = [[b[0][:, 0].tolist() for b in it] for _ in range(2)]
    assert epochs[0] == epochs[1] == [[0, 1], [102, 103], [204]]
    assert sorted(seen) == sorted((b, e) for e in range(2) for b in range(3))
    renamed = ds.GeneratorDataset(Rows(4), ["x", "i"], shuffle=False).batch(
        2, per_batch_map=lambda i, info: (np.array([sum(i)]),), input_columns=["i"], output_columns=["isum"])
    assert renamed.get_col_names() == ["x", "isum"]
    assert [b["isum"].tolist() for b in renamed.create_dict_iterator(num_epochs=1, output_numpy=True)] == [[1], [5]]


def test_batch_of_unequal_shapes_is_a_clear_error():
    d = ds.GeneratorDataset([np.zeros(2), np.zeros(3)], ["v"], shuffle=False).batch(2)
    with pytest.raises(DatasetError, match=r"column 'v'.*different shapes"):
        list(d)


# -- iterators -------------------------------------------------------------------------------------

def test_dict_iterator_counts_epochs():
    it = ds.GeneratorDataset(Rows(3), ["x", "i"], shuffle=False).create_dict_iterator(num_epochs=2)
    assert [int(r["i"]) for r in it] == [0, 1, 2]
    assert [int(r["i"]) for r in it] == [0, 1, 2]
    with pytest.raises(RuntimeError, match="num_epochs=2"):
        next(it)
    with pytest.raises(ValueError, match="num_epochs"):
        ds.GeneratorDataset(Rows(3), ["x", "i"]).create_dict_iterator(num_epochs=0)


def test_tuple_iterator_columns_and_numpy():
    d = ds.GeneratorDataset(Rows(2), ["x", "i"], shuffle=False)
    rows = list(d.create_tuple_iterator(columns=["i"], num_epochs=1, output_numpy=True))
    assert len(rows[0]) == 1 and isinstance(rows[0][0], np.ndarray) and rows[1][0] == 1


def test_pipeline_prefetches_in_a_background_thread():
    read = threading.Event()
    threads = set()

    class Source(Rows):
        def __getitem__(self, i):
            threads.add(threading.current_thread())
            read.set()
            return super().__getitem__(i)

    it = ds.GeneratorDataset(Source(4), ["x", "i"], shuffle=False).create_tuple_iterator(num_epochs=1)
    assert read.wait(5.0)  # rows are read before anyone asks for them
    assert len(list(it)) == 4
    assert threading.main_thread() not in threads


# -- user errors -------------------------------------------------------------------------------------

class Faulty(Rows):
    def __getitem__(self, i):
        if i == 3:
            raise KeyError(f"no image for index {i}")
        return super().__getitem__(i)


@pytest.mark.parametrize("workers", [1, 3])
def test_source_exception_surfaces_with_its_traceback(workers):
    d = ds.GeneratorDataset(Faulty(6), ["x", "i"], shuffle=False, num_parallel_workers=workers).batch(2)
    it = d.create_dict_iterator(num_epochs=1)
    with pytest.raises(RuntimeError) as info:
        list(it)
    err = info.value
    assert isinstance(err, DatasetError)
    message = str(err)
    assert "GeneratorDataset(source=Faulty)" in message and "row 3" in message
    assert "KeyError" in message and "no image for index 3" in message
    assert "test_dataset.py" in message and "in __getitem__" in message  # the source's traceback
    assert isinstance(err.__cause__, KeyError)
    assert err.__cause__.__traceback__ is not None


def test_map_and_per_batch_map_exceptions_name_the_row():
    def broken(x):
        raise ValueError("bad pixel")
    d = ds.GeneratorDataset(Rows(3), ["x", "i"], shuffle=False).map(broken, input_columns="x")
    with pytest.raises(DatasetError, match=r"operation broken on row 0[\s\S]*bad pixel[\s\S]*in broken"):
        list(d)

    def bad_batch(x, info):
        raise ZeroDivisionError("oops")
    d = ds.GeneratorDataset(Rows(3), ["x", "i"], shuffle=False).batch(
        2, per_batch_map=bad_batch, input_columns=["x"])
    with pytest.raises(DatasetError, match=r"per_batch_map bad_batch on batch 0[\s\S]*ZeroDivisionError"):
        list(d)


def test_wrong_number_of_columns_is_a_clear_error():
    class Three(Rows):
        def __getitem__(self, i):
            return np.float32(i), np.int32(i), np.int32(0)

    d = ds.GeneratorDataset(Three(4), ["x", "i"], shuffle=False)
    with pytest.raises(DatasetError, match=r"GeneratorDataset\(source=Three\): row 0 .* returned 3 column\(s\), "
                                           r"but column_names has 2 \(\['x', 'i'\]\)"):
        list(d)


def test_constructor_errors():
    with pytest.raises(ValueError, match="column_names is required"):
        ds.GeneratorDataset(Rows(2))

    def gen():
        yield (np.array(1),)
    with pytest.raises(ValueError, match="random-access"):
        ds.GeneratorDataset(gen, ["a"], shuffle=True)


def test_iterable_sources_rerun_each_epoch():
    def gen():
        for i in range(4):
            yield np.array([i, i]), np.array(i)
    d = ds.GeneratorDataset(gen, ["x", "i"])
    assert d.get_dataset_size() == 4  # counted by iterating, as MindSpore does
    assert ids(d.batch(3), num_epochs=2) == [[0, 1, 2, 3]] * 2
    assert ids(ds.GeneratorDataset(gen, ["x", "i"], num_samples=2))[0] == [0, 1]


# -- NumpySlicesDataset, MnistDataset -----------------------------------------------------------------

def test_numpy_slices_dataset():
    d = ds.NumpySlicesDataset({"a": np.arange(6).reshape(3, 2), "b": [7, 8, 9]}, shuffle=False)
    assert d.get_col_names() == ["a", "b"]
    rows = list(d.create_tuple_iterator(num_epochs=1, output_numpy=True))
    np.testing.assert_array_equal(rows[2][0], [4, 5])
    assert [int(r[1]) for r in rows] == [7, 8, 9]
    t = ds.NumpySlicesDataset((np.zeros((4, 3)), np.arange(4)), shuffle=False)
    assert t.get_col_names() == ["column_0", "column_1"] and t.get_dataset_size() == 4
    one = ds.NumpySlicesDataset([1.5, 2.5], column_names=["v"], shuffle=False)
    assert [float(r[0]) for r in one] == [1.5, 2.5]
    with pytest.raises(ValueError, match="rows"):
        ds.NumpySlicesDataset((np.zeros(3), np.zeros(4)))


def _write_idx(path, array, magic):
    with open(path, "wb") as f:
        f.write(struct.pack(">i", magic) + b"".join(struct.pack(">i", d) for d in array.shape))
        f.write(array.astype(np.uint8).tobytes())


def test_mnist_dataset_reads_idx_files(tmp_path):
    rng = np.random.default_rng(0)
    train_x, test_x = rng.integers(0, 256, (5, 28, 28)), rng.integers(0, 256, (3, 28, 28))
    train_y, test_y = rng.integers(0, 10, 5), rng.integers(0, 10, 3)
    _write_idx(tmp_path / "train-images-idx3-ubyte", train_x, 2051)
    _write_idx(tmp_path / "train-labels-idx1-ubyte", train_y, 2049)
    _write_idx(tmp_path / "t10k-images-idx3-ubyte", test_x, 2051)
    _write_idx(tmp_path / "t10k-labels-idx1-ubyte", test_y, 2049)

    test = ds.MnistDataset(str(tmp_path), usage="test", shuffle=False)
    assert test.get_col_names() == ["image", "label"] and test.get_dataset_size() == 3
    rows = list(test.create_tuple_iterator(num_epochs=1, output_numpy=True))
    assert rows[0][0].shape == (28, 28, 1) and rows[0][0].dtype == np.uint8 and rows[0][1].dtype == np.uint32
    np.testing.assert_array_equal(np.stack([r[0][..., 0] for r in rows]), test_x)
    np.testing.assert_array_equal([r[1] for r in rows], test_y)

    every = ds.MnistDataset(str(tmp_path), shuffle=False).batch(4)
    labels = [b["label"].asnumpy() for b in every.create_dict_iterator(num_epochs=1)]
    # usage="all" reads t10k (test) before train: measured on MindSpore 2.10
    np.testing.assert_array_equal(np.concatenate(labels), np.concatenate([test_y, train_y]))
    assert ds.MnistDataset(str(tmp_path), usage="train").get_dataset_size() == 5

    _write_idx(tmp_path / "t10k-labels-idx1-ubyte", test_y, 2051)
    with pytest.raises(ValueError, match="magic number 2051, expected 2049"):
        ds.MnistDataset(str(tmp_path), usage="test")
    with pytest.raises(ValueError, match="does not exist or is not a directory"):
        ds.MnistDataset(str(tmp_path / "missing"))


def test_rows_of_different_dtypes_and_generator_objects_are_refused():
    """Found by fuzzing the pipeline: float32 and int32 rows batched into float64, and a
    generator object (not function) was used up by counting the size: 0 rows after it."""
    def rows():
        yield (np.float32(1.0),)
        yield (np.int32(2),)
    with pytest.raises(DatasetError, match=r"different dtypes \['float32', 'int32'\]"):
        list(ds.GeneratorDataset(rows, column_names=["x"]).batch(2))
    with pytest.raises(TypeError, match="pass the generator function itself"):
        ds.GeneratorDataset(rows(), column_names=["x"])

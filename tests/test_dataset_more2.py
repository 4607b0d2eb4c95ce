"""PaddedDataset (+ concat use_sampler), Schema/RandomDataset, apply, sync_wait/sync_update,
num_classes/get_class_indexing, device_que, PKSampler and WaitedDSCallback; expected values
measured on MindSpore 2.10 unless said otherwise."""
import json
import struct
import threading

import numpy as np
import pytest

import graphcell as ms
import graphcell.dataset as ds
from graphcell import Model, nn


def _rows(d, column=None):
    out = []
    for r in d.create_tuple_iterator(output_numpy=True, num_epochs=1):
        out.append([x.tolist() for x in r] if column is None else r[column].tolist())
    return out


# -- PaddedDataset --------------------------------------------------------------------------------------
def test_padded_dataset_rows_and_types():
    p = ds.PaddedDataset([{"image": np.zeros(3, np.uint8), "label": np.array(1, np.int32)},
                          {"image": np.ones(2, np.uint8), "label": np.array(2, np.int32)}])
    assert p.get_col_names() == ["image", "label"] and p.get_dataset_size() == 2
    assert _rows(p) == [[[0, 0, 0], 1], [[1, 1], 2]]           # in order, no shuffle
    assert p.output_types() == [np.uint8, np.int32] and p.output_shapes() == [[3], []]
    values = [r for r in ds.PaddedDataset([{"a": 1}, {"a": 2.5}]).create_tuple_iterator(output_numpy=True)]
    assert [v[0].dtype for v in values] == [np.int64, np.float64]   # 2.10: int64, float64


def test_padded_dataset_errors():
    with pytest.raises(ValueError, match="padded_samples cannot be empty"):
        ds.PaddedDataset([])
    with pytest.raises(TypeError, match="padded_samples with value .* is not of type"):
        ds.PaddedDataset({"a": 1})
    with pytest.raises(TypeError, match="padded_element with value 1 is not of type"):
        ds.PaddedDataset([1, 2])
    with pytest.raises(RuntimeError, match="same keys"):
        _rows(ds.PaddedDataset([{"a": [1, 2]}, {"b": [1]}]))


@pytest.mark.parametrize("shard, expected", [(0, [0, 3, 6]), (1, [1, 4, -1]), (2, [2, 5, -2])])
def test_concat_with_padding_sharded(shard, expected):
    # 2.10: 7 rows + 2 pads over 3 shards, DistributedSampler(shuffle=False) on the concat
    c = ds.NumpySlicesDataset({"a": np.arange(7)}, shuffle=False) + \
        ds.PaddedDataset([{"a": np.array(-1)}, {"a": np.array(-2)}])
    c.use_sampler(ds.DistributedSampler(num_shards=3, shard_id=shard, shuffle=False))
    assert c.get_dataset_size() == 3 and _rows(c, 0) == expected


def test_concat_use_sampler_needs_unshuffled_shards():
    c = ds.NumpySlicesDataset({"a": np.arange(5)}, shuffle=False) + ds.PaddedDataset([{"a": np.array(-1)}])
    with pytest.raises(ValueError, match="The parameter shuffle of DistributedSampler must be False!"):
        c.use_sampler(ds.DistributedSampler(3, 0, shuffle=True))
    c.use_sampler(ds.DistributedSampler(3, 2, shuffle=False))
    assert _rows(c, 0) == [2, -1]                                 # 2.10


# -- Schema and RandomDataset ---------------------------------------------------------------------------
def test_schema_json():
    s = ds.Schema()
    s.add_column("a", "int64")
    s.add_column("b", ms.string)
    s.add_column("c", ms.bool_, [2, 3])
    # 2.10's to_json (a column without a shape has rank 1)
    assert json.loads(s.to_json()) == {"columns": [
        {"name": "a", "rank": 1, "type": "int64"}, {"name": "b", "rank": 1, "type": "string"},
        {"name": "c", "rank": 2, "shape": [2, 3], "type": "bool"}]}
    assert str(s) == s.to_json() and s.to_json().startswith('{\n  "columns": [\n    {\n      "name": "a"')
    with pytest.raises(TypeError, match="Unknown column type."):
        s.add_column("x", np.float32)
    with pytest.raises(TypeError, match="Argument name with value 3 is not of type"):
        s.add_column(3, "int32")
    with pytest.raises(TypeError, match=r"Argument shape with value \(2,\) is not of type \[<class 'list'>\]"):
        s.add_column("d", "uint8", shape=(2,))


def test_random_dataset_follows_schema():
    s = ds.Schema()
    s.add_column("image", de_type=ms.uint8, shape=[2, 3])
    s.add_column("label", de_type=ms.int32, shape=[1])
    s.add_column("x", de_type="float32")
    d = ds.RandomDataset(schema=s, total_rows=4, num_samples=2)   # 2.10 ignores num_samples here
    rows = list(d.create_tuple_iterator(output_numpy=True, num_epochs=1))
    assert d.get_dataset_size() == 4 and len(rows) == 4
    assert [(r.dtype, r.shape) for r in rows[0]] == [(np.uint8, (2, 3)), (np.int32, (1,)), (np.float32, ())]
    assert all((r[0] == r[0].flat[0]).all() for r in rows)       # one value repeated over the shape (2.10)
    again = list(d.create_tuple_iterator(output_numpy=True, num_epochs=1))
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(rows, again))
    only = ds.RandomDataset(schema=s, columns_list=["label"], total_rows=2)
    assert only.get_col_names() == ["label"] and len(_rows(only)) == 2


def test_random_dataset_without_schema():
    d = ds.RandomDataset(total_rows=3)
    names = d.get_col_names()
    assert 1 <= len(names) <= 4 and names == [f"c{k}" for k in range(len(names))]
    row = next(d.create_tuple_iterator(output_numpy=True, num_epochs=1))
    assert len(row) == len(names) and all(1 <= a.ndim <= 4 for a in row)
    s = ds.Schema()
    s.add_column("x", "int8")
    assert 1 <= ds.RandomDataset(schema=s).get_dataset_size() <= 1024   # no total_rows: a random count


# -- apply, sync_wait, num_classes, device_que ------------------------------------------------------------
def test_apply():
    d = ds.NumpySlicesDataset({"a": np.arange(6)}, shuffle=False)
    assert _rows(d.apply(lambda x: x.batch(2)), 0) == [[0, 1], [2, 3], [4, 5]]
    with pytest.raises(TypeError, match="apply_func must return a dataset."):
        d.apply(lambda x: 3)
    with pytest.raises(TypeError, match="apply_func must be a function."):
        d.apply(3)


def test_sync_wait_blocks_until_update():
    seen = []
    d = ds.NumpySlicesDataset({"a": np.arange(4)}, shuffle=False).sync_wait("c", num_batch=1, callback=seen.append)
    it = d.create_tuple_iterator(num_epochs=1, output_numpy=True)
    assert next(it)[0] == 0
    got = []
    reader = threading.Thread(target=lambda: got.append(next(it)[0]))
    reader.start()
    reader.join(0.3)
    assert reader.is_alive() and not got                     # row 1 waits for sync_update
    d.sync_update("c", data={"step": 0})
    reader.join(5)
    assert got == [1] and seen == [{"step": 0}]
    d.sync_update("c", num_batch=2)
    assert [next(it)[0], next(it)[0]] == [2, 3] and seen[-1] is None   # 2.10 calls back with None too


def test_sync_errors():
    d = ds.NumpySlicesDataset({"a": np.arange(6)})
    with pytest.raises(ValueError, match="num_batch need to be greater than 0."):
        d.sync_wait("x", 0)
    with pytest.raises(TypeError, match="Argument condition_name with value 3 is not of type"):
        d.sync_wait(3)
    gated = d.sync_wait("c").batch(1)
    with pytest.raises(RuntimeError, match="Condition name not found."):
        gated.sync_update("zz")
    with pytest.raises(RuntimeError, match="Sync_update batch size can only be positive integer, got: 0."):
        gated.sync_update("c", num_batch=0)


def test_num_classes_and_class_indexing(tmp_path):
    for folder in ("a", "b", "c"):
        (tmp_path / folder).mkdir()
    (tmp_path / "a" / "1.jpg").write_bytes(b"xx")
    (tmp_path / "b" / "1.jpg").write_bytes(b"xx")
    d = ds.ImageFolderDataset(str(tmp_path))
    assert d.num_classes() == 3 and d.batch(1).get_class_indexing() == {"a": 0, "b": 1, "c": 2}   # 2.10
    d = ds.ImageFolderDataset(str(tmp_path), class_indexing={"a": 5, "b": 7})
    assert d.num_classes() == 2 and d.get_class_indexing() == {"a": 5, "b": 7}
    plain = ds.NumpySlicesDataset({"a": np.arange(3)})
    assert plain.num_classes() is None and plain.get_class_indexing() == {}


def test_device_que_says_what_to_use():
    with pytest.raises(NotImplementedError, match="create_tuple_iterator"):
        ds.NumpySlicesDataset({"a": np.arange(3)}).device_que()


# -- PKSampler --------------------------------------------------------------------------------------------
_LABELS = [0, 1, 0, 2, 1, 0, 0, 2, 1, 0]


def _mnist(tmp_path):
    images = np.repeat(np.arange(10, dtype=np.uint8), 28 * 28).reshape(10, 28, 28)  # image i is all i
    (tmp_path / "train-images-idx3-ubyte").write_bytes(struct.pack(">iiii", 2051, 10, 28, 28) + images.tobytes())
    (tmp_path / "train-labels-idx1-ubyte").write_bytes(struct.pack(">ii", 2049, 10) +
                                                       np.array(_LABELS, np.uint8).tobytes())
    return str(tmp_path)


def _pk_rows(d):
    return [(int(r["image"][0, 0, 0]), int(r["label"])) for r in d.create_dict_iterator(output_numpy=True,
                                                                                          num_epochs=1)]


@pytest.mark.parametrize("kwargs, size", [(dict(num_val=2), 6), (dict(num_val=4), 12), (dict(num_val=1), 3),
                                          (dict(num_val=2, num_samples=3), 3), (dict(num_val=2, shuffle=True), 6)])
def test_pk_sampler_on_mnist(tmp_path, kwargs, size):
    d = ds.MnistDataset(_mnist(tmp_path), usage="train", sampler=ds.PKSampler(**kwargs))
    rows = _pk_rows(d)
    assert d.get_dataset_size() == size and len(rows) == size            # sizes as 2.10
    assert all(_LABELS[image] == label for image, label in rows)          # rows of the class
    labels = [label for _, label in rows]
    k = kwargs["num_val"]
    blocks = [labels[i:i + k] for i in range(0, len(labels), k)]
    assert all(len(set(b)) == 1 for b in blocks)                          # num_val rows per class, together
    if not kwargs.get("shuffle"):
        assert labels == sorted(labels)                                   # classes ascending
    if k == 4:   # class 2 has 2 rows: drawn with replacement (2.10 also repeats in class 0's 5 rows)
        assert labels == [0] * 4 + [1] * 4 + [2] * 4


def test_pk_sampler_errors():
    with pytest.raises(TypeError, match="shuffle must be a boolean value but was: 1."):
        ds.PKSampler(2, shuffle=1)
    with pytest.raises(TypeError, match="class_column must be a str value but was: 3."):
        ds.PKSampler(2, class_column=3)
    with pytest.raises(TypeError, match="num_val must be integer but was: 2.0."):
        ds.PKSampler(2.0)
    with pytest.raises(ValueError, match=r"num_samples exceeds the boundary between 0 and 9223372036854775807"):
        ds.PKSampler(2, num_samples=-1)
    with pytest.raises(ValueError, match="GeneratorDataset doesn't support PKSampler."):
        ds.NumpySlicesDataset({"image": np.zeros((3, 1)), "label": np.arange(3)}, sampler=ds.PKSampler(2))
    with pytest.raises(ValueError, match="GeneratorDataset doesn't support PKSampler."):
        ds.GeneratorDataset([(np.zeros(1), 1)] * 3, ["image", "label"], sampler=ds.PKSampler(2))


# -- WaitedDSCallback -------------------------------------------------------------------------------------
def test_waited_ds_callback_follows_training():
    events = []

    class Curriculum(ds.WaitedDSCallback):
        def sync_epoch_begin(self, train_run_context, ds_run_context):
            events.append(("epoch", ds_run_context.cur_epoch_num, train_run_context is not None))

        def sync_step_begin(self, train_run_context, ds_run_context):
            events.append(("step", ds_run_context.cur_step_num, train_run_context.original_args().cur_step_num))

    cb = Curriculum(step_size=2)   # the batch size: one map step per training step
    data = ds.NumpySlicesDataset({"x": np.ones((4, 4), np.float32), "y": np.zeros(4, np.int32)}, shuffle=False)
    data = data.map(lambda x: x, input_columns="x", callbacks=[cb]).batch(2)
    net = nn.Dense(4, 3)
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                  nn.Momentum(net.trainable_params(), 0.1, 0.9))
    model.train(2, data, callbacks=[cb])
    # map steps 3 (epoch 1), 5 and 7 (epoch 2) wait for the training step before them
    assert events == [("step", 3, 1), ("epoch", 2, True), ("step", 5, 2), ("step", 7, 3)]


def test_waited_ds_callback_is_both_kinds():
    cb = ds.WaitedDSCallback()
    assert isinstance(cb, ds.DSCallback) and isinstance(cb, ms.train.Callback)

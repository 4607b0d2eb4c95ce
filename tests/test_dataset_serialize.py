"""dataset.serialize / deserialize / show / compare and Dataset.to_json (dataset/serialize.py):
the JSON layouts below were measured by serialising the same pipelines under MindSpore 2.10
(2 CPUs, so the default num_parallel_workers is 2); deserialising rebuilds pipelines that read
the same rows."""
import json
import logging
import struct

import numpy as np
import pytest

import graphcell.dataset as ds
import graphcell.dataset.transforms as T
import graphcell.dataset.vision as vision


def _source(kind, path, **extra):
    return {"children": [], "connector_queue_size": 16, "num_parallel_workers": 2, "op_type": kind, **extra}


def _text(path, shuffle=0):
    return _source("TextFileDataset", path, dataset_files=[path], num_samples=0, num_shards=1, shard_id=0,
                   shuffle=shuffle)


SEQUENTIAL = {"num_samples": 0, "sampler_name": "SequentialSampler", "start_index": 0}
RANDOM = {"num_samples": 0, "replacement": False, "reshuffle_each_epoch": True, "sampler_name": "RandomSampler",
          "shuffle_mode": 2}
# measured on 2.10: the operations' JSON in one map (ImageFolderDataset's with decode=True; False here)
OPS = [{"tensor_op_name": "Decode", "tensor_op_params": {"device_target": "CPU", "rgb": True}},
       {"tensor_op_name": "Resize", "tensor_op_params": {"device_target": "CPU", "interpolation": 0, "size": [4, 5]}},
       {"tensor_op_name": "Rescale", "tensor_op_params": {"rescale": 0.003921568859368563, "shift": 0.0}},
       {"tensor_op_name": "Normalize", "tensor_op_params": {"device_target": "CPU", "is_hwc": True,
                                                            "mean": [0.10000000149011612],
                                                            "std": [0.30000001192092896]}},
       {"tensor_op_name": "HwcToChw", "tensor_op_params": None},
       {"tensor_op_name": "TypeCast", "tensor_op_params": {"data_type": "int32"}},
       {"tensor_op_name": "RandomCrop", "tensor_op_params": {"fill_value": [0, 0, 0], "pad_if_needed": False,
                                                             "padding": [0, 0, 0, 0], "padding_mode": 0,
                                                             "size": [3, 3]}},
       {"tensor_op_name": "CenterCrop", "tensor_op_params": {"size": [2, 2]}},
       {"tensor_op_name": "RandomHorizontalFlip", "tensor_op_params": {"prob": 0.30000001192092896}},
       {"tensor_op_name": "OneHot", "tensor_op_params": {"num_classes": 10, "smoothing_rate": 0.0}}]


@pytest.fixture
def files(tmp_path):
    def idx(name, array, magic):
        (tmp_path / "mnist" / name).write_bytes(struct.pack(">i", magic) + b"".join(
            struct.pack(">i", d) for d in array.shape) + array.astype(np.uint8).tobytes())
    (tmp_path / "mnist").mkdir()
    for part in ("train", "t10k"):
        idx(f"{part}-images-idx3-ubyte", np.arange(3 * 28 * 28).reshape(3, 28, 28) % 251, 2051)
        idx(f"{part}-labels-idx1-ubyte", np.array([1, 2, 3]), 2049)
    (tmp_path / "cifar").mkdir()
    (tmp_path / "cifar" / "data_batch_1.bin").write_bytes(bytes(1 + 3072))
    (tmp_path / "folder" / "a").mkdir(parents=True)
    (tmp_path / "folder" / "a" / "x.jpg").write_bytes(b"not read when serialising")
    (tmp_path / "t.txt").write_text("hello\nworld\n")
    (tmp_path / "x.csv").write_text("a,b\n1,2\n3,4\n")
    return tmp_path


def test_sources_and_ops_serialise_as_mindspore(files):
    mnist, text, csv = str(files / "mnist"), str(files / "t.txt"), str(files / "x.csv")
    assert ds.serialize(ds.MnistDataset(mnist)) == _source("MnistDataset", mnist, dataset_dir=mnist, sampler=RANDOM,
                                                           usage="all")
    assert ds.serialize(ds.MnistDataset(mnist, usage="train", num_samples=5, shuffle=False)) == _source(
        "MnistDataset", mnist, dataset_dir=mnist, usage="train", sampler={**SEQUENTIAL, "num_samples": 5})
    cifar = str(files / "cifar")
    assert ds.serialize(ds.Cifar10Dataset(cifar, shuffle=True)) == _source(
        "Cifar10Dataset", cifar, dataset_dir=cifar, sampler=RANDOM, usage="all")
    folder = str(files / "folder")
    assert ds.serialize(ds.ImageFolderDataset(folder, decode=False, class_indexing={"a": 0}, extensions=[".jpg"])) == \
        _source("ImageFolderDataset", folder, class_indexing={"a": 0}, dataset_dir=folder, decode=False,
                extensions=[".jpg"], recursive=False, sampler=RANDOM)
    assert ds.serialize(ds.CSVDataset([csv], column_names=["a", "b"], shuffle=False)) == _source(
        "CSVDataset", csv, column_names=["a", "b"], dataset_files=[csv], field_delim=",", num_samples=0,
        num_shards=1, shard_id=0, shuffle=0)
    assert ds.serialize(ds.CSVDataset(csv, field_delim=";", column_defaults=[1, 2.0], num_samples=2,
                                      shuffle=ds.Shuffle.FILES, num_shards=2, shard_id=1)) == _source(
        "CSVDataset", csv, column_names=[], dataset_files=[csv], field_delim=";", num_samples=2, num_shards=2,
        shard_id=1, shuffle=1)
    assert ds.serialize(ds.TextFileDataset([text])) == _text(text, shuffle=2)
    mapped = ds.MnistDataset(mnist, shuffle=False).map(
        [vision.Resize((4, 5)), vision.Rescale(1 / 255, 0.0), vision.Normalize([0.1], [0.3]), vision.HWC2CHW(), T.TypeCast(np.int32), vision.RandomCrop(3), vision.CenterCrop(2),
         vision.RandomHorizontalFlip(0.3), T.OneHot(10)], input_columns="image", num_parallel_workers=2)
    assert ds.serialize(mapped) == {
        "callback": [], "children": [_source("MnistDataset", mnist, dataset_dir=mnist, sampler=SEQUENTIAL,
                                             usage="all")],
        "connector_queue_size": 16, "input_columns": ["image"], "num_parallel_workers": 2, "op_type": "Map",
        "operations": OPS[1:], "output_columns": ["image"]}    # Decode needs Pillow, not installed here


def test_dataset_ops_serialise_as_mindspore(files):
    path = str(files / "t.txt")
    leaf = _text(path)

    def text():
        return ds.TextFileDataset(path, shuffle=False)
    assert ds.serialize(text().batch(3)) == {"batch_size": 3, "children": [leaf], "connector_queue_size": 16,
                                             "drop_remainder": False, "input_columns": [], "num_parallel_workers": 2,
                                             "op_type": "Batch", "output_columns": []}
    assert ds.serialize(text().shuffle(7)) == {"buffer_size": 7, "children": [leaf], "op_type": "Shuffle",
                                               "reset_each_epoch": True}
    assert ds.serialize(text().project("text")) == {"children": [leaf], "columns": ["text"], "op_type": "Project"}
    assert ds.serialize(text().rename("text", "x")) == {"children": [leaf], "input_columns": ["text"],
                                                        "op_type": "Rename", "output_columns": ["x"]}
    for name, node, count in (("Take", text().take(3), 3), ("Skip", text().skip(2), 2), ("Repeat", text().repeat(), -1)):
        assert ds.serialize(node) == {"children": [leaf], "count": count, "op_type": name}
    assert ds.serialize(text().concat([text(), text()])) == {
        "children": [leaf] * 3, "children_flag_and_nums": [[1, 2]] * 3, "children_sizes": [2, 2, 2],
        "children_start_end_index": [[-1, -1]] * 3, "op_type": "Concat", "sampler": SEQUENTIAL}
    assert ds.serialize(ds.zip((text(), text().rename("text", "y")))) == {
        "children": [leaf, {"children": [leaf], "input_columns": ["text"], "op_type": "Rename",
                            "output_columns": ["y"]}],
        "connector_queue_size": 16, "num_parallel_workers": 2, "op_type": "Zip"}
    assert ds.serialize(text().map(T.TypeCast(np.int32), input_columns=["text"], output_columns=["y"])) == {
        "callback": [], "children": [leaf], "connector_queue_size": 16, "input_columns": ["text"],
        "num_parallel_workers": 2, "op_type": "Map", "operations": [OPS[5]], "output_columns": ["y"]}
    # 2.10's serialisation of a Python pipeline: the source's data and the lambda are not recorded
    slices = ds.NumpySlicesDataset({"a": np.arange(6), "b": np.arange(6) * 2}, shuffle=False)
    tree = slices.map(lambda x: x).batch(2, drop_remainder=True).repeat(2).to_json()
    assert json.dumps(tree) == (
        '{"children": [{"batch_size": 2, "children": [{"callback": [], "children": [{"children": [], '
        '"connector_queue_size": 16, "num_parallel_workers": 1, "op_type": "GeneratorDataset"}], '
        '"connector_queue_size": 16, "input_columns": [], "num_parallel_workers": 2, "op_type": "Map", '
        '"operations": [{"python_module": "mindspore.dataset.transforms.py_transforms_util", '
        '"tensor_op_name": "<lambda>"}], "output_columns": []}], "connector_queue_size": 16, '
        '"drop_remainder": true, "input_columns": [], "num_parallel_workers": 2, "op_type": "Batch", '
        '"output_columns": []}], "count": 2, "op_type": "Repeat"}')
    with pytest.raises(ValueError, match=r"the map operation '<lambda>' cannot be rebuilt .*Python callable"):
        ds.deserialize(tree)
    with pytest.raises(ValueError, match="a GeneratorDataset cannot be rebuilt"):
        ds.deserialize(tree["children"][0]["children"][0]["children"][0])
    with pytest.raises(ValueError, match="unknown op_type 'Foo'"):
        ds.deserialize({"op_type": "Foo", "children": []})


def _rows(dataset):
    return [tuple(np.asarray(c) for c in row) for row in dataset.create_tuple_iterator(output_numpy=True)]


def test_deserialise_rebuilds_the_pipeline(files, caplog):
    mnist, text = str(files / "mnist"), str(files / "t.txt")
    images = ds.MnistDataset(mnist, usage="train", shuffle=False).map(
        [vision.Resize((4, 5)), vision.Rescale(1 / 255, 0.0), vision.Normalize([0.1], [0.3]), vision.HWC2CHW(),
         vision.CenterCrop(2)], input_columns="image").map(T.OneHot(10), input_columns=["label"])
    pipeline = images.batch(2).repeat(2).skip(1).take(2).project(["label", "image"]).rename("label", "y")
    path = files / "pipeline.json"
    tree = ds.serialize(pipeline, str(path))
    assert json.loads(path.read_text()) == tree and not list(files.glob(".serialize-*"))   # written atomically
    for rebuilt in (ds.deserialize(input_dict=tree), ds.deserialize(json_filepath=str(path))):
        got, want = _rows(rebuilt), _rows(pipeline)
        assert len(got) == len(want) == 2
        for a, b in zip(got, want):
            for x, y in zip(a, b):
                np.testing.assert_array_equal(x, y)
        assert ds.compare(rebuilt, pipeline)

    def lines():
        return ds.TextFileDataset(text, shuffle=False)
    joined = ds.zip((lines().concat(lines()), lines().repeat(2).rename("text", "other")))
    assert [[str(c) for c in r] for r in _rows(ds.deserialize(ds.serialize(joined)))] == \
        [[str(c) for c in r] for r in _rows(joined)]
    assert not ds.compare(lines().batch(2), lines().batch(3))
    with caplog.at_level(logging.INFO, logger="graphcell.dataset.serialize"):
        ds.show(lines(), 1)
    assert '\n "op_type": "TextFileDataset",' in caplog.text


def _reader_tree(root):
    """One folder that every corpus reader below can read (each looks at its own files)."""
    import wave
    for wav in ("0_1_0_0_1_0_1_0.wav", "yes/a_nohash_0.wav", "wavs/LJ1.wav", "blues/blues.00029.wav"):
        (root / wav).parent.mkdir(parents=True, exist_ok=True)
        with wave.open(str(root / wav), "wb") as f:
            f.setnchannels(1), f.setsampwidth(2), f.setframerate(22050), f.writeframes(bytes(4))
    texts = {"metadata.csv": "LJ1|a|a\n", "dev-clean/1/2/1_2.trans.tsv": "1_2_3\ta\ta\n",
             "cmu_us_bdl_arctic/etc/txt.done.data": '( arctic_a0001 "a" )\n', "test.txt": "w NN B\n",
             "en-ud-tag.v2.dev.txt": "w\tNN\tNN\n", "dev/stm/t.stm": "t 1 s 0.0 0.1 <o> a\n",
             "data/stm/t.stm": "t 1 s 0.0 0.1 <o> a\n"}
    texts.update({f"{p}.{lang}": "a\n" for p in ("training/train", "validation/val", "mmt16_task1_test/test")
                  for lang in ("en", "de")})
    seg = '<mteval><doc><seg id="1">a</seg></doc></mteval>'
    texts.update({"texts/en/de/en-de/IWSLT16.TED.dev2010.en-de.en.xml": seg,
                  "texts/en/de/en-de/IWSLT16.TED.dev2010.en-de.de.xml": seg})
    iwslt17 = "texts/DeEnItNlRo/DeEnItNlRo/DeEnItNlRo-DeEnItNlRo"
    texts.update({f"{iwslt17}/IWSLT17.TED.tst2010.it-ro.{lang}.xml": seg for lang in ("it", "ro")})
    for name, text in texts.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return str(root)


def test_corpus_readers_serialise_as_mindspore(tmp_path):
    d = _reader_tree(tmp_path)
    sharded = {"num_samples": 0, "num_shards": 1, "shard_id": 0}
    # (dataset, 2.10's JSON for it less children/connector_queue_size/dataset_dir), measured on MindSpore 2.10
    cases = [
        (ds.YesNoDataset(d), {"num_parallel_workers": 2, "op_type": "YesNoNode", "sampler": RANDOM}),
        (ds.YesNoDataset(d, num_samples=3, shuffle=False, num_parallel_workers=1),
         {"num_parallel_workers": 1, "op_type": "YesNoNode", "sampler": {**SEQUENTIAL, "num_samples": 3}}),
        (ds.SpeechCommandsDataset(d, usage="valid"), {"num_parallel_workers": 2, "op_type": "SpeechCommandsDataset",
                                                      "sampler": RANDOM, "usage": "valid"}),
        (ds.SpeechCommandsDataset(d), {"num_parallel_workers": 2, "op_type": "SpeechCommandsDataset",
                                       "sampler": RANDOM, "usage": "all"}),
        (ds.LJSpeechDataset(d), {"num_parallel_workers": 2, "op_type": "LJSpeechDataset", "sampler": RANDOM}),
        (ds.LibriTTSDataset(d, usage="dev-clean"), {"num_parallel_workers": 2, "op_type": "LibriTTSDataset",
                                                    "sampler": RANDOM, "usage": "dev-clean"}),
        (ds.GTZANDataset(d, usage="train"), {"num_parallel_workers": 2, "op_type": "kGTZANNode", "sampler": RANDOM,
                                             "usage": "train"}),
        (ds.CMUArcticDataset(d, name="bdl"), {"name": "bdl", "num_parallel_workers": 2, "op_type": "CMUArcticDataset",
                                              "sampler": RANDOM}),
        (ds.TedliumDataset(d, "release1", usage="dev"),
         {"extensions": ".sph", "num_parallel_workers": 2, "op_type": "TedliumDataset", "release": "release1",
          "sampler": RANDOM, "usage": "dev"}),
        (ds.TedliumDataset(d, "release3"),
         {"extensions": ".sph", "num_parallel_workers": 2, "op_type": "TedliumDataset", "release": "release3",
          "sampler": RANDOM, "usage": "all"}),
        (ds.CoNLL2000Dataset(d, usage="test", shuffle=False),
         {"num_parallel_workers": 2, **sharded, "op_type": "CoNLL2000Node", "shuffle": 0, "usage": "test"}),
        (ds.UDPOSDataset(d, usage="valid", shuffle=ds.Shuffle.FILES, num_samples=5),
         {"num_parallel_workers": 2, **sharded, "num_samples": 5, "op_type": "UDPOSNode", "shuffle": 1,
          "usage": "valid"}),
        (ds.Multi30kDataset(d, usage="train", language_pair=["de", "en"]),     # 2.10 records no usage
         {"language_pair": ["de", "en"], "num_parallel_workers": 2, **sharded, "op_type": "Multi30kDataset",
          "shuffle": 2}),
        (ds.Multi30kDataset(d, num_samples=2, num_parallel_workers=1),
         {"language_pair": ["en", "de"], "num_parallel_workers": 1, **sharded, "num_samples": 2,
          "op_type": "Multi30kDataset", "shuffle": 2}),
        (ds.IWSLT2016Dataset(d, usage="valid", language_pair=["en", "de"], valid_set="dev2010", test_set="tst2012"),
         {"language_pair": ["en", "de"], "num_parallel_workers": 2, **sharded, "op_type": "IWSLT2016Dataset",
          "shuffle": 2, "test_set": "tst2012", "usage": "valid", "valid_set": "dev2010"}),
        (ds.IWSLT2017Dataset(d, usage="test", language_pair=("it", "ro"), shuffle=False),
         {"language_pair": ["it", "ro"], "num_parallel_workers": 2, **sharded, "op_type": "IWSLT2017Dataset",
          "shuffle": 0, "usage": "test"}),
    ]
    for dataset, expected in cases:
        tree = ds.serialize(dataset)
        assert tree == {"children": [], "connector_queue_size": 16, "dataset_dir": d, **expected}
        assert list(tree) == sorted(tree)
        # 2.10 rebuilds only LJSpeechDataset from its JSON; graphcell rebuilds each, reading the same rows
        rebuilt = ds.deserialize(tree)
        assert type(rebuilt) is type(dataset) and ds.serialize(rebuilt) == tree
        if tree["op_type"] == "Multi30kDataset":      # without a usage it reads all three files
            assert rebuilt.get_dataset_size() == min(3, tree["num_samples"] or 3)
        else:
            assert rebuilt.get_dataset_size() == dataset.get_dataset_size()
    tree = ds.serialize(ds.CoNLL2000Dataset(d, usage="test", num_shards=2, shard_id=1))
    assert (tree["num_shards"], tree["shard_id"], tree["shuffle"]) == (2, 1, 2)
    assert ds.serialize(ds.deserialize(tree)) == tree

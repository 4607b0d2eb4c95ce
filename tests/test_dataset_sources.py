"""File-reading datasets: CIFAR-10/100 binaries, the MNIST family, CSV and text files, image folders,
and vision.Decode. Files are written here in their real formats; orders, dtypes, shapes and
messages marked "measured" were measured on MindSpore 2.10 with the same files."""
import struct
import zlib

import numpy as np
import pytest

from graphcell import dataset as ds


def _rows(dataset, **kw):
    return list(dataset.create_tuple_iterator(num_epochs=1, output_numpy=True, **kw))


def _texts(dataset):
    return [str(r[0]) for r in _rows(dataset)]


# -- CIFAR ------------------------------------------------------------------------------------------

def _cifar_records(labels, seed):
    """CIFAR records: the label bytes of each row, then a CHW 3x32x32 image."""
    images = np.random.default_rng(seed).integers(0, 256, (len(labels), 3, 32, 32), dtype=np.uint8)
    raw = b"".join(bytes(lab) + img.tobytes() for lab, img in zip(labels, images))
    return raw, images.transpose(0, 2, 3, 1)


def test_cifar10_reads_batches_in_file_order(tmp_path):
    files = {"data_batch_2.bin": [[3], [4]], "data_batch_1.bin": [[0], [1], [2]], "test_batch.bin": [[7], [8]]}
    images = {}
    for seed, (name, labels) in enumerate(files.items()):
        raw, images[name] = _cifar_records(labels, seed)
        (tmp_path / name).write_bytes(raw)
    (tmp_path / "readme.html").write_text("ignored")

    train = ds.Cifar10Dataset(str(tmp_path), usage="train", shuffle=False)
    assert train.get_col_names() == ["image", "label"] and train.get_dataset_size() == 5
    rows = _rows(train)
    assert rows[0][0].dtype == np.uint8 and rows[0][0].shape == (32, 32, 3)       # HWC, measured
    assert rows[0][1].dtype == np.uint32 and rows[0][1].shape == ()
    np.testing.assert_array_equal(np.stack([r[0] for r in rows]),
                                  np.concatenate([images["data_batch_1.bin"], images["data_batch_2.bin"]]))
    # "all" (the default) is the train batches then test_batch, in file-name order (measured)
    assert [int(r[1]) for r in _rows(ds.Cifar10Dataset(str(tmp_path), shuffle=False))] == [0, 1, 2, 3, 4, 7, 8]
    assert [int(r[1]) for r in _rows(ds.Cifar10Dataset(str(tmp_path), usage="test", shuffle=False))] == [7, 8]
    # the sampler plumbing of the other sources: shard 1 of 3 reads positions 1, 4 (measured layout)
    sharded = ds.Cifar10Dataset(str(tmp_path), usage="train", shuffle=False, num_shards=3, shard_id=1,
                                num_parallel_workers=2)
    assert sharded.get_dataset_size() == 2 and [int(r[1]) for r in _rows(sharded)] == [1, 4]
    some = ds.Cifar10Dataset(str(tmp_path), sampler=ds.SequentialSampler(start_index=2, num_samples=3))
    assert [int(r[1]) for r in _rows(some)] == [2, 3, 4]
    assert ds.Cifar10Dataset(str(tmp_path), num_samples=4).get_dataset_size() == 4

    (tmp_path / "data_batch_3.bin").write_bytes(b"\x00" * 100)
    with pytest.raises(ValueError, match="Invalid cifar-10 file, failed to read data from: .*data_batch_3.bin"):
        ds.Cifar10Dataset(str(tmp_path), usage="train")


def test_cifar100_columns_and_all_order(tmp_path):
    train_raw, train_images = _cifar_records([[1, 11], [2, 22]], 0)
    test_raw, test_images = _cifar_records([[5, 55]], 1)
    (tmp_path / "train.bin").write_bytes(train_raw)
    (tmp_path / "test.bin").write_bytes(test_raw)
    every = ds.Cifar100Dataset(str(tmp_path), shuffle=False)
    assert every.get_col_names() == ["image", "coarse_label", "fine_label"]
    rows = _rows(every)
    # "all" is test.bin then train.bin, in file-name order (measured)
    assert [(int(r[1]), int(r[2])) for r in rows] == [(5, 55), (1, 11), (2, 22)]
    assert all(r[1].dtype == np.uint32 and r[2].dtype == np.uint32 for r in rows)
    np.testing.assert_array_equal(np.stack([r[0] for r in rows]), np.concatenate([test_images, train_images]))
    assert ds.Cifar100Dataset(str(tmp_path), usage="train").get_dataset_size() == 2


def test_cifar_and_mnist_argument_errors(tmp_path):
    # messages measured on MindSpore 2.10
    for cls in (ds.Cifar10Dataset, ds.Cifar100Dataset, ds.MnistDataset, ds.FashionMnistDataset, ds.KMnistDataset):
        with pytest.raises(ValueError, match="The folder .*missing does not exist or is not a directory or "
                                             "permission denied!"):
            cls(str(tmp_path / "missing"))
        with pytest.raises(ValueError, match=r"Input usage is not within the valid set of \['train', 'test', 'all'\]"):
            cls(str(tmp_path), usage="valid")
        with pytest.raises(TypeError, match="Argument usage with value 1 is not of type"):
            cls(str(tmp_path), usage=1)
    with pytest.raises(RuntimeError, match="Cifar10Dataset API can't read the data file"):
        ds.Cifar10Dataset(str(tmp_path))
    (tmp_path / "test_batch.bin").write_bytes(_cifar_records([[1]], 0)[0])
    with pytest.raises(ValueError, match="sampler and shuffle cannot be specified at the same time"):
        ds.Cifar10Dataset(str(tmp_path), shuffle=False, sampler=ds.SequentialSampler())
    with pytest.raises(ValueError, match="num_shards and shard_id must be given together"):
        ds.Cifar10Dataset(str(tmp_path), num_shards=2)


def _write_idx(path, array, magic):
    path.write_bytes(struct.pack(">i", magic) + b"".join(struct.pack(">i", d) for d in array.shape)
                     + array.astype(np.uint8).tobytes())


@pytest.mark.parametrize("cls", [ds.FashionMnistDataset, ds.KMnistDataset])
def test_mnist_family_reads_mnist_files_test_first(tmp_path, cls):
    images = np.arange(5 * 28 * 28).reshape(5, 28, 28) % 256
    _write_idx(tmp_path / "train-images-idx3-ubyte", images[:3], 2051)
    _write_idx(tmp_path / "train-labels-idx1-ubyte", np.array([5, 0, 4]), 2049)
    _write_idx(tmp_path / "t10k-images-idx3-ubyte", images[3:], 2051)
    _write_idx(tmp_path / "t10k-labels-idx1-ubyte", np.array([7, 2]), 2049)
    rows = _rows(cls(str(tmp_path), shuffle=False))
    assert [int(r[1]) for r in rows] == [7, 2, 5, 0, 4]          # "all": test then train (measured)
    assert rows[0][0].shape == (28, 28, 1) and rows[0][0].dtype == np.uint8 and rows[0][1].dtype == np.uint32
    np.testing.assert_array_equal(rows[2][0][..., 0], images[0])
    assert cls(str(tmp_path), usage="train", num_samples=2).get_dataset_size() == 2


# -- TextFileDataset and CSVDataset ----------------------------------------------------------------

@pytest.fixture
def five_files(tmp_path):
    """g1..g5 with 1, 5, 1, 2 and 3 lines."""
    for k, n in enumerate([1, 5, 1, 2, 3], 1):
        (tmp_path / f"g{k}.txt").write_text("".join(f"g{k}-{j}\n" for j in range(1, n + 1)))
    return str(tmp_path / "g*.txt")


def test_text_files_interleave_as_mindspore(five_files):
    # file i goes to worker i % workers, the workers give one row each in turn; measured on MindSpore 2.10
    assert _texts(ds.TextFileDataset(five_files, shuffle=False, num_parallel_workers=2)) == [
        "g1-1", "g2-1", "g3-1", "g2-2", "g5-1", "g2-3", "g5-2", "g2-4", "g5-3", "g2-5", "g4-1", "g4-2"]
    in_order = _texts(ds.TextFileDataset(five_files, shuffle=False, num_parallel_workers=1))
    assert in_order == ["g1-1", "g2-1", "g2-2", "g2-3", "g2-4", "g2-5", "g3-1", "g4-1", "g4-2", "g5-1", "g5-2", "g5-3"]
    measured_shards = {(2, 3, 1): ["g2-4", "g3-1", "g2-5", "g4-1"],
                       (2, 2, 1): ["g3-1", "g4-1", "g5-1", "g4-2", "g5-2", "g5-3"],
                       (1, 5, 4): ["g1-1", "g2-1", "g2-2"],          # the last shard wraps to the start
                       (2, 5, 4): ["g1-1", "g2-1", "g2-2"]}
    for (workers, shards, shard), expected in measured_shards.items():
        d = ds.TextFileDataset(five_files, shuffle=False, num_parallel_workers=workers, num_shards=shards,
                               shard_id=shard)
        assert d.get_dataset_size() == len(expected) and _texts(d) == expected
    d = ds.TextFileDataset(five_files, shuffle=False, num_parallel_workers=2, num_shards=2, shard_id=1, num_samples=2)
    assert _texts(d) == ["g3-1", "g4-1"]


def test_text_file_lines_are_numpy_strings(tmp_path):
    (tmp_path / "b.txt").write_bytes(b"other file\nlast")
    (tmp_path / "a.txt").write_bytes(b"hello world\r\nsecond line\n\n  \nfourth\n")
    d = ds.TextFileDataset([str(tmp_path / "b.txt"), str(tmp_path / "a.txt")], shuffle=False, num_parallel_workers=1)
    assert d.get_col_names() == ["text"] and d.get_dataset_size() == 6
    # files sorted by path, empty lines skipped, '\r' kept (measured)
    assert _texts(d) == ["hello world\r", "second line", "  ", "fourth", "other file", "last"]
    row = next(d.create_dict_iterator(num_epochs=1))        # Tensor iterator: text stays numpy (measured)
    assert isinstance(row["text"], np.ndarray) and row["text"].shape == () and row["text"].dtype.kind == "U"
    batch = next(d.batch(2).create_tuple_iterator(num_epochs=1, output_numpy=True))
    assert batch[0].tolist() == ["hello world\r", "second line"]


def test_file_shuffle_modes(five_files):
    ds.config.set_seed(3)
    lines = sorted(_texts(ds.TextFileDataset(five_files, shuffle=False)))
    files_only = ds.TextFileDataset(five_files, shuffle=ds.Shuffle.FILES, num_parallel_workers=1)
    epochs = [[str(r[0]) for r in it] for it in [files_only.create_tuple_iterator(num_epochs=2, output_numpy=True)]
              for _ in range(2)]
    for order in epochs:                                     # files move, a file's lines stay together in order
        assert sorted(order) == lines
        assert all(order[order.index(f"g2-{j}") + 1] == f"g2-{j + 1}" for j in range(1, 5))
    shuffled = ds.TextFileDataset(five_files, num_parallel_workers=1)   # default Shuffle.GLOBAL
    it = shuffled.create_tuple_iterator(num_epochs=2, output_numpy=True)
    first, second = [[str(r[0]) for r in it] for _ in range(2)]
    assert sorted(first) == sorted(second) == lines and first != second
    # shuffled shards permute the files identically, so together they read every row once
    shards = [_texts(ds.TextFileDataset(five_files, num_shards=3, shard_id=s)) for s in range(3)]
    assert sorted(sum(shards, [])) == lines
    # measured: INFILE (and PARTIAL, ADAPTIVE) leave the order of these datasets unchanged in 2.10
    assert _texts(ds.TextFileDataset(five_files, shuffle=ds.Shuffle.INFILE, num_parallel_workers=1)) == \
        _texts(ds.TextFileDataset(five_files, shuffle=False, num_parallel_workers=1))
    with pytest.raises(TypeError, match="shuffle must be of boolean or enum of 'Shuffle' values"):
        ds.TextFileDataset(five_files, shuffle="yes")


def test_csv_columns_types_and_headers(tmp_path):
    (tmp_path / "num.csv").write_text('1,2.5,x,7\n 3,4.5,"y,z",8x\n')
    d = ds.CSVDataset(str(tmp_path / "num.csv"), column_defaults=[0, 0.0, ""], column_names=list("abcd"),
                      shuffle=False)
    rows = _rows(d)
    # measured: int -> int32, float -> float32, str and columns past the defaults -> numpy strings, all shape []
    assert [r.dtype.kind if r.dtype.kind == "U" else r.dtype for r in rows[0]] == [np.int32, np.float32, "U", "U"]
    assert [[v.tolist() for v in r] for r in rows] == [[1, 2.5, "x", "7"], [3, 4.5, "y,z", "8x"]]
    ints = _rows(ds.CSVDataset(str(tmp_path / "num.csv"), column_defaults=[0, 0, "", 1], column_names=list("abcd"),
                               shuffle=False))
    assert [[v.tolist() for v in r] for r in ints] == [[1, 2, "x", 7], [3, 4, "y,z", 8]]   # stoi prefixes, measured

    (tmp_path / "h1.csv").write_text("a;b\n1;x\n2;y\n")
    (tmp_path / "h2.csv").write_text("a;b\n3;z\n")
    both = [str(tmp_path / "h2.csv"), str(tmp_path / "h1.csv")]
    d = ds.CSVDataset(both, field_delim=";", shuffle=False, num_parallel_workers=2)
    assert d.get_col_names() == ["a", "b"]                   # the header line of every file (measured)
    assert [r[0].tolist() for r in _rows(d)] == ["1", "3", "2"]
    named = ds.CSVDataset(both, field_delim=";", column_names=["p", "q"], shuffle=False, num_parallel_workers=1)
    assert [r[0].tolist() for r in _rows(named)] == ["a", "1", "2", "a", "3"]    # no header skipped (measured)


def test_csv_errors(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("1,\n2,3\n")
    # messages measured on MindSpore 2.10
    with pytest.raises(RuntimeError, match="parse failed at line 1, type does not match"):
        ds.CSVDataset(str(path), column_defaults=[0, 0], column_names=["a", "b"])     # empty numeric field
    with pytest.raises(ValueError, match="field_delim is invalid"):
        ds.CSVDataset(str(path), field_delim=";;")
    with pytest.raises(TypeError, match="column type in column_defaults is invalid"):
        ds.CSVDataset(str(path), column_defaults=[np.int32(0)])
    with pytest.raises(ValueError, match="duplicate column names are not allowed: a"):
        ds.CSVDataset(str(path), column_names=["a", "a"])
    with pytest.raises(TypeError, match="column_names should be a list of str"):
        ds.CSVDataset(str(path), column_names=["a", 1])
    with pytest.raises(RuntimeError, match="at line 1: it has 2 fields, but there are 3 columns"):
        ds.CSVDataset(str(path), column_names=["a", "b", "c"])
    (tmp_path / "b.csv").write_text("x,y\n")
    with pytest.raises(RuntimeError, match="failed to obtain column name from input csv file list"):
        ds.CSVDataset([str(path), str(tmp_path / "b.csv")])
    with pytest.raises(ValueError, match=r"The following patterns did not match any files: \['.*none.csv'\]"):
        ds.CSVDataset(str(tmp_path / "none.csv"))
    with pytest.raises(ValueError, match="Input dataset_files can not be empty, but got '\\[\\]'"):
        ds.TextFileDataset([])
    with pytest.raises(TypeError, match="Argument dataset_files with value 5 is not of type"):
        ds.TextFileDataset(5)
    with pytest.raises(ValueError, match=r"Input shard_id is not within the required interval of \[0, 1\]"):
        ds.TextFileDataset(str(path), num_shards=2, shard_id=2)


# -- ImageFolderDataset and Decode -----------------------------------------------------------------

def _png(pixels: np.ndarray) -> bytes:
    """An 8-bit PNG: grey [H, W], RGB [H, W, 3] or RGBA [H, W, 4]."""
    color_type = {2: 0, 3: {3: 2, 4: 6}.get(pixels.shape[-1])}[pixels.ndim]
    raw = b"".join(b"\x00" + row.tobytes() for row in pixels.astype(np.uint8))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", pixels.shape[1], pixels.shape[0], 8, color_type, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


@pytest.fixture
def image_folder(tmp_path):
    rng = np.random.default_rng(0)
    pixels = {}
    for cls, names in [("dog", ["b.png", "a.png", "c.txt"]), ("cat", ["z.PNG", "y.jpg"]), ("bird", [])]:
        (tmp_path / cls).mkdir()
        for name in names:
            if name.lower().endswith(".png"):
                pixels[f"{cls}/{name}"] = rng.integers(0, 256, (2, 3, 3))
                (tmp_path / cls / name).write_bytes(_png(pixels[f"{cls}/{name}"]))
            else:
                (tmp_path / cls / name).write_bytes(b"\xff\xd8\xff not really" if name.endswith("jpg") else b"text")
    (tmp_path / "stray.png").write_bytes(b"x")
    return tmp_path, pixels


def test_image_folder_rows_labels_and_raw_bytes(image_folder):
    root, _ = image_folder
    d = ds.ImageFolderDataset(str(root), shuffle=False)
    # measured: classes are the folders in name order (an empty one still counts), files in name order,
    # every file when extensions is None, none of dataset_dir's own files; image = the bytes, uint8 [n]
    assert d.get_class_indexing() == {"bird": 0, "cat": 1, "dog": 2}
    files = ["cat/y.jpg", "cat/z.PNG", "dog/a.png", "dog/b.png", "dog/c.txt"]
    rows = _rows(d)
    assert [int(r[1]) for r in rows] == [1, 1, 2, 2, 2] and rows[0][1].dtype == np.int32
    for (image, _), f in zip(rows, files):
        assert image.dtype == np.uint8 and image.ndim == 1
        np.testing.assert_array_equal(image, np.frombuffer((root / f).read_bytes(), np.uint8))
    png = ds.ImageFolderDataset(str(root), shuffle=False, extensions=[".png"])   # suffix with dot and case
    assert [len(r[0]) for r in _rows(png)] == [len((root / f).read_bytes()) for f in ("dog/a.png", "dog/b.png")]
    picked = ds.ImageFolderDataset(str(root), shuffle=False, class_indexing={"dog": 0, "cat": 5, "zebra": 1})
    assert [int(r[1]) for r in _rows(picked)] == [5, 5, 0, 0, 0]     # folders in name order, labels from the dict
    sharded = ds.ImageFolderDataset(str(root), shuffle=False, num_shards=2, shard_id=1, num_parallel_workers=2)
    assert [int(r[1]) for r in _rows(sharded)] == [1, 2, 1]          # positions 1, 3, 0 (measured)
    assert [int(r[1]) for r in _rows(ds.ImageFolderDataset(str(root), sampler=[4, 0]))] == [2, 1]
    with pytest.raises(RuntimeError, match="ImageFolderDataset API can't read the data file"):
        ds.ImageFolderDataset(str(root / "bird"))
    with pytest.raises(TypeError, match="Argument extensions with value '.png' is not of type"):
        ds.ImageFolderDataset(str(root), extensions=".png")
    with pytest.raises(TypeError, match="Argument decode with value 1 is not of type"):
        ds.ImageFolderDataset(str(root), decode=1)
    with pytest.raises(ValueError, match="does not exist or is not a directory"):
        ds.ImageFolderDataset(str(root / "none"))


def test_decode_without_pillow_names_the_install(monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "PIL", None)      # import PIL now fails
    with pytest.raises(ImportError, match="pip install pillow"):
        ds.vision.Decode()


def test_decode_and_decoding_image_folder(image_folder):
    pytest.importorskip("PIL")
    root, pixels = image_folder
    d = ds.ImageFolderDataset(str(root), shuffle=False, extensions=[".png", ".PNG"], decode=True)
    rows = _rows(d)
    for (image, _), f in zip(rows, ["cat/z.PNG", "dog/a.png", "dog/b.png"]):
        assert image.dtype == np.uint8 and image.shape == (2, 3, 3)
        np.testing.assert_array_equal(image, pixels[f])
    mapped = ds.ImageFolderDataset(str(root), shuffle=False, extensions=[".png"]).map(ds.vision.Decode(), "image")
    np.testing.assert_array_equal(_rows(mapped)[0][0], pixels["dog/a.png"])
    decode = ds.vision.Decode()
    grey = np.arange(6).reshape(2, 3) * 40
    rgba = np.arange(24).reshape(2, 3, 4) * 10
    # measured: grey and RGBA come out as 3-channel RGB (grey repeated, alpha dropped)
    np.testing.assert_array_equal(decode(np.frombuffer(_png(grey), np.uint8)), np.repeat(grey[..., None], 3, -1))
    np.testing.assert_array_equal(decode(np.frombuffer(_png(rgba), np.uint8)), rgba[..., :3])
    with pytest.raises(RuntimeError, match="Decode: image decode failed"):
        decode(np.array([1, 2, 3], np.uint8))
    with pytest.raises(TypeError, match="number of array dimensions of the encoded image should be 1, but got 2"):
        decode(np.zeros((2, 2), np.uint8))
    with pytest.raises(TypeError, match="The type of the encoded image should be"):
        decode([1, 2])
    with pytest.raises(RuntimeError, match="Invalid image, .*y.jpg decode failed"):
        _rows(ds.ImageFolderDataset(str(root), shuffle=False, extensions=[".jpg"], decode=True))

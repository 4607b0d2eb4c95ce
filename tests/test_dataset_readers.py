"""File-format readers (EMNIST, QMNIST, USPS, STL-10, SVHN, FakeImage) on tiny files written in
the real formats; the expected rows (image sums, labels, dtypes, shapes, order with
shuffle=False, shards) were measured on MindSpore 2.10 with the same files."""
import struct

import numpy as np
import pytest
import scipy.io

import graphcell.dataset as ds


def _rows(d):
    """[(image sum, label), ...] and the (dtype, shape) of each column of the first row."""
    rows = list(d.create_tuple_iterator(output_numpy=True, num_epochs=1))
    return ([(int(r[0].sum()), r[1].tolist()) for r in rows],
            [(str(a.dtype), a.shape) for a in rows[0]] if rows else [])


def _idx(path, magic, arr):
    path.write_bytes(struct.pack(">i", magic) + struct.pack(">" + "i" * arr.ndim, *arr.shape) + arr.tobytes())


_IMG = (np.arange(3 * 28 * 28) * 7 % 251).astype(np.uint8).reshape(3, 28, 28)   # sums 97380, 97581, 97782


def test_emnist(tmp_path):
    _idx(tmp_path / "emnist-digits-train-images-idx3-ubyte", 2051, _IMG)
    _idx(tmp_path / "emnist-digits-train-labels-idx1-ubyte", 2049, np.array([3, 1, 2], np.uint8))
    _idx(tmp_path / "emnist-digits-test-images-idx3-ubyte", 2051, _IMG[:2])
    _idx(tmp_path / "emnist-digits-test-labels-idx1-ubyte", 2049, np.array([5, 6], np.uint8))
    rows, types = _rows(ds.EMnistDataset(str(tmp_path), "digits", usage="train", shuffle=False))
    assert rows == [(97380, 3), (97581, 1), (97782, 2)] and types == [("uint8", (28, 28, 1)), ("uint32", ())]
    all_rows = [(97380, 5), (97581, 6), (97380, 3), (97581, 1), (97782, 2)]   # "all": test, then train
    assert _rows(ds.EMnistDataset(str(tmp_path), "digits", shuffle=False))[0] == all_rows
    assert _rows(ds.EMnistDataset(str(tmp_path), "digits", num_shards=2, shard_id=1, shuffle=False))[0] == \
        [(97581, 6), (97581, 1), (97380, 5)]
    assert _rows(ds.EMnistDataset(str(tmp_path), "digits", num_samples=2, shuffle=False))[0] == all_rows[:2]
    with pytest.raises(ValueError, match=r"Input name is not within the valid set of \['byclass', 'bymerge', "
                                         r"'balanced', 'letters', 'digits', 'mnist'\]."):
        ds.EMnistDataset(str(tmp_path), "bad")
    with pytest.raises(ValueError, match="does not exist"):
        ds.EMnistDataset(str(tmp_path), "letters")


def test_qmnist(tmp_path):
    labels = np.arange(3 * 8, dtype=">i4").reshape(3, 8)
    labels[:, 0] = [7, 8, 9]

    def write(stem, images, lab):
        _idx(tmp_path / f"{stem}-images-idx3-ubyte", 2051, images)
        (tmp_path / f"{stem}-labels-idx2-int").write_bytes(struct.pack(">iii", 3074, *lab.shape) + lab.tobytes())
    write("qmnist-train", _IMG, labels)
    write("qmnist-test", _IMG[:2], labels[1:])
    write("xnist", _IMG[:1], labels[2:])
    rows, types = _rows(ds.QMnistDataset(str(tmp_path), "train", shuffle=False))
    assert rows == [(97380, 7), (97581, 8), (97782, 9)] and types[1] == ("uint32", ())
    assert _rows(ds.QMnistDataset(str(tmp_path), "nist", shuffle=False))[0] == [(97380, 9)]
    # "all": train, test, nist
    assert _rows(ds.QMnistDataset(str(tmp_path), shuffle=False))[0] == \
        [(97380, 7), (97581, 8), (97782, 9), (97380, 8), (97581, 9), (97380, 9)]
    rows, types = _rows(ds.QMnistDataset(str(tmp_path), "test", compat=False, shuffle=False))
    assert rows == [(97380, [8, 9, 10, 11, 12, 13, 14, 15]), (97581, [9, 17, 18, 19, 20, 21, 22, 23])]
    assert types[1] == ("uint32", (8,))
    with pytest.raises(ValueError, match=r"Input usage is not within the valid set of \['train', 'test', "
                                         r"'test10k', 'test50k', 'nist', 'all'\]."):
        ds.QMnistDataset(str(tmp_path), "bad")


def _usps_line(label, values):
    return f"{label} " + " ".join(f"{i + 1}:{v}" for i, v in enumerate(values)) + " \n"


def test_usps(tmp_path):
    ramp = np.round(np.linspace(-1, 1, 256), 6)
    flat = -np.ones(256)
    flat[:2] = [0.5, 1]
    (tmp_path / "usps").write_text(_usps_line(3, ramp) + _usps_line(10, flat))
    (tmp_path / "usps.t").write_text(_usps_line(1, flat))
    d = ds.USPSDataset(str(tmp_path), "train", shuffle=False)
    rows, types = _rows(d)
    assert rows == [(32513, 2), (446, 9)] and types == [("uint8", (16, 16, 1)), ("uint32", ())]
    image = next(d.create_tuple_iterator(output_numpy=True))[0].reshape(-1)
    assert image[[0, 1, 2, 50, 51, 52, 101, 102, 255]].tolist() == [0, 0, 1, 50, 50, 51, 101, 101, 255]  # -0.6 -> 50
    # "all" with several workers alternates the files' rows
    assert _rows(ds.USPSDataset(str(tmp_path), "all", shuffle=False))[0] == [(32513, 2), (446, 0), (446, 9)]
    assert _rows(ds.USPSDataset(str(tmp_path), "train", shuffle=False, num_shards=2, shard_id=1))[0] == [(446, 9)]
    import bz2
    (tmp_path / "usps.t").write_bytes(bz2.compress(_usps_line(1, flat).encode()))
    assert _rows(ds.USPSDataset(str(tmp_path), "test", shuffle=False))[0] == [(446, 0)]
    with pytest.raises(ValueError, match=r"Input usage is not within the valid set of \['train', 'test', 'all'\]."):
        ds.USPSDataset(str(tmp_path), "bad")


def test_stl10(tmp_path):
    images = (np.arange(2 * 3 * 96 * 96) * 3 % 253).astype(np.uint8)
    images.tofile(tmp_path / "train_X.bin")
    np.array([1, 10], np.uint8).tofile(tmp_path / "train_y.bin")
    images[:3 * 96 * 96].tofile(tmp_path / "test_X.bin")
    np.array([4], np.uint8).tofile(tmp_path / "test_y.bin")
    (images[:3 * 96 * 96] + 7).astype(np.uint8).tofile(tmp_path / "unlabeled_X.bin")
    d = ds.STL10Dataset(str(tmp_path), "train", shuffle=False)
    rows, types = _rows(d)
    assert rows == [(3482157, 0), (3482859, 9)] and types == [("uint8", (96, 96, 3)), ("int32", ())]
    image = next(d.create_tuple_iterator(output_numpy=True))[0]
    assert image[0, :3, 0].tolist() == [0, 35, 70] and image[:3, 0, 1].tolist() == [71, 74, 77]
    assert image[5, 7, :].tolist() == [7, 78, 149]
    assert _rows(ds.STL10Dataset(str(tmp_path), "unlabeled", shuffle=False))[0] == [(3564077, -1)]
    assert _rows(ds.STL10Dataset(str(tmp_path), "train+unlabeled", shuffle=False))[0] == \
        [(3482157, 0), (3482859, 9), (3564077, -1)]
    assert _rows(ds.STL10Dataset(str(tmp_path), "all", shuffle=False))[0] == \
        [(3482157, 3), (3482157, 0), (3482859, 9), (3564077, -1)]
    with pytest.raises(ValueError, match=r"Input usage is not within the valid set of \['train', 'test', "
                                         r"'unlabeled', 'train\+unlabeled', 'all'\]."):
        ds.STL10Dataset(str(tmp_path), "bad")


def test_svhn(tmp_path):
    images = (np.arange(32 * 32 * 3 * 2) * 5 % 249).astype(np.uint8).reshape(32, 32, 3, 2)
    scipy.io.savemat(tmp_path / "train_32x32.mat", {"X": images, "y": np.array([[10], [3]], np.uint8)})
    scipy.io.savemat(tmp_path / "test_32x32.mat", {"X": images[..., ::-1], "y": np.array([[5], [6]], np.uint8)})
    scipy.io.savemat(tmp_path / "extra_32x32.mat", {"X": images + 1, "y": np.array([[1], [2]], np.uint8)})
    d = ds.SVHNDataset(str(tmp_path), "train", shuffle=False)
    rows, types = _rows(d)
    assert rows == [(379974, 0), (380394, 3)] and types == [("uint8", (32, 32, 3)), ("uint32", ())]   # 10 -> 0
    assert np.array_equal(next(d.create_tuple_iterator(output_numpy=True))[0], images[..., 0])
    assert _rows(ds.SVHNDataset(str(tmp_path), shuffle=False))[0] == \
        [(379974, 0), (380394, 3), (380394, 5), (379974, 6), (383046, 1), (383466, 2)]   # train, test, extra
    assert _rows(ds.SVHNDataset(str(tmp_path), shuffle=False, num_shards=4, shard_id=3))[0] == \
        [(379974, 6), (380394, 3)]
    with pytest.raises(ValueError, match=r"Input usage is not within the valid set of \['train', 'test', 'extra', "
                                         r"'all'\]."):
        ds.SVHNDataset(str(tmp_path), "bad")


def test_fake_image():
    d = ds.FakeImageDataset(num_images=5, image_size=(4, 3, 2), num_classes=3, shuffle=False)
    rows = list(d.create_tuple_iterator(output_numpy=True, num_epochs=1))
    assert d.get_dataset_size() == 5 and len(rows) == 5
    assert all(r[0].dtype == np.uint8 and r[0].shape == (4, 3, 2) and r[1].dtype == np.uint32 and
               r[1].shape == () and 0 <= r[1] < 3 for r in rows)
    again = list(d.create_tuple_iterator(output_numpy=True, num_epochs=1))
    assert all(np.array_equal(a[0], b[0]) for a, b in zip(rows, again))      # the same images every epoch
    assert ds.FakeImageDataset(num_images=4, image_size=(2, 2, 3), num_shards=2, shard_id=1).get_dataset_size() == 2
    with pytest.raises(ValueError, match=r"Input num_images is not within the required interval of \[1, 2147483647\]"):
        ds.FakeImageDataset(num_images=0)
    with pytest.raises(ValueError, match="image_size should be a list or tuple of length 3, but got 2"):
        ds.FakeImageDataset(image_size=(2, 2))
    with pytest.raises(ValueError, match=r"Input num_classes is not within the required interval"):
        ds.FakeImageDataset(num_classes=0)

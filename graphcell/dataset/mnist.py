"""MnistDataset, FashionMnistDataset and KMnistDataset: MNIST's idx files
(train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte),
which Fashion-MNIST and Kuzushiji-MNIST share."""
from __future__ import annotations

import os

import numpy as np

from ._checks import check_folder, check_usage
from .sources import GeneratorDataset, _Columns

_FILES = {"train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
          "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")}
# usage="all" reads the files in name order, so t10k (test) before train: measured on MindSpore 2.10
_ALL_ORDER = ("test", "train")
_IMAGES_MAGIC, _LABELS_MAGIC = 2051, 2049


def _read_idx(name: str, path: str, magic: int, ndim: int, dtype=np.uint8) -> np.ndarray:
    """An idx file: big-endian int32 magic, ndim int32 sizes, then the data (uint8, or
    big-endian int32 for QMNIST's labels)."""
    if not os.path.isfile(path):
        raise ValueError(f"{name}: {path} does not exist")
    with open(path, "rb") as f:
        raw = f.read()
    header = 4 * (1 + ndim)
    if len(raw) < header:
        raise ValueError(f"{name}: {path} is too short for an idx header ({len(raw)} bytes)")
    words = np.frombuffer(raw[:header], dtype=">i4")
    if words[0] != magic:
        raise ValueError(f"{name}: {path} has magic number {int(words[0])}, expected {magic}")
    shape = tuple(int(w) for w in words[1:])
    itemsize = np.dtype(dtype).itemsize
    expected = int(np.prod(shape)) * itemsize
    if len(raw) - header != expected:
        raise ValueError(f"{name}: {path} holds {len(raw) - header} data bytes, its header "
                         f"{list(shape)} needs {expected}")
    return np.frombuffer(raw, dtype=dtype, offset=header).reshape(shape)


class MnistDataset(GeneratorDataset):
    """MNIST from `dataset_dir`: columns "image" (uint8 [28, 28, 1]) and "label" (uint32).

    usage: "train" (60,000 rows), "test" (10,000) or "all" (test then train, as MindSpore 2.10
    reads them); default "all".
    """

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        name = type(self).__name__
        dataset_dir = check_folder(name, dataset_dir)
        usage = check_usage(name, usage)
        images, labels = [], []
        for part in (_ALL_ORDER if usage == "all" else (usage,)):
            img = _read_idx(name, os.path.join(dataset_dir, _FILES[part][0]), _IMAGES_MAGIC, 3)
            lab = _read_idx(name, os.path.join(dataset_dir, _FILES[part][1]), _LABELS_MAGIC, 1)
            if len(img) != len(lab):
                raise ValueError(f"{name}: {part} has {len(img)} images but {len(lab)} labels")
            images.append(img[..., None])
            labels.append(lab.astype(np.uint32))
        source = _Columns([np.concatenate(images), np.concatenate(labels)])
        super().__init__(source, ["image", "label"], num_samples=num_samples,
                         num_parallel_workers=num_parallel_workers or 1, shuffle=shuffle, sampler=sampler,
                         num_shards=num_shards, shard_id=shard_id)
        self._name = f"{name}({dataset_dir!r})"


class FashionMnistDataset(MnistDataset):
    """Fashion-MNIST (Zalando's clothing images), in MNIST's files and layout."""


class KMnistDataset(MnistDataset):
    """Kuzushiji-MNIST (cursive Japanese characters), in MNIST's files and layout."""

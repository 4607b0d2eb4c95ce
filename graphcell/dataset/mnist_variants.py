"""EMnistDataset and QMnistDataset: MNIST's idx files with other names (mnist.py reads them).

EMNIST: emnist-<name>-{train,test}-{images-idx3,labels-idx1}-ubyte, images as stored (2.10
does not transpose them, measured), usage "all" is test then train as for MNIST.
QMNIST: qmnist-{train,test}-images-idx3-ubyte with qmnist-*-labels-idx2-int (8 big-endian
int32 per row), and xnist-* for usage "nist"; "all" is train, test, nist (measured).
"test10k" / "test50k" are the first 10,000 / the remaining rows of the test files. Labels
are uint32: the class with compat=True, all 8 fields with compat=False (2.10).
"""
from __future__ import annotations

import os

import numpy as np

from ._checks import check_bool, check_folder
from .mnist import _IMAGES_MAGIC, _LABELS_MAGIC, _read_idx
from .sources import GeneratorDataset, _Columns

_EMNIST_NAMES = ["byclass", "bymerge", "balanced", "letters", "digits", "mnist"]
_QMNIST_USAGES = ["train", "test", "test10k", "test50k", "nist", "all"]
_QMNIST_LABELS_MAGIC = 3074


def _check_choice(what: str, value, choices: list) -> str:
    if not isinstance(value, str):
        raise TypeError(f"Argument {what} with value {value!r} is not of type [<class 'str'>], but got {type(value)}.")
    if value not in choices:
        raise ValueError(f"Input {what} is not within the valid set of {choices}.")
    return value


class _IdxDataset(GeneratorDataset):
    """Images and labels from idx files, columns "image" (uint8 [28, 28, 1]) and "label"."""

    def _init(self, name, dataset_dir, images, labels, kwargs):
        super().__init__(_Columns([np.concatenate(images)[..., None], np.concatenate(labels)]), ["image", "label"],
                         num_samples=kwargs["num_samples"], num_parallel_workers=kwargs["num_parallel_workers"] or 1,
                         shuffle=kwargs["shuffle"], sampler=kwargs["sampler"], num_shards=kwargs["num_shards"],
                         shard_id=kwargs["shard_id"])
        self._name = f"{name}({dataset_dir!r})"


class EMnistDataset(_IdxDataset):
    """EMNIST split `name` ("byclass", "bymerge", "balanced", "letters", "digits", "mnist")."""

    def __init__(self, dataset_dir, name, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        dataset_dir = check_folder("EMnistDataset", dataset_dir)
        name = _check_choice("name", name, _EMNIST_NAMES)
        usage = "all" if usage is None else _check_choice("usage", usage, ["train", "test", "all"])
        images, labels = [], []
        for part in (("test", "train") if usage == "all" else (usage,)):
            stem = os.path.join(dataset_dir, f"emnist-{name}-{part}")
            img = _read_idx("EMnistDataset", f"{stem}-images-idx3-ubyte", _IMAGES_MAGIC, 3)
            lab = _read_idx("EMnistDataset", f"{stem}-labels-idx1-ubyte", _LABELS_MAGIC, 1)
            if len(img) != len(lab):
                raise ValueError(f"EMnistDataset: {part} has {len(img)} images but {len(lab)} labels")
            images.append(img)
            labels.append(lab.astype(np.uint32))
        self._init("EMnistDataset", dataset_dir, images, labels, locals())


class QMnistDataset(_IdxDataset):
    """QMNIST; usage "train", "test", "test10k", "test50k", "nist" or "all" (default)."""

    def __init__(self, dataset_dir, usage=None, compat=True, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        dataset_dir = check_folder("QMnistDataset", dataset_dir)
        usage = "all" if usage is None else _check_choice("usage", usage, _QMNIST_USAGES)
        check_bool("QMnistDataset", "compat", compat)
        parts = {"all": ("train", "test", "nist"), "test10k": ("test",), "test50k": ("test",)}.get(usage, (usage,))
        images, labels = [], []
        for part in parts:
            stem = os.path.join(dataset_dir, "xnist" if part == "nist" else f"qmnist-{part}")
            img = _read_idx("QMnistDataset", f"{stem}-images-idx3-ubyte", _IMAGES_MAGIC, 3)
            lab = _read_idx("QMnistDataset", f"{stem}-labels-idx2-int", _QMNIST_LABELS_MAGIC, 2, ">i4")
            if len(img) != len(lab):
                raise ValueError(f"QMnistDataset: {part} has {len(img)} images but {len(lab)} labels")
            rows = {"test10k": slice(0, 10000), "test50k": slice(10000, None)}.get(usage, slice(None))
            images.append(img[rows])
            lab = lab[rows].astype(np.uint32)
            labels.append(lab[:, 0] if compat else lab)
        self._init("QMnistDataset", dataset_dir, images, labels, locals())

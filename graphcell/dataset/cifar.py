"""Cifar10Dataset and Cifar100Dataset: the binary versions of CIFAR.

CIFAR-10: data_batch_1.bin ... data_batch_5.bin (train) and test_batch.bin, records of
1 label byte + a 3x32x32 CHW image. CIFAR-100: train.bin and test.bin, records of a coarse
and a fine label byte + the image. Rows come in file-name order, as MindSpore 2.10 reads them
(measured: CIFAR-10's "all" is the train batches then the test batch, CIFAR-100's "all" is
test.bin then train.bin). Images are HWC uint8 [32, 32, 3], labels uint32 scalars.

MindSpore requires exactly 10,000 records per CIFAR-10 file (it sizes the dataset as 10,000 per
file); here a file may hold any whole number of records.
"""
from __future__ import annotations

import fnmatch
import os

import numpy as np

from ._checks import check_folder, check_usage
from .sources import GeneratorDataset, _Columns

_IMAGE_BYTES = 3 * 32 * 32


def _records(name: str, path: str, label_bytes: int, version: str) -> np.ndarray:
    """The file as an [n, label_bytes + 3072] uint8 array."""
    raw = np.fromfile(path, dtype=np.uint8)
    width = label_bytes + _IMAGE_BYTES
    if raw.size == 0 or raw.size % width:
        raise ValueError(f"{name}: Invalid {version.lower()} file, failed to read data from: {path}, re-download "
                         f"dataset(make sure it is {version} binary version). It holds {raw.size} bytes, "
                         f"not a whole number of {width}-byte records.")
    return raw.reshape(-1, width)


class _CifarDataset(GeneratorDataset):
    _version = ""                 # "CIFAR-10" / "CIFAR-100"
    _label_columns: tuple = ()
    _patterns: dict = {}           # usage -> file-name patterns

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        name = type(self).__name__
        dataset_dir = check_folder(name, dataset_dir)
        usage = check_usage(name, usage)
        patterns = self._patterns[usage]
        files = sorted(f for f in os.listdir(dataset_dir)
                       if any(fnmatch.fnmatchcase(f, p) for p in patterns)
                       and os.path.isfile(os.path.join(dataset_dir, f)))
        if not files:
            raise RuntimeError(f"{name}: Invalid data, {name} API can't read the data file (interface mismatch or "
                               f"no data found). Check file in directory:{dataset_dir} (looked for "
                               f"{' or '.join(patterns)})")
        n_labels = len(self._label_columns)
        records = np.concatenate([_records(name, os.path.join(dataset_dir, f), n_labels, self._version)
                                  for f in files])
        images = np.ascontiguousarray(records[:, n_labels:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1))
        labels = [records[:, k].astype(np.uint32) for k in range(n_labels)]
        super().__init__(_Columns([images] + labels), ["image", *self._label_columns], num_samples=num_samples,
                         num_parallel_workers=num_parallel_workers or 1, shuffle=shuffle, sampler=sampler,
                         num_shards=num_shards, shard_id=shard_id)
        self._name = f"{name}({dataset_dir!r})"


class Cifar10Dataset(_CifarDataset):
    """CIFAR-10 from `dataset_dir`: columns "image" (uint8 [32, 32, 3]) and "label" (uint32).

    usage: "train" (the data_batch_*.bin files), "test" (test_batch.bin) or "all" (default).
    """
    _version = "CIFAR-10"
    _label_columns = ("label",)
    _patterns = {"train": ("data_batch_*.bin",), "test": ("test_batch.bin",),
                 "all": ("data_batch_*.bin", "test_batch.bin")}


class Cifar100Dataset(_CifarDataset):
    """CIFAR-100 from `dataset_dir`: columns "image" (uint8 [32, 32, 3]), "coarse_label" and
    "fine_label" (uint32). usage: "train" (train.bin), "test" (test.bin) or "all" (default)."""
    _version = "CIFAR-100"
    _label_columns = ("coarse_label", "fine_label")
    _patterns = {"train": ("train.bin",), "test": ("test.bin",), "all": ("train.bin", "test.bin")}

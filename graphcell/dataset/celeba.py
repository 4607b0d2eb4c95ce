"""CelebADataset: CelebA's images in dataset_dir, list_attr_celeba.txt (a count line, a line
of attribute names, then "<file> <+1/-1 per attribute>") and list_eval_partition.txt
("<file> <0 train / 1 valid / 2 test>", needed unless usage is "all").

As measured on MindSpore 2.10: rows in list_attr_celeba.txt's order, "image" the file's
bytes uint8 [n] (decoded RGB with decode=True), "attr" uint32 [number of attributes] with 1
for +1 and 0 for -1; `extensions` keeps files whose suffix (with its dot) is listed.
"""
from __future__ import annotations

import os

import numpy as np

from ._checks import check_bool, check_folder, check_type, check_workers
from ._image_rows import ImageRows, image_decoder
from .sources import GeneratorDataset

_NAME = "CelebADataset"
_PARTITIONS = {"train": "0", "valid": "1", "test": "2"}


def _lines(path: str) -> list[list[str]]:
    with open(path) as f:
        return [line.split() for line in f if line.strip()]


class CelebADataset(GeneratorDataset):
    """CelebA from `dataset_dir`; usage "train", "valid", "test" or "all" (default)."""

    def __init__(self, dataset_dir, num_parallel_workers=None, shuffle=None, usage="all", sampler=None, decode=False,
                 extensions=None, num_samples=None, num_shards=None, shard_id=None, cache=None, decrypt=None):
        dataset_dir = check_folder(_NAME, dataset_dir)
        check_type(_NAME, "usage", usage, str)
        if usage not in ("all", *_PARTITIONS):
            raise ValueError(f"{_NAME}: usage should be 'all', 'train', 'valid' or 'test'.")
        check_bool(_NAME, "decode", decode)
        if extensions is not None:
            check_type(_NAME, "extensions", extensions, list)
        if decrypt is not None:
            raise NotImplementedError(f"{_NAME}: decrypt is not supported")
        attr_file = os.path.join(dataset_dir, "list_attr_celeba.txt")
        if not os.path.isfile(attr_file):
            raise RuntimeError(f"{_NAME}: Invalid file path, {attr_file} does not exist.")
        rows = _lines(attr_file)[2:]             # the count line and the attribute names
        if usage != "all":
            partition_file = os.path.join(dataset_dir, "list_eval_partition.txt")
            if not os.path.isfile(partition_file):
                raise RuntimeError(f"{_NAME}: Partition file can not be found when usage is not 'all'.")
            partition = {fields[0]: fields[1] for fields in _lines(partition_file) if len(fields) >= 2}
            rows = [r for r in rows if partition.get(r[0]) == _PARTITIONS[usage]]
        if extensions is not None:
            rows = [r for r in rows if os.path.splitext(r[0])[1] in extensions]
        if not rows:
            raise RuntimeError(f"{_NAME}: Invalid data, CelebADataset API can't read the data file (interface "
                               f"mismatch or no data found). Check file path: {dataset_dir}")
        attrs = [np.array([1 if v == "1" else 0 for v in r[1:]], np.uint32) for r in rows]
        super().__init__(ImageRows(_NAME, [[os.path.join(dataset_dir, r[0]) for r in rows]], [attrs],
                                   image_decoder(decode)), ["image", "attr"], num_samples=num_samples,
                         num_parallel_workers=check_workers(_NAME, num_parallel_workers), shuffle=shuffle,
                         sampler=sampler, num_shards=num_shards, shard_id=shard_id)
        self._name = f"{_NAME}({dataset_dir!r})"

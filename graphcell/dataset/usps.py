"""USPSDataset: the USPS handwritten digits in LIBSVM text ("usps" for train, "usps.t" for
test; a .bz2 download decompressed, or still compressed: both are read).

A line is "label 1:v1 2:v2 ... 256:v256" with v in [-1, 1]; a row is "image" uint8
[16, 16, 1] = trunc((float32(v) + 1) / 2 * 255) and "label" uint32 = label - 1 (measured on 2.10).
As a non-mappable source it shuffles, shards and interleaves files as TextFileDataset
(text_files.py): usage "all" with several workers alternates train and test rows, as 2.10.
"""
from __future__ import annotations

import bz2
import os

import numpy as np

from ._checks import check_folder, check_usage
from ._parallel import DatasetError
from .text_files import Shuffle, _FileRowsDataset

_FILES = {"train": ("usps",), "test": ("usps.t",), "all": ("usps", "usps.t")}


def _read_text(path: str) -> str:
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:3] == b"BZh":
        raw = bz2.decompress(raw)
    return raw.decode("ascii")


def _parse(path: str, number: int, line: str) -> tuple:
    fields = line.split()
    if len(fields) != 257:
        raise DatasetError(f"USPSDataset: Invalid data, the number of split char ' ' should be 257, but got "
                           f"{len(fields)} in line {number} of {path}")
    # parsed as float32, scaled in float64: 2.10's rounding (-0.6 gives 50, not 51)
    values = np.array([float(f.split(":", 1)[1]) for f in fields[1:]], dtype=np.float32).astype(np.float64)
    image = np.trunc((values + 1) / 2 * 255).clip(0, 255).astype(np.uint8).reshape(16, 16, 1)
    return image, np.uint32(int(float(fields[0])) - 1)


class USPSDataset(_FileRowsDataset):
    """USPS from `dataset_dir`: columns "image" (uint8 [16, 16, 1]) and "label" (uint32)."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=Shuffle.GLOBAL,
                 num_shards=None, shard_id=None, cache=None):
        name = "USPSDataset"
        dataset_dir = check_folder(name, dataset_dir)
        files = [os.path.join(dataset_dir, f) for f in _FILES[check_usage(name, usage)]]
        file_rows = []
        for path in files:
            if not os.path.isfile(path):
                raise RuntimeError(f"{name}: Invalid file, failed to open {path}: it does not exist")
            lines = [line for line in _read_text(path).split("\n") if line.strip()]
            file_rows.append([_parse(path, i + 1, line) for i, line in enumerate(lines)])
        super().__init__(name, files, ["image", "label"], file_rows, num_samples, num_parallel_workers, shuffle,
                         num_shards, shard_id)

"""ManifestDataset: a manifest file of JSON lines, one image each:
{"source": "<image path>", "usage": "train" | "eval" | "inference",
 "annotation": [{"type": "label", "name": "<class>"}, ...]}.

As measured on MindSpore 2.10: rows are the lines of the usage in file order; "image" the
file's bytes uint8 [n] (decoded RGB with decode=True), "label" int32, a scalar for one label
and [k] for several. Labels come from class_indexing, by default the names of the usage's
lines in name order; names outside class_indexing are dropped, and so is a line left with
none.
"""
from __future__ import annotations

import json
import os

import numpy as np

from ._checks import check_bool, check_class_indexing, check_file, check_type, check_workers
from ._image_rows import ImageRows, image_decoder
from .sources import GeneratorDataset

_NAME = "ManifestDataset"
_USAGES = ("train", "eval", "inference")


def _entries(path: str, usage: str) -> list[tuple[str, list[str]]]:
    """[(image path, [label name, ...])] of the lines of `usage`."""
    entries = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except ValueError as e:
                raise RuntimeError(f"{_NAME}: Invalid data, line {number} of {path} is not JSON: {e}") from e
            if str(item.get("usage", "")).lower() != usage:
                continue
            names = [a["name"] for a in item.get("annotation", []) if a.get("type", "label") == "label" and "name" in a]
            entries.append((item["source"], names))
    return entries


class ManifestDataset(GeneratorDataset):
    """Images listed in the manifest `dataset_file`; usage "train" (default), "eval" or
    "inference"."""

    def __init__(self, dataset_file, usage="train", num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, class_indexing=None, decode=False, num_shards=None, shard_id=None, cache=None):
        check_type(_NAME, "dataset_file", dataset_file, (str, os.PathLike))
        dataset_file = check_file(_NAME, dataset_file)
        check_type(_NAME, "usage", usage, str)
        if usage.lower() not in _USAGES:
            raise RuntimeError(f"{_NAME}: {usage} does not match any mode in [ inference eval train ]")
        if class_indexing is not None:
            check_class_indexing(_NAME, class_indexing)
        check_bool(_NAME, "decode", decode)
        entries = _entries(dataset_file, usage.lower())
        if class_indexing is None:
            names = sorted({n for _, labels in entries for n in labels})
            class_indexing = {n: k for k, n in enumerate(names)}
        self.class_indexing = dict(class_indexing)
        rows = []
        for source, labels in entries:
            label = [class_indexing[n] for n in labels if n in class_indexing]
            if label:
                rows.append((source, np.array(label[0] if len(label) == 1 else label, np.int32)))
        if not rows:
            raise RuntimeError(f"{_NAME}: Invalid data, ManifestDataset API can't read the data file (interface "
                               f"mismatch or no data found). Check file path: {dataset_file}")
        super().__init__(ImageRows(_NAME, [[r[0] for r in rows]], [[r[1] for r in rows]], image_decoder(decode)),
                         ["image", "label"], num_samples=num_samples,
                         num_parallel_workers=check_workers(_NAME, num_parallel_workers), shuffle=shuffle,
                         sampler=sampler, num_shards=num_shards, shard_id=shard_id)
        self._name = f"{_NAME}({dataset_file!r})"

    def get_class_indexing(self) -> dict:
        """{label name: label}."""
        return dict(self.class_indexing)

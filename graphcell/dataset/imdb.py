"""IMDBDataset: the Large Movie Review Dataset (aclImdb): dataset_dir/{train,test}/{pos,neg}/*.txt
(the unlabelled train/unsup reviews are not read)."""
from __future__ import annotations

import os

import numpy as np

from ._checks import check_folder, check_usage
from .sources import GeneratorDataset, _Columns


def _review(path: str) -> str:
    """The file's last line: as measured, 2.10 reads a review file line by line and keeps the last
    (the published reviews are one line each)."""
    with open(path, encoding="utf-8", newline="") as f:
        lines = f.read().split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return lines[-1]


class IMDBDataset(GeneratorDataset):
    """Columns "text" (a numpy string) and "label" (int32: 1 pos, 0 neg). usage "train", "test" or
    "all" (default; train then test); within a usage the pos reviews, then the neg ones, each in
    file-name order (measured on MindSpore 2.10)."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        name = "IMDBDataset"
        dataset_dir = check_folder(name, dataset_dir)
        usage = check_usage(name, usage)
        texts, labels = [], []
        for part in (("train", "test") if usage == "all" else (usage,)):
            for label, folder in ((1, "pos"), (0, "neg")):
                directory = os.path.join(dataset_dir, part, folder)
                if not os.path.isdir(directory):
                    raise ValueError(f"{name}: the folder {directory} does not exist (expected aclImdb's layout "
                                     "<dataset_dir>/{train,test}/{pos,neg}/*.txt)")
                for file in sorted(f for f in os.listdir(directory) if f.endswith(".txt")):
                    texts.append(_review(os.path.join(directory, file)))
                    labels.append(label)
        source = _Columns([np.array(texts), np.array(labels, dtype=np.int32)])
        super().__init__(source, ["text", "label"], num_samples=num_samples,
                         num_parallel_workers=num_parallel_workers or 1, shuffle=shuffle, sampler=sampler,
                         num_shards=num_shards, shard_id=shard_id)
        self._name = f"{name}({dataset_dir!r})"

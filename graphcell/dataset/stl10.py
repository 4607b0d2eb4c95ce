"""STL10Dataset: STL-10's binary files (train_X.bin/train_y.bin, test_X.bin/test_y.bin,
unlabeled_X.bin). An image is 3 x 96 x 96 bytes stored column-major (Fortran order), a label
one byte 1..10. As measured on 2.10: "image" uint8 [96, 96, 3] (HWC, rows upright), "label"
int32 = label - 1, -1 for unlabeled rows; usage "all" reads test, train, unlabeled.
"""
from __future__ import annotations

import os

import numpy as np

from ._checks import check_folder
from .mnist_variants import _check_choice
from .sources import GeneratorDataset, _Columns

_IMAGE_BYTES = 3 * 96 * 96
_PARTS = {"train": ("train",), "test": ("test",), "unlabeled": ("unlabeled",),
          "train+unlabeled": ("train", "unlabeled"), "all": ("test", "train", "unlabeled")}


def _images(path: str) -> np.ndarray:
    if not os.path.isfile(path):
        raise RuntimeError(f"STL10Dataset: Invalid file, {path} does not exist")
    raw = np.fromfile(path, dtype=np.uint8)
    if raw.size % _IMAGE_BYTES:
        raise RuntimeError(f"STL10Dataset: {path} holds {raw.size} bytes, not a whole number of "
                           f"{_IMAGE_BYTES}-byte images")
    # record [c, w, h] -> [h, w, c]
    return np.ascontiguousarray(raw.reshape(-1, 3, 96, 96).transpose(0, 3, 2, 1))


class STL10Dataset(GeneratorDataset):
    """STL-10 from `dataset_dir`; usage "train", "test", "unlabeled", "train+unlabeled" or
    "all" (default)."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        dataset_dir = check_folder("STL10Dataset", dataset_dir)
        usage = "all" if usage is None else _check_choice("usage", usage, list(_PARTS))
        images, labels = [], []
        for part in _PARTS[usage]:
            img = _images(os.path.join(dataset_dir, f"{part}_X.bin"))
            if part == "unlabeled":
                lab = np.full(len(img), -1, np.int32)
            else:
                lab = np.fromfile(os.path.join(dataset_dir, f"{part}_y.bin"), dtype=np.uint8).astype(np.int32) - 1
                if len(lab) != len(img):
                    raise RuntimeError(f"STL10Dataset: {part} has {len(img)} images but {len(lab)} labels")
            images.append(img)
            labels.append(lab)
        super().__init__(_Columns([np.concatenate(images), np.concatenate(labels)]), ["image", "label"],
                         num_samples=num_samples, num_parallel_workers=num_parallel_workers or 1, shuffle=shuffle,
                         sampler=sampler, num_shards=num_shards, shard_id=shard_id)
        self._name = f"STL10Dataset({dataset_dir!r})"

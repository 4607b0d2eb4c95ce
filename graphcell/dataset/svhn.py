"""SVHNDataset: the cropped-digit SVHN files train_32x32.mat, test_32x32.mat, extra_32x32.mat
(MATLAB 5 files: "X" uint8 [32, 32, 3, N], "y" [N, 1] with 10 for the digit 0). Read with
scipy.io.loadmat (scipy is a graphcell dependency). Rows as measured on 2.10: "image" uint8
[32, 32, 3] = X[..., i], "label" uint32 with 10 mapped to 0; "all" is train, test, extra.
"""
from __future__ import annotations

import os

import numpy as np

from ._checks import check_folder
from .mnist_variants import _check_choice
from .sources import GeneratorDataset, _Columns

_PARTS = {"train": ("train",), "test": ("test",), "extra": ("extra",), "all": ("train", "test", "extra")}


def _load(path: str):
    import scipy.io
    if not os.path.isfile(path):
        raise RuntimeError(f"SVHNDataset: {path} does not exist")
    mat = scipy.io.loadmat(path)
    if "X" not in mat or "y" not in mat:
        found = sorted(k for k in mat if not k.startswith("_"))
        raise RuntimeError(f"SVHNDataset: {path} needs variables X and y, it has {found}")
    images = np.ascontiguousarray(np.moveaxis(mat["X"], -1, 0)).astype(np.uint8)
    labels = mat["y"].reshape(-1).astype(np.uint32)
    labels[labels == 10] = 0
    if len(images) != len(labels):
        raise RuntimeError(f"SVHNDataset: {path} has {len(images)} images but {len(labels)} labels")
    return images, labels


class SVHNDataset(GeneratorDataset):
    """SVHN from `dataset_dir`; usage "train", "test", "extra" or "all" (default)."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=1, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None):
        dataset_dir = check_folder("SVHNDataset", dataset_dir)
        usage = "all" if usage is None else _check_choice("usage", usage, list(_PARTS))
        parts = [_load(os.path.join(dataset_dir, f"{p}_32x32.mat")) for p in _PARTS[usage]]
        super().__init__(_Columns([np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])]),
                         ["image", "label"], num_samples=num_samples, num_parallel_workers=num_parallel_workers,
                         shuffle=shuffle, sampler=sampler, num_shards=num_shards, shard_id=shard_id)
        self._name = f"SVHNDataset({dataset_dir!r})"

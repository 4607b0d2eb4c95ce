"""ImageFolderDataset: one sub-folder per class (dataset_dir/<class>/<image files>).

Classes are the sub-folders in name order, labelled 0, 1, ... (or by `class_indexing`, which
also limits the folders read); rows are the classes' files in name order. As in MindSpore 2.10
(measured): empty class folders still take a label, files directly in dataset_dir are ignored,
`extensions` compares each file's suffix with its dot and case (".png" skips "x.PNG"), and
with decode=False the "image" column is the file's bytes as a 1-D uint8 array; "label" is int32.
"""
from __future__ import annotations

import os

import numpy as np

from ._checks import check_bool, check_folder, default_workers
from ._parallel import DatasetError
from .sources import GeneratorDataset


class _ImageFiles:
    """Random-access rows (image, label) over a list of (path, label)."""

    def __init__(self, items, decoder):
        self.items, self.decoder = items, decoder

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        path, label = self.items[i]
        data = np.fromfile(path, dtype=np.uint8)
        if self.decoder is not None:
            try:
                data = self.decoder(data)
            except RuntimeError as e:
                raise DatasetError(f"ImageFolderDataset: Invalid image, {path} decode failed, the image is broken "
                                   f"or permission denied. ({e})") from e
        return data, np.int32(label)


class ImageFolderDataset(GeneratorDataset):
    """Images in class folders: columns "image" (raw bytes, uint8 [n]; decoded RGB uint8
    [H, W, 3] with decode=True) and "label" (int32)."""

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None,
                 extensions=None, class_indexing=None, decode=False, num_shards=None, shard_id=None, cache=None,
                 decrypt=None):
        name = "ImageFolderDataset"
        dataset_dir = check_folder(name, dataset_dir)
        if extensions is not None and not isinstance(extensions, list):
            raise TypeError(f"{name}: Argument extensions with value {extensions!r} is not of type "
                            f"[<class 'list'>], but got {type(extensions)}.")
        if class_indexing is not None and not isinstance(class_indexing, dict):
            raise TypeError(f"{name}: Argument class_indexing with value {class_indexing!r} is not of type "
                            f"[<class 'dict'>], but got {type(class_indexing)}.")
        check_bool(name, "decode", decode)
        if decrypt is not None:
            raise NotImplementedError(f"{name}: decrypt is not supported")
        folders = sorted(e.name for e in os.scandir(dataset_dir) if e.is_dir())
        if class_indexing is None:
            self.class_indexing = {folder: i for i, folder in enumerate(folders)}
        else:
            self.class_indexing = dict(class_indexing)
            folders = [f for f in folders if f in class_indexing]
        items = []
        for folder in folders:
            root = os.path.join(dataset_dir, folder)
            for f in sorted(e.name for e in os.scandir(root) if e.is_file()):
                if extensions is None or os.path.splitext(f)[1] in extensions:
                    items.append((os.path.join(root, f), self.class_indexing[folder]))
        if not items:
            raise RuntimeError(f"{name}: Invalid data, ImageFolderDataset API can't read the data file (interface "
                               f"mismatch or no data found). Check image folder file path: {dataset_dir}")
        decoder = None
        if decode:
            from .vision.decode import Decode
            decoder = Decode()
        super().__init__(_ImageFiles(items, decoder), ["image", "label"], num_samples=num_samples,
                         num_parallel_workers=num_parallel_workers or default_workers(), shuffle=shuffle,
                         sampler=sampler, num_shards=num_shards, shard_id=shard_id)
        self._name = f"{name}({dataset_dir!r})"

    def _class_labels(self, column):
        if column != "label":
            raise ValueError(f"{self._name}: PKSampler's class_column {column!r} is not a column ['image', 'label']")
        return np.array([label for _, label in self.source.items])

    def get_class_indexing(self) -> dict:
        """{class folder name: label}."""
        return dict(self.class_indexing)

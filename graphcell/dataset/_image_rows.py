"""A random-access source whose rows read image files (raw bytes, or decoded with
decode=True) next to values parsed up front: what VOC, COCO, CelebA and Manifest share."""
from __future__ import annotations

import os

import numpy as np

from ._parallel import DatasetError


def image_decoder(decode: bool):
    """vision.Decode when decode=True (needs Pillow, imported only then), else None."""
    if not decode:
        return None
    from .vision.decode import Decode
    return Decode()


def read_image(name: str, path: str, decoder) -> np.ndarray:
    """The file's bytes as uint8 [n], or the decoded RGB image uint8 [H, W, 3]."""
    if not os.path.isfile(path):
        raise DatasetError(f"{name}: Failed to open file: {path}")
    data = np.fromfile(path, dtype=np.uint8)
    if decoder is None:
        return data
    try:
        return decoder(data)
    except RuntimeError as e:
        raise DatasetError(f"{name}: Invalid image, {path} decode failed, the image is broken or permission "
                           f"denied. ({e})") from e


class ImageRows:
    """Row i: the images at `image_paths[k][i]` for each k, then `values[k][i]` for each k."""

    def __init__(self, name: str, image_paths: list[list[str]], values: list[list], decoder):
        self.name, self.image_paths, self.values, self.decoder = name, image_paths, values, decoder

    def __len__(self):
        return len(self.image_paths[0])

    def __getitem__(self, i):
        images = tuple(read_image(self.name, paths[i], self.decoder) for paths in self.image_paths)
        return images + tuple(column[i] for column in self.values)


def pad_rows(rows: list, dtype=np.float32) -> np.ndarray:
    """Lists of different lengths -> one [n, longest] array padded with -1 (as 2.10 pads
    COCO's bbox, keypoints and segmentation rows, measured)."""
    width = max((len(r) for r in rows), default=0)
    out = np.full((len(rows), width), -1, dtype=dtype)
    for k, r in enumerate(rows):
        out[k, :len(r)] = r
    return out

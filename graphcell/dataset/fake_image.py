"""FakeImageDataset: `num_images` random images for trying a pipeline without data.

As 2.10: "image" uint8 of `image_size` (a list or tuple of 3 ints), "label" uint32 in
[0, num_classes); the same images every epoch for the same base_seed. 2.10 draws with its
C++ generator, so the values themselves differ from 2.10's.
"""
from __future__ import annotations

import numbers

import numpy as np

from .sources import GeneratorDataset


class _FakeImages:
    def __init__(self, num_images, image_size, num_classes, base_seed):
        self.num_images, self.image_size = num_images, tuple(image_size)
        self.num_classes, self.base_seed = num_classes, base_seed

    def __len__(self):
        return self.num_images

    def __getitem__(self, i):
        rng = np.random.default_rng([self.base_seed, int(i)])
        image = rng.integers(0, 256, size=self.image_size, dtype=np.uint8)
        return image, np.uint32(rng.integers(self.num_classes))


def _positive(what, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 1 <= value <= 2 ** 31 - 1:
        raise ValueError(f"Input {what} is not within the required interval of [1, 2147483647].")
    return int(value)


class FakeImageDataset(GeneratorDataset):
    """Random images and labels: columns "image" (uint8 `image_size`) and "label" (uint32)."""

    def __init__(self, num_images=1000, image_size=(224, 224, 3), num_classes=10, base_seed=0, num_samples=None,
                 num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        num_images, num_classes = _positive("num_images", num_images), _positive("num_classes", num_classes)
        if not isinstance(image_size, (list, tuple)) or len(image_size) != 3:
            got = len(image_size) if isinstance(image_size, (list, tuple)) else type(image_size).__name__
            raise ValueError(f"image_size should be a list or tuple of length 3, but got {got}")
        for k, d in enumerate(image_size):
            _positive(f"image_size[{k}]", d)
        if isinstance(base_seed, bool) or not isinstance(base_seed, numbers.Integral) or base_seed < 0:
            raise ValueError("Input base_seed is not within the required interval of [0, 2147483647].")
        super().__init__(_FakeImages(num_images, image_size, num_classes, int(base_seed)), ["image", "label"],
                         num_samples=num_samples, num_parallel_workers=num_parallel_workers or 1, shuffle=shuffle,
                         sampler=sampler, num_shards=num_shards, shard_id=shard_id)
        self._name = "FakeImageDataset"

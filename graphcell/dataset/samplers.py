"""Samplers: which row indices of a random-access source an epoch reads, and in what order.

A sampler is asked once per epoch (`indices(n, rng)`), with an RNG that the iterator derives
from the dataset seed and the epoch number, so shuffled orders are reproducible under
`graphcell.set_seed` and differ from epoch to epoch.
"""
from __future__ import annotations

import numpy as np


def _check_count(value, name):
    if value is not None and (not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 0):
        raise ValueError(f"{name} must be a non-negative int or None, got {value!r}")


class Sampler:
    """Base class. Subclasses implement `_indices(n, rng)`; `num_samples` caps the count."""

    #: True when the order depends on the RNG (and so on the seed and the epoch).
    shuffles = False

    def __init__(self, num_samples=None):
        _check_count(num_samples, "num_samples")
        self.num_samples = num_samples or None

    def indices(self, n: int, rng: np.random.Generator) -> np.ndarray:
        idx = np.asarray(self._indices(n, rng), dtype=np.int64)
        return idx[: self.num_samples] if self.num_samples is not None else idx

    def get_num_samples(self, n: int) -> int:
        count = self._count(n)
        return min(count, self.num_samples) if self.num_samples is not None else count

    def _indices(self, n, rng):
        raise NotImplementedError

    def _count(self, n: int) -> int:
        return n


class SequentialSampler(Sampler):
    """Rows start_index, start_index+1, ... in order."""

    def __init__(self, start_index=None, num_samples=None):
        super().__init__(num_samples)
        _check_count(start_index, "start_index")
        self.start_index = start_index or 0

    def _indices(self, n, rng):
        return np.arange(min(self.start_index, n), n)

    def _count(self, n):
        return max(n - self.start_index, 0)


class RandomSampler(Sampler):
    """A fresh permutation each epoch (or draws with replacement).

    As every sampler, it reads at most as many rows as the dataset has, also with
    replacement: MindSpore 2.10 caps `num_samples` at the dataset size (measured:
    RandomSampler(replacement=True, num_samples=7) on 3 rows reads 3)."""
    shuffles = True

    def __init__(self, replacement=False, num_samples=None):
        super().__init__(num_samples)
        self.replacement = bool(replacement)

    def _indices(self, n, rng):
        if self.replacement:
            return rng.integers(0, n, size=self.get_num_samples(n)) if n else np.zeros(0, np.int64)
        return rng.permutation(n)


class SubsetSampler(Sampler):
    """Exactly the given indices, in the given order."""

    def __init__(self, indices, num_samples=None):
        super().__init__(num_samples)
        self.subset = np.asarray(list(indices), dtype=np.int64)

    def _indices(self, n, rng):
        bad = self.subset[(self.subset < 0) | (self.subset >= n)]
        if bad.size:
            raise ValueError(f"{type(self).__name__}: index {int(bad[0])} is out of range for a "
                             f"dataset of {n} rows")
        return self.subset

    def _count(self, n):
        return len(self.subset)


class SubsetRandomSampler(SubsetSampler):
    """The given indices in a fresh random order each epoch."""
    shuffles = True

    def _indices(self, n, rng):
        return rng.permutation(super()._indices(n, rng))


class DistributedSampler(Sampler):
    """Shard `shard_id` of `num_shards`, MindSpore's layout (its DistributedSamplerRT).

    Every shard reads ceil(n / num_shards) rows: shard k takes positions
    k, k + num_shards, k + 2*num_shards, ... of the (optionally shuffled) row order, wrapping
    around to the start when n is not a multiple of num_shards. So the shards together cover
    every row; they are disjoint when num_shards divides n, and otherwise the first
    `ceil(n/S)*S - n` rows of the order are read twice (padding by wrap-around), so that every
    shard runs the same number of steps.

    With shuffle, all shards must permute identically: the permutation's RNG depends only on
    the dataset seed (0 when none is set, as MindSpore's sampler seeds itself) and the epoch,
    never on per-process entropy.
    """
    shuffles = True

    def __init__(self, num_shards, shard_id, shuffle=True, num_samples=None, offset=-1):
        super().__init__(num_samples)
        if not isinstance(num_shards, int) or num_shards < 1:
            raise ValueError(f"DistributedSampler: num_shards must be a positive int, got {num_shards!r}")
        if not isinstance(shard_id, int) or not 0 <= shard_id < num_shards:
            raise ValueError(f"DistributedSampler: shard_id must be in [0, {num_shards - 1}], got {shard_id!r}")
        if offset != -1:
            raise NotImplementedError("DistributedSampler: offset (a ConcatDataset feature) is not supported")
        self.num_shards, self.shard_id, self.shuffle = num_shards, shard_id, bool(shuffle)
        self.shuffles = self.shuffle

    def _indices(self, n, rng):
        if n == 0:
            return np.zeros(0, dtype=np.int64)
        order = rng.permutation(n) if self.shuffle else np.arange(n)
        positions = (np.arange(self._count(n)) * self.num_shards + self.shard_id) % n
        return order[positions]

    def _count(self, n):
        return -(-n // self.num_shards)

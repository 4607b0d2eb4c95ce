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
        if type(self).__iter__ is Sampler.__iter__:
            raise NotImplementedError(f"{type(self).__name__}: a user-defined Sampler must define __iter__, "
                                      "yielding row indices")
        return _in_range(type(self).__name__, np.asarray(list(iter(self)), dtype=np.int64), n)

    def _count(self, n: int) -> int:
        if type(self).__iter__ is not Sampler.__iter__:
            return len(self._indices(n, None))   # a user-defined sampler: its indices tell
        return n

    def __iter__(self):
        """A user-defined sampler (MindSpore's `Sampler` subclass) yields row indices here."""
        raise NotImplementedError


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


def _in_range(name: str, indices: np.ndarray, n: int) -> np.ndarray:
    bad = indices[(indices < 0) | (indices >= n)]
    if bad.size:
        raise ValueError(f"{name}: index {int(bad[0])} is out of range for a dataset of {n} rows")
    return indices


class SubsetSampler(Sampler):
    """Exactly the given indices, in the given order."""

    def __init__(self, indices, num_samples=None):
        super().__init__(num_samples)
        self.subset = np.asarray(list(indices), dtype=np.int64)

    def _indices(self, n, rng):
        return _in_range(type(self).__name__, self.subset, n)

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


class WeightedRandomSampler(Sampler):
    """Draws rows 0 .. len(weights)-1 with probabilities proportional to `weights`: with
    replacement (the default) `num_samples` draws (default: the dataset's size); without,
    distinct rows, the weightier first on average, zero weights last (as measured on 2.10).
    The weights may be fewer than the rows, never more (2.10's error)."""
    shuffles = True

    def __init__(self, weights, num_samples=None, replacement=True):
        super().__init__(num_samples)
        weights = list(weights) if isinstance(weights, (list, tuple, np.ndarray)) else [weights]
        for i, w in enumerate(weights):
            if isinstance(w, bool) or not isinstance(w, (int, float, np.integer, np.floating)):
                raise TypeError(f"type of weights element must be number, but got w[{i}]: {w}, type: {type(w)}.")
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement must be a boolean value but was: {replacement}.")
        if not weights:
            raise ValueError("WeightedRandomSampler: weights vector must not be empty")
        for i, w in enumerate(weights):
            if w < 0:
                raise ValueError(f"WeightedRandomSampler: weights vector must not contain negative numbers, got: "
                                 f"weights[{i}] = {float(w):f}")
        if not any(weights):
            raise ValueError("WeightedRandomSampler: elements of weights vector must not be all zero")
        self.weights, self.replacement = np.asarray(weights, dtype=np.float64), replacement

    def _count(self, n):
        return n if self.replacement else min(n, len(self.weights))

    def _indices(self, n, rng):
        if len(self.weights) > n:
            raise ValueError("Invalid parameter, size of sample weights must be less than or equal to num of data, "
                             f"otherwise might cause generated id out of bound or other errors, but got weight size: "
                             f"{len(self.weights)}, num of data: {n}")
        k = self.get_num_samples(n)
        if self.replacement:
            return rng.choice(len(self.weights), size=k, p=self.weights / self.weights.sum())
        # without replacement: the k largest keys u ** (1 / w) (Efraimidis-Spirakis); weight 0 ranks last
        with np.errstate(divide="ignore"):
            keys = np.where(self.weights > 0, rng.random(len(self.weights)) ** (1 / self.weights), -1.0)
        return np.argsort(-keys, kind="stable")[:k]


class IterSampler(Sampler):
    """The indices an iterable yields (iterated again each epoch: a one-shot iterator is empty
    in its second epoch)."""

    def __init__(self, sampler, num_samples=None):
        super().__init__(num_samples)
        self.sampler = sampler

    def __iter__(self):
        return iter(self.sampler)


class PKSampler(Sampler):
    """P classes x K samples (metric learning): for every class, in ascending label order
    (a random order with shuffle=True), `num_val` rows of that class drawn with replacement,
    as 2.10 draws them (measured on MnistDataset: duplicates also when the class has enough
    rows). Works on the file datasets with a label column; 2.10 refuses it for
    GeneratorDataset and NumpySlicesDataset, and so does graphcell."""
    shuffles = True

    def __init__(self, num_val, num_class=None, shuffle=False, class_column="label", num_samples=None):
        if isinstance(num_samples, (int, np.integer)) and not isinstance(num_samples, bool) and num_samples < 0:
            raise ValueError("num_samples exceeds the boundary between 0 and 9223372036854775807(INT64_MAX)!")
        super().__init__(num_samples)
        if isinstance(num_val, bool) or not isinstance(num_val, (int, np.integer)):
            raise TypeError(f"num_val must be integer but was: {num_val}.")
        if num_class is not None:
            raise NotImplementedError("Not supported to specify num_class for PKSampler.")
        if not isinstance(shuffle, bool):
            raise TypeError(f"shuffle must be a boolean value but was: {shuffle}.")
        if not isinstance(class_column, str):
            raise TypeError(f"class_column must be a str value but was: {class_column}.")
        self.num_val, self.shuffle, self.class_column = int(num_val), shuffle, class_column
        self.labels = None   # set per dataset by bound()

    def bound(self, labels) -> "PKSampler":
        """A copy of this sampler over a dataset whose rows have these class labels."""
        copy = PKSampler(self.num_val, None, self.shuffle, self.class_column, self.num_samples)
        copy.labels = np.asarray(labels).reshape(len(labels), -1)[:, 0]
        return copy

    def _classes(self):
        return np.unique(self.labels)

    def _count(self, n):
        return self.num_val * len(self._classes())

    def _indices(self, n, rng):
        classes = self._classes()
        if self.shuffle:
            classes = rng.permutation(classes)
        picks = [rng.choice(np.flatnonzero(self.labels == c), size=self.num_val, replace=True) for c in classes]
        return np.concatenate(picks) if picks else np.zeros(0, np.int64)

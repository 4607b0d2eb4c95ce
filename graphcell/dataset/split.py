"""Dataset.split: MindSpore's division of a dataset into parts, by row counts or by fractions.

Fractions become counts as 2.10 does: each rounded, then the first part absorbs the remainder
(or gives up the excess, or the first part large enough does). With randomize=True the rows are
permuted once, from the dataset seed, when split() is called, so each part keeps its rows (and
their order) in every epoch and the parts never overlap.

A plain random-access GeneratorDataset (NumpySlicesDataset included) is split by source index,
so the parts never overlap whatever its shuffle; any other dataset is read in its own order and
each part keeps its rows (randomize) or is a skip/take window (randomize=False).
"""
from __future__ import annotations

import numbers

import numpy as np

from . import config
from ._parallel import ordered_map
from .engine import Dataset


def _check_sizes(sizes) -> None:
    """2.10's checks and messages."""
    if not isinstance(sizes, list):
        raise TypeError(f"sizes should be a list of int or list of float, but got {type(sizes).__name__}.")
    if not sizes:
        raise ValueError("sizes cannot be empty.")
    all_int = all(isinstance(s, numbers.Integral) and not isinstance(s, bool) for s in sizes)
    all_float = all(isinstance(s, float) for s in sizes)
    if not (all_int or all_float):
        raise ValueError("sizes should be list of int or list of float.")
    if all_int and any(s <= 0 for s in sizes):
        raise ValueError("sizes is a list of int, but there should be no negative or zero numbers.")
    if all_float:
        if any(not 0 < s <= 1 for s in sizes):
            raise ValueError("sizes is a list of float, but there should be no numbers outside the range (0, 1].")
        if abs(sum(sizes) - 1) > 1e-6:
            raise ValueError("sizes is a list of float, but the percentages do not sum up to 1.")


def absolute_sizes(sizes: list, n: int) -> list[int]:
    """Each part's row count out of `n` rows."""
    if isinstance(sizes[0], float):
        counts = []
        for s in sizes:
            count = int(round(s * n))
            if count == 0:
                raise RuntimeError(f"Split percentage {s} is too small.")
            counts.append(count)
        diff = n - sum(counts)
        if diff > 0:
            counts[0] += diff
        elif diff < 0:
            k = next((i for i, c in enumerate(counts) if c > -diff), None)
            if k is None:
                raise RuntimeError(f"Cannot split the {n} rows into {sizes}.")
            counts[k] += diff
        return counts
    if sum(sizes) != n:
        raise RuntimeError(f"Sum of split sizes {sum(sizes)} is not equal to dataset size {n}.")
    return list(sizes)


def _by_index(dataset) -> bool:
    """A random-access source read whole (no sample limit or sharding), so rows have indices."""
    from .samplers import RandomSampler, SequentialSampler
    from .sources import GeneratorDataset
    return (isinstance(dataset, GeneratorDataset) and dataset.random_access and not dataset.num_samples
            and type(dataset.sampler) in (SequentialSampler, RandomSampler)
            and getattr(dataset.sampler, "start_index", None) in (None, 0)
            and not getattr(dataset.sampler, "replacement", False)
            and getattr(dataset.sampler, "num_samples", None) is None)


class SplitPartDataset(Dataset):
    """The rows of `child` at `indices` (row positions of one epoch), in that order."""

    def __init__(self, child, indices):
        super().__init__([child], child.num_parallel_workers)
        self.indices = [int(i) for i in indices]

    def _size(self):
        return len(self.indices)

    def _describe(self):
        return f"split part of {len(self.indices)} rows"

    def _rows(self, run):
        child = self.children[0]
        if _by_index(child):
            yield from ordered_map(child._fetch, iter(self.indices), child.num_parallel_workers or 1)
            return
        wanted = set(self.indices)
        kept = {i: row for i, row in enumerate(child._rows(run)) if i in wanted}
        for i in self.indices:
            yield kept[i]


def split_dataset(dataset, sizes, randomize=True) -> tuple:
    _check_sizes(sizes)
    if not isinstance(randomize, bool):
        raise TypeError(f"randomize should be a bool, but got {type(randomize).__name__}.")
    n = dataset.get_dataset_size()
    counts = absolute_sizes(sizes, n)
    order = np.random.default_rng(config.seed_or_none()).permutation(n) if randomize else np.arange(n)
    starts = np.cumsum([0] + counts[:-1])
    if randomize or _by_index(dataset):
        return tuple(SplitPartDataset(dataset, order[s:s + c]) for s, c in zip(starts, counts))
    return tuple((dataset.skip(int(s)) if s else dataset).take(c) for s, c in zip(starts, counts))

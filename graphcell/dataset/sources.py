"""Leaf datasets: GeneratorDataset over user sources, and NumpySlicesDataset.

A random-access source (`__getitem__` + `__len__`) is read through a sampler (shuffled by
default, sharded with num_shards/shard_id) on `num_parallel_workers` threads, in sampler
order. An iterable source (a generator function, or any iterable) is read in its own order,
once per epoch: a one-shot generator object is empty in its second epoch, so pass the
generator *function*.

`python_multiprocessing` is accepted and ignored: workers are always threads (numpy releases
the GIL, sources need no pickling, and a failing row keeps its traceback).
"""
from __future__ import annotations

import types

import numpy as np

from ..dtype import to_dtype
from ._parallel import DatasetError, call_user, ordered_map
from .engine import Dataset, _check_count, _names
from .samplers import DistributedSampler, PKSampler, RandomSampler, Sampler, SequentialSampler, SubsetSampler


def _is_random_access(source) -> bool:
    return hasattr(source, "__getitem__") and hasattr(source, "__len__")


def _resolve_sampler(name, sampler, shuffle, num_shards, shard_id) -> Sampler:
    if (num_shards is None) != (shard_id is None):
        raise ValueError(f"{name}: num_shards and shard_id must be given together")
    if sampler is not None:
        if shuffle is not None:
            raise ValueError(f"{name}: sampler and shuffle cannot be specified at the same time")
        if num_shards is not None:
            raise ValueError(f"{name}: sampler and num_shards/shard_id cannot be specified at the same time")
        if isinstance(sampler, Sampler):
            return sampler
        return SubsetSampler(sampler)  # a list of indices
    if num_shards is not None:
        return DistributedSampler(num_shards, shard_id, shuffle=True if shuffle is None else bool(shuffle))
    return RandomSampler() if shuffle is None or shuffle else SequentialSampler()


class GeneratorDataset(Dataset):
    """A dataset over a Python source (MindSpore's `GeneratorDataset`).

    >>> class Source:
    ...     def __getitem__(self, i): return np.float32(i), np.int32(i % 2)
    ...     def __len__(self): return 5
    >>> ds = GeneratorDataset(Source(), ["x", "y"], shuffle=False).batch(2)
    >>> ds.get_dataset_size(), [b["y"].asnumpy().tolist() for b in ds.create_dict_iterator(num_epochs=1)]
    (3, [[0, 1], [0, 1], [0]])
    """

    def __init__(self, source, column_names=None, column_types=None, schema=None, num_samples=None,
                 num_parallel_workers=1, shuffle=None, sampler=None, num_shards=None, shard_id=None,
                 python_multiprocessing=True, max_rowsize=None):
        super().__init__((), num_parallel_workers)
        if isinstance(source, types.GeneratorType):
            raise TypeError("GeneratorDataset: the source is a generator object, which runs once (counting the "
                            "dataset's size would use it up); pass the generator function itself, "
                            "GeneratorDataset(gen, ...) rather than GeneratorDataset(gen(), ...)")
        self.source = source
        self._name = self._name_for(source)
        if schema is not None and column_names is None:
            raise NotImplementedError(f"{self._name}: schema is not supported; pass column_names")
        if column_names is None:
            raise ValueError(f"{self._name}: column_names is required (one name per value the source returns)")
        self.column_names = _names(column_names, f"{self._name}: column_names")
        self.column_types = None
        if column_types is not None:
            if len(column_types) != len(self.column_names):
                raise ValueError(f"{self._name}: column_types has {len(column_types)} entries but column_names "
                                 f"has {len(self.column_names)}")
            self.column_types = [to_dtype(t).np_dtype for t in column_types]
        self.num_samples = _check_count(num_samples, f"{self._name}: num_samples", False) if num_samples else None
        if not isinstance(num_parallel_workers, int) or num_parallel_workers < 1:
            raise ValueError(f"{self._name}: num_parallel_workers must be a positive int, got {num_parallel_workers!r}")
        self.random_access = _is_random_access(source)
        if self.random_access:
            self.sampler = _resolve_sampler(self._name, sampler, shuffle, num_shards, shard_id)
            if isinstance(self.sampler, PKSampler):
                self.sampler = self.sampler.bound(self._class_labels(self.sampler.class_column))
        else:
            if not (callable(source) or hasattr(source, "__iter__")):
                raise TypeError(f"{self._name}: source must be random-access (__getitem__ and __len__), "
                                f"iterable, or a generator function; got {type(source).__name__}")
            if shuffle or sampler is not None or num_shards is not None:
                raise ValueError(f"{self._name}: shuffle, sampler and num_shards need a random-access source "
                                 "(__getitem__ and __len__); this source can only be iterated in order")
            self.sampler = None

    def _class_labels(self, column: str):
        """Every row's label in `column`, for PKSampler: the file datasets' labels are in
        memory; 2.10 refuses PKSampler for a GeneratorDataset (its rows are unknown)."""
        if not isinstance(self.source, _Columns) or type(self) in (GeneratorDataset, NumpySlicesDataset):
            raise ValueError("GeneratorDataset doesn't support PKSampler.")
        if column not in self.column_names:
            raise ValueError(f"{self._name}: PKSampler's class_column {column!r} is not a column "
                             f"{self.column_names}")
        return self.source.arrays[self.column_names.index(column)]

    @staticmethod
    def _name_for(source) -> str:
        kind = getattr(source, "__name__", None) or type(source).__name__
        return f"GeneratorDataset(source={kind})"

    def _describe(self):
        return self._name

    def _columns(self):
        return list(self.column_names)

    def _size(self):
        if self.random_access:
            n = self.sampler.get_num_samples(len(self.source))
        elif hasattr(self.source, "__len__"):
            n = len(self.source)
        else:
            return None
        return min(n, self.num_samples) if self.num_samples else n

    # -- reading ---------------------------------------------------------------------------
    def _convert(self, raw, where: str) -> tuple:
        """Source values -> a tuple of numpy arrays, checked against column_names."""
        n_cols = len(self.column_names)
        if isinstance(raw, tuple) or (isinstance(raw, list) and n_cols > 1):
            values = tuple(raw)
        elif isinstance(raw, dict):
            raise DatasetError(f"{self._name}: {where} returned a dict; return a tuple with one value per "
                               f"column {self.column_names}")
        else:
            values = (raw,)
        if len(values) != n_cols:
            raise DatasetError(f"{self._name}: {where} returned {len(values)} column(s), but column_names has "
                               f"{n_cols} ({self.column_names})")
        out = []
        for k, value in enumerate(values):
            if hasattr(value, "asnumpy"):
                value = value.asnumpy()
            array = np.asarray(value)
            if array.dtype == object:
                raise DatasetError(f"{self._name}: {where}, column {self.column_names[k]!r}: cannot make an array "
                                   f"of a {type(value).__name__}")
            if self.column_types is not None:
                array = array.astype(self.column_types[k], copy=False)
            out.append(array)
        return tuple(out)

    def _fetch(self, index: int) -> tuple:
        where = f"row {index} (source[{index}])"
        raw = call_user(self.source.__getitem__, (index,), f"{self._name}: reading {where}")
        return self._convert(raw, where)

    def _rows(self, run):
        if self.random_access:
            shared = isinstance(self.sampler, DistributedSampler)
            indices = self.sampler.indices(len(self.source), run.rng(self, shared=shared))
            if self.num_samples:
                indices = indices[: self.num_samples]
            yield from ordered_map(self._fetch, (int(i) for i in indices), self.num_parallel_workers)
            return
        make = self.source if callable(self.source) and not hasattr(self.source, "__iter__") else None
        iterator = call_user(make or iter, () if make else (self.source,), f"{self._name}: starting the source")
        index = 0
        while self.num_samples is None or index < self.num_samples:
            raw = call_user(next, (iterator, _END), f"{self._name}: reading row {index}")
            if raw is _END:
                return
            yield self._convert(raw, f"row {index}")
            index += 1


_END = object()  # next()'s default: the end of an iterable source


class _Columns:
    """A random-access source over equal-length column arrays (rows are slices on axis 0)."""

    def __init__(self, arrays: list[np.ndarray]):
        self.arrays = arrays

    def __getitem__(self, i):
        return tuple(a[i] for a in self.arrays)

    def __len__(self):
        return len(self.arrays[0]) if self.arrays else 0


def _slices(name, data, column_names):
    """NumpySlicesDataset's inputs -> (column arrays, names)."""
    if isinstance(data, dict):
        names = list(data.keys()) if column_names is None else _names(column_names, f"{name}: column_names")
        arrays = [np.asarray(v) for v in data.values()]
    else:
        arrays = [np.asarray(v) for v in data] if isinstance(data, tuple) else [np.asarray(data)]
        names = _names(column_names, f"{name}: column_names") or [f"column_{i}" for i in range(len(arrays))]
    if len(names) != len(arrays):
        raise ValueError(f"{name}: {len(arrays)} column(s) of data but {len(names)} column_names {names}")
    for n, a in zip(names, arrays):
        if a.ndim == 0:
            raise ValueError(f"{name}: column {n!r} is a scalar; data is sliced along its first axis")
        if len(a) != len(arrays[0]):
            raise ValueError(f"{name}: column {n!r} has {len(a)} rows but column {names[0]!r} has {len(arrays[0])}")
    return arrays, names


class NumpySlicesDataset(GeneratorDataset):
    """Rows are slices along axis 0 of `data`: a list or array (one column), a tuple (one
    column per element) or a dict (columns named by its keys). Default names: column_0, ..."""

    def __init__(self, data, column_names=None, num_samples=None, num_parallel_workers=1, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None):
        arrays, names = _slices("NumpySlicesDataset", data, column_names)
        super().__init__(_Columns(arrays), names, num_samples=num_samples,
                         num_parallel_workers=num_parallel_workers, shuffle=shuffle, sampler=sampler,
                         num_shards=num_shards, shard_id=shard_id)
        self._name = "NumpySlicesDataset"

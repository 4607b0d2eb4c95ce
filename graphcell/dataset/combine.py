"""Pipeline operations over columns and over several datasets: project, rename, filter, zip,
concat (and `+`), as MindSpore 2.10's (measured): zip ends with its shortest dataset and
refuses a column name twice; concat needs the same column names in the same order and dtypes,
and runs the datasets one after the other; filter calls its predicate with the input columns
(all of them by default) and keeps the rows for which it returns something true.

A child of zip or concat runs with its own pass path (`run.child(i)`), so two shuffles at the
same depth of different children draw different orders.
"""
from __future__ import annotations

import itertools

import numpy as np

from ._parallel import DatasetError, call_user, ordered_map
from .engine import Dataset, _names


def _datasets(what: str, datasets) -> list:
    items = list(datasets) if isinstance(datasets, (list, tuple)) else [datasets]
    if not items:
        raise ValueError(f"{what}: no datasets given")
    for i, d in enumerate(items):
        if not isinstance(d, Dataset):
            raise TypeError(f"{what}: datasets[{i}] is a {type(d).__name__}, not a graphcell dataset")
    return items


class ProjectDataset(Dataset):
    """Only `columns`, in that order."""

    def __init__(self, child, columns):
        super().__init__([child], child.num_parallel_workers)
        self.columns = _names(columns, "project columns")
        available = child.get_col_names()
        missing = [c for c in self.columns if c not in available]
        if missing:
            raise ValueError(f"project: column {missing[0]!r} is not in the dataset's columns {available}")
        self._idx = [available.index(c) for c in self.columns]

    def _columns(self):
        return list(self.columns)

    def _rows(self, run):
        for row in self.children[0]._rows(run):
            yield tuple(row[i] for i in self._idx)


class RenameDataset(Dataset):
    """Columns `input_columns` renamed to `output_columns`, in place."""

    def __init__(self, child, input_columns, output_columns):
        super().__init__([child], child.num_parallel_workers)
        ins, outs = _names(input_columns, "rename input_columns"), _names(output_columns, "rename output_columns")
        if len(ins) != len(outs):
            raise ValueError(f"rename: {len(ins)} input_columns {ins} but {len(outs)} output_columns {outs}")
        available = child.get_col_names()
        for c in ins:
            if c not in available:
                raise ValueError(f"rename: column {c!r} is not in the dataset's columns {available}")
        mapping = dict(zip(ins, outs))
        self._layout = [mapping.get(c, c) for c in available]
        if len(set(self._layout)) != len(self._layout):
            taken = sorted({c for c in self._layout if self._layout.count(c) > 1})
            raise ValueError(f"rename: {ins} -> {outs} would give two columns named {taken[0]!r} "
                             f"(the columns are {available})")

    def _columns(self):
        return list(self._layout)

    def _rows(self, run):
        return self.children[0]._rows(run)


class FilterDataset(Dataset):
    """The rows for which `predicate(*input_columns)` is true."""

    def __init__(self, child, predicate, input_columns, num_parallel_workers):
        super().__init__([child], num_parallel_workers or child.num_parallel_workers)
        if not callable(predicate):
            raise TypeError(f"filter: predicate must be callable, got {type(predicate).__name__}")
        self.predicate = predicate
        available = child.get_col_names()
        self.input_columns = _names(input_columns, "filter input_columns") or list(available)
        for c in self.input_columns:
            if c not in available:
                raise ValueError(f"filter: input column {c!r} is not in the dataset's columns {available}")
        self._idx = [available.index(c) for c in self.input_columns]
        self._name = getattr(predicate, "__name__", type(predicate).__name__)

    def _size(self):
        return None   # only iterating can tell (MindSpore counts too)

    def _keep(self, item):
        index, row = item
        where = f"filter: predicate {self._name} on row {index}"
        result = call_user(self.predicate, tuple(row[i] for i in self._idx), where)
        try:
            return bool(np.asarray(result)), row
        except ValueError as e:   # an array of several values
            raise DatasetError(f"{where} returned an array of shape {list(np.shape(result))}; it must return "
                               "one bool") from e

    def _rows(self, run):
        for keep, row in ordered_map(self._keep, enumerate(self.children[0]._rows(run)), self.num_parallel_workers):
            if keep:
                yield row


class ZipDataset(Dataset):
    """Rows side by side: the columns of every dataset, as many rows as the shortest has."""

    def __init__(self, datasets):
        children = _datasets("zip", datasets)
        super().__init__(children)
        names: list[str] = []
        for d in children:
            for c in d.get_col_names():
                if c in names:
                    raise ValueError(f"zip: column {c!r} is in two of the datasets; rename one (Dataset.rename)")
                names.append(c)
        self._names = names

    def _columns(self):
        return list(self._names)

    def _size(self):
        sizes = [d._size() for d in self.children]
        if any(s is None for s in sizes):
            return None
        finite = [s for s in sizes if s >= 0]
        return min(finite) if finite else -1

    def _rows(self, run):
        streams = [d._rows(run.child(i)) for i, d in enumerate(self.children)]
        try:
            for parts in zip(*streams):
                yield tuple(a for part in parts for a in part)
        finally:
            for s in streams:
                s.close()


class ConcatDataset(Dataset):
    """The rows of each dataset in turn."""

    def __init__(self, datasets):
        children = _datasets("concat", datasets)
        super().__init__(children)
        names = children[0].get_col_names()
        for i, d in enumerate(children[1:], 1):
            if d.get_col_names() != names:
                raise ValueError(f"concat: datasets need the same columns in the same order; datasets[0] has "
                                 f"{names}, datasets[{i}] has {d.get_col_names()}")

    _shard = None   # (num_shards, shard_id) set by use_sampler

    def use_sampler(self, sampler) -> None:
        """Shards the concatenated rows: with DistributedSampler(S, k, shuffle=False) this
        dataset reads rows k, k + S, k + 2S, ... of the concatenation (2.10's layout,
        measured). Other samplers are not supported here."""
        from .samplers import DistributedSampler
        if not isinstance(sampler, DistributedSampler):
            raise NotImplementedError("concat use_sampler: only DistributedSampler is supported (shard the "
                                      "concatenated rows); give other samplers to the source datasets")
        if sampler.shuffle:
            raise ValueError("The parameter shuffle of DistributedSampler must be False!")
        self._shard = (sampler.num_shards, sampler.shard_id)
        self._size_cache = None

    def _size(self):
        sizes = [d._size() for d in self.children]
        if any(s is None for s in sizes):
            return None
        if any(s < 0 for s in sizes):
            return -1
        if self._shard is None:
            return sum(sizes)
        shards, shard_id = self._shard
        return len(range(shard_id, sum(sizes), shards))

    def _rows(self, run):
        rows = self._concatenated(run)
        if self._shard is not None:
            rows = itertools.islice(rows, self._shard[1], None, self._shard[0])
        yield from rows

    def _concatenated(self, run):
        dtypes = None
        for i, d in enumerate(self.children):
            for row in d._rows(run.child(i)):
                if dtypes is None:
                    dtypes = [a.dtype for a in row]
                elif [a.dtype for a in row] != dtypes:
                    got = [str(a.dtype) for a in row]
                    raise DatasetError(f"concat: datasets[{i}] has column dtypes {got}, the datasets before it "
                                       f"{[str(t) for t in dtypes]}; cast them to one in a map")
                yield row

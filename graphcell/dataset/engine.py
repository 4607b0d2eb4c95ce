"""The pipeline: `Dataset` and its operations (map, batch, shuffle, repeat, take, skip; the
column and multi-dataset ones, project, rename, filter, zip, concat, are in combine.py).

A pipeline is a chain of nodes, each returning a new node whose child is the old one (the
old dataset stays usable). Running it is pulling rows: `node._rows(run)` yields one epoch
of rows, each a tuple of numpy arrays in `get_col_names()` order. `run` names the pass
(epoch, and repeat index under a `repeat`) and holds the seeds, so every node's randomness
is a pure function of (seed, node depth, pass): reproducible under `set_seed`, different
every epoch.
"""
from __future__ import annotations

import itertools
import warnings
from typing import Iterator, Sequence

import numpy as np

from ..api.ms_errors import RuntimeValueError
from ._parallel import DatasetError, call_user, ordered_map


class _Run:
    """One pass over the pipeline: the iterator's seeds and the pass path (epoch, repeat...)."""
    __slots__ = ("seed", "shared_seed", "path")

    def __init__(self, seed: int, shared_seed: int, path: tuple = (0,)):
        self.seed, self.shared_seed, self.path = seed, shared_seed, path

    def child(self, index: int) -> "_Run":
        return _Run(self.seed, self.shared_seed, self.path + (index,))

    @property
    def epoch(self) -> int:
        return self.path[0]

    def rng(self, node: "Dataset", shared: bool = False) -> np.random.Generator:
        """The RNG of `node` in this pass. `shared` RNGs ignore per-iterator entropy, so that
        processes reading different shards agree on the permutation."""
        return np.random.default_rng([self.shared_seed if shared else self.seed, node._depth, *self.path])


def _names(columns, what: str) -> list[str] | None:
    if columns is None:
        return None
    names = [columns] if isinstance(columns, str) else list(columns)
    if not names or not all(isinstance(c, str) for c in names):
        raise ValueError(f"{what} must be a column name or a non-empty list of names, got {columns!r}")
    if len(set(names)) != len(names):
        raise ValueError(f"{what} has duplicate names: {names}")
    return names


def _check_count(count, what: str, allow_minus_one: bool = True):
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or \
            (count < 0 and not (allow_minus_one and count == -1)):
        raise ValueError(f"{what} must be a non-negative int{' or -1' if allow_minus_one else ''}, got {count!r}")
    return int(count)


def _check_options(method: str, options: dict, known: tuple) -> None:
    for name in options:
        if name not in known:
            raise TypeError(f"{method}() got an unexpected keyword argument {name!r}"
                            + (" (MindSpore 2.x has no column_order; reorder columns with project())"
                               if name == "column_order" else ""))


class Dataset:
    """Base of every dataset node. Public methods follow `mindspore.dataset.Dataset`."""

    def __new__(cls, *args, **kwargs):
        self = super().__new__(cls)
        self._arguments = (args, kwargs)    # as the user gave them: serialize.py writes nodes from them
        return self

    def __init__(self, children: Sequence["Dataset"] = (), num_parallel_workers=None):
        self.children = list(children)
        self.num_parallel_workers = num_parallel_workers
        self._depth = 1 + max(c._depth for c in self.children) if self.children else 0
        self._size_cache: int | None = None
        self._init_step: int | None = None

    # -- what subclasses provide ---------------------------------------------------------
    def _rows(self, run: _Run) -> Iterator[tuple]:
        raise NotImplementedError

    def _columns(self) -> list[str]:
        return self.children[0]._columns()

    def _size(self) -> int | None:
        """Rows (batches) per epoch, or None when only iterating can tell."""
        return self.children[0]._size()

    def _describe(self) -> str:
        return type(self).__name__

    # -- building pipelines ----------------------------------------------------------------
    def map(self, operations, input_columns=None, output_columns=None, num_parallel_workers=None,
            python_multiprocessing=False, **options) -> "MapDataset":
        """Applies `operations` (a callable or a list, chained) to `input_columns` of every row.
        `options` takes MindSpore 2.10's other MapDataset arguments (cache, callbacks,
        max_rowsize, offload), which change nothing here; anything else (`column_order`,
        gone since MindSpore 2.0) is a TypeError as in 2.10."""
        _check_options("map", options, ("cache", "callbacks", "max_rowsize", "offload"))
        from .callbacks import check_callbacks
        mapped = MapDataset(self, operations, input_columns, output_columns, num_parallel_workers)
        mapped.callbacks = check_callbacks(options.get("callbacks"))
        return mapped

    def batch(self, batch_size, drop_remainder=False, num_parallel_workers=None, per_batch_map=None,
              input_columns=None, output_columns=None, python_multiprocessing=False, **options) -> "BatchDataset":
        """Stacks `batch_size` consecutive rows into one row of arrays with a leading batch axis."""
        _check_options("batch", options, ("max_rowsize",))
        return BatchDataset(self, batch_size, drop_remainder, num_parallel_workers, per_batch_map,
                            input_columns, output_columns)

    def padded_batch(self, batch_size, drop_remainder=False, num_parallel_workers=None, pad_info=None) -> "Dataset":
        """`batch` that first pads each row per `pad_info` ({column: (shape, pad_value) or None};
        {} pads every column to its longest; see padding.py)."""
        from .padding import PaddedBatchDataset
        return PaddedBatchDataset(self, batch_size, drop_remainder, num_parallel_workers, pad_info)

    def bucket_batch_by_length(self, column_names, bucket_boundaries, bucket_batch_sizes,
                               element_length_function=None, pad_info=None, pad_to_bucket_boundary=False,
                               drop_remainder=False) -> "Dataset":
        """Batches rows of similar length together: a row of length L goes to bucket
        bisect_right(bucket_boundaries, L), whose batches hold bucket_batch_sizes[k] rows,
        padded as padded_batch pads (every column to its longest when pad_info is None)."""
        from .padding import BucketBatchByLengthDataset
        return BucketBatchByLengthDataset(self, column_names, bucket_boundaries, bucket_batch_sizes,
                                          element_length_function, pad_info, pad_to_bucket_boundary,
                                          drop_remainder)

    def shuffle(self, buffer_size) -> "ShuffleDataset":
        """Shuffles through a buffer of `buffer_size` rows, reshuffled each epoch."""
        return ShuffleDataset(self, buffer_size)

    def repeat(self, count=None) -> "RepeatDataset":
        """Repeats the dataset `count` times per epoch (None or -1: forever)."""
        return RepeatDataset(self, count)

    def take(self, count=-1) -> "TakeDataset":
        """The first `count` rows (batches) of each epoch (-1: all)."""
        return TakeDataset(self, count)

    def skip(self, count) -> "SkipDataset":
        """Drops the first `count` rows (batches) of each epoch."""
        return SkipDataset(self, count)

    def project(self, columns) -> "Dataset":
        """Only `columns` (a name or a list), in that order."""
        from .combine import ProjectDataset
        return ProjectDataset(self, columns)

    def rename(self, input_columns, output_columns) -> "Dataset":
        """Renames columns in place: input_columns[k] becomes output_columns[k]."""
        from .combine import RenameDataset
        return RenameDataset(self, input_columns, output_columns)

    def filter(self, predicate, input_columns=None, num_parallel_workers=None) -> "Dataset":
        """The rows for which `predicate(*columns)` (input_columns, default all) is true."""
        from .combine import FilterDataset
        return FilterDataset(self, predicate, input_columns, num_parallel_workers)

    def zip(self, datasets) -> "Dataset":
        """This dataset's columns beside those of `datasets` (one, or a tuple), row by row,
        as long as the shortest; column names must differ."""
        from .combine import ZipDataset
        return ZipDataset([self] + (list(datasets) if isinstance(datasets, (list, tuple)) else [datasets]))

    def concat(self, datasets) -> "Dataset":
        """This dataset's rows, then those of `datasets` (one, or a list); same columns needed."""
        from .combine import ConcatDataset
        return ConcatDataset([self] + (list(datasets) if isinstance(datasets, (list, tuple)) else [datasets]))

    def to_json(self, filename=""):
        """The pipeline as MindSpore 2.10's JSON dict (see serialize.py); also written to
        `filename` when given."""
        from .serialize import serialize
        return serialize(self, filename)

    def split(self, sizes, randomize=True) -> tuple:
        """Parts of this dataset by row counts ([8, 2]) or fractions summing to 1 ([0.8, 0.2]),
        as a tuple of datasets (`split.py`)."""
        from .split import split_dataset
        return split_dataset(self, sizes, randomize)

    def apply(self, apply_func) -> "Dataset":
        """`apply_func(self)`, which must return a dataset (a reusable piece of pipeline)."""
        if not callable(apply_func):
            raise TypeError("apply_func must be a function.")
        result = apply_func(self)
        if not isinstance(result, Dataset):
            raise TypeError("apply_func must return a dataset.")
        return result

    def sync_wait(self, condition_name, num_batch=1, callback=None) -> "Dataset":
        """A gate that lets `num_batch` rows through, then waits for `sync_update` (sync.py)."""
        from .sync import SyncWaitDataset
        return SyncWaitDataset(self, condition_name, num_batch, callback)

    def sync_update(self, condition_name, num_batch=None, data=None) -> None:
        """Opens the sync_wait gate `condition_name` for `num_batch` more rows (default its
        own) and calls its callback with `data`."""
        from .sync import find_gate
        find_gate(self, condition_name).release(num_batch, data)

    def num_classes(self):
        """The class count of a classification source (ImageFolderDataset, ManifestDataset)
        under this pipeline; None for other sources (as 2.10)."""
        indexing = self.get_class_indexing()
        return len(indexing) if indexing else None

    def get_class_indexing(self) -> dict:
        """{class name: label} of the classification source under this pipeline; {} when
        it has none."""
        return self.children[0].get_class_indexing() if self.children else {}

    def save(self, file_name, num_files=1, file_type="mindrecord") -> None:
        """Writes one epoch of rows to `num_files` MindRecord files (mindrecord_dataset.py)."""
        from .mindrecord_dataset import save
        save(self, file_name, num_files, file_type)

    def device_que(self, send_epoch_end=True, create_data_info_queue=False, queue_name=""):
        """MindSpore's device queue feeds dataset sink mode on Ascend/GPU; graphcell has none."""
        raise NotImplementedError("device_que: graphcell has no device queue (dataset sink mode); iterate the "
                                  "dataset with create_tuple_iterator()/create_dict_iterator(), or pass it to "
                                  "Model.train(..., dataset_sink_mode=False)")

    def __add__(self, datasets) -> "Dataset":
        return self.concat(datasets)

    def __len__(self) -> int:
        """get_dataset_size(), as MindSpore's len(dataset)."""
        return self.get_dataset_size()

    # -- resuming ------------------------------------------------------------------------
    def set_init_step(self, init_step) -> None:
        """Makes iterators start at global step `init_step` (MindSpore's API for resuming):
        in epoch `init_step // get_dataset_size()` (counted from 0), after its first
        `init_step % get_dataset_size()` rows (batches once batched), which are still read but
        not returned. The epoch number seeds shuffles and random samplers, so the rows that
        follow are the ones an uninterrupted run reads there. `Model.train` checks it against
        `initial_epoch`. It stays set (for every later iterator) until set again; 0 clears it."""
        self._init_step = _check_count(init_step, "set_init_step: init_step", allow_minus_one=False)

    def get_init_step(self) -> int:
        """The step set by `set_init_step` here, else the single child's, else 0 (as MindSpore)."""
        if self._init_step is not None:
            return self._init_step
        return self.children[0].get_init_step() if len(self.children) == 1 else 0

    # -- iterating -----------------------------------------------------------------------
    def create_dict_iterator(self, num_epochs=-1, output_numpy=False, do_copy=True):
        """Yields {column: Tensor} (numpy arrays with output_numpy=True); usable for
        `num_epochs` passes (-1: any number), each a `for` loop over the iterator."""
        from .iterators import DatasetIterator
        return DatasetIterator(self, num_epochs, output_numpy, None, as_dict=True)

    def create_tuple_iterator(self, columns=None, num_epochs=-1, output_numpy=False, do_copy=True, *,
                              _init_step=None):
        """Yields [Tensor, ...] in column order (or the order of `columns`). `_init_step`
        (internal, for Model.train) overrides `get_init_step()`."""
        from .iterators import DatasetIterator
        return DatasetIterator(self, num_epochs, output_numpy, _names(columns, "columns"), as_dict=False,
                               init_step=_init_step)

    def __iter__(self):
        """One epoch of lists of Tensors, as iterating a MindSpore dataset gives."""
        return self.create_tuple_iterator(num_epochs=1)

    # -- introspection -------------------------------------------------------------------
    def get_dataset_size(self) -> int:
        """Rows per epoch, or batches once batched; -1 for an endless repeat."""
        if self._size_cache is None:
            size = self._size()
            if size is None:  # an iterable source without __len__: count one pass, as MindSpore does
                size = sum(1 for _ in self._rows(_Run(0, 0)))
            self._size_cache = size
        return self._size_cache

    def get_col_names(self) -> list[str]:
        return list(self._columns())

    def get_batch_size(self) -> int:
        node = self
        while node.children and not hasattr(node, "batch_size"):   # a batch, or a bucket batch (1)
            node = node.children[0]
        return getattr(node, "batch_size", 1)

    def get_repeat_count(self) -> int:
        node = self
        while node.children and not isinstance(node, RepeatDataset):
            node = node.children[0]
        return node.count if isinstance(node, RepeatDataset) else 1

    def _first_row(self) -> tuple:
        rows = self._rows(_Run(0, 0))
        try:
            return next(rows)
        except StopIteration:
            raise RuntimeError(f"{self._describe()}: the dataset is empty") from None
        finally:
            rows.close()

    def output_shapes(self) -> list[list[int]]:
        return [list(a.shape) for a in self._first_row()]

    def output_types(self) -> list[np.dtype]:
        return [a.dtype for a in self._first_row()]


# -- operations ---------------------------------------------------------------------------

def _as_row(result) -> tuple:
    return tuple(result) if isinstance(result, tuple) else (result,)


def _replaced_layout(available: list[str], in_idx: list[int], outputs: list[str]) -> list[str]:
    """Column order after replacing columns `in_idx` of `available` by `outputs`: in place
    when the counts agree, else the outputs first and then the untouched columns (map and
    per_batch_map in MindSpore 2.10, measured)."""
    if len(outputs) == len(in_idx):
        layout = list(available)
        for i, name in zip(in_idx, outputs):
            layout[i] = name
        return layout
    return list(outputs) + [c for i, c in enumerate(available) if i not in in_idx]


class MapDataset(Dataset):
    """Runs a chain of callables on some columns of each row, on worker threads.

    input_columns defaults to the first column (MindSpore passes the first columns an
    operation needs; transforms take one). output_columns defaults to input_columns. The
    column order is MindSpore 2.10's (measured): when the outputs are as many as the inputs,
    output k takes input column k's place; otherwise the outputs come first, then the
    untouched columns in their order ({a, b, c} mapping b to b1, b2 gives b1, b2, a, c).
    An output named like an untouched column is refused (2.10 silently drops one of them).
    """

    def __init__(self, child, operations, input_columns, output_columns, num_parallel_workers):
        super().__init__([child], num_parallel_workers or child.num_parallel_workers)
        ops = list(operations) if isinstance(operations, (list, tuple)) else [operations]
        for op in ops:
            if not callable(op):
                raise TypeError(f"map: every operation must be callable, got {type(op).__name__}")
        self.operations = ops
        available = child.get_col_names()
        self.input_columns = _names(input_columns, "map input_columns") or available[:1]
        for c in self.input_columns:
            if c not in available:
                # both types: 2.10 raises a RuntimeError (at iteration); a name error is a ValueError
                raise RuntimeValueError(f"map: input column {c!r} is not in the dataset's columns {available}")
        self.output_columns = _names(output_columns, "map output_columns") or list(self.input_columns)
        self._in_idx = [available.index(c) for c in self.input_columns]
        kept = [c for c in available if c not in self.input_columns]
        layout = _replaced_layout(available, self._in_idx, self.output_columns)
        if len(set(layout)) != len(layout):
            raise ValueError(f"map: output columns {self.output_columns} clash with the kept columns {kept}")
        self._layout = layout
        self._sources = [("out", self.output_columns.index(c)) if c in self.output_columns
                         else ("in", available.index(c)) for c in layout]
        self.callbacks: list = []   # DSCallbacks (callbacks.py), set by Dataset.map
        self._steps_done = 0

    def _columns(self):
        return list(self._layout)

    def _describe(self):
        names = ", ".join(getattr(op, "__name__", type(op).__name__) for op in self.operations)
        return f"map([{names}], input_columns={self.input_columns})"

    def _apply(self, item):
        index, row = item
        args = tuple(row[i] for i in self._in_idx)
        for op in self.operations:
            name = getattr(op, "__name__", type(op).__name__)
            args = _as_row(call_user(op, args, f"{self._describe()}: operation {name} on row {index}"))
        if len(args) != len(self.output_columns):
            raise DatasetError(f"{self._describe()}: the operations returned {len(args)} value(s) for row "
                               f"{index}, but output_columns has {len(self.output_columns)} "
                               f"({self.output_columns})")
        outs = [np.asarray(a) for a in args]
        return tuple(outs[j] if kind == "out" else row[j] for kind, j in self._sources)

    def _size(self):
        from .config import ErrorSamplesMode, get_error_samples_mode
        return None if get_error_samples_mode() == ErrorSamplesMode.SKIP else self.children[0]._size()

    def _apply_or_skip(self, item):
        try:
            return self._apply(item)
        except DatasetError as e:
            warnings.warn(f"{e}\nThe row is skipped (dataset.config.ErrorSamplesMode).", stacklevel=2)
            return None

    def _rows(self, run):
        if not self.callbacks:
            yield from self._mapped(self.children[0]._rows(run))
            return
        from .callbacks import CallbackRunner
        if run.epoch == 0:
            self._steps_done = 0
        runner = CallbackRunner(self.callbacks, run.epoch + 1, self._steps_done)
        runner.begin(first_epoch=run.epoch == 0)

        def counted(rows):
            for step, row in enumerate(rows, 1):
                runner.step("ds_step_begin", step)
                yield row
        steps = 0
        for out in self._mapped(counted(self.children[0]._rows(run))):
            steps += 1
            runner.step("ds_step_end", steps)
            yield out
        self._steps_done += steps
        runner.end(steps)

    def _mapped(self, child_rows):
        from .config import ErrorSamplesMode, get_error_samples_mode
        rows = enumerate(child_rows)
        mode = get_error_samples_mode()
        if mode == ErrorSamplesMode.RETURN:
            yield from ordered_map(self._apply, rows, self.num_parallel_workers)
            return
        good, failed = [], 0   # REPLACE re-emits the first good rows (at most _REPLACEMENTS kept)
        for out in ordered_map(self._apply_or_skip, rows, self.num_parallel_workers):
            if out is None:
                failed += 1
                continue
            if len(good) < _REPLACEMENTS:
                good.append(out)
            yield out
        if mode == ErrorSamplesMode.REPLACE and failed:
            if not good:
                raise DatasetError(f"{self._describe()}: every row failed, so ErrorSamplesMode.REPLACE has no "
                                   "good row to replace them with")
            for j in range(failed):
                yield good[j % len(good)]


_REPLACEMENTS = 256


class BatchInfo:
    """What per_batch_map learns about the batch it is building."""

    def __init__(self, batch_num: int, epoch_num: int):
        self._batch_num, self._epoch_num = batch_num, epoch_num

    def get_batch_num(self) -> int:
        return self._batch_num

    def get_epoch_num(self) -> int:
        return self._epoch_num


class BatchDataset(Dataset):
    """Groups rows into batches; `per_batch_map(col, ..., BatchInfo)` may rewrite each batch
    (it gets a list of arrays per input column, returns a list or array per output column)."""

    def __init__(self, child, batch_size, drop_remainder, num_parallel_workers, per_batch_map,
                 input_columns, output_columns):
        super().__init__([child], num_parallel_workers or child.num_parallel_workers)
        if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
            raise ValueError(f"batch: batch_size must be a positive int, got {batch_size!r}")
        if per_batch_map is not None and not callable(per_batch_map):
            raise TypeError("batch: per_batch_map must be callable")
        if (input_columns is not None or output_columns is not None) and per_batch_map is None:
            raise ValueError("batch: input_columns/output_columns need a per_batch_map")
        self.batch_size, self.drop_remainder = int(batch_size), bool(drop_remainder)
        self.per_batch_map = per_batch_map
        available = child.get_col_names()
        self.input_columns = _names(input_columns, "batch input_columns") or list(available)
        for c in self.input_columns:
            if c not in available:
                raise RuntimeValueError(f"batch: input column {c!r} is not in the dataset's columns {available}")
        self.output_columns = _names(output_columns, "batch output_columns") or list(self.input_columns)
        self._in_idx = [available.index(c) for c in self.input_columns]
        # 2.10 orders the untouched columns by a hash map when the counts differ; we keep theirs
        self._layout = _replaced_layout(available, self._in_idx, self.output_columns)
        if len(set(self._layout)) != len(self._layout):
            raise ValueError(f"batch: output columns {self.output_columns} clash with the kept columns "
                             f"{[c for c in available if c not in self.input_columns]}")
        self._available = available

    def _columns(self):
        return list(self._layout)

    def _size(self):
        n = self.children[0]._size()
        if n is None or n < 0:
            return n
        return n // self.batch_size if self.drop_remainder else -(-n // self.batch_size)

    def _groups(self, run):
        rows = self.children[0]._rows(run)
        for batch_num in itertools.count():
            group = list(itertools.islice(rows, self.batch_size))
            if not group or (len(group) < self.batch_size and self.drop_remainder):
                return
            yield batch_num, run.epoch, group

    def _make_batch(self, item):
        batch_num, epoch, group = item
        columns = {name: [row[i] for row in group] for i, name in enumerate(self._available)}
        if self.per_batch_map is not None:
            args = [columns[c] for c in self.input_columns] + [BatchInfo(batch_num, epoch)]
            name = getattr(self.per_batch_map, "__name__", "per_batch_map")
            outs = _as_row(call_user(self.per_batch_map, tuple(args), f"batch: per_batch_map {name} on batch "
                                                                       f"{batch_num}"))
            if len(outs) != len(self.output_columns):
                raise DatasetError(f"batch: per_batch_map returned {len(outs)} column(s) for batch {batch_num}, "
                                   f"but output_columns has {len(self.output_columns)} ({self.output_columns})")
            for name, out in zip(self.output_columns, outs):
                # a list is one entry per row (MindSpore 2.10 checks it; `rows * 2` on a list repeats it)
                if isinstance(out, (list, tuple)) and len(out) != len(group):
                    raise DatasetError(f"Invalid data, column: {name} expects: {len(group)} rows returned from "
                                       f"'per_batch_map', got: {len(out)}")
            for c in self.input_columns:
                columns.pop(c)
            columns.update(zip(self.output_columns, outs))
        return tuple(self._stack(name, columns[name], batch_num) for name in self._layout)

    @staticmethod
    def _stack(name, values, batch_num):
        if isinstance(values, np.ndarray):  # per_batch_map returned a finished batch
            return values
        arrays = [np.asarray(v) for v in values]
        shapes = {a.shape for a in arrays}
        if len(shapes) > 1:
            raise DatasetError(f"batch: rows of column {name!r} in batch {batch_num} have different shapes "
                               f"{sorted(list(s) for s in shapes)}; batching needs equal shapes (pad them "
                               "in a map, or use per_batch_map)")
        dtypes = {a.dtype.kind if a.dtype.kind in "US" else a.dtype for a in arrays}   # strings of any length
        if len(dtypes) > 1:   # np.stack would promote (float32 and int32 rows: a float64 batch)
            raise DatasetError(f"batch: rows of column {name!r} in batch {batch_num} have different dtypes "
                               f"{sorted(str(d) for d in dtypes)}; cast them to one in a map")
        return np.stack(arrays)

    def _rows(self, run):
        yield from ordered_map(self._make_batch, self._groups(run), self.num_parallel_workers)


class ShuffleDataset(Dataset):
    """MindSpore's buffer shuffle: fill `buffer_size` rows, then emit a random buffered row
    and put the next incoming row in its place; drain the buffer in random order."""

    def __init__(self, child, buffer_size):
        super().__init__([child], child.num_parallel_workers)
        if isinstance(buffer_size, bool) or not isinstance(buffer_size, (int, np.integer)) or buffer_size < 2:
            raise ValueError(f"shuffle: buffer_size must be an int >= 2, got {buffer_size!r}")
        self.buffer_size = int(buffer_size)

    def _rows(self, run):
        rng = run.rng(self)
        buffer: list = []
        for row in self.children[0]._rows(run):
            if len(buffer) < self.buffer_size:
                buffer.append(row)
                continue
            j = int(rng.integers(self.buffer_size))
            yield buffer[j]
            buffer[j] = row
        for j in rng.permutation(len(buffer)):
            yield buffer[j]


class RepeatDataset(Dataset):
    def __init__(self, child, count):
        super().__init__([child], child.num_parallel_workers)
        self.count = -1 if count is None else _check_count(count, "repeat: count")
        if self.count == 0:
            raise ValueError("repeat: count must be positive, or None/-1 for forever")

    def _size(self):
        n = self.children[0]._size()
        if n is None:
            return None
        return -1 if self.count == -1 else n * self.count

    def _rows(self, run):
        repeats = itertools.count() if self.count == -1 else range(self.count)
        for r in repeats:
            yield from self.children[0]._rows(run.child(r))


class TakeDataset(Dataset):
    def __init__(self, child, count):
        super().__init__([child], child.num_parallel_workers)
        self.count = _check_count(count, "take: count")

    def _size(self):
        n = self.children[0]._size()
        if n is None or self.count == -1:
            return n
        return self.count if n < 0 else min(n, self.count)

    def _rows(self, run):
        rows = self.children[0]._rows(run)
        yield from rows if self.count == -1 else itertools.islice(rows, self.count)


class SkipDataset(Dataset):
    def __init__(self, child, count):
        super().__init__([child], child.num_parallel_workers)
        self.count = _check_count(count, "skip: count", allow_minus_one=False)

    def _size(self):
        n = self.children[0]._size()
        return n if n is None or n < 0 else max(n - self.count, 0)

    def _rows(self, run):
        yield from itertools.islice(self.children[0]._rows(run), self.count, None)

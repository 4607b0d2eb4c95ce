"""Batching rows of different shapes: `Dataset.padded_batch` and `Dataset.bucket_batch_by_length`,
as MindSpore 2.10's (measured).

`pad_info` maps a column to `(shape, pad_value)` or None. A shape of None pads every axis to
the batch's longest row; in a list, an int is the axis' length (longer rows are cut to it,
as 2.10 does) and None the batch's longest. `pad_value` defaults to 0 ('' for strings) and is
cast to the column's dtype (2.7 pads an int32 column with 2). An empty dict pads every column
to its longest; columns missing from a non-empty dict are batched as they are.

bucket_batch_by_length puts each row in the bucket of its length (bucket k holds lengths in
[boundaries[k-1], boundaries[k])), emits a bucket's batch as soon as it is full, and at the
end of the pass emits what is left in bucket order (unless drop_remainder). Without an
element_length_function the length is the first axis of the one named column; 2.10 measures
the dataset's first column whatever the name (a MindSpore bug; its documentation names the
column), and here the named column is measured.
"""
from __future__ import annotations

import bisect
import numbers

import numpy as np

from ..api.ms_errors import RuntimeValueError
from ._parallel import DatasetError, call_user
from .engine import BatchDataset, Dataset, _Run


def check_pad_info(pad_info) -> dict | None:
    """pad_info's types and shapes, with 2.10's messages (measured)."""
    if pad_info is None:
        return None
    if not isinstance(pad_info, dict):
        raise TypeError(f"Argument pad_info with value {pad_info!r} is not of type [<class 'dict'>], "
                        f"but got {type(pad_info)}.")
    for key, value in pad_info.items():
        if not isinstance(key, str):
            raise TypeError(f"Argument key in pad_info with value {key!r} is not of type [<class 'str'>], "
                            f"but got {type(key)}.")
        if value is None:
            continue
        if not isinstance(value, tuple):
            raise TypeError(f"Argument value in pad_info with value {value!r} is not of type [<class 'tuple'>], "
                            f"but got {type(value)}.")
        if len(value) != 2:
            raise ValueError("value of pad_info should be a tuple of size 2.")
        shape = value[0]
        if shape is None:
            continue
        if not isinstance(shape, list):
            raise TypeError(f"Argument shape in pad_info with value {shape} is not of type [<class 'list'>], "
                            f"but got {type(shape)}.")
        for dim in shape:
            if dim is not None and (isinstance(dim, bool) or not isinstance(dim, numbers.Integral) or dim < 1):
                raise ValueError("Input dim of shape in pad_info is not within the required interval of "
                                 "[1, 2147483647].")
    return dict(pad_info)


def _check_columns(what: str, pad_info: dict | None, available: list[str]) -> None:
    for name in pad_info or ():
        if name not in available:
            # 2.10 raises a RuntimeError at iteration; a name error is also a ValueError here
            raise RuntimeValueError(f"{what}: Invalid pad_info, column name: {name} does not exist "
                                    f"(the columns are {available}).")


def pad_column(name: str, values: list, spec, bound: int | None = None) -> np.ndarray:
    """Stacks one column's rows after padding them to `spec = (shape, pad_value)` (or None).
    `bound` replaces the None axes of a list shape (pad_to_bucket_boundary)."""
    arrays = [np.asarray(v) for v in values]
    shape, pad_value = spec if spec is not None else (None, None)
    ranks = {a.ndim for a in arrays}
    if len(ranks) > 1:
        raise DatasetError(f"padding column {name!r}: its rows have different ranks {sorted(ranks)}")
    rank = ranks.pop()
    if shape is not None and len(shape) != rank:
        raise DatasetError(f"Invalid pad_info, rank of pad_shape must be equal to rank of specified column. "
                           f"pad_shapes rank:{len(shape)}, column rank: {rank} (column {name!r})")
    longest = [max(a.shape[d] for a in arrays) for d in range(rank)]
    if shape is None:
        target = longest
    else:
        target = [int(s) if s is not None else (bound if bound is not None else longest[d])
                  for d, s in enumerate(shape)]
    kinds = {a.dtype.kind for a in arrays}
    if kinds <= {"U"} or kinds <= {"S"}:
        dtype = np.result_type(*arrays)  # strings of any length: the longest
    else:
        dtypes = {a.dtype for a in arrays}
        if len(dtypes) > 1:
            raise DatasetError(f"rows of column {name!r} have different dtypes {sorted(map(str, dtypes))}; "
                               "cast them to one in a map")
        dtype = dtypes.pop()
    out = np.zeros((len(arrays), *target), dtype)
    if pad_value is not None:
        out[...] = np.asarray(pad_value).astype(dtype)   # 2.10 casts the pad value (2.7 -> 2 in int32)
    for k, a in enumerate(arrays):
        part = a[tuple(slice(0, t) for t in target)]       # longer rows are cut, as in 2.10
        out[(k, *(slice(0, n) for n in part.shape))] = part
    return out


class PaddedBatchDataset(BatchDataset):
    """`batch` whose rows are padded per `pad_info` before stacking."""

    def __init__(self, child, batch_size, drop_remainder, num_parallel_workers, pad_info):
        super().__init__(child, batch_size, drop_remainder, num_parallel_workers, None, None, None)
        self.pad_info = check_pad_info(pad_info)
        _check_columns("padded_batch", self.pad_info, self._available)

    def _stack(self, name, values, batch_num):
        if self.pad_info is None or (self.pad_info and name not in self.pad_info):
            return BatchDataset._stack(name, values, batch_num)
        return pad_column(name, values, self.pad_info.get(name))


def _check_positive_list(values, what: str, message: str) -> list[int]:
    if not isinstance(values, list):
        raise TypeError(f"Argument {what} with value {values!r} is not of type [<class 'list'>], "
                        f"but got {type(values)}.")
    if any(isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 1 for v in values):
        raise ValueError(message)
    return [int(v) for v in values]


class BucketBatchByLengthDataset(Dataset):
    """Rows batched by length buckets, each batch padded (see the module docstring)."""

    #: get_batch_size() of a bucketed dataset is 1 in 2.10 (measured)
    batch_size = 1

    def __init__(self, child, column_names, bucket_boundaries, bucket_batch_sizes, element_length_function,
                 pad_info, pad_to_bucket_boundary, drop_remainder):
        super().__init__([child], child.num_parallel_workers)
        if not isinstance(column_names, list):
            raise TypeError(f"Argument column_names with value {column_names} is not of type [<class 'list'>], "
                            f"but got {type(column_names)}.")
        if not bucket_boundaries:
            raise ValueError("bucket_boundaries cannot be empty.")
        self.boundaries = _check_positive_list(bucket_boundaries, "bucket_boundaries",
                                               "bucket_boundaries must only contain positive numbers.")
        if any(b >= c for b, c in zip(self.boundaries, self.boundaries[1:])):
            raise ValueError("bucket_boundaries should be strictly increasing.")
        self.batch_sizes = _check_positive_list(bucket_batch_sizes, "bucket_batch_sizes",
                                                "bucket_batch_sizes should be a list of positive numbers.")
        if len(self.batch_sizes) != len(self.boundaries) + 1:
            raise ValueError("bucket_batch_sizes must contain one element more than bucket_boundaries.")
        if element_length_function is None and len(column_names) != 1:
            raise ValueError("If element_length_function is not specified, exactly one column name should be "
                             "passed.")
        if element_length_function is not None and not callable(element_length_function):
            raise TypeError("bucket_batch_by_length: element_length_function must be callable")
        available = child.get_col_names()
        for c in column_names:
            if c not in available:
                raise RuntimeValueError(f"Invalid parameter, input column name: {c} doesn't exist in the dataset "
                                        f"columns {available}.")
        self.column_names, self.length_fn = list(column_names), element_length_function
        self._idx = [available.index(c) for c in column_names]
        self.pad_info = check_pad_info(pad_info)
        _check_columns("bucket_batch_by_length", self.pad_info, available)
        self.pad_to_bucket_boundary, self.drop_remainder = bool(pad_to_bucket_boundary), bool(drop_remainder)
        self._available = available

    def _size(self):
        return None   # only iterating can tell (2.10 counts too)

    def _length(self, row, index: int) -> int:
        if self.length_fn is None:
            value = row[self._idx[0]]
            if value.ndim == 0:
                raise DatasetError(f"bucket_batch_by_length: column {self.column_names[0]!r} is a scalar, it has "
                                   "no length; pass an element_length_function")
            return value.shape[0]
        length = call_user(self.length_fn, tuple(row[i] for i in self._idx),
                           f"bucket_batch_by_length: element_length_function on row {index}")
        if isinstance(length, np.ndarray) and length.ndim == 0:
            length = length.item()
        if isinstance(length, bool) or not isinstance(length, numbers.Integral):
            raise DatasetError(f"bucket_batch_by_length: element_length_function must return an int, got "
                               f"{type(length).__name__} {length!r} for row {index}")
        if length < 0:
            raise DatasetError("Invalid element_length_function, element_length_function must return an integer "
                               f"greater than or equal to 0, but got{length}")
        return int(length)

    def _batch(self, rows: list, bucket: int) -> tuple:
        bound = None
        if self.pad_to_bucket_boundary:
            if bucket == len(self.boundaries):
                bound = -1   # only an error where a None axis asks for it (below)
            else:
                bound = self.boundaries[bucket] - 1
        out = []
        for i, name in enumerate(self._available):
            values = [row[i] for row in rows]
            if self.pad_info and name not in self.pad_info:
                out.append(BatchDataset._stack(name, values, 0))
                continue
            spec = (self.pad_info or {}).get(name)
            if bound == -1 and spec is not None and spec[0] is not None and None in spec[0]:
                raise DatasetError(f"bucket_batch_by_length: pad_to_bucket_boundary cannot pad column {name!r} "
                                   f"for rows of length >= {self.boundaries[-1]} (the last bucket has no "
                                   "boundary); add a larger bucket boundary")
            out.append(pad_column(name, values, spec, bound if bound != -1 else None))
        return tuple(out)

    def _rows(self, run: _Run):
        buckets: list[list] = [[] for _ in self.batch_sizes]
        for index, row in enumerate(self.children[0]._rows(run)):
            k = bisect.bisect_right(self.boundaries, self._length(row, index))
            buckets[k].append(row)
            if len(buckets[k]) == self.batch_sizes[k]:
                yield self._batch(buckets[k], k)
                buckets[k] = []
        if not self.drop_remainder:
            for k, rows in enumerate(buckets):
                if rows:
                    yield self._batch(rows, k)

"""CSVDataset and TextFileDataset: rows read from lists of files (MindSpore's non-mappable sources).

Files are the glob matches of `dataset_files`, sorted by path. As in MindSpore 2.10 (measured),
the row order interleaves files: file i is given to worker i % num_parallel_workers, and the
workers hand out one row each in turn (a worker whose files are done drops out). So with
num_parallel_workers=1 the files are read one after the other, and the default order depends
on the default worker count (8, or fewer CPUs), as in MindSpore.

Sharding splits the rows (in file order) into num_shards ranges of ceil(total / num_shards)
rows, the last wrapping around to the start; a shard interleaves the pieces of files its range
covers. `shuffle`: True or Shuffle.GLOBAL shuffles the file order (identically on every shard)
and then the shard's rows; Shuffle.FILES only the file order; False, and Shuffle.INFILE,
PARTIAL and ADAPTIVE, which change nothing in 2.10 for these datasets (measured), keep it.

Text is returned as numpy string arrays (shape []), also by Tensor iterators, as in MindSpore.
"""
from __future__ import annotations

import bisect
import csv
import enum
import glob
import os
import re

import numpy as np

from ._checks import default_workers
from .engine import Dataset, _check_count


class Shuffle(enum.Enum):
    """mindspore.dataset.Shuffle: shuffle modes of the file-reading datasets."""
    FALSE = "false"
    ADAPTIVE = "adaptive"
    GLOBAL = "global"
    PARTIAL = "partial"
    FILES = "files"
    INFILE = "infile"


def _shuffle_mode(shuffle) -> Shuffle:
    if isinstance(shuffle, bool):
        return Shuffle.GLOBAL if shuffle else Shuffle.FALSE
    if isinstance(shuffle, Shuffle):
        return shuffle
    raise TypeError("shuffle must be of boolean or enum of 'Shuffle' values like 'Shuffle.ADAPTIVE' or "
                    "'Shuffle.GLOBAL' or 'Shuffle.PARTIAL' or 'Shuffle.FILES' or 'Shuffle.INFILE'.")


def _expand_files(name: str, dataset_files) -> list[str]:
    """The files matching `dataset_files` (a pattern or a list of them), sorted; duplicates kept."""
    if isinstance(dataset_files, str):
        patterns = [dataset_files]
    elif isinstance(dataset_files, list):
        patterns = dataset_files
    else:
        raise TypeError(f"{name}: Argument dataset_files with value {dataset_files!r} is not of type "
                        f"[<class 'str'>, <class 'list'>], but got {type(dataset_files)}.")
    if not patterns:
        raise ValueError(f"{name}: Input dataset_files can not be empty, but got '{patterns}'.")
    files, unmatched = [], []
    for pattern in patterns:
        if not isinstance(pattern, str):
            raise TypeError(f"{name}: dataset_files must hold file paths (str), got {pattern!r}")
        matches = [m for m in glob.glob(pattern) if os.path.isfile(m)]
        files += matches
        if not matches:
            unmatched.append(pattern)
    if unmatched:
        raise ValueError(f"{name}: The following patterns did not match any files: {unmatched}.")
    return sorted(files)


def _shard_pieces(counts: list[int], start: int, length: int) -> list[tuple[int, int, int]]:
    """(file, first row, end row) pieces covering rows [start, start + length) of the files'
    concatenation, wrapping around at the end."""
    ends = np.cumsum(counts).tolist()
    total = ends[-1] if ends else 0
    pieces, pos, left = [], start % total if total else 0, length if total else 0
    while left > 0:
        k = bisect.bisect_right(ends, pos)
        offset = pos - (ends[k] - counts[k])
        take = min(counts[k] - offset, left)
        pieces.append((k, offset, offset + take))
        left -= take
        pos = (pos + take) % total
    return pieces


def _interleave(pieces, workers: int) -> list[tuple[int, int]]:
    """(file, row) in output order: piece i goes to worker i % workers; workers take turns."""
    queues = [iter([(k, i) for k, lo, hi in pieces[w::workers] for i in range(lo, hi)]) for w in range(workers)]
    order = []
    while queues:
        still = []
        for q in queues:
            item = next(q, None)
            if item is not None:
                order.append(item)
                still.append(q)
        queues = still
    return order


class _FileRowsDataset(Dataset):
    """Rows parsed from `files` at construction (`self.file_rows[k]` is file k's rows)."""

    def __init__(self, name, files, column_names, file_rows, num_samples, num_parallel_workers, shuffle,
                 num_shards, shard_id):
        if num_parallel_workers is None:
            num_parallel_workers = default_workers()
        if isinstance(num_parallel_workers, bool) or not isinstance(num_parallel_workers, int) \
                or num_parallel_workers < 1:
            raise ValueError(f"{name}: num_parallel_workers must be a positive int, got {num_parallel_workers!r}")
        super().__init__((), num_parallel_workers)
        if (num_shards is None) != (shard_id is None):
            raise ValueError(f"{name}: num_shards and shard_id must be given together")
        if num_shards is not None:
            if isinstance(num_shards, bool) or not isinstance(num_shards, int) or num_shards < 1:
                raise ValueError(f"{name}: num_shards must be a positive int, got {num_shards!r}")
            if isinstance(shard_id, bool) or not isinstance(shard_id, int) or not 0 <= shard_id < num_shards:
                raise ValueError(f"{name}: Input shard_id is not within the required interval of "
                                 f"[0, {num_shards - 1}].")
        self._name = name
        self.files, self.column_names, self.file_rows = files, column_names, file_rows
        self.num_samples = _check_count(num_samples, f"{name}: num_samples", False) if num_samples else None
        self.shuffle_mode = _shuffle_mode(shuffle)
        self.num_shards, self.shard_id = num_shards, shard_id

    def _describe(self):
        return self._name

    def _columns(self):
        return list(self.column_names)

    def _size(self):
        total = sum(len(r) for r in self.file_rows)
        n = -(-total // self.num_shards) if self.num_shards and total else total
        return min(n, self.num_samples) if self.num_samples else n

    def _order(self, run) -> list[tuple[int, int]]:
        files = list(range(len(self.files)))
        if self.shuffle_mode in (Shuffle.GLOBAL, Shuffle.FILES):
            files = run.rng(self, shared=True).permutation(len(files)).tolist()   # the same on every shard
        counts = [len(self.file_rows[k]) for k in files]
        if self.num_shards:
            per = -(-sum(counts) // self.num_shards)
            pieces = _shard_pieces(counts, self.shard_id * per, per)
        else:
            pieces = [(k, 0, n) for k, n in enumerate(counts)]
        pieces = [(files[k], lo, hi) for k, lo, hi in pieces]
        order = _interleave(pieces, self.num_parallel_workers)[: self._size()]
        if self.shuffle_mode is Shuffle.GLOBAL:
            order = [order[i] for i in run.rng(self).permutation(len(order))]
        return order

    def _rows(self, run):
        for k, i in self._order(run):
            yield self.file_rows[k][i]


class TextFileDataset(_FileRowsDataset):
    """One row per non-empty line of the files: column "text" (a numpy string; a line keeps
    a trailing '\\r', as in MindSpore)."""

    def __init__(self, dataset_files, num_samples=None, num_parallel_workers=None, shuffle=Shuffle.GLOBAL,
                 num_shards=None, shard_id=None, cache=None):
        name = "TextFileDataset"
        files = _expand_files(name, dataset_files)
        file_rows = []
        for path in files:
            with open(path, encoding="utf-8", newline="") as f:
                file_rows.append([(np.array(line),) for line in f.read().split("\n") if line])
        super().__init__(name, files, ["text"], file_rows, num_samples, num_parallel_workers, shuffle,
                         num_shards, shard_id)


_INT_PREFIX = re.compile(r"\s*[+-]?\d+")


def _parse_int(text: str) -> np.int32:
    """C++'s stoi, as MindSpore parses: leading spaces, then the longest integer prefix ("-3x" is -3)."""
    match = _INT_PREFIX.match(text)
    if match is None:
        raise ValueError(text)
    return np.int32(int(match.group()))


def _parse_float(text: str) -> np.float32:
    return np.float32(float(text))


def _column_parser(default, name):
    if isinstance(default, str):
        return np.array
    if isinstance(default, int):      # bool too: MindSpore 2.10 reads True as an int32 column (measured)
        return _parse_int
    if isinstance(default, float):
        return _parse_float
    raise TypeError(f"{name}: column type in column_defaults is invalid.")


class CSVDataset(_FileRowsDataset):
    """Rows of CSV files. Without `column_names`, the first line of every file is its header
    (all files must have the same). A column is a string, unless `column_defaults` gives an int
    (int32 column) or a float (float32 column) for it; as MindSpore 2.10 (measured), an empty or
    unparsable numeric field is an error, the default value being used only for its type."""

    def __init__(self, dataset_files, field_delim=",", column_defaults=None, column_names=None, num_samples=None,
                 num_parallel_workers=None, shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None):
        name = "CSVDataset"
        files = _expand_files(name, dataset_files)
        if not isinstance(field_delim, str):
            raise TypeError(f"{name}: Argument field_delim with value {field_delim!r} is not of type "
                            f"[<class 'str'>], but got {type(field_delim)}.")
        if len(field_delim) != 1 or field_delim in '"\r\n':
            raise ValueError(f"{name}: field_delim is invalid.")
        if column_defaults is not None and not isinstance(column_defaults, list):
            raise TypeError(f"{name}: column_defaults should be a list, got {type(column_defaults)}")
        parsers = [_column_parser(d, name) for d in column_defaults or []]
        if column_names is not None:
            if not isinstance(column_names, (list, tuple)) or not all(isinstance(c, str) for c in column_names):
                raise TypeError(f"{name}: column_names should be a list of str.")
            column_names = list(column_names)
            duplicates = sorted({c for c in column_names if column_names.count(c) > 1})
            if duplicates:
                raise ValueError(f"{name}: 'column_names' : Invalid parameter, duplicate column names are not "
                                 f"allowed: {', '.join(duplicates)}")
        header_in_files = not column_names
        file_lines = []
        for path in files:
            with open(path, encoding="utf-8", newline="") as f:
                reader = csv.reader(f, delimiter=field_delim)
                file_lines.append([(reader.line_num, fields) for fields in reader if fields])
        if header_in_files:
            headers = {tuple(lines[0][1]) if lines else () for lines in file_lines}
            if len(headers) != 1 or () in headers:
                raise RuntimeError(f"{name}: Invalid file, failed to obtain column name from input csv file list: "
                                   f"without column_names, the first line of every file is the header, and these "
                                   f"files' first lines differ or are missing: {sorted(headers)}")
            column_names = list(headers.pop())
            file_lines = [lines[1:] for lines in file_lines]
        parsers += [np.array] * (len(column_names) - len(parsers))
        file_rows = [[self._parse(path, line, fields, column_names, parsers) for line, fields in lines]
                     for path, lines in zip(files, file_lines)]
        super().__init__(name, files, column_names, file_rows, num_samples, num_parallel_workers, shuffle,
                         num_shards, shard_id)

    @staticmethod
    def _parse(path, line, fields, column_names, parsers) -> tuple:
        if len(fields) != len(column_names):
            raise RuntimeError(f"CSVDataset: Invalid file, failed to parse csv file: {path} at line {line}: it has "
                               f"{len(fields)} fields, but there are {len(column_names)} columns {column_names}")
        try:
            return tuple(parse(text) for parse, text in zip(parsers, fields))
        except ValueError:
            raise RuntimeError(f"CSVDataset: Invalid csv, csv file: {path} parse failed at line {line}, type does "
                               "not match.") from None

"""MindDataset (rows of MindRecord files, graphcell.mindrecord) and Dataset.save (a pipeline's rows
written as MindRecord)."""
from __future__ import annotations

import numpy as np

from ..mindrecord.reader import open_shards
from .sources import GeneratorDataset


class _MindRecordRows:
    """Random access over the rows of every shard, each a tuple of numpy arrays in `columns`
    order (2.10's types: a string is a '<U' scalar, a bytes field a 1-element 'S' array),
    then `num_padded` copies of `padded_sample`."""

    def __init__(self, shards, columns, padded_sample, num_padded):
        self.shards, self.columns = shards, columns
        self.spans = [(shard, k) for shard in shards for k in range(len(shard))]
        self.schema = shards[0].schema
        self.padded = tuple(self._array(c, padded_sample[c]) for c in columns) if num_padded else None
        self.num_padded = num_padded

    def _array(self, name, value):
        spec = self.schema[name]
        if spec["type"] == "bytes":
            return np.array([bytes(value)])
        if "shape" in spec:
            return np.asarray(value, dtype=spec["type"])
        return np.array(value, dtype=str if spec["type"] == "string" else spec["type"])

    def __len__(self):
        return len(self.spans) + self.num_padded

    def __getitem__(self, i):
        if i >= len(self.spans):
            return self.padded
        shard, k = self.spans[i]
        row = shard.row(k, self.columns)
        return tuple(self._array(c, row[c]) for c in self.columns)


class MindDataset(GeneratorDataset):
    """Rows of MindRecord files (`dataset_files`: one file, which brings its sibling shards, or a
    list of files). Columns are the schema's fields in sorted order, or `columns_list`."""

    def __init__(self, dataset_files, columns_list=None, num_parallel_workers=None, shuffle=None, num_shards=None,
                 shard_id=None, sampler=None, padded_sample=None, num_padded=None, num_samples=None, cache=None):
        shards = open_shards(dataset_files)
        schema = shards[0].schema
        columns = list(columns_list) if columns_list is not None else sorted(schema)
        unknown = [c for c in columns if c not in schema]
        if unknown:
            raise ValueError(f"MindDataset: columns_list {unknown} are not fields of {shards[0].path} "
                             f"({sorted(schema)})")
        if (padded_sample is None) != (num_padded is None):
            raise RuntimeError("MindDataset: padded_sample and num_padded must be given together")
        if padded_sample is not None:
            if columns_list is None:
                raise RuntimeError("padded_sample is specified and requires columns_list as well.")
            if num_shards is None:
                raise RuntimeError("MindDataset: padded_sample needs num_shards (padding makes the rows divide "
                                   "the shards)")
            if not isinstance(num_padded, int) or num_padded < 0:
                raise TypeError(f"MindDataset: num_padded must be a non-negative int, got {num_padded!r}")
            missing = [c for c in columns if c not in padded_sample]
            if missing:
                raise ValueError(f"MindDataset: padded_sample lacks the column(s) {missing}")
        rows = _MindRecordRows(shards, columns, padded_sample, num_padded or 0)
        if num_shards is not None and padded_sample is not None and len(rows) % num_shards:
            raise RuntimeError(f"MindDataset: the rows plus num_padded ({len(rows)}) must divide by num_shards "
                               f"({num_shards})")
        super().__init__(rows, columns, num_samples=num_samples, num_parallel_workers=num_parallel_workers or 1,
                         shuffle=shuffle, sampler=sampler, num_shards=num_shards, shard_id=shard_id)
        self._name = f"MindDataset({shards[0].path!r})"


def _field(name: str, value: np.ndarray) -> dict:
    """The MindRecord schema entry of a column, from its first row's value."""
    if value.dtype.kind == "U":
        if value.ndim:
            raise TypeError(f"Dataset.save: column {name!r} holds an array of strings; MindRecord stores one "
                            "string per field")
        return {"type": "string"}
    if value.dtype.kind == "S":
        return {"type": "bytes"}
    if value.dtype.kind == "f":
        kind = "float64" if value.dtype == np.float64 else "float32"
    elif value.dtype.kind in "iub":
        kind = "int64" if value.dtype in (np.int64, np.uint32, np.uint64) else "int32"
    else:
        raise TypeError(f"Dataset.save: column {name!r} has dtype {value.dtype}, which MindRecord cannot store")
    return {"type": kind} if value.ndim == 0 else {"type": kind, "shape": [-1] + list(value.shape[1:])}


def save(dataset, file_name, num_files=1, file_type="mindrecord"):
    """Writes one epoch of `dataset`'s rows to `num_files` MindRecord shards (Dataset.save)."""
    from ..mindrecord import FileWriter
    if file_type != "mindrecord":
        raise ValueError(f"Dataset.save: file_type must be 'mindrecord', got {file_type!r}")
    names = dataset.get_col_names()
    rows = [dict(zip(names, row)) for row in dataset.create_tuple_iterator(num_epochs=1, output_numpy=True)]
    if not rows:
        raise RuntimeError("Dataset.save: the dataset is empty")
    schema = {n: _field(n, np.asarray(rows[0][n])) for n in names}

    def value(n, v):
        kind = schema[n]["type"]
        if kind == "bytes":
            return bytes(np.asarray(v).reshape(-1)[0]) if np.asarray(v).size == 1 else np.asarray(v).tobytes()
        if kind == "string":
            return str(v)
        return np.asarray(v) if "shape" in schema[n] else np.asarray(v).item()

    writer = FileWriter(file_name, num_files, overwrite=True)
    writer.add_schema(schema, "dataset_save")
    writer.write_raw_data([{n: value(n, row[n]) for n in names} for row in rows])
    writer.commit()

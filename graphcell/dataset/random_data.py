"""Schema (column names, types and shapes, MindSpore's dataset schema and its JSON) and
RandomDataset (rows of random values for testing a pipeline).

As measured on 2.10: a column declared with a shape holds one random value repeated over the
shape (a dimension of -1 gets a random size), a column without one holds a scalar; floats are
random bit patterns (so also inf and nan). Without a schema the columns are random (1 to 4 of
them, named c0, c1, ..., random types and shapes of rank 1 to 4), and without total_rows the
row count is random in [1, 1024]. 2.10 ignores num_samples, shuffle and num_shards/shard_id
for this dataset (measured: total_rows rows whatever they say); so does graphcell.
"""
from __future__ import annotations

import json

import numpy as np

from ..dtype import DType, string
from .sources import GeneratorDataset

# MindSpore's column type names; "string" holds numpy str values
_TYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "string")


def _type_name(de_type) -> str:
    if isinstance(de_type, DType):
        name = de_type.np_dtype.name
    elif de_type is string:
        name = "string"
    elif isinstance(de_type, str):
        name = de_type
    else:
        name = None
    if name not in _TYPES:
        raise TypeError("Unknown column type.")
    return name


class Schema:
    """Columns of a dataset: `add_column(name, de_type, shape=None)`, printed as 2.10's JSON."""

    def __init__(self, schema_file=None):
        self.columns: list[dict] = []
        self.num_rows = None
        if schema_file is not None:
            with open(schema_file) as f:
                self.from_json(json.load(f))

    def add_column(self, name, de_type, shape=None):
        if not isinstance(name, str):
            raise TypeError(f"Argument name with value {name!r} is not of type [<class 'str'>], but got {type(name)}.")
        if shape is not None and not isinstance(shape, list):
            raise TypeError(f"Argument shape with value {shape!r} is not of type [<class 'list'>], "
                            f"but got {type(shape)}.")
        column = {"name": name, "rank": len(shape) if shape is not None else 1, "type": _type_name(de_type)}
        if shape is not None:
            column["shape"] = [int(d) for d in shape]
        self.columns.append(column)

    def parse_columns(self, columns):
        """Columns from [{"name":, "type":, "shape":}, ...] or {name: {"type":, "shape":}}."""
        items = [dict(c, name=n) for n, c in columns.items()] if isinstance(columns, dict) else list(columns)
        for c in items:
            self.add_column(c["name"], c["type"], c.get("shape"))

    def from_json(self, json_obj: dict):
        self.columns = []
        self.parse_columns(json_obj["columns"])
        self.num_rows = json_obj.get("numRows")

    def to_json(self) -> str:
        columns = [dict(sorted(c.items())) for c in self.columns] or None   # 2.10 writes null when empty
        return json.dumps({"columns": columns}, indent=2)

    def get_num_rows(self):
        return self.num_rows

    def __str__(self):
        return self.to_json()


def _random_value(rng: np.random.Generator, type_name: str, shape: tuple) -> np.ndarray:
    if type_name == "string":
        return np.full(shape, str(rng.integers(1 << 31)))
    if type_name == "bool":
        value = rng.integers(2).astype(bool)
    else:
        dtype = np.dtype(type_name)
        value = np.frombuffer(rng.bytes(dtype.itemsize), dtype=dtype)[0]
    return np.full(shape, value)


class _RandomRows:
    """Row i is drawn from an RNG seeded with (seed, i): the same on every pass."""

    def __init__(self, columns: list[dict], total_rows: int, seed: int):
        self.total_rows, self.seed = total_rows, seed
        rng = np.random.default_rng([seed, 1 << 20])
        # a -1 dimension is drawn once per column
        self.layout = [(c["type"], tuple(int(rng.integers(1, 33)) if d < 0 else d for d in c.get("shape", ())))
                       for c in columns]

    def __len__(self):
        return self.total_rows

    def __getitem__(self, i):
        rng = np.random.default_rng([self.seed, int(i)])
        return tuple(_random_value(rng, t, shape) for t, shape in self.layout)


def _random_columns(rng) -> list[dict]:
    return [{"name": f"c{k}", "type": str(rng.choice(_TYPES[:-1])),
             "shape": [int(d) for d in rng.integers(1, 33, size=int(rng.integers(1, 5)))]}
            for k in range(int(rng.integers(1, 5)))]


class RandomDataset(GeneratorDataset):
    """`total_rows` rows of random values in the columns of `schema` (a Schema or a JSON
    file), or random columns without one; `columns_list` keeps only those columns."""

    def __init__(self, total_rows=None, schema=None, columns_list=None, num_samples=None, num_parallel_workers=None,
                 cache=None, shuffle=None, num_shards=None, shard_id=None):
        from .config import get_seed
        if total_rows is not None and (isinstance(total_rows, bool) or not isinstance(total_rows, int)
                                       or total_rows < 0):
            raise ValueError(f"RandomDataset: total_rows must be a non-negative int, got {total_rows!r}")
        seed = get_seed()
        rng = np.random.default_rng([seed, 1 << 21])
        if isinstance(schema, str):
            schema = Schema(schema)
        if schema is not None and not isinstance(schema, Schema):
            raise TypeError(f"RandomDataset: schema must be a Schema or a JSON file name, got {type(schema).__name__}")
        columns = list(schema.columns) if schema is not None else _random_columns(rng)
        if columns_list is not None:
            missing = [c for c in columns_list if c not in [col["name"] for col in columns]]
            if missing:
                raise ValueError(f"RandomDataset: columns_list names {missing}, not in the schema")
            columns = [next(col for col in columns if col["name"] == name) for name in columns_list]
        if total_rows is None or total_rows == 0:
            total_rows = (schema.num_rows if schema is not None else None) or int(rng.integers(1, 1025))
        super().__init__(_RandomRows(columns, total_rows, seed), [c["name"] for c in columns], shuffle=False,
                         num_parallel_workers=num_parallel_workers or 1)
        self._name = "RandomDataset"

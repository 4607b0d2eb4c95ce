"""FileReader: MindRecord files -> rows (dicts), located through each shard's SQLite index."""
from __future__ import annotations

import mmap
import os
import sqlite3
import struct

from . import _format as fmt
from ._format import MindRecordFormatError


class Shard:
    """One data file and its `.db` index: the header, and each row's raw/blob byte ranges."""

    def __init__(self, path: str):
        self.path = path
        if not os.path.isfile(path):
            raise RuntimeError(f"Invalid file, MindRecord file {path} does not exist.")
        if not os.path.isfile(path + ".db"):
            raise RuntimeError(f"Invalid file, the MindRecord index file {path}.db of {path} does not exist.")
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            self._data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
        self.header = fmt.read_header(path, self._data[:min(size, 1 << 27)] if size else b"")
        schema = self.header["schema"]
        if len(schema) != 1 or "schema" not in schema[0]:
            raise MindRecordFormatError(f"{path}: the header holds {len(schema)} schemas; MindRecord files hold one")
        self.schema = schema[0]["schema"]
        self.blob_fields = schema[0].get("blob_fields", [])
        self._hsize, self._psize = self.header["header_size"], self.header["page_size"]
        try:
            con = sqlite3.connect(f"file:{path}.db?mode=ro", uri=True)
            try:
                self._index = con.execute("SELECT ROW_ID, PAGE_ID_RAW, PAGE_OFFSET_RAW, PAGE_OFFSET_RAW_END, "
                                          "PAGE_ID_BLOB, PAGE_OFFSET_BLOB, PAGE_OFFSET_BLOB_END FROM INDEXES "
                                          "ORDER BY ROW_ID").fetchall()
            finally:
                con.close()
        except sqlite3.DatabaseError as e:
            raise MindRecordFormatError(f"{path}.db: not a MindRecord index ({e})") from None

    def __len__(self):
        return len(self._index)

    def _payload(self, page: int, start: int, end: int, what: str, row: int) -> bytes:
        base = self._hsize + page * self._psize
        if end - start < 8 or base + end > len(self._data):
            raise MindRecordFormatError(f"{self.path}: row {row}'s {what} data lies past the end of the file "
                                        f"(truncated?)")
        chunk = self._data[base + start: base + end]
        n = struct.unpack("<Q", chunk[:8])[0]
        if n != len(chunk) - 8:
            raise MindRecordFormatError(f"{self.path}: row {row}'s {what} data has length {n}, its index says "
                                        f"{len(chunk) - 8} (corrupt file)")
        return chunk[8:]

    def row(self, k: int, columns=None) -> dict:
        row_id, raw_page, raw_start, raw_end, blob_page, blob_start, blob_end = self._index[k]
        where = f"{self.path}, row {row_id}"
        out = fmt.msgpack_loads(self._payload(raw_page, raw_start, raw_end, "raw", row_id), where)
        if not isinstance(out, dict):
            raise MindRecordFormatError(f"{where}: a raw row is not a map")
        if self.blob_fields and (columns is None or any(c in self.blob_fields for c in columns)):
            blob = self._payload(blob_page, blob_start, blob_end, "blob", row_id)
            out.update(fmt.decode_blob(blob, self.blob_fields, self.schema, where))
        missing = [f for f in self.schema if f not in out and (columns is None or f in columns)]
        if missing:
            raise MindRecordFormatError(f"{where}: the row lacks the schema field(s) {missing}")
        for f, spec in self.schema.items():   # msgpack stores integral floats compactly: give the schema's type
            if f in out and spec["type"] in ("float32", "float64") and "shape" not in spec:
                out[f] = float(out[f])
        names = sorted(self.schema) if columns is None else columns
        return {f: out[f] for f in names}

    def rows(self, columns=None):
        for k in range(len(self)):
            yield k, self.row(k, columns)

    def close(self):
        if isinstance(self._data, mmap.mmap):
            self._data.close()


def open_shards(file_name) -> list[Shard]:
    """A file name opens every shard its header lists (beside it); a list opens just those."""
    if isinstance(file_name, (list, tuple)):
        if not file_name or not all(isinstance(f, str) for f in file_name):
            raise ValueError("file_name must be a str or a non-empty list of str")
        return [Shard(os.path.abspath(f)) for f in file_name]
    if not isinstance(file_name, str):
        raise TypeError(f"file_name must be a str or a list of str, got {type(file_name).__name__}")
    first = Shard(os.path.abspath(file_name))
    folder = os.path.dirname(first.path)
    shards = []
    for name in first.header["shard_addresses"]:
        path = os.path.join(folder, os.path.basename(name))
        shards.append(first if path == first.path else Shard(path))
    if first not in shards:
        first.close()
    return shards


class FileReader:
    """Reads MindRecord files (`mindspore.mindrecord.FileReader`): `get_next()` yields one dict per
    row, sorted field names (or `columns`); scalars as Python values, arrays as numpy arrays,
    bytes fields as bytes."""

    def __init__(self, file_name, num_consumer=4, columns=None, operator=None):
        self._shards = open_shards(file_name)
        schema = self._shards[0].schema
        if columns is not None:
            if not isinstance(columns, list) or not columns:
                raise ValueError("columns must be a non-empty list of field names")
            unknown = [c for c in columns if c not in schema]
            if unknown:
                raise ValueError(f"FileReader: columns {unknown} are not in the schema {sorted(schema)}")
        self._columns = columns

    def get_next(self):
        for shard in self._shards:
            for _, row in shard.rows(self._columns):
                yield row

    def len(self):   # noqa: A003 - MindSpore's name
        return sum(len(s) for s in self._shards)

    def schema(self):
        return dict(self._shards[0].schema)

    def close(self):
        for shard in self._shards:
            shard.close()

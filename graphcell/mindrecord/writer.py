"""FileWriter: rows -> MindRecord files (data file + SQLite `.db` index per shard), as 2.10 writes them.

Rows are kept until `commit`, which lays every shard out as 2.10 lays out one write_raw_data
call (blob pages first, cut greedily; then raw pages, one row group per blob page) and writes
each file to a temporary name before renaming it, so a failed commit leaves no half file.
"""
from __future__ import annotations

import os
import sqlite3
import struct

import numpy as np

from . import _format as fmt

SUCCESS, FAILED = 0, 1
_MIN_HEADER, _MAX_HEADER = 1 << 14, 1 << 27
_MIN_PAGE, _MAX_PAGE = 1 << 15, 1 << 28
_SQL_TYPES = {"string": "TEXT", "int32": "INTEGER", "int64": "INTEGER", "float32": "REAL", "float64": "REAL"}
_INDEX_COLUMNS = ("CREATE TABLE INDEXES(  ROW_ID               INT  NOT NULL, PAGE_ID_RAW          INT  NOT NULL, "
                  "PAGE_OFFSET_RAW      INT  NOT NULL, PAGE_OFFSET_RAW_END  INT  NOT NULL, ROW_GROUP_ID         INT  "
                  "NOT NULL, PAGE_ID_BLOB         INT  NOT NULL, PAGE_OFFSET_BLOB     INT  NOT NULL, "
                  "PAGE_OFFSET_BLOB_END INT  NOT NULL")


def shard_names(file_name: str, shard_num: int) -> list[str]:
    return [file_name] if shard_num == 1 else [f"{file_name}{i}" for i in range(shard_num)]


class FileWriter:
    """Writes MindRecord files (`mindspore.mindrecord.FileWriter`).

    >>> w = FileWriter("/tmp/demo.mindrecord", overwrite=True)
    >>> w.add_schema({"label": {"type": "int32"}, "img": {"type": "bytes"}}, "demo")
    0
    >>> w.write_raw_data([{"label": 1, "img": b"abc"}])
    >>> w.commit()
    0
    """

    def __init__(self, file_name, shard_num=1, overwrite=False):
        if not isinstance(file_name, str) or not file_name:
            raise ValueError(f"FileWriter: file_name must be a non-empty str, got {file_name!r}")
        if isinstance(shard_num, bool) or not isinstance(shard_num, int) or not 1 <= shard_num <= 1000:
            raise ValueError(f"Parameter shard_num's value: {shard_num} should between 1 and 1000.")
        self._paths = shard_names(os.path.abspath(file_name), shard_num)
        if not overwrite:
            for path in self._paths:
                for p in (path, path + ".db"):
                    if os.path.exists(p):
                        raise RuntimeError(f"Invalid file, mindrecord files already exist. Please check file path: "
                                           f"{p}. You can set overwrite=True to remove them.")
        self._header_size, self._page_size = 1 << 24, 1 << 25
        self._schema: dict | None = None
        self._desc = ""
        self._index: list[str] | None = None
        self._calls: list[list[dict]] = []   # rows per write_raw_data call (each call is split over the shards)
        self._existing: list[list[dict]] = []   # open_for_append: the rows already in each shard
        self._committed = False

    # -- settings -----------------------------------------------------------------------------
    def set_header_size(self, header_size):
        if not _MIN_HEADER <= header_size <= _MAX_HEADER:
            raise RuntimeError(f"Invalid data, header size: {header_size} should be in range [{_MIN_HEADER} bytes, "
                               f"{_MAX_HEADER} bytes].")
        self._header_size = int(header_size)
        return SUCCESS

    def set_page_size(self, page_size):
        if not _MIN_PAGE <= page_size <= _MAX_PAGE:
            raise RuntimeError(f"Invalid data, page size: {page_size} should be in range [{_MIN_PAGE} bytes, "
                               f"{_MAX_PAGE} bytes].")
        self._page_size = int(page_size)
        return SUCCESS

    def add_schema(self, content, desc=None):
        if not isinstance(content, dict) or not content:
            raise ValueError("FileWriter.add_schema: content must be a non-empty dict {field: {'type': ..., "
                             "'shape': [...]}}")
        for name, spec in content.items():
            kind = spec.get("type") if isinstance(spec, dict) else None
            shape = spec.get("shape") if isinstance(spec, dict) else None
            if shape is None and kind not in fmt.SCALAR_TYPES + ("bytes",):
                raise ValueError(f"FileWriter.add_schema: field {name!r} has type {kind!r}; it must be one of "
                                 f"{list(fmt.SCALAR_TYPES) + ['bytes']}")
            if shape is not None and (kind not in fmt.ARRAY_TYPES or not isinstance(shape, list)
                                      or not all(isinstance(d, int) and (d > 0 or d == -1) for d in shape)
                                      or shape.count(-1) > 1):
                raise ValueError(f"FileWriter.add_schema: field {name!r} with a shape must have a type in "
                                 f"{list(fmt.ARRAY_TYPES)} and a shape of positive ints and at most one -1, got "
                                 f"{spec!r}")
        if self._schema is not None:
            raise RuntimeError("FileWriter.add_schema: a schema was added already (MindRecord files hold one)")
        self._schema = {k: dict(v) for k, v in content.items()}
        self._desc = "" if desc is None else str(desc)
        return 0

    def add_index(self, index_fields):
        if self._schema is None:
            raise RuntimeError("FileWriter.add_index: add the schema first")
        if not isinstance(index_fields, list) or not index_fields:
            raise ValueError("FileWriter.add_index: index_fields must be a non-empty list of field names")
        for f in index_fields:
            if f not in self._schema or f in self._blob_fields():
                raise ValueError(f"FileWriter.add_index: {f!r} is not a scalar (int, float or string) field of the "
                                 f"schema; only those can be indexed")
        self._index = list(index_fields)
        return SUCCESS

    def _blob_fields(self) -> list[str]:
        return sorted(k for k, v in self._schema.items() if v["type"] == "bytes" or "shape" in v)

    # -- rows ---------------------------------------------------------------------------------
    def write_raw_data(self, raw_data, parallel_writer=False):
        if self._committed:
            raise RuntimeError("FileWriter.write_raw_data: the writer was committed already")
        if self._schema is None:
            raise RuntimeError("FileWriter.write_raw_data: add the schema first (add_schema)")
        if not isinstance(raw_data, list) or not all(isinstance(r, dict) for r in raw_data):
            raise ValueError("The type of raw_data must be list of dict.")
        for i, row in enumerate(raw_data):
            missing = [f for f in self._schema if f not in row]
            if missing:
                raise ValueError(f"FileWriter.write_raw_data: row {i} lacks the schema field(s) {missing}")
        self._calls.append([{f: row[f] for f in self._schema} for row in raw_data])

    def commit(self):
        if self._schema is None:
            raise RuntimeError("FileWriter.commit: add the schema first (add_schema)")
        shards: list[list[dict]] = [list(rows) for rows in self._existing] or [[] for _ in self._paths]
        for rows in self._calls:   # like 2.10: each call's rows cut into contiguous runs, the first shards larger
            n, k = len(rows), len(self._paths)
            start = 0
            for s in range(k):
                count = n // k + (1 if s < n % k else 0)
                shards[s].extend(rows[start:start + count])
                start += count
        names = [os.path.basename(p) for p in self._paths]
        for shard_id, (path, rows) in enumerate(zip(self._paths, shards)):
            data, index_rows = self._layout(rows, names, shard_id)
            _write_atomic(path, data)
            self._write_index(path + ".db", index_rows, names[shard_id])
        self._committed = True
        return SUCCESS

    def _index_fields(self) -> list[str]:
        if self._index is not None:
            return self._index
        blobs = self._blob_fields()
        return sorted(f for f in self._schema if f not in blobs)

    def _layout(self, rows: list[dict], names: list[str], shard_id: int):
        schema, blobs, page = self._schema, self._blob_fields(), self._page_size
        raws, blob_rows, compression = [], [], 0
        for row in rows:
            scalars = {f: _scalar(row[f], schema[f]["type"], f) for f in schema if f not in blobs}
            raws.append(struct.pack("<Q", 0) + fmt.msgpack_dumps(scalars))
            blob = fmt.encode_blob(row, blobs, schema)
            blob_rows.append(struct.pack("<Q", len(blob)) + blob)
            for f in blobs:
                if schema[f]["type"] in ("int32", "int64"):
                    array = np.asarray(row[f])
                    compression += array.size * np.dtype(fmt.NUMPY[schema[f]["type"]]).itemsize - \
                        len(fmt.pack_ints(array))
        raws = [struct.pack("<Q", len(r) - 8) + r[8:] for r in raws]
        for what, items in (("blob", blob_rows), ("raw", raws)):
            for i, item in enumerate(items):
                if len(item) > page:
                    raise RuntimeError(f"FileWriter: row {i}'s {what} data ({len(item)} bytes) is larger than a page "
                                       f"({page} bytes); raise it with set_page_size")
        # blob pages: one row group each, cut greedily
        groups: list[list[int]] = []
        used = page
        for i, item in enumerate(blob_rows):
            if used + len(item) > page:
                groups.append([])
                used = 0
            groups[-1].append(i)
            used += len(item)
        pages, bodies, index_rows = [], [], [None] * len(rows)
        for g, members in enumerate(groups):
            offset = 0
            for i in members:
                index_rows[i] = [i, None, None, None, g, g, offset, offset + len(blob_rows[i])]
                offset += len(blob_rows[i])
            pages.append({"end_row_id": members[-1] + 1, "page_id": g, "page_size": offset, "page_type": "BLOB_DATA",
                          "page_type_id": g, "row_group_ids": [{"id": 0, "offset": 0}], "shard_id": shard_id,
                          "start_row_id": members[0]})
            bodies.append(b"".join(blob_rows[i] for i in members))
        raw_page, raw_body = None, []
        for g, members in enumerate(groups):
            for j, i in enumerate(members):
                if raw_page is None or raw_page["page_size"] + len(raws[i]) > page:
                    if raw_page is not None:
                        bodies.append(b"".join(raw_body))
                    page_id = len(pages)
                    raw_page = {"end_row_id": 0, "page_id": page_id, "page_size": 0, "page_type": "RAW_DATA",
                                "page_type_id": 0 if raw_page is None else page_id, "row_group_ids": [],
                                "shard_id": shard_id, "start_row_id": 0}
                    pages.append(raw_page)
                    raw_body = []
                if j == 0 or not raw_page["row_group_ids"]:
                    raw_page["row_group_ids"].append({"id": g, "offset": raw_page["page_size"]})
                start = raw_page["page_size"]
                index_rows[i][1:4] = [raw_page["page_id"], start, start + len(raws[i])]
                raw_page["page_size"] += len(raws[i])
                raw_body.append(raws[i])
        if raw_page is not None:
            bodies.append(b"".join(raw_body))
        header = {"header_size": self._header_size,
                  "index_fields": [{"index_field": f, "schema_id": 0} for f in self._index_fields()],
                  "page": pages, "page_size": page, "compression_size": compression,
                  "schema": [{"blob_fields": blobs, "desc": self._desc, "schema": schema}],
                  "shard_addresses": names, "shard_id": shard_id, "statistics": None, "version": fmt.VERSION}
        text = fmt.header_json(header)
        if 8 + len(text) > self._header_size:
            raise RuntimeError(f"FileWriter: the header ({8 + len(text)} bytes) is larger than header_size "
                               f"({self._header_size}); raise it with set_header_size")
        parts = [(struct.pack("<Q", len(text)) + text).ljust(self._header_size, b"\0")]
        parts += [body.ljust(page, b"\0") for body in bodies[:-1]] + bodies[-1:]
        for k, row in enumerate(rows):
            index_rows[k] = index_rows[k] + [v for f in self._index_fields()
                                             for v in (0, _scalar(row[f], schema[f]["type"], f))]
        return b"".join(parts), index_rows

    def _write_index(self, path: str, index_rows: list, shard_name: str):
        fields = self._index_fields()
        columns = "".join(f",INC_{k} INT, {f}_0 {_SQL_TYPES[self._schema[f]['type']]}" for k, f in enumerate(fields))
        key = ",".join(["ROW_ID"] + [f"INC_{k}" for k in range(len(fields))])
        tmp = path + ".tmp"
        if os.path.exists(tmp):
            os.remove(tmp)
        con = sqlite3.connect(tmp)
        try:
            con.execute(f"{_INDEX_COLUMNS}{columns}, PRIMARY KEY({key}))")
            con.execute("CREATE TABLE SHARD_NAME(NAME TEXT NOT NULL)")
            con.execute("INSERT INTO SHARD_NAME VALUES (?)", (shard_name,))
            marks = ",".join("?" * (8 + 2 * len(fields)))
            con.executemany(f"INSERT INTO INDEXES VALUES ({marks})", index_rows)
            con.commit()
        finally:
            con.close()
        os.replace(tmp, path)

    @classmethod
    def open_for_append(cls, file_name):
        """A writer that adds rows to existing MindRecord file(s): the rows there are read back
        and the files rewritten at commit (2.10 appends in place; the rows are the same)."""
        from .reader import FileReader
        reader = FileReader(file_name)
        header = reader._shards[0].header
        paths = [s.path for s in reader._shards]
        writer = cls.__new__(cls)
        writer._paths = paths
        writer._header_size, writer._page_size = header["header_size"], header["page_size"]
        writer._schema = header["schema"][0]["schema"]
        writer._desc = header["schema"][0]["desc"]
        indexed = [f["index_field"] for f in header["index_fields"]]
        writer._index = indexed
        writer._calls = []
        writer._existing = [[row for _, row in shard.rows()] for shard in reader._shards]  # stay in their shard
        writer._committed = False
        reader.close()
        return writer


def _scalar(value, kind: str, name: str):
    if hasattr(value, "asnumpy"):
        value = value.asnumpy()
    if isinstance(value, np.ndarray):
        if value.size != 1:
            raise TypeError(f"MindRecord field {name!r} is a scalar {kind}, got an array of shape {value.shape}")
        value = value.item()
    if kind == "string":
        if not isinstance(value, str):
            raise TypeError(f"MindRecord field {name!r} is 'string', got {type(value).__name__}")
        return value
    if kind in ("int32", "int64"):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"MindRecord field {name!r} is {kind}, got {type(value).__name__}")
        info = np.iinfo(fmt.NUMPY[kind])
        if not info.min <= int(value) <= info.max:
            raise ValueError(f"MindRecord field {name!r} is {kind}, got {value} (out of range)")
        return int(value)
    if not isinstance(value, (int, float, np.integer, np.floating)) or isinstance(value, bool):
        raise TypeError(f"MindRecord field {name!r} is {kind}, got {type(value).__name__}")
    return float(np.float32(value)) if kind == "float32" else float(value)


def _write_atomic(path: str, data: bytes):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)

"""MindRecord's bytes, as MindSpore 2.10 writes them (measured by writing files with 2.10 and
reading them back; see tests/data/mindrecord/README.md).

A data file is a header region (`header_size` bytes: an 8-byte little-endian length, then the
header JSON, zero-padded) followed by pages of `page_size` bytes (the last one unpadded). Rows
are split in two: the scalar fields go msgpack-encoded to RAW_DATA pages, the array and bytes
fields (the schema's "blob_fields") to BLOB_DATA pages. Every row on either page is an 8-byte
little-endian length and its payload. A blob payload with several blob fields is each field's
8-byte big-endian length and bytes (sorted by field name); with one field, its bytes alone.
int32/int64 arrays are compressed (`pack_ints`); float arrays are their little-endian bytes.
The `.db` file beside it is a SQLite index (writer.py) that locates each row.
"""
from __future__ import annotations

import json
import struct

import numpy as np

SCALAR_TYPES = ("int32", "int64", "float32", "float64", "string")
ARRAY_TYPES = ("int32", "int64", "float32", "float64")
NUMPY = {"int32": np.int32, "int64": np.int64, "float32": np.float32, "float64": np.float64}
VERSION = "3.0"


class MindRecordFormatError(RuntimeError):
    """A MindRecord file whose bytes do not follow the format (corrupt or truncated)."""


# -- header ---------------------------------------------------------------------------------
def header_json(header: dict) -> bytes:
    """The header as 2.10 dumps it: compact, keys in its order (nested dicts sorted), UTF-8."""
    order = ("header_size", "index_fields", "page", "page_size", "compression_size", "schema",
             "shard_addresses", "shard_id", "statistics", "version")
    body = ",".join(json.dumps(k) + ":" + json.dumps(header[k], separators=(",", ":"), sort_keys=True,
                                                       ensure_ascii=False) for k in order)
    return ("{" + body + "}").encode()


def read_header(path: str, data: bytes) -> dict:
    if len(data) < 8:
        raise MindRecordFormatError(f"{path}: not a MindRecord file (only {len(data)} bytes; truncated?)")
    n = int.from_bytes(data[:8], "little")
    if n <= 0 or 8 + n > len(data):
        raise MindRecordFormatError(f"{path}: not a MindRecord file, or a truncated one (header length {n}, "
                                    f"file length {len(data)})")
    try:
        header = json.loads(data[8:8 + n].decode())
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise MindRecordFormatError(f"{path}: the MindRecord header is not valid JSON ({e})") from None
    for key in ("header_size", "page_size", "page", "schema", "shard_addresses"):
        if key not in header:
            raise MindRecordFormatError(f"{path}: the MindRecord header has no {key!r}")
    return header


# -- int compression ----------------------------------------------------------------------
_WIDTHS = ((np.int8, 0), (np.int16, 1), (np.int32, 2), (np.int64, 3))


def pack_ints(values: np.ndarray) -> bytes:
    """An int array as 2.10 stores it: the count (4 bytes, big-endian), a 2-bit width code per
    element (0: 1 byte, 1: 2, 2: 4, 3: 8; first element in the high bits), then each element
    little-endian in the smallest signed width that holds it."""
    flat = values.astype("<i8").ravel()
    codes = np.full(flat.shape, 3, np.uint8)
    for dtype, code in reversed(_WIDTHS[:3]):
        info = np.iinfo(dtype)
        codes[(flat >= info.min) & (flat <= info.max)] = code
    padded = np.zeros(-(-len(flat) // 4) * 4, np.uint8)
    padded[: len(flat)] = codes
    quads = padded.reshape(-1, 4)
    code_bytes = (quads[:, 0] << 6) | (quads[:, 1] << 4) | (quads[:, 2] << 2) | quads[:, 3]
    # a little-endian two's-complement value cut to its first `width` bytes is that value in the narrower type
    keep = np.arange(8) < (1 << codes.astype(np.int64))[:, None]
    body = flat.view(np.uint8).reshape(-1, 8)[keep].tobytes()
    return struct.pack(">I", len(flat)) + code_bytes.astype(np.uint8).tobytes() + body


def unpack_ints(blob: bytes, where: str) -> np.ndarray:
    if len(blob) < 4:
        raise MindRecordFormatError(f"{where}: a compressed int array of {len(blob)} bytes")
    n = struct.unpack(">I", blob[:4])[0]
    pos = 4 + (n + 3) // 4
    if pos > len(blob):
        raise MindRecordFormatError(f"{where}: a compressed int array is truncated")
    packed = np.frombuffer(blob, np.uint8, count=pos - 4, offset=4)
    codes = (packed[:, None] >> np.array([6, 4, 2, 0], np.uint8)).ravel()[:n] & 3
    widths = np.left_shift(1, codes.astype(np.int64))
    if pos + int(widths.sum()) > len(blob):
        raise MindRecordFormatError(f"{where}: a compressed int array is truncated")
    body = np.frombuffer(blob, np.uint8, count=int(widths.sum()), offset=pos)
    keep = np.arange(8) < widths[:, None]
    starts = np.cumsum(widths) - widths
    # each value's bytes, then its sign byte repeated up to 8 bytes
    out = np.zeros((n, 8), np.uint8)
    out[body[starts + widths - 1] >= 0x80] = 0xFF
    out[keep] = body
    return out.view("<i8").reshape(n).astype(np.int64)


# -- msgpack (the subset 2.10 writes for raw fields) ---------------------------------------------
def msgpack_dumps(value) -> bytes:
    """nlohmann::json's msgpack (what 2.10 writes): smallest int form, unsigned forms for
    non-negative ints, float32 when the double converts exactly, map keys sorted."""
    if isinstance(value, dict):
        n = len(value)
        head = bytes([0x80 | n]) if n < 16 else (b"\xde" + struct.pack(">H", n) if n < 1 << 16
                                                  else b"\xdf" + struct.pack(">I", n))
        return head + b"".join(msgpack_dumps(k) + msgpack_dumps(value[k]) for k in sorted(value))
    if isinstance(value, str):
        raw = value.encode()
        n = len(raw)
        if n < 32:
            return bytes([0xA0 | n]) + raw
        for tag, fmt, limit in ((0xD9, ">B", 1 << 8), (0xDA, ">H", 1 << 16), (0xDB, ">I", 1 << 32)):
            if n < limit:
                return bytes([tag]) + struct.pack(fmt, n) + raw
    if isinstance(value, (bool, np.bool_)):
        return b"\xc3" if value else b"\xc2"
    if isinstance(value, (int, np.integer)):
        v = int(value)
        if v >= 0:
            if v < 128:
                return bytes([v])
            for tag, fmt, limit in ((0xCC, ">B", 1 << 8), (0xCD, ">H", 1 << 16), (0xCE, ">I", 1 << 32),
                                    (0xCF, ">Q", 1 << 64)):
                if v < limit:
                    return bytes([tag]) + struct.pack(fmt, v)
        if v >= -32:
            return struct.pack(">b", v)
        for tag, fmt, bits in ((0xD0, ">b", 8), (0xD1, ">h", 16), (0xD2, ">i", 32), (0xD3, ">q", 64)):
            if v >= -(1 << (bits - 1)):
                return bytes([tag]) + struct.pack(fmt, v)
    if isinstance(value, (float, np.floating)):
        v = float(value)
        as32 = np.float32(v)
        if np.isfinite(as32) and float(as32) == v:
            return b"\xca" + struct.pack(">f", v)
        return b"\xcb" + struct.pack(">d", v)
    raise TypeError(f"MindRecord cannot store a {type(value).__name__} in a scalar field")


def msgpack_loads(data: bytes, where: str):
    try:
        value, pos = _load(data, 0)
    except (IndexError, struct.error, UnicodeDecodeError, KeyError) as e:
        raise MindRecordFormatError(f"{where}: a raw row is not valid msgpack ({e})") from None
    if pos != len(data):
        raise MindRecordFormatError(f"{where}: a raw row has {len(data) - pos} trailing bytes")
    return value


_FIXED = {0xCA: ">f", 0xCB: ">d", 0xCC: ">B", 0xCD: ">H", 0xCE: ">I", 0xCF: ">Q",
          0xD0: ">b", 0xD1: ">h", 0xD2: ">i", 0xD3: ">q"}
_STR = {0xD9: ">B", 0xDA: ">H", 0xDB: ">I"}


def _load(data: bytes, pos: int):
    tag = data[pos]
    pos += 1
    if tag < 0x80:
        return tag, pos
    if tag >= 0xE0:
        return tag - 0x100, pos
    if 0x80 <= tag <= 0x8F or tag in (0xDE, 0xDF):
        if tag <= 0x8F:
            n = tag & 0x0F
        else:
            fmt = ">H" if tag == 0xDE else ">I"
            n = struct.unpack_from(fmt, data, pos)[0]
            pos += struct.calcsize(fmt)
        out = {}
        for _ in range(n):
            key, pos = _load(data, pos)
            out[key], pos = _load(data, pos)
        return out, pos
    if 0xA0 <= tag <= 0xBF or tag in _STR:
        if tag <= 0xBF:
            n = tag & 0x1F
        else:
            n = struct.unpack_from(_STR[tag], data, pos)[0]
            pos += struct.calcsize(_STR[tag])
        if pos + n > len(data):
            raise IndexError("string past the end")
        return data[pos:pos + n].decode(), pos + n
    if tag in (0xC2, 0xC3):
        return tag == 0xC3, pos
    if tag == 0xC0:
        return None, pos
    fmt = _FIXED[tag]
    return struct.unpack_from(fmt, data, pos)[0], pos + struct.calcsize(fmt)


# -- blob rows ----------------------------------------------------------------------------------
def encode_field(value, spec: dict, name: str) -> bytes:
    kind = spec["type"]
    if kind == "bytes":
        if not isinstance(value, (bytes, bytearray, np.bytes_)):
            raise TypeError(f"MindRecord field {name!r} is 'bytes', got {type(value).__name__}")
        return bytes(value)
    array = np.asarray(value)
    if kind in ("int32", "int64"):
        if array.dtype.kind not in "iub":
            raise TypeError(f"MindRecord field {name!r} is {kind}, got an array of {array.dtype}")
        return pack_ints(array.astype(NUMPY[kind]))
    return np.ascontiguousarray(array, np.dtype(NUMPY[kind]).newbyteorder("<")).tobytes()


def decode_field(blob: bytes, spec: dict, where: str):
    kind = spec["type"]
    if kind == "bytes":
        return blob
    if kind in ("int32", "int64"):
        array = unpack_ints(blob, where).astype(NUMPY[kind])
    else:
        item = np.dtype(NUMPY[kind]).itemsize
        if len(blob) % item:
            raise MindRecordFormatError(f"{where}: {len(blob)} bytes are not a whole number of {kind}")
        array = np.frombuffer(blob, np.dtype(NUMPY[kind]).newbyteorder("<")).astype(NUMPY[kind])
    shape = spec.get("shape")
    if shape:
        try:
            array = array.reshape(shape)
        except ValueError:
            raise MindRecordFormatError(f"{where}: {array.size} values do not fit the shape {shape}") from None
    return array


def encode_blob(row: dict, blob_fields: list, schema: dict) -> bytes:
    if not blob_fields:
        return b"\0\0\0\0"   # 2.10 writes these 4 bytes when a schema has no blob field
    parts = [encode_field(row[f], schema[f], f) for f in blob_fields]
    if len(parts) == 1:
        return parts[0]
    return b"".join(struct.pack(">Q", len(p)) + p for p in parts)


def decode_blob(blob: bytes, blob_fields: list, schema: dict, where: str) -> dict:
    if not blob_fields:
        return {}
    if len(blob_fields) == 1:
        return {blob_fields[0]: decode_field(blob, schema[blob_fields[0]], where)}
    out, pos = {}, 0
    for f in blob_fields:
        if pos + 8 > len(blob):
            raise MindRecordFormatError(f"{where}: the blob row is truncated at field {f!r}")
        n = struct.unpack(">Q", blob[pos:pos + 8])[0]
        pos += 8
        if pos + n > len(blob):
            raise MindRecordFormatError(f"{where}: the blob row is truncated at field {f!r}")
        out[f] = decode_field(blob[pos:pos + n], schema[f], f"{where}, field {f!r}")
        pos += n
    return out

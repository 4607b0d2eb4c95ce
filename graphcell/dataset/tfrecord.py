"""TFRecordDataset: rows of `tf.train.Example` records in TFRecord files, without TensorFlow.

A TFRecord file is a sequence of records, each framed as
    uint64 length (little-endian) | uint32 masked CRC32C of those 8 bytes | data | uint32 masked CRC32C of data
optionally compressed as a whole (GZIP or ZLIB). The length CRCs are checked when the files are
indexed, the data CRCs when a record is read (MindSpore 2.10 reads a record with a bad data CRC
without complaint, measured; graphcell says which file and record are corrupt instead).

The records are parsed with the `protobuf` package (which onnx already needs): the Example message
types are built at import from a descriptor written here after TensorFlow's public
example.proto / feature.proto, so parsing runs in protobuf's C implementation (upb) and handles
every valid wire encoding (packed or not, any field order, unknown fields).

As measured on 2.10: without a schema the columns are the features of the first record of the first
file, sorted by name; int64_list gives int64 [n], float_list float32 [n], bytes_list uint8 (one
value: its bytes; several: each padded with spaces to the longest, concatenated). A schema (a
Schema or its JSON file) gives the columns, their order, types (numbers cast; bytes as "string",
numpy str [n], or "uint8", the bytes concatenated) and shapes (a shape of [] is a scalar), and a
JSON file's numRows caps the rows as num_samples would. Files are sharded whole (file i goes to
shard i % num_shards, so there must be at least num_shards files), or with shard_equal_rows=True
by rows as TextFileDataset does; the row order interleaves files across workers as there.
"""
from __future__ import annotations

import functools
import gzip
import mmap
import os
import struct
import zlib

import numpy as np

from ._checks import check_bool, check_file, check_workers
from ._parallel import DatasetError
from .random_data import Schema
from .text_files import Shuffle, _expand_files, _FileRowsDataset, _interleave

# -- CRC32C (Castagnoli), as TFRecord frames use it -------------------------------------------------


def _crc_table() -> np.ndarray:
    table = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        table = np.where(table & 1, (table >> 1) ^ np.uint32(0x82F63B78), table >> 1).astype(np.uint32)
    return table


_CRC_NP = _crc_table()
_CRC_TABLE = _CRC_NP.tolist()
_MASK_DELTA = 0xA282EAD8


def _crc_register(register: int, data) -> int:
    """The CRC register after feeding `data` bytes (no final xor), one table step a byte."""
    table = _CRC_TABLE
    for byte in data:
        register = table[(register ^ byte) & 0xFF] ^ (register >> 8)
    return register


@functools.lru_cache(maxsize=64)
def _zero_shift(count: int) -> tuple[int, ...]:
    """The register map of feeding `count` zero bytes, a GF(2)-linear map given as the images of
    the 32 register bits (composed by repeated squaring)."""
    step = [_crc_register(1 << k, b"\0") for k in range(32)]
    result = [1 << k for k in range(32)]
    while count:
        if count & 1:
            result = [_apply(step, c) for c in result]
        step = [_apply(step, c) for c in step]
        count >>= 1
    return tuple(result)


def crc32c(data: bytes) -> int:
    """CRC32C (Castagnoli) of `data`. Large inputs are cut into equal lanes whose registers advance
    together in numpy, one byte of every lane per step; as the register update is linear, the whole
    register is then the lanes' registers combined, each shifted over the lanes after it."""
    n = len(data)
    if n < 8192:         # below this, the lanes' set-up costs more than they save
        return _crc_register(0xFFFFFFFF, data) ^ 0xFFFFFFFF
    lanes = int(2.3 * n ** 0.5)
    width = n // lanes
    block = np.frombuffer(data, dtype=np.uint8, count=lanes * width).reshape(lanes, width)
    registers = np.zeros(lanes, dtype=np.uint32)
    registers[0] = 0xFFFFFFFF
    for j in range(width):
        registers = _CRC_NP[(registers ^ block[:, j]) & 0xFF] ^ (registers >> 8)
    # the shift over one lane as four byte-indexed tables: shift(x) = T0[x & 255] ^ T1[x >> 8 & 255] ^ ...
    columns = np.array(_zero_shift(width), dtype=np.uint32).reshape(4, 1, 8)
    bits = (np.arange(256)[:, None] >> np.arange(8)) & 1 == 1
    tables = np.bitwise_xor.reduce(np.where(bits, columns, np.uint32(0)), axis=2).tolist()
    register = 0
    for lane in registers.tolist():
        register = (tables[0][register & 0xFF] ^ tables[1][register >> 8 & 0xFF] ^ tables[2][register >> 16 & 0xFF]
                    ^ tables[3][register >> 24]) ^ lane
    return _crc_register(register, data[lanes * width:]) ^ 0xFFFFFFFF


def _apply(columns: list[int], x: int) -> int:
    """A GF(2)-linear map on 32-bit registers (the images of the 32 bits) applied to x."""
    out = 0
    for k in range(32):
        if x >> k & 1:
            out ^= columns[k]
    return out


def masked_crc32c(data: bytes) -> int:
    """TFRecord's masked CRC: rotated right by 15 bits plus a constant (a CRC of data holding
    CRCs is then not trivially related to them)."""
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF


# -- tf.train.Example, built from its public .proto description --------------------------------------

def _example_class():
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    F = descriptor_pb2.FieldDescriptorProto
    proto = descriptor_pb2.FileDescriptorProto(name="graphcell/tf_example.proto", package="graphcell.tf",
                                               syntax="proto3")

    def message(name, fields, nested=()):
        msg = proto.message_type.add(name=name)
        for sub in nested:
            msg.nested_type.add().CopyFrom(sub)
        for number, (fname, ftype, label, type_name, oneof) in enumerate(fields, 1):
            field = msg.field.add(name=fname, number=number, type=ftype, label=label)
            if type_name:
                field.type_name = type_name
            if oneof is not None:
                field.oneof_index = oneof
        return msg

    rep, opt = F.LABEL_REPEATED, F.LABEL_OPTIONAL
    message("BytesList", [("value", F.TYPE_BYTES, rep, None, None)])
    message("FloatList", [("value", F.TYPE_FLOAT, rep, None, None)])     # packed (proto3's default)
    message("Int64List", [("value", F.TYPE_INT64, rep, None, None)])
    feature = message("Feature", [("bytes_list", F.TYPE_MESSAGE, opt, ".graphcell.tf.BytesList", 0),
                                  ("float_list", F.TYPE_MESSAGE, opt, ".graphcell.tf.FloatList", 0),
                                  ("int64_list", F.TYPE_MESSAGE, opt, ".graphcell.tf.Int64List", 0)])
    feature.oneof_decl.add(name="kind")
    entry = descriptor_pb2.DescriptorProto(name="FeatureEntry", options=descriptor_pb2.MessageOptions(map_entry=True))
    entry.field.add(name="key", number=1, type=F.TYPE_STRING, label=opt)
    entry.field.add(name="value", number=2, type=F.TYPE_MESSAGE, label=opt, type_name=".graphcell.tf.Feature")
    message("Features", [("feature", F.TYPE_MESSAGE, rep, ".graphcell.tf.Features.FeatureEntry", None)], [entry])
    message("Example", [("features", F.TYPE_MESSAGE, opt, ".graphcell.tf.Features", None)])
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("graphcell.tf.Example"))


_Example = None


def parse_example(data: bytes) -> dict:
    """A serialized tf.train.Example -> {name: (kind, values)}, kind "int64", "float32" or
    "string" (2.10's names in its type messages); values a numpy array or a list of bytes."""
    global _Example
    if _Example is None:
        _Example = _example_class()
    example = _Example.FromString(data)
    features = {}
    for name, feature in example.features.feature.items():
        kind = feature.WhichOneof("kind")
        if kind == "int64_list":
            features[name] = ("int64", np.array(feature.int64_list.value, dtype=np.int64))
        elif kind == "float_list":
            features[name] = ("float32", np.array(feature.float_list.value, dtype=np.float32))
        elif kind == "bytes_list":
            features[name] = ("string", list(feature.bytes_list.value))
        else:                      # a Feature with no list set: empty, as TensorFlow reads it
            features[name] = ("float32", np.zeros(0, np.float32))
    return features


# -- files and records ---------------------------------------------------------------------------------

_COMPRESSIONS = ("", "ZLIB", "GZIP")
_NAME = "TFRecordDataset"


def _invalid(path: str, why: str) -> RuntimeError:
    return RuntimeError(f"{_NAME}: Invalid file. The following files either cannot be opened, or are not valid "
                        f"TFRecordDataset files:\n    {path}\n({why})")


class _RecordFile:
    """One file's records: indexed (offset, length) at construction, length CRCs checked;
    uncompressed files are memory-mapped, compressed ones decompressed into memory."""

    def __init__(self, path: str, compression: str):
        self.path = path
        if compression:
            with open(path, "rb") as f:
                packed = f.read()
            try:
                self.data = gzip.decompress(packed) if compression == "GZIP" else zlib.decompress(packed)
            except (OSError, zlib.error, EOFError) as e:
                raise _invalid(path, f"it is not {compression}-compressed: {e}") from None
        else:
            with open(path, "rb") as f:
                self.data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if os.path.getsize(path) else b""
        self.records = self._index()
        if not self.records:
            raise _invalid(path, "it holds no records")

    def _index(self) -> list[tuple[int, int]]:
        data, records, pos, end = self.data, [], 0, len(self.data)
        while pos < end:
            if end - pos < 12:
                raise _invalid(self.path, f"record {len(records)} at byte {pos} is truncated: {end - pos} bytes "
                                          "left, a record header has 12")
            header = bytes(data[pos:pos + 8])
            (length,), (crc,) = struct.unpack("<Q", header), struct.unpack("<I", data[pos + 8:pos + 12])
            if crc != masked_crc32c(header):
                raise _invalid(self.path, f"record {len(records)} at byte {pos}: the CRC of its length does not "
                                          "match (a corrupt file, or not a TFRecord file)")
            if pos + 16 + length > end:
                raise _invalid(self.path, f"record {len(records)} at byte {pos} is truncated: it needs "
                                          f"{16 + length} bytes, the file has {end - pos} left")
            records.append((pos + 12, length))
            pos += 16 + length
        return records

    def read(self, i: int) -> bytes:
        offset, length = self.records[i]
        payload = bytes(self.data[offset:offset + length])
        (crc,) = struct.unpack("<I", self.data[offset + length:offset + length + 4])
        if crc != masked_crc32c(payload):
            raise DatasetError(f"{_NAME}: corrupt record {i} in {self.path} (byte {offset - 12}): the CRC of its "
                               "data does not match")
        return payload


def _bytes_as_uint8(values: list[bytes], pad: bool) -> np.ndarray:
    """2.10's uint8 column of a bytes_list: one value's bytes; several values padded with spaces
    to the longest (without a schema) or just concatenated (with one), measured."""
    if pad and len(values) > 1:
        width = max(len(v) for v in values)
        values = [v.ljust(width, b" ") for v in values]
    return np.frombuffer(b"".join(values), dtype=np.uint8).copy()


class _Column:
    """How one column is made from its feature: type name ("string" or numpy's) and shape, or
    None for "as the record has it"."""

    def __init__(self, name, type_name=None, shape=None):
        self.name, self.type_name, self.shape = name, type_name, None if shape is None else tuple(shape)

    def convert(self, kind: str, values, path: str) -> np.ndarray:
        wanted = self.type_name
        if wanted is None:
            array = _bytes_as_uint8(values, pad=True) if kind == "string" else values
        elif kind == "string" and wanted in ("string", "uint8"):
            array = (np.array([v.decode("utf-8", "replace") for v in values]) if wanted == "string"
                     else _bytes_as_uint8(values, pad=False))
        elif kind != "string" and wanted != "string":
            array = values.astype(wanted)
        else:
            raise DatasetError(f"{_NAME}: in {path}, the data type loaded from the example for feature name: "
                               f"{self.name} does not match the predefined type in schema, the actual type: "
                               f"{kind}, but the predefined type: {wanted}")
        if self.shape is not None:
            try:
                array = array.reshape(self.shape)
            except ValueError:
                raise DatasetError(f"{_NAME}: in {path}, column shape of {self.name} defined in schema "
                                   f"{list(self.shape)} does not match the shape actually load {list(array.shape)}"
                                   ) from None
        return array


class _Rows:
    """A file's rows, parsed when read (so a large file is not parsed up front)."""

    def __init__(self, file: _RecordFile, columns: list[_Column], has_schema: bool):
        self.file, self.columns, self.has_schema = file, columns, has_schema

    def __len__(self):
        return len(self.file.records)

    def __getitem__(self, i):
        path = self.file.path
        try:
            features = parse_example(self.file.read(i))
        except DatasetError:
            raise
        except Exception as e:  # noqa: BLE001 - protobuf's DecodeError, named with the file
            raise DatasetError(f"{_NAME}: Failed to parse tfrecord file: {path}, record {i} is not a "
                               f"tf.train.Example ({e})") from None
        row = []
        for column in self.columns:
            if column.name not in features:
                what = ("is required in schema but could not be found in tfrecord file" if self.has_schema
                        else "does not exist in tfrecord file, check tfrecord files")
                raise DatasetError(f"{_NAME}: in {path}, record {i}: feature name: {column.name} {what}.")
            row.append(column.convert(*features[column.name], path))
        return tuple(row)


def _check_files(dataset_files) -> list[str]:
    if isinstance(dataset_files, list) and dataset_files and not all(isinstance(f, str) for f in dataset_files):
        raise TypeError("dataset_files should be type str or a list of strings.")
    if not isinstance(dataset_files, (str, list)):
        raise TypeError("dataset_files should be type str or a list of strings.")
    return _expand_files(_NAME, dataset_files)


def _load_schema(schema):
    if schema is None or isinstance(schema, Schema):
        return schema
    if not isinstance(schema, str):
        raise TypeError(f"path: {schema} is not string")
    return Schema(check_file(_NAME, os.path.abspath(schema)))


def _columns_from(schema, columns_list, first: _RecordFile) -> list[_Column]:
    if schema is not None:
        columns = {c["name"]: _Column(c["name"], c["type"] if c["type"] == "string" else np.dtype(c["type"]).name,
                                      c.get("shape")) for c in schema.columns}
        for name in columns_list or ():
            if name not in columns:
                raise RuntimeError(f"{_NAME}: Invalid data, failed to find column: {name} in JSON schema file. "
                                   f"file content: {schema.to_json()}")
        return [columns[n] for n in columns_list] if columns_list else list(columns.values())
    try:
        features = parse_example(first.read(0))
    except DatasetError:
        raise
    except Exception as e:  # noqa: BLE001
        raise _invalid(first.path, f"its first record is not a tf.train.Example: {e}") from None
    for name in columns_list or ():
        if name not in features:
            raise RuntimeError(f"{_NAME}: Invalid columns_list, tfrecord file failed to find column name: {name} "
                               f"(the features of {first.path} are {sorted(features)})")
    return [_Column(n) for n in (columns_list or sorted(features))]


class TFRecordDataset(_FileRowsDataset):
    """Rows of tf.train.Example records in TFRecord files (see the module docstring).

    >>> ds = TFRecordDataset("train-*.tfrecord", columns_list=["image", "label"], shuffle=False)
    """

    def __init__(self, dataset_files, schema=None, columns_list=None, num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, shard_equal_rows=False, cache=None,
                 compression_type=None):
        files = _check_files(dataset_files)
        schema = _load_schema(schema)
        if columns_list is not None:
            if not isinstance(columns_list, list):
                raise TypeError(f"Argument columns_list with value {columns_list} is not of type [<class 'list'>], "
                                f"but got {type(columns_list)}.")
            if not columns_list or not all(isinstance(c, str) for c in columns_list):
                raise ValueError(f"{_NAME}: columns_list must hold column names (str), got {columns_list!r}")
        compression = "" if compression_type is None else compression_type
        if compression not in _COMPRESSIONS:
            raise ValueError(f"Input compression_type can only be either '' (no compression), 'ZLIB', or 'GZIP', "
                             f"but got '{compression_type}'.")
        self.shard_equal_rows = check_bool(_NAME, "shard_equal_rows", shard_equal_rows)
        if num_shards is not None and shard_id is None:
            raise RuntimeError("num_shards is specified and currently requires shard_id as well.")
        if isinstance(num_samples, int) and not isinstance(num_samples, bool) and num_samples < 0:
            raise ValueError("num_samples exceeds the boundary between 0 and 9223372036854775807(INT64_MAX)!")
        workers = check_workers(_NAME, num_parallel_workers)
        if isinstance(num_shards, int) and num_shards > len(files):
            if compression:
                raise RuntimeError(f"{_NAME}: When compression_type is provided, number of dataset files cannot be "
                                   f"less than num_shards but got {len(files)} number of files with {num_shards} "
                                   "num_shards")
            if not self.shard_equal_rows:
                raise RuntimeError(f"{_NAME}: Invalid file, numbers of tfrecord file should not less than num_shards "
                                   f"when shard_equal_rows is false, but got numbers of tfrecord file: {len(files)}, "
                                   f"num_shards: {num_shards}")
        record_files = [_RecordFile(path, compression) for path in files]
        columns = _columns_from(schema, columns_list, record_files[0])
        file_rows = [_Rows(f, columns, schema is not None) for f in record_files]
        if not num_samples and schema is not None and schema.num_rows:
            num_samples = schema.num_rows             # a JSON schema's numRows caps the rows (measured)
        super().__init__(_NAME, files, [c.name for c in columns], file_rows, num_samples, workers, shuffle,
                         num_shards, shard_id)

    # Whole-file sharding (shard_equal_rows=False): file i of the sorted files goes to shard
    # i % num_shards, so every shard has a fixed row count; shuffling then permutes the shard's files.
    def _shard_files(self) -> list[int]:
        return list(range(len(self.files)))[self.shard_id::self.num_shards]

    def _size(self):
        if not self.num_shards or self.shard_equal_rows:
            return super()._size()
        n = sum(len(self.file_rows[k]) for k in self._shard_files())
        return min(n, self.num_samples) if self.num_samples else n

    def _order(self, run):
        if not self.num_shards or self.shard_equal_rows:
            return super()._order(run)
        files = self._shard_files()
        if self.shuffle_mode in (Shuffle.GLOBAL, Shuffle.FILES):
            files = [files[i] for i in run.rng(self).permutation(len(files))]
        order = _interleave([(k, 0, len(self.file_rows[k])) for k in files], self.num_parallel_workers)
        order = order[: self._size()]
        if self.shuffle_mode is Shuffle.GLOBAL:
            order = [order[i] for i in run.rng(self).permutation(len(order))]
        return order

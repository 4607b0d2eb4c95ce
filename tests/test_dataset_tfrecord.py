"""TFRecordDataset against files written here by an independent writer (protobuf wire format by
hand, bitwise CRC32C); the expected rows, orders and errors were measured on MindSpore 2.10 reading
the same files."""
import gzip
import struct
import zlib

import numpy as np
import pytest

import graphcell.dataset as ds
import graphcell.dtype as mstype
from graphcell.dataset.tfrecord import crc32c


# -- an independent TFRecord writer ----------------------------------------------------------------

def _crc32c_bitwise(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def _masked(data: bytes) -> int:
    c = _crc32c_bitwise(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:       # length-delimited (wire type 2)
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _feature(value, packed=True) -> bytes:
    if isinstance(value, (bytes, str)) or (isinstance(value, list) and value and isinstance(value[0], bytes)):
        values = value if isinstance(value, list) else [value]
        return _field(1, b"".join(_field(1, v.encode() if isinstance(v, str) else v) for v in values))
    arr = np.asarray(value).ravel()
    if arr.dtype.kind == "f":
        return _field(2, _field(1, arr.astype("<f4").tobytes()))
    if packed:
        return _field(3, _field(1, b"".join(_varint(int(v)) for v in arr)))
    return _field(3, b"".join(_varint(1 << 3) + _varint(int(v)) for v in arr))   # unpacked: one field per value


def _example(features: dict, packed=True) -> bytes:
    return _field(1, b"".join(_field(1, _field(1, k.encode()) + _field(2, _feature(v, packed)))
                              for k, v in features.items()))


def _frame(data: bytes) -> bytes:
    n = struct.pack("<Q", len(data))
    return n + struct.pack("<I", _masked(n)) + data + struct.pack("<I", _masked(data))


def write_tfrecord(path, rows, compression=None, packed=True):
    raw = b"".join(_frame(_example(r, packed)) for r in rows)
    raw = gzip.compress(raw) if compression == "GZIP" else zlib.compress(raw) if compression == "ZLIB" else raw
    path.write_bytes(raw)
    return str(path)


def _rows(d):
    return [[v.tolist() for v in r] for r in d.create_tuple_iterator(num_epochs=1, output_numpy=True)]


def _labels(d):
    return [r[0][0] for r in _rows(d)]


@pytest.fixture
def mixed(tmp_path):
    return write_tfrecord(tmp_path / "m.tfrecord", [
        {"b": [b"abc", b"de", b"f"], "one": b"xyz", "i": [7], "f": [1.5], "l": [1, 2, 3, 4, 5, 6]},
        {"b": [b"g", b"hi", b"jklm"], "one": b"uv", "i": [8], "f": [2.5], "l": [1, 2, 3, 4, 5, 6]}])


@pytest.fixture
def five_files(tmp_path):
    """g0..g4 with 1, 5, 1, 2 and 3 records; record j of file k has i = 10k + j."""
    for k, n in enumerate([1, 5, 1, 2, 3]):
        write_tfrecord(tmp_path / f"g{k}.tfrecord", [{"i": [10 * k + j]} for j in range(n)])
    return str(tmp_path / "g*.tfrecord")


def test_crc32c_check_value_and_lanes():
    assert crc32c(b"123456789") == 0xE3069283                      # the published CRC-32C check value
    data = np.random.default_rng(0).integers(0, 256, 20011, dtype=np.uint8).tobytes()
    assert crc32c(data) == _crc32c_bitwise(data)                   # the numpy-lane path (>= 8 KiB)


def test_columns_types_and_shapes_without_schema(mixed):
    d = ds.TFRecordDataset(mixed, shuffle=False)
    assert d.get_col_names() == ["b", "f", "i", "l", "one"] and d.get_dataset_size() == 2   # sorted names
    first, second = _rows(d)
    # measured on 2.10: several bytes values padded with spaces to the longest, then concatenated
    assert bytes(first[0]) == b"abcde f  " and bytes(second[0]) == b"g   hi  jklm"
    assert first[1:] == [[1.5], [7], [1, 2, 3, 4, 5, 6], list(b"xyz")]
    row = next(d.create_tuple_iterator(num_epochs=1, output_numpy=True))
    assert [a.dtype for a in row] == [np.uint8, np.float32, np.int64, np.int64, np.uint8]
    assert _rows(ds.TFRecordDataset(mixed, columns_list=["one", "i"], shuffle=False)) == [
        [list(b"xyz"), [7]], [list(b"uv"), [8]]]


def test_schema_types_shapes_and_json(mixed, tmp_path):
    s = ds.Schema()
    s.add_column("l", de_type=mstype.int32, shape=[-1, 2])
    s.add_column("one", de_type=mstype.string, shape=[])
    s.add_column("b", de_type=mstype.uint8)
    s.add_column("f", de_type=mstype.float64)
    s.add_column("i", de_type=mstype.int16, shape=[1])
    d = ds.TFRecordDataset(mixed, schema=s, shuffle=False)
    row = next(d.create_tuple_iterator(num_epochs=1, output_numpy=True))
    assert d.get_col_names() == ["l", "one", "b", "f", "i"]
    assert [a.dtype for a in row[:1] + row[2:]] == [np.int32, np.uint8, np.float64, np.int16]
    # measured: with a schema, bytes as uint8 are concatenated unpadded; "string" is numpy str
    assert row[0].shape == (3, 2) and row[1].shape == () and str(row[1]) == "xyz" and bytes(row[2]) == b"abcdef"
    strings = ds.Schema()
    strings.add_column("b", de_type=mstype.string)
    assert _rows(ds.TFRecordDataset(mixed, schema=strings, shuffle=False)) == [[["abc", "de", "f"]],
                                                                               [["g", "hi", "jklm"]]]
    # a JSON schema file: its numRows caps the rows (measured), columns_list picks among its columns
    (tmp_path / "schema.json").write_text('{"datasetType": "TF", "numRows": 1, "columns": {"i": {"type": "int64", '
                                          '"rank": 1, "shape": [1]}, "one": {"type": "uint8", "rank": 1}}}')
    d = ds.TFRecordDataset(mixed, schema=str(tmp_path / "schema.json"), shuffle=False)
    assert d.get_dataset_size() == 1 and _rows(d) == [[[7], list(b"xyz")]]
    assert _rows(ds.TFRecordDataset(mixed, schema=s, columns_list=["i"], shuffle=False)) == [[[7]], [[8]]]
    assert ds.Schema().to_json() == '{\n  "columns": null\n}'       # as 2.10 prints an empty schema


def test_schema_errors(mixed):
    def first_row(**columns):
        s = ds.Schema()
        for name, (de_type, shape) in columns.items():
            s.add_column(name, de_type=de_type, shape=shape)
        return next(ds.TFRecordDataset(mixed, schema=s, shuffle=False).create_tuple_iterator(num_epochs=1))
    with pytest.raises(RuntimeError, match="feature name: b does not match the predefined type in schema, the actual "
                                           "type: string, but the predefined type: int64"):
        first_row(b=(mstype.int64, None))
    with pytest.raises(RuntimeError, match="the actual type: float32, but the predefined type: string"):
        first_row(f=(mstype.string, None))
    with pytest.raises(RuntimeError, match="column shape of l defined in schema"):
        first_row(l=(mstype.int64, [4]))
    with pytest.raises(RuntimeError, match="missing is required in schema but could not be found"):
        first_row(missing=(mstype.int64, None))


def test_file_order_workers_and_sharding(five_files):
    # every order below was measured on MindSpore 2.10 reading these files
    assert _labels(ds.TFRecordDataset(five_files, shuffle=False, num_parallel_workers=1)) == [
        0, 10, 11, 12, 13, 14, 20, 30, 31, 40, 41, 42]
    measured = {(1, 2, 0): [0, 20, 40, 41, 42], (1, 2, 1): [10, 11, 12, 13, 14, 30, 31],
                (2, 2, 1): [10, 30, 11, 31, 12, 13, 14], (2, 3, 1): [10, 40, 11, 41, 12, 42, 13, 14],
                (1, 3, 0): [0, 30, 31]}
    for (workers, shards, shard), expected in measured.items():     # whole files: file i to shard i % shards
        d = ds.TFRecordDataset(five_files, shuffle=False, num_parallel_workers=workers, num_shards=shards,
                               shard_id=shard)
        assert d.get_dataset_size() == len(expected) and _labels(d) == expected
    d = ds.TFRecordDataset(five_files, shuffle=False, num_parallel_workers=2, num_shards=2, shard_id=1,
                           shard_equal_rows=True)
    assert d.get_dataset_size() == 6 and _labels(d) == [20, 30, 40, 31, 41, 42]
    d = ds.TFRecordDataset(five_files, shuffle=False, num_parallel_workers=1, num_shards=2, shard_id=0, num_samples=3)
    assert _labels(d) == [0, 20, 40]
    with pytest.raises(RuntimeError, match="numbers of tfrecord file should not less than num_shards when "
                                           "shard_equal_rows is false, but got numbers of tfrecord file: 5, num_shards: 6"):
        ds.TFRecordDataset(five_files, num_shards=6, shard_id=0)
    # shuffled shards are disjoint and cover every row
    ds.config.set_seed(5)
    shards = [_labels(ds.TFRecordDataset(five_files, num_shards=2, shard_id=s)) for s in range(2)]
    assert sorted(shards[0] + shards[1]) == [0, 10, 11, 12, 13, 14, 20, 30, 31, 40, 41, 42]


def test_compression_and_unpacked_encoding(tmp_path):
    rows = [{"i": [7, -1]}, {"i": [9, 1 << 40]}]
    for kind in ("GZIP", "ZLIB"):
        path = write_tfrecord(tmp_path / f"c.{kind}", rows, kind)
        assert _rows(ds.TFRecordDataset(path, compression_type=kind, shuffle=False)) == [[[7, -1]], [[9, 1 << 40]]]
        with pytest.raises(RuntimeError, match="When compression_type is provided, number of dataset files cannot be "
                                               "less than num_shards"):
            ds.TFRecordDataset(path, compression_type=kind, num_shards=2, shard_id=0, shard_equal_rows=True)
    with pytest.raises(RuntimeError, match=r"not valid TFRecordDataset files:\n    .*c\.ZLIB"):
        ds.TFRecordDataset(str(tmp_path / "c.ZLIB"))
    unpacked = write_tfrecord(tmp_path / "u.tfrecord", rows, packed=False)
    assert _rows(ds.TFRecordDataset(unpacked, shuffle=False, compression_type="")) == [[[7, -1]], [[9, 1 << 40]]]


def test_argument_errors(mixed, tmp_path):
    # messages measured on 2.10
    with pytest.raises(ValueError, match=r"The following patterns did not match any files: \['.*nofile.tfrecord'\]"):
        ds.TFRecordDataset(str(tmp_path / "nofile.tfrecord"))
    with pytest.raises(TypeError, match="dataset_files should be type str or a list of strings."):
        ds.TFRecordDataset(5)
    with pytest.raises(ValueError, match="compression_type can only be either '' .* but got 'LZ4'"):
        ds.TFRecordDataset(mixed, compression_type="LZ4")
    with pytest.raises(TypeError, match="Argument columns_list with value i is not of type"):
        ds.TFRecordDataset(mixed, columns_list="i")
    with pytest.raises(TypeError, match="Argument shard_equal_rows with value 1 is not of type"):
        ds.TFRecordDataset(mixed, shard_equal_rows=1)
    with pytest.raises(RuntimeError, match="num_shards is specified and currently requires shard_id as well."):
        ds.TFRecordDataset(mixed, num_shards=2)
    with pytest.raises(ValueError, match=r"Input shard_id is not within the required interval of \[0, 1\]."):
        ds.TFRecordDataset(mixed, num_shards=2, shard_id=2, shard_equal_rows=True)
    with pytest.raises(ValueError, match="num_samples exceeds the boundary"):
        ds.TFRecordDataset(mixed, num_samples=-1)
    with pytest.raises(TypeError, match="path: 5 is not string"):
        ds.TFRecordDataset(mixed, schema=5)
    with pytest.raises(ValueError, match="nope.json does not exist or permission denied!"):
        ds.TFRecordDataset(mixed, schema=str(tmp_path / "nope.json"))
    with pytest.raises(RuntimeError, match="Invalid columns_list, tfrecord file failed to find column name: nope"):
        ds.TFRecordDataset(mixed, columns_list=["nope"])


def test_corrupt_files_name_the_file(mixed, tmp_path):
    raw = open(mixed, "rb").read()
    cases = {"len_crc.tfrecord": raw[:8] + bytes([raw[8] ^ 1]) + raw[9:],
             "truncated.tfrecord": raw[:-7], "garbage.tfrecord": b"hello world, not a record", "empty.tfrecord": b""}
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(RuntimeError, match=rf"not valid TFRecordDataset files:\n    .*{name}"):
            ds.TFRecordDataset(str(tmp_path / name))
    with pytest.raises(RuntimeError, match="truncated: it needs"):
        ds.TFRecordDataset(str(tmp_path / "truncated.tfrecord"))
    # a bad data CRC is found when the record is read (2.10 does not check it; TensorFlow does)
    (tmp_path / "data_crc.tfrecord").write_bytes(raw[:-1] + bytes([raw[-1] ^ 1]))
    d = ds.TFRecordDataset(str(tmp_path / "data_crc.tfrecord"), shuffle=False)
    with pytest.raises(RuntimeError, match=r"corrupt record 1 in .*data_crc.tfrecord .*CRC of its data"):
        _rows(d)
    # records must share the first record's features (2.10's message)
    other = write_tfrecord(tmp_path / "e.tfrecord", [{"i": [1]}, {"j": [2.0]}])
    with pytest.raises(RuntimeError, match=r"e.tfrecord, record 1: feature name: i does not exist in tfrecord file"):
        _rows(ds.TFRecordDataset(other, shuffle=False))

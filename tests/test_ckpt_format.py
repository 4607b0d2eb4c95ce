"""Tests for graphcell.train.ckpt_format (MindSpore .ckpt / .safetensors) and graphcell.train.atomic."""

from __future__ import annotations

import binascii
import os
import stat
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graphcell.train.ckpt_format as ckpt_format
from graphcell.train.atomic import atomic_open, atomic_write
from graphcell.train.ckpt_format import (
    CheckpointError,
    decode_ckpt,
    encode_ckpt,
    read_ckpt_file,
    read_safetensors_file,
    write_ckpt_file,
    write_safetensors_file,
)
from tests.conftest import fuzz_examples

GOLDEN = Path(__file__).parent / "data" / "golden"
GOLDEN_CKPTS = sorted(p.name for p in GOLDEN.glob("*.ckpt"))
NET0 = (GOLDEN / "net0.ckpt").read_bytes()
LENET_NAMES = ["conv1.weight", "conv2.weight", "fc1.weight", "fc1.bias",
               "fc2.weight", "fc2.bias", "fc3.weight", "fc3.bias"]
FUZZ = settings(max_examples=fuzz_examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])

bfloat16 = pytest.importorskip("ml_dtypes").bfloat16


# ---------------------------------------------------------------------------------------------------------
# Helpers: hand-assembled protobuf, and protobuf's own serializer as an independent reference
# ---------------------------------------------------------------------------------------------------------


def varint(n: int) -> bytes:
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def ld(field: int, payload: bytes) -> bytes:
    """A length-delimited field."""
    return varint(field << 3 | 2) + varint(len(payload)) + payload


def tensor_msg(dims=(), ttype=b"Float32", content=b"", extra=b"") -> bytes:
    return b"".join(varint(8) + varint(d % (1 << 64)) for d in dims) + ld(2, ttype) + ld(3, content) + extra


def entry(tag: bytes, tensor: bytes) -> bytes:
    return ld(1, ld(1, tag) + ld(2, tensor))


def reference_checkpoint_class():
    """MindSpore's checkpoint.proto built with the protobuf library (test-only), to cross-check our bytes."""
    pytest.importorskip("google.protobuf")
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    fd = descriptor_pb2.FieldDescriptorProto
    proto = descriptor_pb2.FileDescriptorProto(name="graphcell_test_checkpoint.proto", syntax="proto2")
    tensor = proto.message_type.add(name="TensorProto")
    tensor.field.add(name="dims", number=1, type=fd.TYPE_INT64, label=fd.LABEL_REPEATED)
    tensor.field.add(name="tensor_type", number=2, type=fd.TYPE_STRING, label=fd.LABEL_REQUIRED)
    tensor.field.add(name="tensor_content", number=3, type=fd.TYPE_BYTES, label=fd.LABEL_REQUIRED)
    value = proto.message_type.add(name="Value")
    value.field.add(name="tag", number=1, type=fd.TYPE_STRING, label=fd.LABEL_REQUIRED)
    value.field.add(name="tensor", number=2, type=fd.TYPE_MESSAGE, type_name=".TensorProto",
                    label=fd.LABEL_OPTIONAL)
    ckpt = proto.message_type.add(name="Checkpoint")
    ckpt.field.add(name="value", number=1, type=fd.TYPE_MESSAGE, type_name=".Value", label=fd.LABEL_REPEATED)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("Checkpoint"))


def mindspore_style_bytes(checkpoint_cls, name, dims, ttype, content) -> bytes:
    """What MindSpore's _exec_save does for one parameter: a fresh Checkpoint, serialized."""
    msg = checkpoint_cls()
    value = msg.value.add()
    value.tag = name
    value.tensor.dims.extend(dims)
    value.tensor.tensor_type = ttype
    value.tensor.tensor_content = content
    return msg.SerializeToString()


def assert_same(a: dict, b: dict) -> None:
    assert list(a) == list(b)
    for key in a:
        if isinstance(a[key], str):
            assert a[key] == b[key]
        else:
            assert a[key].dtype == b[key].dtype and a[key].shape == b[key].shape
            assert a[key].tobytes() == b[key].tobytes(), key


# ---------------------------------------------------------------------------------------------------------
# Golden files written by MindSpore 2.10
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", GOLDEN_CKPTS)
def test_golden_ckpt_reencodes_byte_identical(name):
    data = (GOLDEN / name).read_bytes()
    decoded = read_ckpt_file(GOLDEN / name)
    assert encode_ckpt(list(decoded.items())) == data
    assert encode_ckpt(decoded) == data  # a mapping works too


def test_golden_count():
    assert len(GOLDEN_CKPTS) == 8


def test_net0_contents_match_notes():
    params = decode_ckpt(NET0)
    assert list(params) == LENET_NAMES
    assert params["conv1.weight"].shape == (6, 1, 5, 5)
    assert params["fc1.weight"].shape == (120, 400)
    assert all(v.dtype == np.float32 for v in params.values())
    # The first bytes quoted in MINDSPORE_NOTES.md section 8.
    assert NET0.startswith(bytes.fromhex("0afd040a0c") + b"conv1.weight" + bytes.fromhex("12ec04080608010805080512")
                           + b"\x07Float32" + bytes.fromhex("1ad804"))


def test_golden_safetensors_matches_ckpt_and_rewrites_byte_identical(tmp_path):
    tensors, metadata = read_safetensors_file(GOLDEN / "net0.safetensors")
    assert metadata == {"format": "ms"}
    assert_same(dict(sorted(decode_ckpt(NET0).items())), tensors)
    out = tmp_path / "net0.safetensors"
    write_safetensors_file(out, tensors)
    assert out.read_bytes() == (GOLDEN / "net0.safetensors").read_bytes()
    # Input order does not matter: MindSpore sorts by name before handing tensors to the library.
    write_safetensors_file(out, list(reversed(list(decode_ckpt(NET0).items()))))
    assert out.read_bytes() == (GOLDEN / "net0.safetensors").read_bytes()


# ---------------------------------------------------------------------------------------------------------
# Encoding: values, dtypes and agreement with protobuf's serializer
# ---------------------------------------------------------------------------------------------------------

ALL_DTYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
              np.float16, np.float32, np.float64, np.bool_, bfloat16]
MS_NAMES = ["Int8", "UInt8", "Int16", "UInt16", "Int32", "UInt32", "Int64", "UInt64",
            "Float16", "Float32", "Float64", "Bool", "BFloat16"]


def sample(dtype, shape):
    rng = np.random.default_rng(0)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    return (rng.standard_normal(size=shape) * 100).astype(dtype)


@pytest.mark.parametrize("dtype, ms_name", list(zip(ALL_DTYPES, MS_NAMES)), ids=MS_NAMES)
@pytest.mark.parametrize("shape", [(), (0,), (3, 0), (1,), (2, 3, 4)])
def test_dtype_round_trip_and_protobuf_agreement(dtype, ms_name, shape):
    array = sample(dtype, shape)
    data = encode_ckpt([("p", array)])
    back = decode_ckpt(data)["p"]
    assert back.dtype == np.dtype(dtype) and back.shape == shape
    assert back.tobytes() == array.tobytes()
    assert back.flags.writeable
    reference = mindspore_style_bytes(reference_checkpoint_class(), "p", list(shape), ms_name, array.tobytes())
    assert data == reference


def test_python_scalars_and_strings_match_mindspore_append_dict():
    cls = reference_checkpoint_class()
    entries = [("epoch", 7), ("lr", 0.5), ("flag", True), ("note", "héllo 🌍"), ("neg", -3)]
    expected = b"".join([
        mindspore_style_bytes(cls, "epoch", [], "Int64", np.int64(7).tobytes()),
        mindspore_style_bytes(cls, "lr", [], "Float32", np.float32(0.5).tobytes()),
        mindspore_style_bytes(cls, "flag", [], "Bool", b"\x01"),
        mindspore_style_bytes(cls, "note", [0], "str", np.array("héllo 🌍").tobytes()),
        mindspore_style_bytes(cls, "neg", [], "Int64", np.int64(-3).tobytes()),
    ])
    data = encode_ckpt(entries)
    assert data == expected
    out = decode_ckpt(data)
    assert out["note"] == "héllo 🌍"
    assert out["epoch"].dtype == np.int64 and out["epoch"].shape == () and out["epoch"] == 7
    assert out["lr"].dtype == np.float32 and out["lr"] == 0.5
    assert out["flag"].dtype == np.bool_ and out["flag"]


def test_numpy_scalars_noncontiguous_and_big_endian_inputs():
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    entries = [("t", base.T), ("s", np.float64(2.5)), ("be", base.astype(">f4"))]
    out = decode_ckpt(encode_ckpt(entries))
    np.testing.assert_array_equal(out["t"], base.T)
    assert out["s"].dtype == np.float64 and out["s"] == 2.5
    assert out["be"].dtype == np.float32
    np.testing.assert_array_equal(out["be"], base)


def test_protobuf_parses_our_output():
    cls = reference_checkpoint_class()
    msg = cls()
    msg.ParseFromString(encode_ckpt([("a", np.ones((2, 2), np.float16)), ("b", "x"), ("c", 1)]))
    assert [v.tag for v in msg.value] == ["a", "b", "c"]
    assert list(msg.value[0].tensor.dims) == [2, 2] and list(msg.value[2].tensor.dims) == []


@pytest.mark.parametrize("bad, exc", [
    (np.zeros(2, "datetime64[s]"), TypeError),   # (complex64 is a MindSpore type: test_complex_ops_audit.py)
    (np.array(["a", "b"]), TypeError),
    ([1.0, 2.0], TypeError),
    (None, TypeError),
    (1 << 63, ValueError),
    ("\ud800", ValueError),
])
def test_encode_rejects_unsupported_values(bad, exc):
    with pytest.raises(exc, match="'x'"):
        encode_ckpt([("x", bad)])


def test_encode_rejects_duplicate_and_non_str_names():
    with pytest.raises(ValueError, match="twice"):
        encode_ckpt([("a", 1), ("a", 2)])
    with pytest.raises(TypeError):
        encode_ckpt([(1, 1)])


def test_crc_trailer_written_read_and_verified(tmp_path):
    plain = encode_ckpt([("a", np.arange(5, dtype=np.int32))])
    data = encode_ckpt([("a", np.arange(5, dtype=np.int32))], crc_check=True)
    assert data == plain + b"crc_num" + binascii.crc32(plain).to_bytes(10, "big")
    assert_same(decode_ckpt(data), decode_ckpt(plain))
    path = tmp_path / "c.ckpt"
    write_ckpt_file(path, [("a", np.arange(5, dtype=np.int32))], crc_check=True)
    assert path.read_bytes() == data
    corrupt = bytearray(data)
    corrupt[-20] ^= 0x01  # a content byte: still parses, so only the CRC can catch it
    with pytest.raises(CheckpointError, match="CRC"):
        decode_ckpt(bytes(corrupt), "c.ckpt")


def test_large_tensor_is_sliced_like_mindspore_and_joined(monkeypatch):
    monkeypatch.setattr(ckpt_format, "SLICE_BYTES", 64)
    array = np.arange(50, dtype=np.float32).reshape(5, 10)  # 200 bytes -> slices of 64, 64, 64, 8
    data = encode_ckpt([("big", array), ("small", np.int8(1))])
    records = ckpt_format._parse_records(memoryview(data), "<test>")
    assert [r.tag for r in records] == ["big"] * 4 + ["small"]
    assert [len(r.content) for r in records[:4]] == [64, 64, 64, 8]
    assert all(r.dims == [5, 10] and r.tensor_type == "Float32" for r in records[:4])
    out = decode_ckpt(data)
    np.testing.assert_array_equal(out["big"], array)
    # Our slices are exactly what protobuf gives for MindSpore's per-slice Checkpoint messages.
    cls = reference_checkpoint_class()
    raw = array.tobytes()
    expected = b"".join(mindspore_style_bytes(cls, "big", [5, 10], "Float32", raw[i:i + 64])
                        for i in range(0, 200, 64))
    assert data.startswith(expected)


def test_legacy_scalar_with_dims_zero_and_packed_dims():
    legacy = entry(b"s", tensor_msg(dims=[0], ttype=b"Float32", content=np.float32(1.5).tobytes()))
    assert decode_ckpt(legacy)["s"].shape == ()
    empty = entry(b"e", tensor_msg(dims=[0], ttype=b"Float32", content=b""))
    assert decode_ckpt(empty)["e"].shape == (0,)
    packed_tensor = ld(1, varint(2) + varint(3)) + ld(2, b"Int8") + ld(3, bytes(6))
    assert decode_ckpt(entry(b"p", packed_tensor))["p"].shape == (2, 3)


def test_unknown_fields_are_skipped():
    extra = varint(9 << 3 | 0) + varint(5) + varint(10 << 3 | 5) + b"abcd" + varint(11 << 3 | 1) + bytes(8)
    data = entry(b"a", tensor_msg(dims=[1], ttype=b"Int8", content=b"\x07", extra=extra)) + extra
    assert decode_ckpt(data)["a"].tolist() == [7]


# ---------------------------------------------------------------------------------------------------------
# Decoding errors: precise messages
# ---------------------------------------------------------------------------------------------------------

MALFORMED = {
    "truncated": (NET0[:1000], "only"),
    "unknown type": (entry(b"a", tensor_msg([1], b"Complex32", bytes(4))), "unknown tensor_type 'Complex32'"),
    "Int4 unsupported": (entry(b"a", tensor_msg([2], b"Int4", b"\x01")), "unknown tensor_type 'Int4'"),
    "size mismatch": (entry(b"a", tensor_msg([2, 3], b"Float32", bytes(20))), "need 24"),
    "negative dim": (entry(b"a", tensor_msg([-1], b"Int8", b"")), "negative"),
    "huge dims": (entry(b"a", tensor_msg([1 << 62, 0], b"Float32", b"")), "impossibly large"),
    "too many dims": (entry(b"a", tensor_msg([1] * 40, b"Int8", b"\x00")), "at most"),
    "missing tag": (ld(1, ld(2, tensor_msg([1], b"Int8", b"\x00"))), "'tag' is missing"),
    "missing tensor": (ld(1, ld(1, b"a")), "has no tensor"),
    "missing type": (entry(b"a", varint(8) + varint(1) + ld(3, b"\x00")), "'tensor_type' is missing"),
    "missing content": (entry(b"a", varint(8) + varint(1) + ld(2, b"Int8")), "'tensor_content' is missing"),
    "wrong wire type": (varint(1 << 3 | 0) + varint(5), "wire type 0, expected 2"),
    "group wire type": (varint(7 << 3 | 3), "wire type 3"),
    "field zero": (b"\x00\x00", "field number 0"),
    "varint too long": (b"\x0a" + b"\xff" * 11, "longer than 10 bytes"),
    "bad utf8 tag": (entry(b"\xff\xfe", tensor_msg([1], b"Int8", b"\x00")), "not valid UTF-8"),
    "maptensor": (ld(1, ld(1, b"m") + ld(3, b"")), "MapParameter"),
    "duplicate field": (entry(b"a", tensor_msg([1], b"Int8", b"\x00") + ld(2, b"Int8")), "appears twice"),
    "str dims": (entry(b"s", tensor_msg([2], b"str", bytes(8))), "expected [0]"),
    "str length": (entry(b"s", tensor_msg([0], b"str", b"abc")), "multiple of 4"),
    "bad utf32": (entry(b"s", tensor_msg([0], b"str", b"\xff\xff\xff\xff")), "not valid UTF-32"),
    "bool bytes": (entry(b"b", tensor_msg([2], b"Bool", b"\x01\x02")), "other than 0 and 1"),
    "repeated tag": (entry(b"a", tensor_msg([1], b"Int8", b"\x00")) + entry(b"b", tensor_msg([1], b"Int8", b"\x00"))
                     + entry(b"a", tensor_msg([1], b"Int8", b"\x00")), "appears again"),
    "slice mismatch": (entry(b"a", tensor_msg([2], b"Int8", b"\x00")) + entry(b"a", tensor_msg([3], b"Int8", b"\x00")),
                       "first slice"),
    "crc mismatch": (NET0 + b"crc_num" + bytes(10), "CRC check failed"),
}


@pytest.mark.parametrize("case", list(MALFORMED))
def test_malformed_input_raises_checkpoint_error(case):
    data, fragment = MALFORMED[case]
    with pytest.raises(CheckpointError) as info:
        decode_ckpt(data, source="model.ckpt")
    message = str(info.value)
    assert fragment in message
    assert message.startswith("model.ckpt")
    assert "at byte" in message
    assert isinstance(info.value, ValueError)


def test_error_message_names_file_offset_and_advice(tmp_path):
    path = tmp_path / "cut.ckpt"
    path.write_bytes(NET0[:100])
    with pytest.raises(CheckpointError) as info:
        read_ckpt_file(path)
    err = info.value
    assert err.source == str(path) and isinstance(err.offset, int)
    assert str(path) in str(err) and f"at byte {err.offset}" in str(err)
    assert "Is this a MindSpore checkpoint? It may be truncated or corrupt." in str(err)


def test_empty_file_is_an_error_but_empty_bytes_are_an_empty_checkpoint(tmp_path):
    assert decode_ckpt(b"") == {} and encode_ckpt([]) == b""
    (tmp_path / "e.ckpt").write_bytes(b"")
    with pytest.raises(CheckpointError, match="empty"):
        read_ckpt_file(tmp_path / "e.ckpt")
    with pytest.raises(ValueError, match="no entries"):
        write_ckpt_file(tmp_path / "n.ckpt", [])
    assert not (tmp_path / "n.ckpt").exists()


def entry_boundaries(data: bytes) -> set[int]:
    return {r.offset for r in ckpt_format._parse_records(memoryview(data), "x")} | {len(data)}


def test_truncation_sweep_near_ends_and_boundaries():
    boundaries = entry_boundaries(NET0)
    offsets = set(range(0, 300)) | set(range(len(NET0) - 300, len(NET0)))
    offsets |= {b + d for b in boundaries for d in range(-5, 6) if 0 <= b + d < len(NET0)}
    for n in sorted(offsets):
        if n in boundaries:  # a cut between whole parameters is a valid, shorter checkpoint
            assert list(decode_ckpt(NET0[:n])) == LENET_NAMES[:sorted(boundaries).index(n)]
        else:
            with pytest.raises(CheckpointError):
                decode_ckpt(NET0[:n], "net0.ckpt")


# ---------------------------------------------------------------------------------------------------------
# Fuzzing: only CheckpointError may ever escape
# ---------------------------------------------------------------------------------------------------------


def decode_or_checkpoint_error(data: bytes):
    try:
        return decode_ckpt(data, "fuzz.ckpt")
    except CheckpointError:
        return None


@pytest.mark.fuzz
@FUZZ
@given(st.binary(max_size=512))
def test_fuzz_random_bytes(data):
    decode_or_checkpoint_error(data)


@pytest.mark.fuzz
@FUZZ
@given(st.lists(st.sampled_from([b"\x0a", b"\x12", b"\x1a", b"\x08", b"\x80", b"\xff", b"\x00", b"\x01",
                                 b"\x05", b"Int8", b"str", b"Float32", b"crc_num"]), max_size=60))
def test_fuzz_protobuf_shaped_bytes(pieces):
    decode_or_checkpoint_error(b"".join(pieces))


@pytest.mark.fuzz
@FUZZ
@given(st.integers(min_value=0, max_value=len(NET0)))
def test_fuzz_truncations_of_net0(n):
    out = decode_or_checkpoint_error(NET0[:n])
    if out is not None:
        assert list(out) == LENET_NAMES[:len(out)]


@pytest.mark.fuzz
@FUZZ
@given(st.integers(min_value=0, max_value=len(NET0) - 1), st.integers(min_value=0, max_value=255))
def test_fuzz_single_byte_mutations_of_net0(position, byte):
    data = bytearray(NET0)
    data[position] = byte
    decode_or_checkpoint_error(bytes(data))


HEADER_END = 0x30  # mutate the structural bytes of the first entry more often than its content


@pytest.mark.fuzz
@FUZZ
@given(st.integers(min_value=0, max_value=HEADER_END), st.integers(min_value=0, max_value=255),
       st.booleans())
def test_fuzz_header_mutations_with_crc(position, byte, with_crc):
    data = bytearray(encode_ckpt(decode_ckpt(NET0), crc_check=with_crc))
    data[position] = byte
    decode_or_checkpoint_error(bytes(data))


MIXED = encode_ckpt([("i8", np.arange(6, dtype=np.int8).reshape(2, 3)), ("flag", True), ("note", "ok"),
                     ("bf", np.ones(3, bfloat16)), ("step", 3), ("empty", np.zeros((0, 2), np.float16))],
                    crc_check=False)


@pytest.mark.fuzz
@FUZZ
@given(st.lists(st.tuples(st.integers(min_value=0, max_value=len(MIXED) - 1), st.integers(0, 255)),
                min_size=1, max_size=4),
       st.integers(min_value=0, max_value=len(MIXED)))
def test_fuzz_mutations_and_cuts_of_mixed_checkpoint(mutations, cut):
    data = bytearray(MIXED)
    for position, byte in mutations:
        data[position] = byte
    decode_or_checkpoint_error(bytes(data[:cut]))


# ---------------------------------------------------------------------------------------------------------
# safetensors
# ---------------------------------------------------------------------------------------------------------


def test_safetensors_round_trip_all_dtypes(tmp_path):
    entries = {f"t{i}": sample(dt, (2, 3)) for i, dt in enumerate(ALL_DTYPES)}
    entries["strided"] = np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::2]
    path = tmp_path / "a.safetensors"
    write_safetensors_file(path, entries, metadata={"format": "ms", "k": "v"})
    tensors, metadata = read_safetensors_file(path)
    assert metadata == {"format": "ms", "k": "v"}
    assert list(tensors) == sorted(entries)
    for name, value in entries.items():
        assert tensors[name].dtype == value.dtype
        np.testing.assert_array_equal(tensors[name], value)
        assert tensors[name].flags.writeable


@pytest.mark.parametrize("cut", [0, 5, 8, 100, 600, -1])
def test_safetensors_truncated_or_garbage_raises_checkpoint_error(tmp_path, cut):
    good = (GOLDEN / "net0.safetensors").read_bytes()
    path = tmp_path / "bad.safetensors"
    path.write_bytes(good[:cut])
    with pytest.raises(CheckpointError) as info:
        read_safetensors_file(path)
    assert str(path) in str(info.value)


def test_safetensors_rejects_strings(tmp_path):
    with pytest.raises(TypeError):
        write_safetensors_file(tmp_path / "s.safetensors", {"a": "text"})


# ---------------------------------------------------------------------------------------------------------
# Atomic writes
# ---------------------------------------------------------------------------------------------------------


def test_atomic_write_replaces_and_keeps_permissions(tmp_path):
    path = tmp_path / "f.bin"
    atomic_write(path, b"one")
    assert path.read_bytes() == b"one"
    os.chmod(path, 0o640)
    atomic_write(path, b"two")
    assert path.read_bytes() == b"two"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert os.listdir(tmp_path) == ["f.bin"]


def test_atomic_open_failure_leaves_previous_file_and_no_temp(tmp_path):
    path = tmp_path / "f.ckpt"
    path.write_bytes(NET0)
    with pytest.raises(RuntimeError, match="disk full"):
        with atomic_open(path) as f:
            f.write(b"partial data" * 1000)
            raise RuntimeError("disk full")
    assert path.read_bytes() == NET0
    assert os.listdir(tmp_path) == ["f.ckpt"]


def test_write_ckpt_file_failing_mid_stream_keeps_previous_file(tmp_path):
    path = tmp_path / "model.ckpt"
    write_ckpt_file(path, decode_ckpt(NET0))
    assert path.read_bytes() == NET0
    with pytest.raises(TypeError):  # the third entry is bad, after two have been streamed out
        write_ckpt_file(path, [("a", np.ones(1000, np.float32)), ("b", 1), ("c", object())])
    assert path.read_bytes() == NET0
    assert os.listdir(tmp_path) == ["model.ckpt"]


def test_atomic_open_text_mode_and_bad_mode(tmp_path):
    with atomic_open(tmp_path / "t.txt", "w") as f:
        f.write("héllo\n")
    assert (tmp_path / "t.txt").read_bytes() == "héllo\n".encode()
    with pytest.raises(ValueError):
        with atomic_open(tmp_path / "t.txt", "a"):
            pass
    assert os.listdir(tmp_path) == ["t.txt"]

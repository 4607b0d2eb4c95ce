"""MindSpore checkpoint file formats: ``.ckpt`` (protobuf) and ``.safetensors``. Pure numpy.

``.ckpt`` layout (MindSpore 2.10, ``mindspore/train/checkpoint.proto``, proto2, no package)::

    message Checkpoint     { repeated Value value = 1; }
    message Value          { required string tag = 1; optional TensorProto tensor = 2;
                             optional MapTensorProto maptensor = 3; }
    message TensorProto    { repeated int64 dims = 1; required string tensor_type = 2;
                             required bytes tensor_content = 3; }
    message MapTensorProto { repeated TensorProto tensor = 1; }

MindSpore serializes *one Checkpoint message per parameter* and concatenates them; protobuf reads the
concatenation as a single Checkpoint whose repeated ``value`` holds every parameter in file order. Details
that matter for byte-exact output (checked against files written by MindSpore 2.10):

* ``dims`` are written unpacked (``08 <varint>`` per dimension); a 0-d tensor has no ``dims`` at all.
* ``tensor_content`` is the raw little-endian C-order buffer.
* A Python ``str`` is stored with ``dims = [0]``, type ``"str"`` and UTF-32-LE content (numpy ``U``).
* Tensors over 512 MiB are cut into consecutive Values with the same tag and the full dims; a reader joins
  consecutive equal tags. (Older writers stored scalars as ``dims = [0]`` too; we read that as 0-d.)
* ``crc_check=True`` appends ``b"crc_num"`` + the CRC32 of everything before it as a 10-byte big-endian
  integer. The trailer is found by looking at bytes ``[-17:-10]``, exactly as MindSpore does.

The protobuf wire format is read and written by hand (no protobuf dependency, never pickle). The reader
treats its input as hostile: every length is checked against the bytes that are left *before* anything is
sliced or allocated, and every problem raises :class:`CheckpointError` naming the file and byte offset.
"""

from __future__ import annotations

import binascii
import json
import math
import os
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Union

import numpy as np

from .atomic import atomic_open, atomic_write

try:  # ml_dtypes comes with jax; without it BFloat16 checkpoints simply cannot be read or written.
    from ml_dtypes import bfloat16 as _bfloat16
except ImportError:  # pragma: no cover - exercised only in minimal installs
    _bfloat16 = None

__all__ = [
    "CheckpointError",
    "encode_ckpt",
    "decode_ckpt",
    "read_ckpt_file",
    "write_ckpt_file",
    "read_safetensors_file",
    "write_safetensors_file",
    "MS_SAFETENSORS_METADATA",
]

EntryValue = Union[np.ndarray, str, int, float, bool]
Entries = Union[Iterable[tuple[str, EntryValue]], Mapping[str, EntryValue]]

#: Size of one Value's ``tensor_content`` before MindSpore starts a new Value for the same tensor
#: (``SLICE_SIZE = 512 * 1024`` KiB in ``serialization.py``). Read at call time so tests can shrink it.
SLICE_BYTES = 512 * 1024 * 1024

#: ``__metadata__`` that ``mindspore.save_checkpoint(..., format="safetensors")`` writes.
MS_SAFETENSORS_METADATA = MappingProxyType({"format": "ms"})

_MAX_NDIM = 32  # numpy 1.x limit (2.x allows 64); real parameters have far fewer
_CRC_MARKER = b"crc_num"
_CRC_TRAILER_LEN = len(_CRC_MARKER) + 10
_HINT = "Is this a MindSpore checkpoint? It may be truncated or corrupt."

# MindSpore tensor_type name -> numpy dtype, in the order MindSpore's own table lists them.
_MS_TO_NP: dict[str, np.dtype] = {
    name: np.dtype(t)
    for name, t in [
        ("Int8", np.int8), ("UInt8", np.uint8), ("Int16", np.int16), ("UInt16", np.uint16),
        ("Int32", np.int32), ("UInt32", np.uint32), ("Int64", np.int64), ("UInt64", np.uint64),
        ("Float16", np.float16), ("Float32", np.float32), ("Float64", np.float64), ("Bool", np.bool_),
        # MindSpore 2.10 writes these tags (interleaved real, imaginary parts, little-endian),
        # but its own load_checkpoint cannot read them back (KeyError 'Complex64', measured).
        ("Complex64", np.complex64), ("Complex128", np.complex128),
    ]
}
if _bfloat16 is not None:
    _MS_TO_NP["BFloat16"] = np.dtype(_bfloat16)
_NP_TO_MS: dict[np.dtype, str] = {dt: name for name, dt in _MS_TO_NP.items()}

# First 4 bytes of a file MindSpore 2.10 saved with enc_key (measured): AES-GCM, AES-CBC. A plain
# checkpoint starts with 0x0a (field 1, length-delimited), so these never begin a valid one.
_ENCRYPTED_MAGIC = {b"\xd8\x5e\x3a\x7f": "AES-GCM", b"\xd9\x5e\x3a\x7f": "AES-CBC"}

# Protobuf wire types.
_VARINT, _I64, _LEN, _I32 = 0, 1, 2, 5


class CheckpointError(ValueError):
    """A checkpoint file (or byte string) could not be decoded.

    ``source`` names the file, ``offset`` is the byte offset of the problem (``None`` when it concerns the
    whole file) and ``problem`` says what is wrong; ``str(err)`` combines them with a hint.
    """

    def __init__(self, source: str, offset: int | None, problem: str, hint: str = _HINT):
        self.source = source
        self.offset = offset
        self.problem = problem
        where = f"{source}: at byte {offset}" if offset is not None else source
        super().__init__(f"{where}: {problem}. {hint}")


# --------------------------------------------------------------------------------------------------------
# Protobuf wire-format reading
# --------------------------------------------------------------------------------------------------------


class _WireReader:
    """Reads protobuf fields from ``buf[pos:end]``, reporting errors with absolute byte offsets."""

    def __init__(self, buf: memoryview, pos: int, end: int, source: str, what: str):
        self.buf, self.pos, self.end, self.source, self.what = buf, pos, end, source, what

    def fail(self, offset: int, problem: str) -> CheckpointError:
        return CheckpointError(self.source, offset, f"{self.what}: {problem}")

    def at_end(self) -> bool:
        return self.pos >= self.end

    def varint(self) -> int:
        """An unsigned varint of at most 10 bytes that fits in 64 bits (the protobuf limit)."""
        start, result, shift = self.pos, 0, 0
        while True:
            if self.pos >= self.end:
                raise self.fail(start, "a varint runs past the end of its message")
            byte = self.buf[self.pos]
            self.pos += 1
            result |= (byte & 0x7F) << shift
            if not byte & 0x80:
                break
            shift += 7
            if shift >= 70:
                raise self.fail(start, "a varint is longer than 10 bytes")
        if result >= 1 << 64:
            raise self.fail(start, "a varint does not fit in 64 bits")
        return result

    def key(self) -> tuple[int, int, int]:
        """The next field's (number, wire type, offset of its key)."""
        offset = self.pos
        key = self.varint()
        field, wire_type = key >> 3, key & 7
        if field == 0:
            raise self.fail(offset, "field number 0 is not valid protobuf")
        return field, wire_type, offset

    def length_delimited(self) -> tuple[int, int]:
        """Bounds ``(start, end)`` of a length-delimited payload, checked before anything is sliced."""
        offset = self.pos
        length = self.varint()
        if length > self.end - self.pos:
            raise self.fail(offset, f"a length field says {length} bytes but only {self.end - self.pos} remain")
        start = self.pos
        self.pos += length
        return start, self.pos

    def skip(self, wire_type: int, offset: int, field: int) -> None:
        """Skip an unknown field (protobuf readers must tolerate these); groups are not allowed."""
        if wire_type == _VARINT:
            self.varint()
        elif wire_type == _LEN:
            self.length_delimited()
        elif wire_type in (_I64, _I32):
            size = 8 if wire_type == _I64 else 4
            if size > self.end - self.pos:
                raise self.fail(offset, f"field {field} needs {size} bytes but only {self.end - self.pos} remain")
            self.pos += size
        else:
            raise self.fail(offset, f"field {field} has wire type {wire_type}, which this schema never uses")

    def expect(self, wire_type: int, want: int, offset: int, name: str) -> None:
        if wire_type != want:
            raise self.fail(offset, f"field '{name}' has wire type {wire_type}, expected {want}")


@dataclass
class _Record:
    """One ``Value`` message as stored (a parameter, or one slice of a large parameter)."""

    offset: int  # absolute offset of the Value's key in the file, for error messages
    tag: str
    dims: list[int]
    tensor_type: str
    content: memoryview


def _utf8(reader: _WireReader, start: int, end: int, offset: int, name: str) -> str:
    try:
        return bytes(reader.buf[start:end]).decode("utf-8")
    except UnicodeDecodeError:
        raise reader.fail(offset, f"'{name}' is not valid UTF-8") from None


def _set_once(seen: set, reader: _WireReader, name: str, offset: int) -> None:
    """Real files never repeat a singular field; a repeat means the bytes are not what we think."""
    if name in seen:
        raise reader.fail(offset, f"field '{name}' appears twice")
    seen.add(name)


def _read_dims(reader: _WireReader, wire_type: int, offset: int, dims: list[int]) -> None:
    """Append one unpacked dim, or a packed run of them (protobuf readers must accept both encodings)."""
    if wire_type == _VARINT:
        values = [(offset, reader.varint())]
    elif wire_type == _LEN:
        start, end = reader.length_delimited()
        packed = _WireReader(reader.buf, start, end, reader.source, reader.what)
        values = []
        while not packed.at_end():
            values.append((packed.pos, packed.varint()))
    else:
        raise reader.fail(offset, f"field 'dims' has wire type {wire_type}, expected 0")
    for at, value in values:
        if value >= 1 << 63:  # int64 two's complement: a negative dimension
            raise reader.fail(at, f"dimension {value - (1 << 64)} is negative")
        dims.append(value)


def _parse_tensor(buf: memoryview, start: int, end: int, source: str, tag: str):
    """Parse a TensorProto into ``(dims, tensor_type, content)``."""
    reader = _WireReader(buf, start, end, source, f"tensor of '{tag}'")
    dims: list[int] = []
    tensor_type = content = None
    seen: set = set()
    while not reader.at_end():
        field, wire_type, offset = reader.key()
        if field == 1:
            _read_dims(reader, wire_type, offset, dims)
        elif field == 2:
            reader.expect(wire_type, _LEN, offset, "tensor_type")
            _set_once(seen, reader, "tensor_type", offset)
            tensor_type = _utf8(reader, *reader.length_delimited(), offset, "tensor_type")
        elif field == 3:
            reader.expect(wire_type, _LEN, offset, "tensor_content")
            _set_once(seen, reader, "tensor_content", offset)
            c_start, c_end = reader.length_delimited()
            content = buf[c_start:c_end]
        else:
            reader.skip(wire_type, offset, field)
    for name, value in (("tensor_type", tensor_type), ("tensor_content", content)):
        if value is None:
            raise reader.fail(start, f"required field '{name}' is missing")
    return dims, tensor_type, content


def _parse_value(buf: memoryview, start: int, end: int, source: str, value_offset: int) -> _Record:
    """Parse one Value message (tag + tensor)."""
    reader = _WireReader(buf, start, end, source, "checkpoint entry")
    tag = None
    tensor_bounds = None
    seen: set = set()
    while not reader.at_end():
        field, wire_type, offset = reader.key()
        if field == 1:
            reader.expect(wire_type, _LEN, offset, "tag")
            _set_once(seen, reader, "tag", offset)
            tag = _utf8(reader, *reader.length_delimited(), offset, "tag")
        elif field == 2:
            reader.expect(wire_type, _LEN, offset, "tensor")
            _set_once(seen, reader, "tensor", offset)
            tensor_bounds = reader.length_delimited()
        elif field == 3:
            raise reader.fail(offset, "MapParameter entries (field 'maptensor') are not supported")
        else:
            reader.skip(wire_type, offset, field)
    if tag is None:
        raise reader.fail(value_offset, "required field 'tag' is missing")
    if tensor_bounds is None:
        raise reader.fail(value_offset, f"entry '{tag}' has no tensor")
    dims, tensor_type, content = _parse_tensor(buf, *tensor_bounds, source, tag)
    return _Record(value_offset, tag, dims, tensor_type, content)


def _parse_records(buf: memoryview, source: str) -> list[_Record]:
    """Parse the top-level Checkpoint message (without any CRC trailer) into its Values, in file order."""
    reader = _WireReader(buf, 0, len(buf), source, "checkpoint")
    records = []
    while not reader.at_end():
        field, wire_type, offset = reader.key()
        if field == 1:
            reader.expect(wire_type, _LEN, offset, "value")
            records.append(_parse_value(buf, *reader.length_delimited(), source, offset))
        else:
            reader.skip(wire_type, offset, field)
    return records


# --------------------------------------------------------------------------------------------------------
# From records to values
# --------------------------------------------------------------------------------------------------------


def _strip_crc(buf: memoryview, source: str) -> memoryview:
    """Verify and remove a ``crc_num`` trailer if there is one (detected the way MindSpore detects it)."""
    if len(buf) < _CRC_TRAILER_LEN or bytes(buf[-_CRC_TRAILER_LEN:-10]) != _CRC_MARKER:
        return buf
    body = buf[:-_CRC_TRAILER_LEN]
    stored = int.from_bytes(buf[-10:], "big")
    actual = binascii.crc32(body)
    if stored != actual:
        raise CheckpointError(
            source, len(body),
            f"CRC check failed: the crc_num trailer says {stored:#010x} but the data has CRC32 {actual:#010x}",
            "The file is damaged; restore it from a good copy.",
        )
    return body


def _group_slices(records: list[_Record], source: str) -> Iterator[tuple[_Record, bytes | memoryview]]:
    """Join consecutive Values with the same tag (a large tensor saved in slices) into one content buffer."""
    seen: set[str] = set()
    i = 0
    while i < len(records):
        first = records[i]
        if first.tag in seen:
            raise CheckpointError(source, first.offset,
                                  f"entry '{first.tag}' appears again after other entries (its slices "
                                  "must be consecutive)")
        seen.add(first.tag)
        j = i + 1
        while j < len(records) and records[j].tag == first.tag:
            other = records[j]
            if other.dims != first.dims or other.tensor_type != first.tensor_type:
                raise CheckpointError(source, other.offset,
                                      f"slice of '{first.tag}' has dims {other.dims} / type "
                                      f"{other.tensor_type!r}, but its first slice has {first.dims} / "
                                      f"{first.tensor_type!r}")
            j += 1
        content = first.content if j == i + 1 else b"".join(r.content for r in records[i:j])
        yield first, content
        i = j


def _decode_string(rec: _Record, content, source: str) -> str:
    """A ``str`` entry: dims [0], UTF-32-LE. Trailing NULs are dropped, as numpy's ``U`` dtype does."""
    if rec.dims != [0]:
        raise CheckpointError(source, rec.offset, f"string entry '{rec.tag}' has dims {rec.dims}, expected [0]")
    if len(content) % 4:
        raise CheckpointError(source, rec.offset,
                              f"string entry '{rec.tag}' has {len(content)} bytes, not a multiple of 4 (UTF-32)")
    try:
        return bytes(content).decode("utf-32-le").rstrip("\x00")
    except UnicodeDecodeError:
        raise CheckpointError(source, rec.offset, f"string entry '{rec.tag}' is not valid UTF-32") from None


def _check_shape_fits(rec: _Record, shape: tuple[int, ...], dtype: np.dtype, source: str) -> None:
    """Reject shapes numpy cannot represent even when empty (it checks the non-zero dims' byte size)."""
    if len(shape) > _MAX_NDIM:
        raise CheckpointError(source, rec.offset,
                              f"entry '{rec.tag}' has {len(shape)} dims; at most {_MAX_NDIM} are supported")
    if math.prod(d for d in shape if d) * dtype.itemsize > np.iinfo(np.intp).max:
        raise CheckpointError(source, rec.offset, f"entry '{rec.tag}' has impossibly large dims {list(shape)}")


def _decode_tensor(rec: _Record, content, source: str) -> np.ndarray:
    """A numeric entry: check type and size, then copy it into a writable native-order array."""
    dtype = _MS_TO_NP.get(rec.tensor_type)
    if dtype is None:
        known = ", ".join([*_MS_TO_NP, "str"])
        raise CheckpointError(source, rec.offset,
                              f"entry '{rec.tag}' has unknown tensor_type {rec.tensor_type!r} (known: {known})")
    shape = tuple(rec.dims)
    if shape == (0,) and len(content) == dtype.itemsize:
        shape = ()  # older MindSpore stored scalars with dims [0]; an empty (0,) tensor has no content
    _check_shape_fits(rec, shape, dtype, source)
    expected = math.prod(shape) * dtype.itemsize  # exact Python int: huge dims cannot overflow
    if len(content) != expected:
        raise CheckpointError(source, rec.offset,
                              f"entry '{rec.tag}' has {len(content)} bytes of data, but dims {list(rec.dims)} "
                              f"of {rec.tensor_type} need {expected}")
    if dtype == np.bool_ and np.frombuffer(content, np.uint8).max(initial=0) > 1:
        raise CheckpointError(source, rec.offset, f"Bool entry '{rec.tag}' holds bytes other than 0 and 1")
    array = np.frombuffer(content, dtype).reshape(shape).copy()
    return array.byteswap() if sys.byteorder == "big" else array  # the file is always little-endian


def decode_ckpt(data: bytes | bytearray | memoryview, source: str = "<bytes>") -> dict[str, np.ndarray | str]:
    """Decode MindSpore ``.ckpt`` bytes into ``{name: value}`` in file order.

    Values are writable numpy arrays (0-d for scalars) or ``str``. Slices of large tensors are joined. A
    ``crc_num`` trailer, if present, is verified. Any malformed input raises :class:`CheckpointError` whose
    message names ``source`` and the byte offset; no other exception escapes for any input bytes.
    """
    mode = _ENCRYPTED_MAGIC.get(bytes(data[:4]))
    if mode is not None:
        raise CheckpointError(source, None, f"the file is encrypted (MindSpore save_checkpoint with enc_key, "
                                            f"enc_mode='{mode}'), which graphcell cannot decrypt",
                              "Decrypt it with MindSpore (load_checkpoint with dec_key, then save_checkpoint "
                              "without enc_key).")
    buf = _strip_crc(memoryview(data).cast("B"), source)
    result: dict[str, np.ndarray | str] = {}
    for rec, content in _group_slices(_parse_records(buf, source), source):
        if rec.tensor_type == "str":
            result[rec.tag] = _decode_string(rec, content, source)
        else:
            result[rec.tag] = _decode_tensor(rec, content, source)
    return result


# --------------------------------------------------------------------------------------------------------
# Protobuf wire-format writing
# --------------------------------------------------------------------------------------------------------


def _varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _len_header(field: int, length: int) -> bytes:
    """Key and length prefix of a length-delimited field; the payload follows separately."""
    return _varint(field << 3 | _LEN) + _varint(length)


def _as_tensor_fields(name: str, value: EntryValue) -> tuple[list[int], str, memoryview]:
    """Map one entry value to ``(dims, tensor_type, little-endian content)`` the way MindSpore does.

    Python ``int`` becomes an Int64 scalar, ``float`` a Float32 scalar, ``bool`` a Bool scalar (what
    ``Tensor(value)`` gives for ``append_dict`` entries); ``str`` becomes a UTF-32 string with dims [0].
    """
    if isinstance(value, str):
        try:
            return [0], "str", memoryview(value.encode("utf-32-le"))
        except UnicodeEncodeError as e:
            raise ValueError(f"checkpoint entry '{name}': string cannot be stored as UTF-32 ({e})") from None
    if isinstance(value, (np.ndarray, np.generic)) or hasattr(value, "__array__"):
        array = np.asarray(value)
    elif isinstance(value, bool):  # before int: bool is a subclass of int
        array = np.array(value, np.bool_)
    elif isinstance(value, int):
        if not -(1 << 63) <= value < 1 << 63:
            raise ValueError(f"checkpoint entry '{name}': {value} does not fit in Int64")
        array = np.array(value, np.int64)
    elif isinstance(value, float):
        array = np.array(value, np.float32)
    else:
        raise TypeError(f"checkpoint entry '{name}': cannot store a {type(value).__name__}; "
                        "expected a numpy array, str, int, float or bool")
    if not array.dtype.isnative:  # e.g. '>f4' read from elsewhere: bring it to native order first
        array = array.astype(array.dtype.newbyteorder("="))
    tensor_type = _NP_TO_MS.get(array.dtype)
    if tensor_type is None:
        raise TypeError(f"checkpoint entry '{name}': dtype {array.dtype} has no MindSpore checkpoint type "
                        f"(supported: {', '.join(_NP_TO_MS.values())})")
    flat = np.ascontiguousarray(array).reshape(-1)
    if sys.byteorder == "big":
        flat = flat.byteswap()
    return list(array.shape), tensor_type, memoryview(flat.view(np.uint8))


def _entry_pieces(name: str, value: EntryValue) -> Iterator[bytes | memoryview]:
    """Byte pieces of the Checkpoint message(s) for one entry, exactly as protobuf would serialize them.

    Yielding headers and content separately avoids copying large tensors several times over.
    """
    dims, tensor_type, content = _as_tensor_fields(name, value)
    tag = name.encode("utf-8")
    dims_bytes = b"".join(_varint(1 << 3 | _VARINT) + _varint(d) for d in dims)
    type_field = _len_header(2, len(tensor_type)) + tensor_type.encode("ascii")
    # MindSpore cuts the raw bytes into SLICE_BYTES chunks. (It writes nothing at all for an empty tensor;
    # we write one Value with empty content instead, so the entry is not silently lost.)
    starts = range(0, len(content), SLICE_BYTES) if len(content) else [0]
    tag_field = _len_header(1, len(tag)) + tag
    for start in starts:
        chunk = content[start:start + SLICE_BYTES]
        content_header = _len_header(3, len(chunk))
        tensor_len = len(dims_bytes) + len(type_field) + len(content_header) + len(chunk)
        tensor_header = _len_header(2, tensor_len)
        value_len = len(tag_field) + len(tensor_header) + tensor_len
        yield _len_header(1, value_len) + tag_field + tensor_header + dims_bytes + type_field + content_header
        yield chunk


def _iter_entries(entries: Entries) -> Iterator[tuple[str, EntryValue]]:
    """Entries as ``(name, value)`` pairs; names must be unique strings (MindSpore keys a dict by them)."""
    items = entries.items() if isinstance(entries, Mapping) else entries
    names: set[str] = set()
    for name, value in items:
        if not isinstance(name, str):
            raise TypeError(f"checkpoint entry names must be str, got {type(name).__name__}")
        if name in names:
            raise ValueError(f"checkpoint entry '{name}' is given twice")
        names.add(name)
        yield name, value


def _iter_ckpt_pieces(entries: Entries, crc_check: bool) -> Iterator[bytes | memoryview]:
    """All byte pieces of a ``.ckpt`` file, with the CRC trailer computed as the pieces go by."""
    crc = 0
    for name, value in _iter_entries(entries):
        for piece in _entry_pieces(name, value):
            if crc_check:
                crc = binascii.crc32(piece, crc)
            yield piece
    if crc_check:
        yield _CRC_MARKER + crc.to_bytes(10, "big")


def encode_ckpt(entries: Entries, crc_check: bool = False) -> bytes:
    """Encode ``[(name, value), ...]`` (or a mapping) as MindSpore ``.ckpt`` bytes, in the given order.

    Values: numpy arrays of a supported dtype (Int8..UInt64, Float16/32/64, Bool, BFloat16), ``str``,
    ``int`` (Int64 scalar), ``float`` (Float32 scalar) or ``bool``. The output is byte-identical to
    ``mindspore.save_checkpoint`` for the same names, dtypes and values.
    """
    return b"".join(_iter_ckpt_pieces(entries, crc_check))


# --------------------------------------------------------------------------------------------------------
# Files
# --------------------------------------------------------------------------------------------------------


def read_ckpt_file(path: str | os.PathLike) -> dict[str, np.ndarray | str]:
    """Read a MindSpore ``.ckpt`` file. Format problems raise :class:`CheckpointError` naming the file."""
    source = os.fspath(path)
    data = Path(path).read_bytes()
    if not data:
        # protobuf would happily read this as "no parameters", but an empty file is a failed write.
        raise CheckpointError(source, None, "the file is empty (0 bytes)")
    return decode_ckpt(data, source)


def write_ckpt_file(path: str | os.PathLike, entries: Entries, crc_check: bool = False) -> None:
    """Write a MindSpore ``.ckpt`` file atomically (see :func:`encode_ckpt` for ``entries``).

    The file is streamed piece by piece into a temporary file that replaces ``path`` only when complete, so
    a failure (bad entry, full disk, crash) leaves any previous file intact.
    """
    items = list(_iter_entries(entries))  # (name, value) references only; also validates the names
    if not items:
        raise ValueError(f"{os.fspath(path)}: no entries to save; an empty checkpoint cannot be told "
                         "apart from a failed write, so none is written")
    with atomic_open(path, "wb") as f:
        for piece in _iter_ckpt_pieces(items, crc_check):
            f.write(piece)


# safetensors dtype names <-> numpy; safetensors.numpy itself has no BF16, so the table is ours.
_ST_TO_NP: dict[str, np.dtype] = {
    name: np.dtype(t)
    for name, t in [
        ("F64", np.float64), ("F32", np.float32), ("F16", np.float16), ("I64", np.int64), ("U64", np.uint64),
        ("I32", np.int32), ("U32", np.uint32), ("I16", np.int16), ("U16", np.uint16), ("I8", np.int8),
        ("U8", np.uint8), ("BOOL", np.bool_), ("C64", np.complex64),
    ]
}
if _bfloat16 is not None:
    _ST_TO_NP["BF16"] = np.dtype(_bfloat16)


def _safetensors_error(source: str, problem: str) -> CheckpointError:
    return CheckpointError(source, None, problem,
                           "Is this a safetensors file? It may be truncated or corrupt.")


def read_safetensors_file(path: str | os.PathLike) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """Read a ``.safetensors`` file into ``({name: writable array}, metadata)``, names in sorted order.

    ``metadata`` is the header's ``__metadata__`` (``{}`` when absent). Bad headers, truncation and
    unsupported dtypes raise :class:`CheckpointError` naming the file.
    """
    import safetensors  # imported here so .ckpt support never needs it

    source = os.fspath(path)
    data = Path(path).read_bytes()
    try:
        views = safetensors.deserialize(data)  # validates header, offsets and coverage of the whole file
    except Exception as e:  # the library's SafetensorError, or anything else it raises on garbage
        raise _safetensors_error(source, f"safetensors could not parse it ({e})") from None
    tensors: dict[str, np.ndarray] = {}
    for name, view in sorted(views, key=lambda item: item[0]):
        dtype = _ST_TO_NP.get(view["dtype"])
        if dtype is None:
            raise _safetensors_error(source, f"tensor '{name}' has unsupported dtype {view['dtype']}")
        array = np.frombuffer(view["data"], dtype).reshape(view["shape"])
        tensors[name] = (array.byteswap() if sys.byteorder == "big" else array).copy()
    return tensors, _safetensors_metadata(data)


def _safetensors_metadata(data: bytes) -> dict[str, str]:
    """The ``__metadata__`` of a header that ``safetensors.deserialize`` has already validated."""
    header_len = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + header_len])
    return dict(header.get("__metadata__") or {})


def write_safetensors_file(
    path: str | os.PathLike,
    entries: Entries,
    metadata: Mapping[str, str] | None = MS_SAFETENSORS_METADATA,
) -> None:
    """Write numpy arrays to a ``.safetensors`` file atomically, as MindSpore does.

    MindSpore hands the library its tensors sorted by name with metadata ``{"format": "ms"}`` (and no
    metadata at all when there are no tensors); the library then orders the data by dtype alignment and
    name. Given the same tensors this reproduces MindSpore's file byte for byte.
    """
    from safetensors.numpy import save

    tensors: dict[str, np.ndarray] = {}
    for name, value in sorted(_iter_entries(entries), key=lambda item: item[0]):
        if isinstance(value, str) or not (isinstance(value, (np.ndarray, np.generic)) or hasattr(value, "__array__")):
            raise TypeError(f"safetensors entry '{name}': expected a numpy array, got {type(value).__name__}")
        # The library reads raw memory through a pointer, so the array must be contiguous. (Not
        # np.ascontiguousarray: it turns a 0-d array into shape [1].)
        tensors[name] = np.require(value, requirements="C")
        if tensors[name].dtype not in _ST_TO_NP.values():   # e.g. complex128: safetensors has no tag for it
            raise TypeError(f"safetensors entry '{name}': dtype {tensors[name].dtype} has no safetensors type "
                            f"(supported: {', '.join(_ST_TO_NP)})")
    meta = dict(metadata) if (metadata is not None and tensors) else None
    atomic_write(path, save(tensors, metadata=meta))

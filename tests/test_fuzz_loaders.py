"""Fuzzing the safetensors and ONNX loading paths (the .ckpt reader is fuzzed in test_ckpt_format.py).

Random bytes, truncations and byte mutations of real files: only the documented errors may escape
(CheckpointError / ValueError / ParameterLoadError for checkpoints, OnnxModelError for ONNX), a failed
``load_checkpoint(path, net=...)`` leaves the net unchanged, and nothing allocates memory proportional to
a length field (the whole run stays under a small RSS bound). Bounded: modest max_examples, no deadline
flakiness.
"""
import os
import resource

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graphcell as ms
from graphcell.train._param_load import ParameterLoadError
from graphcell.train.ckpt_format import CheckpointError, read_safetensors_file
from graphcell.runtime.session import OnnxModelError, Session
from tests.conftest import GOLDEN, fuzz_examples
from tests.models.lenet import LeNet5

SAFETENSORS = (GOLDEN / "net0.safetensors").read_bytes()
pytestmark = pytest.mark.fuzz
FUZZ = settings(max_examples=fuzz_examples(60), deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
CKPT_ERRORS = (CheckpointError, ParameterLoadError, ValueError)


def _max_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _mutated(data: bytes, edits) -> bytes:
    buf = bytearray(data)
    for pos, byte in edits:
        buf[pos % len(buf)] = byte
    return bytes(buf)


edits = st.lists(st.tuples(st.integers(0, 1 << 20), st.integers(0, 255)), min_size=1, max_size=8)


@pytest.fixture(scope="module")
def onnx_bytes(tmp_path_factory):
    """A small exported model: Dense(4, 3) + ReLU."""
    net = ms.nn.SequentialCell([ms.nn.Dense(4, 3), ms.nn.ReLU()])
    path = ms.export(net, ms.Tensor(np.ones((2, 4), np.float32)),
                     file_name=str(tmp_path_factory.mktemp("fz") / "small.onnx"))
    with open(path, "rb") as f:
        return f.read()


def _net_snapshot(net):
    return {p.name: p.asnumpy().copy() for p in net.get_parameters()}


def _load_into_fresh_net(tmp_path, data: bytes):
    """load_checkpoint(path, net=...) on `data`: either every parameter equals the file, or it raised a
    documented error and the net is exactly as before."""
    path = tmp_path / "fuzz.safetensors"
    path.write_bytes(data)
    net = LeNet5()
    before = _net_snapshot(net)
    try:
        loaded = ms.load_checkpoint(str(path), net=net)
    except CKPT_ERRORS as e:
        if isinstance(e, CheckpointError):
            assert str(path) in str(e)                      # the message names the file
        after = _net_snapshot(net)
        for name in before:                                 # no partial load
            np.testing.assert_array_equal(after[name], before[name], err_msg=name)
        return False
    # It parsed: whatever the net took must equal the file exactly.
    tensors, _ = read_safetensors_file(path)
    for p in net.get_parameters():
        if p.name in loaded:
            np.testing.assert_array_equal(p.asnumpy(), tensors[p.name].astype(p.asnumpy().dtype))
    return True


@FUZZ
@given(data=st.binary(max_size=512))
def test_safetensors_random_bytes(tmp_path, data):
    path = tmp_path / "r.safetensors"
    path.write_bytes(data)
    try:
        read_safetensors_file(path)
    except CheckpointError as e:
        assert str(path) in str(e)


@FUZZ
@given(cut=st.integers(0, len(SAFETENSORS) - 1))
def test_safetensors_truncated_is_rejected_without_partial_load(tmp_path, cut):
    # Every strict prefix of the file is invalid: safetensors checks that the data covers the header.
    assert _load_into_fresh_net(tmp_path, SAFETENSORS[:cut]) is False


@FUZZ
@given(edits=edits)
def test_safetensors_mutated_loads_all_or_nothing(tmp_path, edits):
    _load_into_fresh_net(tmp_path, _mutated(SAFETENSORS, edits))


@FUZZ
@given(edits=st.lists(st.tuples(st.integers(0, 7), st.integers(0, 255)), min_size=1, max_size=8))
def test_safetensors_header_length_field_never_allocates_it(tmp_path, edits):
    # The first 8 bytes are the header length: a huge value must be refused, not allocated.
    rss = _max_rss_mib()
    _load_into_fresh_net(tmp_path, _mutated(SAFETENSORS, edits))
    assert _max_rss_mib() - rss < 256


def test_safetensors_unmodified_golden_loads(tmp_path):
    assert _load_into_fresh_net(tmp_path, SAFETENSORS) is True


def _open_session(data: bytes, tmp_path, as_file: bool):
    if as_file:
        path = tmp_path / "m.onnx"
        path.write_bytes(data)
        source = str(path)
    else:
        source = data
    try:
        Session(source, providers=["cpu"])
    except OnnxModelError as e:
        assert "truncated or corrupt" in str(e)
        if as_file:
            assert source in str(e)                         # names the file
        return False
    return True


@FUZZ
@given(data=st.binary(max_size=512), as_file=st.booleans())
def test_onnx_random_bytes(tmp_path, data, as_file):
    _open_session(data, tmp_path, as_file)


@FUZZ
@given(frac=st.floats(0.0, 0.999))
def test_onnx_truncated(tmp_path, onnx_bytes, frac):
    _open_session(onnx_bytes[:int(len(onnx_bytes) * frac)], tmp_path, as_file=True)


@FUZZ
@given(edits=edits)
def test_onnx_mutated(tmp_path, onnx_bytes, edits):
    rss = _max_rss_mib()
    _open_session(_mutated(onnx_bytes, edits), tmp_path, as_file=True)
    assert _max_rss_mib() - rss < 256


def test_onnx_unmodified_loads(tmp_path, onnx_bytes):
    assert _open_session(onnx_bytes, tmp_path, as_file=True) is True


def test_onnx_missing_file_names_it(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.onnx"):
        Session(str(tmp_path / "nope.onnx"), providers=["cpu"])
    assert not os.path.exists(tmp_path / "nope.onnx")

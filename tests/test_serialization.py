"""save_checkpoint / load_checkpoint / load_param_into_net and ensemble checkpoints (graphcell.train.serialization).

References: the MindSpore 2.10 golden files (bytes and values), protobuf's own parser (google.protobuf)
and the safetensors library's loader; never graphcell's decoder alone.
"""

from __future__ import annotations


import numpy as np
import pytest
import safetensors.numpy

import graphcell as ms
import graphcell.train.atomic as atomic
import graphcell.train.ckpt_format as ckpt_format
from graphcell import nn
from graphcell.train import (CheckpointError, ParameterLoadError, extract_member, load_checkpoint,
                             load_param_into_net, save_checkpoint, stack_checkpoints)
from tests.conftest import GOLDEN, load_lenet
from tests.test_ckpt_format import reference_checkpoint_class
from tests.models.lenet import LeNet5

GOLDEN_CKPTS = sorted(GOLDEN.glob("*.ckpt"))
LENET_NAMES = ["conv1.weight", "conv2.weight", "fc1.weight", "fc1.bias",
               "fc2.weight", "fc2.bias", "fc3.weight", "fc3.bias"]


# ---------------------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------------------


def protobuf_decode(data: bytes) -> dict[str, np.ndarray]:
    """An independent .ckpt reader: MindSpore's checkpoint.proto compiled by google.protobuf."""
    msg = reference_checkpoint_class()()
    msg.ParseFromString(data)
    np_types = {"Float32": np.float32, "Float16": np.float16, "Float64": np.float64, "Int32": np.int32,
                "Int64": np.int64, "Bool": np.bool_, "UInt8": np.uint8, "Int8": np.int8,
                "BFloat16": ms.bfloat16.np_dtype}
    out = {}
    for v in msg.value:
        if v.tensor.tensor_type == "str":
            out[v.tag] = v.tensor.tensor_content.decode("utf-32-le")
        else:
            out[v.tag] = np.frombuffer(v.tensor.tensor_content, np_types[v.tensor.tensor_type]).reshape(
                list(v.tensor.dims))
    return out


def snapshot(net) -> dict[str, np.ndarray]:
    return {p.name: np.array(p.asnumpy(), copy=True) for p in net.get_parameters()}


def assert_unchanged(net, before: dict[str, np.ndarray]) -> None:
    after = snapshot(net)
    assert list(after) == list(before)
    for name in before:
        assert after[name].dtype == before[name].dtype
        assert after[name].tobytes() == before[name].tobytes(), f"{name} was changed"


def assert_bit_equal(a: np.ndarray, b: np.ndarray, what="") -> None:
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape, what
    assert a.tobytes() == b.tobytes(), what


class MixedDtypes(nn.Cell):
    """Parameters of several dtypes and ranks, including a 0-d one and a non-trainable one."""

    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(0)
        self.w16 = ms.Parameter(rng.standard_normal((3, 4)).astype(np.float16))
        self.w64 = ms.Parameter(rng.standard_normal((2,)))
        self.wbf = ms.Parameter(rng.standard_normal((5,)).astype(ms.bfloat16.np_dtype))
        self.count = ms.Parameter(np.array([1, -2, 3], np.int32), requires_grad=False)
        self.flag = ms.Parameter(np.array([True, False]), requires_grad=False)
        self.step = ms.Parameter(np.array(7, np.int64), requires_grad=False)
        self.dense = nn.Dense(4, 2)


# ---------------------------------------------------------------------------------------------------------
# Golden MindSpore files
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", GOLDEN_CKPTS, ids=lambda p: p.name)
def test_golden_ckpt_loads_as_protobuf_reads_it(path):
    loaded = load_checkpoint(path)
    reference = protobuf_decode(path.read_bytes())
    assert list(loaded) == list(reference) == LENET_NAMES
    for name, param in loaded.items():
        assert isinstance(param, ms.Parameter) and param.name == name
        assert_bit_equal(param.asnumpy(), reference[name], name)


def test_golden_count():
    assert len(GOLDEN_CKPTS) == 8


def test_golden_safetensors_loads_as_the_library_reads_it():
    loaded = load_checkpoint(GOLDEN / "net0.safetensors")  # format follows the suffix
    reference = safetensors.numpy.load_file(str(GOLDEN / "net0.safetensors"))
    assert sorted(loaded) == sorted(reference) == sorted(LENET_NAMES)
    from_ckpt = load_checkpoint(GOLDEN / "net0.ckpt")
    for name in LENET_NAMES:
        assert loaded[name].name == name
        assert_bit_equal(loaded[name].asnumpy(), reference[name], name)
        assert_bit_equal(loaded[name].asnumpy(), from_ckpt[name].asnumpy(), name)  # MindSpore wrote both


def test_save_lenet_reproduces_mindspore_bytes(tmp_path):
    net = load_lenet(0)
    save_checkpoint(net, str(tmp_path / "net0.ckpt"))
    assert (tmp_path / "net0.ckpt").read_bytes() == (GOLDEN / "net0.ckpt").read_bytes()
    save_checkpoint(net, str(tmp_path / "net0.safetensors"), format="safetensors")
    assert (tmp_path / "net0.safetensors").read_bytes() == (GOLDEN / "net0.safetensors").read_bytes()


def test_file_suffix_is_appended_like_mindspore(tmp_path):
    net = load_lenet(0)
    save_checkpoint(net, str(tmp_path / "model"))
    save_checkpoint(net, str(tmp_path / "model"), format="safetensors")
    save_checkpoint(net, tmp_path / "again.ckpt")  # a PathLike works too; no second suffix
    assert sorted(p.name for p in tmp_path.iterdir()) == ["again.ckpt", "model.ckpt", "model.safetensors"]
    with pytest.raises(ValueError, match="'ckpt' or 'safetensors'"):
        save_checkpoint(net, str(tmp_path / "m"), format="onnx")
    with pytest.raises(IsADirectoryError):
        save_checkpoint(net, str(tmp_path))


def test_load_into_net_reproduces_mindspore_output():
    net = LeNet5()
    params = load_checkpoint(GOLDEN / "net0.ckpt", net=net)
    assert len(params) == 8
    out = net(ms.Tensor(np.load(GOLDEN / "minibatch.npy"))).asnumpy()
    np.testing.assert_allclose(out, np.load(GOLDEN / "net0_out.npy"), atol=1e-5, rtol=0)


# ---------------------------------------------------------------------------------------------------------
# Round trips of graphcell-written files
# ---------------------------------------------------------------------------------------------------------


def append_values():
    return {"epoch_num": 3, "lr": 0.125, "ok": True, "note": "résumé ✓", "t": ms.Tensor(np.arange(3, dtype=np.int32))}


@pytest.mark.parametrize("fmt", ["ckpt", "safetensors"])
def test_round_trip_is_bit_exact_for_every_dtype(tmp_path, fmt):
    net = MixedDtypes()
    append = append_values()
    if fmt == "safetensors":
        del append["note"]  # safetensors holds tensors only (tested below)
    path = tmp_path / f"mixed.{fmt}"
    save_checkpoint(net, str(path), append_dict=append, format=fmt)
    loaded = load_checkpoint(str(path), format=fmt)

    expected = {p.name: p.asnumpy() for p in net.get_parameters()}
    expected.update(epoch_num=np.array(3, np.int64), lr=np.array(0.125, np.float32), ok=np.array(True),
                    t=np.arange(3, dtype=np.int32))
    if fmt == "ckpt":
        # parameters in net order, then append_dict in its order
        assert list(loaded) == [p.name for p in net.get_parameters()] + list(append)
        assert loaded["note"] == "résumé ✓"
        reference = protobuf_decode(path.read_bytes())
    else:
        reference = safetensors.numpy.load_file(str(path))
        assert safetensors.safe_open(str(path), "np").metadata() == {"format": "ms"}
    for name, value in expected.items():
        assert_bit_equal(loaded[name].asnumpy(), value, name)
        if not (fmt == "safetensors" and name == "wbf"):  # safetensors.numpy has no bfloat16
            assert_bit_equal(reference[name], value, name)
    assert str(loaded["wbf"].dtype) == "BFloat16" and str(loaded["step"].dtype) == "Int64"

    fresh = MixedDtypes()
    for p in fresh.get_parameters():
        p.set_data(np.zeros(p.shape, p.dtype.np_dtype))
    assert load_param_into_net(fresh, loaded) == ([], [k for k in loaded if k in append])
    assert_unchanged(fresh, snapshot(net))


def test_safetensors_rejects_strings_without_writing(tmp_path):
    with pytest.raises(TypeError, match="note"):
        save_checkpoint(load_lenet(0), str(tmp_path / "x"), append_dict={"note": "hi"}, format="safetensors")
    assert list(tmp_path.iterdir()) == []


def test_save_object_kinds_and_choice_func(tmp_path):
    net = load_lenet(1)
    reference = load_checkpoint(GOLDEN / "net1.ckpt")

    save_checkpoint(net.trainable_params(), str(tmp_path / "list.ckpt"))
    save_checkpoint([{"name": p.name, "data": p} for p in net.trainable_params()], str(tmp_path / "dicts.ckpt"))
    save_checkpoint(reference, str(tmp_path / "dict.ckpt"))
    save_checkpoint({k: v.asnumpy() for k, v in reference.items()}, str(tmp_path / "arrays.ckpt"))
    golden = (GOLDEN / "net1.ckpt").read_bytes()
    for name in ["list", "dicts", "dict", "arrays"]:
        assert (tmp_path / f"{name}.ckpt").read_bytes() == golden, name

    save_checkpoint(net, str(tmp_path / "conv.ckpt"), choice_func=lambda n: n.startswith("conv"),
                    append_dict={"epoch": 1})
    assert list(protobuf_decode((tmp_path / "conv.ckpt").read_bytes())) == ["conv1.weight", "conv2.weight",
                                                                              "epoch"]
    with pytest.raises(TypeError, match="save_obj"):
        save_checkpoint(net.conv1.weight, str(tmp_path / "p.ckpt"))
    with pytest.raises(TypeError, match="append_dict"):
        save_checkpoint(net, str(tmp_path / "p.ckpt"), append_dict={"bad": [1, 2]})


class WithState(nn.Cell):
    """A net plus optimizer-like state, held the way MindSpore optimizers hold it: cloned moment
    ParameterTuples and a step counter, next to BN statistics (non-trainable) and a shared weight."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 2)
        self.bn = nn.BatchNorm1d(2)
        self.fc_weight_again = self.fc.weight  # shared: saved once
        params = ms.ParameterTuple(p for p in self.get_parameters() if p.requires_grad)
        self.moment1 = params.clone(prefix="moment1", init="zeros")
        self.global_step = ms.Parameter(np.array([0], np.int32), requires_grad=False)


def test_cell_with_state_saves_every_parameter_once_in_order(tmp_path):
    net = WithState()
    net.global_step.set_data(np.array([5], np.int32))
    save_checkpoint(net, str(tmp_path / "s.ckpt"))
    saved = protobuf_decode((tmp_path / "s.ckpt").read_bytes())
    # the cell's own parameters in assignment order, then the children's, each once
    assert list(saved) == ["fc.weight", "moment1.fc.weight", "moment1.fc.bias", "moment1.bn.gamma",
                           "moment1.bn.beta", "global_step", "fc.bias", "bn.moving_mean",
                           "bn.moving_variance", "bn.gamma", "bn.beta"]
    assert saved["global_step"].tolist() == [5] and saved["global_step"].dtype == np.int32
    assert saved["bn.moving_variance"].tolist() == [1.0, 1.0]


def test_async_save_snapshots_values(tmp_path):
    net = load_lenet(2)
    save_checkpoint(net, str(tmp_path / "a.ckpt"), async_save=True)
    net.fc3.bias.set_data(np.zeros(10, np.float32))  # while (or after) the file is written
    save_checkpoint(net, str(tmp_path / "b.ckpt"), async_save="thread")
    save_checkpoint(net, str(tmp_path / "c.ckpt"))  # waits for the background saves
    assert (tmp_path / "a.ckpt").read_bytes() == (GOLDEN / "net2.ckpt").read_bytes()
    assert (tmp_path / "b.ckpt").read_bytes() == (tmp_path / "c.ckpt").read_bytes()
    with pytest.raises(ValueError, match="async_save"):
        save_checkpoint(net, str(tmp_path / "d.ckpt"), async_save="fork")


@pytest.mark.parametrize("fmt", ["ckpt", "safetensors"])
def test_crc_round_trip_and_detection(tmp_path, fmt):
    path = tmp_path / f"c.{fmt}"
    save_checkpoint(load_lenet(0), str(path), crc_check=True, format=fmt)
    data = path.read_bytes()
    if fmt == "ckpt":
        assert data[-17:-10] == b"crc_num" and data[:-17] == (GOLDEN / "net0.ckpt").read_bytes()
    else:
        assert set(safetensors.safe_open(str(path), "np").metadata()) == {"format", "crc_num"}
    loaded = load_checkpoint(str(path), crc_check=True)
    assert_bit_equal(loaded["fc2.weight"].asnumpy(), load_checkpoint(GOLDEN / "net0.ckpt")["fc2.weight"].asnumpy())

    corrupt = bytearray(data)
    corrupt[len(data) // 2 if fmt == "ckpt" else -5] ^= 0x01  # a bit in the middle of some tensor
    path.write_bytes(bytes(corrupt))
    with pytest.raises(CheckpointError, match="crc"):
        load_checkpoint(str(path), crc_check=True)


# ---------------------------------------------------------------------------------------------------------
# load_checkpoint filters and load_param_into_net semantics
# ---------------------------------------------------------------------------------------------------------


def test_load_filters():
    path = GOLDEN / "net0.ckpt"
    assert list(load_checkpoint(path, specify_prefix="fc1")) == ["fc1.weight", "fc1.bias"]
    assert list(load_checkpoint(path, filter_prefix=["conv", "fc1", "fc2"])) == ["fc3.weight", "fc3.bias"]
    assert list(load_checkpoint(path, choice_func=lambda n: n.endswith("bias"))) == [
        "fc1.bias", "fc2.bias", "fc3.bias"]
    # Either prefix argument overrides choice_func (MindSpore's rule).
    assert list(load_checkpoint(path, specify_prefix="conv", choice_func=lambda n: False)) == [
        "conv1.weight", "conv2.weight"]
    with pytest.raises(ValueError, match="nothing is left"):
        load_checkpoint(path, specify_prefix="nope")
    with pytest.raises(ValueError, match="non-empty"):
        load_checkpoint(path, filter_prefix=[""])
    with pytest.raises(ValueError, match="does not exist"):
        load_checkpoint(str(GOLDEN / "missing.ckpt"))
    with pytest.raises(ValueError, match="end with the format"):
        load_checkpoint(path, format="safetensors")


def test_missing_parameters_are_reported_and_others_loaded():
    net = LeNet5()
    params = load_checkpoint(GOLDEN / "net3.ckpt", filter_prefix="conv1")
    param_not_load, ckpt_not_load = load_param_into_net(net, params)
    assert param_not_load == ["conv1.weight"] and ckpt_not_load == []
    assert_bit_equal(net.fc1.weight.asnumpy(), params["fc1.weight"].asnumpy())


def test_strict_load_reports_missing_parameters_and_loads_the_rest():
    """As in MindSpore 2.10: strict_load=True returns the missing names in param_not_load (it does
    not raise), and loads every parameter the dict has."""
    net = load_lenet(0)
    before = snapshot(net)
    params = load_checkpoint(GOLDEN / "net1.ckpt", filter_prefix=["conv1", "fc3.bias"])
    assert load_param_into_net(net, params, strict_load=True) == (["conv1.weight", "fc3.bias"], [])
    np.testing.assert_array_equal(net.conv1.weight.asnumpy(), before["conv1.weight"])
    assert_bit_equal(net.fc1.weight.asnumpy(), params["fc1.weight"].asnumpy())


def test_a_string_entry_under_a_parameters_name_is_not_a_load(tmp_path):
    """append_dict={"weight": "a note"} replaces the weight in the file (with a warning, as
    MindSpore replaces it); loading reports weight as not loaded, with strict_load too."""
    path = str(tmp_path / "a.ckpt")
    save_checkpoint(nn.Dense(3, 2), path, append_dict={"weight": "a note that collides"})
    params = load_checkpoint(path)
    assert params["weight"] == "a note that collides"
    net = nn.Dense(3, 2)
    before = net.weight.asnumpy().copy()
    assert load_param_into_net(net, params)[0] == ["weight"]
    assert load_param_into_net(net, params, strict_load=True)[0] == ["weight"]
    np.testing.assert_array_equal(net.weight.asnumpy(), before)
    with pytest.raises(ValueError, match="does not fit in Int64"):
        save_checkpoint(nn.Dense(3, 2), path, append_dict={"step": 2**70})


def test_a_file_without_parameters_says_so(tmp_path):
    """It said "nothing is left after filtering; check 'choice_func'..." with no filter given."""
    path = str(tmp_path / "empty.safetensors")
    safetensors.numpy.save_file({}, path)
    with pytest.raises(ValueError, match="empty.safetensors holds no parameters"):
        load_checkpoint(path)


def test_wrong_shapes_name_every_mismatch_and_change_nothing():
    net = load_lenet(0)
    before = snapshot(net)
    params = load_checkpoint(GOLDEN / "net1.ckpt")
    params["conv2.weight"] = ms.Parameter(np.zeros((16, 6, 3, 3), np.float32), name="conv2.weight")
    params["fc3.bias"] = ms.Parameter(np.zeros((11,), np.float32), name="fc3.bias")
    with pytest.raises(ParameterLoadError) as err:
        load_param_into_net(net, params)
    message = str(err.value)
    assert "conv2.weight" in message and "(16, 6, 5, 5)" in message and "(16, 6, 3, 3)" in message
    assert "fc3.bias" in message and "(10,)" in message and "(11,)" in message
    assert len(err.value.problems) == 2 and isinstance(err.value, RuntimeError)
    assert_unchanged(net, before)  # the six good parameters were not loaded either


def test_dtype_conversion_follows_mindspore():
    net = LeNet5()
    half = {k: ms.Parameter(v.asnumpy().astype(np.float16), name=k)
            for k, v in load_checkpoint(GOLDEN / "net0.ckpt").items()}
    assert load_param_into_net(net, half) == ([], [])
    assert net.fc1.weight.dtype == ms.float32
    np.testing.assert_array_equal(net.fc1.weight.asnumpy(), half["fc1.weight"].asnumpy().astype(np.float32))

    before = snapshot(net)
    with pytest.raises(ParameterLoadError, match="strict_load"):
        load_param_into_net(net, half, strict_load=True)
    ints = dict(half, **{"fc1.bias": ms.Parameter(np.zeros(120, np.int32), name="fc1.bias")})
    with pytest.raises(ParameterLoadError, match="fc1.bias.*Float32.*int32"):
        load_param_into_net(net, ints)
    assert_unchanged(net, before)


def test_trailing_unit_dims_are_squeezed_like_mindspore():
    net = LeNet5()
    params = load_checkpoint(GOLDEN / "net0.ckpt")
    params["fc1.weight"] = ms.Parameter(params["fc1.weight"].asnumpy().reshape(120, 400, 1, 1), name="fc1.weight")
    assert load_param_into_net(net, params) == ([], [])
    assert net.fc1.weight.shape == (120, 400)


def test_bad_arguments_are_type_errors():
    net = LeNet5()
    with pytest.raises(TypeError, match="the argument 'net' should be a Cell, but got <class 'dict'>"):
        load_param_into_net({}, {})
    with pytest.raises(TypeError, match="the argument 'parameter_dict' should be a dict, but got <class 'list'>"):
        load_param_into_net(net, [1])
    with pytest.raises(TypeError, match="maps str to Parameter"):
        load_param_into_net(net, {"fc1.bias": [1.0]})


# ---------------------------------------------------------------------------------------------------------
# Faults: nothing changes, and the error names the file
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("cut", [1, 5, 17, 600, 123_456, 247_011])
def test_truncated_file_is_an_error_and_changes_nothing(tmp_path, cut):
    data = (GOLDEN / "net1.ckpt").read_bytes()
    path = tmp_path / "cut.ckpt"
    path.write_bytes(data[:cut])
    net = load_lenet(0)
    before = snapshot(net)
    with pytest.raises(CheckpointError) as err:
        load_checkpoint(str(path), net=net)
    assert "cut.ckpt" in str(err.value)
    assert_unchanged(net, before)


@pytest.mark.parametrize("seed", range(4))
def test_random_bytes_are_an_error_and_change_nothing(tmp_path, seed):
    path = tmp_path / "noise.ckpt"
    path.write_bytes(np.random.default_rng(seed).integers(0, 256, 4096, dtype=np.uint8).tobytes())
    net = load_lenet(0)
    before = snapshot(net)
    with pytest.raises(CheckpointError, match="noise.ckpt"):
        load_checkpoint(str(path), net=net)
    assert_unchanged(net, before)


def test_corrupt_safetensors_is_an_error(tmp_path):
    path = tmp_path / "bad.safetensors"
    path.write_bytes((GOLDEN / "net0.safetensors").read_bytes()[:1000])
    net = load_lenet(0)
    before = snapshot(net)
    with pytest.raises(CheckpointError, match="bad.safetensors"):
        load_checkpoint(str(path), net=net)
    assert_unchanged(net, before)


def test_failed_ckpt_write_keeps_previous_file(tmp_path, monkeypatch):
    path = tmp_path / "model.ckpt"
    save_checkpoint(load_lenet(0), str(path))
    good = path.read_bytes()
    real_pieces = ckpt_format._iter_ckpt_pieces

    def dies_midway(entries, crc_check):
        for i, piece in enumerate(real_pieces(entries, crc_check)):
            if i == 5:
                raise OSError("disk full (simulated)")
            yield piece

    monkeypatch.setattr(ckpt_format, "_iter_ckpt_pieces", dies_midway)
    with pytest.raises(OSError, match="simulated"):
        save_checkpoint(load_lenet(1), str(path))
    assert path.read_bytes() == good
    assert [p.name for p in tmp_path.iterdir()] == ["model.ckpt"]  # no temporary file left behind


def test_failed_safetensors_write_keeps_previous_file(tmp_path, monkeypatch):
    path = tmp_path / "model.safetensors"
    save_checkpoint(load_lenet(0), str(path), format="safetensors")
    good = path.read_bytes()

    def no_fsync(fd):
        raise OSError("power cut (simulated)")

    monkeypatch.setattr(atomic.os, "fsync", no_fsync)
    with pytest.raises(OSError, match="simulated"):
        save_checkpoint(load_lenet(1), str(path), format="safetensors")
    monkeypatch.undo()
    assert path.read_bytes() == good
    assert [p.name for p in tmp_path.iterdir()] == ["model.safetensors"]


# ---------------------------------------------------------------------------------------------------------
# Ensembles
# ---------------------------------------------------------------------------------------------------------


def test_celllist_saves_mindspore_ensemble_names_and_equals_stacking(tmp_path):
    nets = [load_lenet(i) for i in range(4)]
    save_checkpoint(nn.CellList(nets), str(tmp_path / "ens.ckpt"))
    names = list(protobuf_decode((tmp_path / "ens.ckpt").read_bytes()))
    assert names == [f"{i}.{n}" for i in range(4) for n in LENET_NAMES]

    stacked = stack_checkpoints([GOLDEN / f"net{i}.ckpt" for i in range(4)], tmp_path / "stacked.ckpt")
    assert list(stacked) == names
    assert (tmp_path / "stacked.ckpt").read_bytes() == (tmp_path / "ens.ckpt").read_bytes()


def test_ensemble_file_loads_into_a_celllist(tmp_path):
    stack_checkpoints([GOLDEN / f"net{i}.ckpt" for i in range(4)], tmp_path / "ens.safetensors")
    ensemble = nn.CellList([LeNet5() for _ in range(4)])
    assert load_param_into_net(ensemble, load_checkpoint(tmp_path / "ens.safetensors")) == ([], [])
    x = ms.Tensor(np.load(GOLDEN / "minibatch.npy"))
    expected = np.load(GOLDEN / "vmap_in_axes_none.npy")  # MindSpore's ensemble output, one row per model
    for i in range(4):
        np.testing.assert_allclose(ensemble[i](x).asnumpy(), expected[i], atol=1e-5, rtol=0)


def test_extract_member_round_trip(tmp_path):
    stack_checkpoints([GOLDEN / f"net{i}.ckpt" for i in range(4)], tmp_path / "ens.ckpt")
    for k in range(4):
        member = extract_member(tmp_path / "ens.ckpt", k, tmp_path / f"m{k}.ckpt")
        assert list(member) == LENET_NAMES
        assert (tmp_path / f"m{k}.ckpt").read_bytes() == (GOLDEN / f"net{k}.ckpt").read_bytes()
    # dicts in, dicts out; append_dict-style entries ride along
    ens = stack_checkpoints([{"w": np.ones(2, np.float32), "tag": "a"}, {"w": np.zeros(2, np.float32), "tag": "b"}])
    assert list(ens) == ["0.w", "0.tag", "1.w", "1.tag"]
    one = extract_member(ens, 1)
    assert one["tag"] == "b" and one["w"].asnumpy().tolist() == [0.0, 0.0]
    with pytest.raises(ValueError, match=r"no member 2.*\[0, 1\]"):
        extract_member(ens, 2)


def test_stack_rejects_different_architectures():
    a = load_checkpoint(GOLDEN / "net0.ckpt")
    b = dict(a)
    b["fc3.bias"] = ms.Parameter(np.zeros(11, np.float32), name="fc3.bias")
    with pytest.raises(ValueError, match=r"member 1 has 'fc3.bias' as float32\[11\]"):
        stack_checkpoints([a, b])
    c = {k: v for k, v in a.items() if k != "fc2.bias"}
    with pytest.raises(ValueError, match=r"member 1 .*lacks \['fc2.bias'\]"):
        stack_checkpoints([a, c])


def test_single_net_from_ensemble_file_uses_prefix_fallback(tmp_path):
    """MindSpore's fallback: no key matches 'conv1.weight', but '0.conv1.weight' ends with it, so the
    prefix '0.' is tried for every missing name."""
    ens = stack_checkpoints([GOLDEN / f"net{i}.ckpt" for i in range(2)])
    net = LeNet5()
    param_not_load, ckpt_not_load = load_param_into_net(net, ens)
    assert param_not_load == []
    assert ckpt_not_load == [f"1.{n}" for n in LENET_NAMES]
    assert_unchanged(net, snapshot(load_lenet(0)))
    # strict_load turns the fallback off: nothing loads (MindSpore 2.10 reports, as measured)
    assert load_param_into_net(LeNet5(), ens, strict_load=True) == (LENET_NAMES, list(ens))


def test_optimizer_state_round_trips(tmp_path):
    """An optimizer is a Cell: save_checkpoint(opt) writes its parameters and its state, and the file
    loads back into another optimizer over another copy of the net."""
    opt = nn.Adam(load_lenet(0).trainable_params(), learning_rate=0.01)
    opt.moment1[2].set_data(np.full(opt.moment1[2].shape, 0.5, np.float32))
    save_checkpoint(opt, str(tmp_path / "opt.ckpt"))
    saved = protobuf_decode((tmp_path / "opt.ckpt").read_bytes())
    assert {"global_step", "beta1_power", "moment1.fc1.weight", "moment2.fc3.bias"} <= set(saved)
    assert list(saved) == [p.name for p in opt.get_parameters()]

    other = nn.Adam(load_lenet(1).trainable_params(), learning_rate=0.01)
    assert load_param_into_net(other, load_checkpoint(tmp_path / "opt.ckpt")) == ([], [])
    assert_unchanged(other, snapshot(opt))

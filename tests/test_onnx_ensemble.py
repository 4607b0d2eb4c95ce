"""One-file ONNX ensembles: vmap(CellList) exported and run in onnxruntime against MindSpore."""
import collections
import json
import os

import numpy as np
import onnx
import pytest

import graphcell as ms
from graphcell import nn, ops
from graphcell.runtime import Session
from tests.conftest import GOLDEN, golden_array, load_lenet

RNG = np.random.default_rng(11)
CKPTS = [f"net{i}.ckpt" for i in range(4)]


@pytest.fixture(scope="module", autouse=True)
def _dispatch_from_two_members():
    """The golden ensemble has 4 members; export adds the batch-1 form from
    SMALL_FORM_MIN_MEMBERS (8) up, or from 4 where onnx_blocked pairs them (32 for convolutions
    it cannot pair). These tests check that form, so they lower the bar
    (test_few_members_keep_the_per_member_form_alone checks the default)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("graphcell.compiler.export.SMALL_FORM_MIN_MEMBERS", 2)
        mp.setattr("graphcell.compiler.export.SMALL_FORM_MIN_UNPAIRED_MEMBERS", 2)
        mp.setattr("graphcell.compiler.export.SMALL_FORM_MIN_PAIRED_MEMBERS", 2)
        yield


@pytest.fixture(scope="module")
def nets():
    return nn.CellList([load_lenet(i) for i in range(4)])


@pytest.fixture(scope="module")
def shared_file(nets, tmp_path_factory):
    x = ms.Tensor(golden_array("minibatch.npy"))
    path = ms.export(ms.vmap(nets, in_axes=None), x, input_names=["x"],
                     file_name=str(tmp_path_factory.mktemp("ens") / "ensemble"),
                     member_checkpoints=[str(GOLDEN / c) for c in CKPTS])
    return path


def softmax(z):
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_in_axes_none_matches_mindspore_and_serves_any_batch(nets, shared_file):
    model = onnx.load(shared_file)
    onnx.checker.check_model(model, full_check=True)
    sess = Session(shared_file, providers=["cpu"])
    np.testing.assert_allclose(sess(golden_array("minibatch.npy")), golden_array("vmap_in_axes_none.npy"),
                               atol=1e-5, rtol=0)
    for b in (1, 7, 256):   # batches of the golden rows: MindSpore's outputs stay the reference
        rows = np.arange(b) % 3
        out = sess(golden_array("minibatch.npy")[rows])
        assert out.shape == (4, b, 10)
        np.testing.assert_allclose(out, golden_array("vmap_in_axes_none.npy")[:, rows], atol=1e-5, rtol=0)


def test_ensemble_metadata(shared_file):
    meta = Session(shared_file, providers=["cpu"]).metadata
    assert meta["graphcell.members"] == "4"
    assert [p.split("/")[-1] for p in json.loads(meta["graphcell.member_checkpoints"])] == CKPTS
    assert meta["graphcell.version"] == ms.__version__
    # stacked weights: one initializer per parameter, with the members on axis 0
    inits = {i.name: list(i.dims) for i in onnx.load(shared_file).graph.initializer}
    assert inits["conv1.weight"] == [4, 6, 1, 5, 5] and inits["fc3.bias"] == [4, 10]


def test_the_file_holds_both_ensemble_forms_and_each_batch_size_takes_one(nets, shared_file):
    """Batch 1 runs the stacked form (a wide and a grouped Conv, the three dense layers as
    grouped Convs: compiler/onnx_blocked.py); larger batches one wide Conv over the shared
    input, then each member's chain (one Conv per member). Both read the stacked weights,
    stored once (the stacked form's padded weights are expressions of them)."""
    model = onnx.load(shared_file)
    (dispatch,) = [n for n in model.graph.node if n.op_type == "If"]
    branches = {a.name: collections.Counter(n.op_type for n in a.g.node) for a in dispatch.attribute}
    assert branches["then_branch"]["Conv"] == 2 + 3 and branches["else_branch"]["Conv"] == 1 + len(nets)
    params = sum(int(np.prod(p.shape)) for p in nets.get_parameters()) * 4
    assert params < os.path.getsize(shared_file) < 1.05 * params
    sess = Session(shared_file, providers=["cpu"])
    for b in (1, 2):   # each branch against MindSpore's outputs
        rows = np.arange(b) + 1
        np.testing.assert_allclose(sess(golden_array("minibatch.npy")[rows]),
                                   golden_array("vmap_in_axes_none.npy")[:, rows], atol=1e-5, rtol=0)


class _ConvUntilLarge(nn.Cell):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(1, 4, 3, pad_mode="valid")
        self.c2 = nn.Conv2d(4, 4, 3, pad_mode="valid")

    def construct(self, x):
        h = self.c2(self.c1(x))
        while h.max() < 1.0:
            h = h * 1.5 + 0.1
        return h


def test_a_loop_inside_the_batch_dispatch_reads_the_renamed_values(tmp_path):
    """The batch-1 form's values are renamed inside the dispatch If; a Loop body in it read the
    old names (an invalid model from 8 members with a tensor while)."""
    ms.set_seed(0)
    ens = ms.vmap(nn.CellList([_ConvUntilLarge() for _ in range(3)]), in_axes=None)
    x = RNG.standard_normal((2, 1, 10, 10)).astype(np.float32)
    path = ms.export(ens, ms.Tensor(x), file_name=str(tmp_path / "loop"))
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    assert [n.op_type for n in model.graph.node].count("If") == 1
    sess = Session(path, providers=["cpu"])
    for b in (1, 2):
        np.testing.assert_allclose(sess(x[:b]), ms.jit(ens)(ms.Tensor(x[:b])).asnumpy(), rtol=1e-5, atol=1e-5)


def test_a_single_model_export_has_no_dispatch(tmp_path):
    path = ms.export(load_lenet(0), ms.Tensor(golden_array("minibatch.npy")), file_name=str(tmp_path / "one"))
    assert "If" not in {n.op_type for n in onnx.load(path).graph.node}


def test_export_traces_the_small_batch_form_only_where_a_target_chose_a_lowering(nets, monkeypatch):
    """The stacked small-batch form differs from the per-member one only where the vmap pass
    chose a lowering by target: single models and a one-layer dense ensemble over a shared
    input skip its traces."""
    from graphcell.compiler import export as export_module
    from graphcell.context import lowering_target
    targets = []
    trace_dynamic = export_module._trace_dynamic
    monkeypatch.setattr(export_module, "_trace_dynamic",
                        lambda *a: (targets.append(lowering_target()), trace_dynamic(*a))[1])
    x = ms.Tensor(golden_array("minibatch.npy"))
    export_module.to_onnx(load_lenet(0), x)
    dense = nn.CellList([nn.Dense(1024, 10) for _ in range(3)])
    export_module.to_onnx(ms.vmap(dense, in_axes=None), ms.Tensor(golden_array("minibatch.npy").reshape(-1, 1024)))
    assert targets == ["onnx", "onnx"]
    export_module.to_onnx(ms.vmap(nets, in_axes=None), x)
    assert targets == ["onnx", "onnx", "onnx", "onnx-batched"]


def test_in_axes_0_matches_mindspore_and_serves_any_batch(nets, tmp_path):
    xs = ms.Tensor(golden_array("minibatchs.npy"))
    path = ms.export(ms.vmap(nets, in_axes=0), xs, file_name=str(tmp_path / "mapped"), members=4)
    dims = onnx.load(path).graph.input[0].type.tensor_type.shape.dim
    assert dims[0].dim_value == 4 and dims[1].dim_param == "batch"
    sess = Session(path, providers=["cpu"])
    np.testing.assert_allclose(sess(golden_array("minibatchs.npy")), golden_array("vmap_in_axes_0.npy"),
                               atol=1e-5, rtol=0)
    for b in (1, 7, 256):
        rows = np.arange(b) % 3
        np.testing.assert_allclose(sess(golden_array("minibatchs.npy")[:, rows]),
                                   golden_array("vmap_in_axes_0.npy")[:, rows], atol=1e-5, rtol=0)


@pytest.mark.parametrize("reduce", ["mean", "vote", "mean_std"])
def test_ensemble_heads(nets, tmp_path, reduce):
    x = golden_array("minibatch.npy")
    path = ms.export(ms.vmap(nets, in_axes=None), ms.Tensor(x), file_name=str(tmp_path / reduce),
                     reduce=reduce)
    assert Session(path, providers=["cpu"]).metadata["graphcell.reduce"] == reduce
    out = Session(path, providers=["cpu"]).run(x)
    probs = softmax(golden_array("vmap_in_axes_none.npy").astype(np.float64))     # [4, 3, 10]
    if reduce == "mean":
        np.testing.assert_allclose(out[0], probs.mean(0), atol=1e-6)
    elif reduce == "mean_std":
        np.testing.assert_allclose(out[0], probs.mean(0), atol=1e-6)
        np.testing.assert_allclose(out[1], probs.std(0), atol=1e-6)
    else:
        votes = probs.argmax(-1)                                                   # [4, 3]
        counts = np.stack([(votes == c).sum(0) for c in range(10)], -1)            # [3, 10]
        np.testing.assert_array_equal(out[0], counts.argmax(-1))


def test_a_batch_of_one_still_works_when_heads_reduce(nets, tmp_path):
    path = ms.export(ms.vmap(nets, in_axes=None), ms.Tensor(golden_array("minibatch.npy")),
                     file_name=str(tmp_path / "m"), reduce="mean")
    sess = Session(path, providers=["cpu"])
    x = RNG.standard_normal((1, 1, 32, 32)).astype(np.float32)
    want = softmax(ms.vmap(nets, in_axes=None)(ms.Tensor(x)).asnumpy().astype(np.float64)).mean(0)
    np.testing.assert_allclose(sess(x), want, atol=1e-6)


class _WideConvNet(nn.Cell):
    """Convolutions of ~2.4 M multiply-adds per image: compute, not per-node overhead."""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(3, 16, 3, pad_mode="same")
        self.b = nn.Conv2d(16, 16, 3, pad_mode="same")
        self.fc = nn.Dense(16, 10)

    def construct(self, x):
        return self.fc(ops.mean(ops.relu(self.b(ops.relu(self.a(x)))), (2, 3)))


def test_an_ensemble_of_big_convolutions_keeps_one_form(tmp_path):
    """The stacked small-batch form only pays where onnxruntime's per-node overhead dominates
    (LeNet5's small convolutions); with big ones the per-member form wins at batch 1 too, and
    the file holds it alone."""
    from graphcell.compiler.export import SMALL_FORM_MAX_CONV_MACS, mean_conv_macs, to_onnx
    ms.set_seed(5)
    ensemble = ms.vmap(nn.CellList([_WideConvNet() for _ in range(2)]), in_axes=None)
    x = np.random.default_rng(0).standard_normal((3, 3, 32, 32)).astype(np.float32)
    exported = to_onnx(ensemble, ms.Tensor(x))
    assert mean_conv_macs(exported.traced.graph) > SMALL_FORM_MAX_CONV_MACS
    assert "If" not in {n.op_type for n in exported.model.graph.node}
    sess = Session(exported.model, providers=["cpu"])
    for rows in (slice(0, 1), slice(0, 3)):
        np.testing.assert_allclose(sess(x[rows]), ensemble(ms.Tensor(x[rows])).asnumpy(), atol=1e-5)
    lenet = to_onnx(ms.vmap(nn.CellList([load_lenet(i) for i in range(2)]), in_axes=None),
                    ms.Tensor(golden_array("minibatch.npy")))
    assert mean_conv_macs(lenet.traced.graph) < SMALL_FORM_MAX_CONV_MACS
    assert "If" in {n.op_type for n in lenet.model.graph.node}


def test_a_dense_ensemble_runs_each_members_gemms_from_batch_2_and_batched_matmuls_at_1():
    """Hidden layers (per-member input and weights) are N Gemms with bias (and ReLU, fused by
    onnxruntime) for batch >= 2, a batched MatMul in the batch-1 form; the first layer reads
    the shared input once either way."""
    ms.set_seed(2)
    mlps = nn.CellList([nn.SequentialCell([nn.Dense(8, 16), nn.ReLU(), nn.Dense(16, 4)]) for _ in range(3)])
    ensemble = ms.vmap(mlps, in_axes=None)
    x = np.random.default_rng(0).standard_normal((5, 8)).astype(np.float32)
    model = to_onnx_model(ensemble, x)
    (dispatch,) = [n for n in model.graph.node if n.op_type == "If"]
    ops_of = {a.name: collections.Counter(n.op_type for n in a.g.node) for a in dispatch.attribute}
    assert ops_of["else_branch"]["Gemm"] == 3 and ops_of["else_branch"]["MatMul"] == 1   # 3 members
    assert ops_of["then_branch"]["Gemm"] == 0 and ops_of["then_branch"]["MatMul"] == 2
    sess = Session(model, providers=["cpu"])
    for rows in (slice(0, 1), slice(0, 5)):
        np.testing.assert_allclose(sess(x[rows]), ensemble(ms.Tensor(x[rows])).asnumpy(), atol=1e-5)


def to_onnx_model(fn, x):
    from graphcell.compiler.export import to_onnx
    return to_onnx(fn, ms.Tensor(x)).model


def test_few_members_keep_the_per_member_form_alone(monkeypatch):
    """The stacked form is added from 4 members where onnx_blocked pairs the members' grouped
    Conv (a shared input, an even count), from 32 where it cannot (an odd count, or members
    with their own inputs): below, the file holds the per-member form alone."""
    from graphcell.compiler import export as export_module
    for name in ("SMALL_FORM_MIN_MEMBERS", "SMALL_FORM_MIN_PAIRED_MEMBERS", "SMALL_FORM_MIN_UNPAIRED_MEMBERS"):
        monkeypatch.setattr(export_module, name, getattr(export_module, name).__class__(
            {"SMALL_FORM_MIN_MEMBERS": 8, "SMALL_FORM_MIN_PAIRED_MEMBERS": 4,
             "SMALL_FORM_MIN_UNPAIRED_MEMBERS": 32}[name]))   # the defaults, whatever the fixture set
    x = golden_array("minibatch.npy")

    def has_if(n, in_axes):
        xs = x if in_axes is None else np.stack([x] * n)
        exported = export_module.to_onnx(ms.vmap(nn.CellList([load_lenet(i % 4) for i in range(n)]),
                                                 in_axes=in_axes), ms.Tensor(xs))
        return exported, "If" in {node.op_type for node in exported.model.graph.node}

    three, three_if = has_if(3, None)
    assert not three_if
    np.testing.assert_allclose(Session(three.model, providers=["cpu"])(x),
                               golden_array("vmap_in_axes_none.npy")[:3], atol=1e-5, rtol=0)
    assert has_if(4, None)[1] and not has_if(2, None)[1]
    assert not has_if(8, 0)[1]


class TwoConvs(nn.Cell):
    def __init__(self, width):
        super().__init__()
        self.conv1 = nn.Conv2d(3, width, 3, pad_mode="valid", has_bias=True)
        self.conv2 = nn.Conv2d(width, 4, 3, pad_mode="valid")
        self.fc = nn.Dense(4 * 2 * 2, 3)

    def construct(self, x):
        return self.fc(ops.flatten(ops.relu(self.conv2(ops.relu(self.conv1(x))))))


@pytest.mark.parametrize("width, convs", [(6, 1 + 3), (16, 3 + 3)])
def test_a_narrow_convolution_over_the_shared_input_is_one_wide_conv(width, convs, monkeypatch):
    """For onnxruntime, a first convolution with fewer output channels per member than its
    blocked kernels fill (ONNX_WIDE_MAX_CHANNELS) runs once for every member, its bias fused;
    a wider one stays per member, as does every convolution of per-member inputs."""
    from graphcell.compiler import export as export_module
    from graphcell.compiler.export import to_onnx
    for name in ("SMALL_FORM_MIN_MEMBERS", "SMALL_FORM_MIN_PAIRED_MEMBERS", "SMALL_FORM_MIN_UNPAIRED_MEMBERS"):
        monkeypatch.setattr(export_module, name, 64)   # the per-member form alone
    ensemble = ms.vmap(nn.CellList([TwoConvs(width) for _ in range(3)]), in_axes=None)
    x = RNG.standard_normal((5, 3, 6, 6)).astype(np.float32)
    model = to_onnx(ensemble, ms.Tensor(x)).model
    ops_used = collections.Counter(n.op_type for n in model.graph.node)
    assert ops_used["Conv"] == convs and "Add" not in ops_used
    assert all(len(n.input) == 3 for n in model.graph.node if n.op_type == "Conv" and "conv1" in n.name)
    np.testing.assert_allclose(Session(model, providers=["cpu"])(x), ensemble(ms.Tensor(x)).asnumpy(),
                               rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("opset", [17, 18])
def test_a_wide_convolution_over_many_members_runs_in_groups_of_members(opset, monkeypatch):
    """The wide first convolution, its bias, its activation and the members' Split run as one
    chain per group of WIDE_GROUP_CHANNELS output channels (here 12: groups of 2, 2 and 1 of 5
    members, so an unequal Split of the weights and a group without a Split of its own)."""
    from graphcell.compiler import export as export_module
    from graphcell.compiler import onnx_peepholes
    for name in ("SMALL_FORM_MIN_MEMBERS", "SMALL_FORM_MIN_PAIRED_MEMBERS", "SMALL_FORM_MIN_UNPAIRED_MEMBERS"):
        monkeypatch.setattr(export_module, name, 64)   # the per-member form alone
    monkeypatch.setattr(onnx_peepholes, "WIDE_GROUP_CHANNELS", 12)
    ensemble = ms.vmap(nn.CellList([TwoConvs(6) for _ in range(5)]), in_axes=None)
    x = RNG.standard_normal((5, 3, 6, 6)).astype(np.float32)
    model = export_module.to_onnx(ensemble, ms.Tensor(x), opset=opset).model
    onnx.checker.check_model(model, full_check=True)
    conv1 = [n for n in model.graph.node if n.op_type == "Conv" and "conv1" in n.name]
    assert len(conv1) == 3 and all(len(n.input) == 3 for n in conv1)
    assert sum(n.op_type == "Conv" for n in model.graph.node) == 3 + 5
    np.testing.assert_allclose(Session(model, providers=["cpu"])(x), ensemble(ms.Tensor(x)).asnumpy(),
                               rtol=1e-5, atol=1e-5)


class PooledConvs(nn.Cell):
    """A first convolution whose activation is pooled before the next one reads it."""

    def __init__(self, width, pool=True):
        super().__init__()
        self.conv1 = nn.Conv2d(1, width, 3, pad_mode="valid", has_bias=True)
        self.pool = nn.MaxPool2d(2, 2) if pool else nn.Identity()
        self.conv2 = nn.Conv2d(width, 4, 3, pad_mode="valid")

    def construct(self, x):
        return ops.relu(self.conv2(self.pool(ops.relu(self.conv1(x)))))


@pytest.mark.parametrize("members, width, pool, group_channels, padded_convs", [
    (4, 6, True, 48, [32]),           # one group, 24 channels -> 2 whole blocks
    (5, 6, True, 12, [16, 16, 16]),   # groups of 2, 2 and 1: 12, 12, 6 channels -> 16 each
    (4, 8, True, 48, []),             # 32 channels: whole blocks already
    (4, 6, False, 48, []),            # no pool: the reorder reads the same map either way
])
def test_a_pooled_wide_convolution_is_padded_to_whole_blocks(members, width, pool, group_channels,
                                                              padded_convs, monkeypatch):
    """onnxruntime pools in its blocked layout only over whole 16-channel blocks: a group of the
    wide convolution that pools gets zero-weight channels (and zero bias) up to whole blocks,
    which the members' Split drops unread, and the results are the members' own."""
    from graphcell.compiler import export as export_module
    from graphcell.compiler import onnx_peepholes
    for name in ("SMALL_FORM_MIN_MEMBERS", "SMALL_FORM_MIN_PAIRED_MEMBERS", "SMALL_FORM_MIN_UNPAIRED_MEMBERS"):
        monkeypatch.setattr(export_module, name, 64)   # the per-member form alone
    monkeypatch.setattr(onnx_peepholes, "WIDE_GROUP_CHANNELS", group_channels)
    nets = [PooledConvs(width, pool) for _ in range(members)]
    ensemble = ms.vmap(nn.CellList(nets), in_axes=None)
    x = RNG.standard_normal((3, 1, 12, 12)).astype(np.float32)
    model = export_module.to_onnx(ensemble, ms.Tensor(x)).model
    onnx.checker.check_model(model, full_check=True)
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    channels = {v.name: v.type.tensor_type.shape.dim[1].dim_value for v in inferred.graph.value_info
                if len(v.type.tensor_type.shape.dim) > 1}
    conv1 = [n for n in model.graph.node if n.op_type == "Conv" and "conv1" in n.name]
    widths = [channels[n.output[0]] for n in conv1]
    if padded_convs:
        assert widths == padded_convs and all(len(n.input) == 3 for n in conv1)   # the bias padded too
        reads = collections.Counter(name for n in model.graph.node for name in n.input)
        splits = [n for n in model.graph.node if n.op_type == "Split" and n.input[0] in
                  {r.output[0] for r in model.graph.node if r.op_type == "MaxPool"}]
        assert len(splits) == len(conv1) and all(reads[s.output[-1]] == 0 for s in splits)
    else:
        assert sum(widths) == members * width
    each = np.stack([net(ms.Tensor(x)).asnumpy() for net in nets])
    np.testing.assert_allclose(Session(model, providers=["cpu"])(x), each, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("opset", [17, 18])
@pytest.mark.parametrize("in_axes", [None, 0])
def test_members_take_their_weights_and_inputs_by_one_split_per_stacked_value(nets, in_axes, opset, monkeypatch):
    """The per-member form reads each member's weights (and its part of a stacked input or of
    the shared first convolution) through one Split per stacked value, not a Slice and a
    Reshape per member: onnxruntime folds or runs every node it is given. Opset 17 splits by
    the number of outputs, 18 by num_outputs."""
    from graphcell.compiler import export as export_module
    for name in ("SMALL_FORM_MIN_MEMBERS", "SMALL_FORM_MIN_PAIRED_MEMBERS", "SMALL_FORM_MIN_UNPAIRED_MEMBERS"):
        monkeypatch.setattr(export_module, name, 64)   # the per-member form alone
    x = golden_array("minibatch.npy")
    x = x if in_axes is None else np.stack([x[(np.arange(3) + k) % 3] for k in range(4)])
    ensemble = ms.vmap(nets, in_axes=in_axes)
    model = export_module.to_onnx(ensemble, ms.Tensor(x), opset=opset).model
    onnx.checker.check_model(model, full_check=True)
    ops_used = collections.Counter(n.op_type for n in model.graph.node)
    stacked = 7 + (2 if in_axes == 0 else 1)   # conv2, fc1-3 weights and biases; conv1 and/or x
    assert "Slice" not in ops_used and ops_used["Split"] == stacked
    # Four members a Split; the shared first convolution's also drops its padding to whole
    # blocks (conv1's 24 channels, pooled, are padded to 32: test_a_pooled_wide_convolution...).
    reads = collections.Counter(name for n in model.graph.node for name in n.input)
    for split in (n for n in model.graph.node if n.op_type == "Split"):
        padded = "conv1" in split.name and in_axes is None
        assert len(split.output) == 4 + padded
        assert not padded or reads[split.output[-1]] == 0
    np.testing.assert_allclose(Session(model, providers=["cpu"])(x), ensemble(ms.Tensor(x)).asnumpy(),
                               rtol=1e-5, atol=1e-5)


class _CoincidingShapes(nn.Cell):
    """At batch 4 the pooled activation [4, 1, 3, 3] has conv2's weight shape [4, 1, 3, 3]
    (found by tests/test_ensemble_properties.py)."""

    def __init__(self):
        super().__init__()
        self.conv1, self.pool = nn.Conv2d(1, 1, 1), nn.MaxPool2d(kernel_size=1, stride=2)
        self.conv2, self.flatten, self.fc = nn.Conv2d(1, 4, 3), nn.Flatten(), nn.Dense(36, 3)

    def construct(self, x):
        return self.fc(self.flatten(self.conv2(self.pool(self.conv1(x)))))


@pytest.mark.parametrize("in_axes", [None, 0])
def test_an_example_batch_equal_to_a_parameters_dimension_still_exports_a_dynamic_batch(tmp_path, in_axes):
    """For onnxruntime the vmap pass stacks the members' gradients of parameters. It knew them
    by their shape, which the activation had at the example's batch size and not at the other
    size the export traces: the two graphs differed and the export fell back to static shapes
    with a warning. The grad pass's note marks them now."""
    import warnings
    nets = []
    for k in range(2):
        ms.set_seed(k)
        nets.append(_CoincidingShapes())
    shape = (4, 1, 6, 6) if in_axes is None else (2, 4, 1, 6, 6)
    path = str(tmp_path / "ensemble.onnx")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ms.export(ms.vmap(nn.CellList(nets), in_axes=in_axes), ms.Tensor(np.zeros(shape, np.float32)), file_name=path)
    session = Session(path, providers=["cpu"])
    for batch in (1, 4, 7):
        x = np.random.default_rng(batch).standard_normal(shape[:-4] + (batch, 1, 6, 6)).astype(np.float32)
        want = np.stack([net(ms.Tensor(x if in_axes is None else x[k])).asnumpy() for k, net in enumerate(nets)])
        np.testing.assert_allclose(session(x), want, rtol=1e-5, atol=1e-6)

"""load_torch_state_dict: PyTorch models, written in torch here, against the matching graphcell Cells.

The reference is torch itself: after loading, graphcell's eval-mode output must equal torch's.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import safetensors.torch  # noqa: E402
from torch import nn as tnn  # noqa: E402

import graphcell as ms  # noqa: E402
from graphcell import nn  # noqa: E402
from graphcell.train import CheckpointError, ParameterLoadError, load_torch_state_dict  # noqa: E402
from tests.conftest import GOLDEN  # noqa: E402
from tests.models.lenet import LeNet5  # noqa: E402

ATOL = 1e-5


class TorchLeNet5(tnn.Module):
    """tests/models/lenet.py in PyTorch: same attribute names, same layer shapes."""

    def __init__(self, num_class=10, num_channel=1):
        super().__init__()
        self.conv1 = tnn.Conv2d(num_channel, 6, 5, bias=False)
        self.conv2 = tnn.Conv2d(6, 16, 5, bias=False)
        self.fc1 = tnn.Linear(16 * 5 * 5, 120)
        self.fc2 = tnn.Linear(120, 84)
        self.fc3 = tnn.Linear(84, num_class)
        self.relu = tnn.ReLU()
        self.max_pool2d = tnn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = tnn.Flatten()

    def forward(self, x):
        x = self.max_pool2d(self.relu(self.conv1(x)))
        x = self.max_pool2d(self.relu(self.conv2(x)))
        x = self.flatten(x)
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return self.fc3(x)


class TorchBNNet(tnn.Module):
    """A small CNN with BatchNorm in a Sequential (index names) and a biased conv."""

    def __init__(self):
        super().__init__()
        self.features = tnn.Sequential(
            tnn.Conv2d(3, 8, 3, padding=1, bias=True), tnn.BatchNorm2d(8), tnn.ReLU(), tnn.MaxPool2d(2, 2),
            tnn.Conv2d(8, 4, 3, padding=1, bias=False), tnn.BatchNorm2d(4), tnn.ReLU())
        self.head = tnn.Linear(4 * 4 * 4, 5)

    def forward(self, x):
        return self.head(torch.flatten(self.features(x), 1))


class BNNet(nn.Cell):
    """TorchBNNet in graphcell."""

    def __init__(self):
        super().__init__()
        self.features = nn.SequentialCell(
            nn.Conv2d(3, 8, 3, pad_mode="pad", padding=1, has_bias=True), nn.BatchNorm2d(8), nn.ReLU(),
            nn.MaxPool2d(2, 2),
            nn.Conv2d(8, 4, 3, pad_mode="pad", padding=1), nn.BatchNorm2d(4), nn.ReLU())
        self.flatten = nn.Flatten()
        self.head = nn.Dense(4 * 4 * 4, 5)

    def construct(self, x):
        return self.head(self.flatten(self.features(x)))


class TorchTextNet(tnn.Module):
    def __init__(self):
        super().__init__()
        self.embed = tnn.Embedding(20, 6)
        self.norm = tnn.LayerNorm(6)
        self.out = tnn.Linear(6, 3)

    def forward(self, ids):
        return self.out(self.norm(self.embed(ids)))


class TextNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(20, 6)
        self.norm = nn.LayerNorm((6,), epsilon=1e-5)  # torch's default eps (MindSpore's is 1e-7)
        self.out = nn.Dense(6, 3)

    def construct(self, ids):
        return self.out(self.norm(self.embed(ids)))


def trained_bn_torch_net() -> TorchBNNet:
    """Non-trivial BN statistics and affine parameters, then eval mode."""
    torch.manual_seed(0)
    model = TorchBNNet()
    model.train()
    with torch.no_grad():
        for _ in range(3):
            model(torch.randn(16, 3, 8, 8) * 2 + 0.5)
        for m in model.modules():
            if isinstance(m, tnn.BatchNorm2d):
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.5, 0.5)
    return model.eval()


def torch_out(model, x: np.ndarray) -> np.ndarray:
    with torch.no_grad():
        return model(torch.from_numpy(x)).numpy()


def snapshot(net):
    return {p.name: np.array(p.asnumpy(), copy=True) for p in net.get_parameters()}


def assert_unchanged(net, before):
    for name, value in snapshot(net).items():
        assert value.tobytes() == before[name].tobytes(), f"{name} changed"


# ---------------------------------------------------------------------------------------------------------


def test_lenet5_matches_torch():
    torch.manual_seed(1)
    tmodel = TorchLeNet5().eval()
    net = LeNet5()
    assert load_torch_state_dict(net, tmodel.state_dict()) == ([], [])
    x = np.load(GOLDEN / "minibatch.npy")
    np.testing.assert_allclose(net(ms.Tensor(x)).asnumpy(), torch_out(tmodel, x), atol=ATOL, rtol=0)


def test_bn_cnn_matches_torch_in_eval_mode():
    tmodel = trained_bn_torch_net()
    net = BNNet()
    not_loaded, unmapped = load_torch_state_dict(net, tmodel.state_dict())
    assert not_loaded == [] and unmapped == []  # num_batches_tracked is skipped silently
    bn = net.features[1]
    np.testing.assert_array_equal(bn.moving_mean.asnumpy(), tmodel.features[1].running_mean.numpy())
    np.testing.assert_array_equal(bn.moving_variance.asnumpy(), tmodel.features[1].running_var.numpy())
    np.testing.assert_array_equal(bn.gamma.asnumpy(), tmodel.features[1].weight.detach().numpy())
    x = np.random.default_rng(0).standard_normal((4, 3, 8, 8)).astype(np.float32)
    np.testing.assert_allclose(net(ms.Tensor(x)).asnumpy(), torch_out(tmodel, x), atol=ATOL, rtol=0)


def test_embedding_and_layernorm_match_torch():
    torch.manual_seed(2)
    tmodel = TorchTextNet().eval()
    with torch.no_grad():
        tmodel.norm.weight.uniform_(0.5, 1.5)
        tmodel.norm.bias.uniform_(-0.5, 0.5)
    net = TextNet()
    assert load_torch_state_dict(net, tmodel.state_dict()) == ([], [])
    ids = np.array([[1, 5, 19], [0, 7, 7]], np.int64)
    np.testing.assert_allclose(net(ms.Tensor(ids.astype(np.int32))).asnumpy(), torch_out(tmodel, ids),
                               atol=ATOL, rtol=0)


def test_from_pt_and_safetensors_files(tmp_path):
    tmodel = trained_bn_torch_net()
    x = np.random.default_rng(1).standard_normal((2, 3, 8, 8)).astype(np.float32)
    expected = torch_out(tmodel, x)
    torch.save(tmodel.state_dict(), tmp_path / "model.pt")
    torch.save({"state_dict": tmodel.state_dict()}, tmp_path / "wrapped.pth")
    safetensors.torch.save_file(tmodel.state_dict(), str(tmp_path / "model.safetensors"))
    for name in ["model.pt", "wrapped.pth", "model.safetensors"]:
        net = BNNet()
        assert load_torch_state_dict(net, str(tmp_path / name)) == ([], []), name
        np.testing.assert_allclose(net(ms.Tensor(x)).asnumpy(), expected, atol=ATOL, rtol=0, err_msg=name)


class NotATensor:
    """Something a malicious or careless .pt could carry; weights_only loading must refuse it."""

    def __reduce__(self):
        return (print, ("unpickled!",))


def test_pickled_objects_are_refused(tmp_path, capsys):
    path = tmp_path / "evil.pt"
    torch.save({"fc1.weight": torch.zeros(2), "payload": NotATensor()}, path)
    capsys.readouterr()
    net = LeNet5()
    before = snapshot(net)
    with pytest.raises(CheckpointError, match="evil.pt"):
        load_torch_state_dict(net, str(path))
    assert "unpickled!" not in capsys.readouterr().out
    assert_unchanged(net, before)


def test_unmapped_and_not_loaded_are_listed():
    tmodel = TorchLeNet5()
    state = tmodel.state_dict()
    del state["fc3.bias"]
    state["extra.weight"] = torch.zeros(3)
    net = LeNet5()
    before = snapshot(net)
    not_loaded, unmapped = load_torch_state_dict(net, state)
    assert not_loaded == ["fc3.bias"] and unmapped == ["extra.weight"]
    np.testing.assert_array_equal(net.fc1.weight.asnumpy(), state["fc1.weight"].numpy())
    assert net.fc3.bias.asnumpy().tobytes() == before["fc3.bias"].tobytes()

    net = LeNet5()
    before = snapshot(net)
    with pytest.raises(KeyError, match=r"fc3\.bias.*extra\.weight"):
        load_torch_state_dict(net, state, strict=True)
    assert_unchanged(net, before)


def test_structure_not_names_decides_the_mapping():
    """Parameters renamed by a CellList (0.conv1.weight) still map from the member's torch keys, and the
    CellList itself maps from a torch ModuleList's keys."""
    torch.manual_seed(3)
    tmodels = tnn.ModuleList([TorchLeNet5(), TorchLeNet5()])
    nets = nn.CellList([LeNet5(), LeNet5()])
    assert nets[1].conv1.weight.name == "1.conv1.weight"
    assert load_torch_state_dict(nets[1], tmodels[1].state_dict()) == ([], [])
    np.testing.assert_array_equal(nets[1].conv1.weight.asnumpy(), tmodels[1].conv1.weight.detach().numpy())
    assert load_torch_state_dict(nets, tmodels.state_dict()) == ([], [])
    x = np.load(GOLDEN / "minibatch.npy")
    for net, tmodel in zip(nets, tmodels):
        np.testing.assert_allclose(net(ms.Tensor(x)).asnumpy(), torch_out(tmodel.eval(), x), atol=ATOL, rtol=0)


def test_shape_mismatch_changes_nothing():
    state = TorchLeNet5(num_class=7).state_dict()
    net = LeNet5()
    before = snapshot(net)
    with pytest.raises(ParameterLoadError) as err:
        load_torch_state_dict(net, state)
    assert "fc3.weight" in str(err.value) and "(10, 84)" in str(err.value) and "(7, 84)" in str(err.value)
    assert "fc3.bias" in str(err.value)
    assert_unchanged(net, before)


def test_float64_and_bfloat16_values_are_cast():
    torch.manual_seed(4)
    tmodel = TorchLeNet5()
    state = {k: v.double() for k, v in tmodel.state_dict().items()}
    state["fc3.bias"] = state["fc3.bias"].to(torch.bfloat16)
    net = LeNet5()
    assert load_torch_state_dict(net, state) == ([], [])
    assert net.fc1.weight.dtype == ms.float32
    np.testing.assert_array_equal(net.fc1.weight.asnumpy(), tmodel.fc1.weight.detach().numpy())
    np.testing.assert_array_equal(net.fc3.bias.asnumpy(), state["fc3.bias"].float().numpy())


def test_wrapped_and_data_parallel_state_dicts_load():
    """Training scripts save {"model": sd, "epoch": 3} and DataParallel's "module."-prefixed keys."""
    torch.manual_seed(5)
    tmodel = TorchLeNet5()
    state = tmodel.state_dict()
    for wrapped in ({"model": state, "epoch": 3}, {"model_state_dict": state, "optimizer": {}},
                    {f"module.{k}": v for k, v in state.items()},
                    {"state_dict": {f"module.{k}": v for k, v in state.items()}}):
        net = LeNet5()
        assert load_torch_state_dict(net, wrapped, strict=True) == ([], [])
        np.testing.assert_array_equal(net.fc2.weight.asnumpy(), state["fc2.weight"].numpy())


def test_a_value_that_is_not_a_tensor_is_named():
    state = TorchLeNet5().state_dict()
    state["fc1.bias"] = [0.0] * 120
    net = LeNet5()
    before = snapshot(net)
    with pytest.raises(TypeError, match=r"'fc1\.bias' holds a list, not a tensor"):
        load_torch_state_dict(net, state)
    assert_unchanged(net, before)
    state = TorchLeNet5().state_dict()
    state["fc2.weight"] = torch.empty(84, 120, device="meta")
    with pytest.raises(TypeError, match=r"'fc2\.weight' is a meta tensor"):
        load_torch_state_dict(net, state)
    assert_unchanged(net, before)


def test_trailing_unit_dims_are_a_mismatch_from_torch():
    """The checkpoint rule that drops trailing size-1 dims would hide a torch model that differs."""
    state = TorchLeNet5().state_dict()
    state["fc3.bias"] = state["fc3.bias"].reshape(10, 1)
    net = LeNet5()
    before = snapshot(net)
    with pytest.raises(ParameterLoadError, match=r"fc3\.bias.*\(10,\).*\(10, 1\)"):
        load_torch_state_dict(net, state)
    assert_unchanged(net, before)

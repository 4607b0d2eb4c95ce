"""Real-MindSpore parity: LeNet5 with net0.ckpt reproduces net0_out.npy."""
import numpy as np
import pytest

import graphcell as ms
from tests.conftest import golden_array, load_lenet


@pytest.mark.parametrize("mode", ["eager", "jit", "graph_mode"])
def test_lenet_matches_mindspore(mode):
    net = load_lenet(0)
    x = ms.Tensor(golden_array("minibatch.npy"))
    if mode == "jit":
        out = ms.jit(net)(x)
    elif mode == "graph_mode":
        ms.set_context(mode=ms.GRAPH_MODE)
        out = net(x)
    else:
        out = net(x)
    np.testing.assert_allclose(out.asnumpy(), golden_array("net0_out.npy"), atol=1e-5, rtol=0)


def test_parameter_names_follow_mindspore():
    net = load_lenet(0)
    assert [p.name for p in net.get_parameters()] == [
        "conv1.weight", "conv2.weight", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias",
        "fc3.weight", "fc3.bias"]


def test_same_seed_builds_mindspores_initial_weights():
    """Four LeNet5 built after set_seed(20261129) are net0..net3.ckpt bit for bit (that is
    how MindSpore 2.10 wrote those files)."""
    from graphcell.train.ckpt_format import read_ckpt_file
    from tests.conftest import GOLDEN
    from tests.models.lenet import LeNet5
    ms.set_seed(20261129)
    nets = [LeNet5() for _ in range(4)]
    for i, net in enumerate(nets):
        golden = read_ckpt_file(GOLDEN / f"net{i}.ckpt")
        for p in net.get_parameters():
            assert np.array_equal(p.asnumpy().view(np.uint32), golden[p.name].view(np.uint32)), (i, p.name)

"""graphcell.load and nn.GraphCell: an exported ONNX file loaded back and run through
onnxruntime, compared with the network that was exported. Error messages follow MindSpore
2.10's load/GraphCell where it has one (measured on 2.10, quoted in the comments)."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, nn
from graphcell.frontend.tracer import GraphModeError


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.d = nn.Dense(3, 4)
        self.e = nn.Dense(4, 2)

    def construct(self, x):
        return self.e(ms.ops.relu(self.d(x)))


class TwoOutputs(Net):
    def construct(self, x):
        return self.e(self.d(x)), x * 2


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    ms.set_seed(0)
    net = Net()
    path = ms.export(net, Tensor(np.ones((2, 3), np.float32)), file_name=str(tmp_path_factory.mktemp("gc") / "net"))
    return net, path


def _x(n=5):
    return Tensor(np.random.default_rng(1).normal(size=(n, 3)).astype(np.float32))


def test_load_describes_the_model_and_graph_cell_runs_it(exported):
    net, path = exported
    graph = ms.load(path)
    assert graph.inputs == [("x", ("batch", 3), ms.float32)]
    assert graph.outputs == [("output", ("batch", 2), ms.float32)]
    assert graph.parameter_names == ["d.weight", "d.bias", "e.weight", "e.bias"]
    assert graph.metadata["graphcell.version"] == ms.__version__ and graph.members is None
    cell = nn.GraphCell(graph)
    y = cell(_x())   # a batch other than the example's: the batch axis is dynamic
    assert isinstance(y, Tensor) and y.shape == (5, 2) and y.dtype == ms.float32
    np.testing.assert_allclose(y.asnumpy(), net(_x()).asnumpy(), rtol=1e-5, atol=1e-6)


def test_several_outputs_come_back_as_a_tuple(tmp_path):
    net = TwoOutputs()   # 2.10 returns a tuple of Tensors (measured)
    path = ms.export(net, _x(2), file_name=str(tmp_path / "two"))
    out = nn.GraphCell(ms.load(path))(_x())
    assert isinstance(out, tuple) and len(out) == 2
    for got, want in zip(out, net(_x())):
        np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-6)


def test_params_init_replaces_weights_as_the_net_with_them(exported):
    net, path = exported
    graph = ms.load(path)
    w = Tensor(np.arange(12, dtype=np.float32).reshape(4, 3) / 10 - 0.5)
    cell = nn.GraphCell(graph, params_init={"d.weight": w})
    before = net(_x()).asnumpy()
    changed = Net()
    ms.load_param_into_net(changed, {n: p for n, p in net.parameters_and_names()})
    changed.d.weight.set_data(w)
    want = changed(_x()).asnumpy()
    assert np.abs(want - before).max() > 1e-2   # the new weight matters
    np.testing.assert_allclose(cell(_x()).asnumpy(), want, rtol=1e-5, atol=1e-6)
    # the graph (and a GraphCell made without params_init) keeps the file's weights
    np.testing.assert_allclose(nn.GraphCell(graph)(_x()).asnumpy(), before, rtol=1e-5, atol=1e-6)


def test_ensemble_round_trip_and_stacked_params_init(tmp_path):
    ms.set_seed(2)
    nets = nn.CellList([Net() for _ in range(3)])
    ensemble = ms.vmap(nets, in_axes=None)
    path = ms.export(ensemble, _x(2), file_name=str(tmp_path / "ens"))
    graph = ms.load(path)
    assert graph.members == 3
    np.testing.assert_allclose(nn.GraphCell(graph)(_x()).asnumpy(), ensemble(_x()).asnumpy(), rtol=1e-5, atol=1e-6)
    bias = Tensor(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32))   # the stacked Parameter's shape
    out = nn.GraphCell(graph, params_init={"e.bias": bias})(_x()).asnumpy()
    want = np.stack([n(_x()).asnumpy() - n.e.bias.asnumpy() for n in nets]) + bias.asnumpy()[:, None, :]
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


def test_params_init_errors_name_the_parameter(exported):
    graph = ms.load(exported[1])
    # 2.10: "Only support update parameter by Tensor or Parameter with same shape and dtype as it.
    # The parameter 'd.weight' has shape ... and dtype Float32, but got the update value with shape ..."
    with pytest.raises(ValueError, match=r"parameter 'd.weight' has shape \[4, 3\] and dtype Float32, but got the "
                                         r"update value with shape \[4, 2\]"):
        nn.GraphCell(graph, params_init={"d.weight": Tensor(np.ones((4, 2), np.float32))})
    with pytest.raises(ValueError, match="dtype Float64"):
        nn.GraphCell(graph, params_init={"d.weight": Tensor(np.ones((4, 3)))})
    with pytest.raises(TypeError, match="the value must be Tensor or Parameter"):
        nn.GraphCell(graph, params_init={"d.weight": np.ones((4, 3), np.float32)})
    with pytest.raises(TypeError, match="'params_init' must be a dict"):
        nn.GraphCell(graph, params_init=[1])
    with pytest.warns(UserWarning, match="'nope'"):   # 2.10 ignores an unknown name silently
        nn.GraphCell(graph, params_init={"nope": Tensor(np.ones(2, np.float32))})
    with pytest.raises(TypeError, match="must be a graph loaded by graphcell.load"):
        nn.GraphCell(3)


def test_load_errors(tmp_path, exported):
    # 2.10: "For 'load', the argument 'file_name' must be string, but got <class 'int'>."
    with pytest.raises(ValueError, match="'file_name' must be string"):
        ms.load(3)
    with pytest.raises(ValueError, match="does not exist"):
        ms.load(str(tmp_path / "missing.onnx"))
    with pytest.raises(ValueError, match="should end with '.onnx'"):
        ms.load(str(tmp_path / "model.pb"))
    with pytest.raises(NotImplementedError, match="cannot read MindIR"):
        ms.load("net.mindir")
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    with pytest.raises(RuntimeError, match="Load ONNX failed"):
        ms.load(str(bad))
    with pytest.raises(ValueError, match="'dec_key' must be isinstance of <class 'bytes'>"):   # 2.10's message
        ms.load(exported[1], dec_key="abc")
    with pytest.raises(RuntimeError, match="not encrypted"):
        ms.load(exported[1], dec_key=b"0123456789012345")


def test_graph_cell_refuses_to_be_traced_and_runs_in_graph_mode(exported):
    cell = nn.GraphCell(ms.load(exported[1]))
    with pytest.raises(GraphModeError, match="cannot trace through it"):
        ms.jit(lambda x: cell(x))(_x())
    with pytest.raises(GraphModeError, match="cannot trace through it"):
        ms.grad(lambda x: cell(x).sum())(_x())
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        np.testing.assert_allclose(cell(_x()).asnumpy(), exported[0](_x()).asnumpy(), rtol=1e-5, atol=1e-6)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)

"""mindspore.onnx.export's arguments (graphcell.onnx.export), and export's inference mode,
checked in onnxruntime against the network run eagerly."""
import numpy as np
import onnx
import onnxruntime as ort
import pytest

import graphcell as ms
from graphcell import nn

RNG = np.random.default_rng(5)


class DropBN(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc, self.drop, self.bn = nn.Dense(4, 3), nn.Dropout(p=0.5), nn.BatchNorm1d(3)

    def construct(self, x):
        return self.bn(self.drop(self.fc(x)))


def run(path, **feeds):
    return ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, feeds)[0]


@pytest.mark.parametrize("exporter", ["export", "onnx.export"])
def test_a_network_in_training_mode_exports_its_inference_graph_and_keeps_its_modes(tmp_path, exporter):
    """As mindspore.export: Dropout off and BatchNorm on its moving statistics in the file;
    every Cell's own mode is back afterwards (the BatchNorm here was left in eval mode)."""
    net = DropBN()
    net.bn.moving_mean.set_data(ms.Tensor(RNG.standard_normal(3).astype(np.float32)))
    x = RNG.standard_normal((6, 4)).astype(np.float32)
    expected = net.set_train(False)(ms.Tensor(x)).asnumpy()
    net.set_train(True)
    net.bn.set_train(False)
    path = str(tmp_path / "net.onnx")
    if exporter == "export":
        ms.export(net, ms.Tensor(x), file_name=path, input_names=["x"])
    else:
        ms.onnx.export(net, ms.Tensor(x), file_name=path, input_names=["x"])
    np.testing.assert_allclose(run(path, x=x), expected, rtol=1e-5, atol=1e-6)
    assert net.training and net.fc.training and net.drop.training and not net.bn.training


def test_a_training_step_exports_as_the_step_it_runs():
    """A TrainOneStepCell keeps the training mode: its BatchNorm normalises by the batch."""
    from graphcell.compiler.export import to_onnx
    net = nn.SequentialCell([nn.Dense(4, 3), nn.BatchNorm1d(3)])
    loss = nn.WithLossCell(net, nn.MSELoss())
    step = nn.TrainOneStepCell(loss, nn.SGD(net.trainable_params(), learning_rate=0.0)).set_train(True)
    x, y = RNG.standard_normal((6, 4)).astype(np.float32), RNG.standard_normal((6, 3)).astype(np.float32)
    model = to_onnx(step, ms.Tensor(x), ms.Tensor(y), input_names=["x", "y"]).model
    got = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(
        None, {"x": x, "y": y})[0]
    expected = loss.set_train(True)(ms.Tensor(x), ms.Tensor(y)).asnumpy()   # batch statistics
    np.testing.assert_allclose(got, expected, rtol=1e-5)
    assert step.training


def test_onnx_export_takes_torch_onnx_export_arguments(tmp_path):
    net = nn.Dense(4, 3)
    x = RNG.standard_normal((2, 4)).astype(np.float32)
    # static shapes by default, as 2.10; file_name gets ".onnx"
    ms.onnx.export(net, ms.Tensor(x), file_name=str(tmp_path / "static"), input_names=["x"], output_names=["y"])
    model = onnx.load(str(tmp_path / "static.onnx"))
    assert [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim] == [2, 4]
    assert model.graph.output[0].name == "y"
    # a named dynamic axis
    ms.onnx.export(net, ms.Tensor(x), file_name=str(tmp_path / "dyn.onnx"), input_names=["x"],
                   dynamic_axes={"x": {0: "batch"}})
    big = RNG.standard_normal((5, 4)).astype(np.float32)
    np.testing.assert_allclose(run(str(tmp_path / "dyn.onnx"), x=big), net(ms.Tensor(big)).asnumpy(), rtol=1e-5)
    # initializers listed as inputs: their values are defaults a caller may replace
    ms.onnx.export(net, ms.Tensor(x), file_name=str(tmp_path / "keep.onnx"), input_names=["x"],
                   keep_initializers_as_inputs=True)
    names = [i.name for i in onnx.load(str(tmp_path / "keep.onnx")).graph.input]
    assert names[0] == "x" and set(names[1:]) == {"weight", "bias"}
    w = np.zeros((3, 4), np.float32)
    np.testing.assert_allclose(run(str(tmp_path / "keep.onnx"), x=x), net(ms.Tensor(x)).asnumpy(), rtol=1e-5)
    np.testing.assert_allclose(run(str(tmp_path / "keep.onnx"), x=x, weight=w), np.broadcast_to(
        net.bias.asnumpy(), (2, 3)), rtol=1e-6)
    # parameters not exported: inputs without values
    ms.onnx.export(net, ms.Tensor(x), file_name=str(tmp_path / "noparams.onnx"), input_names=["x"],
                   export_params=False)
    model = onnx.load(str(tmp_path / "noparams.onnx"))
    assert not model.graph.initializer or {"weight", "bias"}.isdisjoint(t.name for t in model.graph.initializer)
    assert {"weight", "bias"} <= {i.name for i in model.graph.input}


@pytest.mark.parametrize("argument, value", [("input_names", "x"), ("output_names", ("y",)), ("dynamic_axes", [0])])
def test_onnx_export_argument_types_are_2_10s(tmp_path, argument, value):
    with pytest.raises(ValueError, match=f"The parameter '{argument}' must be isinstance of <class '"):
        ms.onnx.export(nn.Dense(4, 3), ms.Tensor(np.ones((2, 4), np.float32)), file_name=str(tmp_path / "a"),
                       **{argument: value})
    assert not list(tmp_path.iterdir())

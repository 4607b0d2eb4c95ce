"""An ensemble's stacked (batch-1) ONNX form in onnxruntime's blocked layout
(compiler/onnx_blocked.py): padded channels, two members per grouped Conv, dense layers as
grouped Convs; values against XLA."""
import numpy as np
import onnx
import onnxruntime as ort
import pytest

import graphcell as ms
from graphcell import nn
from graphcell.compiler.export import to_onnx
from tests.conftest import load_lenet


def _small_branch(model):
    (dispatch,) = [n for n in model.graph.node if n.op_type == "If"]
    return next(a.g for a in dispatch.attribute if a.name == "then_branch")


def _data_path(graph, inputs):
    """The nodes on the input's path, in order (the others compute padded weights)."""
    data, path = set(inputs), []
    for n in graph.node:
        if data & set(n.input):
            path.append(n)
            data |= set(n.output)
    return path


@pytest.mark.parametrize("n", [4, pytest.param(16, marks=pytest.mark.slow)])
def test_the_stacked_form_is_blocked_and_agrees_with_xla(n, monkeypatch, tmp_path):
    monkeypatch.setattr("graphcell.compiler.export.SMALL_FORM_MIN_MEMBERS", 2)
    # The stacked form up to batch 8, so that batch 7 runs it too (the Transpose back to
    # [N, batch, 10] is a real one there).
    monkeypatch.setattr("graphcell.compiler.export.SMALL_BATCH_MAX", 8)
    ensemble = ms.vmap(nn.CellList([load_lenet(i % 4) for i in range(n)]), in_axes=None)
    rng = np.random.default_rng(5)
    x = rng.standard_normal((7, 1, 32, 32)).astype(np.float32)
    model = to_onnx(ensemble, ms.Tensor(x)).model
    onnx.checker.check_model(model, full_check=True)

    path = _data_path(_small_branch(model), [i.name for i in model.graph.input])
    convs = [node for node in path if node.op_type == "Conv"]
    groups = [next((a.i for a in c.attribute if a.name == "group"), 1) for c in convs]
    kernels = [next(list(a.ints) for a in c.attribute if a.name == "kernel_shape") for c in convs]
    assert [node.op_type for node in path] == ["Conv", "Relu", "MaxPool", "Conv", "Relu", "MaxPool",
                                                "Conv", "Relu", "Conv", "Relu", "Conv",
                                                "Reshape", "Transpose", "Slice"]
    assert groups == [1, n // 2, n, n, n]                 # conv2: two members a group
    assert kernels == [[5, 5], [5, 5], [5, 5], [1, 1], [1, 1]]   # fc1 covers the 5x5 map

    # onnxruntime folds the weight expressions; every Conv runs in the blocked layout where
    # this CPU has one (the first Conv, 8 channels a member, tells).
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.optimized_model_filepath = str(tmp_path / "optimised.onnx")
    sess = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    optimised = _small_branch(onnx.load(options.optimized_model_filepath))
    domains = [node.domain for node in optimised.node if node.op_type == "Conv"]
    if domains and domains[0] == "com.microsoft.nchwc":
        assert domains == ["com.microsoft.nchwc"] * 5, domains

    expected = ms.jit(ensemble)(ms.Tensor(x)).asnumpy()
    for b in (1, 7):
        (got,) = sess.run(None, {model.graph.input[0].name: x[:b]})
        assert got.shape == (n, b, 10)
        np.testing.assert_allclose(got, expected[:, :b], rtol=1e-4, atol=1e-5)


@pytest.mark.slow
def test_parameters_as_inputs_keep_the_plain_stacked_form():
    """Weights that are graph inputs would be padded on every call: no rewrite. jit(backend=
    "onnx") at batch 1 builds the stacked form (8 members); lowered with its parameters as
    inputs, it keeps the grouped Conv and the batched MatMuls."""
    from graphcell.compiler.onnx import lower
    ensemble = ms.vmap(nn.CellList([load_lenet(i % 4) for i in range(8)]), in_axes=None)
    fn = ms.jit(ensemble, backend="onnx")
    fn(ms.Tensor(np.zeros((1, 1, 32, 32), np.float32)))
    (traced,) = fn.cache.values()
    as_inputs = [n.op_type for n in lower(traced.graph, params_as_inputs=True).model.graph.node]
    assert "Pad" not in as_inputs and as_inputs.count("MatMul") == 3

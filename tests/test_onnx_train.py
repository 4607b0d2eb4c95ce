"""A whole training step exported to ONNX: onnxruntime runs ten Adam(amsgrad) steps of the
seed's TrainOneStepNet and reproduces MindSpore 2.10's losses (train_losses.npy).

Autodiff is a pass, so the step's graph (forward, backward, optimizer update) is ordinary IR;
with parameters as graph inputs, the updated parameters and optimizer state come out as
outputs named `<parameter>.new`, which the caller feeds back."""
import numpy as np
import onnxruntime as ort
import pytest

import graphcell as ms

from graphcell.compiler.export import to_onnx
from tests.conftest import golden_array, load_lenet
from tests.models.train_step import TrainOneStepNet


def test_ten_training_steps_in_onnxruntime_match_mindspore():
    step = TrainOneStepNet(load_lenet(0), 1e-2)
    x = ms.Tensor(golden_array("train_images.npy")[0])
    y = ms.Tensor(golden_array("train_labels.npy")[0])
    exported = to_onnx(step, x, y, dynamic_axes=False, params_as_inputs=True)
    session = ort.InferenceSession(exported.model.SerializeToString(), providers=["CPUExecutionProvider"])
    inputs = [i.name for i in session.get_inputs()]
    outputs = [o.name for o in session.get_outputs()]
    state = {name: np.asarray(p._payload) for name, p in zip(inputs[2:], exported.traced.params)}
    assert set(outputs[1:]) <= {f"{name}.new" for name in state}, outputs[:5]
    losses = []
    for _ in range(10):
        results = session.run(None, {inputs[0]: x.asnumpy(), inputs[1]: y.asnumpy(), **state})
        losses.append(float(results[0]))
        state.update({name[:-len(".new")]: value for name, value in zip(outputs[1:], results[1:])})
    np.testing.assert_allclose(losses, golden_array("train_losses.npy")[:, 0], rtol=1e-4)
    # The trained weights also match MindSpore's (the same tolerance as the XLA path's test).
    from graphcell.train.ckpt_format import read_ckpt_file
    from tests.conftest import GOLDEN
    trained = read_ckpt_file(GOLDEN / "net0_trained.ckpt")
    w = state["adam_optim.loss_fn._backbone.fc3.weight"]
    np.testing.assert_allclose(w, trained["fc3.weight"], atol=5e-5)


def _ensemble_step(n):
    from graphcell import nn
    return ms.vmap(nn.CellList([TrainOneStepNet(load_lenet(i), lr) for i, lr in zip(range(n), [1e-2, 1e-3, 2e-3])]))


def test_an_ensemble_training_step_in_onnxruntime_matches_xla():
    """vmap of the seed's step, exported: two steps in onnxruntime equal two XLA steps (losses
    and every updated parameter). Its graph is the lean one: each member's conv2 input gradient
    a ConvTranspose, max-pool gradients without Indices, scatters or DepthToSpace (the windows
    tile the input), and an Adam update that runs once on the stacks (as many nodes for 3 members as
    for 2)."""
    import collections
    images, labels = golden_array("train_images.npy"), golden_array("train_labels.npy")
    adam_nodes = {}
    for n in (2, 3):
        step = _ensemble_step(n)
        x, y = ms.Tensor(images[:n]), ms.Tensor(labels[:n])   # member i's minibatch: images[i]
        exported = to_onnx(step, x, y, dynamic_axes=False, params_as_inputs=True)
        ops = collections.Counter(node.op_type for node in exported.model.graph.node)
        # Per member: conv2's input gradient, and both max-pool gradients' one-hot scatter-back.
        assert ops["ConvTranspose"] == 3 * n and "ScatterElements" not in ops and "DepthToSpace" not in ops, ops
        adam_nodes[n] = sum("adam_optim" in node.name for node in exported.model.graph.node)
    assert adam_nodes[2] == adam_nodes[3], adam_nodes

    session = ort.InferenceSession(exported.model.SerializeToString(), providers=["CPUExecutionProvider"])
    inputs = [i.name for i in session.get_inputs()]
    outputs = [o.name for o in session.get_outputs()]
    state = {name: np.asarray(p._payload) for name, p in zip(inputs[2:], exported.traced.params)}
    reference = _ensemble_step(3)
    xk, yk = images[:3], labels[:3]
    for _ in range(2):
        results = session.run(None, {inputs[0]: xk, inputs[1]: yk, **state})
        state.update({name[:-len(".new")]: value for name, value in zip(outputs[1:], results[1:])})
        want = reference(ms.Tensor(xk), ms.Tensor(yk)).asnumpy()
        np.testing.assert_allclose(results[0], want, rtol=1e-5, atol=1e-6)
    from graphcell.frontend.ensemble import postfix_name
    compared = set()
    for i, member in enumerate(reference.ensemble.members):   # each member's Parameters read their slice
        for p in member.get_parameters():
            if postfix_name(p.name) not in state:   # a step counter the graph does not update
                continue
            # atol as for the single model above: Adam's first steps move a weight by about lr
            # whatever the gradient's size, so float32 rounding of a tiny gradient shows.
            np.testing.assert_allclose(state[postfix_name(p.name)][i], p.asnumpy(), rtol=1e-4, atol=5e-5,
                                       err_msg=p.name)
            compared.add(postfix_name(p.name))
    assert {"loss_fn._backbone.conv1.weight", "adam_optim.moment1.loss_fn._backbone.fc3.bias"} <= compared, compared


@pytest.mark.parametrize("kernel, stride, pad_mode", [(2, 2, "valid"), (3, 2, "same")])
def test_the_gradient_of_max_pooling_reuses_the_forward_pool(kernel, stride, pad_mode):
    """value_and_grad through MaxPool: one MaxPool node serves the forward values and the
    gradient, windows that tile the input (masks; ties among ReLU's zeros included) or
    overlapping ones (Indices); outputs equal the XLA path's."""
    import collections
    from graphcell import nn, ops
    pool = nn.MaxPool2d(kernel, stride, pad_mode=pad_mode)
    f = ms.value_and_grad(lambda x: (pool(ops.relu(x)) * 3.0).sum())
    x = np.random.default_rng(0).standard_normal((2, 3, 6, 6)).astype(np.float32)
    model = to_onnx(f, ms.Tensor(x), dynamic_axes=False).model
    assert collections.Counter(n.op_type for n in model.graph.node)["MaxPool"] == 1
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    got = session.run(None, {session.get_inputs()[0].name: x})
    for g, want in zip(got, f(ms.Tensor(x))):
        np.testing.assert_allclose(g, want.asnumpy(), rtol=1e-5, atol=1e-5)


def _lstm_step():
    """An LSTM regressor's SGD training step, its weights drawn from seed 5."""
    from graphcell import nn
    ms.set_seed(5)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(3, 4, batch_first=True)
            self.fc = nn.Dense(4, 2)

        def construct(self, x):
            return self.fc(self.lstm(x)[0][:, -1])

    net = Net()
    return nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.5))


def _scans(model) -> int:
    return [n.op_type for n in model.graph.node].count("Scan")


@pytest.mark.slow   # ~2.7 s: three traces, two XLA compiles
def test_an_exported_lstm_training_step_runs_its_forward_loop_once():
    """Export runs the "onnx" pipeline over its traces in step, so merge_scans makes the LSTM's
    forward scan and its gradient's replay one loop: one Scan fewer in the file than in the
    trace, and the file's step (batch dynamic) equals the XLA step at batch 2 and 5 (loss and
    every updated parameter)."""
    step = _lstm_step()
    rng = np.random.default_rng(5)
    batches = [(ms.Tensor(rng.standard_normal((b, 6, 3)).astype(np.float32)),
                ms.Tensor(rng.standard_normal((b, 2)).astype(np.float32))) for b in (2, 5)]
    exported = to_onnx(step, *batches[0], params_as_inputs=True)
    assert exported.dynamic == {"arg0": {0: "batch"}, "arg1": {0: "batch"}}
    traced_scans = sum(n.primitive.name == "scan" for n in ms.trace(step, *batches[0]).graph.nodes)
    assert _scans(exported.model) == traced_scans - 1 == 2
    session = ort.InferenceSession(exported.model.SerializeToString(), providers=["CPUExecutionProvider"])
    inputs = [i.name for i in session.get_inputs()]
    outputs = [o.name for o in session.get_outputs()]
    params = exported.traced.params
    start = [p.asnumpy().copy() for p in params]
    for x, y in batches:
        got = session.run(None, {inputs[0]: x.asnumpy(), inputs[1]: y.asnumpy(), **dict(zip(inputs[2:], start))})
        for p, value in zip(params, start):
            p.set_data(ms.Tensor(value))
        loss = step(x, y)   # XLA
        np.testing.assert_allclose(got[0], loss.asnumpy(), rtol=1e-5, atol=1e-6)
        by_name = dict(zip(inputs[2:], params))
        assert len(outputs) > 5
        for name, value in zip(outputs[1:], got[1:]):
            np.testing.assert_allclose(value, by_name[name[:-len(".new")]].asnumpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.slow   # ~1.9 s on a loaded machine: two traces, an XLA compile, two sessions
def test_a_jit_onnx_lstm_training_step_runs_its_forward_loop_once(tmp_path, monkeypatch):
    """jit(backend="onnx") runs the "onnx" pipeline: merge_scans makes the LSTM's forward scan
    and its gradient's replay one loop, one Scan fewer in the model than in the trace (read
    from the compile cache), and two steps equal two XLA steps (loss and every parameter). A
    fresh trace of the same step hits the cache: no pass runs, and its first step is the same."""
    import onnx
    ms.set_context(compile_cache_dir=tmp_path)
    try:
        rng = np.random.default_rng(5)
        x = ms.Tensor(rng.standard_normal((2, 6, 3)).astype(np.float32))
        y = ms.Tensor(rng.standard_normal((2, 2)).astype(np.float32))
        step, reference = _lstm_step(), _lstm_step()
        on_onnx, on_xla = ms.jit(step, backend="onnx"), ms.jit(reference)
        losses = []
        for _ in range(2):
            losses.append(on_onnx(x, y).asnumpy())
            np.testing.assert_allclose(losses[-1], on_xla(x, y).asnumpy(), rtol=1e-5, atol=1e-6)
        for p, q in zip(step.get_parameters(), reference.get_parameters()):
            np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=1e-5, atol=1e-6, err_msg=p.name)
        (traced,) = on_onnx.cache.values()
        (path,) = (tmp_path / "onnx").glob("*.onnx")
        traced_scans = sum(n.primitive.name == "scan" for n in traced.graph.nodes)
        assert _scans(onnx.load(path)) == traced_scans - 1 == 2

        def no_passes(*args, **kwargs):
            raise AssertionError("a compile cache hit ran the passes")
        monkeypatch.setattr("graphcell.passes.manager.run_pipeline", no_passes)
        again = ms.jit(_lstm_step(), backend="onnx")
        np.testing.assert_allclose(again(x, y).asnumpy(), losses[0], rtol=1e-6)
        assert len(list((tmp_path / "onnx").glob("*.onnx"))) == 1
    finally:
        ms.set_context(compile_cache_dir=None)

"""nn.TrainOneStepWithLossScaleCell with Fixed/DynamicLossScaleUpdateCell, the amp loss-scale
managers and amp.build_train_network, against MindSpore 2.10.

MindSpore 2.10's CPU backend has no overflow kernel (TrainOneStepWithLossScaleCell fails with
"Unsupported op [NPUGetFloatStatusV2] on CPU"), so the MS_* sequences below were printed by
2.10 with its overflow check replaced by "not all(isfinite(grads))" (its GPU check's meaning),
in PYNATIVE and GRAPH mode alike. Eager, jit, vmap (vs a per-member loop) and onnxruntime (vs
XLA) run the same steps."""
import numpy as np
import onnxruntime as ort
import pytest

import graphcell as ms
from graphcell import amp, nn
from graphcell.compiler.export import to_onnx

T = ms.Tensor
X = np.array([[1.0, 2.0]], np.float32)
Y = np.array([[0.5]], np.float32)
BIG = np.array([[1e30, 2e30]], np.float32)     # its loss is inf: every gradient overflows
INPUTS = [X, X, X, BIG, X, X, X, BIG, BIG, X]
# scale_sense, current_iterator_step, last_overflow_iterator_step and global_step after each step
# (DynamicLossScaleUpdateCell(16, 2, 2), SGD lr 0.1), and the weights after the last.
MS_SCALE = [16, 32, 32, 16, 16, 32, 32, 16, 8, 8]
MS_CUR = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
MS_LAST = [0, 2, 2, 4, 4, 6, 6, 8, 9, 9]
MS_STEP = [1, 2, 3, 3, 4, 5, 6, 6, 6, 7]
MS_WEIGHT = [0.583328, 0.166656]


def _cell(scale_sense=None):
    net = nn.Dense(2, 1, weight_init="ones", bias_init="zeros")
    opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
    update = nn.DynamicLossScaleUpdateCell(loss_scale_value=16.0, scale_factor=2, scale_window=2)
    cell = nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(net, nn.MSELoss()), opt,
                                            scale_sense=update if scale_sense is None else scale_sense)
    return net, opt, cell


@pytest.mark.parametrize("compiled", [False, True])
def test_dynamic_loss_scale_steps_as_mindspore(compiled):
    net, opt, cell = _cell()
    update = cell.loss_scaling_manager
    run = ms.jit(cell) if compiled else cell
    for k, x in enumerate(INPUTS):
        loss, overflow, scale = run(T(x), T(Y))
        assert overflow.dtype == ms.bool_ and overflow.shape == () and bool(overflow.asnumpy()) == (x is BIG)
        assert scale.dtype == ms.float32 and float(scale.asnumpy()) == MS_SCALE[k]   # after this step's update
        assert float(cell.scale_sense.asnumpy()) == MS_SCALE[k]
        assert int(update.cur_iter.asnumpy()) == MS_CUR[k] and int(update.last_overflow_iter.asnumpy()) == MS_LAST[k]
        assert opt.global_step.asnumpy().tolist() == [MS_STEP[k]], k    # skipped steps leave it alone
        assert np.isinf(loss.asnumpy()) == (x is BIG)
    np.testing.assert_allclose(net.weight.asnumpy().ravel(), MS_WEIGHT, rtol=1e-5)
    names = [p.name for p in cell.get_parameters()]
    assert {"scale_sense", "current_iterator_step", "last_overflow_iterator_step"} <= set(names)


def test_gradients_are_unscaled_and_the_loss_is_the_forward_one():
    """A step that does not overflow is TrainOneStepCell's step, whatever the scale."""
    x = np.random.default_rng(0).standard_normal((4, 2)).astype(np.float32)
    y = np.random.default_rng(1).standard_normal((4, 1)).astype(np.float32)
    results = []
    for scale in (None, T(np.float32(1024.0)), T(np.array([8.0], np.float32))):
        net = nn.Dense(2, 1, weight_init="ones", bias_init="zeros")
        opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
        loss_net = nn.WithLossCell(net, nn.MSELoss())
        cell = nn.TrainOneStepCell(loss_net, opt) if scale is None else \
            nn.TrainOneStepWithLossScaleCell(loss_net, opt, scale_sense=scale)
        losses = [cell(T(x), T(y)) for _ in range(3)]
        results.append(([float((out[0] if isinstance(out, tuple) else out).asnumpy()) for out in losses],
                        net.weight.asnumpy()))
        if scale is not None:
            assert cell.scale_sense.shape == tuple(scale.shape)   # a fixed scale: the Tensor's shape
            np.testing.assert_array_equal(cell.scale_sense.asnumpy(), scale.asnumpy())
    for losses, weight in results[1:]:
        np.testing.assert_allclose(losses, results[0][0], rtol=1e-6)
        np.testing.assert_allclose(weight, results[0][1], rtol=1e-6)


def test_the_backward_pass_runs_in_the_scaled_range():
    """float16 weights: d(loss)/dw = x = 2, so a scale of 2**15 or more overflows float16 in
    the backward pass (65536 > 65504) although the unscaled gradient is tiny: the step is
    skipped and the scale halves until it fits, as with MindSpore's sens."""
    w = ms.Parameter(T(np.ones(2, np.float16)), name="w")

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = w

        def construct(self, x):
            return (self.w * x).sum()
    opt = nn.SGD([w], learning_rate=0.125)
    cell = ms.jit(nn.TrainOneStepWithLossScaleCell(Net(), opt, amp.DynamicLossScaleManager(2 ** 16, 2, 100)
                                                   .get_update_cell()))
    x = T(np.full(2, 2.0, np.float16))
    flags = [bool(cell(x)[1].asnumpy()) for _ in range(3)]
    assert flags == [True, True, False]
    np.testing.assert_array_equal(w.asnumpy(), [0.75, 0.75])   # one update of 0.125 * 2


def test_a_fixed_update_cell_skips_overflowing_steps_and_keeps_its_scale():
    net, opt, cell = _cell(nn.FixedLossScaleUpdateCell(64.0))
    assert float(cell.scale_sense.asnumpy()) == 64.0
    before = net.weight.asnumpy().copy()
    loss, overflow, scale = cell(T(BIG), T(Y))
    assert bool(overflow.asnumpy()) and float(scale.asnumpy()) == 64.0
    np.testing.assert_array_equal(net.weight.asnumpy(), before)
    assert opt.global_step.asnumpy().tolist() == [0]
    cell(T(X), T(Y))
    np.testing.assert_allclose(net.weight.asnumpy().ravel(), [0.5, 0.0], atol=1e-6)   # w - 0.1 * [5, 10]
    cell.set_sense_scale(T(np.float32(2.0)))
    assert float(cell(T(X), T(Y))[2].asnumpy()) == 2.0


def test_ensemble_members_skip_their_own_overflows_under_vmap():
    """Member 1 overflows at step 2, member 0 never: member 0 updates, member 1 skips and
    halves its scale; each member equals its own run."""
    xs = np.stack([np.stack([X, X, X]), np.stack([X, BIG, X])])    # [member, step, 1, 2]
    singles, batched = [_cell()[2] for _ in range(2)], [_cell()[2] for _ in range(2)]
    step = ms.vmap(nn.CellList(batched))
    for k in range(3):
        loss, overflow, scale = step(T(xs[:, k]), T(np.stack([Y, Y])))
        for m, single in enumerate(singles):
            want = single(T(xs[m, k]), T(Y))
            assert bool(overflow.asnumpy()[m]) == bool(want[1].asnumpy())
            assert float(scale.asnumpy()[m]) == float(want[2].asnumpy())
    assert bool(overflow.asnumpy()[1]) is False and scale.asnumpy().tolist() == [32.0, 8.0]
    for a, b in zip(singles, batched):
        for pa, pb in zip(a.get_parameters(), b.get_parameters()):
            np.testing.assert_allclose(pb.asnumpy(), pa.asnumpy(), rtol=1e-6, err_msg=pa.name)


def test_a_loss_scaled_step_runs_in_onnxruntime_with_its_skip():
    _, _, cell = _cell()
    _, _, reference = _cell()
    exported = to_onnx(cell, T(X), T(Y), dynamic_axes=False, params_as_inputs=True)
    assert "If" in {node.op_type for node in exported.model.graph.node}
    session = ort.InferenceSession(exported.model.SerializeToString(), providers=["CPUExecutionProvider"])
    inputs = [i.name for i in session.get_inputs()]
    outputs = [o.name for o in session.get_outputs()]
    state = {name: np.asarray(p._payload) for name, p in zip(inputs[2:], exported.traced.params)}
    run = ms.jit(reference)
    for x in INPUTS[:5]:
        results = session.run(None, {inputs[0]: x, inputs[1]: Y, **state})
        state.update({name[:-len(".new")]: value for name, value in zip(outputs[3:], results[3:])})
        want = run(T(x), T(Y))
        assert bool(results[1]) == bool(want[1].asnumpy()) and float(results[2]) == float(want[2].asnumpy())
    assert float(state["scale_sense"]) == MS_SCALE[4] and state["global_step"].tolist() == [MS_STEP[4]]
    np.testing.assert_allclose(state["weight"], reference.network._backbone.weight.asnumpy(), rtol=1e-6)


@pytest.mark.parametrize("build,error,message", [
    (lambda: _cell(T(np.ones((1, 1), np.float32))), ValueError, r"shape of 'scale_sense' must be \(1,\) or \(\)"),
    (lambda: _cell(3.0), TypeError, r"'scale_sense' must be Cell or Tensor, but got 'scale_sense' type: float"),
    (lambda: nn.DynamicLossScaleUpdateCell(16.0, 2, 0), ValueError, r"'scale_window' must be an int > 0"),
    (lambda: amp.FixedLossScaleManager(0.5), ValueError, r"'loss_scale' must be >= 1, but got 0.5"),
    (lambda: amp.DynamicLossScaleManager(scale_window=2.0), TypeError, r"'scale_window' must be int, but got 'float'"),
    (lambda: amp.DynamicLossScaleManager(scale_factor=0), ValueError, r"'scale_factor' must be > 0, but got 0"),
])
def test_bad_arguments(build, error, message):
    with pytest.raises(error, match=message):
        build()


def test_managers_and_their_update_cells():
    fixed = amp.FixedLossScaleManager()
    assert fixed.get_loss_scale() == 128.0 and fixed.get_drop_overflow_update()
    assert isinstance(fixed.get_update_cell(), nn.FixedLossScaleUpdateCell)
    assert fixed.get_update_cell().get_loss_scale() == 128.0
    assert amp.FixedLossScaleManager(8, False).get_update_cell() is None
    dynamic = amp.DynamicLossScaleManager(16, 2, 3)
    cell = dynamic.get_update_cell()
    assert isinstance(cell, nn.DynamicLossScaleUpdateCell) and cell.get_loss_scale() == 16
    scales = []
    for overflow in [False, False, False, True, False, False, False, False, True, True, False]:
        dynamic.update_loss_scale(overflow)
        scales.append(dynamic.get_loss_scale())
    assert scales == [16, 16, 32, 16, 16, 16, 32, 32, 16, 8, 8]         # MindSpore 2.10's host-side rule
    assert (dynamic.cur_iter, dynamic.last_overflow_iter) == (12, 10)
    assert amp.DynamicLossScaleManager().get_loss_scale() == 2 ** 24


def test_build_train_network_levels():
    x, y = T(np.ones((4, 3), np.float32)), T(np.zeros((4, 2), np.float32))
    net = nn.Dense(3, 2)
    plain = amp.build_train_network(net, nn.SGD(net.trainable_params()), nn.MSELoss())
    assert type(plain) is nn.TrainOneStepCell and plain.training
    net = nn.Dense(3, 2)
    o2 = amp.build_train_network(net, nn.Momentum(net.trainable_params(), 0.1, 0.9), nn.MSELoss(), level="O2")
    assert isinstance(o2, nn.TrainOneStepWithLossScaleCell) and float(o2.scale_sense.asnumpy()) == 2 ** 24
    loss, overflow, scale = o2(x, y)
    assert loss.dtype == ms.float32 and bool(overflow.asnumpy()) and float(scale.asnumpy()) == 2 ** 23
    net = nn.Dense(3, 2)
    fixed = amp.build_train_network(net, nn.SGD(net.trainable_params(), loss_scale=4.0), nn.MSELoss(),
                                    loss_scale_manager=amp.FixedLossScaleManager(4.0, False))
    assert type(fixed) is nn.TrainOneStepCell and fixed.sens == 4.0
    with pytest.raises(ValueError, match=r"Unsupported arg 'foo'"):
        amp.build_train_network(net, nn.SGD(net.trainable_params()), foo=1)
    with pytest.raises(TypeError, match=r"'optimizer' must be a graphcell.nn Optimizer"):
        amp.build_train_network(net, None)


# auto_mixed_precision(train, "O2"/"O3") over a dynamic loss-scaled step (4x8x2 Dense-ReLU-Dense,
# MSELoss, Momentum(0.1, 0.9), DynamicLossScaleUpdateCell(4096, 2, 2)); measured on MindSpore 2.10
# with the overflow check replaced as above. Its losses (float16 values, as 2.10's GRAPH mode
# computes them) and the scale after each step (2.10's PYNATIVE mode; its GRAPH mode assigned
# the update to a float16 copy of scale_sense and the scale stayed 4096).
MS_AMP_LOSS = [0.7431640625, 0.63037109375, 0.537109375, 0.46484375]
MS_AMP_SCALE = [4096.0, 8192.0, 8192.0, 16384.0]


@pytest.mark.parametrize("level", ["O2", pytest.param("O3", marks=pytest.mark.slow)])
def test_auto_mixed_precision_over_a_dynamic_loss_scaled_step(level):
    """The update cell assigns the scale it is handed: amp must pass it on as the Parameter
    (it failed with "assign needs a Parameter")."""
    net = nn.SequentialCell([nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 2)])
    for dense, seed in ((net[0], 1), (net[2], 2)):   # the weights of the 2.10 run
        dense.weight.set_data(T(np.random.RandomState(seed).randn(*dense.weight.shape).astype(np.float32) * 0.3))
        dense.bias.set_data(T(np.zeros(dense.bias.shape, np.float32)))
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    update = nn.DynamicLossScaleUpdateCell(loss_scale_value=2 ** 12, scale_factor=2, scale_window=2)
    train = amp.auto_mixed_precision(nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(net, nn.MSELoss()), opt,
                                                                      scale_sense=update), level)
    x = T(np.random.RandomState(3).randn(3, 4).astype(np.float32))
    y = T(np.random.RandomState(4).randn(3, 2).astype(np.float32))
    for k in range(4):
        loss, overflow, scale = train(x, y)
        assert loss.dtype == ms.float32 and not bool(overflow.asnumpy())
        np.testing.assert_allclose(float(loss.asnumpy()), MS_AMP_LOSS[k], rtol=1e-6)
        assert float(scale.asnumpy()) == MS_AMP_SCALE[k]
    state = {p.name: p for p in train.get_parameters()}
    assert float(state["scale_sense"].asnumpy()) == MS_AMP_SCALE[-1] and state["scale_sense"].dtype == ms.float32
    assert int(state["current_iterator_step"].asnumpy()) == 5

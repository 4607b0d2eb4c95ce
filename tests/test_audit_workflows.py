"""Seams found by running MindSpore-style training and vision scripts under graphcell and MindSpore
2.10 (session 17's workflow audit): the expected values and messages were measured on 2.10."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Parameter, Tensor, amp, nn, ops


def test_depend_returns_value_and_orders_an_optimizer_step_under_jit():
    """The tutorials' `loss = ops.depend(loss, optimizer(grads))` inside an @ms.jit train step."""
    w = Parameter(Tensor(np.array([1.0, -2.0], np.float32)), name="w")
    opt = nn.SGD([w], learning_rate=0.5)
    grad_fn = ms.value_and_grad(lambda x: (w * x).sum() ** 2, None, opt.parameters)

    @ms.jit
    def step(x):
        loss, grads = grad_fn(x)
        return ops.depend(loss, opt(grads))

    x = Tensor(np.array([1.0, 1.0], np.float32))
    assert float(step(x)) == 1.0                       # (1 - 2)^2, before the update
    np.testing.assert_allclose(w.asnumpy(), [2.0, -1.0])   # w - 0.5 * 2 * (w.x) * x
    assert float(step(x)) == 1.0                       # (2 - 1)^2
    assert ops.depend(Tensor([1.0, 2.0]), Tensor([3.0])).asnumpy().tolist() == [1.0, 2.0]


def test_addn_and_assign_sub():
    out = ops.addn([Tensor([1.0, 2.0]), Tensor([3.0, 4.0]), Tensor([5.0, 6.0])])
    assert out.asnumpy().tolist() == [9.0, 12.0]
    assert ops.addn((Tensor([1, 2]), Tensor([3, 4]))).dtype == ms.int64
    # 2.10's errors
    with pytest.raises(ValueError, match=r"For 'AddN', input shape must be same, but got shape of input\[1\]: \(3,\)"):
        ops.addn([Tensor([1.0, 2.0]), Tensor([1.0, 2.0, 3.0])])
    with pytest.raises(TypeError, match=r"For primitive\[AddN\], the input type must be same"):
        ops.addn([Tensor([1, 2]), Tensor([3.0, 4.0])])
    with pytest.raises(ValueError, match="greater than or equal to 1, but got 0"):
        ops.addn([])
    with pytest.raises(TypeError):
        ops.addn(Tensor([1.0, 2.0]))
    p = Parameter(Tensor(np.ones(3, np.float32)), name="p")
    ops.assign_sub(p, Tensor(np.full(3, 0.5, np.float32)))
    assert p.asnumpy().tolist() == [0.5, 0.5, 0.5]


def test_a_parameter_prints_as_its_description():
    """print(opt.global_step) and f"{param}" show the description in 2.10, not the values."""
    p = Parameter(Tensor(np.array([1.5, 2.0], np.float32)), name="w")
    text = "Parameter (name=w, shape=(2,), dtype=Float32, requires_grad=True)"
    assert str(p) == repr(p) == f"{p}" == text
    assert str([p]) == f"[{text}]"
    assert str(p + 1) == "[2.5 3. ]"                                  # arithmetic gives a Tensor
    lr = Parameter(Tensor(np.float32(0.5)), name="lr")
    assert f"{lr}" == "Parameter (name=lr, shape=(), dtype=Float32, requires_grad=True)"
    assert f"{lr:.2f}" == "0.50"        # graphcell formats a 0-d value (2.10 raises TypeError)


def test_auto_mixed_precision_wrapper_class_name():
    net = nn.SequentialCell([nn.Dense(3, 2)])
    assert type(amp.auto_mixed_precision(net, "O2")).__name__ == "_OutputTo32"


def test_get_lr_reads_without_advancing_global_step():
    """A callback logging opt.get_lr() between steps must not move a dynamic rate on: in 2.10 the
    built-in optimizers advance global_step in their step, get_lr only reads (measured: with
    learning_rate=[0.1, ..., 0.6] and get_lr() after each step, global_step 1, 2 and rates 0.2, 0.3)."""
    net = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")
    opt = nn.Momentum(net.trainable_params(), learning_rate=[0.1, 0.2, 0.3, 0.4, 0.5, 0.6], momentum=0.9)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    x, y = Tensor(np.ones((4, 3), np.float32)), Tensor(np.zeros((4, 2), np.float32))
    seen = []
    for _ in range(2):
        step(x, y)
        seen.append((int(opt.global_step.asnumpy()[0]), round(float(opt.get_lr()), 6)))
        opt.get_lr()
    assert seen == [(1, 0.2), (2, 0.3)]


def test_cell_repr_is_mindspore_2_10s_frame():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.f = nn.SequentialCell([nn.Dense(2, 2), nn.ReLU()])
            self.l = nn.CellList([nn.Tanh()])

        def extend_repr(self):
            return "k=3"

    # measured on MindSpore 2.10 (print(net))
    assert repr(Net()) == ("Net(\n  k=3\n  (f): SequentialCell(\n    (0): Dense(input_channels=2, output_channels=2, "
                           "has_bias=True)\n    (1): ReLU()\n  )\n  (l): CellList(\n    (0): Tanh()\n  )\n)")
    assert repr(nn.CellList([])) == "CellList()" and str(nn.Dropout(p=0.3)) == "Dropout(p=0.3)"


def _losses_of_model(**kwargs):
    import graphcell.dataset as ds
    from graphcell.train import Callback, Model
    r = np.random.RandomState(0)
    x = r.randn(12, 4).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int32)
    net = nn.SequentialCell([nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 2)])
    r2 = np.random.RandomState(5)
    for p in net.get_parameters():
        p.set_data(Tensor(r2.randn(*p.shape).astype(np.float32) * 0.4))
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9, loss_scale=kwargs.pop("opt_scale", 1.0))
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"), opt, **kwargs)
    losses = []

    class Record(Callback):
        def on_train_step_end(self, run_context):
            losses.append(float(run_context.original_args().net_outputs))

    model.train(1, ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(4), callbacks=[Record()])
    return model, losses


def test_model_applies_a_fixed_loss_scale_manager():
    """Model(..., loss_scale_manager=FixedLossScaleManager(1024, drop_overflow_update=False)) with the
    optimizer's loss_scale=1024, as the model zoo's ResNet scripts: graphcell ignored the manager, so the
    optimizer divided unscaled gradients by 1024."""
    from graphcell.train import FixedLossScaleManager
    model, losses = _losses_of_model(opt_scale=1024.0,
                                     loss_scale_manager=FixedLossScaleManager(1024.0, drop_overflow_update=False))
    assert type(model.train_network).__name__ == "TrainOneStepCell" and float(model.train_network.sens) == 1024.0
    # measured on MindSpore 2.10 (without the manager: 0.6117005, 0.679976, 0.7230309)
    np.testing.assert_allclose(losses, [0.6117005348205566, 0.6349599361419678, 0.6467688679695129], rtol=1e-5)


def test_model_kwargs_are_checked_as_in_mindspore():
    with pytest.raises(ValueError, match="should be 'loss_scale_manager' or 'keep_batchnorm_fp32' or "
                                         "'boost_config_dict' or 'acc_level', but got 'foo'"):
        _losses_of_model(foo=1)
    with pytest.raises(TypeError, match="'loss_scale_manager' should be one of .* but got type 'int'"):
        _losses_of_model(loss_scale_manager=3)


def test_softmax_cross_entropy_refuses_mismatched_labels_with_mindspores_message():
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True)
    # 2.10's message names the one-hot label shape (measured)
    with pytest.raises(ValueError, match=r"'label' shape must be consistent with 'logits' shape, but got "
                                         r"'label' shape: \(3, 3\), 'logits' shape: \(2, 3\)\."):
        loss(Tensor(np.ones((2, 3), np.float32)), Tensor(np.array([0, 1, 2], np.int32)))
    with pytest.raises(ValueError, match=r"'label' shape: \(2, 4\), 'logits' shape: \(2, 3\)"):
        nn.SoftmaxCrossEntropyWithLogits()(Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((2, 4), np.float32)))


def test_load_refuses_mindir_by_name():
    with pytest.raises(NotImplementedError, match="cannot read MindIR"):
        ms.load("net.mindir")


def test_train_one_step_subclass_uses_grad_and_grad_reducer_as_model_zoo_code():
    """Model-zoo code subclasses TrainOneStepCell and calls self.grad(self.network, self.weights)(*inputs,
    sens), clips, then self.grad_reducer(grads); losses measured on MindSpore 2.10 (same program)."""
    from graphcell import Tensor, nn, ops

    class ClippedStep(nn.TrainOneStepCell):
        def __init__(self, network, optimizer):
            super().__init__(network, optimizer, sens=2.0)

        def construct(self, *inputs):
            loss = self.network(*inputs)
            sens = ops.fill(loss.dtype, loss.shape, self.sens)
            grads = self.grad(self.network, self.weights)(*inputs, sens)
            grads = self.grad_reducer(ops.clip_by_global_norm(grads, 0.5))
            return ops.depend(loss, self.optimizer(grads))

    net = nn.SequentialCell(nn.Dense(3, 4), nn.Tanh(), nn.Dense(4, 1))
    rng = np.random.RandomState(0)
    for p in sorted(net.get_parameters(), key=lambda p: p.name):
        p.set_data(Tensor((rng.randn(*p.shape) * 0.3).astype(np.float32)))
    step = ClippedStep(nn.WithLossCell(net, nn.MSELoss()),
                       nn.Adam(net.trainable_params(), 0.05, weight_decay=0.01, use_nesterov=True))
    assert step.sens == 2.0 and step.sense_flag and not step.reducer_flag
    rng = np.random.RandomState(2)
    x, y = Tensor(rng.randn(6, 3).astype(np.float32)), Tensor(rng.randn(6, 1).astype(np.float32))
    losses = [float(step(x, y).asnumpy()) for _ in range(4)]
    np.testing.assert_allclose(losses, [0.4795, 0.26332, 0.21481, 0.17229], atol=2e-5)

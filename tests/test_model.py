"""graphcell.train.Model and its callbacks on LeNet5 over a slice of the digits.

References: a hand-written value_and_grad + optimizer loop (the same math, written
independently of Model), numpy accuracy on the network's own logits, files on disk.
"""
import os

import numpy as np
import pytest

import graphcell as ms
from graphcell import nn
from graphcell import dataset as ds
from graphcell.train import (Callback, CheckpointConfig, LossMonitor, Model, ModelCheckpoint, TimeMonitor,
                             load_checkpoint)
from tests.conftest import DATA
from tests.models.lenet import LeNet5

N_TRAIN, BATCH = 64, 16  # 4 steps per epoch


def _digits(n=N_TRAIN, start=0):
    d = np.load(os.path.join(DATA, "digits.npz"))
    x = (d["images"].astype(np.float32) / 16.0).reshape(-1, 1, 8, 8).repeat(4, 2).repeat(4, 3)
    return x[start:start + n], d["labels"].astype(np.int32)[start:start + n]


def _dataset(n=N_TRAIN, start=0):
    x, y = _digits(n, start)
    return ds.NumpySlicesDataset((x, y), column_names=["image", "label"], shuffle=False).batch(BATCH)


def _model(seed=1):
    ms.set_seed(seed)
    net = LeNet5()
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)
    return net, opt, Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"), opt,
                           metrics={"accuracy", "loss"})


def _params(net):
    return {p.name: p.asnumpy().copy() for p in net.get_parameters()}


def test_train_matches_hand_written_loop():
    net, _, model = _model()
    model.train(2, _dataset())

    ms.set_seed(1)
    ref = LeNet5()
    opt = nn.Momentum(ref.trainable_params(), learning_rate=0.05, momentum=0.9)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    vg = ms.value_and_grad(lambda x, y: loss_fn(ref(x), y), None, weights=opt.parameters)
    x, y = _digits()
    ref.set_train(True)
    for _ in range(2):
        for i in range(0, N_TRAIN, BATCH):
            _, grads = vg(ms.Tensor(x[i:i + BATCH]), ms.Tensor(y[i:i + BATCH]))
            opt(grads)
    got, want = _params(net), _params(ref)
    assert got.keys() == want.keys()
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=0, atol=1e-6, err_msg=k)
    init = _params(_model()[0])
    moved = sum(not np.allclose(init[k], want[k]) for k in want)
    assert moved == len(want)  # every parameter trained (the comparison is not vacuous)


class _Recorder(Callback):
    def __init__(self):
        self.events = []

    def on_train_begin(self, rc): self.events.append("train_begin")
    def on_train_epoch_begin(self, rc): self.events.append(f"epoch_begin{rc.original_args().cur_epoch_num}")
    def on_train_step_begin(self, rc): self.events.append("step_begin")

    def step_end(self, rc):  # the older name, reached through on_train_step_end
        cb = rc.original_args()
        self.events.append(f"step_end{cb.cur_step_num}")
        assert np.isfinite(float(cb.net_outputs.asnumpy()))

    def epoch_end(self, rc): self.events.append("epoch_end")
    def end(self, rc): self.events.append("train_end")


def test_callbacks_fire_in_order(capsys):
    _, _, model = _model()
    rec, tm = _Recorder(), TimeMonitor()
    model.train(2, _dataset(32), callbacks=[rec, LossMonitor(1), tm])
    step = ["step_begin", "step_end1", "step_begin", "step_end2"]
    assert rec.events == (["train_begin", "epoch_begin1"] + step + ["epoch_end", "epoch_begin2"]
                          + ["step_begin", "step_end3", "step_begin", "step_end4"] + ["epoch_end", "train_end"])
    out = capsys.readouterr().out
    assert out.count("loss is") == 4 and "epoch: 2 step: 2, loss is" in out
    assert out.count("per step time") == 2 and len(tm.epoch_times) == 2


def test_request_stop_ends_training():
    class Stop(Callback):
        def on_train_step_end(self, rc):
            if rc.original_args().cur_step_num == 3:
                rc.request_stop()
    _, _, model = _model()
    rec = _Recorder()
    model.train(5, _dataset(), callbacks=[Stop(), rec])
    assert [e for e in rec.events if e.startswith("step_end")][-1] == "step_end3"


def test_model_checkpoint_keeps_max_and_loads(tmp_path):
    net, _, model = _model()
    cfg = CheckpointConfig(save_checkpoint_steps=2, keep_checkpoint_max=3)
    ck = ModelCheckpoint(prefix="lenet", directory=str(tmp_path), config=cfg)
    model.train(3, _dataset(), callbacks=[ck])  # 12 steps: saves at 2,4,...,12 -> keeps the last 3
    files = sorted(os.listdir(tmp_path))
    assert files == ["lenet-2_4.ckpt", "lenet-3_2.ckpt", "lenet-3_4.ckpt"]
    loaded = load_checkpoint(str(tmp_path / "lenet-3_4.ckpt"))
    for name, value in _params(net).items():
        np.testing.assert_array_equal(loaded[name].asnumpy(), value)
    assert "moments.conv1.weight" in loaded and "global_step" in loaded  # optimizer state too
    np.testing.assert_array_equal(loaded["moments.conv1.weight"].asnumpy(),
                                  model.train_network.optimizer.moments[0].asnumpy())
    # a second run into the same directory must not overwrite: MindSpore switches to prefix_1
    ck2 = ModelCheckpoint(prefix="lenet", directory=str(tmp_path), config=cfg)
    model.train(1, _dataset(32), callbacks=[ck2])
    assert "lenet_1-1_2.ckpt" in os.listdir(tmp_path) and len(os.listdir(tmp_path)) == 4


def test_eval_returns_metrics():
    net, _, model = _model()
    model.train(2, _dataset())
    res = model.eval(_dataset(48, start=1000))
    assert set(res) == {"accuracy", "loss"}
    x, y = _digits(48, start=1000)
    logits = model.predict(ms.Tensor(x)).asnumpy()
    assert abs(res["accuracy"] - float(np.mean(logits.argmax(1) == y))) < 1e-12
    lse = np.log(np.exp(logits - logits.max(1, keepdims=True)).sum(1)) + logits.max(1)
    per_batch = [np.mean(lse[i:i + BATCH] - logits[np.arange(i, i + BATCH), y[i:i + BATCH]])
                 for i in range(0, 48, BATCH)]
    assert abs(res["loss"] - np.mean(per_batch)) < 1e-5


def test_initial_epoch_resume_equals_uninterrupted(tmp_path):
    net, _, model = _model()
    model.train(3, _dataset())
    want = _params(net)

    net_a, _, model_a = _model()
    ck = ModelCheckpoint(prefix="r", directory=str(tmp_path),
                         config=CheckpointConfig(save_checkpoint_steps=4, keep_checkpoint_max=1))
    model_a.train(2, _dataset(), callbacks=[ck])
    path = str(tmp_path / "r-2_4.ckpt")
    assert os.listdir(tmp_path) == ["r-2_4.ckpt"]

    net_b, opt_b, model_b = _model(seed=99)  # different initial weights: all must come from the file
    not_loaded = ms.load_param_into_net(model_b.train_network, ms.load_checkpoint(path))
    assert not list(not_loaded[0] if isinstance(not_loaded, tuple) else not_loaded)
    model_b.train(3, _dataset(), initial_epoch=2)
    got = _params(net_b)
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=0, atol=1e-6, err_msg=k)


def test_user_errors_are_clear():
    net, opt, model = _model()
    with pytest.raises(ValueError, match="initial_epoch"):
        model.train(1, _dataset(16), initial_epoch=1)
    with pytest.raises(TypeError, match=r"callbacks\[0\]"):
        model.train(1, _dataset(16), callbacks=[print])
    with pytest.raises(KeyError, match="unsupported metric acuracy"):   # 2.10's type (measured)
        Model(net, nn.MSELoss(), opt, metrics={"acuracy"})


def test_progress_bar_on_a_terminal():
    import io
    from graphcell.train import ProgressBar

    class Tty(io.StringIO):
        def isatty(self):
            return True

    stream = Tty()
    assert ProgressBar.wanted(stream) and not ProgressBar.wanted(io.StringIO())
    _, _, model = _model()
    model.train(1, _dataset(32), callbacks=[ProgressBar(stream)])
    out = stream.getvalue()
    assert "2/2" in out and "loss" in out and "samples/s" in out


def test_switching_train_and_eval_reuses_compiled_steps():
    # set_train(False)/set_train(True) between epochs must not retrace/recompile the steps
    _, _, model = _model()
    for _ in range(3):
        model.train(1, _dataset(32))
        model.eval(_dataset(32, start=1000))
    assert model._train_step.cache_size == 1 and model._eval_step.cache_size == 1


def test_eval_and_predict_leave_the_network_in_inference_mode():
    """As MindSpore's Model.eval/predict (set_train(False), not restored): a later direct call of
    the network must not normalise with batch statistics or update BatchNorm's moving averages."""
    net = nn.SequentialCell([nn.Flatten(), nn.Dense(1024, 8), nn.BatchNorm1d(8), nn.Dense(8, 10)])
    opt = nn.SGD(net.trainable_params(), 0.01)
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"), opt, metrics={"accuracy"})
    x, y = _digits(32)
    data = ds.NumpySlicesDataset((x, y), column_names=["image", "label"], shuffle=False).batch(16)
    for finish in (lambda: model.eval(data), lambda: model.predict(ms.Tensor(x[:4]))):
        model.train(1, data)
        assert net.training
        finish()
        assert not net.training
        moving = net[2].moving_mean.asnumpy().copy()
        net(ms.Tensor(x[:4]))
        np.testing.assert_array_equal(net[2].moving_mean.asnumpy(), moving)


def test_jit_recompiles_once_per_training_mode():
    # the seed Trainer's pattern: a jitted step, and set_train(False)/(True) around eval each epoch
    ms.set_seed(3)
    net = nn.SequentialCell([nn.Dense(4, 4), nn.Dropout(p=0.5)])
    step = ms.jit(lambda x: net(x))
    x = ms.Tensor(np.ones((2, 4), np.float32))
    outs = {}
    for _ in range(3):
        for mode in (False, True):
            net.set_train(mode)
            outs.setdefault(mode, []).append(step(x).asnumpy())
    assert step.cache_size == 2
    net.set_train(False)
    np.testing.assert_allclose(outs[False][-1], net[0](x).asnumpy(), rtol=1e-6)  # eval: no dropout
    assert any((o == 0).any() for o in outs[True])  # train mode really drops


def test_training_on_no_batches_is_a_clear_error():
    """An empty epoch crashed ModelCheckpoint with ZeroDivisionError (and without callbacks
    trained nothing silently). sink_size: tests/test_model_sink_size.py."""
    net = nn.Dense(2, 1)
    model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.1))
    data = {"x": np.ones((5, 2), np.float32), "y": np.ones((5, 1), np.float32)}
    with pytest.raises(ValueError, match="the dataset has no batches"):
        model.train(1, ds.NumpySlicesDataset(data, shuffle=False).batch(8, drop_remainder=True))


def test_eval_without_metrics_gives_mindsporess_error():
    # 2.10's message (measured), also when the network has its loss inside and no loss_fn is given
    net = nn.Dense(3, 2)
    model = Model(nn.WithLossCell(net, nn.MSELoss()), optimizer=nn.SGD(net.trainable_params(), 0.1))
    with pytest.raises(ValueError, match=r"^For Model.eval, the model argument 'metrics' can not be None or empty"):
        model.eval(_dataset(8))


@pytest.mark.parametrize("kwargs, error, message", [   # measured on MindSpore 2.10
    ({"epoch": 0}, ValueError, "The input value must be int and must > 0, but got '0' with type 'int'."),
    ({"epoch": 1.5}, TypeError, "The input value must be int, but got 'float'"),
    ({"epoch": True}, TypeError, "The input value must be int and must > 0, but got 'True' with type 'bool'."),
    ({"epoch": 2, "initial_epoch": -1}, ValueError, "The input value must be int and must >= 0, but got '-1' with "
                                                    "type 'int'."),
    ({"epoch": 2, "initial_epoch": 2}, ValueError, "For 'Model.train', the parameter 'epoch' must bigger than "
                                                   "parameter 'initial_epoch', but got the parameter 'epoch' is 2, "
                                                   "'initial_epoch' is 2."),
])
def test_epoch_arguments_checked_as_mindspore(kwargs, error, message):
    net = nn.Dense(3, 2)
    model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.1))
    with pytest.raises(error) as info:
        model.train(train_dataset=_dataset(8), **kwargs)
    assert str(info.value) == message


def test_metrics_module_holds_every_metric_as_mindsporess_package():
    from graphcell.train.metrics import ConfusionMatrix, Dice, auc, get_metric_fn
    assert type(get_metric_fn("dice")) is Dice and callable(auc) and ConfusionMatrix.__name__ == "ConfusionMatrix"


def test_model_without_optimizer_runs_the_network_as_its_train_step(capsys):
    """2.10 (measured): Model(TrainOneStepCell(...)) trains with the user's whole step, and LossMonitor
    prints the first of a tuple of outputs as a float32 (`loss is 2.6330104`); with a loss_fn and no
    optimizer the loss network runs forward only (the same loss every step)."""
    from graphcell import Tensor
    x = np.linspace(-1, 1, 16, dtype=np.float32).reshape(4, 4)
    y = np.ones((4, 2), np.float32)
    data = lambda: ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(2)

    def step_cell():
        net = nn.Dense(4, 2, weight_init="ones", bias_init="zeros")
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1))
        return net, step

    class TupleStep(nn.Cell):
        def __init__(self, step):
            super().__init__()
            self.step = step

        def construct(self, a, b):
            loss = self.step(a, b)
            return loss, loss * 2

    net, step = step_cell()
    Model(TupleStep(step)).train(1, data(), callbacks=[LossMonitor()])
    ref_net, ref_step = step_cell()
    losses = [ref_step(Tensor(x[i:i + 2]), Tensor(y[i:i + 2])).asnumpy() for i in (0, 2)]
    np.testing.assert_allclose(net.weight.asnumpy(), ref_net.weight.asnumpy(), rtol=1e-6)
    want = "".join(f"epoch: 1 step: {i + 1}, loss is {np.float32(v)}\n" for i, v in enumerate(losses))
    assert capsys.readouterr().out == want
    net = nn.Dense(4, 2, weight_init="ones", bias_init="zeros")
    Model(net, nn.MSELoss()).train(1, data(), callbacks=[LossMonitor()])
    assert np.all(net.weight.asnumpy() == 1)

"""Model, callbacks and checkpoints as MindSpore 2.10: ModelCheckpoint's async saves, resumed
runs' file names, TimeMonitor's lines, LossMonitor's and CheckpointConfig's checks, the
optimizer's checkpoint order, amp O2/O3 output dtypes, and the stock callbacks EarlyStopping,
ReduceLROnPlateau, History, LambdaCallback, LearningRateScheduler. The expectations marked "2.10" were
measured on MindSpore 2.10 (CPU, PYNATIVE) with the same scripts; no MindSpore is needed here."""
import os
import re
import time

import numpy as np
import pytest

import graphcell as ms
import graphcell.dataset as ds
from graphcell import Tensor, nn
from graphcell.train import (Callback, CheckpointConfig, EarlyStopping, History, LambdaCallback, LearningRateScheduler,
                             LossMonitor, Model, ModelCheckpoint, ReduceLROnPlateau, RunContext, TimeMonitor,
                             load_checkpoint)
from graphcell.train.callback import new_cb_params


def _model(opt=None):
    net = nn.Dense(4, 3)
    opt = opt or nn.Momentum(net.trainable_params(), 0.1, 0.9)
    return net, Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"), opt,
                      metrics={"accuracy"})


def _data(rows=8, x=1.0):
    """4 batches of 2 (rows=8)."""
    return ds.NumpySlicesDataset({"x": np.full((rows, 4), x, np.float32), "y": np.zeros(rows, np.int32)},
                                 shuffle=False).batch(2)


def _loss_lines(text):
    return re.findall(r"^epoch: (\d+) step: (\d+), loss is ", text, re.M)


def _ckpt(directory, steps):
    return ModelCheckpoint("r", str(directory), CheckpointConfig(save_checkpoint_steps=steps, keep_checkpoint_max=20,
                                                                 append_info=["epoch_num", "step_num"]))


def _files(directory):
    return sorted(f for f in os.listdir(directory) if f.endswith(".ckpt"))


def _step_num(directory, name):
    return int(load_checkpoint(os.path.join(directory, name))["step_num"].asnumpy())


# -- ModelCheckpoint(async_save=True): the files are there when train() returns --------------------

@pytest.fixture
def slow_writes(monkeypatch):
    """Background writes take 0.4 s, so a save that is not waited for is visibly missing."""
    from graphcell.train import serialization
    write = serialization._write

    def slow(*args):
        time.sleep(0.4)
        write(*args)
    monkeypatch.setattr(serialization, "_write", slow)


def test_async_checkpoint_is_on_disk_when_train_returns(tmp_path, slow_writes):
    _, model = _model()
    ck = ModelCheckpoint("a", str(tmp_path), CheckpointConfig(save_checkpoint_steps=1000, async_save=True))
    model.train(1, _data(), callbacks=[ck])
    assert os.listdir(tmp_path) == ["a-1_4.ckpt"]      # 2.10: ['a-1_2.ckpt'] for its 2-step run
    assert len(load_checkpoint(ck.latest_ckpt_file_name)) == len(list(model.train_network.get_parameters()))


def test_async_checkpoint_is_on_disk_when_training_raises(tmp_path, slow_writes):
    class Interrupt(Callback):
        def on_train_step_end(self, rc):
            if rc.original_args().cur_step_num == 2:
                raise KeyboardInterrupt
    _, model = _model()
    ck = ModelCheckpoint("a", str(tmp_path), CheckpointConfig(save_checkpoint_steps=2, async_save=True))
    with pytest.raises(KeyboardInterrupt):
        model.train(1, _data(), callbacks=[ck, Interrupt()])
    assert _files(tmp_path) == ["a-1_2.ckpt"] and not [f for f in os.listdir(tmp_path) if f.startswith(".")]


# -- resumed runs: schedules count from the train call's start (2.10's file names) ------------------

def test_resumed_run_writes_the_file_names_of_mindspore(tmp_path, capsys):
    _, model = _model()
    model.train(3, _data(), callbacks=[LossMonitor(3), _ckpt(tmp_path, 3)], initial_epoch=1)
    # 2.10: ['r-2_3.ckpt', 'r-3_2.ckpt', 'r-3_4.ckpt'] and loss lines at epoch 2 step 3, epoch 3 step 2
    assert _files(tmp_path) == ["r-2_3.ckpt", "r-3_2.ckpt", "r-3_4.ckpt"]
    assert _loss_lines(capsys.readouterr().out) == [("2", "3"), ("3", "2")]
    # step_num is the global step (2.10 records 3, 6, 8: steps of this call), so that
    # set_init_step(step_num) resumes a resumed run at the right place
    assert [_step_num(tmp_path, f) for f in _files(tmp_path)] == [7, 10, 12]


def test_fresh_run_file_names(tmp_path, capsys):
    _, model = _model()
    model.train(3, _data(), callbacks=[LossMonitor(5), _ckpt(tmp_path, 3)])
    assert _files(tmp_path) == ["r-1_3.ckpt", "r-2_2.ckpt", "r-3_1.ckpt", "r-3_4.ckpt"]     # 2.10
    assert _loss_lines(capsys.readouterr().out) == [("2", "1"), ("3", "2")]                 # steps 5, 10


def test_callbacks_reused_by_a_second_train_call(tmp_path, capsys):
    _, model = _model()
    lm, ck = LossMonitor(3), _ckpt(tmp_path, 3)
    model.train(2, _data(), callbacks=[lm, ck])
    model.train(4, _data(), callbacks=[lm, ck], initial_epoch=2)
    # 2.10 prints these four lines too
    assert _loss_lines(capsys.readouterr().out) == [("1", "3"), ("2", "2"), ("3", "3"), ("4", "2")]
    # 2.10 saves nothing in the second call (its last-save step, 8, is never passed again as
    # its count restarts at 1); graphcell saves every 3 steps of it, as in the first
    assert _files(tmp_path) == ["r-1_3.ckpt", "r-2_2.ckpt", "r-2_4.ckpt", "r-3_3.ckpt", "r-4_2.ckpt", "r-4_4.ckpt"]


def test_resumed_mid_epoch_names_the_true_steps(tmp_path):
    _, model = _model()
    data = _data()
    data.set_init_step(5)      # epoch 2, after its first batch
    model.train(3, data, callbacks=[_ckpt(tmp_path, 3)], initial_epoch=1)
    # saved after 3, 6 and 7 steps of the call, as 2.10 saves; 2.10 names them r-2_3, r-3_2,
    # r-3_3 (its count restarts at 1 and forgets the first batch); these are global steps 8, 11, 12
    assert _files(tmp_path) == ["r-2_4.ckpt", "r-3_3.ckpt", "r-3_4.ckpt"]


# -- TimeMonitor ------------------------------------------------------------------------------------

_TIME = r"(\d+\.\d{3}) ms, per step time: (\d+\.\d{3}) ms"


def test_time_monitor_lines_as_mindspore(capsys):
    _, model = _model()
    model.train(1, _data(), callbacks=[TimeMonitor(data_size=2)])
    model.eval(_data(), callbacks=[TimeMonitor()])
    model.train(1, _data(), callbacks=[TimeMonitor(data_time=True)])
    lines = capsys.readouterr().out.splitlines()
    # 2.10: "Train epoch time: 938.631 ms, per step time: 234.658 ms" (4 steps: batch_num wins over data_size)
    train = re.fullmatch(f"Train epoch time: {_TIME}", lines[0])
    assert train and abs(float(train[1]) / 4 - float(train[2])) < 2e-3, lines[0]
    assert re.fullmatch(f"Eval epoch time: {_TIME}", lines[1]), lines[1]
    assert re.fullmatch(rf"Train epoch time: {_TIME} \(data time: \d+\.\d{{3}} ms\)", lines[2]), lines[2]


def test_time_monitor_falls_back_to_data_size_and_checks_its_arguments(capsys):
    tm = TimeMonitor(data_size=2)
    ctx = RunContext(type("NoBatchNum", (), {"mode": "train"})())
    tm.epoch_begin(ctx)
    tm.epoch_end(ctx)
    assert capsys.readouterr().out.startswith("Train epoch time: ")
    with pytest.raises(TypeError, match="data_time must be a bool"):   # 2.10: TypeError
        TimeMonitor(data_time=1)
    TimeMonitor(data_size=-1)      # 2.10 accepts it here and checks it when it is used
    with pytest.raises(ValueError, match="data_size"):
        bad = TimeMonitor(data_size=0)
        bad.epoch_begin(ctx)
        bad.epoch_end(ctx)


# -- LossMonitor and CheckpointConfig checks (types and exceptions of 2.10) ---------------------------

def test_loss_monitor_checks():
    # 2.10's messages (measured)
    with pytest.raises(ValueError, match=r"^The input value must be int and must >= 0, but got '-1' with type 'int'\.$"):
        LossMonitor(-1)
    with pytest.raises(TypeError, match=r"^The input value must be int, but got 'float'$"):
        LossMonitor(1.5)
    with pytest.raises(TypeError, match=r"^The input value must be int and must >= 0, but got 'True' with type 'bool'"):
        LossMonitor(True)
    _, model = _model()
    # 2.10's message
    with pytest.raises(ValueError, match=r"^In epoch: 1 step: 1, loss is NAN or INF, training process cannot "
                                         r"continue, terminating training\.$"):
        model.train(1, _data(x=np.nan), callbacks=[LossMonitor()])


@pytest.mark.parametrize("info, error, message", [
    (["bogus"], ValueError, r"must be in \['epoch_num', 'step_num'\], but got bogus"),
    ({"a": 1}, TypeError, "must be a list"),
    ("epoch_num", TypeError, "must be a list"),
    (("epoch_num",), TypeError, "must be a list"),
    ([1], TypeError, "must be str or dict"),
    ([{"a": 1}, {"b": 2}], TypeError, "only one dict"),
    ([{1: 1}], TypeError, "key type int"),
    ([{"a": [1]}], TypeError, "value type list"),
])
def test_append_info_is_validated_as_mindspore(info, error, message):
    with pytest.raises(error, match=message):
        CheckpointConfig(append_info=info)


def test_append_dict_as_mindspore():
    assert CheckpointConfig(append_info=["epoch_num", {"a": 1.5}, "step_num"]).append_dict == \
        {"epoch_num": 0, "step_num": 0, "a": 1.5}
    assert CheckpointConfig(append_info=[]).append_dict is None
    assert CheckpointConfig(append_info=[{"s": "text", "b": True}]).append_dict == {"s": "text", "b": True}


def test_append_info_reaches_the_file(tmp_path):
    _, model = _model()
    ck = ModelCheckpoint("a", str(tmp_path), CheckpointConfig(save_checkpoint_steps=4,
                                                              append_info=[{"lr": 0.5}, "step_num"]))
    model.train(1, _data(), callbacks=[ck])
    saved = load_checkpoint(ck.latest_ckpt_file_name)
    assert int(saved["step_num"].asnumpy()) == 4 and float(saved["lr"].asnumpy()) == 0.5
    assert list(saved)[-2:] == ["step_num", "lr"]      # 2.10 puts epoch_num/step_num first



@pytest.mark.parametrize("kwargs, expected", [   # measured on MindSpore 2.10: steps, seconds, keep_max, per_n_minutes
    ({}, (1, None, 5, None)),
    ({"save_checkpoint_steps": 4, "save_checkpoint_seconds": 10}, (4, None, 5, None)),
    ({"save_checkpoint_steps": None, "save_checkpoint_seconds": 10}, (None, 10, 5, None)),
    ({"keep_checkpoint_max": 0, "keep_checkpoint_per_n_minutes": 3}, (1, None, 0, 3)),
    ({"keep_checkpoint_max": 2, "keep_checkpoint_per_n_minutes": 3}, (1, None, 2, None)),
    ({"keep_checkpoint_max": None, "keep_checkpoint_per_n_minutes": None}, (1, None, 1, None)),
    ({"keep_checkpoint_max": 0}, (1, None, 1, 0)),
    ({"save_checkpoint_steps": 0, "save_checkpoint_seconds": 0}, (0, 0, 5, None)),
])
def test_checkpoint_config_schedules_as_mindspore(kwargs, expected):
    c = CheckpointConfig(**kwargs)
    assert (c.save_checkpoint_steps, c.save_checkpoint_seconds, c.keep_checkpoint_max,
            c.keep_checkpoint_per_n_minutes) == expected


def test_no_save_schedule_saves_nothing(tmp_path):
    # 2.10: CheckpointConfig(save_checkpoint_steps=None, save_checkpoint_seconds=None) is accepted and no
    # file is written, not even at the end of training
    _, model = _model()
    ck = ModelCheckpoint("a", str(tmp_path), CheckpointConfig(save_checkpoint_steps=None, save_checkpoint_seconds=None))
    model.train(1, _data(), callbacks=[ck])
    assert _files(tmp_path) == [] and ck.latest_ckpt_file_name is None

# -- the optimizer's Parameters in a checkpoint: MindSpore 2.10's order -------------------------------

_ORDER = {   # 2.10, a TrainOneStepCell over Dense(4, 3) ("fc"), after fc.weight and fc.bias
    ("SGD", "float"): ["global_step", "learning_rate", "momentum", "accum.fc.weight", "accum.fc.bias",
                       "stat.fc.weight", "stat.fc.bias"],
    ("SGD", "list"): ["global_step", "momentum", "accum.fc.weight", "accum.fc.bias", "stat.fc.weight",
                      "stat.fc.bias", "learning_rate"],
    ("Momentum", "float"): ["global_step", "learning_rate", "momentum", "moments.fc.weight", "moments.fc.bias"],
    ("Momentum", "list"): ["global_step", "momentum", "moments.fc.weight", "moments.fc.bias", "learning_rate"],
    ("Adam", "float"): ["global_step", "learning_rate", "beta1_power", "beta2_power", "moment1.fc.weight",
                        "moment1.fc.bias", "moment2.fc.weight", "moment2.fc.bias"],
    ("Adam", "list"): ["global_step", "beta1_power", "beta2_power", "moment1.fc.weight", "moment1.fc.bias",
                       "moment2.fc.weight", "moment2.fc.bias", "learning_rate"],
    ("AdamWeightDecay", "float"): ["global_step", "learning_rate", "adam_m.fc.weight", "adam_m.fc.bias",
                                   "adam_v.fc.weight", "adam_v.fc.bias"],
    ("AdamWeightDecay", "list"): ["global_step", "adam_m.fc.weight", "adam_m.fc.bias", "adam_v.fc.weight",
                                  "adam_v.fc.bias", "learning_rate"],
}
_MAKE = {"SGD": lambda p, lr: nn.SGD(p, learning_rate=lr), "Momentum": lambda p, lr: nn.Momentum(p, lr, 0.9),
         "Adam": lambda p, lr: nn.Adam(p, learning_rate=lr),
         "AdamWeightDecay": lambda p, lr: nn.AdamWeightDecay(p, learning_rate=lr)}
# a 0-d Tensor is ordered as a float, a 1-D Tensor as a list (2.10)
_LRS = {"float": lambda: 0.1, "list": lambda: [0.1, 0.2], "tensor0d": lambda: Tensor(0.1, ms.float32),
        "tensor1d": lambda: Tensor(np.array([0.1, 0.2], np.float32))}


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 3)

    def construct(self, x):
        return self.fc(x)


@pytest.mark.parametrize("opt", sorted(_MAKE))
@pytest.mark.parametrize("lr", sorted(_LRS))
def test_train_network_checkpoint_order_as_mindspore(tmp_path, opt, lr):
    net = _Net()
    train = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), _MAKE[opt](net.trainable_params(), _LRS[lr]()))
    ms.save_checkpoint(train, str(tmp_path / "t.ckpt"))
    want = _ORDER[opt, "float" if lr in ("float", "tensor0d") else "list"]
    assert list(load_checkpoint(str(tmp_path / "t.ckpt"))) == ["fc.weight", "fc.bias"] + want


def test_a_list_learning_rate_still_steps_through_its_table():
    net = _Net()
    opt = nn.SGD(net.trainable_params(), learning_rate=[0.5, 0.25])
    w = net.fc.weight.asnumpy().copy()
    grads = tuple(Tensor(np.ones(p.shape, np.float32)) for p in net.trainable_params())
    opt(grads)
    opt(grads)
    np.testing.assert_allclose(net.fc.weight.asnumpy(), w - 0.75, atol=1e-6)


# -- amp O2/O3: the network returns float16, as MindSpore 2.10's -------------------------------------

class _BNNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 3)
        self.bn = nn.BatchNorm1d(3)

    def construct(self, x):
        return self.bn(self.fc(x))


@pytest.mark.parametrize("level", ["O2", "O3"])
@pytest.mark.parametrize("make", [lambda: nn.Dense(4, 3), _BNNet], ids=["Dense", "BN"])
def test_model_amp_outputs_float16_as_mindspore(level, make):
    net = make()
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                  nn.Momentum(net.trainable_params(), 0.1, 0.9), metrics={"accuracy"}, amp_level=level)
    x = Tensor(np.ones((2, 4), np.float32))
    assert model.predict(x).dtype == ms.float16      # 2.10: Float16 (graphcell gave Float32)
    assert net(x).dtype == ms.float16                # 2.10: Float16
    loss = model.train_network(x, Tensor(np.zeros(2, np.int32)))
    assert loss.dtype == ms.float32                  # 2.10: the loss is computed in float32
    assert all(p.dtype == ms.float32 for p in net.get_parameters())
    _, logits, _ = model.eval_network(x, Tensor(np.zeros(2, np.int32)))
    assert logits.dtype == ms.float32                # 2.10: WithEvalCell(add_cast_fp32=True)
    if level == "O2" and make is _BNNet:             # Model.train and eval run through too
        model.train(1, _data())
        assert 0 <= model.eval(_data())["accuracy"] <= 1


def test_auto_mixed_precision_returns_a_float32_wrapper_as_mindspore():
    from graphcell.amp import auto_mixed_precision
    x = Tensor(np.ones((2, 4), np.float32))
    for level in ("O2", "O3"):
        net = _BNNet()
        names = [p.name for p in net.get_parameters()]
        out = auto_mixed_precision(net, level)
        # 2.10: an _OutputTo32 wrapper returning Float32; the network itself returns Float16
        assert out is not net and out(x).dtype == ms.float32 and net(x).dtype == ms.float16
        assert [p.name for p in out.get_parameters()] == names
        np.testing.assert_allclose(out(x).asnumpy(), net(x).asnumpy().astype(np.float32))
        assert ms.jit(out)(x).dtype == ms.float32
    net = nn.Dense(4, 3)
    out = auto_mixed_precision(net, "O1")     # 2.10: a DenseOpt copy returning Float32
    assert out is not net and type(out).__name__ == "DenseOpt" and out(x).dtype == ms.float32


def test_model_amp_needs_an_optimizer_as_mindspore():
    with pytest.raises(ValueError, match="needs an optimizer"):
        Model(nn.Dense(4, 3), nn.MSELoss(), amp_level="O2")



# -- EarlyStopping, ReduceLROnPlateau, History, LambdaCallback, LearningRateScheduler -----------------
# Driven with the same epoch losses as on MindSpore 2.10; the expectations are 2.10's results.


_LOSSES = [1.0, 0.9, 0.95, 0.92, 0.91, 0.99, 1.2]


def _epochs(cb, losses, optimizer=None, eval_results=False):
    """[(epoch, stop requested, learning rate)] after each epoch end, until a stop."""
    net = nn.Dense(2, 1)
    p = new_cb_params(cur_epoch_num=0, cur_step_num=0, net_outputs=None, train_network=net, optimizer=optimizer,
                      batch_num=1)
    rc = RunContext(p)
    cb.on_train_begin(rc)
    out = []
    for epoch, loss in enumerate(losses, 1):
        p.cur_epoch_num, p.cur_step_num, p.net_outputs = epoch, epoch, Tensor(np.float32(loss))
        if eval_results:
            p.eval_results = {"eval_loss": loss, "acc": 1 - loss}
        cb.on_train_epoch_end(rc)
        lr = None if optimizer is None else round(float(optimizer.learning_rate.asnumpy()), 7)
        out.append((epoch, rc.get_stop_requested(), lr))
        if rc.get_stop_requested():
            break
    cb.on_train_end(rc)
    return out


@pytest.mark.parametrize("make, eval_results, stop_epoch", [
    (lambda: EarlyStopping(monitor="loss", patience=0), False, 1),     # an epoch counts before the test
    (lambda: EarlyStopping(monitor="loss", patience=1), False, 3),
    (lambda: EarlyStopping(monitor="loss", patience=2), False, 4),
    (lambda: EarlyStopping(monitor="loss", patience=1, min_delta=0.05), False, 3),
    (lambda: EarlyStopping(monitor="loss", patience=1, mode="max"), False, 2),
    (lambda: EarlyStopping(monitor="loss", patience=2, baseline=0.5), False, 2),
    (lambda: EarlyStopping(patience=1), False, None),                  # no eval_loss: never stops
    (lambda: EarlyStopping(patience=1), True, 3),
    (lambda: EarlyStopping(monitor="acc", patience=1), True, 3),        # auto: accuracy is maximised
])
def test_early_stopping_as_mindspore(make, eval_results, stop_epoch):
    got = _epochs(make(), _LOSSES, eval_results=eval_results)
    stops = [e for e, stop, _ in got if stop]
    assert stops == ([stop_epoch] if stop_epoch else []) and len(got) == (stop_epoch or len(_LOSSES))


def test_early_stopping_verbose_and_restores_the_best_weights(capsys):
    cb = EarlyStopping(monitor="loss", patience=1, verbose=True, restore_best_weights=True)
    net = nn.Dense(2, 1)
    p = new_cb_params(cur_epoch_num=0, net_outputs=None, train_network=net)
    rc = RunContext(p)
    cb.on_train_begin(rc)
    for epoch, (loss, w) in enumerate([(1.0, 1.0), (0.5, 2.0), (0.7, 3.0)], 1):
        net.weight.set_data(np.full((1, 2), w, np.float32))
        p.cur_epoch_num, p.net_outputs = epoch, Tensor(np.float32(loss))
        cb.on_train_epoch_end(rc)
    cb.on_train_end(rc)
    assert rc.get_stop_requested() and np.all(net.weight.asnumpy() == 2.0)    # epoch 2's weights
    # 2.10's lines
    assert capsys.readouterr().out == ("Restoring model weights from the end of the best epoch.\n"
                                       "Epoch 00003: early stopping\n")


def _momentum(lr=0.1):
    return nn.Momentum(nn.Dense(2, 1).trainable_params(), lr, 0.9)


@pytest.mark.parametrize("make, losses, lrs", [
    (lambda: ReduceLROnPlateau(monitor="loss", patience=1, factor=0.5), _LOSSES,
     [0.1, 0.1, 0.05, 0.025, 0.0125, 0.00625, 0.003125]),
    (lambda: ReduceLROnPlateau(monitor="loss", patience=0, factor=0.5), _LOSSES,
     [0.1, 0.1, 0.05, 0.025, 0.0125, 0.00625, 0.003125]),
    (lambda: ReduceLROnPlateau(monitor="loss", patience=1, factor=0.5, cooldown=2), _LOSSES + [1.3, 1.4, 1.5],
     [0.1, 0.1, 0.05, 0.05, 0.025, 0.025, 0.0125, 0.0125, 0.00625, 0.00625]),
    (lambda: ReduceLROnPlateau(monitor="loss", patience=0, factor=0.5, min_lr=0.04), [1, 2, 3, 4, 5],
     [0.1, 0.05, 0.04, 0.04, 0.04]),
])
def test_reduce_lr_on_plateau_as_mindspore(make, losses, lrs):
    got = [lr for _, _, lr in _epochs(make(), losses, _momentum())]
    np.testing.assert_allclose(got, lrs, rtol=1e-6)


def test_reduce_lr_on_plateau_checks_as_mindspore(capsys):
    _epochs(ReduceLROnPlateau(monitor="loss", patience=1, factor=0.5, verbose=True), _LOSSES[:3], _momentum())
    assert capsys.readouterr().out == "Epoch 00003: ReduceLROnPlateau reducing learning rate to 0.05.\n"   # 2.10
    with pytest.raises(ValueError, match="does not support dynamic learning rate"):
        _epochs(ReduceLROnPlateau(monitor="loss"), _LOSSES, _momentum([0.1, 0.2]))
    with pytest.raises(ValueError, match="factor"):
        ReduceLROnPlateau(factor=1.0)
    with pytest.raises(TypeError, match="factor"):       # 2.10: an int factor is a TypeError
        ReduceLROnPlateau(factor=0)
    with pytest.raises(TypeError, match="min_lr"):
        ReduceLROnPlateau(min_lr="a")
    with pytest.raises(ValueError, match="mode should be 'auto', 'min' or 'max'"):
        EarlyStopping(mode="x")
    with pytest.raises(ValueError, match="must be int and must >= 0, but got '-1'"):   # 2.10's message
        EarlyStopping(patience=-1)
    for kwargs in ({"min_delta": "a"}, {"monitor": 1}, {"verbose": 1}):
        with pytest.raises(TypeError):
            EarlyStopping(**kwargs)


def test_learning_rate_scheduler_as_mindspore():
    def run(fn, lr):
        opt = _momentum(lr)
        cb = LearningRateScheduler(fn)
        p = new_cb_params(cur_step_num=0, optimizer=opt, net_outputs=None)
        out = []
        for step in range(1, 5):
            p.cur_step_num = step
            cb.step_end(RunContext(p))
            out.append(float(opt.learning_rate.asnumpy()))
        return out
    np.testing.assert_allclose(run(lambda lr, step: lr * 0.5 if step % 2 == 0 else lr, 0.1),
                               [0.1, 0.05, 0.05, 0.025], rtol=1e-6)             # 2.10
    assert run(lambda lr, step: lr, 1 / 3) == [np.float32(1 / 3)] * 4


def test_learning_rate_scheduler_in_model_train():
    net, model = _model()
    seen = []
    model.train(1, _data(), callbacks=[LearningRateScheduler(lambda lr, step: seen.append((step, lr)) or lr * 0.5)])
    assert [s for s, _ in seen] == [1, 2, 3, 4]
    np.testing.assert_allclose([lr for _, lr in seen], [0.1, 0.05, 0.025, 0.0125], rtol=1e-6)
    np.testing.assert_allclose(float(model.train_network.optimizer.learning_rate.asnumpy()), 0.00625, rtol=1e-6)


def test_history_as_mindspore():
    h = History()
    p = new_cb_params(cur_epoch_num=1, net_outputs=Tensor(np.array([1.0, 3.0], np.float32)))
    rc = RunContext(p)
    h.begin(rc)
    h.epoch_end(rc)
    p.cur_epoch_num, p.net_outputs, p.metrics = 2, (Tensor(np.float32(5)), Tensor(np.float32(7))), {"acc": 0.5}
    h.epoch_end(rc)
    assert h.history == {"net_output": [2.0, 5.0], "acc": [0.5]} and h.epoch == {"epoch": [1, 2]}     # 2.10


def test_history_and_lambda_callback_in_model_train():
    _, model = _model()
    seen = []
    h = History()
    model.train(2, _data(), callbacks=[h, LambdaCallback(on_train_epoch_end=lambda rc: seen.append("ee"),
                                                         on_train_step_end=lambda rc: seen.append("se"))])
    assert h.epoch == {"epoch": [1, 2]} and len(h.history["net_output"]) == 2
    assert seen == ["se"] * 4 + ["ee"] + ["se"] * 4 + ["ee"]


def test_top_level_exports_as_mindspore():
    import graphcell.train as train
    for name in ("LossMonitor", "TimeMonitor", "ModelCheckpoint", "CheckpointConfig", "Callback", "RunContext",
                 "EarlyStopping", "History", "LambdaCallback", "LearningRateScheduler", "ReduceLROnPlateau"):
        assert getattr(ms, name) is getattr(train, name), name
    assert train.Accuracy is __import__("graphcell.train.metrics", fromlist=["x"]).Accuracy

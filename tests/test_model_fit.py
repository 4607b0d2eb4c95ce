"""Model.fit: training with validation every `valid_frequency` epochs, as MindSpore 2.10's.

References: hook sequences, printed lines, losses and metrics measured on MindSpore 2.10 (CPU)
with the same Dense(4, 3), weights, data and SGD (literals below); numpy losses and accuracy
computed from the network's own weights; Model.train for the training itself."""
import re

import numpy as np
import pytest

import graphcell as ms
from graphcell import dataset as ds
from graphcell import nn
from graphcell.train import (Callback, EarlyStopping, History, LambdaCallback, LossMonitor, Model, TimeMonitor)

X = np.random.RandomState(0).randn(12, 4).astype(np.float32)   # as measured on MindSpore
Y = (np.arange(12) % 3).astype(np.int32)
W_INIT = np.array([[0.1, -0.2, 0.3, 0.0], [0.2, 0.1, -0.1, 0.3], [-0.3, 0.2, 0.1, 0.1]], np.float32)
HOOKS = ["on_train_begin", "on_train_epoch_begin", "on_train_step_begin", "on_train_step_end", "on_train_epoch_end",
         "on_train_end", "on_eval_begin", "on_eval_epoch_begin", "on_eval_step_begin", "on_eval_step_end",
         "on_eval_epoch_end", "on_eval_end"]


def _data(x, y, n=12):
    return ds.NumpySlicesDataset((x[:n], y[:n]), column_names=["x", "y"], shuffle=False).batch(4)


def _model(x=X):
    net = nn.Dense(4, 3, weight_init=ms.Tensor(W_INIT), bias_init="zeros")
    opt = nn.SGD(net.trainable_params(), 0.1)
    return net, Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"), opt,
                      metrics={"acc", "loss"})


class Recorder(Callback):
    """Records (hook, mode, epoch, step, batch_num, metrics?, eval_results?) at every hook."""

    def __init__(self):
        self.events = []


for _hook in HOOKS:
    def _record(self, rc, _hook=_hook):
        cb = rc.original_args()
        self.events.append((_hook, cb.mode, cb.cur_epoch_num, cb.cur_step_num, cb.batch_num,
                            getattr(cb, "metrics", None) is not None, getattr(cb, "eval_results", None) is not None))
    setattr(Recorder, _hook, _record)


def _steps(hook, mode, epoch, steps, batch_num):
    out = []
    for s in steps:
        out += [(f"on_{hook}_step_begin", mode, epoch, s, batch_num, False, False),
                (f"on_{hook}_step_end", mode, epoch, s, batch_num, False, False)]
    return out


# fit(3, 2 training batches, 3 validation batches, valid_frequency=2), measured on MindSpore 2.10
# (its cur_epoch_num is unset at on_train_begin; graphcell's is initial_epoch, 0).
MS_FIT_EVENTS = (
    [("on_train_begin", "train", 0, 0, 2, False, False), ("on_train_epoch_begin", "train", 1, 0, 2, False, False)]
    + _steps("train", "train", 1, [1, 2], 2)
    + [("on_train_epoch_end", "train", 1, 2, 2, False, False), ("on_train_epoch_begin", "train", 2, 2, 2, False, False)]
    + _steps("train", "train", 2, [3, 4], 2)
    + [("on_eval_begin", "eval", 2, 0, 3, False, False), ("on_eval_epoch_begin", "eval", 2, 0, 3, False, False)]
    + _steps("eval", "eval", 2, [1, 2, 3], 3)
    # MindSpore sets metrics after on_eval_epoch_end, graphcell before it
    + [("on_eval_epoch_end", "eval", 2, 3, 3, True, True), ("on_eval_end", "eval", 2, 3, 3, True, True),
       ("on_train_epoch_end", "train", 2, 4, 2, True, True), ("on_train_epoch_begin", "train", 3, 4, 2, False, False)]
    + _steps("train", "train", 3, [5, 6], 2)
    + [("on_train_epoch_end", "train", 3, 6, 2, False, False), ("on_train_end", "train", 3, 6, 2, False, False)])


def test_fit_fires_mindspores_hooks_in_its_order():
    _, model = _model()
    rec = Recorder()
    assert model.fit(3, _data(X, Y, 8), _data(X, Y), valid_frequency=2, callbacks=[rec]) is None   # as 2.10
    assert rec.events == MS_FIT_EVENTS


# fit(4, ..., valid_frequency=[1, 3], callbacks=[History(), LossMonitor(1)]) on MindSpore 2.10:
MS_STEP_LOSSES = [1.1123661994934082, 0.725714921951294, 1.0496509075164795, 0.6767772436141968,
                  0.9978523254394531, 0.6374292969703674, 0.9545243382453918, 0.6047822833061218]
MS_METRICS = {1: {"acc": 0.3333333333333333, "loss": 0.9417303800582886},
              3: {"acc": 0.5833333333333334, "loss": 0.8973144094149271}}
MS_EVAL_AFTER = {"acc": 0.6666666666666666, "loss": 0.8836046655972799}


def _numpy_batch_losses(net):
    w, b = net.weight.asnumpy().astype(np.float64), net.bias.asnumpy().astype(np.float64)
    logits = X @ w.T + b
    lse = np.log(np.exp(logits - logits.max(1, keepdims=True)).sum(1)) + logits.max(1)
    per_sample = lse - logits[np.arange(12), Y]
    return per_sample.reshape(3, 4).mean(1), float(np.mean(logits.argmax(1) == Y))


def test_fit_metrics_losses_and_printed_lines_as_mindspore(capsys):
    net, model = _model()
    seen = []

    class Check(Callback):
        def on_train_epoch_end(self, rc):
            cb = rc.original_args()
            results = getattr(cb, "eval_results", None)
            seen.append((cb.cur_epoch_num, results))
            if results is not None:
                batch_losses, accuracy = _numpy_batch_losses(net)   # the weights validation saw
                assert results["acc"] == pytest.approx(accuracy, abs=1e-12)
                assert results["loss"] == pytest.approx(batch_losses.mean(), rel=1e-6)
                # the mean over the validation set (MindSpore 2.10 reports the last batch's loss)
                assert results["eval_loss"] == pytest.approx(batch_losses.mean(), rel=1e-6)
                assert abs(results["eval_loss"] - batch_losses[-1]) > 0.1

    history = History()
    model.fit(4, _data(X, Y, 8), _data(X, Y), valid_frequency=[1, 3],
              callbacks=[Check(), history, LossMonitor(1), TimeMonitor()])
    assert [epoch for epoch, results in seen if results is not None] == [1, 3]
    for epoch, results in seen:
        if results is not None:
            assert set(results) == {"acc", "loss", "eval_loss"}
            for k, v in MS_METRICS[epoch].items():
                assert results[k] == pytest.approx(v, rel=1e-6), (epoch, k)
    out = capsys.readouterr().out
    losses = [float(v) for v in re.findall(r"loss is ([\d.]+)", out)]
    np.testing.assert_allclose(losses, MS_STEP_LOSSES, rtol=1e-6)
    evals = re.findall(r"Eval result: epoch (\d), metrics: (\{.*\})", out)
    assert [int(e) for e, _ in evals] == [1, 3]
    assert out.count("Eval epoch time:") == 2 and out.count("Train epoch time:") == 4
    # the lines come in callback order at each epoch end, as in MindSpore
    assert out.index("Eval result: epoch 1") < out.index("Train epoch time") < out.index("epoch: 2 step: 1")
    assert history.epoch["epoch"] == [1, 2, 3, 4] and len(history.history["net_output"]) == 4
    assert history.history["acc"] == pytest.approx([MS_METRICS[1]["acc"], MS_METRICS[3]["acc"]])
    res = model.eval(_data(X, Y))
    assert res == pytest.approx(MS_EVAL_AFTER, rel=1e-6)


def test_fit_trains_as_train_does_and_reuses_its_compiled_steps():
    net_a, model_a = _model()
    model_a.fit(3, _data(X, Y, 8), _data(X, Y), valid_frequency=1)
    net_b, model_b = _model()
    model_b.train(3, _data(X, Y, 8))
    np.testing.assert_array_equal(net_a.weight.asnumpy(), net_b.weight.asnumpy())
    assert not np.allclose(net_a.weight.asnumpy(), W_INIT)
    assert model_a._train_step.cache_size == 1 and model_a._eval_step.cache_size == 1
    assert net_a.training   # validation's inference mode does not outlive it
    net_c, model_c = _model()
    model_c.fit(3, _data(X, Y, 8))   # no validation dataset: train
    np.testing.assert_array_equal(net_c.weight.asnumpy(), net_b.weight.asnumpy())


def test_only_user_callbacks_and_time_monitor_see_validation():
    """As MindSpore 2.10: LossMonitor, History, LambdaCallback, ... get no eval hooks in fit."""
    called = []
    lam = LambdaCallback(on_eval_end=lambda rc: called.append("lambda eval"),
                         on_train_epoch_end=lambda rc: called.append("lambda epoch"))
    history, rec = History(), Recorder()
    _, model = _model()
    model.fit(2, _data(X, Y, 8), _data(X, Y), callbacks=[lam, history, rec])
    assert called == ["lambda epoch", "lambda epoch"]
    assert history.epoch["epoch"] == [1, 2]   # History.begin/epoch_end did not run for validation
    assert sum(e[0] == "on_eval_end" for e in rec.events) == 2


def test_early_stopping_monitors_the_validation():
    _, model = _model()
    stop = EarlyStopping(monitor="acc", patience=1, mode="max")
    rec = Recorder()
    model.fit(10, _data(X, Y, 8), _data(X, Y), callbacks=[stop, rec])
    epochs = [e[2] for e in rec.events if e[0] == "on_train_epoch_end"]
    assert 1 < len(epochs) < 10 and stop.stopped_epoch == epochs[-1]


def test_request_stop_in_validation_ends_the_validation_only():
    class StopEval(Callback):
        def __init__(self):
            self.eval_steps = []

        def on_eval_step_end(self, rc):
            self.eval_steps.append(rc.original_args().cur_step_num)
            rc.request_stop()

    cb, rec = StopEval(), Recorder()
    _, model = _model()
    model.fit(2, _data(X, Y, 8), _data(X, Y), callbacks=[cb, rec])
    assert cb.eval_steps == [1, 1]   # one batch each validation, and training went on
    assert [e[2] for e in rec.events if e[0] == "on_train_epoch_end"] == [1, 2]
    net, model = _model()
    eval_cb = StopEval()
    res = model.eval(_data(X, Y), callbacks=[eval_cb])   # Model.eval too, as MindSpore's
    assert eval_cb.eval_steps == [1]
    assert res["loss"] == pytest.approx(_numpy_batch_losses(net)[0][0], rel=1e-6)   # the first batch's


def test_validation_after_a_stopped_epoch():
    """MindSpore validates the epoch a training callback stopped, then ends."""
    class Stop(Callback):
        def on_train_step_end(self, rc):
            rc.request_stop()

    rec = Recorder()
    _, model = _model()
    model.fit(3, _data(X, Y, 8), _data(X, Y), callbacks=[Stop(), rec])
    hooks = [e[0] for e in rec.events]
    assert hooks.count("on_train_step_end") == 1 and hooks.count("on_eval_end") == 1
    assert hooks[-2:] == ["on_train_epoch_end", "on_train_end"]


def test_fit_arguments_as_mindspore():
    net, model = _model()
    data = _data(X, Y, 8)
    for bad in ("a", (1, 2), 2.0):
        with pytest.raises(TypeError, match="the type of 'valid_frequency' must be a list or an integer"):
            model.fit(2, data, data, valid_frequency=bad)
    with pytest.raises(ValueError, match="'valid_frequency' must be an int >= 1"):   # 2.10: ZeroDivisionError
        model.fit(2, data, data, valid_frequency=0)
    no_metrics = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                       nn.SGD(net.trainable_params(), 0.1))
    with pytest.raises(ValueError, match="if valid_dataset is not None, the model argument 'metrics' can not be"):
        no_metrics.fit(1, data, data)
    no_metrics.fit(1, data)   # without validation, no metrics needed

    class Old(Callback):
        def epoch_end(self, rc):
            pass

    with pytest.raises(ValueError, match=r"For Old callback, \{'epoch_end'\} methods may not be supported"):
        model.fit(1, data, callbacks=[Old()])
    model.train(1, data, callbacks=[Old()])   # train takes them (2.10 warns)
    with pytest.raises(ValueError, match="For 'Model.fit', the parameter 'epoch' must bigger than parameter 'initial_epoch'"):
        model.fit(2, data, initial_epoch=2)
    with pytest.raises(TypeError, match="'valid_dataset_sink_mode' must be a bool"):
        model.fit(1, data, valid_dataset_sink_mode=1)

"""The training workflow of MindSpore's tutorials, audited against MindSpore 2.10.

Each program was run under MindSpore 2.10 (CPU, PyNative) and under graphcell with only the
imports changed, from the same initial weights; the literals below are 2.10's output.
"""
import io
import re
import contextlib

import numpy as np
import pytest

from graphcell import Tensor, nn
from graphcell import dataset as ds
from graphcell.train import Callback, LossMonitor, Model, TimeMonitor


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 2)

    def construct(self, x):
        return self.fc(x)


def _model():
    net = _Net()
    rng = np.random.RandomState(0)
    for p in net.get_parameters():   # the weights both frameworks started from
        p.set_data(Tensor((rng.randn(*p.shape) * 0.3).astype(np.float32)))
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                  nn.SGD(net.trainable_params(), 0.5), metrics={"acc", "loss"})
    return net, model


def _data(rows=10, batch=3):
    rng = np.random.RandomState(0)
    x = rng.randn(10, 3).astype(np.float32)
    y = (rng.rand(10) * 2).astype(np.int32)
    return ds.NumpySlicesDataset({"data": x[:rows], "label": y[:rows]}, shuffle=False).batch(batch)


def test_cb_params_is_a_dict_with_mindsporess_fields():
    """2.10's cb_params is a dict subclass (InternalCallbackParam): callbacks test `"x" in cb`,
    index it, iterate its items; the fields below are those 2.10 fills in (measured)."""
    seen = {}

    class Spy(Callback):
        def on_train_begin(self, run_context):
            cb = run_context.original_args()
            seen["type"] = type(cb).__name__
            seen["begin"] = {k: cb[k] for k in ("epoch_num", "batch_num", "cur_step_num", "mode", "device_number",
                                                "parallel_mode", "dataset_sink_mode", "train_dataset_element",
                                                "last_save_ckpt_step", "latest_ckpt_file")}
            seen["has"] = all(k in cb for k in ("train_network", "optimizer", "loss_fn", "train_dataset",
                                                "network", "list_callback"))
            seen["list_callback"] = cb.list_callback

        def on_train_step_begin(self, run_context):
            cb = run_context.original_args()
            seen.setdefault("elements", []).append([tuple(t.shape) for t in cb.train_dataset_element])

        def on_train_step_end(self, run_context):
            cb = run_context.original_args()
            assert cb["net_outputs"] is cb.net_outputs and dict(cb.items())["cur_step_num"] == cb.cur_step_num

        def on_eval_step_end(self, run_context):
            cb = run_context.original_args()
            seen["eval"] = (cb.mode, [tuple(t.shape) for t in cb.eval_dataset_element], cb.list_callback)

    _, model = _model()
    spy = Spy()
    model.train(1, _data(4, 2), callbacks=[spy], dataset_sink_mode=False)
    assert seen["type"] == "InternalCallbackParam"
    assert seen["begin"] == {"epoch_num": 1, "batch_num": 2, "cur_step_num": 0, "mode": "train", "device_number": 1,
                             "parallel_mode": "stand_alone", "dataset_sink_mode": False,
                             "train_dataset_element": None, "last_save_ckpt_step": None, "latest_ckpt_file": None}
    assert seen["has"] and spy in seen["list_callback"]
    assert seen["elements"] == [[(2, 3), (2,)], [(2, 3), (2,)]]
    model.eval(_data(4, 2), callbacks=[spy], dataset_sink_mode=False)
    assert seen["eval"] == ("eval", [(2, 3), (2,)], [spy])
    cb = _cb_params_of(model)
    with pytest.raises(AttributeError):
        cb.no_such_field


def test_sink_mode_reads_false_in_cb_params_as_on_a_mindspore_cpu():
    # 2.10 on a CPU (measured) feeds batch by batch and sets cb_params.dataset_sink_mode False; so does graphcell
    got = []

    class Grab(Callback):
        def on_train_step_end(self, run_context):
            got.append(run_context.original_args().dataset_sink_mode)

    _, model = _model()
    model.train(1, _data(4, 2), callbacks=[Grab()], dataset_sink_mode=True)
    assert got == [False, False]


def _cb_params_of(model):
    got = []

    class Grab(Callback):
        def on_train_end(self, run_context):
            got.append(run_context.original_args())

    model.train(1, _data(2, 2), callbacks=[Grab()], dataset_sink_mode=False)
    return got[0]


def test_train_losses_stop_request_and_initial_epoch_match_mindspore():
    """LossMonitor's lines (2.10's format and losses, measured), a stop requested at global step 5,
    and a run started at initial_epoch=1."""
    class StopAt5(Callback):
        def on_train_step_end(self, run_context):
            if run_context.original_args().cur_step_num == 5:
                run_context.request_stop()

    _, model = _model()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        model.train(3, _data(), callbacks=[StopAt5(), LossMonitor(1)], dataset_sink_mode=False)
    lines = out.getvalue().splitlines()
    want = [(1, 1, 0.593497633934021), (1, 2, 0.82405024766922), (1, 3, 0.5607300400733948),
            (1, 4, 0.3772801160812378), (2, 1, 0.8255087733268738)]
    assert [ln.split(",")[0] for ln in lines] == [f"epoch: {e} step: {s}" for e, s, _ in want]
    assert all(re.fullmatch(r"epoch: \d+ step: \d+, loss is \d\.\d+", ln) for ln in lines)
    np.testing.assert_allclose([float(ln.rsplit(" ", 1)[1]) for ln in lines], [w for *_, w in want], rtol=1e-5)

    _, model = _model()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        model.train(3, _data(), callbacks=[LossMonitor(2)], dataset_sink_mode=False, initial_epoch=1)
    want = [(2, 2, 0.82405024766922), (2, 4, 0.3772801160812378), (3, 2, 0.6837491989135742),
            (3, 4, 0.15945662558078766)]
    lines = out.getvalue().splitlines()
    assert [ln.split(",")[0] for ln in lines] == [f"epoch: {e} step: {s}" for e, s, _ in want]
    np.testing.assert_allclose([float(ln.rsplit(" ", 1)[1]) for ln in lines], [w for *_, w in want], rtol=1e-5)


def test_time_monitor_line():
    _, model = _model()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        model.train(1, _data(), callbacks=[TimeMonitor()], dataset_sink_mode=False)
    assert re.sub(r"[0-9.]+", "N", out.getvalue()) == "Train epoch time: N ms, per step time: N ms\n"


def test_per_batch_map_list_with_the_wrong_row_count_is_refused():
    """`y * 2` on the list of rows repeats the list: 2.10 refuses the batch (measured message)."""
    from graphcell.dataset import DatasetError
    d = ds.NumpySlicesDataset({"y": np.arange(10)}, shuffle=False)
    bad = d.batch(4, per_batch_map=lambda y, info: (y * 2,), input_columns=["y"])
    with pytest.raises(DatasetError, match=r"Invalid data, column: y expects: 4 rows returned from "
                                           r"'per_batch_map', got: 8"):
        list(bad.create_tuple_iterator(num_epochs=1))
    short = ds.NumpySlicesDataset({"y": np.arange(10)}, shuffle=False).batch(
        4, per_batch_map=lambda y, info: (list(y)[:2],), input_columns=["y"])
    with pytest.raises(RuntimeError, match="expects: 4 rows returned from 'per_batch_map', got: 2"):
        list(short.create_tuple_iterator(num_epochs=1))
    # an array is a finished batch (2.10 keeps a 2-row array for a 4-row batch as it is)
    ok = ds.NumpySlicesDataset({"y": np.arange(10)}, shuffle=False).batch(
        4, per_batch_map=lambda y, info: (np.array(y)[:2],), input_columns=["y"])
    assert [r[0].tolist() for r in ok.create_tuple_iterator(output_numpy=True, num_epochs=1)] == [[0, 1], [4, 5], [8, 9]]


@pytest.mark.parametrize("make, want", [
    (lambda p: nn.Momentum(p, 0.1, 0.9),
     ["global_step", "learning_rate", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias", "momentum",
      "moments.fc1.weight", "moments.fc1.bias", "moments.fc2.weight", "moments.fc2.bias"]),
    (lambda p: nn.Momentum([{"params": [q for q in p if "weight" in q.name], "weight_decay": 0.01},
                            {"params": [q for q in p if "weight" not in q.name], "lr": 0.05}], 0.1, 0.9),
     ["global_step", "learning_rate", "learning_rate_group_1", "fc1.weight", "fc2.weight", "fc1.bias", "fc2.bias",
      "momentum", "moments.fc1.weight", "moments.fc2.weight", "moments.fc1.bias", "moments.fc2.bias"]),
    (lambda p: nn.Adam(p, [0.1, 0.05]),
     ["global_step", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias", "beta1_power", "beta2_power",
      "moment1.fc1.weight", "moment1.fc1.bias", "moment1.fc2.weight", "moment1.fc2.bias", "moment2.fc1.weight",
      "moment2.fc1.bias", "moment2.fc2.weight", "moment2.fc2.bias", "learning_rate"]),
    (lambda p: nn.Adagrad(p),
     ["global_step", "learning_rate", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias", "accum.fc1.weight",
      "accum.fc1.bias", "accum.fc2.weight", "accum.fc2.bias"]),
])
def test_an_optimizer_saved_alone_lists_mindspores_order(tmp_path, make, want):
    """save_checkpoint(optimizer): 2.10 writes global_step and the rates before the weights (measured)."""
    from graphcell import load_checkpoint, save_checkpoint

    class Two(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(2, 2)
            self.fc2 = nn.Dense(2, 1)

    opt = make(Two().trainable_params())
    save_checkpoint(opt, str(tmp_path / "o.ckpt"))
    assert list(load_checkpoint(str(tmp_path / "o.ckpt"))) == want


def test_model_with_metrics_but_no_way_to_evaluate_is_refused_when_built():
    """2.10 raises in Model() itself, not at the first eval (measured message, first line)."""
    with pytest.raises(ValueError, match=r"If `metrics` is set, `eval_network` must not be None\. Do not set "
                                         r"`metrics` if you don't want an evaluation\."):
        Model(_Net(), metrics={"acc"})
    Model(_Net())   # no metrics: a Model for predict only is fine

"""Model.train / Model.fit with dataset_sink_mode=True and sink_size=k: epochs of k steps, the
data running on across them (MindSpore's documented semantics for a device).

MindSpore 2.10's CPU build does not do this (measured on 5 rows, sink_size=3, 4 epochs: it runs
all 5 rows every epoch, 20 steps, while reporting batch_num 3, and LossMonitor prints
"epoch: 1 step: 1, 2, 3, 1, 2"); graphcell follows the documentation instead. References: the
row numbers themselves, a numpy SGD loop, the printed lines and file names worked out by hand.
"""
import numpy as np
import pytest

from graphcell import nn
from graphcell import dataset as ds
from graphcell.train import Callback, CheckpointConfig, LossMonitor, Model, ModelCheckpoint

ROWS = 5


def _numbered(n=ROWS, shuffle=False):
    """Row i: x = i, y = 2 i + 1."""
    return ds.GeneratorDataset(_Rows(n), ["x", "y"], shuffle=shuffle)


class _Rows:
    """A random-access source (so it can be shuffled)."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return np.array([float(i)], np.float32), np.array([2.0 * i + 1.0], np.float32)


class _Seen(Callback):
    """(epoch, global step, batch_num, sink mode as reported, row number) per step."""

    def __init__(self):
        self.steps, self.epoch_ends = [], []

    def on_train_step_begin(self, run_context):
        cb = run_context.original_args()
        self.steps.append((cb.cur_epoch_num, cb.cur_step_num, cb.batch_num, cb.dataset_sink_mode,
                           int(cb.train_dataset_element[0].asnumpy()[0])))

    def on_train_epoch_end(self, run_context):
        cb = run_context.original_args()
        self.epoch_ends.append((cb.cur_epoch_num, cb.cur_step_num, sorted(cb.get("metrics") or {})))


def _model(metrics=None):
    net = nn.Dense(1, 1, weight_init="ones", bias_init="zeros")
    return net, Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.01), metrics=metrics)


def test_epochs_of_sink_size_steps_run_on_through_the_data(tmp_path, capsys):
    net, model = _model()
    seen = _Seen()
    ck = ModelCheckpoint(prefix="p", directory=str(tmp_path), config=CheckpointConfig(save_checkpoint_steps=2))
    model.train(4, _numbered(), callbacks=[seen, LossMonitor(1), ck], dataset_sink_mode=True, sink_size=3)

    rows = [0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1]   # 4 epochs x 3 steps over passes of 5 rows
    assert seen.steps == [(s // 3 + 1, s + 1, 3, False, r) for s, r in enumerate(rows)]
    assert seen.epoch_ends == [(1, 3, []), (2, 6, []), (3, 9, []), (4, 12, [])]
    printed = [line.split(",")[0] for line in capsys.readouterr().out.splitlines() if line.startswith("epoch")]
    assert printed == [f"epoch: {e} step: {s}" for e in range(1, 5) for s in (1, 2, 3)]
    # saved after global steps 2, 4, ..., 12 (epoch, step in it); the default keep_checkpoint_max=5
    # has removed the first (p-1_2)
    assert sorted(p.name for p in tmp_path.glob("*.ckpt")) == ["p-2_1.ckpt", "p-2_3.ckpt", "p-3_2.ckpt",
                                                                "p-4_1.ckpt", "p-4_3.ckpt"]
    # the same 12 SGD steps in numpy: loss (w x + b - y)^2
    w, b = 1.0, 0.0
    for r in rows:
        err = w * r + b - (2.0 * r + 1.0)
        w, b = w - 0.01 * 2 * err * r, b - 0.01 * 2 * err
    np.testing.assert_allclose([net.weight.asnumpy().item(), net.bias.asnumpy().item()], [w, b], rtol=1e-5)


def test_resumed_sink_size_run_continues_the_stream_and_shuffles():
    """initial_epoch=E resumes at global step E * k; each dataset pass is reshuffled, and a
    resumed run reads the uninterrupted run's rows (same seed)."""
    import graphcell as ms

    def rows(initial_epoch):
        ms.set_seed(7)
        seen = _Seen()
        _model()[1].train(5, _numbered(shuffle=True), callbacks=[seen], dataset_sink_mode=True, sink_size=4,
                          initial_epoch=initial_epoch)
        return [(step, row) for _, step, _, _, row in seen.steps]

    whole, resumed = rows(0), rows(3)
    assert [s for s, _ in whole] == list(range(1, 21))
    assert resumed == whole[12:]
    passes = [sorted(r for _, r in whole[i:i + ROWS]) for i in range(0, 20, ROWS)]
    assert passes == [list(range(ROWS))] * 4
    assert len({tuple(r for _, r in whole[i:i + ROWS]) for i in range(0, 20, ROWS)}) > 1   # reshuffled


def test_sink_size_on_an_endless_repeat_and_in_fit():
    net, model = _model(metrics={"loss"})
    seen = _Seen()
    model.train(2, _numbered().repeat(), callbacks=[seen], dataset_sink_mode=True, sink_size=7)
    assert [row for *_, row in seen.steps] == [0, 1, 2, 3, 4] * 2 + [0, 1, 2, 3]

    # fit: validation after every epoch of sink_size steps (2.10's CPU: after 5 steps each)
    seen = _Seen()
    model.fit(2, _numbered(), _numbered(), callbacks=[seen], dataset_sink_mode=True, sink_size=3)
    assert [row for *_, row in seen.steps] == [0, 1, 2, 3, 4, 0]
    assert seen.epoch_ends == [(1, 3, ["loss"]), (2, 6, ["loss"])]
    # without sink mode sink_size is ignored (as in 2.10)
    seen = _Seen()
    model.train(1, _numbered(), callbacks=[seen], dataset_sink_mode=False, sink_size=3)
    assert [(b, row) for _, _, b, _, row in seen.steps] == [(5, r) for r in range(ROWS)]


@pytest.mark.parametrize("call, sink_size, error, message", [
    # MindSpore 2.10's types and messages (measured), in sink mode or not
    ("train", 0, ValueError, "For 'Model.train', The argument 'sink_size' must be -1 or positive, but got 0."),
    ("train", -2, ValueError, "For 'Model.train', The argument 'sink_size' must be -1 or positive, but got -2."),
    ("fit", 0, ValueError, "For 'Model.fit', The parameter 'sink_size' must be -1 or positive, but got 0."),
    ("train", 2.0, TypeError, "The type of input value must be 'int', but got 'float'."),
    ("fit", True, TypeError, "The type of input value must be 'int', but got 'bool'."),
])
def test_bad_sink_size_gives_mindsporess_errors(call, sink_size, error, message):
    _, model = _model()
    with pytest.raises(error) as info:
        getattr(model, call)(1, _numbered(), dataset_sink_mode=call == "fit", sink_size=sink_size)
    assert str(info.value) == message


def test_train_refuses_a_non_bool_sink_mode():
    with pytest.raises(TypeError, match=r"^The input value must be a bool, but got int\.$"):   # 2.10's (measured)
        _model()[1].train(1, _numbered(), dataset_sink_mode=1)

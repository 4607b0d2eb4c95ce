"""Nothing lost: an interrupted training loop leaves its last complete checkpoint loadable and
resumable to the same final parameters, and interrupted writes leave the previous file intact.

References: an uninterrupted `Model.train` run from the same seed (final parameters to 1e-6),
the bytes of the file before the failed write, onnxruntime on the surviving ONNX file.

Resuming, as in MindSpore: `load_checkpoint` + `load_param_into_net(model.train_network, ...)`
restores the weights *and* the optimizer state (Adam's moments, beta powers, global_step), and the
checkpoint's `epoch_num`/`step_num` (ModelCheckpoint's append_info) say where it was taken. A
checkpoint at an epoch end resumes with `Model.train(total, ds, initial_epoch=epoch_num)`. One
taken mid-epoch first finishes that epoch on the batches it has not seen,
`Model.train(epoch_num, ds.skip(steps_done), initial_epoch=epoch_num - 1)`, then continues with
`initial_epoch=epoch_num`; or, in one call, `ds.set_init_step(step_num)` and
`Model.train(total, ds, initial_epoch=epoch_num - 1)`. The iterator then counts epochs from the
resumed one, so a shuffled dataset replays the uninterrupted run's order (same dataset seed).
`CheckpointConfig(exception_save=True)` adds a breakpoint checkpoint of the last completed step
when the run raises.
"""
import os
import threading
import time

import numpy as np
import pytest

import graphcell as ms
from graphcell import dataset as ds
from graphcell import nn
from graphcell.train import (Callback, CheckpointConfig, Model, ModelCheckpoint, load_checkpoint,
                             load_param_into_net)
from graphcell.train import atomic
from tests.conftest import DATA

BATCH, STEPS, EPOCHS = 8, 5, 3          # 40 digits, 5 steps an epoch, 15 steps in all


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(64, 16)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(16, 10)

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


class _Batches:
    """Batch i of the first 40 digits. `fail_on_read=(k, what)` makes the k-th read overall (= global
    step k: batches are read in order) raise KeyboardInterrupt (what="interrupt") or carry int64
    labels that CrossEntropyLoss rejects when the step is traced for them (what="bad_labels")."""

    def __init__(self, fail_on_read=None):
        d = np.load(DATA / "digits.npz")
        self.x = (d["images"][:BATCH * STEPS].reshape(STEPS, BATCH, 64) / 16.0).astype(np.float32)
        self.y = d["labels"][:BATCH * STEPS].reshape(STEPS, BATCH).astype(np.int32)
        self.fail_on_read, self.reads = fail_on_read, 0

    def __len__(self):
        return STEPS

    def __getitem__(self, i):
        self.reads += 1
        y = self.y[i]
        if self.fail_on_read and self.reads == self.fail_on_read[0]:
            if self.fail_on_read[1] == "interrupt":
                raise KeyboardInterrupt
            y = y.astype(np.int64)
        return self.x[i], y


def _dataset(fail_on_read=None, shuffle=False):
    return ds.GeneratorDataset(_Batches(fail_on_read), ["x", "y"], shuffle=shuffle)


def _model(seed):
    ms.set_seed(seed)
    net = _Net()
    opt = nn.Adam(net.trainable_params(), learning_rate=0.01)
    return net, Model(net, nn.CrossEntropyLoss(), opt)


def _params(net):
    return {p.name: p.asnumpy().copy() for p in net.get_parameters()}


@pytest.fixture(scope="module")
def uninterrupted():
    net, model = _model(seed=3)
    model.train(EPOCHS, _dataset())
    return _params(net)


def _checkpointer(directory, every):
    return ModelCheckpoint("net", str(directory), CheckpointConfig(save_checkpoint_steps=every, keep_checkpoint_max=2,
                                                                   append_info=["epoch_num", "step_num"]))


def _adam_steps(beta1_power) -> int:
    """Adam's update count t, from its state beta1_power = beta1^t (MindSpore's optimizer
    advances global_step only for a dynamic learning rate)."""
    return round(float(np.log(beta1_power.asnumpy())) / np.log(0.9))


def _resume(path):
    """A fresh model (other initial weights: everything must come from the file) resumed from `path`."""
    net, model = _model(seed=99)
    params = load_checkpoint(path)
    epoch, step = int(params["epoch_num"].asnumpy()), int(params["step_num"].asnumpy())
    not_loaded, _ = load_param_into_net(model.train_network, params)
    assert not_loaded == []
    done_in_epoch = step - (epoch - 1) * STEPS
    if done_in_epoch < STEPS:
        model.train(epoch, _dataset().skip(done_in_epoch), initial_epoch=epoch - 1)
    if epoch < EPOCHS:
        model.train(EPOCHS, _dataset(), initial_epoch=epoch)
    return _params(net)


def _resume_shuffled(path):
    """`_resume` for a shuffled dataset, in one call: set_init_step at the file's global step.
    The dataset seed is the interrupted run's (3); the weights are seeded otherwise (99)."""
    net, model = _model(seed=99)
    ds.config.set_seed(3)
    params = load_checkpoint(path)
    step = int(params["step_num"].asnumpy())
    assert load_param_into_net(model.train_network, params)[0] == []
    dataset = _dataset(shuffle=True)
    dataset.set_init_step(step)
    model.train(EPOCHS, dataset, initial_epoch=step // STEPS)
    return _params(net)


def _assert_same_params(got, want, atol=1e-6):
    assert got.keys() == want.keys()
    for name in want:
        np.testing.assert_allclose(got[name], want[name], rtol=0, atol=atol, err_msg=name)


class _InterruptAt(Callback):
    def __init__(self, step, hook):
        self.step, self.hook = step, hook

    def on_train_step_begin(self, rc):
        if self.hook == "step_begin" and rc.original_args().cur_step_num == self.step:
            raise KeyboardInterrupt

    def on_train_step_end(self, rc):
        if self.hook == "step_end" and rc.original_args().cur_step_num == self.step:
            raise KeyboardInterrupt


# (how the run is interrupted, at which global step, checkpoint every N steps) -> last checkpoint's step
CASES = {
    "KeyboardInterrupt in a callback, mid-epoch 2": ("callback_step_end", 8, 3, 6),
    "KeyboardInterrupt in a callback, first step of epoch 3, epoch-end checkpoints": ("callback_step_begin", 11, 5, 10),
    "KeyboardInterrupt from the dataset, mid-epoch 3": ("dataset", 14, 4, 12),
    "TypeError from the loss (int64 labels), mid-epoch 2": ("loss", 9, 2, 8),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_interrupted_training_resumes_to_the_uninterrupted_parameters(tmp_path, uninterrupted, case):
    how, at, every, last_saved = CASES[case]
    net, model = _model(seed=3)
    ck = _checkpointer(tmp_path, every)
    callbacks = [ck]
    if how.startswith("callback"):
        callbacks.append(_InterruptAt(at, how.split("_", 1)[1]))
    dataset = _dataset({"dataset": (at, "interrupt"), "loss": (at, "bad_labels")}.get(how))
    expected = KeyboardInterrupt if how != "loss" else TypeError
    with pytest.raises(expected) as e:
        model.train(EPOCHS, dataset, callbacks=callbacks)
    if how == "loss":
        assert "CrossEntropyLoss" in str(e.value) and "Int32" in str(e.value)

    # Only complete checkpoints are left: the two newest (keep_checkpoint_max=2), no temp files.
    files = sorted(os.listdir(tmp_path))
    assert all(f.endswith(".ckpt") and not f.startswith(".") for f in files), files
    assert len(files) == 2
    for f in files:
        load_checkpoint(str(tmp_path / f))                     # each one loads
    latest = load_checkpoint(ck.latest_ckpt_file_name)
    assert int(latest["step_num"].asnumpy()) == last_saved
    # Adam's state is in it: its step count (beta1_power = 0.9^t) and moments
    assert _adam_steps(latest["beta1_power"]) == last_saved
    assert "moment1.fc1.weight" in latest and "moment2.fc2.bias" in latest and "beta2_power" in latest
    # in memory, the run stopped between steps: the failed step (loss, dataset) updated nothing
    completed = {"callback_step_end": at, "callback_step_begin": at - 1}.get(how, at - 1)
    assert _adam_steps(model.train_network.optimizer.beta1_power) == completed

    got = _resume(ck.latest_ckpt_file_name)
    assert got.keys() == uninterrupted.keys()
    for name in uninterrupted:
        np.testing.assert_allclose(got[name], uninterrupted[name], rtol=0, atol=1e-6, err_msg=name)


def test_resume_is_not_vacuous(uninterrupted):
    """Without the optimizer state (weights only), the resumed run ends somewhere else."""
    net, model = _model(seed=3)
    model.train(1, _dataset())
    weights = {p.name: p for p in net.get_parameters()}
    net_b, model_b = _model(seed=99)
    load_param_into_net(net_b, {k: ms.Parameter(v.asnumpy(), name=k) for k, v in weights.items()})
    model_b.train(EPOCHS, _dataset(), initial_epoch=1)
    got = _params(net_b)
    assert max(np.abs(got[k] - uninterrupted[k]).max() for k in got) > 1e-4


def test_interrupted_training_stops_the_dataset_thread(tmp_path):
    _, model = _model(seed=3)
    before = {t.ident for t in threading.enumerate()}
    with pytest.raises(KeyboardInterrupt) as e:
        model.train(EPOCHS, _dataset(), callbacks=[_InterruptAt(2, "step_end")])
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        alive = [t for t in threading.enumerate()
                 if t.ident not in before and t.name == "graphcell-dataset-prefetch"]
        if not alive:
            break
        time.sleep(0.05)
    assert not alive, "the prefetch thread outlived the interrupted Model.train"
    del e


# -- exception_save: a breakpoint checkpoint of the last completed step -----------------------------


class _StopAfter(Callback):
    def __init__(self, step):
        self.step = step

    def on_train_step_end(self, rc):
        if rc.original_args().cur_step_num == self.step:
            rc.request_stop()


def _train_state_after(steps, shuffle=False):
    """The train network's parameters (weights and Adam state) of an uninterrupted run stopped
    after `steps` global steps: the reference a breakpoint file must equal."""
    _, model = _model(seed=3)
    if steps:
        model.train(EPOCHS, _dataset(shuffle=shuffle), callbacks=[_StopAfter(steps)])
    return {p.name: p.asnumpy().copy() for p in model.train_network.get_parameters()}


# how the run fails (at global step / read `at`) -> (the last completed step, the breakpoint's name)
BREAKPOINTS = {
    "TypeError inside step 9 (int64 labels)": ("loss", 9, 8, "net-2_3_breakpoint.ckpt"),
    "KeyboardInterrupt in a callback after step 7": ("callback_step_end", 7, 7, "net-2_2_breakpoint.ckpt"),
    "KeyboardInterrupt from the dataset before step 1": ("dataset", 1, 0, "net-0_0_breakpoint.ckpt"),
}


def _fail(how, at, exception_save, directory, shuffle=False):
    """Trains from seed 3 until the failure `how` at `at`; returns the Model and its ModelCheckpoint."""
    net, model = _model(seed=3)
    ck = ModelCheckpoint("net", str(directory), CheckpointConfig(
        save_checkpoint_steps=5, keep_checkpoint_max=1, append_info=["epoch_num", "step_num"],
        exception_save=exception_save))
    callbacks = [ck] + ([_InterruptAt(at, "step_end")] if how == "callback_step_end" else [])
    dataset = _dataset({"dataset": (at, "interrupt"), "loss": (at, "bad_labels")}.get(how), shuffle=shuffle)
    with pytest.raises(TypeError if how == "loss" else KeyboardInterrupt):
        model.train(EPOCHS, dataset, callbacks=callbacks)
    return model, ck


@pytest.mark.parametrize("case", sorted(BREAKPOINTS))
def test_exception_save_leaves_the_last_completed_step_loadable(tmp_path, uninterrupted, case):
    how, at, completed, name = BREAKPOINTS[case]
    _fail(how, at, exception_save=True, directory=tmp_path)
    breakpoints = [f for f in os.listdir(tmp_path) if f.endswith("_breakpoint.ckpt")]
    assert breakpoints == [name], sorted(os.listdir(tmp_path))
    assert not [f for f in os.listdir(tmp_path) if f.startswith(".")]       # no temp file left
    saved = load_checkpoint(str(tmp_path / name))
    assert int(saved["step_num"].asnumpy()) == completed
    assert _adam_steps(saved["beta1_power"]) == completed                 # the failed step applied nothing
    # every parameter, moment and power equals a run stopped cleanly after that step
    want = _train_state_after(completed)
    _assert_same_params({k: saved[k].asnumpy() for k in want}, want)
    # and it resumes to the uninterrupted run's final parameters
    _assert_same_params(_resume(str(tmp_path / name)), uninterrupted)


def test_without_exception_save_no_breakpoint_is_written(tmp_path):
    _fail("loss", 9, exception_save=False, directory=tmp_path)
    assert sorted(os.listdir(tmp_path)) == ["net-1_5.ckpt"]                 # the step-5 file only


def test_a_failing_breakpoint_save_keeps_the_training_error(tmp_path, monkeypatch):
    """A full disk while saving the breakpoint must not hide why training stopped."""
    from graphcell.train import serialization

    def no_space(*args, **kwargs):
        raise OSError(28, "No space left on device")
    _, model = _model(seed=3)
    ck = ModelCheckpoint("net", str(tmp_path), CheckpointConfig(exception_save=True, save_checkpoint_steps=100))
    monkeypatch.setattr(serialization, "save_checkpoint", no_space)
    with pytest.raises(TypeError) as e:
        model.train(EPOCHS, _dataset((2, "bad_labels")), callbacks=[ck])
    assert "CrossEntropyLoss" in str(e.value)
    assert any("ModelCheckpoint.on_train_exception failed too" in n and "No space left" in n
               for n in getattr(e.value, "__notes__", []))
    assert os.listdir(tmp_path) == []


# -- a shuffled dataset resumes to the same order --------------------------------------------------


@pytest.fixture(scope="module")
def uninterrupted_shuffled():
    net, model = _model(seed=3)
    model.train(EPOCHS, _dataset(shuffle=True))
    return _params(net)


def test_shuffled_epochs_differ(uninterrupted, uninterrupted_shuffled):
    """What makes the resume tests below non-vacuous: each epoch has its own order (so an
    iterator that counted epochs from 0 again would replay epoch 1's in epoch 3), and that
    order changes the result."""
    ms.set_seed(3)
    it = _dataset(shuffle=True).create_tuple_iterator(num_epochs=EPOCHS, output_numpy=True)
    orders = [[int(y[0]) for _, y in it] for _ in range(EPOCHS)]
    assert orders[0] != orders[2] and orders[1] != orders[2], orders
    assert max(np.abs(uninterrupted_shuffled[k] - uninterrupted[k]).max() for k in uninterrupted) > 1e-4


def test_shuffled_run_interrupted_at_an_epoch_end_resumes_to_the_same_parameters(tmp_path, uninterrupted_shuffled):
    net, model = _model(seed=3)
    ck = _checkpointer(tmp_path, every=5)
    with pytest.raises(KeyboardInterrupt):
        model.train(EPOCHS, _dataset(shuffle=True), callbacks=[ck, _InterruptAt(11, "step_begin")])
    assert int(load_checkpoint(ck.latest_ckpt_file_name)["step_num"].asnumpy()) == 10    # end of epoch 2
    net_b, model_b = _model(seed=99)
    ds.config.set_seed(3)
    load_param_into_net(model_b.train_network, load_checkpoint(ck.latest_ckpt_file_name))
    model_b.train(EPOCHS, _dataset(shuffle=True), initial_epoch=2)
    _assert_same_params(_params(net_b), uninterrupted_shuffled)


def test_shuffled_run_resumes_mid_epoch_from_its_breakpoint(tmp_path, uninterrupted_shuffled):
    _fail("loss", 9, exception_save=True, directory=tmp_path, shuffle=True)
    _assert_same_params(_resume_shuffled(str(tmp_path / "net-2_3_breakpoint.ckpt")), uninterrupted_shuffled)


def test_init_step_outside_the_initial_epoch_is_refused():
    _, model = _model(seed=3)
    dataset = _dataset()
    dataset.set_init_step(8)                                              # in epoch 2
    with pytest.raises(ValueError, match=r"starts at step 8 \(set_init_step\), in epoch 2 .* "
                                         r"initial_epoch=0 resumes at epoch 1; pass initial_epoch=1"):
        model.train(EPOCHS, dataset)


# -- interrupted writes ----------------------------------------------------------------------------


class _HalfWriter:
    """A file whose write stores half the data, then fails as a full disk or Ctrl-C would."""

    def __init__(self, f, error):
        self._f, self._error = f, error

    def write(self, data):
        self._f.write(data[:len(data) // 2])
        self._f.flush()
        raise self._error

    def __getattr__(self, name):
        return getattr(self._f, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return self._f.__exit__(*exc)


@pytest.fixture
def failing_writes(monkeypatch):
    """After `arm(error)`, the next atomic write fails halfway through its first write."""
    real = atomic._wrap_descriptor
    state = {"error": None}

    def wrap(fd, mode, encoding, target):
        f = real(fd, mode, encoding, target)
        error, state["error"] = state["error"], None
        return _HalfWriter(f, error) if error is not None else f
    monkeypatch.setattr(atomic, "_wrap_descriptor", wrap)
    return lambda error: state.update(error=error)


ERRORS = [OSError(28, "No space left on device"), KeyboardInterrupt()]


@pytest.mark.parametrize("error", ERRORS, ids=["OSError", "KeyboardInterrupt"])
@pytest.mark.parametrize("fmt", ["ckpt", "safetensors"])
def test_interrupted_save_checkpoint_keeps_the_previous_file(tmp_path, failing_writes, error, fmt):
    net, _ = _model(seed=3)
    path = str(tmp_path / f"net.{fmt}")
    ms.save_checkpoint(net, path, format=fmt)
    before = open(path, "rb").read()
    net.fc1.weight.set_data(ms.Tensor(np.ones((16, 64), np.float32)))
    failing_writes(error)
    with pytest.raises(type(error)):
        ms.save_checkpoint(net, path, format=fmt)
    assert os.listdir(tmp_path) == [f"net.{fmt}"]               # no temp file left behind
    assert open(path, "rb").read() == before
    loaded = load_checkpoint(path)
    assert not np.allclose(loaded["fc1.weight"].asnumpy(), 1.0)
    ms.save_checkpoint(net, path, format=fmt)                  # and the next save succeeds
    np.testing.assert_array_equal(load_checkpoint(path)["fc1.weight"].asnumpy(), 1.0)


@pytest.mark.parametrize("error", ERRORS, ids=["OSError", "KeyboardInterrupt"])
def test_interrupted_export_keeps_the_previous_onnx_file(tmp_path, failing_writes, error):
    from graphcell.runtime import Session
    net, _ = _model(seed=3)
    x = ms.Tensor(np.random.default_rng(0).uniform(0, 1, (2, 64)).astype(np.float32))
    path = ms.export(net, x, file_name=str(tmp_path / "net.onnx"))
    before, want = open(path, "rb").read(), net(x).asnumpy()
    net.fc2.bias.set_data(ms.Tensor(np.full((10,), 5.0, np.float32)))
    failing_writes(error)
    with pytest.raises(type(error)):
        ms.export(net, x, file_name=path)
    assert os.listdir(tmp_path) == ["net.onnx"]
    assert open(path, "rb").read() == before
    np.testing.assert_allclose(Session(path, providers=["cpu"])(x.asnumpy()), want, rtol=1e-5, atol=1e-6)


def test_a_step_s_parameter_writes_are_all_or_nothing_under_ctrl_c():
    """Ctrl-C arriving while a step's new values are written back waits until every write is
    done, then propagates: no parameter keeps its old value while another has its new one."""
    from graphcell.frontend.trace import _write_back

    class Slot:
        interrupt_once = True

        def __init__(self):
            self.value = "old"

        @property
        def _payload(self):
            return self.value

        @_payload.setter
        def _payload(self, new):
            if Slot.interrupt_once:
                Slot.interrupt_once = False
                raise KeyboardInterrupt
            self.value = new

    class New:
        _payload = "new"

    slots = [Slot() for _ in range(4)]
    with pytest.raises(KeyboardInterrupt):
        _write_back(slots, [New()] * 4)
    assert [s.value for s in slots] == ["new"] * 4

"""graphcell.train's data sinking, resilience callbacks, FLOPs collector and distributed-checkpoint
loaders. Messages and file layouts were measured on MindSpore 2.10's CPU build; FLOPs are
checked against jax's own cost analysis of the same step."""
import os
import signal

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import graphcell as ms
import graphcell.dataset as ds
from graphcell import nn, train


def _rows(n=10):
    def gen():
        for i in range(n):
            yield (np.full((2,), i, np.float32),)
    return ds.GeneratorDataset(gen, ["x"], shuffle=False)


def test_data_sink_runs_sink_size_steps_per_call():
    seen = []
    sink = ms.data_sink(lambda x: x.sum(), _rows(), sink_size=3)
    for _ in range(4):
        seen.append(float(sink().asnumpy()))
    # batches 0,1,2 | 3,4,5 | 6,7,8 | 9,0,1 (the next epoch): the last step's result, 2 * row
    assert seen == [4.0, 10.0, 16.0, 2.0]
    with pytest.raises(TypeError, match="'fn' must be callable"):
        ms.data_sink(3, _rows())
    with pytest.raises(ValueError, match="'sink_size' must be a positive int"):
        ms.data_sink(lambda x: x, _rows(), sink_size=0)


def test_dataset_helper_and_connect():
    helper = train.DatasetHelper(_rows().batch(2), dataset_sink_mode=False)
    batches = [[t.asnumpy().tolist() for t in b] for b in helper]
    assert batches[:2] == [[[[0.0, 0.0], [1.0, 1.0]]], [[[2.0, 2.0], [3.0, 3.0]]]] and len(batches) == 5   # 2.10
    with pytest.raises(RuntimeError, match="The API 'connect_network_with_dataset' should be called in dataset "
                                           "sink mode."):
        train.connect_network_with_dataset(nn.Identity(), helper)
    sink = train.DatasetHelper(_rows().batch(2), dataset_sink_mode=True, sink_size=2)
    assert sink.sink_size() == 2 and len(list(sink)) == 2
    net = train.connect_network_with_dataset(nn.Identity(), sink)
    np.testing.assert_array_equal(net().asnumpy(), [[4, 4], [5, 5]])     # the helper's next batch


def _model():
    net = nn.Dense(3, 2)
    return net, train.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.1))


def _pairs():
    def gen():
        for i in range(4):
            yield np.full((3,), i, np.float32), np.ones((2,), np.float32)
    return ds.GeneratorDataset(gen, ["x", "y"], shuffle=False).batch(2)


@pytest.mark.slow
def test_backup_and_restore(tmp_path):
    net, model = _model()
    model.train(2, _pairs(), callbacks=[train.BackupAndRestore(str(tmp_path), delete_checkpoint=False)])
    backup = tmp_path / "backup.ckpt"
    saved = train.load_checkpoint(str(backup))
    np.testing.assert_array_equal(saved["weight"].asnumpy(), net.weight.asnumpy())
    net2, model2 = _model()
    restored = []

    class Look(train.Callback):
        def on_train_begin(self, run_context):
            restored.append(net2.weight.asnumpy().copy())
    model2.train(1, _pairs(), callbacks=[train.BackupAndRestore(str(tmp_path)), Look()])
    np.testing.assert_array_equal(restored[0], net.weight.asnumpy())
    assert not backup.exists()          # delete_checkpoint=True removes it when training ends
    with pytest.raises(ValueError, match="The input value must be int and must > 0, but got '0' with type 'int'."):
        train.BackupAndRestore(str(tmp_path), save_freq=0)
    with pytest.raises(TypeError, match="The input value must be int, but got 'str'"):
        train.BackupAndRestore(str(tmp_path), save_freq="step")


def test_on_request_exit_stops_and_saves(tmp_path):
    _, model = _model()
    steps = []

    class Signal(train.Callback):
        def on_train_step_end(self, run_context):
            steps.append(run_context.original_args().cur_step_num)
            if steps[-1] == 3:
                os.kill(os.getpid(), signal.SIGUSR1)   # (SIGTERM by default; xdist's workers own that)
    previous = signal.getsignal(signal.SIGUSR1)
    model.train(5, _pairs(), callbacks=[Signal(), train.OnRequestExit(directory=str(tmp_path), save_mindir=False,
                                                                          sig=signal.SIGUSR1)])
    assert steps == [1, 2, 3] and signal.getsignal(signal.SIGUSR1) == previous
    assert os.listdir(tmp_path / "rank_0") == ["Net_train.ckpt"]            # 2.10's name and folder


@pytest.mark.slow
def test_flops_collector_counts_xla_flops(capsys):
    net, model = _model()
    collector = train.FlopsUtilizationCollector(2, computility=1000)
    model.train(1, _pairs(), callbacks=[collector])
    out = capsys.readouterr().out
    assert f"Full model flops is {collector.full_model_flops}," in out and "Train per step time:" in out
    # the same step written in jax: forward, MSE, backward and the SGD update
    w, b = jnp.asarray(net.weight.asnumpy()), jnp.asarray(net.bias.asnumpy())

    def step(w, b, x, y):
        loss = lambda w, b: jnp.mean((x @ w.T + b - y) ** 2)
        gw, gb = jax.grad(loss, (0, 1))(w, b)
        return w - 0.1 * gw, b - 0.1 * gb
    x, y = jnp.full((2, 3), 2.0), jnp.ones((2, 2))
    jax_flops = jax.jit(step).lower(w, b, x, y).compile().cost_analysis()
    jax_flops = (jax_flops[0] if isinstance(jax_flops, list) else jax_flops)["flops"]
    assert 0.5 * jax_flops <= collector.full_model_flops <= 3 * jax_flops
    with pytest.raises(ValueError, match="The 'data_size' must be int and must > 0, but got '0' with type 'int'."):
        train.FlopsUtilizationCollector(0)


def test_distributed_checkpoint_loaders_on_one_device(tmp_path):
    net, _ = _model()
    path = str(tmp_path / "net.ckpt")
    ms.save_checkpoint(net, path)
    other = nn.Dense(3, 2)
    assert train.load_distributed_checkpoint(other, [path]) is None
    np.testing.assert_array_equal(other.weight.asnumpy(), net.weight.asnumpy())
    with pytest.raises(NotImplementedError, match="one whole checkpoint"):
        train.load_distributed_checkpoint(other, [path, path])
    with pytest.raises(ValueError, match="the .*none.ckpt at index 0 is a valid checkpoint file"):
        train.load_distributed_checkpoint(other, [str(tmp_path / "none.ckpt")])
    with pytest.raises(ValueError, match="no such strategy file"):
        train.build_searched_strategy(str(tmp_path / "none.ckpt"))
    with pytest.raises(NotImplementedError, match="one device"):
        train.build_searched_strategy(path)
    assert train.export is ms.export and train.ckpt_to_safetensors is ms.ckpt_to_safetensors

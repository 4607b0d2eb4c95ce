"""Runs in a subprocess of tests/test_distributed.py, with forced host devices.

    XLA_FLAGS=--xla_force_host_platform_device_count=4 python tests/dist_worker.py ensemble
    ... dist_worker.py data_parallel
    ... dist_worker.py multiprocess RANK PORT OUT.npz   (two of these, one per process)

Each mode checks its own claims with asserts (so a failure is a traceback in the test's
output) and prints a JSON line of measurements; the multiprocess mode saves its results for
the parent to compare with a single-process reference.
"""
import json
import os
import sys
import warnings

MODE = sys.argv[1]
if MODE == "multiprocess":  # must start jax.distributed before anything computes
    import graphcell.communication as comm
    comm.init(coordinator_address=f"127.0.0.1:{sys.argv[3]}", num_processes=2, process_id=int(sys.argv[2]))

import jax  # noqa: E402
import numpy as np  # noqa: E402

import graphcell as ms  # noqa: E402
from graphcell import Tensor, nn, parallel  # noqa: E402

STEPS, GLOBAL_BATCH = 5, 8


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(6, 16)
        self.fc2 = nn.Dense(16, 3)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


def make_net(seed):
    ms.set_seed(seed)
    return MLP()


def data():
    rng = np.random.default_rng(0)
    return (rng.standard_normal((STEPS * GLOBAL_BATCH, 6)).astype(np.float32),
            rng.standard_normal((STEPS * GLOBAL_BATCH, 3)).astype(np.float32))


def make_step(net):
    """The seed Trainer's shape: value_and_grad, the reducer, the optimizer, under jit."""
    loss_fn = nn.MSELoss()
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    value_and_grad = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, weights=opt.parameters)
    reducer = nn.DistributedGradReducer(opt.parameters)

    @ms.jit
    def step(x, y):
        loss, grads = value_and_grad(x, y)
        opt(reducer(grads))
        return loss
    return step, opt, reducer


def train_reference(xs, ys):
    """Single device, stand-alone, one global batch per step."""
    ms.reset_auto_parallel_context()
    net = make_net(1)
    step, _, reducer = make_step(net)
    assert reducer.scale == 1.0
    losses = [float(step(Tensor(xs[s * GLOBAL_BATCH:(s + 1) * GLOBAL_BATCH]),
                         Tensor(ys[s * GLOBAL_BATCH:(s + 1) * GLOBAL_BATCH])).asnumpy())
              for s in range(STEPS)]
    return losses, {p.name: p.asnumpy() for p in net.trainable_params()}


def run_ensemble():
    assert jax.device_count() == 4
    nets = [make_net(10 + i) for i in range(4)]
    x = np.random.default_rng(1).standard_normal((4, 5, 6)).astype(np.float32)
    ms.set_context(ensemble_sharding=False)
    plain = ms.vmap(nn.CellList(nets))(Tensor(x)).asnumpy()
    ms.set_context(ensemble_sharding=True)
    sharded_fn = ms.vmap(nn.CellList(nets))
    out = sharded_fn(Tensor(x))
    stack = sharded_fn.ensemble.slots[0].stacked._payload
    # really spread: each of the 4 devices holds one member's weights
    assert stack.sharding.spec[0] == "ensemble", stack.sharding
    assert len({s.device for s in stack.addressable_shards}) == 4
    assert all(s.data.shape[0] == 1 for s in stack.addressable_shards)
    assert len(out._payload.sharding.device_set) == 4, out._payload.sharding
    np.testing.assert_allclose(out.asnumpy(), plain, rtol=1e-6, atol=1e-6)
    # each member against its own Cell run alone
    for i, net in enumerate(nets):
        np.testing.assert_allclose(out.asnumpy()[i], net(Tensor(x[i])).asnumpy(), rtol=1e-5, atol=1e-6)
    # N=6 does not divide over 4 devices: 3 are used, with a warning, and outputs still match
    nets6 = [make_net(20 + i) for i in range(6)]
    x6 = np.random.default_rng(2).standard_normal((6, 5, 6)).astype(np.float32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn6 = ms.vmap(nn.CellList(nets6))
        out6 = fn6(Tensor(x6)).asnumpy()
    assert any("using 3 of them" in str(w.message) for w in caught), [str(w.message) for w in caught]
    assert len(fn6.ensemble.slots[0].stacked._payload.sharding.device_set) == 3
    for i, net in enumerate(nets6):
        np.testing.assert_allclose(out6[i], net(Tensor(x6[i])).asnumpy(), rtol=1e-5, atol=1e-6)
    # devices=2: only the first two devices
    fn2 = ms.vmap(nn.CellList(nets), devices=2)
    np.testing.assert_allclose(fn2(Tensor(x)).asnumpy(), plain, rtol=1e-6, atol=1e-6)
    assert len(fn2.ensemble.slots[0].stacked._payload.sharding.device_set) == 2
    print(json.dumps({"ensemble": "ok"}))


def run_data_parallel():
    xs, ys = data()
    ref_losses, ref_params = train_reference(xs, ys)
    from graphcell import communication as comm
    comm.init()
    assert (comm.get_rank(), comm.get_group_size()) == (0, 1)
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    assert ms.get_auto_parallel_context("device_num") == 4
    net = make_net(1)
    step, opt, reducer = make_step(net)
    losses = []
    for s in range(STEPS):
        x, y = parallel.shard_batch(xs[s * GLOBAL_BATCH:(s + 1) * GLOBAL_BATCH],
                                    ys[s * GLOBAL_BATCH:(s + 1) * GLOBAL_BATCH])
        assert len({sh.device for sh in x._payload.addressable_shards}) == 4
        assert x._payload.addressable_shards[0].data.shape == (GLOBAL_BATCH // 4, 6)
        losses.append(float(step(x, y).asnumpy()))
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-5, atol=1e-6)
    for p in net.trainable_params():
        np.testing.assert_allclose(p.asnumpy(), ref_params[p.name], rtol=1e-5, atol=1e-6)
    # the all-reduce is real: XLA put it in the compiled step
    traced, leaves = step.get_traced(x, y)
    from graphcell.compiler.jit import compiled_fn
    hlo = compiled_fn(traced).lower(*[t._payload for t in traced.input_tensors(leaves)]).compile().as_text()
    assert "all-reduce" in hlo
    try:  # 6 rows do not split over 4 devices: the error names the argument
        parallel.shard_batch(xs[:8], ys[:6])
        raise AssertionError("shard_batch accepted 6 rows on 4 devices")
    except ValueError as e:
        assert "argument 1 has 6 rows" in str(e), e
    # MindSpore's scaling for the non-default reducers: sum = device_num x mean
    g = (Tensor(np.ones(3, np.float32)),)
    assert np.allclose(nn.DistributedGradReducer([], mean=False)(g)[0].asnumpy(), 4.0)
    assert np.allclose(nn.DistributedGradReducer([], degree=2)(g)[0].asnumpy(), 2.0)
    print(json.dumps({"losses": losses, "ref_losses": ref_losses}))


def run_multiprocess(rank, out_path):
    from graphcell import communication as comm
    from graphcell import dataset as ds
    assert comm.get_group_size() == 2 and comm.get_rank() == rank
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    xs, ys = data()
    # each process reads its shard (MindSpore's strided layout); the union of the two parts of
    # step s is the reference's rows [s*8, (s+1)*8), and a mean loss does not see the order
    part = ds.GeneratorDataset(list(zip(xs, ys)), ["x", "y"], shuffle=False,
                               num_shards=comm.get_group_size(), shard_id=comm.get_rank())
    part = part.batch(GLOBAL_BATCH // 2)
    net = make_net(1)
    step, opt, _ = make_step(net)
    parallel.replicate(net)
    parallel.replicate(opt)
    losses = []
    for batch in part.create_dict_iterator(num_epochs=1):
        x, y = parallel.shard_batch(batch["x"], batch["y"])
        losses.append(float(step(x, y).asnumpy()))
    params = {p.name: np.asarray(p._payload.addressable_data(0)) for p in net.trainable_params()}
    np.savez(out_path, losses=np.array(losses), **params)
    comm.release()


if __name__ == "__main__":
    if MODE == "ensemble":
        run_ensemble()
    elif MODE == "data_parallel":
        run_data_parallel()
    elif MODE == "multiprocess":
        run_multiprocess(int(sys.argv[2]), sys.argv[4])
    elif MODE == "reference":  # single process, single device: the multiprocess run's reference
        losses, params = train_reference(*data())
        np.savez(sys.argv[2], losses=np.array(losses), **params)
    else:
        raise SystemExit(f"unknown mode {MODE}")

"""Runs in a subprocess of tests/test_distributed.py, with forced host devices.

    XLA_FLAGS=--xla_force_host_platform_device_count=4 python tests/dist_worker.py ensemble
    ... dist_worker.py data_parallel
    ... dist_worker.py mesh2d                (a members x data mesh)
    ... dist_worker.py auto_place WORKDIR    (the seed Trainer and Model.train, no shard_batch)
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


# -- 2-D (members x data) mesh ---------------------------------------------------------------------

def train_ensemble(n, mesh=None, steps=STEPS, batch=4, **vmap_kwargs):
    """n seed TrainOneStepNets (MLP, Adam amsgrad, one lr each) vmapped, trained `steps` steps on
    each member's own batch. Returns the losses, the vmapped function and the last inputs."""
    from tests.models.train_step import TrainOneStepNet
    cells = nn.CellList([TrainOneStepNet(make_net(30 + i), lr=1e-2 * (i + 1)) for i in range(n)])
    fn = ms.vmap(cells, mesh=mesh, **vmap_kwargs)
    rng = np.random.default_rng(3)
    xs = rng.standard_normal((steps, n, batch, 6)).astype(np.float32)
    ys = rng.integers(0, 3, (steps, n, batch)).astype(np.int32)
    losses = [fn(Tensor(xs[s]), Tensor(ys[s])).asnumpy() for s in range(steps)]
    return np.array(losses), fn, (Tensor(xs[-1]), Tensor(ys[-1]))


def ensemble_params(fn):
    return {slot.stacked.name: slot.stacked.asnumpy() for slot in fn.ensemble.slots}


def single_device_ensemble(n, batch=4):
    ms.set_context(ensemble_sharding=False)  # everything on device 0: the reference
    try:
        losses, fn, _ = train_ensemble(n, batch=batch)
        return losses, ensemble_params(fn)
    finally:
        ms.set_context(ensemble_sharding=True)


def assert_matches(fn, losses, ref):
    ref_losses, ref_params = ref
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-5, atol=1e-6)
    got = ensemble_params(fn)
    assert set(got) == set(ref_params)
    for name, value in ref_params.items():
        np.testing.assert_allclose(got[name], value, rtol=1e-5, atol=1e-6, err_msg=name)


def collectives(fn, inputs):
    """(op, replica groups) of every collective XLA put in the compiled vmapped step."""
    import re
    from graphcell.compiler.jit import compiled_fn
    traced = next(iter(fn.cache.values()))
    leaves = fn._place(list(inputs), [0] * len(inputs), len(fn.ensemble))
    hlo = compiled_fn(traced).lower(*[t._payload for t in traced.input_tensors(leaves)]).compile().as_text()
    found = []
    for line in hlo.splitlines():
        op = re.search(r" (all-reduce|all-gather|all-to-all|collective-permute|reduce-scatter)(?:-start)?\(", line)
        if op:
            groups = re.search(r"replica_groups=(\{\{[\d,{}]*\}\}|mesh\[[^\]]*\] \{[^}]*\})"
                               r"|source_target_pairs=\S+", line)
            found.append((op.group(1), groups.group(0) if groups else line))
    return found


def run_mesh2d():
    assert jax.device_count() == 4
    ref = single_device_ensemble(4)
    # explicit (members, data) = (2, 2): two members per ensemble shard, each batch in halves
    losses, fn, (x, y) = train_ensemble(4, mesh=(2, 2))
    assert_matches(fn, losses, ref)
    mesh = fn.ensemble.mesh
    assert dict(mesh.shape) == {"ensemble": 2, "data": 2}, mesh
    stack = fn.ensemble.slots[0].stacked._payload
    assert stack.sharding.mesh == mesh and stack.sharding.spec[0] == "ensemble", stack.sharding
    assert {s.data.shape[0] for s in stack.addressable_shards} == {2}  # 2 members per device, whole
    placed = fn._place([x, y], [0, 0], 4)
    assert tuple(placed[0]._payload.sharding.spec)[:2] == ("ensemble", "data"), placed[0]._payload.sharding
    assert {s.data.shape for s in placed[0]._payload.addressable_shards} == {(2, 2, 6)}
    assert len(placed[0]._payload.sharding.device_set) == 4
    # gradients are reduced over the data axis only: one all-reduce, within {0,1} and {2,3}
    found = collectives(fn, (x, y))
    assert found and all(op == "all-reduce" for op, _ in found), found
    assert all(g in ("replica_groups={{0,1},{2,3}}", "replica_groups=mesh['axis_0'=2,'axis_1'=2] {'axis_1'}")
               for _, g in found), found
    # a jax Mesh, axes named ("ensemble", "data"), devices in a chosen order
    devices = np.array(jax.devices()[::-1]).reshape(2, 2)
    user_mesh = jax.sharding.Mesh(devices, ("ensemble", "data"))
    losses, fn, _ = train_ensemble(4, mesh=user_mesh)
    assert fn.ensemble.mesh is user_mesh
    assert_matches(fn, losses, ref)
    # DATA_PARALLEL's default: 2 members on 4 devices -> (ensemble 2, data 2), no idle device
    ref2 = single_device_ensemble(2)
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL)
    try:
        losses, fn, _ = train_ensemble(2)
        assert dict(fn.ensemble.mesh.shape) == {"ensemble": 2, "data": 2}, fn.ensemble.mesh
        assert_matches(fn, losses, ref2)
    finally:
        ms.reset_auto_parallel_context()
    # a batch of 3 does not split over data=2: a warning, the batch stays whole, results match
    ref3 = single_device_ensemble(4, batch=3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        losses, fn, _ = train_ensemble(4, mesh=(2, 2), batch=3)
    assert any("3 rows on its batch axis 1" in str(w.message) for w in caught), [str(w.message) for w in caught]
    assert_matches(fn, losses, ref3)
    # 4 members do not split 3 ways: the error names the mesh and the member count
    try:
        train_ensemble(4, mesh=(3, 1))
        raise AssertionError("mesh=(3, 1) accepted for 4 members")
    except ValueError as e:
        assert "mesh=(3, 1) splits the members 3 ways, but the ensemble has 4 members" in str(e), e
    print(json.dumps({"mesh2d": "ok", "losses": losses[-1].tolist()}))


# -- automatic batch placement under DATA_PARALLEL ------------------------------------------------

def seed_trainer_class():
    """The migration guide's Trainer, exactly as the seed program defines it."""
    import contextlib
    import io
    import runpy
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "seed_programs",
                        "seed_migration_trainer.py")
    with contextlib.redirect_stdout(io.StringIO()):  # its module level prints a dataset size
        return runpy.run_path(path, run_name="seed_trainer")["Trainer"]


def train_with_trainer(xs, ys, batch):
    """Two epochs of the seed Trainer on (xs, ys); returns the trained parameters."""
    from graphcell import dataset as ds
    Trainer = seed_trainer_class()
    data = ds.GeneratorDataset(list(zip(xs, ys)), ["image", "label"], shuffle=False).batch(batch)
    net = make_net(1)
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    Trainer(net, nn.MSELoss(), nn.L1Loss(), opt, data, loss_scale=8.0).train(epochs=2)
    return trained(net)


def train_with_model(xs, ys, batch):
    from graphcell import dataset as ds
    from graphcell.train import Model
    data = ds.GeneratorDataset(list(zip(xs, ys)), ["x", "y"], shuffle=False).batch(batch)
    net = make_net(2)
    model = Model(net, nn.MSELoss(), nn.Adam(net.trainable_params(), learning_rate=1e-2))
    model.train(2, data)
    return trained(net)


def trained(net):
    """{name: value} of the parameters, and how many devices the training step ran on (its
    outputs, the updated parameters, span the devices its batch was split over)."""
    params = {p.name: p.asnumpy() for p in net.trainable_params()}
    return params, len(net.trainable_params()[0]._payload.sharding.device_set)


def assert_same_params(got, ref, what):
    (got, devices), (ref, ref_devices) = got, ref
    assert (devices, ref_devices) == (4, 1), (what, devices, ref_devices)
    for name, value in ref.items():
        np.testing.assert_allclose(got[name], value, rtol=1e-5, atol=1e-6, err_msg=f"{what}: {name}")


def run_auto_place(workdir):
    """The seed Trainer and Model.train, unchanged, under DATA_PARALLEL: no shard_batch."""
    assert jax.device_count() == 4
    os.chdir(workdir)  # the Trainer writes its checkpoints to the working directory
    xs, ys = data()
    refs = {f.__name__: f(xs, ys, GLOBAL_BATCH) for f in (train_with_trainer, train_with_model)}
    from graphcell import communication as comm
    comm.init()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    for f in (train_with_trainer, train_with_model):
        assert_same_params(f(xs, ys, GLOBAL_BATCH), refs[f.__name__], f.__name__)
    # the batch really is split: a jitted forward keeps the rows spread over the 4 devices
    net = make_net(1)
    out = ms.jit(net)(Tensor(xs[:GLOBAL_BATCH]))._payload
    assert len(out.sharding.device_set) == 4 and out.sharding.spec[0] == "data", out.sharding
    assert {s.data.shape for s in out.addressable_shards} == {(GLOBAL_BATCH // 4, 3)}
    np.testing.assert_allclose(np.asarray(out), make_net(1)(Tensor(xs[:GLOBAL_BATCH])).asnumpy(), rtol=1e-6)
    # 6 rows do not split over 4 devices: a warning, unsplit, same results
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        odd = ms.jit(net)(Tensor(xs[:6]))._payload
    assert any("axis 0 has 6 rows" in str(w.message) for w in caught), [str(w.message) for w in caught]
    assert len(odd.sharding.device_set) == 1
    # a batch placed by hand is left as it is
    x = parallel.shard_batch(xs[:GLOBAL_BATCH])
    assert parallel.place_batch((x,), {})[0][0] is x
    comm.release()
    ms.reset_auto_parallel_context()
    print(json.dumps({"auto_place": "ok"}))


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
    # the same without shard_batch: jit assembles the global batch from this process's rows
    net2 = make_net(1)
    step2, opt2, _ = make_step(net2)
    parallel.replicate(net2)
    parallel.replicate(opt2)
    auto = [float(step2(b["x"], b["y"]).asnumpy()) for b in part.create_dict_iterator(num_epochs=1)]
    np.testing.assert_allclose(auto, losses, rtol=1e-6)
    for p in net2.trainable_params():
        np.testing.assert_allclose(np.asarray(p._payload.addressable_data(0)), params[p.name], rtol=1e-6)
    np.savez(out_path, losses=np.array(losses), **params)
    comm.release()


if __name__ == "__main__":
    if MODE == "ensemble":
        run_ensemble()
    elif MODE == "data_parallel":
        run_data_parallel()
    elif MODE == "mesh2d":
        run_mesh2d()
    elif MODE == "auto_place":
        run_auto_place(sys.argv[2])
    elif MODE == "multiprocess":
        run_multiprocess(int(sys.argv[2]), sys.argv[4])
    elif MODE == "reference":  # single process, single device: the multiprocess run's reference
        losses, params = train_reference(*data())
        np.savez(sys.argv[2], losses=np.array(losses), **params)
    else:
        raise SystemExit(f"unknown mode {MODE}")

"""Issue 10: sharded ensembles, data-parallel training, multi-process runs (JAX SPMD).

This process has already imported jax with one CPU device, so the multi-device checks run
`tests/dist_worker.py` in subprocesses with XLA_FLAGS=--xla_force_host_platform_device_count
set before jax loads. The worker asserts against independent references (the unsharded
ensemble, each member run alone, single-device training on the same global batch).
"""
import os
import socket
import subprocess
import sys

import jax
import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, nn, parallel

WORKER = os.path.join(os.path.dirname(__file__), "dist_worker.py")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEEDS = os.path.join(os.path.dirname(ROOT), "shared", "seed_programs")  # the seed Trainer


def _env(devices: int) -> dict:
    flags = f"{os.environ.get('XLA_FLAGS', '')} --xla_force_host_platform_device_count={devices}".strip()
    env = dict(os.environ, XLA_FLAGS=flags,
               JAX_PLATFORMS="cpu", PYTHONPATH=ROOT)
    return env


def _run(*args, devices=4, timeout=120):
    proc = subprocess.run([sys.executable, WORKER, *map(str, args)], env=_env(devices), cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"worker {args} failed:\n{proc.stdout}\n{proc.stderr[-4000:]}"
    return proc.stdout


# -- several devices (subprocesses) ---------------------------------------------------------------

def test_sharded_ensemble_matches_unsharded_and_is_spread():
    # 4 members over 4 devices, 6 members over 3 of 4 (warning), devices=2; see dist_worker
    assert '"ensemble": "ok"' in _run("ensemble")


def test_data_parallel_five_steps_match_single_device():
    # losses and parameters within 1e-5 of stand-alone training; "all-reduce" in the HLO
    assert '"losses"' in _run("data_parallel")


def test_mesh_2d_ensemble_training_matches_single_device():
    # members x data = 2 x 2 (a shape, a jax Mesh, DATA_PARALLEL's default): 5 Adam steps of the
    # seed's TrainOneStepNet within 1e-5 of one device; stacks split on `ensemble`, batches on
    # both axes; the only collective is the gradient all-reduce within each data group
    assert '"mesh2d": "ok"' in _run("mesh2d")


@pytest.mark.skipif(not os.path.isdir(SEEDS), reason=f"{SEEDS} is absent (CI provides ../shared)")
def test_data_parallel_places_the_batch_itself(tmp_path):
    # the seed Trainer (loaded from the seed program) and Model.train, with no shard_batch,
    # match stand-alone training and run on all 4 devices; odd batches warn and run unsplit
    assert '"auto_place": "ok"' in _run("auto_place", tmp_path)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_two_processes_on_localhost_match_single_device(tmp_path):
    """jax.distributed with 2 processes x 2 CPU devices (gloo collectives), on 127.0.0.1."""
    port = _free_port()
    outs = [tmp_path / f"rank{r}.npz" for r in (0, 1)]
    procs = [subprocess.Popen([sys.executable, WORKER, "multiprocess", str(r), str(port), str(outs[r])],
                              env=_env(2), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for r in (0, 1)]
    logs = []
    try:
        for p in procs:
            out, err = p.communicate(timeout=120)
            logs.append(err[-3000:])
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    assert all(p.returncode == 0 for p in procs), "\n---\n".join(logs)
    _run("reference", tmp_path / "ref.npz", devices=1)
    ref = np.load(tmp_path / "ref.npz")
    for out in outs:
        got = np.load(out)
        assert set(got.files) == set(ref.files)
        for k in ref.files:
            np.testing.assert_allclose(got[k], ref[k], rtol=1e-5, atol=1e-6, err_msg=f"{out.name}: {k}")


# -- one device (this process) --------------------------------------------------------------------

class Tiny(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 2)

    def construct(self, x):
        return self.fc(x)


def test_one_device_is_unsharded():
    assert parallel.ensemble_mesh() is None  # nothing to split over
    fn = ms.vmap(nn.CellList([Tiny(), Tiny()]))
    x = np.ones((2, 4, 3), np.float32)
    out = fn(Tensor(x)).asnumpy()
    assert fn.ensemble.mesh is None
    for i, net in enumerate(fn.ensemble.members):
        np.testing.assert_allclose(out[i], net(Tensor(x[i])).asnumpy(), rtol=1e-6)


def test_device_choice_errors_name_the_argument():
    with pytest.raises(ValueError, match="devices=5 but 1 device"):
        parallel.ensemble_mesh(5)
    with pytest.raises(TypeError, match="devices must be"):
        parallel.ensemble_mesh(["cpu"])


def test_communication_needs_init_and_reports_one_process():
    from graphcell import communication as comm
    comm.release()
    # 2.10 (measured) answers get_rank / get_group_size for one process before init; groups need init
    assert (comm.get_rank(), comm.get_group_size()) == (0, 1)
    with pytest.raises(RuntimeError, match="Please call `init\\(\\)` method first"):
        comm.create_group("g", [0])
    try:
        comm.init()
        assert (comm.get_rank(), comm.get_group_size()) == (0, 1)
        assert ms.get_auto_parallel_context("device_num") == jax.device_count() == 1
    finally:
        comm.release()


def test_mesh_option_errors_name_the_fix():
    with pytest.raises(TypeError, match=r"\(members, data\) pair of positive ints, got \(2,\)"):
        ms.vmap(nn.CellList([Tiny(), Tiny()]), mesh=(2,))
    with pytest.raises(ValueError, match=r"mesh=\(2, 1\) needs 2 devices but 1 are available"):
        ms.vmap(nn.CellList([Tiny(), Tiny()]), mesh=(2, 1))
    bad = jax.sharding.Mesh(np.array(jax.devices()), ("members",))
    with pytest.raises(ValueError, match="mesh axes must be named 'ensemble' and/or 'data'"):
        ms.vmap(nn.CellList([Tiny(), Tiny()]), mesh=bad)(Tensor(np.ones((2, 4, 3), np.float32)))


def test_one_device_data_parallel_changes_nothing():
    try:
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL)
        x = Tensor(np.ones((4, 3), np.float32))
        args, kwargs = parallel.place_batch((x,), {})
        assert args[0] is x and kwargs == {}
        fn = ms.vmap(nn.CellList([Tiny(), Tiny()]))
        out = fn(Tensor(np.ones((2, 4, 3), np.float32))).asnumpy()
        assert fn.ensemble.mesh is None
        np.testing.assert_allclose(out[1], fn.ensemble.members[1](x).asnumpy(), rtol=1e-6)
    finally:
        ms.reset_auto_parallel_context()


def test_grad_reducer_rejects_more_devices_than_visible():
    try:
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, device_num=2)
        with pytest.raises(ValueError, match="device_num=2, but only 1 device"):
            nn.DistributedGradReducer([])
    finally:
        ms.reset_auto_parallel_context()

"""graphcell.communication's groups and graphcell.mint.distributed (torch.distributed's API over
JAX's processes).

Single-process values and messages were measured on MindSpore 2.10's CPU build (a one-worker
mccl cluster: MS_ROLE=MS_SCHED / MS_WORKER, MS_WORKER_NUM=1) and, for the collectives 2.10's
CPU build has no kernel for (reduce, reduce_scatter*, all_gather_into_tensor, all_to_all*), on
torch 2.13's gloo backend with world_size=1. The two-process run (tests/collectives_worker.py)
checks every collective against numpy worked from both ranks' inputs.
"""
import os
import socket
import subprocess
import sys

import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor
from graphcell import communication as comm
from graphcell.mint import distributed as dist

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# mindspore.communication.__all__ and mindspore.mint.distributed.__all__ in 2.10
COMMUNICATION_2_10 = {
    "GlobalComm", "HCCL_WORLD_COMM_GROUP", "MCCL_WORLD_COMM_GROUP", "NCCL_WORLD_COMM_GROUP", "create_group",
    "destroy_group", "get_comm_name", "get_group_rank_from_world_rank", "get_group_size", "get_local_rank",
    "get_local_rank_size", "get_process_group_ranks", "get_rank", "get_world_rank_from_group_rank", "init", "release"}
DISTRIBUTED_2_10 = set(
    "P2POp all_gather all_gather_into_tensor all_gather_into_tensor_uneven all_gather_object all_reduce all_to_all "
    "all_to_all_single barrier batch_isend_irecv broadcast broadcast_object_list destroy_process_group gather "
    "gather_object get_backend get_global_rank get_group_rank get_process_group_ranks get_rank get_world_size "
    "init_process_group irecv is_available is_initialized isend new_group recv recv_object_list reduce "
    "reduce_scatter reduce_scatter_tensor reduce_scatter_tensor_uneven scatter scatter_object_list send "
    "send_object_list".split())
NOT_INITED = r"Distributed Communication has not been inited\.You can't invoke this interface yet"


@pytest.fixture
def world():
    comm.release()
    dist.init_process_group()
    yield
    comm.release()


def x4():
    return Tensor(np.array([1., 2., 3., 4.], np.float32))


def zeros(n):
    return Tensor(np.zeros(n, np.float32))


def test_names_are_2_10s():
    assert COMMUNICATION_2_10 <= set(comm.__all__) and all(hasattr(comm, n) for n in COMMUNICATION_2_10)
    assert set(dist.__all__) == DISTRIBUTED_2_10 and all(hasattr(dist, n) for n in DISTRIBUTED_2_10)
    assert ms.mint.distributed is dist
    assert (comm.HCCL_WORLD_COMM_GROUP, comm.NCCL_WORLD_COMM_GROUP, comm.MCCL_WORLD_COMM_GROUP) == (
        "hccl_world_group", "nccl_world_group", "mccl_world_group")


def test_before_init():
    comm.release()
    # 2.10 answers these for one process without init; the rest need init
    assert (comm.get_rank(), comm.get_group_size(), comm.get_local_rank(), comm.get_local_rank_size()) == (0, 1, 0, 1)
    assert (dist.is_available(), dist.is_initialized(), dist.get_rank(), dist.get_world_size()) == (True, False, 0, 1)
    assert dist.get_global_rank(None, 0) == 0
    for call in (comm.get_process_group_ranks, comm.get_comm_name, lambda: comm.create_group("g", [0]),
                 lambda: comm.destroy_group("g"), lambda: comm.get_group_rank_from_world_rank(0, "g"),
                 lambda: comm.get_world_rank_from_group_rank("g", 0), lambda: dist.get_group_rank(None, 0),
                 lambda: dist.all_reduce(x4())):
        with pytest.raises(RuntimeError, match=NOT_INITED):
            call()


def test_groups_as_2_10(world):
    comm.create_group("g1", [0])
    assert (comm.get_rank("g1"), comm.get_group_size("g1"), comm.get_local_rank("g1"),
            comm.get_local_rank_size("g1"), comm.get_process_group_ranks("g1"), comm.get_comm_name("g1")) == (
        0, 1, 0, 1, [0], "")
    assert comm.get_group_rank_from_world_rank(0, "g1") == comm.get_world_rank_from_group_rank("g1", 0) == 0
    assert comm.get_world_rank_from_group_rank(comm.MCCL_WORLD_COMM_GROUP, 0) == 0
    assert dist.get_process_group_ranks() == [0]
    cases = [  # (call, error, 2.10's message)
        (lambda: comm.create_group("g4", (0,)), TypeError,
         "For 'create_group', the argument 'rank_ids' must be type of list, but got 'rank_ids' type : <class 'tuple'>."),
        (lambda: comm.create_group("g5", []), ValueError,
         "For 'create_group', the argument 'rank_ids' size should be greater than 1, but got 'rank_ids' size : 0."),
        (lambda: comm.create_group(5, [0]), TypeError,
         "For 'create_group', the argument 'group' must be type of string, but got 'group' type : <class 'int'>."),
        (lambda: comm.create_group("g3", [0, 0]), ValueError, "List rank_ids in Group g3 has duplicate data!"),
        (lambda: comm.create_group("g2", [0, 1]), RuntimeError,
         "Failed to create communication group for g2 with rank ids [0, 1]"),
        (lambda: comm.get_group_rank_from_world_rank(3, "g1"), RuntimeError, "Group g1 doesn't contain the global rank 3"),
        (lambda: comm.get_world_rank_from_group_rank("g1", 3), RuntimeError, "Group g1 doesn't contain the group rank 3"),
        (lambda: comm.get_group_rank_from_world_rank(0, 5), TypeError,
         "For 'get_group_rank_from_world_rank', the argument 'group' must be type of string, "
         "but got 'group' type : <class 'int'>."),
        (lambda: comm.get_group_rank_from_world_rank("0", "g1"), TypeError,
         "For 'get_group_rank_from_world_rank', the argument 'world_rank_id' must be type of int, "
         "but got 'world_rank_id' type : <class 'str'>."),
        (lambda: comm.get_rank("nope"), RuntimeError, "The group nope does not exist."),
        (lambda: comm.get_process_group_ranks("nope"), RuntimeError, "Group nope doesn't include this rank 0 process."),
        (lambda: comm.destroy_group(comm.MCCL_WORLD_COMM_GROUP), ValueError, "The world_group does not support destruction."),
        (lambda: dist.get_backend(3), TypeError,
         "For 'get_backend', the argument 'group' must be type of string or None, but got 'group' type : <class 'int'>."),
        (lambda: dist.new_group((0,)), TypeError, "ranks must be list, but got <class 'tuple'>"),
        (lambda: dist.new_group([0, 0]), ValueError,
         "List rank_ids in Group hccl_2_b97094b56f0e21151085fe3cd1636cbd0b0bc48b has duplicate data!"),
        (lambda: dist.get_global_rank("g1", 3), RuntimeError, "Group g1 doesn't contain the group rank 3"),
        (lambda: dist.get_group_rank("g1", 3), KeyError, "not found in group g1"),
    ]
    for call, error, message in cases:
        with pytest.raises(error) as info:
            call()
        assert message in str(info.value), (message, str(info.value))
    # 2.10: unknown groups give -1 here; a world group passes ranks through unchecked
    assert (dist.get_rank("nope"), dist.get_world_size("nope")) == (-1, -1)
    assert (dist.get_group_rank(None, 3), dist.get_global_rank(None, 3)) == (3, 3)
    name = dist.new_group([0])
    assert name == "hccl_1_b6589fc6ab0dc82cf12099d1c2d40ab994e8410c"   # 2.10's name for [0]
    assert (dist.get_rank(name), dist.get_world_size(name), dist.get_group_rank(name, 0)) == (0, 1, 0)
    assert dist.new_group() == comm.GlobalComm.WORLD_COMM_GROUP
    comm.destroy_group("g1")
    with pytest.raises(RuntimeError, match="The group g1 does not exist"):
        comm.get_group_size("g1")
    with pytest.raises(KeyError, match="g1"):
        comm.destroy_group("g1")
    dist.destroy_process_group()
    assert not dist.is_initialized()


def test_world_size_one_collectives(world):
    """The world-size-1 results (2.10 where its CPU build runs them, else torch gloo): every
    output holds the one rank's input; the calls return None, async_op a finished handle."""
    x = x4()
    expect = np.array([1., 2., 3., 4.], np.float32)
    for op in ("sum", "prod", "min", "max", "avg"):
        assert dist.all_reduce(x, op=op, group=comm.HCCL_WORLD_COMM_GROUP) is None
    work = dist.all_reduce(x, async_op=True)
    assert work.wait() is None and work.is_completed()
    assert dist.reduce(x, 0) is None and dist.broadcast(x, 0) is None and dist.barrier() is None
    np.testing.assert_array_equal(x.asnumpy(), expect)
    outs = {}
    outs["all_gather"] = [zeros(4)]
    dist.all_gather(outs["all_gather"], x)
    outs["gather"] = [zeros(4)]
    dist.gather(x, outs["gather"], dst=0)
    outs["all_to_all"] = [zeros(4)]
    dist.all_to_all(outs["all_to_all"], [x])
    for key, make, call in [
            ("scatter", lambda: zeros(4), lambda o: dist.scatter(o, [x], src=0)),
            ("reduce_scatter", lambda: zeros(4), lambda o: dist.reduce_scatter(o, [x])),
            ("reduce_scatter_tensor", lambda: zeros(4), lambda o: dist.reduce_scatter_tensor(o, x)),
            ("reduce_scatter_tensor_uneven", lambda: zeros(4),
             lambda o: dist.reduce_scatter_tensor_uneven(o, x, input_split_sizes=[4])),
            ("all_gather_into_tensor", lambda: zeros(4), lambda o: dist.all_gather_into_tensor(o, x)),
            ("all_gather_into_tensor_uneven", lambda: zeros(4), lambda o: dist.all_gather_into_tensor_uneven(o, x, [4])),
            ("all_to_all_single", lambda: zeros(4), lambda o: dist.all_to_all_single(o, x, [4], [4]))]:
        outs[key] = [make()]
        assert call(outs[key][0]) is None
    for key, got in outs.items():
        assert len(got) == 1
        np.testing.assert_array_equal(got[0].asnumpy(), expect, err_msg=key)
    ints = Tensor(np.array([3, 4], np.int32))
    dist.all_reduce(ints, op="avg")
    assert ints.dtype == ms.int32 and ints.asnumpy().tolist() == [3, 4]
    objs = [None]
    dist.all_gather_object(objs, {"a": 1})
    assert objs == [{"a": 1}]
    objs = [{"a": 1}, 3]
    dist.broadcast_object_list(objs, 0)
    assert objs == [{"a": 1}, 3]
    objs = [None]
    dist.gather_object({"a": 1}, objs, 0)
    assert objs == [{"a": 1}]
    objs = [None, None]
    dist.scatter_object_list(objs, [{"b": 2}], 0)
    assert objs == [{"b": 2}, None]   # torch fills element 0 only
    assert dist.get_backend() == "gloo"


def test_collective_errors(world):
    x = x4()
    cases = [  # 2.10's messages, torch's for sending to oneself
        (lambda: dist.all_reduce(x, op="foo"), TypeError,
         "For all_reduce, the input op value must be one of sum, prod, min, max, avg"),
        (lambda: dist.all_reduce([1.0]), TypeError, "For all_reduce, the input tensor must be tensor"),
        (lambda: dist.all_reduce(x, group=3), TypeError,
         "The argument 'group' must be type of string, but got 'group' type : <class 'int'>."),
        (lambda: dist.all_reduce(x, group="nope"), RuntimeError, "The group nope does not exist."),
        (lambda: dist.all_gather([zeros(4), zeros(4)], x), TypeError,
         "The argument list tensor len must be equal to group rank size, but got 2."),
        (lambda: dist.all_gather([zeros(3)], Tensor(np.ones(2, np.float32))), TypeError,
         "For all_gather, the output shape should be (3,), but got (2,)."),
        (lambda: dist.gather(x, None, dst=0), TypeError, "Expected list or tuple, but got <class 'NoneType'>."),
        (lambda: dist.scatter(zeros(3), [Tensor(np.ones(2, np.float32))], src=0), TypeError,
         "The argument list tensor shape must be equal to tensor shape, but got (2,)."),
        (lambda: dist.broadcast(x, "0"), TypeError, "For broadcast, the src must be int"),
        (lambda: dist.broadcast(x, 1), RuntimeError, "Group world_group doesn't contain the global rank 1"),
        (lambda: dist.all_gather_object([None, None], 1), TypeError,
         "The len of argument object_list must be equal to group rank size, but got 2."),
        (lambda: dist.send(x, 0), ValueError,
         "Invalid destination rank: destination rank should not be the same as the rank of the current process."),
        (lambda: dist.recv(x, 0), ValueError, "Invalid source rank"),
        (lambda: dist.send(x, 1), RuntimeError, "doesn't contain the global rank 1"),
        (lambda: dist.P2POp(dist.all_reduce, x, 0), TypeError, "Expected op to be of type isend or irecv, but got"),
        (lambda: dist.batch_isend_irecv([]), TypeError, "p2p_op_list can not be empty list."),
        (lambda: dist.batch_isend_irecv([dist.P2POp(dist.isend, x, 0)]), ValueError, "Invalid destination rank"),
        (lambda: dist.reduce_scatter_tensor(zeros(4), Tensor(np.ones(3, np.float32))), TypeError,
         "For reduce_scatter_tensor, the output shape should be (3,), but got (4,)."),
        (lambda: dist.all_to_all_single(zeros(4), x, input_split_sizes=[3]), ValueError,
         "the split sizes [3] must be 1 sizes summing to the input's axis 0 (4)"),
        (lambda: dist.init_process_group(), ValueError, "trying to initialize the default process group twice!"),
        (lambda: dist.init_process_group("mpi"), ValueError, "backend must be one of hccl, mccl, nccl, gloo"),
    ]
    for call, error, message in cases:
        with pytest.raises(error) as info:
            call()
        assert message in str(info.value), (message, str(info.value))

    @ms.jit
    def inside(t):
        dist.all_reduce(t)
        return t
    with pytest.raises(RuntimeError, match="cannot run inside jit.*mesh with shardings"):
        inside(x)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_collectives_across_two_processes():
    """2 jax processes (jax.distributed, gloo, 1 CPU device each): every collective's values,
    a reordered world group, and NotImplementedError for a sub-group and for send/recv (~10 s)."""
    port = _free_port()
    env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONPATH=ROOT)
    worker = os.path.join(ROOT, "tests", "collectives_worker.py")
    procs = [subprocess.Popen([sys.executable, worker, str(r), str(port)], env=env, cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for r in (0, 1)]
    logs = []
    try:
        for p in procs:
            out, err = p.communicate(timeout=120)
            logs.append((out, err[-3000:]))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    assert all(p.returncode == 0 for p in procs), "\n---\n".join(out + err for out, err in logs)
    assert all("ok" in out.splitlines() for out, _ in logs), logs   # gloo prints its own lines too

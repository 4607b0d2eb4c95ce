"""`graphcell.communication`: MindSpore's init / get_rank / get_group_size on JAX.

A *rank* here is a process (a JAX controller), not a device: one process drives all of its
local devices, and `jax.jit` spreads work over the global `data` mesh (see
`graphcell.parallel`). So `GeneratorDataset(num_shards=get_group_size(), shard_id=get_rank())`
gives each process its part of the global batch, and a `jit` call under DATA_PARALLEL (or
`parallel.shard_batch` by hand) assembles the parts.

Several hosts (or several processes on one host) go through `jax.distributed.initialize`:

    init(coordinator_address="10.0.0.1:1234", num_processes=2, process_id=0)   # on host 0
    init(coordinator_address="10.0.0.1:1234", num_processes=2, process_id=1)   # on host 1

or with no arguments when the launcher sets the environment jax reads (Slurm, Open MPI, or
GRAPHCELL_COORDINATOR / GRAPHCELL_NUM_PROCESSES / GRAPHCELL_PROCESS_ID). `init()` must run
before any array is computed, as `jax.distributed.initialize` requires.

Groups (`create_group`) are named lists of world ranks kept in this process; they give ranks
and sizes, and `graphcell.mint.distributed`'s collectives take their names. Every world name
2.10 uses (`HCCL_WORLD_COMM_GROUP`, `NCCL_...`, `MCCL_...`, `GlobalComm.WORLD_COMM_GROUP`, None)
means all processes.
"""
from __future__ import annotations

import os

import jax

_STATE = {"initialized": False, "distributed": False}


def init(backend_name: str | None = None, coordinator_address: str | None = None,
         num_processes: int | None = None, process_id: int | None = None) -> None:
    """Starts the communication backend and sets the context's `device_num` to the number of
    devices in the world. `backend_name` ("hccl", "nccl", "gloo", ...) is accepted for
    MindSpore scripts; JAX picks its own collectives (gloo on CPU, NCCL on GPU)."""
    coordinator_address = coordinator_address or os.environ.get("GRAPHCELL_COORDINATOR")
    if num_processes is None and "GRAPHCELL_NUM_PROCESSES" in os.environ:
        num_processes = int(os.environ["GRAPHCELL_NUM_PROCESSES"])
    if process_id is None and "GRAPHCELL_PROCESS_ID" in os.environ:
        process_id = int(os.environ["GRAPHCELL_PROCESS_ID"])
    if not _STATE["distributed"] and (coordinator_address is not None or num_processes not in (None, 1)):
        try:
            jax.distributed.initialize(coordinator_address=coordinator_address,
                                       num_processes=num_processes, process_id=process_id)
        except RuntimeError as e:  # most often: arrays were computed before init()
            raise RuntimeError(f"graphcell.communication.init: jax.distributed.initialize failed ({e}); "
                               "call init() first thing, before any Tensor is computed") from e
        _STATE["distributed"] = True
    _STATE["initialized"] = True
    from .context import set_auto_parallel_context
    set_auto_parallel_context(device_num=jax.device_count())


HCCL_WORLD_COMM_GROUP = "hccl_world_group"
NCCL_WORLD_COMM_GROUP = "nccl_world_group"
MCCL_WORLD_COMM_GROUP = "mccl_world_group"
GlobalComm = type("GlobalComm", (), {"WORLD_COMM_GROUP": "world_group", "BACKEND": "jax"})

# Every name a MindSpore script may use for the world (its defaults say hccl_world_group, its CPU
# build mccl_world_group): all mean every process here.
_WORLD_NAMES = (HCCL_WORLD_COMM_GROUP, NCCL_WORLD_COMM_GROUP, MCCL_WORLD_COMM_GROUP)
_GROUPS: dict[str, list[int]] = {}   # create_group's groups: name -> world ranks, in group-rank order
_NOT_INITED = ("Distributed Communication has not been inited.You can't invoke this interface yet. "
               "Please call `init()` method first.")   # 2.10's words


def _check_init(what: str) -> None:
    if not _STATE["initialized"]:
        raise RuntimeError(_NOT_INITED)


def is_world(group) -> bool:
    return group is None or group in _WORLD_NAMES or group == GlobalComm.WORLD_COMM_GROUP


def _check_group_type(group, what: str) -> None:
    if not isinstance(group, str):
        raise TypeError(f"For '{what}', the argument 'group' must be type of string, "
                        f"but got 'group' type : {type(group)}.")


def group_ranks(group, what: str = "get_process_group_ranks") -> list[int]:
    """The world ranks of `group` (None or a world name: every process), in group-rank order."""
    if is_world(group):
        return list(range(jax.process_count()))
    _check_group_type(group, what)
    if group not in _GROUPS:
        raise RuntimeError(f"The group {group} does not exist.")
    return list(_GROUPS[group])


def get_rank(group=HCCL_WORLD_COMM_GROUP) -> int:
    """This process's index among the processes (0 with one process), or within `group`.
    Before init() the one-process answer, 0, as 2.10 gives."""
    if not _STATE["initialized"] or is_world(group):
        return jax.process_index()
    ranks, me = group_ranks(group, "get_rank"), jax.process_index()
    if me not in ranks:
        raise RuntimeError(f"Group {group} doesn't include this rank {me} process.")
    return ranks.index(me)


def get_group_size(group=HCCL_WORLD_COMM_GROUP) -> int:
    """The number of processes (the number of data shards to read), or of `group`'s. Before
    init() the one-process answer, 1, as 2.10 gives."""
    if not _STATE["initialized"] or is_world(group):
        return jax.process_count()
    return len(group_ranks(group, "get_group_size"))


def get_local_rank(group=HCCL_WORLD_COMM_GROUP) -> int:
    """Rank within this host: with one process per host, always 0."""
    if _STATE["initialized"]:
        group_ranks(group, "get_local_rank")   # an unknown group is an error
    return 0


def get_local_rank_size(group=HCCL_WORLD_COMM_GROUP) -> int:
    """Processes on this host: one process drives all of a host's devices, so 1."""
    if _STATE["initialized"]:
        group_ranks(group, "get_local_rank_size")
    return 1


def get_process_group_ranks(group=HCCL_WORLD_COMM_GROUP) -> list[int]:
    """The world ranks in `group` (2.10's message when this process is not in it)."""
    _check_init("get_process_group_ranks")
    if not is_world(group):
        _check_group_type(group, "get_process_group_ranks")
        if jax.process_index() not in _GROUPS.get(group, ()):
            raise RuntimeError(f"Group {group} doesn't include this rank {jax.process_index()} process.")
    return group_ranks(group)


def get_comm_name(group=HCCL_WORLD_COMM_GROUP) -> str:
    """The HCCL communicator's name on Ascend; '' here, as on 2.10's CPU build (there is no
    vendor communicator: jax runs the collectives)."""
    _check_init("get_comm_name")
    group_ranks(group, "get_comm_name")
    return ""


def _check_rank_id(value, name: str, what: str) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"For '{what}', the argument '{name}' must be type of int, "
                        f"but got '{name}' type : {type(value)}.")


def create_group(group, rank_ids, options=None) -> None:
    """Names a group of world ranks (group rank i is rank_ids[i]). The collectives of
    `graphcell.mint.distributed` accept the name; across processes they run on groups that span
    every process (see that module)."""
    _check_init("create_group")
    _check_group_type(group, "create_group")
    if not isinstance(rank_ids, list):
        raise TypeError("For 'create_group', the argument 'rank_ids' must be type of list, "
                        f"but got 'rank_ids' type : {type(rank_ids)}.")
    if not rank_ids:   # 2.10's message (a list of one is accepted)
        raise ValueError("For 'create_group', the argument 'rank_ids' size should be greater than 1, "
                         "but got 'rank_ids' size : 0.")
    if any(not isinstance(r, int) or isinstance(r, bool) or r < 0 for r in rank_ids):
        raise TypeError(f"For 'create_group', the argument 'rank_ids' must hold non-negative ints, but got {rank_ids}.")
    if len(set(rank_ids)) != len(rank_ids):
        raise ValueError(f"List rank_ids in Group {group} has duplicate data!")
    size = jax.process_count()
    outside = [r for r in rank_ids if r >= size]
    if outside:
        raise RuntimeError(f"Failed to create communication group for {group} with rank ids {rank_ids}: "
                           f"the rank {outside[0]} is out of global rank size {size}.")
    if is_world(group):
        return   # 2.10 accepts re-creating the world and changes nothing
    _GROUPS[group] = list(rank_ids)


def destroy_group(group) -> None:
    """Forgets a group made by create_group; the world cannot be destroyed."""
    _check_init("destroy_group")
    _check_group_type(group, "destroy_group")
    if is_world(group):
        raise ValueError("The world_group does not support destruction.")
    if group not in _GROUPS:
        raise KeyError(f"destroy_group: the group {group!r} does not exist")
    del _GROUPS[group]


def get_group_rank_from_world_rank(world_rank_id, group) -> int:
    """The rank within `group` of the process whose world rank is `world_rank_id`."""
    _check_init("get_group_rank_from_world_rank")
    _check_rank_id(world_rank_id, "world_rank_id", "get_group_rank_from_world_rank")
    _check_group_type(group, "get_group_rank_from_world_rank")
    ranks = group_ranks(group)
    if world_rank_id not in ranks:
        raise RuntimeError(f"Group {group} doesn't contain the global rank {world_rank_id}")
    return ranks.index(world_rank_id)


def get_world_rank_from_group_rank(group, group_rank_id) -> int:
    """The world rank of the process whose rank within `group` is `group_rank_id`."""
    _check_init("get_world_rank_from_group_rank")
    _check_group_type(group, "get_world_rank_from_group_rank")
    _check_rank_id(group_rank_id, "group_rank_id", "get_world_rank_from_group_rank")
    ranks = group_ranks(group)
    if not 0 <= group_rank_id < len(ranks):
        raise RuntimeError(f"Group {group} doesn't contain the group rank {group_rank_id}")
    return ranks[group_rank_id]


def release() -> None:
    """Shuts the distributed runtime down (if `init` started it) and resets the context."""
    from .context import set_auto_parallel_context
    if _STATE["distributed"]:
        jax.distributed.shutdown()
        _STATE["distributed"] = False
    _STATE["initialized"] = False
    _GROUPS.clear()
    set_auto_parallel_context(device_num=1)


def is_initialized() -> bool:
    return _STATE["initialized"]


__all__ = ["init", "get_rank", "get_group_size", "get_local_rank", "get_local_rank_size", "release", "GlobalComm",
           "HCCL_WORLD_COMM_GROUP", "MCCL_WORLD_COMM_GROUP", "NCCL_WORLD_COMM_GROUP", "create_group",
           "destroy_group", "get_comm_name", "get_group_rank_from_world_rank", "get_world_rank_from_group_rank",
           "get_process_group_ranks"]

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


def _check_init(what: str) -> None:
    if not _STATE["initialized"]:
        raise RuntimeError(f"graphcell.communication.{what}: call graphcell.communication.init() first")


def get_rank(group=None) -> int:
    """This process's index among the processes (0 with one process)."""
    _check_init("get_rank")
    return jax.process_index()


def get_group_size(group=None) -> int:
    """The number of processes (the number of data shards to read)."""
    _check_init("get_group_size")
    return jax.process_count()


def get_local_rank(group=None) -> int:
    """Rank within this host: with one process per host, always 0."""
    _check_init("get_local_rank")
    return 0


def release() -> None:
    """Shuts the distributed runtime down (if `init` started it) and resets the context."""
    from .context import set_auto_parallel_context
    if _STATE["distributed"]:
        jax.distributed.shutdown()
        _STATE["distributed"] = False
    _STATE["initialized"] = False
    set_auto_parallel_context(device_num=1)


GlobalComm = type("GlobalComm", (), {"WORLD_COMM_GROUP": "world_group", "BACKEND": "jax"})

__all__ = ["init", "get_rank", "get_group_size", "get_local_rank", "release", "GlobalComm"]

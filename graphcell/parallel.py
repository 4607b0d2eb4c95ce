"""Placement on several devices: meshes and shardings from JAX's SPMD engine (no pmap).

graphcell does not grow its own distribution layer. It places arrays with a
`jax.sharding.NamedSharding` and lets `jax.jit` (GSPMD) partition the compiled program, insert
the collectives, and keep the outputs sharded ("computation follows data"):

- **Ensembles** (`vmap(nn.CellList(...))`): the stacked parameters and the mapped inputs are
  split over a 1-D mesh whose axis is named `ensemble`, so each device holds and runs its share
  of the members. N must divide evenly; when it does not, the mesh uses the largest device count
  that divides N (a warning says how many devices sit idle) -- padding would change the stacks'
  shapes, which the graph, checkpoints and member views all depend on.
- **Data parallel** (`ParallelMode.DATA_PARALLEL`): the batch is split over a 1-D mesh named
  `data` spanning every device of every process (`shard_batch`); parameters are replicated
  (`replicate`). Gradients of a loss over the global batch then come out of jit already
  all-reduced: GSPMD emits the all-reduce where the backward pass sums over the sharded batch.

Turn ensemble sharding off with `set_context(ensemble_sharding=False)` or choose the devices
with `vmap(..., devices=[...])`.
"""
from __future__ import annotations

import warnings

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

ENSEMBLE_AXIS = "ensemble"
DATA_AXIS = "data"


def sharding_enabled() -> bool:
    """The context's `ensemble_sharding` switch (default on)."""
    from .context import get_context
    try:
        return bool(get_context("ensemble_sharding"))
    except ValueError:  # never set
        return True


def ensemble_mesh(devices=None, n: int | None = None) -> Mesh | None:
    """A 1-D mesh over `devices` (default: all visible ones) with axis `ensemble`.

    With `n` (the number of members) the mesh keeps the largest device count that divides n,
    warning when that leaves devices idle. Returns None when only one device would be used.
    """
    devices = _device_list(devices, "ensemble_mesh")
    count = len(devices)
    if n is not None:
        count = max(d for d in range(1, len(devices) + 1) if n % d == 0)
        if count < len(devices):
            warnings.warn(f"vmap: an ensemble of {n} members does not split evenly over {len(devices)} "
                          f"devices; using {count} of them (choose N divisible by the device count, or "
                          "pass devices=...)", stacklevel=3)
    if count < 2:
        return None
    return Mesh(np.array(devices[:count]), (ENSEMBLE_AXIS,))


def ensemble_sharding(mesh: Mesh | None, ndim: int, axis: int = 0) -> NamedSharding | None:
    """A sharding that splits dimension `axis` of an ndim-array over the mesh's ensemble axis."""
    if mesh is None:
        return None
    spec = [None] * ndim
    spec[axis] = ENSEMBLE_AXIS
    return NamedSharding(mesh, PartitionSpec(*spec))


def place(array, sharding):
    """`array` with `sharding` (no copy when it already has it; unchanged when sharding is None)."""
    if sharding is None or getattr(array, "sharding", None) == sharding:
        return array
    return jax.device_put(array, sharding)


# -- data parallel -------------------------------------------------------------------------------

def data_mesh(devices=None) -> Mesh:
    """The 1-D `data` mesh over every device of every process (or the given ones)."""
    return Mesh(np.array(_device_list(devices, "data_mesh")), (DATA_AXIS,))


def shard_batch(*tensors, mesh: Mesh | None = None):
    """Splits each Tensor's axis 0 over the `data` mesh and returns global Tensors.

    Each process passes ITS part of the batch (what `GeneratorDataset(num_shards=get_group_size(),
    shard_id=get_rank())` yields); the result is the global batch, the processes' parts stacked
    in rank order. With one process that is the batch itself, split over the local devices.
    """
    from .tensor import Tensor
    mesh = mesh or data_mesh()
    out = []
    for i, t in enumerate(tensors):
        local = np.asarray(t.asnumpy() if isinstance(t, Tensor) else t)
        if local.ndim == 0:
            raise ValueError(f"shard_batch: argument {i} is a scalar; only batched arrays are split")
        per_process = mesh.devices.size // jax.process_count()
        if local.shape[0] % per_process:
            raise ValueError(f"shard_batch: argument {i} has {local.shape[0]} rows in this process, "
                             f"which does not split over its {per_process} devices; use a batch size "
                             f"divisible by {per_process}")
        sharding = NamedSharding(mesh, PartitionSpec(DATA_AXIS, *[None] * (local.ndim - 1)))
        out.append(Tensor._wrap(jax.make_array_from_process_local_data(sharding, local)))
    return out[0] if len(out) == 1 else tuple(out)


def replicate(params, mesh: Mesh | None = None) -> None:
    """Places Parameters (a Cell's, an optimizer's, or a list) whole on every device of the mesh,
    in place. Needed with several processes, where every jit input must be a global array."""
    mesh = mesh or data_mesh()
    if hasattr(params, "get_parameters"):
        params = params.get_parameters()
    sharding = NamedSharding(mesh, PartitionSpec())
    for p in params:
        if p._home is not None:
            continue  # an ensemble member: its stack is placed by the ensemble
        value = p._payload
        if jax.process_count() > 1:  # every process holds the same value: build the global array
            value = jax.make_array_from_callback(np.shape(value), sharding, lambda idx, v=np.asarray(value): v[idx])
        p._payload = place(value, sharding)


def _device_list(devices, where: str) -> list:
    if devices is None:
        return list(jax.devices())
    if isinstance(devices, int) and not isinstance(devices, bool):
        if not 1 <= devices <= jax.device_count():
            raise ValueError(f"{where}: devices={devices} but {jax.device_count()} device(s) are visible")
        return list(jax.devices()[:devices])
    devices = list(devices)
    if not devices or not all(isinstance(d, jax.Device) for d in devices):
        raise TypeError(f"{where}: devices must be an int or a non-empty list of jax devices, got {devices!r}")
    return devices


__all__ = ["ENSEMBLE_AXIS", "DATA_AXIS", "ensemble_mesh", "ensemble_sharding", "place", "data_mesh",
           "shard_batch", "replicate", "sharding_enabled"]

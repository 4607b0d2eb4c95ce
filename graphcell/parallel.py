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
  `data` spanning every device of every process; parameters are replicated. A `jit` call
  places its inputs itself (`place_batch`); `shard_batch` does it by hand. Gradients of a loss
  over the global batch then come out of jit already all-reduced: GSPMD emits the all-reduce
  where the backward pass sums over the sharded batch.
- **Both at once**: a 2-D mesh with axes (`ensemble`, `data`) (`ensemble_data_mesh`): stacks
  split on `ensemble` and replicated on `data`, each member's batch split on `data`; the
  gradient all-reduce then runs within each `data` group only. `vmap(..., mesh=(2, 2))` or
  `mesh=jax.sharding.Mesh(...)` asks for it; under DATA_PARALLEL it is the ensemble default.

Turn vmap's placement off with `set_context(ensemble_sharding=False)` or choose the devices
with `vmap(..., devices=[...])`.
"""
from __future__ import annotations

import functools
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


def data_parallel_mode() -> bool:
    """Whether the auto-parallel context is DATA_PARALLEL."""
    from .context import ParallelMode, get_auto_parallel_context
    return get_auto_parallel_context("parallel_mode") == ParallelMode.DATA_PARALLEL


# -- ensembles -----------------------------------------------------------------------------------

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
                          f"devices; using {count} of them (choose N divisible by the device count, "
                          "pass devices=..., or let the data axis take the rest: mesh=(members, data) "
                          "or DATA_PARALLEL)", stacklevel=5)
    if count < 2:
        return None
    return Mesh(np.array(devices[:count]), (ENSEMBLE_AXIS,))


def ensemble_data_mesh(devices=None, n: int | None = None, shape=None) -> Mesh | None:
    """A 2-D mesh with axes (`ensemble`, `data`): members split over the first, each member's
    batch over the second.

    shape=(members, data) lays that grid over the first members*data of `devices` (default: all
    visible ones); n must divide by `members`. Without a shape (DATA_PARALLEL's default) the
    ensemble axis takes the largest divisor of the device count that also divides n (splitting
    members needs no communication) and the data axis the rest. None when the grid has 1 device.
    """
    devices = _device_list(devices, "vmap")
    if shape is None:
        members = max(d for d in range(1, len(devices) + 1)
                      if len(devices) % d == 0 and (n is None or n % d == 0))
        shape = (members, len(devices) // members)
    shape = check_mesh_shape(shape, devices)
    if n is not None and n % shape[0]:
        raise ValueError(f"vmap: mesh={shape} splits the members {shape[0]} ways, but the ensemble has "
                         f"{n} members; choose a members count that divides {n}")
    if shape[0] * shape[1] < 2:
        return None
    return Mesh(np.array(devices[:shape[0] * shape[1]]).reshape(shape), (ENSEMBLE_AXIS, DATA_AXIS))


def vmap_mesh(mesh=None, devices=None, n: int | None = None) -> Mesh | None:
    """The mesh a vmap over n members is placed on: the user's `jax.sharding.Mesh`, the grid of a
    `(members, data)` shape, the 2-D default under DATA_PARALLEL, else the 1-D ensemble mesh."""
    if isinstance(mesh, Mesh):
        check_mesh(mesh, n)
        return mesh if mesh.devices.size > 1 else None
    if mesh is not None or data_parallel_mode():
        return ensemble_data_mesh(devices, n, mesh)
    return ensemble_mesh(devices, n)


def check_mesh_shape(shape, devices=None) -> tuple[int, int]:
    """`shape` as a (members, data) pair of positive ints that fits on `devices` (default: all)."""
    device_count = len(_device_list(devices, "vmap"))
    if (not isinstance(shape, (tuple, list)) or len(shape) != 2
            or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 1 for s in shape)):
        raise TypeError(f"vmap: mesh must be a jax.sharding.Mesh or a (members, data) pair of positive "
                        f"ints, got {shape!r}")
    if shape[0] * shape[1] > device_count:
        raise ValueError(f"vmap: mesh={tuple(shape)} needs {shape[0] * shape[1]} devices but "
                         f"{device_count} are available; choose members x data <= {device_count}")
    return tuple(shape)


def check_mesh(mesh: Mesh, n: int | None = None) -> None:
    """A user's Mesh must name its axes `ensemble` and/or `data`, and split n evenly."""
    names = tuple(mesh.axis_names)
    if not names or not set(names) <= {ENSEMBLE_AXIS, DATA_AXIS} or len(set(names)) != len(names):
        raise ValueError(f"vmap: mesh axes must be named {ENSEMBLE_AXIS!r} and/or {DATA_AXIS!r}, got {names}; "
                         f"e.g. Mesh(np.array(jax.devices()).reshape(2, 2), ('ensemble', 'data'))")
    members = mesh.shape.get(ENSEMBLE_AXIS, 1)
    if n is not None and n % members:
        raise ValueError(f"vmap: the mesh's {ENSEMBLE_AXIS!r} axis has {members} devices, but the ensemble "
                         f"has {n} members; use an ensemble axis size that divides {n}")


def ensemble_sharding(mesh: Mesh | None, ndim: int, axis: int | None = 0,
                      batch_axis: int | None = None) -> NamedSharding | None:
    """A sharding that splits dimension `axis` over the mesh's `ensemble` axis and (when given)
    dimension `batch_axis` over its `data` axis; dimensions the mesh has no axis for stay whole."""
    if mesh is None:
        return None
    spec = [None] * ndim
    if axis is not None and ENSEMBLE_AXIS in mesh.axis_names:
        spec[axis] = ENSEMBLE_AXIS
    if batch_axis is not None and DATA_AXIS in mesh.axis_names:
        spec[batch_axis] = DATA_AXIS
    return NamedSharding(mesh, PartitionSpec(*spec))


def place_mapped(array, mesh: Mesh, axis: int | None, where: str):
    """A vmap input on `mesh`: its mapped `axis` on `ensemble`, and with a `data` axis its batch
    (the first unmapped dimension, i.e. axis 0 of each member's slice) on `data`. A batch that does
    not divide over `data` stays whole there (same results, no data split) with a warning."""
    data = mesh.shape.get(DATA_AXIS, 1)
    batch_axis = None
    if data > 1:
        candidate = 1 if axis == 0 else 0
        if candidate < np.ndim(array):
            if np.shape(array)[candidate] % data == 0:
                batch_axis = candidate
            else:
                warnings.warn(f"vmap: {where} has {np.shape(array)[candidate]} rows on its batch axis "
                              f"{candidate}, which do not split over the {data} devices of the data axis; "
                              f"it is not split there (use a batch size divisible by {data})", stacklevel=4)
    if axis is None and batch_axis is None:
        return array  # unmapped and not split: leave it where it is
    return place(array, ensemble_sharding(mesh, np.ndim(array), axis, batch_axis))


def place(array, sharding):
    """`array` with `sharding` (no copy when it already has it; unchanged when sharding is None)."""
    if sharding is None or getattr(array, "sharding", None) == sharding:
        return array
    return jax.device_put(array, sharding)


# -- data parallel -------------------------------------------------------------------------------

def data_mesh(devices=None) -> Mesh:
    """The 1-D `data` mesh over every device of every process (or the given ones)."""
    if devices is None:
        return _default_data_mesh(tuple(jax.devices()))
    return Mesh(np.array(_device_list(devices, "data_mesh")), (DATA_AXIS,))


@functools.lru_cache(maxsize=4)
def _default_data_mesh(devices: tuple) -> Mesh:
    return Mesh(np.array(devices), (DATA_AXIS,))


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
        _check_rows(local.shape[0], mesh, f"shard_batch: argument {i}")
        out.append(Tensor._wrap(_global_batch(local, mesh)))
    return out[0] if len(out) == 1 else tuple(out)


def place_batch(args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """DATA_PARALLEL's automatic placement for a `jit` call: axis 0 of every argument Tensor is
    split over the `data` mesh (this process's part of the batch, as in `shard_batch`). Left
    alone: scalars, Parameters, and arrays already spread over several devices (placed by hand).
    With one process, an axis 0 that does not divide over the devices stays on one device (same
    results, no split) with a warning; with several processes that is an error. Outside
    DATA_PARALLEL (or with one device) the arguments are returned unchanged."""
    if not data_parallel_mode() or jax.device_count() < 2:
        return args, kwargs
    from .frontend import pytree
    from .tensor import Parameter, Tensor
    leaves, structure = pytree.flatten((args, kwargs))
    mesh, placed, changed = data_mesh(), [], False
    for i, t in enumerate(leaves):
        array = t._payload
        spread = hasattr(array, "sharding") and (len(array.sharding.device_set) > 1
                                                 or not array.is_fully_addressable)
        if isinstance(t, Parameter) or t.is_symbolic or t.ndim == 0 or spread:
            placed.append(t)
            continue
        where = f"jit: argument {i} (shape {tuple(t.shape)})"
        if jax.process_count() == 1 and t.shape[0] % mesh.devices.size:
            warnings.warn(f"{where}: axis 0 has {t.shape[0]} rows, which do not split over the "
                          f"{mesh.devices.size} devices of the data mesh; it runs unsplit (use a batch "
                          f"size divisible by {mesh.devices.size}, e.g. batch(..., drop_remainder=True))",
                          stacklevel=3)
            placed.append(t)
            continue
        _check_rows(t.shape[0], mesh, where)
        placed.append(Tensor._wrap(_global_batch(array, mesh)))
        changed = True
    return pytree.unflatten(structure, placed) if changed else (args, kwargs)


def _check_rows(rows: int, mesh: Mesh, where: str) -> None:
    per_process = mesh.devices.size // jax.process_count()
    if rows % per_process:
        raise ValueError(f"{where} has {rows} rows in this process, which does not split over its "
                         f"{per_process} devices; use a batch size divisible by {per_process}")


def _global_batch(local, mesh: Mesh):
    """The global array whose rows are every process's `local` rows, split on the data axis."""
    sharding = NamedSharding(mesh, PartitionSpec(DATA_AXIS, *[None] * (np.ndim(local) - 1)))
    if jax.process_count() == 1:
        return jax.device_put(local, sharding)
    return jax.make_array_from_process_local_data(sharding, np.asarray(local))


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


__all__ = ["ENSEMBLE_AXIS", "DATA_AXIS", "ensemble_mesh", "ensemble_data_mesh", "vmap_mesh", "ensemble_sharding",
           "place", "place_mapped", "data_mesh", "shard_batch", "place_batch", "replicate", "sharding_enabled",
           "data_parallel_mode", "check_mesh", "check_mesh_shape"]

"""mindspore.mint.distributed: torch.distributed's API over JAX's processes.

A rank is a process, as in `graphcell.communication` (jax.process_index / process_count); groups
are that module's named lists of world ranks. The collectives take eager Tensors and write their
results in place, returning None (or, with async_op=True, a finished `Work` handle):

- **One process** (world size 1, the default): the world-size-1 results 2.10 and torch give:
  all_reduce leaves the tensor as it is, all_gather fills a list of one, scatter/gather move the
  one tensor, broadcast comes from rank 0, reduce_scatter reduces a one-element list. Sending to
  or receiving from oneself is refused (torch's ValueError).
- **Several processes** (after `init_process_group(world_size=N, rank=r, init_method="tcp://host:port")`
  or `communication.init(...)`, i.e. jax.distributed): every collective here works across the
  processes, through jax.experimental.multihost_utils -- `process_allgather` (all_reduce, reduce,
  all_gather*, gather*, reduce_scatter*, all_to_all*, the *_object ones), `broadcast_one_to_all`
  (broadcast, scatter) and `sync_global_devices` (barrier). They move whole tensors through every
  host, so they suit metrics, seeds and small state; a training step's gradients belong in `jit`
  over a mesh (`graphcell.parallel`), where XLA emits the collective itself. Limits there:
  a group must span every process (multihost_utils has no sub-group collectives), and
  point-to-point (send, recv, isend, irecv, batch_isend_irecv, send_object_list,
  recv_object_list) has no JAX counterpart; both raise NotImplementedError naming the alternative.
- **Inside jit** (a traced Tensor) nothing here runs: the error points to meshes and shardings.
"""
from __future__ import annotations

import base64
import hashlib
import json

import jax
import numpy as np

from .. import communication as _comm
from ..tensor import Tensor

_REDUCTIONS = {"sum": np.sum, "prod": np.prod, "min": np.min, "max": np.max, "avg": np.mean}
_BACKENDS = ("hccl", "mccl", "nccl", "gloo")   # accepted for ported scripts; jax picks its own
_MESH_HINT = ("run the computation under jit on a mesh with shardings (graphcell.parallel: "
              "shard_batch / DATA_PARALLEL), where XLA emits the collectives")


class Work:
    """The handle async_op=True returns: every collective here finishes before returning."""

    def wait(self, timeout=None):
        return None   # 2.10's CommHandle.wait() returns None

    def is_completed(self) -> bool:
        return True


def _done(async_op):
    return Work() if async_op else None


# -- process group -------------------------------------------------------------------------------

def is_available() -> bool:
    return True


def is_initialized() -> bool:
    return _comm.is_initialized()


def init_process_group(backend="hccl", init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None) -> None:
    """Starts the world. world_size > 1 starts jax.distributed: the coordinator comes from
    init_method "tcp://host:port" (or env:// / None: MASTER_ADDR and MASTER_PORT), world_size and
    rank from the arguments or WORLD_SIZE / RANK. `backend` names are accepted for ported scripts;
    JAX chooses the collectives (gloo on CPU, NCCL on GPU)."""
    import os
    if backend is not None and backend not in _BACKENDS:
        raise ValueError(f"init_process_group: backend must be one of {', '.join(_BACKENDS)}, got {backend!r} "
                         "(jax chooses the collectives itself: gloo on CPU, NCCL on GPU)")
    if _comm.is_initialized():
        raise ValueError("trying to initialize the default process group twice!")
    if world_size == -1 and "WORLD_SIZE" in os.environ:
        world_size = int(os.environ["WORLD_SIZE"])
    if rank == -1 and "RANK" in os.environ:
        rank = int(os.environ["RANK"])
    if world_size in (-1, 1):
        _comm.init()
        return
    if isinstance(init_method, str) and init_method.startswith("tcp://"):
        address = init_method[len("tcp://"):]
    elif init_method in (None, "env://") and "MASTER_ADDR" in os.environ:
        address = f"{os.environ['MASTER_ADDR']}:{os.environ.get('MASTER_PORT', '29500')}"
    elif init_method in (None, "env://"):
        address = None   # jax's own discovery (Slurm, Open MPI) or GRAPHCELL_COORDINATOR
    else:
        raise ValueError(f"init_process_group: init_method must be 'tcp://host:port' or 'env://', got {init_method!r}")
    _comm.init(coordinator_address=address, num_processes=world_size, process_id=None if rank < 0 else rank)


def destroy_process_group(group=None) -> None:
    """Without a group (or the world): shuts the world down; a named group is forgotten."""
    if _comm.is_world(group):
        _comm.release()
    else:
        _comm.destroy_group(group)


def get_backend(group=None) -> str:
    """The collectives jax runs: 'gloo' on CPU, 'nccl' on GPU, else jax's platform name."""
    if group is not None and not isinstance(group, str):
        raise TypeError("For 'get_backend', the argument 'group' must be type of string or None, "
                        f"but got 'group' type : {type(group)}.")
    platform = jax.default_backend()
    return {"cpu": "gloo", "gpu": "nccl", "cuda": "nccl", "rocm": "rccl"}.get(platform, platform)


def get_rank(group=None) -> int:
    """This process's rank in `group`; -1 when the group is unknown or does not hold it (2.10, torch)."""
    if not _comm.is_initialized() or _comm.is_world(group):
        return jax.process_index()
    ranks = _comm._GROUPS.get(group, ())
    return ranks.index(jax.process_index()) if jax.process_index() in ranks else -1


def get_world_size(group=None) -> int:
    """The number of ranks in `group`; -1 when the group is unknown (measured on 2.10)."""
    if not _comm.is_initialized() or _comm.is_world(group):
        return jax.process_count()
    return len(_comm._GROUPS[group]) if group in _comm._GROUPS else -1


def get_process_group_ranks(group=None) -> list[int]:
    """The world ranks in `group` (None: the world)."""
    return _comm.get_process_group_ranks(group)


def get_group_rank(group, global_rank) -> int:
    """The rank within `group` of world rank `global_rank` (the world: the same number)."""
    if group is not None and not isinstance(group, str):
        raise TypeError("For 'get_group_rank', the argument 'group' must be type of string, "
                        f"but got 'group' type : {type(group)}.")
    _comm._check_init("get_group_rank")
    if _comm.is_world(group):
        return global_rank
    ranks = _comm.group_ranks(group, "get_group_rank")
    if global_rank not in ranks:
        raise KeyError(f"For 'get_group_rank', the argument 'global_rank' is not found in group {group} "
                       f"(ranks {ranks}): {global_rank}")
    return ranks.index(global_rank)


def get_global_rank(group, group_rank) -> int:
    """The world rank of `group`'s rank `group_rank` (the world: the same number)."""
    if _comm.is_world(group):
        return group_rank
    return _comm.get_world_rank_from_group_rank(group, group_rank)


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None) -> str:
    """A group of the world ranks `ranks`, returned by name (2.10's naming:
    backend_size_sha1 of the ranks); None gives the world's name."""
    if ranks is None:
        return _comm.GlobalComm.WORLD_COMM_GROUP
    if not isinstance(ranks, list):
        raise TypeError(f"ranks must be list, but got {type(ranks)}")
    if backend is not None and backend not in _BACKENDS:
        raise TypeError(f"the input backend must be one of {', '.join(_BACKENDS)}, but got {backend}")
    name = f"{backend or 'hccl'}_{len(ranks)}_{hashlib.sha1('_'.join(map(str, ranks)).encode()).hexdigest()}"
    _comm.create_group(name, ranks)
    return name


# -- helpers -------------------------------------------------------------------------------------

def _group(group, what: str) -> tuple[str, list[int]]:
    """(the group's name for messages, its world ranks), checked for the collective `what`."""
    if group is not None and not isinstance(group, str):
        raise TypeError(f"The argument 'group' must be type of string, but got 'group' type : {type(group)}.")
    _comm._check_init(what)   # as torch: the collectives need init_process_group first
    name = _comm.GlobalComm.WORLD_COMM_GROUP if group is None else group
    ranks = _comm.group_ranks(group, what)
    me = jax.process_index()
    if me not in ranks:
        raise RuntimeError(f"Group {name} doesn't include this rank {me} process.")
    if len(ranks) != jax.process_count():
        raise NotImplementedError(
            f"mint.distributed.{what}: group {name} holds ranks {ranks} of {jax.process_count()} processes; "
            "across processes graphcell's collectives (jax.experimental.multihost_utils) run on groups "
            f"that span every process. Use the world group, or {_MESH_HINT}")
    return name, ranks


def _value(tensor, what: str) -> np.ndarray:
    if not isinstance(tensor, Tensor):
        raise TypeError(f"For {what}, the input tensor must be tensor")
    if tensor.is_symbolic:
        raise RuntimeError(f"mint.distributed.{what} moves eager Tensors between processes and cannot run "
                           f"inside jit / graph mode; there, {_MESH_HINT}")
    return np.asarray(tensor)


def _write(tensor, value) -> None:
    tensor.copy_(Tensor(np.asarray(value).astype(np.asarray(tensor).dtype)))


def _tensor_list(tensors, size: int, what: str) -> list:
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"Expected list or tuple, but got {type(tensors)}.")
    if len(tensors) != size:
        raise TypeError(f"The argument list tensor len must be equal to group rank size, but got {len(tensors)}.")
    for t in tensors:
        _value(t, what)
    return list(tensors)


def _check_op(op, what: str):
    if op not in _REDUCTIONS:
        raise TypeError(f"For {what}, the input op value must be one of sum, prod, min, max, avg")
    return _REDUCTIONS[op]


def _check_peer(peer, ranks: list[int], name: str, what: str, role: str = "src") -> None:
    if not isinstance(peer, int) or isinstance(peer, bool):
        raise TypeError(f"For {what}, the {role} must be int")
    if peer not in ranks:
        raise RuntimeError(f"Group {name} doesn't contain the global rank {peer}")


def _gather_all(array: np.ndarray, ranks: list[int]) -> np.ndarray:
    """Every rank's `array` stacked in group-rank order (same shape on every process)."""
    if jax.process_count() == 1:
        return array[None]
    from jax.experimental import multihost_utils
    return np.asarray(multihost_utils.process_allgather(array, tiled=False))[ranks]


# Objects travel between processes as tagged JSON, not pickle: unpickling another process's bytes
# would run whatever code they name, and no graphcell loading path does that.
_OBJECT_TYPES = ("None, bool, int, float, complex, str, bytes, lists, tuples, dicts, numpy arrays "
                 "and Tensors")


def _encode(obj, what: str):
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, complex):
        return {"complex": [obj.real, obj.imag]}
    if isinstance(obj, bytes):
        return {"bytes": base64.b64encode(obj).decode()}
    if isinstance(obj, (list, tuple)):
        return {"list" if isinstance(obj, list) else "tuple": [_encode(o, what) for o in obj]}
    if isinstance(obj, dict):
        return {"dict": [[_encode(k, what), _encode(v, what)] for k, v in obj.items()]}
    if isinstance(obj, (np.ndarray, np.generic, Tensor)):
        array = np.asarray(obj.asnumpy() if isinstance(obj, Tensor) else obj)   # tobytes() is C order
        if array.dtype.hasobject:
            raise TypeError(f"{what}: a numpy array of Python objects cannot be sent between processes")
        return {"array": [array.dtype.str, list(array.shape), base64.b64encode(array.tobytes()).decode()],
                "tensor": isinstance(obj, Tensor), "scalar": isinstance(obj, np.generic)}
    raise TypeError(f"{what}: graphcell sends objects between processes without pickle; it takes "
                    f"{_OBJECT_TYPES}, got a {type(obj).__name__}")


def _decode(data):
    if not isinstance(data, dict):
        return data
    if "array" in data:
        dtype, shape, raw = data["array"]
        array = np.frombuffer(base64.b64decode(raw), np.dtype(dtype)).reshape(shape).copy()
        if data["tensor"]:
            return Tensor(array)
        return array[()] if data["scalar"] else array
    (tag, value), = data.items()
    if tag == "complex":
        return complex(*value)
    if tag == "bytes":
        return base64.b64decode(value)
    if tag == "dict":
        return {_hashable(_decode(k)): _decode(v) for k, v in value}
    items = [_decode(v) for v in value]
    return items if tag == "list" else tuple(items)


def _hashable(key):
    return tuple(_hashable(k) for k in key) if isinstance(key, list) else key


def _gather_objects(obj, ranks: list[int], what: str = "object collective") -> list:
    """Every rank's `obj` (see `_encode` for the types), in group-rank order (any sizes: padded bytes)."""
    encoded = json.dumps(_encode(obj, what)).encode()   # checked in one process too: same rules everywhere
    if jax.process_count() == 1:
        return [obj]
    data = np.frombuffer(encoded, np.uint8)
    sizes = _gather_all(np.array([data.size], np.int64), list(range(jax.process_count())))[:, 0]
    padded = np.zeros(int(sizes.max()), np.uint8)
    padded[:data.size] = data
    everyone = _gather_all(padded, list(range(jax.process_count())))
    return [_decode(json.loads(everyone[r, :sizes[r]].tobytes())) for r in ranks]


def _broadcast(array: np.ndarray, src: int) -> np.ndarray:
    if jax.process_count() == 1:
        return array
    from jax.experimental import multihost_utils
    return np.asarray(multihost_utils.broadcast_one_to_all(array, is_source=jax.process_index() == src))


# -- collectives ---------------------------------------------------------------------------------

def all_reduce(tensor, op="sum", group=None, async_op=False):
    """Every rank's tensor reduced by `op` ('sum', 'prod', 'min', 'max', 'avg'), written into each."""
    reduce = _check_op(op, "all_reduce")
    value = _value(tensor, "all_reduce")
    _, ranks = _group(group, "all_reduce")
    _write(tensor, reduce(_gather_all(value, ranks), axis=0))
    return _done(async_op)


def reduce(tensor, dst, op="sum", group=None, async_op=False):
    """As all_reduce, written into rank `dst`'s tensor only."""
    reducer = _check_op(op, "reduce")
    value = _value(tensor, "reduce")
    name, ranks = _group(group, "reduce")
    _check_peer(dst, ranks, name, "reduce", "dst")
    result = reducer(_gather_all(value, ranks), axis=0)
    if jax.process_index() == dst:
        _write(tensor, result)
    return _done(async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """tensor_list[i] = rank i's tensor."""
    value = _value(tensor, "all_gather")
    _, ranks = _group(group, "all_gather")
    outs = _tensor_list(tensor_list, len(ranks), "all_gather")
    for out in outs:
        if tuple(out.shape) != value.shape:
            raise TypeError(f"For all_gather, the output shape should be {tuple(out.shape)}, but got {value.shape}.")
    for out, part in zip(outs, _gather_all(value, ranks)):
        _write(out, part)
    return _done(async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """The ranks' input tensors concatenated along axis 0 into output_tensor."""
    value = _value(input_tensor, "all_gather_into_tensor")
    _value(output_tensor, "all_gather_into_tensor")
    _, ranks = _group(group, "all_gather_into_tensor")
    expected = (len(ranks) * value.shape[0],) + value.shape[1:] if value.ndim else (len(ranks),)
    if tuple(output_tensor.shape) != expected:
        raise TypeError(f"For all_gather_into_tensor, the output shape should be {expected}, "
                        f"but got {tuple(output_tensor.shape)}.")
    _write(output_tensor, _gather_all(value, ranks).reshape(expected))
    return _done(async_op)


def all_gather_into_tensor_uneven(output, input, output_split_sizes=None, group=None, async_op=False):  # noqa: A002
    """As all_gather_into_tensor with axis-0 sizes that may differ by rank (output_split_sizes[i]
    rows come from rank i)."""
    value = _value(input, "all_gather_into_tensor_uneven")
    _value(output, "all_gather_into_tensor_uneven")
    _, ranks = _group(group, "all_gather_into_tensor_uneven")
    parts = _gather_objects(value, ranks)
    sizes = [p.shape[0] for p in parts]
    if output_split_sizes is not None and list(output_split_sizes) != sizes:
        raise ValueError(f"For all_gather_into_tensor_uneven, output_split_sizes {list(output_split_sizes)} "
                         f"must equal the ranks' input sizes along axis 0, {sizes}.")
    result = np.concatenate(parts, axis=0)
    if tuple(output.shape) != result.shape:
        raise TypeError(f"For all_gather_into_tensor_uneven, the output shape should be {result.shape}, "
                        f"but got {tuple(output.shape)}.")
    _write(output, result)
    return _done(async_op)


def all_gather_object(object_list, obj, group=None):
    """object_list[i] = rank i's obj (any picklable object)."""
    _, ranks = _group(group, "all_gather_object")
    if len(object_list) != len(ranks):
        raise TypeError(f"The len of argument object_list must be equal to group rank size, but got {len(object_list)}.")
    object_list[:] = _gather_objects(obj, ranks)


def gather(tensor, gather_list, dst=0, group=None, async_op=False):
    """gather_list[i] = rank i's tensor, on rank `dst` (other ranks may pass None)."""
    value = _value(tensor, "gather")
    name, ranks = _group(group, "gather")
    _check_peer(dst, ranks, name, "gather", "dst")
    everyone = _gather_all(value, ranks)
    if jax.process_index() == dst:
        for out, part in zip(_tensor_list(gather_list, len(ranks), "gather"), everyone):
            _write(out, part)
    return _done(async_op)


def gather_object(obj, object_gather_list=None, dst=0, group=None):
    """object_gather_list[i] = rank i's obj, on rank `dst`."""
    name, ranks = _group(group, "gather_object")
    _check_peer(dst, ranks, name, "gather_object", "dst")
    everyone = _gather_objects(obj, ranks)
    if jax.process_index() == dst:
        if object_gather_list is None or len(object_gather_list) < len(ranks):
            raise TypeError("The len of argument object_gather_list must be equal to group rank size, "
                            f"but got {None if object_gather_list is None else len(object_gather_list)}.")
        object_gather_list[:len(ranks)] = everyone


def broadcast(tensor, src, group=None, async_op=False):
    """Rank `src`'s tensor written into every rank's."""
    value = _value(tensor, "broadcast")
    name, ranks = _group(group, "broadcast")
    _check_peer(src, ranks, name, "broadcast")
    _write(tensor, _broadcast(value, src))
    return _done(async_op)


def broadcast_object_list(object_list, src=0, group=None, device=None):
    """Rank `src`'s object_list copied into every rank's (same length on every rank)."""
    name, ranks = _group(group, "broadcast_object_list")
    _check_peer(src, ranks, name, "broadcast_object_list")
    object_list[:] = _gather_objects(list(object_list), ranks)[ranks.index(src)]


def scatter(tensor, scatter_list, src=0, group=None, async_op=False):
    """Rank i's tensor = rank `src`'s scatter_list[i] (other ranks may pass None)."""
    value = _value(tensor, "scatter")
    name, ranks = _group(group, "scatter")
    _check_peer(src, ranks, name, "scatter")
    if jax.process_index() == src:
        parts = _tensor_list(scatter_list, len(ranks), "scatter")
        for part in parts:
            if tuple(part.shape) != value.shape:
                raise TypeError(f"The argument list tensor shape must be equal to tensor shape, but got {tuple(part.shape)}.")
        stacked = np.stack([np.asarray(p).astype(value.dtype) for p in parts])
    else:
        stacked = np.zeros((len(ranks),) + value.shape, value.dtype)
    _write(tensor, _broadcast(stacked, src)[ranks.index(jax.process_index())])
    return _done(async_op)


def scatter_object_list(scatter_object_output_list, scatter_object_input_list, src=0, group=None):
    """scatter_object_output_list[0] on rank i = rank `src`'s scatter_object_input_list[i]."""
    name, ranks = _group(group, "scatter_object_list")
    _check_peer(src, ranks, name, "scatter_object_list")
    mine = jax.process_index() == src
    if mine and len(scatter_object_input_list) != len(ranks):
        raise TypeError("The len of argument scatter_object_input_list must be equal to group rank size, "
                        f"but got {len(scatter_object_input_list)}.")
    sent = _gather_objects(list(scatter_object_input_list) if mine else None, ranks)[ranks.index(src)]
    scatter_object_output_list[0] = sent[ranks.index(jax.process_index())]


def reduce_scatter(output, input_list, op="sum", group=None, async_op=False):
    """Rank i's output = the reduction over ranks of their input_list[i]."""
    reducer = _check_op(op, "reduce_scatter")
    _value(output, "reduce_scatter")
    _, ranks = _group(group, "reduce_scatter")
    parts = _tensor_list(input_list, len(ranks), "reduce_scatter")
    stacked = np.stack([np.asarray(p) for p in parts])
    me = ranks.index(jax.process_index())
    _write(output, reducer(_gather_all(stacked, ranks)[:, me], axis=0))
    return _done(async_op)


def _split_rows(value: np.ndarray, sizes, count: int, what: str) -> list[np.ndarray]:
    """value split along axis 0 into `count` parts of `sizes` rows (default: equal parts)."""
    if sizes is None:
        if value.shape[0] % count:
            raise ValueError(f"For {what}, the input's axis 0 ({value.shape[0]}) must divide by the group size {count}.")
        sizes = [value.shape[0] // count] * count
    sizes = list(sizes)
    if len(sizes) != count or sum(sizes) != value.shape[0]:
        raise ValueError(f"For {what}, the split sizes {sizes} must be {count} sizes summing to the input's "
                         f"axis 0 ({value.shape[0]}).")
    return np.split(value, np.cumsum(sizes)[:-1], axis=0)


def reduce_scatter_tensor(output, input, op="sum", group=None, async_op=False):  # noqa: A002
    """input split into equal axis-0 parts; rank i's output = the reduction of the ranks' part i."""
    return _reduce_scatter_rows(output, input, None, op, group, async_op, "reduce_scatter_tensor")


def reduce_scatter_tensor_uneven(output, input, input_split_sizes=None, op="sum", group=None, async_op=False):  # noqa: A002
    """As reduce_scatter_tensor with input_split_sizes rows per rank (the same on every rank)."""
    return _reduce_scatter_rows(output, input, input_split_sizes, op, group, async_op, "reduce_scatter_tensor_uneven")


def _reduce_scatter_rows(output, input, input_split_sizes, op, group, async_op, what):  # noqa: A002
    reducer = _check_op(op, what)
    value = _value(input, what)
    _value(output, what)
    _, ranks = _group(group, what)
    parts = _split_rows(value, input_split_sizes, len(ranks), what)
    me = ranks.index(jax.process_index())
    result = reducer(_gather_all(value, ranks), axis=0)
    result = _split_rows(result, input_split_sizes, len(ranks), what)[me]
    if tuple(output.shape) != parts[me].shape:
        raise TypeError(f"For {what}, the output shape should be {parts[me].shape}, but got {tuple(output.shape)}.")
    _write(output, result)
    return _done(async_op)


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """output_tensor_list[i] on rank j = rank i's input_tensor_list[j]."""
    _, ranks = _group(group, "all_to_all")
    outs = _tensor_list(output_tensor_list, len(ranks), "all_to_all")
    ins = [np.asarray(t) for t in _tensor_list(input_tensor_list, len(ranks), "all_to_all")]
    me = ranks.index(jax.process_index())
    for out, theirs in zip(outs, _gather_objects(ins, ranks)):
        if tuple(out.shape) != theirs[me].shape:
            raise TypeError(f"For all_to_all, the output shape should be {theirs[me].shape}, but got {tuple(out.shape)}.")
        _write(out, theirs[me])
    return _done(async_op)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None,  # noqa: A002
                      async_op=False):
    """input split along axis 0 (input_split_sizes, default equal); part j goes to rank j; output is
    the parts received, concatenated in rank order (output_split_sizes rows each)."""
    value = _value(input, "all_to_all_single")
    _value(output, "all_to_all_single")
    _, ranks = _group(group, "all_to_all_single")
    me = ranks.index(jax.process_index())
    parts = _split_rows(value, input_split_sizes, len(ranks), "all_to_all_single")
    received = [theirs[me] for theirs in _gather_objects(parts, ranks)]
    if output_split_sizes is not None and list(output_split_sizes) != [r.shape[0] for r in received]:
        raise ValueError(f"For all_to_all_single, output_split_sizes {list(output_split_sizes)} must equal the "
                         f"rows the ranks send, {[r.shape[0] for r in received]}.")
    result = np.concatenate(received, axis=0)
    if tuple(output.shape) != result.shape:
        raise TypeError(f"For all_to_all_single, the output shape should be {result.shape}, but got {tuple(output.shape)}.")
    _write(output, result)
    return _done(async_op)


def barrier(group=None, async_op=False, device_ids=None):
    """Waits until every process reaches it (multihost_utils.sync_global_devices)."""
    _group(group, "barrier")
    if jax.process_count() > 1:
        from jax.experimental import multihost_utils
        multihost_utils.sync_global_devices("graphcell.mint.distributed.barrier")
    return _done(async_op)


# -- point to point ------------------------------------------------------------------------------

def _point_to_point(tensor, peer, group, what: str, role: str):
    if tensor is not None:
        _value(tensor, what)
    name, ranks = _group(group, what)
    _check_peer(peer, ranks, name, what, role)
    if peer == jax.process_index():
        kind = "destination" if role == "dst" else "source"
        raise ValueError(f"Invalid {kind} rank: {kind} rank should not be the same as the rank of the current process.")
    raise NotImplementedError(
        f"mint.distributed.{what}: JAX has no point-to-point transfer between processes. Use a collective "
        f"(broadcast, scatter, all_gather, all_to_all), or {_MESH_HINT}")


def send(tensor, dst=0, group=None, tag=0):
    _point_to_point(tensor, dst, group, "send", "dst")


def recv(tensor, src=0, group=None, tag=0):
    _point_to_point(tensor, src, group, "recv", "src")


def isend(tensor, dst=0, group=None, tag=0):
    _point_to_point(tensor, dst, group, "isend", "dst")


def irecv(tensor, src=0, group=None, tag=0):
    _point_to_point(tensor, src, group, "irecv", "src")


def send_object_list(object_list, dst, group=None, device=None):
    _point_to_point(None, dst, group, "send_object_list", "dst")


def recv_object_list(object_list, src=0, group=None, device=None):
    _point_to_point(None, src, group, "recv_object_list", "src")


class P2POp:
    """One isend / irecv for batch_isend_irecv."""

    def __init__(self, op, tensor, peer, group=None, tag=0):
        if op not in (isend, irecv):
            raise TypeError(f"Expected op to be of type isend or irecv, but got {op}")
        self.op, self.tensor, self.peer, self.group, self.tag = op, tensor, peer, group, tag


def batch_isend_irecv(p2p_op_list):
    if not p2p_op_list:
        raise TypeError("p2p_op_list can not be empty list.")
    return [p.op(p.tensor, p.peer, p.group, p.tag) for p in p2p_op_list]


__all__ = ["P2POp", "all_gather", "all_gather_into_tensor", "all_gather_into_tensor_uneven", "all_gather_object",
           "all_reduce", "all_to_all", "all_to_all_single", "barrier", "batch_isend_irecv", "broadcast",
           "broadcast_object_list", "destroy_process_group", "gather", "gather_object", "get_backend",
           "get_global_rank", "get_group_rank", "get_process_group_ranks", "get_rank", "get_world_size",
           "init_process_group", "irecv", "is_available", "is_initialized", "isend", "new_group", "recv",
           "recv_object_list", "reduce", "reduce_scatter", "reduce_scatter_tensor", "reduce_scatter_tensor_uneven",
           "scatter", "scatter_object_list", "send", "send_object_list"]

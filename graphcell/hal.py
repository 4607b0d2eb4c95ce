"""MindSpore 2.10's `mindspore.hal`: the devices graphcell computes on (jax's), their streams
and memory. Measured on 2.10's CPU build: device_count() == 1, get_device_name(0) == 'CPU',
get_device_properties/get_device_capability/get_arch_list answer None for the CPU, a GPU
target without a GPU backend raises "GPU backend is not available ...". Here 'GPU' is
available when jax has a GPU backend; 'Ascend' never is.
"""
from __future__ import annotations

import collections

import jax

from .runtime import memory as _memory
from .runtime.memory import empty_cache  # noqa: F401
from .runtime.streams import (Event, Stream, StreamCtx, communication_stream, current_stream,  # noqa: F401
                              default_stream, set_cur_stream, synchronize)

_TARGETS = ["CPU", "GPU", "Ascend"]
_JAX_PLATFORM = {"CPU": "cpu", "GPU": "gpu"}


def _jax_devices(target: str) -> list:
    platform = _JAX_PLATFORM.get(target)
    if platform is None:
        return []
    try:
        return jax.devices(platform)
    except RuntimeError:   # jax has no such backend here
        return []


def _current_target() -> str:
    return "GPU" if jax.default_backend() in ("gpu", "cuda", "rocm") else "CPU"


def _target(device_target, api: str | None = None) -> str:
    """None: the device graphcell computes on; else checked as 2.10 checks it."""
    if device_target is None:
        return _current_target()
    if device_target not in _TARGETS:
        prefix = f"For '{api}', the argument" if api else "The argument"
        raise ValueError(f"{prefix} 'device_target' must be one of {_TARGETS}, but got {device_target}.")
    return device_target


def _available_target(device_target) -> str:
    target = _target(device_target)
    if not _jax_devices(target):   # 2.10's words, with graphcell's reason
        raise ValueError(f"{target} backend is not available for this graphcell installation (jax has no "
                         f"{target} backend here).You can call hal.is_available to check the reason.")
    return target


def is_available(device_target) -> bool:
    return bool(_jax_devices(_target(device_target, "hal.is_available")))


def is_initialized(device_target) -> bool:
    """jax starts a backend on first use; a backend that exists here has started by now."""
    return is_available(device_target)


def device_count(device_target=None) -> int:
    return len(_jax_devices(_available_target(device_target)))


def _device(device_id, device_target):
    target = _available_target(device_target)
    devices = _jax_devices(target)
    if not isinstance(device_id, int) or isinstance(device_id, bool):
        raise TypeError(f"The argument 'device_id' must be int, but got {type(device_id)}.")
    if not 0 <= device_id < len(devices):
        raise ValueError(f"The argument 'device_id' must be less than device count: {len(devices)}, "
                         f"but got {device_id}.")
    return target, devices[device_id]


def get_device_name(device_id, device_target=None) -> str:
    target, device = _device(device_id, device_target)
    return "CPU" if target == "CPU" else device.device_kind


DeviceProperties = collections.namedtuple("DeviceProperties", "name major minor multi_processor_count total_memory")


def get_device_properties(device_id, device_target=None):
    """None for the CPU (2.10); a GPU's name, compute capability, cores and memory from jax."""
    target, device = _device(device_id, device_target)
    if target == "CPU":
        return None
    major, minor = _capability(device)
    total = (device.memory_stats() or {}).get("bytes_limit")
    return DeviceProperties(device.device_kind, major, minor, getattr(device, "core_count", None), total)


def _capability(device):
    cc = getattr(device, "compute_capability", None)
    if cc is None:
        return None, None
    major, _, minor = str(cc).partition(".")
    return int(major), int(minor or 0)


def get_device_capability(device_id, device_target=None):
    target, device = _device(device_id, device_target)
    if target == "CPU":
        return None
    major, minor = _capability(device)
    return None if major is None else (major, minor)


def get_arch_list(device_target=None):
    target = _available_target(device_target)
    if target == "CPU":
        return None
    caps = {_capability(d) for d in _jax_devices(target)} - {(None, None)}
    return [f"sm_{major}{minor}" for major, minor in sorted(caps)] or None


def _memory_query(name: str):
    """hal's form of a runtime memory function: it takes the device target (checked) too."""
    runtime_fn = getattr(_memory, name)

    def query(device_target=None):
        _available_target(device_target)
        return runtime_fn()
    query.__name__ = query.__qualname__ = name
    query.__doc__ = runtime_fn.__doc__
    return query


for _name in ("memory_stats", "memory_summary", "memory_allocated", "max_memory_allocated", "memory_reserved",
              "max_memory_reserved", "reset_peak_memory_stats", "reset_max_memory_allocated",
              "reset_max_memory_reserved"):
    globals()[_name] = _memory_query(_name)
del _name

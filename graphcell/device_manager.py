"""MindSpore 2.10's device names at the top level (set_device, get_current_device, synchronize,
set_recursion_limit, set_dump) as its CPU build answers them (measured): graphcell computes on
the host, so the device is ('CPU', 0) and the rest validate their arguments and change nothing.
"""
from __future__ import annotations

import numbers
import warnings

_TARGETS = ["CPU", "GPU", "Ascend"]
_STATE = {"device_id": 0, "set": False}


class DeviceInfo(tuple):
    """(device_target, device_id), as 2.10's get_current_device returns it."""

    def __new__(cls, device_target: str, device_id: int):
        return super().__new__(cls, (device_target, device_id))

    @property
    def device_target(self) -> str:
        return self[0]

    @property
    def device_id(self) -> int:
        return self[1]


def set_device(device_target, device_id=None):
    """Only 'CPU' (2.10's CPU build refuses the others); a second call may not change the device id."""
    if not isinstance(device_target, str):
        raise TypeError(f"The parameter 'device_target' must be {str}, but got {type(device_target)}")
    if device_target not in _TARGETS:
        raise ValueError(f"The argument 'device_target' must be one of {_TARGETS}, but got {device_target}.")
    if device_target != "CPU":
        raise RuntimeError(f"Unsupported device target {device_target}. This process only supports one of the "
                           f"['CPU']. graphcell computes on the host.")
    new_id = _STATE["device_id"] if device_id is None else int(device_id)
    if _STATE["set"] and new_id != _STATE["device_id"]:
        raise RuntimeError("The 'mindspore.set_device' can not be modified.")
    _STATE.update(device_id=new_id, set=True)


def get_current_device() -> DeviceInfo:
    return DeviceInfo("CPU", _STATE["device_id"])


def synchronize() -> None:
    """Waits for every computation jax has dispatched (runtime.synchronize)."""
    from .runtime.streams import synchronize as wait_all
    wait_all()


def set_recursion_limit(recursion_limit=1000) -> None:
    """2.10's limit on the graph compiler's recursion (checked, kept; graphcell's tracer is Python's)."""
    if isinstance(recursion_limit, bool) or not isinstance(recursion_limit, numbers.Integral):
        raise TypeError(f"The input value must be int, but got '{type(recursion_limit).__name__}'")
    if recursion_limit <= 0:
        raise ValueError(f"The input value must be int and must > 0, but got '{recursion_limit}' with type 'int'.")
    _STATE["recursion_limit"] = int(recursion_limit)


def set_dump(target, enabled=True) -> None:
    """2.10 dumps tensors on Ascend only; on the CPU it warns and does nothing: so does graphcell."""
    from .nn.cell import Cell
    from .ops.primitive import Primitive
    if not isinstance(target, (Cell, Primitive)):
        raise ValueError(f'The "target" parameter must be an instance of Cell or Primitive, but got an instance '
                         f'of {type(target)}.')
    warnings.warn("Current device_target is CPU, which is not supported by set_dump. Only Ascend device target is "
                  "supported currently.", UserWarning, stacklevel=2)

"""MindSpore 2.10's executor settings (`mindspore.runtime`): launch_blocking,
dispatch_threads_num, set_cpu_affinity; measured on its CPU build, each returns None.

`launch_blocking()` makes every compiled call wait for its results before returning (jax
otherwise dispatches asynchronously), so an error or a timing belongs to the call that made it.
`set_cpu_affinity` binds the process to the listed CPUs (os.sched_setaffinity); without a
list it keeps the affinity the process has. The thread count is kept: XLA sizes its CPU
thread pool when its backend starts.
"""
from __future__ import annotations

import numbers
import os

_SETTINGS = {"launch_blocking": False, "dispatch_threads_num": None, "cpu_affinity": None}


def launch_blocking() -> None:
    _SETTINGS["launch_blocking"] = True


def blocks_on_launch() -> bool:
    return _SETTINGS["launch_blocking"]


def dispatch_threads_num(threads_num) -> None:
    if isinstance(threads_num, bool) or not isinstance(threads_num, numbers.Integral):   # 2.10's words
        raise TypeError(f"The parameter 'threads_num' must be {int}, but got {type(threads_num)}")
    if threads_num <= 0:
        raise ValueError(f"The 'threads_num' must be int and must > 0, but got '{threads_num}' with type 'int'.")
    _SETTINGS["dispatch_threads_num"] = int(threads_num)


def _cpu_ids(affinity_cpu_list) -> set[int]:
    """[0, 1] or ["0-3", "8-11"] (2.10's ranges) -> the CPU ids."""
    ids = set()
    for item in affinity_cpu_list:
        if isinstance(item, numbers.Integral) and not isinstance(item, bool):
            ids.add(int(item))
        elif isinstance(item, str) and item.replace("-", "", 1).isdigit():
            low, _, high = item.partition("-")
            ids.update(range(int(low), int(high or low) + 1))
        else:
            raise TypeError(f"For 'set_cpu_affinity', 'affinity_cpu_list' holds CPU ids (int) or ranges "
                            f"('0-3'), but got {item!r}.")
    return ids


def set_cpu_affinity(enable_affinity, affinity_cpu_list=None, module_to_cpu_dict=None, bind_file=None) -> None:
    if _SETTINGS["cpu_affinity"] is not None:   # 2.10's words
        raise RuntimeError("The 'mindspore.runtime.set_cpu_affinity' cannot be set repeatedly.")
    cpus = None
    if enable_affinity and affinity_cpu_list is not None:
        if not isinstance(affinity_cpu_list, (list, tuple)):
            raise TypeError(f"For 'set_cpu_affinity', 'affinity_cpu_list' must be a list, but got "
                            f"{type(affinity_cpu_list)}.")
        cpus = _cpu_ids(affinity_cpu_list)
        os.sched_setaffinity(0, cpus)
    _SETTINGS["cpu_affinity"] = (bool(enable_affinity), cpus)

"""MindSpore 2.10's device-memory queries (`mindspore.runtime`, `mindspore.hal`) from jax.

The numbers come from the default device's `memory_stats()` (XLA's allocator on a GPU:
bytes_in_use, peak_bytes_in_use, bytes_reserved/pool_bytes, ...). jax's CPU device keeps none
(it returns None); 2.10's CPU build answers zeros there (measured: memory_allocated() == 0,
memory_stats() the dict below with every count 0), and so does graphcell.

XLA keeps one peak per process and cannot reset it. After `reset_peak_memory_stats` the max
values are XLA's peak when it rose past its value at the reset (the new peak came later), and
otherwise the most graphcell saw in use at the reset and at each query since: a lower bound.
"""
from __future__ import annotations

import gc
import re

import jax

_AFTER_RESET = {"allocated": None, "reserved": None}   # (XLA's peak at the reset, the most seen since)


def _jax_stats() -> dict:
    try:
        return jax.devices()[0].memory_stats() or {}
    except Exception:   # a backend without the query
        return {}


def _now(stats: dict) -> dict:
    allocated = int(stats.get("bytes_in_use", 0))
    reserved = int(stats.get("bytes_reserved", stats.get("pool_bytes", allocated)))
    peak_alloc = int(stats.get("peak_bytes_in_use", allocated))
    peak_reserved = int(stats.get("peak_bytes_reserved", stats.get("peak_pool_bytes", max(reserved, peak_alloc))))
    return {"allocated": allocated, "reserved": reserved, "peak_allocated": peak_alloc,
            "peak_reserved": peak_reserved}


def _peak(kind: str, now: dict) -> int:
    reset = _AFTER_RESET[kind]
    if reset is None:
        return now["peak_" + kind]
    xla_peak_at_reset, seen = reset
    seen = max(seen, now[kind])
    _AFTER_RESET[kind] = (xla_peak_at_reset, seen)
    return now["peak_" + kind] if now["peak_" + kind] > xla_peak_at_reset else seen


def memory_stats() -> dict:
    """2.10's layout; jax's own entries (a GPU's) are added under their names."""
    stats = _jax_stats()
    now = _now(stats)
    result = {"total_reserved_memory": now["reserved"], "total_allocated_memory": now["allocated"],
              "total_idle_memory": now["reserved"] - now["allocated"], "total_eager_free_memory": 0,
              "max_reserved_memory": _peak("reserved", now), "max_allocated_memory": _peak("allocated", now),
              "common_mem_pool_stats": {"block_unit_size": 0, "block_counts": 0, "blocks_info": {}},
              "persistent_mem_pool_stats": {"block_counts": 0, "block_unit_size": 0, "blocks_info": {}}}
    result.update(stats)
    return result


def memory_allocated() -> int:
    return _now(_jax_stats())["allocated"]


def max_memory_allocated() -> int:
    return _peak("allocated", _now(_jax_stats()))


def memory_reserved() -> int:
    return _now(_jax_stats())["reserved"]


def max_memory_reserved() -> int:
    return _peak("reserved", _now(_jax_stats()))


def reset_max_memory_allocated() -> None:
    now = _now(_jax_stats())
    _AFTER_RESET["allocated"] = (now["peak_allocated"], now["allocated"])


def reset_max_memory_reserved() -> None:
    now = _now(_jax_stats())
    _AFTER_RESET["reserved"] = (now["peak_reserved"], now["reserved"])


def reset_peak_memory_stats() -> None:
    reset_max_memory_allocated()
    reset_max_memory_reserved()


def empty_cache() -> None:
    """jax frees a buffer when its last array dies: collect the arrays that only cycles keep."""
    gc.collect()


def _format_bytes(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n} {unit}" if unit == "B" else f"{n:.2f} {unit}"
        n /= 1024
    return f"{n} B"


def memory_summary() -> str:
    """2.10's table (measured on its CPU build: '| Reserved memory      |      0 B             |')."""
    s = memory_stats()
    rows = [("Reserved memory", "total_reserved_memory"), ("Allocated memory", "total_allocated_memory"),
            ("Idle memory", "total_idle_memory"), ("Eager free memory", "total_eager_free_memory"),
            ("Max reserved memory", "max_reserved_memory"), ("Max allocated memory", "max_allocated_memory")]
    line, dline = "|" + "-" * 45 + "|", "|" + "=" * 45 + "|"
    out = [dline, "|" + " " * 15 + "Memory summary" + " " * 16 + "|", dline, f"| {'Metric':<20} | {'Data':<20} |", line]
    for i, (label, key) in enumerate(rows):
        out.append(f"| {label:<20} | {_format_bytes(s[key]):>8}{'':12} |")
        out.append(dline if i == len(rows) - 1 else line)
    return "\n".join(out) + "\n"


_SIZE = re.compile(r"[1-9][0-9]*(\.)?[0-9]*GB|0\.[0-9]*GB", re.ASCII)
_MEMORY_SETTINGS: dict = {}


def set_memory(init_size="2GB", increase_size="2GB", max_size="1024GB", optimize_level="O0",
               huge_page_reserve_size="0GB") -> None:
    """Checked and kept, as 2.10's CPU build does: jax sizes its pool when its backend starts
    (XLA_PYTHON_CLIENT_MEM_FRACTION / _PREALLOCATE), before any call here could change it."""
    sizes = {"init_size": init_size, "increase_size": increase_size, "max_size": max_size}
    for value in sizes.values():
        if not isinstance(value, str) or _SIZE.fullmatch(value) is None:   # 2.10's words
            raise ValueError(f"The '{value}' is illegal, it must be match regular'[1-9][0-9]*(\\.)?[0-9]*GB|"
                             "0\\.[0-9]*GB' by flags're.ASCII.'")
    if optimize_level not in ("O0", "O1"):
        raise ValueError(f"The optimize_level must be one of ['O0', 'O1'], but got {optimize_level}.")
    _MEMORY_SETTINGS.update(sizes, optimize_level=optimize_level, huge_page_reserve_size=huge_page_reserve_size)

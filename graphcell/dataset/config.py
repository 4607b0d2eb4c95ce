"""Dataset-wide settings (MindSpore's `mindspore.dataset.config`), with 2.10's defaults,
checks and messages (measured).

`graphcell.set_seed(s)` also seeds the dataset RNG, as `mindspore.set_seed` does: a hook
registered with the initialiser module's seed keeps the two in step. With no seed set,
`get_seed()` answers 2.10's default 5489 (std::mt19937's), but every iterator draws a fresh
random seed, so shuffled orders differ between runs, as in 2.10.

Workers are threads (see _parallel.py), so the multiprocessing settings (timeout interval,
start method, shared memory) are kept for the getters and change nothing.
"""
from __future__ import annotations

import enum
import numbers
import os

from ..api.ms_errors import RuntimeValueError
from ..common import initializer as _initializer

_INT32_MAX, _UINT32_MAX = 2 ** 31 - 1, 2 ** 32 - 1
_DEFAULT_SEED = 5489   # std::mt19937::default_seed, 2.10's get_seed() before any set_seed


class ErrorSamplesMode(enum.IntEnum):
    """What a map does with a row whose operation raises: RETURN raises (the default); SKIP
    drops the row; REPLACE drops it and, at the end of the pass, emits as many good rows
    again, from the first (measured on 2.10: rows 2, 3 of 0..6 failing give 0 1 4 5 6 0 1)."""
    RETURN = 0
    REPLACE = 1
    SKIP = 2


_settings = {
    "seed": _initializer.get_seed(),
    "num_parallel_workers": max(1, min(8, os.cpu_count() or 1)),   # 2.10: 8, or fewer CPUs
    "prefetch_size": 4,          # 2.10 keeps 16 rows per op; here the iterator's queue, of batches
    "debug_mode": False,
    "error_samples_mode": ErrorSamplesMode.RETURN,
    "multiprocessing_timeout_interval": 300,
    "callback_timeout": 60,
    "enable_watchdog": True,
    "enable_shared_mem": True,
}


def _int(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} isn't of type int.")
    return int(value)


def _bool(value, message: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(message)
    return value


def set_seed(seed) -> None:
    """Seeds the shuffles and random samplers of iterators created from now on."""
    seed = _int(seed, "seed")
    if not 0 <= seed <= _UINT32_MAX:
        raise ValueError("seed given is not within the required range [0, UINT32_MAX(4294967295)].")
    _settings["seed"] = seed


def get_seed() -> int:
    """The dataset seed; 5489 (2.10's default) when none was set."""
    return _DEFAULT_SEED if _settings["seed"] is None else _settings["seed"]


def seed_or_none() -> int | None:
    """The seed set by set_seed, or None (then each iterator seeds itself randomly)."""
    return _settings["seed"]


def set_num_parallel_workers(num) -> None:
    """The workers of datasets and maps that are not given num_parallel_workers."""
    num = _int(num, "num")
    if not 0 < num <= _INT32_MAX:
        raise ValueError("Number of parallel workers given is not within the required range "
                         "(0, INT32_MAX(2147483647)].")
    cpus = os.cpu_count() or 1
    if num > cpus:
        raise RuntimeValueError(f"Invalid Parameter, num_parallel_workers exceeds the boundary between 1 and "
                                f"{cpus}, as got {num}.")
    _settings["num_parallel_workers"] = num


def get_num_parallel_workers() -> int:
    return _settings["num_parallel_workers"]


def set_prefetch_size(size) -> None:
    """How many finished rows/batches each iterator's background thread keeps ready."""
    size = _int(size, "size")
    if not 0 < size <= _INT32_MAX:
        raise ValueError("size is not within the required range (0, INT32_MAX(2147483647)].")
    _settings["prefetch_size"] = size


def get_prefetch_size() -> int:
    return _settings["prefetch_size"]


def set_debug_mode(debug_mode_flag: bool, debug_hook_list: list = None) -> None:
    """Debug mode runs the whole pipeline in one thread (the iterator's), one row at a time and
    in order, as 2.10 runs it synchronously. Debug hooks are not supported."""
    _bool(debug_mode_flag, "debug_mode_flag isn't of type boolean.")
    if debug_hook_list is not None:
        raise NotImplementedError("dataset.config.set_debug_mode: debug_hook_list is not supported")
    _settings["debug_mode"] = debug_mode_flag


def get_debug_mode() -> bool:
    return _settings["debug_mode"]


def set_error_samples_mode(error_samples_mode) -> None:
    """What map does with rows whose operation raises (see ErrorSamplesMode)."""
    if not isinstance(error_samples_mode, ErrorSamplesMode):
        raise TypeError(f"Argument error_samples_mode with value {error_samples_mode} is not of type "
                        f"[<enum 'ErrorSamplesMode'>], but got {type(error_samples_mode)}.")
    _settings["error_samples_mode"] = error_samples_mode


def get_error_samples_mode() -> ErrorSamplesMode:
    return _settings["error_samples_mode"]


def set_multiprocessing_timeout_interval(interval) -> None:
    interval = _int(interval, "interval")
    if not 0 < interval < _INT32_MAX:
        raise ValueError("Interval given is not within the required range (0, INT32_MAX(2147483647)).")
    _settings["multiprocessing_timeout_interval"] = interval


def get_multiprocessing_timeout_interval() -> int:
    return _settings["multiprocessing_timeout_interval"]


def set_callback_timeout(timeout) -> None:
    """Seconds a sync_wait waits for its sync_update before failing."""
    timeout = _int(timeout, "timeout")
    if not 0 < timeout <= _INT32_MAX:
        raise ValueError("Timeout given is not within the required range.")
    _settings["callback_timeout"] = timeout


def get_callback_timeout() -> int:
    return _settings["callback_timeout"]


def set_enable_watchdog(enable) -> None:
    _settings["enable_watchdog"] = _bool(enable, "enable must be a boolean dtype.")


def get_enable_watchdog() -> bool:
    return _settings["enable_watchdog"]


def set_enable_shared_mem(enable) -> None:
    _settings["enable_shared_mem"] = _bool(enable, "enable must be of type bool.")


def get_enable_shared_mem() -> bool:
    return _settings["enable_shared_mem"]


def get_multiprocessing_start_method() -> str:
    return "fork"


def _follow_global_seed(seed: int) -> None:
    # graphcell.set_seed's hook: the seed it took, reduced to 32 bits
    _settings["seed"] = int(seed) & _UINT32_MAX


_initializer.register_seed_hook(_follow_global_seed)

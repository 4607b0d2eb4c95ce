"""Ordered parallel map over worker threads, and the error type that carries a worker's
failure (with the user's traceback) to the main thread.

Threads rather than processes: row fetching and transforms are numpy code that releases the
GIL, the pipeline needs no pickling of user sources, and an exception keeps its traceback.
"""
from __future__ import annotations

import traceback
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Iterable, Iterator


class DatasetError(RuntimeError):
    """A user function in the pipeline (source, map operation, per_batch_map) failed.

    The message names the dataset and the row or batch, and quotes the user's traceback;
    `__cause__` is the original exception.
    """


def call_user(fn: Callable, args: tuple, what: str):
    """Runs `fn(*args)`; any exception becomes a DatasetError naming `what`, with the
    traceback of the failing user code in the message."""
    try:
        return fn(*args)
    except DatasetError:
        raise
    except Exception as e:  # noqa: BLE001 - re-raised with context
        tb = "".join(traceback.format_exception(type(e), e, e.__traceback__))
        raise DatasetError(f"{what} raised {type(e).__name__}: {e}\n"
                           f"Traceback of the user code (in a dataset worker thread):\n{tb}") from e


def ordered_map(fn: Callable, items: Iterable, workers: int) -> Iterator:
    """`map(fn, items)` on `workers` threads, results in input order.

    At most 2*workers calls are in flight, so memory stays bounded and a consumer that
    stops early (take, a closed iterator) leaves little work behind.
    """
    from . import config
    if workers is None or workers <= 1 or config.get_debug_mode():
        for item in items:
            yield fn(item)
        return
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="graphcell-dataset")
    window: deque = deque()
    try:
        for item in items:
            window.append(pool.submit(fn, item))
            if len(window) >= 2 * workers:
                yield window.popleft().result()
        while window:
            yield window.popleft().result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)

"""Iterators over a pipeline, fed by a background thread.

The thread runs the pipeline (source reads, maps, batching) and keeps
`config.get_prefetch_size()` finished rows of numpy arrays in a queue, so while the main
thread runs a jitted step the next batches are being prepared. Epoch ends travel through the
queue as markers; a failure travels as an item and is raised in the main thread, its message
and `__cause__` carrying the user's traceback.

Tensors are made in the consumer's `__next__`, never in the thread: a daemon thread inside
jax's C++ code when the interpreter exits aborts the process ("terminate called ..."), which
is what leaving a loop early (`break`) and then exiting did. The thread is a daemon so that a
forgotten iterator never keeps Python alive, and an atexit hook stops and joins every live one
before jax shuts down (atexit runs hooks last-registered first, and ours is registered after
jax's, when the first iterator starts).
"""
from __future__ import annotations

import atexit
import itertools
import queue
import threading
import weakref

import numpy as np

from . import config
from ._parallel import DatasetError
from .engine import _Run

_END_OF_EPOCH = object()
_EXIT_JOIN_S = 5.0  # how long interpreter exit waits for the threads together (a row in progress)

# (stop event, thread) of every producer not yet finished; read by the atexit hook
_live: set = set()
_live_lock = threading.Lock()
_hook_registered = False


def _stop_all_at_exit() -> None:
    import time
    with _live_lock:
        live = list(_live)
    for stop, _ in live:
        stop.set()
    deadline = time.monotonic() + _EXIT_JOIN_S
    for _, thread in live:
        thread.join(max(deadline - time.monotonic(), 0.0))


def _register(stop: threading.Event, thread: threading.Thread) -> None:
    global _hook_registered
    with _live_lock:
        if not _hook_registered:
            atexit.register(_stop_all_at_exit)
            _hook_registered = True
        _live.add((stop, thread))


def _unregister(stop: threading.Event, thread: threading.Thread) -> None:
    with _live_lock:
        _live.discard((stop, thread))


class _Failure:
    __slots__ = ("error",)

    def __init__(self, error: BaseException):
        self.error = error


def _put(q: queue.Queue, item, stop: threading.Event) -> bool:
    """Blocks until `item` is queued; False if the iterator was dropped meanwhile."""
    while not stop.is_set():
        try:
            q.put(item, timeout=0.1)
            return True
        except queue.Full:
            continue
    return False


def _start(dataset, init_step: int) -> tuple[int, int]:
    """(epoch, rows to skip in it) of global step `init_step`; an endless dataset has one epoch."""
    if not init_step:
        return 0, 0
    size = dataset.get_dataset_size()
    return divmod(init_step, size) if size > 0 else (0, init_step)


def _produce(dataset, seed, shared_seed, num_epochs, start, q, stop):
    """The thread's body: numpy rows (tuples in column order) into `q`, nothing from jax."""
    try:
        _produce_rows(dataset, seed, shared_seed, num_epochs, start, q, stop)
    finally:
        _unregister(stop, threading.current_thread())


def _produce_rows(dataset, seed, shared_seed, num_epochs, start, q, stop):
    first_epoch, skip_rows = start
    done = 0
    try:
        while num_epochs < 0 or done < num_epochs:
            # the epoch number names the pass, so a resumed iterator replays the same shuffles
            rows = dataset._rows(_Run(seed, shared_seed, (first_epoch + done,)))
            try:
                for row in itertools.islice(rows, skip_rows if done == 0 else 0, None):
                    if not _put(q, row, stop):
                        return
            finally:
                rows.close()
            if not _put(q, _END_OF_EPOCH, stop):
                return
            done += 1
    except BaseException as e:  # noqa: BLE001 - delivered to the main thread
        _put(q, _Failure(e), stop)


class DatasetIterator:
    """What `create_dict_iterator` / `create_tuple_iterator` return.

    Each `for` loop over it is one epoch; it allows `num_epochs` of them (-1: unlimited).
    Every epoch re-runs the pipeline, so shuffles and random samplers draw a new order.
    `init_step` (default: `dataset.get_init_step()`) is the global step it starts at: its
    first epoch is that step's epoch, from that step on (see `Dataset.set_init_step`).
    """

    def __init__(self, dataset, num_epochs, output_numpy, columns, as_dict, init_step=None):
        if isinstance(num_epochs, bool) or not isinstance(num_epochs, int) or (num_epochs < 1 and num_epochs != -1):
            raise ValueError(f"num_epochs must be a positive int or -1, got {num_epochs!r}")
        names = dataset.get_col_names()
        # "_meta-" columns (a reader's extra_metadata) stay out of the rows, even when asked for,
        # until renamed: MindSpore 2.10's iterators (measured)
        columns = [c for c in (columns or names) if not c.startswith("_meta-")]
        for c in columns:
            if c not in names:
                raise ValueError(f"create_tuple_iterator: column {c!r} is not in the dataset's columns {names}")
        self.num_epochs = num_epochs
        self._dataset_name = dataset._describe()
        self._epochs_done = 0
        self._failure: BaseException | None = None
        picks = [names.index(c) for c in columns]
        self._convert = _converter(picks, columns, output_numpy, as_dict)
        start = _start(dataset, dataset.get_init_step() if init_step is None else init_step)

        seed = config.seed_or_none()
        run_seed = seed if seed is not None else int(np.random.SeedSequence().entropy % (2 ** 63))
        self._queue: queue.Queue = queue.Queue(maxsize=config.get_prefetch_size())
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=_produce, name="graphcell-dataset-prefetch", daemon=True,
            args=(dataset, run_seed, seed if seed is not None else 0, num_epochs, start, self._queue, self._stop))
        _register(self._stop, self._thread)
        self._thread.start()
        # a dropped iterator stops its thread (which then leaves within _put's 0.1 s poll)
        weakref.finalize(self, self._stop.set)

    def __iter__(self):
        return self

    def __next__(self):
        if self._failure is not None:
            raise self._failure
        if self.num_epochs != -1 and self._epochs_done >= self.num_epochs:
            raise RuntimeError(f"this iterator over {self._dataset_name} was created with "
                               f"num_epochs={self.num_epochs} and all its epochs have been read; "
                               "create it with a larger num_epochs (or -1)")
        item = self._get()
        if item is _END_OF_EPOCH:
            self._epochs_done += 1
            raise StopIteration
        if isinstance(item, _Failure):
            self._failure = item.error
            self._stop.set()
            raise item.error
        try:
            return self._convert(item)
        except DatasetError as e:
            self._failure = e
            self._stop.set()
            raise

    def _get(self):
        while True:
            try:
                return self._queue.get(timeout=1.0)
            except queue.Empty:
                if not self._thread.is_alive() and self._queue.empty():
                    raise RuntimeError(f"the pipeline thread of {self._dataset_name} stopped") from None

    def stop(self) -> None:
        """Stops the background thread now (also happens when the iterator is dropped)."""
        self._stop.set()

    def get_next(self):
        return next(self)


def _converter(picks, columns, output_numpy, as_dict):
    def to_output(name, array):
        if output_numpy or array.dtype.kind in "US":   # text stays numpy, as in MindSpore 2.10 (measured)
            return array
        from ..tensor import Tensor
        try:
            return Tensor(array)
        except (TypeError, ValueError) as e:
            raise DatasetError(f"column {name!r}: cannot make a Tensor of a {array.dtype} array ({e}); "
                               "use output_numpy=True, or convert it in a map") from e

    def convert(row):
        values = [to_output(name, row[i]) for name, i in zip(columns, picks)]
        return dict(zip(columns, values)) if as_dict else values
    return convert

"""MindSpore 2.10's streams and events (`mindspore.runtime`, `mindspore.hal`) over jax.

jax exposes no streams: each device runs its work in order, and a result is ready once its
computation ends. So there is one stream per process, as on 2.10's CPU (measured: every
`Stream()` prints `Stream(device_name=CPU, device_id:0, stream id:0)` and equals the default
stream; `query()` is True). Here `query()` and `synchronize()` are real: they ask and wait for
jax's pending computations (`jax.live_arrays()`). An Event made with `enable_timing=True`
stamps the host clock once the work before it has finished, so `elapsed_time` is the measured
milliseconds between two records (2.10's CPU answers 0.0).

2.10's `mindspore.runtime` versions log "CPU device is not supported" on the CPU and return
None (current_stream, default_stream, set_cur_stream, synchronize) or fail (`Event()`,
`StreamCtx`); graphcell answers as `mindspore.hal` does there, with a working stream.
"""
from __future__ import annotations

import time

import jax


def synchronize() -> None:
    """Blocks until every computation jax has dispatched (and every pending effect) is done."""
    jax.block_until_ready(jax.live_arrays())
    jax.effects_barrier()


def _pending_work_done() -> bool:
    return all(a.is_ready() for a in jax.live_arrays() if not a.is_deleted())


def _device_name() -> str:
    platform = jax.default_backend()
    return {"cpu": "CPU", "gpu": "GPU", "cuda": "GPU", "rocm": "GPU"}.get(platform, platform.upper())


class Stream:
    """The device's one in-order stream (`priority` and 2.10's `stream=` keyword are accepted)."""

    def __init__(self, priority=0, **kwargs):
        self.priority = priority
        self.id = 0
        self.device_id = 0

    @property
    def device_name(self) -> str:
        # asked on use: the default stream is made at import, and asking jax for its backend
        # there would start XLA before communication.init can start jax.distributed
        return _device_name()

    def query(self) -> bool:
        """Whether all work submitted so far has finished."""
        return _pending_work_done()

    def synchronize(self) -> None:
        synchronize()

    def wait_event(self, event) -> None:
        """One in-order stream: work after this call already follows the event's."""
        _check_type("wait_event", "event", event, Event)

    def wait_stream(self, stream) -> None:
        _check_type("wait_stream", "stream", stream, Stream)

    def record_event(self, event=None):
        event = Event() if event is None else event
        _check_type("record_event", "event", event, Event)
        event.record(self)
        return event

    def __eq__(self, other):
        return isinstance(other, Stream) and (other.device_id, other.id) == (self.device_id, self.id)

    def __hash__(self):
        return hash((self.device_id, self.id))

    def __repr__(self):
        return f"Stream(device_name={self.device_name}, device_id:{self.device_id}, stream id:{self.id})"


class Event:
    """A point in the stream; `elapsed_time` needs two records made with `enable_timing=True`."""

    def __init__(self, enable_timing=False, blocking=False):
        self.enable_timing = bool(enable_timing)
        self.blocking = bool(blocking)
        self._stamp = None

    def record(self, stream=None) -> None:
        if stream is not None:
            _check_type("record", "stream", stream, Stream)
        if self.enable_timing:   # the time the work before this point finished
            synchronize()
            self._stamp = time.perf_counter()
        else:
            self._stamp = 0.0

    def query(self) -> bool:
        return _pending_work_done()

    def synchronize(self) -> None:
        synchronize()

    def wait(self, stream=None) -> None:
        if stream is not None:
            _check_type("wait", "stream", stream, Stream)

    def elapsed_time(self, end_event) -> float:
        """Milliseconds from this record to `end_event`'s."""
        _check_type("elapsed_time", "end_event", end_event, Event)
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("For 'elapsed_time', both events must be created with enable_timing=True.")
        if self._stamp is None or end_event._stamp is None:
            raise RuntimeError("For 'elapsed_time', both events must be recorded first.")
        return (end_event._stamp - self._stamp) * 1000.0

    def __repr__(self):
        return (f"Event(enable_timing={int(self.enable_timing)}, blocking:{int(self.blocking)}, "
                f"is_created:{int(self._stamp is not None)}, event:0)")


def _check_type(api: str, arg: str, value, cls) -> None:
    if not isinstance(value, cls):   # 2.10's words (StreamCtx, set_cur_stream)
        raise TypeError(f"For '{api}', the argument '{arg}' should be {cls.__name__}, but got {type(value)}.")


_DEFAULT = Stream()
_CURRENT = [_DEFAULT]


def default_stream() -> Stream:
    return _DEFAULT


def current_stream() -> Stream:
    return _CURRENT[0]


def communication_stream() -> Stream:
    """Collectives run on the same in-order stream (one process, one device)."""
    return _DEFAULT


def set_cur_stream(stream) -> None:
    _check_type("set_cur_stream", "stream", stream, Stream)
    _CURRENT[0] = stream


class StreamCtx:
    """`with StreamCtx(stream):` makes `stream` current inside the block (None: no change)."""

    def __init__(self, ctx_stream):
        if ctx_stream is not None:
            _check_type("StreamCtx", "ctx_stream", ctx_stream, Stream)
        self.stream = ctx_stream
        self._previous = None

    def __enter__(self):
        if self.stream is not None:
            self._previous = _CURRENT[0]
            _CURRENT[0] = self.stream

    def __exit__(self, *exc):
        if self.stream is not None:
            _CURRENT[0] = self._previous
        return False

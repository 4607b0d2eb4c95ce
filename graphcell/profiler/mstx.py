"""`mstx`: marks and ranges in the trace (2.10's Ascend tool extension), as jax TraceAnnotations:
they show in a running Profiler's trace under their message."""
from __future__ import annotations

import itertools

_OPEN: dict = {}
_IDS = itertools.count(1)


class mstx:
    NPU_PROFILER = "NPU"

    @staticmethod
    def mark(message: str, stream=None, domain: str = "default") -> None:
        import jax
        with jax.profiler.TraceAnnotation(str(message)):
            pass

    @staticmethod
    def range_start(message: str, stream=None, domain: str = "default") -> int:
        import jax
        annotation = jax.profiler.TraceAnnotation(str(message))
        annotation.__enter__()
        range_id = next(_IDS)
        _OPEN[range_id] = annotation
        return range_id

    @staticmethod
    def range_end(range_id: int, domain: str = "default") -> None:
        annotation = _OPEN.pop(range_id, None)
        if annotation is not None:
            annotation.__exit__(None, None, None)

"""MindSpore-style global context: execution mode, backend, and parallel settings."""
from __future__ import annotations

import contextlib
import contextvars
import os
from enum import Enum

PYNATIVE_MODE = 1
GRAPH_MODE = 0


class ParallelMode(str, Enum):
    STAND_ALONE = "stand_alone"
    DATA_PARALLEL = "data_parallel"
    SEMI_AUTO_PARALLEL = "semi_auto_parallel"
    AUTO_PARALLEL = "auto_parallel"

    def __str__(self):
        return self.value


_CONTEXT = {
    "mode": PYNATIVE_MODE,
    "backend": "xla",            # "xla" (jax) or "onnx" (onnxruntime)
    "device_target": "CPU",
    "check_finite": False,
    "deterministic": "OFF",      # set_deterministic's record (compiler/hints.py)
    "debug": False,              # verify the graph after every pass
    "onnx_providers": ("cpu",),
    "onnx_session_config": {},   # onnxruntime session config entries for jit(backend="onnx")
    # A folder for XLA's compiled programs, reused by later processes (jax's persistent
    # compilation cache); None: off. The environment variable GRAPHCELL_COMPILE_CACHE sets it too.
    "compile_cache_dir": None,
    # Rows per tile when XLA runs a row-wise graph (inference) over a large batch in tiles
    # (passes/tile_rows.py): None chooses by the graph's sizes, 0 never tiles.
    "row_tile": None,
}
_PARALLEL = {
    "parallel_mode": ParallelMode.STAND_ALONE,
    "gradients_mean": False,
    "device_num": 1,
}


def set_context(**kwargs) -> None:
    """Sets context keys: mode (PYNATIVE_MODE or GRAPH_MODE), backend ("xla"|"onnx"), ...

    Unknown MindSpore keys that have no meaning here (device_id, save_graphs, ...) are
    accepted and stored, so migrated scripts run."""
    from .compiler.jit import bump_config_epoch
    if "backend" in kwargs and kwargs["backend"] not in ("xla", "onnx"):
        raise ValueError(f"set_context: backend must be 'xla' or 'onnx', got {kwargs['backend']!r}")
    if "mode" in kwargs and kwargs["mode"] not in (PYNATIVE_MODE, GRAPH_MODE):
        raise ValueError("set_context: mode must be graphcell.PYNATIVE_MODE or graphcell.GRAPH_MODE")
    row_tile = kwargs.get("row_tile")
    if row_tile is not None and (not isinstance(row_tile, int) or isinstance(row_tile, bool) or row_tile < 0):
        raise ValueError(f"set_context: row_tile must be None (automatic), 0 (never tile) or a "
                         f"positive number of rows, got {row_tile!r}")
    if "compile_cache_dir" in kwargs:
        _use_compile_cache(kwargs["compile_cache_dir"])
    _CONTEXT.update(kwargs)
    bump_config_epoch()


def _use_compile_cache(path) -> None:
    """Points jax's persistent compilation cache at `path` (None: off). Every compiled program
    is cached, however quick its compile: an ensemble step takes seconds of XLA compile (N=16
    LeNet5: a first call of 1.6 s, 0.2 s from the cache)."""
    import jax
    if path is not None:
        path = os.fspath(path)
        os.makedirs(path, exist_ok=True)
    jax.config.update("jax_compilation_cache_dir", path)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0 if path else 1.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)


def get_context(key: str):
    if key not in _CONTEXT:
        raise ValueError(f"get_context: unknown key {key!r}; known keys: {', '.join(sorted(_CONTEXT))}")
    return _CONTEXT[key]


# The backend a trace in progress is lowered for: `export` and `jit(backend="onnx")` trace for
# onnxruntime whatever the context's backend says. Lowering choices that depend on the backend
# (the vmap pass's convolution strategies) read `lowering_target()`.
_TARGET: contextvars.ContextVar = contextvars.ContextVar("graphcell_lowering_target", default=None)


@contextlib.contextmanager
def lowering_for(backend: str):
    """Traces inside this block are lowered for `backend`: "xla", "onnx", "onnx-batched"
    (onnxruntime at tiny batches: the stacked form of an ensemble, see ops/nn_prims.py), or
    "onnx-auto" (jit(backend="onnx"): each vmapped ensemble picks "onnx" or "onnx-batched" by
    the batch it is called with, api/vmap.py)."""
    token = _TARGET.set(backend)
    try:
        yield
    finally:
        _TARGET.reset(token)


def lowering_target() -> str:
    """The backend the current trace is lowered for: the innermost `lowering_for`, else the
    context's backend."""
    return _TARGET.get() or _CONTEXT["backend"]


def set_auto_parallel_context(**kwargs) -> None:
    if "parallel_mode" in kwargs:
        kwargs["parallel_mode"] = ParallelMode(str(kwargs["parallel_mode"]))
    _PARALLEL.update(kwargs)


def get_auto_parallel_context(key: str):
    if key not in _PARALLEL:
        raise ValueError(f"get_auto_parallel_context: unknown key {key!r}")
    return _PARALLEL[key]


def reset_auto_parallel_context() -> None:
    _PARALLEL.update(parallel_mode=ParallelMode.STAND_ALONE, gradients_mean=False, device_num=1)


if os.environ.get("GRAPHCELL_COMPILE_CACHE"):
    _CONTEXT["compile_cache_dir"] = os.environ["GRAPHCELL_COMPILE_CACHE"]
    _use_compile_cache(_CONTEXT["compile_cache_dir"])

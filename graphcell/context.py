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
    # MindSpore's: every compile writes graphcell's IR per stage there (compiler/save_graphs.py).
    "save_graphs": 0,
    "save_graphs_path": ".",
}
_PARALLEL = {
    "parallel_mode": ParallelMode.STAND_ALONE,
    "gradients_mean": False,
    "device_num": 1,
}


# The keys MindSpore 2.10's set_context accepts (measured: it calls any other key "not
# recognized"). Those with no meaning here (device_id, max_call_depth, ...) are stored, so migrated
# scripts run; a misspelt key is an error, as in MindSpore, rather than a setting that does nothing.
_MINDSPORE_KEYS = frozenset("""
    aoe_config aoe_job_type aoe_tune_mode ascend_config atomic_clean_policy auto_tune_mode
    bias_add_comm_swap check_bprop compile_cache_path compute_communicate_fusion_level
    conv_allow_hf32 conv_allow_tf32 conv_dgrad_algo conv_fprop_algo conv_wgrad_algo cur_step_num
    dataset_broadcast_opt_level debug_level deterministic device_id device_target
    disable_format_transform enable_allreduce_slice_to_reducescatter enable_auto_mixed_precision
    enable_begin_end_inline_opt enable_compile_cache enable_concat_eliminate_opt enable_debug_runtime
    enable_flash_attention_load_balance enable_fused_cast_add_opt enable_ge enable_grad_comm_opt
    enable_graph_kernel enable_interleave_parallel_branch enable_interleave_split_concat_branch
    enable_offloading_packed_experts enable_opt_shard_comm_opt enable_parallel_split enable_profiling
    enable_reduce_precision enable_sparse enable_task_opt env_config_path exec_order ge_options
    gpu_config grad_for_scalar graph_kernel_flags hccl_watchdog host_scheduling_max_threshold
    infer_boost inter_op_parallel_num interleaved_layernorm_comm interleaved_matmul_comm jit_compile
    jit_config jit_level jit_syntax_level last_triggered_step matmul_allow_hf32 matmul_allow_tf32
    matmul_grad_comm_overlap max_call_depth max_device_memory memory_optimize_level
    mempool_block_size mode need_ckpt op_debug_option op_precision_mode op_timeout pp_1f1b_overlap
    precision_mode print_file_path profiling_options pynative_synchronize
    recompute_allgather_overlap_fagrad recompute_comm_overlap reserve_class_name_in_scope
    runtime_num_threads save_checkpoint_steps save_graphs save_graphs_path support_binary topo_order
    variable_memory_max_size""".split())
# graphcell's own keys that have no default in _CONTEXT (read with a fallback when never set)
_OPTIONAL_KEYS = frozenset({"conv_strategy", "ensemble_sharding"})
_DEVICE_TARGETS = ("CPU", "GPU", "Ascend", "Davinci")   # MindSpore 2.10's list


def _check_context(kwargs) -> None:
    """Every key and value of a set_context call, before any is stored, with MindSpore 2.10's
    error types and words."""
    import difflib
    for key in kwargs:
        if key not in _CONTEXT and key not in _MINDSPORE_KEYS and key not in _OPTIONAL_KEYS:
            close = difflib.get_close_matches(key, [*_CONTEXT, *_MINDSPORE_KEYS, *_OPTIONAL_KEYS], n=1)
            hint = f" Did you mean '{close[0]}'?" if close else ""
            raise ValueError(f"For 'context.set_context', the keyword argument {key} is not recognized!{hint}")
    if "mode" in kwargs:
        mode = kwargs["mode"]
        if mode is not None and not isinstance(mode, int):
            raise TypeError(f"The parameter 'mode' must be <class 'int'>, but got {type(mode)}")
        if mode not in (PYNATIVE_MODE, GRAPH_MODE):
            raise ValueError("For 'context.set_context', the argument 'mode' should be context.GRAPH_MODE (0) "
                             f"or context.PYNATIVE_MODE (1), but got {mode}.")
    if "device_target" in kwargs:
        target = kwargs["device_target"]
        if not isinstance(target, str):
            raise TypeError(f"The parameter 'device_target' must be <class 'str'>, but got {type(target)}")
        if target not in _DEVICE_TARGETS:
            raise ValueError(f"For 'context.set_context', the argument 'device_target' must be one of "
                             f"{list(_DEVICE_TARGETS)}, but got {target}.")
    if "backend" in kwargs and kwargs["backend"] not in ("xla", "onnx"):
        raise ValueError(f"set_context: backend must be 'xla' or 'onnx', got {kwargs['backend']!r}")
    if "save_graphs" in kwargs or "save_graphs_path" in kwargs:
        from .compiler.save_graphs import check_settings
        kwargs.update(check_settings(kwargs))


def set_context(**kwargs) -> None:
    """Sets context keys: mode (PYNATIVE_MODE or GRAPH_MODE), backend ("xla"|"onnx"), ...

    `save_graphs` (0-3, True meaning 2) and `save_graphs_path` (default "."), or the
    environment variables MS_DEV_SAVE_GRAPHS and MS_DEV_SAVE_GRAPHS_PATH, which win over them
    as in MindSpore 2.10: every compile (jit, a GRAPH_MODE Cell, a grad or vmap graph,
    jit(backend="onnx"), ONNX export) writes its stages there with 2.10's file names,
    `00_trace_0000.ir`, `01_cse_0001.ir`, ... (stage index per compile, file number per
    process). The content differs from MindSpore's: each `.ir` holds graphcell's own IR in its
    canonical text form, with every node's Cell path and source line (what `graphcell dump`
    prints, and `ir.parser.parse_graph` reads back), after the trace, after grad or vmap, and
    after each of graphcell's passes; not MindSpore's ANF IR, its pipeline stages or its
    backend's kernel graphs. Level 2 adds the backend's program (StableHLO `.mlir` for XLA,
    ONNX text for onnxruntime), level 3 a Graphviz `.dot` per stage. No `.pb` files.

    MindSpore keys that have no meaning here (device_id, max_call_depth, ...) are accepted and
    stored, so migrated scripts run; a key MindSpore 2.10 does not know is a ValueError."""
    from .compiler.jit import bump_config_epoch
    _check_context(kwargs)
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

"""graphcell: a graph-mode compiler for MindSpore-style networks.

Trace `nn.Cell`s and functions into a typed IR, transform it (vmap, grad, clean-ups), and run
it through XLA (jax) or export it to ONNX (onnxruntime).
"""
import os as _os
import sys as _sys


def _started_as_command() -> bool:
    """Whether the `graphcell` command is importing this package (`python -m graphcell[.cli]`,
    whose module -m is still locating, or the installed `graphcell` script): then jax and the
    core load once the command's arguments parse (cli.main), not for --help."""
    argv = _sys.argv
    if argv and argv[0] == "-m":
        orig = getattr(_sys, "orig_argv", [])
        for i, arg in enumerate(orig[:-1]):
            if arg == "-m":
                return orig[i + 1] in ("graphcell", "graphcell.cli")
        return False
    return bool(argv) and _os.path.basename(argv[0]).removesuffix(".exe") == "graphcell"


def _load_core() -> None:
    """Binds the names of `graphcell._core` here (imports jax, Tensor, ops, nn, ...)."""
    import importlib
    _core = importlib.import_module("graphcell._core")   # not `from . import`: that asks __getattr__
    globals().update((name, getattr(_core, name)) for name in _core.__all__)


if _started_as_command():
    pass   # cli.main calls _load_core
else:
    from ._core import *  # noqa: E402,F401,F403


def set_seed(seed: int) -> None:
    """Seeds initialisers (bit-identical to MindSpore's), graphcell.numpy and the random key."""
    from .common.initializer import set_seed as _set_seed
    from .ops.generator import note_global_seed
    from .ops.random_state import seed_global_key
    _set_seed(seed)
    seed_global_key(seed)
    note_global_seed(seed)


__version__ = "0.1.0"

# Public names whose modules load on first use (keeps `import graphcell` fast and lets the
# subsystems import graphcell's core without cycles).
_LAZY = {
    "vmap": "graphcell.api.vmap",
    "grad": "graphcell.api.grad",
    "value_and_grad": "graphcell.api.grad",
    **dict.fromkeys(["vjp", "jvp", "jacfwd", "jacrev"], "graphcell.api.jacobian"),
    "save_checkpoint": "graphcell.train.serialization",
    "load_checkpoint": "graphcell.train.serialization",
    "load_param_into_net": "graphcell.train.serialization",
    "async_ckpt_thread_status": "graphcell.train.serialization",
    "export": "graphcell.compiler.export",
    "load": "graphcell.compiler.export",
    "check": "graphcell.compiler.check",
    "Model": "graphcell.train.model",
    **dict.fromkeys(["LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager", "build_train_network",
                     "data_sink", "DatasetHelper", "connect_network_with_dataset", "BackupAndRestore", "OnRequestExit",
                     "FlopsUtilizationCollector", "build_searched_strategy", "load_distributed_checkpoint"],
                    "graphcell.train"),
    **dict.fromkeys(["ckpt_to_safetensors", "safetensors_to_ckpt", "load_checkpoint_async", "merge_sliced_parameter",
                     "obfuscate_ckpt", "load_obf_params_into_net"],
                    "graphcell.train.ckpt_convert"),
    **dict.fromkeys(["load_segmented_checkpoints", "unified_safetensors", "transform_checkpoints",
                     "transform_checkpoint_by_rank", "get_ckpt_path_with_strategy"], "graphcell.train.parallel_ckpt"),
    **dict.fromkeys(["Generator", "default_generator", "seed", "manual_seed", "initial_seed", "get_rng_state",
                     "set_rng_state"], "graphcell.ops.generator"),
    **dict.fromkeys(["from_numpy", "frombuffer", "is_tensor"], "graphcell.common.tensor_from"),
    "mutable": "graphcell.frontend.mutable",
    "get_grad": "graphcell.api.grad_ids",
    **dict.fromkeys(["from_dlpack", "to_dlpack"], "graphcell.tensor_storage"),
    **dict.fromkeys(["set_device", "get_current_device", "set_recursion_limit", "set_dump"],
                    "graphcell.device_manager"),
    # mindspore.runtime's names at the top level, as 2.10 has them (mindspore.synchronize among them)
    **dict.fromkeys(["Stream", "Event", "StreamCtx", "synchronize", "current_stream", "default_stream",
                     "communication_stream", "set_cur_stream"], "graphcell.runtime.streams"),
    **dict.fromkeys(["memory_stats", "memory_summary", "memory_allocated", "max_memory_allocated", "memory_reserved",
                     "max_memory_reserved", "reset_peak_memory_stats", "reset_max_memory_allocated",
                     "reset_max_memory_reserved", "empty_cache", "set_memory"], "graphcell.runtime.memory"),
    **dict.fromkeys(["launch_blocking", "dispatch_threads_num", "set_cpu_affinity"], "graphcell.runtime.executor"),
    "Profiler": "graphcell.profiler",
    **dict.fromkeys(["Symbol", "enable_dynamic"], "graphcell.common.symbol"),
    **dict.fromkeys(["get_py_obj_dtype", "get_level", "get_log_config"], "graphcell.common.introspection"),
    "swap_tensors": "graphcell.common.tensor_swap",
    **dict.fromkeys(["saved_tensors_hooks", "register_saved_tensors_hooks"], "graphcell.common.saved_tensors_hooks"),
    "parameter_broadcast": "graphcell.common.parameter_broadcast",
    **dict.fromkeys(["jit_class", "constexpr", "lazy_inline", "no_inline", "recompute", "JitConfig",
                     "set_deterministic", "STRICT", "COMPATIBLE", "LAX"], "graphcell.compiler.hints"),
    "run_check": "graphcell.common.run_check",
    # mindspore.LossMonitor etc.: MindSpore exports its stock callbacks at the top level too
    **{name: "graphcell.train" for name in (
        "Callback", "RunContext", "LossMonitor", "TimeMonitor", "ModelCheckpoint", "CheckpointConfig",
        "EarlyStopping", "History", "LambdaCallback", "LearningRateScheduler", "ReduceLROnPlateau",
        # and its metrics (mindspore.train.metrics' __all__)
        "Metric", "rearrange_inputs", "Accuracy", "Top1CategoricalAccuracy", "Top5CategoricalAccuracy",
        "TopKCategoricalAccuracy", "Loss", "MAE", "MSE", "Precision", "Recall", "Fbeta", "F1", "ConfusionMatrix",
        "ConfusionMatrixMetric", "ROC", "auc", "BleuScore", "Perplexity", "OcclusionSensitivity", "Dice",
        "HausdorffDistance", "MeanSurfaceDistance", "RootMeanSquareDistance", "CosineSimilarity", "get_metric_fn",
        "names")},
}
_LAZY_MODULES = {"amp", "dataset", "train", "communication", "runtime", "passes", "ir", "mint", "onnx", "experimental",
                 "hal", "utils", "device_context", "profiler"}


def __getattr__(name):
    import importlib
    if "Tensor" not in globals() and not name.startswith("__"):   # started as the command, and a name is wanted before cli.main loaded them
        _load_core()
        if name in globals():
            return globals()[name]
    if name in _LAZY_MODULES:
        value = importlib.import_module(f"graphcell.{name}")
    elif name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
    elif name in dtype.ALIASES:  # graphcell.float, .int, .bool...: not module globals, to keep the builtins
        return dtype.ALIASES[name]
    else:
        raise AttributeError(f"module 'graphcell' has no attribute {name!r}")
    globals()[name] = value
    return value

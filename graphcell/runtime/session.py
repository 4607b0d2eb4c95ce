"""`Session`: onnxruntime with a provider preference list, input validation and IO binding.

    >>> sess = Session("lenet.onnx", providers=["cuda", "cpu"])
    >>> sess.provider
    'CPUExecutionProvider'
    >>> logits = sess(x)            # one output: an array; several: a list
"""
from __future__ import annotations

import os
import threading
import warnings
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort

from ..dtype import bfloat16, float16
from . import optimized_cache as optimized_models

__all__ = ["Session", "SessionInputError", "OnnxModelError", "PROVIDERS", "run_traced_onnx"]

# Short names for onnxruntime's execution providers.
PROVIDERS = {
    "cpu": "CPUExecutionProvider",
    "cuda": "CUDAExecutionProvider",
    "gpu": "CUDAExecutionProvider",
    "tensorrt": "TensorrtExecutionProvider",
    "trt": "TensorrtExecutionProvider",
    "rocm": "ROCMExecutionProvider",
    "migraphx": "MIGraphXExecutionProvider",
    "openvino": "OpenVINOExecutionProvider",
    "dml": "DmlExecutionProvider",
    "directml": "DmlExecutionProvider",
    "coreml": "CoreMLExecutionProvider",
    "qnn": "QNNExecutionProvider",
    "xnnpack": "XnnpackExecutionProvider",
}

_LEVELS = {
    "disable": ort.GraphOptimizationLevel.ORT_DISABLE_ALL,
    "basic": ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
    "extended": ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
    "all": ort.GraphOptimizationLevel.ORT_ENABLE_ALL,
}

_NP_OF_ORT = {
    "tensor(float)": np.float32, "tensor(double)": np.float64, "tensor(float16)": np.float16,
    "tensor(int8)": np.int8, "tensor(int16)": np.int16, "tensor(int32)": np.int32,
    "tensor(int64)": np.int64, "tensor(uint8)": np.uint8, "tensor(uint16)": np.uint16,
    "tensor(uint32)": np.uint32, "tensor(uint64)": np.uint64, "tensor(bool)": np.bool_,
    "tensor(bfloat16)": bfloat16.np_dtype, "tensor(string)": np.object_,
}


class SessionInputError(ValueError):
    """An input does not match what the model declares; the message names it."""


class OnnxModelError(ValueError):
    """onnxruntime could not load the model (corrupt, truncated or not ONNX); the message names the file."""


def provider_name(name: str) -> str:
    full = PROVIDERS.get(str(name).lower(), name)
    if not str(full).endswith("ExecutionProvider"):
        raise ValueError(f"Session: unknown provider {name!r}; use one of {sorted(PROVIDERS)} "
                         "or an onnxruntime name such as 'CUDAExecutionProvider'")
    return full


class Session:
    """An onnxruntime session over a model file, bytes, or an `onnx.ModelProto`.

    - `providers`: preference list; the first available one is used (`self.provider`).
      Falling back to CPU when something else was asked for warns, or raises with `strict=True`.
      None (the default): CUDA where this onnxruntime has it, else CPU, without a warning;
      `self.fallback` holds what a fallback said either way (None when the first choice ran).
    - `intra_op_num_threads` / `inter_op_num_threads`: onnxruntime's thread pools.
    - `graph_optimization_level`: "disable" | "basic" | "extended" | "all" (or ORT's enum).
    - `io_binding`: run through an IO binding (outputs stay on the device until copied). "auto"
      (the default): for device providers (CUDA, TensorRT) only; on the CPU a binding saves no
      copy and costs ~7 us a call (LeNet5 at batch 1 runs in 44 us).
    - `config`: onnxruntime session config entries, e.g. `{"session.intra_op.allow_spinning": "0"}`
      so idle worker threads sleep instead of spinning (several sessions sharing few cores).
    - `optimized_cache`: a folder for onnxruntime's optimised models (CPU, level "all"): a later
      session over the same model on the same machine loads it instead of optimising again
      (`runtime/optimized_cache.py`; `self.optimized_from_cache` names the file it loaded).
    Inputs are checked against the model's declared dtypes and shapes before running.
    """

    def __init__(self, path_or_model, providers=None, strict: bool = False,
                 intra_op_num_threads: int | None = None, inter_op_num_threads: int | None = None,
                 graph_optimization_level="all", io_binding: bool | str = "auto", name: str | None = None,
                 config: dict | None = None, optimized_cache: str | os.PathLike | None = None):
        # The default (CUDA when this onnxruntime has it, else CPU) falls back quietly: a
        # warning on every CPU-only machine would say nothing the user asked about.
        quiet_fallback = providers is None and not strict
        if providers is None:
            providers = ("cuda", "cpu")
        if isinstance(providers, str):
            providers = [p.strip() for p in providers.split(",") if p.strip()]   # "cuda,cpu", as the CLI
        wanted = [provider_name(p) for p in providers]
        if not wanted:
            raise ValueError("Session: providers must name at least one execution provider")
        available = ort.get_available_providers()
        usable = [p for p in wanted if p in available]
        if not usable:
            if strict:
                raise RuntimeError(f"Session: none of {wanted} is available (onnxruntime has {available}); "
                                   "install the onnxruntime build that has it (e.g. onnxruntime-gpu for CUDA), "
                                   "or pass strict=False to fall back to CPU")
            usable = ["CPUExecutionProvider"]
        if isinstance(graph_optimization_level, str) and graph_optimization_level not in _LEVELS:
            raise ValueError(f"Session: graph_optimization_level must be one of {sorted(_LEVELS)}")
        level = _LEVELS.get(graph_optimization_level, graph_optimization_level)
        config = {str(k): str(v) for k, v in (config or {}).items()}

        def options(level):
            opts = ort.SessionOptions()
            if intra_op_num_threads is not None:
                opts.intra_op_num_threads = int(intra_op_num_threads)
            if inter_op_num_threads is not None:
                opts.inter_op_num_threads = int(inter_op_num_threads)
            for key, value in config.items():  # e.g. {"session.intra_op.allow_spinning": "0"}
                opts.add_session_config_entry(key, value)
            opts.graph_optimization_level = level
            return opts

        self.name = name or (os.fspath(path_or_model) if isinstance(path_or_model, (str, os.PathLike))
                             else "<model>")
        source = path_or_model
        if isinstance(path_or_model, onnx.ModelProto):
            source = path_or_model.SerializeToString()
        elif isinstance(path_or_model, os.PathLike):
            source = os.fspath(path_or_model)
        if isinstance(source, str) and not os.path.isfile(source):
            raise FileNotFoundError(f"Session: no model file {source!r}; export one with graphcell.export(...)")
        cached = None
        if optimized_cache is not None and usable == ["CPUExecutionProvider"] and \
                level == _LEVELS["all"] and not _has_external_data(source):
            data = source if isinstance(source, bytes) else Path(source).read_bytes()
            cached = optimized_models.cache_path(optimized_cache, data, config)
        self.optimized_from_cache = None
        if cached is not None and cached.is_file():
            try:   # optimised already: loaded as it is
                self._sess = ort.InferenceSession(os.fspath(cached), options(_LEVELS["disable"]), usable)
                self.optimized_from_cache = cached
            except Exception:   # damaged: optimised again (and replaced) below
                pass
        if self.optimized_from_cache is None:
            self._sess = self._optimize(source, options(level), usable, cached)
        self.providers = self._sess.get_providers()
        self.provider = self.providers[0]
        self.fallback = None   # what a fallback from the first choice said (also when quiet)
        if self.provider != wanted[0]:
            self.fallback = (f"Session: {wanted[0]} is not available; running on {self.provider}"
                             + (f" (onnxruntime has {available})" if self.provider == "CPUExecutionProvider" else ""))
            if strict:
                raise RuntimeError(self.fallback + "; pass strict=False to accept the fallback")
            if not quiet_fallback:
                warnings.warn(self.fallback, RuntimeWarning, stacklevel=2)
        self.inputs = [(i.name, tuple(i.shape), _NP_OF_ORT.get(i.type, i.type)) for i in self._sess.get_inputs()]
        self._input_names = {n for n, _, _ in self.inputs}
        # Per input: (name, numpy dtype, rank, fixed (axis, size) pairs, symbolic (axis, name) pairs).
        self._checks = [(name, np.dtype(dtype), len(shape),
                         [(a, d) for a, d in enumerate(shape) if isinstance(d, int)],
                         [(a, d) for a, d in enumerate(shape) if isinstance(d, str)])
                        for name, shape, dtype in self.inputs]
        self._names = tuple(n for n, _, _ in self.inputs)
        # (dtype, shape) per input of positional C-contiguous arrays that passed the checks: a
        # call with the same again skips them (~3 -> ~1 us a call; batch-1 models run in ~50 us).
        self._accepted: set = set()
        self.outputs = [o.name for o in self._sess.get_outputs()]
        self._device = "cuda" if self.provider in ("CUDAExecutionProvider", "TensorrtExecutionProvider") else "cpu"
        if io_binding == "auto":
            io_binding = self._device != "cpu"
        self.io_binding = bool(io_binding)
        self._binding = self._sess.io_binding() if io_binding else None
        self._binding_lock = threading.Lock()   # one binding: calls from several threads take turns

    def _optimize(self, source, opts, usable, cached):
        """A new onnxruntime session over `source`; onnxruntime also writes the optimised
        model to `cached` when that is set."""
        written = None
        if cached is not None:
            try:
                cached.parent.mkdir(parents=True, exist_ok=True)
                written = optimized_models.temporary_path(cached)
                opts.optimized_model_filepath = os.fspath(written)
                opts.log_severity_level = 3   # not onnxruntime's warning that the file suits this CPU only
            except OSError:
                pass
        try:
            sess = ort.InferenceSession(source, opts, usable)
        except Exception as e:  # onnxruntime's InvalidProtobuf/InvalidGraph/Fail...: name the file instead
            if "NOT_IMPLEMENTED" in str(e):   # a valid model with an op or dtype the provider lacks
                raise OnnxModelError(f"Session: cannot load {self.name!r}: {e}. The providers {usable} have no "
                                     "kernel for an op at this dtype (onnxruntime's CPU provider lacks most "
                                     "bfloat16 and some float64 and small-integer kernels); cast the model to "
                                     "float32, or run it with the XLA backend") from None
            raise OnnxModelError(f"Session: cannot load {self.name!r}: {e}. Is it an ONNX model? It may be "
                                 "truncated or corrupt; re-export it with graphcell.export(...)") from None
        if written is not None and written.is_file():
            optimized_models.publish(written, cached)
        return sess

    def __repr__(self):
        return f"Session({self.name!r}, provider={self.provider}, inputs={[n for n, _, _ in self.inputs]})"

    @property
    def metadata(self) -> dict:
        return dict(self._sess.get_modelmeta().custom_metadata_map)

    def _feeds(self, args, kwargs) -> dict:
        """The inputs by name, as C-contiguous numpy arrays, checked against the model's dtypes
        and shapes (messages are built only for a bad input: this runs on every call)."""
        if not kwargs and len(args) == len(self._names):
            key = self._signature(args)
            if key is not None and key in self._accepted:
                return {self._names[0]: args[0]} if len(args) == 1 else dict(zip(self._names, args))
            out = self._checked_feeds(args, kwargs)
            if key is not None:
                if len(self._accepted) >= 64:   # (a bound for callers whose shapes keep changing)
                    self._accepted.clear()
                self._accepted.add(key)
            return out
        return self._checked_feeds(args, kwargs)

    @staticmethod
    def _signature(args):
        """(dtype, shape) of positional C-contiguous numpy arrays (fed as they are), or None."""
        if len(args) == 1:   # the common case, without building a list
            a = args[0]
            return (a.dtype, a.shape) if type(a) is np.ndarray and a.flags.c_contiguous else None
        key = tuple([(a.dtype, a.shape) for a in args if type(a) is np.ndarray and a.flags.c_contiguous])
        return key if len(key) == len(args) else None

    def _checked_feeds(self, args, kwargs) -> dict:
        if len(args) == 1 and isinstance(args[0], dict) and not kwargs:   # onnxruntime's feed dict
            args, kwargs = (), args[0]
        if len(args) > len(self.inputs):
            raise SessionInputError(f"{self.name}: {len(args)} inputs given, the model takes "
                                    f"{len(self.inputs)} ({', '.join(n for n, _, _ in self.inputs)})")
        feeds = {name: a for (name, _, _), a in zip(self.inputs, args)}
        for k, v in kwargs.items():
            if k not in self._input_names:
                raise SessionInputError(f"{self.name}: no input named {k!r}; inputs: "
                                        f"{', '.join(n for n, _, _ in self.inputs)}")
            if k in feeds:
                raise SessionInputError(f"{self.name}: input {k!r} is given twice, by position and by name")
            feeds[k] = v
        symbols: dict[str, tuple[int, str]] = {}
        out = {}
        for (name, shape, dtype), (_, np_dtype, rank, fixed, symbolic) in zip(self.inputs, self._checks):
            if name not in feeds:
                raise SessionInputError(f"{self.name}: input {name!r} is missing")
            a = feeds[name]
            if type(a) is not np.ndarray:
                a = np.asarray(a)
            if a.dtype != np_dtype:
                raise SessionInputError(f"{self.name}: input {name!r} is {_describe(a.shape, a.dtype)}, "
                                        f"the model expects {_describe(shape, dtype)}")
            if a.ndim != rank:
                raise SessionInputError(f"{self.name}: input {name!r} has rank {a.ndim} "
                                        f"(shape {list(a.shape)}), the model expects {_describe(shape, dtype)}")
            for axis, d in fixed:
                if a.shape[axis] != d:
                    raise SessionInputError(f"{self.name}: input {name!r} has shape {list(a.shape)}, the "
                                            f"model expects {_describe(shape, dtype)} (axis {axis} must be {d})")
            for axis, d in symbolic:
                got = a.shape[axis]
                seen = symbols.setdefault(d, (got, name))
                if seen[0] != got:
                    raise SessionInputError(
                        f"{self.name}: input {name!r} has {d}={got} on axis {axis}, but input "
                        f"{seen[1]!r} has {d}={seen[0]}")
            out[name] = a if a.flags.c_contiguous else a.copy()   # (ascontiguousarray makes 0-d 1-d)
        return out

    def run(self, *args, **kwargs) -> list[np.ndarray]:
        """Runs the model on positional (model order) and/or named inputs; returns every output."""
        feeds = self._feeds(args, kwargs)
        if self._binding is None:
            return self._sess.run(self.outputs, feeds)
        with self._binding_lock:
            binding = self._binding
            binding.clear_binding_inputs()
            binding.clear_binding_outputs()
            for name, a in feeds.items():
                binding.bind_cpu_input(name, a)
            for name in self.outputs:
                binding.bind_output(name, self._device)
            self._sess.run_with_iobinding(binding)
            return binding.copy_outputs_to_cpu()

    def __call__(self, *args, **kwargs):
        outs = self.run(*args, **kwargs)
        return outs[0] if len(outs) == 1 else outs


def _has_external_data(source) -> bool:
    """Whether a model file keeps tensors in other files (which the optimised-model cache's key,
    a hash of the model file, would not cover: a re-export with new weights served stale ones)."""
    if not isinstance(source, str):
        return False
    model = onnx.load(source, load_external_data=False)
    return any(t.data_location == onnx.TensorProto.EXTERNAL for t in model.graph.initializer)


def _describe(shape, dtype) -> str:
    return f"{np.dtype(dtype).name}[{','.join(str(d) for d in shape)}]"


def run_traced_onnx(traced, arrays) -> list:
    """Runs a Traced graph through onnxruntime (jit(backend="onnx")), lowered once.

    A graph that writes no parameter (inference) runs a model with its parameters baked in as
    initializers, which onnxruntime folds, reorders and prepacks at session creation (LeNet5 at
    batch 1: 406 -> 244 us a call), as long as each call passes the very arrays it was built
    from (one identity check per parameter). Once they change, and for graphs that update
    parameters, the parameters are inputs of the model, so that updates flow in and out like
    XLA's. A graph with host calls (prints, checks, ops.Custom, backward hooks) runs as
    models and Python in turn (runtime/onnx_host_calls.py)."""
    hooks = traced.cache.get("hooks")
    if hooks is None:
        from ..ops.hooks import runs_hooks
        hooks = traced.cache["hooks"] = runs_hooks(traced.graph)
    if hooks:
        plan = traced.cache.get("onnx_host_plan")
        if plan is None:
            plan = traced.cache["onnx_host_plan"] = _host_plan(traced)
        return _to_jax(plan.run(arrays))
    n = traced.n_args
    if not traced.graph.state_names and not traced.cache.get("onnx_params_vary"):
        baked = traced.cache.get("onnx_baked")
        if baked is None:
            baked = traced.cache["onnx_baked"] = (_jit_session(traced, arrays[n:]), tuple(arrays[n:]))
        if all(a is b for a, b in zip(arrays[n:], baked[1])):
            return _to_jax(baked[0].run(*[np.asarray(a) for a in arrays[:n]]))
        # The parameters changed (set_data, training between calls): from now on they are inputs.
        traced.cache["onnx_params_vary"] = True
        del traced.cache["onnx_baked"]
    sess = traced.cache.get("onnx")
    if sess is None:
        sess = traced.cache["onnx"] = _jit_session(traced)
    return _to_jax(sess.run(*[np.asarray(a) for a in arrays]))


# One output at most this size is converted by jnp.asarray: 21-31 us against device_put's
# 42-57 us for [1, 10] to [4, 6, 1, 5, 5] float32 (LeNet5 at batch 1 through jit: ~160 us a call).
_SMALL_OUTPUT_BYTES = 1 << 16


def _to_jax(outputs: list) -> list:
    """onnxruntime's outputs as jax arrays. A list goes in one device_put (per array: twice the
    time for a training step's ~30 outputs); they are onnxruntime's fresh arrays, so device_put
    may keep their buffers (jnp.asarray copies: 4x slower for a 4 MB array)."""
    import jax
    if len(outputs) == 1 and outputs[0].nbytes <= _SMALL_OUTPUT_BYTES:
        import jax.numpy as jnp
        return [jnp.asarray(outputs[0])]
    return jax.device_put(outputs)


def _jit_session(traced, param_arrays=None) -> Session:
    """The session of jit(backend="onnx"): parameters as initializers holding `param_arrays`,
    or as inputs when that is None. The model is the "onnx" pipeline's graph lowered
    (compiler/jit.py `onnx_graph`); the compile cache keys on the trace, so a hit skips the
    passes as well as the lowering."""
    from ..compiler.jit import onnx_graph
    from ..compiler.onnx import RUNTIME_OPSET, lower
    from ..compiler.onnx_cache import cached_model
    from ..compiler.save_graphs import onnx_compile
    # set_context(save_graphs=...): the stages, each pass among them (they run now, cache or not)
    onnx_compile(traced, optimize=lambda on_pass: onnx_graph(traced, on_pass))
    if param_arrays is None:
        model = cached_model(("jit", RUNTIME_OPSET, "onnx-pipeline", traced.graph),
                             lambda: lower(onnx_graph(traced), params_as_inputs=True, opset=RUNTIME_OPSET).model)
    else:
        params = [np.asarray(a) for a in param_arrays]

        def build():
            graph = onnx_graph(traced)   # the passes keep the inputs, as new Values: paired by position
            return lower(graph, params=dict(zip(graph.inputs[traced.n_args:], params)), opset=RUNTIME_OPSET).model
        model = cached_model(("jit-baked", RUNTIME_OPSET, "onnx-pipeline", traced.graph, tuple(params)), build)
    session = _runtime_session(model, f"jit({traced.graph.name})")
    # (after the session: a model with no kernel at bfloat16 is named as such when it loads)
    _refuse_bfloat16_boundary(traced.graph, fed=param_arrays is None)
    if session.provider == "CPUExecutionProvider" and _computes_in_float16(traced.graph):
        warnings.warn("jit(backend='onnx') of a float16 graph: onnxruntime's CPU provider computes most "
                      "float16 ops in float32 (it inserts casts around them), so a value that overflows "
                      "float16 under XLA (a loss scaler's inf) can stay finite here", RuntimeWarning, stacklevel=4)
    return session


def _host_plan(traced):
    """The models and host calls of a graph with host calls, each model lowered with its
    parameters as inputs (the host calls read values of the run, so no model is baked)."""
    from ..compiler.jit import onnx_graph
    from ..compiler.onnx import RUNTIME_OPSET, lower
    from ..compiler.onnx_cache import cached_model
    from ..compiler.save_graphs import onnx_compile
    from .onnx_host_calls import host_plan
    onnx_compile(traced, optimize=lambda on_pass: onnx_graph(traced, on_pass))
    plan = host_plan(onnx_graph(traced))
    for i, stage in enumerate(plan.models):
        model = cached_model(("jit-host-stage", RUNTIME_OPSET, "onnx-pipeline", traced.graph, i),
                             lambda: lower(stage.graph, params_as_inputs=True, opset=RUNTIME_OPSET,
                                           drop_warning=False).model)
        stage.session = _runtime_session(model, f"jit({traced.graph.name}) stage {i}")
    return plan


def _runtime_session(model, name: str) -> Session:
    """A jit(backend="onnx") session of `model` with the context's providers and settings; with
    a compile cache, onnxruntime's optimised model is kept too (<cache>/onnxruntime)."""
    from ..compiler.onnx_cache import cache_folder
    from ..context import get_context
    return Session(model, providers=list(get_context("onnx_providers")), io_binding=False, name=name,
                   config=get_context("onnx_session_config"), optimized_cache=cache_folder("onnxruntime"))


def _refuse_bfloat16_boundary(graph, fed: bool) -> None:
    """onnxruntime's Python API neither takes nor returns bfloat16 arrays (a bfloat16 argument
    failed in the run with "Numpy_type 256 can't be converted to MLDataType"): name the value.
    Parameters are fed too when they are model inputs (`fed`), baked in as initializers otherwise."""
    crossing = [f"{v.kind} {v.name!r}" for v in graph.inputs if v.dtype is bfloat16 and (fed or v.kind == "arg")]
    crossing += [f"output {i}" for i, v in enumerate(graph.outputs) if v.dtype is bfloat16]
    if crossing:
        names = ", ".join(crossing[:4])
        raise TypeError(f"jit(backend='onnx'): onnxruntime's Python API cannot pass bfloat16 tensors in or out "
                        f"({names}): cast them to float32 at the function's boundary, or use backend='xla'")


def _computes_in_float16(graph) -> bool:
    return any(v.dtype is float16 for node in graph.nodes for v in node.outputs)

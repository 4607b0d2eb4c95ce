"""`jit`: trace once per input signature, lower to XLA through jax, cache, run.

The cache key is the arguments' structure, every Tensor's shape and dtype, every static
argument's value, and the configuration epoch (bumped by assigning Cells or Parameters to a
Cell), since those change what a trace records. A key holds a trace per training mode of the
Cells the trace called (`TraceCache`).
"""
from __future__ import annotations

import functools
import weakref

import jax

from ..frontend import pytree
from ..graph_scalar import GraphScalar
from ..frontend.trace import TraceCache, Traced, alias_pattern, inline, paused_gc, trace
from ..frontend.tracer import current_tracer
from ..parallel import place_batch
from ..runtime.executor import _SETTINGS
from ..tensor import SignatureOnly, Tensor

_CONFIG_EPOCH = [0]


def bump_config_epoch() -> None:
    """Invalidates jit caches: call when something a trace reads outside its inputs changes."""
    _CONFIG_EPOCH[0] += 1


def config_epoch() -> int:
    """Part of every jit cache key. Training modes are not: each cached trace checks the modes
    of the Cells it called (`TraceCache`)."""
    return _CONFIG_EPOCH[0]


def compiled_fn(traced: Traced):
    """The jax.jit-compiled function of a traced graph, built once per Traced."""
    fn = traced.cache.get("xla")
    if fn is None:
        from ..ops.tiling import compiler_options
        from ..passes.manager import run_pipeline
        from . import save_graphs
        from .to_jax import graph_to_jax, stablehlo_text
        recorder = save_graphs.start(traced)   # None unless set_context(save_graphs=...)
        with paused_gc():
            graph = run_pipeline(traced.graph, "xla", on_pass=recorder and recorder.stage).graph
            if recorder is not None:
                recorder.backend("stablehlo", ".mlir", lambda: stablehlo_text(graph))
            fn = jax.jit(graph_to_jax(graph), compiler_options=compiler_options(graph))
        traced.cache["xla"] = fn
    return fn


def onnx_graph(traced: Traced, on_pass=None):
    """The graph jit(backend="onnx") lowers: `traced.graph` through the "onnx" pipeline to a
    fixed point, as compiled_fn runs the XLA one (the verifier between passes in debug mode),
    once per Traced; `on_pass(name, graph)` hears of each pass (save_graphs). An RNN training
    step loses a Scan (merge_scans); passes/manager.py says why the list is short."""
    graph = traced.cache.get("onnx_graph")
    if graph is None:
        from ..passes.manager import run_pipeline
        with paused_gc():
            graph = traced.cache["onnx_graph"] = run_pipeline(traced.graph, "onnx", on_pass=on_pass).graph
    return graph


def run_graph(traced: Traced, inputs: list[Tensor]) -> list[Tensor]:
    """Runs a traced graph on concrete Tensors with XLA; returns all outputs (state included)."""
    backend = traced.cache.get("backend", "xla")
    arrays = [t._payload for t in inputs]
    if backend == "onnx":
        from ..runtime.session import run_traced_onnx
        outs = run_traced_onnx(traced, arrays)
    else:
        fn = traced.cache.get("xla")
        if fn is not None:
            outs = fn(*arrays)
        else:
            with paused_gc():   # the first call: jax traces, lowers and compiles the graph
                outs = compiled_fn(traced)(*arrays)
        hooks = traced.cache.get("hooks")
        if hooks is None:
            from ..ops.hooks import runs_hooks
            hooks = traced.cache["hooks"] = runs_hooks(traced.graph)
        if hooks:   # a backward hook's error is raised once the run is over, as itself
            from ..ops.hooks import raise_hook_error
            jax.block_until_ready(outs)
            raise_hook_error()
    if _SETTINGS["launch_blocking"]:   # runtime.launch_blocking(): the call waits for its results
        jax.block_until_ready(outs)
    from ..context import _CONTEXT  # lazy: context imports this module
    if _CONTEXT["check_finite"]:    # off: one dict lookup per call
        from .check_finite import check_outputs
        check_outputs(traced, arrays, outs)
    return [Tensor._wrap(a) for a in outs]


class Jit:
    """A compiled callable over a function, a Cell, or (via __get__) a method."""

    def __init__(self, fn, backend: str | None = None, name: str | None = None):
        self.fn = fn
        self.backend = backend
        self.name = name or getattr(fn, "__name__", type(fn).__name__)
        self.cache = TraceCache()
        self._bound: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        functools.update_wrapper(self, fn, updated=()) if callable(fn) and hasattr(fn, "__name__") else None

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        bound = self._bound.get(instance)
        if bound is None:
            bound = Jit(self.fn.__get__(instance, owner), self.backend, self.name)
            self._bound[instance] = bound
        return bound

    def signature_key(self, args, kwargs):
        from ..ops.tensor_hooks import arg_hooks_key
        leaves, structure = pytree.flatten((args, kwargs))
        # (a mutable number traces as a number in the graph, a Tensor as a Tensor)
        types = tuple((t.shape, t.dtype, type(t) is GraphScalar) for t in leaves)
        return (pytree.structure_key(structure), types, alias_pattern(leaves), arg_hooks_key(leaves),
                config_epoch(), self._backend()), leaves

    def _backend(self) -> str:
        if self.backend is not None:
            return self.backend
        from ..context import get_context
        return get_context("backend")

    def get_traced(self, *args, **kwargs) -> tuple[Traced, list[Tensor]]:
        key, leaves = self.signature_key(args, kwargs)
        traced = self.cache.get(key)
        if traced is None:
            for t in leaves:   # a new signature: is any argument a set_inputs-style placeholder?
                if isinstance(t._payload, SignatureOnly):
                    t._payload.__array__()   # its error: it holds no values to run on
            from ..context import lowering_for
            # onnxruntime: a vmapped ensemble picks its form by the call's batch ("onnx-auto",
            # resolved in api/vmap.py), as an export's batch-dispatch If would.
            with lowering_for("onnx-auto" if key[-1] == "onnx" else key[-1]):
                traced = trace(self.fn, *args, name=self.name, shares_aliases=True, arrays_out=True, **kwargs)
            traced.cache["backend"] = key[-1]
            self.cache[key] = traced
        return traced, leaves

    def __call__(self, *args, **kwargs):
        if current_tracer() is not None:  # jit inside a trace is the trace itself
            from ..frontend.ast_transform import converted
            from ..frontend.concrete import compiled_region
            with compiled_region():
                return converted(self.fn)(*args, **kwargs)
        placed, placed_kwargs = place_batch(args, kwargs)  # DATA_PARALLEL: the batch over the data mesh
        traced, leaves = self.get_traced(*placed, **placed_kwargs)
        out = inline(traced, leaves)
        if traced.arg_writes and placed is not args:  # the caller's Tensors, not the placed copies
            callers = pytree.flatten((args, kwargs))[0]
            for i in traced.arg_writes:
                callers[i]._payload = leaves[i]._payload
        return out

    @property
    def cache_size(self) -> int:
        return len(self.cache)


def jit(function=None, *, backend: str | None = None, mode=None, jit_config=None, **unused):
    """Compiles a function, a Cell, or a method (`@jit def step(self, ...)`).

    `backend` is "xla" (jax.jit) or "onnx" (onnxruntime); by default the context's.
    """
    if function is None:
        return lambda f: jit(f, backend=backend)
    return Jit(function, backend)

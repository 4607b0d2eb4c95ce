"""Shared helpers for the benchmark scripts: medians of repeated runs, ratio tables, and
the machine's float32 matmul rate as the physical reference."""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


# onnxruntime's and torch's worker threads spin-wait for a while after each call, which on 2
# cores starves whatever runs next. Contenders from those runtimes are timed in bursts of BURST
# calls, the first of each dropped (see medians_ms), with every runtime at its default settings.
BURST = 5


def ort_session_options():
    """onnxruntime SessionOptions for benchmarking: full graph optimisation, defaults otherwise."""
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return options


def block(x):
    """Waits for asynchronous results (jax arrays, graphcell Tensors, tuples of them)."""
    if isinstance(x, (tuple, list)):
        for v in x:
            block(v)
        return x
    payload = getattr(x, "_payload", x)
    if hasattr(payload, "block_until_ready"):
        payload.block_until_ready()
    return x


def median_ms(fn, *, warmup: int = 3, min_runs: int = 10, min_seconds: float = 0.5, max_runs: int = 500) -> float:
    """Median wall time of fn() in milliseconds, after warm-up runs."""
    for _ in range(warmup):
        block(fn())
    times = []
    start = time.perf_counter()
    while len(times) < min_runs or (time.perf_counter() - start < min_seconds and len(times) < max_runs):
        t0 = time.perf_counter()
        block(fn())
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def medians_ms(fns: dict, budget_s: float = 3.0, min_rounds: int = 5, max_rounds: int = 200,
               burst: int = 1) -> dict:
    """Median ms of each `fn()`, timed round-robin so that load from other processes on this
    shared machine falls on every contender alike. Each fn is called once first (compile, warm up).

    burst > 1: each turn calls a contender `burst` times in a row and keeps all but the first
    call, for runtimes whose idle threads keep spinning for a while after a call (onnxruntime):
    the first call after a switch pays for the previous contender's spinning threads."""
    for fn in fns.values():
        block(fn())
    times = {k: [] for k in fns}
    start = time.perf_counter()
    rounds = 0
    while rounds < min_rounds or (time.perf_counter() - start < budget_s and rounds < max_rounds):
        for k, fn in fns.items():
            for i in range(burst):
                t0 = time.perf_counter()
                block(fn())
                if i > 0 or burst == 1:
                    times[k].append(time.perf_counter() - t0)
        rounds += 1
    return {k: 1e3 * statistics.median(v) for k, v in times.items()}


def numpy_params(net) -> dict:
    """A Cell's parameters as numpy arrays, keyed by their name inside the Cell (a CellList's
    index prefix `3.` dropped), e.g. {"fc1.weight": ...}: what the plain jax/torch peers read."""
    from graphcell.frontend.ensemble import postfix_name
    return {postfix_name(p.name): p.asnumpy() for p in net.get_parameters()}


def matmul_gflops(n: int = 1024) -> float:
    """float32 matmul rate of this machine through jax (XLA's CPU GEMM), GFLOP/s."""
    import jax
    import jax.numpy as jnp
    a = jnp.asarray(np.random.default_rng(0).normal(size=(n, n)).astype(np.float32))
    f = jax.jit(lambda x: x @ x)
    ms = median_ms(lambda: f(a), min_runs=10)
    return 2 * n ** 3 / (ms * 1e-3) / 1e9


def table(rows: list[dict], columns: list[str]) -> str:
    """A plain-text table (also valid Markdown)."""
    widths = {c: max(len(c), *(len(_fmt(r.get(c))) for r in rows)) for c in columns}
    head = "| " + " | ".join(c.ljust(widths[c]) for c in columns) + " |"
    rule = "|" + "|".join("-" * (widths[c] + 2) for c in columns) + "|"
    body = ["| " + " | ".join(_fmt(r.get(c)).ljust(widths[c]) for c in columns) + " |" for r in rows]
    return "\n".join([head, rule, *body])


def _fmt(v) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.3f}" if v < 10 else f"{v:.1f}"
    return str(v)


def jax_lenet(p, x):
    """LeNet5 in plain jax, parameters keyed by MindSpore's names: the peer every bench uses."""
    import jax
    import jax.numpy as jnp

    def conv(x, w):
        return jax.lax.conv_general_dilated(x, w, (1, 1), "VALID")

    def pool(x):
        return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")

    x = pool(jax.nn.relu(conv(x, p["conv1.weight"])))
    x = pool(jax.nn.relu(conv(x, p["conv2.weight"])))
    x = x.reshape(x.shape[0], -1)
    x = jax.nn.relu(x @ p["fc1.weight"].T + p["fc1.bias"])
    x = jax.nn.relu(x @ p["fc2.weight"].T + p["fc2.bias"])
    return x @ p["fc3.weight"].T + p["fc3.bias"]

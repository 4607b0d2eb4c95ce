"""Overheads outside the compiled kernels: eager per-op dispatch, tracing and passes, XLA
compilation, ONNX export.

    python bench/bench_overhead.py             # every table
    python bench/bench_overhead.py --quick     # fewer repetitions
    python bench/bench_overhead.py --profile   # cProfile's top graphcell functions instead

Tables:
  eager      microseconds per op in PYNATIVE mode on tiny float32 tensors ([8,8]; Dense(8, 8) on
             [4,8]): graphcell Tensor ops vs the same op on jax arrays (jax's own eager dispatch)
             vs torch eager (inference_mode). Goal (issue 9): graphcell <= 2x jax.
  compile    the N=16 LeNet5 ensemble `vmap(nn.CellList(nets), in_axes=None)`, batch 32:
             trace     a fresh vmap traced with graphcell.trace (member traces, architecture check,
                       vmap pass, inlining)
             passes    the "xla" pass pipeline on that graph (the optimized graph, before XLA)
             xla       jax.jit(graph_to_jax(graph)).lower(...).compile()
             first     the first eager call of a fresh vmap, end to end
             jax.vmap  jax.jit(jax.vmap(lenet)).lower(...).compile() in plain jax, for reference
             Goal (issue 9): trace + passes < 100 ms.
  export     graphcell.export of the N=16 ensemble + graphcell.runtime.Session ready, vs
             torch.onnx.export (dynamo=False) of the unrolled ensemble + InferenceSession
             (bench_onnx.torch_file). Goal (issue 9): ratio < 1.
Times are medians of repeated runs; the machine is shared, read the ratios.
"""
from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from bench.common import block, jax_lenet, medians_ms, numpy_params, table  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

import graphcell as ms  # noqa: E402
from graphcell import nn  # noqa: E402
from graphcell.compiler.to_jax import graph_to_jax  # noqa: E402
from graphcell.passes.manager import run_pipeline  # noqa: E402
from graphcell.runtime import Session  # noqa: E402

OPS_PER_SAMPLE = 200  # ops per timed sample, so that the timer's own cost vanishes
N_MEMBERS, BATCH = 16, 32


# -- eager dispatch ----------------------------------------------------------------------------------
def eager_ops():
    """{op: {runtime: fn running OPS_PER_SAMPLE ops}} on the same values in every runtime."""
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal((8, 8)).astype(np.float32) for _ in range(2))
    x = rng.standard_normal((4, 8)).astype(np.float32)
    dense = nn.Dense(8, 8)
    w, bias = dense.weight.asnumpy().copy(), dense.bias.asnumpy().copy()
    ga, gb, gx = ms.Tensor(a), ms.Tensor(b), ms.Tensor(x)
    ja, jb, jx, jw, jbias = (jnp.asarray(v) for v in (a, b, x, w, bias))
    linear = torch.nn.Linear(8, 8)
    with torch.no_grad():
        linear.weight.copy_(torch.from_numpy(w))
        linear.bias.copy_(torch.from_numpy(bias))
    ta, tb, tx = (torch.from_numpy(v) for v in (a, b, x))

    def repeat(op):
        def run():
            for _ in range(OPS_PER_SAMPLE - 1):
                op()
            return op()  # blocked on by medians_ms (jax dispatches asynchronously)
        return run

    def torch_repeat(op):
        run = repeat(op)

        def in_inference_mode():
            with torch.inference_mode():
                return run()
        return in_inference_mode

    ops = {
        "add [8,8]": (lambda: ga + gb, lambda: ja + jb, lambda: ta + tb),
        "matmul [8,8]": (lambda: ga @ gb, lambda: ja @ jb, lambda: ta @ tb),
        "Dense(8,8) [4,8]": (lambda: dense(gx), lambda: jx @ jw.T + jbias, lambda: linear(tx)),
    }
    for name, (g, j, t) in ops.items():
        np.testing.assert_allclose(g().asnumpy(), np.asarray(j()), rtol=1e-5, atol=1e-6, err_msg=name)
        with torch.inference_mode():
            np.testing.assert_allclose(t().numpy(), np.asarray(j()), rtol=1e-5, atol=1e-6, err_msg=name)
    return {name: {"graphcell": repeat(g), "jax": repeat(j), "torch": torch_repeat(t)}
            for name, (g, j, t) in ops.items()}


def eager_table(budget_s: float) -> list[dict]:
    rows = []
    for name, fns in eager_ops().items():
        us = {k: v * 1e3 / OPS_PER_SAMPLE for k, v in medians_ms(fns, budget_s=budget_s).items()}
        rows.append({"op": name, "graphcell us": us["graphcell"], "jax us": us["jax"], "torch us": us["torch"],
                     "graphcell/jax": us["graphcell"] / us["jax"]})
    return rows


# -- trace, passes, XLA compile ------------------------------------------------------------------------
def lenet_ensemble():
    from tests.models.lenet import LeNet5
    ms.set_seed(0)
    nets = [LeNet5() for _ in range(N_MEMBERS)]
    x = np.random.default_rng(0).standard_normal((BATCH, 1, 32, 32)).astype(np.float32)
    return nets, x


def trace_and_passes(nets, x):
    """One fresh vmap traced and optimized; returns (traced, optimized graph, trace s, passes s)."""
    t0 = time.perf_counter()
    traced = ms.trace(ms.vmap(nn.CellList(nets), in_axes=None), ms.Tensor(x))
    t1 = time.perf_counter()
    graph = run_pipeline(traced.graph, "xla").graph
    return traced, graph, t1 - t0, time.perf_counter() - t1


def xla_compile_s(traced, graph, x) -> float:
    arrays = [t._payload for t in traced.input_tensors([ms.Tensor(x)])]
    t0 = time.perf_counter()
    jax.jit(graph_to_jax(graph)).lower(*arrays).compile()
    return time.perf_counter() - t0


def first_call_s(nets, x) -> float:
    ensemble, xt = ms.vmap(nn.CellList(nets), in_axes=None), ms.Tensor(x)
    t0 = time.perf_counter()
    block(ensemble(xt))
    return time.perf_counter() - t0


def jax_compile_s(nets, x) -> float:
    params = [numpy_params(net) for net in nets]
    stacked = {k: jnp.stack([p[k] for p in params]) for k in params[0]}
    t0 = time.perf_counter()
    jax.jit(jax.vmap(jax_lenet, in_axes=(0, None))).lower(stacked, jnp.asarray(x)).compile()
    return time.perf_counter() - t0


def compile_table(repeats: int) -> list[dict]:
    nets, x = lenet_ensemble()
    samples = {"trace": [], "passes": [], "trace + passes": [], "xla compile": [], "first call (all)": [],
               "jax.vmap lower+compile": []}
    for _ in range(repeats):
        traced, graph, t_trace, t_passes = trace_and_passes(nets, x)
        samples["trace"].append(t_trace)
        samples["passes"].append(t_passes)
        samples["trace + passes"].append(t_trace + t_passes)
        samples["xla compile"].append(xla_compile_s(traced, graph, x))
        samples["first call (all)"].append(first_call_s(nets, x))
        samples["jax.vmap lower+compile"].append(jax_compile_s(nets, x))
    nodes = f"{len(traced.graph.nodes)} -> {len(graph.nodes)} nodes"
    return [{"step (N=16 LeNet5, batch 32)": k, "ms": 1e3 * statistics.median(v),
             "note": nodes if k == "passes" else ("goal < 100 ms" if k == "trace + passes" else "")}
            for k, v in samples.items()]


# -- ONNX export ----------------------------------------------------------------------------------
def export_table(repeats: int) -> list[dict]:
    from bench.bench_onnx import torch_file
    nets, x = lenet_ensemble()
    example = ms.Tensor(x[:3])
    tmp = tempfile.mkdtemp()
    ours, theirs = [], []
    for k in range(repeats):
        path = os.path.join(tmp, f"gc{k}.onnx")
        t0 = time.perf_counter()
        ms.export(ms.vmap(nn.CellList(nets), in_axes=None), example, file_name=path, input_names=["x"])
        sess = Session(path, providers=["cpu"])
        ours.append(time.perf_counter() - t0)
        torch_sess, torch_s = torch_file(nets, os.path.join(tmp, f"torch{k}.onnx"))
        theirs.append(torch_s)
    got = sess(x)
    want = torch_sess.run(None, {"x": x})[0]
    np.testing.assert_allclose(got.reshape(want.shape), want, rtol=1e-3, atol=1e-4)
    # The first export also pays for imports (onnx, torch.onnx) and cold caches: shown apart.
    rows = [("first export", ours[0], theirs[0]),
            (f"median of {repeats - 1} more", statistics.median(ours[1:]), statistics.median(theirs[1:]))]
    return [{"N=16 LeNet5: export + session ready": what, "graphcell ms": 1e3 * mine,
             "torch.onnx ms": 1e3 * peer, "ratio": mine / peer} for what, mine, peer in rows]


# -- profiles ---------------------------------------------------------------------------------------
def top_functions(profile: cProfile.Profile, count: int = 10, key: str = "cumulative ms",
                  graphcell_only: bool = True) -> list[dict]:
    """The `count` functions with the most `key` time ("cumulative ms" or "own ms"), graphcell's
    only (where to optimise) or every library's (where the time finally goes)."""
    stats = pstats.Stats(profile).stats
    package = os.sep + "graphcell" + os.sep
    rows = [{"function": f"{_short(file)}:{line}({name})", "cumulative ms": 1e3 * cum, "own ms": 1e3 * own,
             "calls": calls}
            for (file, line, name), (_, calls, own, cum, _) in stats.items()
            if package in file or not graphcell_only]
    return sorted(rows, key=lambda r: -r[key])[:count]


def _short(file: str) -> str:
    for marker in ("site-packages" + os.sep, os.sep + "graphcell" + os.sep):
        if marker in file:
            return file[file.index(marker) + len(marker) - (0 if marker.startswith("site") else len("graphcell/")):]
    return file


def print_profile(title: str, profile: cProfile.Profile) -> None:
    columns = ["function", "cumulative ms", "own ms", "calls"]
    print(f"{title}: graphcell functions by cumulative time")
    print(table(top_functions(profile), columns))
    print(f"\n{title}: every function by own time")
    print(table(top_functions(profile, key="own ms", graphcell_only=False), columns))
    print()


def profile_tables():
    ops = eager_ops()
    for fns in ops.values():  # warm up: compile every eager op once
        block(fns["graphcell"]())
    profile = cProfile.Profile()
    profile.enable()
    for fns in ops.values():
        for _ in range(10):
            block(fns["graphcell"]())
    profile.disable()
    print_profile(f"eager path (10 x {OPS_PER_SAMPLE} calls of each graphcell op)", profile)
    nets, x = lenet_ensemble()
    trace_and_passes(nets, x)  # warm up imports and caches outside graphcell's own work
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(3):
        trace_and_passes(nets, x)
    profile.disable()
    print_profile(f"trace + passes (3 x the N={N_MEMBERS} LeNet5 ensemble)", profile)


def main():
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--profile", action="store_true", help="cProfile's hot spots instead of the tables")
    args = parser.parse_args()
    if args.profile:
        profile_tables()
        return
    repeats = 3 if args.quick else 7
    print(f"jax {jax.__version__}, torch {torch.__version__} ({torch.get_num_threads()} threads); "
          f"{os.cpu_count()} cores; PYNATIVE eager, median per op")
    rows = eager_table(budget_s=1.0 if args.quick else 3.0)
    print(table(rows, list(rows[0])))
    print()
    rows = compile_table(repeats)
    print(table(rows, list(rows[0])))
    print()
    rows = export_table(3 if args.quick else 6)
    print(table(rows, list(rows[0])))


if __name__ == "__main__":
    main()

"""Ensemble inference of N LeNet5 models on one shared minibatch: graphcell vs plain-jax peers.

    python bench/bench_vmap.py            # the table: N in 4,16,64 x batch 1,32,256
    python bench/bench_vmap.py --conv     # the conv-strategy measurements behind nn_prims' table
    python bench/bench_vmap.py --quick    # N in 4,16 x batch 1,32 only
    python bench/bench_vmap.py --tiles    # the row-tile measurements behind passes/tile_rows.py

Peers, written in plain jax below:
  unrolled  jax.jit of one function that runs the N models one after another
  loop      a jitted single model called in a Python loop, outputs stacked
  jax.vmap  jax.jit(jax.vmap(model, in_axes=(0, None))) over stacked parameters
graphcell runs `vmap(nn.CellList(nets), in_axes=None)(x)` eagerly (compiled once, cached).
Times are medians in ms; ratio = graphcell / fastest peer (goal: <= 1.0). Peak memory compares
XLA's compiled memory_analysis() (temp + output buffers) of graphcell's program with the
unrolled peer's at N=64, batch 256.
"""
from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

from bench.common import jax_lenet as lenet, medians_ms  # noqa: E402
import graphcell as ms  # noqa: E402
from graphcell import nn  # noqa: E402
from graphcell.compiler.jit import compiled_fn  # noqa: E402

NAMES = ["conv1.weight", "conv2.weight", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias",
         "fc3.weight", "fc3.bias"]


# -- the peers, in plain jax --------------------------------------------------------------------
def peers(params: list[dict]):
    single = jax.jit(lenet)
    unrolled = jax.jit(lambda ps, x: jnp.stack([lenet(p, x) for p in ps]))
    stacked = {k: jnp.stack([p[k] for p in params]) for k in NAMES}
    vmapped = jax.jit(jax.vmap(lenet, in_axes=(0, None)))
    return {
        "unrolled": (lambda x: unrolled(params, x), unrolled, (params,)),
        "loop": (lambda x: jnp.stack([single(p, x) for p in params]), None, None),
        "jax.vmap": (lambda x: vmapped(stacked, x), vmapped, (stacked,)),
    }


def make_nets(n: int):
    from tests.models.lenet import LeNet5
    ms.set_seed(0)
    nets = [LeNet5() for _ in range(n)]
    params = [{k: p._payload for k, p in zip(NAMES, net.get_parameters())} for net in nets]
    return nets, params


def temp_bytes(jitted, args) -> int:
    analysis = jitted.lower(*args).compile().memory_analysis()
    return analysis.temp_size_in_bytes + analysis.output_size_in_bytes


def table(ns, batches):
    rows = []
    print(f"{'N':>3} {'batch':>5} | {'graphcell':>9} {'unrolled':>9} {'loop':>9} {'jax.vmap':>9} | "
          f"{'ratio':>5}  strategy")
    for n in ns:
        nets, params = make_nets(n)
        ensemble = ms.vmap(nn.CellList(nets), in_axes=None)
        the_peers = peers(params)
        for b in batches:
            x_np = np.random.default_rng(b).standard_normal((b, 1, 32, 32)).astype(np.float32)
            x = jnp.asarray(x_np)
            xt = ms.Tensor(x_np)
            fns = {"graphcell": lambda: ensemble(xt)}
            fns.update({k: (lambda f=f: f(x)) for k, (f, _, _) in the_peers.items()})
            theirs = medians_ms(fns)
            ours = theirs.pop("graphcell")
            np.testing.assert_allclose(np.asarray(ensemble(xt).asnumpy()),
                                       np.asarray(the_peers["unrolled"][0](x)), atol=1e-4, rtol=1e-4)
            ratio = ours / min(theirs.values())
            traced = list(ensemble.cache.values())[-1]
            strategies = sorted({n_.source.scope.split("[")[-1].rstrip("]") for n_ in traced.graph.nodes
                                 if "conv_strategy" in n_.source.scope})
            print(f"{n:>3} {b:>5} | {ours:9.3f} {theirs['unrolled']:9.3f} {theirs['loop']:9.3f} "
                  f"{theirs['jax.vmap']:9.3f} | {ratio:5.2f}  {' '.join(strategies)}", flush=True)
            rows.append((n, b, ours, theirs, ratio))
            if n == 64 and b == 256:
                _, unrolled_jit, unrolled_args = the_peers["unrolled"]
                ours_mem = temp_bytes(compiled_fn(traced), [xt._payload] + [p._payload for p in traced.params])
                theirs_mem = temp_bytes(unrolled_jit, unrolled_args + (x,))
                print(f"peak memory N=64 batch=256 (temp+output): graphcell {ours_mem / 2**20:.1f} MiB, "
                      f"unrolled {theirs_mem / 2**20:.1f} MiB, ratio {ours_mem / theirs_mem:.2f}", flush=True)
    return rows


def conv_strategies(ns=(4, 16, 64), batches=(1, 2, 4, 8, 16, 32, 64)):
    """conv2 of LeNet5 ([B,6,14,14] x [16,6,5,5]) with a per-member input, per strategy."""
    from graphcell import ops
    print(f"{'N':>3} {'batch':>5} | {'grouped':>9} {'unrolled':>9}")
    for n in ns:
        w = ms.Tensor(np.random.default_rng(0).standard_normal((n, 16, 6, 5, 5)).astype(np.float32))
        for b in batches:
            x = ms.Tensor(np.random.default_rng(1).standard_normal((n, b, 6, 14, 14)).astype(np.float32))
            fs = {s: ms.vmap(lambda x, w: ops.conv2d(x, w), in_axes=(0, 0), conv_strategy=s)
                  for s in ("grouped", "unrolled")}
            res = medians_ms({s: (lambda f=f: f(x, w)) for s, f in fs.items()}, budget_s=1.0)
            print(f"{n:>3} {b:>5} | {res['grouped']:9.3f} {res['unrolled']:9.3f}", flush=True)


def row_tiles(points=((1, 256), (1, 1024), (4, 64), (4, 128), (4, 256), (16, 32), (16, 64),
                      (16, 256), (64, 32), (64, 256)), tiles=(0, 8, 16, 32, 64, 128)):
    """N-member ensembles (N=1: one LeNet5 under jit) at a batch, untiled (0) and in tiles of
    each size (set_context(row_tile=k)), plus the tile graphcell chooses by itself."""
    from graphcell.passes.tile_rows import choose_tile
    print("N batch | ms per tile size (0: untiled)                      | auto")
    for n, b in points:
        nets, _ = make_nets(n)
        x = ms.Tensor(np.random.default_rng(b).standard_normal((b, 1, 32, 32)).astype(np.float32))
        fns, chosen = {}, None
        for k in [t for t in tiles if t < b]:
            ms.set_context(row_tile=k)
            f = ms.jit(nets[0]) if n == 1 else ms.vmap(nn.CellList(nets), in_axes=None)
            f(x)  # traced and compiled under this setting; later calls would trace again
            traced = list(f.cache.values())[-1]
            program, arrays = compiled_fn(traced), [t._payload for t in traced.input_tensors([x])]
            fns[k] = (lambda program=program, arrays=arrays: program(*arrays))
        ms.set_context(row_tile=None)
        member_row_bytes = 6 * 28 * 28 * 4  # LeNet5's largest intermediate, conv1's output
        chosen = choose_tile(member_row_bytes * n, b)
        res = medians_ms(fns, budget_s=4.0)
        cells = " ".join(f"{k}:{v:.1f}" for k, v in res.items())
        print(f"{n:>2} {b:>5} | {cells:50s} | {chosen or 0}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--conv", action="store_true", help="the conv-strategy measurements behind nn_prims' table")
    parser.add_argument("--tiles", action="store_true", help="every row-tile size at several N and batches "
                        "(the measurements behind passes/tile_rows.py)")
    parser.add_argument("--quick", action="store_true", help="N in 4,16 x batch 1,32 only")
    args = parser.parse_args()
    if args.conv:
        conv_strategies()
    elif args.tiles:
        row_tiles()
    elif args.quick:
        table((4, 16), (1, 32))
    else:
        table((4, 16, 64), (1, 32, 256))


if __name__ == "__main__":
    main()

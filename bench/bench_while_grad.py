"""Reverse mode through a tensor `while` whose trip count is not known at trace time: the
gradient of an elementwise body on 64 float32s, run n = 10 ... 10000 times, under `jit` (XLA).

    .venv/bin/python bench/bench_while_grad.py             # n = 10, 100, 1000, 10000
    .venv/bin/python bench/bench_while_grad.py --quick     # n = 10, 100, 1000

Rows: graphcell's gradient (the loop's vjp is `ops/while_recompute_vjp.py`: checkpoints, about
3n body runs), and jax's gradient of a `lax.fori_loop` with the trip count given as a Python
int (a scan that stores every carry: what knowing n at trace time buys). The loop's bound is
a Tensor, so graphcell cannot see the trip count.
"""
from __future__ import annotations

import argparse

import jax
import jax.numpy as jnp
import numpy as np
from common import medians_ms

import graphcell as ms
from graphcell import Tensor, ops


def loss(x, n):
    i = Tensor(0, ms.int32)
    while i < n:
        x = ops.sin(x) * 0.5 + x * 0.5
        i = i + 1
    return (x * x).sum()


def jax_loss(x, n):
    return (jax.lax.fori_loop(0, n, lambda i, v: jnp.sin(v) * 0.5 + v * 0.5, x) ** 2).sum()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--sizes", type=int, nargs="*", help="trip counts (default 10 100 1000 10000)")
    parser.add_argument("--rounds", type=int, default=5, help="timed calls at least, per contender")
    args = parser.parse_args()
    sizes = args.sizes or ([10, 100, 1000] if args.quick else [10, 100, 1000, 10000])
    x = np.linspace(-1, 1, 64).astype(np.float32)
    grad = ms.jit(ops.grad(loss))
    print(f"{'n':>6} {'graphcell ms':>13} {'jax fori_loop ms':>17} {'ratio':>6}")
    for n in sizes:
        jax_grad = jax.jit(jax.grad(lambda x, n=n: jax_loss(x, n)))
        np.testing.assert_allclose(grad(Tensor(x), Tensor(np.int32(n))).asnumpy(), jax_grad(x), rtol=1e-4, atol=1e-6)
        t = medians_ms({"gc": lambda: grad(Tensor(x), Tensor(np.int32(n))), "jax": lambda: jax_grad(x)},
                       budget_s=2.0, min_rounds=args.rounds)
        print(f"{n:>6} {t['gc']:>13.3f} {t['jax']:>17.3f} {t['gc'] / t['jax']:>6.2f}", flush=True)


if __name__ == "__main__":
    main()

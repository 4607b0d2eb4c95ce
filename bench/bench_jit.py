"""LeNet5 forward latency: graphcell's jit vs a hand-written jax.jit LeNet5.

The compiled graph should be the same XLA program, so the ratio measures graphcell's
per-call overhead (argument handling, cache lookup, parameter reads).
Goal (issue 2): ratio <= 1.1 at batch 1 and <= 1.02 at batch 256.

    python bench/bench_jit.py
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from common import jax_lenet, median_ms, table

import graphcell as ms
from tests.models.lenet import LeNet5


def main():
    net = LeNet5()
    params = {p.name: jnp.asarray(p.asnumpy()) for p in net.get_parameters()}
    ref = jax.jit(jax_lenet)
    compiled = ms.jit(net)
    rows = []
    for batch in (1, 32, 256):
        x = np.random.default_rng(0).normal(size=(batch, 1, 32, 32)).astype(np.float32)
        tx, jx = ms.Tensor(x), jnp.asarray(x)
        np.testing.assert_allclose(compiled(tx).asnumpy(), np.asarray(ref(params, jx)), atol=1e-4)
        t_jax = median_ms(lambda: ref(params, jx), min_seconds=1.0)
        t_gc = median_ms(lambda: compiled(tx), min_seconds=1.0)
        rows.append({"batch": batch, "jax.jit ms": t_jax, "graphcell jit ms": t_gc, "ratio": t_gc / t_jax})
    print(table(rows, ["batch", "jax.jit ms", "graphcell jit ms", "ratio"]))


if __name__ == "__main__":
    main()

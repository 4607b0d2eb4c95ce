"""LeNet5 forward latency: graphcell's jit vs a hand-written jax.jit LeNet5, and
jit(backend="onnx") vs an onnxruntime InferenceSession over the exported file.

The compiled graph should be the same XLA program, so the ratio measures graphcell's
per-call overhead (argument handling, cache lookup, parameter reads).
Goal (issue 2): ratio <= 1.1 at batch 1 and <= 1.02 at batch 256.
"onnx ratio" is the same for the onnxruntime backend: jit(backend="onnx") against
`InferenceSession.run` on `graphcell.export`'s file (the model plus nothing).

    python bench/bench_jit.py
"""
from __future__ import annotations

import argparse
import os
import tempfile

import jax
import jax.numpy as jnp
import numpy as np
import onnxruntime as ort

from common import jax_lenet, median_ms, ort_session_options, table

import graphcell as ms
from tests.models.lenet import LeNet5


def main():
    net = LeNet5()
    params = {p.name: jnp.asarray(p.asnumpy()) for p in net.get_parameters()}
    ref = jax.jit(jax_lenet)
    compiled = ms.jit(net)
    on_ort = ms.jit(net, backend="onnx")
    path = ms.export(net, ms.Tensor(np.zeros((2, 1, 32, 32), np.float32)),
                     file_name=os.path.join(tempfile.mkdtemp(), "lenet"))
    session = ort.InferenceSession(path, ort_session_options(), providers=["CPUExecutionProvider"])
    feed_name = session.get_inputs()[0].name
    rows = []
    for batch in (1, 32, 256):
        x = np.random.default_rng(0).normal(size=(batch, 1, 32, 32)).astype(np.float32)
        tx, jx = ms.Tensor(x), jnp.asarray(x)
        np.testing.assert_allclose(compiled(tx).asnumpy(), np.asarray(ref(params, jx)), atol=1e-4)
        t_jax = median_ms(lambda: ref(params, jx), min_seconds=1.0)
        t_gc = median_ms(lambda: compiled(tx), min_seconds=1.0)
        np.testing.assert_allclose(on_ort(tx).asnumpy(), compiled(tx).asnumpy(), atol=1e-4)
        t_ort = median_ms(lambda: session.run(None, {feed_name: x}), min_seconds=1.0)
        t_gc_ort = median_ms(lambda: on_ort(tx), min_seconds=1.0)
        rows.append({"batch": batch, "jax.jit ms": t_jax, "graphcell jit ms": t_gc, "ratio": t_gc / t_jax,
                     "onnxruntime ms": t_ort, "jit onnx ms": t_gc_ort, "onnx ratio": t_gc_ort / t_ort})
    print(table(rows, ["batch", "jax.jit ms", "graphcell jit ms", "ratio", "onnxruntime ms", "jit onnx ms",
                       "onnx ratio"]))


if __name__ == "__main__":
    # No options; argparse gives `--help` (the docstring) and refuses unknown arguments.
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    main()

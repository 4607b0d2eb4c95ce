"""Soak (slow, `make test-slow`): 10,000 ensemble inferences through one onnxruntime Session and
through jit. RSS (from /proc/self/statm) after warm-up and at the end stays within a small bound, and
jit never retraces (its cache holds one entry)."""
import os

import numpy as np
import pytest

import graphcell as ms
from graphcell import nn
from graphcell.runtime import Session

N = 10_000
BOUND_MIB = 64


def rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


class Ensemble(nn.Cell):
    """Four Dense members applied to the same batch, stacked: [members, batch, out]."""

    def __init__(self):
        super().__init__()
        self.members = nn.CellList([nn.Dense(8, 3) for _ in range(4)])

    def construct(self, x):
        return ms.ops.stack([m(x) for m in self.members])


def _soak(call, x):
    for _ in range(200):                               # warm-up: allocator pools, caches
        call(x)
    start = rss_mib()
    for _ in range(N):
        out = call(x)
    return start, rss_mib(), out


@pytest.mark.slow
def test_soak_onnx_session_and_jit(tmp_path):
    net = Ensemble()
    x = np.random.default_rng(0).standard_normal((5, 8)).astype(np.float32)
    expected = net(ms.Tensor(x)).asnumpy()

    path = ms.export(net, ms.Tensor(x), file_name=str(tmp_path / "ens.onnx"))
    sess = Session(path, providers=["cpu"])
    start, end, out = _soak(sess, x)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)
    assert end - start < BOUND_MIB, f"onnxruntime: RSS grew {start:.0f} -> {end:.0f} MiB"

    fn = ms.jit(net)
    xt = ms.Tensor(x)
    start, end, out = _soak(fn, xt)
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-5, atol=1e-6)
    assert len(fn.cache) == 1, "jit retraced"
    assert end - start < BOUND_MIB, f"jit: RSS grew {start:.0f} -> {end:.0f} MiB"

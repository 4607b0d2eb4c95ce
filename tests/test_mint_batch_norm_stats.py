"""mint.batch_norm_stats / batch_norm_elemt / batch_norm_gather_stats_with_counts against numpy
(MindSpore 2.10's CPU build and torch's CPU build have no kernels for them)."""
import numpy as np
import pytest

from graphcell import Tensor, mint


def test_stats_gather_and_elemt_match_whole_batch_statistics():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(5, 3, 4)).astype(np.float32) * np.array([1.0, 2.0, 0.5], np.float32)[:, None] + 1.0
    shards = [x[:3], x[3:]]   # shards of unequal size: the merge must weight by counts
    stats = [mint.batch_norm_stats(Tensor(s), 1e-5) for s in shards]
    for (m, inv), s in zip(stats, shards):
        np.testing.assert_allclose(m.asnumpy(), s.mean((0, 2)), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(inv.asnumpy(), 1 / np.sqrt(s.var((0, 2)) + 1e-5), rtol=1e-5)
    means = Tensor(np.stack([m.asnumpy() for m, _ in stats]))
    invstds = Tensor(np.stack([i.asnumpy() for _, i in stats]))
    counts = Tensor(np.array([3 * 4, 2 * 4], np.float32))
    running_mean, running_var = Tensor(np.zeros(3, np.float32)), Tensor(np.ones(3, np.float32))
    mean, invstd = mint.batch_norm_gather_stats_with_counts(Tensor(x), means, invstds, running_mean, running_var,
                                                            0.1, 1e-5, counts)
    np.testing.assert_allclose(mean.asnumpy(), x.mean((0, 2)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(invstd.asnumpy(), 1 / np.sqrt(x.var((0, 2)) + 1e-5), rtol=1e-4)
    # written in place, with the unbiased variance (torch's rule)
    np.testing.assert_allclose(running_mean.asnumpy(), 0.1 * x.mean((0, 2)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(running_var.asnumpy(), 0.9 + 0.1 * x.transpose(1, 0, 2).reshape(3, -1).var(1, ddof=1),
                               rtol=1e-4)
    w, b = np.array([2.0, -1.0, 0.5], np.float32), np.array([0.1, 0.2, 0.3], np.float32)
    y = mint.batch_norm_elemt(Tensor(x), Tensor(w), Tensor(b), mean, invstd, 1e-5).asnumpy()
    ref = (x - x.mean((0, 2), keepdims=True)) / np.sqrt(x.var((0, 2), keepdims=True) + 1e-5)
    np.testing.assert_allclose(y, ref * w[:, None] + b[:, None], rtol=1e-4, atol=1e-5)
    y0 = mint.batch_norm_elemt(Tensor(x), None, None, mean, invstd, 1e-5).asnumpy()
    np.testing.assert_allclose(y0, ref, rtol=1e-4, atol=1e-5)


def test_bad_inputs_are_named():
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        mint.batch_norm_stats(Tensor(np.ones(3, np.float32)), 1e-5)
    with pytest.raises(TypeError, match="float Tensor"):
        mint.batch_norm_stats(Tensor(np.ones((2, 3), np.int32)), 1e-5)
    m = Tensor(np.zeros((2, 3), np.float32))
    with pytest.raises(TypeError, match="counts"):
        mint.batch_norm_gather_stats_with_counts(Tensor(np.ones((2, 3), np.float32)), m, m)

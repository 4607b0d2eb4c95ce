"""bernoulli, laplace, standard_laplace, random_categorical, multinomial, randperm, shuffle,
gamma, random_gamma, poisson and random_poisson (ops/random_draws.py). graphcell's streams are
not MindSpore's, so the draws are checked as distributions (moments, support, Kolmogorov-Smirnov
and chi-square statistics with fixed seeds and generous bounds), with 2.10's shapes and dtypes
(measured), and for graphcell's seed rules eagerly, under jit, vmap and in onnxruntime."""
import math

import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, ops

F32 = np.float32


def t(*values, dtype=F32):
    return Tensor(np.array(values, dtype))


def ks_statistic(samples, cdf):
    x = np.sort(np.asarray(samples, np.float64).ravel())
    n = len(x)
    c = cdf(x)
    return max(np.max(np.arange(1, n + 1) / n - c), np.max(c - np.arange(n) / n))


def chi_square(counts, probabilities):
    expected = np.asarray(probabilities) * np.sum(counts)
    return float(np.sum((np.asarray(counts) - expected) ** 2 / expected))


def laplace_cdf(loc, scale):
    return lambda x: np.where(x < loc, 0.5 * np.exp((x - loc) / scale), 1 - 0.5 * np.exp(-(x - loc) / scale))


def test_bernoulli():
    x = Tensor(np.zeros((200, 100), F32))
    draws = ops.bernoulli(x, 0.3, seed=4).asnumpy()
    assert draws.dtype == F32 and set(np.unique(draws)) == {0.0, 1.0}
    assert abs(draws.mean() - 0.3) < 0.02
    fixed = ops.bernoulli(t(1, 2, 3, dtype=np.int32), t(0.0, 1.0, 1.0), seed=1).asnumpy()
    assert fixed.dtype == np.int32 and fixed.tolist() == [0, 1, 1]
    with pytest.raises(ValueError, match=r"For bernoulli, p should be in \[0, 1\], but got 1.5."):
        ops.bernoulli(x, 1.5)


def test_laplace_and_standard_laplace():
    std = ops.standard_laplace((100, 100), seed=2).asnumpy()
    assert std.shape == (100, 100) and std.dtype == F32
    assert ks_statistic(std, laplace_cdf(0.0, 1.0)) < 0.02
    draws = ops.laplace((4000, 3), t(1.0, -2.0, 0.5), t(2.0), seed=3).asnumpy()
    assert draws.shape == (4000, 3)   # shape broadcast with mean's and lambda_param's (as 2.10)
    for j, loc in enumerate([1.0, -2.0, 0.5]):
        assert ks_statistic(draws[:, j], laplace_cdf(loc, 2.0)) < 0.04
    assert np.all(np.isfinite(draws))


def test_random_categorical_and_multinomial_frequencies():
    p = np.array([0.2, 0.5, 0.3])
    draws = ops.random_categorical(Tensor(np.log(p)[None].astype(F32)), 20000, seed=5).asnumpy()
    assert draws.shape == (1, 20000) and draws.dtype == np.int64
    assert chi_square(np.bincount(draws.ravel(), minlength=3), p) < 20   # 2 degrees of freedom: p < 5e-5
    assert ops.random_categorical(t([1.0, 2.0]), 3, dtype=ms.int32).asnumpy().dtype == np.int32
    with pytest.raises(ValueError, match="logits shape size only support 2D"):
        ops.random_categorical(t(1.0, 2.0), 3)
    weights = np.array([[0.0, 9.0, 4.0, 0.0], [0.0, 0.0, 1.0, 1.0]], F32)
    draws = ops.multinomial(Tensor(weights), 6000, seed=6).asnumpy()
    assert draws.shape == (2, 6000) and draws.dtype == np.int32
    assert chi_square(np.bincount(draws[0], minlength=4)[1:3], [9 / 13, 4 / 13]) < 20
    assert set(np.unique(draws[1])) == {2, 3}   # zero weights are never drawn
    assert ops.multinomial(Tensor(weights[0]), 5, seed=1).shape == (5,)


def test_multinomial_without_replacement():
    weights = Tensor(np.array([[1.0, 9.0, 4.0, 0.0]] * 500, F32))
    draws = ops.multinomial(weights, 3, replacement=False, seed=7).asnumpy()
    assert all(len(set(row)) == 3 for row in draws)
    assert not np.any(draws == 3)   # the zero weight comes after the three others
    assert np.mean(draws[:, 0] == 1) > 0.5   # P(first = 1) = 9/14
    with pytest.raises(ValueError, match="the 'num_samples' must be less than the last dimension of input"):
        ops.multinomial(weights, 5, replacement=False)


def test_randperm_and_shuffle():
    perm = ops.randperm(50, seed=1)
    assert perm.dtype == ms.int64 and sorted(perm.asnumpy().tolist()) == list(range(50))
    assert np.array_equal(perm.asnumpy(), ops.randperm(50, seed=1).asnumpy())   # a seed repeats
    assert ops.randperm(6, seed=1, dtype=ms.float32).asnumpy().dtype == F32
    with pytest.raises(ValueError, match="For 'RandpermV2', the input 'n' must be greater than 0, but got data: -1."):
        ops.randperm(-1)
    x = np.arange(40, dtype=F32).reshape(20, 2)
    out = ops.shuffle(Tensor(x), seed=2).asnumpy()
    assert sorted(map(tuple, out)) == sorted(map(tuple, x)) and not np.array_equal(out, x)
    # every position is equally likely: the first element's place over many seeds
    places = [int(np.argmax(ops.randperm(4, seed=s).asnumpy() == 0)) for s in range(1, 401)]
    assert chi_square(np.bincount(places, minlength=4), [0.25] * 4) < 20


def test_gamma_draws():
    draws = ops.random_gamma(Tensor(np.array([5000], np.int32)), t(0.5, 2.5), seed=8).asnumpy()
    assert draws.shape == (5000, 2) and draws.dtype == F32 and np.all(draws > 0)
    for j, a in enumerate([0.5, 2.5]):
        assert abs(draws[:, j].mean() - a) < 0.06 * a and abs(draws[:, j].var() - a) < 0.15 * a
    assert ops.random_gamma((3,), t(1.0, dtype=np.float64), seed=1).asnumpy().dtype == np.float64
    rated = ops.gamma((4000, 2), t(2.0, 6.0), t(4.0), seed=9).asnumpy()
    assert rated.shape == (4000, 2)
    np.testing.assert_allclose(rated.mean(0), [0.5, 1.5], rtol=0.05)   # mean alpha / beta


def test_poisson_draws():
    draws = ops.random_poisson(Tensor(np.array([4000], np.int32)), t(0.7, 6.0), seed=10).asnumpy()
    assert draws.shape == (4000, 2) and draws.dtype == F32 and np.all(draws == np.round(draws)) and np.all(draws >= 0)
    np.testing.assert_allclose(draws.mean(0), [0.7, 6.0], rtol=0.06)
    np.testing.assert_allclose(draws.var(0), [0.7, 6.0], rtol=0.12)
    counts = np.bincount(draws[:, 0].astype(int), minlength=4)[:4]
    pmf = [math.exp(-0.7) * 0.7 ** k / math.factorial(k) for k in range(4)]
    assert chi_square(counts, np.array(pmf) / sum(pmf)) < 25
    assert ops.random_poisson((2,), t(1.0), dtype=ms.int64).asnumpy().dtype == np.int64
    p = ops.poisson((3, 2), t(1.0, 5.0), seed=1)
    assert p.shape == (3, 2) and p.dtype == ms.float32


def test_seed_rules_eager_and_jit():
    seeded = [lambda: ops.standard_laplace((5,), seed=3), lambda: ops.random_gamma((5,), t(2.0), seed=3),
              lambda: ops.multinomial(t(1.0, 2.0, 3.0), 5, seed=3), lambda: ops.shuffle(t(1, 2, 3, 4, 5), seed=3)]
    for draw in seeded:
        np.testing.assert_array_equal(draw().asnumpy(), draw().asnumpy())
    jitted = ms.jit(lambda: tuple(d() for d in seeded))
    first, second = jitted(), jitted()
    for a, b, eager in zip(first, second, seeded):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
        np.testing.assert_array_equal(a.asnumpy(), eager().asnumpy())
    # unseeded: the global generator advances, and set_seed replays it
    ms.set_seed(11)
    a = (ops.standard_laplace((5,)).asnumpy(), ops.random_poisson((5,), t(3.0)).asnumpy(), ops.randperm(8).asnumpy())
    b = (ops.standard_laplace((5,)).asnumpy(), ops.random_poisson((5,), t(3.0)).asnumpy(), ops.randperm(8).asnumpy())
    ms.set_seed(11)
    c = (ops.standard_laplace((5,)).asnumpy(), ops.random_poisson((5,), t(3.0)).asnumpy(), ops.randperm(8).asnumpy())
    assert not np.array_equal(a[0], b[0]) and all(np.array_equal(x, y) for x, y in zip(a, c))
    unseeded = ms.jit(lambda: ops.random_gamma((4,), t(2.0)))
    assert not np.array_equal(unseeded().asnumpy(), unseeded().asnumpy())


def test_vmap_draws_differ_per_member():
    alphas = Tensor(np.array([[1.0], [1.0], [1.0]], F32))
    out = ms.vmap(lambda a: ops.random_gamma((4,), a, seed=5))(alphas).asnumpy()
    assert out.shape == (3, 4, 1) and len({tuple(r.ravel()) for r in out}) == 3
    lap = ms.vmap(lambda x: x + ops.standard_laplace((4,), seed=5))(Tensor(np.zeros((3, 4), F32))).asnumpy()
    assert len({tuple(r) for r in lap}) == 3
    # randomness="same": one stream for every member
    same = ms.vmap(lambda a: ops.random_poisson((4,), a, seed=5), randomness="same")(alphas).asnumpy()
    assert all(np.array_equal(same[0], r) for r in same)


def test_onnx_matches_xla():
    def draws(x):
        return (ops.bernoulli(x, 0.4, seed=1), ops.standard_laplace((6,), seed=2), ops.shuffle(x, seed=3),
                ops.multinomial(ops.abs(x) + 0.1, 4, seed=4), ops.multinomial(ops.abs(x) + 0.1, 3, False, seed=5),
                ops.random_categorical(ops.reshape(x, (1, 6)), 5, seed=6), ops.randperm(6, seed=7))
    x = Tensor(np.linspace(-1, 1, 6).astype(F32))
    for a, b in zip(ms.jit(draws)(x), ms.jit(draws, backend="onnx")(x)):
        np.testing.assert_allclose(b.asnumpy(), a.asnumpy(), rtol=1e-6, atol=1e-6)
    # gamma and Poisson draws: tests/test_onnx_random_draws.py


def test_tensor_methods():
    x = t([0.0, 1.0, 3.0])
    assert x.multinomial(4, seed=1).shape == (1, 4) and x.random_categorical(2, seed=1).dtype == ms.int64
    np.testing.assert_allclose(t(1.0, 2.0).i0().asnumpy(), [1.2660658, 2.2795853], rtol=1e-6)
    np.testing.assert_allclose(t(2.0).igamma(t(3.0)).asnumpy() + t(2.0).igammac(t(3.0)).asnumpy(), [1.0], rtol=1e-6)
    np.testing.assert_allclose(t(2.5).mvlgamma(2).asnumpy(), [0.8570479], rtol=1e-5)

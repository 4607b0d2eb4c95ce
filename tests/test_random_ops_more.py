"""TruncatedNormal, ParameterizedTruncatedNormal, Cauchy, LogNormalReverse, RandomChoiceWithMask,
RandpermV2, MultinomialWithReplacement, the candidate samplers and Gamma (ops/random_more.py).
graphcell's streams are not MindSpore's: the draws are checked as distributions (Kolmogorov-
Smirnov and chi-square statistics with fixed seeds, bounds a wrong distribution cannot meet),
against scipy and a numpy simulation of the samplers' draw-until-unique loop; shapes, dtypes,
errors and the deterministic outputs are MindSpore 2.10's, measured on its CPU build."""
import math

import numpy as np
import pytest
from scipy import stats

import graphcell as ms
from graphcell import Tensor, ops

F32 = np.float32


def f32(*values):
    return Tensor(np.array(values, F32))


def shape_tensor(*dims):
    return Tensor(np.array(dims, np.int32))


def ks(samples, cdf):
    return stats.kstest(np.asarray(samples, np.float64).ravel(), cdf).statistic


def test_truncated_normal():
    x = ops.TruncatedNormal(seed=1)(shape_tensor(100, 40))
    assert x.shape == (100, 40) and x.dtype == ms.float32
    assert ks(x.asnumpy(), stats.truncnorm(-2, 2).cdf) < 0.026  # 4000 draws: the 1% critical value
    assert np.abs(x.asnumpy()).max() <= 2 and abs(x.asnumpy().std() - stats.truncnorm(-2, 2).std()) < 0.02
    for dtype in (ms.float16, ms.float64):
        assert ops.TruncatedNormal(dtype=dtype)(Tensor(np.array([2, 3]), ms.int64)).dtype == dtype
    np.testing.assert_array_equal(ops.TruncatedNormal(seed=3)(shape_tensor(2, 2)).asnumpy(),
                                  ops.TruncatedNormal(seed=3)(shape_tensor(2, 2)).asnumpy())
    # 2.10's errors (measured)
    with pytest.raises(TypeError, match=r"'dtype' should be one of"):
        ops.TruncatedNormal(dtype=ms.int32)
    with pytest.raises(TypeError, match=r"argument\[shape\] must be Tensor"):
        ops.TruncatedNormal()((2, 3))
    with pytest.raises(TypeError, match=r"must be a type of \{Tensor\[Int32\], Tensor\[Int64\]\}"):
        ops.TruncatedNormal()(Tensor(np.array([2.0, 3.0], F32)))
    with pytest.raises(ValueError, match="the input tensor shape must >= 2, but got 1"):
        ops.TruncatedNormal()(shape_tensor(3))


def test_parameterized_truncated_normal():
    op = ops.ParameterizedTruncatedNormal(seed=2)
    x = op(shape_tensor(3, 2000), f32(0.0, 10.0, 0.0), f32(1.0, 2.0, 1.0), f32(-1.0, 9.0, -8.0),
           f32(1.0, 12.0, -6.0)).asnumpy()
    assert x.shape == (3, 2000) and x.dtype == F32
    assert ks(x[0], stats.truncnorm(-1, 1).cdf) < 0.04
    assert ks(x[1], stats.truncnorm(-0.5, 1.0, loc=10, scale=2).cdf) < 0.04
    assert ks(x[2], stats.truncnorm(-8, -6).cdf) < 0.04     # a far tail keeps its shape
    assert ks(x[1], stats.truncnorm(-1, 1).cdf) > 0.5        # rows do use their own parameters
    # 0-d and [1] parameters serve every row; the output takes the parameters' dtype
    y = op(Tensor(np.array([2, 3, 4]), ms.int64), *(Tensor(np.array(v)) for v in (0.0, [1.0], -1.0, [1.0])))
    assert y.shape == (2, 3, 4) and y.dtype == ms.float64 and np.all(np.abs(y.asnumpy()) <= 1)
    with pytest.raises(ValueError, match=r"mean must be 0d, or mean.shape = \(3, \), but got \(2,\)"):
        op(shape_tensor(3, 2), f32(0.0, 1.0), f32(1.0), f32(-1.0), f32(1.0))
    with pytest.raises(TypeError, match="the input type must be same"):
        op(shape_tensor(3, 2), Tensor(np.array([0.0])), f32(1.0), f32(-1.0), f32(1.0))


def test_cauchy_and_log_normal_reverse():
    c = ops.Cauchy([4000], 1.0, 2.0)()
    assert c.dtype == ms.float32
    assert ks(c.asnumpy(), stats.cauchy(1.0, 2.0).cdf) < 0.03
    assert ks(c.asnumpy(), stats.norm(1.0, 2.0).cdf) > 0.05
    with pytest.raises(TypeError, match="the type of 'size' should be 'list', but got type 'tuple'"):
        ops.Cauchy((2, 3))
    with pytest.raises(TypeError, match="the type of 'median' should be 'float', but got type 'int'"):
        ops.Cauchy([3], 0, 1.0)
    x = ops.LogNormalReverse(1.0, 0.5)(Tensor(np.zeros((40, 100), F32)))
    assert x.shape == (40, 100) and x.dtype == ms.float32
    assert ks(np.log(x.asnumpy()), stats.norm(1.0, 0.5).cdf) < 0.03
    for np_dtype, dtype in ((np.float16, ms.float16), (np.float64, ms.float64)):
        assert ops.LogNormalReverse()(Tensor(np.zeros(3, np_dtype))).dtype == dtype
    with pytest.raises(TypeError, match=r"must be a type of \{Tensor\[Float16\].*but got Tensor\[Int32\]"):
        ops.LogNormalReverse()(Tensor(np.zeros(3, np.int32)))


def test_random_choice_with_mask():
    mask = np.array([[True, False, True, True], [False, False, True, False]])
    index, chosen = ops.RandomChoiceWithMask(count=7, seed=1)(Tensor(mask))
    assert index.shape == (7, 2) and index.dtype == ms.int32 and chosen.dtype == ms.bool_
    # 2.10's layout (measured): the four Trues in some order, then zero rows with mask False
    np.testing.assert_array_equal(chosen.asnumpy(), [True] * 4 + [False] * 3)
    assert sorted(map(tuple, index.asnumpy()[:4])) == [(0, 0), (0, 2), (0, 3), (1, 2)]
    np.testing.assert_array_equal(index.asnumpy()[4:], 0)
    index, chosen = ops.choice_with_mask(Tensor(mask[0]), 2, seed=3)
    assert index.shape == (2, 1) and chosen.asnumpy().all() and index.asnumpy()[:, 0].tolist()[0] in (0, 2, 3)
    # each True is as likely to come first: 600 members of a vmap
    members = Tensor(np.tile(np.array([True, True, False, True, True]), (300, 1)))
    first = ms.vmap(lambda m: ops.choice_with_mask(m, 1, seed=4)[0])(members).asnumpy()[:, 0, 0]
    counts = np.bincount(first, minlength=5)
    assert counts[2] == 0 and stats.chisquare(counts[[0, 1, 3, 4]]).pvalue > 1e-3
    with pytest.raises(ValueError, match="rank should be between 1 and 5, but got:0"):
        ops.RandomChoiceWithMask(count=3)(Tensor(True))
    with pytest.raises(TypeError, match=r"must be a type of \{Tensor\[Bool\]\}, but got Tensor\[Float32\]"):
        ops.RandomChoiceWithMask()(Tensor(mask.astype(F32)))
    with pytest.raises(ValueError, match="'count' must be int and must > 0"):
        ops.RandomChoiceWithMask(count=0)


def test_randperm_v2():
    p = ops.RandpermV2(seed=1)(10)
    assert p.dtype == ms.int64 and sorted(p.asnumpy().tolist()) == list(range(10))
    q = ops.RandpermV2(dtype=ms.float32)(Tensor(5))
    assert q.dtype == ms.float32 and sorted(q.asnumpy().tolist()) == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError, match="'n' must be greater than 0, but got data: -1"):
        ops.RandpermV2()(-1)
    with pytest.raises(ValueError, match="the value of 'n' is 300, it's too lagrge for input 'dtype'"):
        ops.RandpermV2(dtype=ms.uint8)(300)


def test_multinomial_with_replacement():
    w = f32(0.0, 1.0, 3.0, 6.0)
    draws = ops.MultinomialWithReplacement(3000, True)(w, Tensor(1, ms.int64), Tensor(0, ms.int64))
    assert draws.shape == (3000,) and draws.dtype == ms.int64
    counts = np.bincount(draws.asnumpy(), minlength=4)
    assert counts[0] == 0 and stats.chisquare(counts[1:], 3000 * np.array([0.1, 0.3, 0.6])).pvalue > 1e-3
    rows = ops.multinomial_with_replacement(Tensor(np.array([[0, 1, 3, 6], [1, 1, 1, 1]], F32)), 2, 0, 3, False)
    assert rows.shape == (2, 3) and all(len(set(r)) == 3 for r in rows.asnumpy().tolist())
    assert 0 not in rows.asnumpy()[0]
    with pytest.raises(ValueError, match="numsamples must equal or less than x_shape\\[-1\\], but got 5"):
        ops.MultinomialWithReplacement(5, False)(w, Tensor(1, ms.int64), Tensor(0, ms.int64))
    with pytest.raises(TypeError, match=r"argument\[x_dtype\] must be a type of"):
        ops.MultinomialWithReplacement(3, True)(Tensor(np.array([1, 2, 3], np.int32)), 1, 0)
    with pytest.raises(ValueError, match="each element of 'x' must be equal or greater than 0"):
        ops.MultinomialWithReplacement(3, True)(f32(1.0, -2.0, 3.0), 1, 0)


def _simulated_tries(p, k, rng, n=20000):
    """The mean number of with-replacement draws until k distinct classes (TensorFlow's loop)."""
    total = 0
    for _ in range(n):
        seen, tries = set(), 0
        while len(seen) < k:
            seen.add(int(rng.choice(len(p), p=p)))
            tries += 1
        total += tries
    return total / n


def test_candidate_samplers_measured_values_and_errors():
    true_classes = Tensor(np.array([[1, 3], [2, 0]]), ms.int64)
    # without `unique` the expected counts are p * num_sampled: 2.10's values (measured)
    _, true_expected, _ = ops.UniformCandidateSampler(2, 4, False, 10, seed=1)(true_classes)
    np.testing.assert_allclose(true_expected.asnumpy(), np.full((2, 2), 0.4), rtol=1e-6)
    sampled, true_expected, sampled_expected = ops.log_uniform_candidate_sampler(true_classes, 2, 4, False, 10, 1)
    np.testing.assert_allclose(true_expected.asnumpy(), [[0.67636836, 0.37223235], [0.47989097, 1.1562593]],
                               rtol=1e-5)
    p = np.log((np.arange(10) + 2) / (np.arange(10) + 1)) / np.log(11)
    np.testing.assert_allclose(sampled_expected.asnumpy(), 4 * p[sampled.asnumpy()], rtol=1e-5)
    s32 = ops.UniformCandidateSampler(2, 4, True, 10, seed=1)(Tensor(np.array([[1, 3], [2, 0]], np.int32)))
    assert [o.dtype for o in s32] == [ms.int32, ms.float32, ms.float32] and [o.shape for o in s32] == [(4,), (2, 2),
                                                                                                        (4,)]
    with pytest.raises(ValueError, match="num_sampled should be <= value of range_max: 10, but got 11"):
        ops.UniformCandidateSampler(2, 11, True, 10)(true_classes)
    with pytest.raises(ValueError, match="the 'range_max' should be >= num_sampled: 12, but got 10"):
        ops.LogUniformCandidateSampler(2, 12, True, 10)(true_classes)
    with pytest.raises(ValueError, match="the num_true must be equal to 2, but got 3"):
        ops.UniformCandidateSampler(3, 4, True, 10)(true_classes)
    with pytest.raises(ValueError, match="the dimension of input must be equal to 2, but got 1"):
        ops.UniformCandidateSampler(2, 4, True, 10)(Tensor(np.array([1, 3]), ms.int64))
    with pytest.raises(TypeError, match=r"must be a type of \{Tensor\[Int64\]\}, but got Tensor\[Int32\]"):
        ops.LogUniformCandidateSampler(2, 4, True, 10)(Tensor(np.array([[1, 3]], np.int32)))


@pytest.mark.slow
@pytest.mark.parametrize("sampler", ["uniform", "log_uniform"])
def test_unique_candidate_samplers_follow_the_draw_until_unique_loop(sampler):
    k, n, members = 4, 6, 400
    p = np.full(n, 1 / n) if sampler == "uniform" else np.log((np.arange(n) + 2) / (np.arange(n) + 1)) / np.log(n + 1)
    fn = ops.uniform_candidate_sampler if sampler == "uniform" else ops.log_uniform_candidate_sampler
    true_classes = Tensor(np.zeros((members, 1, 1), np.int64))
    sampled, true_expected, sampled_expected = ms.vmap(lambda t: fn(t, 1, k, True, n, seed=5))(true_classes)
    sampled, true_expected = sampled.asnumpy(), true_expected.asnumpy()[:, 0, 0]
    assert all(len(set(r)) == k for r in sampled.tolist())
    # the expected counts are 1 - (1 - p)^tries: recover the tries, whole numbers >= k
    tries = np.log1p(-true_expected) / np.log1p(-p[0])
    np.testing.assert_allclose(tries, np.round(tries), rtol=1e-3)
    np.testing.assert_allclose(sampled_expected.asnumpy(), -np.expm1(tries[:, None] * np.log1p(-p[sampled])),
                               rtol=1e-4)
    expected_tries = _simulated_tries(p, k, np.random.default_rng(0), 2000)
    assert abs(tries.mean() - expected_tries) < 0.1 * expected_tries  # ~4 standard errors
    # the first class found is drawn with probability p
    first = np.bincount(sampled[:, 0], minlength=n)
    assert stats.chisquare(first, members * p).pvalue > 1e-3


def test_gamma_class():
    g = ops.Gamma(seed=1)((2000,), f32(3.0), f32(2.0))
    assert g.shape == (2000,) and g.dtype == ms.float32
    assert ks(g.asnumpy(), stats.gamma(3.0, scale=0.5).cdf) < 0.04


@pytest.mark.slow
def test_seeds_jit_and_onnx_match():
    def draws(mask):
        return (ops.TruncatedNormal(seed=1)(shape_tensor(2, 3)),
                ops.ParameterizedTruncatedNormal(seed=2)(shape_tensor(2, 3), f32(0.0, 1.0), f32(1.0, 2.0),
                                                         f32(-1.0, 0.0), f32(1.0, 5.0)),
                ops.RandomChoiceWithMask(4, seed=3)(mask),
                ops.RandpermV2(seed=4)(6),
                ops.MultinomialWithReplacement(3, False)(f32(1.0, 2.0, 3.0, 4.0), 5, 0),
                ops.UniformCandidateSampler(1, 3, True, 6, seed=6)(Tensor(np.array([[1]]), ms.int64)),
                ops.LogUniformCandidateSampler(1, 3, True, 6, seed=7)(Tensor(np.array([[1]]), ms.int64)))
    mask = Tensor(np.array([[True, False, True], [False, True, True]]))
    flat = lambda out: [np.asarray(o.asnumpy()) for x in out for o in (x if isinstance(x, tuple) else (x,))]  # noqa
    eager = flat(draws(mask))
    for backend in ("xla", "onnx"):
        for a, b in zip(eager, flat(ms.jit(draws, backend=backend)(mask))):
            np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
    assert math.isfinite(float(eager[0].sum()))


def test_seeded_draws_repeat_under_jit():
    def draws():
        return (ops.RandomChoiceWithMask(2, seed=3)(Tensor(np.array([True, False, True]))),
                ops.UniformCandidateSampler(1, 2, True, 4, seed=6)(Tensor(np.array([[1]]), ms.int64)))
    jitted = ms.jit(draws)
    for a, b in zip(jitted(), draws()):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x.asnumpy(), y.asnumpy())

"""Normal, Uniform, Exponential, Cauchy, Logistic, and the three that 2.10 gives only
prob/log_prob (Laplace, HalfNormal, StudentT), as 2.10 measures them."""
from __future__ import annotations

import math

from .... import dtype as mstype
from .... import ops as F
from .distribution import FLOAT_TYPES, Distribution

_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


def _expand(x, like):
    """x broadcast against `like` (2.10's `x * ones_like(like)`, which fails on shapes that do not
    broadcast)."""
    return x * F.ones_like(like)


def _uniform(dist, shape):
    return F.uniform(shape, key=dist._next_key())


def _open_uniform(dist, shape):
    """Draws in (0, 1): uniform's 0 moved inside, for logs of it."""
    return F.maximum(_uniform(dist, shape), 2.0 ** -25)


class Normal(Distribution):
    """Normal(mean, sd)."""
    _PARAMS, _TYPE = ("mean", "sd"), "Normal"
    _DTYPES = FLOAT_TYPES
    _POSITIVE = {"sd": "Standard deviation must be greater than zero."}

    def __init__(self, mean=None, sd=None, seed=None, dtype=mstype.float32, name="Normal"):
        super().__init__(seed, dtype, name, mean=mean, sd=sd)

    def extend_repr(self):
        return self._repr_params(("mean", "standard deviation"))

    def _log_prob(self, v, m, s):
        z = (v - m) / s
        return -0.5 * z * z - F.log(s) - _HALF_LOG_2PI

    def _cdf(self, v, m, s):
        return 0.5 * F.erfc(-(v - m) / (s * math.sqrt(2.0)))

    def _survival_function(self, v, m, s):
        return 0.5 * F.erfc((v - m) / (s * math.sqrt(2.0)))

    def _mean(self, m, s):
        return _expand(m, s)

    _mode = _mean

    def _sd(self, m, s):
        return _expand(s, m)

    def _entropy(self, m, s):
        return _expand(F.log(s) + 0.5 + _HALF_LOG_2PI, m)

    def _kl_loss(self, other, own):
        (mb, sb), (ma, sa) = other, own
        return F.log(sb / sa) + (sa * sa + (ma - mb) * (ma - mb)) / (2.0 * sb * sb) - 0.5

    def _sample(self, shape, m, s):
        z = F.normal(shape, key=self._next_key())   # reparameterised: gradients reach m and s
        return F.cast(m + s * z, self.dtype)


class Uniform(Distribution):
    """Uniform(low, high)."""
    _PARAMS, _TYPE = ("low", "high"), "Uniform"
    _DTYPES = FLOAT_TYPES

    def __init__(self, low=None, high=None, seed=None, dtype=mstype.float32, name="Uniform"):
        super().__init__(seed, dtype, name, low=low, high=high)
        lo, hi = self._host["low"], self._host["high"]
        if lo is not None and hi is not None and not (lo < hi).all():
            raise ValueError("low must be less than high")

    def extend_repr(self):
        return self._repr_params(("low", "high"))

    def _prob(self, v, lo, hi):
        inside = F.logical_and(F.greater_equal(v, lo), F.less_equal(v, hi))
        return F.where(inside, 1.0 / (hi - lo), 0.0 * (hi - lo))

    def _cdf(self, v, lo, hi):
        return F.clamp((v - lo) / (hi - lo), 0.0, 1.0)

    def _mean(self, lo, hi):
        return 0.5 * (lo + hi)

    def _var(self, lo, hi):
        return (hi - lo) * (hi - lo) / 12.0

    def _entropy(self, lo, hi):
        return F.log(hi - lo)

    def _kl_loss(self, other, own):
        (lb, hb), (la, ha) = other, own
        inside = F.logical_and(F.greater_equal(la, lb), F.less_equal(ha, hb))
        return F.where(inside, F.log((hb - lb) / (ha - la)), float("inf"))

    def _sample(self, shape, lo, hi):
        return F.cast(lo + (hi - lo) * _uniform(self, shape), self.dtype)


class Exponential(Distribution):
    """Exponential(rate): mean 1 / rate."""
    _PARAMS, _TYPE = ("rate",), "Exponential"
    _DTYPES = FLOAT_TYPES
    _POSITIVE = {"rate": "rate must be greater than zero."}

    def __init__(self, rate=None, seed=None, dtype=mstype.float32, name="Exponential"):
        super().__init__(seed, dtype, name, rate=rate)

    def extend_repr(self):
        return self._repr_params(("rate",))

    def _log_prob(self, v, r):
        return F.where(F.less(v, 0.0), float("-inf"), F.log(r) - r * v)

    def _cdf(self, v, r):
        return F.where(F.less(v, 0.0), 0.0, -F.expm1(-r * v))

    def _log_survival(self, v, r):
        return F.where(F.less(v, 0.0), 0.0, -r * v)

    def _mean(self, r):
        return 1.0 / r

    _sd = _mean

    def _mode(self, r):
        return F.zeros_like(r)

    def _entropy(self, r):
        return 1.0 - F.log(r)

    def _kl_loss(self, other, own):
        (rb,), (ra,) = other, own
        return F.log(ra / rb) + rb / ra - 1.0

    def _sample(self, shape, r):
        return F.cast(-F.log1p(-_uniform(self, shape)) / r, self.dtype)


class Cauchy(Distribution):
    """Cauchy(loc, scale): mean, sd and var are undefined (2.10 raises ValueError)."""
    _PARAMS, _TYPE = ("loc", "scale"), "Cauchy"
    _DTYPES = FLOAT_TYPES
    _POSITIVE = {"scale": "scale must be greater than zero."}

    def __init__(self, loc=None, scale=None, seed=None, dtype=mstype.float32, name="Cauchy"):
        super().__init__(seed, dtype, name, loc=loc, scale=scale)

    def extend_repr(self):
        return self._repr_params(("location", "scale"))

    def _log_prob(self, v, loc, s):
        z = (v - loc) / s
        return -math.log(math.pi) - F.log(s) - F.log1p(z * z)

    def _cdf(self, v, loc, s):
        return F.atan((v - loc) / s) / math.pi + 0.5

    def _survival_function(self, v, loc, s):
        return 0.5 - F.atan((v - loc) / s) / math.pi

    def mean(self, *args, **kwargs):
        raise ValueError("mean is undefined for Cauchy distribution.")

    def sd(self, *args, **kwargs):
        raise ValueError("standard deviation is undefined for Cauchy distribution.")

    def var(self, *args, **kwargs):
        raise ValueError("variance is undefined for Cauchy distribution.")

    def _mode(self, loc, s):
        return _expand(loc, s)

    def _entropy(self, loc, s):
        return _expand(F.log(4.0 * math.pi * s), loc)

    def _kl_loss(self, other, own):
        (lb, sb), (la, sa) = other, own
        return F.log((sa + sb) * (sa + sb) + (la - lb) * (la - lb)) - F.log(4.0 * sa * sb)

    def _sample(self, shape, loc, s):
        return F.cast(loc + s * F.tan(math.pi * (_open_uniform(self, shape) - 0.5)), self.dtype)


class Logistic(Distribution):
    """Logistic(loc, scale); 2.10 has no kl_loss or cross_entropy for it."""
    _PARAMS, _TYPE = ("loc", "scale"), "Logistic"
    _DTYPES = FLOAT_TYPES
    _POSITIVE = {"scale": "scale must be greater than zero."}

    def __init__(self, loc=None, scale=None, seed=None, dtype=mstype.float32, name="Logistic"):
        super().__init__(seed, dtype, name, loc=loc, scale=scale)

    def extend_repr(self):
        return self._repr_params(("location", "scale"))

    def _log_prob(self, v, loc, s):
        z = (v - loc) / s
        return -z - 2.0 * F.softplus(-z) - F.log(s)

    def _cdf(self, v, loc, s):
        return F.sigmoid((v - loc) / s)

    def _log_cdf(self, v, loc, s):
        return -F.softplus(-(v - loc) / s)

    def _survival_function(self, v, loc, s):
        return F.sigmoid(-(v - loc) / s)

    def _log_survival(self, v, loc, s):
        return -F.softplus((v - loc) / s)

    def _mean(self, loc, s):
        return _expand(loc, s)

    _mode = _mean

    def _sd(self, loc, s):
        return _expand(s * (math.pi / math.sqrt(3.0)), loc)

    def _entropy(self, loc, s):
        return _expand(F.log(s) + 2.0, loc)

    def _sample(self, shape, loc, s):
        u = _open_uniform(self, shape)
        return F.cast(loc + s * (F.log(u) - F.log1p(-u)), self.dtype)


class _DensityOnly(Distribution):
    """2.10's Laplace, HalfNormal and StudentT: prob and log_prob only; every other method,
    get_dist_type included, raises NotImplementedError; their repr shows no parameters."""

    def extend_repr(self):
        return ""


class Laplace(_DensityOnly):
    """Laplace(mean, sd), sd the scale b: density exp(-|x - mean| / b) / (2b)."""
    _PARAMS = ("mean", "sd")
    _DTYPES = FLOAT_TYPES
    _POSITIVE = {"sd": "Standard deviation must be greater than zero."}

    def __init__(self, mean=None, sd=None, seed=None, dtype=mstype.float32, name="Laplace"):
        super().__init__(seed, dtype, name, mean=mean, sd=sd)

    def _log_prob(self, v, m, s):
        return -F.abs(v - m) / s - F.log(2.0 * s)


class HalfNormal(_DensityOnly):
    """HalfNormal(mean, sd): twice Normal(mean, sd)'s density (2.10 does not mask x < mean)."""
    _PARAMS = ("mean", "sd")
    _DTYPES = FLOAT_TYPES
    _POSITIVE = {"sd": "Standard deviation must be greater than zero."}

    def __init__(self, mean=None, sd=None, seed=None, dtype=mstype.float32, name="HalfNormal"):
        super().__init__(seed, dtype, name, mean=mean, sd=sd)

    def _log_prob(self, v, m, s):
        z = (v - m) / s
        return 0.5 * math.log(2.0 / math.pi) - F.log(s) - 0.5 * z * z


class StudentT(_DensityOnly):
    """StudentT(df, mean, sd)."""
    _PARAMS = ("df", "mean", "sd")
    _DTYPES = FLOAT_TYPES
    _POSITIVE = {"df": "Degrees of freedom must be greater than zero.",
                 "sd": "Standard deviation must be greater than zero."}

    def __init__(self, df=None, mean=None, sd=None, seed=None, dtype=mstype.float32, name="StudentT"):
        super().__init__(seed, dtype, name, df=df, mean=mean, sd=sd)

    def _log_prob(self, v, df, m, s):
        z = (v - m) / s
        return (F.lgamma(0.5 * (df + 1.0)) - F.lgamma(0.5 * df) - 0.5 * F.log(df * math.pi) - F.log(s)
                - 0.5 * (df + 1.0) * F.log1p(z * z / df))

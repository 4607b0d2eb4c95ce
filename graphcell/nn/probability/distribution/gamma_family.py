"""Gamma, Beta and Poisson (lgamma, digamma and the regularised incomplete gamma), as 2.10
measures them. Their samples are graphcell's gamma and Poisson draws (2.10's CPU build has no
Gamma or Poisson kernel, so it cannot sample these at all)."""
from __future__ import annotations

from .... import dtype as mstype
from .... import ops as F
from ....ops import random_draws
from .distribution import FLOAT_TYPES, INT_TYPES, Distribution, not_scalar


def _lbeta(a, b):
    return F.lgamma(a) + F.lgamma(b) - F.lgamma(a + b)


def _gamma_draw(dist, shape, alpha):
    """Gamma(alpha, 1) draws of `shape` (alpha broadcast to it); no gradient (2.10 has none)."""
    alpha = F.broadcast_to(alpha, shape)
    return random_draws.random_gamma_draw.bind(dist._next_key(), alpha, shape=tuple(shape), dtype=mstype.float32)


class Gamma(Distribution):
    """Gamma(concentration, rate): mean concentration / rate."""
    _PARAMS, _TYPE = ("concentration", "rate"), "Gamma"
    _DTYPES = FLOAT_TYPES
    _POSITIVE = {"concentration": "concentration must be greater than zero.",
                 "rate": "rate must be greater than zero."}

    def __init__(self, concentration=None, rate=None, seed=None, dtype=mstype.float32, name="Gamma"):
        not_scalar(concentration, "concentration")
        not_scalar(rate, "rate")
        super().__init__(seed, dtype, name, concentration=concentration, rate=rate)

    def extend_repr(self):
        return self._repr_params(("concentration", "rate"))

    def _log_prob(self, v, a, r):
        return F.xlogy(a - 1.0, v) + a * F.log(r) - r * v - F.lgamma(a)

    def _cdf(self, v, a, r):
        return F.igamma(a, F.maximum(r * v, 0.0) * F.ones_like(a))

    def _mean(self, a, r):
        return a / r

    def _mode(self, a, r):
        return F.where(F.greater_equal(a, 1.0), (a - 1.0) / r, float("nan"))

    def _var(self, a, r):
        return a / (r * r)

    def _entropy(self, a, r):
        return a - F.log(r) + F.lgamma(a) + (1.0 - a) * F.digamma(a)

    def _kl_loss(self, other, own):
        (ab, rb), (aa, ra) = other, own
        return ((aa - ab) * F.digamma(aa) - F.lgamma(aa) + F.lgamma(ab) + ab * (F.log(ra) - F.log(rb))
                + aa * (rb - ra) / ra)

    def _sample(self, shape, a, r):
        return F.cast(_gamma_draw(self, shape, a) / r, self.dtype)


class Beta(Distribution):
    """Beta(concentration1, concentration0): density x^(c1-1) (1-x)^(c0-1) / B(c1, c0). 2.10 has
    no cdf for it."""
    _PARAMS, _TYPE = ("concentration1", "concentration0"), "Beta"
    _DTYPES = FLOAT_TYPES
    _POSITIVE = {"concentration1": "concentration1 must be greater than zero.",
                 "concentration0": "concentration0 must be greater than zero."}

    def __init__(self, concentration1=None, concentration0=None, seed=None, dtype=mstype.float32, name="Beta"):
        not_scalar(concentration0, "concentration0")   # 2.10 checks concentration0 first (measured)
        not_scalar(concentration1, "concentration1")
        super().__init__(seed, dtype, name, concentration1=concentration1, concentration0=concentration0)

    def extend_repr(self):
        return self._repr_params(("concentration1", "concentration0"))

    def _log_prob(self, v, c1, c0):
        return F.xlogy(c1 - 1.0, v) + F.xlogy(c0 - 1.0, 1.0 - v) - _lbeta(c1, c0)

    def _mean(self, c1, c0):
        return c1 / (c1 + c0)

    def _mode(self, c1, c0):
        both_above_one = F.logical_and(F.greater(c1, 1.0), F.greater(c0, 1.0))
        return F.where(both_above_one, (c1 - 1.0) / (c1 + c0 - 2.0), float("nan"))

    def _var(self, c1, c0):
        total = c1 + c0
        return c1 * c0 / (total * total * (total + 1.0))

    def _entropy(self, c1, c0):
        total = c1 + c0
        return (_lbeta(c1, c0) - (c1 - 1.0) * F.digamma(c1) - (c0 - 1.0) * F.digamma(c0)
                + (total - 2.0) * F.digamma(total))

    def _kl_loss(self, other, own):
        (b1, b0), (a1, a0) = other, own
        return (_lbeta(b1, b0) - _lbeta(a1, a0) + (a1 - b1) * F.digamma(a1) + (a0 - b0) * F.digamma(a0)
                + (b1 - a1 + b0 - a0) * F.digamma(a1 + a0))

    def _sample(self, shape, c1, c0):
        x, y = _gamma_draw(self, shape, c1), _gamma_draw(self, shape, c0)
        return F.cast(x / (x + y), self.dtype)


class Poisson(Distribution):
    """Poisson(rate); 2.10 has no entropy, kl_loss or cross_entropy for it."""
    _PARAMS, _TYPE = ("rate",), "Poisson"
    _DTYPES = FLOAT_TYPES + INT_TYPES
    _POSITIVE = {"rate": "rate must be greater than zero."}

    def __init__(self, rate=None, seed=None, dtype=mstype.float32, name="Poisson"):
        not_scalar(rate, "rate")
        super().__init__(seed, dtype, name, rate=rate)

    def extend_repr(self):
        return self._repr_params(("rate",))

    def _value_dtype(self):
        return mstype.float32

    def _log_prob(self, v, r):
        logp = F.xlogy(v, r) - r - F.lgamma(v + 1.0)
        return F.where(F.less(v, 0.0), float("-inf"), logp)

    def _cdf(self, v, r):
        k = F.floor(v)
        return F.where(F.less(k, 0.0), 0.0, F.igammac(F.maximum(k, 0.0) + 1.0, r * F.ones_like(k)))

    def _mean(self, r):
        return r

    _var = _mean

    def _mode(self, r):
        return F.floor(r)

    def _sample(self, shape, r):
        draws = random_draws.random_poisson_draw.bind(self._next_key(), F.broadcast_to(r, shape), shape=tuple(shape),
                                                      dtype=mstype.float32)
        return F.cast(draws, self.dtype)

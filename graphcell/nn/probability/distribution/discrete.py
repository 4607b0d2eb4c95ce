"""Bernoulli, Geometric and Categorical, as 2.10 measures them: values are cast to float32
(Categorical's to int), results are float32, modes and samples are of the distribution's
(integer by default) dtype."""
from __future__ import annotations

import numpy as np

from .... import dtype as mstype
from .... import ops as F
from .distribution import FLOAT_TYPES, INT_TYPES, Distribution, probabilities, shown

_DISCRETE_TYPES = INT_TYPES + FLOAT_TYPES


def _uniform(dist, shape):
    return F.uniform(shape, key=dist._next_key())


def _entropy_terms(p):
    return -(F.xlogy(p, p) + F.xlogy(1.0 - p, 1.0 - p))


class _Discrete(Distribution):
    def _value_dtype(self):
        return mstype.float32

    def extend_repr(self):
        return self._repr_params(("probs",))


class Bernoulli(_Discrete):
    """Bernoulli(probs): 1 with probability probs. log_prob is v log p + (1 - v) log(1 - p) for any
    value (2.10's, so non-integer values give numbers, not zero)."""
    _PARAMS, _TYPE = ("probs",), "Bernoulli"
    _DTYPES = _DISCRETE_TYPES

    def __init__(self, probs=None, seed=None, dtype=mstype.int32, name="Bernoulli"):
        super().__init__(seed, dtype, name, probs=probs)
        probabilities(self._host["probs"])

    def _log_prob(self, v, p):
        return v * F.log(p) + (1.0 - v) * F.log1p(-p)

    def _cdf(self, v, p):
        below_one = F.where(F.less(v, 1.0), 1.0 - p, F.ones_like(p))
        return F.where(F.less(v, 0.0), 0.0 * p, below_one)

    def _mean(self, p):
        return p

    def _mode(self, p):
        # 2.10's Bernoulli.mode raises a TypeError (an internal Less on a float); this is the mode
        return F.cast(F.greater(p, 0.5), self.dtype)

    def _var(self, p):
        return p * (1.0 - p)

    def _entropy(self, p):
        return _entropy_terms(p)

    def _kl_loss(self, other, own):
        (pb,), (pa,) = other, own
        return pa * (F.log(pa) - F.log(pb)) + (1.0 - pa) * (F.log1p(-pa) - F.log1p(-pb))

    def _sample(self, shape, p):
        return F.cast(F.less(_uniform(self, shape), p), self.dtype)


class Geometric(_Discrete):
    """Geometric(probs): the number of failures before the first success, probs the success
    probability; values are floored."""
    _PARAMS, _TYPE = ("probs",), "Geometric"
    _DTYPES = _DISCRETE_TYPES

    def __init__(self, probs=None, seed=None, dtype=mstype.int32, name="Geometric"):
        super().__init__(seed, dtype, name, probs=probs)
        probabilities(self._host["probs"])

    def _prob(self, v, p):
        k = F.floor(v)
        return F.where(F.less(k, 0.0), 0.0, p * F.pow(1.0 - p, F.maximum(k, 0.0)))

    def _log_prob(self, v, p):
        k = F.floor(v)
        return F.where(F.less(k, 0.0), float("-inf"), F.log(p) + F.maximum(k, 0.0) * F.log1p(-p))

    def _cdf(self, v, p):
        k = F.floor(v)
        return F.where(F.less(k, 0.0), 0.0, 1.0 - F.pow(1.0 - p, F.maximum(k, 0.0) + 1.0))

    def _mean(self, p):
        return (1.0 - p) / p

    def _mode(self, p):
        return F.cast(F.zeros_like(p), self.dtype)

    def _var(self, p):
        return (1.0 - p) / (p * p)

    def _entropy(self, p):
        return _entropy_terms(p) / p

    def _kl_loss(self, other, own):
        (pb,), (pa,) = other, own
        return F.log(pa / pb) + (1.0 - pa) / pa * (F.log1p(-pa) - F.log1p(-pb))

    def _sample(self, shape, p):
        u = F.maximum(_uniform(self, shape), 2.0 ** -25)
        return F.cast(F.floor(F.log(u) / F.log1p(-p)), self.dtype)


class Categorical(Distribution):
    """Categorical(probs): probs' last axis holds the classes (it must sum to one), the axes
    before it are the batch. Out-of-range values give NaN probabilities, as 2.10's do; mean, sd
    and var keep a trailing axis of 1 (2.10's shapes, measured)."""
    _PARAMS, _TYPE = ("probs",), "Categorical"
    _DTYPES = _DISCRETE_TYPES

    def __init__(self, probs=None, seed=None, dtype=mstype.int32, name="Categorical"):
        super().__init__(seed, dtype, name, probs=probs)
        p = self._host["probs"]
        if p is not None:
            if p.ndim < 1:
                raise ValueError("probs for Categorical distribution must have rank >= 1.")
            if not np.all(p > 0):
                raise ValueError("Probabilities must be greater than zero")
            if not np.allclose(p.sum(-1), 1.0, atol=1e-6):
                raise ValueError("Probabilities for each category should sum to one for Categorical distribution.")

    @property
    def batch_shape(self) -> tuple:
        p = self._host["probs"]
        return () if p is None else p.shape[:-1]

    broadcast_shape = batch_shape

    @property
    def is_scalar_batch(self) -> bool:
        p = self._host["probs"]
        return p is None or p.ndim == 1

    def extend_repr(self):
        return f"probs = {shown(self._host['probs'])}" if self.is_scalar_batch else f"batch_shape = {self.batch_shape}"

    def _value_dtype(self):
        return mstype.float32

    def _classes(self, p):
        return F.cast(F.arange(p.shape[-1]), mstype.float32)

    def _log_prob(self, v, p):
        k = F.expand_dims(F.floor(v), -1)
        hit = F.equal(k, self._classes(p))                # [..., classes], broadcast with p
        logp = F.sum(F.where(hit, F.log(p), 0.0), -1)
        in_range = F.logical_and(F.greater_equal(v, 0.0), F.less(v, float(p.shape[-1])))
        return F.where(in_range, logp, float("nan"))

    def _cdf(self, v, p):
        k = F.expand_dims(F.floor(v), -1)
        return F.sum(F.where(F.less_equal(self._classes(p), k), p, 0.0), -1)

    def _mean(self, p):
        return F.sum(p * self._classes(p), -1, keepdim=True)

    def _var(self, p):
        centred = self._classes(p) - self._mean(p)
        return F.sum(p * centred * centred, -1, keepdim=True)

    def _mode(self, p):
        return F.cast(F.argmax(p, -1), self.dtype)

    def _entropy(self, p):
        return -F.sum(F.xlogy(p, p), -1)

    def _kl_loss(self, other, own):
        (pb,), (pa,) = other, own
        return F.sum(pa * (F.log(pa) - F.log(pb)), -1)

    def sample(self, shape=(), *args, **kwargs):
        if not isinstance(shape, tuple):
            raise TypeError("For shape, input type must be a tuple.")
        (p,) = self._call_params(args, kwargs)
        u = F.maximum(_uniform(self, tuple(shape) + tuple(p.shape)), 2.0 ** -25)
        gumbel = -F.log(-F.log(u))                      # Gumbel-max: argmax is a draw from p
        return F.cast(F.argmax(F.log(p) + gumbel, -1), self.dtype)

"""TransformedDistribution (a distribution pushed through a bijector) and the two 2.10 builds
on it, LogNormal (Exp of a Normal) and Gumbel (the inverse GumbelCDF of a Uniform), with their
closed forms for the moments, entropy and KL."""
from __future__ import annotations

import math

import numpy as np

from .... import dtype as mstype
from .... import ops as F
from ....tensor import Tensor
from ..bijector.bijector import Bijector, Exp, GumbelCDF, Invert, ScalarAffine
from .continuous import Normal, Uniform, _HALF_LOG_2PI, _expand, _open_uniform
from .distribution import FLOAT_TYPES, Distribution, check_dtype, positive

_EULER = 0.5772156649015329


class TransformedDistribution(Distribution):
    """Y = bijector.forward(X), X ~ distribution. Per-call parameters go to `distribution`.
    cdf is the base cdf of inverse(y), also for a decreasing bijector (2.10's, measured)."""

    def __init__(self, bijector, distribution, seed=None, name="transformed_distribution"):
        if not isinstance(bijector, Bijector):
            raise TypeError(f"For 'TransformedDistribution', the type of 'bijector' should be 'Bijector', but got "
                            f"type '{type(bijector).__name__}'.")
        if not isinstance(distribution, Distribution):
            raise TypeError(f"For 'TransformedDistribution', the type of 'distribution' should be 'Distribution', "
                            f"but got type '{type(distribution).__name__}'.")
        super().__init__(seed, distribution.dtype, name, dict(bijector=bijector, distribution=distribution,
                                                              seed=seed, name=name))
        self._bijector = bijector
        self._distribution = distribution

    bijector = property(lambda self: self._bijector)
    distribution = property(lambda self: self._distribution)

    @property
    def batch_shape(self):
        return self._distribution.batch_shape

    broadcast_shape = batch_shape
    is_scalar_batch = property(lambda self: self._distribution.is_scalar_batch)

    def _value(self, value, name="value"):
        if not isinstance(value, Tensor):
            raise TypeError(f"For {name}, input type must be a Tensor or Parameter.")
        return value

    def prob(self, value, *args, **kwargs):
        return F.exp(self.log_prob(value, *args, **kwargs))

    def log_prob(self, value, *args, **kwargs):
        y = self._value(value)
        x = self._bijector.inverse(y)
        return self._distribution.log_prob(x, *args, **kwargs) + self._bijector.inverse_log_jacobian(y)

    def cdf(self, value, *args, **kwargs):
        return self._distribution.cdf(self._bijector.inverse(self._value(value)), *args, **kwargs)

    def log_cdf(self, value, *args, **kwargs):
        return self._distribution.log_cdf(self._bijector.inverse(self._value(value)), *args, **kwargs)

    def survival_function(self, value, *args, **kwargs):
        return self._distribution.survival_function(self._bijector.inverse(self._value(value)), *args, **kwargs)

    def log_survival(self, value, *args, **kwargs):
        return self._distribution.log_survival(self._bijector.inverse(self._value(value)), *args, **kwargs)

    def mean(self, *args, **kwargs):
        if not isinstance(self._bijector, ScalarAffine):
            raise ValueError("mean function must be implemented for non-linear transformation")
        return self._bijector.forward(self._distribution.mean(*args, **kwargs))

    def sample(self, shape=(), *args, **kwargs):
        return self._bijector.forward(self._distribution.sample(shape, *args, **kwargs))


class LogNormal(TransformedDistribution):
    """LogNormal(loc, scale): exp of Normal(loc, scale)."""
    _PARAMS, _TYPE = ("loc", "scale"), "LogNormal"

    def __init__(self, loc=None, scale=None, seed=0, dtype=mstype.float32, name="LogNormal"):
        check_dtype(type(self).__name__, dtype, FLOAT_TYPES)
        super().__init__(Exp(), Normal(loc, scale, seed=seed, dtype=dtype), seed=seed, name=name)
        self._parameters = dict(loc=loc, scale=scale, seed=seed, dtype=dtype, name=name,
                                param_dict=dict(loc=loc, scale=scale))
        self._store(loc=loc, scale=scale)
        positive(self._host["scale"], "Standard deviation must be greater than zero.")

    def extend_repr(self):
        return self._repr_params(("loc", "scale"))

    def mean(self, *args, **kwargs):
        loc, s = self._call_params(args, kwargs)
        return F.exp(loc + 0.5 * s * s)

    def mode(self, *args, **kwargs):
        loc, s = self._call_params(args, kwargs)
        return F.exp(loc - s * s)

    def var(self, *args, **kwargs):
        loc, s = self._call_params(args, kwargs)
        return F.expm1(s * s) * F.exp(2.0 * loc + s * s)

    def sd(self, *args, **kwargs):
        return F.sqrt(self.var(*args, **kwargs))

    def entropy(self, *args, **kwargs):
        loc, s = self._call_params(args, kwargs)
        return loc + 0.5 + F.log(s) + _HALF_LOG_2PI

    def _kl_loss(self, other, own):
        return self._distribution._kl_loss(other, own)

    def kl_loss(self, dist, *args, **kwargs):
        other, rest = self._other("kl_loss", dist, args)
        return self._kl_loss(other, self._call_params(rest, kwargs))

    def cross_entropy(self, dist, *args, **kwargs):
        other, rest = self._other("cross_entropy", dist, args)
        return self.entropy(*rest, **kwargs) + self._kl_loss(other, self._call_params(rest, kwargs))

    def get_dist_args(self, *args, **kwargs):
        return tuple(self._call_params(args, kwargs))

    def get_dist_type(self):
        return self._TYPE


class Gumbel(TransformedDistribution):
    """Gumbel(loc, scale): cdf exp(-exp(-(x - loc) / scale)). loc and scale are required."""
    _PARAMS, _TYPE = ("loc", "scale"), "Gumbel"

    def __init__(self, loc, scale, seed=0, dtype=mstype.float32, name="Gumbel"):
        check_dtype(type(self).__name__, dtype, FLOAT_TYPES)
        positive(np.asarray(scale, np.float32), "scale must be greater than zero.")
        gumbel_cdf = GumbelCDF(loc, scale)
        super().__init__(Invert(gumbel_cdf), Uniform(0.0, 1.0, seed=seed, dtype=dtype), seed=seed, name=name)
        self._gumbel_bijector = gumbel_cdf
        self._parameters = dict(loc=loc, scale=scale, seed=seed, dtype=dtype, name=name,
                                param_dict=dict(loc=loc, scale=scale))
        self._store(loc=loc, scale=scale)

    @property
    def batch_shape(self):
        return Distribution.batch_shape.fget(self)

    broadcast_shape = batch_shape
    is_scalar_batch = property(lambda self: Distribution.is_scalar_batch.fget(self))

    def extend_repr(self):
        return self._repr_params(("loc", "scale"))

    def _z(self, value, args, kwargs):
        loc, s = self._call_params(args, kwargs)
        return (F.cast(self._value(value), self.dtype) - loc) / s, loc, s

    def log_prob(self, value, *args, **kwargs):
        z, _, s = self._z(value, args, kwargs)
        return -(z + F.exp(-z)) - F.log(s)

    def cdf(self, value, *args, **kwargs):
        z, _, _ = self._z(value, args, kwargs)
        return F.exp(-F.exp(-z))

    def log_cdf(self, value, *args, **kwargs):
        z, _, _ = self._z(value, args, kwargs)
        return -F.exp(-z)

    def survival_function(self, value, *args, **kwargs):
        z, _, _ = self._z(value, args, kwargs)
        return -F.expm1(-F.exp(-z))

    def log_survival(self, value, *args, **kwargs):
        return F.log(self.survival_function(value, *args, **kwargs))

    def mean(self, *args, **kwargs):
        loc, s = self._call_params(args, kwargs)
        return loc + s * _EULER

    def mode(self, *args, **kwargs):
        loc, s = self._call_params(args, kwargs)
        return _expand(loc, s)

    def sd(self, *args, **kwargs):
        loc, s = self._call_params(args, kwargs)
        return _expand(s * (math.pi / math.sqrt(6.0)), loc)

    def var(self, *args, **kwargs):
        return F.square(self.sd(*args, **kwargs))

    def entropy(self, *args, **kwargs):
        loc, s = self._call_params(args, kwargs)
        return _expand(F.log(s) + (1.0 + _EULER), loc)

    def _kl_loss(self, other, own):
        (lb, sb), (la, sa) = other, own
        return (F.log(sb / sa) + _EULER * (sa / sb - 1.0) + F.exp((lb - la) / sb + F.lgamma(sa / sb + 1.0))
                - 1.0 + (la - lb) / sb)

    kl_loss = LogNormal.kl_loss
    cross_entropy = LogNormal.cross_entropy
    get_dist_args = LogNormal.get_dist_args
    get_dist_type = LogNormal.get_dist_type

    def sample(self, shape=(), *args, **kwargs):
        if not isinstance(shape, tuple):
            raise TypeError("For shape, input type must be a tuple.")
        loc, s = self._call_params(args, kwargs)
        u = _open_uniform(self, tuple(shape) + np.broadcast_shapes(loc.shape, s.shape))
        return F.cast(loc - s * F.log(-F.log(u)), self.dtype)


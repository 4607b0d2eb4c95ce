"""The Distribution base Cell: MindSpore 2.10's calling conventions, measured on the install.

Parameters given at construction are checked there (numpy values only) and stored as float32
Tensors; each method also takes them per call (positionally after the value, or by name), a
per-call one replacing the stored one. A method a subclass lacks raises 2.10's
NotImplementedError; prob/log_prob, cdf/log_cdf/survival, sd/var and cross_entropy fall back
on each other as 2.10's do. Values are cast to the distribution's dtype before the formulas,
so a float16 distribution computes float16 values against float32 parameters (2.10's result
dtypes). Samples use graphcell's generator: seed None or 0 draws from the global one, another
seed gives the distribution a stream of its own (the same sequence for the same seed).
"""
from __future__ import annotations

import numbers

import numpy as np

from .... import dtype as mstype
from .... import ops as F
from ....ops.operations import _KeyStream
from ....tensor import Tensor
from ...cell import Cell

from .._utils import FLOAT_TYPES, INT_TYPES, check_dtype, host_value, not_implemented, shown  # noqa: F401

_METHODS = ("prob", "log_prob", "cdf", "log_cdf", "survival_function", "log_survival", "mean", "mode", "sd", "var",
            "entropy", "cross_entropy", "kl_loss", "sample", "get_dist_args", "get_dist_type")


class Distribution(Cell):
    """Base class of the distributions. Subclasses name their parameters in `_PARAMS` and define
    the private formulas (`_log_prob(value, *params)`, `_mean(*params)`, ...) they support."""

    _PARAMS: tuple = ()
    _DTYPES: tuple | None = None   # a built-in family's accepted dtypes, checked before anything is stored
    _POSITIVE: dict = {}           # parameter -> 2.10's message when a value given for it is not > 0
    _TYPE: str | None = None           # get_dist_type's answer; None: 2.10 raises for it

    def __init__(self, seed, dtype, name, param=None, **params):
        """`param`: 2.10's record of the constructor's arguments (`parameters`). A built-in
        family passes its own parameters by keyword instead: they are stored as the defaults
        and recorded as 2.10 does (the arguments, then the parameters again as param_dict)."""
        if self._DTYPES is not None:
            check_dtype(type(self).__name__, dtype, self._DTYPES)
        super().__init__()
        self._name = name
        self._dtype = dtype
        self._seed = 0 if seed is None else int(seed)
        if param is None:
            param = dict(params, seed=seed, dtype=dtype, name=name, param_dict=dict(params))
        self._parameters = dict(param)
        self._rng = _KeyStream(name, self._seed, 0)
        self._host = {}                # parameter name -> float32 numpy value given at construction
        self._defaults = {}            # parameter name -> float32 Tensor
        self._store(**params)
        for key, message in self._POSITIVE.items():
            positive(self._host[key], message)

    def _store(self, **values):
        for key, value in values.items():
            self._host[key] = host_value(value)
            self._defaults[key] = None if value is None else Tensor(self._host[key])

    # -- attributes ----------------------------------------------------------------------------
    name = property(lambda self: self._name)
    dtype = property(lambda self: self._dtype)
    seed = property(lambda self: self._seed)
    parameters = property(lambda self: self._parameters)

    @property
    def batch_shape(self) -> tuple:
        shapes = [v.shape for v in self._host.values() if v is not None]
        return tuple(np.broadcast_shapes(*shapes)) if shapes else ()

    broadcast_shape = batch_shape

    @property
    def is_scalar_batch(self) -> bool:
        return all(v is None or v.ndim == 0 for v in self._host.values())

    def _repr_params(self, labels) -> str:
        """2.10's extend_repr: each parameter's value for a scalar batch, else the batch shape."""
        if self.is_scalar_batch:
            return ", ".join(f"{label} = {shown(self._host[key])}" for key, label in zip(self._PARAMS, labels))
        return f"batch_shape = {self.batch_shape}"

    # -- argument handling ---------------------------------------------------------------------
    def _call_params(self, args, kwargs) -> list:
        """The parameters for one call: given ones (positional, then by name) over the stored."""
        if len(args) > len(self._PARAMS):
            raise TypeError(f"{self.name}: too many arguments, expected at most {len(self._PARAMS)} parameters "
                            f"{self._PARAMS}")
        out = []
        for i, key in enumerate(self._PARAMS):
            given = args[i] if i < len(args) else kwargs.pop(key, None)
            if given is None:
                given = self._defaults.get(key)
                if given is None:
                    raise TypeError(f"the type {key} must be subclass of Tensor. It can not be None since it is not "
                                    "specified during initialization.")
            else:
                given = F.cast(F.as_tensor(given), mstype.float32)
            out.append(given)
        if kwargs:
            raise TypeError(f"{self.name}: unexpected arguments {sorted(kwargs)}")
        return out

    def _value(self, value, name="value"):
        if not isinstance(value, Tensor):
            raise TypeError(f"For {name}, input type must be a Tensor or Parameter.")
        return F.cast(value, self._value_dtype())

    def _value_dtype(self):
        return self._dtype

    def _has(self, method: str) -> bool:
        return getattr(type(self), method, None) is not getattr(Distribution, method, None)

    # -- the public methods --------------------------------------------------------------------
    def prob(self, value, *args, **kwargs):
        v, p = self._value(value), self._call_params(args, kwargs)
        if self._has("_prob"):
            return self._prob(v, *p)
        if self._has("_log_prob"):
            return F.exp(self._log_prob(v, *p))
        not_implemented("prob", self.name)

    def log_prob(self, value, *args, **kwargs):
        v, p = self._value(value), self._call_params(args, kwargs)
        if self._has("_log_prob"):
            return self._log_prob(v, *p)
        if self._has("_prob"):
            return F.log(self._prob(v, *p))
        not_implemented("log_prob", self.name)

    def cdf(self, value, *args, **kwargs):
        v, p = self._value(value), self._call_params(args, kwargs)
        if self._has("_cdf"):
            return self._cdf(v, *p)
        if self._has("_log_cdf"):
            return F.exp(self._log_cdf(v, *p))
        not_implemented("cdf", self.name)

    def log_cdf(self, value, *args, **kwargs):
        v, p = self._value(value), self._call_params(args, kwargs)
        if self._has("_log_cdf"):
            return self._log_cdf(v, *p)
        if self._has("_cdf"):
            return F.log(self._cdf(v, *p))
        not_implemented("log_cdf", self.name)

    def survival_function(self, value, *args, **kwargs):
        v, p = self._value(value), self._call_params(args, kwargs)
        if self._has("_survival_function"):
            return self._survival_function(v, *p)
        if self._has("_log_survival"):
            return F.exp(self._log_survival(v, *p))
        if self._has("_cdf"):
            return 1.0 - self._cdf(v, *p)
        not_implemented("survival_function", self.name)

    def log_survival(self, value, *args, **kwargs):
        v, p = self._value(value), self._call_params(args, kwargs)
        if self._has("_log_survival"):
            return self._log_survival(v, *p)
        if self._has("_survival_function"):
            return F.log(self._survival_function(v, *p))
        if self._has("_cdf"):
            return F.log(1.0 - self._cdf(v, *p))
        not_implemented("log_cdf", self.name)   # 2.10's message names log_cdf here (measured)

    def mean(self, *args, **kwargs):
        if not self._has("_mean"):
            not_implemented("mean", self.name)
        return self._mean(*self._call_params(args, kwargs))

    def mode(self, *args, **kwargs):
        if not self._has("_mode"):
            not_implemented("mode", self.name)
        return self._mode(*self._call_params(args, kwargs))

    def sd(self, *args, **kwargs):
        p = self._call_params(args, kwargs) if (self._has("_sd") or self._has("_var")) else None
        if self._has("_sd"):
            return self._sd(*p)
        if self._has("_var"):
            return F.sqrt(self._var(*p))
        not_implemented("sd", self.name)

    def var(self, *args, **kwargs):
        p = self._call_params(args, kwargs) if (self._has("_sd") or self._has("_var")) else None
        if self._has("_var"):
            return self._var(*p)
        if self._has("_sd"):
            return F.square(self._sd(*p))
        not_implemented("var", self.name)

    def entropy(self, *args, **kwargs):
        if not self._has("_entropy"):
            not_implemented("entropy", self.name)
        return self._entropy(*self._call_params(args, kwargs))

    def _other(self, what, dist, args):
        """Splits kl_loss/cross_entropy arguments: dist, the other's parameters, then ours."""
        if not self._has("_kl_loss"):
            not_implemented(what, self.name)
        if dist != self._TYPE:
            raise ValueError(f"Expected dist input is {self._TYPE}, but got {dist}.")
        n = len(self._PARAMS)
        if len(args) < n:
            missing = self._PARAMS[len(args)] + "_b"
            raise TypeError(f"{type(self).__name__}._{what}() missing 1 required positional argument: '{missing}'")
        other = []
        for arg in args[:n]:
            if not isinstance(arg, Tensor):
                raise TypeError(f"For {self._PARAMS[len(other)]}_b, input type must be a Tensor or Parameter.")
            other.append(F.cast(arg, mstype.float32))
        return other, args[n:]

    def kl_loss(self, dist, *args, **kwargs):
        other, rest = self._other("kl_loss", dist, args)
        return self._kl_loss(other, self._call_params(rest, kwargs))

    def cross_entropy(self, dist, *args, **kwargs):
        other, rest = self._other("cross_entropy", dist, args)
        p = self._call_params(rest, kwargs)
        return self._entropy(*p) + self._kl_loss(other, p)

    def sample(self, shape=(), *args, **kwargs):
        if not self._has("_sample"):
            not_implemented("sample", self.name)
        if not isinstance(shape, tuple):
            raise TypeError("For shape, input type must be a tuple.")
        p = self._call_params(args, kwargs)
        batch = np.broadcast_shapes(*[t.shape for t in p]) if p else ()
        return self._sample(tuple(shape) + tuple(batch), *p)

    def get_dist_args(self, *args, **kwargs):
        if self._TYPE is None:
            not_implemented("get_dist_args", self.name)
        return tuple(self._call_params(args, kwargs))

    def get_dist_type(self):
        if self._TYPE is None:
            not_implemented("get_dist_type", self.name)
        return self._TYPE

    def _next_key(self):
        return self._rng.next()

    def construct(self, name, *args, **kwargs):
        if name not in _METHODS:
            not_implemented(name, self.name)
        return getattr(self, name)(*args, **kwargs)


def positive(value, message: str):
    """2.10's construction check: every given value > 0, else ValueError(message)."""
    if value is not None and not np.all(value > 0):
        raise ValueError(message)


def probabilities(value):
    if value is not None:
        if not np.all(value > 0):
            raise ValueError("Probabilities must be greater than zero")
        if not np.all(value < 1):
            raise ValueError("Probabilities must be less than one")


def not_scalar(value, name: str):
    """Beta, Gamma and Poisson refuse Python numbers as parameters in 2.10."""
    if isinstance(value, numbers.Number):
        raise TypeError(f"Input {name} can't be scalar")

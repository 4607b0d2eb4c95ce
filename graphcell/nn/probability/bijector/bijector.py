"""MindSpore 2.10's bijectors as Cells: Bijector (the base), Exp, PowerTransform, ScalarAffine,
Softplus, GumbelCDF and Invert, with 2.10's values, names, reprs and argument errors (measured).
Each defines forward, inverse and the log-Jacobians of both; a Bijector is also called by
method name, `b('forward', x)`."""
from __future__ import annotations

import numbers

import numpy as np

from .... import dtype as mstype
from .... import ops as F
from ....tensor import Tensor
from ...cell import Cell
from .._utils import FLOAT_TYPES, _type_list, host_value, shown

_METHODS = ("forward", "inverse", "forward_log_jacobian", "inverse_log_jacobian")


class Bijector(Cell):
    """Base class: subclasses define _forward, _inverse, _forward_log_jacobian and
    _inverse_log_jacobian on float Tensors."""

    def __init__(self, is_constant_jacobian=False, is_injective=True, name=None, dtype=None, param=None):
        super().__init__()
        self._name = name
        self._dtype = dtype
        self._is_constant_jacobian = is_constant_jacobian
        self._is_injective = is_injective
        self._parameters = dict(param or {})
        self._host = {}

    name = property(lambda self: self._name)
    dtype = property(lambda self: self._dtype)
    parameters = property(lambda self: self._parameters)
    is_constant_jacobian = property(lambda self: self._is_constant_jacobian)
    is_injective = property(lambda self: self._is_injective)

    def _store(self, **values):
        """Numbers or Tensors as float32 Tensors; a Tensor or array must be of a float type."""
        for key, value in values.items():
            if isinstance(value, Tensor) and value.dtype not in FLOAT_TYPES or (
                    isinstance(value, numbers.Integral) and not isinstance(value, bool)):
                got = value.dtype if isinstance(value, Tensor) else mstype.int64
                raise TypeError(f"For '{type(self).__name__}', the 'dtype of {key}' should be one of "
                                f"{_type_list(FLOAT_TYPES)}, but got 'mindspore.{str(got).lower()}'.")
            self._host[key] = host_value(value)
            setattr(self, "_" + key, Tensor(self._host[key]))

    def _repr_params(self, keys) -> str:
        if all(self._host[k].ndim == 0 for k in keys):
            return ", ".join(f"{k} = {shown(self._host[k])}" for k in keys)
        shapes = [self._host[k].shape for k in keys]
        return f"batch_shape = {tuple(np.broadcast_shapes(*shapes))}"

    @staticmethod
    def _check(value):
        if not isinstance(value, Tensor):
            raise TypeError("For input value of bijector, input type must be a Tensor or Parameter.")
        if value.dtype not in FLOAT_TYPES:
            raise TypeError(f"For input value of bijector , the type must be or be subclass of Float, but got "
                            f"{value.dtype}")
        return value

    def forward(self, value, *args, **kwargs):
        return self._forward(self._check(value), *args, **kwargs)

    def inverse(self, value, *args, **kwargs):
        return self._inverse(self._check(value), *args, **kwargs)

    def forward_log_jacobian(self, value, *args, **kwargs):
        return self._forward_log_jacobian(self._check(value), *args, **kwargs)

    def inverse_log_jacobian(self, value, *args, **kwargs):
        return self._inverse_log_jacobian(self._check(value), *args, **kwargs)

    def construct(self, name, *args, **kwargs):
        if name not in _METHODS:
            raise NotImplementedError(f"{name} is not implemented for {self.name} bijector.")
        return getattr(self, name)(*args, **kwargs)


class PowerTransform(Bijector):
    """y = (1 + c x)^(1/c), and y = exp(x) at c = 0."""

    def __init__(self, power=0.0, name="PowerTransform"):
        super().__init__(name=name, param=dict(power=power))
        self._store(power=power)
        if not np.all(self._host["power"] >= 0):
            raise ValueError("Power must be greater than or equal to zero.")

    def extend_repr(self):
        return self._repr_params(("power",))

    def _zero(self):
        return F.equal(self._power, 0.0)

    def _forward(self, x):
        c = self._power
        safe_c = F.where(self._zero(), 1.0, c)
        return F.where(self._zero(), F.exp(x), F.exp(F.log1p(x * safe_c) / safe_c))

    def _inverse(self, y):
        c = self._power
        safe_c = F.where(self._zero(), 1.0, c)
        return F.where(self._zero(), F.log(y), F.expm1(F.log(y) * safe_c) / safe_c)

    def _forward_log_jacobian(self, x):
        c = self._power
        safe_c = F.where(self._zero(), 1.0, c)
        return F.where(self._zero(), x, (1.0 / safe_c - 1.0) * F.log1p(x * safe_c))

    def _inverse_log_jacobian(self, y):
        return (self._power - 1.0) * F.log(y)


class Exp(PowerTransform):
    """y = exp(x)."""

    def __init__(self, name="Exp"):
        super().__init__(0.0, name=name)

    def extend_repr(self):
        return "exp"

    def _forward(self, x):
        return F.exp(x)

    def _inverse(self, y):
        return F.log(y)

    def _forward_log_jacobian(self, x):
        return x

    def _inverse_log_jacobian(self, y):
        return -F.log(y)


class ScalarAffine(Bijector):
    """y = scale * x + shift; its log-Jacobians are constants of scale's shape (2.10's)."""

    def __init__(self, scale=1.0, shift=0.0, name="ScalarAffine"):
        super().__init__(is_constant_jacobian=True, name=name, param=dict(scale=scale, shift=shift))
        self._store(scale=scale, shift=shift)

    def extend_repr(self):
        return self._repr_params(("scale", "shift"))

    def _forward(self, x):
        return self._scale * x + self._shift

    def _inverse(self, y):
        return (y - self._shift) / self._scale

    def _forward_log_jacobian(self, x):
        return F.log(F.abs(self._scale))

    def _inverse_log_jacobian(self, y):
        return -F.log(F.abs(self._scale))


class Softplus(Bijector):
    """y = log(1 + exp(k x)) / k, k the sharpness."""

    def __init__(self, sharpness=1.0, name="Softplus"):
        super().__init__(name=name, param=dict(sharpness=sharpness))
        self._store(sharpness=sharpness)

    def extend_repr(self):
        return self._repr_params(("sharpness",))

    def _forward(self, x):
        return F.softplus(self._sharpness * x) / self._sharpness

    def _inverse(self, y):
        ky = self._sharpness * y
        return F.log(F.expm1(ky)) / self._sharpness

    def _forward_log_jacobian(self, x):
        return F.logsigmoid(self._sharpness * x)

    def _inverse_log_jacobian(self, y):
        ky = self._sharpness * y
        return ky - F.log(F.expm1(ky))


class GumbelCDF(Bijector):
    """y = exp(-exp(-(x - loc) / scale)), the Gumbel distribution's cdf."""

    def __init__(self, loc=0.0, scale=1.0, name="GumbelCDF"):
        super().__init__(name=name, param=dict(loc=loc, scale=scale))
        self._store(loc=loc, scale=scale)
        if not np.all(self._host["scale"] > 0):
            raise ValueError("scale must be greater than zero.")

    def extend_repr(self):
        return self._repr_params(("loc", "scale"))

    def _forward(self, x):
        return F.exp(-F.exp(-(x - self._loc) / self._scale))

    def _inverse(self, y):
        return self._loc - self._scale * F.log(-F.log(y))

    def _forward_log_jacobian(self, x):
        z = (x - self._loc) / self._scale
        return -z - F.exp(-z) - F.log(self._scale)

    def _inverse_log_jacobian(self, y):
        return F.log(self._scale / (-y * F.log(y)))


class Invert(Bijector):
    """The inverse of `bijector`: forward is its inverse, and so on; named 'Invert' + its name."""

    def __init__(self, bijector, name=""):
        if not isinstance(bijector, Bijector):
            raise TypeError(f"For 'Invert', the type of 'bijector' should be 'Bijector', but got type "
                            f"'{type(bijector).__name__}'.")
        super().__init__(is_constant_jacobian=bijector.is_constant_jacobian, is_injective=bijector.is_injective,
                         name=name or "Invert" + bijector.name, dtype=bijector.dtype, param=dict(bijector=bijector))
        self._bijector = bijector

    @property
    def bijector(self):
        return self._bijector

    def forward(self, value, *args, **kwargs):
        return self._bijector.inverse(value, *args, **kwargs)

    def inverse(self, value, *args, **kwargs):
        return self._bijector.forward(value, *args, **kwargs)

    def forward_log_jacobian(self, value, *args, **kwargs):
        return self._bijector.inverse_log_jacobian(value, *args, **kwargs)

    def inverse_log_jacobian(self, value, *args, **kwargs):
        return self._bijector.forward_log_jacobian(value, *args, **kwargs)

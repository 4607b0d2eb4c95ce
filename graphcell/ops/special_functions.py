"""MindSpore 2.10's Bessel functions, i0, the incomplete gamma functions igamma/igammac, Hurwitz's
zeta and the multivariate log-gamma mvlgamma, over the primitives in ops/bessel.py and
ops/igamma_zeta.py. Their dtypes and messages are 2.10's, measured: the Bessel functions take
float16, float32 and float64 (float16 computed in float64 and rounded back), the others float32
and float64 only, and both operands of a two-argument one must have the same dtype.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from . import bessel, igamma_zeta
from . import functional as F
from . import special

__all__ = ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "bessel_j0", "bessel_j1", "bessel_k0",
           "bessel_k0e", "bessel_k1", "bessel_k1e", "bessel_y0", "bessel_y1", "i0", "igamma", "igammac", "zeta",
           "mvlgamma"]

_HALF_TO_DOUBLE = (mstype.float16, mstype.float32, mstype.float64)
_SINGLE_AND_DOUBLE = (mstype.float32, mstype.float64)


def _check_dtype(x: Tensor, allowed, primitive: str, argument: str) -> Tensor:
    if x.dtype not in allowed:
        names = ", ".join(f"Tensor[{d}]" for d in allowed)
        raise TypeError(f"For primitive[{primitive}], the input argument[{argument}] must be a type of {{{names}}}, "
                        f"but got Tensor[{x.dtype}].")
    return x


def _bessel(name: str, primitive: str, argument: str = "x"):
    prim = bessel.PRIMS[name]

    def fn(x):
        """MindSpore 2.10's `ops.{name}`: float16/32/64, computed in float64."""
        return prim.bind(_check_dtype(F.as_tensor(x), _HALF_TO_DOUBLE, primitive, argument))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = fn.__doc__.format(name=name)
    return fn


bessel_i0 = _bessel("bessel_i0", "BesselI0")
bessel_i0e = _bessel("bessel_i0e", "BesselI0e", "input_x")
bessel_i1 = _bessel("bessel_i1", "BesselI1")
bessel_i1e = _bessel("bessel_i1e", "BesselI1e", "input_x")
bessel_j0 = _bessel("bessel_j0", "BesselJ0")
bessel_j1 = _bessel("bessel_j1", "BesselJ1")
bessel_k0 = _bessel("bessel_k0", "BesselK0")
bessel_k0e = _bessel("bessel_k0e", "BesselK0e")
bessel_k1 = _bessel("bessel_k1", "BesselK1")
bessel_k1e = _bessel("bessel_k1e", "BesselK1e")
bessel_y0 = _bessel("bessel_y0", "BesselY0")
bessel_y1 = _bessel("bessel_y1", "BesselY1")


def i0(input):  # noqa: A002
    """The modified Bessel function I0 (`bessel_i0`)."""
    return bessel.bessel_i0.bind(_check_dtype(F.as_tensor(input), _HALF_TO_DOUBLE, "BesselI0", "x"))


def _same_float_pair(a, b, primitive: str, names: tuple[str, str]) -> tuple[Tensor, Tensor]:
    a, b = F.as_tensor(a), F.as_tensor(b)
    _check_dtype(a, _SINGLE_AND_DOUBLE, primitive, names[0])
    _check_dtype(b, _SINGLE_AND_DOUBLE, primitive, names[1])
    if a.dtype is not b.dtype:
        raise TypeError(f"For primitive[{primitive}], the input type must be same. name:[{names[0]}]:"
                        f"Tensor[{a.dtype}]. name:[{names[1]}]:Tensor[{b.dtype}].")
    return a, b


def igamma(input, other):  # noqa: A002
    """The regularized lower incomplete gamma function P(input, other) (broadcasting)."""
    return igamma_zeta.igamma.bind(*_same_float_pair(input, other, "Igamma", ("a", "x")), upper=False)


def igammac(input, other):  # noqa: A002
    """The regularized upper incomplete gamma function Q(input, other) = 1 - P."""
    return igamma_zeta.igamma.bind(*_same_float_pair(input, other, "Igammac", ("a", "x")), upper=True)


def zeta(input, other):  # noqa: A002
    """Hurwitz's zeta function, sum over k >= 0 of (other + k)^-input. MindSpore 2.10's
    gradient with respect to `input` is 0, and so is graphcell's."""
    return igamma_zeta.zeta.bind(*_same_float_pair(input, other, "Zeta", ("x", "q")))


def mvlgamma(input, p):  # noqa: A002
    """The multivariate log-gamma function of dimension p, p(p-1)/4 log(pi) + sum over
    j < p of lgamma(input - j/2). MindSpore 2.10 needs every element above (p - 1)/2; eagerly
    graphcell checks it as 2.10 does, in a traced graph such elements give NaN."""
    if isinstance(p, bool) or not isinstance(p, numbers.Integral) or p <= 0:
        raise ValueError(f"For 'Mvlgamma', the 'p' must be int and must > 0, but got '{p}' with type "
                         f"'{type(p).__name__}'.")
    x = _check_dtype(F.as_tensor(input), _SINGLE_AND_DOUBLE, "Mvlgamma", "x")
    if not x.is_symbolic and not bool(np.all(x.asnumpy() > (p - 1) / 2)):
        raise ValueError("For Mvlgamma, all elements of 'x' must be greater than (p-1)/2.")
    total = special.lgamma.bind(x)
    for j in range(1, p):
        total = F.add(total, special.lgamma.bind(F.sub(x, j / 2)))
    total = F.add(total, p * (p - 1) / 4 * math.log(math.pi))
    return F.select(F.greater(x, (p - 1) / 2), total, F.full_like(total, math.nan))

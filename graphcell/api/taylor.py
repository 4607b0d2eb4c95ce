"""MindSpore 2.10's higher-order forward derivatives: `jet`, `derivative` and `linearize`,
built on graphcell's `jvp` (itself reverse over reverse).

    jet(fn, primals, series)      -> (fn(primals), out_series)
    derivative(fn, primals, order) -> (fn(primals), the order-th derivative along ones)
    linearize(fn, inputs)          -> (fn(inputs), jvp_fn)

`series[k-1]` is the k-th derivative coefficient of the input path
x(t) = x0 + sum_k series[k-1] t^k / k!, and `out_series[k-1]` the k-th derivative of fn(x(t))
at t = 0: jax.experimental.jet's convention, which 2.10 follows (measured: sin(x) * exp(x) at
[0.5, 1.0] with series [[1, .5], [0, 2], [.3, .1]] gives [[2.2373283, 1.8780231],
[2.8937783, 8.246439], [1.9840987, 8.983096]]). The k-th term is k nested jvps along the scalar
t, so the cost grows quickly with the order: meant for low orders, as in 2.10's examples.
"""
from __future__ import annotations

import math

from ..ops import functional as F
from ..tensor import Tensor
from .jacobian import jvp


def _path(primals: tuple, series: tuple, t):
    """x(t) for each primal: x0 + sum_k s_k t^k / k!."""
    out = []
    for x0, s in zip(primals, series):
        x = x0
        for k in range(s.shape[0]):
            x = F.add(x, F.mul(s[k], F.mul(F.pow(t, k + 1), 1.0 / math.factorial(k + 1))))
        out.append(x)
    return tuple(out)


def _taylor(fn, primals: tuple, series: tuple, order: int):
    def along(t):
        return fn(*_path(primals, series, t))

    derivatives, level = [], along
    for _ in range(order):
        level = (lambda g: lambda t: jvp(g, t, F.ones_like(t))[1])(level)
        derivatives.append(level)
    t0 = Tensor(0.0, primals[0].dtype)
    return fn(*primals), [d(t0) for d in derivatives]


def jet(fn, primals, series):
    """(fn(primals), out_series): `series` has the input path's derivative coefficients stacked
    on a first axis of length `order` (a tuple of them for several primals)."""
    several = isinstance(primals, (tuple, list))
    primals = tuple(primals) if several else (primals,)
    series = tuple(series) if several else (series,)
    if len(series) != len(primals):
        raise ValueError(f"For `F.jet`, 'series' has {len(series)} entries for {len(primals)} primals")
    orders = {int(s.shape[0]) for s in series}
    if len(orders) != 1:
        raise ValueError("For `F.jet`, every series must have the same order (first axis)")
    out, terms = _taylor(fn, primals, series, orders.pop())
    return out, F.stack(terms)


def derivative(fn, primals, order):
    """(fn(primals), the order-th derivative of fn(x + t) at t = 0, per element)."""
    if not isinstance(order, int) or order < 1:
        raise ValueError(f"For `F.derivative`, value of order should not be less than 1, but got {order}.")
    several = isinstance(primals, (tuple, list))
    primals = tuple(primals) if several else (primals,)
    for p in primals:
        if not isinstance(p, Tensor):
            raise TypeError("For Primitive[Dtype], the input argument[input_x] must be a Tensor, CSRTensor or "
                            f"COOTensor, but got {type(p)}.")
    series = tuple(F.concat((F.expand_dims(F.ones_like(p), 0), F.zeros((order - 1,) + tuple(p.shape), p.dtype)), 0)
                   for p in primals)
    out, terms = _taylor(fn, primals, series, order)
    return out, terms[-1]


def linearize(fn, inputs):
    """(fn(inputs), jvp_fn): jvp_fn(v) is the derivative of fn at inputs along v."""
    several = isinstance(inputs, (tuple, list))
    inputs = tuple(inputs) if several else inputs
    output = fn(*inputs) if several else fn(inputs)

    def jvp_fn(v):
        return jvp(lambda *xs: fn(*xs), inputs, v)[1]

    return output, jvp_fn

"""The Bessel functions' primitives: bessel_i0, i0e, i1, i1e, j0, j1, k0, k0e, k1, k1e, y0, y1.

Their jax lowering and their ONNX rules (compiler/onnx_bessel.py) evaluate the same float64
formulas (ops/bessel_series.py), so XLA and onnxruntime agree to float64 rounding. Edge values
are MindSpore 2.10's, measured: i0, i1, j0, j1, y0 and y1 are NaN at +-inf (exp(inf) times 0,
and cos(inf)); k0, k0e, k1 and k1e are +inf at x <= 0; y0 is -inf at x <= 0, y1 -inf below
0 and NaN at +-0.

Gradients are the recurrences, each written with the other primitives:
i0' = i1, i1' = i0 - i1/x, i0e' = i1e - sign(x) i0e, i1e' = i0e - i1e (sign(x) + 1/x),
j0' = -j1, j1' = j0 - j1/x, y0' = -y1, y1' = y0 - y1/x, k0' = -k1, k1' = -k0 - k1/x,
k0e' = k0e - k1e, k1e' = k1e - k0e - k1e/x; at x = 0 the limits 1/2 (i1, i1e, j1). (2.10 gives
1 for i1'(0), which is 1/2.)
"""
from __future__ import annotations

import jax.numpy as jnp

from . import bessel_series
from .ad_util import F
from .elementwise import unary

_JAX = bessel_series.JaxMath()


def _in_float64(formula):
    def impl(x):
        return formula(_JAX, x.astype(jnp.float64)).astype(x.dtype)
    return impl


PRIMS = {name: unary(name, _in_float64(formula), floats_only=True)
         for name, formula in bessel_series.FORMULAS.items()}
(bessel_i0, bessel_i0e, bessel_i1, bessel_i1e, bessel_j0, bessel_j1, bessel_k0, bessel_k0e, bessel_k1, bessel_k1e,
 bessel_y0, bessel_y1) = PRIMS.values()


def _over_x(value, x, at_zero: float):
    """value / x, with `at_zero` (the limit) where x is 0."""
    zero = F.equal(x, 0.0)
    safe = F.select(zero, F.ones_like(x), x)
    return F.select(zero, F.full_like(x, at_zero), F.div(value, safe))


def _derivatives(x, out):
    """name -> (a function giving d out / dx) for each primitive."""
    return {
        "bessel_i0": lambda: bessel_i1.bind(x),
        "bessel_i1": lambda: F.sub(bessel_i0.bind(x), _over_x(out, x, 0.5)),
        "bessel_i0e": lambda: F.sub(bessel_i1e.bind(x), F.mul(F.sign(x), out)),
        "bessel_i1e": lambda: F.sub(F.sub(bessel_i0e.bind(x), F.mul(F.sign(x), out)), _over_x(out, x, 0.5)),
        "bessel_j0": lambda: F.neg(bessel_j1.bind(x)),
        "bessel_j1": lambda: F.sub(bessel_j0.bind(x), _over_x(out, x, 0.5)),
        "bessel_y0": lambda: F.neg(bessel_y1.bind(x)),
        "bessel_y1": lambda: F.sub(bessel_y0.bind(x), F.div(out, x)),
        "bessel_k0": lambda: F.neg(bessel_k1.bind(x)),
        "bessel_k1": lambda: F.neg(F.add(bessel_k0.bind(x), F.div(out, x))),
        "bessel_k0e": lambda: F.sub(out, bessel_k1e.bind(x)),
        "bessel_k1e": lambda: F.sub(F.sub(out, bessel_k0e.bind(x)), F.div(out, x)),
    }


def _vjp_rule(name):
    def rule(ctx, cts, primals, outs):
        return (F.mul(cts[0], _derivatives(primals[0], outs[0])[name]()),)
    return rule


for _name, _prim in PRIMS.items():
    _prim.def_vjp(_vjp_rule(_name))

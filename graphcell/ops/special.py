"""The gamma family's primitives: lgamma, digamma and polygamma ({n=k}, the k-th derivative of
digamma; n=0 is digamma itself).

Their jax lowering is jax's own (lax.lgamma, lax.digamma, jax.scipy.special.polygamma), with
MindSpore 2.10's values where jax has none (measured; torch gives the same): digamma(+-0) is
-+inf (the pole's two sides), and polygamma(n >= 1) is +inf (n odd) or -inf (n even) at the
poles 0, -1, -2, ... and at -inf, NaN at +inf. jax's polygamma is wrong for negative x (0.0099
for polygamma(1, -100.5), which is 9.86), so it is taken there by reflection:

    polygamma(n, x) = (-1)^n polygamma(n, 1 - x) - pi^(n+1) P_n(cot(pi x))

where P_n is the polynomial with d^n/dz^n cot(z) = P_n(cot z) (P_0(c) = c, P_{k+1} = -(1 + c^2)
P_k'). cot(pi x) is computed from r = x - round(x), exactly reduced, as sin(pi (1/2 - |r|)) /
sin(pi r): exactly 0 at the half-integers, where P_n's constant-free terms then vanish.

ONNX has none of the three: compiler/onnx_special.py writes them out (Lanczos, and the
recurrence with an asymptotic series) in float64. Gradients: lgamma' = digamma, digamma' =
polygamma(1, .), polygamma(n, .)' = polygamma(n + 1, .).
"""
from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import jax.scipy.special as jsp

from .ad_util import F
from .elementwise import unary


def cot_derivative_polynomial(n: int) -> list[int]:
    """Integer coefficients (constant first) of P_n, with d^n/dz^n cot(z) = P_n(cot z)."""
    p = [0, 1]
    for _ in range(n):
        derivative = [i * c for i, c in enumerate(p)][1:]
        p = [0] * (len(derivative) + 2)
        for i, c in enumerate(derivative):   # times -(1 + c^2)
            p[i] -= c
            p[i + 2] -= c
    return p


def _in_float32(fn):
    """fn computed in float32 for half-precision inputs (jax's special functions want >= 32 bits)."""
    def wrapped(x, **attrs):
        if x.dtype in (jnp.float16, jnp.bfloat16):
            return fn(x.astype(jnp.float32), **attrs).astype(x.dtype)
        return fn(x, **attrs)
    return wrapped


def _digamma(x):
    at_zero = jnp.where(jnp.signbit(x), jnp.inf, -jnp.inf).astype(x.dtype)
    return jnp.where(x == 0, at_zero, jax.lax.digamma(x))


def _polygamma(x, *, n):
    if n == 0:
        return _digamma(x)
    dtype = x.dtype
    negative = x < 0
    reflected = jsp.polygamma(jnp.asarray(n, jnp.int32), jnp.where(negative, 1 - x, x))
    r = x - jnp.round(x)
    cot = jnp.sin(jnp.pi * (0.5 - jnp.abs(r))) / jnp.sin(jnp.pi * r)
    p = jnp.zeros_like(x)
    for c in reversed(cot_derivative_polynomial(n)):   # Horner
        p = p * cot + c
    out = jnp.where(negative, (-1) ** n * reflected - math.pi ** (n + 1) * p, reflected)
    pole = ((x <= 0) & (r == 0)) | (x == -jnp.inf)
    out = jnp.where(pole, jnp.asarray((-1) ** (n + 1) * math.inf, dtype), out)
    return jnp.where(x == jnp.inf, jnp.asarray(math.nan, dtype), out)


lgamma = unary("lgamma", _in_float32(jax.lax.lgamma), floats_only=True)
digamma = unary("digamma", _in_float32(_digamma), floats_only=True)
polygamma = unary("polygamma", _in_float32(_polygamma), floats_only=True)


@lgamma.def_vjp
def _lgamma_vjp(ctx, cts, primals, outs):
    return (F.mul(cts[0], digamma.bind(primals[0])),)


@digamma.def_vjp
def _digamma_vjp(ctx, cts, primals, outs):
    return (F.mul(cts[0], polygamma.bind(primals[0], n=1)),)


@polygamma.def_vjp
def _polygamma_vjp(ctx, cts, primals, outs, *, n):
    return (F.mul(cts[0], polygamma.bind(primals[0], n=n + 1)),)

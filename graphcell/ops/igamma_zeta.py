"""The regularized incomplete gamma functions igamma(a, x) = P(a, x) and igammac(a, x) =
Q(a, x), and Hurwitz's zeta(s, q) = sum_k (q + k)^-s: primitives on jax's functions, computed
in float64, with MindSpore 2.10's edge values (measured):

- igamma: at a = 0, 0 where x = 0, else NaN; NaN at a = x = +inf (jax: 1 and 1).
- igammac (igamma with upper=True): NaN at a = 0 and at x = +inf (jax: 0).
- zeta at s = +inf: +inf for q < 1, 1 at q = 1, 0 above; 0 at q = +inf (jax: NaN).

Gradients: d/dx P = exp(-x) x^(a-1) / gamma(a) and d/da P = igamma_grad_a (jax's
igamma_grad_a, a primitive of its own, with no second derivative); Q's are their negatives.
zeta's d/dq = -s zeta(s + 1, q), and its d/ds is 0, as MindSpore 2.10's (measured; jax has none).
Their ONNX forms (compiler/onnx_igamma_zeta.py) run the same algorithms as XLA, in float64:
Loops over jax's series and continued fraction, XLA's unrolled Euler-Maclaurin sum for zeta.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import jax.scipy.special as jsp

from .ad_util import F, unbroadcast
from ..ir.core import TensorType
from . import batching, special
from .elementwise import binary
from .primitive import Primitive


def _in_float64(fn):
    def impl(a, x, **attrs):
        a64, x64 = jnp.broadcast_arrays(a.astype(jnp.float64), x.astype(jnp.float64))
        return fn(a64, x64, **attrs).astype(a.dtype)
    return impl


def _igamma(a, x, *, upper: bool):
    if upper:
        return _igammac(a, x)
    out = jnp.where((a == jnp.inf) & (x == jnp.inf), jnp.nan, jsp.gammainc(a, x))
    return jnp.where(a == 0, jnp.where(x == 0, 0.0, jnp.nan), out)


def _igammac(a, x):
    return jnp.where((a == 0) | (x == jnp.inf), jnp.nan, jsp.gammaincc(a, x))


def _zeta(s, q):
    at_inf_s = jnp.where(q < 1, jnp.inf, jnp.where(q == 1, 1.0, 0.0))
    out = jnp.where(s == jnp.inf, at_inf_s, jsp.zeta(s, q))
    return jnp.where((q == jnp.inf) & (s > 1), 0.0, out)




def _igamma_rule(a: TensorType, x: TensorType, *, upper: bool) -> TensorType:
    return zeta.shape_rule(a, x)   # the same checks: one float dtype, broadcast shapes


# one primitive for P and Q (`upper`): XLA takes seconds to compile each of jax's series
igamma = Primitive("igamma", _igamma_rule, _in_float64(_igamma))
igamma.def_batch(batching.broadcasting(igamma))
igamma_grad_a = binary("igamma_grad_a", _in_float64(jax.lax.igamma_grad_a), floats_only=True)
zeta = binary("zeta", _in_float64(_zeta), floats_only=True)


def _igamma_cotangents(ctx, ct, a, x, sign: float):
    out = []
    if ctx.needs[0]:
        out.append(unbroadcast(F.mul(ct, F.mul(igamma_grad_a.bind(a, x), sign)), a.shape))
    else:
        out.append(None)
    if ctx.needs[1]:
        # exp(-x + (a - 1) log x - lgamma(a))
        log_density = F.sub(F.sub(F.mul(F.sub(a, 1.0), F.log(x)), x), special.lgamma.bind(a))
        out.append(unbroadcast(F.mul(ct, F.mul(F.exp(log_density), sign)), x.shape))
    else:
        out.append(None)
    return tuple(out)


@igamma.def_vjp
def _igamma_vjp(ctx, cts, primals, outs, *, upper):
    return _igamma_cotangents(ctx, cts[0], *primals, -1.0 if upper else 1.0)


@igamma_grad_a.def_vjp
def _igamma_grad_a_vjp(ctx, cts, primals, outs):
    raise NotImplementedError("igamma: a second derivative with respect to its first argument (a) is not "
                              "supported (jax has none either)")


@zeta.def_vjp
def _zeta_vjp(ctx, cts, primals, outs):
    (s, q), (ct,) = primals, cts
    dq = F.neg(F.mul(s, zeta.bind(F.add(s, 1.0), q))) if ctx.needs[1] else None
    return F.zeros_like(s) if ctx.needs[0] else None, None if dq is None else unbroadcast(F.mul(ct, dq), q.shape)


"""ONNX rules for the gamma family (ops/special.py): lgamma, digamma and polygamma, which ONNX
lacks, written out in elementwise ops and computed in float64 (float16 and float32 operands
are cast up and the result back: accurate to the last bit or two of float32; about 1e-15
relative in float64).

- lgamma: Lanczos' approximation (g = 7, 9 terms) for x >= 1/2, and the reflection
  lgamma(x) = log(pi / |sin(pi x)|) - lgamma(1 - x) below.
- polygamma(n, .) (digamma is n = 0) for x >= 0: the recurrence to z = x + K, K = 8 + 2n,
  polygamma(n, x) = polygamma(n, z) + (-1)^(n+1) n! sum_j<K (x + j)^-(n+1), and the asymptotic
  series at z (8 Bernoulli terms); below 0 the reflection in ops/special.py.
The sines take r = x - round(x), exactly reduced, so poles far from 0 stay poles. The edge
values are ops/special.py's (MindSpore 2.10's).
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ..dtype import float64
from ..ops.special import cot_derivative_polynomial
from .onnx import onnx_dtype

# Lanczos' coefficients for g = 7, 9 terms (relative error ~1e-15 for x >= 1/2).
LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
           12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7)
LANCZOS_G = 7.0
# Bernoulli numbers B_2, B_4, ..., B_16.
BERNOULLI = (Fraction(1, 6), Fraction(-1, 30), Fraction(1, 42), Fraction(-1, 30), Fraction(5, 66),
             Fraction(-691, 2730), Fraction(7, 6), Fraction(-3617, 510))


def in_float64(rule):
    """`rule(ctx, *xs, **attrs)` on its operands cast to float64, the result cast back."""
    def wrapped(ctx, *xs, **attrs):
        src = ctx.in_types[0].dtype
        if src is float64:
            return rule(ctx, *xs, **attrs)
        out = rule(ctx, *[ctx.op("Cast", x, to=onnx_dtype(float64)) for x in xs], **attrs)
        return ctx.op("Cast", out, to=onnx_dtype(src))
    return wrapped


class Float64Math:
    """Float64 constants and the few compound steps the rules share."""

    def __init__(self, ctx):
        self.ctx = ctx

    def c(self, value) -> str:
        return self.ctx.const(np.asarray(value, np.float64))

    def op(self, op_type, *args, **attrs):
        return self.ctx.op(op_type, *args, **attrs)

    def reduced(self, x):
        """r = x - round(x) in [-1/2, 1/2]: exact, so sin(pi r) = +-sin(pi x) without the
        rounding of pi x."""
        return self.op("Sub", x, self.op("Round", x))

    def sin_pi(self, r):
        return self.op("Sin", self.op("Mul", r, self.c(math.pi)))

    def cot_pi(self, r):
        """cot(pi r) as sin(pi (1/2 - |r|)) / sin(pi r): exactly 0 at |r| = 1/2."""
        return self.op("Div", self.sin_pi(self.op("Sub", self.c(0.5), self.op("Abs", r))), self.sin_pi(r))

    def horner(self, t, coefficients):
        """c0 + c1 t + c2 t^2 + ..."""
        while len(coefficients) > 1 and not coefficients[-1]:
            coefficients = coefficients[:-1]
        p = self.c(coefficients[-1])
        for c in reversed(coefficients[:-1]):
            p = self.op("Mul", p, t)
            if c:
                p = self.op("Add", p, self.c(c))
        return p

    def power(self, t, k: int):
        """t ** k (k >= 1) by squaring."""
        out, square = None, t
        while k:
            if k & 1:
                out = square if out is None else self.op("Mul", out, square)
            k >>= 1
            if k:
                square = self.op("Mul", square, square)
        return out

    def where(self, condition, a, b):
        return self.op("Where", condition, a, b)


def _lanczos(m: Float64Math, z):
    """lgamma(z) for z >= 1/2."""
    zm1 = m.op("Sub", z, m.c(1.0))
    series = m.c(LANCZOS[0])
    for k, coefficient in enumerate(LANCZOS[1:], 1):
        series = m.op("Add", series, m.op("Div", m.c(coefficient), m.op("Add", zm1, m.c(float(k)))))
    t = m.op("Add", zm1, m.c(LANCZOS_G + 0.5))
    power = m.op("Sub", m.op("Mul", m.op("Add", zm1, m.c(0.5)), m.op("Log", t)), t)
    return m.op("Add", m.op("Add", power, m.c(0.5 * math.log(2 * math.pi))), m.op("Log", series))


def lgamma_f64(m: Float64Math, x):
    """lgamma of a float64 value (rules already in float64 call it; `lgamma` is the rule)."""
    small = m.op("Less", x, m.c(0.5))
    lz = _lanczos(m, m.where(small, m.op("Sub", m.c(1.0), x), x))
    sine = m.op("Abs", m.sin_pi(m.reduced(x)))              # 0 at the poles: log(pi / 0) = inf
    reflected = m.op("Sub", m.op("Log", m.op("Div", m.c(math.pi), sine)), lz)
    out = m.where(small, reflected, lz)
    return m.where(m.op("IsInf", x), m.c(math.inf), out)    # +-inf: inf (Lanczos gives inf - inf)


@in_float64
def lgamma(ctx, x):
    return lgamma_f64(Float64Math(ctx), x)


def _positive_polygamma(m: Float64Math, w, n: int):
    """polygamma(n, w) for w >= 0 (-0.0 included: the terms use w itself, and 1 / -0.0 is
    -inf), by the recurrence to w + K and the asymptotic series there."""
    count = 8 + 2 * n
    z = m.op("Add", w, m.c(float(count)))
    iz = m.op("Reciprocal", z)
    terms = [m.op("Reciprocal", w)] + [m.op("Reciprocal", m.op("Add", w, m.c(float(j)))) for j in range(1, count)]
    if n == 0:   # log z - 1/(2z) - sum B_2k / (2k z^2k), then minus the sum of 1 / (w + j)
        coefficients = [0.0, 0.5]
        for k, b in enumerate(BERNOULLI, 1):     # the power 2k
            coefficients += [float(b / (2 * k)), 0.0]
        asymptotic = m.op("Sub", m.op("Log", z), m.horner(iz, coefficients))
        total = terms[0]
        for t in terms[1:]:
            total = m.op("Add", total, t)
        return m.op("Sub", asymptotic, total)
    # (-1)^(n+1) [ (n-1)!/z^n + n!/(2 z^(n+1)) + sum B_2k (2k+n-1)! / ((2k)! z^(2k+n)) ]
    coefficients = [float(math.factorial(n - 1)), math.factorial(n) / 2.0]
    for k, b in enumerate(BERNOULLI, 1):         # the power 2k, after the z^-n taken out
        coefficients += [float(b * math.factorial(2 * k + n - 1) / math.factorial(2 * k)), 0.0]
    asymptotic = m.op("Mul", m.power(iz, n), m.horner(iz, coefficients))
    total = m.power(terms[0], n + 1)
    for t in terms[1:]:
        total = m.op("Add", total, m.power(t, n + 1))
    out = m.op("Add", asymptotic, m.op("Mul", total, m.c(float(math.factorial(n)))))
    return out if n % 2 else m.op("Neg", out)


def polygamma_f64(m: Float64Math, x, n: int):
    """polygamma(n, .) of a float64 value (digamma: n = 0)."""
    negative = m.op("Less", x, m.c(0.0))
    base = _positive_polygamma(m, m.where(negative, m.op("Sub", m.c(1.0), x), x), n)
    r = m.reduced(x)
    cot_term = m.op("Mul", m.horner(m.cot_pi(r), [float(c) for c in cot_derivative_polynomial(n)]),
                    m.c(math.pi ** (n + 1)))
    mirrored = base if n % 2 == 0 else m.op("Neg", base)
    out = m.where(negative, m.op("Sub", mirrored, cot_term), base)
    if n == 0:   # the poles below 0 are NaN (+-0 and -inf come out of the formulas as they should)
        at_pole = m.op("And", negative, m.op("Equal", r, m.c(0.0)))
        return m.where(at_pole, m.c(math.nan), out)
    at_pole = m.op("Or", m.op("And", m.op("LessOrEqual", x, m.c(0.0)), m.op("Equal", r, m.c(0.0))),
                   m.op("Equal", x, m.c(-math.inf)))
    out = m.where(at_pole, m.c((-1) ** (n + 1) * math.inf), out)
    return m.where(m.op("Equal", x, m.c(math.inf)), m.c(math.nan), out)


@in_float64
def polygamma(ctx, x, *, n):
    return polygamma_f64(Float64Math(ctx), x, n)


def digamma(ctx, x):
    return polygamma(ctx, x, n=0)

"""ONNX rules for ops/igamma_zeta.py's primitives: igamma (P(a, x), or Q(a, x) with upper=True),
igamma_grad_a (dP/da) and Hurwitz's zeta(x, q). ONNX has none of them; each is written out
in float64 (float16 and float32 operands are cast up and the result back, as the primitives'
jax lowering does) with the algorithm XLA runs, so the two agree to float64 rounding:

- igamma, igammac, igamma_grad_a: jax's (jax/_src/lax/special.py) power series
  P = x^a e^-x / Gamma(a + 1) sum_n x^n / ((a + 1)...(a + n)) for x < 1 or x <= a, and
  Legendre's continued fraction for Q above, with the same selects at the edges. Each is an
  ONNX Loop over the whole tensor with jax's `enabled` mask: an element whose terms fell below
  float64's eps keeps its values, and the loop ends when none is left (the continued fraction
  after 2,000 steps at most, as jax's; the series needs about sqrt(74 a) steps, 270 at a = 1e3,
  and has no cap there either). igamma_grad_a carries the terms' derivatives in a alongside.
  About 160 nodes for P or Q, 340 for igamma_grad_a (Loop bodies included; lgamma and
  digamma are most of the rest); onnxruntime took about 3x XLA's time on 1e5 elements.
- zeta: XLA's fixed-count Euler-Maclaurin sum (its chlo decomposition): 10 terms of the
  series, then the tail's integral and 12 Bernoulli terms; unrolled (142 nodes).
Then ops/igamma_zeta.py's MindSpore 2.10 edge values on top.
"""
from __future__ import annotations

import math

import numpy as np
from onnx import TensorProto, helper

from .onnx import Sym
from .onnx_special import Float64Math, in_float64, lgamma_f64, polygamma_f64

EPS = float(np.finfo(np.float64).eps)
LOG_MAX = math.log(np.finfo(np.float64).max)   # ax below -LOG_MAX: P's factor underflows
CF_MAX_STEPS = 2000                            # jax's cap on the continued fraction
# XLA's Euler-Maclaurin coefficients for zeta: (2j)! / B_2j, highest j first.
ZETA_COEFFICIENTS = (-7.1661652561756670113e18, 1.8152105401943546773e17, -4.5979787224074726105e15,
                     1.1646782814350067249e14, -2.950130727918164224e12, 7.47242496e10,
                     -1.8924375803183791606e9, 47900160.0, -1209600.0, 30240.0, -720.0, 12.0)


class _BodyCtx:
    """The `op` / `const` of a LowerCtx, writing into a Loop body's builder."""

    def __init__(self, ctx, builder):
        self.ctx, self.b = ctx, builder

    def op(self, op_type, *inputs, n_out: int = 1, **attrs):
        return self.b.op(op_type, inputs, scope=self.ctx.scope, n_out=n_out, **attrs)

    def const(self, array, dtype=None):
        return self.b.const(np.asarray(array, dtype))


def _any(m: Float64Math, mask):
    """A 0-d bool: some entry of `mask` is set (False for an empty mask)."""
    count = m.op("ReduceSum", m.op("Cast", mask, to=TensorProto.INT64), keepdims=0)
    return m.op("Greater", count, m.ctx.const(np.asarray(0, np.int64)))


def _masked_loop(ctx, m: Float64Math, dims, states: dict, step, max_steps=None) -> dict:
    """jax's `while_loop` over elementwise float64 `states` with a bool state "enabled":
    `step(body_math, iteration, states)` returns the next mask and the updated states, which
    replace the old ones only where the mask was set; the loop runs while any entry is."""
    body = ctx.b.child()
    bm = Float64Math(_BodyCtx(ctx, body))
    iteration, condition = body.unique("iteration"), body.unique("condition")
    carried = {k: body.unique(k) for k in states}
    enabled, updated = step(bm, iteration, carried)
    outs = {k: bm.where(carried["enabled"], updated[k], carried[k]) for k in updated}
    outs["enabled"] = enabled
    again = _any(bm, enabled)
    shape = [str(d) if isinstance(d, Sym) else int(d) for d in dims]
    info = lambda name, k: helper.make_tensor_value_info(  # noqa: E731
        name, TensorProto.BOOL if k == "enabled" else TensorProto.DOUBLE, shape)
    graph = helper.make_graph(
        body.nodes, body.unique("body"),
        [helper.make_tensor_value_info(iteration, TensorProto.INT64, []),
         helper.make_tensor_value_info(condition, TensorProto.BOOL, [])] + [info(carried[k], k) for k in states],
        [helper.make_tensor_value_info(again, TensorProto.BOOL, [])] + [info(outs[k], k) for k in states])
    trip_count = "" if max_steps is None else ctx.const(np.asarray(max_steps, np.int64))
    finals = ctx.op("Loop", trip_count, _any(m, states["enabled"]), *states.values(), n_out=len(states), body=graph)
    return dict(zip(states, finals))


class _Igamma:
    """The shared pieces of jax's igamma, igammac and igamma_grad_a on broadcast float64 a, x."""

    def __init__(self, ctx, a, x):
        m = self.m = Float64Math(ctx)
        self.ctx, self.dims = ctx, ctx.out_dims[0]
        shape = ctx.shape_tensor(self.dims, minus_one=False)
        self.a, self.x = m.op("Expand", a, shape), m.op("Expand", x, shape)
        self.ones = m.op("Expand", m.c(1.0), shape)
        self.zeros = m.op("Expand", m.c(0.0), shape)
        a, x = self.a, self.x
        self.is_nan = m.op("Or", m.op("IsNaN", a), m.op("IsNaN", x))
        self.x_is_zero = m.op("Equal", x, m.c(0.0))
        self.a_is_zero = m.op("Equal", a, m.c(0.0))
        self.x_is_inf = m.op("Equal", x, m.c(math.inf))
        self.log_x = m.op("Log", x)
        # ax = x^a e^-x / Gamma(a), the factor both forms share
        log_ax = m.op("Sub", m.op("Sub", m.op("Mul", a, self.log_x), x), lgamma_f64(m, a))
        self.underflow = m.op("Less", log_ax, m.c(-LOG_MAX))
        self.ax = m.op("Exp", log_ax)

    def any_of(self, *masks):
        out = masks[0]
        for mask in masks[1:]:
            out = self.m.op("Or", out, mask)
        return out

    def domain_error(self):
        """x < 0, a < 0, a = x = 0 or a NaN (igamma's and igammac's)."""
        m, a, x = self.m, self.a, self.x
        both_zero = m.op("And", self.a_is_zero, self.x_is_zero)
        return self.any_of(m.op("Less", x, m.c(0.0)), m.op("Less", a, m.c(0.0)), both_zero, self.is_nan)

    def series(self, enabled, derivative: bool = False):
        """P(a, x) (or dP/da) by the power series, where `enabled`."""
        m, a, x = self.m, self.a, self.x
        states = {"enabled": enabled, "r": a, "c": self.ones, "ans": self.ones}
        if derivative:
            states.update(dc_da=self.zeros, dans_da=self.zeros)

        def step(bm, iteration, s):
            r = bm.op("Add", s["r"], bm.c(1.0))
            x_over_r = bm.op("Div", x, r)
            c = bm.op("Mul", s["c"], x_over_r)
            ans = bm.op("Add", s["ans"], c)
            new = {"r": r, "c": c, "ans": ans}
            if derivative:
                dc_da = bm.op("Sub", bm.op("Mul", s["dc_da"], x_over_r),
                              bm.op("Div", bm.op("Mul", s["c"], x), bm.op("Mul", r, r)))
                new.update(dc_da=dc_da, dans_da=bm.op("Add", s["dans_da"], dc_da))
                going = bm.op("Greater", bm.op("Abs", bm.op("Div", dc_da, new["dans_da"])), bm.c(EPS))
            else:
                going = bm.op("Greater", bm.op("Div", c, ans), bm.c(EPS))
            return bm.op("And", s["enabled"], going), new

        out = _masked_loop(self.ctx, m, self.dims, states, step)
        if not derivative:
            return m.op("Div", m.op("Mul", out["ans"], self.ax), a)
        dlogax_da = m.op("Sub", self.log_x, polygamma_f64(m, m.op("Add", a, m.c(1.0)), 0))
        total = m.op("Add", m.op("Mul", out["ans"], dlogax_da), out["dans_da"])
        return m.op("Div", m.op("Mul", self.ax, total), a)

    def continued_fraction(self, enabled, derivative: bool = False):
        """Q(a, x) (or dQ/da) by the continued fraction, where `enabled`."""
        m, a, x = self.m, self.a, self.x
        y = m.op("Sub", m.c(1.0), a)
        z = m.op("Add", m.op("Add", x, y), m.c(1.0))
        pkm1, qkm1 = m.op("Add", x, m.c(1.0)), m.op("Mul", z, x)
        ans = m.op("Div", pkm1, qkm1)
        states = {"enabled": enabled, "ans": ans, "y": y, "z": z, "pkm1": pkm1, "qkm1": qkm1,
                  "pkm2": self.ones, "qkm2": x}
        if derivative:
            dqkm1 = m.op("Neg", x)
            dans_da = m.op("Div", m.op("Sub", self.zeros, m.op("Mul", ans, dqkm1)), qkm1)
            states.update(dpkm1=self.zeros, dqkm1=dqkm1, dpkm2=self.zeros, dqkm2=self.zeros, dans_da=dans_da)

        def step(bm, iteration, s):
            c = bm.op("Add", bm.op("Cast", iteration, to=TensorProto.DOUBLE), bm.c(1.0))
            y, z = bm.op("Add", s["y"], bm.c(1.0)), bm.op("Add", s["z"], bm.c(2.0))
            yc = bm.op("Mul", y, c)

            def next_term(km1, km2):
                return bm.op("Sub", bm.op("Mul", km1, z), bm.op("Mul", km2, yc))

            pk, qk = next_term(s["pkm1"], s["pkm2"]), next_term(s["qkm1"], s["qkm2"])
            nonzero = bm.op("Not", bm.op("Equal", qk, bm.c(0.0)))
            ratio = bm.op("Div", pk, qk)
            change = bm.where(nonzero, bm.op("Abs", bm.op("Div", bm.op("Sub", s["ans"], ratio), ratio)), bm.c(1.0))
            ans = bm.where(nonzero, ratio, s["ans"])
            # past 1/eps all four are scaled by eps (the ratios stay)
            rescale = bm.op("Greater", bm.op("Abs", pk), bm.c(1.0 / EPS))

            def scaled(v):
                return bm.where(rescale, bm.op("Mul", v, bm.c(EPS)), v)

            new = {"ans": ans, "y": y, "z": z, "pkm1": scaled(pk), "qkm1": scaled(qk),
                   "pkm2": scaled(s["pkm1"]), "qkm2": scaled(s["qkm1"])}
            if not derivative:
                return bm.op("And", s["enabled"], bm.op("Greater", change, bm.c(EPS))), new

            def next_derivative(dkm1, dkm2, km1, km2):   # d/da of next_term (z and y c move with a)
                return bm.op("Add", bm.op("Sub", bm.op("Sub", bm.op("Mul", dkm1, z), km1), bm.op("Mul", dkm2, yc)),
                             bm.op("Mul", km2, c))

            dpk = next_derivative(s["dpkm1"], s["dpkm2"], s["pkm1"], s["pkm2"])
            dqk = next_derivative(s["dqkm1"], s["dqkm2"], s["qkm1"], s["qkm2"])
            dans_da = bm.where(nonzero, bm.op("Div", bm.op("Sub", dpk, bm.op("Mul", ans, dqk)), qk), s["dans_da"])
            grad_change = bm.where(nonzero, bm.op("Abs", bm.op("Sub", dans_da, s["dans_da"])), bm.c(1.0))
            new.update(dpkm1=scaled(dpk), dqkm1=scaled(dqk), dpkm2=scaled(s["dpkm1"]), dqkm2=scaled(s["dqkm1"]),
                       dans_da=dans_da)
            return bm.op("And", s["enabled"], bm.op("Greater", grad_change, bm.c(EPS))), new

        out = _masked_loop(self.ctx, m, self.dims, states, step, CF_MAX_STEPS)
        if not derivative:
            return m.op("Mul", out["ans"], self.ax)
        dlogax_da = m.op("Sub", self.log_x, polygamma_f64(m, a, 0))
        return m.op("Mul", self.ax, m.op("Add", m.op("Mul", out["ans"], dlogax_da), out["dans_da"]))


def _lower_p(g: _Igamma):
    """jax's igamma, then MindSpore's NaN at a = x = inf and at a = 0 < x."""
    m, a, x = g.m, g.a, g.x
    domain_error = g.domain_error()
    use_cf = m.op("And", m.op("GreaterOrEqual", x, m.c(1.0)), m.op("Greater", x, a))
    enabled = m.op("Not", g.any_of(g.x_is_zero, domain_error, g.underflow, g.x_is_inf))
    from_cf = m.op("Sub", m.c(1.0), g.continued_fraction(m.op("And", enabled, use_cf)))
    out = m.where(use_cf, from_cf, g.series(m.op("And", enabled, m.op("Not", use_cf))))
    out = m.where(g.x_is_zero, m.c(0.0), out)
    out = m.where(g.x_is_inf, m.c(1.0), out)
    out = m.where(domain_error, m.c(math.nan), out)
    a_is_inf = m.op("Equal", a, m.c(math.inf))
    out = m.where(m.op("And", a_is_inf, g.x_is_inf), m.c(math.nan), out)
    return m.where(g.a_is_zero, m.where(g.x_is_zero, m.c(0.0), m.c(math.nan)), out)


def _lower_q(g: _Igamma):
    """jax's igammac, then MindSpore's NaN at a = 0 and at x = inf."""
    m, a, x = g.m, g.a, g.x
    domain_error = g.domain_error()
    use_series = m.op("Or", m.op("Less", x, m.c(1.0)), m.op("Less", x, a))
    enabled = m.op("Not", g.any_of(domain_error, g.underflow, g.x_is_inf, g.a_is_zero))
    from_series = m.op("Sub", m.c(1.0), g.series(m.op("And", enabled, use_series)))
    out = m.where(use_series, from_series, g.continued_fraction(m.op("And", enabled, m.op("Not", use_series))))
    out = m.where(g.any_of(g.x_is_inf, g.a_is_zero), m.c(0.0), out)
    out = m.where(domain_error, m.c(math.nan), out)
    return m.where(g.any_of(g.a_is_zero, g.x_is_inf), m.c(math.nan), out)


@in_float64
def igamma(ctx, a, x, *, upper):
    g = _Igamma(ctx, a, x)
    return _lower_q(g) if upper else _lower_p(g)


@in_float64
def igamma_grad_a(ctx, a, x):
    """jax's igamma_grad_a: the series' and the continued fraction's derivatives in a."""
    g = _Igamma(ctx, a, x)
    m, a, x = g.m, g.a, g.x
    domain_error = m.op("Or", m.op("Less", x, m.c(0.0)), m.op("LessOrEqual", a, m.c(0.0)))
    use_cf = m.op("And", m.op("Greater", x, m.c(1.0)), m.op("Greater", x, a))
    enabled = m.op("Not", g.any_of(g.x_is_zero, domain_error, g.underflow, g.is_nan))
    from_cf = m.op("Neg", g.continued_fraction(m.op("And", enabled, use_cf), derivative=True))
    out = m.where(use_cf, from_cf, g.series(m.op("And", enabled, m.op("Not", use_cf)), derivative=True))
    out = m.where(g.x_is_zero, m.c(0.0), out)
    return m.where(m.op("Or", domain_error, g.is_nan), m.c(math.nan), out)


@in_float64
def zeta(ctx, x, q):
    """XLA's zeta(x, q), then ops/igamma_zeta.py's values at x = inf and q = inf."""
    m = Float64Math(ctx)
    neg_x = m.op("Neg", x)
    a, head = q, m.op("Pow", q, neg_x)
    for _ in range(9):
        a = m.op("Add", a, m.c(1.0))
        head = m.op("Add", head, m.op("Pow", a, neg_x))
    a = m.op("Add", a, m.c(1.0))
    neg_power = m.op("Pow", a, neg_x)
    s = m.op("Add", head, m.op("Div", m.op("Mul", neg_power, a), m.op("Sub", x, m.c(1.0))))
    inverse_square = m.op("Div", m.c(1.0), m.op("Mul", a, a))
    horner = m.c(0.0)
    for i, coefficient in enumerate(ZETA_COEFFICIENTS[:-1]):
        factor = m.op("Mul", m.op("Add", x, m.c(22.0 - 2 * i)), m.op("Add", x, m.c(21.0 - 2 * i)))
        horner = m.op("Mul", factor, m.op("Mul", inverse_square, m.op("Add", horner, m.c(1.0 / coefficient))))
    tail = m.op("Mul", m.op("Div", x, a), m.op("Add", m.c(1.0 / ZETA_COEFFICIENTS[-1]), horner))
    s = m.op("Add", s, m.op("Mul", neg_power, m.op("Add", m.c(0.5), tail)))
    # the head alone where the tail is below its last bit (XLA's test, with the smallest subnormal)
    negligible = m.op("Less", m.op("Abs", neg_power), m.op("Mul", m.op("Abs", head), m.c(5e-324)))
    out = m.where(negligible, head, s)
    out = m.where(m.op("Less", x, m.c(1.0)), m.c(math.nan), out)
    q_le_zero = m.op("LessOrEqual", q, m.c(0.0))
    x_is_int = m.op("Equal", x, m.op("Floor", x))
    out = m.where(m.op("And", q_le_zero, m.op("Not", x_is_int)), m.c(math.nan), out)
    # a pole at integer q <= 0: inf for even integer x (its limit), NaN otherwise
    at_pole = m.op("And", q_le_zero, m.op("Equal", q, m.op("Floor", q)))
    x_even = m.op("And", x_is_int, m.op("Equal", m.op("Mod", x, m.c(2.0), fmod=1), m.c(0.0)))
    out = m.where(at_pole, m.where(x_even, m.c(math.inf), m.c(math.nan)), out)
    out = m.where(m.op("Equal", x, m.c(1.0)), m.c(math.inf), out)
    # MindSpore 2.10's: at x = inf, inf for q < 1, 1 at q = 1, 0 above; 0 at q = inf (x > 1)
    at_inf_x = m.where(m.op("Less", q, m.c(1.0)), m.c(math.inf),
                       m.where(m.op("Equal", q, m.c(1.0)), m.c(1.0), m.c(0.0)))
    out = m.where(m.op("Equal", x, m.c(math.inf)), at_inf_x, out)
    q_inf_past_one = m.op("And", m.op("Equal", q, m.c(math.inf)), m.op("Greater", x, m.c(1.0)))
    return m.where(q_inf_past_one, m.c(0.0), out)


RULES = {"igamma": igamma, "igamma_grad_a": igamma_grad_a, "zeta": zeta}

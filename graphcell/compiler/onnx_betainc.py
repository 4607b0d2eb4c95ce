"""ONNX rule for ops/betainc.py's betainc(a, b, x), the regularized incomplete beta function.
ONNX has none; this is jax's algorithm (jax/_src/lax/special.py, regularized_incomplete_beta)
in float64: by the symmetry I_x(a, b) = 1 - I_(1-x)(b, a) the continued fraction (DLMF 8.17.22)
is evaluated where it converges fast, with the Lentz-Thompson-Barnett method in a Loop that,
like jax's while_loop, updates every element until none moved by more than eps/2 (599 steps
at most), then jax's edge selects and MindSpore 2.10's NaN at a <= 0 or b <= 0.
"""
from __future__ import annotations

import math

import numpy as np

from .onnx_igamma_zeta import _masked_loop
from .onnx_special import Float64Math, in_float64, lgamma_f64

SMALL = float(np.finfo(np.float64).eps / 2)   # jax's `small` and convergence threshold in float64
MAX_STEPS = 599                                # jax: iterations 1..599 (num_iterations=600)
TINY = float(np.finfo(np.float64).tiny * 2)


@in_float64
def betainc(ctx, a, b, x):
    m = Float64Math(ctx)
    dims = ctx.out_dims[0]
    shape = ctx.shape_tensor(dims, minus_one=False)
    a0, b0, x0 = a, b, x = [m.op("Expand", v, shape) for v in (a, b, x)]
    zero, one = m.c(0.0), m.c(1.0)
    fast = m.op("Less", x, m.op("Div", m.op("Add", a, one), m.op("Add", m.op("Add", a, b), m.c(2.0))))
    a, b, x = m.where(fast, a, b), m.where(fast, b, a), m.where(fast, x, m.op("Sub", one, x))

    def step(bm, iteration, s):
        # jax's n-th partial numerator, n = iteration + 1 (the first is 1; the denominators are 1)
        n = bm.op("Add", bm.op("Cast", iteration, to=11), bm.c(1.0))
        half = bm.op("Floor", bm.op("Div", bm.op("Sub", n, bm.c(1.0)), bm.c(2.0)))
        two_half = bm.op("Mul", half, bm.c(2.0))
        a_2m = bm.op("Add", a, two_half)
        first_even = bm.op("Div", bm.op("Mul", bm.op("Neg", bm.op("Add", a, b)), x), bm.op("Add", a, bm.c(1.0)))
        even = bm.op("Div", bm.op("Mul", bm.op("Mul", bm.op("Neg", bm.op("Add", a, half)),
                                              bm.op("Add", bm.op("Add", a, b), half)), x),
                     bm.op("Mul", a_2m, bm.op("Add", a_2m, bm.c(1.0))))
        even = bm.where(bm.op("Equal", half, bm.c(0.0)), first_even, even)
        odd = bm.op("Div", bm.op("Mul", bm.op("Mul", half, bm.op("Sub", b, half)), x),
                    bm.op("Mul", bm.op("Sub", a_2m, bm.c(1.0)), a_2m))
        is_even = bm.op("Equal", bm.op("Mod", n, bm.c(2.0), fmod=1), bm.c(0.0))
        numerator = bm.where(bm.op("Equal", n, bm.c(1.0)), bm.op("Expand", bm.c(1.0), shape),
                             bm.where(is_even, even, odd))

        def floor_small(v):
            return bm.where(bm.op("Less", bm.op("Abs", v), bm.c(SMALL)), bm.c(SMALL), v)

        c = floor_small(bm.op("Add", bm.c(1.0), bm.op("Div", numerator, s["c"])))
        d = bm.op("Reciprocal", floor_small(bm.op("Add", bm.c(1.0), bm.op("Mul", numerator, s["d"]))))
        delta = bm.op("Mul", c, d)
        moved = bm.op("GreaterOrEqual", bm.op("Abs", bm.op("Sub", delta, bm.c(1.0))), bm.c(SMALL))
        # jax's loop runs every element while any has not converged
        any_moved = bm.op("Greater", bm.op("ReduceMax", bm.op("Cast", moved, to=11), keepdims=0), bm.c(0.0))
        return bm.op("Expand", any_moved, shape), {"c": c, "d": d, "h": bm.op("Mul", s["h"], delta)}

    start = m.op("Expand", m.c(SMALL), shape)
    states = {"enabled": m.op("Expand", ctx.const(np.asarray(True)), shape), "c": start,
              "d": m.op("Expand", zero, shape), "h": start}
    fraction = _masked_loop(ctx, m, dims, states, step, MAX_STEPS)["h"]

    log1m_x = m.op("Log", m.op("Sub", one, x))   # jax's log1p(-x)
    lbeta_small_a = m.op("Sub", lgamma_f64(m, b), lgamma_f64(m, m.op("Add", a, b)))
    lbeta = m.op("Add", lgamma_f64(m, a), lbeta_small_a)
    factor = m.where(m.op("Less", a, m.c(TINY)),
                     m.op("Exp", m.op("Sub", m.op("Mul", log1m_x, b), lbeta_small_a)),
                     m.op("Div", m.op("Exp", m.op("Sub", m.op("Add", m.op("Mul", m.op("Log", x), a),
                                                                  m.op("Mul", log1m_x, b)), lbeta)), a))
    out = m.op("Mul", fraction, factor)
    out = m.where(fast, out, m.op("Sub", one, out))
    return _edges(m, out, a0, b0, x0)


def _edges(m, out, a, b, x):
    """jax's selects (an infinite a or b acts as the other being 0), then NaN where a <= 0,
    b <= 0 (2.10's), x outside [0, 1] or a NaN."""
    zero, one, inf = m.c(0.0), m.c(1.0), m.c(math.inf)
    a_gone = m.op("Or", m.op("Equal", a, zero), m.op("Equal", b, inf))
    b_gone = m.op("Or", m.op("Equal", b, zero), m.op("Equal", a, inf))
    x_is_zero, x_is_one = m.op("Equal", x, zero), m.op("Equal", x, one)
    is_zero = m.op("Or", m.op("And", b_gone, m.op("Not", x_is_one)), m.op("And", a_gone, x_is_zero))
    is_one = m.op("Or", m.op("And", a_gone, m.op("Not", x_is_zero)), m.op("And", b_gone, x_is_one))
    out = m.where(is_one, one, m.where(is_zero, zero, out))
    bad = m.op("Or", m.op("And", a_gone, b_gone), m.op("LessOrEqual", a, zero))
    bad = m.op("Or", bad, m.op("LessOrEqual", b, zero))
    bad = m.op("Or", bad, m.op("Or", m.op("Less", x, zero), m.op("Greater", x, one)))
    for v in (a, b, x):
        bad = m.op("Or", bad, m.op("IsNaN", v))
    return m.where(bad, m.c(math.nan), out)


RULES = {"betainc": betainc}

"""The ONNX rule for matrix_exp: jax.scipy.linalg.expm's algorithm step for step, so the two
agree to rounding (Higham 2005's scaling and squaring, as jax writes it):

- s = max(0, floor(log2(|A|_1 / maxnorm))) squarings, A scaled by 2^-s;
- the Pade degree from the unscaled 1-norm (float32: 3, 5 or 7; float64: 3, 5, 7, 9 or 13),
  its U and V evaluated in jax's order, R = (V - U)^-1 (V + U) by Gauss-Jordan elimination;
- R squared s times (at most 16; beyond, jax's NaN).
jax maps expm over a batch with vmap, so each matrix gets its own degree and s: here every
degree's U and V are computed (they share A's powers) and Where picks one per matrix, and a
Loop squares as many times as the batch's largest s, each matrix only while its own s lasts.
"""
from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper

from .onnx import onnx_dtype, onnx_value_info
from .onnx_linalg import _gauss_jordan, static_matrices

MAX_SQUARINGS = 16   # jax's default max_squarings

# (maxnorm, the 1-norms where the next degree takes over, the degrees): jax's constants
_PADE_FLOAT32 = (3.925724783138660, (4.258730016922831e-001, 1.880152677804762e+000), (3, 5, 7))
_PADE_FLOAT64 = (5.371920351148152, (1.495585217958292e-002, 2.539398330063230e-001, 9.504178996162932e-001,
                                     2.097847961257068e+000), (3, 5, 7, 9, 13))
_COEFFICIENTS = {
    3: (120., 60., 12., 1.),
    5: (30240., 15120., 3360., 420., 30., 1.),
    7: (17297280., 8648640., 1995840., 277200., 25200., 1512., 56., 1.),
    9: (17643225600., 8821612800., 2075673600., 302702400., 30270240., 2162160., 110880., 3960., 90., 1.),
    13: (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800., 129060195264000.,
         10559470521600., 670442572800., 33522128640., 1323241920., 40840800., 960960., 16380., 182., 1.),
}


def _max_last(ctx, x):
    """max over the last axis, kept ([..., r, 1])."""
    if ctx.opset >= 18:
        return ctx.op("ReduceMax", x, ctx.ints([-1]), keepdims=1)
    return ctx.op("ReduceMax", x, axes=[-1], keepdims=1)


def _sum(ctx, const, powers, pairs, total=None, identity=None):
    """total + b A^p + ... (+ b_0 I), added left to right as jax's Python expression does."""
    for coefficient, power in pairs:
        term = ctx.op("Mul", const(coefficient), powers[power])
        total = term if total is None else ctx.op("Add", total, term)
    return total if identity is None else ctx.op("Add", total, const(identity))


def _pade(ctx, degree, powers, eye, const):
    """jax's _padeN of the scaled A (powers[1]): (U, V)."""
    b = _COEFFICIENTS[degree]
    a = powers[1]
    if degree == 13:
        u = ctx.op("MatMul", powers[6], _sum(ctx, const, powers, [(b[13], 6), (b[11], 4), (b[9], 2)]))
        v = ctx.op("MatMul", powers[6], _sum(ctx, const, powers, [(b[12], 6), (b[10], 4), (b[8], 2)]))
        u = _sum(ctx, const, powers, [(b[7], 6), (b[5], 4), (b[3], 2)], u, b[1] * eye)
        v = _sum(ctx, const, powers, [(b[6], 6), (b[4], 4), (b[2], 2)], v, b[0] * eye)
        return ctx.op("MatMul", a, u), v
    odd = [(b[p + 1], p) for p in range(degree - 1, 0, -2)]        # b_m A^m-1 + ... + b_3 A^2
    even = [(b[p], p) for p in range(degree - 1, 0, -2)]
    return ctx.op("MatMul", a, _sum(ctx, const, powers, odd, identity=b[1] * eye)), \
        _sum(ctx, const, powers, even, identity=b[0] * eye)


def _square_while(ctx, r, squarings, limit, zero):
    """r squared `squarings` [..., 1, 1] times per matrix: a Loop of the batch's largest count
    (counts over `limit`, and NaN, left out: those matrices become NaN), each matrix's square
    kept while the step is below its own count."""
    t, dims = ctx.in_types[0], ctx.in_dims[0]
    counted = ctx.op("Where", ctx.op("LessOrEqual", squarings, limit), squarings, zero)
    trips = ctx.op("Cast", ctx.op("ReduceMax", counted, keepdims=0), to=TensorProto.INT64)
    body = ctx.b.child()
    scope = f"{ctx.scope}/squaring" if ctx.scope else "squaring"
    step, go, x = body.unique("step"), body.unique("go"), body.unique("power")
    below = body.op("Less", [body.op("Cast", [step], scope=scope, to=onnx_dtype(t.dtype)), squarings], scope=scope)
    kept = body.op("Where", [below, body.op("MatMul", [x, x], scope=scope), x], scope=scope)
    again = body.op("Identity", [go], scope=scope)
    graph = helper.make_graph(
        body.nodes, body.unique("squaring_body"),
        [helper.make_tensor_value_info(step, TensorProto.INT64, []),
         helper.make_tensor_value_info(go, TensorProto.BOOL, []), onnx_value_info(x, t, dims)],
        [helper.make_tensor_value_info(again, TensorProto.BOOL, []), onnx_value_info(kept, t, dims)])
    return ctx.op("Loop", trips, "", r, body=graph)


@static_matrices
def matrix_exp(ctx, a):
    t = ctx.in_types[0]
    n, np_dtype = t.shape[-1], t.dtype.np_dtype

    def const(value):
        return ctx.const(np.asarray(value, np_dtype))
    maxnorm, starts, degrees = _PADE_FLOAT64 if np_dtype == np.float64 else _PADE_FLOAT32
    norm = _max_last(ctx, ctx.op("ReduceSum", ctx.op("Abs", a), ctx.ints([-2]), keepdims=1))      # [..., 1, 1]
    # jnp.log2 is log(x) / log(2)
    log2 = ctx.op("Div", ctx.op("Log", ctx.op("Div", norm, const(maxnorm))), const(np.log(np.asarray(2, np_dtype))))
    squarings = ctx.op("Max", const(0), ctx.op("Floor", log2))
    scaled = ctx.op("Div", a, ctx.op("Pow", const(2), squarings))

    eye = np.eye(n, dtype=np_dtype)
    powers = {1: scaled, 2: ctx.op("MatMul", scaled, scaled)}       # A^4 = A^2 A^2, then A^2 each
    for p in (4, 6, 8) if 9 in degrees else (4, 6):
        powers[p] = ctx.op("MatMul", powers[p - 2], powers[2])
    u, v = _pade(ctx, degrees[0], powers, eye, const)
    for start, degree in zip(starts, degrees[1:]):      # jnp.digitize: the last start <= |A|_1
        u_d, v_d = _pade(ctx, degree, powers, eye, const)
        later = ctx.op("GreaterOrEqual", norm, const(start))
        u, v = ctx.op("Where", later, u_d, u), ctx.op("Where", later, v_d, v)
    numerator, denominator = ctx.op("Add", u, v), ctx.op("Add", ctx.op("Neg", u), v)
    r, _, _ = _gauss_jordan(ctx, denominator, numerator, n, np_dtype)
    r = _square_while(ctx, r, squarings, const(MAX_SQUARINGS), const(0))
    return ctx.op("Where", ctx.op("Greater", squarings, const(MAX_SQUARINGS)), const(np.nan), r)


RULES = {"matrix_exp": matrix_exp}

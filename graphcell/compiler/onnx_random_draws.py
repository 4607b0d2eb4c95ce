"""ONNX rules for the gamma and Poisson draws (ops/random_draws.py): jax's samplers written out
op for op on onnx_random's threefry, so an exported draw reproduces the XLA lowering's.

- random_gamma_draw: jax.random.gamma (jax/_src/random `_gamma_impl` lowered with vmap): one key
  per element, split(key, n); per element Marsaglia and Tsang's rejection (a loop drawing
  normals until v > 0 inside a loop until the squeeze or log test accepts), alpha < 1 boosted
  to alpha + 1 and scaled by U^(1/alpha). The element loops run as one ONNX Loop over all
  elements, each element's state changing only while its own test still rejects (what the
  vmapped while_loop does), with no trip bound, as in jax.
- random_poisson_draw: jax.random.poisson (`_poisson`): Knuth's product of uniforms for rates
  below 10 (and NaN), Hormann's transformed rejection from 10 on, each a Loop over the whole
  array with one key per step, bounded by jax's own bound (int32 max steps); the rejection test
  uses XLA's float32 lgamma (the Lanczos form of stablehlo's chlo.lgamma), not onnx_special's
  float64 one, so that the accept decisions are XLA's.

The float arithmetic follows jax's expressions in the same order and dtype, and XLA's CPU
habits: subnormal results flushed to 0, float -> int32 saturating (NaN to 0). Log, log1p and
pow of float32 are computed in float64 and rounded, which XLA's float32 ones (near correctly
rounded) agree with more often than onnxruntime's float32 ones. What still differs is XLA's and
onnxruntime's last bit of a log, pow or the normal's erfinv; tests/test_onnx_random_draws.py
measures how often that flips a decision (never in gamma's 210,000 draws; 0.25-0.4% of Poisson
draws at rate 1e4, whose test cancels five digits).
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np
from onnx import TensorProto, helper

from .onnx import onnx_dtype
from .onnx_random import bits_width, hashed_bits, key_words, normal_from_unit, threefry2x32_words, unit_floats

_INT32_MAX = 2 ** 31 - 1
# stablehlo's chlo.lgamma: Lanczos' approximation, g = 7, 9 terms (the constants in float64,
# rounded to the operand's dtype).
_LANCZOS_GAMMA = 7.0
_LANCZOS_BASE = 0.99999999999980993227684700473478
_LANCZOS = (676.520368121885098567009190444019, -1259.13921672240287047156078755283,
            771.3234287776530788486528258894, -176.61502916214059906584551354, 12.507343278686904814458936853,
            -0.13857109526572011689554707, 9.984369578019570859563e-6, 1.50563273514931155834e-7)


class _Draw:
    """Emits ops into one (sub)graph with float constants of one dtype."""

    def __init__(self, ctx, np_dtype):
        self.ctx, self.np_dtype = ctx, np.dtype(np_dtype)

    def c(self, value) -> str:
        return self.ctx.const(np.asarray(value, self.np_dtype))

    def u32(self, value) -> str:
        return self.ctx.const(np.asarray(value, np.uint32))

    def op(self, op_type, *args, **attrs) -> str:
        return self.ctx.op(op_type, *args, **attrs)

    def where(self, condition, a, b) -> str:
        return self.op("Where", condition, a, b)

    def split(self, k0, k1, count: int, rank: int) -> list[tuple[str, str]]:
        """jax's split of the keys (k0, k1) (of rank `rank`) into `count`: key j hashes (0, j)."""
        counters = self.u32(np.arange(count, dtype=np.uint32).reshape((count,) + (1,) * rank))
        b0, b1 = threefry2x32_words(self.ctx, k0, k1, self.u32(0), counters)
        at = lambda w, j: self.op("Gather", w, self.ctx.ints(j), axis=0)  # noqa: E731
        return [(at(b0, j), at(b1, j)) for j in range(count)]

    def uniform(self, k0, k1, counters) -> str:
        """jax.random.uniform in [0, 1) of this dtype: element i from counter (0, counters[i])."""
        b0, b1 = threefry2x32_words(self.ctx, k0, k1, self.u32(0), counters)
        return unit_floats(self.ctx, hashed_bits(self.ctx, b0, b1, bits_width(self.np_dtype)), self.np_dtype)

    def rounded(self, op_type, *xs) -> str:
        """op_type(*xs) computed in float64 and rounded to float32: nearer XLA's float32 Log,
        Log1p and Pow (mostly correctly rounded) than onnxruntime's float32 ones."""
        from .onnx_rules import log1p   # onnx_rules imports this module
        if self.np_dtype == np.float64:
            wide = xs
        else:
            wide = [self.op("Cast", x, to=TensorProto.DOUBLE) for x in xs]
        if op_type == "Log1p":
            out = log1p(self.ctx, wide[0], self.ctx.const(np.asarray(1.0)))
        else:
            out = self.op(op_type, *wide)
        return out if self.np_dtype == np.float64 else self.op("Cast", out, to=onnx_dtype(self.np_dtype))

    def flushed(self, x) -> str:
        """x with subnormals flushed to 0, as XLA's CPU code runs (flush-to-zero)."""
        tiny = self.c(np.finfo(self.np_dtype).tiny)
        return self.where(self.op("Less", self.op("Abs", x), tiny), self.c(0.0), x)

    def any(self, mask) -> str:
        return self.op("Cast", self.op("ReduceMax", self.op("Cast", mask, to=TensorProto.INT32), keepdims=0),
                       to=TensorProto.BOOL)

    def inside(self, builder) -> "_Draw":
        return _Draw(dataclasses.replace(self.ctx, b=builder), self.np_dtype)


def _loop(d: _Draw, state: list[str], types: list[tuple[int, list]], cond, body, trip_count=None) -> list[str]:
    """An ONNX Loop over `state` (names with their ONNX (elem_type, shape)): `body(d, state)`
    gives the next state while `cond(d, state)` (a bool scalar) holds, checked first before
    the first step (a while_loop); at most `trip_count` steps when given."""
    first = cond(d, state)
    child = d.ctx.b.child()
    inner = d.inside(child)
    it, flag = child.unique("iteration"), child.unique("condition")
    ins = [child.unique(f"state{i}") for i in range(len(state))]
    new = body(inner, ins)
    again = cond(inner, new)
    outs = [child.op("Identity", [n], scope=f"{d.ctx.scope}/loop") for n in [again] + new]
    vi = helper.make_tensor_value_info
    inputs = [vi(it, TensorProto.INT64, []), vi(flag, TensorProto.BOOL, [])] + \
        [vi(n, t, s) for n, (t, s) in zip(ins, types)]
    outputs = [vi(outs[0], TensorProto.BOOL, [])] + [vi(n, t, s) for n, (t, s) in zip(outs[1:], types)]
    graph = helper.make_graph(child.nodes, child.unique("body"), inputs, outputs)
    m = "" if trip_count is None else d.ctx.const(np.asarray(trip_count, np.int64))
    out = d.ctx.op("Loop", m, first, *state, n_out=len(state), body=graph)
    return [out] if len(state) == 1 else list(out)


def _flat_param(ctx, param, shape, np_dtype, n) -> str:
    """jnp.broadcast_to(param, shape).astype(dtype), flattened to [n]."""
    cast = ctx.op("Cast", param, to=onnx_dtype(np_dtype))
    return ctx.op("Reshape", ctx.op("Expand", cast, ctx.ints(list(shape))), ctx.ints([n]))


def _empty(ctx, shape, np_dtype) -> str:
    return ctx.const(np.zeros(shape, np_dtype))


# -- gamma ----------------------------------------------------------------------------------------

def random_gamma_draw(ctx, key, alpha, *, shape, dtype):
    np_dtype = dtype.np_dtype
    n = math.prod(shape)
    if n == 0:
        return _empty(ctx, shape, np_dtype)
    d = _Draw(ctx, np_dtype)
    alpha = _flat_param(ctx, alpha, shape, np_dtype, n)
    # keys = split(key, n); each element's key splits into the loop's key and the boost's
    b0, b1 = threefry2x32_words(ctx, *key_words(ctx, key), d.u32(0), d.u32(np.arange(n, dtype=np.uint32)))
    (k0, k1), (boost_k0, boost_k1) = d.split(b0, b1, 2, rank=1)

    boost_mask = d.op("GreaterOrEqual", alpha, d.c(1.0))
    alpha_up = d.where(boost_mask, alpha, d.op("Add", alpha, d.c(1.0)))
    dd = d.op("Sub", alpha_up, d.c(1.0 / 3.0))
    c = d.op("Div", d.c(1.0 / 3.0), d.op("Sqrt", dd))

    def rejects(e: _Draw, s):
        # jax's _cond_fn: the squeeze test and the log test both fail
        _, _, x2, v3, u = s
        squeeze = e.op("GreaterOrEqual", u, e.op("Sub", e.c(1.0), e.op("Mul", e.c(0.0331), e.op("Mul", x2, x2))))
        log_v = e.op("Add", e.op("Sub", e.c(1.0), v3), e.rounded("Log", v3))
        bound = e.op("Add", e.op("Mul", x2, e.c(0.5)), e.op("Mul", dd, log_v))
        return e.op("And", squeeze, e.op("GreaterOrEqual", e.rounded("Log", u), bound))

    def step(e: _Draw, s):
        active = rejects(e, s)
        (nk0, nk1), (xk0, xk1), (uk0, uk1) = e.split(s[0], s[1], 3, rank=1)
        _, _, x, v = _loop(e, [xk0, xk1, e.c(np.zeros(n)), e.c(-np.ones(n))], types_kxv,
                           lambda f, t: f.any(f.op("LessOrEqual", t[3], f.c(0.0))), normal_step)
        u = e.uniform(uk0, uk1, e.u32(0))
        new = [nk0, nk1, e.op("Mul", x, x), e.op("Mul", e.op("Mul", v, v), v), u]
        return [e.where(active, a, b) for a, b in zip(new, s)]

    def normal_step(e: _Draw, t):
        active = e.op("LessOrEqual", t[3], e.c(0.0))
        (nk0, nk1), (sk0, sk1) = e.split(t[0], t[1], 2, rank=1)
        x = normal_from_unit(e.ctx, e.uniform(sk0, sk1, e.u32(0)), np_dtype)
        v = e.op("Add", e.c(1.0), e.op("Mul", x, c))
        return [e.where(active, a, b) for a, b in zip([nk0, nk1, x, v], t)]

    fl, u32 = onnx_dtype(np_dtype), TensorProto.UINT32
    types_kxv = [(u32, [n]), (u32, [n]), (fl, [n]), (fl, [n])]
    state = [k0, k1, d.c(np.zeros(n)), d.c(np.ones(n)), d.c(np.full(n, 2.0))]
    _, _, _, v3, _ = _loop(d, state, [(u32, [n])] * 2 + [(fl, [n])] * 3, lambda e, s: e.any(rejects(e, s)), step)

    samples = d.op("Sub", d.c(1.0), d.uniform(boost_k0, boost_k1, d.u32(0)))
    boost = d.where(boost_mask, d.c(1.0), d.flushed(d.rounded("Pow", samples, d.op("Div", d.c(1.0), alpha))))
    out = d.flushed(d.op("Mul", d.op("Mul", dd, v3), boost))
    return ctx.op("Reshape", out, ctx.ints(list(shape)))


# -- Poisson --------------------------------------------------------------------------------------

def random_poisson_draw(ctx, key, rate, *, shape, dtype):
    out_dtype = dtype.np_dtype
    n = math.prod(shape)
    if n == 0:
        return _empty(ctx, shape, out_dtype)
    d = _Draw(ctx, np.float32)   # jax draws Poisson from float32 rates, as int32
    lam = _flat_param(ctx, rate, shape, np.float32, n)
    k0, k1 = key_words(ctx, key)
    counters = d.u32(np.arange(n, dtype=np.uint32))
    use_knuth = d.op("Or", d.op("IsNaN", lam), d.op("Less", lam, d.c(10.0)))
    knuth = _poisson_knuth(d, k0, k1, d.where(use_knuth, lam, d.c(0.0)), counters, n)
    rejection = _poisson_rejection(d, k0, k1, d.where(use_knuth, d.c(1e5), lam), counters, n)
    result = d.where(use_knuth, knuth, _saturating_int32(d, rejection))
    result = d.where(d.op("Equal", lam, d.c(0.0)), ctx.const(np.zeros((), np.int32)), result)
    return ctx.op("Reshape", ctx.op("Cast", result, to=onnx_dtype(out_dtype)), ctx.ints(list(shape)))


def _poisson_knuth(d: _Draw, k0, k1, lam, counters, n) -> str:
    """jax's _poisson_knuth: count uniforms until their product falls to exp(-lam), minus 1."""
    def going(e, s):
        return e.op("Greater", s[3], e.op("Neg", lam))

    def step(e, s):
        (nk0, nk1), (sk0, sk1) = e.split(s[0], s[1], 2, rank=0)
        k = e.where(going(e, s), e.op("Add", s[2], e.ctx.const(np.ones((), np.int32))), s[2])
        log_u = e.rounded("Log", e.uniform(sk0, sk1, counters))
        return [nk0, nk1, k, e.op("Add", s[3], log_u)]

    types = [(TensorProto.UINT32, []), (TensorProto.UINT32, []), (TensorProto.INT32, [n]), (TensorProto.FLOAT, [n])]
    state = [k0, k1, d.ctx.const(np.zeros(n, np.int32)), d.c(np.zeros(n))]
    k = _loop(d, state, types, lambda e, s: e.any(going(e, s)), step, trip_count=_INT32_MAX)[2]
    return d.op("Sub", k, d.ctx.const(np.ones((), np.int32)))


def _poisson_rejection(d: _Draw, k0, k1, lam, counters, n) -> str:
    """jax's _poisson_rejection (Hormann's transformed rejection), float32 k."""
    log_lam = d.rounded("Log", lam)
    b = d.op("Add", d.c(0.931), d.op("Mul", d.c(2.53), d.op("Sqrt", lam)))
    a = d.op("Add", d.c(-0.059), d.op("Mul", d.c(0.02483), b))
    inv_alpha = d.op("Add", d.c(1.1239), d.op("Div", d.c(1.1328), d.op("Sub", b, d.c(3.4))))
    v_r = d.op("Sub", d.c(0.9277), d.op("Div", d.c(3.6224), d.op("Sub", b, d.c(2.0))))

    def step(e, s):
        (nk0, nk1), (sk0, sk1), (sk2, sk3) = e.split(s[0], s[1], 3, rank=0)
        u = e.op("Sub", e.uniform(sk0, sk1, counters), e.c(0.5))
        v = e.uniform(sk2, sk3, counters)
        u_shifted = e.op("Sub", e.c(0.5), e.op("Abs", u))
        spread = e.op("Add", e.op("Div", e.op("Mul", e.c(2.0), a), u_shifted), b)
        k = e.op("Floor", e.op("Add", e.op("Add", e.op("Mul", spread, u), lam), e.c(0.43)))
        hat = e.op("Add", e.op("Div", a, e.op("Mul", u_shifted, u_shifted)), b)
        s_ = e.rounded("Log", e.op("Div", e.op("Mul", v, inv_alpha), hat))
        t = e.op("Sub", e.op("Add", e.op("Neg", lam), e.op("Mul", k, log_lam)),
                 _xla_lgamma(e, e.op("Add", k, e.c(1.0))))
        accept1 = e.op("And", e.op("GreaterOrEqual", u_shifted, e.c(0.07)), e.op("LessOrEqual", v, v_r))
        reject = e.op("Or", e.op("Less", k, e.c(0.0)),
                      e.op("And", e.op("Less", u_shifted, e.c(0.013)), e.op("Greater", v, u_shifted)))
        accept = e.op("Or", accept1, e.op("And", e.op("Not", reject), e.op("LessOrEqual", s_, t)))
        return [nk0, nk1, e.where(accept, k, s[2]), e.op("Or", s[3], accept)]

    types = [(TensorProto.UINT32, []), (TensorProto.UINT32, []), (TensorProto.FLOAT, [n]), (TensorProto.BOOL, [n])]
    state = [k0, k1, d.c(np.full(n, -1.0)), d.ctx.const(np.zeros(n, np.bool_))]
    return _loop(d, state, types, lambda e, s: e.any(e.op("Not", s[3])), step, trip_count=_INT32_MAX)[2]


def _saturating_int32(d: _Draw, x) -> str:
    """float32 -> int32 as XLA converts: saturating, NaN to 0 (ONNX's Cast leaves these undefined)."""
    big = d.c(2.0 ** 31)
    inside = d.op("Clip", d.where(d.op("IsNaN", x), d.c(0.0), x), d.c(-(2.0 ** 31)), d.c(np.nextafter(2.0 ** 31, 0)))
    ints = d.op("Cast", inside, to=TensorProto.INT32)
    return d.where(d.op("GreaterOrEqual", x, big), d.ctx.const(np.asarray(_INT32_MAX, np.int32)), ints)


def _xla_lgamma(d: _Draw, x) -> str:
    """lgamma as stablehlo's chlo.lgamma computes it, in the operand's dtype (Lanczos, with
    log1p for log(t) and the reflection below 1/2)."""
    half, one = d.c(0.5), d.c(1.0)
    reflect = d.op("Less", x, half)
    z = d.where(reflect, d.op("Neg", x), d.op("Sub", x, one))
    series = d.c(_LANCZOS_BASE)
    for i, coefficient in enumerate(_LANCZOS):
        series = d.op("Add", series, d.op("Div", d.c(coefficient), d.op("Add", z, d.c(i + 1.0))))
    g_half = d.c(_LANCZOS_GAMMA + 0.5)
    t = d.op("Add", g_half, z)
    # log(t) = log(g + 1/2) + log1p(z / (g + 1/2)), the division made a product as XLA's
    # simplifier makes it
    scaled = d.op("Mul", z, d.c(1 / (_LANCZOS_GAMMA + 0.5)))
    log_t = d.op("Add", d.c(math.log(_LANCZOS_GAMMA + 0.5)), d.rounded("Log1p", scaled))
    r = d.op("Mul", d.op("Sub", d.op("Add", z, half), d.op("Div", t, log_t)), log_t)
    log_y = d.op("Add", d.op("Add", d.c((math.log(2) + math.log(math.pi)) / 2), r), d.rounded("Log", series))
    abs_x = d.op("Abs", x)
    frac = d.op("Sub", abs_x, d.op("Floor", abs_x))
    frac = d.where(d.op("Less", half, frac), d.op("Sub", one, frac), frac)
    denominator = d.op("Log", d.op("Sin", d.op("Mul", d.c(math.pi), frac)))
    finite = d.op("Not", d.op("Or", d.op("IsInf", denominator), d.op("IsNaN", denominator)))
    reflection = d.where(finite, d.op("Sub", d.op("Sub", d.c(math.log(math.pi)), denominator), log_y),
                         d.op("Neg", denominator))
    out = d.where(reflect, reflection, log_y)
    return d.where(d.op("IsInf", x), d.c(math.inf), out)


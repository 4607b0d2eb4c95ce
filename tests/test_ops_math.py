"""The elementwise math of graphcell/ops/math_ops.py against numpy, torch, jax.vmap and jax.grad:
eagerly, under jit, under jit(backend="onnx"), in an exported model and under vmap.

MindSpore 2.10's own numbers (measured on its CPU build) are written out where it differs from
numpy or torch: signbit(-0.0) is False, sgn(NaN) and heaviside(NaN, v) are 0, copysign reads
other < 0, lerp is the one-sided formula, integer addcdiv truncates, logit clamps below eps first.
"""
import inspect
import math

import jax
import jax.numpy as jnp
import jax.scipy.special as jsp
import numpy as np
import onnx
import pytest
import torch

import graphcell as ms
from graphcell import ops
from graphcell.runtime import Session
from tests.modes import MODES, call

RNG = np.random.default_rng(7)
NAN, INF = np.nan, np.inf
F32, F64 = np.float32, np.float64

# Every pair of these: signed zeros, +-1, infinities and NaN (64 pairs).
EDGE = np.array([0.0, -0.0, 1.0, -1.0, 2.5, INF, -INF, NAN], F32)
EX, EY = np.repeat(EDGE, 8), np.tile(EDGE, 8)
UNIT = np.array([0.0, -0.0, 0.5, -0.5, 0.999, -0.9999, 1.0, -1.0, 1.5, 1e-30, INF, NAN], F32)
WIDE = np.array([0.0, -0.0, 0.25, -2.5, 3.0, 80.0, -80.0, 1e-30, 1e30, INF, -INF, NAN], F32)


def same(got, want, rtol=2e-6, atol=0.0, signed_zeros=True, err_msg=""):
    """Equal dtypes, values to rtol (NaN where NaN), and the sign of each zero."""
    want = np.asarray(want)
    assert got.dtype == want.dtype, f"{err_msg}: dtype {got.dtype}, expected {want.dtype}"
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=err_msg)
    if signed_zeros:
        zeros = (want == 0) & (got == 0)
        np.testing.assert_array_equal(np.signbit(got[zeros]), np.signbit(want[zeros]), err_msg=f"{err_msg}: -0.0")


def _erfinv(x):
    return torch.special.erfinv(torch.from_numpy(np.asarray(x, F64))).numpy()


def _erfc(x):
    return np.vectorize(math.erfc, otypes=[F64])(x)


def _logit(x, eps):
    z = np.where(x < eps, eps, np.where(x > 1 - eps, 1 - eps, x)) if eps is not None else x
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(z / (1 - z))


def _xlogy(x, y):
    zero = (x == 0) & ~np.isnan(y)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(zero, 0.0, x * np.log(np.where(zero, 1, y)))


def _logaddexp2(x, y):
    return np.where((x == y) & np.isinf(x), x, np.logaddexp2(x, y))


def _sinc(x):
    """With pi * x rounded to float32 first, as a float32 sinc computes it: sinc(3) is -2.5e-9, as
    MindSpore's, not 0."""
    px = (x.astype(F32) * F32(np.pi)).astype(F64)
    return np.where(x == 0, 1.0, np.sin(px) / np.where(x == 0, 1, px))


# name -> (graphcell function, numpy/torch reference computed in float64, inputs, relative tolerance).
# In signed-zero-sensitive places the reference gives the sign MindSpore / C give.
UNARY = {
    "sinh": (ops.sinh, np.sinh, WIDE, 2e-6), "cosh": (ops.cosh, np.cosh, WIDE, 2e-6),
    "tan": (ops.tan, np.tan, WIDE[:6], 2e-6), "asin": (ops.asin, np.arcsin, UNIT, 2e-6),
    "arcsin": (ops.arcsin, np.arcsin, UNIT, 2e-6), "acos": (ops.acos, np.arccos, UNIT, 2e-6),
    "arccos": (ops.arccos, np.arccos, UNIT, 2e-6), "atan": (ops.atan, np.arctan, WIDE, 2e-6),
    "arctan": (ops.arctan, np.arctan, WIDE, 2e-6), "asinh": (ops.asinh, np.arcsinh, WIDE, 2e-6),
    "arcsinh": (ops.arcsinh, np.arcsinh, WIDE, 2e-6), "acosh": (ops.acosh, np.arccosh, WIDE, 2e-6),
    "arccosh": (ops.arccosh, np.arccosh, WIDE, 2e-6), "atanh": (ops.atanh, np.arctanh, UNIT, 2e-6),
    "arctanh": (ops.arctanh, np.arctanh, UNIT, 2e-6), "log2": (ops.log2, np.log2, WIDE, 2e-6),
    "log10": (ops.log10, np.log10, WIDE, 2e-6), "exp2": (ops.exp2, np.exp2, WIDE, 2e-6),
    "sinc": (ops.sinc, _sinc, WIDE[:6], 2e-6), "deg2rad": (ops.deg2rad, np.deg2rad, WIDE, 2e-6),
    "rad2deg": (ops.rad2deg, np.rad2deg, WIDE, 2e-6), "erfc": (ops.erfc, _erfc, WIDE, 1e-5),
    "erfinv": (ops.erfinv, _erfinv, UNIT, 1e-5),
    "frac": (ops.frac, lambda x: np.where(x == 0, x, x - np.trunc(x)), WIDE, 0),
    "signbit": (ops.signbit, lambda x: x < 0, WIDE, 0),
    "sgn": (ops.sgn, lambda x: np.where(x > 0, 1.0, np.where(x < 0, -1.0, 0.0)), WIDE, 0),
    "absolute": (ops.absolute, np.abs, WIDE, 0), "positive": (ops.positive, lambda x: x, WIDE, 0),
    "nan_to_num": (ops.nan_to_num, lambda x: np.nan_to_num(x.astype(F32)), WIDE, 0),
    "logit": (ops.logit, lambda x: _logit(x, None), UNIT, 2e-6),
    "logit_eps": (lambda x: ops.logit(x, eps=0.1), lambda x: _logit(x.astype(F32), F32(0.1)), UNIT, 2e-6),
}
BINARY = {
    "atan2": (ops.atan2, np.arctan2, 2e-6), "arctan2": (ops.arctan2, np.arctan2, 2e-6),
    "hypot": (ops.hypot, np.hypot, 2e-6), "logaddexp": (ops.logaddexp, np.logaddexp, 2e-6),
    "logaddexp2": (ops.logaddexp2, _logaddexp2, 2e-6), "xlogy": (ops.xlogy, _xlogy, 2e-6),
    "copysign": (ops.copysign, lambda x, y: np.where(y < 0, -np.abs(x), np.abs(x)), 0),
    "heaviside": (ops.heaviside, lambda x, y: np.where(x > 0, 1.0, np.where(x == 0, y, 0.0)), 0),
    # ties give other (MindSpore's fmax): fmax(0.0, -0.0) is -0.0
    "fmax": (ops.fmax, lambda x, y: np.where((x > y) | np.isnan(y), x, y), 0),
    "fmin": (ops.fmin, lambda x, y: np.where((x < y) | np.isnan(y), x, y), 0),
    "ldexp": (ops.ldexp, lambda x, y: x * np.exp2(y), 2e-6),
}
# onnxruntime's Where returns +0.0 for a -0.0 it selects (from its second input always, from its
# third after the session's graph optimisations): these select an operand that may be -0.0.
ONNX_UNSIGNED_ZEROS = {"frac", "fmax", "fmin", "heaviside", "nan_to_num"}


def _tables(x, ex, ey):
    return tuple(fn(x) for fn, _, _, _ in UNARY.values()) + tuple(fn(ex, ey) for fn, _, _ in BINARY.values())


@pytest.mark.parametrize("mode", MODES)
def test_values_and_edges_match_numpy(mode):
    x = np.concatenate([WIDE, UNIT])   # every unary op sees both; each compares its own slice
    got = call(_tables, mode, x, EX, EY)
    for (name, (_, ref, inputs, rtol)), g in zip(UNARY.items(), got):
        offset = len(WIDE) if inputs is UNIT else 0
        with np.errstate(all="ignore"):
            want = np.asarray(ref(inputs.astype(F64)))
        want = want.astype(np.bool_ if want.dtype == np.bool_ else F32)
        same(g[offset:offset + len(inputs)], want, rtol=rtol, atol=1e-37 if rtol else 0,
             signed_zeros=not (mode == "onnx" and name in ONNX_UNSIGNED_ZEROS), err_msg=f"{name} ({mode})")
    for (name, (_, ref, rtol)), g in zip(BINARY.items(), got[len(UNARY):]):   # every pair of EDGE values
        with np.errstate(all="ignore"):
            want = np.asarray(ref(EX.astype(F64), EY.astype(F64))).astype(F32)
        same(g, want, rtol=rtol, atol=1e-7 if rtol else 0,     # (logaddexp2(-1, -1) is -1e-8 under XLA)
             signed_zeros=not (mode == "onnx" and name in ONNX_UNSIGNED_ZEROS), err_msg=f"{name} ({mode})")


def test_accuracy_in_the_tails():
    """Overflow-free hypot and logaddexp, erfc's tail, erfinv near +-1, exp2's exact powers."""
    # (XLA on CPU flushes float32 denormals to zero: no test of those)
    big = np.array([3e38, 1e-30, 3e-25, 1e30, 2e19], F32), np.array([3e38, 1e-30, 4e-25, 1e-30, 2e19], F32)
    with np.errstate(over="ignore"):
        want = np.hypot(*(b.astype(F64) for b in big)).astype(F32)
    same(ops.hypot(*map(ms.Tensor, big)).asnumpy(), want, 1e-6)
    lx = np.array([1e38, -1e38, 100.0, -200.0, 88.0], F32)
    same(ops.logaddexp(ms.Tensor(lx), ms.Tensor(lx[::-1].copy())).asnumpy(),
         np.logaddexp(lx.astype(F64), lx[::-1].astype(F64)).astype(F32), 1e-6)
    for mode in ("eager", "onnx"):
        a = np.array([4.0, 6.0, 9.0, -6.0, 1e-3], F32)
        same(call(ops.erfc, mode, a), _erfc(a.astype(F64)).astype(F32), 5e-6, err_msg=mode)
        u = np.array([0.99, 0.999999, -0.99999, 1 - 2 ** -24, 1e-7], F32)
        same(call(ops.erfinv, mode, u), _erfinv(u).astype(F32), 2e-5 if mode == "eager" else 1e-6, err_msg=mode)
    p = np.arange(-20, 21, dtype=F32)
    np.testing.assert_array_equal(ops.exp2(ms.Tensor(p)).asnumpy(), np.exp2(p))


def _mixed(i32, i64, h, d, b):
    return (ops.sinh(i32), ops.exp2(b), ops.atan2(i32, i64), ops.atan2(h, d), ops.logaddexp(h, h),
            ops.copysign(i32, h), ops.copysign(h, d), ops.copysign(d, i32), ops.float_power(h, i32),
            ops.ldexp(h, i32), ops.ldexp(h, h), ops.ldexp(i64, i32), ops.frac(i32), ops.frac(b),
            ops.sgn(i64), ops.signbit(b), ops.fmax(i32, i64), ops.gcd(i32, i64), ops.lcm(i32, 4),
            ops.xlogy(i32, h), ops.erfinv(h), ops.hypot(d, 2), ops.nan_to_num(h), ops.logit(d, 0.2))


MIXED = (np.array([0, 3, -4], np.int32), np.array([2, -6, 9], np.int64), np.array([0.5, -1.0, 2.0], np.float16),
         np.array([0.5, -1.0, 2.0]), np.array([True, False, True]))


def test_dtypes_follow_mindspore():
    """Output dtypes, read from the traced graph (the functional layer decides them for every
    backend alike), then a few values in onnxruntime."""
    from graphcell.frontend.trace import trace
    traced = trace(_mixed, *[ms.Tensor(a) for a in MIXED])
    want = [F32, F32, F32, F64, np.float16, F32, np.float16, F64, F64, F32, np.float16, F32, np.int32, np.int64,
            np.int64, np.bool_, np.int64, np.int64, np.int32, np.float16, np.float16, F64, np.float16, F64]
    assert [v.dtype.np_dtype for v in traced.graph.outputs] == want
    with pytest.warns(RuntimeWarning, match="float16 graph"):
        got = call(_mixed, "onnx", *MIXED)
    np.testing.assert_array_equal(got[5], [0.0, -3.0, 4.0])                 # int x: float32 |x|, other's sign
    np.testing.assert_array_equal(got[9], [0.5, -8.0, 0.125])
    np.testing.assert_array_equal(got[12], [0, 0, 0])
    np.testing.assert_array_equal(got[17], [2, 3, 1])
    np.testing.assert_array_equal(got[18], [0, 12, 4])
    np.testing.assert_allclose(got[8], np.float_power(MIXED[2].astype(F64), MIXED[0]), rtol=1e-15)


@pytest.mark.parametrize("mode", MODES)
def test_mindspore_measured_rules(mode):
    """Values measured on MindSpore 2.10 (CPU) where numpy or torch give others."""
    x = np.array([NAN, -0.0, 0.0, -2.0, 3.0], F32)

    def fn(x):
        return (ops.signbit(x), ops.sgn(x), ops.heaviside(x, ops.full_like(x, 5.0)),
                ops.copysign(ops.full_like(x, 2.0), x), ops.logit(ops.abs(x) / 4.0, eps=0.6),
                ops.lerp(ms.Tensor(np.array([1e8, 1.0, 3.0], F32)), ms.Tensor(np.array([1.0, 1e8, 7.0], F32)),
                         ms.Tensor(np.array([1.0, 1.0, 0.9], F32))),
                ops.nan_to_num(x / 0.0), ops.nan_to_num(x / 0.0, 1.0, 1e39, -2.0))
    sb, sg, hv, cs, lg, lp, n1, n2 = call(fn, mode, x)
    np.testing.assert_array_equal(sb, [False, False, False, True, False])   # torch: True for -0.0
    same(sg, np.array([0.0, 0.0, 0.0, -1.0, 1.0], F32), signed_zeros=mode != "onnx")
    np.testing.assert_array_equal(hv, [0.0, 5.0, 5.0, 0.0, 1.0])             # torch: NaN at NaN
    np.testing.assert_array_equal(cs, [2.0, 2.0, 2.0, -2.0, 2.0])            # torch: -2 for -0.0 and -NaN
    # eps > 0.5: below eps first (0.6), then above 1 - eps (0.4)
    np.testing.assert_allclose(lg, [NAN, 0.4054652, 0.4054652, 0.4054652, -0.40546516], rtol=1e-6)
    assert lp[0] == 0.0 and lp[1] == 1e8                                     # torch: 1.0 first
    np.testing.assert_allclose(lp[2], 6.6, rtol=1e-6)
    np.testing.assert_array_equal(n1, np.array([0.0, 0.0, 0.0, -3.4028235e38, 3.4028235e38], F32))
    np.testing.assert_array_equal(n2, np.array([1.0, 1.0, 1.0, -2.0, INF], F32))   # 1e39 overflows float32
    half = ops.nan_to_num(ms.Tensor(np.array([NAN, INF, -INF], np.float16))).asnumpy()
    np.testing.assert_array_equal(half, [0.0, 65504.0, -65504.0])
    brain = ops.nan_to_num(ms.Tensor(np.array([INF, -INF], F32)).astype(ms.bfloat16)).astype(ms.float32)
    np.testing.assert_array_equal(brain.asnumpy(), np.array([3.3895313892515355e38, -3.3895313892515355e38], F32))


@pytest.mark.parametrize("mode", MODES)
def test_lerp_addcmul_addcdiv(mode):
    a, b = RNG.standard_normal((2, 3)).astype(F32), RNG.standard_normal(3).astype(F32)
    w = RNG.uniform(0, 1, (4, 1, 3)).astype(F32)
    i = np.array([1, 2, -3, 5], np.int64), np.array([7, -4, 7, -3], np.int64), np.array([2, 3, 2, 2], np.int64)

    def fn(a, b, w, i0, i1, i2):
        return (ops.lerp(a, b, 0.25), ops.lerp(a, b, w), ops.addcmul(a, b, a, value=0.5), ops.addcdiv(a, b, w, 2),
                ops.addcmul(a, b, a, ms.Tensor(np.array([[2.0], [3.0]], F32))), ops.addcdiv(i0, i1, i2, value=2),
                ops.addcmul(i0, i1, i2, 0.5), a.lerp(b, w), a.addcdiv(b, w, value=2))
    got = call(fn, mode, a, b, w, *i)
    close = dict(rtol=1e-6, atol=1e-6)   # (XLA fuses a multiply-add: a rounding less)
    np.testing.assert_allclose(got[0], a + 0.25 * (b - a), **close)
    np.testing.assert_allclose(got[1], a + w * (b - a), **close)
    np.testing.assert_allclose(got[2], a + 0.5 * b * a, **close)
    np.testing.assert_allclose(got[3], a + 2 * b / w, **close)
    np.testing.assert_allclose(got[4], a + np.array([[2.0], [3.0]]) * b * a, **close)
    np.testing.assert_array_equal(got[5], [8, 0, 4, 2])      # 2*-4 / 3 truncates to -2; 2*-3 / 2 is -3
    np.testing.assert_array_equal(got[6], i[0])              # value 0.5 is 0 in int64 (MindSpore)
    np.testing.assert_array_equal(got[7], got[1])
    np.testing.assert_array_equal(got[8], got[3])
    assert got[1].shape == (4, 2, 3) and got[5].dtype == np.int64


@pytest.mark.parametrize("mode", MODES)
def test_gcd_lcm(mode):
    x = np.array([[12, -4, 0, 7, -2147483648, 0, 46368], [1, 0, 9, -15, 6, -2147483648, 28657]], np.int32)
    y = np.array([18, 6, 0, 0, 0, 5, 75025], np.int32)     # Fibonacci: Euclid's longest runs
    g, l, g64 = call(lambda a, b: (ops.gcd(a, b), ops.lcm(a, b), ops.gcd(a.astype(ms.int64), 10)), mode, x, y)
    np.testing.assert_array_equal(g, np.gcd(x, y))         # gcd(INT_MIN, 0) is INT_MIN, as MindSpore's
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(l, np.lcm(x, y))
    np.testing.assert_array_equal(g64, np.gcd(x.astype(np.int64), 10))
    assert g.dtype == l.dtype == np.int32 and g64.dtype == np.int64


def test_errors_say_what_is_expected():
    f = ms.Tensor(np.ones(3, F32))
    with pytest.raises(TypeError, match="gcd: 'input' and 'other' must be integer tensors, got Float32"):
        ops.gcd(f, f)
    with pytest.raises(TypeError, match="lcm: .* must be integer tensors, got Bool"):
        ops.lcm(ms.Tensor(np.array([True])), True)
    with pytest.raises(TypeError, match="logit: eps must be a float or None, got str"):
        ops.logit(f, "0.1")
    with pytest.raises(TypeError, match="lerp: weight must be a float or a Tensor, got str"):
        ops.lerp(f, f, "half")
    with pytest.raises(TypeError, match="addcmul: input, tensor1 and tensor2 must be numeric tensors, got Bool"):
        ops.addcmul(ms.Tensor(np.array([True])), ms.Tensor(np.array([True])), ms.Tensor(np.array([True])))
    with pytest.raises(ValueError, match="atan2: shapes \\[3\\] and \\[2\\] cannot be broadcast"):
        ops.atan2(f, ms.Tensor(np.ones(2, F32)))


# -- names, Tensor methods ---------------------------------------------------------------------------

# inspect.signature of mindspore.ops.<name> in MindSpore 2.10.0
SIGNATURES = {
    **{n: "(input)" for n in ["sinh", "cosh", "tan", "asin", "acos", "arccos", "atan", "arctan", "asinh", "arcsinh",
                              "acosh", "arccosh", "atanh", "arctanh", "log2", "log10", "exp2", "sinc", "erfc",
                              "erfinv", "signbit", "sgn", "absolute", "positive", "lgamma", "digamma"]},
    "polygamma": "(n, input)",
    **{n: "(x)" for n in ["arcsin", "frac", "deg2rad", "rad2deg"]},
    **{n: "(input, other)" for n in ["atan2", "arctan2", "hypot", "logaddexp", "logaddexp2", "xlogy", "fmax",
                                     "fmin", "gcd", "lcm"]},
    "copysign": "(x, other)", "ldexp": "(x, other)", "heaviside": "(input, values)",
    "logit": "(input, eps=None)", "float_power": "(input, exponent)", "lerp": "(input, end, weight)",
    "addcmul": "(input, tensor1, tensor2, value=1)", "addcdiv": "(input, tensor1, tensor2, value=1)",
    "nan_to_num": "(input, nan=None, posinf=None, neginf=None)",
}
# mindspore.Tensor's methods (their docstrings' signatures; exp2 has none)
METHODS = {
    **{n: "()" for n in ["sinh", "cosh", "tan", "asin", "arcsin", "acos", "arccos", "atan", "arctan", "asinh",
                         "arcsinh", "acosh", "arccosh", "atanh", "arctanh", "log2", "log10", "sinc", "frac",
                         "deg2rad", "rad2deg", "erfc", "erfinv", "signbit", "sgn", "absolute", "positive", "lgamma",
                         "digamma"]},
    **{n: "(other)" for n in ["atan2", "arctan2", "hypot", "logaddexp", "logaddexp2", "xlogy", "copysign",
                              "float_power", "ldexp", "fmax", "fmin", "gcd", "lcm"]},
    "heaviside": "(values)", "logit": "(eps=None)", "lerp": "(end, weight)",
    "addcmul": "(tensor1, tensor2, value=1)", "addcdiv": "(tensor1, tensor2, *, value=1)",
    "nan_to_num": "(nan=None, posinf=None, neginf=None)",
}


def test_names_and_parameters_are_mindspores():
    for name, sig in SIGNATURES.items():
        assert str(inspect.signature(getattr(ops, name))) == sig, name
    for name, sig in METHODS.items():
        params = list(inspect.signature(getattr(ms.Tensor, name)).parameters.values())[1:]
        assert str(inspect.Signature(params)) == sig, name
    assert not hasattr(ms.Tensor, "exp2")


def test_tensor_methods_trace_to_the_ops_graphs():
    from graphcell.frontend.trace import trace
    f, i = ms.Tensor(np.array([0.3, -0.7, 0.0], F32)), ms.Tensor(np.array([4, 6], np.int32))
    args = {"()": (), "(other)": (f,), "(values)": (f,), "(eps=None)": (0.1,), "(end, weight)": (f, 0.25),
            "(tensor1, tensor2, value=1)": (f, f, 2), "(tensor1, tensor2, *, value=1)": (f, f),
            "(nan=None, posinf=None, neginf=None)": (1.0, 2.0)}
    for name, sig in METHODS.items():
        x, rest = (i, (i,)) if name in ("gcd", "lcm") else (f, args[sig])
        # (one line: gcd's loop body is named after the caller's line)
        fns = (lambda t: getattr(t, name)(*rest), lambda t: getattr(ops, name)(t, *rest))
        method, op = (str(trace(fn, x, name="m").graph) for fn in fns)
        assert method == op, name
    assert str(trace(lambda t: t.addcdiv(f, f, value=3), f, name="m").graph) == \
        str(trace(lambda t: ops.addcdiv(t, f, f, 3), f, name="m").graph)


# -- export, vmap, grad --------------------------------------------------------------------------------

def _model(x, y):
    return (ops.atan2(x, y), ops.hypot(x, y), ops.logaddexp(x, y), ops.erfinv(ops.tanh(x)), ops.erfc(y),
            ops.sinh(x) + ops.acosh(ops.abs(y) + 1.0), ops.xlogy(x, ops.abs(y)), ops.fmax(x, y),
            ops.gcd(ops.cast(x * 4, ms.int32), 6), ops.logit(ops.sigmoid(y), 0.05))


@np.errstate(invalid="ignore")
def _model_ref(x, y):
    x, y = x.astype(F64), y.astype(F64)
    z = np.clip(1 / (1 + np.exp(-y)), 0.05, 0.95)
    outs = (np.arctan2(x, y), np.hypot(x, y), np.logaddexp(x, y), _erfinv(np.tanh(x)), _erfc(y),
            np.sinh(x) + np.arccosh(np.abs(y) + 1), _xlogy(x, np.abs(y)), np.where((x > y) | np.isnan(y), x, y),
            np.gcd((x.astype(F32) * 4).astype(np.int32), 6), np.log(z / (1 - z)))
    return [o if o.dtype.kind == "i" else o.astype(F32) for o in outs]


def _compare(got, want, label):
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == w.dtype and g.shape == w.shape, (label, k)
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=1e-6, err_msg=f"{label}: output {k}")


def test_an_exported_model_with_a_dynamic_batch(tmp_path):
    x, y = RNG.standard_normal((3, 4)).astype(F32), RNG.standard_normal((3, 4)).astype(F32)
    path = ms.export(_model, ms.Tensor(x), ms.Tensor(y), file_name=str(tmp_path / "m.onnx"))
    model = onnx.load(path)
    assert {"Atan", "Sinh", "Acosh", "Loop"} <= {n.op_type for n in model.graph.node}
    assert model.graph.output[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    sess = Session(path, providers=["cpu"])
    for b in (1, 5):
        xb, yb = RNG.standard_normal((b, 4)).astype(F32), RNG.standard_normal((b, 4)).astype(F32)
        xb[0, :2], yb[0, :2] = 0.0, [-0.0, NAN]
        _compare(sess(xb, yb), _model_ref(xb, yb), f"batch {b}")


def test_vmap_matches_per_member_references():
    x, y = RNG.standard_normal((3, 2, 4)).astype(F32), RNG.standard_normal((2, 4)).astype(F32)
    x[1, 0, :] = [0.0, 0.5, -1.0, 0.25]   # members whose gcd loops end at different steps
    z = RNG.uniform(-0.9, 0.9, (4, 3)).astype(F32)

    def fn(x, y, z):   # x mapped on 0, y shared, z mapped on 1: the primitives' batch rules too
        return (*_model(x, y), ops.erfinv(z), ops.asin(z), ops.atan2(z, z[0]))
    got = [g.asnumpy() for g in ms.vmap(fn, in_axes=(0, None, 1))(ms.Tensor(x), ms.Tensor(y), ms.Tensor(z))]
    for m in range(3):
        _compare([g[m] for g in got[:10]], _model_ref(x[m], y), f"member {m}")
    want = jax.vmap(lambda c: (jsp.erfinv(c), jnp.arcsin(c), jnp.arctan2(c, c[0])), 1)(z)
    for g, w in zip(got[10:], want):
        np.testing.assert_allclose(g, w, rtol=2e-6)


# name -> (graphcell function, jax reference, arity): the differentiable ones, away from kinks and ties
X = RNG.uniform(0.1, 0.9, (2, 3)).astype(F32)
Y = (RNG.uniform(0.5, 2.0, (2, 3)) * RNG.choice([-1, 1], (2, 3))).astype(F32)
GRADS = {
    "sinh": (ops.sinh, jnp.sinh, 1), "cosh": (ops.cosh, jnp.cosh, 1), "tan": (ops.tan, jnp.tan, 1),
    "asin": (ops.asin, jnp.arcsin, 1), "acos": (ops.acos, jnp.arccos, 1), "atan": (ops.atan, jnp.arctan, 1),
    "asinh": (ops.asinh, jnp.arcsinh, 1), "atanh": (ops.atanh, jnp.arctanh, 1),
    "acosh": (lambda x: ops.acosh(x + 1.5), lambda x: jnp.arccosh(x + 1.5), 1),
    "erfc": (ops.erfc, jsp.erfc, 1), "erfinv": (ops.erfinv, jsp.erfinv, 1),
    "log2": (ops.log2, jnp.log2, 1), "log10": (ops.log10, jnp.log10, 1), "exp2": (ops.exp2, jnp.exp2, 1),
    "sinc": (ops.sinc, jnp.sinc, 1), "deg2rad": (ops.deg2rad, jnp.deg2rad, 1),
    "rad2deg": (ops.rad2deg, jnp.rad2deg, 1),
    "frac": (lambda x: ops.frac(x * 3), lambda x: x * 3 - jnp.trunc(x * 3), 1),
    "logit": (ops.logit, jsp.logit, 1),
    "logit_eps": (lambda x: ops.logit(x, 0.3), lambda x: jsp.logit(jnp.clip(x, 0.3, 0.7)), 1),
    "nan_to_num": (ops.nan_to_num, jnp.nan_to_num, 1),
    "atan2": (ops.atan2, jnp.arctan2, 2), "hypot": (ops.hypot, jnp.hypot, 2),
    "logaddexp": (ops.logaddexp, jnp.logaddexp, 2), "logaddexp2": (ops.logaddexp2, jnp.logaddexp2, 2),
    "xlogy": (lambda x, y: ops.xlogy(x, ops.abs(y)), lambda x, y: jsp.xlogy(x, jnp.abs(y)), 2),
    "copysign": (ops.copysign, jnp.copysign, 2), "float_power": (ops.float_power, jnp.float_power, 2),
    "ldexp": (ops.ldexp, lambda x, y: x * 2.0 ** y, 2), "fmax": (ops.fmax, jnp.fmax, 2),
    "fmin": (ops.fmin, jnp.fmin, 2),
    "lerp": (lambda x, y: ops.lerp(x, y, x), lambda x, y: x + x * (y - x), 2),
    "addcmul": (lambda x, y: ops.addcmul(x, y, x, 0.5), lambda x, y: x + 0.5 * y * x, 2),
    "addcdiv": (lambda x, y: ops.addcdiv(x, x, y, 2.0), lambda x, y: x + 2.0 * x / y, 2),
}
WEIGHTS = dict(zip(GRADS, RNG.standard_normal((len(GRADS), 2, 3)).astype(F32)))


def _loss(name, x, y):
    fn, _, arity = GRADS[name]
    out = fn(x) if arity == 1 else fn(x, y)
    return (out * ms.Tensor(WEIGHTS[name])).astype(ms.float32).sum()


def _ref_loss(name, x, y):
    _, ref, arity = GRADS[name]
    return jnp.sum((ref(x) if arity == 1 else ref(x, y)) * WEIGHTS[name]).astype(jnp.float32)


@pytest.mark.parametrize("mode", ["jit", "onnx"])   # (eagerly: one compile per op and shape, 20 s)
def test_grads_match_jax_grad(mode):
    """Each op's output weighted by its own random weights, all summed: one gradient that any
    wrong vjp changes. On a mismatch, the per-op gradients (eagerly) name the culprit."""
    got = call(ms.grad(lambda x, y: sum(_loss(n, x, y) for n in GRADS), grad_position=(0, 1)), mode, X, Y)
    want = jax.jit(jax.grad(lambda x, y: sum(_ref_loss(n, x, y) for n in GRADS), argnums=(0, 1)))(X, Y)
    if not all(np.allclose(g, w, rtol=2e-5, atol=2e-5) for g, w in zip(got, want)):
        for name in GRADS:
            mine = ms.grad(lambda x, y: _loss(name, x, y), grad_position=(0, 1))(ms.Tensor(X), ms.Tensor(Y))
            ref = jax.grad(lambda x, y: _ref_loss(name, x, y), argnums=(0, 1))(X, Y)
            for g, w in zip(mine, ref):
                np.testing.assert_allclose(g.asnumpy(), w, rtol=2e-5, atol=1e-6, err_msg=name)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-5)


# -- the gamma family ----------------------------------------------------------------------------

def _gamma_grid():
    """Float32 points over a wide range: negative non-integers (near the poles too), tiny and
    huge values (no denormals: XLA on CPU flushes them)."""
    x = np.concatenate([np.linspace(-20.5, 30.0, 203), [-0.999, -1.001, -5.0001, -0.5, 1e-7, 1.0, 2.0, 1.4616321],
                        np.geomspace(1e-30, 1e30, 31), -np.geomspace(1e-6, 25.0, 15)]).astype(F32)
    return x[(x > 0) | (np.abs(x - np.round(x)) > 1e-5)]


def _torch_gamma(x, n):
    """lgamma (n None), or polygamma(n, .), in float64 by torch."""
    t = torch.from_numpy(np.asarray(x, F64))
    return (torch.lgamma(t) if n is None else torch.polygamma(n, t)).numpy()


@pytest.mark.parametrize("mode", MODES)
def test_gamma_family_matches_torch(mode):
    """Against torch in float64: jax's float32 functions (eager, jit) are good to ~5e-6 relative,
    the ONNX lowering's float64 series to float32 rounding."""
    x = _gamma_grid()
    orders = [None, 0, 1, 2, 3, 6]
    got = call(lambda t: (ops.lgamma(t), ops.digamma(t), *[ops.polygamma(n, t) for n in orders[1:]]), mode, x)
    tol = dict(rtol=2e-6, atol=2e-6) if mode == "onnx" else dict(rtol=1e-5, atol=1e-5)
    for n, g in zip(orders + [0], [got[0], *got[2:], got[1]]):
        with np.errstate(over="ignore"):
            want = _torch_gamma(x, n).astype(F32)
        assert g.dtype == F32
        finite = np.isfinite(want)
        np.testing.assert_allclose(g[finite], want[finite], err_msg=f"{mode}: order {n}", **tol)
        np.testing.assert_array_equal(g[~finite], want[~finite], err_msg=f"{mode}: order {n}")


# Measured on MindSpore 2.10 (CPU): the poles, the signed zeros and the infinities.
GAMMA_EDGES = np.array([-2.0, -1.0, -0.0, 0.0, 1.0, 2.0, INF, -INF, NAN], F32)
GAMMA_MEASURED = {
    "lgamma": [INF, INF, INF, INF, 0.0, 0.0, INF, INF, NAN],
    "digamma": [NAN, NAN, INF, -INF, -0.5772159, 0.42278421, INF, NAN, NAN],
    "polygamma1": [INF, INF, INF, INF, 1.6449341, 0.64493412, NAN, INF, NAN],
    "polygamma2": [-INF, -INF, -INF, -INF, -2.404114, -0.40411383, NAN, -INF, NAN],
    "polygamma3": [INF, INF, INF, INF, 6.4939404, 0.4939394, NAN, INF, NAN],
}


@pytest.mark.parametrize("mode", MODES)
def test_gamma_family_edges_as_measured(mode):
    got = call(lambda t: (ops.lgamma(t), ops.digamma(t), ops.polygamma(1, t), ops.polygamma(2, t),
                          ops.polygamma(3, t)), mode, GAMMA_EDGES)
    for (name, want), g in zip(GAMMA_MEASURED.items(), got):
        np.testing.assert_allclose(g, np.array(want, F32), rtol=1e-5, atol=1e-6, err_msg=f"{name} ({mode})")


def test_gamma_family_arguments():
    x = ms.Tensor(np.array([1.5, 2.5], F32))
    want = _torch_gamma([1.5, 2.5], 1).astype(F32)
    for n in (1, ms.Tensor(np.int32(1)), ms.Tensor(np.int64(1))):   # MindSpore takes the Tensors only
        np.testing.assert_allclose(ops.polygamma(n, x).asnumpy(), want, rtol=1e-5)
    np.testing.assert_array_equal(ops.polygamma(-1, x).asnumpy(), [NAN, NAN])      # MindSpore's: NaN
    # integers compute in float32 (MindSpore: lgamma does, digamma and polygamma refuse them)
    for fn in (ops.lgamma, ops.digamma, lambda t: ops.polygamma(2, t)):
        assert fn(ms.Tensor(np.array([1, 2], np.int32))).dtype == ms.float32
    assert ops.lgamma(ms.Tensor(np.array([3.0], np.float16))).dtype == ms.float16
    np.testing.assert_allclose(ms.Tensor(np.array([3.0], F64)).lgamma().asnumpy(), [math.log(2.0)], rtol=1e-14)
    np.testing.assert_allclose(x.digamma().asnumpy(), _torch_gamma([1.5, 2.5], 0), rtol=1e-5)
    with pytest.raises(TypeError, match="n must be an int32 or int64 Tensor"):
        ops.polygamma(ms.Tensor(np.float32(1.0)), x)
    with pytest.raises(ValueError, match="n must be a 0-d Tensor, got shape \\[1\\]"):
        ops.polygamma(ms.Tensor(np.array([1], np.int32)), x)
    with pytest.raises(TypeError, match="n must be an int or a 0-d integer Tensor, got float"):
        ops.polygamma(1.0, x)
    with pytest.raises(TypeError, match="n must be a constant"):
        ms.jit(lambda n, t: ops.polygamma(n, t))(ms.Tensor(np.int32(1)), x)


def test_gamma_family_gradients_match_torch():
    """lgamma' = digamma, digamma' = polygamma(1, .), polygamma(n, .)' = polygamma(n + 1, .), in
    float64, through two orders of grad, against torch's autograd."""
    x = np.array([0.3, 1.7, 4.5, 12.25, -0.4, -1.3, -2.75, -7.6], F64)

    def fn(t):
        first = ms.grad(lambda u: ops.lgamma(u).sum())
        return (first(t), ms.grad(lambda u: first(u).sum())(t), ms.grad(lambda u: ops.digamma(u).sum())(t),
                ms.grad(lambda u: ops.polygamma(2, u).sum())(t))
    t = torch.from_numpy(x).requires_grad_()
    want = [torch.digamma(t), torch.polygamma(1, t), torch.polygamma(1, t), torch.polygamma(3, t)]
    for g, w in zip(call(fn, "jit", x), want):
        np.testing.assert_allclose(g, w.detach().numpy(), rtol=1e-9)   # (jax's float64 polygamma: ~4e-10)
    # and against torch's own autograd of lgamma, on the onnxruntime path
    (w,) = torch.autograd.grad(torch.lgamma(t).sum(), t)
    np.testing.assert_allclose(call(lambda u: ms.grad(lambda v: ops.lgamma(v).sum())(u), "onnx", x), w.numpy(),
                               rtol=1e-12)

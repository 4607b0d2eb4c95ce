"""Every primitive's vjp rule against jax.vjp of its own jax implementation.

One record per case drives the test: the grad pass differentiates a one-node graph with a
random cotangent (sens) and must give what jax.vjp gives for `prim.impl`.
"""
import jax
import numpy as np
import pytest

import graphcell as ms  # noqa: F401 - registers the primitives, enables x64
from graphcell.compiler.to_jax import graph_to_jax
from graphcell.frontend.tracer import Tracer
from graphcell.ir.core import TensorType
from graphcell.dtype import to_dtype
from graphcell.ops import nn_prims
from graphcell.ops.ad_util import no_gradient
from graphcell.passes.grad import grad_graph
from tests.registry import every_primitive

# every ops module imported first: a record's primitive may live in a module loaded on first use
PRIMITIVES = every_primitive()

rng = np.random.default_rng(0)


def f32(*shape, low=-2.0, high=2.0):
    return rng.uniform(low, high, shape).astype(np.float32)


def pos(*shape):
    return f32(*shape, low=0.5, high=2.0)


def rec(name, args, tol=2e-5, **attrs):
    return pytest.param(name, args, attrs, tol, id=f"{name}-{len(RECORDS)}")


RECORDS = []


def add(name, args, tol=2e-5, **attrs):
    RECORDS.append(rec(name, args, tol, **attrs))


for op in ["neg", "exp", "tanh", "logistic", "sin", "cos", "erf", "abs", "sign", "floor", "ceil", "round",
           "log1p", "expm1"]:
    add(op, [f32(3, 4, low=-0.9, high=2.0)])
for op in ["log", "sqrt", "rsqrt"]:
    add(op, [pos(3, 4)])
for op in ["add", "sub", "mul", "div", "max", "min"]:
    add(op, [f32(3, 4), f32(4) + 3.0 if op == "div" else f32(4)])
    add(op, [f32(3, 1), pos(1, 4)])
add("max", [np.array([1.0, 2.0, 3.0], np.float32), np.array([1.0, 0.0, 3.0], np.float32)])  # ties
add("rem", [f32(3, 4) * 5.0, np.array([1.3, -0.7, 2.1, -1.9], np.float32)])
add("relu", [f32(3, 4)])
add("relu", [np.array([-1.0, 0.0, -0.0, 2.0], np.float32)])  # 0 at 0, as jax.nn.relu and MindSpore
add("abs", [np.array([-1.5, 0.0, -0.0, 2.0], np.float32)])  # 0 at 0 (see REFERENCE)
add("relu6", [f32(3, 4) * 4.0 + 2.0])
add("relu6", [np.array([-1.0, 0.0, 3.0, 6.0, 7.0], np.float32)])  # 0 at 0, 1 at 6 (see REFERENCE)
add("leaky_relu", [f32(3, 4)], alpha=0.3)
add("leaky_relu", [np.array([-1.0, 0.0, -0.0, 2.0], np.float32)], alpha=0.3)  # (1 + alpha) / 2 at 0 (see REFERENCE)
add("elu", [f32(3, 4)], alpha=0.7)
add("elu", [np.array([-2.0, 0.0, -0.0, 1.0], np.float32)], alpha=0.7)  # alpha at 0, as jax.nn.elu and torch
add("shrink", [f32(3, 4)], lambd=0.5, bias=0.5)
add("shrink", [np.array([-0.5, 0.5, -0.3, 0.7, -1.0], np.float32)], lambd=0.5, bias=0.0)  # 0 at the thresholds
add("pow", [pos(3, 4), f32(3, 4)])
for op in ["hard_sigmoid", "hard_swish", "softsign"]:
    add(op, [f32(3, 4) * 3.0])
    add(op, [np.array([-4.0, -3.0, -1.0, 0.0, 3.0, 4.5], np.float32)])  # at the kinks (see REFERENCE)
add("max", [np.array([1.0, np.nan, np.nan, 2.0], np.float32), np.array([np.nan, 0.0, np.nan, 2.0], np.float32)])
for op in ["sinh", "cosh", "tan", "atan", "asinh", "erfc"]:
    add(op, [f32(3, 4, low=-1.5, high=1.5)])
for op in ["asin", "acos", "atanh", "erfinv"]:
    add(op, [f32(3, 4, low=-0.95, high=0.95)])
add("acosh", [f32(3, 4, low=1.05, high=4.0)])
# the gamma family, negative non-integers too (the reflection's own gradient; jax's gradient of
# its polygamma is NaN at integers)
for op, attrs in [("lgamma", {}), ("digamma", {}), ("polygamma", {"n": 1}), ("polygamma", {"n": 3})]:
    add(op, [np.array([[0.3, 1.7, 4.5, 8.6], [-0.4, -1.3, -2.75, 0.05]], np.float32)], 1e-4, **attrs)
# the Bessel functions (k and y are defined for x > 0), igamma, igammac and zeta (d/dq; d/ds is 0)
for op in sorted(n for n in PRIMITIVES if n.startswith("bessel_")):
    add(op, [np.array([[0.3, 1.7, 4.5, 8.6], [2.2, 5.5, 9.0, 14.0]], np.float32)], 1e-4)
add("igamma", [pos(3, 1) + 1.0, pos(4)], 1e-4, upper=True)
add("zeta", [pos(3, 1) + 1.0, pos(4)], 1e-4)
add("betainc", [pos(3, 1) + 0.5, pos(4) + 0.5, np.array([0.1, 0.4, 0.6, 0.95], np.float32)], 1e-4)
# svd: the singular values' gradient u diag(gs) v^T (test_svd_vjp_through_u_and_v has u's and v's)
add("svd", [f32(4, 3).astype(np.float64)], 1e-9, full_matrices=False, compute_uv=False)
add("svd", [f32(2, 3, 5).astype(np.float64)], 1e-9, full_matrices=True, compute_uv=True)
# matrices (ops/linalg_prims.py), in float64, well conditioned (a dominant diagonal); qr's and
# slogdet's other outputs and every matrix primitive's full vjp: tests/test_linalg_more.py
_dominant = f32(2, 3, 3).astype(np.float64) + 4 * np.eye(3)
add("det", [_dominant], 1e-9)
add("slogdet", [_dominant], 1e-9)
add("matrix_inverse", [_dominant], 1e-9)
add("cholesky", [_dominant @ np.swapaxes(_dominant, -1, -2)], 1e-9)
add("qr", [f32(2, 4, 3).astype(np.float64)], 1e-9, full_matrices=False)
add("matrix_exp", [f32(3, 3).astype(np.float64) * 0.5], 1e-9)
add("triangular_solve", [_dominant, f32(2, 3, 2).astype(np.float64)], 1e-9, lower=False, transpose_a=False,
    unit_diagonal=False)
add("atan2", [f32(3, 4), f32(4)])
add("atan2", [f32(3, 1), np.array([[1.0, -2.0, 0.0, -0.5]], np.float32)])   # on the y axis too
add("pow", [pos(3, 4), np.float32(2.0) * np.ones((), np.float32)])
add("select", [rng.uniform(size=(3, 4)) > 0.5, f32(3, 4), f32(1, 4)])
add("cast", [f32(3, 4)], dtype=to_dtype("float64"))
add("cast", [f32(3, 4).astype(np.float64)], dtype=to_dtype("float32"))
add("stop_gradient", [f32(3, 4)])
for op in ["reduce_sum", "reduce_max", "reduce_min", "reduce_prod"]:
    add(op, [f32(3, 4, 5)], axes=(1,))
    add(op, [f32(3, 4, 5)], axes=(0, 2))
add("reduce_max", [np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]], np.float32)], axes=(1,))  # ties share
add("reshape", [f32(3, 4)], shape=(2, 6))
add("transpose", [f32(2, 3, 4)], perm=(2, 0, 1))
add("broadcast_in_dim", [f32(3, 1)], shape=(2, 3, 4), dims=(1, 2))
add("broadcast_in_dim", [f32(4)], shape=(3, 4), dims=(1,))
add("concatenate", [f32(2, 3), f32(2, 5), f32(2, 1)], axis=1)
add("slice", [f32(7, 6)], start=(1, 0), limit=(6, 5), strides=(2, 3))
add("slice", [f32(5, 6)], start=(1, 2), limit=(4, 6), strides=(1, 1))
add("rev", [f32(3, 4, 2)], axes=(1, 2))
add("pad", [f32(3, 4), np.float32(0.5)], lo=(1, 0), hi=(2, 1))
add("pad", [f32(5, 4), np.float32(0.0)], lo=(-1, 2), hi=(1, -2))
add("take", [f32(5, 4), np.array([[0, 4], [2, 2]], np.int32)], axis=0)
add("take", [f32(3, 5), np.array([1, 1, 3], np.int64)], axis=1)
# resize: each method's transposed taps (repeated taps summed; cubic's renormalised edge weights)
for _method, _align, _sizes, _scales in [("nearest", False, (5, 3), None), ("nearest-exact", False, (2, 7), None),
                                         ("linear", False, (7, 2), None), ("linear", True, (7, 5), None),
                                         ("linear", False, (6, 9), (1.7, 2.3)), ("cubic", False, (5, 7), None),
                                         ("cubic", True, (2, 6), None)]:
    add("resize", [f32(2, 3, 4)], sizes=_sizes, method=_method, align_corners=_align, scales=_scales)
add("take_along_axis", [f32(3, 5), np.array([[0, 4], [2, 2], [1, 0]], np.int32)], axis=1)
add("scatter_add", [f32(5, 3), np.array([0, 2, 2], np.int32), f32(3, 3)], axis=0)
add("write_rows", [f32(5, 3), np.array([4, 1], np.int32), f32(2, 3)])
add("dot_general", [f32(3, 4), f32(4, 5)], contract=((1,), (0,)), batch=((), ()))
add("dot_general", [f32(2, 3, 4), f32(2, 5, 4)], contract=((2,), (2,)), batch=((0,), (0,)))
add("dot_general", [f32(4, 3, 2), f32(2, 6, 4)], contract=((0, 2), (2, 0)), batch=((), ()))
add("dot_general", [f32(3, 2, 4), f32(5, 4, 2)], contract=((2,), (1,)), batch=((1,), (2,)))


def conv_attrs(strides=(1, 1), padding=((0, 0), (0, 0)), lhs=(1, 1), rhs=(1, 1), groups=1, batch_groups=1):
    return dict(strides=strides, padding=padding, lhs_dilation=lhs, rhs_dilation=rhs, groups=groups,
                batch_groups=batch_groups)


add("conv", [f32(2, 3, 8, 8), f32(4, 3, 3, 3)], 1e-4, **conv_attrs())
add("conv", [f32(2, 3, 9, 8), f32(4, 3, 3, 2)], 1e-4, **conv_attrs((2, 3), ((1, 2), (0, 1))))
add("conv", [f32(2, 4, 9, 9), f32(6, 2, 3, 3)], 1e-4, **conv_attrs((1, 2), ((1, 1), (2, 0)), rhs=(2, 1), groups=2))
add("conv", [f32(1, 2, 5, 5), f32(3, 2, 2, 2)], 1e-4, **conv_attrs(lhs=(2, 1), padding=((1, 1), (0, 0))))
add("conv", [f32(4, 3, 6, 6), f32(4, 3, 3, 3)], 1e-4, **conv_attrs(batch_groups=2))
add("conv", [f32(1, 1, 32, 32), f32(6, 1, 5, 5)], 1e-4, **conv_attrs())
ct_attrs = lambda lhs_shape, strides=(1, 1), padding=((0, 0), (0, 0)), rhs=(1, 1), groups=1: dict(  # noqa: E731
    lhs_shape=lhs_shape, strides=strides, padding=padding, rhs_dilation=rhs, groups=groups)
add("conv_transpose", [f32(2, 4, 6, 6), f32(4, 3, 3, 3)], 1e-4, **ct_attrs((8, 8)))
add("conv_transpose", [f32(2, 4, 5, 3), f32(4, 3, 3, 2)], 1e-4, **ct_attrs((9, 8), (2, 3), ((1, 2), (0, 1))))
add("conv_transpose", [f32(2, 6, 7, 5), f32(6, 2, 3, 3)], 1e-4,
    **ct_attrs((9, 9), (1, 2), ((1, 1), (2, 0)), rhs=(2, 1), groups=2))
add("linear", [f32(3, 4), f32(5, 4), f32(5)], contract=((1,), (1,)))
add("conv_bias", [f32(2, 3, 8, 8), f32(4, 3, 3, 3), f32(4)], 1e-4, **conv_attrs())
pool = dict(window=(1, 1, 2, 2), strides=(1, 1, 2, 2), padding=((0, 0), (0, 0), (0, 0), (0, 0)))
overlap = dict(window=(1, 1, 3, 3), strides=(1, 1, 2, 1), padding=((0, 0), (0, 0), (1, 1), (0, 1)))
add("reduce_window_max", [f32(2, 3, 6, 6)], **pool)
add("reduce_window_max", [f32(2, 3, 7, 6)], **overlap)
add("reduce_window_sum", [f32(2, 3, 6, 6)], **pool)
add("reduce_window_sum", [f32(2, 3, 7, 6)], **overlap)
add("reduce_window_max_grad", [f32(2, 3, 6, 6), f32(2, 3, 3, 3)], **pool)
# scans and sorts (ops/sorting.py)
add("cumsum", [f32(3, 4)], axis=1, reverse=False)
add("cumsum", [f32(3, 4, 2)], axis=0, reverse=True)
add("cumprod", [f32(3, 5)], axis=1, reverse=False)
add("cumprod", [np.array([[2.0, 0.0, 3.0, -1.5, 0.5], [0.0, 0.0, 2.0, 1.0, -3.0]], np.float32)], axis=1,
    reverse=False)  # one zero, two zeros: exact (no division)
add("cumprod", [np.array([[2.0, 0.0, 3.0], [-1.0, 4.0, 0.0], [0.5, 0.0, 0.0]], np.float32)], axis=0, reverse=True)
add("sort", [f32(3, 5)], axis=1, descending=False, index_dtype=to_dtype("int32"))
add("sort", [np.array([[1.0, 2.0, 1.0, 0.5], [3.0, 3.0, 3.0, -1.0]], np.float32)], axis=1, descending=True,
    index_dtype=to_dtype("int32"))  # ties: each value's cotangent goes back to its own element
add("top_k", [f32(5, 3)], k=2, axis=0, largest=True, index_dtype=to_dtype("int32"))
add("top_k", [np.array([[1.0, 1.0, 2.0, 1.0]], np.float32)], k=2, axis=1, largest=False, index_dtype=to_dtype("int64"))
add("nextafter", [f32(3, 4), f32(4)])


# Where a primitive's impl is not its own gradient reference (stop_gradient's impl is the
# identity; jax's own barrier gives the zero cotangent).
REFERENCE = {"stop_gradient": lambda x: jax.lax.stop_gradient(x),
             # XLA's convolution, not the direct CPU form the impl takes for narrow ones
             # (ops/cpu_conv.py): jax's own transpose rules of its own convolution
             "conv": lambda x, w, **attrs: nn_prims._xla_conv(x, w, **attrs),
             # MindSpore 2.10's zeta has a zero gradient for s (jax has none)
             "zeta": lambda s, q: PRIMITIVES["zeta"].impl(jax.lax.stop_gradient(s), q),
             # and its Betainc a zero gradient for a and b (jax has none)
             "betainc": lambda a, b, x: PRIMITIVES["betainc"].impl(*map(jax.lax.stop_gradient, (a, b)), x),
             # the singular values alone: jax has no jvp for a full_matrices decomposition at all
             "svd": lambda x, full_matrices, compute_uv: (jax.numpy.linalg.svd(x, compute_uv=False),),
             # |x|' = sign(x), 0 at 0, as MindSpore's AbsGrad and torch (jax.grad of abs gives 1)
             "abs": lambda x: x * jax.lax.stop_gradient(jax.numpy.sign(x)),
             # MindSpore 2.10's gradients at the kinks, measured: ReLU6Grad is 1 at x = 6 (jax
             # and torch give 0), LeakyReLU's is (1 + alpha) / 2 at 0 (jax 1, torch alpha).
             "relu6": lambda x: _with_slope(jax.nn.relu6(x), x, (x > 0) & (x <= 6)),
             "leaky_relu": lambda x, alpha: _with_slope(
                 jax.nn.leaky_relu(x, alpha), x, jax.numpy.where(x > 0, 1.0, jax.numpy.where(x < 0, alpha, (1 + alpha) / 2))),
             # HSigmoidGrad: 1/6 strictly inside (-3, 3); HSwishGrad: (2x + 3) / 6 on [-3, 3]
             "hard_sigmoid": lambda x: _with_slope(jax.nn.relu6(x + 3) / 6, x, jax.numpy.where(abs(x) < 3, 1 / 6, 0)),
             "hard_swish": lambda x: _with_slope(x * jax.nn.relu6(x + 3) / 6, x, jax.numpy.where(
                 x < -3, 0.0, jax.numpy.where(x > 3, 1.0, (2 * x + 3) / 6))),
             # MindSpore 2.10's NextAfter gradient (measured): 1 for x, 0 for y (jax has none)
             "nextafter": lambda x, y: _with_slope(jax.numpy.nextafter(*map(jax.lax.stop_gradient, (x, y))), x,
                                                   x * 0 + 1) + 0 * y,
             # a NaN operand gets the whole cotangent, a tie half (MindSpore 2.10's Maximum, measured)
             "max": lambda x, y: jax.numpy.maximum(*[jax.lax.stop_gradient(v) for v in (x, y)])
             + _with_slope(0.0, x, _max_share(x, y)) + _with_slope(0.0, y, _max_share(y, x))}


def _max_share(x, y):
    jnp = jax.numpy
    return jnp.where(x > y, 1.0, jnp.where(x < y, 0.0, jnp.where(x == y, 0.5, 1.0)))


def _with_slope(value, x, slope):
    """`value`, whose derivative with respect to x is `slope`."""
    sg = jax.lax.stop_gradient
    return sg(value) + (x - sg(x)) * sg(slope).astype(x.dtype)


def _floating(a):
    return np.asarray(a).dtype.kind == "f"


@pytest.mark.parametrize("name,args,attrs,tol", RECORDS)
def test_vjp_matches_jax(name, args, attrs, tol):
    prim = PRIMITIVES[name]
    args = [np.asarray(a) for a in args]
    tracer = Tracer(name)
    ins = [tracer.add_input(TensorType(a.shape, to_dtype(a.dtype)), f"a{i}") for i, a in enumerate(args)]
    outs = tracer.add_node(prim, tuple(ins), attrs)
    # multiple-result primitives (sort, top_k): the first result is differentiated, the
    # others (integer indices) are outputs too
    out = outs[0]
    graph = tracer.build(list(outs))
    wrt = [i for i, a in enumerate(args) if _floating(a)]
    g = grad_graph(graph, wrt, outputs=(0,), with_sens=True)
    ct = rng.standard_normal(out.shape).astype(out.dtype.np_dtype)
    got = graph_to_jax(g)(*args, ct)
    want = prim.impl(*args, **attrs)
    for k, w in enumerate(want if prim.multiple_results else (want,)):
        np.testing.assert_allclose(got[k], w, rtol=1e-6, atol=1e-6)

    def f(*floats):
        full = list(args)
        for i, v in zip(wrt, floats):
            full[i] = v
        result = REFERENCE.get(name, prim.impl)(*full, **attrs)
        return result[0] if prim.multiple_results else result

    _, vjp = jax.vjp(f, *[args[i] for i in wrt])
    expected = vjp(ct)
    for i, (mine, ref) in enumerate(zip(got[len(outs):], expected)):
        assert mine.shape == ref.shape and mine.dtype == ref.dtype, (i, mine.shape, ref.shape)
        np.testing.assert_allclose(mine, ref, rtol=tol, atol=tol, err_msg=f"cotangent of input {wrt[i]}")


# Control-flow primitives carry subgraphs; their vjps are tested against jax there.
TESTED_ELSEWHERE = {**dict.fromkeys(["real", "imag", "conj", "complex", "fft"], "tests/test_complex_fft.py"),
                    "eig": "tests/test_eig_stft.py",   # complex outputs; eigenvalues only
                    "matrix_logarithm": "tests/test_tf_kernels_ops.py",   # 2.10's error: no gradient
                    "cond": "tests/test_control_flow.py", "while_loop": "tests/test_while_grad.py",
                    "scan": "tests/test_rnn.py", "igamma_grad_a": "tests/test_special_more.py",
                    **dict.fromkeys(["geqrf", "householder_product"], "tests/test_householder_qr.py"),  # 2.10's error
                    **dict.fromkeys(
                        ["backward_hook_enter", "backward_hook_exit", "backward_hook"], "tests/test_backward_hooks.py"),
                    "tensor_hook": "tests/test_tensor_hooks.py",
                    "custom_bprop": "tests/test_audit_functional.py",   # the user's Cell.bprop
                    "host_call": "tests/test_custom_ops.py",   # ops.Custom's bprop, or its refusal
                    "eigh": "tests/test_msscipy.py"}   # against jax.grad (real, complex) and differences


def test_every_primitive_has_a_vjp_rule_and_differentiable_ones_a_record():
    covered = {p.values[0] for p in RECORDS} | set(TESTED_ELSEWHERE)
    for name, prim in every_primitive().items():
        if prim.lowering_only:  # made after grad, by the XLA pipeline's last pass
            continue
        assert prim.vjp_rule is not None, name
        if prim.vjp_rule is not no_gradient and name not in ("constant",):
            assert name in covered, f"{name} has a vjp rule but no test record"


def test_second_order_max_pool_with_overlap_says_so():
    from graphcell.passes.grad import grad_graph as gg
    prim = PRIMITIVES["reduce_window_max_grad"]
    attrs = dict(window=(1, 1, 3, 3), strides=(1, 1, 1, 1), padding=((0, 0),) * 4)
    tracer = Tracer("g")
    x = tracer.add_input(TensorType((1, 1, 5, 5), to_dtype("float32")), "x")
    c = tracer.add_input(TensorType((1, 1, 3, 3), to_dtype("float32")), "c")
    (out,) = tracer.add_node(prim, (x, c), attrs)
    with pytest.raises(NotImplementedError, match="non-overlapping"):
        gg(tracer.build([out]), [1])


@pytest.mark.parametrize("shape,full", [((3, 3), False), ((4, 2), False), ((2, 4), False), ((2, 3, 2), False),
                                        ((3, 3), True)])
def test_svd_vjp_through_u_and_v(shape, full):
    """Cotangents on s, u and v at once (distinct singular values) against jax.vjp of the same
    decomposition (jax's has no vjp through u and v of a non-square full_matrices one)."""
    a = rng.standard_normal(shape)
    prim = PRIMITIVES["svd"]
    tracer = Tracer("svd")
    x = tracer.add_input(TensorType(shape, to_dtype("float64")), "x")
    outs = tracer.add_node(prim, (x,), {"full_matrices": full, "compute_uv": True})
    g = grad_graph(tracer.build(list(outs)), [0], outputs=(0, 1, 2), with_sens=True)
    cts = [rng.standard_normal(o.shape) for o in outs]
    got = graph_to_jax(g)(a, *cts)[-1]
    _, vjp = jax.vjp(lambda t: prim.impl(t, full_matrices=full, compute_uv=True), a)
    np.testing.assert_allclose(got, vjp(tuple(cts))[0], rtol=1e-9, atol=1e-9)


def test_svd_vjp_through_u_of_a_wide_full_decomposition_says_so():
    tracer = Tracer("svd")
    x = tracer.add_input(TensorType((2, 3), to_dtype("float64")), "x")
    outs = tracer.add_node(PRIMITIVES["svd"], (x,), {"full_matrices": True, "compute_uv": True})
    with pytest.raises(NotImplementedError, match="full_matrices=True needs a square"):
        grad_graph(tracer.build(list(outs)), [0], outputs=(1,))

"""Property tests: random small compositions of elementwise/reduce/reshape/transpose/dot ops.
eager == XLA (jit) == ONNX (onnxruntime) within tolerance; grad == central finite differences (float64);
vmap == stacking f over slices for random in/out axes; binary/unary ops over random broadcastable
shapes and dtypes == numpy, with MindSpore's type promotion, eagerly, under jit and through
onnxruntime."""
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis.extra import numpy as hnp
from hypothesis import strategies as st

import graphcell as ms
from graphcell import ops
from graphcell.runtime import Session
from tests.conftest import fuzz_derandomized, fuzz_examples

pytestmark = pytest.mark.fuzz   # `make test-fuzz` runs them with many more examples

PROPS = settings(max_examples=fuzz_examples(12), deadline=None, derandomize=fuzz_derandomized(),
                 suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

# Smooth steps on a [3, 4] tensor that keep the shape [3, 4].
STEPS = {
    "tanh": lambda x: ops.tanh(x),
    "sin": lambda x: ops.sin(x),
    "square": lambda x: x * x,
    "exp_small": lambda x: ops.exp(x * 0.1),
    "add_rowsum": lambda x: x + x.sum(axis=1, keepdims=True),
    "sub_colmean": lambda x: x - x.mean(axis=0, keep_dims=True),
    "transpose_dot": lambda x: ops.matmul(ops.transpose(x, (1, 0)), x).reshape(-1)[:12].reshape(3, 4) * 0.1,
    "reshape_roundtrip": lambda x: ops.transpose(x.reshape(4, 3), (1, 0)).reshape(3, 4),
    # Patterns the ONNX lowering turns into single ops (Softmax, LogSoftmax, LayerNormalization,
    # GlobalAveragePool): composed with the rest, they must still agree.
    "softmax_rows": lambda x: ops.softmax(x, -1),
    "log_softmax_cols": lambda x: ops.log_softmax(x, 0) * 0.1,
    "normalize_rows": lambda x: _normalized_rows(x),
    "minus_pooled": lambda x: x - ops.mean(x.reshape(1, 3, 4), 2).reshape(3, 1),
    "self_attention": lambda x: _self_attention(x.reshape(1, 1, 3, 4)).reshape(3, 4),   # Attention at opset 23
    # Gathers, slices, pads, concatenations, selects, windows and control flow.
    "gather_rows": lambda x: ops.gather(x, ms.Tensor(np.array([2, 0, 1], np.int32)), 0),
    "gather_elements": lambda x: ops.gather_elements(x, 1, ms.Tensor(np.array([[3, 0, 1, 1], [2, 2, 0, 3], [1, 3, 3, 0]],
                                                                              np.int32))),
    "pad_shift": lambda x: ops.pad(x, ((1, 0), (0, 1)))[:3, 1:] + 0.1 * x,
    "interleave_cols": lambda x: ops.concat((x[:, ::2], x[:, 1::2] * 0.5), 1),
    "split_mix": lambda x: _split_mix(x),
    "where_leaky": lambda x: ops.where(x > 0, x, x * 0.3),
    "logsumexp_rows": lambda x: x - ops.logsumexp(x, 1, keepdim=True),
    "over_col_std": lambda x: x * ops.rsqrt(ops.var(x, 0, keepdims=True) + 0.5),
    "max_pool_same": lambda x: ops.max_pool(x, (2, 2), (1, 1), ((0, 1), (1, 0))) * 0.5 + x * 0.5,
    "sum_pool_rows": lambda x: ops.sum_pool(x, (1, 3), (1, 1), ((0, 0), (1, 1))) * 0.3,
    # (On one element: a sum can be zero up to rounding, after sub_colmean, and then each
    # backend's rounding picks its own branch.)
    "cond_on_element": lambda x: ops.cond(x[0, 1] > 0.05, lambda t: t * 0.5, lambda t: ops.sin(t), x),
    "fori_damp": lambda x: ops.fori_loop(0, 3, lambda i, t: t * 0.9 + 0.1 * ops.tanh(t), x),
}


def _split_mix(x):
    a, b = ops.split(x, 2, 1)
    return ops.concat((a * b, a - b), 1)


def _self_attention(x):
    return ops.matmul(ops.softmax(ops.matmul(x, ops.swapaxes(x, -1, -2)) * 0.5, -1), x)


def _normalized_rows(x):
    centered = x - x.mean(axis=1, keep_dims=True)
    return centered * ops.rsqrt((centered * centered).mean(axis=1, keep_dims=True) + 1e-3)


programs = st.lists(st.sampled_from(sorted(STEPS)), min_size=1, max_size=5)


def compose(names):
    def f(x):
        for n in names:
            x = STEPS[n](x)
        return x.sum(axis=0)
    return f


@PROPS
@given(names=programs, seed=st.integers(0, 2**16), opset=st.sampled_from([18, 23]))
def test_eager_equals_xla_equals_onnx(tmp_path, names, seed, opset):
    f = compose(names)
    x = np.random.default_rng(seed).uniform(-1, 1, (3, 4)).astype(np.float32)
    eager = f(ms.Tensor(x)).asnumpy()
    xla = ms.jit(f)(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(xla, eager, rtol=1e-4, atol=1e-5)
    path = ms.export(f, ms.Tensor(x), file_name=str(tmp_path / "p.onnx"), dynamic_axes=False, opset=opset)
    onnx_out = Session(path, providers=["cpu"])(x)
    np.testing.assert_allclose(onnx_out, eager, rtol=1e-4, atol=1e-5)


@PROPS
@given(names=programs, seed=st.integers(0, 2**16))
def test_grad_equals_central_differences_float64(names, seed):
    f = compose(names)

    def loss(x):
        return f(x).sum()
    # Values at least 0.12 apart: a max or a select on the input sees no near-tie, where central
    # differences would straddle the kink.
    rng = np.random.default_rng(seed)
    x = (rng.permutation(12).reshape(3, 4) - 5.5) / 6 + rng.uniform(-0.02, 0.02, (3, 4))
    g = ms.grad(loss)(ms.Tensor(x)).asnumpy()
    eps, fd = 1e-6, np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        fd[i] = (loss(ms.Tensor(x + d)).asnumpy() - loss(ms.Tensor(x - d)).asnumpy()) / (2 * eps)
    np.testing.assert_allclose(g, fd, rtol=1e-5, atol=1e-6)


# -- vmap == stacking f over slices --------------------------------------------------------------------

# Steps on (a: [3, 4], b: [4, 4]) that return a new a: [3, 4]; b is read by some.
VMAP_STEPS = {
    "tanh": lambda a, b: ops.tanh(a),
    "matmul_b": lambda a, b: ops.matmul(a, b) * 0.5,
    "add_colsum_b": lambda a, b: a + b.sum(axis=0),
    "sub_rowmean": lambda a, b: a - a.mean(axis=1, keep_dims=True),
    "sub_colmax": lambda a, b: a - a.max(axis=0),
    "b_matmul_aT_T": lambda a, b: ops.transpose(ops.matmul(b, ops.transpose(a, (1, 0))), (1, 0)) * 0.5,
    "reshape_roundtrip": lambda a, b: ops.transpose(a.reshape(4, 3), (1, 0)).reshape(3, 4),
    "times_row_of_b": lambda a, b: a * b[1],
    "relu": lambda a, b: ops.maximum(a, 0.0),
    "gather_rows_b": lambda a, b: ops.gather(b, ms.Tensor(np.array([3, 0, 2], np.int32)), 0) + a,
    "where_a_gt_b": lambda a, b: ops.where(a > b[:3], a, b[1:] * 0.5),
    "pad_shift": lambda a, b: ops.pad(a, ((0, 1), (1, 0)))[1:, :4],
    "cond_on_element": lambda a, b: ops.cond(a[0, 1] > b[0, 1], lambda t: t * 0.5, lambda t: t - 1.0, a),
    "fori_add_b": lambda a, b: ops.fori_loop(0, 2, lambda i, t: t + b[0] * 0.25, a),
    "max_pool": lambda a, b: ops.max_pool(a, (2, 1), (1, 1), ((1, 0), (0, 0))),
}
VMAP_PROPS = settings(max_examples=fuzz_examples(10), deadline=None, derandomize=fuzz_derandomized(),
                      suppress_health_check=[HealthCheck.too_slow])
MAPPED = 2                                        # the mapped axis' size


def vmap_program(names):
    def f(a, b):
        for n in names:
            a = VMAP_STEPS[n](a, b)
        return a, a.sum(axis=0)                   # outputs of rank 2 and 1
    return f


@st.composite
def vmap_axes(draw):
    """in_axes for (a, b) (None or any valid axis, negative ones too, not both None) and out_axes
    (one int valid for both outputs, or one per output)."""
    in_axes = draw(st.tuples(st.one_of(st.none(), st.integers(-3, 2)), st.one_of(st.none(), st.integers(-3, 2)))
                   .filter(lambda t: t != (None, None)))
    out_axes = draw(st.one_of(st.integers(-2, 1), st.tuples(st.integers(-3, 2), st.integers(-2, 1))))
    return in_axes, out_axes


@VMAP_PROPS
@given(names=st.lists(st.sampled_from(sorted(VMAP_STEPS)), min_size=1, max_size=4), axes=vmap_axes(),
       seed=st.integers(0, 2**16), compiled=st.sampled_from([False, "xla", "onnx"]))
def test_vmap_equals_stacking_over_slices(names, axes, seed, compiled):
    """Eagerly, jitted, and through onnxruntime (whose lowering splits members apart)."""
    in_axes, out_axes = axes
    f = vmap_program(names)
    rng = np.random.default_rng(seed)
    unbatched = [rng.uniform(-1, 1, (3, 4)), rng.uniform(-1, 1, (4, 4))]
    args = [x if ax is None else np.moveaxis(np.stack([x + k for k in range(MAPPED)]), 0, ax)
            for x, ax in zip(unbatched, in_axes)]
    # reference: f on each slice, stacked on the out axis
    per_slice = [f(*[ms.Tensor(x if ax is None else np.take(x, i, axis=ax)) for x, ax in zip(args, in_axes)])
                 for i in range(MAPPED)]
    outs_axes = out_axes if isinstance(out_axes, tuple) else (out_axes, out_axes)
    want = [np.stack([s[k].asnumpy() for s in per_slice], axis=outs_axes[k]) for k in range(2)]

    mapped = ms.vmap(f, in_axes=in_axes, out_axes=out_axes)
    got = (ms.jit(mapped, backend=compiled) if compiled else mapped)(*[ms.Tensor(x) for x in args])
    for k in range(2):
        assert got[k].shape == want[k].shape, (k, got[k].shape, want[k].shape)
        np.testing.assert_allclose(got[k].asnumpy(), want[k], rtol=1e-12, atol=1e-12)


# -- dtypes and broadcasting against numpy ---------------------------------------------------------

DTYPES = [np.float16, np.float32, np.float64, np.int32, np.bool_]
KIND_ORDER = [np.bool_, np.int32, np.float16, np.float32, np.float64]


def mindspore_result_dtype(op: str, x, y):
    """MindSpore's promotion for Tensor-Tensor operands (see ops/functional.py and dtype.py):
    bool < int < float, the wider of one kind. It departs from numpy where an int meets a float:
    numpy widens int32 + float16 to float64, MindSpore keeps the float (float16). Division of ints
    (or bools) gives float32 in MindSpore, float64 in numpy. Comparisons give bool in both."""
    common = max(x, y, key=KIND_ORDER.index)
    if op in COMPARISONS:
        return np.bool_
    if op == "div" and common in (np.bool_, np.int32):
        return np.float32
    return common


BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "maximum": np.maximum,
          "minimum": np.minimum, "div": np.true_divide}
COMPARISONS = {"equal": np.equal, "less": np.less, "greater_equal": np.greater_equal}
TOL = {np.float16: 2e-3, np.float32: 1e-6, np.float64: 1e-12}


def _values(rng, shape, dtype, nonzero=False):
    if dtype is np.bool_:
        return rng.random(shape) < (1.0 if nonzero else 0.5)
    if dtype is np.int32:
        v = rng.integers(-5, 6, shape)
        return np.where(v == 0, 1, v).astype(np.int32) if nonzero else v.astype(np.int32)
    v = rng.uniform(-2, 2, shape)
    return np.where(np.abs(v) < 0.25, 1.0, v).astype(dtype) if nonzero else v.astype(dtype)


def _check(got, want, dtype):
    assert got.dtype == np.dtype(dtype) and got.shape == want.shape, (got.dtype, got.shape, want.shape)
    if dtype in TOL:
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=TOL[dtype], atol=TOL[dtype])
    else:
        np.testing.assert_array_equal(got, want)


@PROPS
@given(op=st.sampled_from(sorted(BINARY) + sorted(COMPARISONS)),
       shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3),
       dtypes=st.tuples(st.sampled_from(DTYPES), st.sampled_from(DTYPES)), seed=st.integers(0, 2**16))
def test_binary_ops_broadcast_and_promote(op, shapes, dtypes, seed):
    result = mindspore_result_dtype(op, *dtypes)
    common = max(*dtypes, key=KIND_ORDER.index)
    assume(not (op == "sub" and common is np.bool_))           # neither numpy nor MindSpore subtracts bools
    rng = np.random.default_rng(seed)
    x = _values(rng, shapes.input_shapes[0], dtypes[0])
    y = _values(rng, shapes.input_shapes[1], dtypes[1], nonzero=op == "div")
    reference = {**BINARY, **COMPARISONS}[op]
    compute = result if op not in COMPARISONS else common      # numpy at MindSpore's operand dtype
    want = np.asarray(reference(x.astype(compute), y.astype(compute))).astype(result)
    fn = getattr(ops, op)
    for run in (fn, ms.jit(fn), ms.jit(fn, backend="onnx")):
        got = run(ms.Tensor(x), ms.Tensor(y)).asnumpy()
        _check(got, want, result)


def mindspore_scalar_result_dtype(dtype, scalar):
    """MindSpore's promotion for a Tensor with a Python scalar (its "Implicit Type Conversion"
    rules): the scalar takes the Tensor's dtype, except that a float with an int or bool Tensor
    computes in float32 and an int with a bool Tensor in int64 (both measured on MindSpore 2.10:
    Bool + 1, * 2, - 1 and 1 + Bool are Int64)."""
    if isinstance(scalar, float) and dtype in (np.bool_, np.int32):
        return np.float32
    if isinstance(scalar, int) and not isinstance(scalar, bool) and dtype is np.bool_:
        return np.int64
    return dtype


SCALARS = st.one_of(st.booleans(), st.integers(-3, 3), st.sampled_from([-1.5, 0.5, 2.0]))


@PROPS
@given(op=st.sampled_from(["add", "sub", "mul", "maximum"]), shape=hnp.array_shapes(min_dims=0, max_dims=2, max_side=3),
       dtype=st.sampled_from(DTYPES), scalar=SCALARS, scalar_first=st.booleans(), seed=st.integers(0, 2**16))
@example(op="add", shape=(2, 3), dtype=np.bool_, scalar=2, scalar_first=False, seed=1)   # the int64 rule
@example(op="sub", shape=(3,), dtype=np.bool_, scalar=1, scalar_first=True, seed=2)
@example(op="mul", shape=(), dtype=np.int32, scalar=0.5, scalar_first=False, seed=3)     # the float32 rule
def test_tensor_with_python_scalar_promotes_as_mindspore(op, shape, dtype, scalar, scalar_first, seed):
    result = mindspore_scalar_result_dtype(dtype, scalar)
    assume(not (op == "sub" and result is np.bool_))          # refused, as MindSpore's Sub (test_errors)
    x = _values(np.random.default_rng(seed), shape, dtype)
    operands = (np.asarray(scalar).astype(result), x.astype(result))
    want = np.asarray(BINARY[op](*(operands if scalar_first else operands[::-1]))).astype(result)
    fn = getattr(ops, op)
    for run in (fn, ms.jit(fn), ms.jit(fn, backend="onnx")):
        got = run(scalar, ms.Tensor(x)) if scalar_first else run(ms.Tensor(x), scalar)
        _check(got.asnumpy(), want, result)


UNARY = {"neg": (np.negative, DTYPES[:4]), "abs": (np.abs, DTYPES[:4]), "square": (np.square, DTYPES[:4]),
         "sign": (np.sign, DTYPES[:4]), "exp": (np.exp, DTYPES[:3]), "tanh": (np.tanh, DTYPES[:3]),
         "sin": (np.sin, DTYPES[:3]), "sigmoid": (lambda v: 1 / (1 + np.exp(-v)), DTYPES[:3])}


@PROPS
@given(op=st.sampled_from(sorted(UNARY)), shape=hnp.array_shapes(min_dims=0, max_dims=3, max_side=3),
       pick=st.integers(0, 3), seed=st.integers(0, 2**16))
def test_unary_ops_keep_the_dtype(op, shape, pick, seed):
    reference, dtypes = UNARY[op]
    dtype = dtypes[pick % len(dtypes)]
    x = _values(np.random.default_rng(seed), shape, dtype)
    want = np.asarray(reference(x.astype(np.float64))).astype(dtype)   # float64 math, rounded once
    fn = getattr(ops, op)
    for run in (fn, ms.jit(fn), ms.jit(fn, backend="onnx")):
        _check(run(ms.Tensor(x)).asnumpy(), want, dtype)


REDUCTIONS = {"sum": np.sum, "amax": np.max, "amin": np.min, "reduce_prod": np.prod, "mean": np.mean,
              "argmax": np.argmax, "argmin": np.argmin, "any": np.any, "all": np.all}


@st.composite
def reduction_axes(draw, ndim, single):
    if ndim == 0 or draw(st.booleans()) and not single:
        return None
    if single or draw(st.booleans()):
        return draw(st.integers(-ndim, ndim - 1))
    return tuple(draw(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True)))


@PROPS
@given(op=st.sampled_from(sorted(REDUCTIONS)), shape=hnp.array_shapes(min_dims=1, max_dims=3, max_side=3),
       pick=st.integers(0, 4), keep=st.booleans(), data=st.data(), seed=st.integers(0, 2**16))
def test_reductions_agree_with_numpy_eagerly_under_jit_and_in_onnxruntime(op, shape, pick, keep, data, seed):
    """Every dtype a reduction takes (bools for any/all), over None, one axis or several."""
    dtypes = [np.bool_] if op in ("any", "all") else [np.float16, np.float32, np.float64, np.int32]
    dtype = dtypes[pick % len(dtypes)]
    single = op in ("argmax", "argmin")
    axis = data.draw(reduction_axes(len(shape), single))
    x = _values(np.random.default_rng(seed), shape, dtype)
    if dtype is np.int32 and op == "reduce_prod":
        x = np.clip(x, -2, 2)
    keyword = "keep_dims" if op in ("mean", "any", "all") else "keepdims"
    fn = lambda t: getattr(ops, op)(t, axis, **{keyword: keep})   # noqa: E731
    eager = fn(ms.Tensor(x)).asnumpy()
    numpy_axis = axis if axis is not None or not single else None
    want = REDUCTIONS[op](x.astype(np.float64) if dtype is np.float16 else x, axis=numpy_axis, keepdims=keep)
    tol = {np.float16: 2e-3, np.float32: 1e-5, np.float64: 1e-12}.get(eager.dtype.type, 0)   # int32's mean: float32
    np.testing.assert_allclose(eager.astype(np.float64), np.asarray(want, np.float64), rtol=tol, atol=tol)
    for run in (ms.jit(fn), ms.jit(fn, backend="onnx")):
        got = run(ms.Tensor(x)).asnumpy()
        assert got.dtype == eager.dtype and got.shape == eager.shape, (got.dtype, eager.dtype, got.shape, eager.shape)
        np.testing.assert_allclose(got.astype(np.float64), eager.astype(np.float64), rtol=tol, atol=tol)


@st.composite
def indices(draw, shape):
    """A numpy index for `shape`: per axis an int, a slice (any step) or an integer array
    (negative entries too), with None and one Ellipsis here and there."""
    items, k = [], 0
    while k < len(shape):
        size = shape[k]
        if draw(st.integers(0, 5)) == 0:
            items.append(None)
        kind = draw(st.sampled_from(["int", "slice", "array", "skip"]))
        if kind == "int":
            items.append(draw(st.integers(-size, size - 1)))
        elif kind == "slice":
            bound = st.one_of(st.none(), st.integers(-size - 1, size + 1))
            items.append(slice(draw(bound), draw(bound), draw(st.sampled_from([None, 1, 2, 3, -1, -2, -3]))))
        elif kind == "array":
            dims = draw(st.lists(st.integers(1, 3), max_size=2))
            items.append(draw(hnp.arrays(np.int32, dims, elements=st.integers(-size, size - 1))))
        else:   # the rest of the axes, taken whole
            items.append(Ellipsis)
            break
        k += 1
    return tuple(items)


@PROPS
@given(shape=hnp.array_shapes(min_dims=1, max_dims=3, max_side=5), data=st.data(), seed=st.integers(0, 2**16))
def test_indexing_is_numpys_eagerly_under_jit_and_in_onnxruntime(shape, data, seed):
    index = data.draw(indices(shape))
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    as_graphcell = tuple(ms.Tensor(i) if isinstance(i, np.ndarray) else i for i in index)
    fn = lambda t: t[as_graphcell]   # noqa: E731
    try:
        want = x[index]
    except IndexError:   # arrays that do not broadcast together: refused alike
        with pytest.raises(IndexError, match="could not be broadcast together"):
            fn(ms.Tensor(x))
        return
    for run in (fn, ms.jit(fn), ms.jit(fn, backend="onnx")):
        got = run(ms.Tensor(x)).asnumpy()
        assert got.shape == want.shape, (got.shape, want.shape)
        np.testing.assert_array_equal(got, want)
    # The gradient of sum(x[index] * w): each element's w summed where it was picked.
    w = np.random.default_rng(seed + 1).standard_normal(want.shape).astype(np.float32)
    expected = np.zeros_like(x)
    np.add.at(expected, index, w)
    grad = ms.grad(lambda t: (t[as_graphcell] * ms.Tensor(w)).sum())(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(grad, expected, rtol=1e-6, atol=1e-6)


@PROPS
@given(shape=hnp.array_shapes(min_dims=1, max_dims=3, max_side=5), data=st.data(), seed=st.integers(0, 2**16))
def test_assignment_is_numpys_eagerly_under_jit_and_in_onnxruntime(shape, data, seed):
    """`x[index] = value` for a static index, the value a scalar or broadcast from a suffix of
    x[index]'s shape (numpy: where an index repeats, the last write wins)."""
    index = data.draw(indices(shape))
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(np.float32)
    try:
        picked = x[index].shape
    except IndexError:   # arrays that do not broadcast together (the indexing test checks the error)
        return
    value = rng.standard_normal(picked[data.draw(st.integers(0, len(picked))):]).astype(np.float32)
    want = x.copy()
    want[index] = value

    def assign(t, v):
        t = t * 1.0
        t[index] = v
        return t
    for run in (assign, ms.jit(assign), ms.jit(assign, backend="onnx")):
        np.testing.assert_array_equal(run(ms.Tensor(x), ms.Tensor(value)).asnumpy(), want)


@PROPS
@given(shape=hnp.array_shapes(min_dims=1, max_dims=3, max_side=5), data=st.data(), seed=st.integers(0, 2**16))
def test_assignment_through_tensor_indices_is_numpys(shape, data, seed):
    """`x[index] = value` where the index's arrays are Tensors (known only when the graph
    runs) beside ints, slices, None and Ellipsis; repeats and negative entries too (the last
    write wins); the value a scalar or broadcast from a suffix of x[index]'s shape. Gradients
    go to the elements no write touched and to each position's last write; under vmap every
    member has its own indices."""
    index = data.draw(indices(shape))
    if not any(isinstance(i, np.ndarray) for i in index):
        return
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(np.float32)
    try:
        picked = x[index].shape
    except IndexError:   # arrays that do not broadcast together (the indexing test checks the error)
        return
    value = rng.standard_normal(picked[data.draw(st.integers(0, len(picked))):]).astype(np.float32)
    want = x.copy()
    want[index] = value
    where = [k for k, i in enumerate(index) if isinstance(i, np.ndarray)]

    def assign(t, v, *arrays):
        key = list(index)
        for k, a in zip(where, arrays):
            key[k] = a
        t = t * 1.0
        t[tuple(key)] = v
        return t
    arrays = [index[k] for k in where]
    for run in (assign, ms.jit(assign), ms.jit(assign, backend="onnx")):
        got = run(ms.Tensor(x), ms.Tensor(value), *map(ms.Tensor, arrays)).asnumpy()
        np.testing.assert_array_equal(got, want)

    w = rng.standard_normal(shape).astype(np.float32)
    positions = np.arange(x.size).reshape(shape)[index]
    last = np.zeros(x.size, np.int64) - 1
    last[positions.ravel()] = np.arange(positions.size)
    wins = (last[positions.ravel()] == np.arange(positions.size)).reshape(positions.shape)
    per_write = np.where(wins, w.ravel()[positions], 0)
    want_dv = per_write.sum(axis=tuple(range(per_write.ndim - value.ndim)))
    want_dx = np.where(np.isin(np.arange(x.size), positions), 0, w.ravel()).reshape(shape)
    dx, dv = ms.grad(lambda t, v, *a: (assign(t, v, *a) * ms.Tensor(w)).sum(), grad_position=(0, 1))(
        ms.Tensor(x), ms.Tensor(value), *map(ms.Tensor, arrays))
    np.testing.assert_allclose(dx.asnumpy(), want_dx, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(dv.asnumpy(), want_dv, rtol=1e-5, atol=1e-5)

    # Under vmap: each member its own x and indices (the entries shuffled, or i -> -i - 1).
    members = [arrays, [rng.permutation(a.ravel()).reshape(a.shape) for a in arrays], [-a - 1 for a in arrays]]
    xs = np.stack([x + m for m in range(3)])
    wants = []
    for m, member_arrays in enumerate(members):
        key = list(index)
        for k, a in zip(where, member_arrays):
            key[k] = a
        wants.append(xs[m].copy())
        wants[-1][tuple(key)] = value
    stacked = [ms.Tensor(np.stack(column)) for column in zip(*members)]
    got = ms.vmap(assign, in_axes=(0, None) + (0,) * len(arrays))(ms.Tensor(xs), ms.Tensor(value), *stacked)
    np.testing.assert_array_equal(got.asnumpy(), np.stack(wants))

"""Every primitive against an independent implementation: numpy (and torch for conv and
pooling), eagerly and through jit, on several shapes and dtypes."""
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import graphcell as ms
from graphcell.ops import functional as F
from graphcell.tensor import Tensor
from tests.registry import every_primitive

# every ops module imported first: a record's primitive may live in a module loaded on first use
PRIMITIVES = every_primitive()

RNG = np.random.default_rng(0)
FLOATS = (np.float32, np.float64)


def rand(shape, dtype=np.float32, low=-2.0, high=2.0):
    if np.dtype(dtype).kind == "b":
        return RNG.random(shape) > 0.5
    if np.dtype(dtype).kind in "iu":
        return RNG.integers(0 if np.dtype(dtype).kind == "u" else -5, 6, shape).astype(dtype)
    return RNG.uniform(low, high, shape).astype(dtype)


def _erf(x):
    return np.vectorize(math.erf)(x).astype(x.dtype)


UNARY = {
    "neg": (np.negative, None), "exp": (np.exp, None), "log": (np.log, (0.1, 3)),
    "log1p": (np.log1p, (-0.5, 3)), "expm1": (np.expm1, None), "sqrt": (np.sqrt, (0.1, 3)),
    "rsqrt": (lambda x: 1 / np.sqrt(x), (0.1, 3)), "tanh": (np.tanh, None),
    "relu": (lambda x: np.maximum(x, 0), None), "relu6": (lambda x: np.clip(x, 0, 6), (-3, 9)),
    "logistic": (lambda x: 1 / (1 + np.exp(-x)), None), "sin": (np.sin, None), "cos": (np.cos, None),
    "erf": (_erf, None), "abs": (np.abs, None), "sign": (np.sign, None), "floor": (np.floor, None),
    "ceil": (np.ceil, None), "round": (np.round, None),
    "sinh": (np.sinh, None), "cosh": (np.cosh, None), "tan": (np.tan, (-1.5, 1.5)), "asin": (np.arcsin, (-1, 1)),
    "acos": (np.arccos, (-1, 1)), "atan": (np.arctan, (-10, 10)), "asinh": (np.arcsinh, (-10, 10)),
    "acosh": (np.arccosh, (1, 10)), "atanh": (np.arctanh, (-0.99, 0.99)),
    "erfc": (lambda x: np.vectorize(math.erfc)(x).astype(x.dtype), (-3, 9)),
    "erfinv": (lambda x: torch.special.erfinv(torch.from_numpy(x)).numpy(), (-0.999, 0.999)),
    "lgamma": (lambda x: torch.lgamma(torch.from_numpy(x)).numpy(), (-4.9, 9)),
    "digamma": (lambda x: torch.digamma(torch.from_numpy(x)).numpy(), (-4.9, 9)),
    "hard_sigmoid": (lambda x: np.clip(x + 3, 0, 6) / 6, (-5, 5)), "softsign": (lambda x: x / (1 + np.abs(x)), None),
    "hard_swish": (lambda x: x * np.clip(x + 3, 0, 6) / 6, (-5, 5)),
}
BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide, "max": np.maximum,
    "min": np.minimum, "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
    "gt": np.greater, "ge": np.greater_equal, "rem": np.fmod,
}
SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((4, 1, 5), (1, 3, 5)), ((), (2, 2))]
FLOAT_BINARY = {"atan2": np.arctan2}   # (tests/test_ops_math.py has its edge values)


def run(prim_name, arrays, attrs, jit):
    prim = PRIMITIVES[prim_name]
    tensors = [Tensor(a) for a in arrays]
    if jit:
        out = ms.jit(lambda *ts: prim.bind(*ts, **attrs))(*tensors)
    else:
        out = prim.bind(*tensors, **attrs)
    return [o.asnumpy() for o in out] if isinstance(out, tuple) else out.asnumpy()


def close(got, want, dtype):
    tol = 1e-5 if np.dtype(dtype) == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    assert got.dtype == np.asarray(want).dtype or got.dtype == np.dtype(dtype)


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name, dtype, jit):
    fn, domain = UNARY[name]
    for shape in [(5,), (2, 3, 4)]:
        x = rand(shape, dtype, *(domain or (-2, 2)))
        close(run(name, [x], {}, jit), fn(x), dtype)


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", sorted(FLOAT_BINARY))
def test_float_binary(name, dtype, jit):
    for sx, sy in SHAPES:
        x, y = rand(sx, dtype), rand(sy, dtype)
        close(run(name, [x, y], {}, jit), FLOAT_BINARY[name](x, y), dtype)


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("dtype", FLOATS + (np.int32,))
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary(name, dtype, jit):
    for sx, sy in SHAPES:
        x, y = rand(sx, dtype), rand(sy, dtype)
        if name in ("div", "rem"):
            y = np.where(y == 0, 1, y).astype(dtype)
        want = BINARY[name](x, y)
        if name == "div" and np.dtype(dtype).kind == "i":
            want = np.floor_divide(x, y)
        np.testing.assert_allclose(run(name, [x, y], {}, jit), want, rtol=1e-6)


def test_pow_not_and_or_select_isfinite():
    x, y = rand((3, 4), np.float32, 0.1, 2), rand((3, 4), np.float32)
    np.testing.assert_allclose(run("pow", [x, y], {}, False), np.power(x, y), rtol=1e-5)
    a, b = rand((6,), np.bool_), rand((6,), np.bool_)
    np.testing.assert_array_equal(run("and", [a, b], {}, True), a & b)
    np.testing.assert_array_equal(run("or", [a, b], {}, True), a | b)
    np.testing.assert_array_equal(run("not", [a], {}, True), ~a)
    np.testing.assert_array_equal(run("xor", [a, b], {}, True), a ^ b)
    # On integers they are bitwise, as numpy's ~ & | ^ (they were logical, typed as the input).
    i, j = np.array([0, 1, 5, -6, 12], np.int32), np.array([3, 1, 4, 7, -1], np.int32)
    for name, want in [("and", i & j), ("or", i | j), ("xor", i ^ j), ("not", ~i)]:
        for jit in (False, True):
            got = run(name, [i, j][:1 if name == "not" else 2], {}, jit)
            assert got.dtype == np.int32
            np.testing.assert_array_equal(got, want, err_msg=name)
    c = rand((2, 3), np.bool_)
    np.testing.assert_array_equal(run("select", [c, x[:2, :3], y[:2, :3]], {}, True),
                                  np.where(c, x[:2, :3], y[:2, :3]))
    z = np.array([1.0, np.inf, -np.inf, np.nan], np.float32)
    np.testing.assert_array_equal(run("is_finite", [z], {}, False), np.isfinite(z))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.float16])
def test_cast_and_constant(dtype):
    x = rand((3, 2), np.float32, -3, 3)
    got = run("cast", [x], {"dtype": ms.dtype.to_dtype(dtype)}, True)
    np.testing.assert_array_equal(got, x.astype(dtype))
    from graphcell.ops.primitive import Literal
    lit = np.arange(6, dtype=dtype).reshape(2, 3)
    np.testing.assert_array_equal(run("constant", [], {"value": Literal(lit)}, True), lit)


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("name,fn", [("reduce_sum", np.sum), ("reduce_max", np.max),
                                     ("reduce_min", np.min), ("reduce_prod", np.prod)])
def test_reductions(name, fn, jit):
    for dtype in (np.float32, np.int64):
        x = rand((2, 3, 4), dtype, 0.5, 1.5)
        for axes in [(0,), (1, 2), (0, 1, 2), ()]:
            close(run(name, [x], {"axes": axes}, jit), fn(x, axis=axes), np.float32)


def test_argmax_argmin():
    x = rand((3, 5, 2), np.float32)
    for axis in range(3):
        np.testing.assert_array_equal(run("argmax", [x], {"axis": axis, "index_dtype": ms.int32}, True),
                                      np.argmax(x, axis))
        np.testing.assert_array_equal(run("argmin", [x], {"axis": axis, "index_dtype": ms.int64}, False),
                                      np.argmin(x, axis))


@pytest.mark.parametrize("jit", [False, True])
def test_scans_and_sorts(jit):
    """cumsum/cumprod/sort/top_k against numpy; the functional forms, ONNX, vmap and grad in
    tests/test_ops_sorting.py."""
    x = np.round(rand((3, 5), np.float64) * 2) / 2   # halves: ties
    for axis in (0, 1):
        for reverse in (False, True):
            flip = (lambda a: np.flip(a, axis)) if reverse else (lambda a: a)
            close(run("cumsum", [x], {"axis": axis, "reverse": reverse}, jit), flip(np.cumsum(flip(x), axis)), x.dtype)
            close(run("cumprod", [x], {"axis": axis, "reverse": reverse}, jit), flip(np.cumprod(flip(x), axis)),
                  x.dtype)
        order = np.argsort(x, axis, kind="stable")
        values, idx = run("sort", [x], {"axis": axis, "descending": False, "index_dtype": ms.int32}, jit)
        np.testing.assert_array_equal(idx, order)
        np.testing.assert_array_equal(values, np.take_along_axis(x, order, axis))
        assert idx.dtype == np.int32
        down = np.argsort(-x, axis, kind="stable")   # descending, equal values by index
        values, idx = run("top_k", [x], {"k": 2, "axis": axis, "largest": True, "index_dtype": ms.int64}, jit)
        np.testing.assert_array_equal(idx, np.take(down, [0, 1], axis))
        np.testing.assert_array_equal(values, np.take_along_axis(x, idx, axis))
        assert idx.dtype == np.int64


def test_shape_primitives():
    x = rand((2, 3, 4), np.float64)
    np.testing.assert_array_equal(run("reshape", [x], {"shape": (4, 6)}, True), x.reshape(4, 6))
    np.testing.assert_array_equal(run("transpose", [x], {"perm": (2, 0, 1)}, True), x.transpose(2, 0, 1))
    b = rand((3, 1), np.float32)
    np.testing.assert_array_equal(run("broadcast_in_dim", [b], {"shape": (2, 3, 5), "dims": (1, 2)}, True),
                                  np.broadcast_to(b[None], (2, 3, 5)))
    y = rand((2, 5, 4), np.float64)
    np.testing.assert_array_equal(run("concatenate", [x, y], {"axis": 1}, True), np.concatenate([x, y], 1))
    np.testing.assert_array_equal(
        run("slice", [x], {"start": (0, 1, 0), "limit": (2, 3, 4), "strides": (1, 1, 2)}, False),
        x[0:2, 1:3, 0:4:2])
    np.testing.assert_array_equal(
        run("pad", [x, np.array(7.0)], {"lo": (1, 0, 2), "hi": (0, 1, 0)}, True),
        np.pad(x, ((1, 0), (0, 1), (2, 0)), constant_values=7.0))
    np.testing.assert_array_equal(run("rev", [x], {"axes": (0, 2)}, True), x[::-1, :, ::-1])
    idx = np.array([[2, 0], [1, 1]], np.int32)
    np.testing.assert_array_equal(run("take", [x, idx], {"axis": 2}, True), np.take(x, idx, axis=2))
    ia = RNG.integers(0, 3, (2, 3, 4)).astype(np.int64)
    np.testing.assert_array_equal(run("take_along_axis", [x, ia], {"axis": 1}, False),
                                  np.take_along_axis(x, ia, 1))
    base, upd = np.zeros((5, 3)), rand((4, 3), np.float64)
    ind = np.array([0, 2, 2, 4])
    want = base.copy()
    np.add.at(want, ind, upd)
    np.testing.assert_allclose(run("scatter_add", [base, ind, upd], {"axis": 0}, True), want)
    rows, at = rand((2, 3), np.float64), np.array([4, -3])        # -3 clamps to row 0
    want = rand((5, 3), np.float64)
    got = run("write_rows", [want, at, rows], {}, False)
    want[[4, 0]] = rows
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(run("stop_gradient", [x], {}, True), x)


@pytest.mark.parametrize("dtype", FLOATS)
def test_dot_general(dtype):
    x, y = rand((2, 3, 4), dtype), rand((2, 4, 5), dtype)
    got = run("dot_general", [x, y], {"contract": ((2,), (1,)), "batch": ((0,), (0,))}, True)
    close(got, np.einsum("bij,bjk->bik", x, y), dtype)
    w = rand((6, 4), dtype)
    close(run("dot_general", [x, w], {"contract": ((2,), (1,)), "batch": ((), ())}, False),
          np.einsum("bij,kj->bik", x, w), dtype)


CONV_CASES = [  # (x shape, w shape, stride, padding, dilation, groups)
    ((2, 3, 9, 9), (4, 3, 3, 3), (1, 1), ((0, 0), (0, 0)), (1, 1), 1),
    ((1, 4, 8, 7), (6, 2, 3, 2), (2, 1), ((1, 1), (0, 2)), (1, 1), 2),
    ((2, 2, 10, 10), (2, 1, 3, 3), (1, 2), ((2, 2), (1, 1)), (2, 2), 2),
]


@pytest.mark.parametrize("case", CONV_CASES)
def test_conv_against_torch(case):
    xs, ws, stride, padding, dilation, groups = case
    x, w = rand(xs, np.float64), rand(ws, np.float64)
    attrs = dict(strides=stride, padding=padding, lhs_dilation=(1, 1), rhs_dilation=dilation,
                 groups=groups, batch_groups=1)
    got = run("conv", [x, w], attrs, True)
    tx = TF.pad(torch.from_numpy(x), (padding[1][0], padding[1][1], padding[0][0], padding[0][1]))
    want = TF.conv2d(tx, torch.from_numpy(w), stride=stride, dilation=dilation, groups=groups).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


def test_conv_lhs_dilation_is_a_transposed_conv():
    x, w = rand((1, 2, 4, 4), np.float64), rand((2, 3, 3, 3), np.float64)  # torch: [in, out, kh, kw]
    want = TF.conv_transpose2d(torch.from_numpy(x), torch.from_numpy(w), stride=2).numpy()
    flipped = np.flip(w, (2, 3)).transpose(1, 0, 2, 3).copy()
    got = run("conv", [x, flipped], dict(strides=(1, 1), padding=((2, 2), (2, 2)), lhs_dilation=(2, 2),
                                         rhs_dilation=(1, 1), groups=1, batch_groups=1), False)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("case", CONV_CASES + [((2, 3, 10, 9), (4, 3, 3, 2), (2, 3), ((1, 2), (0, 1)), (1, 1), 1)])
def test_conv_transpose_is_the_input_gradient_of_torch_conv(case):
    """conv_transpose against torch autograd's input gradient of conv2d (strides that skip
    input rows at the end included: the last case)."""
    xs, ws, stride, padding, dilation, groups = case
    x, w = rand(xs, np.float64), rand(ws, np.float64)
    tx = torch.from_numpy(x).requires_grad_()
    out = TF.conv2d(TF.pad(tx, (padding[1][0], padding[1][1], padding[0][0], padding[0][1])),
                    torch.from_numpy(w), stride=stride, dilation=dilation, groups=groups)
    ct = rand(tuple(out.shape), np.float64)
    (want,) = torch.autograd.grad(out, tx, torch.from_numpy(ct))
    attrs = dict(lhs_shape=xs[2:], strides=stride, padding=padding, rhs_dilation=dilation, groups=groups)
    for jit in (True, False):
        np.testing.assert_allclose(run("conv_transpose", [ct, w], attrs, jit), want.numpy(), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("padding,lhs_dilation", [(((-1, 1), (0, -2)), (1, 1)), (((1, -1), (-2, 2)), (2, 1))])
def test_conv_with_negative_padding_crops(padding, lhs_dilation, dtype):
    """Negative padding crops the (dilated) input. XLA's CPU convolution gets mixed negative
    and positive padding wrong by itself, so the impl crops first; torch is the reference."""
    x, w = rand((2, 3, 7, 7), dtype), rand((4, 3, 3, 3), dtype)
    attrs = dict(strides=(1, 1), padding=padding, lhs_dilation=lhs_dilation, rhs_dilation=(1, 1),
                 groups=1, batch_groups=1)
    tx = torch.from_numpy(x)
    if lhs_dilation != (1, 1):  # dilate axis 2 by inserting zeros between rows
        d = torch.zeros(2, 3, 2 * 7 - 1, 7, dtype=tx.dtype)
        d[:, :, ::2] = tx
        tx = d
    tx = TF.pad(tx, (padding[1][0], padding[1][1], padding[0][0], padding[0][1]))  # negative pads crop
    want = TF.conv2d(tx, torch.from_numpy(w)).numpy()
    for jit in (False, True):
        np.testing.assert_allclose(run("conv", [x, w], attrs, jit), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("k,s,p", [((2, 2), (2, 2), (0, 0)), ((3, 3), (1, 1), (1, 1)), ((3, 2), (2, 1), (1, 0))])
def test_pooling_against_torch(k, s, p):
    x = rand((2, 3, 7, 8), np.float64)
    pads = ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1]))
    window, strides = (1, 1) + k, (1, 1) + s
    got = run("reduce_window_max", [x], dict(window=window, strides=strides, padding=pads), True)
    want = TF.max_pool2d(torch.from_numpy(x), k, s, p).numpy()
    np.testing.assert_allclose(got, want)
    got = run("reduce_window_sum", [x], dict(window=window, strides=strides, padding=pads), True)
    want = TF.avg_pool2d(torch.from_numpy(x), k, s, p, count_include_pad=True).numpy() * np.prod(k)
    np.testing.assert_allclose(got, want, rtol=1e-10)


def test_max_pool_grad_against_torch():
    x = torch.from_numpy(rand((1, 2, 6, 6), np.float64)).requires_grad_()
    out = TF.max_pool2d(x, 2, 2)
    g = torch.from_numpy(rand(tuple(out.shape), np.float64))
    out.backward(g)
    got = run("reduce_window_max_grad", [x.detach().numpy(), g.numpy()],
              dict(window=(1, 1, 2, 2), strides=(1, 1, 2, 2), padding=((0, 0),) * 4), True)
    np.testing.assert_allclose(got, x.grad.numpy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,window", [((2, 3, 8, 6), (1, 1, 2, 2)), ((1, 2, 9, 6), (1, 1, 3, 3)),
                                          ((4, 6), (2, 3)), ((2, 2, 4, 6, 4), (1, 2, 2, 3, 1))])
def test_tiling_max_pool_grad_routes_to_the_first_maximum_as_xla(shape, window, dtype):
    """Windows that tile the input take the argmax form (nn_prims._tiling_max_grad); XLA's
    select-and-scatter is the reference, ties included (rounded values, ReLU zeros)."""
    import jax
    from graphcell.ops.nn_prims import _reduce_window_max
    x = np.maximum(np.round(rand(shape, dtype, -2, 2)), 0)
    attrs = dict(window=window, strides=window, padding=((0, 0),) * len(shape))
    g = rand(tuple(d // k for d, k in zip(shape, window)), dtype)
    _, vjp = jax.vjp(lambda a: _reduce_window_max(a, **attrs), x)
    want = np.asarray(vjp(g)[0])
    for jit in (True, False):
        np.testing.assert_array_equal(run("reduce_window_max_grad", [x, g], attrs, jit), want)


def test_random_primitives_are_deterministic_and_distributed():
    key = np.array([0, 42], np.uint32)
    a = run("random_uniform", [key], {"shape": (2000,), "dtype": ms.float32}, True)
    b = run("random_uniform", [key], {"shape": (2000,), "dtype": ms.float32}, False)
    np.testing.assert_array_equal(a, b)
    assert 0 <= a.min() and a.max() < 1 and abs(a.mean() - 0.5) < 0.03
    n = run("random_normal", [key], {"shape": (4000,), "dtype": ms.float64}, True)
    assert abs(n.mean()) < 0.06 and abs(n.std() - 1) < 0.06
    k1, k2 = run("random_split", [key], {}, True)
    assert not np.array_equal(k1, k2) and k1.dtype == np.uint32
    f = run("random_fold_in", [key, np.array(3, np.int32)], {}, False)
    assert f.shape == (2,) and not np.array_equal(f, key)


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,torch_fn", [("leaky_relu", TF.leaky_relu), ("elu", TF.elu)])
def test_activations_with_alpha_against_torch(name, torch_fn, dtype, jit):
    x = np.concatenate([rand((11,), dtype, -3, 3), np.array([0.0, -0.0, -1e-8], dtype)])
    close(run(name, [x], {"alpha": 0.3}, jit), torch_fn(torch.from_numpy(x), 0.3).numpy(), dtype)


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("lambd,bias,torch_fn", [(0.5, 0.0, TF.hardshrink), (0.5, 0.5, TF.softshrink),
                                                 (1.5, 0.0, TF.hardshrink), (0.0, 0.0, TF.softshrink)])
def test_shrink_against_torch(lambd, bias, torch_fn, dtype, jit):
    """hardshrink is shrink {bias=0}, softshrink shrink {bias=lambd} (ONNX's Shrink); the
    thresholds themselves map to 0."""
    x = np.concatenate([rand((11,), dtype, -3, 3), np.array([lambd, -lambd, 0.0, -0.0], dtype)])
    close(run("shrink", [x], {"lambd": lambd, "bias": bias}, jit), torch_fn(torch.from_numpy(x), lambd).numpy(), dtype)


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("dtype", FLOATS)
def test_polygamma_against_torch(dtype, jit):
    x = rand((3, 4), dtype, -4.9, 9)
    # Within 0.1 of a pole (0, -1, -2, ...) float32's rounding of x alone moves polygamma by
    # more than the tolerance (its relative condition number there is ~(n+1)/distance): step off.
    x = np.where((x < 0.5) & (np.abs(x - np.round(x)) < 0.1), x + 0.3, x).astype(dtype)
    for n in (0, 1, 4):
        want = torch.polygamma(n, torch.from_numpy(x.astype(np.float64))).numpy().astype(dtype)
        tol = 2e-5 if dtype == np.float32 else 1e-9
        # digamma crosses zero at 1.4616...: there only an absolute error (rounding's) is meaningful
        np.testing.assert_allclose(run("polygamma", [x], {"n": n}, jit), want, rtol=tol, atol=tol / 10)


@pytest.mark.parametrize("jit", [False, True])
def test_svd_against_numpy(jit):
    x = rand((2, 4, 3), np.float64)
    s, u, v = run("svd", [x], {"full_matrices": False, "compute_uv": True}, jit)
    np.testing.assert_allclose(s, np.linalg.svd(x, compute_uv=False), rtol=1e-12)
    np.testing.assert_allclose(u @ (s[..., None] * np.swapaxes(v, -1, -2)), x, atol=1e-12)
    (s,) = run("svd", [x.astype(np.float32)], {"full_matrices": True, "compute_uv": False}, jit)
    np.testing.assert_allclose(s, np.linalg.svd(x, compute_uv=False), rtol=1e-5)


def test_every_primitive_is_covered_here():
    from graphcell.ops.bessel import PRIMS as BESSEL
    covered = set(UNARY) | set(BINARY) | set(FLOAT_BINARY) | {"leaky_relu", "elu", "shrink",
        "pow", "and", "or", "xor", "not", "select", "is_finite", "cast", "constant", "reduce_sum",
        "reduce_max", "reduce_min", "reduce_prod", "argmax", "argmin", "element_count", "reshape", "transpose",
        "broadcast_in_dim", "concatenate", "slice", "rev", "pad", "take", "take_along_axis", "scatter_add", "write_rows",
        "stop_gradient", "dot_general", "conv", "conv_transpose", "reduce_window_max", "reduce_window_sum",
        "reduce_window_max_grad", "random_uniform", "random_normal", "random_split", "random_fold_in",
        "cumsum", "cumprod", "sort", "top_k", "polygamma", "svd",
        # matrices: values against numpy, scipy and jax in test_linalg_more.py
        "det", "slogdet", "matrix_inverse", "cholesky", "triangular_solve", "qr", "matrix_exp",
        "geqrf", "householder_product",  # against LAPACK and MindSpore's numbers in test_householder_qr.py
        *BESSEL, "igamma", "igamma_grad_a", "zeta",  # against references in test_special_more.py
        "betainc",  # against scipy and MindSpore's numbers in test_betainc.py
        "random_gamma_draw", "random_poisson_draw",  # distributions in test_random_more.py
        "shift_left", "shift_right", "nextafter",  # against numpy and MindSpore's numbers in test_ops_array_wave2.py
        "cond", "while_loop",  # control flow: values tested against jax.lax in test_control_flow.py
        "scan",  # values, vmap and grad against loops in test_rnn.py
        "linear", "conv_bias",  # fused (made by the fuse pass): values against numpy/torch in test_fuse.py
        "resize",  # values against MindSpore's measured numbers and torch in test_resize.py
        "real", "imag", "conj", "complex", "fft",  # against numpy and jax in test_complex_fft.py
        "eig",  # against numpy in test_eig_stft.py
        "matrix_logarithm",  # against scipy.linalg.logm in test_tf_kernels_ops.py
        "eigh",  # against numpy, scipy, MindSpore's numbers and jax.grad in test_msscipy.py
        "backward_hook", "backward_hook_enter", "backward_hook_exit",  # hooks: test_backward_hooks.py
        "tensor_hook",  # Tensor.register_hook: test_tensor_hooks.py
        "custom_bprop",  # Cell.bprop: test_audit_functional.py
        "host_call",  # ops.Custom, tensordump, Assert (a Python function on the host): test_custom_ops.py
        "tile_rows"}  # made by the XLA pipeline's last pass: values against the untiled graph in test_tile_rows.py
    registry = every_primitive()
    assert set(registry) <= covered, f"untested primitives: {set(registry) - covered}"


def test_shape_errors_name_the_op_and_types():
    a, b = Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((4, 3), np.float32))
    with pytest.raises(ValueError, match=r"add\(f32\[2,3\], f32\[4,3\]\).*cannot be broadcast"):
        PRIMITIVES["add"].bind(a, b)
    with pytest.raises(ValueError, match=r"matmul: shapes \[2, 3\] and \[4, 3\] do not align"):
        F.matmul(a, b)


# -- the eager (PYNATIVE) dispatch cache: frontend/eager.py -----------------------------------

@pytest.fixture
def fresh_eager_cache(monkeypatch):
    """Empty eager caches for one test, and counters of shape-rule runs and jax.jit calls."""
    import jax
    from graphcell.frontend import eager
    monkeypatch.setattr(eager, "_CHECKED", {})
    monkeypatch.setattr(eager, "_JITTED", {})
    counts = {"jit": 0}
    real_jit = jax.jit

    def counting_jit(*args, **kwargs):
        counts["jit"] += 1
        return real_jit(*args, **kwargs)
    monkeypatch.setattr(jax, "jit", counting_jit)

    def count_rule(name):
        prim = PRIMITIVES[name]
        real_rule, counts[name] = prim.shape_rule, 0

        def rule(*types, **attrs):
            counts[name] += 1
            return real_rule(*types, **attrs)
        monkeypatch.setattr(prim, "shape_rule", rule)
    counts["count_rule"] = count_rule
    return counts


def test_eager_op_checks_its_shapes_and_jits_once_per_signature(fresh_eager_cache):
    counts = fresh_eager_cache
    counts["count_rule"]("add")
    counts["count_rule"]("reduce_sum")
    a, b = rand((2, 3)), rand((2, 3))
    for _ in range(3):
        np.testing.assert_array_equal((Tensor(a) + Tensor(b)).asnumpy(), a + b)
    assert (counts["add"], counts["jit"]) == (1, 1)
    c = rand((4,))
    np.testing.assert_array_equal((Tensor(c) + Tensor(c)).asnumpy(), c + c)
    assert (counts["add"], counts["jit"]) == (2, 1)  # a new shape: checked; jax.jit retraces itself
    for axes in [(0,), (1,), (0,), [1]]:  # a list attr is canonicalized to the cached tuple
        got = PRIMITIVES["reduce_sum"].bind(Tensor(a), axes=axes).asnumpy()
        np.testing.assert_allclose(got, a.sum(axis=tuple(axes)), rtol=1e-6)
    assert (counts["reduce_sum"], counts["jit"]) == (2, 3)  # one jit per attrs


def test_eager_shape_errors_are_raised_on_every_call_and_not_cached(fresh_eager_cache):
    from graphcell.frontend import eager
    good, bad = Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((4, 3), np.float32))
    good + good
    cached = len(eager._CHECKED)
    for _ in range(2):
        with pytest.raises(ValueError, match=r"add\(f32\[2,3\], f32\[4,3\]\).*cannot be broadcast"):
            PRIMITIVES["add"].bind(good, bad)
    with pytest.raises(ValueError, match=r"reduce_sum: axes \(2,\) are invalid"):
        PRIMITIVES["reduce_sum"].bind(good, axes=(2,))
    assert len(eager._CHECKED) == cached and fresh_eager_cache["jit"] == 1


def test_eager_cache_keys_attr_types_and_skips_what_it_cannot_key():
    from graphcell.frontend import eager
    x = [np.ones((2, 3), np.float32)]
    key_int, _ = eager.lookup(PRIMITIVES["take"], x, {"axis": 1})
    key_bool, _ = eager.lookup(PRIMITIVES["take"], x, {"axis": True})
    assert key_int != key_bool  # 1 == True, but an attr's type can change what the impl does
    assert eager.lookup(PRIMITIVES["reshape"], x, {"shape": [3, 2]}) == (None, None)  # unhashable
    for name in ("constant", "cond", "while_loop", "scan"):  # constant-array and subgraph attrs
        assert not PRIMITIVES[name].eager_jit


def test_eager_results_are_bit_identical_to_the_direct_impl():
    """The cached jit of an impl of several jax ops (conv cropping a negative padding, linear,
    scatter_add, random draws from a key operand) returns exactly what calling it does."""
    x, w, b = rand((2, 3, 9, 9)), rand((4, 3, 3, 3)), rand((4,))
    key = np.array([0, 7], np.uint32)
    cases = [
        ("conv_bias", [x, w, b], dict(strides=(2, 1), padding=((-1, 1), (0, -2)), lhs_dilation=(1, 1),
                                      rhs_dilation=(1, 2), groups=1, batch_groups=1)),
        ("linear", [rand((3, 5)), rand((4, 5)), b], dict(contract=((1,), (1,)))),
        ("scatter_add", [rand((3, 5)), np.array([0, 2, 2, 9]), rand((3, 4))], dict(axis=1)),
        ("random_normal", [key], dict(shape=(3, 4), dtype=ms.float32)),
        ("random_split", [key], {}),
        ("div", [rand((5,), np.int32), np.array([2, -3, 4, 1, 5], np.int32)], {}),
    ]
    for name, arrays, attrs in cases:
        prim = PRIMITIVES[name]
        for _ in range(2):  # the miss, then the cached call
            got = prim.bind(*[Tensor(a) for a in arrays], **attrs)
            want = prim.impl(*arrays, **attrs)
            got, want = (got, want) if prim.multiple_results else ((got,), (want,))
            for g, w_ in zip(got, want):
                g, w_ = g.asnumpy(), np.asarray(w_)
                assert g.dtype == w_.dtype and g.tobytes() == w_.tobytes(), name


def test_eager_random_draws_follow_their_key():
    """A cached jit takes the key as an operand: a new key draws new numbers, and the global
    generator advances between calls."""
    draw = lambda k: PRIMITIVES["random_uniform"].bind(  # noqa: E731
        Tensor(np.array(k, np.uint32)), shape=(8,), dtype=ms.float32).asnumpy()
    first, again, other = draw([0, 1]), draw([0, 1]), draw([0, 2])
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, other)
    ms.set_seed(3)
    a, b = F.uniform((8,)).asnumpy(), F.uniform((8,)).asnumpy()
    assert not np.array_equal(a, b)
    ms.set_seed(3)
    np.testing.assert_array_equal(F.uniform((8,)).asnumpy(), a)


def test_random_ops_take_mindspore_arguments():
    """ops.uniform(shape, minval, maxval, seed, dtype), ops.normal(shape, mean, stddev, seed) and
    ops.standard_normal(shape, seed): a seed gives the same numbers each call, eagerly and jitted."""
    lo, hi = Tensor(np.float32(2.0)), Tensor(np.float32(5.0))
    u = F.uniform((2000,), lo, hi, seed=7).asnumpy()
    assert u.dtype == np.float32 and 2.0 <= u.min() and u.max() < 5.0 and abs(u.mean() - 3.5) < 0.1
    np.testing.assert_array_equal(ms.jit(lambda: F.uniform((2000,), 2.0, 5.0, seed=7))().asnumpy(), u)
    z = F.normal((4000,), 10.0, 0.5, seed=1).asnumpy()
    assert abs(z.mean() - 10.0) < 0.05 and abs(z.std() - 0.5) < 0.05
    np.testing.assert_array_equal(F.standard_normal((4000,), seed=1).asnumpy() * 0.5 + 10.0, z)

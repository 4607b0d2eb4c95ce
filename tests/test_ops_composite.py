"""graphcell/ops/composite.py: each op against numpy (values, dtype, shape) eagerly, under jit
(XLA) and under onnxruntime; one vmap check per family against a per-example loop; and
gradients against jax.grad for the differentiable ones."""
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import torch

import graphcell as ms
from graphcell import ops
from graphcell.tensor import Tensor

RNG = np.random.default_rng(0)
BACKENDS = ("eager", "xla", "onnx")


def rand(*shape, dtype=np.float32, low=-3.0, high=3.0):
    if np.dtype(dtype).kind == "b":
        return RNG.random(shape) > 0.5
    if np.dtype(dtype).kind in "iu":
        return RNG.integers(-5, 6, shape).astype(dtype)
    return RNG.uniform(low, high, shape).astype(dtype)


def nonzero(*shape, dtype=np.float32):
    """Values away from 0 (divisors): magnitudes 0.5 .. 3 (ints 1 .. 5), random signs."""
    if np.dtype(dtype).kind in "iu":
        mag = RNG.integers(1, 6, shape)
    else:
        mag = RNG.uniform(0.5, 3.0, shape)
    return (mag * RNG.choice([-1, 1], shape)).astype(dtype)


def call(fn, arrays, backend):
    tensors = [Tensor(a) for a in arrays]
    if backend == "eager":
        return fn(*tensors)
    return ms.jit(fn, backend=backend)(*tensors) if backend == "onnx" else ms.jit(fn)(*tensors)


def same(got, want, tol=None):
    """got (a Tensor or a tuple of them) has want's values, dtype and shape."""
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want), (type(got), len(got), len(want))
        for g, w in zip(got, want):
            same(g, w, tol)
        return
    assert isinstance(got, Tensor), type(got)
    want = np.asarray(want)
    got = got.asnumpy()
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if tol is None and want.dtype.kind == "f":
        tol = 1e-5 if want.dtype == np.float32 else 1e-12
    if tol:
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    else:
        np.testing.assert_array_equal(got, want)


def check(fn, want, *arrays, tol=None, backends=BACKENDS):
    for backend in backends:
        try:
            same(call(fn, arrays, backend), want, tol)
        except AssertionError as e:
            raise AssertionError(f"{backend}: {e}") from e


# -- predicates ----------------------------------------------------------------------------

SPECIALS = np.array([0.0, -0.0, 1.5, -2.0, np.nan, np.inf, -np.inf, 3e38])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_isnan_isinf_isposinf_isneginf(dtype):
    x = SPECIALS.astype(dtype).reshape(2, 4)
    for name, ref in (("isnan", np.isnan), ("isinf", np.isinf), ("isposinf", np.isposinf),
                      ("isneginf", np.isneginf)):
        op = getattr(ops, name)
        check(lambda t: op(input=t), ref(x), x)
        check(op, ref(x[0, 0]), x[0, 0])                    # 0-d
        check(op, np.zeros((0, 3), np.bool_), np.zeros((0, 3), dtype))


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8, np.bool_])
def test_isnan_isinf_of_integers_and_bools_are_all_false(dtype):
    x = rand(2, 3, dtype=dtype)
    for op in (ops.isnan, ops.isinf, ops.isposinf, ops.isneginf):
        check(op, np.zeros((2, 3), np.bool_), x)


def test_isclose_against_numpy():
    a = np.array([1.0, 1.0, np.inf, np.inf, -np.inf, np.nan, np.nan, 0.0, 1e-9, 100.0], np.float32)
    b = np.array([1.0 + 1e-6, 1.1, np.inf, -np.inf, 5.0, np.nan, 1.0, 1e-9, 0.0, 100.01], np.float32)
    check(ops.isclose, np.isclose(a, b), a, b)
    check(lambda x, y: ops.isclose(x, y, equal_nan=True), np.isclose(a, b, equal_nan=True), a, b)
    check(lambda x, y: ops.isclose(input=x, other=y, rtol=1e-3, atol=0.0), np.isclose(a, b, 1e-3, 0.0), a, b)
    # Broadcasting, and asymmetry: atol + rtol * |other|.
    x, y = rand(3, 1), rand(4)
    check(lambda s, t: ops.isclose(s, t, rtol=0.5, atol=0.1), np.isclose(x, y, 0.5, 0.1), x, y)
    assert not np.array_equal(np.isclose(5.0, 10.0, rtol=0.5, atol=0), np.isclose(10.0, 5.0, rtol=0.5, atol=0))
    check(lambda s, t: ops.isclose(s, t, rtol=0.5, atol=0.0), np.array(True), np.float32(5), np.float32(10))
    check(lambda s, t: ops.isclose(s, t, rtol=0.5, atol=0.0), np.array(False), np.float32(10), np.float32(5))
    # Integers compare as numbers.
    i, j = rand(2, 5, dtype=np.int32), rand(2, 5, dtype=np.int32)
    check(lambda s, t: ops.isclose(s, t, rtol=0.0, atol=1.0), np.isclose(i, j, 0.0, 1.0), i, j)
    check(ops.allclose, np.array(True), a[:2], a[:2] + 1e-7)
    check(ops.allclose, np.array(False), a, b)


# -- rounding and remainders -----------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_trunc(dtype):
    x = np.array([-2.5, -1.0, -0.5, 0.0, 0.4, 1.5, 2.999, np.inf, -np.inf, np.nan], dtype)
    check(ops.trunc, np.trunc(x), x)
    out = ops.trunc(Tensor(x)).asnumpy()
    assert np.signbit(out[2]), "trunc(-0.5) is -0.0, as numpy's"
    check(ops.trunc, np.trunc(x[0]), x[0])
    i = rand(2, 3, dtype=np.int32)
    check(ops.trunc, i, i)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
@pytest.mark.parametrize("name,ref", [("floor_divide", np.floor_divide), ("floor_mod", np.mod),
                                      ("remainder", np.mod), ("fmod", np.fmod)])
def test_divisions_and_remainders(name, ref, dtype):
    op = getattr(ops, name)
    x, y = rand(3, 4, dtype=dtype, low=-10, high=10), nonzero(4, dtype=dtype)
    if np.dtype(dtype).kind == "i":
        x = RNG.integers(-20, 21, (3, 4)).astype(dtype)
    tol = 1e-5 if dtype == np.float32 else None
    check(op, ref(x, y), x, y, tol=tol)
    check(lambda a: op(a, 3), ref(x, dtype(3)), x, tol=tol)          # a Python scalar divisor
    check(op, ref(x[0, 0], y[0]), x[0, 0], y[0], tol=tol)            # 0-d


def test_remainders_take_the_documented_sign():
    x = np.array([7.0, -7.0, 7.0, -7.0, 6.0, -6.0], np.float32)
    y = np.array([3.0, 3.0, -3.0, -3.0, 3.0, -3.0], np.float32)
    check(ops.remainder, np.array([1, 2, -2, -1, 0, 0], np.float32), x, y)
    check(ops.fmod, np.array([1, -1, 1, -1, 0, 0], np.float32), x, y)
    check(lambda a, b: ops.floor_mod(x=a, y=b), np.array([1, 2, -2, -1, 0, 0], np.float32), x, y)
    check(lambda a, b: ops.fmod(input=a, other=b), np.array([1, -1, 1, -1, 0, 0], np.int32),
          x.astype(np.int32), y.astype(np.int32))
    # fmod is exact: x - trunc(x / y) * y in float32 rounds away the remainder of 1e8 % 3.
    big = np.array([1e8, -1e8, 16777217.0], np.float64).astype(np.float32)
    check(ops.fmod, np.fmod(big, np.float32(3)), big, np.full(3, 3, np.float32))
    with pytest.raises(TypeError):
        ops.fmod(Tensor(np.array([True])), Tensor(np.array([True])))


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_clip(dtype):
    x = rand(3, 4, dtype=dtype)
    check(lambda t: ops.clip(t, -1, 2), np.clip(x, -1, 2).astype(dtype), x)
    check(lambda t: ops.clip(input=t, min=0), np.maximum(x, 0).astype(dtype), x)
    check(lambda t: ops.clip(t, max=1), np.minimum(x, 1).astype(dtype), x)
    check(lambda t: ops.clip(t, 2, -1), np.full(x.shape, -1, dtype), x)          # min > max: max
    lo, hi = rand(4, dtype=dtype), rand(3, 1, dtype=dtype)
    check(lambda t, a, b: ops.clip(t, a, b), np.minimum(np.maximum(x, lo), hi), x, lo, hi)
    with pytest.raises(ValueError):
        ops.clip(Tensor(x))


# -- rearranging ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_])
def test_flip(dtype):
    x = rand(2, 3, 4, dtype=dtype)
    check(lambda t: ops.flip(t, (0, 2)), np.flip(x, (0, 2)), x)
    check(lambda t: ops.flip(input=t, dims=[-1]), np.flip(x, -1), x)
    check(lambda t: ops.flip(t, 1), np.flip(x, 1), x)
    check(lambda t: ops.flip(t, ()), x, x)
    e = np.zeros((0, 3), dtype)
    check(lambda t: ops.flip(t, (0, 1)), e, e)
    with pytest.raises(ValueError):
        ops.flip(Tensor(x), (0, -3))
    with pytest.raises(ValueError):
        ops.flip(Tensor(x), (3,))


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_])
def test_roll(dtype):
    x = rand(3, 4, dtype=dtype)
    for shifts, dims in [(1, 0), (-1, 1), (5, -1), ((1, -2), (0, 1)), ((2, 3), (1, 1)), (0, 0), (3, None),
                         (-13, None), ((4,), None)]:
        np_shift = shifts[0] if dims is None and isinstance(shifts, tuple) else shifts
        check(lambda t: ops.roll(t, shifts, dims), np.roll(x, np_shift, dims), x)
    check(lambda t: ops.roll(input=t, shifts=2, dims=0), np.roll(x, 2, 0), x)
    e = np.zeros((0, 2), dtype)
    check(lambda t: ops.roll(t, 1, 0), e, e)
    with pytest.raises(ValueError):
        ops.roll(Tensor(x), (1, 2), (0,))


def test_narrow():
    x = rand(4, 5)
    check(lambda t: ops.narrow(t, 1, 1, 3), x[:, 1:4], x)
    check(lambda t: ops.narrow(input=t, axis=-2, start=-3, length=2), x[1:3], x)
    check(lambda t: ops.narrow(t, 0, 4, 0), x[4:4], x)
    i = rand(4, dtype=np.int32)
    check(lambda t: ops.narrow(t, 0, 0, 4), i, i)
    for bad in [(0, 3, 2), (0, -5, 1), (2, 0, 1), (1, 0, -1)]:
        with pytest.raises(ValueError):
            ops.narrow(Tensor(x), *bad)


@pytest.mark.parametrize("n,chunks", [(6, 3), (7, 3), (5, 4), (3, 5), (1, 1), (0, 2), (10, 4)])
def test_chunk_against_torch(n, chunks):
    x = rand(2, n)
    want = tuple(c.numpy() for c in torch.chunk(torch.from_numpy(x), chunks, 1))
    check(lambda t: ops.chunk(t, chunks, 1), want, x)
    check(lambda t: ops.chunk(input=t, chunks=chunks, axis=-1), want, x, backends=("eager",))
    with pytest.raises(ValueError):
        ops.chunk(Tensor(x), 0)


def test_unbind():
    x = rand(2, 3, 4, dtype=np.int32)
    check(lambda t: ops.unbind(t, 1), tuple(x[:, i] for i in range(3)), x)
    check(lambda t: ops.unbind(input=t, dim=-1), tuple(x[..., i] for i in range(4)), x)
    check(ops.unbind, tuple(x[i] for i in range(2)), x)
    assert isinstance(ops.unbind(Tensor(x)), tuple)
    with pytest.raises(ValueError):
        ops.unbind(Tensor(np.float32(1)))


@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid(indexing):
    a, b, c = rand(3), rand(4, dtype=np.int32), rand(2)
    check(lambda s: ops.meshgrid(s, indexing=indexing), tuple(np.meshgrid(a, indexing=indexing)), a)
    check(lambda s, t: ops.meshgrid(s, t, indexing=indexing), tuple(np.meshgrid(a, b, indexing=indexing)), a, b)
    check(lambda s, t, u: ops.meshgrid((s, t, u), indexing=indexing),
          tuple(np.meshgrid(a, b, c, indexing=indexing)), a, b, c)
    check(lambda s, t: ops.meshgrid(s, t), tuple(np.meshgrid(a, b)), a, b)    # 'xy' by default
    with pytest.raises(ValueError):
        ops.meshgrid(Tensor(a), indexing="yx")
    with pytest.raises(ValueError):
        ops.meshgrid(Tensor(rand(2, 2)))


# -- matrices ------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_])
@pytest.mark.parametrize("shape", [(3, 3), (2, 5), (2, 4, 3)])
def test_tril_triu(shape, dtype):
    x = rand(*shape, dtype=dtype)
    for k in (0, 1, -1, 3, -4):
        check(lambda t: ops.tril(t, k), np.tril(x, k), x)
        check(lambda t: ops.triu(input=t, diagonal=k), np.triu(x, k), x)
    check(ops.tril, np.tril(x), x)
    with pytest.raises(ValueError):
        ops.triu(Tensor(rand(3)))


def test_diag():
    v = rand(4)
    check(ops.diag, np.diag(v), v)
    i = rand(3, dtype=np.int32)
    check(lambda t: ops.diag(input=t), np.diag(i), i)
    m = rand(2, 3)                       # MindSpore: rank k -> rank 2k, the values on its diagonal
    want = np.diag(m.ravel()).reshape(2, 3, 2, 3)
    check(ops.diag, want, m)
    assert want[1, 2, 1, 2] == m[1, 2] and want[0, 1, 1, 2] == 0
    inf = np.array([np.inf, 1.0], np.float32)   # zeros stay zeros beside an inf (no 0 * inf)
    check(ops.diag, np.diag(inf), inf)
    with pytest.raises(ValueError):
        ops.diag(Tensor(np.float32(1)))


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_diagonal(dtype):
    x = rand(3, 4, dtype=dtype)
    for offset in (0, 1, -1, 3, -2, 4, -3, 7):
        check(lambda t: ops.diagonal(t, offset), np.diagonal(x, offset), x)
    y = rand(2, 3, 4, dtype=dtype)
    for offset, d1, d2 in [(0, 0, 1), (1, 1, 2), (-1, -1, 0), (0, 2, 0), (2, -3, -1)]:
        check(lambda t: ops.diagonal(input=t, offset=offset, dim1=d1, dim2=d2),
              np.diagonal(y, offset, d1, d2), y)
    with pytest.raises(ValueError):
        ops.diagonal(Tensor(y), 0, 1, -2)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_trace(dtype):
    for shape in [(3, 3), (2, 4), (4, 1)]:
        x = rand(*shape, dtype=dtype)
        check(ops.trace, np.asarray(np.trace(x), dtype), x)
    with pytest.raises(ValueError):
        ops.trace(Tensor(rand(2, 2, 2)))


# -- products ------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_outer_dot_inner(dtype):
    a, b = rand(3, dtype=dtype), rand(4, dtype=dtype)
    check(ops.outer, np.outer(a, b), a, b)
    check(lambda s, t: ops.outer(input=s, vec2=t), np.outer(a, b), a, b)
    for sx, sy in [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2)), ((2, 3), (1, 3, 2)), ((1, 2, 3), (2, 3, 2)),
                   ((3, 2, 3), (2, 1, 3, 2)), ((), (2, 3))]:
        x, y = rand(*sx, dtype=dtype), rand(*sy, dtype=dtype)
        check(ops.dot, np.dot(x, y), x, y)
    for sx, sy in [((3,), (3,)), ((2, 3), (3,)), ((2, 3), (4, 3)), ((2, 1, 3), (4, 3)), ((), (2, 3))]:
        x, y = rand(*sx, dtype=dtype), rand(*sy, dtype=dtype)
        check(lambda s, t: ops.inner(input=s, other=t), np.inner(x, y), x, y)
    with pytest.raises(ValueError):
        ops.outer(Tensor(rand(2, 2)), Tensor(b))


def test_dot_shapes_of_mindspores_examples():
    for sx, sy, out in [((2, 3), (1, 3, 2), (2, 1, 2)), ((1, 2, 3), (1, 3, 2), (1, 2, 1, 2)),
                        ((1, 2, 3), (2, 3, 2), (1, 2, 2, 2)), ((3, 2, 3), (2, 1, 3, 2), (3, 2, 2, 1, 2))]:
        got = ops.dot(Tensor(np.ones(sx, np.float32)), Tensor(np.ones(sy, np.float32)))
        assert got.shape == out and np.all(got.asnumpy() == 3)


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_tensor_dot(dtype):
    x, y = rand(2, 3, 4, dtype=dtype), rand(3, 4, 5, dtype=dtype)
    for axes in [2, 1, 0, ((1, 2), (0, 1)), ((2, 1), (1, 0)), ([-1], [1]), (1, 0), ((), ())]:
        xs, ys = (x, rand(4, 5, dtype=dtype)) if axes == 1 else (x, y)
        if axes == (1, 0):
            want = np.tensordot(x, y, ((1,), (0,)))
        else:
            want = np.tensordot(xs, ys, axes)
        check(lambda s, t: ops.tensor_dot(s, t, axes), want, xs, ys)
    check(lambda s, t: ops.tensor_dot(x1=s, x2=t, axes=((0,), (1,))), np.tensordot(x, y.swapaxes(0, 1)[:, :2],
          ((0,), (1,))), x, y.swapaxes(0, 1)[:, :2].copy())
    with pytest.raises(ValueError):
        ops.tensor_dot(Tensor(x), Tensor(y), ((0,), (0,)))


BATCH_DOT = [  # (x1 shape, x2 shape, axes, MindSpore's result shape)
    ((2, 2, 3), (2, 3, 2), (-1, -2), (2, 2, 2)),
    ((2, 2), (2, 3, 2), (1, 2), (2, 3)),
    ((10, 2), (10, 2), None, (10, 1)),
    ((10, 2), (10, 2, 2), None, (10, 2)),
    ((10, 3, 2), (10, 2), None, (10, 3)),
    ((3, 4, 5, 2), (3, 2, 6), None, (3, 4, 5, 6)),
    ((3, 4, 2), (3, 4, 5), 1, (3, 2, 5)),
    ((3, 2, 4), (3, 5, 4, 6), (2, 2), (3, 2, 5, 6)),
]


def _batch_dot_ref(x, y, axes, out_shape):
    ax, ay = axes
    xm, ym = np.moveaxis(x, ax, -1), np.moveaxis(y, ay, -1)
    out = np.stack([np.tensordot(xm[b], ym[b], ((-1,), (-1,))) for b in range(x.shape[0])])
    return out.reshape(out_shape)


@pytest.mark.parametrize("sx,sy,axes,out_shape", BATCH_DOT)
def test_batch_dot(sx, sy, axes, out_shape):
    x, y = rand(*sx), rand(*sy)
    if axes is None:
        ref_axes = (len(sx) - 1, len(sy) - 1 if len(sy) == 2 else len(sy) - 2)
    elif isinstance(axes, int):
        ref_axes = (axes, axes)
    else:
        ref_axes = (axes[0] % len(sx), axes[1] % len(sy))
    want = _batch_dot_ref(x, y, ref_axes, out_shape)
    check(lambda s, t: ops.batch_dot(s, t, axes), want, x, y)
    check(lambda s, t: ops.batch_dot(x1=s, x2=t, axes=axes), want, x, y, backends=("eager",))


def test_batch_dot_refuses_the_batch_axis_and_mismatches():
    for sx, sy, axes in [((2, 3), (2, 3), (0, 1)), ((2, 3), (3, 3), None), ((2, 3, 4), (2, 3, 4), (1, 2)),
                         ((2,), (2, 3), None)]:
        with pytest.raises(ValueError):
            ops.batch_dot(Tensor(rand(*sx)), Tensor(rand(*sy)), axes)


def test_addmm_baddbmm_addmv_addr():
    inp, m1, m2 = rand(2, 4), rand(2, 3), rand(3, 4)
    check(ops.addmm, inp + m1 @ m2, inp, m1, m2)
    check(lambda i, a, b: ops.addmm(i, a, b, beta=0.5, alpha=-2), 0.5 * inp - 2 * (m1 @ m2), inp, m1, m2)
    row = rand(4)
    check(lambda i, a, b: ops.addmm(input=i, mat1=a, mat2=b, alpha=3), row + 3 * (m1 @ m2), row, m1, m2)
    bi, b1, b2 = rand(2, 2, 4), rand(2, 2, 3), rand(2, 3, 4)
    check(ops.baddbmm, bi + b1 @ b2, bi, b1, b2)
    check(lambda i, a, b: ops.baddbmm(i, a, b, 2, 0.5), 2 * bi + 0.5 * (b1 @ b2), bi, b1, b2)
    check(lambda i, a, b: ops.baddbmm(input=i, batch1=a, batch2=b, beta=0, alpha=1), b1 @ b2, bi, b1, b2)
    v, mat, vec = rand(2), rand(2, 3), rand(3)
    check(lambda i, a, b: ops.addmv(i, a, b, beta=2, alpha=3), 2 * v + 3 * (mat @ vec), v, mat, vec)
    x, v1, v2 = rand(3, 2), rand(3), rand(2)
    check(lambda i, a, b: ops.addr(i, a, b, beta=-1, alpha=0.5), -x + 0.5 * np.outer(v1, v2), x, v1, v2)
    ii, i1, i2 = rand(2, 4, dtype=np.int32), rand(2, 3, dtype=np.int32), rand(3, 4, dtype=np.int32)
    check(lambda i, a, b: ops.addmm(i, a, b, beta=2, alpha=3), 2 * ii + 3 * (i1 @ i2), ii, i1, i2)
    with pytest.raises(ValueError):
        ops.baddbmm(Tensor(inp), Tensor(m1), Tensor(m2))


def test_cross():
    x, y = rand(2, 3, 4), rand(2, 3, 4)
    check(ops.cross, np.cross(x, y, axis=1), x, y)           # the first axis of size 3
    a, b = rand(4, 3), rand(3)
    check(lambda s, t: ops.cross(input=s, other=t, dim=-1), np.cross(a, b), a, b)
    i, j = rand(3, 3, dtype=np.int32), rand(3, 3, dtype=np.int32)
    check(lambda s, t: ops.cross(s, t, 0), np.cross(i, j, axis=0), i, j)
    with pytest.raises(ValueError):
        ops.cross(Tensor(rand(2, 4)), Tensor(rand(2, 4)))


# -- constructors --------------------------------------------------------------------------

def test_linspace():
    for start, end, steps in [(0, 1, 5), (-2.5, 3, 7), (3, -3, 4), (1, 2, 1), (0, 10, 11)]:
        want = np.linspace(start, end, steps).astype(np.float32)
        same(ops.linspace(start, end, steps), want)
        same(ops.linspace(start=start, end=end, steps=steps), want)
        check(lambda t: ops.linspace(start, end, steps) + t, want, np.float32(0))
        s, e = np.float32(start), np.float32(end)
        check(lambda a, b: ops.linspace(a, b, steps), want, s, e)
        check(lambda a, b: ops.linspace(a, b, steps), np.linspace(float(start), float(end), steps), np.float64(s),
              np.float64(e))
    out = ops.linspace(Tensor(np.float32(0.1)), Tensor(np.float32(0.7)), 7).asnumpy()
    assert out[-1] == np.float32(0.7), "the end value exactly"
    with pytest.raises(ValueError):
        ops.linspace(0, 1, 0)


# -- reductions ----------------------------------------------------------------------------

VECTOR_ORDS = [None, 2, 1, math.inf, -math.inf, 0, 3, 0.5, -1]


@pytest.mark.parametrize("ord", VECTOR_ORDS)
def test_vector_norms(ord):
    x = rand(3, 4)
    x[0, 1] = 0.0
    for dim in (0, 1, -1, (1,)):
        for keepdim in (False, True):
            axis = dim[0] if isinstance(dim, tuple) else dim
            want = np.linalg.norm(x, ord, axis, keepdim).astype(np.float32)
            check(lambda t: ops.norm(t, ord, dim, keepdim), want, x, tol=1e-5)
    v = x[1]
    check(lambda t: ops.norm(A=t, ord=ord), np.linalg.norm(v, ord).astype(np.float32), v, tol=1e-5)


@pytest.mark.parametrize("ord", [None, "fro", 1, -1, math.inf, -math.inf, "nuc", 2, -2])
def test_matrix_norms(ord):
    x = rand(2, 3, 4)
    # the singular values' norms have no ONNX lowering (ONNX has no SVD): test_ops_more checks the refusal
    backends = ("eager", "xla") if ord in ("nuc", 2, -2) else BACKENDS
    for dim in [(1, 2), (2, 1), (0, -1), (-3, 1)]:
        for keepdim in (False, True):
            want = np.linalg.norm(x, ord, dim, keepdim).astype(np.float32)
            check(lambda t: ops.norm(t, ord, dim, keepdim), want, x, tol=1e-5, backends=backends)
    if ord is not None:
        check(lambda t: ops.norm(t, ord), np.linalg.norm(x[0], ord).astype(np.float32), x[0], tol=1e-5,
              backends=backends)


def test_norm_defaults_dtype_and_refusals():
    x = rand(2, 3, 2)
    check(ops.norm, np.asarray(np.sqrt((x.astype(np.float64) ** 2).sum()), np.float32), x)   # all elements
    check(lambda t: ops.norm(t, keepdim=True), np.sqrt((x ** 2).sum(keepdims=True)), x)
    check(lambda t: ops.norm(t, dtype=ms.float64), np.asarray(np.linalg.norm(x.astype(np.float64).ravel())), x)
    i = rand(5, dtype=np.int32)
    check(lambda t: ops.norm(t, 1), np.asarray(np.abs(i).sum(), np.float32), i)
    # 'nuc', 2 and -2 are float32 whatever the input (MindSpore 2.10's, measured)
    check(lambda t: ops.norm(t, "nuc"), np.linalg.norm(x[0], "nuc").astype(np.float32), x[0].astype(np.float64),
          backends=("eager",))
    with pytest.raises(ValueError):
        ops.norm(Tensor(x), 2)                  # 3-D, ord given, dim None
    with pytest.raises(ValueError):
        ops.norm(Tensor(x), "fro", 1)           # a matrix ord over one axis
    with pytest.raises(ValueError):
        ops.norm(Tensor(x), None, (0, 1, 2))


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_])
def test_count_nonzero(dtype):
    x = rand(2, 3, 4, dtype=dtype)
    if dtype == np.float32:
        x[0, 0, :2] = [0.0, np.nan]
        x[1, 1] = 0.0
    for axis in [(), None, 0, -1, (0, 2), [1]]:
        for keep in (False, True):
            np_axis = None if axis == () else tuple(axis) if isinstance(axis, list) else axis
            want = np.count_nonzero(x, np_axis, keepdims=keep)
            check(lambda t: ops.count_nonzero(t, axis, keep), np.asarray(want, np.int32), x)
    want = np.count_nonzero(x, 1).astype(np.int64)
    check(lambda t: ops.count_nonzero(x=t, axis=1, keep_dims=False, dtype=ms.int64), want, x)
    check(lambda t: ops.count_nonzero(t, dtype=ms.float32), np.asarray(np.count_nonzero(x), np.float32), x)


@pytest.mark.parametrize("name", ["std_mean", "var_mean"])
def test_std_mean_var_mean(name):
    ref = np.std if name == "std_mean" else np.var
    op = getattr(ops, name)
    x = rand(3, 4)
    for axis, ddof, keep in [(None, 0, False), (0, 1, False), (-1, True, True), ((0, 1), 0, True), (1, False, False)]:
        want = (ref(x, axis, ddof=int(ddof), keepdims=keep), np.mean(x, axis, keepdims=keep))
        check(lambda t: op(t, axis, ddof, keep), want, x, tol=1e-5)
        check(lambda t: op(input=t, axis=axis, ddof=ddof, keepdims=keep), want, x, tol=1e-5, backends=("eager",))
    i = rand(5, dtype=np.int32)
    check(op, (ref(i).astype(np.float32), np.mean(i).astype(np.float32)), i, tol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_])
def test_masked_fill(dtype):
    x, mask = rand(3, 4, dtype=dtype), rand(3, 4, dtype=np.bool_)
    fill = True if dtype == np.bool_ else 7
    check(lambda t, m: ops.masked_fill(t, m, fill), np.where(mask, fill, x).astype(dtype), x, mask)
    row = mask[0]
    check(lambda t, m: ops.masked_fill(input_x=t, mask=m, value=fill), np.where(row, fill, x).astype(dtype), x, row)
    v = np.asarray(fill, dtype)
    check(lambda t, m, s: ops.masked_fill(t, m, s), np.where(mask, v, x).astype(dtype), x, mask, v)
    if dtype == np.float32:
        check(lambda t, m: ops.masked_fill(t, m, -np.inf), np.where(mask, -np.inf, x).astype(dtype), x, mask)
    with pytest.raises(TypeError):
        ops.masked_fill(Tensor(x), Tensor(mask.astype(np.int32)), 1)


# -- vmap: one check per family, against a per-example loop ----------------------------------

VMAP_CASES = {
    "predicates": (lambda a, b: (ops.isclose(a, b, rtol=0.1), ops.isnan(a), ops.isinf(b)),
                   [np.where(rand(3, 4) > 1, np.nan, rand(3, 4)).astype(np.float32),
                    np.where(rand(3, 4) > 1, np.inf, rand(3, 4)).astype(np.float32)]),
    "remainders": (lambda a, b: (ops.fmod(a, b), ops.remainder(a, b), ops.floor_divide(a, b), ops.trunc(a),
                                 ops.clip(a, -1, b)),
                   [rand(3, 5), nonzero(3, 5)]),
    "rearranging": (lambda a: (ops.flip(a, 1), ops.roll(a, (1, -1), (0, 1)), ops.narrow(a, 0, 1, 2),
                               ops.chunk(a, 2, 1)[1], ops.unbind(a, 1)[2], ops.meshgrid(a[0], a[1])[0]),
                    [rand(3, 3, 4)]),
    "matrices": (lambda a: (ops.tril(a, -1), ops.triu(a, 1), ops.diag(a[0]), ops.diagonal(a, 1), ops.trace(a)),
                 [rand(3, 3, 4)]),
    "products": (lambda a, b: (ops.batch_dot(a, b), ops.tensor_dot(a, b, ((0, 1), (0, 1))),
                               ops.addmm(a[0], a, ops.transpose(b, (1, 0)), beta=2),
                               ops.dot(a, ops.transpose(b, (1, 0))), ops.inner(a, b), ops.outer(a[0], b[1]),
                               ops.cross(a[:, :3], b[:, :3])),
                 [rand(3, 4, 4), rand(3, 4, 4)]),
    "reductions": (lambda a: (ops.norm(a), ops.norm(a, 1, 1), ops.norm(a, "fro", (0, 1)), ops.count_nonzero(a, 0),
                              *ops.std_mean(a, 0, 1), *ops.var_mean(a)),
                   [np.where(rand(3, 2, 4) > 1, 0, rand(3, 2, 4)).astype(np.float32)]),
    "selection": (lambda a, m: ops.masked_fill(a, m, -1.0) + ops.linspace(0, 1, 4),
                  [rand(3, 2, 4), rand(3, 2, 4, dtype=np.bool_)]),
}


@pytest.mark.parametrize("family", sorted(VMAP_CASES))
def test_vmap_matches_a_per_example_loop(family):
    fn, arrays = VMAP_CASES[family]
    per_example = [fn(*[Tensor(a[i]) for a in arrays]) for i in range(arrays[0].shape[0])]
    per_example = [p if isinstance(p, tuple) else (p,) for p in per_example]
    want = tuple(np.stack([p[k].asnumpy() for p in per_example]) for k in range(len(per_example[0])))
    for run in (ms.vmap(fn), ms.jit(ms.vmap(fn)), ms.jit(ms.vmap(fn), backend="onnx")):
        got = run(*[Tensor(a) for a in arrays])
        got = got if isinstance(got, tuple) else (got,)
        same(tuple(got), want, tol=1e-5)


# -- gradients against jax.grad --------------------------------------------------------------

def _jnp_batch_dot(a, b):
    return jnp.einsum("bij,bjk->bik", a, b)


GRAD_CASES = {  # name: (graphcell fn, jax fn, input shapes)
    "trunc": (ops.trunc, jnp.trunc, [(3, 4)]),
    "remainder": (ops.remainder, jnp.remainder, [(3, 4), (4,)]),
    "fmod": (ops.fmod, jnp.fmod, [(3, 4), (4,)]),
    "floor_divide": (ops.floor_divide, jnp.floor_divide, [(3, 4), (4,)]),
    "clip": (lambda a: ops.clip(a, -1.0, 1.5), lambda a: jnp.clip(a, -1.0, 1.5), [(3, 4)]),
    "flip": (lambda a: ops.flip(a, (0, -1)), lambda a: jnp.flip(a, (0, -1)), [(3, 4)]),
    "roll": (lambda a: ops.roll(a, (1, -3), (0, 1)), lambda a: jnp.roll(a, (1, -3), (0, 1)), [(3, 4)]),
    "narrow": (lambda a: ops.narrow(a, 1, 1, 2), lambda a: a[:, 1:3], [(3, 4)]),
    "chunk": (lambda a: ops.chunk(a, 3, 1), lambda a: (a[:, :2], a[:, 2:4], a[:, 4:]), [(2, 5)]),
    "unbind": (lambda a: ops.unbind(a, 1), lambda a: tuple(a[:, i] for i in range(3)), [(2, 3)]),
    "meshgrid": (lambda a, b: ops.meshgrid(a, b), lambda a, b: tuple(jnp.meshgrid(a, b)), [(3,), (2,)]),
    "tril": (lambda a: ops.tril(a, 1), lambda a: jnp.tril(a, 1), [(2, 3, 4)]),
    "triu": (lambda a: ops.triu(a, -1), lambda a: jnp.triu(a, -1), [(3, 4)]),
    "diag": (ops.diag, jnp.diag, [(4,)]),
    "diagonal": (lambda a: ops.diagonal(a, -1, 2, 1), lambda a: jnp.diagonal(a, -1, 2, 1), [(2, 3, 4)]),
    "trace": (ops.trace, jnp.trace, [(3, 4)]),
    "outer": (ops.outer, jnp.outer, [(3,), (4,)]),
    "dot": (ops.dot, jnp.dot, [(2, 3), (4, 3, 2)]),
    "inner": (ops.inner, jnp.inner, [(2, 3), (4, 3)]),
    "tensor_dot": (lambda a, b: ops.tensor_dot(a, b, ((0, 2), (1, 0))),
                   lambda a, b: jnp.tensordot(a, b, ((0, 2), (1, 0))), [(2, 3, 4), (4, 2)]),
    "batch_dot": (ops.batch_dot, _jnp_batch_dot, [(2, 3, 4), (2, 4, 5)]),
    "addmm": (lambda i, a, b: ops.addmm(i, a, b, beta=0.5, alpha=2), lambda i, a, b: 0.5 * i + 2 * (a @ b),
              [(4,), (2, 3), (3, 4)]),
    "baddbmm": (lambda i, a, b: ops.baddbmm(i, a, b, 2, 3), lambda i, a, b: 2 * i + 3 * (a @ b),
                [(2, 1, 4), (2, 2, 3), (2, 3, 4)]),
    "addmv": (lambda i, a, b: ops.addmv(i, a, b, alpha=-1), lambda i, a, b: i - a @ b, [(2,), (2, 3), (3,)]),
    "addr": (lambda i, a, b: ops.addr(i, a, b, beta=3), lambda i, a, b: 3 * i + jnp.outer(a, b), [(3, 2), (3,), (2,)]),
    "cross": (lambda a, b: ops.cross(a, b, 1), lambda a, b: jnp.cross(a, b, axis=1), [(2, 3), (2, 3)]),
    "linspace": (lambda a, b: ops.linspace(a, b, 5), lambda a, b: jnp.linspace(a, b, 5), [(), ()]),
    "norm": (ops.norm, jnp.linalg.norm, [(3, 4)]),
    "norm_p3": (lambda a: ops.norm(a, 3, 1), lambda a: jnp.linalg.norm(a, 3, 1), [(3, 4)]),
    "norm_inf": (lambda a: ops.norm(a, math.inf, 0), lambda a: jnp.linalg.norm(a, jnp.inf, 0), [(3, 4)]),
    "norm_l1": (lambda a: ops.norm(a, 1, -1, True), lambda a: jnp.linalg.norm(a, 1, -1, True), [(3, 4)]),
    "norm_fro": (lambda a: ops.norm(a, "fro", (0, 2)), lambda a: jnp.linalg.norm(a, "fro", (0, 2)), [(2, 3, 4)]),
    "norm_matrix_inf": (lambda a: ops.norm(a, math.inf), lambda a: jnp.linalg.norm(a, jnp.inf), [(3, 4)]),
    "std_mean": (lambda a: ops.std_mean(a, 1, 1), lambda a: (jnp.std(a, 1, ddof=1), jnp.mean(a, 1)), [(3, 4)]),
    "var_mean": (lambda a: ops.var_mean(a, 0), lambda a: (jnp.var(a, 0), jnp.mean(a, 0)), [(3, 4)]),
    "masked_fill": (lambda a: ops.masked_fill(a, Tensor(np.array([True, False, False, True])), 2.0),
                    lambda a: jnp.where(jnp.array([True, False, False, True]), 2.0, a), [(3, 4)]),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_grad_matches_jax(name):
    fn, jfn, shapes = GRAD_CASES[name]
    arrays = [nonzero(*s, dtype=np.float64) for s in shapes]
    outs = jfn(*[jnp.asarray(a) for a in arrays])
    weights = [RNG.uniform(-1, 1, np.shape(o)) for o in (outs if isinstance(outs, tuple) else (outs,))]

    def loss(*ts):
        out = fn(*ts)
        out = out if isinstance(out, tuple) else (out,)
        total = None
        for o, w in zip(out, weights):
            term = (o * Tensor(w)).sum()
            total = term if total is None else total + term
        return total

    def jloss(*xs):
        out = jfn(*xs)
        out = out if isinstance(out, tuple) else (out,)
        return sum((o * w).sum() for o, w in zip(out, weights))

    positions = tuple(range(len(arrays)))
    want = jax.grad(jloss, argnums=positions)(*[jnp.asarray(a) for a in arrays])
    for run in (ms.grad(loss, grad_position=positions), ms.jit(ms.grad(loss, grad_position=positions))):
        got = run(*[Tensor(a) for a in arrays])
        got = got if isinstance(got, tuple) else (got,)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.asnumpy(), np.asarray(w), rtol=1e-9, atol=1e-9)


def test_clip_by_global_norm_against_numpy_and_under_jit():
    rng = np.random.default_rng(5)
    grads = [rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal(5).astype(np.float32)]
    norm = np.sqrt(sum((g.astype(np.float64) ** 2).sum() for g in grads))
    for clip in (0.5, 100.0):
        want = [g * clip / max(norm, clip) for g in grads]
        for a, b in zip(ops.clip_by_global_norm(tuple(Tensor(g) for g in grads), clip), want):
            np.testing.assert_allclose(a.asnumpy(), b, rtol=1e-5)
        jitted = ms.jit(lambda a, b: ops.clip_by_global_norm((a, b), clip))(*[Tensor(g) for g in grads])
        for a, b in zip(jitted, want):
            np.testing.assert_allclose(a.asnumpy(), b, rtol=1e-5)
    with pytest.raises(ValueError, match="clip_norm must be a positive number"):
        ops.clip_by_global_norm((Tensor(grads[0]),), 0.0)

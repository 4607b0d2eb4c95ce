"""graphcell/ops/array_ops.py and linalg_ops.py: values, dtypes and shapes against numpy / torch
(and numbers measured on MindSpore 2.10, written in where they differ from both) eagerly, under
jit (XLA) and under onnxruntime; one vmap check per family against a per-example loop; gradients
against jax.grad."""
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import torch

import graphcell as ms
from graphcell import ops
from graphcell.tensor import Tensor

RNG = np.random.default_rng(5)
BACKENDS = ("eager", "xla", "onnx")
NAN = np.nan


def rand(*shape, dtype=np.float32):
    return RNG.uniform(-3, 3, shape).astype(dtype)


def call(fn, arrays, backend):
    tensors = [Tensor(a) for a in arrays]
    if backend == "eager":
        return fn(*tensors)
    return ms.jit(fn, backend="onnx")(*tensors) if backend == "onnx" else ms.jit(fn)(*tensors)


def same(got, want, tol=1e-5):
    """got has want's values, dtype and shape; a tuple is several outputs, a list float32 values."""
    if isinstance(want, list):
        want = np.asarray(want, np.float32)
    if isinstance(want, tuple):
        assert isinstance(got, (tuple, list)) and len(got) == len(want), (type(got), want)
        for g, w in zip(got, want):
            same(g, w, tol)
        return
    want, got = np.asarray(want), got.asnumpy()
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    else:
        np.testing.assert_array_equal(got, want)


class Checks:
    """Cases gathered in one test and run together: each eagerly, then all in ONE jitted function
    for XLA and ONE for onnxruntime (a compile per case made this file take minutes)."""

    def __init__(self):
        self.cases = []

    def __call__(self, fn, want, *arrays, tol=1e-5):
        self.cases.append((fn, want, arrays, tol))

    def run(self):
        for fn, want, arrays, tol in self.cases:
            try:
                same(call(fn, arrays, "eager"), want, tol)
            except AssertionError as e:
                raise AssertionError(f"eager: {e}") from e
        counts = [len(a) for _, _, a, _ in self.cases]
        arrays = [a for _, _, case_arrays, _ in self.cases for a in case_arrays]

        def together(*ts):
            outs, at = [], 0
            for (fn, _, _, _), n in zip(self.cases, counts):
                out = fn(*ts[at:at + n])
                outs.extend(out if isinstance(out, tuple) else (out,))
                at += n
            return tuple(outs)
        for backend in ("xla", "onnx"):
            got, at = call(together, arrays, backend), 0
            for fn, want, _, tol in self.cases:
                n = len(want) if isinstance(want, tuple) else 1
                try:
                    same(tuple(got[at:at + n]) if isinstance(want, tuple) else got[at], want, tol)
                except AssertionError as e:
                    raise AssertionError(f"{backend}: {e}") from e
                at += n


X = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]], np.float32)
I64 = np.int64


# -- reductions --------------------------------------------------------------------------------

def test_max_min_values_and_first_index_of_ties():
    check = Checks()
    check(lambda t: ops.max(t, 1), ([3.0, 2.0], np.array([1, 0], I64)), X)
    check(lambda t: ops.min(t, 0, True), (X.min(0, keepdims=True), np.array([[0, 1, 1]], I64)), X)
    ints = np.array([[1, 3, 3], [2, 2, 0]], np.int32)
    check(lambda t: ops.max(t, -1), (np.array([3, 2], np.int32), np.array([1, 0], I64)), ints)
    check.run()


def test_max_axis_none_is_the_max_and_index_0_as_mindspore():
    check = Checks()
    # MindSpore 2.10 (measured, and in its source): (max of all, Tensor(0, int64)), keepdims ignored
    y = np.array([[1.0, 0.0, 7.0], [2.0, 9.0, 0.0]], np.float32)
    check(lambda t: ops.max(t, keepdims=True), (np.float32(9.0), I64(0)), y)
    check(lambda t: ops.min(t), (np.float32(0.0), I64(0)), y)
    check.run()


def test_max_initial_and_where_as_measured():
    check = Checks()
    where = np.array([[True, False, True], [False, True, False]])
    check(lambda t: ops.max(t, 1, initial=2.5), ([3.0, 2.5], np.array([1, 0], I64)), X)
    check(lambda t, w: ops.max(t, 1, initial=-1.0, where=w), ([3.0, 2.0], np.array([2, 1], I64)), X, where)
    with pytest.raises(ValueError, match="where needs initial"):
        ops.max(Tensor(X), 1, where=Tensor(where))
    check.run()


def test_aminmax_prod_nansum_nanmean():
    check = Checks()
    check(lambda t: ops.aminmax(t, axis=1), ([1.0, 0.0], [3.0, 2.0]), X)
    check(lambda t: ops.aminmax(t, axis=None), (np.float32(0), np.float32(3)), X)
    check(lambda t: ops.aminmax(t[0, 0]), (np.float32(1), np.float32(1)), X)
    check(lambda t: ops.prod(t, 1), X.prod(1), X)
    check(lambda t: ops.prod(t), I64(12), np.array([3, 4], np.int8))          # int64 (measured)
    xn = np.array([[1.0, NAN, 3.0], [NAN, NAN, 0.0]], np.float32)
    check(lambda t: ops.nansum(t, 1), np.nansum(xn, 1), xn)
    check(lambda t: ops.nansum(t, 1), np.array([7, 4], np.int32), X.astype(np.int32))   # keeps int32
    check(lambda t: ops.nanmean(t, 1, True), np.nanmean(xn, 1, keepdims=True), xn)
    same(ops.nanmean(Tensor(np.full(3, NAN, np.float32))), np.float32(NAN))
    check.run()


def test_median_is_the_lower_median_of_a_stable_sort():
    check = Checks()
    xm = np.array([[1.0, 3.0, 3.0, 2.0], [2.0, 2.0, 0.0, 5.0]], np.float32)
    check(lambda t: ops.median(t), ([2.0, 2.0], np.array([3, 0], I64)), xm)      # measured
    check(lambda t: ops.median(t, 0, True), ([[1.0, 2.0, 0.0, 2.0]], np.array([[0, 1, 1, 0]], I64)), xm)
    for row, want in (([1, 2, 2, 1], (1.0, 3)), ([5, 1, 2, 1, 2, 5], (2.0, 2)), ([2, 1, 2, 2, 1], (2.0, 0)),
                      ([5, NAN, 2], (NAN, 1))):   # all measured on MindSpore 2.10
        check(ops.median, (np.float32(want[0]), I64(want[1])), np.array(row, np.float32))
    check.run()


def test_quantile_matches_torch():
    check = Checks()
    a = rand(3, 5)
    qs = np.array([0.0, 0.3, 0.5, 1.0], np.float32)
    check(lambda t: ops.quantile(t, 0.3), torch.quantile(torch.tensor(a), 0.3).numpy(), a)
    check(lambda t, q: ops.quantile(t, q, 1, True), torch.quantile(torch.tensor(a), torch.tensor(qs), 1, True).numpy(),
          a, qs)
    check(lambda t: ops.quantile(t, 0.7, None, True), torch.quantile(torch.tensor(a), 0.7, None, True).numpy(), a)
    b = a.copy()
    b[0, 1] = b[2, :] = NAN
    ta = torch.tensor(b)
    check(lambda t: ops.quantile(t, 0.4, 1), torch.quantile(ta, 0.4, 1).numpy(), b)
    check(lambda t, q: ops.nanquantile(t, q, 1), torch.nanquantile(ta, torch.tensor(qs), 1).numpy(), b, qs)
    with pytest.raises(TypeError, match="float tensor"):
        ops.quantile(Tensor(np.arange(3)), 0.5)
    check.run()


# -- scans and differences ---------------------------------------------------------------------

def test_cummax_cummin_as_measured():
    check = Checks()
    up = np.array([1.0, 3.0, 2.0, 3.0, 5.0, 1.0], np.float32)
    check(lambda t: ops.cummax(t, 0), ([1, 3, 3, 3, 5, 5], np.array([0, 1, 1, 3, 4, 4], I64)), up)
    down = np.array([3.0, 1.0, 2.0, 1.0, 0.0, 1.0], np.float32)
    check(lambda t: ops.cummin(t, 0), ([3, 1, 1, 1, 0, 0], np.array([0, 1, 1, 3, 4, 4], np.int32)), down)
    check(lambda t: ops.cummax(t, 0), ([1, NAN, NAN, NAN], np.array([0, 1, 1, 1], I64)),
          np.array([1.0, NAN, 2.0, 3.0], np.float32))
    # Measured on MindSpore 2.10: a later NaN takes the index over, as a later tie does; -0.0 and
    # 0.0 tie (cummin keeps the later zero's sign).
    nans = np.array([1.0, 3.0, 3.0, 2.0, NAN, 5.0, NAN, 0.0, -0.0], np.float32)
    check(lambda t: ops.cummax(t, 0), ([1, 3, 3, 3] + [NAN] * 5, np.array([0, 1, 2, 2, 4, 4, 6, 6, 6], I64)), nans)
    check(lambda t: ops.cummin(t, 0), ([1, 1, 1, 1] + [NAN] * 5, np.array([0, 0, 0, 0, 4, 4, 6, 6, 6], np.int32)),
          nans)
    zeros = np.array([0.0, -0.0, 0.0, 2.0, 2.0, 1.0, 2.0], np.float32)
    check(lambda t: ops.cummin(t, 0), ([0.0, -0.0, 0.0, 0.0, 0.0, 0.0, 0.0], np.array([0, 1, 2, 2, 2, 2, 2], np.int32)),
          zeros)
    check(lambda t: ops.cummax(t, 0), ([0.0, -0.0, 0.0, 2, 2, 2, 2], np.array([0, 1, 2, 3, 4, 4, 6], I64)), zeros)
    a = RNG.integers(-3, 4, (3, 6)).astype(np.int32)
    v, i = torch.cummax(torch.tensor(a), 1)    # torch: the last index of ties too
    check(lambda t: ops.cummax(t, 1), (v.numpy(), i.numpy()), a)
    v, i = torch.cummin(torch.tensor(a), 0)
    check(lambda t: ops.cummin(t, 0), (v.numpy(), i.numpy().astype(np.int32)), a)
    check.run()


def _running_extreme(a, better):
    """Running extremes and their indices along the last axis, element by element: a later tie
    or a NaN takes over."""
    values, index = a.copy(), np.zeros(a.shape, np.int64)
    for row in np.ndindex(a.shape[:-1]):
        best, at = a[row][0], 0
        for j, v in enumerate(a[row]):
            if np.isnan(v) or (not np.isnan(best) and (v == best or better(v, best))):
                best, at = v, j
            values[row][j], index[row][j] = best, at
    return values, index


@pytest.mark.slow   # 35 s; the short-axis scan tests run by default
def test_scans_on_a_long_axis_match_numpy():
    """cummax, cummin and logcumsumexp are log-step scans: 10 steps over 1000 elements, ties,
    NaNs and infinities included, and their gradients reach the elements picked. Under jit only
    (XLA and onnxruntime, one program each): eagerly each step's ops compile on their own."""
    n = 1000
    ints = RNG.integers(-40, 40, (2, n)).astype(np.int32)
    floats = np.round(RNG.standard_normal((2, n)) * 30).astype(np.float32) / 4
    floats[0, [17, 500, 503]] = NAN
    floats[1, [3, 900]] = [np.inf, -np.inf]
    x = (RNG.standard_normal((2, n)) * 20).astype(np.float32)
    x[0, 5:8] = -np.inf   # (leading -infs have no gradient to speak of: every prefix is -inf)
    want = [*_running_extreme(ints, np.greater)]
    v, i = _running_extreme(floats, np.less)
    want += [v, i.astype(np.int32), np.logaddexp.accumulate(x.astype(np.float64), 1).astype(np.float32)]
    # gradients: cummax's to the elements picked (each once per position that picks it);
    # logcumsumexp's against jax's (whose gradient is NaN at -inf: -1e30 there instead)
    picked = _running_extreme(floats[1:], np.greater)[1][0]
    want += [np.bincount(picked, minlength=n)[None].astype(np.float32),
             np.asarray(jax.grad(lambda t: jax.lax.cumlogsumexp(t, 1).sum())(np.maximum(x, -1e30)))]

    scans = [(lambda i: ops.cummax(i, 1), [ints]), (lambda f: ops.cummin(f, 1), [floats]),
             (lambda y: ops.logcumsumexp(y, 1), [x]), (ms.grad(lambda f: ops.cummax(f, 1)[0].sum()), [floats[1:]]),
             (ms.grad(lambda y: ops.logcumsumexp(y, 1).sum()), [x])]
    for backend in ("xla", "onnx"):     # one program each: XLA compiles a few small ones faster than one big
        got = [out for fn, arrays in scans for out in _outputs(call(fn, arrays, backend))]
        same(tuple(got), tuple(want), tol=3e-5)


def _outputs(out):
    return out if isinstance(out, tuple) else (out,)


def test_logcumsumexp_and_diff():
    check = Checks()
    a = np.array([[-1000.0, 0.0, 1.0, 50.0], [3.0, -2.0, 80.0, 80.0]], np.float32)
    check(lambda t: ops.logcumsumexp(t, 1), torch.logcumsumexp(torch.tensor(a), 1).numpy(), a)
    check(lambda t: ops.logcumsumexp(t, 0), torch.logcumsumexp(torch.tensor(a), 0).numpy(), a)
    check(ops.diff, np.diff(X), X)
    check(lambda t: ops.diff(t, 2, 0, prepend=t[:1], append=t), np.diff(X, 2, 0, prepend=X[:1], append=X), X)
    check(ops.diff, np.array([True, False]), np.array([True, False, False]))
    with pytest.raises(TypeError, match="float tensor"):
        ops.logcumsumexp(Tensor(np.arange(3)), 0)
    check.run()


# -- svd and the norms built on it (their ONNX export: tests/test_onnx_svd.py) ----------------------

def test_svd_against_numpy():
    """s against numpy's; u and v orthonormal and u diag(s) v^T the input (their signs are
    LAPACK's choice), in every shape and mode, eagerly and under jit and vmap."""
    for shape in [(3, 3), (4, 2), (2, 5), (2, 3, 4)]:
        a = rand(*shape).astype(np.float64)
        for full in (False, True):
            for run in (lambda f: f, ms.jit):
                s, u, v = run(lambda t: ops.svd(t, full))(Tensor(a))
                s, u, v = s.asnumpy(), u.asnumpy(), v.asnumpy()
                k = min(shape[-2:])
                np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=1e-12)
                assert u.shape[-1] == (shape[-2] if full else k) and v.shape[-1] == (shape[-1] if full else k)
                for q in (u, v):
                    np.testing.assert_allclose(np.swapaxes(q, -1, -2) @ q, np.eye(q.shape[-1]) + 0 * q[..., :1, :1],
                                               atol=1e-12)
                np.testing.assert_allclose((u[..., :k] * s[..., None, :]) @ np.swapaxes(v[..., :k], -1, -2), a,
                                           atol=1e-12)
    a = rand(3, 2, 4)
    same(ops.svd(Tensor(a), compute_uv=False), np.linalg.svd(a, compute_uv=False).astype(np.float32), tol=1e-5)
    same(ms.vmap(lambda t: ops.svd(t, compute_uv=False))(Tensor(a)), np.linalg.svd(a, compute_uv=False), tol=1e-5)
    same(Tensor(a[0]).svd()[0], np.linalg.svd(a[0], compute_uv=False), tol=1e-5)
    s, u, v = ops.Svd(compute_uv=False)(Tensor(a[0]))     # the class's three outputs (measured)
    same(u, np.zeros(1, np.float32))
    for bad, error, message in [(a[0].astype(np.float16), TypeError,
                                 "float32, float64, complex64 or complex128, got Float16"),
                                (a[0].astype(np.int32), TypeError, "got Int32"), (a[0, 0], ValueError, "2 or more"),
                                (np.zeros((0, 3), np.float32), ValueError, "must not be empty")]:
        with pytest.raises(error, match=message):
            ops.svd(Tensor(bad))
    with pytest.raises(TypeError, match="full_matrices must be a bool"):
        ops.svd(Tensor(a[0]), 1)


def test_singular_value_norms_and_zero_gradients_as_measured():
    """Norms 2, -2 and 'nuc' and their gradients, MindSpore 2.10's numbers (measured) on
    a = [[1, 2, 3], [4, 5, 6.5]]; at an all-zero input the 2-norm and Frobenius gradients are 0
    (MindSpore's norm with an int ord and dim gives 0, its ord=None and 'fro' NaN: not copied)."""
    a = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.5]], np.float32)
    measured = {2: (9.83886, [[0.15564065, 0.20527287, 0.27257314], [0.38470286, 0.50738072, 0.67372936]]),
                -2: (0.66842, [[-0.79490232, -0.02940025, 0.47603437], [0.32159653, 0.01189457, -0.19259097]]),
                "nuc": (10.50728, [[-0.63926166, 0.17587262, 0.74860752], [0.70629942, 0.51927531, 0.48113838]])}
    for o, (value, grad) in measured.items():
        same(ops.norm(Tensor(a), o), np.float32(value), tol=2e-5)
        same(ops.matrix_norm(Tensor(a.astype(np.float64)), o), np.float32(value), tol=2e-5)   # float32 (measured)
        same(ms.jit(ms.grad(lambda t: ops.norm(t, o)))(Tensor(a)), np.array(grad, np.float32), tol=2e-5)
    z = Tensor(np.zeros((2, 3), np.float32))
    zero_grads = {(None, None): 0.0, (2, 1): 0.0, ("fro", None): 0.0, (3.0, 1): 0.0,          # 0 everywhere
                  (2, None): [[0.5, 0, 0], [0, 0.5, 0]], (-2, (0, 1)): [[0.5, 0, 0], [0, 0.5, 0]],  # measured
                  ("nuc", None): [[1.0, 0, 0], [0, 1.0, 0]]}
    for (o, dim), want in zero_grads.items():
        got = ms.grad(lambda t: ops.norm(t, o, dim).sum())(z)
        same(got, np.broadcast_to(np.array(want, np.float32), (2, 3)))
    same(ms.grad(lambda t: ops.vector_norm(t).sum())(z), np.zeros((2, 3), np.float32))
    same(ms.grad(lambda t: ops.cdist(t, t).sum())(z), np.zeros((2, 3), np.float32))
    same(ops.norm(Tensor(np.array([[np.nan, 1.0]], np.float32)), None, 1), np.array([np.nan], np.float32))


# -- products and norms ------------------------------------------------------------------------

EINSUMS = [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]), ("ij,kj", [(2, 3), (4, 3)]),
    ("i,i->", [(3,), (3,)]), ("i,j->ij", [(3,), (2,)]), ("ijk->kji", [(2, 3, 4)]), ("ij->", [(2, 3)]),
    ("...ij,...jk->...ik", [(2, 2, 3), (2, 3, 4)]), ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("bhqd,bhkd->bhqk", [(1, 2, 3, 4), (1, 2, 5, 4)]), ("ab,cd->", [(2, 3), (4, 2)]), ("ijk,ik->j", [(2, 3, 4), (2, 4)]),
]


def test_einsum_matches_numpy():
    check = Checks()
    for eq, shapes in EINSUMS:
        arrays = [rand(*s) for s in shapes]
        check(lambda *ts, eq=eq: ops.einsum(eq, *ts), np.einsum(eq, *arrays).astype(np.float32), *arrays, tol=1e-4)
    check.run()


def test_einsum_refuses_clearly():
    with pytest.raises(NotImplementedError, match="diagonal"):
        ops.einsum("ii->i", Tensor(rand(3, 3)))
    with pytest.raises(ValueError, match="sizes 3 and 4"):
        ops.einsum("ij,jk", Tensor(rand(2, 3)), Tensor(rand(4, 2)))


def test_mm_mv_t_kron():
    check = Checks()
    b = rand(3, 4)
    check(ops.mm, X @ b, X, b)
    check(ops.mv, X @ b[:, 0], X, b[:, 0])
    check(ops.t, X.T, X)
    check(ops.t, b[0], b[0])
    k = rand(2, 1, 3)
    check(ops.kron, np.kron(X, k), X, k)
    with pytest.raises(ValueError, match="at most 2-D"):
        ops.t(Tensor(k))
    check.run()


def test_norms_and_distances():
    check = Checks()
    a, b = rand(3, 4), rand(5, 4)
    ta, tb = torch.tensor(a), torch.tensor(b)
    check(lambda t: ops.vector_norm(t, 3.0, 1, True), torch.linalg.vector_norm(ta, 3.0, 1, True).numpy(), a)
    check(lambda t: ops.vector_norm(t, 0), np.float32(12), a)
    same(ops.vector_norm(Tensor(np.array([3, 4], np.int32))), np.float32(5))
    for o in ("fro", 1, -1, math.inf, -math.inf):
        check(lambda t, o=o: ops.matrix_norm(t, o), torch.linalg.matrix_norm(ta, o).numpy(), a)
    check(lambda t: ops.renorm(t, 2, 0, 2.0), torch.renorm(ta, 2, 0, 2.0).numpy(), a)
    check(lambda t: ops.renorm(t, 1, 1, 2.5), torch.renorm(ta, 1, 1, 2.5).numpy(), a)
    for p in (0.0, 1.0, 2.0, 3.0, math.inf):
        check(lambda x, y, p=p: ops.cdist(x, y, p), torch.cdist(ta, tb, p).numpy(), a, b, tol=1e-4)
        check(lambda x, p=p: ops.pdist(x, p), torch.pdist(ta, p).numpy(), a, tol=1e-4)
    check(ops.dist, torch.dist(ta, tb[:1]).numpy(), a, b[:1])
    twice = torch.tensor(a[:3], requires_grad=True)
    (torch.cdist(twice, twice) + torch.cdist(twice, twice, 3.0)).sum().backward()   # zero distances: no NaN
    got = ms.grad(lambda x: (ops.cdist(x, x) + ops.cdist(x, x, 3.0)).sum())(Tensor(a[:3]))
    np.testing.assert_allclose(got.asnumpy(), twice.grad.numpy(), rtol=1e-5, atol=1e-6)
    c = np.concatenate([a[:1], np.zeros((1, 4), np.float32)])
    check(lambda x, y: ops.cosine_similarity(x, y), torch.cosine_similarity(ta[:2], torch.tensor(c)).numpy(), a[:2], c)
    check.run()


def test_trapz_vander_cov():
    check = Checks()
    y, xs = rand(2, 5), np.sort(rand(5))
    check(ops.trapz, np.trapezoid(y, axis=-1), y)
    check(lambda t, x: ops.trapz(t, x), np.trapezoid(y, xs, axis=-1), y, xs)
    check(lambda t: ops.trapz(t, dx=2.0, dim=0), np.trapezoid(y, dx=2.0, axis=0), y)
    check(lambda t: ops.vander(t, 4), np.vander(np.array([1, 2, 3]), 4).astype(I64), np.array([1, 2, 3], np.int32))
    check(ops.vander, np.vander(xs).astype(np.float32), xs, tol=1e-4)
    fw, aw = np.array([1, 2, 1, 3, 1], np.int32), RNG.uniform(0.5, 2, 5).astype(np.float32)
    ty = torch.tensor(y)
    check(ops.cov, torch.cov(ty).numpy(), y)
    check(lambda t: ops.cov(t, correction=0), torch.cov(ty, correction=0).numpy(), y)
    check(lambda t, f, w: ops.cov(t, fweights=f, aweights=w),
          torch.cov(ty, fweights=torch.tensor(fw), aweights=torch.tensor(aw)).numpy(), y, fw, aw, tol=1e-4)
    check(ops.cov, np.float32(np.cov(y[0])), y[0])
    check.run()


# -- shapes ----------------------------------------------------------------------------------

def test_shape_functions_match_numpy():
    check = Checks()
    a, b = np.array([1.0, 2.0], np.float32), np.array([3.0, 4.0], np.float32)
    cube = rand(2, 3, 4)
    check(lambda x, y: (ops.hstack([x, y]), ops.vstack([x, y]), ops.dstack([x, y]), ops.column_stack([x, y])),
          (np.hstack([a, b]), np.vstack([a, b]), np.dstack([a, b]), np.column_stack([a, b])), a, b)
    check(lambda t: (ops.movedim(t, (0, 1), (2, 0)), ops.swapdims(t, 0, 2), ops.expand(t[:, :1], (5, -1, 2, 4)),
                     ops.expand_as(t[0, 0], t), ops.fliplr(t), ops.flipud(t), ops.fills(t, 2)),
          (np.moveaxis(cube, (0, 1), (2, 0)), np.swapaxes(cube, 0, 2), np.broadcast_to(cube[:, :1], (5, 2, 2, 4)),
           np.broadcast_to(cube[0, 0], cube.shape), np.fliplr(cube), np.flipud(cube), np.full_like(cube, 2)), cube)
    for k, dims in ((1, (0, 1)), (-1, (0, 1)), (6, [1, 0]), (3, (2, 0)), (0, (1, 2))):
        check(lambda t, k=k, dims=dims: ops.rot90(t, k, dims), np.rot90(cube, k, dims), cube)
    check(lambda t: ops.atleast_3d([t[0, 0, 0], t[0, 0], t[0], t]),
          tuple(np.atleast_3d(v) for v in (cube[0, 0, 0], cube[0, 0], cube[0], cube)), cube)
    check(lambda t: (ops.atleast_1d(t[0, 0, 0]), ops.atleast_2d(t[0, 0])),
          (np.atleast_1d(cube[0, 0, 0]), np.atleast_2d(cube[0, 0])), cube)
    same(ops.fill(ms.int32, (2, 2), 3.5), np.full((2, 2), 3, np.int32))
    check.run()


def test_splits_as_torch():
    check = Checks()
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    tt = torch.tensor(a)
    for spec, axis in ((3, 0), (4, 1), ((1, 9), 1), ((-2, 1, 3), 0)):
        want = tuple(p.numpy() for p in torch.tensor_split(tt, spec, axis))
        check(lambda t, spec=spec, axis=axis: ops.tensor_split(t, spec, axis), want, a)
    check(lambda t: ops.vsplit(t, 3), tuple(p.numpy() for p in torch.vsplit(tt, [2, 3])), a)   # measured (2,1,1)
    check(lambda t: ops.hsplit(t, [1, 4]), tuple(np.hsplit(a, [1, 4])), a)
    with pytest.raises(ValueError, match="at least 2-D"):
        ops.hsplit(Tensor(a[0]), 2)
    check.run()


# -- constructors and random draws -----------------------------------------------------------

def test_range_and_logspace_as_measured():
    same(ops.range(0, 5, 2), np.array([0, 2, 4], I64))
    same(ops.range(Tensor(0, ms.int32), Tensor(5, ms.int32), Tensor(2, ms.int32)), np.array([0, 2, 4], I64))
    same(ops.range(0.0, 1.0, 0.3), np.float32(0) + np.arange(4, dtype=np.float32) * np.float32(0.3))
    same(ops.range(5, 0, -2), np.array([5, 3, 1], I64))
    with pytest.raises(ValueError, match="maxlen"):
        ops.range(0, 10, 1, maxlen=5)
    same(ops.logspace(0.0, 2.0, 3), np.array([1.0, 10.0, 100.0], np.float32))
    same(ops.logspace(0.0, 2.0, 3, base=2), np.array([1.0, 2.0, 4.0], np.float32))
    with pytest.raises(TypeError, match="float type"):
        ops.logspace(0.0, 2.0, 3, dtype=ms.int32)


def test_random_draws_shapes_dtypes_ranges_and_seeds():
    r = ops.rand(200, 3)
    assert r.shape == (200, 3) and r.dtype == ms.float32 and 0 <= r.asnumpy().min() and r.asnumpy().max() < 1
    assert ops.rand((2, 3), dtype=ms.float16).dtype == ms.float16
    np.testing.assert_array_equal(ops.randn(4, seed=3).asnumpy(), ops.randn(4, seed=3).asnumpy())
    n = ops.randn(4000).asnumpy()
    assert abs(n.mean()) < 0.1 and abs(n.std() - 1) < 0.1
    i = ops.randint(-2, 3, (500,)).asnumpy()
    assert i.dtype == np.int64 and set(np.unique(i)) == {-2, -1, 0, 1, 2}
    like = ops.randint_like(Tensor(np.zeros(50, np.int32)), 0, 3)
    assert like.dtype == ms.int32 and set(np.unique(like.asnumpy())) <= {0, 1, 2}
    assert ops.rand_like(Tensor(X)).shape == X.shape and ops.randn_like(Tensor(X)).dtype == ms.float32
    with pytest.raises(ValueError, match="float type"):
        ops.rand_like(Tensor(np.zeros(2, np.int32)))
    with pytest.raises(ValueError, match="integer type"):
        ops.randint_like(Tensor(X), 0, 3)
    a, b = ms.jit(lambda t: (ops.rand(3), ops.rand(3)))(Tensor(X))
    assert not np.array_equal(a.asnumpy(), b.asnumpy())   # the global generator advances under jit


# -- lookups and counting ----------------------------------------------------------------------

def test_bias_add_embedding():
    check = Checks()
    x, bias = rand(2, 3, 4), rand(3)
    check(ops.bias_add, x + bias[:, None], x, bias)
    w, idx = rand(5, 3), np.array([[0, 3], [4, 4]], np.int32)
    check(ops.embedding, w[idx], idx, w)
    want = torch.nn.functional.embedding(torch.tensor(idx).long(), torch.tensor(w).clone(), max_norm=1.0).numpy()
    check(lambda i, t: ops.embedding(i, t, max_norm=1.0), want, idx, w)
    g = ms.grad(lambda t: (ops.embedding(Tensor(idx), t, padding_idx=4) * 2).sum())(Tensor(w)).asnumpy()
    np.testing.assert_array_equal(g, np.array([[2] * 3, [0] * 3, [0] * 3, [2] * 3, [0] * 3], np.float32))
    check.run()


def test_searchsorted_bucketize_histc_bincount():
    check = Checks()
    seq, v = np.array([1.0, 2.0, 2.0, 4.0], np.float32), rand(2, 5)
    check(ops.searchsorted, np.searchsorted(seq, v).astype(I64), seq, v)
    check(lambda s, t: ops.searchsorted(s, t, side="right", out_int32=True),
          np.searchsorted(seq, v, "right").astype(np.int32), seq, v)
    seq2 = np.sort(rand(2, 6), 1)
    check(lambda s, t: ops.searchsorted(s, t, right=True),
          torch.searchsorted(torch.tensor(seq2), torch.tensor(v), right=True).numpy(), seq2, v)
    check(lambda t: ops.bucketize(t, [1.0, 2.0, 4.0]), torch.bucketize(torch.tensor(v), torch.tensor(seq[[0, 1, 3]]))
          .numpy().astype(np.int32), v)
    h = np.array([1.0, 2.0, 1.0, 4.0, 5.0, -1.0], np.float32)
    for kw in ({"bins": 4}, {"bins": 4, "min": 0.0, "max": 4.0}, {"bins": 3, "min": 0.5, "max": 2.5},
               {"bins": 3, "min": 2.0, "max": 2.0}):   # min == max: the data's range (torch; MindSpore measured)
        check(lambda t, kw=kw: ops.histc(t, **kw), torch.histc(torch.tensor(h), **kw).numpy(), h)
    check(lambda t: ops.histc(t, 4, 0.0, 4.0), np.array([0, 2, 1, 0], np.int32), np.array([1, 2, 1], np.int32))
    check(lambda t: ops.histc(t, 3), [0.0, 2.0, 0.0], np.array([2.0, 2.0], np.float32))   # measured
    c, w = np.array([1, 2, 1, 4], np.int32), np.array([0.5, 1.0, 1.0, 2.0], np.float32)
    same(ops.bincount(Tensor(c)), np.bincount(c).astype(np.float32))
    check(lambda t, u: ops.bincount(t, u, 7), np.bincount(c, w, 7).astype(np.float32), c, w)
    with pytest.raises(ValueError, match="static minlength"):
        ms.jit(ops.bincount)(Tensor(c))
    check.run()


def test_tensor_methods():
    t = Tensor(X)
    same(t.median(), ([3.0, 2.0], np.array([1, 0], I64)))
    same(t.expand(2, 2, 3), np.broadcast_to(X, (2, 2, 3)))
    same(t.t(), X.T)
    same(t.movedim(0, 1), X.T)
    same(Tensor(np.array([1.0, 2.0, 2.0, 4.0], np.float32)).searchsorted(Tensor(np.array([2.0], np.float32))),
         np.array([1], np.int32))
    same(t.cummin(1)[1], np.array([[0, 0, 0], [0, 1, 2]], np.int32))


# -- vmap against a per-example loop ---------------------------------------------------------

VMAP_CASES = {
    "reductions": (lambda a: (*ops.max(a, 1), *ops.median(a, 0), ops.quantile(a, 0.3, 1), ops.nansum(a, 0),
                              ops.prod(a, 1), *ops.aminmax(a, axis=1)), [rand(3, 4, 5)]),
    "scans": (lambda a: (*ops.cummax(a, 1), *ops.cummin(a, 0), ops.logcumsumexp(a, 1), ops.diff(a)),
              [rand(3, 4, 5)]),
    "products": (lambda a, b: (ops.einsum("ij,kj->ik", a, b), ops.mm(a, ops.t(b)), ops.kron(a, b),
                               ops.cdist(a, b), ops.pdist(a), ops.cov(a), ops.renorm(a, 2, 0, 1.0),
                               ops.cosine_similarity(a, b)), [rand(3, 4, 5), rand(3, 4, 5)]),
    "shapes": (lambda a: (ops.rot90(a, 1, (0, 1)), ops.movedim(a, 0, 1), ops.hstack([a, a]), ops.tensor_split(a, 3, 1)[2],
                          ops.expand_as(a[:1], a)), [rand(3, 4, 5)]),
    "lookups": (lambda a, s: (ops.searchsorted(s, a), ops.bucketize(a, [0.0, 1.0]), ops.histc(a, 4, -3.0, 3.0),
                              ops.bias_add(a, s)), [rand(3, 4, 5), np.sort(rand(3, 5), 1)]),
}


def test_vmap_matches_a_per_example_loop():
    """Every family in one function: one trace per run instead of one per family."""
    counts = [len(arrays) for _, arrays in VMAP_CASES.values()]
    arrays = [a for _, case_arrays in VMAP_CASES.values() for a in case_arrays]

    def fn(*ts):
        outs, at = [], 0
        for (f, _), n in zip(VMAP_CASES.values(), counts):
            outs.extend(f(*ts[at:at + n]))
            at += n
        return tuple(outs)
    one = ms.jit(fn)   # the per-example reference, compiled once (eager runs are checked above)
    per = [one(*[Tensor(a[i]) for a in arrays]) for i in range(3)]
    want = tuple(np.stack([p[k].asnumpy() for p in per]) for k in range(len(per[0])))
    for run in (ms.vmap(fn), ms.jit(ms.vmap(fn), backend="onnx")):
        same(tuple(run(*[Tensor(a) for a in arrays])), want, tol=1e-4)


# -- gradients against jax.grad ----------------------------------------------------------------

def _jcummax(a):
    return jax.lax.cummax(a, 1)


GRAD_CASES = {
    "max": (lambda a: ops.max(a, 1)[0], lambda a: jnp.max(a, 1), [(3, 4)]),
    "median": (lambda a: ops.median(a, 1)[0], lambda a: jnp.sort(a, 1)[:, 1], [(3, 4)]),
    "quantile": (lambda a: ops.quantile(a, 0.3, 1), lambda a: jnp.quantile(a, 0.3, 1), [(3, 5)]),
    "nanmean": (lambda a: ops.nanmean(a, 0), lambda a: jnp.nanmean(a, 0), [(3, 4)]),
    "prod": (lambda a: ops.prod(a, 1), lambda a: jnp.prod(a, 1), [(3, 4)]),
    "cummax": (lambda a: ops.cummax(a, 1)[0], _jcummax, [(3, 5)]),
    "logcumsumexp": (lambda a: ops.logcumsumexp(a, 1), lambda a: jax.lax.cumlogsumexp(a, 1), [(3, 5)]),
    "einsum": (lambda a, b: ops.einsum("ij,kj->ik", a, b), lambda a, b: jnp.einsum("ij,kj->ik", a, b), [(2, 3), (4, 3)]),
    "kron": (ops.kron, jnp.kron, [(2, 3), (2, 2)]),
    "cdist": (ops.cdist, lambda a, b: jnp.sqrt(((a[:, None] - b[None]) ** 2).sum(-1)), [(3, 4), (2, 4)]),
    "renorm": (lambda a: ops.renorm(a, 2, 0, 1.0),
               lambda a: a * jnp.where(jnp.linalg.norm(a, axis=1, keepdims=True) > 1,
                                       1 / jnp.linalg.norm(a, axis=1, keepdims=True), 1.0), [(3, 4)]),
    "cov": (ops.cov, jnp.cov, [(3, 5)]),
    "trapz": (ops.trapz, lambda a: jnp.trapezoid(a, axis=-1), [(3, 5)]),
    "vander": (ops.vander, jnp.vander, [(4,)]),
    "cosine_similarity": (ops.cosine_similarity,
                          lambda a, b: (a * b).sum(1) / (jnp.linalg.norm(a, axis=1) * jnp.linalg.norm(b, axis=1)),
                          [(3, 4), (3, 4)]),
}


def test_grad_matches_jax():
    """All cases in one loss (one trace per run); each case's input gradients against jax.grad."""
    cases = list(GRAD_CASES.values())
    arrays = [RNG.uniform(0.5, 3, s) * RNG.choice([-1, 1], s) for _, _, shapes in cases for s in shapes]
    counts = [len(shapes) for _, _, shapes in cases]
    weights, want, at = [], [], 0
    for (_, jfn, _), n in zip(cases, counts):
        xs = [jnp.asarray(a) for a in arrays[at:at + n]]
        w = RNG.uniform(-1, 1, np.shape(jfn(*xs)))
        weights.append(w)
        want.extend(jax.jit(jax.grad(lambda *v, jfn=jfn, w=w: (jfn(*v) * w).sum(), argnums=tuple(range(n))))(*xs))
        at += n

    def loss(*ts):
        total, at = 0.0, 0
        for (fn, _, _), n, w in zip(cases, counts, weights):
            total = total + (fn(*ts[at:at + n]) * Tensor(w)).sum()
            at += n
        return total
    positions = tuple(range(len(arrays)))
    names = [name for name, (_, _, shapes) in GRAD_CASES.items() for _ in shapes]
    for run in (ms.grad(loss, grad_position=positions), ms.jit(ms.grad(loss, grad_position=positions))):
        got = run(*[Tensor(a) for a in arrays])
        for name, g, w in zip(names, got, want):
            np.testing.assert_allclose(g.asnumpy(), np.asarray(w), rtol=1e-7, atol=1e-9, err_msg=name)

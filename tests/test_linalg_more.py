"""graphcell/ops/linalg_solvers.py, matrix_builders.py and the primitives of linalg_prims.py:
values against numpy / scipy / torch (and numbers measured on MindSpore 2.10 where those
differ) eagerly, under jit (XLA) and onnxruntime; gradients against jax.grad; vmap against a
per-example loop; the ONNX rules (Det, unrolled Gauss-Jordan, Cholesky, substitution) against
XLA, batched and with a dynamic batch."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.linalg as sl
import torch

import graphcell as ms
from graphcell import nn, ops
from graphcell.tensor import Tensor

RNG = np.random.default_rng(14)
BACKENDS = ("eager", "xla", "onnx")
A3 = np.array([[4., 1, 2], [1, 3, 0.5], [2, 0.5, 5]])           # symmetric positive definite
N3 = np.array([[1., 2, 0], [0.5, 3, 1], [2, 0.5, 4]])           # needs row swaps
M32 = np.array([[1., 2], [3, 4], [5, 7]])
B32 = np.array([[1., 2], [3, 4], [5, 6]])


def spd(*batch, n=3, dtype=np.float64):
    x = RNG.standard_normal(batch + (n, n))
    return (x @ np.swapaxes(x, -1, -2) + n * np.eye(n)).astype(dtype)


def well(*batch, n=3, dtype=np.float64):
    """Random matrices kept away from singular (a dominant diagonal, random signs)."""
    x = RNG.uniform(-1, 1, batch + (n, n)) + np.eye(n) * (n * RNG.choice([-1, 1], batch + (1, n)))
    return x.astype(dtype)


def call(fn, arrays, backend):
    tensors = [Tensor(a) for a in arrays]
    if backend == "eager":
        return fn(*tensors)
    return ms.jit(fn, backend="onnx")(*tensors) if backend == "onnx" else ms.jit(fn)(*tensors)


def close(got, want, tol=1e-5):
    if isinstance(want, tuple):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            close(g, w, tol)
        return
    g = got.asnumpy() if hasattr(got, "asnumpy") else np.asarray(got)
    w = np.asarray(want)
    assert g.shape == w.shape, (g.shape, w.shape)
    assert g.dtype == w.dtype, (g.dtype, w.dtype)
    np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


# -- determinants, inverses, solves: values on every backend -----------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype, tol", [(np.float32, 2e-5), (np.float64, 1e-11)])
def test_det_family(backend, dtype, tol):
    x = np.concatenate([well(2), N3[None], -A3[None]]).astype(dtype)    # row swaps, a negative det
    got = call(lambda t: (ops.det(t), ops.slogdet(t), ops.logdet(t), ops.inverse(t)), [x], backend)
    sign, logabs = np.linalg.slogdet(x)
    close(got[0], np.linalg.det(x).astype(dtype), tol)
    close(got[1], (sign.astype(dtype), logabs.astype(dtype)), tol)
    close(got[2], np.where(sign < 0, np.nan, logabs).astype(dtype), tol)     # log(det): nan below 0 (measured)
    close(got[3], np.linalg.inv(x).astype(dtype), tol * 10)


@pytest.mark.parametrize("backend", BACKENDS)
def test_singular_matrices(backend):
    s = np.array([[[1., 2], [2, 4]], [[0., 0], [0, 0]]], np.float32)
    close(call(ops.det, [s], backend), np.zeros(2, np.float32))
    # MindSpore 2.10 (measured): slogdet of a singular matrix is (0, -inf), logdet -inf
    close(call(ops.slogdet, [s], backend), (np.zeros(2, np.float32), np.full(2, -np.inf, np.float32)))
    close(call(ops.logdet, [s], backend), np.full(2, -np.inf, np.float32))


def test_measured_mindspore_values():
    # MindSpore 2.10, measured: det, slogdet and logdet of A3 and -A3; float16 kept
    assert ops.det(Tensor(A3.astype(np.float32))).asnumpy() == pytest.approx(44.0, rel=1e-6)
    sign, logabs = ops.slogdet(Tensor(-A3.astype(np.float32)))
    assert (sign.asnumpy(), float(logabs.asnumpy())) == (-1.0, pytest.approx(3.78419, rel=1e-5))
    assert ops.det(Tensor(A3.astype(np.float16))).dtype == ms.float16
    assert ops.matrix_determinant is ops.det and ops.log_matrix_determinant is ops.slogdet


@pytest.mark.parametrize("backend", BACKENDS)
def test_cholesky_family(backend):
    a = spd(2, n=4)
    low, up = np.linalg.cholesky(a), np.swapaxes(np.linalg.cholesky(a), -1, -2)
    b = RNG.standard_normal((2, 4, 3))

    def f(a, b, low, up):
        return (ops.cholesky(a), ops.cholesky(a, upper=True), ops.cholesky_solve(b, low),
                ops.cholesky_solve(b, up, upper=True), ops.cholesky_inverse(low[0]),
                ops.cholesky_inverse(up[1], upper=True), ops.cholesky_inverse(low))
    got = call(f, [a, b, low, up], backend)
    inv = np.linalg.inv(a)
    # the last: batched, where MindSpore 2.10's CPU kernel returns wrong values (measured)
    close(got, (low, up, np.linalg.solve(a, b), np.linalg.solve(a, b), inv[0], inv[1], inv), 1e-10)


def test_cholesky_measured_and_errors():
    # MindSpore 2.10 (measured): the factor of A3, and a non-positive-definite input is an error
    close(ops.cholesky(Tensor(A3.astype(np.float32))),
          np.array([[2, 0, 0], [0.5, 1.658312, 0], [1, 0, 2]], np.float32), 1e-6)
    with pytest.raises(ValueError, match="symmetric positive definite"):
        ops.cholesky(Tensor(-A3.astype(np.float32)))
    with pytest.raises(TypeError, match="upper"):
        ops.cholesky(Tensor(A3.astype(np.float32)), upper=1)
    with pytest.raises(TypeError, match="Int32"):
        ops.cholesky(Tensor(A3.astype(np.int32)))
    with pytest.raises(ValueError, match="must both be 2-D or both 3-D"):
        ops.cholesky_solve(Tensor(np.ones(3, np.float32)), Tensor(A3.astype(np.float32)))
    with pytest.raises(TypeError, match="same"):
        ops.cholesky_solve(Tensor(B32), Tensor(A3.astype(np.float32)))


@pytest.mark.parametrize("backend", BACKENDS)
def test_lu_solve_and_unpack(backend):
    a = np.array([[1., 1, 2], [4, 3, 0.5], [2, 0.5, 5]])
    lu, piv = sl.lu_factor(a)
    piv = (piv + 1).astype(np.int32)          # 1-based, as torch and MindSpore
    tall = np.arange(6.).reshape(3, 2) + 1
    mats = RNG.standard_normal((3, 4, 4))
    lus, pivs = zip(*[sl.lu_factor(m) for m in mats])

    def f(lu, piv, b, tall, tall_piv, lus, pivs):
        return (ops.lu_solve(b, lu, piv), ops.lu_solve(ops.stack([b, -b]), lu, piv), ops.lu_unpack(lu, piv),
                ops.lu_unpack(tall, tall_piv), ops.lu_unpack(lus, pivs))
    got = call(f, [lu, piv, B32, tall, np.array([2, 2], np.int32), np.stack(lus), np.stack(pivs).astype(np.int64) + 1],
               backend)
    close(got[0], np.linalg.solve(a, B32), 1e-12)
    close(got[1], np.linalg.solve(a, np.stack([B32, -B32])), 1e-12)    # b broadcast (measured on 2.10)
    close(got[2], sl.lu(a), 1e-12)
    # a tall factorization (MindSpore 2.10's shapes and values, measured)
    close(got[3], (np.array([[0., 1, 0], [1, 0, 0], [0, 0, 1]]), np.array([[1., 0], [3, 1], [5, 6]]),
                   np.array([[1., 2], [0, 4]])))
    p, low, up = (g.asnumpy() for g in got[4])            # random and batched: P L U rebuilds the matrix
    np.testing.assert_allclose(p @ low @ up, mats, atol=1e-12)


def test_lu_errors_and_flags():
    lu = Tensor(np.eye(3))
    p, low, up = ops.lu_unpack(lu, Tensor(np.array([1, 2, 3], np.int32)), unpack_data=False)
    assert low is None and up is None and p.shape == (3, 3)
    p, low, up = ops.lu_unpack(lu, Tensor(np.array([1, 2, 3], np.int32)), unpack_pivots=False)
    assert p is None
    with pytest.raises(ValueError, match="LU_pivots must be greater than 1"):
        ops.lu_unpack(lu, Tensor(np.array([5, 1, 1], np.int32)))
    with pytest.raises(TypeError, match="Int32"):
        ops.lu_solve(Tensor(np.ones((3, 1))), lu, Tensor(np.array([1, 2, 3], np.int64)))
    with pytest.raises(ValueError, match="greater than or equal to 2"):
        ops.lu_solve(Tensor(np.ones(3)), lu, Tensor(np.array([1, 2, 3], np.int32)))


@pytest.mark.parametrize("backend", BACKENDS)
def test_matrix_power_and_solve(backend):
    x, b = well(2, n=3), np.stack([B32, -B32])
    powers = (0, 1, 2, 5, -1, -3)
    got = call(lambda t, r: tuple(ops.matrix_power(t, n) for n in powers)
               + (ops.matrix_solve(t, r), ops.matrix_solve(t, r, adjoint=True)), [x, b], backend)
    close(got, tuple(np.linalg.matrix_power(x, n) for n in powers)
          + (np.linalg.solve(x, b), np.linalg.solve(np.swapaxes(x, -1, -2), b)), 1e-10)


def test_matrix_power_integers_wrap_and_errors():
    # MindSpore 2.10 (measured): int8 wraps around
    got = ops.matrix_power(Tensor(A3.astype(np.int8)), 3)
    close(got, np.array([[127, 42, -124], [42, 37, 24], [-124, 24, -75]], np.int8))
    with pytest.raises(ValueError, match="integral types are not supported for n < 0"):
        ops.matrix_power(Tensor(A3.astype(np.int32)), -1)
    with pytest.raises(TypeError, match="should be 'int'"):
        ops.matrix_power(Tensor(A3.astype(np.float32)), 2.0)
    with pytest.raises(ValueError, match=r"dim\[-1\] and dim\[-2\]"):
        ops.matrix_power(Tensor(M32), 2)


# -- qr, least squares, pinv, matrix_exp (their ONNX rules: tests/test_onnx_linalg_qr_expm.py and
# tests/test_onnx_svd.py) -----------------------------------------------------------------------

@pytest.mark.parametrize("backend", ["eager", "xla"])
def test_qr_lstsq_pinv_expm(backend):
    shapes = [(2, 4, 3), (3, 3), (2, 5)]
    xs = [RNG.standard_normal(shape) for shape in shapes]
    got = call(lambda *t: tuple(ops.qr(x, mode) for x in t for mode in ("reduced", "complete")), xs, backend)
    close(got, tuple(tuple(np.linalg.qr(x, mode=mode)) for x in xs for mode in ("reduced", "complete")), 1e-10)
    d = np.diag([3., 1, 0.01]).astype(np.float32)
    x, e = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((2, 3, 3))

    def f(b, m, wide, rhs, d, x, e):
        return (ops.lstsq(b, m), ops.lstsq(wide, rhs), ops.pinv(x), ops.pinv(d, atol=0.1),
                ops.pinv(d, atol=0.1, rtol=0.5), ops.pinv(d[:2, :2] + ops.triu(d[:2, :2] + 2.0, 1), hermitian=True),
                ops.matrix_exp(e))
    got = call(f, [B32.astype(np.float32), M32.astype(np.float32), M32.T.copy(), np.array([[1.], [2]]), d, x, e],
               backend)
    # MindSpore 2.10 (measured): lstsq(input, A) solves input @ X = A; the minimum norm when wide;
    # pinv's atol alone drops rtol; hermitian reads the lower triangle only
    close(got, (np.array([[1, 0.666667], [0, 0.583333]], np.float32),
                np.linalg.lstsq(M32.T, [[1.], [2]], rcond=None)[0], np.linalg.pinv(x),
                np.diag([1 / 3, 1, 0]).astype(np.float32), np.diag([1 / 3, 0, 0]).astype(np.float32),
                np.diag([1 / 3, 1]).astype(np.float32), np.stack([sl.expm(m) for m in e])), 1e-5)
    np.testing.assert_allclose(got[-1].asnumpy(), np.stack([sl.expm(m) for m in e]), rtol=1e-12)


def test_qr_and_lstsq_errors():
    with pytest.raises(TypeError, match="'reduced' or 'complete'"):
        ops.qr(Tensor(M32), mode="r")
    with pytest.raises(ValueError, match="at least two dimensions"):
        ops.qr(Tensor(np.ones(3)))
    with pytest.raises(ValueError, match="dimension of x must be equal to 2"):
        ops.lstsq(Tensor(np.ones(3)), Tensor(M32))
    with pytest.raises(TypeError, match="float32, mindspore.float64"):
        ops.pinv(Tensor(M32.astype(np.int32)))


# -- gradients against jax.grad --------------------------------------------------------------

def _grads(fn, jfn, arrays, tol=1e-8, wrt=None):
    wrt = list(range(len(arrays))) if wrt is None else wrt
    got = ms.grad(fn, grad_position=tuple(wrt))(*[Tensor(a) for a in arrays])
    got = got if isinstance(got, tuple) else (got,)
    want = jax.jit(jax.grad(jfn, argnums=tuple(wrt)))(*arrays)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), np.asarray(w), rtol=tol, atol=tol)


jax.config.update("jax_enable_x64", True)
W3 = RNG.standard_normal((3, 3))


def test_gradients_of_the_determinants_and_inverse():
    x, a = well(2), spd(2)

    def f(x, a):
        return (ops.det(x).sum() + ops.slogdet(x)[1].sum() + ops.logdet(a).sum() + (ops.inverse(x) * W3).sum()
                + (ops.matrix_power(x, -2) * W3).sum())

    def jf(x, a):
        return (jnp.linalg.det(x).sum() + jnp.linalg.slogdet(x)[1].sum() + jnp.linalg.slogdet(a)[1].sum()
                + (jnp.linalg.inv(x) * W3).sum() + (jnp.linalg.matrix_power(x, -2) * W3).sum())
    _grads(f, jf, [x, a])
    # second order: the det's vjp is made of matrix_inverse, whose vjp is matmuls
    _grads(lambda t: ms.grad(lambda u: ops.det(u).sum())(t).sum(),
           lambda t: jax.grad(lambda u: jnp.linalg.det(u).sum())(t).sum(), [x], 1e-7)


def test_det_gradient_at_a_singular_matrix_is_mindspores_zero():
    # MindSpore 2.10 (measured): 0 at an exactly singular matrix (jax gives the adjugate)
    g = ms.grad(lambda t: ops.det(t))(Tensor(np.array([[1., 2], [2, 4]], np.float32)))
    np.testing.assert_array_equal(g.asnumpy(), np.zeros((2, 2), np.float32))


def test_gradients_of_the_factorizations():
    a, b = spd(2, n=3), RNG.standard_normal((2, 3, 2))
    tall, sq, e = RNG.standard_normal((2, 4, 3)), RNG.standard_normal((3, 3)), RNG.standard_normal((2, 3, 3)) * 0.5
    wq, wr = RNG.standard_normal((2, 4, 3)), RNG.standard_normal((2, 3, 3))
    x, y, p = RNG.standard_normal((5, 3)), RNG.standard_normal((5, 2)), RNG.standard_normal((3, 2))
    lu, piv = sl.lu_factor(np.array([[1., 1, 2], [4, 3, 0.5], [2, 0.5, 5]]))
    pivots = Tensor((piv + 1).astype(np.int32))

    def f(a, b, tall, sq, e, x, y, p, lu):
        low = ops.cholesky(a)
        q, r = ops.qr(tall)
        q2, r2 = ops.qr(sq)
        return ((low * W3).sum() + (ops.cholesky_solve(b, low) ** 2).sum() + (q * wq).sum() + (r * wr).sum()
                + (q2 * W3).sum() + r2.sum() + (ops.lstsq(x, y) ** 2).sum() + (ops.pinv(p) * W3[:2]).sum()
                + (ops.matrix_exp(e) * W3).sum() + (ops.lu_solve(Tensor(B32), lu, pivots) ** 2).sum())

    def jf(a, b, tall, sq, e, x, y, p, lu):
        low = jnp.linalg.cholesky(a)
        q, r = jnp.linalg.qr(tall)
        q2, r2 = jnp.linalg.qr(sq)
        return ((low * W3).sum() + (jax.scipy.linalg.cho_solve((low, True), b) ** 2).sum() + (q * wq).sum()
                + (r * wr).sum() + (q2 * W3).sum() + r2.sum() + (jnp.linalg.lstsq(x, y)[0] ** 2).sum()
                + (jnp.linalg.pinv(p) * W3[:2]).sum() + (jax.scipy.linalg.expm(e) * W3).sum()
                + (jax.scipy.linalg.lu_solve((lu, piv), B32) ** 2).sum())
    _grads(f, jf, [a, b, tall, sq, e, x, y, p, lu], 1e-7)
    wide = RNG.standard_normal((2, 5))
    _qr_wide_fd(wide, RNG.standard_normal((2, 2)), RNG.standard_normal((2, 5)))


def _qr_wide_fd(x, wq, wr, eps=1e-6):
    """jax has no qr gradient for wide matrices: central differences."""
    def f(t):
        q, r = np.linalg.qr(t)
        return (q * wq).sum() + (r * wr).sum()
    got = ms.grad(lambda t: (ops.qr(t)[0] * Tensor(wq)).sum() + (ops.qr(t)[1] * Tensor(wr)).sum())(Tensor(x))
    want = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[idx] = eps
        want[idx] = (f(x + d) - f(x - d)) / (2 * eps)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6, atol=1e-6)


def test_triangular_solve_vjp_every_form():
    from graphcell.ops.linalg_prims import triangular_solve
    a, b = well(2, n=3), RNG.standard_normal((2, 3, 2))
    forms = [dict(lower=lower, transpose_a=t, unit_diagonal=unit)
             for lower in (True, False) for t in (True, False) for unit in (True, False)]
    _grads(lambda p, q: sum((triangular_solve.bind(p, q, **k) ** 2).sum() * (i + 1) for i, k in enumerate(forms)),
           lambda p, q: sum((jax.lax.linalg.triangular_solve(p, q, left_side=True, **k) ** 2).sum() * (i + 1)
                            for i, k in enumerate(forms)), [a, b], 1e-7)


# -- vmap --------------------------------------------------------------------------------------

def test_vmap_against_a_loop():
    x, a, b = well(4), spd(4), RNG.standard_normal((4, 3, 2))

    def f(x, a, b):
        return (ops.det(x), ops.inverse(x), ops.cholesky(a), ops.cholesky_solve(b, ops.cholesky(a)),
                ops.qr(x)[1], ops.matrix_exp(x * 0.1), ops.slogdet(x)[1])
    got = ms.vmap(f)(Tensor(x), Tensor(a), Tensor(b))
    for i in range(4):
        want = f(Tensor(x[i]), Tensor(a[i]), Tensor(b[i]))
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.asnumpy()[i], w.asnumpy(), rtol=1e-10, atol=1e-10)
    # one operand mapped: the shared factor meets each member's right-hand side
    low = np.linalg.cholesky(a[0])
    got = ms.vmap(lambda q: ops.cholesky_solve(q, Tensor(low)))(Tensor(b))
    np.testing.assert_allclose(got.asnumpy(), np.linalg.solve(a[0], b), atol=1e-10)


# -- the ONNX rules against XLA: sizes, batches, a dynamic batch -------------------------------

@pytest.mark.parametrize("n", [1, 2, 5, 8])
def test_onnx_rules_against_xla(n):
    x, a = well(3, n=n, dtype=np.float32), spd(3, n=n, dtype=np.float32)
    b = RNG.standard_normal((3, n, 2)).astype(np.float32)

    def f(x, a, b):
        low = ops.cholesky(a)
        return (ops.inverse(x), ops.det(x), ops.slogdet(x), ops.cholesky_solve(b, low),
                ops.cholesky(a, upper=True), ops.matrix_solve(x, b))
    xla = ms.jit(f)(Tensor(x), Tensor(a), Tensor(b))
    onnx = ms.jit(f, backend="onnx")(Tensor(x), Tensor(a), Tensor(b))
    for g, w in zip(jax.tree_util.tree_leaves([o.asnumpy() for o in jax.tree_util.tree_leaves(onnx)]),
                    jax.tree_util.tree_leaves([o.asnumpy() for o in jax.tree_util.tree_leaves(xla)])):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)


def test_export_with_a_dynamic_batch(tmp_path):
    import onnxruntime as ort

    class Net(nn.Cell):
        def construct(self, x):
            return ops.inverse(x), ops.logdet(ops.matmul(x, ops.swapaxes(x, -1, -2)))
    x = well(2, n=4, dtype=np.float32)
    path = tmp_path / "inv.onnx"
    ms.export(Net(), Tensor(x), file_name=str(path), file_format="ONNX")
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    for batch in (2, 5):
        xs = well(batch, n=4, dtype=np.float32)
        inv, logdet = sess.run(None, {sess.get_inputs()[0].name: xs})
        np.testing.assert_allclose(inv, np.linalg.inv(xs), rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(logdet, np.linalg.slogdet(xs @ np.swapaxes(xs, -1, -2))[1], rtol=1e-4, atol=1e-4)


# -- matrix builders ---------------------------------------------------------------------------

X34 = np.arange(1., 13).reshape(3, 4).astype(np.float32)


@pytest.mark.parametrize("backend", BACKENDS)
def test_band_and_diagonals(backend):
    bands = [(1, 1), (-1, 0), (0, -1), (-2, 1), (10, 0)]
    v23, v3 = np.arange(1., 7).reshape(2, 3).astype(np.float32), np.array([1., 2, 3], np.float32)
    diags = np.array([[7., 8, 9], [-1, -2, -3]], np.float32)
    k = Tensor(np.array([-1, 1], np.int32))

    def f(x, lo, hi, v23, v3, diags, x2, d2):
        return (tuple(ops.matrix_band_part(x, a, b) for a, b in bands) + (ops.matrix_band_part(x, lo, hi),
                ops.matrix_diag(v23, k=(-1, 0)), ops.matrix_diag(v3, k=1, padding_value=7.),
                ops.matrix_diag_part(x, k, Tensor(np.float32(9)), align="RIGHT_RIGHT"),
                ops.matrix_diag_part(x, (-1, 1), 9.), ops.matrix_set_diag(x, diags, k=(-1, 0)),
                ops.matrix_set_diag(x2, d2, k=1)))
    x2, d2 = np.stack([X34, -X34]), np.array([[7., 8, 9], [1, 2, 3]], np.float32)
    got = call(f, [X34, np.int32(1), np.int32(0), v23, v3, diags, x2, d2], backend)
    want = tuple(np.array([[X34[i, j] if (lo < 0 or i - j <= lo) and (hi < 0 or j - i <= hi) else 0
                            for j in range(4)] for i in range(3)], np.float32) for lo, hi in bands)
    # traced bounds; then MindSpore 2.10's V3 ops (measured): k ranges, padding, alignments
    want += (np.tril(np.triu(X34, -1)), np.array([[1, 0, 0], [4, 2, 0], [0, 5, 3]], np.float32),
             np.array([[7, 1, 7, 7], [7, 7, 2, 7], [7, 7, 7, 3], [7, 7, 7, 7]], np.float32),
             np.array([[2, 7, 12], [1, 6, 11], [9, 5, 10]], np.float32),
             np.array([[2, 7, 12], [1, 6, 11], [5, 10, 9]], np.float32),
             np.array([[7, 2, 3, 4], [-1, 8, 7, 8], [9, -2, 9, 12]], np.float32), _set_diag_ref(x2))
    close(got, want)


def _set_diag_ref(x):
    out = x.copy()
    for b, vals in enumerate([[7., 8, 9], [1, 2, 3]]):
        for t, v in enumerate(vals):
            out[b, t, t + 1] = v
    return out


@pytest.mark.parametrize("backend", BACKENDS)
def test_embeddings_and_products(backend):
    v = RNG.standard_normal((2, 3)).astype(np.float32)
    embeds = [(0, -2, -1), (1, -2, -1), (-1, 0, 2), (0, -1, 0), (2, 1, 0)]
    blocks = [np.array([[1., 2]], np.float32), np.array([[3.], [4]], np.float32), np.float32(5),
              np.array([6., 7], np.float32)]
    ints = [np.array([1, 2], np.int32), np.array([3, 4, 5], np.int32), np.array([6, 7], np.int32)]
    x = np.array([1., 2, 3, 4], np.float32)
    combos = [(r, rep) for r in (1, 2, 3) for rep in (False, True)]

    def f(v, b0, b1, b2, b3, i0, i1, i2, iv, x):
        return (tuple(ops.diag_embed(v, *e) for e in embeds) + (
            ops.diagflat(v, -1), ops.block_diag(b0, b1, b2, b3), ops.ger(v[0], v[1]), ops.vecdot(v, v[:, :1], axis=0),
            ops.vecdot(iv, iv), ops.cartesian_prod(i0, i1, i2), ops.cartesian_prod(i0))
            + tuple(ops.combinations(x, r, rep) for r, rep in combos))
    got = call(f, [v] + blocks + ints + [np.array([1, 2, 3], np.int32), x], backend)
    tt = torch.from_numpy
    want = tuple(torch.diag_embed(tt(v), *e).numpy() for e in embeds) + (
        np.diagflat(v, -1), torch.block_diag(*[tt(np.asarray(b)) for b in blocks]).numpy(), np.outer(v[0], v[1]),
        (v * v[:, :1]).sum(0), np.int64(14),            # integers sum in int64, as 2.10 (measured)
        torch.cartesian_prod(*[tt(t) for t in ints]).numpy(), ints[0][:, None])   # one input: [n, 1] (measured)
    want += tuple(torch.combinations(tt(x), r, rep).numpy().reshape(-1, r) for r, rep in combos)
    close(got, want)


def test_builders_edge_cases_and_errors():
    close(ops.combinations(Tensor(np.ones(3, np.float32)), 4), np.zeros((0,), np.float32))   # measured
    close(ops.diagflat(Tensor(np.array([True, False]))), np.diag([1., 0]).astype(np.float32))   # measured
    close(ops.diagflat(Tensor(np.float32(5))), np.array([[5.]], np.float32))
    for offset in (-5, -1, 0, 1, 3):
        close(ops.tril_indices(3, 4, offset), np.stack(np.tril_indices(3, offset, 4)).astype(np.int64))
        close(ops.triu_indices(3, 4, offset, dtype=ms.int32), np.stack(np.triu_indices(3, offset, 4)).astype(np.int32))
    with pytest.raises(TypeError, match="mindspore.int32, mindspore.int64"):
        ops.tril_indices(3, 3, dtype=ms.float32)
    with pytest.raises(ValueError, match="must >= 0"):
        ops.triu_indices(-1, 3)
    with pytest.raises(TypeError, match="must be int"):
        ops.triu_indices(Tensor(np.int32(3)), 3)
    with pytest.raises(ValueError, match="not consistent"):
        ops.matrix_diag(Tensor(np.ones(3, np.float32)), k=-1, num_rows=5, num_cols=4)
    with pytest.raises(ValueError, match="'align' must be"):
        ops.matrix_diag(Tensor(np.ones(3, np.float32)), align="X")
    with pytest.raises(ValueError, match="max_diag_len"):
        ops.matrix_set_diag(Tensor(X34), Tensor(np.ones(2, np.float32)))
    with pytest.raises(TypeError, match="Int32, Int64"):
        ops.matrix_band_part(Tensor(X34), 1.0, 0)
    with pytest.raises(ValueError, match="must not be identical"):
        ops.diag_embed(Tensor(X34), dim1=1, dim2=1)
    with pytest.raises(ValueError, match="0, 1, or 2"):
        ops.block_diag(Tensor(np.ones((1, 1, 1))))
    with pytest.raises(TypeError, match="Float16"):
        ops.ger(Tensor(np.ones(2, np.int32)), Tensor(np.ones(2, np.int32)))
    with pytest.raises(ValueError, match="same type"):
        ops.cartesian_prod(Tensor(np.ones(2, np.int32)), Tensor(np.ones(2, np.float32)))


def test_builder_gradients():
    x = RNG.standard_normal((2, 3, 4))
    w = RNG.standard_normal((2, 3, 4))
    band = np.array([[1. if -1 <= j - i <= 2 else 0 for j in range(4)] for i in range(3)])
    g = ms.grad(lambda t: (ops.matrix_band_part(t, 1, 2) * Tensor(w)).sum())(Tensor(x))
    np.testing.assert_allclose(g.asnumpy(), w * band)
    g = ms.grad(lambda t: (ops.matrix_diag_part(t, (0, 1), 0.) * Tensor(w[:, :2, :3])).sum())(Tensor(x))
    want = jax.grad(lambda t: (jnp.stack([jnp.diagonal(t, 1, -2, -1), jnp.diagonal(t, 0, -2, -1)], -2)
                               * w[:, :2, :3]).sum())(x)
    np.testing.assert_allclose(g.asnumpy(), want)


# -- nn Cells and operator classes -------------------------------------------------------------

def test_nn_cells():
    a = spd(2, dtype=np.float32)
    close(nn.MatDet()(Tensor(a)), np.linalg.det(a).astype(np.float32), 1e-3)
    close(nn.MatInverse()(Tensor(a)), np.linalg.inv(a).astype(np.float32), 1e-5)
    with pytest.raises(TypeError, match="float16, mindspore.float32"):
        nn.MatDet()(Tensor(a.astype(np.float64)))
    v = RNG.standard_normal((2, 3)).astype(np.float32)
    close(nn.MatrixDiag()(Tensor(v)), np.stack([np.diag(r) for r in v]))
    close(nn.MatrixDiagPart()(Tensor(np.stack([X34, -X34]))), np.stack([np.diag(X34), -np.diag(X34)]))
    close(nn.MatrixSetDiag()(Tensor(X34), Tensor(np.array([7., 8, 9], np.float32))),
          (X34 * (1 - np.eye(3, 4)) + np.diag([7., 8, 9, 0])[:3]).astype(np.float32))
    x = np.arange(1., 10).reshape(3, 3).astype(np.float32)
    close(nn.Tril()(Tensor(x), 1), np.tril(x, 1))
    close(nn.Triu()(Tensor(x), -1), np.triu(x, -1))


def test_operator_classes():
    n3 = Tensor(N3.astype(np.float32))
    close(ops.MatrixInverse(adjoint=True)(n3), np.linalg.inv(N3).T.astype(np.float32), 1e-5)
    close(ops.MatrixDeterminant()(n3), np.float32(np.linalg.det(N3)), 1e-5)
    close(ops.LogMatrixDeterminant()(n3), tuple(np.float32(v) for v in np.linalg.slogdet(N3)), 1e-5)
    a = Tensor(A3.astype(np.float32))
    close(ops.Cholesky(upper=True)(a), np.linalg.cholesky(A3).T.astype(np.float32), 1e-5)
    low = ops.Cholesky()(a)
    close(ops.CholeskySolve()(Tensor(B32.astype(np.float32)), low), np.linalg.solve(A3, B32).astype(np.float32), 1e-5)
    close(ops.CholeskyInverse()(low), np.linalg.inv(A3).astype(np.float32), 1e-5)
    close(ops.MatrixPower(2)(n3), (N3 @ N3).astype(np.float32), 1e-5)
    close(ops.MatrixBandPart()(n3, 0, 1), np.triu(np.tril(N3, 1)).astype(np.float32))
    q, r = ops.Qr(full_matrices=True)(Tensor(M32))
    close(q @ r, M32, 1e-10)
    assert q.shape == (3, 3)
    close(ops.Ger()(Tensor(np.array([1., 2])), Tensor(np.array([3., 4]))), np.array([[3., 4], [6, 8]]))
    close(ops.TrilIndices(3, 3)(), np.stack(np.tril_indices(3)).astype(np.int32))   # int32 default (measured)
    close(ops.MatrixTriangularSolve(lower=True, adjoint=True)(Tensor(np.tril(N3)), Tensor(B32)),
          sl.solve_triangular(np.tril(N3), B32, lower=True, trans=1), 1e-10)
    close(ops.MatrixSolve(adjoint=True)(Tensor(N3), Tensor(B32)), np.linalg.solve(N3.T, B32), 1e-10)
    p, low, up = ops.LuUnpack()(Tensor(N3), Tensor(np.array([1, 2, 3], np.int32)))
    close(low @ up, np.tril(N3, -1) @ np.triu(N3) + np.triu(N3), 1e-12)
    close(ops.LuSolve()(Tensor(B32), Tensor(N3), Tensor(np.array([1, 2, 3], np.int32))),
          np.linalg.solve((np.tril(N3, -1) + np.eye(3)) @ np.triu(N3), B32), 1e-10)
    close(ops.MatrixDiagV3()(Tensor(np.array([1., 2])), Tensor(np.int32(1)), Tensor(np.int32(-1)),
                             Tensor(np.int32(-1)), Tensor(np.float64(0))), np.eye(3, k=1)[:, :] * [0, 1, 2])

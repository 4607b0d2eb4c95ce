"""graphcell.scipy (mindspore.scipy's linalg, fft and optimize) against scipy, jax and the
literals measured on MindSpore 2.10.0's CPU build (marked "measured")."""
import inspect
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.fft
import scipy.linalg as sl
import scipy.optimize

import graphcell as ms
import graphcell.numpy as mnp
import graphcell.scipy.fft as gfft
import graphcell.scipy.linalg as L
from graphcell import Tensor
from graphcell.scipy.optimize import line_search, linear_sum_assignment, minimize

G = np.array([[1., 2, 3], [4, 5, 6], [7, 8, 10]], np.float32)
SPD = np.array([[4., 2, 1], [2, 5, 3], [1, 3, 6]], np.float32)
B = np.array([[1.], [2], [3]], np.float32)

# inspect.signature of each function on MindSpore 2.10 (measured)
SIGNATURES = {
    "linalg.block_diag": "(*arrs)",
    "linalg.cho_factor": "(a, lower=False, overwrite_a=False, check_finite=True)",
    "linalg.cho_solve": "(c_and_lower, b, overwrite_b=False, check_finite=True)",
    "linalg.cholesky": "(a, lower=False, overwrite_a=False, check_finite=True)",
    "linalg.det": "(a, overwrite_a=False, check_finite=True)",
    "linalg.eigh": "(a, b=None, lower=True, eigvals_only=False, overwrite_a=False, overwrite_b=False, turbo=True, "
                   "eigvals=None, type=1, check_finite=True)",
    "linalg.inv": "(a, overwrite_a=False, check_finite=True)",
    "linalg.lstsq": "(A, B, rcond=None, driver=None)",
    "linalg.lu": "(a, permute_l=False, overwrite_a=False, check_finite=True)",
    "linalg.lu_factor": "(a, overwrite_a=False, check_finite=True)",
    "linalg.lu_pivots_to_permutation": "(pivots, permutation_size: int)",
    "linalg.lu_solve": "(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True)",
    "linalg.solve_triangular": "(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False, debug=None, "
                               "check_finite=True)",
    "optimize.minimize": "(func, x0, args=(), method=None, jac=None, hess=None, hessp=None, bounds=None, "
                         "constraints=(), tol=None, callback=None, options=None)",
    "optimize.line_search": "(f, xk, pk, jac=None, gfk=None, old_fval=None, old_old_fval=None, c1=0.0001, c2=0.9, "
                            "maxiter=20)",
    "fft.dct": "(x, type=2, n=None, axis=-1, norm=None)",
    "fft.idct": "(x, type=2, n=None, axis=-1, norm=None)",
    "fft.dctn": "(x, type=2, s=None, axes=None, norm=None)",
    "fft.idctn": "(x, type=2, s=None, axes=None, norm=None)",
}


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_signatures_are_mindspores(name):
    module, fn = name.split(".")
    ours = str(inspect.signature(getattr(getattr(ms.scipy, module), fn)))
    assert ours.replace(": 'int'", ": int") == SIGNATURES[name]     # postponed annotations print quoted


def test_layout_and_names():
    # __all__ of each module on 2.10 (measured), plus det, lu_pivots_to_permutation and lu_solve
    # that its linalg defines outside __all__; 2.10 has no mindspore.scipy.sparse
    assert set(ms.scipy.optimize.__all__) == {"minimize", "line_search", "linear_sum_assignment"}
    assert set(ms.scipy.fft.__all__) == {"dct", "idct", "dctn", "idctn"}
    assert {"block_diag", "inv", "cho_factor", "cholesky", "cho_solve", "eigh", "lu_factor", "lu",
            "solve_triangular", "lstsq", "det", "lu_pivots_to_permutation", "lu_solve"} <= set(dir(L))
    assert sorted(type(linear_sum_assignment).__name__ for _ in [0]) == ["function"]
    assert inspect.signature(linear_sum_assignment).parameters["maximize"].default is inspect.Parameter.empty


# -- linalg: values ----------------------------------------------------------------------------

def test_cholesky_family_measured():
    upper = np.array([[2., 1, 0.5], [0, 2, 1.25], [0, 0, 2.046338]], np.float32)      # measured
    np.testing.assert_allclose(L.cholesky(Tensor(SPD)).asnumpy(), upper, atol=1e-6)
    np.testing.assert_allclose(L.cholesky(Tensor(SPD), lower=True).asnumpy(), upper.T, atol=1e-6)
    c, lower = L.cho_factor(Tensor(SPD))
    assert lower is False and c.dtype == ms.float32
    np.testing.assert_allclose(c.asnumpy(), upper, atol=1e-6)
    expected = np.array([0.089552, 0.104478, 0.432836], np.float32)                   # measured
    for low in (False, True):
        factor = L.cho_factor(Tensor(SPD), lower=low)
        np.testing.assert_allclose(L.cho_solve(factor, Tensor(B)).asnumpy()[:, 0], expected, atol=1e-6)
        got = L.cho_solve(factor, Tensor(B[:, 0]))
        assert got.shape == (3,)
        np.testing.assert_allclose(got.asnumpy(), expected, atol=1e-6)


def test_det_inv_dtypes_measured():
    assert L.det(Tensor(G)).dtype == ms.float32 and float(L.det(Tensor(G)).asnumpy()) == pytest.approx(-3.0, 1e-5)
    for fn in (L.det, L.inv):
        assert fn(Tensor(G.astype(np.int32))).dtype == ms.float64      # integers in float64 (measured)
    np.testing.assert_allclose(L.inv(Tensor(G.astype(np.float64))).asnumpy(), np.linalg.inv(G.astype(np.float64)),
                               rtol=1e-12)


def test_lu_measured():
    p, low, up = L.lu(Tensor(G))
    assert (p.dtype, low.dtype, up.dtype) == (ms.int32, ms.float32, ms.float32)            # measured
    np.testing.assert_array_equal(p.asnumpy(), [[0, 1, 0], [0, 0, 1], [1, 0, 0]])
    np.testing.assert_allclose(low.asnumpy(), [[1, 0, 0], [0.142857, 1, 0], [0.571429, 0.5, 1]], atol=1e-6)
    np.testing.assert_allclose(up.asnumpy(), [[7, 8, 10], [0, 0.857143, 1.571429], [0, 0, -0.5]], atol=1e-6)
    p, low, up = L.lu(Tensor(G[:2]))                                       # wide: [2, 2], [2, 2], [2, 3]
    np.testing.assert_array_equal(p.asnumpy(), [[0, 1], [1, 0]])
    np.testing.assert_allclose(up.asnumpy(), [[4, 5, 6], [0, 0.75, 1.5]], atol=1e-6)
    packed, piv = L.lu_factor(Tensor(G))
    np.testing.assert_array_equal(piv.asnumpy(), [2, 2, 2])
    assert piv.dtype == ms.int32
    ref_lu, ref_piv = sl.lu_factor(G.astype(np.float64))
    np.testing.assert_allclose(packed.asnumpy(), ref_lu, atol=1e-6)
    np.testing.assert_array_equal(L.lu_pivots_to_permutation(Tensor(np.array([2, 2, 2], np.int32)), 3).asnumpy(),
                                  [2, 0, 1])                                                     # measured
    np.testing.assert_array_equal(L.lu_pivots_to_permutation(Tensor(np.array([2, 2, 2], np.int64)), 4).asnumpy(),
                                  [2, 0, 1, 3])
    # permute_l: 2.10 raises a MatMul TypeError (measured); scipy's (P L, U) here
    pl, up = L.lu(Tensor(G), permute_l=True)
    np.testing.assert_allclose(pl.asnumpy() @ up.asnumpy(), G, atol=1e-5)


def test_lu_against_scipy_random():
    rng = np.random.default_rng(0)
    for shape in ((5, 5), (3, 6)):
        a = rng.normal(size=shape)
        p, low, up = (t.asnumpy() for t in L.lu(Tensor(a)))
        rp, rl, ru = sl.lu(a)
        np.testing.assert_array_equal(p, rp)
        np.testing.assert_allclose(low, rl, atol=1e-12)
        np.testing.assert_allclose(up, ru, atol=1e-12)


def test_lu_solve():
    factor = L.lu_factor(Tensor(G))
    np.testing.assert_allclose(L.lu_solve(factor, Tensor(B)).asnumpy()[:, 0], [-1 / 3, 2 / 3, 0], atol=1e-5)  # measured
    # trans=1 solves a^T x = b as scipy; 2.10 gives [3, -0.667, -4.333] (measured), the solution of
    # (L U)^T x = P b, which is not a^T x = b
    for trans in (1, 2):
        np.testing.assert_allclose(L.lu_solve(factor, Tensor(B), trans=trans).asnumpy(),
                                   sl.lu_solve(sl.lu_factor(G.astype(np.float64)), B, trans=trans), atol=1e-5)
    assert L.lu_solve(factor, Tensor(B[:, 0])).shape == (3,)           # 2.10: IndexError (measured)


def test_solve_triangular_measured():
    up, low = Tensor(np.triu(G)), Tensor(np.tril(G))
    cases = {  # measured
        "plain": (L.solve_triangular(up, Tensor(B)), [0.02, 0.04, 0.3]),
        "lower": (L.solve_triangular(low, Tensor(B), lower=True), [1, -0.4, -0.08]),
        "trans1": (L.solve_triangular(up, Tensor(B), trans=1), [1, 0, 0]),
        "transT": (L.solve_triangular(up, Tensor(B), trans="T"), [1, 0, 0]),
        "unit": (L.solve_triangular(up, Tensor(B), unit_diagonal=True), [24, -16, 3]),
    }
    for name, (got, want) in cases.items():
        np.testing.assert_allclose(got.asnumpy()[:, 0], want, atol=1e-5, err_msg=name)
    vec = L.solve_triangular(up, Tensor(B[:, 0]))
    assert vec.shape == (3,)
    batch = L.solve_triangular(Tensor(np.stack([np.triu(G)] * 2)), Tensor(np.stack([B] * 2)))
    assert batch.shape == (2, 3, 1)
    ints = L.solve_triangular(Tensor(G.astype(np.int32)), Tensor(np.ones((3, 1), np.int32)))
    assert ints.dtype == ms.float32                                                          # measured
    np.testing.assert_allclose(ints.asnumpy()[:, 0], [0.54, 0.08, 0.1], atol=1e-6)


def test_eigh():
    w, v = L.eigh(Tensor(SPD))
    np.testing.assert_allclose(w.asnumpy(), [1.921346, 3.730159, 9.348492], rtol=1e-5)      # measured
    # eigenvectors up to sign (2.10's signs are not LAPACK's)
    ms_v = np.array([[-0.51454, -0.775876, 0.365055], [0.746085, -0.195271, 0.636574],
                     [-0.422618, 0.599905, 0.679344]])                                       # measured
    np.testing.assert_allclose(np.abs(v.asnumpy()), np.abs(ms_v), atol=1e-5)
    # one triangle read (measured on a non-symmetric G)
    np.testing.assert_allclose(L.eigh(Tensor(G), eigvals_only=True).asnumpy(), [-2.85563, -0.52402, 19.37965],
                               atol=1e-4)
    np.testing.assert_allclose(L.eigh(Tensor(G), lower=False, eigvals_only=True).asnumpy(),
                               [0.06697, 1.0, 14.93304], atol=1e-4)
    assert L.eigh(Tensor(G.astype(np.int32)), eigvals_only=True).dtype == ms.float64


def test_lstsq_block_diag_measured():
    x, residues, rank, s = L.lstsq(Tensor(G), Tensor(B))
    np.testing.assert_allclose(x.asnumpy()[:, 0], [-1 / 3, 2 / 3, 0], atol=1e-5)
    assert residues.shape == (0,) and s.shape == (0,) and rank.dtype == ms.int64 and int(rank.asnumpy()) == 3
    x, _, rank, s = L.lstsq(Tensor(G[:, :2]), Tensor(np.ones(3, np.float32)))
    np.testing.assert_allclose(x.asnumpy(), [-1, 1], atol=1e-5)                               # measured
    _, _, _, s = L.lstsq(Tensor(G), Tensor(np.ones(3, np.float32)), driver="gelsd")
    np.testing.assert_allclose(s.asnumpy(), [17.412508, 0.875161, 0.196866], rtol=1e-5)       # measured
    out = L.block_diag(Tensor(SPD[:2, :2]), Tensor(np.ones((1, 3), np.float32)))
    np.testing.assert_array_equal(out.asnumpy(), sl.block_diag(SPD[:2, :2], np.ones((1, 3))))
    empty = L.block_diag()
    assert empty.shape == (1, 0) and empty.dtype == ms.float32                                 # measured
    assert L.block_diag(Tensor(np.ones((2, 2), np.float32)), Tensor(np.ones((1, 1), np.int32))).dtype == ms.float32


# -- linalg: errors (2.10's types and messages, measured) ---------------------------------------

def test_linalg_errors_measured():
    with pytest.raises(ValueError, match=r"^For 'inv', the dimension of 'a' should be 2, but got 1\.$"):
        L.inv(Tensor(G[0]))
    with pytest.raises(ValueError, match=r"For 'det', the matrix 'a' should be a square matrix like \(N, N\), but "
                                         r"got \(2, 3\)\."):
        L.det(Tensor(G[:2]))
    with pytest.raises(TypeError, match=r"For 'cholesky', the data type of 'a' should be one of \[mindspore.int32, "
                                        r"mindspore.int64, mindspore.float32, mindspore.float64\], but got Float16\."):
        L.cholesky(Tensor(G.astype(np.float16)))
    with pytest.raises(RuntimeError, match="Cholesky expects symmetric positive definite matrices as inputs."):
        L.cho_factor(Tensor(G))
    with pytest.raises(ValueError, match="For 'eigh', currently only case b=None of 'eigh' is implemented."):
        L.eigh(Tensor(SPD), Tensor(np.eye(3, dtype=np.float32)))
    with pytest.raises(ValueError, match="last two dimensions of LU decomposition must be row less or equal to col."):
        L.lu(Tensor(G[:, :2]))
    with pytest.raises(ValueError, match=r"For 'lu_solve', the value of 'trans' should be one of \(0, 1, 2\), but "
                                         r"got 5\."):
        L.lu_solve(L.lu_factor(Tensor(G)), Tensor(B), trans=5)
    with pytest.raises(RuntimeError, match=r"For 'SolveTriangular', 'trans' must be in \[0, 1, 2, 'N', 'T', 'C'\], "
                                           r"but got \[3\]\."):
        L.solve_triangular(Tensor(G), Tensor(B), trans=3)
    with pytest.raises(TypeError, match="For 'SolveTriangular' the type of a and b must be same"):
        L.solve_triangular(Tensor(G), Tensor(B.astype(np.float64)))
    with pytest.raises(ValueError, match="For 'cho_solve', the last two dimensions of 'c' and 'b' should be matched"):
        L.cho_solve((Tensor(G), False), Tensor(np.ones((2, 1), np.float32)))
    with pytest.raises(ValueError, match="must have at most 2 dimensions"):
        L.block_diag(Tensor(np.ones((2, 2, 2), np.float32)))


# -- linalg under jit, grad and vmap -------------------------------------------------------------

def _solves(a, spd, b):
    factor = L.lu_factor(a)
    w, v = L.eigh(spd)
    return (L.lu_solve(factor, b), L.lu_solve(factor, b, trans=1), L.cho_solve(L.cho_factor(spd), b),
            w, L.det(a), L.solve_triangular(a, b, lower=True), gfft.dct(b, axis=0))


def test_jit_matches_eager():
    args = [Tensor(G.astype(np.float64)), Tensor(SPD.astype(np.float64)), Tensor(B.astype(np.float64))]
    for eager, jitted in zip(_solves(*args), ms.jit(_solves)(*args)):
        np.testing.assert_allclose(jitted.asnumpy(), eager.asnumpy(), rtol=1e-10, atol=1e-12)


def _loss_graphcell(a, spd):
    x = L.lu_solve(L.lu_factor(a), Tensor(B.astype(np.float64)))
    w, v = L.eigh(spd)
    return (x * x).sum() + (w * Tensor(np.array([1., 2, 3]))).sum() + (v[:, 2] ** 2 * Tensor(np.arange(3.))).sum() \
        + L.det(a) + L.cholesky(spd).sum()


def _loss_jax(a, spd):
    x = jax.scipy.linalg.lu_solve(jax.scipy.linalg.lu_factor(a), jnp.asarray(B, jnp.float64))
    sym = jnp.tril(spd) + jnp.tril(spd, -1).T
    w, v = jnp.linalg.eigh(sym)
    return (x * x).sum() + (w * jnp.array([1., 2, 3])).sum() + (v[:, 2] ** 2 * jnp.arange(3.)).sum() \
        + jnp.linalg.det(a) + jnp.linalg.cholesky(spd).T.sum()   # both read the lower triangle, symmetric vjp


def test_grad_against_jax():
    a, spd = G.astype(np.float64), SPD.astype(np.float64)
    with jax.enable_x64(True):
        want = jax.grad(_loss_jax, argnums=(0, 1))(jnp.asarray(a), jnp.asarray(spd))
    got = ms.grad(_loss_graphcell, grad_position=(0, 1))(Tensor(a), Tensor(spd))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), np.asarray(w), rtol=1e-8, atol=1e-10)


def test_vmap_solve_triangular_and_eigh():
    rng = np.random.default_rng(1)
    mats = rng.normal(size=(3, 4, 4))
    got = ms.vmap(lambda m: L.eigh(m, eigvals_only=True))(Tensor(mats))
    np.testing.assert_allclose(got.asnumpy(), [np.linalg.eigvalsh(m) for m in mats], rtol=1e-10)


# -- eigh of complex Hermitian matrices -----------------------------------------------------------

Z = np.array([[2, 1 - 1j, 0.5j, 3], [4 + 1j, -1, 2 + 1j, 1j], [1, 2 - 3j, 3, -1 + 1j], [0.5, 1j, 2 + 2j, 1]])


def _hermitian(a, lower=True):
    """The Hermitian matrix whose lower (upper) triangle a's is, its diagonal's imaginary parts dropped."""
    half = np.tril(a, -1) if lower else np.triu(a, 1)
    return half + np.conj(half).T + np.diag(a.diagonal().real)


def _phase_fixed(v):
    """v's columns each times the unit factor that makes its first entry within 0.1% of its
    largest magnitude real and positive (graphcell's convention, written again here)."""
    near = np.abs(v) >= 0.999 * np.abs(v).max(axis=-2, keepdims=True)
    entry = np.take_along_axis(v, np.argmax(near, axis=-2)[..., None, :], axis=-2)
    return v * np.conj(entry) / np.abs(entry)


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_eigh_of_a_complex_matrix_reads_one_triangle(dtype, lower):
    """A complex a (2.10 takes complex64 and complex128): w in a's dtype, zero imaginary parts
    (2.x's Eigh primitive, from its source), v unitary; scipy's values and vectors, each of
    scipy's columns times the phase graphcell's convention gives it; a non-Hermitian a's other
    triangle and its diagonal's imaginary parts are not read, as scipy's (LAPACK's heevd)."""
    w, v = L.eigh(Tensor(Z.astype(dtype)), lower=lower)
    assert w.dtype == v.dtype == (ms.complex64 if dtype == np.complex64 else ms.complex128)
    tol = 1e-5 if dtype == np.complex64 else 1e-12
    sw, sv = sl.eigh(Z, lower=lower)
    np.testing.assert_allclose(w.asnumpy(), sw, atol=tol * 10)
    assert not w.asnumpy().imag.any()
    np.testing.assert_allclose(v.asnumpy(), _phase_fixed(sv), atol=tol * 10)
    h = _hermitian(Z, lower)
    np.testing.assert_allclose(h @ v.asnumpy(), v.asnumpy() * sw, atol=tol * 100)
    only = ms.jit(lambda a: L.eigh(a, lower=lower, eigvals_only=True))(Tensor(Z.astype(dtype)))
    np.testing.assert_allclose(only.asnumpy(), sw, atol=tol * 10)


def test_eigh_dtype_errors_name_the_complex_dtypes():
    with pytest.raises(TypeError, match=r"For 'eigh', the data type of 'a' should be one of \[mindspore.int32, "
                                        r"mindspore.int64, mindspore.float32, mindspore.float64, mindspore.complex64, "
                                        r"mindspore.complex128\], but got Float16\."):
        L.eigh(Tensor(SPD.astype(np.float16)))
    with pytest.raises(TypeError, match="the data type of 'a' should be one of .*but got Float16"):
        L.cholesky(Tensor(SPD.astype(np.float16)))   # the real-only functions keep 2.10's four


def _complex_eigh_loss_graphcell(a):
    from graphcell import ops
    w, v = L.eigh(a)
    weights = Tensor(np.arange(16.).reshape(4, 4))
    return (ops.real(w) * Tensor(np.array([1., 2, 3, 4]))).sum() \
        + ((ops.real(v) ** 2 + ops.imag(v) ** 2) * weights).sum()


def _complex_eigh_loss_jax(a):
    lower = jnp.tril(a, -1)
    w, v = jnp.linalg.eigh(lower + jnp.conj(lower).T + jnp.diag(jnp.real(jnp.diagonal(a))))
    return (w * jnp.array([1., 2, 3, 4])).sum() + (jnp.abs(v) ** 2 * jnp.arange(16.).reshape(4, 4)).sum()


def test_complex_eigh_grad_against_jax():
    """A loss of the eigenvalues and |V|^2 (which the columns' phases do not change: jax's and
    graphcell's vectors differ by phases): graphcell's gradient is the conjugate of jax.grad's
    (MindSpore's convention), through the lower triangle read."""
    with jax.enable_x64(True):
        want = jax.grad(_complex_eigh_loss_jax)(jnp.asarray(Z))
    got = ms.grad(_complex_eigh_loss_graphcell)(Tensor(Z))
    np.testing.assert_allclose(got.asnumpy(), np.conj(np.asarray(want)), rtol=1e-8, atol=1e-10)
    assert np.abs(np.triu(got.asnumpy(), 1)).max() == 0   # the upper triangle is not read


def test_complex_eigh_grad_of_a_phase_dependent_loss_against_finite_differences():
    """sum(W1 Re V + W2 Im V) depends on the columns' phases, which graphcell's convention fixes
    as a function of A: the gradient carries that rule's own derivative (eigh_prim's phase
    term) and matches central differences of graphcell's own eigh in random Hermitian directions."""
    from graphcell import ops
    from graphcell.ops.eigh_prim import eigh
    rng = np.random.default_rng(5)
    w1, w2 = rng.standard_normal((2, 4, 4))
    h = _hermitian(Z)

    def loss(a):
        v = eigh.bind(a)[1]
        return (ops.real(v) * Tensor(w1) + ops.imag(v) * Tensor(w2)).sum()
    grad = ms.grad(loss)(Tensor(h)).asnumpy()     # dL/dRe + i dL/dIm
    for _ in range(3):
        d = rng.standard_normal((4, 4)) + 1j * rng.standard_normal((4, 4))
        d = d + np.conj(d).T
        eps = 1e-6
        fd = (float(loss(Tensor(h + eps * d)).asnumpy()) - float(loss(Tensor(h - eps * d)).asnumpy())) / (2 * eps)
        np.testing.assert_allclose(np.real(np.sum(np.conj(grad) * d)), fd, rtol=1e-6, atol=1e-7)


def test_vmap_of_complex_eigh_matches_a_loop():
    rng = np.random.default_rng(2)
    mats = rng.standard_normal((3, 4, 4)) + 1j * rng.standard_normal((3, 4, 4))
    w, v = ms.vmap(L.eigh)(Tensor(mats))
    for i, m in enumerate(mats):
        wi, vi = L.eigh(Tensor(m))
        np.testing.assert_allclose(w.asnumpy()[i], wi.asnumpy(), atol=1e-12)
        np.testing.assert_allclose(v.asnumpy()[i], vi.asnumpy(), atol=1e-12)
        np.testing.assert_allclose(w.asnumpy()[i], np.linalg.eigvalsh(_hermitian(m)), atol=1e-12)


# -- fft ----------------------------------------------------------------------------------------

def test_dct_measured():
    x = np.array([1., 2, 3, 4], np.float32)
    # 2.10 gives the orthonormal values whatever norm says (measured: None and 'ortho' agree)
    np.testing.assert_allclose(gfft.dct(Tensor(x)).asnumpy(), [5, -2.2304425, 0, -0.15851271], atol=1e-6)
    np.testing.assert_allclose(gfft.idct(Tensor(x)).asnumpy(), [4.388955, -3.0719295, 1.0719298, -0.3889552],
                               atol=1e-6)
    np.testing.assert_allclose(gfft.dct(Tensor(x), n=6).asnumpy(), scipy.fft.dct(x, n=6, norm="ortho"), atol=1e-6)
    np.testing.assert_allclose(gfft.idct(Tensor(x), n=6).asnumpy(), scipy.fft.idct(x, n=6, norm="ortho"), atol=1e-6)
    x2 = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(gfft.dctn(Tensor(x2)).asnumpy(), [[6.1237245, -2, 0], [-3.6742346, 0, 0]], atol=1e-6)
    np.testing.assert_allclose(gfft.idctn(Tensor(x2)).asnumpy(), scipy.fft.idctn(x2, norm="ortho"), atol=1e-6)
    assert gfft.dct(Tensor(np.array([1, 2, 3], np.int32))).dtype == ms.float32
    with pytest.raises(ValueError, match="Only dct type II is supported currently."):
        gfft.dct(Tensor(x), type=1)


# -- optimize -----------------------------------------------------------------------------------

def rosen(x):
    return mnp.sum(100.0 * (x[1:] - x[:-1] ** 2.0) ** 2.0 + (1 - x[:-1]) ** 2.0)


X0 = np.array([1.3, 0.7, 0.8, 1.9, 1.2])


def test_minimize_bfgs_rosenbrock():
    result = minimize(rosen, Tensor(X0), method="BFGS")
    assert result._fields == ("x", "success", "status", "fun", "jac", "hess_inv", "nfev", "njev", "nit")
    reference = scipy.optimize.minimize(scipy.optimize.rosen, X0, method="BFGS")
    np.testing.assert_allclose(result.x.asnumpy(), reference.x, atol=3e-5)   # scipy's stops at |g| < 1e-5 too
    np.testing.assert_allclose(result.x.asnumpy(), np.ones(5), atol=1e-7)
    # measured on 2.10 (float64): success, status 0, fun 1.4832e-15, 32 evaluations, nit 25 (the
    # converging step is not counted and does not update hess_inv)
    assert (result.success, result.status, result.nfev, result.njev, result.nit) == (True, 0, 32, 32, 25)
    assert isinstance(result.fun, float) and result.fun == pytest.approx(1.4831981142571891e-15, rel=1e-3)
    assert result.x.dtype == ms.float64 and result.hess_inv.shape == (5, 5)
    np.testing.assert_allclose(result.hess_inv.asnumpy()[0, :3], [7.81349718e-03, 1.29553180e-02, 2.46748486e-02],
                               rtol=1e-6)


def test_minimize_maxiter_float32_measured():
    r = minimize(rosen, Tensor(X0.astype(np.float32)), method="bfgs", options={"maxiter": 3})
    assert (r.success, r.status, r.nfev, r.njev, r.nit) == (False, 1, 8, 8, 3)               # measured
    np.testing.assert_allclose(r.x.asnumpy(), [0.898903906, 0.997103751, 1.01143587, 0.980237663, 1.29857516],
                               rtol=1e-5)
    assert r.fun == pytest.approx(15.202999114990234, rel=1e-5)


A4 = np.array([[4., 1, 0, 0.5], [1, 3, 0.2, 0], [0, 0.2, 2, 0.3], [0.5, 0, 0.3, 1]])
B4 = np.array([1., -2, 0.5, 3])


def quadratic(x):
    a, b = Tensor(A4), Tensor(B4)          # float64 runs only
    return 0.5 * mnp.sum(x * mnp.matmul(a, x)) - mnp.sum(b * x)


def digits_logistic(dtype):
    """Mean logistic loss (+ 0.01 |w|^2) of 'digit < 5' on the first 40 digits, 4x4-pooled."""
    d = np.load(Path(__file__).resolve().parent / "data" / "digits.npz")
    feats = (d["images"][:40] / 16.0).reshape(40, 4, 2, 4, 2).mean(axis=(2, 4)).reshape(40, 16)
    labels = np.where(d["labels"][:40] < 5, 1.0, -1.0)
    x, y, c = Tensor(feats.astype(dtype)), Tensor(labels.astype(dtype)), Tensor(np.array(0.01, dtype))

    def loss(w):
        return mnp.mean(mnp.log(1.0 + mnp.exp(-y * mnp.matmul(x, w)))) + mnp.sum(w * w) * c

    def reference(w):
        z = feats @ w
        return np.mean(np.logaddexp(0, -labels * z)) + 0.01 * w @ w
    return loss, reference


# (method, problem, x0, dtype) -> (success, status, nfev, nit, fun), measured on 2.10 (the float64
# runs evaluate the same points as 2.10's to ~1e-9 until they end; float32 runs drift by rounding)
MEASURED_RUNS = [
    ("LBFGS", "rosen2", np.float64, (True, 0, 56, 37, 1.3570902112602846e-14)),
    ("BFGS", "rosen2", np.float64, (True, 0, 48, 33, 1.6800235229233078e-16)),
    ("LBFGS", "quad", np.float64, (True, 0, 9, 7, -5.188147668387053)),
    ("BFGS", "quad", np.float64, (True, 0, 11, 8, -5.188147668390846)),
    ("LBFGS", "logistic", np.float32, (True, 0, 14, 12, 0.6050624847412109)),
    ("LBFGS", "logistic", np.float64, (True, 0, 14, 12, 0.6050627359455311)),
]


@pytest.mark.parametrize("method,problem,dtype,measured", MEASURED_RUNS)
def test_minimize_measured_runs(method, problem, dtype, measured):
    if problem == "rosen2":
        func, x0 = rosen, np.array([-1.2, 1.0])
        reference = scipy.optimize.minimize(scipy.optimize.rosen, x0, method="L-BFGS-B", tol=1e-12).x
    elif problem == "quad":
        func, x0, reference = quadratic, np.zeros(4), np.linalg.solve(A4, B4)
    else:
        func, ref_loss = digits_logistic(dtype)
        x0 = np.zeros(16)
        reference = scipy.optimize.minimize(ref_loss, x0, method="L-BFGS-B", tol=1e-12).x
    r = minimize(func, Tensor(x0.astype(dtype)), method=method)
    success, status, nfev, nit, fun = measured
    assert (r.success, r.status, r.nfev, r.njev, r.nit) == (success, status, nfev, nfev, nit)
    assert type(r.fun) is float and type(r.nit) is int and type(r.success) is bool
    assert r.x.dtype == r.jac.dtype == {np.float64: ms.float64, np.float32: ms.float32}[dtype]
    assert r.fun == pytest.approx(fun, rel=1e-5, abs=1e-12)
    # gtol bounds the gradient (1e-5), not x: the logistic loss's flattest curvature is ~0.02
    np.testing.assert_allclose(r.x.asnumpy(), reference, atol=2e-3 if problem == "logistic" else 1e-5)
    assert (r.hess_inv is None) == (method == "LBFGS")


# measured on 2.10 (float64 Rosenbrock from (-1.2, 1)): (success, status, nfev, nit)
HIST3 = (True, 0, 67, 42)
MAXITER5 = (False, 1, 7, 5)
MAXITER5_X = [-1.0226210662818935, 1.055467092418354]


def test_minimize_lbfgs_options_measured():
    x0 = Tensor(np.array([-1.2, 1.0]))
    r = minimize(rosen, x0, method="lbfgs", options={"history_size": 3})
    assert (r.success, r.status, r.nfev, r.nit) == HIST3
    r = minimize(rosen, x0, method="LBFGS", options={"maxiter": 5})
    assert (r.success, r.status, r.nfev, r.nit) == MAXITER5
    np.testing.assert_allclose(r.x.asnumpy(), MAXITER5_X, rtol=1e-9)
    r = minimize(rosen, Tensor(np.ones(2)), method="LBFGS")     # one line search even from the minimum
    assert (r.success, r.status, r.nfev, r.nit, r.fun) == (True, 0, 2, 0, 0.0)
    with pytest.raises(TypeError, match="unexpected keyword argument 'maxcor'"):
        minimize(rosen, x0, method="LBFGS", options={"maxcor": 3})


def test_minimize_errors_measured():
    with pytest.raises(ValueError, match="^You must specify a solver.$"):
        minimize(rosen, Tensor(X0))
    with pytest.raises(ValueError, match="^Method CG not recognized$"):
        minimize(rosen, Tensor(X0), method="CG")


def test_line_search_measured():
    r = line_search(lambda x: mnp.sum(x ** 2), Tensor(np.array([1., 2], np.float32)),
                    Tensor(np.array([-1., -1], np.float32)))
    assert r._fields == ("failed", "nit", "nfev", "ngev", "k", "a_k", "f_k", "g_k", "status")
    assert (r.failed, r.nit, r.nfev, r.ngev, r.k, r.a_k, r.f_k, r.status) == (False, 1, 2, 2, 2, 1.0, 1.0, 0)
    np.testing.assert_array_equal(r.g_k.asnumpy(), [0, 2])
    r = line_search(rosen, Tensor(X0.astype(np.float32)), Tensor(-np.ones(5, np.float32)))
    assert r.f_k == pytest.approx(138.41998291015625, rel=1e-6)


def test_linear_sum_assignment_measured():
    cost = Tensor(np.array([[4, 1, 3], [2, 0, 5], [3, 2, 2]], np.float64))
    rows, cols = linear_sum_assignment(cost, False)
    assert rows.dtype == ms.int64
    np.testing.assert_array_equal(rows.asnumpy(), [0, 1, 2])
    np.testing.assert_array_equal(cols.asnumpy(), [1, 0, 2])
    np.testing.assert_array_equal(linear_sum_assignment(cost, True)[1].asnumpy(), [0, 2, 1])

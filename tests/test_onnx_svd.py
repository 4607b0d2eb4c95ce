"""svd's ONNX rule (compiler/onnx_svd.py: one-sided Jacobi in float64) against its jax lowering
(LAPACK), every case of a table in one ONNX model and one XLA function (modes.run_table).

Singular values are compared elementwise, to the dtype's tolerance times the largest. Both
backends flip each pair of singular vectors so that u's largest entry is positive, so a
vector that is unique (up to that sign) is compared elementwise too. Vectors are unique only
together where singular values repeat, or are closer than the dtype can tell apart (LAPACK's
own float32 vectors are accurate to about eps * s_max / gap), and where they are 0 (the null
spaces, and full_matrices' extra columns, which complete them): there the spaces they span
are compared (their projectors Q Q^T), and a null space only when the columns hold all of it.
Every decomposition is also checked for what makes it one: orthonormal columns and
u diag(s) v^T = a.
"""
import numpy as np
import onnxruntime as ort
import pytest

import graphcell as ms
from graphcell import ops
from graphcell.tensor import Tensor
from tests.modes import run_table

RNG = np.random.default_rng(15)
F32, F64 = np.float32, np.float64
# (singular values and vector entries, relative to the largest singular value;
#  singular values closer than `gap` count as one space)
TOL = {F32: dict(s=2e-6, vectors=1e-4, orthonormal=1e-6, gap=1e-2),
       F64: dict(s=1e-13, vectors=1e-8, orthonormal=1e-13, gap=1e-6)}


def with_singular_values(s, m, n):
    """An m x n matrix with the singular values s (float64)."""
    u, _ = np.linalg.qr(RNG.standard_normal((m, m)))
    v, _ = np.linalg.qr(RNG.standard_normal((n, n)))
    return (u[:, :len(s)] * s) @ v[:, :len(s)].T


def kinds(m, n, dtype):
    """A batch of m x n matrices that test different things: random, ill-conditioned
    (condition 1e6 in float32, 1e12 in float64), rank 1 (repeated zeros), rank 2, zero,
    repeated singular values (all 2), rows graded from 1e3 to 1e-3."""
    k = min(m, n)
    return np.stack([
        RNG.standard_normal((m, n)),
        with_singular_values(np.logspace(0, -6 if dtype == F32 else -12, k), m, n),
        np.outer(RNG.standard_normal(m), RNG.standard_normal(n)),
        RNG.standard_normal((m, 2)) @ RNG.standard_normal((2, n)),
        np.zeros((m, n)),
        with_singular_values(np.full(k, 2.0), m, n),
        np.logspace(3, -3, m)[:, None] * RNG.standard_normal((m, n)),
    ]).astype(dtype)


# symmetric: vectors with entries of equal magnitude and opposite signs, e.g. (1, 0, -1, 0) / sqrt(2),
# whose largest entry, and so the sign, would be whichever rounding made larger
SYMMETRIC = np.array([[[3.0, 1, 0, 1], [1, 3.1, 1, 0], [0, 1, 3.2, 1], [1, 0, 1, 3.3]],
                      [[2.0, 1, 0, 0], [1, 2, 1, 0], [0, 1, 2, 1], [0, 0, 1, 2]]])


def _table():
    """name: (function, [input], full_matrices, compute_uv); one svd each."""
    cases = {}
    for dt in (F32, F64):
        name = np.dtype(dt).name
        for label, a, modes in [("tall", kinds(5, 3, dt), (False, True)), ("wide", kinds(4, 6, dt), (False, True)),
                                ("square", np.concatenate([kinds(4, 4, dt), SYMMETRIC.astype(dt)]), (True,))]:
            for full in modes:
                cases[f"{name}-{label}-{'full' if full else 'reduced'}"] = (_svd(full, True), [a], full, True)
    cases["float32-values-only"] = (_svd(False, False), [RNG.standard_normal((2, 3, 6)).astype(F32)], False, False)
    cases["float64-values-only"] = (_svd(True, False), [RNG.standard_normal((6, 2))], True, False)
    cases["float32-row"] = (_svd(True, True), [RNG.standard_normal((1, 4)).astype(F32)], True, True)
    cases["float64-column"] = (_svd(True, True), [RNG.standard_normal((5, 1))], True, True)
    return cases


def _svd(full, uv):
    return lambda t: ops.svd(t, full, uv)


CASES = _table()
# every shape, mode and dtype once; the rest under the slow marker (each case is an XLA svd
# to compile, a quarter of a second)
FAST = {"float32-tall-reduced", "float32-wide-full", "float32-values-only", "float32-row", "float64-tall-full",
        "float64-wide-reduced", "float64-square-full", "float64-column"}


@pytest.fixture(scope="module")
def outputs():
    """name -> (its onnxruntime outputs, its XLA outputs); a table's cases (FAST, or the
    others) run as one ONNX model and one XLA function, when a test first asks for one."""
    done = {}

    def of(name):
        if name not in done:
            names = sorted(FAST if name in FAST else set(CASES) - FAST)
            for key, got, want in zip(names, *(run_table(CASES, names, mode).values() for mode in ("onnx", "jit"))):
                done[key] = got, want
        return done[name]
    return of


def _spaces(s, rows, gap):
    """The column groups of a [rows, ...] singular-vector matrix that are unique only
    together: runs of its rows singular values (s, then 0s) closer than `gap`; with each,
    whether its singular values are 0 (within `gap`)."""
    sig = np.concatenate([s, np.zeros(rows - len(s))])
    groups = [[0]]
    for j in range(1, rows):
        if sig[j - 1] - sig[j] > gap:
            groups.append([])
        groups[-1].append(j)
    return [(g, sig[g[0]] <= gap) for g in groups]


def _same_vectors(got, want, s, tol):
    """got and want ([rows, columns], one matrix) span the same spaces, group by group."""
    rows, columns = want.shape
    for group, null in _spaces(s, rows, tol["gap"] * max(s.max(), np.finfo(F32).tiny)):
        if group[-1] >= columns:   # (the columns hold only part of the space: any part will do)
            continue
        if len(group) == 1 and not null:   # unique up to the sign both backends fix
            np.testing.assert_allclose(got[:, group], want[:, group], atol=tol["vectors"])
        else:
            projector = lambda q: q[:, group] @ q[:, group].T  # noqa: E731
            np.testing.assert_allclose(projector(got), projector(want), atol=tol["vectors"])


def _is_a_decomposition(a, s, u, v, tol):
    k = len(s)
    scale = max(s.max(), np.finfo(F32).tiny)
    for q in (u, v):
        np.testing.assert_allclose(q.T @ q, np.eye(q.shape[1]), atol=tol["orthonormal"] * 10)
    np.testing.assert_allclose((u[:, :k] * s) @ v[:, :k].T, a, atol=tol["s"] * scale * 10)


@pytest.mark.parametrize("name", [pytest.param(n, marks=() if n in FAST else pytest.mark.slow) for n in sorted(CASES)])
def test_onnx_svd_matches_xla(name, outputs):
    got, want = outputs(name)
    _, (a,), full, uv = CASES[name]
    tol = TOL[a.dtype.type]
    got, want = (got, want) if uv else ((got,), (want,))
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype == a.dtype
    s_max = max(want[0].max(), np.finfo(F32).tiny)
    np.testing.assert_allclose(got[0], want[0], rtol=0, atol=tol["s"] * s_max)
    np.testing.assert_allclose(got[0], np.linalg.svd(a.astype(F64), compute_uv=False), rtol=0,
                               atol=tol["s"] * s_max)
    if not uv:
        return
    for index in np.ndindex(a.shape[:-2]):
        s = want[0][index]
        (s_got, u_got, v_got), (u_want, v_want) = (o[index] for o in got), (o[index] for o in want[1:])
        _is_a_decomposition(a[index].astype(F64), s_got.astype(F64), u_got.astype(F64), v_got.astype(F64), tol)
        _same_vectors(u_got, u_want, s, tol)
        _same_vectors(v_got, v_want, s, tol)


def test_float32_vectors_have_float64_accuracy(outputs):
    """The rule computes in float64, so its float32 vectors of an ill-conditioned matrix are
    float64 LAPACK's, rounded (float32 LAPACK's own are off by about eps * s_max / gap)."""
    a = CASES["float32-tall-reduced"][1][0][1]               # condition 1e6
    _, u_got, v_got = (o[1] for o in outputs("float32-tall-reduced")[0])
    u, _, vt = np.linalg.svd(a.astype(F64), full_matrices=False)
    for got, want in ((u_got, u), (v_got, vt.T)):
        np.testing.assert_allclose(got * np.sign(np.sum(got * want, axis=0)), want, atol=1e-6)   # (up to sign)


def test_composites_of_svd_export_with_a_dynamic_batch(tmp_path):
    """pinv, the nuclear norm and a gradient through u and v, exported by graphcell.export
    with a dynamic batch and run by onnxruntime at two batch sizes, against the same function
    under XLA."""
    def composites(x):
        return ops.pinv(x), ops.norm(x, "nuc", (-2, -1)), ms.grad(lambda t: (ops.svd(t)[1] * t[..., :3]).sum())(x)
    path = ms.export(composites, Tensor(RNG.standard_normal((2, 4, 3)).astype(F32)), file_name=str(tmp_path / "svd"),
                     dynamic_axes={"x": [0]}, input_names=["x"])
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    xla = ms.jit(composites)
    for batch in (1, 3):
        x = RNG.standard_normal((batch, 4, 3)).astype(F32)
        got = session.run(None, {"x": x})
        want = [w.asnumpy() for w in xla(Tensor(x))]
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)

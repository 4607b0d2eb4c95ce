"""eig's ONNX rule (compiler/onnx_eig.py: Hessenberg reduction and the shifted complex QR algorithm
in float64) against its jax lowering (LAPACK's geev) and numpy, a table of matrix families in one
ONNX model and one XLA function per dtype (modes.run_table).

What is well defined is compared: eigenvalues as multisets against numpy (each matched to its
nearest), eigenvectors through A v = w v and unit norm. Against XLA, elementwise, where the order
and the vectors are unique: eigenvalues of matrices whose magnitudes are apart (a conjugate pair
counts as apart: both put +imag first), and the vectors of random matrices, which equal LAPACK's
up to a sign for a real input (LAPACK makes the largest entry real, this rule positive too).
"""
import numpy as np
import pytest

import graphcell as gc
from graphcell import ops
from graphcell.compiler.export import to_onnx
from graphcell.ops.complex_ops import complex_from
from tests.modes import run_table

RNG = np.random.default_rng(17)
SIZES = [1, 2, 3, 5, 8]
# (values and residuals, relative to max|A|; vectors against LAPACK's)
TOL = {np.float64: dict(values=1e-12, residual=1e-13, vectors=1e-9),
       np.float32: dict(values=1e-5, residual=1e-5, vectors=2e-3)}


def _orthogonal(n):
    return np.linalg.qr(RNG.standard_normal((n, n)))[0]


def real_family(n):
    """[7, n, n]: random (conjugate pairs) x2, symmetric, upper triangular, diagonal with repeated
    eigenvalues, a rotation (a pure-imaginary-phase pair, the rest 1), a Jordan block in a random basis."""
    r = RNG.standard_normal((2, n, n))
    s = RNG.standard_normal((n, n))
    rotation = np.eye(n)
    if n >= 2:
        rotation[:2, :2] = [[np.cos(0.7), -np.sin(0.7)], [np.sin(0.7), np.cos(0.7)]]
    q = _orthogonal(n)
    jordan = q @ np.eye(n, k=1) @ q.T
    return np.stack([*r, s + s.T, np.triu(RNG.standard_normal((n, n))), np.diag(np.resize([2.0, -1.0, 2.0], n)),
                     rotation, jordan])


KINDS = ["random", "random", "symmetric", "triangular", "diagonal_repeated", "rotation", "jordan"]


def eig_parts(a):
    w, v = ops.eig(a)
    return ops.view_as_real(w), ops.view_as_real(v)


def complex_eig_parts(re, im):
    return eig_parts(complex_from(re, im))


def _cases(dtype):
    cases = {}
    for n in SIZES:
        cases[f"real{n}"] = (eig_parts, [real_family(n).astype(dtype)])
        re, im = RNG.standard_normal((2, 2, 2, n, n)).astype(dtype)   # (two batch axes)
        cases[f"complex{n}"] = (complex_eig_parts, [re, im])
    return cases


def _complex(parts):
    return parts[..., 0] + 1j * parts[..., 1]


def _matched_error(w, want):
    """max |w_i - want_pi(i)| over the greedy nearest matching of the two multisets."""
    left, worst = list(want), 0.0
    for x in w:
        j = int(np.argmin(np.abs(np.asarray(left) - x)))
        worst = max(worst, abs(left.pop(j) - x))
    return worst


def _apart(w, rel):
    """Magnitudes pairwise apart (or a conjugate pair, equal): the order is unique."""
    m = np.abs(w)
    for i in range(len(w)):
        for j in range(i + 1, len(w)):
            pair = abs(w[i] - np.conj(w[j])) <= rel * max(m.max(), 1) and abs(w[i].imag) > rel
            if abs(m[i] - m[j]) <= rel * max(m.max(), 1e-30) and not pair:
                return False
    return True


def _check(a, got, want, kinds, dtype):
    tol = TOL[dtype]
    eps = np.finfo(dtype).eps
    w, v = _complex(got[0]).reshape(-1, a.shape[-1]), _complex(got[1]).reshape(-1, *a.shape[-2:])
    xw, xv = _complex(want[0]).reshape(w.shape), _complex(want[1]).reshape(v.shape)
    a = a.reshape(v.shape).astype(np.complex128)
    n = a.shape[-1]
    compared = 0
    for i, kind in enumerate(kinds):
        scale = max(np.abs(a[i]).max(), 1e-300)
        exact = np.linalg.eigvals(a[i])
        if kind == "jordan":   # eigenvalues eps^(1/n)-conditioned (for numpy as here); no vectors
            assert _matched_error(w[i], exact) <= 3 * (eps ** (1 / n)) * scale, (kind, n)
            continue
        assert _matched_error(w[i], exact) <= tol["values"] * scale, (kind, n, w[i], exact)
        residual = np.abs(a[i] @ v[i] - v[i] * w[i]).max() / scale
        assert residual <= tol["residual"], (kind, n, residual)
        np.testing.assert_allclose(np.linalg.norm(v[i], axis=0), 1, atol=10 * eps)
        if kind in ("random", "symmetric", "triangular", "complex") and _apart(exact, 1e-3):
            np.testing.assert_allclose(w[i], xw[i], atol=tol["values"] * scale * 10, err_msg=f"{kind} {n}")
            compared += 1
            if kind in ("random", "complex"):
                sign = np.where(np.abs(v[i] - xv[i]).max(0) <= np.abs(v[i] + xv[i]).max(0), 1, -1)
                assert kind == "random" or (sign == 1).all()   # a complex input's phase is LAPACK's
                np.testing.assert_allclose(v[i], xv[i] * sign, atol=tol["vectors"], err_msg=f"{kind} {n}")
    return compared


@pytest.mark.slow   # (7 s a dtype: 10 eig nodes of ~2,000 ONNX nodes, XLA's 10 geev; tests/test_onnx_prims.py
#                     has two cheap records)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_eig_in_onnxruntime_matches_xla_and_numpy(dtype):
    table = _cases(dtype)
    got, want = run_table(table, list(table), "onnx"), run_table(table, list(table), "jit")
    compared = 0
    for name, (_, arrays) in table.items():
        assert got[name][0].dtype == want[name][0].dtype == dtype and got[name][1].shape == want[name][1].shape
        if name.startswith("real"):
            compared += _check(arrays[0], got[name], want[name], KINDS, dtype)
        else:
            a = arrays[0] + 1j * arrays[1]
            compared += _check(a, got[name], want[name], ["complex"] * (a.size // a.shape[-1] ** 2), dtype)
    assert compared >= 30   # the order and vectors were compared against XLA on most matrices


class _Eigvals(gc.nn.Cell):
    def construct(self, x):
        return ops.abs(ops.eigvals(x)).real()


def test_eigvals_export_with_a_dynamic_batch():
    import onnxruntime as ort
    a = RNG.standard_normal((3, 4, 4)).astype(np.float32)
    model = to_onnx(_Eigvals(), gc.Tensor(a)).model
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for batch in (a, RNG.standard_normal((5, 4, 4)).astype(np.float32)):
        got = session.run(None, {session.get_inputs()[0].name: batch})[0]
        want = np.sort(np.abs(np.linalg.eigvals(batch.astype(np.float64))), -1)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_eig_gradient_runs_in_onnxruntime_as_in_xla():
    # eigvals' vjp multiplies complex matrices (V^-T diag(g) V^T): onnx_complex's dot_general
    grad = gc.grad(lambda x: ops.abs(ops.eigvals(x)).real().sum())
    a = gc.Tensor(RNG.standard_normal((2, 4, 4)))
    got = gc.jit(grad, backend="onnx")(a).asnumpy()
    np.testing.assert_allclose(got, gc.jit(grad)(a).asnumpy(), rtol=1e-9, atol=1e-10)

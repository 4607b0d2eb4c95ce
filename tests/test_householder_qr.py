"""ops.geqrf, ops.orgqr and ops.ormqr (ops/householder_ops.py): values measured on MindSpore
2.10, LAPACK's (scipy.linalg.lapack ?geqrf/?orgqr/?ormqr) as an independent reference, eager,
XLA and onnxruntime on one table of cases (one compilation per backend), vmap against a loop,
and 2.10's errors. 2.10 has no CPU kernel for ormqr: LAPACK's dormqr is its reference."""
import numpy as np
import pytest
import scipy.linalg.lapack as lapack

import graphcell as ms
from graphcell import Tensor, ops
from tests.modes import run_table

RNG = np.random.default_rng(21)
F32, F64 = np.float32, np.float64

TALL = np.array([[1., 2.], [3., -4.], [5., 6.]])
SQUARE = np.array([[2., -1., 0.5], [1., 3., -2.], [-0.5, 1., 4.]])
WIDE = np.array([[1., 2., 3., 4.], [-2., 0.5, 1., -1.]])
BATCH = np.array([[[1., 2.], [3., 4.]], [[-1., 0.], [2., 5.]]])

# ops.geqrf on MindSpore 2.10 (CPU), measured: (packed, tau)
MS_GEQRF = {
    ("tall", F64): ([[-5.916079783099616, -3.3806170189140667], [0.43377174556761317, 6.676183683170241],
                     [0.7229529092793553, -0.1621863203661822]], [1.1690308509457032, 1.948739569957043]),
    ("square", F64): ([[-2.29128784747792, -0.21821789023599258, 1.3093073414159544],
                       [0.23303027798233603, -3.3094381626464866, 0.66908206331766],
                       [-0.11651513899116801, 0.1400129643690159, 4.253004053402826]],
                      [1.8728715609439694, 1.961546566506988, 0.]),
    ("wide", F64): ([[-2.23606797749979, -0.44721359549995787, -0.44721359549995787, -2.6832815729997472],
                     [-0.6180339887498948, 2.0124611797498106, 3.130495168499705, 3.1304951684997047]],
                    [1.4472135954999579, 0.]),
    ("batch", F64): ([[[-3.1622776601683795, -4.427188724235731], [0.7207592200561264, -0.6324555320336751]],
                      [[2.23606797749979, 4.472135954999579], [-0.6180339887498948, 2.2360679774997902]]],
                     [[1.316227766016838, 0.], [1.4472135954999579, 0.]]),
    ("tall", F32): ([[-5.9160795, -3.380618], [0.43377176, 6.6761837], [0.72295296, -0.16218625]],
                    [1.1690309, 1.9487395]),
    ("square", F32): ([[-2.291288, -0.21821791, 1.3093073], [0.23303027, -3.3094382, 0.6690819],
                       [-0.11651514, 0.14001296, 4.253004]], [1.8728715, 1.9615465, 0.]),
    ("wide", F32): ([[-2.236068, -0.44721365, -0.44721365, -2.683281], [-0.618034, 2.0124612, 3.1304953, 3.130495]],
                    [1.4472135, 0.]),
    ("batch", F32): ([[[-3.1622777, -4.4271884], [0.7207592, -0.63245535]],
                      [[2.236068, 4.4721355], [-0.618034, 2.236068]]], [[1.3162278, 0.], [1.4472135, 0.]]),
}
MATRICES = {"tall": TALL, "square": SQUARE, "wide": WIDE, "batch": BATCH}
TALL_TAU = np.array([1.1690308509457032, 1.948739569957043])
TALL_PACKED = np.array(MS_GEQRF[("tall", F64)][0])
# ops.orgqr on MindSpore 2.10, measured: (x, tau) -> Q
MS_ORGQR = {
    "tall": (TALL_PACKED, TALL_TAU, [[-0.16903085094570325, 0.21398024625545642],
                                     [-0.5070925528371099, -0.8559209850218258],
                                     [-0.8451542547285166, 0.4707565417620042]]),
    "tall-one-reflector": (TALL_PACKED, TALL_TAU[:1], [[-0.16903085094570325, -0.5070925528371099],
                                                       [-0.5070925528371099, 0.7800375781915098],
                                                       [-0.8451542547285166, -0.36660403634748384]]),
    "batch": (np.stack([TALL, -TALL]), np.array([[1.2, 1.5], [0.5, 0.]]),
              [[[-0.2, 55.8], [-3.6, 166.9], [-6.0, 270.0]], [[0.5, 1.5], [1.5, -3.5], [2.5, -7.5]]]),
}


def normal(*shape, dtype=F64):
    return RNG.standard_normal(shape).astype(dtype)


def lapack_fn(name, dtype):
    return getattr(lapack, ("d" if dtype == F64 else "s") + name)


# -- one table: every case under XLA and in one onnxruntime session -------------------------
# (an XLA LAPACK call costs ~0.1 s to compile: cases of one shape share a batch)

# a permutation matrix: exact zero pivots (see test_zero_pivot_takes_lapacks_sign)
PERMUTATION = np.array([[0., 1., 0.], [0., 0., 1.], [1., 0., 0.]])


def stacked(*matrices):
    return np.stack([np.broadcast_to(m, matrices[0].shape) for m in matrices])


def padded(m, shape=(3, 4)):
    """m in the top-left corner of zeros: geqrf's reflections of m's columns see only zeros
    below m's rows, and columns to its right come later, so that corner of the result, and
    tau's first min(m, n), are geqrf of m exactly (LAPACK's, and MindSpore's)."""
    out = np.zeros(m.shape[:-2] + shape, m.dtype)
    out[..., :m.shape[-2], :m.shape[-1]] = m
    return out


# one batch per dtype: MindSpore's cases padded to [3, 4], a permutation (exact zero pivots:
# test_zero_pivot_takes_lapacks_sign) and random matrices
CORNERS = {"tall": (3, 2), "square": (3, 3), "wide": (2, 4), "batch": (2, 2)}
GEQRF_INPUTS = {f"f{np.dtype(dt).itemsize * 8}": np.concatenate(
    [padded(TALL)[None], padded(SQUARE)[None], padded(WIDE)[None], padded(BATCH), padded(PERMUTATION)[None],
     normal(2, 3, 4)]).astype(dt) for dt in (F32, F64)}
MS_AT = {"tall": 0, "square": 1, "wide": 2, "batch": slice(3, 5)}     # where each is in the batch
CASES = {f"geqrf-{name}": (ops.geqrf, [x]) for name, x in GEQRF_INPUTS.items()}
CASES["geqrf-r-tall-f64"] = (ops.geqrf, [normal(5, 3)])
# one batch per dtype: MindSpore's tall and batch cases, and the tall one with tau [t0, 0] (its
# second reflector the identity), measured as tau[:1]; a square one with fewer factors than columns
ORGQR_INPUTS = {
    f"f{np.dtype(dt).itemsize * 8}": (stacked(TALL_PACKED, *MS_ORGQR["batch"][0], TALL_PACKED).astype(dt),
                                      np.r_[[TALL_TAU], MS_ORGQR["batch"][1], [[TALL_TAU[0], 0]]].astype(dt))
    for dt in (F32, F64)}
ORGQR_INPUTS["square-f64"] = (normal(2, 4, 4), normal(2, 3))
CASES.update({f"orgqr-{name}": (ops.orgqr, list(args)) for name, args in ORGQR_INPUTS.items()})
# ormqr's four forms over one Q (the four householder_products are one after CSE)
CASES["ormqr"] = (lambda x, t, cl, cr: tuple(ops.ormqr(x, t, cl if left else cr, left, transpose)
                                             for left in (True, False) for transpose in (False, True)),
                  [normal(5, 3), normal(3), normal(5, 4), normal(4, 5)])
CASES["ormqr-wide-batch-f32"] = (lambda x, t, c: ops.ormqr(x, t, c, False, True),
                                 [normal(2, 3, 4, dtype=F32), normal(2, 2, dtype=F32), normal(2, 2, 3, dtype=F32)])


def _vmapped(x, tau, c):
    def f(x, tau, c):
        packed, t = ops.geqrf(x)
        return packed, t, ops.orgqr(x, tau), ops.ormqr(x, tau, c, True, True)
    return ops.vmap(f, in_axes=(0, 0, 2))(x, tau, c)


CASES["vmap"] = (_vmapped, [normal(3, 4, 3), normal(3, 2), normal(4, 2, 3)])


@pytest.fixture(scope="module")
def table():
    return {mode: run_table(CASES, CASES, mode) for mode in ("xla", "onnx")}


def assert_close(got, want, dtype, err_msg=""):
    tol = 1e-13 if dtype == F64 else 3e-6
    assert got.dtype == dtype, err_msg
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=err_msg)


def test_values_measured_on_mindspore(table):
    for mode, out in table.items():
        for (name, dt), (packed, tau) in MS_GEQRF.items():
            got_packed, got_tau = out[f"geqrf-f{np.dtype(dt).itemsize * 8}"]
            m, n = CORNERS[name]
            assert_close(got_packed[MS_AT[name], ..., :m, :n], np.array(packed, dt), dt, f"{mode} geqrf {name} {dt}")
            assert_close(got_tau[MS_AT[name], ..., :min(m, n)], np.array(tau, dt), dt, f"{mode} tau {name} {dt}")
        for dt in (F32, F64):
            got = out[f"orgqr-f{np.dtype(dt).itemsize * 8}"]
            assert_close(got[0], np.array(MS_ORGQR["tall"][2], dt), dt, f"{mode} orgqr tall {dt}")
            assert_close(got[1:3], np.array(MS_ORGQR["batch"][2], dt), dt, f"{mode} orgqr batch {dt}")
            assert_close(got[3], np.array(MS_ORGQR["tall-one-reflector"][2], dt), dt, f"{mode} orgqr tau[:1] {dt}")


def _lapack_geqrf(x):
    fn = lapack_fn("geqrf", x.dtype)
    pairs = [fn(m)[:2] for m in x.reshape(-1, *x.shape[-2:])]
    return (np.stack([p for p, _ in pairs]).reshape(x.shape),
            np.stack([t for _, t in pairs]).reshape(*x.shape[:-2], min(x.shape[-2:])))


def _lapack_orgqr(x, tau):
    return np.stack([lapack_fn("orgqr", x.dtype)(m, t)[0]
                     for m, t in zip(x.reshape(-1, *x.shape[-2:]), tau.reshape(-1, tau.shape[-1]))]).reshape(x.shape)


def _lapack_ormqr(x, tau, c, left, transpose):
    x = x[:, :len(tau)]   # (dormqr takes as many columns as factors)
    return lapack_fn("ormqr", x.dtype)("L" if left else "R", "T" if transpose else "N", x, tau, c, lwork=64)[0]


def test_values_against_lapack(table):
    for mode, out in table.items():
        for name, (x,) in ((n, CASES[f"geqrf-{n}"][1]) for n in [*GEQRF_INPUTS, "r-tall-f64"]):
            packed, tau = _lapack_geqrf(x)
            assert_close(out[f"geqrf-{name}"][0], packed, x.dtype, f"{mode} {name}")
            assert_close(out[f"geqrf-{name}"][1], tau, x.dtype, f"{mode} {name}")
        for name, (x, tau) in ORGQR_INPUTS.items():
            assert_close(out[f"orgqr-{name}"], _lapack_orgqr(x, tau), x.dtype, f"{mode} orgqr {name}")
        x, tau, cl, cr = CASES["ormqr"][1]
        forms = [(left, transpose) for left in (True, False) for transpose in (False, True)]
        for got, (left, transpose) in zip(out["ormqr"], forms):
            want = _lapack_ormqr(x, tau, cl if left else cr, left, transpose)
            assert_close(got, want, F64, f"{mode} {left} {transpose}")
        # wide reflectors [3, 4] with 2 of 3 possible factors: C Q^T against the explicit Q
        x, tau, c = CASES["ormqr-wide-batch-f32"][1]
        for i in range(2):
            h = [np.eye(3) - t * np.outer(v, v) for t, v in
                 zip(tau[i], (np.r_[np.zeros(j), 1.0, x[i, j + 1:, j]] for j in range(2)))]
            assert_close(out["ormqr-wide-batch-f32"][i], (c[i] @ (h[0] @ h[1]).T).astype(F32), F32, mode)


def test_vmap_matches_a_loop(table):
    x, tau, c = CASES["vmap"][1]
    for mode, out in table.items():
        for i in range(3):
            packed, t = _lapack_geqrf(x[i])
            want = (packed, t, _lapack_orgqr(x[i], tau[i]), _lapack_ormqr(x[i], tau[i], c[..., i], True, True))
            for got, w in zip(out["vmap"], want):
                assert_close(got[i], w, F64, mode)


def test_zero_pivot_takes_lapacks_sign(table):
    """A departure: MindSpore 2.10's CPU geqrf reflects a column whose pivot is exactly +0.0
    to +||x|| (measured on this permutation: packed [[1, 0, 0], [-0, 1, 0], [-1, -1, 1]]);
    LAPACK's dgeqrf, and so XLA and the ONNX rule, to -||x||. Q R is the matrix either way."""
    for mode, out in table.items():
        packed, tau = (o[5] for o in out["geqrf-f64"])
        np.testing.assert_array_equal(packed[:, :3], [[-1, 0, 0], [0, -1, 0], [1, -1, 1]], err_msg=mode)
        np.testing.assert_array_equal(tau, [1, 1, 0], err_msg=mode)


def test_float16_geqrf_is_computed_in_float32():
    packed, tau = ops.geqrf(Tensor(TALL.astype(np.float16)))
    assert packed.dtype == ms.float16 and tau.dtype == ms.float16
    # measured on 2.10: [[-5.918, -3.38], [0.4338, 6.676], [0.723, -0.1622]], tau [1.169, 1.949]
    np.testing.assert_allclose(packed.asnumpy(), [[-5.918, -3.38], [0.4338, 6.676], [0.723, -0.1622]], rtol=2e-3)
    np.testing.assert_allclose(tau.asnumpy(), [1.169, 1.949], rtol=1e-3)


def test_eager_methods_and_operator_classes_match_xla(table):
    xla = table["xla"]
    x = Tensor(TALL)
    packed, tau = x.geqrf()
    assert_close(packed.asnumpy(), xla["geqrf-f64"][0][0, :, :2], F64)
    assert_close(tau.asnumpy(), xla["geqrf-f64"][1][0, :2], F64)
    np.testing.assert_array_equal(ops.Geqrf()(x)[0].asnumpy(), packed.asnumpy())
    q = packed.orgqr(tau).asnumpy()
    assert_close(q, xla["orgqr-f64"][0], F64)
    np.testing.assert_array_equal(ops.Orgqr()(packed, tau).asnumpy(), q)
    c = Tensor(normal(3, 2))
    want = _lapack_ormqr(TALL_PACKED, TALL_TAU, c.asnumpy(), True, True)
    assert_close(packed.ormqr(tau, c, transpose=True).asnumpy(), want, F64)
    assert_close(ops.Ormqr(transpose=True)(packed, tau, c).asnumpy(), want, F64)
    assert ops.Ormqr(left=False).left is False


def test_no_gradient_as_in_mindspore():
    # measured on 2.10: RuntimeError "Illegal primitive Geqrf's bprop not defined" (Orgqr's alike)
    x = Tensor(TALL)
    with pytest.raises(RuntimeError, match="Illegal primitive Geqrf's bprop not defined"):
        ops.grad(lambda a: ops.geqrf(a)[0].sum())(x)
    with pytest.raises(RuntimeError, match="Illegal primitive Orgqr's bprop not defined"):
        ops.grad(lambda a: ops.orgqr(a, Tensor(TALL_TAU)).sum())(x)


def t(shape, dtype=F64):
    return Tensor(np.ones(shape, dtype))


# 2.10's messages, measured
@pytest.mark.parametrize("call,error,message", [
    (lambda: ops.geqrf(TALL), TypeError, r"Failed calling Geqrf"),
    (lambda: ops.geqrf(t((3, 2), np.int32)), TypeError, r"Geqrf.*but got Tensor\[Int32\]"),
    (lambda: ops.geqrf(t(3)), ValueError, r"For primitive\[Geqrf\], the rank of a must be greater than or equal "
                                          r"to 2, but got 1"),
    (lambda: ops.orgqr(t((3, 2), np.int32), t(2, np.int32)), TypeError,
     r"For primitive\[Orgqr\], the input argument\[tau\] must be a type of .*but got Tensor\[Int32\]"),
    (lambda: ops.orgqr(t((3, 2), F32), t(2)), TypeError, r"For primitive\[Orgqr\], the input type must be same"),
    (lambda: ops.orgqr(t((3, 2), np.float16), t(2, np.float16)), TypeError, r"but got Tensor\[Float16\]"),
    (lambda: ops.orgqr(t(3), t(1)), ValueError, r"For Orgqr, the rank of x must be greater than or equal to 2"),
    (lambda: ops.orgqr(t((2, 3)), t(2)), ValueError, r"For Orgqr, x.shape\[-2\] must be greater than or equal to "
                                                     r"x.shape\[-1\], while x.shape\[-2\] is 2 and x.shape\[-1\] is 3"),
    (lambda: ops.orgqr(t((3, 2)), t(3)), ValueError, r"x.shape\[-1\] must be greater than or equal to tau.shape\[-1\]"),
    (lambda: ops.orgqr(t((3, 2)), t((1, 2))), ValueError, r"tau should have one dimension less than x"),
    (lambda: ops.orgqr(t((2, 3, 2)), t((3, 2))), ValueError, r"tau.shape\[:-1\] must be equal to x.shape\[:-2\]"),
    (lambda: ops.ormqr(t((3, 2)), t(2), t((3, 4)), left=1), TypeError,
     r"For 'Ormqr', the type of 'left' should be 'bool', but got type 'int'"),
    (lambda: ops.ormqr(t((3, 2), np.int32), t(2, np.int32), t((3, 4), np.int32)), TypeError,
     r"For primitive\[Ormqr\], the input argument\[other\] must be a type of"),
    (lambda: ops.ormqr(t((3, 2)), t(2), t((3, 4), F32)), TypeError, r"For primitive\[Ormqr\], the input type must "
                                                                    r"be same"),
    (lambda: ops.ormqr(t(3), t(2), t((3, 4))), ValueError, r"the x_rank must be greater than or equal to 2"),
    (lambda: ops.ormqr(t((3, 2)), t((1, 2)), t((3, 4))), ValueError, r"tau should have one dimension less than x"),
    (lambda: ops.ormqr(t((3, 2)), t(2), t((1, 3, 4))), ValueError, r"other should have same dimension with x"),
    (lambda: ops.ormqr(t((2, 3, 2)), t((3, 2)), t((2, 3, 4))), ValueError, r"tau.shape\[:-1\] must be equal"),
    (lambda: ops.ormqr(t((2, 3, 2)), t((2, 2)), t((5, 3, 4))), ValueError, r"other.shape\[:-2\] must be equal to "
                                                                          r"x.shape\[:-2\]"),
    (lambda: ops.ormqr(t((3, 2)), t(2), t((2, 4))), ValueError,
     r"For Ormqr, other.shape\[-2\] must be equal to x.shape\[-2\], while x.shape\[-2\] is 3 and "
     r"other.shape\[-2\] is 2"),
    (lambda: ops.ormqr(t((3, 2)), t(2), t((3, 4)), left=False), ValueError,
     r"For Ormqr, other.shape\[-1\] must be equal to x.shape\[-2\], while x.shape\[-2\] is 3 and "
     r"other.shape\[-1\] is 4"),
    (lambda: ops.ormqr(t((3, 2)), t(3), t((3, 4))), ValueError, r"tau.shape\[-1\] must be less than or equal"),
])
def test_bad_input_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


class QrFactors(ms.nn.Cell):
    def construct(self, x, c):
        packed, tau = ops.geqrf(x)
        return packed, tau, ops.orgqr(packed, tau), ops.ormqr(packed, tau, c, False, True)


def test_export_with_a_dynamic_batch(tmp_path):
    import onnxruntime as ort
    path = str(tmp_path / "qr_factors.onnx")
    ms.export(QrFactors(), Tensor(normal(2, 4, 3)), Tensor(normal(2, 5, 4)), file_name=path)
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    assert [i.shape[0] for i in sess.get_inputs()] == ["batch", "batch"]
    x, c = normal(3, 4, 3), normal(3, 5, 4)
    got = sess.run(None, dict(zip([i.name for i in sess.get_inputs()], (x, c))))
    for i in range(3):
        packed, tau = _lapack_geqrf(x[i])
        want = (packed, tau, _lapack_orgqr(packed, tau), _lapack_ormqr(packed, tau, c[i], False, True))
        for g, w in zip(got, want):
            assert_close(g[i], w, F64)

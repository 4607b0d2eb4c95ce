"""CombinedNonMaxSuppression, ScaleAndTranslate, ExtractGlimpse and MatrixLogarithm against values
measured on MindSpore 2.10 (CPU) and scipy.linalg.logm."""
import numpy as np
import pytest
import scipy.linalg

import graphcell as ms
import graphcell.ops as ops
from graphcell import Tensor
from tests.modes import as_numpy, run_table

# -- CombinedNonMaxSuppression ------------------------------------------------------------------------
BOXES = np.array([[[[200, 100, 150, 100]], [[220, 120, 150, 100]], [[190, 110, 150, 100]],
                   [[210, 112, 150, 100]]]], np.float32)
SCORES = np.array([[[0.2, 0.7, 0.1], [0.1, 0.8, 0.1], [0.3, 0.6, 0.1], [0.05, 0.9, 0.05]]], np.float32)

# (kwargs, max_per_class, max_total, iou, score threshold) -> measured (length, scores, classes, valid,
# first boxes row)
CNMS_CASES = [
    ({}, 4, 50, 0.5, 0.0, 50, [0.9, 0.7, 0.3, 0.2, 0.1, 0.1, 0.1, 0.1], [1, 1, 0, 0, 0, 2, 2, 2], 8, [1, 1, 1, 1]),
    ({"pad_per_class": True}, 4, 50, 0.5, 0.0, 12, [0.9, 0.7, 0.3, 0.2, 0.1, 0.1, 0.1, 0.1], [1, 1, 0, 0, 0, 2, 2, 2],
     8, [1, 1, 1, 1]),
    ({"clip_boxes": False}, 4, 50, 0.5, 0.0, 50, [0.9, 0.7, 0.3, 0.2, 0.1, 0.1, 0.1, 0.1], [1, 1, 0, 0, 0, 2, 2, 2],
     8, [210, 112, 150, 100]),
    ({}, 4, 50, 0.5, 0.2, 50, [0.9, 0.7, 0.3], [1, 1, 0], 3, [1, 1, 1, 1]),        # score == threshold dropped
    ({}, 4, 6, 0.5, 0.1, 6, [0.9, 0.7, 0.3, 0.2], [1, 1, 0, 0], 4, [1, 1, 1, 1]),
    ({}, 4, 2, 0.5, 0.0, 2, [0.9, 0.7], [1, 1], 2, [1, 1, 1, 1]),
]


def test_combined_nms_measured():
    # the whole table in one jitted function (eager NMS runs its loop step by step: slow)
    cases = {}
    for i, (kw, per_class, total, iou, thr, *_) in enumerate(CNMS_CASES):
        op = ops.CombinedNonMaxSuppression(**kw)
        cases[i] = (lambda b, s, op=op, m=per_class, t=total, u=iou, r=thr: op(
            b, s, Tensor(np.int32(m)), Tensor(np.int32(t)), Tensor(np.float32(u)), Tensor(np.float32(r))),
            [BOXES, SCORES])
    got = run_table(cases, cases, "jit")
    for i, (_, _, _, _, _, length, scores, classes, valid, first) in enumerate(CNMS_CASES):
        b, s, c, v = got[i]
        assert b.shape == (1, length, 4) and s.shape == (1, length) and v.dtype == np.int32
        want = np.zeros(length, np.float32)
        want[:len(scores)] = scores
        np.testing.assert_allclose(s[0], want, rtol=1e-6)
        want[:] = 0
        want[:len(classes)] = classes
        np.testing.assert_array_equal(c[0], want)
        assert v.tolist() == [valid]
        np.testing.assert_array_equal(b[0, 0], first)
        assert not b[0, valid:].any()


def test_combined_nms_per_class_boxes_and_threshold_error():
    rng = np.random.RandomState(1)
    boxes = rng.rand(1, 6, 3, 4).astype(np.float32) * 1.4 - 0.2
    scores = rng.rand(1, 6, 3).astype(np.float32)
    b, s, c, v = ms.jit(lambda x, y: ops.CombinedNonMaxSuppression()(
        x, y, Tensor(np.int32(3)), Tensor(np.int32(4)), Tensor(np.float32(0.5)), Tensor(np.float32(0.1))))(
        Tensor(boxes), Tensor(scores))
    # independent reference: TensorFlow's algorithm in plain numpy
    def iou(p, q):
        (a0, a1), (b0, b1) = np.sort(p.reshape(2, 2), 0), np.sort(q.reshape(2, 2), 0)
        ar, br = np.prod(a1 - a0), np.prod(b1 - b0)
        if ar <= 0 or br <= 0:
            return 0.0
        inter = np.prod(np.maximum(np.minimum(a1, b1) - np.maximum(a0, b0), 0))
        return inter / (ar + br - inter)
    picked = []
    for k in range(3):
        kept = []
        for i in sorted(range(6), key=lambda i: -scores[0, i, k]):
            clear = all(iou(boxes[0, i, k], boxes[0, j, k]) <= 0.5 for j in kept)
            if scores[0, i, k] > 0.1 and len(kept) < 3 and clear:
                kept.append(i)
        picked += [(scores[0, i, k], k, i) for i in kept]
    picked = sorted(picked, key=lambda t: -t[0])[:4]
    np.testing.assert_allclose(s.asnumpy()[0], [p[0] for p in picked])
    np.testing.assert_array_equal(c.asnumpy()[0], [p[1] for p in picked])
    np.testing.assert_allclose(b.asnumpy()[0], np.clip([boxes[0, i, k] for _, k, i in picked], 0, 1))
    assert v.asnumpy().tolist() == [4]
    with pytest.raises(ValueError, match=r"For CombinedNonMaxSuppression, iou_threshold must be in \[0,1\], but "
                                         r"got 1.5."):
        ops.CombinedNonMaxSuppression()(Tensor(BOXES), Tensor(SCORES), Tensor(np.int32(4)), Tensor(np.int32(5)),
                                        Tensor(np.float32(1.5)), Tensor(np.float32(0.0)))


# -- ScaleAndTranslate --------------------------------------------------------------------------------
IMG = (np.arange(60, dtype=np.float32).reshape(1, 5, 6, 2) * 37 % 11).astype(np.float32)
SAT_CASES = [   # kernel, antialias, size, scale, translation, measured out[0, :3, :4, channel]
    ("lanczos3", True, (3, 4), (0.6, 0.7), (0.1, -0.2), 0,
     [[3.17202, 6.10462, 5.2534, 5.54895], [5.02154, 4.98192, 6.54625, 3.4071], [4.36901, 7.55533, 3.82652, 3.8035]]),
    ("keyscubic", False, (3, 4), (0.6, 0.7), (0.1, -0.2), 0,
     [[3.68284, 5.71381, 4.49289, 6.74154], [6.28976, 2.4899, 9.64432, 3.71994], [3.86851, 8.35052, 3.34794, 4.03855]]),
    # row 2 samples the input at 4.0 in float32 (3.99999984 in float64): 2.10 leaves out the pixel 1.5 away
    ("gaussian", False, (3, 4), (0.6, 0.7), (0.1, -0.2), 0,
     [[3.68709, 5.6955, 4.91263, 6.26513], [5.63087, 4.12521, 7.67682, 4.0043], [4.27042, 7.3712, 4.04353, 3.90304]]),
    ("mitchellcubic", True, (8, 9), (1.7, 1.5), (0.3, 0.5), 1,
     [[3.98137, 3.20925, 1.23956, 5.10679], [5.08281, 4.30401, 2.25475, 4.57683], [7.48848, 6.7457, 4.65549, 3.43975]]),
]


@pytest.mark.parametrize("kernel,antialias,size,scale,shift,channel,want", SAT_CASES)
def test_scale_and_translate_measured(kernel, antialias, size, scale, shift, channel, want):
    out = ops.ScaleAndTranslate(kernel, antialias)(Tensor(IMG), Tensor(np.array(size, np.int32)),
                                                   Tensor(np.array(scale, np.float32)),
                                                   Tensor(np.array(shift, np.float32)))
    assert out.shape == (1, *size, 2) and str(out.dtype) == "Float32"
    np.testing.assert_allclose(out.asnumpy()[0, :3, :4, channel], want, atol=2e-5)


def test_scale_and_translate_errors():
    with pytest.raises(ValueError, match="'kernel_type' must be str and must be in '\\['lanczos1'"):
        ops.ScaleAndTranslate(kernel_type="cubic")


# -- ExtractGlimpse -----------------------------------------------------------------------------------
GX = (np.arange(120, dtype=np.float32) * 7 % 13).reshape(2, 5, 6, 2)
EG_CASES = [   # centered, normalized, offsets, measured out[..., 0]
    (True, True, [[0.1, -0.2], [0.5, 0.6]],
     [[[6, 7, 8, 9], [12, 0, 1, 2], [5, 6, 7, 8]], [[5, 6, 7, 8], [11, 12, 0, 1], [4, 5, 6, 7]]]),
    (True, False, [[1.0, 2.0], [2.5, 0.7]],
     [[[8, 9, 10, 11], [1, 2, 3, 4], [7, 8, 9, 10]], [[4, 5, 6, 7], [10, 11, 12, 0], [3, 4, 5, 6]]]),
    (False, True, [[0.1, -0.2], [0.5, 0.6]],
     [[[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 6]], [[11, 12, 0, 1], [4, 5, 6, 7], [10, 11, 12, 0]]]),
    (False, False, [[1.0, 2.0], [2.5, 0.7]],
     [[[0, 1, 2, 3], [6, 7, 8, 9], [12, 0, 1, 2]], [[0, 10, 11, 12], [0, 3, 4, 5], [0, 9, 10, 11]]]),
    (True, True, [[0.9, -0.9], [-0.5, 0.95]],
     [[[0, 5, 6, 7], [0, 11, 12, 0], [0, 0, 0, 0]], [[7, 8, 9, 0], [0, 1, 2, 0], [6, 7, 8, 0]]]),
    (False, False, [[4.0, 5.0], [-1.0, -2.0]],
     [[[2, 3, 4, 0], [8, 9, 10, 0], [1, 2, 3, 0]], [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]]),
]


@pytest.mark.parametrize("centered,normalized,offsets,want", EG_CASES)
def test_extract_glimpse_measured(centered, normalized, offsets, want):
    out = ops.ExtractGlimpse(centered, normalized, False, "zero")(Tensor(GX), Tensor(np.array([3, 4], np.int32)),
                                                                  Tensor(np.array(offsets, np.float32)))
    np.testing.assert_array_equal(out.asnumpy()[..., 0], want)


def test_extract_glimpse_uniform_noise_range_and_errors():
    offsets = Tensor(np.array([[0.9, -0.9], [-0.5, 0.95]], np.float32))
    out = ops.ExtractGlimpse()(Tensor(GX), Tensor(np.array([3, 4], np.int32)), offsets).asnumpy()
    assert out.shape == (2, 3, 4, 2)
    np.testing.assert_array_equal(out[0, :2, 1:, 0], [[5, 6, 7], [11, 12, 0]])
    noise = out[0, 2]
    assert (noise >= -1).all() and (noise < 1).all() and len(np.unique(noise)) > 1   # 2.10 draws in [-1, 1)
    with pytest.raises(ValueError, match="'noise' must be uniform when uniform_noise is True, but got zero"):
        ops.ExtractGlimpse(uniform_noise=True, noise="zero")
    with pytest.raises(ValueError, match="'noise' must be str and must be in"):
        ops.ExtractGlimpse(noise="bad")


# -- MatrixLogarithm ----------------------------------------------------------------------------------
def _logm_cases():
    rng = np.random.RandomState(0)
    a = rng.randn(2, 3, 3) + 1j * rng.randn(2, 3, 3) + 3 * np.eye(3)
    return [a, np.array([[-1, 0], [0, 2]], complex), np.array([[1, 1], [0, 1]], complex),   # log(-1) = i*pi; Jordan
            rng.randn(4, 4) + 1j * rng.randn(4, 4)]


@pytest.mark.parametrize("case", range(4))
def test_matrix_logarithm_matches_scipy(case):
    a = _logm_cases()[case]
    want = np.stack([scipy.linalg.logm(m) for m in a.reshape(-1, *a.shape[-2:])]).reshape(a.shape)
    out = ops.MatrixLogarithm()(Tensor(a))
    np.testing.assert_allclose(out.asnumpy(), want, atol=1e-12)
    out32 = ops.MatrixLogarithm()(Tensor(a.astype(np.complex64))).asnumpy()
    assert out32.dtype == np.complex64
    np.testing.assert_allclose(out32, want, atol=2e-5)


def test_matrix_logarithm_errors():
    with pytest.raises(ValueError, match="the x rank must be greater than or equal to 2, but got 1"):
        ops.MatrixLogarithm()(Tensor(np.ones(3, np.complex64)))
    with pytest.raises(ValueError, match=r"the last two dimensions of input 'x' must be equal, but got x.shape = "
                                         r"\(2, 3\)"):
        ops.MatrixLogarithm()(Tensor(np.ones((2, 3), np.complex64)))
    with pytest.raises(TypeError, match=r"must be a type of \{Tensor\[Complex128\], Tensor\[Complex64\]\}, but got "
                                        r"Tensor\[Float32\]"):
        ops.MatrixLogarithm()(Tensor(np.eye(2, dtype=np.float32)))


# -- under jit (XLA) and through ONNX: one table per backend ------------------------------------------
def _table():
    size = Tensor(np.array([3, 4], np.int32))

    def cnms(b, s, iou, thr):
        return ops.CombinedNonMaxSuppression()(b, s, Tensor(np.int32(4)), Tensor(np.int32(6)), iou, thr)

    def sat(x):
        return ops.ScaleAndTranslate("lanczos3", True)(x, size, Tensor(np.array([0.6, 0.7], np.float32)),
                                                       Tensor(np.array([0.1, -0.2], np.float32)))

    def glimpse(x, offsets):
        return ops.ExtractGlimpse(True, True, False, "zero")(x, size, offsets)

    return {"cnms": (cnms, [BOXES, SCORES, np.float32(0.5), np.float32(0.1)]), "sat": (sat, [IMG]),
            "glimpse": (glimpse, [GX, np.array([[0.9, -0.9], [-0.5, 0.95]], np.float32)])}


def test_jit_and_onnx_match_eager():
    cases = _table()
    for mode in ("jit", "onnx"):
        got = run_table(cases, cases, mode)
        for name, (fn, arrays) in cases.items():
            want = as_numpy(fn(*(Tensor(a) for a in arrays)))
            for g, w in zip(got[name] if isinstance(want, tuple) else (got[name],),
                            want if isinstance(want, tuple) else (want,)):
                np.testing.assert_allclose(g, w, atol=1e-5, err_msg=f"{name} {mode}")


def test_matrix_logarithm_jit_vmap_onnx_no_grad():
    a = _logm_cases()[0]
    want = ops.MatrixLogarithm()(Tensor(a)).asnumpy()
    log = ops.MatrixLogarithm()
    np.testing.assert_allclose(ms.jit(lambda t: log(t))(Tensor(a)).asnumpy(), want, atol=1e-12)
    np.testing.assert_allclose(ms.vmap(lambda t: log(t))(Tensor(a)).asnumpy(), want, atol=1e-12)
    with pytest.raises(RuntimeError, match="Illegal primitive MatrixLogarithm's bprop not defined"):
        ms.grad(lambda t: ops.real(log(t)).sum())(Tensor(a))

    def parts(re, im):
        out = log(ops.Complex()(re, im))
        return ops.real(out), ops.imag(out)
    # ONNX (eig's Schur form, square roots, a series): log(-1) = i*pi and a Jordan block, in one model
    edges = np.stack(_logm_cases()[1:3])
    re, im = ms.jit(parts, backend="onnx")(Tensor(edges.real), Tensor(edges.imag))
    np.testing.assert_allclose(re.asnumpy() + 1j * im.asnumpy(), [scipy.linalg.logm(m) for m in edges], atol=1e-12)

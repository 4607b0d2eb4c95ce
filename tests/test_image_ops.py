"""RGBToHSV, HSVToRGB, AdjustHue, AdjustSaturation, ResizeArea, ExtractVolumePatches and col2im
(ops/image_ops.py) against MindSpore 2.10's outputs (measured on its CPU build) and numpy; one
jitted table and one ONNX model for all of them."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, ops
from tests.modes import run_table

F32 = np.float32
RGB = np.array([[[0.2, 0.5, 0.9], [0.9, 0.1, 0.1], [0.3, 0.3, 0.3], [0.0, 0.0, 0.0]],
                [[1, 1, 0], [0.5, 0.25, 0.75], [0.1, 0.8, 0.2], [0.6, 0.6, 0.1]]], F32)
HSV = np.array([[0.95, 0.5, 0.7], [1.0, 1.0, 1.0], [0.5, 0.0, 0.4], [0.1666, 0.3, 0.9], [0.4, 0.8, 0.5],
                [0.7, 0.6, 0.3], [1.3, 0.5, 0.5], [-0.2, 0.5, 0.5], [-0.05, 0.5, 0.5]], F32)
IMAGE = np.arange(2 * 6 * 6, dtype=F32).reshape(2, 6, 6, 1)
VOLUME = np.arange(2 * 4 * 4 * 4, dtype=F32).reshape(1, 2, 4, 4, 4)
COLS = np.arange(2 * 4 * 6, dtype=F32).reshape(1, 2, 4, 6)


def size(*dims):
    return Tensor(np.array(dims, np.int32))


def volume_patches(x, kernel, stride, same):
    """numpy: kernel-position-major, channel-minor patches (TensorFlow's layout)."""
    if same:
        pads = []
        for n, k, s in zip(x.shape[2:], kernel, stride):
            total = max((-(-n // s) - 1) * s + k - n, 0)
            pads.append((total // 2, total - total // 2))
        x = np.pad(x, ((0, 0), (0, 0), *pads))
    out = [(n - k) // s + 1 for n, k, s in zip(x.shape[2:], kernel, stride)]
    pieces = [x[:, :, a:a + stride[0] * (out[0] - 1) + 1:stride[0], b:b + stride[1] * (out[1] - 1) + 1:stride[1],
                c:c + stride[2] * (out[2] - 1) + 1:stride[2]]
              for a in range(kernel[0]) for b in range(kernel[1]) for c in range(kernel[2])]
    return np.stack(pieces, 1).reshape(x.shape[0], -1, *out)


# name: (fn, inputs, expected); the literals were measured on MindSpore 2.10
CASES = {
    "rgb_to_hsv": (lambda x: ops.RGBToHSV()(x), [RGB], np.array(
        [[0.595238, 0.777778, 0.9], [0, 0.888889, 0.9], [0, 0, 0.3], [0, 0, 0], [0.166667, 1, 1],
         [0.75, 0.666667, 0.75], [0.357143, 0.875, 0.8], [0.166667, 0.833333, 0.6]], F32).reshape(2, 4, 3)),
    "hsv_to_rgb": (lambda x: ops.HSVToRGB()(x), [HSV.reshape(1, 1, 9, 3)], np.array(
        [[0.7, 0.35, 0.455], [1, 0, 0], [0.4, 0.4, 0.4], [0.9, 0.899892, 0.63], [0.1, 0.5, 0.26],
         [0.156, 0.12, 0.3], [0.5, 0.25, 0.25], [0.5, 0.25, 0.25], [0.5, 0.25, 0.25]], F32).reshape(1, 1, 9, 3)),
    "adjust_hue": (lambda x, d: ops.AdjustHue()(x, d), [RGB, np.array(0.3, F32)], np.array(
        [[0.9, 0.2, 0.64], [0.26, 0.9, 0.1], [0.3, 0.3, 0.3], [0, 0, 0], [0, 1, 0.8], [0.75, 0.4, 0.25],
         [0.1, 0.14, 0.8], [0.1, 0.6, 0.5]], F32).reshape(2, 4, 3)),
    "adjust_hue_wraps": (lambda x, d: ops.AdjustHue()(x, d), [RGB, np.array(-0.7, F32)], None),  # == +0.3
    "adjust_saturation": (lambda x, s: ops.AdjustSaturation()(x, s), [RGB, np.array(2.0, F32)], np.array(
        [[0, 0.385714, 0.9], [0.9, 0, 0], [0.3, 0.3, 0.3], [0, 0, 0], [1, 1, 0], [0.375, 0, 0.75],
         [0, 0.8, 0.114286], [0.6, 0.6, 0]], F32).reshape(2, 4, 3)),
    "resize_area_down": (lambda x: ops.ResizeArea()(x, size(4, 5)), [IMAGE], np.array(
        [[2.1666667, 3.333333, 4.5, 5.666667, 6.833332], [10.166667, 11.333332, 12.5, 13.666667, 14.833331],
         [20.166668, 21.333332, 22.5, 23.666664, 24.833328], [28.166666, 29.333334, 30.499998, 31.666664, 32.833324]],
        F32)[None, ..., None] + np.array([0, 36], F32)[:, None, None, None]),
    "resize_area_up": (lambda x: ops.ResizeArea()(x, size(5, 4)), [IMAGE[:1, :3, :3]], np.array(
        [[0, 0.6666666, 1.3333333, 2], [2, 2.6666672, 3.3333337, 4], [6, 6.666666, 7.3333335, 8],
         [10, 10.666668, 11.333334, 12], [12, 12.666663, 13.33333, 14]], F32)[None, ..., None]),
    "resize_area_align_corners": (lambda x: ops.ResizeArea(align_corners=True)(x, size(4, 5)), [IMAGE[:1]], np.array(
        [[2.6, 3.8, 5, 6.2, 7.4], [12.2, 13.4, 14.6, 15.8, 17], [21.8, 23, 24.2, 25.4, 26.6],
         [30.2, 31.4, 32.6, 33.8, 35]], F32)[None, ..., None]),
    "volume_patches_same": (lambda v: ops.ExtractVolumePatches((1, 1, 2, 3, 2), (1, 1, 1, 2, 3), "SAME")(v), [VOLUME],
                            volume_patches(VOLUME, (2, 3, 2), (1, 2, 3), True)),
    "volume_patches_valid": (lambda v: ops.ExtractVolumePatches((2, 2, 3), (1, 1, 2, 1, 1), "valid")(v), [VOLUME],
                             volume_patches(VOLUME, (2, 2, 3), (2, 1, 1), False)),
    "col2im": (lambda c: ops.col2im(c, size(3, 4), (2, 2), (1, 1), (0, 0), (1, 1)), [COLS], np.array(
        [[[0, 7, 9, 8], [15, 44, 48, 31], [15, 37, 39, 23]],
         [[24, 55, 57, 32], [63, 140, 144, 79], [39, 85, 87, 47]]], F32)[None]),
}


@pytest.mark.parametrize("mode", ["jit", "onnx"])
def test_image_ops_table(mode):
    outs = run_table(CASES, CASES, mode)
    for name, (fn, inputs, expected) in CASES.items():
        if expected is not None:
            np.testing.assert_allclose(outs[name], expected, rtol=1e-5, atol=2e-6, err_msg=name)
    np.testing.assert_allclose(outs["adjust_hue_wraps"], outs["adjust_hue"], atol=1e-6)


def test_dtypes_eagerly():
    rgb = Tensor(RGB.astype(np.float64))
    assert ops.RGBToHSV()(rgb).dtype == ms.float64 and ops.AdjustSaturation()(rgb, Tensor(0.5, ms.float32)).dtype == ms.float64
    assert ops.HSVToRGB()(Tensor(HSV.reshape(1, 1, 9, 3).astype(np.float16))).dtype == ms.float16
    assert ops.ResizeArea()(Tensor(IMAGE.astype(np.int32)), size(2, 2)).dtype == ms.float32
    assert ops.ExtractVolumePatches((1, 1, 2, 2, 2), (1, 1, 2, 2, 2), "VALID")(Tensor(VOLUME.astype(np.int32))).dtype \
        == ms.int32
    np.testing.assert_allclose(ops.ResizeArea(align_corners=True)(Tensor(np.arange(16, dtype=F32).reshape(1, 4, 4, 1)),
                                                                  size(1, 2)).asnumpy().ravel(), [7, 9])  # measured


@pytest.mark.parametrize("call, error, message", [
    (lambda: ops.RGBToHSV()(Tensor(RGB[..., :2])), ValueError, "last dimension of input 'images' must be equal to 3, "
                                                               "but got 2"),
    (lambda: ops.RGBToHSV()(Tensor(np.ones(3, np.int32))), TypeError, r"must be a type of \{Tensor\[Float16\]"),
    (lambda: ops.HSVToRGB()(Tensor(HSV)), ValueError, "the the dimension of \\[x\\] must be equal to 4, but got 2"),
    (lambda: ops.AdjustHue()(Tensor(RGB), 0.3), TypeError, r"argument\[delta\] must be Tensor but got float"),
    (lambda: ops.AdjustHue()(Tensor(RGB), Tensor(0.3, ms.float16)), TypeError, r"must be a type of \{Tensor\[Float32\]\}"),
    (lambda: ops.AdjustHue()(Tensor(RGB[0]), Tensor(0.3, ms.float32)), ValueError,
     "the dimension of image must be greater than or equal to 3, but got 2"),
    (lambda: ops.AdjustSaturation()(Tensor(np.ones((1, 1, 4), F32)), Tensor(0.3, ms.float32)), ValueError,
     "last dimension of AdjustSaturation input image must be equal to 3, but got 4"),
    (lambda: ops.ResizeArea()(Tensor(IMAGE[0]), size(2, 2)), ValueError, "images dimension must be equal to 4, but got 3"),
    (lambda: ops.ResizeArea()(Tensor(IMAGE), size(2, 2, 2)), ValueError, "input1 num must be equal to 2, but got 3"),
    (lambda: ops.ResizeArea()(Tensor(IMAGE), size(0, 2)), ValueError, "'size' should only contain positive number"),
    (lambda: ops.ResizeArea()(Tensor(IMAGE), (2, 2)), TypeError, r"argument\[size\] must be Tensor"),
    (lambda: ops.ExtractVolumePatches((1, 2, 2, 2, 2), (1, 1, 2, 2, 2), "VALID"), ValueError,
     "'kernel_size\\[1\\]' must be int and must = 1, but got '2'"),
    (lambda: ops.ExtractVolumePatches((1, 1, 2, 2, 2), (1, 1, 2, 2, 2), "FULL"), ValueError,
     "must be in '\\['VALID', 'SAME'\\]', but got 'FULL'"),
    (lambda: ops.ExtractVolumePatches((1, 1, 5, 2, 2), (1, 1, 2, 2, 2), "VALID")(Tensor(VOLUME)), ValueError,
     "input\\[2\\] - kernel_size\\[2\\] must be greater than or equal to 0, but got -1"),
    (lambda: ops.ExtractVolumePatches((1, 1, 2, 2, 2), (1, 1, 2, 2, 2), "VALID")(Tensor(VOLUME[0])), ValueError,
     "input shape must be equal to 5, but got 4"),
    (lambda: ops.col2im(Tensor(COLS[0]), size(3, 4), 2, 1, 0, 1), ValueError, "x dimension must be equal to 4, but got 3"),
    (lambda: ops.col2im(Tensor(COLS), size(3, 5), 2, 1, 0, 1), ValueError,
     "input.size\\[3\\]: 6, calculated number of sliding blocks: 8"),
])
def test_errors_as_mindspore(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_adjust_hue_gradient_matches_finite_differences():
    x = np.random.default_rng(0).uniform(0.1, 0.9, (2, 3, 3))  # distinct channels: hue is smooth there
    fn = lambda t: ops.reduce_sum(ops.AdjustHue()(t, Tensor(0.1, ms.float32)) * Tensor(np.arange(18.0).reshape(2, 3, 3)))  # noqa
    g = ms.grad(fn)(Tensor(x)).asnumpy()
    eps, numeric = 1e-3, np.zeros_like(x)  # the op computes in float32
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        numeric[i] = (fn(Tensor(x + d)).asnumpy() - fn(Tensor(x - d)).asnumpy()) / (2 * eps)
    np.testing.assert_allclose(g, numeric, rtol=1e-2, atol=1e-2)

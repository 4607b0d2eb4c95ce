"""Fractional max pooling (ops.fractional_max_pool2d/3d, nn.FractionalMaxPool2d/3d, the FixedKsize
classes), CropAndResize's bilinear_v2 and ROIAlign's adaptive grid under jit.

Literals were measured on MindSpore 2.10 (CPU); torch's fractional_max_pool2d/3d, which 2.10
matches exactly given the same samples, is the second reference."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
import torch

import graphcell as ms
from graphcell import nn, ops, Tensor
from tests.modes import run_table

X2 = (np.sin(np.arange(2 * 7 * 8) * 1.7) * 10).reshape(1, 2, 7, 8).astype(np.float32)
S2 = np.array([[[0.3, 0.8], [0.55, 0.1]]], np.float32)
X3 = (np.sin(np.arange(2 * 5 * 6 * 7) * 1.3) * 10).reshape(1, 2, 5, 6, 7).astype(np.float32)
S3 = np.array([[[0.3, 0.8, 0.2], [0.55, 0.1, 0.9]]], np.float32)

# measured on MindSpore 2.10: fractional_max_pool2d(X2, (2, 3), output_size=(4, 3), return_indices=True, S2)
MS_2D_VALUES = [[[9.916648, 9.99793, 7.984872], [8.792727, 9.99793, 9.856007], [9.494048, 9.404284, 9.805898],
                 [9.988579, 8.920117, 8.920117]],
                [[9.150935, 9.948268, 9.685868], [9.150935, 9.649621, 9.685868], [9.207242, 9.207242, 9.932867],
                 [9.994354, 9.832724, 8.855068]]]
MS_2D_INDICES = [[[1, 12, 5], [16, 12, 23], [34, 27, 38], [49, 45, 45]],
                 [[8, 4, 15], [8, 19, 15], [26, 26, 30], [41, 52, 45]]]
# measured: fractional_max_pool2d(X2, 2, output_size=3, _random_samples=-S2)[0, 0] (samples outside [0, 1) accepted)
MS_2D_NEGATIVE = [[9.916648, -1.4899902, 3.5905836], [8.79273, 9.404289, 9.856003], [9.988581, 7.556402, 3.3331394]]
# measured: fractional_max_pool3d(X3, (2, 2, 3), output_size=(3, 4, 3), return_indices=True, S3), first 12 of each
MS_3D_VALUES = [9.635581, 9.867721, 9.985434, 9.287955, 9.867721, 9.867721, 9.986374, 9.64031, 9.864829, 9.985909,
                9.637954, 9.866276]
MS_3D_INDICES = [1, 11, 6, 16, 11, 11, 64, 59, 69, 35, 30, 40]


def _torch(nd, x, kernel, samples, **kw):
    pool = torch.nn.functional.fractional_max_pool2d if nd == 2 else torch.nn.functional.fractional_max_pool3d
    values, indices = pool(torch.tensor(x), kernel, return_indices=True, _random_samples=torch.tensor(samples), **kw)
    return values.numpy(), indices.numpy()


RNG = np.random.default_rng(4)
# name: (nd, input shape, kernel, output_size or None, output_ratio or None)
TORCH_CASES = {
    "2d_size": (2, (2, 3, 9, 11), (2, 3), (5, 4), None),
    "2d_ratio": (2, (1, 2, 10, 8), 3, None, (0.5, 0.7)),
    "2d_one_output": (2, (1, 1, 6, 6), (2, 2), (1, 3), None),
    "3d_size": (3, (2, 2, 6, 7, 8), (2, 3, 2), (3, 4, 5), None),
    "3d_ratio": (3, (1, 2, 8, 6, 7), 2, None, 0.5),
}


def _torch_case(name):
    nd, shape, kernel, size, ratio = TORCH_CASES[name]
    x = RNG.standard_normal(shape).astype(np.float32)
    samples = RNG.uniform(size=shape[:2] + (nd,)).astype(np.float32)
    fn = ops.fractional_max_pool2d if nd == 2 else ops.fractional_max_pool3d

    def run(x, s):
        return fn(x, kernel, output_size=size, output_ratio=ratio, return_indices=True, _random_samples=s)
    kw = {"output_size": size} if size is not None else {"output_ratio": ratio}
    return run, (x, samples), _torch(nd, x, kernel, samples, **kw)


def _measured_cases():
    return {
        "ms_2d": (lambda x, s: ops.fractional_max_pool2d(x, (2, 3), output_size=(4, 3), return_indices=True,
                                                         _random_samples=s), (X2, S2)),
        "ms_2d_negative": (lambda x, s: ops.fractional_max_pool2d(x, 2, output_size=3, _random_samples=-s), (X2, S2)),
        "ms_3d": (lambda x, s: ops.fractional_max_pool3d(x, (2, 2, 3), output_size=(3, 4, 3), return_indices=True,
                                                         _random_samples=s), (X3, S3)),
        "class_2d": (lambda x, s: ops.FractionalMaxPoolWithFixedKsize((2, 3), (4, 3))(x, s), (X2, S2)),
        "class_3d_unbatched": (lambda x, s: ops.FractionalMaxPool3DWithFixedKsize((2, 2, 3), (3, 4, 3))(
            x[0], s.reshape(2, 1, 3)), (X3, S3)),
    }


def _check_measured(out):
    np.testing.assert_allclose(out["ms_2d"][0][0], MS_2D_VALUES, rtol=1e-5)
    np.testing.assert_array_equal(out["ms_2d"][1][0], MS_2D_INDICES)
    assert out["ms_2d"][1].dtype == np.int64
    np.testing.assert_allclose(out["ms_2d_negative"][0, 0], MS_2D_NEGATIVE, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(out["ms_3d"][0].ravel()[:12], MS_3D_VALUES, rtol=1e-5)
    np.testing.assert_array_equal(out["ms_3d"][1].ravel()[:12], MS_3D_INDICES)
    np.testing.assert_array_equal(out["class_2d"][1][0], MS_2D_INDICES)
    np.testing.assert_array_equal(out["class_3d_unbatched"][1], out["ms_3d"][1][0])


@pytest.mark.parametrize("mode", ["jit", "onnx"])
def test_fractional_max_pool_matches_mindspore_and_torch(mode):
    cases, expected = _measured_cases(), {}
    for name in TORCH_CASES:
        fn, inputs, expected[name] = _torch_case(name)
        cases[name] = (fn, inputs)
    out = run_table(cases, cases, mode)
    _check_measured(out)
    for name, (values, indices) in expected.items():
        np.testing.assert_allclose(out[name][0], values, rtol=1e-6, err_msg=name)
        np.testing.assert_array_equal(out[name][1], indices, err_msg=name)


def test_fractional_max_pool_unbatched_layers_and_sizes():
    def run(x, s, s3, x3):
        unbatched = ops.fractional_max_pool2d(x[0], (2, 3), output_size=(4, 3), return_indices=True,
                                              _random_samples=s)
        layer = nn.FractionalMaxPool3d((2, 2, 3), output_size=(3, 4, 3), return_indices=True, _random_samples=s3)
        # output_size wins over output_ratio (2.10); ratio sizes are int(n * ratio)
        both = ops.fractional_max_pool2d(x, 2, output_size=3, output_ratio=0.5)
        ratio = nn.FractionalMaxPool2d(2, output_ratio=(0.5, 0.5))(x)
        integer = ops.fractional_max_pool2d(x.astype(ms.int32), 2, output_size=3)
        return unbatched[0], unbatched[1], layer(x3)[1], both, ratio, integer
    unbatched, where, where3, both, ratio, integer = ms.jit(run)(Tensor(X2), Tensor(S2), Tensor(S3), Tensor(X3))
    np.testing.assert_array_equal(where.asnumpy(), MS_2D_INDICES)
    assert unbatched.shape == (2, 4, 3)
    np.testing.assert_array_equal(where3.asnumpy().ravel()[:12], MS_3D_INDICES)
    assert both.shape == (1, 2, 3, 3) and ratio.shape == (1, 2, 3, 4)
    assert integer.dtype == ms.int32


def test_fractional_max_pool_draws_follow_the_generator():
    pool = ms.jit(nn.FractionalMaxPool2d(2, output_size=5, return_indices=True))
    x = Tensor(RNG.standard_normal((1, 4, 20, 20)).astype(np.float32))
    ms.manual_seed(5)
    first, second = pool(x)[1].asnumpy(), pool(x)[1].asnumpy()
    ms.manual_seed(5)
    np.testing.assert_array_equal(pool(x)[1].asnumpy(), first)
    assert not np.array_equal(first, second)


def _jax_reference_2d(x, samples, kernel, outputs):
    """Fractional max pooling in jnp with the windows fixed from numpy samples."""
    def starts(u, n, k, o):
        if o == 1:
            return [n - k]
        alpha = np.float32((n - k) / (o - 1))
        return [int(np.float32(i + u) * alpha) - int(np.float32(u) * alpha) for i in range(o - 1)] + [n - k]
    rows = []
    for b in range(x.shape[0]):
        planes = []
        for c in range(x.shape[1]):
            hs = starts(samples[b, c, 1], x.shape[2], kernel[0], outputs[0])
            ws = starts(samples[b, c, 0], x.shape[3], kernel[1], outputs[1])
            planes.append(jnp.stack([jnp.stack([jnp.max(x[b, c, h:h + kernel[0], w:w + kernel[1]]) for w in ws])
                                     for h in hs]))
        rows.append(jnp.stack(planes))
    return jnp.stack(rows)


def test_fractional_max_pool_grad_and_vmap():
    def loss(x, s):
        return (ops.fractional_max_pool2d(x, (2, 3), output_size=(4, 3), _random_samples=s) ** 2).sum()
    got = ms.jit(ops.grad(loss))(Tensor(X2), Tensor(S2)).asnumpy()
    want = jax.jit(jax.grad(lambda x: (_jax_reference_2d(x, S2, (2, 3), (4, 3)) ** 2).sum()))(jnp.asarray(X2))
    np.testing.assert_allclose(got, np.asarray(want), rtol=1e-6)

    samples = RNG.uniform(size=(3, 1, 2, 2)).astype(np.float32)
    batched = ms.jit(ops.vmap(lambda x, s: ops.fractional_max_pool2d(x, (2, 3), output_size=(4, 3),
                                                                     return_indices=True, _random_samples=s),
                              in_axes=(None, 0)))(Tensor(X2), Tensor(samples))
    for i in range(3):
        values, indices = _torch(2, X2, (2, 3), samples[i], output_size=(4, 3))
        np.testing.assert_array_equal(batched[1].asnumpy()[i], indices)
        np.testing.assert_allclose(batched[0].asnumpy()[i], values)


def _error(fn):
    with pytest.raises(Exception) as info:
        fn()
    return info.type, str(info.value)


def test_fractional_max_pool_errors_match_mindspore():
    x = Tensor(X2)
    f2, f3 = ops.fractional_max_pool2d, ops.fractional_max_pool3d
    # (type, message start) measured on 2.10
    assert _error(lambda: f2(x, 2)) == (ValueError, "For fractional_max_pool2d, 'output_size' and 'output_ratio' can "
                                        "not be Noneat the same time, but got None and None .")
    assert _error(lambda: f2(x, 2, output_ratio=1.0)) == (
        ValueError, "For 'fractional_max_pool2d', the 'output_ratio[0]' must be in range of (0.0, 1.0), but got 1.0 "
        "with type 'float'.")
    assert _error(lambda: f2(x, 2, output_size=(7, 8))) == (
        ValueError, "For FractionalMaxPoolWithFixedKsize, ksize height [2] + output_shape_h [7] too large relative to "
        "input height [7], conflict with the rule: ksize_h + output_shape_h - 1 <= input_h")
    assert _error(lambda: f2(x, 2, output_size=3, _random_samples=Tensor(np.zeros((1, 2, 3), np.float32)))) == (
        ValueError, "For FractionalMaxPoolWithFixedKsize, the last dimension size of random_samples must be 2, but "
        "got 3")
    assert _error(lambda: f2(x, 2, output_size=3, _random_samples=Tensor(np.zeros((2, 2, 2), np.float32)))) == (
        ValueError, "The first dimension size of input_x and random_samples must be equal.")
    assert _error(lambda: f2(x[0, 0], 2, output_size=3)) == (
        ValueError, "For FractionalMaxPoolWithFixedKsize, the dimension of input_x must be 4, but got 2")
    assert _error(lambda: f2(x.astype(ms.uint8), 2, output_size=3))[0] is TypeError
    assert _error(lambda: f2(x, 0, output_size=3)) == (
        ValueError, "For 'FractionalMaxPoolWithFixedKsize' attr 'ksize' must be an positive int number or a tuple of "
        "two positive int numbers, but got 0")
    assert _error(lambda: f2(x, 2.0, output_size=3)) == (
        TypeError, "For 'FractionalMaxPoolWithFixedKsize', the type of 'ksize' should be one of '['int', 'tuple']', "
        "but got type 'float'.")
    x3 = Tensor(X3)
    assert _error(lambda: f3(x3.astype(ms.int32), 2, output_size=3)) == (
        TypeError, "For 'fractional_max_pool3d', 'input' and '_random_samples' must be same dtype, but got "
        "Tensor[Int32] and Tensor[Float32].")
    assert _error(lambda: f3(x3, (2, 2), output_size=3)) == (
        ValueError, "For 'FractionalMaxPool3DWithFixedKsize', attr 'ksize' must be an positive int number or a tuple "
        "of three positive int numbers, but got 2 numbers.")
    assert _error(lambda: ops.FractionalMaxPoolWithFixedKsize(2, 3, "NHWC")) == (
        ValueError, "For 'FractionalMaxPoolWithFixedKsize', the 'data_format' must be str and must be in "
        "'['NCHW']', but got 'NHWC'.")
    assert _error(lambda: ops.FractionalMaxPool3DWithFixedKsize(2, 3)(x3, Tensor(S3).astype(ms.int32)))[0] is TypeError


# -- CropAndResize(method='bilinear_v2') ------------------------------------------------------------

CROP_IMAGE = (np.sin(np.arange(2 * 5 * 6 * 2) * 0.7) * 5).reshape(2, 5, 6, 2).astype(np.float32)
CROP_BOXES = np.array([[-0.5, -0.5, 0.5, 1.5], [0.1, 0.2, 0.8, 0.9], [0.3, -0.2, 1.4, 0.7], [0.0, 0.0, 1.0, 1.0],
                       [0.9, 0.8, 0.2, 0.1]], np.float32)
CROP_INDEX = np.array([1, 0, 1, 1, 0], np.int32)
# measured on MindSpore 2.10: CropAndResize(method='bilinear_v2', extrapolation_value=7.0)(..., (2, 3))[..., 0]
# (boxes partly outside the image, the full image, a reversed box; the extrapolation value is never used)
MS_V2 = [[[-4.58261, 3.98976, -4.76876], [1.47447, -3.27625, 3.03632]],
         [[-1.17938, -0.96338, 2.28052], [2.06704, -3.25868, 1.65758]],
         [[1.73797, -2.5074, 2.33792], [1.00205, 2.8472, -3.53794]],
         [[3.55466, -4.64726, 3.7608], [3.66575, -4.76073, 3.97374]],
         [[4.98779, 4.98779, 4.98779], [4.98779, 4.98779, 4.98779]]]
# the same on the image cast to int32 (the output is float32)
MS_V2_INT = [[[-4.0, 3.0, -4.0], [0.75, -3.0, 2.25]], [[-0.75, -1.0, 1.75], [1.58333, -3.0, 1.5]],
             [[1.25, -2.125, 1.625], [1.0, 2.0, -3.0]], [[2.66667, -4.0, 3.0], [3.0, -4.0, 3.0]],
             [[4.0, 4.0, 4.0], [4.0, 4.0, 4.0]]]


def _v2_reference(image, boxes, index, size):
    """numpy: 2.10's bilinear_v2 as measured (see detection._sample_axis_v2), per box and channel."""
    def axis(lo, hi, n, count):
        first, last = int(np.float32(lo) * n), int(np.float32(hi) * n)
        span = last - first + 1
        at = [max(min((i + 0.5) * span / count - 0.5, span - 1), 0) for i in range(count)]
        return [min(max(first + a, 0), n - 1) for a in at]
    _, height, width, _ = image.shape
    out = np.zeros((len(boxes),) + size + (image.shape[3],))
    for k, (y1, x1, y2, x2) in enumerate(boxes):
        img = image[index[k]].astype(np.float64)
        for i, y in enumerate(axis(y1, y2, height, size[0])):
            for j, x in enumerate(axis(x1, x2, width, size[1])):
                t, left = int(y), int(x)
                b, r = min(t + 1, height - 1), min(left + 1, width - 1)
                top = img[t, left] + (img[t, r] - img[t, left]) * (x - left)
                bottom = img[b, left] + (img[b, r] - img[b, left]) * (x - left)
                out[k, i, j] = top + (bottom - top) * (y - t)
    return out


@pytest.mark.parametrize("mode", ["jit", "onnx"])
def test_crop_and_resize_bilinear_v2(mode):
    crop = ops.CropAndResize(method="bilinear_v2", extrapolation_value=7.0)
    more = np.concatenate([CROP_BOXES, RNG.uniform(-0.3, 1.3, (6, 4)).astype(np.float32)])
    more_index = RNG.integers(0, 2, len(more)).astype(np.int32)
    cases = {
        "measured": (lambda x, b, i: crop(x, b, i, (2, 3)), (CROP_IMAGE, CROP_BOXES, CROP_INDEX)),
        "int": (lambda x, b, i: crop(x, b, i, (2, 3)), (CROP_IMAGE.astype(np.int32), CROP_BOXES, CROP_INDEX)),
        "random": (lambda x, b, i: crop(x, b, i, (4, 5)), (CROP_IMAGE, more, more_index)),
        "one": (lambda x, b, i: crop(x, b, i, (1, 1)), (CROP_IMAGE, more, more_index)),
    }
    out = run_table(cases, cases, mode)
    assert out["measured"].dtype == out["int"].dtype == np.float32
    np.testing.assert_allclose(out["measured"][..., 0], MS_V2, atol=2e-5)
    np.testing.assert_allclose(out["int"][..., 0], MS_V2_INT, atol=2e-5)
    for name, size in (("random", (4, 5)), ("one", (1, 1))):
        np.testing.assert_allclose(out[name], _v2_reference(CROP_IMAGE, more, more_index, size), atol=2e-5,
                                   err_msg=name)


# -- ROIAlign with an adaptive grid (sample_num <= 0) under jit --------------------------------------

def test_roi_align_adaptive_grid_under_jit():
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "data"))
    from detection_cases import FEAT, ROIS, RS
    from graphcell.ops.detection import adaptive_grid
    measured = np.load(os.path.join(os.path.dirname(__file__), "data", "mindspore_detection.npz"))
    adaptive = {f"roi{i}": args for i, args in enumerate(ROIS) if args[3] <= 0}
    assert len(adaptive) == 3
    cases = {name: (lambda f, r, a=args: ops.ROIAlign(*a)(f, r), (FEAT, RS)) for name, args in adaptive.items()}
    traced = run_table(cases, cases, "jit")
    height, width = FEAT.shape[2:]
    for name, args in adaptive.items():
        gh, gw = adaptive_grid(RS, args[0], args[1], args[2], args[4])
        # rois within the map's bound (ceil(size / bins) samples per bin) match 2.10 (measured; eager graphcell
        # matches the same literals in test_detection_ops)
        fits = (gh <= -(-height // args[0])) & (gw <= -(-width // args[1]))
        assert fits.sum() >= 5, name
        np.testing.assert_allclose(traced[name][fits], measured[name][fits], rtol=2e-5, atol=2e-5, err_msg=name)


# -- nn.GradAccumulationCell ------------------------------------------------------------------------

def test_grad_accumulation_cell_sums_micro_batches():
    dense = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")
    loss = nn.WithLossCell(dense, nn.MSELoss())
    cell = nn.GradAccumulationCell(loss, 2)
    x = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
    y = np.zeros((4, 2), np.float32)
    value, grads = ms.jit(ops.value_and_grad(cell, None, dense.trainable_params()))(Tensor(x), Tensor(y))
    # measured on MindSpore 2.10: the sum of the two micro-batches' losses (0.765 + 6.705) and its gradient
    np.testing.assert_allclose(value.asnumpy(), 7.47, rtol=1e-5)
    np.testing.assert_allclose(grads[0].asnumpy(), [[2.16, 2.49, 2.82]] * 2, rtol=1e-5)
    np.testing.assert_allclose(grads[1].asnumpy(), [3.3, 3.3], rtol=1e-5)
    with pytest.raises(ValueError, match=r"the 0th dimension shape of input\(3\) must be divided by micro size\(2\)"):
        cell(Tensor(x[:3]), Tensor(y[:3]))
    with pytest.raises(ValueError, match="'micro_size' must be large than 0, but got 0"):
        nn.GradAccumulationCell(loss, 0)
    with pytest.raises(TypeError, match="'micro_size' must be integer"):
        nn.GradAccumulationCell(loss, 1.5)

"""Regression tests for the differences from MindSpore 2.10 that the session-15 audit of the
losses, scatters, segments, functional nn ops and layers found and fixed. Every literal was
measured on MindSpore 2.10 (CPU, PyNative)."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Parameter, Tensor, nn, ops

from tests.modes import run_table


# -- losses ----------------------------------------------------------------------------------

def test_dice_loss_smooth_is_only_in_the_denominator():
    x = np.array([[0.2, 0.9, 0.4], [0.7, 0.1, 0.5]], np.float32)
    y = np.array([[0., 1., 1.], [1., 0., 0.]], np.float32)
    got = [float(nn.DiceLoss(s)(Tensor(x), Tensor(y)).asnumpy()) for s in (1e-5, 0.5, 1.0, 2.0)]
    # measured on MindSpore 2.10: 1 - 2 I / (U + smooth)
    np.testing.assert_allclose(got, [0.15966564, 0.23954374, 0.30555558, 0.40828407], rtol=1e-6)


def test_ctc_loss_log_alpha_passes_no_gradient():
    lp = np.log(np.array([[[0.5, 0.3, 0.2]], [[0.2, 0.5, 0.3]], [[0.3, 0.3, 0.4]], [[0.6, 0.1, 0.3]]], np.float32))
    tg, il, tl = (Tensor(np.array(v, np.int32)) for v in ([[1, 2]], [4], [2]))
    # the gradient of the (loss, log_alpha) pair is the loss's alone (measured on MindSpore 2.10)
    both = ms.grad(lambda q: ops.ctc_loss(q, tg, il, tl))(Tensor(lp)).asnumpy()
    expected = np.array([[[0.010479, -0.1104791, 0.1]], [[0.0401198, -0.1092815, 0.0691617]],
                         [[0.0541916, 0.0751497, -0.1293413]], [[0.053493, 0.05, -0.103493]]], np.float32)
    np.testing.assert_allclose(both, expected, atol=1e-6)


# -- scatters and segments -------------------------------------------------------------------

def test_scatter_div_refuses_known_zero_updates():
    x = Parameter(Tensor(np.ones((2, 3), np.float32)), name="x")
    with pytest.raises(ValueError, match="For 'ScatterDiv', updates must not contain 0"):
        ops.scatter_div(x, Tensor(np.array([1], np.int32)), Tensor(np.array([[2., 0., 1.]], np.float32)))
    np.testing.assert_array_equal(x.asnumpy(), np.ones((2, 3), np.float32))   # nothing written


def test_diagonal_scatter_offset_below_the_larger_axis():
    # measured on MindSpore 2.10: |offset| < max(size of dim1, size of dim2); inside that, an
    # empty diagonal is a no-op
    x = np.zeros((2, 3, 5), np.float32)
    for (d1, d2), most in (((0, 2), 5), ((2, 0), 5), ((0, 1), 3)):
        for k in (most - 1, -(most - 1)):
            n = np.diagonal(x, k, d1, d2).shape
            ops.diagonal_scatter(Tensor(x), Tensor(np.ones(n, np.float32)), k, d1, d2)
        for k in (most, -most):
            n = np.diagonal(x, k, d1, d2).shape
            with pytest.raises(ValueError, match="offset must be in"):
                ops.diagonal_scatter(Tensor(x), Tensor(np.ones(n, np.float32)), k, d1, d2)


@pytest.mark.parametrize("name,identity", [("unsorted_segment_sum", 0.0), ("unsorted_segment_prod", 1.0),
                                           ("unsorted_segment_max", np.finfo(np.float32).min),
                                           ("unsorted_segment_min", np.finfo(np.float32).max)])
def test_unsorted_segment_of_no_slices_is_the_identity(name, identity):
    # MindSpore 2.10's CPU kernels refuse an empty input; here every segment is empty
    out = getattr(ops, name)(Tensor(np.zeros((0, 2), np.float32)), Tensor(np.zeros((0,), np.int32)), 3)
    np.testing.assert_array_equal(out.asnumpy(), np.full((3, 2), identity, np.float32))


# -- functional nn ---------------------------------------------------------------------------

def _nearest(pad, align, plane, xs, y):
    def fn(img, grid):
        return ops.grid_sample(img, grid, "nearest", pad, align)
    grid = np.stack([xs, np.full_like(xs, y)], -1).reshape(1, 1, -1, 2)
    return fn, [plane, grid]


_IMG45 = np.arange(20, dtype=np.float32).reshape(1, 1, 4, 5)
_IMG44 = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
# pixel x: W=5 with align_corners 1.5, 2.5, 0.5, 3.5, -0.5, 4.5; W=4 without 0.5, 1.5, 2.5, 3.5, -0.5, 4.5
_XS_AC = np.array([-0.25, 0.25, -0.75, 0.75, -1.25, 1.25], np.float32)
_XS = np.array([-0.5, 0., 0.5, 1.0, -1.0, 1.5], np.float32)
# measured on MindSpore 2.10: halves round away from zero
NEAREST = {
    "ac_zeros": (*_nearest("zeros", True, _IMG45, _XS_AC, 0.0), [12, 13, 11, 14, 0, 0]),
    "ac_border": (*_nearest("border", True, _IMG45, _XS_AC, 0.0), [12, 13, 11, 14, 10, 14]),
    "ac_reflection": (*_nearest("reflection", True, _IMG45, _XS_AC, 0.0), [12, 13, 11, 14, 11, 14]),
    "zeros": (*_nearest("zeros", False, _IMG44, _XS, 0.25), [9, 10, 11, 0, 0, 0]),
    "border": (*_nearest("border", False, _IMG44, _XS, 0.25), [9, 10, 11, 11, 8, 11]),
    "reflection": (*_nearest("reflection", False, _IMG44, _XS, 0.25), [9, 10, 11, 11, 8, 11]),
}


@pytest.mark.parametrize("mode", ["jit", "onnx"])
def test_grid_sample_nearest_rounds_halves_away_from_zero(mode):
    got = run_table(NEAREST, NEAREST, mode)
    for name, (_, _, expected) in NEAREST.items():
        np.testing.assert_array_equal(got[name].ravel(), np.array(expected, np.float32), err_msg=name)


def test_grid_sample_clip_has_no_gradient_at_the_ends():
    img = Tensor((np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4) % 5) ** 1.5)
    grid = np.array([[[[1.0, -1.0], [-1.0, 0.3], [0.2, 1.0], [0.5, 0.5]]]], np.float32)
    weights = Tensor(np.arange(1, 5, dtype=np.float32).reshape(1, 1, 1, 4))

    @ms.jit
    def grads(g):
        return tuple(ms.grad(lambda q, pad=pad: (ops.grid_sample(img, q, "bilinear", pad, True) * weights).sum())(g)
                     for pad in ("border", "reflection"))
    # measured on MindSpore 2.10 (both padding modes): a coordinate on an end gets 0
    expected = np.array([[0., 0.], [0., -8.411542], [12.617313, 0.], [-7.5, 34.5]], np.float32)
    for got in grads(Tensor(grid)):
        np.testing.assert_allclose(got.asnumpy().reshape(-1, 2), expected, rtol=1e-5, atol=1e-5)


def test_max_unpool_refuses_known_indices_outside_the_plane():
    x = Tensor(np.ones((1, 1, 2, 2), np.float32))
    for bad in (16, -1):   # MindSpore 2.10 raises a RuntimeError for both
        with pytest.raises(RuntimeError, match=r"every index must be in \[0, 16\)"):
            ops.max_unpool2d(x, Tensor(np.array([[[[0, 1], [2, bad]]]], np.int64)), 2)


# -- layers ----------------------------------------------------------------------------------

def test_channel_shuffle_cell_takes_2d_and_3d_inputs():
    # measured on MindSpore 2.10 (ops.channel_shuffle refuses these; the Cell does not)
    two = nn.ChannelShuffle(3)(Tensor(np.arange(12, dtype=np.float32).reshape(2, 6))).asnumpy()
    np.testing.assert_array_equal(two, [[0, 2, 4, 1, 3, 5], [6, 8, 10, 7, 9, 11]])
    three = nn.ChannelShuffle(2)(Tensor(np.arange(12, dtype=np.int32).reshape(1, 4, 3))).asnumpy()
    np.testing.assert_array_equal(three, [[[0, 1, 2], [6, 7, 8], [3, 4, 5], [9, 10, 11]]])
    with pytest.raises(TypeError, match="expect input with > 3 dims"):
        ops.channel_shuffle(Tensor(np.zeros((1, 4, 3), np.float32)), 2)


def test_moments_refuses_integers():
    with pytest.raises(TypeError, match=r"'input x' should be one of \[mindspore.float16, mindspore.float32\], "
                                        r"but got 'mindspore.int32'"):
        nn.Moments(1)(Tensor(np.arange(6, dtype=np.int32).reshape(2, 3)))

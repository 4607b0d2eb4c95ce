"""MindSpore 2.10's newer neural-network functional ops: grid_sample, affine_grid, layer_norm,
batch_norm, rms_norm, lrn, prelu, glu, swiglu, rrelu, gumbel_softmax, lp_pool1d/2d, avg_pool2d,
adaptive_avg/max_pool3d, dropout1d/2d/3d, channel_shuffle and max_unpool1d/2d/3d.

References: torch.nn.functional (values and autograd), numpy formulas, and literals measured on
MindSpore 2.10's CPU build where it parts from torch or torch lacks the op (lrn is TensorFlow's,
without torch's division of alpha by the window; adaptive_max_pool3d's indices are int32;
ops.batch_norm's momentum is torch's; max_unpool keeps the last of repeated indices). 2.10
measured equal to torch for grid_sample (every mode, padding mode and align_corners, 2-D and
3-D, to 5e-7), affine_grid, lp_pool (ceil_mode too) and channel_shuffle. layer_norm, rms_norm and
swiglu have no CPU kernel in 2.10: rms_norm and swiglu are checked against their documented
examples.
"""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import graphcell as ms
from graphcell import Parameter, Tensor, ops

RNG = np.random.default_rng(7)


def randn(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def t(a):
    return torch.from_numpy(np.asarray(a))


def backends(fn, *arrays):
    """fn's result eagerly, under XLA and under onnxruntime."""
    tensors = [Tensor(a) for a in arrays]
    return [fn(*tensors).asnumpy(), ms.jit(fn)(*tensors).asnumpy(), ms.jit(fn, backend="onnx")(*tensors).asnumpy()]


# -- grid_sample and affine_grid -----------------------------------------------------------------

# each padding mode with each align_corners across the two modes (the full 24 were measured on 2.10)
GRID_CASES = [("bilinear", "zeros", False), ("bilinear", "border", True), ("bilinear", "reflection", False),
              ("bilinear", "reflection", True), ("nearest", "zeros", True), ("nearest", "reflection", False)]


@pytest.mark.parametrize("mode,padding_mode,align", GRID_CASES)
def test_grid_sample_2d_matches_torch(mode, padding_mode, align):
    x, grid = randn(2, 3, 4, 5), RNG.uniform(-1.4, 1.4, (2, 3, 6, 2)).astype(np.float32)
    want = TF.grid_sample(t(x), t(grid), mode, padding_mode, align).numpy()
    got = ops.grid_sample(Tensor(x), Tensor(grid), mode, padding_mode, align).asnumpy()
    np.testing.assert_allclose(got, want, atol=2e-6)


@pytest.mark.parametrize("mode,padding_mode,align", GRID_CASES[3:5])
def test_grid_sample_3d_matches_torch(mode, padding_mode, align):
    x, grid = randn(1, 2, 3, 4, 3), RNG.uniform(-1.4, 1.4, (1, 2, 3, 2, 3)).astype(np.float32)
    want = TF.grid_sample(t(x), t(grid), mode, padding_mode, align).numpy()
    np.testing.assert_allclose(ops.grid_sample(Tensor(x), Tensor(grid), mode, padding_mode, align).asnumpy(), want,
                               atol=2e-6)


@pytest.mark.parametrize("padding_mode", ["zeros", "reflection"])
def test_grid_sample_gradients_match_torch(padding_mode):
    x, grid = randn(1, 2, 3, 4), RNG.uniform(-1.2, 1.2, (1, 3, 2, 2)).astype(np.float32)
    tx, tg = t(x).requires_grad_(), t(grid).requires_grad_()
    (TF.grid_sample(tx, tg, "bilinear", padding_mode, False) ** 2).sum().backward()

    def loss(a, g):
        return ops.reduce_sum(ops.square(ops.grid_sample(a, g, "bilinear", padding_mode, False)))
    gx, gg = ms.jit(ms.grad(loss, grad_position=(0, 1)))(Tensor(x), Tensor(grid))
    np.testing.assert_allclose(gx.asnumpy(), tx.grad.numpy(), atol=1e-5)
    np.testing.assert_allclose(gg.asnumpy(), tg.grad.numpy(), atol=1e-4)


def test_grid_sample_and_affine_grid_export_to_onnx():
    theta = np.array([[[0.9, -0.2, 0.1], [0.3, 1.1, -0.2]]], np.float32)
    x = randn(1, 2, 5, 4)

    def warp(a, th):
        return ops.grid_sample(a, ops.affine_grid(th, (1, 2, 3, 4), False), "bilinear", "border", False)
    eager, xla, onnx = backends(warp, x, theta)
    want = TF.grid_sample(t(x), TF.affine_grid(t(theta), (1, 2, 3, 4), False), "bilinear", "border", False).numpy()
    for got in (eager, xla, onnx):
        np.testing.assert_allclose(got, want, atol=2e-6)


def test_grid_sample_vmaps_like_a_loop():
    xs, grids = randn(3, 1, 2, 3, 3), RNG.uniform(-1, 1, (3, 1, 2, 2, 2)).astype(np.float32)
    got = ms.vmap(lambda a, g: ops.grid_sample(a, g, "bilinear", "zeros", True))(Tensor(xs), Tensor(grids))
    for i in range(3):
        np.testing.assert_allclose(got.asnumpy()[i], TF.grid_sample(t(xs[i]), t(grids[i]), "bilinear", "zeros",
                                                                    True).numpy(), atol=2e-6)


@pytest.mark.parametrize("align", [False, True])
def test_affine_grid_matches_torch(align):
    theta, theta3 = randn(2, 2, 3), randn(1, 3, 4)
    np.testing.assert_allclose(ops.affine_grid(Tensor(theta), (2, 3, 4, 5), align).asnumpy(),
                               TF.affine_grid(t(theta), (2, 3, 4, 5), align).numpy(), atol=1e-6)
    np.testing.assert_allclose(ops.affine_grid(Tensor(theta3), (1, 1, 2, 3, 4), align).asnumpy(),
                               TF.affine_grid(t(theta3), (1, 1, 2, 3, 4), align).numpy(), atol=1e-6)


def test_grid_ops_errors_as_mindspore():
    x, grid = Tensor(randn(1, 2, 3, 4)), Tensor(randn(1, 5, 6, 2))
    with pytest.raises(ValueError, match="mode"):
        ops.grid_sample(x, grid, "bicubic")            # 2.10's CPU build has no bicubic either
    with pytest.raises(ValueError, match="padding_mode"):
        ops.grid_sample(x, grid, "bilinear", "wrap")
    with pytest.raises(ValueError, match="first dimension of grid and input_x must be equal"):
        ops.grid_sample(x, Tensor(randn(2, 5, 6, 2)))
    with pytest.raises(TypeError, match="same data type"):
        ops.grid_sample(Tensor(randn(1, 2, 3, 4).astype(np.float64)), grid)
    with pytest.raises(TypeError, match="Tuple"):
        ops.affine_grid(Tensor(randn(2, 2, 3)), [2, 3, 4, 5])
    with pytest.raises(ValueError, match=r"output_size\[0\] must be equal"):
        ops.affine_grid(Tensor(randn(2, 2, 3)), (3, 3, 4, 5))


# -- normalisation ---------------------------------------------------------------------------------

def test_layer_norm_matches_torch_with_gradients():
    x, w, b = randn(2, 3, 4), randn(3, 4), randn(3, 4)
    np.testing.assert_allclose(ops.layer_norm(Tensor(x), (3, 4), Tensor(w), Tensor(b)).asnumpy(),
                               TF.layer_norm(t(x), (3, 4), t(w), t(b)).numpy(), atol=1e-5)
    tx = t(x).requires_grad_()
    (TF.layer_norm(tx, (4,)) ** 3).sum().backward()
    got = ms.grad(lambda a: ops.reduce_sum(ops.pow(ops.layer_norm(a, 4), 3)))(Tensor(x))
    np.testing.assert_allclose(got.asnumpy(), tx.grad.numpy(), atol=1e-4)
    with pytest.raises(ValueError, match="normalized_shape"):
        ops.layer_norm(Tensor(x), (3,))


def test_batch_norm_updates_parameters_as_mindspore():
    """Measured on 2.10 (training, momentum 0.1): running_mean 0 -> 0.1 * batch mean and
    running_var 1 -> 0.9 + 0.1 * the unbiased variance; torch's rule."""
    x = randn(4, 3, 2)
    mean, var = Parameter(np.zeros(3, np.float32), name="m"), Parameter(np.ones(3, np.float32), name="v")
    tm, tv = torch.zeros(3), torch.ones(3)
    got = ops.batch_norm(Tensor(x), mean, var, Tensor(np.ones(3, np.float32)), Tensor(np.zeros(3, np.float32)), True)
    want = TF.batch_norm(t(x), tm, tv, torch.ones(3), torch.zeros(3), True, 0.1)
    np.testing.assert_allclose(got.asnumpy(), want.numpy(), atol=1e-5)
    np.testing.assert_allclose(mean.asnumpy(), tm.numpy(), atol=1e-6)
    np.testing.assert_allclose(var.asnumpy(), tv.numpy(), atol=1e-6)
    evaluated = ops.batch_norm(Tensor(x), Tensor(np.full(3, 0.5, np.float32)), Tensor(np.full(3, 2.0, np.float32)),
                               Tensor(np.full(3, 2.0, np.float32)), Tensor(np.ones(3, np.float32)))
    np.testing.assert_allclose(evaluated.asnumpy(), (x - 0.5) / np.sqrt(2.0 + 1e-5) * 2 + 1, atol=1e-5)


def test_batch_norm_in_jit_writes_its_state():
    mean, var = Parameter(np.zeros(2, np.float32), name="rm"), Parameter(np.ones(2, np.float32), name="rv")
    one, zero = Tensor(np.ones(2, np.float32)), Tensor(np.zeros(2, np.float32))
    x = randn(5, 2)
    ms.jit(lambda a: ops.batch_norm(a, mean, var, one, zero, True, 0.5))(Tensor(x))
    np.testing.assert_allclose(mean.asnumpy(), 0.5 * x.mean(0), atol=1e-6)
    np.testing.assert_allclose(var.asnumpy(), 0.5 + 0.5 * x.var(0, ddof=1), atol=1e-5)


def test_rms_norm_and_swiglu_are_mindsporess_documented_examples():
    y, rstd = ops.rms_norm(Tensor(np.array([[1, 2, 3], [1, 2, 3]], np.float32)), Tensor(np.ones(3, np.float32)))
    np.testing.assert_allclose(y.asnumpy(), [[0.46290997, 0.92581993, 1.3887299]] * 2, rtol=1e-6)
    np.testing.assert_allclose(rstd.asnumpy(), [[0.46290997]] * 2, rtol=1e-6)
    out = ops.swiglu(Tensor(np.array([[-0.12, 0.123, 31.122], [2.1223, 4.1212121217, 0.3123]], np.float32)), 0)
    np.testing.assert_allclose(out.asnumpy(), [[-0.11970687, 0.2690224, 9.7194]], rtol=1e-5)


def test_lrn_is_tensorflows_as_measured():
    """2.10: x / (bias + alpha * sum of x^2 over c-r..c+r)^beta; its defaults r=5, bias 1,
    alpha 1, beta 0.5 (a literal measured on 2.10 below)."""
    x = randn(1, 6, 2, 2)
    sq = x ** 2
    for r, bias, alpha, beta in ((2, 1.0, 1.0, 0.5), (1, 2.0, 0.3, 0.75), (0, 1.0, 1.0, 0.5)):
        s = np.stack([sq[:, max(0, c - r):c + r + 1].sum(1) for c in range(6)], 1)
        for got in backends(lambda a: ops.lrn(a, r, bias, alpha, beta), x):
            np.testing.assert_allclose(got, x / (bias + alpha * s) ** beta, rtol=1e-5)
    ones = ops.lrn(Tensor(np.ones((1, 2, 2, 2), np.float32)), 0)
    np.testing.assert_allclose(ones.asnumpy(), np.full((1, 2, 2, 2), 0.7071), atol=1e-4)   # measured on 2.10
    with pytest.raises(TypeError, match="'bias' should be 'float'"):
        ops.lrn(Tensor(x), 1, 1)
    with pytest.raises(ValueError, match="rank of input"):
        ops.lrn(Tensor(x[0]))


# -- activations ------------------------------------------------------------------------------------

def test_prelu_glu_match_torch_with_gradients():
    x, w = randn(4, 3, 2), np.array([0.1, 0.2, 0.3], np.float32)
    np.testing.assert_allclose(ops.prelu(Tensor(x), Tensor(w)).asnumpy(), TF.prelu(t(x), t(w)).numpy())
    np.testing.assert_allclose(ops.glu(Tensor(x), 0).asnumpy(), TF.glu(t(x), 0).numpy(), atol=1e-6)
    tx, tw = t(x).requires_grad_(), t(w).requires_grad_()
    (TF.prelu(tx, tw) * TF.glu(tx, -1).sum()).sum().backward()
    gx, gw = ms.grad(lambda a, b: ops.reduce_sum(ops.mul(ops.prelu(a, b), ops.reduce_sum(ops.glu(a, -1)))),
                     grad_position=(0, 1))(Tensor(x), Tensor(w))
    np.testing.assert_allclose(gx.asnumpy(), tx.grad.numpy(), atol=1e-4)
    np.testing.assert_allclose(gw.asnumpy(), tw.grad.numpy(), atol=1e-4)
    with pytest.raises(ValueError, match="number of channels: 3"):
        ops.prelu(Tensor(x), Tensor(np.array([0.1, 0.2], np.float32)))
    with pytest.raises(ValueError, match="divisible by output_num = 2"):
        ops.glu(Tensor(x), 1)


def test_rrelu_draws_slopes_within_bounds_and_follows_the_seed():
    x = -np.abs(randn(200)) - 0.1
    ms.set_seed(3)
    first = ops.rrelu(Tensor(x), 0.2, 0.4).asnumpy()
    slopes = first / x
    assert slopes.min() >= 0.2 and slopes.max() < 0.4 and slopes.std() > 0.03
    ms.set_seed(3)
    np.testing.assert_array_equal(ops.rrelu(Tensor(x), 0.2, 0.4).asnumpy(), first)
    positive = np.abs(randn(5))
    np.testing.assert_array_equal(ops.rrelu(Tensor(positive)).asnumpy(), positive)
    with pytest.raises(ValueError, match="'upper' must be greater than or equal to 'lower'"):
        ops.rrelu(Tensor(x), 0.5, 0.2)


def test_gumbel_softmax_soft_and_hard():
    logits = Tensor(randn(4, 5))
    soft = ops.gumbel_softmax(logits).asnumpy()
    np.testing.assert_allclose(soft.sum(-1), 1.0, rtol=1e-5)
    hard = ops.gumbel_softmax(logits, 0.5, True, 0).asnumpy()
    assert set(np.unique(hard)) <= {0.0, 1.0} and (hard.sum(0) == 1).all()
    # straight-through: the hard sample's gradient is the soft one's, for one shared draw
    weights = Tensor(np.arange(5.0, dtype=np.float32))
    ms.set_seed(1)
    g_hard = ms.grad(lambda z: ops.reduce_sum(ops.mul(ops.gumbel_softmax(z, 1.0, True), weights)))(logits)
    ms.set_seed(1)
    g_soft = ms.grad(lambda z: ops.reduce_sum(ops.mul(ops.gumbel_softmax(z, 1.0, False), weights)))(logits)
    np.testing.assert_allclose(g_hard.asnumpy(), g_soft.asnumpy(), atol=1e-6)
    with pytest.raises(TypeError, match="'tau' should be 'float'"):
        ops.gumbel_softmax(logits, 1)
    with pytest.raises(TypeError, match="float16, mindspore.float32"):
        ops.gumbel_softmax(Tensor(np.ones(3, np.int32)))


# -- pooling ------------------------------------------------------------------------------------------

def test_lp_pools_match_torch():
    x1, x2 = randn(1, 2, 5), randn(1, 1, 4, 5)
    np.testing.assert_allclose(ops.lp_pool1d(Tensor(x1), 3, 2, ceil_mode=True).asnumpy(),
                               TF.lp_pool1d(t(x1), 3, 2, ceil_mode=True).numpy(), atol=1e-5)
    np.testing.assert_allclose(ops.lp_pool1d(Tensor(x1[0]), 2, 2).asnumpy(), TF.lp_pool1d(t(x1), 2, 2).numpy()[0],
                               atol=1e-5)
    for got in backends(lambda a: ops.lp_pool2d(a, 2, (2, 3), 1), x2):
        np.testing.assert_allclose(got, TF.lp_pool2d(t(x2), 2, (2, 3), 1).numpy(), atol=1e-5)
    with pytest.raises(ValueError, match="'norm_type' can not be 0"):
        ops.lp_pool1d(Tensor(x1), 0, 2)


def test_avg_pool2d_matches_torch_and_mindsporess_padding_order():
    x = randn(1, 1, 4, 5)
    np.testing.assert_allclose(ops.avg_pool2d(Tensor(x), 3, 2, 1, True, False).asnumpy(),
                               TF.avg_pool2d(t(x), 3, 2, 1, True, False).numpy(), atol=1e-6)
    np.testing.assert_allclose(ops.avg_pool2d(Tensor(x), 2, 2, 0, False, True, 3).asnumpy(),
                               TF.avg_pool2d(t(x), 2, 2, 0, False, True, 3).numpy(), atol=1e-6)
    # (top, bottom, left, right), measured on 2.10: kernel 3 over 4 x 5 padded (1, 1, 0, 1) -> 4 x 4
    got = ops.avg_pool2d(Tensor(x), 3, 1, (1, 1, 0, 1)).asnumpy()
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (0, 1)))
    np.testing.assert_allclose(got, TF.avg_pool2d(t(padded), 3, 1).numpy(), atol=1e-6)
    with pytest.raises(ValueError, match="padding should be int or tuple of length 4"):
        ops.avg_pool2d(Tensor(x), 2, 1, (1, 0))
    with pytest.raises(TypeError, match="'kernel_size' must be int, but got 'list'"):
        ops.avg_pool2d(Tensor(x), [2, 2])


def test_adaptive_pools_3d_match_torch():
    x = randn(1, 2, 3, 4, 5)
    np.testing.assert_allclose(ops.adaptive_avg_pool3d(Tensor(x), (2, 3, 2)).asnumpy(),
                               TF.adaptive_avg_pool3d(t(x), (2, 3, 2)).numpy(), atol=1e-6)
    np.testing.assert_allclose(ops.adaptive_avg_pool3d(Tensor(x), (None, 2, 2)).asnumpy(),
                               TF.adaptive_avg_pool3d(t(x), (3, 2, 2)).numpy(), atol=1e-6)
    values, index = ops.adaptive_max_pool3d(Tensor(x[0]), (2, 3, 7), True)
    want_v, want_i = TF.adaptive_max_pool3d(t(x[0]), (2, 3, 7), True)
    np.testing.assert_allclose(values.asnumpy(), want_v.numpy())
    np.testing.assert_array_equal(index.asnumpy(), want_i.numpy())
    assert index.dtype == ms.int32                       # measured on 2.10 (the 2-D pool's are int64)
    for got in backends(lambda a: ops.adaptive_max_pool3d(a, 2), x):
        np.testing.assert_allclose(got, TF.adaptive_max_pool3d(t(x), 2).numpy())
    with pytest.raises(ValueError, match=r"rank of x must be in \[4,5\]"):
        ops.adaptive_avg_pool3d(Tensor(x[0, 0]), 2)


def test_max_unpool_measured_on_mindspore_and_against_torch():
    one = ops.max_unpool1d(Tensor(np.array([[[1.0, 2.0]]], np.float32)), Tensor(np.array([[[1, 3]]])), 2,
                           output_size=(1, 1, 5))
    np.testing.assert_array_equal(one.asnumpy(), [[[0, 1, 0, 2, 0]]])                     # measured on 2.10
    repeated = ops.max_unpool1d(Tensor(np.array([[[1.0, 2.0]]], np.float32)), Tensor(np.array([[[1, 1]]])), 2)
    np.testing.assert_array_equal(repeated.asnumpy(), [[[0, 2, 0, 0]]])                   # measured: last wins
    x = randn(1, 2, 4, 5)
    pooled, index = TF.max_pool2d(t(x), 2, 2, return_indices=True)
    got = ms.jit(lambda a, i: ops.max_unpool2d(a, i, 2, output_size=(4, 5)), backend="onnx")(
        Tensor(pooled.numpy()), Tensor(index.numpy()))
    np.testing.assert_allclose(got.asnumpy(), TF.max_unpool2d(pooled, index, 2, output_size=(4, 5)).numpy())
    x3 = randn(1, 1, 2, 4, 2)
    p3, i3 = TF.max_pool3d(t(x3), 2, return_indices=True)
    np.testing.assert_allclose(ops.max_unpool3d(Tensor(p3.numpy()), Tensor(i3.numpy()), 2).asnumpy(),
                               TF.max_unpool3d(p3, i3, 2).numpy())
    grad = ms.grad(lambda a: ops.reduce_sum(ops.mul(ops.max_unpool2d(a, Tensor(index.numpy()), 2, output_size=(4, 5)),
                                                    Tensor(x))))(Tensor(pooled.numpy()))
    np.testing.assert_allclose(grad.asnumpy(), pooled.numpy())          # each value lands on its maximum
    with pytest.raises(ValueError, match="must be between"):
        ops.max_unpool2d(Tensor(pooled.numpy()), Tensor(index.numpy()), 2, output_size=(9, 9))


# -- channel-wise ops -----------------------------------------------------------------------------------

@pytest.mark.parametrize("fn,shape", [(ops.dropout1d, (3, 8, 4)), (ops.dropout1d, (8, 4)),
                                      (ops.dropout2d, (3, 8, 2, 2)), (ops.dropout3d, (2, 8, 1, 2, 2))])
def test_channel_dropouts_drop_whole_channels(fn, shape):
    out = fn(Tensor(np.ones(shape, np.float32)), 0.5).asnumpy()
    lead = 1 if len(shape) == 2 else 2
    per_channel = out.reshape(shape[:lead] + (-1,))
    assert set(np.unique(out)) <= {0.0, 2.0}
    assert (per_channel.min(-1) == per_channel.max(-1)).all()                  # one draw per channel
    assert 0 < (per_channel[..., 0] == 0).sum() < per_channel[..., 0].size
    np.testing.assert_array_equal(fn(Tensor(np.ones(shape, np.float32)), 0.5, False).asnumpy(), np.ones(shape))


def test_channel_dropout_errors_and_integers_as_mindspore():
    with pytest.raises(TypeError, match="'p' must be float"):
        ops.dropout1d(Tensor(np.ones((2, 3), np.float32)), 0)
    with pytest.raises(ValueError, match="2D or 3D"):
        ops.dropout1d(Tensor(np.ones((2, 2, 2, 2), np.float32)))
    with pytest.raises(ValueError, match="must be equal to 4"):
        ops.dropout2d(Tensor(np.ones((4, 2, 2), np.float32)))
    ints = ops.dropout2d(Tensor(np.ones((1, 8, 2, 2), np.int32)), 0.5)
    assert ints.dtype == ms.int32 and set(np.unique(ints.asnumpy())) <= {0, 2}           # as 2.10
    np.testing.assert_array_equal(ops.dropout3d(Tensor(np.ones((1, 2, 1, 1, 1), np.float32)), 1.0).asnumpy(), 0)


def test_channel_shuffle_matches_torch_and_mindsporess_checks():
    x = np.arange(24, dtype=np.float32).reshape(2, 6, 2, 1)
    for got in backends(lambda a: ops.channel_shuffle(a, 3), x):
        np.testing.assert_array_equal(got, TF.channel_shuffle(t(x), 3).numpy())
    with pytest.raises(ValueError, match="divisible by groups"):
        ops.channel_shuffle(Tensor(x), 4)
    with pytest.raises(TypeError, match="> 3 dims"):
        ops.channel_shuffle(Tensor(x[..., 0]), 3)

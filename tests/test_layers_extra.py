"""MindSpore 2.10's smaller layers: Dropout1d/2d/3d, ChannelShuffle, GLU, RReLU, Softmax2d, LRN,
LPPool1d/2d, AdaptiveAvg/MaxPool3d, MaxUnpool1d/2d/3d, InstanceNorm3d, Norm, MatMul, Moments,
ReduceLogSumExp, BiDense, Pad, CentralCrop and ImageGradients.

Signatures, parameter names and order, BiDense's initial values after set_seed(5), and the
values where torch has no counterpart are literals measured on MindSpore 2.10's CPU build
(InstanceNorm3d has no CPU kernel there: its parameters were measured, its values are torch's).
"""
import inspect

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import graphcell as ms
from graphcell import Tensor, nn

RNG = np.random.default_rng(3)
E = inspect._empty


def randn(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def params(cls):
    return [(p.name, p.default) for p in inspect.signature(cls.__init__).parameters.values() if p.name != "self"]


def test_signatures_are_mindsporess():
    assert params(nn.LPPool1d) == [("norm_type", E), ("kernel_size", E), ("stride", None), ("ceil_mode", False)]
    assert params(nn.MaxUnpool2d) == [("kernel_size", E), ("stride", None), ("padding", 0)]
    assert params(nn.Dropout3d) == [("p", 0.5)]
    assert params(nn.RReLU) == [("lower", 0.125), ("upper", 1 / 3)]
    assert params(nn.LRN) == [("depth_radius", 5), ("bias", 1.0), ("alpha", 1.0), ("beta", 0.5),
                              ("norm_region", "ACROSS_CHANNELS")]
    assert params(nn.Moments) == [("axis", None), ("keep_dims", None)]
    assert params(nn.Norm) == [("axis", ()), ("keep_dims", False)]
    assert params(nn.Pad) == [("paddings", E), ("mode", "CONSTANT")]
    assert [n for n, _ in params(nn.BiDense)] == ["in1_channels", "in2_channels", "out_channels", "weight_init",
                                                  "bias_init", "has_bias", "dtype"]
    assert [n for n, _ in params(nn.InstanceNorm3d)] == ["num_features", "eps", "momentum", "affine", "gamma_init",
                                                         "beta_init", "dtype"]
    assert list(inspect.signature(nn.MaxUnpool1d.construct).parameters) == ["self", "x", "indices", "output_size"]


def test_parameters_as_mindspore():
    assert [(p.name, p.shape, p.requires_grad) for p in nn.InstanceNorm3d(3).get_parameters()] == [
        ("mean", (3,), False), ("variance", (3,), False), ("gamma", (3,), True), ("beta", (3,), True)]
    assert [(p.name, p.shape) for p in nn.BiDense(2, 3, 4).get_parameters()] == [("weight", (4, 2, 3)),
                                                                                  ("bias", (4,))]
    assert [p.name for p in nn.BiDense(2, 3, 4, has_bias=False).get_parameters()] == ["weight"]
    for cell in (nn.GLU(), nn.LRN(), nn.RReLU(), nn.Softmax2d(), nn.Dropout2d(), nn.ChannelShuffle(2),
                 nn.MaxUnpool2d(2), nn.LPPool1d(2, 2), nn.AdaptiveMaxPool3d(2), nn.Norm(), nn.MatMul(),
                 nn.Moments(), nn.ReduceLogSumExp(1), nn.CentralCrop(0.5), nn.ImageGradients(), nn.Pad(((1, 1),))):
        assert list(cell.get_parameters()) == []


def test_bidense_initial_values_and_output():
    ms.set_seed(5)
    cell = nn.BiDense(2, 3, 4)
    # measured on MindSpore 2.10 after set_seed(5): U(+-1/sqrt(in1_channels)), weight then bias
    np.testing.assert_allclose(cell.weight.asnumpy().ravel()[:6], [-0.20943590998649597, 0.6278172135353088,
                               0.27837252616882324, -0.5480312705039978, 0.5369135141372681, -0.1840922236442566])
    np.testing.assert_allclose(cell.bias.asnumpy(), [0.598366916179657, 0.29546573758125305, -0.152931347489357,
                                                     -0.1838752031326294])
    x1, x2 = randn(2, 5, 2), randn(2, 5, 3)
    want = TF.bilinear(torch.from_numpy(x1), torch.from_numpy(x2), torch.from_numpy(cell.weight.asnumpy()),
                       torch.from_numpy(cell.bias.asnumpy())).numpy()
    for run in (cell, ms.jit(cell), ms.jit(cell, backend="onnx")):
        np.testing.assert_allclose(run(Tensor(x1), Tensor(x2)).asnumpy(), want, atol=1e-5)
    with pytest.raises(ValueError, match="last dimension of 'input1' must be same as 'in1_channels'"):
        cell(Tensor(randn(5, 3)), Tensor(randn(5, 3)))


def test_channel_dropouts_respect_training_mode():
    ms.set_seed(0)
    cell = nn.Dropout2d()
    x = Tensor(np.ones((2, 16, 1, 1), np.float32))
    np.testing.assert_array_equal(cell(x).asnumpy(), 1.0)                   # a Cell starts in evaluation mode
    cell.set_train(True)
    out = cell(x).asnumpy()
    assert set(np.unique(out)) == {0.0, 2.0}
    assert not np.array_equal(cell(x).asnumpy(), out)                       # a fresh draw each call
    with pytest.raises(TypeError, match="'p' should be 'float'"):
        nn.Dropout1d(1)
    traced = nn.Dropout3d(0.5)
    traced.set_train(True)
    got = ms.jit(traced)(Tensor(np.ones((1, 16, 1, 2, 2), np.float32))).asnumpy()
    assert set(np.unique(got)) == {0.0, 2.0} and (got.min((2, 3, 4)) == got.max((2, 3, 4))).all()


def test_small_math_layers_measured_on_mindspore():
    x = Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 10 - 1)
    a = x.asnumpy()
    np.testing.assert_allclose(nn.Norm()(x).asnumpy(), np.sqrt((a ** 2).sum()), rtol=1e-6)
    np.testing.assert_allclose(nn.Norm(1, True)(x).asnumpy(), np.sqrt((a ** 2).sum(1, keepdims=True)), rtol=1e-6)
    mean, var = nn.Moments(1, True)(x)
    np.testing.assert_allclose(mean.asnumpy(), a.mean(1, keepdims=True), atol=1e-6)
    np.testing.assert_allclose(var.asnumpy(), a.var(1, keepdims=True), atol=1e-6)
    assert nn.Moments()(x)[0].shape == () and nn.Moments(1)(Tensor(a.astype(np.float16)))[1].dtype == ms.float16
    np.testing.assert_allclose(nn.ReduceLogSumExp((0, 2), True)(x).asnumpy(),
                               torch.logsumexp(torch.from_numpy(a), (0, 2), True).numpy(), rtol=1e-6)
    np.testing.assert_allclose(nn.MatMul(True, False)(x, x).asnumpy(), np.swapaxes(a, 1, 2) @ a, rtol=1e-5)
    np.testing.assert_allclose(nn.MatMul()(x, Tensor(a[0].T)).asnumpy(), a @ a[0].T, rtol=1e-5)
    np.testing.assert_allclose(nn.Softmax2d()(x).asnumpy(), torch.softmax(torch.from_numpy(a), -3).numpy(),
                               rtol=1e-6)


def test_pad_modes_as_mindspore():
    x = Tensor(randn(2, 3, 4))
    a = x.asnumpy()
    for mode, np_mode in (("CONSTANT", "constant"), ("REFLECT", "reflect"), ("SYMMETRIC", "symmetric")):
        pads = ((0, 0), (1, 2), (2, 2))
        for run in (nn.Pad(pads, mode), ms.jit(nn.Pad(pads, mode), backend="onnx")):
            np.testing.assert_allclose(run(x).asnumpy(), np.pad(a, pads, np_mode))
    with pytest.raises(ValueError, match="'mode' must be str"):
        nn.Pad(((0, 0),), "EDGE")
    with pytest.raises(TypeError, match="'paddings' must be tuple"):
        nn.Pad([[0, 0]])
    with pytest.raises(ValueError, match="must be equal to the rank"):
        nn.Pad(((0, 0), (1, 1)))(x)


def test_image_layers_measured_on_mindspore():
    img = Tensor(randn(1, 2, 6, 5))
    a = img.asnumpy()
    # 2.10: fraction 0.5 crops 6 x 5 to rows 1..4, columns 1..3; 0.6 the same; 1.0 keeps all
    np.testing.assert_array_equal(nn.CentralCrop(0.5)(img).asnumpy(), a[:, :, 1:5, 1:4])
    np.testing.assert_array_equal(nn.CentralCrop(0.6)(Tensor(a[0])).asnumpy(), a[0, :, 1:5, 1:4])
    np.testing.assert_array_equal(nn.CentralCrop(1.0)(img).asnumpy(), a)
    with pytest.raises(ValueError, match=r"range of \(0.0, 1.0\]"):
        nn.CentralCrop(0.0)
    dy, dx = nn.ImageGradients()(img)
    np.testing.assert_allclose(dy.asnumpy(), np.concatenate([np.diff(a, axis=2), np.zeros((1, 2, 1, 5))], 2),
                               atol=1e-6)
    np.testing.assert_allclose(dx.asnumpy(), np.concatenate([np.diff(a, axis=3), np.zeros((1, 2, 6, 1))], 3),
                               atol=1e-6)
    with pytest.raises(ValueError, match="must be 4d"):
        nn.ImageGradients()(Tensor(a[0]))


def test_pool_and_norm_layers_over_their_ops():
    x = randn(1, 2, 3, 4, 4)
    np.testing.assert_allclose(nn.AdaptiveAvgPool3d((1, 2, 2))(Tensor(x)).asnumpy(),
                               TF.adaptive_avg_pool3d(torch.from_numpy(x), (1, 2, 2)).numpy(), atol=1e-6)
    values, index = nn.AdaptiveMaxPool3d(2, True)(Tensor(x))
    assert index.dtype == ms.int32 and values.shape == (1, 2, 2, 2, 2)
    np.testing.assert_allclose(nn.LPPool2d(2, 2)(Tensor(x[0])).asnumpy(),
                               TF.lp_pool2d(torch.from_numpy(x[0]), 2, 2).numpy(), atol=1e-5)
    pooled, where = TF.max_pool1d(torch.from_numpy(x[0, :, 0]), 2, return_indices=True)
    np.testing.assert_allclose(nn.MaxUnpool1d(2)(Tensor(pooled.numpy()), Tensor(where.numpy())).asnumpy(),
                               TF.max_unpool1d(pooled, where, 2).numpy())
    np.testing.assert_allclose(nn.InstanceNorm3d(2)(Tensor(x)).asnumpy(),
                               TF.instance_norm(torch.from_numpy(x)).numpy(), atol=1e-5)
    with pytest.raises(ValueError):
        nn.InstanceNorm3d(2)(Tensor(x[0]))
    lrn = nn.LRN(1, 1.0, 0.5, 0.75)(Tensor(x[:, :, 0])).asnumpy()
    sq = x[:, :, 0] ** 2
    np.testing.assert_allclose(lrn, x[:, :, 0] / (1 + 0.5 * (sq + sq[:, ::-1])) ** 0.75, rtol=1e-5)
    np.testing.assert_allclose(nn.GLU(1)(Tensor(x)).asnumpy(), TF.glu(torch.from_numpy(x), 1).numpy(), atol=1e-6)
    np.testing.assert_array_equal(nn.ChannelShuffle(2)(Tensor(x)).asnumpy(), x[:, [0, 1]])
    slopes = nn.RReLU(0.1, 0.2)(Tensor(-np.abs(x) - 0.1)).asnumpy() / (-np.abs(x) - 0.1)
    assert 0.1 <= slopes.min() and slopes.max() < 0.2

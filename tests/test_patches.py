"""pixel_shuffle / pixel_unshuffle, unfold / fold and nn.PixelShuffle, nn.PixelUnshuffle, nn.Unfold
(graphcell/ops/patches.py, nn/layer/resampling.py).

References: values and messages measured on MindSpore 2.10 CPU (below), torch (which MindSpore
matched on every case measured), torch autograd for gradients, a loop for vmap, XLA for
onnxruntime. nn.Unfold (ExtractImagePatches) has no CPU kernel in MindSpore 2.10, so its layout
is checked against a numpy transcription of TensorFlow's ExtractImagePatches.
"""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import graphcell as ms
from graphcell import Tensor, nn, ops

RNG = np.random.default_rng(5)


def arange(*shape):
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)


def run_all(fn, *arrays):
    """fn eagerly, under XLA and under onnxruntime."""
    tensors = [Tensor(a) for a in arrays]
    return [fn(*tensors).asnumpy(), ms.jit(fn)(*tensors).asnumpy(), ms.jit(fn, backend="onnx")(*tensors).asnumpy()]


# -- pixel shuffle -------------------------------------------------------------------------------------

def test_pixel_shuffle_measured_on_mindspore():
    got = ops.pixel_shuffle(Tensor(arange(2, 8, 2, 3)), 2).asnumpy()
    assert got.shape == (2, 2, 4, 6)
    np.testing.assert_array_equal(got[0, 0], [[0, 6, 1, 7, 2, 8], [12, 18, 13, 19, 14, 20], [3, 9, 4, 10, 5, 11],
                                              [15, 21, 16, 22, 17, 23]])
    got = ops.pixel_unshuffle(Tensor(arange(2, 2, 4, 6)), 2).asnumpy()
    assert got.shape == (2, 8, 2, 3)
    np.testing.assert_array_equal(got.ravel()[:16], [0, 2, 4, 12, 14, 16, 1, 3, 5, 13, 15, 17, 6, 8, 10, 18])


@pytest.mark.parametrize("shape, r", [((2, 8, 2, 3), 2), ((9, 2, 2), 3), ((1, 2, 4, 2, 3), 2), ((3, 4, 5, 5), 1),
                                      ((1, 4, 2, 2), 2)])
def test_pixel_shuffle_round_trip_matches_torch(shape, r):
    x = RNG.standard_normal(shape).astype(np.float32)
    for got in run_all(lambda t: ops.pixel_shuffle(t, r), x):
        np.testing.assert_array_equal(got, TF.pixel_shuffle(torch.tensor(x), r).numpy())
    y = TF.pixel_shuffle(torch.tensor(x), r).numpy()
    for got in run_all(lambda t: ops.pixel_unshuffle(t, r), y):
        np.testing.assert_array_equal(got, x)
    ints = np.arange(np.prod(shape), dtype=np.int32).reshape(shape)
    np.testing.assert_array_equal(ops.pixel_shuffle(Tensor(ints), r).asnumpy(),
                                  TF.pixel_shuffle(torch.tensor(ints), r).numpy())


def test_pixel_shuffle_layers_grad_and_vmap():
    x = RNG.standard_normal((2, 8, 2, 3)).astype(np.float32)
    shuffle, unshuffle = nn.PixelShuffle(2), nn.PixelUnshuffle(2)
    assert (shuffle.upscale_factor, unshuffle.downscale_factor) == (2, 2)
    assert repr(shuffle) == "PixelShuffle(upscale_factor=2)"
    np.testing.assert_array_equal(unshuffle(shuffle(Tensor(x))).asnumpy(), x)
    w = RNG.standard_normal((2, 2, 4, 6)).astype(np.float32)
    got = ms.grad(lambda t: ops.sum(shuffle(t) * Tensor(w)))(Tensor(x)).asnumpy()
    np.testing.assert_array_equal(got, TF.pixel_unshuffle(torch.tensor(w), 2).numpy())
    members = RNG.standard_normal((3, 2, 8, 2, 3)).astype(np.float32)
    got = ms.vmap(lambda t: ops.pixel_shuffle(t, 2), in_axes=2)(Tensor(np.moveaxis(members, 0, 2))).asnumpy()
    np.testing.assert_array_equal(got, np.stack([TF.pixel_shuffle(torch.tensor(m), 2).numpy() for m in members]))


def test_pixel_shuffle_errors_as_mindspore():
    x = Tensor(arange(2, 8, 2, 3))
    with pytest.raises(ValueError, match="not divisible by `upscale_factor` squared"):
        ops.pixel_shuffle(x, 3)
    with pytest.raises(ValueError, match="The 'upscale_factor' must be int and must > 0, but got '0' with type 'int'"):
        ops.pixel_shuffle(x, 0)
    with pytest.raises(TypeError, match="The 'upscale_factor' must be int, but got 'float'"):
        ops.pixel_shuffle(x, 2.0)
    with pytest.raises(TypeError, match="but got 'True' with type 'bool'"):
        ops.pixel_shuffle(x, True)
    with pytest.raises(ValueError, match="the dimension of `input` should be larger than 2, but got 2"):
        ops.pixel_shuffle(Tensor(np.ones((8, 2), np.float32)), 2)
    with pytest.raises(TypeError, match="For 'pixel_shuffle', the 'input' must be a Tensor"):
        ops.pixel_shuffle([1.0], 2)
    with pytest.raises(ValueError, match="second to last 2 dimension should be divisible by downscale_factor"):
        ops.pixel_unshuffle(Tensor(arange(2, 2, 4, 6)), 4)
    with pytest.raises(ValueError, match="The 'downscale_factor' must be int and must > 0"):
        nn.PixelUnshuffle(0)


# -- unfold / fold -----------------------------------------------------------------------------------

def test_unfold_and_fold_measured_on_mindspore():
    x = Tensor(arange(2, 3, 5, 6))
    got = ops.unfold(x, 2).asnumpy()
    assert got.shape == (2, 12, 20)
    np.testing.assert_array_equal(got[0, :, 0], [0, 1, 6, 7, 30, 31, 36, 37, 60, 61, 66, 67])
    got = ops.unfold(x, (2, 3), dilation=(1, 2), padding=(1, 0), stride=(2, 1)).asnumpy()
    assert got.shape == (2, 18, 6)
    np.testing.assert_array_equal(got.ravel()[:16], [0, 0, 6, 7, 18, 19, 0, 0, 8, 9, 20, 21, 0, 0, 10, 11])
    got = ops.unfold(x, 2, dilation=2, padding=1, stride=2).asnumpy()
    np.testing.assert_array_equal(got.ravel()[:16], [0, 0, 0, 0, 7, 9, 0, 19, 21, 0, 0, 0, 7, 9, 11, 19])
    cols = Tensor(arange(2, 12, 12))
    got = ops.fold(cols, Tensor(np.array([4, 5], np.int32)), 2).asnumpy()
    assert got.shape == (2, 3, 4, 5)
    np.testing.assert_array_equal(got.ravel()[:16], [0, 13, 15, 17, 15, 28, 82, 86, 90, 58, 36, 98, 102, 106, 66, 32])
    got = ops.fold(Tensor(np.ones((1, 4, 12), np.float32)), Tensor(np.array([4, 5], np.int64)), 2).asnumpy()
    np.testing.assert_array_equal(got[0, 0], [[1, 2, 2, 2, 1], [2, 4, 4, 4, 2], [2, 4, 4, 4, 2], [1, 2, 2, 2, 1]])


UNFOLDS = [dict(kernel_size=2), dict(kernel_size=(2, 3), dilation=(1, 2), padding=(1, 0), stride=(2, 1)),
           dict(kernel_size=3, dilation=2, padding=2, stride=2), dict(kernel_size=[1, 2], stride=3)]


@pytest.mark.parametrize("kwargs", UNFOLDS)
def test_unfold_and_fold_match_torch(kwargs):
    x = RNG.standard_normal((2, 3, 6, 7)).astype(np.float32)
    want = TF.unfold(torch.tensor(x), **kwargs).numpy()
    for got in run_all(lambda t: ops.unfold(t, **kwargs), x):
        np.testing.assert_array_equal(got, want)
    cols = RNG.standard_normal(want.shape).astype(np.float32)
    want = TF.fold(torch.tensor(cols), (6, 7), **kwargs).numpy()
    for got in run_all(lambda t: ops.fold(t, (6, 7), **kwargs), cols):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("kwargs", UNFOLDS[:3])
def test_unfold_and_fold_gradients_match_torch(kwargs):
    x = RNG.standard_normal((2, 3, 6, 7)).astype(np.float32)
    cols = TF.unfold(torch.tensor(x), **kwargs)
    w_cols = RNG.standard_normal(cols.shape).astype(np.float32)
    w_img = RNG.standard_normal(x.shape).astype(np.float32)
    leaf = torch.tensor(x, requires_grad=True)
    (TF.unfold(leaf, **kwargs) * torch.tensor(w_cols)).sum().backward()
    got = ms.jit(ms.grad(lambda t: ops.sum(ops.unfold(t, **kwargs) * Tensor(w_cols))))(Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, leaf.grad.numpy(), rtol=1e-6, atol=1e-6)
    leaf = torch.tensor(cols.numpy(), requires_grad=True)
    (TF.fold(leaf, (6, 7), **kwargs) * torch.tensor(w_img)).sum().backward()
    loss = lambda t: ops.sum(ops.fold(t, (6, 7), **kwargs) * Tensor(w_img))  # noqa: E731
    got = ms.jit(ms.grad(loss), backend="onnx")(Tensor(cols.numpy())).asnumpy()
    np.testing.assert_allclose(got, leaf.grad.numpy(), rtol=1e-6, atol=1e-6)


def test_unfold_and_fold_vmap_match_a_loop():
    members = RNG.standard_normal((3, 2, 3, 5, 6)).astype(np.float32)
    fn = lambda t: ops.unfold(t, 2, padding=1, stride=2)  # noqa: E731
    got = ms.vmap(fn, in_axes=1)(Tensor(np.moveaxis(members, 0, 1))).asnumpy()
    np.testing.assert_array_equal(got, np.stack([fn(Tensor(m)).asnumpy() for m in members]))
    cols = np.stack([fn(Tensor(m)).asnumpy() for m in members])
    back = lambda t: ops.fold(t, (5, 6), 2, padding=1, stride=2)  # noqa: E731
    got = ms.vmap(back)(Tensor(cols)).asnumpy()
    np.testing.assert_allclose(got, np.stack([back(Tensor(c)).asnumpy() for c in cols]), rtol=1e-6, atol=1e-6)


def test_unfold_and_fold_errors():
    x = Tensor(arange(2, 3, 5, 6))
    cases = [
        (lambda: ops.unfold(x, 0), ValueError,
         r"For 'unfold', the 'kernel_size\[0\]' must be int and must > 0, but got '0' with type 'int'"),
        (lambda: ops.unfold(x, 2.0), TypeError, r"For 'unfold', the type of 'kernel_size' should be one of "
                                                r"'\['int', 'tuple', 'list'\]', but got type 'float'"),
        (lambda: ops.unfold(x, (2, 2, 2)), ValueError, r"the kernel_size size should be in : \[1, 2\], but got 3"),
        (lambda: ops.unfold(x, 2, padding=-1), ValueError, r"the 'padding\[0\]' must be int and must >= 0, but got "
                                                           r"'-1' with type 'int'"),
        (lambda: ops.unfold(x, 2, padding=(1, 0, 1, 0)), ValueError, r"the padding size should be in : \[1, 2\]"),
        (lambda: ops.unfold(x, 7), ValueError, r"the array of sliding blocks would be \(-1, 0\), but its components "
                                               r"must be at least one"),
        (lambda: ops.unfold(Tensor(np.ones((3, 5, 6), np.float32)), 2), ValueError,
         "the dimension of input must be equal to 4, but got 3"),
        (lambda: ops.fold(Tensor(np.ones((1, 12, 11), np.float32)), (4, 5), 2), ValueError,
         "calculated number of sliding blocks: 12"),
        (lambda: ops.fold(Tensor(np.ones((1, 11, 12), np.float32)), (4, 5), 2), ValueError,
         "second dimension 11 must be divisible by the product of 'kernel_size' 4"),
        (lambda: ops.fold(Tensor(np.ones((12, 12), np.float32)), (4, 5), 2), ValueError,
         "the dimension of input must be equal to 3, but got 2"),
    ]
    for call, error, message in cases:
        with pytest.raises(error, match=message):
            call()
    # a 1-sequence stands for both axes (MindSpore's "size should be in [1, 2]")
    np.testing.assert_array_equal(ops.unfold(x, [2], stride=(3,)).asnumpy(), ops.unfold(x, 2, stride=3).asnumpy())
    # fold's output_size: a Tensor as MindSpore's, or ints; inside jit the Tensor must be a constant
    cols = Tensor(np.ones((1, 4, 12), np.float32))
    want = ops.fold(cols, (4, 5), 2).asnumpy()
    np.testing.assert_array_equal(ops.fold(cols, [4, 5], 2).asnumpy(), want)
    size = Tensor(np.array([4, 5], np.int32))
    with pytest.raises(TypeError, match="'output_size' must be known when the graph is built"):
        ms.jit(lambda c, s: ops.fold(c, s, 2))(cols, size)


# -- nn.Unfold ---------------------------------------------------------------------------------------

def extract_image_patches(x, k, s, r, padding):
    """TensorFlow's ExtractImagePatches on NCHW, written out: out[n, (i*kc + j)*C + c, y, x]."""
    n, c, h, w = x.shape
    eff = [(k[a] - 1) * r[a] + 1 for a in range(2)]
    if padding == "same":
        out = [-(-size // s[a]) for a, size in enumerate((h, w))]
        total = [max((out[a] - 1) * s[a] + eff[a] - size, 0) for a, size in enumerate((h, w))]
        x = np.pad(x, ((0, 0), (0, 0), (total[0] // 2, total[0] - total[0] // 2),
                       (total[1] // 2, total[1] - total[1] // 2)))
    else:
        out = [(size - eff[a]) // s[a] + 1 for a, size in enumerate((h, w))]
    y = np.zeros((n, k[0] * k[1] * c, out[0], out[1]), x.dtype)
    for i in range(k[0]):
        for j in range(k[1]):
            for ch in range(c):
                y[:, (i * k[1] + j) * c + ch] = x[:, ch, i * r[0]::s[0], j * r[1]::s[1]][:, :out[0], :out[1]]
    return y


@pytest.mark.parametrize("k, s, r, padding", [((2, 2), (1, 1), (1, 1), "valid"), ((2, 3), (1, 2), (2, 1), "valid"),
                                              ((3, 3), (2, 2), (1, 1), "same"), ((2, 2), (3, 2), (1, 2), "SAME")])
def test_nn_unfold_is_tensorflows_extract_image_patches(k, s, r, padding):
    x = RNG.standard_normal((2, 3, 5, 6)).astype(np.float32)
    layer = nn.Unfold([1, *k, 1], [1, *s, 1], (1, *r, 1), padding)
    want = extract_image_patches(x, k, s, r, padding.lower())
    for got in run_all(layer, x):
        np.testing.assert_array_equal(got, want)
    w = RNG.standard_normal(want.shape).astype(np.float32)
    leaf = torch.tensor(x, requires_grad=True)
    # the same patches by torch's unfold, reordered to (kernel position, channel)
    pads = [0, 0, 0, 0]
    if padding.lower() == "same":
        out = [-(-n // s[a]) for a, n in enumerate(x.shape[2:])]
        total = [max((out[a] - 1) * s[a] + (k[a] - 1) * r[a] + 1 - n, 0) for a, n in enumerate(x.shape[2:])]
        pads = [total[1] // 2, total[1] - total[1] // 2, total[0] // 2, total[0] - total[0] // 2]
    cols = TF.unfold(TF.pad(leaf, pads), k, dilation=r, stride=s)
    patches = cols.reshape(2, 3, k[0] * k[1], *want.shape[2:]).transpose(1, 2).reshape(want.shape)
    np.testing.assert_array_equal(patches.detach().numpy(), want)
    (patches * torch.tensor(w)).sum().backward()
    got = ms.grad(lambda t: ops.sum(layer(t) * Tensor(w)))(Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, leaf.grad.numpy(), rtol=1e-6, atol=1e-6)


def test_nn_unfold_arguments_as_mindspore():
    cases = [
        (dict(ksizes=[2, 2, 2, 1]), ValueError,
         r"For 'Unfold' the format of 'ksizes' must be \[1, ksize_row, ksize_col, 1\], but got \[2, 2, 2, 1\]"),
        (dict(ksizes=[1, 2, 2]), ValueError, "the format of 'ksizes' must be"),
        (dict(ksizes=[1, 0, 2, 1]), ValueError, "the ksize_row and ksize_col in 'ksizes' must be an positive integer "
                                                "number, but got ksize_row is 0, ksize_col is 2"),
        (dict(strides=[1, 1, 1, 2]), ValueError, r"the format of 'strides' must be \[1, stride_row, stride_col, 1\]"),
        (dict(rates=[1, 0, 1, 1]), ValueError, "rate_row is 0, rate_col is 1"),
        (dict(ksizes=2), TypeError, r"the type of 'ksizes' should be one of '\['tuple', 'list'\]', but got type 'int'"),
        (dict(padding=1), TypeError, "the input 'padding' should be a str"),
        (dict(padding="foo"), ValueError, "'padding' must be 'same' or 'valid'"),
    ]
    for kwargs, error, message in cases:
        args = dict(ksizes=[1, 2, 2, 1], strides=[1, 1, 1, 1], rates=[1, 1, 1, 1])
        args.update(kwargs)
        with pytest.raises(error, match=message):
            nn.Unfold(**args)
    layer = nn.Unfold([1, 2, 3, 1], [1, 1, 2, 1], [1, 2, 1, 1], "Same")
    assert (layer.ksizes, layer.strides, layer.rates, layer.padding) == ((2, 3), (1, 2), (2, 1), "same")
    with pytest.raises(ValueError, match=r"expected a 4-D input \[N, C, H, W\]"):
        layer(Tensor(np.ones((3, 5, 6), np.float32)))

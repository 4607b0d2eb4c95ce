"""ops.ExtractImagePatches, ops.Dilation2D and ops.DepthwiseConv2dNative: 2.10's CPU build runs
none of them, so values against numpy references of TensorFlow's kernels and torch; the
constructors' attributes and messages measured on MindSpore 2.10."""
import numpy as np
import pytest
import torch

import graphcell as ms
import graphcell.ops as ops
from graphcell import Tensor


def _tf_pads(size, k, s, d, same):
    if not same:
        return 0, (size - d * (k - 1) - 1) // s + 1
    out = -(-size // s)
    total = max((out - 1) * s + d * (k - 1) + 1 - size, 0)
    return total // 2, out


def _dilation_reference(x, f, stride, rate, same):
    """TensorFlow's dilation2d loop: positions outside x are left out of the max."""
    n, c, h, w = x.shape
    _, kh, kw = f.shape
    (top, oh), (left, ow) = _tf_pads(h, kh, stride[0], rate[0], same), _tf_pads(w, kw, stride[1], rate[1], same)
    out = np.full((n, c, oh, ow), -np.inf, np.float64)
    for b, ch, y, xx, i, j in np.ndindex(n, c, oh, ow, kh, kw):
        r, col = y * stride[0] + i * rate[0] - top, xx * stride[1] + j * rate[1] - left
        if 0 <= r < h and 0 <= col < w:
            out[b, ch, y, xx] = max(out[b, ch, y, xx], x[b, ch, r, col] + f[ch, i, j])
    return out


def _patches_reference(x, k, s, r, same):
    n, c, h, w = x.shape
    (top, oh), (left, ow) = _tf_pads(h, k[0], s[0], r[0], same), _tf_pads(w, k[1], s[1], r[1], same)
    out = np.zeros((n, k[0], k[1], c, oh, ow), x.dtype)
    for i, j, y, xx in np.ndindex(k[0], k[1], oh, ow):
        row, col = y * s[0] + i * r[0] - top, xx * s[1] + j * r[1] - left
        if 0 <= row < h and 0 <= col < w:
            out[:, i, j, :, y, xx] = x[:, :, row, col]
    return out.reshape(n, k[0] * k[1] * c, oh, ow)


DILATION_CASES = [((1, 1), (1, 1), "SAME"), ((2, 1), (1, 2), "same"), ((1, 2), (2, 1), "VALID")]


def test_dilation2d_table_matches_tensorflows_loop_with_its_gradient():
    rng = np.random.RandomState(0)
    x = rng.randn(2, 3, 5, 6).astype(np.float32)
    f = rng.randn(3, 2, 3).astype(np.float32)
    ops_ = [ops.Dilation2D(s, d, p) for s, d, p in DILATION_CASES]

    def table(a, b):
        return tuple(op(a, b) for op in ops_)
    got = ms.jit(table)(Tensor(x), Tensor(f))
    onnx = ms.jit(table, backend="onnx")(Tensor(x), Tensor(f))
    for (s, d, p), g, o in zip(DILATION_CASES, got, onnx):
        want = _dilation_reference(x, f, s, d, p.upper() == "SAME")
        np.testing.assert_allclose(g.asnumpy(), want, rtol=1e-6, err_msg=str((s, d, p)))
        np.testing.assert_allclose(o.asnumpy(), want, rtol=1e-6)
    # the gradient goes to each output's maximising input and filter entry: torch's amax over the same windows
    gx, gf = ms.jit(ms.grad(lambda a, b: ops_[1](a, b).sum(), (0, 1)))(Tensor(x), Tensor(f))
    tx, tf = torch.tensor(x, requires_grad=True), torch.tensor(f, requires_grad=True)
    _torch_dilation(tx, tf, (2, 1), (1, 2)).sum().backward()
    np.testing.assert_allclose(gx.asnumpy(), tx.grad.numpy(), atol=1e-6)
    np.testing.assert_allclose(gf.asnumpy(), tf.grad.numpy(), atol=1e-6)


def _torch_dilation(tx, tf, stride, rate):
    """'SAME' dilation in torch: -inf padding, one strided window per filter entry, amax."""
    (h, w), (kh, kw) = tx.shape[2:], tf.shape[1:]
    (top, oh), (left, ow) = _tf_pads(h, kh, stride[0], rate[0], True), _tf_pads(w, kw, stride[1], rate[1], True)
    bottom = (oh - 1) * stride[0] + rate[0] * (kh - 1) + 1 - h - top
    right = (ow - 1) * stride[1] + rate[1] * (kw - 1) + 1 - w - left
    padded = torch.nn.functional.pad(tx, (left, right, top, bottom), value=-float("inf"))
    taps = [padded[:, :, i * rate[0]::stride[0], j * rate[1]::stride[1]][:, :, :oh, :ow] + tf[None, :, i, j, None, None]
            for i in range(kh) for j in range(kw)]
    return torch.stack(taps).amax(0)


def test_extract_image_patches_matches_tensorflows_layout():
    rng = np.random.RandomState(1)
    x = rng.randn(1, 2, 5, 6).astype(np.float32)
    cases = [([1, 2, 3, 1], [1, 1, 2, 1], [1, 1, 1, 1], "VALID"), ((1, 3, 2, 1), (1, 2, 1, 1), (1, 1, 2, 1), "same")]
    ops_ = [ops.ExtractImagePatches(*c) for c in cases]
    got = ms.jit(lambda a: tuple(op(a) for op in ops_))(Tensor(x))
    for (k, s, r, p), g in zip(cases, got):
        want = _patches_reference(x, k[1:3], s[1:3], r[1:3], p.upper() == "SAME")
        np.testing.assert_array_equal(g.asnumpy(), want)
    assert ops_[1].padding == "SAME" and ops_[1].ksizes == (3, 2)


def test_depthwise_conv2d_native_is_torchs_grouped_conv():
    rng = np.random.RandomState(2)
    x = rng.randn(2, 3, 7, 7).astype(np.float32)
    w = rng.randn(1, 3, 3, 3).astype(np.float32)
    cases = [dict(), dict(pad_mode="pad", pad=(1, 0, 2, 0), dilation=2), dict(pad_mode="same", stride=2)]
    ops_ = [ops.DepthwiseConv2dNative(1, 3, **kw) for kw in cases]
    got = ms.jit(lambda a, b: tuple(op(a, b) for op in ops_))(Tensor(x), Tensor(w))
    tw = torch.tensor(w).reshape(3, 1, 3, 3)
    tx = torch.tensor(x)
    F = torch.nn.functional
    wants = [F.conv2d(tx, tw, groups=3), F.conv2d(F.pad(tx, (2, 0, 1, 0)), tw, dilation=2, groups=3),
             F.conv2d(F.pad(tx, (1, 1, 1, 1)), tw, stride=2, groups=3)]
    for g, want in zip(got, wants):
        np.testing.assert_allclose(g.asnumpy(), want.numpy(), atol=1e-5)
    # the shapes 2.10 infers (measured in a graph that returns only the shape: no kernel runs)
    assert [g.shape[2:] for g in got] == [(5, 5), (4, 5), (4, 4)]


# attributes and messages measured on MindSpore 2.10
def test_constructors_normalise_and_refuse_as_mindspore():
    d = ops.Dilation2D((2, 3), (1, 2), "valid")
    assert (d.stride, d.dilation, d.pad_mode) == ((1, 1, 2, 3), (1, 1, 1, 2), "VALID")
    w = ops.DepthwiseConv2dNative(2, 3)
    assert (w.kernel_size, w.stride, w.dilation, w.pad, w.pad_mode, w.mode) == (
        (3, 3), (1, 1, 1, 1), (1, 1, 1, 1), (0, 0, 0, 0), "valid", 3)
    assert ops.DepthwiseConv2dNative(1, 3, pad_mode="pad", pad=1).pad == (1, 1, 1, 1)
    cases = [
        (lambda: ops.ExtractImagePatches(2, [1, 1, 1, 1], [1, 1, 1, 1]), TypeError,
         r"For 'ExtractImagePatches', the type of 'ksizes' should be one of '\[list of int, tuple of int\]', but got "
         r"<class 'int'>"),
        (lambda: ops.ExtractImagePatches([1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], 1), TypeError,
         r"For 'ExtractImagePatches', the input 'padding' should be a str, but got <class 'int'>"),
        (lambda: ops.Dilation2D((1, 2, 3), 1), ValueError, r"For 'Dilation2D' attr 'stride' should be an positive int "
         r"number or a tuple of two or four positive int numbers, but got \(1, 2, 3\)"),
        (lambda: ops.Dilation2D([1, 1], 1), TypeError,
         r"For 'Dilation2D', the type of 'stride' should be one of '\['int', 'tuple'\]', but got type 'list'"),
        (lambda: ops.Dilation2D((2, 1, 2, 3), 1), ValueError, r"should be \[1, 1, stride_height, stride_weigth\]when "
         r"data_format is 'NCHW', but got \(2, 1, 2, 3\)"),
        (lambda: ops.Dilation2D(1, 0), ValueError, r"attr 'dilation' should be an positive int number"),
        (lambda: ops.Dilation2D(1, 1, "full"), ValueError, r"the 'pad_mode' must be str and must be in "
         r"'\['VALID', 'SAME', 'valid', 'same'\]', but got 'full'"),
        (lambda: ops.Dilation2D(1, 1, data_format="NHWC"), ValueError, "NHWC format is not supported at present"),
        (lambda: ops.DepthwiseConv2dNative(0, 3), ValueError,
         r"the 'channel_multiplier' must be int and must > 0, but got '0' with type 'int'"),
        (lambda: ops.DepthwiseConv2dNative(1, 3, mode=1), ValueError, r"the 'mode' must be int and must = 3, but got '1'"),
        (lambda: ops.DepthwiseConv2dNative(1, 3, pad=1), ValueError, r"the 'pad' must be zero or \(0, 0, 0, 0\) when "
         r"'pad_mode' is not \"pad\", but got 'pad' is 1 and 'pad_mode' is valid"),
        (lambda: ops.DepthwiseConv2dNative(1, 3, pad_mode="full"), ValueError,
         r"the 'pad_mode' must be str and must be in '\['valid', 'same', 'pad'\]', but got 'full'"),
        (lambda: ops.DepthwiseConv2dNative(1, (3, 2), stride=(2, 1)), ValueError,
         r"The height and width of 'stride' must be equal,but got height:2,  width:1"),
        (lambda: ops.DepthwiseConv2dNative(1, 0), ValueError, r"For 'DepthwiseConv2dNative' attr 'kernel_size' must be "
         r"an positive int number or a tuple of two positive int numbers, but got 0"),
        (lambda: ops.DepthwiseConv2dNative(1, 3)(Tensor(np.ones((1, 2, 5, 5), np.float32)),
                                                 Tensor(np.ones((2, 2, 3, 3), np.float32))),
         ValueError, r"the batch of 'weight' must be 1, but got 2"),
        (lambda: ops.DepthwiseConv2dNative(2, 3)(Tensor(np.ones((1, 2, 5, 5), np.float32)),
                                                 Tensor(np.ones((1, 4, 3, 3), np.float32))),
         ValueError, r"the 'x_shape\[1\]' should be = w_shape\[1\]: 4, but got 2"),
        (lambda: ops.DepthwiseConv2dNative(1, 3)(Tensor(np.ones((1, 2, 5, 5), np.float32)),
                                                 Tensor(np.ones((1, 2, 2, 2), np.float32))),
         ValueError, r"the 'kernel_size' should be = w_shape\[2:4\]: \(2, 2\), but got \(3, 3\)"),
        (lambda: ops.DepthwiseConv2dNative(2, 3)(Tensor(np.ones((1, 2, 5, 5), np.float32)),
                                                 Tensor(np.ones((1, 2, 3, 3), np.float32))),
         ValueError, r"channel_multiplier 2 has no defined values"),
    ]
    for call, kind, message in cases:
        with pytest.raises(kind, match=message):
            call()

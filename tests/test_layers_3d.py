"""The 3-D layers and the pooling and shrink additions: nn.Conv3d, nn.Conv3dTranspose, ops.conv3d,
ops.conv3d_transpose, nn.MaxPool3d, nn.AvgPool3d, nn.BatchNorm3d, ops.max_pool2d, ops.max_pool3d,
ops.avg_pool3d, MaxPool1d/MaxPool2d's dilation and return_indices, nn.HShrink, nn.SoftShrink and
ops.hardshrink / ops.softshrink, against torch (values and autograd), jax (the batch rules), loops
over an ensemble's members, and each other across eager, XLA and onnxruntime.

MindSpore 2.10's signatures, initial values, output shapes, messages and the values where it
parts from torch are literals measured on it (CPU build). What was measured there and holds here
through torch: its 3-D convolutions are torch's with MindSpore's pad modes, and
Conv3dTranspose's output_padding computes values (torch's; Conv2dTranspose's appends zeros); its
pools are torch's, indices flat within each plane (L, H*W or D*H*W) and the first maximum among
equals; AvgPool3d's 'same' mode counts the padding in the divisor when count_include_pad
(AvgPool2d's never does).
"""
import inspect

import jax
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import graphcell as ms
from graphcell import Tensor, nn, ops
from graphcell.ops import nn_prims
from tests.modes import call

RNG = np.random.default_rng(11)


def randn(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def t(a):
    return torch.from_numpy(np.asarray(a))


def _params(fn):
    return [(p.name, p.default) for p in inspect.signature(fn).parameters.values() if p.name != "self"]


E = inspect._empty


def test_signatures_are_mindspores():
    """Names and defaults as inspect.signature shows them on MindSpore 2.10 (dtype: a graphcell
    dtype name). Note Conv3dTranspose's output_padding after group, unlike Conv2dTranspose's."""
    conv = [("in_channels", E), ("out_channels", E), ("kernel_size", E), ("stride", 1), ("pad_mode", "same"),
            ("padding", 0), ("dilation", 1), ("group", 1)]
    tail = [("has_bias", False), ("weight_init", None), ("bias_init", None), ("data_format", "NCDHW"),
            ("dtype", "float32")]
    assert _params(nn.Conv3d.__init__) == conv + tail
    assert _params(nn.Conv3dTranspose.__init__) == conv + [("output_padding", 0)] + tail
    assert _params(nn.MaxPool3d.__init__) == [("kernel_size", 1), ("stride", 1), ("pad_mode", "valid"), ("padding", 0),
                                              ("dilation", 1), ("return_indices", False), ("ceil_mode", False)]
    assert _params(nn.AvgPool3d.__init__) == [("kernel_size", 1), ("stride", 1), ("pad_mode", "valid"), ("padding", 0),
                                              ("ceil_mode", False), ("count_include_pad", True),
                                              ("divisor_override", None)]
    assert _params(nn.BatchNorm3d.__init__) == [
        ("num_features", E), ("eps", 1e-5), ("momentum", 0.9), ("affine", True), ("gamma_init", "ones"),
        ("beta_init", "zeros"), ("moving_mean_init", "zeros"), ("moving_var_init", "ones"),
        ("use_batch_statistics", None), ("dtype", "float32")]
    assert _params(nn.HShrink.__init__) == _params(nn.SoftShrink.__init__) == [("lambd", 0.5)]
    # ops.* are held to MindSpore's recorded signatures by tests/test_ops_signatures.py
    assert _params(ops.conv3d_transpose) == [("inputs", E), ("weight", E), ("pad_mode", "valid"), ("padding", 0),
                                             ("stride", 1), ("dilation", 1), ("group", 1), ("output_padding", 0)]
    assert _params(Tensor.hardshrink) == [("lambd", 0.5)]
    assert not hasattr(Tensor, "softshrink")   # MindSpore 2.10's Tensor has none


# -- convolutions: MindSpore's parameters, torch's values ----------------------------------------------

def test_initial_parameters_are_mindspores_bit_for_bit():
    """After set_seed(5), as MindSpore 2.10 drew them: HeUniform(sqrt 5) weights, U(+-1/sqrt(fan_in))
    biases with fan_in from the stored weight ((out/group)*k for the transposed layer)."""
    ms.set_seed(5)
    conv = nn.Conv3d(4, 6, (3, 2, 2), has_bias=True, group=2)
    deconv = nn.Conv3dTranspose(4, 6, (2, 3, 2), has_bias=True, group=2)
    assert [(p.name, p.shape) for p in conv.get_parameters()] == [("weight", (6, 2, 3, 2, 2)), ("bias", (6,))]
    assert [(p.name, p.shape) for p in deconv.get_parameters()] == [("weight", (4, 3, 2, 3, 2)), ("bias", (6,))]
    measured = [  # first four values and the last, printed by MindSpore 2.10
        (conv.weight, [-0.060458943, 0.18123522, 0.080359235, -0.158203], -0.025898848),
        (conv.bias, [0.17273365, 0.08529361, -0.04414748, -0.0530802], -0.045596052),
        (deconv.weight, [0.069648534, 0.16453001, 0.13692594, -0.1163868], -0.052552417),
        (deconv.bias, [0.010965251, -0.044167385, 0.017909244, -0.04098841], -0.16404289)]
    for param, first, last in measured:
        flat = param.asnumpy().ravel()
        np.testing.assert_allclose(flat[:4], first, rtol=2e-7)
        np.testing.assert_allclose(flat[-1], last, rtol=2e-7)


def _same(size, k, s, d):
    out = -(-size // s)
    total = max((out - 1) * s + d * (k - 1) + 1 - size, 0)
    return total // 2, total - total // 2


def torch_conv3d(x, w, b, stride, pads, dilation, groups):
    """torch's conv3d of x padded by ((lo, hi),) * 3."""
    flat = [v for lo_hi in reversed(pads) for v in lo_hi]
    return TF.conv3d(TF.pad(t(x), flat), t(w), None if b is None else t(b), stride, 0, dilation, groups).numpy()


def torch_transposed3d(x, w, b, stride, pad_mode, pads, dilation, group, output_padding=(0, 0, 0)):
    """MindSpore's transposed 3-D convolution from torch's full conv_transpose3d (padding 0):
    the lengths of MindSpore's pad modes plus output_padding, cropped as the convolution with the
    same arguments pads, zeros past the full output."""
    full = TF.conv_transpose3d(t(x), t(w), None, stride, 0, 0, group, dilation).numpy()
    sizes = [h * s + max(d * (k - 1) + 1 - s, 0) if pad_mode == "valid" else h * s if pad_mode == "same"
             else h * s - lo - hi + d * (k - 1) + 1 - s
             for h, k, s, d, (lo, hi) in zip(x.shape[2:], w.shape[2:], stride, dilation, pads)]
    crops = [0 if pad_mode == "valid" else _same(n, k, s, d)[0] if pad_mode == "same" else lo
             for n, k, s, d, (lo, _) in zip(sizes, w.shape[2:], stride, dilation, pads)]
    sizes = [n + o for n, o in zip(sizes, output_padding)]
    out = np.zeros(full.shape[:2] + tuple(sizes), np.float32)
    part = full[:, :, crops[0]:crops[0] + sizes[0], crops[1]:crops[1] + sizes[1], crops[2]:crops[2] + sizes[2]]
    out[:, :, :part.shape[2], :part.shape[3], :part.shape[4]] = part
    return out if b is None else out + b.reshape(1, -1, 1, 1, 1)


def three(v):
    return (v,) * 3 if isinstance(v, int) else tuple(v)


def _pairs(padding):
    p = (padding,) * 6 if isinstance(padding, int) else padding
    return [p[0:2], p[2:4], p[4:6]]


# kwargs of Conv3d(4, 6, kernel, ...) / Conv3dTranspose over x [2, 4, 5, 6, 7], and the output
# shape MindSpore 2.10 gave for each
CONV3D = [
    (3, dict(has_bias=True), (2, 6, 5, 6, 7)),
    (3, dict(stride=(1, 2, 3), dilation=(2, 1, 1), has_bias=True), (2, 6, 5, 3, 3)),
    (3, dict(pad_mode="valid", stride=2, group=2), (2, 6, 2, 2, 3)),
    (3, dict(pad_mode="pad", padding=(1, 0, 2, 1, 0, 1), dilation=(1, 2, 1)), (2, 6, 4, 5, 6)),
]
CONV3D_TRANSPOSE = [
    (3, dict(has_bias=True), (2, 6, 5, 6, 7)),
    (3, dict(stride=(1, 2, 3), has_bias=True, group=2), (2, 6, 5, 12, 21)),
    (3, dict(pad_mode="valid", stride=2), (2, 6, 11, 13, 15)),
    ((3, 2, 2), dict(pad_mode="valid", stride=(1, 3, 3)), (2, 6, 7, 18, 21)),   # kernel shorter than the stride
    (3, dict(pad_mode="pad", padding=(1, 0, 2, 1, 0, 1), stride=2), (2, 6, 10, 10, 14)),
    (3, dict(pad_mode="pad", padding=1, stride=2, output_padding=1, has_bias=True), (2, 6, 10, 12, 14)),
    (3, dict(pad_mode="pad", padding=1, stride=(2, 3, 2), output_padding=(1, 2, 0)), (2, 6, 10, 18, 13)),
    (3, dict(dilation=(1, 2, 2), stride=(1, 2, 1)), (2, 6, 5, 12, 7)),
]


def _conv_reference(layer, x):
    w, b = layer.weight.asnumpy(), None if layer.bias is None else layer.bias.asnumpy()
    mode = layer.pad_mode.lower()
    if isinstance(layer, nn.Conv3dTranspose):
        return torch_transposed3d(x, w, b, layer.stride, mode, _pairs(layer.padding), layer.dilation, layer.group,
                                  layer.output_padding)
    pads = [_same(n, k, s, d) for n, k, s, d in zip(x.shape[2:], w.shape[2:], layer.stride, layer.dilation)] \
        if mode == "same" else _pairs(layer.padding)
    return torch_conv3d(x, w, b, layer.stride, pads, layer.dilation, layer.group)


@pytest.mark.parametrize("mode", ["jit", "onnx"])
def test_conv3d_layers_match_torch_with_mindspores_shapes(mode):
    x = randn(2, 4, 5, 6, 7)
    layers, shapes = [], []
    for cls, table in ((nn.Conv3d, CONV3D), (nn.Conv3dTranspose, CONV3D_TRANSPOSE)):
        for kernel, kwargs, shape in table:
            layers.append(cls(4, 6, kernel, bias_init="normal" if kwargs.get("has_bias") else None, **kwargs))
            shapes.append(shape)
    got = call(lambda a: tuple(layer(a) for layer in layers), mode, x)
    for layer, shape, out in zip(layers, shapes, got):
        assert out.shape == shape, layer
        np.testing.assert_allclose(out, _conv_reference(layer, x), atol=2e-5, rtol=1e-5, err_msg=str(layer))


def test_eager_calls_compute_what_jit_does():
    """One case of each new form op by op (the tables above run under jit and onnxruntime)."""
    fns = [nn.Conv3dTranspose(2, 3, 3, stride=2, pad_mode="pad", padding=1, output_padding=1, has_bias=True),
           nn.Conv3d(2, 4, 2, stride=(1, 2, 1), group=2),
           nn.MaxPool3d(3, 2, "pad", 1, (1, 2, 1), return_indices=True, ceil_mode=True),
           nn.AvgPool3d(3, 2, "same", count_include_pad=False),
           lambda a: ops.max_pool2d(a[:, :, 0], 2, 1, 1, 2, True)]
    x = randn(1, 2, 4, 5, 4)
    as_tuple = lambda v: v if isinstance(v, tuple) else (v,)  # noqa: E731
    for f in fns:
        for e, j in zip(as_tuple(call(f, "eager", x)), as_tuple(call(f, "jit", x))):
            assert e.dtype == j.dtype
            np.testing.assert_allclose(e, j, atol=1e-6, err_msg=str(f))


def test_output_padding_computes_values_as_torch():
    """MindSpore 2.10's Conv3dTranspose extends the output with computed elements, torch's
    conv_transpose3d(padding, output_padding) exactly (Conv2dTranspose appends zeros)."""
    layer = nn.Conv3dTranspose(4, 3, 3, stride=(2, 3, 2), pad_mode="pad", padding=1, output_padding=(1, 2, 0))
    x = randn(1, 4, 3, 3, 3)
    expected = TF.conv_transpose3d(t(x), t(layer.weight.asnumpy()), None, (2, 3, 2), 1, (1, 2, 0)).numpy()
    got = layer(Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, expected, atol=1e-5)
    assert np.abs(got[:, :, -1]).max() > 0.1


@pytest.mark.parametrize("mode", ["jit", "onnx"])
def test_ops_conv3d_and_conv3d_transpose_match_torch(mode):
    x, w, b, wt = randn(2, 4, 5, 6, 7), randn(6, 2, 3, 2, 3), randn(6), randn(4, 3, 3, 2, 3)
    fns = [lambda a: ops.conv3d(a, Tensor(w), Tensor(b), groups=2),
           lambda a: ops.conv3d(a, Tensor(w), None, 2, "same", 0, (1, 2, 1), 2),
           lambda a: ops.conv3d(a, Tensor(w), Tensor(b), 1, "pad", (1, 0, 2), 1, 2),
           lambda a: ops.conv3d_transpose(a, Tensor(wt)),
           lambda a: ops.conv3d_transpose(a, Tensor(wt), "same", 0, 2),
           lambda a: ops.conv3d_transpose(a, Tensor(wt), "pad", (1, 0, 1, 1, 0, 1), (2, 1, 2)),
           lambda a: ops.conv3d_transpose(a, Tensor(wt), "pad", 1, (2, 3, 2), (1, 2, 2), 1, (1, 2, 0))]
    same = [_same(n, k, 2, d) for n, k, d in zip(x.shape[2:], w.shape[2:], (1, 2, 1))]
    expected = [torch_conv3d(x, w, b, 1, [(0, 0)] * 3, 1, 2),
                torch_conv3d(x, w, None, 2, same, (1, 2, 1), 2),
                torch_conv3d(x, w, b, 1, [(1, 1), (0, 0), (2, 2)], 1, 2),
                torch_transposed3d(x, wt, None, (1, 1, 1), "valid", [(0, 0)] * 3, (1, 1, 1), 1),
                torch_transposed3d(x, wt, None, (2, 2, 2), "same", [(0, 0)] * 3, (1, 1, 1), 1),
                torch_transposed3d(x, wt, None, (2, 1, 2), "pad", [(1, 0), (1, 1), (0, 1)], (1, 1, 1), 1),
                TF.conv_transpose3d(t(x), t(wt), None, (2, 3, 2), 1, (1, 2, 0), 1, (1, 2, 2)).numpy()]
    shapes = [(2, 6, 3, 5, 5), (2, 6, 3, 3, 4), (2, 6, 5, 5, 9), (2, 3, 7, 7, 9), (2, 3, 10, 12, 14),
              (2, 3, 10, 5, 14), None]   # MindSpore 2.10's
    got = call(lambda a: tuple(f(a) for f in fns), mode, x)
    for i, (g, e, shape) in enumerate(zip(got, expected, shapes)):
        assert shape is None or g.shape == shape, i
        np.testing.assert_allclose(g, e, atol=3e-5, rtol=1e-5, err_msg=str(i))


@pytest.mark.parametrize("make, error, match", [   # MindSpore 2.10's messages
    (lambda: nn.Conv3d(4, 6, (3, 3)), ValueError,
     r"For 'Conv3d', the parameter 'kernel_size' must be an positive integer or a tuple of three positive"),
    (lambda: nn.Conv3d(4, 6, 3, stride=0), ValueError, r"'stride' must be an positive integer .* \(0, 0, 0\)"),
    (lambda: nn.Conv3d(4, 6, True), TypeError, r"the type of 'kernel_size' should be one of '\['int', 'tuple'\]'"),
    (lambda: nn.Conv3d(4, 6, 3, pad_mode="pad", padding=(1, 1, 1)), ValueError, "'padding size' must be int and must = 6"),
    (lambda: nn.Conv3d(4, 6, 3, pad_mode="pad", padding=-1), ValueError, "'padding' must be int and must >= 0"),
    (lambda: nn.Conv3d(4, 6, 3, pad_mode="pad", padding=[1] * 6), TypeError, "the type of 'padding' should be"),
    (lambda: nn.Conv3d(4, 6, 3, padding=1), ValueError,
     "For 'Conv3D', the 'pad' must be zero or \\(0, 0, 0, 0, 0, 0\\) when 'pad_mode' is not \"pad\""),
    (lambda: nn.Conv3d(4, 6, 3, pad_mode="full"), ValueError, r"must be in '\['valid', 'same', 'pad'\]', but got 'full'"),
    (lambda: nn.Conv3d(4, 6, 3, group=4), ValueError, "'group' should be divisible by 'in_channels' and 'out_channels'"),
    (lambda: nn.Conv3d(4, 6, 3, data_format="NDHWC"), ValueError, "data_format='NCDHW'"),
    (lambda: nn.Conv3dTranspose(4, 6, 3, dilation=2), ValueError,
     "For 'Conv3DTranspose', the depth of parameter 'dilation' must be 1, but got 2."),
    (lambda: nn.Conv3dTranspose(4, 6, 3, stride=2, output_padding=1), ValueError,
     r"the 'output_padding' must be zero or \(0, 0, 0\) when 'pad_mode' is not \"pad\""),
    (lambda: nn.Conv3dTranspose(4, 6, 3, stride=2, pad_mode="pad", output_padding=2), ValueError,
     r"'output_padding_d belonging \[0, max\(stride_d, dilation_d\)\)' must be in range of \[0, 2\), but got 2"),
    (lambda: nn.Conv3dTranspose(4, 6, 3, stride=2, pad_mode="pad", output_padding=-1), ValueError,
     "'output_padding' must be an non-negative integer"),
    (lambda: nn.Conv3d(4, 6, 3)(Tensor(randn(2, 4, 5, 6))), ValueError, r"expected a 5-D input \[N, C, D, H, W\]"),
    (lambda: nn.Conv3dTranspose(4, 6, 3)(Tensor(randn(1, 3, 4, 4, 4))), ValueError, "in_channels=4"),
    (lambda: nn.Conv3d(4, 6, 3, pad_mode="valid")(Tensor(randn(1, 4, 2, 4, 4))), ValueError, "smaller than the kernel"),
    (lambda: ops.conv3d(Tensor(randn(1, 4, 4, 4, 4)), Tensor(randn(6, 4, 2, 2))), ValueError,
     "the weight must be a 5D Tensor"),
    (lambda: ops.conv3d(Tensor(randn(1, 4, 4, 4, 4)), Tensor(randn(6, 2, 2, 2, 2)), groups=3), ValueError,
     "'groups' should be divisible by 'in_channel' and 'out_channel'"),
    (lambda: ops.conv3d(Tensor(randn(1, 4, 4, 4, 4)), Tensor(randn(6, 4, 2, 2, 2)), pad_mode="pad",
                        padding=(1,) * 6), ValueError, "padding must be a tuple/list with 3 elements or int"),
    (lambda: ops.conv3d_transpose(Tensor(randn(1, 4, 4, 4, 4)), Tensor(randn(4, 2, 2, 2, 2)), "pad", (1, 0, 1)),
     ValueError, "attr 'pad' must be an positive int number or a tuple of six positive int numbers"),
    (lambda: ops.conv3d_transpose(Tensor(randn(1, 4, 4, 4, 4)), Tensor(randn(4, 2, 2, 2, 2)), "pad", 0, 1, 2),
     ValueError, "the depth of parameter 'dilation' must be 1"),
])
def test_bad_convolution_arguments_raise_mindspores_errors(make, error, match):
    with pytest.raises(error, match=match):
        make()


def _torch_grads(fn, *arrays):
    ts = [t(a).requires_grad_() for a in arrays]
    fn(*ts).sum().backward()
    return [a.grad.numpy() for a in ts]


@pytest.mark.parametrize("mode", ["jit", "onnx"])
def test_gradients_match_torch_autograd(mode):
    """Input, weight and bias gradients (the loss: sum of out * a fixed cotangent)."""
    x, w, b, c = randn(2, 4, 4, 5, 4), randn(6, 2, 3, 2, 3), randn(6), randn(2, 6, 2, 5, 4)
    f = lambda x, w, b, c: (ops.conv3d(x, w, b, (2, 1, 1), "pad", 1, (1, 2, 1), 2) * c).sum()  # noqa: E731
    tf = lambda x, w, b: TF.conv3d(x, w, b, (2, 1, 1), 1, (1, 2, 1), 2) * t(c)  # noqa: E731
    xt, wt, ct = randn(2, 4, 3, 3, 2), randn(4, 3, 3, 2, 3), randn(2, 3, 6, 8, 3)
    g = lambda x, w, c: (ops.conv3d_transpose(x, w, "pad", 1, (2, 3, 2), 1, 1, (1, 2, 0)) * c).sum()  # noqa: E731
    tg = lambda x, w: TF.conv_transpose3d(x, w, None, (2, 3, 2), 1, (1, 2, 0)) * t(ct)  # noqa: E731
    for fn, tfn, arrays, cot in [(f, tf, (x, w, b), c), (g, tg, (xt, wt), ct)]:
        expected = _torch_grads(tfn, *arrays)
        got = call(ms.grad(fn, grad_position=tuple(range(len(arrays)))), mode, *arrays, cot)
        for e, gv in zip(expected, got):
            np.testing.assert_allclose(gv, e, atol=1e-4, rtol=1e-4)


# -- vmap: ensembles of 3-D convolutions -------------------------------------------------------------

def _members(n=3):
    return [nn.SequentialCell([nn.Conv3d(2, 4, 3, stride=2, pad_mode="pad", padding=1, has_bias=True, group=2),
                               nn.ReLU(),
                               nn.Conv3dTranspose(4, 2, 2, stride=2, has_bias=True)]) for _ in range(n)]


@pytest.mark.parametrize("mode, strategy", [("eager", None), ("eager", "grouped"), ("eager", "unrolled"),
                                            ("onnx", None), ("onnx", "grouped")])
def test_an_ensemble_matches_a_loop_over_its_members(mode, strategy):
    """The convolutions' batch strategies over 3 spatial axes: one shared input (XLA: wide by
    default) and per-member inputs."""
    members = _members()
    x, xs = randn(2, 2, 4, 4, 4), randn(3, 2, 2, 4, 4, 4)
    expected = (np.stack([m(Tensor(x)).asnumpy() for m in members]),
                np.stack([m(Tensor(xs[i])).asnumpy() for i, m in enumerate(members)]))
    for in_axes, arr, e in zip((None, 0), (x, xs), expected):
        ens = ms.vmap(nn.CellList(members), in_axes=in_axes, conv_strategy=strategy)
        np.testing.assert_allclose(call(ens, mode, arr), e, atol=1e-5, rtol=1e-5, err_msg=f"in_axes={in_axes}")


@pytest.mark.parametrize("strategy, axes", [("grouped", (1, 0)), ("wide", (None, 0)), ("unrolled", (0, 0)),
                                             (None, (0, None))])
def test_conv_batch_rules_over_three_spatial_axes_match_jax_vmap(strategy, axes):
    conv = dict(strides=(1, 2, 1), padding=((1, 0), (0, 1), (1, 1)), lhs_dilation=(1, 1, 1),
                rhs_dilation=(1, 1, 2), groups=2, batch_groups=1)
    x, w = randn(3, 2, 4, 4, 5, 5), randn(3, 6, 2, 2, 3, 2)      # [N, B, C, ...], [N, O, C/g, ...]
    a = x[0] if axes[0] is None else np.moveaxis(x, 0, axes[0])
    b = w[0] if axes[1] is None else w
    for prim, attrs, lhs, rhs in [(nn_prims.conv, conv, a, b)]:
        expected = jax.jit(jax.vmap(lambda p, q: prim.impl(p, q, **attrs), in_axes=axes))(lhs, rhs)
        got = ms.vmap(lambda p, q: prim.bind(p, q, **attrs), in_axes=axes, conv_strategy=strategy)(Tensor(lhs), Tensor(rhs))
        np.testing.assert_allclose(got.asnumpy(), expected, atol=2e-5, rtol=2e-5)
    transpose = dict(lhs_shape=(5, 8, 7), strides=(1, 2, 2), padding=((1, 0), (0, 1), (1, 1)),
                     rhs_dilation=(1, 1, 1), groups=2)
    ct, wt = randn(3, 2, 4, 5, 4, 4), randn(3, 4, 3, 2, 2, 2)    # [N, B, I, ...], [N, I, O/g, ...]
    a = ct[0] if axes[0] is None else np.moveaxis(ct, 0, axes[0])
    b = wt[0] if axes[1] is None else wt
    expected = jax.jit(jax.vmap(lambda p, q: nn_prims.conv_transpose.impl(p, q, **transpose), in_axes=axes))(a, b)
    got = ms.vmap(lambda p, q: nn_prims.conv_transpose.bind(p, q, **transpose), in_axes=axes,
                  conv_strategy=strategy)(Tensor(a), Tensor(b))
    np.testing.assert_allclose(got.asnumpy(), expected, atol=2e-5, rtol=2e-5)


def test_weight_gradients_under_vmap_match_jax():
    def loss(w, x):
        return (ops.conv3d(x, w, None, 2, "pad", 1) ** 2).sum()

    def ref(w, x):
        return (jax.lax.conv_general_dilated(x, w, (2, 2, 2), [(1, 1)] * 3) ** 2).sum()

    ws, xs = randn(2, 3, 2, 2, 2, 3), randn(2, 2, 2, 4, 5, 4)
    got = ms.vmap(ms.grad(loss, grad_position=(0, 1)))(Tensor(ws), Tensor(xs))
    expected = jax.jit(jax.vmap(jax.grad(ref, argnums=(0, 1))))(ws, xs)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g.asnumpy(), e, atol=1e-4, rtol=1e-4)


# -- pooling ----------------------------------------------------------------------------------------

def torch_same_pool(x, k, s, pool, **kw):
    """A 'same' pool: x padded as Conv3d's 'same' (the odd element after), with -inf for max."""
    pads = [_same(n, k, s, 1) for n in x.shape[2:]]
    flat = [v for lo_hi in reversed(pads) for v in lo_hi]
    value = -np.inf if pool is TF.max_pool3d else 0.0
    return pool(TF.pad(t(x), flat, value=value), k, s, **kw).numpy()


def _real_counts(x, k, s):
    """Each 'same' window's real elements (count_include_pad=False)."""
    pads = [_same(n, k, s, 1) for n in x.shape[2:]]
    flat = [v for lo_hi in reversed(pads) for v in lo_hi]
    return TF.avg_pool3d(TF.pad(torch.ones(x.shape), flat), k, s, divisor_override=1).numpy()


# (layer, reference over the input, MindSpore 2.10's output shape for x [2, 3, 5, 6, 7])
def pool_cases():
    return [
        (nn.MaxPool3d(2), lambda x: TF.max_pool3d(t(x), 2, 1).numpy(), (2, 3, 4, 5, 6)),
        (nn.MaxPool3d(3, 2, "same"), lambda x: torch_same_pool(x, 3, 2, TF.max_pool3d), (2, 3, 3, 3, 4)),
        (nn.MaxPool3d(3, 2, "pad", (1, 0, 1)), lambda x: TF.max_pool3d(t(x), 3, 2, (1, 0, 1)).numpy(), (2, 3, 3, 2, 4)),
        (nn.MaxPool3d(3, 2, "pad", 1, ceil_mode=True), lambda x: TF.max_pool3d(t(x), 3, 2, 1, ceil_mode=True).numpy(),
         (2, 3, 3, 4, 4)),
        (nn.MaxPool3d(2, 1, "pad", dilation=(2, 1, 2)), lambda x: TF.max_pool3d(t(x), 2, 1, 0, (2, 1, 2)).numpy(),
         (2, 3, 3, 5, 5)),
        (nn.MaxPool3d(3, (1, 2, 2), "pad", 1, (1, 1, 2), return_indices=True, ceil_mode=True),
         lambda x: tuple(v.numpy() for v in TF.max_pool3d(t(x), 3, (1, 2, 2), 1, (1, 1, 2), True, True)),
         (2, 3, 5, 4, 3)),
        (nn.AvgPool3d(2), lambda x: TF.avg_pool3d(t(x), 2, 1).numpy(), (2, 3, 4, 5, 6)),
        # 'same' counts the padding when count_include_pad (the kernel's 27: measured), not without
        (nn.AvgPool3d(3, 2, "same"), lambda x: torch_same_pool(x, 3, 2, TF.avg_pool3d), (2, 3, 3, 3, 4)),
        (nn.AvgPool3d(3, 2, "same", count_include_pad=False),
         lambda x: torch_same_pool(x, 3, 2, TF.avg_pool3d, divisor_override=1) / _real_counts(x, 3, 2), (2, 3, 3, 3, 4)),
        (nn.AvgPool3d(3, 2, "pad", (1, 0, 1)), lambda x: TF.avg_pool3d(t(x), 3, 2, (1, 0, 1)).numpy(), (2, 3, 3, 2, 4)),
        (nn.AvgPool3d(3, 2, "pad", 1, ceil_mode=True, count_include_pad=False),
         lambda x: TF.avg_pool3d(t(x), 3, 2, 1, True, False).numpy(), (2, 3, 3, 4, 4)),
        (nn.AvgPool3d(2, 2, ceil_mode=True), lambda x: TF.avg_pool3d(t(x), 2, 2, ceil_mode=True).numpy(), (2, 3, 3, 3, 4)),
        (nn.AvgPool3d(3, 2, "pad", 1, divisor_override=5),
         lambda x: TF.avg_pool3d(t(x), 3, 2, 1, divisor_override=5).numpy(), (2, 3, 3, 3, 4)),
        (lambda a: ops.max_pool3d(a, 3, 2, 1, (1, 2, 1), True, True),
         lambda x: tuple(v.numpy() for v in TF.max_pool3d(t(x), 3, 2, 1, (1, 2, 1), True, True)), (2, 3, 3, 3, 4)),
        (lambda a: ops.max_pool3d(a, 2), lambda x: TF.max_pool3d(t(x), 2).numpy(), (2, 3, 2, 3, 3)),
        (lambda a: ops.avg_pool3d(a, 3, 2, 1, True, False), lambda x: TF.avg_pool3d(t(x), 3, 2, 1, True, False).numpy(),
         (2, 3, 3, 4, 4)),
        (lambda a: ops.avg_pool3d(a, 3, 2, (1, 0, 1, 1, 0, 1)),   # (head, tail, top, bottom, left, right)
         lambda x: TF.avg_pool3d(TF.pad(t(x), (0, 1, 1, 1, 1, 0)), 3, 2).numpy(), (2, 3, 2, 3, 3)),
        (lambda a: ops.avg_pool3d(a, 3, 2, 1, False, True, 4),
         lambda x: TF.avg_pool3d(t(x), 3, 2, 1, divisor_override=4).numpy(), (2, 3, 3, 3, 4)),
    ]


@pytest.mark.parametrize("mode", ["jit", "onnx"])
def test_3d_pools_match_torch_with_mindspores_shapes(mode):
    x = randn(2, 3, 5, 6, 7)
    cases = pool_cases()
    got = call(lambda a: tuple(layer(a) for layer, _, _ in cases), mode, x)
    for i, ((_, reference, shape), out) in enumerate(zip(cases, got)):
        expected = reference(x)
        outs, wants = (out, expected) if isinstance(expected, tuple) else ((out,), (expected,))
        assert outs[0].shape == shape, i
        for o, e in zip(outs, wants):
            if e.dtype == np.int64:
                assert o.dtype == np.int64, i
                np.testing.assert_array_equal(o, e, err_msg=str(i))
            else:
                np.testing.assert_allclose(o, e, atol=1e-6, rtol=1e-6, err_msg=str(i))


def test_indices_are_mindspores():
    """nn.MaxPool3d(2, 2, 'pad', return_indices=True) over the input MindSpore 2.10 pooled: its
    first twelve indices (flat within each D*H*W volume)."""
    x = np.random.default_rng(2).standard_normal((2, 3, 5, 6, 7)).astype(np.float32)
    values, indices = nn.MaxPool3d(2, 2, "pad", return_indices=True)(Tensor(x))
    assert indices.dtype == ms.int64 and indices.shape == (2, 3, 2, 3, 3)
    np.testing.assert_array_equal(indices.asnumpy().ravel()[:12], [49, 10, 4, 56, 16, 26, 77, 37, 32, 134, 136, 88])
    np.testing.assert_array_equal(values.asnumpy().ravel(), x.reshape(2, 3, -1)[
        np.arange(2)[:, None, None], np.arange(3)[None, :, None], indices.asnumpy().reshape(2, 3, -1)].ravel())


@pytest.mark.parametrize("mode", ["eager", "onnx"])
def test_ties_pick_the_first_maximum_in_window_order(mode):
    """Float ties (MindSpore 2.10 picks torch's index on all of them, measured). Its CPU kernel
    for int32 with return_indices named the window's first element where the maximum was 0 and
    others negative (the value right, the index not): that is not copied."""
    x = np.round(randn(2, 3, 6, 7))
    fns = [lambda a: nn.MaxPool2d(2, pad_mode="pad", return_indices=True)(a),
           lambda a: ops.max_pool2d(a, (2, 3), (1, 2), 1, (2, 1), True)]
    expected = [TF.max_pool2d(t(x), 2, 1, return_indices=True), TF.max_pool2d(t(x), (2, 3), (1, 2), 1, (2, 1), False, True)]
    for f, (ev, ei) in zip(fns, expected):
        v, i = call(f, mode, x)
        np.testing.assert_array_equal(v, ev.numpy())
        np.testing.assert_array_equal(i, ei.numpy())


# (layer, reference, input shape) for MaxPool1d / MaxPool2d's dilation and return_indices and ops.max_pool2d
POOLS_1D_2D = [
    (nn.MaxPool2d(2, pad_mode="pad", dilation=2), lambda x: TF.max_pool2d(t(x), 2, 1, 0, 2), (2, 3, 6, 7)),
    (nn.MaxPool2d(3, 2, "pad", 1, (1, 2)), lambda x: TF.max_pool2d(t(x), 3, 2, 1, (1, 2)), (2, 3, 6, 7)),
    (nn.MaxPool2d((2, 3), (2, 1), "pad", (1, 1), (2, 1), return_indices=True, ceil_mode=True),
     lambda x: TF.max_pool2d(t(x), (2, 3), (2, 1), 1, (2, 1), True, True), (2, 3, 6, 7)),
    (nn.MaxPool2d(2, 2, "pad", return_indices=True), lambda x: TF.max_pool2d(t(x), 2, 2, return_indices=True),
     (3, 6, 7)),   # [C, H, W]
    (nn.MaxPool2d(2, 2), lambda x: TF.max_pool2d(t(x), 2, 2), (3, 6, 7)),
    (nn.MaxPool1d(3, 2, "pad", 1, 3), lambda x: TF.max_pool1d(t(x), 3, 2, 1, 3), (2, 3, 9)),
    (nn.MaxPool1d(2, 2, "pad", 1, 2, True, True), lambda x: TF.max_pool1d(t(x), 2, 2, 1, 2, True, True), (2, 3, 9)),
    (nn.MaxPool1d(2, 2, "pad", return_indices=True), lambda x: TF.max_pool1d(t(x), 2, 2, return_indices=True), (3, 9)),
    (nn.MaxPool1d(2, pad_mode="pad", dilation=(2,)), lambda x: TF.max_pool1d(t(x), 2, 1, 0, 2), (2, 3, 9)),
    (lambda a: ops.max_pool2d(a, 2), lambda x: TF.max_pool2d(t(x), 2), (2, 3, 6, 7)),
    (lambda a: ops.max_pool2d(a, 3, 2, 1, 1, True, True), lambda x: TF.max_pool2d(t(x), 3, 2, 1, 1, True, True),
     (2, 3, 6, 7)),
]


@pytest.mark.parametrize("mode", ["jit", "onnx"])
def test_1d_and_2d_max_pools_match_torch(mode):
    xs = [randn(*shape) for _, _, shape in POOLS_1D_2D]
    got = call(lambda *a: tuple(f(v) for (f, _, _), v in zip(POOLS_1D_2D, a)), mode, *xs)
    for i, ((_, reference, _), x, out) in enumerate(zip(POOLS_1D_2D, xs, got)):
        expected = reference(x)
        outs, wants = (out, expected) if isinstance(expected, tuple) else ((out,), (expected,))
        for o, e in zip(outs, wants):
            np.testing.assert_array_equal(o, e.numpy(), err_msg=str(i))


@pytest.mark.parametrize("mode", ["jit", "onnx"])
def test_max_pool_gradients_match_torch_autograd(mode):
    """The gathered form's gradient (dilation, indices, padding, ceil_mode) reaches each window's
    maximum, as torch's; avg_pool3d's reaches every element it counted."""
    x3, x2, x1 = randn(1, 2, 5, 6, 5), randn(2, 2, 6, 7), randn(2, 3, 9)
    cases = [
        (lambda a: nn.MaxPool3d(3, (1, 2, 2), "pad", 1, (1, 1, 2), True, True)(a)[0],
         lambda a: TF.max_pool3d(a, 3, (1, 2, 2), 1, (1, 1, 2), True), x3),
        (lambda a: ops.avg_pool3d(a, 3, 2, 1, True, False), lambda a: TF.avg_pool3d(a, 3, 2, 1, True, False), x3),
        (lambda a: nn.MaxPool2d(3, 2, "pad", 1, (1, 2))(a), lambda a: TF.max_pool2d(a, 3, 2, 1, (1, 2)), x2),
        (lambda a: nn.MaxPool1d(2, 2, "pad", 1, 2, True, True)(a)[0], lambda a: TF.max_pool1d(a, 2, 2, 1, 2, True), x1),
    ]
    for i, (f, tf, x) in enumerate(cases):
        c = randn(*tf(t(x)).shape)
        (expected,) = _torch_grads(lambda a: tf(a) * t(c), x)
        got = call(ms.grad(lambda a, cot: (f(a) * cot).sum()), mode, x, c)
        np.testing.assert_allclose(got, expected, atol=1e-5, err_msg=str(i))


@pytest.mark.parametrize("mode", ["eager", "onnx"])
def test_pools_under_vmap_match_a_loop(mode):
    fns = [lambda a: nn.MaxPool3d(3, 2, "pad", 1, (1, 2, 1), return_indices=True)(a),
           lambda a: nn.AvgPool3d(3, 2, "same", count_include_pad=False)(a),
           lambda a: nn.MaxPool2d(2, pad_mode="pad", dilation=2, return_indices=True)(a[:, 0])]
    xs = randn(3, 2, 2, 5, 6, 5)
    for f in fns:
        got = call(ms.vmap(f), mode, xs)
        loop = [call(f, "eager", x) for x in xs]
        for k, g in enumerate(got if isinstance(got, tuple) else (got,)):
            e = np.stack([o[k] if isinstance(o, tuple) else o for o in loop])
            np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-7)
            assert g.dtype == e.dtype


@pytest.mark.parametrize("make, error, match", [   # MindSpore 2.10's messages where it has one
    (lambda: nn.MaxPool3d(2, dilation=2), ValueError,
     "For MaxPool3d, the pad_mode must be 'pad' when dilation is not 1 or return_indices is True"),
    (lambda: nn.MaxPool3d(2, padding=1), ValueError,
     "For 'MaxPool3D', the 'pad_list' must be zero or \\(0, 0, 0, 0, 0, 0\\) when 'pad_mode' is not \"pad\""),
    (lambda: nn.MaxPool3d(2, ceil_mode=True), ValueError, "the 'ceil_mode' only supports 'None'"),
    (lambda: nn.MaxPool3d(2, pad_mode="pad", padding=(1, 0, 1, 0, 1, 0)), ValueError,
     "the length of padding must equal to 3, but got 6"),
    (lambda: nn.MaxPool3d(3, pad_mode="pad", padding=2), ValueError, "at most half the kernel size"),
    (lambda: nn.MaxPool3d(0), ValueError, "For 'MaxPool3d', the 'kernel_size' must be an positive int number"),
    (lambda: nn.MaxPool3d((3, 3)), ValueError, "For 'MaxPool3D', the parameter 'kernel_size' must be an positive"),
    (lambda: nn.MaxPool3d(2, pad_mode="full"), ValueError, r"must be in '\['VALID', 'SAME', 'PAD'\]', but got 'FULL'"),
    (lambda: nn.MaxPool3d(2)(Tensor(randn(3, 5, 6))), ValueError, r"expected a 4-D or 5-D input"),
    (lambda: nn.MaxPool3d(2)(Tensor(np.zeros((1, 2, 3, 3, 3), np.int32))), TypeError, "must be float16, float32"),
    (lambda: nn.MaxPool3d(6)(Tensor(randn(1, 2, 5, 6, 7))), ValueError, "smaller than the kernel"),
    (lambda: nn.AvgPool3d(2, padding=1), ValueError,
     "For 'AvgPool3D', the 'pad' must be zero or \\(0, 0, 0, 0, 0, 0\\) when 'pad_mode' is not \"PAD\""),
    (lambda: nn.AvgPool3d(2, pad_mode="pad", padding=(1, 0, 1, 0, 1, 0)), ValueError,
     "the padding must be a int or tuple/list contains 1 or 3 int, but got tuple/list with length:6"),
    (lambda: nn.AvgPool3d(2, divisor_override=0), ValueError, "the 'divisor_override' must be > 0, but got 0"),
    (lambda: nn.AvgPool3d(2, count_include_pad=1), TypeError, "the type of 'count_include_pad' should be 'bool'"),
    (lambda: nn.MaxPool2d(2, return_indices=True), ValueError,
     "the parameter 'padding', 'dilation', 'return_indices', 'ceil_mode' can not be set to non-default value when "
     "pad_mode is not 'pad', but got pad_mode:valid"),
    (lambda: nn.MaxPool2d(2, 2, ceil_mode=True), ValueError, "when pad_mode is not 'pad'"),
    (lambda: nn.MaxPool2d(3, pad_mode="pad", padding=(1, 0, 1, 1)), ValueError,
     "For MaxPool2d, the length of padding must equal to 2, but got 4."),
    (lambda: nn.MaxPool2d(2, pad_mode="pad", padding=2), ValueError, "at most half the kernel size"),
    (lambda: nn.MaxPool2d(3, pad_mode="pad", dilation=[1, 2]), ValueError, "the 'dilation' must be int or tuple"),
    (lambda: nn.MaxPool2d(3, pad_mode="pad", dilation=(1, 2, 3)), ValueError,
     "the length of 'dilation' must be 1 or 2, but got 3"),
    (lambda: nn.MaxPool2d(2)(Tensor(randn(6, 7))), ValueError, r"expected a 3-D or 4-D input"),
    (lambda: ops.max_pool2d(Tensor(randn(3, 6, 7)), 2), ValueError, "the input x rank must be equal to 4, but got 3"),
    (lambda: ops.max_pool2d(Tensor(randn(1, 3, 6, 7)), 3, 1, 2), ValueError, "at most half the kernel size"),
    (lambda: ops.max_pool2d(Tensor(randn(1, 3, 6, 7)), [2, 2]), TypeError,
     r"the type of 'kernel_size' should be one of '\['int', 'tuple'\]', but got type 'list'"),
    (lambda: ops.max_pool3d(Tensor(randn(1, 3, 4, 6, 7)), 2, 0), ValueError, "'stride' must be a positive int"),
    (lambda: ops.avg_pool3d(Tensor(randn(1, 3, 4, 6, 7)), 3, 1, (1, 0, 1)), ValueError,
     "For avg_pool3d, padding should be int or tuple of length 6."),
    (lambda: ops.avg_pool3d(Tensor(np.zeros((1, 3, 4, 6, 7), np.int32)), 2), TypeError, "must be float16, float32"),
    (lambda: ops.avg_pool3d(Tensor(randn(1, 3, 4, 6, 7)), 2, 1, 0, False, True, -1), ValueError,
     "the 'divisor_override' must be int and must >= 0"),
])
def test_bad_pooling_arguments_raise_clear_errors(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_pool_attributes_and_printing_are_mindspores():
    pool = nn.MaxPool3d(2, pad_mode="pad", padding=1, dilation=2, return_indices=True)
    assert (pool.kernel_size, pool.stride, pool.pad_mode, pool.return_indices) == (2, 1, "PAD", True)
    assert "kernel_size=2, stride=1, pad_mode=PAD" in repr(pool)
    assert "kernel_size=3, stride=2, pad_mode=VALID" in repr(nn.AvgPool3d(3, 2))


# -- BatchNorm3d --------------------------------------------------------------------------------------

class _WithBN(nn.Cell):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm3d(3, momentum=0.8)

    def construct(self, x):
        return self.bn(x)


@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_batchnorm3d_is_mindspores_batchnorm2d_child(mode):
    """Parameter names as MindSpore 2.10's (a `bn2d` child); training normalises with the biased
    batch variance and moves the statistics with the unbiased one; evaluation uses them."""
    net = _WithBN()
    assert [p.name for p in net.get_parameters()] == ["bn.bn2d.moving_mean", "bn.bn2d.moving_variance",
                                                      "bn.bn2d.gamma", "bn.bn2d.beta"]
    assert [p.name for p in net.trainable_params()] == ["bn.bn2d.gamma", "bn.bn2d.beta"]
    x = randn(2, 3, 2, 3, 4) * 2 + 1
    net.set_train(True)
    y = call(net, mode, x)
    axes = (0, 2, 3, 4)
    mean, var = x.mean(axes), x.var(axes)
    np.testing.assert_allclose(y, (x - mean[:, None, None, None]) / np.sqrt(var[:, None, None, None] + 1e-5), atol=1e-5)
    np.testing.assert_allclose(net.bn.bn2d.moving_mean.asnumpy(), 0.2 * mean, rtol=1e-5)
    np.testing.assert_allclose(net.bn.bn2d.moving_variance.asnumpy(), 0.8 + 0.2 * x.var(axes, ddof=1), rtol=1e-5)
    net.set_train(False)
    mm, mv = net.bn.bn2d.moving_mean.asnumpy(), net.bn.bn2d.moving_variance.asnumpy()
    expected = (x - mm[:, None, None, None]) / np.sqrt(mv[:, None, None, None] + 1e-5)
    np.testing.assert_allclose(call(net, mode, x), expected, atol=1e-5)
    np.testing.assert_allclose(call(net, "onnx", x), expected, atol=1e-5)


def test_batchnorm3d_exports_with_a_dynamic_batch(tmp_path):
    import onnxruntime as ort
    net = _WithBN()
    net.set_train(False)
    path = tmp_path / "bn.onnx"
    ms.export(net, Tensor(randn(2, 3, 2, 3, 4)), file_name=str(path), file_format="ONNX")
    sess = ort.InferenceSession(str(path))
    x = randn(5, 3, 2, 3, 4)
    np.testing.assert_allclose(sess.run(None, {sess.get_inputs()[0].name: x})[0], net(Tensor(x)).asnumpy(), atol=1e-6)


def test_batchnorm3d_errors_are_mindspores():
    with pytest.raises(ValueError, match="For 'BatchNorm3d', the in_shape must have 5 dims, but got 4."):
        nn.BatchNorm3d(3)(Tensor(randn(2, 3, 4, 4)))
    with pytest.raises(TypeError, match="data_format"):
        nn.BatchNorm3d(3, data_format="NCDHW")
    assert nn.BatchNorm3d in ms.amp.get_black_list()   # as MindSpore 2.10's amp.get_black_list()


# -- HShrink and SoftShrink ------------------------------------------------------------------------

X_SHRINK = np.array([-1.0, -0.5, -0.3, 0.0, 0.3, 0.5, 0.7, 1.0], np.float32)


@pytest.mark.parametrize("mode", ["eager", "jit", "onnx"])
def test_shrinks_and_their_gradients_at_the_thresholds_are_mindspores(mode):
    """Values (torch's) and gradients measured on MindSpore 2.10 over X_SHRINK: 0 on
    [-lambd, lambd], the thresholds included, 1 elsewhere."""
    fns = [ops.hardshrink, lambda a: ops.hardshrink(a, 0.3), ops.softshrink, lambda a: ops.softshrink(a, 0.3),
           lambda a: nn.HShrink(0.3)(a), lambda a: nn.SoftShrink()(a), lambda a: a.hardshrink(0.3)]
    lambds = [0.5, 0.3, 0.5, 0.3, 0.3, 0.5, 0.3]
    torch_fns = [TF.hardshrink, TF.hardshrink, TF.softshrink, TF.softshrink, TF.hardshrink, TF.softshrink,
                 TF.hardshrink]
    measured = {0.5: [1, 0, 0, 0, 0, 0, 1, 1], 0.3: [1, 1, 0, 0, 0, 1, 1, 1]}
    values = call(lambda a: tuple(f(a) for f in fns), mode, X_SHRINK)
    for f, lambd, tf, v in zip(fns, lambds, torch_fns, values):
        np.testing.assert_array_equal(v, tf(t(X_SHRINK), lambd).numpy())
        grad = call(ms.grad(lambda a, f=f: f(a).sum()), mode, X_SHRINK)
        np.testing.assert_array_equal(grad, measured[lambd])


def test_shrink_edge_values_are_mindspores():
    """Measured on MindSpore 2.10: NaN shrinks to 0 with a gradient of 1, infinities pass with 1;
    a negative lambd keeps every x in hardshrink; lambd True is 1."""
    x = Tensor(np.array([-0.5, 0.5, np.nan, np.inf, -np.inf], np.float32))
    for f in (ops.hardshrink, ops.softshrink):
        np.testing.assert_array_equal(f(x).asnumpy(), [0, 0, 0, np.inf, -np.inf])
        np.testing.assert_array_equal(ms.grad(lambda a, f=f: f(a).sum())(x).asnumpy(), [0, 0, 1, 1, 1])
    np.testing.assert_array_equal(ops.hardshrink(Tensor(X_SHRINK), -1.0).asnumpy(), X_SHRINK)
    np.testing.assert_array_equal(ops.softshrink(Tensor(X_SHRINK), True).asnumpy(), np.zeros(8))
    half = ops.softshrink(Tensor(np.array([-1, 0.5, 0.7], np.float16)))
    assert half.dtype == ms.float16
    np.testing.assert_array_equal(half.asnumpy(), np.array([-0.5, 0, 0.2002], np.float16))
    assert isinstance(nn.get_activation("hshrink"), nn.HShrink)
    assert isinstance(nn.get_activation("softshrink"), nn.SoftShrink)


def test_shrink_errors_are_mindspores():
    with pytest.raises(RuntimeError, match="For 'SoftShrink', the values for lambd should be greater or equal to 0"):
        nn.SoftShrink(-1.0)(Tensor(X_SHRINK))   # the Cell builds; the call fails, as MindSpore's
    with pytest.raises(TypeError, match=r"For 'HShrink', the type of 'lambd' should be one of '\[bool, int, float\]'"):
        nn.HShrink("a")
    with pytest.raises(TypeError, match="must be a float Tensor"):
        ops.hardshrink(Tensor(np.array([1, 2], np.int32)))
    with pytest.raises(TypeError, match="'lambd' must be a float"):
        ops.softshrink(Tensor(X_SHRINK), "a")

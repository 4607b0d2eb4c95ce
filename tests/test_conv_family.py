"""The convolution family beside Conv2d: nn.Conv1d, nn.Conv2dTranspose, nn.Conv1dTranspose,
ops.conv1d and ops.conv_transpose2d, against MindSpore 2.10 (parameters and outputs it saved,
tests/data/conv_family/, and signatures measured on it), torch (values and autograd), jax
(vmap of the conv_transpose primitive) and each other across eager, XLA and onnxruntime.

MindSpore's transposed layers compute the input gradient of the convolution with the same
arguments: 'valid' gives H*s + max(k_eff - s, 0) (zeros at the end when the kernel is shorter
than the stride), 'same' H*s (the odd cropped element at the end), 'pad' crops (lo, hi), and
Conv2dTranspose's output_padding appends zeros after the bias. ops.conv_transpose2d is torch's.
"""
import inspect
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import torch

import graphcell as ms
from graphcell import Tensor, nn, ops
from graphcell.common import initializer as I
from graphcell.ops import nn_prims
from graphcell.train import load_torch_state_dict
from tests.modes import MODES, call

DATA = Path(__file__).parent / "data" / "conv_family"
RNG = np.random.default_rng(7)


def randn(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def t(a):
    return torch.from_numpy(np.asarray(a))


# -- MindSpore 2.10: parameters, checkpoints, outputs --------------------------------------------

class GoldenNet(nn.Cell):
    """The net tests/data/conv_family/generate_with_mindspore.py built after set_seed(5)."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(4, 6, 3, stride=2, has_bias=True)
        self.t2 = nn.Conv2dTranspose(4, 6, (2, 3), stride=2, pad_mode="pad", padding=(1, 0, 1, 1),
                                     output_padding=1, group=2, has_bias=True)
        self.t1 = nn.Conv1dTranspose(6, 4, 3, stride=2, dilation=2, has_bias=True)
        self.t2v = nn.Conv2dTranspose(4, 2, 3, stride=(2, 3), pad_mode="valid")

    def construct(self, x1, x2):
        return self.c1(x1), self.t2(x2), self.t1(self.c1(x1)), self.t2v(x2)


def golden_net():
    state = np.random.get_state()
    try:
        I.set_seed(5)
        return GoldenNet()
    finally:
        np.random.set_state(state)


def test_parameters_are_mindspores_bit_for_bit_names_shapes_and_values():
    """Default initialisers (HeUniform(sqrt 5), bias U(+-1/sqrt(fan_in)) with fan_in from the stored
    weight, (out/group)*k for transposed layers) and draw order; 1-D layers keep the height-1 axis."""
    expected = ms.load_checkpoint(str(DATA / "conv_family_seed5.ckpt"))
    net = golden_net()
    got = {p.name: p.asnumpy() for p in net.get_parameters()}
    assert list(got) == list(expected) == ["c1.weight", "c1.bias", "t2.weight", "t2.bias", "t1.weight",
                                           "t1.bias", "t2v.weight"]
    assert {k: v.shape for k, v in got.items()} == {
        "c1.weight": (6, 4, 1, 3), "c1.bias": (6,), "t2.weight": (4, 3, 2, 3), "t2.bias": (6,),
        "t1.weight": (6, 4, 1, 3), "t1.bias": (4,), "t2v.weight": (4, 2, 3, 3)}
    for name, value in expected.items():
        np.testing.assert_array_equal(got[name].view(np.uint32), value.asnumpy().view(np.uint32), err_msg=name)


@pytest.mark.parametrize("mode", MODES)
def test_outputs_match_mindspore(mode):
    data = np.load(DATA / "conv_family_outputs.npz")
    net = golden_net()
    outs = call(net, mode, data["x1"], data["x2"])
    for name, out in zip(["c1", "t2", "t1", "t2v"], outs):
        assert out.shape == data[name].shape, name
        np.testing.assert_allclose(out, data[name], atol=2e-6, rtol=1e-5, err_msg=name)


def test_a_graphcell_checkpoint_loads_back_and_keeps_the_stored_layouts(tmp_path):
    net = golden_net()
    ms.save_checkpoint(net, str(tmp_path / "c.ckpt"))
    other = GoldenNet()
    ms.load_param_into_net(other, ms.load_checkpoint(str(tmp_path / "c.ckpt")))
    for a, b in zip(net.get_parameters(), other.get_parameters()):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def test_a_torch_state_dict_loads_into_the_layers():
    """PyTorch's ConvTranspose2d weight is MindSpore's layout already; Conv1d/ConvTranspose1d
    weights gain the height axis MindSpore stores."""
    tnet = torch.nn.ModuleDict({"c1": torch.nn.Conv1d(4, 6, 3, padding=1),
                                "t1": torch.nn.ConvTranspose1d(6, 4, 3, stride=2, padding=1),
                                "t2": torch.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, groups=2)})

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.c1 = nn.Conv1d(4, 6, 3, pad_mode="pad", padding=1, has_bias=True)
            self.t1 = nn.Conv1dTranspose(6, 4, 3, stride=2, pad_mode="pad", padding=1, has_bias=True)
            self.t2 = nn.Conv2dTranspose(4, 6, 3, stride=2, pad_mode="pad", padding=1, group=2, has_bias=True)

        def construct(self, x1, x2):
            return self.t1(self.c1(x1)), self.t2(x2)

    net = Net()
    assert load_torch_state_dict(net, tnet.state_dict(), strict=True) == ([], [])
    x1, x2 = randn(2, 4, 7), randn(2, 4, 3, 4)
    with torch.no_grad():
        expected = (tnet["t1"](tnet["c1"](t(x1))).numpy(), tnet["t2"](t(x2)).numpy())
    for got, e in zip(call(net, "onnx", x1, x2), expected):
        np.testing.assert_allclose(got, e, atol=1e-5, rtol=1e-5)


def _params(fn):
    return [(p.name, p.default) for p in inspect.signature(fn).parameters.values() if p.name != "self"]


def test_signatures_are_mindspores():
    """Names and defaults as inspect.signature shows them on MindSpore 2.10 (dtype aside: a
    graphcell dtype name). Conv1d, Conv1dTranspose and Conv2dTranspose have no data_format;
    Conv1dTranspose no output_padding."""
    common = [("in_channels", inspect._empty), ("out_channels", inspect._empty), ("kernel_size", inspect._empty),
              ("stride", 1), ("pad_mode", "same"), ("padding", 0)]
    tail = [("dilation", 1), ("group", 1), ("has_bias", False), ("weight_init", None), ("bias_init", None),
            ("dtype", "float32")]
    assert _params(nn.Conv1d.__init__) == common + tail
    assert _params(nn.Conv1dTranspose.__init__) == common + tail
    assert _params(nn.Conv2dTranspose.__init__) == common + [("output_padding", 0)] + tail
    assert _params(ops.conv1d) == [("input", inspect._empty), ("weight", inspect._empty), ("bias", None),
                                   ("stride", 1), ("pad_mode", "valid"), ("padding", 0), ("dilation", 1),
                                   ("groups", 1)]
    assert _params(ops.conv_transpose2d) == [("input", inspect._empty), ("weight", inspect._empty), ("bias", None),
                                             ("stride", 1), ("padding", 0), ("output_padding", 0), ("groups", 1),
                                             ("dilation", 1)]


def test_attributes_are_mindspores():
    c = nn.Conv1d(4, 6, 3, pad_mode="pad", padding=1)
    assert (c.kernel_size, c.stride, c.dilation, c.padding, c.pad_mode) == ((1, 3), (1, 1), (1, 1), (0, 0, 1, 1), "pad")
    c = nn.Conv1dTranspose(4, 6, 3, stride=2)
    assert (c.kernel_size, c.stride, c.padding, c.bias) == ((1, 3), (1, 2), (0, 0, 0, 0), None)
    c = nn.Conv2dTranspose(4, 6, 3, stride=2, pad_mode="pad", padding=(1, 0, 2, 1), output_padding=(1, 0))
    assert (c.padding, c.output_padding, c.kernel_size, c.stride) == ((1, 0, 2, 1), (1, 0), (3, 3), (2, 2))


def test_a_3d_weight_init_array_is_stored_with_the_height_axis():
    w = randn(6, 4, 3)
    assert nn.Conv1d(4, 6, 3, weight_init=Tensor(w)).weight.shape == (6, 4, 1, 3)
    np.testing.assert_array_equal(nn.Conv1dTranspose(6, 4, 3, weight_init=w).weight.asnumpy()[:, :, 0], w)
    with pytest.raises(ValueError, match="weight_init array must be 3-D"):
        nn.Conv1d(4, 6, 3, weight_init=randn(6, 4, 1, 3))


# -- values against torch ---------------------------------------------------------------------------

def _same_pads(size, k, s, d):
    out = -(-size // s)
    total = max((out - 1) * s + d * (k - 1) + 1 - size, 0)
    return total // 2, total - total // 2


def torch_transposed(x, w, b, stride, pad_mode, pads, dilation, group, output_padding=None):
    """MindSpore's transposed layer from torch's full conv_transpose (padding 0): the lengths of
    MindSpore's _deconv_output_length, cropped as the convolution with the same arguments pads."""
    full = torch.nn.functional.conv_transpose2d(t(x), t(w), None, stride, 0, 0, group, dilation).numpy()
    out = np.zeros(full.shape[:2] + tuple(
        h * s + max(d * (k - 1) + 1 - s, 0) if pad_mode == "valid" else h * s if pad_mode == "same"
        else h * s - lo - hi + d * (k - 1) + 1 - s
        for h, k, s, d, (lo, hi) in zip(x.shape[2:], w.shape[2:], stride, dilation, pads)), np.float32)
    crops = [0 if pad_mode == "valid" else _same_pads(n, k, s, d)[0] if pad_mode == "same" else lo
             for n, k, s, d, (lo, _) in zip(out.shape[2:], w.shape[2:], stride, dilation, pads)]
    part = full[:, :, crops[0]:crops[0] + out.shape[2], crops[1]:crops[1] + out.shape[3]]
    out[:, :, :part.shape[2], :part.shape[3]] = part
    out += b.reshape(1, -1, 1, 1)
    if output_padding:
        out = np.pad(out, [(0, 0), (0, 0), (0, output_padding[0]), (0, output_padding[1])])
    return out


TRANSPOSED_2D = [  # in, out, kernel, stride, pad_mode, padding, output_padding, dilation, group, H, W
    (4, 6, 3, 1, "same", 0, 0, 1, 1, 5, 6),
    (4, 6, (2, 4), (2, 3), "same", 0, 0, 1, 2, 5, 6),
    (4, 6, 2, 3, "same", 0, 0, 1, 1, 4, 5),
    (4, 6, 3, (2, 1), "same", 0, 0, (1, 2), 1, 5, 6),
    (4, 6, 3, 2, "valid", 0, 0, 1, 1, 5, 6),
    (4, 6, 2, 3, "valid", 0, 0, 1, 1, 4, 5),
    (4, 6, 3, 2, "valid", 0, 0, 2, 2, 4, 5),
    (4, 6, 3, 2, "pad", (1, 0, 2, 1), 0, 1, 1, 5, 6),
    (4, 6, 3, 2, "pad", 1, (1, 0), 1, 1, 5, 6),
    (4, 6, 3, 1, "pad", 1, 1, 2, 2, 5, 6),
]


def _all_at_once(fns, mode, inputs):
    """Every case in one program: one XLA compilation, one onnxruntime session."""
    return call(lambda *xs: tuple(f(x) for f, x in zip(fns, xs)), mode, *inputs)


@pytest.mark.parametrize("mode", ["jit", "onnx"])
def test_conv2d_transpose_matches_torch(mode):
    nets, inputs, expected = [], [], []
    two = lambda v: (v, v) if isinstance(v, int) else v  # noqa: E731
    for cin, cout, k, s, pm, p, op, d, g, h, w in TRANSPOSED_2D:
        net = nn.Conv2dTranspose(cin, cout, k, stride=s, pad_mode=pm, padding=p, output_padding=op, dilation=d,
                                 group=g, has_bias=True, bias_init="normal")
        pads = (p,) * 4 if isinstance(p, int) else p
        inputs.append(randn(2, cin, h, w))
        expected.append(torch_transposed(inputs[-1], net.weight.asnumpy(), net.bias.asnumpy(), two(s), pm,
                                         (pads[:2], pads[2:]), two(d), g, two(op) if op else None))
        nets.append(net)
    for case, got, e in zip(TRANSPOSED_2D, _all_at_once(nets, mode, inputs), expected):
        assert got.shape == e.shape, case
        np.testing.assert_allclose(got, e, atol=1e-5, rtol=1e-5, err_msg=str(case))


@pytest.mark.parametrize("mode", ["jit", "onnx"])
def test_conv1d_transpose_matches_torch(mode):
    cases = [(3, 2, "same", 0, 1, 1, 7), (3, 2, "valid", 0, 2, 2, 7), (3, 2, "pad", 2, 1, 1, 7),
             (2, 3, "valid", 0, 1, 1, 5), (4, 2, "same", 0, 1, 2, 6)]
    nets, inputs, expected = [], [], []
    for k, s, pm, p, d, g, length in cases:
        nets.append(nn.Conv1dTranspose(4, 6, k, stride=s, pad_mode=pm, padding=p, dilation=d, group=g, has_bias=True))
        inputs.append(randn(2, 4, length))
        expected.append(torch_transposed(inputs[-1][:, :, None], nets[-1].weight.asnumpy(), nets[-1].bias.asnumpy(),
                                         (1, s), pm, ((0, 0), (p, p)), (1, d), g)[:, :, 0])
    for case, got, e in zip(cases, _all_at_once(nets, mode, inputs), expected):
        assert got.shape == e.shape, case
        np.testing.assert_allclose(got, e, atol=1e-5, rtol=1e-5, err_msg=str(case))


@pytest.mark.parametrize("mode", ["jit", "onnx"])
def test_conv1d_and_ops_conv1d_match_torch(mode):
    cases = [(3, 2, "same", 0, 1, 1, 8), (4, 1, "same", 0, 2, 2, 9), (3, 2, "valid", 0, 2, 2, 9), (3, 3, "pad", 2, 1, 1, 7)]
    fns, inputs, expected = [], [], []
    for k, s, pm, p, d, g, length in cases:
        net = nn.Conv1d(4, 6, k, stride=s, pad_mode=pm, padding=p, dilation=d, group=g, has_bias=True)
        x = randn(2, 4, length)
        lo, hi = _same_pads(length, k, s, d) if pm == "same" else (p, p)
        w3, b = net.weight.asnumpy()[:, :, 0], net.bias.asnumpy()
        e = torch.nn.functional.conv1d(torch.nn.functional.pad(t(x), (lo, hi)), t(w3), t(b), s, 0, d, g).numpy()
        functional = lambda a, w3=w3, b=b, s=s, pm=pm, p=p, d=d, g=g: ops.conv1d(a, Tensor(w3), Tensor(b), s, pm, p, d, g)  # noqa: E731
        fns += [net, functional]
        inputs += [x, x]
        expected += [e, e]
    for i, (got, e) in enumerate(zip(_all_at_once(fns, mode, inputs), expected)):
        np.testing.assert_allclose(got, e, atol=1e-5, rtol=1e-5, err_msg=str(cases[i // 2]))


CONV_TRANSPOSE_2D = [  # stride, padding, output_padding, groups, dilation, weight shape
    (1, 0, 0, 1, 1, (4, 3, 3, 3)),
    (2, 1, 1, 2, 1, (4, 3, 3, 2)),
    ((2, 3), (0, 2), (1, 2), 1, (1, 2), (4, 2, 2, 3)),
    (1, 1, 2, 1, 3, (4, 2, 3, 3)),   # output_padding past the padding, >= stride: a zero tail
    (2, 0, 1, 4, 2, (4, 1, 2, 2)),
]


@pytest.mark.parametrize("mode", ["jit", "onnx"])
def test_ops_conv_transpose2d_matches_torch(mode):
    fns, inputs, expected = [], [], []
    for s, p, op, g, d, wshape in CONV_TRANSPOSE_2D:
        x, w, b = randn(2, 4, 5, 4), randn(*wshape), randn(wshape[1] * g)
        expected.append(torch.nn.functional.conv_transpose2d(t(x), t(w), t(b), s, p, op, g, d).numpy())
        fns.append(lambda a, w=w, b=b, s=s, p=p, op=op, g=g, d=d: ops.conv_transpose2d(a, Tensor(w), Tensor(b), s, p, op, g, d))
        inputs.append(x)
    x, w = randn(4, 3, 3), randn(4, 2, 2, 2)   # unbatched input
    expected.append(torch.nn.functional.conv_transpose2d(t(x), t(w), stride=2).numpy())
    fns.append(lambda a: ops.conv_transpose2d(a, Tensor(w), stride=2))
    inputs.append(x)
    for case, got, e in zip(CONV_TRANSPOSE_2D + ["unbatched"], _all_at_once(fns, mode, inputs), expected):
        assert got.shape == e.shape, case
        np.testing.assert_allclose(got, e, atol=1e-5, rtol=1e-5, err_msg=str(case))


def test_eager_calls_compute_what_jit_does():
    """One case of each op run op by op (the MindSpore-output test runs the layers eagerly)."""
    x, w, b = randn(2, 4, 5, 4), randn(4, 3, 3, 2), randn(6)
    fn = lambda a: ops.conv_transpose2d(a, Tensor(w), Tensor(b), 2, 1, 1, 2, (1, 2))  # noqa: E731
    np.testing.assert_allclose(call(fn, "eager", x), call(fn, "jit", x), atol=1e-6)
    x1, w1 = randn(2, 4, 9), randn(6, 2, 3)
    fn = lambda a: ops.conv1d(a, Tensor(w1), None, 2, "same", 0, 2, 2)  # noqa: E731
    np.testing.assert_allclose(call(fn, "eager", x1), call(fn, "jit", x1), atol=1e-6)


def test_the_graph_is_one_conv_transpose_and_counts_its_forward_convolutions_flops():
    from graphcell.frontend.trace import trace
    from graphcell.ir import node_flops
    net = nn.Conv2dTranspose(4, 6, 3, stride=2, group=2)
    graph = trace(net, Tensor(randn(2, 4, 5, 5))).graph
    (node,) = [n for n in graph.nodes if n.primitive.name not in ("reshape",)]
    assert node.primitive.name == "conv_transpose" and node.outputs[0].shape == (2, 6, 10, 10)
    # the convolution it transposes: [2, 6, 10, 10] -> [2, 4, 5, 5] by a [4, 3, 3, 3] kernel
    assert node_flops(node) == 2 * (2 * 4 * 5 * 5) * (3 * 3 * 3)


# -- errors in the user's terms ------------------------------------------------------------------

@pytest.mark.parametrize("make, error, match", [
    (lambda: nn.Conv2dTranspose(4, 6, 3, stride=2, output_padding=1), ValueError, "pad_mode must be 'pad'"),
    (lambda: nn.Conv2dTranspose(4, 6, 3, stride=2, pad_mode="pad", output_padding=2), ValueError,
     r"range of \[0, max\(stride, dilation\)\)"),
    (lambda: nn.Conv2dTranspose(4, 6, 3, padding=1), ValueError, "'pad' must be zero"),
    (lambda: nn.Conv2dTranspose(4, 6, 3, pad_mode="pad", padding=(1, 2)), ValueError, "'padding size' must be int and must = 4"),
    (lambda: nn.Conv2dTranspose(4, 6, 3, pad_mode="pad", padding=-1), ValueError, "'padding' must be int and must >= 0"),
    (lambda: nn.Conv2dTranspose(4, 6, 3, group=4), ValueError, "'out_channels' must be divisible by attr 'group'"),
    (lambda: nn.Conv2dTranspose(4, 6, 3, data_format="NCHW"), TypeError, "data_format"),
    (lambda: nn.Conv2dTranspose(4, 6, 3, pad_mode="full"), ValueError, "must be in '\\['valid', 'same', 'pad'\\]'"),
    (lambda: nn.Conv1d(4, 6, (3,)), TypeError, "'kernel_size' should be 'int'"),
    (lambda: nn.Conv1d(4, 6, 3, padding=1), ValueError, "'pad' must be zero when 'pad_mode' is not 'pad'"),
    (lambda: nn.Conv1d(4, 6, 3, dilation=0), ValueError, "'dilation' must be int and must >= 1"),
    (lambda: nn.Conv1dTranspose(4, 6, 3, output_padding=1), TypeError, "output_padding"),
])
def test_bad_arguments_raise_clear_errors(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_bad_inputs_name_the_cell_and_what_is_expected():
    with pytest.raises(ValueError, match=r"Conv2dTranspose.*expected a 4-D input \[N, C, H, W\]"):
        nn.Conv2dTranspose(4, 6, 3)(Tensor(randn(2, 4, 5)))
    with pytest.raises(ValueError, match=r"in_channels=4"):
        nn.Conv1dTranspose(4, 6, 3)(Tensor(randn(2, 5, 7)))
    with pytest.raises(ValueError, match=r"Conv1d.*expected a 3-D input \[N, C, L\]"):
        nn.Conv1d(4, 6, 3)(Tensor(randn(2, 4, 5, 5)))
    x, w = Tensor(randn(2, 4, 9)), Tensor(randn(6, 4, 3))
    with pytest.raises(ValueError, match="the weight must be a 3D Tensor"):
        ops.conv1d(x, Tensor(randn(6, 4, 1, 3)))
    with pytest.raises(ValueError, match="padding must be a tuple/list with 1 element or int"):
        ops.conv1d(x, w, pad_mode="pad", padding=(1, 2))
    with pytest.raises(ValueError, match="padding must be 0 when pad_mode is not 'pad'"):
        ops.conv1d(x, w, padding=1)
    with pytest.raises(ValueError, match="expected bias to be 1-dimensional with 6 elements"):
        ops.conv1d(x, w, Tensor(randn(5)))
    with pytest.raises(ValueError, match=r"output_padding \(2, 2\) must be smaller than max\(stride, dilation\)"):
        ops.conv_transpose2d(Tensor(randn(1, 4, 3, 3)), Tensor(randn(4, 2, 3, 3)), stride=2, output_padding=2)


# -- gradients --------------------------------------------------------------------------------------

def _torch_grads(fn, *arrays):
    ts = [t(a).requires_grad_() for a in arrays]
    fn(*ts).sum().backward()
    return [a.grad.numpy() for a in ts]


@pytest.mark.parametrize("mode", ["jit", "onnx"])
def test_gradients_match_torch_autograd(mode):
    """Input, weight and bias gradients of each layer's form (the loss: sum of out * a fixed
    cotangent, so every output element has its own weight)."""
    x2, w2, b2, c2 = randn(2, 4, 5, 4), randn(4, 3, 3, 2), randn(6), randn(2, 6, 10, 7)
    f2 = lambda x, w, b, c: (ops.conv_transpose2d(x, w, b, 2, 1, (1, 0), 2, (1, 2)) * c).sum()  # noqa: E731
    tf2 = lambda x, w, b: torch.nn.functional.conv_transpose2d(x, w, b, 2, 1, (1, 0), 2, (1, 2)) * t(c2)  # noqa: E731
    x1, w1, b1, c1 = randn(2, 4, 9), randn(6, 2, 3), randn(6), randn(2, 6, 5)
    f1 = lambda x, w, b, c: (ops.conv1d(x, w, b, 2, "same", 0, 2, 2) * c).sum()  # noqa: E731
    tf1 = lambda x, w, b: torch.nn.functional.conv1d(torch.nn.functional.pad(x, (2, 2)), w, b, 2, 0, 2, 2) * t(c1)  # noqa: E731
    for f, tf, arrays, c in [(f2, tf2, (x2, w2, b2), c2), (f1, tf1, (x1, w1, b1), c1)]:
        expected = _torch_grads(tf, *arrays)
        got = call(ms.grad(f, grad_position=(0, 1, 2)), mode, *arrays, c)
        for e, g in zip(expected, got):
            np.testing.assert_allclose(g, e, atol=1e-4, rtol=1e-4)


def test_layer_weight_gradients_under_grad_match_jax():
    """Through the Cells (the weight's stored 4-D layout, MindSpore's padding and output_padding):
    jax.grad of the torch-checked forward, written in lax."""
    net = nn.SequentialCell([nn.Conv1d(4, 6, 3, stride=2, has_bias=True),
                             nn.Conv1dTranspose(6, 4, 3, stride=2, pad_mode="pad", padding=1, has_bias=True)])
    x = randn(2, 4, 9)
    weights = net.trainable_params()
    loss = lambda a: (net(a) ** 2).sum()  # noqa: E731
    got = ms.jit(ms.grad(loss, grad_position=None, weights=weights))(Tensor(x))

    def ref(ws, a):
        w1, b1, w2, b2 = ws
        y = jax.lax.conv_general_dilated(a, w1[:, :, 0], (2,), [(1, 1)]) + b1[:, None]
        # Conv1dTranspose 'pad' 1: the input gradient of conv(pad 1, stride 2) over 5*2 - 2 + 3 - 2 = 9
        _, vjp = jax.vjp(lambda z: jax.lax.conv_general_dilated(z, w2[:, :, 0], (2,), [(1, 1)]), jnp.zeros((2, 4, 9), jnp.float32))
        z = vjp(y)[0] + b2[:, None]
        return (z ** 2).sum()
    expected = jax.jit(jax.grad(ref))([jnp.asarray(w.asnumpy()) for w in weights], x)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g.asnumpy(), e, atol=1e-4, rtol=1e-4)


# -- vmap: ensembles with per-member weights ---------------------------------------------------------

def _members(n=3):
    return [nn.SequentialCell([nn.Conv2dTranspose(4, 6, 3, stride=2, pad_mode="pad", padding=1, output_padding=1,
                                                  group=2, has_bias=True),
                               nn.ReLU()]) for _ in range(n)]


def _loop(members, x, xs):
    """What the ensemble must give: each member alone, on the shared input and on its own."""
    return (np.stack([m(Tensor(x)).asnumpy() for m in members]),
            np.stack([m(Tensor(xs[i])).asnumpy() for i, m in enumerate(members)]))


# None: the target's choice (XLA: wide over a shared input, unrolled over per-member inputs;
# onnxruntime: unrolled); XLA's forced "wide" is checked with the dump below.
@pytest.mark.parametrize("mode, strategy", [("eager", None), ("eager", "grouped"), ("onnx", None),
                                            ("onnx", "grouped"), ("onnx", "wide")])
def test_an_ensemble_matches_a_loop_over_its_members(mode, strategy):
    members = _members()
    x, xs = randn(2, 4, 5, 4), randn(3, 2, 4, 5, 4)
    for in_axes, arr, expected in zip((None, 0), (x, xs), _loop(members, x, xs)):
        ens = ms.vmap(nn.CellList(members), in_axes=in_axes, conv_strategy=strategy)
        got = call(ens, mode, arr)
        np.testing.assert_allclose(got, expected, atol=1e-5, rtol=1e-5, err_msg=f"in_axes={in_axes}")


def test_the_dump_names_the_transposed_convolutions_strategy():
    members = _members()
    x = randn(2, 4, 5, 4)
    ens = ms.vmap(nn.CellList(members), in_axes=None, conv_strategy="wide")
    np.testing.assert_allclose(ens(Tensor(x)).asnumpy(), _loop(members, x, x[None].repeat(3, 0))[0],
                               atol=1e-5, rtol=1e-5)
    from graphcell.ir.printer import format_graph
    text = format_graph(next(iter(ens.cache.values())).graph, source=True)
    assert "[conv_strategy=wide]" in text and "conv_transpose(" in text


@pytest.mark.parametrize("strategy, axes", [("grouped", (1, 0)), ("wide", (None, 0)), ("unrolled", (0, 0)),
                                             (None, (0, None))])
def test_conv_transpose_batch_rule_matches_jax_vmap(strategy, axes):
    """The primitive alone against jax.vmap of its implementation: per-member cotangents mapped
    at axis 1 (grouped), a shared one (wide), both at 0 (unrolled), shared weights."""
    attrs = dict(lhs_shape=(9, 8), strides=(2, 2), padding=((1, 0), (0, 1)), rhs_dilation=(1, 2), groups=2)
    ct, w = randn(3, 2, 4, 4, 4), randn(3, 4, 3, 3, 2)   # [N, B, I, ...], [N, I, O/g, ...]
    a = ct[0] if axes[0] is None else np.moveaxis(ct, 0, axes[0])
    b = w[0] if axes[1] is None else w
    expected = jax.jit(jax.vmap(lambda p, q: nn_prims.conv_transpose.impl(p, q, **attrs), in_axes=axes))(a, b)
    got = ms.vmap(lambda p, q: nn_prims.conv_transpose.bind(p, q, **attrs), in_axes=axes,
                  conv_strategy=strategy)(Tensor(a), Tensor(b))
    np.testing.assert_allclose(got.asnumpy(), expected, atol=2e-5, rtol=2e-5)


def test_grad_under_vmap_matches_jax():
    """Per-member weight gradients of a transposed convolution, vmapped (in_axes 0 for weights
    and inputs), against jax.vmap(jax.grad) of torch-checked lax."""
    def loss(w, x):
        return (ops.conv_transpose2d(x, w, None, 2, 1, 1, 2) ** 2).sum()

    def ref(w, x):
        out = torch_like_conv_transpose(x, w)
        return (out ** 2).sum()

    def torch_like_conv_transpose(x, w):
        # torch's size (H-1)*2 - 2*1 + 3 + 1: the full output cropped by 1 in front, 0 behind
        full = jnp.zeros((x.shape[0], w.shape[1] * 2, 10, 8), jnp.float32)
        _, vjp = jax.vjp(lambda z: jax.lax.conv_general_dilated(z, w, (2, 2), [(1, 0), (1, 0)],
                                                                feature_group_count=2), full)
        return vjp(x)[0]

    ws, xs = randn(2, 4, 2, 3, 3), randn(2, 2, 4, 5, 4)
    got = ms.vmap(ms.grad(loss, grad_position=(0, 1)))(Tensor(ws), Tensor(xs))
    expected = jax.jit(jax.vmap(jax.grad(ref, argnums=(0, 1))))(ws, xs)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g.asnumpy(), e, atol=1e-4, rtol=1e-4)
    # the reference is torch's operator
    e = torch_like_conv_transpose(xs[0], ws[0])
    np.testing.assert_allclose(e, torch.nn.functional.conv_transpose2d(t(xs[0]), t(ws[0]), None, 2, 1, 1, 2).numpy(),
                               atol=1e-5)

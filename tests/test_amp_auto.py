"""auto_mixed_precision(net, "auto"): MindSpore 2.10's operator-level mixed precision (graphcell/amp_auto.py).
Literals were measured on MindSpore 2.10 (CPU) with the same nets and numpy-drawn weights."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import amp, nn, ops

T = lambda a: ms.Tensor(np.asarray(a, np.float32))  # noqa: E731


class LeNetish(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3, pad_mode="valid", has_bias=True)
        self.bn = nn.BatchNorm2d(2)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(2, 2)
        self.flat = nn.Flatten()
        self.fc = nn.Dense(8, 3)

    def construct(self, x):
        return self.fc(self.flat(self.pool(self.relu(self.bn(self.conv(x))))))


class Attn(nn.Cell):
    def __init__(self):
        super().__init__()
        self.q = nn.Dense(4, 4, has_bias=False)
        self.k = nn.Dense(4, 4, has_bias=False)
        self.v = nn.Dense(4, 4)
        self.ln = nn.LayerNorm((4,))
        self.sm = nn.Softmax()

    def construct(self, x):
        s = ops.matmul(self.q(x), ops.transpose(self.k(x), (0, 2, 1))) * 0.5
        p = self.sm(s)
        return self.ln(ops.matmul(p, self.v(x)) + x), s, p


def _nets():
    rng = np.random.RandomState(0)
    x1, x2 = T(rng.randn(2, 1, 6, 6)), T(rng.randn(2, 3, 4))
    built = []
    for cls in (LeNetish, Attn):
        net = cls()
        for p in net.get_parameters():
            if p.requires_grad:
                p.set_data(T(rng.randn(*p.shape) * 0.7))
        built.append(net.set_train(False))
    return built, x1, x2


def test_auto_lenet_and_attention_match_mindspore():
    (lenet, attn), x1, x2 = _nets()
    ref32 = attn(x2)[0].asnumpy()
    out = amp.auto_mixed_precision(lenet, "auto")
    assert out is lenet and type(out) is LeNetish        # converted in place, same class (measured)
    y = out(x1)
    # conv (with bias) and Dense add their float32 bias after a float16 product: Float32 out
    assert y.dtype == ms.float32
    np.testing.assert_allclose(y.asnumpy().ravel()[:6], [3.0832405, 2.4980497, -2.8030381, 3.1164436, 1.404788,
                                                        0.40204006], rtol=2e-6, atol=2e-6)
    o, s, p = amp.auto_mixed_precision(attn, "auto")(x2)
    # the scores are a float16 matmul (not cast back), softmax and LayerNorm compute in float32
    assert (o.dtype, s.dtype, p.dtype) == (ms.float32, ms.float16, ms.float32)
    np.testing.assert_allclose(o.asnumpy().ravel()[:6], [0.86417294, 0.56603354, -1.3587186, -1.041449, -0.64111,
                                                        0.65265703], rtol=2e-6, atol=2e-6)
    np.testing.assert_array_equal(s.asnumpy().ravel()[:6], np.float16([-0.3852539, 0.8823242, 0.703125, 0.734375,
                                                                      -0.1550293, -0.2824707]))
    np.testing.assert_allclose(p.asnumpy().ravel()[:6], [0.13294871, 0.4722658, 0.39478555, 0.56413233, 0.23180218,
                                                        0.20406546], rtol=2e-6, atol=2e-6)
    assert np.abs(o.asnumpy() - ref32).max() > 1e-4      # float16 products did run


class _Op(nn.Cell):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn
        self.w = ms.Parameter(T(np.arange(16).reshape(4, 4) / 7.0 - 1), name="w")

    def construct(self, x, y):
        return self.fn(self, x, y)


# (op, output dtype for float32 x, for float16 x) measured on MindSpore 2.10 CPU under "auto"
CASES = [
    ("matmul", lambda s, x, y: ops.matmul(x, s.w), "float16", "float16"),
    ("at", lambda s, x, y: x @ s.w, "float16", "float16"),
    ("MatMul class", lambda s, x, y: ops.MatMul()(x, s.w), "float16", "float16"),
    ("exp", lambda s, x, y: ops.exp(x), "float32", "float32"),
    ("Tensor.exp", lambda s, x, y: x.exp(), "float32", "float32"),
    ("x**2", lambda s, x, y: x ** 2, "float32", "float32"),
    ("sqrt", lambda s, x, y: ops.sqrt(x), "float32", "float16"),
    ("softmax", lambda s, x, y: ops.softmax(x), "float32", "float32"),
    ("ops.sum", lambda s, x, y: ops.sum(x), "float32", "float32"),
    ("mean", lambda s, x, y: ops.mean(x), "float32", "float16"),
    ("relu", lambda s, x, y: ops.relu(x), "float32", "float16"),
    ("sigmoid", lambda s, x, y: ops.sigmoid(x), "float32", "float16"),
    ("concat", lambda s, x, y: ops.concat((x, y)), "float32", "float32"),
    ("mse_loss", lambda s, x, y: ops.mse_loss(x, y), "float32", "float32"),
]


@pytest.mark.parametrize("name,fn,dt32,dt16", CASES, ids=[c[0] for c in CASES])
def test_auto_op_lists(name, fn, dt32, dt16):
    x = T(np.linspace(0.5, 2.0, 8).reshape(2, 4))
    y = T(np.linspace(1.0, 1.5, 8).reshape(2, 4))
    ref = fn(_Op(fn), x, y).asnumpy().astype(np.float64)
    for xin, want in ((x, dt32), (x.astype(ms.float16), dt16)):
        out = amp.auto_mixed_precision(_Op(fn), "auto")(xin, y)
        assert out.dtype == getattr(ms, want), name
        got = out.astype(ms.float32).asnumpy()
        np.testing.assert_allclose(got, ref, rtol=5e-3, atol=5e-3)
        if want == "float16" and xin is x:   # a float16 computation from float32 inputs, not a float32 one cast
            assert np.abs(got - ref).max() > 0


def test_auto_leaves_other_networks_and_ops_alone():
    fn = CASES[0][1]
    amp.auto_mixed_precision(_Op(fn), "auto")
    x = T(np.ones((2, 4)))
    assert _Op(fn)(x, x).dtype == ms.float32 and ops.matmul(x, x.T).dtype == ms.float32


def test_auto_under_jit_and_bfloat16():
    x = T(np.linspace(0.5, 2.0, 8).reshape(2, 4))
    net = amp.auto_mixed_precision(_Op(CASES[0][1]), "auto", dtype=ms.bfloat16)
    out = ms.jit(net)(x, x)
    assert out.dtype == ms.bfloat16
    w = np.arange(16).reshape(4, 4) / 7.0 - 1
    np.testing.assert_allclose(out.astype(ms.float32).asnumpy(), x.asnumpy() @ w, rtol=2e-2, atol=2e-2)
    with pytest.raises(ValueError, match=r"The dtype should be one of \(mstype.float16, mstype.bfloat16\)"):
        amp.auto_mixed_precision(_Op(CASES[0][1]), "auto", dtype=ms.float32)


def test_build_train_network_auto():
    class D(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(4, 3)
            self.relu = nn.ReLU()

        def construct(self, x):
            return self.relu(self.fc(x))

    ms.set_seed(1)
    net = D()
    step = amp.build_train_network(net, nn.SGD(net.trainable_params()), nn.MSELoss(), level="auto")
    loss = step(T(np.ones((2, 4))), T(np.zeros((2, 3))))
    assert type(step).__name__ == "TrainOneStepCell"
    # MindSpore 2.10: 0.26891533 (O0 0.26892552, O1/O3 0.26906332)
    np.testing.assert_allclose(loss.asnumpy(), 0.26891533, rtol=1e-6)


# -- O1's operators (measured on MindSpore 2.10 CPU: x = linspace(-2.3, 3.1, 8) as [2, 4],
#    w = linspace(-1.1, 1.3, 16) as [4, 4]; first three outputs, all Float32) ----------------------

class _O1Net(nn.Cell):
    def __init__(self, which):
        super().__init__()
        self.which = which
        self.mm = ops.MatMul()
        self.bmm = ops.BatchMatMul()
        self.relu_op = ops.ReLU()
        self.p = ms.Parameter(T(np.linspace(-1.1, 1.3, 16).reshape(4, 4)), name="p")

    def construct(self, x):
        if self.which == "MatMul":
            return self.mm(x, self.p)
        if self.which == "BatchMatMul":
            return self.bmm(x[None], self.p[None])
        if self.which == "ops.bmm":
            return ops.bmm(x[None], self.p[None])
        if self.which == "mm_relu":
            return ops.relu(ops.matmul(x, self.p))
        if self.which == "ops.ReLU()":
            return self.relu_op(x - 2.4)
        return ops.matmul(x, self.p)


O1_CASES = [("MatMul", [3.1074219, 2.3769531, 1.6455078]), ("BatchMatMul", [3.1074219, 2.3769531, 1.6455078]),
            ("ops.bmm", [3.1074219, 2.3769531, 1.6455078]), ("mm_relu", [3.109375, 2.3769531, 1.6455078]),
            ("ops.matmul", [3.1085713, 2.3771427, 1.6457142])]   # ops.matmul is not converted


@pytest.mark.parametrize("which,want", O1_CASES, ids=[c[0] for c in O1_CASES])
def test_o1_white_list_operators(which, want):
    x = T(np.linspace(-2.3, 3.1, 8).reshape(2, 4))
    out = amp.auto_mixed_precision(_O1Net(which), "O1")(x)
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy().ravel()[:3], want, rtol=1e-6)


def test_o1_relu_cells_and_ops_compute_in_float16():
    x = T(np.linspace(-2.3, 3.1, 8).reshape(2, 4))
    for net in (nn.ReLU(), _O1Net("ops.ReLU()")):
        shift = 0.0 if isinstance(net, nn.ReLU) else 2.4
        out = amp.auto_mixed_precision(net, "O1")(x)
        got = out.asnumpy()
        assert out.dtype == ms.float32
        want = np.maximum(np.float32(x.asnumpy() - shift).astype(np.float16), 0).astype(np.float32)
        np.testing.assert_array_equal(got, want)   # float16 rounding: a float32 relu would differ
        assert not np.array_equal(got, np.maximum(x.asnumpy() - shift, 0))

"""amp.custom_mixed_precision and O1's rewritten copy (graphcell/amp_custom.py). Literals were
measured on MindSpore 2.10 (CPU) with the same nets and numpy-drawn weights."""
import pickle
import threading

import numpy as np
import pytest

import graphcell as ms
from graphcell import amp, nn, ops

T = lambda a: ms.Tensor(np.asarray(a, np.float32))  # noqa: E731
X = T(np.linspace(-2.3, 3.1, 8).reshape(2, 4))


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 5)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(5, 3)
        self.bn = nn.BatchNorm1d(5)
        self.mm = ops.MatMul()
        self.w = ms.Parameter(T(np.linspace(-1, 1, 9).reshape(3, 3)), name="w")

    def construct(self, x):
        h = self.relu(self.bn(self.fc1(x)))
        y = self.fc2(h)
        return self.mm(y, self.w), y, h


def mlp():
    rng = np.random.RandomState(0)
    net = MLP().set_train(False)
    for p in net.get_parameters():
        if p.requires_grad:
            p.set_data(T(rng.randn(*p.shape) * 0.7))
    return net


# (white/black list, first four values of the three outputs of the converted network, and of
# the original network's first output called afterwards); all outputs Float32
MLP_CASES = [
    ("white Dense", dict(white_list=[nn.Dense]),
     [[-1.5316498, -1.154379, 0.40167114, -1.3860693], [-0.23144531, -0.82714844, 0.07763672, 0.56396484],
      [0.40831947, 0.15481955, 0.0, 0.0]], [-1.5316498, -1.154379, 0.40167114, -1.3860693]),
    ("white ReLU", dict(white_list=[nn.ReLU]),
     [[-1.5306989, -1.1537231, 0.4013284, -1.3871206], [-0.23141775, -0.82663834, 0.07781228, 0.5641142],
      [0.408203125, 0.154541015625, 0.0, 0.0]], [-1.5306989, -1.1537231, 0.4013284, -1.3871206]),
    # ops.MatMul: the top-level self.mm and Dense's product (its float32 bias added after);
    # the original network's own self.mm stays float32
    ("white MatMul", dict(white_list=[ops.MatMul]),
     [[-1.5302734375, -1.154296875, 0.4013671875, -1.3857421875], [-0.23137669, -0.82677776, 0.0777165, 0.5639724],
      [0.40823698, 0.15476608, 0.0, 0.0]], [-1.5309305, -1.1538837, 0.40145883, -1.385646]),
    ("white Dense+MatMul", dict(white_list=[nn.Dense, ops.MatMul]),
     [[-1.53125, -1.154296875, 0.401611328125, -1.3857421875], [-0.23144531, -0.82714844, 0.07763672, 0.56396484],
      [0.40831947, 0.15481955, 0.0, 0.0]], [-1.5316498, -1.154379, 0.40167114, -1.3860693]),
]


@pytest.mark.parametrize("name,kw,want,orig_after", MLP_CASES, ids=[c[0] for c in MLP_CASES])
def test_white_lists_on_mlp_match_mindspore(name, kw, want, orig_after):
    net = mlp()
    out = amp.custom_mixed_precision(net, **kw)
    assert out is not net and type(out).__name__ == "MLPOpt" and isinstance(out, MLP)
    assert out.fc1 is net.fc1 and all(a is b for a, b in zip(out.get_parameters(), net.get_parameters()))
    got = out(X)
    assert [o.dtype for o in got] == [ms.float32] * 3
    for o, w in zip(got, want):
        np.testing.assert_allclose(o.asnumpy().ravel()[:4], w, rtol=3e-6, atol=1e-7)
    np.testing.assert_allclose(net(X)[0].asnumpy().ravel()[:4], orig_after, rtol=3e-6)


def test_black_list_returns_output_to_32_and_converts_in_place():
    net = mlp()
    out = amp.custom_mixed_precision(net, black_list=[nn.BatchNorm1d])
    assert type(out).__name__ == "_OutputTo32"
    got = out(X)
    assert [o.dtype for o in got] == [ms.float32] * 3
    # MindSpore 2.10: every Cell but BatchNorm1d in float16
    np.testing.assert_allclose(got[0].asnumpy().ravel()[:4], [-1.53125, -1.154296875, 0.401611328125, -1.3857421875])
    np.testing.assert_allclose(got[1].asnumpy().ravel()[:4], [-0.2314453125, -0.8271484375, 0.07763671875,
                                                              0.56396484375])
    np.testing.assert_allclose(got[2].asnumpy().ravel()[:4], [0.408203125, 0.15478515625, 0.0, 0.0])
    assert [o.dtype for o in net(X)] == [ms.float16] * 3   # the network itself now returns float16
    assert [p.name for p in out.get_parameters()] == [p.name for p in net.get_parameters()]


class _Blk(nn.Cell):
    def __init__(self):
        super().__init__()
        self.mm = ops.MatMul()
        self.w = ms.Parameter(T(np.linspace(-1, 1, 16).reshape(4, 4)), name="bw")

    def construct(self, x):
        return self.mm(x, self.w)


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 4)
        self.blk = _Blk()
        self.mm = ops.MatMul()
        self.w = ms.Parameter(T(np.linspace(-1, 1, 16).reshape(4, 4)), name="w")

    def construct(self, x):
        return (self.fc1(x), self.blk(x), self.mm(x, self.w), ops.relu(x - 1.0), ops.matmul(x, self.w),
                ops.exp(x * 0.3), (x * 0.3).exp(), ops.sigmoid(x), ops.add(x, 0.1), x + 0.1, ops.sum(x * 0.3, 1))


def _net():
    rng = np.random.RandomState(0)
    net = _Net()
    for p in net.get_parameters():
        p.set_data(T(rng.randn(*p.shape) * 0.7))
    return net


def _is16(a):
    return np.array_equal(a, a.astype(np.float16).astype(np.float32))


# which outputs of _Net compute in float16 (then Float32), for the converted copy and for the
# original network called afterwards (MindSpore 2.10: a construct's own functional ops that are
# one operator convert; Tensor methods, operators and composed ops such as ops.matmul/sum do not).
# Under ops.MatMul, Dense (output 0) is a float16 product plus a float32 bias, in both.
WHICH = [([nn.Dense], [0], [0]), ([ops.MatMul], [1, 2], [1]), ([ops.ReLU], [3], []), ([ops.Exp], [5], []),
         ([_Blk], [1], [1]), ([ops.Sigmoid, ops.Add, ops.ReduceSum], [7, 8], [])]


@pytest.mark.parametrize("white,low,low_orig", WHICH, ids=[str([c.__name__ for c in w[0]]) for w in WHICH])
def test_which_ops_convert(white, low, low_orig):
    mixed = [0] if white == [ops.MatMul] else []
    ref = [o.asnumpy() for o in _net()(X)]
    net = _net()
    out = amp.custom_mixed_precision(net, white_list=white)
    for outs, expect in ((out(X), low), (net(X), low_orig)):
        for i, (o, r) in enumerate(zip(outs, ref)):
            assert o.dtype == ms.float32
            a = o.asnumpy()
            if i in expect:
                assert _is16(a) and not np.array_equal(a, r), i
            elif i in mixed:
                assert not _is16(a) and np.abs(a - r).max() > 1e-4
            else:
                np.testing.assert_allclose(a, r, rtol=1e-6, err_msg=str(i))


def test_errors_match_mindspore():
    cm = amp.custom_mixed_precision
    with pytest.raises(TypeError, match=r"^The network type should be Cell\.$"):
        cm(lambda x: x, white_list=[nn.Dense])
    with pytest.raises(ValueError, match=r"^For custom_mixed_precision, one of white_list and black_list must be "
                                         r"provided\.$"):
        cm(_Net())
    with pytest.raises(ValueError, match=r"the white_list or black_list cannot be provided at the same time, "
                                         r"please provide one or the other\.$"):
        cm(_Net(), white_list=[nn.Dense], black_list=[nn.Dense])
    with pytest.raises(ValueError, match=r"^The dtype should be one of \(mstype.float16, mstype.bfloat16\), "
                                         r"but got Float32\.$"):
        cm(_Net(), white_list=[1], dtype=ms.float32)   # the dtype is checked before the list
    with pytest.raises(TypeError, match=r"^The type of white_list should be list, but got <class 'type'>$"):
        cm(_Net(), white_list=nn.Dense)
    with pytest.raises(TypeError, match=r"^The type of black_list should be list, but got <class 'tuple'>$"):
        cm(_Net(), black_list=(nn.Dense,))
    with pytest.raises(TypeError, match=r"^The element in white_list should be a class, but got 1$"):
        cm(_Net(), white_list=[1])
    with pytest.raises(TypeError, match=r"^The subclass of element in white_list should be one of 'Cell' and "
                                        r"'Primitive', but got <class 'int'>$"):
        cm(_Net(), white_list=[int])
    with pytest.raises(TypeError, match=r"^The subclass of element in black_list should be one of 'Cell', but got "
                                        r"<class 'graphcell.ops.operations.MatMul'>$"):
        cm(_Net(), black_list=[ops.MatMul])


class _O1Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 4)
        self.mm = ops.MatMul()
        self.w = ms.Parameter(T(np.linspace(-1, 1, 16).reshape(4, 4)), name="w")

    def construct(self, x):
        return self.mm(self.fc1(x), self.w)


def test_o1_returns_a_rewritten_copy(tmp_path):
    ms.set_seed(2)
    net = _O1Net()
    out = amp.auto_mixed_precision(net, "O1")
    # MindSpore 2.10: a NetOpt copy; the original's Dense is converted, its own MatMul not
    assert out is not net and type(out).__name__ == "_O1NetOpt" and repr(out).startswith("_O1NetOpt(\n  (fc1): ")
    assert out.w is net.w and out.fc1 is net.fc1
    got, orig = out(X).asnumpy(), net(X).asnumpy()
    assert _is16(got) and not _is16(orig)
    np.testing.assert_allclose(orig, np.float16(net.fc1(X).asnumpy()).astype(np.float32) @ net.w.asnumpy(),
                               rtol=1e-6)
    ms.save_checkpoint(out, str(tmp_path / "o1.ckpt"))
    assert sorted(ms.load_checkpoint(str(tmp_path / "o1.ckpt"))) == ["fc1.bias", "fc1.weight", "w"]   # as 2.10
    again = pickle.loads(pickle.dumps(out))
    assert type(again).__name__ == "_O1NetOpt"
    np.testing.assert_array_equal(again(X).asnumpy(), got)


def test_o1_on_a_dense_converts_its_product_only():
    ms.set_seed(1)
    dense = nn.Dense(4, 3)
    ref = dense(X).asnumpy()
    out = amp.auto_mixed_precision(dense, "O1")
    got = out(X).asnumpy()
    # MindSpore 2.10: DenseOpt, a float16 product plus the float32 bias; the network itself is not
    # matched against the white list's Cells (custom_mixed_precision(dense, white_list=[nn.Dense])
    # leaves it float32)
    assert type(out).__name__ == "DenseOpt" and not _is16(got) and not np.array_equal(got, ref)
    w16 = np.float16(X.asnumpy()) @ np.float16(dense.weight.asnumpy()).T
    np.testing.assert_allclose(got, np.float32(np.float16(w16)) + dense.bias.asnumpy(), rtol=1e-6)
    np.testing.assert_array_equal(dense(X).asnumpy(), ref)
    np.testing.assert_array_equal(amp.custom_mixed_precision(dense, white_list=[nn.Dense])(X).asnumpy(), ref)


def test_op_hooks_mode_is_per_thread():
    net = amp.custom_mixed_precision(_net(), white_list=[ops.Exp])
    seen = []

    def other():   # runs while the converted network is not running in this thread
        seen.append(ops.exp(X * 0.3).asnumpy())

    class Probe(nn.Cell):
        def construct(self, x):
            t = threading.Thread(target=other)
            t.start()
            t.join()
            return ops.exp(x * 0.3)

    probe = amp.custom_mixed_precision(Probe(), white_list=[ops.Exp])
    assert _is16(probe(X).asnumpy()) and not _is16(seen[0])
    assert net is not None

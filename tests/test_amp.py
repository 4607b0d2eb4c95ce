"""graphcell.amp (loss scalers, all_finite, auto_mixed_precision) and DistributedGradReducer."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, nn, ops
from graphcell.amp import DynamicLossScaler, StaticLossScaler, all_finite, auto_mixed_precision
from tests.conftest import golden_array, load_lenet

GRADS = (np.array([2048.0, -512.0], np.float32), np.array([[1024.0]], np.float32))


def as_tensors(arrays):
    return tuple(Tensor(a) for a in arrays)


# -- all_finite -------------------------------------------------------------------------------------

CASES = [((np.ones(3, np.float32),), True),
         ((np.ones(3, np.float32), np.array([1.0, np.inf], np.float32)), False),
         ((np.array([np.nan], np.float16), np.ones(2, np.float32)), False),
         ((np.array([-np.inf], np.float64),), False),
         ((np.ones(2, np.float32), np.array([7], np.int32)), True)]


@pytest.mark.parametrize("arrays,expected", CASES)
def test_all_finite_eager_and_jit(arrays, expected):
    assert expected == all(np.isfinite(a).all() for a in arrays)  # the reference
    eager = all_finite(as_tensors(arrays))
    assert eager.dtype == ms.bool_ and eager.shape == () and bool(eager) is expected
    jitted = ms.jit(lambda *ts: all_finite(ts))(*as_tensors(arrays))
    assert bool(jitted) is expected


def test_all_finite_nested_and_single():
    nested = (Tensor(np.ones(2, np.float32)), (Tensor(np.ones(1, np.float32)), Tensor(np.array([np.nan], np.float32))))
    assert not bool(all_finite(nested))
    assert bool(all_finite(Tensor(np.ones(4, np.float32))))
    with pytest.raises(TypeError, match="Tensor"):
        all_finite([np.ones(2)])


# -- StaticLossScaler ---------------------------------------------------------------------------------

def test_static_scaler_scale_unscale_eager_and_jit():
    scaler = StaticLossScaler(1024.0)
    loss = Tensor(np.float32(0.75))
    np.testing.assert_array_equal(scaler.scale(loss).asnumpy(), np.float32(768.0))
    grads = as_tensors(GRADS)
    expected = [g * np.float32(1 / 1024) for g in GRADS]
    for out in (scaler.unscale(grads), ms.jit(lambda g: scaler.unscale(g))(grads)):
        assert isinstance(out, tuple) and len(out) == 2
        for o, e in zip(out, expected):
            assert o.dtype == ms.float32
            np.testing.assert_array_equal(o.asnumpy(), e)
    nested = scaler.scale((Tensor(np.float32(1.0)), [Tensor(np.float16(2.0))]))
    assert isinstance(nested[1], list) and nested[1][0].dtype == ms.float16 and float(nested[1][0]) == 2048.0
    assert scaler.adjust(Tensor(True)) is False
    with pytest.raises(ValueError, match="scale_value"):
        StaticLossScaler(0)


# -- DynamicLossScaler ---------------------------------------------------------------------------------

def reference_dynamic(scale, factor, window, finite_flags):
    """MindSpore's DynamicLossScaler.adjust, in plain Python."""
    counter, history = 0, []
    for finite in finite_flags:
        if finite:
            if counter == window - 1:
                grown = np.float32(scale * factor)
                scale = grown if np.isfinite(grown) else scale
            counter = (counter + 1) % window
        else:
            scale = max(1.0, scale / factor)
            counter = 0
        history.append((float(scale), counter))
    return history


FLAGS = [True, True, True, False, True, True, True, True, False, False, True]


def test_dynamic_scaler_eager_matches_reference():
    scaler = DynamicLossScaler(2.0 ** 4, 2, 3)
    got = []
    for flag in FLAGS:
        assert scaler.adjust(Tensor(flag)) is True
        got.append((float(scaler.scale_value), int(scaler.counter)))
    assert got == reference_dynamic(16.0, 2.0, 3, FLAGS)


def test_dynamic_scaler_under_jit_decides_from_all_finite():
    scaler = DynamicLossScaler(2.0 ** 4, 2, 3)

    @ms.jit
    def step(grads):
        grads = scaler.unscale(grads)
        finite = all_finite(grads)
        scaler.adjust(finite)
        return grads, finite

    got = []
    for flag in FLAGS:
        g = np.array([1.0, 2.0], np.float32) if flag else np.array([1.0, np.inf], np.float32)
        before = float(scaler.scale_value)
        (out,), finite = step((Tensor(g),))
        assert bool(finite) is flag
        np.testing.assert_array_equal(out.asnumpy(), g * np.float32(1 / before))
        got.append((float(scaler.scale_value), int(scaler.counter)))
    assert got == reference_dynamic(16.0, 2.0, 3, FLAGS)
    assert step.cache_size == 1  # the scale lives in a Parameter: one compiled graph for every value


def test_dynamic_scaler_never_goes_below_one_or_overflows():
    scaler = DynamicLossScaler(2.0, 4, 1)
    for _ in range(3):
        scaler.adjust(Tensor(False))
    assert float(scaler.scale_value) == 1.0
    huge = DynamicLossScaler(3e38, 2, 1)
    huge.adjust(Tensor(True))
    assert float(huge.scale_value) == np.float32(3e38)


# -- auto_mixed_precision ------------------------------------------------------------------------------

X = golden_array("minibatch.npy")  # MindSpore's float32 output for it: net0_out.npy


def compute_dtypes(net, x):
    """{primitive name: set of output dtypes} of the traced graph."""
    graph = ms.trace(net, Tensor(x)).graph
    kinds = {}
    for node in graph.nodes:
        kinds.setdefault(node.primitive.name, set()).add(str(node.outputs[0].type.dtype))
    return kinds, graph


@pytest.mark.parametrize("level", ["O1", "O2", "O3"])
@pytest.mark.parametrize("dtype,tol", [(ms.float16, 2e-3), (ms.bfloat16, 2e-2)])
def test_lenet_under_amp_stays_close_to_float32(level, dtype, tol):
    reference = golden_array("net0_out.npy")  # real MindSpore, float32
    net = auto_mixed_precision(load_lenet(0), level, dtype)
    assert all(p.dtype == ms.float32 for p in net.get_parameters())  # float32 master weights
    assert [p.name for p in net.get_parameters()] == [p.name for p in load_lenet(0).get_parameters()]
    jitted = ms.jit(net)(Tensor(X))
    assert jitted.dtype == ms.float32
    scale = np.abs(reference).max()
    np.testing.assert_allclose(jitted.asnumpy(), reference, atol=tol * scale)
    assert np.abs(jitted.asnumpy() - reference).max() > 0  # it really ran in low precision
    if (level, dtype) == ("O2", ms.float16):  # eager (op by op) runs the same casts; slow, so once
        eager = net(Tensor(X))
        assert eager.dtype == ms.float32
        np.testing.assert_allclose(eager.asnumpy(), jitted.asnumpy(), atol=1e-3 * scale)
    kinds, _ = compute_dtypes(net, X)
    low = str(dtype)
    assert kinds["conv"] == {low} and kinds["dot_general"] == {low}
    if level == "O1":  # Dense/Conv2d and ReLU (one white-list operator, measured on 2.10) are low precision
        assert kinds["reduce_window_max"] == {"Float32"} and kinds["relu"] == {low}
    else:
        assert kinds["reduce_window_max"] == {low}


def test_amp_casts_only_trainable_parameters_of_the_right_cells():
    net = auto_mixed_precision(load_lenet(0), "O1")
    _, graph = compute_dtypes(net, X)
    cast_params = {n.inputs[0].name for n in graph.nodes
                   if n.primitive.name == "cast" and n.inputs[0].kind == "param"}
    assert cast_params == {p.name for p in net.trainable_params()}


class ConvBN(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, has_bias=True)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Dense(4 * 8 * 8, 3)

    def construct(self, x):
        return self.fc(ms.ops.flatten(nn.ReLU()(self.bn(self.conv(x)))))


def test_o2_keeps_batchnorm_in_float32_and_its_statistics_update():
    ms.set_seed(1)
    reference = ConvBN()
    ms.set_seed(1)
    net = auto_mixed_precision(ConvBN(), "O2")
    net.set_train(True)
    reference.set_train(True)
    x = X[:, :, :8, :8]
    _, graph = compute_dtypes(net, x)
    # the result wraps the network (MindSpore's _OutputTo32), whose child the scope names
    bn_nodes = [n for n in graph.nodes if n.source is not None and n.source.scope == "_backbone.bn"]
    assert bn_nodes and all(str(n.outputs[0].type.dtype) in ("Float32", "Bool") for n in bn_nodes
                            if n.primitive.name != "cast")
    conv_nodes = [n for n in graph.nodes if n.primitive.name == "conv"]
    assert str(conv_nodes[0].outputs[0].type.dtype) == "Float16"
    out, ref = ms.jit(net)(Tensor(x)), ms.jit(reference)(Tensor(x))
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), ref.asnumpy(), atol=5e-3 * np.abs(ref.asnumpy()).max())
    assert net.bn.moving_mean.dtype == ms.float32
    np.testing.assert_allclose(net.bn.moving_mean.asnumpy(), reference.bn.moving_mean.asnumpy(), atol=1e-3)
    assert np.abs(net.bn.moving_mean.asnumpy()).max() > 0


def test_amp_argument_errors_and_o0():
    net = load_lenet(0)
    assert auto_mixed_precision(net, "O0") is net
    np.testing.assert_allclose(ms.jit(net)(Tensor(X)).asnumpy(), golden_array("net0_out.npy"), atol=1e-5)
    # MindSpore 2.10's messages (measured)
    with pytest.raises(ValueError, match="^The amp level O4 is not supported$"):
        auto_mixed_precision(net, "O4")
    with pytest.raises(ValueError, match=r"should be one of \(mstype.float16, mstype.bfloat16\), but got Float64"):
        auto_mixed_precision(net, "O2", ms.float64)
    auto_mixed_precision(net, "O3")
    with pytest.warns(UserWarning, match="adjusted from O3 to O1"):   # MindSpore 2.10 warns and converts
        auto_mixed_precision(net, "O1")


# -- DistributedGradReducer ----------------------------------------------------------------------------

def test_grad_reducer_is_identity_stand_alone():
    net = load_lenet(0)
    grads = tuple(Tensor(np.full(p.shape, 0.5, np.float32)) for p in net.trainable_params())
    reducer = nn.DistributedGradReducer(net.trainable_params())
    assert ms.get_auto_parallel_context("parallel_mode") == ms.ParallelMode.STAND_ALONE
    out = reducer(grads)
    assert len(out) == len(grads) and all(o is g for o, g in zip(out, grads))
    jitted = ms.jit(lambda g: reducer(g))(grads)
    for o, g in zip(jitted, grads):
        np.testing.assert_array_equal(o.asnumpy(), g.asnumpy())
    assert list(reducer.get_parameters()) == []  # it owns no parameters


def test_grad_reducer_single_device_data_parallel_is_identity():
    # More devices than visible is rejected in tests/test_distributed.py.
    try:
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, device_num=1)
        assert nn.DistributedGradReducer([])((Tensor(1.0),))[0].item() == 1.0
    finally:
        ms.reset_auto_parallel_context()


def test_amp_survives_deepcopy():
    import copy
    net = auto_mixed_precision(load_lenet(0), "O3")
    twin = copy.deepcopy(net)
    twin.fc3.bias.set_data(np.full(10, 100.0, np.float32))  # must not touch net
    out_net, out_twin = ms.jit(net)(Tensor(X)).asnumpy(), ms.jit(twin)(Tensor(X)).asnumpy()
    np.testing.assert_allclose(out_net, golden_array("net0_out.npy"), atol=5e-3)
    np.testing.assert_allclose(out_twin - out_net, 100.0, atol=0.25)  # float16 ulp at 100 is 0.0625
    _, graph = compute_dtypes(twin, X)
    assert str(graph.outputs[0].type.dtype) == "Float32" and graph.inputs[0].name == "x"


def test_to_float_casts_inputs_and_keeps_float32_parameters():
    """MindSpore's Cell.to_float: the cells compute in float16 on float32 inputs, and the
    Parameters stay float32 (it cast their storage, and a float32 input then failed)."""
    net = nn.SequentialCell([nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 2)])
    x = Tensor(np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32))
    want = net(x).asnumpy()
    assert net.to_float(ms.float16) is net
    out = net(x)
    assert out.dtype == ms.float16 and all(p.dtype == ms.float32 for p in net.get_parameters())
    np.testing.assert_allclose(out.asnumpy().astype(np.float32), want, rtol=2e-2, atol=2e-2)
    assert ms.jit(net)(x).dtype == ms.float16


@pytest.mark.parametrize("make", [lambda: StaticLossScaler(float("nan")), lambda: StaticLossScaler(float("inf")),
                                  lambda: DynamicLossScaler(float("inf"), 2, 2)])
def test_loss_scalers_refuse_nan_and_infinite_settings(make):
    with pytest.raises(ValueError, match="finite"):
        make()


def test_o1_white_list_is_mindspores():
    # MindSpore 2.10's amp.get_white_list(), measured: these Cells, then operator classes
    assert [c.__name__ for c in ms.amp.get_white_list()] == [
        "Conv1d", "Conv2d", "Conv3d", "Conv1dTranspose", "Conv2dTranspose", "Conv3dTranspose", "Dense",
        "LSTMCell", "RNNCell", "GRUCell", "Conv2D", "Conv3D", "Conv2DTranspose", "Conv3DTranspose",
        "Conv2DBackpropInput", "MatMul", "BatchMatMul", "PReLU", "ReLU", "Ger"]
    assert ms.amp.get_white_list() is not ms.amp.get_white_list()   # a copy


class _ConvAndLSTMCell(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(2, 3, 3, has_bias=True)
        self.cell = nn.LSTMCell(3 * 8, 4)   # pad_mode "same": 8 positions

    def construct(self, x):
        y = ops.relu(self.conv(x))
        h, c = self.cell(y.reshape(y.shape[0], -1), (ops.zeros((y.shape[0], 4)), ops.zeros((y.shape[0], 4))))
        return h + c


def test_o1_runs_conv1d_and_the_rnn_cells_in_low_precision():
    ms.set_seed(3)
    x = np.random.default_rng(0).normal(size=(2, 2, 8)).astype(np.float32)
    reference = _ConvAndLSTMCell()
    want = ms.jit(reference)(Tensor(x)).asnumpy()
    net = auto_mixed_precision(reference, "O1")
    got = ms.jit(net)(Tensor(x))
    assert got.dtype == ms.float32
    np.testing.assert_allclose(got.asnumpy(), want, atol=5e-3)
    assert np.abs(got.asnumpy() - want).max() > 0   # it really ran in float16
    kinds, _ = compute_dtypes(net, x)
    assert kinds["conv"] == {"Float16"} and kinds["dot_general"] == {"Float16"}
    assert kinds["relu"] == {"Float16"}   # ops.relu is a white-list operator (measured on 2.10)

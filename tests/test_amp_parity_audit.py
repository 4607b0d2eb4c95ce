"""The mixed-precision parity audit's fixes (session 18), each against MindSpore 2.10's measured
values or a numpy float16/float32 reference: float16 sums accumulate in float32, float16
BatchNorm and LayerNorm compute their statistics in float32, auto_mixed_precision's checks and
repeated calls, the loss scalers' Parameters and messages, float16 printing."""
import warnings

import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, amp, nn, ops

R = np.random.default_rng(1)
X16 = (R.standard_normal((4, 10)) * 2).astype(np.float16)
BIG16 = (R.standard_normal((2, 16)) * 400 + 300).astype(np.float16)   # squares overflow float16


def test_float16_sums_accumulate_in_float32():
    # MindSpore 2.10 (measured): 0.2229 and [4.5, -2.998, -5.465, 4.188], the float32 sums rounded;
    # a float16 accumulator gives 0.221 and -5.47, 4.19
    want_all = np.float16(X16.astype(np.float32).sum())
    want_rows = X16.astype(np.float32).sum(1).astype(np.float16)
    assert want_all == np.float16(0.2229)
    np.testing.assert_array_equal(want_rows, np.array([4.5, -2.998, -5.465, 4.188], np.float16))
    eager = (ops.sum(Tensor(X16)), ops.sum(Tensor(X16), 1))
    jitted = ms.jit(lambda t: (ops.sum(t), ops.sum(t, 1)))(Tensor(X16))
    for total, rows in (eager, jitted):
        assert total.dtype == ms.float16 and rows.dtype == ms.float16
        assert total.asnumpy() == want_all
        np.testing.assert_array_equal(rows.asnumpy(), want_rows)


def _layer_norm_ref(x):
    x = x.astype(np.float64)
    return ((x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-7)).astype(np.float16)


def test_float16_layer_norm_computes_its_statistics_in_float32():
    ln = nn.LayerNorm((16,))
    ln.to_float(ms.float16)
    out = ln(Tensor(BIG16))
    assert out.dtype == ms.float16
    # MindSpore 2.10 (measured) gives the normalised rows ([-1.583, -0.7847, 0.11237, ...]);
    # float16 statistics overflowed (variance inf) to rows of zeros
    np.testing.assert_allclose(out.asnumpy().astype(np.float32), _layer_norm_ref(BIG16), atol=2e-3)
    np.testing.assert_allclose(out.asnumpy()[0, :3].astype(np.float32), [-1.583, -0.7847, 0.11237], atol=1e-3)


def test_float16_batch_norm_training_statistics_in_float32():
    bn = nn.BatchNorm1d(16)
    bn.to_float(ms.float16)
    bn.set_train(True)
    out = bn(Tensor(BIG16))
    assert out.dtype == ms.float16 and bn.moving_variance.dtype == ms.float32
    x = BIG16.astype(np.float64)
    # two samples: each normalises to -1 or +1 (MindSpore 2.10, measured; channel 0 was 0 with
    # a float16 variance of inf)
    np.testing.assert_array_equal(out.asnumpy(), np.sign(x - x.mean(0)).astype(np.float16))
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), 0.1 * x.mean(0), rtol=1e-5)
    np.testing.assert_allclose(bn.moving_variance.asnumpy(), 0.9 + 0.1 * x.var(0, ddof=1), rtol=1e-5)
    np.testing.assert_allclose(bn.moving_variance.asnumpy()[:2], [36723.348, 3520.0215], rtol=1e-6)  # 2.10's


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 3, weight_init="ones")
        self.bn = nn.BatchNorm1d(3)

    def construct(self, x):
        return self.bn(self.fc(x))


def test_auto_mixed_precision_checks_and_messages_as_mindspore():
    # MindSpore 2.10 (measured): the network is checked first, then the dtype (even for O0), then the level
    with pytest.raises(TypeError, match=r"^For amp_level 'O1', the network type should be Cell\.$"):
        amp.auto_mixed_precision(lambda x: x, "O1")
    with pytest.raises(ValueError, match="but got Float32"):
        amp.auto_mixed_precision(_Net(), "O5", ms.float32)
    with pytest.raises(ValueError, match="but got Float32"):
        amp.auto_mixed_precision(_Net(), "O0", ms.float32)
    with pytest.raises(ValueError, match="^The amp level O5 is not supported$"):
        amp.auto_mixed_precision(_Net(), "O5")


def test_a_second_auto_mixed_precision_warns_and_converts_again():
    net = _Net()
    amp.auto_mixed_precision(net, "O2")
    x = Tensor(np.ones((2, 4), np.float32))
    assert net(x).dtype == ms.float16
    with pytest.warns(UserWarning, match="^The network's auto mixed-precision level is adjusted from O2 to O3, "
                                         "and repeated calls"):
        amp_net = amp.auto_mixed_precision(net, "O3")
    # as 2.10's: O3 then runs the BatchNorm in float16 as well, and the wrapper returns float32
    assert net._amp_level == "O3" and amp_net(x).dtype == ms.float32
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        amp.auto_mixed_precision(_Net(), "O1")   # a first conversion does not warn


def test_loss_scalers_parameters_and_messages_as_mindspore():
    static = amp.StaticLossScaler(1024.0)
    # MindSpore 2.10's repr (measured)
    assert repr(static.scale_value) == "Parameter (name=scale_value, shape=(), dtype=Float32, requires_grad=True)"
    dynamic = amp.DynamicLossScaler(scale_value=2 ** 16, scale_factor=2, scale_window=3)
    assert repr(dynamic.counter) == "Parameter (name=counter, shape=(), dtype=Int32, requires_grad=True)"
    assert dynamic.scale_factor == 2 and isinstance(dynamic.scale_factor, int)
    assert float(amp.StaticLossScaler(1).scale_value) == 1.0   # 1 passes, whatever the message says
    cases = [(lambda: amp.StaticLossScaler(0.5), ValueError, "The argument 'scale_value' must be > 1, but got 0.5"),
             (lambda: amp.StaticLossScaler(True), TypeError,
              "The type of 'scale_value' should be one of '['float', 'int']', but got type 'bool'."),
             (lambda: amp.DynamicLossScaler(1024, 2.0, 10), TypeError, "The 'scale_factor' must be int, but got 'float'"),
             (lambda: amp.DynamicLossScaler(1024, 0, 10), ValueError,
              "The 'scale_factor' must be int and must > 0, but got '0' with type 'int'."),
             (lambda: amp.DynamicLossScaler(1024, 2, -1), ValueError,
              "The 'scale_window' must be int and must > 0, but got '-1' with type 'int'."),
             (lambda: amp.DynamicLossScaler(1024, 2, 2.5), TypeError, "The 'scale_window' must be int, but got 'float'")]
    for make, error, message in cases:
        with pytest.raises(error) as info:
            make()
        assert str(info.value) == message


def test_dynamic_scaler_trajectory_as_mindspore():
    # MindSpore 2.10 (measured): scale and counter after each adjust
    scaler = amp.DynamicLossScaler(scale_value=2 ** 16, scale_factor=2, scale_window=3)
    flags = [True, True, True, False, True, False, False, True, True, True, True]
    want = [(65536, 1), (65536, 2), (131072, 0), (65536, 0), (65536, 1), (32768, 0), (16384, 0), (16384, 1),
            (16384, 2), (32768, 0), (32768, 1)]
    got = []
    for flag in flags:
        scaler.adjust(Tensor(flag))
        got.append((float(scaler.scale_value.asnumpy()), int(scaler.counter.asnumpy())))
    assert got == want


def test_float16_tensors_print_as_mindspore():
    # MindSpore 2.10 with numpy 1.26 (measured); numpy 2 alone prints [1.536e+03 3.072e+03]
    assert str(Tensor(np.array([1536.0, 3072.0], np.float16))) == "[1536. 3072.]"
    assert str(Tensor(np.array([1.5, 0.001], np.float16))) == "[1.5e+00 1.0e-03]"
    assert str(Tensor(np.float16(2.5))) == "2.5"
    assert str(amp.StaticLossScaler(1024.0).scale(Tensor(np.array([1.5, 3.0], np.float16)))) == "[1536. 3072.]"

"""MindSpore 2.10 top-level names: swap_tensors, get_py_obj_dtype, Symbol/enable_dynamic, the
float8 dtypes, get_level/get_log_config, parameter_broadcast and the saved-tensor hooks' refusal.
Literals were measured on MindSpore 2.10's CPU build; float8 casts are checked against ml_dtypes."""
import ml_dtypes
import numpy as np
import pytest

import graphcell as ms


def test_swap_tensors():
    a, b = ms.Tensor([1., 2.]), ms.Tensor([3, 4, 5], ms.int32)
    assert ms.swap_tensors(a, b) is None
    np.testing.assert_array_equal(a.asnumpy(), [3, 4, 5])           # 2.10: values, shapes and dtypes trade
    assert a.dtype == ms.int32 and b.dtype == ms.float32 and b.shape == (2,)
    with pytest.raises(TypeError, match="'t2' must be a Tensor"):
        ms.swap_tensors(a, np.ones(2))


def test_get_py_obj_dtype():
    cases = [(1, "Int64"), (1.0, "Float64"), (True, "Bool"), ("a", "String"), ([1], "List"), ((1,), "Tuple"),
             (None, "None"), (np.float32(1), "Float32"), (ms.Tensor([1.]), "Tensor[Float32]"), (ms.float32, "TypeType"),
             (1 + 2j, "Complex128")]                                       # 2.10 (its str of TypeNone: None)
    assert [str(ms.get_py_obj_dtype(v)) for v, _ in cases] == [want for _, want in cases]
    with pytest.raises(NotImplementedError, match="The python type <class 'dict'> cannot be converted to MindSpore "
                                                  "type."):
        ms.get_py_obj_dtype({})


def test_log_level_and_config(monkeypatch):
    monkeypatch.delenv("GLOG_v", raising=False)
    monkeypatch.delenv("GLOG_logtostderr", raising=False)
    assert ms.get_level() == "2" and ms.get_log_config() == {'GLOG_v': '2', 'GLOG_logtostderr': '1'}   # 2.10
    monkeypatch.setenv("GLOG_v", "1")
    assert ms.get_level() == "1"


def test_symbol_and_enable_dynamic():
    s = ms.Symbol(max=8, min=1, divisor=2)
    assert s.to_dict() == {"max": 8, "divisor": 2} and ms.Symbol().to_dict() == {}
    assert ms.Tensor(shape=[s, 3], dtype=ms.float32).shape == (-1, 3)     # 2.10: shape=[-1, 3]
    with pytest.raises(ValueError, match="For 'Symbol', the 'min' value should be positive, but got 0"):
        ms.Symbol(min=0)
    with pytest.raises(TypeError, match="For 'Symbol', the argument 'max' must be int, but got <class 'float'>"):
        ms.Symbol(max=1.5)

    @ms.jit
    @ms.enable_dynamic(x=ms.Tensor(shape=[None, 3], dtype=ms.float32), y=ms.Tensor(shape=[s], dtype=ms.float32))
    def f(x, y):
        return x.sum() + y.sum()
    assert float(f(ms.Tensor(np.ones((2, 3), np.float32)), ms.Tensor(np.ones(4, np.float32))).asnumpy()) == 10.0
    with pytest.raises(ValueError, match=r"input tensor shape = \[4, 2\], dynamic tensor shape = \[-1, 3\], tensor "
                                         r"shapes are not the same."):
        f(ms.Tensor(np.ones((4, 2), np.float32)), ms.Tensor(np.ones(4, np.float32)))
    with pytest.raises(ValueError, match=r"input tensor shape = \[3\]"):     # 3 is not a multiple of 2
        f(ms.Tensor(np.ones((4, 3), np.float32)), ms.Tensor(np.ones(3, np.float32)))
    with pytest.raises(ValueError, match="the input cannot be empty!"):
        ms.enable_dynamic()
    with pytest.raises(TypeError, match="the shape of argument 'x' at least have one None."):
        ms.enable_dynamic(x=ms.Tensor(np.ones(3)))
    with pytest.raises(ValueError, match="'y' is not in list"):
        ms.enable_dynamic(y=ms.Tensor(shape=[None], dtype=ms.float32))(lambda x: x)


def test_float8_casts_round_as_ml_dtypes():
    x = np.array([0.1, 1.3, 300.0, 500.0, -2.7, 1e-3, 449.0, 3e-5, 60000.0], np.float32)
    assert str(ms.float8_e4m3fn) == "Float8E4M3FN" and str(ms.float8_e5m2) == "Float8E5M2"     # 2.10
    assert ms.float8_e4m3fn.itemsize == 1 and ms.float8_e5m2.is_floating

    @ms.jit
    def roundtrip(a):
        return a.astype(ms.float8_e4m3fn).astype(ms.float32), a.astype(ms.float8_e5m2).astype(ms.float32)
    e4, e5 = roundtrip(ms.Tensor(x))
    np.testing.assert_array_equal(e4.asnumpy(), x.astype(ml_dtypes.float8_e4m3fn).astype(np.float32))
    np.testing.assert_array_equal(e5.asnumpy(), x.astype(ml_dtypes.float8_e5m2).astype(np.float32))
    eager = ms.Tensor(x).astype(ms.float8_e5m2)
    assert eager.dtype == ms.float8_e5m2
    np.testing.assert_array_equal(eager.asnumpy().astype(np.float32), e5.asnumpy())


def test_parameter_broadcast_and_saved_tensor_hooks():
    net = ms.nn.Dense(2, 2)
    before = net.weight.asnumpy().copy()
    assert ms.parameter_broadcast(net, {"weight": [0]}) is None
    np.testing.assert_array_equal(net.weight.asnumpy(), before)
    with pytest.raises(NotImplementedError, match="no saved tensors"):
        ms.saved_tensors_hooks(lambda t: t, lambda t: t)
    with pytest.raises(NotImplementedError, match="no saved tensors"):
        ms.register_saved_tensors_hooks(lambda t: t, lambda t: t)

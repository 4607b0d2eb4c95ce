"""The padding layers (graphcell/nn/layer/padding.py) over ops.pad: ZeroPad2d, ConstantPad1d/2d/3d,
ReflectionPad1d/2d/3d, ReplicationPad1d/2d/3d.

References: values and messages measured on MindSpore 2.10 CPU, torch's layers of the same names,
torch autograd, a loop for vmap, XLA for onnxruntime.
"""
import numpy as np
import pytest
import torch

import graphcell as ms
from graphcell import Tensor, nn, ops

RNG = np.random.default_rng(8)


def arange(*shape, dtype=np.float32):
    return np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)


# Measured on MindSpore 2.10: (layer, input shape, output shape, first values of the output over arange input).
MEASURED = [
    (lambda: nn.ZeroPad2d((1, 2, 0, 1)), (1, 2, 3, 4), (1, 2, 4, 7),
     [0, 0, 1, 2, 3, 0, 0, 0, 4, 5, 6, 7, 0, 0, 0, 8, 9, 10, 11, 0, 0, 0, 0, 0]),
    (lambda: nn.ZeroPad2d(-1), (1, 2, 3, 4), (1, 2, 1, 2), [5, 6, 17, 18]),
    (lambda: nn.ConstantPad1d((1, 2), -1.0), (2, 3), (2, 6), [-1, 0, 1, 2, -1, -1, -1, 3, 4, 5, -1, -1]),
    (lambda: nn.ConstantPad2d((1, 0, 2, 1), 2.0), (2, 3), (5, 4), [2, 2, 2, 2, 2, 2, 2, 2, 2, 0, 1, 2, 2, 3, 4, 5]),
    (lambda: nn.ConstantPad3d((1, 0, 0, 1, 1, 0), 0.5), (1, 2, 3, 4), (1, 3, 4, 5),
     [0.5] * 21 + [0, 1, 2]),
    (lambda: nn.ReflectionPad1d((1, 3)), (1, 3, 4), (1, 3, 8), [1, 0, 1, 2, 3, 2, 1, 0, 5, 4, 5, 6, 7, 6, 5, 4]),
    (lambda: nn.ReflectionPad2d((1, 0, 2, 1)), (1, 2, 3, 4), (1, 2, 6, 5),
     [9, 8, 9, 10, 11, 5, 4, 5, 6, 7, 1, 0, 1, 2, 3, 5, 4, 5, 6, 7, 9, 8, 9, 10]),
    (lambda: nn.ReflectionPad3d(1), (1, 2, 3, 4), (1, 4, 5, 6),
     [17, 16, 17, 18, 19, 18, 13, 12, 13, 14, 15, 14, 17, 16, 17, 18, 19, 18, 21, 20, 21, 22, 23, 22]),
    (lambda: nn.ReflectionPad1d((1, 1, 1, 1)), (2, 3, 4, 5), (2, 3, 6, 7), [6, 5, 6, 7, 8, 9, 8, 1, 0, 1, 2, 3]),
    (lambda: nn.ReplicationPad1d((1, 3)), (2, 3), (2, 7), [0, 0, 1, 2, 2, 2, 2, 3, 3, 4, 5, 5, 5, 5]),
    (lambda: nn.ReplicationPad2d((1, 0, 2, 1)), (1, 2, 3, 4), (1, 2, 6, 5),
     [0, 0, 1, 2, 3, 0, 0, 1, 2, 3, 0, 0, 1, 2, 3, 4, 4, 5, 6, 7, 8, 8, 9, 10]),
    (lambda: nn.ReplicationPad3d((1, 0, 0, 1, 1, 0)), (1, 2, 3, 4), (1, 3, 4, 5),
     [0, 0, 1, 2, 3, 4, 4, 5, 6, 7, 8, 8, 9, 10, 11, 8, 8, 9, 10, 11, 0, 0, 1, 2]),
]


@pytest.mark.parametrize("make, shape, out_shape, values", MEASURED)
def test_values_measured_on_mindspore(make, shape, out_shape, values):
    got = make()(Tensor(arange(*shape))).asnumpy()
    assert got.shape == out_shape
    np.testing.assert_array_equal(got.ravel()[:len(values)], values)


def test_dtypes_as_mindspore():
    ints = arange(1, 2, 3, dtype=np.int32)
    got = nn.ConstantPad1d(1, 2.5)(Tensor(ints))   # the value is cast to the input's dtype
    assert got.dtype == ms.int32
    np.testing.assert_array_equal(got.asnumpy().ravel(), [2, 0, 1, 2, 2, 2, 3, 4, 5, 2])
    np.testing.assert_array_equal(nn.ReflectionPad1d(1)(Tensor(ints)).asnumpy().ravel(), [1, 0, 1, 2, 1, 4, 3, 4, 5, 4])
    half = nn.ReplicationPad1d(1)(Tensor(ints.astype(np.float16)))
    assert half.dtype == ms.float16
    np.testing.assert_array_equal(half.asnumpy().ravel(), [0, 0, 1, 2, 2, 3, 3, 4, 5, 5])
    np.testing.assert_array_equal(nn.ConstantPad1d(1, 1.0)(Tensor(np.zeros((1, 1, 2), bool))).asnumpy(),
                                  [[[True, False, False, True]]])


TORCH_CASES = [
    ("ZeroPad2d", (2,), (2, 3, 4, 5)), ("ZeroPad2d", ((1, 0, 2, -1),), (3, 4, 5)),
    ("ConstantPad1d", (2, 1.5), (2, 3, 4)), ("ConstantPad1d", ((0, 3), -2.0), (3, 4)),
    ("ConstantPad2d", ((1, 2, 0, 3), 0.5), (2, 3, 4, 5)), ("ConstantPad3d", (1, 3.0), (1, 2, 3, 4, 5)),
    ("ReflectionPad1d", ((2, 1),), (2, 3, 4)), ("ReflectionPad2d", ((1, 2, 2, 0),), (2, 3, 4, 5)),
    ("ReflectionPad2d", (1,), (3, 4, 5)), ("ReflectionPad3d", ((1, 0, 2, 1, 0, 1),), (1, 2, 3, 4, 5)),
    ("ReplicationPad1d", ((3, 1),), (2, 3, 4)), ("ReplicationPad2d", ((1, 2, 2, 0),), (2, 3, 4, 5)),
    ("ReplicationPad3d", (2,), (2, 3, 4, 5)),
]


@pytest.mark.parametrize("name, args, shape", TORCH_CASES)
def test_matches_torch_eager_xla_onnx_grad_and_vmap(name, args, shape):
    x = RNG.standard_normal(shape).astype(np.float32)
    layer, reference = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
    leaf = torch.tensor(x, requires_grad=True)
    want = reference(leaf)
    for run in (layer, ms.jit(layer), ms.jit(layer, backend="onnx")):
        np.testing.assert_array_equal(run(Tensor(x)).asnumpy(), want.detach().numpy())
    w = RNG.standard_normal(want.shape).astype(np.float32)
    (want * torch.tensor(w)).sum().backward()
    got = ms.jit(ms.grad(lambda t: ops.sum(layer(t) * Tensor(w))))(Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, leaf.grad.numpy(), rtol=1e-6, atol=1e-6)
    members = RNG.standard_normal((3,) + shape).astype(np.float32)
    got = ms.vmap(layer, in_axes=1)(Tensor(np.moveaxis(members, 0, 1))).asnumpy()
    np.testing.assert_array_equal(got, np.stack([reference(torch.tensor(m)).numpy() for m in members]))


def test_attributes_and_repr():
    layer = nn.ZeroPad2d(1)
    assert (layer.padding, layer.value) == ((1, 1, 1, 1), 0)
    assert repr(layer) == "ZeroPad2d(padding=(1, 1, 1, 1), value=0)"
    assert nn.ConstantPad3d(2, 0.5).padding == (2,) * 6
    assert nn.ReflectionPad2d((1, 0, 2, 1)).padding == (1, 0, 2, 1)
    assert repr(nn.ReplicationPad1d(3)) == "ReplicationPad1d(padding=(3, 3))"


# Messages measured on MindSpore 2.10 (the rank checks are graphcell's, in MindSpore's documented shapes).
ERRORS = [
    (lambda: nn.ZeroPad2d((1, 2, 0)), ValueError,
     "For 'ZeroPad2d', the length of parameter 'padding' with tuple type must be a multiple of 2, but got 3"),
    (lambda: nn.ZeroPad2d((1,) * 6), ValueError, "with tuple type must no more than 4.but got 6"),
    (lambda: nn.ZeroPad2d(1.0), TypeError, r"the type of parameter 'padding' must be in \[int, tuple\], but got "
                                           "<class 'float'>"),
    (lambda: nn.ZeroPad2d([1, 1, 1, 1]), TypeError, "but got <class 'list'>"),
    (lambda: nn.ConstantPad1d(2, "a"), TypeError,
     r"For 'ConstantPad1d', the type of parameter 'value' must be in \[int, float\], but got <class 'str'>"),
    (lambda: nn.ConstantPad1d((1, 2, 1, 1), 1.0), ValueError, "with tuple type must equal to 2.but got 4"),
    (lambda: nn.ConstantPad3d((1,) * 8, 1.0), ValueError, "must no more than 6.but got 8"),
    (lambda: nn.ReflectionPad1d(-1), ValueError, r"For 'ReflectionPad1d' every element in 'padding' must be >= 0. but "
                                                 r"got \(-1, -1\)"),
    (lambda: nn.ReflectionPad1d((1,)), ValueError,
     "For 'ReflectionPad1d' the length of input 'padding' must be divisible by 2, but got padding of length 1"),
    (lambda: nn.ReflectionPad2d([1, 1, 1, 1]), TypeError,
     "For 'ReflectionPad2d' the input 'padding' must be an integer or tuple, but got list"),
    (lambda: nn.ReplicationPad2d(1.0), TypeError, "must be an integer or tuple, but got float"),
    (lambda: nn.ReplicationPad1d((1, 2, 3)), ValueError, "must be divisible by 2, but got padding of length 3"),
    (lambda: nn.ReplicationPad1d(2)(Tensor(arange(1, 2, 3, 4))), ValueError,
     "a padding of 2 numbers takes a 2-D or 3-D input, but got 4-D"),
    (lambda: nn.ReplicationPad3d(1)(Tensor(arange(2, 3, 4))), ValueError, "takes a 4-D or 5-D input, but got 3-D"),
    (lambda: nn.ReflectionPad2d(1)(Tensor(arange(3))), ValueError,
     "For padding with length 4, the dimension of the tensor should be at least 2, but got 1"),
    (lambda: nn.ReflectionPad1d((1, 3))(Tensor(arange(2, 3))), ValueError, "needs padding smaller than the axis"),
    (lambda: nn.ConstantPad3d(1, 0.5)(Tensor(arange(2, 3))), ValueError,
     "pads the last 3 axes, but the input has rank 2"),
]


@pytest.mark.parametrize("call, error, message", ERRORS)
def test_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()

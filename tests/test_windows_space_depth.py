"""Window functions (ops/windows.py) and layout operator classes (ops/space_depth.py) against
MindSpore 2.10's values and messages (measured on its CPU build, held as literals), torch's
windows, and onnxruntime (one exported model for the layout classes)."""
import numpy as np
import pytest
import torch

import graphcell as ms
from graphcell import ops
from tests.modes import run_table

T = ms.Tensor
F16, F32, F64 = ms.float16, ms.float32, ms.float64


# (call, MindSpore 2.10's dtype and values)
WINDOWS = [
    (lambda: ops.bartlett_window(T(5)), F32, [0.0, 0.4, 0.8, 0.8, 0.4]),
    (lambda: ops.bartlett_window(T(5, ms.int32), periodic=False), F32, [0.0, 0.5, 1.0, 0.5, 0.0]),
    (lambda: ops.bartlett_window(T(1)), F32, [1.0]),
    (lambda: ops.blackman_window(T(5)), F32, [0.0, 0.20077013969421387, 0.8492298722267151, 0.8492298722267151,
                                              0.20077013969421387]),
    (lambda: ops.blackman_window(T(4), dtype=F64), F64, [0.0, 0.33999999999999997, 1.0, 0.3400000000000001]),
    (lambda: ops.hamming_window(5), F32, [0.08000001311302185, 0.39785221219062805, 0.9121478199958801,
                                          0.9121478199958801, 0.39785221219062805]),
    (lambda: ops.hamming_window(5, dtype=F64), F64, [0.08000001311302185, 0.39785220146655753, 0.9121478456211118,
                                                     0.9121478456211118, 0.39785220146655764]),
    (lambda: ops.hamming_window(4, False, 0.6, 0.3, dtype=F64), F64, [0.30000001192092896, 0.7500000298023224,
                                                                      0.7500000298023225, 0.30000001192092896]),
    (lambda: ops.hamming_window(1), F64, [1.0]),
    (lambda: ops.hamming_window(0, dtype=F16), F64, []),
    (lambda: ops.hann_window(5), F64, [0.0, 0.3454915028125263, 0.9045084971874737, 0.9045084971874737,
                                       0.3454915028125264]),
    (lambda: ops.hann_window(5, dtype=F32), F32, [0.0, 0.345491498708725, 0.9045084714889526, 0.9045084714889526,
                                                  0.345491498708725]),
    (lambda: ops.hann_window(2, False), F64, [0.0, 0.0]),
    (lambda: ops.kaiser_window(5), F64, [5.2773441320097665e-05, 0.10171968770956323, 0.7929398341014605,
                                         0.7929398341014605, 0.10171968770956323]),
    (lambda: ops.kaiser_window(4, True, -2.0), F64, [0.4386762798370488, 0.8347614334011666, 1.0,
                                                     0.8347614334011666]),
    (lambda: ops.kaiser_window(6, False, 0.0), F64, [1.0] * 6),
    (lambda: ops.kaiser_window(1, dtype=F16), F64, [1.0]),
    (lambda: ops.BartlettWindow(False)(T(5, ms.int64)), F32, [0.0, 0.5, 1.0, 0.5, 0.0]),
    (lambda: ops.BlackmanWindow(dtype=F16)(T(4)), F16, [0.0, 0.340087890625, 1.0, 0.340087890625]),
    (lambda: ops.HammingWindow()(T([5])), F32, [0.08000001311302185, 0.39785221219062805, 0.9121478199958801,
                                                0.9121478199958801, 0.39785221219062805]),
    (lambda: ops.HammingWindow(False)(T([5, 9])), F32, [0.08000001311302185, 0.5400000214576721, 1.0,
                                                        0.5400000214576721, 0.08000001311302185]),
    (lambda: ops.HammingWindow(alpha=0.5, beta=0.5, dtype=F64)(T([5], ms.uint8)), F64,
     [0.0, 0.3454915028125263, 0.9045084971874737, 0.9045084971874737, 0.3454915028125264]),
    (lambda: ops.HammingWindow()(T([1])), F32, [1.0]),
]


@pytest.mark.parametrize("i", range(len(WINDOWS)))
def test_window_values(i):
    fn, dtype, want = WINDOWS[i]
    got = fn()
    assert got.dtype == dtype
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-3 if dtype == F16 else 1e-7 if dtype == F32 else 1e-15,
                               atol=1e-15)


@pytest.mark.parametrize("periodic", [True, False])
def test_windows_match_torch(periodic):
    n = 9
    pairs = [(ops.bartlett_window(T(n), periodic, dtype=F64), torch.bartlett_window(n, periodic, dtype=torch.float64)),
             (ops.blackman_window(T(n), periodic, dtype=F64), torch.blackman_window(n, periodic, dtype=torch.float64)),
             (ops.hann_window(n, periodic), torch.hann_window(n, periodic, dtype=torch.float64)),
             (ops.kaiser_window(n, periodic, 7.5), torch.kaiser_window(n, periodic, 7.5, dtype=torch.float64)),
             (ops.hamming_window(n, periodic, 0.5, 0.25, dtype=F64),
              torch.hamming_window(n, periodic, 0.5, 0.25, dtype=torch.float64))]
    for got, want in pairs:
        np.testing.assert_allclose(got.asnumpy(), want.numpy(), atol=1e-12)


def test_window_inside_jit():
    @ms.jit
    def scaled(x):
        return x * ops.hann_window(4, dtype=F32)
    np.testing.assert_allclose(scaled(T(np.full(4, 2.0, np.float32))).asnumpy(), [0.0, 1.0, 2.0, 1.0], atol=1e-7)


@pytest.mark.parametrize("make, error, message", [
    (lambda: ops.bartlett_window(5), TypeError,
     "For Primitive[BartlettWindow], the type of input argument[window_length] must be Tensor but got Int64."),
    (lambda: ops.blackman_window(T(5.0)), TypeError, "For primitive[BlackmanWindow], the input argument[window_length] "
     "must be a type of {Tensor[Int32], Tensor[Int64]}, but got Tensor[Float32]."),
    (lambda: ops.bartlett_window(T([5])), ValueError, "For 'BartlettWindow', the dim of window_length must be 0, but "
     "got: 1."),
    (lambda: ops.bartlett_window(T(-2)), ValueError, "For 'BartlettWindow', the value range of window_length must be "
     "[0, 1000000], but got: -2."),
    (lambda: ops.bartlett_window(T(5), periodic=1), TypeError, "For 'BartlettWindow', the type of 'periodic' should "
     "be 'bool', but got type 'int'."),
    (lambda: ops.blackman_window(T(5), dtype=ms.int32), TypeError, "For 'BlackmanWindow', the 'dtype' should be one "
     "of [mindspore.float16, mindspore.float32, mindspore.float64], but got 'mindspore.int32'."),
    (lambda: ops.hamming_window(5.0), TypeError, "For array function 'hamming_window', 'window_length' must be int, "
     "but got <class 'float'>."),
    (lambda: ops.hamming_window(-1), ValueError, "For array function 'hamming_window', 'window_length' must be non "
     "negative number."),
    (lambda: ops.hamming_window(5, True, 1, 0.5), TypeError, "For array function 'hamming_window', 'alpha' must be "
     "float, but got <class 'int'>."),
    (lambda: ops.hamming_window(5, dtype=ms.int32), TypeError, "For array function 'hamming_window', 'dtype' must be "
     "floating point dtypes, but got Int32."),
    (lambda: ops.hann_window(-1), ValueError, "For 'hann_window', 'window_length' must be a non-negative integer, but "
     "got -1"),
    (lambda: ops.kaiser_window(5, 1), TypeError, "For 'kaiser_window', 'periodic' must be a variable of Boolean type, "
     "but got <class 'int'>"),
    (lambda: ops.hann_window(5, dtype=ms.int32), TypeError, "For 'hann_window', 'dtype' must be floating point dtypes, "
     "but got Int32."),
    (lambda: ops.HammingWindow()(T(5)), ValueError, "For primitive[HammingWindow], the length dim must be equal to 1, "
     "but got 0."),
    (lambda: ops.HammingWindow()(T([-1])), ValueError, "For primitive[HammingWindow], the length value must be "
     "greater than or equal to 0, but got -1."),
    (lambda: ops.HammingWindow(alpha=1), TypeError, "For 'HammingWindow', the type of 'alpha' should be 'float', but "
     "got type 'int'."),
    (lambda: ops.BartlettWindow(dtype=None), TypeError, "For 'BartlettWindow', the type of 'dtype' should be 'Type', "
     "but got type 'NoneType'."),
])
def test_window_errors(make, error, message):
    with pytest.raises(error) as info:
        make()
    assert str(info.value) == message


def test_window_reprs():
    assert repr(ops.BartlettWindow(dtype=F64)) == "Prim[BartlettWindow]<periodic=True, dtype=Float64, max_length=1000000>"
    assert repr(ops.HammingWindow(dtype=F64)) == "Prim[HammingWindow]<periodic=True, alpha=0.54, beta=0.46, dtype=11>"


# -- layout classes ---------------------------------------------------------------------------------

X8 = np.arange(2 * 8 * 2 * 2, dtype=np.float32).reshape(2, 8, 2, 2)
Y = np.arange(1 * 2 * 4 * 6, dtype=np.float32).reshape(1, 2, 4, 6)
B4 = np.arange(16, dtype=np.float32).reshape(4, 1, 2, 2)
Z = np.arange(12, dtype=np.float32).reshape(3, 4)

# name: (fn, inputs, MindSpore 2.10's flattened output (first 40 elements), its shape)
LAYOUT = {
    "d2s": (ops.DepthToSpace(2), (X8,), [0, 8, 1, 9, 16, 24, 17, 25, 2, 10, 3, 11, 18, 26, 19, 27, 4, 12, 5, 13, 20,
                                         28, 21, 29, 6, 14, 7, 15, 22, 30, 23, 31, 32, 40, 33, 41, 48, 56, 49, 57],
            (2, 2, 4, 4)),
    "s2d": (ops.SpaceToDepth(2), (Y,), [0, 2, 4, 12, 14, 16, 24, 26, 28, 36, 38, 40, 1, 3, 5, 13, 15, 17, 25, 27,
                                        29, 37, 39, 41, 6, 8, 10, 18, 20, 22, 30, 32, 34, 42, 44, 46, 7, 9, 11, 19],
            (1, 8, 2, 3)),
    "s2bnd": (ops.SpaceToBatchND(2, [[0, 0], [1, 1]]), (Y,), [0, 1, 3, 5, 0, 13, 15, 17, 0, 25, 27, 29, 0, 37, 39, 41,
                                                              0, 2, 4, 0, 12, 14, 16, 0, 24, 26, 28, 0, 36, 38, 40, 0,
                                                              0, 7, 9, 11, 0, 19, 21, 23], (4, 2, 2, 4)),
    "s2bnd-1": (ops.SpaceToBatchND((2,), [[0, 0]]), (Y,), [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30,
                                                           32, 34, 36, 38, 40, 42, 44, 46, 1, 3, 5, 7, 9, 11, 13, 15,
                                                           17, 19, 21, 23, 25, 27, 29, 31], (2, 2, 4, 3)),
    "b2snd": (ops.BatchToSpaceND((2, 2), [[0, 0], [1, 1]]), (B4,), [4, 1, 12, 9, 6, 3, 14, 11], (1, 1, 4, 2)),
    "b2snd-1": (ops.BatchToSpaceND((2,), [[0, 1]]), (np.arange(12, dtype=np.float32).reshape(4, 3),),
                [0, 6, 1, 7, 2, 3, 9, 4, 10, 5], (2, 5)),
    # 2.10's CPU build has no SpaceToBatch/BatchToSpace kernel: their documented values are the ND forms'
    "s2b": (ops.SpaceToBatch(2, [[0, 0], [1, 1]]), (Y,), None, (4, 2, 2, 4)),
    "b2s": (ops.BatchToSpace(2, [[0, 0], [1, 1]]), (B4,), [4, 1, 12, 9, 6, 3, 14, 11], (1, 1, 4, 2)),
    "rs": (lambda x: ops.ReverseSequence(1)(x, T(np.array([1, 2, 3], np.int32))), (Z,),
           [0, 1, 2, 3, 5, 4, 6, 7, 10, 9, 8, 11], (3, 4)),
    "rs-batch1": (lambda x: ops.ReverseSequence(0, 1)(x, T(np.array([1, 2, 3, 3], np.int64))), (Z,),
                  [0, 5, 10, 11, 4, 1, 6, 7, 8, 9, 2, 3], (3, 4)),
}


@pytest.mark.parametrize("mode", ["jit", "onnx"])
def test_layout_classes(mode):
    got = run_table(LAYOUT, LAYOUT, mode)
    for name, (_, _, want, shape) in LAYOUT.items():
        assert got[name].shape == shape, name
        want = got["s2bnd"] if want is None else want
        np.testing.assert_array_equal(got[name].reshape(-1)[:40], np.asarray(want).reshape(-1)[:40], err_msg=name)
    # the depth and batch moves undo each other
    np.testing.assert_array_equal(ops.DepthToSpace(2)(ops.SpaceToDepth(2)(T(Y[:, :, :, :4]))).asnumpy(), Y[:, :, :, :4])


def test_space_to_depth_grad():
    w = np.random.RandomState(1).rand(1, 8, 2, 3).astype(np.float32)
    g = ms.ops.grad(lambda x: (ops.SpaceToDepth(2)(x) * T(w)).sum())(T(Y))
    np.testing.assert_array_equal(g.asnumpy(), ops.DepthToSpace(2)(T(w)).asnumpy())


@pytest.mark.parametrize("make, error, message", [
    (lambda: ops.DepthToSpace(1), ValueError, "For 'DepthToSpace', the 'block_size' should be >= : 2, but got 1."),
    (lambda: ops.DepthToSpace(2.0), TypeError, "For 'DepthToSpace', the type of 'block_size' should be 'int', but got "
     "type 'float'."),
    (lambda: ops.DepthToSpace(3)(T(X8)), ValueError, "For DepthToSpace, the square of block_size must be smaller than "
     "the input channel, but got the block_size is 3, and the input channel is 8."),
    (lambda: ops.SpaceToDepth(1), ValueError, "The 'block_size' should be >= SpaceToDepth: 2, but got 1."),
    (lambda: ops.SpaceToDepth(4)(T(Y)), ValueError, "For primitive[SpaceToDepth], the x_shape[3] % block_size must be "
     "equal to 0, but got 2."),
    (lambda: ops.SpaceToDepth(2)(T(Y[0])), ValueError, "For primitive[SpaceToDepth], the x rank must be equal to 4, "
     "but got 3."),
    (lambda: ops.SpaceToBatch(2, [[0, 0]]), ValueError, "For 'SpaceToBatch', the paddings shape should be = "
     "SpaceToBatch: (2, 2), but got (1, 2)."),
    (lambda: ops.SpaceToBatch(2, [[0, 1], [0, 0]])(T(Y)), ValueError, "For SpaceToBatch, the x_shape[2] plus paddings "
     "must be divisible by 'block_size', but got padded value: 5, and block_size: 2"),
    (lambda: ops.SpaceToBatch(2, [[0, -1], [0, 0]]), ValueError, "For 'SpaceToBatch', the 'paddings element' must be "
     "int and must >= 0, but got '-1' with type 'int'."),
    (lambda: ops.BatchToSpace(2, [[0, 0], [1, 1]])(T(np.zeros((3, 1, 2, 2), np.float32))), ValueError,
     "For 'BatchToSpace', the shape of output with index 0 must be divided exactly by square of 'block_size': 2, but "
     "got the shape of output: [const vector]{3, 1, 4, 2} and square of 'block_size': 4."),
    (lambda: ops.BatchToSpace(2, [[0, 0]]), ValueError, "The crops shape should be = BatchToSpace: (2, 2), but got "
     "(1, 2)."),
    (lambda: ops.SpaceToBatchND((0, 2), [[0, 0], [0, 0]]), ValueError, "For 'SpaceToBatchND', the block_shape element "
     "should be >= min value: 1, but got 0."),
    (lambda: ops.SpaceToBatchND((2, 2), [[0, 0]]), ValueError, "For 'SpaceToBatchND', the paddings shape should be = "
     "default value: (2, 2), but got (1, 2)."),
    (lambda: ops.SpaceToBatchND((2, 2), [[0, 0], [1, 1.0]]), TypeError, "For 'SpaceToBatchND', the 'paddings element' "
     "must be int, but got 'float'"),
    (lambda: ops.BatchToSpaceND((2, 2), [[0, 0]]), ValueError, "For 'BatchToSpaceND', the crops shape should be = : "
     "(2, 2), but got (1, 2)."),
    (lambda: ops.BatchToSpaceND((0, 2), [[0, 0], [0, 0]]), ValueError, "For 'BatchToSpaceND', the block_shape element "
     "should be >= : 1, but got 0."),
    (lambda: ops.ReverseSequence(1.0), TypeError, "For 'ReverseSequence', the type of 'seq_dim' should be 'int', but "
     "got type 'float'."),
])
def test_layout_errors(make, error, message):
    with pytest.raises(error) as info:
        make()
    assert str(info.value) == message


def test_layout_reprs():
    assert repr(ops.DepthToSpace(2)) == "Prim[DepthToSpace]<block_size=2, data_format=NCHW>"
    assert repr(ops.SpaceToBatchND(2, [[0, 0], [1, 1]])) == "Prim[SpaceToBatchND]<block_shape=(2, 2), paddings=[[0, 0], [1, 1]]>"
    assert repr(ops.BatchToSpaceND((2, 2), [[0, 0], [1, 1]])) == "Prim[BatchToSpaceND]<block_shape=(2, 2)>"
    assert repr(ops.ReverseSequence(1)) == "Prim[ReverseSequence]<seq_dim=1, batch_dim=0>"

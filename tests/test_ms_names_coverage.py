"""MindSpore 2.10 names graphcell lacked until Session 19: nn.Jvp/Vjp, the sparse Cells, the
micro-batch Cells, Tensor storage methods and top-level device names. Literals were measured on
MindSpore 2.10's CPU build; values are checked against numpy."""
import warnings

import numpy as np
import pytest
import torch

import graphcell as ms
from graphcell import COOTensor, Tensor, nn


class Cube(nn.Cell):
    def construct(self, x, y):
        return x ** 3 + y


class TwoOut(nn.Cell):
    def construct(self, x, y):
        return x ** 3, x * y


X = np.array([[1, 2], [3, 4]], np.float32)
V = np.ones((2, 2), np.float32)


def test_jvp_and_vjp_cells():
    x, v = Tensor(X), Tensor(V)
    out, jv = nn.Jvp(Cube())(x, x, (v, v))
    np.testing.assert_allclose(out.asnumpy(), X ** 3 + X)
    np.testing.assert_allclose(jv.asnumpy(), 3 * X ** 2 + 1)         # 2.10: [[4, 13], [28, 49]]
    out, (gx, gy) = nn.Vjp(Cube())(x, x, v)
    np.testing.assert_allclose(gx.asnumpy(), 3 * X ** 2)
    np.testing.assert_allclose(gy.asnumpy(), V)
    # one input: Vjp's gradient is a Tensor, not a tuple (2.10)
    _, g = nn.Vjp(nn.ReLU())(x, v)
    assert isinstance(g, Tensor)
    # several outputs: a cotangent per output
    (o1, o2), (gx, gy) = nn.Vjp(TwoOut())(x, x, (v, v))
    np.testing.assert_allclose(gx.asnumpy(), 3 * X ** 2 + X)             # 2.10: [[4, 14], [30, 52]]
    np.testing.assert_allclose(gy.asnumpy(), X)


def test_sparse_tensor_dense_matmul_and_to_dense():
    idx = Tensor([[0, 1], [1, 2], [0, 1]], ms.int64)
    val = Tensor([1., 2., 3.])
    dense = np.arange(8, dtype=np.float32).reshape(4, 2)
    a = np.zeros((3, 4), np.float32)
    np.add.at(a, (idx.asnumpy()[:, 0], idx.asnumpy()[:, 1]), val.asnumpy())
    out = nn.SparseTensorDenseMatmul()(idx, val, (3, 4), Tensor(dense))
    np.testing.assert_allclose(out.asnumpy(), a @ dense)                    # 2.10: [[8, 12], [8, 10], [0, 0]]
    out = nn.SparseTensorDenseMatmul(adjoint_st=True, adjoint_dt=True)(idx, val, (3, 4), Tensor(dense[:3].T.copy()))
    np.testing.assert_allclose(out.asnumpy(), a.T @ dense[:3])
    np.testing.assert_allclose(nn.SparseToDense()(COOTensor(idx, val, (3, 4))).asnumpy(), a)
    with pytest.raises(TypeError, match="input indices data type should be int32 or int64"):
        nn.SparseTensorDenseMatmul()(Tensor([[0, 1]], ms.int16), Tensor([1.]), (3, 4), Tensor(dense))
    with pytest.raises(ValueError, match=r"row range: \[0, 3\), col range: \[0, 4\), but got row: 0, col: 5"):
        nn.SparseTensorDenseMatmul()(Tensor([[0, 5]], ms.int32), Tensor([1.]), (3, 4), Tensor(dense))
    with pytest.raises(TypeError, match=r"name:\[values\]:Tensor\[Float32\].\nname:\[x2\]:Tensor\[Float64\]"):
        nn.SparseTensorDenseMatmul()(idx, val, (3, 4), Tensor(dense.astype(np.float64)))
    with pytest.raises(AttributeError, match="indices"):
        nn.SparseToDense()(Tensor([1.]))


def test_micro_batch_cells_sum_the_slices():
    net = nn.Dense(3, 2)
    x = Tensor(np.arange(12, dtype=np.float32).reshape(4, 3))
    full = net(x).asnumpy()
    np.testing.assert_allclose(nn.MicroBatchInterleaved(net)(x).asnumpy(), full[:2] + full[2:], rtol=1e-6)
    np.testing.assert_allclose(nn.PipelineCell(net, 4)(x).asnumpy(), full.sum(0, keepdims=True), rtol=1e-5)
    with pytest.raises(ValueError, match=r"'MicroBatchInterleaved', the argument 'interleave_num' must be large than 0"):
        nn.MicroBatchInterleaved(net, 0)
    with pytest.raises(TypeError, match="'PipelineCell', the argument 'micro_size' must be integer"):
        nn.PipelineCell(net, 2.0)
    with pytest.raises(ValueError, match=r"input\(4\) must be divided by micro size\(3\)"):
        nn.PipelineCell(net, 3)(x)
    with nn.no_init_parameters():
        d = nn.Dense(2, 2)
    assert d(Tensor(np.ones((1, 2), np.float32))).shape == (1, 2)
    assert set(nn.get_metrics({"accuracy"})) == {"accuracy"}


def test_tensor_storage_methods():
    t = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    # 2.10 on CPU: [3, 1], 3, (12, 4), 0; a 0-d Tensor: [] and ()
    assert t.stride() == [3, 1] and t.stride(0) == 3 and t.stride(-1) == 1
    assert t.strides == (12, 4) and t.storage_offset() == 0
    assert Tensor(np.float32(1)).stride() == [] and Tensor(np.float32(1)).strides == ()
    with pytest.raises(IndexError):
        t.stride(2)
    assert t.device == "CPU" and t.is_pinned() is False and isinstance(t.data_ptr(), int)
    assert t.move_to("CPU").asnumpy().tolist() == t.asnumpy().tolist()
    with pytest.raises(ValueError, match=r"must be one of \['Ascend', 'GPU', 'CPU'\], but got cpu"):
        t.move_to("cpu")
    with pytest.raises(RuntimeError, match="bug got to:GPU, device target: CPU"):
        t.move_to("GPU")
    np.testing.assert_array_equal(torch.utils.dlpack.from_dlpack(t.to_dlpack()).numpy(), t.asnumpy())
    np.testing.assert_array_equal(ms.from_dlpack(ms.to_dlpack(t)).asnumpy(), t.asnumpy())
    np.testing.assert_array_equal(Tensor.from_dlpack(torch.arange(3)).asnumpy(), [0, 1, 2])
    capsule = t.to_dlpack()
    Tensor.from_dlpack(capsule)
    with pytest.raises(RuntimeError, match="capsules can be consumed only once"):
        Tensor.from_dlpack(capsule)
    u = Tensor(np.array([1.5, -2.7], np.float32))
    assert u.set_dtype(ms.int32) is ms.int32 and u.dtype is ms.int32 and u.asnumpy().tolist() == [1, -2]
    assert Tensor(np.array([1 + 0j, 1 + 2j], np.complex64)).isreal().asnumpy().tolist() == [True, False]
    assert t.isreal().asnumpy().all()
    coo = Tensor(np.array([[0, 1], [2, 0]], np.float32)).to_coo()
    assert coo.indices.dtype is ms.int32 and coo.indices.asnumpy().tolist() == [[0, 1], [1, 0]]
    csr = Tensor(np.array([[0, 1], [2, 0]], np.float32)).to_csr()
    assert csr.indptr.asnumpy().tolist() == [0, 1, 2] and csr.indices.asnumpy().tolist() == [1, 0]
    with pytest.raises(ValueError, match=r"the length of 'shape' must be 2, but got \(2,\)"):
        Tensor([0., 1.]).to_coo()


def test_top_level_device_names_and_get_grad():
    assert ms.cfloat is ms.complex64 and ms.cdouble is ms.complex128
    assert ms.get_current_device() == ("CPU", 0) and ms.get_current_device().device_target == "CPU"
    with pytest.raises(ValueError, match=r"must be one of \['CPU', 'GPU', 'Ascend'\], but got cpu"):
        ms.set_device("cpu")
    with pytest.raises(RuntimeError, match="Unsupported device target GPU"):
        ms.set_device("GPU")
    assert ms.synchronize() is None
    with pytest.raises(ValueError, match="must > 0, but got '-1'"):
        ms.set_recursion_limit(-1)
    with pytest.warns(UserWarning, match="not supported by set_dump"):
        ms.set_dump(nn.ReLU())
    with pytest.raises(ValueError, match="must be an instance of Cell or Primitive"):
        ms.set_dump(1)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(Tensor([2., 3.]), name="w")

        def construct(self, x, y):
            return (x * y * self.w).sum()

    net = Net()
    x, y = Tensor([1., 2.]), Tensor([-2., 3.])
    g = ms.grad(net, grad_position=(0, 1), weights=net.trainable_params(), return_ids=True)(x, y)
    np.testing.assert_allclose(ms.get_grad(g, 1).asnumpy(), [2., 6.])
    np.testing.assert_allclose(ms.get_grad(g, net.w).asnumpy(), [-2., 6.])
    with pytest.raises(RuntimeError, match="Can not find the gradient for position or Parameter 5"):
        ms.get_grad(g, 5)
    with pytest.raises(TypeError, match="should be an integer or a Parameter"):
        ms.get_grad(g, "a")

"""MindSpore 2.10's nn.SparseToDense and nn.SparseTensorDenseMatmul.

Both compose the gathers and segment sums of graphcell/ops/sparse_ops.py, so jit, grad (to the
values and the dense operand), vmap and ONNX export need nothing new. Checks and messages are
2.10's (measured on its CPU build).
"""
from __future__ import annotations

import numpy as np

from .. import dtype as mstype
from ..ops import complex_ops, functional as F
from ..ops.segment_ops import unsorted_segment_sum
from ..ops.sparse_ops import coo_to_dense
from ..sparse_tensor import COOTensor
from ..tensor import Tensor
from .cell import Cell

_INDEX_DTYPES = (mstype.int32, mstype.int64)


class SparseToDense(Cell):
    """The dense Tensor of a COOTensor (`sparse_tensor.indices`, `.values`, `.shape`); repeated
    indices add up."""

    def construct(self, sparse_tensor):
        # 2.10 reads the three parts: a dense Tensor fails with "'Tensor' object has no attribute 'indices'"
        return coo_to_dense(COOTensor(sparse_tensor.indices, sparse_tensor.values, sparse_tensor.shape))


def _static_shape(sparse_shape) -> tuple:
    if isinstance(sparse_shape, Tensor):
        if sparse_shape.dtype not in _INDEX_DTYPES:
            raise TypeError("For 'SparseTensorDenseMatmul', the input shape data type should be int32 or int64.")
        return tuple(int(d) for d in sparse_shape._host("SparseTensorDenseMatmul's sparse_shape"))
    if not isinstance(sparse_shape, tuple):   # 2.10 takes a tuple or an int Tensor, not a list (measured)
        raise TypeError("For 'SparseTensorDenseMatmul', the input shape data type should be int32 or int64.")
    return tuple(int(d) for d in sparse_shape)


def _adjoint(x: Tensor) -> Tensor:
    return x if not x.dtype.is_complex else complex_ops.conj(x)


class SparseTensorDenseMatmul(Cell):
    """SparseTensorDenseMatmul(adjoint_st=False, adjoint_dt=False)(indices, values, sparse_shape, dense):
    the sparse [N, M] matrix of `indices` [nnz, 2] and `values` [nnz] times `dense` [M, K] (either
    operand transposed, complex ones conjugated, when its flag is set). Repeated indices add up.

        >>> m = nn.SparseTensorDenseMatmul()
        >>> m(Tensor([[0, 1], [1, 2]]), Tensor([1., 2.]), (3, 4), Tensor(np.arange(8.).reshape(4, 2)))
        # [[2, 3], [8, 10], [0, 0]]
    """

    def __init__(self, adjoint_st=False, adjoint_dt=False):
        super().__init__()
        self.adjoint_st = adjoint_st
        self.adjoint_dt = adjoint_dt

    def construct(self, indices, values, sparse_shape, dense):
        if indices.dtype not in _INDEX_DTYPES:
            raise TypeError("For 'SparseTensorDenseMatmul', the input indices data type should be int32 or int64.")
        if values.dtype is not dense.dtype:
            raise TypeError(f"For primitive[SparseTensorDenseMatmul], the input type must be same.\n"
                            f"name:[values]:Tensor[{values.dtype}].\nname:[x2]:Tensor[{dense.dtype}].")
        if dense.ndim != 2:
            raise ValueError(f"For 'SparseTensorDenseMatmul', 'the shape of input dense' must be a 2-dimensional "
                             f"tensor, but got a {dense.ndim}-dimensional tensor.")
        shape = _static_shape(sparse_shape)
        rows, cols = F.slice_axis(indices, 1, 0, 1), F.slice_axis(indices, 1, 1, 2)
        if self.adjoint_st:
            rows, cols, shape, values = cols, rows, shape[::-1], _adjoint(values)
        rows, cols = F.reshape(rows, (-1,)), F.reshape(cols, (-1,))
        if not indices.is_symbolic and indices.shape[0]:
            found = np.stack([rows._host("SparseTensorDenseMatmul"), cols._host("SparseTensorDenseMatmul")], 1)
            bad = np.nonzero((found < 0).any(axis=1) | (found[:, 0] >= shape[0]) | (found[:, 1] >= shape[1]))[0]
            if bad.size:
                row, col = found[int(bad[0])].tolist()
                raise ValueError(f"For 'SparseTensorDenseMatmul', the indices including out of bounds index, row "
                                 f"range: [0, {shape[0]}), col range: [0, {shape[1]}), but got row: {row}, "
                                 f"col: {col}")
        if self.adjoint_dt:
            dense = _adjoint(F.transpose(dense, (1, 0)))
        picked = F.take_in_range(dense, cols, 0)                  # [nnz, K]: the dense rows each entry meets
        products = F.mul(F.reshape(values, (-1, 1)), picked)
        return unsorted_segment_sum(products, rows, shape[0])

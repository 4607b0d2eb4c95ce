"""MindSpore's sparse tensors: COOTensor, CSRTensor and RowTensor.

Each is a Python container of dense Tensors (indices, values, ...) and a static dense shape.
Their operations (graphcell/ops/sparse_ops.py) are gathers, segment sums and scatters of
those Tensors, so jit, grad, vmap and ONNX export follow without primitives of their own. The
containers flatten like tuples (frontend/pytree.py's `_tree_children`/`_tree_build`): a
sparse argument of a jitted function is its Tensors, its shape part of the cache key, and
`grad` with respect to one differentiates its values (MindSpore 2.10's, measured).

Validation and its messages are MindSpore 2.10's (measured); shapes must be tuples of
positive ints. The ops whose result's size depends on the values (coalesce, adding two
sparse tensors, dense_to_sparse_*) run eagerly only.
"""
from __future__ import annotations

import math
import numbers

from . import dtype as mstype
from ._tensor_repr import format_inner_tensor
from .tensor import Tensor

_INDEX_DTYPES = (mstype.int16, mstype.int32, mstype.int64)


def _ops():
    from .ops import sparse_ops  # imported at the call: ops import this module
    return sparse_ops


def _check_shape(kind: str, shape) -> tuple:
    if not isinstance(shape, tuple):
        raise TypeError(f"For SparseTensors, 'shape' must be tuple, but got {type(shape)}.")
    for d in shape:
        if not isinstance(d, numbers.Integral) or isinstance(d, bool):
            raise TypeError(f"For {kind}, the element type of 'shape' must be int, but got {type(d)}.")
    return tuple(int(d) for d in shape)


def _inner(t: Tensor) -> str:
    if t.is_symbolic:
        return f"Tensor(shape={list(t.shape)}, dtype={t.dtype})"
    return format_inner_tensor(t._host("repr()"), t.dtype)


class _SparseTensor:
    """What the three kinds share: the container protocol, dtype and sizes of the values."""
    _parts: tuple = ()        # the Tensor attributes, in constructor order
    _grad_part: str = "_values"

    def _tree_children(self):
        return tuple(getattr(self, p) for p in self._parts) + (self._shape,)

    @classmethod
    def _tree_build(cls, children):
        """Rebuilds from already validated parts (a trace's symbolic Tensors among them)."""
        new = cls.__new__(cls)
        for p, v in zip(cls._parts, children):
            setattr(new, p, v)
        new._shape = tuple(children[-1])
        return new

    @classmethod
    def _grad_leaf(cls) -> int:
        """The position of the values among the flattened Tensors: grad differentiates them."""
        return cls._parts.index(cls._grad_part)

    @property
    def values(self) -> Tensor:
        return self._values

    def __len__(self):
        raise TypeError(f"object of type '{type(self).__name__}' has no len()")

    def __repr__(self) -> str:
        inner = ", ".join(f"{p.lstrip('_')}={_inner(getattr(self, p))}" for p in self._parts)
        return f"{type(self).__name__}(shape={list(self._shape)}, dtype={self._values.dtype}, {inner})"

    __str__ = __repr__


class _ShapedSparse(_SparseTensor):
    """COO's and CSR's attributes (2.10's RowTensor has none of them: measured)."""

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def shape(self) -> tuple:
        return self._shape

    @property
    def ndim(self) -> int:
        return len(self._shape)

    @property
    def size(self) -> int:
        """The number of stored elements (MindSpore's: the values' size, not the dense one)."""
        return math.prod(self._values.shape)

    @property
    def itemsize(self) -> int:
        return self._values.itemsize


def _need_tensor(owner: str, name: str, value):
    if not isinstance(value, Tensor):
        raise TypeError(f"For {owner}, '{name}' must be Tensor, but got {type(value)}.")


class COOTensor(_ShapedSparse):
    """A 2-D sparse tensor in coordinate form: `indices` [N, 2] (int16/32/64) name the rows
    and columns of the N `values`; `shape` is the dense shape. Repeated indices add up in
    `to_dense()`.

        >>> coo = COOTensor(Tensor([[0, 1], [1, 2]], ms.int32), Tensor([1., 2.]), (3, 4))
        >>> coo.to_dense()    # [[0, 1, 0, 0], [0, 0, 2, 0], [0, 0, 0, 0]]
    """
    _parts = ("_indices", "_values")

    def __init__(self, indices=None, values=None, shape=None, coo_tensor=None):
        if coo_tensor is not None:
            if not isinstance(coo_tensor, COOTensor):
                raise TypeError(f"Expect input `coo_tensor` to be a COOTensor, but got {type(coo_tensor)}")
            indices, values, shape = coo_tensor.indices, coo_tensor.values, coo_tensor.shape
        _need_tensor("SparseTensors", "indices", indices)
        _need_tensor("SparseTensors", "values", values)
        shape = _check_shape("COOTensor", shape)
        if indices.dtype not in _INDEX_DTYPES:
            raise TypeError(f"For COOTensor, the type of 'indices' must be one of [int16, int32, int64], but got "
                            f"{indices.dtype}.")
        if indices.ndim != 2:
            raise ValueError(f"For COOTensor, 'indices' must be a 2-dimensional tensor, but got a "
                             f"{indices.ndim}-dimensional tensor.")
        if values.ndim != 1:
            raise ValueError(f"For COOTensor, 'values' must be a 1-dimensional tensor, but got a "
                             f"{values.ndim}-dimensional tensor.")
        if indices.shape[0] != values.shape[0]:
            raise ValueError(f"For COOTensor, 'indices.shape[0]' must be euqal to 'values.shape[0]', but got "
                             f"'indices.shape[0]' = {indices.shape[0]} and 'values.shape[0]' = {values.shape[0]}.")
        if len(shape) != 2:
            raise ValueError(f"For COOTensor, the length of 'shape' must be 2, but got {shape}.")
        for d in shape:
            if d <= 0:
                raise ValueError(f"For COOTensor, the element of 'shape' must be positive, but got {d} in {shape}.")
        if indices.shape[1] != len(shape):
            raise ValueError(f"For COOTensor, 'indices.shape[1]' must be {len(shape)}, but got {indices.shape[1]}.")
        self._indices, self._values, self._shape = indices, values, shape

    @property
    def indices(self) -> Tensor:
        return self._indices

    def to_tuple(self):
        return self._indices, self._values, self._shape

    def to_dense(self) -> Tensor:
        return _ops().coo_to_dense(self)

    def to_csr(self) -> "CSRTensor":
        return _ops().coo_to_csr(self)

    def coalesce(self) -> "COOTensor":
        return _ops().coo_coalesce(self)

    def astype(self, dtype) -> "COOTensor":
        return COOTensor(self._indices, self._values.astype(dtype), self._shape)

    def abs(self) -> "COOTensor":
        return _ops().coo_abs(self)

    def add(self, other: "COOTensor", thresh) -> "COOTensor":
        return _ops().coo_add(self, other, thresh)

    def __neg__(self):
        return _ops().coo_neg(self)

    def __add__(self, other):
        return _ops().coo_binary("add", self, other)

    def __sub__(self, other):
        return _ops().coo_binary("sub", self, other)

    def __mul__(self, other):
        return _ops().coo_binary("mul", self, other)

    __rmul__ = __mul__

    def __truediv__(self, other):
        return _ops().coo_binary("div", self, other)


class CSRTensor(_ShapedSparse):
    """A sparse matrix in compressed-row form: row r's entries are values[indptr[r]:indptr[r+1]]
    at the columns `indices` of the same range; `shape` is the dense shape. (`values` may have
    trailing dimensions, then `shape` has them too.)

        >>> csr = CSRTensor(Tensor([0, 1, 2, 2], ms.int32), Tensor([0, 3], ms.int32),
        ...                 Tensor([1., 2.]), (3, 4))
        >>> csr.mv(Tensor([[1.], [2.], [3.], [4.]]))   # [[1], [8], [0]]
    """
    _parts = ("_indptr", "_indices", "_values")

    def __init__(self, indptr=None, indices=None, values=None, shape=None, csr_tensor=None):
        if csr_tensor is not None:
            if not isinstance(csr_tensor, CSRTensor):
                raise TypeError(f"Expect input `csr_tensor` to be a CSRTensor, but got {type(csr_tensor)}")
            indptr, indices, values, shape = (csr_tensor.indptr, csr_tensor.indices, csr_tensor.values,
                                              csr_tensor.shape)
        _need_tensor("CSRTensor", "indptr", indptr)
        _need_tensor("CSRTensor", "indices", indices)
        _need_tensor("SparseTensors", "values", values)
        shape = _check_shape("CSRTensor", shape)
        for name, t in (("indptr", indptr), ("indices", indices)):
            if t.dtype not in _INDEX_DTYPES:
                raise TypeError(f"For CSRTensor, {name} must have int16 or int32 or int64 data type, but got "
                                f"{t.dtype}.")
            if t.ndim != 1:
                raise ValueError(f"For CSRTensor, {name} must be a 1-dimensional tensor, but got a {t.ndim} "
                                 f"dimension tensor.")
        if values.ndim != len(shape) - 1:
            raise ValueError(f"Values' dimension should equal to CSRTensor's dimension - 1, but got"
                             f"Values' dimension: {values.ndim} , CSRTensor's dimension: {len(shape)}")
        for d in shape:
            if d <= 0:
                raise ValueError(f"For CSRTensor, the element of shape must be positive, but got {d}")
        if indptr.shape[0] != shape[0] + 1:
            raise ValueError(f"For CSRTensor, indptr must have length (1 + shape[0]), but got: {indptr.shape[0]}")
        if indices.shape[0] != values.shape[0]:
            raise ValueError(f"For CSRTensor, indices and values must equal in their shape, but got indices shape: "
                             f"{indices.shape[0]}, values shape: {values.shape[0]}.")
        self._indptr, self._indices, self._values, self._shape = indptr, indices, values, shape

    @property
    def indptr(self) -> Tensor:
        return self._indptr

    @property
    def indices(self) -> Tensor:
        return self._indices

    def to_tuple(self):
        return self._indptr, self._indices, self._values, self._shape

    def to_dense(self) -> Tensor:
        return _ops().csr_to_dense(self)

    def to_coo(self) -> COOTensor:
        return _ops().csr_to_coo(self)

    def astype(self, dtype) -> "CSRTensor":
        return CSRTensor(self._indptr, self._indices, self._values.astype(dtype), self._shape)

    def abs(self) -> "CSRTensor":
        return _ops().csr_abs(self)

    def mv(self, dense_vector) -> Tensor:
        return _ops().csr_mv(self, dense_vector)

    def mm(self, matrix):
        return _ops().csr_matmul(self, matrix)

    def sum(self, axis) -> Tensor:
        return _ops().csr_reduce_sum(self, axis)

    def add(self, b: "CSRTensor", alpha, beta) -> "CSRTensor":
        return _ops().csr_add(self, b, alpha, beta)

    def __neg__(self):
        return _ops().csr_neg(self)

    def __add__(self, other):
        return _ops().csr_binary("add", self, other)

    def __sub__(self, other):
        return _ops().csr_binary("sub", self, other)

    def __mul__(self, other):
        return _ops().csr_binary("mul", self, other)

    __rmul__ = __mul__

    def __truediv__(self, other):
        return _ops().csr_binary("div", self, other)


class RowTensor(_SparseTensor):
    """Rows of a dense tensor: values[i] is row indices[i] of a tensor of `dense_shape` (the form
    MindSpore's sparse gradients of embedding lookups take). MindSpore 2.10's RowTensor has
    the three attributes only (no dtype, no to_dense: measured) and checks nothing."""
    _parts = ("_indices", "_values")

    def __init__(self, indices=None, values=None, shape=None, row_tensor=None):
        if row_tensor is not None:
            indices, values, shape = row_tensor.indices, row_tensor.values, row_tensor.dense_shape
        _need_tensor("RowTensor", "indices", indices)
        _need_tensor("RowTensor", "values", values)
        if not isinstance(shape, tuple):
            raise TypeError(f"For RowTensor, 'dense_shape' must be tuple, but got {type(shape)}.")
        self._indices, self._values, self._shape = indices, values, tuple(shape)

    @property
    def indices(self) -> Tensor:
        return self._indices

    @property
    def dense_shape(self) -> tuple:
        return self._shape

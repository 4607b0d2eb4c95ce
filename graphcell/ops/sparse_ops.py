"""MindSpore 2.10's sparse-tensor functions (ops.csr_mv, ops.coo_add, ops.dense_to_sparse_csr, ...)
and the algorithms behind the COOTensor and CSRTensor methods.

Everything is composed of existing primitives, so jit, grad, vmap and ONNX export need nothing
new: a CSR row id per entry is a scatter of row ends and a cumsum; products are a gather of the
dense operand's rows times the values, summed per row with unsorted_segment_sum; to_dense is a
scatter_nd; conversions sort with the stable argsort. The ops whose result's size depends on the
values (adding two sparse tensors, coalesce, dense_to_sparse_*, CSR times CSR) find the result's
structure on the host, eagerly only, and compute its values with the same gathers and segment
sums, so an eager grad still reaches the values. Messages are MindSpore 2.10's, measured.
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import dtype as mstype
from ..sparse_tensor import COOTensor, CSRTensor, RowTensor
from ..tensor import Tensor
from . import complex_ops, functional as F
from .segment_ops import unsorted_segment_max, unsorted_segment_sum
from .sorting import argsort, cumsum

__all__ = [
    "coo2csr", "coo_add", "coo_concat", "coo_tensor_get_dense_shape", "coo_tensor_get_indices",
    "coo_tensor_get_values", "csr2coo", "csr_add", "csr_div", "csr_gather", "csr_mm", "csr_mul", "csr_mv",
    "csr_reduce_sum", "csr_softmax", "csr_tensor_get_dense_shape", "csr_tensor_get_indices",
    "csr_tensor_get_indptr", "csr_tensor_get_values", "csr_to_coo", "csr_to_dense", "dense_to_sparse_coo",
    "dense_to_sparse_csr", "row_tensor_get_dense_shape", "row_tensor_get_indices", "row_tensor_get_values",
]

_FLOAT_KERNEL = (mstype.float32, mstype.float64, mstype.complex64, mstype.complex128)


def _int32(t: Tensor) -> Tensor:
    return t if t.dtype is mstype.int32 else F.cast(t, mstype.int32)


def _host_structure(op: str, *tensors) -> list[np.ndarray]:
    """The tensors' values on the host, to find a result's structure; in graph mode an error."""
    from ..frontend.tracer import GraphModeError  # imported here: the tracer imports ops
    try:
        return [t._host(op) for t in tensors]
    except GraphModeError:
        raise GraphModeError(
            f"{op}: the result's number of stored elements depends on the values, and graph mode (jit, vmap, "
            f"grad of a jitted function) builds graphs of static shapes; call it eagerly, or work on the dense "
            f"form (to_dense()) inside the graph") from None


# -- CSR structure ---------------------------------------------------------------------------------

def _entry_rows(indptr: Tensor, nnz: int) -> Tensor:
    """The row of each of the nnz entries (int32): each row end inside [0, nnz) is where a
    later row starts, so a cumsum of the ends scattered to their places counts the rows passed."""
    rows = indptr.shape[0] - 1
    if nnz == 0:
        return Tensor(np.zeros(0, np.int32))
    if rows <= 1:
        return F.zeros((nnz,), mstype.int32)
    ends = F.slice_axis(_int32(indptr), 0, 1, rows)
    marks = unsorted_segment_sum(F.ones((rows - 1,), mstype.int32), ends, nnz + 1)
    return cumsum(F.slice_axis(marks, 0, 0, nnz), 0)


def _row_pointers(sorted_rows: Tensor, height: int) -> Tensor:
    """indptr (int32, height + 1) of entries sorted by row: 0 then the cumulative row counts."""
    counts = unsorted_segment_sum(F.ones(sorted_rows.shape, mstype.int32), _int32(sorted_rows), height)
    return F.concat((Tensor(np.zeros(1, np.int32)), cumsum(counts, 0)), 0)


def _at(dense: Tensor, rows: Tensor, cols: Tensor) -> Tensor:
    """dense[rows[i], cols[i]] for a 2-D dense (its size-1 axes broadcast)."""
    height, width = dense.shape
    flat = cols if height == 1 else (F.add(F.mul(rows, width), cols) if width != 1 else rows)
    if width == 1 and height == 1:
        flat = F.zeros_like(rows)
    return F.take_in_range(F.reshape(dense, (height * width,)), flat, 0)


def csr2coo(indptr, nnz):
    """The row index of each of the nnz entries of a CSR matrix (ops.csr2coo), indptr's dtype."""
    indptr = F.as_tensor(indptr)
    return F.cast(_entry_rows(indptr, int(nnz)), indptr.dtype)


def coo2csr(row_indices, height):
    """indptr (height + 1) of COO entries sorted by row (ops.coo2csr), the rows' dtype."""
    rows = F.as_tensor(row_indices)
    return F.cast(_row_pointers(rows, int(height)), rows.dtype)


def csr_to_coo(tensor: CSRTensor) -> COOTensor:
    """The COOTensor of a 2-D CSRTensor: [row, column] per entry, in the CSR order."""
    if len(tensor.shape) != 2:
        raise ValueError("Currently only support 2-D CSRTensor when converting to COOTensor.")
    rows = F.cast(_entry_rows(tensor.indptr, tensor.indices.shape[0]), tensor.indices.dtype)
    return COOTensor(F.stack((rows, tensor.indices), 1), tensor.values, tensor.shape)


def csr_to_dense(csr_tensor: CSRTensor) -> Tensor:
    """The dense Tensor of a 2-D CSRTensor (float32/64 or complex values, as 2.10's kernel)."""
    if csr_tensor.dtype not in _FLOAT_KERNEL:
        raise TypeError(f"For primitive[CSRSparseMatrixToDense], the input argument[x_values] must be a type of "
                        f"{{Tensor[Complex128], Tensor[Complex64], Tensor[Float32], Tensor[Float64]}}, but got "
                        f"Tensor[{csr_tensor.dtype}].")
    return coo_to_dense(csr_to_coo(csr_tensor))


def coo_to_dense(x: COOTensor) -> Tensor:
    if x.indices.dtype is mstype.int16:
        raise TypeError("For primitive[TensorScatterAdd], the input[indices type] supports types: Int32, Int64. "
                        "But got Int16.")
    indices = _int32(x.indices)
    if not indices.is_symbolic and indices.shape[0]:
        found = indices._host("to_dense()")
        bad = np.nonzero(((found < 0) | (found >= np.asarray(x.shape))).any(axis=1))[0]
        if bad.size:
            k = int(bad[0])
            raise RuntimeError(f"For 'TensorScatterAdd', the {k * len(x.shape)}-th value of 'indices'{found[k].tolist()} is "
                               f"out of range{list(x.shape)}.")
    from .indexing import scatter_nd
    return scatter_nd(indices, x.values, x.shape)


def coo_to_csr(x: COOTensor) -> CSRTensor:
    """The entries in a stable order by row (columns keep their order within a row: 2.10's)."""
    if x.indices.dtype is not mstype.int32:
        raise TypeError(f"The dtype of row_indices only support Int32 for now, but got {x.indices.dtype}.")
    rows, cols = F.slice_axis(x.indices, 1, 0, 1), F.slice_axis(x.indices, 1, 1, 2)
    nnz = x.values.shape[0]
    order = argsort(F.reshape(rows, (nnz,)))
    sorted_rows = F.take_in_range(F.reshape(rows, (nnz,)), order, 0)
    return CSRTensor(_row_pointers(sorted_rows, x.shape[0]), F.take_in_range(F.reshape(cols, (nnz,)), order, 0),
                     F.take_in_range(x.values, order, 0), x.shape)


def dense_to_sparse_coo(tensor) -> COOTensor:
    """A 2-D Tensor's nonzero elements as a COOTensor (int32 indices, row-major). Eager only."""
    tensor = F.as_tensor(tensor)
    if tensor.ndim != 2:
        raise ValueError("Currently only support 2-D Tensor when converting to COOTensor.")
    (value,) = _host_structure("ops.dense_to_sparse_coo", tensor)
    where = np.argwhere(value != 0).astype(np.int32)
    flat = Tensor(np.ravel_multi_index(where.T, value.shape).astype(np.int32)) if where.size else None
    values = F.take_in_range(F.reshape(tensor, (-1,)), flat, 0) if flat is not None else \
        Tensor(np.zeros(0, value.dtype), tensor.dtype)
    return COOTensor(Tensor(where.reshape(-1, 2)), values, tuple(tensor.shape))


def dense_to_sparse_csr(tensor) -> CSRTensor:
    """A 2-D float Tensor's nonzero elements as a CSRTensor (int32 indptr and indices). Eager only."""
    tensor = F.as_tensor(tensor)
    if tensor.ndim != 2:
        raise ValueError(f"Currently only support 2-D Tensor when converting to CSRTensor, but got Tensor "
                         f"dimension: {tensor.ndim}.")
    if tensor.dtype not in _FLOAT_KERNEL:
        raise TypeError(f"For primitive[DenseToCSRSparseMatrix], the input argument[dense_input] must be a type of "
                        f"{{Tensor[Complex128], Tensor[Complex64], Tensor[Float32], Tensor[Float64]}}, but got "
                        f"Tensor[{tensor.dtype}].")
    coo = dense_to_sparse_coo(tensor)
    (rows,) = _host_structure("ops.dense_to_sparse_csr", coo.indices)
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows[:, 0], minlength=tensor.shape[0]))]).astype(np.int32)
    return CSRTensor(Tensor(indptr), Tensor(rows[:, 1].copy()), coo.values, coo.shape)


# -- CSR products and reductions ---------------------------------------------------------------

def _rows_and_cols(csr: CSRTensor):
    return _entry_rows(csr.indptr, csr.indices.shape[0]), _int32(csr.indices)


def csr_mv(csr_tensor: CSRTensor, dense) -> Tensor:
    """The CSR matrix times a [columns, 1] dense vector: [rows, 1], in the CSR's dtype."""
    dense = F.as_tensor(dense)
    if dense.ndim != 2:
        raise ValueError(f"Currently, only support 2-D inputs! But csr tensor has {csr_tensor.ndim} dimensions, and "
                         f"dense tensor has {dense.ndim} dimension(s). ")
    if dense.shape != (csr_tensor.shape[1], 1):
        raise ValueError(f"The dense_vector's shape should be ({csr_tensor.shape[1]}, 1), but its current shape is: "
                         f"{tuple(dense.shape)}.")
    return _csr_times_dense(csr_tensor, dense)


def _csr_times_dense(csr: CSRTensor, dense: Tensor) -> Tensor:
    rows, cols = _rows_and_cols(csr)
    dense = F.cast(dense, csr.dtype) if dense.dtype is not csr.dtype else dense
    picked = F.take_in_range(dense, cols, 0)                      # [nnz, k]: the rows the entries meet
    products = F.mul(F.reshape(csr.values, (-1, 1)), picked)
    return unsorted_segment_sum(products, rows, csr.shape[0])


def csr_matmul(csr: CSRTensor, matrix):
    """CSRTensor.mm: a dense [columns, k] matrix gives a dense [rows, k]; a CSRTensor, a CSRTensor."""
    if isinstance(matrix, CSRTensor):
        return csr_mm(csr, matrix)
    matrix = F.as_tensor(matrix)
    if matrix.ndim != 2:
        raise ValueError(f"Currently, only support 2-D inputs! But csr tensor has {csr.ndim} dimensions, and "
                         f"dense tensor has {matrix.ndim} dimension(s). ")
    if matrix.shape[0] != csr.shape[1]:
        raise ValueError(f"The dense's shape[0] should be equal to csr tensor's shape[1], but dense's shape[0] is: "
                         f"{matrix.shape[0]} and csr tensor's shape[1] is {csr.shape[1]}")
    return _csr_times_dense(csr, matrix)


def csr_mm(a: CSRTensor, b: CSRTensor, trans_a: bool = False, trans_b: bool = False, adjoint_a: bool = False,
           adjoint_b: bool = False) -> CSRTensor:
    """The product of two CSRTensors, a CSRTensor holding the structural nonzeros of the product
    (ops.csr_mm). Eager only: the result's size depends on the indices. (2.10's CPU kernel fails
    with an empty RuntimeError: measured.)"""
    if not (isinstance(a, CSRTensor) and isinstance(b, CSRTensor)):
        raise TypeError("For functional operator csr_mm, inputs a and b must be type of CSRTensor currently.")

    def operand(x, trans, adjoint):
        ptr, cols = _host_structure("ops.csr_mm", x.indptr, x.indices)
        pattern = np.zeros(x.shape, bool)
        pattern[np.repeat(np.arange(x.shape[0]), np.diff(ptr)), cols] = True
        dense = csr_to_dense(x)
        if trans or adjoint:
            dense, pattern = F.swapaxes(dense, 0, 1), pattern.T
            dense = complex_ops.conj(dense) if adjoint and dense.dtype.is_complex else dense
        return dense, pattern

    (da, pa), (db, pb) = operand(a, trans_a, adjoint_a), operand(b, trans_b, adjoint_b)
    if da.shape[1] != db.shape[0]:
        raise ValueError(f"For csr_mm, the shapes {tuple(da.shape)} and {tuple(db.shape)} cannot be multiplied")
    where = np.argwhere(pa.astype(np.int64) @ pb.astype(np.int64) > 0).astype(np.int32)
    product = F.matmul(da, db)
    values = _at(product, Tensor(where[:, 0].copy()), Tensor(where[:, 1].copy())) if where.size else \
        F.zeros((0,), product.dtype)
    height = product.shape[0]
    indptr = np.concatenate([[0], np.cumsum(np.bincount(where[:, 0], minlength=height))]).astype(np.int32)
    return CSRTensor(Tensor(indptr), Tensor(where[:, 1].copy()), values, tuple(product.shape))


def csr_reduce_sum(csr_tensor: CSRTensor, axis: int) -> Tensor:
    """Each row's sum, [rows, 1] (axis 1 or -1 only, as 2.10)."""
    if not isinstance(axis, numbers.Integral):
        got = "Tuple[Int64]" if isinstance(axis, tuple) else type(axis).__name__
        raise TypeError(f"For 'CSRReduceSum', input[4] should be Scalar, but got {got}.")
    if axis not in (1, -1):
        raise ValueError(f"For CSRReduceSum, `axis` should be 1 or 1-dim. But got `axis`: {axis}and `1- dim`: -1.")
    rows, _ = _rows_and_cols(csr_tensor)
    return F.reshape(unsorted_segment_sum(csr_tensor.values, rows, csr_tensor.shape[0]), (csr_tensor.shape[0], 1))


def csr_gather(indptr, indices, dense, sparse_shape) -> Tensor:
    """The values of `dense` at the places of a CSR structure (ops.csr_gather)."""
    indptr, indices, dense = F.as_tensor(indptr), F.as_tensor(indices), F.as_tensor(dense)
    rows = _entry_rows(indptr, indices.shape[0])
    if tuple(dense.shape[:2]) != tuple(sparse_shape[:2]):
        raise ValueError(f"For csr_gather, dense's shape {tuple(dense.shape)} must be sparse_shape "
                         f"{tuple(sparse_shape)}")
    return _at(dense, rows, _int32(indices))


def csr_softmax(logits: CSRTensor, dtype=None) -> CSRTensor:
    """The softmax of each row's stored entries (the others count as absent, not as 0)."""
    rows, _ = _rows_and_cols(logits)
    height = logits.shape[0]
    shift = F.take_in_range(unsorted_segment_max(F.stop_gradient(logits.values), rows, height), rows, 0)
    e = F.exp(F.sub(logits.values, shift))
    total = F.take_in_range(unsorted_segment_sum(e, rows, height), rows, 0)
    values = F.div(e, total)
    if dtype is not None and dtype is not values.dtype:
        values = F.cast(values, dtype)
    return CSRTensor(logits.indptr, logits.indices, values, logits.shape)


# -- elementwise -------------------------------------------------------------------------------

def _with_values(x, values):
    if isinstance(x, COOTensor):
        return COOTensor(x.indices, values, x.shape)
    return CSRTensor(x.indptr, x.indices, values, x.shape)


def csr_mul(x: CSRTensor, y) -> CSRTensor:
    """The CSRTensor times a dense Tensor that broadcasts to its shape, at the stored places. A
    number or 0-d Tensor gives the product of the values, a dense 1-D Tensor (2.10's)."""
    return _csr_scaled(x, y, F.mul)


def csr_div(x: CSRTensor, y) -> CSRTensor:
    """`csr_mul`, dividing."""
    return _csr_scaled(x, y, F.div)


def _csr_scaled(x: CSRTensor, y, op):
    if isinstance(y, numbers.Number) or (isinstance(y, Tensor) and y.ndim == 0):
        return op(x.values, y)
    y = F.as_tensor(y)
    if y.ndim > 2 or any(d not in (1, s) for d, s in zip(y.shape[::-1], x.shape[::-1])):
        raise ValueError(f"For csr_mul, the dense Tensor's shape {tuple(y.shape)} must broadcast to the "
                         f"CSRTensor's {tuple(x.shape)}")
    y = F.reshape(y, (1,) * (2 - y.ndim) + tuple(y.shape))
    rows, cols = _rows_and_cols(x)
    return _with_values(x, op(x.values, _at(y, rows, cols)))


def coo_binary(name: str, x: COOTensor, other):
    """COOTensor's operators: + and - of a COOTensor (ops.coo_add) or a dense Tensor (a dense
    result); * and / of a dense Tensor of the same shape, at the stored places."""
    if name in ("add", "sub"):
        if isinstance(other, COOTensor):
            other = other if name == "add" else _with_values(other, F.neg(other.values))
            return coo_add(x, other, Tensor(0, other.dtype))
        if isinstance(other, Tensor):
            return (F.add if name == "add" else F.sub)(coo_to_dense(x), other)
        raise TypeError(f"COOTensor {name} with {type(other)} is not supported.")
    if not isinstance(other, Tensor) or tuple(other.shape) != x.shape:
        raise ValueError("Input tensors should have the same shape.")
    indices = _int32(x.indices)
    rows, cols = F.slice_axis(indices, 1, 0, 1), F.slice_axis(indices, 1, 1, 2)
    picked = _at(other, F.reshape(rows, (-1,)), F.reshape(cols, (-1,)))
    return COOTensor(x.indices, (F.mul if name == "mul" else F.div)(x.values, picked), x.shape)


def csr_binary(name: str, x: CSRTensor, other):
    if name in ("add", "sub"):
        if isinstance(other, CSRTensor):
            return csr_add(x, other, Tensor(1, x.dtype), Tensor(1 if name == "add" else -1, other.dtype))
        raise TypeError(f"CSRTensor {name} with {type(other)} is not supported.")
    return csr_mul(x, other) if name == "mul" else csr_div(x, other)


# -- sums of two sparse tensors (eager: the union of the structures) ---------------------------

def _union(keys_a: np.ndarray, keys_b: np.ndarray):
    """The sorted distinct keys of both, and each entry's place among them."""
    merged, inverse = np.unique(np.concatenate([keys_a, keys_b]), return_inverse=True)
    return merged, inverse[:keys_a.size].astype(np.int32), inverse[keys_a.size:].astype(np.int32)


def _summed(values_a, place_a, values_b, place_b, count, alpha=None, beta=None):
    a = unsorted_segment_sum(values_a, Tensor(place_a), count)
    b = unsorted_segment_sum(values_b, Tensor(place_b), count)
    a = F.mul(a, alpha) if alpha is not None else a
    b = F.mul(b, beta) if beta is not None else b
    return F.add(a, b)


def coo_add(x1: COOTensor, x2: COOTensor, thresh) -> COOTensor:
    """The sum of two COOTensors (int64 indices), entries in row-major order; a place both hold
    is dropped when |sum| < thresh (those held by one are kept: 2.10's). Eager only."""
    for name, x in (("x1_indices", x1), ("x2_indices", x2)):
        if x.indices.dtype is not mstype.int64:
            raise TypeError(f"For primitive[SparseAdd], the input argument[{name}] must be a type of "
                            f"{{Tensor[Int64]}}, but got Tensor[{x.indices.dtype}].")
    if x1.shape != x2.shape:
        raise ValueError(f"For SparseAdd, the shapes of x1 and x2 must be equal, but got {x1.shape} and {x2.shape}")
    ia, ib, limit = _host_structure("ops.coo_add", x1.indices, x2.indices, F.as_tensor(thresh))
    ka, kb = (np.ravel_multi_index(i.T, x1.shape) for i in (ia, ib))
    merged, pa, pb = _union(ka, kb)
    values = _summed(x1.values, pa, x2.values, pb, merged.size)
    both = np.zeros(merged.size, bool)
    both[np.intersect1d(pa, pb)] = True
    (sums,) = _host_structure("ops.coo_add", values)
    keep = ~(both & (np.abs(sums) < limit))
    kept = np.nonzero(keep)[0].astype(np.int32)
    indices = np.stack(np.unravel_index(merged[kept], x1.shape), 1).astype(np.int64)
    return COOTensor(Tensor(indices.reshape(-1, 2)), F.take_in_range(values, Tensor(kept), 0), x1.shape)


def coo_coalesce(x: COOTensor) -> COOTensor:
    """Repeated indices summed, in row-major order (int64 indices only, as 2.10's kernel). Eager only."""
    if x.indices.dtype is not mstype.int64:
        raise TypeError(f"For primitive[Coalesce], the input argument[x_indices] must be a type of "
                        f"{{Tensor[Int64]}}, but got Tensor[{x.indices.dtype}].")
    (found,) = _host_structure("COOTensor.coalesce", x.indices)
    merged, place = np.unique(np.ravel_multi_index(found.T, x.shape), return_inverse=True)
    values = unsorted_segment_sum(x.values, Tensor(place.astype(np.int32)), merged.size)
    indices = np.stack(np.unravel_index(merged, x.shape), 1).astype(np.int64)
    return COOTensor(Tensor(indices.reshape(-1, 2)), values, x.shape)


def csr_add(a: CSRTensor, b: CSRTensor, alpha, beta) -> CSRTensor:
    """alpha * a + beta * b over the union of their entries (each row's columns ascending);
    an entry that sums to 0 stays. Eager only."""
    coo_a, coo_b = csr_to_coo(a), csr_to_coo(b)
    ia, ib = _host_structure("ops.csr_add", coo_a.indices, coo_b.indices)
    merged, pa, pb = _union(*(np.ravel_multi_index(i.T, a.shape) for i in (ia, ib)))
    values = _summed(a.values, pa, b.values, pb, merged.size, F.as_tensor(alpha), F.as_tensor(beta))
    rows, cols = np.unravel_index(merged, a.shape)
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=a.shape[0]))])
    return CSRTensor(Tensor(indptr.astype(np.int32)), Tensor(cols.astype(np.int32)), values, a.shape)


def coo_concat(sp_input, concat_dim=0) -> COOTensor:
    """COOTensors joined along `concat_dim`, entries in row-major order (ops.coo_concat)."""
    parts = list(sp_input)
    axis = concat_dim % 2
    offset, indices = 0, []
    for x in parts:
        shift = Tensor(np.array([offset if a == axis else 0 for a in range(2)]), x.indices.dtype)
        indices.append(F.add(x.indices, shift))
        offset += x.shape[axis]
    shape = tuple(offset if a == axis else parts[0].shape[a] for a in range(2))
    joined, values = F.concat(indices, 0), F.concat([x.values for x in parts], 0)
    wide = F.cast(joined, mstype.int64)
    key = F.add(F.mul(F.slice_axis(wide, 1, 0, 1), shape[1]), F.slice_axis(wide, 1, 1, 2))
    order = argsort(F.reshape(key, (-1,)))
    return COOTensor(F.take_in_range(joined, order, 0), F.take_in_range(values, order, 0), shape)


# -- the values' elementwise functions (ops.coo_abs, ops.csr_sigmoid, ...) --------------------

_UNARY = ("abs acos acosh asin asinh atan atanh ceil cos cosh exp expm1 floor inv isfinite isinf isnan log "
          "log1p neg relu relu6 round sigmoid sin sinh softsign sqrt square tan tanh").split()


def _unary(kind: str, name: str):
    def apply(x):
        from .. import ops
        return _with_values(x, getattr(ops, name)(x.values))
    arg = "COOTensor" if kind == "coo" else "CSRTensor"
    apply.__name__ = apply.__qualname__ = f"{kind}_{name}"
    apply.__doc__ = f"ops.{name} of a {arg}'s values, in a {arg} of the same structure."
    return apply


for _kind in ("coo", "csr"):
    for _name in _UNARY:
        globals()[f"{_kind}_{_name}"] = _unary(_kind, _name)
        __all__.append(f"{_kind}_{_name}")
del _kind, _name


# -- the parts (MindSpore's graph-level getters) ------------------------------------------------

def coo_tensor_get_indices(coo_tensor):
    return coo_tensor.indices


def coo_tensor_get_values(coo_tensor):
    return coo_tensor.values


def coo_tensor_get_dense_shape(coo_tensor):
    return coo_tensor.shape


def csr_tensor_get_indptr(csr_tensor):
    return csr_tensor.indptr


def csr_tensor_get_indices(csr_tensor):
    return csr_tensor.indices


def csr_tensor_get_values(csr_tensor):
    return csr_tensor.values


def csr_tensor_get_dense_shape(csr_tensor):
    return csr_tensor.shape


def row_tensor_get_indices(row_tensor: RowTensor):
    return row_tensor.indices


def row_tensor_get_values(row_tensor: RowTensor):
    return row_tensor.values


def row_tensor_get_dense_shape(row_tensor: RowTensor):
    return row_tensor.dense_shape

"""Small MindSpore 2.10 operator classes composed of existing ops: Eps, Fills, NoRepeatNGram,
MapUniform, SubAndFilter, HistogramFixedWidth, ConfusionMatrix, ScalarCast, ScalarToArray, and
the sparse classes Coalesce (ops.coalesce), SparseSlice, SparseToDense, SparseTensorDenseAdd,
SparseTensorDenseMatmul, SparseGatherV2, ScatterNonAliasingAdd.

Measured on 2.10's CPU build where it has a kernel (Eps, NoRepeatNGram, MapUniform, SubAndFilter,
Coalesce, SparseSlice, SparseToDense, SparseTensorDenseAdd/Matmul, ScalarCast); the rest
(Fills, HistogramFixedWidth, ConfusionMatrix, SparseGatherV2, ScatterNonAliasingAdd) follow its
documentation, their argument checks measured. Ops whose result's size depends on the values
(SubAndFilter, Coalesce, SparseSlice) run eagerly only, as graphcell's other such ops."""
from __future__ import annotations

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from . import functional as F
from .array_more import truncate_div, truncate_mod
from .composite import masked_fill
from .indexing import tensor_scatter_add, tensor_scatter_update
from .op_base import Operator, check_bool, check_choice, check_int, exporter
from .scalar_ops import scalar_cast, scalar_to_tensor

CLASSES: list[str] = []
_export = exporter(CLASSES)


def _dtype_check(op: str, arg: str, x: Tensor, allowed) -> Tensor:
    if x.dtype not in allowed:
        names = ", ".join(f"Tensor[{d}]" for d in allowed)
        raise TypeError(f"For primitive[{op}], the input argument[{arg}] must be a type of {{{names}}}, but got "
                        f"Tensor[{x.dtype}].")
    return x


def _host(op: str, *tensors):
    from .sparse_ops import _host_structure
    return _host_structure(f"ops.{op}", *tensors)


_FLOATS = (mstype.float16, mstype.float32, mstype.float64)


@_export
class Eps(Operator):
    """Eps()(x): a Tensor like x holding its float dtype's machine epsilon."""

    def __call__(self, x):
        x = _dtype_check("Eps", "x", F.as_tensor(x), _FLOATS)
        return F.full_like(x, float(np.finfo(x.dtype.np_dtype).eps))


@_export
class Fills(Operator):
    """Fills()(x, value): a Tensor like x filled with `value` (a number or a 0-d Tensor)."""

    def __call__(self, x, value):
        x = _dtype_check("Fills", "x", F.as_tensor(x), (mstype.float16, mstype.float32, mstype.int16,
                                                         mstype.int32, mstype.int8))
        if isinstance(value, Tensor):
            if value.ndim != 0:
                raise ValueError(f"For primitive[Fills], the rank of 'value' must be equal to 0, but got "
                                 f"{value.ndim}.")
            return F.broadcast_to(F.cast(value, x.dtype), tuple(x.shape))
        return F.full_like(x, value)


@_export
class NoRepeatNGram(Operator):
    """NoRepeatNGram(ngram_size=1)(state_seq [..., L] int32, log_probs [..., V]): log_probs with
    every token that would repeat an n-gram of state_seq set to the dtype's lowest value."""

    def __init__(self, ngram_size=1):
        super().__init__(ngram_size=check_int("NoRepeatNGram", "ngram_size", ngram_size, minimum=1))

    def __call__(self, state_seq, log_probs):
        seq = _dtype_check("NoRepeatNGram", "state_seq", F.as_tensor(state_seq), (mstype.int32,))
        log_probs = _dtype_check("NoRepeatNGram", "log_probs", F.as_tensor(log_probs), _FLOATS)
        n, length = self.ngram_size, seq.shape[-1]
        if n > length + 1:
            raise ValueError(f"For primitive[NoRepeatNGram], the ngram_size must be less than or equal to state_seq "
                             f"shape[{seq.ndim - 1}] + 1 which is {length + 1} , but got {n}.")
        vocab = log_probs.shape[-1]
        banned = F.zeros(tuple(log_probs.shape), mstype.bool_)
        tail = F.slice_axis(seq, -1, length - (n - 1), length)
        for start in range(length - n + 1):     # each earlier n-gram whose first n-1 tokens end the sequence
            same = F.all(F.equal(F.slice_axis(seq, -1, start, start + n - 1), tail), -1, keep_dims=True) \
                if n > 1 else F.ones(tuple(seq.shape[:-1]) + (1,), mstype.bool_)
            token = F.one_hot(F.slice_axis(seq, -1, start + n - 1, start + n), vocab, True, False, dtype=mstype.bool_)
            banned = F.logical_or(banned, F.logical_and(F.squeeze(token, -2), same))
        return masked_fill(log_probs, banned, float(np.finfo(log_probs.dtype.np_dtype).min))


@_export
class MapUniform(Operator):
    """MapUniform()(input, per_group_size, group_num): (x % group_num) * per_group_size +
    x // group_num, both truncated toward zero (C's, measured: -3 -> -6 for 5, 2)."""

    def __call__(self, input, per_group_size, group_num):  # noqa: A002
        x = _dtype_check("MapUniform", "input", F.as_tensor(input), (mstype.int32, mstype.int64))
        return F.add(F.mul(truncate_mod(x, group_num), per_group_size), truncate_div(x, group_num))


@_export
class SubAndFilter(Operator):
    """SubAndFilter()(input_x, max_num, offset) -> (x - offset where 0 <= x - offset < max_num,
    their flat positions); eager only (the count depends on the values)."""

    def __call__(self, input_x, max_num, offset):
        x = _dtype_check("SubAndFilter", "input_x", F.as_tensor(input_x), (mstype.int32, mstype.int64))
        (values,) = _host("SubAndFilter", x)
        shifted = values.ravel() - offset
        keep = np.nonzero((shifted >= 0) & (shifted < max_num))[0]
        return Tensor(shifted[keep].astype(values.dtype)), Tensor(keep.astype(values.dtype))


@_export
class HistogramFixedWidth(Operator):
    """HistogramFixedWidth(nbins, dtype='int32')(x, range): counts of x in nbins equal bins over
    [range[0], range[1]); values below fall in the first bin, at or above the range in the last."""

    def __init__(self, nbins, dtype="int32"):
        super().__init__(nbins=check_int("HistogramFixedWidth", "nbins", nbins, minimum=1),
                         dtype=check_choice("HistogramFixedWidth", "dtype", dtype, ["int32"]))

    def __call__(self, x, range):  # noqa: A002 - MindSpore's name
        allowed = _FLOATS + (mstype.int32,)
        x = _dtype_check("HistogramFixedWidth", "x", F.as_tensor(x), allowed)
        bounds = _dtype_check("HistogramFixedWidth", "range", F.as_tensor(range), allowed)
        if tuple(bounds.shape) != (2,):
            raise ValueError(f"For primitive[HistogramFixedWidth], the first rank of 'range' must be equal to 2, but "
                             f"got {bounds.shape[0] if bounds.ndim else 0}.")
        work = mstype.float64 if x.dtype is mstype.float64 else mstype.float32
        x, bounds = F.reshape(F.cast(x, work), (-1,)), F.cast(bounds, work)
        low, high = bounds[0], bounds[1]
        scaled = F.floor(F.mul(F.div(F.sub(x, low), F.sub(high, low)), float(self.nbins)))
        index = F.cast(F.clip_by_value(scaled, 0.0, float(self.nbins - 1)), mstype.int32)
        hits = F.equal(F.expand_dims(index, 1), Tensor(np.arange(self.nbins, dtype=np.int32)))
        return F.reduce_sum(F.cast(hits, mstype.int32), 0)


@_export
class ConfusionMatrix(Operator):
    """ConfusionMatrix(num_classes, dtype='int32')(labels, predictions, weights=None): the
    [num_classes, num_classes] matrix adding each sample's weight (1) at (label, prediction)."""

    def __init__(self, num_classes, dtype="int32"):
        super().__init__(num_classes=check_int("ConfusionMatrix", "num_classes", num_classes),
                         dtype=check_choice("ConfusionMatrix", "dtype", dtype,
                                            ["int8", "int16", "int32", "int64", "uint8", "uint16", "float16",
                                             "float32", "float64"]))

    def __call__(self, labels, predictions, weights=None):
        labels, predictions = F.as_tensor(labels), F.as_tensor(predictions)
        if labels.dtype != predictions.dtype:
            raise TypeError(f"For 'ConfusionMatrix', the type of 'predictions' should be same as 'labels', but got "
                            f"'labels' with type Tensor[{labels.dtype}] and 'predictions' with type "
                            f"Tensor[{predictions.dtype}].")
        if tuple(labels.shape) != tuple(predictions.shape):
            raise ValueError(f"For 'ConfusionMatrix', the labels shape should be = predictions shape: "
                             f"{list(predictions.shape)}, but got {list(labels.shape)}.")
        dtype = getattr(mstype, self.dtype)
        classes = self.num_classes
        label_hot = F.cast(F.one_hot(F.cast(labels, mstype.int32), classes, 1.0, 0.0), mstype.float64)
        pred_hot = F.cast(F.one_hot(F.cast(predictions, mstype.int32), classes, 1.0, 0.0), mstype.float64)
        if weights is not None:
            label_hot = F.mul(label_hot, F.expand_dims(F.cast(F.as_tensor(weights), mstype.float64), 1))
        return F.cast(F.matmul(F.transpose(label_hot, (1, 0)), pred_hot), dtype)


@_export
class ScalarCast(Operator):
    """ScalarCast()(input_x, input_y): ops.scalar_cast."""

    def __call__(self, input_x, input_y):
        return scalar_cast(input_x, input_y)


@_export
class ScalarToArray(Operator):
    """ScalarToArray()(x): a 0-d float32 Tensor. 2.10 deprecates it for ops.scalar_to_tensor
    (its own call fails: 'prim:ScalarToArray has no attr:__infer__'); this is that function."""

    def __call__(self, input_x):
        return scalar_to_tensor(input_x)


# -- sparse tensors as (indices, values, shape) ------------------------------------------------------

def _shape_tuple(shape) -> tuple:
    if isinstance(shape, Tensor):
        return tuple(int(v) for v in shape._host("the sparse shape"))
    return tuple(int(v) for v in shape)


def coalesce(x_indices, x_values, x_shape):
    """(indices [ndim, n], values [n], shape) -> the same with repeated indices summed, in row-major
    order: MindSpore 2.10's ops.coalesce (int64 indices, float values). Eager only."""
    from ..sparse_tensor import COOTensor
    from .sparse_ops import coo_coalesce
    x_indices, x_values = F.as_tensor(x_indices), F.as_tensor(x_values)
    _dtype_check("Coalesce", "x_indices", x_indices, (mstype.int64,))
    _dtype_check("Coalesce", "x_values", x_values, _FLOATS)
    shape = _shape_tuple(x_shape)
    (found,) = _host("coalesce", x_indices)
    for axis in range(found.shape[0]):
        bad = np.nonzero((found[axis] >= shape[axis]) | (found[axis] < 0))[0]
        if bad.size:
            raise ValueError(f"For Coalesce, values of elements of x_indices can not exceed the limit set by x_shape, "
                             f"but got x_indices[{axis}][{bad[0]}] = {found[axis, bad[0]]}, got x_shape[{axis}] = "
                             f"{shape[axis]}")
    merged = coo_coalesce(COOTensor(F.transpose(x_indices, (1, 0)), x_values, shape))
    return F.transpose(merged.indices, (1, 0)), merged.values, Tensor(np.array(shape, np.int64))


@_export
class Coalesce(Operator):
    """Coalesce()(x_indices, x_values, x_shape): ops.coalesce."""

    def __call__(self, x_indices, x_values, x_shape):
        return coalesce(x_indices, x_values, x_shape)


@_export
class SparseSlice(Operator):
    """SparseSlice()(indices [n, ndim], values, shape, start, size) -> the entries inside
    [start, start + size), their indices counted from start, and the slice's shape
    min(size, shape - start). Eager only."""

    def __call__(self, indices, values, shape, start, size):
        indices, values = F.as_tensor(indices), F.as_tensor(values)
        found, dense, begin, extent = _host("SparseSlice", indices, *(F.as_tensor(v) for v in (shape, start, size)))
        inside = np.all((found >= begin) & (found < begin + extent), axis=1)
        keep = np.nonzero(inside)[0]
        out_shape = np.minimum(extent, dense - begin).astype(np.int64)
        return (Tensor((found[keep] - begin).astype(np.int64).reshape(-1, found.shape[1])),
                F.gather(values, Tensor(keep.astype(np.int32)), 0), Tensor(out_shape))


def _check_in_bounds(op: str, indices: Tensor, shape: tuple) -> None:
    if indices.is_symbolic:
        return      # a compiled graph drops out-of-range writes
    found = indices._host(op)
    for axis in range(found.shape[1]):
        bad = np.nonzero((found[:, axis] < 0) | (found[:, axis] >= shape[axis]))[0]
        if bad.size:
            raise ValueError(f"For '{op}', the {bad[0]}th value in {axis}th dimension index: {found[bad[0], axis]} "
                             f"of 'output' out of bounds: [0, {shape[axis]})")


@_export
class SparseToDense(Operator):
    """SparseToDense()(indices [n, ndim], values [n], sparse_shape) -> the dense Tensor; a
    repeated index keeps its last value (measured)."""

    def __call__(self, indices, values, sparse_shape):
        indices, values = F.as_tensor(indices), F.as_tensor(values)
        shape = _shape_tuple(sparse_shape)
        _check_in_bounds("SparseToDense", indices, shape)
        return tensor_scatter_update(F.zeros(shape, values.dtype), indices, values)


def _sparse_dense(indices: Tensor, values: Tensor, shape: tuple) -> Tensor:
    """The sparse tensor's dense form, repeated indices summed."""
    return tensor_scatter_add(F.zeros(shape, values.dtype), indices, values)


@_export
class SparseTensorDenseAdd(Operator):
    """SparseTensorDenseAdd()(x1_indices, x1_values, x1_shape, x2): x2 plus the sparse tensor
    (repeated indices summed, measured)."""

    def __call__(self, x1_indices, x1_values, x1_shape, x2):
        x1_indices, x1_values, x2 = (F.as_tensor(v) for v in (x1_indices, x1_values, x2))
        if not isinstance(x1_shape, Tensor) or x1_shape.dtype != x1_indices.dtype:
            raise TypeError(f"The primitive[SparseTensorDenseAdd]'s input arguments[indices, shape] must be all "
                            f"tensor and those type must be same. But got input argument[shape]:"
                            f"{type(x1_shape).__name__} Valid type list: {{Tensor[Int32], Tensor[Int64]}}.")
        shape = _shape_tuple(x1_shape)
        for axis, (a, b) in enumerate(zip(shape, x2.shape)):
            if a != b:
                raise RuntimeError(f"For 'SparseTensorDenseAdd', Dimension [{axis}] does not equal(no broadcasting "
                                   f"is supported): x1_shape side {a} vs x2_shape side {b}.")
        return tensor_scatter_add(x2, x1_indices, F.cast(x1_values, x2.dtype))


@_export
class SparseTensorDenseMatmul(Operator):
    """SparseTensorDenseMatmul(adjoint_st=False, adjoint_dt=False)(indices, values, sparse_shape,
    dense): op(sparse) @ op(dense), op a transpose where asked (repeated indices summed)."""

    def __init__(self, adjoint_st=False, adjoint_dt=False):
        super().__init__(adjoint_st=check_bool("SparseTensorDenseMatmul", "adjoint_st", adjoint_st),
                         adjoint_dt=check_bool("SparseTensorDenseMatmul", "adjoint_dt", adjoint_dt))

    def __call__(self, indices, values, sparse_shape, dense):
        indices, values, dense = (F.as_tensor(v) for v in (indices, values, dense))
        sparse = _sparse_dense(indices, values, _shape_tuple(sparse_shape))
        if self.adjoint_st:
            sparse = F.transpose(sparse, (1, 0))
        if self.adjoint_dt:
            dense = F.transpose(dense, (1, 0))
        return F.matmul(sparse, F.cast(dense, values.dtype))


@_export
class SparseGatherV2(Operator):
    """SparseGatherV2()(input_params, input_indices, axis): ops.Gather's slices (2.10's sparse
    gradient form has no meaning in graphcell, whose gradients are dense)."""

    def __call__(self, input_params, input_indices, axis):
        params = F.as_tensor(input_params)
        if not -params.ndim <= axis < params.ndim:
            raise ValueError(f"For primitive[SparseGatherV2], the axis must be in [{-params.ndim},{params.ndim}), "
                             f"but got {axis}.")
        return F.gather(params, input_indices, axis)


@_export
class ScatterNonAliasingAdd(Operator):
    """ScatterNonAliasingAdd()(input_x: Parameter, indices [..., k] int32, updates): input_x with
    the updates added at the indices (ops.scatter_nd_add's write), written back and returned."""

    def __call__(self, input_x, indices, updates):
        from .scatter_inplace import scatter_nd_add
        indices = _dtype_check("ScatterNonAliasingAdd", "indices type", F.as_tensor(indices), (mstype.int32,))
        return scatter_nd_add(input_x, indices, updates)

"""Scatters that MindSpore 2.10 has only as Tensor methods: masked_scatter, index_put, put and
index_copy (Tensor.masked_scatter/_, index_put/_, put_, index_copy_ forward here; they are not
graphcell.ops names, as they are not mindspore.ops names).

Measured on MindSpore 2.10 (CPU): masked_scatter and index_put return a new Tensor; their
in-place forms, put_ and index_copy_ have Ascend kernels only (CPU: "kernel unregistered"), so
they follow their documentation, which is torch's semantics, and torch is the tests' reference.
Composed of the scatters of `indexing.py` and ordinary ops, so jit, vmap, grad and ONNX follow.
"""
from __future__ import annotations

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from . import functional as F, indexing
from .array_ops import movedim
from .elementwise import broadcast_shapes
from .scatter_inplace import _known
from .sorting import cumsum

__all__: list[str] = []       # helpers of Tensor methods, not graphcell.ops names


def masked_scatter(x, mask, source) -> Tensor:
    """x with the positions where `mask` (bool or uint8, broadcast to x's shape) holds filled in
    row-major order from source's first elements (source flattened; cast to x's dtype, as 2.10)."""
    x, mask, source = F.as_tensor(x), F.as_tensor(mask), F.as_tensor(source)
    if mask.dtype not in (mstype.bool_, mstype.uint8):
        raise TypeError(f"For MaskedScatter, mask must be a bool or uint8 Tensor, but got {mask.dtype}")
    if mask.ndim > x.ndim or not _broadcasts(mask.shape, x.shape):
        raise ValueError(f"For 'MaskedScatter', the shape of 'mask': {mask.shape} can not be broadcast to the shape "
                         f"of 'x': {x.shape}.")
    flat_mask = F.reshape(F.broadcast_to(F.not_equal(mask, 0), x.shape), (-1,))
    known = _known(flat_mask)
    if known is not None and int(known.sum()) > source.size:
        raise ValueError("For 'MaskedScatter', number of elements of updates < number of ones in mask.")
    if source.size == 0:
        return x
    # the k-th True takes source's k-th element (a graph cannot check the count: extra Trues
    # repeat source's last element)
    order = F.sub(cumsum(F.cast(flat_mask, mstype.int32), 0), 1)
    order = F.clamp(order, 0, source.size - 1)
    picked = F.take_in_range(F.reshape(F.cast(source, x.dtype), (-1,)), order, 0)
    return F.reshape(F.select(flat_mask, picked, F.reshape(x, (-1,))), x.shape)


def index_put(x, indices, values, accumulate=False) -> Tensor:
    """x[indices] = values (or += with `accumulate`): `indices` a tuple or list of 1-D int32 or
    int64 Tensors (one dtype) that broadcast together and index x's first len(indices) axes
    (a negative index counts from the end); `values` 1-D, of x's dtype, broadcast to the
    indexed slices. Of repeated positions the last write wins."""
    x, values = F.as_tensor(x), F.as_tensor(values)
    if not isinstance(indices, (tuple, list)) or not all(isinstance(i, Tensor) for i in indices):
        raise TypeError(f"For primitive[IndexPut], indices must be a tuple or list of Tensors, got "
                        f"{type(indices).__name__}")
    if not isinstance(accumulate, bool):
        raise TypeError(f"For primitive[IndexPut], accumulate must be a bool, got {type(accumulate).__name__}")
    if values.dtype is not x.dtype or len({i.dtype for i in indices}) > 1:
        raise TypeError("For primitive[IndexPut], the input type must be same.")
    for i in indices:
        if i.dtype not in (mstype.int32, mstype.int64):
            raise TypeError(f"For primitive[IndexPut], the input argument[indices[0]:] must be a type of "
                            f"{{Tensor[Int32], Tensor[Int64]}}, but got Tensor[{i.dtype}].")
        if i.ndim != 1:
            raise ValueError(f"For primitive[IndexPut], the rank of tensors in indices must be 1, but got {i.ndim}.")
    if values.ndim != 1:
        raise ValueError(f"For primitive[IndexPut], the rank of x2 must be equal to 1, but got {values.ndim}.")
    depth = len(indices)
    if not 1 <= depth <= x.ndim:
        raise ValueError(f"For primitive[IndexPut], the size of indices must be in [1, {x.ndim}], but got {depth}.")
    count = broadcast_shapes("IndexPut", *(i.shape for i in indices))
    for axis, i in enumerate(indices):
        known = _known(i)
        size = x.shape[axis]
        if known is not None and ((known < -size) | (known >= size)).any():
            bad = int(known[(known < -size) | (known >= size)][0])
            raise ValueError(f"For 'IndexPut', each element in indices[{axis}] should be smaller than the value of "
                             f"x1.shape[{axis}], but got {bad} and got the value of x1.shape with {size}.")
    vectors = F.stack([F.broadcast_to(i, count) for i in indices], -1)
    updates = F.broadcast_to(values, count + x.shape[depth:])
    scatter = indexing.tensor_scatter_add if accumulate else indexing.tensor_scatter_update
    return scatter(x, vectors, updates)


def put(x, index, source, accumulate=False) -> Tensor:
    """x with source's elements written (or added, with `accumulate`) at the flat positions
    `index` (an int Tensor of source's element count, any shapes; a negative one counts from the
    end, torch's put_)."""
    x, index, source = F.as_tensor(x), F.as_tensor(index), F.as_tensor(source)
    if not index.dtype.is_integer:
        raise TypeError(f"Tensor.put_: index must be an integer Tensor, got {index.dtype}")
    if source.dtype is not x.dtype:
        raise TypeError(f"Tensor.put_: source must have this Tensor's dtype {x.dtype}, got {source.dtype}")
    if index.size != source.size:
        raise ValueError(f"Tensor.put_: index and source must have the same number of elements, got {index.size} "
                         f"and {source.size}")
    _in_range("Tensor.put_", index, x.size)
    flat = F.reshape(x, (x.size,))
    scatter = indexing.tensor_scatter_add if accumulate else indexing.tensor_scatter_update
    return F.reshape(scatter(flat, F.reshape(index, (-1, 1)), F.reshape(source, (-1,))), x.shape)


def index_copy(x, dim, index, tensor) -> Tensor:
    """x with its slices along `dim` at the 1-D `index` replaced by tensor's (torch's
    index_copy_: tensor has x's shape with len(index) on `dim`)."""
    x, index, tensor = F.as_tensor(x), F.as_tensor(index), F.as_tensor(tensor)
    dim = F._axis(int(dim), max(x.ndim, 1))
    if not index.dtype.is_integer or index.ndim > 1:
        raise TypeError(f"Tensor.index_copy_: index must be a 0-D or 1-D integer Tensor, got {index.dtype} of shape "
                        f"{list(index.shape)}")
    index = F.reshape(index, (-1,))
    expected = x.shape[:dim] + index.shape + x.shape[dim + 1:]
    if tensor.shape != expected:
        raise ValueError(f"Tensor.index_copy_: tensor must have shape {list(expected)}, got {list(tensor.shape)}")
    if tensor.dtype is not x.dtype:
        raise TypeError(f"Tensor.index_copy_: tensor must have this Tensor's dtype {x.dtype}, got {tensor.dtype}")
    _in_range("Tensor.index_copy_", index, x.shape[dim])
    rows = movedim(x, dim, 0) if dim else x
    new = indexing.tensor_scatter_update(rows, F.reshape(index, (-1, 1)), movedim(tensor, dim, 0) if dim else tensor)
    return movedim(new, 0, dim) if dim else new


def scatter_multiply(x, dim, index, src) -> Tensor:
    """Tensor.scatter_(..., reduce='multiply'): x's elements at `index` along `dim` multiplied by
    src's (a Tensor, or a number for every position)."""
    x = F.as_tensor(x)
    if not isinstance(src, Tensor):
        src = F.full(F.as_tensor(index).shape, src, x.dtype)
    return indexing._elements("scatter_", x, dim, index, src, "mul")


def _broadcasts(shape: tuple, to: tuple) -> bool:
    return all(a in (1, b) for a, b in zip(shape[::-1], to[::-1]))


def _in_range(name: str, index: Tensor, size: int) -> None:
    """Eagerly (index values known), an index outside [-size, size) is an error."""
    known = _known(index)
    if known is not None and ((known < -size) | (known >= size)).any():
        bad = int(np.asarray(known)[(known < -size) | (known >= size)].flat[0])
        raise IndexError(f"{name}: index {bad} is out of range for {size} elements")


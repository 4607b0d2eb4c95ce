"""Scatters that return a new Tensor and leave their input as it is (measured on MindSpore
2.10, CPU): `index_fill`, `inplace_add/sub/update` (in-place in name only), `select_scatter`,
`slice_scatter` and `diagonal_scatter`.

Indices that are Python ints (inplace_*'s, and the slice and diagonal positions) are worked
out here, in numpy, once; Tensor indices (index_fill's, inplace_update's) go through the
scatters of `indexing.py`. Everything is composed of existing primitives, so jit, vmap, grad
and ONNX follow.
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from . import functional as F, indexing, shape_ops
from .scatter_inplace import _known

__all__ = ["index_fill", "inplace_add", "inplace_sub", "inplace_update", "select_scatter", "slice_scatter",
           "diagonal_scatter"]


def index_fill(x, axis, index, value):
    """A copy of `x` with its slices at the 1-D int32 `index` along `axis` set to `value` (a
    number or a 0-d Tensor, cast to x's dtype). A negative index counts from the end; one out
    of range is an error eagerly and writes nothing in a graph."""
    x, index = F.as_tensor(x), F.as_tensor(index)
    if index.dtype is not mstype.int32:
        raise TypeError(f"For primitive[IndexFill], the input argument[index] must be a type of {{Tensor[Int32]}}, "
                        f"but got Tensor[{index.dtype}].")
    if x.ndim == 0:
        raise ValueError("For 'IndexFill', x must have at least one dimension")
    axis = F._axis(int(axis), x.ndim)
    size = x.shape[axis]
    known = _known(index)
    if known is not None and ((known < -size) | (known >= size)).any():
        bad = int(known[(known < -size) | (known >= size)][0])
        raise RuntimeError(f"For 'IndexFill', the input of 'index' out of range (expected to be in range of "
                           f"[{-size}, {size - 1}], but got {bad})")
    idx, valid = indexing._wrapped(F.reshape(index, (-1,)), size)
    hits = shape_ops.scatter_add.bind(F.zeros((size,), mstype.float32), idx, F.cast(valid, mstype.float32), axis=0)
    mask = F.reshape(F.greater(hits, 0), (size,) + (1,) * (x.ndim - axis - 1))
    value = F.cast(F.as_tensor(value), x.dtype)
    if value.ndim:
        raise ValueError(f"For 'IndexFill', value must be a number or a 0-d Tensor, got shape {list(value.shape)}")
    return F.select(mask, value, x)


def _static_rows(kernel: str, x: Tensor, v: Tensor, indices, negative_ok: bool) -> np.ndarray:
    """inplace_*'s int or tuple of ints as an array, checked against x's first axis and v."""
    if isinstance(indices, numbers.Integral) and not isinstance(indices, bool):
        rows = np.array([int(indices)])
    elif isinstance(indices, tuple) and all(isinstance(i, numbers.Integral) for i in indices):
        rows = np.array(indices, dtype=np.int64).reshape(-1)
    else:
        raise TypeError(f"For '{kernel}', the type of 'indices' should be one of '['tuple', 'int']', but got type "
                        f"'{type(indices).__name__}'.")
    low = -x.shape[0] if negative_ok else 0
    for i in rows:
        if not low <= i < x.shape[0]:
            raise ValueError(f"For primitive[{kernel}], the value of indices must be in [{low},{x.shape[0]}), "
                             f"but got {int(i)}.")
    if v.ndim != x.ndim:
        raise ValueError(f"For primitive[{kernel}], the rank of x must be equal to rank of v which is {v.ndim} , "
                         f"but got {x.ndim}.")
    if v.shape != (len(rows),) + x.shape[1:]:
        raise ValueError(f"For primitive[{kernel}], v must have shape {[len(rows)] + list(x.shape[1:])}, got "
                         f"{list(v.shape)}")
    return np.where(rows < 0, rows + x.shape[0], rows)


def _same_dtype(kernel: str, x, v):
    x, v = F.as_tensor(x), F.as_tensor(v)
    if x.dtype is not v.dtype:
        raise TypeError(f"For primitive[{kernel}], the input type must be same: x is {x.dtype}, v is {v.dtype}.")
    return x, v


def inplace_add(x, v, indices):
    """A copy of `x` with v's rows added to x's rows at `indices` (an int or a tuple of ints in
    [0, x.shape[0]); repeated ones accumulate). `x` is not changed (measured)."""
    x, v = _same_dtype("InplaceAdd", x, v)
    rows = _static_rows("InplaceAdd", x, v, indices, negative_ok=False)
    return shape_ops.scatter_add.bind(x, Tensor(rows.astype(np.int32)), v, axis=0)


def inplace_sub(x, v, indices):
    """`inplace_add`, subtracting."""
    x, v = _same_dtype("InplaceSub", x, v)
    rows = _static_rows("InplaceSub", x, v, indices, negative_ok=False)
    return shape_ops.scatter_add.bind(x, Tensor(rows.astype(np.int32)), F.neg(v), axis=0)


def inplace_update(x, v, indices):
    """A copy of `x` with its rows at `indices` (an int, a tuple of ints or a 1-D int Tensor;
    negative ones count from the end; of repeated ones the last wins) replaced by v's rows."""
    x, v = _same_dtype("InplaceUpdate", x, v)
    if isinstance(indices, Tensor):
        known = _known(indices)
        if known is not None and ((known < -x.shape[0]) | (known >= x.shape[0])).any():
            bad = int(known[(known < -x.shape[0]) | (known >= x.shape[0])][0])
            raise RuntimeError(f"For 'InplaceUpdate', the value of 'indices' must be between {-x.shape[0]} and "
                               f"{x.shape[0] - 1}, but got indice: {bad}")
        vectors = F.reshape(indices, (-1, 1))
    else:
        vectors = Tensor(_static_rows("InplaceUpdate", x, v, indices, negative_ok=True).astype(np.int32)[:, None])
    return indexing._by_vectors("InplaceUpdate", x, vectors, v, "none")


def _write_static(name: str, x: Tensor, positions: np.ndarray, src: Tensor) -> Tensor:
    """x with src written at the flat `positions` (distinct, of src's shape): a select between x
    and src gathered to its places."""
    src = F.as_tensor(src)
    if src.dtype is not x.dtype:
        raise TypeError(f"For {name}, src must have the input's dtype {x.dtype}, got {src.dtype}")
    if src.shape != positions.shape:
        raise ValueError(f"For {name}, src shape should be equal to the slice size, but got src shape "
                         f"{src.shape} and slice shape {positions.shape}")
    if positions.size == 0:
        return x
    source = np.zeros(x.size, np.int32)
    source[positions.ravel()] = np.arange(positions.size, dtype=np.int32)
    written = np.zeros(x.size, np.bool_)
    written[positions.ravel()] = True
    flat = F.select(Tensor(written), F.take_in_range(F.reshape(src, (-1,)), Tensor(source), 0), F.reshape(x, (-1,)))
    return F.reshape(flat, x.shape)


def _positions(x: Tensor) -> np.ndarray:
    return np.arange(x.size, dtype=np.int64).reshape(x.shape)


def slice_scatter(input, src, axis=0, start=None, end=None, step=1):  # noqa: A002 - MindSpore's names
    """A copy of `input` with `src` written at input[..., start:end:step, ...] on `axis`; src
    has that slice's shape."""
    x = F.as_tensor(input)
    axis = F._axis(int(axis), x.ndim)
    where = (slice(None),) * axis + (slice(start, end, step),)
    return _write_static("slice_scatter", x, _positions(x)[where], src)


def select_scatter(input, src, axis, index):  # noqa: A002
    """A copy of `input` with `src` written at input[..., index, ...] on `axis` (an int; a
    negative one counts from the end); src has that slice's shape."""
    x = F.as_tensor(input)
    axis = F._axis(int(axis), x.ndim)
    index = int(index)
    size = x.shape[axis]
    where = (slice(None),) * axis + (slice(index + size if index < 0 else index,
                                           (index + size if index < 0 else index) + 1),)
    positions = _positions(x)[where]
    src = F.as_tensor(src)
    if positions.shape[axis] != 1:
        raise ValueError(f"For slice_scatter, src shape should be equal to the slice size,but got src shape "
                         f"{src.shape[:axis] + (1,) + src.shape[axis:]} and slice shape {positions.shape}")
    return _write_static("select_scatter", x, np.squeeze(positions, axis), src)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):  # noqa: A002
    """A copy of `input` with `src` written on the diagonal that ops.diagonal(input, offset,
    dim1, dim2) reads (src has its shape: the other axes, then the diagonal)."""
    x = F.as_tensor(input)
    if x.ndim < 2:
        raise ValueError(f"For diagonal_scatter, the input must have at least 2 dimensions, got {x.ndim}")
    d1, d2 = F._axis(int(dim1), x.ndim), F._axis(int(dim2), x.ndim)
    # measured on MindSpore 2.10: |offset| must be below the larger of the two axes' sizes
    # ((3, 4): offsets -3..3; an empty diagonal inside that range is written as a no-op)
    most = max(x.shape[d1], x.shape[d2])
    if not -most < int(offset) < most:
        raise ValueError(f"For diagonal_scatter, the offset must be in (-{most}, {most}) (the larger size of "
                         f"dim1 and dim2), but got {int(offset)}.")
    positions = np.diagonal(_positions(x), int(offset), d1, d2)
    src = F.as_tensor(src)
    if src.shape != positions.shape:
        raise ValueError(f"For diagonal_scatter, the shape of src should equal to the shape of input diagonal,but "
                         f"got src.shape {src.shape} and diagonal shape {positions.shape}.")
    return _write_static("diagonal_scatter", x, positions, src)

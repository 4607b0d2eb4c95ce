"""Array creation of mindspore.numpy: constructors, ranges, grids, triangles and diagonals, windows
and random draws.

Python ints become Int32 and Python floats Float32, as mindspore.numpy does (measured on 2.10);
constructors build their values in numpy (they are constants of a traced graph), and those that
take Tensors (linspace's bounds, diag, tril) are written with graphcell's ops.
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import dtype as mstype
from .. import ops
from ..dtype import to_dtype
from ..ops import functional as F
from ..tensor import Tensor
from ._helpers import one_axis, shape_tuple, tensor, with_dtype


def array(obj, dtype=None, copy=True, ndmin=0) -> Tensor:  # noqa: A002 - mindspore.numpy's names
    """A Tensor of `obj` (a Tensor, a nested list, a number or a numpy array), with at least
    `ndmin` axes (ones in front)."""
    x = tensor(obj, dtype)
    if copy and x is obj:
        x = obj.copy()
    if x.ndim < ndmin:
        x = F.reshape(x, (1,) * (ndmin - x.ndim) + x.shape)
    return x


def asarray(a, dtype=None) -> Tensor:
    return tensor(a, dtype)


def asfarray(a, dtype=mstype.float32) -> Tensor:
    """A floating Tensor of `a`: a non-floating `dtype` gives Float32."""
    dtype = to_dtype(dtype)
    return tensor(a, dtype if dtype.is_floating else mstype.float32)


def copy(a) -> Tensor:  # noqa: A001 - mindspore.numpy's name
    x = tensor(a)
    return x.copy() if x is a else x


def _fill(shape, value, dtype) -> Tensor:
    return Tensor(np.full(shape_tuple(shape), value, dtype=to_dtype(dtype).np_dtype))


def ones(shape, dtype=mstype.float32) -> Tensor:
    return _fill(shape, 1, dtype)


def zeros(shape, dtype=mstype.float32) -> Tensor:
    return _fill(shape, 0, dtype)


def empty(shape, dtype=mstype.float32) -> Tensor:
    """A Tensor of `shape` (zeros: graphcell has no uninitialised memory to hand out)."""
    return _fill(shape, 0, dtype)


def full(shape, fill_value, dtype=None) -> Tensor:
    """`shape` filled with `fill_value` (a number, or a Tensor broadcast to `shape`)."""
    if isinstance(fill_value, Tensor):
        return with_dtype(F.broadcast_to(fill_value, shape_tuple(shape)), dtype)
    if dtype is None:
        dtype = tensor(fill_value).dtype
    return _fill(shape, fill_value, dtype)


def _like(a, value, dtype, shape) -> Tensor:
    x = tensor(a)
    shape = x.shape if shape is None else shape_tuple(shape)
    if isinstance(value, Tensor):
        return F.broadcast_to(F.cast(value, to_dtype(dtype) if dtype is not None else x.dtype), shape)
    return _fill(shape, value, dtype if dtype is not None else x.dtype)


def ones_like(a, dtype=None, shape=None) -> Tensor:
    return _like(a, 1, dtype, shape)


def zeros_like(a, dtype=None, shape=None) -> Tensor:
    return _like(a, 0, dtype, shape)


def empty_like(prototype, dtype=None, shape=None) -> Tensor:
    return _like(prototype, 0, dtype, shape)


def full_like(a, fill_value, dtype=None, shape=None) -> Tensor:
    return _like(a, fill_value, dtype, shape)


def arange(start, stop=None, step=None, dtype=None) -> Tensor:
    """[start, stop) in steps of `step`: Int32 for integer bounds, Float32 when one is a float."""
    if stop is None:
        start, stop = 0, start
    values = np.arange(start, stop, 1 if step is None else step)
    if dtype is None:
        dtype = mstype.float32 if values.dtype.kind == "f" else mstype.int32
    return Tensor(values, to_dtype(dtype))


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """`num` evenly spaced values from start to stop (Float32; Tensor bounds give one sequence per
    element along `axis`); with retstep=True also the step, as a 0-d Tensor."""
    num = int(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    div = (num - 1) if endpoint else num
    if not isinstance(start, Tensor) and not isinstance(stop, Tensor):
        start_v, stop_v = np.asarray(start, np.float64), np.asarray(stop, np.float64)
        step = (stop_v - start_v) / div if div > 0 else np.full_like(stop_v - start_v, np.nan)
        values = np.linspace(start_v, stop_v, num, endpoint=endpoint, axis=axis)
        out = Tensor(values.astype(np.float32))
        step_t = Tensor(np.asarray(step, np.float32))
    else:
        start_t, stop_t = tensor(start, mstype.float32), tensor(stop, mstype.float32)
        shape = np.broadcast_shapes(start_t.shape, stop_t.shape)
        start_t, stop_t = F.broadcast_to(start_t, shape), F.broadcast_to(stop_t, shape)
        step_t = (stop_t - start_t) / float(div) if div > 0 else F.full_like(start_t, float("nan"))
        positions = Tensor(np.arange(num, dtype=np.float32).reshape((num,) + (1,) * len(shape)))
        out = F.expand_dims(start_t, 0) + positions * F.expand_dims(step_t, 0)
        if endpoint and num > 1:
            out = F.concat([out[:-1], F.expand_dims(stop_t, 0)], 0)
        axis = one_axis(axis, out.ndim)
        if axis:
            out = F.moveaxis(out, 0, axis)
    if dtype is not None:
        out = F.cast(out, to_dtype(dtype))
    return (out, step_t) if retstep else out


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0) -> Tensor:
    """base ** linspace(start, stop, num)."""
    exponents = linspace(start, stop, num, endpoint=endpoint, axis=axis)
    return with_dtype(ops.pow(F.full_like(exponents, float(base)), exponents), dtype)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0) -> Tensor:
    """`num` values from start to stop spaced evenly on a log scale."""
    start_t, stop_t = tensor(start, mstype.float32), tensor(stop, mstype.float32)
    exponents = linspace(ops.log10(start_t), ops.log10(stop_t), num, endpoint=endpoint, axis=axis)
    out = ops.pow(F.full_like(exponents, 10.0), exponents)
    if dtype is not None and not to_dtype(dtype).is_floating:
        out = ops.round(out)      # MindSpore 2.10 rounds: geomspace(2, 32, 3, dtype=int32) is [2, 8, 32]
    return with_dtype(out, dtype)


def eye(N, M=None, k=0, dtype=mstype.float32) -> Tensor:  # noqa: N803 - mindspore.numpy's names
    """Ones on the k-th diagonal of an N x M matrix."""
    return Tensor(np.eye(N, M, k), to_dtype(dtype))


def identity(n, dtype=mstype.float32) -> Tensor:
    return eye(n, dtype=dtype)


def tri(N, M=None, k=0, dtype=mstype.float32) -> Tensor:  # noqa: N803
    """Ones at and below the k-th diagonal of an N x M matrix."""
    return Tensor(np.tri(N, M, k), to_dtype(dtype))


def tril(m, k=0) -> Tensor:
    """`m` with the elements above the k-th diagonal (of its last two axes) zeroed; a 1-D `m` is
    first repeated as the rows of a square matrix (numpy's and MindSpore 2.10's, measured)."""
    return ops.tril(_as_matrix(tensor(m)), k)


def triu(m, k=0) -> Tensor:
    return ops.triu(_as_matrix(tensor(m)), k)


def _as_matrix(m: Tensor) -> Tensor:
    return F.broadcast_to(m, (m.shape[0], m.shape[0])) if m.ndim == 1 else m


def diagonal(a, offset=0, axis1=0, axis2=1) -> Tensor:
    """The `offset` diagonal of the (axis1, axis2) planes, as a last axis."""
    return ops.diagonal(tensor(a), offset, axis1, axis2)


def diag(v, k=0) -> Tensor:
    """A 1-D `v` on the k-th diagonal of a square matrix; a 2-D `v`'s k-th diagonal."""
    v = tensor(v)
    if v.ndim == 1:
        return diagflat(v, k)
    if v.ndim == 2:
        return ops.diagonal(v, k, 0, 1)
    raise ValueError("Input must be 1- or 2-d.")


def diagflat(v, k=0) -> Tensor:
    """The flattened `v` on the k-th diagonal of a square matrix."""
    return ops.diagflat(F.reshape(tensor(v), (-1,)), k)


def diag_indices(n, ndim=2) -> tuple:
    """The indices of the main diagonal of an n x ... x n array: `ndim` Int32 [n] Tensors."""
    return tuple(Tensor(np.arange(n, dtype=np.int32)) for _ in range(ndim))


def indices(dimensions, dtype=mstype.int32, sparse=False) -> list:
    """A grid of each axis' index (a list of Tensors, as MindSpore 2.10 returns)."""
    grids = np.indices(tuple(dimensions), sparse=sparse)
    return [Tensor(np.asarray(g), to_dtype(dtype)) for g in grids]


def meshgrid(*xi, sparse=False, indexing="xy") -> list:
    """Coordinate matrices of the 1-D `xi` (numpy's meshgrid)."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"indexing parameter must be either 'xy' or 'ij', got {indexing!r}")
    xs = [F.reshape(tensor(x), (-1,)) for x in xi]
    n = len(xs)
    out = []
    for i, x in enumerate(xs):
        shape = [1] * n
        place = i
        if indexing == "xy" and n >= 2 and i < 2:
            place = 1 - i
        shape[place] = x.shape[0]
        out.append(F.reshape(x, tuple(shape)))
    if sparse:
        return out
    full_shape = np.broadcast_shapes(*(o.shape for o in out))
    return [F.broadcast_to(o, full_shape) for o in out]


def _grid_axis(item: slice) -> np.ndarray:
    start = 0 if item.start is None else item.start
    step = 1 if item.step is None else item.step
    if isinstance(step, complex):
        return np.linspace(start, item.stop, int(abs(step)))
    return np.arange(start, item.stop, step)


def _grid_tensor(values: np.ndarray) -> Tensor:
    return Tensor(values, mstype.float32 if values.dtype.kind == "f" else mstype.int32)


class _MGrid:
    """mgrid[0:3, 0:2]: a dense grid stacked into one Tensor; a complex step (0:1:5j) is a count."""

    def __getitem__(self, index):
        if isinstance(index, slice):
            return _grid_tensor(_grid_axis(index))
        axes = [_grid_axis(i) for i in index]
        floats = any(a.dtype.kind == "f" for a in axes)
        grids = np.stack(np.meshgrid(*axes, indexing="ij"))
        return _grid_tensor(grids.astype(np.float64) if floats else grids)


class _OGrid:
    """ogrid[0:3, 0:2]: an open grid, a list of Tensors each spread along its own axis."""

    def __getitem__(self, index):
        if isinstance(index, slice):
            return _grid_tensor(_grid_axis(index))
        axes = [_grid_axis(i) for i in index]          # each keeps its own dtype (MindSpore 2.10)
        n = len(axes)
        return [_grid_tensor(a.reshape([-1 if j == i else 1 for j in range(n)])) for i, a in enumerate(axes)]


mgrid = _MGrid()
ogrid = _OGrid()


def ix_(*args) -> tuple:
    """Open-mesh index arrays from 1-D sequences: the i-th shaped [1, .., n_i, .., 1]."""
    xs = [tensor(a) for a in args]
    n = len(xs)
    out = []
    for i, x in enumerate(xs):
        if x.ndim != 1:
            raise ValueError("Cross index must be 1 dimensional")
        out.append(F.reshape(x, tuple(x.shape[0] if j == i else 1 for j in range(n))))
    return tuple(out)


def _int32_pair(rows, cols) -> tuple:
    return Tensor(rows.astype(np.int32)), Tensor(cols.astype(np.int32))


def tril_indices(n, k=0, m=None) -> tuple:
    return _int32_pair(*np.tril_indices(n, k, m))


def triu_indices(n, k=0, m=None) -> tuple:
    return _int32_pair(*np.triu_indices(n, k, m))


def tril_indices_from(arr, k=0) -> tuple:
    shape = tensor(arr).shape
    if len(shape) != 2:
        raise ValueError("input array must be 2-d")
    return tril_indices(shape[0], k, shape[1])


def triu_indices_from(arr, k=0) -> tuple:
    shape = tensor(arr).shape
    if len(shape) != 2:
        raise ValueError("input array must be 2-d")
    return triu_indices(shape[0], k, shape[1])


def _window(values: np.ndarray) -> Tensor:
    return Tensor(values.astype(np.float32))


def _window_size(M) -> int:  # noqa: N803
    if not isinstance(M, numbers.Integral):
        raise TypeError(f"M should be int, but got {type(M).__name__}")
    return int(M)


def bartlett(M) -> Tensor:  # noqa: N803 - numpy's names
    """The Bartlett (triangular) window of M points, Float32."""
    return _window(np.bartlett(_window_size(M)))


def blackman(M) -> Tensor:  # noqa: N803
    return _window(np.blackman(_window_size(M)))


def hamming(M) -> Tensor:  # noqa: N803
    return _window(np.hamming(_window_size(M)))


def hanning(M) -> Tensor:  # noqa: N803
    return _window(np.hanning(_window_size(M)))


# ---- random draws (numpy's global generator, which graphcell.set_seed seeds) ----

def _shape(args):
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    return tuple(int(a) for a in args)


def randn(*shape, dtype=mstype.float32) -> Tensor:
    return Tensor(np.random.standard_normal(_shape(shape)), to_dtype(dtype))


def rand(*shape, dtype=mstype.float32) -> Tensor:
    return Tensor(np.random.random_sample(_shape(shape)), to_dtype(dtype))


def randint(minval, maxval=None, shape=None, dtype=mstype.int32) -> Tensor:
    """Integers in [minval, maxval); `randint(5)` draws one from [0, 5)."""
    if maxval is None:
        minval, maxval = 0, minval
    if shape is None:
        shape = (1,)
    elif isinstance(shape, int):
        shape = (shape,)
    return Tensor(np.random.randint(minval, maxval, size=tuple(shape)), to_dtype(dtype))

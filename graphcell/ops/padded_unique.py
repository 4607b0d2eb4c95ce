"""ops.unique_with_pad: `unique` with a static shape, the distinct values padded to the input's
length.

Measured on MindSpore 2.10 (CPU): x is 1-D and non-empty, int32, int64 or float32; the values
come in the order they first occur, then pad_num; the indices are int32 (int64 for int64
input); every NaN is a value of its own and -0.0 equals 0.0; pad_num is a Python int for
integer input (a float is refused) and a float for float32 input (an int is refused), or a
0-D Tensor.

Composed of comparisons, argmax, cumsum and gathers over an [n, n] table of equalities, so it
runs under jit, vmap and grad and exports to ONNX; the table makes it quadratic in memory,
which suits the short id vectors it is used on (a sort would not keep first-occurrence order
without a second sort).
"""
from __future__ import annotations

import numbers

from .. import dtype as mstype
from ..tensor import Tensor
from . import functional as F
from .sorting import cumsum

__all__ = ["unique_with_pad"]

_DTYPES = (mstype.int32, mstype.int64, mstype.float32)


def _pad_value(x: Tensor, pad_num) -> Tensor:
    if isinstance(pad_num, Tensor):
        return F.cast(F.reshape(pad_num, ()), x.dtype)
    fits = isinstance(pad_num, float) if x.dtype.is_floating else isinstance(pad_num, numbers.Integral)
    if isinstance(pad_num, bool) or not fits:
        raise TypeError(f"For 'UniqueWithPad', pad_num must be {'a float' if x.dtype.is_floating else 'an int'} "
                        f"for a {x.dtype} input (or a 0-D Tensor), but got {type(pad_num).__name__}.")
    return F.as_tensor(pad_num, x.dtype)


def unique_with_pad(x, pad_num):
    """(y, idx): x's distinct values in the order they first occur, padded to len(x) with
    pad_num, and for every element of x the position of its value in y."""
    if not isinstance(x, Tensor):
        raise TypeError(f"For Primitive[UniqueWithPad], the type of input argument[x] must be Tensor but got "
                        f"{type(x).__name__}.")
    if x.dtype not in _DTYPES:
        raise TypeError("For primitive[UniqueWithPad], the input argument[x] must be a type of {Tensor[Float32], "
                        f"Tensor[Int32], Tensor[Int64]}}, but got Tensor[{x.dtype}].")
    if x.ndim != 1:
        raise ValueError(f"For primitive[UniqueWithPad], the input_shape_size must be equal to 1, but got {x.ndim}.")
    if x.shape[0] == 0:
        raise ValueError("For [UniqueWithPad], empty tensor(at least one dimension is zero) is not supported.")
    pad = _pad_value(x, pad_num)
    n = x.shape[0]
    index_dtype = mstype.int64 if x.dtype is mstype.int64 else mstype.int32
    positions = F.arange(0, n, dtype=mstype.int32)
    same = F.equal(F.expand_dims(x, 1), F.expand_dims(x, 0))
    same = F.logical_or(same, F.equal(F.expand_dims(positions, 1), F.expand_dims(positions, 0)))  # NaN is itself
    first = F.cast(F.argmax(same, 1), mstype.int32)          # where each element's value first occurs
    is_first = F.equal(first, positions)
    rank = F.sub(cumsum(F.cast(is_first, mstype.int32), 0), 1)   # its position among the distinct values
    idx = F.take_in_range(rank, first, 0)
    # y[k] is the first occurrence whose rank is k, or pad_num past the distinct values
    slot = F.logical_and(F.expand_dims(is_first, 0), F.equal(F.expand_dims(rank, 0), F.expand_dims(positions, 1)))
    source = F.cast(F.argmax(slot, 1), mstype.int32)
    y = F.select(F.any(slot, 1), F.take_in_range(x, source, 0), F.broadcast_to(pad, (n,)))
    return y, F.cast(idx, index_dtype)

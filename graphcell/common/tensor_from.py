"""MindSpore 2.10's top-level Tensor makers and test: `from_numpy`, `frombuffer`, `is_tensor`.

graphcell's Tensors hold jax arrays, which own their memory: these copy the data where
MindSpore's share it (writing to the numpy array or the buffer afterwards does not reach the
Tensor). Errors are MindSpore's types and messages, measured on 2.10.
"""
from __future__ import annotations

import numpy as np

from ..dtype import DType
from ..tensor import Tensor


def from_numpy(array) -> Tensor:
    """A Tensor of a numpy array's values, dtype and shape (a copy)."""
    if not isinstance(array, np.ndarray):
        raise TypeError("Expected a NumPy array.")
    return Tensor(array)


def frombuffer(buffer, dtype, count: int = -1, offset: int = 0) -> Tensor:
    """A 1-D Tensor of `count` items of `dtype` (-1: all) read from a bytes-like object,
    starting `offset` bytes in."""
    if not isinstance(dtype, DType):
        raise RuntimeError(f"dtype must be mindspore dtype object, but got{type(dtype)}")
    try:
        data = memoryview(buffer).cast("B")
    except TypeError:
        raise RuntimeError("object does not implement Python buffer protocol.") from None
    length, size = len(data), dtype.itemsize
    if count < -1:
        raise RuntimeError(f"count ({count}) must be -1 or positive, but got negative value other than -1")
    if length == 0 or count == 0:
        raise RuntimeError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise RuntimeError(f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
                           f"({length} bytes) minus 1.")
    if count == -1:
        if (length - offset) % size:
            raise RuntimeError(f"buffer length ({length} bytes) after offset ({offset} bytes) must be a multiple "
                               f"of element size ({size}).")
        count = (length - offset) // size
    elif length - offset < count * size:
        raise RuntimeError(f"buffer length ({length} bytes) after offset ({offset} bytes) is not enough for the "
                           f"requested count of elements ({count} elements of size {size} bytes each, total "
                           f"{count * size} bytes).")
    return Tensor(np.frombuffer(data, dtype.np_dtype, count, offset).copy(), dtype)


def is_tensor(obj) -> bool:
    """True for a Tensor (a Parameter too)."""
    return isinstance(obj, Tensor)

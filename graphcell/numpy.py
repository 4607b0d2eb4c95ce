"""graphcell.numpy: numpy-style constructors and random draws (mindspore.numpy's names).

Random draws use numpy's global legacy generator, which `graphcell.set_seed` seeds, so a
seeded script is reproducible (the values differ from MindSpore's own StandardNormal op).
"""
from __future__ import annotations

import numpy as _np

from . import dtype as _mstype
from .dtype import (bool_, float16, float32, float64, int8, int16, int32, int64, uint8,  # noqa: F401
                    to_dtype as _to_dtype)
from .ops import functional as _F
from .ops.functional import (arange, full, ones, stack, zeros, zeros_like, ones_like, full_like)  # noqa: F401
from .tensor import Tensor as _Tensor


def eye(N, M=None, k=0, dtype=_mstype.float32) -> _Tensor:  # noqa: N803 - mindspore.numpy's names
    """Ones on the k-th diagonal of an N x M matrix (numpy's and mindspore.numpy's eye)."""
    return _Tensor(_np.eye(N, M, k), _to_dtype(dtype))


def concatenate(arrays, axis=0) -> _Tensor:
    """numpy's concatenate: `axis=None` joins the flattened arrays."""
    if axis is None:
        return _F.concat([_F.reshape(_F.as_tensor(a), (-1,)) for a in arrays], 0)
    return _F.concat(arrays, axis)


def _shape(args):
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    return tuple(int(a) for a in args)


def randn(*shape, dtype=_mstype.float32) -> _Tensor:
    return _Tensor(_np.random.standard_normal(_shape(shape)), _to_dtype(dtype))


def rand(*shape, dtype=_mstype.float32) -> _Tensor:
    return _Tensor(_np.random.random_sample(_shape(shape)), _to_dtype(dtype))


def randint(minval, maxval=None, shape=None, dtype=_mstype.int32) -> _Tensor:
    """Integers in [minval, maxval); `randint(5)` draws one from [0, 5)."""
    if maxval is None:
        minval, maxval = 0, minval
    if shape is None:
        shape = (1,)
    elif isinstance(shape, int):
        shape = (shape,)
    return _Tensor(_np.random.randint(minval, maxval, size=tuple(shape)), _to_dtype(dtype))


def array(obj, dtype=None) -> _Tensor:
    return _Tensor(obj, dtype)


asarray = array


def empty(shape, dtype=_mstype.float32) -> _Tensor:
    return zeros(shape, dtype)

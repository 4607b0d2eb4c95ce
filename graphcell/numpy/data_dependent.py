"""mindspore.numpy's functions whose output shape depends on the input's values: unique,
argwhere, intersect1d, setdiff1d, where with a condition alone, and array_str.

Like graphcell.ops.unique they run eagerly only, on the host with numpy, and inside jit, vmap or
grad raise a GraphModeError naming a static-shape alternative. `unique` keeps MindSpore 2.10's
order of first occurrence (numpy sorts), with an Int32 inverse.
"""
from __future__ import annotations

import numpy as np

from .. import ops
from ..tensor import Tensor
from ._helpers import host, tensor

_MEMBERSHIP = "isin / in1d, which keep the input's shape"


def unique(x, return_inverse=False):
    """The distinct elements of the flattened x in order of first occurrence; with
    return_inverse=True also each element's index into them (Int32)."""
    x = tensor(x)
    value = host("unique", x, "a fixed-size encoding such as ops.one_hot, or unique values computed beforehand")
    flat = value.reshape(-1)
    distinct, first, inverse = np.unique(flat, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    out = Tensor(distinct[order], x.dtype)
    if return_inverse:
        return out, Tensor(rank[inverse.reshape(-1)].astype(np.int32))
    return out


def argwhere(a) -> Tensor:
    """The indices of a's nonzero elements, an Int64 [count, rank] Tensor."""
    return ops.argwhere(tensor(a))


def nonzero_indices(condition) -> tuple:
    """where(condition) alone: one Int64 index Tensor per axis of the nonzero elements."""
    return ops.nonzero(tensor(condition), as_tuple=True)


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """The sorted values in both; with return_indices=True also the first index of each in ar1
    and ar2 (Int32)."""
    a, b = tensor(ar1), tensor(ar2)
    values = (host("intersect1d", a, _MEMBERSHIP), host("intersect1d", b, _MEMBERSHIP))
    common, i1, i2 = np.intersect1d(values[0], values[1], assume_unique=assume_unique, return_indices=True)
    out = Tensor(common, a.dtype)
    if return_indices:
        return out, Tensor(i1.astype(np.int32)), Tensor(i2.astype(np.int32))
    return out


def setdiff1d(ar1, ar2, assume_unique=False) -> Tensor:
    """The values of ar1 not in ar2: sorted and distinct (in ar1's order with assume_unique)."""
    a, b = tensor(ar1), tensor(ar2)
    out = np.setdiff1d(host("setdiff1d", a, _MEMBERSHIP), host("setdiff1d", b, _MEMBERSHIP),
                       assume_unique=assume_unique)
    return Tensor(out, a.dtype)


def array_str(a) -> str:
    """numpy's text of the array's values."""
    return np.array_str(host("array_str", tensor(a), "printing outside the jitted function"))

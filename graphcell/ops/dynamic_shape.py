"""Ops whose output shape depends on the values: nonzero, argwhere, masked_select, unique,
unique_consecutive.

graphcell's graphs have static shapes (XLA compiles one program per shape, and the vmap and
grad passes need them), so these run eagerly (PYNATIVE) only, on the host with numpy, as
MindSpore 2.10 computes them (measured): int64 indices in row-major order, `unique` in the
order of first occurrence. Inside `jit` or `vmap` they raise a GraphModeError that names the
op and a static-shape alternative; an eager grad knows its values (frontend/concrete.py), and
masked_select's and unique's values are then gathers of the input, which carry its gradient.
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from . import functional as F

# The static-shape alternative to suggest in graph mode, per op.
_INSTEAD = {
    "list_diff": "a mask, ops.logical_not(ops.isin(x, y)), which keeps the shape",
    "ragged_range": "ranges of a fixed padded length with a mask",
    "non_max_suppression_with_overlaps": "a keep mask over all the boxes (static shape)",
    "non_max_suppression_v3": "ops.NMSWithMask or ops.CombinedNonMaxSuppression (static shapes)",
    "edit_distance": "distances computed before the jitted function",
    "nonzero": "ops.select / ops.masked_fill over the whole tensor, or ops.topk of the mask with a fixed k",
    "argwhere": "ops.select / ops.masked_fill over the whole tensor, or ops.topk of the mask with a fixed k",
    "masked_select": "ops.masked_fill(input, ~mask, 0) (or ops.select), which keeps the shape",
    "unique": "a fixed-size encoding such as ops.one_hot, or unique values computed before the jitted function",
    "unique_consecutive": "a mask of run starts, ops.not_equal(x[1:], x[:-1]), which keeps a static shape",
    "is_nonzero": "ops.not_equal(input, 0), a bool Tensor",
    "ctc_greedy_decoder": "ops.argmax(inputs, -1) and a mask of the steps kept (static shapes), "
                          "decoded into labels outside the jitted function",
}


def _host(op: str, x) -> np.ndarray:
    """`x`'s value on the host; in graph mode, an error that says why and what to use."""
    from ..frontend.tracer import GraphModeError  # imported here: the tracer imports ops
    x = F.as_tensor(x)
    try:
        return x._host(f"ops.{op}")
    except GraphModeError:
        raise GraphModeError(
            f"ops.{op} has an output shape that depends on the input's values, and graph mode "
            f"(jit, vmap, grad) builds graphs of static shapes; call it eagerly, or use "
            f"{_INSTEAD[op]}") from None


def _picked(input, shape, flat_indices, values) -> Tensor:  # noqa: A002
    """`values`, the elements of `input` (broadcast to `shape`) at `flat_indices`: a Tensor of
    them, or, when `input` is traced in an eager grad (which knows its values), a gather of
    them, so that the gradient reaches the picked elements as in MindSpore's PYNATIVE."""
    x = F.as_tensor(input)
    if not x.is_symbolic:
        return Tensor(values, x.dtype)
    flat = F.reshape(F.broadcast_to(x, shape), (-1,))
    return F.take_in_range(flat, Tensor(np.asarray(flat_indices, np.int32)), 0)


def nonzero(input, *, as_tuple=False):  # noqa: A002 - MindSpore's names
    """The indices of `input`'s nonzero elements: an int64 [count, rank] Tensor, row-major,
    or with `as_tuple=True` one int64 [count] Tensor per axis (numpy's nonzero)."""
    value = _host("nonzero", input)
    if value.ndim == 0:
        raise ValueError("ops.nonzero: the input must have at least one dimension, got a scalar")
    indices = np.nonzero(value)
    if as_tuple:
        return tuple(Tensor(i.astype(np.int64)) for i in indices)
    return Tensor(np.stack(indices, axis=1).astype(np.int64).reshape(-1, value.ndim))


def argwhere(input):  # noqa: A002
    """The indices of `input`'s nonzero elements, int64 [count, rank] (numpy's argwhere)."""
    value = _host("argwhere", input)
    if value.ndim == 0:
        raise ValueError("ops.argwhere: the input must have at least one dimension, got a scalar")
    return Tensor(np.argwhere(value).astype(np.int64))


def masked_select(input, mask):  # noqa: A002
    """The elements of `input` where the bool `mask` is True, as a 1-D Tensor; `input` and
    `mask` broadcast together first."""
    value = _host("masked_select", input)
    mask_value = _host("masked_select", mask)
    if mask_value.dtype != np.bool_:
        raise TypeError(f"ops.masked_select: 'mask' must be a bool Tensor, got {mstype.to_dtype(mask_value.dtype)}")
    try:
        value, mask_value = np.broadcast_arrays(value, mask_value)
    except ValueError:
        raise ValueError(f"ops.masked_select: the shapes of 'input' {list(value.shape)} and 'mask' "
                         f"{list(mask_value.shape)} do not broadcast") from None
    return _picked(input, value.shape, np.flatnonzero(mask_value), value[mask_value])


def unique(input):  # noqa: A002
    """(values, indices): `input`'s distinct values in the order they first occur (flattened),
    and for every element of `input` the position of its value in `values`, as MindSpore 2.10
    gives them (measured): every NaN is a value of its own, and the indices are int64 for int64
    and float64 inputs, int32 otherwise."""
    value = _host("unique", input)
    flat = value.reshape(-1)
    distinct, first, inverse = np.unique(flat, return_index=True, return_inverse=True, equal_nan=False)
    order = np.argsort(first, kind="stable")          # first occurrence, not sorted order
    position = np.empty_like(order)
    position[order] = np.arange(order.size)
    index_dtype = np.int64 if value.dtype in (np.int64, np.float64) else np.int32
    return (_picked(input, value.shape, first[order], distinct[order]),
            Tensor(position[inverse.reshape(-1)].reshape(value.shape).astype(index_dtype)))


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """The first element of each run of equal consecutive elements (of the flattened input, or
    with `dim`, of equal consecutive slices along `dim`), then, as asked, for every element (or
    slice) the int64 index of its run, and each run's int64 length. NaN equals nothing, so each
    NaN is a run of its own (MindSpore 2.10's CPU kernel gives also a first NaN's spurious run
    of length 0, measured, which graphcell does not copy); -0.0 and 0.0 are equal."""
    if not isinstance(input, Tensor):
        raise TypeError(f"For 'UniqueConsecutive', the input must be a Tensor, got {type(input).__name__}.")
    value = _host("unique_consecutive", input)
    if dim is None:
        flat = value.reshape(-1)
        starts = np.flatnonzero(np.concatenate([[True], flat[1:] != flat[:-1]])) if flat.size else np.zeros(0, int)
        picked = _picked(input, value.shape, starts, flat[starts])
        runs_shape, length = value.shape, flat.size
    else:
        if isinstance(dim, bool) or not isinstance(dim, numbers.Integral):
            raise TypeError(f"For 'UniqueConsecutive', 'dim' must be an int or None, got {type(dim).__name__}.")
        if not -value.ndim <= dim < max(value.ndim, 1):
            raise ValueError(f"For 'UniqueConsecutive', the value of 'dim' should be in [{-value.ndim}, "
                             f"{value.ndim}), but got {dim}")
        dim %= max(value.ndim, 1)
        moved = np.moveaxis(value, dim, 0).reshape(value.shape[dim], -1)
        changed = np.any(moved[1:] != moved[:-1], axis=1)
        starts = np.flatnonzero(np.concatenate([[True], changed])) if len(moved) else np.zeros(0, int)
        positions = np.take(np.arange(value.size).reshape(value.shape), starts, axis=dim)
        picked = F.reshape(_picked(input, value.shape, positions.reshape(-1), value.reshape(-1)[positions.reshape(-1)]),
                           positions.shape)
        runs_shape, length = (value.shape[dim],), value.shape[dim]
    if value.ndim == 0:
        picked = F.reshape(picked, (1,))
    outs = [picked]
    if return_inverse:
        run_of = np.cumsum(np.isin(np.arange(length), starts)) - 1
        outs.append(Tensor(run_of.reshape(runs_shape).astype(np.int64)))
    if return_counts:
        outs.append(Tensor(np.diff(np.append(starts, length)).astype(np.int64)))
    return outs[0] if len(outs) == 1 else tuple(outs)


def is_nonzero(input):  # noqa: A002
    """Whether the one element of `input` is nonzero, a Python bool (NaN is nonzero), as
    MindSpore 2.10 (measured). A value on the host: eager only, like the ops above."""
    if not isinstance(input, Tensor):
        raise TypeError(f"For is_nonzero, the input must be a Tensor, but got {type(input)}.")
    if input.size != 1:
        raise ValueError(f"For is_nonzero, the numel of input must be 1, but got {input.size}.")
    return bool(_host("is_nonzero", input).reshape(()) != 0)

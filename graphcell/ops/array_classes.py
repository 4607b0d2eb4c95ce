"""MindSpore 2.10's array, indexing and scatter operator classes (ops.DiagPart, ops.PadV3,
ops.ScatterAdd, ops.Im2Col, ...) over graphcell's functional ops; operations.py re-exports them.

Constructor arguments, call inputs and outputs are 2.10's, measured on its CPU build
(tests/data/mindspore_op_classes.json). The in-place classes (Scatter*, IndexAdd,
InplaceIndexAdd) write their result into `input_x` as the functional forms do (a Parameter
through ops.assign) and return it.
"""
from __future__ import annotations

import functools

import math

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from . import array_ops as AO
from . import channel_ops as CO
from . import composite as CP
from . import control_flow as CF
from . import functional as F
from . import indexing as IX
from . import patches as PT
from . import scatter_copies as SC
from . import scatter_inplace as SI
from . import segment_ops as SG
from .math_classes import simple_class, static_ints
from .op_base import (Operator, check_bool, check_call_int, check_choice, check_dtype, check_int, check_int_or_ints,
                      exporter)

__all__: list[str] = []


_export = exporter(__all__)
_simple = functools.partial(simple_class, module=__name__, export=_export)


# == shapes and values =========================================================================

@_export
class DiagPart(Operator):
    """The diagonal of a [D1..Dk, D1..Dk] tensor: out[i1..ik] = x[i1..ik, i1..ik]."""

    def __call__(self, input_x):
        x = F.as_tensor(input_x)
        k = x.ndim // 2
        if x.ndim == 0 or x.ndim % 2 or x.shape[:k] != x.shape[k:]:
            raise ValueError(f"For 'DiagPart', the input must have an even rank 2k with shape [D1..Dk, D1..Dk], but "
                             f"got {list(x.shape)}.")
        n = math.prod(x.shape[:k])
        return F.reshape(CP.diagonal(F.reshape(x, (n, n))), x.shape[:k])


@_export
class IdentityN(Operator):
    """Its tuple or list of Tensors, as a tuple."""

    def __call__(self, x):
        if not isinstance(x, (tuple, list)) or not all(isinstance(t, Tensor) for t in x):
            raise TypeError(f"For 'IdentityN', the input must be a tuple or list of Tensors, but got {x!r}.")
        return tuple(x)


@_export
class ParallelConcat(Operator):
    """Tensors of shape [1, ...] joined along axis 0."""

    def __call__(self, values):
        if not isinstance(values, (tuple, list)) or not values:
            raise TypeError(f"For 'ParallelConcat', the input must be a non-empty tuple or list of Tensors, but got "
                            f"{values!r}.")
        tensors = [F.as_tensor(v) for v in values]
        if any(t.ndim == 0 or t.shape[0] != 1 for t in tensors):
            raise ValueError(f"For 'ParallelConcat', each input must have a first dimension of 1, but got "
                             f"{[list(t.shape) for t in tensors]}.")
        return F.concat(tensors, 0)


@_export
class FillV2(Operator):
    """A Tensor of `shape` (a tuple or a 1-D integer Tensor) holding the 0-d Tensor `value`."""

    def __call__(self, shape, value):
        value = F.as_tensor(value)
        if value.ndim:
            raise ValueError(f"For 'FillV2', 'value' must be a 0-d Tensor, but got shape {list(value.shape)}.")
        return F.broadcast_to(value, static_ints("FillV2", "shape", shape))


@_export
class ScalarToTensor(Operator):
    """A 0-d Tensor of the number `input_x`, float32 unless `dtype` says."""

    def __call__(self, input_x, dtype=mstype.float32):
        return F.full((), input_x, check_dtype("ScalarToTensor", "dtype", dtype))


@_export
class TupleToArray(Operator):
    """A 1-D Tensor of a tuple of numbers: int32 for ints, float32 otherwise (measured)."""

    def __call__(self, input_x):
        if not isinstance(input_x, (tuple, list)) or not input_x:
            raise TypeError(f"For 'TupleToArray', the input must be a non-empty tuple of numbers, but got {input_x!r}.")
        ints = all(isinstance(v, int) and not isinstance(v, bool) for v in input_x)
        return Tensor(np.array(input_x, np.int32 if ints else np.float32))


@_export
class TensorShape(Operator):
    """x's shape as a 1-D int64 Tensor."""

    def __call__(self, input_x):
        return Tensor(np.array(F.as_tensor(input_x).shape, np.int64))


@_export
class TensorToTuple(Operator):
    """A 1-D Tensor's elements as a tuple of Python numbers (its values must be known)."""

    def __call__(self, input_tensor):
        x = F.as_tensor(input_tensor)
        if x.is_symbolic:
            raise TypeError("For 'TensorToTuple', the input's values must be known: it cannot run inside a traced "
                            "graph (jit, GRAPH_MODE, vmap, grad).")
        return tuple(x.asnumpy().reshape(-1).tolist())


@_export
class Expand(Operator):
    """x broadcast to `shape`, a 1-D integer Tensor (-1 keeps an axis' size)."""

    def __call__(self, x, shape):
        return AO.expand(x, shape)


@_export
class ChannelShuffle(Operator):
    """The channels (axis 1) split into `group` groups and interleaved."""

    def __init__(self, group):
        super().__init__(group=check_int("ChannelShuffle", "group", group, minimum=1))

    def __call__(self, x):
        return CO.channel_shuffle(x, self.group)


# == padding ===================================================================================

def _mirror(x: Tensor, axis: int, before: int, after: int, symmetric: bool) -> Tensor:
    """x padded along `axis` with its mirror image: with the edge repeated (symmetric) or not."""
    n, edge = x.shape[axis], 0 if symmetric else 1
    if before > n - edge or after > n - edge:
        raise ValueError(f"For 'MirrorPad', the paddings of axis {axis} ({before}, {after}) must be at most "
                         f"{n - edge} for an axis of size {n} in this mode.")
    parts = []
    if before:
        parts.append(CP.flip(F.slice_axis(x, axis, edge, edge + before), (axis,)))
    parts.append(x)
    if after:
        parts.append(CP.flip(F.slice_axis(x, axis, n - edge - after, n - edge), (axis,)))
    return F.concat(parts, axis) if len(parts) > 1 else x


@_export
class MirrorPad(Operator):
    """x padded with its mirror image: `paddings` a constant [rank, 2] integer Tensor of
    (before, after) per axis; 'REFLECT' leaves the edge out, 'SYMMETRIC' repeats it."""

    def __init__(self, mode="REFLECT"):
        super().__init__(mode=check_choice("MirrorPad", "mode", mode, ("REFLECT", "SYMMETRIC")))

    def __call__(self, input_x, paddings):
        x = F.as_tensor(input_x)
        pads = static_ints("MirrorPad", "paddings", paddings)
        if len(pads) != 2 * x.ndim:
            raise ValueError(f"For 'MirrorPad', 'paddings' must have shape [{x.ndim}, 2], but got {len(pads)} values.")
        for axis in range(x.ndim):
            x = _mirror(x, axis, pads[2 * axis], pads[2 * axis + 1], self.mode == "SYMMETRIC")
        return x


_PAD_MODES = {"constant": "constant", "reflect": "reflect", "edge": "replicate", "circular": "circular"}


@_export
class PadV3(Operator):
    """x padded by `paddings` (ints from the last axis back: (left, right, top, bottom, ...);
    with paddings_contiguous=False all the befores, then all the afters), filled with
    `constant_value` in 'constant' mode, mirrored ('reflect'), its edge repeated ('edge') or
    wrapped ('circular')."""

    def __init__(self, mode="constant", paddings_contiguous=True):
        super().__init__(mode=check_choice("PadV3", "mode", mode, tuple(_PAD_MODES)),
                         paddings_contiguous=check_bool("PadV3", "paddings_contiguous", paddings_contiguous))

    def __call__(self, x, paddings, constant_value=None):
        x = F.as_tensor(x)
        pads = static_ints("PadV3", "paddings", paddings)
        if len(pads) % 2 or len(pads) > 2 * x.ndim:
            raise ValueError(f"For 'PadV3', 'paddings' must hold an even number of values, at most twice the input's "
                             f"rank {x.ndim}, but got {list(pads)}.")
        if not self.paddings_contiguous:
            half = len(pads) // 2
            pads = tuple(v for pair in zip(pads[:half], pads[half:]) for v in pair)
        value = None
        if self.mode == "constant" and constant_value is not None:
            value = F.cast(F.as_tensor(constant_value), x.dtype)
        if value is not None and not value.is_symbolic:
            value = value.item()
        return F.pad(x, pads, _PAD_MODES[self.mode], value)


# == indexed writes ============================================================================

@_export
class IndexAdd(Operator):
    """x[..., indices[i], ...] += y[..., i, ...] along `axis`, written into x (a Parameter)."""

    def __init__(self, axis, use_lock=True, check_index_bound=True):
        super().__init__(axis=check_int("IndexAdd", "axis", axis),
                         use_lock=check_bool("IndexAdd", "use_lock", use_lock),
                         check_index_bound=check_bool("IndexAdd", "check_index_bound", check_index_bound))

    def __call__(self, x, indices, y):
        return SI.index_add(x, indices, y, self.axis, self.use_lock, self.check_index_bound)


@_export
class IndexFill(Operator):
    """x with `value` at `index` along `dim` (a copy)."""

    def __call__(self, x, dim, index, value):
        return SC.index_fill(x, check_call_int("IndexFill", "dim", dim), index, value)


class _InplaceRows(Operator):
    _fn = None

    def __init__(self, indices):
        indices = check_int_or_ints(self.name, "indices", indices)
        super().__init__(indices=(indices,) if isinstance(indices, int) else indices)

    def __call__(self, x, input_v):
        return type(self)._fn(x, input_v, self.indices)


@_export
class InplaceAdd(_InplaceRows):
    """x with v's rows added to its rows `indices` (a copy)."""
    _fn = staticmethod(SC.inplace_add)


@_export
class InplaceSub(_InplaceRows):
    """x with v's rows subtracted from its rows `indices` (a copy)."""
    _fn = staticmethod(SC.inplace_sub)


@_export
class InplaceUpdate(_InplaceRows):
    """x with its rows `indices` replaced by v's (a copy; deprecated, InplaceUpdateV2)."""
    _fn = staticmethod(SC.inplace_update)


@_export
class InplaceUpdateV2(Operator):
    """x with its rows `indices` (given to the call) replaced by v's (a copy)."""

    def __call__(self, x, indices, v):
        if isinstance(indices, Tensor):
            indices = static_ints("InplaceUpdateV2", "indices", indices)
        return SC.inplace_update(x, v, indices)


@_export
class InplaceIndexAdd(Operator):
    """var[..., indices[i], ...] += updates[..., i, ...] along `axis`, written into var."""

    def __init__(self, axis):
        super().__init__(axis=check_int("InplaceIndexAdd", "axis", axis))

    def __call__(self, var, indices, updates):
        return SI.inplace_index_add(var, indices, updates, self.axis)


@_export
class TensorScatterElements(Operator):
    """A copy of data with updates written (or added, reduction='add') at `indices` along `axis`."""

    def __init__(self, axis=0, reduction="none"):
        super().__init__(axis=check_int("TensorScatterElements", "axis", axis),
                         reduction=check_choice("TensorScatterElements", "reduction", reduction, ("none", "add")))

    def __call__(self, data, indices, updates):
        return IX.tensor_scatter_elements(data, indices, updates, self.axis, self.reduction)


def _scatter_sub(input_x, indices, updates):
    return SI.scatter_add(input_x, indices, F.neg(F.as_tensor(updates)))


class _Scatter(Operator):
    """`use_locking` at construction (recorded; graphcell's writes are never concurrent)."""
    _fn = None
    _locking = False

    def __init__(self, use_locking=None):
        use_locking = type(self)._locking if use_locking is None else use_locking
        super().__init__(use_locking=check_bool(self.name, "use_locking", use_locking))

    def __call__(self, input_x, indices, updates):
        return type(self)._fn(input_x, indices, updates)


def _scatter_class(name: str, fn, locking: bool, doc: str):
    def init(self, use_locking=locking):
        _Scatter.__init__(self, use_locking)
    cls = type(name, (_Scatter,), {"_fn": staticmethod(fn), "__init__": init, "__doc__": doc, "__module__": __name__})
    return _export(cls)


ScatterAdd = _scatter_class("ScatterAdd", SI.scatter_add, False, "input_x[indices] += updates, in place")
ScatterSub = _scatter_class("ScatterSub", _scatter_sub, False, "input_x[indices] -= updates, in place")
ScatterMul = _scatter_class("ScatterMul", SI.scatter_mul, False, "input_x[indices] *= updates, in place")
ScatterDiv = _scatter_class("ScatterDiv", SI.scatter_div, False, "input_x[indices] /= updates, in place")
ScatterMax = _scatter_class("ScatterMax", SI.scatter_max, False, "input_x[indices] = max(., updates), in place")
ScatterMin = _scatter_class("ScatterMin", SI.scatter_min, False, "input_x[indices] = min(., updates), in place")
ScatterUpdate = _scatter_class("ScatterUpdate", SI.scatter_update, True, "input_x[indices] = updates, in place")
ScatterNdAdd = _scatter_class("ScatterNdAdd", SI.scatter_nd_add, False, "adds updates at index vectors, in place")
ScatterNdSub = _scatter_class("ScatterNdSub", SI.scatter_nd_sub, False, "subtracts updates at index vectors, in place")
ScatterNdMul = _scatter_class("ScatterNdMul", SI.scatter_nd_mul, False, "multiplies at index vectors, in place")
ScatterNdDiv = _scatter_class("ScatterNdDiv", SI.scatter_nd_div, False, "divides at index vectors, in place")
ScatterNdMax = _scatter_class("ScatterNdMax", SI.scatter_nd_max, False, "the maximum at index vectors, in place")
ScatterNdMin = _scatter_class("ScatterNdMin", SI.scatter_nd_min, False, "the minimum at index vectors, in place")
ScatterNdUpdate = _scatter_class("ScatterNdUpdate", SI.scatter_nd_update, True, "writes updates at index vectors, "
                                 "in place")

UnsortedSegmentMax = _simple("UnsortedSegmentMax", SG.unsorted_segment_max,
                             "the maximum of each segment (the dtype's lowest value where empty)")
UnsortedSegmentMin = _simple("UnsortedSegmentMin", SG.unsorted_segment_min,
                             "the minimum of each segment (the dtype's largest value where empty)")
UnsortedSegmentProd = _simple("UnsortedSegmentProd", SG.unsorted_segment_prod,
                              "the product of each segment (1 where empty)")


@_export
class EmbeddingLookup(Operator):
    """The rows input_params[input_indices - offset]; an index outside the table gives zeros."""

    def __call__(self, input_params, input_indices, offset):
        params, idx = F.as_tensor(input_params), F.as_tensor(input_indices)
        idx = F.sub(idx, check_call_int("EmbeddingLookup", "offset", offset))
        n = params.shape[0]
        valid = F.logical_and(F.greater_equal(idx, 0), F.less(idx, n))
        rows = F.gather(params, F.select(valid, idx, F.zeros_like(idx)), 0)
        mask = F.reshape(valid, valid.shape + (1,) * (params.ndim - 1))
        return F.select(mask, rows, F.zeros_like(rows))


# == sliding blocks ============================================================================

def _pair(op: str, arg: str, value, sizes=(1, 2)) -> tuple:
    values = check_int_or_ints(op, arg, value)
    values = (values,) if isinstance(values, int) else values
    if len(values) not in sizes:
        raise ValueError(f"For '{op}', '{arg}' must be an int or a tuple of {' or '.join(map(str, sizes))} ints, but "
                         f"got {value!r}.")
    return values * 2 if len(values) == 1 else values


@_export
class Im2Col(Operator):
    """The sliding blocks of [N, C, H, W] as [N, C, kh * kw, L] (kernel-major within a channel,
    blocks in row-major order). `pads` an int, (h, w) or four equal-by-axis ints."""

    def __init__(self, ksizes, strides=1, dilations=1, pads=0):
        pads_ = _pair("Im2Col", "pads", pads, (1, 2, 4))
        if len(pads_) == 4:
            if pads_[0] != pads_[1] or pads_[2] != pads_[3]:
                raise ValueError(f"For 'Im2Col', graphcell takes four 'pads' only as (top, top, left, left), but got "
                                 f"{pads!r}.")
            pads_ = (pads_[0], pads_[2])
        super().__init__(ksizes=_pair("Im2Col", "ksizes", ksizes), strides=_pair("Im2Col", "strides", strides),
                         dilations=_pair("Im2Col", "dilations", dilations), pads=pads_)

    def __call__(self, x):
        x = F.as_tensor(x)
        cols = PT.unfold(x, self.ksizes, self.dilations, self.pads, self.strides)
        return F.reshape(cols, (x.shape[0], x.shape[1], math.prod(self.ksizes), -1))


@_export
class Col2Im(Operator):
    """Im2Col's transpose: [N, C, kh * kw, L] blocks summed back into [N, C, *output_size]."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__(kernel_size=_pair("Col2Im", "kernel_size", kernel_size),
                         dilation=_pair("Col2Im", "dilation", dilation), padding=_pair("Col2Im", "padding", padding),
                         stride=_pair("Col2Im", "stride", stride))

    def __call__(self, x, output_size):
        x = F.as_tensor(x)
        if x.ndim != 4:
            raise ValueError(f"For 'Col2Im', the input must be 4-D [N, C, kh * kw, L], but got {list(x.shape)}.")
        size = static_ints("Col2Im", "output_size", output_size)
        cols = F.reshape(x, (x.shape[0], x.shape[1] * x.shape[2], x.shape[3]))
        return PT.fold(cols, size, self.kernel_size, self.dilation, self.padding, self.stride)


# == loops =====================================================================================

@_export
class WhileLoop(Operator):
    """`while cond_func(val): val = loop_func(val)`, returning the final val (ops.while_loop)."""

    def __call__(self, cond_func, loop_func, init_val):
        return CF.while_loop(cond_func, loop_func, init_val)


@_export
class ForiLoop(Operator):
    """`for i in range(lower, upper): val = loop_func(i, val)`, returning the final val. unroll
    is accepted; graphcell's fori_loop decides (a Python loop eagerly, one node when traced)."""

    def __call__(self, lower, upper, loop_func, init_val, unroll=True):
        check_bool("ForiLoop", "unroll", unroll)
        return CF.fori_loop(lower, upper, loop_func, init_val)


@_export
class Scan(Operator):
    """(carry, ys): `carry, y = loop_func(carry, x)` for each element x of the list or tuple
    xs (or `length` times with x None), the ys as a list, as MindSpore 2.10's class (measured:
    xs is a Python sequence, not a Tensor scanned along an axis; that is ops.scan). A Python
    loop, unrolled into a traced graph."""

    def __call__(self, loop_func, init, xs, length=None, unroll=True):
        check_bool("Scan", "unroll", unroll)
        if xs is None:
            if length is None:
                raise ValueError("For 'Scan', 'length' must be given when 'xs' is None.")
            xs = [None] * check_int("Scan", "length", length, minimum=0)
        elif not isinstance(xs, (list, tuple)):
            raise TypeError(f"For 'Scan', 'xs' must be a list, a tuple or None, but got {type(xs).__name__}.")
        elif length is not None and check_int("Scan", "length", length) != len(xs):
            raise ValueError(f"For 'Scan', 'length' {length} differs from the length of 'xs' {len(xs)}.")
        carry, ys = init, []
        for x in xs:
            carry, y = loop_func(carry, x)
            ys.append(y)
        return carry, ys

"""MindSpore 2.10's operator classes for unique values, index arithmetic, sorted segments,
scatters, bit shifts and float neighbours (ops.UniqueWithPad, ops.UnravelIndex, ops.NthElement,
ops.SegmentSum..., ops.IndexPut, ops.MaskedScatter, ops.FillDiagonal, ops.LeftShift, ...) over
graphcell's functional ops; operations.py re-exports them.

Constructor checks, call inputs, outputs, dtypes and messages are 2.10's, measured on its CPU
build. Every class but the Segment* ones composes static-shape ops (jit, vmap, grad and ONNX
follow); Segment* have an output length that is segment_ids[-1] + 1, so they run eagerly only
(segment_ops.sorted_segments).
"""
from __future__ import annotations

import functools

import math

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from . import bit_ops as BO
from . import composite as CP
from . import dynamic_shape as DS
from . import functional as F
from . import method_scatters as MS
from . import segment_ops as SG
from .float_neighbours import nextafter
from .math_classes import simple_class
from .op_base import exporter, Operator, check_bool, check_int
from .padded_unique import unique_with_pad
from .scatter_inplace import _known
from .sorting import sort

__all__: list[str] = []


_export = exporter(__all__)
_simple = functools.partial(simple_class, module=__name__, export=_export)


# == unique values and index arithmetic ========================================================

UniqueWithPad = _simple("UniqueWithPad", unique_with_pad,
                        "(y, idx): the distinct values in first-occurrence order, padded to len(x) with pad_num")


@_export
class UniqueConsecutive(Operator):
    """(output, idx, counts) always: the outputs not asked for are 0-D int64 zeros (measured).
    The constructor checks nothing (2.10's takes return_inverse=1 and dim=1.5 as given)."""

    def __init__(self, return_inverse=False, return_counts=False, dim=None):
        super().__init__()
        self.return_inverse, self.return_counts, self.dim = return_inverse, return_counts, dim

    def __call__(self, input_x):
        outs = DS.unique_consecutive(input_x, True, True, self.dim)
        unasked = F.zeros((), mstype.int64)
        return (outs[0], outs[1] if self.return_inverse else unasked, outs[2] if self.return_counts else unasked)


@_export
class UnravelIndex(Operator):
    """The coordinates of flat `indices` in an array of shape `dims`: [len(dims)] + indices.shape,
    in indices' dtype (int32 or int64, both one dtype)."""

    def __call__(self, indices, dims):
        indices, dims = F.as_tensor(indices), F.as_tensor(dims)
        for name, t in (("dims", dims), ("indices", indices)):   # (2.10 checks dims first)
            if t.dtype not in (mstype.int32, mstype.int64):
                raise TypeError(f"For primitive[UnravelIndex], the input argument[{name}] must be a type of "
                                f"{{Tensor[Int32], Tensor[Int64]}}, but got Tensor[{t.dtype}].")
        if indices.dtype is not dims.dtype:
            raise TypeError(f"For primitive[UnravelIndex], the input type must be same.\nname:[dims]:Tensor"
                            f"[{dims.dtype}].\nname:[indices]:Tensor[{indices.dtype}].")
        if indices.ndim > 1:
            raise ValueError(f"For primitive[UnravelIndex], the indices shape must be equal to 1, but got "
                             f"{indices.ndim}.")
        if dims.ndim != 1:
            raise ValueError(f"For primitive[UnravelIndex], the dims shape must be equal to 1, but got {dims.ndim}.")
        known_dims, known_indices = _known(dims), _known(indices)
        if known_dims is not None and (known_dims <= 0).any():
            raise ValueError("All dimensions must be greater than 0.")
        if known_indices is not None and (known_indices < 0).any():
            raise ValueError("Index must be greater than 0.")   # (2.10's words; 0 is taken)
        if known_dims is not None and known_indices is not None and \
                (known_indices >= math.prod(int(d) for d in known_dims)).any():
            raise ValueError("Index out of boundary.")
        rest, coordinates = indices, []
        for k in reversed(range(dims.shape[0])):   # the last axis varies fastest
            size = F.gather(dims, k, 0)
            coordinates.append(CP.floor_mod(rest, size))
            rest = CP.floor_divide(rest, size)
        return F.stack(coordinates[::-1], 0)


_NTH_DTYPES = (mstype.float16, mstype.float32, mstype.float64, mstype.int16, mstype.int32, mstype.int64,
               mstype.int8, mstype.uint16, mstype.uint8)


@_export
class NthElement(Operator):
    """The n-th smallest (with reverse=True, largest) value along the last axis, counting from
    0: input.shape[:-1]. (2.10's CPU kernel is std::nth_element, whose answer with NaN present
    is arbitrary; here NaN sorts last.)"""

    def __init__(self, reverse=False):
        super().__init__()
        self.reverse = check_bool("NthElement", "reverse", reverse)

    def __call__(self, input, n):  # noqa: A002 - MindSpore's names
        x = F.as_tensor(input)
        if x.dtype not in _NTH_DTYPES:
            raise TypeError("For primitive[NthElement], the input argument[input] must be a type of {Tensor[Float16], "
                            "Tensor[Float32], Tensor[Float64], Tensor[Int16], Tensor[Int32], Tensor[Int64], "
                            f"Tensor[Int8], Tensor[UInt16], Tensor[UInt8]}}, but got Tensor[{x.dtype}].")
        if x.ndim < 1:
            raise ValueError("For primitive[NthElement], the input shape must be greater than or equal to 1, but "
                             "got 0.")
        if isinstance(n, Tensor):
            if n.dtype is not mstype.int32:
                raise TypeError(f"For primitive[NthElement], the input argument[n] must be a type of "
                                f"{{Tensor[Int32]}}, but got Tensor[{n.dtype}].")
            known = _known(n)
            value = None if known is None else int(np.asarray(known).reshape(-1)[0])
        else:
            value = check_int("NthElement", "n", n)
        if value is not None and value < 0:
            raise ValueError(f"For primitive[NthElement], the n_value must be greater than or equal to 0, but got "
                             f"{value}.")
        if value is not None and value >= x.shape[-1]:
            raise ValueError(f"For primitive[NthElement], the n_value must be less than {x.shape[-1]}, but got "
                             f"{value}.")
        ordered = sort(x, -1, self.reverse)[0]
        return F.gather(ordered, value if value is not None else F.reshape(n, ()), x.ndim - 1)


# == sorted segments (eager only: the output length is a value) ==================================

for _name, _reduction, _doc in [("SegmentSum", "add", "the sum"), ("SegmentMean", "mean", "the mean"),
                                ("SegmentMax", "max", "the maximum"), ("SegmentMin", "min", "the minimum"),
                                ("SegmentProd", "mul", "the product")]:
    globals()[_name] = _simple(
        _name, lambda x, segment_ids, _k=_name, _r=_reduction: SG.sorted_segments(_k, _r, x, segment_ids),
        f"{_doc} of x's rows per sorted segment id: segment_ids[-1] + 1 rows, an empty segment "
        f"{'1' if _reduction == 'mul' else '0'} (eager only)")


# == bits and float neighbours ===================================================================

def _two_tensors(name: str, fn):
    def call(x1, x2):
        if not isinstance(x1, Tensor) or not isinstance(x2, Tensor):
            kinds = ", ".join(f"{a}={'Tensor' if isinstance(v, Tensor) else type(v).__name__}"
                              for a, v in (("x1", x1), ("x2", x2)))
            raise TypeError(f'Failed calling {name} with "{name}()({kinds})".\nThe valid calling should be: \n'
                            f'"{name}()(x1=<Tensor>, x2=<Tensor>)".')
        return fn(x1, x2)
    return call


LeftShift = _simple("LeftShift", _two_tensors("LeftShift", BO.bitwise_left_shift),
                    "x1 << x2 of one integer dtype, broadcasting (the count modulo the width)")
RightShift = _simple("RightShift", _two_tensors("RightShift", BO.bitwise_right_shift),
                     "x1 >> x2 of one integer dtype, broadcasting (arithmetic for signed types)")
PopulationCount = _simple("PopulationCount", BO.population_count, "the set bits of each integer, uint8")
NextAfter = _simple("NextAfter", nextafter, "the next float after x1 toward x2 (float32 or float64)")


# == scatters ====================================================================================

@_export
class IndexPut(Operator):
    """x1 with x2 written (added, when accumulate is nonzero) at the positions the tuple or list
    of 1-D index Tensors picks; x1 is left as it is."""

    def __init__(self, accumulate=0):
        super().__init__()
        self.accumulate = check_int("IndexPut", "accumulate", accumulate)

    def __call__(self, x1, x2, indices):
        return MS.index_put(x1, indices, x2, self.accumulate != 0)


@_export
class MaskedScatter(Operator):
    """input with the positions where the bool mask (broadcast) holds filled in order from
    updates, of input's dtype."""

    def __call__(self, input, mask, updates):  # noqa: A002
        input, mask, updates = F.as_tensor(input), F.as_tensor(mask), F.as_tensor(updates)
        if mask.dtype is not mstype.bool_ or updates.dtype is not input.dtype:
            raise TypeError(f"Select CPU operator[MaskedScatter] fail! Unsupported data type! The inputs must be "
                            f"(T, Bool, T), but got ({input.dtype}, {mask.dtype}, {updates.dtype}).")
        return MS.masked_scatter(input, mask, updates)


_FILL_DIAGONAL_DTYPES = (mstype.float16, mstype.float32, mstype.float64, mstype.int16, mstype.int32, mstype.int64,
                         mstype.int8, mstype.uint8)


@_export
class FillDiagonal(Operator):
    """input_x with its main diagonal set to fill_value (a float; numpy's fill_diagonal, `wrap`
    restarting below a tall matrix's square part after one skipped row)."""

    def __init__(self, fill_value, wrap=False):
        super().__init__()
        if not isinstance(fill_value, float):
            raise TypeError(f"For 'FillDiagonal', the type of 'fill_value' should be 'float', but got type "
                            f"'{type(fill_value).__name__}'.")
        self.fill_value, self.wrap = fill_value, check_bool("FillDiagonal", "wrap", wrap)

    def __call__(self, input_x):
        x = F.as_tensor(input_x)
        if x.dtype not in _FILL_DIAGONAL_DTYPES:
            raise TypeError("For primitive[FillDiagonal], the input argument[input_x] must be a type of "
                            "{Tensor[Float16], Tensor[Float32], Tensor[Float64], Tensor[Int16], Tensor[Int32], "
                            f"Tensor[Int64], Tensor[Int8], Tensor[UInt8]}}, but got Tensor[{x.dtype}].")
        if x.ndim < 2:
            raise ValueError(f"The primitive[FillDiagonal] argument [input_x] must be a Tensor whose dimension is "
                             f"greater than or equal to 2, but got its dimension [{x.ndim}].")
        if x.ndim > 2 and len(set(x.shape)) > 1:
            raise ValueError("The primitive[FillDiagonal] argument [input_x] must be a Tensor with the same size in "
                             "all dimensions when its dimension is greater than 2")
        value = self.fill_value
        if x.dtype.is_integer:   # truncated, then wrapped into the dtype (measured: 300.0 in uint8 is 44)
            value = np.array(int(value)).astype(x.dtype.np_dtype)
        return x.fill_diagonal(Tensor(np.asarray(value, x.dtype.np_dtype)), self.wrap)

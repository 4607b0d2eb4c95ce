"""Array ops MindSpore 2.10 took over from TensorFlow, composed of graphcell's indexing,
gathers, pads, reshapes and transposes (so every backend, vmap and grad follow):
`strided_slice` (begin/end/strides with the five masks), `mirror_pad`, `space_to_batch_nd`,
`batch_to_space_nd` and `reverse_sequence`. Arguments, defaults, errors and values are
MindSpore 2.10's (measured on its CPU build), with two kernel faults not copied:

- strided_slice: 2.10 infers TensorFlow's shapes, but its CPU kernel fills them wrongly with
  new_axis_mask (x[None, 0:2, 0:3] held x[0:2, 0:2, 0:3] and zeros), with an ellipsis that
  stands for several axes or comes first (x[..., 1:3] held other elements), and with a begin
  past the end under a negative stride (it read outside the input). graphcell gives the
  elements of the shape 2.10 infers: numpy's x[index] for the index the masks spell.
- space_to_batch_nd / batch_to_space_nd: the spatial axes are the *last* len(block) axes (as
  2.10 computes: [N, C, H, W] with a block of 2 axes blocks H and W), not TensorFlow's axes
  1..M; the axes between the batch and them stay as they are.
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from . import functional as F
from .sorting import cumsum

__all__ = ["strided_slice", "mirror_pad", "space_to_batch_nd", "batch_to_space_nd", "reverse_sequence"]


def _int(value, what: str) -> int:
    if isinstance(value, Tensor) and value.ndim == 0 and value.dtype.is_integer:
        return int(value)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{what} must hold ints, got {value!r} ({type(value).__name__})")
    return int(value)


# -- strided_slice -----------------------------------------------------------------------------

def _spec_index(x: Tensor, begin, end, strides, masks: dict) -> tuple:
    """The numpy index that begin/end/strides and the masks spell (TensorFlow's rules)."""
    n = len(begin)
    bits = {name: [bool(mask >> i & 1) for i in range(n)] for name, mask in masks.items()}
    ellipsis = [i for i in range(n) if bits["ellipsis_mask"][i]]
    new_axis = [bits["new_axis_mask"][i] and i not in ellipsis for i in range(n)]
    # an ellipsis stands for the axes no other entry takes
    covered = x.ndim - sum(1 for i in range(n) if i not in ellipsis and not new_axis[i])
    index, axis = [], 0
    for i in range(n):
        if i in ellipsis:
            index.append(Ellipsis)
            axis += covered
        elif new_axis[i]:
            index.append(None)
        elif bits["shrink_axis_mask"][i]:
            dim = x.shape[axis] if axis < x.ndim else 0
            if strides[i] < 0 or not -dim <= begin[i] < dim:
                raise IndexError(f"For 'StridedSlice', the 'strides[{i}]' cannot be negative number and "
                                 f"'begin[{i}]' must be in [-{dim}, {dim}) when 'shrink_axis_mask' is greater "
                                 f"than 0, but got 'strides[{i}]': {strides[i]}, 'begin[{i}]': {begin[i]}.")
            index.append(begin[i])
            axis += 1
        else:
            index.append(slice(None if bits["begin_mask"][i] else begin[i],
                               None if bits["end_mask"][i] else end[i], strides[i]))
            axis += 1
    return tuple(index)


def strided_slice(input_x, begin, end, strides, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                  shrink_axis_mask=0):
    """input_x[begin[i]:end[i]:strides[i], ...] (TensorFlow's StridedSlice). Bit i of a mask
    changes entry i: begin_mask / end_mask ignore begin[i] / end[i] (the slice runs from the
    start / to the end), ellipsis_mask makes it `...` (at most one), new_axis_mask a new axis
    of size 1, shrink_axis_mask the single index begin[i] (its axis dropped). Bounds past the
    ends are clamped, negative ones count from the end, as in Python."""
    x = F.as_tensor(input_x)
    begin, end, strides = (tuple(_int(v, f"For 'StridedSlice', '{name}'") for v in values)
                           for name, values in (("begin", begin), ("end", end), ("strides", strides)))
    if not len(begin) == len(end) == len(strides):
        raise ValueError(f"For 'StridedSlice', 'begin', 'end' and 'strides' must have the same length, but got "
                         f"length of 'begin': {len(begin)}, 'end': {len(end)}, 'strides': {len(strides)}.")
    if len(begin) > x.ndim:
        raise ValueError(f"For 'StridedSlice', the length of 'begin', 'stride' and 'end' should be equal and less "
                         f"than or equal to the dimension of 'input_x', but got the length of 'begin': {len(begin)}, "
                         f"the dimension of 'input_x': {x.ndim}")
    if 0 in strides:
        raise ValueError("For 'StridedSlice', input 'strides' can not contain 0.")
    masks = {"begin_mask": begin_mask, "end_mask": end_mask, "ellipsis_mask": ellipsis_mask,
             "new_axis_mask": new_axis_mask, "shrink_axis_mask": shrink_axis_mask}
    for name, mask in masks.items():
        if isinstance(mask, bool) or not isinstance(mask, numbers.Integral):
            raise TypeError(f"For 'StridedSlice', the type of '{name}' must be int, but got {type(mask).__name__}.")
        if mask < 0:
            raise ValueError(f"For 'StridedSlice',{name} mask must be greater equal 0, but got {mask}")
    if bin(ellipsis_mask & ((1 << len(begin)) - 1)).count("1") > 1:
        raise ValueError(f"For 'StridedSlice' only support one ellipsis in the index, but got {ellipsis_mask}")
    return F.getitem(x, _spec_index(x, begin, end, strides, masks))


# -- mirror_pad --------------------------------------------------------------------------------

def _pairs(paddings, name: str, op: str, what: str) -> list:
    """(before, after) int pairs from a [n, 2] Tensor, array, list or tuple."""
    if isinstance(paddings, Tensor):
        if not paddings.dtype.is_integer:
            raise TypeError(f"For primitive[{op}], the input argument[{name}] must be a type of "
                            f"{{Tensor[Int32], Tensor[Int64]}}, but got Tensor[{paddings.dtype}].")
        paddings = paddings._host(f"ops.{what}'s {name}")
    array = np.asarray(paddings)
    if array.size == 0:
        array = array.reshape(0, 2)
    if array.ndim != 2 or array.shape[1] != 2 or array.dtype.kind not in "iu":
        raise ValueError(f"For '{op}', '{name}' must be int pairs of shape [n, 2], got {paddings!r}")
    return [(int(lo), int(hi)) for lo, hi in array]


def mirror_pad(input_x, paddings, mode):
    """input_x padded by its own mirror image: paddings[i] = (before, after) on axis i (an int
    [rank, 2] Tensor, as MindSpore takes it, or a nested list/tuple). 'REFLECT' mirrors about
    the edge element (at most size - 1 each side), 'SYMMETRIC' repeats it (at most size)."""
    x = F.as_tensor(input_x)
    if mode not in ("REFLECT", "SYMMETRIC"):
        raise ValueError(f"For 'MirrorPad', the 'mode' must be str and must be in '['REFLECT', 'SYMMETRIC']', "
                         f"but got '{mode}'.")
    pairs = _pairs(paddings, "paddings", "MirrorPad", "mirror_pad")
    if len(pairs) != x.ndim:
        raise ValueError(f"For 'MirrorPad', paddings.shape[0] must equal to input's rank, but got {len(pairs)}")
    if any(v < 0 for pair in pairs for v in pair):
        raise ValueError("For 'MirrorPad', all elements of paddings must be >= 0.")
    for axis, (lo, hi) in enumerate(pairs):
        if lo == hi == 0:
            continue
        n = x.shape[axis]
        if max(lo, hi) > n or (mode == "REFLECT" and max(lo, hi) == n):
            raise ValueError(f"For 'MirrorPad', paddings must be no greater than the dimension size: got ({lo}, {hi}) "
                             f"for axis {axis} of size {n} ({mode} takes at most "
                             f"{n - 1 if mode == 'REFLECT' else n} each side)")
        source = np.pad(np.arange(n, dtype=np.int32), (lo, hi), mode=mode.lower())   # positions to gather
        x = F.take_in_range(x, Tensor(source), axis)
    return x


# -- space_to_batch_nd / batch_to_space_nd -----------------------------------------------------

_BLOCKABLE = "Float16, Float32, Float64, Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64"


def _blocks(x: Tensor, block, pairs: list, op: str, block_name: str, pair_name: str) -> list:
    if x.dtype is mstype.bool_ or x.dtype is mstype.bfloat16:
        raise TypeError(f"For primitive[{op}], the input argument[input type] must be a type of "
                        f"{{{', '.join(f'Tensor[{t}]' for t in _BLOCKABLE.split(', '))}}}, but got Tensor[{x.dtype}].")
    block = [block] * len(pairs) if isinstance(block, numbers.Integral) else list(block)
    block = [_int(b, f"For '{op}', '{block_name}'") for b in block]
    for b in block:
        if b < 1:
            raise ValueError(f"For '{op}', the block_shape element should be >= min value: 1, but got {b}.")
    if len(pairs) != len(block):
        raise ValueError(f"For '{op}', the {pair_name} shape should be = default value: ({len(block)}, 2), but got "
                         f"({len(pairs)}, 2).")
    for v in (v for pair in pairs for v in pair):
        if v < 0:
            raise ValueError(f"For '{op}', the '{pair_name} element' must be int and must >= 0, but got '{v}' with "
                             "type 'int'.")
    if x.ndim < len(block) + 1:
        raise ValueError(f"For '{op}', the input must have rank at least {len(block) + 1} (a batch axis and "
                         f"{len(block)} spatial axes), got shape {list(x.shape)}")
    return block


def space_to_batch_nd(input_x, block_size, paddings):
    """Zero-pads the last M = len(block_size) axes by `paddings` ([M, 2]), cuts them into
    blocks of block_size, and moves each position within a block into the batch:
    [N, ..., P1, ..., PM] -> [N * prod(block), ..., P1 / b1, ..., PM / bM], the batch index
    (position within the block, row-major) * N + n. An int block_size is used for every axis."""
    x = F.as_tensor(input_x)
    pairs = _pairs(paddings, "paddings", "SpaceToBatchND", "space_to_batch_nd")
    block = _blocks(x, block_size, pairs, "SpaceToBatchND", "block_size", "paddings")
    m, lead = len(block), x.ndim - len(block)
    x = F.pad(x, [(0, 0)] * lead + pairs)
    outer = []
    for size, b in zip(x.shape[lead:], block):
        if size % b:
            raise RuntimeError(f"For 'SpaceToBatchND', padded shape should be divisible by block_size, but got "
                               f"padded shape: {size}, block_size: {b}")
        outer.append(size // b)
    split = [d for pair in zip(outer, block) for d in pair]
    x = F.reshape(x, x.shape[:lead] + tuple(split))                # [N, mid..., P1/b1, b1, ...]
    block_axes = [lead + 2 * i + 1 for i in range(m)]
    outer_axes = [lead + 2 * i for i in range(m)]
    x = F.transpose(x, block_axes + list(range(lead)) + outer_axes)  # [b1.., N, mid..., P1/b1..]
    return F.reshape(x, (-1,) + x.shape[m + 1:])


def batch_to_space_nd(input_x, block_shape, crops):
    """space_to_batch_nd's inverse: [N * prod(block), ..., S1, ..., SM] -> [N, ..., S1 * b1 -
    crops, ...], each block's positions taken from the batch and the result cropped by `crops`
    ([M, 2]) on the last M axes. An int block_shape is used for every axis."""
    x = F.as_tensor(input_x)
    pairs = _pairs(crops, "crops", "BatchToSpaceND", "batch_to_space_nd")
    block = _blocks(x, block_shape, pairs, "BatchToSpaceND", "block_shape", "crops")
    m, lead = len(block), x.ndim - len(block)
    prod = int(np.prod(block))
    if x.shape[0] % prod:
        raise ValueError(f"For 'BatchToSpaceND', the first dim of 'input_x' must be divisible by 'block_shape_prod'. "
                         f"But got first dim of 'input_x': {x.shape[0]}, 'block_shape_prod' as the product of block "
                         f"shapes with value: {prod}, and block shapes being: {block}.")
    for size, b, (lo, hi) in zip(x.shape[lead:], block, pairs):
        if lo + hi >= size * b:
            raise ValueError(f"For 'BatchToSpaceND', crops {(lo, hi)} leave nothing of a spatial axis of "
                             f"{size} * {b} = {size * b} elements")
    x = F.reshape(x, tuple(block) + (x.shape[0] // prod,) + x.shape[1:])    # [b1.., N, mid..., S1..]
    perm = [m] + list(range(m + 1, m + lead)) + [a for i in range(m) for a in (m + lead + i, i)]
    x = F.transpose(x, perm)                                                # [N, mid..., S1, b1, ...]
    x = F.reshape(x, x.shape[:lead] + tuple(x.shape[lead + 2 * i] * b for i, b in enumerate(block)))
    for i, (lo, hi) in enumerate(pairs):
        x = F.slice_axis(x, lead + i, lo, x.shape[lead + i] - hi)
    return x


# -- reverse_sequence --------------------------------------------------------------------------

def reverse_sequence(x, seq_lengths, seq_dim, batch_dim=0):
    """For each index b along `batch_dim`, the first seq_lengths[b] elements along `seq_dim`
    reversed, the rest left in place (a length of 0 or 1 changes nothing). seq_lengths: an
    int32 or int64 1-D Tensor with one length per batch index; lengths beyond the axis are an
    error when known (eagerly)."""
    x = F.as_tensor(x)
    if not isinstance(seq_lengths, Tensor):
        raise TypeError(f"For Primitive[ReverseSequence], the type of input argument[seq_lengths] must be Tensor "
                        f"but got {type(seq_lengths).__name__}.")
    if seq_lengths.dtype not in (mstype.int32, mstype.int64):
        raise TypeError("For primitive[ReverseSequence], the input argument[seq_lengths] must be a type of "
                        f"{{Tensor[Int32], Tensor[Int64]}}, but got Tensor[{seq_lengths.dtype}].")
    for name, axis in (("seq_dim", seq_dim), ("batch_dim", batch_dim)):
        if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
            raise TypeError(f"For 'ReverseSequence', the type of '{name}' must be int, but got {type(axis).__name__}.")
        if not 0 <= axis < x.ndim:
            raise ValueError(f"For 'ReverseSequence', the '{name}' must be in range of [0, {x.ndim}), but got {axis} "
                             "with type 'int'.")
    if batch_dim == seq_dim:
        raise ValueError(f"For 'ReverseSequence', the 'batch_dim' should be != seq_dim: {seq_dim}, but got "
                         f"{batch_dim}.")
    if seq_lengths.ndim != 1:
        raise ValueError(f"For 'ReverseSequence', the 'seq_lengths' rank should be = expected: 1 , but got "
                         f"{seq_lengths.ndim}.")
    if seq_lengths.shape[0] != x.shape[batch_dim]:
        raise ValueError(f"For 'ReverseSequence', the 'seq_lengths' vector size should be = input size along "
                         f"batch_dim: {x.shape[batch_dim]}, but got {seq_lengths.shape[0]}.")
    length = x.shape[seq_dim]
    if not seq_lengths.is_symbolic:
        values = seq_lengths._host("ops.reverse_sequence")
        bad = np.flatnonzero((values < 0) | (values > length))
        if bad.size:
            raise RuntimeError(f"Invalid seq_lengths[{bad[0]}]: {values[bad[0]]} (the lengths must be in "
                               f"[0, {length}])")
    # each element's position along seq_dim, counted at run time (the axis may be an export's batch)
    position = F.sub(cumsum(F.ones_like(x, seq_lengths.dtype), seq_dim), 1)
    shape = [1] * x.ndim
    shape[batch_dim] = x.shape[batch_dim]
    lengths = F.reshape(seq_lengths, shape)
    source = F.select(F.less(position, lengths), F.sub(F.sub(lengths, 1), position), position)
    return F.gather_elements(x, seq_dim, source)

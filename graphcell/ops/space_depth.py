"""MindSpore 2.10's layout operator classes: `ops.SpaceToDepth`, `DepthToSpace`, `SpaceToBatch`,
`BatchToSpace`, `SpaceToBatchND`, `BatchToSpaceND` and `ReverseSequence`.

Each is reshapes and a transpose (or the functional forms in layout_ops.py), so jit, vmap, grad
and ONNX follow. Constructor checks, call errors and values are 2.10's, measured on its CPU
build:

- SpaceToDepth moves each b x b block of [N, C, H, W] into the channels, channel
  (row_in_block * b + column_in_block) * C + c (TensorFlow's order); DepthToSpace undoes it.
- SpaceToBatch and BatchToSpace are SpaceToBatchND and BatchToSpaceND with one block size for
  H and W of a 4-D input. 2.10's CPU build has no kernel for them ("Unsupported op"), so their
  values are the ND forms', which 2.10 documents them as.
"""
from __future__ import annotations

import numbers

import numpy as np

from . import functional as F
from .layout_ops import batch_to_space_nd, reverse_sequence, space_to_batch_nd
from .op_base import Operator, check_int, is_int


def _block_size(op: str, value, at_least: str) -> int:
    """An int block size >= 2, with 2.10's message (`at_least` is its text before the 2)."""
    check_int(op, "block_size", value)
    if value < 2:
        raise ValueError(f"{at_least}: 2, but got {value}.")
    return int(value)


def _int_pairs(op: str, name: str, value, count: int, shape_message: str) -> None:
    """`value` must be `count` (before, after) pairs of ints >= 0."""
    array = np.asarray(value, dtype=object)
    if array.ndim != 2 or array.shape[1] != 2 or array.shape[0] != count:
        raise ValueError(shape_message.format(shape=tuple(array.shape)))
    for element in array.reshape(-1):
        if not is_int(element):
            raise TypeError(f"For '{op}', the '{name} element' must be int, but got '{type(element).__name__}'")
        if element < 0:
            raise ValueError(f"For '{op}', the '{name} element' must be int and must >= 0, but got '{element}' with "
                             "type 'int'.")


def _rank4(op: str, x):
    x = F.as_tensor(x)
    if x.ndim != 4:
        raise ValueError(f"For primitive[{op}], the x rank must be equal to 4, but got {x.ndim}.")
    return x


class SpaceToDepth(Operator):
    """[N, C, H, W] -> [N, C * b * b, H / b, W / b]: each b x b block of a plane becomes b * b
    channels."""

    def __init__(self, block_size):
        super().__init__(block_size=_block_size("SpaceToDepth", block_size,
                                                "The 'block_size' should be >= SpaceToDepth"), data_format="NCHW")

    def __call__(self, x):
        x, b = _rank4("SpaceToDepth", x), self.block_size
        n, c, h, w = x.shape
        for axis in (2, 3):
            if x.shape[axis] % b:
                raise ValueError(f"For primitive[SpaceToDepth], the x_shape[{axis}] % block_size must be equal to 0, "
                                 f"but got {x.shape[axis] % b}.")
        x = F.reshape(x, (n, c, h // b, b, w // b, b))
        x = F.transpose(x, (0, 3, 5, 1, 2, 4))                        # [N, b, b, C, H/b, W/b]
        return F.reshape(x, (n, c * b * b, h // b, w // b))


class DepthToSpace(Operator):
    """SpaceToDepth's inverse: [N, C * b * b, H, W] -> [N, C, H * b, W * b]."""

    def __init__(self, block_size):
        super().__init__(block_size=_block_size("DepthToSpace", block_size,
                                                "For 'DepthToSpace', the 'block_size' should be >= "),
                         data_format="NCHW")

    def __call__(self, x):
        x, b = _rank4("DepthToSpace", x), self.block_size
        n, c, h, w = x.shape
        if c % (b * b):
            raise ValueError(f"For DepthToSpace, the square of block_size must be smaller than the input channel, but "
                             f"got the block_size is {b}, and the input channel is {c}.")
        x = F.reshape(x, (n, b, b, c // (b * b), h, w))
        x = F.transpose(x, (0, 3, 4, 1, 5, 2))                        # [N, C', H, b, W, b]
        return F.reshape(x, (n, c // (b * b), h * b, w * b))


class SpaceToBatch(Operator):
    """SpaceToBatchND with the block (block_size, block_size) over H and W of a 4-D input."""

    def __init__(self, block_size, paddings):
        b = _block_size("SpaceToBatch", block_size, "For 'SpaceToBatch', the 'block_size' should be >= SpaceToBatch")
        _int_pairs("SpaceToBatch", "paddings", paddings, 2,
                   "For 'SpaceToBatch', the paddings shape should be = SpaceToBatch: (2, 2), but got {shape}.")
        super().__init__(block_size=b, paddings=paddings)

    def __call__(self, input_x):
        x, b = _rank4("SpaceToBatch", input_x), self.block_size
        for axis, (lo, hi) in zip((2, 3), self.paddings):
            if (x.shape[axis] + lo + hi) % b:
                raise ValueError(f"For SpaceToBatch, the x_shape[{axis}] plus paddings must be divisible by "
                                 f"'block_size', but got padded value: {x.shape[axis] + lo + hi}, and block_size: {b}")
        return space_to_batch_nd(x, (b, b), self.paddings)


class BatchToSpace(Operator):
    """BatchToSpaceND with the block (block_size, block_size) over H and W of a 4-D input."""

    def __init__(self, block_size, crops):
        b = _block_size("BatchToSpace", block_size, "For 'BatchToSpace', the 'block_size' should be >= ")
        _int_pairs("BatchToSpace", "crops", crops, 2,
                   "The crops shape should be = BatchToSpace: (2, 2), but got {shape}.")
        super().__init__(block_size=b, crops=crops)

    def __call__(self, input_x):
        x, b = _rank4("BatchToSpace", input_x), self.block_size
        if x.shape[0] % (b * b):
            out = [x.shape[0], x.shape[1]] + [x.shape[a] * b - lo - hi for a, (lo, hi) in zip((2, 3), self.crops)]
            raise ValueError(f"For 'BatchToSpace', the shape of output with index 0 must be divided exactly by square "
                             f"of 'block_size': {b}, but got the shape of output: [const vector]"
                             f"{{{', '.join(map(str, out))}}} and square of 'block_size': {b * b}.")
        return batch_to_space_nd(x, (b, b), self.crops)


def _block_shape(op: str, value, count: int, below_one: str):
    """An int (one size for each of `count` axes, kept as a tuple) or a tuple/list of ints >= 1."""
    sizes = [value] * count if isinstance(value, numbers.Integral) and not isinstance(value, bool) else list(value)
    for size in sizes:
        if not is_int(size):
            raise TypeError(f"For '{op}', the type of 'block_shape element' should be 'int', but got type "
                            f"'{type(size).__name__}'.")
        if size < 1:
            raise ValueError(f"{below_one}: 1, but got {size}.")
    return tuple(sizes) if isinstance(value, numbers.Integral) else value


class SpaceToBatchND(Operator):
    """ops.space_to_batch_nd with its block and paddings fixed at construction."""

    def __init__(self, block_shape, paddings):
        count = len(np.asarray(paddings, dtype=object))
        block = _block_shape("SpaceToBatchND", block_shape, count,
                             "For 'SpaceToBatchND', the block_shape element should be >= min value")
        _int_pairs("SpaceToBatchND", "paddings", paddings, len(block),
                   f"For 'SpaceToBatchND', the paddings shape should be = default value: ({len(block)}, 2), but got "
                   "{shape}.")
        super().__init__(block_shape=block, paddings=paddings)

    def __call__(self, input_x):
        return space_to_batch_nd(input_x, tuple(self.block_shape), self.paddings)


class BatchToSpaceND(Operator):
    """ops.batch_to_space_nd with its block and crops fixed at construction (2.10's repr shows
    only the block)."""

    def __init__(self, block_shape, crops):
        count = len(np.asarray(crops, dtype=object))
        block = _block_shape("BatchToSpaceND", block_shape, count,
                             "For 'BatchToSpaceND', the block_shape element should be >= ")
        _int_pairs("BatchToSpaceND", "crops", crops, len(block),
                   f"For 'BatchToSpaceND', the crops shape should be = : ({len(block)}, 2), but got {{shape}}.")
        super().__init__(block_shape=block)
        object.__setattr__(self, "crops", crops)

    def configuration_key(self):
        return {**self.attrs, "crops": self.crops}

    def __call__(self, input_x):
        return batch_to_space_nd(input_x, tuple(self.block_shape), self.crops)


class ReverseSequence(Operator):
    """ops.reverse_sequence with its axes fixed at construction; called with (x, seq_lengths)."""

    def __init__(self, seq_dim, batch_dim=0):
        super().__init__(seq_dim=check_int("ReverseSequence", "seq_dim", seq_dim),
                         batch_dim=check_int("ReverseSequence", "batch_dim", batch_dim))

    def __call__(self, x, seq_lengths):
        return reverse_sequence(x, seq_lengths, self.seq_dim, self.batch_dim)

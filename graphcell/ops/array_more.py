"""Small array and arithmetic ops with MindSpore 2.10's names, composed of existing ops
(values, dtypes and return types measured on MindSpore 2.10, CPU): `reverse`, `msort`,
`numel`, `size`, `rank`, `shape` (Python ints, as MindSpore returns), `ravel`, `row_stack`,
`dsplit`, `slice`, `top_k`, `sequence_mask`, `truncate_div`, `truncate_mod` and `xdivy`.
"""
from __future__ import annotations

import numbers

from . import functional as F
from .array_ops import tensor_split, vstack
from .composite import flip, fmod
from .sorting import sort, topk

__all__ = ["reverse", "msort", "numel", "size", "rank", "shape", "ravel", "row_stack", "dsplit", "slice",
           "top_k", "sequence_mask", "truncate_div", "truncate_mod", "xdivy"]


def reverse(x, axis):
    """x with the order of the elements along each axis in `axis` (a list or tuple) reversed."""
    return flip(x, tuple(axis))


def msort(input):  # noqa: A002 - MindSpore's names
    """input sorted along its first axis, ascending."""
    return sort(input, axis=0)[0]


def numel(input):  # noqa: A002
    """The number of elements, a Python int."""
    return F.as_tensor(input).size


def size(input_x):
    """The number of elements, a Python int."""
    return F.as_tensor(input_x).size


def rank(input_x):
    """The number of dimensions, a Python int."""
    return F.as_tensor(input_x).ndim


def shape(input_x):
    """The shape, a tuple of Python ints."""
    return tuple(F.as_tensor(input_x).shape)


def ravel(input):  # noqa: A002
    """input flattened to 1-D."""
    return F.reshape(input, (-1,))


def row_stack(tensors):
    """MindSpore's ops.row_stack: ops.vstack."""
    return vstack(tensors)


def dsplit(input, indices_or_sections):  # noqa: A002
    """tensor_split along the third axis."""
    x = F.as_tensor(input)
    if x.ndim < 3:
        raise ValueError(f"For dsplit, the input must have at least 3 dimensions, got {x.ndim}")
    return tensor_split(x, indices_or_sections, axis=2)


def slice(input_x, begin, size):  # noqa: A001 - MindSpore's name
    """input_x[begin[i] : begin[i] + size[i]] on each axis i; a size of -1 takes the rest."""
    x = F.as_tensor(input_x)
    begin, size = tuple(int(b) for b in begin), tuple(int(s) for s in size)
    if len(begin) != x.ndim or len(size) != x.ndim:
        raise ValueError(f"For 'Slice', begin and size must have the input's rank {x.ndim}, got {begin} and {size}")
    for axis, (b, s) in enumerate(zip(begin, size)):
        stop = x.shape[axis] if s == -1 else b + s
        if not (0 <= b <= stop <= x.shape[axis]):
            raise ValueError(f"For 'Slice', the slice [{b}, {stop}) is outside axis {axis} of size {x.shape[axis]}")
        x = F.slice_axis(x, axis, b, stop)
    return x


def top_k(input_x, k, sorted=True):  # noqa: A002
    """The k largest along the last axis and their int32 indices; `sorted=False` gives them in
    the input's order (measured)."""
    values, indices = topk(input_x, k, dim=-1, largest=True, sorted=True)
    if sorted:
        return values, indices
    ordered, perm = sort(indices, axis=-1)
    return F.gather_elements(values, -1, perm), ordered


def sequence_mask(lengths, maxlen=None):
    """mask[..., j] = j < lengths[...]: bool, of shape lengths.shape + (maxlen,); maxlen
    defaults to lengths' largest value (read eagerly)."""
    lengths = F.as_tensor(lengths)
    if not lengths.dtype.is_integer:
        raise TypeError(f"For 'sequence_mask', lengths must be an integer Tensor, got {lengths.dtype}")
    if maxlen is None:
        maxlen = int(lengths._host("ops.sequence_mask with maxlen=None").max())
    if not isinstance(maxlen, numbers.Integral) or maxlen <= 0:
        raise ValueError(f"For 'sequence_mask', maxlen must be a positive int, got {maxlen!r}")
    steps = F.arange(0, int(maxlen), dtype=lengths.dtype)
    return F.less(steps, F.expand_dims(lengths, -1))


def truncate_div(x, y):
    """x / y rounded toward zero (integers stay integers)."""
    return F.div(x, y, rounding_mode="trunc")


def truncate_mod(x, y):
    """The remainder of truncate_div: C's fmod, with x's sign."""
    return fmod(x, y)


def xdivy(x, y):
    """x / y, and 0 where x is 0 (floats only, as MindSpore)."""
    x, y = F._pair(x, y)
    if not x.dtype.is_floating:
        raise TypeError(f"For primitive[Xdivy], the input argument[x] must be a float Tensor, got Tensor[{x.dtype}]")
    return F.select(F.equal(x, 0), F.zeros_like(x), F.div(x, y))


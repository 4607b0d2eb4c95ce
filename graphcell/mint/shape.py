"""mint's shape and layout functions: torch's names (`dim`, `dims`, `dim0`/`dim1`) over
graphcell.ops'. Every result is a new Tensor (graphcell has no views)."""
from __future__ import annotations

from .. import ops
from ..ops import functional as F

from ..ops import broadcast_to, dstack, flip, hstack, ravel, roll, tile, tril, triu, unbind  # noqa: F401


def cat(tensors, dim=0):
    return ops.cat(tensors, dim)


def concat(tensors, dim=0):
    return ops.cat(tensors, dim)


def stack(tensors, dim=0):
    return ops.stack(tensors, dim)


def chunk(input, chunks, dim=0):  # noqa: A002 - mint's names
    """At most `chunks` pieces along dim, a tuple."""
    return tuple(ops.chunk(input, chunks, dim))


def split(tensor, split_size_or_sections, dim=0):
    """Pieces of split_size_or_sections each (an int: the last one shorter), or of the given
    lengths (a list), along dim: a tuple."""
    return tuple(ops.split(tensor, split_size_or_sections, dim))


def clone(input):  # noqa: A002
    """A new Tensor of input's value (in-place methods on either leave the other as it is)."""
    return F.as_tensor(input).clone()


def flatten(input, start_dim=0, end_dim=-1):  # noqa: A002
    """dims start_dim..end_dim merged into one; a 0-d input becomes 1-D."""
    x = F.as_tensor(input)
    if x.ndim == 0:
        return F.reshape(x, (1,))
    return ops.flatten(x, start_dim=start_dim, end_dim=end_dim)


def meshgrid(*tensors, indexing=None):
    """Coordinate grids; indexing None is torch's default, 'ij' (measured: two 1-D inputs of 2
    and 3 give grids of shape (2, 3))."""
    return tuple(ops.meshgrid(*tensors, indexing="ij" if indexing is None else indexing))


def narrow(input, dim, start, length):  # noqa: A002
    return ops.narrow(input, dim, start, length)


def permute(input, dims):  # noqa: A002
    return ops.permute(input, tuple(dims))


def repeat_interleave(input, repeats, dim=None, *, output_size=None):  # noqa: A002
    """Each element repeated `repeats` times along dim (of the flattened input for None);
    output_size, a hint for the length in torch, is checked when given."""
    out = ops.repeat_interleave(input, repeats, dim)
    if output_size is not None and out.shape[0 if dim is None else dim] != output_size:
        raise ValueError(f"For 'repeat_interleave', output_size {output_size} is not the repeated length "
                         f"{out.shape[0 if dim is None else dim]}")
    return out


def reshape(input, shape):  # noqa: A002
    return ops.reshape(input, tuple(shape))


def select(input, dim, index):  # noqa: A002
    """input's slice at `index` along dim, that dim removed."""
    x = F.as_tensor(input)
    dim = dim % x.ndim
    return ops.squeeze(ops.narrow(x, dim, index % x.shape[dim], 1), dim)


def squeeze(input, dim=None):  # noqa: A002
    """dim (an int or a tuple) removed where it is 1 and kept otherwise; every 1 for None."""
    return ops.squeeze(input, dim)


def swapaxes(input, axis0, axis1):  # noqa: A002
    return ops.swapaxes(input, axis0, axis1)


def transpose(input, dim0, dim1):  # noqa: A002
    """dim0 and dim1 swapped."""
    return ops.swapaxes(input, dim0, dim1)


def t(input):  # noqa: A002
    """A 2-D input transposed; 0-D and 1-D ones as they are."""
    return ops.t(input)


def unsqueeze(input, dim):  # noqa: A002
    return ops.unsqueeze(input, dim)


def item(input):  # noqa: A002
    """The one element of input as a Python number."""
    return F.as_tensor(input).item()


def flatten_ext(input, start_dim=0, end_dim=-1):  # noqa: A002
    """flatten's other name in mint."""
    return flatten(input, start_dim, end_dim)

"""mint's gathers, scatters, searches and sorts: torch's argument names, int64 indices
everywhere (graphcell.ops' sort/topk/argsort give MindSpore's int32), and torch's sorted
`unique`."""
from __future__ import annotations

import numpy as np

from .. import dtype as mstype
from .. import ops
from ..ops import functional as F
from ..ops.dynamic_shape import _host, _picked
from ..tensor import Tensor

from ..ops import masked_select, nonzero, searchsorted, take, unique_consecutive  # noqa: F401


def _int64(t):
    return F.cast(t, mstype.int64)


def gather(input, dim, index):  # noqa: A002 - mint's names
    """out[i][j] = input[index[i][j]][j] for dim 0 (torch.gather)."""
    return ops.gather_elements(input, dim, index)


def index_select(input, dim, index):  # noqa: A002
    return ops.index_select(input, dim, index)


def index_add(input, dim, index, source, *, alpha=1):  # noqa: A002
    """A copy of input with alpha * source's slices added at `index` along dim (repeats add up)."""
    x = F.as_tensor(input)
    src = F.as_tensor(source) if alpha == 1 else F.mul(source, alpha)
    # ops.index_add is MindSpore's in-place IndexAdd: it writes the Tensor it is given
    return ops.index_add(x.clone(), F.cast(index, mstype.int32), F.cast(src, x.dtype), dim % x.ndim)


def scatter(input, dim, index, src):  # noqa: A002
    """A copy of input with src's elements (or the number src) written at `index` along dim."""
    x = F.as_tensor(input)
    if not isinstance(src, Tensor):
        src = F.full(F.as_tensor(index).shape, src, x.dtype)
    return ops.scatter(x, dim, index, src)


def scatter_add(input, dim, index, src):  # noqa: A002
    """A copy of input with src's elements added at `index` along dim (repeats add up)."""
    return ops.tensor_scatter_elements(input, index, src, dim, "add")


def where(condition, input=None, other=None):  # noqa: A002
    """where(condition, input, other) selects; where(condition) is nonzero(condition, as_tuple=True)."""
    if input is None and other is None:
        return ops.nonzero(condition, as_tuple=True)
    return ops.where(condition, input, other)


def sort(input, *, dim=-1, descending=False, stable=False):  # noqa: A002
    """(values, int64 indices), a tuple; always stable (equal values keep their order)."""
    values, indices = ops.sort(input, dim, descending)
    return values, _int64(indices)


def argsort(input, dim=-1, descending=False, stable=False):  # noqa: A002
    """int64 indices that sort input along dim; always stable."""
    return _int64(ops.argsort(input, dim, descending))


def topk(input, k, dim=-1, largest=True, sorted=True):  # noqa: A002
    """(values, int64 indices) of the k largest (smallest with largest=False) along dim."""
    values, indices = ops.topk(input, k, dim, largest, sorted)
    return values, _int64(indices)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """torch.unique: the sorted distinct values (of the flattened input, or the distinct slices
    along dim), and with return_inverse / return_counts int64 Tensors of each element's position
    among them and of each value's count. Eager only: the length depends on the values."""
    value = _host("unique", input)
    distinct, first, inverse, counts = np.unique(value, return_index=True, return_inverse=True,
                                                 return_counts=True, axis=dim)
    if dim is None:
        out = _picked(input, value.shape, first, distinct)
        inverse = inverse.reshape(value.shape)
    else:
        out = Tensor(distinct, F.as_tensor(input).dtype)
        inverse = inverse.reshape(-1)
    extra = ([Tensor(inverse.astype(np.int64))] if return_inverse else []) + \
            ([Tensor(counts.astype(np.int64))] if return_counts else [])
    return (out, *extra) if extra else out

"""mint's reductions and scans: torch's names (`dim`, `keepdim`, `correction`) and torch's
results where MindSpore 2.10's CPU build has no kernel of its own (argmax/argmin/sort-like
indices int64, integer cumsum and count_nonzero int64). Dtypes MindSpore 2.10 measures
differently from torch are kept as MindSpore's: mean of an int32 input stays int32, nansum of
int32 stays int32."""
from __future__ import annotations

from .. import dtype as mstype
from .. import ops
from ..ops import functional as F
from ..tensor import Tensor

_INT_WIDENED = (mstype.bool_, mstype.int8, mstype.int16, mstype.int32, mstype.uint8)


def _int64(t):
    return F.cast(t, mstype.int64)


def sum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A001,A002 - mint's names
    """bool and int8/16/32/uint8 sum in int64 (measured on 2.10: Int64 for int8, bool, uint8)."""
    return ops.sum(input, dim, keepdim, dtype=dtype)


def mean(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """An integer input's mean keeps its dtype (measured: mint.mean of Int32 is Int32; torch refuses)."""
    x = F.as_tensor(input) if dtype is None else F.cast(input, dtype)
    return ops.mean(x, dim, keepdim)


def prod(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """bool and int8/16/32/uint8 multiply in int64 (measured: Int64 for int8 and int32)."""
    x = F.as_tensor(input)
    if dtype is None and x.dtype in _INT_WIDENED:
        dtype = mstype.int64
    return ops.prod(x, dim, keepdim, dtype)


def nansum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """The sum with NaN as 0; an int32 input's stays int32 (measured, unlike torch's int64)."""
    return ops.nansum(input, dim, keepdim, dtype=dtype)


def all(input, dim=None, keepdim=False):  # noqa: A001,A002
    return ops.all(input, dim, keepdim)


def any(input, dim=None, keepdim=False):  # noqa: A001,A002
    return ops.any(input, dim, keepdim)


def amax(input, dim=(), keepdim=False):  # noqa: A002
    """The maximum over `dim`; () means every axis."""
    return ops.amax(input, dim, keepdim)


def amin(input, dim=(), keepdim=False):  # noqa: A002
    return ops.amin(input, dim, keepdim)


def argmax(input, dim=None, keepdim=False):  # noqa: A002
    """int64 indices of the first maximum; dim None: of the flattened input."""
    return ops.argmax(input, dim, keepdim)


def argmin(input, dim=None, keepdim=False):  # noqa: A002
    """int64 indices of the first minimum (ops.argmin's are int32)."""
    return _int64(ops.argmin(input, dim, keepdim))


def _extremum(reduce, pick, combine, input, dim, keepdim):
    if isinstance(dim, Tensor):   # max(input, other)
        return combine(input, dim)
    if dim is None:
        return reduce(input)
    return pick(input, dim, keepdim)


def max(input, dim=None, keepdim=False):  # noqa: A001,A002
    """torch's three forms: max(input) the largest element; max(input, dim, keepdim=False) a
    tuple (values, int64 indices of the first maximum), a plain tuple as 2.10 returns (measured);
    max(input, other) the elementwise maximum."""
    return _extremum(ops.amax, _max_along, ops.maximum, input, dim, keepdim)


def min(input, dim=None, keepdim=False):  # noqa: A001,A002
    """max's three forms for the minimum."""
    return _extremum(ops.amin, _min_along, ops.minimum, input, dim, keepdim)


def _max_along(x, dim, keepdim):
    return ops.amax(x, dim, keepdim), argmax(x, dim, keepdim)


def _min_along(x, dim, keepdim):
    return ops.amin(x, dim, keepdim), argmin(x, dim, keepdim)


def median(input, dim=None, keepdim=False):  # noqa: A002
    """dim None: the lower median of every element (a 0-d Tensor); otherwise (values, int64
    indices) of the lower median along dim."""
    x = F.as_tensor(input)
    if dim is None:
        return ops.median(F.reshape(x, (-1,)), 0)[0]
    values, indices = ops.median(x, dim, keepdim)
    return values, _int64(indices)


def kthvalue(input, k, dim=-1, keepdim=False):  # noqa: A002
    """(values, int64 indices) of the k-th smallest element along dim (k from 1), from a stable sort."""
    x = F.as_tensor(input)
    dim = dim % x.ndim if x.ndim else 0
    n = x.shape[dim] if x.ndim else 1
    if not 1 <= k <= n:
        raise ValueError(f"For 'kthvalue', k must be in [1, {n}], but got {k}.")
    if x.ndim == 0:
        return x, F.as_tensor(0, mstype.int64)
    values, indices = ops.sort(x, dim)
    values, indices = ops.narrow(values, dim, k - 1, 1), _int64(ops.narrow(indices, dim, k - 1, 1))
    if not keepdim:
        values, indices = ops.squeeze(values, dim), ops.squeeze(indices, dim)
    return values, indices


def logsumexp(input, dim, keepdim=False):  # noqa: A002
    return ops.logsumexp(input, dim, keepdim)


def _dims(dim):
    return None if dim is None else dim


def var(input, dim=None, *, correction=1, keepdim=False):  # noqa: A002
    """The variance over dim (every axis for None), divided by N - correction."""
    return ops.var(input, _dims(dim), correction, keepdim)


def std(input, dim=None, *, correction=1, keepdim=False):  # noqa: A002
    return ops.std(input, _dims(dim), correction, keepdim)


def var_mean(input, dim=None, *, correction=1, keepdim=False):  # noqa: A002
    """(variance, mean), a tuple."""
    return var(input, dim, correction=correction, keepdim=keepdim), ops.mean(input, dim, keepdim)


def std_mean(input, dim=None, *, correction=1, keepdim=False):  # noqa: A002
    """(standard deviation, mean), a tuple."""
    return std(input, dim, correction=correction, keepdim=keepdim), ops.mean(input, dim, keepdim)


def count_nonzero(input, dim=None):  # noqa: A002
    """int64 counts of the nonzero elements over dim (every axis for None)."""
    return ops.count_nonzero(input, () if dim is None else dim, dtype=mstype.int64)


def cumsum(input, dim, dtype=None):  # noqa: A002
    """Running sums along dim; bool and int8/16/32/uint8 in int64 (torch's)."""
    x = F.as_tensor(input)
    if dtype is None and x.dtype in _INT_WIDENED:
        dtype = mstype.int64
    return ops.cumsum(x, dim, dtype)


def cumprod(input, dim, dtype=None):  # noqa: A002
    """Running products along dim; int32 in int64 (measured)."""
    x = F.as_tensor(input)
    if dtype is None and x.dtype in _INT_WIDENED:
        dtype = mstype.int64
    return ops.cumprod(x, dim, dtype)


def cummax(input, dim):  # noqa: A002
    """(running maxima, int64 indices), a tuple (measured)."""
    values, indices = ops.cummax(input, dim)
    return values, _int64(indices)


def cummin(input, dim):  # noqa: A002
    values, indices = ops.cummin(input, dim)
    return values, _int64(indices)


def diff(input, n=1, dim=-1, prepend=None, append=None):  # noqa: A002
    return ops.diff(input, n, dim, prepend, append)


def histc(input, bins=100, min=0, max=0):  # noqa: A001,A002
    return ops.histc(input, bins, min, max)


def bincount(input, weights=None, minlength=0):  # noqa: A002
    """Counts of each value 0, 1, ...: int64 (torch's; ops.bincount's are MindSpore's float32),
    or the weights' sums in their dtype."""
    out = ops.bincount(input, weights, minlength)
    return _int64(out) if weights is None else out


def norm(input, p="fro", dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """torch.norm: 'fro' and numbers are vector norms over dim (every element for None; a pair of
    dims with 'fro' is the Frobenius norm, the same number); 'nuc' a matrix norm over dim (the last
    two axes for None)."""
    x = F.as_tensor(input)
    if p == "nuc":
        return ops.matrix_norm(x, "nuc", (-2, -1) if dim is None else dim, keepdim, dtype=dtype)
    return ops.vector_norm(x, 2 if p == "fro" else p, dim, keepdim, dtype=dtype)

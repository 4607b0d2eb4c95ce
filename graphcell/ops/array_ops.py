"""Reductions, scans, shape functions, constructors, random draws and lookups with MindSpore
2.10's names, parameter names, output structures and dtypes (measured on a real 2.10 install).

Each is composed of functional-layer ops and the sorting primitives, so it works eagerly, under
jit (XLA, onnxruntime), vmap and grad with no rules of its own. The scans that have no primitive
(cummax, cummin, logcumsumexp) are log-step scans (`log_scan.py`): O(n log n) in the axis'
length.
"""
from __future__ import annotations

import builtins
import math
import numbers

import numpy as np

from .. import dtype as mstype
from ..dtype import to_dtype
from ..tensor import Tensor
from . import functional as F
from . import reductions as red
from .composite import _axis_list, flip, isnan
from .log_scan import log_step_scan
from .math_ops import logaddexp
from .sorting import sort

__all__ = [
    # reductions
    "max", "min", "mean", "aminmax", "prod", "nansum", "nanmean", "median", "quantile", "nanquantile",
    # scans and differences
    "cummax", "cummin", "logcumsumexp", "diff",
    # shapes
    "fill", "fills", "expand", "expand_as", "movedim", "swapdims", "hstack", "vstack", "dstack", "column_stack",
    "rot90", "fliplr", "flipud", "atleast_1d", "atleast_2d", "atleast_3d", "vsplit", "hsplit", "tensor_split",
    # constructors and random draws
    "range", "logspace", "rand", "randn", "randint", "rand_like", "randn_like", "randint_like",
    # lookups and counting
    "bias_add", "embedding", "searchsorted", "bucketize", "histc", "bincount",
]


def _int_arg(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)):
        raise TypeError(f"{what} must be an int, got {value!r}")
    return int(value)


# -- reductions ------------------------------------------------------------------------------

def mean(x, axis=None, keep_dims=False):
    """MindSpore's ops.mean (and Tensor.mean): an integer input's mean keeps its dtype,
    truncated toward zero, as the ReduceMean primitive (MindSpore 2.10, measured: Int32
    [[-1, -2], [3, 4]] over axis 1 is [-1, 3]); the sum is exact (int64), not a float32 mean.
    graphcell's own layers use F.mean, which averages integers in float32."""
    x = F.as_tensor(x)
    if not x.dtype.is_integer:
        return F.mean(x, axis, keep_dims)
    total = F.sum(x, axis, keep_dims)
    count = builtins.max(math.prod(x.shape) // builtins.max(math.prod(total.shape), 1), 1)   # (max is ops.max here)
    return F.cast(F.div(total, count, rounding_mode="trunc"), x.dtype)


def _max_or_min(name, arg_prim, combine, input, axis, keepdims, initial, where):
    x = F.as_tensor(input)
    if x.ndim == 0 or axis is None:
        # MindSpore 2.10 (measured, and in its source): the reduction of every element and the
        # index 0, whatever keepdims, initial and where say.
        return (F.reduce_max(x) if name == "max" else F.reduce_min(x)), Tensor(0, mstype.int64)
    axis = F._axis(_int_arg(axis, f"{name}: axis"), x.ndim, f"{name}: axis")
    if initial is not None and not isinstance(initial, numbers.Number):
        raise TypeError(f"{name}: initial must be a scalar, got {type(initial).__name__}")
    if where is not None:
        if initial is None:
            raise ValueError(f"{name}: where needs initial (the value of masked-out elements)")
        x = F.select(F.broadcast_to(F.as_tensor(where, mstype.bool_), x.shape), x, F.full_like(x, initial))
    if initial is not None:
        x = combine(x, F.full_like(x, initial))
    idx = arg_prim.bind(x, axis=axis, index_dtype=mstype.int64)
    values = F.squeeze(F.gather_elements(x, axis, F.expand_dims(idx, axis)), axis)
    if keepdims:
        values, idx = F.expand_dims(values, axis), F.expand_dims(idx, axis)
    return values, idx


def max(input, axis=None, keepdims=False, *, initial=None, where=None):  # noqa: A001,A002 - MindSpore's names
    """(values, int64 indices) of the largest elements along `axis`; ties give the first index
    (measured). axis=None gives (the largest element, 0), as MindSpore 2.10 does. `initial` is a
    floor on the values, `where` (with `initial`) masks elements out. NaN is the largest value
    (numpy, torch); MindSpore 2.10's CPU kernel skips NaN unless it comes first (deliberately not
    copied)."""
    return _max_or_min("max", red.argmax, F.maximum, input, axis, keepdims, initial, where)


def min(input, axis=None, keepdims=False, *, initial=None, where=None):  # noqa: A001,A002
    """(values, int64 indices) of the smallest elements along `axis`; as `max`."""
    return _max_or_min("min", red.argmin, F.minimum, input, axis, keepdims, initial, where)


_AXIS_FORM = ("axis", "keepdims")
_AXIS_FORM_KEYWORDS = frozenset({"axis", "keepdims", "initial", "where", "return_indices"})


def tensor_max_or_min(name: str, x: Tensor, args: tuple, kwargs: dict):
    """Tensor.max / Tensor.min: MindSpore 2.10's two overloads, told apart as it tells them
    (measured):

    - `x.max(dim, keepdim=False)` -> (values, int64 indices): an int first argument or `dim=`,
      with none of the other form's keywords;
    - `x.max(axis=None, keepdims=False, *, initial=None, where=None, return_indices=False)`:
      axis None reduces every element (initial, where and keepdims are ignored; the index is 0),
      an int axis gives the values (with the indices if return_indices; the gradient goes to the
      first maximum), a tuple or list of axes the values only (return_indices ignored; ties
      share the gradient).

    Anything else is MindSpore's TypeError."""
    first_is_int = bool(args) and isinstance(args[0], (int, np.integer)) and not isinstance(args[0], bool)
    if ("dim" in kwargs or "keepdim" in kwargs or first_is_int) and not _AXIS_FORM_KEYWORDS & kwargs.keys():
        bound = _overload(name, ("dim", "keepdim"), (), args, kwargs)
        if "dim" not in bound or not _is_int(bound["dim"]) or not isinstance(bound.get("keepdim", False), bool):
            raise _no_overload(name, args, kwargs)
        return (max if name == "max" else min)(x, bound["dim"], bound.get("keepdim", False))
    bound = _overload(name, _AXIS_FORM, ("initial", "where", "return_indices"), args, kwargs)
    axis, keepdims = bound.get("axis"), bound.get("keepdims", False)
    initial, where = bound.get("initial"), bound.get("where")
    return_indices = bound.get("return_indices", False)
    axis_ok = axis is None or _is_int(axis) or (isinstance(axis, (tuple, list)) and builtins.all(map(_is_int, axis)))
    if (not axis_ok or not isinstance(keepdims, bool) or not isinstance(return_indices, bool)
            or not (where is None or isinstance(where, (bool, Tensor)))):
        raise _no_overload(name, args, kwargs)
    if initial is not None and (isinstance(initial, bool) or not isinstance(initial, numbers.Number)):
        raise TypeError(f"For '{name}', 'initial' must be a scalar, but got {type(initial)}")
    x = F.as_tensor(x)
    if axis is None:
        if x.size == 0:
            raise ValueError(f"{name.capitalize()} cannot deal with empty input. Please try other inputs")
        value = F.reduce_max(x) if name == "max" else F.reduce_min(x)
        return (value, Tensor(0, mstype.int64)) if return_indices else value
    where = Tensor(where) if isinstance(where, bool) else where
    if _is_int(axis):
        values, indices = (max if name == "max" else min)(x, axis, keepdims, initial=initial, where=where)
        return (values, indices) if return_indices else values
    return (F.amax if name == "max" else F.amin)(x, tuple(axis), keepdims, initial=initial, where=where)


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _overload(name, positional, keyword_only, args, kwargs) -> dict:
    """The arguments bound to one overload's parameter names, or MindSpore's TypeError."""
    if len(args) > len(positional) or not kwargs.keys() <= {*positional, *keyword_only} \
            or kwargs.keys() & set(positional[:len(args)]):
        raise _no_overload(name, args, kwargs)
    return {**dict(zip(positional, args)), **kwargs}


def _no_overload(name, args, kwargs) -> TypeError:
    described = [_describe(a) for a in args] + [f"{k}={_describe(v)}" for k, v in kwargs.items()]
    return TypeError(
        f'Failed calling {name} with "{name}({", ".join(described)})".\nThe valid calling should be:\n'
        f'"Tensor.{name}(dim=<int>, keepdim=<bool>)"\n'
        f'"Tensor.{name}(axis=<None, int, list of int, tuple of int>, keepdims=<bool>, *, initial=<None, Number>, '
        f'where=<Tensor, bool>, return_indices=<bool>)"')


def _describe(value) -> str:
    """An argument's type as MindSpore's overload errors print it ("int", "Tuple<int, int>")."""
    if isinstance(value, (tuple, list)):
        return ("Tuple" if isinstance(value, tuple) else "List") + "<" + ", ".join(map(_describe, value)) + ">"
    return "Tensor" if isinstance(value, Tensor) else "None" if value is None else type(value).__name__


def aminmax(input, *, axis=0, keepdims=False):  # noqa: A002
    """(min, max) along `axis` (None: over every element, 0-D results)."""
    x = F.as_tensor(input)
    if axis is None or x.ndim == 0:   # a 0-D input: itself twice (measured)
        return F.reduce_min(x, None, False), F.reduce_max(x, None, False)
    axis = F._axis(_int_arg(axis, "aminmax: axis"), builtins.max(x.ndim, 1), "aminmax: axis")
    return F.reduce_min(x, axis, keepdims), F.reduce_max(x, axis, keepdims)


def prod(input, axis=None, keep_dims=False, dtype=None):  # noqa: A002
    """The product over `axis`; bools, int8/16/32 and uint8 multiply in int64, uint16/32/64 keep
    their dtype (measured), `dtype` casts first."""
    x = F.as_tensor(input)
    if dtype is not None:
        x = F.cast(x, to_dtype(dtype))
    elif F._widens_to_int64(x.dtype):
        x = F.cast(x, mstype.int64)
    return F.reduce_prod(x, axis, keep_dims)


def _nan_to_zero(x: Tensor) -> Tensor:
    return F.select(isnan(x), F.zeros_like(x), x) if x.dtype.is_floating else x


def nansum(input, axis=None, keepdims=False, *, dtype=None):  # noqa: A002
    """The sum over `axis` with NaNs counted as 0; integers keep their dtype (measured)."""
    x = F.as_tensor(input)
    if dtype is not None:
        x = F.cast(x, to_dtype(dtype))
    return F.reduce_sum(_nan_to_zero(x), axis, keepdims)


def nanmean(input, axis=None, keepdims=False, *, dtype=None):  # noqa: A002
    """The mean of the non-NaN elements over `axis` (NaN where all are NaN)."""
    x = F.as_tensor(input)
    if dtype is not None:
        x = F.cast(x, to_dtype(dtype))
    if not x.dtype.is_floating:
        raise TypeError(f"nanmean: input must be a float tensor (or give dtype), got {x.dtype}")
    count = F.reduce_sum(F.cast(F.logical_not(isnan(x)), x.dtype), axis, keepdims)
    return F.div(F.reduce_sum(_nan_to_zero(x), axis, keepdims), count)


def _sorted_pick(values: Tensor, axis: int, position: Tensor) -> Tensor:
    """values[..., position, ...] along `axis`, position an int tensor of values' shape with
    that axis of size 1 (a gather, so the gradient reaches the element picked)."""
    return F.gather_elements(values, axis, position)


def median(input, axis=-1, keepdims=False):  # noqa: A002
    """(values, int64 indices) of the lower median along `axis`: the element at position
    (n - 1) // 2 of a stable sort, so equal values resolve as MindSpore 2.10 does (measured). A
    slice holding NaN gives NaN and the index of its first NaN."""
    x = F.as_tensor(input)
    if x.ndim == 0:
        return x, Tensor(0, mstype.int64)
    axis = F._axis(_int_arg(axis, "median: axis"), x.ndim, "median: axis")
    n = F.element_count(x, axis, mstype.int32)   # a node: the axis may be dynamic in an export
    values, idx = sort(x, axis)   # stable, NaN last
    pos = F.broadcast_to(F.floor_div(F.sub(n, 1), 2), tuple(1 if a == axis else d for a, d in enumerate(x.shape)))
    if x.dtype.is_floating:
        valid = F.reduce_sum(F.cast(F.logical_not(isnan(x)), mstype.int32), axis, True)
        pos = F.select(F.less(valid, n), valid, pos)   # the first NaN sorts right after the numbers
    out_v, out_i = _sorted_pick(values, axis, pos), F.cast(_sorted_pick(idx, axis, pos), mstype.int64)
    if not keepdims:
        out_v, out_i = F.squeeze(out_v, axis), F.squeeze(out_i, axis)
    return out_v, out_i


def _quantile(name, input, q, axis, keepdims, ignore_nan):
    x = F.as_tensor(input)
    if not x.dtype.is_floating:
        raise TypeError(f"{name}: input must be a float tensor, got {x.dtype}")
    scalar_q = isinstance(q, numbers.Real)
    if scalar_q:
        if not 0 <= q <= 1:
            raise ValueError(f"{name}: q must be in [0, 1], got {q}")
        qs = Tensor(np.array([q]), x.dtype)
    else:
        qs = F.cast(F.as_tensor(q), x.dtype)
        if qs.ndim > 1:
            raise ValueError(f"{name}: q must be a number or a 0-D/1-D tensor, got shape {list(qs.shape)}")
        scalar_q = qs.ndim == 0
        qs = F.reshape(qs, (-1,))
    orig_ndim = x.ndim
    if axis is None:
        x, axis = F.reshape(x, (-1,)), 0
    else:
        axis = F._axis(_int_arg(axis, f"{name}: axis"), x.ndim, f"{name}: axis")
    x = F.moveaxis(x, axis, -1)                  # [..., n]
    n = x.shape[-1]
    values = sort(x, -1)[0]                      # NaN last
    nan_count = F.reduce_sum(F.cast(isnan(x), x.dtype), -1, True)         # [..., 1]
    count = F.sub(F.full_like(nan_count, n), nan_count) if ignore_nan else F.full_like(nan_count, n)
    pos = F.mul(F.sub(count, 1.0), qs)                                      # [..., k]
    pos = F.maximum(pos, 0.0)
    lo = F.floor(pos)
    hi = F.minimum(F.add(lo, 1.0), F.maximum(F.sub(count, 1.0), 0.0))
    frac = F.sub(pos, lo)
    v_lo = F.gather_elements(values, -1, F.cast(lo, mstype.int32))
    v_hi = F.gather_elements(values, -1, F.cast(hi, mstype.int32))
    out = F.add(v_lo, F.mul(F.sub(v_hi, v_lo), frac))
    bad = F.equal(count, 0.0) if ignore_nan else F.greater(nan_count, 0.0)
    out = F.select(F.broadcast_to(bad, out.shape), F.full_like(out, float("nan")), out)
    out = F.moveaxis(out, -1, 0)                 # [k, ...]: the quantiles first (torch)
    return _quantile_shape(out, scalar_q, keepdims, orig_ndim, axis)


def _quantile_shape(out, scalar_q, keepdims, orig_ndim, axis):
    rest = out.shape[1:]
    if keepdims:
        if len(rest) + 1 == orig_ndim:   # one axis reduced
            rest = rest[:axis] + (1,) + rest[axis:]
        else:                            # axis None: every axis kept as 1
            rest = (1,) * orig_ndim
        out = F.reshape(out, (out.shape[0],) + rest)
    return F.squeeze(out, 0) if scalar_q else out


def quantile(input, q, axis=None, keepdims=False):  # noqa: A002
    """The q-th quantiles along `axis` (None: of every element), interpolating linearly between
    the two nearest order statistics (torch's default). A tensor q of k values puts a leading axis
    of k. NaN anywhere in a slice gives NaN. MindSpore 2.10 has no CPU kernel for this (measured);
    graphcell follows its documentation and torch."""
    return _quantile("quantile", input, q, axis, keepdims, False)


def nanquantile(input, q, axis=None, keepdims=False):  # noqa: A002
    """`quantile` of the non-NaN elements (NaN where all are NaN)."""
    return _quantile("nanquantile", input, q, axis, keepdims, True)


# -- scans -----------------------------------------------------------------------------------

def _cum_extreme(name, input, axis, index_dtype, later_wins, reduce, lowest):
    """(running extremes, their indices) along `axis`: a log-step scan of (value, index) pairs
    in which the later pair wins where `later_wins(later value, earlier value)`. For
    onnxruntime, every pair compared instead: the log-step scan's step count follows the axis'
    length, so an export whose axis is dynamic could not hold it."""
    x = F.as_tensor(input)
    if x.ndim == 0:
        return x, Tensor(0, index_dtype)
    axis = F._axis(_int_arg(axis, f"{name}: axis"), x.ndim, f"{name}: axis")
    from ..context import lowering_target
    if lowering_target().startswith("onnx"):
        return _cum_extreme_pairwise(x, axis, index_dtype, reduce, lowest)
    n = x.shape[axis]
    positions = F.broadcast_to(Tensor(np.arange(n, dtype=np.int32).reshape((n,) + (1,) * (x.ndim - 1 - axis))),
                               x.shape)
    floating = x.dtype.is_floating

    def pick(earlier, later):
        (v0, i0), (v1, i1) = earlier, later
        wins = later_wins(v1, v0)
        if floating:   # NaN beats every number, and a later NaN an earlier one (measured)
            wins = F.logical_or(wins, isnan(v1))
        return F.select(wins, v1, v0), F.select(wins, i1, i0)
    _, idx = log_step_scan((F.stop_gradient(x), positions), axis, pick)
    values = F.gather_elements(x, axis, idx)   # a gather: the gradient reaches the element picked
    return values, F.cast(idx, index_dtype)


def _cum_extreme_pairwise(x, axis, index_dtype, reduce, lowest):
    """`_cum_extreme` as an [..., n, n] comparison of every position with every earlier one,
    its mask built from positions as nodes (run-time sizes in an export). n^2: for ONNX."""
    xs = F.moveaxis(x, axis, -1)
    n = xs.shape[-1]
    at = F._positions(xs, -1)
    lower = F.less_equal(F.reshape(at, (1, n)), F.reshape(at, (n, 1)))          # [i, j]: j <= i
    prefix = F.broadcast_to(F.expand_dims(xs, -2), xs.shape[:-1] + (n, n))   # [..., i, j] = x_j
    floating = x.dtype.is_floating
    fill = float(lowest) if floating else (np.iinfo(x.dtype.np_dtype).min if lowest < 0
                                          else np.iinfo(x.dtype.np_dtype).max)
    usable = F.logical_and(lower, F.logical_not(isnan(prefix))) if floating else lower
    best = reduce(F.select(usable, prefix, F.full_like(prefix, fill)), -1, True)   # NaN skipped here
    j = F.broadcast_to(F._positions(xs, -1), prefix.shape)
    none = F.full_like(j, -1)
    # the last j <= i holding the running extreme: later equal values take over (measured)
    idx = F.reduce_max(F.select(F.logical_and(usable, F.equal(prefix, best)), j, none), -1)
    if floating:   # NaN wins from its first appearance on, with its latest index (measured)
        last_nan = F.reduce_max(F.select(F.logical_and(lower, isnan(prefix)), j, none), -1)
        idx = F.select(F.greater_equal(last_nan, F.zeros_like(last_nan)), last_nan, idx)
    values = F.gather_elements(xs, -1, idx)   # a gather: the gradient reaches the element picked
    return F.moveaxis(values, -1, axis), F.cast(F.moveaxis(idx, -1, axis), index_dtype)


def cummax(input, axis):  # noqa: A002
    """(running maxima, their int64 indices) along `axis`; a tie takes the later index (-0.0
    and 0.0 tie) and NaN wins with the index of its latest appearance (measured)."""
    return _cum_extreme("cummax", input, axis, mstype.int64, F.greater_equal, F.reduce_max, -math.inf)


def cummin(input, axis):  # noqa: A002
    """(running minima, their int32 indices: MindSpore 2.10's cummin differs from cummax here,
    measured) along `axis`; as `cummax`."""
    return _cum_extreme("cummin", input, axis, mstype.int32, F.less_equal, F.reduce_min, math.inf)


def logcumsumexp(input, axis):  # noqa: A002
    """log(cumsum(exp(input))) along `axis`, stable for large and very different values: a
    log-step scan of logaddexp. Float inputs only (measured). (MindSpore 2.10's CPU kernel gives
    NaN after two -inf or two +inf and garbage after a NaN; this gives -inf, inf and NaN.)"""
    x = F.as_tensor(input)
    if not x.dtype.is_floating:
        raise TypeError(f"logcumsumexp: input must be a float tensor, got {x.dtype}")
    if x.ndim == 0:
        return x
    axis = F._axis(_int_arg(axis, "logcumsumexp: axis"), x.ndim, "logcumsumexp: axis")
    from ..context import lowering_target
    if lowering_target().startswith("onnx"):   # as _cum_extreme: a step count can't follow a dynamic axis
        return _logcumsumexp_pairwise(x, axis)
    (out,) = log_step_scan((x,), axis, lambda earlier, later: (logaddexp(earlier[0], later[0]),))
    return out


def _logcumsumexp_pairwise(x, axis):
    """logcumsumexp as a logsumexp over [..., i, j] = x_j for j <= i (-inf past i), its mask
    built from positions as nodes so an exported axis may be dynamic. n^2: for ONNX."""
    xs = F.moveaxis(x, axis, -1)
    n = xs.shape[-1]
    at = F._positions(xs, -1)
    lower = F.less_equal(F.reshape(at, (1, n)), F.reshape(at, (n, 1)))          # [i, j]: j <= i
    prefix = F.broadcast_to(F.expand_dims(xs, -2), xs.shape[:-1] + (n, n))   # [..., i, j] = x_j
    masked = F.select(lower, prefix, F.full_like(prefix, -np.inf))
    return F.moveaxis(F.logsumexp(masked, -1), -1, axis)


def diff(x, n=1, axis=-1, prepend=None, append=None):
    """The n-th forward difference along `axis` after concatenating `prepend` and `append`;
    bools differ by xor (measured). MindSpore 2.10 accepts only n=1 (measured); graphcell
    takes any n >= 0, as numpy."""
    x = F.as_tensor(x)
    n = _int_arg(n, "diff: n")
    if n < 0:
        raise ValueError(f"diff: n must be non-negative, got {n}")
    axis = F._axis(_int_arg(axis, "diff: axis"), x.ndim, "diff: axis")
    parts = [F.as_tensor(p) for p in (prepend, x, append) if p is not None]
    x = F.concat(parts, axis) if len(parts) > 1 else x
    for _ in builtins.range(n):
        size = x.shape[axis]
        hi, lo = F.slice_axis(x, axis, 1, size), F.slice_axis(x, axis, 0, builtins.max(size - 1, 0))
        x = F.not_equal(hi, lo) if x.dtype is mstype.bool_ else F.sub(hi, lo)
    return x


# -- shapes ----------------------------------------------------------------------------------

def fill(type, shape, value):  # noqa: A002 - MindSpore's names
    """A tensor of `shape` holding `value`, of dtype `type`."""
    return F.full(shape, value, to_dtype(type))


def fills(x, value):
    """A tensor like `x` holding `value` in x's dtype."""
    x = F.as_tensor(x)
    return F.full_like(x, value)


def _size_arg(size) -> tuple:
    if isinstance(size, Tensor):
        return tuple(int(d) for d in size._host("expand: a Tensor size").reshape(-1))
    return F._shape_arg(size)


def expand(input_x, size):
    """input_x broadcast to `size` (a tuple or a 1-D Tensor); -1 keeps an axis' size."""
    return F.broadcast_to(input_x, _size_arg(size))


def expand_as(input, other):  # noqa: A002
    """input broadcast to other's shape."""
    return F.broadcast_to(input, F.as_tensor(other).shape)


def movedim(x, source, destination):
    """Moves the axes in `source` to the places in `destination` (ints or equal-length
    sequences); the others keep their order."""
    x = F.as_tensor(x)
    src = _axis_list(source, x.ndim, "movedim: source")
    dst = _axis_list(destination, x.ndim, "movedim: destination")
    if len(src) != len(dst):
        raise ValueError(f"movedim: source {source} and destination {destination} must have the same length")
    rest = iter([a for a in builtins.range(x.ndim) if a not in src])
    placed = dict(zip(dst, src))
    return F.transpose(x, tuple(placed[i] if i in placed else next(rest) for i in builtins.range(x.ndim)))


def swapdims(input, dim0, dim1):  # noqa: A002
    return F.swapaxes(input, dim0, dim1)


def _at_least(name, rank, inputs):
    def one(x):
        x = F.as_tensor(x)
        if x.ndim >= rank:
            return x
        if rank == 3 and x.ndim == 2:
            return F.expand_dims(x, -1)
        if rank == 3 and x.ndim == 1:
            return F.reshape(x, (1, x.shape[0], 1))
        return F.reshape(x, (1,) * (rank - x.ndim) + x.shape)
    if isinstance(inputs, (list, tuple)):
        return tuple(one(x) for x in inputs)
    return one(inputs)


def atleast_1d(inputs):
    """A Tensor with at least one axis (a list or tuple: a tuple of them)."""
    return _at_least("atleast_1d", 1, inputs)


def atleast_2d(inputs):
    """Leading 1s up to two axes."""
    return _at_least("atleast_2d", 2, inputs)


def atleast_3d(inputs):
    """Three axes as numpy: [n] -> [1, n, 1], [m, n] -> [m, n, 1]."""
    return _at_least("atleast_3d", 3, inputs)


def _tensors(name, tensors):
    if not isinstance(tensors, (list, tuple)) or not tensors:
        raise TypeError(f"{name}: expects a non-empty list or tuple of tensors, got {type(tensors).__name__}")
    return [F.as_tensor(t) for t in tensors]


def hstack(tensors):
    """Concatenation along axis 1 (axis 0 for 1-D tensors)."""
    ts = atleast_1d(_tensors("hstack", tensors))
    return F.concat(ts, 0 if ts[0].ndim == 1 else 1)


def vstack(inputs):
    """Concatenation along axis 0 of tensors raised to 2-D."""
    return F.concat(atleast_2d(_tensors("vstack", inputs)), 0)


def dstack(tensors):
    """Concatenation along axis 2 of tensors raised to 3-D."""
    return F.concat(atleast_3d(_tensors("dstack", tensors)), 2)


def column_stack(tensors):
    """1-D tensors as columns (and 2-D as they are), concatenated along axis 1."""
    ts = [F.reshape(t, (-1, 1)) if t.ndim < 2 else t for t in _tensors("column_stack", tensors)]
    return F.concat(ts, 1)


def rot90(input, k, dims):  # noqa: A002
    """Rotation by 90 degrees k times in the plane of `dims`, from dims[0] towards dims[1]."""
    x = F.as_tensor(input)
    axes = _axis_list(dims, x.ndim, "rot90: dims")
    if len(axes) != 2:
        raise ValueError(f"rot90: dims must be two different axes, got {dims!r}")
    a, b = axes
    k = _int_arg(k, "rot90: k") % 4
    if k == 1:
        return F.swapaxes(flip(x, b), a, b)
    if k == 2:
        return flip(x, (a, b))
    if k == 3:
        return flip(F.swapaxes(x, a, b), b)
    return x


def fliplr(input):  # noqa: A002
    """Reverses axis 1 (the input must be at least 2-D, measured)."""
    x = F.as_tensor(input)
    if x.ndim < 2:
        raise ValueError(f"fliplr: input must be at least 2-D, got shape {list(x.shape)}")
    return flip(x, 1)


def flipud(input):  # noqa: A002
    """Reverses axis 0."""
    x = F.as_tensor(input)
    if x.ndim < 1:
        raise ValueError("flipud: input must be at least 1-D")
    return flip(x, 0)


def tensor_split(input, indices_or_sections, axis=0):  # noqa: A002
    """Pieces along `axis`: an int k gives k pieces, the first n % k one longer; a sequence of
    indices splits before each (clipped to the axis, so pieces may be empty)."""
    x = F.as_tensor(input)
    axis = F._axis(_int_arg(axis, "tensor_split: axis"), x.ndim, "tensor_split: axis")
    n = x.shape[axis]
    if isinstance(indices_or_sections, (numbers.Integral, np.integer)) and not isinstance(indices_or_sections, bool):
        k = int(indices_or_sections)
        if k <= 0:
            raise ValueError(f"tensor_split: sections must be positive, got {k}")
        sizes = [n // k + (1 if i < n % k else 0) for i in builtins.range(k)]
        bounds = np.concatenate([[0], np.cumsum(sizes)]).tolist()
    elif isinstance(indices_or_sections, (list, tuple)):
        cuts = [builtins.min(builtins.max(int(i) + (n if int(i) < 0 else 0), 0), n) for i in indices_or_sections]
        bounds = [0] + cuts + [n]
    else:
        raise TypeError(f"tensor_split: indices_or_sections must be an int or a list/tuple of ints, got "
                        f"{type(indices_or_sections).__name__}")
    return tuple(F.slice_axis(x, axis, lo, builtins.max(lo, hi)) for lo, hi in zip(bounds[:-1], bounds[1:]))


def vsplit(input, indices_or_sections):  # noqa: A002
    """tensor_split along axis 0."""
    return tensor_split(input, indices_or_sections, 0)


def hsplit(input, indices_or_sections):  # noqa: A002
    """tensor_split along axis 1 (the input must be at least 2-D, measured)."""
    x = F.as_tensor(input)
    if x.ndim < 2:
        raise ValueError(f"hsplit: input must be at least 2-D, got shape {list(x.shape)}")
    return tensor_split(x, indices_or_sections, 1)


# -- constructors and random draws -----------------------------------------------------------

def _number(v, what):
    if isinstance(v, Tensor):
        return v._host(what).item()
    return v


def range(start, end, step, maxlen=1000000):  # noqa: A001 - MindSpore's name
    """start, start + step, ... below end (above it for a negative step): int64 for integers,
    float32 otherwise (measured). The bounds are read on the host (the length depends on them),
    so Tensor bounds must be concrete; more than `maxlen` values is an error."""
    s, e, d = (_number(v, "range: a Tensor bound") for v in (start, end, step))
    if d == 0:
        raise ValueError("range: step must not be 0")
    count = builtins.max(math.ceil((e - s) / d), 0)
    if count > maxlen:
        raise ValueError(f"range: {count} values exceed maxlen {maxlen}")
    if builtins.all(isinstance(v, (numbers.Integral, np.integer)) for v in (s, e, d)):
        return Tensor(np.arange(s, e, d), mstype.int64)
    # start + i * step in float32, as MindSpore computes it (0.9000000357, not 0.8999999762)
    values = np.float32(s) + np.arange(count, dtype=np.float32) * np.float32(d)
    return Tensor(values, mstype.float32)


def logspace(start, end, steps, base=10, *, dtype=mstype.float32):
    """base ** linspace(start, end, steps), in a float `dtype` (measured: integers refused)."""
    dtype = to_dtype(dtype)
    if not dtype.is_floating:
        raise TypeError(f"logspace: dtype must be a float type, got {dtype}")
    from .composite import linspace
    exps = linspace(F.cast(F.as_tensor(start), mstype.float32), F.cast(F.as_tensor(end), mstype.float32),
                    _int_arg(steps, "logspace: steps"))
    return F.cast(F.pow(float(base), exps), dtype)


def _size(size) -> tuple:
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        size = tuple(size[0])
    return tuple(_int_arg(d, "the size") for d in size)


def _float_dtype(name, dtype, default):
    dtype = to_dtype(dtype) if dtype is not None else default
    if not dtype.is_floating:
        raise ValueError(f"{name}: dtype must be a float type, got {dtype}")
    return dtype


def rand(*size, dtype=None, seed=None):
    """Uniform [0, 1) draws of `size` (ints, or one tuple) from graphcell's generator, or from
    `seed` (the same numbers for the same seed)."""
    return F.uniform(_size(size), seed=seed, dtype=_float_dtype("rand", dtype, mstype.float32))


def randn(*size, dtype=None, seed=None):
    """Standard normal draws of `size`."""
    return F.normal(_size(size), seed=seed, dtype=_float_dtype("randn", dtype, mstype.float32))


def _randint(name, low, high, shape, seed, dtype):
    low, high = _int_arg(low, f"{name}: low"), _int_arg(high, f"{name}: high")
    if high <= low:
        raise ValueError(f"{name}: high ({high}) must be greater than low ({low})")
    if not (dtype.is_integer and dtype is not mstype.bool_):
        raise ValueError(f"{name}: dtype must be an integer type, got {dtype}")
    u = F.uniform(shape, seed=seed, dtype=mstype.float32)
    draws = F.floor(F.mul(u, float(high - low)))
    draws = F.minimum(draws, float(high - low - 1))   # u * span can round up to span in float32
    return F.cast(F.add(draws, float(low)), dtype)


def randint(low, high, size, seed=None, *, dtype=None):
    """Integers uniform in [low, high) of shape `size`: int64 unless `dtype` (measured)."""
    return _randint("randint", low, high, F._shape_arg(size), seed,
                    to_dtype(dtype) if dtype is not None else mstype.int64)


def rand_like(input, seed=None, *, dtype=None):  # noqa: A002
    """`rand` of input's shape, in input's dtype unless `dtype`; a float type (measured)."""
    x = F.as_tensor(input)
    return F.uniform(x.shape, seed=seed, dtype=_float_dtype("rand_like", dtype, x.dtype))


def randn_like(input, seed=None, *, dtype=None):  # noqa: A002
    x = F.as_tensor(input)
    return F.normal(x.shape, seed=seed, dtype=_float_dtype("randn_like", dtype, x.dtype))


def randint_like(input, low, high, seed=None, *, dtype=None):  # noqa: A002
    """`randint` of input's shape, in input's dtype unless `dtype`; an integer type (measured)."""
    x = F.as_tensor(input)
    return _randint("randint_like", low, high, x.shape, seed, to_dtype(dtype) if dtype is not None else x.dtype)


# -- lookups and counting ----------------------------------------------------------------------

def bias_add(input_x, bias):
    """input_x [N, C, ...] plus a 1-D bias [C] along axis 1."""
    x, b = F._pair(input_x, bias)
    if b.ndim != 1 or x.ndim < 2 or x.shape[1] != b.shape[0]:
        raise ValueError(f"bias_add: bias must be 1-D of input_x's axis-1 size; got input_x {list(x.shape)} "
                         f"and bias {list(b.shape)}")
    return F.add(x, F.reshape(b, (b.shape[0],) + (1,) * (x.ndim - 2)))


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False):  # noqa: A002
    """The rows of `weight` at the indices in `input`. padding_idx's rows get no gradient;
    rows with a `norm_type` norm above `max_norm` come back scaled to it (the weight itself is not
    changed, unlike torch's in-place renorm). scale_grad_by_freq is not supported."""
    idx, w = F.as_tensor(input), F.as_tensor(weight)
    if idx.dtype.is_floating or idx.dtype is mstype.bool_:
        raise TypeError(f"embedding: input must hold integer indices, got {idx.dtype}")
    if w.ndim != 2:
        raise ValueError(f"embedding: weight must be 2-D, got shape {list(w.shape)}")
    if scale_grad_by_freq:
        raise NotImplementedError("embedding: scale_grad_by_freq=True is not supported")
    rows = F.gather(w, idx, 0)
    if max_norm is not None:
        norms = F.pow(F.reduce_sum(F.pow(F.abs(rows), float(norm_type)), -1, True), 1.0 / float(norm_type))
        rows = F.mul(rows, F.select(F.greater(norms, max_norm), F.div(float(max_norm), F.add(norms, 1e-7)),
                                    F.ones_like(norms)))
    if padding_idx is not None:
        p = _int_arg(padding_idx, "embedding: padding_idx")
        p = p + w.shape[0] if p < 0 else p
        if not 0 <= p < w.shape[0]:
            raise ValueError(f"embedding: padding_idx {padding_idx} is out of range for {w.shape[0]} rows")
        rows = F.select(F.expand_dims(F.equal(idx, p), -1), F.stop_gradient(rows), rows)
    return rows


def searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None, sorter=None):
    """For each value, the index in the last axis of `sorted_sequence` where it would be inserted
    to keep the order: before equal elements (right=False or side='left') or after them. A 1-D
    sequence serves every value; otherwise the leading axes must match. int64 (int32 with
    out_int32)."""
    seq, v = F._pair(sorted_sequence, values)
    if side is not None:
        if side not in ("left", "right"):
            raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
        if right and side == "left":
            raise ValueError("searchsorted: right=True contradicts side='left'")
        right = side == "right"
    if sorter is not None:
        seq = F.gather_elements(seq, -1, F.as_tensor(sorter))
    if seq.ndim > 1 and seq.shape[:-1] != v.shape[:-1]:
        raise ValueError(f"searchsorted: sorted_sequence {list(seq.shape)} and values {list(v.shape)} must "
                         "agree on all but the last axis")
    below = F.less_equal if right else F.less
    seq_b = seq if seq.ndim == 1 else F.expand_dims(seq, -2)     # [..., 1, M]
    hits = below(seq_b, F.expand_dims(v, -1))                    # [..., N, M]
    return F.reduce_sum(F.cast(hits, mstype.int32 if out_int32 else mstype.int64), -1)


def bucketize(input, boundaries, *, right=False):  # noqa: A002
    """The bucket of each element among 1-D sorted `boundaries`: the count of boundaries below it
    (right=False) or at or below it (right=True); int32 (measured)."""
    x = F.as_tensor(input)
    b = F.as_tensor(np.asarray(boundaries, x.dtype.np_dtype) if isinstance(boundaries, (list, tuple)) else boundaries)
    if b.ndim != 1:
        raise ValueError(f"bucketize: boundaries must be 1-D, got shape {list(b.shape)}")
    x, b = F._pair(x, b)
    hits = (F.less_equal if right else F.less)(b, F.expand_dims(x, -1))
    return F.reduce_sum(F.cast(hits, mstype.int32), -1)


def histc(input, bins=100, min=0.0, max=0.0):  # noqa: A002
    """Counts of the elements in `bins` equal bins over [min, max] (min == max: the data's own
    range, widened by 1 each side when all elements are equal; measured). Elements outside are not counted; max itself falls in
    the last bin. Float inputs count in their dtype, integers in int32 (measured)."""
    x = F.as_tensor(input)
    bins = _int_arg(bins, "histc: bins")
    if bins <= 0:
        raise ValueError(f"histc: bins must be positive, got {bins}")
    if min > max:
        raise ValueError(f"histc: max ({max}) must not be less than min ({min})")
    xf = F.reshape(F.cast(x, mstype.float32), (-1,))
    if min == max:
        lo, hi = F.reduce_min(xf), F.reduce_max(xf)
    else:
        lo, hi = Tensor(float(min), mstype.float32), Tensor(float(max), mstype.float32)
    same = F.equal(lo, hi)
    lo, hi = F.select(same, F.sub(lo, 1.0), lo), F.select(same, F.add(hi, 1.0), hi)
    inside = F.logical_and(F.greater_equal(xf, lo), F.less_equal(xf, hi))
    slot = F.floor(F.div(F.mul(F.sub(xf, lo), float(bins)), F.sub(hi, lo)))
    slot = F.cast(F.minimum(F.maximum(slot, 0.0), float(bins - 1)), mstype.int32)
    counts = F.reduce_sum(F.cast(F.logical_and(F.one_hot(slot, bins, True, False, dtype=mstype.bool_),
                                               F.expand_dims(inside, -1)), mstype.float32), 0)
    return F.cast(counts, x.dtype if x.dtype.is_floating else mstype.int32)


def bincount(input, weights=None, minlength=0):  # noqa: A002
    """Counts (or summed `weights`) of each value 0, 1, ... in the 1-D non-negative integer
    `input`; float32 (measured), or the weights' float dtype. The length is max(input) + 1 or
    `minlength`, whichever is larger: eagerly read from the data; inside jit/vmap/grad the data
    is not known, so `minlength` must be given and is the length (larger values are not counted)."""
    x = F.as_tensor(input)
    if x.ndim != 1 or x.dtype.is_floating or x.dtype is mstype.bool_:
        raise TypeError(f"bincount: input must be a 1-D integer tensor, got {x.dtype}{list(x.shape)}")
    minlength = _int_arg(minlength, "bincount: minlength")
    if x.is_symbolic:
        if minlength <= 0:
            raise ValueError("bincount: under jit, vmap or grad the output length cannot depend on the data; "
                             "give a positive static minlength (it is the output length)")
        length = minlength
    else:
        data = x.asnumpy()
        if data.size and data.min() < 0:
            raise ValueError("bincount: input must be non-negative")
        length = builtins.max(minlength, int(data.max()) + 1 if data.size else 0)
    out_dtype = mstype.float32
    if weights is not None:
        w = F.as_tensor(weights)
        if w.shape != x.shape:
            raise ValueError(f"bincount: weights {list(w.shape)} must match input {list(x.shape)}")
        out_dtype = w.dtype if w.dtype.is_floating else mstype.float32
    hot = F.cast(F.one_hot(x, length, True, False, dtype=mstype.bool_), out_dtype)     # [n, length]
    if weights is not None:
        hot = F.mul(hot, F.expand_dims(F.cast(w, out_dtype), -1))
    return F.reduce_sum(hot, 0)

"""MindSpore 2.10's elementwise, reduction and statistics operator classes (ops.Igamma,
ops.ReduceStd, ops.Median, ...) over graphcell's functional ops; operations.py re-exports them.

Constructor arguments, call inputs, output structures and dtypes are 2.10's, measured on its
CPU build (tests/data/mindspore_op_classes.json, written by tools/mindspore_op_classes.py).
Fmin, EuclideanNorm, Quantile, CountNonZero and Einsum have no CPU kernel in 2.10 (or, for
CountNonZero, a broken one): they follow the documentation.
"""
from __future__ import annotations

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from . import activations as A
from . import array_more as AM
from . import array_ops as AO
from . import composite as CP
from . import functional as F
from . import linalg_ops as LO
from . import math_ops as M
from . import sorting
from . import special_functions as SF
from .op_base import (exporter, Operator, check_bool, check_call_int, check_dtype, check_float, check_int, check_int_or_ints,
                      is_int)

__all__: list[str] = []


_export = exporter(__all__)


def simple_class(name: str, fn, doc: str, module: str = __name__, export=None):
    """A class without constructor arguments whose call is `fn` on its inputs."""
    def call(self, *inputs):
        return fn(*inputs)
    cls = type(name, (Operator,), {"__call__": call, "__doc__": doc, "__module__": module})
    (export or _export)(cls)
    return cls


def static_ints(op: str, arg: str, value) -> tuple:
    """An int, a tuple/list of ints or a constant integer Tensor, as a tuple of ints."""
    if isinstance(value, Tensor):
        if value.is_symbolic or not value.dtype.is_integer:
            raise TypeError(f"For '{op}', '{arg}' must be a constant integer Tensor (known when the graph is built), "
                            f"but got a {'traced ' if value.is_symbolic else ''}{value.dtype} Tensor.")
        return tuple(int(v) for v in value.asnumpy().reshape(-1))
    value = check_int_or_ints(op, arg, value)
    return (value,) if isinstance(value, int) else value


# == elementwise ===============================================================================

for _name, _fn in [("BesselI0", SF.bessel_i0), ("BesselI0e", SF.bessel_i0e), ("BesselI1", SF.bessel_i1),
                   ("BesselI1e", SF.bessel_i1e), ("BesselJ0", SF.bessel_j0), ("BesselJ1", SF.bessel_j1),
                   ("BesselK0", SF.bessel_k0), ("BesselK0e", SF.bessel_k0e), ("BesselK1", SF.bessel_k1),
                   ("BesselK1e", SF.bessel_k1e), ("BesselY0", SF.bessel_y0), ("BesselY1", SF.bessel_y1)]:
    globals()[_name] = simple_class(_name, _fn, f"ops.{_fn.__name__}, elementwise")

Igamma = simple_class("Igamma", SF.igamma, "the lower regularized incomplete gamma function P(a, x)")
Igammac = simple_class("Igammac", SF.igammac, "the upper regularized incomplete gamma function Q(a, x)")
Zeta = simple_class("Zeta", SF.zeta, "the Hurwitz zeta function zeta(x, q)")
Gcd = simple_class("Gcd", M.gcd, "the greatest common divisor of two integer tensors, broadcasting")
Lcm = simple_class("Lcm", M.lcm, "the least common multiple of two integer tensors, broadcasting")
Heaviside = simple_class("Heaviside", M.heaviside, "0 below zero, 1 above, `values` at zero")
Trunc = simple_class("Trunc", CP.trunc, "rounds toward zero")
TruncateDiv = simple_class("TruncateDiv", AM.truncate_div, "x / y rounded toward zero")
TruncateMod = simple_class("TruncateMod", AM.truncate_mod, "the remainder of x / y with the dividend's sign")
Xdivy = simple_class("Xdivy", AM.xdivy, "x / y, and 0 where x is 0")
Fmax = simple_class("Fmax", M.fmax, "the larger of x and y, ignoring a NaN opposite a number")
Fmin = simple_class("Fmin", M.fmin, "the smaller of x and y, ignoring a NaN opposite a number (no CPU kernel in "
                    "MindSpore 2.10; its documentation's semantics)")


def _rint(input_x):
    x = F.as_tensor(input_x)
    if not x.dtype.is_floating:
        raise TypeError(f"For primitive[Rint], the input argument[x] must be a type of {{Tensor[Float16], "
                        f"Tensor[Float32], Tensor[Float64]}}, but got Tensor[{x.dtype}].")
    return F.round(x)


Rint = simple_class("Rint", _rint, "rounds a float tensor to the nearest integer, halves to even")


@_export
class Mvlgamma(Operator):
    """The multivariate log-gamma function of dimension p."""

    def __init__(self, p):
        super().__init__(p=check_int("Mvlgamma", "p", p, minimum=1))

    def __call__(self, x):
        return SF.mvlgamma(x, self.p)


@_export
class MulNoNan(Operator):
    """x * y, and 0 where y is 0 (even where x is NaN or infinite)."""

    def __call__(self, x, y):
        x, y = F._pair(x, y)
        product = F.mul(x, y)
        return F.select(F.equal(y, 0), F.zeros_like(product), product)


@_export
class Logit(Operator):
    """log(x / (1 - x)); eps >= 0 clamps x to [eps, 1 - eps] first, the default -1.0 does not."""

    def __init__(self, eps=-1.0):
        super().__init__(eps=check_float("Logit", "eps", eps))

    def __call__(self, x):
        return M.logit(x, None if self.eps < 0 else self.eps)


@_export
class NanToNum(Operator):
    """NaN, +inf and -inf replaced (by 0 and the dtype's largest and lowest values by default)."""

    def __init__(self, nan=None, posinf=None, neginf=None):
        args = {k: None if v is None else check_float("NanToNum", k, v)
                for k, v in (("nan", nan), ("posinf", posinf), ("neginf", neginf))}
        super().__init__(**args)

    def __call__(self, x):
        return M.nan_to_num(x, 0.0 if self.nan is None else self.nan, self.posinf, self.neginf)


class _Shrink(Operator):
    _fn = None

    def __init__(self, lambd=0.5):
        super().__init__(lambd=check_float(self.name, "lambd", lambd, minimum=0.0))

    def __call__(self, input_x):
        return type(self)._fn(input_x, self.lambd)


@_export
class HShrink(_Shrink):
    """x where |x| > lambd, else 0."""
    _fn = staticmethod(A.hardshrink)


@_export
class SoftShrink(_Shrink):
    """x - lambd above lambd, x + lambd below -lambd, else 0."""
    _fn = staticmethod(A.softshrink)


@_export
class CeLU(Operator):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""

    def __init__(self, alpha=1.0):
        alpha = check_float("CeLU", "alpha", alpha)
        if alpha == 0.0:
            raise ValueError("For 'CeLU', the 'alpha' can not be equal to zero.")
        super().__init__(alpha=alpha)

    def __call__(self, input_x):
        return A.celu(input_x, self.alpha)


@_export
class GLU(Operator):
    """a * sigmoid(b), a and b the two halves of x along `axis`."""

    def __init__(self, axis=-1):
        super().__init__(axis=check_int("GLU", "axis", axis))

    def __call__(self, x):
        return A.glu(x, self.axis)


@_export
class SquareSumAll(Operator):
    """(sum(x ** 2), sum(y ** 2)), two 0-d tensors."""

    def __call__(self, x, y):
        x, y = F.as_tensor(x), F.as_tensor(y)
        return F.reduce_sum(F.square(x)), F.reduce_sum(F.square(y))


@_export
class EqualCount(Operator):
    """The number of equal elements of x and y, as a 1-element tensor of their dtype."""

    def __call__(self, x, y):
        x, y = F._pair(x, y)
        return F.reshape(F.reduce_sum(F.cast(F.equal(x, y), x.dtype)), (1,))


# == norms and distances =======================================================================

@_export
class Cdist(Operator):
    """The p-norm distances between the rows of x1 and x2 (batched)."""

    def __init__(self, p=2.0):
        super().__init__(p=check_float("Cdist", "p", p, minimum=0.0))

    def __call__(self, input_x, input_y):
        return LO.cdist(input_x, input_y, self.p)


@_export
class Pdist(Operator):
    """The p-norm distances between every pair of rows of x, the upper triangle as a vector."""

    def __init__(self, p=2.0):
        super().__init__(p=check_float("Pdist", "p", p, minimum=0.0))

    def __call__(self, x):
        return LO.pdist(x, self.p)


@_export
class LpNorm(Operator):
    """The p-norm over `axis` (an int or a list of ints). `epsilon` is recorded; the values
    are the plain norm, as MindSpore's forward."""

    def __init__(self, axis, p=2, keep_dims=False, epsilon=1e-12):
        super().__init__(axis=static_ints("LpNorm", "axis", axis), p=check_int("LpNorm", "p", p, minimum=0),
                         keep_dims=check_bool("LpNorm", "keep_dims", keep_dims),
                         epsilon=check_float("LpNorm", "epsilon", epsilon))

    def __call__(self, input):  # noqa: A002 - MindSpore's names
        return LO.vector_norm(input, self.p, self.axis, self.keep_dims)


@_export
class EuclideanNorm(Operator):
    """The 2-norm over the axes given to the call (no CPU kernel in MindSpore 2.10)."""

    def __init__(self, keep_dims=False):
        super().__init__(keep_dims=check_bool("EuclideanNorm", "keep_dims", keep_dims))

    def __call__(self, x, axes):
        return LO.vector_norm(x, 2, static_ints("EuclideanNorm", "axes", axes), self.keep_dims)


@_export
class NuclearNorm(Operator):
    """The sum of the singular values of the matrices in axes `dim` (None: a 2-D input's)."""

    def __init__(self, dim=None, keepdim=False):
        dims = None if dim is None else static_ints("NuclearNorm", "dim", dim)
        if dims is not None and len(dims) != 2:
            raise ValueError(f"For 'NuclearNorm', 'dim' must name two axes, but got {dim!r}.")
        super().__init__(dim=dims, keepdim=check_bool("NuclearNorm", "keepdim", keepdim))

    def __call__(self, x):
        x = F.as_tensor(x)
        if self.dim is None and x.ndim != 2:
            raise ValueError(f"For 'NuclearNorm', a {x.ndim}-D input needs 'dim', the two matrix axes.")
        return CP.norm(x, "nuc", self.dim or (0, 1), self.keepdim)


@_export
class Renorm(Operator):
    """Each slice along `dim` whose p-norm exceeds maxnorm scaled down to maxnorm."""

    def __init__(self, p, dim, maxnorm):
        super().__init__(p=check_int("Renorm", "p", p, minimum=1), dim=check_int("Renorm", "dim", dim),
                         maxnorm=check_float("Renorm", "maxnorm", maxnorm, minimum=0.0))

    def __call__(self, x):
        return LO.renorm(x, self.p, self.dim, self.maxnorm)


# == statistics ================================================================================

@_export
class ReduceStd(Operator):
    """(standard deviation, mean) over `axis` ([] every axis), unbiased by default."""

    def __init__(self, axis=[], unbiased=True, keep_dims=False):  # noqa: B006 - MindSpore's default
        empty = isinstance(axis, (tuple, list)) and not axis
        super().__init__(axis=() if empty else static_ints("ReduceStd", "axis", axis),
                         unbiased=check_bool("ReduceStd", "unbiased", unbiased),
                         keep_dims=check_bool("ReduceStd", "keep_dims", keep_dims))

    def __call__(self, input_x):
        x = F.as_tensor(input_x)
        axes = self.axis if self.axis else tuple(range(x.ndim))
        return CP.std_mean(x, axes, 1 if self.unbiased else 0, self.keep_dims)


@_export
class Median(Operator):
    """(lower median, its int64 index) along `axis`; with global_median the median of every
    element and a 0 index (MindSpore 2.10 on CPU, measured); ignore_nan leaves NaNs out."""

    def __init__(self, global_median=False, axis=0, keep_dims=False, ignore_nan=False):
        super().__init__(global_median=check_bool("Median", "global_median", global_median),
                         axis=check_int("Median", "axis", axis), keep_dims=check_bool("Median", "keep_dims", keep_dims),
                         ignore_nan=check_bool("Median", "ignore_nan", ignore_nan))

    def __call__(self, x):
        x = F.as_tensor(x)
        median = _nan_median if self.ignore_nan and x.dtype.is_floating else AO.median
        if self.global_median:
            value, _ = median(F.reshape(x, (-1,)), 0)
            return value, F.zeros((), mstype.int64)
        return median(x, self.axis, self.keep_dims)


def _nan_median(x: Tensor, axis: int, keep_dims: bool = False):
    """(the lower median of the non-NaN elements along `axis`, its int64 index); NaN where
    all are NaN."""
    axis = F._axis(axis, x.ndim)
    values, index = sorting.sort(x, axis)   # stable, NaN last
    valid = F.reduce_sum(F.cast(F.logical_not(CP.isnan(x)), mstype.int32), axis, True)
    pos = F.floor_div(F.maximum(F.sub(valid, 1), 0), 2)
    out_v, out_i = AO._sorted_pick(values, axis, pos), F.cast(AO._sorted_pick(index, axis, pos), mstype.int64)
    if not keep_dims:
        out_v, out_i = F.squeeze(out_v, axis), F.squeeze(out_i, axis)
    return out_v, out_i


@_export
class Quantile(Operator):
    """The q-th quantiles over `dim` (None: every element), linear interpolation; ignore_nan
    skips NaNs (no CPU kernel in MindSpore 2.10; its documentation's semantics)."""

    def __init__(self, dim=None, keep_dims=False, ignore_nan=False):
        super().__init__(dim=None if dim is None else check_int("Quantile", "dim", dim),
                         keep_dims=check_bool("Quantile", "keep_dims", keep_dims),
                         ignore_nan=check_bool("Quantile", "ignore_nan", ignore_nan))

    def __call__(self, input, q):  # noqa: A002
        fn = AO.nanquantile if self.ignore_nan else AO.quantile
        return fn(input, q, self.dim, self.keep_dims)


@_export
class CountNonZero(Operator):
    """The int32 count of non-zero elements over `dims` (None: every axis). (MindSpore 2.10's
    CPU build cannot call it; its documentation's semantics.)"""

    def __init__(self, dims=None):
        super().__init__(dims=None if dims is None else static_ints("CountNonZero", "dims", dims))

    def __call__(self, x):
        return CP.count_nonzero(x, () if self.dims is None else self.dims)


class _CumExtreme(Operator):
    _fn = None

    def __init__(self, axis):
        super().__init__(axis=check_int(self.name, "axis", axis))

    def __call__(self, input):  # noqa: A002
        return type(self)._fn(input, self.axis)


@_export
class Cummax(_CumExtreme):
    """(running maxima, their int64 indices) along `axis`."""
    _fn = staticmethod(AO.cummax)


@_export
class Cummin(_CumExtreme):
    """(running minima, their int32 indices: 2.10 differs from Cummax here) along `axis`."""
    _fn = staticmethod(AO.cummin)


@_export
class CumulativeLogsumexp(Operator):
    """log(cumsum(exp(x))) along the axis given to the call (a 0-d integer Tensor or an int);
    `exclusive` leaves each element out of its own sum (the first is then the dtype's lowest
    finite value, as MindSpore's kernel), `reverse` runs from the end."""

    def __init__(self, exclusive=False, reverse=False):
        super().__init__(exclusive=check_bool("CumulativeLogsumexp", "exclusive", exclusive),
                         reverse=check_bool("CumulativeLogsumexp", "reverse", reverse))

    def __call__(self, x, axis):
        x = F.as_tensor(x)
        axis = F._axis(check_call_int("CumulativeLogsumexp", "axis", axis), x.ndim)
        if self.reverse:
            x = CP.flip(x, (axis,))
        if self.exclusive:
            n = x.shape[axis]
            pads = [(0, 0)] * x.ndim
            pads[axis] = (1, 0)
            lowest = float(np.finfo(x.dtype.np_dtype).min)
            x = F.slice_axis(F.pad(x, pads, value=lowest), axis, 0, n)
        out = AO.logcumsumexp(x, axis)
        return CP.flip(out, (axis,)) if self.reverse else out


# == counting and searching ====================================================================

@_export
class Histogram(Operator):
    """Counts of x's elements in `bins` equal bins over [min, max] (the data's range when equal)."""

    def __init__(self, bins=100, min=0.0, max=0.0):  # noqa: A002
        lo, hi = check_float("Histogram", "min", min), check_float("Histogram", "max", max)
        if lo > hi:
            raise ValueError(f"For 'Histogram', attr 'min' value should not be greater than attr 'max'. but get attr "
                             f"min={lo} and attr max={hi}.")
        super().__init__(bins=check_int("Histogram", "bins", bins, minimum=1), min=lo, max=hi)

    def __call__(self, x):
        return AO.histc(x, self.bins, self.min, self.max)


@_export
class Bincount(Operator):
    """The sums of `weights` (an empty Tensor: counts, in float32) at each value 0 .. size - 1
    of the integer `array`; values outside are not counted. `size` must be known (an int or a
    constant 0-d Tensor)."""

    def __call__(self, array, size, weights):
        x, w = F.as_tensor(array), F.as_tensor(weights)
        size = check_call_int("Bincount", "size", size)
        if size < 0:
            raise ValueError(f"For 'Bincount', 'size' must be non-negative, but got {size}.")
        hits = F.equal(F.expand_dims(x, -1), Tensor(np.arange(size), x.dtype))
        if w.size == 0:
            counts = F.cast(hits, w.dtype if w.dtype.is_floating else mstype.float32)
        else:
            counts = F.mul(F.cast(hits, w.dtype), F.expand_dims(w, -1))
        return F.reduce_sum(counts, tuple(range(x.ndim)))


@_export
class Bucketize(Operator):
    """The number of `boundaries` (sorted floats) at or below each element, int32: 0.0 with
    boundaries [0.0, 1.0] gives 1 (measured; torch's right=True)."""

    def __init__(self, boundaries):
        if not isinstance(boundaries, list) or not all(isinstance(b, (int, float)) for b in boundaries):
            raise TypeError(f"For 'Bucketize', the type of 'boundaries' should be 'list' of floats, but got "
                            f"{boundaries!r}.")
        super().__init__(boundaries=[float(b) for b in boundaries])

    def __call__(self, input):  # noqa: A002
        return F.cast(AO.bucketize(input, self.boundaries, right=True), mstype.int32)


@_export
class SearchSorted(Operator):
    """For each value, its insertion index in the last axis of `sorted_sequence`; `right`
    after equal elements; int64 or int32 by `dtype`."""

    def __init__(self, dtype=mstype.int64, right=False):
        super().__init__(dtype=check_dtype("SearchSorted", "dtype", dtype, (mstype.int32, mstype.int64)),
                         right=check_bool("SearchSorted", "right", right))

    def __call__(self, sorted_sequence, values, sorter=None):
        return AO.searchsorted(sorted_sequence, values, out_int32=self.dtype is mstype.int32, right=self.right,
                               sorter=sorter)


class _Bound(Operator):
    _right = False

    def __init__(self, out_type=mstype.int32):
        super().__init__(out_type=check_dtype(self.name, "out_type", out_type, (mstype.int32, mstype.int64)))

    def __call__(self, sorted_x, values):
        out = AO.searchsorted(sorted_x, values, right=self._right)
        return F.cast(out, self.out_type)


@_export
class LowerBound(_Bound):
    """For each row of values, the first index of the row of sorted_x not below it."""


@_export
class UpperBound(_Bound):
    """For each row of values, the first index of the row of sorted_x above it."""
    _right = True


@_export
class LogSpace(Operator):
    """`steps` values base ** t for t evenly spaced from start to end (0-d Tensors)."""

    def __init__(self, steps=10, base=10, dtype=mstype.float32):
        super().__init__(steps=check_int("LogSpace", "steps", steps, minimum=0),
                         base=check_int("LogSpace", "base", base, minimum=0),
                         dtype=check_dtype("LogSpace", "dtype", dtype,
                                           (mstype.float16, mstype.float32, mstype.float64)))

    def __call__(self, start, end):
        return AO.logspace(start, end, self.steps, self.base, dtype=self.dtype)


@_export
class Einsum(Operator):
    """Einstein summation of a tuple of Tensors by `equation` (MindSpore 2.10 runs it on GPU only)."""

    def __init__(self, equation):
        if not isinstance(equation, str):
            raise TypeError(f"For 'Einsum', the type of 'equation' should be 'str', but got type "
                            f"'{type(equation).__name__}'.")
        super().__init__(equation=equation.replace(" ", ""))

    def __call__(self, x):
        if not isinstance(x, (tuple, list)):
            raise TypeError(f"For 'Einsum', the input must be a tuple or list of Tensors, but got {type(x).__name__}.")
        return LO.einsum(self.equation, *x)


@_export
class InvertPermutation(Operator):
    """The inverse of a permutation given as a tuple or list of ints: y[x[i]] = i, a tuple
    (MindSpore 2.10 takes no Tensor here: measured)."""

    def __call__(self, input_x):
        if isinstance(input_x, Tensor):
            raise ValueError(f"For 'InvertPermutation', the value of 'input_x' must be non-Tensor, but got "
                             f"Tensor[{input_x.dtype}]")
        if not isinstance(input_x, (tuple, list)) or not all(is_int(v) for v in input_x) or \
                sorted(input_x) != list(range(len(input_x))):
            raise ValueError(f"For 'InvertPermutation', the input must be a permutation of 0 .. n - 1, but got "
                             f"{input_x!r}.")
        out = [0] * len(input_x)
        for i, v in enumerate(input_x):
            out[v] = i
        return tuple(out)

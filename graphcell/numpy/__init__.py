"""graphcell.numpy: mindspore.numpy's numpy-style functions over Tensors (`import graphcell.numpy as mnp`).

Each function is written with graphcell's ops, so it runs eagerly and traces under jit, vmap and
grad, and exports to ONNX; those whose output shape depends on the values (unique, argwhere,
intersect1d, setdiff1d, bincount without `length`) run eagerly only, as ops.unique does. Where
mindspore.numpy differs from numpy (Int32 for Python ints, argmin's Int32, an integer mean
truncated to the input's dtype, Float32 histograms), graphcell follows MindSpore 2.10 as measured
by tools/mindspore_numpy_cases.py. `graphcell.numpy.fft` is mindspore.numpy.fft (numpy's names over ops' FFTs).

Random draws use numpy's global legacy generator, which `graphcell.set_seed` seeds, so a
seeded script is reproducible (the values differ from MindSpore's own StandardNormal op).

Modules by family: creation, manipulation, math, logic, statistics, linalg, polynomial
(differences, calculus, convolution, polynomials), histograms, data_dependent.
"""
from __future__ import annotations

import math as _math

from .. import dtype as _mstype
from ..dtype import (bool_, float16, float32, float64, int8, int16, int32, int64, uint8, uint16,  # noqa: F401
                     uint32, uint64)
from .creation import (arange, array, asarray, asfarray, bartlett, blackman, copy, diag, diag_indices,  # noqa: F401
                       diagflat, diagonal, empty, empty_like, eye, full, full_like, geomspace, hamming,
                       hanning, identity, indices, ix_, linspace, logspace, meshgrid, mgrid, ogrid, ones,
                       ones_like, rand, randint, randn, tri, tril, tril_indices, tril_indices_from, triu,
                       triu_indices, triu_indices_from, zeros, zeros_like)
from . import fft  # noqa: F401,E402 - mindspore.numpy.fft
from .data_dependent import argwhere, array_str, intersect1d, setdiff1d, unique  # noqa: F401
from .histograms import (bincount, digitize, histogram, histogram2d, histogram_bin_edges,  # noqa: F401
                         histogramdd, searchsorted)
from .linalg import (corrcoef, cov, cross, dot, inner, kron, matmul, matrix_power, multi_dot, norm,  # noqa: F401
                     outer, tensordot, vander)
from .logic import (array_equal, array_equiv, equal, greater, greater_equal, in1d, isclose, isin,  # noqa: F401
                    isscalar, less, less_equal, logical_and, logical_not, logical_or, logical_xor,
                    not_equal, promote_types, result_type)
from .manipulation import (append, apply_along_axis, apply_over_axes, array_split, atleast_1d,  # noqa: F401
                           atleast_2d, atleast_3d, broadcast_arrays, broadcast_to, choose, column_stack,
                           concatenate, dsplit, dstack, expand_dims, flip, fliplr, flipud, hsplit, hstack,
                           moveaxis, pad, piecewise, ravel, ravel_multi_index, repeat, reshape, roll,
                           rollaxis, rot90, select, split, squeeze, stack, swapaxes, take, take_along_axis,
                           tile, transpose, unravel_index, vsplit, vstack, where)
from .math import (abs, absolute, add, arccos, arccosh, arcsin, arcsinh, arctan, arctan2,  # noqa: F401,A004
                   arctanh, around, bitwise_and, bitwise_not, bitwise_or, bitwise_xor, cbrt, ceil, clip,
                   copysign, cos, cosh, deg2rad, divide, divmod, exp, exp2, expm1, fabs, fix, float_power,
                   floor, floor_divide, fmod, gcd, heaviside, hypot, invert, isfinite, isinf, isnan,
                   isneginf, isposinf, lcm, log, log1p, log2, log10, logaddexp, logaddexp2, maximum,
                   minimum, mod, multiply, negative, positive, power, rad2deg, radians, reciprocal,
                   remainder, rint, round, sign, signbit, sin, sinh, sqrt, square, subtract, tan, tanh,
                   true_divide, trunc)
from .polynomial import (convolve, correlate, diff, ediff1d, gradient, interp, polyadd, polyder,  # noqa: F401
                         polyint, polymul, polysub, polyval, trapz, unwrap)
from .statistics import (amax, amin, argmax, argmin, average, count_nonzero, cumprod, cumsum, max,  # noqa: F401,A004
                         mean, min, nancumsum, nanmax, nanmean, nanmin, nanstd, nansum, nanvar, ptp,
                         size, sometrue, std, sum, trace, var)

# mindspore.numpy's dtype names: its int_ is Int32 and uint UInt32 (graphcell.dtype's int_ is Int64)
int_ = _mstype.int32
uint = _mstype.uint32
float_ = _mstype.float32
numeric_types = ["int_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float_",
                 "float16", "float32", "float64", "bool_"]

pi = _math.pi
inf = _math.inf
nan = _math.nan
PINF = _math.inf
NINF = -_math.inf

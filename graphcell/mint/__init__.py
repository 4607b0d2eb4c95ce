"""mindspore.mint: MindSpore's PyTorch-style API (`dim`, `keepdim`, `input` names), over
graphcell's ops. Every function here composes graphcell.ops, so jit, grad, vmap and ONNX
export work as they do for the ops themselves.

The top-level functions live in modules by job: math (elementwise), reductions (reductions
and scans), shape (layout), indexing (gathers, scatters, sorts), matrix (products and matrix
functions), creation (constructors), random (draws); mint.linalg and mint.special are their
own modules."""
from .creation import (  # noqa: F401
    arange, empty, empty_like, eye, full, full_like, linspace, ones, ones_like, zeros, zeros_like)
from .indexing import (  # noqa: F401
    argsort, gather, index_add, index_select, masked_select, nonzero, scatter, scatter_add, searchsorted, sort, take,
    topk, unique, unique_consecutive, where)
from .math import (  # noqa: F401
    abs, acos, acosh, add, addcdiv, addcmul, allclose, arccos, arccosh, arcsin, arcsinh, arctan, arctan2, arctanh, asin,
    asinh, atan, atan2, atanh, bitwise_and, bitwise_not, bitwise_or, bitwise_xor, ceil, clamp, clip, cos, cosh, div,
    divide, eq, equal, erf, erfc, erfinv, exp, exp2, expm1, fix, float_power, floor, floor_divide, fmod, frac, gcd, ge,
    greater, greater_equal, gt, imag, isclose, isfinite, isinf, isnan, isneginf, le, lerp, less, less_equal, log,
    log10, log1p, log2, logaddexp, logaddexp2, logical_and, logical_not, logical_or, logical_xor, lt, maximum, minimum,
    mul, nan_to_num, ne, neg, negative, not_equal, polar, pow, real, reciprocal, remainder, round, rsqrt, sigmoid,
    sign, sin, sinc, sinh, softmax, softmax_ext, sqrt, square, sub, tan, tanh, trunc, xlogy)
from .matrix import (  # noqa: F401
    addbmm, addmm, addmv, addr_, baddbmm, bmm, cdist, cdist_, cross, diag, dot, einsum, inverse, matmul, mm, mv,
    outer, trace, triangular_solve, vdot)
from .random import (  # noqa: F401
    bernoulli, multinomial, normal, rand, rand_like, randint, randint_like, randn, randn_like, randperm)
from .reductions import (  # noqa: F401
    all, amax, amin, any, argmax, argmin, bincount, count_nonzero, cummax, cummin, cumprod, cumsum, diff, histc,
    kthvalue, logsumexp, max, mean, median, min, nansum, norm, prod, std, std_mean, sum, var, var_mean)
from .shape import (  # noqa: F401
    broadcast_to, cat, chunk, clone, concat, dstack, flatten, flatten_ext, flip, hstack, item, meshgrid, narrow, permute,
    ravel, repeat_interleave, reshape, roll, select, split, squeeze, stack, swapaxes, t, tile, transpose, tril, triu, unbind,
    unsqueeze)
from .convolution import conv2d, conv_tbc  # noqa: F401
from . import linalg, special  # noqa: F401
from .batch_norm_stats import batch_norm_elemt, batch_norm_gather_stats_with_counts, batch_norm_stats  # noqa: F401
from . import distributed, nn, optim  # noqa: E402,F401

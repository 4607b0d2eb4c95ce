"""MindSpore 2.10's remaining random operators, composed of graphcell's uniform and normal draws
(so they run eagerly, under jit and vmap, and export to ONNX): TruncatedNormal,
ParameterizedTruncatedNormal, Cauchy, LogNormalReverse, RandomChoiceWithMask /
choice_with_mask, RandpermV2, MultinomialWithReplacement / multinomial_with_replacement,
UniformCandidateSampler / uniform_candidate_sampler, LogUniformCandidateSampler /
log_uniform_candidate_sampler and Gamma.

As in random_draws.py, the numbers are graphcell's (MindSpore's Philox streams are not
reproduced), the distributions, shapes, dtypes and errors are 2.10's (measured on its CPU build,
tests/test_random_ops_more.py). Seeds: seed = seed2 = 0 draws from graphcell's global
generator, any other seed gives the same numbers on every call.

The candidate samplers draw with replacement until `num_sampled` distinct classes are found
when `unique` (TensorFlow's rule, which 2.10 follows: the expected counts use the number of
tries). That loop has a data-dependent length; its outcome has a closed form used here instead:
the distinct classes in the order found are a Plackett-Luce draw (the Gumbel top-k of the class
log-probabilities), and between the i-th and (i+1)-th new class the tries are geometric with
success probability 1 - (the probability of the i classes found), independently.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from . import functional as F
from . import math_ops as M
from . import random_draws as RD
from .math_classes import static_ints
from .op_base import Operator, check_bool, check_dtype, check_float, check_int, check_positive_int, exporter
from .sorting import argsort, cumsum, topk

__all__ = ["choice_with_mask", "multinomial_with_replacement", "uniform_candidate_sampler",
           "log_uniform_candidate_sampler"]
CLASSES: list[str] = []
_export = exporter(CLASSES)

_FLOATS = (mstype.float16, mstype.float32, mstype.float64)


def _seed(seed, seed2=0):
    """None (the global generator) for seed = seed2 = 0, else one seed of both."""
    seed, seed2 = int(seed), int(seed2)
    return None if not (seed or seed2) else (seed << 32) | seed2


def _split_seed(seed, i):
    """A different seed for the i-th draw of one op (None stays None: the global generator
    advances between draws anyway)."""
    return None if seed is None else seed * 7919 + i


# -- truncated normal ----------------------------------------------------------------------------

def _normal_cdf(x):
    return F.mul(F.add(F.erf(F.mul(x, 1.0 / math.sqrt(2.0))), 1.0), 0.5)


def _truncated_standard_normal(shape, low, high, seed):
    """N(0, 1) draws of `shape` conditioned on [low, high] (broadcastable float Tensors or
    numbers), by the inverse CDF in float64; intervals right of 0 are mirrored to the left, where
    the CDF keeps its digits (down to about -37 standard deviations)."""
    low, high = F.as_tensor(low, mstype.float64), F.as_tensor(high, mstype.float64)
    mirror = F.greater(F.add(low, high), 0.0)
    lo, hi = F.select(mirror, F.neg(high), low), F.select(mirror, F.neg(low), high)
    c_lo, c_hi = _normal_cdf(lo), _normal_cdf(hi)
    u = F.cast(RD._open_uniform(shape, seed), mstype.float64)
    p = F.add(c_lo, F.mul(u, F.sub(c_hi, c_lo)))
    z = F.mul(M.erfinv(F.sub(F.mul(p, 2.0), 1.0)), math.sqrt(2.0))
    z = F.minimum(F.maximum(z, lo), hi)  # the last ulps of erfinv stay inside the interval
    return F.select(mirror, F.neg(z), z)


def _shape_tensor(op: str, shape) -> tuple:
    if not isinstance(shape, Tensor):
        raise TypeError(f"For Primitive[{op}], the type of input argument[shape] must be Tensor but got "
                        f"{type(shape).__name__}.")
    if shape.dtype not in (mstype.int32, mstype.int64):
        raise TypeError(f"For primitive[{op}], the input argument[shape] must be a type of "
                        f"{{Tensor[Int32], Tensor[Int64]}}, but got Tensor[{shape.dtype}].")
    return static_ints(op, "shape", shape)


@_export
class TruncatedNormal(Operator):
    """N(0, 1) draws truncated to [-2, 2], of the shape given as an int Tensor, of `dtype`."""

    def __init__(self, dtype=mstype.float32, seed=0, seed2=0):
        super().__init__(dtype=check_dtype("TruncatedNormal", "dtype", dtype, _FLOATS),
                         seed=check_int("TruncatedNormal", "seed", seed, minimum=0),
                         seed2=check_int("TruncatedNormal", "seed2", seed2, minimum=0))

    def __call__(self, shape):
        dims = _shape_tensor("TruncatedNormal", shape)
        if len(dims) < 2:  # 2.10's check (measured): a 1-D shape [n] is refused
            raise ValueError(f"For 'TruncatedNormal', the input tensor shape must >= 2, but got {len(dims)}")
        z = _truncated_standard_normal(dims, -2.0, 2.0, _seed(self.seed, self.seed2))
        return F.cast(z, self.dtype)


@_export
class ParameterizedTruncatedNormal(Operator):
    """Normal draws of `shape` ([batch, ...]) with mean, stdev, min and max per batch row (each
    0-d, [1] or [batch]), truncated to [min, max]; in the parameters' dtype. (2.10's CPU kernel
    uses the first element of each parameter for every row, measured; graphcell follows the
    documented per-row rule.)"""

    def __init__(self, seed=0, seed2=0):
        super().__init__(seed=check_int("ParameterizedTruncatedNormal", "seed", seed, minimum=0),
                         seed2=check_int("ParameterizedTruncatedNormal", "seed2", seed2, minimum=0))

    def __call__(self, shape, mean, stdevs, min, max):  # noqa: A002 - MindSpore's names
        op = "ParameterizedTruncatedNormal"
        dims = _shape_tensor(op, shape)
        params = [F.as_tensor(p) for p in (mean, stdevs, min, max)]
        if any(p.dtype != params[0].dtype for p in params) or params[0].dtype not in _FLOATS:
            raise TypeError(f"For primitive[{op}], the input type must be same.")
        batch = dims[0] if dims else 1
        rows = []
        for name, p in zip(("mean", "stdevs", "min", "max"), params):
            if p.ndim > 1 or (p.ndim == 1 and p.shape[0] not in (1, batch)):
                raise ValueError(f"For {op}, {name} must be 0d, or {name}.shape = ({batch}, ), but got "
                                 f"{tuple(p.shape)}.")
            rows.append(F.reshape(F.cast(p, mstype.float64), (-1,) + (1,) * (len(dims) - 1)))
        mu, sigma, low, high = rows
        z = _truncated_standard_normal(dims, F.div(F.sub(low, mu), sigma), F.div(F.sub(high, mu), sigma),
                                       _seed(self.seed, self.seed2))
        return F.cast(F.add(F.mul(z, sigma), mu), params[0].dtype)


# -- Cauchy, log-normal ------------------------------------------------------------------------------

@_export
class Cauchy(Operator):
    """float32 Cauchy(median, sigma) draws of the shape `size` (a list)."""

    def __init__(self, size, median=0.0, sigma=1.0):
        if not isinstance(size, list):
            raise TypeError(f"For 'Cauchy', the type of 'size' should be 'list', but got type '{type(size).__name__}'.")
        for arg, value in (("median", median), ("sigma", sigma)):
            if not isinstance(value, float):
                raise TypeError(f"For 'Cauchy', the type of '{arg}' should be 'float', but got type "
                                f"'{type(value).__name__}'.")
        super().__init__(size=[check_positive_int("Cauchy", "size", d) for d in size], median=median, sigma=sigma)

    def __call__(self):
        u = RD._open_uniform(tuple(self.size), None)
        return F.add(F.mul(M.tan(F.mul(F.sub(u, 0.5), math.pi)), self.sigma), self.median)


@_export
class LogNormalReverse(Operator):
    """exp(mean + std * N(0, 1)) draws of x's shape and dtype (x's values are not read)."""

    def __init__(self, mean=1.0, std=2.0):
        super().__init__(mean=check_float("LogNormalReverse", "mean", mean),
                         std=check_float("LogNormalReverse", "std", std))

    def __call__(self, input):  # noqa: A002
        x = F.as_tensor(input)
        if x.dtype not in _FLOATS:
            raise TypeError("For primitive[LogNormalReverse], the input argument[x] must be a type of {Tensor[Float16], "
                            f"Tensor[Float32], Tensor[Float64]}}, but got Tensor[{x.dtype}].")
        z = F.normal(x.shape, self.mean, self.std, dtype=mstype.float32)
        return F.cast(F.exp(z), x.dtype)


# -- choice_with_mask ------------------------------------------------------------------------------

def choice_with_mask(input_x, count=256, seed=None):
    """Up to `count` positions of True in the bool `input_x` (rank 1 to 5), in random order:
    (int32 index [count, rank], bool mask [count]); rows past the number of Trues are zeros with
    mask False (2.10's layout, measured)."""
    x = F.as_tensor(input_x)
    if x.dtype != mstype.bool_:
        raise TypeError("For primitive[RandomChoiceWithMask], the input argument[input_x] must be a type of "
                        f"{{Tensor[Bool]}}, but got Tensor[{x.dtype}].")
    if not 1 <= x.ndim <= 5:
        raise ValueError(f"For 'RandomChoiceWithMask', input[0] rank should be between 1 and 5, but got:{x.ndim}")
    count = check_positive_int("RandomChoiceWithMask", "count", count)
    n = int(np.prod(x.shape))
    # a random order of the Trues: uniform scores in [0, 1) for them, -1 for the Falses
    scores = F.select(F.reshape(x, (-1,)), F.uniform((n,), seed=seed), -1.0)
    k = min(count, n)
    values, flat = topk(scores, k)
    chosen = F.greater_equal(values, 0.0)
    flat = F.select(chosen, F.cast(flat, mstype.int32), 0)
    coords, rest = [], flat
    for stride in [int(np.prod(x.shape[i + 1:])) for i in range(x.ndim)]:
        coords.append(F.floor_div(rest, stride))
        rest = F.sub(rest, F.mul(coords[-1], stride))
    index = F.stack(coords, 1)
    if k < count:
        index = F.concat((index, F.zeros((count - k, x.ndim), mstype.int32)), 0)
        chosen = F.concat((chosen, F.zeros((count - k,), mstype.bool_)), 0)
    return index, chosen


@_export
class RandomChoiceWithMask(Operator):
    """`choice_with_mask` with count and seeds given to the constructor."""

    def __init__(self, count=256, seed=0, seed2=0):
        super().__init__(count=check_positive_int("RandomChoiceWithMask", "count", count),
                         seed=check_int("RandomChoiceWithMask", "seed", seed, minimum=0),
                         seed2=check_int("RandomChoiceWithMask", "seed2", seed2, minimum=0))

    def __call__(self, input_x):
        return choice_with_mask(input_x, self.count, _seed(self.seed, self.seed2))


# -- RandpermV2 ------------------------------------------------------------------------------------

@_export
class RandpermV2(Operator):
    """A random permutation of 0 .. n-1 of `dtype` (ints or floats); n given to the call."""

    def __init__(self, seed=0, offset=0, dtype=mstype.int64):
        super().__init__(seed=check_int("RandpermV2", "seed", seed, minimum=0),
                         offset=check_int("RandpermV2", "offset", offset, minimum=0),
                         dtype=check_dtype("RandpermV2", "dtype", dtype))

    def __call__(self, n):
        if isinstance(n, Tensor):
            n = int(n.asnumpy())
        if self.dtype.is_integer and n > 0 and n - 1 > np.iinfo(self.dtype.np_dtype).max:
            # 2.10's message, its spelling kept
            raise ValueError(f"For 'RandpermV2', the value of 'n' is {n}, it's too lagrge for input 'dtype'. ")
        return RD.randperm(n, _seed(self.seed, self.offset) or 0, 0, self.dtype)


# -- multinomial_with_replacement ---------------------------------------------------------------------

def multinomial_with_replacement(x, seed, offset, numsamples, replacement=False):
    """numsamples int64 class indices per row of the non-negative float weights `x` (1-D or 2-D);
    seed = offset = 0 draws from the global generator."""
    op = "MultinomialWithReplacement"
    w = F.as_tensor(x)
    if w.dtype not in _FLOATS:
        raise TypeError(f"For primitive[{op}], the input argument[x_dtype] must be a type of {{Tensor[Float16], "
                        f"Tensor[Float32], Tensor[Float64]}}, but got Tensor[{w.dtype}].")
    numsamples = check_positive_int(op, "numsamples", numsamples)
    if not replacement and numsamples > w.shape[-1]:
        raise ValueError(f"For '{op}', the value of numsamples must equal or less than x_shape[-1], but got "
                         f"{numsamples}.")
    if not w.is_symbolic and np.any(w.asnumpy() < 0):
        raise ValueError(f"For '{op}' , each element of 'x' must be equal or greater than 0. ")
    seed, offset = (int(v.asnumpy()) if isinstance(v, Tensor) else int(v) for v in (seed, offset))
    out = RD.multinomial(w, numsamples, bool(replacement), _seed(seed, offset))
    return F.cast(out, mstype.int64)


@_export
class MultinomialWithReplacement(Operator):
    """`multinomial_with_replacement` with numsamples and replacement given to the constructor,
    the seed and offset to the call."""

    def __init__(self, numsamples, replacement=False):
        super().__init__(numsamples=check_positive_int("MultinomialWithReplacement", "numsamples", numsamples),
                         replacement=check_bool("MultinomialWithReplacement", "replacement", replacement))

    def __call__(self, x, seed, offset):
        return multinomial_with_replacement(x, seed, offset, self.numsamples, self.replacement)


# -- candidate samplers ----------------------------------------------------------------------------------

def _sample_candidates(log_p, num_sampled: int, unique: bool, seed):
    """(candidates int32 [num_sampled], tries float32 scalar) for class log-probabilities log_p
    [range_max] (see the module's note)."""
    p = F.exp(log_p)
    if not unique:
        picks = RD._gumbel_scores(F.expand_dims(log_p, 0), num_sampled, seed)
        return F.cast(F.reshape(F.argmax(picks, -1), (num_sampled,)), mstype.int32), None
    scores = F.squeeze(RD._gumbel_scores(F.expand_dims(log_p, 0), 1, seed), 1)
    picks = F.cast(F.reshape(topk(scores, num_sampled)[1], (num_sampled,)), mstype.int32)
    found = F.sub(cumsum(F.gather(p, picks, 0), 0), F.gather(p, picks, 0))  # probability found before each
    success = F.maximum(F.sub(1.0, found), 1e-30)
    u = RD._open_uniform((num_sampled,), _split_seed(seed, 1))
    # Geometric(success) on {1, 2, ...}: 1 + floor(log(u) / log(1 - success)); 1 where success is 1
    fails = F.floor(F.div(F.log(u), F.log(F.maximum(F.sub(1.0, success), 1e-30))))
    tries = F.reduce_sum(F.add(F.maximum(fails, 0.0), 1.0))
    return picks, tries


def _expected(p, num_sampled: int, tries):
    if tries is None:
        return F.mul(p, float(num_sampled))
    return F.neg(F.expm1(F.mul(tries, F.log1p(F.neg(p)))))


def _candidate_sampler(op, true_classes, num_true, num_sampled, unique, range_max, seed, log_p_of, dtypes):
    t = F.as_tensor(true_classes)
    if t.dtype not in dtypes:
        names = ", ".join(f"Tensor[{d}]" for d in dtypes)
        raise TypeError(f"For primitive[{op}], the input argument[true_classes] must be a type of {{{names}}}, "
                        f"but got Tensor[{t.dtype}].")
    if t.ndim != 2:
        raise ValueError(f"For primitive[{op}], the dimension of input must be equal to 2, but got {t.ndim}.")
    if t.shape[1] != num_true:
        raise ValueError(f"For primitive[{op}], the num_true must be equal to {t.shape[1]}, but got {num_true}.")
    classes = F.cast(F.arange(0, range_max, 1, dtype=mstype.float32), mstype.float32)
    log_p = log_p_of(classes)
    picks, tries = _sample_candidates(log_p, num_sampled, unique, seed)
    true_p = F.exp(log_p_of(F.cast(t, mstype.float32)))
    sampled_p = F.gather(F.exp(log_p), picks, 0)
    return (F.cast(picks, t.dtype), _expected(true_p, num_sampled, tries), _expected(sampled_p, num_sampled, tries))


def _check_sampler_args(op, num_true, num_sampled, unique, range_max, seed):
    num_true = check_positive_int(op, "num_true", num_true)
    num_sampled = check_positive_int(op, "num_sampled", num_sampled)
    range_max = check_positive_int(op, "range_max", range_max)
    unique = check_bool(op, "unique", unique)
    seed = check_int(op, "seed", seed, minimum=0)
    return num_true, num_sampled, unique, range_max, seed


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=0,
                              remove_accidental_hits=False):
    """num_sampled classes drawn uniformly from [0, range_max) (distinct when `unique`), with the
    expected counts of the true classes and of the sampled ones: (sampled_candidates
    [num_sampled] of true_classes' dtype, true_expected_count [batch, num_true] float32,
    sampled_expected_count [num_sampled] float32). `remove_accidental_hits` changes none of
    these outputs in 2.10 (measured) and is only checked."""
    op = "UniformCandidateSampler"
    num_true, num_sampled, unique, range_max, seed = _check_sampler_args(op, num_true, num_sampled, unique,
                                                                         range_max, seed)
    check_bool(op, "remove_accidental_hits", remove_accidental_hits)
    if unique and num_sampled > range_max:
        raise ValueError(f"For '{op}', the value of num_sampled should be <= value of range_max: {range_max}, but "
                         f"got {num_sampled}.")
    return _candidate_sampler(op, true_classes, num_true, num_sampled, unique, range_max, _seed(seed),
                              lambda c: F.add(F.mul(c, 0.0), -math.log(range_max)), (mstype.int32, mstype.int64))


def log_uniform_candidate_sampler(true_classes, num_true=1, num_sampled=5, unique=True, range_max=5, seed=0):
    """As uniform_candidate_sampler, with class c drawn with probability
    log((c + 2) / (c + 1)) / log(range_max + 1) (Zipf-like); true_classes int64."""
    op = "LogUniformCandidateSampler"
    num_true, num_sampled, unique, range_max, seed = _check_sampler_args(op, num_true, num_sampled, unique,
                                                                         range_max, seed)
    if unique and num_sampled > range_max:
        raise ValueError(f"For '{op}', the 'range_max' should be >= num_sampled: {num_sampled}, but got {range_max}.")
    norm = math.log(range_max + 1.0)

    def log_p(c):
        return F.log(F.div(F.log1p(F.div(1.0, F.add(c, 1.0))), norm))
    return _candidate_sampler(op, true_classes, num_true, num_sampled, unique, range_max, _seed(seed), log_p,
                              (mstype.int64,))


@_export
class UniformCandidateSampler(Operator):
    """`uniform_candidate_sampler` with its settings given to the constructor."""

    def __init__(self, num_true, num_sampled, unique, range_max, seed=0, remove_accidental_hits=False):
        args = _check_sampler_args("UniformCandidateSampler", num_true, num_sampled, unique, range_max, seed)
        super().__init__(num_true=args[0], num_sampled=args[1], unique=args[2], range_max=args[3], seed=args[4],
                         remove_accidental_hits=check_bool("UniformCandidateSampler", "remove_accidental_hits",
                                                           remove_accidental_hits))

    def __call__(self, true_classes):
        return uniform_candidate_sampler(true_classes, self.num_true, self.num_sampled, self.unique, self.range_max,
                                         self.seed, self.remove_accidental_hits)


@_export
class LogUniformCandidateSampler(Operator):
    """`log_uniform_candidate_sampler` with its settings given to the constructor."""

    def __init__(self, num_true=1, num_sampled=5, unique=True, range_max=5, seed=0):
        args = _check_sampler_args("LogUniformCandidateSampler", num_true, num_sampled, unique, range_max, seed)
        super().__init__(num_true=args[0], num_sampled=args[1], unique=args[2], range_max=args[3], seed=args[4])

    def __call__(self, true_classes):
        return log_uniform_candidate_sampler(true_classes, self.num_true, self.num_sampled, self.unique,
                                             self.range_max, self.seed)


# -- Gamma ---------------------------------------------------------------------------------------------

@_export
class Gamma(Operator):
    """float32 Gamma(alpha, rate beta) draws of `shape` broadcast with alpha's and beta's shapes
    (2.10's CPU build has no Gamma kernel: its documented behaviour)."""

    def __init__(self, seed=0, seed2=0):
        super().__init__(seed=check_int("Gamma", "seed", seed, minimum=0),
                         seed2=check_int("Gamma", "seed2", seed2, minimum=0))

    def __call__(self, shape, alpha, beta):
        return RD.gamma(static_ints("Gamma", "shape", shape), alpha, beta, _seed(self.seed, self.seed2))

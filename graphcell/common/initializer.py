"""Parameter initialisers that reproduce MindSpore 2.10 bit for bit, in pure numpy.

How MindSpore fills a parameter (see MINDSPORE_NOTES.md, section 0):

* ``set_seed(s)`` seeds numpy's *global legacy* RNG with ``np.random.seed(s)``.
* Every random initialiser draws ``seed = np.random.randint(1, 2**63, dtype=np.int64)``
  once per sampled tensor; Zero/One/Constant draw nothing.  So parameters come out
  reproducible as long as they are created in the same order.
* The values come from one Philox4x32-10 stream keyed by that seed, consumed in C order
  (:func:`philox4x32_10`), turned into numbers by the distributions below, computed in
  double precision and stored as float32.

Parity claims.  Uniform-based initialisers (Uniform, HeUniform, XavierUniform and the
'uniform' branch of VarianceScaling) are checked bit-exactly against MindSpore checkpoints
(tests/test_initializer.py).  Normal-based ones (Normal, HeNormal, XavierNormal) follow
the algorithm that the notes report bit-exact on ``nn.Embedding``; numpy's float64
``log``/``cos``/``sin`` may differ from the C library by an ulp, which after rounding to
float32 flips an element only very rarely.  TruncatedNormal follows MindSpore's
inverse-CDF algorithm on the same stream but with our own inverse normal CDF, so it agrees
to about float32 precision, not bitwise.  Orthogonal and Sparse also depend on numpy's
LAPACK / permutation and are not claimed bit-exact.
"""
from __future__ import annotations

import math
import numbers
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Type, Union

import numpy as np

__all__ = [
    "set_seed", "get_seed", "register_seed_hook", "draw_seed",
    "philox4x32_10", "uniform_from_words", "normal_from_words", "truncated_normal_from_words",
    "Initializer", "Zero", "One", "Constant", "Identity", "Dirac", "Uniform", "Normal",
    "TruncatedNormal", "HeUniform", "HeNormal", "XavierUniform", "XavierNormal",
    "VarianceScaling", "Orthogonal", "Sparse", "ArrayInitializer",
    "initializer_from", "initialize", "initializer",
]

_MASK32 = 0xFFFFFFFF

# --------------------------------------------------------------------------------------
# Global seed
# --------------------------------------------------------------------------------------

_GLOBAL_SEED: Optional[int] = None
_SEED_HOOKS: List[Callable[[int], None]] = []


def set_seed(seed: int) -> None:
    """Set the global seed, as ``mindspore.set_seed`` does.

    Seeds numpy's global legacy RNG (initialisers draw their per-tensor seeds from it),
    records the seed for :func:`get_seed`, then calls the hooks registered with
    :func:`register_seed_hook` (other subsystems, e.g. op-seed counters, reset there).
    """
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"The argument 'seed' must be type of int, but got {type(seed)}.")
    if seed < 0:
        raise ValueError(f"The argument 'seed' must be non-negative, but got {seed}.")
    global _GLOBAL_SEED
    np.random.seed(int(seed))
    _GLOBAL_SEED = int(seed)
    for hook in list(_SEED_HOOKS):
        hook(int(seed))


def get_seed() -> Optional[int]:
    """Return the seed given to the last :func:`set_seed`, or None if it was never called."""
    return _GLOBAL_SEED


def register_seed_hook(hook: Callable[[int], None]) -> None:
    """Call ``hook(seed)`` after every :func:`set_seed` (idempotent per hook)."""
    if hook not in _SEED_HOOKS:
        _SEED_HOOKS.append(hook)


def draw_seed() -> int:
    """Draw one initialiser seed from numpy's global RNG, exactly as MindSpore does."""
    return int(np.random.randint(1, 2 ** 63, dtype=np.int64))


# --------------------------------------------------------------------------------------
# Philox4x32-10
# --------------------------------------------------------------------------------------

_PHILOX_M0 = 0xD2511F53
_PHILOX_M1 = 0xCD9E8D57
_PHILOX_W0 = 0x9E3779B9
_PHILOX_W1 = 0xBB67AE85


def _philox_rounds(counter: Sequence[np.ndarray], key: Tuple[int, int]) -> np.ndarray:
    """Ten Philox4x32 rounds on many counters at once; returns the blocks as [n, 4] uint32.

    ``counter`` holds the four counter words as equal-length uint64 arrays (< 2^32 each), so
    every 32x32-bit product fits in uint64 and no Python loop runs per block.
    """
    c0, c1, c2, c3 = (np.asarray(c, dtype=np.uint64) for c in counter)
    k0, k1 = key
    mask, shift = np.uint64(_MASK32), np.uint64(32)
    for rnd in range(10):
        if rnd:  # the key is raised between rounds, not before the first
            k0, k1 = (k0 + _PHILOX_W0) & _MASK32, (k1 + _PHILOX_W1) & _MASK32
        p0 = c0 * np.uint64(_PHILOX_M0)
        p1 = c2 * np.uint64(_PHILOX_M1)
        c0, c1, c2, c3 = ((p1 >> shift) ^ c1 ^ np.uint64(k0), p1 & mask,
                          (p0 >> shift) ^ c3 ^ np.uint64(k1), p0 & mask)
    return np.stack([c0, c1, c2, c3], axis=1).astype(np.uint32)


def philox4x32_10(seed: int, n_words: int) -> np.ndarray:
    """The first ``n_words`` 32-bit words of MindSpore's Philox stream for ``seed``.

    key = (seed mod 2^32, seed >> 32); block i uses counter
    (i mod 2^32, i >> 32, seed mod 2^32, seed >> 32), i.e. counter word 0 incremented with
    carry from the initial (0, 0, lo, hi).  Each block yields its 4 words in order.
    (MindSpore replaces seed 0 by a random one; here seed 0 is just key 0.)
    """
    seed, n_words = int(seed), int(n_words)
    if not 0 <= seed < 2 ** 64:
        raise ValueError(f"seed must be in [0, 2**64), got {seed}")
    if n_words < 0:
        raise ValueError(f"n_words must be non-negative, got {n_words}")
    lo, hi = seed & _MASK32, seed >> 32
    n_blocks = (n_words + 3) // 4
    block = np.arange(n_blocks, dtype=np.uint64)
    counter = (block & np.uint64(_MASK32),
               block >> np.uint64(32),  # the carry out of word 0; zero below 2^32 blocks
               np.full(n_blocks, lo, dtype=np.uint64),
               np.full(n_blocks, hi, dtype=np.uint64))
    return _philox_rounds(counter, (lo, hi)).reshape(-1)[:n_words]


# --------------------------------------------------------------------------------------
# Distributions (MindSpore's random.h, double precision, float32 parameters)
# --------------------------------------------------------------------------------------

def _as_f64_of_f32(x: float) -> float:
    """MindSpore's pybind entry points take float parameters: round to f32 first."""
    return float(np.float32(x))


def uniform_from_words(words: np.ndarray, a: float, b: float) -> np.ndarray:
    """U(a, b) from one word each: ``f32((f64(b) - f64(a)) * (u / 2^32) + f64(a))``.

    It must be double arithmetic: float32 arithmetic is 1 ulp off for some elements.
    """
    af, bf = _as_f64_of_f32(a), _as_f64_of_f32(b)
    s = words.astype(np.float64) / 4294967296.0  # exact: u < 2^32 fits a double
    return ((bf - af) * s + af).astype(np.float32)


_NORMAL_PI = _as_f64_of_f32(3.1415926)    # MindSpore's constexpr pi is this float
_NORMAL_EPS = _as_f64_of_f32(1.0e-7)      # lower clamp of both uniforms


def _unit_float(words: np.ndarray) -> np.ndarray:
    """MindSpore's to_float: the 23 low bits as a mantissa, i.e. (u & 0x7FFFFF) / 2^23."""
    return (words & np.uint32(0x7FFFFF)).astype(np.float64) / 8388608.0


def normal_from_words(words: np.ndarray, n: int, mean: float, sigma: float) -> np.ndarray:
    """N(mean, sigma) by Box-Muller: each pair of words gives (cos, sin) outputs.

    ``words`` must hold ``2 * ceil(n / 2)`` words; with an odd n the last sine is dropped.
    """
    meanf, sigmaf = _as_f64_of_f32(mean), _as_f64_of_f32(sigma)
    u = np.maximum(_unit_float(words[: 2 * ((n + 1) // 2)]), _NORMAL_EPS)
    u1, u2 = u[0::2], u[1::2]
    r = np.sqrt(-2.0 * np.log(u1)) * sigmaf
    theta = 2.0 * _NORMAL_PI * u2
    out = np.empty((u1.size, 2), dtype=np.float64)
    out[:, 0] = meanf + r * np.cos(theta)
    out[:, 1] = meanf + r * np.sin(theta)
    return out.reshape(-1)[:n].astype(np.float32)


# Acklam's rational approximation of the inverse normal CDF (relative error < 1.2e-9),
# polished below by one Halley step on erfc.
_ACKLAM_A = (-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
             1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00)
_ACKLAM_B = (-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
             6.680131188771972e+01, -1.328068155288572e+01)
_ACKLAM_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
             -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00)
_ACKLAM_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
             3.754408661907416e+00)
_ACKLAM_P_LOW = 0.02425
_erfc = np.frompyfunc(math.erfc, 1, 1)


def _polyval(coeffs: Sequence[float], x: np.ndarray) -> np.ndarray:
    """Horner evaluation, highest power first."""
    acc = np.full_like(x, coeffs[0])
    for c in coeffs[1:]:
        acc = acc * x + c
    return acc


def _ndtri_lower(p: np.ndarray) -> np.ndarray:
    """Inverse standard normal CDF for 0 < p <= 0.5 (so the answer is <= 0)."""
    x = np.empty_like(p)
    tail = p < _ACKLAM_P_LOW
    q = np.sqrt(-2.0 * np.log(p[tail]))
    x[tail] = _polyval(_ACKLAM_C, q) / (_polyval(_ACKLAM_D, q) * q + 1.0)
    q = p[~tail] - 0.5
    r = q * q
    x[~tail] = _polyval(_ACKLAM_A, r) * q / (_polyval(_ACKLAM_B, r) * r + 1.0)
    # Halley step: e = Phi(x) - p.  erfc of a non-negative argument has no cancellation.
    e = 0.5 * _erfc(-x / math.sqrt(2.0)).astype(np.float64) - p
    u = e * math.sqrt(2.0 * math.pi) * np.exp(0.5 * x * x)
    return x - u / (1.0 + 0.5 * x * u)


def _ndtri(p: np.ndarray) -> np.ndarray:
    """Inverse standard normal CDF, using the symmetry so 1 - p is never rounded."""
    upper = p > 0.5
    x = np.empty_like(p)
    x[~upper] = _ndtri_lower(p[~upper])
    x[upper] = -_ndtri_lower(1.0 - p[upper])  # exact subtraction for p in (0.5, 1]
    return x


_ROOT_TWO_F32 = _as_f64_of_f32(1.4142135)  # MindSpore scales by this float, not sqrt(2)


def truncated_normal_from_words(words: np.ndarray, a: float, b: float,
                                mean: float, sigma: float) -> np.ndarray:
    """Normal(mean, sigma) truncated to [a, b] by inverse CDF, one word per element.

    Mirrors MindSpore's TruncatedNormal<double>: p = cdf(alpha) + u * (cdf(beta) - cdf(alpha)),
    with its clamping of 2p into (0, 2) at float32 limits and its float32 sqrt(2) constant.
    """
    af, bf, meanf, sigmaf = (_as_f64_of_f32(v) for v in (a, b, mean, sigma))
    if sigmaf <= 0:
        raise ValueError(f"TruncatedNormal: invalid sigma {sigma}.")
    cdf_a = math.erfc(-((af - meanf) / sigmaf) / _ROOT_TWO_F32) / 2.0
    cdf_b = math.erfc(-((bf - meanf) / sigmaf) / _ROOT_TWO_F32) / 2.0
    u = words.astype(np.float64) / 4294967296.0
    z = 2.0 * (cdf_a + u * (cdf_b - cdf_a))
    z = np.clip(z, float(np.nextafter(np.float32(0), np.float32(2))),
                float(np.nextafter(np.float32(2), np.float32(0))))
    # MindSpore: x = -erfc_inv(z) * k with k = f32(sqrt 2); erfc_inv(z) = -ndtri(z/2)/sqrt 2.
    x = _ndtri(z / 2.0) * (_ROOT_TWO_F32 / math.sqrt(2.0))
    return (meanf + x * sigmaf).astype(np.float32)


def _shape_size(shape: Tuple[int, ...]) -> int:
    return int(np.prod(shape, dtype=np.int64))


def _random_uniform(a: float, b: float, shape: Tuple[int, ...]) -> np.ndarray:
    """MindSpore's _init_random_uniform: draws a seed, returns float32 data."""
    seed = draw_seed()
    n = _shape_size(shape)
    return uniform_from_words(philox4x32_10(seed, n), a, b).reshape(shape)


def _random_normal(mean: float, sigma: float, shape: Tuple[int, ...]) -> np.ndarray:
    """MindSpore's _init_random_normal: draws a seed, returns float32 data."""
    if sigma < 0:
        raise ValueError("sigma < 0")
    seed = draw_seed()
    n = _shape_size(shape)
    words = philox4x32_10(seed, 2 * ((n + 1) // 2))
    return normal_from_words(words, n, mean, sigma).reshape(shape)


def _random_truncated_normal(a: float, b: float, mean: float, sigma: float,
                             shape: Tuple[int, ...]) -> np.ndarray:
    """MindSpore's _init_truncated_normal: draws a seed, returns float32 data."""
    if sigma < 0:
        raise ValueError("sigma < 0")
    seed = draw_seed()
    n = _shape_size(shape)
    return truncated_normal_from_words(philox4x32_10(seed, n), a, b, mean, sigma).reshape(shape)


# --------------------------------------------------------------------------------------
# Fan and gain helpers (same formulas and messages as MindSpore)
# --------------------------------------------------------------------------------------

def _calculate_fan_in_and_fan_out(shape: Sequence[int]) -> Tuple[int, int]:
    """fan_in = shape[1] * prod(shape[2:]), fan_out = shape[0] * prod(shape[2:])."""
    dimensions = len(shape)
    if dimensions < 2:
        raise ValueError("'fan_in' and 'fan_out' can not be computed for tensor with fewer than"
                         " 2 dimensions, but got dimensions {}.".format(dimensions))
    receptive_field_size = 1
    for dim in shape[2:]:
        receptive_field_size *= int(dim)
    return int(shape[1]) * receptive_field_size, int(shape[0]) * receptive_field_size


def _calculate_correct_fan(shape: Sequence[int], mode: str) -> int:
    """fan_in or fan_out, chosen by ``mode`` (case-insensitive)."""
    mode = mode.lower()
    valid_modes = ['fan_in', 'fan_out']
    if mode not in valid_modes:
        raise ValueError("'mode' {} not supported, please use one of {}".format(mode, valid_modes))
    fan_in, fan_out = _calculate_fan_in_and_fan_out(shape)
    return fan_in if mode == 'fan_in' else fan_out


_LINEAR_FNS = ('linear', 'conv1d', 'conv2d', 'conv3d',
               'conv_transpose1d', 'conv_transpose2d', 'conv_transpose3d', 'sigmoid')


def _calculate_gain(nonlinearity: str, param: Optional[float] = None) -> float:
    """The recommended gain for a nonlinearity (PyTorch's table, as MindSpore copies it)."""
    if nonlinearity in _LINEAR_FNS:
        return 1
    if nonlinearity == 'tanh':
        return 5.0 / 3
    if nonlinearity == 'relu':
        return math.sqrt(2.0)
    if nonlinearity == 'leaky_relu':
        if param is None:
            negative_slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            negative_slope = param
        else:
            raise ValueError("For 'HeUniform', 'negative_slope' {} is not a valid number."
                             "When 'nonlinearity' has been set to "
                             "'leaky_relu', 'negative_slope' should be int or float type, but got "
                             "{}.".format(param, type(param)))
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    raise ValueError("For 'HeUniform', the argument 'nonlinearity' should be one of "
                     "['sigmoid', 'tanh', 'relu' or 'leaky_relu'], "
                     "but got {}.".format(nonlinearity))


# --------------------------------------------------------------------------------------
# Initializer classes
# --------------------------------------------------------------------------------------

_INITIALIZER_ALIAS: Dict[str, Type["Initializer"]] = {}


def _register(*aliases: str):
    """Register a class under its lower-cased name and the given aliases (first one wins)."""
    def alias_reg(cls):
        for name in (cls.__name__.lower(),) + aliases:
            _INITIALIZER_ALIAS.setdefault(name, cls)
        return cls
    return alias_reg


ShapeLike = Union[int, Sequence[int]]


def _normalize_shape(shape: ShapeLike) -> Tuple[int, ...]:
    """An int or a sequence of non-negative ints, as a tuple."""
    if isinstance(shape, numbers.Integral):
        shape = (shape,)
    shape = tuple(shape)
    for dim in shape:
        if isinstance(dim, bool) or not isinstance(dim, numbers.Integral) or dim < 0:
            raise ValueError(f"shape must hold non-negative integers, but got {shape}")
    return tuple(int(d) for d in shape)


class Initializer:
    """Base class: ``sample(shape, dtype)`` returns a fresh ndarray.

    Subclasses implement ``_generate(shape)``, returning values in any dtype (random ones
    return float32, as MindSpore generates them); ``sample`` casts them to ``dtype``, like
    MindSpore's assignment into the parameter's buffer.  Calling an initializer on an
    existing array fills it in place (MindSpore's ``init(arr)``).
    """

    #: True for initialisers that draw a seed from numpy's global RNG when sampled.
    draws_seed = False

    def __init__(self, **kwargs):
        self._kwargs = kwargs

    def _generate(self, shape: Tuple[int, ...]) -> np.ndarray:
        raise NotImplementedError('Must be overridden!')

    def sample(self, shape: ShapeLike, dtype=np.float32) -> np.ndarray:
        """A new array of ``shape`` and ``dtype``; random initialisers draw one seed here."""
        shape = _normalize_shape(shape)
        data = np.asarray(self._generate(shape))
        return np.array(np.broadcast_to(data, shape), dtype=np.dtype(dtype))

    def __call__(self, arr: np.ndarray) -> np.ndarray:
        """Fill ``arr`` in place and return it."""
        arr[...] = self.sample(arr.shape, arr.dtype)
        return arr

    def configuration_key(self) -> tuple:
        """What a traced graph depends on: nothing, an initializer only sets starting values.
        (nn.cell.configuration compares Cells that keep theirs, Conv2d.weight_init, so that
        an ensemble of such Cells is still traced once.)"""
        return ()

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._kwargs.items())
        return f"{type(self).__name__}({args})"


@_register('zeros')
class Zero(Initializer):
    """All zeros; draws no seed."""

    def _generate(self, shape):
        return np.zeros(shape, dtype=np.float32)


@_register('ones')
class One(Initializer):
    """All ones; draws no seed."""

    def _generate(self, shape):
        return np.ones(shape, dtype=np.float32)


class Constant(Initializer):
    """A constant value (a number, or an array broadcastable to the shape); draws no seed.

    Not registered under a string name: MindSpore has no 'constant' alias.
    """

    def __init__(self, value):
        super().__init__(value=value)
        self.value = value

    def _generate(self, shape):
        return np.asarray(self.value)


@_register()
class Identity(Initializer):
    """A 2-D identity matrix (np.eye for non-square shapes); draws no seed."""

    def _generate(self, shape):
        if len(shape) != 2:
            raise ValueError('For Identity initializer, the dimension of the initialized tensor '
                             'should be 2, but got {}.'.format(len(shape)))
        return np.eye(shape[0], shape[1])


@_register()
class Dirac(Initializer):
    """Dirac delta for 3/4/5-D conv weights, preserving each group's identity; no seed."""

    def __init__(self, groups=1):
        super().__init__(groups=groups)
        self.groups = groups

    def _generate(self, shape):
        dimension = len(shape)
        if dimension not in (3, 4, 5):
            raise ValueError("For Dirac initializer, only support to initialize tensor with "
                             "dimension of 3, 4 or 5, but got {}.".format(dimension))
        if shape[0] % self.groups != 0:
            raise ValueError("For Dirac initializer, the first dimension of the initialized tensor "
                             "must be divisible by groups, but got first dimension{}, groups{}."
                             .format(shape[0], self.groups))
        data = np.zeros(shape)
        per_group = shape[0] // self.groups
        centre = tuple(d // 2 for d in shape[2:])
        for group in range(self.groups):
            for dim in range(min(per_group, shape[1])):
                data[(group * per_group + dim, dim) + centre] = 1
        return data


@_register()
class Uniform(Initializer):
    """U(-scale, scale)."""

    draws_seed = True

    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = scale

    def _generate(self, shape):
        return _random_uniform(-self.scale, self.scale, shape)


@_register()
class Normal(Initializer):
    """N(mean, sigma^2) by MindSpore's Box-Muller."""

    draws_seed = True

    def __init__(self, sigma=0.01, mean=0.0):
        super().__init__(sigma=sigma, mean=mean)
        self.sigma = sigma
        self.mean = mean

    def _generate(self, shape):
        return _random_normal(self.mean, self.sigma, shape)


@_register()
class TruncatedNormal(Initializer):
    """N(0, sigma^2) truncated to [-2, 2] (absolute bounds, as in MindSpore, not sigmas).

    Registered only under its class name, so 'truncatedNormal' (MindSpore's documented
    spelling) works through the case-insensitive lookup.
    """

    draws_seed = True

    def __init__(self, sigma=0.01):
        super().__init__(sigma=sigma)
        self.sigma = sigma

    def _generate(self, shape):
        return _random_truncated_normal(-2, 2, 0, self.sigma, shape)


@_register('he_uniform')
class HeUniform(Initializer):
    """U(-b, b) with b = sqrt(3) * gain / sqrt(fan).  Layers use negative_slope=sqrt(5),
    which makes b = 1 / sqrt(fan_in)."""

    draws_seed = True

    def __init__(self, negative_slope=0, mode='fan_in', nonlinearity='leaky_relu'):
        super().__init__(negative_slope=negative_slope, mode=mode, nonlinearity=nonlinearity)
        self.negative_slope = negative_slope
        self.mode = mode
        self.nonlinearity = nonlinearity

    def _generate(self, shape):
        fan = _calculate_correct_fan(shape, self.mode)
        gain = _calculate_gain(self.nonlinearity, self.negative_slope)
        boundary = math.sqrt(3.0) * (gain / math.sqrt(fan))
        return _random_uniform(-boundary, boundary, shape)


@_register('he_normal')
class HeNormal(Initializer):
    """N(0, sigma^2) with sigma = gain / sqrt(fan)."""

    draws_seed = True

    def __init__(self, negative_slope=0, mode='fan_in', nonlinearity='leaky_relu'):
        super().__init__(negative_slope=negative_slope, mode=mode, nonlinearity=nonlinearity)
        self.negative_slope = negative_slope
        self.mode = mode
        self.nonlinearity = nonlinearity

    def _generate(self, shape):
        fan = _calculate_correct_fan(shape, self.mode)
        gain = _calculate_gain(self.nonlinearity, self.negative_slope)
        return _random_normal(0, gain / math.sqrt(fan), shape)


@_register('xavier_uniform')
class XavierUniform(Initializer):
    """U(-b, b) with b = gain * sqrt(6 / (fan_in + fan_out))."""

    draws_seed = True

    def __init__(self, gain=1):
        super().__init__(gain=gain)
        self.gain = gain

    def _generate(self, shape):
        fan_in, fan_out = _calculate_fan_in_and_fan_out(shape)
        boundary = self.gain * math.sqrt(6.0 / (fan_in + fan_out))
        return _random_uniform(-boundary, boundary, shape)


@_register('xavier_normal')
class XavierNormal(Initializer):
    """N(0, sigma^2) with sigma = gain * sqrt(2 / (fan_in + fan_out))."""

    draws_seed = True

    def __init__(self, gain=1):
        super().__init__(gain=gain)
        self.gain = gain

    def _generate(self, shape):
        fan_in, fan_out = _calculate_fan_in_and_fan_out(shape)
        return _random_normal(0, self.gain * math.sqrt(2.0 / float(fan_in + fan_out)), shape)


@_register()
class VarianceScaling(Initializer):
    """Scale / fan (fan_in, fan_out or their mean), then a distribution.

    Faithful to a MindSpore quirk: its code tests for 'truncated_norm' instead of the
    accepted 'truncated_normal', so the default distribution actually samples *uniform*.
    """

    draws_seed = True

    def __init__(self, scale=1.0, mode='fan_in', distribution='truncated_normal'):
        super().__init__(scale=scale, mode=mode, distribution=distribution)
        if scale <= 0.:
            raise ValueError("For VarianceScaling initializer, the argument 'scale' must be "
                             "greater than 0, but got {}.".format(scale))
        if mode not in ['fan_in', 'fan_out', 'fan_avg']:
            raise ValueError("For VarianceScaling initializer, the argument 'mode' must be fan_in, "
                             "fan_out or fan_avg, but got {}.".format(mode))
        if distribution not in ['uniform', 'truncated_normal', 'untruncated_normal']:
            raise ValueError("For VarianceScaling initializer, the argument 'distribution' must be "
                             "uniform, truncated_norm or untruncated_norm, but got {}."
                             .format(distribution))
        self.scale = scale
        self.mode = mode
        self.distribution = distribution

    def _generate(self, shape):
        fan_in, fan_out = _calculate_fan_in_and_fan_out(shape)
        fan = {'fan_in': fan_in, 'fan_out': fan_out}.get(self.mode, (fan_in + fan_out) / 2.)
        scale = self.scale / max(1., fan)
        if self.distribution == 'untruncated_normal':
            return _random_normal(0, np.sqrt(scale), shape)
        limit = np.sqrt(3.0 * scale)  # 'uniform', and 'truncated_normal' by the quirk above
        return _random_uniform(-limit, limit, shape)


@_register()
class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix from the QR of a N(0, 1) sample, trailing dims flattened."""

    draws_seed = True

    def __init__(self, gain=1.):
        super().__init__(gain=gain)
        self.gain = gain

    def _generate(self, shape):
        if len(shape) < 2:
            raise ValueError('For Orthogonal initializer, the dimension of the initialized tensor '
                             'should be no less than 2, but got {}.'.format(len(shape)))
        rows = shape[0]
        cols = _shape_size(shape) // rows
        data = _random_normal(0, 1, (rows, cols))
        if rows < cols:
            data = data.T
        q, r = np.linalg.qr(data)
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        return (q * self.gain).reshape(shape)


@_register()
class Sparse(Initializer):
    """N(0, sigma^2) with ceil(sparsity * rows) zeros per column (2-D only).

    The zero rows come from ``np.random.permutation`` on the global RNG, after the seed draw.
    """

    draws_seed = True

    def __init__(self, sparsity, sigma=0.01):
        super().__init__(sparsity=sparsity, sigma=sigma)
        self.sparsity = sparsity
        self.sigma = sigma

    def _generate(self, shape):
        if len(shape) != 2:
            raise ValueError('For Sparse initializer, the dimension of the initialized tensor '
                             'should be 2, but got {}.'.format(len(shape)))
        rows, cols = shape
        zero_num = int(np.ceil(self.sparsity * rows))
        data = _random_normal(0, self.sigma, shape)
        for col_idx in range(cols):
            row_idx = np.random.permutation(list(range(rows)))[:zero_num]
            data[row_idx, col_idx] = 0.
        return data


class ArrayInitializer(Initializer):
    """Wraps a given array; its shape must equal the requested one.  Draws no seed.

    (MindSpore returns a given Tensor unchanged, dtype included; ``sample`` casts to ``dtype``.)
    """

    def __init__(self, array):
        super().__init__()
        self.array = np.asarray(array)

    def _generate(self, shape):
        if self.array.shape != tuple(shape):
            raise ValueError("For 'initializer', the shape of the 'init' argument should be same as "
                             "the argument 'shape', but got the 'init' shape {} and the 'shape' {}."
                             .format(list(self.array.shape), list(shape)))
        return self.array

    def __repr__(self) -> str:
        return f"ArrayInitializer(shape={self.array.shape}, dtype={self.array.dtype})"


# --------------------------------------------------------------------------------------
# Front doors
# --------------------------------------------------------------------------------------

InitSpec = Union[str, Initializer, numbers.Number, np.ndarray]


def initializer_from(spec: InitSpec) -> Initializer:
    """An Initializer from a name (case-insensitive alias), an Initializer, a number or an array.

    Names follow MindSpore's registry: 'zeros'/'zero', 'ones'/'one', 'normal', 'uniform',
    'truncatednormal', 'he_uniform'/'heuniform', 'he_normal'/'henormal', 'xavier_uniform'/
    'xavieruniform', 'xavier_normal'/'xaviernormal', 'identity', 'dirac', 'orthogonal',
    'variancescaling', 'sparse' (the last needs arguments, so it fails by name as in MindSpore).
    A number becomes ``Constant`` (bools included, as ``numbers.Number`` admits them); anything
    with ``__array__`` (ndarray, Tensor) becomes an :class:`ArrayInitializer`.
    """
    if isinstance(spec, Initializer):
        return spec
    if isinstance(spec, str):
        cls = _INITIALIZER_ALIAS.get(spec.lower())
        if cls is None:
            raise ValueError(f"For 'initializer', the class corresponding to '{spec}' was not found.")
        return cls()
    if isinstance(spec, numbers.Number):
        return Constant(spec)
    if isinstance(spec, np.ndarray) or hasattr(spec, "__array__"):
        return ArrayInitializer(spec)
    raise TypeError("For 'initializer', the type of the 'init' argument should be 'Tensor', 'number', "
                    "'string' or 'initializer', but got {}.".format(type(spec)))


def initialize(spec: InitSpec, shape: ShapeLike, dtype=np.float32) -> np.ndarray:
    """Eager counterpart of ``mindspore.common.initializer.initializer``, returning an ndarray.

    MindSpore fills lazily when the Parameter is created; call this at that moment to keep
    the seed draws in MindSpore's order.  Like MindSpore, every dimension must be positive.
    """
    init = initializer_from(spec)
    shape = _normalize_shape(shape)
    if any(d <= 0 for d in shape):
        raise ValueError("For 'initializer', the argument 'shape' is invalid, the value of 'shape' "
                         f"must be positive integer, but got {shape}")
    return init.sample(shape, dtype)


def initializer(init: InitSpec, shape: Optional[ShapeLike] = None, dtype=None):
    """MindSpore's ``initializer(init, shape, dtype=float32)``: a Tensor of ``shape`` filled by
    ``init`` (a name, an Initializer, a number, or an array whose shape is the default).

    MindSpore fills it lazily, when the Tensor is first used; graphcell fills it now, so the
    global seed's draws happen at this call (a Parameter made of it right away draws in
    MindSpore's order)."""
    from .. import dtype as mstype
    from ..tensor import Tensor
    dtype = mstype.float32 if dtype is None else mstype.to_dtype(dtype)
    if shape is None:
        if not hasattr(init, "shape"):
            raise ValueError(f"For 'initializer', 'shape' is needed with init {init!r} (only an array "
                             "or Tensor init brings its own shape)")
        shape = tuple(init.shape)
    elif hasattr(init, "shape") and tuple(init.shape) != _normalize_shape(shape):
        raise ValueError(f"For 'initializer', the shape of the 'init' argument should be same as the argument "
                         f"'shape', but got the 'init' shape {list(init.shape)} and the 'shape' {list(shape)}.")
    return Tensor(initialize(init, shape, dtype.np_dtype), dtype)

"""mint's random draws: torch's signatures, each taking an optional mindspore Generator (its
stream) or drawing from graphcell's global generator. The distributions are torch's; the
numbers are graphcell's (MindSpore's own CPU build has no kernel for most of these)."""
from __future__ import annotations

import numbers

from .. import dtype as mstype
from .. import ops
from ..dtype import to_dtype
from ..ops import functional as F
from ..ops.elementwise import broadcast_shapes
from ..ops.generator import key_from
from .creation import _size


def _uniform(shape, generator, what, dtype=mstype.float32):
    return F.uniform(tuple(shape), dtype=dtype, key=key_from(generator, what))


def _normal(shape, generator, what, dtype=mstype.float32):
    return F.normal(tuple(shape), dtype=dtype, key=key_from(generator, what))


def _float(dtype, default, what):
    dtype = to_dtype(dtype) if dtype is not None else default
    if not dtype.is_floating:
        raise TypeError(f"For '{what}', dtype must be a float type, but got {dtype}.")
    return dtype


def rand(*size, generator=None, dtype=None, device=None):
    """Uniform draws in [0, 1), float32 unless dtype."""
    return _uniform(_size(size), generator, "rand", _float(dtype, mstype.float32, "rand"))


def randn(*size, generator=None, dtype=None, device=None):
    """Standard normal draws, float32 unless dtype."""
    return _normal(_size(size), generator, "randn", _float(dtype, mstype.float32, "randn"))


def rand_like(input, *, dtype=None, device=None):  # noqa: A002 - mint's names
    x = F.as_tensor(input)
    return _uniform(x.shape, None, "rand_like", _float(dtype, x.dtype, "rand_like"))


def randn_like(input, *, dtype=None, device=None):  # noqa: A002
    x = F.as_tensor(input)
    return _normal(x.shape, None, "randn_like", _float(dtype, x.dtype, "randn_like"))


def _integers(low, high, shape, generator, what, dtype):
    if high <= low:
        raise ValueError(f"For '{what}', high ({high}) must be greater than low ({low}).")
    u = _uniform(shape, generator, what, mstype.float64)   # float64: exact below 2**53 spans
    draws = F.minimum(F.floor(F.mul(u, float(high - low))), float(high - low - 1))
    return F.cast(F.add(draws, float(low)), dtype)


def randint(*args, generator=None, dtype=None, device=None):
    """randint(high, size) or randint(low, high, size): integers uniform in [low, high), int64
    unless dtype."""
    if len(args) == 2:
        (high, size), low = args, 0
    elif len(args) == 3:
        low, high, size = args
    else:
        raise TypeError(f"randint() takes (high, size) or (low, high, size), got {len(args)} positional arguments")
    return _integers(int(low), int(high), _size((size,)), generator, "randint",
                     to_dtype(dtype) if dtype is not None else mstype.int64)


def randint_like(*args, dtype=None, device=None):
    """randint_like(input, high) or randint_like(input, low, high): input's shape, in input's
    dtype unless dtype (measured: a Float32 input gives Float32)."""
    if len(args) == 2:
        (x, high), low = args, 0
    elif len(args) == 3:
        x, low, high = args
    else:
        raise TypeError(f"randint_like() takes (input, high) or (input, low, high), got {len(args)} positional "
                        "arguments")
    x = F.as_tensor(x)
    return _integers(int(low), int(high), x.shape, None, "randint_like",
                     to_dtype(dtype) if dtype is not None else x.dtype)


def normal(mean=0.0, std=1.0, size=None, generator=None):
    """Normal draws: mean and std numbers with `size`, or Tensors (broadcast) giving the shape."""
    if isinstance(mean, numbers.Number) and isinstance(std, numbers.Number):
        if size is None:
            raise ValueError("For 'normal', size must be given when mean and std are numbers.")
        z = _normal(_size((size,)), generator, "normal")
    else:
        m, s = F.as_tensor(mean), F.as_tensor(std)
        shape = broadcast_shapes("normal", tuple(m.shape), tuple(s.shape))
        dtype = m.dtype if m.dtype.is_floating else s.dtype if s.dtype.is_floating else mstype.float32
        z = _normal(shape, generator, "normal", dtype)
    return F.add(F.mul(z, std), mean)


def bernoulli(input, *, generator=None):  # noqa: A002
    """0 or 1 in input's shape and dtype, 1 with probability input."""
    p = F.as_tensor(input)
    return F.cast(F.less(_uniform(p.shape, generator, "bernoulli", p.dtype if p.dtype.is_floating else mstype.float32),
                         p), p.dtype)


def multinomial(input, num_samples, replacement=False, *, generator=None):  # noqa: A002
    """num_samples int64 indices per row of input (non-negative weights, 1-D or 2-D); without
    replacement none repeats in a row (the Gumbel top-k)."""
    x = F.as_tensor(input)
    if x.ndim not in (1, 2):
        raise ValueError(f"For 'multinomial', input must be 1-D or 2-D, but got shape {list(x.shape)}")
    rows = x if x.ndim == 2 else F.expand_dims(x, 0)
    k, (b, c) = int(num_samples), rows.shape
    if not replacement and k > c:
        raise ValueError(f"For 'multinomial', num_samples ({k}) must not exceed the number of categories ({c}) "
                         "without replacement.")
    draws = F.maximum(_uniform((b, k if replacement else 1, c), generator, "multinomial"), 2.0 ** -25)
    scores = F.add(F.expand_dims(F.log(F.cast(rows, mstype.float32)), 1), F.neg(F.log(F.neg(F.log(draws)))))
    out = F.argmax(scores, -1) if replacement else ops.topk(F.squeeze(scores, 1), k)[1]
    out = F.cast(out, mstype.int64)
    return out if x.ndim == 2 else F.squeeze(out, 0)


def randperm(n, *, generator=None, dtype=mstype.int64):
    """A random permutation of 0 .. n-1 (the order of n uniform float64 draws)."""
    return F.cast(ops.argsort(_uniform((int(n),), generator, "randperm", mstype.float64)), dtype)

"""MindSpore 2.10's random draws beyond uniform and normal: bernoulli, laplace, standard_laplace,
random_categorical, multinomial, randperm, shuffle (composed of uniform draws, so they run
eagerly, under jit and vmap, and export to ONNX through the threefry rules), and gamma,
random_gamma, poisson and random_poisson (primitives on jax.random.gamma/poisson, whose
rejection loops compiler/onnx_random_draws.py writes out as ONNX Loops).

graphcell cannot reproduce MindSpore's streams (Philox inside its kernels): the distributions
are the same, the numbers are graphcell's. Seeds follow graphcell's rule (functional.uniform):
a seed gives the same numbers on every call, eager or jitted; without one (None, or 0 where
MindSpore's default is 0: randperm, random_categorical) the draw advances graphcell's global
generator. Shapes and dtypes are 2.10's, measured.
"""
from __future__ import annotations

import numbers

import jax
import jax.numpy as jnp

from .. import dtype as mstype
from ..dtype import DType, to_dtype, uint32
from ..ir.core import TensorType
from ..tensor import Tensor
from . import batching, random_prims
from . import functional as F
from .ad_util import no_gradient
from .elementwise import broadcast_shapes
from .primitive import Primitive, check
from .sorting import argsort, topk

__all__ = ["bernoulli", "laplace", "standard_laplace", "random_categorical", "multinomial", "randperm", "shuffle",
           "gamma", "random_gamma", "poisson", "random_poisson"]

_ONE_BELOW_ONE = 1.0 - 2.0 ** -24


def _seed(seed):
    """MindSpore's seed=0 default means "not seeded" for randperm and random_categorical."""
    return None if seed == 0 else seed


def _open_uniform(shape, seed):
    """float32 draws in (0, 1): uniform's [0, 1) with its 0 moved inside."""
    return F.maximum(F.uniform(tuple(shape), seed=seed, dtype=mstype.float32), 2.0 ** -25)


def _shape(shape, name: str) -> tuple:
    if isinstance(shape, Tensor):
        shape = shape.asnumpy().tolist()
    if isinstance(shape, numbers.Integral):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)) or not all(isinstance(d, numbers.Integral) and d >= 0 for d in shape):
        raise TypeError(f"For '{name}', 'shape' must be a tuple of non-negative ints, got {shape!r}")
    return tuple(int(d) for d in shape)


def bernoulli(input, p=0.5, seed=None):  # noqa: A002
    """0 or 1 of input's shape and dtype, 1 with probability p (a number in [0, 1] or a Tensor
    that broadcasts to input)."""
    x = F.as_tensor(input)
    if isinstance(p, numbers.Number) and not 0 <= p <= 1:
        raise ValueError(f"For bernoulli, p should be in [0, 1], but got {p}.")
    prob = p if isinstance(p, numbers.Number) else F.cast(F.as_tensor(p), mstype.float32)
    u = F.uniform(x.shape, seed=seed, dtype=mstype.float32)
    return F.cast(F.less(u, prob), x.dtype)


def laplace(shape, mean, lambda_param, seed=None):
    """Laplace draws, mean - lambda_param sign(v) log(1 - 2|v|) for v uniform in (-1/2, 1/2), of
    `shape` broadcast with mean's and lambda_param's shapes; float32."""
    mean, scale = F.as_tensor(mean), F.as_tensor(lambda_param)
    out_shape = broadcast_shapes("laplace", broadcast_shapes("laplace", _shape(shape, "laplace"), mean.shape),
                                 scale.shape)
    return F.add(F.mul(_standard_laplace(out_shape, seed), F.cast(scale, mstype.float32)), F.cast(mean, mstype.float32))


def _standard_laplace(shape, seed):
    v = F.sub(F.uniform(shape, seed=seed, dtype=mstype.float32), 0.5)
    tail = F.log1p(F.neg(F.minimum(F.mul(F.abs(v), 2.0), _ONE_BELOW_ONE)))
    return F.neg(F.mul(F.sign(v), tail))


def standard_laplace(shape, seed=None):
    """Laplace(0, 1) draws of `shape`, float32."""
    return _standard_laplace(_shape(shape, "standard_laplace"), seed)


def _gumbel_scores(log_weights, num_samples: int, seed):
    """log_weights [B, C] plus Gumbel noise, [B, num_samples, C]: the argmax of each row is a
    draw from softmax(log_weights) (the Gumbel-max trick)."""
    b, c = log_weights.shape
    gumbel = F.neg(F.log(F.neg(F.log(_open_uniform((b, num_samples, c), seed)))))
    return F.add(F.expand_dims(log_weights, 1), gumbel)


def random_categorical(logits, num_sample, seed=0, dtype=mstype.int64):
    """num_sample class indices per row of the 2-D `logits` (unnormalized log-probabilities):
    [batch, num_sample] of `dtype`."""
    x = F.as_tensor(logits)
    if x.ndim != 2:
        raise ValueError("logits shape size only support 2D")
    scores = _gumbel_scores(F.cast(x, mstype.float32), int(num_sample), _seed(seed))
    return F.cast(F.argmax(scores, -1), to_dtype(dtype))


def multinomial(input, num_samples, replacement=True, seed=None):  # noqa: A002
    """num_samples indices per row of `input` (non-negative weights, 1-D or 2-D), int32;
    without replacement no index repeats in a row (the Gumbel top-k: zero weights come last,
    lowest index first)."""
    x = F.as_tensor(input)
    if x.ndim not in (1, 2):
        raise ValueError(f"For 'multinomial', input must be 1-D or 2-D, got shape {list(x.shape)}")
    rows = x if x.ndim == 2 else F.expand_dims(x, 0)
    k = int(num_samples)
    if not replacement and k > rows.shape[1]:
        raise ValueError("For 'multinomial', the 'num_samples' must be less than the last dimension of input without "
                         f"'replacement', but got 'num_samples': {k} and 'replacement': False")
    log_weights = F.log(F.cast(rows, mstype.float32))
    if replacement:
        out = F.argmax(_gumbel_scores(log_weights, k, seed), -1)
    else:
        scores = F.squeeze(_gumbel_scores(log_weights, 1, seed), 1)
        out = topk(scores, k)[1]
    out = F.cast(out, mstype.int32)
    return out if x.ndim == 2 else F.squeeze(out, 0)


def randperm(n, seed=0, offset=0, dtype=mstype.int64):
    """A random permutation of 0 .. n-1 of `dtype` (the order of n uniform float64 draws).
    `offset` is accepted and, as the streams differ anyway, ignored."""
    if isinstance(n, Tensor):
        n = int(n.asnumpy())
    if not isinstance(n, numbers.Integral) or n < 0:
        raise ValueError(f"For 'RandpermV2', the input 'n' must be greater than 0, but got data: {n}.")
    order = argsort(F.uniform((int(n),), seed=_seed(seed), dtype=mstype.float64))
    return F.cast(order, to_dtype(dtype))


def shuffle(x, seed=None):
    """x with its first axis in random order."""
    x = F.as_tensor(x)
    if x.ndim == 0:
        return x
    order = argsort(F.uniform((x.shape[0],), seed=seed, dtype=mstype.float64))
    return F.gather(x, order, 0)


# -- gamma and Poisson draws: primitives -----------------------------------------------------------

def _draw_rule(name, result_dtype):
    def rule(k: TensorType, param: TensorType, *, shape: tuple, dtype: DType) -> TensorType:
        check(k.shape == (2,) and k.dtype is uint32, f"{name}: a key is uint32[2], got {k}")
        check(param.dtype.is_floating, f"{name}: the parameter must be floating, got {param}")
        return TensorType(tuple(shape), result_dtype or dtype)
    return rule


def _key(k):
    return jax.random.wrap_key_data(k, impl="threefry2x32")


random_gamma_draw = Primitive(
    "random_gamma_draw", _draw_rule("random_gamma_draw", None),
    lambda k, alpha, *, shape, dtype: jax.random.gamma(
        _key(k), jnp.broadcast_to(alpha, shape).astype(dtype.np_dtype), shape, dtype.np_dtype),
    deterministic=False)
random_poisson_draw = Primitive(
    "random_poisson_draw", _draw_rule("random_poisson_draw", None),
    lambda k, rate, *, shape, dtype: jax.random.poisson(
        _key(k), jnp.broadcast_to(rate, shape).astype(jnp.float32), shape, jnp.int32).astype(dtype.np_dtype),
    deterministic=False)


def _draw_batch(prim):
    """Member by member; an unbatched key draws fold_in(key, i) for member i (random_prims' rule)."""
    def rule(ctx, args, dims, *, shape, dtype):
        (key, param), (dk, dp) = args, dims
        if dk is None and ctx.randomness == "error":
            raise ValueError(f"vmap(randomness='error'): {prim.name} draws random numbers inside vmap; pass "
                             "randomness='different' (independent per member) or 'same'")
        outs = []
        for i in range(ctx.axis_size):
            if dk is not None:
                k = batching.member(key, dk, i)
            elif ctx.randomness == "same":
                k = key
            else:
                k = random_prims.random_fold_in.bind(key, Tensor(i, uint32))
            outs.append(prim.bind(k, batching.member(param, dp, i), shape=shape, dtype=dtype))
        return F.stack(outs, 0), 0
    return rule


for _prim in (random_gamma_draw, random_poisson_draw):
    _prim.def_batch(_draw_batch(_prim))
    _prim.def_vjp(no_gradient)


def _param(value, name: str, allowed=(mstype.float16, mstype.float32, mstype.float64)) -> Tensor:
    t = F.as_tensor(value)
    if t.dtype not in allowed:
        raise TypeError(f"For '{name}', the parameter must be a float Tensor, got {t.dtype}")
    return t


def random_gamma(shape, alpha, seed=None):
    """Gamma(alpha, 1) draws of shape `shape` + alpha.shape, in alpha's dtype."""
    a = _param(alpha, "random_gamma")
    out_shape = _shape(shape, "random_gamma") + a.shape
    return random_gamma_draw.bind(F._draw_key(seed, None), a, shape=out_shape, dtype=a.dtype)


def gamma(shape, alpha, beta, seed=None):
    """Gamma draws with shape alpha and rate beta (mean alpha / beta), of `shape` broadcast with
    alpha's and beta's shapes; float32. (2.10's CPU build has no Gamma kernel; its documented
    rule: beta is a rate.)"""
    a, b = _param(alpha, "gamma"), _param(beta, "gamma")
    out_shape = broadcast_shapes("gamma", _shape(shape, "gamma"), broadcast_shapes("gamma", a.shape, b.shape))
    draws = random_gamma_draw.bind(F._draw_key(seed, None), F.cast(a, mstype.float32), shape=out_shape,
                                   dtype=mstype.float32)
    return F.div(draws, F.cast(b, mstype.float32))


def random_poisson(shape, rate, seed=None, dtype=mstype.float32):
    """Poisson(rate) draws of shape `shape` + rate.shape, of `dtype`."""
    r = _param(rate, "random_poisson")
    out_shape = _shape(shape, "random_poisson") + r.shape
    return random_poisson_draw.bind(F._draw_key(seed, None), r, shape=out_shape, dtype=to_dtype(dtype))


def poisson(shape, mean, seed=None):
    """Poisson(mean) draws of `shape` broadcast with mean's shape; float32 (2.10's documented
    dtype; its CPU build has no Poisson kernel)."""
    m = _param(mean, "poisson")
    out_shape = broadcast_shapes("poisson", _shape(shape, "poisson"), m.shape)
    return random_poisson_draw.bind(F._draw_key(seed, None), m, shape=out_shape, dtype=mstype.float32)

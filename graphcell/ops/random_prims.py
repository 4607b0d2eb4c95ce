"""Stateless random primitives over explicit keys (uint32[2], jax's threefry layout).

Randomness in traced code reads and advances a key held in a Parameter, so a graph stays a
pure function and vmap can give each ensemble member its own stream (by folding in the
member index).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

from ..dtype import DType, uint32
from ..ir.core import TensorType
from . import batching
from .ad_util import no_gradient
from .primitive import Primitive, check


def _key_rule(name):
    def check_key(k: TensorType):
        check(k.shape == (2,) and k.dtype is uint32, f"{name}: a key is uint32[2], got {k}")
    return check_key


def _as_key(k):
    return jax.random.wrap_key_data(k, impl="threefry2x32")


def _split_rule(k: TensorType):
    _key_rule("random_split")(k)
    return (k, k)


random_split = Primitive(
    "random_split", _split_rule,
    lambda k: tuple(jax.random.key_data(jax.random.split(_as_key(k)))),
    multiple_results=True)
random_split.def_batch(batching.unrolled(random_split))  # a batched key splits member by member


def _fold_rule(k: TensorType, data: TensorType) -> TensorType:
    _key_rule("random_fold_in")(k)
    check(data.ndim == 0 and data.dtype.is_integer, "random_fold_in: data must be an integer scalar")
    return k


random_fold_in = Primitive(
    "random_fold_in", _fold_rule,
    lambda k, d: jax.random.key_data(jax.random.fold_in(_as_key(k), d.astype(jnp.uint32))))
random_fold_in.def_batch(batching.unrolled(random_fold_in))


def _uniform_rule(k: TensorType, *, shape: tuple, dtype: DType) -> TensorType:
    _key_rule("random_uniform")(k)
    check(dtype.is_floating, "random_uniform: dtype must be floating")
    return TensorType(tuple(shape), dtype)


random_uniform = Primitive(
    "random_uniform", _uniform_rule,
    lambda k, *, shape, dtype: jax.random.uniform(_as_key(k), shape, dtype.np_dtype),
    deterministic=False)


def _normal_rule(k: TensorType, *, shape: tuple, dtype: DType) -> TensorType:
    return _uniform_rule(k, shape=shape, dtype=dtype)


random_normal = Primitive(
    "random_normal", _normal_rule,
    lambda k, *, shape, dtype: jax.random.normal(_as_key(k), shape, dtype.np_dtype),
    deterministic=False)


def _draw_batch(prim):
    """An unbatched key under vmap: randomness="different" folds the member index into it
    (member i draws what fold_in(key, i) draws, whatever N is), "same" keeps one stream for
    all members, "error" refuses. A batched key draws member by member."""
    def rule(ctx, args, dims, *, shape, dtype):
        from . import functional as F
        from ..tensor import Tensor
        (key,), (d,) = args, dims
        if d is None:
            if ctx.randomness == "same":
                return prim.bind(key, shape=shape, dtype=dtype), None
            if ctx.randomness == "error":
                raise ValueError(f"vmap(randomness='error'): {prim.name} draws random numbers inside "
                                 "vmap; pass randomness='different' (independent per member) or 'same'")
            keys = [random_fold_in.bind(key, Tensor(i, uint32)) for i in range(ctx.axis_size)]
        else:
            keys = [batching.member(key, d, i) for i in range(ctx.axis_size)]
        return F.stack([prim.bind(k, shape=shape, dtype=dtype) for k in keys], 0), 0
    return rule


random_uniform.def_batch(_draw_batch(random_uniform))
random_normal.def_batch(_draw_batch(random_normal))

# Keys and draws carry no gradient.
for _prim in (random_split, random_fold_in, random_uniform, random_normal):
    _prim.def_vjp(no_gradient)

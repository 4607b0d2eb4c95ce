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


def _fold_rule(k: TensorType, data: TensorType) -> TensorType:
    _key_rule("random_fold_in")(k)
    check(data.ndim == 0 and data.dtype.is_integer, "random_fold_in: data must be an integer scalar")
    return k


random_fold_in = Primitive(
    "random_fold_in", _fold_rule,
    lambda k, d: jax.random.key_data(jax.random.fold_in(_as_key(k), d.astype(jnp.uint32))))


def _uniform_rule(k: TensorType, *, shape: tuple, dtype: DType) -> TensorType:
    _key_rule("random_uniform")(k)
    check(dtype.is_floating, "random_uniform: dtype must be floating")
    return TensorType(tuple(shape), dtype)


random_uniform = Primitive(
    "random_uniform", _uniform_rule,
    lambda k, *, shape, dtype: jax.random.uniform(_as_key(k), shape, dtype.np_dtype))


def _normal_rule(k: TensorType, *, shape: tuple, dtype: DType) -> TensorType:
    return _uniform_rule(k, shape=shape, dtype=dtype)


random_normal = Primitive(
    "random_normal", _normal_rule,
    lambda k, *, shape, dtype: jax.random.normal(_as_key(k), shape, dtype.np_dtype))

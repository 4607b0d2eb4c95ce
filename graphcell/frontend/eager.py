"""PYNATIVE dispatch caches: one `jax.jit` of each primitive's impl per static attrs, and the
argument signatures whose shape rule already passed.

Calling a jax primitive eagerly (`jax.lax.dot_general(x, y, ...)`) takes jax's Python
dispatch, several times slower than a jitted function, whose calls go through jax's C++
fast path. So an eager op runs `jax.jit(partial(impl, **attrs))`, built once per
(primitive, attrs), and the shape rule, which only raises graphcell's clear errors in eager
mode, runs once per (primitive, attrs, operand shapes and dtypes).

Results are the same: jax compiles every eager op with XLA anyway. Random primitives take
their key as an operand, so a cached jit never freezes one. Primitives declared with
`eager_jit=False` (those whose attrs hold subgraphs or constant arrays) and attrs that do not
hash keep the direct call of the impl.
"""
from __future__ import annotations

import functools
import operator

import jax

# Bounds on the caches; past them a cache starts afresh (programs with ever new shapes or
# attrs would otherwise hold a jitted function per variant forever).
MAX_SIGNATURES = 8192
MAX_JITTED = 2048

# (impl, attrs items, attr types, operand (shape, dtype)s, primitive) -> the jitted impl;
# present only once the shape rule accepted that signature. Keyed by the impl too, so that
# replacing a primitive's impl (as tests may) is never answered by a stale jit.
_CHECKED: dict = {}
# (impl, attrs items, attr types) -> jax.jit(partial(impl, **attrs))
_JITTED: dict = {}

_shape_and_dtype = operator.attrgetter("shape", "dtype")


def lookup(primitive, arrays, attrs) -> tuple:
    """(key, run) for one eager application: `run` is the jitted impl once `key`'s shape rule
    has passed, else None; `key` is None where the direct call is kept (the primitive is not
    `eager_jit`, an attr does not hash, or an operand is not an array). The attrs' types are
    part of the key, since `1 == 1.0 == True` would otherwise share an entry; the types inside
    tuple attrs and the sign of a float zero are not (no primitive's attrs depend on them)."""
    if not primitive.eager_jit:
        return None, None
    try:
        key = (primitive.impl, tuple(attrs.items()), tuple(map(type, attrs.values())),
               tuple(map(_shape_and_dtype, arrays)), primitive)
        return key, _CHECKED.get(key)
    except (TypeError, AttributeError):
        return None, None


def remember(primitive, key, attrs):
    """Records that `key`'s shape rule passed; returns the jitted impl that runs the op."""
    jit_key = key[:3]  # the impl and its attrs
    fn = _JITTED.get(jit_key)
    if fn is None:
        if len(_JITTED) >= MAX_JITTED:
            _JITTED.clear()
        fn = _JITTED[jit_key] = jax.jit(functools.partial(primitive.impl, **attrs))
    if len(_CHECKED) >= MAX_SIGNATURES:
        _CHECKED.clear()
    _CHECKED[key] = fn
    return fn


def clear() -> None:
    """Forgets every cached signature and jitted impl."""
    _CHECKED.clear()
    _JITTED.clear()

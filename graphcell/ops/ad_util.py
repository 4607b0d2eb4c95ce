"""Helpers shared by the vjp rules declared beside each primitive.

A vjp rule has the fixed signature

    rule(ctx, cts, primals, outs, **attrs) -> tuple   # one cotangent (or None) per input

where `cts` holds one cotangent Tensor (or None for zero) per output, `primals` and `outs`
are the node's symbolic input and output Tensors, and `ctx` is the grad pass's context
(`ctx.needs[i]` says whether input i needs a cotangent at all). Rules are written with the
ordinary functional API (`F` below), so the backward graph is made of primitives.

`F` is imported lazily because the family modules are imported by `functional` itself.
"""
from __future__ import annotations


class _LazyFunctional:
    """`graphcell.ops.functional`, resolved on first attribute access (breaks the import cycle)."""

    def __getattr__(self, name):
        from . import functional
        return getattr(functional, name)


F = _LazyFunctional()


def no_gradient(ctx, cts, primals, outs, **attrs):
    """The vjp of a primitive whose inputs get no gradient (integer/bool results, keys)."""
    return (None,) * len(primals)


def unbroadcast(ct, shape: tuple):
    """Sums `ct` down to `shape`: the transpose of numpy-style broadcasting."""
    shape = tuple(shape)
    if tuple(ct.shape) == shape:
        return ct
    lead = ct.ndim - len(shape)
    axes = list(range(lead)) + [lead + i for i, d in enumerate(shape) if d == 1 and ct.shape[lead + i] != 1]
    return F.reshape(F.reduce_sum(ct, axes), shape)


def dilate(x, factors: tuple):
    """Inserts `factor - 1` zeros between neighbours along each axis (lax.pad's interior
    padding), built from reshape and pad so it needs no extra primitive."""
    for axis, s in enumerate(factors):
        n = x.shape[axis]
        if s == 1 or n == 0:
            continue
        y = F.expand_dims(x, axis + 1)
        y = F.pad(y, [(0, 0)] * (axis + 1) + [(0, s - 1)])
        y = F.reshape(y, x.shape[:axis] + (n * s,) + x.shape[axis + 1:])
        x = F.slice_axis(y, axis, 0, n * s - (s - 1))
    return x


def pad_or_crop(x, lo: tuple, hi: tuple):
    """lax.pad with possibly negative edge padding: negative amounts crop."""
    for axis, (a, b) in enumerate(zip(lo, hi)):
        if a < 0 or b < 0:
            x = F.slice_axis(x, axis, max(-a, 0), x.shape[axis] - max(-b, 0))
    lo_p, hi_p = tuple(max(a, 0) for a in lo), tuple(max(b, 0) for b in hi)
    if any(lo_p) or any(hi_p):
        x = F.pad(x, list(zip(lo_p, hi_p)))
    return x

"""Convolution and windowed reductions (pooling), in NCHW / OIHW layout for any number of
spatial axes. Attributes follow lax.conv_general_dilated and lax.reduce_window, so vjp rules
can be written as convolutions too."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..ir.core import TensorType
from .primitive import Primitive, check, same_dtype


def _window_out(size, window, stride, lo, hi, lhs_dil=1, rhs_dil=1):
    dilated_in = (size - 1) * lhs_dil + 1 if size > 0 else 0
    dilated_win = (window - 1) * rhs_dil + 1
    span = dilated_in + lo + hi - dilated_win
    return span // stride + 1 if span >= 0 else 0


def _conv_rule(x: TensorType, w: TensorType, *, strides, padding, lhs_dilation, rhs_dilation,
               groups, batch_groups) -> TensorType:
    dtype = same_dtype("conv", x, w)
    nsp = x.ndim - 2
    check(x.ndim >= 3 and w.ndim == x.ndim,
          f"conv expects input [N,C,spatial...] and weight [O,C/groups,k...] of one rank, got "
          f"{list(x.shape)} and {list(w.shape)}")
    check(len(strides) == len(padding) == len(lhs_dilation) == len(rhs_dilation) == nsp,
          "conv: one stride/padding/dilation per spatial axis")
    n, c = x.shape[:2]
    o, wc = w.shape[:2]
    check(c == wc * groups,
          f"conv: input has {c} channels but the weight expects {wc * groups} "
          f"(weight {list(w.shape)}, groups={groups})")
    check(o % groups == 0 and o % batch_groups == 0 and n % batch_groups == 0,
          f"conv: {o} output channels do not split into {groups} groups")
    spatial = []
    for i in range(nsp):
        out = _window_out(x.shape[2 + i], w.shape[2 + i], strides[i], *padding[i],
                          lhs_dilation[i], rhs_dilation[i])
        check(out > 0, f"conv: the input's spatial size {list(x.shape[2:])} is smaller than the "
              f"kernel {list(w.shape[2:])} (after padding {list(padding)})")
        spatial.append(out)
    return TensorType((n // batch_groups, o, *spatial), dtype)


def _conv_impl(x, w, *, strides, padding, lhs_dilation, rhs_dilation, groups, batch_groups):
    return jax.lax.conv_general_dilated(
        x, w, strides, padding, lhs_dilation, rhs_dilation,
        feature_group_count=groups, batch_group_count=batch_groups,
        preferred_element_type=x.dtype)


conv = Primitive("conv", _conv_rule, _conv_impl)


def _reduce_window_rule(x: TensorType, *, window, strides, padding) -> TensorType:
    check(len(window) == len(strides) == len(padding) == x.ndim,
          "reduce_window: one window/stride/padding entry per axis")
    shape = []
    for d, k, s, (lo, hi) in zip(x.shape, window, strides, padding):
        out = _window_out(d, k, s, lo, hi)
        check(out > 0, f"pooling: window {list(window)} is larger than the (padded) input {list(x.shape)}")
        shape.append(out)
    return TensorType(tuple(shape), x.dtype)


def _init_max(dtype):
    return -jnp.inf if jnp.issubdtype(dtype, jnp.floating) else jnp.iinfo(dtype).min


def _reduce_window_max(x, *, window, strides, padding):
    return jax.lax.reduce_window(x, jnp.array(_init_max(x.dtype), x.dtype), jax.lax.max,
                                 window, strides, padding)


def _reduce_window_sum(x, *, window, strides, padding):
    return jax.lax.reduce_window(x, jnp.array(0, x.dtype), jax.lax.add, window, strides, padding)


# Padding never wins a max (padded with -inf) and adds nothing to a sum.
reduce_window_max = Primitive("reduce_window_max", _reduce_window_rule, _reduce_window_max)
reduce_window_sum = Primitive("reduce_window_sum", _reduce_window_rule, _reduce_window_sum)


def _max_grad_rule(x: TensorType, g: TensorType, *, window, strides, padding) -> TensorType:
    check(tuple(g.shape) == _reduce_window_rule(x, window=window, strides=strides, padding=padding).shape,
          "reduce_window_max_grad: cotangent shape mismatch")
    return x


def _max_grad_impl(x, g, *, window, strides, padding):
    _, vjp = jax.vjp(lambda a: _reduce_window_max(a, window=window, strides=strides, padding=padding), x)
    return vjp(g)[0]


# The transpose of max pooling: routes each cotangent to the (first) max of its window.
reduce_window_max_grad = Primitive("reduce_window_max_grad", _max_grad_rule, _max_grad_impl)

__all__ = ["conv", "reduce_window_max", "reduce_window_sum", "reduce_window_max_grad", "np"]

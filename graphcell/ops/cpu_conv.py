"""The XLA CPU lowering of convolutions with few input channels per group (grayscale and RGB
stems, depthwise layers): a sum over input channels and kernel offsets of a strided slice of
the input times one weight, which XLA fuses into one loop that writes the output once. XLA's
CPU convolution transposes NCHW to NHWC and back around a kernel that vectorises over input
channels, of which such a layer has one to three. `nn_prims` picks it per platform with
`lax.platform_dependent`, so on a GPU XLA keeps its convolution (cuDNN); where the CPU is jax's
only backend (`cpu_only`) it calls the direct form at once: platform_dependent traces both forms
and a switch, half of the lowering of a ResNet-50 training step.

Measured on this project's 2-core CPU (jax 0.10, float32; median ms, the forms alternating in
one process). Alone: LeNet5's conv1 [32,1,32,32] x [6,1,5,5], XLA 1.29-1.74, direct
0.32-0.35; an RGB stem [32,3,32,32] x [16,3,3,3] pad 1, 2.42 vs 0.63. In whole programs,
direct / XLA: LeNet5 inference at batch 32 0.50-0.63; its training step 0.78-0.82, and the
ensemble training step (bench/bench_train.py's vmap row) 0.79 at N=4 and 0.77 at N=16; the
small ResNet of bench/bench_models.py at batch 32, inference 0.84, a training step 0.98; a
MobileNet-style block (3x3 depthwise on [16,64,32,32], BatchNorm, 1x1 to 128, BatchNorm),
inference 0.37, a training step 0.66.

Tried and left out, faster alone but not in a training step: max pooling as the maximum of
one slice per window offset (alone 0.21 vs 0.53 ms; after a direct convolution XLA fuses the
convolution into each of the pool's consumers and computes it again in every one: LeNet5's
training step 1.16-1.26x); im2col rows and one matrix product (stacking the rows costs more
than XLA's convolution); the weight gradient as one product-and-reduce per kernel offset
(N=16 ensemble step 1.20x); the input gradient as rows scattered back by pads (N=4 0.99x,
N=16 1.14x).
"""
from __future__ import annotations

import functools
import itertools
import math

import jax
import jax.extend.backend
import jax.numpy as jnp

# XLA's convolution wins from about this many terms (input channels per group x kernel
# offsets) on: LeNet5's conv2, 6 x 25 terms, XLA 0.58 ms, direct 1.26; 2 x 25 a tie.
DIRECT_MAX_TERMS = 32


def _window_slice(t, starts, step, count, spatial_from: int, channel: int):
    """t[..., channel:channel+1, starts[i] + step[i] * range(count[i]), ...], the channel axis
    just before the spatial axes from `spatial_from` on."""
    start, limit, strides = [0] * t.ndim, list(t.shape), [1] * t.ndim
    start[spatial_from - 1], limit[spatial_from - 1] = channel, channel + 1
    for i, (first, st, n) in enumerate(zip(starts, step, count)):
        a = spatial_from + i
        start[a], limit[a], strides[a] = first, first + (n - 1) * st + 1, st
    return jax.lax.slice(t, start, limit, strides)


def _offsets(sizes):
    return itertools.product(*map(range, sizes))


def has_direct_form(w_shape, batch_groups: int) -> bool:
    """Whether a convolution by a [O, C/groups, K...] weight runs as a direct sum on the CPU."""
    return batch_groups == 1 and w_shape[1] * math.prod(w_shape[2:]) <= DIRECT_MAX_TERMS


@functools.cache
def cpu_only() -> bool:
    """Whether jax's only backend is the CPU, so every program runs there (read once: jax sets
    its backends up once per process)."""
    return set(jax.extend.backend.backends()) == {"cpu"}


def direct_conv(x, w, strides, rhs_dilation, groups: int, out_spatial):
    """A convolution of x (already padded and dilated: [N,C,X...]) by w ([O,C/groups,K...]):
    for each kernel offset and input channel, the strided slice of x times the weights.
    Written with lax alone: each jax.numpy call or operator is a nested jit that jax infers
    and inlines again, and a ResNet's gradients hold thousands of these terms."""
    if x.dtype in (jnp.float16, jnp.bfloat16):   # accumulate as XLA's convolution does, in float32
        return direct_conv(x.astype(jnp.float32), w.astype(jnp.float32), strides, rhs_dilation, groups,
                           out_spatial).astype(x.dtype)
    n, c, o = x.shape[0], x.shape[1], w.shape[0]
    cg, og = c // groups, o // groups
    nsp, kernel = x.ndim - 2, w.shape[2:]
    xg = jax.lax.reshape(x, (n, groups, 1, cg) + x.shape[2:])        # [N, G, 1, C/G, X...]
    # Every w[:, ci, off] at once, each [1, G, O/G, 1, 1...]: one split, not a slice per term.
    terms = cg * math.prod(kernel)
    weights = jax.lax.split(jax.lax.reshape(w, (1, groups, og, terms) + (1,) * nsp), [1] * terms, axis=3)
    acc = None
    for k, off in enumerate(_offsets(kernel)):
        starts = [i * d for i, d in zip(off, rhs_dilation)]
        for ci in range(cg):
            # x's channel ci at this offset, [N, G, 1, 1, P...], times w[:, ci, off]
            term = jax.lax.mul(_window_slice(xg, starts, strides, out_spatial, 4, channel=ci),
                               weights[ci * (terms // cg) + k])
            acc = term if acc is None else jax.lax.add(acc, term)     # [N, G, O/G, 1, P...]
    return jax.lax.reshape(acc, (n, o) + tuple(out_spatial))

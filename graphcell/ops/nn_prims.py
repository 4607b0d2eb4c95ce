"""Convolution and windowed reductions (pooling), in NCHW / OIHW layout for any number of
spatial axes. Attributes follow lax.conv_general_dilated and lax.reduce_window, so vjp rules
can be written as convolutions too."""
from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from ..ir.core import TensorType
from . import batching, cpu_conv
from .ad_util import F, dilate, pad_or_crop
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


def _xla_conv(x, w, *, strides, padding, lhs_dilation, rhs_dilation, groups, batch_groups):
    if any(lo < 0 or hi < 0 for lo, hi in padding):
        # XLA's CPU convolution computes wrong values when one padding is negative and another
        # positive (jax 0.10; padding ((-1, 1), (0, -2)) differs by ~5 from the cropped input's
        # convolution), and the vjp rules of strided convolutions produce such paddings. Crop
        # (and dilate) those axes with lax.pad first, and convolve with what padding is left.
        config = [(0, 0, 0)] * 2
        rest, dilation = [], []
        for (lo, hi), d in zip(padding, lhs_dilation):
            if lo < 0 or hi < 0:
                config.append((min(lo, 0), min(hi, 0), d - 1))
                rest.append((max(lo, 0), max(hi, 0)))
                dilation.append(1)
            else:
                config.append((0, 0, 0))
                rest.append((lo, hi))
                dilation.append(d)
        x = jax.lax.pad(x, np.zeros((), x.dtype), config)
        padding, lhs_dilation = tuple(rest), tuple(dilation)
    return jax.lax.conv_general_dilated(
        x, w, strides, padding, lhs_dilation, rhs_dilation,
        feature_group_count=groups, batch_group_count=batch_groups,
        preferred_element_type=x.dtype)


def _direct_conv(x, w, *, strides, padding, lhs_dilation, rhs_dilation, groups, batch_groups):
    """ops/cpu_conv.py's direct form, on the padded (or cropped) and dilated input."""
    config = [(0, 0, 0)] * 2 + [(lo, hi, d - 1) for (lo, hi), d in zip(padding, lhs_dilation)]
    x = jax.lax.pad(x, np.zeros((), x.dtype), config)
    out_spatial = [_window_out(d, k, s, 0, 0, 1, r)
                   for d, k, s, r in zip(x.shape[2:], w.shape[2:], strides, rhs_dilation)]
    return cpu_conv.direct_conv(x, w, strides, rhs_dilation, groups, out_spatial)


def _conv_impl(x, w, **attrs):
    """XLA's convolution; on the CPU a narrow one's direct form (ops/cpu_conv.py)."""
    if not cpu_conv.has_direct_form(w.shape, attrs["batch_groups"]):
        return _xla_conv(x, w, **attrs)
    if cpu_conv.cpu_only():   # the platform is known: no switch to trace both forms into
        return _direct_conv(x, w, **attrs)
    return jax.lax.platform_dependent(x, w, cpu=lambda x, w: _direct_conv(x, w, **attrs),
                                      default=lambda x, w: _xla_conv(x, w, **attrs))


conv = Primitive("conv", _conv_rule, _conv_impl)

# Lowerings of a convolution whose weights are mapped by vmap (N members):
#   grouped   fold N into the channels and use feature_group_count (what jax.vmap emits)
#   unrolled  N convolutions whose outputs stay apart (batching.SPLIT) while they are large
#   wide      shared (unmapped) input: the N weights concatenated on the output-channel
#             axis, one convolution, then a reshape
CONV_STRATEGIES = ("grouped", "unrolled", "wide")
# Grouped convolution is used while the per-member batch is at most GROUPED_MAX_BATCH[N]
# (the largest N at or below the actual one applies); unrolled above. Measured on this
# project's 2-core CPU (XLA CPU, float32) with `python bench/bench_vmap.py --conv`, LeNet5's
# conv2 [B,6,14,14] x [16,6,5,5] with per-member inputs, median ms grouped / unrolled:
#   N=4:  B=1 0.42/0.15  B=8 3.9/1.4   B=64 25/4.6
#   N=16: B=1 1.5/0.45   B=8 15/2.1    B=64 121/19
#   N=64: B=1 6.9/2.7    B=8 84/15     B=32 576/68
# so on this CPU grouped never wins (0 everywhere); other backends get their own table.
GROUPED_MAX_BATCH = {1: 0, 4: 0, 16: 0, 64: 0}


# onnxruntime (CPU) has two targets, both in an exported ensemble (compiler/onnx_dispatch.py
# picks one per call by the batch size). Measured with bench/bench_onnx.py's peers, LeNet5,
# median ms at N=16 / N=64 (2-core CPU):
#   onnx          every convolution with per-member weights unrolled, the members' chains
#                 apart to the end (batching.SPLIT_MIN_ELEMENTS["onnx"] is 0): the form of a
#                 torch.onnx export of N models. batch 8: 3.7 / 15.0 (stacked: 4.4 / 22.6),
#                 batch 256: 90 / 268 (stacked: 155 / 307). Except a narrow convolution over
#                 a shared input (see ONNX_WIDE_MAX_CHANNELS).
#   onnx-batched  one wide convolution over a shared input, grouped ones after it, stacked
#                 dense layers: fewer, larger nodes. batch 1: 0.79 / 3.0 (unrolled: 1.05 / 5.0).
#                 Lowered, it is rewritten into onnxruntime's blocked layout (compiler/onnx_blocked.py).
ONNX_CONV = {"onnx": ("unrolled", "unrolled"), "onnx-batched": ("wide", "grouped")}  # (shared, per-member input)
# A convolution over a shared input with fewer output channels per member than onnxruntime's
# blocked (NCHWc) kernels fill, 16 with AVX-512, is one wide convolution for the onnx target
# too: each member's own would be a GEMM of a few rows, followed by a reorder out of the
# blocked layout on the largest activation. LeNet5's conv1 (6 channels), wide then each
# member's chain, against all unrolled, median ms: N=16 batch 32 9.4 vs 15.7, batch 256 39 vs
# 60; N=64 batch 256 150 vs 250. The small ResNet's 16-channel stem lost as wide (N=4 batch
# 256: 1.47x torch.onnx's time, the members' slices of its full-size output cost more).
ONNX_WIDE_MAX_CHANNELS = 15


def choose_conv_strategy(forced, shared_input: bool, n: int, batch: int, member_out: int,
                         out_channels: int, target: str = "xla") -> str:
    """The lowering for N members, a per-member batch, per-member output size and output
    channels: forced (vmap's conv_strategy or the context's) when it applies, else measured
    for the target. In XLA a shared input takes one wide convolution unless each member's
    output is large enough to stay split (unrolled keeps the per-member loop's peak memory:
    wide holds all N outputs at once)."""
    if forced is not None and not (forced == "wide" and not shared_input):
        return forced
    if target == "onnx" and shared_input and out_channels <= ONNX_WIDE_MAX_CHANNELS:
        return "wide"
    if target in ONNX_CONV:
        return ONNX_CONV[target][0 if shared_input else 1]
    if shared_input:
        return "wide" if member_out * n < batching.SPLIT_MIN_ELEMENTS["xla"] else "unrolled"
    limit = GROUPED_MAX_BATCH[max(k for k in GROUPED_MAX_BATCH if k <= max(n, 1))]
    return "grouped" if batch <= limit else "unrolled"


STRATEGY_NOTE = "conv_strategy="


def chose_by_target(graph) -> bool:
    """Whether the vmap pass chose a lowering by target for `graph`: its nodes carry a rule's
    `conv_strategy=` or `dot_strategy=` note, which survives inlining into an enclosing trace.
    Those are the only choices that differ between targets, so a graph without one is the
    same graph for every target."""
    return any("_strategy=" in node.source.scope for node in graph.nodes) or \
        any(chose_by_target(sub) for sub in graph.subgraphs())


@conv.def_batch
def _conv_batch(ctx, args, dims, **attrs):
    from . import functional as F
    (x, w), (dx, dw) = args, dims
    n, groups = ctx.axis_size, attrs["groups"]
    if attrs["batch_groups"] != 1:  # the weight-gradient form: member by member
        ctx.annotate(STRATEGY_NOTE + "unrolled")
        return batching.unrolled(conv)(ctx, args, dims, **attrs)
    if dw is None:  # shared weights: the members are just more images
        d = dx if dx in (0, 1) else 0
        x = batching.move(x, dx, d)
        out = conv.bind(F.reshape(x, (x.shape[0] * x.shape[1],) + x.shape[2:]), w, **attrs)
        return F.reshape(out, x.shape[:2] + out.shape[1:]), d
    # Sizes as one program will run them (a tile's rows when the XLA pipeline tiles the batch).
    batch = max(1, round((x.shape[1] if dx == 0 else x.shape[0]) * ctx.row_fraction))
    member_out = math.prod(ctx.node.outputs[0].shape) * ctx.row_fraction if ctx.node is not None else 0
    w = batching.move(w, dw, 0)                                   # [N, O, C/g, k...]
    out_ch, kernel = w.shape[1], w.shape[2:]
    strategy = choose_conv_strategy(ctx.conv_strategy, dx is None, n, batch, member_out, out_ch, ctx.target)
    ctx.annotate(STRATEGY_NOTE + strategy)
    if strategy == "unrolled":  # members stay apart (SPLIT): the pass restacks them when small
        return [conv.bind(batching.member(x, dx, i), batching.member(w, 0, i), **attrs)
                for i in range(n)], batching.SPLIT
    if strategy == "wide":
        # Output channels of group j must stay together: order the rows (group, member, o).
        wide = F.reshape(w, (n, groups, out_ch // groups) + kernel)
        wide = F.reshape(F.swapaxes(wide, 0, 1) if groups > 1 else wide, (n * out_ch,) + kernel)
        out = conv.bind(x, wide, **attrs)                         # [B, g*N*O/g, ...]
        spatial = out.shape[2:]
        out = F.reshape(out, (out.shape[0], groups, n, out_ch // groups) + spatial)
        out = F.swapaxes(out, 1, 2) if groups > 1 else out
        return F.reshape(out, (out.shape[0], n, out_ch) + spatial), 1
    x = batching.materialize(x, dx, n, 1)                         # [B, N, C, ...]
    xg = F.reshape(x, (x.shape[0], n * x.shape[2]) + x.shape[3:])
    out = conv.bind(xg, F.reshape(w, (n * out_ch,) + kernel), **{**attrs, "groups": n * groups})
    return F.reshape(out, (x.shape[0], n, out_ch) + out.shape[2:]), 1


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
    # A numpy scalar, not a jnp array: under jax.jit a jnp array would be a tracer, and jax
    # only recognises (and can differentiate) max-pooling with a constant init value.
    return np.array(-np.inf if jnp.issubdtype(dtype, jnp.floating) else jnp.iinfo(dtype).min, dtype)


def _reduce_window_max(x, *, window, strides, padding):
    return jax.lax.reduce_window(x, _init_max(x.dtype), jax.lax.max,
                                 window, strides, padding)


def _reduce_window_sum(x, *, window, strides, padding):
    return jax.lax.reduce_window(x, np.array(0, x.dtype), jax.lax.add, window, strides, padding)


# Padding never wins a max (padded with -inf) and adds nothing to a sum.
reduce_window_max = Primitive("reduce_window_max", _reduce_window_rule, _reduce_window_max)
reduce_window_sum = Primitive("reduce_window_sum", _reduce_window_rule, _reduce_window_sum)


def _window_batch(prim):
    """A window of 1 over the mapped axis."""
    def rule(ctx, args, dims, *, window, strides, padding):
        d = next(d for d in dims if d is not None)
        args = [batching.materialize(a, dd, ctx.axis_size, d) for a, dd in zip(args, dims)]
        ins = lambda t, v: tuple(t[:d]) + (v,) + tuple(t[d:])  # noqa: E731
        return prim.bind(*args, window=ins(window, 1), strides=ins(strides, 1),
                         padding=ins(padding, (0, 0))), d
    return rule


reduce_window_max.def_batch(_window_batch(reduce_window_max))
reduce_window_sum.def_batch(_window_batch(reduce_window_sum))


def _max_grad_rule(x: TensorType, g: TensorType, *, window, strides, padding) -> TensorType:
    check(tuple(g.shape) == _reduce_window_rule(x, window=window, strides=strides, padding=padding).shape,
          "reduce_window_max_grad: cotangent shape mismatch")
    return x


def _max_grad_impl(x, g, *, window, strides, padding):
    if tuple(window) == tuple(strides) and not any(lo or hi for lo, hi in padding) \
            and all(d % k == 0 for d, k in zip(x.shape, window)):
        return _tiling_max_grad(x, g, window)
    _, vjp = jax.vjp(lambda a: _reduce_window_max(a, window=window, strides=strides, padding=padding), x)
    return vjp(g)[0]


def _tiling_max_grad(x, g, window):
    """The max-pool gradient where the windows tile x: each window's elements on a last axis,
    argmax picks the first maximum (the element XLA's select-and-scatter picks among equals),
    and the cotangent goes there. XLA's CPU select-and-scatter becomes iotas, a reduce-window
    over (value, index) pairs and a scatter: LeNet5's first pool gradient at batch 32 takes
    1.54 ms that way, 0.39 ms this way. (A NaN in a window: argmax picks it; select-and-
    scatter picks the first element. Both are arbitrary for a NaN input.)"""
    rank = x.ndim
    split = tuple(v for d, k in zip(x.shape, window) for v in (d // k, k))   # [d0/k0, k0, d1/k1, k1, ...]
    to_last = tuple(range(0, 2 * rank, 2)) + tuple(range(1, 2 * rank, 2))   # window offsets last
    blocks = jnp.transpose(x.reshape(split), to_last).reshape(g.shape + (-1,))
    winner = jnp.argmax(blocks, axis=-1)
    routed = jnp.where(jnp.arange(blocks.shape[-1]) == winner[..., None], g[..., None], jnp.zeros((), g.dtype))
    back = jnp.transpose(routed.reshape(g.shape + tuple(window)), np.argsort(to_last))
    return back.reshape(x.shape)


# The transpose of max pooling: routes each cotangent to the (first) max of its window.
reduce_window_max_grad = Primitive("reduce_window_max_grad", _max_grad_rule, _max_grad_impl)
reduce_window_max_grad.def_batch(_window_batch(reduce_window_max_grad))


# -- vjp rules. A convolution's cotangents are convolutions too (jax's transpose rules,
# specialised to the fixed NCHW / OIHW layout: the transposed dimension numbers become
# explicit transposes).
def _dilate_shape(shape, dilation):
    return tuple(0 if d == 0 else 1 + r * (d - 1) for d, r in zip(shape, dilation))


def _vjp_lhs_padding(in_shape, window, strides, out_shape, padding, lhs_dilation, rhs_dilation):
    lhs_d, rhs_d = _dilate_shape(in_shape, lhs_dilation), _dilate_shape(window, rhs_dilation)
    out_d = _dilate_shape(out_shape, strides)
    before = [r - lo - 1 for r, (lo, _) in zip(rhs_d, padding)]
    return tuple((b, l + r - 1 - o - b) for b, l, r, o in zip(before, lhs_d, rhs_d, out_d))


def _vjp_rhs_padding(in_shape, window, strides, out_shape, padding, lhs_dilation, rhs_dilation):
    lhs_d, rhs_d = _dilate_shape(in_shape, lhs_dilation), _dilate_shape(window, rhs_dilation)
    out_d = _dilate_shape(out_shape, strides)
    return tuple((lo, (o - l) + (r - lo - 1)) for (lo, _), o, l, r in zip(padding, out_d, lhs_d, rhs_d))


def _axis_out_of(x, axis, size1):
    return F.reshape(x, x.shape[:axis] + (size1, x.shape[axis] // size1) + x.shape[axis + 1:])


def _axis_into(x, src, dst):
    """Merges axis `src` into axis `dst` (numbered without src), src as the major part."""
    perm = [i for i in range(x.ndim) if i != src]
    perm.insert(dst, src)
    shape = [d for i, d in enumerate(x.shape) if i != src]
    shape[dst] *= x.shape[src]
    return F.reshape(F.transpose(x, perm), shape)


def _swap01(x):
    return F.transpose(x, (1, 0) + tuple(range(2, x.ndim)))


def _conv_vjp_lhs(ct, x, w, *, strides, padding, lhs_dilation, rhs_dilation, groups, batch_groups):
    if batch_groups == 1 and all(d == 1 for d in lhs_dilation) and all(lo >= 0 and hi >= 0 for lo, hi in padding):
        return conv_transpose.bind(ct, w, lhs_shape=tuple(x.shape[2:]), strides=strides, padding=padding,
                                   rhs_dilation=rhs_dilation, groups=groups)
    g = max(groups, batch_groups)
    if g > 1:  # move the group axis into the transposed kernel's output features
        w = _axis_into(_axis_out_of(w, 0, g), 0, 1)
    pads = _vjp_lhs_padding(x.shape[2:], w.shape[2:], strides, ct.shape[2:], padding,
                            lhs_dilation, rhs_dilation)
    for axis in range(2, w.ndim):  # the kernel, spatially reversed
        w = F.take_in_range(w, F.Tensor(np.arange(w.shape[axis] - 1, -1, -1), F.mstype.int32), axis)
    out = conv.bind(ct, _swap01(w), strides=lhs_dilation, padding=pads, lhs_dilation=strides,
                    rhs_dilation=rhs_dilation, groups=g, batch_groups=1)
    if batch_groups > 1:
        out = _axis_into(_axis_out_of(out, 1, batch_groups), 1, 0)
    return out


def _conv_vjp_rhs(ct, x, w, *, strides, padding, lhs_dilation, rhs_dilation, groups, batch_groups):
    fg, bg = (batch_groups, 1) if batch_groups > 1 else (1, groups)
    pads = _vjp_rhs_padding(x.shape[2:], w.shape[2:], strides, ct.shape[2:], padding,
                            lhs_dilation, rhs_dilation)
    out = conv.bind(_swap01(x), _swap01(ct), strides=rhs_dilation, padding=pads,
                    lhs_dilation=lhs_dilation, rhs_dilation=strides, groups=fg, batch_groups=bg)
    return _swap01(out)


# -- conv_transpose: the input gradient of a convolution ---------------------------------------
#
#   %g:f32[B,C,X...] = conv_transpose(%ct:f32[B,O,Y...], %w:f32[O,C/groups,k...]) {lhs_shape=X, <conv attrs>}
#
# is the cotangent of conv(x: [B,C,X...], w) {<conv attrs>} for the output cotangent ct: the
# transpose of the convolution (attrs are the forward convolution's; no input dilation, no
# negative padding, no batch groups, which keep the general form above). It is its own
# primitive because backends have it: ONNX ConvTranspose runs LeNet5's conv2 input gradient
# 2.4x faster in onnxruntime than the zero-padded convolution with the flipped kernel (and
# strided ones need no dilated copy of the cotangent).

def _conv_transpose_attrs(lhs_shape, strides, padding, rhs_dilation, groups) -> dict:
    """The forward convolution's attrs."""
    n = len(lhs_shape)
    return dict(strides=strides, padding=padding, lhs_dilation=(1,) * n, rhs_dilation=rhs_dilation,
                groups=groups, batch_groups=1)


def _conv_transpose_rule(ct: TensorType, w: TensorType, *, lhs_shape, strides, padding, rhs_dilation,
                         groups) -> TensorType:
    dtype = same_dtype("conv_transpose", ct, w)
    check(ct.ndim >= 3 and w.ndim == ct.ndim and len(lhs_shape) == ct.ndim - 2,
          f"conv_transpose expects a cotangent [N,O,spatial...], a weight [O,C/groups,k...] and one "
          f"input size per spatial axis, got {list(ct.shape)}, {list(w.shape)} and lhs_shape={list(lhs_shape)}")
    x = TensorType((ct.shape[0], w.shape[1] * groups) + tuple(lhs_shape), dtype)
    forward = _conv_rule(x, w, **_conv_transpose_attrs(lhs_shape, strides, padding, rhs_dilation, groups))
    check(forward.shape == ct.shape, f"conv_transpose: a convolution of {list(x.shape)} by {list(w.shape)} "
          f"gives {list(forward.shape)}, not the cotangent's {list(ct.shape)}")
    return x


def _conv_transpose_impl(ct, w, *, lhs_shape, strides, padding, rhs_dilation, groups):
    """The convolution jax's transpose rule makes of the forward one (what `jax.vjp` of
    `_xla_conv` gives), written out: a vjp traced the forward convolution too, for every
    convolution of a network's backward pass."""
    nsp = len(lhs_shape)
    pads = _vjp_lhs_padding(lhs_shape, w.shape[2:], strides, ct.shape[2:], padding, (1,) * nsp, rhs_dilation)
    if groups > 1:   # the group axis moves from the kernel's output features into its inputs
        o, cg = w.shape[:2]
        w = jax.lax.reshape(w, (groups, o // groups) + w.shape[1:])              # [G, O/G, C/G, k...]
        w = jax.lax.reshape(w, (o // groups, groups * cg) + w.shape[3:],        # [O/G, G*C/G, k...]
                            dimensions=(1, 0) + tuple(range(2, w.ndim)))
    spatial = tuple(range(2, 2 + nsp))
    return jax.lax.conv_general_dilated(
        ct, jax.lax.rev(w, spatial), (1,) * nsp, pads, lhs_dilation=strides, rhs_dilation=rhs_dilation,
        dimension_numbers=jax.lax.ConvDimensionNumbers((0, 1) + spatial, (1, 0) + spatial, (0, 1) + spatial),
        feature_group_count=groups, preferred_element_type=ct.dtype)


conv_transpose = Primitive("conv_transpose", _conv_transpose_rule, _conv_transpose_impl)


@conv_transpose.def_batch
def _conv_transpose_batch(ctx, args, dims, **attrs):
    """As conv's rule: the same strategies, chosen by the same tables (a transposed convolution
    in a graph is either a layer's, nn.Conv2dTranspose, or a convolution's input gradient)."""
    from . import functional as F
    (ct, w), (dct, dw) = args, dims
    n, groups = ctx.axis_size, attrs["groups"]
    if dw is None:  # shared weights: the members are just more images
        d = dct if dct in (0, 1) else 0
        ct = batching.move(ct, dct, d)
        out = conv_transpose.bind(F.reshape(ct, (ct.shape[0] * ct.shape[1],) + ct.shape[2:]), w, **attrs)
        return F.reshape(out, ct.shape[:2] + out.shape[1:]), d
    batch = max(1, round((ct.shape[1] if dct == 0 else ct.shape[0]) * ctx.row_fraction))
    member_out = math.prod(ctx.node.outputs[0].shape) * ctx.row_fraction if ctx.node is not None else 0
    w = batching.move(w, dw, 0)                                   # [N, I, O/g, k...]
    in_ch, out_g, kernel = w.shape[1], w.shape[2], w.shape[3:]
    out_ch = out_g * groups
    strategy = choose_conv_strategy(ctx.conv_strategy, dct is None, n, batch, member_out, out_ch, ctx.target)
    ctx.annotate(STRATEGY_NOTE + strategy)
    if strategy == "unrolled":  # members stay apart (SPLIT): the pass restacks them when small
        return [conv_transpose.bind(batching.member(ct, dct, i), batching.member(w, 0, i), **attrs)
                for i in range(n)], batching.SPLIT
    if strategy == "wide":
        # One transposed convolution over the shared input with the members' output channels
        # side by side within each group: weight columns ordered (member, o) per group row block.
        wide = F.reshape(w, (n, groups, in_ch // groups, out_g) + kernel)
        wide = F.transpose(wide, (1, 2, 0, 3) + tuple(range(4, 4 + len(kernel))))  # [g, I/g, N, O/g, k...]
        out = conv_transpose.bind(ct, F.reshape(wide, (in_ch, n * out_g) + kernel), **attrs)
        spatial = out.shape[2:]                                   # [B, g*N*O/g, ...]
        out = F.reshape(out, (out.shape[0], groups, n, out_g) + spatial)
        out = F.swapaxes(out, 1, 2) if groups > 1 else out
        return F.reshape(out, (out.shape[0], n, out_ch) + spatial), 1
    # grouped: the members' channels side by side, N*groups groups
    ct = batching.materialize(ct, dct, n, 1)                      # [B, N, I, ...]
    cg = F.reshape(ct, (ct.shape[0], n * in_ch) + ct.shape[3:])
    out = conv_transpose.bind(cg, F.reshape(w, (n * in_ch, out_g) + kernel), **{**attrs, "groups": n * groups})
    return F.reshape(out, (ct.shape[0], n, out_ch) + out.shape[2:]), 1


@conv_transpose.def_vjp
def _conv_transpose_vjp(ctx, cts, primals, outs, *, lhs_shape, **attrs):
    # Linear in each operand: <g, convT(ct, w)> = <conv(g, w), ct>.
    (ct, w), g = primals, cts[0]
    forward = _conv_transpose_attrs(lhs_shape, **attrs)
    return (conv.bind(g, w, **forward) if ctx.needs[0] else None,
            _conv_vjp_rhs(ct, g, w, **forward) if ctx.needs[1] else None)


@conv.def_vjp
def _conv_vjp(ctx, cts, primals, outs, **attrs):
    (x, w), ct = primals, cts[0]
    return (_conv_vjp_lhs(ct, x, w, **attrs) if ctx.needs[0] else None,
            _conv_vjp_rhs(ct, x, w, **attrs) if ctx.needs[1] else None)


@reduce_window_sum.def_vjp
def _window_sum_vjp(ctx, cts, primals, outs, *, window, strides, padding):
    x, ct = primals[0], cts[0]
    ones = (1,) * x.ndim
    pads = _vjp_lhs_padding(x.shape, window, strides, ct.shape, padding, ones, ones)
    spread = pad_or_crop(dilate(ct, strides), *zip(*pads))
    return (reduce_window_sum.bind(spread, window=window, strides=ones, padding=((0, 0),) * x.ndim),)


@reduce_window_max.def_vjp
def _window_max_vjp(ctx, cts, primals, outs, *, window, strides, padding):
    return (reduce_window_max_grad.bind(primals[0], cts[0], window=window, strides=strides, padding=padding),)


@reduce_window_max_grad.def_vjp
def _window_max_grad_vjp(ctx, cts, primals, outs, *, window, strides, padding):
    # Linear in g: each window gathers the cotangent at its winner. Without overlap the
    # winners are where routing ones lands, so a masked window sum does it.
    x, g = primals
    if any(s < k for s, k in zip(strides, window)):
        raise NotImplementedError("the second derivative of max pooling is implemented for "
                                  f"non-overlapping windows only (window {window}, strides {strides})")
    winners = reduce_window_max_grad.bind(x, F.ones_like(g), window=window, strides=strides, padding=padding)
    return None, reduce_window_sum.bind(F.mul(cts[0], winners), window=window, strides=strides, padding=padding)


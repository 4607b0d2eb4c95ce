"""Batch-rule templates and helpers for the vmap pass (jax's batching.py, in graphcell terms).

A batch rule has one fixed signature:

    rule(ctx, args, dims, **attrs) -> (out, out_dim)          # one result
    rule(ctx, args, dims, **attrs) -> (outs, out_dims)        # multiple_results primitives

`args` are symbolic Tensors of the graph being built, `dims[i]` is the mapped axis of
`args[i]` (None: not batched), and `ctx` is a `passes.vmap.BatchContext` (axis_size,
randomness, conv_strategy, ...). Rules are written with `graphcell.ops.functional` and
`prim.bind`, so the nodes they emit are ordinary, shape-checked nodes.

Families get one template each: `vectorized` (elementwise unary), `broadcasting` (numpy-
broadcasting n-ary ops), `reducer` (reductions over an `axes` attr) and `unrolled` (the
always-correct fallback: one application per member, stacked).
"""
from __future__ import annotations

import math


# A rule may return `SPLIT` as an output's dim, with a list of per-member Tensors as the output:
# the pass then keeps the members apart and applies the following nodes member by member
# (what a loop over N models does) for as long as each member's value stays large, which
# keeps the peak memory of the unrolled form; small values are stacked again.
SPLIT = "split"
# Members stay apart while the N members' values together have at least this many elements,
# per lowering target.
# xla: 2**25 (128 MiB of float32). Measured on this project's 2-core CPU with
#   bench/bench_vmap.py (LeNet5 ensembles): split chains are slower than stacked ops in XLA
#   (more, smaller ops: N=16 batch 256 took 1.26x the Python loop split at 2**24, 0.5-0.8x
#   stacked), so they are kept for where memory matters: N=64 at batch 256 stays split through
#   the conv stages (the unrolled loop's peak memory, 1.00x, instead of 1.96x stacked).
# onnx: never restacked. onnxruntime runs a member's Conv+Relu+MaxPool chain fused and in
#   cache, and the restacking Concat/Reshape/Transpose ops cost more than they save (see
#   nn_prims.choose_conv_strategy for when the convolutions are split at all).
# onnx-batched: the stacked form for onnxruntime at tiny batches, where per-node overhead
#   dominates (export puts both forms in one file; compiler/onnx_dispatch.py).
SPLIT_MIN_ELEMENTS = {"xla": 1 << 25, "onnx": 0, "onnx-batched": 1 << 25}
# Whether split members' gradients of a mapped parameter (on their way to the optimizer; the
# grad pass notes the node that makes each) are stacked again at once, one Concat, so that the
# update runs once on the stacks instead of member by member on their slices. onnxruntime: yes
# (N=4 LeNet5 training step: the Adam update was 650 of 1,570 nodes, slices, reshapes and
# elementwise ops of a few microseconds each). XLA keeps members split only where memory
# demands it.
STACK_PARAMETER_GRADIENTS = {"xla": False, "onnx": True, "onnx-batched": True}


def _F():
    from . import functional  # late: functional imports the primitive families
    return functional


def move(x, d, dst: int):
    """`x` with its mapped axis `d` moved to `dst` (a no-op emits no node)."""
    return _F().moveaxis(x, d, dst) if d != dst else x


def materialize(x, d, size: int, dst: int = 0):
    """`x` batched at `dst`: moves the mapped axis there, or broadcasts an unbatched value."""
    F = _F()
    if d is None:
        shape = x.shape[:dst] + (size,) + x.shape[dst:]
        return F.broadcast_to(F.expand_dims(x, dst), shape)
    return move(x, d, dst)


def member(x, d, i: int):
    """Member `i`'s slice of `x` (x itself when unbatched)."""
    if d is None:
        return x
    F = _F()
    return F.squeeze(F.slice_axis(x, d, i, i + 1), d)


def unbatched_axis(axis: int, d: int) -> int:
    """Where an axis of the per-member value sits in the batched value (mapped axis at d)."""
    return axis + (axis >= d)


def vectorized(prim):
    """Elementwise unary: the mapped axis passes through untouched."""
    def rule(ctx, args, dims, **attrs):
        return prim.bind(*args, **attrs), dims[0]
    return rule


def broadcasting(prim):
    """N-ary ops with numpy broadcasting (binary arithmetic, comparisons, select).

    When every batched operand has its mapped axis at the same place and no unbatched operand
    reaches that axis by trailing alignment, the op applies as is. Otherwise the other batched
    operands are brought to the largest full-rank operand's mapped axis (a per-channel scale
    moves, not the activation it scales: an ensemble's BatchNorm after a wide convolution
    keeps the [B, N, C, H, W] layout, with no transpose of the activation and back), or, when
    there is none, every batched operand to [N, 1.., rest]; unbatched ones stay (trailing
    alignment)."""
    def rule(ctx, args, dims, **attrs):
        F = _F()
        rank = max(a.ndim - (d is not None) for a, d in zip(args, dims))  # per-member out rank
        batched = {(d, a.ndim) for a, d in zip(args, dims) if d is not None}
        if len(batched) == 1:
            d, nd = next(iter(batched))
            if nd == rank + 1 and all(a.ndim < rank + 1 - d for a, dd in zip(args, dims) if dd is None):
                return prim.bind(*args, **attrs), d
        full = [(math.prod(a.shape), d) for a, d in zip(args, dims) if d is not None and a.ndim == rank + 1]
        if full:
            t = max(full)[1]
            if all(a.ndim < rank + 1 - t for a, d in zip(args, dims) if d is None):
                moved = []
                for a, d in zip(args, dims):
                    if d is not None and not (d == t and a.ndim == rank + 1):
                        a = move(a, d, 0)
                        a = move(F.reshape(a, (a.shape[0],) + (1,) * (rank + 1 - a.ndim) + a.shape[1:]), 0, t)
                    moved.append(a)
                return prim.bind(*moved, **attrs), t
        moved = []
        for a, d in zip(args, dims):
            if d is not None:
                a = move(a, d, 0)
                a = F.reshape(a, (a.shape[0],) + (1,) * (rank + 1 - a.ndim) + a.shape[1:])
            moved.append(a)
        return prim.bind(*moved, **attrs), 0
    return rule


def reducer(prim):
    """Reductions over an `axes` attribute: shift the axes past the mapped one."""
    def rule(ctx, args, dims, *, axes, **attrs):
        (x,), (d,) = args, dims
        new_axes = tuple(unbatched_axis(a, d) for a in axes)
        out_d = d - sum(1 for a in new_axes if a < d)
        return prim.bind(x, axes=new_axes, **attrs), out_d
    return rule


def unrolled(prim):
    """The fallback for rare combinations: apply `prim` to each member, stack on axis 0."""
    def rule(ctx, args, dims, **attrs):
        F = _F()
        per_member = [prim.bind(*[member(a, d, i) for a, d in zip(args, dims)], **attrs)
                      for i in range(ctx.axis_size)]
        if prim.multiple_results:
            outs = tuple(F.stack([m[k] for m in per_member], 0) for k in range(len(per_member[0])))
            return outs, (0,) * len(outs)
        return F.stack(per_member, 0), 0
    return rule


def not_batchable(prim):
    """For primitives without batched inputs (constants): never called with a mapped axis."""
    def rule(ctx, args, dims, **attrs):
        raise AssertionError(f"{prim.name} has no operands to batch")
    return rule

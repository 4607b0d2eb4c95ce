"""Fused primitives: a product and its bias as one node, where a backend has the fused form.

    %2:f32[3,120] = linear(%x, %fc1.weight, %fc1.bias) {contract=((1,),(1,))}     ONNX Gemm
    %1:f32[3,6,28,28] = conv_bias(%x, %conv1.weight, %conv1.bias) {...conv attrs}  ONNX Conv, 3 inputs

`linear` is a 2-D `dot_general` with one contracting pair plus a bias of [O] or [1, O];
`conv_bias` is a `conv` plus one bias per output channel, [O] or [1, O, 1...].

Tracing never makes them: the fuse pass (`passes/fuse.py`) does, in the ONNX pipeline, after
vmap and grad. Their batch and vjp rules therefore decompose into the unfused primitives
(`dot_general`/`conv`, then `add`) and reuse those primitives' rules; they are correct but not
tuned. The ONNX rules live in the backend's table (`compiler/onnx_rules.py`), as for every
other primitive.
"""
from __future__ import annotations

import math

import jax

from ..ir.core import TensorType
from . import batching
from .ad_util import F, unbroadcast
from .elementwise import add
from .linalg import _dot_impl, _dot_rule, dot_general
from .nn_prims import _conv_impl, _conv_rule, conv
from .primitive import Primitive, check, same_dtype

NO_BATCH = ((), ())


# -- linear: x @ w (a 2-D dot_general with one contracting pair) + bias ------------------------

def _linear_rule(x: TensorType, w: TensorType, b: TensorType, *, contract) -> TensorType:
    (lc, rc) = contract
    check(x.ndim == 2 and w.ndim == 2 and len(lc) == len(rc) == 1,
          f"linear: needs 2-D operands with one contracting axis each, got {x}, {w} and contract={contract}")
    out = _dot_rule(x, w, contract=contract, batch=NO_BATCH)
    dtype = same_dtype("linear", x, w, b)
    check(dtype.is_floating, f"linear: needs floating-point operands, got {dtype}")
    o = out.shape[1]
    check(b.shape in ((o,), (1, o)), f"linear: the bias must have shape [{o}] or [1, {o}], got {list(b.shape)}")
    return out


def _linear_impl(x, w, b, *, contract):
    return _dot_impl(x, w, contract=contract, batch=NO_BATCH) + b


linear = Primitive("linear", _linear_rule, _linear_impl)


@linear.def_batch
def _linear_batch(ctx, args, dims, *, contract):
    (x, w, b), (dx, dw, db) = args, dims
    if dx is None and dw is None:
        out, od = dot_general.bind(x, w, contract=contract, batch=NO_BATCH), None
    else:
        out, od = dot_general.batch_rule(ctx, (x, w), (dx, dw), contract=contract, batch=NO_BATCH)
    return add.batch_rule(ctx, (out, b), (od, db))


@linear.def_vjp
def _linear_vjp(ctx, cts, primals, outs, *, contract):
    x, w, b = primals
    ct_x, ct_w = dot_general.vjp_rule(ctx, cts, (x, w), outs, contract=contract, batch=NO_BATCH)
    return ct_x, ct_w, unbroadcast(cts[0], b.shape) if ctx.needs[2] else None


# -- conv_bias: conv + one bias per output channel ---------------------------------------------

def _conv_bias_rule(x: TensorType, w: TensorType, b: TensorType, **attrs) -> TensorType:
    out = _conv_rule(x, w, **attrs)
    same_dtype("conv_bias", x, w, b)
    o = out.shape[1]
    per_channel = (1, o) + (1,) * (out.ndim - 2)
    check(b.shape in ((o,), per_channel), f"conv_bias: the bias must have shape [{o}] or "
          f"{list(per_channel)} (one entry per output channel), got {list(b.shape)}")
    return out


def _conv_bias_impl(x, w, b, **attrs):
    out = _conv_impl(x, w, **attrs)
    return out + jax.numpy.reshape(b, (1, -1) + (1,) * (out.ndim - 2))


conv_bias = Primitive("conv_bias", _conv_bias_rule, _conv_bias_impl)


@conv_bias.def_batch
def _conv_bias_batch(ctx, args, dims, **attrs):
    (x, w, b), (dx, dw, db) = args, dims
    nsp = x.ndim - 2 - (dx is not None)
    if dx is None and dw is None:
        out, od = conv.bind(x, w, **attrs), None
    else:
        out, od = conv.batch_rule(ctx, (x, w), (dx, dw), **attrs)
    channels = math.prod(b.shape) // (b.shape[db] if db is not None else 1)
    per_channel = (1, channels) + (1,) * nsp            # each member's bias as [1, O, 1...]
    if db is None:
        bias, bd = F.reshape(b, per_channel), None
    else:
        bias, bd = F.reshape(batching.move(b, db, 0), (b.shape[db],) + per_channel), 0
    if od == batching.SPLIT:  # the conv's members stay apart: add each member's bias
        return [F.add(o, batching.member(bias, bd, i)) for i, o in enumerate(out)], batching.SPLIT
    return add.batch_rule(ctx, (out, bias), (od, bd))


@conv_bias.def_vjp
def _conv_bias_vjp(ctx, cts, primals, outs, **attrs):
    x, w, b = primals
    ct_x, ct_w = conv.vjp_rule(ctx, cts, (x, w), outs, **attrs)
    ct = cts[0]
    ct_b = None
    if ctx.needs[2]:
        ct_b = F.reshape(F.reduce_sum(ct, [a for a in range(ct.ndim) if a != 1]), b.shape)
    return ct_x, ct_w, ct_b

"""Algebraic simplification and layout clean-ups, one small rewrite rule per primitive.

    graph f(%x: f32[2,3]) {                                 graph f(%x: f32[2,3]) {
      %0:f32[] = constant() {value=1.0}                       %0:f32[] = constant() {value=1.0}
      %1:f32[2,3] = mul(%x, %0)                               %1:f32[3,2] = transpose(%x) {perm=(1,0)}
      %2:f32[3,2] = transpose(%1) {perm=(1,0)}   simplify     return %x
      %3:f32[2,3] = transpose(%2) {perm=(1,0)}   ------->   }
      return %3
    }

`RULES` maps a primitive's name to `rule(node, ins, builder) -> outputs | None`: `ins` are the
node's inputs in the new graph (already simplified, so chains collapse in one walk), and a
rule returns the values that stand for the node's outputs, or None to keep the node. Rules
only ever produce the same values (bit for bit, but for the sign of a zero in x + 0);
nodes they bypass are left for DCE.

Identities: x*1, 1*x, x+0, 0+x, x-0, x/1, x**1, max(x,x), min(x,x), neg(neg(x)), select with
a constant predicate or equal branches, cast to the same dtype, exact cast round trips,
reductions over no axes, a backward hook's markers. Layout: transpose with the identity
permutation, transpose of transpose, a transpose that only moves unit axes (a reshape), reshape
to the same shape, reshape of reshape, broadcast to the same shape, broadcast of broadcast, a
broadcast that adds only unit axes (a reshape), reductions over unit axes only (a reshape),
full slices, zero pads, single-input concatenation; a sum of zero pads of disjoint spans of one
axis (a split's vjp) is one concatenation.
"""
from __future__ import annotations

import math

import numpy as np

from ..dtype import exact_cast
from ..ir.core import Graph, TensorType
from ..ops import PRIMITIVES
from ..ops import core_prims
from ..ops.primitive import Literal
from .base import PassResult, producer_of, rebuild, result

RULES: dict = {}


def rule(*names):
    def register(fn):
        for name in names:
            RULES[name] = fn
        return fn
    return register


def simplify(graph: Graph) -> PassResult:
    """Applies `RULES` to every node once, in order (a rule sees simplified inputs)."""
    def hook(node, ins, builder):
        fn = RULES.get(node.primitive.name)
        return None if fn is None else fn(node, ins, builder)
    new, changed = rebuild(graph, hook, subgraph_pass=simplify, scan_first=True)
    return result(graph, new, changed)


# -- helpers --------------------------------------------------------------------------------

_NOT_UNIFORM = object()


def uniform_value(value):
    """The one value every element of `value` holds, if it is a constant (possibly reshaped or
    broadcast) whose elements are all equal; else `_NOT_UNIFORM`."""
    node = value.producer
    while node is not None and node.primitive.name in ("broadcast_in_dim", "reshape"):
        node = node.inputs[0].producer
    if node is None or node.primitive is not core_prims.constant:
        return _NOT_UNIFORM
    array = node.attrs["value"].array
    if array.size == 0:
        return _NOT_UNIFORM
    first = array.reshape(-1)[0]
    return first.item() if np.all(array == first) else _NOT_UNIFORM


def _is(value, number) -> bool:
    u = uniform_value(value)
    return u is not _NOT_UNIFORM and u == number


def _bind(builder, name, ins, **attrs):
    (out,) = builder.add_node(PRIMITIVES[name], tuple(ins), attrs)
    return out


def as_type(builder, x, out: TensorType):
    """`x` standing for a value of type `out`: itself, or broadcast numpy-style to out's shape
    (binary ops broadcast their operands; the identity keeps the result's shape)."""
    if x.type == out:
        return x
    if x.dtype is not out.dtype:
        return None
    dims = tuple(range(len(out.shape) - x.ndim, len(out.shape)))
    return _bind(builder, "broadcast_in_dim", [x], shape=tuple(out.shape), dims=dims)


def _keep(builder, node, x):
    """Outputs standing for `node` = x, or None when x cannot stand for it."""
    x = as_type(builder, x, node.outputs[0].type)
    return None if x is None else (x,)


def _reshape(builder, x, shape):
    """`x` reshaped to `shape`, looking through a reshape that makes x (chains merge)."""
    inner = producer_of(x, PRIMITIVES["reshape"])
    if inner is not None:
        x = inner.inputs[0]
    return x if tuple(x.shape) == tuple(shape) else _bind(builder, "reshape", [x], shape=tuple(shape))


# -- identities -----------------------------------------------------------------------------

def _either_side(neutral):
    """x op e = e op x = x for a commutative op with neutral element `neutral`."""
    def simplify_pair(node, ins, builder):
        x, y = ins
        if _is(y, neutral):
            return _keep(builder, node, x)
        if _is(x, neutral):
            return _keep(builder, node, y)
        return None
    return simplify_pair


RULES["mul"] = _either_side(1)


@rule("add")
def _add(node, ins, builder):
    return _either_side(0)(node, ins, builder) or _disjoint_pads(node, ins, builder)


def _zero_pad_span(x):
    """(operand, zero, axis, lo) when x zero-pads one axis only (no crop); else None."""
    p = producer_of(x, PRIMITIVES["pad"])
    if p is None or not _is(p.inputs[1], 0):
        return None
    lo, hi = p.attrs["lo"], p.attrs["hi"]
    padded = [a for a in range(len(lo)) if lo[a] or hi[a]]
    if len(padded) != 1 or min(lo + hi) < 0:
        return None
    return p.inputs[0], p.inputs[1], padded[0], lo[padded[0]]


def _disjoint_pads(node, ins, builder):
    """pad(a) + pad(b), zero pads of disjoint spans of one axis: one concatenation (the vjp of
    an LSTM's gate split: four pads and three adds per step become one concatenate)."""
    spans = [_zero_pad_span(x) for x in ins]
    if None in spans or spans[0][2] != spans[1][2] or ins[0].type != ins[1].type:
        return None
    axis, zero = spans[0][2], spans[0][1]
    pieces = sorted(((lo, x) for x, _, _, lo in spans), key=lambda p: p[0])
    if pieces[0][0] + pieces[0][1].shape[axis] > pieces[1][0]:
        return None   # they overlap
    flat, at = [], pieces[0][0]
    for lo, x in pieces:
        if lo > at:   # a gap between them: zeros
            shape = tuple(lo - at if a == axis else d for a, d in enumerate(x.shape))
            flat.append(_bind(builder, "broadcast_in_dim", [zero], shape=shape, dims=()))
        inner = producer_of(x, PRIMITIVES["concatenate"])
        flat.extend(inner.inputs if inner is not None and inner.attrs["axis"] == axis else [x])
        at = lo + x.shape[axis]
    joined = _bind(builder, "concatenate", flat, axis=axis)
    size = node.outputs[0].shape[axis]
    if pieces[0][0] == 0 and at == size:
        return (joined,)
    lo = tuple(pieces[0][0] if a == axis else 0 for a in range(joined.ndim))
    hi = tuple(size - at if a == axis else 0 for a in range(joined.ndim))
    return (_bind(builder, "pad", [joined, zero], lo=lo, hi=hi),)


@rule("sub")
def _sub(node, ins, builder):
    return _keep(builder, node, ins[0]) if _is(ins[1], 0) else None


@rule("div", "pow")
def _right_one(node, ins, builder):
    return _keep(builder, node, ins[0]) if _is(ins[1], 1) else None


@rule("max", "min", "and", "or")
def _idempotent(node, ins, builder):
    return _keep(builder, node, ins[0]) if ins[0] is ins[1] else None


@rule("neg")
def _neg(node, ins, builder):
    inner = producer_of(ins[0], node.primitive)
    return (inner.inputs[0],) if inner is not None else None


@rule("backward_hook_enter")
def _hook_enter(node, ins, builder):
    """A backward hook's markers matter to the grad pass only, which runs before this one."""
    (token,) = builder.add_node(core_prims.constant, (), {"value": Literal(np.zeros((), np.bool_))})
    return (*ins, token)


@rule("backward_hook_exit")
def _hook_exit(node, ins, builder):
    return ins[1:]


@rule("tensor_hook")
def _tensor_hook(node, ins, builder):
    return ins


@rule("custom_bprop")
def _custom_bprop(node, ins, builder):
    """A Cell's bprop marker matters to the grad pass only, as the hooks' markers."""
    return ins[:node.attrs["n_out"]]


@rule("select")
def _select(node, ins, builder):
    pred, x, y = ins
    if x is y:
        return _keep(builder, node, x)
    p = uniform_value(pred)
    if p is _NOT_UNIFORM:
        return None
    return _keep(builder, node, x if p else y)


@rule("reduce_sum", "reduce_max", "reduce_min", "reduce_prod")
def _reduce(node, ins, builder):
    x, axes = ins[0], node.attrs["axes"]
    if all(x.shape[a] == 1 for a in axes):  # nothing to combine: a reshape (or nothing)
        return (_reshape(builder, x, node.outputs[0].shape),)
    return None


# -- casts ----------------------------------------------------------------------------------

@rule("cast")
def _cast(node, ins, builder):
    x, dtype = ins[0], node.attrs["dtype"]
    if x.dtype is dtype:
        return (x,)
    inner = producer_of(x, node.primitive)
    # The first cast lost nothing: cast the original directly, unless that changes the second
    # cast's kind (u8 -> f64 -> i8 saturates where u8 -> i8 wraps).
    if inner is not None and exact_cast(inner.inputs[0].dtype, x.dtype) \
            and (x.dtype.is_floating == inner.inputs[0].dtype.is_floating or dtype.is_floating):
        source = inner.inputs[0]
        return (source if source.dtype is dtype else _bind(builder, "cast", [source], dtype=dtype),)
    return None


# -- layout ---------------------------------------------------------------------------------

@rule("transpose")
def _transpose(node, ins, builder):
    x, perm = ins[0], node.attrs["perm"]
    inner = producer_of(x, node.primitive)
    if inner is not None:  # transpose of transpose: one permutation
        x, perm = inner.inputs[0], tuple(inner.attrs["perm"][p] for p in perm)
    if perm == tuple(range(len(perm))):
        return (x,)
    if [p for p in perm if x.shape[p] != 1] == [a for a in range(x.ndim) if x.shape[a] != 1]:
        return (_reshape(builder, x, node.outputs[0].shape),)  # moves only unit axes
    if inner is not None:
        return (_bind(builder, "transpose", [x], perm=perm),)
    return None


@rule("reshape")
def _reshape_rule(node, ins, builder):
    x, shape = ins[0], node.attrs["shape"]
    if producer_of(x, node.primitive) is not None or tuple(x.shape) == tuple(shape):
        return (_reshape(builder, x, shape),)
    return None


@rule("broadcast_in_dim")
def _broadcast(node, ins, builder):
    x, shape, dims = ins[0], node.attrs["shape"], node.attrs["dims"]
    inner = producer_of(x, node.primitive)
    if inner is not None:  # input axis i -> inner axis d1[i] -> output axis dims[d1[i]]
        x, dims = inner.inputs[0], tuple(dims[d] for d in inner.attrs["dims"])
    if math.prod(shape) == math.prod(x.shape):  # no element repeated: a reshape (or nothing)
        return (_reshape(builder, x, shape),)
    if inner is not None:
        return (_bind(builder, "broadcast_in_dim", [x], shape=shape, dims=dims),)
    return None


@rule("slice")
def _slice(node, ins, builder):
    x = ins[0]
    return (x,) if node.outputs[0].type == x.type and all(s == 1 for s in node.attrs["strides"]) else None


@rule("pad")
def _pad(node, ins, builder):
    return (ins[0],) if not any(node.attrs["lo"]) and not any(node.attrs["hi"]) else None


@rule("concatenate")
def _concatenate(node, ins, builder):
    return (ins[0],) if len(ins) == 1 else None

"""Control-flow primitives: `cond` and `while_loop`, whose branches and bodies are subgraphs
held in attrs, with every rule beside them; and the functional forms `cond`, `while_loop`,
`fori_loop`.

    %3:f32[3] = cond(%2, %x, %w) {}
        else_branch:
        graph if_false_L12(%x: f32[3], %w: f32[3] param) { ... }
        then_branch:
        graph if_true_L12(%x: f32[3], %w: f32[3] param) { ... }

Layouts (built by `frontend/cf_build.py`, which also merges Parameter writes):
- cond(pred, *operands): both branches take exactly `operands` and return the same types.
  `pred` is bool[].
- while_loop(*carry, *consts) {n_carry}: `cond_graph(*carry, *consts) -> bool[]`,
  `body_graph(*carry, *consts) -> carry`. `trip_count` (an int attr, present only when the
  iteration count is known at trace time, as for `fori_loop` with int bounds) lets the vjp unroll.
In every subgraph the leading inputs have kind "arg" (operands / carries) and the rest are
"param"/"capture" (closed-over values); the vjp rules rely on that (grad_graph puts the
cotangent inputs after the "arg" ones).

Rule choices:
- batch: an unbatched predicate keeps the cond/while with vmapped subgraphs; a batched cond
  predicate runs both branches and selects, each branch on a taking member's operands for the
  members that do not take it (`_branch_operands`: no NaN gradients from a branch's values
  where it does not apply); a batched while predicate loops until every member is done,
  finished members keeping their carry (select).
- vjp: cond -> a cond of the branches' vjp graphs. while with a static trip count -> unrolled:
  the forward carries recomputed, then the body's vjp (`MAX_UNROLLED_VJP` iterations at most);
  with an unknown or larger trip count (a tensor `while` under jit) -> loops that count the iterations,
  then walk them backwards, rebuilding each iteration's carry from snapshots
  (`while_recompute_vjp.py`: about 3n body evaluations, two buffers of C carries, static shapes).
  Python `for i in range(n)` with an int n never makes a while node:
  the source transform runs it in Python, i.e. unrolls it at trace time (as MindSpore does),
  so its gradient is the gradient of ordinary primitives.
- ONNX: If (branches refer to outer names) and Loop (M empty, cond from `cond_graph`).
"""
from __future__ import annotations

import jax

from ..dtype import bool_, int32
from ..ir.core import Graph
from . import batching
from .ad_util import F
from .primitive import Primitive, check
from .subgraphs import batched_outputs, build_graph, grads_only, inline_graph, jax_fn, types_of, vmap_subgraph
from .while_recompute_vjp import recomputed_while_vjp

MAX_UNROLLED_VJP = 256


def _n_args(graph: Graph) -> int:
    return next((i for i, v in enumerate(graph.inputs) if v.kind != "arg"), len(graph.inputs))


# -- cond ----------------------------------------------------------------------------------------

def _cond_rule(pred, *operands, then_branch, else_branch):
    check(pred.dtype is bool_ and pred.shape == (), f"cond needs a bool[] predicate, got {pred}")
    for label, g in (("then", then_branch), ("else", else_branch)):
        check(types_of(g.inputs) == list(operands),
              f"cond: the {label} branch takes {[str(t) for t in types_of(g.inputs)]}, "
              f"got operands {[str(t) for t in operands]}")
    outs = types_of(then_branch.outputs)
    check(outs == types_of(else_branch.outputs),
          f"cond: the branches return different types: {[str(t) for t in outs]} and "
          f"{[str(t) for t in types_of(else_branch.outputs)]}")
    return tuple(outs)


def _cond_impl(pred, *operands, then_branch, else_branch):
    return jax.lax.cond(pred, jax_fn(then_branch), jax_fn(else_branch), *operands)


# eager_jit=False: a jit cached per subgraph attr would keep every subgraph alive.
cond_p = Primitive("cond", _cond_rule, _cond_impl, multiple_results=True, eager_jit=False)


# -- while_loop ----------------------------------------------------------------------------------

def _while_rule(*args, cond_graph, body_graph, n_carry, trip_count=None):
    carry = list(args[:n_carry])
    check(types_of(cond_graph.inputs) == list(args) and types_of(body_graph.inputs) == list(args),
          f"while_loop: the subgraphs take {[str(t) for t in types_of(body_graph.inputs)]}, got "
          f"{[str(t) for t in args]}")
    check(types_of(body_graph.outputs) == carry,
          f"while_loop: the body returns {[str(t) for t in types_of(body_graph.outputs)]}, the carry "
          f"is {[str(t) for t in carry]}")
    out = types_of(cond_graph.outputs)
    check(len(out) == 1 and out[0].dtype is bool_ and out[0].shape == (),
          f"while_loop: the condition must return one bool[], got {[str(t) for t in out]}")
    return tuple(carry)


def _while_impl(*args, cond_graph, body_graph, n_carry, trip_count=None):
    carry, consts = tuple(args[:n_carry]), args[n_carry:]
    cond_fn, body_fn = jax_fn(cond_graph), jax_fn(body_graph)
    return jax.lax.while_loop(lambda c: cond_fn(*c, *consts)[0],
                              lambda c: tuple(body_fn(*c, *consts)), carry)


while_p = Primitive("while_loop", _while_rule, _while_impl, multiple_results=True, eager_jit=False)


# -- batch rules ---------------------------------------------------------------------------------

def _select_members(pred, new, old):
    """Per member (axis 0): `new` where pred[i], else `old`."""
    p = F.reshape(pred, pred.shape + (1,) * (new.ndim - 1))
    return F.select(F.broadcast_to(p, new.shape), new, old)


@cond_p.def_batch
def _cond_batch(ctx, args, dims, *, then_branch, else_branch):
    pred, ops, op_dims = args[0], args[1:], dims[1:]
    in_b = [d is not None for d in op_dims]
    out_b = [a or b for a, b in zip(batched_outputs(then_branch, in_b), batched_outputs(else_branch, in_b))]
    if dims[0] is None:
        out_axes = tuple(0 if b else None for b in out_b)
        vt, ve = (vmap_subgraph(ctx, g, op_dims, out_axes) for g in (then_branch, else_branch))
        return cond_p.bind(pred, *ops, then_branch=vt, else_branch=ve), out_axes
    # A per-member predicate: every member needs both results; compute both, then select.
    out_axes = (0,) * len(out_b)
    p = batching.move(pred, dims[0], 0)
    ops = [x if d is None else batching.move(x, d, 0) for x, d in zip(ops, op_dims)]
    in_axes = [None if d is None else 0 for d in op_dims]
    t_outs = inline_graph(vmap_subgraph(ctx, then_branch, in_axes, out_axes), _branch_operands(p, ops, in_axes))
    e_outs = inline_graph(vmap_subgraph(ctx, else_branch, in_axes, out_axes), _branch_operands(F.logical_not(p), ops, in_axes))
    return tuple(_select_members(p, t, e) for t, e in zip(t_outs, e_outs)), out_axes


def _branch_operands(taken, ops, axes) -> list:
    """The operands a branch runs on under a per-member predicate: a member that does not take
    the branch gets the operands of one that does (the first), since its results are dropped
    anyway. So the branch never runs where its member's values are unsafe for it, and its vjp
    never multiplies a member's zero cotangent by an infinite derivative there: grad(vmap(f))
    of `y = sqrt(x) if x > 0 else -x` was NaN at x <= 0 (0 * inf in sqrt's vjp); it is each
    member's taken branch's gradient now, as jax's grad of a vmapped lax.cond (which masks the
    cotangents per member instead) and torch and MindSpore, which run one branch. Unmapped
    float operands (closed-over weights) pass a select on "some member takes it", which
    keeps them unbatched and stops their cotangent when no member does (the branch then ran on
    member 0's values). Forward results are unchanged: the members that take a branch get their
    own operands. A while loop in a branch runs on a taking member's values."""
    first = F.argmax(F.cast(taken, int32), 0)
    some = F.any(taken)
    out = []
    for x, d in zip(ops, axes):
        if d is None:
            out.append(F.select(some, x, F.stop_gradient(x)) if x.dtype.is_floating else x)
        else:
            stand_in = F.stop_gradient(F.take_in_range(x, first, 0))
            out.append(_select_members(taken, x, stand_in))
    return out


@while_p.def_batch
def _while_batch(ctx, args, dims, *, cond_graph, body_graph, n_carry, trip_count=None):
    carry_b = [d is not None for d in dims[:n_carry]]
    const_d = list(dims[n_carry:])
    const_b = [d is not None for d in const_d]
    while True:  # a carry is batched if its start is, or if the body makes it so
        out_b = batched_outputs(body_graph, carry_b + const_b)
        grown = [a or b for a, b in zip(carry_b, out_b)]
        if grown == carry_b:
            break
        carry_b = grown
    pred_batched = batched_outputs(cond_graph, carry_b + const_b)[0]
    if pred_batched:  # members finish at different times: every carry differs per member
        carry_b = [True] * n_carry
    carry = [batching.materialize(a, d, ctx.axis_size, 0) if b else a
             for a, d, b in zip(args[:n_carry], dims[:n_carry], carry_b)]
    carry_axes = tuple(0 if b else None for b in carry_b)
    in_axes = carry_axes + tuple(const_d)
    vc = vmap_subgraph(ctx, cond_graph, in_axes, (0 if pred_batched else None,))
    vb = vmap_subgraph(ctx, body_graph, in_axes, carry_axes)
    consts = args[n_carry:]
    extra = {} if trip_count is None else {"trip_count": trip_count}
    if not pred_batched:
        return while_p.bind(*carry, *consts, cond_graph=vc, body_graph=vb, n_carry=n_carry, **extra), carry_axes

    def any_running(xs):
        return [F.any(inline_graph(vc, xs)[0])]

    def masked_body(xs):
        running = inline_graph(vc, xs)[0]
        new = inline_graph(vb, xs)
        return [_select_members(running, n, o) for n, o in zip(new, xs[:n_carry])]

    cond2 = build_graph(f"{cond_graph.name}_any", vc.inputs, any_running)
    body2 = build_graph(f"{body_graph.name}_masked", vb.inputs, masked_body)
    return while_p.bind(*carry, *consts, cond_graph=cond2, body_graph=body2, n_carry=n_carry), carry_axes


# -- vjp rules -----------------------------------------------------------------------------------

@cond_p.def_vjp
def _cond_vjp(ctx, cts, primals, outs, *, then_branch, else_branch):
    from ..passes.grad import grad_graph
    ops = primals[1:]
    wrt = [i for i, v in enumerate(then_branch.inputs) if ctx.needs[i + 1] and v.dtype.is_floating]
    outputs = [i for i, c in enumerate(cts) if c is not None and then_branch.outputs[i].dtype.is_floating]
    if not wrt or not outputs:
        return (None,) * len(primals)
    n_out = len(then_branch.outputs)
    gt, ge = (grads_only(grad_graph(g, wrt, outputs, with_sens=True, name=f"vjp_{g.name}"), n_out)
              for g in (then_branch, else_branch))
    k = _n_args(then_branch)
    operands = list(ops[:k]) + [cts[i] for i in outputs] + list(ops[k:])
    grads = cond_p.bind(primals[0], *operands, then_branch=gt, else_branch=ge)
    result = [None] * len(primals)
    for i, g in zip(wrt, grads):
        result[i + 1] = g
    return tuple(result)


@while_p.def_vjp
def _while_vjp(ctx, cts, primals, outs, *, cond_graph, body_graph, n_carry, trip_count=None):
    from ..passes.grad import grad_graph
    carry, consts = list(primals[:n_carry]), list(primals[n_carry:])
    float_carry = [i for i in range(n_carry) if body_graph.inputs[i].dtype.is_floating]
    float_consts = [j for j in range(len(consts))
                    if ctx.needs[n_carry + j] and body_graph.inputs[n_carry + j].dtype.is_floating]
    if not float_carry:
        return (None,) * len(primals)
    wrt = float_carry + [n_carry + j for j in float_consts]
    vjp_body = grads_only(grad_graph(body_graph, wrt, float_carry, with_sens=True,
                                      name=f"vjp_{body_graph.name}"), n_carry)
    ct = [cts[i] if cts[i] is not None else F.zeros_like(outs[i]) for i in float_carry]
    if trip_count is None or trip_count > MAX_UNROLLED_VJP:  # a long unrolling would bloat the graph
        ct, const_ct = recomputed_while_vjp(cond_graph, body_graph, vjp_body, n_carry, carry, consts,
                                            float_carry, float_consts, ct)
    else:
        ct, const_ct = _unrolled_while_vjp(body_graph, vjp_body, trip_count, carry, consts, ct,
                                           len(float_consts))
    result = [None] * len(primals)
    for i, c in zip(float_carry, ct):
        result[i] = c
    for j, c in zip(float_consts, const_ct):
        result[n_carry + j] = c
    return tuple(result)


def _unrolled_while_vjp(body_graph, vjp_body, trip_count, carry, consts, ct, n_float_consts):
    """The vjp of a loop of `trip_count` iterations, unrolled: the body 2n times."""
    history = [carry]  # the carry before each iteration, recomputed (the forward node keeps none)
    for _ in range(trip_count - 1):
        history.append(inline_graph(body_graph, history[-1] + consts))
    const_ct = [None] * n_float_consts
    for step in reversed(range(trip_count)):
        grads = inline_graph(vjp_body, history[step] + ct + consts)
        ct = grads[:len(ct)]
        for j, g in enumerate(grads[len(ct):]):
            const_ct[j] = g if const_ct[j] is None else F.add(const_ct[j], g)
    return ct, const_ct


# -- ONNX rules ----------------------------------------------------------------------------------

def _emit(ctx, graph: Graph, input_names: list) -> list:
    """Lowers `graph`'s nodes into the builder's current node list (as `compiler.onnx.lower`
    does for the top graph, with static shapes); returns the ONNX names of its outputs."""
    from ..compiler.onnx import emit_nodes, unsupported_ops
    missing = unsupported_ops(graph)
    if missing:
        ctx.fail(f"subgraph {graph.name} has ops with no ONNX lowering:\n" + "\n".join(missing))
    names = dict(zip(graph.inputs, input_names))
    emit_nodes(ctx.b, graph, names, lambda v: v.shape)
    return [names[v] for v in graph.outputs]


def _onnx_body(ctx, label: str, formal_inputs: list, emit_fn):
    """An ONNX GraphProto: `emit_fn()` emits its nodes and returns [(name, TensorType)] outputs,
    each copied by an Identity to a fresh name (a subgraph output must be produced inside it)."""
    from onnx import helper
    from ..compiler.onnx import onnx_value_info
    b = ctx.b
    saved, b.nodes = b.nodes, []
    try:
        outputs = []
        for name, type_ in emit_fn():
            out = b.unique(f"{label}_out")
            b.op("Identity", [name], scope=ctx.scope, out_names=[out])
            outputs.append(onnx_value_info(out, type_))
        nodes = b.nodes
    finally:
        b.nodes = saved
    return helper.make_graph(nodes, b.unique(label), formal_inputs, outputs)


def _as_list(out, n):
    return [out] if n == 1 else list(out)


@cond_p.def_onnx
def _cond_onnx(ctx, pred, *operands, then_branch, else_branch):
    n = len(then_branch.outputs)
    if n == 0:
        return []
    branches = {}
    for key, g in (("then_branch", then_branch), ("else_branch", else_branch)):
        branches[key] = _onnx_body(ctx, g.name, [], lambda g=g: list(
            zip(_emit(ctx, g, list(operands)), types_of(g.outputs))))
    return _as_list(ctx.op("If", pred, n_out=n, **branches), n)


@while_p.def_onnx
def _while_onnx(ctx, *names, cond_graph, body_graph, n_carry, trip_count=None):
    from ..compiler.onnx import onnx_value_info
    from ..dtype import int64
    from ..ir.core import TensorType
    if n_carry == 0:
        return []
    carry, consts = list(names[:n_carry]), list(names[n_carry:])
    start = _emit(ctx, cond_graph, carry + consts)[0]
    b = ctx.b
    iter_name, cond_in = b.unique("iter"), b.unique("cond_in")
    carry_in = [b.unique(f"{v.name or 'carry'}_in") for v in body_graph.inputs[:n_carry]]
    formal = ([onnx_value_info(iter_name, TensorType((), int64)), onnx_value_info(cond_in, TensorType((), bool_))]
              + [onnx_value_info(n, v.type) for n, v in zip(carry_in, body_graph.inputs)])

    def body():
        new = _emit(ctx, body_graph, carry_in + consts)
        go_on = _emit(ctx, cond_graph, new + consts)[0]
        return [(go_on, TensorType((), bool_))] + list(zip(new, types_of(body_graph.outputs)))

    graph = _onnx_body(ctx, body_graph.name, formal, body)
    m = ctx.ints(trip_count) if trip_count is not None else ""
    return _as_list(ctx.op("Loop", m, start, *carry, n_out=n_carry, body=graph), n_carry)


# -- the functional forms ------------------------------------------------------------------------

def cond(pred, true_fn, false_fn, *operands):
    """`true_fn(*operands)` if `pred` else `false_fn(*operands)`.

    A Python or concrete predicate runs the chosen branch in Python. A traced Tensor
    predicate (inside jit/vmap/grad) traces both branches into one `cond` node; both must
    return the same structure and types. Parameters the branches write (an optimizer step)
    are merged: a branch that does not write one keeps its current value.
    """
    from ..frontend import cf_build
    if not cf_build.is_traced(pred):
        return true_fn(*operands) if pred else false_fn(*operands)
    return cf_build.cond(pred, true_fn, false_fn, operands,
                         where=cf_build.Where.of_caller("ops.cond"))


def while_loop(cond_fn, body_fn, init):
    """`while cond_fn(val): val = body_fn(val)`; returns the final `val`.

    Eagerly this is a Python loop; inside a trace it is one `while_loop` node, and `val`
    (any structure of Tensors) must keep its shapes and dtypes across iterations.
    """
    from ..frontend import cf_build
    from ..frontend.tracer import current_tracer
    if current_tracer() is None:
        val = init
        while cond_fn(val):
            val = body_fn(val)
        return val
    (out,) = cf_build.while_loop(lambda v: cond_fn(v), lambda v: (body_fn(v),), (init,),
                                 where=cf_build.Where.of_caller("ops.while_loop"))
    return out


def fori_loop(lower, upper, body_fn, init):
    """`for i in range(lower, upper): val = body_fn(i, val)`; returns the final `val`.

    With int bounds inside a trace the node records its trip count, so it can be
    differentiated (reverse mode unrolls it); Tensor bounds give a plain while loop.
    """
    from ..frontend import cf_build
    from ..frontend.tracer import current_tracer
    from ..tensor import Tensor
    if current_tracer() is None:
        val = init
        for i in range(int(lower), int(upper)):
            val = body_fn(Tensor(i), val)
        return val
    static = not cf_build.is_traced(lower) and not cf_build.is_traced(upper)
    trip = max(0, int(upper) - int(lower)) if static else None
    index_dtype = next((b.dtype for b in (lower, upper) if isinstance(b, Tensor)), None)
    i0 = F.as_tensor(lower, index_dtype) if index_dtype else Tensor(int(lower))
    bound = upper

    def body(i, val):
        return i + 1, body_fn(i, val)
    _, out = cf_build.while_loop(lambda i, val: i < bound, body, (i0, init), trip_count=trip,
                                 names=("<loop index>", "<value>"),
                                 where=cf_build.Where.of_caller("ops.fori_loop"))
    return out


__all__ = ["cond", "while_loop", "fori_loop", "cond_p", "while_p"]

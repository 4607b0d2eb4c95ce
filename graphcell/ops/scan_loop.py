"""`scan`: a loop over the leading axis of its inputs that carries a state and stacks a
per-step output (jax.lax.scan), as one node whose body is a subgraph, with every rule beside it.

    %5:f32[3,4], %6:f32[7,3,4] = scan(%h0, %xs, %w) {length=7, n_carry=1, n_xs=1, reverse=False}
        body:
        graph scan_body(%h: f32[3,4], %x: f32[3,4], %w: f32[4,4] param) { ... }

Layout: operands = (*carry, *xs, *consts); body inputs = carry, one step's slice of each xs
(kind "arg"), then the consts (kind "param"/"capture", what the body closed over); body
outputs = new carry (same types), then each step's ys. Node outputs = final carry, then the ys
stacked on a new leading axis of size `length`, in step order (with `reverse` the steps run
from the last index to the first and ys[t] is still step t's).

Why a primitive rather than `while_loop` or a Python loop: a recurrence unrolled at trace time
is a graph of `length` copies of its body, and XLA's CPU compile time grows far faster than
that, while `while_loop` has no per-step outputs and its vjp unrolls. nn.LSTM(64, 64), 64 steps
at batch 32, first jit call (trace + compile) unrolled -> scan: 26 -> 0.9 s forward, 72 ->
2.3 s with its gradient; a call after it, 18 -> 5.7 ms and 541 -> 45 ms (jax itself: an
unrolled LSTM's gradient took 315 s to compile, lax.scan's 3.7 s; all on a shared 2-core
machine under load: the ratios are what count). At 8 steps the two run alike.
The vjp is two scans, as jax's: a forward scan that stacks the residuals (the per-step values
the body's vjp reads, split from it as partial evaluation does: `_split_vjp_body`), then the
vjp's remaining part from the last step to the first, reading them and summing the consts'
cotangents in its carry. The forward node keeps no residuals itself; `passes/merge_scans.py`
makes it and the residual scan one loop. LSTM(64) training step, 32 steps at batch 16: 5.1 ms
with the carries stacked and each step's forward recomputed in the backward loop, 4.1 ms with
the residuals (jax.lax.scan's own: 3.4 ms; bench/bench_rnn.py). Residuals that are arithmetic
on other residuals are recomputed in the backward step, and a const's cotangent made by one
matmul of two per-step values (or a sum of one: a bias added inside the step) is one matmul
(one reduction) over all the steps after the loop (ops/scan_vjp_plan.py): below jax's own
step since. A body with side effects keeps the recomputing form (its effects must run once
per step).

Rules:
- batch: a carry is batched if its start is or the body makes it so (fixed point); a batched
  xs has its mapped axis moved to 1 (so each step's slice is batched at 0); ys come out
  batched at axis 1.
- ONNX: Scan (scan_input/output_directions 1 when reversed); the body reads the consts by their
  outer names. With no xs, an iota of `length` is scanned so that Scan knows its trip count.
"""
from __future__ import annotations

import jax
import numpy as np

from ..ir.core import Graph, TensorType, Value
from . import batching
from .ad_util import F
from .subgraphs import batched_outputs, build_graph, grads_only, inline_graph, jax_fn, types_of, vmap_subgraph
from .primitive import Primitive, ShapeError
from .scan_vjp_plan import contract_over_steps, hoist_const_contractions, recompute_cheap_residuals


def _step_type(t: TensorType) -> TensorType:
    return TensorType(t.shape[1:], t.dtype)


def _scan_rule(*args, body, n_carry, n_xs, length, reverse):
    # The messages are built only on failure (shape rules run for every node a trace makes).
    carry, xs = list(args[:n_carry]), list(args[n_carry:n_carry + n_xs])
    for x in xs:
        if not (len(x.shape) >= 1 and x.shape[0] == length):
            raise ShapeError(f"scan: every xs needs a leading axis of the length {length}, got {x}")
    want = carry + [_step_type(x) for x in xs] + list(args[n_carry + n_xs:])
    if types_of(body.inputs) != want:
        raise ShapeError(f"scan: the body takes {[str(t) for t in types_of(body.inputs)]}, the operands give "
                         f"{[str(t) for t in want]}")
    outs = types_of(body.outputs)
    if outs[:n_carry] != carry:
        raise ShapeError(f"scan: the body returns the carry {[str(t) for t in outs[:n_carry]]}, it started as "
                         f"{[str(t) for t in carry]}")
    return tuple(carry) + tuple(TensorType((length,) + t.shape, t.dtype) for t in outs[n_carry:])


def _scan_impl(*args, body, n_carry, n_xs, length, reverse):
    carry, xs, consts = tuple(args[:n_carry]), tuple(args[n_carry:n_carry + n_xs]), args[n_carry + n_xs:]
    fn = jax_fn(body)

    def step(c, x):
        outs = fn(*c, *x, *consts)
        return tuple(outs[:n_carry]), tuple(outs[n_carry:])
    final, ys = jax.lax.scan(step, carry, xs, length=length, reverse=reverse)
    return tuple(final) + tuple(ys)


# eager_jit=False: a jit cached per subgraph attr would keep every subgraph alive.
scan_p = Primitive("scan", _scan_rule, _scan_impl, multiple_results=True, eager_jit=False)


# -- batch rule ----------------------------------------------------------------------------------

@scan_p.def_batch
def _scan_batch(ctx, args, dims, *, body, n_carry, n_xs, length, reverse):
    carry_b = [d is not None for d in dims[:n_carry]]
    rest_b = [d is not None for d in dims[n_carry:]]
    while True:   # a carry is batched if its start is, or if the body makes it so
        grown = [a or b for a, b in zip(carry_b, batched_outputs(body, carry_b + rest_b)[:n_carry])]
        if grown == carry_b:
            break
        carry_b = grown
    carry = [batching.materialize(a, d, ctx.axis_size, 0) if b else a
             for a, d, b in zip(args[:n_carry], dims[:n_carry], carry_b)]
    xs = [batching.move(a, d, 1) if d is not None else a
          for a, d in zip(args[n_carry:n_carry + n_xs], dims[n_carry:n_carry + n_xs])]
    carry_axes = tuple(0 if b else None for b in carry_b)
    x_axes = tuple(0 if d is not None else None for d in dims[n_carry:n_carry + n_xs])
    y_b = batched_outputs(body, carry_b + rest_b)[n_carry:]
    y_axes = tuple(0 if b else None for b in y_b)
    vbody = vmap_subgraph(ctx, body, carry_axes + x_axes + tuple(dims[n_carry + n_xs:]), carry_axes + y_axes)
    outs = scan_p.bind(*carry, *xs, *args[n_carry + n_xs:], body=vbody, n_carry=n_carry, n_xs=n_xs,
                       length=length, reverse=reverse)
    return outs, carry_axes + tuple(1 if b else None for b in y_b)


# -- vjp rule ------------------------------------------------------------------------------------

@scan_p.def_vjp
def _scan_vjp(ctx, cts, primals, outs, *, body, n_carry, n_xs, length, reverse):
    from ..passes.grad import grad_graph
    n_in = n_carry + n_xs
    carry, xs, consts = list(primals[:n_carry]), list(primals[n_carry:n_in]), list(primals[n_in:])
    floating = [v.dtype.is_floating for v in body.inputs]
    float_carry = [i for i in range(n_carry) if floating[i]]
    want_xs = [j for j in range(n_xs) if ctx.needs[n_carry + j] and floating[n_carry + j]]
    want_consts = [k for k in range(len(consts)) if ctx.needs[n_in + k] and floating[n_in + k]]
    n_out = len(body.outputs)
    ys_ct = [j for j in range(n_out - n_carry) if cts[n_carry + j] is not None
             and body.outputs[n_carry + j].dtype.is_floating]
    wanted = any(ctx.needs[i] for i in float_carry) or want_xs or want_consts
    if not wanted or (not ys_ct and all(cts[i] is None for i in float_carry)):
        return (None,) * len(primals)
    carry_cts = [cts[i] if cts[i] is not None else F.zeros_like(outs[i]) for i in float_carry]

    # The body's vjp, as a graph over (carry, x, the cotangents of the float carries and of the
    # ys wanted, consts), its outputs the gradients `wrt`.
    wrt = float_carry + [n_carry + j for j in want_xs] + [n_in + k for k in want_consts]
    vjp_body = grads_only(grad_graph(body, wrt, float_carry + [n_carry + j for j in ys_ct], with_sens=True,
                                      name=f"vjp_{body.name}"), n_out)
    n_sens = len(float_carry) + len(ys_ct)
    n_carry_ct = len(float_carry)
    split = _split_vjp_body(vjp_body, n_carry, n_in, n_sens)

    # 1. A forward scan stacking what the backward steps need of each step: the residuals (the
    #    per-step values the vjp reads: gate activations, the carry the step started from), or,
    #    when the body has side effects, just the carries, the rest recomputed step by step.
    #    merge_scans makes it one loop with the forward node's when both are in the graph.
    hoisted: dict = {}   # a const's position in want_consts -> its cotangent's contraction, after the loop
    if split is not None:
        primal, backward = split
        residual_types = [v.type for v in primal.outputs]

        def forward_step(values):
            return inline_graph(body, values)[:n_carry] + inline_graph(primal, values)
    else:
        residual_types = [v.type for v in body.inputs[:n_carry]]

        def forward_step(values):
            return inline_graph(body, values)[:n_carry] + list(values[:n_carry])
    forward_body = build_graph(f"{body.name}_residuals", body.inputs, forward_step)
    residuals = scan_p.bind(*carry, *xs, *consts, body=forward_body, n_carry=n_carry, n_xs=n_xs,
                            length=length, reverse=reverse)[n_carry:]
    if split is not None:   # x, the cotangents (carries', ys'), consts, residuals: which are stacked
        b_in = backward.inputs
        b_res = b_in[len(b_in) - len(residual_types):]
        stacked = {**dict(zip(b_in[:n_xs], xs)), **dict(zip(b_res, residuals)),
                   **{b_in[n_xs + n_carry_ct + i]: cts[n_carry + j] for i, j in enumerate(ys_ct)}}
        backward, hoisted = hoist_const_contractions(backward, n_carry_ct, len(want_xs), len(want_consts),
                                                     set(b_in[:n_xs + n_sens]) | set(b_res), stacked)

    # 2. The vjp from the last step to the first. Its carry: the cotangents of the float
    #    carries, then the running sums of the consts' cotangents.
    summed = [k for at, k in enumerate(want_consts) if at not in hoisted]
    sums = [F.zeros_like(consts[k]) for k in summed]
    n_fc, n_sum, n_res = len(float_carry), len(summed), len(residual_types)

    def backward_step(values):
        ct, acc, res = values[:n_fc], values[n_fc:n_fc + n_sum], values[n_fc + n_sum:n_fc + n_sum + n_res]
        rest = values[n_fc + n_sum + n_res:]
        step_x, step_ys_ct, step_consts = rest[:n_xs], rest[n_xs:n_xs + len(ys_ct)], rest[n_xs + len(ys_ct):]
        if split is not None:
            grads = inline_graph(backward, list(step_x) + list(ct) + list(step_ys_ct) + list(step_consts) + list(res))
        else:   # res: the carries
            grads = inline_graph(vjp_body, list(res) + list(step_x) + list(ct) + list(step_ys_ct) + list(step_consts))
        n_fx = n_fc + len(want_xs)
        new_ct, x_grads, c_grads = grads[:n_fc], grads[n_fc:n_fx], grads[n_fx:n_fx + n_sum]
        operands = grads[n_fx + n_sum:]   # of the hoisted contractions, stacked as ys
        return list(new_ct) + [F.add(a, g) for a, g in zip(acc, c_grads)] + list(x_grads) + list(operands)

    template = ([_Slot(f"ct_{body.inputs[i].name}", body.inputs[i].type, "arg") for i in float_carry]
                + [_Slot(f"sum_{body.inputs[n_in + k].name}", body.inputs[n_in + k].type, "arg") for k in summed]
                + [_Slot(f"res{r}", t, "arg") for r, t in enumerate(residual_types)]
                + [_Slot(v.name, v.type, "arg") for v in body.inputs[n_carry:n_in]]
                + [_Slot(f"ct_y{j}", body.outputs[n_carry + j].type, "arg") for j in ys_ct]
                + [_Slot(v.name, v.type, v.kind) for v in body.inputs[n_in:]])
    back_body = build_graph(f"vjp_{body.name}", template, backward_step)
    back = scan_p.bind(*carry_cts, *sums, *residuals, *xs, *[cts[n_carry + j] for j in ys_ct], *consts,
                       body=back_body, n_carry=n_fc + n_sum, n_xs=n_res + n_xs + len(ys_ct), length=length,
                       reverse=not reverse)
    result = [None] * len(primals)
    for i, g in zip(float_carry, back[:n_fc]):
        result[i] = g
    for k, g in zip(summed, back[n_fc:n_fc + n_sum]):
        result[n_in + k] = g
    for j, g in zip(want_xs, back[n_fc + n_sum:]):
        result[n_carry + j] = g
    xs_cts, new = back[n_fc + n_sum:n_fc + n_sum + len(want_xs)], back[n_fc + n_sum + len(want_xs):]
    stacked_form = {"outer": lambda t: t, "xs_ct": lambda j: xs_cts[j], "new": lambda i: new[i]}
    for at, (contraction, sources) in hoisted.items():
        operands = [stacked_form[kind](which) for kind, which in sources]
        result[n_in + want_consts[at]] = contract_over_steps(contraction, operands)
    return tuple(result)


def _split_vjp_body(vjp: Graph, n_carry: int, n_in: int, n_sens: int):
    """The body's vjp split in two, as jax's partial evaluation does: `primal` over (carry, x,
    consts) computes the residuals, the per-step values (depending on the carry or x, not on
    the cotangents) that the rest reads; `backward` over (x, cotangents, consts, residuals)
    computes the gradients from them. Values of the consts alone (a transposed weight) are
    recomputed in `backward` rather than stacked per step. None when a node has side effects
    (they must run once per step, as the body's)."""
    if not all(node.pure for node in vjp.nodes):
        return None
    carry_in, x_in = vjp.inputs[:n_carry], vjp.inputs[n_carry:n_in]
    sens, consts = vjp.inputs[n_in:n_in + n_sens], vjp.inputs[n_in + n_sens:]
    variant, tangent = set(carry_in) | set(x_in), set(sens)
    primal_nodes, backward_nodes = [], []
    for node in vjp.nodes:
        if any(v in tangent for v in node.inputs):
            tangent.update(node.outputs)
            backward_nodes.append(node)
        elif any(v in variant for v in node.inputs):
            variant.update(node.outputs)
            primal_nodes.append(node)
        else:   # consts only: needed on both sides
            primal_nodes.append(node)
            backward_nodes.append(node)
    read = {v for node in backward_nodes for v in node.inputs} | set(vjp.outputs)
    available = set(x_in) | set(consts)
    residuals = [v for v in list(carry_in) + [o for n in primal_nodes for o in n.outputs]
                 if v in variant and v in read and v not in available]
    residuals = list(dict.fromkeys(residuals))
    const_only = {o for n in primal_nodes for o in n.outputs if o not in variant}
    residuals, backward_nodes = recompute_cheap_residuals(residuals, backward_nodes, vjp.nodes, available,
                                                          const_only)
    primal = Graph(tuple(carry_in) + tuple(x_in) + tuple(consts), tuple(primal_nodes), tuple(residuals), (),
                   f"{vjp.name}_primal", {})
    backward = Graph(tuple(x_in) + tuple(sens) + tuple(consts) + tuple(residuals), tuple(backward_nodes),
                     vjp.outputs, (), f"{vjp.name}_backward", {})
    return primal, backward


class _Slot:
    """A subgraph input to build (`build_graph` copies name, type and kind)."""
    __slots__ = ("name", "type", "kind")

    def __init__(self, name, type_, kind):
        self.name, self.type, self.kind = name, type_, kind


# -- ONNX rule -----------------------------------------------------------------------------------

@scan_p.def_onnx
def _scan_onnx(ctx, *names, body, n_carry, n_xs, length, reverse):
    from onnx import helper
    from ..compiler.onnx import onnx_value_info, unsupported_ops
    from ..dtype import int64
    missing = unsupported_ops(body)
    if missing:
        ctx.fail(f"subgraph {body.name} has ops with no ONNX lowering:\n" + "\n".join(missing))
    carry, xs, consts = list(names[:n_carry]), list(names[n_carry:n_carry + n_xs]), list(names[n_carry + n_xs:])
    b = ctx.b
    formal = [b.unique(f"{v.name or 'x'}_in") for v in body.inputs[:n_carry + n_xs]]
    # The body's dims come from the export's two traces (ctx.dims_of): a dynamic batch stays
    # dynamic inside.
    formal_info = [ctx.value_info(n, v) for n, v in zip(formal, body.inputs)]
    if not xs:   # Scan takes its trip count from its scan inputs: scan an iota of `length`
        xs = [ctx.const(np.arange(length, dtype=np.int64))]
        formal_info.append(onnx_value_info(b.unique("step"), TensorType((), int64)))
    saved, b.nodes = b.nodes, []
    try:
        outs = ctx.inline(body, formal + consts)
        out_info = []
        for name, v in zip(outs, body.outputs):   # a subgraph output must be made inside it
            copy = b.unique(f"{body.name}_out")
            b.op("Identity", [name], scope=ctx.scope, out_names=[copy])
            out_info.append(ctx.value_info(copy, v))
        nodes = b.nodes
    finally:
        b.nodes = saved
    graph = helper.make_graph(nodes, b.unique(body.name), formal_info, out_info)
    n_ys = len(body.outputs) - n_carry
    direction = 1 if reverse else 0
    out = ctx.op("Scan", *carry, *xs, n_out=n_carry + n_ys, body=graph, num_scan_inputs=len(xs),
                 scan_input_directions=[direction] * len(xs),
                 scan_output_directions=[direction] * n_ys if n_ys else None)
    return [out] if n_carry + n_ys == 1 else list(out)


# -- the functional form -------------------------------------------------------------------------

def scan(fn, init, xs, length: int | None = None, reverse: bool = False):
    """`jax.lax.scan`: `carry = init; for t in range(length): carry, y[t] = fn(carry, xs[t])`;
    returns `(carry, ys)` with the ys stacked on a new leading axis. `init`, `xs` and `fn`'s
    results are Tensors or tuples/lists of them; `xs` may be None (give `length` then). With
    `reverse` the steps run from the last index to the first (ys[t] still belongs to step t).

    Eagerly this is a Python loop; inside a trace (jit, grad, vmap, export) it is one `scan`
    node, and `fn`'s carry must keep its shapes and dtypes. The body may read Parameters and
    outer Tensors but not write Parameters.
    """
    from ..frontend import pytree
    from ..frontend.tracer import current_tracer
    x_leaves, x_tree = pytree.flatten(xs)
    lengths = {int(x.shape[0]) if x.ndim else None for x in x_leaves}
    if None in lengths:
        raise ValueError("scan: every xs must have a leading axis to scan over, got a scalar")
    if length is not None:
        lengths.add(int(length))
    if len(lengths) != 1:
        raise ValueError(f"scan: the xs and length disagree on the number of steps: {sorted(lengths)}"
                         if lengths else "scan: with no xs, give length")
    (length,) = lengths
    if current_tracer() is None:
        return _eager_scan(fn, init, x_leaves, x_tree, length, reverse)
    return _traced_scan(fn, init, x_leaves, x_tree, length, reverse)


def _eager_scan(fn, init, x_leaves, x_tree, length, reverse):
    from ..frontend import pytree
    from ..tensor import Tensor
    if length == 0:
        raise ValueError("scan: eagerly, a scan of length 0 has no step to give the ys' shapes")
    carry, ys = init, [None] * length
    for t in (reversed(range(length)) if reverse else range(length)):
        # A gather at a Tensor index, not a slice: the slice's bounds are attrs, and eagerly
        # every new attr compiles (once per step); the index is data.
        index = Tensor(np.int32(t))
        step = [F.take_in_range(x, index, 0) for x in x_leaves]
        carry, ys[t] = fn(carry, pytree.unflatten(x_tree, step))
    y_leaves = [pytree.flatten(y)[0] for y in ys]
    y_tree = pytree.flatten(ys[0])[1]
    stacked = [F.stack([leaves[k] for leaves in y_leaves], 0) for k in range(len(y_leaves[0]))]
    return carry, pytree.unflatten(y_tree, stacked)


def _traced_scan(fn, init, x_leaves, x_tree, length, reverse):
    from ..frontend import pytree
    from ..frontend.cf_build import ControlFlowError, Where, _conforming, _trace_as
    from ..tensor import Tensor
    where = Where.of_caller("ops.scan")
    carry_leaves, carry_tree = pytree.flatten(init)
    n_carry = len(carry_leaves)
    y_tree = []

    def step(*leaves):
        c = pytree.unflatten(carry_tree, list(leaves[:n_carry]))
        new, y = body_fn(c, pytree.unflatten(x_tree, list(leaves[n_carry:])))
        new_leaves, new_tree = pytree.flatten(new)
        if new_tree != carry_tree or len(new_leaves) != n_carry:
            raise ControlFlowError(f"the body of the {where.label} returns a carry of another structure "
                                   "than its start: return (carry, y) with carry shaped like init")
        y_leaves, tree = pytree.flatten(y)
        y_tree.append(tree)
        return tuple(new_leaves) + tuple(y_leaves)
    body_fn = _conforming(fn, None, None)   # tensor if/while inside the body compile too
    # A trace reads only its arguments' types: stand-ins of a step's slice types (slicing xs
    # here would leave dead nodes in the graph).
    args = list(carry_leaves) + [Tensor._symbolic(Value(_step_type(Tensor._type_of(x)))) for x in x_leaves]
    traced = _trace_as(step, args, f"scan_body_{where.tag}")
    if traced.state_params:
        from .random_state import global_key
        if any(p is global_key() for p in traced.state_params):
            raise ControlFlowError(f"the body of the {where.label} draws random numbers from the global "
                                   "generator (a Parameter write): draw them before the scan, one row per "
                                   "step, and pass them in xs")
        raise ControlFlowError(f"the body of the {where.label} writes Parameter {traced.state_params[0].name!r}; "
                               "a scan body may read Parameters, not write them")
    got = types_of(traced.graph.outputs[:n_carry])
    start = [TensorType(t.shape, t.dtype) for t in carry_leaves]
    if got != start:
        raise ControlFlowError(f"the body of the {where.label} changes the carry's types from "
                               f"{[str(t) for t in start]} to {[str(t) for t in got]}: keep each one's shape "
                               "and dtype (cast or reshape it before the loop)")
    consts = list(traced.params) + list(traced.captures)   # bind lifts them into this trace
    outs = scan_p.bind(*carry_leaves, *x_leaves, *consts, body=traced.graph, n_carry=n_carry,
                       n_xs=len(x_leaves), length=length, reverse=bool(reverse))
    final = pytree.unflatten(carry_tree, list(outs[:n_carry]))
    return final, pytree.unflatten(y_tree[-1], list(outs[n_carry:]))


__all__ = ["scan", "scan_p"]

"""The vjp of a `while_loop` whose trip count is not known at trace time (a tensor `while`
under jit), by recomputation, with static shapes only, so it lowers to XLA and to ONNX:

1. a counting loop: the forward loop again, with an int32 counter carried along, gives the
   trip count n;
2. a backward loop over k = n-1 down to 0, whose body recomputes the carry before
   iteration k by running the loop body k times from the initial carry (an inner loop bounded
   by a counter), then applies the body's vjp to that carry: the carry's cotangent moves one
   iteration back and the cotangents of the loop's constants (closed-over Tensors,
   Parameters) are summed over the iterations.

    %n = while_loop(%x..., 0, %consts...)              # cond_graph; body_graph + `i + 1`
    %ct_x..., %ct_consts... = while_loop(n - 1, %ct..., zeros..., %x..., %consts...)
        body: %x_k = while_loop(%x..., 0, k, %consts...)   # body_graph k times
              %ct..., %g... = vjp_body(%x_k..., %ct..., %consts...)
              return k - 1, %ct..., %acc + %g...

Cost: n + n(n+1)/2 body evaluations and n body vjps for a loop of n iterations (O(n^2)),
memory O(1) in n (nothing is stored per iteration), and no dynamic shapes. Known trip counts
(`fori_loop` with int bounds) up to `MAX_UNROLLED_VJP` keep the unrolled vjp in
`control_flow.py`, which evaluates the body 2n times in a graph that grows with n. The
recomputation is exact: random draws in the body read keys carried by the loop (Parameters
it writes), so they repeat; the vjp graphs are ordinary while loops, so
grad of grad and vmap go through the same rules again (a second order costs O(n^3)).
"""
from __future__ import annotations

from ..dtype import int32
from ..ir.core import Graph, TensorType, Value
from .ad_util import F
from .subgraphs import build_graph, inline_graph

_INDEX = TensorType((), int32)


def _template(type_: TensorType, name: str, kind: str) -> Value:
    """An input description for `build_graph` (which copies type, name and kind)."""
    return Value(type_, name, kind)


def _as_constants(values) -> list:
    """Inputs of a loop graph that are loop-invariant there (not carried)."""
    return [_template(v.type, v.name, "capture") for v in values]


def _counted_loop(name: str, cond_graph: Graph, body_graph: Graph, n_carry: int, carry, consts,
                  stop=None) -> list:
    """Runs `body_graph` while `cond_graph` holds (stop=None) or `stop` times (a traced int32),
    carrying an int32 counter; returns the final carry and the counter."""
    from .control_flow import while_p
    args, rest = list(body_graph.inputs[:n_carry]), list(body_graph.inputs[n_carry:])
    extra = [] if stop is None else [_template(_INDEX, "stop", "capture")]
    template = args + [_template(_INDEX, "count", "arg")] + extra + rest
    k = n_carry + 1 + len(extra)  # where the loop's own constants start

    def keep_going(xs):
        if stop is None:
            return inline_graph(cond_graph, xs[:n_carry] + xs[k:])
        return [xs[n_carry] < xs[n_carry + 1]]

    def step(xs):
        return inline_graph(body_graph, xs[:n_carry] + xs[k:]) + [xs[n_carry] + 1]

    cond = build_graph(f"{name}_cond", template, keep_going)
    body = build_graph(f"{name}_body", template, step)
    start = F.as_tensor(0, int32)
    operands = list(carry) + [start] + ([] if stop is None else [stop]) + list(consts)
    return list(while_p.bind(*operands, cond_graph=cond, body_graph=body, n_carry=n_carry + 1))


def recomputed_while_vjp(cond_graph: Graph, body_graph: Graph, vjp_body: Graph, n_carry: int,
                         carry, consts, float_carry, float_consts, ct) -> tuple[list, list]:
    """The cotangents of the loop's float carries (`float_carry`, whose output cotangents are
    `ct`) and float constants (`float_consts`, indices into `consts`). `vjp_body` is
    `grads_only(grad_graph(body_graph, float_carry + consts wanted, float_carry, with_sens=True))`:
    inputs carry, sens, consts; outputs the carry's then the constants' cotangents."""
    from ..passes.grad import prune
    from .control_flow import while_p
    carry, consts = list(carry), list(consts)
    trips = _counted_loop(f"{body_graph.name}_count", cond_graph, body_graph, n_carry, carry, consts)[n_carry]
    n_ct = len(float_carry)
    const_types = [body_graph.inputs[n_carry + j] for j in float_consts]
    template = ([_template(_INDEX, "k", "arg")]
                + [_template(body_graph.inputs[i].type, f"ct_{body_graph.inputs[i].name}", "arg")
                   for i in float_carry]
                + [_template(v.type, f"ct_{v.name}", "arg") for v in const_types]
                + _as_constants(body_graph.inputs[:n_carry]) + list(body_graph.inputs[n_carry:]))
    lead = 1 + n_ct + len(const_types)  # k, the cotangents, the sums: the backward loop's carry

    def before_first(xs):
        return [xs[0] >= 0]

    def back_step(xs):
        k, ct_k, sums = xs[0], xs[1:1 + n_ct], xs[1 + n_ct:lead]
        start, loop_consts = xs[lead:lead + n_carry], xs[lead + n_carry:]
        carry_k = _counted_loop(f"{body_graph.name}_replay", cond_graph, body_graph, n_carry,
                                start, loop_consts, stop=k)[:n_carry]
        grads = inline_graph(vjp_body, carry_k + ct_k + loop_consts)
        return [k - 1] + grads[:n_ct] + [F.add(s, g) for s, g in zip(sums, grads[n_ct:])]

    cond = build_graph(f"{body_graph.name}_vjp_cond", template, before_first)
    # pruned: the replayed carry is dead where the body's vjp does not read it (a linear body)
    body = prune(build_graph(f"{body_graph.name}_vjp_body", template, back_step))
    zeros = [F.zeros_like(consts[j]) for j in float_consts]
    outs = while_p.bind(F.sub(trips, 1), *ct, *zeros, *carry, *consts,
                        cond_graph=cond, body_graph=body, n_carry=lead)
    return list(outs[1:1 + n_ct]), list(outs[1 + n_ct:lead])

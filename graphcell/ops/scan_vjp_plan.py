"""Two refinements of a scan's vjp (`scan_loop._scan_vjp`) that move work out of its loops, as
cuDNN-style RNN training does.

- `recompute_cheap_residuals`: a residual that is arithmetic (add, sub, mul, neg) on other
  residuals, such as an LSTM's `1 - tanh(c)^2` or `s * (1 - s)` from the gates' activations,
  is recomputed in the backward step instead of being stacked in the forward loop and read
  back: one stacked array and its per-step writes and reads fewer, for a few flops.
- `hoist_const_dots`: a const's cotangent that the backward step makes as one dot_general of
  two per-step values (a recurrent weight's `g_t^T h_{t-1}`) is not summed in the loop's
  carry one small matmul per step: the two operands are stacked (most already are: a residual,
  an xs, the xs' cotangent) and contracted over the steps too after the loop, one large matmul.
  In a vmapped body (an ensemble's, differentiated after the vmap pass) the dot is batched over
  the members, `[N,B,4H] x [N,B,H] -> [N,4H,H]`; it is hoisted the same way, a batched matmul
  contracting steps and batch.

LSTM(64) training step, 32 steps at batch 16, alternated in one process on a loaded 2-core
machine, as a ratio to jax.lax.scan's step (bench/bench_rnn.py's jax row): 1.12-1.37x before,
1.07-1.30x recomputing the residuals (13 stacked arrays -> 8), 0.85-0.99x with the weight's
cotangent after the loop too, 0.69-0.83x with simplify's disjoint-pads rule besides (the gate
cotangents one concatenate, not four pads and three adds). GRU(64): 0.71x of before.
An ensemble's gradient (`grad` over `vmap(nn.CellList)` of N=4 LSTM(64), same shapes), the
members' W_hh cotangents hoisted as one batched matmul: 0.70-0.80x of the step that summed them
in the loop, 0.71-0.83x jax.jit(jax.vmap(value_and_grad)) of lax.scan (GRU: 0.81-1.02x).
"""
from __future__ import annotations

from ..ir.core import Graph

_ARITHMETIC = frozenset({"add", "sub", "mul", "neg"})


def recompute_cheap_residuals(residuals: list, backward_nodes: list, all_nodes, available: set,
                              const_only: set) -> tuple[list, list]:
    """Drops from `residuals` each one that arithmetic nodes compute from the other residuals,
    `available` values and const-only values; returns (residuals, backward nodes) with the
    nodes that recompute them added to the backward side (in the graph's order)."""
    kept = list(residuals)
    moved: set[int] = set()
    for v in list(residuals):
        leaves = set(kept) - {v}
        chain: list = []
        failed: set = set()   # values known not to reach: a DAG of adds is walked once

        def reaches(value, top=False) -> bool:   # computable from leaves through arithmetic only
            if not top and (value in leaves or value in available or value in const_only):
                return True
            node = value.producer
            if value in failed or node is None or node.primitive.name not in _ARITHMETIC or not node.pure:
                return False
            if node in chain:
                return True
            if all(reaches(u) for u in node.inputs):
                chain.append(node)
                return True
            failed.add(value)
            return False
        if reaches(v, top=True):
            kept.remove(v)
            moved.update(id(n) for n in chain)
    if not moved:
        return residuals, backward_nodes
    in_backward = {id(n) for n in backward_nodes} | moved
    return kept, [n for n in all_nodes if id(n) in in_backward]


def hoist_const_dots(backward: Graph, n_carry_cts: int, n_xs_cts: int, n_const_grads: int, per_step: set,
                     stacked: dict):
    """`backward`'s outputs: `n_carry_cts` carry cotangents, `n_xs_cts` xs cotangents (stacked
    by the loop), then `n_const_grads` consts' cotangents, summed over the steps by the caller.
    Finds those made by a dot_general of two per-step values (`per_step`: the inputs that change
    from step to step; a value is per-step if it reads one), with or without batch axes (a
    vmapped body's dot carries the member axis as one), perhaps followed by transposes (the
    vjp's way back to a weight's layout when its member axis is not the first).
    `stacked` maps the inputs whose stacked form is at hand (a residual, an xs) to it.
    Returns (graph, hoisted): graph's outputs are the carry and xs cotangents, the const
    cotangents still to sum, then the dots' operands that must be stacked anew; hoisted maps a
    const position to (dims, lhs, rhs): dims the dot's (contract, batch) attrs and the perms of
    the transposes after it, innermost first, each operand ("outer", the stacked form),
    ("xs_ct", j) (the j-th xs cotangent) or ("new", i) (the i-th operand output)."""
    variant = set(per_step)
    for node in backward.nodes:
        if any(v in variant for v in node.inputs):
            variant.update(node.outputs)
    n_fixed = n_carry_cts + n_xs_cts
    fixed = list(backward.outputs[:n_fixed])
    xs_cts = fixed[n_carry_cts:]
    kept, new, hoisted = [], [], {}
    for k, g in enumerate(backward.outputs[n_fixed:n_fixed + n_const_grads]):
        node, perms = g.producer, []
        while node is not None and node.primitive.name == "transpose":   # a sum over steps commutes with it
            perms.append(node.attrs["perm"])
            node = node.inputs[0].producer
        if not (node is not None and node.primitive.name == "dot_general"
                and all(v in variant for v in node.inputs)):
            kept.append(g)
            continue
        sources = []
        for v in node.inputs:
            if v in stacked:
                sources.append(("outer", stacked[v]))
            elif v in xs_cts:
                sources.append(("xs_ct", xs_cts.index(v)))
            else:
                if v not in new:
                    new.append(v)
                sources.append(("new", new.index(v)))
        hoisted[k] = ((node.attrs["contract"], node.attrs["batch"], tuple(reversed(perms))), sources[0], sources[1])
    if not hoisted:
        return backward, {}
    from ..passes.dce import dce
    graph = Graph(backward.inputs, backward.nodes, tuple(fixed + kept + new), (), backward.name, {})
    return dce(graph).graph, hoisted


def contract_over_steps(lhs, rhs, dims):
    """The sum over the leading (step) axis of transpose(dot_general(lhs[t], rhs[t], ...), ...)
    for `dims` as `hoist_const_dots` returns them: the step axis is contracted with the rest,
    the batch axes stay batch axes, so the result's layout is one step's."""
    from . import functional as F
    (lc, rc), (lb, rb), perms = dims
    after_step = lambda axes: tuple(a + 1 for a in axes)  # noqa: E731
    out = F.dot_general(lhs, rhs, ((0,) + after_step(lc), (0,) + after_step(rc)), (after_step(lb), after_step(rb)))
    for perm in perms:
        out = F.transpose(out, perm)
    return out

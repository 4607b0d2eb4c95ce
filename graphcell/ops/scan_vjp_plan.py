"""Two refinements of a scan's vjp (`scan_loop._scan_vjp`) that move work out of its loops, as
cuDNN-style RNN training does.

- `recompute_cheap_residuals`: a residual that is arithmetic (add, sub, mul, neg) on other
  residuals, such as an LSTM's `1 - tanh(c)^2` or `s * (1 - s)` from the gates' activations,
  is recomputed in the backward step instead of being stacked in the forward loop and read
  back: one stacked array and its per-step writes and reads fewer, for a few flops.
- `hoist_const_contractions`: a const's cotangent that the backward step makes as one
  dot_general of two per-step values (a recurrent weight's `g_t^T h_{t-1}`) is not summed in
  the loop's carry one small matmul per step: the two operands are stacked (most already are:
  a residual, an xs, the xs' cotangent) and contracted over the steps too after the loop, one
  large matmul. In a vmapped body (an ensemble's, differentiated after the vmap pass) the dot
  is batched over the members, `[N,B,4H] x [N,B,H] -> [N,4H,H]`; it is hoisted the same way, a
  batched matmul contracting steps and batch. A bias added inside the step (a GRU's b_hh,
  which the reset gate scales) has a reduce_sum of a per-step value as its cotangent, the
  value the step makes for W_hh's dot anyway: it leaves the loop too, one reduction over steps
  and batch.

LSTM(64) training step, 32 steps at batch 16, alternated in one process on a loaded 2-core
machine, as a ratio to jax.lax.scan's step (bench/bench_rnn.py's jax row): 1.12-1.37x before,
1.07-1.30x recomputing the residuals (13 stacked arrays -> 8), 0.85-0.99x with the weight's
cotangent after the loop too, 0.69-0.83x with simplify's disjoint-pads rule besides (the gate
cotangents one concatenate, not four pads and three adds). GRU(64): 0.71x of before.
An ensemble's gradient (`grad` over `vmap(nn.CellList)` of N=4 LSTM(64), same shapes), the
members' W_hh cotangents hoisted as one batched matmul: 0.70-0.80x of the step that summed them
in the loop, 0.71-0.83x jax.jit(jax.vmap(value_and_grad)) of lax.scan (GRU: 0.81-1.02x).
GRU's b_hh cotangent after the loop too: the vmapped GRU TrainOneStepCell 0.97-0.99x of
before, a single GRU(64) 0.99-1.01x (the in-loop sum was a small part of a step).
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


def hoist_const_contractions(backward: Graph, n_carry_cts: int, n_xs_cts: int, n_const_grads: int,
                              per_step: set, stacked: dict):
    """`backward`'s outputs: `n_carry_cts` carry cotangents, `n_xs_cts` xs cotangents (stacked
    by the loop), then `n_const_grads` consts' cotangents, summed over the steps by the caller.
    Finds those made by a contraction of per-step values (`per_step`: the inputs that change
    from step to step; a value is per-step if it reads one): a dot_general of two, with or
    without batch axes (a vmapped body's dot carries the member axis as one), or a reduce_sum
    of one (a bias added inside the step: its cotangent is the batch's sum of a per-step value
    the step makes anyway), perhaps followed by transposes and reshapes (the vjp's way back to
    a weight's layout when its member axis is not the first), each of which a sum over the
    steps commutes with. `stacked` maps the inputs whose stacked form is at hand (a residual,
    an xs) to it.
    Returns (graph, hoisted): graph's outputs are the carry and xs cotangents, the const
    cotangents still to sum, then the contractions' operands that must be stacked anew; hoisted
    maps a const position to (contraction, operands): the contraction as `contract_over_steps`
    takes it, each operand ("outer", the stacked form), ("xs_ct", j) (the j-th xs cotangent)
    or ("new", i) (the i-th operand output)."""
    variant = set(per_step)
    for node in backward.nodes:
        if any(v in variant for v in node.inputs):
            variant.update(node.outputs)
    n_fixed = n_carry_cts + n_xs_cts
    fixed = list(backward.outputs[:n_fixed])
    xs_cts = fixed[n_carry_cts:]
    kept, new, hoisted = [], [], {}
    for k, g in enumerate(backward.outputs[n_fixed:n_fixed + n_const_grads]):
        node, after = g.producer, []
        while node is not None and node.primitive.name in _LAYOUT:   # a sum over steps commutes with it
            after.append((node.primitive.name, node.attrs[_LAYOUT[node.primitive.name]]))
            node = node.inputs[0].producer
        if not (node is not None and node.primitive.name in _CONTRACTIONS
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
        attrs = tuple(node.attrs[a] for a in _CONTRACTIONS[node.primitive.name])
        hoisted[k] = ((node.primitive.name, attrs, tuple(reversed(after))), tuple(sources))
    if not hoisted:
        return backward, {}
    from ..passes.dce import dce
    graph = Graph(backward.inputs, backward.nodes, tuple(fixed + kept + new), (), backward.name, {})
    return dce(graph).graph, hoisted


# The contractions that leave the loop (their attrs, as contract_over_steps reads them) and
# the layout changes that may follow them (the attr that says how).
_CONTRACTIONS = {"dot_general": ("contract", "batch"), "reduce_sum": ("axes",)}
_LAYOUT = {"transpose": "perm", "reshape": "shape"}


def contract_over_steps(contraction, operands):
    """The sum over the leading (step) axis of one step's contraction of `operands` (stacked
    on it), for `contraction` as `hoist_const_contractions` returns it: the step axis is
    contracted (summed) with the rest, batch axes stay batch axes, so the result's layout is
    one step's."""
    from . import functional as F
    name, attrs, after = contraction
    after_step = lambda axes: tuple(a + 1 for a in axes)  # noqa: E731
    if name == "dot_general":
        (lc, rc), (lb, rb) = attrs
        out = F.dot_general(*operands, ((0,) + after_step(lc), (0,) + after_step(rc)), (after_step(lb), after_step(rb)))
    else:
        (axes,) = attrs
        out = F.reduce_sum(operands[0], (0,) + after_step(axes))
    for op, attr in after:
        out = F.transpose(out, attr) if op == "transpose" else F.reshape(out, attr)
    return out

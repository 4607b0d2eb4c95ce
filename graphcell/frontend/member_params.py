"""An ensemble member's Parameter in a trace that also reads the member's stack (the trace
called the vmapped ensemble, or inlined a graph that did) is that stack's row: read as a
slice of it and written into it, so the compiled graph takes and hands back the stacks alone.

Why: `grad` over `vmap(nn.CellList)` hands back each member Parameter's gradient (a row of
the stack's), and an optimizer over the members' Parameters reads and writes each of them.
As graph inputs and outputs of their own, every call sliced each member's row out of its
stack before the run and wrote it back after, one device copy of the whole stack per member
Parameter (N=4 LSTM(64) ensemble training step: 16 of them, 2 ms of a 6 ms step, where the
compiled program itself took what the vmapped `TrainOneStepCell`'s does).

A stack the trace also writes keeps its members apart, as before: the order of the two
writes would matter.
"""
from __future__ import annotations

from ..tensor import Tensor


def route_members_through_stacks(tracer) -> dict:
    """Rewrites the finished trace's member Parameters whose stack is among its inputs (and
    not written): reads become rows of the stack input, writes one write of the stack.
    Returns {a member's input: its row} for the values the caller holds (the outputs). Runs
    inside `with tracer:`."""
    stacks = {id(p): v for p, v in tracer.params.values()}
    members = [(p, v) for p, v in tracer.params.values() if _routed(tracer, p, stacks)]
    writes = [(p, v) for p, v in tracer.state.values() if _routed(tracer, p, stacks)]
    if not members and not writes:
        return {}
    from ..ops import functional as F
    rows: dict = {}   # (stack's input, member index) -> the row's Value

    def row(slot, i):
        stack = stacks[id(slot.stacked)]
        if (stack, i) not in rows:
            rows[stack, i] = F.squeeze(F.slice_axis(Tensor._symbolic(stack), 0, i, i + 1), 0)._payload
        return rows[stack, i]

    n_before = len(tracer.nodes)
    replaced = {v: row(p._home, p._home_index) for p, v in members}
    # The rows read graph inputs only: they go first, before the members' uses.
    made = tracer.nodes[n_before:]
    del tracer.nodes[n_before:]
    tracer.nodes[:0] = made
    for p, v in members:
        new = replaced[v]
        for user in v.users:
            user.inputs = tuple(new if u is v else u for u in user.inputs)
            new.users.append(user)
        v.users = []
        del tracer.params[id(p)]
    for key, (param, value) in list(tracer.state.items()):
        if value in replaced:
            tracer.state[key] = (param, replaced[value])
    # Each stack with written members: one new stack of the written rows and the others as read.
    new_rows: dict = {}
    for p, value in writes:
        new_rows.setdefault(p._home, {})[p._home_index] = replaced.get(value, value)
        del tracer.state[id(p)]
    for slot, written in new_rows.items():
        values = [written[i] if i in written else row(slot, i) for i in range(len(slot.ensemble))]
        new = F.stack([Tensor._symbolic(v) for v in values], 0)._payload
        tracer.state[id(slot.stacked)] = (slot.stacked, new)
    return replaced


def _routed(tracer, p, stacks) -> bool:
    home = getattr(p, "_home", None)
    return (home is not None and id(home.stacked) in stacks and id(home.stacked) not in tracer.state
            and not getattr(p, "_grad_hooks", None))   # a hooked read keeps its marker on its own input

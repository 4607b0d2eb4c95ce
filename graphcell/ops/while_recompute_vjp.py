"""The vjp of a `while_loop` whose trip count is not known at trace time (a tensor `while`
under jit, or a known count above the unrolling limit), by checkpointing, with static shapes
only, so it lowers to XLA and to nested ONNX Loops, and differentiates and vmaps again:

1. a counting loop: the forward loop again, with an int32 counter carried along, gives the
   trip count n; a `cond` on n <= C then takes one of two forms:
2. n <= C (`stored`): a loop stores every carry in a buffer of C rows, and a loop over the
   iterations, last first, applies the body's vjp to each (2n body runs, 3 loops: levels' inner
   loops would run once per iteration, which at n = 100 took about twice as long). Otherwise
   (`checkpointed`), level 0: a loop fills a buffer of C snapshots, the carry before every
   s-th iteration, s = max(1, ceil(n / C)) (a run-time value); then a loop over the segments,
   last first, hands each segment's snapshot and length L (at most s) to level 1;
   level 1: the same over the segment, with stride s' = max(1, ceil(L / C)) (1 for n <= C^2),
   into a second buffer; then a loop over the segment's iterations k, last first, rebuilds the
   carry before iteration k from its snapshot (k mod s' body runs: none for n <= C^2) and
   applies the body's vjp: the carry's cotangent moves one iteration back and the cotangents
   of the loop's constants (closed-over Tensors, Parameters) are summed over the iterations.

    %n = while_loop(%x..., 0, %consts...)                    # body_graph + `i + 1`, cond_graph
    cond(n <= C): stored: fill (stride 1), then while_loop(n - 1, %ct..., zeros...): take, vjp_body
    else, checkpointed:
    %snaps... = while_loop(1, %x..., write_row(zeros[C], 0, %x)..., %consts...)   # fill, stride s
    %ct_x..., %ct_consts... = while_loop(m - 1, %ct..., zeros..., %snaps..., %consts...)
        body: fill the segment's buffer (stride s'), then
              while_loop(L - 1, %ct..., %sums...):  %x_k = replay(take(%snaps', k // s'), k % s')
                                                    %ct..., %g... = vjp_body(%x_k..., %ct..., %consts...)

Cost for a loop of n iterations: 2n body runs (n <= C), about 3n (counting, and each level's
fill) while n <= C^2, plus n body vjps, and n * (ceil(n / C^2) - 1) / 2 more replays beyond (O(n^2 / C^2)).
Memory: two buffers of C carries. C is a power of two, at most `MAX_SNAPSHOTS`, such that the
two buffers hold at most `SNAPSHOT_BUDGET_BYTES` (a carry of 256 KiB or less gets C = 128, so
up to 16384 iterations run with no replay; a carry of 16 MiB gets C = 2). Under vmap every
member has its own buffers (the budget is per member). The old scheme, kept as the innermost
replay, rebuilt each iteration's carry from the start: n(n+1)/2 body runs
(bench/bench_while_grad.py: an elementwise body on 64 floats at n = 1000, 208-304 -> 11-19 ms
on a loaded 2-core machine; at n = 10000, 17.9 s -> 0.1 s).

Known trip counts (`fori_loop` with int bounds) up to `MAX_UNROLLED_VJP` keep the unrolled vjp
in `control_flow.py`. The recomputation is exact: random draws in the body read keys carried
by the loop (Parameters it writes), so they repeat; integer and bool carries are snapshotted
like the floats. Every inner loop is bounded by a counter, so under vmap a member that has
finished (its masked loop keeps running for the others) runs bounded work on stale values.
A body whose vjp reads no carry (a linear body) needs no snapshots: its vjp is one loop of n.
"""
from __future__ import annotations

import math

from ..dtype import int32
from ..ir.core import Graph, TensorType, Value
from .ad_util import F
from .row_writes import write_row
from .subgraphs import build_graph, inline_graph

# The two snapshot buffers of one loop's vjp hold at most this many bytes (per vmap member).
SNAPSHOT_BUDGET_BYTES = 64 << 20
# At most this many snapshots per buffer: a larger C saves nothing below C^2 iterations and
# costs a buffer of C carries for every level-0 segment.
MAX_SNAPSHOTS = 128
LEVELS = 2

_INDEX = TensorType((), int32)


def snapshot_capacity(carry_types) -> int:
    """C for carries of these types: a power of two in [2, MAX_SNAPSHOTS] within the budget."""
    size = sum(math.prod(t.shape) * t.dtype.np_dtype.itemsize for t in carry_types)
    fits = SNAPSHOT_BUDGET_BYTES // (LEVELS * max(size, 1))
    return max(2, min(MAX_SNAPSHOTS, 1 << max(fits, 1).bit_length() - 1))


def _template(type_: TensorType, name: str, kind: str) -> Value:
    """An input description for `build_graph` (which copies type, name and kind)."""
    return Value(type_, name, kind)


def _ceil_div(a, b):
    return F.floor_div(F.add(a, F.sub(b, 1)), b)


class _Reverse:
    """Builds the loops of one vjp. Every loop takes the forward loop's constants last, with
    the body's own input descriptions (kinds "param"/"capture" as the body has them)."""

    def __init__(self, cond_graph: Graph, body_graph: Graph, vjp_body: Graph, n_carry: int, n_ct: int):
        self.cond_graph, self.body_graph, self.vjp_body = cond_graph, body_graph, vjp_body
        self.n_carry, self.n_ct = n_carry, n_ct
        self.carry_types = [v.type for v in body_graph.inputs[:n_carry]]
        self.const_templates = list(body_graph.inputs[n_carry:])
        self.capacity = snapshot_capacity(self.carry_types)
        self.name = body_graph.name

    def loop(self, tag: str, carry: list, extras: list, consts: list, keep_going, step) -> list:
        """`while keep_going(carry, extras, consts): carry = step(carry, extras, consts)`;
        `extras` and `consts` are loop-invariant."""
        from ..passes.grad import prune
        from .control_flow import while_p
        nc, ne = len(carry), len(extras)
        template = self.template(carry, extras)

        def split(xs):
            return xs[:nc], xs[nc:nc + ne], xs[nc + ne:]
        cond = build_graph(f"{self.name}_{tag}_cond", template, lambda xs: [keep_going(*split(xs))])
        # pruned: a snapshot or replay is dead where the body's vjp does not read the carry
        body = prune(build_graph(f"{self.name}_{tag}_body", template, lambda xs: list(step(*split(xs)))))
        return list(while_p.bind(*carry, *extras, *consts, cond_graph=cond, body_graph=body, n_carry=nc))

    def template(self, args, extras=()) -> list:
        """Subgraph inputs: `args` (kind "arg"), `extras` ("capture"), the loop's constants."""
        return ([_template(TensorType(tuple(a.shape), a.dtype), f"c{i}", "arg") for i, a in enumerate(args)]
                + [_template(TensorType(tuple(e.shape), e.dtype), f"e{i}", "capture") for i, e in enumerate(extras)]
                + self.const_templates)

    def either(self, pred, args, consts, then_fn, else_fn) -> list:
        """`then_fn(args, consts)` if pred else `else_fn(args, consts)`, as one cond node."""
        from .control_flow import cond_p
        template, na = self.template(args), len(args)
        branches = [build_graph(f"{self.name}_{fn.__name__}", template, lambda xs, fn=fn: fn(xs[:na], xs[na:]))
                    for fn in (then_fn, else_fn)]
        return list(cond_p.bind(pred, *args, *consts, then_branch=branches[0], else_branch=branches[1]))

    def vjp_step(self, x, ct, sums, consts):
        """One iteration back: the body's vjp at carry x; the constants' cotangents summed."""
        grads = inline_graph(self.vjp_body, list(x) + list(ct) + list(consts))
        return grads[:self.n_ct], [F.add(s, g) for s, g in zip(sums, grads[self.n_ct:])]

    def step_body(self, carry, consts) -> list:
        return inline_graph(self.body_graph, list(carry) + list(consts))

    def count(self, carry, consts):
        """The trip count: the forward loop again, with a counter."""
        def keep_going(c, e, k):
            return inline_graph(self.cond_graph, c[1:] + k)[0]
        outs = self.loop("count", [F.as_tensor(0, int32)] + list(carry), [], consts, keep_going,
                         lambda c, e, k: [c[0] + 1] + self.step_body(c[1:], k))
        return outs[0]

    def replay(self, start, steps, consts) -> list:
        """The carry after `steps` body runs from `start`."""
        outs = self.loop("replay", [F.as_tensor(0, int32)] + list(start), [steps], consts,
                         lambda c, e, k: c[0] < e[0],
                         lambda c, e, k: [c[0] + 1] + self.step_body(c[1:], k))
        return outs[1:]

    def fill(self, start, length, stride, consts) -> list:
        """Buffers of C rows (one per carry part) holding the carry before iterations 0, s, 2s,
        ... < length; the rows past them are zeros. Iteration k's carry is written to row
        ceil(k / s), so the last write to row j is the carry before iteration j*s."""
        buffers = [write_row(F.zeros((self.capacity,) + t.shape, t.dtype), F.as_tensor(0, int32), x)
                   for t, x in zip(self.carry_types, start)]
        last = F.mul(F.sub(_ceil_div(length, stride), 1), stride)     # the last snapshot's iteration
        nc = self.n_carry

        def step(c, e, k):
            i, x, bufs = c[0], self.step_body(c[1:1 + nc], k), c[1 + nc:]
            row = _ceil_div(i, e[1])
            return [i + 1] + x + [write_row(b, row, v) for b, v in zip(bufs, x)]
        outs = self.loop("fill", [F.as_tensor(1, int32)] + list(start) + buffers, [last, stride], consts,
                         lambda c, e, k: c[0] <= e[0], step)
        return outs[1 + nc:]

    def backward(self, level: int, start, length, ct, sums, consts):
        """The cotangents before `length` iterations from `start`, given those after them."""
        stride = F.maximum(_ceil_div(length, self.capacity), 1)
        buffers = self.fill(start, length, stride, consts)
        innermost = level == LEVELS - 1
        n_ct = self.n_ct

        def step(c, e, k):
            i, ct, sums = c[0], c[1:1 + n_ct], c[1 + n_ct:]
            length, stride, bufs = e[0], e[1], e[2:]
            if innermost:   # i counts iterations: replay from the nearest snapshot before it
                row = F.floor_div(i, stride)
                snapshot = [F.take_in_range(b, row, 0) for b in bufs]
                ct, sums = self.vjp_step(self.replay(snapshot, F.sub(i, F.mul(row, stride)), k), ct, sums, k)
            else:           # i counts segments
                snapshot = [F.take_in_range(b, i, 0) for b in bufs]
                seg = F.minimum(stride, F.sub(length, F.mul(i, stride)))
                ct, sums = self.backward(level + 1, snapshot, seg, ct, sums, k)
            return [i - 1] + list(ct) + list(sums)
        first = F.sub(length if innermost else _ceil_div(length, stride), 1)
        outs = self.loop(f"vjp{level}", [first] + list(ct) + list(sums), [length, stride] + buffers, consts,
                         lambda c, e, k: c[0] >= 0, step)
        return outs[1:1 + n_ct], outs[1 + n_ct:]

    def direct(self, start, length, ct, sums, consts):
        """For length <= C: every carry in one buffer, read by the vjps (no level 1, no replay)."""
        n_ct = self.n_ct
        buffers = self.fill(start, length, F.as_tensor(1, int32), consts)

        def step(c, e, k):
            i = c[0]
            ct, sums = self.vjp_step([F.take_in_range(b, i, 0) for b in e], c[1:1 + n_ct], c[1 + n_ct:], k)
            return [i - 1] + list(ct) + list(sums)
        outs = self.loop("vjp", [F.sub(length, 1)] + list(ct) + list(sums), buffers, consts,
                         lambda c, e, k: c[0] >= 0, step)
        return outs[1:1 + n_ct], outs[1 + n_ct:]

    def linear_backward(self, n, ct, sums, consts):
        """For a body whose vjp reads no carry: the vjp n times, on the starting carry."""
        n_ct = self.n_ct

        def step(c, e, k):
            unread = [F.zeros(t.shape, t.dtype) for t in self.carry_types]
            grads = inline_graph(self.vjp_body, unread + c[1:1 + n_ct] + k)
            return [c[0] - 1] + grads[:n_ct] + [F.add(s, g) for s, g in zip(c[1 + n_ct:], grads[n_ct:])]
        outs = self.loop("vjp", [F.sub(n, 1)] + list(ct) + list(sums), [], consts,
                         lambda c, e, k: c[0] >= 0, step)
        return outs[1:1 + n_ct], outs[1 + n_ct:]


def recomputed_while_vjp(cond_graph: Graph, body_graph: Graph, vjp_body: Graph, n_carry: int,
                         carry, consts, float_carry, float_consts, ct) -> tuple[list, list]:
    """The cotangents of the loop's float carries (`float_carry`, whose output cotangents are
    `ct`) and float constants (`float_consts`, indices into `consts`). `vjp_body` is
    `grads_only(grad_graph(body_graph, float_carry + consts wanted, float_carry, with_sens=True))`:
    inputs carry, sens, consts; outputs the carry's then the constants' cotangents."""
    reverse = _Reverse(cond_graph, body_graph, vjp_body, n_carry, len(float_carry))
    carry, consts = list(carry), list(consts)
    n = reverse.count(carry, consts)
    sums = [F.zeros_like(consts[j]) for j in float_consts]
    ct = list(ct)
    if not any(v.users for v in vjp_body.inputs[:n_carry]):
        return reverse.linear_backward(n, ct, sums, consts)
    n_ct = len(ct)

    def stored(args, k):   # n <= C: the levels' inner loops would run once per iteration
        return sum(reverse.direct(args[1:1 + n_carry], args[0], args[1 + n_carry:1 + n_carry + n_ct],
                                  args[1 + n_carry + n_ct:], k), [])

    def checkpointed(args, k):
        return sum(reverse.backward(0, args[1:1 + n_carry], args[0], args[1 + n_carry:1 + n_carry + n_ct],
                                    args[1 + n_carry + n_ct:], k), [])
    outs = reverse.either(F.less_equal(n, reverse.capacity), [n] + carry + ct + sums, consts, stored, checkpointed)
    return outs[:n_ct], outs[n_ct:]

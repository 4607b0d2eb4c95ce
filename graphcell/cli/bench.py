"""`graphcell bench MODEL --members 1,4,16 --batch 1,32`: one vmapped ensemble call vs a
loop calling each member, for every (members, batch) pair, through XLA.

The loop is the fairest per-model baseline: one compiled program for the architecture,
called once per member with that member's parameters (compilation is not timed). The
ensemble is `vmap(nn.CellList(members), in_axes=None)`: one input batch for all members.
The size asked for with --batch replaces the `batch` dimension of --input-shape (or the
first dimension when none is called batch).
"""
from __future__ import annotations

import time

import numpy as np

from . import loader
from .dump import loader_args
from .errors import UserError, positive_int


def add_parser(sub, common):
    p = sub.add_parser("bench", parents=[common], help="ensemble (vmap) vs per-model loop timings",
                       description=__doc__.split("\n\n")[0])
    loader_args(p, batch_default=None)   # --batch gives the sizes
    p.add_argument("--members", default="1,4,16", metavar="LIST", help="ensemble sizes (default 1,4,16)")
    p.add_argument("--batch", default="1,32", metavar="LIST", help="batch sizes (default 1,32)")
    p.add_argument("--repeat", type=positive_int, default=20, metavar="K", help="timed calls per cell (default 20)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.set_defaults(handler=run)


def _ints(text: str, flag: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        values = []
    if not values or min(values) < 1:
        raise UserError(f"{flag} must be a comma list of positive integers, got {text!r}")
    return values


def _median_ms(fn, repeat: int) -> float:
    import jax
    jax.block_until_ready(fn())   # warm-up: compilation is not timed
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        jax.block_until_ready(fn())
        times.append(time.perf_counter() - t0)
    return float(np.median(times) * 1e3)


def run(args, out) -> int:
    import graphcell as ms
    from ..compiler.jit import compiled_fn
    from ..frontend.trace import trace
    from ..nn import CellList
    members, batches = _ints(args.members, "--members"), _ints(args.batch, "--batch")
    ms.set_seed(args.seed)
    specs = loader.parse_inputs(args.input_shape, args.input_dtype)   # first: loading a script runs it
    spec = loader.load_model(args.model, args.args)
    if not any(s.batch_axes for s in specs):   # the first dimension is the batch
        specs = [loader.InputSpec((loader.BATCH,) + s.shape[1:], s.dtype) for s in specs]
    nets = loader.build_members(spec, None, max(members), inputs=specs)
    results = []
    for b in batches:
        inputs = loader.random_inputs(specs, b, args.seed)
        traced = loader.traced_user_call(f"tracing {args.model}", trace, nets[0], *inputs)
        traced.cache["owner"] = nets[0]
        program = compiled_fn(traced)
        arrays = [t._payload for t in inputs]
        member_params = [[p._payload for p in net_params(net, traced)] for net in nets]
        for m in members:
            def loop(m=m):
                return [program(*arrays, *member_params[i]) for i in range(m)]
            ensemble = ms.vmap(CellList(nets[:m]), in_axes=None)
            t_loop = _median_ms(loop, args.repeat)
            t_ens = _median_ms(lambda: ensemble(*inputs)._payload, args.repeat)
            results.append({"members": m, "batch": b, "ensemble_ms": t_ens, "loop_ms": t_loop,
                            "speedup": t_loop / t_ens, "samples_per_s": m * b / (t_ens / 1e3)})
    if args.json:
        out.json({"model": args.model, "repeat": args.repeat, "results": results})
        return 0
    rows = [[r["members"], r["batch"], f"{r['ensemble_ms']:.3f}", f"{r['loop_ms']:.3f}", f"{r['speedup']:.2f}x",
             f"{r['samples_per_s']:.0f}"] for r in results]
    out.table(f"{args.model}: median of {args.repeat} calls (XLA, CPU)",
              ["members", "batch", "ensemble ms", "loop ms", "speedup", "member-samples/s"], rows)
    return 0


def net_params(net, traced) -> list:
    """`net`'s parameters in the order the traced graph of member 0 takes them (matched by
    position: members share one architecture, and a CellList may prefix their names)."""
    from ..nn.cell import state_parameters
    position = {id(p): i for i, p in enumerate(state_parameters(traced_owner(traced)))}
    mine = state_parameters(net)
    return [mine[position[id(p)]] for p in traced.params] + list(traced.captures)


def traced_owner(traced):
    return traced.cache["owner"]

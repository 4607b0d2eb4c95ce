"""Passes over an export's traces, in step.

`export` finds dynamic dimensions by pairing the values of traces at different sizes node for
node (export.py), so the traces must stay twins through any pass. Passes are deterministic,
but some decide by shape: cse merges two constants that are equal at one size only, simplify
drops a broadcast of a bias to a batch of 1 (no element repeats there) and keeps it at 7. So
every pass runs on all the traces, and its result is kept only where they are still one
program (the check the traces themselves passed); where they are not, every trace keeps its
graph from before that pass. The decision is the same for every trace, so values still pair.

Export runs the "onnx" pipeline's passes (`EXPORT_PASSES`, which names them all): cse and
merge_scans, which make an RNN's forward scan and its gradient's replay one loop, then dce.
The lowering already fuses biases (`find_fusions`), skips dead nodes and merges equal ONNX
nodes, and onnxruntime folds constants at session creation (passes/manager.py). The XLA
pipeline's folding would not fit export anyway: it evaluates iota-built masks (x[0] = 1 on a
dynamic batch selects by an iota over the rows) into constants that are right at the traced
sizes only, in both traces alike; and the former longer ONNX pipeline on both traces of the
N=16 LeNet5 ensemble made its export 22-32% slower for a file with the same nodes.
"""
from __future__ import annotations

import dataclasses

from ..frontend.trace import Traced
from ..ir.core import Graph
from ..passes.manager import PIPELINE_ROUNDS, PIPELINES, run_passes

EXPORT_PASSES = ("cse", "merge_scans", "dce")


def run_in_step(graphs: list[Graph], names=EXPORT_PASSES, pipeline: str = "onnx",
                max_rounds: int = PIPELINE_ROUNDS, on_pass=None) -> list[Graph]:
    """`graphs` (traces of one program at different sizes) through the passes of `pipeline`
    named in `names`, in its order, each kept only where it leaves them one program; to a
    fixed point, as `run_pipeline`. `on_pass(name, graph)` hears of each kept pass with the
    first graph's result."""
    from .export import _same_structure
    passes = [(name, pass_) for name, pass_ in PIPELINES[pipeline] if name in names]
    for _ in range(max_rounds):
        round_changed = False
        for name, pass_ in passes:
            results = [run_passes(g, [(name, pass_)]) for g in graphs]
            if not any(r.changed for r in results):
                continue
            new = [r.graph for r in results]
            if any(_same_structure(new[0], g) is not None for g in new[1:]):
                continue   # a decision by size: no trace takes this pass this round
            graphs, round_changed = new, True
            if on_pass is not None:
                on_pass(name, graphs[0])
        if not round_changed:
            break
    return graphs


def optimized(traces: list[Traced]) -> list[Traced]:
    """`traces` with their graphs through `EXPORT_PASSES` in step (`run_in_step`), where a
    scan could merge (two scans or more; the other passes only prepare and clean up after
    it); the first remembers the passes it took for save_graphs (`passes` in its cache)."""
    from ..ops.scan_loop import scan_p
    if sum(node.primitive is scan_p for node in traces[0].graph.nodes) < 2:
        return traces
    stages: list = []
    graphs = run_in_step([t.graph for t in traces], on_pass=lambda name, g: stages.append((name, g)))
    out = [t if g is t.graph else dataclasses.replace(t, graph=g, cache={}) for t, g in zip(traces, graphs)]
    if stages:
        out[0].cache["passes"] = (traces[0], stages)
    return out

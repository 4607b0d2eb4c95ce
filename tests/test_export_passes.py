"""compiler/export_passes.py: export's passes run on all its traces in step, and a pass whose
results are not one program at every traced size is left out for all of them."""
import numpy as np

import graphcell as ms
from graphcell import ops
from graphcell.compiler.export import _same_structure
from graphcell.compiler.export_passes import run_in_step


def _traces(fn, *batches):
    return [ms.trace(fn, ms.Tensor(np.ones((b, 3), np.float32))).graph for b in batches]


def test_a_pass_that_decides_by_size_is_left_out_of_every_trace():
    """cse merges a broadcast to (1, 3) with one to (batch, 3) at batch 1 only: at batches 1
    and 4 the traces keep their graphs; at 2 and 4 the duplicate exp merges in both."""
    def f(x):
        s = x.sum(0)
        return ops.exp(x) + ops.exp(x) + ops.broadcast_to(s, (x.shape[0], 3)) + ops.broadcast_to(s, (1, 3))

    def count(graph, name):
        return sum(n.primitive.name == name for n in graph.nodes)

    a, b = _traces(f, 1, 4)
    assert _same_structure(a, b) is None
    assert [g is h for g, h in zip(run_in_step([a, b], names=("cse",)), [a, b])] == [True, True]
    a, b = _traces(f, 2, 4)
    merged = run_in_step([a, b], names=("cse",))
    assert [count(g, "exp") for g in merged] == [1, 1] and _same_structure(*merged) is None

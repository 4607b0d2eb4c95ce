"""`Node.pure` is computed once per node: the answer follows the attrs a node was built with
(never a stale copy of another node's), and a loop body is not walked again on every ask."""
from collections import Counter

import numpy as np
import pytest

import graphcell as ms
from graphcell import ops
from graphcell.ir import core
from graphcell.passes import dce, run_pipeline
from graphcell.passes.base import PassResult, rebuild
from tests.pass_helpers import assert_same_outputs, call, extra_primitives, parse


@pytest.fixture(autouse=True)
def _test_primitives():
    with extra_primitives():
        yield


# `%0` is unused: DCE drops it exactly when its body is pure.
CALL_OF_PURE_BODY = """
    graph f(%x: f32[3]) {
      %0:f32[3] = test_call(%x)
        body:
        graph body(%a: f32[3]) {
          %1:f32[3] = neg(%a)
          return %1
        }
      return %x
    }"""
CALL_OF_IMPURE_BODY = CALL_OF_PURE_BODY.replace("neg(%a)", "test_effect(%a)")


def _call_node(graph):
    (node,) = [n for n in graph.nodes if n.primitive is call]
    return node


def test_purity_follows_the_attrs_a_node_is_built_from():
    """Passes build nodes from other nodes' attrs with a subgraph swapped: each new node answers
    for its own body, even after the old node's answer was cached."""
    pure_graph, impure_graph = parse(CALL_OF_PURE_BODY), parse(CALL_OF_IMPURE_BODY)
    pure_body, impure_body = _call_node(pure_graph).attrs["body"], _call_node(impure_graph).attrs["body"]
    for graph, new_body, want in ((pure_graph, impure_body, False), (impure_graph, pure_body, True)):
        old = _call_node(graph)
        assert old.pure is (not want) and old.pure is (not want)   # the second ask: the cache

        def swap_in_hook(node, ins, builder):   # a rewrite building the node from old attrs
            if node.primitive is call:
                return builder.add_node(call, ins, dict(node.attrs, body=new_body))
            return None

        def swap_as_subgraph_pass(sub):         # the subgraph route: rebuild's _copy_node
            return PassResult(new_body, True)

        for rewritten, _ in (rebuild(graph, swap_in_hook), rebuild(graph, subgraph_pass=swap_as_subgraph_pass)):
            assert _call_node(rewritten).pure is want
            # DCE acts on that answer: an unused impure call stays, an unused pure one goes.
            assert any(n.primitive is call for n in dce(rewritten).graph.nodes) is not want
        assert old.pure is (not want)   # the old node keeps its own answer


def _all_nodes(graph):
    for node in graph.nodes:
        yield node
        for sub in node.attrs.values():
            if isinstance(sub, core.Graph):
                yield from _all_nodes(sub)


def test_plain_copies_share_purity_without_walking(monkeypatch):
    """A copy with the same primitive and attrs dict (every unchanged node of a pass) takes its
    original's answer, so a loop body is walked once however many passes copy the loop."""
    walked = []
    walk = core.walk_purity

    def counting_walk(node):
        walked.append(node)
        return walk(node)
    monkeypatch.setattr(core, "walk_purity", counting_walk)

    def f(x, y):
        def body(v):
            for k in range(40):   # a large body: 40 x (constant, mul, constant, add)
                v = v * (1.0 + (k + 1) / 128) + float(k + 2)
            return v
        a = ops.while_loop(lambda v: v.sum() < 1e6, body, x)
        return (a + y * 2.0) + (y * 2.0)   # `y * 2.0` twice: cse changes the graph, copying the loop
    x = ms.Tensor(np.ones(3, np.float32))
    graph = ms.trace(f, x, x).graph
    (loop,) = [n for n in graph.nodes if n.primitive.name == "while_loop"]
    assert len(loop.attrs["body_graph"].nodes) == 160

    optimized = run_pipeline(graph, "xla").graph
    (new_loop,) = [n for n in optimized.nodes if n.primitive.name == "while_loop"]
    assert new_loop is not loop and new_loop.attrs is loop.attrs   # copied, body untouched
    # Every traced node, loop and body alike, walked at most once; no copy walked at all
    # (each pass asks every node: uncached, the body was walked once per ask of the loop).
    traced = {id(n) for n in _all_nodes(graph)}
    counts = Counter(id(n) for n in walked)
    assert max(counts.values()) == 1 and set(counts) <= traced
    assert counts[id(loop)] == 1
    before = len(walked)
    for _ in range(5):
        assert new_loop.pure and loop.pure
    assert len(walked) == before                     # asking again walks nothing
    assert_same_outputs(graph, optimized, seeds=(0,))

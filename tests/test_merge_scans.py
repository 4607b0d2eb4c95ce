"""passes/merge_scans.py: a scan's vjp replays the forward loop for its residuals; the pass
makes the forward loop and its replay one, and merges nothing that would change a result."""
import jax
import jax.numpy as jnp
import numpy as np

import graphcell as ms
from graphcell import Tensor, nn, ops
from graphcell.passes import cse, run_pipeline
from graphcell.passes.merge_scans import merge_scans
from tests.pass_helpers import assert_same_outputs

RNG = np.random.default_rng(3)


def randn(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def scans(graph) -> int:
    return sum(node.primitive.name == "scan" for node in graph.nodes)


def rnn_loss(h0, xs, w):
    def step(h, x):
        h = ops.tanh(ops.matmul(h, w) + x)
        return h, h * h
    h, ys = ops.scan(step, h0, xs)
    return h.sum() + ys.sum()


def jax_rnn_loss(h0, xs, w):
    def step(h, x):
        h = jnp.tanh(h @ w + x)
        return h, h * h
    h, ys = jax.lax.scan(step, h0, xs)
    return h.sum() + ys.sum()


def test_a_scans_gradient_runs_the_forward_loop_once():
    """grad of a scan: the forward scan, its replay stacking the residuals, the backward scan (3);
    after the pass 2, and the gradients still equal jax.grad's, under jit too."""
    h0, xs, w = randn(2, 3), randn(6, 2, 3), randn(3, 3) * 0.5
    grad = ms.grad(rnn_loss, (0, 1, 2))
    graph = ms.trace(grad, Tensor(h0), Tensor(xs), Tensor(w)).graph
    assert scans(graph) == 3
    merged = merge_scans(cse(graph).graph)
    assert merged.changed and scans(merged.graph) == 2
    # the backward loop reads the stored tanh outputs: it recomputes no step of the forward
    backward = [n for n in merged.graph.nodes if n.primitive.name == "scan"][-1].attrs["body"]
    assert not any(n.primitive.name in ("tanh", "dot_general") and n.inputs[0].kind == "arg" and
                   n.inputs[0] is backward.inputs[0] for n in backward.nodes)
    assert sum(n.primitive.name == "tanh" for n in backward.nodes) == 0
    assert scans(run_pipeline(graph, "xla").graph) == 2 and scans(run_pipeline(graph, "onnx").graph) == 2
    assert_same_outputs(graph, merged.graph, rtol=1e-5, atol=1e-6)
    want = jax.grad(jax_rnn_loss, (0, 1, 2))(h0, xs, w)
    for backend in ("xla", "onnx"):
        got = ms.jit(grad, backend=backend)(Tensor(h0), Tensor(xs), Tensor(w))
        for g, ref in zip(got, want):
            np.testing.assert_allclose(g.asnumpy(), ref, rtol=1e-4, atol=1e-5)


def test_scans_with_another_carry_or_other_operands_stay_apart():
    """Same operands, other carry computation; or same body, other operands: not merged. Same
    operands and carry, other per-step outputs: merged, each keeping its own outputs."""
    h0, xs = randn(2, 3), randn(4, 2, 3)

    def pair(h0, xs, other):
        add = lambda h, x: (h + x, h * 2)           # noqa: E731
        sub = lambda h, x: (h - x, h * 2)           # noqa: E731
        add_cube = lambda h, x: (h + x, h ** 3)     # noqa: E731
        a, b, c, d = (ops.scan(add, h0, xs), ops.scan(sub, h0, xs), ops.scan(add, other, xs),
                      ops.scan(add_cube, h0, xs))
        return a[0], a[1], b[0], b[1], c[0], c[1], d[0], d[1]

    graph = cse(ms.trace(pair, Tensor(h0), Tensor(xs), Tensor(h0 + 1)).graph).graph
    assert scans(graph) == 4
    merged = merge_scans(graph)
    assert merged.changed and scans(merged.graph) == 3      # add and add_cube: one loop
    assert_same_outputs(graph, merged.graph)


def test_lstm_training_step_merges_and_matches_unmerged():
    """An LSTM's gradient through the xla pipeline: fewer scans, same parameter gradients
    as the graph without the pass."""
    ms.set_seed(4)
    net = nn.LSTM(3, 4, num_layers=2)
    params = net.trainable_params()
    x = Tensor(randn(5, 2, 3))
    graph = ms.trace(ms.grad(lambda v: net(v)[0].sum(), None, params), x).graph
    before = scans(graph)
    optimised = run_pipeline(graph, "xla").graph
    assert scans(optimised) == before - 2      # one replay per layer gone
    assert_same_outputs(graph, optimised, rtol=1e-5, atol=1e-6, jit=True)

"""ops/scan_vjp_plan.py and simplify's disjoint-pads rule: an LSTM's gradient loops do the
per-step work only (cheap residuals recomputed, the recurrent weight's cotangent one matmul after
the loop, the gate cotangents one concatenate), with the same values."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, nn, ops
from graphcell.passes import run_pipeline, simplify
from tests.pass_helpers import assert_same_outputs
from tests.test_passes import check

RNG = np.random.default_rng(5)


def randn(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def test_lstm_gradient_loops_hold_the_per_step_work_only():
    """The xla graph of an LSTM's gradient: the forward loop stacks 7 residuals per step (h and
    c before it, the four gate activations, tanh(c)) besides its output; the backward loop has
    one matmul a step (the hidden state's cotangent), no weight-sized running sum in its carry
    and no pads; W_hh's cotangent is one dot_general over the steps after it. Values as before
    the passes."""
    ms.set_seed(4)
    net = nn.LSTM(3, 4)
    graph = ms.trace(ms.grad(lambda v: net(v)[0].sum(), None, net.trainable_params()), Tensor(randn(5, 2, 3))).graph
    optimised = run_pipeline(graph, "xla").graph
    forward, backward = [n for n in optimised.nodes if n.primitive.name == "scan"]
    assert len(forward.outputs) == 2 + 1 + 7
    body = backward.attrs["body"]
    names = [n.primitive.name for n in body.nodes]
    assert names.count("dot_general") == 1 and "pad" not in names and names.count("concatenate") == 1
    assert all(v.shape == (2, 4) for v in body.inputs[:backward.attrs["n_carry"]])
    after = [n for n in optimised.nodes[optimised.nodes.index(backward):] if n.primitive.name == "dot_general"]
    assert any(n.attrs["contract"] == ((0, 1), (0, 1)) for n in after)
    assert_same_outputs(graph, optimised, rtol=1e-5, atol=1e-6, jit=True)


@pytest.mark.slow
def test_weight_cotangents_contracted_after_the_loop_equal_jax_grad():
    """A body reading its weight in two matmuls (one on the carry, one on a y's cotangent path)
    and a weight read by a non-matmul op (summed in the loop as before), both directions."""
    def loss(h0, xs, w, u, b):
        def step(h, x):
            h = ops.tanh(ops.matmul(h, w) + ops.matmul(x, u) + b)
            return h, ops.matmul(h, u) * h
        h, ys = ops.scan(step, h0, xs)
        h2, ys2 = ops.scan(step, h0, xs, reverse=True)
        return h.sum() + (ys * ys).sum() + (h2 * ys2.sum(0)).sum()

    def jax_loss(h0, xs, w, u, b):
        def step(h, x):
            h = jnp.tanh(h @ w + x @ u + b)
            return h, (h @ u) * h
        h, ys = jax.lax.scan(step, h0, xs)
        h2, ys2 = jax.lax.scan(step, h0, xs, reverse=True)
        return h.sum() + (ys * ys).sum() + (h2 * ys2.sum(0)).sum()
    args = randn(2, 3), randn(6, 2, 3), randn(3, 3) * 0.5, randn(3, 3) * 0.5, randn(3)
    got = ms.jit(ms.grad(loss, (0, 1, 2, 3, 4)))(*map(Tensor, args))
    want = jax.grad(jax_loss, (0, 1, 2, 3, 4))(*args)
    for g, ref in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), ref, rtol=1e-4, atol=1e-5)


def test_simplify_joins_zero_pads_of_disjoint_spans():
    """Sums of zero pads of disjoint spans of one axis: one concatenation, zeros in the gaps,
    one pad for the ends (the bypassed pads are left for dce); overlapping spans stay a sum."""
    check(simplify, """
        graph f(%a: f32[2,2], %b: f32[2,1], %c: f32[2,3], %d: f32[2,1]) {
          %0:f32[] = constant() {value=0.0}
          %1:f32[2,8] = pad(%a, %0) {hi=(0,5), lo=(0,1)}
          %2:f32[2,8] = pad(%b, %0) {hi=(0,1), lo=(0,6)}
          %3:f32[2,8] = add(%1, %2)
          %4:f32[2,8] = pad(%c, %0) {hi=(0,4), lo=(0,1)}
          %5:f32[2,8] = add(%3, %4)
          %6:f32[2,8] = pad(%d, %0) {hi=(0,0), lo=(0,7)}
          %7:f32[2,8] = add(%6, %3)
          return %7, %5
        }""", """
        graph f(%a: f32[2,2], %b: f32[2,1], %c: f32[2,3], %d: f32[2,1]) {
          %0:f32[] = constant() {value=0.0}
          %1:f32[2,8] = pad(%a, %0) {hi=(0,5), lo=(0,1)}
          %2:f32[2,8] = pad(%b, %0) {hi=(0,1), lo=(0,6)}
          %3:f32[2,3] = broadcast_in_dim(%0) {dims=(), shape=(2,3)}
          %4:f32[2,6] = concatenate(%a, %3, %b) {axis=1}
          %5:f32[2,8] = pad(%4, %0) {hi=(0,1), lo=(0,1)}
          %6:f32[2,8] = pad(%c, %0) {hi=(0,4), lo=(0,1)}
          %7:f32[2,8] = add(%5, %6)
          %8:f32[2,8] = pad(%d, %0) {hi=(0,0), lo=(0,7)}
          %9:f32[2,7] = concatenate(%a, %3, %b, %d) {axis=1}
          %10:f32[2,8] = pad(%9, %0) {hi=(0,0), lo=(0,1)}
          return %10, %7
        }""")

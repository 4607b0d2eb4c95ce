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


# -- ensembles: the body vmapped before the scan is differentiated ------------------------------

def _jax_rnn(kind, w, x):
    """One member's sequence output, written from torch's (and MindSpore's) gate equations."""
    def lstm(carry, xt):
        h, c = carry
        gates = xt @ w["weight_ih_l0"].T + w["bias_ih_l0"] + h @ w["weight_hh_l0"].T + w["bias_hh_l0"]
        i, f, g, o = jnp.split(gates, 4, axis=-1)
        c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        h = jax.nn.sigmoid(o) * jnp.tanh(c)
        return (h, c), h

    def gru(carry, xt):
        (h,) = carry
        i_r, i_z, i_n = jnp.split(xt @ w["weight_ih_l0"].T + w["bias_ih_l0"], 3, axis=-1)
        h_r, h_z, h_n = jnp.split(h @ w["weight_hh_l0"].T + w["bias_hh_l0"], 3, axis=-1)
        r, z = jax.nn.sigmoid(i_r + h_r), jax.nn.sigmoid(i_z + h_z)
        n = jnp.tanh(i_n + r * h_n)
        return (n + z * (h - n),), n + z * (h - n)
    zeros = jnp.zeros((x.shape[1], w["weight_hh_l0"].shape[1]), x.dtype)
    step, init = (lstm, (zeros, zeros)) if kind == "LSTM" else (gru, (zeros,))
    return jax.lax.scan(step, init, x)[1]


def _scan_nodes(graph):
    return [n for n in graph.nodes if n.primitive.name == "scan"]


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_ensemble_weight_cotangents_leave_the_loop_and_equal_jax_grad(kind):
    """grad over `vmap(CellList)` of N=3 recurrent nets: the scan's vjp sees the vmapped body,
    whose weight cotangent is a dot_general batched over the members. It leaves the loop as one
    batched matmul over the steps (the backward body held two dot_generals, now one: the hidden
    state's; W_hh's running sum is gone from its carry), and every member's gradients are
    jax.grad's of a plain-jax scan of that member."""
    ms.set_seed(6)
    members = [getattr(nn, kind)(3, 4) for _ in range(3)]
    ensemble = ms.vmap(nn.CellList(members), in_axes=None)
    weights = [p for m in members for p in m.trainable_params()]
    x = randn(5, 2, 3)
    fn = ms.grad(lambda v: (ensemble(v)[0] ** 2).sum(), None, weights)
    optimised = run_pipeline(ms.trace(fn, Tensor(x)).graph, "xla").graph
    backward = _scan_nodes(optimised)[-1]
    body = backward.attrs["body"]
    assert [n.primitive.name for n in body.nodes].count("dot_general") == 1
    assert all(v.shape != (3, 4 * (4 if kind == "LSTM" else 3), 4) for v in body.inputs[:backward.attrs["n_carry"]])
    after = optimised.nodes[optimised.nodes.index(backward):]
    assert any(n.primitive.name == "dot_general" and n.attrs["batch"] == ((1,), (1,))
               and n.attrs["contract"][0][0] == 0 for n in after)

    got = [g.asnumpy() for g in ms.jit(fn)(Tensor(x))]
    names = [p.name.split(".")[-1] for p in members[0].trainable_params()]
    params = [{k: p.asnumpy() for k, p in zip(names, m.trainable_params())} for m in members]
    want = jax.grad(lambda ps: sum((_jax_rnn(kind, w, x) ** 2).sum() for w in ps))(params)
    for g, ref in zip(got, [w[k] for w in want for k in names]):
        np.testing.assert_allclose(g, ref, rtol=1e-4, atol=1e-5)


def _member_loss(w, u, h0, xs):
    def step(h, x):
        h = ops.tanh(ops.matmul(h, w) + ops.matmul(x, u))
        return h, h
    h, ys = ops.scan(step, h0, xs)
    return (ys * ys).sum() + (h * h0).sum()


def test_hoisted_cotangents_of_weights_mapped_off_axis_0_match_finite_differences():
    """A vmapped function whose recurrent weight is mapped on axis 1 and whose input weight is
    mapped while the input is shared: each cotangent is a dot_general followed by a transpose
    back to the weight's layout. Both leave the loop (the backward body keeps the hidden
    state's dot_general only, its carry the hidden state's cotangent only), and the float64
    gradients are central differences'."""
    rng = np.random.default_rng(2)
    w, u = rng.standard_normal((3, 3, 3)) * 0.4, rng.standard_normal((3, 2, 3)) * 0.4
    h0, xs = rng.standard_normal((2, 3)), rng.standard_normal((4, 2, 2))
    ensemble = ms.vmap(_member_loss, in_axes=(1, 0, None, None))

    def loss(w_, u_):
        return ensemble(w_, u_, Tensor(h0), Tensor(xs)).sum()
    fn = ms.grad(loss, (0, 1))
    optimised = run_pipeline(ms.trace(fn, Tensor(w), Tensor(u)).graph, "xla").graph
    backward = _scan_nodes(optimised)[-1]
    assert [n.primitive.name for n in backward.attrs["body"].nodes].count("dot_general") == 1
    assert backward.attrs["n_carry"] == 1

    got = [g.asnumpy() for g in ms.jit(fn)(Tensor(w), Tensor(u))]
    assert got[0].dtype == np.float64
    for at, (g, arg) in enumerate(zip(got, (w, u))):
        want = np.zeros_like(arg)
        for i in np.ndindex(arg.shape):
            step = np.zeros_like(arg)
            step[i] = 1e-6
            args = [w, u]
            args[at] = arg + step
            up = float(loss(*map(Tensor, args)).asnumpy())
            args[at] = arg - step
            want[i] = (up - float(loss(*map(Tensor, args)).asnumpy())) / 2e-6
        np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-7)


# -- a bias added inside the step: its cotangent is a reduce_sum of a per-step value -----------

def _backward_loop_reductions(graph):
    backward = _scan_nodes(run_pipeline(graph, "xla").graph)[-1]
    names = [n.primitive.name for n in backward.attrs["body"].nodes]
    return names.count("reduce_sum"), backward.attrs["n_carry"]


def test_gru_bias_cotangent_leaves_the_loop_and_equals_jax_grad():
    """A GRU adds b_hh inside the step (the reset gate scales its part), so b_hh's cotangent
    is the batch's sum of the step's gate cotangents, a value the step stacks anyway for W_hh's
    matmul. It is summed once over steps and batch after the loop: the backward body holds no
    reduce_sum and its carry is the hidden state's cotangent alone (it also summed b_hh's).
    Gradients equal jax.grad of a plain-jax lax.scan GRU."""
    ms.set_seed(8)
    net = nn.GRU(3, 4)
    x = randn(6, 2, 3)
    fn = ms.grad(lambda v: (net(v)[0] ** 2).sum(), None, net.trainable_params())
    assert _backward_loop_reductions(ms.trace(fn, Tensor(x)).graph) == (0, 1)
    names = [p.name.split(".")[-1] for p in net.trainable_params()]
    params = {k: p.asnumpy() for k, p in zip(names, net.trainable_params())}
    want = jax.grad(lambda w: (_jax_rnn("GRU", w, x) ** 2).sum())(params)
    for g, k in zip(ms.jit(fn)(Tensor(x)), names):
        np.testing.assert_allclose(g.asnumpy(), want[k], rtol=1e-4, atol=1e-5, err_msg=k)


def _gru_loss(w_ih, w_hh, b_ih, b_hh, x):
    """A GRU written with graphcell ops: the sum of squares of its outputs plus its last state."""
    def step(h, xt):
        i_r, i_z, i_n = ops.split(ops.matmul(xt, w_ih.T) + b_ih, 4, axis=-1)
        h_r, h_z, h_n = ops.split(ops.matmul(h, w_hh.T) + b_hh, 4, axis=-1)
        r, z = ops.sigmoid(i_r + h_r), ops.sigmoid(i_z + h_z)
        n = ops.tanh(i_n + r * h_n)
        h = n + z * (h - n)
        return h, h
    h, ys = ops.scan(step, ops.zeros((x.shape[1], w_hh.shape[1]), x.dtype), x)
    return (ys * ys).sum() + h.sum()


@pytest.mark.parametrize("vmapped", [False, True])
def test_bias_cotangents_after_the_loop_match_finite_differences_in_float64(vmapped):
    """A GRU's float64 gradients with respect to every weight and bias, b_hh's now a reduction
    after the loop (the body keeps none, its carry the hidden state's cotangent only): central
    differences' to 1e-6. `vmapped`: N=2 members' weights stacked on axis 0 (the body vmapped,
    then differentiated: the reduction keeps the member axis)."""
    rng = np.random.default_rng(3)
    n = 2 if vmapped else None
    lead = (n,) if vmapped else ()
    args = [rng.standard_normal(lead + s) * 0.5 for s in ((12, 2), (12, 4), (12,), (12,))]
    x = rng.standard_normal((3, 2, 2))
    member = ms.vmap(_gru_loss, in_axes=(0, 0, 0, 0, None)) if vmapped else _gru_loss

    def loss(*ws):
        return member(*ws, Tensor(x)).sum()
    fn = ms.grad(loss, (0, 1, 2, 3))
    assert _backward_loop_reductions(ms.trace(fn, *map(Tensor, args)).graph) == (0, 1)
    got = [g.asnumpy() for g in ms.jit(fn)(*map(Tensor, args))]
    assert got[3].dtype == np.float64
    for at, (g, arg) in enumerate(zip(got, args)):
        want = np.zeros_like(arg)
        for i in np.ndindex(arg.shape):
            moved = [a.copy() for a in args]
            moved[at][i] += 1e-6
            up = float(loss(*map(Tensor, moved)).asnumpy())
            moved[at][i] -= 2e-6
            want[i] = (up - float(loss(*map(Tensor, moved)).asnumpy())) / 2e-6
        np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-7, err_msg=f"argument {at}")

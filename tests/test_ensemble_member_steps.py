"""An ensemble member's Parameters in a trace that reads their stacks (frontend/member_params.py):
a training step over the members' Parameters on the gradient of `vmap(nn.CellList)` compiles
to a graph over the stacks, and updates the members as the vmapped TrainOneStepCell, a loop
of each member's own step and plain-jax SGD do."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, nn
from graphcell.frontend import ensemble as ensemble_module
from tests.test_scan_vjp_plan import _jax_rnn as jax_rnn

N, T, B, H = 3, 5, 2, 4
LR = 0.1


class _SequenceOutput(nn.Cell):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(H, H)

    def construct(self, x):
        return self.lstm(x)[0]


class _EnsembleLoss(nn.Cell):
    """The members' MSE losses of `vmap(CellList)` on a shared input, summed."""

    def __init__(self, nets):
        super().__init__()
        self.ensemble = ms.vmap(nn.CellList(nets), in_axes=None)

    def construct(self, x, y):
        diff = self.ensemble(x) - y
        return (diff * diff).mean(axis=(1, 2, 3)).sum()


def _members(seed):
    ms.set_seed(seed)
    return [_SequenceOutput() for _ in range(N)]


def _copy(source, target):
    for a, b in zip(source, target):
        for p, q in zip(a.trainable_params(), b.trainable_params()):
            q.set_data(Tensor(p.asnumpy()))
    return target


def _optimizer(kind, params):
    return nn.SGD(params, LR) if kind == "SGD" else nn.Momentum(params, LR, 0.9)


def _weights(nets):
    return [[p.asnumpy() for p in net.trainable_params()] for net in nets]


def _jax_sgd(nets, x, y, steps):
    """`steps` SGD steps of each member on jax.grad of its MSE, the LSTM a lax.scan (plain jax)."""
    names = [p.name.split(".")[-1] for p in nets[0].trainable_params()]

    result = []
    for w in _weights(nets):
        w = dict(zip(names, w))
        for _ in range(steps):
            g = jax.grad(lambda w: jnp.mean((jax_rnn("LSTM", w, x) - y) ** 2))(w)
            w = {k: w[k] - LR * g[k] for k in w}
        result.append([np.asarray(w[k]) for k in names])
    return result


@pytest.mark.parametrize("kind", ["SGD", "Momentum"])
def test_a_step_on_the_ensembles_gradient_reads_and_writes_the_stacks_only(kind, monkeypatch):
    """TrainOneStepCell over the summed losses of `vmap(CellList)`, its optimizer over the
    members' Parameters: the compiled graph takes the stacks and writes them, no member
    Parameter is an input or a state (each was sliced out of its stack before every call and
    copied back into it after: 1.56x the vmapped TrainOneStepCell's time for N=4 LSTM(64)),
    and a call slices and writes no member. After two steps every member's weights equal
    the vmapped TrainOneStepCell's, a loop of each member's own step's and (SGD) plain-jax's."""
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((T, B, H)).astype(np.float32), rng.standard_normal((T, B, H)).astype(np.float32)
    grad_nets = _members(1)
    vmap_nets, loop_nets, start = _copy(grad_nets, _members(2)), _copy(grad_nets, _members(3)), _members(4)
    _copy(grad_nets, start)
    grad_step = ms.jit(nn.TrainOneStepCell(
        _EnsembleLoss(grad_nets), _optimizer(kind, [p for net in grad_nets for p in net.trainable_params()])))
    vmap_step = ms.vmap(nn.CellList([nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                                                         _optimizer(kind, net.trainable_params()))
                                     for net in vmap_nets]), in_axes=None)
    loop_steps = [ms.jit(nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), _optimizer(kind, net.trainable_params())))
                  for net in loop_nets]
    gx, gy = Tensor(x), Tensor(y)
    losses = grad_step(gx, gy)
    traced = next(iter(grad_step.cache.values()))
    assert not [p.name for p in traced.params + traced.state_params if p._home is not None]
    stacks = {p.name for p in traced.state_params}
    assert {"lstm.weight_ih_l0", "lstm.weight_hh_l0", "lstm.bias_ih_l0", "lstm.bias_hh_l0"} <= stacks
    calls = []
    monkeypatch.setattr(ensemble_module, "_member_slice", lambda *a: calls.append("slice"))
    monkeypatch.setattr(ensemble_module, "_write_slice", lambda *a: calls.append("write"))
    losses = [float(losses.asnumpy()), float(grad_step(gx, gy).asnumpy())]
    assert calls == []
    monkeypatch.undo()
    want_losses = [float(vmap_step(gx, gy).asnumpy().sum()) for _ in range(2)]
    for step in loop_steps:
        step(gx, gy), step(gx, gy)
    np.testing.assert_allclose(losses, want_losses, rtol=1e-5)
    got = _weights(grad_nets)
    references = {"vmapped TrainOneStepCell": _weights(vmap_nets), "each member's own step": _weights(loop_nets)}
    if kind == "SGD":
        references["jax"] = _jax_sgd(start, x, y, 2)
    for what, want in references.items():
        for member, (g, w) in enumerate(zip(got, want)):
            for a, b in zip(g, w):
                np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6, err_msg=f"{what}, member {member}")
    assert not np.allclose(got[0][1], _weights(start)[0][1])   # the steps moved W_hh


@pytest.mark.parametrize("jitted", [False, True])
def test_a_member_read_directly_and_through_the_ensemble_gets_both_gradients(jitted):
    """grad with respect to a member's Parameter of a function that reads it directly and
    through the ensemble: its gradient is the sum of both paths' (the direct read was a graph
    input of its own, whose gradient was taken for the whole, dropping the ensemble's path)."""
    ms.set_seed(0)
    members = [nn.Dense(4, 3) for _ in range(2)]
    ens = ms.vmap(nn.CellList(members), in_axes=None)
    x = Tensor(np.arange(8, dtype=np.float32).reshape(2, 4) / 8)
    weights = [p for m in members for p in m.trainable_params()]
    grad = ms.grad(lambda v: (ens(v) ** 2).sum() + 3 * (members[1].weight ** 2).sum(), None, weights)
    got = (ms.jit(grad) if jitted else grad)(x)
    alone = [m.weight.asnumpy() for m in members]
    for i, m in enumerate(members):
        own = ms.grad(lambda v, m=m: (m(v) ** 2).sum(), None, m.trainable_params())(x)
        np.testing.assert_allclose(got[2 * i].asnumpy(), own[0].asnumpy() + 6 * alone[i] * (i == 1),
                                   rtol=1e-5, atol=1e-6, err_msg=f"member {i}")
        np.testing.assert_allclose(got[2 * i + 1].asnumpy(), own[1].asnumpy(), rtol=1e-5, atol=1e-6)


def test_a_trace_that_reads_no_stack_keeps_the_members_parameters():
    """A jitted member alone (its ensemble not in the trace) reads its own Parameters, by
    their names, with the values its stack holds."""
    ms.set_seed(0)
    members = [nn.Dense(4, 3) for _ in range(2)]
    ens = ms.vmap(nn.CellList(members), in_axes=None)
    x = Tensor(np.ones((2, 4), np.float32))
    step = ms.jit(members[1])
    np.testing.assert_allclose(step(x).asnumpy(), ens(x).asnumpy()[1], rtol=1e-6)
    traced = next(iter(step.cache.values()))
    assert [p.name for p in traced.params] == ["1.weight", "1.bias"]

"""One LSTM training step (MSE on the sequence output, SGD), graphcell against jax and torch.

    .venv/bin/python bench/bench_rnn.py            # LSTM(64) T=32 B=16, LSTM(256) T=64 B=32
    .venv/bin/python bench/bench_rnn.py --quick    # the small one only
    .venv/bin/python bench/bench_rnn.py --ensemble # N=4 LSTM(64) members on one shared input

Rows: graphcell (`jit` of a TrainOneStepCell: the recurrence is one `scan` node), the same
with the `merge_scans` pass off (the forward loop and the replay that the scan's vjp needs
for its carries as two loops: what the pass saves), a hand-written `jax.lax.scan` LSTM under
`jax.jit(value_and_grad)` with the SGD update in the same program, and torch's nn.LSTM with
`loss.backward()` and torch.optim.SGD. Every contender starts from graphcell's weights and
the first step's losses are checked to agree before timing. Timed round-robin in bursts of
BURST calls, the first of each burst dropped (bench/common.py).

`--ensemble`: one SGD step of N LSTM(64) members on a shared input, each member its own MSE.
Rows: graphcell's gradient of the ensemble (`TrainOneStepCell` over a loss that sums the
members' losses of `vmap(CellList)`: the scan is vmapped, then differentiated), graphcell's
vmapped training step (`vmap(CellList([TrainOneStepCell...]))`: differentiated, then vmapped),
and `jax.jit(jax.vmap(value_and_grad))` of the lax.scan LSTM over stacked weights.
"""
from __future__ import annotations

import argparse

import numpy as np
from common import BURST, medians_ms

import graphcell as ms
from graphcell import nn
from graphcell.passes import manager

LR = 0.01


def graphcell_step(net, merge_scans: bool, x, y):
    """The jitted training step, compiled now (with or without the pass), and its first loss."""
    loss = nn.WithLossCell(net, nn.MSELoss())
    step = ms.jit(nn.TrainOneStepCell(loss, nn.SGD(net.trainable_params(), LR)))
    pipeline = manager.PIPELINES["xla"]
    if not merge_scans:
        manager.PIPELINES["xla"] = [p for p in pipeline if p[0] != "merge_scans"]
    try:
        return step, float(step(x, y).asnumpy())
    finally:
        manager.PIPELINES["xla"] = pipeline


class SequenceOutput(nn.Cell):
    def __init__(self, lstm):
        super().__init__()
        self.lstm = lstm

    def construct(self, x):
        return self.lstm(x)[0]


def jax_lstm(w, x):
    """The sequence output of a one-layer LSTM (torch's gate order) over x [T, B, I]."""
    import jax
    import jax.numpy as jnp

    def cell(carry, xt):
        h, c = carry
        gates = xt @ w["weight_ih_l0"].T + w["bias_ih_l0"] + h @ w["weight_hh_l0"].T + w["bias_hh_l0"]
        i, f, g, o = jnp.split(gates, 4, axis=-1)
        c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        h = jax.nn.sigmoid(o) * jnp.tanh(c)
        return (h, c), h
    zeros = jnp.zeros((x.shape[1], w["weight_hh_l0"].shape[1]), x.dtype)
    return jax.lax.scan(cell, (zeros, zeros), x)[1]


def jax_step(weights):
    import jax
    import jax.numpy as jnp

    @jax.jit
    def step(w, x, y):
        loss, grads = jax.value_and_grad(lambda w: jnp.mean((jax_lstm(w, x) - y) ** 2))(w)
        return loss, jax.tree_util.tree_map(lambda p, g: p - LR * g, w, grads)
    return step, {k: jnp.asarray(v) for k, v in weights.items()}


def torch_step(weights, hidden):
    import torch
    torch.set_num_threads(2)
    lstm = torch.nn.LSTM(hidden, hidden)
    lstm.load_state_dict({k: torch.tensor(v) for k, v in weights.items()})
    optimizer = torch.optim.SGD(lstm.parameters(), LR)

    def step(x, y):
        optimizer.zero_grad()
        loss = torch.mean((lstm(x)[0] - y) ** 2)
        loss.backward()
        optimizer.step()
        return loss.detach()
    return step


def run(hidden: int, steps: int, batch: int, budget_s: float) -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((steps, batch, hidden)).astype(np.float32)
    y = rng.standard_normal((steps, batch, hidden)).astype(np.float32)
    ms.set_seed(1)
    nets = {name: SequenceOutput(nn.LSTM(hidden, hidden)) for name in ("graphcell", "graphcell, merge_scans off")}
    weights = {p.name.split(".")[-1]: p.asnumpy() for p in nets["graphcell"].get_parameters()}
    for p in nets["graphcell, merge_scans off"].get_parameters():
        p.set_data(ms.Tensor(weights[p.name.split(".")[-1]]))
    gx, gy = ms.Tensor(x), ms.Tensor(y)
    steps_fns, first = {}, {}
    for name, net in nets.items():
        steps_fns[name], first[name] = graphcell_step(net, name == "graphcell", gx, gy)
    jstep, jweights = jax_step(weights)
    state = {"jax": jweights}

    def jax_call():
        loss, state["jax"] = jstep(state["jax"], x, y)
        return loss
    import torch
    tstep = torch_step(weights, hidden)
    tx, ty = torch.tensor(x), torch.tensor(y)

    first["jax"], first["torch"] = float(jax_call()), float(tstep(tx, ty))
    if max(first.values()) - min(first.values()) > 1e-4 * abs(first["jax"]):
        raise SystemExit(f"first-step losses disagree: {first}")
    contenders = {**{name: (lambda fn=fn: fn(gx, gy)) for name, fn in steps_fns.items()},
                  "jax.jit(value_and_grad(lax.scan))": jax_call, "torch nn.LSTM + SGD": lambda: tstep(tx, ty)}
    # In bursts: torch's threads keep spinning after its call, which the next contender's first
    # call would pay for (graphcell, timed right after torch, read 1.11x jax's one call at a
    # time and 0.97x in bursts, minutes apart).
    times = medians_ms(contenders, budget_s=budget_s, burst=BURST)
    best_peer = min(v for k, v in times.items() if not k.startswith("graphcell"))
    print(f"\nLSTM({hidden}, {hidden}), seq_len {steps}, batch {batch}: one SGD training step, median ms")
    print("| path | ms | / best peer |")
    print("|------|----|-------------|")
    for name, ms_ in times.items():
        print(f"| {name} | {ms_:.3f} | {ms_ / best_peer:.3f} |")


class EnsembleLoss(nn.Cell):
    """The members' MSE losses of `vmap(CellList)` on a shared input, summed: member k's
    gradient is its own loss's, as its own training step takes it."""

    def __init__(self, nets):
        super().__init__()
        self.ensemble = ms.vmap(nn.CellList(nets), in_axes=None)

    def construct(self, x, y):
        diff = self.ensemble(x) - y
        return (diff * diff).mean(axis=(1, 2, 3)).sum()


def ensemble_grad_step(nets):
    """One jitted SGD step on the gradient of `EnsembleLoss` (the scan vmapped, then differentiated)."""
    params = [p for net in nets for p in net.trainable_params()]
    return ms.jit(nn.TrainOneStepCell(EnsembleLoss(nets), nn.SGD(params, LR)))


def vmapped_train_step(nets):
    """`vmap` of each member's TrainOneStepCell (differentiated, then vmapped); returns the
    members' losses."""
    steps = [nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), LR))
             for net in nets]
    return ms.vmap(nn.CellList(steps), in_axes=None)


def stacked_weights(nets) -> dict:
    """The members' weights stacked on a leading axis, keyed as jax_lstm reads them."""
    per_member = [{p.name.split(".")[-1]: p.asnumpy() for p in net.get_parameters()} for net in nets]
    return {k: np.stack([w[k] for w in per_member]) for k in per_member[0]}


def jax_ensemble_step():
    import jax
    import jax.numpy as jnp

    def member(w, x, y):
        return jnp.mean((jax_lstm(w, x) - y) ** 2)

    @jax.jit
    def step(ws, x, y):
        losses, grads = jax.vmap(jax.value_and_grad(member), in_axes=(0, None, None))(ws, x, y)
        return losses.sum(), jax.tree_util.tree_map(lambda p, g: p - LR * g, ws, grads)
    return step


def member_nets(n: int, hidden: int, seed: int = 1) -> list:
    ms.set_seed(seed)
    return [SequenceOutput(nn.LSTM(hidden, hidden)) for _ in range(n)]


def copy_weights(source: list, target: list) -> None:
    for a, b in zip(source, target):
        for p, q in zip(a.get_parameters(), b.get_parameters()):
            q.set_data(ms.Tensor(p.asnumpy()))


def run_ensemble(n: int, hidden: int, steps: int, batch: int, budget_s: float) -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((steps, batch, hidden)).astype(np.float32)
    y = rng.standard_normal((steps, batch, hidden)).astype(np.float32)
    grad_nets, step_nets = member_nets(n, hidden), member_nets(n, hidden, seed=2)
    copy_weights(grad_nets, step_nets)
    gx, gy = ms.Tensor(x), ms.Tensor(y)
    grad_step, train_step = ensemble_grad_step(grad_nets), vmapped_train_step(step_nets)
    jstep, state = jax_ensemble_step(), {"jax": stacked_weights(grad_nets)}

    def jax_call():
        loss, state["jax"] = jstep(state["jax"], x, y)
        return loss
    first = {"graphcell grad(vmap)": float(grad_step(gx, gy).asnumpy()),
             "graphcell vmap(TrainOneStepCell)": float(train_step(gx, gy).asnumpy().sum()), "jax": float(jax_call())}
    if max(first.values()) - min(first.values()) > 1e-4 * abs(first["jax"]):
        raise SystemExit(f"first-step losses disagree: {first}")
    contenders = {"graphcell grad(vmap(CellList))": lambda: grad_step(gx, gy),
                  "graphcell vmap(CellList(TrainOneStepCell))": lambda: train_step(gx, gy),
                  "jax.jit(vmap(value_and_grad(lax.scan)))": jax_call}
    times = medians_ms(contenders, budget_s=budget_s, burst=BURST)
    print(f"\nN={n} LSTM({hidden}, {hidden}) on a shared input, seq_len {steps}, batch {batch}: one SGD step, median ms")
    print("| path | ms | / jax |")
    print("|------|----|-------|")
    for name, ms_ in times.items():
        print(f"| {name} | {ms_:.3f} | {ms_ / times['jax.jit(vmap(value_and_grad(lax.scan)))']:.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="the small configuration only")
    parser.add_argument("--ensemble", action="store_true", help="N=4 LSTM(64) members, T=32, B=16")
    args = parser.parse_args()
    if args.ensemble:
        run_ensemble(4, 64, 32, 16, budget_s=6.0)
        return
    configs = [(64, 32, 16)] + ([] if args.quick else [(256, 64, 32)])
    for hidden, steps, batch in configs:
        run(hidden, steps, batch, budget_s=2.0 if args.quick else 6.0)


if __name__ == "__main__":
    main()

"""One ensemble training step (N LeNet5 models, batch 32 each, Adam): graphcell vs peers.

    python bench/bench_train.py            # N in 4, 16
    python bench/bench_train.py --quick    # N = 4 only

Rows (median ms per step; ratio = row / best jax row, and / best row of all):
  graphcell vmap  vmap(CellList([TrainOneStepNet(net_i, lr_i)]))(images, labels): the seed's
                  ensemble step (grad pass + Adam(amsgrad) inside construct, vmapped, XLA)
  graphcell loop  the same TrainOneStepNet per model, each jitted, called in a Python loop
  graphcell onnx  the vmapped step under jit(backend="onnx"): forward, backward and Adam in
                  one onnxruntime session, parameters and optimizer state fed back each step
  jax.vmap        jax.jit(jax.vmap(step)) over stacked parameters, optax-style Adam in plain jax
  jax loop        one jitted per-model step called in a Python loop
  torch loop      per-model torch.nn LeNet5 + torch.optim.Adam(amsgrad)
  torch.func      torch.func.vmap(grad) over stacked parameters + a hand-written amsgrad Adam
Times are medians, timed round-robin (every row alike under this shared machine's load).
Goals (issue 5): graphcell's XLA path <= 1.0x the best jax row; graphcell's best row <= 1.0x
the best row of all.
"""
from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from bench.common import BURST, jax_lenet, medians_ms, table  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

import graphcell as ms  # noqa: E402
from graphcell import nn  # noqa: E402
from tests.models.lenet import LeNet5  # noqa: E402
from tests.models.train_step import TrainOneStepNet  # noqa: E402

BATCH = 32
NAMES = ["conv1.weight", "conv2.weight", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias",
         "fc3.weight", "fc3.bias"]


# -- plain jax ----------------------------------------------------------------------------------
def jax_loss(p, x, y):
    logp = jax.nn.log_softmax(jax_lenet(p, x))
    return -jnp.mean(jnp.take_along_axis(logp, y[:, None], 1))


def jax_step(state, x, y):
    """One optax-style Adam(amsgrad) step with MindSpore's epsilon placement."""
    p, m, v, vh, t, lr = state
    loss, g = jax.value_and_grad(jax_loss)(p, x, y)
    t = t + 1
    alpha = lr * jnp.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
    m = jax.tree.map(lambda m, g: 0.9 * m + 0.1 * g, m, g)
    v = jax.tree.map(lambda v, g: 0.999 * v + 0.001 * g * g, v, g)
    vh = jax.tree.map(jnp.maximum, vh, v)
    p = jax.tree.map(lambda p, m, vh: p - alpha * m / (jnp.sqrt(vh) + 1e-8), p, m, vh)
    return (p, m, v, vh, t, lr), loss


def jax_state(params, lr):
    zeros = jax.tree.map(jnp.zeros_like, params)
    return (params, zeros, zeros, zeros, jnp.float32(0), jnp.float32(lr))


# -- torch --------------------------------------------------------------------------------------
class TorchLeNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 6, 5, bias=False)
        self.conv2 = torch.nn.Conv2d(6, 16, 5, bias=False)
        self.fc1, self.fc2, self.fc3 = torch.nn.Linear(400, 120), torch.nn.Linear(120, 84), torch.nn.Linear(84, 10)

    def forward(self, x):
        x = torch.max_pool2d(torch.relu(self.conv1(x)), 2)
        x = torch.max_pool2d(torch.relu(self.conv2(x)), 2)
        x = torch.relu(self.fc1(x.flatten(1)))
        return self.fc3(torch.relu(self.fc2(x)))


def run(n: int, budget_s: float) -> list[dict]:
    rng = np.random.default_rng(0)
    images = rng.standard_normal((n, BATCH, 1, 32, 32)).astype(np.float32)
    labels = rng.integers(0, 10, (n, BATCH)).astype(np.int32)
    lrs = [1e-3 * (k + 1) for k in range(n)]
    nets = [LeNet5() for _ in range(n)]
    init = [{name: p.asnumpy().copy() for name, p in net.parameters_and_names()} for net in nets]
    fns, jax_rows = {}, set()

    step = ms.vmap(nn.CellList([TrainOneStepNet(net, lr) for net, lr in zip(nets, lrs)]))
    xi, yi = ms.Tensor(images), ms.Tensor(labels)
    fns["graphcell vmap (XLA)"] = lambda: step(xi, yi)

    onnx_nets = [LeNet5() for _ in range(n)]
    onnx_step = ms.jit(ms.vmap(nn.CellList([TrainOneStepNet(net, lr) for net, lr in zip(onnx_nets, lrs)])),
                       backend="onnx")
    fns["graphcell vmap (onnxruntime)"] = lambda: onnx_step(xi, yi)

    loop_nets = [LeNet5() for _ in range(n)]
    singles = [ms.jit(TrainOneStepNet(net, lr)) for net, lr in zip(loop_nets, lrs)]
    xs, ys = [ms.Tensor(images[k]) for k in range(n)], [ms.Tensor(labels[k]) for k in range(n)]
    fns["graphcell loop (XLA)"] = lambda: [s(x, y) for s, x, y in zip(singles, xs, ys)]

    stacked = jax_state({k: jnp.stack([p[k] for p in init]) for k in NAMES}, 0.0)
    stacked = stacked[:5] + (jnp.asarray(lrs, jnp.float32),)
    stacked = (stacked[0], stacked[1], stacked[2], stacked[3], jnp.zeros(n, jnp.float32), stacked[5])
    vstep = jax.jit(jax.vmap(jax_step))
    jx, jy = jnp.asarray(images), jnp.asarray(labels)
    box = [stacked]

    def jax_vmap_call():
        box[0], loss = vstep(box[0], jx, jy)
        return loss
    fns["jax.jit(jax.vmap(step))"] = jax_vmap_call
    jax_rows.add("jax.jit(jax.vmap(step))")

    one = jax.jit(jax_step)
    states = [jax_state({k: jnp.asarray(p[k]) for k in NAMES}, lr) for p, lr in zip(init, lrs)]
    xs_j, ys_j = [jnp.asarray(images[k]) for k in range(n)], [jnp.asarray(labels[k]) for k in range(n)]

    def jax_loop_call():
        out = []
        for k in range(n):
            states[k], loss = one(states[k], xs_j[k], ys_j[k])
            out.append(loss)
        return out
    fns["jax loop of jitted steps"] = jax_loop_call
    jax_rows.add("jax loop of jitted steps")

    torch.set_num_threads(max(1, os.cpu_count() or 1))
    tnets = [TorchLeNet() for _ in range(n)]
    topts = [torch.optim.Adam(t.parameters(), lr=lr, amsgrad=True) for t, lr in zip(tnets, lrs)]
    tx, ty = torch.from_numpy(images), torch.from_numpy(labels).long()

    def torch_loop_call():
        out = []
        for k in range(n):
            topts[k].zero_grad()
            loss = torch.nn.functional.cross_entropy(tnets[k](tx[k]), ty[k])
            loss.backward()
            topts[k].step()
            out.append(loss.detach())
        return out
    fns["torch loop + torch.optim.Adam"] = torch_loop_call

    from torch.func import functional_call, grad as tgrad, stack_module_state, vmap as tvmap
    base = TorchLeNet().to("meta")
    params, _ = stack_module_state(tnets)
    params = {k: v.detach() for k, v in params.items()}
    m = {k: torch.zeros_like(v) for k, v in params.items()}
    v_ = {k: torch.zeros_like(v) for k, v in params.items()}
    vh = {k: torch.zeros_like(v) for k, v in params.items()}
    lr_t = torch.tensor(lrs)
    t_state = [0]

    def tloss(p, x, y):
        return torch.nn.functional.cross_entropy(functional_call(base, p, (x,)), y)

    vgrad = tvmap(tgrad(tloss))

    def torch_func_call():
        g = vgrad(params, tx, ty)
        t_state[0] += 1
        t = t_state[0]
        with torch.no_grad():
            for k in params:
                m[k].mul_(0.9).add_(g[k], alpha=0.1)
                v_[k].mul_(0.999).addcmul_(g[k], g[k], value=0.001)
                torch.maximum(vh[k], v_[k], out=vh[k])
                alpha = (lr_t * (1 - 0.999 ** t) ** 0.5 / (1 - 0.9 ** t)).view(-1, *([1] * (params[k].ndim - 1)))
                params[k].sub_(alpha * m[k] / (vh[k].sqrt() + 1e-8))
        return g
    fns["torch.func.vmap(grad) + Adam"] = torch_func_call

    times = medians_ms(fns, budget_s=budget_s, min_rounds=3, burst=BURST)
    best_jax = min(times[k] for k in jax_rows)
    best = min(times.values())
    return [{"N": n, "path": k, "ms": ms_, "/ best jax": ms_ / best_jax, "/ best": ms_ / best}
            for k, ms_ in times.items()]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="N = 4 only")
    parser.add_argument("--budget", type=float, default=5.0, help="seconds of timing per N")
    args = parser.parse_args()
    rows = []
    for n in ([4] if args.quick else [4, 16]):
        rows += run(n, args.budget)
    print(f"ensemble training step, LeNet5, batch {BATCH}, Adam(amsgrad); median ms")
    print(table(rows, ["N", "path", "ms", "/ best jax", "/ best"]))


if __name__ == "__main__":
    main()

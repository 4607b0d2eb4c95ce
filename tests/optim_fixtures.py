"""Shared by the optimizer tests: the weights, gradients and dynamic weight decay the MindSpore
2.10 measurements of tests/test_weight_decay_schedule.py and tests/test_optim_lars.py were made
with, a three-step optimizer run, and the ensemble-equals-its-members training check."""
import numpy as np

import graphcell as ms
from graphcell import nn, ops

T = ms.Tensor
W0 = np.array([[0.5, -1.0, 0.25], [1.5, 0.75, -0.5]], np.float32)
B0 = np.array([0.1, -0.2], np.float32)
GRADS = [(np.array([[0.1, 0.2, -0.3], [0.05, -0.1, 0.4]], np.float32) * (k + 1),
          np.array([0.3, -0.1], np.float32) * (k + 1), np.array([0.3, -0.1], np.float32) * (k + 1))
         for k in range(3)]


class StepWeightDecay(nn.Cell):
    """wd(step) = k * (step + 1): a plain Cell, not a LearningRateSchedule."""

    def __init__(self, k=0.1):
        super().__init__()
        self.k = k

    def construct(self, global_step):
        return self.k * (ops.cast(global_step, ms.float32) + 1.0)


def _params():
    return [ms.Parameter(T(W0.copy()), name="dense.weight"), ms.Parameter(T(B0.copy()), name="dense.bias"),
            ms.Parameter(T(B0.copy()), name="bn.gamma")]


def _run(make, steps=3):
    params = _params()
    opt = make(params)
    for grads in GRADS[:steps]:
        opt(tuple(T(g) for g in grads))
    return opt, params


def assert_ensemble_steps_match_members(build, rng=None, steps=3):
    """`build()` makes the same two TrainOneStepCells twice: the pair vmapped as one ensemble
    trains to the losses and weights of each run on its own, step after step."""
    rng = np.random.default_rng(0) if rng is None else rng
    x = rng.standard_normal((2, 4, 3)).astype(np.float32)
    y = rng.standard_normal((2, 4, 2)).astype(np.float32)
    singles, batched = build(), build()
    step = ms.vmap(nn.CellList(batched))
    for _ in range(steps):
        out = step(T(x), T(y)).asnumpy()
        ref = [float(ms.jit(c)(T(x[k]), T(y[k])).asnumpy()) for k, c in enumerate(singles)]
        np.testing.assert_allclose(out, ref, rtol=1e-5)
    for a, b in zip(singles, batched):
        for pa, pb in zip(a.get_parameters(), b.get_parameters()):
            np.testing.assert_allclose(pa.asnumpy(), pb.asnumpy(), rtol=1e-5, atol=1e-6, err_msg=pa.name)

"""Shared by tests/test_weight_decay_schedule.py and tests/test_optim_lars.py: the weights,
gradients and dynamic weight decay their MindSpore 2.10 measurements were made with, and a
three-step optimizer run."""
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

"""`DistributedGradReducer`: averages (or sums) gradients across data-parallel devices.

graphcell's data parallelism is JAX's global view (see `graphcell.parallel`): the batch is one
array split over the `data` mesh axis, and `jax.jit` (GSPMD) partitions the step. The gradient
of a loss over that batch is then *already* the all-reduced one: where the backward pass sums
per-example contributions over the sharded batch axis, XLA emits the cross-device all-reduce
(check the compiled HLO for `all-reduce`). We chose this over `shard_map` + `lax.pmean`
because it needs no per-device program and no new primitive, and it is exact: for a loss that
is a mean over the batch (MindSpore's default `reduction='mean'`), the global gradient equals
the mean of the per-device gradients MindSpore all-reduces.

So this Cell only has to give MindSpore's *scaling*: each device's local gradient is
`g_local`, the global one `g = mean(g_local)`, and MindSpore returns `sum(g_local) / degree`
(mean=True) or `sum(g_local)` (mean=False), i.e. `g * device_num / degree` or `g * device_num`.
With the defaults (mean=True, degree=device_num) that is `g` itself, returned unchanged.
Stand-alone (one device) there is nothing to reduce either.
"""
from __future__ import annotations

from ..context import ParallelMode, get_auto_parallel_context
from .cell import Cell


class DistributedGradReducer(Cell):
    """construct(grads) -> grads reduced across the data-parallel group.

    `mean` divides the sum by `degree` (default: the group size, the context's device_num, which
    `graphcell.communication.init()` sets to the number of devices in the world).
    """

    def __init__(self, parameters, mean=True, degree=None, fusion_type=1, group=None):
        super().__init__(auto_prefix=False)
        import jax
        device_num = get_auto_parallel_context("device_num")
        if degree is not None and (isinstance(degree, bool) or not isinstance(degree, int) or degree < 1):
            raise ValueError(f"DistributedGradReducer: degree must be a positive int, got {degree!r}")
        self.mean = bool(mean)
        self.degree = degree if degree is not None else device_num
        self.parallel_mode = get_auto_parallel_context("parallel_mode")
        self.group_size = device_num if self.parallel_mode != ParallelMode.STAND_ALONE else 1
        self.num_parameters = len(list(parameters))
        if self.group_size > jax.device_count():
            raise ValueError(
                f"DistributedGradReducer: the auto-parallel context says device_num={device_num}, but "
                f"only {jax.device_count()} device(s) are visible; call graphcell.communication.init() "
                "(it sets device_num) or set device_num to the number of devices")
        # The factor that turns the global-view gradient into MindSpore's reduced gradient.
        self.scale = self.group_size / self.degree if self.mean else float(self.group_size)

    def construct(self, grads):
        if self.scale == 1.0:  # the all-reduce already happened inside jit (see the module doc)
            return grads
        from ..ops import functional as F
        return tuple(F.mul(g, self.scale) for g in grads)

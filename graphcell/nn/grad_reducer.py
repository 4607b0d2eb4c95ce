"""`DistributedGradReducer`: averages (or sums) gradients across data-parallel devices.

Stand-alone (one device) there is nothing to reduce, and the Cell returns the gradients
unchanged. The all-reduce over several devices belongs to the distributed issue.
"""
from __future__ import annotations

from ..context import ParallelMode, get_auto_parallel_context
from .cell import Cell


class DistributedGradReducer(Cell):
    """construct(grads) -> grads reduced across the data-parallel group.

    `mean` divides the sum by `degree` (default: the group size, the context's device_num).
    """

    def __init__(self, parameters, mean=True, degree=None, fusion_type=1, group=None):
        super().__init__(auto_prefix=False)
        device_num = get_auto_parallel_context("device_num")
        if degree is not None and (isinstance(degree, bool) or not isinstance(degree, int) or degree < 1):
            raise ValueError(f"DistributedGradReducer: degree must be a positive int, got {degree!r}")
        self.mean = bool(mean)
        self.degree = degree if degree is not None else device_num
        self.parallel_mode = get_auto_parallel_context("parallel_mode")
        self.group_size = device_num
        self.num_parameters = len(list(parameters))
        if self.group_size > 1 and self.parallel_mode != ParallelMode.STAND_ALONE:
            raise NotImplementedError(
                f"DistributedGradReducer: reducing over device_num={device_num} devices needs the "
                "communication backend, which graphcell does not have yet; run stand-alone "
                "(device_num=1)")

    def construct(self, grads):
        # One device: the all-reduce of a single contribution is the contribution itself,
        # and its mean over a group of one is too.
        return grads

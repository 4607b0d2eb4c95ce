"""MindSpore 2.10's nn.GradAccumulationCell, nn.PipelineCell and nn.MicroBatchInterleaved: each runs
the network on equal slices of the batch (axis 0 of every input) and returns the sum of their
outputs, so its gradient is the sum of the micro-batches' gradients (measured on 2.10's CPU
build: the loss of [4, ...] inputs with micro_size 2 is loss(first half) + loss(second half);
PipelineCell and MicroBatchInterleaved do the same on one device, with their own argument names
in the messages)."""
from __future__ import annotations

import numbers

from ..ops import functional as F
from ..tensor import Tensor
from .cell import Cell


class GradAccumulationCell(Cell):
    """GradAccumulationCell(network, micro_size): network over micro-batches, outputs summed."""

    _count_name = "micro_size"   # the argument's name in the messages

    def __init__(self, network, micro_size):
        super().__init__()
        owner, arg = type(self).__name__, self._count_name
        if isinstance(micro_size, bool) or not isinstance(micro_size, numbers.Integral):
            raise TypeError(f"For '{owner}', the argument '{arg}' must be integer, but got the type : "
                            f"{type(micro_size)}.")
        if micro_size <= 0:
            raise ValueError(f"For '{owner}', the argument '{arg}' must be large than 0, but got {micro_size}.")
        self.network = network
        self.micro_size = int(micro_size)

    def _slices(self, x):
        if not isinstance(x, Tensor):
            raise TypeError(f"For primitive[Shape], the input argument must be Tensor, but got {type(x)}.")
        batch = x.shape[0]
        if batch % self.micro_size:
            raise ValueError(f"For micro batch initialization, the 0th dimension shape of input({batch}) must be "
                             f"divided by micro size({self.micro_size})")
        step = batch // self.micro_size
        return [F.slice_axis(x, 0, i * step, (i + 1) * step) for i in range(self.micro_size)]

    def construct(self, *inputs):
        parts = [self._slices(x) for x in inputs]
        total = None
        for i in range(self.micro_size):
            out = self.network(*(p[i] for p in parts))
            if not isinstance(out, Tensor):
                raise TypeError(f"For '{type(self).__name__}', the network must return one Tensor (2.10 adds the "
                                f"micro-batches' outputs), but got {type(out).__name__}.")
            total = out if total is None else F.add(total, out)
        return total


class PipelineCell(GradAccumulationCell):
    """PipelineCell(network, micro_size): on one device, the network over `micro_size` micro-batches,
    outputs summed (the stage and segment configs concern pipeline-parallel devices: kept, unused)."""

    def __init__(self, network, micro_size, stage_config=None, segment_config=None):
        super().__init__(network, micro_size)
        self.stage_config, self.segment_config = stage_config, segment_config


class MicroBatchInterleaved(GradAccumulationCell):
    """MicroBatchInterleaved(network, interleave_num=2): the network over `interleave_num` slices of
    the batch, outputs summed (2.10 on one device: [4, 3] inputs give the sum of two [2, ...] outputs)."""
    _count_name = "interleave_num"

    def __init__(self, network, interleave_num=2):
        super().__init__(network, interleave_num)
        self.interleave_num = self.micro_size

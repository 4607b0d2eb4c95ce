"""MindSpore 2.10's `FlopsUtilizationCollector`: model FLOPs utilisation of a training run.

The FLOPs of one step are XLA's count for the compiled train step (jax's
`compiled.cost_analysis()["flops"]`: every operation of the forward and backward pass and the
update; 2.10 counts its matmuls and convolutions, so its numbers are smaller: 48.0 for a
Dense(3, 2) step on batch 2, measured). At the first epoch's end the callback prints
"Full model flops is F, Full hardware flops is F, Shard model flops is F, Shard hardware flops
is F." and at each epoch's end "Train per step time: T ms mfu:M% hfu:M%" (2.10's lines), with
mfu = FLOPs / (step time in seconds x `computility`, the device's FLOP/s) and T the epoch's
mean step time. One device: the shard numbers are the full ones; no recomputation: hfu = mfu.
"""
from __future__ import annotations

import time

from .callback import Callback


def _positive_int(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"The parameter '{name}' must be {int}, but got {type(value)}")
    if value <= 0:   # 2.10's words
        raise ValueError(f"The '{name}' must be int and must > 0, but got '{value}' with type 'int'.")
    return value


def compiled_step_flops(network, inputs) -> float:
    """XLA's FLOP count for one call of `network` on `inputs` (Tensors), as graphcell compiles it."""
    from ..compiler.jit import Jit, compiled_fn
    traced, leaves = Jit(network).get_traced(*inputs)
    arrays = [t._payload for t in traced.input_tensors(leaves)]
    cost = compiled_fn(traced).lower(*arrays).compile().cost_analysis()
    if isinstance(cost, (list, tuple)):   # older jax: one dict per computation
        cost = cost[0] if cost else {}
    return float((cost or {}).get("flops", 0.0))


class FlopsUtilizationCollector(Callback):
    def __init__(self, data_size, computility=1, full_flops=True, enable_ma_collector=False):
        self.data_size = _positive_int("data_size", data_size)
        self.computility = computility
        self.full_flops = full_flops
        self.full_model_flops = self.full_hardware_flops = 0.0
        self.shard_model_flops = self.shard_hardware_flops = 0.0
        self.full_mfu = self.full_hfu = self.shard_mfu = self.shard_hfu = 0.0
        self.mfu_calculated = False
        self.verbose = True
        self._epoch_start = None
        self._steps = 0

    def on_train_epoch_begin(self, run_context):
        self._epoch_start = time.perf_counter()
        self._steps = 0

    def on_train_step_end(self, run_context):
        self._steps += 1
        if not self.mfu_calculated:
            cb = run_context.original_args()
            flops = compiled_step_flops(cb.train_network, cb.train_dataset_element)
            self.full_model_flops = self.full_hardware_flops = flops
            self.shard_model_flops = self.shard_hardware_flops = flops
            self.mfu_calculated = True

    def on_train_epoch_end(self, run_context):
        from ..runtime.streams import synchronize
        if not self.mfu_calculated or not self._steps:
            return
        synchronize()
        step_s = (time.perf_counter() - self._epoch_start) / self._steps
        mfu = self.full_model_flops / (step_s * self.computility)
        self.full_mfu = self.full_hfu = self.shard_mfu = self.shard_hfu = mfu
        if run_context.original_args().cur_epoch_num == 1 or not getattr(self, "_printed", False):
            self._printed = True
            print(f"Full model flops is {self.full_model_flops}, Full hardware flops is {self.full_hardware_flops}, "
                  f"Shard model flops is {self.shard_model_flops}, Shard hardware flops is "
                  f"{self.shard_hardware_flops}.", flush=True)
        print(f"Train per step time: {step_s * 1000:.3f} ms mfu:{mfu * 100:.2f}% hfu:{mfu * 100:.2f}%", flush=True)

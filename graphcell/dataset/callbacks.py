"""DSCallback: hooks a map runs as rows pass through it (`map(..., callbacks=[cb])`), as
MindSpore 2.10's (measured): ds_begin once when an iterator starts, then per epoch
ds_epoch_begin, ds_step_begin / ds_step_end around every step_size-th row (steps 1,
1 + step_size, ...), and ds_epoch_end. Epochs count from 1; cur_step_num counts the rows
over all epochs, cur_step_num_in_epoch within the epoch. The hooks run on the pipeline's
thread, step_begin before the row enters the map's workers and step_end when its result
leaves them, so with several workers a few step_begins come before the first step_end,
as in 2.10.
"""
from __future__ import annotations

import numbers
import threading


class CallbackParam:
    """What a DSCallback hook receives."""
    __slots__ = ("cur_epoch_num", "cur_step_num", "cur_step_num_in_epoch")

    def __init__(self, epoch: int, step: int, step_in_epoch: int):
        self.cur_epoch_num, self.cur_step_num, self.cur_step_num_in_epoch = epoch, step, step_in_epoch


class DSCallback:
    """Base of the dataset callbacks; override the hooks you need."""

    def __init__(self, step_size=1):
        if isinstance(step_size, bool) or not isinstance(step_size, numbers.Integral) or \
                not 1 <= step_size <= 2 ** 31 - 1:
            raise ValueError("Input step_size is not within the required interval of [1, 2147483647].")
        self.step_size = int(step_size)

    def ds_begin(self, ds_run_context):
        """Called once, when an iterator starts."""

    def ds_epoch_begin(self, ds_run_context):
        """Called at the start of every epoch."""

    def ds_epoch_end(self, ds_run_context):
        """Called at the end of every epoch."""

    def ds_step_begin(self, ds_run_context):
        """Called before every step_size-th row is processed."""

    def ds_step_end(self, ds_run_context):
        """Called after every step_size-th row is processed."""


def check_callbacks(callbacks) -> list:
    if callbacks is None:
        return []
    items = list(callbacks) if isinstance(callbacks, (list, tuple)) else [callbacks]
    for i, cb in enumerate(items):
        if not isinstance(cb, DSCallback):
            raise TypeError(f"Argument callbacks[{i}] with value {cb} is not of type [<class "
                            f"'mindspore.dataset.callback.ds_callback.DSCallback'>], but got {type(cb)}.")
    return items


class CallbackRunner:
    """Calls a map's callbacks for one pass; `total` carries the step count across epochs."""

    def __init__(self, callbacks: list, epoch: int, steps_before: int):
        self.callbacks, self.epoch, self.steps_before, self.in_epoch = callbacks, epoch, steps_before, 0

    def _param(self, step_in_epoch):
        return CallbackParam(self.epoch, self.steps_before + step_in_epoch, step_in_epoch)

    def begin(self, first_epoch: bool):
        if first_epoch:
            for cb in self.callbacks:
                cb.ds_begin(CallbackParam(0, 0, 0))
        for cb in self.callbacks:
            cb.ds_epoch_begin(self._param(0))

    def step(self, hook: str, step_in_epoch: int):
        for cb in self.callbacks:
            if (step_in_epoch - 1) % cb.step_size == 0:
                getattr(cb, hook)(self._param(step_in_epoch))

    def end(self, steps: int):
        for cb in self.callbacks:
            cb.ds_epoch_end(self._param(steps))


def _train_callback_base():
    from ..train.callback import Callback   # graphcell.train imports graphcell.dataset
    return Callback


class WaitedDSCallback(_train_callback_base(), DSCallback):
    """A dataset callback that waits for training: pass it both to `map(..., callbacks=[cb])`
    and to `Model.train(..., callbacks=[cb])`. The map's hook for step k (k > step_size)
    waits until the training step before it has ended, then calls
    `sync_step_begin(train_run_context, ds_run_context)`; the hook for epoch e > 1 waits for
    training epoch e-1 to end and calls `sync_epoch_begin`. So a transform can read what the
    last step learnt (a curriculum, a schedule). Set step_size to the batch size, so that
    one training step is one map step. Iterated without Model.train it waits forever,
    as in 2.10; training's end releases it."""

    def __init__(self, step_size=1):
        DSCallback.__init__(self, step_size)
        self._step_done, self._epoch_done = threading.Event(), threading.Event()
        self._finished = False
        self._step_context = self._epoch_context = None

    def sync_epoch_begin(self, train_run_context, ds_run_context):
        """Called before dataset epoch e > 1, after training epoch e-1 ended."""

    def sync_step_begin(self, train_run_context, ds_run_context):
        """Called before map step k > step_size, after the training step before it ended."""

    # training's side (graphcell.train.Callback hooks)
    def step_end(self, run_context):
        self._step_context = run_context
        self._step_done.set()

    def epoch_end(self, run_context):
        self._epoch_context = run_context
        self._epoch_done.set()

    def end(self, run_context):
        self._finished = True   # nothing more to wait for
        self._step_done.set()
        self._epoch_done.set()

    # the dataset's side
    def ds_epoch_begin(self, ds_run_context):
        if ds_run_context.cur_epoch_num > 1:
            self._wait(self._epoch_done)
            self.sync_epoch_begin(self._epoch_context, ds_run_context)

    def ds_step_begin(self, ds_run_context):
        if ds_run_context.cur_step_num > self.step_size:
            self._wait(self._step_done)
            self.sync_step_begin(self._step_context, ds_run_context)

    def _wait(self, event: threading.Event):
        event.wait()
        if not self._finished:
            event.clear()

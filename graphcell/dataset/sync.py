"""sync_wait / sync_update: a gate in the pipeline that a training loop opens step by step
(MindSpore 2.10's SyncWaitDataset). After `num_batch` rows pass the gate it blocks, until
`sync_update(condition_name, num_batch=None, data=None)` lets `num_batch` more through
(default: the gate's own) and calls the gate's callback with `data` (also None, as 2.10).
Rows are read on the pipeline's thread, so the block stalls only prefetching, never the
caller of sync_update.
"""
from __future__ import annotations

import numbers
import threading

from .engine import Dataset


def _check_name(condition_name) -> str:
    if not isinstance(condition_name, str):
        raise TypeError(f"Argument condition_name with value {condition_name!r} is not of type [<class 'str'>], "
                        f"but got {type(condition_name)}.")
    return condition_name


class SyncWaitDataset(Dataset):
    def __init__(self, child, condition_name, num_batch=1, callback=None):
        super().__init__([child], child.num_parallel_workers)
        self.condition_name = _check_name(condition_name)
        if isinstance(num_batch, bool) or not isinstance(num_batch, numbers.Integral):
            raise TypeError(f"Argument num_batch with value {num_batch!r} is not of type [<class 'int'>], "
                            f"but got {type(num_batch)}.")
        if num_batch <= 0:
            raise ValueError("num_batch need to be greater than 0.")
        if callback is not None and not callable(callback):
            raise TypeError("callback must be callable")
        self.num_batch, self.callback = int(num_batch), callback
        self._gate = threading.Condition()
        self._allowed = self.num_batch

    def release(self, num_batch=None, data=None) -> None:
        if num_batch is None:
            num_batch = self.num_batch
        if isinstance(num_batch, bool) or not isinstance(num_batch, numbers.Integral) or num_batch <= 0:
            raise RuntimeError(f"Sync_update batch size can only be positive integer, got: {num_batch}.")
        if self.callback is not None:
            self.callback(data)
        with self._gate:
            self._allowed += int(num_batch)
            self._gate.notify_all()

    def _rows(self, run):
        with self._gate:
            self._allowed = self.num_batch   # every epoch starts with num_batch free rows
        passed = 0
        for row in self.children[0]._rows(run):
            with self._gate:
                self._gate.wait_for(lambda: passed < self._allowed)
            passed += 1
            yield row


def find_gate(dataset: Dataset, condition_name) -> SyncWaitDataset:
    """The sync_wait node named `condition_name` in `dataset`'s pipeline."""
    _check_name(condition_name)
    todo = [dataset]
    while todo:
        node = todo.pop()
        if isinstance(node, SyncWaitDataset) and node.condition_name == condition_name:
            return node
        todo.extend(node.children)
    raise RuntimeError("Condition name not found.")

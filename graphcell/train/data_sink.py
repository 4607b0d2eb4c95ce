"""MindSpore 2.10's data-sinking names: `data_sink`, `DatasetHelper`, `connect_network_with_dataset`.

2.10 sinks data to Ascend/GPU queues only (its CPU build: data_sink raises "Data sinking
supports ascend or gpu device target, but device target is CPU."; a sink-mode DatasetHelper
fails in InitDataSetQueue). graphcell has no device queue: it feeds the batches from the host,
with the semantics 2.10 documents for a device. `data_sink(fn, dataset, sink_size)` returns a
function whose every call runs the compiled `fn` over the next `sink_size` batches (the data
running on across calls and epochs) and returns the last step's result. A DatasetHelper yields
each batch as a list of Tensors (2.10's CPU, measured in non-sink mode); in sink mode it yields
`sink_size` batches per epoch. `connect_network_with_dataset` (sink mode only, as in 2.10)
gives a network that takes its inputs from the helper's next batch.
"""
from __future__ import annotations

import numbers

from ..compiler.jit import jit
from ..nn.cell import Cell


def _check_dataset(api: str, dataset) -> None:
    from ..dataset.engine import Dataset
    if not isinstance(dataset, Dataset):
        raise TypeError(f"For '{api}', the 'dataset' must be a graphcell.dataset Dataset, but got {type(dataset)}.")


def _check_sink_size(api: str, sink_size, allow_all: bool) -> int:
    if isinstance(sink_size, bool) or not isinstance(sink_size, numbers.Integral):
        raise TypeError(f"For '{api}', the 'sink_size' must be int, but got {type(sink_size)}.")
    if sink_size == 0 or sink_size < (-1 if allow_all else 1):
        raise ValueError(f"For '{api}', the 'sink_size' must be {'-1 or ' if allow_all else ''}a positive int, "
                         f"but got {sink_size}.")
    return int(sink_size)


def _batches_for_ever(dataset):
    """The batches of epoch after epoch (each `for` over the iterator is one epoch)."""
    iterator = dataset.create_tuple_iterator(num_epochs=-1)
    while True:
        empty = True
        for columns in iterator:
            empty = False
            yield columns
        if empty:
            return


def data_sink(fn, dataset, sink_size=1, jit_config=None, input_signature=None):
    """A function that runs `fn` (compiled) on the next `sink_size` batches of `dataset` per call."""
    if not callable(fn):
        raise TypeError(f"For 'data_sink', the 'fn' must be callable, but got {type(fn)}.")
    _check_dataset("data_sink", dataset)
    sink_size = _check_sink_size("data_sink", sink_size, allow_all=False)
    step = jit(fn)
    batches = []   # the iterator, made on the first call

    def sink_fun():
        if not batches:
            batches.append(_batches_for_ever(dataset))
        out = None
        for _ in range(sink_size):
            try:
                columns = next(batches[0])
            except StopIteration:   # a finite repeat ran out
                raise RuntimeError("For 'data_sink', the dataset has no more batches.") from None
            out = step(*columns)
        return out
    sink_fun.__name__ = getattr(fn, "__name__", "sink_fun")
    return sink_fun


class DatasetHelper:
    """Iterates a dataset as lists of Tensors (one list per batch)."""

    def __init__(self, dataset, dataset_sink_mode=True, sink_size=-1, epoch_num=1):
        _check_dataset("DatasetHelper", dataset)
        self.dataset = dataset
        self.dataset_sink_mode = bool(dataset_sink_mode)
        self._sink_size = _check_sink_size("DatasetHelper", sink_size, allow_all=True)
        self.epoch_num = epoch_num
        self._iterator = None

    def sink_size(self) -> int:
        """Batches per epoch: `sink_size` in sink mode when given, else the dataset's size."""
        if self.dataset_sink_mode and self._sink_size > 0:
            return self._sink_size
        return self.dataset.get_dataset_size()

    def types_shapes(self):
        return self.dataset.output_types(), self.dataset.output_shapes()

    def get_data_info(self):
        return self.types_shapes()

    def _next(self):
        if self._iterator is None:
            self._iterator = _batches_for_ever(self.dataset)
        return list(next(self._iterator))

    def __iter__(self):
        if not self.dataset_sink_mode:
            yield from (list(columns) for columns in self.dataset.create_tuple_iterator(num_epochs=1))
            return
        for _ in range(self.sink_size()):
            yield self._next()

    # 2.10's queue controls: graphcell reads the host iterator, which has no queue to steer
    def stop_send(self):
        pass

    def continue_send(self):
        pass

    def release(self):
        self._iterator = None

    def get_send_info(self):
        return []

    def get_mbuf_queue_size(self):
        return 0


class _DataSinkNetwork(Cell):
    """`network` fed from a DatasetHelper: called without inputs, it runs on the next batch."""

    def __init__(self, network, helper: DatasetHelper):
        super().__init__()
        self.network = network
        self._helper = helper

    def construct(self):
        return self.network(*self._helper._next())


def connect_network_with_dataset(network, dataset_helper):
    if not isinstance(dataset_helper, DatasetHelper):
        raise TypeError(f"For 'connect_network_with_dataset', the 'dataset_helper' must be a DatasetHelper, "
                        f"but got {type(dataset_helper)}.")
    if not dataset_helper.dataset_sink_mode:   # 2.10's words
        raise RuntimeError("The API 'connect_network_with_dataset' should be called in dataset sink mode.")
    return _DataSinkNetwork(network, dataset_helper)

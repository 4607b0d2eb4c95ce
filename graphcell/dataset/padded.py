"""PaddedDataset: a few hand-written rows, mostly concatenated to a real dataset so that its
row count divides the shard count (`(ds + PaddedDataset(pads)).use_sampler(DistributedSampler(...))`).

Rows are the dicts of `padded_samples`, in order, columns named by the first dict's keys;
values become numpy arrays as np.asarray makes them (2.10 measured: 1 -> int64 scalar,
2.5 -> float64, "xy" -> a '<U2' string).
"""
from __future__ import annotations

import numpy as np

from ._parallel import DatasetError
from .sources import GeneratorDataset


class _DictRows:
    def __init__(self, samples: list, names: list):
        self.samples, self.names = samples, names

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, i):
        sample = self.samples[i]
        if list(sample) != self.names:
            raise DatasetError(f"PaddedDataset: padded_samples[{i}] has keys {list(sample)}, padded_samples[0] has "
                               f"{self.names}; every sample needs the same keys")
        return tuple(np.asarray(sample[k]) for k in self.names)


class PaddedDataset(GeneratorDataset):
    """Rows from a list of dicts {column: value}, read in order."""

    def __init__(self, padded_samples):
        if not isinstance(padded_samples, list):
            raise TypeError(f"Argument padded_samples with value {padded_samples!r} is not of type "
                            f"[<class 'list'>], but got {type(padded_samples)}.")
        if not padded_samples:
            raise ValueError("padded_samples cannot be empty.")
        for sample in padded_samples:
            if not isinstance(sample, dict):
                raise TypeError(f"Argument padded_element with value {sample!r} is not of type [<class 'dict'>], "
                                f"but got {type(sample)}.")
        names = list(padded_samples[0])
        super().__init__(_DictRows(padded_samples, names), names, shuffle=False)
        self._name = "PaddedDataset"

"""Dataset-wide settings (MindSpore's `mindspore.dataset.config`): the shuffle seed and the
prefetch depth.

`graphcell.set_seed(s)` also seeds the dataset RNG, as `mindspore.set_seed` does: a hook
registered with the initialiser module's seed keeps the two in step. With no seed set,
every iterator draws a fresh random seed, so shuffled orders differ between runs.
"""
from __future__ import annotations

import numbers

from ..common import initializer as _initializer

_SEED: int | None = _initializer.get_seed()
_PREFETCH_SIZE = 4


def set_seed(seed: int) -> None:
    """Seeds the shuffles and random samplers of iterators created from now on."""
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"dataset.config.set_seed: seed must be a non-negative int, got {seed!r}")
    global _SEED
    _SEED = int(seed)


def get_seed() -> int | None:
    """The dataset seed, or None when none was set (then each iterator seeds itself randomly)."""
    return _SEED


def set_prefetch_size(size: int) -> None:
    """How many finished rows/batches each iterator's background thread keeps ready."""
    if not isinstance(size, int) or size < 1:
        raise ValueError(f"dataset.config.set_prefetch_size: size must be a positive int, got {size!r}")
    global _PREFETCH_SIZE
    _PREFETCH_SIZE = size


def get_prefetch_size() -> int:
    return _PREFETCH_SIZE


_initializer.register_seed_hook(set_seed)

"""graphcell's global random key: a Parameter, so traced code reads and advances it as
ordinary state and a jitted function with Dropout stays a pure graph."""
from __future__ import annotations

import numpy as np

from ..tensor import Parameter

_KEY: Parameter | None = None


def _key_data(seed: int) -> np.ndarray:
    seed = int(seed) & 0xFFFFFFFFFFFFFFFF
    return np.array([seed >> 32, seed & 0xFFFFFFFF], dtype=np.uint32)


def global_key() -> Parameter:
    global _KEY
    if _KEY is None:
        _KEY = Parameter(_key_data(np.random.SeedSequence().entropy & 0xFFFFFFFF), name="global_rng_key",
                         requires_grad=False)
    return _KEY


def seed_global_key(seed: int) -> None:
    global_key().set_data(_key_data(seed))

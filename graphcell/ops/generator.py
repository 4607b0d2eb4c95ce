"""MindSpore 2.10's `Generator` over graphcell's random keys, and the top-level functions on the
default generator (`manual_seed`, `seed`, `initial_seed`, `get_rng_state`, `set_rng_state`).

A Generator owns a key Parameter (uint32[2], jax's threefry layout) that each draw splits and
advances, as the global key of `random_state` does; `default_generator` wraps that global key,
so `manual_seed` reseeds every op draw that takes no `generator`. Being a Parameter, the key is
ordinary state inside `jit`: a compiled step that draws advances it like any assign.

The state is MindSpore's shape and dtype, UInt8[16]: bytes 0-7 the initial seed (int64,
little-endian, as MindSpore), bytes 8-15 the current key XOR the seed's own key. MindSpore
keeps a draw offset there; the XOR makes ours zero right after a reseed too, so
`manual_seed(7); get_rng_state()` reads as MindSpore's `[7, 0, ..., 0]`. The draws themselves
are jax's, not MindSpore's Philox numbers.
"""
from __future__ import annotations

import itertools
import secrets

import numpy as np

from ..tensor import Parameter, Tensor
from .random_state import _key_data, global_key

_STATE_BYTES = 16
_NAMES = itertools.count()


def _as_int64(seed: int) -> int:
    """MindSpore stores a seed as an int64: 2**63 reads back as -2**63; 2**64 does not fit."""
    if not -2 ** 63 <= seed < 2 ** 64:
        raise RuntimeError(f"Cannot construct Tensor because of unsupported data type: the seed {seed} "
                           "does not fit in 64 bits.")
    return int(np.array(seed & 0xFFFFFFFFFFFFFFFF, np.uint64).view(np.int64))


class Generator:
    """A random number generator: its seed and its place in the stream of draws.

    `Tensor.uniform_(generator=g)` and the other methods taking `generator` draw from it;
    the same seed gives the same draws, and `set_state(get_state())` replays them.
    """

    def __init__(self):
        # a name of its own: two generators read in one trace are two graph inputs
        self._key = Parameter(_key_data(0), name=f"generator_key_{next(_NAMES)}", requires_grad=False)
        self._seed = 0

    def manual_seed(self, seed: int) -> "Generator":
        """Reseeds; returns this generator (MindSpore 2.10 returns it, not the seed)."""
        if not isinstance(seed, int):   # MindSpore refuses numpy integers too
            raise TypeError("Seed must be an integer.")
        self._seed = _as_int64(seed)
        self._key.set_data(_key_data(self._seed))
        return self

    def seed(self) -> int:
        """Reseeds with a fresh random seed (a 32-bit number, as MindSpore's) and returns it."""
        seed = secrets.randbits(32)
        self.manual_seed(seed)
        return seed

    def initial_seed(self) -> int:
        """The seed of the last reseed (0 for a generator never seeded)."""
        return self._seed

    def get_state(self) -> Tensor:
        """The state, a UInt8[16] Tensor (a copy: later draws do not change it)."""
        key = np.asarray(self._key.asnumpy(), np.uint32) ^ _key_data(self._seed)
        return Tensor(np.concatenate([np.array([self._seed], "<i8").view(np.uint8), key.astype("<u4").view(np.uint8)]))

    def set_state(self, state) -> None:
        """Restores a state from `get_state` (this generator's or another's)."""
        if not isinstance(state, Tensor):
            raise RuntimeError(f"Invalid tensor input: State must be a Tensor, but got {type(state).__name__}.")
        data = state.asnumpy()
        if data.dtype != np.uint8:
            raise RuntimeError(f"State data type must be UInt8, but got {state.dtype}")
        if data.size != _STATE_BYTES:
            raise RuntimeError(f"State data size must be {_STATE_BYTES}, but got {data.size}")
        data = np.ascontiguousarray(data.reshape(-1))
        self._seed = int(data[:8].view("<i8")[0])
        self._key.set_data(data[8:].view("<u4").astype(np.uint32) ^ _key_data(self._seed))

    def _next_key(self) -> Tensor:
        """A fresh key for one draw, advancing the state (traced as a state write under jit)."""
        from .functional import random_key
        return random_key(self._key)


class _DefaultGenerator(Generator):
    """The generator over graphcell's global key, which `set_seed` also seeds (graphcell has
    one stream for op draws; MindSpore's `set_seed` feeds its older ops' seeds instead)."""

    def __init__(self):   # no key of its own
        self._seed = 0

    @property
    def _key(self) -> Parameter:   # made on first use, as random_state makes it
        return global_key()


default_generator = _DefaultGenerator()


def key_from(generator, what: str) -> Tensor | None:
    """The next key of `generator` for a draw of `what`, or None (the default stream)."""
    if generator is None:
        return None
    if not isinstance(generator, Generator):
        raise TypeError(f"For '{what}', 'generator' must be a mindspore Generator, but got "
                        f"{type(generator).__name__}.")
    return generator._next_key()


def note_global_seed(seed: int) -> None:
    """`set_seed(s)` reseeds the global key: the default generator's initial seed follows."""
    default_generator._seed = _as_int64(seed)


def seed() -> int:
    """Reseeds the default generator with a random seed and returns it."""
    return default_generator.seed()


def manual_seed(seed: int) -> Generator:  # noqa: F811 - MindSpore's names
    """Reseeds the default generator (op draws; initialisers keep numpy's stream, as in
    MindSpore 2.10); returns the default generator."""
    return default_generator.manual_seed(seed)


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    return default_generator.get_state()


def set_rng_state(state) -> None:
    default_generator.set_state(state)

"""RandomApply, RandomChoice and RandomOrder of mindspore.dataset.transforms: run a list of
transforms by chance, one of them, or all in a random order. Draws come from the transform's own
generator, seeded from the dataset seed (the draws are not MindSpore's)."""
from __future__ import annotations

import numbers

from ..vision.transforms import _Random
from .transforms import _row


def _transforms(transforms) -> list:
    if not isinstance(transforms, list):
        raise TypeError(f"Argument transforms with value {transforms!r} is not of type [<class 'list'>], "
                        f"but got {type(transforms)}.")
    if not transforms:
        raise ValueError("transforms list can not be empty.")
    for i, t in enumerate(transforms):
        if not callable(t):
            raise TypeError(f"transforms[{i}] is neither a transforms op (TensorOperation) nor a callable pyfunc.")
    return list(transforms)


def _run(transforms, args):
    for transform in transforms:
        args = _row(transform(*args))
    return args[0] if len(args) == 1 else args


class RandomApply(_Random):
    """All of `transforms` in order with probability `prob`, else the input unchanged."""

    def __init__(self, transforms, prob=0.5):
        super().__init__()
        self.transforms = _transforms(transforms)
        if isinstance(prob, bool) or not isinstance(prob, numbers.Real) or not 0 <= prob <= 1:
            raise ValueError("Input prob is not within the required interval of [0, 1].")
        self.prob = float(prob)

    def __call__(self, *args):
        if self._uniform() < self.prob:
            return _run(self.transforms, args)
        return args[0] if len(args) == 1 else args


class RandomChoice(_Random):
    """One of `transforms`, chosen uniformly."""

    def __init__(self, transforms):
        super().__init__()
        self.transforms = _transforms(transforms)

    def __call__(self, *args):
        return _run([self.transforms[self._integer(len(self.transforms) - 1)]], args)


class RandomOrder(_Random):
    """All of `transforms`, in a random order."""

    def __init__(self, transforms):
        super().__init__()
        self.transforms = _transforms(transforms)

    def __call__(self, *args):
        with self._lock:
            order = self._rng.permutation(len(self.transforms))
        return _run([self.transforms[i] for i in order], args)

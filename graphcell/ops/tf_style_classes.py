"""MindSpore 2.10's TensorFlow-style operator classes ops.STFT, ops.FractionalMaxPool and
ops.FractionalAvgPool, over graphcell's functional ops (measured on 2.10's CPU build).

STFT is ops.stft without centre padding, the window a required second input.

The fractional pools take NHWC input and one row and one column pooling sequence per call:
int64 [out + 1] boundaries from 0 to the input length, out = int(n / ratio), every step k or
k + 1 (k = n // out). Without pseudo_random the k + 1 steps sit at random places; with it the
boundaries are ceil(alpha * (i + u)) - 1 for one random u in [0, max_u) (alpha = n / out, max_u
keeping the steps in {k, k + 1}: TensorFlow's documented rule). Window i covers [s_i, s_{i+1}),
or [s_i, s_{i+1}] clamped to the input with overlapping. The draws are graphcell's (MindSpore's
Philox streams cannot be reproduced): seed = seed2 = 0 draws from the global generator, other
seeds give the same sequences on every call. Windows are gathered through a static
[out, widest window] layout with each position clamped into its window, so shapes stay static.
"""
from __future__ import annotations

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from . import functional as F
from .op_base import Operator, check_bool, check_int
from .sorting import argsort, cumsum
from .stft import stft

__all__ = ["STFT", "FractionalMaxPool", "FractionalAvgPool"]

_POOL_DTYPES = (mstype.float32, mstype.float64, mstype.int32, mstype.int64)


class STFT(Operator):
    """The STFT of x [L] or [B, L] with a window [win_length] (centred in each n_fft frame), no
    centre padding: [(B,) n_freq, n_frames] complex, or its real view [..., 2] when
    return_complex is False."""

    def __init__(self, n_fft, hop_length, win_length, normalized, onesided, return_complex):
        op = self.name
        for arg, value in (("n_fft", n_fft), ("hop_length", hop_length), ("win_length", win_length)):
            if type(value) is not int:   # 2.10 refuses bools here too (its stft's rule)
                raise TypeError(f"For '{op}', the type of '{arg}' should be 'int', but got type "
                                f"'{type(value).__name__}'.")
        super().__init__(n_fft=n_fft, hop_length=hop_length, win_length=win_length,
                         normalized=check_bool(op, "normalized", normalized),
                         onesided=check_bool(op, "onesided", onesided),
                         return_complex=check_bool(op, "return_complex", return_complex))

    def __call__(self, *inputs):
        if len(inputs) != 2:
            raise ValueError(f"For primitive[STFT], the input number must be equal to 2, but got {len(inputs)}.")
        x, window = inputs
        return stft(F.as_tensor(x), self.n_fft, self.hop_length, self.win_length, F.as_tensor(window),
                    center=False, normalized=self.normalized, onesided=self.onesided,
                    return_complex=self.return_complex)


_ORDINALS = ("first", "second", "third", "forth")   # 2.10's spelling


def _pooling_ratio(op: str, value) -> list:
    if not isinstance(value, list):
        raise TypeError(f"For '{op}', the type of 'pooling_ratio' should be 'list', but got type "
                        f"'{type(value).__name__}'.")
    if len(value) != 4:
        raise ValueError(f"For '{op}', the size of parameter 'pooling_ratio' must be 4, but got {len(value)}.")
    for v in value:
        if not isinstance(v, float):
            raise TypeError(f"For '{op}', the type of 'pooling_ratio_item' should be 'float', but got type "
                            f"'{type(v).__name__}'.")
    for i in (0, 3):
        if value[i] != 1.0:
            raise ValueError(f"For '{op}', the {_ORDINALS[i]} element of parameter 'pooling_ratio' must be 1.0, "
                             f"but got {value[i]:f}.")
    for i in (1, 2):
        if value[i] < 1.0:
            raise ValueError(f"For '{op}', the {_ORDINALS[i]} element of pooling ratio must be greater than or equal "
                             f"to 1.0, but got {value[i]:f}.")
    return list(value)


def pooling_sequence(n: int, out: int, pseudo_random: bool, seed=None) -> Tensor:
    """int64 [out + 1] boundaries from 0 to n, each step n // out or n // out + 1."""
    k, extra = divmod(n, out)
    if extra == 0:
        return Tensor(np.arange(out + 1, dtype=np.int64) * k)
    if pseudo_random:
        alpha = n / out
        max_u = min((k + 2) / alpha - 1, (n + 1 - k) / alpha - (out - 1))
        u = F.mul(F.uniform((1,), seed=seed, dtype=mstype.float64), max_u)
        inner = F.ceil(F.mul(F.add(Tensor(np.arange(1, out, dtype=np.float64)), u), alpha))
        inner = F.sub(F.cast(inner, mstype.int64), 1)
        return F.concat([Tensor(np.zeros(1, np.int64)), inner, Tensor(np.full(1, n, np.int64))], 0)
    # `extra` of the out steps, at uniformly random places, are one longer
    rank = argsort(argsort(F.uniform((out,), seed=seed)))
    steps = F.add(F.cast(F.less(rank, extra), mstype.int64), k)
    return F.concat([Tensor(np.zeros(1, np.int64)), cumsum(steps, 0)], 0)


def pool_along(x, sequence, axis: int, n: int, out: int, overlapping: bool, average: bool):
    """Max or mean of x over the windows `sequence` gives along `axis` (n long)."""
    widest = min(n, n // out + 2)    # covers k + 1 steps and the overlap's extra row
    starts = F.slice_axis(sequence, 0, 0, out)
    ends = F.slice_axis(sequence, 0, 1, out + 1)
    if overlapping:
        ends = F.minimum(F.add(ends, 1), n)
    ends = F.expand_dims(ends, 1)
    positions = F.add(F.expand_dims(starts, 1), Tensor(np.arange(widest, dtype=np.int64)))   # [out, widest]
    inside = F.less(positions, ends)
    clamped = F.minimum(positions, F.sub(ends, 1))          # every slot holds an element of its window
    picked = F.gather(x, F.reshape(clamped, (out * widest,)), axis)
    shape = tuple(x.shape[:axis]) + (out, widest) + tuple(x.shape[axis + 1:])
    picked = F.reshape(picked, shape)
    if not average:
        return F.reduce_max(picked, axis + 1)
    mask = F.reshape(F.cast(inside, mstype.float64), (out, widest) + (1,) * (x.ndim - axis - 1))
    total = F.reduce_sum(F.mul(F.cast(picked, mstype.float64), mask), axis + 1)
    count = F.reshape(F.reduce_sum(mask, 1), (out,) + (1,) * (x.ndim - axis - 1))
    return F.cast(F.div(total, count), x.dtype)     # an integer mean truncates, as 2.10's does


class _FractionalPool(Operator):
    _AVERAGE = False
    _INPUT = "input"

    def __init__(self, pooling_ratio, pseudo_random=False, overlapping=False, deterministic=False, seed=0, seed2=0):
        op = self.name
        super().__init__(pooling_ratio=_pooling_ratio(op, pooling_ratio),
                         pseudo_random=check_bool(op, "pseudo_random", pseudo_random),
                         overlapping=check_bool(op, "overlapping", overlapping),
                         deterministic=check_bool(op, "deterministic", deterministic),
                         seed=check_int(op, "seed", seed), seed2=check_int(op, "seed2", seed2))

    def __call__(self, x):
        op = self.name
        x = F.as_tensor(x)
        if x.dtype not in _POOL_DTYPES:
            names = ", ".join(f"Tensor[{d}]" for d in _POOL_DTYPES)
            raise TypeError(f"For primitive[{op}], the input argument[{self._INPUT}] must be a type of {{{names}}}, "
                            f"but got Tensor[{x.dtype}].")
        if x.ndim != 4:
            raise ValueError(f"For primitive[{op}], the input_rank must be equal to 4, but got {x.ndim}.")
        if not self.deterministic and (self.seed or self.seed2):
            raise ValueError(f"For '{op}', both 'seed' and 'seed2' must be 0 if 'deterministic' is false.")
        outs = [int(n / r) for n, r in zip(x.shape, self.pooling_ratio)]
        for i, o in enumerate(outs):
            if o <= 0:
                raise ValueError(f"For '{op}', outputsize[{i}] cannot be 0.")
        seed = ((self.seed & 0xFFFFFFFF) << 32) | (self.seed2 & 0xFFFFFFFF) if (self.seed or self.seed2) else None
        rows = pooling_sequence(x.shape[1], outs[1], self.pseudo_random, seed)
        cols = pooling_sequence(x.shape[2], outs[2], self.pseudo_random, None if seed is None else seed + 1)
        y = pool_along(x, rows, 1, x.shape[1], outs[1], self.overlapping, self._AVERAGE)
        y = pool_along(y, cols, 2, x.shape[2], outs[2], self.overlapping, self._AVERAGE)
        return y, rows, cols


class FractionalMaxPool(_FractionalPool):
    """(y, row_pooling_sequence, col_pooling_sequence): the maxima of NHWC x over fractional
    windows; pooling_ratio [1.0, rh, rw, 1.0] (rh, rw >= 1) sets the output int(H / rh) x
    int(W / rw); the sequences are int64 [out + 1]."""


class FractionalAvgPool(_FractionalPool):
    """FractionalMaxPool's windows and sequences with the means (integer means truncate)."""
    _AVERAGE = True
    _INPUT = "x"

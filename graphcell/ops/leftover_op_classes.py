"""MindSpore 2.10's ops.ComputeAccidentalHits, ops.Randperm, ops.FFTWithSize and
ops.rotary_position_embedding, composed of existing ops (vmap, grad and ONNX come with them).

FFTWithSize runs on 2.10's CPU build: its values match numpy's fftn / ifftn / rfftn / irfftn
over the last signal_ndim axes for every norm (measured). 2.10's CPU has no kernel for the
other three; they follow the documentation (ComputeAccidentalHits: TensorFlow's
compute_accidental_hits), their argument checks measured."""
from __future__ import annotations

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from . import fft_ops
from . import functional as F
from .complex_ops import real
from .misc_op_classes import _dtype_check, _host
from .op_base import Operator, check_bool, check_int, exporter, is_int
from .sorting import argsort

__all__ = ["rotary_position_embedding"]
CLASSES: list[str] = []
_export = exporter(CLASSES)


@_export
class ComputeAccidentalHits(Operator):
    """ComputeAccidentalHits(num_true=1)(true_classes int64 [batch, num_true], sampled_candidates
    int64 [num_sampled]) -> (indices int32, ids int64, weights float32): one entry per true class
    equal to a sampled candidate, row by row: the row, the candidate's position (the last one
    of repeated candidates, as TensorFlow's map) and the float32 lowest value. Eager only (the
    count depends on the values)."""

    def __init__(self, num_true=1):
        num_true = check_int("ComputeAccidentalHits", "num_true", num_true)
        if num_true < 1:
            raise ValueError(f"For 'ComputeAccidentalHits', the argument 'num_true' must >= 1, but got {num_true}.")
        super().__init__(num_true=num_true)

    def __call__(self, true_classes, sampled_candidates):
        op = "ComputeAccidentalHits"
        true = _dtype_check(op, "true_classes", F.as_tensor(true_classes), (mstype.int64,))
        sampled = _dtype_check(op, "sampled_candidates", F.as_tensor(sampled_candidates), (mstype.int64,))
        for name, t, rank in (("true_classes", true, 2), ("sampled_candidates", sampled, 1)):
            if t.ndim != rank:
                raise ValueError(f"For primitive[{op}], the dim of {name} must be equal to {rank}, but got {t.ndim}.")
        if true.shape[1] != self.num_true:
            raise ValueError(f"For {op}, true_classes shape[1]={true.shape[1]} must be equal to num_true= "
                             f"{self.num_true}")
        classes, candidates = _host(op, true, sampled)
        position = {int(c): j for j, c in enumerate(candidates)}      # a repeated candidate: its last position
        hits = [(i, position[int(c)]) for i, row in enumerate(classes) for c in row if int(c) in position]
        rows = np.array([i for i, _ in hits], np.int32)
        ids = np.array([j for _, j in hits], np.int64)
        return Tensor(rows), Tensor(ids), Tensor(np.full(len(hits), np.finfo(np.float32).min, np.float32))


_RANDPERM_DTYPES = (mstype.int8, mstype.int16, mstype.int32, mstype.int64, mstype.uint8, mstype.uint16,
                    mstype.uint32, mstype.uint64, mstype.float16, mstype.float32, mstype.float64)


@_export
class Randperm(Operator):
    """Randperm(max_length=1, pad=-1, dtype=int32)(n: int32/int64 Tensor of shape (1,)): a
    (max_length,) Tensor whose first n entries are a random permutation of 0 .. n-1 and the rest
    `pad`. Drawn from the global generator (ops.randperm's uniform keys), so set_seed repeats it;
    n may be a traced value under jit (the keys past n sort last)."""

    def __init__(self, max_length=1, pad=-1, dtype=mstype.int32):
        op = "Randperm"
        max_length = check_int(op, "max_length", max_length, minimum=1)
        pad = check_int(op, "pad", pad)
        try:
            dtype = mstype.to_dtype(dtype)
        except (TypeError, ValueError):
            dtype = None
        if dtype not in _RANDPERM_DTYPES:
            names = ", ".join(f"mindspore.{d.name}" for d in _RANDPERM_DTYPES)
            raise TypeError(f"For '{op}', the 'dtype' should be one of [{names}], but got "
                            f"'{'mindspore.' + dtype.name.rstrip('_') if dtype is not None else dtype}'.")
        super().__init__(max_length=max_length, pad=pad, dtype=dtype)

    def __call__(self, n):
        op = "Randperm"
        n = _dtype_check(op, "x", F.as_tensor(n), (mstype.int32, mstype.int64))
        if n.ndim != 1:
            raise ValueError(f"For '{op}', the rank of input tensor must be equal 1. But got {n.ndim}")
        if n.shape[0] != 1:
            raise ValueError(f"For '{op}', the shape value of input tensor must be equal 1. But got {n.shape[0]}")
        if not n.is_symbolic:
            count = int(n.asnumpy()[0])
            if not 0 <= count <= self.max_length:
                raise ValueError(f"For '{op}', the input 'n' must be in [0, max_length={self.max_length}], but "
                                 f"got {count}.")
        place = F.arange(0, self.max_length, dtype=mstype.int64)
        inside = F.less(place, F.cast(n, mstype.int64))
        keys = F.where(inside, F.uniform((self.max_length,), dtype=mstype.float64), 2.0)   # past n: sorted last
        return F.cast(F.where(inside, argsort(keys), self.pad), self.dtype)


_NORMS = ("backward", "forward", "ortho")
_RFFT_INPUTS = (mstype.bool_, mstype.float32, mstype.float64, mstype.int16, mstype.int32, mstype.int64,
                mstype.int8, mstype.uint8)


def _vector(values) -> str:
    """2.10's printing of an int vector in FFTWithSize's messages."""
    return "[const vector]{" + ", ".join(str(v) for v in values) + "}"


@_export
class FFTWithSize(Operator):
    """FFTWithSize(signal_ndim, inverse, real, norm='backward', onesided=True, signal_sizes=())(x):
    the FFT over x's last signal_ndim (1-3) axes: fftn / ifftn of a complex x (real=False),
    rfftn (onesided) or fftn of a real x, and irfftn (signal_sizes: the output's sizes) or the
    real part of ifftn (onesided=False) of a complex x."""

    def __init__(self, signal_ndim, inverse, real, norm="backward", onesided=True, signal_sizes=()):
        op = "FFTWithSize"
        if not isinstance(norm, str):
            raise TypeError(f"For '{op}', the input 'norm' should be a str, but got {type(norm)}.")
        if norm not in _NORMS:
            raise ValueError(f"Failed to convert the value \"{norm}\" of input 'norm' of '{op}' to enum.")
        if not isinstance(signal_sizes, tuple) or not all(is_int(v) for v in signal_sizes):
            raise TypeError(f"For '{op}', the 'signal_sizes' must be a tuple of int, but got {signal_sizes!r}.")
        super().__init__(signal_ndim=check_int(op, "signal_ndim", signal_ndim), inverse=check_bool(op, "inverse", inverse),
                         real=check_bool(op, "real", real), norm=norm, onesided=check_bool(op, "onesided", onesided),
                         signal_sizes=tuple(int(v) for v in signal_sizes))

    def __call__(self, x):
        op, nd = "FFTWithSize", self.signal_ndim
        x = F.as_tensor(x)
        if x.ndim == 0:
            raise ValueError(f"For primitive[{op}], the rank of x must be greater than or equal to 1, but got 0.")
        if not 1 <= nd <= 3:
            # 2.10 raises this for irfft only; fft and rfft there silently transform all (at most 3) axes
            raise ValueError(f"For primitive[{op}], the signal_ndim must be in [1,3], but got {nd}.")
        if x.ndim < nd:
            raise RuntimeError("x_dims must not be less than signal_ndim.")
        dims = tuple(range(-nd, 0))
        mode = "fft/ifft" if not self.real else ("irfft" if self.inverse else "rfft")
        allowed = _RFFT_INPUTS if mode == "rfft" else (mstype.complex128, mstype.complex64)
        if x.dtype not in allowed:
            names = ", ".join(d.ms_name for d in allowed)
            raise TypeError(f"For primitive[{op}], the input argument[x] in {mode} mode must be a type of {{{names}}}, "
                            f"but got {x.dtype.ms_name}.")
        if mode == "fft/ifft":
            return (fft_ops.ifftn if self.inverse else fft_ops.fftn)(x, None, dims, self.norm)
        if mode == "rfft":
            x = x if x.dtype is mstype.float64 else F.cast(x, mstype.float32)
            if self.onesided:
                return fft_ops.rfftn(x, None, dims, self.norm)
            return fft_ops.fftn(fft_ops._to_complex(x), None, dims, self.norm)
        if not self.onesided:       # signal_sizes is ignored here (measured)
            return real(fft_ops.ifftn(x, None, dims, self.norm))
        return fft_ops.irfftn(x, self._output_sizes(x), dims, self.norm)

    def _output_sizes(self, x) -> tuple:
        op, nd, sizes = "FFTWithSize", self.signal_ndim, self.signal_sizes
        bins = x.shape[-1]
        if bins == 1:
            raise ValueError(f"For '{op}', the last dimension of the input cannot be 1, but got: 1")
        lead = tuple(x.shape[-nd:-1])
        if not sizes:
            return lead + (2 * (bins - 1),)
        if len(sizes) != nd:
            raise ValueError(f"For '{op}', signal_sizes is expected to be empty (default) or of signal_ndim={nd}D, but "
                             f"got signal_sizes={_vector(sizes)}")
        valid = (lead + (2 * (bins - 1),), lead + (2 * bins - 1,))
        if sizes not in valid:
            raise ValueError(f"For '{op}', got invalid signal_sizes: {_vector(sizes)}, a valid one should be "
                             f"{_vector(valid[0])}, or {_vector(valid[1])}.")
        return sizes


def rotary_position_embedding(x, cos, sin, mode=0):
    """x * cos + rotate(x) * sin over the last axis (D, even), cos and sin broadcast to x:
    mode 0 rotates halves (GPT-NeoX: [-x2, x1]), mode 1 interleaved pairs (GPT-J: each
    (a, b) becomes (-b, a))."""
    op = "rotary_position_embedding"
    for name, value in (("x", x), ("cos", cos), ("sin", sin)):
        if not isinstance(value, Tensor):
            raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got {type(value).__name__}.")
    if not is_int(mode):
        raise TypeError(f"For '{op}', the type of 'mode' should be 'int', but got type '{type(mode).__name__}'.")
    if mode not in (0, 1):
        raise ValueError(f"For '{op}', 'mode' must be 0 (rotate half) or 1 (rotate interleaved), but got {mode}.")
    depth = x.shape[-1] if x.ndim else 0
    if depth % 2 or depth == 0:
        raise ValueError(f"For '{op}', the last dimension of 'x' must be even, but got shape {list(x.shape)}.")
    if mode == 0:
        first, second = F.slice_axis(x, -1, 0, depth // 2), F.slice_axis(x, -1, depth // 2, depth)
        rotated = F.concat((F.neg(second), first), -1)
    else:
        pairs = F.reshape(x, tuple(x.shape[:-1]) + (depth // 2, 2))
        even, odd = F.slice_axis(pairs, -1, 0, 1), F.slice_axis(pairs, -1, 1, 2)
        rotated = F.reshape(F.concat((F.neg(odd), even), -1), tuple(x.shape))
    return F.add(F.mul(x, cos), F.mul(rotated, sin))

"""The FFT family with MindSpore 2.10's names and arguments (ops.fft, rfft2, irfftn, hfft,
fftshift, fftfreq, ...).

One primitive, `fft` {fft_type, lengths}: jax.lax.fft's transform ("fft", "ifft", "rfft",
"irfft") over the trailing len(lengths) axes. The functional layer moves the transformed
axes to the end, pads or crops them to the requested sizes and scales for `norm`. The
primitive computes the "backward" normalisation (1/n on the inverse transforms only).

FFTs are linear, so the vjp is the transposed transform (jax's convention, no conjugation):
fft's is fft, ifft's ifft, rfft's the real part of an fft of the cotangent zero-padded to full
length, irfft's the conjugate of an rfft with the half-spectrum's doubled bins (jax's rules).
ONNX: DFT or one MatMul per axis on real pairs (compiler/onnx_complex.py).
"""
from __future__ import annotations

import math
import numbers

import jax
import numpy as np

from .. import dtype as mstype
from ..ir.core import TensorType
from . import batching
from .ad_util import F
from .complex_ops import conj, real_part
from .primitive import Primitive, ShapeError

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2", "rfftn",
           "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftshift", "ifftshift", "fftfreq", "rfftfreq"]

_LAX_TYPES = {"fft": jax.lax.FftType.FFT, "ifft": jax.lax.FftType.IFFT, "rfft": jax.lax.FftType.RFFT,
              "irfft": jax.lax.FftType.IRFFT}
_COMPLEX_OF = {mstype.float32: mstype.complex64, mstype.float64: mstype.complex128}


def _fft_rule(x: TensorType, *, fft_type: str, lengths: tuple) -> TensorType:
    k = len(lengths)
    if fft_type not in _LAX_TYPES or not 1 <= k <= 3 or k > len(x.shape):
        raise ShapeError(f"fft: bad attributes fft_type={fft_type!r}, lengths={lengths} for {x}")
    lead, tail = tuple(x.shape[:-k]), tuple(x.shape[-k:])
    if fft_type == "rfft":
        if x.dtype not in _COMPLEX_OF or tail != tuple(lengths):
            raise ShapeError(f"rfft needs a float32/float64 tensor ending in {list(lengths)}, got {x}")
        return TensorType(lead + tail[:-1] + (lengths[-1] // 2 + 1,), _COMPLEX_OF[x.dtype])
    if not x.dtype.is_complex:
        raise ShapeError(f"{fft_type} needs a complex tensor, got {x}")
    if fft_type == "irfft":
        if tail != tuple(lengths[:-1]) + (lengths[-1] // 2 + 1,):
            raise ShapeError(f"irfft of lengths {list(lengths)} needs a tensor ending in "
                             f"{list(lengths[:-1]) + [lengths[-1] // 2 + 1]}, got {x}")
        return TensorType(lead + tuple(lengths), x.dtype.real_dtype)
    if tail != tuple(lengths):
        raise ShapeError(f"{fft_type} of lengths {list(lengths)} needs a tensor ending in them, got {x}")
    return x


fft_prim = Primitive("fft", _fft_rule, lambda x, *, fft_type, lengths:
                     jax.lax.fft(x, _LAX_TYPES[fft_type], tuple(lengths)))


@fft_prim.def_batch
def _fft_batch(ctx, args, dims, *, fft_type, lengths):
    (x,), (d,) = args, dims
    if d >= x.ndim - len(lengths):   # the mapped axis among the transformed ones: to the front
        x, d = batching.move(x, d, 0), 0
    return fft_prim.bind(x, fft_type=fft_type, lengths=lengths), d


@fft_prim.def_vjp
def _fft_vjp(ctx, cts, primals, outs, *, fft_type, lengths):
    (x,), (ct,) = primals, cts
    if fft_type in ("fft", "ifft"):   # the DFT matrix is symmetric: its own transpose
        return (fft_prim.bind(ct, fft_type=fft_type, lengths=lengths),)
    if fft_type == "rfft":   # the cropped half spectrum's transpose: zero-fill, full fft, real part
        full = _fit(ct, ct.ndim - 1, lengths[-1])
        return (real_part.bind(fft_prim.bind(full, fft_type="fft", lengths=lengths)),)
    n = lengths[-1]
    spectrum = fft_prim.bind(ct, fft_type="rfft", lengths=lengths)
    # the bins that irfft mirrors count twice; the zero bin (and the Nyquist one for even n) once
    mask = np.full(n // 2 + 1, 2.0, x.dtype.real_dtype.np_dtype)
    mask[0] = 1.0
    if n % 2 == 0:
        mask[-1] = 1.0
    # conjugated: irfft reads the spectrum as its conjugate-symmetric extension (jax's rule)
    return (conj(F.mul(spectrum, F.cast(F.as_tensor(mask / math.prod(lengths)), x.dtype))),)


# -- the functional layer ------------------------------------------------------------------

def _fit(x, axis: int, n: int):
    """`x` cropped or zero-padded at the end of `axis` to n elements."""
    size = x.shape[axis]
    if size > n:
        return F.slice_axis(x, axis, 0, n)
    if size < n:
        shape = list(x.shape)
        shape[axis] = n - size
        return F.concat([x, F.zeros(tuple(shape), x.dtype)], axis)
    return x


def _check_norm(norm, name: str) -> str:
    if norm is None:
        return "backward"
    if norm not in ("backward", "ortho", "forward"):
        raise ValueError(f"For '{name}', norm must be 'backward', 'ortho', 'forward' or None, but got {norm!r}.")
    return norm


def _inexact(x, name: str):
    """Integers and low-precision floats are transformed in float32 (MindSpore 2.10, measured:
    Int32 and Float16 give Complex64); bools are refused, as MindSpore refuses them."""
    if x.dtype is mstype.bool_:
        raise TypeError(f"For '{name}', the input must be a numeric tensor, but got Bool")
    if x.dtype.is_inexact and x.dtype not in (mstype.float16, mstype.bfloat16):
        return x
    return F.cast(x, mstype.float32)


def _to_complex(x):
    return x if x.dtype.is_complex else F.cast(x, _COMPLEX_OF[x.dtype])


def _dims_and_sizes(x, s, dim, name: str, default_dim):
    """The transformed axes (non-negative) and their signal sizes (None: the input's)."""
    if dim is None:
        dim = default_dim if default_dim is not None else (
            tuple(range(-len(s), 0)) if s is not None else tuple(range(x.ndim)))
    dims = [dim] if isinstance(dim, numbers.Integral) else list(dim)
    axes = []
    for d in dims:
        if not -x.ndim <= d < x.ndim:
            raise ValueError(f"For primitive[{name.upper()}], the dim must be in [{-x.ndim},{x.ndim}), but got {d}.")
        axes.append(d % x.ndim)
    if len(set(axes)) != len(axes):
        raise ValueError(f"For '{name}', dim must not repeat an axis, got {tuple(dims)}")
    if s is None:
        return axes, [None] * len(axes)
    sizes = [s] if isinstance(s, numbers.Integral) else list(s)
    if len(sizes) != len(axes):
        raise ValueError(f"For '{name}', s and dim must have the same length, got {tuple(sizes)} and {tuple(dims)}")
    for n in sizes:
        if not isinstance(n, numbers.Integral) or n <= 0:
            raise ValueError(f"The argument[n] must be greater than 0, but got {n}.")
    return axes, [int(n) for n in sizes]


def _transform(x, axes, lengths, fft_type):
    """The primitive over `axes` (moved to the end in groups of at most 3, lax.fft's limit)."""
    rest = [a for a in range(x.ndim) if a not in axes]
    order = rest + list(axes)
    y = F.transpose(x, tuple(order)) if order != list(range(x.ndim)) else x
    # lax.fft does at most 3 axes at once: the others one by one as complex transforms, before
    # an irfft (its input is complex) and after an rfft (its output is)
    lengths, lead = list(lengths), []
    c2c = "ifft" if fft_type in ("ifft", "irfft") else "fft"

    def one_axis(y, k, n):   # the c2c transform of the axis k places from the end
        y = F.moveaxis(y, y.ndim - k, -1)
        return F.moveaxis(fft_prim.bind(y, fft_type=c2c, lengths=(n,)), -1, y.ndim - k)
    while len(lengths) > 3:
        lead.append(lengths.pop(0))
    if fft_type != "rfft":
        for i, n in enumerate(lead):
            y = one_axis(y, len(lead) - i + 3, n)
    y = fft_prim.bind(y, fft_type=fft_type, lengths=tuple(lengths))
    if fft_type == "rfft":
        for i, n in enumerate(lead):
            y = one_axis(y, len(lead) - i + 3, n)
    inverse = [0] * x.ndim
    for i, a in enumerate(order):
        inverse[a] = i
    return F.transpose(y, tuple(inverse)) if order != list(range(x.ndim)) else y


def _scale(y, norm: str, count: int, inverse: bool):
    """The norm's factor on top of the primitive's backward normalisation."""
    if norm == "backward":
        return y
    if norm == "ortho":
        factor = math.sqrt(count) if inverse else 1.0 / math.sqrt(count)
    else:   # forward: 1/n on the forward transform, none on the inverse
        factor = float(count) if inverse else 1.0 / count
    return F.mul(y, F.cast(F.as_tensor(np.array(factor, y.dtype.real_dtype.np_dtype)), y.dtype))


def _c2c(input, s, dim, norm, name, inverse, default_dim=None):  # noqa: A002
    x = F.as_tensor(input)
    norm = _check_norm(norm, name)
    axes, sizes = _dims_and_sizes(x, s, dim, name, default_dim)
    x = _to_complex(_inexact(x, name))
    lengths = []
    for a, n in zip(axes, sizes):
        n = x.shape[a] if n is None else n
        x = _fit(x, a, n)
        lengths.append(n)
    y = _transform(x, axes, lengths, "ifft" if inverse else "fft")
    return _scale(y, norm, math.prod(lengths), inverse)


def _r2c(input, s, dim, norm, name, default_dim=None):  # noqa: A002
    x = F.as_tensor(input)
    axes, sizes = _dims_and_sizes(x, s, dim, name, default_dim)
    if x.dtype.is_complex:   # MindSpore 2.10 returns scrambled rows here (measured); torch refuses
        raise TypeError(f"For '{name}', the input must be a real tensor, but got {x.dtype}: use fft for complex input")
    norm = _check_norm(norm, name)
    x = _inexact(x, name)
    lengths = []
    for a, n in zip(axes, sizes):
        n = x.shape[a] if n is None else n
        x = _fit(x, a, n)
        lengths.append(n)
    y = _transform(x, axes, lengths, "rfft")
    return _scale(y, norm, math.prod(lengths), False)


def _c2r(input, s, dim, norm, name, default_dim=None):  # noqa: A002
    x = F.as_tensor(input)
    norm = _check_norm(norm, name)
    axes, sizes = _dims_and_sizes(x, s, dim, name, default_dim)
    x = _to_complex(_inexact(x, name))
    lengths = []
    for i, (a, n) in enumerate(zip(axes, sizes)):
        last = i == len(axes) - 1
        if n is None:
            n = 2 * (x.shape[a] - 1) if last else x.shape[a]
            if n <= 0:
                raise ValueError(f"For '{name}', the output size along dim {a} would be {n}; give n or s.")
        x = _fit(x, a, n // 2 + 1 if last else n)
        lengths.append(n)
    y = _transform(x, axes, lengths, "irfft")
    return _scale(y, norm, math.prod(lengths), True)


def fft(input, n=None, dim=-1, norm=None):  # noqa: A002 - MindSpore's names
    """The one-dimensional discrete Fourier transform along `dim`, the signal cropped or
    zero-padded to `n`. norm: 'backward' (None), 'ortho' or 'forward'."""
    return _c2c(input, None if n is None else (n,), (dim,), norm, "fft", inverse=False)


def ifft(input, n=None, dim=-1, norm=None):  # noqa: A002
    return _c2c(input, None if n is None else (n,), (dim,), norm, "ifft", inverse=True)


def fft2(input, s=None, dim=(-2, -1), norm=None):  # noqa: A002
    return _c2c(input, s, dim, norm, "fft2", inverse=False)


def ifft2(input, s=None, dim=(-2, -1), norm=None):  # noqa: A002
    return _c2c(input, s, dim, norm, "ifft2", inverse=True)


def fftn(input, s=None, dim=None, norm=None):  # noqa: A002
    return _c2c(input, s, dim, norm, "fftn", inverse=False)


def ifftn(input, s=None, dim=None, norm=None):  # noqa: A002
    return _c2c(input, s, dim, norm, "ifftn", inverse=True)


def rfft(input, n=None, dim=-1, norm=None):  # noqa: A002
    """The half spectrum (n // 2 + 1 bins) of a real signal's DFT along `dim`."""
    return _r2c(input, None if n is None else (n,), (dim,), norm, "rfft")


def irfft(input, n=None, dim=-1, norm=None):  # noqa: A002
    """The real signal of length n (default 2 * (bins - 1)) whose half spectrum is `input`."""
    return _c2r(input, None if n is None else (n,), (dim,), norm, "irfft")


def rfft2(input, s=None, dim=(-2, -1), norm=None):  # noqa: A002
    return _r2c(input, s, dim, norm, "rfft2")


def irfft2(input, s=None, dim=(-2, -1), norm=None):  # noqa: A002
    return _c2r(input, s, dim, norm, "irfft2")


def rfftn(input, s=None, dim=None, norm=None):  # noqa: A002
    return _r2c(input, s, dim, norm, "rfftn")


def irfftn(input, s=None, dim=None, norm=None):  # noqa: A002
    return _c2r(input, s, dim, norm, "irfftn")


_SWAPPED = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def hfft(input, n=None, dim=-1, norm=None):  # noqa: A002
    """The real spectrum of a signal with Hermitian symmetry given by its first half:
    irfft(conj(input)) with the norm's direction swapped (numpy's definition)."""
    norm = _SWAPPED[_check_norm(norm, "hfft")]
    x = F.as_tensor(input)
    return irfft(conj(x) if x.dtype.is_complex else x, n, dim, norm)


def ihfft(input, n=None, dim=-1, norm=None):  # noqa: A002
    """hfft's inverse: conj(rfft(input)) with the norm's direction swapped."""
    norm = _SWAPPED[_check_norm(norm, "ihfft")]
    return conj(rfft(input, n, dim, norm))


def hfftn(input, s=None, dim=None, norm=None):  # noqa: A002
    """hfft over several axes (the last of `dim` holds the half spectrum): irfftn(conj(input))
    with the norm's direction swapped, as torch.fft.hfftn (MindSpore 2.10's values, measured)."""
    norm = _SWAPPED[_check_norm(norm, "hfftn")]
    x = F.as_tensor(input)
    return _c2r(conj(x) if x.dtype.is_complex else x, s, dim, norm, "hfftn")


def hfft2(input, s=None, dim=(-2, -1), norm=None):  # noqa: A002
    return hfftn(input, s, dim, norm)


def ihfftn(input, s=None, dim=None, norm=None):  # noqa: A002
    """hfftn's inverse: conj(rfftn(input)) with the norm's direction swapped."""
    norm = _SWAPPED[_check_norm(norm, "ihfftn")]
    return conj(_r2c(input, s, dim, norm, "ihfftn"))


def ihfft2(input, s=None, dim=(-2, -1), norm=None):  # noqa: A002
    return ihfftn(input, s, dim, norm)


def _shift(input, dim, sign: int):  # noqa: A002
    from .composite import roll
    x = F.as_tensor(input)
    dims = list(range(x.ndim)) if dim is None else ([dim] if isinstance(dim, numbers.Integral) else list(dim))
    if not dims:
        return x
    shifts = [sign * (x.shape[F._axis(int(d), x.ndim, "dim")] // 2) for d in dims]
    return roll(x, shifts, dims)


def fftshift(input, dim=None):  # noqa: A002
    """The zero-frequency bin moved to the middle (every axis when dim is None)."""
    return _shift(input, dim, 1)


def ifftshift(input, dim=None):  # noqa: A002
    return _shift(input, dim, -1)


def _frequencies(values: np.ndarray, n, d, dtype, name: str):
    if not isinstance(n, numbers.Integral) or isinstance(n, bool) or n <= 0:
        raise ValueError(f"For '{name}', n must be a positive int, but got {n!r}")
    if not isinstance(d, float):
        raise TypeError(f"For '{name}', d must be a float (MindSpore 2.10 refuses an int), but got {d!r}")
    return F.as_tensor(values.astype(mstype.to_dtype(dtype or mstype.float32).np_dtype))


def fftfreq(n, d=1.0, dtype=None):
    """The sample frequencies of an n-point DFT with sample spacing d (float32 by default)."""
    return _frequencies(np.fft.fftfreq(n, d) if isinstance(n, numbers.Integral) and n > 0 else np.zeros(0),
                        n, d, dtype, "fftfreq")


def rfftfreq(n, d=1.0, dtype=None):
    return _frequencies(np.fft.rfftfreq(n, d) if isinstance(n, numbers.Integral) and n > 0 else np.zeros(0),
                        n, d, dtype, "rfftfreq")


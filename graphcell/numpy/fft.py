"""mindspore.numpy.fft: numpy's names for the FFT family (`a`, `axis`, `axes`, `x`), each the
graphcell.ops function of the same name (MindSpore 2.10's own are such wrappers, measured).
One departure: 2.10's ihfftn calls ops.hfftn (a real Float32 result, measured); graphcell's is
the inverse transform, ops.ihfftn."""
from __future__ import annotations

from ..ops import fft_ops as _ops

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2", "rfftn", "irfftn",
           "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftshift", "ifftshift", "fftfreq", "rfftfreq"]


def fftshift(x, axes=None):
    return _ops.fftshift(x, axes)


def ifftshift(x, axes=None):
    return _ops.ifftshift(x, axes)


def fft(a, n=None, axis=-1, norm=None):
    return _ops.fft(a, n, axis, norm)


def ifft(a, n=None, axis=-1, norm=None):
    return _ops.ifft(a, n, axis, norm)


def rfft(a, n=None, axis=-1, norm=None):
    return _ops.rfft(a, n, axis, norm)


def irfft(a, n=None, axis=-1, norm=None):
    return _ops.irfft(a, n, axis, norm)


def hfft(a, n=None, axis=-1, norm=None):
    return _ops.hfft(a, n, axis, norm)


def ihfft(a, n=None, axis=-1, norm=None):
    return _ops.ihfft(a, n, axis, norm)


def fft2(a, s=None, axes=(-2, -1), norm=None):
    return _ops.fft2(a, s, axes, norm)


def ifft2(a, s=None, axes=(-2, -1), norm=None):
    return _ops.ifft2(a, s, axes, norm)


def rfft2(a, s=None, axes=(-2, -1), norm=None):
    return _ops.rfft2(a, s, axes, norm)


def irfft2(a, s=None, axes=(-2, -1), norm=None):
    return _ops.irfft2(a, s, axes, norm)


def hfft2(a, s=None, axes=(-2, -1), norm=None):
    return _ops.hfft2(a, s, axes, norm)


def ihfft2(a, s=None, axes=(-2, -1), norm=None):
    return _ops.ihfft2(a, s, axes, norm)


def fftn(a, s=None, axes=None, norm=None):
    return _ops.fftn(a, s, axes, norm)


def ifftn(a, s=None, axes=None, norm=None):
    return _ops.ifftn(a, s, axes, norm)


def rfftn(a, s=None, axes=None, norm=None):
    return _ops.rfftn(a, s, axes, norm)


def irfftn(a, s=None, axes=None, norm=None):
    return _ops.irfftn(a, s, axes, norm)


def hfftn(a, s=None, axes=None, norm=None):
    return _ops.hfftn(a, s, axes, norm)


def ihfftn(a, s=None, axes=None, norm=None):
    return _ops.ihfftn(a, s, axes, norm)


def fftfreq(n, d=1.0, dtype=None):
    return _ops.fftfreq(n, d, dtype)


def rfftfreq(n, d=1.0, dtype=None):
    return _ops.rfftfreq(n, d, dtype)

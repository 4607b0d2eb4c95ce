"""Filter banks and the DCT matrix: create_dct, linear_fbanks, melscale_fbanks (2.10's float32 results),
and the windows the spectral transforms use."""
from __future__ import annotations

import math

import numpy as np

from . import _args
from .utils import MelType, NormMode, NormType, WindowType


def _hz_to_mel(freq, mel_type):
    if mel_type is MelType.HTK:
        return 2595.0 * np.log10(1.0 + np.asarray(freq, np.float64) / 700.0)
    freq = np.asarray(freq, np.float64)
    f_sp, min_log_hz, logstep = 200.0 / 3, 1000.0, math.log(6.4) / 27.0     # Slaney's auditory toolbox
    return np.where(freq >= min_log_hz, min_log_hz / f_sp + np.log(np.maximum(freq, 1e-30) / min_log_hz) / logstep,
                    freq / f_sp)


def _mel_to_hz(mels, mel_type):
    if mel_type is MelType.HTK:
        return 700.0 * (10.0 ** (mels / 2595.0) - 1.0)
    f_sp, min_log_hz, logstep = 200.0 / 3, 1000.0, math.log(6.4) / 27.0
    min_log_mel = min_log_hz / f_sp
    return np.where(mels >= min_log_mel, min_log_hz * np.exp(logstep * (mels - min_log_mel)), f_sp * mels)


def _triangles(all_freqs, f_pts):
    f_diff = np.diff(f_pts)
    slopes = f_pts[None, :] - all_freqs[:, None]
    down = -slopes[:, :-2] / f_diff[:-1]
    up = slopes[:, 2:] / f_diff[1:]
    return np.maximum(0.0, np.minimum(down, up))


def _check_bank(n_freqs, f_min, f_max, n_filters, filters_arg, sample_rate):
    _args.positive(n_freqs, "n_freqs", integer=True)
    _args.non_negative(f_min, "f_min")
    _args.positive(f_max, "f_max")
    _args.positive(n_filters, filters_arg, integer=True)
    _args.positive(sample_rate, "sample_rate", integer=True)
    if f_min > f_max:
        raise ValueError(f"Input f_min should be no more than f_max, but got f_min: {f_min} and f_max: {f_max}.")


def _mel_bank(n_freqs, f_min, f_max, n_mels, sample_rate, norm, mel_type) -> np.ndarray:
    all_freqs = np.linspace(0, sample_rate // 2, n_freqs)
    m_pts = np.linspace(_hz_to_mel(f_min, mel_type), _hz_to_mel(f_max, mel_type), n_mels + 2)
    f_pts = _mel_to_hz(m_pts, mel_type)
    fb = _triangles(all_freqs, f_pts)
    if norm is NormType.SLANEY:       # equal area per filter
        fb *= 2.0 / (f_pts[2:n_mels + 2] - f_pts[:n_mels])
    return fb


def melscale_fbanks(n_freqs, f_min, f_max, n_mels, sample_rate, norm=NormType.NONE, mel_type=MelType.HTK):
    """<n_freqs, n_mels> triangular mel filters, float32."""
    _check_bank(n_freqs, f_min, f_max, n_mels, "n_mels", sample_rate)
    _args.enum(norm, "norm", NormType)
    _args.enum(mel_type, "mel_type", MelType)
    return _mel_bank(n_freqs, f_min, f_max, n_mels, sample_rate, norm, mel_type).astype(np.float32)


def _linear_bank(n_freqs, f_min, f_max, n_filter, sample_rate):
    return _triangles(np.linspace(0, sample_rate // 2, n_freqs), np.linspace(f_min, f_max, n_filter + 2))


def linear_fbanks(n_freqs, f_min, f_max, n_filter, sample_rate):
    """<n_freqs, n_filter> triangular filters equally spaced in Hz, float32."""
    _check_bank(n_freqs, f_min, f_max, n_filter, "n_filter", sample_rate)
    return _linear_bank(n_freqs, f_min, f_max, n_filter, sample_rate).astype(np.float32)


def _dct(n_mfcc, n_mels, norm) -> np.ndarray:
    k = np.arange(n_mfcc)[:, None]
    dct = np.cos(math.pi / n_mels * (np.arange(n_mels) + 0.5) * k)
    if norm is NormMode.ORTHO:
        dct[0] *= 1.0 / math.sqrt(2.0)
        dct *= math.sqrt(2.0 / n_mels)
    else:
        dct *= 2.0
    return dct.T


def create_dct(n_mfcc, n_mels, norm=NormMode.NONE):
    """<n_mels, n_mfcc> DCT-II matrix (scaled orthonormal for NormMode.ORTHO), float32."""
    _args.check_type(n_mfcc, "n_mfcc", (int,))
    if n_mfcc <= 0:
        raise ValueError(f"n_mfcc must be greater than 0, but got {n_mfcc}.")
    _args.check_type(n_mels, "n_mels", (int,))
    if n_mels <= 0:
        raise ValueError(f"n_mels must be greater than 0, but got {n_mels}.")
    _args.enum(norm, "norm", NormMode)
    return _dct(n_mfcc, n_mels, norm).astype(np.float32)


def window(kind: WindowType, length: int, n_fft: int | None = None) -> np.ndarray:
    """A periodic window of `length`, centred in n_fft zeros when given (float64)."""
    n = np.arange(length)
    if kind is WindowType.HANN:
        w = 0.5 - 0.5 * np.cos(2 * math.pi * n / length)
    elif kind is WindowType.HAMMING:
        w = 0.54 - 0.46 * np.cos(2 * math.pi * n / length)
    elif kind is WindowType.BLACKMAN:
        w = 0.42 - 0.5 * np.cos(2 * math.pi * n / length) + 0.08 * np.cos(4 * math.pi * n / length)
    elif kind is WindowType.BARTLETT:
        w = 1 - np.abs(2 * n / length - 1)
    else:                                         # KAISER, beta 12 (torch's default)
        w = np.i0(12.0 * np.sqrt(np.clip(1 - (2 * n / length - 1) ** 2, 0, None))) / np.i0(12.0)
    if length == 1:
        w = np.ones(1)
    if n_fft is not None and n_fft > length:
        left = (n_fft - length) // 2
        w = np.pad(w, (left, n_fft - length - left))
    return w

"""Spectral transforms: STFT and its inverse, mel / linear filter banks applied to spectrograms, MFCC,
LFCC, spectral centroid, Griffin-Lim, phase vocoder, time stretch, pitch shift, decibels and deltas,
and the complex helpers (2.10's complex layout: a trailing axis of 2, real then imaginary).
Each computes in float64 and returns the input's float dtype (float32 for integers), except MFCC and
LFCC, which answer float32 as 2.10 does."""
from __future__ import annotations

import math

import numpy as np

from . import _args
from .fbanks import _dct, _linear_bank, _mel_bank, window as _window
from .utils import BorderType, MelType, NormMode, NormType, ScaleType, WindowType


def _frames_of(x: np.ndarray):
    return x.astype(np.float64).reshape(-1, x.shape[-1])


def _stft(w, n_fft, hop, win, center, pad_mode, onesided=True):
    """<batch, time> -> complex <batch, freq, frames>."""
    if center:
        w = np.pad(w, ((0, 0), (n_fft // 2, n_fft // 2)), mode=pad_mode.value)
    frames = np.lib.stride_tricks.sliding_window_view(w, n_fft, axis=1)[:, ::hop] * win
    spec = np.fft.rfft(frames, axis=-1) if onesided else np.fft.fft(frames, axis=-1)
    return spec.transpose(0, 2, 1)


def _istft(spec, n_fft, hop, win, center=True, length=None, onesided=True):
    """complex <batch, freq, frames> -> <batch, time>: windowed overlap-add over the window's envelope."""
    frames = np.fft.irfft(spec.transpose(0, 2, 1), n=n_fft, axis=-1) if onesided else \
        np.fft.ifft(spec.transpose(0, 2, 1), axis=-1).real
    frames = frames * win
    count = frames.shape[1]
    total = n_fft + hop * (count - 1)
    out, env = np.zeros((spec.shape[0], total)), np.zeros(total)
    for i in range(count):
        out[:, i * hop:i * hop + n_fft] += frames[:, i]
        env[i * hop:i * hop + n_fft] += win * win
    start = n_fft // 2 if center else 0
    end = total - (n_fft // 2 if center else 0) if length is None else start + length
    out, env = out[:, start:end], env[start:end]
    out = out / np.where(env > 1e-11, env, 1.0)
    if length is not None and out.shape[1] < length:
        out = np.pad(out, ((0, 0), (0, length - out.shape[1])))
    return out


def _check_fft(n_fft, win_length, hop_length):
    _args.positive(n_fft, "n_fft", integer=True)
    if win_length is not None:
        _args.positive(win_length, "win_length", integer=True)
        if win_length > n_fft:
            raise ValueError(f"Input win_length should be no more than n_fft, but got win_length: {win_length} "
                             f"and n_fft: {n_fft}.")
    if hop_length is not None:
        _args.positive(hop_length, "hop_length", integer=True)
    win_length = n_fft if win_length is None else win_length
    return win_length, win_length // 2 if hop_length is None else hop_length


def _to_complex(x: np.ndarray) -> np.ndarray:
    return x[..., 0].astype(np.float64) + 1j * x[..., 1].astype(np.float64)


def _from_complex(z: np.ndarray, dtype) -> np.ndarray:
    return np.stack([z.real, z.imag], -1).astype(dtype)


class Spectrogram:
    """|STFT|^power of <..., time> -> <..., freq, frames>."""

    def __init__(self, n_fft=400, win_length=None, hop_length=None, pad=0, window=WindowType.HANN, power=2.0,
                 normalized=False, center=True, pad_mode=BorderType.REFLECT, onesided=True):
        self.win_length, self.hop_length = _check_fft(n_fft, win_length, hop_length)
        self.n_fft, self.pad = n_fft, _args.non_negative(pad, "pad", integer=True)
        self.window = _args.enum(window, "window", WindowType)
        self.power = _args.non_negative(power, "power")
        self.normalized = _args.boolean(normalized, "normalized")
        self.center = _args.boolean(center, "center")
        self.pad_mode = _args.enum(pad_mode, "pad_mode", BorderType)
        self.onesided = _args.boolean(onesided, "onesided")

    def _complex(self, w):
        if self.pad:
            w = np.pad(w, ((0, 0), (self.pad, self.pad)))
        win = _window(self.window, self.win_length, self.n_fft)
        spec = _stft(w, self.n_fft, self.hop_length, win, self.center, self.pad_mode, self.onesided)
        return spec / math.sqrt((win ** 2).sum()) if self.normalized else spec

    def _magnitude(self, x):
        spec = np.abs(self._complex(_frames_of(x))) ** self.power
        return spec.reshape(x.shape[:-1] + spec.shape[1:])

    def __call__(self, waveform):
        x = _args.audio(waveform, "Spectrogram")
        return self._magnitude(x).astype(x.dtype)


class InverseSpectrogram:
    """Complex <..., freq, frames, 2> -> waveform <..., time> by inverse STFT."""

    def __init__(self, length=None, n_fft=400, win_length=None, hop_length=None, pad=0, window=WindowType.HANN,
                 normalized=False, center=True, pad_mode=BorderType.REFLECT, onesided=True):
        if length is not None:
            _args.non_negative(length, "length", integer=True)
        self.length = length
        self.win_length, self.hop_length = _check_fft(n_fft, win_length, hop_length)
        self.n_fft, self.pad = n_fft, _args.non_negative(pad, "pad", integer=True)
        self.window = _args.enum(window, "window", WindowType)
        self.normalized = _args.boolean(normalized, "normalized")
        self.center = _args.boolean(center, "center")
        self.pad_mode = _args.enum(pad_mode, "pad_mode", BorderType)
        self.onesided = _args.boolean(onesided, "onesided")

    def __call__(self, spectrogram):
        x = _args.complex_pairs(_args.audio(spectrogram, "InverseSpectrogram"), "InverseSpectrogram")
        z = _to_complex(x)
        z = z.reshape((-1,) + z.shape[-2:])
        win = _window(self.window, self.win_length, self.n_fft)
        if self.normalized:
            z = z * math.sqrt((win ** 2).sum())
        length = None if self.length is None else self.length + 2 * self.pad
        w = _istft(z, self.n_fft, self.hop_length, win, self.center, length, self.onesided)
        if self.pad:
            w = w[:, self.pad:-self.pad]
        return w.reshape(x.shape[:-3] + w.shape[-1:]).astype(x.dtype)


def _mel_check(n_mels, sample_rate, f_min, f_max):
    _args.positive(n_mels, "n_mels", integer=True)
    _args.positive(sample_rate, "sample_rate", integer=True)
    _args.non_negative(f_min, "f_min")
    f_max = sample_rate // 2 if f_max is None else _args.positive(f_max, "f_max")
    if f_min > f_max:
        raise ValueError(f"Input f_min should be no more than f_max, but got f_min: {f_min} and f_max: {f_max}.")
    return float(f_max)


def _apply_bank(spec, fb):
    """<..., freq, time> x <freq, n> -> <..., n, time>."""
    return np.einsum("...ft,fn->...nt", spec, fb)


class MelScale:
    """A power spectrogram <..., n_stft, time> -> mel bands <..., n_mels, time>."""

    def __init__(self, n_mels=128, sample_rate=16000, f_min=0.0, f_max=None, n_stft=201, norm=NormType.NONE,
                 mel_type=MelType.HTK):
        self.f_max = _mel_check(n_mels, sample_rate, f_min, f_max)
        self.n_mels, self.sample_rate, self.f_min = n_mels, sample_rate, f_min
        self.n_stft = _args.positive(n_stft, "n_stft", integer=True)
        self.norm, self.mel_type = _args.enum(norm, "norm", NormType), _args.enum(mel_type, "mel_type", MelType)

    def _bank(self):
        return _mel_bank(self.n_stft, self.f_min, self.f_max, self.n_mels, self.sample_rate, self.norm,
                         self.mel_type)

    def __call__(self, spectrogram):
        x = _args.rank_at_least(_args.audio(spectrogram, "MelScale"), "MelScale", 2, "<..., freq, time>")
        return _apply_bank(x.astype(np.float64), self._bank()).astype(x.dtype)


class InverseMelScale(MelScale):
    """Mel bands -> a non-negative linear spectrogram minimising ||fb^T spec - mel||, by projected gradient
    descent from a random start (2.10 runs SGD from its own random start: values differ, the fit holds)."""

    def __init__(self, n_stft, n_mels=128, sample_rate=16000, f_min=0.0, f_max=None, max_iter=100000,
                 tolerance_loss=1e-5, tolerance_change=1e-8, sgdargs=None, norm=NormType.NONE, mel_type=MelType.HTK):
        super().__init__(n_mels, sample_rate, f_min, f_max, n_stft, norm, mel_type)
        self.max_iter = _args.positive(max_iter, "max_iter", integer=True)
        self.tolerance_loss = _args.non_negative(tolerance_loss, "tolerance_loss")
        self.tolerance_change = _args.non_negative(tolerance_change, "tolerance_change")
        self.sgdargs = dict(sgd_lr=0.1, sgd_momentum=0.9) if sgdargs is None else dict(sgdargs)

    def __call__(self, melspec):
        from .effects import config
        x = _args.rank_at_least(_args.audio(melspec, "InverseMelScale"), "InverseMelScale", 2, "<..., freq, time>")
        fb = self._bank()                                             # <n_stft, n_mels>
        mel = x.astype(np.float64).reshape((-1,) + x.shape[-2:])
        rng = np.random.default_rng(config.seed_or_none())
        spec = rng.random((mel.shape[0], self.n_stft, mel.shape[2]))
        step = 1.0 / max(np.linalg.norm(fb, 2) ** 2, 1e-12)           # a safe step for the least squares
        prev = np.inf
        for _ in range(self.max_iter):
            diff = _apply_bank(spec, fb) - mel
            loss = float((diff ** 2).sum(-2).mean())
            if loss < self.tolerance_loss or abs(prev - loss) < self.tolerance_change:
                break
            prev = loss
            spec = np.maximum(spec - step * np.einsum("fn,bnt->bft", fb, diff), 0.0)
        return spec.reshape(x.shape[:-2] + spec.shape[-2:]).astype(x.dtype)


class MelSpectrogram(Spectrogram):
    def __init__(self, sample_rate=16000, n_fft=400, win_length=None, hop_length=None, f_min=0.0, f_max=None, pad=0,
                 n_mels=128, window=WindowType.HANN, power=2.0, normalized=False, center=True,
                 pad_mode=BorderType.REFLECT, onesided=True, norm=NormType.NONE, mel_scale=MelType.HTK):
        super().__init__(n_fft, win_length, hop_length, pad, window, power, normalized, center, pad_mode, onesided)
        self.mel = MelScale(n_mels, sample_rate, f_min, f_max, n_fft // 2 + 1, norm, mel_scale)

    def _mel(self, x):
        return _apply_bank(self._magnitude(x), self.mel._bank())

    def __call__(self, waveform):
        x = _args.audio(waveform, "MelSpectrogram")
        return self._mel(x).astype(x.dtype)


def _to_db(x, multiplier, amin, ref_value, top_db):
    db = multiplier * np.log10(np.maximum(x, amin)) - multiplier * math.log10(max(amin, ref_value))
    if top_db is not None:       # 2.10 clamps against the maximum of the whole input
        db = np.maximum(db, db.max() - top_db)
    return db


class AmplitudeToDB:
    def __init__(self, stype=ScaleType.POWER, ref_value=1.0, amin=1e-10, top_db=80.0):
        self.stype = _args.enum(stype, "stype", ScaleType)
        self.ref_value = _args.positive(ref_value, "ref_value")
        self.amin = _args.positive(amin, "amin")
        if top_db is not None:
            _args.positive(top_db, "top_db")
        self.top_db = top_db

    def __call__(self, waveform):
        x = _args.rank_at_least(_args.audio(waveform, "AmplitudeToDB"), "AmplitudeToDB", 2, "<..., freq, time>")
        multiplier = 10.0 if self.stype is ScaleType.POWER else 20.0
        return _to_db(x.astype(np.float64), multiplier, self.amin, self.ref_value, self.top_db).astype(x.dtype)


_MEL_KEYS = ("n_fft", "win_length", "hop_length", "f_min", "f_max", "pad", "n_mels", "window", "power", "normalized",
             "center", "pad_mode", "onesided", "norm", "mel_scale")
_SPEC_KEYS = ("n_fft", "win_length", "hop_length", "pad", "window", "power", "normalized", "center", "pad_mode",
              "onesided")
_MEL_DEFAULTS = dict(n_fft=400, win_length=None, hop_length=None, f_min=0.0, f_max=None, pad=0, n_mels=128,
                     window=WindowType.HANN, power=2.0, normalized=False, center=True, pad_mode=BorderType.REFLECT,
                     onesided=True, norm=NormType.NONE, mel_scale=MelType.HTK)


def _cepstrum(feats, dct, log, ):
    feats = np.log(feats + 1e-6) if log else _to_db(feats, 10.0, 1e-10, 1.0, 80.0)
    return np.einsum("...nt,nk->...kt", feats, dct).astype(np.float32)


class MFCC:
    """Mel-frequency cepstral coefficients <..., n_mfcc, time>, float32 (as 2.10)."""

    def __init__(self, sample_rate=16000, n_mfcc=40, dct_type=2, norm=NormMode.ORTHO, log_mels=False, melkwargs=None):
        _args.positive(sample_rate, "sample_rate", integer=True)
        self.n_mfcc = _args.positive(n_mfcc, "n_mfcc", integer=True)
        if dct_type != 2:
            raise ValueError(f"Input dct_type should be 2, but got {dct_type}.")
        self.norm, self.log_mels = _args.enum(norm, "norm", NormMode), _args.boolean(log_mels, "log_mels")
        kwargs = dict(_MEL_DEFAULTS)
        kwargs.update(melkwargs or {})
        self.melspec = MelSpectrogram(sample_rate=sample_rate, **{k: kwargs[k] for k in _MEL_KEYS})
        if self.n_mfcc > kwargs["n_mels"]:
            raise ValueError("Cannot select more MFCC coefficients than # mel bins")
        self.dct = _dct(self.n_mfcc, kwargs["n_mels"], self.norm)

    def __call__(self, waveform):
        x = _args.audio(waveform, "MFCC")
        return _cepstrum(self.melspec._mel(x), self.dct, self.log_mels)


class LFCC:
    """Linear-frequency cepstral coefficients <..., n_lfcc, time>, float32 (as 2.10)."""

    def __init__(self, sample_rate=16000, n_filter=128, n_lfcc=40, f_min=0.0, f_max=None, dct_type=2,
                 norm=NormMode.ORTHO, log_lf=False, speckwargs=None):
        self.sample_rate = _args.positive(sample_rate, "sample_rate", integer=True)
        self.n_filter = _args.positive(n_filter, "n_filter", integer=True)
        self.n_lfcc = _args.positive(n_lfcc, "n_lfcc", integer=True)
        self.f_min = _args.non_negative(f_min, "f_min")
        self.f_max = sample_rate // 2 if f_max is None else _args.positive(f_max, "f_max")
        if dct_type != 2:
            raise ValueError(f"Input dct_type should be 2, but got {dct_type}.")
        self.norm, self.log_lf = _args.enum(norm, "norm", NormMode), _args.boolean(log_lf, "log_lf")
        kwargs = {k: _MEL_DEFAULTS[k] for k in _SPEC_KEYS}
        kwargs.update(speckwargs or {})
        self.spectrogram = Spectrogram(**{k: kwargs[k] for k in _SPEC_KEYS})
        if self.n_lfcc > self.n_filter:
            raise ValueError("Cannot select more LFCC coefficients than # filter bins")
        self.bank = _linear_bank(kwargs["n_fft"] // 2 + 1, self.f_min, self.f_max, n_filter, sample_rate)
        self.dct = _dct(self.n_lfcc, n_filter, self.norm)

    def __call__(self, waveform):
        x = _args.audio(waveform, "LFCC")
        return _cepstrum(_apply_bank(self.spectrogram._magnitude(x), self.bank), self.dct, self.log_lf)


class SpectralCentroid(Spectrogram):
    """The magnitude-weighted mean frequency of each frame, <..., 1, frames>."""

    def __init__(self, sample_rate, n_fft=400, win_length=None, hop_length=None, pad=0, window=WindowType.HANN):
        super().__init__(n_fft, win_length, hop_length, pad, window, power=1.0)
        self.sample_rate = _args.positive(sample_rate, "sample_rate", integer=True)

    def __call__(self, waveform):
        x = _args.audio(waveform, "SpectralCentroid")
        spec = self._magnitude(x)
        freqs = np.linspace(0, self.sample_rate // 2, 1 + self.n_fft // 2)[:, None]
        return ((freqs * spec).sum(-2, keepdims=True) / spec.sum(-2, keepdims=True)).astype(x.dtype)


class GriffinLim:
    """A waveform from a magnitude (power) spectrogram <..., n_fft // 2 + 1, frames> by Griffin-Lim phase
    recovery with momentum. rand_init draws the start phase from a generator seeded from the dataset seed
    (2.10's draws are its own); rand_init=False starts from phase 0, deterministic. With `length`, 2.10's
    output changes from run to run (measured: the same call differs by up to 0.2 between processes), so
    here each iteration's inverse STFT is cut or padded to `length`, torchaudio's definition."""

    def __init__(self, n_fft=400, n_iter=32, win_length=None, hop_length=None, window_type=WindowType.HANN, power=2.0,
                 momentum=0.99, length=None, rand_init=True):
        self.win_length, self.hop_length = _check_fft(n_fft, win_length, hop_length)
        self.n_fft, self.n_iter = n_fft, _args.positive(n_iter, "n_iter", integer=True)
        self.window_type = _args.enum(window_type, "window_type", WindowType)
        self.power = _args.positive(power, "power")
        self.momentum = _args.non_negative(momentum, "momentum")
        if length is not None:
            _args.non_negative(length, "length", integer=True)
        self.length, self.rand_init = length, _args.boolean(rand_init, "rand_init")

    def __call__(self, specgram):
        from .effects import config
        x = _args.rank_at_least(_args.audio(specgram, "GriffinLim"), "GriffinLim", 2, "<..., freq, time>")
        if x.shape[-2] != self.n_fft // 2 + 1:
            raise RuntimeError("GriffinLim: the frequency of the input should equal to n_fft / 2 + 1")
        mag = (x.astype(np.float64) ** (1 / self.power)).reshape((-1,) + x.shape[-2:])
        win = _window(self.window_type, self.win_length, self.n_fft)
        if self.rand_init:
            rng = np.random.default_rng(config.seed_or_none())
            angles = rng.random(mag.shape) + 1j * rng.random(mag.shape)
        else:
            angles = np.ones(mag.shape, np.complex128)
        prev = 0.0
        for _ in range(self.n_iter):
            wave = _istft(mag * angles, self.n_fft, self.hop_length, win, True, self.length)
            rebuilt = _stft(wave, self.n_fft, self.hop_length, win, True, BorderType.REFLECT)
            frames = mag.shape[-1]           # a given length can change the frame count: keep the input's
            rebuilt = np.pad(rebuilt[..., :frames], ((0, 0), (0, 0), (0, max(0, frames - rebuilt.shape[-1]))))
            # 2.10 extrapolates past the new estimate by k = momentum / (1 + momentum) of the last step
            # (fitted to its n_iter = 1, 2, 3 outputs), not torchaudio's rebuilt - k * previous
            k = self.momentum / (1 + self.momentum)
            angles = rebuilt + k * (rebuilt - prev)
            angles = angles / (np.abs(angles) + 1e-16)
            prev = rebuilt
        wave = _istft(mag * angles, self.n_fft, self.hop_length, win, True, self.length)
        return wave.reshape(x.shape[:-2] + wave.shape[-1:]).astype(x.dtype)


def _phase_vocoder(z, rate, phase_advance):
    """Complex <batch, freq, time> stretched in time by 1 / rate, phases advanced coherently."""
    if rate == 1.0:
        return z
    steps = np.arange(0, z.shape[-1], rate)
    alphas = steps % 1.0
    phase_0 = np.angle(z[..., :1])
    z = np.pad(z, ((0, 0), (0, 0), (0, 2)))
    z0, z1 = z[..., steps.astype(np.int64)], z[..., (steps + 1).astype(np.int64)]
    phase = np.angle(z1) - np.angle(z0) - phase_advance
    phase = phase - 2 * math.pi * np.round(phase / (2 * math.pi)) + phase_advance
    phase_acc = np.cumsum(np.concatenate([phase_0, phase[..., :-1]], -1), -1)
    mag = alphas * np.abs(z1) + (1 - alphas) * np.abs(z0)
    return mag * np.exp(1j * phase_acc)


class PhaseVocoder:
    """Stretches a complex spectrogram <..., freq, time, 2> in time by 1 / rate (phase_advance <freq, 1>)."""

    def __init__(self, rate, phase_advance):
        self.rate = _args.positive(rate, "rate")
        self.phase_advance = phase_advance

    def __call__(self, waveform):
        x = _args.complex_pairs(_args.audio(waveform, "PhaseVocoder"), "PhaseVocoder")
        if np.asarray(self.phase_advance).dtype != x.dtype:
            raise RuntimeError(f"PhaseVocoder: invalid parameter, data type of phase_advance should be equal to "
                               f"data type of input tensor, but got: data type of phase_advance "
                               f"{np.asarray(self.phase_advance).dtype} while data type of input tensor {x.dtype}.")
        z = _to_complex(x)
        out = _phase_vocoder(z.reshape((-1,) + z.shape[-2:]), self.rate,
                             np.asarray(self.phase_advance, np.float64))
        return _from_complex(out.reshape(z.shape[:-1] + out.shape[-1:]), x.dtype)


class TimeStretch:
    """PhaseVocoder with the phase advance of an STFT of hop_length over n_freq bins; rate fixed_rate."""

    def __init__(self, hop_length=None, n_freq=201, fixed_rate=None):
        self.n_freq = _args.positive(n_freq, "n_freq", integer=True)
        self.hop_length = n_freq - 1 if hop_length is None else _args.positive(hop_length, "hop_length", integer=True)
        self.fixed_rate = 1.0 if fixed_rate is None else _args.positive(fixed_rate, "fixed_rate")

    def __call__(self, waveform):
        x = _args.rank_at_least(_args.complex_pairs(_args.audio(waveform, "TimeStretch"), "TimeStretch"),
                                "TimeStretch", 3, "<..., freq, num_frame, complex=2>")
        advance = np.linspace(0, math.pi * self.hop_length, x.shape[-3])[:, None]
        z = _to_complex(x)
        out = _phase_vocoder(z.reshape((-1,) + z.shape[-2:]), self.fixed_rate, advance)
        return _from_complex(out.reshape(z.shape[:-1] + out.shape[-1:]), x.dtype)


class PitchShift:
    """Shifts pitch by n_steps / bins_per_octave octaves: phase-vocoder stretch, then resampling back."""

    def __init__(self, sample_rate, n_steps, bins_per_octave=12, n_fft=512, win_length=None, hop_length=None,
                 window=WindowType.HANN):
        self.sample_rate = _args.positive(sample_rate, "sample_rate", integer=True)
        self.n_steps = _args.check_type(n_steps, "n_steps", (int,))
        self.bins_per_octave = _args.non_zero_int(bins_per_octave, "bins_per_octave")
        self.win_length, self.hop_length = _check_fft(n_fft, win_length, hop_length)
        self.n_fft, self.window = n_fft, _args.enum(window, "window", WindowType)

    def __call__(self, waveform):
        from .effects import Resample
        x = _args.audio(waveform, "PitchShift")
        w = _frames_of(x)
        n = w.shape[1]
        rate = 2.0 ** (-float(self.n_steps) / self.bins_per_octave)
        win = _window(self.window, self.win_length, self.n_fft)
        spec = _stft(w, self.n_fft, self.hop_length, win, True, BorderType.REFLECT)
        advance = np.linspace(0, math.pi * self.hop_length, spec.shape[-2])[:, None]
        stretched = _istft(_phase_vocoder(spec, rate, advance), self.n_fft, self.hop_length, win, True,
                           int(round(n / rate)))
        shifted = Resample(int(self.sample_rate / rate), self.sample_rate)(stretched)
        shifted = shifted[:, :n] if shifted.shape[1] >= n else np.pad(shifted, ((0, 0), (0, n - shifted.shape[1])))
        return shifted.reshape(x.shape).astype(x.dtype)


class ComputeDeltas:
    """Delta coefficients along time of <..., freq, time>: a regression over win_length frames."""

    def __init__(self, win_length=5, pad_mode=BorderType.EDGE):
        self.win_length = _args.number(win_length, "win_length", 3, _args.INT32_MAX, integer=True)
        self.pad_mode = _args.enum(pad_mode, "pad_mode", BorderType)

    def __call__(self, specgram):
        x = _args.rank_at_least(_args.audio(specgram, "ComputeDeltas"), "ComputeDeltas", 2, "<..., freq, time>")
        n = (self.win_length - 1) // 2
        s = np.pad(x.astype(np.float64), [(0, 0)] * (x.ndim - 1) + [(n, n)], mode=self.pad_mode.value)
        t = x.shape[-1]
        out = sum(k * s[..., n + k:n + k + t] for k in range(-n, n + 1))
        return (out / (n * (n + 1) * (2 * n + 1) / 3)).astype(x.dtype)


class Angle:
    """The phase of <..., complex=2>."""

    def __call__(self, waveform):
        x = _args.complex_pairs(_args.audio(waveform, "Angle"), "Angle")
        return np.arctan2(x[..., 1].astype(np.float64), x[..., 0]).astype(x.dtype)


class ComplexNorm:
    """|z| ** power of <..., complex=2>."""

    def __init__(self, power=1.0):
        self.power = _args.non_negative(power, "power")

    def __call__(self, waveform):
        x = _args.complex_pairs(_args.audio(waveform, "ComplexNorm"), "ComplexNorm")
        return (np.abs(_to_complex(x)) ** self.power).astype(x.dtype)


class Magphase(ComplexNorm):
    """(|z| ** power, phase) of <..., complex=2>."""

    def __call__(self, waveform):
        x = _args.complex_pairs(_args.audio(waveform, "Magphase"), "Magphase")
        z = _to_complex(x)
        return (np.abs(z) ** self.power).astype(x.dtype), np.angle(z).astype(x.dtype)

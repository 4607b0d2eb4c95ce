"""The IIR filters: the sox-style biquads (coefficients as torchaudio / 2.10 compute them), LFilter and
Filtfilt. Each runs scipy.signal.lfilter along the last axis and, as 2.10, clamps to [-1, 1] unless
told not to. Output keeps a float input's dtype; integer input is refused (2.10's message)."""
from __future__ import annotations

import math

import numpy as np
from scipy import signal

from . import _args


def _lfilter(x: np.ndarray, b, a, clamp=True) -> np.ndarray:
    y = signal.lfilter(np.asarray(b, np.float64), np.asarray(a, np.float64), x.astype(np.float64), axis=-1)
    if clamp:
        y = np.clip(y, -1.0, 1.0)
    return y.astype(x.dtype)


class _Biquad:
    """A second-order section b0..b2 / a0..a2 computed at construction."""

    def _coefficients(self):
        raise NotImplementedError

    def __call__(self, waveform):
        x = _args.audio(waveform, type(self).__name__, accept_int=False)
        b0, b1, b2, a0, a1, a2 = self._coefficients()
        return _lfilter(x, (b0, b1, b2), (a0, a1, a2))


def _q(Q):
    return _args.number(Q, "Q", 0, 1, left_open=True)


def _alpha(sample_rate, freq, Q):
    w0 = 2 * math.pi * freq / sample_rate
    return w0, math.sin(w0) / 2 / Q


class Biquad(_Biquad):
    def __init__(self, b0, b1, b2, a0, a1, a2):
        for name, v in zip(("b0", "b1", "b2"), (b0, b1, b2)):
            _args.number(v, name, -_args.FLOAT_MAX, _args.FLOAT_MAX)
        _args.non_zero(a0, "a0")
        for name, v in zip(("a1", "a2"), (a1, a2)):
            _args.number(v, name, -_args.FLOAT_MAX, _args.FLOAT_MAX)
        self.coefficients = (b0, b1, b2, a0, a1, a2)

    def _coefficients(self):
        return self.coefficients


class AllpassBiquad(_Biquad):
    def __init__(self, sample_rate, central_freq, Q=0.707):
        self.sample_rate, self.central_freq = _args.non_zero_int(sample_rate, "sample_rate"), central_freq
        _args.number(central_freq, "central_freq")
        self.Q = _q(Q)

    def _coefficients(self):
        w0, alpha = _alpha(self.sample_rate, self.central_freq, self.Q)
        return 1 - alpha, -2 * math.cos(w0), 1 + alpha, 1 + alpha, -2 * math.cos(w0), 1 - alpha


class BandBiquad(_Biquad):
    def __init__(self, sample_rate, central_freq, Q=0.707, noise=False):
        self.sample_rate = _args.non_zero_int(sample_rate, "sample_rate")
        self.central_freq = _args.number(central_freq, "central_freq")
        self.Q, self.noise = _q(Q), _args.boolean(noise, "noise")

    def _coefficients(self):
        w0 = 2 * math.pi * self.central_freq / self.sample_rate
        a2 = math.exp(-2 * math.pi * (self.central_freq / self.Q) / self.sample_rate)
        a1 = -4 * a2 / (1 + a2) * math.cos(w0)
        b0 = math.sqrt(1 - a1 * a1 / (4 * a2)) * (1 - a2)
        if self.noise:   # unity gain for noise rather than for tones
            b0 *= math.sqrt(((1 + a2) ** 2 - a1 * a1) * (1 - a2) / (1 + a2)) / b0
        return b0, 0.0, 0.0, 1.0, a1, a2


class BandpassBiquad(_Biquad):
    def __init__(self, sample_rate, central_freq, Q=0.707, const_skirt_gain=False):
        self.sample_rate = _args.non_zero_int(sample_rate, "sample_rate")
        self.central_freq = _args.number(central_freq, "central_freq")
        self.Q, self.const_skirt_gain = _q(Q), _args.boolean(const_skirt_gain, "const_skirt_gain")

    def _coefficients(self):
        w0, alpha = _alpha(self.sample_rate, self.central_freq, self.Q)
        gain = math.sin(w0) / 2 if self.const_skirt_gain else alpha
        return gain, 0.0, -gain, 1 + alpha, -2 * math.cos(w0), 1 - alpha


class BandrejectBiquad(_Biquad):
    def __init__(self, sample_rate, central_freq, Q=0.707):
        self.sample_rate = _args.non_zero_int(sample_rate, "sample_rate")
        self.central_freq, self.Q = _args.number(central_freq, "central_freq"), _q(Q)

    def _coefficients(self):
        w0, alpha = _alpha(self.sample_rate, self.central_freq, self.Q)
        return 1.0, -2 * math.cos(w0), 1.0, 1 + alpha, -2 * math.cos(w0), 1 - alpha


def _shelf_coefficients(sample_rate, freq, Q, gain, treble):
    """sox's bass / treble shelving filter."""
    w0, alpha = _alpha(sample_rate, freq, Q)
    A = math.exp(gain / 40 * math.log(10))
    t1, t2, t3 = 2 * math.sqrt(A) * alpha, (A - 1) * math.cos(w0), (A + 1) * math.cos(w0)
    if treble:
        return (A * ((A + 1) + t2 + t1), -2 * A * ((A - 1) + t3), A * ((A + 1) + t2 - t1),
                (A + 1) - t2 + t1, 2 * ((A - 1) - t3), (A + 1) - t2 - t1)
    return (A * ((A + 1) - t2 + t1), 2 * A * ((A - 1) - t3), A * ((A + 1) - t2 - t1),
            (A + 1) + t2 + t1, -2 * ((A - 1) + t3), (A + 1) + t2 - t1)


class _Shelf(_Biquad):
    """sox's bass (`TREBLE` False) or treble shelving filter."""
    TREBLE = False

    def __init__(self, sample_rate, gain, central_freq, Q=0.707):
        self.sample_rate = _args.non_zero_int(sample_rate, "sample_rate")
        self.gain = _args.number(gain, "gain", -_args.FLOAT_MAX, _args.FLOAT_MAX)
        self.central_freq, self.Q = _args.number(central_freq, "central_freq"), _q(Q)

    def _coefficients(self):
        return _shelf_coefficients(self.sample_rate, self.central_freq, self.Q, self.gain, self.TREBLE)


class BassBiquad(_Shelf):
    def __init__(self, sample_rate, gain, central_freq=100.0, Q=0.707):
        super().__init__(sample_rate, gain, central_freq, Q)


class TrebleBiquad(_Shelf):
    TREBLE = True

    def __init__(self, sample_rate, gain, central_freq=3000, Q=0.707):
        super().__init__(sample_rate, gain, central_freq, Q)


class EqualizerBiquad(_Biquad):
    def __init__(self, sample_rate, center_freq, gain, Q=0.707):
        self.sample_rate = _args.non_zero_int(sample_rate, "sample_rate")
        self.center_freq = _args.number(center_freq, "center_freq")
        self.gain, self.Q = _args.number(gain, "gain"), _q(Q)

    def _coefficients(self):
        w0, alpha = _alpha(self.sample_rate, self.center_freq, self.Q)
        A = math.exp(self.gain / 40 * math.log(10))
        return 1 + alpha * A, -2 * math.cos(w0), 1 - alpha * A, 1 + alpha / A, -2 * math.cos(w0), 1 - alpha / A


class HighpassBiquad(_Biquad):
    def __init__(self, sample_rate, cutoff_freq, Q=0.707):
        self.sample_rate = _args.non_zero_int(sample_rate, "sample_rate")
        self.cutoff_freq, self.Q = _args.number(cutoff_freq, "cutoff_freq"), _q(Q)

    def _coefficients(self):
        w0, alpha = _alpha(self.sample_rate, self.cutoff_freq, self.Q)
        c = math.cos(w0)
        return (1 + c) / 2, -1 - c, (1 + c) / 2, 1 + alpha, -2 * c, 1 - alpha


class LowpassBiquad(_Biquad):
    def __init__(self, sample_rate, cutoff_freq, Q=0.707):
        self.sample_rate = _args.non_zero_int(sample_rate, "sample_rate")
        self.cutoff_freq, self.Q = _args.number(cutoff_freq, "cutoff_freq"), _q(Q)

    def _coefficients(self):
        w0, alpha = _alpha(self.sample_rate, self.cutoff_freq, self.Q)
        c = math.cos(w0)
        return (1 - c) / 2, 1 - c, (1 - c) / 2, 1 + alpha, -2 * c, 1 - alpha


class DeemphBiquad(_Biquad):
    """CD de-emphasis (a treble shelf of sox's fixed design), at 44.1 or 48 kHz."""

    _DESIGN = {44100: (5283.0, 0.4845, -9.477), 48000: (5356.0, 0.479, -9.62)}

    def __init__(self, sample_rate):
        _args.check_type(sample_rate, "sample_rate", (int,))
        if sample_rate not in self._DESIGN:
            raise ValueError("Argument sample_rate should be 44100 or 48000, but got {}.".format(sample_rate))
        self.sample_rate = sample_rate

    def _coefficients(self):
        freq, slope, gain = self._DESIGN[self.sample_rate]
        w0 = 2 * math.pi * freq / self.sample_rate
        A = math.exp(gain / 40 * math.log(10))
        alpha = math.sin(w0) / 2 * math.sqrt((A + 1 / A) * (1 / slope - 1) + 2)
        t1, t2, t3 = 2 * math.sqrt(A) * alpha, (A - 1) * math.cos(w0), (A + 1) * math.cos(w0)
        return (A * ((A + 1) + t2 + t1), -2 * A * ((A - 1) + t3), A * ((A + 1) + t2 - t1),
                (A + 1) - t2 + t1, 2 * ((A - 1) - t3), (A + 1) - t2 - t1)


class RiaaBiquad(_Biquad):
    """RIAA vinyl playback equalisation (sox's zeros and poles), gain 1 at 1 kHz."""

    _DESIGN = {44100: ((-0.2014898, 0.9233820), (0.7083149, 0.9924091)),
               48000: ((-0.1766069, 0.9321590), (0.7396325, 0.9931330)),
               88200: ((-0.1168735, 0.9648312), (0.8590646, 0.9964002)),
               96000: ((-0.1141486, 0.9676817), (0.8699137, 0.9966946))}

    def __init__(self, sample_rate):
        _args.check_type(sample_rate, "sample_rate", (int,))
        if sample_rate not in self._DESIGN:
            raise ValueError("sample_rate should be one of [44100, 48000, 88200, 96000], but got {}.".format(
                sample_rate))
        self.sample_rate = sample_rate

    def _coefficients(self):
        (z0, z1), (p0, p1) = self._DESIGN[self.sample_rate]
        b = np.array([1.0, -(z0 + z1), z0 * z1])
        a = np.array([1.0, -(p0 + p1), p0 * p1])
        e = np.exp(-1j * 2 * math.pi * 1000 / self.sample_rate * np.arange(3))
        b = b * abs(a @ e) / abs(b @ e)
        return (*b, *a)


def _coeffs(values, arg):
    values = list(values) if not isinstance(values, np.ndarray) else values.tolist()
    for v in values:
        _args.number(v, arg)
    return values


class LFilter:
    """An IIR filter by difference equation: a_coeffs the denominator, b_coeffs the numerator."""

    def __init__(self, a_coeffs, b_coeffs, clamp=True):
        self.a_coeffs, self.b_coeffs = _coeffs(a_coeffs, "a_coeffs"), _coeffs(b_coeffs, "b_coeffs")
        if len(self.a_coeffs) != len(self.b_coeffs):
            raise ValueError("The size of a_coeffs should be the same as that of b_coeffs.")
        self.clamp = _args.boolean(clamp, "clamp")

    def _check(self, waveform):
        x = _args.audio(waveform, "LFilter", accept_int=False)
        if self.a_coeffs[0] == 0:
            raise RuntimeError(f"lfilter: a_coeffs[0] can not be equal to zero, but got: {self.a_coeffs[0]:.6f}")
        return x

    def __call__(self, waveform):
        return _lfilter(self._check(waveform), self.b_coeffs, self.a_coeffs, self.clamp)


class Filtfilt(LFilter):
    """LFilter forward, unclamped, then backward (clamped when clamp), for zero phase."""

    def __call__(self, waveform):
        x = self._check(waveform)
        forward = _lfilter(x, self.b_coeffs, self.a_coeffs, clamp=False)
        return _lfilter(forward[..., ::-1], self.b_coeffs, self.a_coeffs, self.clamp)[..., ::-1].copy()

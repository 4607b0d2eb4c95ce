"""Waveform effects (sox's, as torchaudio and 2.10 define them): gains, fades, contrast, DC shift,
overdrive, phaser, flanger, mu-law companding, pitch detection, resampling, sliding-window CMN and
dither. Each computes in float64 and returns the input's float dtype (float32 for integers)."""
from __future__ import annotations

import math
import threading

import numpy as np
from scipy import signal

from .. import config
from . import _args
from .utils import DensityFunction, FadeShape, GainType, Interpolation, Modulation, ResampleMethod


def _db_to_linear(db):
    return math.exp(db * math.log(10) / 20)


class Contrast:
    def __init__(self, enhancement_amount=75.0):
        self.enhancement_amount = _args.number(enhancement_amount, "enhancement_amount", 0, 100)

    def __call__(self, waveform):
        x = _args.audio(waveform, "Contrast")
        t = x.astype(np.float64) * (math.pi / 2)
        return np.sin(t + self.enhancement_amount / 750 * np.sin(t * 4)).astype(x.dtype)


class DBToAmplitude:
    def __init__(self, ref, power):
        self.ref = _args.number(ref, "ref", -_args.FLOAT_MAX, _args.FLOAT_MAX)
        self.power = _args.number(power, "power", -_args.FLOAT_MAX, _args.FLOAT_MAX)

    def __call__(self, waveform):
        x = _args.audio(waveform, "DBToAmplitude")
        return (self.ref * (10.0 ** (0.1 * x.astype(np.float64))) ** self.power).astype(x.dtype)


class DCShift:
    """Adds shift, then clamps to [-1, 1]; with limiter_gain, the samples past 1 - (|shift| - limiter_gain)
    are compressed by limiter_gain instead."""

    def __init__(self, shift, limiter_gain=None):
        self.shift = _args.number(shift, "shift", -2.0, 2.0)
        if limiter_gain is not None:
            _args.number(limiter_gain, "limiter_gain", -_args.FLOAT_MAX, _args.FLOAT_MAX)
        self.limiter_gain = limiter_gain

    def __call__(self, waveform):
        x = _args.audio(waveform, "DCShift")
        w = x.astype(np.float64)
        shift, gain = self.shift, self.limiter_gain
        out = np.clip(w + shift, -1, 1)
        if gain is not None and shift != 0:
            thr = 1.0 - (abs(shift) - gain)
            if shift > 0:
                mask = w > thr
                out[mask] = np.minimum((w[mask] - thr) * gain / (1 - thr) + thr + shift, thr)
            else:
                mask = w < -thr
                out[mask] = np.maximum((w[mask] + thr) * gain / (1 - thr) - thr + shift, -thr)
        return out.astype(x.dtype)


def _fade_curve(t, shape, fade_in):
    if shape is FadeShape.LINEAR:
        return t if fade_in else 1 - t
    if shape is FadeShape.EXPONENTIAL:
        # 2.10's curve (measured): t * 2^(t - 1) in, (1 - t) * 2^-t out; not sox's 2^(5 (t - 1))
        return t * 2.0 ** (t - 1) if fade_in else (1 - t) * 2.0 ** -t
    if shape is FadeShape.LOGARITHMIC:
        return np.log10(0.1 + t) + 1 if fade_in else np.log10(1.1 - t) + 1
    if shape is FadeShape.QUARTER_SINE:
        return np.sin(t * math.pi / 2) if fade_in else np.sin(t * math.pi / 2 + math.pi / 2)
    return np.sin(t * math.pi - math.pi / 2) / 2 + 0.5 if fade_in else np.sin(t * math.pi + math.pi / 2) / 2 + 0.5


class Fade:
    def __init__(self, fade_in_len=0, fade_out_len=0, fade_shape=FadeShape.LINEAR):
        self.fade_in_len = _args.non_negative(fade_in_len, "fade_in_len", integer=True)
        self.fade_out_len = _args.non_negative(fade_out_len, "fade_out_len", integer=True)
        self.fade_shape = _args.enum(fade_shape, "fade_shape", FadeShape)

    def __call__(self, waveform):
        x = _args.audio(waveform, "Fade")
        n = x.shape[-1]
        for name, length in (("fade_in_len", self.fade_in_len), ("fade_out_len", self.fade_out_len)):
            if length > n:
                raise RuntimeError(f"Fade: invalid parameter, '{name}' should be no greater than 'length of "
                                   f"waveform', but got: {name} {length} while length of waveform {n}.")
        gain = np.ones(n)
        gain[:self.fade_in_len] = _fade_curve(np.linspace(0, 1, self.fade_in_len), self.fade_shape, True)
        gain[n - self.fade_out_len:] *= _fade_curve(np.linspace(0, 1, self.fade_out_len), self.fade_shape, False)
        return (x.astype(np.float64) * gain).astype(x.dtype)


class Gain:
    def __init__(self, gain_db=1.0):
        self.gain_db = _args.number(gain_db, "gain_db", -_args.FLOAT_MAX, _args.FLOAT_MAX)

    def __call__(self, waveform):
        x = _args.audio(waveform, "Gain")
        return (x.astype(np.float64) * _db_to_linear(self.gain_db)).astype(x.dtype)


class Vol:
    """Scales by an amplitude ratio, a power ratio or decibels, then clamps to [-1, 1]."""

    def __init__(self, gain, gain_type=GainType.AMPLITUDE):
        self.gain_type = _args.enum(gain_type, "gain_type", GainType)
        if gain_type is GainType.AMPLITUDE:
            _args.non_negative(gain, "gain")
        elif gain_type is GainType.POWER:
            _args.positive(gain, "gain")
        else:
            _args.number(gain, "gain")
        self.gain = gain

    def __call__(self, waveform):
        x = _args.audio(waveform, "Vol")
        if self.gain_type is GainType.AMPLITUDE:
            scale = self.gain
        elif self.gain_type is GainType.DB:
            scale = _db_to_linear(self.gain)
        else:
            scale = _db_to_linear(10 * math.log10(self.gain))
        return np.clip(x.astype(np.float64) * scale, -1, 1).astype(x.dtype)


class Overdrive:
    """Soft-clipping distortion with sox's DC-blocking feedback (a first-order IIR)."""

    def __init__(self, gain=20.0, color=20.0):
        self.gain = _args.number(gain, "gain", 0, 100)
        self.color = _args.number(color, "color", 0, 100)

    def __call__(self, waveform):
        x = _args.audio(waveform, "Overdrive")
        w = x.astype(np.float64)
        t = w * _db_to_linear(self.gain) + self.color / 200
        t = np.where(t < -1, -2.0 / 3, np.where(t > 1, 2.0 / 3, t - t ** 3 / 3))
        # last_out[i] = t[i] - t[i-1] + 0.995 last_out[i-1]
        blocked = signal.lfilter([1.0, -1.0], [1.0, -0.995], t, axis=-1)
        return np.clip(w * 0.5 + blocked * 0.75, -1, 1).astype(x.dtype)


def _wave_table(sine: bool, as_int: bool, size: int, low: float, high: float, phase: float) -> np.ndarray:
    """sox's modulation table: one period of a sine or triangle from low to high, starting at phase."""
    point = (np.arange(size) + int(phase / math.pi / 2 * size + 0.5)) % size
    if sine:
        d = (np.sin(point / size * 2 * math.pi) + 1) / 2
    else:
        d = point * 2.0 / size
        quarter = 4 * point // size
        d = np.select([quarter == 0, quarter == 3], [d + 0.5, d - 1.5], 1.5 - d)
    d = d * (high - low) + low
    if as_int:     # rounded half away from zero (fitted to 2.10's delays, sine and triangle)
        return np.where(d < 0, d - 0.5, d + 0.5).astype(np.int64)
    return d.astype(np.float32).astype(np.float64)


class Phaser:
    def __init__(self, sample_rate, gain_in=0.4, gain_out=0.74, delay_ms=3.0, decay=0.4, mod_speed=0.5,
                 sinusoidal=True):
        self.sample_rate = _args.number(sample_rate, "sample_rate", -_args.INT32_MAX - 1, _args.INT32_MAX,
                                        integer=True)
        self.gain_in = _args.number(gain_in, "gain_in", 0, 1)
        self.gain_out = _args.number(gain_out, "gain_out", 0, 1e9)
        self.delay_ms = _args.number(delay_ms, "delay_ms", 0, 5.0)
        self.decay = _args.number(decay, "decay", 0, 0.99)
        self.mod_speed = _args.number(mod_speed, "mod_speed", 0.1, 2)
        self.sinusoidal = _args.boolean(sinusoidal, "sinusoidal")

    def __call__(self, waveform):
        x = _args.audio(waveform, "Phaser")
        w = x.astype(np.float64).reshape(-1, x.shape[-1]) * self.gain_in
        delay_len = int(self.delay_ms * 0.001 * self.sample_rate + 0.5)
        mod_len = int(self.sample_rate / self.mod_speed + 0.5)
        mod = _wave_table(self.sinusoidal, True, mod_len, 1.0, float(delay_len), math.pi / 2)
        # sample i feeds back the output delay_len + 1 - mod[i] samples earlier (2.10's delay line,
        # recovered sample by sample from its output on noise)
        lags = delay_len + 1 - mod[np.arange(w.shape[1]) % mod_len]
        out = np.empty_like(w)
        for i, lag in enumerate(lags):
            out[:, i] = w[:, i] + (out[:, i - lag] * self.decay if i >= lag else 0.0)
        return np.clip(out * self.gain_out, -1, 1).reshape(x.shape).astype(x.dtype)


class Flanger:
    """sox's flanger on <..., channel, time>: a modulated delay line with feedback, per channel phase."""

    def __init__(self, sample_rate, delay=0.0, depth=2.0, regen=0.0, width=71.0, speed=0.5, phase=25.0,
                 modulation=Modulation.SINUSOIDAL, interpolation=Interpolation.LINEAR):
        self.sample_rate = _args.non_zero_int(sample_rate, "sample_rate")
        self.delay = _args.number(delay, "delay", 0, 30)
        self.depth = _args.number(depth, "depth", 0, 10)
        self.regen = _args.number(regen, "regen", -95, 95)
        self.width = _args.number(width, "width", 0, 100)
        self.speed = _args.number(speed, "speed", 0.1, 10)
        self.phase = _args.number(phase, "phase", 0, 100)
        self.modulation = _args.enum(modulation, "modulation", Modulation)
        self.interpolation = _args.enum(interpolation, "interpolation", Interpolation)

    def __call__(self, waveform):
        x = _args.rank_at_least(_args.audio(waveform, "Flanger"), "Flanger", 2, "<..., channel, time>")
        w = x.astype(np.float64).reshape(-1, x.shape[-2], x.shape[-1])
        feedback, delay_gain = self.regen / 100, self.width / 100
        delay_min, delay_depth = self.delay / 1000, self.depth / 1000
        in_gain = 1.0 / (1 + delay_gain)
        delay_gain = delay_gain / (1 + delay_gain) * (1 - abs(feedback))
        buf_len = int((delay_min + delay_depth) * self.sample_rate + 0.5) + 2
        lfo_len = int(self.sample_rate / self.speed)
        lfo = _wave_table(self.modulation is Modulation.SINUSOIDAL, False, lfo_len,
                          float(math.floor(delay_min * self.sample_rate + 0.5)), buf_len - 2.0, 3 * math.pi / 2)
        channels = np.arange(w.shape[1])
        channel_phase = (channels * lfo_len * (self.phase / 100) + 0.5).astype(np.int64)
        bufs = np.zeros(w.shape[:2] + (buf_len,))
        last = np.zeros(w.shape[:2])
        out = np.empty_like(w)
        pos = lfo_pos = 0
        for i in range(w.shape[2]):
            pos = (pos + buf_len - 1) % buf_len
            d = lfo[(lfo_pos + channel_phase) % lfo_len]
            frac, k = d - np.floor(d), np.floor(d).astype(np.int64)
            bufs[:, :, pos] = w[:, :, i] + last * feedback
            d0, d1 = bufs[:, channels, (pos + k) % buf_len], bufs[:, channels, (pos + k + 1) % buf_len]
            if self.interpolation is Interpolation.LINEAR:
                delayed = d0 + (d1 - d0) * frac
            else:
                d2 = bufs[:, channels, (pos + k + 2) % buf_len] - d0
                d1 = d1 - d0
                delayed = d0 + ((d2 * 0.5 - d1) * frac + (d1 * 2 - d2 * 0.5)) * frac
            last = delayed
            out[:, :, i] = w[:, :, i] * in_gain + delayed * delay_gain
            lfo_pos = (lfo_pos + 1) % lfo_len
        return np.clip(out, -1, 1).reshape(x.shape).astype(x.dtype)


class MuLawEncoding:
    """[-1, 1] floats -> mu-law codes 0..quantization_channels-1 (int32, as 2.10)."""

    def __init__(self, quantization_channels=256):
        self.quantization_channels = _args.positive(quantization_channels, "quantization_channels", integer=True)

    def __call__(self, waveform):
        x = _args.audio(waveform, "MuLawEncoding").astype(np.float64)
        mu = self.quantization_channels - 1.0
        x_mu = np.sign(x) * np.log1p(mu * np.abs(x)) / math.log1p(mu)
        return ((x_mu + 1) / 2 * mu + 0.5).astype(np.int32)


class MuLawDecoding:
    """Mu-law codes -> [-1, 1] floats (float32 for integer codes)."""

    def __init__(self, quantization_channels=256):
        self.quantization_channels = _args.positive(quantization_channels, "quantization_channels", integer=True)

    def __call__(self, waveform):
        x = _args.audio(waveform, "MuLawDecoding")
        mu = self.quantization_channels - 1.0
        y = x.astype(np.float64) / mu * 2 - 1.0
        return (np.sign(y) * np.expm1(np.abs(y) * math.log1p(mu)) / mu).astype(x.dtype)


class DetectPitchFrequency:
    """Pitch per frame by normalised cross-correlation over lags, median-smoothed (torchaudio's method)."""

    def __init__(self, sample_rate, frame_time=0.01, win_length=30, freq_low=85, freq_high=3400):
        self.sample_rate = _args.non_zero_int(sample_rate, "sample_rate")
        self.frame_time = _args.positive(frame_time, "frame_time")
        self.win_length = _args.positive(win_length, "win_length", integer=True)
        self.freq_low = _args.positive(freq_low, "freq_low")
        self.freq_high = _args.positive(freq_high, "freq_high")

    def __call__(self, waveform):
        x = _args.audio(waveform, "DetectPitchFrequency")
        w = x.astype(np.float64).reshape(-1, x.shape[-1])
        sr, eps = self.sample_rate, 1e-9
        lags = int(math.ceil(sr / self.freq_low))
        frame = int(math.ceil(sr * self.frame_time))
        frames = int(math.ceil(w.shape[1] / frame))
        w = np.pad(w, ((0, 0), (0, lags + frames * frame - w.shape[1])))
        nccf = np.empty((w.shape[0], frames, lags))
        for lag in range(1, lags + 1):
            s1 = w[:, :frames * frame].reshape(w.shape[0], frames, frame)
            s2 = w[:, lag:lag + frames * frame].reshape(w.shape[0], frames, frame)
            nccf[:, :, lag - 1] = ((s1 * s2).sum(-1) / (eps + np.linalg.norm(s1, axis=-1)) ** 2
                                   / (eps + np.linalg.norm(s2, axis=-1)) ** 2)
        lag_min = int(math.ceil(sr / self.freq_high))
        best_i = np.argmax(nccf[..., lag_min:], -1)
        best_v = np.take_along_axis(nccf[..., lag_min:], best_i[..., None], -1)[..., 0]
        half = nccf[..., lag_min:lags // 2]
        if half.shape[-1]:        # prefer the half-range peak when nearly as strong (octave errors)
            half_i = np.argmax(half, -1)
            half_v = np.take_along_axis(half, half_i[..., None], -1)[..., 0]
            best_i = np.where(half_v > 0.99 * best_v, half_i, best_i)
        idx = best_i + lag_min + 1
        pad = (self.win_length - 1) // 2
        idx = np.concatenate([np.repeat(idx[:, :1], pad, 1), idx], 1)
        windows = np.lib.stride_tricks.sliding_window_view(idx, self.win_length, axis=1)
        med = np.sort(windows, -1)[..., (self.win_length - 1) // 2]        # the lower median
        freq = sr / (eps + med.astype(np.float32))
        return freq.reshape(x.shape[:-1] + freq.shape[-1:]).astype(x.dtype)


def _sinc_rows(phases, orig, new, width_zeros, rolloff, kaiser, beta):
    """The windowed-sinc filter of each output phase (rows), over the 2 width + orig input taps around it."""
    base = min(orig, new) * rolloff
    width = math.ceil(width_zeros * orig / base)
    t = (-phases[:, None] / new + np.arange(-width, width + orig)[None, :] / orig) * base
    t = np.clip(t, -width_zeros, width_zeros)
    if kaiser:
        beta = 14.769656459379492 if beta is None else beta
        win = np.i0(beta * np.sqrt(1 - (t / width_zeros) ** 2)) / np.i0(beta)
    else:
        win = np.cos(t * math.pi / width_zeros / 2) ** 2
    t = t * math.pi
    with np.errstate(invalid="ignore", divide="ignore"):
        k = np.where(t == 0, 1.0, np.sin(t) / t)
    return k * win * (base / orig), width


class Resample:
    """Band-limited resampling by a windowed-sinc polyphase filter (Hann or Kaiser window)."""

    def __init__(self, orig_freq=16000, new_freq=16000, resample_method=ResampleMethod.SINC_INTERPOLATION,
                 lowpass_filter_width=6, rolloff=0.99, beta=None):
        self.orig_freq = _args.positive(orig_freq, "orig_freq")
        self.new_freq = _args.positive(new_freq, "new_freq")
        self.resample_method = _args.enum(resample_method, "resample_method", ResampleMethod)
        self.lowpass_filter_width = _args.positive(lowpass_filter_width, "lowpass_filter_width", integer=True)
        self.rolloff = _args.number(rolloff, "rolloff", 0, 1, left_open=True)
        if beta is not None:
            _args.positive(beta, "beta")
        self.beta = beta

    def __call__(self, waveform):
        x = _args.audio(waveform, "Resample")
        if self.orig_freq == self.new_freq:
            return x.copy()
        gcd = math.gcd(int(self.orig_freq), int(self.new_freq))
        orig, new = int(self.orig_freq) // gcd, int(self.new_freq) // gcd
        w = x.astype(np.float64).reshape(-1, x.shape[-1])
        length = w.shape[1]
        # only the output samples kept are computed: output j is phase j % new of input block j // new
        j = np.arange(int(math.ceil(new * length / orig)))
        rows, width = _sinc_rows(j % new, orig, new, self.lowpass_filter_width, self.rolloff,
                                 self.resample_method is ResampleMethod.KAISER_WINDOW, self.beta)
        w = np.pad(w, ((0, 0), (width, width + orig)))
        taps = (j // new * orig)[:, None] + np.arange(rows.shape[1])[None, :]
        out = np.einsum("bjk,jk->bj", w[:, taps], rows)
        return out.reshape(x.shape[:-1] + out.shape[-1:]).astype(x.dtype)


class SlidingWindowCmn:
    """Cepstral mean (and variance) normalisation over a sliding window of frames, on <..., time, freq>
    (Kaldi's apply-cmvn-sliding)."""

    def __init__(self, cmn_window=600, min_cmn_window=100, center=False, norm_vars=False):
        self.cmn_window = _args.non_negative(cmn_window, "cmn_window", integer=True)
        self.min_cmn_window = _args.non_negative(min_cmn_window, "min_cmn_window", integer=True)
        self.center = _args.boolean(center, "center")
        self.norm_vars = _args.boolean(norm_vars, "norm_vars")

    def _window(self, t, n):
        if self.center:
            start = t - self.cmn_window // 2
            end = start + self.cmn_window
        else:
            start, end = t - self.cmn_window, t + 1
        if start < 0:
            end -= start
            start = 0
        if not self.center and end > t:
            end = max(t + 1, self.min_cmn_window)
        if end > n:
            start = max(0, start - (end - n))
            end = n
        return start, end

    def __call__(self, specgram):
        x = _args.rank_at_least(_args.audio(specgram, "SlidingWindowCmn"), "SlidingWindowCmn", 2,
                                "<..., time, freq>")
        s = x.astype(np.float64).reshape((-1,) + x.shape[-2:])
        n = s.shape[1]
        csum = np.concatenate([np.zeros_like(s[:, :1]), np.cumsum(s, 1)], 1)
        csq = np.concatenate([np.zeros_like(s[:, :1]), np.cumsum(s * s, 1)], 1)
        out = np.empty_like(s)
        for t in range(n):
            start, end = self._window(t, n)
            frames = end - start
            mean = (csum[:, end] - csum[:, start]) / frames
            out[:, t] = s[:, t] - mean
            if self.norm_vars:
                if frames == 1:
                    out[:, t] = 0
                else:
                    var = (csq[:, end] - csq[:, start]) / frames - mean ** 2
                    out[:, t] *= var ** -0.5
        return out.reshape(x.shape).astype(x.dtype)


class Dither:
    """Requantises to 16 bits with dither: TPDF adds a triangular (Bartlett) ramp over time, which is
    deterministic; RPDF and GPDF add a sample (or a sum of 7) drawn from the signal itself at random
    positions, drawn from a generator seeded from the dataset seed (not 2.10's stream).
    noise_shaping adds each sample's quantisation error to the next one."""

    def __init__(self, density_function=DensityFunction.TPDF, noise_shaping=False):
        self.density_function = _args.enum(density_function, "density_function", DensityFunction)
        self.noise_shaping = _args.boolean(noise_shaping, "noise_shaping")
        self._rng = np.random.default_rng(config.seed_or_none())
        self._lock = threading.Lock()

    def _draw(self, high: int) -> int:
        with self._lock:
            return int(self._rng.integers(0, high)) if high > 0 else 0

    def __call__(self, waveform):
        x = _args.audio(waveform, "Dither")
        w = x.astype(np.float64).reshape(-1, x.shape[-1])
        channels, times = w.shape[0] - 1, w.shape[1] - 1
        scaled = w * (2 ** 15 - 2)
        if self.density_function is DensityFunction.RPDF:
            noise = w[self._draw(channels), self._draw(times)] - 0.5
        elif self.density_function is DensityFunction.GPDF:
            noise = w[self._draw(channels), self._draw(times)]
            for _ in range(6):
                noise = noise + w[self._draw(channels), self._draw(times)]
        else:
            noise = np.bartlett(times + 2)[:-1] if times > 0 else np.zeros(1)   # torch's periodic Bartlett
        dithered = np.round(scaled + noise) / 2 ** 15
        if self.noise_shaping:
            error = dithered - w
            dithered = dithered + np.concatenate([np.zeros((w.shape[0], 1)), error[:, :-1]], 1)
        return dithered.reshape(x.shape).astype(x.dtype)

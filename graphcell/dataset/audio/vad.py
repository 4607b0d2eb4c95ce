"""Vad: sox's voice-activity detector, trimming the quiet start of a waveform <..., time>.

Every `1 / measure_freq` seconds a spectral measure is taken over the last `measure_duration` seconds: the
windowed spectrum between hp_filter_freq and lp_filter_freq, smoothed in time, less a running noise estimate
(learned during boot_time), then the power of its cepstrum between the lifter bounds, as 21 + log. Once the
measure, smoothed over trigger_time, reaches trigger_level, the output starts from the earliest search_time
measure still above the level (gaps up to allowed_gap bridged), less pre_trigger_time. Without a trigger, the
output is the last stretch of samples the detector buffers.
"""
from __future__ import annotations

import math

import numpy as np

from . import _args


def _scaled_hann(n: int) -> np.ndarray:
    """sox's analysis window: a periodic Hann scaled by 2 / sqrt(n) (empty for n = 0, which 2.10 accepts)."""
    return 2.0 / math.sqrt(max(n, 1)) * (0.5 - 0.5 * np.cos(2 * math.pi * np.arange(n) / max(n, 1)))


def _decay(time, measure_freq):
    """The per-measure factor of a smoothing over `time` seconds; a zero time keeps no memory (2.10 accepts 0)."""
    return math.exp(-1.0 / (time * measure_freq)) if time > 0 else 0.0


class _Detector:
    """The measure's constants, from the arguments and the sample rate."""

    def __init__(self, v, sample_rate):
        measure_duration = 2.0 / v.measure_freq if v.measure_duration is None else v.measure_duration
        self.measure_len = int(sample_rate * measure_duration + 0.5)
        self.dft_len = 16
        while self.dft_len < self.measure_len:
            self.dft_len *= 2
        self.measure_period = int(sample_rate / v.measure_freq + 0.5)
        self.measures_len = math.ceil(v.search_time * v.measure_freq)
        self.gap_len = int(v.allowed_gap * v.measure_freq + 0.5)
        self.pre_trigger_len = int(v.pre_trigger_time * sample_rate + 0.5)
        self.buffer_len = self.pre_trigger_len + self.measures_len * self.measure_period + self.measure_len
        self.spectrum_window = _scaled_hann(self.measure_len)
        self.spectrum_start = max(int(v.hp_filter_freq / sample_rate * self.dft_len + 0.5), 1)
        self.spectrum_end = min(int(v.lp_filter_freq / sample_rate * self.dft_len + 0.5), self.dft_len // 2)
        bins = self.spectrum_end - self.spectrum_start
        self.cepstrum_window = _scaled_hann(bins)
        self.cepstrum_start = math.ceil(sample_rate * 0.5 / v.lp_lifter_freq)
        self.cepstrum_end = min(math.floor(sample_rate * 0.5 / v.hp_lifter_freq), self.dft_len // 4)
        if self.cepstrum_end <= self.cepstrum_start:
            raise RuntimeError("Vad: the end of cepstrum must be greater than the start. Check if `hp_lifter_freq` is "
                               "too large or `lp_lifter_freq` is too small.")
        self.noise_up = _decay(v.noise_up_time, v.measure_freq)
        self.noise_down = _decay(v.noise_down_time, v.measure_freq)
        self.smooth = _decay(v.measure_smooth_time, v.measure_freq)
        self.trigger_mult = _decay(v.trigger_time, v.measure_freq)
        self.boot_count_max = int(v.boot_time * v.measure_freq - 0.5)
        self.noise_reduction = v.noise_reduction_amount

    def measure(self, frame, spectrum, noise, boot_count):
        """One measure of a channel; updates its smoothed spectrum and noise estimate in place."""
        lo, hi = self.spectrum_start, self.spectrum_end
        buf = np.zeros(self.dft_len)
        buf[:self.measure_len] = frame * self.spectrum_window
        mag = np.abs(np.fft.rfft(buf)[lo:hi])
        mult = boot_count / (1.0 + boot_count) if boot_count >= 0 else self.smooth
        spectrum[lo:hi] = spectrum[lo:hi] * mult + mag * (1 - mult)
        power = spectrum[lo:hi] ** 2
        if boot_count >= 0:
            noise[lo:hi] = power
        else:
            up = np.where(power > noise[lo:hi], self.noise_up, self.noise_down)
            noise[lo:hi] = noise[lo:hi] * up + power * (1 - up)
        clean = np.sqrt(np.maximum(0.0, power - self.noise_reduction * noise[lo:hi]))
        ceps = np.zeros(self.dft_len // 2)
        ceps[lo:hi] = clean * self.cepstrum_window
        total = float(np.sum(np.abs(np.fft.rfft(ceps)[self.cepstrum_start:self.cepstrum_end]) ** 2))
        result = math.log(total / (self.cepstrum_end - self.cepstrum_start)) if total > 0 else -math.inf
        return max(0.0, 21 + result)


def _trim_start(d: _Detector, x: np.ndarray, trigger_level: float) -> np.ndarray:
    """<channel, time> from the detected start: measures every measure_period samples from sample
    measure_len - 1 on, one running trigger mean over all channels in turn (sox's order)."""
    channels, length = x.shape
    n = d.measures_len
    spectrum, noise = np.zeros((channels, d.dft_len)), np.zeros((channels, d.dft_len))
    measures = np.zeros((channels, n))
    mean, boot_count, index, to_flush, triggered = 0.0, 0, 0, 0, False
    pos = d.measure_len - 1 if d.measure_len else length    # sox's timer never fires for a zero length
    while pos < length:
        for c in range(channels):
            frame = x[c, max(0, pos - d.measure_len):pos]
            frame = np.concatenate([np.zeros(d.measure_len - frame.size), frame])
            measures[c, index] = m = d.measure(frame, spectrum[c], noise[c], boot_count)
            mean = mean * d.trigger_mult + m * (1.0 - d.trigger_mult)
            triggered = triggered or mean >= trigger_level
            if triggered:      # the earliest recent measure above the level, gaps bridged
                last_above = first_zero = n
                for j in range(n):
                    value = measures[c, (index - j) % n]
                    if value >= trigger_level and j <= last_above + d.gap_len:
                        first_zero = last_above = j
                    elif value == 0 and last_above >= first_zero:
                        first_zero = j
                to_flush = min(max(to_flush, min(n, first_zero)), n)
        pos += 1
        index = (index + 1) % n
        if boot_count >= 0:
            boot_count = -1 if boot_count == d.boot_count_max else boot_count + 1
        if triggered:
            return x[:, max(0, pos - d.buffer_len + (n - to_flush) * d.measure_period):]
        pos += d.measure_period - 1
    return x[:, max(0, length - d.buffer_len):]


class Vad:
    def __init__(self, sample_rate, trigger_level=7.0, trigger_time=0.25, search_time=1.0, allowed_gap=0.25,
                 pre_trigger_time=0.0, boot_time=0.35, noise_up_time=0.1, noise_down_time=0.01,
                 noise_reduction_amount=1.35, measure_freq=20.0, measure_duration=None, measure_smooth_time=0.4,
                 hp_filter_freq=50.0, lp_filter_freq=6000.0, hp_lifter_freq=150.0, lp_lifter_freq=2000.0):
        self.sample_rate = _args.positive(sample_rate, "sample_rate", integer=True)
        _args.check_type(trigger_level, "trigger_level", (int, float))       # 2.10 names int first here
        self.trigger_level = _args.number(trigger_level, "trigger_level", -_args.FLOAT_MAX, _args.FLOAT_MAX)
        for name in ("trigger_time", "search_time", "allowed_gap", "pre_trigger_time", "boot_time", "noise_up_time",
                     "noise_down_time", "noise_reduction_amount"):
            setattr(self, name, _args.non_negative(locals()[name], name))
        if noise_up_time <= noise_down_time:
            raise ValueError(f"Input noise_up_time should be greater than noise_down_time, but got noise_up_time: "
                             f"{noise_up_time} and noise_down_time: {noise_down_time}.")
        self.measure_freq = _args.positive(measure_freq, "measure_freq")
        if measure_duration is not None:
            _args.non_negative(measure_duration, "measure_duration")
        self.measure_duration = measure_duration
        self.measure_smooth_time = _args.non_negative(measure_smooth_time, "measure_smooth_time")
        for name in ("hp_filter_freq", "lp_filter_freq", "hp_lifter_freq", "lp_lifter_freq"):
            setattr(self, name, _args.positive(locals()[name], name))

    def __call__(self, waveform):
        x = _args.audio(waveform, "Vad")
        if x.ndim == 0 or x.shape[-1] == 0:
            return x
        flat = x.reshape(-1, x.shape[-1]).astype(np.float64)
        out = _trim_start(_Detector(self, self.sample_rate), flat, self.trigger_level)
        return out.reshape(x.shape[:-1] + out.shape[-1:]).astype(x.dtype)

"""mindspore.dataset.audio: audio transforms for `map`, on numpy waveforms <..., time>, spectrograms
<..., freq, time> and complex spectrograms <..., freq, time, 2> (MindSpore 2.10's names, arguments,
defaults, output dtypes and messages, measured):

    ds = ds.map(operations=[audio.Resample(16000, 8000), audio.MelSpectrogram(8000, n_fft=256)],
                input_columns="waveform")

Modules by job: filters (biquads, LFilter, Filtfilt), effects (gains, fades, sox effects, resampling,
pitch, dither), spectral (STFT family, mel, cepstra, phase vocoder), masking, fbanks, vad (sox's
voice-activity detector), utils (enums).
"""
from . import transforms, utils  # noqa: F401 - mindspore.dataset.audio.transforms / .utils
from .transforms import *  # noqa: F401,F403
from .utils import (BorderType, DensityFunction, FadeShape, GainType, Interpolation, MelType,  # noqa: F401
                    Modulation, NormMode, NormType, ResampleMethod, ScaleType, WindowType, create_dct,
                    linear_fbanks, melscale_fbanks)

"""mindspore.dataset.audio.transforms: every audio transform class, from the modules that define them."""
from .effects import (Contrast, DBToAmplitude, DCShift, DetectPitchFrequency, Dither, Fade, Flanger, Gain,  # noqa: F401
                      MuLawDecoding, MuLawEncoding, Overdrive, Phaser, Resample, SlidingWindowCmn, Vol)
from .filters import (AllpassBiquad, BandBiquad, BandpassBiquad, BandrejectBiquad, BassBiquad, Biquad,  # noqa: F401
                      DeemphBiquad, EqualizerBiquad, Filtfilt, HighpassBiquad, LFilter, LowpassBiquad, RiaaBiquad,
                      TrebleBiquad)
from .masking import FrequencyMasking, MaskAlongAxis, MaskAlongAxisIID, TimeMasking  # noqa: F401
from .spectral import (LFCC, MFCC, AmplitudeToDB, Angle, ComplexNorm, ComputeDeltas, GriffinLim,  # noqa: F401
                       InverseMelScale, InverseSpectrogram, Magphase, MelScale, MelSpectrogram, PhaseVocoder,
                       PitchShift, SpectralCentroid, Spectrogram, TimeStretch)
from .vad import Vad  # noqa: F401

__all__ = [name for name in dir() if name[:1].isupper()]

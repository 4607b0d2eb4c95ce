"""mindspore.dataset.audio.utils: the enums the audio transforms take (2.10's names and values), and
the filter-bank helpers create_dct, linear_fbanks and melscale_fbanks (defined in .fbanks)."""
import enum


class BorderType(str, enum.Enum):
    """How a signal is padded at its ends (numpy.pad's modes)."""
    CONSTANT = "constant"
    EDGE = "edge"
    REFLECT = "reflect"
    SYMMETRIC = "symmetric"


class DensityFunction(str, enum.Enum):
    TPDF = "TPDF"
    RPDF = "RPDF"
    GPDF = "GPDF"


class FadeShape(str, enum.Enum):
    QUARTER_SINE = "quarter_sine"
    HALF_SINE = "half_sine"
    LINEAR = "linear"
    LOGARITHMIC = "logarithmic"
    EXPONENTIAL = "exponential"


class GainType(str, enum.Enum):
    AMPLITUDE = "amplitude"
    POWER = "power"
    DB = "db"


class Interpolation(str, enum.Enum):
    LINEAR = "linear"
    QUADRATIC = "quadratic"


class MelType(str, enum.Enum):
    HTK = "htk"
    SLANEY = "slaney"


class Modulation(str, enum.Enum):
    SINUSOIDAL = "sinusoidal"
    TRIANGULAR = "triangular"


class NormMode(str, enum.Enum):
    ORTHO = "ortho"
    NONE = "none"


class NormType(str, enum.Enum):
    SLANEY = "slaney"
    NONE = "none"


class ResampleMethod(str, enum.Enum):
    SINC_INTERPOLATION = "sinc_interpolation"
    KAISER_WINDOW = "kaiser_window"


class ScaleType(str, enum.Enum):
    POWER = "power"
    MAGNITUDE = "magnitude"


class WindowType(str, enum.Enum):
    BARTLETT = "bartlett"
    BLACKMAN = "blackman"
    HAMMING = "hamming"
    HANN = "hann"
    KAISER = "kaiser"


from .fbanks import create_dct, linear_fbanks, melscale_fbanks  # noqa: E402,F401 - 2.10's audio.utils has them

"""mindspore.dataset.vision.utils: the enums the vision transforms take."""
import enum


class Inter(enum.IntEnum):
    """Interpolation modes (2.10's values and canonical names: LINEAR and CUBIC are aliases)."""
    NEAREST = 0
    ANTIALIAS = 1
    BILINEAR = 2
    LINEAR = 2
    BICUBIC = 3
    CUBIC = 3
    AREA = 4
    PILCUBIC = 5


class Border(enum.Enum):
    """Padding modes, as numpy.pad's."""
    CONSTANT = "constant"
    EDGE = "edge"
    REFLECT = "reflect"
    SYMMETRIC = "symmetric"


class ConvertMode(enum.IntEnum):
    """ConvertColor's modes (2.10's values; the RGB names alias the BGR ones they equal)."""
    COLOR_BGR2BGRA = 0
    COLOR_RGB2RGBA = 0
    COLOR_BGRA2BGR = 1
    COLOR_RGBA2RGB = 1
    COLOR_BGR2RGBA = 2
    COLOR_RGB2BGRA = 2
    COLOR_RGBA2BGR = 3
    COLOR_BGRA2RGB = 3
    COLOR_BGR2RGB = 4
    COLOR_RGB2BGR = 4
    COLOR_BGRA2RGBA = 5
    COLOR_RGBA2BGRA = 5
    COLOR_BGR2GRAY = 6
    COLOR_RGB2GRAY = 7
    COLOR_GRAY2BGR = 8
    COLOR_GRAY2RGB = 8
    COLOR_GRAY2BGRA = 9
    COLOR_GRAY2RGBA = 9
    COLOR_BGRA2GRAY = 10
    COLOR_RGBA2GRAY = 11


class ImageBatchFormat(enum.IntEnum):
    """The layout of CutMixBatch's image batches (2.10's values)."""
    NHWC = 0
    NCHW = 1


class SliceMode(enum.IntEnum):
    """How SlicePatches treats a remainder: PAD pads the image up to whole patches, DROP drops it."""
    PAD = 0
    DROP = 1

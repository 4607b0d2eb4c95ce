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

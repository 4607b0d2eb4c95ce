"""mindspore.dataset.audio: audio transforms for `map`, on numpy waveforms and spectrograms."""
from .filters import *  # noqa
from .utils import *  # noqa
from .effects import *  # noqa

"""mindspore.dataset.transforms: the general data transforms for `map` (defined in .transforms,
as in 2.10, where `mindspore.dataset.transforms.transforms` is the same classes)."""
from . import transforms  # noqa: F401 - mindspore.dataset.transforms.transforms
from .transforms import Compose, OneHot, PadEnd, TypeCast  # noqa: F401

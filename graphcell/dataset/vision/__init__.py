"""mindspore.dataset.vision: image transforms for `map` (defined in .transforms, as in 2.10,
where `from mindspore.dataset.vision import transforms` is the same classes), and the enums of
.utils."""
from . import transforms, utils  # noqa: F401 - mindspore.dataset.vision.transforms / .utils
from .transforms import (CenterCrop, ConvertColor, HorizontalFlip, HWC2CHW, Normalize, Pad, RandomCrop,  # noqa: F401
                         RandomHorizontalFlip, RandomResizedCrop, RandomVerticalFlip, Rescale, Resize, Rotate, ToTensor,
                         VerticalFlip)
from .transforms import (AdjustBrightness, AdjustContrast, AdjustGamma, AdjustHue, AdjustSaturation,  # noqa: F401
                         AdjustSharpness, Affine, AutoContrast, Crop, CutMixBatch, CutOut, Equalize, Erase, FiveCrop,
                         GaussianBlur, Grayscale, HsvToRgb, Invert, LinearTransformation, MixUpBatch, NormalizePad,
                         PadToSize, Posterize, RandomAdjustSharpness, RandomAffine, RandomAutoContrast, RandomColor,
                         RandomColorAdjust, RandomEqualize, RandomErasing, RandomGrayscale, RandomInvert,
                         RandomPosterize, RandomResize, RandomRotation, RandomSharpness, RandomSolarize, ResizedCrop,
                         RgbToHsv, Solarize, TenCrop, ToNumpy, ToType, get_image_num_channels, get_image_size)
from .transforms import (AutoAugment, BoundingBoxAugment, MixUp, Perspective, RandAugment,  # noqa: F401
                         RandomCropDecodeResize, RandomCropWithBBox, RandomHorizontalFlipWithBBox, RandomLighting,
                         RandomPerspective, RandomResizedCropWithBBox, RandomResizeWithBBox, RandomSelectSubpolicy,
                         RandomVerticalFlipWithBBox, ResizeWithBBox, SlicePatches, TrivialAugmentWide, UniformAugment)
from .augment_policies import AutoAugmentPolicy  # noqa: F401
from .utils import Border, ConvertMode, ImageBatchFormat, Inter, SliceMode  # noqa: F401
from .decode import Decode  # noqa: F401 - imports Pillow only when a Decode is made
from .image_io import encode_png, read_file, write_file, write_png  # noqa: F401 - Pillow only when encoding

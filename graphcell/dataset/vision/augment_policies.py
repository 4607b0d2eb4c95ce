"""The augmentation policies of mindspore.dataset.vision: AutoAugment (the published ImageNet, CIFAR10
and SVHN policies), RandAugment, TrivialAugmentWide, UniformAugment and RandomSelectSubpolicy.

Each operation is one of the deterministic transforms (Affine, Rotate, AdjustBrightness, ...), so a
chosen operation at a chosen magnitude is bit-exact with 2.10's; which operation, magnitude bin and
sign are drawn from the transform's own generator (seeded from the dataset seed), not MindSpore's.
Magnitude ranges are those of the papers (and torchvision): shear up to 0.3 (0.99 for
TrivialAugmentWide), translation up to 150/331 of the size (32 pixels), rotation up to 30 (135)
degrees, colour factors 1 +- 0.9 (0.99), posterize bits 8 down to 4 (2), solarize 255 down to 0.
"""
from __future__ import annotations

import enum
import math
import numbers

import numpy as np

from . import _args
from .color_transforms import (AdjustBrightness, AdjustContrast, AdjustSaturation, AdjustSharpness, AutoContrast,
                               Equalize, Invert, Posterize, Solarize)
from .geometry_transforms import _affine
from .transforms import Rotate, _Random
from .utils import Inter


class AutoAugmentPolicy(str, enum.Enum):
    """AutoAugment's policies (2.10's values)."""
    IMAGENET = "imagenet"
    CIFAR10 = "cifar10"
    SVHN = "svhn"


SIGNED = {"ShearX", "ShearY", "TranslateX", "TranslateY", "Rotate", "Brightness", "Color", "Contrast", "Sharpness"}


def magnitudes(bins: int, height: int, width: int, wide: bool = False) -> dict:
    """op -> the magnitude of each of `bins` bins (TrivialAugmentWide's wider ranges with `wide`)."""
    posterize_span = 6 if wide else 4
    return {
        "Identity": np.zeros(bins),
        "ShearX": np.linspace(0.0, 0.99 if wide else 0.3, bins),
        "ShearY": np.linspace(0.0, 0.99 if wide else 0.3, bins),
        "TranslateX": np.linspace(0.0, 32.0 if wide else 150.0 / 331.0 * width, bins),
        "TranslateY": np.linspace(0.0, 32.0 if wide else 150.0 / 331.0 * height, bins),
        "Rotate": np.linspace(0.0, 135.0 if wide else 30.0, bins),
        "Brightness": np.linspace(0.0, 0.99 if wide else 0.9, bins),
        "Color": np.linspace(0.0, 0.99 if wide else 0.9, bins),
        "Contrast": np.linspace(0.0, 0.99 if wide else 0.9, bins),
        "Sharpness": np.linspace(0.0, 0.99 if wide else 0.9, bins),
        "Posterize": 8 - np.round(np.arange(bins) / ((bins - 1) / posterize_span)).astype(np.int64),
        "Solarize": np.linspace(255.0, 0.0, bins),
        "AutoContrast": np.zeros(bins),
        "Equalize": np.zeros(bins),
        "Invert": np.zeros(bins),
    }


def apply_op(img, op: str, magnitude: float, interpolation: Inter, fill_value):
    """One augmentation operation at a signed magnitude, through the deterministic transforms."""
    h, w = img.shape[:2]
    if op in ("ShearX", "ShearY"):
        angle = math.degrees(math.atan(magnitude))
        shear = (angle, 0.0) if op == "ShearX" else (0.0, angle)
        return _affine(img, 0.0, (0.0, 0.0), 1.0, shear, interpolation, fill_value)
    if op in ("TranslateX", "TranslateY"):
        shift = (int(magnitude) / w, 0.0) if op == "TranslateX" else (0.0, int(magnitude) / h)
        return _affine(img, 0.0, shift, 1.0, (0.0, 0.0), interpolation, fill_value)
    if op == "Rotate":
        return Rotate(magnitude, interpolation, fill_value=fill_value)(img)
    factor_ops = {"Brightness": AdjustBrightness, "Color": AdjustSaturation, "Contrast": AdjustContrast,
                  "Sharpness": AdjustSharpness}
    if op in factor_ops:
        return factor_ops[op](1.0 + magnitude)(img)
    if op == "Posterize":
        return Posterize(int(magnitude))(img)
    if op == "Solarize":
        return Solarize(float(magnitude))(img)
    plain = {"AutoContrast": AutoContrast, "Equalize": Equalize, "Invert": Invert}
    if op in plain:
        return plain[op]()(img)
    return img                                       # Identity


# (op, probability, magnitude bin) pairs of the AutoAugment paper's policies
POLICIES = {
    AutoAugmentPolicy.IMAGENET: [
        (("Posterize", 0.4, 8), ("Rotate", 0.6, 9)), (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
        (("Equalize", 0.8, None), ("Equalize", 0.6, None)), (("Posterize", 0.6, 7), ("Posterize", 0.6, 6)),
        (("Equalize", 0.4, None), ("Solarize", 0.2, 4)), (("Equalize", 0.4, None), ("Rotate", 0.8, 8)),
        (("Solarize", 0.6, 3), ("Equalize", 0.6, None)), (("Posterize", 0.8, 5), ("Equalize", 1.0, None)),
        (("Rotate", 0.2, 3), ("Solarize", 0.6, 8)), (("Equalize", 0.6, None), ("Posterize", 0.4, 6)),
        (("Rotate", 0.8, 8), ("Color", 0.4, 0)), (("Rotate", 0.4, 9), ("Equalize", 0.6, None)),
        (("Equalize", 0.0, None), ("Equalize", 0.8, None)), (("Invert", 0.6, None), ("Equalize", 1.0, None)),
        (("Color", 0.6, 4), ("Contrast", 1.0, 8)), (("Rotate", 0.8, 8), ("Color", 1.0, 2)),
        (("Color", 0.8, 8), ("Solarize", 0.8, 7)), (("Sharpness", 0.4, 7), ("Invert", 0.6, None)),
        (("ShearX", 0.6, 5), ("Equalize", 1.0, None)), (("Color", 0.4, 0), ("Equalize", 0.6, None)),
        (("Equalize", 0.4, None), ("Solarize", 0.2, 4)), (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
        (("Invert", 0.6, None), ("Equalize", 1.0, None)), (("Color", 0.6, 4), ("Contrast", 1.0, 8)),
        (("Equalize", 0.8, None), ("Equalize", 0.6, None))],
    AutoAugmentPolicy.CIFAR10: [
        (("Invert", 0.1, None), ("Contrast", 0.2, 6)), (("Rotate", 0.7, 2), ("TranslateX", 0.3, 9)),
        (("Sharpness", 0.8, 1), ("Sharpness", 0.9, 3)), (("ShearY", 0.5, 8), ("TranslateY", 0.7, 9)),
        (("AutoContrast", 0.5, None), ("Equalize", 0.9, None)), (("ShearY", 0.2, 7), ("Posterize", 0.3, 7)),
        (("Color", 0.4, 3), ("Brightness", 0.6, 7)), (("Sharpness", 0.3, 9), ("Brightness", 0.7, 9)),
        (("Equalize", 0.6, None), ("Equalize", 0.5, None)), (("Contrast", 0.6, 7), ("Sharpness", 0.6, 5)),
        (("Color", 0.7, 7), ("TranslateX", 0.5, 8)), (("Equalize", 0.3, None), ("AutoContrast", 0.4, None)),
        (("TranslateY", 0.4, 3), ("Sharpness", 0.2, 6)), (("Brightness", 0.9, 6), ("Color", 0.2, 8)),
        (("Solarize", 0.5, 2), ("Invert", 0.0, None)), (("Equalize", 0.2, None), ("AutoContrast", 0.6, None)),
        (("Equalize", 0.2, None), ("Equalize", 0.6, None)), (("Color", 0.9, 9), ("Equalize", 0.6, None)),
        (("AutoContrast", 0.8, None), ("Solarize", 0.2, 8)), (("Brightness", 0.1, 3), ("Color", 0.7, 0)),
        (("Solarize", 0.4, 5), ("AutoContrast", 0.9, None)), (("TranslateY", 0.9, 9), ("TranslateY", 0.7, 9)),
        (("AutoContrast", 0.9, None), ("Solarize", 0.8, 3)), (("Equalize", 0.8, None), ("Invert", 0.1, None)),
        (("TranslateY", 0.7, 9), ("AutoContrast", 0.9, None))],
    AutoAugmentPolicy.SVHN: [
        (("ShearX", 0.9, 4), ("Invert", 0.2, None)), (("ShearY", 0.9, 8), ("Invert", 0.7, None)),
        (("Equalize", 0.6, None), ("Solarize", 0.6, 6)), (("Invert", 0.9, None), ("Equalize", 0.6, None)),
        (("Equalize", 0.6, None), ("Rotate", 0.9, 3)), (("ShearX", 0.9, 4), ("AutoContrast", 0.8, None)),
        (("ShearY", 0.9, 8), ("Invert", 0.4, None)), (("ShearY", 0.9, 5), ("Solarize", 0.2, 6)),
        (("Invert", 0.9, None), ("AutoContrast", 0.8, None)), (("Equalize", 0.6, None), ("Rotate", 0.9, 3)),
        (("ShearX", 0.9, 4), ("Solarize", 0.3, 3)), (("ShearY", 0.8, 8), ("Invert", 0.7, None)),
        (("Equalize", 0.9, None), ("TranslateY", 0.6, 6)), (("Invert", 0.9, None), ("Equalize", 0.6, None)),
        (("Contrast", 0.3, 3), ("Rotate", 0.8, 4)), (("Invert", 0.8, None), ("TranslateY", 0.0, 2)),
        (("ShearY", 0.7, 6), ("Solarize", 0.4, 8)), (("Invert", 0.6, None), ("Rotate", 0.8, 4)),
        (("ShearY", 0.3, 7), ("TranslateX", 0.9, 3)), (("ShearX", 0.1, 6), ("Invert", 0.6, None)),
        (("Solarize", 0.7, 2), ("TranslateY", 0.6, 7)), (("ShearY", 0.8, 4), ("Invert", 0.8, None)),
        (("ShearX", 0.7, 9), ("TranslateY", 0.8, 3)), (("ShearY", 0.8, 5), ("AutoContrast", 0.7, None)),
        (("ShearX", 0.7, 2), ("Invert", 0.1, None))],
}


def _interpolation(interpolation):
    if not isinstance(interpolation, Inter):
        raise TypeError(f"Argument interpolation with value {interpolation!r} is not of type [<enum 'Inter'>], "
                        f"but got {type(interpolation)}.")
    return interpolation


def _fill(fill_value):
    """An int or an (R, G, B) triple in [0, 255]."""
    if isinstance(fill_value, numbers.Integral) and not isinstance(fill_value, bool):
        _args.number(fill_value, "fill_value", 0, 255, types=(int,))
        return (int(fill_value),) * 3
    fill_value = tuple(fill_value)
    if len(fill_value) != 3:
        raise TypeError("fill_value should be a single integer or a 3-tuple.")
    for v in fill_value:
        _args.number(v, "fill_value", 0, 255, types=(int,))
    return fill_value


def _rgb(img, op, interpolation):
    """The <H, W, 3> uint8 image (2.10's messages), after 2.10's interpolation check."""
    if interpolation not in (Inter.NEAREST, Inter.BILINEAR, Inter.BICUBIC, Inter.AREA):
        raise RuntimeError(f"{op}: Invalid InterpolationMode. Use InterpolationMode::kLinear, "
                           "InterpolationMode::kNearestNeighbour, InterpolationMode::kCubic or "
                           "InterpolationMode::kArea.")
    img = np.asarray(img)
    if img.ndim != 3:
        raise RuntimeError(f"{op}: input tensor is not in shape of <H,W,C>, but got rank: {img.ndim}")
    img = _args.image(img, op, ranks=(3,), channels=(3,))
    return _args.uint8_only(img, op)


class _Augment(_Random):
    """What the policy transforms share: interpolation, fill value and a signed magnitude."""

    def __init__(self, interpolation, fill_value):
        super().__init__()
        self.interpolation, self.fill_value = _interpolation(interpolation), _fill(fill_value)

    def _apply(self, img, op, magnitude):
        if op in SIGNED and self._integer(1):
            magnitude = -magnitude
        return apply_op(img, op, float(magnitude), self.interpolation, self.fill_value)


class AutoAugment(_Augment):
    """Applies a random sub-policy of `policy` (AutoAugmentPolicy.IMAGENET, CIFAR10 or SVHN): two
    operations, each with its probability, at its magnitude bin of 10 (a random sign)."""

    def __init__(self, policy=AutoAugmentPolicy.IMAGENET, interpolation=Inter.NEAREST, fill_value=0):
        if not isinstance(policy, AutoAugmentPolicy):
            raise TypeError(f"Argument policy with value {policy} is not of type [<enum 'AutoAugmentPolicy'>], "
                            f"but got {type(policy)}.")
        super().__init__(interpolation, fill_value)
        self.policy = policy

    def __call__(self, img):
        img = _rgb(img, "AutoAugment", self.interpolation)
        table = magnitudes(10, *img.shape[:2])
        subpolicy = POLICIES[self.policy][self._integer(len(POLICIES[self.policy]) - 1)]
        for op, probability, bin_ in subpolicy:
            if self._uniform() <= probability:
                img = self._apply(img, op, table[op][bin_] if bin_ is not None else 0.0)
        return img


_RAND_OPS = ("Identity", "ShearX", "ShearY", "TranslateX", "TranslateY", "Rotate", "Brightness", "Color", "Contrast",
             "Sharpness", "Posterize", "Solarize", "AutoContrast", "Equalize")


class RandAugment(_Augment):
    """Applies num_ops random operations, each at bin `magnitude` of num_magnitude_bins (a random sign)."""

    def __init__(self, num_ops=2, magnitude=9, num_magnitude_bins=31, interpolation=Inter.NEAREST, fill_value=0):
        self.num_ops = int(_args.number(num_ops, "num_ops", 0, _args.INT32_MAX, types=(int,)))
        self.num_magnitude_bins = int(_args.number(num_magnitude_bins, "num_magnitude_bins", 2, _args.UINT24,
                                                   types=(int,)))
        self.magnitude = int(_args.number(magnitude, "magnitude", 0, self.num_magnitude_bins, types=(int,),
                                          right_open=True))
        super().__init__(interpolation, fill_value)

    def __call__(self, img):
        img = _rgb(img, "RandAugment", self.interpolation)
        table = magnitudes(self.num_magnitude_bins, *img.shape[:2])
        for _ in range(self.num_ops):
            op = _RAND_OPS[self._integer(len(_RAND_OPS) - 1)]
            img = self._apply(img, op, table[op][self.magnitude])
        return img


class TrivialAugmentWide(_Augment):
    """Applies one random operation at a random bin of num_magnitude_bins (the wide ranges, a random sign)."""

    def __init__(self, num_magnitude_bins=31, interpolation=Inter.NEAREST, fill_value=0):
        self.num_magnitude_bins = int(_args.number(num_magnitude_bins, "num_magnitude_bins", 2, _args.UINT24,
                                                   types=(int,)))
        super().__init__(interpolation, fill_value)

    def __call__(self, img):
        img = _rgb(img, "TrivialAugmentWide", self.interpolation)
        table = magnitudes(self.num_magnitude_bins, *img.shape[:2], wide=True)
        op = _RAND_OPS[self._integer(len(_RAND_OPS) - 1)]
        return self._apply(img, op, table[op][self._integer(self.num_magnitude_bins - 1)])


class UniformAugment(_Random):
    """Picks num_ops of `transforms` (without repeats, in a random order) and applies each with
    probability 1/2 (as 2.10: a chosen transform may not be applied)."""

    def __init__(self, transforms, num_ops=2):
        super().__init__()
        if not isinstance(transforms, (list, tuple)) or not transforms:
            raise TypeError(f"Argument transforms with value {transforms!r} is not of type [<class 'list'>], "
                            f"but got {type(transforms)}.")
        self.num_ops = int(_args.number(num_ops, "num_ops", -_args.INT32_MAX, _args.INT32_MAX, types=(int,)))
        if self.num_ops <= 0:
            raise ValueError("Input num_ops must be greater than 0.")
        if self.num_ops > len(transforms):
            raise ValueError("num_ops is greater than transforms list size.")
        self.transforms = list(transforms)

    def __call__(self, img):
        with self._lock:
            chosen = self._rng.permutation(len(self.transforms))[:self.num_ops]
        for i in chosen:
            if self._integer(1):
                img = self.transforms[i](img)
        return img


class RandomSelectSubpolicy(_Random):
    """Picks one sub-policy (a list of (transform, probability)) at random and applies each of its
    transforms with its probability, in order."""

    def __init__(self, policy):
        super().__init__()
        if not isinstance(policy, list):
            raise TypeError(f"Argument policy with value {policy} is not of type [<class 'list'>], "
                            f"but got {type(policy)}.")
        if not policy:
            raise ValueError("policy can not be empty.")
        for i, sub in enumerate(policy):
            if not isinstance(sub, list) or not sub:
                raise ValueError(f"policy[{i}] can not be empty.")
            for j, pair in enumerate(sub):
                if not isinstance(pair, tuple) or len(pair) != 2:
                    raise ValueError(f"policy[{i}][{j}] should be a (op, prob) tuple.")
                if not callable(pair[0]):
                    raise TypeError(f"op of (op, prob) in policy[{i}][{j}] is not a c_transform op (TensorOp) nor a "
                                    "callable pyfunc.")
                _args.number(pair[1], "prob", 0, 1, name=f"prob of (op, prob) policy[{i}][{j}]")
        self.policy = policy

    def __call__(self, img):
        for transform, probability in self.policy[self._integer(len(self.policy) - 1)]:
            if self._uniform() < probability:
                img = transform(img)
        return img

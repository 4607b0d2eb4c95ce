"""Argument and image checks of the vision transforms, with MindSpore 2.10's messages (measured)."""
from __future__ import annotations

import numbers

import numpy as np

UINT24 = 16777216                  # 2.10's upper bound of most factors
INT32_MAX = 2147483647


def _type_names(types) -> str:
    return ", ".join(str(t) for t in types)


def number(value, arg: str, low, high, types=(float, int), name: str | None = None, right_open=False):
    """A number in [low, high] (or [low, high)); `name` is how the message names it ("" for none)."""
    allowed = isinstance(value, numbers.Integral) if tuple(types) == (int,) else isinstance(value, numbers.Real)
    if isinstance(value, bool) or not allowed:
        raise TypeError(f"Argument {arg} with value {value!r} is not of type [{_type_names(types)}], "
                        f"but got {type(value)}.")
    if not low <= value <= high or right_open and value == high:
        label = arg if name is None else name
        label = f" {label}" if label else ""
        close = ")" if right_open else "]"
        raise ValueError(f"Input{label} is not within the required interval of [{low}, {high}{close}.")
    return value


def prob(value) -> float:
    return float(number(value, "prob", 0.0, 1.0))


def min_max(value, arg: str, low, high, what: str | None = None, center=None):
    """A (min, max) range; a single number v means (center - v, center + v) clipped at low, when
    `center` is given, else (v, v)."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        if center is None:
            number(value, arg, low, high)
            return (value, value)
        if value < 0:
            raise ValueError(f"The input value of {arg} cannot be negative.")
        return (max(low, center - value), center + value)
    value = tuple(value)
    if len(value) != 2:
        raise TypeError(f"{arg} should be a single number or a list/tuple of size 2.")
    for v in value:
        number(v, arg, low, high, name="")
    if value[0] > value[1]:
        raise ValueError(what or f"{arg} should be in (min,max) format. Got (max,min).")
    return value


def size_pair(value, arg: str = "size", low=1, high=UINT24) -> tuple[int, int]:
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        value = (value, value)
    value = tuple(value)
    if len(value) != 2:
        raise TypeError(f"{arg} should be a single integer or a list/tuple (h, w) of length 2.")
    for v in value:
        number(v, arg, low, high, types=(int,), name="")
    return int(value[0]), int(value[1])


def image(img, op: str, ranks=(2, 3), channels=None) -> np.ndarray:
    """The image as an array, its rank and channel count checked with 2.10's messages."""
    img = np.asarray(img)
    if img.ndim not in ranks:
        shapes = {2: "<H, W>", 3: "<H, W, C>"}
        raise RuntimeError(f"{op}: the dimension of image tensor does not match the requirement of operator. "
                           f"Expecting tensor in dimension of ({', '.join(map(str, ranks))}), in shape of "
                           f"{' or '.join(shapes[r] for r in ranks)}. But got dimension {img.ndim}.")
    got = 1 if img.ndim == 2 else img.shape[2]
    if channels is not None and got not in channels:
        raise RuntimeError(f"{op}: the channel of image tensor does not match the requirement of operator. "
                           f"Expecting tensor in channel of ({', '.join(map(str, channels))}). But got channel {got}.")
    return img


def hwc3(img, op: str) -> np.ndarray:
    """An <H, W, 3> image, with the messages of Invert / Erase."""
    img = np.asarray(img)
    if img.ndim != 3:
        raise RuntimeError(f"{op}: input tensor is not in shape of <H,W,C>, but got rank: {img.ndim}")
    return img


def uint8_only(img, op: str) -> np.ndarray:
    if img.dtype != np.uint8:
        raise RuntimeError(f"{op}: the image must be uint8 (2.10 runs it through OpenCV's 8-bit tables), "
                           f"got {img.dtype}.")
    return img

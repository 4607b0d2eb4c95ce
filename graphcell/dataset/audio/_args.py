"""Argument and input checks of the audio transforms, with MindSpore 2.10's messages (measured)."""
from __future__ import annotations

import numbers

import numpy as np

INT32_MIN, INT32_MAX = -2147483648, 2147483647
FLOAT_MAX = 16777216                       # 2.10's bound on most float arguments


def check_type(value, arg: str, types):
    if isinstance(value, bool) and bool not in types or not isinstance(value, tuple(types)):
        names = ", ".join(str(t) for t in types)
        raise TypeError(f"Argument {arg} with value {value} is not of type [{names}], but got {type(value)}.")
    return value


def number(value, arg: str, low=None, high=None, integer=False, left_open=False, right_open=False):
    """An int (or int/float) in the interval; 2.10 names open ends with ( and )."""
    check_type(value, arg, (int,) if integer else (float, int))
    below = low is not None and (value < low or left_open and value == low)
    above = high is not None and (value > high or right_open and value == high)
    if below or above:
        raise ValueError(f"Input {arg} is not within the required interval of {'(' if left_open else '['}{low}, "
                         f"{high}{')' if right_open else ']'}.")
    return value


def positive(value, arg: str, integer=False, high=None):
    """2.10 writes a positive int's interval [1, max] and a positive float's (0, max]."""
    if integer:
        return number(value, arg, 1, INT32_MAX if high is None else high, integer)
    return number(value, arg, 0, FLOAT_MAX if high is None else high, left_open=True)


def non_negative(value, arg: str, integer=False, high=None):
    return number(value, arg, 0, (INT32_MAX if integer else FLOAT_MAX) if high is None else high, integer)


def non_zero_int(value, arg: str):
    check_type(value, arg, (int,))
    if value == 0 or not INT32_MIN <= value <= INT32_MAX:
        raise ValueError(f"Input {arg} is not within the required interval of [{INT32_MIN}, 0) and (0, {INT32_MAX}].")
    return value


def non_zero(value, arg: str):
    check_type(value, arg, (float, int))
    if value == 0 or abs(value) > FLOAT_MAX:
        raise ValueError(f"Input {arg} is not within the required interval of [-{FLOAT_MAX}, 0) and (0, {FLOAT_MAX}].")
    return value


def enum(value, arg: str, kind):
    return check_type(value, arg, (kind,))


def boolean(value, arg: str):
    return check_type(value, arg, (bool,))


def audio(waveform, op: str, accept_int=True) -> np.ndarray:
    """The input as an array, in 2.10's compute dtype: floats keep theirs, integers become float32
    (or are refused, by the filters)."""
    if not isinstance(waveform, np.ndarray):
        raise TypeError(f"Input should be NumPy audio, got {type(waveform)}.")
    if waveform.dtype.kind == "f":
        return waveform
    if waveform.dtype.kind in "iub" and accept_int:
        return waveform.astype(np.float32)
    raise RuntimeError(f"{op}: the data type of input tensor does not match the requirement of operator. "
                       f"Expecting tensor in type of [float, double]. But got type {waveform.dtype}.")


def rank_at_least(x: np.ndarray, op: str, rank: int, layout: str) -> np.ndarray:
    if x.ndim < rank:
        raise RuntimeError(f"{op}: the shape of input tensor does not match the requirement of operator. "
                           f"Expecting tensor in shape of {layout}. But got tensor with dimension {x.ndim}.")
    return x


def complex_pairs(x: np.ndarray, op: str) -> np.ndarray:
    """A <..., complex=2> array (2.10's complex layout)."""
    if x.ndim < 1 or x.shape[-1] != 2:
        raise RuntimeError(f"{op}: the shape of input tensor does not match the requirement of operator. "
                           f"Expecting tensor in shape of <..., complex=2>.")
    return x


def is_real(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)

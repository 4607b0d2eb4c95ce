"""MindSpore 2.10's window functions (`ops.bartlett_window`, `blackman_window`, `hamming_window`,
`hann_window`, `kaiser_window`) and operator classes (`ops.BartlettWindow`, `BlackmanWindow`,
`HammingWindow`).

A window depends only on its length and arguments, so it is computed on the host in float64
(numpy) and becomes a constant: inside `jit` the length must be known (a Python int, or a
Tensor whose value is not traced). Arguments, dtypes, errors and values are 2.10's, measured on
its CPU build, quirks included:

- bartlett_window and blackman_window are 2.10's primitives called as functions: the length is
  a 0-d int32/int64 Tensor (a Python int is refused) in [0, 1000000]; the dtype defaults to
  float32. Blackman's ends are exactly 0 (numpy's formula leaves -1.4e-17).
- hamming_window takes a Python int and defaults to float32; its alpha and beta are rounded to
  float32 first (alpha - beta = 0.08000001311302185, also in float64). hann_window and
  kaiser_window default to float64.
- hamming_window, hann_window and kaiser_window return float64 ones for a length of 0 or 1,
  whatever the dtype.
- HammingWindow rounds alpha and beta to float32 too. Its length is a 1-D integer Tensor whose first element is read; its `dtype`
  attribute is 2.10's type id (float16 1, float32 0, float64 11), as its repr shows.
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from .op_base import Operator, check_bool, check_float

__all__ = ["bartlett_window", "blackman_window", "hamming_window", "hann_window", "kaiser_window"]

_FLOATS = (mstype.float16, mstype.float32, mstype.float64)
_MAX_LENGTH = 1000000


def _constant(values: np.ndarray, dtype) -> Tensor:
    return Tensor(np.asarray(values, np.float64).astype(mstype.to_dtype(dtype).np_dtype))


def _symmetric_or_periodic(n: int, periodic: bool, fn) -> np.ndarray:
    """fn(points) over `n` points: a periodic window is the symmetric one of n + 1 points less
    its last (as torch and MindSpore define it)."""
    if n <= 1:
        return np.ones(n)
    return fn(n + 1)[:-1] if periodic else fn(n)


def _python_type_name(value) -> str:
    """MindSpore's name of a Python scalar's type in its primitives' messages."""
    if isinstance(value, bool):
        return "Bool"
    if isinstance(value, numbers.Integral):
        return "Int64"
    if isinstance(value, numbers.Real):
        return "Float32"
    return type(value).__name__


def _check_window_dtype(op: str, dtype):
    if not isinstance(dtype, mstype.DType):
        raise TypeError(f"For '{op}', the type of 'dtype' should be 'Type', but got type '{type(dtype).__name__}'.")
    if dtype not in _FLOATS:
        raise TypeError(f"For '{op}', the 'dtype' should be one of [mindspore.float16, mindspore.float32, "
                        f"mindspore.float64], but got 'mindspore.{str(dtype).lower()}'.")
    return dtype


# -- the primitive-backed windows (a 0-d Tensor length) -----------------------------------------

def _blackman(points: int) -> np.ndarray:
    # summed in 2.10's order: its ends are exactly 0 and its middle exactly 1 (numpy's are
    # -1.4e-17 and 0.9999999999999999)
    phase = 2.0 * np.pi * np.arange(points) / (points - 1)
    return (0.42 + 0.08 * np.cos(2.0 * phase)) - 0.5 * np.cos(phase)


class _TensorLengthWindow(Operator):
    """BartlettWindow and BlackmanWindow: constructed with (periodic, dtype), called with a 0-d
    int32/int64 Tensor length."""
    _window = None

    def __init__(self, periodic=True, dtype=mstype.float32):
        check_bool(self.name, "periodic", periodic)
        _check_window_dtype(self.name, dtype)
        super().__init__(periodic=periodic, dtype=dtype, max_length=_MAX_LENGTH)

    def __call__(self, window_length):
        op = self.name
        if not isinstance(window_length, Tensor):
            raise TypeError(f"For Primitive[{op}], the type of input argument[window_length] must be Tensor but got "
                            f"{_python_type_name(window_length)}.")
        if window_length.dtype not in (mstype.int32, mstype.int64):
            raise TypeError(f"For primitive[{op}], the input argument[window_length] must be a type of "
                            f"{{Tensor[Int32], Tensor[Int64]}}, but got Tensor[{window_length.dtype}].")
        if window_length.ndim != 0:
            raise ValueError(f"For '{op}', the dim of window_length must be 0, but got: {window_length.ndim}.")
        n = int(window_length._host(f"ops.{op}'s window_length (the output's size)"))
        if not 0 <= n <= _MAX_LENGTH:
            raise ValueError(f"For '{op}', the value range of window_length must be [0, {_MAX_LENGTH}], but got: {n}.")
        return _constant(_symmetric_or_periodic(n, self.periodic, type(self)._window), self.dtype)


class BartlettWindow(_TensorLengthWindow):
    """The triangular window, 1 - |2n/(N-1) - 1| (N + 1 points less the last when periodic)."""
    _window = staticmethod(np.bartlett)


class BlackmanWindow(_TensorLengthWindow):
    """0.42 - 0.5 cos(2 pi n/(N-1)) + 0.08 cos(4 pi n/(N-1)) (N + 1 points less the last when
    periodic)."""
    _window = staticmethod(_blackman)


def bartlett_window(window_length, periodic=True, *, dtype=None):
    """The Bartlett window of a 0-d int32/int64 Tensor's length, float32 unless `dtype` says."""
    return BartlettWindow(periodic, mstype.float32 if dtype is None else dtype)(window_length)


def blackman_window(window_length, periodic=True, *, dtype=None):
    """The Blackman window of a 0-d int32/int64 Tensor's length, float32 unless `dtype` says."""
    return BlackmanWindow(periodic, mstype.float32 if dtype is None else dtype)(window_length)


# -- the windows of a Python int length -----------------------------------------------------------

def _cosine_window(n: int, periodic: bool, alpha: float, beta: float) -> np.ndarray:
    def window(points):
        return alpha - beta * np.cos(2.0 * np.pi * np.arange(points) / (points - 1))
    return _symmetric_or_periodic(n, periodic, window)


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None):
    """alpha - beta cos(2 pi n / (N - 1)) (N + 1 points less the last when periodic), alpha and
    beta rounded to float32 as 2.10 does; float32 unless `dtype` says."""
    where = "For array function 'hamming_window',"
    if isinstance(window_length, bool) or not isinstance(window_length, int):
        raise TypeError(f"{where} 'window_length' must be int, but got {type(window_length)}.")
    if window_length < 0:
        raise ValueError(f"{where} 'window_length' must be non negative number.")
    if not isinstance(periodic, bool):
        raise TypeError(f"{where} 'periodic' must be bool, but got {type(periodic)}.")
    for name, value in (("alpha", alpha), ("beta", beta)):
        if not isinstance(value, float):
            raise TypeError(f"{where} '{name}' must be float, but got {type(value)}.")
    dtype = _float_dtype(where, mstype.float32 if dtype is None else dtype)
    if window_length <= 1:
        return _constant(np.ones(window_length), mstype.float64)
    values = _cosine_window(window_length, periodic, float(np.float32(alpha)), float(np.float32(beta)))
    return _constant(values, dtype)


def _float_dtype(where: str, dtype):
    dtype = mstype.to_dtype(dtype)
    if dtype not in _FLOATS:
        raise TypeError(f"{where} 'dtype' must be floating point dtypes, but got {dtype}.")
    return dtype


def _int_length_checks(op: str, window_length, periodic):
    if isinstance(window_length, bool) or not isinstance(window_length, int):
        raise TypeError(f"For '{op}', 'window_length' must be a non-negative integer, but got {type(window_length)}")
    if window_length < 0:
        raise ValueError(f"For '{op}', 'window_length' must be a non-negative integer, but got {window_length}")
    if not isinstance(periodic, bool):
        raise TypeError(f"For '{op}', 'periodic' must be a variable of Boolean type, but got {type(periodic)}")


def hann_window(window_length, periodic=True, *, dtype=None):
    """0.5 - 0.5 cos(2 pi n / (N - 1)) (N + 1 points less the last when periodic); float64
    unless `dtype` says (2.10's default)."""
    _int_length_checks("hann_window", window_length, periodic)
    dtype = _float_dtype("For 'hann_window',", mstype.float64 if dtype is None else dtype)
    if window_length <= 1:
        return _constant(np.ones(window_length), mstype.float64)
    return _constant(_cosine_window(window_length, periodic, 0.5, 0.5), dtype)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None):
    """I0(beta sqrt(1 - (2n/(N-1) - 1)^2)) / I0(beta) (N + 1 points less the last when
    periodic); float64 unless `dtype` says (2.10's default)."""
    _int_length_checks("kaiser_window", window_length, periodic)
    if not isinstance(beta, numbers.Real):
        raise TypeError(f"For 'kaiser_window', 'beta' must be a float, but got {type(beta)}")
    dtype = _float_dtype("For 'kaiser_window',", mstype.float64 if dtype is None else dtype)
    if window_length <= 1:
        return _constant(np.ones(window_length), mstype.float64)
    return _constant(_symmetric_or_periodic(window_length, periodic, lambda m: np.kaiser(m, float(beta))), dtype)


# -- HammingWindow: a 1-D length Tensor of any integer dtype ------------------------------------

_TYPE_IDS = {mstype.float16: 1, mstype.float32: 0, mstype.float64: 11}   # 2.10's attribute values
_LENGTH_DTYPES = ("Int16", "Int32", "Int64", "Int8", "UInt16", "UInt32", "UInt64", "UInt8")


class HammingWindow(Operator):
    """hamming_window with the length read from a 1-D integer Tensor's first element."""

    def __init__(self, periodic=True, alpha=0.54, beta=0.46, dtype=mstype.float32):
        check_bool("HammingWindow", "periodic", periodic)
        for name, value in (("alpha", alpha), ("beta", beta)):
            if not isinstance(value, float):
                raise TypeError(f"For 'HammingWindow', the type of '{name}' should be 'float', but got type "
                                f"'{type(value).__name__}'.")
        dtype = _check_window_dtype("HammingWindow", dtype)
        super().__init__(periodic=periodic, alpha=check_float("HammingWindow", "alpha", alpha),
                         beta=check_float("HammingWindow", "beta", beta), dtype=_TYPE_IDS[dtype])
        object.__setattr__(self, "out_dtype", dtype)

    def __call__(self, length):
        if not isinstance(length, Tensor):
            raise TypeError(f"For Primitive[HammingWindow], the type of input argument[length] must be Tensor but got "
                            f"{_python_type_name(length)}.")
        if str(length.dtype) not in _LENGTH_DTYPES:
            raise TypeError(f"For primitive[HammingWindow], the input argument[length] must be a type of "
                            f"{{{', '.join(f'Tensor[{t}]' for t in _LENGTH_DTYPES)}}}, but got Tensor[{length.dtype}].")
        if length.ndim != 1:
            raise ValueError(f"For primitive[HammingWindow], the length dim must be equal to 1, but got {length.ndim}.")
        n = int(length._host("ops.HammingWindow's length (the output's size)").reshape(-1)[0])
        if n < 0:
            raise ValueError(f"For primitive[HammingWindow], the length value must be greater than or equal to 0, "
                             f"but got {n}.")
        alpha, beta = float(np.float32(self.alpha)), float(np.float32(self.beta))   # as 2.10 rounds them
        return _constant(_cosine_window(n, self.periodic, alpha, beta), self.out_dtype)

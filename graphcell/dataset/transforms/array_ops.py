"""The array transforms of mindspore.dataset.transforms (Concatenate, Duplicate, Fill, Mask, PadEnd,
Slice, Unique), on numpy rows, with 2.10's output dtypes and messages (measured).

    ds = ds.map(operations=transforms.Mask(transforms.Relational.GT, 1), input_columns="label")
"""
from __future__ import annotations

import enum
import numbers

import numpy as np

from ...dtype import to_dtype


def _type_error(arg, value, types):
    return TypeError(f"Argument {arg} with value {value!r} is not of type [{', '.join(map(str, types))}], "
                     f"but got {type(value)}.")


class Relational(enum.Enum):
    """Mask's comparisons (2.10's values)."""
    EQ = 0
    NE = 1
    GT = 2
    GE = 3
    LT = 4
    LE = 5


_COMPARE = {Relational.EQ: np.equal, Relational.NE: np.not_equal, Relational.GT: np.greater,
            Relational.GE: np.greater_equal, Relational.LT: np.less, Relational.LE: np.less_equal}


def _np_dtype(data_type) -> np.dtype:
    if isinstance(data_type, (type, np.dtype, str)):
        return np.dtype(data_type)
    return to_dtype(data_type).np_dtype


class Concatenate:
    """prepend + data + append along axis 0 (or -1) of 1-D arrays of one dtype."""

    def __init__(self, axis=0, prepend=None, append=None):
        if axis not in (0, -1):
            raise ValueError("only 1D concatenation supported.")
        for name, part in (("prepend", prepend), ("append", append)):
            if part is not None and not isinstance(part, np.ndarray):
                raise _type_error(name, part, [np.ndarray])
            if part is not None and part.ndim != 1:
                raise ValueError(f"can only {name} 1D arrays.")
        self.axis, self.prepend, self.append = axis, prepend, append

    def __call__(self, data):
        data = np.asarray(data)
        if data.ndim != 1:
            raise RuntimeError(f"Concatenate: only 1D input supported, got rank of input: {data.ndim}")
        for name, part in (("prepend", self.prepend), ("append", self.append)):
            if part is not None and part.dtype != data.dtype and not (part.dtype.kind == data.dtype.kind == "U"):
                raise RuntimeError(f"Concatenate: input datatype does not match the {name} datatype, got input "
                                   f"datatype: {data.dtype}, {name} datatype:{part.dtype}")
        parts = [p for p in (self.prepend, data, self.append) if p is not None]
        return np.concatenate(parts)


class Duplicate:
    """The column twice (two copies)."""

    def __call__(self, data):
        data = np.asarray(data)
        return data.copy(), data.copy()


class Fill:
    """An array of the input's shape and dtype filled with fill_value (cast to it, as 2.10)."""

    def __init__(self, fill_value):
        if not isinstance(fill_value, (str, float, bool, int, bytes)):
            raise _type_error("fill_value", fill_value, [str, float, bool, int, bytes])
        self.fill_value = fill_value

    def __call__(self, data):
        data = np.asarray(data)
        is_text = data.dtype.kind in "US"
        if is_text != isinstance(self.fill_value, (str, bytes)):
            raise RuntimeError("Fill: fill_value and the input tensor must be of the same data type when involving "
                               f"strings or bytes, but got fill_value data type "
                               f"{np.asarray(self.fill_value).dtype if not is_text else 'string'} and input tensor "
                               f"data type {'string' if is_text else data.dtype}")
        if is_text:
            return np.full(data.shape, self.fill_value)
        return np.full(data.shape, self.fill_value).astype(data.dtype)


class Mask:
    """data <operator> constant (the constant cast to the data's dtype), as `dtype` (bool by default)."""

    def __init__(self, operator, constant, dtype=None):
        if not isinstance(operator, Relational):
            raise _type_error("operator", operator, [Relational])
        if not isinstance(constant, (str, float, bool, int, bytes)):
            raise _type_error("constant", constant, [str, float, bool, int, bytes])
        self.operator, self.constant = operator, constant
        self.dtype = np.dtype(np.bool_) if dtype is None else _np_dtype(dtype)

    def __call__(self, data):
        data = np.asarray(data)
        constant = np.asarray(self.constant)
        if data.dtype.kind not in "US":
            constant = constant.astype(data.dtype)
        return _COMPARE[self.operator](data, constant).astype(self.dtype)


class PadEnd:
    """Pads (or cuts) each axis at its end to pad_shape, with pad_value (0 or '' by default)."""

    def __init__(self, pad_shape, pad_value=None):
        if not isinstance(pad_shape, list):
            raise _type_error("pad_shape", pad_shape, [list])
        if pad_value is not None and not isinstance(pad_value, (str, float, bool, int, bytes)):
            raise _type_error("pad_value", pad_value, [str, float, bool, int, bytes])
        self.pad_shape, self.pad_value = [int(s) for s in pad_shape], pad_value

    def __call__(self, data):
        data = np.asarray(data)
        if data.ndim == 0:        # 2.10 returns a scalar as it is (measured)
            return data
        if len(self.pad_shape) != data.ndim:   # 2.10's messages
            raise RuntimeError(f"PadEnd: invalid pad shape, as rank of input is: {data.ndim}, and rank of pad value: "
                               f"{len(self.pad_shape)}")
        text = data.dtype.kind in "US"
        value = self.pad_value if self.pad_value is not None else ("" if text else 0)
        if isinstance(value, str) != text:
            raise RuntimeError("PadEnd: can not pad numeric and string tensors together, but got: "
                               f"{'string' if isinstance(value, str) else type(value).__name__} and "
                               f"{'string' if text else data.dtype}.")
        dtype = np.result_type(data.dtype, np.asarray(value).dtype) if text else data.dtype
        out = np.full(self.pad_shape, value if text else np.asarray(value).astype(dtype), dtype=dtype)
        kept = tuple(slice(0, min(n, m)) for n, m in zip(data.shape, self.pad_shape))
        out[kept] = data[kept]
        return out


def _slice_option(option):
    if option is None or option is Ellipsis or option is True:
        return slice(None)
    if isinstance(option, numbers.Integral) and not isinstance(option, bool):
        return [int(option)]                        # an index keeps its axis (as 2.10)
    if isinstance(option, slice):
        return option
    if isinstance(option, list) and all(isinstance(i, numbers.Integral) for i in option):
        return [int(i) for i in option]
    raise TypeError(f"Argument slice_option with value {option!r} is not of type [<class 'int'>, <class 'list'>, "
                    f"<class 'slice'>, <class 'NoneType'>, <class 'ellipsis'>], but got {type(option)}.")


class Slice:
    """Selects along the leading axes: an int (its axis kept), a list of indices, a slice, None or ...
    (everything)."""

    def __init__(self, *slices):
        if not slices:
            raise ValueError("Slice: at least one slice option is needed.")
        self.slices = [_slice_option(s) for s in slices]

    def __call__(self, data):
        data = np.asarray(data)
        if len(self.slices) > data.ndim:
            raise RuntimeError(f"Slice: too many slice options ({len(self.slices)}) for an input of rank {data.ndim}.")
        out = data
        for axis, option in enumerate(self.slices):
            if isinstance(option, list):
                for i in option:
                    if not -data.shape[axis] <= i < data.shape[axis]:
                        raise RuntimeError(f"Index {i} is out of bounds.")
            out = np.take(out, option, axis=axis) if isinstance(option, list) else \
                out[(slice(None),) * axis + (option,)]
        return out


class Unique:
    """The distinct values of a (2-D or higher) numeric array, flattened, in first-seen order; the
    index of each element's value among them and each value's count (both int32)."""

    def __call__(self, data):
        data = np.asarray(data)
        if data.dtype.kind in "USO":
            raise RuntimeError("Unique: only support numeric datatype of input, got string.")
        if data.ndim < 2:
            raise RuntimeError(f"Unique: input must be at least 2-D in order to do unique op, got rank:{data.ndim}")
        flat = data.ravel()
        values, first, inverse, counts = np.unique(flat, return_index=True, return_inverse=True, return_counts=True)
        order = np.argsort(first, kind="stable")              # first-seen order, as 2.10
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        return values[order], rank[inverse.ravel()].astype(np.int32), counts[order].astype(np.int32)

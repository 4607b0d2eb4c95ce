"""mindspore.dataset.transforms.transforms: the general data transforms that `map` runs on numpy rows.

    label_transform = transforms.TypeCast(graphcell.int32)
    ds = ds.map(operations=label_transform, input_columns="label")

Each transform is a callable on numpy arrays (usable eagerly too: `TypeCast(ms.int32)(x)`),
with MindSpore 2.10's output dtypes (measured).
"""
from __future__ import annotations

import numbers

import numpy as np

from ...dtype import to_dtype


def _row(result) -> tuple:
    return result if isinstance(result, tuple) else (result,)


class TypeCast:
    """Casts to `data_type` (a graphcell dtype or a numpy dtype); floats truncate toward zero."""

    def __init__(self, data_type):
        self.np_dtype = np.dtype(data_type) if isinstance(data_type, (type, np.dtype, str)) \
            else to_dtype(data_type).np_dtype

    def __call__(self, data):
        return np.asarray(data).astype(self.np_dtype)


class OneHot:
    """Class indices -> one-hot vectors of `num_classes`, in the input's integer dtype; with a
    `smoothing_rate` the float64 values (1 - rate) * onehot + rate / num_classes (as 2.10)."""

    def __init__(self, num_classes, smoothing_rate=0.0):
        if isinstance(num_classes, bool) or not isinstance(num_classes, numbers.Integral) or num_classes <= 0:
            raise ValueError(f"Input num_classes is not within the required interval of [1, 2147483647], "
                             f"got {num_classes!r}.")
        if not 0.0 <= float(smoothing_rate) <= 1.0:
            raise ValueError(f"Input smoothing_rate is not within the required interval of [0.0, 1.0], "
                             f"got {smoothing_rate!r}.")
        self.num_classes, self.smoothing_rate = int(num_classes), float(smoothing_rate)

    def __call__(self, label):
        label = np.asarray(label)
        if label.dtype.kind not in "iu":
            raise RuntimeError(f"OneHot: the label must be an integer array, got {label.dtype}.")
        if label.ndim > 1:
            raise RuntimeError(f"OneHot: Only support scalar or 1D input, got rank: {label.ndim}")
        if label.size and (label.min() < 0 or label.max() >= self.num_classes):
            raise RuntimeError(f"OneHot: class index {int(label.max() if label.max() >= self.num_classes else label.min())} "
                               f"is outside [0, {self.num_classes}).")
        hot = (label[..., None] == np.arange(self.num_classes)).astype(label.dtype)
        if self.smoothing_rate:
            return hot * (1.0 - self.smoothing_rate) + self.smoothing_rate / self.num_classes
        return hot


class Compose:
    """Runs `transforms` in order; a transform returning a tuple feeds all of it to the next."""

    def __init__(self, transforms):
        if not isinstance(transforms, (list, tuple)) or not transforms:
            raise ValueError("transforms should be a non-empty list of callables.")
        for t in transforms:
            if not callable(t):
                raise TypeError(f"transforms[{list(transforms).index(t)}] is not callable: {type(t).__name__}")
        self.transforms = list(transforms)

    def __call__(self, *args):
        for transform in self.transforms:
            args = _row(transform(*args))
        return args[0] if len(args) == 1 else args


class PadEnd:
    """Pads each axis at its end to `pad_shape` with `pad_value` (cast to the input's dtype; 0, or
    '' for strings, by default); a longer axis is cut (as 2.10)."""

    def __init__(self, pad_shape, pad_value=None):
        if not isinstance(pad_shape, (list, tuple)) or not all(
                isinstance(d, numbers.Integral) and not isinstance(d, bool) and d > 0 for d in pad_shape):
            raise TypeError(f"PadEnd: pad_shape must be a list of positive ints, got {pad_shape!r}.")
        self.pad_shape, self.pad_value = [int(d) for d in pad_shape], pad_value

    def __call__(self, data):
        data = np.asarray(data)
        if data.ndim == 0:        # 2.10 returns a scalar as it is (measured)
            return data
        if len(self.pad_shape) != data.ndim:
            raise RuntimeError(f"PadEnd: invalid pad shape, as rank of input is: {data.ndim}, and rank of pad value: "
                               f"{len(self.pad_shape)}")
        text = data.dtype.kind in "US"
        fill = self.pad_value if self.pad_value is not None else ("" if text else 0)
        if isinstance(fill, str) != text:
            raise RuntimeError("PadEnd: can not pad numeric and string tensors together, but got: "
                               f"{'string' if isinstance(fill, str) else type(fill).__name__} and "
                               f"{'string' if text else data.dtype}.")
        dtype = np.result_type(data, np.asarray(fill)) if text else data.dtype
        out = np.full(self.pad_shape, np.asarray(fill).astype(dtype), dtype)
        part = data[tuple(slice(0, n) for n in self.pad_shape)]
        out[tuple(slice(0, n) for n in part.shape)] = part
        return out

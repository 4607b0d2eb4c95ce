"""Masking of spectrograms <..., freq, time> (SpecAugment): a fixed band, or a random one drawn from a
generator seeded from the dataset seed (2.10's draws are its own stream: seeded runs repeat here, the
masks differ from 2.10's). A random mask is shared by every channel, as in 2.10 (measured)."""
from __future__ import annotations

import threading

import numpy as np

from .. import config
from . import _args


def _mask(x: np.ndarray, start: int, width: int, value, axis: int, op: str = "MaskAlongAxis") -> np.ndarray:
    length = x.shape[axis]
    if start + width > length:
        raise RuntimeError(f"{op}: invalid parameter, the sum of 'mask_start' and 'mask_width' should be no more "
                           f"than the length of the masked dimension, but got: 'mask_start' {start}, 'mask_width' "
                           f"{width} and length {length}")
    out = x.copy()
    index = [slice(None)] * x.ndim
    index[axis] = slice(start, start + width)
    out[tuple(index)] = value
    return out


def _spectrogram(specgram, op):
    return _args.rank_at_least(_args.audio(specgram, op), op, 2, "<..., freq, time>")


class _Random:
    def __init__(self):
        self._rng = np.random.default_rng(config.seed_or_none())
        self._lock = threading.Lock()

    def _band(self, mask_param: int, length: int) -> tuple[int, int]:
        """A width in [0, mask_param) and a start that keeps the band inside."""
        with self._lock:
            width = int(self._rng.integers(0, mask_param)) if mask_param > 0 else 0
            return int(self._rng.integers(0, length - width + 1)), width


class MaskAlongAxis:
    """Sets [mask_start, mask_start + mask_width) of axis 1 (frequency) or 2 (time) to mask_value."""

    def __init__(self, mask_start, mask_width, mask_value, axis):
        self.mask_start = _args.non_negative(mask_start, "mask_start", integer=True)
        self.mask_width = _args.positive(mask_width, "mask_width", integer=True)
        self.mask_value = _args.number(mask_value, "mask_value", -_args.FLOAT_MAX, _args.FLOAT_MAX)
        self.axis = _args.number(axis, "axis", 1, 2, integer=True)

    def __call__(self, specgram):
        x = _spectrogram(specgram, "MaskAlongAxis")
        return _mask(x, self.mask_start, self.mask_width, self.mask_value, self.axis - 3)


class MaskAlongAxisIID(_Random):
    """A random band of width in [0, mask_param) along axis 1 (frequency) or 2 (time) set to mask_value."""

    def __init__(self, mask_param, mask_value, axis):
        super().__init__()
        self.mask_param = _args.non_negative(mask_param, "mask_param", integer=True)
        self.mask_value = _args.number(mask_value, "mask_value", -_args.FLOAT_MAX, _args.FLOAT_MAX)
        self.axis = _args.number(axis, "axis", 1, 2, integer=True)

    def __call__(self, specgram):
        x = _spectrogram(specgram, "MaskAlongAxisIID")
        length = x.shape[self.axis - 3]
        if self.mask_param > length:
            raise RuntimeError(f"MaskAlongAxisIID: invalid parameter, 'mask_param' should be less than or equal to "
                               f"the length of the masked dimension, but got: 'mask_param' {self.mask_param} and "
                               f"length {length}")
        start, width = self._band(self.mask_param, length)
        return _mask(x, start, width, self.mask_value, self.axis - 3)


class _AxisMasking(_Random):
    _axis, _param, _op = -2, "", ""

    def __init__(self, iid_masks, mask_param, mask_start, mask_value):
        super().__init__()
        self.iid_masks = _args.boolean(iid_masks, "iid_masks")
        self.mask_param = _args.non_negative(mask_param, self._param, integer=True)
        self.mask_start = _args.non_negative(mask_start, "mask_start", integer=True)
        self.mask_value = _args.number(mask_value, "mask_value", -_args.FLOAT_MAX, _args.FLOAT_MAX)

    def __call__(self, specgram):
        x = _spectrogram(specgram, self._op)
        length = x.shape[self._axis]
        if self.mask_param > length:
            name = "frequency_mask_param" if self._axis == -2 else "time_mask_param"
            axis = "frequency" if self._axis == -2 else "time"
            raise RuntimeError(f"{self._op}: invalid parameter, '{name}' should be less than or equal to the length "
                               f"of {axis} dimension, but got: '{name}' {self.mask_param} and length {length}")
        if self.iid_masks:
            start, width = self._band(self.mask_param, length)
        else:                       # 2.10 masks exactly [mask_start, mask_start + mask_param) (measured)
            start, width = self.mask_start, self.mask_param
        return _mask(x, start, width, self.mask_value, self._axis)


class FrequencyMasking(_AxisMasking):
    _axis, _param, _op = -2, "freq_mask_param", "FrequencyMasking"

    def __init__(self, iid_masks=False, freq_mask_param=0, mask_start=0, mask_value=0.0):
        super().__init__(iid_masks, freq_mask_param, mask_start, mask_value)


class TimeMasking(_AxisMasking):
    _axis, _param, _op = -1, "time_mask_param", "TimeMasking"

    def __init__(self, iid_masks=False, time_mask_param=0, mask_start=0, mask_value=0.0):
        super().__init__(iid_masks, time_mask_param, mask_start, mask_value)

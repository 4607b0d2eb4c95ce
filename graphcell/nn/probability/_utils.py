"""Checks and conversions shared by the distributions and the bijectors."""
from __future__ import annotations

import numpy as np

from ... import dtype as mstype
from ...tensor import Tensor

FLOAT_TYPES = (mstype.float16, mstype.float32, mstype.float64, mstype.bfloat16)
INT_TYPES = (mstype.int8, mstype.int16, mstype.int32, mstype.int64, mstype.uint8, mstype.uint16, mstype.uint32,
             mstype.uint64)
# 2.10 lists its float8 types too, which graphcell lacks
_EXTRA_FLOATS = ("float8_e4m3fn", "float8_e5m2", "hifloat8")


def _type_list(types) -> str:
    names = [str(t).lower() for t in types] + (list(_EXTRA_FLOATS) if mstype.float32 in types else [])
    return "[" + ", ".join(f"mindspore.{n}" for n in names) + "]"


def check_dtype(cls_name: str, dtype, allowed):
    if dtype not in allowed:
        raise TypeError(f"For '{cls_name}', the 'dtype' should be one of {_type_list(allowed)}, but got "
                        f"'mindspore.{str(dtype).lower()}'.")
    return dtype


def not_implemented(what: str, name: str):
    raise NotImplementedError(f"{what} is not implemented for {name} distribution.")


def host_value(value):
    """A construction parameter as a float32 numpy array (None stays None)."""
    if value is None:
        return None
    if isinstance(value, Tensor):
        return value.asnumpy().astype(np.float32)
    return np.asarray(value, dtype=np.float32)


def shown(value) -> str:
    """A parameter as 2.10's reprs print it: a 0-d value as its float32 scalar (0.3), else numpy's."""
    if value is None:
        return "None"
    return str(value[()]) if value.ndim == 0 else str(value)

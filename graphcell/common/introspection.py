"""MindSpore 2.10's small top-level queries: `get_py_obj_dtype`, `get_level`, `get_log_config`.

Measured on 2.10: get_py_obj_dtype(1) -> Int64, 1.0 -> Float64, True -> Bool, 'a' -> String,
[1] -> List, (1,) -> Tuple, None -> TypeNone, np.float32(1) -> Float32, 1+2j -> Complex128,
a Tensor -> Tensor[Float32], a dtype -> TypeType; a dict, ndarray or slice -> NotImplementedError
"The python type <class 'dict'> cannot be converted to MindSpore type.". get_level() -> '2' and
get_log_config() -> {'GLOG_v': '2', 'GLOG_logtostderr': '1'} with no GLOG_* set in the environment.
"""
from __future__ import annotations

import os

import numpy as np

from ..dtype import DType, TensorType, TypeCategory, bool_, complex128, float64, int64, list_, string, to_dtype
from ..dtype import tuple_, type_none

type_type = TypeCategory("type_type", "TypeType")


def get_py_obj_dtype(obj):
    from ..tensor import Tensor
    if isinstance(obj, Tensor):
        return TensorType(obj.dtype)
    if isinstance(obj, (DType, type)) and (isinstance(obj, DType) or obj in (bool, int, float, complex)):
        return type_type
    if isinstance(obj, np.generic):
        return to_dtype(obj.dtype)
    for py_type, found in ((bool, bool_), (int, int64), (float, float64), (complex, complex128), (str, string),
                           (list, list_), (tuple, tuple_)):
        if isinstance(obj, py_type):
            return found
    if obj is None:
        return type_none
    raise NotImplementedError(f"The python type {type(obj)} cannot be converted to MindSpore type.")


_GLOG_DEFAULTS = {"GLOG_v": "2", "GLOG_logtostderr": "1"}
_GLOG_OTHERS = ("GLOG_log_dir", "GLOG_stderrthreshold", "logger_maxBytes", "logger_backupCount")


def get_level() -> str:
    """The log level MindSpore's GLOG_v asks for ('2', warnings, unless the environment says)."""
    return os.environ.get("GLOG_v", _GLOG_DEFAULTS["GLOG_v"])


def get_log_config() -> dict:
    config = {key: os.environ.get(key, default) for key, default in _GLOG_DEFAULTS.items()}
    config.update({key: os.environ[key] for key in _GLOG_OTHERS if key in os.environ})
    return config

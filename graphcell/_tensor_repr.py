"""Tensor repr in MindSpore's form: `Tensor(shape=[2, 3], dtype=Float32, value=...)`."""
from __future__ import annotations

import numpy as np


def _element_formatter(dtype):
    if dtype.is_floating:
        digits = 4 if dtype.name == "float16" else 8
        return {"float_kind": lambda x: f"{float(x): .{digits}e}"}
    return None


def format_tensor(array: np.ndarray, dtype) -> str:
    head = f"Tensor(shape={list(array.shape)}, dtype={dtype}, value="
    if array.ndim == 0:
        value = array.item()
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        return f"{head} {value})"
    if dtype.name == "bfloat16":
        array = array.astype(np.float32)
    body = np.array2string(array, separator=", ", formatter=_element_formatter(dtype),
                           threshold=1000 if array.ndim == 1 else 36, edgeitems=3,
                           max_line_width=160)
    sep = " " if array.ndim == 1 else "\n"
    return f"{head}{sep}{body})"

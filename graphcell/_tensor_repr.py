"""Tensor repr in MindSpore's form: `Tensor(shape=[2, 3], dtype=Float32, value=...)`."""
from __future__ import annotations

import numpy as np


def _element_formatter(dtype):
    if dtype.is_complex:
        return {"complex_kind": _complex_text}
    if dtype.is_floating:
        digits = 4 if dtype.name == "float16" else 8
        return {"float_kind": lambda x: f"{float(x): .{digits}e}"}
    return None


def _scalar_text(array: np.ndarray) -> str:
    """A 0-d value in its shortest form in its own dtype (numpy's scalar str: 0.1, not float32's
    0.10000000149011612; 1e+20; -0), a whole float without its `.0` (MindSpore prints 2)."""
    value = array[()]
    if array.dtype.kind == "c":
        return _complex_text(value)
    if array.dtype.kind == "f" or array.dtype.name == "bfloat16":
        text = str(value)
        return text[:-2] if text.endswith(".0") else text
    return str(value.item())


def _complex_text(value) -> str:
    """MindSpore's form of a complex element: 1+2j, 3-1j, 0.5+1.5j (measured on 2.10)."""
    def part(x):
        text = str(x)
        return text[:-2] if text.endswith(".0") else text
    imag = part(value.imag)
    return f"{part(value.real)}{'' if imag.startswith('-') else '+'}{imag}j"


def format_tensor(array: np.ndarray, dtype) -> str:
    head = f"Tensor(shape={list(array.shape)}, dtype={dtype}, value="
    if array.ndim == 0:
        return f"{head} {_scalar_text(array)})"
    if dtype.name == "bfloat16":
        array = array.astype(np.float32)
    body = np.array2string(array, separator=", ", formatter=_element_formatter(dtype),
                           threshold=1000 if array.ndim == 1 else 36, edgeitems=3,
                           max_line_width=160)
    if array.ndim == 1:
        body = body.replace(", ..., ", " ... ")  # MindSpore's 1-D summary: `a, b, c ... x, y, z`
    sep = " " if array.ndim == 1 else "\n"
    return f"{head}{sep}{body})"


def format_inner_tensor(array: np.ndarray, dtype) -> str:
    """A Tensor as MindSpore 2.10 prints it inside a sparse tensor's repr: numpy's own layout,
    elements apart by spaces, no commas (`value=[0 1 2 2]`, a matrix from a new line)."""
    head = f"Tensor(shape={list(array.shape)}, dtype={dtype}, value="
    if dtype.name == "bfloat16":
        array = array.astype(np.float32)
    body = np.array2string(array, separator=" ", formatter=_element_formatter(dtype),
                           threshold=1000 if array.ndim == 1 else 36, edgeitems=3, max_line_width=160)
    return f"{head}{'' if array.ndim <= 1 else chr(10)}{body})"


def str_text(array: np.ndarray) -> str:
    """`str(tensor)`: numpy's str of the values, as MindSpore 2.10 prints it with its numpy 1.x.
    numpy 2 prints float16 arrays in scientific form from 1e3 on ([1.536e+03 3.072e+03] where
    2.10 prints [1536. 3072.], measured); its 1.25 legacy mode prints them as numpy 1 did."""
    if array.dtype == np.float16 and int(np.__version__.split(".")[0]) >= 2:
        with np.printoptions(legacy="1.25"):
            return str(array)
    return str(array)

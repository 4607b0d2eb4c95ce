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


# -- ops.Print inside a graph -------------------------------------------------------------------
# Measured on 2.10 (CPU, GRAPH_MODE): a 0-d Tensor prints as its value alone (C's %g: 0.333333,
# 2, 1e+20; a bool as 1/0); any other as `Tensor(shape=[2], dtype=Int32, value=[1 2 3])`, elements
# apart by spaces, padded to one width (a float as ` 1.00000000e+00`, 4 digits for float16, nan
# padded too; complex unpadded), a matrix from a new line, no blank lines between blocks. A
# vector of over 1000 elements shows 3 at each end around `...`; one of up to 1000 breaks its line
# after every 24th element (integers, complex) or 12th (floats, bools), the separator kept:
# `... 23 \n 24 ...`, `... 47\n ])`. With 2 or more dims, every axis longer than 6 shows 3 rows
# or columns at each end, whatever the size.

def _print_element_texts(array: np.ndarray):
    """Each element's text (unpadded) and whether texts are padded to one width."""
    kind = array.dtype.kind
    if kind == "c":
        return [_complex_text(v) for v in array.reshape(-1)], False
    if kind == "b":
        return [" True" if v else "False" for v in array.reshape(-1)], True   # numpy's width
    if kind == "f" or array.dtype.name == "bfloat16":
        digits = 4 if array.dtype == np.float16 else 8
        return [f"{float(v): .{digits}e}" if np.isfinite(v) else str(float(v)) for v in array.reshape(-1)], True
    return [str(v) for v in array.reshape(-1).tolist()], True


def _shown(n: int, summarize: bool) -> list:
    """The indices an axis of length n shows (None: the `...`)."""
    return [0, 1, 2, None, n - 3, n - 2, n - 1] if summarize and n > 6 else list(range(n))


def print_text(array: np.ndarray, dtype) -> str:
    """A Tensor as ops.Print (or print) shows it inside a compiled graph in MindSpore 2.10."""
    array = np.asarray(array)
    if array.ndim == 0:
        value = array[()]
        if array.dtype.kind == "b":
            return "1" if value else "0"
        if array.dtype.kind == "c":
            return _complex_text(value)
        if array.dtype.kind == "f" or array.dtype.name == "bfloat16":
            return format(float(value), "g")
        return str(value.item())
    head = f"Tensor(shape={list(array.shape)}, dtype={dtype}, value="
    if array.size == 0:   # 2.10 prints whatever memory holds: an empty list instead
        return f"{head}{'[]' if array.ndim == 1 else chr(10) + '[]'})"
    summarize = array.ndim > 1 or array.size > 1000
    index = np.ix_(*[[i for i in _shown(n, summarize) if i is not None] for n in array.shape])
    shown = array[index]
    texts, padded = _print_element_texts(shown)
    width = max(len(t) for t in texts) if padded else 0
    cells = np.array([t.rjust(width) for t in texts], dtype=object).reshape(shown.shape)
    if array.ndim == 1 and not summarize:
        per_line = 24 if array.dtype.kind in "iuc" else 12
        body = "".join(cell + (" " if i + 1 < len(cells) else "") + ("\n " if (i + 1) % per_line == 0 else "")
                       for i, cell in enumerate(cells))
        return f"{head}[{body}])"
    return f"{head}{'' if array.ndim == 1 else chr(10)}{_print_block(cells, array.shape, summarize, 0)})"


def _print_block(cells, shape, summarize: bool, depth: int) -> str:
    """`cells` (the shown elements' texts) nested in brackets, `...` where an axis is cut."""
    picks, k = [], 0
    for i in _shown(shape[0], summarize):
        picks.append(None if i is None else k)
        k += i is not None
    if len(shape) == 1:
        return "[" + " ".join("..." if p is None else cells[p] for p in picks) + "]"
    rows = ["..." if p is None else _print_block(cells[p], shape[1:], summarize, depth + 1) for p in picks]
    return "[" + ("\n" + " " * (depth + 1)).join(rows) + "]"

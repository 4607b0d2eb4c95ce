"""Ops that build, cut or combine matrices, with MindSpore 2.10's names and semantics:
matrix_band_part, matrix_diag / matrix_diag_part / matrix_set_diag (TensorFlow's V3 ops, with
their diagonal ranges k = (lower, upper) and alignments), diag_embed, diagflat, block_diag,
ger, vecdot, cartesian_prod, combinations, tril_indices and triu_indices.

All compose existing ops: the diagonal ops gather through an index table worked out in numpy
(the shapes are static), then select the padding, so they trace, vmap, differentiate and
export without rules of their own.
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from .. import dtype as mstype
from ..dtype import to_dtype
from ..tensor import Tensor
from . import functional as F

__all__ = ["matrix_band_part", "matrix_diag", "matrix_diag_part", "matrix_set_diag", "diag_embed", "diagflat",
           "block_diag", "ger", "vecdot", "cartesian_prod", "combinations", "tril_indices", "triu_indices"]

_ALIGNS = ("LEFT_RIGHT", "RIGHT_LEFT", "LEFT_LEFT", "RIGHT_RIGHT")


def _static_ints(op: str, name: str, value) -> tuple:
    """An int, a pair of ints or a constant integer Tensor of one or two, as a tuple of ints."""
    if isinstance(value, Tensor):
        if value.is_symbolic or not value.dtype.is_integer or value.ndim > 1:
            raise TypeError(f"For '{op}', '{name}' must be an int, a pair of ints or a constant integer Tensor, but "
                            f"got a {'traced ' if value.is_symbolic else ''}Tensor of shape {list(value.shape)}.")
        return tuple(int(v) for v in value.asnumpy().reshape(-1))
    if isinstance(value, (tuple, list)):
        values = tuple(value)
    else:
        values = (value,)
    if not values or len(values) > 2 or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                                                for v in values):
        raise TypeError(f"For '{op}', '{name}' must be an int or a pair of ints, but got {value!r}.")
    return tuple(int(v) for v in values)


def _diag_range(op: str, k) -> tuple[int, int, bool]:
    """(lower, upper, whether a range was given) from matrix_diag's k."""
    ks = _static_ints(op, "k", k)
    lo, hi = (ks[0], ks[0]) if len(ks) == 1 else ks
    if lo > hi:
        raise ValueError(f"For '{op}', k[0] must not be greater than k[1], but got k = {ks}.")
    return lo, hi, lo != hi


def _check_align(op: str, align) -> tuple[bool, bool]:
    """(left-align superdiagonals, left-align subdiagonals)."""
    if align not in _ALIGNS:
        raise ValueError(f"For '{op}', the 'align' must be str and must be in '{list(_ALIGNS)}', but got '{align}'.")
    return align.startswith("LEFT_"), align.endswith("_LEFT")


def _diag_layout(rows: int, cols: int, lo: int, hi: int, max_len: int, left_super: bool, left_sub: bool):
    """For each diagonal d of the band (upper first, as the V3 ops stack them), its elements'
    (row, col) and their place in the stacked [num_diags, max_len] array: yields
    (diag_row, position, i, j)."""
    for d in range(hi, lo - 1, -1):
        length = min(rows + min(0, d), cols - max(0, d))
        left = (d >= 0 and left_super) or (d <= 0 and left_sub)
        offset = 0 if left else max_len - length
        for t in range(max(length, 0)):
            yield hi - d, t + offset, t - min(d, 0), t + max(d, 0)


def _take_table(x: Tensor, axes: int, table: np.ndarray, out_shape: tuple) -> Tensor:
    """x's last `axes` axes flattened, then gathered by `table` (flat indices) into out_shape."""
    batch = x.shape[:x.ndim - axes]
    flat = F.reshape(x, batch + (math.prod(x.shape[x.ndim - axes:]),))
    picked = F.take_in_range(flat, Tensor(table.reshape(-1).astype(np.int32)), len(batch))
    return F.reshape(picked, batch + out_shape)


def _padding(value, dtype) -> Tensor:
    return F.cast(F.as_tensor(value), dtype)


def matrix_band_part(x, lower, upper):
    """x with every element outside the band zeroed: kept where (lower < 0 or i - j <= lower)
    and (upper < 0 or j - i <= upper), over the last two axes. lower and upper are ints or
    integer Tensors (traced ones too)."""
    x = F.as_tensor(x)
    if x.ndim < 2:
        raise ValueError(f"For primitive[MatrixBandPart], the x shape size must be greater than or equal to 2, but "
                         f"got {x.ndim}.")
    bounds = []
    for name, v in (("lower", lower), ("upper", upper)):
        t = F.as_tensor(v) if isinstance(v, Tensor) or isinstance(v, (int, np.integer)) and not isinstance(v, bool) \
            else None
        if t is None or not t.dtype.is_integer or t.dtype is mstype.bool_:
            got = t.dtype if t is not None else type(v).__name__
            raise TypeError(f"For primitive[MatrixBandPart], the input argument[{name}] must be a type of "
                            f"{{Int32, Int64}}, but got {got}.")
        bounds.append(F.cast(t, mstype.int32))
    offset = F.sub(F.reshape(F._positions(x, -1), (1, -1)), F.reshape(F._positions(x, -2), (-1, 1)))   # j - i
    keep_low = F.logical_or(F.less(bounds[0], 0), F.less_equal(F.neg(offset), bounds[0]))
    keep_up = F.logical_or(F.less(bounds[1], 0), F.less_equal(offset, bounds[1]))
    return F.select(F.logical_and(keep_low, keep_up), x, F.zeros_like(x))


def matrix_diag(x, k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """Matrices with x's values on the diagonals k (an int, or a range (lower, upper) whose
    diagonals are x's second-to-last axis, highest first) and padding_value elsewhere; the
    size is the smallest that holds them unless num_rows / num_cols say (TensorFlow's
    MatrixDiagV3). `align` places diagonals shorter than x's last axis."""
    x = F.as_tensor(x)
    lo, hi, banded = _diag_range("MatrixDiagV3", k)
    left_super, left_sub = _check_align("MatrixDiagV3", align)
    if x.ndim < 1 + banded:
        raise ValueError(f"For 'MatrixDiagV3', x must have at least {1 + banded} dimensions, but got {x.ndim}.")
    num_diags, max_len = (x.shape[-2] if banded else 1), x.shape[-1]
    if num_diags != hi - lo + 1:
        raise ValueError(f"For 'MatrixDiagV3', x.shape[-2] ({num_diags}) must equal the number of diagonals in k "
                         f"({hi - lo + 1}).")
    min_rows, min_cols = max_len - min(hi, 0), max_len + max(lo, 0)
    rows, cols = int(num_rows), int(num_cols)
    if rows == -1 and cols == -1:
        rows = cols = max(min_rows, min_cols)
    elif rows == -1:
        rows = min_rows
    elif cols == -1:
        cols = min_cols
    if rows < min_rows or cols < min_cols or (rows != min_rows and cols != min_cols):
        raise ValueError("For MatrixDiagV3, the number of rows or columns is not consistent with the specified k "
                         "and x.")
    table, mask = np.zeros((rows, cols), np.int64), np.zeros((rows, cols), bool)
    for drow, pos, i, j in _diag_layout(rows, cols, lo, hi, max_len, left_super, left_sub):
        table[i, j], mask[i, j] = drow * max_len + pos, True
    picked = _take_table(x, 1 + banded, table, (rows, cols))
    return F.select(Tensor(mask), picked, _padding(padding_value, x.dtype))


def _band_shape(op: str, x: Tensor, k) -> tuple:
    if x.ndim < 2:
        raise ValueError(f"For '{op}', x must have at least 2 dimensions, but got {x.ndim}.")
    lo, hi, banded = _diag_range(op, k)
    rows, cols = x.shape[-2:]
    if not (-rows < lo <= hi < cols) and rows and cols:
        raise ValueError(f"For '{op}', k must lie in ({-rows}, {cols}) for matrices of shape {[rows, cols]}, but "
                         f"got ({lo}, {hi}).")
    max_len = min(rows + min(hi, 0), cols - max(lo, 0))
    return lo, hi, banded, rows, cols, max_len


def matrix_diag_part(x, k, padding_value, align="RIGHT_LEFT"):
    """The diagonals k (an int, or a range (lower, upper)) of the matrices in x's last two axes:
    [..., max_len], or [..., num_diags, max_len] for a range (highest diagonal first), shorter
    diagonals aligned by `align` and padded with padding_value (TensorFlow's MatrixDiagPartV3)."""
    x = F.as_tensor(x)
    lo, hi, banded, rows, cols, max_len = _band_shape("MatrixDiagPartV3", x, k)
    left_super, left_sub = _check_align("MatrixDiagPartV3", align)
    pad = F.as_tensor(padding_value)
    if isinstance(padding_value, Tensor) and pad.dtype is not x.dtype:
        raise TypeError(f"For 'MatrixDiagPartV3', the dtype of two args should be same, but the dtype of first arg "
                        f"Tensor[{x.dtype}] is not consistent with the dtype of second arg Tensor[{pad.dtype}]")
    num_diags = hi - lo + 1
    table, mask = np.zeros((num_diags, max_len), np.int64), np.zeros((num_diags, max_len), bool)
    for drow, pos, i, j in _diag_layout(rows, cols, lo, hi, max_len, left_super, left_sub):
        table[drow, pos], mask[drow, pos] = i * cols + j, True
    picked = F.select(Tensor(mask), _take_table(x, 2, table, (num_diags, max_len)), _padding(pad, x.dtype))
    return picked if banded else F.reshape(picked, picked.shape[:-2] + (max_len,))


def matrix_set_diag(x, diagonal, k=0, align="RIGHT_LEFT"):
    """x with its diagonals k (an int or a range) replaced by `diagonal` ([..., max_len], or
    [..., num_diags, max_len] for a range, highest diagonal first; TensorFlow's MatrixSetDiagV3)."""
    x = F.as_tensor(x)
    lo, hi, banded, rows, cols, max_len = _band_shape("MatrixSetDiagV3", x, k)
    left_super, left_sub = _check_align("MatrixSetDiagV3", align)
    diag = F.cast(F.as_tensor(diagonal), x.dtype)
    if diag.shape[-1:] != (max_len,):
        raise ValueError(f"For MatrixSetDiagV3, diagonal.shape[-1] is not equal to max_diag_len calculated by "
                         f"min(x.shape[-2] + min(k[1], 0), x.shape[-1] + min(-k[0], 0)), which value is {max_len} "
                         f"in this case, but got diagonal.shape[-1]: {diag.shape[-1] if diag.ndim else 0}.")
    num_diags = hi - lo + 1
    if not banded:
        diag = F.expand_dims(diag, -2)
    want = x.shape[:-2] + (num_diags, max_len)
    if diag.shape != want:
        raise ValueError(f"For MatrixSetDiagV3, diagonal must have shape {list(want)}, but got "
                         f"{list(diag.shape)}.")
    table, mask = np.zeros((rows, cols), np.int64), np.zeros((rows, cols), bool)
    for drow, pos, i, j in _diag_layout(rows, cols, lo, hi, max_len, left_super, left_sub):
        table[i, j], mask[i, j] = drow * max_len + pos, True
    return F.select(Tensor(mask), _take_table(diag, 2, table, (rows, cols)), x)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):  # noqa: A002 - MindSpore's names
    """Matrices with input's last axis on diagonal `offset`, the two new axes at dim1 (rows)
    and dim2 (columns) of the result; the other axes keep their order (torch's diag_embed)."""
    x = F.as_tensor(input)
    out_ndim = x.ndim + 1
    axes = []
    for name, d in (("dim1", dim1), ("dim2", dim2)):
        if not -out_ndim <= int(d) < out_ndim:
            raise ValueError(f"For 'diag_embed', '{name}' must be in range of [{-out_ndim}, {out_ndim - 1}], but got "
                             f"{d}.")
        axes.append(int(d) % out_ndim)
    if axes[0] == axes[1]:
        raise ValueError("For 'diag_embed', 'dim1' must not be identical to 'dim2'.")
    offset = int(offset)
    n = x.shape[-1]
    size = n + abs(offset)
    table, mask = np.zeros((size, size), np.int64), np.zeros((size, size), bool)
    for t in range(n):
        table[t + max(-offset, 0), t + max(offset, 0)], mask[t + max(-offset, 0), t + max(offset, 0)] = t, True
    mats = F.select(Tensor(mask), _take_table(x, 1, table, (size, size)), F.zeros((), x.dtype))   # [..., rows, cols]
    batch = iter(range(x.ndim - 1))
    perm = [x.ndim - 1 if a == axes[0] else x.ndim if a == axes[1] else next(batch) for a in range(out_ndim)]
    return F.transpose(mats, tuple(perm))


def diagflat(input, offset=0):  # noqa: A002
    """A square matrix with the flattened input on diagonal `offset`. A bool input gives
    float32 (measured on 2.10)."""
    x = F.reshape(F.as_tensor(input), (-1,))
    if x.dtype is mstype.bool_:
        x = F.cast(x, mstype.float32)
    return diag_embed(x, offset)


def block_diag(*inputs):
    """The 0-, 1- and 2-D inputs as the blocks of one block-diagonal matrix (a 0-D input is a
    1 x 1 block, a 1-D one a row); dtypes promote."""
    if len(inputs) == 1 and isinstance(inputs[0], (tuple, list)):
        inputs = tuple(inputs[0])
    if not inputs:
        raise ValueError("For 'block_diag', the input is empty.")
    blocks = [F.as_tensor(t) for t in inputs]
    for t in blocks:
        if t.ndim > 2:
            raise ValueError(f"For 'block_diag', the dimension of each elements in 'inputs' must be 0, 1, or 2, but "
                             f"got {t.ndim}")
    dtype = blocks[0].dtype
    for t in blocks[1:]:
        dtype = F._pair(F.zeros((), dtype), F.zeros((), t.dtype))[0].dtype
    blocks = [F.cast(F.reshape(t, (1,) * (2 - t.ndim) + t.shape), dtype) for t in blocks]
    width = sum(t.shape[1] for t in blocks)
    rows, left = [], 0
    for t in blocks:
        rows.append(F.pad(t, [(0, 0), (left, width - left - t.shape[1])]))
        left += t.shape[1]
    return F.concat(rows, 0)


def ger(input, vec2):  # noqa: A002
    """The outer product of two 1-D float tensors of one dtype: out[i, j] = input[i] * vec2[j].
    Two bool vectors give float32 (measured)."""
    x, y = F.as_tensor(input), F.as_tensor(vec2)
    if x.dtype is mstype.bool_ and y.dtype is mstype.bool_:
        x, y = F.cast(x, mstype.float32), F.cast(y, mstype.float32)
    for name, t in (("x1", x), ("x2", y)):
        if t.dtype not in (mstype.float16, mstype.float32, mstype.float64):
            raise TypeError(f"For primitive[Ger], the input argument[{name}] must be a type of {{Tensor[Float16], "
                            f"Tensor[Float32], Tensor[Float64]}}, but got Tensor[{t.dtype}].")
        if t.ndim != 1:
            raise ValueError(f"For primitive[Ger], the {name} rank must be equal to 1, but got {t.ndim}.")
    if x.dtype is not y.dtype:
        raise TypeError(f"For primitive[Ger], the input type must be same, but got {x.dtype} and {y.dtype}.")
    return F.mul(F.reshape(x, (-1, 1)), F.reshape(y, (1, -1)))


def vecdot(x, y, *, axis=-1):
    """sum(conj(x) * y) along `axis`, the inputs broadcast. Integers sum in int64 and bools in
    float32, as 2.10 (measured; complex x is conjugated: vecdot([1+1j, 2-1j], [0.5-1j, -1+2j]) is
    -4.5+1.5j)."""
    a, b = F._pair(x, y)
    if a.dtype.is_complex:
        from .complex_ops import conj
        a = conj(a)
    prod = F.mul(a, b)
    if prod.dtype is mstype.bool_:
        prod = F.cast(F.mul(F.cast(a, mstype.float32), F.cast(b, mstype.float32)), mstype.float32)
    elif prod.dtype.is_integer:
        prod = F.mul(F.cast(a, mstype.int64), F.cast(b, mstype.int64))
    return F.reduce_sum(prod, F._axis(int(axis), prod.ndim, "vecdot: axis"))


def cartesian_prod(*inputs):
    """Every combination of one element from each 1-D input, in row-major order: [prod(n_i),
    len(inputs)] (a single input gives [n, 1], as 2.10)."""
    if len(inputs) == 1 and isinstance(inputs[0], (tuple, list)):
        inputs = tuple(inputs[0])
    tensors = [F.as_tensor(t) for t in inputs]
    if not tensors:
        raise ValueError("For 'cartesian_prod', the input is empty.")
    if any(t.dtype is not tensors[0].dtype for t in tensors):
        raise ValueError("For Primitive [Meshgrid], all tensors should have the same type.")
    for t in tensors:
        if t.ndim != 1:
            raise ValueError(f"For 'cartesian_prod', every input must be 1-D, but got shape {list(t.shape)}.")
    shape = tuple(t.shape[0] for t in tensors)
    columns = []
    for i, t in enumerate(tensors):
        view = [1] * len(tensors)
        view[i] = shape[i]
        columns.append(F.reshape(F.broadcast_to(F.reshape(t, tuple(view)), shape), (-1,)))
    return F.stack(columns, 1)


def combinations(input, r=2, with_replacement=False):  # noqa: A002
    """The length-r combinations of a 1-D input's elements, in itertools' order: [count, r]
    (an empty [0] when r exceeds the length without replacement, as 2.10)."""
    x = F.as_tensor(input)
    if x.ndim != 1:
        raise ValueError(f"For 'combinations', the dimension 'x' must be 1, but got {x.ndim}")
    if not isinstance(r, int) or isinstance(r, bool) or r <= 0:
        raise ValueError(f"For 'combinations', 'r' must be a positive int, but got {r!r}.")
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    table = np.asarray(list(pick(range(x.shape[0]), r)), np.int32)
    if table.size == 0:
        return F.zeros((0,), x.dtype)
    return F.take_in_range(x, Tensor(table), 0)


def _triangle_indices(op: str, row, col, offset, dtype, pick) -> Tensor:
    for name, v in (("row", row), ("col", col)):
        if isinstance(v, Tensor) or not isinstance(v, (int, np.integer)) or isinstance(v, bool):
            raise TypeError(f"For '{op}', the '{name}' must be int, but got '{type(v).__name__}'.")
        if v < 0:
            raise ValueError(f"For '{op}', the '{name}' must be int and must >= 0, but got '{v}' with type 'int'.")
    dtype = to_dtype(dtype)
    if dtype not in (mstype.int32, mstype.int64):
        raise TypeError(f"For '{op}', the 'dtype' should be one of [mindspore.int32, mindspore.int64], but got "
                        f"'mindspore.{dtype.name}'.")
    rows, cols = pick(int(row), int(offset), int(col))
    return Tensor(np.stack([rows, cols]).astype(dtype.np_dtype))


def tril_indices(row, col, offset=0, *, dtype=mstype.int64):
    """The [2, N] (row, column) coordinates of a row x col matrix's lower triangle (j <= i +
    offset), row by row."""
    return _triangle_indices("TrilIndices", row, col, offset, dtype, np.tril_indices)


def triu_indices(row, col, offset=0, *, dtype=mstype.int64):
    """The [2, N] (row, column) coordinates of a row x col matrix's upper triangle (j >= i +
    offset), row by row."""
    return _triangle_indices("TriuIndices", row, col, offset, dtype, np.triu_indices)

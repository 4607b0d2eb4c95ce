"""ONNX rule for `resize` (ops/resize.py): one Resize node where onnxruntime picks the same taps
as XLA, else the same gathers and weighted sums XLA runs.

onnxruntime maps output d to input coordinates in float32, dividing by the scale (out / in, or
the scale_factor) where MindSpore multiplies by its reciprocal, so a nearest index can land one
off at an exact integer or half-integer. The nearest modes are a Resize only where onnxruntime's
indices, worked out here, are MindSpore's (linear and cubic weights are continuous at integers, so
there rounding moves a value by an ulp at most). Bicubic reads its weights at the fraction
rounded to 1/1024 (TensorFlow's table); Resize computes them exactly, so it is used only where
no fraction is rounded. onnxruntime's Resize has kernels for float32, int32, int8 and uint8.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ..ops import resize as R
from .onnx import LowerCtx, Sym

_RESIZE_DTYPES = (np.float32, np.int32, np.int8, np.uint8)


def _floor_indices(n_in: int, n_out: int, scale) -> np.ndarray:
    """The input index onnxruntime's nearest Resize (asymmetric, floor) reads for each output,
    given `scale` (the scales input) or the sizes (scale = out / in): d / scale in float32,
    which reproduced onnxruntime 1.32 on every size pair from 1 to 40 and nine scale factors."""
    f32 = np.float32
    s = f32(scale) if scale is not None else f32(n_out) / f32(n_in)
    return np.clip(np.floor(np.arange(n_out).astype(f32) / s), 0, n_in - 1).astype(np.int64)


def _rounded_indices(n_in: int, n_out: int, scale):
    """nearest-exact's indices where no output's half-pixel source coordinate lies within 1e-4
    of a half-integer, else None: onnxruntime rounds such ties up or down depending on float
    arithmetic no emulation here reproduced, and away from them any arithmetic agrees."""
    ratio = Fraction(n_in, n_out) if scale is None else 1 / Fraction(float(np.float32(scale)))
    index = []
    for d in range(n_out):
        x = Fraction(2 * d + 1, 2) * ratio - Fraction(1, 2)
        frac = x - math.floor(x)
        if abs(frac - Fraction(1, 2)) < Fraction(1, 10_000):
            return None
        index.append(math.floor(x) + (frac > Fraction(1, 2)))
    return np.clip(index, 0, n_in - 1).astype(np.int64)


def _resize_attrs(in_sizes: tuple, sizes: tuple, method: str, align_corners: bool, scales):
    """Resize's attributes (and whether it reads `scales`) reproducing the taps, or None."""
    if scales is not None and any({math.floor(np.float32(s) * np.float32(n)), math.floor(float(np.float32(s)) * n)}
                                  != {o} for s, n, o in zip(scales, in_sizes, sizes)):
        return None   # onnxruntime sizes its output from the float32 product, ONNX's shape inference in double
    if scales is not None and any(n == o and np.float32(s) != 1 for s, n, o in zip(scales, in_sizes, sizes)):
        return None   # onnxruntime copies an axis whose size does not change
    if method.startswith("nearest"):
        for i, (n, o) in enumerate(zip(in_sizes, sizes)):
            scale = None if scales is None else scales[i]
            theirs = _floor_indices(n, o, scale) if method == "nearest" else _rounded_indices(n, o, scale)
            if theirs is None or not np.array_equal(R.taps(n, o, method, False, scale)[0][0], theirs):
                return None
        if method == "nearest":
            return dict(mode="nearest", coordinate_transformation_mode="asymmetric", nearest_mode="floor")
        return dict(mode="nearest", coordinate_transformation_mode="half_pixel", nearest_mode="round_prefer_ceil")
    transform = "align_corners" if align_corners else "half_pixel"
    if method == "linear":
        return dict(mode="linear", coordinate_transformation_mode=transform)
    if not _cubic_fractions_exact(in_sizes, sizes, align_corners, scales):
        return None
    if align_corners:
        return dict(mode="cubic", coordinate_transformation_mode=transform, cubic_coeff_a=-0.75)
    return dict(mode="cubic", coordinate_transformation_mode=transform, cubic_coeff_a=-0.5, exclude_outside=1)


def _cubic_fractions_exact(in_sizes, sizes, align_corners, scales) -> bool:
    f32 = np.float32
    for i, (n, o) in enumerate(zip(in_sizes, sizes)):
        step = R._step(n, o, align_corners, None if scales is None else scales[i])
        d = np.arange(o).astype(f32)
        s = d * step if align_corners else step * (d + f32(0.5)) - f32(0.5)
        frac = s - np.floor(s)
        if not np.array_equal(np.rint(frac * f32(1024)) / f32(1024), frac):
            return False
    return True


def resize(ctx: LowerCtx, x, *, sizes, method, align_corners, scales):
    in_type = ctx.in_types[0]
    k, rank = len(sizes), in_type.ndim
    in_sizes = in_type.shape[rank - k:]
    if any(isinstance(d, Sym) for d in ctx.in_dims[0][rank - k:]):
        ctx.fail("the resized axes must have static sizes (here one follows the batch)")
    attrs = None
    dtype = in_type.dtype.np_dtype
    if dtype in _RESIZE_DTYPES and (method.startswith("nearest") or dtype == np.float32) and \
            not (method == "cubic" and k > 2):
        attrs = _resize_attrs(in_sizes, sizes, method, align_corners, scales)
    if attrs is None:
        return _gathers(ctx, x, sizes, method, align_corners, scales)
    # Linear and cubic Resize take [N, C, spatial...] (2 or 3 spatial axes; cubic 2): other
    # leading axes are merged into N, and a 1-D resize gets a unit axis before its own.
    # [N, C, L] takes the unit axis by an Unsqueeze, which keeps N's name for shape inference.
    unit_axis = not method.startswith("nearest") and rank == 3 and k == 1
    if method.startswith("nearest") or (rank == k + 2 and k >= 2):
        layout = in_type.shape
    elif unit_axis:
        layout = in_type.shape[:2] + (1,) + tuple(in_sizes)
    else:
        layout = (-1, 1) + (1,) * (k == 1) + tuple(in_sizes)
    if unit_axis:
        y = ctx.op("Unsqueeze", x, ctx.ints([2]))
    else:
        y = x if tuple(layout) == in_type.shape else ctx.op("Reshape", x, ctx.ints(list(layout)))
    lead = len(layout) - k
    if ctx.opset >= 18:   # the resized axes only: inference keeps the others (static ones; ONNX's
        axes = list(range(lead, lead + k))   # Resize inference drops a symbol even at scale 1)
        size_or_scale = ("", ctx.ints(list(sizes))) if scales is None else \
            (ctx.const(np.asarray(scales, np.float32)),)
        y = ctx.op("Resize", y, "", *size_or_scale, axes=axes, **attrs)
    elif scales is None:   # the output's full shape: a dynamic batch's size computed at run time
        if tuple(layout) == in_type.shape:
            shape_out = ctx.shape_tensor(ctx.out_dims[0], minus_one=False)
        else:
            shape_out = ctx.op("Concat", ctx.op("Shape", y, start=0, end=lead), ctx.ints(list(sizes)), axis=0)
        y = ctx.op("Resize", y, "", "", shape_out, **attrs)
    else:
        y = ctx.op("Resize", y, "", ctx.const(np.asarray([1.0] * lead + list(scales), np.float32)), **attrs)
    if tuple(layout) != in_type.shape:   # ONNX's Resize inference drops the batch's name: declared
        merged = _merged(ctx.in_dims[0][:rank - k]) if not unit_axis else None
        if unit_axis or merged is not None:
            lead_dims = ctx.in_dims[0][:2] + (1,) if unit_axis else (merged,) + tuple(layout[1:lead])
            ctx.declare(y, lead_dims + tuple(sizes))
    if unit_axis:
        return ctx.op("Squeeze", y, ctx.ints([2]))
    return y if tuple(layout) == in_type.shape else ctx.op("Reshape", y, ctx.shape_tensor(ctx.out_dims[0]))


def _merged(dims: tuple):
    """The size of `dims` merged into one axis (an int, or a Sym with one symbol), or None."""
    syms = [d for d in dims if isinstance(d, Sym)]
    static = int(np.prod([d for d in dims if not isinstance(d, Sym)]))
    if not syms:
        return static
    return syms[0].times(static) if len(syms) == 1 else None


def _gathers(ctx, x, sizes, method, align_corners, scales):
    """XLA's form: per axis, the last first, each tap gathered and weighted, then summed."""
    in_type = ctx.in_types[0]
    lead = in_type.ndim - len(sizes)
    dtype = in_type.dtype.np_dtype
    for i, (index, weight) in reversed(list(enumerate(R._axis_taps(in_type.shape, sizes, method, align_corners,
                                                                    scales)))):
        axis = lead + i
        if method.startswith("nearest"):
            x = ctx.op("Gather", x, ctx.const(index[0].astype(np.int64)), axis=axis)
            continue
        shape = (-1,) + (1,) * (in_type.ndim - axis - 1)
        terms = [ctx.op("Mul", ctx.op("Gather", x, ctx.const(index[j].astype(np.int64)), axis=axis),
                        ctx.const(weight[j].astype(dtype).reshape(shape)))
                 for j in range(index.shape[0])]
        x = terms[0]
        for term in terms[1:]:
            x = ctx.op("Add", x, term)
    return x

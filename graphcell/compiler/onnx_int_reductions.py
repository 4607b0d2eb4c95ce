"""Integer sums and products in ONNX, exact and wrapping as XLA's (two's complement).

onnxruntime 1.32's ReduceSum, ReduceProd and ReduceL1 on int32 and int64 accumulate in double
(measured): the int64 sum of [2**53 + 1, 0, 0] came back 2**53, a product of two numbers near
2**31 lost its last bits, and overflow saturated (int32's 2**31 - 1 plus 1 gave 2**31 - 1, XLA's
gives -2**31). Its MatMul, Mul and CumSum are exact integer arithmetic and wrap. So a sum is a
MatMul by a vector of ones, also 4-16x faster than the ReduceSum ([1024, 1024] int64: 0.4-0.7
against 2.5-4.9 ms; int32 0.2-0.3 against 0.7-5.3 ms, either axis; one thread), and a product
a tree of halving Muls (ceil(log2 k) of them over a reduced size k). Only int32 and int64 reach
here: smaller integers and the unsigned ones are computed in those (compiler/onnx_widen.py; a
batched uint32 MatMul failed in onnxruntime), the same ring once cast back.

The reduced axes are taken one contiguous run at a time, each viewed as [pre, k, post].
A product over a reduced axis of dynamic size is left to ReduceProd (exact below 2**53 only).
"""
from __future__ import annotations

import numpy as np

from .onnx import Sym


def _runs(axes) -> list[tuple[int, int]]:
    """Sorted axes as contiguous (start, stop) runs, last run first (reducing it keeps the
    earlier runs' axis numbers)."""
    runs = []
    for a in sorted(axes):
        if runs and runs[-1][1] == a:
            runs[-1] = (runs[-1][0], a + 1)
        else:
            runs.append((a, a + 1))
    return runs[::-1]


def _product(dims):
    """The product of `dims` as an int, or None where one is dynamic."""
    return None if any(isinstance(d, Sym) for d in dims) else int(np.prod(dims, dtype=np.int64))


def _view3(ctx, x, dims, start, stop):
    """x viewed as [pre, k, post] around the axes start:stop, and the three sizes (None where
    dynamic)."""
    pre, k, post = _product(dims[:start]), _product(dims[start:stop]), _product(dims[stop:])
    if None not in (pre, k, post):
        target = ctx.ints([pre, k, post])
    else:   # from the run-time shape
        shape = ctx.op("Shape", x)

        def size(lo, hi):
            if lo == hi:
                return ctx.ints([1])
            return ctx.op("ReduceProd", ctx.op("Slice", shape, ctx.ints([lo]), ctx.ints([hi])), keepdims=1)
        target = ctx.op("Concat", size(0, start), size(start, stop), size(stop, len(dims)), axis=0)
    return ctx.op("Reshape", x, target), (pre, k, post)


def integer_sum(ctx, x, dims, axes, out_dims, np_dtype):
    """The sum of integer tensor x (int32, int64, uint32 or uint64; `dims` its dims) over
    `axes`, reshaped to `out_dims`."""
    from .onnx_rules import reshape
    dims = list(dims)
    for start, stop in _runs(axes):
        x3, (pre, k, post) = _view3(ctx, x, dims, start, stop)
        if k is not None:
            ones = ctx.const(np.ones(k, np_dtype))
        else:
            k_size = ctx.op("ReduceProd", ctx.op("Slice", ctx.op("Shape", x3), ctx.ints([1]), ctx.ints([2])), keepdims=1)
            ones = ctx.op("Expand", ctx.const(np.ones(1, np_dtype)), k_size)
        if post == 1:   # [pre, k] @ ones: one matrix-vector product
            x = ctx.op("MatMul", ctx.op("Squeeze", x3, ctx.ints([2])), ones)
        else:           # ones @ [pre, k, post] -> [pre, post]
            x = ctx.op("MatMul", ones, x3)
        dims = dims[:start] + dims[stop:]
        x = reshape(ctx, x, dims)
    return reshape(ctx, x, out_dims)


def integer_prod(ctx, x, dims, axes, out_dims, np_dtype):
    """The product of integer tensor x over `axes`, as integer_sum's, by halving Muls
    (ReduceProd where a reduced size is dynamic)."""
    from .onnx_rules import reshape
    dims = list(dims)
    if any(isinstance(dims[a], Sym) for a in axes):
        return ctx.op("ReduceProd", x, ctx.ints(list(axes)), keepdims=0) if ctx.opset >= 18 else \
            ctx.op("ReduceProd", x, axes=list(axes), keepdims=0)
    one = ctx.const(np.ones((), np_dtype))
    for start, stop in _runs(axes):
        x, (pre, k, post) = _view3(ctx, x, dims, start, stop)
        if k == 0:   # an empty product: ones of shape [pre, post]
            x = ctx.op("Expand", one, ctx.op("Gather", ctx.op("Shape", x), ctx.ints([0, 2])))
        while k > 1:
            if k % 2:   # one more factor of 1 makes the halves equal
                x = ctx.op("Pad", x, ctx.ints([0, 0, 0, 0, 1, 0]), one, mode="constant")
                k += 1
            half = k // 2
            lo = ctx.op("Slice", x, ctx.ints([0]), ctx.ints([half]), ctx.ints([1]))
            hi = ctx.op("Slice", x, ctx.ints([half]), ctx.ints([k]), ctx.ints([1]))
            x = ctx.op("Mul", lo, hi)
            k = half
        dims = dims[:start] + dims[stop:]
        x = reshape(ctx, x, dims)
    return reshape(ctx, x, out_dims)


__all__ = ["integer_prod", "integer_sum"]

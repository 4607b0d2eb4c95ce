"""`write_rows`: a copy of `x` with rows [M, R...] written at the leading-axis positions idx [M],
in place where the backend can (XLA updates a buffer carried by a while loop in place).

    %b2:f32[64,3] = write_rows(%b, %i, %row)          # %i: i32[1], %row: f32[1,3]

Why a primitive: the scatters composed of existing primitives (`setitem`, `tensor_scatter_update`)
select between the whole input and the written values, so a write costs the input's size, and a
loop that fills a buffer of C snapshots one write per iteration costs C times its body (the
checkpoints of `while_recompute_vjp.py`). `scatter_add` writes one row, but into a zeroed row
only: x + v is not v for every float. Indices are clamped into [0, S), as XLA's gathers and
`take` clamp; distinct indices are expected (of two writes to one row, either may win).

Rules: jax `x.at[clip(idx)].set(rows)`; ONNX ScatterND; batch: an unbatched index
writes every member's rows at once (the members' axis second), a per-member index writes the
members' rows laid end to end (one scatter, indices offset per member, as `take`'s rule
gathers); vjp: the cotangent with the written rows zeroed, and its rows at idx.
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from ..ir.core import TensorType
from . import batching
from .ad_util import F
from .primitive import Primitive, check
from .shape_ops import take


def _write_rows_rule(x: TensorType, idx: TensorType, rows: TensorType) -> TensorType:
    check(idx.dtype.is_integer and idx.ndim == 1, f"write_rows: indices must be 1-D integers, got {idx}")
    check(x.ndim >= 1 and rows.dtype is x.dtype and rows.shape == idx.shape + x.shape[1:],
          f"write_rows: rows {rows} do not fit {idx.shape[0]} rows of {x}")
    return x


def _write_rows_impl(x, idx, rows):
    x = jnp.asarray(x)
    # clamped first: jax's indexing would count a negative index from the end
    return x.at[jnp.clip(idx, 0, x.shape[0] - 1)].set(rows, mode="promise_in_bounds")


write_rows = Primitive("write_rows", _write_rows_rule, _write_rows_impl)


def _write_rows_host(x, idx, rows):
    """The same in numpy, for constant folding."""
    out = np.array(x, copy=True)
    out[np.clip(idx, 0, len(out) - 1)] = rows
    return out


write_rows.host_impl = _write_rows_host


def write_row(buffer, index, row):
    """`buffer` with `buffer[index] = row` for a scalar integer Tensor `index`."""
    return write_rows.bind(buffer, F.reshape(index, (1,)), F.expand_dims(row, 0))


@write_rows.def_batch
def _write_rows_batch(ctx, args, dims):
    (x, idx, rows), (dx, di, dr) = args, dims
    n = ctx.axis_size
    if di is None:  # the members' axis second: every member's rows go to the same positions
        x, rows = batching.materialize(x, dx, n, 1), batching.materialize(rows, dr, n, 1)
        return write_rows.bind(x, idx, rows), 1
    x, rows = batching.materialize(x, dx, n, 0), batching.materialize(rows, dr, n, 0)
    idx = batching.move(idx, di, 0)                                   # [N, M]
    size, m = x.shape[1], idx.shape[1]
    idx = F.clamp(idx, 0, size - 1)                                   # clamp per member, as the write does
    offsets = F.reshape(F.arange(0, n * size, size, dtype=idx.dtype), (n, 1))
    flat = write_rows.bind(F.reshape(x, (n * size,) + x.shape[2:]), F.reshape(F.add(idx, offsets), (n * m,)),
                           F.reshape(rows, (n * m,) + rows.shape[2:]))
    return F.reshape(flat, x.shape), 0


@write_rows.def_vjp
def _write_rows_vjp(ctx, cts, primals, outs):
    x, idx, rows = primals
    ct = cts[0]
    ct_x = write_rows.bind(ct, idx, F.zeros_like(rows)) if ctx.needs[0] else None
    ct_rows = take.bind(ct, idx, axis=0) if ctx.needs[2] else None
    return ct_x, None, ct_rows


@write_rows.def_onnx
def _write_rows_onnx(ctx, x, idx, rows):
    from ..compiler.onnx_rules import clip_index, unsqueeze
    return ctx.op("ScatterND", x, unsqueeze(ctx, clip_index(ctx, idx, ctx.in_dims[0][0]), [-1]), rows)

"""dot_general: matrix products with explicit contracting and batch axes (lax's form).

Output axes are the batch axes, then lhs free axes, then rhs free axes. The vmap pass only
has to add a batch axis pair; matmul, Dense and einsum-like contractions are built on it.
"""
from __future__ import annotations

import jax

from ..ir.core import TensorType
from .primitive import Primitive, check, same_dtype


def _dot_rule(x: TensorType, y: TensorType, *, contract: tuple, batch: tuple) -> TensorType:
    (lc, rc), (lb, rb) = contract, batch
    dtype = same_dtype("dot_general", x, y)
    check(len(lc) == len(rc) and len(lb) == len(rb), "dot_general: unpaired axes")
    for a, b in zip(lc + lb, rc + rb):
        check(0 <= a < x.ndim and 0 <= b < y.ndim, f"dot_general: axes out of range for {x} and {y}")
        check(x.shape[a] == y.shape[b],
              f"dot_general: axis {a} of {list(x.shape)} ({x.shape[a]}) does not match "
              f"axis {b} of {list(y.shape)} ({y.shape[b]})")
    free_x = [d for i, d in enumerate(x.shape) if i not in lc + lb]
    free_y = [d for i, d in enumerate(y.shape) if i not in rc + rb]
    return TensorType(tuple([x.shape[a] for a in lb] + free_x + free_y), dtype)


def _dot_impl(x, y, *, contract, batch):
    return jax.lax.dot_general(x, y, (contract, batch), preferred_element_type=x.dtype)


dot_general = Primitive("dot_general", _dot_rule, _dot_impl)

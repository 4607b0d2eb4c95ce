"""The refusal of complex tensors by ops that MindSpore 2.10 does not compute on them.

Ops built from real-only pieces (comparisons, max, floor) would otherwise either fail deep inside
with a jax/numpy error or, worse, quietly use the real part. MindSpore 2.10 refuses each of these
with a TypeError (measured on CPU: isnan, isclose, nan_to_num, std, relu, softmax, lerp, cdist,
amax, the norms other than Frobenius/2, softplus, gelu, floor_mod, trunc division); so does this,
naming the op and the dtype.
"""
from __future__ import annotations

__all__ = ["refuse_complex_tensors"]


def refuse_complex_tensors(op: str, *tensors) -> None:
    """A TypeError when any of `tensors` (Tensors or anything with a `dtype`) is complex."""
    for t in tensors:
        dtype = getattr(t, "dtype", None)
        if dtype is not None and getattr(dtype, "is_complex", False):
            raise TypeError(f"For '{op}', the input must be a real tensor (float, integer or bool), "
                            f"but got Tensor[{dtype}]: MindSpore 2.10 does not support complex inputs here.")

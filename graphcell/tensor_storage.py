"""Tensor methods about where and how a Tensor is stored (MindSpore 2.10's names, values measured
on its CPU build): device, strides, data pointer, DLPack, pinned memory, an in-place dtype change,
and the dense-to-sparse conversions.

graphcell's Tensors are whole jax arrays on the host, never views: strides are always the
contiguous ones and the storage offset 0 (2.10 reports a view's own strides, e.g. [1, 3] for the
transpose of a [2, 3] Tensor; graphcell reports [2, 1], the strides of the copy it holds).
"""
from __future__ import annotations

import math

from . import dtype as mstype

_DEVICES = ["Ascend", "GPU", "CPU"]
_BAD_CAPSULE = ("from_dlpack received an invalid capsule. Note that DLTensor capsules can be consumed only once, "
                "so you might have already constructed a tensor from it once.")


def _contiguous_strides(shape) -> list:
    return [math.prod(shape[i + 1:]) for i in range(len(shape))]


class _Capsule:
    """A DLPack capsule as jax's from_dlpack takes it (an object with __dlpack__), host memory."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **_):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)   # kDLCPU, device 0


def from_dlpack(dlpack):
    """The Tensor sharing a DLPack capsule's memory (a capsule is consumed once: 2.10's message
    for a second use). Objects with `__dlpack__` (torch, numpy, jax arrays) work too."""
    import jax

    from .tensor import Tensor
    source = _Capsule(dlpack) if type(dlpack).__name__ == "PyCapsule" else dlpack
    if not hasattr(source, "__dlpack__"):
        raise RuntimeError(_BAD_CAPSULE)
    try:
        array = jax.dlpack.from_dlpack(source)
    except Exception as e:   # a used capsule: jax's message names its internals
        raise RuntimeError(_BAD_CAPSULE) from e
    return Tensor._wrap(array)


def to_dlpack(tensor):
    """A DLPack capsule of the Tensor's memory (for torch.utils.dlpack.from_dlpack, ...)."""
    return tensor._concrete("to_dlpack()").__dlpack__()


class TensorStorageMethods:
    __slots__ = ()

    @property
    def device(self) -> str:
        """'CPU': graphcell's Tensors live on the host (2.10's CPU build says 'CPU')."""
        return "CPU"

    def stride(self, dim=None):
        """The step in elements along each axis (a list), or along `dim` (an int)."""
        strides = _contiguous_strides(self.shape)
        return strides if dim is None else strides[dim]   # 2.10: an IndexError past the last axis

    @property
    def strides(self) -> tuple:
        """The step in bytes along each axis (a tuple; deprecated in 2.10 but there)."""
        return tuple(s * self.dtype.itemsize for s in _contiguous_strides(self.shape))

    def storage_offset(self) -> int:
        return 0

    def data_ptr(self) -> int:
        """The address of the first element of the Tensor's host buffer."""
        return self._concrete("data_ptr()").unsafe_buffer_pointer()

    def to_dlpack(self):
        return to_dlpack(self)

    from_dlpack = staticmethod(from_dlpack)

    def move_to(self, to, blocking=True):
        """A copy on device `to`: 'CPU' only here (2.10's messages for a bad name and another device)."""
        if to not in _DEVICES:
            raise ValueError(f"The value of 'to' must be one of {_DEVICES}, but got {to}")
        if to != "CPU":
            raise RuntimeError(f"The value of arg 'to' of method 'move_to' should be same with device target, bug got "
                               f"to:{to}, device target: CPU")
        return self.clone()

    def is_pinned(self) -> bool:
        return False

    def pin_memory(self):
        """2.10's CPU build has no pinned memory (it raises, asking for an Ascend device): so does graphcell."""
        raise RuntimeError("pin_memory: pinned memory needs an Ascend device; graphcell's Tensors live in "
                           "ordinary host memory (is_pinned() is False)")

    def set_dtype(self, dtype):
        """Casts this Tensor in place to `dtype` (float to int truncates) and returns the dtype."""
        from .tensor import _check_writable_here
        dtype = mstype.to_dtype(dtype)
        _check_writable_here(self, "set_dtype")
        self._payload = self.astype(dtype)._payload
        return dtype

    def isreal(self):
        """Bool Tensor: True where the imaginary part is 0 (everywhere for a real dtype)."""
        from .ops import functional as F
        if not self.dtype.is_complex:
            return F.ones(self.shape, mstype.bool_)
        return F.equal(self.imag(), 0)

    def to_coo(self):
        """The COOTensor of this 2-D Tensor's nonzeros (int32 indices, row-major). Eager only."""
        if self.ndim == 1:   # 2.10 builds the COOTensor before checking (measured)
            raise ValueError(f"For COOTensor, the length of 'shape' must be 2, but got {tuple(self.shape)}.")
        from .ops.sparse_ops import dense_to_sparse_coo
        return dense_to_sparse_coo(self)

    def to_csr(self):
        """The CSRTensor of this 2-D float Tensor's nonzeros (int32 indptr and indices). Eager only."""
        from .ops.sparse_ops import dense_to_sparse_csr
        return dense_to_sparse_csr(self)

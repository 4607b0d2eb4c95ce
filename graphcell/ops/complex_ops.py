"""Complex numbers: the primitives that cross between real and complex dtypes (real, imag,
conj, complex) and MindSpore 2.10's ops over them (angle, polar, view_as_real, is_complex).

Gradients follow jax's convention (a vjp is the transpose of the linear map, without
conjugation), so a real loss through complex intermediates has jax.grad's gradient.
ONNX has no complex tensors: the export carries complex values as real pairs
(compiler/onnx_complex.py), and the model's inputs and outputs must be real.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

from .. import dtype as mstype
from ..ir.core import TensorType
from . import batching
from . import elementwise as ew
from .ad_util import F
from .elementwise import broadcast_shapes
from .primitive import Primitive, ShapeError, same_dtype

__all__ = ["real", "imag", "conj", "adjoint", "angle", "polar", "view_as_real", "is_complex"]


def _part_rule(name):
    def rule(x: TensorType) -> TensorType:
        if not x.dtype.is_complex:
            raise ShapeError(f"{name} needs a complex tensor, got {x}")
        return TensorType(x.shape, x.dtype.real_dtype)
    return rule


def _conj_rule(x: TensorType) -> TensorType:
    if not x.dtype.is_complex:
        raise ShapeError(f"conj needs a complex tensor, got {x}")
    return x


def _complex_rule(re: TensorType, im: TensorType) -> TensorType:
    dtype = same_dtype("complex", re, im)
    if dtype not in (mstype.float32, mstype.float64):
        raise ShapeError(f"complex needs float32 or float64 parts, got {re}, {im}")
    return TensorType(broadcast_shapes("complex", re.shape, im.shape),
                      mstype.complex64 if dtype is mstype.float32 else mstype.complex128)


real_part = Primitive("real", _part_rule("real"), jnp.real)
imag_part = Primitive("imag", _part_rule("imag"), jnp.imag)
conjugate = Primitive("conj", _conj_rule, jnp.conj)
make_complex = Primitive("complex", _complex_rule, lambda re, im: jax.lax.complex(*jnp.broadcast_arrays(re, im)))
for _p in (real_part, imag_part, conjugate):
    _p.def_batch(batching.vectorized(_p))
make_complex.def_batch(batching.broadcasting(make_complex))


@real_part.def_vjp
def _real_vjp(ctx, cts, primals, outs):
    return (make_complex.bind(cts[0], F.zeros_like(cts[0])),)


@imag_part.def_vjp
def _imag_vjp(ctx, cts, primals, outs):
    return (make_complex.bind(F.zeros_like(cts[0]), F.neg(cts[0])),)


@conjugate.def_vjp
def _conj_vjp(ctx, cts, primals, outs):
    return (conjugate.bind(cts[0]),)


@make_complex.def_vjp
def _complex_vjp(ctx, cts, primals, outs):
    from .ad_util import unbroadcast
    (re, im), (ct,) = primals, cts
    return unbroadcast(real_part.bind(ct), re.shape), unbroadcast(F.neg(imag_part.bind(ct)), im.shape)


def is_complex(input):  # noqa: A002 - MindSpore's names
    """True when `input` is a complex Tensor."""
    from ..tensor import Tensor
    if not isinstance(input, Tensor):
        raise TypeError(f"For 'is_complex', the input must be a Tensor, but got {type(input).__name__}")
    return input.dtype.is_complex


def real(input):  # noqa: A002
    """The real part; a real tensor is its own (MindSpore 2.10, measured: an Int32 stays Int32)."""
    x = F.as_tensor(input)
    return real_part.bind(x) if x.dtype.is_complex else x


def imag(input):  # noqa: A002
    """The imaginary part; zeros of a real tensor's dtype (MindSpore 2.10, measured)."""
    x = F.as_tensor(input)
    return imag_part.bind(x) if x.dtype.is_complex else F.zeros_like(x)


def conj(input):  # noqa: A002
    """The complex conjugate; a real tensor is its own."""
    x = F.as_tensor(input)
    return conjugate.bind(x) if x.dtype.is_complex else x


def adjoint(x):
    """The conjugate transpose of the last two axes (mT of a real tensor), MindSpore 2.10's
    ops.adjoint and Tensor.mH (measured: mH conjugates, mT does not)."""
    x = F.as_tensor(x)
    if x.ndim < 2:
        raise ValueError(f"For 'adjoint', the input must have at least 2 dimensions, got {x.ndim}")
    return conj(F.swapaxes(x, -2, -1))


def complex_from(re, im):
    """re + i*im from two float32 or float64 tensors (broadcasting)."""
    return make_complex.bind(*F._pair(re, im))


def angle(input):  # noqa: A002
    """The argument atan2(imag, real) of a complex tensor, in its real dtype. MindSpore 2.10
    refuses real tensors (a TypeError, measured)."""
    x = F.as_tensor(input)
    if not x.dtype.is_complex:
        raise TypeError(f"For 'angle', the input must be a complex tensor, but got {x.dtype}")
    return ew.atan2.bind(imag_part.bind(x), real_part.bind(x))


def polar(abs, angle):  # noqa: A002 - MindSpore's names
    """abs * (cos(angle) + i sin(angle)); float32 or float64 only (MindSpore 2.10's message)."""
    r, theta = F.as_tensor(abs), F.as_tensor(angle)
    for name, t in (("abs", r), ("angle", theta)):
        if t.dtype not in (mstype.float32, mstype.float64):
            raise TypeError(f"For primitive[Polar], the input argument[{name}] must be a type of "
                            f"{{Tensor[Float32], Tensor[Float64]}}, but got Tensor[{t.dtype}].")
    return complex_from(F.mul(r, F.cos(theta)), F.mul(r, F.sin(theta)))


def view_as_real(input):  # noqa: A002
    """A complex tensor as real pairs along a new last axis of 2 (real, imag)."""
    x = F.as_tensor(input)
    if not x.dtype.is_complex:
        raise TypeError("For view_as_real, the dtype of input Tensor must be complex.")
    return F.stack([real_part.bind(x), imag_part.bind(x)], -1)

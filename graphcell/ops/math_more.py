"""MindSpore 2.10's remaining small math operators, over existing ops: the complex-number
classes (ops.Complex, Real, Imag, Conj, Angle, ComplexAbs, Polar, ConjugateTranspose),
`approximate_equal` / ApproximateEqual, `intopk` / InTopK, `isreal`, `addbmm` and `bidense`.
Values and dtypes as measured on 2.10's CPU build (tests/test_math_more.py)."""
from __future__ import annotations

from .. import dtype as mstype
from . import complex_ops as C
from . import composite as CP
from . import math_ops as M
from . import functional as F
from .op_base import Operator, check_float, check_int, exporter

__all__ = ["approximate_equal", "intopk", "isreal", "addbmm", "bidense"]
CLASSES: list[str] = []
_export = exporter(CLASSES)


def approximate_equal(x, y, tolerance=1e-05):
    """|x - y| < tolerance, elementwise (bool)."""
    x, y = F._pair(x, y)
    return F.less(F.abs(F.sub(x, y)), tolerance)


def intopk(x1, x2, k):
    """Whether each row's target class is among its k largest: fewer than k entries of the row of
    `x1` [N, C] exceed x1[n, x2[n]] (ties count in, TensorFlow's in_top_k and 2.10's, measured)."""
    x1, x2 = F.as_tensor(x1), F.as_tensor(x2)
    if x1.ndim != 2 or x2.ndim != 1:
        raise ValueError(f"For 'InTopK', x1 must be 2-D and x2 1-D, but got shapes {list(x1.shape)} and "
                         f"{list(x2.shape)}.")
    target = F.gather_elements(x1, 1, F.expand_dims(F.cast(x2, mstype.int64), 1))
    above = F.reduce_sum(F.cast(F.greater(x1, target), mstype.int32), 1)
    return F.less(above, k)


def isreal(input):  # noqa: A002
    """True where the imaginary part is zero; every element of a real tensor."""
    x = F.as_tensor(input)
    if not x.dtype.is_complex:
        return F.cast(F.ones_like(x), mstype.bool_)
    return F.equal(C.imag(x), 0)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):  # noqa: A002
    """beta * input + alpha * sum_b batch1[b] @ batch2[b]."""
    b1, b2 = F.as_tensor(batch1), F.as_tensor(batch2)
    if b1.ndim != 3 or b2.ndim != 3:
        raise ValueError(f"For 'addbmm', batch1 and batch2 must be 3-D, but got shapes {list(b1.shape)} and "
                         f"{list(b2.shape)}.")
    return CP.addmm(input, F.reshape(F.transpose(b1, (1, 0, 2)), (b1.shape[1], -1)),
                    F.reshape(b2, (-1, b2.shape[2])), beta=beta, alpha=alpha)


def bidense(input1, input2, weight, bias=None):
    """The bilinear map y[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] (+ bias)."""
    x1, x2, w = F.as_tensor(input1), F.as_tensor(input2), F.as_tensor(weight)
    lead = x1.shape[:-1]
    x1 = F.reshape(x1, (-1, x1.shape[-1]))
    x2 = F.reshape(x2, (-1, x2.shape[-1]))
    # (x1 @ W_o) . x2 for every o: [N, in1] x [in1, out*in2] -> [N, out, in2]
    mixed = F.reshape(F.matmul(x1, F.reshape(F.transpose(w, (1, 0, 2)), (w.shape[1], -1))),
                      (x1.shape[0], w.shape[0], w.shape[2]))
    y = F.reduce_sum(F.mul(mixed, F.expand_dims(x2, 1)), 2)
    if bias is not None:
        y = F.add(y, bias)
    return F.reshape(y, lead + (w.shape[0],))


# == classes =====================================================================================

def _simple(name, fn, doc):
    cls = type(name, (Operator,), {"__call__": lambda self, *xs: fn(*xs), "__doc__": doc, "__module__": __name__})
    return _export(cls)


Complex = _simple("Complex", C.complex_from, "real + i*imag from two float tensors")
Real = _simple("Real", C.real, "the real part (float32 of complex64)")
Imag = _simple("Imag", C.imag, "the imaginary part")
Conj = _simple("Conj", C.conj, "the complex conjugate")
Angle = _simple("Angle", C.angle, "the argument atan2(imag, real)")
ComplexAbs = _simple("ComplexAbs", lambda x: M.hypot(C.real(x), C.imag(x)),
                     "|x| of a complex tensor, in its real dtype (ops.abs keeps the complex dtype)")
Polar = _simple("Polar", C.polar, "abs * (cos(angle) + i sin(angle))")


@_export
class ConjugateTranspose(Operator):
    """The conjugate of the transpose by `perm` (given to the call)."""

    def __call__(self, x, perm):
        return C.conj(F.transpose(F.as_tensor(x), tuple(perm)))


@_export
class ApproximateEqual(Operator):
    """|x - y| < tolerance."""

    def __init__(self, tolerance=1e-05):
        super().__init__(tolerance=check_float("ApproximateEqual", "tolerance", tolerance))

    def __call__(self, x, y):
        return approximate_equal(x, y, self.tolerance)


@_export
class InTopK(Operator):
    """`intopk` with k given to the constructor."""

    def __init__(self, k):
        super().__init__(k=check_int("InTopK", "k", k))

    def __call__(self, x1, x2):
        return intopk(x1, x2, self.k)

"""MindSpore 2.10's gamma-family Cells: DiGamma, LGamma, IGamma and LBeta, over the ops.

Their dtype checks and messages are 2.10's, measured (DiGamma, LGamma and LBeta take float16
and float32, IGamma float32 only). Their values are the ops', not 2.10's Cells' own float32
series: 2.10's LGamma gives -1.07e-6 for lgamma(2) = 0 and NaN gradients at 2, its LBeta
NaN gradients everywhere, its IGamma NaN for a's gradient at (2, 3). LBeta is computed in
float64 (lgamma(x) + lgamma(y) - lgamma(x + y) cancels in float32 for large arguments).
"""
from __future__ import annotations

from ... import dtype as mstype
from ...ops import functional as F
from ...ops import math_ops, special_functions
from ..cell import Cell

__all__ = ["DiGamma", "LGamma", "IGamma", "LBeta"]


def _check(cell: str, name: str, x, allowed):
    x = F.as_tensor(x)
    if x.dtype not in allowed:
        names = ", ".join(f"mindspore.{d.name}" for d in allowed)
        expected = allowed[0].ms_name if len(allowed) == 1 else f"one of [{names}]"
        raise TypeError(f"For '{cell}', the '{name}' should be {expected}, but got 'mindspore.{x.dtype.name}'.")
    return x


_HALF_SINGLE = (mstype.float16, mstype.float32)


class DiGamma(Cell):
    """digamma(x), elementwise."""

    def construct(self, x):
        return math_ops.digamma(_check("DiGamma", "x", x, _HALF_SINGLE))


class LGamma(Cell):
    """log |gamma(x)|, elementwise."""

    def construct(self, x):
        return math_ops.lgamma(_check("LGamma", "x", x, _HALF_SINGLE))


class IGamma(Cell):
    """The regularized lower incomplete gamma function P(a, x)."""

    def construct(self, a, x):
        return special_functions.igamma(_check("IGamma", "a", a, (mstype.float32,)),
                                        _check("IGamma", "x", x, (mstype.float32,)))


class LBeta(Cell):
    """log |B(x, y)| = lgamma(x) + lgamma(y) - lgamma(x + y), in float64."""

    def __init__(self):
        super().__init__()
        self.lgamma = LGamma()

    def construct(self, x, y):
        x = _check("LBeta", "x", x, _HALF_SINGLE)
        y = _check("LBeta", "y", y, (x.dtype,))
        x64, y64 = F.cast(x, mstype.float64), F.cast(y, mstype.float64)
        out = F.sub(F.add(math_ops.lgamma(x64), math_ops.lgamma(y64)), math_ops.lgamma(F.add(x64, y64)))
        return F.cast(out, x.dtype)

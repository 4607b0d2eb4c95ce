"""mindspore.mint.special: torch.special's names for functions mint has at its top level too."""
from __future__ import annotations

from .. import ops
from ..ops import functional as F
from .math import erfc, exp2, expm1, log1p, sinc  # noqa: F401


def round(input):  # noqa: A001,A002 - mint's names
    """Half to even, as torch.special.round (no decimals)."""
    return ops.round(input)


def log_softmax(input, dim=None, *, dtype=None):  # noqa: A002
    """log(softmax(input)) along dim (the last axis for None), computed stably; dtype casts first."""
    x = F.as_tensor(input) if dtype is None else F.cast(input, dtype)
    return ops.log_softmax(x, -1 if dim is None else dim)

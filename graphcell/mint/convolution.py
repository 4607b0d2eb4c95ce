"""mint's top-level convolutions: conv2d with torch's `padding` (an int, a pair, 'valid' or
'same') and conv_tbc (time-batch-channel layout), both over graphcell.ops' convolutions."""
from __future__ import annotations

from .. import ops
from ..ops import functional as F


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002 - mint's names
    """The 2-D convolution of NCHW input; padding an int or (h, w) pads both sides, 'valid'
    none, 'same' keeps the size (stride 1)."""
    if isinstance(padding, str):
        if padding not in ("valid", "same"):
            raise ValueError(f"For 'conv2d', padding must be 'valid', 'same', an int or a pair, but got {padding!r}")
        return ops.conv2d(input, weight, bias, stride, padding, 0, dilation, groups)
    return ops.conv2d(input, weight, bias, stride, "pad", padding, dilation, groups)


def conv_tbc(input, weight, bias, pad=0):  # noqa: A002
    """The 1-D convolution of input [time, batch, in] with weight [kernel, in, out] and bias
    [out], `pad` steps of zeros at both ends of time: [time + 2 pad - kernel + 1, batch, out]."""
    x = ops.permute(input, (1, 2, 0))          # [batch, in, time]
    w = ops.permute(weight, (2, 1, 0))         # [out, in, kernel]
    out = ops.conv1d(x, w, None, 1, "pad", pad)
    return F.add(ops.permute(out, (2, 0, 1)), bias)

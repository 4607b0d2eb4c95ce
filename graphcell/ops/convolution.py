"""ops.conv1d and ops.conv_transpose2d (MindSpore 2.10's functional convolutions beside
functional.conv2d), and `conv_transpose_padded`, the transposed convolution that the
Conv*Transpose layers compute.

A transposed convolution is the input gradient of a convolution, so every form here binds the
`conv_transpose` primitive (ops/nn_prims.py: XLA through jax's transpose of
conv_general_dilated, ONNX ConvTranspose), whose attrs describe that forward convolution.
"""
from __future__ import annotations

import numbers

from . import functional as F
from . import nn_prims
from .functional import Tensor


def _ints(value, n: int, name: str, op: str) -> tuple:
    """An int or a tuple/list of n ints as an n-tuple, else MindSpore's ValueError/TypeError."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return (int(value),) * n
    if isinstance(value, (tuple, list)) and len(value) == n and all(
            isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in value):
        return tuple(int(v) for v in value)
    if isinstance(value, (tuple, list)):
        raise ValueError(f"For '{op}', {name} must be a tuple/list with {n} element{'s' * (n > 1)} or int, "
                         f"but got {value}.")
    raise TypeError(f"For '{op}', {name} must be a tuple, list or int, but got {type(value).__name__}.")


def conv_padded(x, weight, stride, padding, dilation, groups=1) -> Tensor:
    """The convolution of x [N, C, spatial...] by weight [O, C/groups, k...] with explicit
    ((lo, hi), ...) padding: what the layers compute from their pad modes, any rank."""
    x, weight = F._pair(x, weight)
    return nn_prims.conv.bind(x, weight, strides=tuple(stride), padding=tuple(tuple(p) for p in padding),
                              lhs_dilation=(1,) * len(stride), rhs_dilation=tuple(dilation), groups=groups,
                              batch_groups=1)


def conv1d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):  # noqa: A002
    """MindSpore's ops.conv1d: input [N, C, L], weight [O, C/groups, k] (3-D, unlike nn.Conv1d's
    stored [O, C/groups, 1, k]), bias [O]. pad_mode 'valid' (no padding), 'same' (the odd extra
    element after) or 'pad' (`padding`, an int or a 1-tuple, on both sides). Nonzero `padding`
    with another pad_mode is an error, as in MindSpore."""
    x, weight = F._pair(input, weight)
    if x.ndim != 3:
        raise ValueError(f"For 'conv1d', the input must be a 3D Tensor, but got input of {x.ndim}D.")
    if weight.ndim != 3:
        raise ValueError(f"For 'conv1d', the weight must be a 3D Tensor, but got input of {weight.ndim}D.")
    (stride,), (dilation,) = _ints(stride, 1, "stride", "conv1d"), _ints(dilation, 1, "dilation", "conv1d")
    (pad,) = _ints(padding, 1, "padding", "conv1d")
    out_channel, kernel = weight.shape[0], weight.shape[2]
    if x.shape[1] % groups or out_channel % groups:
        raise ValueError(f"The argument 'groups' should be divisible by 'in_channel' and 'out_channel', but got "
                         f"group:{groups}, in_channel:{x.shape[1]}, out_channel:{out_channel}.")
    mode = pad_mode.lower() if isinstance(pad_mode, str) else pad_mode
    if mode not in ("same", "valid", "pad"):
        raise ValueError(f"For 'conv1d', pad_mode must be 'same', 'valid' or 'pad', got {pad_mode!r}")
    if mode != "pad" and pad:
        raise ValueError(f"For 'conv1d', padding must be 0 when pad_mode is not 'pad', but got padding "
                         f"{padding} and pad_mode {pad_mode!r}.")
    pads = (F.same_padding(x.shape[2], kernel, stride, dilation) if mode == "same" else (pad, pad),)
    out = conv_padded(x, weight, (stride,), pads, (dilation,), groups)
    if bias is None:
        return out
    bias = F.as_tensor(bias, out.dtype)
    if bias.ndim != 1 or bias.shape[0] != out_channel:
        raise ValueError(f"For 'conv1d', given weight of size {tuple(weight.shape)}, expected bias to be "
                         f"1-dimensional with {out_channel} elements, but got bias of size {tuple(bias.shape)} instead.")
    return F.add(out, F.reshape(bias, (1, -1, 1)))


def conv_transpose_padded(x, weight, stride, crop, size, dilation, groups=1) -> Tensor:
    """The transposed convolution of x [N, I, H...] by weight [I, O/groups, k...] along every
    spatial axis: of its full output, (H-1)*stride + dilation*(k-1) + 1 long, the `size`
    elements from `crop` on, zeros past the full output's end (what MindSpore's 'valid' mode
    keeps when the kernel is shorter than the stride, and torch's output_padding past the
    padding). One conv_transpose node, plus a pad where the zeros reach beyond what the forward
    convolution's skipped tail can express (output_padding >= stride)."""
    x, weight = F._pair(x, weight)
    nsp = x.ndim - 2
    lhs, padding, extra = [], [], []
    for i in range(nsp):
        h, k, s, d = x.shape[2 + i], weight.shape[2 + i], stride[i], dilation[i]
        full = (h - 1) * s + d * (k - 1) + 1
        if size[i] < 1 or crop[i] < 0 or crop[i] >= full:
            raise ValueError(f"transposed convolution: an output of {size[i]} from element {crop[i]} on is "
                             f"empty or starts past the full output ({full} long) on spatial axis {i}")
        hi = max(full - crop[i] - size[i], 0)
        # The forward convolution reads x_len + lo + hi = full + r elements, r < stride of them
        # past its last window (rows it skips, zero gradient): the zeros ONNX calls output_padding.
        tail = size[i] - (full - crop[i] - hi)
        kept = size[i] if tail < s else full - crop[i] - hi
        lhs.append(kept)
        padding.append((crop[i], hi))
        extra.append(size[i] - kept)
    out = nn_prims.conv_transpose.bind(x, weight, lhs_shape=tuple(lhs), strides=tuple(stride),
                                       padding=tuple(padding), rhs_dilation=tuple(dilation), groups=groups)
    return F.pad(out, [(0, 0), (0, 0)] + [(0, e) for e in extra]) if any(extra) else out


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,  # noqa: A002
                     dilation=1):
    """MindSpore 2.10's ops.conv_transpose2d (mint.nn.functional's, torch's semantics): input
    [N, I, H, W] or [I, H, W], weight [I, O/groups, kh, kw], bias [O]. Output size per axis
    (H-1)*stride - 2*padding + dilation*(k-1) + output_padding + 1; output_padding computes
    values (unlike nn.Conv2dTranspose's, which appends zeros) and must be below
    max(stride, dilation). MindSpore 2.10's CPU build has no kernel for it ("The kernel
    ConvTranspose2D unregistered"); these are its documented semantics, checked against torch."""
    x, weight = F._pair(input, weight)
    unbatched = x.ndim == 3
    if unbatched:
        x = F.expand_dims(x, 0)
    if x.ndim != 4 or weight.ndim != 4:
        raise ValueError(f"For 'conv_transpose2d', input must be 3-D or 4-D and weight 4-D "
                         f"[in, out/groups, kh, kw], got input {tuple(F.as_tensor(input).shape)} and weight "
                         f"{tuple(weight.shape)}")
    op = "conv_transpose2d"
    stride, dilation = _ints(stride, 2, "stride", op), _ints(dilation, 2, "dilation", op)
    padding, output_padding = _ints(padding, 2, "padding", op), _ints(output_padding, 2, "output_padding", op)
    if x.shape[1] != weight.shape[0] or weight.shape[0] % groups:
        raise ValueError(f"For 'conv_transpose2d', the input's {x.shape[1]} channels must equal the weight's "
                         f"first axis ({weight.shape[0]}) and split into groups={groups}")
    for name, values, low in (("stride", stride, 1), ("dilation", dilation, 1), ("padding", padding, 0),
                              ("output_padding", output_padding, 0)):
        if any(v < low for v in values):
            raise ValueError(f"For 'conv_transpose2d', {name} must be at least {low}, got {values}")
    if any(o >= max(s, d) for o, s, d in zip(output_padding, stride, dilation)):
        raise ValueError(f"For 'conv_transpose2d', output_padding {output_padding} must be smaller than "
                         f"max(stride, dilation) on each axis (stride {stride}, dilation {dilation})")
    size = tuple((h - 1) * s - 2 * p + d * (k - 1) + o + 1 for h, s, p, d, k, o in
                 zip(x.shape[2:], stride, padding, dilation, weight.shape[2:], output_padding))
    out = conv_transpose_padded(x, weight, stride, padding, size, dilation, groups)
    if bias is not None:
        out = F.add(out, F.reshape(F.as_tensor(bias, out.dtype), (1, -1, 1, 1)))
    return F.squeeze(out, 0) if unbatched else out


__all__ = ["conv1d", "conv_transpose2d", "conv_padded", "conv_transpose_padded"]

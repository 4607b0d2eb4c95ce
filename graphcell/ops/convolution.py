"""ops.conv1d, ops.conv3d, ops.conv_transpose2d and ops.conv3d_transpose (MindSpore 2.10's
functional convolutions beside functional.conv2d), and `conv_transpose_padded`, the transposed
convolution that the Conv*Transpose layers compute.

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


def _conv_nd(op: str, nsp: int, input, weight, bias, stride, pad_mode, padding, dilation, groups):  # noqa: A002
    """MindSpore's ops.conv1d / ops.conv3d over [N, C, spatial...] (nsp spatial axes): pad_mode
    'valid' (no padding), 'same' (the odd extra element after) or 'pad' (`padding`, an int or
    nsp ints, on both sides of each axis)."""
    x, weight = F._pair(input, weight)
    rank = nsp + 2
    if x.ndim != rank:
        raise ValueError(f"For '{op}', the input must be a {rank}D Tensor, but got input of {x.ndim}D.")
    if weight.ndim != rank:
        raise ValueError(f"For '{op}', the weight must be a {rank}D Tensor, but got input of {weight.ndim}D.")
    stride, dilation = _ints(stride, nsp, "stride", op), _ints(dilation, nsp, "dilation", op)
    pads = _ints(padding, nsp, "padding", op)
    out_channel, kernel = weight.shape[0], weight.shape[2:]
    if x.shape[1] % groups or out_channel % groups:
        raise ValueError(f"The argument 'groups' should be divisible by 'in_channel' and 'out_channel', but got "
                         f"group:{groups}, in_channel:{x.shape[1]}, out_channel:{out_channel}.")
    mode = pad_mode.lower() if isinstance(pad_mode, str) else pad_mode
    if mode not in ("same", "valid", "pad"):
        raise ValueError(f"For '{op}', pad_mode must be 'same', 'valid' or 'pad', got {pad_mode!r}")
    if mode != "pad" and any(pads):
        raise ValueError(f"For '{op}', padding must be 0 when pad_mode is not 'pad', but got padding "
                         f"{padding} and pad_mode {pad_mode!r}.")
    if mode == "same":
        pairs = tuple(F.same_padding(x.shape[2 + i], kernel[i], stride[i], dilation[i]) for i in range(nsp))
    else:
        pairs = tuple((p, p) for p in pads)
    out = conv_padded(x, weight, stride, pairs, dilation, groups)
    if bias is None:
        return out
    bias = F.as_tensor(bias, out.dtype)
    if bias.ndim != 1 or bias.shape[0] != out_channel:
        raise ValueError(f"For '{op}', given weight of size {tuple(weight.shape)}, expected bias to be "
                         f"1-dimensional with {out_channel} elements, but got bias of size {tuple(bias.shape)} instead.")
    return F.add(out, F.reshape(bias, (1, -1) + (1,) * nsp))


def conv1d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):  # noqa: A002
    """MindSpore's ops.conv1d: input [N, C, L], weight [O, C/groups, k] (3-D, unlike nn.Conv1d's
    stored [O, C/groups, 1, k]), bias [O]. pad_mode 'valid' (no padding), 'same' (the odd extra
    element after) or 'pad' (`padding`, an int or a 1-tuple, on both sides). Nonzero `padding`
    with another pad_mode is an error, as in MindSpore."""
    return _conv_nd("conv1d", 1, input, weight, bias, stride, pad_mode, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):  # noqa: A002
    """MindSpore's ops.conv3d: input [N, C, D, H, W], weight [O, C/groups, kd, kh, kw], bias [O].
    pad_mode as conv1d's; 'pad' takes `padding` as an int or (d, h, w), each padding both sides
    of its axis (MindSpore 2.10 refuses six values here, unlike nn.Conv3d)."""
    return _conv_nd("conv3d", 3, input, weight, bias, stride, pad_mode, padding, dilation, groups)


def transposed_extent(pad_mode: str, pads, spatial, kernel, stride, dilation):
    """(crop, size) per spatial axis of MindSpore's transposed convolution, as parts of the full
    output ((H-1)*stride + dilation*(k-1) + 1 long): the input gradient of the convolution with
    these arguments over an input of `size` elements ('valid': H*stride + max(k_eff - stride, 0),
    zeros at the end where the kernel is shorter than the stride; 'same': H*stride, the odd
    cropped element at the end; 'pad': (lo, hi) cropped). Measured against MindSpore 2.10."""
    crop, size = [], []
    for h, k, s, d, (lo, hi) in zip(spatial, kernel, stride, dilation, pads):
        k_eff = d * (k - 1) + 1
        if pad_mode == "valid":
            crop.append(0)
            size.append(h * s + max(k_eff - s, 0))
        elif pad_mode == "same":
            crop.append(max(k_eff - s, 0) // 2)
            size.append(h * s)
        else:
            crop.append(lo)
            size.append(h * s - (lo + hi) + k_eff - s)
    return tuple(crop), tuple(size)


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


def _check_3d_transpose_args(pad_mode: str, output_padding, stride, dilation):
    """MindSpore 2.10's Conv3DTranspose checks: a depth dilation of 1, and output_padding (pad
    mode 'pad' only) below max(stride, dilation) on each axis."""
    if dilation[0] != 1:
        raise ValueError(f"For 'Conv3DTranspose', the depth of parameter 'dilation' must be 1, but got {dilation[0]}.")
    if any(output_padding) and pad_mode != "pad":
        raise ValueError(f"For 'Conv3DTranspose', the 'output_padding' must be zero or (0, 0, 0) when 'pad_mode' "
                         f"is not \"pad\", but got 'output_padding' is {output_padding} and 'pad_mode' is {pad_mode}.")
    for axis, o, s, d in zip("dhw", output_padding, stride, dilation):
        if o >= max(s, d):
            raise ValueError(f"For 'Conv3DTranspose', the 'output_padding_{axis} belonging [0, max(stride_{axis}, "
                             f"dilation_{axis}))' must be in range of [0, {max(s, d)}), but got {o} with type 'int'.")


def conv3d_transpose_padded(x, weight, pad_mode: str, pads, stride, dilation, group, output_padding) -> Tensor:
    """What nn.Conv3dTranspose and ops.conv3d_transpose compute (no bias): the transposed
    extent of `pad_mode` ((lo, hi) `pads` per axis in 'pad' mode), extended by output_padding
    elements that are computed, as torch's, not zeros as Conv2dTranspose's (measured on
    MindSpore 2.10)."""
    crop, size = transposed_extent(pad_mode, pads, x.shape[2:], weight.shape[2:], stride, dilation)
    size = tuple(n + o for n, o in zip(size, output_padding))
    return conv_transpose_padded(x, weight, stride, crop, size, dilation, group)


def conv3d_transpose(inputs, weight, pad_mode="valid", padding=0, stride=1, dilation=1, group=1,
                     output_padding=0):
    """MindSpore 2.10's ops.conv3d_transpose: inputs [N, I, D, H, W], weight [I, O/group, kd, kh,
    kw], no bias. `padding` an int or six ints (head, tail, top, bottom, left, right), 'pad'
    mode only; output_padding (an int or three, 'pad' mode only) adds computed elements at the
    end of each axis; the depth dilation must be 1."""
    op = "conv3d_transpose"
    x, weight = F._pair(inputs, weight)
    if x.ndim != 5 or weight.ndim != 5:
        raise ValueError(f"For '{op}', inputs and weight must be 5-D ([N, C, D, H, W] and [C, O/group, kd, kh, kw]), "
                         f"but got shapes {list(x.shape)} and {list(weight.shape)}.")
    mode = pad_mode.lower() if isinstance(pad_mode, str) else pad_mode
    if mode not in ("same", "valid", "pad"):
        raise ValueError(f"For 'Conv3DTranspose', the 'pad_mode' must be str and must be in '['valid', 'same', 'pad']', "
                         f"but got '{pad_mode}'.")
    if isinstance(padding, numbers.Integral) and not isinstance(padding, bool):
        pads = (int(padding),) * 6
    elif isinstance(padding, (tuple, list)) and len(padding) == 6 and all(
            isinstance(p, numbers.Integral) and not isinstance(p, bool) for p in padding):
        pads = tuple(int(p) for p in padding)
    else:
        raise ValueError(f"For 'Conv3DTranspose', attr 'pad' must be an positive int number or a tuple of six "
                         f"positive int numbers, but got {padding}.")
    if any(p < 0 for p in pads) or (mode != "pad" and any(pads)):
        raise ValueError(f"For 'Conv3DTranspose', the 'pad' must be zero or (0, 0, 0, 0, 0, 0) when 'pad_mode' is "
                         f"not \"pad\", but got 'pad' is {padding} and 'pad_mode' is {pad_mode}.")
    stride, dilation = _ints(stride, 3, "stride", op), _ints(dilation, 3, "dilation", op)
    output_padding = _ints(output_padding, 3, "output_padding", op)
    _check_3d_transpose_args(mode, output_padding, stride, dilation)
    if x.shape[1] != weight.shape[0] or weight.shape[0] % group:
        raise ValueError(f"For '{op}', the inputs' {x.shape[1]} channels must equal the weight's first axis "
                         f"({weight.shape[0]}) and split into group={group}")
    pairs = tuple(pads[i:i + 2] for i in range(0, 6, 2))
    return conv3d_transpose_padded(x, weight, mode, pairs, stride, dilation, group, output_padding)


__all__ = ["conv1d", "conv3d", "conv_transpose2d", "conv3d_transpose", "conv_padded", "conv_transpose_padded"]

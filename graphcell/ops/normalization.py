"""Normalisation ops written with the functional layer: MindSpore's ops.group_norm, layer_norm,
batch_norm, rms_norm and lrn, and the instance normalisation that nn.InstanceNorm1d/2d/3d compute
(MindSpore 2.10 has no ops form)."""
from __future__ import annotations

import numbers

from .. import dtype as mstype
from ..tensor import Parameter, Tensor
from . import functional as F

__all__ = ["group_norm", "layer_norm", "batch_norm", "rms_norm", "lrn"]


def _normalize(x, axes: tuple, eps: float):
    """(x - mean) / sqrt(var + eps) over `axes`, with the biased variance."""
    mean = F.mean(x, axes, True)
    centered = F.sub(x, mean)
    var = F.mean(F.square(centered), axes, True)
    return F.mul(centered, F.rsqrt(F.add(var, eps)))


def _affine(normed, weight, bias, dtype):
    """normed * weight + bias, one per channel (axis 1), in the input's dtype."""
    bshape = (-1,) + (1,) * (normed.ndim - 2)
    if weight is not None:
        normed = F.mul(normed, F.reshape(F.as_tensor(weight), bshape))
    if bias is not None:
        normed = F.add(normed, F.reshape(F.as_tensor(bias), bshape))
    return F.cast(normed, dtype)


def _float_input(x, op: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', the input must be a Tensor, but got {type(x).__name__}.")
    if not x.dtype.is_floating:
        raise TypeError(f"For '{op}', the input must be a float Tensor, but got {x.dtype}.")
    return x


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):  # noqa: A002 - MindSpore's names
    """Normalises [N, C, ...] over each group of C/num_groups channels and the remaining axes
    (biased variance), then `weight` and `bias` per channel (none: 1 and 0). Computed in float32
    or wider (float16 input is cast back)."""
    x = _float_input(input, "group_norm")
    if x.ndim < 2:
        raise ValueError(f"For 'group_norm', the input must be [N, C, ...], but got shape {list(x.shape)}.")
    if isinstance(num_groups, bool) or not isinstance(num_groups, numbers.Integral) or num_groups < 1:
        raise ValueError(f"For 'group_norm', 'num_groups' must be a positive int, but got {num_groups!r}.")
    channels = x.shape[1]
    if channels % num_groups:
        raise ValueError(f"For GroupNorm, the 'num_channels' must be divided by 'num_groups', but got "
                         f"'num_channels': {channels} ,'num_groups': {num_groups}")
    wide = x if x.dtype is not mstype.float16 else F.cast(x, mstype.float32)
    # -1 for the batch: the same constant at every batch size (a dynamic-batch export needs it)
    grouped = F.reshape(wide, (-1, num_groups, channels // num_groups) + tuple(x.shape[2:]))
    normed = F.reshape(_normalize(grouped, tuple(range(2, grouped.ndim)), eps), (-1,) + tuple(x.shape[1:]))
    return _affine(normed, weight, bias, x.dtype)


def instance_norm(x, weight=None, bias=None, eps=1e-5):
    """Normalises each sample's channel of [N, C, ...] over its other axes (biased variance),
    then `weight` and `bias` per channel."""
    x = _float_input(x, "instance_norm")
    wide = x if x.dtype is not mstype.float16 else F.cast(x, mstype.float32)
    return _affine(_normalize(wide, tuple(range(2, x.ndim)), eps), weight, bias, x.dtype)


def widen_float16(x):
    """float16 is normalised in float32 (as group_norm), then cast back: its squares overflow
    from 256 on (MindSpore 2.10's float16 BatchNorm and LayerNorm compute their statistics in
    float32, measured)."""
    return x if x.dtype is not mstype.float16 else F.cast(x, mstype.float32)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):  # noqa: A002
    """Normalises over the trailing axes `normalized_shape` names (an int or a tuple/list of
    ints; biased variance), then `weight` * x + `bias`, each of that shape (none: 1 and 0).
    torch's function: MindSpore 2.10's CPU build has no kernel for it (measured)."""
    x = _float_input(input, "layer_norm")
    shape = (normalized_shape,) if isinstance(normalized_shape, numbers.Integral) else tuple(normalized_shape)
    if not shape or tuple(x.shape[x.ndim - len(shape):]) != shape or len(shape) > x.ndim:
        raise ValueError(f"For 'layer_norm', 'normalized_shape' {list(shape)} must be the input's trailing axes, "
                         f"but the input's shape is {list(x.shape)}.")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(F.as_tensor(t).shape) != shape:
            raise ValueError(f"For 'LayerNorm', the shape of gamma and beta must be equal to normalized_shape, but got "
                             f"{name} shape: {list(F.as_tensor(t).shape)}, normalized_shape: {list(shape)}.")
    normed = _normalize(widen_float16(x), tuple(range(x.ndim - len(shape), x.ndim)), eps)
    if weight is not None:
        normed = F.mul(normed, F.as_tensor(weight))
    if bias is not None:
        normed = F.add(normed, F.as_tensor(bias))
    return F.cast(normed, x.dtype)


def batch_norm(input_x, running_mean, running_var, weight, bias, training=False, momentum=0.1, eps=1e-05):
    """Normalises [N, C, ...] per channel. Training: with the batch's mean and biased variance,
    and running_mean/running_var, when Parameters, become (1 - momentum) * running + momentum *
    batch (the unbiased variance), as MindSpore 2.10 writes them (measured; note nn.BatchNorm's
    momentum is the other way round). Otherwise: with running_mean and running_var."""
    x = _float_input(input_x, "batch_norm")
    if x.ndim < 2:
        raise ValueError(f"For 'batch_norm', the input must be [N, C, ...], but got shape {list(x.shape)}.")
    channels = x.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        if not isinstance(t, Tensor):
            raise TypeError(f"For 'batch_norm', '{name}' must be a Tensor, but got {type(t).__name__}.")
        if tuple(t.shape) != (channels,):
            raise ValueError(f"For 'batch_norm', '{name}' must have shape [{channels}] (the input's channels), but "
                             f"got {list(t.shape)}.")
    if not isinstance(training, bool):
        raise TypeError(f"For 'batch_norm', 'training' must be a bool, but got {training!r}.")
    axes = tuple(a for a in range(x.ndim) if a != 1)
    bshape = (-1,) + (1,) * (x.ndim - 2)
    wide = widen_float16(x)
    if training:
        mean = F.mean(wide, axes)
        centered = F.sub(wide, F.reshape(mean, bshape))
        var = F.mean(F.square(centered), axes)
        count = F.element_count(wide, axes, var.dtype)
        unbiased = F.mul(F.stop_gradient(var), F.div(count, F.maximum(F.sub(count, 1), 1)))
        for stat, batch in ((running_mean, F.stop_gradient(mean)), (running_var, unbiased)):
            if isinstance(stat, Parameter):
                F.assign(stat, F.add(F.mul(stat, 1.0 - momentum), F.mul(batch, momentum)))
        normed = F.mul(centered, F.reshape(F.rsqrt(F.add(var, eps)), bshape))
    else:
        normed = F.mul(F.sub(wide, F.reshape(running_mean, bshape)),
                       F.reshape(F.rsqrt(F.add(running_var, eps)), bshape))
    return _affine(normed, weight, bias, x.dtype)


def rms_norm(x, gamma, epsilon=1e-06):
    """(x / sqrt(mean(x^2) + epsilon) * gamma, rstd): the mean over the trailing gamma.ndim axes;
    rstd = 1 / sqrt(mean(x^2) + epsilon), float32, shaped like x with those axes kept as 1.
    MindSpore 2.10 runs it on Ascend only; these are its documented values."""
    x = _float_input(x, "rms_norm")
    gamma = _float_input(gamma, "rms_norm")
    if gamma.dtype is not x.dtype:
        raise TypeError(f"For 'rms_norm', 'gamma' must have the input's dtype {x.dtype}, but got {gamma.dtype}.")
    if isinstance(epsilon, bool) or not isinstance(epsilon, numbers.Real) or not 0 < epsilon <= 1:
        raise ValueError(f"For 'rms_norm', 'epsilon' must be a float in (0, 1], but got {epsilon!r}.")
    if gamma.ndim > x.ndim or tuple(x.shape[x.ndim - gamma.ndim:]) != tuple(gamma.shape):
        raise ValueError(f"For 'rms_norm', gamma's shape {list(gamma.shape)} must be the input's trailing axes "
                         f"{list(x.shape)}.")
    wide = F.cast(x, mstype.float32) if x.dtype is mstype.float16 else x
    axes = tuple(range(x.ndim - gamma.ndim, x.ndim))
    rstd = F.rsqrt(F.add(F.mean(F.square(wide), axes, True), float(epsilon)))
    y = F.cast(F.mul(F.mul(wide, rstd), F.cast(gamma, wide.dtype)), x.dtype)
    return y, F.cast(rstd, mstype.float32)


def lrn(x, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region="ACROSS_CHANNELS"):
    """Local response normalisation over the channels of [N, C, H, W] (TensorFlow's, as
    MindSpore): x / (bias + alpha * sum of x^2 over channels c - r .. c + r)^beta (alpha is not
    divided by the window's size, unlike torch's)."""
    x = F.as_tensor(x)
    if x.dtype not in (mstype.float16, mstype.float32):
        raise TypeError(f"For primitive[LRN], the input argument[x] must be a type of {{Tensor[Float16], "
                        f"Tensor[Float32]}}, but got Tensor[{x.dtype}].")
    if isinstance(depth_radius, bool) or not isinstance(depth_radius, numbers.Integral):
        raise TypeError(f"For 'LRN', the type of 'depth_radius' should be 'int', but got type "
                        f"'{type(depth_radius).__name__}'.")
    if depth_radius < 0:
        raise ValueError(f"For 'LRN', the 'depth_radius' must be int and must >= 0, but got '{depth_radius}' with "
                         f"type 'int'.")
    for name, value in (("bias", bias), ("alpha", alpha), ("beta", beta)):
        if not isinstance(value, float):
            raise TypeError(f"For 'LRN', the type of '{name}' should be 'float', but got type "
                            f"'{type(value).__name__}'.")
    if norm_region != "ACROSS_CHANNELS":
        raise ValueError(f"For 'LRN', the 'norm_region' must be str and must be in '['ACROSS_CHANNELS']', but got "
                         f"'{norm_region}'.")
    if x.ndim != 4:
        raise ValueError(f"For primitive[LRN], the rank of input  must be equal to 4 , but got {x.ndim}.")
    wide = widen_float16(x)
    r = int(depth_radius)
    window = F.sum_pool(F.square(wide), (1, 2 * r + 1, 1, 1), (1, 1, 1, 1), ((0, 0), (r, r), (0, 0), (0, 0)))
    scale = F.pow(F.add(F.mul(window, alpha), bias), beta)
    return F.cast(F.div(wide, scale), x.dtype)

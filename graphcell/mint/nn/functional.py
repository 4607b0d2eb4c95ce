"""mindspore.mint.nn.functional: PyTorch-style functional layers (relu, linear, cross_entropy, ...).

Each function takes MindSpore 2.10's mint signature (torch's names: `input`, `dim`, `inplace`)
and calls graphcell's ops. 2.10's CPU build has no kernel for most of them (conv2d, max_pool2d,
log_softmax, cross_entropy, gelu, layer_norm, pad, ...: "The kernel ... unregistered",
measured), so their values follow torch; those that run on 2.10's CPU (softmax, relu, silu,
nll_loss, smooth_l1_loss, binary_cross_entropy(_with_logits), linear, group_norm, glu,
softplus, hardswish, prelu, pixel_shuffle, nearest interpolate, flatten) agree with torch too.
`inplace=True` writes the result into `input` (Tensor._write) and returns it.
"""
from __future__ import annotations

import numbers

import numpy as np

from ... import ops
from ...ops import functional as F
from ...tensor import Tensor
from ..matrix import check_same_dtype as _check_same_dtype

__all__ = [
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d", "adaptive_max_pool2d",
    "avg_pool1d", "avg_pool2d", "avg_pool3d", "batch_norm", "binary_cross_entropy", "binary_cross_entropy_with_logits",
    "conv1d", "conv2d", "conv3d", "conv_transpose2d", "cosine_embedding_loss", "cross_entropy", "dropout", "dropout2d",
    "elu", "elu_", "embedding", "flatten", "fold", "gelu", "glu", "grid_sample", "group_norm", "hardtanh", "hardtanh_",
    "interpolate", "kl_div", "layer_norm", "leaky_relu", "linear", "log_softmax", "logsigmoid", "max_pool2d",
    "max_unpool2d", "mse_loss", "nll_loss", "normalize", "one_hot", "pad", "pixel_shuffle", "prelu", "relu", "relu6",
    "relu_", "sigmoid", "sigmoid_", "silu", "soft_margin_loss", "softmax", "tanh", "threshold", "threshold_", "unfold",
    "upsample",
    # public in 2.10's module though not in its __all__
    "hardshrink", "hardsigmoid", "hardswish", "l1_loss", "mish", "selu", "smooth_l1_loss", "softplus", "softshrink",
]


def _maybe_inplace(input, value, inplace: bool, what: str):  # noqa: A002 - torch's names
    return input._write(value, what) if inplace else value


def _ntuple(value, n: int) -> tuple:
    return (int(value),) * n if isinstance(value, numbers.Integral) else tuple(int(v) for v in value)


def _implicit_dim(ndim: int) -> int:
    """torch's (and 2.10's, measured) axis for softmax(dim=None): 0 for 0-, 1- and 3-D input, else 1."""
    return 0 if ndim in (0, 1, 3) else 1


# -- activations ------------------------------------------------------------------------------
def relu(input, inplace=False):  # noqa: A002
    return _maybe_inplace(input, F.relu(input), inplace, "relu")


def relu_(input):  # noqa: A002
    return relu(input, inplace=True)


def relu6(input, inplace=False):  # noqa: A002
    return _maybe_inplace(input, F.relu6(input), inplace, "relu6")


def elu(input, alpha=1.0, inplace=False):  # noqa: A002
    return _maybe_inplace(input, F.elu(input, alpha), inplace, "elu")


def elu_(input, alpha=1.0):  # noqa: A002
    return elu(input, alpha, inplace=True)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):  # noqa: A002
    return _maybe_inplace(input, ops.hardtanh(input, min_val, max_val), inplace, "hardtanh")


def hardtanh_(input, min_val=-1, max_val=1):  # noqa: A002
    return hardtanh(input, min_val, max_val, inplace=True)


def threshold(input, threshold, value, inplace=False):  # noqa: A002
    """value where input <= threshold, else input (torch's rule)."""
    return _maybe_inplace(input, ops.threshold(input, threshold, value), inplace, "threshold")


def threshold_(input, threshold, value):  # noqa: A002
    return globals()["threshold"](input, threshold, value, inplace=True)


def silu(input, inplace=False):  # noqa: A002
    return _maybe_inplace(input, F.silu(input), inplace, "silu")


def sigmoid(input):  # noqa: A002
    return F.sigmoid(input)


def sigmoid_(input):  # noqa: A002
    return input._write(F.sigmoid(input), "sigmoid_")


def tanh(input):  # noqa: A002
    return F.tanh(input)


def gelu(input, approximate="none"):  # noqa: A002
    """erf form by default (torch's, unlike nn.GELU's tanh default); approximate='tanh'."""
    return F.gelu(input, approximate=approximate)


def leaky_relu(input, negative_slope=0.01):  # noqa: A002
    return F.leaky_relu(input, negative_slope)


def logsigmoid(input):  # noqa: A002
    return ops.logsigmoid(input)


def prelu(input, weight):  # noqa: A002
    return ops.prelu(input, weight)


def glu(input, dim=-1):  # noqa: A002
    return ops.glu(input, dim)


def mish(input):  # noqa: A002
    return F.mish(input)


def selu(input):  # noqa: A002
    return ops.selu(input)


def softplus(input, beta=1, threshold=20):  # noqa: A002
    return F.softplus(input, beta, threshold)


def hardshrink(input, lambd=0.5):  # noqa: A002
    return ops.hardshrink(input, lambd)


def softshrink(input, lambd=0.5):  # noqa: A002
    return ops.softshrink(input, lambd)


def hardsigmoid(input):  # noqa: A002
    return F.hardsigmoid(input)


def hardswish(input):  # noqa: A002
    return F.hardswish(input)


def softmax(input, dim=None, dtype=None):  # noqa: A002
    return F.softmax(input, _implicit_dim(input.ndim) if dim is None else dim, dtype=dtype)


def log_softmax(input, dim=None, *, dtype=None):  # noqa: A002
    x = input if dtype is None else F.cast(input, dtype)
    return F.log_softmax(x, _implicit_dim(x.ndim) if dim is None else dim)


# -- linear, convolution, normalisation ---------------------------------------------------------
def linear(input, weight, bias=None):  # noqa: A002
    """input @ weight.T + bias; all three of one dtype (2.10's and torch's check, measured)."""
    _check_same_dtype("Dense", input, weight)
    if isinstance(bias, Tensor) and isinstance(input, Tensor) and bias.dtype != input.dtype:
        raise TypeError(f"For Dense, all dtypes should be the same, but got 'input' with dtype: {input.dtype} and "
                        f"'bias' with dtype: {bias.dtype}.")
    return F.dense(input, weight, bias)


def _conv_padding(padding, n: int):
    """torch's padding: an int, n ints (each side), 'same' or 'valid' -> (pad_mode, padding)."""
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise ValueError(f"Invalid padding string '{padding}', should be one of ['valid', 'same']")
        return padding, 0
    pads = _ntuple(padding, n)
    return "pad", pads if n > 1 else pads[0]


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    mode, pads = _conv_padding(padding, 1)
    return ops.conv1d(input, weight, bias, stride, mode, pads, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    mode, pads = _conv_padding(padding, 2)
    return ops.conv2d(input, weight, bias, stride, mode, pads, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    mode, pads = _conv_padding(padding, 3)
    return ops.conv3d(input, weight, bias, stride, mode, pads, dilation, groups)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,  # noqa: A002
                     dilation=1):
    return ops.conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,  # noqa: A002
               eps=1e-05):
    """torch's batch_norm: running_mean/running_var (Parameters) updated in training mode with
    momentum * batch + (1 - momentum) * running (the unbiased variance)."""
    channels = input.shape[1]
    weight = F.ones((channels,), input.dtype) if weight is None else weight
    bias = F.zeros((channels,), input.dtype) if bias is None else bias
    return ops.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):  # noqa: A002
    return ops.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):  # noqa: A002
    return ops.group_norm(input, num_groups, weight, bias, eps)


def normalize(input, p=2.0, dim=1, eps=1e-12):  # noqa: A002
    """input / max(||input||_p along dim, eps)."""
    norm = ops.norm(input, float(p), dim, True)
    return F.div(input, F.maximum(norm, eps))


# -- pooling --------------------------------------------------------------------------------------
def _avg_pool_args(kernel_size, stride, padding, n: int):
    kernel = _ntuple(kernel_size, n)
    stride = kernel if stride is None or stride == [] or stride == () else _ntuple(stride, n)
    pads = _ntuple(padding, n)
    return kernel, stride, tuple(p for p in pads for _ in range(2))


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):  # noqa: A002
    kernel, stride, pads = _avg_pool_args(kernel_size, stride, padding, 1)
    return ops.avg_pool1d(input, kernel[0], stride[0], pads[0], bool(ceil_mode), bool(count_include_pad))


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,  # noqa: A002
               divisor_override=None):
    kernel, stride, pads = _avg_pool_args(kernel_size, stride, padding, 2)
    return ops.avg_pool2d(input, kernel, stride, pads, bool(ceil_mode), bool(count_include_pad),
                          int(divisor_override or 0))


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,  # noqa: A002
               divisor_override=None):
    kernel, stride, pads = _avg_pool_args(kernel_size, stride, padding, 3)
    return ops.avg_pool3d(input, kernel, stride, pads, bool(ceil_mode), bool(count_include_pad),
                          int(divisor_override or 0))


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
               return_indices=False):
    as_tuple = (lambda v: tuple(v) if isinstance(v, list) else v)
    stride = kernel_size if stride is None else stride
    return ops.max_pool2d(input, as_tuple(kernel_size), as_tuple(stride), as_tuple(padding), as_tuple(dilation),
                          return_indices, ceil_mode)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):  # noqa: A002
    return ops.max_unpool2d(input, indices, kernel_size, stride, padding, output_size)


def adaptive_avg_pool1d(input, output_size):  # noqa: A002
    """torch's windows, through the 2-D pool over [N, C, 1, L] (ops.adaptive_avg_pool1d is
    MindSpore's, which needs output_size to divide L)."""
    return F.squeeze(ops.adaptive_avg_pool2d(F.expand_dims(input, -2), (1, output_size)), -2)


def adaptive_avg_pool2d(input, output_size):  # noqa: A002
    return ops.adaptive_avg_pool2d(input, output_size)


def adaptive_avg_pool3d(input, output_size):  # noqa: A002
    return ops.adaptive_avg_pool3d(input, output_size)


def adaptive_max_pool1d(input, output_size, return_indices=False):  # noqa: A002
    """Through the 2-D pool over [N, C, 1, L], which also gives the indices."""
    out = ops.adaptive_max_pool2d(F.expand_dims(input, -2), (1, output_size), return_indices)
    if return_indices:
        return F.squeeze(out[0], -2), F.squeeze(out[1], -2)
    return F.squeeze(out, -2)


def adaptive_max_pool2d(input, output_size, return_indices=False):  # noqa: A002
    return ops.adaptive_max_pool2d(input, output_size, return_indices)


# -- losses ----------------------------------------------------------------------------------------
def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):  # noqa: A002
    return ops.cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing)


def nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean"):  # noqa: A002
    return ops.nll_loss(input, target, weight, ignore_index, reduction)


def binary_cross_entropy(input, target, weight=None, reduction="mean"):  # noqa: A002
    return ops.binary_cross_entropy(input, target, weight, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, reduction="mean", pos_weight=None):  # noqa: A002
    return ops.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction)


def _reduce(loss, reduction: str, what: str):
    if reduction == "mean":
        return F.mean(loss)
    if reduction == "sum":
        return F.sum(loss)
    if reduction == "none":
        return loss
    raise ValueError(f"For '{what}', 'reduction' must be 'none', 'mean' or 'sum', but got '{reduction}'.")


def kl_div(input, target, reduction="mean", log_target=False):  # noqa: A002
    """torch's: target * (log target - input) pointwise (exp(target) * (target - input) with
    log_target); 'batchmean' divides the sum by the batch size."""
    if log_target:
        loss = F.mul(F.exp(target), F.sub(target, input))
    else:
        loss = F.sub(ops.xlogy(target, target), F.mul(target, input))
    if reduction == "batchmean":
        return F.div(F.sum(loss), input.shape[0]) if input.ndim else F.sum(loss)
    return _reduce(loss, reduction, "kl_div")


def mse_loss(input, target, reduction="mean"):  # noqa: A002
    return ops.mse_loss(input, target, reduction)


def l1_loss(input, target, reduction="mean"):  # noqa: A002
    return ops.l1_loss(input, target, reduction)


def smooth_l1_loss(input, target, reduction="mean", beta=1.0):  # noqa: A002
    return ops.smooth_l1_loss(input, target, beta, reduction)


def soft_margin_loss(input, target, reduction="mean"):  # noqa: A002
    return ops.soft_margin_loss(input, target, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    return ops.cosine_embedding_loss(input1, input2, target, margin, reduction)


# -- dropout, embedding, shapes, resampling -----------------------------------------------------
def dropout(input, p=0.5, training=True, inplace=False):  # noqa: A002
    if not training or p == 0:
        return input
    out = F.zeros_like(input) if p >= 1 else F.dropout(input, float(p), True)
    return _maybe_inplace(input, out, inplace, "dropout")


def dropout2d(input, p=0.5, training=True, inplace=False):  # noqa: A002
    if not training or p == 0:
        return input
    return _maybe_inplace(input, ops.dropout2d(input, float(p), True), inplace, "dropout2d")


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False):  # noqa: A002
    return ops.embedding(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq)


def one_hot(tensor, num_classes=-1):
    """int64 one-hot on a new last axis; num_classes=-1 reads max(tensor) + 1 (eagerly only)."""
    if num_classes == -1:
        num_classes = int(np.max(tensor.asnumpy())) + 1
    return F.one_hot(tensor, num_classes, 1, 0, dtype="int64")


def flatten(input, start_dim=0, end_dim=-1):  # noqa: A002
    return F.flatten(input, start_dim=start_dim, end_dim=end_dim)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    return ops.fold(input, output_size, kernel_size, dilation, padding, stride)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    return ops.unfold(input, kernel_size, dilation, padding, stride)


def pixel_shuffle(input, upscale_factor):  # noqa: A002
    return ops.pixel_shuffle(input, upscale_factor)


def pad(input, pad, mode="constant", value=None):  # noqa: A002
    """torch's pad: `pad` lists (before, after) pairs from the last axis backwards."""
    return F.pad(input, tuple(pad), mode, value)


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,  # noqa: A002
                recompute_scale_factor=None):
    return ops.interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):  # noqa: A002
    return ops.interpolate(input, size, scale_factor, mode, align_corners)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):  # noqa: A002
    return ops.grid_sample(input, grid, mode, padding_mode, align_corners)

"""MindSpore 2.10's small utility Cells: ClipByNorm, L1Regularizer, SyncBatchNorm and the
combined Conv2dBnAct / DenseBnAct blocks (parameter names and draw order as measured on 2.10)."""
from __future__ import annotations

import math

from ... import dtype as mstype
from ...ops import functional as F
from ...tensor import Tensor
from ..cell import Cell
from .basic import Dense, LeakyReLU, get_activation
from .conv import Conv2d
from .normalization import BatchNorm1d, BatchNorm2d, _BatchNorm


class ClipByNorm(Cell):
    """x * clip_norm / max(||x||_2, clip_norm), the norm over `axis` (None: every axis), in
    float32 (a float16 input comes back float32, as measured). 2.10's CPU kernel gives values
    that follow no norm when `axis` leaves some axes out (measured: [[3, 4], [1, -2]] with
    axis=1 and clip 1 divides the second row by 4.12, not sqrt(5)); graphcell computes the
    documented formula, which 2.10 matches with axis=None."""

    def __init__(self, axis=None):
        super().__init__()
        if axis is not None and (isinstance(axis, bool) or not isinstance(axis, (int, tuple, list))):
            raise TypeError(f"For 'ClipByNorm', the type of 'axis' should be one of '['int', 'tuple', 'list']', "
                            f"but got type '{type(axis).__name__}'.")
        self.axis = axis

    def construct(self, x, clip_norm):
        if not isinstance(x, Tensor) or not isinstance(clip_norm, Tensor):
            raise TypeError("For 'ClipByNorm', the input args must be tensor.")
        if x.dtype not in (mstype.float16, mstype.float32):
            raise TypeError(f"For primitive[ClipByNorm], the input argument[x] must be a type of {{Float16, Float32}}, "
                            f"but got {x.dtype}.")
        x = F.cast(x, mstype.float32)
        axis = () if self.axis is None else (self.axis if isinstance(self.axis, int) else tuple(self.axis))
        norm = F.sqrt(F.reduce_sum(F.square(x), axis, True))
        clip = F.cast(clip_norm, mstype.float32)
        return F.div(F.mul(x, clip), F.maximum(norm, clip))


class L1Regularizer(Cell):
    """scale * sum(|weights|), a float32 scalar."""

    def __init__(self, scale):
        super().__init__()
        if isinstance(scale, bool) or not isinstance(scale, (int, float)):
            raise TypeError(f"For 'L1Regularizer', the type of 'scale' should be one of '['int', 'float']', but got "
                            f"type '{type(scale).__name__}'.")
        if math.isinf(scale) or math.isnan(scale):
            raise ValueError(f"For 'L1Regularizer', the 'scale' can not be INF or NAN, but got {scale}.")
        if scale <= 0:
            raise ValueError(f"For 'L1Regularizer', the 'scale' must be greater than 0, but got {scale}.")
        self.scale = scale

    def construct(self, weights):
        return F.mul(F.reduce_sum(F.abs(weights)), float(self.scale))


class SyncBatchNorm(_BatchNorm):
    """BatchNorm whose batch statistics are reduced over `process_groups` in 2.10. graphcell runs
    on one device, where that reduction is the identity, so it is BatchNorm over [N, C] or
    [N, C, H, W] (same parameters: mean, variance, gamma, beta)."""
    _ranks = (2, 4)

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones", beta_init="zeros",
                 moving_mean_init="zeros", moving_var_init="ones", use_batch_statistics=None, process_groups=None,
                 dtype=mstype.float32):
        super().__init__(num_features, eps, momentum, affine, gamma_init, beta_init, moving_mean_init,
                         moving_var_init, use_batch_statistics, dtype=dtype)
        self.process_groups = process_groups


def _activation(activation, alpha):
    if isinstance(activation, str) and activation.lower() == "leakyrelu":
        return LeakyReLU(alpha)
    return get_activation(activation)


class _BnActTail(Cell):
    """What Conv2dBnAct and DenseBnAct put after their layer: `batchnorm` (has_bn), then
    `activation`, children named as 2.10 names them (so checkpoints load); `after_fake`
    (quantisation) is accepted and unused."""

    def _add_tail(self, batchnorm, has_bn, activation, alpha, after_fake):
        self.has_bn, self.has_act = has_bn, activation is not None
        self.after_fake = after_fake
        if has_bn:
            self.batchnorm = batchnorm()
        if activation is not None:
            self.activation = _activation(activation, alpha)

    def _tail(self, x):
        if self.has_bn:
            x = self.batchnorm(x)
        return self.activation(x) if self.has_act else x


class Conv2dBnAct(_BnActTail):
    """conv -> batchnorm (has_bn) -> activation, children `conv`, `batchnorm`, `activation`."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, dilation=1,
                 group=1, has_bias=False, weight_init="normal", bias_init="zeros", has_bn=False, momentum=0.997,
                 eps=1e-5, activation=None, alpha=0.2, after_fake=True):
        super().__init__()
        self.conv = Conv2d(in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation, group,
                           has_bias, weight_init, bias_init)
        self._add_tail(lambda: BatchNorm2d(out_channels, eps, momentum), has_bn, activation, alpha, after_fake)

    def construct(self, x):
        return self._tail(self.conv(x))


class DenseBnAct(_BnActTail):
    """dense -> batchnorm (BatchNorm1d, has_bn) -> activation, children `dense`, `batchnorm`,
    `activation`."""

    def __init__(self, in_channels, out_channels, weight_init="normal", bias_init="zeros", has_bias=True,
                 has_bn=False, momentum=0.9, eps=1e-5, activation=None, alpha=0.2, after_fake=True):
        super().__init__()
        self.dense = Dense(in_channels, out_channels, weight_init, bias_init, has_bias)
        self._add_tail(lambda: BatchNorm1d(out_channels, eps, momentum), has_bn, activation, alpha, after_fake)

    def construct(self, x):
        return self._tail(self.dense(x))

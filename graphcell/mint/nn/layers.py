"""The layers MindSpore 2.10 defines for `mint.nn` itself (the rest are nn's torch-style layers,
re-exported by the package). Values follow torch: 2.10's CPU build has no forward kernel for
Conv*, ConvTranspose2d, BatchNorm*, the adaptive pools, the pads, GELU, ELU, ... (measured:
"The kernel Conv2DExt unregistered"). Parameters are 2.10's: names, shapes, reprs, and initial
values after `set_seed` (a conv's `weight` HeUniform(sqrt(5)) and `bias` U(+-1/sqrt(fan_in)),
two Philox draws as nn.Linear; BatchNorm's and GroupNorm's ones and zeros draw nothing).
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ...nn.cell import Cell
from ...nn.layer._init import default_bias_init, default_weight_init, make_param
from ...ops import functional as F
from ...tensor import Parameter
from . import functional as MF


def _ntuple(value, n: int) -> tuple:
    return (int(value),) * n if isinstance(value, numbers.Integral) else tuple(int(v) for v in value)


# -- convolutions -----------------------------------------------------------------------------------
class _ConvNd(Cell):
    """torch's ConvNd: `weight` [out, in/groups, *kernel] ([in, out/groups, *kernel] transposed),
    `bias` [out]; padding an int, a tuple, 'same' or 'valid'; padding_mode 'zeros', 'reflect',
    'replicate' or 'circular' (non-zero modes pad with mint.nn.functional.pad first)."""
    _n = 2
    _transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", dtype=None, output_padding=0):
        super().__init__()
        name, n = type(self).__name__, self._n
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"For '{name}', in_channels ({in_channels}) and out_channels ({out_channels}) must be "
                             f"divisible by groups ({groups}).")
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise ValueError(f"For '{name}', padding_mode must be one of 'zeros', 'reflect', 'replicate' or "
                             f"'circular', but got '{padding_mode}'.")
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size, self.stride, self.dilation = _ntuple(kernel_size, n), _ntuple(stride, n), _ntuple(dilation, n)
        self.padding = padding if isinstance(padding, str) else _ntuple(padding, n)
        self.output_padding = _ntuple(output_padding, n)
        self.padding_mode, self.has_bias = padding_mode, bool(bias)
        shape = ((in_channels, out_channels // groups) if self._transposed
                 else (out_channels, in_channels // groups)) + self.kernel_size
        dtype = dtype or "float32"
        self.weight = make_param(default_weight_init(), shape, "weight", dtype)
        fan_in = shape[1] * math.prod(self.kernel_size)
        self.bias = make_param(default_bias_init(fan_in), (out_channels,), "bias", dtype) if bias else None

    def construct(self, x):
        fn = (MF.conv1d, MF.conv2d, MF.conv3d)[self._n - 1]
        padding = self.padding
        if self.padding_mode != "zeros" and not isinstance(padding, str):
            x = MF.pad(x, tuple(p for p in reversed(padding) for _ in range(2)), self.padding_mode)
            padding = 0
        return fn(x, self.weight, self.bias, self.stride, padding, self.dilation, self.groups)

    def extend_repr(self):
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, groups={self.groups}, bias={self.has_bias}")


class Conv1d(_ConvNd):
    _n = 1

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, dtype)


class Conv2d(Conv1d):
    _n = 2


class Conv3d(Conv1d):
    _n = 3


class ConvTranspose2d(_ConvNd):
    _transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f"Only 'zeros' padding mode is supported for ConvTranspose2d, but got '{padding_mode}'.")
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, dtype, output_padding)

    def construct(self, x, output_size=None):
        return MF.conv_transpose2d(x, self.weight, self.bias, self.stride, self.padding, self.output_padding,
                                   self.groups, self.dilation)


# -- normalisation ---------------------------------------------------------------------------------------
class _BatchNorm(Cell):
    """torch's BatchNorm: `weight`, `bias` (ones, zeros; affine), `running_mean`, `running_var`
    (zeros, ones) and int64 `num_batches_tracked` (track_running_stats), 2.10's order and names.
    Training mode (or no running stats) normalises with the batch's biased variance and moves
    the running stats by `momentum` (None: a cumulative average) towards the batch's mean and
    unbiased variance; eval mode uses the running stats."""
    _ranks = None   # the input ranks accepted (None: any of rank >= 2)

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True, dtype=None):
        super().__init__()
        dtype = dtype or "float32"
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.weight = make_param("ones", (num_features,), "weight", dtype) if affine else None
        self.bias = make_param("zeros", (num_features,), "bias", dtype) if affine else None
        if track_running_stats:
            self.running_mean = make_param("zeros", (num_features,), "running_mean", dtype, requires_grad=False)
            self.running_var = make_param("ones", (num_features,), "running_var", dtype, requires_grad=False)
            self.num_batches_tracked = Parameter(np.array(0, np.int64), name="num_batches_tracked",
                                                 requires_grad=False)
        else:
            self.running_mean = self.running_var = self.num_batches_tracked = None

    def construct(self, x):
        name = type(self).__name__
        if self._ranks is not None and x.ndim not in self._ranks:
            raise ValueError(f"For '{name}', expected {' or '.join(f'{r}D' for r in self._ranks)} input, but got "
                             f"{x.ndim}D input.")
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            count = F.add(self.num_batches_tracked, 1)
            F.assign(self.num_batches_tracked, count)
            if self.momentum is None:   # cumulative moving average
                momentum = F.div(1.0, F.cast(count, x.dtype))
        use_batch = self.training or not self.track_running_stats
        mean, var = self.running_mean, self.running_var
        if mean is None:
            mean = F.zeros((self.num_features,), x.dtype)
            var = F.ones((self.num_features,), x.dtype)
        return MF.batch_norm(x, mean, var, self.weight, self.bias, use_batch, momentum, self.eps)

    def extend_repr(self):
        return (f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Over [N, C] or [N, C, L]."""
    _ranks = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Over [N, C, H, W]."""
    _ranks = (4,)


class BatchNorm3d(_BatchNorm):
    """Over [N, C, D, H, W]."""
    _ranks = (5,)


class SyncBatchNorm(_BatchNorm):
    """BatchNorm over one device (graphcell runs on one); 2.10's CPU build cannot build it."""

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True,
                 process_group=None, dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, dtype)
        self.process_group = process_group


class GroupNorm(Cell):
    """torch's GroupNorm: `weight` ones and `bias` zeros [num_channels] with affine."""

    def __init__(self, num_groups, num_channels, eps=1e-05, affine=True, dtype=None):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError(f"For 'GroupNorm', num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups}).")
        dtype = dtype or "float32"
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        self.weight = make_param("ones", (num_channels,), "weight", dtype) if affine else None
        self.bias = make_param("zeros", (num_channels,), "bias", dtype) if affine else None

    def construct(self, x):
        return MF.group_norm(x, self.num_groups, self.weight, self.bias, self.eps)

    def extend_repr(self):
        return f"num_groups={self.num_groups}, num_channels={self.num_channels}, eps={self.eps}, affine={self.affine}"


# -- layers that call one functional with their constructor's arguments ---------------------------------
class _Call(Cell):
    """Stores the constructor's arguments and calls `_fn(x, *arguments)`; repr "Name()" as 2.10's,
    or with `_repr_args` listed."""
    _fn = None
    _args = ()
    _repr_args = ()

    def __init__(self, *args, **kwargs):
        super().__init__()
        names = self._args
        values = dict(zip(names, args))
        for key, value in kwargs.items():
            if key not in names:
                raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument '{key}'")
            values[key] = value
        for key, default in zip(names, self._defaults):
            values.setdefault(key, default)
        missing = [k for k in names if values[k] is _REQUIRED]
        if missing:
            raise TypeError(f"{type(self).__name__}.__init__() missing required argument: '{missing[0]}'")
        for key in names:
            setattr(self, key, values[key])

    def construct(self, *inputs):
        return type(self)._fn(*inputs, *(getattr(self, k) for k in self._call_args()))

    def _call_args(self):
        return [k for k in self._args if k != "inplace"]

    def extend_repr(self):
        return ", ".join(f"{k}={getattr(self, k)}" for k in self._repr_args)


_REQUIRED = object()


def _layer(name: str, fn, args: str = "", defaults: tuple = (), repr_args: tuple = (), doc: str = ""):
    """A _Call subclass: `args` its constructor's parameter names, `defaults` one per name
    (_REQUIRED where none)."""
    names = tuple(args.split())
    return type(name, (_Call,), {"_fn": staticmethod(fn), "_args": names, "_defaults": defaults,
                                 "_repr_args": repr_args, "__doc__": doc or f"mint.nn.functional.{fn.__name__}.",
                                 "__module__": __name__, "__qualname__": name})


R = _REQUIRED
ELU = _layer("ELU", MF.elu, "alpha inplace", (1.0, False))
GELU = _layer("GELU", MF.gelu, "approximate", ("none",), doc="erf form by default; approximate='tanh'.")
GLU = _layer("GLU", MF.glu, "dim", (-1,))
Hardtanh = _layer("Hardtanh", MF.hardtanh, "min_val max_val inplace", (-1.0, 1.0, False))
LogSigmoid = _layer("LogSigmoid", MF.logsigmoid)
Mish = _layer("Mish", MF.mish)
ReLU6 = _layer("ReLU6", MF.relu6, "inplace", (False,))
SELU = _layer("SELU", MF.selu)
SiLU = _layer("SiLU", MF.silu, "inplace", (False,))
Sigmoid = _layer("Sigmoid", MF.sigmoid)
Tanh = _layer("Tanh", MF.tanh)
Threshold = _layer("Threshold", MF.threshold, "threshold value inplace", (R, R, False))
Softmax = _layer("Softmax", MF.softmax, "dim", (None,), doc="softmax along dim (None: torch's implicit axis).")
Flatten = _layer("Flatten", MF.flatten, "start_dim end_dim", (1, -1))
PixelShuffle = _layer("PixelShuffle", MF.pixel_shuffle, "upscale_factor", (R,))
Fold = _layer("Fold", MF.fold, "output_size kernel_size dilation padding stride", (R, R, 1, 0, 1))
Unfold = _layer("Unfold", MF.unfold, "kernel_size dilation padding stride", (R, 1, 0, 1))
AdaptiveAvgPool1d = _layer("AdaptiveAvgPool1d", MF.adaptive_avg_pool1d, "output_size", (R,), ("output_size",))
AdaptiveAvgPool2d = _layer("AdaptiveAvgPool2d", MF.adaptive_avg_pool2d, "output_size", (R,), ("output_size",))
AdaptiveAvgPool3d = _layer("AdaptiveAvgPool3d", MF.adaptive_avg_pool3d, "output_size", (R,))
AdaptiveMaxPool1d = _layer("AdaptiveMaxPool1d", MF.adaptive_max_pool1d, "output_size return_indices", (R, False),
                           ("output_size", "return_indices"))
Upsample = _layer("Upsample", MF.interpolate, "size scale_factor mode align_corners recompute_scale_factor",
                  (None, None, "nearest", None, None))
BCELoss = _layer("BCELoss", MF.binary_cross_entropy, "weight reduction", (None, "mean"))
BCEWithLogitsLoss = _layer("BCEWithLogitsLoss", MF.binary_cross_entropy_with_logits, "weight reduction pos_weight",
                           (None, "mean", None))
CosineEmbeddingLoss = _layer("CosineEmbeddingLoss", MF.cosine_embedding_loss, "margin reduction", (0.0, "mean"))
CrossEntropyLoss = _layer("CrossEntropyLoss", MF.cross_entropy, "weight ignore_index reduction label_smoothing",
                          (None, -100, "mean", 0.0))
KLDivLoss = _layer("KLDivLoss", MF.kl_div, "reduction log_target", ("mean", False))
MSELoss = _layer("MSELoss", MF.mse_loss, "reduction", ("mean",))
NLLLoss = _layer("NLLLoss", MF.nll_loss, "weight ignore_index reduction", (None, -100, "mean"))
SmoothL1Loss = _layer("SmoothL1Loss", MF.smooth_l1_loss, "reduction beta", ("mean", 1.0))


class UpsamplingNearest2d(Cell):
    """interpolate(mode='nearest')."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__()
        self.size, self.scale_factor = size, scale_factor

    def construct(self, x):
        return MF.interpolate(x, self.size, self.scale_factor, "nearest")


class UpsamplingBilinear2d(UpsamplingNearest2d):
    """interpolate(mode='bilinear', align_corners=True), as torch's."""

    def construct(self, x):
        return MF.interpolate(x, self.size, self.scale_factor, "bilinear", True)


class MaxUnpool2d(Cell):
    """max_unpool2d(x, indices, ...); stride defaults to kernel_size."""

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding

    def construct(self, x, indices, output_size=None):
        return MF.max_unpool2d(x, indices, self.kernel_size, self.stride, self.padding, output_size)


# -- padding --------------------------------------------------------------------------------------------
class _PadNd(Cell):
    """torch's padding layers: `padding` an int (every side of the last n axes) or 2n ints
    (before, after) from the last axis backwards."""
    _n = 1
    _mode = "constant"

    def __init__(self, padding, value=0.0):
        super().__init__()
        self.padding = (int(padding),) * (2 * self._n) if isinstance(padding, numbers.Integral) else tuple(padding)
        if len(self.padding) != 2 * self._n:
            raise ValueError(f"For '{type(self).__name__}', padding must be an int or a tuple of {2 * self._n} ints, "
                             f"but got {padding}.")
        self.value = value

    def construct(self, x):
        return MF.pad(x, self.padding, self._mode, self.value if self._mode == "constant" else None)


def _pad_layer(name: str, n: int, mode: str, with_value: bool):
    def __init_value__(self, padding, value):
        _PadNd.__init__(self, padding, value)

    def __init_plain__(self, padding):
        _PadNd.__init__(self, padding, 0.0)

    init = __init_value__ if with_value else __init_plain__
    return type(name, (_PadNd,), {"_n": n, "_mode": mode, "__init__": init, "__module__": __name__,
                                  "__qualname__": name, "__doc__": f"pad the last {n} axes, mode '{mode}'."})


ZeroPad1d, ZeroPad2d, ZeroPad3d = (_pad_layer(f"ZeroPad{n}d", n, "constant", False) for n in (1, 2, 3))
ConstantPad1d, ConstantPad2d, ConstantPad3d = (_pad_layer(f"ConstantPad{n}d", n, "constant", True) for n in (1, 2, 3))
ReflectionPad1d, ReflectionPad2d, ReflectionPad3d = (_pad_layer(f"ReflectionPad{n}d", n, "reflect", False)
                                                     for n in (1, 2, 3))
ReplicationPad1d, ReplicationPad2d, ReplicationPad3d = (_pad_layer(f"ReplicationPad{n}d", n, "replicate", False)
                                                        for n in (1, 2, 3))

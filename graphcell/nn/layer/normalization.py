"""BatchNorm, LayerNorm, GroupNorm, InstanceNorm and Embedding with MindSpore's defaults (BN momentum
0.9, LN epsilon 1e-7)."""
from __future__ import annotations

from ...ops import functional as F
from ...ops import normalization as N
from ..cell import Cell
from ._init import make_param
from ...dtype import to_dtype
from .conv import check_data_format


class _BatchNorm(Cell):
    """Normalises over every axis but the channel axis (1).

    Training mode (or use_batch_statistics=True) normalises with the biased batch
    variance and updates moving_mean/moving_variance as m*moving + (1-m)*batch, the variance
    with the unbiased estimate, as MindSpore does. The output has the input's dtype (a
    float16 input is normalised with the float32 parameters, then cast back).
    """
    _ranks: tuple = (4,)

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.9, affine: bool = True,
                 gamma_init="ones", beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics=None, data_format="NCHW", dtype="float32"):
        super().__init__()
        check_data_format(type(self).__name__, data_format)
        cls = type(self).__name__
        if isinstance(num_features, bool) or not isinstance(num_features, int) or num_features < 1:
            raise ValueError(f"For '{cls}', the 'num_features' must be at least 1, but got {num_features}.")
        if not 0.0 <= momentum <= 1.0:
            raise ValueError(f"For '{cls}', the 'momentum' must be a number in range [0, 1], but got {momentum}.")
        if use_batch_statistics is not None and not isinstance(use_batch_statistics, bool):
            raise ValueError(f"For '{cls}', the 'use_batch_statistics' must be a boolean value or None, but got "
                             f"{use_batch_statistics}.")
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.use_batch_statistics = use_batch_statistics
        # Creation order and names are MindSpore's (checkpoint keys depend on them).
        self.moving_mean = make_param(moving_mean_init, (num_features,), "mean", dtype, requires_grad=False)
        self.moving_variance = make_param(moving_var_init, (num_features,), "variance", dtype,
                                          requires_grad=False)
        self.gamma = make_param(gamma_init, (num_features,), "gamma", dtype, requires_grad=affine)
        self.beta = make_param(beta_init, (num_features,), "beta", dtype, requires_grad=affine)

    def construct(self, x):
        self.check_input(x, rank=self._ranks)
        if not x.dtype.is_floating:
            self.check_input(x, dtype=self.gamma.dtype)
        self.check_input(x, axis=1, size=self.num_features, what=f"input (num_features={self.num_features})")
        axes = tuple(a for a in range(x.ndim) if a != 1)
        bshape = tuple(self.num_features if a == 1 else 1 for a in range(x.ndim))
        use_batch = self.training if self.use_batch_statistics is None else self.use_batch_statistics
        if use_batch:
            wide = N.widen_float16(x)
            mean = F.mean(wide, axes)
            centered = F.sub(wide, F.reshape(mean, bshape))
            var = F.mean(F.square(centered), axes)
            # element_count, not x.size: an exported graph with a dynamic batch counts at run time
            count = F.element_count(x, axes, var.dtype)
            m = self.momentum
            F.assign(self.moving_mean, F.add(F.mul(self.moving_mean, m), F.mul(F.stop_gradient(mean), 1 - m)))
            unbiased = F.mul(F.stop_gradient(var), F.div(count, F.maximum(F.sub(count, 1), 1)))
            F.assign(self.moving_variance, F.add(F.mul(self.moving_variance, m), F.mul(unbiased, 1 - m)))
            scale = F.mul(F.rsqrt(F.add(var, self.eps)), self.gamma)
            out = F.add(F.mul(centered, F.reshape(scale, bshape)), F.reshape(self.beta, bshape))
            return F.cast(out, x.dtype)
        # Inference: one per-channel scale and shift, x * scale + (beta - mean * scale), computed
        # from the parameters alone, so that onnxruntime folds them into the convolution before
        # (its constant folding, then Conv+Mul and Conv+Add fusions: a Conv-BN-ReLU block runs as
        # one Conv), as torch.onnx's exports do.
        scale = F.mul(F.rsqrt(F.add(self.moving_variance, self.eps)), self.gamma)
        shift = F.sub(self.beta, F.mul(self.moving_mean, scale))
        return F.cast(F.add(F.mul(x, F.reshape(scale, bshape)), F.reshape(shift, bshape)), x.dtype)

    def extend_repr(self):
        return _stats_norm_repr(self)


def _stats_norm_repr(cell) -> str:
    """BatchNorm's and InstanceNorm's printed arguments, their Parameters included, as 2.10's."""
    return (f"num_features={cell.num_features}, eps={cell.eps}, momentum={cell.momentum}, gamma={cell.gamma}, "
            f"beta={cell.beta}, moving_mean={cell.moving_mean}, moving_variance={cell.moving_variance}")


class BatchNorm2d(_BatchNorm):
    _ranks = (4,)


class BatchNorm1d(_BatchNorm):
    """Over [N, C] or [N, C, L] inputs."""
    _ranks = (2, 3)


class BatchNorm3d(Cell):
    """BatchNorm2d over [N, C, D, H, W], as MindSpore 2.10 builds it: a BatchNorm2d child `bn2d`
    (so parameters are named `bn2d.moving_mean`, ...: checkpoints interchange) normalising the
    input viewed as [N, C, D*H, W]."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.9, affine: bool = True,
                 gamma_init="ones", beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics=None, dtype="float32"):
        super().__init__()
        self.bn2d = BatchNorm2d(num_features, eps, momentum, affine, gamma_init, beta_init, moving_mean_init,
                                moving_var_init, use_batch_statistics, dtype=dtype)

    def construct(self, x):
        self.check_input(x)
        if x.ndim != 5:
            raise ValueError(f"For 'BatchNorm3d', the in_shape must have 5 dims, but got {x.ndim}.")
        _, c, d, h, w = x.shape
        # -1 for the batch, so an export keeps it dynamic
        return F.reshape(self.bn2d(F.reshape(x, (-1, c, d * h, w))), (-1, c, d, h, w))


class LayerNorm(Cell):
    """Normalises over the axes from begin_norm_axis on; gamma/beta cover the axes from
    begin_params_axis on."""

    def __init__(self, normalized_shape, begin_norm_axis: int = -1, begin_params_axis: int = -1,
                 gamma_init="ones", beta_init="zeros", epsilon: float = 1e-7, dtype="float32"):
        super().__init__()
        if not isinstance(normalized_shape, (tuple, list)):
            raise TypeError(f"For 'LayerNorm', the type of 'normalized_shape' must be tuple[int] or list[int], but "
                            f"got {normalized_shape} and the type is {type(normalized_shape)}.")
        self.normalized_shape = tuple(normalized_shape)
        self.begin_norm_axis, self.begin_params_axis, self.epsilon = begin_norm_axis, begin_params_axis, epsilon
        self.gamma = make_param(gamma_init, self.normalized_shape, "gamma", dtype)
        self.beta = make_param(beta_init, self.normalized_shape, "beta", dtype)

    def construct(self, x):
        for name, axis in (("begin_norm_axis", self.begin_norm_axis), ("begin_params_axis", self.begin_params_axis)):
            if not -1 <= axis < x.ndim:   # MindSpore 2.10 checks them against the input, when called
                raise RuntimeError(f"For primitive[LayerNorm], input_x's rank is {x.ndim}, while the '{name}' value "
                                   f"should be in the range [-1, {x.ndim}), but got {axis}")
        begin = self.begin_norm_axis % x.ndim
        params_begin = self.begin_params_axis % x.ndim
        if tuple(x.shape[params_begin:]) != self.normalized_shape:
            from ...frontend.tracer import current_scope
            raise ValueError(f"LayerNorm '{current_scope() or 'LayerNorm'}': input shape {list(x.shape)} does not end "
                             f"with normalized_shape {list(self.normalized_shape)} from axis "
                             f"{self.begin_params_axis}; set begin_norm_axis and begin_params_axis")
        axes = tuple(range(begin, x.ndim))
        wide = N.widen_float16(x)
        mean = F.mean(wide, axes, True)
        centered = F.sub(wide, mean)
        var = F.mean(F.square(centered), axes, True)
        normed = F.mul(centered, F.rsqrt(F.add(var, self.epsilon)))
        return F.cast(F.add(F.mul(normed, self.gamma), self.beta), x.dtype)  # the input's dtype

    def extend_repr(self):
        # 2.10's text, its missing '=' after gamma and no epsilon included
        return (f"normalized_shape={self.normalized_shape}, begin_norm_axis={self.begin_norm_axis}, "
                f"begin_params_axis={self.begin_params_axis}, gamma{self.gamma}, beta={self.beta}")


class Embedding(Cell):
    """A lookup table [vocab_size, embedding_size] ~ Normal(0.01); padding_idx's row is zero."""

    def __init__(self, vocab_size: int, embedding_size: int, use_one_hot: bool = False,
                 embedding_table="normal", dtype="int32", padding_idx=None):
        super().__init__()
        self.vocab_size, self.embedding_size, self.use_one_hot = vocab_size, embedding_size, use_one_hot
        if padding_idx is not None and not 0 <= padding_idx < vocab_size:
            raise ValueError(f"For 'Embedding', the 'padding_idx' must be in range of [0, {vocab_size}), but got "
                             f"{padding_idx} with type '{type(padding_idx).__name__}'.")
        self.padding_idx, self._lookup_dtype = padding_idx, dtype
        self.embedding_table = make_param(embedding_table, (vocab_size, embedding_size), "embedding_table")
        if padding_idx is not None:
            table = self.embedding_table.asnumpy()
            table[padding_idx] = 0
            self.embedding_table.set_data(table)

    def construct(self, ids):
        # MindSpore 2.10 (measured): a negative id counts from the end (Gather's), and with
        # use_one_hot an id out of range or negative is a row of zeros (OneHot's)
        if self.use_one_hot:
            self.check_indices(ids, self.vocab_size, "ids", lowest=None)
            hot = F.one_hot(F.reshape(ids, (-1,)), self.vocab_size, dtype=self.embedding_table.dtype)
            out = F.matmul(hot, self.embedding_table)
            return F.reshape(out, ids.shape + (self.embedding_size,))
        self.check_indices(ids, self.vocab_size, "ids", lowest=-self.vocab_size)
        return F.gather(self.embedding_table, ids, 0)

    def extend_repr(self):
        return (f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}, use_one_hot={self.use_one_hot}, "
                f"embedding_table={self.embedding_table}, dtype={to_dtype(self._lookup_dtype)}, "
                f"padding_idx={self.padding_idx}")


def _int_arg(cls: str, name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For '{cls}', the '{name}' must be int, but got '{type(value).__name__}'")
    if value < 1:
        raise ValueError(f"For '{cls}', the '{name}' must be int and must > 0, but got '{value}' with type 'int'.")
    return value


def _typed_arg(cls: str, name: str, value, kind, kind_name: str):
    if not isinstance(value, kind) or (kind is float and isinstance(value, bool)):
        raise TypeError(f"For '{cls}', the type of '{name}' should be '{kind_name}', but got type "
                        f"'{type(value).__name__}'.")
    return value


class GroupNorm(Cell):
    """Normalises [N, C, ...] over each group of C/num_groups channels and the remaining axes
    (biased variance), then scales and shifts per channel by `gamma` and `beta` (MindSpore's
    names; with affine=False they stay, untrained). The output has the input's dtype."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True,
                 gamma_init="ones", beta_init="zeros", dtype="float32"):
        super().__init__()
        self.num_groups = _int_arg("GroupNorm", "num_groups", num_groups)
        self.num_channels = _int_arg("GroupNorm", "num_channels", num_channels)
        if num_channels % num_groups:
            raise ValueError(f"For 'GroupNorm', the 'num_channels' must be divided by 'num_groups', but got "
                             f"'num_channels': {num_channels}, 'num_groups': {num_groups}.")
        self.eps = _typed_arg("GroupNorm", "eps", eps, float, "float")
        self.affine = _typed_arg("GroupNorm", "affine", affine, bool, "bool")
        self.gamma = make_param(gamma_init, (num_channels,), "gamma", dtype, requires_grad=affine)
        self.beta = make_param(beta_init, (num_channels,), "beta", dtype, requires_grad=affine)

    def construct(self, x):
        self.check_input(x, rank=tuple(range(2, 9)), what="input [N, C, ...]")
        self.check_input(x, axis=1, size=self.num_channels, what=f"input (num_channels={self.num_channels})")
        return N.group_norm(x, self.num_groups, self.gamma, self.beta, self.eps)

    def extend_repr(self):
        return f"num_groups={self.num_groups}, num_channels={self.num_channels}"


class _InstanceNorm(Cell):
    """Normalises each sample's channel over its other axes (biased variance), in training and
    in evaluation alike, then scales and shifts per channel by `gamma` and `beta`.

    MindSpore keeps `moving_mean` and `moving_variance` parameters (named mean and variance, so
    checkpoints interchange) that its kernel never writes back (it updates a scratch copy) and
    no output reads; graphcell keeps them the same way."""
    _rank = 4

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1, affine: bool = True,
                 gamma_init="ones", beta_init="zeros", dtype="float32"):
        super().__init__()
        cls = type(self).__name__
        _typed_arg(cls, "num_features", num_features, int, "int")
        if isinstance(num_features, bool):
            raise TypeError(f"For '{cls}', the type of 'num_features' should be 'int', but got type 'bool'.")
        _typed_arg(cls, "eps", eps, float, "float")
        _typed_arg(cls, "momentum", momentum, float, "float")
        _typed_arg(cls, "affine", affine, bool, "bool")
        if num_features < 1:
            raise ValueError(f"For '{cls}', the 'num_features' must be at least 1, but got {num_features}.")
        if not 0.0 <= momentum <= 1.0:
            raise ValueError(f"For '{cls}', the 'momentum' must be a number in range [0, 1], but got {momentum}.")
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        # Creation order and names are MindSpore's (checkpoint keys depend on them).
        self.moving_mean = make_param("zeros", (num_features,), "mean", dtype, requires_grad=False)
        self.moving_variance = make_param("ones", (num_features,), "variance", dtype, requires_grad=False)
        self.gamma = make_param(gamma_init, (num_features,), "gamma", dtype, requires_grad=affine)
        self.beta = make_param(beta_init, (num_features,), "beta", dtype, requires_grad=affine)

    def construct(self, x):
        self.check_input(x, rank=self._rank)
        if not x.dtype.is_floating:
            raise TypeError(f"For '{type(self).__name__}', the input must be a float Tensor, but got {x.dtype}.")
        self.check_input(x, axis=1, size=self.num_features, what=f"input (num_features={self.num_features})")
        return N.instance_norm(x, self.gamma, self.beta, self.eps)

    def extend_repr(self):
        return _stats_norm_repr(self)


class InstanceNorm1d(_InstanceNorm):
    """Over [N, C, L] inputs."""
    _rank = 3


class InstanceNorm2d(_InstanceNorm):
    """Over [N, C, H, W] inputs."""
    _rank = 4


class InstanceNorm3d(_InstanceNorm):
    """Over [N, C, D, H, W] inputs (MindSpore 2.10's CPU build has no kernel for it; the
    parameters are measured: mean, variance, gamma, beta)."""
    _rank = 5

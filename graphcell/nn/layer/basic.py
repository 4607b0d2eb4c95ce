"""Dense, Flatten, Dropout, Identity and the activation Cells."""
from __future__ import annotations

import numpy as np

from ... import ops
from ...ops import activations as A
from ...ops import functional as F
from ...ops.product_dtypes import check_product_dtypes
from ...tensor import Parameter, Tensor
from ..cell import Cell
from ._init import default_bias_init, default_weight_init, make_param


class Identity(Cell):
    def construct(self, x):
        return x


class Flatten(Cell):
    """[N, ...] -> [N, prod(...)] (start_dim=1 by default)."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def construct(self, x):
        # MindSpore 2.10's layer checks both dims against the rank (a scalar counting as rank 1),
        # so the default start_dim=1 refuses a vector that ops.flatten returns as it is.
        rank = max(x.ndim, 1)
        if not all(-rank <= d < rank for d in (self.start_dim, self.end_dim)):
            raise ValueError(f"'start_dim' or 'end_dim' out of range. (Flatten: start_dim={self.start_dim}, "
                             f"end_dim={self.end_dim}, input of shape {list(x.shape)})")
        return F.flatten(x, start_dim=self.start_dim, end_dim=self.end_dim)


def _activation_cell(name):
    if name is None or isinstance(name, Cell):
        return name
    if callable(name) and not isinstance(name, str):
        return _FunctionCell(name)
    key = name.lower()
    if key not in _ACTIVATIONS:
        raise KeyError(f"unknown activation {name!r}; known: {', '.join(sorted(_ACTIVATIONS))}")
    return _ACTIVATIONS[key]()


def get_activation(name, prim_name=None):
    return _activation_cell(name)


class _FunctionCell(Cell):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, x):
        return self.fn(x)


class Dense(Cell):
    """y = activation(x @ weight.T + bias); weight [out, in] (MindSpore's layout)."""

    def __init__(self, in_channels: int, out_channels: int, weight_init=None, bias_init=None,
                 has_bias: bool = True, activation=None, dtype="float32"):
        super().__init__()
        for name, value in (("in_channels", in_channels), ("out_channels", out_channels)):
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"For 'Dense', the '{name}' must be int and must > 0, but got '{value}' with type "
                                 f"'{type(value).__name__}'.")
        self.in_channels, self.out_channels, self.has_bias = in_channels, out_channels, has_bias
        self.weight = make_param(weight_init if weight_init is not None else default_weight_init(),
                                 (out_channels, in_channels), "weight", dtype)
        self.bias = None
        if has_bias:
            self.bias = make_param(bias_init if bias_init is not None else default_bias_init(in_channels),
                                   (out_channels,), "bias", dtype)
        self.activation = _activation_cell(activation)
        self.activation_flag = self.activation is not None

    def construct(self, x):
        self.check_input(x, axis=-1, size=self.in_channels, what=f"input (in_channels={self.in_channels})")
        if x.dtype is not self.weight.dtype:   # 2.10's Dense runs MatMul (ops/product_dtypes.py)
            from ...frontend.tracer import current_scope
            check_product_dtypes("MatMul", x, self.weight, f"Dense '{current_scope() or 'Dense'}': cast it with "
                                                           f"x.astype(graphcell.{self.weight.dtype.name})")
        out = F.dense(x, self.weight, self.bias)
        return self.activation(out) if self.activation_flag else out

    def extend_repr(self):
        text = f"input_channels={self.in_channels}, output_channels={self.out_channels}, has_bias={self.has_bias}"
        return text + f", activation={self.activation}" if self.activation_flag else text


class Dropout(Cell):
    """Zeroes elements with probability `p` in training mode (inverted dropout)."""

    def __init__(self, keep_prob: float = 0.5, p: float | None = None, dtype=None):
        super().__init__()
        self.p = float(p) if p is not None else 1.0 - float(keep_prob)
        if p is not None and not 0.0 <= self.p < 1.0:
            raise ValueError(f"For 'Dropout', the 'p' must be a number in range [0, 1), but got {p}.")
        if p is None and not 0.0 < float(keep_prob) <= 1.0:
            raise ValueError(f"For 'Dropout', the 'keep_prob' must be a number in range (0, 1], but got {keep_prob}.")
        # 2.10 prints the argument it was given
        self._printed = f"p={p}" if p is not None else f"keep_prob={keep_prob}"

    def construct(self, x):
        return F.dropout(x, self.p, self.training)

    def extend_repr(self):
        return self._printed


def _simple(name: str, fn, doc: str):
    cls = type(name, (Cell,), {"construct": lambda self, x: fn(x), "__doc__": doc})
    return cls


ReLU = _simple("ReLU", F.relu, "max(x, 0)")
ReLU6 = _simple("ReLU6", F.relu6, "min(max(x, 0), 6)")
Sigmoid = _simple("Sigmoid", F.sigmoid, "1 / (1 + exp(-x))")
Tanh = _simple("Tanh", F.tanh, "tanh(x)")
SiLU = _simple("SiLU", F.silu, "x * sigmoid(x)")
HSwish = _simple("HSwish", F.hardswish, "x * relu6(x + 3) / 6")
HSigmoid = _simple("HSigmoid", F.hardsigmoid, "relu6(x + 3) / 6")
Mish = _simple("Mish", F.mish, "x * tanh(softplus(x))")
FastGelu = _simple("FastGelu", F.fast_gelu, "x * sigmoid(1.702 x)")
Softplus = _simple("Softplus", F.softplus, "log(1 + exp(x))")


class GELU(Cell):
    """MindSpore's default is the tanh approximation (approximate=True)."""

    def __init__(self, approximate: bool = True):
        super().__init__()
        if not isinstance(approximate, bool):
            raise TypeError(f"For 'GELU', the 'approximate' must be a bool, but got {type(approximate).__name__}.")
        self.approximate = approximate

    def construct(self, x):
        return F.gelu(x, "tanh" if self.approximate else "none")


class LeakyReLU(Cell):
    def __init__(self, alpha: float = 0.2):
        super().__init__()
        self.alpha = alpha

    def construct(self, x):
        return F.leaky_relu(x, self.alpha)


class PReLU(Cell):
    """max(0, x) + w * min(0, x) with a learned slope `w`: one per channel (axis 1), or one shared
    (channel=1). MindSpore's nn.PReLU(channel=1, w=0.25): `w` a float, a list or a Tensor."""

    def __init__(self, channel: int = 1, w=0.25):
        super().__init__()
        if not isinstance(channel, int) or isinstance(channel, bool) or channel < 1:
            raise ValueError(f"For 'PReLU', 'channel' must be a positive int, but got {channel!r}")
        if isinstance(w, bool) or not isinstance(w, (float, list, Tensor)):
            raise TypeError(f"For 'PReLU', the 'w' only supported float, list and tensor, but got "
                            f"{type(w).__name__}.")
        value = np.asarray(w.asnumpy() if isinstance(w, Tensor) else w, np.float32)
        if value.ndim == 0:
            value = np.full((channel,), value, np.float32)
        if value.shape != (channel,):
            raise ValueError(f"For 'PReLU', 'w' must be a float or hold {channel} value(s) (one per channel), "
                             f"but got shape {list(value.shape)}")
        self.w = Parameter(value, name="a")

    def construct(self, x):
        w = F.cast(self.w, x.dtype)
        if x.ndim >= 2:
            if self.w.shape[0] not in (1, x.shape[1]):
                raise ValueError(f"For 'Prelu', the length of 'weight' must be equal to number of channels: "
                                 f"{x.shape[1]}, but got {list(self.w.shape)}.")
            w = F.reshape(w, (-1,) + (1,) * (x.ndim - 2))  # one slope per channel, axis 1
        elif self.w.shape[0] != 1:
            raise ValueError(f"For 'PReLU', a rank-{x.ndim} input takes channel=1 only")
        return A.prelu_select(x, w)


class ELU(Cell):
    def __init__(self, alpha: float = 1.0):
        super().__init__()
        self.alpha = alpha

    def construct(self, x):
        return F.elu(x, self.alpha)


class Softmax(Cell):
    def __init__(self, axis: int = -1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return F.softmax(x, self.axis)


class LogSoftmax(Cell):
    def __init__(self, axis: int = -1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return F.log_softmax(x, self.axis)


Softsign = _simple("Softsign", A.softsign, "x / (1 + |x|)")
LogSigmoid = _simple("LogSigmoid", A.logsigmoid, "log(sigmoid(x)), finite for every x")
SeLU = _simple("SeLU", A.selu, "scale * elu(x, alpha), SELU's constants")
Tanhshrink = _simple("Tanhshrink", A.tanhshrink, "x - tanh(x)")


class Hardtanh(Cell):
    """x clamped to [min_val, max_val]; min_val must be below max_val."""

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0):
        super().__init__()
        if min_val >= max_val:
            raise ValueError(f"For Hardtanh, min_val should be less than max_val,but got {min_val} and {max_val}")
        self.min_val, self.max_val = min_val, max_val

    def construct(self, x):
        return A.hardtanh(x, self.min_val, self.max_val)

    def extend_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}"


class CELU(Cell):
    """x where x > 0, else alpha * (exp(x / alpha) - 1); alpha a nonzero float."""

    def __init__(self, alpha: float = 1.0):
        super().__init__()
        if isinstance(alpha, bool) or not isinstance(alpha, float):
            raise TypeError(f"For 'CELU', the type of 'alpha' should be 'float', but got type "
                            f"'{type(alpha).__name__}'.")
        if alpha == 0:
            raise ValueError("For 'CELU', the 'alpha' must be not equal to 0, but got 0.")
        self.alpha = alpha

    def construct(self, x):
        return A.celu(x, self.alpha)


class _Shrink(Cell):
    _fn = staticmethod(A.hardshrink)

    def __init__(self, lambd: float = 0.5):
        super().__init__()
        name = type(self).__name__
        if not isinstance(lambd, (bool, int, float)):
            raise TypeError(f"For '{name}', the type of 'lambd' should be one of '[bool, int, float]', but got "
                            f"{type(lambd)}.")
        self.lambd = float(lambd)

    def construct(self, x):
        return self._fn(x, self.lambd)


class HShrink(_Shrink):
    """x where |x| > lambd, else 0 (ops.hardshrink)."""


class SoftShrink(_Shrink):
    """x - lambd above lambd, x + lambd below -lambd, else 0 (ops.softshrink); a negative
    lambd is an error when the Cell runs, as in MindSpore 2.10."""
    _fn = staticmethod(A.softshrink)


class Threshold(Cell):
    """x where x > threshold, else value (MindSpore's nn.Threshold)."""

    def __init__(self, threshold, value):
        super().__init__()
        self.threshold, self.value = threshold, value

    def construct(self, x):
        return A.threshold(x, self.threshold, self.value)


class Softmin(Cell):
    """softmax(-x) over `axis` (an int or a tuple of ints)."""

    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return A.softmin(x, self.axis)


_ACTIVATIONS = {
    "relu": ReLU, "relu6": ReLU6, "gelu": GELU, "fast_gelu": FastGelu, "sigmoid": Sigmoid,
    "tanh": Tanh, "softmax": Softmax, "logsoftmax": LogSoftmax, "elu": ELU, "leakyrelu": LeakyReLU,
    "silu": SiLU, "hswish": HSwish, "hsigmoid": HSigmoid, "mish": Mish, "softplus": Softplus,
    "prelu": PReLU, "softsign": Softsign, "logsigmoid": LogSigmoid, "hardtanh": Hardtanh,
    "tanhshrink": Tanhshrink, "softmin": Softmin, "hshrink": HShrink, "softshrink": SoftShrink,
}

__all__ = ["Identity", "Flatten", "Dense", "Dropout", "ReLU", "ReLU6", "Sigmoid", "Tanh", "SiLU",
           "HSwish", "HSigmoid", "Mish", "FastGelu", "Softplus", "GELU", "LeakyReLU", "PReLU", "ELU",
           "Softmax", "LogSoftmax", "Softsign", "LogSigmoid", "SeLU", "Tanhshrink", "Hardtanh", "CELU",
           "Softmin", "HShrink", "SoftShrink", "Threshold", "get_activation", "ops"]

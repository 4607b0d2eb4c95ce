"""MindSpore 2.10's torch-style layers (`nn.Linear` and the `*Ext` family), over graphcell's
existing ops.

Parameter names, shapes and initial values are 2.10's (measured after `set_seed`): Linear draws
as Dense does, EmbeddingExt's `weight` is Normal(sigma=1.0) with the padding row zeroed,
LayerNormExt's `weight`/`bias` are ones/zeros, PReLUExt's `weight` is `init` repeated. 2.10's
CPU build has no kernel for any of the Ext layers' forward passes (measured: "The kernel ...
unregistered"), so their values follow torch, whose signatures they copy.
"""
from __future__ import annotations

import numbers

import numpy as np

from ...common.initializer import Normal
from ...dtype import to_dtype
from ...ops import activations as A
from ...ops import array_ops
from ...ops import channel_ops as C
from ...ops import functional as F
from ...ops import normalization as N
from ...ops import pooling as PO
from ...tensor import Parameter, Tensor
from ..cell import Cell
from ._init import default_bias_init, default_weight_init, make_param


class Linear(Cell):
    """y = x @ weight.T + bias, weight [out_features, in_features]: Dense with torch's argument
    names (same initialisers and draw order as Dense, so the same seed gives the same weights)."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True, weight_init=None, bias_init=None,
                 dtype=None):
        super().__init__()
        dtype = dtype or "float32"
        self.in_features, self.out_features, self.has_bias = in_features, out_features, bool(bias)
        self.weight = make_param(weight_init if weight_init is not None else default_weight_init(),
                                 (out_features, in_features), "weight", dtype)
        self.bias = None
        if bias:
            self.bias = make_param(bias_init if bias_init is not None else default_bias_init(in_features),
                                   (out_features,), "bias", dtype)

    def construct(self, x):
        self.check_input(x, axis=-1, size=self.in_features, what=f"input (in_features={self.in_features})",
                         dtype=self.weight.dtype)
        return F.dense(x, self.weight, self.bias)

    def extend_repr(self):
        return f"input_features={self.in_features}, output_features={self.out_features}, has_bias={self.has_bias}"


def _ntuple(value, n: int, name: str, op: str) -> tuple:
    """torch's int-or-n-tuple pooling argument."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return (int(value),) * n
    if isinstance(value, (tuple, list)) and len(value) == n:
        return tuple(value)
    raise TypeError(f"For '{op}', '{name}' must be an int or a tuple of {n} ints, but got {value!r}.")


class _AvgPoolExt(Cell):
    """torch's AvgPoolNd: stride defaults to kernel_size; padding at most half the kernel, counted
    in the divisor with count_include_pad (ceil_mode's extra window never is)."""
    _n = 2

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad
        self.divisor_override = divisor_override

    def _args(self):
        op, n = type(self).__name__, self._n
        kernel = _ntuple(self.kernel_size, n, "kernel_size", op)
        stride = kernel if self.stride is None else _ntuple(self.stride, n, "stride", op)
        pad = _ntuple(self.padding, n, "padding", op)
        return kernel, stride, tuple(p for p in pad for _ in range(2))

    def _unbatched(self, x, rank: int):
        """torch accepts an input without its batch axis."""
        return x.ndim == rank - 1


class AvgPool1dExt(_AvgPoolExt):
    """Over [N, C, L] or [C, L]."""
    _n = 1

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__(kernel_size, stride, padding, ceil_mode, count_include_pad)

    def construct(self, x):
        kernel, stride, pads = self._args()
        one = self._unbatched(x, 3)
        x = F.expand_dims(x, 0) if one else x
        out = PO.avg_pool1d(x, kernel[0], stride[0], pads[0], bool(self.ceil_mode), bool(self.count_include_pad))
        return F.squeeze(out, 0) if one else out


class _AvgPoolNdExt(_AvgPoolExt):
    """The 2-D and 3-D ones: `_pool` (PO.avg_pool2d or avg_pool3d) with divisor_override."""
    _pool = None

    def construct(self, x):
        kernel, stride, pads = self._args()
        one = self._unbatched(x, self._n + 2)
        x = F.expand_dims(x, 0) if one else x
        out = type(self)._pool(x, kernel, stride, pads, bool(self.ceil_mode), bool(self.count_include_pad),
                               int(self.divisor_override or 0))
        return F.squeeze(out, 0) if one else out


class AvgPool2dExt(_AvgPoolNdExt):
    """Over [N, C, H, W] or [C, H, W]."""
    _pool = PO.avg_pool2d


class AvgPool3dExt(_AvgPoolNdExt):
    """Over [N, C, D, H, W] or [C, D, H, W]."""
    _n = 3
    _pool = PO.avg_pool3d


class MaxPool2dExt(Cell):
    """torch's MaxPool2d over [N, C, H, W]: stride defaults to kernel_size (2.10 stores it so),
    padding never wins, with return_indices also int64 flat indices into each H*W plane."""

    def __init__(self, kernel_size=1, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = kernel_size if stride is None else stride
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def construct(self, x):
        as_tuple = (lambda v: tuple(v) if isinstance(v, list) else v)
        return PO.max_pool2d(x, as_tuple(self.kernel_size), as_tuple(self.stride), as_tuple(self.padding),
                             as_tuple(self.dilation), self.return_indices, self.ceil_mode)


class DropoutExt(Cell):
    """Zeroes elements with probability `p` in training mode and scales the rest by 1/(1-p)
    (p = 1 zeroes everything); the input itself in eval mode. `inplace` is accepted and changes
    nothing (graphcell's Tensors are values)."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        self.p, self.inplace = p, inplace

    def construct(self, x):
        if not self.training or self.p == 0:
            return x
        if self.p >= 1:
            return F.zeros_like(x)
        return F.dropout(x, float(self.p), True)


class Dropout2dExt(DropoutExt):
    """Zeroes whole channels of [N, C, H, W] with probability `p` in training mode."""

    def construct(self, x):
        if not self.training:
            return x
        return C.dropout2d(x, float(self.p), True)


class EmbeddingExt(Cell):
    """torch's Embedding: `weight` [num_embeddings, embedding_dim] ~ Normal(0, 1) (or `_weight`),
    the padding_idx row zeroed and given no gradient; max_norm scales looked-up rows down to it
    (the table itself is left as it is)."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, dtype=None):
        super().__init__()
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise ValueError(f"For 'EmbeddingExt', padding_idx must be within [{-num_embeddings}, "
                                 f"{num_embeddings}), but got {padding_idx}.")
            padding_idx = padding_idx % num_embeddings
        self.num_embeddings, self.embedding_dim, self.padding_idx = num_embeddings, embedding_dim, padding_idx
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if _weight is None:
            self.weight = make_param(Normal(1.0), (num_embeddings, embedding_dim), "weight", dtype or "float32",
                                     requires_grad=not _freeze)
            if padding_idx is not None:
                table = self.weight.asnumpy()
                table[padding_idx] = 0
                self.weight.set_data(table)
        else:
            array = _weight.asnumpy() if isinstance(_weight, Tensor) else np.asarray(_weight)
            if array.shape != (num_embeddings, embedding_dim):
                raise ValueError(f"For 'EmbeddingExt', _weight must have shape {(num_embeddings, embedding_dim)}, "
                                 f"but got {array.shape}.")
            self.weight = Parameter(array, name="weight", requires_grad=not _freeze)

    def construct(self, ids):
        return array_ops.embedding(ids, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                                   self.scale_grad_by_freq)

    def extend_repr(self):
        return (f"num_embeddings={self.num_embeddings}, embedding_dim={self.embedding_dim}, "
                f"padding_idx={self.padding_idx}, max_norm={self.max_norm}, norm_type={self.norm_type}, "
                f"scale_grad_by_freq={self.scale_grad_by_freq}, dtype={self.weight.dtype}")


class LayerNormExt(Cell):
    """torch's LayerNorm: normalises over the trailing `normalized_shape` axes (biased variance,
    eps 1e-5), then `weight` * x + `bias` (ones and zeros; none without elementwise_affine, no
    bias with bias=False)."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, dtype=None):
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, numbers.Integral) else tuple(normalized_shape)
        self.normalized_shape, self.eps, self.elementwise_affine = shape, eps, elementwise_affine
        dtype = dtype or "float32"
        self.weight = make_param("ones", shape, "weight", dtype) if elementwise_affine else None
        self.bias = make_param("zeros", shape, "bias", dtype) if elementwise_affine and bias else None

    def construct(self, x):
        return N.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)

    def extend_repr(self):
        return f"normalized_shape={self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class LogSoftmaxExt(Cell):
    """log(softmax(x)) along `dim`; dim=None takes torch's implicit axis (0 for a 0-, 1- or 3-D
    input, else 1), as torch's LogSoftmax(dim=None) does (2.10's CPU build cannot run it)."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def construct(self, x):
        dim = self.dim
        if dim is None:
            dim = 0 if x.ndim in (0, 1, 3) else 1
        return F.log_softmax(x, dim)


class PReLUExt(Cell):
    """x where x > 0, else weight * x; `weight` [num_parameters] starts at `init` (one slope, or
    one per channel on axis 1)."""

    def __init__(self, num_parameters=1, init=0.25, dtype=None):
        super().__init__()
        self.weight = Parameter(np.full((num_parameters,), init, to_dtype(dtype or "float32").np_dtype), name="weight")

    def construct(self, x):
        return A.prelu(x, self.weight)

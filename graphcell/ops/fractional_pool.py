"""MindSpore 2.10's fractional max pooling: ops.fractional_max_pool2d / fractional_max_pool3d and
the classes FractionalMaxPoolWithFixedKsize / FractionalMaxPool3DWithFixedKsize.

Each output window has the kernel's size; its start along an axis of n inputs and o outputs is
int((i + u) * alpha) - int(u * alpha) with alpha = (n - k) / (o - 1), the last one n - k, where
u is that axis' random sample for the (batch, channel) plane (torch's and 2.10's rule, measured
equal on both). The starts are computed from the samples as tensors, the windows are gathered
through a static [outputs, kernel] layout, so shapes stay static: jit, vmap, grad and ONNX
come from the composed ops. Without `_random_samples` the samples are uniform [0, 1) draws from
graphcell's global generator (graphcell's numbers, not MindSpore's).
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import dtype as mstype
from ..tensor import Tensor
from . import functional as F
from .op_base import Operator

__all__ = ["fractional_max_pool2d", "fractional_max_pool3d"]
CLASSES = ["FractionalMaxPoolWithFixedKsize", "FractionalMaxPool3DWithFixedKsize"]

_INPUT_DTYPES = (mstype.float16, mstype.float32, mstype.float64, mstype.int32, mstype.int64)
_SAMPLE_DTYPES = (mstype.float16, mstype.float32, mstype.float64)
_PRIM = {2: "FractionalMaxPoolWithFixedKsize", 3: "FractionalMaxPool3DWithFixedKsize"}
_AXES = {2: ("height", "width"), 3: ("depth", "height", "width")}


def _type_list(dtypes) -> str:
    return "{" + ", ".join(f"Tensor[{d}]" for d in dtypes) + "}"


def _sizes(value, name: str, nd: int) -> tuple:
    """ksize / output_shape: a positive int or a tuple of nd positive ints (2.10's checks)."""
    prim, count = _PRIM[nd], "two" if nd == 2 else "three"
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, tuple, list)):
        raise TypeError(f"For '{prim}', the type of '{name}' should be one of '['int', 'tuple']', but got type "
                        f"'{type(value).__name__}'.")
    values = (value,) * nd if isinstance(value, numbers.Integral) else tuple(value)
    if nd == 3 and len(values) != nd:
        raise ValueError(f"For '{prim}', attr '{name}' must be an positive int number or a tuple of three positive "
                         f"int numbers, but got {len(values)} numbers.")
    if len(values) != nd or not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) and v > 0
                                    for v in values):
        raise ValueError(f"For '{prim}' attr '{name}' must be an positive int number or a tuple of "
                         f"{count} positive int numbers, but got {value}")
    return tuple(int(v) for v in values)


def _starts(samples, n: int, k: int, o: int) -> Tensor:
    """int32 [..., o] window starts along one axis from samples [...] (float)."""
    last = F.full(tuple(samples.shape) + (1,), n - k, dtype=mstype.int32)
    if o == 1:
        return last
    alpha = (n - k) / (o - 1)
    u = F.expand_dims(samples, -1)
    steps = Tensor(np.arange(o - 1, dtype=samples.dtype.np_dtype))
    # C's int() truncates toward zero, as a float-to-int cast does
    seq = F.sub(F.cast(F.mul(F.add(steps, u), alpha), mstype.int32), F.cast(F.mul(u, alpha), mstype.int32))
    return F.concat([seq, last], -1)


def _pool(x, samples, kernel: tuple, outputs: tuple):
    """(maxima, int64 flat indices into each plane) of x [N, C, *plane] over the fractional
    windows; samples [N, C, nd] float. The first maximum in row-major window order wins."""
    nd = len(kernel)
    plane = tuple(x.shape[2:])
    lead = tuple(x.shape[:2])
    strides = np.cumprod((1,) + plane[::-1])[:-1][::-1]
    samples = samples if samples.dtype == mstype.float64 else F.cast(samples, mstype.float32)
    flat = None
    for a in range(nd):
        # torch's and 2.10's sample order: 2-D gives sample 0 to the width, 3-D to the depth
        u = F.squeeze(F.gather(samples, Tensor(np.array([1 - a if nd == 2 else a], np.int32)), 2), 2)
        along = F.add(F.expand_dims(_starts(u, plane[a], kernel[a], outputs[a]), -1),
                      Tensor(np.arange(kernel[a], dtype=np.int32)))                   # [N, C, o_a, k_a]
        shape = [1] * (2 * nd)
        shape[a], shape[nd + a] = outputs[a], kernel[a]
        term = F.mul(F.reshape(along, lead + tuple(shape)), int(strides[a]))
        flat = term if flat is None else F.add(flat, term)
    flat = F.broadcast_to(flat, lead + tuple(outputs) + tuple(kernel))
    window = int(np.prod(kernel))
    table = F.reshape(flat, lead + (int(np.prod(outputs)) * window,))
    picked = F.gather_elements(F.reshape(x, lead + (int(np.prod(plane)),)), 2, table)
    picked = F.reshape(picked, lead + tuple(outputs) + (window,))
    first = F.argmax(picked, -1, keepdim=True)
    values = F.squeeze(F.gather_elements(picked, picked.ndim - 1, first), -1)
    where = F.squeeze(F.gather_elements(F.reshape(flat, lead + tuple(outputs) + (window,)), picked.ndim - 1, first), -1)
    return values, F.cast(where, mstype.int64)


def _check_fits(plane: tuple, kernel: tuple, outputs: tuple, nd: int):
    prim = _PRIM[nd]
    for axis, n, k, o in zip(_AXES[nd], plane, kernel, outputs):
        if k + o - 1 > n:
            short = axis[0]
            raise ValueError(f"For {prim}, ksize {axis} [{k}] + output_shape_{short} [{o}] too large relative to "
                             f"input {axis} [{n}], conflict with the rule: ksize_{short} + output_shape_{short} - 1 "
                             f"<= input_{short}")


def _check_dtype(name: str, value, allowed, prim: str):
    if value.dtype not in allowed:
        raise TypeError(f"For primitive[{prim}], the input argument[{name}] must be a type of {_type_list(allowed)}, "
                        f"but got Tensor[{value.dtype}].")


def _fixed_ksize(x, samples, kernel: tuple, outputs: tuple, nd: int):
    """The classes' body: x [N, C, *plane], samples [N, C, nd]."""
    prim = _PRIM[nd]
    _check_dtype("input_x dtype" if nd == 2 else "x", x, _INPUT_DTYPES, prim)
    _check_dtype("random_samples dtype" if nd == 2 else "random_samples", samples, _SAMPLE_DTYPES, prim)
    if samples.ndim != 3:
        raise TypeError(f"For '{prim}', the dimension of 'random_samples' must be equal to 3, but got {samples.ndim}.")
    if samples.shape[-1] != nd:
        raise ValueError(f"For {prim}, the last dimension size of random_samples must be {nd}, but got "
                         f"{samples.shape[-1]}")
    if samples.shape[0] != x.shape[0]:
        raise ValueError("The first dimension size of input_x and random_samples must be equal.")
    if samples.shape[1] != x.shape[1]:
        raise ValueError(f"For '{prim}', if 'x' is {nd + 2} dimensional, the second dimension size of 'x' and "
                         "'random_samples' must be equal.")
    _check_fits(tuple(x.shape[2:]), kernel, outputs, nd)
    return _pool(x, samples, kernel, outputs)


def _output_sizes(op: str, plane: tuple, output_size, output_ratio, nd: int) -> tuple:
    """output_size wins when both are given (2.10); else int(n * ratio) per axis."""
    if output_size is None and output_ratio is None:
        raise ValueError(f"For {op}, 'output_size' and 'output_ratio' can not be Noneat the same time, but got None "
                         "and None .")
    if output_size is not None:
        return _sizes(output_size, "output_shape", nd)
    ratios = (output_ratio,) * nd if isinstance(output_ratio, numbers.Real) else tuple(output_ratio)
    if len(ratios) < nd:
        raise IndexError(f"For '{op}', 'output_ratio' must be a float or a tuple of {nd} floats, but got "
                         f"{output_ratio}.")
    for i, ratio in enumerate(ratios[:nd]):
        if not 0.0 < ratio < 1.0:
            raise ValueError(f"For '{op}', the 'output_ratio[{i}]' must be in range of (0.0, 1.0), but got {ratio} "
                             f"with type '{type(ratio).__name__}'.")
    return tuple(int(n * r) for n, r in zip(plane, ratios))


def _functional(op: str, nd: int, input, kernel_size, output_size, output_ratio, return_indices,  # noqa: A002
                _random_samples):
    if not isinstance(input, Tensor):
        raise TypeError(f"For '{op}', 'input' must be a Tensor, but got {type(input).__name__}.")
    if input.ndim not in (nd + 1, nd + 2):
        # 2.10 fails inside its primitive on these (a 3-D input to fractional_max_pool3d with an IndexError)
        if nd == 2:
            raise ValueError(f"For {_PRIM[nd]}, the dimension of input_x must be 4, but got {input.ndim}")
        raise IndexError(f"For '{op}', the input must be 4-D or 5-D, but got {input.ndim}-D.")
    kernel = _sizes(kernel_size, "ksize", nd)
    outputs = _output_sizes(op, tuple(input.shape[-nd:]), output_size, output_ratio, nd)
    unbatched = input.ndim == nd + 1
    x = F.expand_dims(input, 0) if unbatched else input
    if _random_samples is None:
        samples = F.uniform((x.shape[0], x.shape[1], nd), dtype=mstype.float32)
        if nd == 3 and input.dtype.is_floating:
            samples = F.cast(samples, input.dtype)
    else:
        samples = F.as_tensor(_random_samples)
    if nd == 3 and samples.dtype != input.dtype:
        raise TypeError(f"For '{op}', 'input' and '_random_samples' must be same dtype, but got "
                        f"Tensor[{input.dtype}] and Tensor[{samples.dtype}].")
    values, where = _fixed_ksize(x, samples, kernel, outputs, nd)
    if unbatched:
        values, where = F.squeeze(values, 0), F.squeeze(where, 0)
    return (values, where) if return_indices else values


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,  # noqa: A002
                          _random_samples=None):
    """Fractional max pooling of [N, C, H, W] or [C, H, W]: output_size (int or (h, w)) or
    output_ratio (in (0, 1)); `_random_samples` [N, C, 2] in [0, 1) fixes the windows
    (sample 0 for the width, 1 for the height); return_indices adds the int64 flat H*W indices."""
    return _functional("fractional_max_pool2d", 2, input, kernel_size, output_size, output_ratio, return_indices,
                       _random_samples)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,  # noqa: A002
                          _random_samples=None):
    """Fractional max pooling of [N, C, D, H, W] or [C, D, H, W]; `_random_samples` [N, C, 3] of
    input's dtype (sample 0 for the depth, 1 the height, 2 the width)."""
    return _functional("fractional_max_pool3d", 3, input, kernel_size, output_size, output_ratio, return_indices,
                       _random_samples)


def _data_format(prim: str, value, allowed: str):
    if value != allowed:
        raise ValueError(f"For '{prim}', the 'data_format' must be str and must be in '['{allowed}']', but got "
                         f"'{value}'.")
    return value


class FractionalMaxPoolWithFixedKsize(Operator):
    """(y, argmax): fractional max pooling of [N, C, H, W] with the windows fixed by
    random_samples [N, C, 2]; argmax int64 into each H*W plane. data_format 'NCHW' only (2.10)."""

    def __init__(self, ksize, output_shape, data_format="NCHW"):
        super().__init__(ksize=_sizes(ksize, "ksize", 2), output_shape=_sizes(output_shape, "output_shape", 2),
                         data_format=_data_format(self.name, data_format, "NCHW"))

    def __call__(self, input_x, random_samples):
        x, samples = F.as_tensor(input_x), F.as_tensor(random_samples)
        if x.ndim != 4:
            raise ValueError(f"For {self.name}, the dimension of input_x must be 4, but got {x.ndim}")
        return _fixed_ksize(x, samples, self.ksize, self.output_shape, 2)


class FractionalMaxPool3DWithFixedKsize(Operator):
    """(y, argmax): fractional max pooling of [N, C, D, H, W] (or [C, D, H, W] with samples
    [C, 1, 3]) with the windows fixed by random_samples [N, C, 3]; data_format 'NCDHW' only."""

    def __init__(self, ksize, output_shape, data_format="NCDHW"):
        super().__init__(ksize=_sizes(ksize, "ksize", 3), output_shape=_sizes(output_shape, "output_shape", 3),
                         data_format=_data_format(self.name, data_format, "NCDHW"))

    def __call__(self, x, random_samples):
        x, samples = F.as_tensor(x), F.as_tensor(random_samples)
        if x.ndim not in (4, 5):
            raise ValueError(f"For '{self.name}', the dimension of 'x' must be 4 or 5, but got {x.ndim}.")
        if x.ndim == 5:
            return _fixed_ksize(x, samples, self.ksize, self.output_shape, 3)
        if samples.ndim != 3 or samples.shape[0] != x.shape[0]:
            raise ValueError(f"For '{self.name}', if 'x' is 4 dimensional, the first dimension size of 'x' and "
                             "'random_samples' must be equal.")
        values, where = _fixed_ksize(F.expand_dims(x, 0), F.reshape(samples, (1, samples.shape[0], -1)),
                                     self.ksize, self.output_shape, 3)
        return F.squeeze(values, 0), F.squeeze(where, 0)

"""More of MindSpore 2.10's Tensor methods: `TensorMethods`, a mixin `Tensor` inherits.

Each method forwards to the graphcell.ops function it names (or is a line or two over ops),
so it runs eagerly, traced for jit, vmapped and differentiated like the op. Argument names,
defaults and result dtypes are MindSpore 2.10's, measured on its CPU build.

In-place methods (`add_`, `clamp_`, `fill_`, ...) compute the new value out of place and
write it with `Tensor._write`: a Tensor holds the new value from then on (in a trace, later
uses read it: the same rebinding `x[i] = v` does), a Parameter records an `ops.assign` (at
once eagerly, a state update in a trace). They return the Tensor itself, and keep its dtype
and shape, as MindSpore's graph mode does (MindSpore 2.10's CPU PYNATIVE lacks most in-place
kernels: its add_ returns a new Tensor and leaves `x` as it was).
"""
from __future__ import annotations

import numpy as np

from . import dtype as mstype

_OPS = None


def _ops():
    """The graphcell.ops package, imported on first use (it imports graphcell.tensor)."""
    global _OPS
    if _OPS is None:
        from . import ops
        _OPS = ops
    return _OPS


def _is_tensor(x) -> bool:
    from .tensor import Tensor
    return isinstance(x, Tensor)


def _sizes(args, what: str) -> tuple:
    """`f(2, 3)` or `f((2, 3))`: the sizes as one tuple."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    if not all(isinstance(a, (int, np.integer)) for a in args):
        raise TypeError(f"Tensor.{what} takes ints or one tuple of ints, got {args!r}")
    return tuple(int(a) for a in args)


def _generator_key(generator, what: str):
    """The next key of `generator` (a graphcell.Generator), or None for the default stream."""
    from .ops.generator import key_from
    return key_from(generator, f"Tensor.{what}")


def _float_only(t, what: str) -> None:
    if not t.dtype.is_floating:
        raise TypeError(f"Tensor.{what} fills a floating-point Tensor, got {t.dtype}")


class TensorMethods:
    """MindSpore's Tensor methods over graphcell.ops; `Tensor` inherits them."""
    __slots__ = ()

    # -- elementwise ----------------------------------------------------------------------
    def cos(self): return _ops().cos(self)
    def sin(self): return _ops().sin(self)
    def tanh(self): return _ops().tanh(self)
    def sigmoid(self): return _ops().sigmoid(self)
    def erf(self): return _ops().erf(self)
    def expm1(self): return _ops().expm1(self)
    def log1p(self): return _ops().log1p(self)
    def reciprocal(self): return _ops().reciprocal(self)
    def rsqrt(self): return _ops().rsqrt(self)
    def neg(self): return _ops().neg(self)
    def negative(self): return _ops().neg(self)
    def bitwise_not(self): return _ops().bitwise_not(self)
    def invert(self): return _ops().bitwise_not(self)
    def logical_not(self): return _ops().logical_not(self)
    def isneginf(self): return _ops().isneginf(self)
    def isposinf(self): return _ops().isposinf(self)

    def inv(self):
        """1 / x; an integer Tensor stays integer, the quotient truncated (MindSpore 2.10:
        Tensor([2, 1, -1], int32).inv() is [0, 1, -1])."""
        if self.dtype.is_floating:
            return _ops().reciprocal(self)
        return _ops().div(_ops().ones_like(self), self, rounding_mode="trunc")

    def soft_shrink(self, lambd=0.5): return _ops().softshrink(self, lambd)

    def softmax(self, axis, dtype=None):
        return _ops().softmax(self, axis, dtype=dtype)

    def clamp(self, min=None, max=None):  # noqa: A002 - MindSpore's names
        return _ops().clamp(self, min, max)

    # -- comparisons and binary arithmetic (Python numbers take this Tensor's dtype) ----------
    def eq(self, other): return _ops().equal(self, other)
    def equal(self, other): return _ops().equal(self, other)
    def ne(self, other): return _ops().not_equal(self, other)
    def not_equal(self, other): return _ops().not_equal(self, other)
    def ge(self, other): return _ops().greater_equal(self, other)
    def greater_equal(self, other): return _ops().greater_equal(self, other)
    def gt(self, other): return _ops().greater(self, other)
    def greater(self, other): return _ops().greater(self, other)
    def le(self, other): return _ops().less_equal(self, other)
    def less_equal(self, other): return _ops().less_equal(self, other)
    def lt(self, other): return _ops().less(self, other)
    def less(self, other): return _ops().less(self, other)
    def maximum(self, other): return _ops().maximum(self, other)
    def minimum(self, other): return _ops().minimum(self, other)
    def bitwise_and(self, other): return _ops().bitwise_and(self, other)
    def bitwise_or(self, other): return _ops().bitwise_or(self, other)
    def bitwise_xor(self, other): return _ops().bitwise_xor(self, other)
    def bitwise_left_shift(self, other): return _ops().bitwise_left_shift(self, other)
    def bitwise_right_shift(self, other): return _ops().bitwise_right_shift(self, other)
    def nextafter(self, other): return _ops().nextafter(self, other)
    def logical_and(self, other): return _ops().logical_and(self, other)
    def logical_or(self, other): return _ops().logical_or(self, other)
    def logical_xor(self, other): return _ops().logical_xor(self, other)
    def fmod(self, other): return _ops().fmod(self, other)
    def floor_divide(self, other): return _ops().floor_divide(self, other)
    def true_divide(self, other): return _ops().true_divide(self, other)
    def multiply(self, value): return _ops().mul(self, value)

    def remainder(self, other=None, *, divisor=None):
        """Python's %, the divisor's sign; `divisor` is MindSpore's other keyword for `other`."""
        return _ops().remainder(self, divisor if other is None else other)

    def divide(self, other, *, rounding_mode=None):
        return _ops().div(self, other, rounding_mode=rounding_mode)

    def subtract(self, other, *, alpha=1):
        return _ops().subtract(self, other, alpha=alpha)

    def xdivy(self, y):
        """x / y, and 0 where x is 0 (0 / 0 included)."""
        ops = _ops()
        quotient = ops.div(self, y)
        return ops.select(ops.equal(self, 0), ops.zeros_like(quotient), quotient)

    def approximate_equal(self, other, tolerance=1e-05):
        return _ops().less(_ops().abs(_ops().sub(self, other)), tolerance)

    def isclose(self, other=None, rtol=1e-05, atol=1e-08, equal_nan=False, *, x2=None):
        """`x2` is MindSpore's other keyword for `other`."""
        return _ops().isclose(self, x2 if other is None else other, rtol, atol, equal_nan)

    def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        return _ops().allclose(self, other, rtol, atol, equal_nan)

    # -- selection --------------------------------------------------------------------------
    def where(self, condition, y):
        """This Tensor where `condition` holds, `y` elsewhere."""
        return _ops().where(condition, self, y)

    def select(self, *args, **kwargs):
        """MindSpore 2.10's two forms: select(dim, index), the slice at `index` along `dim`
        (an axis fewer); and select(condition, y), as `where`."""
        tensor_form = "condition" in kwargs or (args and _is_tensor(args[0]))
        names = ("condition", "y") if tensor_form else ("dim", "index")
        given = dict(zip(names, args), **kwargs)
        if len(args) > 2 or set(given) != set(names):
            raise TypeError(f"Tensor.select takes (dim, index) or (condition, y), got {len(args)} arguments "
                            f"and keywords {sorted(kwargs)}")
        if tensor_form:
            return _ops().select(given["condition"], self, given["y"])
        return _ops().getitem(self, (slice(None),) * (given["dim"] % self.ndim) + (given["index"],))

    def take(self, indices=None, axis=None, mode="clip", *, index=None):
        """numpy's take along `axis` (the flattened Tensor when None). mode 'clip' (MindSpore's
        default) first counts a negative index from the end and then clips into range
        (measured: -1 is the last element, -10 of 6 the first); 'wrap' takes it modulo the
        axis size. `index` is MindSpore's other keyword for `indices`."""
        ops = _ops()
        indices = index if indices is None else indices
        if mode == "raise":
            raise NotImplementedError('"raise" mode is not implemented')   # MindSpore 2.10's refusal
        if mode not in ("clip", "wrap"):
            raise ValueError(f"Tensor.take: mode must be 'clip', 'wrap' or 'raise', got {mode!r}")
        x, axis = (ops.reshape(self, (-1,)), 0) if axis is None else (self, axis)
        n, idx = x.shape[axis], ops.as_tensor(indices)
        if mode == "wrap":
            idx = ops.remainder(idx, n)
        else:
            idx = ops.clamp(ops.select(ops.less(idx, 0), ops.add(idx, n), idx), 0, n - 1)
        return ops.gather(x, idx, axis)

    def choose(self, choices, mode="clip"):
        """numpy's choose: element i from choices[self[i]] (all broadcast together); 'clip'
        clips an index into range (-1 picks choices[0]), 'wrap' takes it modulo len(choices)."""
        ops = _ops()
        if mode not in ("clip", "wrap"):
            raise ValueError(f"Tensor.choose: mode must be 'clip' or 'wrap', got {mode!r}")
        choices = [ops.as_tensor(c) for c in choices]
        dtype = mstype.result_dtype(*(c.dtype for c in choices))
        shape = np.broadcast_shapes(self.shape, *(c.shape for c in choices))
        n = len(choices)
        idx = ops.remainder(self, n) if mode == "wrap" else ops.clamp(self, 0, n - 1)
        stacked = ops.stack([ops.broadcast_to(ops.cast(c, dtype), shape) for c in choices], 0)
        idx = ops.expand_dims(ops.broadcast_to(ops.cast(idx, mstype.int64), shape), 0)
        return ops.squeeze(ops.gather_elements(stacked, 0, idx), 0)

    def fill_diagonal(self, fill_value, wrap=False):
        """A new Tensor with the main diagonal set to `fill_value` (numpy's fill_diagonal:
        2-D, or every axis the same size; `wrap` restarts the diagonal below a tall matrix's
        square part, after one skipped row)."""
        if self.ndim < 2 or (self.ndim > 2 and len(set(self.shape)) > 1):
            raise ValueError(f"Tensor.fill_diagonal needs a 2-D Tensor or one with all dimensions equal, "
                             f"got shape {list(self.shape)}")
        mask = np.zeros(self.shape, bool)
        np.fill_diagonal(mask, True, wrap=wrap)
        from .tensor import Tensor
        return _ops().masked_fill(self, Tensor(mask), _ops().cast(_ops().as_tensor(fill_value), self.dtype))

    def itemset(self, *args):
        """A new Tensor with one element set (MindSpore 2.10 leaves this one as it is):
        itemset(value) for a one-element Tensor, itemset(flat_index or index_tuple, value)."""
        if len(args) == 1:
            if self.size != 1:
                raise ValueError("Tensor.itemset(value) needs a Tensor of one element; give an index too")
            index, value = (0,) * self.ndim, args[0]
        elif len(args) == 2:
            index, value = args
            index = tuple(np.unravel_index(int(index), self.shape)) if isinstance(index, (int, np.integer)) \
                else tuple(index)
        else:
            raise TypeError(f"Tensor.itemset takes 1 or 2 arguments, got {len(args)}")
        return _ops().setitem(self, index, value)

    # -- shapes -----------------------------------------------------------------------------
    def permute(self, *dims):
        """permute(1, 0) or permute((1, 0)); keyword `dims`."""
        return _ops().permute(self, _sizes(dims, "permute"))

    def moveaxis(self, source, destination):
        return _ops().movedim(self, source, destination)

    def broadcast_to(self, *shape):
        """broadcast_to(2, 3) or broadcast_to((2, 3)); -1 keeps a size."""
        return _ops().broadcast_to(self, _sizes(shape, "broadcast_to"))

    def reshape_as(self, other): return _ops().reshape(self, other.shape)
    def view_as(self, other): return _ops().reshape(self, other.shape)
    def type_as(self, other): return _ops().cast(self, other.dtype)
    def reverse(self, axis): return _ops().flip(self, axis)
    def dsplit(self, indices_or_sections): return _ops().tensor_split(self, indices_or_sections, 2)

    def sum_to_size(self, *size):
        """Sums the axes that broadcasting `size` to this shape would have made: the leading
        extra axes, and each axis `size` has as 1."""
        size = _sizes(size, "sum_to_size")
        lead = self.ndim - len(size)
        if lead < 0 or any(s not in (1, n) for s, n in zip(size, self.shape[lead:])):
            raise ValueError(f"Tensor.sum_to_size: size {list(size)} is not expandable to the Tensor's "
                             f"shape {list(self.shape)}")
        out = self
        kept = tuple(lead + i for i, (s, n) in enumerate(zip(size, self.shape[lead:])) if s == 1 and n != 1)
        if kept:
            out = _ops().sum(out, kept, True)
        if lead:
            out = _ops().sum(out, tuple(range(lead)))
        return out

    def resize(self, *new_shape):
        """A new Tensor of `new_shape` holding this one's elements in order, cut short or
        padded with zeros (MindSpore 2.10 returns it and leaves this Tensor as it is)."""
        ops = _ops()
        new_shape = _sizes(new_shape, "resize")
        count, flat = int(np.prod(new_shape, dtype=np.int64)), ops.reshape(self, (-1,))
        if count <= self.size:
            flat = flat[:count]
        else:
            flat = ops.concat([flat, ops.zeros((count - self.size,), self.dtype)], 0)
        return ops.reshape(flat, new_shape)

    @property
    def mT(self):
        """The last two axes swapped."""
        if self.ndim < 2:
            raise ValueError(f"Tensor.mT needs at least 2 dimensions, got {self.ndim}")
        return _ops().swapaxes(self, -2, -1)

    @property
    def H(self):
        """The conjugate transpose of a 2-D Tensor (graphcell's Tensors are real: the transpose)."""
        if self.ndim != 2:
            raise ValueError(f"For tensor.H, only 2-D Tensor is supported, but got {self.ndim}-D.")
        return _ops().transpose(self, None)

    @property
    def mH(self):
        return self.adjoint()

    def adjoint(self):
        """The conjugate of mT (graphcell's Tensors are real: mT)."""
        return self.mT

    def clone(self):
        """A new Tensor of the same value (in-place methods on either leave the other as it is)."""
        return self._wrap(self._payload)

    def contiguous(self): return self
    def is_contiguous(self): return True
    def value(self): return self
    def ndimension(self): return self.ndim

    # -- dtypes -----------------------------------------------------------------------------
    def is_floating_point(self): return self.dtype.is_floating
    def is_signed(self): return self.dtype.is_floating or self.dtype.np_dtype.kind == "i"
    def is_complex(self): return False      # graphcell has no complex dtypes
    def byte(self): return self.astype(mstype.uint8)
    def short(self): return self.astype(mstype.int16)
    def bfloat16(self): return self.astype(mstype.bfloat16)

    def type(self, dtype=None):
        """The dtype when `dtype` is None, else this Tensor cast to it."""
        return self.dtype if dtype is None else self.astype(dtype)

    @staticmethod
    def from_numpy(array):
        from .tensor import Tensor
        return Tensor(array)

    def new_zeros(self, size, dtype=None):
        return _ops().zeros(size, dtype or self.dtype)

    def new_ones(self, size, dtype=None):
        return _ops().ones(size, dtype or self.dtype)

    def new_full(self, size, fill_value, *, dtype=None):
        return _ops().full(size, fill_value, dtype or self.dtype)

    def new_empty(self, size, *, dtype=None, device=None):
        """Zeros (graphcell does not hand out uninitialised memory)."""
        return _ops().zeros(size, dtype or self.dtype)

    # -- matrices ---------------------------------------------------------------------------
    def bmm(self, mat2): return _ops().bmm(self, mat2)
    def dot(self, other): return _ops().dot(self, other)
    def inner(self, other): return _ops().inner(self, other)
    def outer(self, vec2): return _ops().outer(self, vec2)
    def ger(self, vec2): return _ops().outer(self, vec2)
    def cross(self, other, dim=None): return _ops().cross(self, other, dim)

    def addmm(self, mat1, mat2, *, beta=1, alpha=1):
        return _ops().addmm(self, mat1, mat2, beta=beta, alpha=alpha)

    def addmv(self, mat, vec, *, beta=1, alpha=1):
        return _ops().addmv(self, mat, vec, beta=beta, alpha=alpha)

    def addr(self, vec1, vec2, beta=1, alpha=1):
        return _ops().addr(self, vec1, vec2, beta=beta, alpha=alpha)

    def baddbmm(self, batch1, batch2, *, beta=1, alpha=1):
        return _ops().baddbmm(self, batch1, batch2, beta, alpha)

    def addbmm(self, batch1, batch2, *, beta=1, alpha=1):
        """beta * self + alpha * (the batch of products batch1 @ batch2, summed)."""
        ops = _ops()
        return ops.addmm(self, ops.reshape(ops.swapaxes(batch1, 0, 1), (batch1.shape[1], -1)),
                         ops.reshape(batch2, (-1, batch2.shape[2])), beta=beta, alpha=alpha)

    def diag(self, diagonal=0):
        """ops.diag (a 1-D Tensor's diagonal matrix); MindSpore 2.10 takes diagonal=0 only."""
        if diagonal != 0:
            raise ValueError(f"For 'Tensor.diag', the argument 'diagonal' should be '0', but got {diagonal}.")
        return _ops().diag(self)

    def diagonal(self, offset=0, axis1=0, axis2=1):
        return _ops().diagonal(self, offset, axis1, axis2)

    def diagflat(self, offset=0):
        """The flattened Tensor on diagonal `offset` of a square matrix, zeros elsewhere."""
        ops = _ops()
        square, k = ops.diag(ops.reshape(self, (-1,))), abs(offset)
        pad = ((0, k), (k, 0)) if offset > 0 else ((k, 0), (0, k))
        return ops.pad(square, tuple(p for axis in reversed(pad) for p in axis)) if k else square

    def fold(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        return _ops().fold(self, output_size, kernel_size, dilation, padding, stride)

    def unfold(self, kernel_size, dilation=1, padding=0, stride=1):
        return _ops().unfold(self, kernel_size, dilation, padding, stride)

    # -- reductions -------------------------------------------------------------------------
    def amax(self, axis=None, keepdims=False, *, initial=None, where=None):
        return _ops().amax(self, axis, keepdims, initial=initial, where=where)

    def amin(self, axis=None, keepdims=False, *, initial=None, where=None):
        return _ops().amin(self, axis, keepdims, initial=initial, where=where)

    def ptp(self, axis=None, keepdims=False):
        """max - min ("peak to peak"), in this Tensor's dtype."""
        return _ops().sub(_ops().amax(self, axis, keepdims), _ops().amin(self, axis, keepdims))

    def logsumexp(self, dim, keepdim=False):
        return _ops().logsumexp(self, dim, keepdim)

    def count_nonzero(self, axis=(), keep_dims=False, dtype=None):
        """int32 counts unless `dtype` says otherwise (MindSpore 2.10's Tensor method)."""
        return _ops().count_nonzero(self, axis, keep_dims, dtype or mstype.int32)

    def argmax_with_value(self, axis=0, keep_dims=False):
        """(maxima, their int64 indices) along `axis` (MindSpore 2.10's order, measured)."""
        return _ops().max(self, axis, keep_dims)

    def argmin_with_value(self, axis=0, keep_dims=False):
        return _ops().min(self, axis, keep_dims)

    def top_k(self, k, sorted=True):  # noqa: A002 - MindSpore's names
        return _ops().topk(self, k, None, True, sorted)

    def msort(self):
        """Sorted along the first axis."""
        return _ops().sort(self, 0)[0]

    def kthvalue(self, k, dim=-1, keepdim=False):
        """(the k-th smallest along `dim`, its int64 index), k counting from 1."""
        ops = _ops()
        if not 1 <= k <= self.shape[dim]:
            raise ValueError(f"Tensor.kthvalue: k must be in [1, {self.shape[dim]}], got {k}")
        values, indices = ops.sort(self, dim)
        at = (slice(None),) * (dim % self.ndim) + (slice(k - 1, k) if keepdim else k - 1,)
        return values[at], ops.cast(indices[at], mstype.int64)

    def nanmedian(self, axis=-1, keepdims=False):
        return _ops().nanmedian(self, axis, keepdims)

    def reverse_sequence(self, seq_lengths, seq_dim=0, batch_dim=0):
        return _ops().reverse_sequence(self, seq_lengths, seq_dim, batch_dim)

    def unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
        return _ops().unique_consecutive(self, return_inverse, return_counts, dim)

    # -- random -----------------------------------------------------------------------------
    def uniform(self, from_=0.0, to=1.0, generator=None):
        """A new Tensor of this shape and (floating) dtype, uniform in [from_, to)."""
        _float_only(self, "uniform")
        return _ops().uniform(self.shape, from_, to, dtype=self.dtype, key=_generator_key(generator, "uniform"))

    # -- in place: each computes the new value, then writes it (Tensor._write) -------------
    def add_(self, other, *, alpha=1):
        return self._write(_ops().subtract(self, other, alpha=-alpha), "add_")   # self + alpha * other

    def sub_(self, other, *, alpha=1):
        return self._write(_ops().subtract(self, other, alpha=alpha), "sub_")

    def mul_(self, other): return self._write(_ops().mul(self, other), "mul_")

    def div_(self, other, *, rounding_mode=None):
        return self._write(_ops().div(self, other, rounding_mode=rounding_mode), "div_")

    def floor_divide_(self, other): return self._write(_ops().floor_divide(self, other), "floor_divide_")
    def remainder_(self, other): return self._write(_ops().remainder(self, other), "remainder_")

    def clamp_(self, min=None, max=None):  # noqa: A002 - MindSpore's names
        return self._write(_ops().clamp(self, min, max), "clamp_")

    def exp_(self): return self._write(_ops().exp(self), "exp_")
    def log_(self): return self._write(_ops().log(self), "log_")
    def floor_(self): return self._write(_ops().floor(self), "floor_")
    def sigmoid_(self): return self._write(_ops().sigmoid(self), "sigmoid_")
    def tanh_(self): return self._write(_ops().tanh(self), "tanh_")
    def sign_(self): return self._write(_ops().sign(self), "sign_")
    def erfinv_(self): return self._write(_ops().erfinv(self), "erfinv_")

    def fill_(self, value): return self._write(_ops().full_like(self, value), "fill_")
    def zero_(self): return self._write(_ops().zeros_like(self), "zero_")

    def copy_(self, src, non_blocking=False):
        """`src`'s values, broadcast to this shape and cast to this dtype."""
        return self._write(_ops().broadcast_to(_ops().as_tensor(src), self.shape), "copy_")

    def assign_value(self, value): return self._write(_ops().as_tensor(value), "assign_value")

    def masked_fill_(self, mask, value):
        return self._write(_ops().masked_fill(self, mask, value), "masked_fill_")

    def scatter_(self, dim, index, src=None, *, value=None, reduce=None):
        """src (a Tensor, or `value`, a number) written at `index` along `dim`; reduce='add'
        adds instead ('multiply' waits on a multiplying scatter)."""
        src = value if src is None else src
        if reduce is None:
            return self._write(_ops().scatter(self, dim, index, src), "scatter_")
        if reduce != "add":
            raise ValueError(f"Tensor.scatter_: reduce must be None or 'add' in graphcell, got {reduce!r}")
        if not _is_tensor(src):
            src = _ops().full(index.shape, src, self.dtype)
        return self._write(_ops().tensor_scatter_elements(self, index, src, dim, "add"), "scatter_")

    def scatter_add_(self, dim, index, src):
        return self._write(_ops().tensor_scatter_elements(self, index, src, dim, "add"), "scatter_add_")

    def addmm_(self, mat1, mat2, *, beta=1, alpha=1):
        return self._write(self.addmm(mat1, mat2, beta=beta, alpha=alpha), "addmm_")

    def fill_diagonal_(self, fill_value, wrap=False):
        return self._write(self.fill_diagonal(fill_value, wrap), "fill_diagonal_")

    def uniform_(self, from_=0, to=1, *, generator=None):
        _float_only(self, "uniform_")
        key = _generator_key(generator, "uniform_")
        return self._write(_ops().uniform(self.shape, from_, to, dtype=self.dtype, key=key), "uniform_")

    def normal_(self, mean=0, std=1, *, generator=None):
        _float_only(self, "normal_")
        key = _generator_key(generator, "normal_")
        return self._write(_ops().normal(self.shape, mean, std, dtype=self.dtype, key=key), "normal_")

    def requires_grad_(self, requires_grad=True):
        """Returns this Tensor: graphcell's grad takes the positions or Parameters it
        differentiates (Parameter.requires_grad_ sets the flag)."""
        return self


def check_in_place(t, value, what: str):
    """`value` as what in-place method `what` may write into `t`: cast to t's dtype (MindSpore:
    an int32 Tensor's add_(1.5) stays int32, truncated), and of t's shape exactly (an
    in-place result cannot broadcast the Tensor it writes)."""
    ops = _ops()
    value = ops.as_tensor(value)
    if tuple(value.shape) != tuple(t.shape):
        raise ValueError(f"Tensor.{what}: the result has shape {list(value.shape)} but this Tensor has "
                         f"{list(t.shape)}; an in-place method cannot change the shape (use the "
                         "out-of-place method and keep its result)")
    return ops.cast(value, t.dtype) if value.dtype != t.dtype else value


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

import numbers

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


def _bernoulli_draws(t, p, generator, what: str):
    """0 or 1 in t's shape and dtype, 1 with probability p, from `generator`'s stream."""
    if isinstance(p, numbers.Number) and not 0 <= p <= 1:
        raise ValueError(f"For {what}, p should be in [0, 1], but got {p}.")
    ops = _ops()
    prob = p if isinstance(p, numbers.Number) else ops.cast(p, mstype.float32)
    u = ops.uniform(t.shape, dtype=mstype.float32, key=_generator_key(generator, what))
    return ops.cast(ops.less(u, prob), t.dtype)


def _float_only(t, what: str) -> None:
    if not t.dtype.is_floating:
        raise TypeError(f"Tensor.{what} fills a floating-point Tensor, got {t.dtype}")


def _draw_dtype(t):
    """The dtype random fills draw in: this Tensor's float32/float64, else float32."""
    return t.dtype if t.dtype in (mstype.float32, mstype.float64) else mstype.float32


def _random_limit(dtype) -> int:
    """random_'s largest value when `to` is None: an integer type's maximum, 2**digits for a
    float type (every integer up to it is exact), 1 for bool."""
    if dtype is mstype.bool_:
        return 1
    if dtype.is_floating:
        digits = {mstype.float16: 11, mstype.bfloat16: 8, mstype.float32: 24, mstype.float64: 53}[dtype]
        return 2 ** digits
    return int(np.iinfo(dtype.np_dtype).max)


def _bound(value, name: str) -> int:
    """random_'s bounds: ints, or one-element Tensors holding one."""
    if _is_tensor(value):
        if value.size != 1:
            raise TypeError(f"Tensor.random_: {name} must be a number or a one-element Tensor, got shape "
                            f"{list(value.shape)}")
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, np.integer, float)) or int(value) != value:
        raise TypeError(f"Tensor.random_: {name} must be an integer, got {value!r}")
    return int(value)


def _scaled(source, alpha):
    """source * alpha, skipping the multiply for alpha 1."""
    return source if isinstance(alpha, (int, float)) and alpha == 1 else _ops().mul(source, alpha)


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
    def permute(self, *dims, **kwargs):
        """permute(1, 0), permute((1, 0)) or permute(dims=(1, 0))."""
        from .tensor import _one_argument
        return _ops().permute(self, _sizes(_one_argument("permute", "dims", dims, kwargs), "permute"))

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
        """The conjugate transpose of a 2-D Tensor (the transpose of a real one)."""
        if self.ndim != 2:
            raise ValueError(f"For tensor.H, only 2-D Tensor is supported, but got {self.ndim}-D.")
        t = _ops().transpose(self, None)
        return _ops().conj(t) if t.dtype.is_complex else t

    @property
    def mH(self):
        return self.adjoint()

    def adjoint(self):
        """The conjugate of mT (mT of a real Tensor)."""
        return _ops().adjoint(self)

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
    def is_complex(self): return self.dtype.is_complex
    def real(self): return _ops().real(self)
    def imag(self): return _ops().imag(self)
    def conj(self): return _ops().conj(self)
    def angle(self): return _ops().angle(self)
    def byte(self): return self.astype(mstype.uint8)
    def short(self): return self.astype(mstype.int16)
    def bfloat16(self): return self.astype(mstype.bfloat16)

    def type(self, dtype=None):
        """The dtype's name ('Float32', a str: MindSpore 2.10, measured) when `dtype` is None,
        else this Tensor cast to it."""
        return str(self.dtype) if dtype is None else self.astype(dtype)

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

    # -- linear algebra (graphcell.ops' solvers: float16/32/64 matrices in the last two axes) ----
    def det(self): return _ops().det(self)
    def matrix_determinant(self): return _ops().matrix_determinant(self)
    def logdet(self): return _ops().logdet(self)
    def slogdet(self): return _ops().slogdet(self)
    def eigvals(self): return _ops().eigvals(self)   # 2.10's own raises a TypeError (a missing argument, measured)
    def log_matrix_determinant(self): return _ops().log_matrix_determinant(self)
    def inverse(self): return _ops().inverse(self)
    def matrix_power(self, n): return _ops().matrix_power(self, n)
    def cholesky(self, upper=False): return _ops().cholesky(self, upper)
    def cholesky_inverse(self, upper=False): return _ops().cholesky_inverse(self, upper)
    def cholesky_solve(self, input2, upper=False): return _ops().cholesky_solve(self, input2, upper)
    def lstsq(self, A): return _ops().lstsq(self, A)  # noqa: N803 - MindSpore's names
    def lu_solve(self, LU_data, LU_pivots): return _ops().lu_solve(self, LU_data, LU_pivots)  # noqa: N803

    def geqrf(self): return _ops().geqrf(self)
    def orgqr(self, input2): return _ops().orgqr(self, input2)
    def ormqr(self, input2, input3, left=True, transpose=False): return _ops().ormqr(self, input2, input3, left, transpose)

    def qr(self, some=True):
        """(Q, R): the reduced factorization, or with some=False the complete one (measured:
        [3, 2] gives Q [3, 2], R [2, 2]; with some=False Q [3, 3], R [3, 2])."""
        return _ops().qr(self, "reduced" if some else "complete")

    def triangular_solve(self, A, upper=True, transpose=False, unitriangular=False):  # noqa: N803
        """(X, A) with op(A) X = self, A triangular (upper by default; only that triangle is read;
        op(A) = A^T with `transpose`; a unit diagonal assumed with `unitriangular`); leading axes
        broadcast. MindSpore 2.10 has an Ascend kernel only: this is its documented (torch's)
        result, whose second element is A broadcast to the batch shape."""
        from .ops import linalg_prims, linalg_solvers
        a = linalg_solvers._float_matrices("triangular_solve", A)
        b = _ops().cast(_ops().as_tensor(self), a.dtype)
        if b.ndim < 2 or b.shape[-2] != a.shape[-1]:
            raise ValueError(f"Tensor.triangular_solve: this Tensor [..., M, K] must have A's M = {a.shape[-1]} rows, "
                             f"got shape {list(b.shape)}")
        a_b, b = linalg_solvers._broadcast_batch(a, b)
        solve = lambda p, q: linalg_prims.triangular_solve.bind(  # noqa: E731
            p, q, lower=not upper, transpose_a=bool(transpose), unit_diagonal=bool(unitriangular))
        return linalg_solvers._in_float32(solve, a_b, b), a_b

    # -- special functions ------------------------------------------------------------------
    def i0(self): return _ops().i0(self)
    def igamma(self, other): return _ops().igamma(self, other)
    def igammac(self, other): return _ops().igammac(self, other)
    def mvlgamma(self, p): return _ops().mvlgamma(self, p)

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

    def unique_with_pad(self, pad_num): return _ops().unique_with_pad(self, pad_num)

    # -- scatters that return a new Tensor (measured: this Tensor is left as it is) ------------
    def diagonal_scatter(self, src, offset=0, dim1=0, dim2=1):
        return _ops().diagonal_scatter(self, src, offset, dim1, dim2)

    def select_scatter(self, src, axis, index): return _ops().select_scatter(self, src, axis, index)

    def slice_scatter(self, src, axis=0, start=None, end=None, step=1):
        return _ops().slice_scatter(self, src, axis, start, end, step)

    def index_fill(self, axis, index, value): return _ops().index_fill(self, axis, index, value)
    def inplace_update(self, v, indices): return _ops().inplace_update(self, v, indices)

    def index_put(self, indices, values, accumulate=False):
        """self[indices] = values on a copy (1-D int index Tensors, 1-D values; see
        ops.method_scatters.index_put)."""
        from .ops import method_scatters
        return method_scatters.index_put(self, indices, values, accumulate)

    def masked_scatter(self, mask, source):
        """A copy with the positions where `mask` holds filled, in order, from source."""
        from .ops import method_scatters
        return method_scatters.masked_scatter(self, mask, source)

    # MindSpore 2.10's Tensor.scatter_<op>(indices, updates) are the tensor_scatter_<op>s (index
    # vectors on indices' last axis, measured), not ops.scatter_<op> (rows, in place).
    def scatter_sub(self, indices, updates): return _ops().tensor_scatter_sub(self, indices, updates)
    def scatter_mul(self, indices, updates): return _ops().tensor_scatter_mul(self, indices, updates)
    def scatter_div(self, indices, updates): return _ops().tensor_scatter_div(self, indices, updates)
    def scatter_max(self, indices, updates): return _ops().tensor_scatter_max(self, indices, updates)
    def scatter_min(self, indices, updates): return _ops().tensor_scatter_min(self, indices, updates)

    def unsorted_segment_max(self, segment_ids, num_segments):
        return _ops().unsorted_segment_max(self, segment_ids, num_segments)

    def unsorted_segment_min(self, segment_ids, num_segments):
        return _ops().unsorted_segment_min(self, segment_ids, num_segments)

    def unsorted_segment_prod(self, segment_ids, num_segments):
        return _ops().unsorted_segment_prod(self, segment_ids, num_segments)

    def index_add(self, *args, **kwargs):
        """MindSpore 2.10's two forms, which both write this Tensor and return the result
        (measured in PYNATIVE; its graph mode has no CPU kernel for the second):
        index_add(indices, y, axis, use_lock=True, check_index_bound=True), ops.index_add; and
        index_add(dim, index, source, *, alpha=1), which adds source * alpha."""
        first = args[0] if args else kwargs.get("dim", kwargs.get("indices"))
        if "dim" in kwargs or isinstance(first, (int, np.integer)):
            given = dict(zip(("dim", "index", "source"), args), **kwargs)
            unknown = set(given) - {"dim", "index", "source", "alpha"}
            if unknown or len(args) > 3:
                raise TypeError(f"Tensor.index_add(dim, index, source, *, alpha=1) got unexpected arguments "
                                f"{sorted(unknown) or args[3:]}")
            y = _scaled(given["source"], given.get("alpha", 1))
            return _ops().index_add(self, given["index"], y, given["dim"])
        return _ops().index_add(self, *args, **kwargs)

    # -- random -----------------------------------------------------------------------------
    def uniform(self, from_=0.0, to=1.0, generator=None):
        """A new Tensor of this shape and (floating) dtype, uniform in [from_, to)."""
        _float_only(self, "uniform")
        return _ops().uniform(self.shape, from_, to, dtype=self.dtype, key=_generator_key(generator, "uniform"))

    def bernoulli(self, *, generator=None):
        """0 or 1 in this Tensor's dtype and shape, 1 with probability self (mint.bernoulli)."""
        return _bernoulli_draws(self, self, generator, "bernoulli")

    def cauchy(self, median=0.0, sigma=1.0):
        """A new Tensor of Cauchy(median, sigma) draws, this Tensor's shape and dtype (measured:
        float16/32/64 and int32 alike)."""
        ops = _ops()
        u = ops.uniform(self.shape, dtype=_draw_dtype(self))
        return ops.cast(ops.add(ops.mul(ops.tan(ops.mul(ops.sub(u, 0.5), np.pi)), sigma), median), self.dtype)

    def log_normal(self, mean=1.0, std=2.0):
        """A new Tensor of exp(N(mean, std)) draws, this Tensor's shape and (floating) dtype."""
        if not self.dtype.is_floating:
            raise TypeError("For primitive[LogNormalReverse], the input argument[x] must be a type of "
                            f"{{Tensor[Float16], Tensor[Float32], Tensor[Float64]}}, but got Tensor[{self.dtype}].")
        ops = _ops()
        return ops.cast(ops.exp(ops.normal(self.shape, mean, std, dtype=_draw_dtype(self))), self.dtype)

    def multinomial(self, num_samples, replacement=True, seed=None):
        return _ops().multinomial(self, num_samples, replacement, seed)

    def random_categorical(self, num_sample, seed=0, dtype=mstype.int64):
        return _ops().random_categorical(self, num_sample, seed, dtype)

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
        adds instead, reduce='multiply' multiplies."""
        src = value if src is None else src
        if reduce is None:
            return self._write(_ops().scatter(self, dim, index, src), "scatter_")
        if reduce == "multiply":
            from .ops import method_scatters
            return self._write(method_scatters.scatter_multiply(self, dim, index, src), "scatter_")
        if reduce != "add":
            raise ValueError(f"For 'scatter_', reduce must be 'add' or 'multiply', but got {reduce!r}")
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

    def bernoulli_(self, p=0.5, *, generator=None):
        """0 or 1 draws (1 with probability p, a number or a Tensor that broadcasts), in this
        Tensor's dtype."""
        return self._write(_bernoulli_draws(self, p, generator, "bernoulli_"), "bernoulli_")

    def exponential_(self, lambd=1, *, generator=None):
        """Exponential draws of rate `lambd`, -log(1 - u) / lambd for u uniform in [0, 1)."""
        _float_only(self, "exponential_")
        ops = _ops()
        u = ops.uniform(self.shape, dtype=_draw_dtype(self), key=_generator_key(generator, "exponential_"))
        return self._write(ops.div(ops.neg(ops.log1p(ops.neg(u))), lambd), "exponential_")

    def random_(self, from_=0, to=None, *, generator=None):
        """Integers uniform in [from_, to - 1], in this Tensor's dtype; `to` None is the dtype's
        limit (an integer type's largest value, 2**digits for a float type, as torch)."""
        key = _generator_key(generator, "random_")
        low, high = _bound(from_, "from_"), None if to is None else _bound(to, "to")
        if high is None:
            high = _random_limit(self.dtype) + 1
        if high <= low:
            raise RuntimeError(f"Tensor.random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
        ops, span = _ops(), high - low
        u = ops.uniform(self.shape, dtype=mstype.float32 if span <= 2 ** 24 else mstype.float64, key=key)
        draws = ops.minimum(ops.floor(ops.mul(u, float(span))), float(span - 1))   # u * span can round up
        return self._write(ops.add(draws, float(low)), "random_")

    def index_add_(self, dim, index, source, *, alpha=1):
        """source * alpha added to this Tensor's slices along `dim` at the 1-D `index` (torch's;
        MindSpore 2.10 has an Ascend kernel only)."""
        from .ops import scatter_inplace

        def error(bad):
            return f"Tensor.index_add_: index {bad} is out of range for dimension {dim} of size {self.shape[dim]}"
        new = scatter_inplace._along_axis("index_add_", self, index, _scaled(source, alpha), dim, error)
        return self._write(new, "index_add_")

    def index_copy_(self, dim, index, tensor):
        """tensor's slices written to this Tensor's along `dim` at the 1-D `index` (torch's;
        Ascend-only in MindSpore 2.10)."""
        from .ops import method_scatters
        return self._write(method_scatters.index_copy(self, dim, index, tensor), "index_copy_")

    def index_fill_(self, dim, index, value):
        """index_fill in place; `index` int32 or int64, 0-D or 1-D (Ascend-only in 2.10)."""
        ops = _ops()
        index = ops.as_tensor(index)
        if index.dtype not in (mstype.int32, mstype.int64):
            raise TypeError(f"Tensor.index_fill_: index must be an int32 or int64 Tensor, got {index.dtype}")
        if index.ndim > 1:
            raise RuntimeError(f"Tensor.index_fill_: index must be 0-D or 1-D, got shape {list(index.shape)}")
        index = ops.reshape(ops.cast(index, mstype.int32), (-1,))
        return self._write(ops.index_fill(self, dim, index, value), "index_fill_")

    def index_put_(self, indices, values, accumulate=False):
        from .ops import method_scatters
        return self._write(method_scatters.index_put(self, indices, values, accumulate), "index_put_")

    def masked_scatter_(self, mask, source):
        from .ops import method_scatters
        return self._write(method_scatters.masked_scatter(self, mask, source), "masked_scatter_")

    def put_(self, index, source, accumulate=False):
        """source's elements written (added with `accumulate`) at the flat positions `index`
        (torch's; MindSpore 2.10 has an Ascend kernel only)."""
        from .ops import method_scatters
        return self._write(method_scatters.put(self, index, source, accumulate), "put_")

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


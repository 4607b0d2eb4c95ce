"""`Tensor`, `Parameter` and `ParameterTuple`.

A Tensor's payload is a jax array (eager) or an IR `Value` (while tracing); every operator
goes through `graphcell.ops`, which binds primitives, so the same user code runs eagerly,
traced for jit, vmapped or differentiated.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from . import dtype as mstype
from .dtype import DType, to_dtype
from .ir.core import TensorType, Value
from .tensor_methods import TensorMethods, _ops, check_in_place
from .tensor_storage import TensorStorageMethods


# MindSpore 2.10's words for item() and bool() of a Tensor of more (or fewer) than one element
_ONE_ELEMENT = "The tensor should have only one element, but got {}, more than one element is ambiguous."


def _default_dtype(data) -> DType:
    """MindSpore's defaults: Python ints are Int64, floats Float32; arrays and numpy scalars
    keep theirs (np.float64 is a subclass of float, so it is tested first)."""
    if isinstance(data, (np.ndarray, np.generic, jax.Array)):
        return to_dtype(data.dtype)
    if isinstance(data, bool):
        return mstype.bool_
    if isinstance(data, int):
        return mstype.int64
    if isinstance(data, float):
        return mstype.float32
    if isinstance(data, complex):
        return mstype.complex128   # MindSpore 2.10 (measured): Tensor(1+2j) is Complex128
    arr = _nested_to_numpy(data)
    if arr.dtype == np.float64:
        return mstype.float32  # a Python list of floats
    if arr.dtype.kind in "iu":
        return mstype.int64
    return to_dtype(arr.dtype)


def host_to_device(array) -> jax.Array:
    """A host array (numpy, or anything np.asarray takes) as a jax array of the same dtype.

    Not jnp.asarray: it stages a convert_element_type that jax compiles once per new shape
    (18-40 ms each on the development machine: most of building an ensemble, loading a
    checkpoint, or a first Tensor of each shape); device_put of a private copy compiles
    nothing (0.3-1.7 ms). The copy matters: device_put may alias a numpy buffer on the CPU,
    which the caller could change afterwards."""
    return jax.device_put(np.array(array, copy=True))


def _to_array(data, dtype: DType | None):
    if isinstance(data, Tensor):
        if isinstance(data._payload, Value):
            if getattr(data, "stands_for_number", False):
                # Tensor(n) of a graph's Python number (a loop counter; graph_scalar.py) is a
                # Tensor of it, as in 2.10
                return (data if dtype is None else data.astype(dtype))._payload
            raise TypeError("Tensor(t) of a traced Tensor: use t.astype(...) instead")
        data = data._payload
    if dtype is None:
        dtype = _default_dtype(data) if not isinstance(data, jax.Array) else to_dtype(data.dtype)
    if isinstance(data, jax.Array) and data.dtype == dtype.np_dtype:
        return data
    return host_to_device(host_array(data, dtype))


def _nested_to_numpy(data, dtype=None) -> np.ndarray:
    """np.asarray, with a ragged nested list a TypeError in the user's terms, as MindSpore 2.10
    raises one (numpy's is a ValueError about 'an inhomogeneous shape')."""
    try:
        return np.asarray(data, dtype=dtype)
    except ValueError as e:
        if "inhomogeneous" not in str(e):
            raise
        raise TypeError(f"For 'Tensor', the input_data {_short(data)} is ragged: the nested lists at "
                        f"each depth must all have the same length") from None


def _short(data) -> str:
    text = repr(data)
    return text if len(text) <= 80 else text[:77] + "..."


def host_array(data, dtype: DType) -> np.ndarray:
    """`data` as a numpy array of `dtype`; a Python int too big for it is a clear ValueError
    (numpy's is a bare OverflowError)."""
    try:
        return _nested_to_numpy(data, dtype.np_dtype)
    except OverflowError:
        raise ValueError(f"Tensor({data!r}): a value does not fit {dtype}; give a wider dtype "
                         "or a float") from None


class SignatureOnly:
    """The payload of `Tensor(shape=[None, 3], dtype=...)`: MindSpore's dynamic-shape input
    signature for `set_inputs` / `jit(input_signature=...)`. It has a shape (-1 for each
    dynamic dimension, as MindSpore reports it) and a dtype, but no values."""
    __slots__ = ("shape", "dtype", "symbols")

    def __init__(self, shape, dtype: DType):
        from .common.symbol import Symbol
        self.shape = tuple(-1 if d is None or isinstance(d, Symbol) else int(d) for d in shape)
        self.dtype = dtype.np_dtype
        self.symbols = [d if isinstance(d, Symbol) else None for d in shape]   # MindSpore's dimension hints

    def __array__(self, *args, **kwargs):
        raise ValueError(f"a Tensor of dynamic shape {list(self.shape)} is an input signature "
                         "(for set_inputs or jit's input_signature) and holds no values")


def _is_dynamic_shape(shape) -> bool:
    from .common.symbol import Symbol
    return shape is not None and not isinstance(shape, int) and any(
        d is None or isinstance(d, Symbol) or d == -1 for d in shape)


class Tensor(TensorMethods, TensorStorageMethods):
    """A multi-dimensional array, eager or symbolic (more of MindSpore's methods, the in-place
    ones among them, come from `TensorMethods` in tensor_methods.py).

    >>> Tensor([1.0, 2.0])
    Tensor(shape=[2], dtype=Float32, value= [ 1.00000000e+00,  2.00000000e+00])
    """
    __slots__ = ("_payload", "_grad_hooks", "__weakref__")   # _grad_hooks: register_hook's, when any
    __array_priority__ = 100  # numpy scalars defer to Tensor's operators

    def __init__(self, input_data=None, dtype=None, shape=None, init=None):
        dtype = to_dtype(dtype) if dtype is not None else None
        if input_data is None:
            if shape is None or (dtype is None and init is None and not _is_dynamic_shape(shape)):
                raise TypeError("For 'Tensor', 'input_data' must be a Tensor, numpy array, list, tuple "
                                "or number, but got None; for a Tensor of a given shape pass shape and "
                                "dtype (and init, zeros by default)")
            if dtype is None and not _is_dynamic_shape(shape):   # MindSpore 2.10's words
                raise ValueError("init, dtype and shape must have values at the same time.")
            if _is_dynamic_shape(shape):
                if dtype is None or init is not None:   # MindSpore 2.10's words
                    raise ValueError("If setting dynamic shape, dtype must not be None, init must be None")
                self._payload = SignatureOnly(shape, dtype)
                return
            from .common.initializer import initializer_from
            input_data = initializer_from(init if init is not None else "zeros").sample(
                tuple(shape), dtype.np_dtype)
        self._payload = _to_array(input_data, dtype)

    @classmethod
    def _wrap(cls, array) -> "Tensor":
        t = object.__new__(Tensor)
        t._payload = array
        return t

    @classmethod
    def _symbolic(cls, value: Value) -> "Tensor":
        t = object.__new__(Tensor)
        t._payload = value
        return t

    @staticmethod
    def _type_of(t) -> TensorType:
        p = t._payload
        if isinstance(p, Value):
            return p.type
        return TensorType(tuple(p.shape), to_dtype(p.dtype))

    # -- metadata -----------------------------------------------------------------------
    @property
    def shape(self) -> tuple:
        return tuple(self._payload.shape)

    @property
    def dtype(self) -> DType:
        p = self._payload
        return p.dtype if isinstance(p, Value) else to_dtype(p.dtype)

    @property
    def ndim(self) -> int:
        return len(self._payload.shape)

    @property
    def size(self) -> int:
        if isinstance(self._payload, SignatureOnly):
            return 0   # MindSpore's for a dynamic shape
        return int(np.prod(self.shape, dtype=np.int64))

    def dim(self) -> int:
        return self.ndim

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d Tensor")
        return self.shape[0]

    @property
    def is_symbolic(self) -> bool:
        return isinstance(self._payload, Value)

    @property
    def data(self) -> "Tensor":
        """The Tensor itself (MindSpore's `t.data`, a Parameter's `.data` too)."""
        return self

    @property
    def has_init(self) -> bool:
        """False: graphcell fills a Tensor's values when it is made (MindSpore's lazy `init` is
        never pending)."""
        return False

    def register_hook(self, hook):
        """`hook(grad)` runs on this Tensor's gradient when a backward pass computes it (its
        whole gradient, over every use, also the uses before the call); a Tensor result
        replaces the gradient, None keeps it. Several hooks run in the order registered, each
        on the one before's result. Works eagerly and under jit (a host call in the compiled
        backward pass), on intermediates, inputs and Parameters (whose hooks stay until
        removed). Returns a handle whose remove() unregisters it."""
        from .ops.tensor_hooks import register_hook
        return register_hook(self, hook)

    # -- conversion ---------------------------------------------------------------------
    def _concrete(self, what: str):
        p = self._payload
        if isinstance(p, Value):
            # An eager grad's trace knows this call's values (MindSpore's PYNATIVE reads them)
            from .frontend.concrete import array_of
            known = array_of(self)
            if known is not None:
                return known
            from .frontend.tracer import GraphModeError, user_source
            src = user_source()
            raise GraphModeError(
                f"{what} of a traced Tensor at {src.file}:{src.line}: in graph mode (jit, vmap, "
                "grad inside jit) a Tensor has no value while the graph is built. Keep Python control "
                "flow on Python values, or compute with graphcell.ops (ops.select for a tensor "
                "condition).")
        return p

    def asnumpy(self) -> np.ndarray:
        """The value as a new, writable numpy array (changing it leaves the Tensor as it is)."""
        return np.array(self._concrete("asnumpy()"))

    def _host(self, what: str) -> np.ndarray:
        """The value as a read-only numpy view, for reads that copy nothing."""
        return np.asarray(self._concrete(what))

    def numpy(self) -> np.ndarray:
        return self.asnumpy()

    def __array__(self, dtype=None, copy=None):
        arr = self._host("asnumpy()")  # read-only view unless a copy is asked for
        if dtype is not None:
            return arr.astype(dtype)
        return arr.copy() if copy else arr

    def item(self):
        if self.is_symbolic and self.size == 1:
            from .frontend.concrete import array_of
            if array_of(self) is None:   # graph mode: a number of the graph (MindSpore's variable scalar)
                from .graph_scalar import mark
                return mark(self.reshape(()))
        value = self._host("item()")
        if value.size != 1:
            raise ValueError(_ONE_ELEMENT.format(value.size))
        return value.item()

    def tolist(self):
        return self._host("tolist()").tolist()

    def __bool__(self):
        value = self._concrete("bool()")
        if value.size != 1:
            raise ValueError(_ONE_ELEMENT.format(value.size))
        return bool(value)

    def _scalar(self, what: str):
        """The one element of a one-element Tensor, for int(), float() and index (MindSpore
        takes any one-element Tensor, as torch does)."""
        value = self._concrete(what)
        if value.size != 1:   # MindSpore 2.10's error and words (measured)
            raise ValueError(f"Only one element tensors can be converted to Python scalars ({what} of a "
                             f"Tensor of shape {list(self.shape)})")
        return np.asarray(value).reshape(()).item()

    def __int__(self):
        return int(self._scalar("int()"))

    def __float__(self):
        return float(self._scalar("float()"))

    def __index__(self):
        if not (self.dtype.is_integer or self.dtype is mstype.bool_):
            raise TypeError(f"a {self.dtype} Tensor cannot be an index: only integer Tensors with one "
                            "element can (cast it with .astype(graphcell.int64))")
        return int(self._scalar("index"))

    def _shown(self) -> "Tensor":
        """The Tensor whose value repr, str and format show: a traced one of an eager grad's
        trace shows this call's value, as PYNATIVE's print does (frontend/concrete.py)."""
        if not self.is_symbolic:
            return self
        from .frontend.concrete import shown_now
        shown = shown_now(self)
        return self if shown is None else shown

    def __format__(self, spec: str) -> str:
        """A 0-d Tensor formats as its value (f"{loss:.4f}"); any other with an empty spec as str()."""
        shown = self._shown()
        if shown.ndim == 0 and not shown.is_symbolic:
            return format(shown.item(), spec)
        return object.__format__(shown, spec)

    def __repr__(self):
        if self.is_symbolic:
            shown = self._shown()
            if not shown.is_symbolic:
                return repr(shown)
            return f"Tensor(shape={list(self.shape)}, dtype={self.dtype}, value=<traced>)"
        if isinstance(self._payload, SignatureOnly):
            return f"Tensor(shape={list(self.shape)}, dtype={self.dtype}, value=<dynamic shape>)"
        from ._tensor_repr import format_tensor
        return format_tensor(self._host("repr()"), self.dtype)

    def __str__(self):
        if self.is_symbolic:
            shown = self._shown()
            return repr(self) if shown.is_symbolic else str(shown)
        from ._tensor_repr import str_text
        return str_text(self._host("str()"))

    __hash__ = object.__hash__

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __getstate__(self):
        return {"array": self.asnumpy()}

    def __setstate__(self, state):
        self._payload = jnp.asarray(state["array"])

    # -- methods over graphcell.ops (imported lazily: ops imports this module) -----------
    def astype(self, dtype, copy=True) -> "Tensor":
        """This Tensor as `dtype` (`copy` is MindSpore's; graphcell's Tensors are never written
        in place, so a copy and the original cannot differ)."""
        return _ops().cast(self, dtype)

    def to(self, dtype) -> "Tensor":
        return self.astype(dtype)

    def float(self):
        return self.astype(mstype.float32)

    def int(self):
        return self.astype(mstype.int32)

    def reshape(self, *shape, **kwargs) -> "Tensor":
        """reshape(2, 3), reshape((2, 3)) or reshape(shape=(2, 3))."""
        shape = _one_argument("reshape", "shape", shape, kwargs)
        return _ops().reshape(self, shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape)

    def view(self, *shape) -> "Tensor":
        if len(shape) == 1 and isinstance(shape[0], (DType, type, np.dtype, str)):
            raise TypeError(f"Tensor.view({shape[0]}): viewing the bits as another dtype is not supported in "
                            "graphcell; use astype to convert the values")
        return self.reshape(*shape)

    def flatten(self, start_dim=0, end_dim=-1, *, order="C"):
        """Axes start_dim..end_dim as one; `order` 'F' (MindSpore's older form) reads the elements
        column-major (numpy's order='F')."""
        if order not in ("C", "F"):
            raise ValueError(f"Tensor.flatten: order must be 'C' or 'F', got {order!r}")
        x = self if order == "C" else _ops().transpose(self, None)
        return _ops().flatten(x, start_dim=start_dim, end_dim=end_dim)

    def transpose(self, *axes, dim0=None, dim1=None) -> "Tensor":
        """transpose(dim0, dim1), two ints, swaps two axes (MindSpore 2.10, measured: a 2-D
        x.transpose(0, 1) is x.T); transpose(*perm) with another count of ints, transpose(perm)
        with a tuple, or transpose() permutes them as numpy does."""
        if dim0 is not None or dim1 is not None:
            axes += tuple(d for d in (dim0, dim1) if d is not None)
            if len(axes) != 2:
                raise TypeError("Tensor.transpose(dim0, dim1) takes two axes")
        if len(axes) == 2 and all(isinstance(a, (int, np.integer)) for a in axes):
            return _ops().swapaxes(self, *axes)
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        return _ops().transpose(self, axes or None)

    @property
    def T(self) -> "Tensor":
        return _ops().transpose(self, None)

    def squeeze(self, axis=None):
        return _ops().squeeze(self, axis)

    def expand_dims(self, axis):
        return _ops().expand_dims(self, axis)

    def unsqueeze(self, dim):
        return _ops().expand_dims(self, dim)

    def sum(self, axis=None, dtype=None, keepdims=False, initial=None, *, dim=None, keepdim=None):
        """MindSpore 2.10's two forms: sum(axis, dtype, keepdims, initial) and sum(dim, keepdim, *,
        dtype) (a bool second argument is keepdim); integers sum in int64 (ops.sum)."""
        if isinstance(dtype, bool):
            keepdims, dtype = dtype, None
        axis, keepdims = _either(axis, dim), _either(keepdims, keepdim)
        out = _ops().sum(self, axis, keepdims, dtype=dtype)
        return out if initial is None else out + initial

    def mean(self, axis=None, keep_dims=False, *, dim=None, keepdim=None, dtype=None):
        """MindSpore 2.10's mean(axis, keep_dims) and mean(dim, keepdim, *, dtype). An integer
        Tensor's mean keeps its dtype, truncated toward zero (measured: [1, 2] gives 1, [-1, -4]
        gives -2), as mindspore.numpy.mean; `dtype` converts the input first."""
        x = self if dtype is None else self.astype(dtype)
        return _ops().mean(x, _either(axis, dim), _either(keep_dims, keepdim))

    def max(self, *args, **kwargs):
        """MindSpore 2.10's two forms: max(dim, keepdim=False) -> (values, indices), and
        max(axis=None, keepdims=False, *, initial=None, where=None, return_indices=False)
        (ops/array_ops.tensor_max_or_min)."""
        from .ops.array_ops import tensor_max_or_min
        return tensor_max_or_min("max", self, args, kwargs)

    def min(self, *args, **kwargs):
        """As max: min(dim, keepdim=False) -> (values, indices), or min(axis=None, ...)."""
        from .ops.array_ops import tensor_max_or_min
        return tensor_max_or_min("min", self, args, kwargs)

    def prod(self, dim=None, keepdim=False, dtype=None, *, axis=None, keepdims=None):
        """MindSpore 2.10's prod(dim, keepdim, dtype): bools and integers narrower than 64 bits
        multiply in int64 (ops.prod); `axis`/`keepdims` are graphcell's older names."""
        return _ops().prod(self, _either(dim, axis), _either(keepdim, keepdims), dtype)

    def argmax(self, axis=None, keepdims=False, *, dim=None, keepdim=None):
        return _ops().argmax(self, _either(axis, dim), _either(keepdims, keepdim))

    def argmin(self, axis=None, keepdims=False, *, dim=None, keepdim=None):
        return _ops().argmin(self, _either(axis, dim), _either(keepdims, keepdim))

    def abs(self):
        return _ops().abs(self)

    def exp(self):
        return _ops().exp(self)

    def log(self):
        return _ops().log(self)

    def sqrt(self):
        return _ops().sqrt(self)

    def hardshrink(self, lambd=0.5):
        return _ops().hardshrink(self, lambd)

    def clip(self, xmin=None, xmax=None, *, min=None, max=None):  # noqa: A002 - MindSpore's names
        return _ops().clamp(self, _either(xmin, min), _either(xmax, max))

    def all(self, axis=None, keep_dims=False, *, dim=None, keepdim=None):
        return _ops().all(self, _either(axis, dim), _either(keep_dims, keepdim))

    def any(self, axis=None, keep_dims=False, *, dim=None, keepdim=None):
        return _ops().any(self, _either(axis, dim), _either(keep_dims, keepdim))

    def var(self, axis=None, ddof=0, keepdims=False):
        return _ops().var(self, axis, ddof, keepdims)

    def std(self, axis=None, ddof=0, keepdims=False, *, dim=None, correction=None, keepdim=None):
        """std(axis, ddof, keepdims), or with MindSpore 2.10's dim/correction/keepdim keywords
        (measured: std(dim=1) divides by n, as ddof=0; correction=1 by n - 1)."""
        return _ops().std(self, _either(axis, dim), _either(ddof, correction, 0), _either(keepdims, keepdim))

    def repeat(self, *repeats):
        """MindSpore 2.10's (and torch's) `repeat(*repeats)` or `repeat(repeats)`: copies of the
        whole Tensor along each axis, one count per axis, leading counts adding axes (tile with
        at least `ndim` counts). Before 2.6 it was numpy's repeat(repeats, axis); 2.10 refuses
        `axis` (measured), and numpy's per-element repeat is `repeat_interleave`."""
        if len(repeats) == 1 and isinstance(repeats[0], (tuple, list)):
            repeats = tuple(repeats[0])
        if len(repeats) < self.ndim:
            raise ValueError(f"For repeat, number of items of repeats can not be smaller than the number of "
                             f"dimensions of self tensor, but got repeats with {len(repeats)} items and rank of "
                             f"self Tensor is {self.ndim}.")
        return _ops().tile(self, repeats)

    def repeat_interleave(self, repeats, dim=None):
        return _ops().repeat_interleave(self, repeats, dim)

    def tile(self, reps=None, *, dims=None):
        """`dims` is MindSpore 2.10's other name for `reps`."""
        return _ops().tile(self, _either(reps, dims))

    def fill(self, value):
        """A new Tensor of this shape and dtype holding `value` (MindSpore's Tensor.fill returns
        a new Tensor; this one is unchanged)."""
        return _ops().full_like(self, value)

    # -- more of MindSpore's Tensor methods, each the op of the same name -------------------
    def gather(self, input_indices=None, axis=None, batch_dims=0, *, dim=None, index=None):
        """ops.gather(self, input_indices, axis, batch_dims); with an int first and a Tensor
        second, or the keywords dim and index, MindSpore 2.10's other form, gather(dim, index):
        ops.gather_elements."""
        if dim is not None or index is not None:
            return _ops().gather_elements(self, _either(input_indices, dim), _either(axis, index))
        if isinstance(input_indices, int) and isinstance(axis, Tensor):
            return _ops().gather_elements(self, input_indices, axis)
        return _ops().gather(self, input_indices, axis, batch_dims)

    def gather_elements(self, dim, index):
        return _ops().gather_elements(self, dim, index)

    def gather_nd(self, indices):
        return _ops().gather_nd(self, indices)

    def index_select(self, axis=None, index=None, *, dim=None):
        return _ops().index_select(self, _either(axis, dim), index)

    def scatter(self, dim=None, index=None, src=None, *, axis=None):
        """ops.scatter(self, dim, index, src), src a Tensor or a number; `axis` is the older
        name of `dim` (MindSpore 2.10 takes both)."""
        dim = axis if axis is not None else dim
        if dim is None or index is None or src is None:
            raise TypeError("Tensor.scatter needs dim (or axis), index and src")
        return _ops().scatter(self, dim, index, src)

    def scatter_add(self, dim, index, src):
        """src added at index along dim: ops.tensor_scatter_elements(self, index, src, dim, 'add')."""
        return _ops().tensor_scatter_elements(self, index, src, dim, "add")

    def masked_fill(self, mask, value):
        return _ops().masked_fill(self, mask, value)

    # Output shapes that depend on the values: eager only (ops/dynamic_shape.py).
    def nonzero(self, *, as_tuple=False):
        return _ops().nonzero(self, as_tuple=as_tuple)

    def argwhere(self):
        return _ops().argwhere(self)

    def masked_select(self, mask):
        return _ops().masked_select(self, mask)

    def unique(self):
        return _ops().unique(self)

    def topk(self, k, dim=None, largest=True, sorted=True):  # noqa: A002 - MindSpore's names
        return _ops().topk(self, k, dim, largest, sorted)

    def sort(self, axis=-1, descending=False, *, dim=None, stable=False):
        """`dim` is MindSpore 2.10's other name for `axis`; the sort is always stable."""
        return _ops().sort(self, _either(axis, dim, -1), descending)

    def argsort(self, axis=-1, descending=False, *, dim=None):
        return _ops().argsort(self, _either(axis, dim, -1), descending)

    def cumsum(self, axis=None, dtype=None, *, dim=None):
        """Along `axis` (or `dim`), or over the flattened tensor when None (numpy's and
        MindSpore's). Bools and integers narrower than 32 bits sum in int32 (MindSpore 2.10's
        Tensor method, measured; ops.cumsum keeps their dtype)."""
        axis = _either(axis, dim)
        x = self if axis is not None else self.reshape(-1)
        if dtype is None and (x.dtype is mstype.bool_ or x.dtype.is_integer and x.dtype.itemsize < 4):
            dtype = mstype.int32
        return _ops().cumsum(x, 0 if axis is None else axis, dtype)

    def cumprod(self, dim, dtype=None):
        """Bools, int8/16/32 and uint8 multiply in int64 (MindSpore 2.10's Tensor method and its
        ops.cumprod of int32, measured; graphcell's ops.cumprod keeps the dtype)."""
        if dtype is None and _ops().functional._widens_to_int64(self.dtype):
            dtype = mstype.int64
        return _ops().cumprod(self, dim, dtype)

    def norm(self, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
        return _ops().norm(self, ord, dim, keepdim, dtype=dtype)

    def svd(self, full_matrices=False, compute_uv=True):
        return _ops().svd(self, full_matrices, compute_uv)

    def matmul(self, tensor2):
        return _ops().matmul(self, tensor2)

    def split(self, split_size_or_sections=None, axis=0, *, split_size=None, dim=None):
        """`split_size` and `dim` are MindSpore 2.10's other names."""
        return _ops().split(self, _either(split_size_or_sections, split_size), _either(axis, dim, 0))

    def chunk(self, chunks, axis=0, *, dim=None):
        return _ops().chunk(self, chunks, _either(axis, dim, 0))

    def unbind(self, dim=0):
        return _ops().unbind(self, dim)

    def tril(self, diagonal=0):
        return _ops().tril(self, diagonal)

    def triu(self, diagonal=0):
        return _ops().triu(self, diagonal)

    def flip(self, dims):
        return _ops().flip(self, dims)

    def roll(self, shifts, dims=None):
        return _ops().roll(self, shifts, dims)

    def narrow(self, axis, start, length):
        return _ops().narrow(self, axis, start, length)

    def trace(self, offset=0, axis1=0, axis2=1, dtype=None):
        """numpy's trace, as MindSpore 2.10's Tensor.trace (measured): the sums of the diagonals
        of the (axis1, axis2) planes; integers and bools sum in int64 unless `dtype` is given
        (ops.trace keeps int32)."""
        return _ops().sum(_ops().diagonal(self, offset, axis1, axis2), -1, dtype=dtype)

    def isnan(self):
        return _ops().isnan(self)

    def isinf(self):
        return _ops().isinf(self)

    def isfinite(self):
        return _ops().isfinite(self)

    def round(self, decimals=0):
        """Half to even; `decimals` as ops.round (MindSpore 2.10's CPU kernel takes 0 only)."""
        return _ops().round(self, decimals=decimals)

    def floor(self):
        return _ops().floor(self)

    def ceil(self):
        return _ops().ceil(self)

    def trunc(self):
        return _ops().trunc(self)

    def sign(self):
        return _ops().sign(self)

    def square(self):
        return _ops().square(self)

    def add(self, other):
        return _ops().add(self, other)

    def sub(self, other):
        return _ops().sub(self, other)

    def mul(self, other):
        return _ops().mul(self, other)

    def div(self, other):
        return _ops().div(self, other)

    def pow(self, exponent):
        return _ops().pow(self, exponent)

    # -- elementwise math (ops/math_ops.py), with MindSpore 2.10's method signatures ----------
    def sinh(self): return _ops().sinh(self)
    def cosh(self): return _ops().cosh(self)
    def tan(self): return _ops().tan(self)
    def asin(self): return _ops().asin(self)
    def arcsin(self): return _ops().asin(self)
    def acos(self): return _ops().acos(self)
    def arccos(self): return _ops().acos(self)
    def atan(self): return _ops().atan(self)
    def arctan(self): return _ops().atan(self)
    def asinh(self): return _ops().asinh(self)
    def arcsinh(self): return _ops().asinh(self)
    def acosh(self): return _ops().acosh(self)
    def arccosh(self): return _ops().acosh(self)
    def atanh(self): return _ops().atanh(self)
    def arctanh(self): return _ops().atanh(self)
    def atan2(self, other): return _ops().atan2(self, other)
    def arctan2(self, other): return _ops().atan2(self, other)
    def hypot(self, other): return _ops().hypot(self, other)
    def sinc(self): return _ops().sinc(self)
    def deg2rad(self): return _ops().deg2rad(self)
    def rad2deg(self): return _ops().rad2deg(self)
    def log2(self): return _ops().log2(self)
    def log10(self): return _ops().log10(self)
    def logaddexp(self, other): return _ops().logaddexp(self, other)
    def logaddexp2(self, other): return _ops().logaddexp2(self, other)
    def xlogy(self, other): return _ops().xlogy(self, other)
    def logit(self, eps=None): return _ops().logit(self, eps)
    def float_power(self, other): return _ops().float_power(self, other)
    def ldexp(self, other): return _ops().ldexp(self, other)
    def erfc(self): return _ops().erfc(self)
    def erfinv(self): return _ops().erfinv(self)
    def lgamma(self): return _ops().lgamma(self)
    def digamma(self): return _ops().digamma(self)
    def frac(self): return _ops().frac(self)
    def copysign(self, other): return _ops().copysign(self, other)
    def heaviside(self, values): return _ops().heaviside(self, values)
    def signbit(self): return _ops().signbit(self)
    def sgn(self): return _ops().sgn(self)
    def absolute(self): return _ops().absolute(self)
    def positive(self): return _ops().positive(self)
    def lerp(self, end, weight): return _ops().lerp(self, end, weight)
    def addcmul(self, tensor1, tensor2, value=1): return _ops().addcmul(self, tensor1, tensor2, value)
    def addcdiv(self, tensor1, tensor2, *, value=1): return _ops().addcdiv(self, tensor1, tensor2, value)
    def fmax(self, other): return _ops().fmax(self, other)
    def fmin(self, other): return _ops().fmin(self, other)
    def gcd(self, other): return _ops().gcd(self, other)
    def lcm(self, other): return _ops().lcm(self, other)

    def nan_to_num(self, nan=None, posinf=None, neginf=None):
        return _ops().nan_to_num(self, nan, posinf, neginf)

    def long(self):
        return self.astype(mstype.int64)

    def half(self):
        return self.astype(mstype.float16)

    def double(self):
        return self.astype(mstype.float64)

    def bool(self):
        return self.astype(mstype.bool_)

    def swapaxes(self, axis0, axis1):
        return _ops().swapaxes(self, axis0, axis1)

    # MindSpore 2.10's Tensor methods over graphcell.ops.array_ops / linalg_ops (same names
    # and arguments as the functions, less the tensor itself).
    def aminmax(self, *, axis=0, keepdims=False):
        return _ops().aminmax(self, axis=axis, keepdims=keepdims)

    def nansum(self, axis=None, keepdims=False, *, dtype=None):
        return _ops().nansum(self, axis, keepdims, dtype=dtype)

    def nanmean(self, axis=None, keepdims=False, *, dtype=None):
        return _ops().nanmean(self, axis, keepdims, dtype=dtype)

    def median(self, axis=-1, keepdims=False, *, dim=None, keepdim=None):
        return _ops().median(self, _either(axis, dim, -1), _either(keepdims, keepdim))

    def quantile(self, q, axis=None, keepdims=False):
        return _ops().quantile(self, q, axis, keepdims)

    def nanquantile(self, q, axis=None, keepdims=False):
        return _ops().nanquantile(self, q, axis, keepdims)

    def cummax(self, axis):
        return _ops().cummax(self, axis)

    def cummin(self, axis):
        return _ops().cummin(self, axis)

    def logcumsumexp(self, axis):
        return _ops().logcumsumexp(self, axis)

    def diff(self, n=1, axis=-1, prepend=None, append=None):
        return _ops().diff(self, n, axis, prepend, append)

    def mm(self, mat2):
        return _ops().mm(self, mat2)

    def t(self):
        return _ops().t(self)

    def renorm(self, p, axis, maxnorm):
        return _ops().renorm(self, p, axis, maxnorm)

    def cov(self, *, correction=1, fweights=None, aweights=None):
        return _ops().cov(self, correction=correction, fweights=fweights, aweights=aweights)

    def fills(self, value):
        return _ops().fills(self, value)

    def expand(self, *size):
        """Tensor.expand(*size): the sizes as separate ints or one tuple / Tensor."""
        return _ops().expand(self, size[0] if len(size) == 1 and not isinstance(size[0], int) else size)

    def expand_as(self, other):
        return _ops().expand_as(self, other)

    def movedim(self, source, destination):
        return _ops().movedim(self, source, destination)

    def swapdims(self, dim0, dim1):
        return _ops().swapdims(self, dim0, dim1)

    def rot90(self, k, dims):
        return _ops().rot90(self, k, dims)

    def fliplr(self):
        return _ops().fliplr(self)

    def flipud(self):
        return _ops().flipud(self)

    def vsplit(self, indices_or_sections):
        return _ops().vsplit(self, indices_or_sections)

    def hsplit(self, indices_or_sections):
        return _ops().hsplit(self, indices_or_sections)

    def tensor_split(self, indices_or_sections, axis=0):
        return _ops().tensor_split(self, indices_or_sections, axis)

    def searchsorted(self, v, side="left", sorter=None):
        """Tensor.searchsorted's names (v, side, sorter); int32 indices (measured)."""
        return _ops().searchsorted(self, v, side=side, sorter=sorter, out_int32=True)

    def histc(self, bins=100, min=0, max=0):  # noqa: A002 - MindSpore's names
        return _ops().histc(self, bins, min, max)

    def bincount(self, weights=None, minlength=0):
        return _ops().bincount(self, weights, minlength)

    def ravel(self):
        return _ops().reshape(self, (-1,))

    def numel(self) -> int:
        return self.size

    nelement = numel

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    def copy(self):
        return Tensor._wrap(self._payload) if not self.is_symbolic else self

    def __getitem__(self, index):
        return _ops().getitem(self, index)

    def __setitem__(self, index, value):
        """`x[index] = value`, as MindSpore and numpy do it: this Tensor holds the new values
        from now on (in a trace, its later uses read the new value); a Parameter's write is a
        state update (ops.assign). Inside jit, an argument written this way is not handed back
        to the caller (MindSpore's graph mode rebinds the name; frontend/trace.py)."""
        from .frontend.tracer import current_tracer
        tracer = current_tracer()
        if tracer is not None:
            tracer.note_setitem(self)
        self._write(_ops().setitem(self, index, value), "x[index] = value")

    def _write(self, value, what: str) -> "Tensor":
        """In-place methods' write: this Tensor holds `value` (cast to its dtype, of its shape)
        from now on; in a trace its later uses read the new value. Returns the Tensor."""
        _check_writable_here(self, what)
        self._payload = check_in_place(self, value, what)._payload
        return self

    # -- augmented assignment -----------------------------------------------------------
    def _augmented(self, result) -> "Tensor":
        """`x += y` (-=, *=, ...): MindSpore 2.10's graph mode (measured with ms.jit and a
        GRAPH_MODE construct) writes a Tensor argument in place, handed back to the caller's
        Tensor and cast to its dtype (int32 x += 1.5 stays int32); PyNative, and any other
        Tensor, rebind the name, as Python does without __iadd__. Parameters keep that too
        (`self.p += 1` in construct is an assign through the Cell's attribute)."""
        from .frontend.tracer import current_tracer
        tracer = current_tracer()
        if tracer is not None and id(self) in tracer.arg_ids and not isinstance(self, Parameter):
            return self._write(result, "augmented assignment")
        _refuse_outside_write(self, "augmented assignment")   # `global t; t += 1`
        return result

    def __iadd__(self, o): return self._augmented(self.__add__(o))
    def __isub__(self, o): return self._augmented(self.__sub__(o))
    def __imul__(self, o): return self._augmented(self.__mul__(o))
    def __itruediv__(self, o): return self._augmented(self.__truediv__(o))
    def __ifloordiv__(self, o): return self._augmented(self.__floordiv__(o))
    def __imod__(self, o): return self._augmented(self.__mod__(o))
    def __ipow__(self, o): return self._augmented(self.__pow__(o))
    def __iand__(self, o): return self._augmented(self.__and__(o))
    def __ior__(self, o): return self._augmented(self.__or__(o))
    def __ixor__(self, o): return self._augmented(self.__xor__(o))

    # -- operators ----------------------------------------------------------------------
    def __add__(self, o): return _ops().add(self, o)
    def __radd__(self, o): return _ops().add(o, self)
    def __sub__(self, o): return _ops().sub(self, o)
    def __rsub__(self, o): return _ops().sub(o, self)
    def __mul__(self, o): return _ops().mul(self, o)
    def __rmul__(self, o): return _ops().mul(o, self)
    def __truediv__(self, o): return _ops().div(self, o)
    def __rtruediv__(self, o): return _ops().div(o, self)
    def __floordiv__(self, o): return _ops().floor_div(self, o)
    def __rfloordiv__(self, o): return _ops().floor_div(o, self)
    def __mod__(self, o): return _ops().mod(self, o)
    def __rmod__(self, o): return _ops().mod(o, self)
    def __pow__(self, o): return _ops().pow(self, o)
    def __rpow__(self, o): return _ops().pow(o, self)
    def __matmul__(self, o): return _ops().matmul(self, o)
    def __rmatmul__(self, o): return _ops().matmul(o, self)
    def __neg__(self): return _ops().neg(self)
    def __pos__(self): return self
    def __abs__(self): return _ops().abs(self)
    # ~ & | ^: logical on bools, bitwise on integers, as numpy and MindSpore.
    def __invert__(self): return _ops().bitwise_not(self)
    def __and__(self, o): return _ops().bitwise_and(self, o)
    def __rand__(self, o): return _ops().bitwise_and(o, self)
    def __or__(self, o): return _ops().bitwise_or(self, o)
    def __ror__(self, o): return _ops().bitwise_or(o, self)
    def __xor__(self, o): return _ops().bitwise_xor(self, o)
    def __rxor__(self, o): return _ops().bitwise_xor(o, self)
    # MindSpore compares a Tensor with None as Python does (False, and True for !=).
    def __eq__(self, o): return False if o is None else _ops().equal(self, o)
    def __ne__(self, o): return True if o is None else _ops().not_equal(self, o)
    def __lt__(self, o): return _ops().less(self, o)
    def __le__(self, o): return _ops().less_equal(self, o)
    def __gt__(self, o): return _ops().greater(self, o)
    def __ge__(self, o): return _ops().greater_equal(self, o)


def _either(value, alias, default=None):
    """A Tensor method's argument given by either of MindSpore 2.10's names (`dim` for `axis`,
    `keepdim` for `keepdims`, ...): the alias when it was given, else the value."""
    if alias is None:
        return value
    if value is not None and value is not False and not (isinstance(value, int) and value == default):
        raise TypeError(f"got both a value ({value!r}) and its other name's ({alias!r})")
    return alias


def _one_argument(method: str, name: str, args: tuple, kwargs: dict) -> tuple:
    """`args`, or the one keyword `name` (reshape(shape=...), permute(dims=...))."""
    if set(kwargs) - {name}:
        unknown = sorted(set(kwargs) - {name})[0]
        raise TypeError(f"Tensor.{method}() got an unexpected keyword argument {unknown!r}")
    if name in kwargs:
        if args:
            raise TypeError(f"Tensor.{method}() got {name} both by position and as a keyword")
        return (kwargs[name],)
    return args


def _check_writable_here(t: "Tensor", what: str) -> None:
    """Inside a trace, `x[i] = v` (or an in-place method, `what`) may not rebind a value of an
    enclosing trace (a variable a branch function closes over): it would be left holding a
    value of the inner trace once that ends. (A concrete Tensor becomes a value of the trace, as `zeros` filled in place.)"""
    from .frontend.tracer import current_tracer
    tracer, payload = current_tracer(), t._payload
    if tracer is not None and isinstance(payload, Value) and payload.tracer is not tracer:
        raise RuntimeError(
            f"{what} inside a traced function, branch or loop body writes a Tensor made outside it; "
            "write a copy made inside it (y = x * 1; y[i] = v) and return it")
    _refuse_outside_write(t, what)


def _refuse_outside_write(t: "Tensor", what: str) -> None:
    """An in-place write inside jit to a Tensor from outside the function (frontend/outside_tensors.py)."""
    from .frontend.tracer import STATE, GraphModeError
    if STATE.tracers and not isinstance(t._payload, Value) and any(id(t) in tr.outside for tr in STATE.tracers):
        raise GraphModeError(
            f"{what} inside jit writes a Tensor the function reads from outside (a closure, a global, "
            "an attribute): graphcell hands in-place writes back to the function's arguments and to "
            "Parameters only (MindSpore 2.10's graph mode also writes this one back). Pass the Tensor "
            "as an argument, or hold it in a Parameter")


PARAMETER_NAME_DEFAULT = "Parameter"


class Parameter(Tensor):
    """A named, trainable Tensor held by a Cell.

    Its value lives either in its own array or, while an ensemble (vmap over a CellList)
    owns it, as slice `index` of the ensemble's stacked array: then reading it slices, and
    training the ensemble copies nothing per member.
    """
    __slots__ = ("_name", "_requires_grad", "_array", "_home", "_home_index", "_layerwise_parallel")

    def __init__(self, default_input, name=None, requires_grad=True, layerwise_parallel=False,
                 parallel_optimizer=True):
        if isinstance(default_input, Tensor) and default_input.is_symbolic:
            raise TypeError("a Parameter needs a concrete value, not a traced Tensor")
        if isinstance(default_input, bool):
            raise ValueError("Parameter data can not be `bool`")   # MindSpore 2.10's refusal
        self._home = None
        self._home_index = 0
        # a Python int is Int32 in a Parameter (MindSpore 2.10, measured), Int64 in a Tensor
        self._array = _to_array(default_input, mstype.int32 if type(default_input) is int else None)
        self.name = name
        self.requires_grad = requires_grad
        self.layerwise_parallel = layerwise_parallel

    @property
    def layerwise_parallel(self) -> bool:
        """MindSpore's flag for a parameter that model-parallel training does not all-reduce; kept
        (and copied) for code that reads it. graphcell trains on one device, where it changes nothing."""
        return self._layerwise_parallel

    @layerwise_parallel.setter
    def layerwise_parallel(self, value) -> None:
        if not isinstance(value, bool):
            raise TypeError("The argument `layerwise_parallel` must be bool type.")   # 2.10's (measured)
        self._layerwise_parallel = value

    @property
    def name(self) -> str:
        return self._name

    @name.setter
    def name(self, value) -> None:
        if value is not None and not isinstance(value, str):
            raise ValueError(f"The type of the Parameter's name should be 'string' or 'None', but got {type(value)}.")
        self._name = value or PARAMETER_NAME_DEFAULT

    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value) -> None:
        if not isinstance(value, bool):
            raise TypeError(f"Parameter {self._name!r}: requires_grad must be a bool, got {type(value).__name__}")
        self._requires_grad = value

    def _write(self, value, what: str) -> "Parameter":
        """A Parameter's in-place write is a state update (ops.assign): at once eagerly, the
        Parameter's new value in a trace (MindSpore's graph mode, measured)."""
        _ops().assign(self, check_in_place(self, value, what))
        return self

    def requires_grad_(self, requires_grad=True) -> "Parameter":
        self.requires_grad = requires_grad
        return self

    def value(self) -> Tensor:
        """The value as a plain Tensor (MindSpore's Parameter.value())."""
        return Tensor._wrap(self._payload) if not self.is_symbolic else self

    def init_data(self, layout=None, set_sliced=False) -> "Parameter":
        """Returns the Parameter: graphcell initialises Parameters when they are made."""
        return self

    def copy(self) -> "Parameter":
        """A new Parameter of the same name, value and requires_grad (MindSpore's copy)."""
        return Parameter(self._payload, name=self.name, requires_grad=self.requires_grad,
                         layerwise_parallel=self.layerwise_parallel)

    @property
    def _payload(self):
        if self._home is not None:
            return self._home.member_array(self._home_index)
        return self._array

    @property
    def shape(self) -> tuple:
        if self._home is not None:  # an ensemble member's: the stack's, without slicing it
            return tuple(self._home.stacked.shape[1:])
        return tuple(self._array.shape)

    @property
    def dtype(self) -> DType:
        if self._home is not None:
            return self._home.stacked.dtype
        return to_dtype(self._array.dtype)

    @_payload.setter
    def _payload(self, array):
        if self._home is not None:
            self._home.write_member(self._home_index, array)
        else:
            self._array = array

    @property
    def data(self) -> "Parameter":
        return self

    def set_data(self, data, slice_shape=False) -> "Parameter":
        """Replaces the value (eagerly), keeping the dtype; inside a trace records a write.

        The new value may have another shape, with or without `slice_shape` (MindSpore 2.10,
        measured: (2, 3) takes (4,), a 0-d Tensor or a Python number, which leaves shape ()).
        Graphs traced with the old shape are dropped and traced again; 2.10's compiled graphs
        kept the old shape and read the new buffer as it (measured: wrong values). An optimizer
        built before keeps state of the old shape, and its step then fails, as in 2.10."""
        from .frontend.tracer import current_tracer
        if isinstance(data, Tensor) and data.is_symbolic or current_tracer() is not None:
            _ops().assign(self, data)
            return self
        self._check_incoming_dtype(data)
        array = _to_array(data, self.dtype)
        if tuple(array.shape) != self.shape:
            if self._home is not None:
                raise ValueError(f"Parameter {self.name!r}: cannot set data of shape {list(array.shape)}, "
                                 f"expected {list(self.shape)} (an ensemble member's shape is its stack's)")
            from .compiler.jit import bump_config_epoch
            bump_config_epoch()  # graphs traced with the old shape are stale
        self._payload = array
        return self

    def _check_incoming_dtype(self, data) -> None:
        """MindSpore 2.10's rule (measured): a Tensor or array of any dtype is cast to the
        Parameter's (float64 into float32, a float into an int Parameter truncates); only a
        Python float going into an integer or bool Parameter is a TypeError."""
        if isinstance(data, (Tensor, np.ndarray, np.generic, jax.Array)):
            return
        incoming = _default_dtype(data)
        if incoming.is_floating and not self.dtype.is_floating:
            raise TypeError(f"Parameter {self.name!r}: incoming data of dtype {incoming} can not be converted "
                            f"to the Parameter's dtype {self.dtype} implicitly; cast the data "
                            f"(.astype({self.dtype.name})) or change the Parameter with .set_dtype(...)")

    def assign_value(self, value):
        return self.set_data(value)

    def set_dtype(self, dtype) -> "Parameter":
        """Casts the value to `dtype` (eagerly; MindSpore's Parameter.set_dtype)."""
        from .frontend.tracer import current_tracer
        if current_tracer() is not None:
            raise RuntimeError(f"Parameter {self.name!r}: set_dtype changes the graph's types; call it "
                               "outside jit/construct")
        self._payload = _to_array(self._payload, to_dtype(dtype))
        return self

    def clone(self, init="same", prefix=None) -> "Parameter":
        if init == "same":
            value = self._payload
        else:
            from .common.initializer import initializer_from
            value = initializer_from(init).sample(self.shape, self.dtype.np_dtype)
        name = f"{prefix}.{self.name}" if prefix else self.name
        return Parameter(value, name=name, requires_grad=self.requires_grad, layerwise_parallel=self.layerwise_parallel)

    def __repr__(self):
        return (f"Parameter (name={self.name}, shape={self.shape}, dtype={self.dtype}, "
                f"requires_grad={self.requires_grad})")

    # MindSpore prints a Parameter as its description, not its values (print(opt.global_step),
    # f"{param}"); a format spec still formats a 0-d Parameter's value, as a Tensor's.
    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return str(self) if not spec else super().__format__(spec)

    def __getstate__(self):
        return {"array": self.asnumpy(), "name": self.name, "requires_grad": self.requires_grad,
                "layerwise_parallel": self.layerwise_parallel}

    def __setstate__(self, state):
        self._home = None
        self._home_index = 0
        self._array = jnp.asarray(state["array"])
        self.name = state["name"]
        self.requires_grad = state["requires_grad"]
        self.layerwise_parallel = state.get("layerwise_parallel", False)


class ParameterTuple(tuple):
    """A tuple of Parameters (MindSpore's container for optimizer weights and states)."""

    def __new__(cls, iterable=()):
        items = tuple(iterable)
        named = {}
        for p in items:
            if not isinstance(p, Parameter):
                raise TypeError(f"ParameterTuple holds Parameters only, got {type(p).__name__}")
            # two Parameters of one name would share a checkpoint key (MindSpore refuses them)
            if named.setdefault(p.name, p) is not p and p.name != PARAMETER_NAME_DEFAULT:
                raise ValueError(f"The value {p!r} , its name '{p.name}' already exists. Please set a unique "
                                 "name for the parameter.")
        return super().__new__(cls, items)

    def clone(self, prefix: str, init="same") -> "ParameterTuple":
        return ParameterTuple(p.clone(init=init, prefix=prefix) for p in self)

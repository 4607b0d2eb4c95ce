"""Primitives: each declared once, with every rule beside it.

A `Primitive` carries
- `shape_rule(*in_types, **attrs) -> TensorType | tuple` (raises ShapeError for bad input),
- `impl(*arrays, **attrs)`: the jax lowering, which is also the eager implementation,
- `onnx_rule(ctx, *input_names, **attrs) -> names`, filled by the ONNX backend's tables,
- `batch_rule(ctx, args, dims, **attrs) -> (outs, out_dims)` for the vmap pass,
- `vjp_rule(ctx, cts, primals, outs, **attrs) -> input cotangents` for autodiff,
- `host_callback(arrays, **attrs) -> output arrays`, for primitives whose impl is a host callback
  (`host_call`, `backward_hook`): the Python it calls, which jit(backend="onnx") runs between and
  after its onnxruntime models (`runtime/onnx_host_calls.py`),
- `row_rule`, filled by the row-tiling pass's table (`passes/tile_rows.py`): where a node
  keeps its inputs' rows, and its attrs at another row count,
- flags: `pure` (DCE/CSE/folding may drop or merge it), `multiple_results`, `deterministic`
  (False: draws random bits from a key operand), `eager_jit` (False: PYNATIVE mode calls the
  impl directly instead of a cached `jax.jit` of it, for impls that cannot or should not be
  jitted per attrs: host callbacks, data-dependent shapes, subgraph or constant-array attrs;
  see `frontend/eager.py`), `lowering_only` (emitted by the last pass of a backend's pipeline,
  so vmap, grad and the other backend never meet it: it has no batch, vjp or ONNX rule).

Batch and vjp rules receive symbolic `Tensor`s and are written with the ordinary
`graphcell.ops` API, so a rule reads like the math it implements.
"""
from __future__ import annotations

import hashlib
from typing import Callable

import numpy as np

from ..dtype import DType
from ..ir.core import TensorType

PRIMITIVES: dict[str, "Primitive"] = {}
_tracer = None  # the frontend.tracer module, set by the first Primitive.bind


class ShapeError(ValueError):
    """A primitive was applied to operands of the wrong shape or dtype."""


class Primitive:
    def __init__(self, name: str, shape_rule: Callable, impl: Callable, *,
                 multiple_results: bool = False, pure: bool = True, deterministic: bool = True,
                 eager_jit: bool = True, lowering_only: bool = False):
        if name in PRIMITIVES:
            raise ValueError(f"primitive {name!r} is declared twice")
        self.name = name
        self.shape_rule = shape_rule
        self.impl = impl
        self.multiple_results = multiple_results
        self.pure = pure
        # False for primitives that draw random bits from a key operand: vmap calls their batch
        # rule even when the key is unbatched, so `randomness="different"` can split the stream.
        self.deterministic = deterministic
        self.eager_jit = eager_jit
        self.lowering_only = lowering_only
        self.batch_rule: Callable | None = None
        self.vjp_rule: Callable | None = None
        # A numpy implementation giving `impl`'s exact result, for primitives that only move
        # elements (and exact casts): constant folding runs it instead of compiling `impl` per shape.
        self.host_impl: Callable | None = None
        self.onnx_rule: Callable | None = None
        self.host_callback: Callable | None = None
        self.row_rule = None
        PRIMITIVES[name] = self

    def __repr__(self):
        return f"Primitive({self.name})"

    def infer(self, *in_types: TensorType, **attrs) -> tuple[TensorType, ...]:
        out = self.shape_rule(*in_types, **attrs)
        return tuple(out) if self.multiple_results else (out,)

    def bind(self, *args, **attrs):
        """Applies the primitive to Tensors: eagerly, or as a node of the active trace."""
        global _tracer
        if _tracer is None:  # imported here once: the tracer imports this module
            from ..frontend import tracer as _tracer
        return _tracer.bind(self, args, canonical_attrs(attrs))

    def bind_canonical(self, args: tuple, attrs: dict):
        """`bind` for hot callers whose attrs are already canonical (tuples and Python
        scalars): skips the check, and `attrs` is not copied, so pass a dict of your own."""
        global _tracer
        if _tracer is None:
            from ..frontend import tracer as _tracer
        return _tracer.bind(self, args, attrs)

    # Decorators that fill the rule slots, used beside each declaration.
    def def_batch(self, rule):
        self.batch_rule = rule
        return rule

    def def_vjp(self, rule):
        self.vjp_rule = rule
        return rule

    def def_onnx(self, rule):
        self.onnx_rule = rule
        return rule


class Literal:
    """A constant array held in a node's attrs: hashed and compared by content."""
    __slots__ = ("array", "_key")

    def __init__(self, array):
        self.array = np.asarray(array)
        self.array.setflags(write=False)
        digest = hashlib.blake2b(self.array.tobytes(), digest_size=16).hexdigest()
        self._key = (self.array.shape, self.array.dtype.str, digest)

    def __hash__(self):
        return hash(self._key)

    def __eq__(self, other):
        return isinstance(other, Literal) and self._key == other._key

    def __repr__(self):   # stable across processes: the ONNX cache keys on it (compiler/onnx_cache.py)
        return f"Literal{self._key!r}"

    def __str__(self):
        if self.array.size <= 4:
            body = np.array2string(self.array.reshape(-1), separator=",")
            return body if self.array.ndim else str(self.array.item())
        return f"<{self.array.size} values>"


def canonical_attrs(attrs: dict) -> dict:
    """Lists become tuples and numpy scalars become Python ones, so attrs hash and print."""
    if _all_canonical(attrs.values()):  # the common case (every bind comes here): no rebuild
        return dict(attrs)
    return {k: _canonical(v) for k, v in attrs.items()}


# Attr types that are canonical as they are.
_CANONICAL_TYPES = frozenset({int, float, bool, str, type(None), DType})


def _all_canonical(values) -> bool:
    """Whether `values` hold only canonical scalars and (nested) plain tuples of them."""
    stack = list(values)
    while stack:
        v = stack.pop()
        if type(v) is tuple:
            stack.extend(v)
        elif type(v) not in _CANONICAL_TYPES:
            return False
    return True


def _canonical(v):
    if isinstance(v, (list, tuple)):
        return tuple(_canonical(x) for x in v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    if isinstance(v, np.ndarray):
        return Literal(v)
    return v


def check(condition: bool, message: str) -> None:
    if not condition:
        raise ShapeError(message)


def same_dtype(name: str, *types: TensorType) -> DType:
    first = types[0].dtype
    if any(t.dtype is not first for t in types[1:]):  # DTypes are interned; the message is
        raise ShapeError(f"{name} needs operands of one dtype, got "  # built on failure only
                         + ", ".join(str(t) for t in types))
    return first

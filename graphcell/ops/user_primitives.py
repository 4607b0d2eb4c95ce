"""The base classes a user's own primitive derives from (`ops.PrimitiveWithInfer`,
`ops.PrimitiveWithCheck`, `ops.prim_attr_register`) and `ops.Morph`.

Measured on 2.10 (CPU): a subclass whose `__call__` composes ops runs eagerly and under grad
(jit raised); one without `__call__` runs its `infer_dtype` and `infer_shape` (shapes as
lists, types as `Tensor[Float32]`) and then fails, having no kernel. graphcell does the same,
with a message saying what to write; a `__call__` of graphcell ops also runs under jit, vmap
and export, as any function of ops does.

`Morph(fn, infer_shape, infer_dtype, bprop_fn=None)`: `fn` composed of ops, its outputs checked
against the infer functions; `bprop_fn(*args, out, dout)` gives the gradients. 2.10 runs Morph in
GRAPH_MODE only ("Morph is only supported in GRAPH_MODE."); graphcell eagerly too.
"""
from __future__ import annotations

import functools
import inspect

from .. import dtype as mstype
from ..tensor import Tensor
from .grad_sites import GradientSite, with_gradient
from .op_base import Operator

__all__ = ["PrimitiveWithInfer", "PrimitiveWithCheck", "prim_attr_register", "Morph"]


def _shapes_and_types(args):
    shapes = [list(a.shape) if isinstance(a, Tensor) else a for a in args]
    types = [mstype.TensorType(a.dtype) if isinstance(a, Tensor) else type(a) for a in args]
    return shapes, types


class _UserPrimitive(Operator):
    def __init__(self, name=None):
        super().__init__()
        object.__setattr__(self, "_prim_name", name or type(self).__name__)

    @property
    def name(self) -> str:
        return self.__dict__.get("_prim_name") or type(self).__name__

    def _no_kernel(self):
        raise RuntimeError(f"For '{self.name}', a user primitive has no kernel in graphcell: define its __call__ "
                           "with graphcell ops (it then runs eagerly, under jit, grad and vmap), or wrap a numpy "
                           "function in ops.Custom")


class PrimitiveWithInfer(_UserPrimitive):
    """A user primitive with `infer_shape`/`infer_dtype` (or `__infer__`) and a `__call__`."""

    def __call__(self, *args):
        shapes, types = _shapes_and_types(args)
        if type(self).__infer__ is not PrimitiveWithInfer.__infer__:
            self.__infer__(*[{"shape": s, "dtype": t, "value": None} for s, t in zip(shapes, types)])
        else:
            self.infer_dtype(*types)
            self.infer_shape(*shapes)
        self._no_kernel()

    def __infer__(self, *args):
        return None

    def infer_shape(self, *args):
        return None

    def infer_dtype(self, *args):
        return None

    def infer_value(self, *args):
        return None


class PrimitiveWithCheck(_UserPrimitive):
    """A user primitive with `check_shape`/`check_dtype` and a `__call__`."""

    def __call__(self, *args):
        shapes, types = _shapes_and_types(args)
        self.check_dtype(*types)
        self.check_shape(*shapes)
        self._no_kernel()

    def check_shape(self, *args):
        return None

    def check_dtype(self, *args):
        return None


def prim_attr_register(fn):
    """Decorates a primitive's `__init__`: its arguments (defaults included) become attributes."""
    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def init(self, *args, **kwargs):
        if "attrs" not in self.__dict__:
            _UserPrimitive.__init__(self) if isinstance(self, _UserPrimitive) else Operator.__init__(self)
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        for key, value in list(bound.arguments.items())[1:]:
            self.add_prim_attr(key, value)
        fn(self, *args, **kwargs)
    return init


class Morph(Operator):
    """`Morph(fn, infer_shape, infer_dtype, bprop_fn=None)(*args)`: `fn(*args)`, checked against
    the infer functions, with `bprop_fn`'s gradients when given (else fn's own)."""

    def __init__(self, fn, infer_shape, infer_dtype, bprop_fn=None):
        super().__init__(fn=fn, infer_shape=infer_shape, infer_dtype=infer_dtype, bprop_fn=bprop_fn)

    def __call__(self, *args):
        a = self.attrs
        shapes, types = _shapes_and_types(args)
        dtype, shape = a["infer_dtype"](*types), a["infer_shape"](*shapes)
        out = a["fn"](*args)
        outs = out if isinstance(out, tuple) else (out,)
        dtypes = dtype if isinstance(dtype, (tuple, list)) else (dtype,)
        shapes = shape if isinstance(out, tuple) else (shape,)
        for i, (y, d, s) in enumerate(zip(outs, dtypes, shapes)):
            d = d.element_type() if isinstance(d, mstype.TensorType) else d
            if list(y.shape) != list(s) or (d is not None and y.dtype is not mstype.to_dtype(d)):
                raise TypeError(f"For 'Morph', fn {getattr(a['fn'], '__name__', a['fn'])} gave output {i} of shape "
                                f"{list(y.shape)} and dtype {y.dtype}, but infer_shape/infer_dtype say {list(s)} "
                                f"and {d}")
        if a["bprop_fn"] is None:
            return out
        bprop = a["bprop_fn"]

        def rule(xs, ys, douts):
            several = isinstance(out, tuple)
            return bprop(*xs, tuple(ys) if several else ys[0], tuple(douts) if several else douts[0])
        tensors = tuple(x for x in args if isinstance(x, Tensor))
        new = with_gradient(outs, tensors, GradientSite(rule, ("Morph", id(self)), "Morph"))
        return tuple(new) if isinstance(out, tuple) else new[0]

"""`ops.HookBackward` and `ops.InsertGradientOf`: a function on the gradient of a value, placed
with the custom_bprop marker (ops/grad_sites.py); in value both are the identity.

- HookBackward(hook_fn): the hook sees the gradients of its inputs as a tuple, on their real
  values (the host call of Cell backward hooks, ops/hooks.py), and may return new ones (a
  Tensor, a tuple of them) or None. 2.10 runs it in PyNative mode only and skips it under jit
  (measured: the gradient came out unhooked); graphcell runs it under jit too.
- InsertGradientOf(f): `f(dout)` is the new gradient, built of ops in the backward graph (2.10
  traces it under jit too: measured), so it vmaps, differentiates and exports.
"""
from __future__ import annotations

from ..tensor import Tensor
from .grad_sites import GradientSite, with_gradient
from .op_base import Operator

__all__ = ["HookBackward", "InsertGradientOf"]


class _HookFn:
    """The site of HookBackward's host call (ops/hooks.py runs `owner._run_backward_hooks`)."""
    __slots__ = ("op",)

    def __init__(self, op):
        self.op = op

    @property
    def owner(self):
        return self

    @property
    def subject(self) -> str:
        return f"HookBackward({_name(self.op.hook_fn)})"

    def __hash__(self):
        return hash(id(self.op))

    def __eq__(self, other):
        return isinstance(other, _HookFn) and self.op is other.op

    def __str__(self):
        return f"<{self.subject}>"

    __repr__ = __str__

    def _run_backward_hooks(self, kind, grads, grad_output) -> tuple:
        fn = self.op.hook_fn
        result = fn(tuple(grads))
        if result is None:
            return grads
        if isinstance(result, Tensor):
            result = (result,)
        if not isinstance(result, (tuple, list)) or not all(isinstance(g, Tensor) for g in result):
            # MindSpore 2.10's words (measured)
            raise TypeError(f"The output type of function: {_name(fn)} should be a tensor but got "
                            f"{type(result).__name__}.")
        if len(result) != len(grads) or any(g.shape != r.shape for g, r in zip(grads, result)):
            raise ValueError(f"the hook {_name(fn)} of HookBackward returned {len(result)} gradient(s) of shapes "
                             f"{[list(g.shape) for g in result]} for inputs of shapes "
                             f"{[list(g.shape) for g in grads]}; return one of each input's shape, or None")
        return tuple(r if r.dtype is g.dtype else r.astype(g.dtype) for r, g in zip(result, grads))


def _name(fn) -> str:
    return getattr(fn, "__name__", type(fn).__name__)


class HookBackward(Operator):
    """`HookBackward(hook_fn, cell_id="")(*inputs)`: the inputs unchanged; `hook_fn(grads)`
    runs on their gradients when the backward pass reaches them."""

    def __init__(self, hook_fn, cell_id=""):
        if not callable(hook_fn):   # MindSpore 2.10's words (measured)
            raise TypeError(f"Expected a callable hook function, but got {type(hook_fn).__name__}.")
        super().__init__(cell_id=cell_id)
        object.__setattr__(self, "hook_fn", hook_fn)

    def __call__(self, *inputs):
        from .hooks import call
        site = _HookFn(self)

        def rule(xs, outs, douts):
            return call.bind(*douts, site=site, kind="tensor", slots=(True,) * len(douts), context=())
        outs = with_gradient(inputs, inputs, GradientSite(rule, ("HookBackward", id(self)), site.subject))
        return outs[0] if len(outs) == 1 else tuple(outs)


class InsertGradientOf(Operator):
    """`InsertGradientOf(f)(x)`: x unchanged; its gradient becomes `f(gradient)`."""

    def __init__(self, f):
        super().__init__(f=f, side_effect_backprop=True, side_effect_backprop_mem=True)

    def __call__(self, *inputs):
        if len(inputs) != 1:   # MindSpore 2.10's words (measured)
            raise RuntimeError(f"For 'InsertGradientOf', the number of input should be 1, but got {len(inputs)}")
        f = self.attrs["f"]
        site = GradientSite(lambda xs, outs, douts: (f(douts[0]),), ("InsertGradientOf", f),
                            f"InsertGradientOf({_name(f)})")
        (y,) = with_gradient(inputs, inputs, site)
        return y

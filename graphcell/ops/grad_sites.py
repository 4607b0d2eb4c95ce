"""A function's own gradient rule on the custom_bprop marker (ops/custom_bprop.py), for the ops
that bring one: `ops.Custom(bprop=...)`, `ops.Morph(bprop_fn=...)`, `ops.InsertGradientOf`,
`ops.HookBackward` and `ops.DumpGradient`.

    %y' = custom_bprop(%y, %x) {site=<Custom 'mul' bprop>, n_out=1}

In value the marker is `%y`; the grad pass gives `%x` what `site.gradients` returns, built of
ordinary ops (or host calls) in the backward graph, and no gradient flows through `%y`'s own
computation.
"""
from __future__ import annotations

from ..frontend.tracer import current_tracer
from ..tensor import Tensor
from .custom_bprop import _gradient, custom_bprop


class GradientSite:
    """custom_bprop's site for `rule(xs, outs, douts) -> one gradient per x`: equal by `key`
    (an eager grad finds its cached backward graph for the same op); `label` names it in
    messages ("the bprop of <label> ...")."""
    __slots__ = ("rule", "key", "label")

    def __init__(self, rule, key, label: str):
        self.rule, self.key, self.label = rule, key, label

    def __hash__(self):
        return hash(self.key)

    def __eq__(self, other):
        return isinstance(other, GradientSite) and self.key == other.key

    def __str__(self):
        return f"<{self.label}>"

    __repr__ = __str__

    def gradients(self, xs: tuple, outs: tuple, douts: tuple) -> tuple:
        grads = self.rule(xs, outs, douts)
        if not isinstance(grads, (tuple, list)):
            grads = (grads,)
        if len(grads) < len(xs):   # MindSpore 2.10's words (as a Cell's bprop)
            raise RuntimeError(f"Grad size should lager than forward inputs, but got {len(grads)} vs {len(xs)} "
                               f"(the bprop of {self.label} returns {len(grads)} gradient(s) for {len(xs)} input(s))")
        return tuple(_gradient(g, x, i, self.label) for i, (g, x) in enumerate(zip(grads, xs)))


def with_gradient(outs: tuple, xs: tuple, site: GradientSite) -> tuple:
    """`outs` (Tensors computed from the Tensors `xs`) passed through the marker inside a trace,
    so their gradient is `site`'s; unchanged outside one (there is no gradient to give)."""
    if current_tracer() is None or not outs:
        return tuple(outs)
    xs = tuple(x for x in xs if isinstance(x, Tensor))
    return tuple(custom_bprop.bind(*outs, *xs, site=site, n_out=len(outs)))

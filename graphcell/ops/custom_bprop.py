"""A Cell's own backward pass: `Cell.bprop(self, *args, out, dout)` (MindSpore's custom bprop).

When a Cell that defines `bprop` is called inside a trace, its output passes through one
marker that also reads the Cell's Tensor arguments:

    %y = ...construct on %x...
    %y' = custom_bprop(%y, %x) {site=<Net>, n_out=1}

In value the marker is `%y`. Its vjp rule gives `%y` no cotangent, so no gradient flows back
through construct (its Parameters get zeros, as in MindSpore 2.10), and gives `%x` the
gradients that the user's `bprop(x, out, dout)` returns, called then on the symbolic Tensors:
the backward graph holds bprop's ops, ordinary IR that differentiates again (a second-order
gradient), vmaps, lowers to XLA and exports. The XLA pipeline's simplify drops the marker.

Measured on 2.10: `bprop` returns one gradient per positional argument (a lone Tensor for a
single argument is accepted); `dout` of an output the loss does not use is zeros; gradients
returned for Python arguments are ignored; fewer gradients than arguments is an error.
"""
from __future__ import annotations

from ..frontend import pytree
from ..tensor import Tensor
from . import functional as F
from .primitive import Primitive


class BpropSite:
    """The attr naming whose bprop runs and how to rebuild its arguments and output: equal
    for two calls of one Cell with the same argument and output structures (so an eager grad
    finds its cached backward graph again)."""
    __slots__ = ("cell", "label", "args", "out_tree", "_key")

    def __init__(self, cell, args_structure, out_tree):
        # A strong reference: the grad pass calls the bprop after the forward trace, by when
        # a Cell made inside the traced function would be gone.
        self.cell = cell
        self.label = type(cell).__name__
        self.args, self.out_tree = args_structure, out_tree
        self._key = (pytree.structure_key(args_structure), pytree.structure_key(out_tree))

    def __hash__(self):
        return hash((id(self.cell), self._key))

    def __eq__(self, other):
        return isinstance(other, BpropSite) and self.cell is other.cell and self._key == other._key

    def __str__(self):
        return f"<{self.label}.bprop>"

    __repr__ = __str__

    def gradients(self, xs: tuple, outs: tuple, douts: tuple) -> tuple:
        """The user's bprop on the arguments (Tensors `xs` in their places), the output and its
        cotangent; one gradient per Tensor argument."""
        from ..frontend.ast_transform import converted
        cell = self.cell
        args = pytree.unflatten(self.args, list(xs))
        out = pytree.unflatten(self.out_tree, list(outs))
        dout = pytree.unflatten(self.out_tree, list(douts))
        grads = converted(type(cell).bprop)(cell, *args, out, dout)
        if not isinstance(grads, (tuple, list)):
            grads = (grads,)
        if len(grads) < len(args):   # MindSpore 2.10's words
            raise RuntimeError(f"Grad size should lager than forward inputs, but got {len(grads)} vs {len(args)} "
                               f"(the bprop of {self.label} returns {len(grads)} gradient(s) for {len(args)} "
                               "argument(s): one per argument of construct)")
        out = []
        for i, arg in enumerate(args):   # an argument's Tensors, a tuple argument's too, in order
            leaves = pytree.flatten(arg, arrays_are_tensors=False)[0]
            given = [grads[i]] if isinstance(arg, Tensor) else pytree.flatten(grads[i], arrays_are_tensors=False)[0]
            if len(given) != len(leaves):
                given = [None] * len(leaves)
            out += [_gradient(g, a, i, self.label) for g, a in zip(given, leaves)]
        return tuple(out)


def _gradient(grad, arg: Tensor, i: int, label: str):
    if grad is None or not arg.dtype.is_inexact:
        return None
    if not isinstance(grad, Tensor):
        raise TypeError(f"the bprop of {label} returned a {type(grad).__name__} as the gradient of argument "
                        f"{i}, a Tensor: return a Tensor of its shape")
    if tuple(grad.shape) != tuple(arg.shape):
        raise RuntimeError(f"For grad interface or custom function, grad tensor should be broadcast to expected "
                           f"shape, but got {list(grad.shape)} vs {list(arg.shape)} (the bprop of {label}, "
                           f"gradient of argument {i})")
    return grad if grad.dtype is arg.dtype else grad.astype(arg.dtype)


def _rule(*types, site, n_out):
    return types[:n_out]


def _impl(*arrays, site, n_out):
    return tuple(arrays[:n_out])


custom_bprop = Primitive("custom_bprop", _rule, _impl, multiple_results=True, eager_jit=False)


@custom_bprop.def_batch
def _batch(ctx, args, dims, *, site, n_out):
    return custom_bprop.bind(*args, site=site, n_out=n_out), tuple(dims[:n_out])


@custom_bprop.def_vjp
def _vjp(ctx, cts, primals, outs, *, site, n_out):
    douts = tuple(ct if ct is not None else F.zeros_like(y) for ct, y in zip(cts, outs))
    return (None,) * n_out + site.gradients(primals[n_out:], outs, douts)


def with_custom_bprop(cell, args: tuple, output):
    """`output` of `cell(*args)` passed through the marker (inside a trace)."""
    out_leaves, out_tree = pytree.flatten(output, arrays_are_tensors=False)
    arg_leaves, arg_structure = pytree.flatten(tuple(args), arrays_are_tensors=False)
    if not out_leaves:
        return output
    site = BpropSite(cell, arg_structure, out_tree)
    new = custom_bprop.bind(*out_leaves, *arg_leaves, site=site, n_out=len(out_leaves))
    return pytree.unflatten(out_tree, list(new))

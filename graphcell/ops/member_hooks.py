"""Backward hooks on the members of an ensemble (`vmap(nn.CellList([...]))`).

An ensemble traces member 0 alone for all its members (api/vmap.py), so a hooked Cell's
markers (ops/hooks.py) would name member 0's Cell: its hooks would run once, on every
member's gradients together, and the other members' hooks never. Instead, while a member is
traced, each Cell whose counterpart in some member has backward hooks is bracketed with a
`MemberHookSites` attr: the counterpart Cell of every member (found by its path in the member).

The ensemble's vmap pass turns such markers and host calls into their *mapped* form: every
gradient operand stacked on axis 0, one slice per member. The host call then splits axis 0
and runs member i's hooks on slice i; members without hooks pass theirs through untouched.
This holds for grad of the ensemble (the markers' vjps emit mapped calls) and for a grad
inside the members (the ensemble's pass maps the calls). Later vmaps keep axis 0 the members'.
MindSpore 2.10 runs no hook of an ensemble member (measured: hooks on member 0, or on all,
never ran and the gradient was unchanged; pre-hooks on every member raised
"The backward pre hook return value size is 1 not equal to input size 2").
"""
from __future__ import annotations

import threading
import weakref
from contextlib import contextmanager

import jax.numpy as jnp
import numpy as np

from . import batching
from .hooks import HookSite

_BACKWARD_TABLES = ("_backward_hooks", "_backward_pre_hooks")


class MemberHookSites:
    """The attr of a hook marker or host call standing for one Cell in every member of an
    ensemble: member i's counterpart is `sites[i]`. `mapped`: the operands hold every
    member's gradients stacked on axis 0 (made by the ensemble's vmap pass)."""
    __slots__ = ("sites", "ensemble", "mapped", "label")

    def __init__(self, sites: tuple, ensemble, mapped: bool = False):
        self.sites, self.ensemble, self.mapped = sites, ensemble, mapped   # ensemble: a weakref
        self.label = sites[0].label

    def as_mapped(self) -> "MemberHookSites":
        return MemberHookSites(self.sites, self.ensemble, True)

    @property
    def owner(self):   # what ops/hooks.py's host call runs the hooks of
        if not self.mapped:   # (the ensemble's vmap pass maps every such call)
            raise RuntimeError(f"the backward hooks of {self.subject} ran outside the ensemble's vmap, "
                               "so no member's gradients can be told apart")
        return self

    @property
    def subject(self) -> str:
        return f"Cell {self} (in each member of an ensemble)"

    def _run_backward_hooks(self, kind: str, grads: tuple, grad_output) -> tuple:
        """Each member's hooks on its slice (axis 0) of `grads` and `grad_output`; the results
        stacked again. A member whose Cell is gone or has no hook of `kind` is passed through."""
        from ..tensor import Tensor
        table = "_backward_pre_hooks" if kind == "pre" else "_backward_hooks"
        host = [None if g is None else np.asarray(g._payload) for g in grads]
        outs = []
        for i, site in enumerate(self.sites):
            cell = site.owner
            mine = tuple(None if a is None else Tensor._wrap(jnp.asarray(a[i])) for a in host)
            if cell is None or not cell.__dict__.get(table):
                outs.append(mine)
                continue
            output = None if grad_output is None else tuple(
                None if g is None else Tensor._wrap(jnp.asarray(np.asarray(g._payload)[i])) for g in grad_output)
            outs.append(cell._run_backward_hooks(kind, mine, output))
        return tuple(None if g is None else Tensor._wrap(jnp.asarray(np.stack([np.asarray(o[k]._payload)
                                                                                  for o in outs])))
                     for k, g in enumerate(grads))

    def __hash__(self):
        return hash((self.sites, self.mapped))

    def __eq__(self, other):
        return (isinstance(other, MemberHookSites) and self.sites == other.sites
                and self.mapped == other.mapped)

    def __str__(self):
        return f"<{self.label}>"

    __repr__ = __str__


# -- while an ensemble's member is traced ----------------------------------------------------------

_ACTIVE = threading.local()


@contextmanager
def member_trace(ensemble):
    """Within: the Cells of `ensemble`'s members whose counterparts carry backward hooks name
    all their counterparts (a `MemberHookSites`), in whichever member is traced."""
    members = ensemble.members
    paths = [dict(m.cells_and_names()) for m in members]
    sites: dict[int, MemberHookSites] = {}
    ref = weakref.ref(ensemble)
    for path in paths[0]:
        cells = [p.get(path) for p in paths]
        if any(c is None for c in cells) or not any(c.__dict__.get(t) for c in cells for t in _BACKWARD_TABLES):
            continue
        group = MemberHookSites(tuple(HookSite(c) for c in cells), ref)
        for c in cells:
            sites[id(c)] = (group, cells)
    stack = _ACTIVE.__dict__.setdefault("stack", [])
    stack.append(sites)
    try:
        yield
    finally:
        stack.pop()


def counterpart_hooked(cell) -> bool:
    """Whether `cell` is traced as a member of an ensemble where its counterpart in some
    member has backward hooks (it then needs the markers though it has no hook itself)."""
    stack = getattr(_ACTIVE, "stack", None)
    return bool(stack) and id(cell) in stack[-1]


def backward_hooks_of(cell):
    """(site, has pre-hooks, has post-hooks) for bracketing `cell`'s call, or None when
    nothing needs its markers: its own hooks, or (in an ensemble's member trace) those of
    every member's counterpart."""
    stack = getattr(_ACTIVE, "stack", None)
    entry = stack[-1].get(id(cell)) if stack else None
    if entry is not None:
        group, cells = entry
        return (group, any(c.__dict__.get("_backward_pre_hooks") for c in cells),
                any(c.__dict__.get("_backward_hooks") for c in cells))
    pre, post = cell.__dict__.get("_backward_pre_hooks"), cell.__dict__.get("_backward_hooks")
    if not (pre or post):
        return None
    return HookSite(cell), bool(pre), bool(post)


# -- the batch rules ---------------------------------------------------------------------------------

def batch(prim, ctx, args, dims, attrs, first: int, fallback):
    """The batch rule of a hook marker or host call (`prim`), whose operands from `first` on
    are gradients (the enter's inputs, the exit's outputs after the token, the call's).
    Returns None where the primitive's own rule (`fallback`) applies unchanged."""
    site = attrs["site"]
    if isinstance(site, MemberHookSites) and not site.mapped and ctx.options.get("ensemble") is site.ensemble():
        # the ensemble's own pass: every member's gradients stacked on axis 0
        moved = [*args[:first], *[batching.materialize(a, d, ctx.axis_size, 0)
                                  for a, d in zip(args[first:], dims[first:])]]
        outs = prim.bind(*moved, **{**attrs, "site": site.as_mapped()})
        return outs, _out_dims(prim, outs, 0)
    if all(d is None for d in dims):   # (the primitives are nondeterministic so that the rule above runs)
        outs = prim.bind(*args, **attrs)
        return outs, _out_dims(prim, outs, None)
    if isinstance(site, MemberHookSites) and site.mapped and prim.name != "backward_hook":
        # a later vmap: axis 0 stays the members', this vmap's axis goes after it
        moved = [*args[:first], *[a if d is None else batching.move(a, d, 1)
                                  for a, d in zip(args[first:], dims[first:])]]
        outs = prim.bind(*moved, **attrs)
        grads = [None if d is None else 1 for d in dims[first:]]
        return outs, _gradient_dims(prim, grads)
    return fallback(ctx, args, dims, **attrs)


def _out_dims(prim, outs, d) -> tuple:
    if prim.name == "backward_hook_enter":
        return (d,) * (len(outs) - 1) + (None,)   # the token is never batched
    return (d,) * len(outs)


def _gradient_dims(prim, grads) -> tuple:
    return (*grads, None) if prim.name == "backward_hook_enter" else tuple(grads)

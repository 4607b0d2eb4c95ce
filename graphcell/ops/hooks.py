"""The primitives behind a Cell's backward hooks (`Cell.register_backward_hook` and
`register_backward_pre_hook`).

A hooked Cell's call is bracketed by two markers, identities in value:

    %x', %token = backward_hook_enter(%x) {site=<Net>, layout=(True,), post=True}
    %y = ...construct on %x'...
    %y' = backward_hook_exit(%token, %y) {site=<Net>, layout=(True,), pre=False}

The token ties the pair together through inlining, nesting and renaming. Their vjp rules
emit `backward_hook` nodes: host calls (`jax.experimental.io_callback`) that run the hooks on
the gradients' real values when the backward pass runs, eagerly and under jit alike, and
return the gradients the hooks give back. The exit's vjp runs first (the pre-hooks, on
grad_output) and leaves the grad_output it passed on to the backward pass for the enter's
vjp (the post-hooks, on grad_input and grad_output), in the grad pass's `ctx.shared`.

The markers lower to identities; the XLA pipeline's simplify removes them (they matter only to
the grad pass, which runs before it). A `backward_hook` runs Python, so it has no ONNX form:
jit(backend="onnx") runs it on the host between two onnxruntime models (runtime/onnx_host_calls.py).
"""
from __future__ import annotations

import threading
import weakref
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import io_callback

from ..dtype import bool_
from ..ir.core import TensorType
from . import batching
from .primitive import Primitive

_TOKEN = TensorType((), bool_)


class HookSite:
    """The attr saying whose hooks a node runs: a weak reference to the Cell, equal by identity
    (so an eager grad's cache of backward graphs tells two Cells of one class apart)."""
    __slots__ = ("_ref", "label")

    def __init__(self, owner):
        self._ref = weakref.ref(owner)
        self.label = type(owner).__name__

    @property
    def owner(self):
        return self._ref()

    def __hash__(self):
        return hash(self._ref)

    def __eq__(self, other):
        return isinstance(other, HookSite) and self._ref == other._ref

    @property
    def subject(self) -> str:   # for messages (a Tensor's hooks have theirs: ops/tensor_hooks.py)
        return f"Cell {self}"

    def __str__(self):
        return f"<{self.label}>"

    __repr__ = __str__


# -- the markers --------------------------------------------------------------------------------

def _enter_rule(*types, site, layout, post):
    return (*types, _TOKEN)


def _enter_impl(*xs, site, layout, post):
    return (*xs, jnp.zeros((), jnp.bool_))


# Nondeterministic: an ensemble's vmap pass maps them even when no operand is batched
# (ops/member_hooks.py).
enter = Primitive("backward_hook_enter", _enter_rule, _enter_impl, multiple_results=True, deterministic=False)


def _exit_rule(token, *types, site, layout, pre):
    return types


def _exit_impl(token, *ys, site, layout, pre):
    return ys


exit_ = Primitive("backward_hook_exit", _exit_rule, _exit_impl, multiple_results=True, deterministic=False)


def _enter_plain(ctx, args, dims, **attrs):
    return enter.bind(*args, **attrs), (*dims, None)


def _exit_plain(ctx, args, dims, **attrs):
    return exit_.bind(*args, **attrs), tuple(dims[1:])


@enter.def_batch
def _enter_batch(ctx, args, dims, **attrs):
    from .member_hooks import batch
    return batch(enter, ctx, args, dims, attrs, 0, _enter_plain)


@exit_.def_batch
def _exit_batch(ctx, args, dims, **attrs):
    from .member_hooks import batch
    return batch(exit_, ctx, args, dims, attrs, 1, _exit_plain)


def _present(layout, cts) -> tuple:
    """One flag per hook slot (`layout`: which slots are floating operands): whether a
    gradient reaches it."""
    it = iter(cts)
    return tuple(floating and next(it) is not None for floating in layout)


@exit_.def_vjp
def _exit_vjp(ctx, cts, primals, outs, *, site, layout, pre):
    present = _present(layout, cts)
    given = [ct for ct in cts if ct is not None]
    if pre:
        given = list(call.bind(*given, site=site, kind="pre", slots=present, context=()))
    new_cts = iter(given)
    cts = tuple(next(new_cts) if ct is not None else None for ct in cts)
    grad_output = (tuple(ct for ct in cts if ct is not None), present)
    partner = ctx.node.inputs[0].producer   # the enter marker, in the forward graph
    if not any(v in ctx.active for v in partner.inputs):
        # No gradient flows into the Cell's inputs, so the enter's vjp never runs: the
        # post-hooks run here, with grad_input all None (MindSpore 2.10 calls them so).
        if partner.attrs["post"]:
            call.bind(*grad_output[0], site=site, kind="post", slots=(False,) * len(partner.attrs["layout"]),
                      context=present)
    else:
        ctx.shared[primals[0]._payload] = grad_output
    return (None, *cts)


@enter.def_vjp
def _enter_vjp(ctx, cts, primals, outs, *, site, layout, post):
    cts = cts[:-1]
    grad_output, context = ctx.shared.pop(outs[-1]._payload, ((), ()))
    if not post:
        return cts
    present = _present(layout, cts)
    given = [ct for ct in cts if ct is not None]
    new = iter(call.bind(*given, *grad_output, site=site, kind="post", slots=present, context=context))
    return tuple(next(new) if ct is not None else None for ct in cts)


# -- the host call ------------------------------------------------------------------------------

def _call_rule(*types, site, kind, slots, context):
    return types[:sum(slots)]


def _call_impl(*arrays, site, kind, slots, context):
    n = sum(slots)
    shapes = [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in arrays[:n]]
    run = partial(_run_on_host, site, kind, slots, context)
    return tuple(io_callback(run, shapes, *arrays, ordered=True))


# pure=False: the hooks have side effects (they print, they store gradients) and run even
# when nothing reads what they return.
call = Primitive("backward_hook", _call_rule, _call_impl, multiple_results=True, pure=False,
                 eager_jit=False, deterministic=False)
call.host_callback = lambda arrays, *, site, kind, slots, context: _run_on_host(site, kind, slots, context, *arrays)
_call_unrolled = batching.unrolled(call)   # each member's gradients, as a loop over members would


@call.def_batch
def _call_batch(ctx, args, dims, **attrs):
    from .member_hooks import batch
    return batch(call, ctx, args, dims, attrs, 0, _call_unrolled)


@call.def_vjp
def _call_vjp(ctx, cts, primals, outs, *, site, kind, slots, context):
    raise NotImplementedError(f"grad: a second-order gradient through the backward hooks of {site.subject} is "
                              "not supported; remove the hooks (handle.remove()) for it")


# The first error a hook raised, per thread that runs programs: the host call returns zeros
# instead of failing inside XLA (which logs it and wraps it in a runtime error), later hooks of
# the same run are skipped, and `raise_hook_error` raises the error itself once the run ends.
_ERRORS: list = []
_ERRORS_LOCK = threading.Lock()


def _run_on_host(site, kind, slots, context, *arrays):
    n = sum(slots)
    if not _ERRORS:
        try:
            owner = site.owner
            if owner is not None:
                from ..tensor import Tensor
                tensors = [Tensor._wrap(jnp.asarray(a)) for a in arrays]
                grads = _slots(slots, tensors[:n])
                grad_output = _slots(context, tensors[n:]) if kind == "post" else None
                grads = owner._run_backward_hooks(kind, grads, grad_output)
                return [np.asarray(g._payload) for g, there in zip(grads, slots) if there]
        except BaseException as e:  # noqa: BLE001 - re-raised by raise_hook_error
            with _ERRORS_LOCK:
                _ERRORS.append(e)
    return [np.zeros(np.shape(a), np.asarray(a).dtype) for a in arrays[:n]]


def _slots(present, given) -> tuple:
    it = iter(given)
    return tuple(next(it) if there else None for there in present)


def raise_hook_error() -> None:
    """Raises the error a backward hook raised during the last run, if any."""
    if _ERRORS:
        with _ERRORS_LOCK:
            error = _ERRORS[0]
            _ERRORS.clear()
        raise error


# The primitives whose host callbacks put their errors in _ERRORS (ops/host_call.py adds its own).
HOST_CALLS = {call}


def runs_hooks(graph) -> bool:
    """Whether running `graph` may call backward hooks or other host functions (a `backward_hook`
    or `host_call` node, in a subgraph too)."""
    return any(node.primitive in HOST_CALLS for node in graph.nodes) or any(runs_hooks(g) for g in graph.subgraphs())

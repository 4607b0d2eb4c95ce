"""Gradient hooks on Tensors: `Tensor.register_hook(hook)` (MindSpore's and torch's).

A hook is a marker on one value, an identity in value:

    %z' = tensor_hook(%z) {site=<Tensor hook scale>}

whose vjp rule emits the `backward_hook` host call of Cell backward hooks (ops/hooks.py): the
hook runs on the gradient's real value when the backward pass runs, eagerly and under jit, and
what it returns (None: the gradient as it is) goes on down the backward pass.

Where the marker goes:
- a traced Tensor (an intermediate, or an argument inside the traced function): on its value
  at once, and every use of that value so far reads the marker instead, so the hook sees the
  Tensor's whole gradient however early the value was used (torch, and MindSpore in both
  modes: measured);
- a Tensor with a value (a Parameter, an input registered outside the function): the hook is
  kept on the Tensor, and a trace that reads a Parameter, or an eager grad's trace that takes
  the Tensor as an argument, marks the value it stands for.

Several hooks on one Tensor are a chain of markers, the first registered nearest the uses, so
the backward pass meets them in registration order and each sees the one before's result.
"""
from __future__ import annotations

from collections import OrderedDict

from .primitive import Primitive


class TensorHookSite:
    """The attr saying which hook a marker runs: the function and its handle's table (the hook
    is live while its id is in the table). Equal by the function, so an eager grad's cache of
    backward graphs reuses a program for the same hook function traced again."""
    __slots__ = ("fn", "table", "id")

    def __init__(self, fn, table: OrderedDict, hook_id: int):
        self.fn, self.table, self.id = fn, table, hook_id

    @property
    def owner(self):   # what ops/hooks.py's host call runs the hooks of
        return self

    @property
    def subject(self) -> str:
        return f"a Tensor ({self})"

    def _run_backward_hooks(self, kind, grads, grad_output) -> tuple:
        if self.id not in self.table:   # handle.remove()d after the graph was built
            return grads
        from ..tensor import Tensor
        (grad,) = grads
        result = self.fn(grad)
        if result is None:
            return grads
        if not isinstance(result, Tensor):   # MindSpore 2.10's words (measured)
            raise RuntimeError(f"Tensor hook should be return Tensor, but get type: {type(result).__name__}.")
        if result.shape != grad.shape or result.dtype is not grad.dtype:
            # (2.10 takes a wrong shape and gives garbage; torch refuses it too)
            raise ValueError(f"the Tensor hook {_name(self.fn)} returned a gradient of shape "
                             f"{list(result.shape)} {result.dtype} for a Tensor of shape {list(grad.shape)} "
                             f"{grad.dtype}; return one of the same shape and dtype, or None")
        return (result,)

    def __hash__(self):
        return hash(id(self.fn))

    def __eq__(self, other):
        return isinstance(other, TensorHookSite) and self.fn is other.fn

    def __str__(self):
        return f"<Tensor hook {_name(self.fn)}>"

    __repr__ = __str__


def _name(fn) -> str:
    return getattr(fn, "__name__", type(fn).__name__)


# -- the marker ---------------------------------------------------------------------------------

marker = Primitive("tensor_hook", lambda x, *, site: x, lambda x, *, site: x)


@marker.def_batch
def _marker_batch(ctx, args, dims, *, site):
    return marker.bind(*args, site=site), dims[0]


@marker.def_vjp
def _marker_vjp(ctx, cts, primals, outs, *, site):
    from .hooks import call
    (ct,) = cts
    return call.bind(ct, site=site, kind="tensor", slots=(True,), context=())


def unmarked(value):
    """The value under a chain of tensor_hook markers (`value` itself when it has none)."""
    while value.producer is not None and value.producer.primitive is marker:
        value = value.producer.inputs[0]
    return value


def attach(tracer, value, site):
    """Marks `value` (a Value of `tracer`, or a marker's output) with `site`, as the hook run
    last of those on it; every use of the value so far reads the marker. Returns the value the
    uses read (the chain's outermost marker)."""
    base = unmarked(value)
    (new,) = tracer.add_node(marker, (base,), {"site": site})
    node = tracer.nodes.pop()
    # right after the value is made, so the uses before the registration may read the marker
    where = 0 if base.producer is None else tracer.nodes.index(base.producer) + 1
    tracer.nodes.insert(where, node)
    users, base.users = base.users, [node]
    for user in users:   # a node using the value twice is listed twice
        if user is not node:
            user.inputs = tuple(new if v is base else v for v in user.inputs)
            new.users.append(user)
    for key, (param, written) in list(tracer.state.items()):
        if written is base:
            tracer.state[key] = (param, new)
    return value if value is not base else new


def mark_all(tracer, value, table: OrderedDict):
    """`value` marked with every hook in `table` (a Tensor's kept hooks), in their order."""
    for hook_id, fn in table.items():
        value = attach(tracer, value, TensorHookSite(fn, table, hook_id))
    return value


# Whether any Tensor has ever kept hooks (register_hook on a Tensor with a value): until one
# has, a jitted call's key does not look for them (35 arguments: 12 us a call).
_any_kept = False


def arg_hooks_key(leaves) -> tuple | None:
    """The hooks on a jitted function's Tensor arguments, for its cache key (None: none, the
    usual case): a call with other hooks, or none, must not run a program marked with these."""
    if not _any_kept:
        return None
    ids = [tuple(table) if (table := getattr(t, "_grad_hooks", None)) else () for t in leaves]
    return tuple(ids) if any(ids) else None


def adopt_sites(cached, fresh) -> None:
    """Points the hook sites of `cached` (a graph whose compiled program is reused) at the
    handles of `fresh`, this call's trace of the same program: a hook registered inside the
    traced function is registered again on each call, and its new handle's remove(), not the
    first call's, decides whether the program runs it. The graphs are equal up to the sites'
    handles (an eager grad's cache key), so markers correspond in order."""
    old = [n for n in cached.nodes if n.primitive is marker]
    new = [n for n in fresh.nodes if n.primitive is marker]
    for a, b in zip(old, new):
        site, now = a.attrs["site"], b.attrs["site"]
        if site is not now:
            site.table, site.id = now.table, now.id
    for a, b in zip(cached.subgraphs(), fresh.subgraphs()):
        adopt_sites(a, b)


def register_hook(tensor, hook):
    """Tensor.register_hook: see the module docstring."""
    from ..frontend.tracer import STATE, GraphModeError
    from ..ir.core import Value
    from ..nn.cell import HookHandle
    from ..tensor import Parameter
    if not callable(hook):   # MindSpore 2.10's words, as a Cell's hooks
        raise TypeError(f"Expected a callable hook function, but got {type(hook).__name__}.")
    if not tensor.dtype.is_floating:   # no gradient reaches it: 2.10 takes the hook, which never runs
        return HookHandle(OrderedDict())
    payload = tensor._payload
    if isinstance(payload, Value):
        tracer = payload.tracer
        if tracer is None or tracer not in STATE.tracers:
            raise GraphModeError("register_hook on a Tensor of a finished trace (a Tensor a jitted "
                                 "function stored on self or in a global)")
        table = OrderedDict()   # this trace's: remove() stops the hook running
        handle = HookHandle(table)
        table[handle.id] = hook
        tensor._payload = attach(tracer, payload, TensorHookSite(hook, table, handle.id))
        return handle
    global _any_kept
    table = getattr(tensor, "_grad_hooks", None)
    if table is None:
        table = tensor._grad_hooks = OrderedDict()
        _any_kept = True
    handle = HookHandle(table)
    table[handle.id] = hook
    if isinstance(tensor, Parameter):   # traces that read it already: mark what they read
        for tracer in STATE.tracers:
            if id(tensor) in tracer.params:
                tracer.param_reads[id(tensor)] = attach(
                    tracer, tracer.param_reads.get(id(tensor), tracer.params[id(tensor)][1]),
                    TensorHookSite(hook, table, handle.id))
    from ..compiler.jit import bump_config_epoch
    bump_config_epoch()   # jitted graphs that read it ran without it
    return handle

"""`grad` and `value_and_grad` with MindSpore 2.10's calling conventions.

    grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False, sens_param=False)

Result shapes (MINDSPORE_NOTES.md section 6):
- an int `grad_position`, or a 1-tuple, gives a bare gradient; a longer tuple a tuple;
- `weights` a ParameterTuple or list gives a tuple in weight order, a single Parameter a
  bare gradient; both a position and weights give `(input_grads, weight_grads)`;
- without `has_aux` every output is differentiated (the gradient of their sum); with it,
  only output 0, and `grad` returns `(grads, (aux, ...))`, `value_and_grad`
  `((out, aux, ...), grads)`;
- `return_ids` pairs each gradient with its position or its parameter's name;
- `sens_param`: the last argument is the cotangent of the (differentiated) output(s).

Implementation: `fn` is traced as a nested trace, `passes.grad.grad_graph` builds the
forward-and-backward graph, and `frontend.trace.inline` runs it: when called eagerly, `fn`
is traced on every call (Python values it reads are read anew, as in MindSpore's PYNATIVE;
the trace knows this call's values, so a tensor `if`/`while` takes this call's path and
`x.item()` reads its value: frontend/concrete.py) and the compiled backward graph is reused
while that trace stays the same graph; inside
`jit`, `construct` or `vmap` it is appended to the enclosing trace. Parameter writes of `fn`
(BatchNorm statistics) are applied.
"""
from __future__ import annotations

from ..compiler.save_graphs import made_from
from ..frontend import pytree
from ..frontend.trace import Traced, inline, trace_with_values
from ..frontend.tracer import current_tracer
from ..ir.core import graph_signature
from ..ops import functional as F
from ..passes.grad import grad_graph
from ..tensor import Parameter, Tensor
from .ms_errors import RuntimeIndexError

__all__ = ["grad", "value_and_grad"]


def grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False, sens_param=False):
    """A function computing the gradients of `fn` (MindSpore's `mindspore.grad`)."""
    return _GradFunction(fn, grad_position, weights, has_aux, return_ids, sens_param, with_value=False)


def value_and_grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False, sens_param=False):
    """Like `grad`, but returns `(value, grads)` (MindSpore's `mindspore.value_and_grad`)."""
    return _GradFunction(fn, grad_position, weights, has_aux, return_ids, sens_param, with_value=True)


def _mindspore_convention(t):
    """A complex gradient (or sens) in MindSpore's convention, from the graph's (jax's).

    The backward graph transposes linear maps without conjugating (jax's vjp), so for a real
    loss L(x + iy) it yields dL/dx - i dL/dy. MindSpore 2.10 gives dL/dx + i dL/dy (measured:
    grad of sum(imag(z)) is +1j, of sum(real(z)) 1), torch's convention, the direction of
    steepest ascent, so that p - lr * grad descends. The two are conjugates; a complex sens is
    conjugated on the way in for the same reason (torch's vjp(v) = conj(jax's vjp(conj(v))))."""
    if t is not None and getattr(t, "dtype", None) is not None and t.dtype.is_complex:
        from ..ops.complex_ops import conj
        return conj(t)
    return t


def _positions(grad_position, weights):
    """(tuple of positions or None, whether the input gradient is bare)."""
    if grad_position is None:
        if weights is None:
            raise ValueError("`grad_position` and `weight` can not be None at the same time.")
        return None, False
    if isinstance(grad_position, bool) or not isinstance(grad_position, (int, tuple, list)):
        raise TypeError(f"grad: `grad_position` must be an int, a tuple of ints or None, got "
                        f"{grad_position!r}")
    if isinstance(grad_position, int):
        return (grad_position,), True
    positions = tuple(grad_position)
    if not positions or not all(isinstance(p, int) and not isinstance(p, bool) for p in positions):
        raise TypeError(f"grad: `grad_position` must be an int or a non-empty tuple of ints, got "
                        f"{grad_position!r}")
    return positions, len(positions) == 1


def _weights(weights):
    """(list of Parameters or None, whether the weight gradient is bare)."""
    if weights is None:
        return None, False
    if isinstance(weights, Parameter):
        return [weights], True
    if isinstance(weights, (tuple, list)):
        items = list(weights)
        for i, w in enumerate(items):
            if not isinstance(w, Parameter):
                raise TypeError(f"grad: `weights[{i}]` must be a Parameter, got {type(w).__name__}")
        return items, False
    raise TypeError(f"grad: `weights` must be a Parameter, a ParameterTuple or a list of Parameters, "
                    f"got {type(weights).__name__}")


def _count_leaves(structure) -> int:
    if structure is None:
        return 1
    if isinstance(structure, pytree.Static):
        return 0
    children = structure[2] if structure[0] is dict else structure[1]
    return sum(_count_leaves(s) for s in children)


# Backward graphs (each with its compiled program) an eager grad function keeps: a closure
# value that changes every call makes a new one each time, and the oldest go.
EAGER_GRAPHS = 8


class _GradFunction:
    def __init__(self, fn, grad_position, weights, has_aux, return_ids, sens_param, with_value):
        self.fn = fn
        self.positions, self.bare_inputs = _positions(grad_position, weights)
        self.weights, self.bare_weights = _weights(weights)
        self.has_aux, self.return_ids, self.sens_param = has_aux, return_ids, sens_param
        self.with_value = with_value
        self.cache: dict = {}  # eager calls: forward graph -> (forward Traced, grad Traced, layout)

    def __call__(self, *args):
        sens = None
        if self.sens_param:
            if not args:
                raise TypeError("grad with sens_param=True: the last argument must be the sens")
            args, sens = args[:-1], args[-1]
        positions = self._normalized_positions(args)
        leaves, structure = pytree.flatten(args)
        eager = current_tracer() is None
        if eager:
            # PYNATIVE: fn is traced on every call, as MindSpore runs it on every call, so
            # Python values it reads (a closure's float, a list, an array turned into a
            # Tensor) are today's; the backward graph and its compiled program are reused
            # while the trace is the same graph over the same Parameters.
            forward = trace_with_values(self.fn, *args)
            key = (pytree.structure_key(structure), graph_signature(forward.graph),
                   tuple(map(id, forward.params)), tuple(map(id, forward.state_params)))
            entry = self.cache.pop(key, None)
            if entry is None:
                entry = self._build(args, positions, forward)
            elif entry[0] is not forward:   # this call's hook handles decide (ops/tensor_hooks.py)
                from ..ops.tensor_hooks import adopt_sites
                adopt_sites(entry[0].graph, forward.graph)
            self.cache[key] = entry          # the most recent last
            if len(self.cache) > EAGER_GRAPHS:
                del self.cache[next(iter(self.cache))]
        else:
            entry = self._build(args, positions)
        forward, gtraced, layout = entry
        sens_leaves = [] if sens is None else self._sens_leaves(sens, layout["diff"], forward)
        outs = inline(gtraced, leaves + [_mindspore_convention(s) for s in sens_leaves])
        n_out = len(forward.graph.user_outputs)
        value = pytree.unflatten(forward.out_tree, list(outs[:n_out]))
        return self._assemble(value, [_mindspore_convention(g) for g in outs[n_out:]], layout, args, eager)

    # -- building ----------------------------------------------------------------------
    def _build(self, args, positions, forward=None):
        forward = forward if forward is not None else trace_with_values(self.fn, *args)
        graph = forward.graph
        leaves_per_arg = [len(pytree.flatten(a)[0]) for a in args]
        starts = [sum(leaves_per_arg[:i]) for i in range(len(args))]
        wrt, input_slots = [], []
        for p in positions or ():
            arg = args[p]
            sparse = hasattr(arg, "_grad_leaf")
            if not (sparse or isinstance(arg, (Tensor, tuple, list, dict))):
                raise TypeError(f"grad: argument {p} of {self._name()} is a {type(arg).__name__}, "
                                "not a Tensor; only Tensor arguments can be differentiated")
            # a sparse tensor's gradient is its values' (MindSpore 2.10's: its indices have none)
            idx = [starts[p] + arg._grad_leaf()] if sparse else list(range(starts[p], starts[p] + leaves_per_arg[p]))
            for i in idx:
                if not graph.inputs[i].dtype.is_inexact:
                    raise TypeError(f"grad: argument {p} ('{graph.inputs[i].name}') of {self._name()} is "
                                    f"{graph.inputs[i].dtype}; gradients exist only for floating-point "
                                    "and complex inputs (integer and bool inputs have none)")
            input_slots.append((p, len(wrt), len(idx)))
            wrt.extend(idx)
        # Per weight: an index into the grads, (index, member) for an ensemble member's
        # Parameter that the function read through its vmapped ensemble (the member's row of the
        # stack's gradient), or None (unused: zeros).
        weight_slots = []
        param_index = {id(p): forward.n_args + j for j, p in enumerate(forward.params)}
        stack_slots: dict[int, int] = {}
        for w in self.weights or ():
            if not w.dtype.is_inexact:   # zeros of its dtype, as MindSpore 2.10 (measured: an
                weight_slots.append(None)   # optimizer's int32 global_step in trainable_params())
                continue
            j = param_index.get(id(w))
            if j is not None:
                weight_slots.append(len(wrt))
                wrt.append(j)
                continue
            home = getattr(w, "_home", None)
            js = param_index.get(id(home.stacked)) if home is not None else None
            if js is None:
                weight_slots.append(None)
                continue
            if js not in stack_slots:
                stack_slots[js] = len(wrt)
                wrt.append(js)
            weight_slots.append((stack_slots[js], w._home_index))
        diff = self._differentiated_leaves(forward)
        g = grad_graph(graph, wrt, diff, with_sens=self.sens_param, name=f"grad_{graph.name}")
        n_grads = len(wrt)
        flat_tree = (tuple, (None,) * (len(graph.user_outputs) + n_grads))
        gtraced = Traced(g, forward.n_args + (len(diff) if self.sens_param else 0), forward.params,
                         forward.captures, forward.state_params, flat_tree, modes=forward.modes,
                         arg_writes=forward.arg_writes, clamped_slices=forward.clamped_slices,  # written arguments: as a call of fn
                         out_scalars=forward.out_scalars)   # (the user outputs lead the flat outputs)
        made_from(gtraced, "grad", forward)   # save_graphs writes the forward trace, then the grad graph
        layout = {"inputs": input_slots, "weights": weight_slots, "diff": diff}
        return forward, gtraced, layout

    def _differentiated_leaves(self, forward):
        n = len(forward.graph.user_outputs)
        if not self.has_aux:
            return tuple(range(n))
        tree = forward.out_tree
        if tree is None or isinstance(tree, pytree.Static) or tree[0] not in (tuple, list) or len(tree[1]) < 2:
            raise ValueError(f"grad with has_aux=True: {self._name()} must return a tuple (out, aux, ...) "
                             "of at least two elements")
        return tuple(range(_count_leaves(tree[1][0])))

    def _sens_leaves(self, sens, diff, forward):
        leaves = pytree.flatten(_numbers_as_tensors(sens))[0]
        if len(leaves) != len(diff):
            raise ValueError(f"grad with sens_param=True: expected {len(diff)} sens tensor(s), one per "
                             f"differentiated output, got {len(leaves)}")
        outs = [forward.graph.outputs[i] for i in diff]
        return [F.broadcast_to(F.cast(s, o.dtype), o.shape) for s, o in zip(leaves, outs)]

    # -- results ------------------------------------------------------------------------
    def _assemble(self, value, grads, layout, args, eager=False):
        result = []
        if self.positions is not None:
            per_input = []
            for p, start, count in layout["inputs"]:
                if hasattr(args[p], "_grad_leaf"):
                    g = grads[start]
                else:
                    _, structure = pytree.flatten(args[p])
                    g = pytree.unflatten(structure, grads[start:start + count])
                per_input.append((p, g) if self.return_ids else g)
            result.append(per_input[0] if self.bare_inputs else tuple(per_input))
        if self.weights is not None:
            per_weight = []
            for w, slot in zip(self.weights, layout["weights"]):
                # Called eagerly, MindSpore 2.10 gives a Parameter with requires_grad=False (at the
                # call) zeros, so a frozen layer stays put under SGD; inside jit, its gradient.
                if slot is None or (eager and not w.requires_grad):
                    g = F.zeros_like(w)
                elif isinstance(slot, tuple):
                    g = grads[slot[0]][slot[1]]
                else:
                    g = grads[slot]
                per_weight.append((w.name, g) if self.return_ids else g)
            result.append(per_weight[0] if self.bare_weights else tuple(per_weight))
        grads_out = result[0] if len(result) == 1 else tuple(result)
        if self.has_aux:
            out, aux = value[0], tuple(value[1:])
            return ((out,) + aux, grads_out) if self.with_value else (grads_out, aux)
        return (value, grads_out) if self.with_value else grads_out

    def _normalized_positions(self, args):
        if self.positions is None:
            return None
        for p in self.positions:
            if not -len(args) <= p < len(args):
                raise RuntimeIndexError(f"Position index {p} is exceed input size. (grad: grad_position {p} is out "
                                        f"of range: {self._name()} was called with {len(args)} argument(s))")
        return tuple(p % len(args) for p in self.positions)

    def _name(self) -> str:
        return getattr(self.fn, "__name__", None) or type(self.fn).__name__


def _numbers_as_tensors(sens):
    """Python numbers in `sens` as Tensors: they are sens values too (MindSpore takes
    grad(fn, sens_param=True)(x, y, 2.0)), where pytree counts them as fixed values."""
    if isinstance(sens, (tuple, list)):
        return type(sens)(_numbers_as_tensors(s) for s in sens)
    if isinstance(sens, (int, float)) and not isinstance(sens, bool):
        return Tensor(sens)
    return sens

"""MindSpore's composite operator classes: GradOperation, HyperMap, MultitypeFuncGraph
(`from mindspore.ops import composite as C`).

GradOperation maps onto `graphcell.grad`; HyperMap and MultitypeFuncGraph are Python-level
maps and dispatch, so they trace to the ops they call.

    grad_all = C.GradOperation(get_all=True)
    dx, dy = grad_all(net)(x, y)                    # every positional input
    grad_w = C.GradOperation(get_by_list=True)
    dws = grad_w(net, ParameterTuple(net.trainable_params()))(x, y)
"""
from __future__ import annotations

import builtins

import numbers

from ..tensor import Parameter, Tensor
from . import functional as F
from .op_base import check_bool

__all__ = ["GradOperation", "HyperMap", "MultitypeFuncGraph"]


def _check_flag(arg: str, value) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"For 'GradOperation', the '{arg}' should be bool, but got {type(value).__name__}")
    return value


class GradOperation:
    """`GradOperation(get_all, get_by_list, sens_param)(fn, weights)` is a function returning
    gradients, as MindSpore 2.10 gives them (measured):

    - neither flag: the gradient of the first input, bare;
    - `get_all`: a tuple with the gradient of every positional Tensor input (Python numbers are
      left out; an integer Tensor's gradient is zeros of its dtype, where MindSpore gives the
      gradient as if it were real, cast to the integer type);
    - `get_by_list`: a tuple with the gradient of every Parameter of `weights` (a ParameterTuple
      or list; a single Parameter gives a bare gradient; None takes a Cell's trainable
      parameters);
    - both: `((input gradients...), (weight gradients...))`;
    - `sens_param`: the last argument is the sensitivity (the output's cotangent; a tuple of
      them for several outputs); else each output's is ones, so several outputs give the
      gradient of their sum.

    A tuple or list argument is differentiated element by element (graphcell.grad's rule;
    MindSpore 2.10 returns no gradient for it in PyNative mode).
    """

    def __init__(self, get_all=False, get_by_list=False, sens_param=False):
        self.get_all = _check_flag("get_all", get_all)
        self.get_by_list = _check_flag("get_by_list", get_by_list)
        self.sens_param = _check_flag("sens_param", sens_param)
        # (fn, weights) -> the gradient function, keyed by identities: `grad_op(net, weights)`
        # inside construct or a loop makes no new traces (a fresh list of the same Parameters
        # is the same key). The entry holds fn and the Parameters, so the ids stay theirs.
        self._made: dict = {}

    def __call__(self, fn, weights=None):
        weights = self._weights(fn, weights)
        key = (id(fn), id(weights) if not isinstance(weights, list) else tuple(id(w) for w in weights))
        made = self._made.get(key)
        if made is None:
            made = self._made[key] = (fn, weights, _GradOf(self, fn, weights))
        return made[2]

    def configuration_key(self):
        return {"get_all": self.get_all, "get_by_list": self.get_by_list, "sens_param": self.sens_param}

    def _weights(self, fn, weights):
        if not self.get_by_list:
            return None
        if weights is None:
            from ..nn.cell import Cell
            if not isinstance(fn, Cell):
                raise ValueError("For 'GradOperation', get_by_list=True needs 'weights' (a ParameterTuple or list of "
                                 "Parameters) when 'fn' is not a Cell.")
            return list(fn.trainable_params())
        if isinstance(weights, Parameter):
            return weights
        if isinstance(weights, (tuple, list)) and all(isinstance(w, Parameter) for w in weights):
            return list(weights)
        raise TypeError(f"For 'GradOperation', 'weights' must be a Parameter, a ParameterTuple or a list of "
                        f"Parameters, but got {type(weights).__name__}.")

    def __repr__(self):
        return (f"GradOperation(get_all={self.get_all}, get_by_list={self.get_by_list}, "
                f"sens_param={self.sens_param})")


def _is_differentiable(arg) -> bool:
    """A floating Tensor, or a tuple/list holding only such (graphcell.grad differentiates
    those as pytrees)."""
    if isinstance(arg, Tensor):
        return arg.dtype.is_floating
    if isinstance(arg, (tuple, list)) and arg:
        return all(_is_differentiable(a) for a in arg)
    return False


class _GradOf:
    """The function GradOperation returns: picks the positions to differentiate from each
    call's arguments and runs one `graphcell.grad` per set of positions (each caches its
    traces)."""

    def __init__(self, op: GradOperation, fn, weights):
        self.op, self.fn, self.weights = op, fn, weights
        self.grads: dict = {}

    def _grad(self, positions):
        g = self.grads.get(positions)
        if g is None:
            from ..api.grad import grad
            position = positions if positions else None
            g = self.grads[positions] = grad(self.fn, position, self.weights, sens_param=self.op.sens_param)
        return g

    def __call__(self, *args):
        op = self.op
        inputs = args[:-1] if op.sens_param else args
        if op.sens_param and not args:
            raise TypeError("For 'GradOperation' with sens_param=True, the last argument must be the sensitivity.")
        if op.get_all:
            slots = [i for i, a in enumerate(inputs) if isinstance(a, (Tensor, tuple, list))]
        elif op.get_by_list:
            slots = []
        else:
            if not inputs:
                raise TypeError("For 'GradOperation', the function needs an input to differentiate.")
            slots = [0]
        diff = tuple(i for i in slots if _is_differentiable(inputs[i]))
        if not diff and self.weights is None:
            grads_in = ()   # nothing differentiable: only integer inputs' zeros remain
        else:
            out = self._grad(diff)(*args)
            if diff and self.weights is not None:
                grads_in, grads_w = out
            elif diff:
                grads_in, grads_w = out, None
            else:
                grads_in, grads_w = (), out
            if len(diff) == 1:
                grads_in = (grads_in,)   # graphcell.grad gives a 1-tuple's gradient bare
        by_slot = dict(zip(diff, grads_in))
        input_grads = tuple(by_slot[i] if i in by_slot else _zeros_like(inputs[i]) for i in slots)
        if op.get_all and op.get_by_list:
            return input_grads, grads_w
        if op.get_by_list:
            return grads_w
        return input_grads if op.get_all else input_grads[0]


def _zeros_like(arg):
    if isinstance(arg, (tuple, list)):
        return type(arg)(_zeros_like(a) for a in arg)
    return F.zeros_like(arg)


# == HyperMap and MultitypeFuncGraph ===========================================================

def _is_sequence(x) -> bool:
    return isinstance(x, (tuple, list))


class HyperMap:
    """Applies a function to the elements of tuples and lists, recursively, in step:
    `HyperMap()(f, (a, b), (c, d))` is `(f(a, c), f(b, d))`; nested tuples map into nested
    tuples (lists give tuples, as MindSpore's). With `ops` given at construction, the call takes
    the sequences only. `reverse` evaluates the elements last to first (the order of side
    effects); the result keeps its order."""

    def __init__(self, ops=None, reverse=False):
        if ops is not None and not callable(ops):
            raise TypeError(f"For 'HyperMap', 'ops' must be callable (a MultitypeFuncGraph or a function), but got "
                            f"{type(ops).__name__}.")
        self.ops = ops
        self.reverse = check_bool("HyperMap", "reverse", reverse)

    def configuration_key(self):
        return {"ops": self.ops, "reverse": self.reverse}

    def __call__(self, *args):
        if self.ops is None:
            if not args or not callable(args[0]):
                raise TypeError("For 'HyperMap' without 'ops', the first argument must be the function to apply.")
            fn, args = args[0], args[1:]
        else:
            fn = self.ops
        if not args:
            raise TypeError("For 'HyperMap', at least one sequence (or Tensor) to map over is required.")
        return self._map(fn, args)

    def _map(self, fn, args):
        kinds = [_is_sequence(a) for a in args]
        if not any(kinds):
            return fn(*args)
        if not all(kinds):
            raise TypeError(f"For 'HyperMap', the arguments must all be tuples/lists or all be leaves at each level, "
                            f"but got {[type(a).__name__ for a in args]}.")
        lengths = {len(a) for a in args}
        if len(lengths) != 1:
            raise ValueError(f"For 'HyperMap', the sequences must have the same length, but got lengths "
                             f"{[len(a) for a in args]}.")
        n = lengths.pop()
        order = range(n - 1, -1, -1) if self.reverse else range(n)
        out = [None] * n
        for i in order:
            out[i] = self._map(fn, [a[i] for a in args])
        return tuple(out)


class Map:
    """Applies a function to the elements of sequences in step, one level deep (HyperMap
    recurses): `Map()(f, (a, b), (c, d))` is `(f(a, c), f(b, d))`, a tuple, stopping at the
    shortest sequence, as 2.10 (measured: Python's map). With `ops` given at construction, the
    call takes the sequences only."""

    def __init__(self, ops=None, reverse=False):
        self.ops, self.reverse = ops, reverse

    def configuration_key(self):
        return {"ops": self.ops, "reverse": self.reverse}

    def __call__(self, *args):
        if self.ops is not None:
            args = (self.ops, *args)
        return tuple(builtins.map(*args))


def _matches(name, value) -> bool:
    if isinstance(name, type):
        return isinstance(value, name)
    key = str(name).lower()
    if key == "tensor":
        return isinstance(value, Tensor)
    if key == "number":
        return isinstance(value, numbers.Number)
    if key == "bool":
        return isinstance(value, bool)
    if key == "int":
        return isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if key == "float":
        return isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral)
    if key in ("string", "str"):
        return isinstance(value, str)
    if key == "tuple":
        return isinstance(value, tuple)
    if key == "list":
        return isinstance(value, list)
    if key == "dict":
        return isinstance(value, dict)
    if key == "none":
        return value is None
    if key == "function":
        return callable(value) and not isinstance(value, Tensor)
    return False   # RowTensor, COOTensor, ...: kinds graphcell does not have


class MultitypeFuncGraph:
    """A function chosen by its arguments' kinds: `@f.register("Tensor", "Number")` adds an
    implementation; a call runs the first registered one whose kinds match ("Tensor",
    "Number", "Bool", "Int", "Float", "String", "Tuple", "List", "Dict", "None", "Function",
    or a Python class)."""

    def __init__(self, name, read_value=False):
        if not isinstance(name, str):
            raise TypeError(f"For 'MultitypeFuncGraph', 'name' must be a str, but got {type(name).__name__}.")
        self.name = name
        self.read_value = read_value
        self.entries: list = []

    def configuration_key(self):
        return {"name": self.name, "entries": [(tuple(map(str, names)), fn) for names, fn in self.entries]}

    def register(self, *type_names):
        def add(fn):
            self.entries.append((tuple(type_names), fn))
            return fn
        return add

    def __call__(self, *args):
        for names, fn in self.entries:
            if len(names) == len(args) and all(_matches(n, a) for n, a in zip(names, args)):
                return fn(*args)
        kinds = ", ".join(type(a).__name__ for a in args)
        registered = "; ".join(", ".join(str(n) for n in names) for names, _ in self.entries) or "none"
        raise TypeError(f"For MultitypeFuncGraph '{self.name}', no implementation takes ({kinds}); registered: "
                        f"{registered}.")

    def __repr__(self):
        return f"MultitypeFuncGraph({self.name!r})"

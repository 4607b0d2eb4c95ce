"""Runtime helpers called by source-transformed code (see `ast_transform`).

Each decides at trace time: a Python (or concrete) condition runs ordinary Python control
flow, and so does a traced Tensor condition whose value the trace knows (an eager grad's:
`concrete.resolved`); any other traced Tensor condition builds a `cond` / `while_loop` node
(`cf_build`). Transformed
code reaches this module through a closure variable named `__gc`:

    x, y = __gc.if_stmt(x > 0, if_true, if_false, __gc.load(locals(), ('x', 'y')),
                        ('x', 'y'), {'y': 15}, ('net.py', 12))

`names` are the variables the statement assigns (passed in and returned by the branch or
body functions), `live` maps those read after the statement to the line of that read, and
`where` is the statement's (file, line).
"""
from __future__ import annotations

import functools
import operator
import os
import sysconfig
import types

from ..tensor import Tensor
from . import cf_build
from .cf_build import UNSET, ControlFlowError, Undefined, Where, is_traced  # noqa: F401
from .concrete import resolved
from .graph_raise import assert_, is_user_raise, raise_in_branch, user_raise  # noqa: F401


def _where(what: str, where) -> Where:
    return Where(what, where[0], where[1])


def load(scope: dict, names: tuple) -> tuple:
    """The current values of `names` (an `Undefined` for those not assigned yet)."""
    return tuple(scope[n] if n in scope else Undefined(n) for n in names)


def if_stmt(test, true_fn, false_fn, values, names, live, where):
    test = resolved(test)
    if not is_traced(test):
        return true_fn(*values) if test else false_fn(*values)
    try:
        return cf_build.cond(test, _side(true_fn, True), _side(false_fn, False), tuple(values), names=names,
                             live=dict(live), where=_where("if", where))
    except BaseException as e:
        side = getattr(e, _RAISED_ON, None)
        if side is None or not is_user_raise(e):
            raise
    # One branch raises the user's error: raised by the runs that take it (frontend/graph_raise.py)
    raise_in_branch(test if side else not_(test), true_fn if side else false_fn, values, _where("if", where))
    return (false_fn if side else true_fn)(*values)


_RAISED_ON = "_graphcell_raised_on"   # which branch of the innermost tensor `if` an error left


def _side(fn, side: bool):
    @functools.wraps(fn)   # (the subgraph is named after the branch function)
    def branch(*values):
        try:
            return fn(*values)
        except BaseException as e:
            if is_user_raise(e):
                setattr(e, _RAISED_ON, side)
            raise
    return branch


def while_stmt(cond_fn, body_fn, values, names, live, where):
    values = tuple(values)
    while True:
        test = resolved(_probe(cond_fn, values))
        if is_traced(test):  # from here on the loop is a graph loop
            return cf_build.while_loop(cond_fn, body_fn, values, names=names, live=dict(live),
                                       where=_where("while", where))
        if not test:
            return values
        values = tuple(body_fn(*values))


def _probe(fn, values):
    """`fn(*values)` evaluated in a scratch trace: whether a loop condition is a traced Tensor
    is decided without leaving its (then unused) nodes in the enclosing graph."""
    from .tracer import Tracer, current_tracer
    if current_tracer() is None:
        return fn(*values)
    with Tracer("probe", concrete=True):  # (values it captures from an eager grad's trace resolve)
        return fn(*values)


def for_stmt(iterable, body_fn, test_fn, values, names, live, where):
    """`for` over a Python iterable runs in Python (a static range unrolls at trace time);
    over a `TensorRange` it is a graph loop. `test_fn` (break/return flags) stops the loop,
    or, once it is a traced Tensor, guards each remaining iteration with a cond."""
    values = tuple(values)
    if isinstance(iterable, TensorRange):
        return iterable.loop(body_fn, test_fn, values, names, dict(live), _where("for", where))
    for item in iterable:
        if test_fn is not None:
            go_on = resolved(test_fn(*values))
            if is_traced(go_on):
                values = cf_build.cond(go_on, lambda *v, item=item: body_fn(item, *v), lambda *v: v, values,
                                       names=names, live=dict(live), where=_where("for", where))
                continue
            if not go_on:
                break
        values = tuple(body_fn(item, *values))
    return values


class TensorRange:
    """`range(start, stop, step)` with a traced Tensor bound (step a Python int)."""

    def __init__(self, start, stop, step):
        self.start, self.stop, self.step = start, stop, step

    def loop(self, body_fn, test_fn, values, names, live, where):
        from ..ops import functional as F
        dtype = next(b.dtype for b in (self.start, self.stop) if isinstance(b, Tensor))
        stop, step = self.stop, self.step

        def cond(i, *v):
            ok = F.less(i, stop) if step > 0 else F.greater(i, stop)
            return ok if test_fn is None else and_(ok, lambda: test_fn(*v))

        def body(i, *v):
            return (F.add(i, step),) + tuple(body_fn(i, *v))
        init = (F.as_tensor(self.start, dtype),) + tuple(values)
        out = cf_build.while_loop(cond, body, init, names=("<range index>",) + tuple(names), live=live,
                                  where=where)
        return tuple(out[1:])


def range_(*args):
    """`range(...)` in a transformed `for`: a Python range, or a TensorRange for traced bounds."""
    args = [resolved(a) for a in args]
    if not any(is_traced(a) for a in args):
        return range(*[int(a) for a in args])
    start, stop, step = (0, args[0], 1) if len(args) == 1 else (tuple(args) + (1,))[:3]
    if is_traced(step) or not isinstance(step, int) or step == 0:
        raise ControlFlowError("range() with a traced Tensor bound needs a nonzero Python int step")
    for bound in (start, stop):
        if isinstance(bound, Tensor) and not bound.dtype.is_integer:
            raise ControlFlowError(f"range() with a {bound.dtype} Tensor bound: range takes integers "
                                   "(cast the bound with .astype(graphcell.int32))")
    return TensorRange(start, stop, step)


# -- boolean operators (Python semantics for Python values) -----------------------------------------

def _bool_tensor(x):
    from ..ops import functional as F
    from .. import dtype as mstype
    x = F.as_tensor(x)
    return x if x.dtype is mstype.bool_ else F.not_equal(x, F.zeros_like(x))


def not_(x):
    x = resolved(x)
    if is_traced(x):
        from ..ops import functional as F
        return F.logical_not(_bool_tensor(x))
    return not x


def and_(a, b_thunk):
    truth = resolved(a)
    if is_traced(truth):
        return _pick(a, b_thunk(), when_true="b")
    return b_thunk() if truth else a


def or_(a, b_thunk):
    truth = resolved(a)
    if is_traced(truth):
        return _pick(a, b_thunk(), when_true="a")
    return a if truth else b_thunk()


def _pick(a, b, when_true: str):
    """Python's `a and b` / `a or b` for a traced `a`: one of the operands, chosen by a's truth
    (`x.sum() or x.max()` is a number, not a bool). An operand that is not a number (None, a
    string) takes part by its truth only."""
    from ..ops import functional as F
    if not isinstance(b, (Tensor, int, float)):  # (bool is an int)
        b = bool(b)
    truth = _bool_tensor(a)
    return F.select(truth, b, a) if when_true == "b" else F.select(truth, a, b)


_COMPARISONS = {
    "Lt": operator.lt, "LtE": operator.le, "Gt": operator.gt, "GtE": operator.ge, "Eq": operator.eq,
    "NotEq": operator.ne, "Is": operator.is_, "IsNot": operator.is_not,
    "In": lambda a, b: a in b, "NotIn": lambda a, b: a not in b,
}


def compare_chain(left, ops, right_thunks):
    """`left op0 r0 op1 r1 ...`: `left op0 r0 and r0 op1 r1 and ...`, each operand evaluated
    once and only while the result so far is not a Python false."""
    result, prev = None, left
    for op, thunk in zip(ops, right_thunks):
        if result is not None:
            truth = resolved(result)
            if not is_traced(truth) and not truth:
                return result
        right = thunk()
        this = _COMPARISONS[op](prev, right)
        result = this if result is None else and_(result, lambda this=this: this)
        prev = right
    return result


def number_(kind, x):
    """`int(x)` / `float(x)` / `bool(x)`: of a one-element traced Tensor whose value the trace
    does not know (graph mode), a number of the graph (a GraphScalar, handed back from a jit
    as a Python int, float or bool, as 2.10 does); otherwise Python's."""
    if kind in (int, float, bool) and is_traced(x) and x.size == 1 and is_traced(resolved(x)):
        from .. import dtype as mstype
        from ..graph_scalar import mark
        x = x.reshape(())
        if kind is bool:
            return mark(_bool_tensor(x))
        target = mstype.int64 if kind is int else mstype.float32
        return mark(x if x.dtype is target else x.astype(target))
    return kind(x)


def isinstance_(builtin, value, classes):
    """`isinstance(value, classes)`: a number of the graph (GraphScalar: `x.sum().item()`,
    `int(t)`) is an instance of its Python type, as 2.10's variable scalars are (measured:
    isinstance(x.sum().item(), float) is True), and not a Tensor."""
    from ..graph_scalar import GraphScalar
    if builtin is isinstance and type(value) is GraphScalar:
        return issubclass(value.python_type(), classes)
    return builtin(value, classes)


def not_any(*flags):
    """`not (f1 or f2 or ...)` over break/continue/return flags, Python where possible."""
    from ..ops import functional as F
    flags = [resolved(f) for f in flags]
    traced = [f for f in flags if is_traced(f)]
    if any(f for f in flags if not is_traced(f)):
        return False
    if not traced:
        return True
    acc = _bool_tensor(traced[0])
    for f in traced[1:]:
        acc = F.logical_or(acc, _bool_tensor(f))
    return F.logical_not(acc)


def ifexp(test, true_thunk, false_thunk, where):
    """`a if test else b`."""
    test = resolved(test)
    if not is_traced(test):
        return true_thunk() if test else false_thunk()
    return cf_build.cond(test, lambda: true_thunk(), lambda: false_thunk(), (), where=_where("if", where))


def comp_test(value, where):
    """The `if` filter of a comprehension: must be a Python value."""
    value = resolved(value)
    if is_traced(value):
        raise ControlFlowError(
            f"{where[0]}:{where[1]}: a comprehension's `if` filter has a traced Tensor condition: the "
            "length of the resulting list would depend on tensor values, which graph mode cannot "
            "compile. Compute every element and combine them with ops.select (a mask) instead, or "
            "filter outside the compiled function.")
    return value


def _library_dirs() -> tuple:
    paths = sysconfig.get_paths()
    return tuple(os.path.realpath(paths[k]) for k in ("stdlib", "purelib", "platlib") if k in paths)


_LIBRARY_DIRS = _library_dirs()


def callee(fn):
    """What a call in converted code calls: a user function or method converted in turn (as
    MindSpore's graph mode compiles what construct calls, so a helper's tensor `if` is graph
    control flow too); builtins, classes, Cells and library code as they are. A helper with
    syntax graph mode cannot convert (try, yield) runs as written."""
    target = fn.__func__ if isinstance(fn, types.MethodType) else fn
    if not isinstance(target, types.FunctionType) or target.__code__ in _AS_WRITTEN:
        return fn
    from .ast_transform import UnsupportedSyntaxError, converted
    try:
        new = fn if os.path.realpath(target.__code__.co_filename).startswith(_LIBRARY_DIRS) else converted(fn)
    except UnsupportedSyntaxError:
        new = fn
    if new is fn:  # (graphcell's own functions among them: the common case, decided once)
        _AS_WRITTEN.add(target.__code__)
    return new


_AS_WRITTEN: set = set()  # code objects that callee runs as they are


def retval(value, returned=True, falls_off=None):
    """The function's result after early-return lowering (None if nothing was returned).
    `falls_off` is (file, line, name) of a function that can end without a `return`: if
    whether it returned depends on a tensor, some inputs would give None and others a
    Tensor, which one graph cannot."""
    if falls_off is not None and is_traced(resolved(returned)):
        file, line, name = falls_off
        raise ControlFlowError(
            f"{file}:{line}: {name!r} returns a value on some paths and falls off its end (returning "
            "None) on others, depending on a tensor condition; a compiled function has one result "
            "for every input: end it with a return")
    return None if value is UNSET else value


def print_(*args, **kwargs):
    """Python's print in converted code: inside a graph, when the graph runs (ops/graph_print.py)."""
    from ..ops.graph_print import graph_print
    graph_print(args, kwargs)


def format_value(value):
    """A value formatted into an f-string or str.format: a traced Tensor waits for run time."""
    from ..ops.graph_print import format_value
    return format_value(value)


def deferred_text(text):
    from ..ops.graph_print import deferred_text
    return deferred_text(text)

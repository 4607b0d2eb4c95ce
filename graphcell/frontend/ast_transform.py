"""The source transform that lets `if`/`while`/`for` on traced Tensors compile.

Tracing runs Python once and cannot see both sides of `if x > 0:`; like MindSpore's
graph-mode parser, graphcell rewrites the function's source (`converted(fn)`, applied when
`construct` or a jit/grad function is traced; the eager path runs the original):

    def construct(self, x):                  def construct(self, x):
        if x.sum() > 0:                          def __gcfn_if_true_3(x):
            x = x * 2                                x = x * 2
        return x                                     return (x,)
                                                 def __gcfn_if_false_3(x):
                                                     return (x,)
                                                 (x,) = __gc.if_stmt(x.sum() > 0, __gcfn_if_true_3,
                                                     __gcfn_if_false_3, __gc.load(locals(), ('x',)), ...)
                                                 return x

The runtime helpers (`cf_runtime`) decide at trace time: Python conditions run Python
control flow; traced ones build cond/while nodes. Two passes do the rewrite:
1. `_Escapes`: `break`/`continue`/early `return` inside control flow become flag variables
   (`__gc_brk_1 = True`), the statements after them are guarded by `if not flags:`, and loop
   conditions also test the flags;
2. `_Convert`: `if`/`while`/`for range(...)` (and loops with flags) become nested functions
   over the variables they assign plus a runtime call; `a if c else b`, `and`/`or`/`not`
   and comprehension filters become helper calls too.
Line numbers are the user's (the code is compiled with the original file name and lines),
closures and globals are the original ones, and results are cached per code object.
"""
from __future__ import annotations

import ast
import builtins
import inspect
import itertools
import os
import textwrap
import types

from .tracer import GraphModeError

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_SKIP = object()
_CACHE: dict = {}              # original code object -> transformed code object or _SKIP
_GENERATED: set = set()        # code objects made here (never transformed again)
RUNTIME = "__gc"               # the closure variable holding cf_runtime
FN_PREFIX = "__gcfn_"          # generated branch/body functions
RETF, RETV = "__gc_retf", "__gc_retv"
_BUILTINS = frozenset(dir(builtins))
_NUMBER_TYPES = ("int", "float", "bool")
_NUMBER_AWARE = _NUMBER_TYPES + ("isinstance",)   # builtins that see a graph's number as a number


class UnsupportedSyntaxError(GraphModeError):
    """A construct graph mode cannot compile; the message names file, line and a rewrite."""


def converted(fn):
    """The graph-mode version of a function or bound method, or `fn` itself when it needs no
    transform (no control flow), has no source, or is graphcell's own code."""
    if isinstance(fn, types.MethodType):
        func = converted(fn.__func__)
        return fn if func is fn.__func__ else types.MethodType(func, fn.__self__)
    if not isinstance(fn, types.FunctionType):
        return fn
    code = fn.__code__
    new_code = _CACHE.get(code)
    if new_code is None:
        try:
            new_code = _transform(fn)
        except UnsupportedSyntaxError as e:
            new_code = e
        _CACHE[code] = new_code
    if isinstance(new_code, UnsupportedSyntaxError):
        if _runs_as_python():   # an eager grad runs the Python as 2.10's PYNATIVE does: `try` works
            return fn
        raise new_code
    if new_code is _SKIP:
        return fn
    cells = dict(zip(code.co_freevars, fn.__closure__ or ()))
    cells[RUNTIME] = _runtime_cell()
    new = types.FunctionType(new_code, fn.__globals__, fn.__name__, fn.__defaults__,
                             tuple(cells[n] for n in new_code.co_freevars))
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__qualname__ = fn.__qualname__
    new.__wrapped__ = fn
    return new


def _runs_as_python() -> bool:
    from .concrete import runs_as_python
    from .tracer import current_tracer
    tracer = current_tracer()
    return tracer is not None and runs_as_python(tracer)


def _runtime_cell():
    from . import cf_runtime
    return types.CellType(cf_runtime)


def _transform(fn):
    code = fn.__code__
    if (code in _GENERATED or code.co_filename.startswith(_PACKAGE_DIR) or code.co_name.startswith(FN_PREFIX)
            or code.co_name == "<lambda>"):
        return _SKIP
    try:
        lines, start = inspect.getsourcelines(fn)
        filename = inspect.getsourcefile(fn) or code.co_filename
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError, IndentationError):
        return _SKIP  # no source (REPL, exec): run as written
    fdef = tree.body[0] if tree.body else None
    if not isinstance(fdef, ast.FunctionDef) or fdef.name != code.co_name:
        return _SKIP
    ast.increment_lineno(tree, start - 1)
    _check_supported(fdef, filename)
    if not _needs_transform(fdef):
        return _SKIP
    fdef.decorator_list = []
    owner = _owner_class(fn)
    if owner:
        _Mangle(owner).visit(fdef)
    counter = itertools.count(1)
    _Escapes(counter, filename).function(fdef)
    _annotate_live(fdef.body, {})
    fdef = _Convert(filename, counter, fdef).visit(fdef)
    # The factory is only compiled, never run. Defining `fdef` inside it makes the function's
    # own name a local of the factory, so a recursive module-level function would read itself
    # as a closure cell nobody fills; `global` keeps that name the module's, as in the original.
    own_name = [] if fdef.name in code.co_freevars else [ast.Global(names=[fdef.name])]
    factory = ast.FunctionDef(
        name="__gc_factory__",
        args=ast.arguments(posonlyargs=[], args=[ast.arg(RUNTIME)] + [ast.arg(n) for n in code.co_freevars],
                           kwonlyargs=[], kw_defaults=[], defaults=[]),
        body=own_name + [fdef, ast.Return(ast.Name(fdef.name, ast.Load()))], decorator_list=[], returns=None)
    ast.copy_location(factory, fdef)
    module = ast.fix_missing_locations(ast.Module(body=[factory], type_ignores=[]))
    compiled = compile(module, filename, "exec")
    factory_code = next(c for c in compiled.co_consts if isinstance(c, types.CodeType))
    new_code = next(c for c in factory_code.co_consts
                    if isinstance(c, types.CodeType) and c.co_name == code.co_name)
    _register(new_code)
    return new_code


def _register(code):
    _GENERATED.add(code)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            _register(c)


def _owner_class(fn) -> str:
    parts = fn.__qualname__.split(".")
    return parts[-2] if len(parts) >= 2 and parts[-2] != "<locals>" else ""


# -- checks ----------------------------------------------------------------------------------------

def _own_scope(node):
    """Nodes of `node`'s own scope (not descending into nested functions, lambdas, classes)."""
    todo = list(ast.iter_child_nodes(node))
    while todo:
        n = todo.pop()
        yield n
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(n))


def _check_supported(fdef, filename):
    name = fdef.name
    for n in ast.walk(fdef):
        if isinstance(n, (ast.Yield, ast.YieldFrom)):
            raise UnsupportedSyntaxError(
                f"{filename}:{n.lineno}: `yield` in {name!r}: graph mode cannot compile a generator. "
                "Return a tuple or list of the values instead.")
        if isinstance(n, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            raise UnsupportedSyntaxError(
                f"{filename}:{n.lineno}: `try` statement in {name!r}: graph mode traces the function "
                "once, so an exception a Tensor value would raise is never seen and the `except` branch "
                "cannot be compiled. Move the try/except outside the compiled function (around the "
                "call), or test the condition explicitly with `if`/ops.select.")
        if isinstance(n, (ast.AsyncFunctionDef, ast.Await)):
            raise UnsupportedSyntaxError(f"{filename}:{n.lineno}: async code in {name!r} cannot be compiled")


def _needs_transform(fdef) -> bool:
    """Control flow to lower, or a call of something other than a builtin (the function it
    reaches may hold tensor control flow: calls are routed through `cf_runtime.callee`)."""
    for n in ast.walk(fdef):
        if isinstance(n, (ast.If, ast.While, ast.For, ast.IfExp, ast.BoolOp, ast.Assert, ast.Raise)):
            return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in _NUMBER_AWARE:
            return True   # int(t) of a traced Tensor is a number of the graph; isinstance(n, float) of one
        if isinstance(n, ast.Call) and not (isinstance(n.func, ast.Name) and n.func.id in _BUILTINS
                                            and n.func.id != "print"):
            return True
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not):
            return True
        if isinstance(n, ast.Compare) and len(n.ops) > 1:
            return True
        if isinstance(n, ast.comprehension) and n.ifs:
            return True
        if isinstance(n, ast.JoinedStr) and any(isinstance(v, ast.FormattedValue) for v in n.values):
            return True   # an f-string may format a traced Tensor (printed at run time)
    return False


class _Mangle(ast.NodeTransformer):
    """Private names (`self.__x`) as the class body would have mangled them: the transformed
    code is compiled outside the class."""

    def __init__(self, owner: str):
        self.prefix = "_" + owner.lstrip("_")

    def _mangled(self, name: str) -> str:
        if name.startswith("__") and not name.endswith("__") and self.prefix != "_":
            return self.prefix + name
        return name

    def visit_Attribute(self, node):
        self.generic_visit(node)
        node.attr = self._mangled(node.attr)
        return node

    def visit_Name(self, node):
        node.id = self._mangled(node.id)
        return node


# -- helpers to build AST --------------------------------------------------------------------------

def _name(id_: str, store: bool = False):
    return ast.Name(id_, ast.Store() if store else ast.Load())


def _rt(attr: str):
    return ast.Attribute(_name(RUNTIME), attr, ast.Load())


def _call(attr: str, *args):
    return ast.Call(_rt(attr), list(args), [])


def _assign(name: str, value):
    return ast.Assign([_name(name, True)], value)


def _const(v):
    return ast.Constant(v)


def _thunk(expr):
    return ast.Lambda(ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]), expr)


def _fn(name: str, params: list, body: list):
    args = ast.arguments(posonlyargs=[], args=[ast.arg(p) for p in params], kwonlyargs=[], kw_defaults=[],
                         defaults=[])
    return ast.FunctionDef(name=name, args=args, body=body or [ast.Pass()], decorator_list=[], returns=None)


def _tuple(names: list, store: bool = False):
    return ast.Tuple([_name(n, store) for n in names], ast.Store() if store else ast.Load())


# -- pass 1: break / continue / return become flags --------------------------------------------------

class _Loop:
    def __init__(self, n: int):
        self.brk, self.cont = f"__gc_brk_{n}", f"__gc_cont_{n}"
        self.used_brk = self.used_cont = False


def _has_early_return(stmts) -> bool:
    """A `return` nested in a compound statement (not in a nested function)."""
    for s in stmts:
        if isinstance(s, (ast.Return, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if any(isinstance(n, ast.Return) for n in _own_scope(s)):
            return True
    return False


def _always_returns(stmts) -> bool:
    """Whether every path through `stmts` ends in a `return` (so the function cannot fall off
    its end and return None)."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, ast.Return):
        return True
    if isinstance(last, ast.If):
        return _always_returns(last.body) and _always_returns(last.orelse)
    if isinstance(last, ast.With):
        return _always_returns(last.body)
    if isinstance(last, ast.While) and isinstance(last.test, ast.Constant) and last.test.value is True:
        return not any(isinstance(n, ast.Break) for n in _loop_own_scope(last.body))  # left by return only
    return False


def _loop_own_scope(stmts):
    """The nodes of a loop body outside nested loops and functions (where its `break`s are)."""
    todo = list(stmts)
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (ast.While, ast.For, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                 ast.Lambda)):
            todo.extend(ast.iter_child_nodes(node))


class _Escapes:
    """Lowers escapes to flags and guards (one function scope; nested defs get their own)."""

    def __init__(self, counter, filename: str):
        self.counter, self.filename = counter, filename
        self.ret = False

    def function(self, fdef):
        self.ret = _has_early_return(fdef.body)
        falls_off = None if _always_returns(fdef.body) else (self.filename, fdef.lineno, fdef.name)
        body, _ = self.block(fdef.body, None)
        if self.ret:
            first, last = fdef.body[0], fdef.body[-1]
            head = [ast.copy_location(_assign(RETF, _const(False)), first),
                    ast.copy_location(_assign(RETV, _rt("UNSET")), first)]
            result = _call("retval", _name(RETV), _name(RETF), _const(falls_off))
            body = head + body + [ast.copy_location(ast.Return(result), last)]
        fdef.body = body

    def block(self, stmts, loop):
        out, flags = [], set()
        for i, s in enumerate(stmts):
            new, f = self.stmt(s, loop)
            out.extend(new)
            flags |= f
            if isinstance(s, (ast.Break, ast.Continue)) or isinstance(s, ast.Return) and self.ret:
                break  # the rest of the block is dead code
            if f and i + 1 < len(stmts):
                rest, f2 = self.block(stmts[i + 1:], loop)
                if rest:
                    guard = ast.If(_call("not_any", *[_name(x) for x in sorted(f)]), rest, [])
                    out.append(ast.copy_location(guard, stmts[i + 1]))
                flags |= f2
                break
        return out, flags

    def stmt(self, s, loop):
        at = lambda *nodes: [ast.copy_location(n, s) for n in nodes]  # noqa: E731
        if isinstance(s, ast.Break) and loop is not None:
            loop.used_brk = True
            return at(_assign(loop.brk, _const(True))), {loop.brk}
        if isinstance(s, ast.Continue) and loop is not None:
            loop.used_cont = True
            return at(_assign(loop.cont, _const(True))), {loop.cont}
        if isinstance(s, ast.Return) and self.ret:
            value = s.value if s.value is not None else _const(None)
            return at(_assign(RETF, _const(True)), _assign(RETV, value)), {RETF}
        if isinstance(s, ast.If):
            s.body, fb = self.block(s.body, loop)
            s.orelse, fo = self.block(s.orelse, loop)
            s.body = s.body or at(ast.Pass())
            return [s], fb | fo
        if isinstance(s, ast.With):
            s.body, f = self.block(s.body, loop)
            return [s], f
        if isinstance(s, (ast.While, ast.For)):
            return self.loop(s, loop)
        if isinstance(s, ast.FunctionDef):
            _Escapes(self.counter, self.filename).function(s)
        return [s], set()

    def loop(self, s, outer):
        at = lambda *nodes: [ast.copy_location(n, s) for n in nodes]  # noqa: E731
        lp = _Loop(next(self.counter))
        body, f = self.block(s.body, lp)
        out_flags = f - {lp.brk, lp.cont}
        pre = []
        if lp.used_cont:
            body = at(_assign(lp.cont, _const(False))) + body
            pre += at(_assign(lp.cont, _const(False)))
        if lp.used_brk:
            pre += at(_assign(lp.brk, _const(False)))
        s.body = body or at(ast.Pass())
        stop = ([lp.brk] if lp.used_brk else []) + ([RETF] if RETF in f else [])
        s._gc_stop = stop
        if isinstance(s, ast.While) or stop or _is_range(s.iter):
            s._gc_convert = True
        post = []
        if s.orelse and getattr(s, "_gc_convert", False):
            orelse, fo = self.block(s.orelse, outer)
            out_flags |= fo
            skip = [x for x in (lp.brk if lp.used_brk else None, RETF if RETF in f else None) if x]
            post = at(ast.If(_call("not_any", *[_name(x) for x in skip]), orelse, [])) if skip else orelse
            s.orelse = []
        elif s.orelse:
            s.orelse, fo = self.block(s.orelse, outer)
            out_flags |= fo
        return pre + [s] + post, out_flags


def _is_range(node) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range"


# -- liveness: which names are read after a statement -------------------------------------------------

def _reads(nodes) -> dict:
    out: dict = {}
    for node in nodes:
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                line = getattr(n, "lineno", 0)
                out[n.id] = min(out.get(n.id, line), line) if n.id in out else line
    return out


def _live_reads(stmts, after: dict) -> dict:
    """{name: line} of the names `stmts` read before assigning them, and those of `after` (read
    once `stmts` are done) that `stmts` do not surely reassign: `t = x + 1` after an `if`
    that assigned t does not read that t."""
    out: dict = {}
    killed = _flow(stmts, out, set())
    return _merge(out, {k: v for k, v in after.items() if k not in killed})


def _flow(stmts, out: dict, killed: set) -> set:
    """Adds to `out` the reads of names not yet `killed` (plainly assigned on every path so
    far); returns the names killed after `stmts`. Loops and other compound statements count
    all their reads and kill nothing (a conservative reading)."""
    def read(*nodes):
        for name, line in _reads(nodes).items():
            if name not in killed and name not in out:
                out[name] = line
    for s in stmts:
        if isinstance(s, ast.If):
            read(s.test)
            killed = killed | (_flow(s.body, out, set(killed)) & _flow(s.orelse, out, set(killed)))
        elif isinstance(s, ast.Assign) or isinstance(s, ast.AnnAssign) and s.value is not None:
            read(s)
            for target in (s.targets if isinstance(s, ast.Assign) else [s.target]):
                killed = killed | {n.id for n in ast.walk(target)
                                   if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        else:
            read(s)
    return killed


def _merge(a: dict, b: dict) -> dict:
    out = dict(b)
    for k, v in a.items():
        out[k] = min(v, out.get(k, v))
    return out


def _annotate_live(stmts, after: dict, wrap: dict | None = None):
    """Stores on each if/while/for `_gc_live`: {name: line of a later read}. Later means:
    further down the block or after the enclosing statements, and, inside a loop, also the
    statements before it in the loop body and the loop test (the next iteration runs them
    first). `wrap` (None outside loops) carries those earlier reads down."""
    for i, s in enumerate(stmts):
        live = _live_reads(stmts[i + 1:], after)
        w = None if wrap is None else _merge(wrap, _reads(stmts[:i]))
        if w is not None:
            live = _merge(live, w)
        if isinstance(s, ast.If):
            s._gc_live = live
            sub = None if w is None else _merge(w, _reads([s.test]))
            _annotate_live(s.body, live, sub)
            _annotate_live(s.orelse, live, sub)
        elif isinstance(s, (ast.While, ast.For)):
            s._gc_live = live
            head = _reads([s.test]) if isinstance(s, ast.While) else {}
            _annotate_live(s.body, _merge(live, head), _merge(w or {}, head))
            _annotate_live(s.orelse, live, w)
        elif isinstance(s, ast.With):
            _annotate_live(s.body, live, w)
        elif isinstance(s, ast.FunctionDef):
            _annotate_live(s.body, {})


# -- pass 2: statements become functions plus runtime calls ------------------------------------------

def _stored_name(n) -> str | None:
    """The variable a store rebinds: `y = ...`, and `y[i] = ...` (item assignment gives the
    Tensor a new value, so a branch or loop that does it outputs y)."""
    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
        return n.id
    if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store):
        base = n.value
        while isinstance(base, ast.Subscript):
            base = base.value
        return base.id if isinstance(base, ast.Name) else None   # self.p[i] = v: a state write
    return None


def _assigned(stmts) -> list:
    """Names a block assigns in its own scope, in order of first assignment."""
    out: list = []

    def add(name):
        if name not in out and not name.startswith(FN_PREFIX):
            out.append(name)

    for s in stmts:
        scoped = isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        for n in [s] + ([] if scoped else list(_own_scope(s))):
            stored = _stored_name(n)
            if stored is not None:
                add(stored)
            elif isinstance(n, (ast.FunctionDef, ast.ClassDef)):
                add(n.name)
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                for a in n.names:
                    add((a.asname or a.name).split(".")[0])
    return sorted(out, key=lambda x: _first_line(stmts, x))


def _first_line(stmts, name) -> int:
    for s in stmts:
        for n in ast.walk(s):
            if _stored_name(n) == name:
                return getattr(n, "lineno", 0)
    return 0


class _Convert(ast.NodeTransformer):
    def __init__(self, filename: str, counter, top):
        self.filename, self.counter, self.top = filename, counter, top
        self.declared: list[set] = []   # global/nonlocal names per function scope

    def where(self, node):
        return _const((self.filename, node.lineno))

    def check_declared(self, names, node, what):
        declared = self.declared[-1] if self.declared else set()
        bad = [n for n in names if n in declared]
        if bad:
            raise UnsupportedSyntaxError(
                f"{self.filename}:{node.lineno}: {bad[0]!r} is declared global/nonlocal and assigned inside "
                f"an `{what}` that graph mode compiles into a function; assign it outside the `{what}`")

    def visit_FunctionDef(self, node):
        declared = set()
        for n in _own_scope(node):
            if isinstance(n, (ast.Global, ast.Nonlocal)):
                declared.update(n.names)
        self.declared.append(declared)
        self.generic_visit(node)
        self.declared.pop()
        return node

    def visit_ClassDef(self, node):
        return node  # a class body is its own world; leave it as written

    def visit_Lambda(self, node):
        self.generic_visit(node)
        return node

    def _names_call(self, node, names):
        live = tuple((n, node._gc_live[n]) for n in names if n in getattr(node, "_gc_live", {}))
        return [_call("load", ast.Call(_name("locals"), [], []), _const(tuple(names))), _const(tuple(names)),
                _const(live), self.where(node)]

    def _result(self, node, names, call):
        stmt = ast.Assign([_tuple(names, True)], call) if names else ast.Expr(call)
        # On the statement's header line only: spanning its whole block, the call ran "at" the
        # block's last line, and the cond / while_loop node was dumped with that line.
        stmt.lineno, stmt.col_offset = node.lineno, node.col_offset
        stmt.end_lineno, stmt.end_col_offset = node.lineno, node.col_offset
        return stmt

    def _place(self, node, *nodes):
        return [ast.copy_location(n, node) for n in nodes]

    def visit_If(self, node):
        self.generic_visit(node)
        names = _assigned(node.body + node.orelse)
        self.check_declared(names, node, "if")
        n = next(self.counter)
        t_name, f_name = f"{FN_PREFIX}if_true_{node.lineno}_{n}", f"{FN_PREFIX}if_false_{node.lineno}_{n}"
        ret = ast.Return(_tuple(names))
        t_fn = _fn(t_name, names, node.body + [ret])
        f_fn = _fn(f_name, names, node.orelse + [ast.Return(_tuple(names))])
        call = _call("if_stmt", node.test, _name(t_name), _name(f_name), *self._names_call(node, names))
        return self._place(node, t_fn, f_fn) + [self._result(node, names, call)]

    def visit_While(self, node):
        self.generic_visit(node)
        names = _assigned(node.body)
        self.check_declared(names, node, "while")
        n = next(self.counter)
        c_name, b_name = f"{FN_PREFIX}while_cond_{node.lineno}_{n}", f"{FN_PREFIX}while_body_{node.lineno}_{n}"
        test = node.test
        stop = getattr(node, "_gc_stop", [])
        if stop:
            test = _call("and_", _call("not_any", *[_name(x) for x in stop]), _thunk(test))
        c_fn = _fn(c_name, names, [ast.Return(test)])
        b_fn = _fn(b_name, names, node.body + [ast.Return(_tuple(names))])
        call = _call("while_stmt", _name(c_name), _name(b_name), *self._names_call(node, names))
        return self._place(node, c_fn, b_fn) + [self._result(node, names, call)]

    def visit_For(self, node):
        self.generic_visit(node)
        if not getattr(node, "_gc_convert", False):
            return node
        item = "__gc_item"
        names = _assigned([ast.Assign([node.target], _const(None))] + node.body)
        self.check_declared(names, node, "for")
        n = next(self.counter)
        b_name = f"{FN_PREFIX}for_body_{node.lineno}_{n}"
        bind_target = ast.copy_location(ast.Assign([node.target], _name(item)), node)
        b_fn = _fn(b_name, [item] + names, [bind_target] + node.body + [ast.Return(_tuple(names))])
        defs = [b_fn]
        test = _const(None)
        stop = getattr(node, "_gc_stop", [])
        if stop:
            t_name = f"{FN_PREFIX}for_test_{node.lineno}_{n}"
            defs.append(_fn(t_name, names, [ast.Return(_call("not_any", *[_name(x) for x in stop]))]))
            test = _name(t_name)
        iterable = node.iter
        if _is_range(iterable) and not iterable.keywords:
            iterable = _call("range_", *iterable.args)
        call = _call("for_stmt", iterable, _name(b_name), test, *self._names_call(node, names))
        return self._place(node, *defs) + [self._result(node, names, call)]

    def visit_IfExp(self, node):
        self.generic_visit(node)
        return ast.copy_location(_call("ifexp", node.test, _thunk(node.body), _thunk(node.orelse),
                                       self.where(node)), node)

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        if any(isinstance(n, (ast.NamedExpr, ast.Yield, ast.Await)) for n in ast.walk(node)):
            return node
        helper = "and_" if isinstance(node.op, ast.And) else "or_"
        expr = node.values[-1]
        for value in reversed(node.values[:-1]):
            expr = _call(helper, value, _thunk(expr))
        return ast.copy_location(expr, node)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return ast.copy_location(_call("not_", node.operand), node)
        return node

    def visit_Compare(self, node):
        # `a < b < c` is `a < b and b < c` (b evaluated once): with traced operands, an `and`
        # of two Tensors (cf_runtime.and_), not the bool() of the first
        self.generic_visit(node)
        if len(node.ops) == 1 or any(isinstance(n, (ast.NamedExpr, ast.Yield, ast.Await)) for n in ast.walk(node)):
            return node
        ops = _const(tuple(type(op).__name__ for op in node.ops))
        rights = ast.Tuple([_thunk(c) for c in node.comparators], ast.Load())
        return ast.copy_location(_call("compare_chain", node.left, ops, rights), node)

    def visit_Raise(self, node):
        # tagged, so a tensor `if` can raise it at run time (frontend/graph_raise.py)
        self.generic_visit(node)
        if node.exc is not None:
            node.exc = ast.copy_location(_call("user_raise", node.exc), node.exc)
        return node

    def visit_Assert(self, node):
        self.generic_visit(node)
        message = _const(None) if node.msg is None else _thunk(node.msg)
        return ast.copy_location(ast.Expr(_call("assert_", node.test, message, self.where(node))), node)

    def visit_comprehension(self, node):
        self.generic_visit(node)
        node.ifs = [ast.copy_location(_call("comp_test", c, self.where(c)), c) for c in node.ifs]
        return node

    def visit_JoinedStr(self, node):
        # f"x={x}": a traced Tensor's value is printed at run time (graph_print's DeferredText)
        for v in node.values:
            if isinstance(v, ast.FormattedValue):
                v.value = _call("format_value", self.visit(v.value))
        return ast.copy_location(_call("deferred_text", node), node)

    def visit_Call(self, node):
        self.generic_visit(node)
        top_args = self.top.args.posonlyargs + self.top.args.args
        func = node.func
        if isinstance(func, ast.Name) and func.id == "print":
            # print: at run time inside a graph (ops/graph_print.py), as 2.10's graph mode
            node.func = ast.copy_location(_rt("print_"), func)
        elif (isinstance(func, ast.Attribute) and func.attr == "format" and isinstance(func.value, ast.Constant)
              and isinstance(func.value.value, str)):   # "x: {}".format(x), as an f-string
            node.args = [a if isinstance(a, ast.Starred) else _call("format_value", a) for a in node.args]
            for k in node.keywords:
                k.value = k.value if k.arg is None else _call("format_value", k.value)
            return ast.copy_location(_call("deferred_text", node), node)
        elif (isinstance(func, ast.Name) and func.id in _NUMBER_TYPES and len(node.args) == 1
              and not node.keywords and not isinstance(node.args[0], ast.Starred)):
            return ast.copy_location(_call("number_", func, node.args[0]), node)
        elif (isinstance(func, ast.Name) and func.id == "isinstance" and len(node.args) == 2 and not node.keywords
              and not any(isinstance(a, ast.Starred) for a in node.args)):
            return ast.copy_location(_call("isinstance_", func, *node.args), node)
        elif isinstance(func, ast.Name) and func.id == "super" and not node.args and top_args:
            node.args = [_name("__class__"), _name(top_args[0].arg)]  # zero-arg super() needs the class cell
        elif not (isinstance(func, ast.Name) and (func.id in _BUILTINS or func.id.startswith(FN_PREFIX))
                  or isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                  and func.value.id == RUNTIME):
            # A helper function or method (self.step(x), super().construct(x)) is compiled
            # as this one is: its tensor control flow becomes graph control flow too.
            node.func = ast.copy_location(_call("callee", func), func)
        return node


__all__ = ["converted", "UnsupportedSyntaxError"]

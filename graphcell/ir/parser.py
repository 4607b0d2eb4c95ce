"""Reads the canonical text form (`ir/printer.py`) back into a Graph: `parse_graph(text)`.

    graph f(%x: f32[2,vmap:4], %w: f32[4] param) {
      %0:f32[] = constant() {value=1.0}
      %1:f32[2,vmap:4] = mul(%x, %0)  # fc1 model.py:12
      return %1
    }

print -> parse -> print is the identity: names, types (named dims, `vmap:N` mapped axes),
input kinds, attrs (ints, floats, bools, None, strings, tuples, dtypes, constants), source
comments (`# scope file:line`; the file is the basename the printer wrote), subgraph attrs
(printed indented under their node as `key:` plus a nested graph) and state outputs
(`name <- %v`). Every node is rebuilt through its primitive's shape rule, and the printed
types must agree with it, so a hand-edited graph that does not type-check fails here, with
its line number.

Not round-trippable: constants of more than `printer.FULL_CONSTANT_LIMIT` elements that are
not all equal (printed `<N values>`: a ParseError says so; all equal, `<N values: all X>`,
parses) and `Graph.meta` (not printed). A `constant`'s values
take the dtype and shape of its printed output type; any other bracketed array attr becomes
a Literal with numpy's default dtype.
"""
from __future__ import annotations

import ast
import re

import numpy as np

from ..dtype import ALL_DTYPES, DType
from .core import Graph, GraphBuilder, SourceInfo, TensorType

_DTYPE_BY_SHORT = {d.short: d for d in ALL_DTYPES}
_DTYPE_BY_MS_NAME = {d.ms_name: d for d in ALL_DTYPES}

_HEADER = re.compile(r"graph (?P<name>[^(]*)\((?P<params>.*)\) \{\Z")
_PARAM = re.compile(r"%(?P<name>[^\s:,%]+): (?P<type>\w+\[[^\]]*\])(?: (?P<kind>[a-z]+))?")
_NODE = re.compile(r"(?P<outs>.*?)\s*= (?P<prim>[A-Za-z_][\w.]*)\((?P<args>[^)]*)\)(?P<rest>.*)\Z")
_OUT = re.compile(r"%(?P<name>[^\s:,%]+):(?P<type>\w+\[[^\]]*\])\Z")
_ARG = re.compile(r"%(?P<name>[^\s:,%]+)\Z")
_SUBGRAPH_KEY = re.compile(r"(?P<key>[A-Za-z_]\w*):\Z")
_KEY = re.compile(r"[A-Za-z_]\w*")
_STRING = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")
_INT = re.compile(r"[-+]?\d+\Z")
_FLOAT = re.compile(r"[-+]?(?:(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|inf|nan)\Z")
_ABBREVIATED = re.compile(r"<(\d+) values(?:: all (?P<value>[^>]+))?>\Z")
_FILE_LINE = re.compile(r"(?P<file>\S+):(?P<line>\d+)\Z")


class ParseError(ValueError):
    """The text is not a graph in the canonical form; the message gives the line."""


class _Array(list):
    """A bracketed list of numbers in an attr: becomes a Literal once its dtype is known."""


class _Abbreviated:
    """A constant the printer shortened to `<N values>` (`fill`: None), or to `<N values: all
    X>` (`fill`: X)."""

    def __init__(self, size: int, fill=None):
        self.size, self.fill = size, fill


def parse_graph(text: str) -> Graph:
    """Parses the text `format_graph` prints (with or without source comments)."""
    import graphcell.ops  # noqa: F401 - registers every primitive
    lines = [(i + 1, line) for i, line in enumerate(text.splitlines()) if line.strip()]
    parser = _Parser(lines)
    graph = parser.graph(parent=None)
    if parser.pos != len(lines):
        parser.fail("text after the end of the graph")
    return graph


class _Scope:
    """Value names of one graph; a subgraph's scope can see its enclosing graphs' names."""

    def __init__(self, parent: "_Scope | None"):
        self.parent, self.values = parent, {}

    def lookup(self, name: str):
        scope = self
        while scope is not None:
            if name in scope.values:
                return scope.values[name]
            scope = scope.parent
        return None


class _Parser:
    def __init__(self, lines: list):
        self.lines, self.pos = lines, 0

    # -- lines ------------------------------------------------------------------------------
    def peek(self) -> str | None:
        return self.lines[self.pos][1].strip() if self.pos < len(self.lines) else None

    def take(self) -> str:
        if self.pos >= len(self.lines):
            raise ParseError("unexpected end of text: a graph is not closed with '}'")
        self.pos += 1
        return self.lines[self.pos - 1][1].strip()

    def fail(self, message: str, pos: int | None = None):
        pos = self.pos if pos is None else pos
        if pos >= len(self.lines):
            raise ParseError(f"at the end of the text: {message}")
        number, line = self.lines[pos]
        raise ParseError(f"line {number}: {message}\n    {line.strip()}")

    # -- a graph ----------------------------------------------------------------------------
    def graph(self, parent: _Scope | None) -> Graph:
        header = _HEADER.match(self.peek() or "")
        if header is None:
            self.fail("expected a graph header 'graph NAME(%x: f32[...], ...) {'")
        pos = self.pos
        self.take()
        builder, scope = GraphBuilder(header["name"]), _Scope(parent)
        for name, type_, mapped, kind in self.params(header["params"], pos):
            value = builder.add_input(type_, name, kind)
            value.mapped_axis = mapped
            self.define(scope, name, value, pos)
        while True:
            line = self.peek()
            if line is None:
                self.fail("the graph has no 'return' line")
            if line == "return" or line.startswith("return "):
                break
            self.node(builder, scope)
        outputs, state_names = self.returns(self.take()[len("return"):].strip(), scope)
        if self.take() != "}":
            self.fail("expected '}' after the return line", self.pos - 1)
        return builder.build(outputs, tuple(state_names))

    def params(self, text: str, pos: int) -> list:
        out, i = [], 0
        while i < len(text):
            m = _PARAM.match(text, i)
            if m is None:
                self.fail(f"cannot read graph input at {text[i:i + 30]!r}", pos)
            type_, mapped = self.type(m["type"], pos)
            out.append((m["name"], type_, mapped, m["kind"] or "arg"))
            i = m.end()
            if text.startswith(", ", i):
                i += 2
            elif i != len(text):
                self.fail(f"expected ', ' between graph inputs at {text[i:i + 30]!r}", pos)
        return out

    def type(self, text: str, pos: int) -> tuple[TensorType, int | None]:
        short, dims_text = text[:-1].split("[", 1)
        dtype = _DTYPE_BY_SHORT.get(short)
        if dtype is None:
            self.fail(f"unknown dtype {short!r}", pos)
        dims, mapped = [], None
        for axis, token in enumerate(dims_text.split(",") if dims_text else []):
            if token.startswith("vmap:"):
                mapped, token = axis, token[len("vmap:"):]
            dims.append(int(token) if _INT.match(token) else token)
        return TensorType(tuple(dims), dtype), mapped

    def define(self, scope: _Scope, name: str, value, pos: int):
        if name in scope.values:
            self.fail(f"%{name} is defined twice", pos)
        scope.values[name] = value

    def use(self, scope: _Scope, name: str, pos: int):
        value = scope.lookup(name)
        if value is None:
            self.fail(f"%{name} is used before it is defined", pos)
        return value

    # -- a node -----------------------------------------------------------------------------
    def node(self, builder: GraphBuilder, scope: _Scope):
        from ..ops.primitive import PRIMITIVES
        pos = self.pos
        m = _NODE.match(self.take())
        if m is None:
            self.fail("expected a node '%N:type = primitive(%a, ...) {attrs}'", pos)
        prim = PRIMITIVES.get(m["prim"])
        if prim is None:
            self.fail(f"unknown primitive {m['prim']!r}", pos)
        outs = []
        for piece in _split(m["outs"]):
            o = _OUT.match(piece)
            if o is None:
                self.fail(f"cannot read output {piece!r}", pos)
            outs.append((o["name"], *self.type(o["type"], pos)))
        args = []
        for piece in _split(m["args"]):
            a = _ARG.match(piece)
            if a is None:
                self.fail(f"cannot read operand {piece!r}", pos)
            args.append(self.use(scope, a["name"], pos))
        attrs, source = self.attrs_and_source(m["rest"], pos)
        while (key := _SUBGRAPH_KEY.match(self.peek() or "")) is not None:
            self.take()
            attrs[key["key"]] = self.graph(scope)
        attrs = self.literals(prim, attrs, [t for _, t, _ in outs], pos)
        try:
            values = builder.add_node(prim, tuple(args), attrs, source)
        except Exception as e:  # noqa: BLE001 - a shape rule's complaint about the text
            message = str(e)
            self.fail(message if message.startswith(prim.name) else f"{prim.name}: {message}", pos)
        bad = next((v.type.dtype for v in values if not isinstance(v.type.dtype, DType)), None)
        if bad is not None:  # e.g. index_dtype=int32: a name the printer never writes
            self.fail(f"{prim.name}: {bad!r} is not a dtype; write dtypes as the printer does "
                      f"(Float32, Int32, ...)", pos)
        if [v.type for v in values] != [t for _, t, _ in outs]:
            self.fail(f"printed types {[str(t) for _, t, _ in outs]} differ from the shape rule's "
                      f"{[str(v.type) for v in values]}", pos)
        for value, (name, _, mapped) in zip(values, outs):
            value.mapped_axis = mapped
            self.define(scope, name, value, pos)

    def attrs_and_source(self, rest: str, pos: int) -> tuple[dict, SourceInfo]:
        attrs, i = {}, 0
        if rest.startswith(" {"):
            i = 2
            while True:
                k = _KEY.match(rest, i)
                if k is None or not rest.startswith("=", k.end()):
                    self.fail(f"expected 'name=value' at {rest[i:i + 30]!r}", pos)
                try:
                    value, i = _value(rest, k.end() + 1)
                except ValueError as e:
                    self.fail(str(e), pos)
                attrs[k.group()] = value
                if rest.startswith(", ", i):
                    i += 2
                elif rest.startswith("}", i):
                    i += 1
                    break
                else:
                    self.fail(f"expected ', ' or '}}' at {rest[i:i + 30]!r}", pos)
        tail = rest[i:]
        if not tail.strip():
            return attrs, SourceInfo()
        comment = re.match(r"\s+# (.*)\Z", tail)
        if comment is None:
            self.fail(f"unexpected text {tail.strip()!r} after the node", pos)
        return attrs, _source(comment.group(1))

    def literals(self, prim, attrs: dict, out_types: list, pos: int) -> dict:
        """Turns number text into Literals: a `constant`'s value takes its output's type."""
        from ..ops import core_prims
        from ..ops.primitive import Literal
        if prim is core_prims.constant and "value" in attrs and len(out_types) == 1:
            value, out = attrs["value"], out_types[0]
            if isinstance(value, _Abbreviated) and value.fill is None:
                self.fail(f"this constant's {value.size} values were abbreviated by the printer "
                          f"(more than FULL_CONSTANT_LIMIT); such a graph cannot be parsed back", pos)
            try:
                if isinstance(value, _Abbreviated):
                    if value.size != int(np.prod(out.shape)):
                        raise ValueError(f"{value.size} values for {int(np.prod(out.shape))} elements")
                    array = np.full(out.shape, value.fill, dtype=out.dtype.np_dtype)
                else:
                    array = np.array(value, dtype=out.dtype.np_dtype).reshape(out.shape)
            except (TypeError, ValueError) as e:
                self.fail(f"constant value does not fit {out}: {e}", pos)
            return {**attrs, "value": Literal(array)}

        def resolve(v):
            if isinstance(v, _Abbreviated):
                self.fail(f"an array attr of {v.size} values was abbreviated by the printer", pos)
            if isinstance(v, _Array):
                return Literal(np.array(v))
            if isinstance(v, tuple):
                return tuple(resolve(x) for x in v)
            return v
        return {k: resolve(v) for k, v in attrs.items()}

    # -- the return line ------------------------------------------------------------------
    def returns(self, text: str, scope: _Scope) -> tuple[list, list]:
        pos = self.pos - 1
        outputs, state_names = [], []
        for piece in _split(text):
            if " <- " in piece:
                name, ref = piece.split(" <- ", 1)
                state_names.append(name)
            elif state_names:
                self.fail("user outputs must come before state outputs ('name <- %v')", pos)
            else:
                ref = piece
            a = _ARG.match(ref)
            if a is None:
                self.fail(f"cannot read returned value {ref!r}", pos)
            outputs.append(self.use(scope, a["name"], pos))
        return outputs, state_names


def _split(text: str) -> list[str]:
    text = text.strip()
    return text.split(", ") if text else []


def _source(text: str) -> SourceInfo:
    """`scope file:line`, `file:line` or `scope` (the scope may hold spaces: vmap notes)."""
    head, _, last = text.rpartition(" ")
    m = _FILE_LINE.match(last)
    if m is None:
        return SourceInfo("", 0, text)
    return SourceInfo(m["file"], int(m["line"]), head)


# -- attr values ------------------------------------------------------------------------------

def _value(s: str, i: int):
    """Reads one attr value at s[i:]; returns (value, index after it)."""
    if i >= len(s):
        raise ValueError("an attr value is missing")
    c = s[i]
    if c in "([":
        close = ")" if c == "(" else "]"
        items, i = [], i + 1
        if s.startswith(close, i):
            return (() if c == "(" else _Array()), i + 1
        while True:
            item, i = _value(s, i)
            items.append(item)
            if s.startswith("," + close, i) and c == "(":  # a one-element tuple: (x,)
                i += 2
                break
            if s.startswith(",", i):
                i += 1
            elif s.startswith(close, i):
                i += 1
                break
            else:
                raise ValueError(f"expected ',' or {close!r} at {s[i:i + 30]!r}")
        return (tuple(items) if c == "(" else _Array(items)), i
    if c in "'\"":
        m = _STRING.match(s, i)
        if m is None:
            raise ValueError(f"unterminated string at {s[i:i + 30]!r}")
        return ast.literal_eval(m.group()), m.end()
    m = re.compile(r"[^,)\]}]+").match(s, i)
    if m is None:
        raise ValueError(f"an attr value is missing at {s[i:i + 30]!r}")
    return _word(m.group()), m.end()


def _word(word: str):
    if word in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[word]
    if _INT.match(word):
        return int(word)
    if _FLOAT.match(word):
        return float(word)
    if word in _DTYPE_BY_MS_NAME:
        return _DTYPE_BY_MS_NAME[word]
    m = _ABBREVIATED.match(word)
    if m is not None:
        return _Abbreviated(int(m.group(1)), None if m["value"] is None else _word(m["value"]))
    return word

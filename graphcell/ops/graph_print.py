"""Printing inside a compiled graph: `ops.Print()(...)` and Python's `print(...)` in converted
code (construct, jit functions: frontend/ast_transform.py routes `print` here) print when the
graph RUNS, on every call, in program order, as MindSpore 2.10's graph mode does (measured on
2.10, CPU): one argument a line; a Tensor in the Print form of `_tensor_repr.print_text` (a 0-d
one as its value alone); a Python number as C's %g (1/3 prints 0.333333, True prints 1); a tuple
of ints as `(1, 2)` (a shape `(2,)` as `(2)`); any other tuple or list one element a line;
a dtype as `Float32`; None as `None`. 2.10 prints Python values at run time too, on every call.

Under a trace the arguments become one `host_call` node (ops/host_call.py: an ordered host
callback, impure, so never dropped as dead code nor merged with an equal print) whose function
prints the lines. Outside any trace Print prints at once: Tensors as their repr, other values as
Python prints them (2.10's PyNative Print: measured). So does a print in a function an eager
(PYNATIVE_MODE) grad differentiates: 2.10 runs it as Python, so `print` is Python's own (its
keyword arguments too) and a traced Tensor shows this call's value (`frontend/concrete.py`'s
`runs_as_python`; Tensor's repr/str/format read it), once per call, never in the backward
(measured); a jit function it calls, and any grad under GRAPH_MODE, print as graphs do.

An f-string or `"...".format(...)` holding a traced Tensor (`print(f"x={x}")`) prints the
Tensor's str at run time (2.10: `x=[1. 2.]`, measured): converted code wraps each formatted value
in `format_value`, which stands a traced Tensor in as a marker, and the whole string in
`deferred_text`, which turns the markers back into a `DeferredText` (a str, with the Tensors).

Under vmap 2.10 prints each mapped Tensor whole, as `(`, the Tensor, `, dim: `, its axis, `)`
on five lines (measured). Under grad the forward prints once, the backward not at all
(measured). An ONNX model has no print: export leaves the node out, with a warning.
"""
from __future__ import annotations

import builtins
import itertools
import re
import sys
import threading

import numpy as np

from ..dtype import Type, to_dtype
from ..frontend.concrete import runs_as_python
from ..frontend.tracer import current_tracer
from ..tensor import Tensor
from .host_call import HostFunction, host_call

__all__ = ["graph_print", "print_values", "format_value", "deferred_text", "DeferredText"]

ONNX_DROP = ("export: an ONNX model has no print: the Print (or print) inside the graph is left out of "
             "the exported model")


# -- what a print shows -----------------------------------------------------------------------------
# A print's template is a tuple of lines: a str is printed as it is, TENSOR takes the next array
# (Print's form), ("text", parts) is one line of str parts and (spec,) slots, each slot the next
# array as str() shows it, and ("mapped", axis, line) a Tensor vmap mapped along `axis`.
TENSOR = ("tensor",)


def _python_text(value) -> str:
    """A Python value's line, as 2.10's graph mode prints it (measured)."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return format(value, "g")
    return str(value)


def _template(values, lines: list, tensors: list) -> None:
    for value in values:
        if isinstance(value, DeferredText):
            lines.append(("text", value.parts))
            tensors.extend(value.tensors)
        elif isinstance(value, Tensor):
            lines.append(TENSOR)
            tensors.append(value)
        elif isinstance(value, (tuple, list)):
            if all(isinstance(v, int) and not isinstance(v, bool) for v in value):
                lines.append("(" + ", ".join(str(v) for v in value) + ")")   # 2.10: (1, 2); a shape (2,): (2)
            else:
                _template(value, lines, tensors)
        elif isinstance(value, Type):
            lines.append(str(value))
        else:
            lines.append(_python_text(value))


def _tensor_str(array: np.ndarray, spec: str) -> str:
    if spec and array.ndim == 0:
        return format(array.item(), spec)
    return str(Tensor(array))


def _line_texts(line, arrays) -> list:
    if line is TENSOR or line == TENSOR:
        array = next(arrays)
        from .._tensor_repr import print_text
        return [print_text(array, to_dtype(array.dtype))]
    if isinstance(line, str):
        return [line]
    if line[0] == "text":
        return ["".join(p if isinstance(p, str) else _tensor_str(next(arrays), p[0]) for p in line[1])]
    _, axis, inner = line
    return ["(", *_line_texts(inner, arrays), ", dim: ", str(axis), ")"]


class _PrintLines:
    """The host function of a traced print: formats its arrays into the template's lines."""

    def __init__(self, template: tuple):
        self.template = template

    def __call__(self, *arrays):
        it = iter(arrays)
        text = "\n".join(t for line in self.template for t in _line_texts(line, it))
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
        return ()

    def batch(self, args, dims):
        """vmap: the mapped Tensors printed whole with their axis (2.10's form)."""
        template, k = [], 0
        for line in self.template:
            n = _operands(line)
            mapped = [d for d in dims[k:k + n] if d is not None]
            template.append(("mapped", mapped[0], line) if mapped and line == TENSOR else line)
            k += n
        host_call.bind(*args, fn=_host_function(tuple(template)))
        return (), ()


def _operands(line) -> int:
    if line == TENSOR:
        return 1
    if isinstance(line, str):
        return 0
    if line[0] == "text":
        return sum(not isinstance(p, str) for p in line[1])
    return _operands(line[2])


def _host_function(template: tuple) -> HostFunction:
    run = _PrintLines(template)
    return HostFunction(run, (), "Print", key=("Print", template), batch=run.batch, onnx_drop=ONNX_DROP)


def print_values(values) -> None:
    """Prints `values` when the graph being traced runs (each call), or at once outside a trace."""
    if _prints_now(values):
        from .._tensor_repr import format_tensor
        for value in values:
            builtins.print(format_tensor(value.asnumpy(), value.dtype) if isinstance(value, Tensor) else value)
        return
    lines, tensors = [], []
    _template(values, lines, tensors)
    if not lines:   # print() prints nothing inside a 2.10 graph (measured)
        return
    host_call.bind(*tensors, fn=_host_function(tuple(lines)))


def graph_print(args, kwargs) -> None:
    """Python's `print` in converted code: at once outside a trace, else as ops.Print."""
    if _prints_now(args):
        builtins.print(*args, **kwargs)
        return
    if kwargs:   # 2.10's words (measured for sep= and flush=)
        name = next(iter(kwargs))
        raise RuntimeError(f"Got an unexpected keyword argument '{name}': print inside a compiled graph (jit, "
                           "GRAPH_MODE) prints each argument on its own line and takes no keyword arguments")
    print_values(args)


def _prints_now(values) -> bool:
    """Outside any trace, or in an eager grad's trace (PYNATIVE runs the function as Python:
    a print there prints at once, traced Tensors as their values, on every call)."""
    tracer = current_tracer()
    if tracer is None:
        return not any(_symbolic(v) for v in values)
    return runs_as_python(tracer)


def _symbolic(value) -> bool:
    if isinstance(value, Tensor):
        return value.is_symbolic
    if isinstance(value, DeferredText):
        return True
    if isinstance(value, (tuple, list)):
        return any(_symbolic(v) for v in value)
    return False


# -- f-strings ---------------------------------------------------------------------------------------

class DeferredText(str):
    """A formatted string holding traced Tensors: as a str, what the trace knew (`<traced>`);
    printed, the Tensors' values at run time. `parts` are strs and (format spec,) slots, one
    per Tensor of `tensors`."""

    def __new__(cls, text: str, parts: tuple, tensors: tuple):
        self = super().__new__(cls, text)
        self.parts, self.tensors = parts, tensors
        return self


_SLOTS: dict = {}   # marker number -> (Tensor, spec), until deferred_text reads it
_SLOT_NUMBERS = itertools.count()
_SLOT_LOCK = threading.Lock()
_MARKER = re.compile("\x00gcslot(\\d+)\x00")


class _Slot:
    """A traced Tensor inside an f-string: formats as a marker deferred_text finds again."""
    __slots__ = ("tensor",)

    def __init__(self, tensor):
        self.tensor = tensor

    def _marker(self, spec: str) -> str:
        with _SLOT_LOCK:
            n = next(_SLOT_NUMBERS)
            _SLOTS[n] = (self.tensor, spec)
        return f"\x00gcslot{n}\x00"

    def __format__(self, spec: str) -> str:
        return self._marker(spec)

    def __str__(self):
        return self._marker("")

    __repr__ = __str__   # 2.10 prints f"{x!r}" as str too (measured)


def format_value(value):
    """A value about to be formatted into a string in converted code."""
    if isinstance(value, Tensor) and value.is_symbolic and not runs_as_python(current_tracer()):
        return _Slot(value)
    return value


def deferred_text(text):
    """The string converted code formatted: a DeferredText if it holds traced Tensors."""
    if not isinstance(text, str) or "\x00gcslot" not in text:
        return text
    parts, tensors, plain = [], [], []
    pos = 0
    for match in _MARKER.finditer(text):
        with _SLOT_LOCK:
            tensor, spec = _SLOTS.pop(int(match.group(1)))
        parts += [text[pos:match.start()], (spec,)]
        plain += [text[pos:match.start()], str(tensor)]
        tensors.append(tensor)
        pos = match.end()
    parts.append(text[pos:])
    plain.append(text[pos:])
    return DeferredText("".join(plain), tuple(p for p in parts if p != ""), tuple(tensors))

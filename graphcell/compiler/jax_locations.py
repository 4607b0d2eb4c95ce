"""What links the XLA program back to the user's code: each node's Cell path as a jax name
scope and its file:line as the jax source location of the ops its impl emits.

    #loc9 = loc("/home/me/model.py":12:5 to :10)                  the node's file:line
    #loc31 = loc("jit(Net)/layer1/0/conv1/conv_general_dilated"(#loc30))

jax records, for every op, the Python stack at the time the op was made; while lowering a
graph that stack is graphcell's interpreter, not the user's code that the node came from. jax
has no public way to say where an op came from, so `located(file, line)` swaps in a stack whose
innermost frame is the node's file:line (a one-line code object compiled under the user's file
name), through `jax._src.source_info_util`. Where that private module changes, `located`
becomes a no-op and only the name scopes remain.
"""
from __future__ import annotations

import functools
import threading

try:
    from jax._src import source_info_util as _source_info
    from jax._src.lib import xla_client as _xla_client
    _context = _source_info._source_info_context
    _get_traceback = _xla_client.Traceback.get_traceback
    _context.context.replace(traceback=None)   # the API this module relies on
except (ImportError, AttributeError, TypeError):   # another jax: scopes only
    _context = None


def scope_name(cell_scope: str) -> str:
    """The jax name scope for a node's `SourceInfo.scope`: "seq.1 [grad]" -> "seq/1/[grad]"."""
    path, _, note = cell_scope.partition(" [")
    if path.startswith("["):   # a note with no Cell path: "[grad]"
        path, note = "", path[1:]
    parts = [p for p in path.split(".") if p]
    if note:
        parts.append(f"[{note}")
    return "/".join(parts)


@functools.lru_cache(maxsize=4096)
def _traceback_at(file: str, line: int):
    """A jax Traceback whose only frame outside jax and the standard library is `file`:`line`:
    the one-liner runs as a thread's target, so no graphcell frame calls it."""
    namespace = {"get": _get_traceback}
    code = compile("\n" * (line - 1) + "tb = get()", file, "exec")
    thread = threading.Thread(target=exec, args=(code, namespace), name="graphcell-location")
    thread.start()
    thread.join()
    return namespace.get("tb")


class located:
    """Context manager: jax ops made inside it are located at `file`:`line`."""
    __slots__ = ("traceback", "previous")

    def __init__(self, file: str, line: int):
        self.traceback = _traceback_at(file, line) if _context is not None and file and line > 0 else None

    def __enter__(self):
        if self.traceback is not None:
            self.previous = _context.context
            _context.context = self.previous.replace(traceback=self.traceback)

    def __exit__(self, *exc):
        if self.traceback is not None:
            _context.context = self.previous

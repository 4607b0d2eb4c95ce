"""`set_context(check_finite=True)`: find the first op that produced a NaN or Inf.

Under `jit` the compiled program runs as usual; only when one of its floating-point outputs is
non-finite is the graph replayed node by node (each primitive's jax `impl`, the semantics of
`to_jax`), stopping at the first node whose output is non-finite. The error names that node's
primitive, Cell path and source line, so the cost when nothing is wrong is one `isfinite` reduction
per output.

In PYNATIVE (eager) mode there is no graph to replay: `check_eager` runs after every eagerly executed
primitive and raises at the first one that turns finite inputs into a NaN or Inf. It cannot know
whether a later op would have masked the value, so an intentional Inf computed from finite inputs
is reported too; ops without floating inputs (constants such as a -inf mask) are not checked.
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from ..ir.core import Graph

__all__ = ["all_finite", "check_outputs", "check_eager", "first_nonfinite"]


def _is_float(a) -> bool:
    return jnp.issubdtype(jnp.asarray(a).dtype, jnp.inexact)


def all_finite(arrays) -> bool:
    """True when every floating-point array is free of NaN and Inf."""
    return all(bool(jnp.isfinite(a).all()) for a in arrays if _is_float(a))


def _kind(a) -> str:
    a = np.asarray(a)
    return "NaN" if np.isnan(a).any() else "Inf"


def first_nonfinite(graph: Graph, arrays) -> str | None:
    """Replays `graph` on `arrays` eagerly; describes the first non-finite input or node output."""
    env = dict(zip(graph.inputs, arrays))
    for i, (v, a) in enumerate(zip(graph.inputs, arrays)):
        if _is_float(a) and not all_finite([a]):
            return f"graph input {i} ({v.kind}{' ' + v.name if getattr(v, 'name', None) else ''}) already holds {_kind(a)}"
    for node in graph.nodes:
        result = node.primitive.impl(*[env[v] for v in node.inputs], **node.attrs)
        results = tuple(result) if node.primitive.multiple_results else (result,)
        env.update(zip(node.outputs, results))
        for r in results:
            if _is_float(r) and not all_finite([r]):
                return _describe(node.primitive.name, r, node.source,
                                 [str(v.type) if hasattr(v, "type") else "?" for v in node.inputs])
    return None


def _describe(op: str, result, src, input_types) -> str:
    """`log produced NaN in Cell 'inner' at net.py:12; inputs: f32[2,3]`"""
    where = f"{src.file}:{src.line}" if src.file else "<unknown source>"
    scope = f"Cell '{src.scope}'" if src.scope else "top level (no Cell)"
    return f"{op} produced {_kind(result)} in {scope} at {where}; inputs: {', '.join(input_types)}"


_FIX = "Turn this check off with set_context(check_finite=False)."


def check_outputs(traced, arrays, outs) -> None:
    """Raises FloatingPointError naming the first non-finite op if any output is non-finite."""
    if all_finite(outs):
        return
    found = first_nonfinite(traced.graph, arrays)
    detail = found or "the optimised program produced it but no single op does when replayed"
    raise FloatingPointError(f"check_finite: {traced.graph.name}: {detail}. {_FIX}")


def check_eager(primitive, args, out, source) -> None:
    """The PYNATIVE-mode check, run by the eager branch of `frontend.tracer.bind` after `primitive`
    ran on Tensors `args` and gave `out` (its result; a tuple for multiple results); `source` is
    the user's line and Cell path (`tracer.user_source()`). Raises FloatingPointError when the op
    turned finite floating inputs into a NaN or Inf."""
    arrays = [a._payload for a in args]
    if not any(_is_float(a) for a in arrays) or not all_finite(arrays):
        return   # a constant, or an input already non-finite (reported where it was produced)
    results = out if primitive.multiple_results else (out,)
    for r in results:
        r = getattr(r, "_payload", r)
        if _is_float(r) and not all_finite([r]):
            from ..tensor import Tensor
            types = [str(Tensor._type_of(a)) for a in args]
            raise FloatingPointError(f"check_finite (eager): {_describe(primitive.name, r, source, types)}. "
                                     f"{_FIX}")

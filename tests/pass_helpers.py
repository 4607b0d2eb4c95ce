"""Shared by tests/test_passes.py and tests/test_parser.py: running graphs on random inputs,
a few test-only primitives (an impure one, one carrying every kind of attr, one with a
subgraph attr), and a hypothesis strategy for random small well-typed graphs."""
from __future__ import annotations

import contextlib
import textwrap

import jax
import numpy as np
from hypothesis import strategies as st

import graphcell as ms
from graphcell.compiler.to_jax import graph_to_jax
from graphcell.ir import format_graph
from graphcell.ir.core import Graph, GraphBuilder, TensorType
from graphcell.ir.parser import parse_graph
from graphcell.ops import PRIMITIVES, Literal, Primitive, ShapeError


# -- test-only primitives -------------------------------------------------------------------
# They live outside the global registry (tests elsewhere check that every registered
# primitive has its rules); `extra_primitives()` makes them visible to the parser for a while.
TEST_PRIMITIVES: dict = {}


def _prim(name, rule, impl, **kw):
    prim = Primitive(name, rule, impl, **kw)
    TEST_PRIMITIVES[name] = PRIMITIVES.pop(name)
    return prim


@contextlib.contextmanager
def extra_primitives():
    PRIMITIVES.update(TEST_PRIMITIVES)
    try:
        yield
    finally:
        for name in TEST_PRIMITIVES:
            PRIMITIVES.pop(name, None)


# An identity with a side effect (think: print, or a write to a device buffer).
effect = _prim("test_effect", lambda x: x, lambda x: x, pure=False)
# An identity that accepts any attrs, to round-trip every kind of attr value.
tagged = _prim("test_tagged", lambda x, **attrs: x, lambda x, **attrs: x)


def _call_rule(*xs, body: Graph):
    assert [v.type for v in body.inputs] == list(xs), "call: operand types differ from the body's"
    return tuple(v.type for v in body.outputs)


# Calls a closed subgraph (as cond/while will): its body is a Graph attr.
call = _prim("test_call", _call_rule, lambda *xs, body: graph_to_jax(body)(*xs), multiple_results=True)


# -- running graphs ---------------------------------------------------------------------------

def random_inputs(graph: Graph, seed: int = 0) -> list:
    rng = np.random.default_rng(seed)
    out = []
    for v in graph.inputs:
        if v.dtype.is_floating:
            out.append(rng.normal(size=v.shape).astype(v.dtype.np_dtype))
        elif v.dtype is ms.bool_:
            out.append(rng.random(size=v.shape) < 0.5)
        else:
            out.append(rng.integers(-5, 5, size=v.shape).astype(v.dtype.np_dtype))
    return out


def run(graph: Graph, arrays, jit: bool = False) -> list:
    fn = graph_to_jax(graph)
    return [np.asarray(a) for a in (jax.jit(fn) if jit else fn)(*arrays)]


def assert_same_outputs(before: Graph, after: Graph, seeds=(0, 1), rtol=1e-6, atol=1e-6, jit=False):
    """Both graphs on the same random inputs: outputs of equal dtypes, shapes and values.
    (`jit`: compile each graph whole, faster than op-by-op for big graphs.)"""
    for seed in seeds:
        arrays = random_inputs(before, seed)
        want, got = run(before, arrays, jit), run(after, arrays, jit)
        assert len(want) == len(got)
        for w, g in zip(want, got):
            assert w.dtype == g.dtype and w.shape == g.shape
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True)


def ir(text: str) -> str:
    """IR text written indented in a test, as the printer writes it."""
    return textwrap.dedent(text).strip("\n")


def parse(text: str) -> Graph:
    return parse_graph(ir(text))


def show(graph: Graph) -> str:
    return format_graph(graph, source=True)


# -- random graphs ----------------------------------------------------------------------------

F32 = ms.float32
SHAPES = [(), (3,), (2, 3), (1, 3), (2, 1, 3), (3, 2)]


def _add(b, name, ins, **attrs):
    return b.add_node(PRIMITIVES[name], tuple(ins), attrs)[0]


def _const(b, array):
    return _add(b, "constant", [], value=Literal(np.asarray(array, np.float32)))


@st.composite
def random_graphs(draw, max_nodes: int = 10) -> Graph:
    """Well-typed float32 graphs over elementwise, reduce, reshape, transpose, broadcast, cast
    and select nodes, with the patterns the passes look for: constants (0, 1, arrays),
    repeated subexpressions, layout round trips and dead nodes."""
    b = GraphBuilder("random")
    values = [b.add_input(TensorType(draw(st.sampled_from(SHAPES)), F32), f"x{i}")
              for i in range(draw(st.integers(1, 2)))]
    pick = lambda: draw(st.sampled_from(values))  # noqa: E731
    for _ in range(draw(st.integers(1, max_nodes))):
        kind = draw(st.sampled_from(["unary", "binary", "binary_const", "reduce", "reshape", "transpose",
                                     "broadcast", "cast", "select", "repeat", "const_expr"]))
        x = pick()
        try:
            if kind == "unary":
                out = _add(b, draw(st.sampled_from(["neg", "tanh", "sin", "abs", "logistic"])), [x])
            elif kind == "binary":
                out = _add(b, draw(st.sampled_from(["add", "sub", "mul", "max", "min"])), [x, pick()])
            elif kind == "binary_const":
                c = draw(st.sampled_from([0.0, 1.0, 2.0, "array"]))
                c = _const(b, np.linspace(-1, 1, max(1, int(np.prod(x.shape)))).reshape(x.shape)
                           if c == "array" else c)
                ins = [x, c] if draw(st.booleans()) else [c, x]
                out = _add(b, draw(st.sampled_from(["add", "sub", "mul", "div", "pow"])), ins)
            elif kind == "reduce":
                axes = tuple(a for a in range(x.ndim) if draw(st.booleans()))
                out = _add(b, draw(st.sampled_from(["reduce_sum", "reduce_max"])), [x], axes=axes)
            elif kind == "reshape":
                shape = draw(st.sampled_from([tuple(reversed(x.shape)), (int(np.prod(x.shape)),),
                                              (1,) + x.shape, tuple(d for d in x.shape if d != 1)]))
                out = _add(b, "reshape", [x], shape=shape)
            elif kind == "transpose":
                perm = tuple(draw(st.permutations(range(x.ndim))))
                out = _add(b, "transpose", [x], perm=perm)
            elif kind == "broadcast":
                lead = draw(st.sampled_from([1, 2]))
                out = _add(b, "broadcast_in_dim", [x], shape=(lead,) + x.shape,
                           dims=tuple(range(1, x.ndim + 1)))
            elif kind == "cast":
                wide = _add(b, "cast", [x], dtype=ms.float64)
                out = _add(b, "cast", [wide], dtype=F32) if draw(st.booleans()) else _add(b, "cast", [x], dtype=F32)
            elif kind == "select":
                pred = _add(b, "gt", [x, _const(b, 0.0)]) if draw(st.booleans()) else \
                    _add(b, "constant", [], value=Literal(np.asarray(draw(st.booleans()))))
                out = _add(b, "select", [pred, x, pick()])
            elif kind == "repeat" and b.nodes:
                node = draw(st.sampled_from(b.nodes))
                out = b.add_node(node.primitive, node.inputs, node.attrs)[0]
            else:  # a subexpression of constants only
                c = _const(b, draw(st.sampled_from([0.5, -1.0])))
                out = _add(b, draw(st.sampled_from(["exp", "neg", "tanh"])), [c])
        except ShapeError:
            continue
        if out.dtype is F32:
            values.append(out)
    n_out = draw(st.integers(1, 2))
    outputs = [values[-1]] + [pick() for _ in range(n_out - 1)]
    return b.build(outputs)

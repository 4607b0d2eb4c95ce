"""The IR text parser: print -> parse -> print is the identity (types, mapped axes, attrs of
every kind, exact constants, subgraphs, source comments, state outputs), and malformed text
fails with the line that is wrong."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import graphcell as ms
from graphcell.ir import format_graph, verify
from graphcell.ir.core import GraphBuilder, SourceInfo, TensorType
from graphcell.ir.parser import ParseError, parse_graph
from graphcell.ops import Literal
from graphcell.passes.grad import grad_graph
from graphcell.passes.vmap import vmap_graph
from tests.conftest import load_lenet
from tests.golden_text import GOLDEN_DIR
from tests.pass_helpers import assert_same_outputs, call, extra_primitives, ir, random_graphs, run, tagged


@pytest.fixture(autouse=True)
def _test_primitives():
    with extra_primitives():
        yield


def round_trip(graph, source=True):
    text = format_graph(graph, source=source)
    parsed = parse_graph(text)
    assert format_graph(parsed, source=source) == text
    verify(parsed)
    return parsed


def test_lenet5_golden_text_parses_back_to_itself():
    text = (GOLDEN_DIR / "lenet5.ir").read_text().rstrip("\n")
    graph = parse_graph(text)
    assert format_graph(graph, source=True) == text
    assert graph.inputs[1].kind == "param" and graph.nodes[0].source == SourceInfo("lenet.py", 21, "conv1")


def test_traced_ensemble_and_gradient_graphs_round_trip():
    net = load_lenet(0)
    graph = ms.trace(net, ms.Tensor(np.zeros((2, 1, 32, 32), np.float32))).graph
    n_in = len(graph.inputs)
    ensemble = vmap_graph(graph, [None] + [0] * (n_in - 1), [0], 3)
    assert "vmap:3" in str(ensemble) and "[conv_strategy=" in format_graph(ensemble, source=True)
    for g in (graph, ensemble, grad_graph(graph, wrt=[1, 2])):
        for source in (True, False):
            parsed = round_trip(g, source)
        assert [v.mapped_axis for v in parsed.inputs] == [v.mapped_axis for v in g.inputs]
    parsed = round_trip(ensemble)
    assert_same_outputs(ensemble, parsed, seeds=(0,), jit=True)


def test_every_kind_of_attr_round_trips():
    text = ir("""
        graph attrs(%x: f32[batch,vmap:4] capture, %w: bf16[2] param) {
          %0:f32[batch,vmap:4] = test_tagged(%x) {a=(), b=(1,), c=((1,-2),(3,)), d=Float16, e=valid, f='two words', g='True', h=-1.5e-07, i=inf, j=nan, k=None, l=False, m='', n='Float32', o='a,b)}', p=(same-upper,'#',-inf)}  # outer.inner [strategy=wide] file.py:12
          %1:bf16[2] = test_tagged(%w) {z=1}  # only_scope
          %2:bf16[2] = test_tagged(%1)  # file.py:3
          return %0, w <- %2
        }""")
    graph = parse_graph(text)
    assert format_graph(graph, source=True) == text
    attrs = graph.nodes[0].attrs
    assert attrs["a"] == () and attrs["b"] == (1,) and attrs["c"] == ((1, -2), (3,)) and attrs["d"] is ms.float16
    assert attrs["e"] == "valid" and attrs["f"] == "two words" and attrs["g"] == "True" and attrs["n"] == "Float32"
    assert attrs["h"] == -1.5e-07 and attrs["i"] == float("inf") and np.isnan(attrs["j"])
    assert attrs["k"] is None and attrs["l"] is False and attrs["m"] == "" and attrs["o"] == "a,b)}"
    assert attrs["p"] == ("same-upper", "#", float("-inf"))
    assert graph.inputs[0].type == TensorType(("batch", 4), ms.float32) and graph.inputs[0].mapped_axis == 1
    assert graph.inputs[0].kind == "capture" and graph.state_names == ("w",)
    assert [n.source for n in graph.nodes] == [SourceInfo("file.py", 12, "outer.inner [strategy=wide]"),
                                               SourceInfo("", 0, "only_scope"), SourceInfo("file.py", 3, "")]


def test_strings_that_look_like_other_values_are_quoted_by_the_printer():
    b = GraphBuilder("quoted")
    x = b.add_input(TensorType((2,), ms.float32), "x")
    weird = ("3", "1.5", "None", "nan", "Bool", "", "a b", "x=y", "%0", "'", "<5 values>", "ok_word")
    (y,) = b.add_node(tagged, (x,), {"s": weird})
    graph = round_trip(b.build([y]))
    assert graph.nodes[0].attrs["s"] == weird
    assert "ok_word)" in str(graph)  # a plain identifier stays bare


CONSTANTS = [
    np.float32(0.1), np.array([0.1, -0.0, 1e-40, np.inf, -np.inf, np.nan], np.float32),
    np.array([[1.0 / 3, 2.5], [-7e300, 5e-324]], np.float64), np.array([1.5, -2.25], np.float16),
    np.array([0.1, 3.0], ms.bfloat16.np_dtype), np.array([[1, -2, 3]], np.int32),
    np.array([0, 4294967295], np.uint32), np.array([[True], [False]]), np.array(7, np.int64),
    np.zeros((2, 0), np.float32), np.arange(16, dtype=np.float32).reshape(2, 2, 4),
]


@pytest.mark.parametrize("array", CONSTANTS, ids=lambda a: f"{a.dtype}{list(a.shape)}")
def test_small_constants_round_trip_exactly(array):
    b = GraphBuilder("c")
    (v,) = b.add_node(ms.ops.PRIMITIVES["constant"], (), {"value": Literal(array)})
    graph = round_trip(b.build([v]))
    parsed = graph.nodes[0].attrs["value"].array
    assert parsed.dtype == array.dtype and parsed.shape == array.shape
    assert parsed.tobytes() == np.ascontiguousarray(array).tobytes()  # bit for bit (-0.0, nan too)


def test_big_constants_are_abbreviated_and_refused_clearly():
    b = GraphBuilder("big")
    (v,) = b.add_node(ms.ops.PRIMITIVES["constant"], (), {"value": Literal(np.arange(17, dtype=np.float32))})
    text = format_graph(b.build([v]))
    assert "value=<17 values>" in text
    with pytest.raises(ParseError, match=r"line 2: .*17 values were abbreviated"):
        parse_graph(text)


@pytest.mark.parametrize("array, shown", [
    (np.full((2, 10), 1.0, np.float32), "<20 values: all 1.0>"),     # a folded broadcast (grad's seed)
    (np.full(17, np.nan, np.float16), "<17 values: all nan>"),
    (np.full((3, 6), True), "<18 values: all True>"),
    (np.full(17, -0.0, np.float32), "<17 values: all -0.0>"),
    (np.full((), 1e-5, np.float32), "1e-05"),       # float32's shortest form, not 9.999999747378752e-06
    (np.array([[0.1, 1 / 3]], np.float32), "[[0.1,0.33333334]]"),
])
def test_constants_print_short_and_parse_back_bit_for_bit(array, shown):
    b = GraphBuilder("c")
    (v,) = b.add_node(ms.ops.PRIMITIVES["constant"], (), {"value": Literal(array)})
    graph = b.build([v])
    assert f"value={shown}}}" in format_graph(graph)
    parsed = round_trip(graph).nodes[0].attrs["value"].array
    assert parsed.dtype == array.dtype and parsed.tobytes() == array.tobytes()


def test_subgraph_attrs_round_trip_nested_and_run():
    text = ir("""
        graph outer(%x: f32[3], %y: f32[3]) {
          %0:f32[3] = exp(%x)
          %1:f32[3], %2:f32[3] = test_call(%0, %y)  # loop model.py:4
            body:
            graph body(%a: f32[3], %b: f32[3]) {
              %3:f32[3] = mul(%a, %b)
              %4:f32[3] = test_call(%3)
                body:
                graph inner(%x: f32[3]) {
                  %5:f32[3] = neg(%x)
                  return %5
                }
              return %4, %3
            }
          %6:f32[3] = add(%1, %2)
          return %6
        }""")
    graph = parse_graph(text)
    assert format_graph(graph, source=True) == text
    body = graph.nodes[1].attrs["body"]
    assert body.name == "body" and body.nodes[1].attrs["body"].name == "inner"
    x, y = np.array([0.1, 0.2, 0.3]), np.array([1.0, -2.0, 3.0])

    np.testing.assert_allclose(run(graph, [x.astype(np.float32), y.astype(np.float32)])[0],
                               -np.exp(x) * y + np.exp(x) * y, atol=1e-6)
    assert call.multiple_results


def test_empty_graph_round_trips():
    assert format_graph(parse_graph("graph nothing() {\n  return \n}")) == "graph nothing() {\n  return \n}"


@pytest.mark.parametrize("text, message", [
    ("graph f(%x: f32[3]) {\n  %0:f32[3] = frobnicate(%x)\n  return %0\n}", r"line 2: unknown primitive 'frobnicate'"),
    ("graph f(%x: f32[3]) {\n  %0:f32[3] = neg(%y)\n  return %0\n}", r"line 2: %y is used before it is defined"),
    ("graph f(%x: f32[3]) {\n  %0:f32[4] = neg(%x)\n  return %0\n}", r"line 2: printed types \['f32\[4\]'\] differ"),
    ("graph f(%x: f32[3]) {\n  %0:f32[3] = add(%x, %x)\n  %0:f32[3] = neg(%x)\n  return %0\n}",
     r"line 3: %0 is defined twice"),
    ("graph f(%x: f32[3]) {\n  %0:f32[3] = neg(%x)\n  return %0", r"not closed"),
    ("graph f(%x: f32[3]) {\n  %0:f32[3] = neg(%x)\n}", r"line 3: expected a node"),
    ("graph f(%x: q8[3]) {\n  return %x\n}", r"line 1: unknown dtype 'q8'"),
    ("graph f(%x: f32[3]) {\n  %0:f32[] = reduce_sum(%x) {axes=(0,}\n  return %0\n}", r"line 2: an attr value is missing"),
    ("graph f(%x: f32[3]) {\n  %0:f32[3] = reshape(%x) {shape=(3,)} junk\n  return %0\n}", r"line 2: unexpected text"),
    ("graph f(%x: f32[3]) {\n  %0:f32[2] = reshape(%x) {shape=(2,)}\n  return %0\n}", r"line 2: reshape: cannot reshape"),
    ("graph f(%x: f32[3]) {\n  return %x\n}\nextra", r"line 4: text after the end"),
    ("graph f(%x: f32[3]) {\n  return w <- %x, %x\n}", r"line 2: user outputs must come before state"),
    ("graph f(%x: f32[6,5]) {\n  %0:i32[6] = argmax(%x) {axis=1, index_dtype=int32}\n  return %0\n}",
     r"line 2: argmax: 'int32' is not a dtype; write dtypes as the printer does"),
])
def test_malformed_text_names_the_line(text, message):
    with pytest.raises(ParseError, match=message):
        parse_graph(text)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(random_graphs())
def test_print_parse_print_is_the_identity_on_random_graphs(graph):
    for source in (True, False):
        round_trip(graph, source)

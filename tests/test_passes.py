"""Optimisation passes and the pass manager: before/after on tiny graphs written as IR text
(changed flag, the new text, equal outputs on random inputs), LeNet5 pipelines, and a
hypothesis property: every pass preserves outputs on random graphs."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import graphcell as ms
from graphcell.ir import format_graph, verify
from graphcell.ir.core import Graph, TensorType
from graphcell.ir.parser import ParseError, parse_graph
from graphcell.passes import (PIPELINES, FoldConstants, PassError, PassResult, cse, dce, fold_constants,
                              run_passes, run_pipeline, simplify)
from graphcell.passes.grad import grad_graph
from graphcell.passes.simplify import exact_cast
from graphcell.passes.vmap import vmap_graph
from tests.conftest import load_lenet
from tests.pass_helpers import assert_same_outputs, extra_primitives, ir, parse, random_graphs, show

ALL_PASSES = [("dce", dce), ("cse", cse), ("fold", fold_constants), ("simplify", simplify),
              ("xla", lambda g: run_pipeline(g, "xla")), ("onnx", lambda g: run_pipeline(g, "onnx"))]


@pytest.fixture(autouse=True)
def _test_primitives():
    with extra_primitives():
        yield


def check(pass_, before: str, after: str, changed: bool = True) -> Graph:
    """Runs `pass_` on the graph `before`: the flag, the new text, the outputs, and that the
    input graph is left as it was."""
    graph = parse(before)
    users = [len(v.users) for v in graph.inputs]
    result = pass_(graph)
    assert isinstance(result, PassResult) and result.changed is changed
    assert show(result.graph) == ir(after)
    if not changed:
        assert result.graph is graph
    assert show(graph) == ir(before) and [len(v.users) for v in graph.inputs] == users
    verify(result.graph)
    assert_same_outputs(graph, result.graph)
    return result.graph


# -- dce ---------------------------------------------------------------------------------------

def test_dce_drops_dead_pure_nodes_and_keeps_effects_and_state():
    check(dce, """
        graph step(%x: f32[3], %w: f32[3] param) {
          %0:f32[3] = exp(%x)  # a model.py:1
          %1:f32[3] = test_effect(%0)
          %2:f32[3] = sin(%x)
          %3:f32[3] = mul(%x, %x)  # b model.py:3
          %4:f32[3] = add(%w, %3)  # c model.py:4
          return %3, w <- %4
        }""", """
        graph step(%x: f32[3], %w: f32[3] param) {
          %0:f32[3] = exp(%x)  # a model.py:1
          %1:f32[3] = test_effect(%0)
          %2:f32[3] = mul(%x, %x)  # b model.py:3
          %3:f32[3] = add(%w, %2)  # c model.py:4
          return %2, w <- %3
        }""")


def test_dce_leaves_a_clean_graph_alone():
    check(dce, """
        graph f(%x: f32[3], %unused: f32[2]) {
          %0:f32[3] = neg(%x)
          return %0
        }""", """
        graph f(%x: f32[3], %unused: f32[2]) {
          %0:f32[3] = neg(%x)
          return %0
        }""", changed=False)


def test_dce_reaches_into_subgraphs():
    check(dce, """
        graph f(%x: f32[3]) {
          %0:f32[3] = test_call(%x)
            body:
            graph body(%a: f32[3]) {
              %1:f32[3] = exp(%a)
              %2:f32[3] = neg(%a)
              return %2
            }
          return %0
        }""", """
        graph f(%x: f32[3]) {
          %0:f32[3] = test_call(%x)
            body:
            graph body(%a: f32[3]) {
              %1:f32[3] = neg(%a)
              return %1
            }
          return %0
        }""")


# -- cse ---------------------------------------------------------------------------------------

def test_cse_merges_chains_and_equal_constants_first_source_wins():
    check(cse, """
        graph f(%x: f32[3]) {
          %0:f32[] = constant() {value=2.0}
          %1:f32[3] = mul(%x, %0)  # first model.py:1
          %2:f32[] = constant() {value=2.0}
          %3:f32[3] = mul(%x, %2)  # second model.py:2
          %4:f32[3] = exp(%1)
          %5:f32[3] = exp(%3)
          %6:f32[3] = sub(%4, %5)
          return %6
        }""", """
        graph f(%x: f32[3]) {
          %0:f32[] = constant() {value=2.0}
          %1:f32[3] = mul(%x, %0)  # first model.py:1
          %2:f32[3] = exp(%1)
          %3:f32[3] = sub(%2, %2)
          return %3
        }""")


def test_cse_keeps_impure_nodes_and_different_attrs_apart():
    check(cse, """
        graph f(%x: f32[2,3]) {
          %0:f32[2,3] = test_effect(%x)
          %1:f32[2,3] = test_effect(%x)
          %2:f32[3] = reduce_sum(%x) {axes=(0,)}
          %3:f32[2] = reduce_sum(%x) {axes=(1,)}
          %4:f32[] = constant() {value=1.0}
          %5:f64[] = constant() {value=1.0}
          return %0, %1, %2, %3, %4, %5
        }""", """
        graph f(%x: f32[2,3]) {
          %0:f32[2,3] = test_effect(%x)
          %1:f32[2,3] = test_effect(%x)
          %2:f32[3] = reduce_sum(%x) {axes=(0,)}
          %3:f32[2] = reduce_sum(%x) {axes=(1,)}
          %4:f32[] = constant() {value=1.0}
          %5:f64[] = constant() {value=1.0}
          return %0, %1, %2, %3, %4, %5
        }""", changed=False)


# -- fold --------------------------------------------------------------------------------------

def test_fold_evaluates_constant_subexpressions():
    g = check(fold_constants, """
        graph f(%x: f32[2]) {
          %0:f32[] = constant() {value=2.0}
          %1:f32[] = exp(%0)  # scale model.py:7
          %2:f32[2] = broadcast_in_dim(%1) {dims=(), shape=(2,)}
          %3:f32[2] = mul(%x, %2)
          return %3
        }""", """
        graph f(%x: f32[2]) {
          %0:f32[] = constant() {value=2.0}
          %1:f32[] = constant() {value=7.389056}  # scale model.py:7
          %2:f32[2] = constant() {value=[7.389056,7.389056]}
          %3:f32[2] = mul(%x, %2)
          return %3
        }""")
    import jax.numpy as jnp  # the value is jax's exp (what XLA computes), not numpy's
    assert np.float32(7.389056) == np.asarray(jnp.exp(np.float32(2.0)))
    assert show(dce(g).graph).count("constant") == 1


def test_fold_respects_its_size_limits():
    before = """
        graph f(%x: f32[4]) {
          %0:f32[] = constant() {value=1.5}
          %1:f32[40,40] = broadcast_in_dim(%0) {dims=(), shape=(40,40)}
          %2:f32[4] = constant() {value=[1.0,2.0,3.0,4.0]}
          %3:f32[4] = neg(%2)
          %4:f32[4] = add(%x, %3)
          return %1, %4
        }"""
    # A broadcast to 1600 elements is cheaper to keep than to store (max_expand=1024).
    check(fold_constants, before, """
        graph f(%x: f32[4]) {
          %0:f32[] = constant() {value=1.5}
          %1:f32[40,40] = broadcast_in_dim(%0) {dims=(), shape=(40,40)}
          %2:f32[4] = constant() {value=[1.0,2.0,3.0,4.0]}
          %3:f32[4] = constant() {value=[-1.0,-2.0,-3.0,-4.0]}
          %4:f32[4] = add(%x, %3)
          return %1, %4
        }""")
    # Nothing over max_elements folds.
    check(FoldConstants(max_elements=3), before, before, changed=False)


def test_fold_keeps_random_draws_from_constant_keys_exact():
    g = parse("""
        graph f() {
          %0:u32[2] = constant() {value=[0,42]}
          %1:f32[3] = random_uniform(%0) {dtype=Float32, shape=(3,)}
          return %1
        }""")
    folded = fold_constants(g)
    assert folded.changed and "random_uniform" not in show(dce(folded.graph).graph)
    assert_same_outputs(g, folded.graph, rtol=0, atol=0)


# -- simplify ----------------------------------------------------------------------------------

def test_simplify_arithmetic_identities():
    check(simplify, """
        graph f(%x: f32[2,3], %y: f32[3]) {
          %0:f32[] = constant() {value=1.0}
          %1:f32[] = constant() {value=0.0}
          %2:f32[2,3] = mul(%x, %0)
          %3:f32[2,3] = add(%1, %2)
          %4:f32[2,3] = sub(%3, %1)
          %5:f32[2,3] = div(%4, %0)
          %6:f32[2,3] = pow(%5, %0)
          %7:f32[2,3] = neg(%6)
          %8:f32[2,3] = neg(%7)
          %9:f32[2,3] = max(%8, %8)
          %10:f32[2,3] = constant() {value=[[0.0,-0.0,0.0],[0.0,0.0,0.0]]}
          %11:f32[2,3] = add(%y, %10)
          %12:f32[3] = mul(%y, %0)
          %13:f32[2,3] = add(%9, %12)
          return %13, %11
        }""", """
        graph f(%x: f32[2,3], %y: f32[3]) {
          %0:f32[] = constant() {value=1.0}
          %1:f32[] = constant() {value=0.0}
          %2:f32[2,3] = neg(%x)
          %3:f32[2,3] = constant() {value=[[0.0,-0.0,0.0],[0.0,0.0,0.0]]}
          %4:f32[2,3] = broadcast_in_dim(%y) {dims=(1,), shape=(2,3)}
          %5:f32[2,3] = add(%x, %y)
          return %5, %4
        }""")


def test_simplify_casts_and_selects():
    check(simplify, """
        graph f(%x: f32[3], %i: i32[3], %p: bool[3]) {
          %0:f32[3] = cast(%x) {dtype=Float32}
          %1:f64[3] = cast(%x) {dtype=Float64}
          %2:f32[3] = cast(%1) {dtype=Float32}
          %3:f64[3] = cast(%i) {dtype=Float64}
          %4:f32[3] = cast(%3) {dtype=Float32}
          %5:f16[3] = cast(%x) {dtype=Float16}
          %6:f32[3] = cast(%5) {dtype=Float32}
          %7:bool[] = constant() {value=True}
          %8:f32[3] = select(%7, %2, %6)
          %9:bool[3] = constant() {value=[False,False,False]}
          %10:f32[3] = select(%9, %0, %4)
          %11:f32[3] = select(%p, %6, %6)
          return %8, %10, %11
        }""", """
        graph f(%x: f32[3], %i: i32[3], %p: bool[3]) {
          %0:f64[3] = cast(%x) {dtype=Float64}
          %1:f64[3] = cast(%i) {dtype=Float64}
          %2:f32[3] = cast(%i) {dtype=Float32}
          %3:f16[3] = cast(%x) {dtype=Float16}
          %4:f32[3] = cast(%3) {dtype=Float32}
          %5:bool[] = constant() {value=True}
          %6:bool[3] = constant() {value=[False,False,False]}
          return %x, %2, %4
        }""")


def test_exact_cast_table():
    assert exact_cast(ms.int32, ms.float64) and not exact_cast(ms.int64, ms.float64)
    assert exact_cast(ms.float16, ms.float32) and not exact_cast(ms.bfloat16, ms.float16)
    assert exact_cast(ms.bool_, ms.uint8) and not exact_cast(ms.float32, ms.int64)
    assert exact_cast(ms.uint8, ms.int16) and not exact_cast(ms.int8, ms.uint32)


def test_simplify_layout_chains_keep_mapped_axes_and_sources():
    check(simplify, """
        graph f(%x: f32[vmap:4,2,3], %y: f32[2,1,3]) {
          %0:f32[2,3,vmap:4] = transpose(%x) {perm=(1,2,0)}  # t1 model.py:1
          %1:f32[3,vmap:4,2] = transpose(%0) {perm=(1,2,0)}  # t2 model.py:2
          %2:f32[vmap:4,2,3] = transpose(%1) {perm=(1,2,0)}  # t3 model.py:3
          %3:f32[vmap:4,2,3] = transpose(%2) {perm=(0,1,2)}
          %4:f32[4,6] = reshape(%3) {shape=(4,6)}  # r1 model.py:4
          %5:f32[vmap:4,3,2] = reshape(%4) {shape=(4,3,2)}  # r2 model.py:5
          %6:f32[vmap:4,2,3] = reshape(%5) {shape=(4,2,3)}  # r3 model.py:6
          %7:f32[1,2,3] = transpose(%y) {perm=(1,0,2)}  # unit model.py:7
          %8:f32[2,3] = reshape(%7) {shape=(2,3)}
          return %6, %8
        }""", """
        graph f(%x: f32[vmap:4,2,3], %y: f32[2,1,3]) {
          %0:f32[2,3,vmap:4] = transpose(%x) {perm=(1,2,0)}  # t1 model.py:1
          %1:f32[3,vmap:4,2] = transpose(%x) {perm=(2,0,1)}  # t2 model.py:2
          %2:f32[4,6] = reshape(%x) {shape=(4,6)}  # r1 model.py:4
          %3:f32[vmap:4,3,2] = reshape(%x) {shape=(4,3,2)}  # r2 model.py:5
          %4:f32[1,2,3] = reshape(%y) {shape=(1,2,3)}  # unit model.py:7
          %5:f32[2,3] = reshape(%y) {shape=(2,3)}
          return %x, %5
        }""")


def test_simplify_broadcasts_reductions_and_trivial_data_movement():
    check(simplify, """
        graph f(%x: f32[3], %z: f32[2,1]) {
          %0:f32[3] = broadcast_in_dim(%x) {dims=(0,), shape=(3,)}
          %1:f32[2,3] = broadcast_in_dim(%0) {dims=(1,), shape=(2,3)}
          %2:f32[5,2,3] = broadcast_in_dim(%1) {dims=(1,2), shape=(5,2,3)}
          %3:f32[1,3,1] = broadcast_in_dim(%x) {dims=(1,), shape=(1,3,1)}
          %4:f32[3] = reduce_sum(%3) {axes=(0,2)}
          %5:f32[2] = reduce_max(%z) {axes=(1,)}
          %6:f32[2,1] = slice(%z) {limit=(2,1), start=(0,0), strides=(1,1)}
          %7:f32[] = constant() {value=0.0}
          %8:f32[2,1] = pad(%6, %7) {hi=(0,0), lo=(0,0)}
          %9:f32[2,1] = concatenate(%8) {axis=0}
          return %2, %4, %5, %9
        }""", """
        graph f(%x: f32[3], %z: f32[2,1]) {
          %0:f32[2,3] = broadcast_in_dim(%x) {dims=(1,), shape=(2,3)}
          %1:f32[5,2,3] = broadcast_in_dim(%x) {dims=(2,), shape=(5,2,3)}
          %2:f32[1,3,1] = reshape(%x) {shape=(1,3,1)}
          %3:f32[2] = reshape(%z) {shape=(2,)}
          %4:f32[] = constant() {value=0.0}
          return %1, %x, %3, %z
        }""")


def test_simplify_leaves_real_work_alone():
    text = """
        graph f(%x: f32[2,3]) {
          %0:f32[] = constant() {value=2.0}
          %1:f32[2,3] = mul(%x, %0)
          %2:f32[3,2] = transpose(%1) {perm=(1,0)}
          %3:f32[6] = reshape(%2) {shape=(6,)}
          %4:f32[3] = reduce_sum(%x) {axes=(0,)}
          return %3, %4
        }"""
    check(simplify, text, text, changed=False)


# -- the pass manager --------------------------------------------------------------------------

def test_pipelines_are_named_lists_of_passes():
    assert set(PIPELINES) >= {"xla", "onnx"}
    for backend, passes in PIPELINES.items():
        names = [name for name, _ in passes]
        # dce last, but for XLA's tiling, which only wraps the final graph
        assert names[-1] == ("tile_rows" if backend == "xla" else "dce") and "dce" in names
        assert all(callable(p) for _, p in passes)
    with pytest.raises(ValueError, match="unknown pass pipeline 'tpu'"):
        run_pipeline(parse("graph f() {\n  return\n}"), "tpu")


def test_run_pipeline_writes_one_dump_per_pass(tmp_path):
    graph = parse("""
        graph f(%x: f32[vmap:2,3]) {
          %0:f32[] = constant() {value=1.0}
          %1:f32[vmap:2,3] = mul(%x, %0)
          %2:f32[vmap:2,3] = mul(%x, %0)
          %3:f32[vmap:2,3] = add(%1, %2)  # sum model.py:3
          return %3
        }""")
    result = run_pipeline(graph, "xla", dump_dir=tmp_path / "dumps")
    assert result.changed
    assert show(result.graph) == ir("""
        graph f(%x: f32[vmap:2,3]) {
          %0:f32[vmap:2,3] = add(%x, %x)  # sum model.py:3
          return %0
        }""")
    names = sorted(p.name for p in (tmp_path / "dumps").iterdir())
    one_round = ["cse", "merge_scans", "fold", "simplify", "cse", "dce", "tile_rows"]
    # Round 1 changes the graph, so round 2 runs (and finds nothing more to do).
    assert names == ["00-input.ir"] + [f"{i + 1:02d}-{n}.ir" for i, n in enumerate(one_round * 2)]
    assert (tmp_path / "dumps" / "00-input.ir").read_text() == show(graph) + "\n"
    assert (tmp_path / "dumps" / "03-fold.ir").read_text() == (tmp_path / "dumps" / "01-cse.ir").read_text()
    assert (tmp_path / "dumps" / "06-dce.ir").read_text() == show(result.graph) + "\n"
    assert (tmp_path / "dumps" / "14-tile_rows.ir").read_text() == show(result.graph) + "\n"
    for name in names:  # every dump is valid IR text
        text = (tmp_path / "dumps" / name).read_text().rstrip("\n")
        assert show(parse_graph(text)) == text


def _broken_pass(graph):
    """Claims a wrong output type for the first node: what a buggy pass might do."""
    new = parse_graph(show(graph))
    new.nodes[0].outputs[0].type = TensorType((7,), ms.float32)
    return PassResult(new, True)


def test_debug_mode_verifies_between_passes(monkeypatch):
    graph = parse("""
        graph f(%x: f32[3]) {
          %0:f32[3] = neg(%x)
          return %0
        }""")
    passes = [("cse", cse), ("broken", _broken_pass), ("dce", dce)]
    run_passes(graph, passes, verify_each=False)  # not checked: goes through
    with pytest.raises(PassError, match=r"pass 2 \('broken'\) produced an invalid graph") as info:
        run_passes(graph, passes, verify_each=True)
    assert "<--" in str(info.value)  # the verifier marks the bad line
    monkeypatch.setenv("GRAPHCELL_VERIFY", "1")
    with pytest.raises(PassError):
        run_passes(graph, passes)
    monkeypatch.delenv("GRAPHCELL_VERIFY")
    run_passes(graph, passes)
    ms.set_context(debug=True)
    try:
        with pytest.raises(PassError):
            run_passes(graph, passes)
    finally:
        ms.set_context(debug=False)


# -- LeNet5 ------------------------------------------------------------------------------------

def _lenet_graph(batch=2):
    net = load_lenet(0)
    return ms.trace(net, ms.Tensor(np.zeros((batch, 1, 32, 32), np.float32))).graph


def test_lenet5_forward_is_already_lean():
    graph = _lenet_graph()
    result = run_pipeline(graph, "xla")
    assert not result.changed and result.graph is graph


def _lenet_ensemble_and_gradient():
    graph = _lenet_graph()
    n_in = len(graph.inputs)
    return vmap_graph(graph, [None] + [0] * (n_in - 1), [0], 4), grad_graph(graph, wrt=list(range(1, n_in)))


def test_pipeline_on_lenet5_ensemble():
    # (the "onnx" pipeline leaves this graph alone: no simplify; onnxruntime merges the reshapes)
    ensemble, _ = _lenet_ensemble_and_gradient()
    result = run_pipeline(ensemble, "xla", verify_each=True)
    assert result.changed and len(result.graph.nodes) < len(ensemble.nodes)
    assert result.graph.outputs[0].mapped_axis == 0  # the ensemble's mapped axis survives
    assert "reshape(%0) {shape=(24,1,5,5)}" in show(ensemble)  # vmap's reshape chain ...
    assert "reshape(%conv1.weight) {shape=(24,1,5,5)}" in show(result.graph)  # ... is one reshape
    assert_same_outputs(ensemble, result.graph, seeds=(0,), rtol=1e-5, atol=1e-5, jit=True)


def test_pipeline_on_lenet5_gradient_drops_nodes():
    _, gradient = _lenet_ensemble_and_gradient()
    result = run_pipeline(gradient, "xla", verify_each=True)
    assert result.changed and len(result.graph.nodes) < len(gradient.nodes)
    text = show(result.graph)
    assert "transpose(%x)" not in text and "reshape(%x) {shape=(1,2,32,32)}" in text  # a unit-axis move


@pytest.mark.slow  # compiling LeNet5's backward graph twice takes several seconds on a busy CPU
def test_pipeline_on_lenet5_gradient_keeps_outputs():
    _, gradient = _lenet_ensemble_and_gradient()
    result = run_pipeline(gradient, "xla")
    assert_same_outputs(gradient, result.graph, seeds=(0,), rtol=1e-5, atol=1e-5, jit=True)


# -- property: every pass preserves outputs on random graphs -------------------------------------

@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(random_graphs())
def test_every_pass_preserves_outputs(graph):
    verify(graph)
    before = format_graph(graph, source=True)
    for name, pass_ in ALL_PASSES:
        result = pass_(graph)
        verify(result.graph)
        assert result.changed or result.graph is graph, name
        assert_same_outputs(graph, result.graph, seeds=(0,), rtol=1e-5, atol=1e-6)
        # print -> parse -> print is the identity on pass results too (but for the constants
        # the printer abbreviates, which are refused with a clear error).
        text = format_graph(result.graph, source=True)
        if "values>" in text:
            with pytest.raises(ParseError, match="abbreviated"):
                parse_graph(text)
        else:
            assert format_graph(parse_graph(text), source=True) == text
    assert format_graph(graph, source=True) == before  # no pass mutated its input
    # Passes reach a fixed point: running the pipeline twice changes nothing more.
    once = run_pipeline(graph, "xla").graph
    again = run_pipeline(once, "xla")
    assert not again.changed, f"{show(once)}\n---\n{show(again.graph)}"


def test_found_by_fuzzing_the_passes():
    """simplify merged u8 -> f64 -> i8 into u8 -> i8 (saturating became wrapping); folding ran
    cast with numpy (300.0 -> uint8 gave 44 folded, 255 unfolded); CSE merged alphas 0.0 and
    -0.0 (equal as floats); reduce_max over an empty axis passed the shape rule."""
    from graphcell.compiler.to_jax import graph_to_jax
    chain = parse("""
        graph g(%x: u8[3]) {
          %0:f64[3] = cast(%x) {dtype=Float64}
          %1:i8[3] = cast(%0) {dtype=Int8}
          return %1
        }""")
    x = np.array([1, 200, 251], np.uint8)
    (want,) = graph_to_jax(chain)(x)
    (got,) = graph_to_jax(simplify(chain).graph)(x)
    np.testing.assert_array_equal(got, want)
    folded = parse("""
        graph f() {
          %0:f32[2] = constant() {value=[300.0, -1.0]}
          %1:u8[2] = cast(%0) {dtype=UInt8}
          return %1
        }""")
    (unfolded,) = graph_to_jax(folded)()
    (after,) = graph_to_jax(fold_constants(folded).graph)()
    np.testing.assert_array_equal(after, unfolded)
    zeros = parse("""
        graph z(%x: f32[1]) {
          %0:f32[1] = leaky_relu(%x) {alpha=-0.0}
          %1:f32[1] = leaky_relu(%x) {alpha=0.0}
          return %0, %1
        }""")
    assert len(cse(zeros).graph.nodes) == 2
    with pytest.raises(ParseError, match="include one of size 0"):
        parse("""
            graph e(%x: f32[2,0]) {
              %0:f32[2] = reduce_max(%x) {axes=(1,)}
              return %0
            }""")


def test_inputs_sharing_a_name_survive_text_and_json():
    """Two unnamed Parameters are both 'Parameter': the text form refused to parse and the JSON
    form silently wired both uses to the second."""
    from graphcell.ir import from_json, to_json
    from graphcell.frontend.trace import trace
    a = ms.Parameter(ms.Tensor(np.array([1.0, 2.0], np.float32)))
    b = ms.Parameter(ms.Tensor(np.array([3.0, 5.0], np.float32)))
    graph = trace(lambda x: x * a - b, ms.Tensor(np.ones(2, np.float32))).graph
    assert len({v.name for v in graph.inputs}) == len(graph.inputs)
    for copy in (parse_graph(format_graph(graph)), from_json(to_json(graph))):
        assert_same_outputs(graph, copy)


def test_fold_evaluates_element_moves_with_numpy_exactly_as_xla():
    """Folding ran every primitive through jax, one compile per primitive and shape; the
    primitives that only move elements fold with numpy, which must give the jax impl's array."""
    from graphcell.ops import PRIMITIVES, core_prims, row_writes, shape_ops
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 1, 3)).astype(np.float32)
    cases = [
        (shape_ops.reshape, (x,), {"shape": (3, 2)}),
        (shape_ops.broadcast_in_dim, (x,), {"shape": (4, 2, 5, 3), "dims": (1, 2, 3)}),
        (shape_ops.broadcast_in_dim, (np.float32(2.5),), {"shape": (2, 2), "dims": ()}),
        (shape_ops.transpose, (x,), {"perm": (2, 0, 1)}),
        (shape_ops.slice_, (x,), {"start": (0, 0, 1), "limit": (2, 1, 3), "strides": (1, 1, 2)}),
        (shape_ops.rev, (x,), {"axes": (0, 2)}),
        (shape_ops.concatenate, (x, x[:, :, :1]), {"axis": 2}),
        # a negative or too-large index clamps to the first or last row, in both
        (row_writes.write_rows, (np.zeros((4, 3), np.float32), np.array([2, -1, 7], np.int32),
                                 rng.standard_normal((3, 3)).astype(np.float32)), {}),
        (core_prims.cast, (np.array([3, -(2 ** 24), 2 ** 24], np.int64),), {"dtype": ms.float32}),  # more below
    ]
    assert {c[0] for c in cases} == {p for p in PRIMITIVES.values() if p.host_impl}
    for prim, args, attrs in cases:
        np.testing.assert_array_equal(prim.host_impl(*args, **attrs), np.asarray(prim.impl(*args, **attrs)),
                                      err_msg=prim.name)


def test_fold_casts_with_numpy_only_where_numpy_equals_xla(monkeypatch):
    """Momentum's int64 -> float32 scalar casts were two eager XLA compiles in every process. A
    cast folds with numpy where that is exact (widenings, integers a float's mantissa holds),
    bit for bit XLA's result; a rounding, saturating or NaN-carrying cast still runs XLA's."""
    from graphcell.ops import core_prims
    with np.errstate(over="ignore", invalid="ignore"):
        cases = [  # array, target, numpy's cast is exact
            (np.array(3, np.int64), ms.float32, True),
            (np.array([-(2 ** 24), 2 ** 24, 7], np.int64), ms.float32, True),
            (np.array([2 ** 24 + 1], np.int64), ms.float32, False),      # rounds
            (np.array([-(2 ** 53), 2 ** 53], np.int64), ms.float64, True),
            (np.array([2 ** 53 + 1], np.int64), ms.float64, False),
            (np.array([2048, -2048], np.int32), ms.float16, True),
            (np.array([2049], np.int32), ms.float16, False),
            (np.array([255, 0], np.uint8), ms.float16, True),
            (np.array([True, False]), ms.float32, True),
            (np.array([-3, 100], np.int8), ms.int64, True),
            (np.array([1.5, -np.inf, -0.0, 65504], np.float16), ms.float32, True),
            (np.array([1.2e-38, 3.4e38], np.float32), ms.float64, True),
            (np.array([1e-40], np.float32), ms.float64, False),              # subnormal: XLA flushes it
            (np.array([1.5, np.nan], np.float32), ms.float64, False),       # NaN payloads: XLA's
            (np.array([1e10, 1.0000001], np.float64), ms.float32, False),   # rounds
            (np.array([300.5, -7.9, np.nan], np.float32), ms.uint8, False),  # numpy wraps, XLA saturates
            (np.array([1.5 + 2j], np.complex64), ms.float32, False),        # the real part
            (np.array([1.0, 3.0], np.float32), ms.complex64, False),        # complex: XLA's
            (np.array([1.0, 3.0], np.float32), ms.bfloat16, False),         # narrowing
            (np.array([-256, 256], np.int64), ms.bfloat16, True),
            (np.array([257], np.int64), ms.bfloat16, False),
            (np.array([6e-8, -1.5], np.float16), ms.float64, False),        # subnormal
            (np.array([6.2e-5, -1.5], np.float16), ms.float64, True),
            (np.array([np.nan], np.float16), ms.float32, False),
            (np.array([5, 6], np.int64), ms.int32, False),                  # narrowing
        ]
    via_xla = []
    jax_cast = core_prims._cast_impl
    monkeypatch.setattr(core_prims, "_cast_impl", lambda x, *, dtype: (via_xla.append(1), jax_cast(x, dtype=dtype))[1])
    for array, dtype, exact in cases:
        via_xla.clear()
        folded = core_prims.cast.host_impl(array, dtype=dtype)
        assert bool(via_xla) != exact, (array, dtype)
        ours, xla = np.asarray(folded), np.asarray(jax_cast(array, dtype=dtype))
        assert ours.dtype == xla.dtype == np.dtype(dtype.np_dtype), (array, dtype)
        assert ours.tobytes() == xla.tobytes(), (array, dtype)

"""Row tiling (passes/tile_rows.py, ops/tiling.py): which graphs are row-wise, the tiled graph
as IR text, outputs equal to the untiled graph's on random inputs, random graphs, and whole
models (LeNet5 ensembles against MindSpore's outputs and a per-member loop; training steps
and batch statistics left untiled)."""
import contextlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import graphcell as ms
from graphcell import nn
from graphcell.ir import verify
from graphcell.ir.parser import parse_graph
from graphcell.ops.tiling import tile_rows as tile_rows_p
from graphcell.passes import run_pipeline
from graphcell.passes.tile_rows import MAX_TILES, MIN_TILE_ROWS, TILE_BYTES, choose_tile, tile_rows
from tests.conftest import golden_array, load_lenet
from tests.pass_helpers import assert_same_outputs, extra_primitives, ir, parse, random_graphs, show


@contextlib.contextmanager
def row_tile(rows):
    """set_context(row_tile=rows) for a while."""
    ms.set_context(row_tile=rows)
    try:
        yield
    finally:
        ms.set_context(row_tile=None)


def tiled(text: str, rows: int = 4):
    """Runs the pass with `rows`-row tiles on the graph `text`: (input graph, result)."""
    with row_tile(rows), extra_primitives():
        graph = parse(text)
        result = tile_rows(graph)
    return graph, result


def assert_tiled(text: str, rows: int = 4):
    graph, result = tiled(text, rows)
    assert result.changed, "expected the graph to be tiled"
    (node,) = result.graph.nodes
    assert node.primitive is tile_rows_p
    verify(result.graph)
    assert_same_outputs(graph, result.graph)
    assert_same_outputs(graph, result.graph, jit=True)
    return node


def test_a_dense_graph_runs_in_tiles_and_a_tail():
    graph, result = tiled("""
        graph f(%x: f32[10,3], %w: f32[3,2] param, %b: f32[2] param) {
          %0:f32[10,2] = dot_general(%x, %w) {batch=((),()), contract=((1,),(0,))}
          %1:f32[1,2] = reshape(%b) {shape=(1,2)}
          %2:f32[10,2] = add(%0, %1)
          %3:f32[10] = reduce_max(%2) {axes=(1,)}
          return %3, %2
        }""")
    assert result.changed
    assert show(result.graph) == ir("""
        graph f(%x: f32[10,3], %w: f32[3,2] param, %b: f32[2] param) {
          %0:f32[10], %1:f32[10,2] = tile_rows(%x, %w, %b) {in_rows=(0,None,None), out_rows=(0,0), rows=10}
            body:
            graph f_tile(%x: f32[4,3], %w: f32[3,2] param, %b: f32[2] param) {
              %2:f32[4,2] = dot_general(%x, %w) {batch=((),()), contract=((1,),(0,))}
              %3:f32[1,2] = reshape(%b) {shape=(1,2)}
              %4:f32[4,2] = add(%2, %3)
              %5:f32[4] = reduce_max(%4) {axes=(1,)}
              return %5, %4
            }
            tail:
            graph f_tail(%x: f32[2,3], %w: f32[3,2] param, %b: f32[2] param) {
              %6:f32[2,2] = dot_general(%x, %w) {batch=((),()), contract=((1,),(0,))}
              %7:f32[1,2] = reshape(%b) {shape=(1,2)}
              %8:f32[2,2] = add(%6, %7)
              %9:f32[2] = reduce_max(%8) {axes=(1,)}
              return %9, %8
            }
          return %0, %1
        }""")
    verify(result.graph)
    assert_same_outputs(graph, result.graph)
    assert_same_outputs(graph, result.graph, jit=True)
    # the dump parses back to the same graph
    assert show(parse_graph(show(result.graph))) == show(result.graph)


def test_rows_that_split_evenly_have_no_tail_and_row_free_outputs_come_from_one_tile():
    node = assert_tiled("""
        graph f(%x: f32[8,3], %w: f32[3] param) {
          %0:f32[8,3] = mul(%x, %w)
          %1:f32[3] = exp(%w)
          return %0, %1, w <- %1
        }""")
    assert node.attrs["tail"] is None and node.attrs["out_rows"] == (0, None, None)


# Graphs whose output rows each depend on one input row: every row rule, positive cases.
ROW_WISE = {
    "conv_relu_pool_flatten": """
        graph f(%x: f32[6,1,6,6], %w: f32[2,1,3,3] param) {
          %0:f32[6,2,4,4] = conv(%x, %w) {batch_groups=1, groups=1, lhs_dilation=(1,1), padding=((0,0),(0,0)), rhs_dilation=(1,1), strides=(1,1)}
          %1:f32[] = constant() {value=0.0}
          %2:f32[6,2,4,4] = max(%0, %1)
          %3:f32[6,2,2,2] = reduce_window_max(%2) {padding=((0,0),(0,0),(0,0),(0,0)), strides=(1,1,2,2), window=(1,1,2,2)}
          %4:f32[6,8] = reshape(%3) {shape=(6,8)}
          return %4
        }""",
    "upsampling": """
        graph f(%x: f32[6,2,3,4]) {
          %0:f32[6,2,6,8] = resize(%x) {align_corners=False, method=linear, scales=None, sizes=(6,8)}
          return %0
        }""",
    "input_gradient_convolution": """
        graph f(%ct: f32[6,2,4,4], %w: f32[2,1,3,3] param) {
          %0:f32[6,1,6,6] = conv_transpose(%ct, %w) {groups=1, lhs_shape=(6,6), padding=((0,0),(0,0)), rhs_dilation=(1,1), strides=(1,1)}
          return %0
        }""",
    "rows_moved_by_transpose_and_reshape": """
        graph f(%x: f32[6,2,3]) {
          %0:f32[3,6,2] = transpose(%x) {perm=(2,0,1)}
          %1:f32[3,6,2,1] = reshape(%0) {shape=(3,6,2,1)}
          %2:f32[1,3,6,2] = reshape(%0) {shape=(1,3,6,2)}
          return %1, %2
        }""",
    "broadcast_and_select": """
        graph f(%x: f32[6], %y: f32[6,4]) {
          %0:f32[6,4] = broadcast_in_dim(%x) {dims=(0,), shape=(6,4)}
          %1:f32[] = constant() {value=0.0}
          %2:bool[6,4] = gt(%y, %1)
          %3:f32[6,4] = select(%2, %0, %y)
          return %3
        }""",
    "argmax_and_sum_over_features": """
        graph f(%x: f32[6,5]) {
          %0:i32[6] = argmax(%x) {axis=1, index_dtype=Int32}
          %1:f32[6] = reduce_sum(%x) {axes=(1,)}
          return %0, %1
        }""",
    "embedding_lookup": """
        graph f(%ids: i32[6,3], %table: f32[10,4] param) {
          %0:f32[6,3,4] = take(%table, %ids) {axis=0}
          return %0
        }""",
    "take_from_rows_with_fixed_indices": """
        graph f(%x: f32[6,5]) {
          %0:i32[2] = constant() {value=[4,1]}
          %1:f32[6,2] = take(%x, %0) {axis=1}
          return %1
        }""",
    "concat_slice_pad_on_features": """
        graph f(%x: f32[6,3], %y: f32[6,2]) {
          %0:f32[6,5] = concatenate(%x, %y) {axis=1}
          %1:f32[6,3] = slice(%0) {limit=(6,4), start=(0,1), strides=(1,1)}
          %2:f32[] = constant() {value=0.0}
          %3:f32[6,5] = pad(%1, %2) {hi=(0,1), lo=(0,1)}
          %4:i32[6] = argmin(%3) {axis=1, index_dtype=Int32}
          %5:f32[6,5] = rev(%3) {axes=(1,)}
          return %5, %4
        }""",
    "both_operands_rowed_as_a_batch_pair": """
        graph f(%x: f32[6,2,3], %y: f32[6,3,4]) {
          %0:f32[6,2,4] = dot_general(%x, %y) {batch=((0,),(0,)), contract=((2,),(1,))}
          return %0
        }""",
    "rows_of_the_right_operand": """
        graph f(%w: f32[4,3] param, %x: f32[6,3]) {
          %0:f32[4,6] = dot_general(%w, %x) {batch=((),()), contract=((1,),(1,))}
          return %0
        }""",
    "an_ensemble_input_rows_after_the_vmap_axis": """
        graph f(%x: f32[vmap:2,6,3], %w: f32[vmap:2,3,4] param) {
          %0:f32[2,6,4] = dot_general(%x, %w) {batch=((0,),(0,)), contract=((2,),(1,))}
          return %0
        }""",
    "take_along_features": """
        graph f(%x: f32[6,5], %i: i32[6,2]) {
          %0:f32[6,2] = take_along_axis(%x, %i) {axis=1}
          return %0
        }""",
}


@pytest.mark.parametrize("name", sorted(ROW_WISE))
def test_row_wise_graphs_are_tiled_with_equal_outputs(name):
    assert_tiled(ROW_WISE[name])


def test_row_wise_graphs_cover_every_row_rule():
    from graphcell.ops import PRIMITIVES
    from graphcell.passes import tile_rows  # noqa: F401 - fills the row_rule slots
    rules = {name: p.row_rule for name, p in PRIMITIVES.items() if p.row_rule is not None}
    used = {n.primitive.name for text in ROW_WISE.values() for n in parse(text).nodes}
    missing = set(rules) - used - {
        # one rule serves every elementwise primitive, reduction, and both window reductions
        *[p for p in rules if rules[p].out_axes is rules["add"].out_axes],
        "reduce_max", "reduce_min", "reduce_prod", "reduce_window_sum", "reduce_sum", "argmin", "argmax"}
    assert not missing, f"row rules without a test graph: {sorted(missing)}"


# Graphs where some output row depends on other rows (or the analysis cannot tell): untouched.
NOT_ROW_WISE = {
    "a_mean_over_the_batch": """
        graph f(%x: f32[6,3]) {
          %0:f32[3] = reduce_sum(%x) {axes=(0,)}
          return %0
        }""",
    "a_resize_across_the_rows": """
        graph f(%x: f32[6,3]) {
          %0:f32[9,3] = resize(%x) {align_corners=False, method=linear, scales=None, sizes=(9,3)}
          return %0
        }""",
    "a_product_over_the_rows": """
        graph f(%x: f32[6,3], %y: f32[6,2]) {
          %0:f32[3,2] = dot_general(%x, %y) {batch=((),()), contract=((0,),(0,))}
          return %0
        }""",
    "a_constant_that_differs_per_row": """
        graph f(%x: f32[6]) {
          %0:f32[6] = constant() {value=[0.0,1.0,2.0,3.0,4.0,5.0]}
          %1:f32[6] = add(%x, %0)
          return %1
        }""",
    "a_slice_of_the_rows": """
        graph f(%x: f32[6,3]) {
          %0:f32[3,3] = slice(%x) {limit=(6,3), start=(3,0), strides=(1,1)}
          return %0
        }""",
    "a_concat_on_the_rows": """
        graph f(%x: f32[6,3]) {
          %0:f32[12,3] = concatenate(%x, %x) {axis=0}
          return %0
        }""",
    "a_reshape_that_mixes_rows": """
        graph f(%x: f32[6,4]) {
          %0:f32[4,6] = reshape(%x) {shape=(4,6)}
          return %0
        }""",
    "a_pooling_window_over_rows": """
        graph f(%x: f32[6,3]) {
          %0:f32[3,3] = reduce_window_max(%x) {padding=((0,0),(0,0)), strides=(2,1), window=(2,1)}
          return %0
        }""",
    "convolution_weights_from_the_rows": """
        graph f(%x: f32[6,1,4,4], %w: f32[6,1,3,3]) {
          %0:f32[6,6,2,2] = conv(%x, %w) {batch_groups=1, groups=1, lhs_dilation=(1,1), padding=((0,0),(0,0)), rhs_dilation=(1,1), strides=(1,1)}
          return %0
        }""",
    "the_weight_gradient_convolution": """
        graph f(%x: f32[6,2,4,4], %w: f32[2,2,3,3] param) {
          %0:f32[3,2,2,2] = conv(%x, %w) {batch_groups=2, groups=1, lhs_dilation=(1,1), padding=((0,0),(0,0)), rhs_dilation=(1,1), strides=(1,1)}
          return %0
        }""",
    "a_lookup_of_rows_by_index": """
        graph f(%x: f32[6,3]) {
          %0:i32[2] = constant() {value=[5,0]}
          %1:f32[2,3] = take(%x, %0) {axis=0}
          return %1
        }""",
    "a_side_effect": """
        graph f(%x: f32[6,3]) {
          %0:f32[6,3] = test_effect(%x)
          return %0
        }""",
    "a_parameter_write_per_row": """
        graph f(%x: f32[6,3], %w: f32[6,3] param) {
          %0:f32[6,3] = add(%x, %w)
          return %0, w <- %0
        }""",
    "a_primitive_without_a_row_rule": """
        graph f(%x: f32[6,3], %i: i32[2], %u: f32[6,2]) {
          %0:f32[6,3] = scatter_add(%x, %i, %u) {axis=1}
          return %0
        }""",
}


@pytest.mark.parametrize("name", sorted(NOT_ROW_WISE))
def test_graphs_that_mix_rows_are_left_as_they_are(name):
    graph, result = tiled(NOT_ROW_WISE[name])
    assert not result.changed and result.graph is graph


def test_small_batches_and_graphs_without_a_batch_are_not_tiled():
    graph = parse("""
        graph f(%x: f32[6,3]) {
          %0:f32[6,3] = exp(%x)
          return %0
        }""")
    assert not tile_rows(graph).changed  # automatic: 6 rows are far too few to tile
    with row_tile(6):
        assert not tile_rows(graph).changed  # one tile would hold every row
    with row_tile(0):
        assert not tile_rows(graph).changed
    scalar = parse("graph f(%x: f32[], %w: f32[4] param) {\n  %0:f32[4] = mul(%w, %x)\n  return %0\n}")
    with row_tile(2):
        assert not tile_rows(scalar).changed


def test_the_tile_size_follows_the_largest_intermediate():
    member = 6 * 28 * 28 * 4  # one LeNet5's conv1 output per row: 18.8 KB
    assert choose_tile(member, 256) is None                 # 4.8 MB in all: fits the cache
    assert choose_tile(member * 4, 256) == 32               # N=4: 2.4 MB per tile
    assert choose_tile(member * 16, 256) == MIN_TILE_ROWS   # N=16: 4.8 MB per tile
    assert choose_tile(member * 64, 256) == MIN_TILE_ROWS   # N=64: at least MIN_TILE_ROWS rows
    assert choose_tile(member * 64, 4096) == 4096 // MAX_TILES
    assert choose_tile(TILE_BYTES, 16) is None
    with row_tile(8):
        assert choose_tile(1, 20) == 8 and choose_tile(1, 8) is None
    with pytest.raises(ValueError, match="row_tile must be None"):
        ms.set_context(row_tile=-1)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_graphs())
def test_tiling_random_graphs_keeps_their_outputs(graph):
    with row_tile(1), extra_primitives():
        result = tile_rows(graph)
    if result.changed:
        verify(result.graph)
        assert_same_outputs(graph, result.graph)


# -- whole models --------------------------------------------------------------------------------

def _nodes(fn, *args):
    """The primitives of the XLA program `fn` (a jit or vmap callable) compiled for args."""
    fn(*args)
    traced = list(fn.cache.values())[-1]
    return [n.primitive.name for n in run_pipeline(traced.graph, "xla").graph.nodes]


@pytest.mark.parametrize("in_axes, golden", [(None, "vmap_in_axes_none.npy"), (0, "vmap_in_axes_0.npy")])
def test_tiled_lenet_ensemble_matches_mindspore(in_axes, golden):
    nets = nn.CellList([load_lenet(i) for i in range(4)])
    x = ms.Tensor(golden_array("minibatch.npy" if in_axes is None else "minibatchs.npy"))
    rows = x.shape[0 if in_axes is None else 1]
    with row_tile(max(1, rows // 3)):
        ensemble = ms.vmap(nets, in_axes=in_axes)
        assert _nodes(ensemble, x) == ["tile_rows"]
        np.testing.assert_allclose(ensemble(x).asnumpy(), golden_array(golden), atol=1e-5, rtol=0)


def test_tiled_ensemble_at_a_large_batch_matches_a_loop_over_members():
    from tests.models.lenet import LeNet5
    ms.set_seed(3)
    nets = [LeNet5() for _ in range(3)]
    x = ms.Tensor(np.random.default_rng(0).standard_normal((37, 1, 32, 32)).astype(np.float32))
    want = np.stack([net(x).asnumpy() for net in nets])
    with row_tile(8):  # 4 tiles and a tail of 5
        ensemble = ms.vmap(nn.CellList(nets), in_axes=None)
        assert _nodes(ensemble, x) == ["tile_rows"]
        np.testing.assert_allclose(ensemble(x).asnumpy(), want, atol=1e-5)
        single = ms.jit(nets[0])
        assert _nodes(single, x) == ["tile_rows"]
        np.testing.assert_allclose(single(x).asnumpy(), want[0], atol=1e-5)


def test_vmap_sizes_its_lowering_choices_by_the_tile():
    """At N=64, batch 256 the whole batch's convolution outputs are too big to stack (each
    member keeps its own), but one 16-row tile's are not: the vmapped graph is planned for
    the tile (one wide convolution over the shared input) and says so in its meta."""
    from graphcell.frontend.trace import trace
    from graphcell.passes.vmap import vmap_graph
    from tests.models.lenet import LeNet5
    member = trace(LeNet5(), ms.Tensor(np.zeros((256, 1, 32, 32), np.float32)))
    axes = dict(in_axes=[None] + [0] * len(member.params), out_axes=[0], axis_size=64)

    def strategies(graph):
        return {n.source.scope.split("[")[-1].rstrip("]") for n in graph.nodes if "conv_strategy" in n.source.scope}
    planned = vmap_graph(member.graph, **axes)
    assert planned.meta["row_tile"] == 16 and "conv_strategy=wide" in strategies(planned)
    with row_tile(0):
        whole = vmap_graph(member.graph, **axes)
    assert "row_tile" not in whole.meta and strategies(whole) == {"conv_strategy=unrolled"}
    assert vmap_graph(member.graph, **axes, target="onnx").meta.get("row_tile") is None


def test_training_steps_and_batch_statistics_are_not_tiled():
    from tests.models.lenet import LeNet5
    ms.set_seed(0)
    net = LeNet5()
    loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
    step = nn.TrainOneStepCell(loss, nn.Adam(net.trainable_params(), 1e-3))
    x = ms.Tensor(np.zeros((64, 1, 32, 32), np.float32))
    y = ms.Tensor(np.zeros((64,), np.int32))
    with row_tile(8):
        assert "tile_rows" not in _nodes(ms.jit(step), x, y)   # the loss is a mean over rows
        bn = nn.SequentialCell([nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU()])
        bn.set_train(True)
        assert "tile_rows" not in _nodes(ms.jit(bn), x)         # batch statistics
        bn.set_train(False)
        assert _nodes(ms.jit(bn), x) == ["tile_rows"]           # running statistics: row-wise


def _plain_jax_lenet(p, x):
    """LeNet5 in plain jax (MindSpore's parameter names): the unrolled peer's member."""
    import jax
    import jax.numpy as jnp

    def pool(x):
        return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
    x = pool(jax.nn.relu(jax.lax.conv_general_dilated(x, p["conv1.weight"], (1, 1), "VALID")))
    x = pool(jax.nn.relu(jax.lax.conv_general_dilated(x, p["conv2.weight"], (1, 1), "VALID")))
    x = x.reshape(x.shape[0], -1)
    x = jax.nn.relu(x @ p["fc1.weight"].T + p["fc1.bias"])
    x = jax.nn.relu(x @ p["fc2.weight"].T + p["fc2.bias"])
    return x @ p["fc3.weight"].T + p["fc3.bias"]


def _footprint(jitted, args) -> int:
    """XLA's temporary and output bytes for the compiled program (deterministic for a jax
    version, unlike times)."""
    analysis = jitted.lower(*args).compile().memory_analysis()
    return analysis.temp_size_in_bytes + analysis.output_size_in_bytes


def test_a_tiled_ensemble_holds_one_tile_and_less_than_the_unrolled_jax_program():
    """N=16 LeNet5 on a shared batch of 64 is tiled (4 tiles of 16 rows). XLA's default CPU
    scheduler ran every tile's first layer before any pool (jax 0.10: 19.8 MiB, more than the
    unrolled jax program's 19.7); compiled with the memory-optimized scheduler the tiles run in
    order and the program holds about one tile's working set."""
    import jax
    import jax.numpy as jnp
    from graphcell.compiler.jit import compiled_fn
    from tests.models.lenet import LeNet5
    ms.set_seed(5)
    nets = [LeNet5() for _ in range(16)]
    x = ms.Tensor(np.random.default_rng(1).standard_normal((64, 1, 32, 32)).astype(np.float32))
    names = [p.name for p in nets[0].get_parameters()]
    params = [{k: p._payload for k, p in zip(names, net.get_parameters())} for net in nets]

    def program(ensemble):
        out = ensemble(x)
        traced = list(ensemble.cache.values())[-1]
        return out, compiled_fn(traced), [x._payload] + [p._payload for p in traced.params]

    ensemble = ms.vmap(nn.CellList(nets), in_axes=None)
    assert _nodes(ensemble, x) == ["tile_rows"]
    out, tiled_program, args = program(ensemble)
    with row_tile(0):
        _, whole_program, whole_args = program(ms.vmap(nn.CellList(nets), in_axes=None))
    unrolled = jax.jit(lambda ps, x: jnp.stack([_plain_jax_lenet(p, x) for p in ps]))

    ours = _footprint(tiled_program, args)
    assert ours <= _footprint(unrolled, (params, x._payload))
    assert 3 * ours < _footprint(whole_program, whole_args)   # 4 tiles: about a quarter
    want = np.stack([net(x).asnumpy() for net in nets])
    np.testing.assert_allclose(out.asnumpy(), want, atol=1e-5, rtol=1e-5)
    np.testing.assert_allclose(out.asnumpy(), np.asarray(unrolled(params, x._payload)), atol=1e-4, rtol=1e-4)


def test_only_tiled_programs_get_the_memory_optimized_scheduler():
    from graphcell.ops.tiling import TILED_COMPILER_OPTIONS, compiler_options
    with row_tile(4), extra_primitives():
        graph = parse("""
            graph f(%x: f32[8,3], %w: f32[3,2] param) {
              %0:f32[8,2] = dot_general(%x, %w) {batch=((),()), contract=((1,),(0,))}
              return %0
            }""")
        assert compiler_options(graph) == {}
        assert compiler_options(tile_rows(graph).graph) == TILED_COMPILER_OPTIONS

"""Bias fusion: the fused primitives (linear, conv_bias) against references for every rule,
the fuse pass on IR text (fusions and non-fusions, outputs equal before and after), and the
ONNX exports' Gemm / Conv with their bias inputs (LeNet5 and N=4 ensembles)."""
import collections
import functools

import jax
import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch
import torch.nn.functional as TF

import graphcell as ms
from graphcell import nn, ops
from graphcell.compiler.export import to_onnx
from graphcell.compiler.onnx import lower
from graphcell.compiler.to_jax import graph_to_jax
from graphcell.dtype import to_dtype
from graphcell.frontend.tracer import Tracer
from graphcell.ir import verify
from graphcell.ir.core import GraphBuilder, TensorType
from graphcell.ops import PRIMITIVES
from graphcell.ops.primitive import ShapeError, canonical_attrs
from graphcell.passes import PASSES, PIPELINES, dce, run_passes
from graphcell.passes.fuse import FUSIONS, find_fusions, fuse
from graphcell.passes.grad import grad_graph
from graphcell.runtime import Session
from graphcell.tensor import Tensor
from tests.conftest import golden_array, load_lenet
from tests.pass_helpers import assert_same_outputs, extra_primitives, ir, parse, show

RNG = np.random.default_rng(5)


def r(*shape, dtype=np.float32):
    return RNG.uniform(-2, 2, shape).astype(dtype)


def conv_attrs(strides=(1, 1), padding=((0, 0), (0, 0)), groups=1):
    return dict(strides=strides, padding=padding, lhs_dilation=(1, 1), rhs_dilation=(1, 1),
                groups=groups, batch_groups=1)


def torch_conv_bias(x, w, b, strides, padding, groups, **_):
    xt = TF.pad(torch.from_numpy(x), [p for pair in reversed(padding) for p in pair])
    return TF.conv2d(xt, torch.from_numpy(w), torch.from_numpy(b.reshape(-1)), stride=strides,
                     groups=groups).numpy()


# One record per case: (primitive, operands, attrs, independent reference).
RECORDS = [
    pytest.param("linear", [r(3, 4), r(5, 4), r(5)], {"contract": ((1,), (1,))},
                 lambda x, w, b, **_: x @ w.T + b, id="linear-dense"),
    pytest.param("linear", [r(4, 3), r(4, 5), r(1, 5)], {"contract": ((0,), (0,))},
                 lambda x, w, b, **_: x.T @ w + b, id="linear-transA-row-bias"),
    pytest.param("linear", [r(3, 4, dtype=np.float64), r(5, 4, dtype=np.float64), r(5, dtype=np.float64)],
                 {"contract": ((1,), (1,))}, lambda x, w, b, **_: x @ w.T + b, id="linear-f64"),
    pytest.param("conv_bias", [r(2, 3, 7, 6), r(4, 3, 3, 3), r(4)],
                 conv_attrs(strides=(2, 1), padding=((1, 1), (0, 1))), torch_conv_bias, id="conv-bias"),
    pytest.param("conv_bias", [r(2, 4, 6, 6), r(6, 2, 3, 3), r(1, 6, 1, 1)], conv_attrs(groups=2),
                 torch_conv_bias, id="conv-bias-grouped-4d-bias"),
]


def close(got, want, dtype=np.float32):
    tol = 1e-5 if np.dtype(dtype) == np.float32 else 1e-10
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


# -- the fused primitives, rule by rule -----------------------------------------------------------

@pytest.mark.parametrize("name, arrays, attrs, ref", RECORDS)
def test_value_matches_reference_eager_and_jit(name, arrays, attrs, ref):
    prim = PRIMITIVES[name]
    want = ref(*arrays, **attrs)
    eager = prim.bind(*[Tensor(a) for a in arrays], **attrs).asnumpy()
    jitted = ms.jit(lambda *ts: prim.bind(*ts, **attrs))(*[Tensor(a) for a in arrays]).asnumpy()
    for got in (eager, jitted):
        assert got.dtype == arrays[0].dtype and got.shape == want.shape
        close(got, want, arrays[0].dtype)


def _one_node(name, arrays, attrs, builder=None):
    b = builder or GraphBuilder(name)
    ins = [b.add_input(TensorType(a.shape, to_dtype(a.dtype)), f"in{i}") for i, a in enumerate(arrays)]
    return b.build(b.add_node(PRIMITIVES[name], tuple(ins), canonical_attrs(attrs)))


@pytest.mark.parametrize("name, arrays, attrs, ref", RECORDS)
def test_onnx_rule_is_one_gemm_or_conv_with_its_bias(name, arrays, attrs, ref):
    model = lower(_one_node(name, arrays, attrs)).model
    onnx.checker.check_model(model, full_check=True)
    ops_ = [n.op_type for n in model.graph.node if n.op_type not in ("Cast", "Reshape")]
    assert ops_ == ["Gemm" if name == "linear" else "Conv"]
    assert len(next(n for n in model.graph.node if n.op_type == ops_[0]).input) == 3
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (got,) = sess.run(None, {f"in{i}": a for i, a in enumerate(arrays)})
    assert got.dtype == arrays[0].dtype
    close(got, ref(*arrays, **attrs), np.float32)   # onnxruntime's Conv computes in float32


@pytest.mark.parametrize("name, arrays, attrs, ref", RECORDS)
def test_vjp_matches_jax(name, arrays, attrs, ref):
    prim = PRIMITIVES[name]
    attrs = canonical_attrs(attrs)
    tracer = Tracer(name)
    ins = [tracer.add_input(TensorType(a.shape, to_dtype(a.dtype)), f"a{i}") for i, a in enumerate(arrays)]
    (out,) = tracer.add_node(prim, tuple(ins), attrs)
    g = grad_graph(tracer.build([out]), [0, 1, 2], with_sens=True)
    ct = r(*out.shape, dtype=arrays[0].dtype)
    got = graph_to_jax(g)(*arrays, ct)
    _, vjp = jax.vjp(functools.partial(prim.impl, **attrs), *arrays)
    for i, (mine, want) in enumerate(zip(got[1:], vjp(ct))):
        assert mine.shape == want.shape and mine.dtype == want.dtype, i
        close(np.asarray(mine), np.asarray(want), arrays[0].dtype)


# in_axes per operand (x, w, bias), each with the member axis N=3 inserted there.
AXES = [(0, None, None), (None, 0, 0), (None, None, 0), (1, 0, 1), (2, 1, None), (0, 0, 0)]
# Convolutions with mapped weights also run under each conv strategy (unrolled keeps the
# members apart: the SPLIT form).
BATCH_CASES = [pytest.param(*rec.values, axes, None, id=f"{rec.id}-{axes}") for rec in RECORDS[::2] + RECORDS[1:2]
               for axes in AXES]
BATCH_CASES += [pytest.param(*rec.values, axes, strategy, id=f"{rec.id}-{axes}-{strategy}")
                for rec in RECORDS if rec.values[0] == "conv_bias" for axes in [(None, 0, 0), (1, 0, None)]
                for strategy in ("unrolled", "wide", "grouped")]


@pytest.mark.parametrize("name, arrays, attrs, ref, axes, strategy", BATCH_CASES)
def test_batch_rule_matches_jax_vmap(name, arrays, attrs, ref, axes, strategy):
    axes = tuple(min(a, arr.ndim) if a is not None else None for a, arr in zip(axes, arrays))
    batched = [np.stack([r(*a.shape, dtype=a.dtype) for _ in range(3)], ax) if ax is not None else a
               for a, ax in zip(arrays, axes)]
    prim = PRIMITIVES[name]
    want = jax.vmap(functools.partial(prim.impl, **canonical_attrs(attrs)), in_axes=axes)(*batched)
    fn = ms.vmap(lambda *a: prim.bind(*a, **attrs), in_axes=axes, conv_strategy=strategy)
    got = fn(*[Tensor(a) for a in batched]).asnumpy()
    assert got.shape == want.shape
    close(got, np.asarray(want), arrays[0].dtype)


def test_shape_rules_name_the_bad_bias():
    x, w = Tensor(r(3, 4)), Tensor(r(5, 4))
    with pytest.raises(ShapeError, match=r"linear: the bias must have shape \[5\] or \[1, 5\], got \[3, 5\]"):
        PRIMITIVES["linear"].bind(x, w, Tensor(r(3, 5)), contract=((1,), (1,)))
    with pytest.raises(ShapeError, match="conv_bias: the bias must have shape"):
        PRIMITIVES["conv_bias"].bind(Tensor(r(1, 3, 5, 5)), Tensor(r(4, 3, 3, 3)), Tensor(r(3)), **conv_attrs())


# -- the pass on IR text ------------------------------------------------------------------------------

@pytest.fixture(autouse=True)
def _test_primitives():
    with extra_primitives():
        yield


def check(before: str, after: str, changed: bool = True, passes=(("fuse", fuse),)):
    graph = parse(before)
    result = run_passes(graph, list(passes), verify_each=True)
    assert result.changed is changed
    assert show(result.graph) == ir(after)
    if not changed:
        assert result.graph is graph
    assert show(graph) == ir(before)   # the input graph is untouched
    verify(result.graph)
    assert_same_outputs(graph, result.graph, rtol=1e-5, atol=1e-5)
    return result.graph


def test_dense_bias_becomes_linear_where_the_add_was():
    check("""
        graph f(%x: f32[3,4], %w: f32[5,4] param, %b: f32[5] param) {
          %0:f32[3,5] = dot_general(%x, %w) {batch=((),()), contract=((1,),(1,))}  # fc model.py:2
          %1:f32[3,5] = add(%0, %b)  # fc model.py:2
          %2:f32[3,5] = tanh(%1)
          return %2
        }""", """
        graph f(%x: f32[3,4], %w: f32[5,4] param, %b: f32[5] param) {
          %0:f32[3,5] = dot_general(%x, %w) {batch=((),()), contract=((1,),(1,))}  # fc model.py:2
          %1:f32[3,5] = linear(%x, %w, %b) {contract=((1,),(1,))}  # fc model.py:2
          %2:f32[3,5] = tanh(%1)
          return %2
        }""")


def test_bias_first_row_bias_and_a_chain_of_layers_with_dce():
    check("""
        graph f(%x: f32[4,3], %w: f32[4,5], %b: f32[1,5], %w2: f32[2,5], %b2: f32[2]) {
          %0:f32[3,5] = dot_general(%x, %w) {batch=((),()), contract=((0,),(0,))}
          %1:f32[3,5] = add(%b, %0)
          %2:f32[3,2] = dot_general(%1, %w2) {batch=((),()), contract=((1,),(1,))}
          %3:f32[3,2] = add(%2, %b2)
          return %3
        }""", """
        graph f(%x: f32[4,3], %w: f32[4,5], %b: f32[1,5], %w2: f32[2,5], %b2: f32[2]) {
          %0:f32[3,5] = linear(%x, %w, %b) {contract=((0,),(0,))}
          %1:f32[3,2] = linear(%0, %w2, %b2) {contract=((1,),(1,))}
          return %1
        }""", passes=(("fuse", fuse), ("dce", dce)))


def test_conv_bias_reshaped_from_a_vector_uses_the_vector():
    check("""
        graph f(%x: f32[2,3,5,5], %w: f32[4,3,3,3], %b: f32[4]) {
          %0:f32[2,4,3,3] = conv(%x, %w) {batch_groups=1, groups=1, lhs_dilation=(1,1), padding=((0,0),(0,0)), rhs_dilation=(1,1), strides=(1,1)}  # conv model.py:4
          %1:f32[1,4,1,1] = reshape(%b) {shape=(1,4,1,1)}  # conv model.py:4
          %2:f32[2,4,3,3] = add(%0, %1)  # conv model.py:4
          return %2
        }""", """
        graph f(%x: f32[2,3,5,5], %w: f32[4,3,3,3], %b: f32[4]) {
          %0:f32[2,4,3,3] = conv_bias(%x, %w, %b) {batch_groups=1, groups=1, lhs_dilation=(1,1), padding=((0,0),(0,0)), rhs_dilation=(1,1), strides=(1,1)}  # conv model.py:4
          return %0
        }""", passes=(("fuse", fuse), ("dce", dce)))


def test_conv_bias_of_channel_shape_and_inside_subgraphs():
    check("""
        graph f(%x: f32[1,2,4,4], %w: f32[3,2,3,3], %b: f32[1,3,1,1]) {
          %0:f32[1,3,2,2] = test_call(%x, %w, %b)
            body:
            graph body(%a: f32[1,2,4,4], %k: f32[3,2,3,3], %c: f32[1,3,1,1]) {
              %1:f32[1,3,2,2] = conv(%a, %k) {batch_groups=1, groups=1, lhs_dilation=(1,1), padding=((0,0),(0,0)), rhs_dilation=(1,1), strides=(1,1)}
              %2:f32[1,3,2,2] = add(%c, %1)
              return %2
            }
          return %0
        }""", """
        graph f(%x: f32[1,2,4,4], %w: f32[3,2,3,3], %b: f32[1,3,1,1]) {
          %0:f32[1,3,2,2] = test_call(%x, %w, %b)
            body:
            graph body(%a: f32[1,2,4,4], %k: f32[3,2,3,3], %c: f32[1,3,1,1]) {
              %1:f32[1,3,2,2] = conv_bias(%a, %k, %c) {batch_groups=1, groups=1, lhs_dilation=(1,1), padding=((0,0),(0,0)), rhs_dilation=(1,1), strides=(1,1)}
              return %1
            }
          return %0
        }""", passes=(("fuse", fuse), ("dce", dce)))


NOT_FUSED = {
    "two-consumers": """
        graph f(%x: f32[3,4], %w: f32[5,4], %b: f32[5]) {
          %0:f32[3,5] = dot_general(%x, %w) {batch=((),()), contract=((1,),(1,))}
          %1:f32[3,5] = add(%0, %b)
          %2:f32[3,5] = mul(%0, %1)
          return %2
        }""",
    "product-is-a-graph-output": """
        graph f(%x: f32[3,4], %w: f32[5,4], %b: f32[5]) {
          %0:f32[3,5] = dot_general(%x, %w) {batch=((),()), contract=((1,),(1,))}
          %1:f32[3,5] = add(%0, %b)
          return %1, %0
        }""",
    "full-shaped-bias": """
        graph f(%x: f32[3,4], %w: f32[5,4], %b: f32[3,5]) {
          %0:f32[3,5] = dot_general(%x, %w) {batch=((),()), contract=((1,),(1,))}
          %1:f32[3,5] = add(%0, %b)
          return %1
        }""",
    "bias-broadcasts-the-result": """
        graph f(%x: f32[1,4], %w: f32[5,4], %b: f32[3,5]) {
          %0:f32[1,5] = dot_general(%x, %w) {batch=((),()), contract=((1,),(1,))}
          %1:f32[3,5] = add(%0, %b)
          return %1
        }""",
    "batched-product": """
        graph f(%x: f32[2,3,4], %w: f32[2,5,4], %b: f32[5]) {
          %0:f32[2,3,5] = dot_general(%x, %w) {batch=((0,),(0,)), contract=((2,),(2,))}
          %1:f32[2,3,5] = add(%0, %b)
          return %1
        }""",
    "integer-product": """
        graph f(%x: i32[3,4], %w: i32[5,4], %b: i32[5]) {
          %0:i32[3,5] = dot_general(%x, %w) {batch=((),()), contract=((1,),(1,))}
          %1:i32[3,5] = add(%0, %b)
          return %1
        }""",
    "conv-bias-per-pixel": """
        graph f(%x: f32[2,3,5,5], %w: f32[4,3,3,3], %b: f32[1,4,3,3]) {
          %0:f32[2,4,3,3] = conv(%x, %w) {batch_groups=1, groups=1, lhs_dilation=(1,1), padding=((0,0),(0,0)), rhs_dilation=(1,1), strides=(1,1)}
          %1:f32[2,4,3,3] = add(%0, %b)
          return %1
        }""",
    "conv-then-sub": """
        graph f(%x: f32[2,3,5,5], %w: f32[4,3,3,3], %b: f32[1,4,1,1]) {
          %0:f32[2,4,3,3] = conv(%x, %w) {batch_groups=1, groups=1, lhs_dilation=(1,1), padding=((0,0),(0,0)), rhs_dilation=(1,1), strides=(1,1)}
          %1:f32[2,4,3,3] = sub(%0, %b)
          return %1
        }""",
}


@pytest.mark.parametrize("case", sorted(NOT_FUSED))
def test_what_does_not_fuse_is_left_alone(case):
    check(NOT_FUSED[case], NOT_FUSED[case], changed=False)


def test_a_bias_reshape_with_other_uses_stays():
    graph = parse("""
        graph f(%x: f32[2,3,5,5], %w: f32[4,3,3,3], %b: f32[4]) {
          %0:f32[2,4,3,3] = conv(%x, %w) {batch_groups=1, groups=1, lhs_dilation=(1,1), padding=((0,0),(0,0)), rhs_dilation=(1,1), strides=(1,1)}
          %1:f32[1,4,1,1] = reshape(%b) {shape=(1,4,1,1)}
          %2:f32[2,4,3,3] = add(%0, %1)
          return %2, %1
        }""")
    (fusion,) = find_fusions(graph)
    assert fusion.primitive.name == "conv_bias" and fusion.operands[2] is graph.inputs[2]
    assert [n.primitive.name for n in fusion.absorbed] == ["conv"]   # the reshape is an output too


def _fused(graph, verify_each=False):
    """The pass as `graphcell dump --passes fuse,dce` runs it."""
    return run_passes(graph, [("fuse", PASSES["fuse"]), ("dce", PASSES["dce"])], verify_each=verify_each)


def test_the_table_and_no_pipeline():
    assert set(FUSIONS) == {"dot_general", "conv"}
    # XLA fuses by itself; the ONNX lowering applies the table (find_fusions): no pipeline runs
    # the pass, which `graphcell dump --passes fuse` still shows.
    assert all("fuse" not in [name for name, _ in pipeline] for pipeline in PIPELINES.values())
    assert PASSES["fuse"] is fuse


def test_fuse_on_lenet5_makes_three_linears():
    graph = ms.trace(load_lenet(0), ms.Tensor(golden_array("minibatch.npy"))).graph
    result = _fused(graph, verify_each=True)
    prims = collections.Counter(n.primitive.name for n in result.graph.nodes)
    assert prims["linear"] == 3 and prims["dot_general"] == 0 and prims["add"] == 0
    assert_same_outputs(graph, result.graph, seeds=(0,), rtol=1e-5, atol=1e-5, jit=True)


# -- ONNX exports ------------------------------------------------------------------------------------

def onnx_ops(model):
    """Op counts of the model's graph; of an ensemble's per-member form (the If's large-batch
    branch) where the export dispatches on the batch size (compiler/onnx_dispatch.py)."""
    nodes = model.graph.node
    for node in nodes:
        if node.op_type == "If" and node.name == "batch_dispatch":
            nodes = next(a.g for a in node.attribute if a.name == "else_branch").node
    count = collections.Counter(n.op_type for n in nodes)
    with_bias = collections.Counter(n.op_type for n in nodes if n.op_type in ("Gemm", "Conv") and len(n.input) == 3)
    return count, with_bias


def test_lenet5_export_has_gemms_with_bias_and_no_add():
    x = ms.Tensor(golden_array("minibatch.npy"))
    model = to_onnx(load_lenet(0), x).model
    count, with_bias = onnx_ops(model)
    # LeNet5's convolutions have no bias (MindSpore's has_bias=False); every Dense's is in its Gemm.
    assert with_bias == {"Gemm": 3} and count["Gemm"] == 3 and count["Conv"] == 2
    assert "Add" not in count and len(model.graph.node) == 12
    out = Session(model, providers=["cpu"])(golden_array("minibatch.npy"))
    np.testing.assert_allclose(out, golden_array("net0_out.npy"), atol=1e-5, rtol=0)


@pytest.mark.parametrize("in_axes, golden", [(None, "vmap_in_axes_none.npy"), (0, "vmap_in_axes_0.npy")])
def test_lenet5_ensemble_export_fuses_every_members_bias(in_axes, golden):
    nets = nn.CellList([load_lenet(i) for i in range(4)])
    x = golden_array("minibatch.npy" if in_axes is None else "minibatchs.npy")
    model = to_onnx(ms.vmap(nets, in_axes=in_axes), ms.Tensor(x)).model
    count, with_bias = onnx_ops(model)
    assert "Add" not in count
    # Every Dense of every member is a Gemm with its bias (one per member and layer, or one
    # per layer when the lowering keeps the members stacked).
    assert with_bias["Gemm"] == count["Gemm"] and count["Gemm"] in (3, 12)
    out = Session(model, providers=["cpu"])(x)
    np.testing.assert_allclose(out, golden_array(golden), atol=1e-5, rtol=0)


class ConvDense(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, has_bias=True)
        self.fc = nn.Dense(4 * 5 * 5, 3)

    def construct(self, x):
        return self.fc(ops.flatten(ops.relu(self.conv(x))))


def test_conv_with_bias_in_an_ensemble_export():
    nets = nn.CellList([ConvDense() for _ in range(4)])
    x = ms.Tensor(r(2, 3, 5, 5))
    ens = ms.vmap(nets, in_axes=None)
    model = to_onnx(ens, x).model
    count, with_bias = onnx_ops(model)
    assert "Add" not in count and with_bias["Conv"] == count["Conv"] >= 1 and with_bias["Gemm"] == count["Gemm"]
    out = Session(model, providers=["cpu"])(x.asnumpy())
    np.testing.assert_allclose(out, ens(x).asnumpy(), rtol=1e-5, atol=1e-5)


def test_a_prefused_graph_lowers_to_the_same_model():
    graph = ms.trace(ConvDense(), ms.Tensor(r(2, 3, 5, 5))).graph
    fused = _fused(graph).graph
    assert any(n.primitive.name == "conv_bias" for n in fused.nodes)
    plain = [n.op_type for n in lower(graph, params_as_inputs=True).model.graph.node]
    prefused = [n.op_type for n in lower(fused, params_as_inputs=True).model.graph.node]
    assert plain == prefused == ["Conv", "Relu", "Reshape", "Gemm"]

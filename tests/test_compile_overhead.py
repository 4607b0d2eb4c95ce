"""What keeps graphcell's own share of a first jit call small (a ResNet-50 training step: trace,
passes and lowering to jax 2.4 -> 1.0 s of CPU time): the hot primitives lower with lax alone
(a jax.numpy call is a nested jit that jax infers and inlines again inside jit's trace), the
CPU's direct convolution is chosen without a platform switch, conv_transpose is jax's transpose
convolution written out (a vjp traced the forward convolution too), and a pass that changes
nothing returns its input without copying it."""
import jax
import numpy as np
import pytest
from jax._src import pjit

import graphcell as ms
from graphcell import Tensor, ops
from graphcell.compiler.to_jax import graph_to_jax
from graphcell.ops import cpu_conv, nn_prims
from graphcell.passes import PIPELINES, base, run_pipeline
from tests.conftest import load_lenet


def _step_graph():
    """A traced graph using each primitive whose impl is lax-only: arithmetic, comparisons,
    relu, a direct convolution and (in the gradient) conv_transpose."""
    def loss(x, w):
        y = ops.relu(ops.conv2d(x, w, pad_mode="pad", padding=1))
        y = ops.maximum(y * y + y - y / 2, ops.minimum(-y, y)) + ops.cast(y > 0.5, ms.float32)
        return ops.sum(y)
    grad = ms.grad(loss, grad_position=(0, 1))
    x = Tensor(np.random.default_rng(0).standard_normal((2, 1, 6, 6)).astype(np.float32))
    w = Tensor(np.random.default_rng(1).standard_normal((3, 1, 3, 3)).astype(np.float32))
    traced = ms.trace(grad, x, w)
    return traced.graph, [x._payload, w._payload]


def test_the_hot_primitives_lower_without_nested_jits_or_a_platform_switch(monkeypatch):
    if not cpu_conv.cpu_only():
        pytest.skip("with another backend the convolution keeps its platform switch")
    graph, arrays = _step_graph()
    names = {n.primitive.name for n in graph.nodes}
    hot = {"conv", "conv_transpose", "relu", "mul", "add", "sub", "div", "max", "min", "neg", "gt"}
    assert hot <= names
    nested, inside = [], []
    infer = pjit._infer_params   # every jax.jit call (jax.numpy's included) passes here
    monkeypatch.setattr(pjit, "_infer_params",
                        lambda *a, **k: (inside and nested.append(inside[-1]), infer(*a, **k))[1])
    for prim in {n.primitive for n in graph.nodes if n.primitive.name in hot}:
        def traced_impl(*xs, _impl=prim.impl, _name=prim.name, **attrs):
            inside.append(_name)
            try:
                return _impl(*xs, **attrs)
            finally:
                inside.pop()
        monkeypatch.setattr(prim, "impl", traced_impl)
    jaxpr = jax.jit(graph_to_jax(graph)).trace(*arrays).jaxpr
    assert nested == []
    assert not {e.primitive.name for e in jaxpr.jaxpr.eqns} & {"jit", "pjit", "cond"}


def test_conv_transpose_is_the_convolution_jax_vjp_makes():
    """Same values, bit for bit, as the vjp of the forward convolution it replaced: grouped,
    strided, dilated, padded on one side, 1-D to 3-D, float16."""
    cases = [  # lhs shape, weight shape, strides, padding, rhs dilation, groups
        ((2, 3, 9, 9), (4, 3, 3, 3), (1, 1), ((1, 1), (1, 1)), (1, 1), 1),
        ((2, 4, 10, 11), (6, 2, 3, 2), (2, 3), ((0, 1), (2, 0)), (1, 2), 2),
        ((2, 6, 12), (6, 1, 3), (2,), ((1, 1),), (2,), 6),
        ((1, 4, 5, 6, 7), (8, 2, 2, 2, 3), (1, 2, 1), ((0, 0), (1, 0), (1, 1)), (1, 1, 2), 2)]
    rng = np.random.default_rng(3)
    args, attrs = [], []
    for dtype in (np.float32, np.float16):
        for lhs, w_shape, strides, padding, dilation, groups in cases:
            a = dict(lhs_shape=lhs[2:], strides=strides, padding=padding, rhs_dilation=dilation, groups=groups)
            forward = nn_prims._conv_transpose_attrs(lhs[2:], strides, padding, dilation, groups)
            ct_shape = jax.eval_shape(lambda x, w: nn_prims._xla_conv(x, w, **forward),
                                      jax.ShapeDtypeStruct(lhs, dtype), jax.ShapeDtypeStruct(w_shape, dtype)).shape
            args.append((rng.standard_normal(ct_shape).astype(dtype), rng.standard_normal(w_shape).astype(dtype), lhs))
            attrs.append(a)

    def both(*flat):
        out = []
        for (ct, w), (_, _, lhs), a in zip(zip(flat[::2], flat[1::2]), args, attrs):
            forward = nn_prims._conv_transpose_attrs(lhs[2:], a["strides"], a["padding"], a["rhs_dilation"],
                                                     a["groups"])
            _, vjp = jax.vjp(lambda x: nn_prims._xla_conv(x, w, **forward), jax.numpy.zeros(lhs, ct.dtype))
            out.append((nn_prims._conv_transpose_impl(ct, w, **a), vjp(ct)[0]))
        return out

    for ours, jax_vjp in jax.jit(both)(*[t for ct, w, _ in args for t in (ct, w)]):
        assert ours.dtype == jax_vjp.dtype and np.array_equal(np.asarray(ours), np.asarray(jax_vjp))


def test_a_pass_that_changes_nothing_returns_its_input_without_copying(monkeypatch):
    net = load_lenet(0)
    step = ms.grad(lambda x: ops.sum(net(x)), grad_position=0)
    graph = run_pipeline(ms.trace(step, Tensor(np.zeros((2, 1, 32, 32), np.float32))).graph, "xla").graph
    users = {id(v): len(v.users) for n in graph.nodes for v in n.inputs}
    copies = []
    copy_node = base._copy_node
    monkeypatch.setattr(base, "_copy_node", lambda *a: (copies.append(a[1]), copy_node(*a))[1])
    for name, pass_ in PIPELINES["xla"]:
        result = pass_(graph)
        assert result.graph is graph and not result.changed, name
    assert copies == []
    assert users == {id(v): len(v.users) for n in graph.nodes for v in n.inputs}   # the scan touched nothing


def test_a_hook_that_emits_a_node_counts_as_a_change_and_the_input_stays_untouched():
    from graphcell.ops import elementwise
    graph = ms.trace(lambda x: ops.exp(-x), Tensor(np.ones(3, np.float32))).graph
    users = [len(v.users) for v in graph.inputs]

    def doubles_every_neg(node, ins, builder):   # emits a node, then keeps the original anyway
        if node.primitive is elementwise.neg:
            builder.add_node(elementwise.neg, ins, {})
        return None
    new, changed = base.rebuild(graph, doubles_every_neg, scan_first=True)
    assert new is not graph and len(new.nodes) == len(graph.nodes) + 1
    assert [len(v.users) for v in graph.inputs] == users

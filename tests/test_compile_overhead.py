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
from graphcell.ops import core_prims, cpu_conv, elementwise, nn_prims, reductions, shape_ops
from graphcell.passes import PIPELINES, base, run_pipeline
from tests.conftest import load_lenet


def _step_graph():
    """A traced graph using each primitive whose impl is lax-only: arithmetic, comparisons,
    relu, casts, select, reshape, transpose, sums (float16's too), a direct convolution and (in
    the gradient) conv_transpose."""
    def loss(x, w):
        y = ops.relu(ops.conv2d(x, w, pad_mode="pad", padding=1))
        y = ops.maximum(y * y + y - y / 2, ops.minimum(-y, y)) + ops.cast(y > 0.5, ms.float32)
        y = ops.where(y > 1, ops.transpose(y, (0, 1, 3, 2)), y[:, :1])
        return ops.sum(ops.reshape(y, (-1,))) + ops.mean(ops.cast(y, ms.float16)).astype(ms.float32)
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
    hot = {"conv", "conv_transpose", "relu", "mul", "add", "sub", "div", "max", "min", "neg", "gt",
           "cast", "select", "reshape", "transpose", "reduce_sum", "element_count"}
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


def _bits(a):
    a = np.asarray(a)
    return a.dtype, a.shape, a.reshape(-1).view(np.uint8).tobytes()   # NaN payloads and -0.0 included


def _values(dt, floats, rng):
    if np.dtype(dt).kind in "iu":
        info = np.iinfo(dt)
        a = rng.integers(info.min, info.max, floats.size, dtype=np.int64, endpoint=True).astype(dt)
    elif dt is np.complex64:
        a = np.empty(floats.size, dt)
        a.real, a.imag = floats, floats[::-1]
    else:
        a = (floats > 0) if dt is np.bool_ else floats.astype(dt)
    return a.reshape(2, 17)


def test_the_lax_impls_equal_the_jax_numpy_calls_they_replaced_bit_for_bit():
    """reduce_sum (float16 and bfloat16 accumulating in float32 and rounding once, bool a
    logical or, ints wrapping), cast between every pair of dtypes (NaN, inf, -0.0, out of
    range; complex to real takes the real part), select broadcasting, reshape and transpose, all
    in one jit against the jax.numpy calls each impl was before."""
    import ml_dtypes
    jnp = jax.numpy
    dtypes = [np.bool_, np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint32, np.float16,
              ml_dtypes.bfloat16, np.float32, np.float64, np.complex64]
    rng = np.random.default_rng(5)
    floats = np.concatenate([rng.standard_normal(24) * 100, [np.nan, np.inf, -np.inf, -0.0, 300.5, -3e5, 1e10,
                                                             2.0 ** 24 + 1, 65504.0, 1e-8]])
    arrays = []
    with np.errstate(over="ignore"):   # 1e10 to float16 is inf, as meant
        arrays = [_values(dt, floats, rng) for dt in dtypes]

    graphcell_dtypes = [ms.dtype.to_dtype(np.dtype(dt)) for dt in dtypes]

    def old_sum(x, axes):
        half = x.dtype in (jnp.float16, jnp.bfloat16)
        return jnp.sum(x, axis=axes) if half else jnp.sum(x, axis=axes, dtype=x.dtype)

    def old_cast(x, dtype):
        return (jnp.real(x) if jnp.iscomplexobj(x) and not dtype.is_complex else x).astype(dtype.np_dtype)

    def both(*xs):
        pairs = []
        for x in xs:
            for axes in ((1,), (0, 1), ()):
                pairs.append((reductions.reduce_sum.impl(x, axes=axes), old_sum(x, axes)))
            for dtype in graphcell_dtypes:
                pairs.append((core_prims.cast.impl(x, dtype=dtype), old_cast(x, dtype)))
            pred = xs[0]
            for a, b in ((x, x[::-1]), (x[:1], x[:, :1]), (x[0], x[1, 3])):
                pairs.append((elementwise.select.impl(pred, a, b), jnp.where(pred, a, b)))
            pairs.append((shape_ops.reshape.impl(x, shape=(17, 1, 2)), jnp.reshape(x, (17, 1, 2))))
            pairs.append((shape_ops.transpose.impl(x, perm=(1, 0)), jnp.transpose(x, (1, 0))))
        return pairs

    pairs = jax.jit(both)(*arrays)
    assert len(pairs) == len(dtypes) * (3 + len(dtypes) + 3 + 2)
    for i, (ours, old) in enumerate(pairs):
        assert _bits(ours) == _bits(old), i
    # an accumulator of float16 itself would drift: the sum of 40 ones and a 2048 is 2088 only
    # when accumulated wider (2048 + 1 rounds back to 2048 in float16)
    halves = np.array([2048.0] + [1.0] * 40, np.float16)
    assert float(jax.jit(lambda h: reductions.reduce_sum.impl(h, axes=(0,)))(halves)) == 2088.0


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

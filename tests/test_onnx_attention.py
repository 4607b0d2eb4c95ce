"""Scaled dot-product attention written in ops becomes ONNX's Attention node (opset 23)."""
import math

import numpy as np
import onnx
import onnxruntime as ort
import pytest

import graphcell as ms
from graphcell import nn, ops
from graphcell.compiler.onnx import lower

B, H, S, L, D = 3, 2, 5, 6, 4
RNG = np.random.default_rng(0)


def _randn(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def _lowered(fn, *args, opset=23):
    model = lower(ms.trace(fn, *[ms.Tensor(a) for a in args]).graph, params_as_inputs=True, opset=opset).model
    onnx.checker.check_model(model, full_check=True)
    return model


def _run(model, fn_or_cell, *args):
    params = dict(fn_or_cell.parameters_and_names()) if isinstance(fn_or_cell, nn.Cell) else {}
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    feeds = dict(zip(names, args))
    feeds.update({k: p.asnumpy() for k, p in params.items() if k in names})
    return sess.run(None, feeds)


def _ops(model):
    return [n.op_type for n in model.graph.node]


def _attention(q, k, v, scale, mask=None):
    """numpy's softmax(Q K^T * scale + mask) V over the last two axes."""
    s = q @ np.swapaxes(k, -1, -2) * scale + (0 if mask is None else mask)
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v


def test_attention_over_heads_is_one_attention_node_with_k_read_as_it_is():
    q, k, v = _randn(B, H, S, D), _randn(B, H, L, D), _randn(B, H, L, D)

    def fn(q, k, v):
        return ops.matmul(ops.softmax(ops.matmul(q, ops.swapaxes(k, -1, -2)) / math.sqrt(D), -1), v)
    model = _lowered(fn, q, k, v)
    assert _ops(model) == ["Attention"]
    node = model.graph.node[0]
    assert len(node.input) == 3 and list(node.input) == [i.name for i in model.graph.input]
    assert onnx.helper.get_attribute_value(node.attribute[0]) == pytest.approx(1 / math.sqrt(D))
    np.testing.assert_allclose(_run(model, fn, q, k, v)[0], _attention(q, k, v, 1 / math.sqrt(D)), rtol=1e-5, atol=1e-6)
    # The same function at the default opset 18 stays MatMul / Softmax / MatMul, with equal values.
    nodes = _lowered(fn, q, k, v, opset=18)
    assert "Attention" not in _ops(nodes)
    np.testing.assert_allclose(_run(nodes, fn, q, k, v)[0], _run(model, fn, q, k, v)[0], rtol=1e-5, atol=1e-6)


def test_a_scale_on_q_an_additive_mask_and_a_permuted_k():
    """Q scaled before the product, K given as [B, L, H, D] and permuted to [B, H, D, L] by one
    transpose, a causal mask added to the scores: Attention with K transposed once (to
    [B, H, L, D]) and the mask as its fourth input."""
    q, k, v = _randn(B, H, S, D), _randn(B, L, H, D), _randn(B, H, L, D)
    mask = np.triu(np.full((S, L), -1e9, np.float32), 1)

    def fn(q, k, v, m):
        scores = ops.matmul(q * 0.3, ops.transpose(k, (0, 2, 3, 1))) + m
        return ops.matmul(ops.softmax(scores, -1), v)
    model = _lowered(fn, q, k, v, mask)
    assert sorted(_ops(model)) == ["Attention", "Transpose"]
    assert len(model.graph.node[-1].input) == 4
    want = _attention(q, np.transpose(k, (0, 2, 1, 3)), v, 0.3, mask)
    np.testing.assert_allclose(_run(model, fn, q, k, v, mask)[0], want, rtol=1e-5, atol=1e-6)


class SelfAttention(nn.Cell):
    """Multi-head self-attention over [B, S, dim] tokens as users write it (no Attention op)."""

    def __init__(self, dim=16, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv, self.proj = nn.Dense(dim, 3 * dim), nn.Dense(dim, dim)

    def construct(self, x):
        b, t, d = x.shape
        q, k, v = (ops.transpose(ops.reshape(z, (b, t, self.heads, d // self.heads)), (0, 2, 1, 3))
                   for z in ops.split(self.qkv(x), d, axis=-1))
        scores = ops.matmul(q, ops.swapaxes(k, -1, -2)) * (1.0 / math.sqrt(d // self.heads))
        out = ops.matmul(ops.softmax(scores, -1), v)
        return self.proj(ops.reshape(ops.transpose(out, (0, 2, 1, 3)), (b, t, d)))


def _self_attention_reference(net, x):
    p = {k: v.asnumpy() for k, v in net.parameters_and_names()}
    b, t, d = x.shape
    qkv = x @ p["qkv.weight"].T + p["qkv.bias"]
    q, k, v = (z.reshape(b, t, net.heads, -1).transpose(0, 2, 1, 3) for z in np.split(qkv, 3, -1))
    out = _attention(q, k, v, 1 / math.sqrt(d // net.heads)).transpose(0, 2, 1, 3).reshape(b, t, d)
    return out @ p["proj.weight"].T + p["proj.bias"]


def test_self_attention_over_split_heads_is_attention_over_the_3d_values():
    """No Reshape or Transpose around the heads is left: Attention splits and merges them.
    (The Reshapes left are the Dense layers' [B, S, K] <-> [B*S, K] views around their Gemms,
    see onnx_dense_gemm; Attention reads and writes the 3-D values.)"""
    ms.set_seed(1)
    net, x = SelfAttention(), _randn(B, S, 16)
    model = _lowered(net, x)
    ops_ = _ops(model)
    assert ops_.count("Attention") == 1 and "Transpose" not in ops_ and "Softmax" not in ops_
    producer = {o: n for n in model.graph.node for o in n.output}
    reads = {i: n for n in model.graph.node for i in n.input}
    assert all(producer.get(n.input[0], n).op_type == "Gemm" or reads[n.output[0]].op_type == "Gemm"
               for n in model.graph.node if n.op_type == "Reshape")
    ranks = {v.name: len(v.type.tensor_type.shape.dim)
             for v in onnx.shape_inference.infer_shapes(model, strict_mode=True).graph.value_info}
    node = next(n for n in model.graph.node if n.op_type == "Attention")
    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
    assert attrs["q_num_heads"] == attrs["kv_num_heads"] == 4
    assert [ranks[v] for v in [*node.input, *node.output]] == [3, 3, 3, 3]
    np.testing.assert_allclose(_run(model, net, x)[0], _self_attention_reference(net, x), rtol=1e-5, atol=1e-5)


def test_exported_self_attention_serves_every_batch_and_an_ensemble(tmp_path):
    """The dynamic batch goes through the Attention node; a vmapped ensemble over a shared input
    (whose heads are split for all members at once: nodes, see _attention) has the XLA path's
    values."""
    ms.set_seed(2)
    path = str(tmp_path / "attn.onnx")
    net = SelfAttention()
    ms.export(net, ms.Tensor(_randn(2, S, 16)), file_name=path, opset=23)
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    assert [n.op_type for n in onnx.load(path).graph.node].count("Attention") == 1
    for batch in (1, 7):
        x = _randn(batch, S, 16)
        np.testing.assert_allclose(sess.run(None, {sess.get_inputs()[0].name: x})[0],
                                   _self_attention_reference(net, x), rtol=1e-5, atol=1e-5)
    members = [SelfAttention() for _ in range(3)]
    ensemble = ms.vmap(nn.CellList(members), in_axes=None)
    ms.export(ensemble, ms.Tensor(_randn(4, S, 16)), file_name=path, opset=23)
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    x = _randn(4, S, 16)
    got = sess.run(None, {sess.get_inputs()[0].name: x})[0]
    np.testing.assert_allclose(got, np.stack([_self_attention_reference(m, x) for m in members]), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got, ensemble(ms.Tensor(x)).asnumpy(), rtol=1e-5, atol=1e-5)


def test_attention_whose_probabilities_are_read_elsewhere_stays_as_nodes():
    """Returned probabilities, a softmax over another axis and a training step's backward pass
    (which reads the probabilities) keep the MatMul / Softmax / MatMul form, with jax's values."""
    import jax
    q, k, v = _randn(B, H, S, D), _randn(B, H, L, D), _randn(B, H, L, D)

    def both(q, k, v):
        p = ops.softmax(ops.matmul(q, ops.swapaxes(k, -1, -2)), -1)
        return ops.matmul(p, v), p

    def other_axis(q, k, v):
        return ops.matmul(ops.softmax(ops.matmul(q, ops.swapaxes(k, -1, -2)), 2), v)

    def loss(q, k, v):
        return ops.reduce_sum(ops.matmul(ops.softmax(ops.matmul(q, ops.swapaxes(k, -1, -2)), -1), v) ** 2)
    grad = ms.value_and_grad(loss, grad_position=(0, 1, 2))
    for fn in (both, other_axis, grad):
        assert "Attention" not in _ops(_lowered(fn, q, k, v))
    got = _run(_lowered(both, q, k, v), both, q, k, v)
    np.testing.assert_allclose(got[0], _attention(q, k, v, 1.0), rtol=1e-5, atol=1e-6)
    want_loss, want_grads = jax.value_and_grad(
        lambda q, k, v: (jax.nn.softmax(q @ jax.numpy.swapaxes(k, -1, -2), -1) @ v).__pow__(2).sum(),
        argnums=(0, 1, 2))(q, k, v)
    got = _run(_lowered(grad, q, k, v), grad, q, k, v)
    np.testing.assert_allclose(got[0], want_loss, rtol=1e-5)
    for g, w in zip(got[1:], want_grads):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


def test_a_mask_that_broadcasts_the_scores_wider_stays_as_nodes():
    """Q, K and V for one batch entry and a mask for three: the scores grow to the mask's batch,
    which Attention (output [1, H, S, d]) would not do."""
    q, k, v = _randn(1, H, S, D), _randn(1, H, L, D), _randn(1, H, L, D)
    mask = _randn(B, H, S, L)

    def fn(q, k, v, m):
        return ops.matmul(ops.softmax(ops.matmul(q, ops.swapaxes(k, -1, -2)) + m, -1), v)
    model = _lowered(fn, q, k, v, mask)
    assert "Attention" not in _ops(model)
    np.testing.assert_allclose(_run(model, fn, q, k, v, mask)[0], _attention(q, k, v, 1.0, mask), rtol=1e-5, atol=1e-6)


def test_float16_attention_is_one_node_too():
    q, k, v = (_randn(B, H, S, D).astype(np.float16) for _ in range(3))

    def fn(q, k, v):
        return ops.matmul(ops.softmax(ops.matmul(q, ops.swapaxes(k, -1, -2)) * 0.5, -1), v)
    model = _lowered(fn, q, k, v)
    assert _ops(model) == ["Attention"]
    want = _attention(*(a.astype(np.float64) for a in (q, k, v)), 0.5)
    np.testing.assert_allclose(_run(model, fn, q, k, v)[0].astype(np.float64), want, rtol=1e-2, atol=2e-3)


def test_jit_backend_onnx_runs_attention_as_one_node(monkeypatch):
    """graphcell's own sessions lower at RUNTIME_OPSET (23), so jit(backend="onnx") gets the
    Attention node without asking; its values are the XLA path's."""
    import graphcell.compiler.onnx as lowering
    models, lower_ = [], lowering.lower

    def recording(*args, **kwargs):
        lowered = lower_(*args, **kwargs)
        models.append(lowered.model)
        return lowered
    monkeypatch.setattr(lowering, "lower", recording)
    ms.set_seed(3)
    net, x = SelfAttention(), ms.Tensor(_randn(2, S, 16))
    got = ms.jit(net, backend="onnx")(x).asnumpy()
    np.testing.assert_allclose(got, ms.jit(net)(x).asnumpy(), rtol=1e-5, atol=1e-5)
    (model,) = models
    assert model.opset_import[0].version == lowering.RUNTIME_OPSET == 23
    assert [n.op_type for n in model.graph.node].count("Attention") == 1

"""ONNX exports with a dynamic batch, each file run by onnxruntime at batch 1, 3 and 8 and
compared with XLA (jit) at the same batch (and with numpy where the op is plain indexing):

- strided slices of the batch: x[::2] has ceil(batch / 2) rows, a dimension `Sym` spells
  m * floor((k * batch + c) / d); slices of them, values of their size and reshapes that merge
  them with static axes follow; they were refused (not k * batch + c);
- item assignment through strided slices of the batch and through index lists and ndarrays,
  whose written positions were constants of the example batch's size (refused);
- a fuzz over the ops a model applies to its batch: each one exports and agrees at every batch,
  or fails at export time with an OnnxExportError that names the op and the Cell (never a
  wrong file or an onnxruntime error at run time).
"""
import numpy as np
import onnx
import pytest

import graphcell as ms
from graphcell import nn, ops
from graphcell.compiler.export import to_onnx
from graphcell.compiler.onnx import OnnxExportError, Sym
from graphcell.runtime import Session

RNG = np.random.default_rng(11)
BATCHES = (1, 3, 8)


def _leaves(out) -> list:
    if isinstance(out, (tuple, list)):
        return [a for o in out for a in _leaves(o)]
    return [np.asarray(out.asnumpy() if isinstance(out, ms.Tensor) else out)]


def check_dynamic(tmp_path, fn, shape=(5, 3), batches=BATCHES, reference=None, dims=None):
    """Exports `fn` with axis 0 of its one input dynamic (example batch shape[0]) and runs it
    at each batch against XLA and, when given, `reference(x)` (numpy). `dims`: the expected
    dims of the first output."""
    x = RNG.standard_normal(shape).astype(np.float32)
    path = ms.export(fn, ms.Tensor(x), file_name=str(tmp_path / "f"), dynamic_axes={"x": [0]}, input_names=["x"])
    if dims is not None:
        out = onnx.load(path).graph.output[0].type.tensor_type.shape.dim
        assert [d.dim_param or d.dim_value for d in out] == dims
    session = Session(path, providers=["cpu"])
    for b in batches:
        xb = RNG.standard_normal((b,) + tuple(shape[1:])).astype(np.float32)
        got = _leaves(session(xb))
        want = _leaves(ms.jit(fn)(ms.Tensor(xb)))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.shape == w.shape, (b, g.shape, w.shape)
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5, err_msg=f"batch {b}")
        if reference is not None:
            np.testing.assert_allclose(got[0], reference(xb), rtol=1e-6, atol=1e-6, err_msg=f"batch {b}")


# -- strided slices of the batch --------------------------------------------------------------------

STRIDED = {   # index: the first output's dims
    "x[::2]": (slice(None, None, 2), ["ceil(batch/2)", 3]),
    "x[1::3]": (slice(1, None, 3), ["floor((batch+1)/3)", 3]),
    "x[:-1]": (slice(None, -1), ["batch-1", 3]),
    "x[::-1]": (slice(None, None, -1), ["batch", 3]),
    "x[::-2]": (slice(None, None, -2), ["ceil(batch/2)", 3]),
    "x[1:-1:2]": (slice(1, -1, 2), ["floor((batch-1)/2)", 3]),
    "x[-2::-3]": (slice(-2, None, -3), ["floor((batch+1)/3)", 3]),
    "x[3::2]": (slice(3, None, 2), ["floor((batch-2)/2)", 3]),   # empty at batch 1 and 3
}


@pytest.mark.parametrize("example", [5, 4], ids=["odd-example", "even-example"])
@pytest.mark.parametrize("name", STRIDED)
def test_strided_slices_of_a_dynamic_batch(tmp_path, name, example):
    index, dims = STRIDED[name]
    check_dynamic(tmp_path, lambda x: x[index] * 2, shape=(example, 3), reference=lambda x: x[index] * 2, dims=dims)


DERIVED = {   # what follows a strided slice's length
    "x[::2][::3]": (lambda x: x[::2][::3] + 1, ["ceil(batch/6)", 3]),
    "x[::2][1:]": (lambda x: x[::2][1:] + 1, ["floor((batch-1)/2)", 3]),
    "flattened": (lambda x: ops.reshape(x[::2], (-1,)), ["3*ceil(batch/2)"]),
    "x[::2] @ x[::2].T": (lambda x: ops.matmul(x[::2], x[::2].T), ["ceil(batch/2)", "ceil(batch/2)"]),
    "mean over it": (lambda x: x[::2].mean(0), [3]),
    "ones of its length": (lambda x: ops.ones((x[::2].shape[0], 2), ms.float32) + x[::2, :1], ["ceil(batch/2)", 2]),
    "halves rejoined": (lambda x: ops.concat((x[::2], x[1::2]), 0), ["batch", 3]),
    "sorted": (lambda x: ops.sort(x[::-2], 0)[0], ["ceil(batch/2)", 3]),
}


@pytest.mark.parametrize("example", [5, 4], ids=["odd-example", "even-example"])
@pytest.mark.parametrize("name", DERIVED)
def test_values_of_a_strided_slices_length(tmp_path, name, example):
    """The sizes 5, 11 and 17 all give 3 * ceil(batch / 2) = 1.5 * batch + 1.5, and 4, 9 give
    2 * batch + 1 for 4 * ceil(batch / 2): the second trace's size differs from the example's
    in every remainder a stride divides by, so no k * batch + c fits a strided length."""
    fn, dims = DERIVED[name]
    check_dynamic(tmp_path, fn, shape=(example, 3), dims=dims)


def test_sym_spells_one_function_of_the_batch():
    assert Sym.floor_div("b", 2, 1, 2) == Sym("b", 1, 0)            # floor((2b + 1) / 2) = b
    assert Sym.floor_div("b", 2, 2, 4) == Sym("b", 1, 1, 2)         # floor((2b + 2) / 4) = floor((b + 1) / 2)
    assert Sym.floor_div("b", 3, 0, 1, m=2) == Sym("b", 6, 0)
    half = Sym.floor_div("b", 1, 1, 2)
    assert str(half) == "ceil(b/2)" and str(half.times(3)) == "3*ceil(b/2)"
    assert [half.at(n) for n in range(6)] == [-(-n // 2) for n in range(6)]
    assert half.times(4).divided(2) == half.times(2) and half.divided(2) is None
    assert Sym.floor_div("b", 1, -3, 2).at(1) == 0                 # x[3::2] of one row: empty


def test_a_strided_length_joined_with_the_batch_is_refused_at_export():
    """ceil(batch / 2) + batch rows fit neither k * batch + c nor a multiple of the strided
    length; the error says which node, and what keeps a strided length."""
    x = ms.Tensor(np.ones((5, 3), np.float32))
    with pytest.raises(OnnxExportError, match=r"node concatenate in Cell ''.*values of a strided slice .*"
                                              r"ceil\(batch/2\) long"):
        to_onnx(lambda t: ops.concat((t[::2], t), 0), x, dynamic_axes={0: [0]})


# -- item assignment on the batch axis --------------------------------------------------------------

def _assign(index, value):
    """x[index] = value(x) on a copy, the same code for graphcell and numpy."""
    def fn(x):
        x = x * 1.0
        x[index] = value(x) if callable(value) else value
        return x
    return fn


ASSIGNMENTS = {   # name: (index, value, batches where the index is in range)
    "x[::2] = 0": (slice(None, None, 2), 0.0, BATCHES),
    "x[1::2] = x[1::2] * 3": (slice(1, None, 2), lambda x: x[1::2] * 3, BATCHES),
    "x[::-2] = x[::2]": (slice(None, None, -2), lambda x: x[::2] * 1, BATCHES),
    "x[-2::-3] = 5": (slice(-2, None, -3), 5.0, BATCHES),
    "x[:-1:2, 1:] = 7": ((slice(None, -1, 2), slice(1, None)), 7.0, BATCHES),
    "x[-9::2] = 1": (slice(-9, None, 2), 1.0, BATCHES),   # a start before the first row clamps to it
    "x[[0, 2]] = 7": ([0, 2], 7.0, (3, 8)),
    "x[np.array([1, 3])] = 0": (np.array([1, 3]), 0.0, (8,)),
    "x[:, [0, 2]] = x[:, :2]": ((slice(None), [0, 2]), lambda x: x[:, :2] * 1, BATCHES),
    "x[[-1, 0]] = x[0] * 2": ([-1, 0], lambda x: x[0] * 2, BATCHES),   # one row at batch 1: the last write wins
    "x[[0, 0, 1]] = [1, 2, 3] rows": ([0, 0, 1], lambda x: x[:3] * 0 + np.float32(1), (3, 8)),
    "x[[0, -1], [2, 0]] = 4": (([0, -1], [2, 0]), 4.0, BATCHES),
    "x[np.array([[1], [0]]), [0, 1]] = 9": ((np.array([[1], [0]]), [0, 1]), 9.0, (3, 8)),
}


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_item_assignment_with_a_dynamic_batch(tmp_path, name):
    """numpy's result at every batch where numpy accepts the index; eagerly too (there the
    positions are worked out in numpy)."""
    index, value, batches = ASSIGNMENTS[name]
    fn = _assign(index, value)
    check_dynamic(tmp_path, fn, batches=batches, reference=fn)
    x = RNG.standard_normal((8, 3)).astype(np.float32)
    np.testing.assert_array_equal(fn(ms.Tensor(x)).asnumpy(), fn(x))


def test_index_lists_out_of_range_at_a_smaller_batch_write_nothing(tmp_path):
    """x[[0, 2]] = 7 exported at batch 5 and run at batch 1: row 0 is written and index 2,
    out of range there, is dropped (it was clamped onto row 0's writer). Index Tensors out of
    range under XLA are dropped the same way (ops/indexing.py's scatters drop them too)."""
    fn = _assign([0, 2], 7.0)
    path = ms.export(fn, ms.Tensor(np.zeros((5, 3), np.float32)), file_name=str(tmp_path / "f"),
                     dynamic_axes={"x": [0]}, input_names=["x"])
    x = RNG.standard_normal((1, 3)).astype(np.float32)
    np.testing.assert_array_equal(Session(path, providers=["cpu"])(x), np.full((1, 3), 7, np.float32))
    rows = ms.Tensor(np.array([0, 7, -9, 2], np.int32))
    got = ms.jit(_assign(rows, 5.0))(ms.Tensor(x.repeat(4, 0))).asnumpy()
    want = x.repeat(4, 0)
    want[[0, 2]] = 5.0
    np.testing.assert_array_equal(got, want)


def test_index_lists_that_cannot_collide_skip_the_write_comparison():
    """The K x K comparison that finds repeated writes runs only where writes may repeat: an
    index repeated, or counted from both ends (-1 and 4 are one row of 5)."""
    def has_pairwise(index):
        graph = ms.trace(_assign(index, 1.0), ms.Tensor(np.zeros((5, 3), np.float32))).graph
        return any(n.primitive.name == "eq" and n.outputs[0].shape == (2, 2) for n in graph.nodes)
    assert not has_pairwise([0, 2]) and not has_pairwise([-1, -3])
    assert has_pairwise([0, -1]) and has_pairwise([1, 1])


def test_assignment_through_a_strided_slice_differentiates_as_jax():
    import jax
    x = RNG.standard_normal((7, 3)).astype(np.float32)
    v = RNG.standard_normal((3, 3)).astype(np.float32)
    w = RNG.standard_normal((7, 3)).astype(np.float32)

    def loss(t, u):
        t = t * 1.0
        t[-2::-2] = u
        return (t * ms.Tensor(w)).sum()
    want = jax.grad(lambda t, u: (t.at[-2::-2].set(u) * w).sum(), (0, 1))(x, v)
    got = ms.grad(loss, grad_position=(0, 1))(ms.Tensor(x), ms.Tensor(v))
    for g, e in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), e, rtol=1e-6, atol=1e-6)


# -- a fuzz over common ops on the batch ------------------------------------------------------------

EMBED = nn.Embedding(2, 3)
DENSE = nn.Dense(3, 2)
NORM = nn.LayerNorm((3,))
T = lambda a, dtype=np.int32: ms.Tensor(np.asarray(a, dtype))   # noqa: E731

FUZZ = {   # name: (fn, example shape)
    "reshape -1": (lambda x: ops.reshape(x, (-1,)), (5, 2, 3)),
    "reshape (-1, 6)": (lambda x: ops.reshape(x, (-1, 6)), (5, 2, 3)),
    "reshape (batch, -1)": (lambda x: x.reshape(x.shape[0], -1), (5, 2, 3)),
    "view (batch, -1)": (lambda x: x.view(x.shape[0], -1), (5, 2, 3)),
    "flatten": (lambda x: ops.flatten(x), (5, 2, 3)),
    "flatten from 0": (lambda x: ops.flatten(x, start_dim=0), (5, 2, 3)),
    "mean over batch": (lambda x: ops.mean(x, 0), (5, 3)),
    "x - mean(0)": (lambda x: x - x.mean(0, keep_dims=True), (5, 3)),
    "std over batch": (lambda x: ops.std(x, 0, ddof=1), (5, 3)),
    "ones((batch, 1)) + x": (lambda x: x + ops.ones((x.shape[0], 1), ms.float32), (5, 3)),
    "full((batch, 3))": (lambda x: x * ops.full((x.shape[0], 3), 2.0, ms.float32), (5, 3)),
    "broadcast_to (batch, 2, 3)": (lambda x: ops.broadcast_to(x[:, None], (x.shape[0], 2, 3)), (5, 3)),
    "concat on batch": (lambda x: ops.concat((x, x[:1] * 2), 0), (5, 3)),
    "stack on batch": (lambda x: ops.stack((x, -x), 0), (5, 3)),
    "split axis 1": (lambda x: ops.split(x, 1, axis=1)[2], (5, 3)),
    "split batch [1, rest]": (lambda x: ops.split(x, [1, x.shape[0] - 1], axis=0)[1], (5, 3)),
    "gather rows [0, -1]": (lambda x: ops.gather(x, T([0, -1]), 0), (5, 3)),
    "x[[0, -1]]": (lambda x: x[[0, -1]], (5, 3)),
    "gather by argmax": (lambda x: ops.gather(x, ops.argmax(x[:, 0], 0).reshape((1,)), 0), (5, 3)),
    "gather_elements on batch": (lambda x: ops.gather_elements(x, 0, ops.argmax(x, 0, keepdims=True)), (5, 3)),
    "cumsum over batch": (lambda x: ops.cumsum(x, 0), (5, 3)),
    "cumprod over batch": (lambda x: ops.cumprod(x, 0), (5, 3)),
    "cummax over batch": (lambda x: ops.cummax(x, 0), (5, 3)),
    "logcumsumexp over batch": (lambda x: ops.logcumsumexp(x, 0), (5, 3)),
    "median over batch": (lambda x: ops.median(x, 0), (5, 3)),
    "topk over batch": (lambda x: ops.topk(x, 1, dim=0), (5, 3)),
    "topk axis 1": (lambda x: ops.topk(x, 2, dim=1), (5, 3)),
    "argsort over batch": (lambda x: ops.argsort(x, axis=0), (5, 3)),
    "argmax over batch": (lambda x: ops.argmax(x, 0), (5, 3)),
    "argmax axis 1": (lambda x: ops.argmax(x, 1), (5, 3)),
    "where": (lambda x: ops.where(x > 0, x, 0.0), (5, 3)),
    "where by row": (lambda x: ops.where((x.sum(1) > 0)[:, None], x, -x), (5, 3)),
    "x[x > 0] = 0": (lambda x: _assign(x > 0, 0.0)(x), (5, 3)),
    "x[rows] = x[0]": (lambda x: _assign(x[:, 0] > 0, lambda t: t[0] * 1)(x), (5, 3)),
    "softmax over batch": (lambda x: ops.softmax(x, 0), (5, 3)),
    "x @ x.T": (lambda x: ops.matmul(x, x.T), (5, 3)),
    "tril(x @ x.T)": (lambda x: ops.tril(ops.matmul(x, x.T)), (5, 3)),
    "causal mask": (lambda x: ops.masked_fill(ops.matmul(x, x.T),
                                              ops.triu(ops.ones((x.shape[0], x.shape[0]), ms.bool_), 1), -1e9), (5, 3)),
    "tile batch": (lambda x: ops.tile(x, (2, 1)), (5, 3)),
    "repeat_interleave batch": (lambda x: ops.repeat_interleave(x, 2, 0), (5, 3)),
    "roll batch": (lambda x: ops.roll(x, 1, 0), (5, 3)),
    "diff batch": (lambda x: ops.diff(x, axis=0), (5, 3)),
    "pad batch": (lambda x: ops.pad(x, (0, 0, 1, 2)), (5, 3)),
    "one_hot of argmax": (lambda x: ops.one_hot(ops.argmax(x, 1), 3), (5, 3)),
    "pairwise differences": (lambda x: (x[:, None] - x[None]).sum(-1), (5, 3)),
    "embedding": (lambda x: EMBED((x > 0).astype(ms.int32)), (5, 3)),
    "dense, layer norm": (lambda x: DENSE(NORM(x)), (5, 3)),
    "bmm": (lambda x: ops.bmm(x, x.transpose(0, 2, 1)), (5, 2, 3)),
}


@pytest.mark.parametrize("name", FUZZ)
def test_common_ops_export_with_a_dynamic_batch(tmp_path, name):
    fn, shape = FUZZ[name]
    check_dynamic(tmp_path, fn, shape=shape)


REFUSED = {   # name: (fn, what the error must say): at export, naming the op and the Cell
    "x * x.shape[0]": (lambda x: x * x.shape[0], r"a constant made in Cell '' is 5.0 at one batch size and 11.0 "
                                                 r"at another \(read at .*test_dynamic_export_fuzz.py:\d+\)"),
    "arange(batch)": (lambda x: x * ops.arange(x.shape[0]).astype(ms.float32)[:, None],
                      r"constant in Cell '<top>': a constant of shape \[5\] \(read by cast at .*\) varies along"),
    "eye(batch)": (lambda x: ops.matmul(x, x.T) * ops.eye(x.shape[0]), r"varies along the dynamic axes \[0, 1\]"),
    "chunk of the batch": (lambda x: ops.chunk(x, 2, 0)[0], r"node slice in Cell ''.*ops.chunk"),
    "unbind the batch": (lambda x: ops.unbind(x, 0)[0], r"the graph changes with the batch size"),
    "reshape the batch to (5, -1)": (lambda x: ops.reshape(x, (5, -1)),
                                     r"tracing again with the dynamic axes resized \(batch = 11\).*ValueError"),
}


@pytest.mark.parametrize("name", REFUSED)
def test_ops_that_cannot_follow_the_batch_are_refused_at_export(name):
    fn, message = REFUSED[name]
    with pytest.raises(OnnxExportError, match=message):
        to_onnx(fn, ms.Tensor(np.ones((5, 3), np.float32)), dynamic_axes={"x": [0]}, input_names=["x"])


class Halves(nn.Cell):
    def construct(self, x):
        return ops.chunk(x, 2, 0)[0]


def test_a_refusal_names_the_cell_path():
    net = nn.SequentialCell([nn.ReLU(), Halves()])
    with pytest.raises(OnnxExportError, match=r"node slice in Cell '1'"):
        to_onnx(net, ms.Tensor(np.ones((5, 3), np.float32)), dynamic_axes={"x": [0]}, input_names=["x"])

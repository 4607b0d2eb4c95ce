"""Shape-dependent ops over a dynamic batch in an ONNX export: one file serves every batch size.

Each case of the table is an output of one exported net (batch 8 traced), run by onnxruntime at
batch 1, 2, 8 and 13 and compared with numpy; every value the model declares a shape for (its
outputs and value_info, which onnxruntime trusts, and what ONNX shape inference derives) must
have that shape at run time. Before, a slice of fixed length along the batch (x[-3:], x[:3],
x[1:4]) was declared 3 rows long, which onnxruntime contradicted at batch 2 ("Expected shape from
model of {3,5} does not match actual shape of {2,5}"), and a reshape, a sum's count or a
constant sized by it was baked in (x[:3].reshape(-1) failed at batch 2, x[-3:][-1] too); now
those are `min(batch,3)` (compiler/export_clamps.py). Cases that cannot follow the batch fail
at export time, saying why (the last table).
"""
import math
import warnings

import numpy as np
import onnx
import onnxruntime as ort
import pytest

import graphcell as ms
from graphcell import ops
from graphcell.compiler.export import to_onnx
from graphcell.compiler.onnx import OnnxExportError

BATCHES = (1, 2, 8, 13)
IDX = np.array([-1, 0], np.int32)


def _cummax(x):
    return np.maximum.accumulate(x, 0)


def _roll(x, k):
    return np.roll(x, k, 0)


# name: (graphcell function of x [batch, 5], numpy reference, its first dims as declared)
CASES = {
    # slices of fixed length: min(batch, n) and what follows it
    "x[-3:]": (lambda x: x[-3:] * 2.0, lambda x: x[-3:] * 2, ["min(batch,3)", 5]),
    "x[:3]": (lambda x: x[:3] * 2.0, lambda x: x[:3] * 2, ["min(batch,3)", 5]),
    "x[1:4]": (lambda x: x[1:4] * 2.0, lambda x: x[1:4] * 2, ["min(batch-1,3)", 5]),
    "x[2:5]": (lambda x: x[2:5] * 2.0, lambda x: x[2:5] * 2, ["max(min(batch-2,3),0)", 5]),
    "x[-4:-1]": (lambda x: x[-4:-1] * 2.0, lambda x: x[-4:-1] * 2, ["min(batch-1,3)", 5]),
    "x[-3:][-1]": (lambda x: x[-3:][-1], lambda x: x[-3:][-1], [5]),
    "x[-3:][1:]": (lambda x: x[-3:][1:] + 0.0, lambda x: x[-3:][1:], ["min(batch-1,2)", 5]),
    "x[-3:][::-1]": (lambda x: x[-3:][::-1] * 1.0, lambda x: x[-3:][::-1], ["min(batch,3)", 5]),
    "x[1:][:3]": (lambda x: x[1:][:3] * 1.0, lambda x: x[1:][:3], ["min(batch-1,3)", 5]),
    "x[::2][:2]": (lambda x: x[::2][:2] * 1.0, lambda x: x[::2][:2], ["min(ceil(batch/2),2)", 5]),
    "x[-3:] + x[:3]": (lambda x: x[-3:] + x[:3], lambda x: x[-3:] + x[:3], ["min(batch,3)", 5]),
    "x[:3].reshape(-1)": (lambda x: ops.reshape(x[:3], (-1,)), lambda x: x[:3].reshape(-1), ["min(5*batch,15)"]),
    "x[-3:].mean(0)": (lambda x: x[-3:].mean(0), lambda x: x[-3:].mean(0), [5]),
    "x[-3:].std(0)": (lambda x: x[-3:].std(0), lambda x: x[-3:].std(0), [5]),
    "x[-3:].mean(0, keepdims) + x[:3]": (lambda x: x[-3:].mean(0, keep_dims=True) + x[:3],
                                         lambda x: x[-3:].mean(0, keepdims=True) + x[:3], ["min(batch,3)", 5]),
    "zeros(x[:3].shape)": (lambda x: ops.zeros(x[:3].shape, ms.float32) + 1.0, lambda x: x[:3] * 0 + 1,
                           ["min(batch,3)", 5]),
    "x[:3] @ x[:3].T": (lambda x: ops.matmul(x[:3], x[:3].T), lambda x: x[:3] @ x[:3].T,
                        ["min(batch,3)", "min(batch,3)"]),
    "pad(x[-3:])": (lambda x: ops.pad(x[-3:], (0, 0, 1, 2)), lambda x: np.pad(x[-3:], ((1, 2), (0, 0))),
                    ["min(batch+3,6)", 5]),
    "cumsum(x[-3:])": (lambda x: ops.cumsum(x[-3:], 0), lambda x: np.cumsum(x[-3:], 0), ["min(batch,3)", 5]),
    "sort(x[:3])": (lambda x: ops.sort(x[:3], axis=0)[0], lambda x: np.sort(x[:3], 0), ["min(batch,3)", 5]),
    "x[-3:][[-1, 0]]": (lambda x: x[-3:][ms.Tensor(IDX)], lambda x: x[-3:][IDX], [2, 5]),
    "tile(x[:3])": (lambda x: ops.tile(x[:3], (2, 1)), lambda x: np.tile(x[:3], (2, 1)), ["min(2*batch,6)", 5]),
    # slices relative to the end, strided, reversed
    "x[2:]": (lambda x: x[2:] * 2.0, lambda x: x[2:] * 2, ["batch-2", 5]),
    "x[1:-1]": (lambda x: x[1:-1] * 2.0, lambda x: x[1:-1] * 2, ["batch-2", 5]),
    "x[::2]": (lambda x: x[::2] * 2.0, lambda x: x[::2] * 2, ["ceil(batch/2)", 5]),
    "x[::-1]": (lambda x: x[::-1] * 2.0, lambda x: x[::-1] * 2, ["batch", 5]),
    "x[-1]": (lambda x: x[-1] * 2.0, lambda x: x[-1] * 2, [5]),
    "x[1:] - x[:-1]": (lambda x: x[1:] - x[:-1], lambda x: np.diff(x, axis=0), ["batch-1", 5]),
    # reshapes, repeats, concatenations
    "reshape(-1)": (lambda x: ops.reshape(x, (-1,)), lambda x: x.reshape(-1), ["5*batch"]),
    "flatten": (lambda x: ops.flatten(ops.reshape(x, (x.shape[0], 5, 1))), lambda x: x, ["batch", 5]),
    "tile": (lambda x: ops.tile(x, (2, 1)), lambda x: np.tile(x, (2, 1)), ["2*batch", 5]),
    "repeat_interleave": (lambda x: ops.repeat_interleave(x, 2, 0), lambda x: np.repeat(x, 2, 0), ["2*batch", 5]),
    "concat(x, x)": (lambda x: ops.concat((x, x), 0), lambda x: np.concatenate((x, x)), ["2*batch", 5]),
    "stack(x, x)": (lambda x: ops.stack((x, x), 0), lambda x: np.stack((x, x)), [2, "batch", 5]),
    "broadcast_to": (lambda x: ops.broadcast_to(x[:, :1], (x.shape[0], 4)), lambda x: np.repeat(x[:, :1], 4, 1),
                     ["batch", 4]),
    "broadcast_to new axis": (lambda x: ops.broadcast_to(x[None], (2, x.shape[0], 5)),
                              lambda x: np.stack((x, x)), [2, "batch", 5]),
    "pad": (lambda x: ops.pad(x, (0, 0, 1, 2)), lambda x: np.pad(x, ((1, 2), (0, 0))), ["batch+3", 5]),
    # gathers, sorts, reductions, scans along the batch
    "gather [-1, 0]": (lambda x: ops.gather(x, ms.Tensor(IDX), 0), lambda x: x[IDX], [2, 5]),
    "index_select [0]": (lambda x: ops.index_select(x, 0, ms.Tensor(IDX[1:])), lambda x: x[:1], [1, 5]),
    "topk 1": (lambda x: ops.topk(x, 1, dim=0)[0], lambda x: x.max(0, keepdims=True), [1, 5]),
    "sort": (lambda x: ops.sort(x, axis=0)[0], lambda x: np.sort(x, 0), ["batch", 5]),
    "argsort": (lambda x: ops.argsort(x, axis=0), lambda x: np.argsort(x, 0, kind="stable"), ["batch", 5]),
    "mean": (lambda x: x.mean(0), lambda x: x.mean(0), [5]),
    "sum": (lambda x: x.sum(0), lambda x: x.sum(0), [5]),
    "cumsum": (lambda x: ops.cumsum(x, 0), lambda x: np.cumsum(x, 0), ["batch", 5]),
    "cumprod": (lambda x: ops.cumprod(x, 0), lambda x: np.cumprod(x, 0), ["batch", 5]),
    "cummax": (lambda x: ops.cummax(x, 0)[0], _cummax, ["batch", 5]),
    "roll 1": (lambda x: ops.roll(x, 1, 0), lambda x: _roll(x, 1), ["batch", 5]),
    "roll -1": (lambda x: ops.roll(x, -1, 0), lambda x: _roll(x, -1), ["batch", 5]),
    "x @ x.T": (lambda x: ops.matmul(x, x.T), lambda x: x @ x.T, ["batch", "batch"]),
    # shapes computed from the batch, through ops on Tensors
    "zeros((x.shape[0], 5))": (lambda x: ops.zeros((x.shape[0], 5), ms.float32) + x, lambda x: x, ["batch", 5]),
    "ones(x.shape[0]).sum()": (lambda x: ops.ones((x.shape[0],), ms.float32).sum() + x[:, 0],
                               lambda x: x[:, 0] + len(x), ["batch"]),
}


def _declared(dim, batch):
    """A declared dimension's size at `batch`: its value, or its symbolic expression evaluated."""
    if dim.HasField("dim_value"):
        return dim.dim_value
    names = {"batch": batch, "min": min, "max": max, "ceil": math.ceil, "floor": math.floor}
    return max(eval(dim.dim_param, {"__builtins__": {}}, names), 0)   # noqa: S307 - our own spellings


def _check_declared(info, shape, batch):
    dims = info.type.tensor_type.shape.dim
    assert [_declared(d, batch) for d in dims] == list(shape), \
        f"{info.name}: declared {[d.dim_param or d.dim_value for d in dims]}, {list(shape)} at batch {batch}"


@pytest.fixture(scope="module")
def exported():
    names = list(CASES)
    net = lambda x: tuple(CASES[n][0](x) for n in names)   # noqa: E731
    x = np.random.default_rng(0).standard_normal((8, 5)).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # no fallback to static shapes
        model = to_onnx(net, ms.Tensor(x), dynamic_axes={"x": [0]}, input_names=["x"]).model
    return names, model


def test_declared_dims(exported):
    names, model = exported
    got = {n: [d.dim_param or d.dim_value for d in o.type.tensor_type.shape.dim]
           for n, o in zip(names, model.graph.output)}
    assert got == {n: CASES[n][2] for n in names}


def test_every_batch_size_matches_numpy_and_the_declared_shapes(exported):
    names, model = exported
    # Every value that the model declares a shape for becomes an output, so that its run-time
    # shape is checked too (onnxruntime checks graph outputs only, and warns).
    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    outputs = {o.name for o in probe.graph.output}
    probe.graph.output.extend(v for v in model.graph.value_info if v.name not in outputs)
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(probe.SerializeToString(), options, providers=["CPUExecutionProvider"])
    for batch in BATCHES:
        x = np.random.default_rng(batch).standard_normal((batch, 5)).astype(np.float32)
        got = session.run(None, {"x": x})
        for name, out in zip(names, got):
            np.testing.assert_allclose(out, CASES[name][1](x), rtol=1e-5, atol=1e-5, err_msg=f"{name}, batch {batch}")
        for info, out in zip(probe.graph.output, got):
            _check_declared(info, out.shape, batch)
        for info, out in zip(inferred.graph.output, got):
            _check_declared(info, out.shape, batch)


@pytest.mark.slow   # one XLA compilation of every case: 5 s
def test_xla_agrees_at_a_small_batch(exported):
    """numpy is the reference above; XLA (jit) gives the same at batch 2, below every clip."""
    names, model = exported
    x = np.random.default_rng(2).standard_normal((2, 5)).astype(np.float32)
    outs = ms.jit(lambda t: tuple(CASES[n][0](t) for n in names))(ms.Tensor(x))
    for name, out in zip(names, outs):
        np.testing.assert_allclose(out.asnumpy(), CASES[name][1](x), rtol=1e-5, atol=1e-5, err_msg=name)


# name: (function, the export error's words). Each was a file right at the traced sizes only.
REFUSED = {
    "roll by 3 (by 1 at batch 2)": (lambda x: ops.roll(x, 3, 0), r"below the bound of a clipped slice \(batch = 2\)"),
    "x[-3:] joined to the batch": (lambda x: ops.concat((x[-3:], x), 0), r"is batch\+3 at the traced sizes, but 4"),
    "x[:6:2]": (lambda x: x[:6:2] * 1.0, r"takes 3 elements of dynamic axis 0 \(batch\) with a step"),
    "x * x.shape[0]": (lambda x: x * x.shape[0], r"a number computed from a shape"),
    "x[:x.shape[0] // 2]": (lambda x: x[:x.shape[0] // 2], r"ops.chunk, ops.tensor_split or x\[:n // 2\]"),
    # all 8 rows at the example's size, so traced as no slice at all: the file took every row
    "x[:100] at batch 8": (lambda x: x[:100] * 1.0, r"bound 100 reaches past the example's 8 elements"),
    "x[-100:] at batch 8": (lambda x: x[-100:] * 1.0, r"bound -100 reaches past the example's 8 elements"),
    "x[:10] at batch 8": (lambda x: x[:10] * 1.0, r"an example of more than 10 along that axis"),
}


@pytest.mark.parametrize("name", REFUSED)
def test_what_cannot_follow_the_batch_is_refused_at_export(name):
    fn, words = REFUSED[name]
    x = ms.Tensor(np.zeros((8, 5), np.float32))
    with pytest.raises(OnnxExportError, match=words):
        to_onnx(fn, x, dynamic_axes={0: [0]})


def test_bounds_past_the_example_are_refused_in_a_cached_member_and_clip_past_it():
    """A vmapped member's x[:100], traced (and cached) by a jit call at batch 8 first, is
    refused at export; exported with an example past the bound, the file clips it. Bounds past
    a static axis, or that follow the size, are whole at every size and export as such."""
    class Member(ms.nn.Cell):
        def construct(self, x):
            return x[:100] * 2.0

    ensemble = ms.vmap(ms.nn.CellList([Member(), Member()]), in_axes=None)
    x = ms.Tensor(np.ones((8, 3), np.float32))
    ms.jit(ensemble)(x)
    with pytest.raises(OnnxExportError, match=r"test_export_dynamic_shapes.py:\d+ in .*bound 100"):
        to_onnx(ensemble, x, dynamic_axes={0: [0]})
    model = to_onnx(ensemble, ms.Tensor(np.ones((101, 3), np.float32)), dynamic_axes={0: [0]}).model
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for batch in (1, 100, 150):
        rows = np.arange(batch * 3, dtype=np.float32).reshape(batch, 3)
        np.testing.assert_array_equal(session.run(None, {session.get_inputs()[0].name: rows})[0],
                                      np.stack([rows[:100] * 2] * 2))
    for fn in (lambda t: t[:, :100] * 2.0, lambda t: t[:2 * t.shape[0]] * 2.0):
        model = to_onnx(fn, x, dynamic_axes={0: [0]}).model
        assert model.graph.output[0].type.tensor_type.shape.dim[0].dim_param == "batch"


def test_a_net_that_refuses_small_batches_keeps_the_lengths_it_has():
    """narrow(x, 0, 1, 3) raises below batch 4 (as it does eagerly): the file declares 3 rows,
    right wherever the net runs, and says so."""
    x = ms.Tensor(np.zeros((8, 5), np.float32))
    with pytest.warns(RuntimeWarning, match="where the code does not run"):
        model = to_onnx(lambda t: ops.narrow(t, 0, 1, 3) * 1.0, x, dynamic_axes={0: [0]}).model
    assert [d.dim_value for d in model.graph.output[0].type.tensor_type.shape.dim] == [3, 5]

"""MindSpore 2.10's in-place scatters (ops/scatter_inplace.py), the scatters that make copies
(ops/scatter_copies.py) and the segment reductions (ops/segment_ops.py): against torch
(index_add, index_fill, scatter_reduce, slice/select/diagonal_scatter), a one-write-at-a-time
loop, and values read off MindSpore 2.10.0 (CPU); eagerly, under jit (XLA and onnxruntime),
under vmap (against a per-example loop) and under grad (against jax.grad).

The in-place semantics measured on MindSpore 2.10: scatter_*, scatter_nd_*, index_add and
inplace_index_add write their result into input_x, a Parameter or a plain Tensor, and return
it; inplace_add/sub/update and the *_scatter ops leave their input as it is. Out-of-range
indices are errors eagerly (dropped inside a compiled graph).
"""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
import torch

import graphcell as ms
from graphcell import nn, ops
from graphcell.frontend.tracer import GraphModeError
from graphcell.tensor import Parameter, Tensor
from tests.modes import run_table

RNG = np.random.default_rng(7)
BACKENDS = ("eager", "xla", "onnx")
X = RNG.uniform(-3, 3, (4, 3)).astype(np.float32)
IDX = np.array([2, 0, 2, 3, 2], np.int32)                  # repeats
UPD = RNG.uniform(-3, 3, (5, 3)).astype(np.float32)
UPD_NZ = np.where(np.abs(UPD) < 0.5, 1.5, UPD).astype(np.float32)
SEG = np.array([1, 3, 1, -1, 0], np.int32)                  # a negative id is skipped; segment 2 is empty


def t(a):
    return torch.from_numpy(np.asarray(a))


def reduce_rows(x, idx, upd, how):
    """torch's scatter_reduce along rows, including x (MindSpore's scatter_add/mul/div/min/update)."""
    index = t(idx.astype(np.int64))[:, None].expand(-1, x.shape[1])
    if how == "update":
        out = t(x).clone()
        for k, i in enumerate(idx):                  # the last write wins
            out[i] = t(upd[k])
        return out.numpy()
    if how == "div":
        return reduce_rows(x, idx, 1 / upd, "prod")
    return t(x).scatter_reduce(0, index, t(upd), how, include_self=True).numpy()


def segments(x, ids, n, how):
    """torch's scatter_reduce into the reduction's identity (negative ids dropped)."""
    keep = ids >= 0
    index = t(ids[keep].astype(np.int64))[:, None].expand(-1, x.shape[1])
    init = {"sum": 0.0, "prod": 1.0, "amax": np.finfo(np.float32).min, "amin": np.finfo(np.float32).max}[how]
    out = torch.full((n, x.shape[1]), init)
    return out.scatter_reduce(0, index, t(x[keep]), how, include_self=True).numpy()


CASES = {  # name: (fn of Tensors, inputs, reference)
    **{f"scatter_{how}": (lambda x, i, u, how=how: getattr(ops, f"scatter_{how}")(x * 1, i, u),
                          [X, IDX, UPD_NZ], reduce_rows(X, IDX, UPD_NZ, {"add": "sum", "mul": "prod"}.get(how, how)))
       for how in ("add", "mul", "div", "update")},
    "scatter_min": (lambda x, i, u: ops.scatter_min(x * 1, i, u), [X, IDX, UPD], reduce_rows(X, IDX, UPD, "amin")),
    "scatter_max": (lambda x, i, u: ops.scatter_max(x * 1, i, u), [X, IDX, UPD], reduce_rows(X, IDX, UPD, "amax")),
    "scatter_nd_add": (lambda x, i, u: ops.scatter_nd_add(x * 1, i, u), [X, IDX[:, None], UPD],
                       reduce_rows(X, IDX, UPD, "sum")),
    "scatter_nd_update_points": (lambda x, i, u: ops.scatter_nd_update(x * 1, i, u),
                                 [X, np.array([[0, 1], [3, 2], [0, 1]], np.int32), UPD[:3, 0]],
                                 t(X).index_put((t(np.array([0, 3])), t(np.array([1, 2]))), t(UPD[[2, 1], 0])).numpy()),
    "scatter_nd_sub": (lambda x, i, u: ops.scatter_nd_sub(x * 1, i, u), [X, IDX[:, None], UPD],
                       reduce_rows(X, IDX, -UPD, "sum")),
    "index_add_axis1": (lambda x, i, y: ops.index_add(x * 1, i, y, 1), [X, np.array([2, 2, 0], np.int32), UPD[:4]],
                        torch.index_add(t(X), 1, t(np.array([2, 2, 0])), t(UPD[:4])).numpy()),
    "inplace_index_add": (lambda x, i, y: ops.inplace_index_add(x * 1, i, y, 0), [X, IDX, UPD],
                          torch.index_add(t(X), 0, t(IDX.astype(np.int64)), t(UPD)).numpy()),
    "index_fill": (lambda x, i: ops.index_fill(x, 1, i, -2.5), [X, np.array([2, -3], np.int32)],
                   torch.index_fill(t(X), 1, t(np.array([2, 0])), -2.5).numpy()),
    "inplace_add": (lambda x, v: ops.inplace_add(x, v, (3, 0, 3)), [X, UPD[:3]],
                    torch.index_add(t(X), 0, t(np.array([3, 0, 3])), t(UPD[:3])).numpy()),
    "inplace_sub": (lambda x, v: ops.inplace_sub(x, v, 1), [X, UPD[:1]],
                    torch.index_add(t(X), 0, t(np.array([1])), -t(UPD[:1])).numpy()),
    "inplace_update": (lambda x, v, i: ops.inplace_update(x, v, i), [X, UPD[:3], np.array([-1, 0, 3], np.int32)],
                       reduce_rows(X, np.array([3, 0, 3]), UPD[:3], "update")),
    "slice_scatter": (lambda x, s: ops.slice_scatter(x, s, 0, 1, None, 2), [X, UPD[:2]],
                      torch.slice_scatter(t(X), t(UPD[:2]), 0, 1, None, 2).numpy()),
    "select_scatter": (lambda x, s: ops.select_scatter(x, s, 1, -1), [X, UPD[:4, 0]],
                       torch.select_scatter(t(X), t(UPD[:4, 0]), 1, -1).numpy()),
    "diagonal_scatter": (lambda x, s: ops.diagonal_scatter(x, s, -1), [X, UPD[0]],
                         torch.diagonal_scatter(t(X), t(UPD[0]), -1).numpy()),
    **{f"unsorted_segment_{how}": (lambda x, i, how=how: getattr(ops, f"unsorted_segment_{how}")(x, i, 4),
                                   [UPD, SEG], segments(UPD, SEG, 4, {"sum": "sum", "prod": "prod"}.get(how, "a" + how)))
       for how in ("sum", "max", "min", "prod")},
}


@pytest.mark.parametrize("backend", BACKENDS)
def test_values_against_torch(backend):
    for n, got in run_table(CASES, CASES, backend).items():
        want = np.asarray(CASES[n][2])
        assert got.shape == want.shape and got.dtype == np.float32, (n, got.shape, got.dtype)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=n)


# -- in place, as measured ---------------------------------------------------------------------------

def _x():
    return np.arange(1, 7, dtype=np.float32).reshape(3, 2)


# Measured on MindSpore 2.10.0 (CPU): x = arange(1, 7).reshape(3, 2), indices [0, 2, 0],
# updates [[1, 2], [3, 4], [5, 6]]; the result, which input_x (Parameter or Tensor) then holds.
MEASURED_INPLACE = {
    "scatter_add": [[7, 10], [3, 4], [8, 10]],
    "scatter_update": [[5, 6], [3, 4], [3, 4]],
    "scatter_max": [[5, 6], [3, 4], [5, 6]],
    "scatter_mul": [[5, 24], [3, 4], [15, 24]],
    "scatter_div": [[0.2, 1 / 6], [3, 4], [5 / 3, 1.5]],
    "scatter_min": [[1, 2], [3, 4], [3, 4]],
}


@pytest.mark.parametrize("kind", ["parameter", "tensor"])
def test_scatters_write_their_input_in_place(kind):
    idx, upd = Tensor(np.array([0, 2, 0], np.int32)), Tensor(np.array([[1, 2], [3, 4], [5, 6]], np.float32))
    for name, want in MEASURED_INPLACE.items():
        x = Parameter(Tensor(_x()), name="p") if kind == "parameter" else Tensor(_x())
        out = getattr(ops, name)(x, idx, upd)
        np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-6, err_msg=name)
        np.testing.assert_allclose(x.asnumpy(), want, rtol=1e-6, err_msg=name)
    # scatter_nd_*: [[0, 0], [2, 0]] with [5, 7] (measured)
    for name, want in {"scatter_nd_add": [[6, 2], [3, 4], [12, 6]], "scatter_nd_mul": [[5, 2], [3, 4], [35, 6]],
                       "scatter_nd_max": [[5, 2], [3, 4], [7, 6]], "scatter_nd_update": [[5, 2], [3, 4], [7, 6]],
                       "scatter_nd_div": [[0.2, 2], [3, 4], [5 / 7, 6]]}.items():
        x = Parameter(Tensor(_x()), name="p") if kind == "parameter" else Tensor(_x())
        getattr(ops, name)(x, Tensor(np.array([[0, 0], [2, 0]], np.int32)), Tensor(np.array([5, 7], np.float32)))
        np.testing.assert_allclose(x.asnumpy(), want, rtol=1e-6, err_msg=name)
    x = Parameter(Tensor(_x()), name="p") if kind == "parameter" else Tensor(_x())
    ops.index_add(x, Tensor(np.array([1, 1], np.int32)), Tensor(np.ones((3, 2), np.float32)), 1)
    np.testing.assert_array_equal(x.asnumpy(), [[1, 4], [3, 6], [5, 8]])


def test_copies_leave_their_input():
    x = Tensor(_x())
    ops.inplace_add(x, Tensor(np.ones((1, 2), np.float32)), 1)
    ops.inplace_update(x, Tensor(np.ones((1, 2), np.float32)), Tensor(np.array([0], np.int32)))
    ops.index_fill(x, 0, Tensor(np.array([1], np.int32)), 9.0)
    np.testing.assert_array_equal(x.asnumpy(), _x())


class Accumulator(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.zeros((3, 2), np.float32)), name="w")

    def construct(self, i, u):
        out = ops.scatter_add(self.w, i, u)
        return out, self.w * 1                    # a later read sees the write


@pytest.mark.parametrize("backend", ["eager", "xla", "onnx"])
def test_a_parameter_is_written_under_jit(backend):
    """MindSpore 2.10 (measured, PYNATIVE and ms.jit): two calls with [0, 0] and ones give
    w[0] = 2, then 4; the result and a later read inside the call both see the write."""
    net = Accumulator()
    run = net if backend == "eager" else ms.jit(net, backend="xla" if backend == "xla" else "onnx")
    for step in (1, 2):
        out, read = run(Tensor(np.array([0, 0], np.int32)), Tensor(np.ones((2, 2), np.float32)))
        want = [[2 * step] * 2, [0, 0], [0, 0]]
        np.testing.assert_array_equal(out.asnumpy(), want)
        np.testing.assert_array_equal(read.asnumpy(), want)
        np.testing.assert_array_equal(net.w.asnumpy(), want)
    out, _ = run(Tensor(np.array([-1, 3], np.int32)), Tensor(np.ones((2, 2), np.float32))) \
        if backend != "eager" else (None, None)
    if out is not None:                               # a graph drops out-of-range writes
        np.testing.assert_array_equal(net.w.asnumpy(), [[4, 4], [0, 0], [0, 0]])


def test_a_tensor_written_inside_a_trace_is_read_back_there():
    @ms.jit
    def f(x, i, u):
        y = x * 1
        ops.scatter_update(y, i, u)
        return y
    got = f(Tensor(_x()), Tensor(np.array([1], np.int32)), Tensor(np.zeros((1, 2), np.float32)))
    np.testing.assert_array_equal(got.asnumpy(), [[1, 2], [0, 0], [5, 6]])


def test_errors_measured_on_mindspore():
    p = Parameter(Tensor(np.zeros((3, 2), np.float32)), name="q")
    one = Tensor(np.ones((1, 2), np.float32))
    for bad in (5, -1):
        with pytest.raises(RuntimeError, match=rf"For 'ScatterAdd', the value of indices should be in \[0, 3\), "
                                               rf"but got '{bad}'"):
            ops.scatter_add(p, Tensor(np.array([bad], np.int32)), one)
    with pytest.raises(TypeError, match="Float64 cannot be converted"):
        ops.scatter_add(p, Tensor(np.array([0], np.int32)), Tensor(np.ones((1, 2), np.float64)))
    with pytest.raises(TypeError, match="indices type"):
        ops.scatter_add(p, Tensor(np.array([0.0], np.float32)), one)
    with pytest.raises(ValueError, match="updates_shape = indices_shape"):
        ops.scatter_add(p, Tensor(np.array([0], np.int32)), Tensor(np.ones((1, 3), np.float32)))
    ops.scatter_add(p, Tensor(np.array([0], np.int32)), Tensor(np.ones((1, 2), np.int32)))   # int32 -> float32
    np.testing.assert_array_equal(p.asnumpy(), [[1, 1], [0, 0], [0, 0]])
    with pytest.raises(RuntimeError, match="out of range"):
        ops.scatter_nd_add(p, Tensor(np.array([[3, 0]], np.int32)), Tensor(np.ones(1, np.float32)))
    with pytest.raises(RuntimeError, match="IndexAdd"):
        ops.index_add(p, Tensor(np.array([-1], np.int32)), one, 0)
    with pytest.raises(TypeError, match="'indices' should be one of"):
        ops.inplace_add(p, one, Tensor(np.array([0], np.int32)))
    with pytest.raises(ValueError, match=r"must be in \[0,3\), but got -1"):
        ops.inplace_add(p, one, -1)
    with pytest.raises(RuntimeError, match="IndexFill"):
        ops.index_fill(p, 0, Tensor(np.array([3], np.int32)), 1.0)
    with pytest.raises(RuntimeError, match="less than num_segments"):
        ops.unsorted_segment_sum(p, Tensor(np.array([0, 3, 0], np.int32)), 3)
    with pytest.raises(ValueError, match="slice size"):
        ops.slice_scatter(p, Tensor(np.ones((4, 1), np.float32)), 1, 1)


def test_nan_rules_measured_on_mindspore():
    """scatter_max is MindSpore's `x > u ? x : u` in write order (a NaN update wins, a NaN
    element gives way); scatter_min and the segment max/min skip NaN updates (measured)."""
    def p(a):
        return Parameter(Tensor(np.array(a, np.float32)), name="n")
    idx, upd = Tensor(np.array([0, 2, 1], np.int32)), Tensor(np.array([np.nan, 5, np.nan], np.float32))
    np.testing.assert_array_equal(ops.scatter_max(p([1, 2, np.nan]), idx, upd).asnumpy(), [np.nan, np.nan, 5])
    np.testing.assert_array_equal(ops.scatter_min(p([1, 2, np.nan]), idx, upd).asnumpy(), [1, 2, np.nan])
    dup = ops.scatter_max(p([1, 2, 4]), Tensor(np.array([0, 0, 0], np.int32)),
                          Tensor(np.array([5, np.nan, 3], np.float32)))
    np.testing.assert_array_equal(dup.asnumpy(), [3, 2, 4])
    nan3 = Tensor(np.array([1, np.nan, 2], np.float32))
    zeros = Tensor(np.zeros(3, np.int32))
    assert ops.unsorted_segment_max(nan3, zeros, 1).asnumpy().tolist() == [2]
    assert ops.unsorted_segment_min(nan3, zeros, 1).asnumpy().tolist() == [1]
    assert np.isnan(ops.unsorted_segment_prod(nan3, zeros, 1).asnumpy()).all()
    # empty segments hold the dtype's extreme (measured: int8 max -128, float16 min 65504)
    assert ops.unsorted_segment_max(Tensor(np.array([1, 2], np.int8)), Tensor(np.zeros(2, np.int32)),
                                    2).asnumpy().tolist() == [2, -128]
    assert ops.unsorted_segment_min(Tensor(np.array([1, 2], np.float16)), Tensor(np.zeros(2, np.int32)),
                                    2).asnumpy().tolist() == [1, 65504]


def fold_max(x, idx, upd):
    """MindSpore's CPU kernel, one write at a time."""
    out = x.copy()
    for k, i in enumerate(idx):
        out[i] = np.where(out[i] > upd[k], out[i], upd[k])
    return out


@pytest.mark.parametrize("backend", BACKENDS)
def test_scatter_max_folds_like_the_kernel(backend):
    x = np.round(RNG.uniform(-3, 3, (5, 4)), 0).astype(np.float32)
    x[RNG.random(x.shape) < 0.25] = np.nan
    idx = RNG.integers(0, 5, 12).astype(np.int32)
    upd = np.round(RNG.uniform(-3, 3, (12, 4)), 0).astype(np.float32)
    upd[RNG.random(upd.shape) < 0.25] = np.nan

    def f(a, i, u):
        return ops.scatter_max(a * 1, i, u)
    run = {"eager": f, "xla": ms.jit(f), "onnx": ms.jit(f, backend="onnx")}[backend]
    np.testing.assert_array_equal(run(Tensor(x), Tensor(idx), Tensor(upd)).asnumpy(), fold_max(x, idx, upd))


def test_sparse_segment_mean_is_eager_only():
    x = np.array([[1, 2], [3, 4], [5, 6], [7, 8]], np.float32)
    got = ops.sparse_segment_mean(Tensor(x), Tensor(np.array([0, 1, 3, 3], np.int32)),
                                  Tensor(np.array([0, 0, 2, 2], np.int32)))
    np.testing.assert_array_equal(got.asnumpy(), [[2, 3], [0, 0], [7, 8]])      # measured on MindSpore 2.10
    with pytest.raises(GraphModeError, match="sparse_segment_mean"):
        ms.jit(ops.sparse_segment_mean)(Tensor(x), Tensor(np.array([0], np.int32)), Tensor(np.array([0], np.int32)))


# -- vmap and grad ----------------------------------------------------------------------------------

def test_vmap_matches_a_per_example_loop():
    def f(x, ids, u):
        return (ops.unsorted_segment_max(x, ids, 3), ops.scatter_max(x * 1, ids % 4, u),
                ops.index_fill(x, 0, ids % 4, 0.5), ops.diagonal_scatter(x, u[:2, 0]))
    xs = RNG.uniform(-3, 3, (3, 4, 2)).astype(np.float32)
    ids = RNG.integers(-1, 3, (3, 4)).astype(np.int32)
    us = RNG.uniform(-3, 3, (3, 4, 2)).astype(np.float32)
    member = ms.jit(f)
    want = [member(Tensor(xs[k]), Tensor(ids[k]), Tensor(us[k])) for k in range(3)]
    for run in (ms.vmap(f), ms.jit(ms.vmap(f), backend="onnx")):
        got = run(Tensor(xs), Tensor(ids), Tensor(us))
        for j, g in enumerate(got):
            np.testing.assert_allclose(g.asnumpy(), np.stack([w[j].asnumpy() for w in want]), rtol=1e-6)


def test_grads_match_jax():
    ids = np.array([1, 0, 1, -1, 2], np.int32)

    def ours(x, u):
        a = ops.unsorted_segment_sum(x, Tensor(ids), 3)
        b = ops.unsorted_segment_prod(x, Tensor(ids), 3)
        c = ops.index_add(x * 1, Tensor(np.array([4, 0], np.int32)), u, 0)
        d = ops.diagonal_scatter(x, u[0, :2], 1)
        e = ops.scatter_update(x * 1, Tensor(np.array([3, 3], np.int32)), u)
        return (a * a).sum() + b.sum() + (c * c).sum() + (d * x).sum() + (e * e).sum()

    def theirs(x, u):
        keep = ids >= 0
        a = jax.ops.segment_sum(x[keep], ids[keep], 3)
        b = jnp.stack([jnp.prod(x[ids == s], 0) for s in range(3)])
        c = x.at[jnp.array([4, 0])].add(u)
        d = x + jnp.zeros_like(x).at[jnp.arange(2), jnp.arange(1, 3)].set(u[0, :2] - x[jnp.arange(2), jnp.arange(1, 3)])
        e = x.at[3].set(u[1])
        return (a * a).sum() + b.sum() + (c * c).sum() + (d * x).sum() + (e * e).sum()

    x = RNG.uniform(0.5, 2, (5, 3)).astype(np.float32)
    u = RNG.uniform(-2, 2, (2, 3)).astype(np.float32)
    want = jax.grad(theirs, (0, 1))(x, u)
    got = ms.jit(ms.grad(ours, (0, 1)))(Tensor(x), Tensor(u))   # one compile (eagerly: one per op)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-5, atol=1e-5)

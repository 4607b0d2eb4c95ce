"""graphcell/ops/indexing.py: index_select, gather_d, gather_nd, scatter,
tensor_scatter_elements, scatter_nd, tensor_scatter_update/add/sub/max/min/mul/div and their
Tensor methods, against a plain-loop numpy reference, torch, and values read off MindSpore
2.10.0 (CPU): eagerly, under jit (XLA and onnxruntime), under vmap (against a per-example loop)
and under grad (against jax.grad, and a hand-written gradient where indices repeat).

The semantics tested (MindSpore 2.10's where it defines them): negative indices count from the
end; writes out of range are dropped (a gather clips them); repeated indices add up under
'add', multiply under mul and div, and the last write wins under an update; max and min ignore
NaN updates and keep NaN inputs.
"""
import jax
import jax.numpy as jnp
import numpy as np
import onnx
import pytest
import torch

import graphcell as ms
from graphcell import ops
from graphcell.compiler.export import to_onnx
from graphcell.tensor import Tensor
from tests.modes import run_table

RNG = np.random.default_rng(3)
BACKENDS = ("eager", "xla", "onnx")


# -- the reference: one write at a time ------------------------------------------------------------

def ref_elements(x, axis, index, src, reduction="none"):
    out = x.copy()
    size = x.shape[axis]
    for pos in np.ndindex(index.shape):
        i = int(index[pos]) + (size if index[pos] < 0 else 0)
        if not 0 <= i < size:
            continue                                       # dropped
        target = list(pos)
        target[axis] = i
        target = tuple(target)
        if reduction == "add":
            out[target] = (out[target] | src[pos]) if x.dtype == bool else out[target] + src[pos]
        else:
            out[target] = src[pos]
    return out


def ref_vectors(x, indices, updates, reduction="none"):
    out = x.copy()
    depth = indices.shape[-1]
    for pos in np.ndindex(indices.shape[:-1]):
        vec = [int(v) + (s if v < 0 else 0) for v, s in zip(indices[pos], x.shape)]
        if not all(0 <= v < s for v, s in zip(vec, x.shape)):
            continue
        target = tuple(vec) + (slice(None),) * (x.ndim - depth)
        out[target] = _combine(out[target], updates[pos], reduction)
    return out


def _combine(old, new, reduction):
    """One write, as MindSpore's CPU kernels make it (measured)."""
    if reduction == "add":
        return old + new
    if reduction == "max":
        return np.where(new > old, new, old)     # a NaN update never wins, a NaN element stays
    if reduction == "min":
        return np.where(new < old, new, old)
    if reduction == "mul":
        return old * new
    if reduction == "div":
        if np.asarray(old).dtype.kind == "i":   # truncating toward zero
            return (np.abs(old) // np.abs(new) * np.sign(old) * np.sign(new)).astype(old.dtype)
        return old / new
    return new


def ref_gather_nd(x, indices):
    """x at each index vector, negative ones counted from the end and each clipped to the axis."""
    indices = indices.reshape(1) if indices.ndim == 0 else indices
    depth = indices.shape[-1]
    idx = [np.clip(np.where(indices[..., k] < 0, indices[..., k] + x.shape[k], indices[..., k]), 0, x.shape[k] - 1)
           for k in range(depth)]
    return x[tuple(idx)]


X = RNG.uniform(-3, 3, (3, 4, 5)).astype(np.float32)
XI = RNG.integers(-9, 9, (3, 4, 5)).astype(np.int32)
XB = RNG.random((3, 4, 5)) > 0.5
E_IDX = RNG.integers(-6, 6, (2, 4, 3)).astype(np.int32)       # axis 2: negatives, repeats, out of range (5)
E_IDX0 = RNG.integers(-3, 4, (5, 2, 5)).astype(np.int64)      # axis 0, longer than the axis: repeats
E_SRC = RNG.uniform(-3, 3, (2, 4, 3)).astype(np.float32)
E_SRC0 = RNG.uniform(-3, 3, (5, 2, 5)).astype(np.float32)
V_IDX = np.array([[[1, 3], [-1, 0]], [[1, 3], [0, 4]], [[2, -4], [3, 1]]], np.int32)  # [3, 2, 2]: a repeat, an out of range
V_UPD = RNG.uniform(-3, 3, (3, 2, 5)).astype(np.float32)
V_IDX1 = np.array([[2], [0], [2], [-3]], np.int64)             # rows: repeats, a negative
V_UPD1 = RNG.uniform(-3, 3, (4, 4, 5)).astype(np.float32)
SEL = np.array([3, -1, 0, 3], np.int32)
G_IDX = np.array([[[2, -1, 0], [0, 3, 9]], [[-3, 0, -5], [1, 1, 4]]], np.int64)   # [2, 2, 3]: negatives, beyond
XN = X[0].copy()
XN[0, 2], XN[1, 1] = np.nan, np.nan                                                   # NaN elements
V_UPDN = V_UPD[..., 0].copy()
V_UPDN[0, 0], V_UPDN[2, 1] = np.nan, np.nan                                           # NaN updates
TIES = np.round(X[0] * 2) / 2                                                         # ties with the updates
V_TIES = np.round(V_UPD[..., 0] * 2) / 2

CASES = {  # name: (fn, inputs, reference value)
    "index_select": (lambda x, i: ops.index_select(x, 1, i), [X, SEL], X[:, SEL]),
    "index_select_int64": (lambda x, i: ops.index_select(x, -1, i), [X, SEL.astype(np.int64)], X[..., SEL]),
    "gather_d": (lambda x, i: ops.gather_d(x, 2, i), [X, np.clip(E_IDX, -5, 4)],
                 np.take_along_axis(X[:2, :, :], np.where(np.clip(E_IDX, -5, 4) < 0, np.clip(E_IDX, -5, 4) + 5,
                                                          np.clip(E_IDX, -5, 4)), 2)),
    "scatter": (lambda x, i, s: ops.scatter(x, 2, i, s), [X, E_IDX, E_SRC], ref_elements(X, 2, E_IDX, E_SRC)),
    "scatter_axis0": (lambda x, i, s: ops.scatter(x, 0, i, s), [X, E_IDX0[:, :2], E_SRC0[:, :2]],
                      ref_elements(X, 0, E_IDX0[:, :2], E_SRC0[:, :2])),
    "scatter_number": (lambda x, i: ops.scatter(x, -1, i, 7.5), [X, E_IDX],
                       ref_elements(X, 2, E_IDX, np.full(E_IDX.shape, 7.5, np.float32))),
    "scatter_int": (lambda x, i, s: ops.scatter(x, 2, i, s), [XI, E_IDX, E_IDX * 10],
                    ref_elements(XI, 2, E_IDX, E_IDX * 10)),
    "scatter_bool": (lambda x, i, s: ops.scatter(x, 2, i, s), [XB, E_IDX, E_SRC > 0],
                     ref_elements(XB, 2, E_IDX, E_SRC > 0)),
    "elements_add": (lambda x, i, s: ops.tensor_scatter_elements(x, i, s, 2, "add"), [X, E_IDX, E_SRC],
                     ref_elements(X, 2, E_IDX, E_SRC, "add")),
    "elements_add_axis0": (lambda x, i, s: ops.tensor_scatter_elements(x, i, s, axis=0, reduction="add"),
                           [X, E_IDX0, E_SRC0], ref_elements(X, 0, E_IDX0, E_SRC0, "add")),
    "elements_add_int": (lambda x, i, s: ops.tensor_scatter_elements(x, i, s, 2, "add"), [XI, E_IDX, E_IDX],
                         ref_elements(XI, 2, E_IDX, E_IDX, "add")),
    "elements_add_bool": (lambda x, i, s: ops.tensor_scatter_elements(x, i, s, 2, "add"), [XB, E_IDX, E_SRC > 1],
                          ref_elements(XB, 2, E_IDX, E_SRC > 1, "add")),
    "elements_none": (lambda x, i, s: ops.tensor_scatter_elements(x, i, s, 1), [X, E_IDX0[:3, :, :4] % 4,
                                                                                 E_SRC0[:3, :, :4]],
                      ref_elements(X, 1, E_IDX0[:3, :, :4] % 4, E_SRC0[:3, :, :4])),
    "update_points": (lambda x, i, u: ops.tensor_scatter_update(x, i, u), [X[0], V_IDX, V_UPD[..., 0]],
                      ref_vectors(X[0], V_IDX, V_UPD[..., 0])),
    "update_rows": (lambda x, i, u: ops.tensor_scatter_update(x, i, u), [X, V_IDX1, V_UPD1],
                    ref_vectors(X, V_IDX1, V_UPD1)),
    "update_pairs": (lambda x, i, u: ops.tensor_scatter_update(x, i, u), [X, V_IDX, V_UPD],
                     ref_vectors(X, V_IDX, V_UPD)),
    "update_int": (lambda x, i, u: ops.tensor_scatter_update(x, i, u), [XI, V_IDX1, XI[:1].repeat(4, 0) + 1],
                   ref_vectors(XI, V_IDX1, XI[:1].repeat(4, 0) + 1)),
    "add_rows": (lambda x, i, u: ops.tensor_scatter_add(x, i, u), [X, V_IDX1, V_UPD1], ref_vectors(X, V_IDX1, V_UPD1,
                                                                                                   "add")),
    "add_pairs": (lambda x, i, u: ops.tensor_scatter_add(x, i, u), [X, V_IDX, V_UPD],
                  ref_vectors(X, V_IDX, V_UPD, "add")),
    "sub_pairs": (lambda x, i, u: ops.tensor_scatter_sub(x, i, u), [X, V_IDX, V_UPD],
                  ref_vectors(X, V_IDX, -V_UPD, "add")),
    "gather_nd": (ops.gather_nd, [X, G_IDX], ref_gather_nd(X, G_IDX)),
    "gather_nd_rows": (ops.gather_nd, [X, V_IDX1], ref_gather_nd(X, V_IDX1)),
    "gather_nd_vector": (ops.gather_nd, [X, G_IDX[0, 0, :2].astype(np.int32)], ref_gather_nd(X, G_IDX[0, 0, :2])),
    "gather_nd_int": (lambda x, i: x.gather_nd(i), [XI, V_IDX], ref_gather_nd(XI, V_IDX)),
    **{f"{r}_{k}": (lambda x, i, u, r=r: getattr(ops, f"tensor_scatter_{r}")(x, i, u), [x, V_IDX, u],
                    ref_vectors(x, V_IDX, u, r))
       for r in ("max", "min", "mul", "div")
       for k, (x, u) in {"rows": (X, V_UPD), "nan": (XN, V_UPDN), "ties": (TIES, V_TIES)}.items()},
    **{f"{r}_int": (lambda x, i, u, r=r: getattr(ops, f"tensor_scatter_{r}")(x, i, u), [XI, V_IDX1, u],
                    ref_vectors(XI, V_IDX1, u, r))
       for r, u in [("max", XI[:1].repeat(4, 0) + 1), ("min", XI[:1].repeat(4, 0) - 1),
                    ("mul", XI[:1].repeat(4, 0) % 3 + 1), ("div", np.where(XI[1:] == 0, 5, XI[1:]).repeat(2, 0)[:4])]},
    "scatter_nd": (lambda i, u: ops.scatter_nd(i, u, (3, 4, 5)), [V_IDX, V_UPD],
                   ref_vectors(np.zeros((3, 4, 5), np.float32), V_IDX, V_UPD, "add")),
    "scatter_nd_int": (lambda i, u: ops.scatter_nd(i, u, [4, 4, 5]), [V_IDX1, XI[:1].repeat(4, 0)],
                       ref_vectors(np.zeros((4, 4, 5), np.int32), V_IDX1, XI[:1].repeat(4, 0), "add")),
}


# Eagerly, each op once (each eager op compiles on its first call: the rest add time, not cover).
EAGER = ("index_select", "gather_d", "scatter", "elements_add", "update_pairs", "add_rows", "sub_pairs", "scatter_nd",
         "gather_nd", "max_nan", "mul_rows", "div_int")


@pytest.mark.parametrize("backend", [pytest.param(b, marks=pytest.mark.slow) if b == "eager" else b
                                     for b in BACKENDS])   # eagerly each op compiles alone: 14 s, slow
def test_values_against_the_reference(backend):
    """All cases in one function (one compilation per backend), each output checked by name."""
    for n, got in run_table(CASES, EAGER if backend == "eager" else CASES, backend).items():
        want = np.asarray(CASES[n][2])
        assert got.shape == want.shape and got.dtype == want.dtype, (n, got.shape, got.dtype, want.shape, want.dtype)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, err_msg=n)


def test_the_reference_agrees_with_torch():
    """Where torch defines the result (indices in range; no repeated index under an update),
    the loop reference gives torch's."""
    x, idx = torch.from_numpy(X), np.argsort(RNG.random((3, 4, 5)), 2)[..., :3]   # distinct per row
    src = RNG.uniform(-3, 3, idx.shape).astype(np.float32)
    np.testing.assert_array_equal(ref_elements(X, 2, idx, src),
                                  torch.scatter(x, 2, torch.from_numpy(idx), torch.from_numpy(src)).numpy())
    rep = RNG.integers(0, 5, (3, 4, 7))
    src = RNG.uniform(-3, 3, rep.shape).astype(np.float32)
    np.testing.assert_allclose(ref_elements(X, 2, rep, src, "add"),
                               torch.scatter_add(x, 2, torch.from_numpy(rep), torch.from_numpy(src)).numpy(),
                               rtol=1e-6)
    rows = np.array([[2], [0], [2]])
    upd = RNG.uniform(-3, 3, (3, 4, 5)).astype(np.float32)
    want = x.clone().index_put_((torch.from_numpy(rows[:, 0]),), torch.from_numpy(upd), accumulate=True)
    np.testing.assert_allclose(ref_vectors(X, rows, upd, "add"), want.numpy(), rtol=1e-6)
    np.testing.assert_array_equal(X[:, SEL], torch.index_select(x, 1, torch.from_numpy(SEL % 4).long()).numpy())


def i32(a):
    return np.array(a, np.int32)


def f32(a):
    return np.array(a, np.float32)


ONES = np.ones((2, 4), np.float32)
MEASURED = [  # (a call on x = arange(12).reshape(3, 4), src = x + 100 and arrays, the arrays, MindSpore 2.10's values)
    (lambda x, s, i: ops.index_select(x, 1, i), [i32([3, 0, 3])], [3, 0, 3, 7, 4, 7, 11, 8, 11]),
    (lambda x, s, i: ops.index_select(x, 1, i), [i32([-1, 0])], [3, 0, 7, 4, 11, 8]),
    (lambda x, s, i: ops.gather_d(x, 1, i), [i32([[0, -1], [1, 3], [2, 2]])], [0, 3, 5, 7, 10, 10]),
    (lambda x, s, i: ops.gather_elements(x, 0, i), [i32([[2, 1]])], [8, 5]),
    (lambda x, s, i: ops.scatter(x, 1, i, s)[:2], [i32([[0, 0, 0, 0], [1, 1, 1, 1], [0, 2, 2, 0]])],
     [103, 1, 2, 3, 4, 107, 6, 7]),
    (lambda x, s, i, u: ops.scatter(x, 1, i, u)[0], [i32([[-1, 0]]), ONES[:1, :2]], [1, 1, 2, 1]),
    (lambda x, s, i, u: ops.scatter(x, 1, i, u)[:2], [i32([[1, 0], [0, 1]]), ONES[:, :2]], [1, 1, 2, 3, 1, 1, 6, 7]),
    (lambda x, s, i: ops.scatter(x, 1, i, 5.0)[0], [i32([[1, 0]])], [5, 5, 2, 3]),
    (lambda x, s, i, u: ops.tensor_scatter_elements(x, i, u, 1, "add")[:2], [i32([[1, 1], [0, 0]]), ONES[:, :2]],
     [0, 3, 2, 3, 6, 5, 6, 7]),
    (lambda x, s, i: ops.tensor_scatter_elements(x, i, s, 0, "add")[:2], [i32([[1, 1, 1, 1], [1, 1, 1, 1], [1, 0, 0, 0]])],
     [0, 110, 112, 114, 316, 211, 214, 217]),
    (lambda x, s, i, u: ops.tensor_scatter_elements(x, i, u, 1)[0], [i32([[1, 1, 1, 1]]), f32([[5, 6, 7, 8]])],
     [0, 8, 2, 3]),
    (lambda x, s, i, u: ops.scatter_nd(i, u, (3, 4))[0], [i32([[0, 1], [2, 3], [0, 1]]), f32([1, 2, 3])], [0, 4, 0, 0]),
    (lambda x, s, i, u: ops.scatter_nd(i, u, (3, 4))[1], [i32([[1], [1]]), f32([[1, 2, 3, 4], [10, 20, 30, 40]])],
     [11, 22, 33, 44]),
    (lambda x, s, i, u: ops.tensor_scatter_update(x, i, u)[:2], [i32([[1, 1], [1, 1], [0, 0]]), f32([-1, -2, -3])],
     [-3, 1, 2, 3, 4, -2, 6, 7]),
    (lambda x, s, i, u: ops.tensor_scatter_add(x, i, u)[:2], [i32([[1, 1], [1, 1], [0, 0]]), f32([1, 2, 3])],
     [3, 1, 2, 3, 4, 8, 6, 7]),
    (lambda x, s, i, u: ops.tensor_scatter_add(x, i, u)[1], [i32([[[1], [2]]]), np.ones((1, 2, 4), np.float32)],
     [5, 6, 7, 8]),
    (lambda x, s, b, i, u: ops.tensor_scatter_elements(b, i, u, 1, "add"),
     [np.zeros((2, 2), np.bool_), i32([[1, 1]]), np.array([[True, True]])], [False, True, False, False]),
    (lambda x, s, i: ops.gather_nd(x, i), [i32([[0, 1], [2, 3]])], [1, 11]),
    (lambda x, s, i: ops.gather_nd(x, i), [i32([[2], [0]])], [8, 9, 10, 11, 0, 1, 2, 3]),
    (lambda x, s, i: ops.gather_nd(x, i), [i32([1, 2])], [6]),
    (lambda x, s, i: ops.gather_nd(x, i), [i32(1)], [4, 5, 6, 7]),
    # [1, 2, 3, 4] with updates [5, -7, 0.5, 0] at rows [1, 1, 3, 0]
    *[(lambda x, s, v, i, u, r=r: getattr(ops, f"tensor_scatter_{r}")(v, i, u),
       [f32([1, 2, 3, 4]), i32([[1], [1], [3], [0]]), f32([5, -7, 0.5, 0])], want) for r, want in [
        ("max", [1, 5, 3, 4]), ("min", [0, -7, 3, 0.5]), ("mul", [0, -70, 3, 2]),
        ("div", [np.inf, np.float32(-0.05714285746216774), 3, 8])]],
    # integers: [7, -7, 9, 1] with [2, 2, 4, 3, -2] at [0, 1, 2, 3, 3]; div truncates toward zero
    *[(lambda x, s, v, i, u, r=r: getattr(ops, f"tensor_scatter_{r}")(v, i, u),
       [i32([7, -7, 9, 1]), i32([[0], [1], [2], [3], [3]]), i32([2, 2, 4, 3, -2])], want) for r, want in [
        ("max", [7, 2, 9, 3]), ("min", [2, -7, 4, -2]), ("mul", [14, -14, 36, -6]), ("div", [3, -3, 2, 0])]],
    # NaN: [3, nan, 1] with [nan, 1, 1]: a NaN update never wins, a NaN element stays
    *[(lambda x, s, v, i, u, r=r: getattr(ops, f"tensor_scatter_{r}")(v, i, u),
       [f32([3, np.nan, 1]), i32([[0], [1], [2]]), f32([np.nan, 1, 1])], want) for r, want in [
        ("max", [3, np.nan, 1]), ("min", [3, np.nan, 1]), ("mul", [np.nan, np.nan, 1]), ("div", [np.nan, np.nan, 1])]],
    (lambda x, s, v, i, u: ops.tensor_scatter_div(v, i, u), [f32([3, -3, 0]), i32([[0], [1], [2]]), f32([0, 0, 0])],
     [np.inf, -np.inf, np.nan]),
]


def test_values_measured_on_mindspore_2_10():
    """Results read off MindSpore 2.10.0 (CPU) for the same calls (under jit, indices as inputs:
    one compilation, nothing to fold)."""
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    arrays = [a for _, arrs, _ in MEASURED for a in arrs]

    def every_call(x, src, *ts):
        outs, at = [], 0
        for fn, arrs, _ in MEASURED:
            outs.append(fn(x, src, *ts[at:at + len(arrs)]))
            at += len(arrs)
        return tuple(outs)

    gots = ms.jit(every_call)(Tensor(x), Tensor(x + 100), *[Tensor(a) for a in arrays])
    for got, (_, _, want) in zip(gots, MEASURED):
        np.testing.assert_array_equal(got.asnumpy().ravel(), np.asarray(want, got.asnumpy().dtype))
    assert gots[16].dtype == ms.bool_


# -- the onnx graph, vmap, grad ------------------------------------------------------------------

def test_onnx_uses_gathers_and_scatternd():
    model = to_onnx(lambda x, i, s, v, u: (ops.index_select(x, 1, i[0, 0, :2]), ops.scatter(x, 2, i, s),
                                           ops.tensor_scatter_add(x, v, u)),
                    *[Tensor(a) for a in (X, E_IDX, E_SRC, V_IDX, V_UPD)], dynamic_axes=False).model
    onnx.checker.check_model(model)
    assert {"Gather", "ScatterND"} <= {n.op_type for n in model.graph.node}


VB_IDX = RNG.integers(-5, 6, (3, 4, 3)).astype(np.int32)   # per member: [4, 3] into axis 1 of [4, 5]
VB_SRC = RNG.uniform(-3, 3, (3, 4, 3)).astype(np.float32)
VMAP_CASES = {  # name: (fn, batched inputs, in_axes)
    "all_batched": (lambda x, i, s: (ops.scatter(x, 1, i, s), ops.tensor_scatter_elements(x, i, s, 1, "add"),
                                     ops.gather_d(x, 1, i % 5)), [X, VB_IDX, VB_SRC], 0),
    "shared_index": (lambda x, u, i, j: (ops.tensor_scatter_update(x, i, u), ops.tensor_scatter_add(x, i, u),
                                         ops.index_select(x, 0, j)),
                     [X[:, :, None].repeat(4, 2), RNG.uniform(-3, 3, (3, 4, 4, 5)).astype(np.float32), V_IDX1, SEL],
                     (0, 0, None, None)),
    "batched_index": (lambda x, i, u: (ops.tensor_scatter_update(x, i, u), ops.scatter_nd(i, u, (4, 5))),
                      [X, V_IDX, V_UPD[..., 0].copy()], 0),
    "unbatched_input": (lambda x, i, s: ops.scatter(x, 1, i, s), [X[0], E_IDX0[:3, :, :4] % 5, E_SRC0[:3, :, :4]],
                        (None, 0, 0)),
    "reductions": (lambda x, i, u: (ops.tensor_scatter_max(x, i, u), ops.tensor_scatter_mul(x, i, u),
                                    ops.tensor_scatter_div(x, i, u), ops.gather_nd(x, i)),
                   [np.round(X * 2) / 2, V_IDX, np.round(V_UPD[..., 0] * 2) / 2], (0, 0, 0)),
    "shared_reduction_index": (lambda x, u, i: (ops.tensor_scatter_min(x, i, u), ops.gather_nd(x, i)),
                               [X, V_UPD1[:3], V_IDX1], (0, 0, None)),
}


@pytest.mark.parametrize("name", sorted(VMAP_CASES))
def test_vmap_matches_a_per_example_loop(name):
    fn, arrays, in_axes = VMAP_CASES[name]
    axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(arrays)
    size = next(a.shape[0] for a, ax in zip(arrays, axes) if ax is not None)
    member = ms.jit(fn)                          # one compilation, run per member
    per_example = [member(*[Tensor(a[i] if ax is not None else a) for a, ax in zip(arrays, axes)])
                   for i in range(size)]
    per_example = [p if isinstance(p, tuple) else (p,) for p in per_example]
    want = [np.stack([p[k].asnumpy() for p in per_example]) for k in range(len(per_example[0]))]
    for run in (ms.vmap(fn, in_axes), ms.jit(ms.vmap(fn, in_axes), backend="onnx")):
        got = run(*[Tensor(a) for a in arrays])
        got = got if isinstance(got, tuple) else (got,)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-6, atol=1e-6)


D_IDX = np.argsort(RNG.random((3, 4, 5)), 2)[..., :3]      # distinct per row: jax's .set is defined
D_VEC = np.array([[0, 1], [2, 3], [1, 0]])                  # distinct index vectors


def _jnp_elements(x, axis, idx, src, add):
    grid = list(np.indices(idx.shape))
    grid[axis] = np.where(idx < 0, idx + x.shape[axis], idx)
    at = x.at[tuple(grid)]
    return at.add(src) if add else at.set(src)


def _jnp_product(rows, u):
    """Each of 3 rows' product of the updates written to it (1 where none is)."""
    written = rows[:, None] == np.arange(3)[None, :]                    # [writes, rows]
    return jnp.prod(jnp.where(written[:, :, None, None], u[:, None], 1.0), axis=0)


GRAD_CASES = {  # name: (graphcell fn of floats then indices, jax fn of the floats, float shapes, indices)
    "index_select": (lambda x, i: ops.index_select(x, 1, i), lambda x: jnp.take(x, SEL, 1, mode="wrap"),
                     [(3, 4, 5)], [SEL]),
    "gather_d": (lambda x, i: ops.gather_d(x, 2, i), lambda x: jnp.take_along_axis(x[:2], E_IDX % 5, 2),
                 [(3, 4, 5)], [E_IDX % 5]),
    "scatter": (lambda x, s, i: ops.scatter(x, 2, i, s), lambda x, s: _jnp_elements(x, 2, D_IDX, s, False),
                [(3, 4, 5), (3, 4, 3)], [D_IDX]),
    "elements_add": (lambda x, s, i: ops.tensor_scatter_elements(x, i, s, 0, "add"),
                     lambda x, s: _jnp_elements(x, 0, E_IDX0 % 3, s, True), [(3, 4, 5), (5, 2, 5)], [E_IDX0 % 3]),
    "update": (lambda x, u, i: ops.tensor_scatter_update(x, i, u), lambda x, u: x.at[D_VEC[:, 0], D_VEC[:, 1]].set(u),
               [(3, 4, 5), (3, 5)], [D_VEC]),
    "add": (lambda x, u, i: ops.tensor_scatter_add(x, i, u), lambda x, u: x.at[V_IDX1[:, 0]].add(u),
            [(3, 4, 5), (4, 4, 5)], [V_IDX1]),
    "sub": (lambda x, u, i: ops.tensor_scatter_sub(x, i, u),
            lambda x, u: x.at[V_IDX[..., 0] % 3, V_IDX[..., 1] % 3].add(-u), [(3, 4, 5), (3, 2, 5)], [V_IDX % 3]),
    "scatter_nd": (lambda u, i: ops.scatter_nd(i, u, (3, 4, 5)),
                   lambda u: jnp.zeros((3, 4, 5)).at[V_IDX[..., 0] % 3, V_IDX[..., 1] % 3].add(u), [(3, 2, 5)],
                   [V_IDX % 3]),
    "gather_nd": (lambda x, i: ops.gather_nd(x, i), lambda x: x[V_IDX[..., 0] % 3, V_IDX[..., 1] % 3],
                  [(3, 4, 5)], [V_IDX % 3]),
    # repeated rows: max and min against jax's scatter (no ties here), mul and div against the
    # product of every update written (jax's scatter_mul has no gradient with repeats)
    "max": (lambda x, u, i: ops.tensor_scatter_max(x, i, u), lambda x, u: x.at[V_IDX1[:, 0]].max(u),
            [(3, 4, 5), (4, 4, 5)], [V_IDX1 % 3]),
    "min": (lambda x, u, i: ops.tensor_scatter_min(x, i, u), lambda x, u: x.at[V_IDX1[:, 0]].min(u),
            [(3, 4, 5), (4, 4, 5)], [V_IDX1 % 3]),
    "mul": (lambda x, u, i: ops.tensor_scatter_mul(x, i, u), lambda x, u: x * _jnp_product(V_IDX1[:, 0] % 3, u),
            [(3, 4, 5), (4, 4, 5)], [V_IDX1 % 3]),
    "div": (lambda x, u, i: ops.tensor_scatter_div(x, i, u), lambda x, u: x / _jnp_product(V_IDX1[:, 0] % 3, u),
            [(3, 4, 5), (4, 4, 5)], [V_IDX1 % 3]),
    # An update writing one place several times: only the last write, the one left in the output,
    # gets a gradient (the reference writes just those, by hand); the overwritten input gets none.
    "repeats": (lambda x, s, i: ops.scatter(x, 1, i, s),
                lambda x, s: x.at[np.array([[0], [1]]), np.array([[1, 3], [2, 0]])].set(s[:, 1:]),
                [(2, 4), (2, 3)], [np.array([[1, 1, 3], [0, 2, 0]])]),
}


def test_grad_matches_jax():
    """Every case's gradients from one jitted graph (sens_param picks the case; indices are inputs,
    not constants to fold) and jax's from one jitted function: two compilations in all."""
    names = sorted(GRAD_CASES)
    floats = {n: [RNG.uniform(-2, 2, s) for s in GRAD_CASES[n][2]] for n in names}
    weights = {n: RNG.uniform(-1, 1, jax.eval_shape(GRAD_CASES[n][1], *floats[n]).shape) for n in names}

    def jax_grads(inputs):
        return [jax.grad(lambda *a, n=n: jnp.sum(GRAD_CASES[n][1](*a) * weights[n]),
                         argnums=tuple(range(len(inputs[n]))))(*inputs[n]) for n in names]

    wants = jax.jit(jax_grads)({n: [jnp.asarray(a) for a in floats[n]] for n in names})
    flat = [a for n in names for a in floats[n]]
    indices = [i for n in names for i in GRAD_CASES[n][3]]

    def losses(*ts):
        out, at, at_i = [], 0, len(flat)
        for n in names:
            k, m = len(floats[n]), len(GRAD_CASES[n][3])
            out.append(ops.reduce_sum(GRAD_CASES[n][0](*ts[at:at + k], *ts[at_i:at_i + m]) * Tensor(weights[n])))
            at, at_i = at + k, at_i + m
        return tuple(out)

    grad = ms.jit(ms.grad(losses, grad_position=tuple(range(len(flat))), sens_param=True))
    args = [Tensor(a) for a in flat] + [Tensor(i) for i in indices]
    at = 0
    for k, (n, want) in enumerate(zip(names, wants)):
        sens = tuple(Tensor(np.float64(i == k)) for i in range(len(names)))
        got = grad(*args, sens)[at:at + len(want)]
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.asnumpy(), np.asarray(w), rtol=1e-9, atol=1e-9, err_msg=n)
        at += len(want)


def test_max_and_min_share_ties_as_measured():
    """The gradient of a tie is shared equally by the element and every update equal to the
    result (MindSpore 2.10's, measured, and jax's): x = [1, 2, 3, 4], rows [1, 1, 3, 0, 2],
    weights [1, 10, 100, 1000] on the output."""
    x, rows, w = Tensor(f32([1, 2, 3, 4])), Tensor(i32([[1], [1], [3], [0], [2]])), Tensor(f32([1, 10, 100, 1000]))
    cases = [("max", [2, 2, 4, 1, 0.5], [0.5, 10 / 3, 100, 500], [10 / 3, 10 / 3, 500, 0.5, 0]),
             ("min", [2, 2, 4, 1, 0.5], [0.5, 10 / 3, 0, 500], [10 / 3, 10 / 3, 500, 0.5, 100]),
             ("max", [5, -7, 0.5, 0, 3], [1, 0, 50, 1000], [10, 0, 0, 0, 50]),
             ("min", [5, 5, 4, 1, 0.5], [0.5, 10, 0, 500], [0, 0, 500, 0.5, 100])]
    for name, u, gx, gu in cases:
        fn = getattr(ops, f"tensor_scatter_{name}")
        for run in (lambda f: f, ms.jit):
            got = run(ms.grad(lambda a, b: (fn(a, rows, b) * w).sum(), grad_position=(0, 1)))(x, Tensor(f32(u)))
            np.testing.assert_allclose(got[0].asnumpy(), gx, rtol=1e-6, err_msg=name)
            np.testing.assert_allclose(got[1].asnumpy(), gu, rtol=1e-6, err_msg=name)


def test_operator_classes_run_the_functional_ops():
    x, i, u = Tensor(X), Tensor(V_IDX), Tensor(V_UPD)
    for name in ("update", "add", "sub", "max", "min", "mul", "div"):
        cls = getattr(ops, f"TensorScatter{name.capitalize()}")
        want = getattr(ops, f"tensor_scatter_{name}")(x, i, u).asnumpy()
        np.testing.assert_array_equal(cls()(x, i, u).asnumpy(), want)
    np.testing.assert_array_equal(ops.GatherNd()(x, Tensor(G_IDX)).asnumpy(), ref_gather_nd(X, G_IDX))
    assert repr(ops.TensorScatterMax()) == "Prim[TensorScatterMax]"


# -- Tensor methods and refusals -------------------------------------------------------------------

def test_tensor_methods():
    x = Tensor(X)
    np.testing.assert_array_equal(x.index_select(1, Tensor(SEL)).asnumpy(), X[:, SEL])
    np.testing.assert_array_equal(x.gather_elements(2, Tensor(E_IDX % 5)).asnumpy(),
                                  np.take_along_axis(X[:2], E_IDX % 5, 2))
    np.testing.assert_array_equal(x.gather(2, Tensor(E_IDX % 5)).asnumpy(), np.take_along_axis(X[:2], E_IDX % 5, 2))
    np.testing.assert_array_equal(x.gather(Tensor(SEL), 1).asnumpy(), X[:, SEL])
    want = ref_elements(X, 2, E_IDX, E_SRC)
    for got in (x.scatter(2, Tensor(E_IDX), Tensor(E_SRC)), x.scatter(dim=2, index=Tensor(E_IDX), src=Tensor(E_SRC)),
                x.scatter(axis=2, index=Tensor(E_IDX), src=Tensor(E_SRC))):
        np.testing.assert_array_equal(got.asnumpy(), want)
    np.testing.assert_array_equal(x.scatter(2, Tensor(E_IDX), 1.5).asnumpy(),
                                  ref_elements(X, 2, E_IDX, np.full(E_IDX.shape, 1.5, np.float32)))
    np.testing.assert_allclose(x.scatter_add(2, Tensor(E_IDX), Tensor(E_SRC)).asnumpy(),
                               ref_elements(X, 2, E_IDX, E_SRC, "add"), rtol=1e-6)


@pytest.mark.parametrize("call,error,message", [
    (lambda x: ops.index_select(x, 1, Tensor(np.array([[1]], np.int32))), ValueError, "dimension of index must be 1"),
    (lambda x: ops.index_select(x, 1, Tensor(np.array([1.0], np.float32))), TypeError, "int32 or int64"),
    (lambda x: ops.scatter(x, 1, Tensor(np.zeros((3, 4), np.float32)), x), TypeError, "indices must be an int32"),
    (lambda x: ops.scatter(x, 1, Tensor(np.zeros((3, 4), np.int32)), Tensor(np.zeros((3, 3), np.float32))),
     ValueError, r"updates must have shape \[3, 4\]"),
    (lambda x: ops.scatter(x, 1, Tensor(np.zeros((3, 4), np.int32)), Tensor(np.zeros((3, 4), np.int32))),
     TypeError, "the input's dtype Float32"),
    (lambda x: ops.scatter(x, 1, Tensor(np.zeros((4, 1), np.int32)), Tensor(np.zeros((4, 1), np.float32))),
     ValueError, "must not exceed the input's"),
    (lambda x: ops.scatter(x, 1, Tensor(np.zeros((3,), np.int32)), 1.0), ValueError, "the input's rank 2"),
    (lambda x: ops.tensor_scatter_elements(x, Tensor(np.zeros((1, 1), np.int32)), x[:1, :1], 0, "mul"),
     ValueError, "reduction must be 'none' or 'add'"),
    (lambda x: ops.tensor_scatter_add(x, Tensor(np.array([1], np.int32)), x[0]), ValueError, "rank 2 or more"),
    (lambda x: ops.tensor_scatter_update(x, Tensor(np.zeros((1, 3), np.int32)), x[0, :1]), ValueError,
     r"indices.shape\[-1\] = 3 must be in \[1, 2\]"),
    (lambda x: ops.tensor_scatter_update(x, Tensor(np.zeros((1, 1), np.int32)), x[:1, :3]), ValueError,
     r"updates must have shape \[1, 4\]"),
    (lambda x: ops.scatter_nd(Tensor(np.zeros((1, 1), np.int32)), x[:1], 3), TypeError, "shape must be a tuple"),
    (lambda x: ops.gather_elements(x, 0, Tensor(np.zeros((1, 5), np.int32))), ValueError, "must not exceed"),
    (lambda x: ops.gather_nd(x, Tensor(np.zeros((1, 3), np.int32))), ValueError,
     r"indices.shape\[-1\] = 3 must not exceed the input's rank 2"),
    (lambda x: ops.gather_nd(x, Tensor(np.zeros((1, 2), np.float32))), TypeError, "indices must be an int32"),
    (lambda x: ops.tensor_scatter_max(x > 0, Tensor(np.zeros((1, 1), np.int32)), x[:1] > 0), TypeError,
     "tensor_scatter_max: input_x must be a numeric tensor, got Bool"),
    (lambda x: ops.tensor_scatter_div(x, Tensor(np.zeros((1, 1), np.int32)), x[:1].astype(ms.int32)), TypeError,
     "the input's dtype Float32"),
    (lambda x: ops.tensor_scatter_mul(x, Tensor(np.array([1], np.int32)), x[0]), ValueError, "rank 2 or more"),
])
def test_bad_arguments_are_named(call, error, message):
    with pytest.raises(error, match=message):
        call(Tensor(np.zeros((3, 4), np.float32)))

"""ops.cumsum, cumprod, sort, argsort and topk (graphcell/ops/sorting.py) against numpy, jax.vmap
and jax.grad: eagerly, under jit, under jit(backend="onnx") and in an exported model.

The order they promise, on every backend: stable (equal values by index, descending too), NaN
the largest value (last ascending, first descending), -0.0 equal to 0.0; int32 indices.
"""
import jax
import jax.numpy as jnp
import numpy as np
import onnx
import pytest

import graphcell as ms
from graphcell import ops
from graphcell.runtime import Session
from tests.modes import MODES, call

RNG = np.random.default_rng(11)
# float16 under jit(backend="onnx") warns that onnxruntime computes it in float32 (known, wanted here)
F16_ONNX = pytest.mark.filterwarnings("ignore:jit\\(backend='onnx'\\) of a float16 graph")
NAN, INF = np.nan, np.inf

# Ties, NaNs, infinities and both zeros in one place.
TRICKY = np.array([[3.0, 1.0, NAN, 1.0, -0.0, 0.0, -INF, 1.0],
                   [2.0, INF, 1.0, NAN, 0.0, -0.0, 2.0, NAN],
                   [0.5, 0.5, 0.5, -1.0, 0.5, -1.0, 7.0, 0.5]], np.float32)


def ref_order(x, axis, descending):
    """The promised order, written out per 1-D slice: NaN largest, ties by index."""
    def key(row):
        if descending:
            return sorted(range(len(row)), key=lambda i: (not np.isnan(row[i]), 0 if np.isnan(row[i]) else -row[i], i))
        return sorted(range(len(row)), key=lambda i: (bool(np.isnan(row[i])), 0 if np.isnan(row[i]) else row[i], i))
    return np.apply_along_axis(lambda r: np.array(key(r.astype(np.float64)), np.int64), axis, x)


def test_the_reference_order_is_numpys_stable_argsort_ascending():
    """The hand-written reference agrees with numpy where numpy defines the order (ascending,
    NaN last, stable), and so can be trusted for descending."""
    for axis in (0, 1):
        np.testing.assert_array_equal(ref_order(TRICKY, axis, False), np.argsort(TRICKY, axis, kind="stable"))
    ints = RNG.integers(-3, 3, (4, 9))
    np.testing.assert_array_equal(ref_order(ints, 1, True), np.argsort(-ints, 1, kind="stable"))


# -- cumsum, cumprod -----------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_cumsum_and_cumprod_match_numpy(mode):
    x = np.array([[1.5, -2.0, 0.0, 3.0], [0.5, 0.0, 0.0, -2.0], [-1.0, 4.0, 2.0, 0.25]], np.float32)
    for axis in (0, 1, -1, -2):
        got_s, got_p = call(lambda t: (ops.cumsum(t, axis), ops.cumprod(t, axis)), mode, x)
        np.testing.assert_allclose(got_s, np.cumsum(x, axis), rtol=1e-6)
        np.testing.assert_allclose(got_p, np.cumprod(x, axis), rtol=1e-6)
        assert got_s.dtype == got_p.dtype == np.float32 and got_s.shape == got_p.shape == x.shape
    ints = RNG.integers(-4, 5, (2, 3, 4)).astype(np.int32)
    got_s, got_p = call(lambda t: (ops.cumsum(t, 1), ops.cumprod(t, -1)), mode, ints)
    np.testing.assert_array_equal(got_s, np.cumsum(ints, 1, dtype=np.int32))
    np.testing.assert_array_equal(got_p, np.cumprod(ints, -1, dtype=np.int64))
    assert got_s.dtype == np.int32 and got_p.dtype == np.int64   # cumprod: Int64 (MindSpore 2.10, measured)


@F16_ONNX
@pytest.mark.parametrize("mode", MODES)
def test_cumsum_and_cumprod_dtypes(mode):
    small = np.array([100, 100, -128, 7, 3], np.int8)   # wraps, as numpy's int8 does
    half = np.array([[0.1, 0.7, -0.3], [1.5, 2.0, 0.25]], np.float16)
    got = call(lambda a, h, b: (ops.cumsum(a, 0), ops.cumprod(a, 0), ops.cumsum(h, 1), ops.cumprod(h, 0),
                                ops.cumsum(a, 0, dtype=ms.float32), ops.cumsum(b, 0), ops.cumprod(h, 1, ms.float64)),
               mode, small, half, np.array([True, False, True]))
    np.testing.assert_array_equal(got[0], np.cumsum(small, dtype=np.int8))
    np.testing.assert_array_equal(got[1], np.cumprod(small, dtype=np.int64))   # no wrap: Int64 (measured)
    np.testing.assert_allclose(got[2], np.cumsum(half, 1), rtol=2e-3)
    np.testing.assert_allclose(got[3], np.cumprod(half, 0), rtol=2e-3)
    np.testing.assert_array_equal(got[4], np.cumsum(small.astype(np.float32)))   # cast first, then summed
    np.testing.assert_array_equal(got[5], [1, 1, 2])                           # bools count in int32
    np.testing.assert_allclose(got[6], np.cumprod(half.astype(np.float64), 1), rtol=1e-12)
    assert [g.dtype for g in got] == [np.int8, np.int64, np.float16, np.float16, np.float32, np.int32, np.float64]


def test_scan_arguments_are_checked():
    x = ms.Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="out of range"):
        ops.cumsum(x, 2)
    with pytest.raises(TypeError, match="axis must be an int"):
        ops.cumprod(x, None)
    assert ops.cumsum(ms.Tensor(np.float32(2.5)), 0).asnumpy() == 2.5   # a 0-d tensor is its own sum


# -- sort, argsort, topk ----------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_sort_and_argsort_are_stable_with_nan_largest(mode):
    for axis in (1, -1, 0, -2):
        for descending in (False, True):
            values, idx, arg = call(lambda t: (*ops.sort(t, axis, descending), ops.argsort(t, axis, descending)),
                                    mode, TRICKY)
            want = ref_order(TRICKY, axis, descending)
            np.testing.assert_array_equal(idx, want, err_msg=f"axis={axis} descending={descending}")
            np.testing.assert_array_equal(arg, want)
            np.testing.assert_array_equal(values, np.take_along_axis(TRICKY, want, axis))
            assert idx.dtype == arg.dtype == np.int32 and values.dtype == np.float32
    # NaN: last ascending, first descending
    row = call(lambda t: ops.sort(t, descending=True)[0], mode, TRICKY)[1]
    assert np.isnan(row[:2]).all() and row[2] == INF


@F16_ONNX
@pytest.mark.parametrize("mode", MODES)
def test_sort_of_ints_halves_and_3d(mode):
    ints = RNG.integers(-3, 4, (3, 4, 5)).astype(np.int32)
    half = (RNG.integers(-4, 5, (4, 6)) / 2).astype(np.float16)
    v_i, i_i, v_h, i_h = call(lambda a, h: (*ops.sort(a, 1, True), *ops.sort(h, 0)), mode, ints, half)
    want = np.argsort(-ints, 1, kind="stable")
    np.testing.assert_array_equal(i_i, want)
    np.testing.assert_array_equal(v_i, np.take_along_axis(ints, want, 1))
    np.testing.assert_array_equal(i_h, np.argsort(half, 0, kind="stable"))
    np.testing.assert_array_equal(v_h, np.sort(half, 0, kind="stable"))
    assert (v_i.dtype, v_h.dtype, i_i.dtype) == (np.int32, np.float16, np.int32)


@pytest.mark.parametrize("mode", MODES)
def test_topk_matches_the_sorted_prefix(mode):
    for dim, axis in ((None, 1), (1, 1), (-2, 0), (0, 0)):
        for largest in (True, False):
            for k in (0, 2, TRICKY.shape[axis]):
                values, idx = call(lambda t: ops.topk(t, k, dim, largest), mode, TRICKY)
                want = np.take(ref_order(TRICKY, axis, largest), range(k), axis)
                np.testing.assert_array_equal(idx, want, err_msg=f"dim={dim} largest={largest} k={k}")
                np.testing.assert_array_equal(values, np.take_along_axis(TRICKY, want, axis))
                assert idx.dtype == np.int32 and values.shape == want.shape
    # MindSpore's example
    x = np.array([[0.5368, 0.2447, 0.4302, 0.9673], [0.4388, 0.6525, 0.4685, 0.1868],
                  [0.3563, 0.5152, 0.9675, 0.8230]], np.float32)
    values, idx = call(lambda t: ops.topk(t, 2, dim=1, sorted=False), mode, x)
    np.testing.assert_array_equal(idx, [[3, 0], [1, 2], [2, 3]])


def test_sort_arguments_and_scalars():
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    with pytest.raises(ValueError, match="out of range"):
        ops.topk(x, 4)
    with pytest.raises(ValueError, match="out of range"):
        ops.sort(x, 2)
    with pytest.raises(TypeError, match="k must be an int"):
        ops.topk(x, 1.0)
    v, i = ops.sort(ms.Tensor(np.float32(4.0)))
    assert v.shape == i.shape == () and float(v) == 4.0 and int(i) == 0


# -- export -----------------------------------------------------------------------------------------

def _all_ops(x):
    values, idx = ops.sort(x, 1, descending=True)
    return values, idx, ops.topk(x, 2)[1], ops.cumsum(x, 1), ops.cumprod(x, 1), ops.argsort(x, axis=0)


def test_an_exported_model_with_a_dynamic_batch(tmp_path):
    """Sorting along the batch axis (argsort over axis 0) takes k from the input's shape."""
    x = np.round(RNG.uniform(-2, 2, (3, 5)) * 2).astype(np.float32) / 2   # halves: ties
    path = ms.export(_all_ops, ms.Tensor(x), file_name=str(tmp_path / "s.onnx"))
    model = onnx.load(path)
    assert {"TopK", "CumSum", "ReduceProd"} <= {n.op_type for n in model.graph.node}
    assert model.graph.output[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    sess = Session(path, providers=["cpu"])
    for b in (1, 3, 6):
        xb = np.round(RNG.uniform(-2, 2, (b, 5)) * 2).astype(np.float32) / 2
        xb[0, 1] = NAN
        got = sess(xb)
        want = [w.asnumpy() for w in _all_ops(ms.Tensor(xb))]
        assert len(got) == len(want) == 6
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)
        np.testing.assert_array_equal(got[5], ref_order(xb, 0, False))


@pytest.mark.parametrize("reverse", [False, True])
def test_cumprod_along_a_dynamic_axis(tmp_path, reverse):
    """The triangular mask that ONNX's cumulative product is a ReduceProd over compares a Range
    of the axis' run-time size (it was refused along a dynamic axis)."""
    from graphcell.ops.sorting import cumprod_p
    fn = lambda t: cumprod_p.bind(t, axis=0, reverse=reverse)   # noqa: E731
    path = ms.export(fn, ms.Tensor(np.ones((3, 2, 2), np.float32)), file_name=str(tmp_path / "p"),
                     dynamic_axes={"x": [0]}, input_names=["x"])
    sess = Session(path, providers=["cpu"])
    for b in (1, 4, 7):
        x = RNG.uniform(0.5, 1.5, (b, 2, 2)).astype(np.float32)
        want = np.flip(np.cumprod(np.flip(x, 0), 0), 0) if reverse else np.cumprod(x, 0)
        np.testing.assert_allclose(sess(x), want, rtol=1e-6)


# -- vmap, grad -------------------------------------------------------------------------------------

def test_vmap_matches_jax_vmap():
    x = RNG.standard_normal((4, 3, 5)).astype(np.float32)   # distinct values: lax.top_k is a fair reference
    x[1, 2, 3] = 0.0
    cases = [
        (lambda t: ops.cumsum(t, -1), lambda t: jnp.cumsum(t, -1), 1),
        (lambda t: ops.cumprod(t, 0), lambda t: jnp.cumprod(t, 0), 2),
        (lambda t: ops.sort(t, 0, descending=True),
         lambda t: (-jnp.sort(-t, 0), jnp.argsort(-t, 0).astype(jnp.int32)), 1),
        (lambda t: ops.topk(t, 2), lambda t: jax.lax.top_k(t, 2), 0),
        (lambda t: ops.argsort(t, 0), lambda t: jnp.argsort(t, 0, stable=True).astype(jnp.int32), 2),
    ]
    for fn, ref, in_axis in cases:
        got = ms.vmap(fn, in_axes=in_axis)(ms.Tensor(x))
        want = jax.vmap(ref, in_axes=in_axis)(x)
        got, want = (got, want) if isinstance(got, tuple) else ((got,), (want,))
        for g, w in zip(got, want):
            assert g.asnumpy().dtype == np.asarray(w).dtype
            np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-6, atol=1e-6)


def test_vmap_keeps_ties_in_index_order_per_member():
    x = RNG.integers(0, 3, (3, 2, 7)).astype(np.int32)
    got = ms.vmap(lambda t: ops.argsort(t, -1, descending=True), in_axes=2)(ms.Tensor(x)).asnumpy()
    for m in range(7):
        np.testing.assert_array_equal(got[m], np.argsort(-x[:, :, m], -1, kind="stable"))


@pytest.mark.parametrize("mode", MODES)
def test_grad_matches_jax_grad(mode):
    x = np.array([[2.0, 0.0, 3.0, -1.5, 0.5], [0.0, 0.0, 2.0, 1.0, -3.0], [1.0, 1.0, -2.0, 0.25, 1.0]], np.float32)
    w = RNG.standard_normal((3, 5)).astype(np.float32)
    cases = [
        (lambda t: ops.cumsum(t, 1), lambda t: jnp.cumsum(t, 1), w),
        (lambda t: ops.cumprod(t, 1), lambda t: jnp.cumprod(t, 1), w),     # one zero, two zeros in a row
        (lambda t: ops.cumprod(t, -2), lambda t: jnp.cumprod(t, 0), w),
        (lambda t: ops.sort(t, 1, descending=True)[0], lambda t: -jnp.sort(-t, 1), w),
        (lambda t: ops.topk(t, 2, 0, largest=False)[0], lambda t: jnp.sort(t, 0)[:2], w[:2]),
    ]
    for i, (fn, ref, wi) in enumerate(cases):
        got = call(ms.grad(lambda t, fn=fn, wi=wi: ops.reduce_sum(fn(t) * ms.Tensor(wi))), mode, x)
        want = jax.grad(lambda t, ref=ref, wi=wi: jnp.sum(ref(t) * wi))(x)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=f"case {i}")


def test_sort_gradient_goes_to_each_tied_element_once():
    """Each sorted value's cotangent reaches the element it came from: with ties, each of the
    equal elements gets its own (not a share of the sum)."""
    x = ms.Tensor(np.array([1.0, 3.0, 1.0, 1.0], np.float32))
    w = ms.Tensor(np.array([10.0, 20.0, 30.0, 40.0], np.float32))
    g = ms.grad(lambda t: ops.reduce_sum(ops.sort(t)[0] * w))(x).asnumpy()
    np.testing.assert_array_equal(g, [10.0, 40.0, 20.0, 30.0])

"""Findings of the session-22 audit of jit(backend="onnx") against the XLA backend: user programs
run under both, their results compared (the XLA path is the reference the backend promises to
match)."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor


def _both(fn, *args):
    return ms.jit(fn)(*args), ms.jit(fn, backend="onnx")(*args)


@pytest.mark.parametrize("src", ["float16", "float32", "float64"])
def test_a_float_cast_to_an_integer_type_saturates_and_maps_nan_to_zero_as_xla_does(src):
    """onnxruntime's Cast is C's conversion: -2.5 to uint8 was 254, NaN, inf and 3e9 to int32
    were -2**31, 300.0 to int8 was 44. XLA (eager and jit) saturates and maps NaN to 0."""
    x = Tensor(np.array([np.nan, np.inf, -np.inf, -2.5, 6e4, -6e4, 3e9, -3e9, 300.0, 2.7, -0.5], src))
    dtypes = (ms.uint8, ms.int8, ms.int16, ms.uint16, ms.int32, ms.uint32, ms.int64, ms.uint64)
    wants, gots = _both(lambda t: tuple(t.astype(d) for d in dtypes), x)
    for dtype, want, got in zip(dtypes, wants, gots):
        info = np.iinfo(dtype.np_dtype)
        assert want.asnumpy()[:3].tolist() == [0, info.max, info.min]   # the reference is XLA's saturation
        np.testing.assert_array_equal(got.asnumpy(), want.asnumpy(), err_msg=str(dtype))


def _small_integer_program(a, c, i16, u16, u32, m, h):
    from graphcell import ops
    idx = Tensor(np.array([[0], [0]], np.int32))
    return (ops.matmul(a, c.T), a ** 2, ops.matmul(m, m.T),                               # int8, bool
            ops.maximum(i16, -i16), ops.where(i16 > 2, i16, -i16), ops.pad(i16, (1, 1)),   # int16
            ops.amax(i16, 1), ops.argmax(i16, 1), ops.relu(i16), u16.sum(1), ops.amin(u16, 0),
            u32.sum(), ops.argmax(u32, 1), u32 ** 2,
            ops.tensor_scatter_add(h, idx, h[:2]))                                        # float16


def test_small_integer_bool_and_float16_ops_run_where_onnxruntime_lacks_kernels():
    """An int8 matmul was an invalid model ("Type 'tensor(int8)' of input parameter ... of
    operator (MatMul) is invalid ... Is it an ONNX model? It may be truncated or corrupt"),
    int16 max/where/pad/argmax, uint16 and uint32 sums had no kernel, and a float16
    scatter-add failed in onnxruntime's ScatterND when it ran: they run at a wider dtype."""
    rs = np.random.RandomState(0)
    a = rs.randint(-60, 60, (2, 4)).astype(np.int8)   # products that wrap in int8
    args = [Tensor(a), Tensor(a[::-1].copy()), Tensor(rs.randint(-900, 900, (2, 4)).astype(np.int16)),
            Tensor(rs.randint(0, 60000, (2, 4)).astype(np.uint16)),
            Tensor(rs.randint(0, 2**32 - 1, (2, 4), dtype=np.uint64).astype(np.uint32)),
            Tensor(a > 0), Tensor(rs.randn(3, 4).astype(np.float16))]
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # float16 computed in float32 by onnxruntime
        wants, gots = _both(_small_integer_program, *args)
    for i, (want, got) in enumerate(zip(wants, gots)):
        assert got.dtype == want.dtype, i
        np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-3, err_msg=f"output {i}")


def _uint64_orderings(x):
    from graphcell import ops
    values, indices = ops.sort(x, 1)
    top, top_at = ops.topk(x, 3, 1)
    return (values, indices, ops.argsort(x, 0, descending=True), top, top_at, x.argmax(1), x.argmin(0),
            ops.amax(x, 1), ops.amin(x, 0), ops.maximum(x, x[::-1]))


U64 = np.array([[2**63 + 5, 3, 2**64 - 1, 2**63 + 5, 0, 2**63 - 1],
                [2**63, 2**63 - 1, 7, 2**64 - 1, 2**64 - 1, 2**63],
                [1, 2**63 + 5, 2**63 + 5, 2**62, 2**64 - 2, 0]], np.uint64)


def _numpy_uint64_orderings(x):
    def descending(v):   # ties in index order (the sort primitive's)
        return np.lexsort((np.arange(len(v)), ~v))
    order = np.argsort(x, 1, kind="stable")
    top_at = np.apply_along_axis(descending, 1, x)[:, :3]
    return (np.take_along_axis(x, order, 1), order, np.apply_along_axis(descending, 0, x),
            np.take_along_axis(x, top_at, 1), top_at, x.argmax(1), x.argmin(0), x.max(1), x.min(0),
            np.maximum(x, x[::-1]))


def test_uint64_sorts_and_orderings_above_2_63_match_numpy():
    """onnxruntime has no uint64 TopK, ArgMax, ReduceMax...: they were refused; they now run on
    int64 with the top bit flipped (compiler/onnx_widen.py)."""
    wants = _numpy_uint64_orderings(U64)
    gots = ms.jit(_uint64_orderings, backend="onnx")(Tensor(U64))
    xla = ms.jit(_uint64_orderings)(Tensor(U64))
    for i, (want, got, x) in enumerate(zip(wants, gots, xla)):
        np.testing.assert_array_equal(got.asnumpy(), want, err_msg=f"output {i}")
        np.testing.assert_array_equal(got.asnumpy(), x.asnumpy(), err_msg=f"output {i} (XLA)")
        assert got.dtype == x.dtype, i


@pytest.mark.parametrize("opset", [17, 18])   # (17: the top bit flipped by an Add, no BitwiseXor)
def test_an_exported_uint64_sort_runs_in_onnxruntime(opset):
    import onnxruntime as ort
    from graphcell.compiler.export import to_onnx

    class Net(ms.nn.Cell):
        def construct(self, x):
            return ms.ops.sort(x, 1, descending=True)[0], x.argmin(1)
    model = to_onnx(Net(), Tensor(U64), opset=opset).model
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    values, first_min = session.run(None, {session.get_inputs()[0].name: U64})
    np.testing.assert_array_equal(values, np.sort(U64, 1)[:, ::-1])
    np.testing.assert_array_equal(first_min, U64.argmin(1))


def test_a_bfloat16_argument_or_result_is_refused_by_name_before_onnxruntime_runs():
    """A graph whose ops all have kernels (a bfloat16 -> int32 cast) failed in the run with
    onnxruntime's bare "Numpy_type 256 can't be converted to MLDataType"."""
    x = Tensor(np.array([1.0, 2.5], np.float32)).astype(ms.bfloat16)
    np.testing.assert_array_equal(ms.jit(lambda t: t.astype(ms.int32))(x).asnumpy(), [1, 2])   # XLA runs it
    with pytest.raises(TypeError, match=r"cannot pass bfloat16 tensors in or out \(arg 't'\): cast them to "
                                        r"float32 at the function's boundary, or use backend='xla'"):
        ms.jit(lambda t: t.astype(ms.int32), backend="onnx")(x)
    with pytest.raises(TypeError, match=r"\(output 0\)"):
        ms.jit(lambda t: t.astype(ms.bfloat16), backend="onnx")(Tensor(np.array([1.0], np.float32)))


def _integer_sums(i64, i32, u64, i8):
    return (i64.sum(1), i64.sum(), i64.sum(0), ms.ops.prod(i64, 1), i64.cumsum(1),
            i32.sum(1, dtype=ms.int32), ms.ops.prod(i32, 0), u64.sum(0), i8.sum(1, dtype=ms.int8))


def test_integer_sums_and_products_are_exact_and_wrap_as_xla_does():
    """onnxruntime's int64 ReduceSum gave 2**53 for [2**53 + 1, 0, 0] (it accumulates in double),
    its ReduceProd lost a product's last bits, and both saturated on overflow where XLA wraps."""
    rs = np.random.RandomState(1)
    i64 = rs.randint(-2**62, 2**62, (4, 6), dtype=np.int64)
    i64[0, :3] = [2**53 + 1, 0, 0]
    i64[1, :3] = [2**62, 2**62, 2**62]   # wraps
    args = [Tensor(i64), Tensor(rs.randint(-2**31, 2**31 - 1, (5, 3)).astype(np.int32)),
            Tensor(rs.randint(0, 2**63, (3, 4), dtype=np.uint64) * np.uint64(2) + np.uint64(1)),
            Tensor(rs.randint(-128, 128, (2, 9)).astype(np.int8))]
    wants, gots = _both(_integer_sums, *args)
    for i, (want, got) in enumerate(zip(wants, gots)):
        assert got.dtype == want.dtype, i
        np.testing.assert_array_equal(got.asnumpy(), want.asnumpy(), err_msg=f"output {i}")
    assert gots[0].asnumpy()[0] == (2**53 + 1 + int(i64[0, 3:].sum()) + 2**63) % 2**64 - 2**63


def test_an_int64_sum_over_a_dynamic_batch_axis_is_exact(tmp_path):
    import onnxruntime as ort
    from graphcell.compiler.export import to_onnx

    class Net(ms.nn.Cell):
        def construct(self, x):
            return x.sum(0), x.sum(1), ms.ops.prod(x, 1)
    model = to_onnx(Net(), Tensor(np.ones((3, 4), np.int64)), dynamic_axes={0: [0]}).model
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    x = np.array([[2**53 + 1, 0, 0, 1]] * 5 + [[2**40, 2**30, 3, -1]], np.int64)
    got = session.run(None, {session.get_inputs()[0].name: x})
    for g, w in zip(got, (x.sum(0), x.sum(1), x.prod(1))):   # numpy's int64 arithmetic wraps as XLA's
        np.testing.assert_array_equal(g, w)


def test_a_complex_hermitian_eigh_gives_the_same_decomposition_on_both_backends():
    """scipy.linalg.eigh of a complex matrix (2.10 takes them) was refused by the eigh primitive's
    dtype check on both backends. Now XLA runs LAPACK's heevd and ONNX eig's Schur form on
    (A + A^H) / 2; both fix each eigenvector's phase by one rule, so their vectors agree, not
    only up to a unit factor. The complex matrix is made inside (ONNX models take real inputs)."""
    from graphcell import ops
    from graphcell.scipy import linalg as L
    a = np.array([[2, 1 - 1j, 0.5j], [9, -1, 2 + 1j], [9, 9, 3]])   # the upper triangle is never read

    def decomposition(re, im):
        w, v = L.eigh(ops.Complex()(re, im))
        return ops.real(w), ops.imag(w), ops.real(v), ops.imag(v)
    want, got = _both(decomposition, Tensor(a.real), Tensor(a.imag))
    hermitian = np.tril(a) + np.conj(np.tril(a, -1)).T
    np.testing.assert_allclose(want[0].asnumpy(), np.linalg.eigvalsh(hermitian), atol=1e-13)
    for w, g in zip(want, got):
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), atol=1e-13)
    v = got[2].asnumpy() + 1j * got[3].asnumpy()
    np.testing.assert_allclose(hermitian @ v, v * got[0].asnumpy(), atol=1e-13)
"""COOTensor, CSRTensor, RowTensor and the ops.coo_* / ops.csr_* functions, against scipy.sparse
and numpy dense forms; gradients against jax.grad of the dense form; jit and ONNX (onnxruntime
== XLA). Reprs, result structures and error messages are MindSpore 2.10's (measured on 2.10.0 CPU)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.sparse as sp

import graphcell as ms
from graphcell import COOTensor, CSRTensor, RowTensor, Tensor, ops
from graphcell.frontend.tracer import GraphModeError

RNG = np.random.default_rng(0)
DENSE = np.array([[1.5, 0, 0, -2], [0, 0, 0, 0], [0, 3, 0.5, 0], [4, 0, 0, 1]], np.float32)
REF = sp.csr_matrix(DENSE)


def csr_of(m: sp.csr_matrix, dtype=np.float32) -> CSRTensor:
    return CSRTensor(Tensor(m.indptr.astype(np.int32)), Tensor(m.indices.astype(np.int32)),
                     Tensor(m.data.astype(dtype)), m.shape)


def small_csr():
    return CSRTensor(Tensor([0, 1, 2, 2], ms.int32), Tensor([0, 3], ms.int32), Tensor([1., 2.]), (3, 4))


def test_properties_and_reprs_are_mindspores():
    csr = small_csr()
    assert (csr.shape, csr.dtype, csr.size, csr.itemsize, csr.ndim) == ((3, 4), ms.float32, 2, 4, 2)
    # measured on MindSpore 2.10
    assert repr(csr) == (
        "CSRTensor(shape=[3, 4], dtype=Float32, indptr=Tensor(shape=[4], dtype=Int32, value=[0 1 2 2]), "
        "indices=Tensor(shape=[2], dtype=Int32, value=[0 3]), values=Tensor(shape=[2], dtype=Float32, "
        "value=[ 1.00000000e+00  2.00000000e+00]))")
    coo = COOTensor(Tensor([[0, 1], [1, 2]], ms.int32), Tensor([1., 2.]), (3, 4))
    assert repr(coo) == (
        "COOTensor(shape=[3, 4], dtype=Float32, indices=Tensor(shape=[2, 2], dtype=Int32, value=\n[[0 1]\n [1 2]]), "
        "values=Tensor(shape=[2], dtype=Float32, value=[ 1.00000000e+00  2.00000000e+00]))")
    assert coo.to_tuple()[2] == (3, 4) and len(csr.to_tuple()) == 4
    assert csr.astype(ms.float16).dtype == ms.float16 and coo.astype(ms.int32).values.dtype == ms.int32
    rt = RowTensor(Tensor([0, 2], ms.int32), Tensor([[1., 2.], [3., 4.]]), (3, 2))
    assert rt.dense_shape == (3, 2) and not hasattr(rt, "to_dense") and not hasattr(rt, "dtype")  # 2.10's
    assert repr(rt).startswith("RowTensor(shape=[3, 2], dtype=Float32, indices=Tensor(shape=[2], dtype=Int32, "
                               "value=[0 2]), values=Tensor(shape=[2, 2], dtype=Float32, value=\n[[ 1.00000000e+00")


def test_csr_values_against_scipy():
    x = RNG.standard_normal((4, 1)).astype(np.float32)
    w = RNG.standard_normal((4, 3)).astype(np.float32)
    row = RNG.standard_normal(4).astype(np.float32)
    dense = RNG.standard_normal((4, 4)).astype(np.float32)
    ref_coo = REF.tocoo()

    @ms.jit   # one compilation for the table (eager runs the same ops: the other tests)
    def table(csr, x, w, row, dense):
        coo = csr.to_coo()
        return dict(
            dense=csr.to_dense(), mv=csr.mv(x), mm=csr.mm(w), sum=csr.sum(1), reduce=ops.csr_reduce_sum(csr, -1),
            mul=(csr * row).to_dense(), div=(csr / row.reshape(4, 1)).to_dense(), abs=csr.abs().values,
            neg=(-csr).values, times2=csr * 2, coo=coo.indices, indptr=coo.to_csr().indptr,
            rows=ops.csr2coo(csr.indptr, 6), ptr=ops.coo2csr(coo.indices[:, 0], 4),
            gather=ops.csr_gather(csr.indptr, csr.indices, dense, (4, 4)),
            softmax=ops.csr_softmax(csr, ms.float32).values, sigmoid=ops.csr_sigmoid(csr).values)

    got = {k: v.asnumpy() for k, v in table(csr_of(REF), Tensor(x), Tensor(w), Tensor(row), Tensor(dense)).items()}
    soft = np.concatenate([np.exp(p) / np.exp(p).sum() for p in np.split(REF.data, REF.indptr[1:-1])])
    want = dict(dense=DENSE, mv=REF @ x, mm=REF @ w, sum=REF.sum(1), reduce=REF.sum(1),
                mul=REF.multiply(row).toarray(), div=REF.multiply(1 / row[:, None]).toarray(),
                abs=np.abs(REF.data), neg=-REF.data, times2=REF.data * 2,   # 2.10: csr * number is the values'
                coo=np.stack([ref_coo.row, ref_coo.col], 1), indptr=REF.indptr, rows=ref_coo.row, ptr=REF.indptr,
                gather=dense[ref_coo.row, ref_coo.col], softmax=soft, sigmoid=1 / (1 + np.exp(-REF.data)))
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-6, err_msg=k)
    csr = csr_of(REF)
    assert ops.coo_isnan(csr.to_coo()).dtype == ms.bool_ and ops.csr_isinf(csr).values.dtype == ms.bool_


def test_coo_values_and_eager_structures_are_mindspores():
    dense = RNG.standard_normal((3, 4)).astype(np.float32)
    a = COOTensor(Tensor([[0, 1], [1, 2]], ms.int64), Tensor([1., 2.]), (3, 4))
    b = COOTensor(Tensor([[0, 1], [2, 3]], ms.int64), Tensor([5., -1.5]), (3, 4))

    @ms.jit   # the ops of static shapes, in one compilation
    def static(coo, dense, a, b):
        return coo.to_dense(), coo.to_csr(), (coo * dense).values, coo + dense, ops.coo_concat((a, b), 1)

    coo = COOTensor(Tensor([[1, 2], [0, 3], [0, 1]], ms.int32), Tensor([1., 2., 3.]), (3, 4))
    to_dense, csr, times, plus, joined = static(coo, Tensor(dense), a, b)
    np.testing.assert_allclose(to_dense.asnumpy(), sp.coo_matrix(([1, 2, 3], ([1, 0, 0], [2, 3, 1])),
                                                                 (3, 4)).toarray())
    # to_csr keeps each row's entries in their order (measured: indptr [0 2 3 3], indices [3 1 2])
    assert csr.indptr.asnumpy().tolist() == [0, 2, 3, 3] and csr.indices.asnumpy().tolist() == [3, 1, 2]
    assert csr.values.asnumpy().tolist() == [2., 3., 1.]
    np.testing.assert_allclose(times.asnumpy(), [dense[1, 2] * 1, dense[0, 3] * 2, dense[0, 1] * 3], rtol=1e-6)
    np.testing.assert_allclose(plus.asnumpy(), to_dense.asnumpy() + dense, rtol=1e-6)
    assert joined.shape == (3, 8)      # measured: row-major order
    assert joined.indices.asnumpy().tolist() == [[0, 1], [0, 5], [1, 2], [2, 7]]
    assert joined.values.asnumpy().tolist() == [1., 5., 2., -1.5]
    # coalesce (measured): [[1,2],[0,1],[1,2]] with [1,2,3] -> [[0,1],[1,2]] with [2,4]
    dup = COOTensor(Tensor([[1, 2], [0, 1], [1, 2]], ms.int64), Tensor([1., 2., 3.]), (3, 4)).coalesce()
    assert dup.indices.asnumpy().tolist() == [[0, 1], [1, 2]] and dup.values.asnumpy().tolist() == [2., 4.]
    total = a + b
    assert total.indices.asnumpy().tolist() == [[0, 1], [1, 2], [2, 3]]
    assert total.values.asnumpy().tolist() == [6., 2., -1.5]
    # thresh drops a summed place under it, never a place one side holds alone (measured)
    kept = ops.coo_add(a, b, Tensor(10.0))
    assert kept.indices.asnumpy().tolist() == [[1, 2], [2, 3]] and kept.values.asnumpy().tolist() == [2., -1.5]
    # csr_add (measured): the union, each row's columns ascending
    s = ops.csr_add(small_csr(), CSRTensor(Tensor([0, 0, 1, 2], ms.int32), Tensor([1, 2], ms.int32),
                                           Tensor([5., 6.]), (3, 4)), Tensor(1.0), Tensor(1.0))
    assert s.indptr.asnumpy().tolist() == [0, 1, 3, 4] and s.indices.asnumpy().tolist() == [0, 1, 3, 2]
    assert s.values.asnumpy().tolist() == [1., 5., 2., 6.]
    c = ops.dense_to_sparse_csr(Tensor([[0, 1.], [2, 0]]))
    assert c.indptr.asnumpy().tolist() == [0, 1, 2] and c.indices.asnumpy().tolist() == [1, 0]
    d = ops.dense_to_sparse_coo(Tensor([[0, 1], [2, 0]]))
    assert d.indices.dtype == ms.int32 and d.dtype == ms.int64 and d.indices.asnumpy().tolist() == [[0, 1], [1, 0]]
    m = csr_of(REF).mm(csr_of(sp.csr_matrix(DENSE.T)))
    np.testing.assert_allclose(m.to_dense().asnumpy(), DENSE @ DENSE.T, rtol=1e-6)


def test_grad_of_values_and_vector_matches_jax():
    csr = csr_of(REF)
    rows, cols = REF.tocoo().row, REF.tocoo().col
    x = RNG.standard_normal((4, 1)).astype(np.float32)
    w = RNG.standard_normal((4, 2)).astype(np.float32)

    def loss(values, x, w):
        c = CSRTensor(csr.indptr, csr.indices, values, (4, 4))
        soft = ops.csr_softmax(c, ms.float32).values
        return ops.sum(ops.tanh(c.mv(x))) + ops.sum(c.mm(w) ** 2) + ops.sum(soft * x[:, 0][csr.indices])

    def ref(values, x, w):
        dense = jnp.zeros((4, 4)).at[rows, cols].add(values)
        soft_rows = [jax.nn.softmax(values[REF.indptr[r]:REF.indptr[r + 1]]) for r in range(4)]
        return (jnp.sum(jnp.tanh(dense @ x)) + jnp.sum((dense @ w) ** 2)
                + jnp.sum(jnp.concatenate(soft_rows) * x[cols, 0]))

    got = ms.jit(ops.grad(loss, grad_position=(0, 1, 2)))(csr.values, Tensor(x), Tensor(w))
    want = jax.jit(jax.grad(ref, argnums=(0, 1, 2)))(jnp.asarray(REF.data), x, w)
    for g, r in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), r, rtol=1e-5, atol=1e-5)
    # a sparse argument's gradient is its values' (MindSpore 2.10's, measured: [1, 4] and x's [[1],[0],[0],[2]])
    g_csr, g_x = ops.grad(lambda c, v: ops.sum(c.mv(v)), grad_position=(0, 1))(small_csr(),
                                                                               Tensor([[1.], [2.], [3.], [4.]]))
    assert g_csr.asnumpy().tolist() == [1., 4.] and g_x.asnumpy().ravel().tolist() == [1., 0., 0., 2.]


def test_jit_takes_builds_and_returns_sparse_tensors():
    calls = []

    @ms.jit
    def step(csr, coo, x):
        calls.append(1)
        out = COOTensor(coo.indices, coo.values * 2, coo.shape).to_csr()
        return csr.mv(x), out, CSRTensor(csr.indptr, csr.indices, ops.exp(csr.values), csr.shape)

    csr, x = csr_of(REF), Tensor(RNG.standard_normal((4, 1)).astype(np.float32))
    coo = COOTensor(Tensor([[1, 2], [0, 3]], ms.int32), Tensor([1., 2.]), (3, 4))
    y, out, e = step(csr, coo, x)
    np.testing.assert_allclose(y.asnumpy(), REF @ x.asnumpy(), rtol=1e-6)
    assert isinstance(out, CSRTensor) and out.shape == (3, 4) and out.indptr.asnumpy().tolist() == [0, 1, 2, 2]
    assert out.values.asnumpy().tolist() == [4., 2.] and isinstance(e, CSRTensor)
    step(csr, coo, x)
    step(csr, COOTensor(coo.indices, coo.values, (3, 5)), x)        # the shape is part of the key
    assert len(calls) == 2
    xs = RNG.standard_normal((2, 4, 1)).astype(np.float32)       # vmap over dense vectors, the matrix shared
    mapped = ops.vmap(lambda c, v: c.mv(v), in_axes=(None, 0))(csr, Tensor(xs))
    np.testing.assert_allclose(mapped.asnumpy(), np.stack([REF @ v for v in xs]), rtol=1e-5, atol=1e-6)
    with pytest.raises(GraphModeError, match="ops.coo_add: the result's number of stored elements"):
        ms.jit(lambda a: a + a)(COOTensor(Tensor([[0, 1]], ms.int64), Tensor([1.]), (3, 4)))


def test_onnx_runs_csr_ops_as_xla():
    csr = csr_of(REF)

    def f(c, x, w):
        return (c.mv(x), c.mm(w), c.sum(1), c.to_dense(), ops.csr_softmax(c, ms.float32).values,
                c.to_coo().to_csr().indptr)

    x = Tensor(RNG.standard_normal((4, 1)).astype(np.float32))
    w = Tensor(RNG.standard_normal((4, 2)).astype(np.float32))
    xla = ms.jit(f, backend="xla")(csr, x, w)
    onnx = ms.jit(f, backend="onnx")(csr, x, w)
    np.testing.assert_allclose(xla[0].asnumpy(), REF @ x.asnumpy(), rtol=1e-6)
    for a, b in zip(xla, onnx):
        np.testing.assert_allclose(b.asnumpy(), a.asnumpy(), rtol=1e-6, atol=1e-6)


# (constructor, message) measured on MindSpore 2.10.0
I32, F32 = ms.int32, ms.float32
ERRORS = [
    (lambda: COOTensor(Tensor([[0, 1]], F32), Tensor([1.]), (3, 4)), TypeError,
     "For COOTensor, the type of 'indices' must be one of [int16, int32, int64], but got Float32."),
    (lambda: COOTensor(Tensor([0, 1], I32), Tensor([1., 2.]), (3, 4)), ValueError,
     "For COOTensor, 'indices' must be a 2-dimensional tensor, but got a 1-dimensional tensor."),
    (lambda: COOTensor(Tensor([[0, 1], [1, 2]], I32), Tensor([[1., 2.]]), (3, 4)), ValueError,
     "For COOTensor, 'values' must be a 1-dimensional tensor, but got a 2-dimensional tensor."),
    (lambda: COOTensor(Tensor([[0, 1], [1, 2]], I32), Tensor([1., 2., 3.]), (3, 4)), ValueError,
     "For COOTensor, 'indices.shape[0]' must be euqal to 'values.shape[0]', but got 'indices.shape[0]' = 2 and "
     "'values.shape[0]' = 3."),
    (lambda: COOTensor(Tensor([[0, 1], [1, 2]], I32), Tensor([1., 2.]), (3, 4, 5)), ValueError,
     "For COOTensor, the length of 'shape' must be 2, but got (3, 4, 5)."),
    (lambda: COOTensor(Tensor([[0, 1], [1, 2]], I32), Tensor([1., 2.]), [3, 4]), TypeError,
     "For SparseTensors, 'shape' must be tuple, but got <class 'list'>."),
    (lambda: COOTensor(Tensor([[0, 1], [1, 2]], I32), Tensor([1., 2.]), (3, -4)), ValueError,
     "For COOTensor, the element of 'shape' must be positive, but got -4 in (3, -4)."),
    (lambda: COOTensor(Tensor([[0, 1, 1], [1, 2, 1]], I32), Tensor([1., 2.]), (3, 4)), ValueError,
     "For COOTensor, 'indices.shape[1]' must be 2, but got 3."),
    (lambda: CSRTensor(Tensor([0, 1, 2, 2], F32), Tensor([0, 3], I32), Tensor([1., 2.]), (3, 4)), TypeError,
     "For CSRTensor, indptr must have int16 or int32 or int64 data type, but got Float32."),
    (lambda: CSRTensor(Tensor([0, 1, 2], I32), Tensor([0, 3], I32), Tensor([1., 2.]), (3, 4)), ValueError,
     "For CSRTensor, indptr must have length (1 + shape[0]), but got: 3"),
    (lambda: CSRTensor(Tensor([0, 1, 2, 2], I32), Tensor([[0, 3]], I32), Tensor([1., 2.]), (3, 4)), ValueError,
     "For CSRTensor, indices must be a 1-dimensional tensor, but got a 2 dimension tensor."),
    (lambda: CSRTensor(Tensor([0, 1, 2, 2], I32), Tensor([0, 3], I32), Tensor([1., 2., 3.]), (3, 4)), ValueError,
     "For CSRTensor, indices and values must equal in their shape, but got indices shape: 2, values shape: 3."),
    (lambda: CSRTensor(Tensor([0, 1, 2, 2], I32), Tensor([0, 3], I32), None, (3, 4)), TypeError,
     "For SparseTensors, 'values' must be Tensor, but got <class 'NoneType'>."),
    (lambda: small_csr().mv(Tensor([1., 2., 3., 4.])), ValueError,
     "Currently, only support 2-D inputs! But csr tensor has 2 dimensions, and dense tensor has 1 dimension(s). "),
    (lambda: small_csr().mv(Tensor([[1.], [2.], [3.]])), ValueError,
     "The dense_vector's shape should be (4, 1), but its current shape is: (3, 1)."),
    (lambda: small_csr().mm(Tensor(np.ones((3, 2), np.float32))), ValueError,
     "The dense's shape[0] should be equal to csr tensor's shape[1], but dense's shape[0] is: 3 and csr tensor's "
     "shape[1] is 4"),
    (lambda: small_csr().sum(0), ValueError,
     "For CSRReduceSum, `axis` should be 1 or 1-dim. But got `axis`: 0and `1- dim`: -1."),
    (lambda: CSRTensor(Tensor([0, 1, 2, 2], I32), Tensor([0, 3], I32), Tensor([1, 2], I32), (3, 4)).to_dense(),
     TypeError,
     "For primitive[CSRSparseMatrixToDense], the input argument[x_values] must be a type of {Tensor[Complex128], "
     "Tensor[Complex64], Tensor[Float32], Tensor[Float64]}, but got Tensor[Int32]."),
    (lambda: COOTensor(Tensor([[0, 1], [1, 2]], ms.int64), Tensor([1., 2.]), (3, 4)).to_csr(), TypeError,
     "The dtype of row_indices only support Int32 for now, but got Int64."),
    (lambda: COOTensor(Tensor([[0, 1]], I32), Tensor([1.]), (3, 4)).coalesce(), TypeError,
     "For primitive[Coalesce], the input argument[x_indices] must be a type of {Tensor[Int64]}, but got "
     "Tensor[Int32]."),
    (lambda: COOTensor(Tensor([[0, 1]], I32), Tensor([1.]), (3, 4)) + COOTensor(Tensor([[0, 1]], I32),
                                                                                 Tensor([1.]), (3, 4)), TypeError, "For primitive[SparseAdd], the input argument[x1_indices] must be a type of {Tensor[Int64]}, but got "
                "Tensor[Int32]."),
    (lambda: COOTensor(Tensor([[0, 1]], I32), Tensor([1.]), (3, 4)) * Tensor(2.0), ValueError,
     "Input tensors should have the same shape."),
    (lambda: COOTensor(Tensor([[3, 1], [0, 2]], I32), Tensor([1., 2.]), (3, 4)).to_dense(), RuntimeError,
     "For 'TensorScatterAdd', the 0-th value of 'indices'[3, 1] is out of range[3, 4]."),
    (lambda: ops.dense_to_sparse_coo(Tensor(np.ones((2, 2, 2), np.float32))), ValueError,
     "Currently only support 2-D Tensor when converting to COOTensor."),
    (lambda: ops.csr_mm(small_csr(), Tensor(np.ones((4, 2), np.float32))), TypeError,
     "For functional operator csr_mm, inputs a and b must be type of CSRTensor currently."),
    (lambda: COOTensor(coo_tensor=Tensor([[0, 1.], [1, 0]])), TypeError,
     "Expect input `coo_tensor` to be a COOTensor, but got <class 'graphcell.tensor.Tensor'>"),
]


@pytest.mark.parametrize("make, kind, message", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_errors_are_mindspores(make, kind, message):
    with pytest.raises(kind) as info:
        make()
    assert str(info.value) == message

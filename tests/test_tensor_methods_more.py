"""MindSpore 2.10's Tensor methods over the linear algebra, scatter/segment, special and random
ops (graphcell/tensor_methods.py, ops/method_scatters.py): values against numpy and torch in one
jitted table (XLA and onnxruntime), results read off MindSpore 2.10.0 (CPU), in-place methods
(torch's semantics where 2.10 has Ascend kernels only), gradients, vmap and the random fills."""
import numpy as np
import pytest
import torch

import graphcell as ms
from graphcell import Parameter, Tensor, nn, ops

RNG = np.random.default_rng(11)
X = (np.arange(12, dtype=np.float32).reshape(3, 4) - 4)
W = RNG.uniform(-1, 1, (3, 4)).astype(np.float32)
M = RNG.uniform(-1, 1, (3, 3)).astype(np.float32)
A = (M @ M.T + 3 * np.eye(3)).astype(np.float32)               # symmetric positive definite
L = np.linalg.cholesky(A).astype(np.float32)
B = RNG.uniform(-1, 1, (3, 2)).astype(np.float32)
TALL = RNG.uniform(-1, 1, (4, 3)).astype(np.float32)
B2 = RNG.uniform(-1, 1, (2, 3, 2)).astype(np.float32)
LU, PIV = (t.numpy() for t in torch.linalg.lu_factor(torch.from_numpy(A)))   # int32, 1-based
MASK = np.array([[True, False, True, False], [False, False, True, True], [True, True, False, False]])
SRC = np.arange(10, 22, dtype=np.float32)
P = np.array([1.5, 2.5, 0.7], np.float32)


def _t(fn, *args):
    out = fn(*[torch.from_numpy(np.array(a)) for a in args])       # copies: in-place torch calls
    return tuple(o.numpy() for o in out) if isinstance(out, tuple) else out.numpy()


def _i32(*v):
    return Tensor(np.array(v, np.int32))


def _i64(*v):
    return Tensor(np.array(v, np.int64))


def _at(ufunc, x, index_vectors, updates):
    out = x.copy()
    ufunc.at(out, tuple(index_vectors.T), updates)
    return out


def _segments(ufunc, x, ids, n, fill):
    out = np.full((n,) + x.shape[1:], fill, x.dtype)
    for i, s in enumerate(ids):
        out[s] = ufunc(out[s], x[i])
    return out


def _inplace_update(x, rows, v):
    out = x.copy()
    out[rows] = v
    return out


ROWS = np.array([[0], [2], [0]], np.int32)       # index vectors for scatter_<op> (one axis deep)
PAIRS = np.array([[0, 1], [2, 2], [0, 1]], np.int32)
UPD = RNG.uniform(0.5, 2, (3, 4)).astype(np.float32)
IDX = np.array([[0, 0], [1, 2], [3, 3]], np.int64)

CASES = {  # name: (method call, reference, inputs)
    # -- linear algebra
    "det": (lambda a: (a.det(), a.matrix_determinant()), (np.linalg.det(A),) * 2, [A]),
    "logdet": (lambda a: a.logdet(), np.log(np.linalg.det(A)), [A]),
    "slogdet": (lambda a: (-a).slogdet(), np.linalg.slogdet(-A), [A]),
    "log_matrix_determinant": (lambda a: (-a).log_matrix_determinant(), np.linalg.slogdet(-A), [A]),
    "inverse": (lambda a: a.inverse(), np.linalg.inv(A), [A]),
    "matrix_power": (lambda a: (a.matrix_power(3), a.matrix_power(-2)),
                     (np.linalg.matrix_power(A, 3), np.linalg.matrix_power(A.astype(np.float64), -2)), [A]),
    "cholesky": (lambda a: (a.cholesky(), a.cholesky(upper=True)), (L, L.T), [A]),
    "cholesky_inverse": (lambda l: (l.cholesky_inverse(), l.mT.cholesky_inverse(upper=True)), (np.linalg.inv(A),) * 2,
                         [L]),
    "cholesky_solve": (lambda b, l: b.cholesky_solve(l), np.linalg.solve(A, B), [B, L]),
    "lstsq": (lambda m, b: m.lstsq(b), np.linalg.lstsq(TALL, TALL @ B + 0.1, rcond=None)[0], [TALL, TALL @ B + 0.1]),
    "lu_solve": (lambda b, lu, piv: b.lu_solve(lu, piv), np.linalg.solve(A, B), [B, LU, PIV]),
    "qr": (lambda b: (b.qr()[0] @ b.qr()[1], ops.abs(b.qr(some=False)[1])), (B, np.abs(np.linalg.qr(B, "complete")[1])),
           [B]),
    "triangular_solve": (lambda b, l: b.triangular_solve(l, upper=False),
                         _t(lambda p, q: tuple(torch.triangular_solve(p, q, upper=False)), B2, L), [B2, L]),
    "triangular_solve_flags": (lambda b, m: b.triangular_solve(m, transpose=True, unitriangular=True)[0],
                               _t(lambda p, q: torch.triangular_solve(p, q, transpose=True, unitriangular=True)[0],
                                  B, M), [B, M]),
    # -- special functions (moved from tensor.py)
    "i0_mvlgamma": (lambda p: (p.i0(), p.mvlgamma(2)), (_t(torch.special.i0, P), _t(lambda t: torch.mvlgamma(t, 2), P)),
                    [P]),
    "igamma": (lambda p: (p.igamma(p * 0.5), p.igammac(p * 0.5)),
               (_t(torch.special.gammainc, P, P * 0.5), _t(torch.special.gammaincc, P, P * 0.5)), [P]),
    # -- scatters that return a new Tensor
    "diagonal_scatter": (lambda x: x.diagonal_scatter(Tensor(np.array([9., 8, 7], np.float32)), 1),
                         _t(lambda a: torch.diagonal_scatter(a, torch.tensor([9., 8, 7]), 1), X), [X]),
    "select_scatter": (lambda x: x.select_scatter(Tensor(np.array([1., 2, 3], np.float32)), 1, -2),
                       _t(lambda a: torch.select_scatter(a, torch.tensor([1., 2, 3]), 1, -2), X), [X]),
    "slice_scatter": (lambda x: x.slice_scatter(Tensor(np.ones((3, 2), np.float32)), 1, 0, 4, 2),
                      _t(lambda a: torch.slice_scatter(a, torch.ones(3, 2), 1, 0, 4, 2), X), [X]),
    "index_fill": (lambda x: x.index_fill(1, _i32(0, -1), -7.0),
                   _t(lambda a: a.index_fill(1, torch.tensor([0, 3]), -7.0), X), [X]),
    "inplace_update": (lambda x: x.inplace_update(Tensor(np.ones((2, 4), np.float32)), _i32(2, 0)),
                       _inplace_update(X, [2, 0], 1.0), [X]),
    "index_put": (lambda x: x.index_put((_i32(0, 2, -1), _i32(1, 1, -4)), Tensor(np.array([5., 6, 7], np.float32))),
                  _t(lambda a: a.index_put((torch.tensor([0, 2, -1]), torch.tensor([1, 1, -4])),
                                           torch.tensor([5., 6, 7])), X), [X]),
    "index_put_accumulate": (lambda x: x.index_put((_i64(0, 0, 1),), Tensor(np.array([1., 2, 3, 4], np.float32)), True),
                             _t(lambda a: a.index_put((torch.tensor([0, 0, 1]),), torch.tensor([1., 2, 3, 4]), True),
                                X), [X]),
    "masked_scatter": (lambda x, m, s: x.masked_scatter(m, s),
                       _t(lambda a, m, s: a.masked_scatter(m, s), X, MASK, SRC), [X, MASK, SRC]),
    "masked_scatter_broadcast": (lambda x, m, s: x.masked_scatter(m[0], s),
                                 _t(lambda a, m, s: a.masked_scatter(m, s), X, MASK[0], SRC), [X, MASK, SRC]),
    "scatter_sub": (lambda x: x.scatter_sub(Tensor(PAIRS), Tensor(np.array([2., 3, 4], np.float32))),
                    _at(np.subtract, X, PAIRS, np.array([2., 3, 4], np.float32)), [X]),
    "scatter_mul": (lambda x, u: x.scatter_mul(Tensor(ROWS), u), _at(np.multiply, X, ROWS, UPD), [X, UPD]),
    "scatter_div": (lambda x, u: x.scatter_div(Tensor(ROWS), u), _at(np.divide, X, ROWS, UPD), [X, UPD]),
    "scatter_max": (lambda x, u: x.scatter_max(Tensor(ROWS), u), _at(np.maximum, X, ROWS, UPD), [X, UPD]),
    "scatter_min": (lambda x, u: x.scatter_min(Tensor(ROWS), u), _at(np.minimum, X, ROWS, UPD), [X, UPD]),
    "unsorted_segment": (lambda w: (w.unsorted_segment_max(_i32(1, 0, 1), 2), w.unsorted_segment_min(_i32(1, 0, 1), 2),
                                    w.unsorted_segment_prod(_i32(1, 0, 1), 2)),
                         (_segments(np.maximum, W, [1, 0, 1], 2, -np.inf),
                          _segments(np.minimum, W, [1, 0, 1], 2, np.inf), _segments(np.multiply, W, [1, 0, 1], 2, 1)),
                         [W]),
}


def _flat(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


NO_ONNX_RULE = set()       # every method here lowers to ONNX


@pytest.mark.parametrize("backend", ["xla", "onnx"])
def test_methods_against_numpy_and_torch(backend):
    """Every case in one jitted function (one compilation), each checked by name: values,
    dtype and shape."""
    names = sorted(set(CASES) - (NO_ONNX_RULE if backend == "onnx" else set()))
    arrays = [a for n in names for a in CASES[n][2]]

    def every_case(*tensors):
        outs, at = [], 0
        for n in names:
            fn, _, inputs = CASES[n]
            outs.append(tuple(_flat(fn(*tensors[at:at + len(inputs)]))))
            at += len(inputs)
        return tuple(outs)

    for n, got in zip(names, ms.jit(every_case, backend=backend)(*[Tensor(a) for a in arrays])):
        want = _flat(CASES[n][1])
        assert len(got) == len(want), n
        for g, w in zip(got, want):
            g = g.asnumpy()
            assert g.shape == np.shape(w) and g.dtype == np.float32, (n, g.shape, g.dtype, np.shape(w))
            np.testing.assert_allclose(g, np.asarray(w, np.float32), rtol=2e-5, atol=2e-5, err_msg=n)


def test_results_measured_on_mindspore_2_10():
    """Read off MindSpore 2.10.0 (CPU), eagerly."""
    x = Tensor(X)
    a = Tensor(np.array([[4., 1, 0.5], [1, 3, 0.2], [0.5, 0.2, 2]], np.float32))
    b = Tensor(np.array([[1., 2], [0, 1], [3, -1]], np.float32))
    # lstsq(A) solves self @ X = A: a [3, 2] self and [3, 3] A give X [2, 3]
    np.testing.assert_allclose(b.lstsq(a).asnumpy(), [[0.70339, 0.24407, 0.64746], [1.53390, 0.84068, -0.02542]],
                               atol=1e-4)
    q, r = b.qr()
    assert q.shape == (3, 2) and r.shape == (2, 2)
    np.testing.assert_allclose(r.asnumpy(), [[-3.16228, 0.31623], [0.0, -2.42899]], atol=1e-4)
    q, r = b.qr(some=False)
    assert q.shape == (3, 3) and r.shape == (3, 2)
    sign, logabs = (-a).slogdet()
    assert sign.item() == -1.0 and abs(logabs.item() - 3.05824) < 1e-4
    assert np.isnan((-a).logdet().item()) and abs(a.det().item() - 21.29) < 1e-3
    # Tensor.scatter_<op> are the tensor_scatter_<op>s, returning a new Tensor
    rows = Tensor(np.array([[0], [2], [0]], np.int32))
    twos = Tensor(np.full((3, 4), 2., np.float32))
    assert x.scatter_div(rows, twos).asnumpy()[0].tolist() == [-1, -0.75, -0.5, -0.25]
    assert x.scatter_max(rows, twos).asnumpy()[0].tolist() == [2, 2, 2, 2]
    np.testing.assert_array_equal(x.asnumpy(), X)
    # index_put: negative indices count from the end; of repeated positions the last wins
    got = x.index_put((_i32(-1, 0, 0), _i32(-1, -4, -4)), Tensor(np.array([50., 60, 70], np.float32)))
    assert got.asnumpy()[0, 0] == 70 and got.asnumpy()[2, 3] == 50
    assert x.index_put((_i32(0, 2),), Tensor(np.array([5., 6, 7, 8], np.float32))).asnumpy()[2].tolist() == [5, 6, 7, 8]
    # masked_scatter casts the source to this Tensor's dtype; a uint8 mask is accepted
    got = Tensor(np.arange(4, dtype=np.int32)).masked_scatter(Tensor(np.array([1, 0, 1, 0], np.uint8)),
                                                             Tensor(np.array([9.7, 8.2])))
    assert got.dtype == ms.int32 and got.asnumpy().tolist() == [9, 1, 8, 3]
    assert x.index_fill(0, _i32(1), Tensor(3.5, ms.float32)).asnumpy()[1].tolist() == [3.5] * 4
    assert x.inplace_update(Tensor(np.ones((1, 4), np.float32)), _i32(-1)).asnumpy()[2].tolist() == [1] * 4
    maxima = Tensor(np.array([1, 5, 3], np.int32)).unsorted_segment_max(_i32(0, 0, 2), 3)
    assert maxima.asnumpy().tolist() == [5, -2147483648, 3]


def test_index_add_writes_this_tensor_in_both_forms():
    """MindSpore 2.10 PYNATIVE (measured): both forms of Tensor.index_add write the Tensor and
    return the result; (dim, index, source, *, alpha) adds source * alpha."""
    x = Tensor(X)
    out = x.index_add(_i32(0, 2), Tensor(np.ones((3, 2), np.float32)), 1)
    want = X.copy()
    want[:, [0, 2]] += 1
    np.testing.assert_array_equal(out.asnumpy(), want)
    np.testing.assert_array_equal(x.asnumpy(), want)
    y = Tensor(X)
    out = y.index_add(1, _i32(0, 2), Tensor(np.ones((3, 2), np.float32)), alpha=2)
    np.testing.assert_array_equal(out.asnumpy(), _t(lambda a: a.index_add(1, torch.tensor([0, 2]), torch.ones(3, 2),
                                                                        alpha=2), X))
    np.testing.assert_array_equal(y.asnumpy(), out.asnumpy())


def test_mindsporeS_refusals():
    x = Tensor(X)
    with pytest.raises(TypeError, match="the input type must be same"):
        x.index_put((_i32(0),), Tensor(np.array([1], np.int32)))
    with pytest.raises(ValueError, match="the rank of x2 must be equal to 1"):
        x.index_put((_i32(0),), Tensor(np.ones((1, 4), np.float32)))
    with pytest.raises(TypeError, match=r"must be a type of \{Tensor\[Int32\], Tensor\[Int64\]\}"):
        x.index_put((Tensor(np.array([True, False, True])),), Tensor(np.array([7.], np.float32)))
    with pytest.raises(ValueError, match=r"should be smaller than the value of x1.shape\[0\], but got 5"):
        x.index_put((_i32(5),), Tensor(np.array([7.], np.float32)))
    with pytest.raises(ValueError, match="number of elements of updates < number of ones in mask"):
        x.masked_scatter(x > 2, Tensor(np.arange(3, dtype=np.float32)))
    with pytest.raises(TypeError, match="mask must be a bool or uint8"):
        x.masked_scatter(Tensor(np.ones((3, 4), np.int32)), Tensor(SRC))
    with pytest.raises(ValueError, match="can not be broadcast"):
        x[0].masked_scatter(x > 5, Tensor(SRC))
    with pytest.raises(TypeError, match="must be a type of .*Float16.*but got Tensor\\[Int32\\]"):
        Tensor(np.zeros(3, np.int32)).log_normal()
    with pytest.raises(ValueError, match="reduce must be 'add' or 'multiply'"):
        x.scatter_(1, Tensor(IDX), 2.0, reduce="max")


# -- in place --------------------------------------------------------------------------------

INPLACE = {  # name: (call on a float32 [3, 4] Tensor, torch's new value of X)
    "index_add_": (lambda t: t.index_add_(1, _i64(0, 2, 0), Tensor(np.ones((3, 3), np.float32)), alpha=2),
                   _t(lambda a: a.index_add_(1, torch.tensor([0, 2, 0]), torch.ones(3, 3), alpha=2), X)),
    "index_copy_": (lambda t: t.index_copy_(1, _i64(3, 0), Tensor(W[:, :2].copy())),
                    _t(lambda a, w: a.index_copy_(1, torch.tensor([3, 0]), w), X, W[:, :2])),
    "index_fill_": (lambda t: t.index_fill_(0, _i64(2), -7.0),
                    _t(lambda a: a.index_fill_(0, torch.tensor(2), -7.0), X)),
    "index_put_": (lambda t: t.index_put_((_i64(0, 0, 2), _i64(1, 1, 3)), Tensor(np.array([1., 2, 3], np.float32)),
                                          True),
                   _t(lambda a: a.index_put_((torch.tensor([0, 0, 2]), torch.tensor([1, 1, 3])),
                                             torch.tensor([1., 2, 3]), True), X)),
    "masked_scatter_": (lambda t: t.masked_scatter_(Tensor(MASK), Tensor(SRC)),
                        _t(lambda a, m, s: a.masked_scatter_(m, s), X, MASK, SRC)),
    "put_": (lambda t: t.put_(_i64(1, 7), Tensor(np.array([9., 10], np.float32))),
             _t(lambda a: a.put_(torch.tensor([1, 7]), torch.tensor([9., 10])), X)),
    "put_accumulate": (lambda t: t.put_(_i64(1, 1, -1), Tensor(np.array([9., 10, 3], np.float32)), True),
                       _t(lambda a: a.put_(torch.tensor([1, 1, -1]), torch.tensor([9., 10, 3]), True), X)),
    "scatter_multiply": (lambda t: t.scatter_(1, Tensor(IDX), Tensor(UPD[:, :2].copy()), reduce="multiply"),
                         _t(lambda a, u: a.scatter_(1, torch.from_numpy(IDX), u, reduce="multiply"), X, UPD[:, :2])),
    "scatter_value_multiply": (lambda t: t.scatter_(1, Tensor(IDX), 3.0, reduce="multiply"),
                               _t(lambda a: a.scatter_(1, torch.from_numpy(IDX), 3.0, reduce="multiply"), X)),
    "index_add": (lambda t: (t.index_add(_i32(0, 2), Tensor(np.ones((3, 2), np.float32)), 1), t)[1],
                  _t(lambda a: a.index_add_(1, torch.tensor([0, 2]), torch.ones(3, 2)), X)),
}


@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_in_place_methods_write_the_tensor_and_return_it(mode):
    names = sorted(INPLACE) if mode == "jit" else ["index_put_", "masked_scatter_", "put_accumulate"]

    def run_all(x):
        outs = []
        for n in names:
            t = x * 1.0
            assert INPLACE[n][0](t) is t, n
            outs.append(t)
        return tuple(outs)

    fn = run_all if mode == "eager" else ms.jit(run_all)
    for n, got in zip(names, fn(Tensor(X))):
        np.testing.assert_allclose(got.asnumpy(), INPLACE[n][1], rtol=1e-6, err_msg=n)
        assert got.dtype == ms.float32, n


def test_a_parameters_in_place_scatter_updates_it_in_construct():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.p = Parameter(Tensor(np.zeros(4, np.float32)), name="p")

        def construct(self, v):
            self.p.index_put_((Tensor(np.array([1, 1, 3], np.int64)),), v, True)
            return self.p * 1.0

    net = Net()
    step = ms.jit(net.construct)
    np.testing.assert_array_equal(step(Tensor(np.array([1., 2, 3], np.float32))).asnumpy(), [0, 3, 0, 3])
    np.testing.assert_array_equal(step(Tensor(np.array([1., 2, 3], np.float32))).asnumpy(), [0, 6, 0, 6])
    np.testing.assert_array_equal(net.p.asnumpy(), [0, 6, 0, 6])


def test_gradients_match_torch():
    """d/d(x, source) of sum(w * x.masked_scatter(mask, source)) and of index_put with
    accumulate, against torch's autograd."""
    def f(x, s, v):
        y = x.masked_scatter(Tensor(MASK), s)
        z = x.index_put((_i64(0, 0, 2), _i64(1, 1, 3)), v, True)
        return (y * Tensor(W)).sum() + (z * z).sum()

    tx, ts, tv = (torch.from_numpy(a.copy()).requires_grad_() for a in (X, SRC, np.array([1., 2, 3], np.float32)))
    out = ((tx.masked_scatter(torch.from_numpy(MASK), ts) * torch.from_numpy(W)).sum()
           + (tx.index_put((torch.tensor([0, 0, 2]), torch.tensor([1, 1, 3])), tv, True) ** 2).sum())
    out.backward()
    got = ms.jit(ms.grad(f, (0, 1, 2)))(Tensor(X), Tensor(SRC), Tensor(np.array([1., 2, 3], np.float32)))
    for g, want in zip(got, (tx.grad, ts.grad, tv.grad)):
        np.testing.assert_allclose(g.asnumpy(), want.numpy(), rtol=1e-6)


def test_vmap_matches_a_loop():
    xs = RNG.uniform(-1, 1, (3, 3, 4)).astype(np.float32)
    masks = RNG.uniform(size=(3, 3, 4)) > 0.5

    def f(x, m):
        return x.masked_scatter(m, Tensor(SRC)) + x.index_put((_i32(0, 1),), Tensor(np.array([7.], np.float32)))

    got = ms.vmap(f)(Tensor(xs), Tensor(masks)).asnumpy()
    for i in range(3):
        np.testing.assert_allclose(got[i], f(Tensor(xs[i]), Tensor(masks[i])).asnumpy(), err_msg=str(i))


# -- random ----------------------------------------------------------------------------------

def test_random_fills_have_the_distributions_shapes_and_dtypes():
    ms.set_seed(7)
    n = 4000
    z = Tensor(np.zeros(n, np.float32))
    probs = Tensor(np.array([0., 1., 0., 1.], np.float64))
    assert probs.bernoulli().dtype == ms.float64 and probs.bernoulli().asnumpy().tolist() == [0, 1, 0, 1]
    t = Tensor(np.zeros(n, np.int32))
    assert t.bernoulli_(0.3) is t and t.dtype == ms.int32 and abs(t.asnumpy().mean() - 0.3) < 0.03
    c = z.cauchy(1.0, 2.0).asnumpy()
    assert abs(np.median(c) - 1.0) < 0.2 and abs((np.percentile(c, 75) - np.percentile(c, 25)) / 2 - 2.0) < 0.25
    assert Tensor(np.zeros(3, np.int32)).cauchy().dtype == ms.int32 and z.cauchy().shape == (n,)
    logs = np.log(Tensor(np.zeros(n, np.float64)).log_normal().asnumpy())
    assert abs(logs.mean() - 1.0) < 0.1 and abs(logs.std() - 2.0) < 0.1
    e = Tensor(np.zeros(n, np.float16))
    assert e.exponential_(2) is e and e.dtype == ms.float16
    assert e.asnumpy().min() >= 0 and abs(e.asnumpy().astype(np.float64).mean() - 0.5) < 0.05
    r = Tensor(np.zeros(n, np.float32)).random_(3, 6).asnumpy()
    assert set(np.unique(r).tolist()) == {3.0, 4.0, 5.0}
    r = Tensor(np.zeros(n, np.int8)).random_(100).asnumpy()
    assert r.min() == 100 and r.max() == 127                       # `to` None: the dtype's largest value
    r = Tensor(np.zeros(n, np.int64)).random_().asnumpy()
    assert r.min() >= 0 and r.max() > 2 ** 62
    assert set(np.unique(Tensor(np.zeros(50, np.bool_)).random_().asnumpy()).tolist()) == {False, True}


def test_random_fills_under_jit_follow_the_seed():
    def draw(x):
        y = x * 1.0
        y.exponential_()
        return y, x.cauchy(), x.log_normal(0.0, 0.5), (x * 1.0).random_(0, 10), x.bernoulli_(0.5)

    fn = ms.jit(draw)
    ms.set_seed(3)
    first = [o.asnumpy() for o in fn(Tensor(np.zeros(64, np.float32)))]
    ms.set_seed(3)
    again = [o.asnumpy() for o in fn(Tensor(np.zeros(64, np.float32)))]
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    assert len({a.tobytes() for a in first[:3]}) == 3                 # distinct draws
    assert first[3].min() >= 0 and first[3].max() <= 9 and np.all(first[3] == np.floor(first[3]))


def test_random_fill_refusals():
    with pytest.raises(TypeError, match="fills a floating-point Tensor"):
        Tensor(np.zeros(3, np.int32)).exponential_()
    with pytest.raises(RuntimeError, match="'from' to be less than 'to'"):
        Tensor(np.zeros(3, np.float32)).random_(5, 5)
    with pytest.raises(TypeError, match="must be an integer"):
        Tensor(np.zeros(3, np.float32)).random_(0.5, 3)
    with pytest.raises(TypeError, match="'generator' must be a mindspore Generator"):
        Tensor(np.zeros(3, np.float32)).bernoulli_(generator=object())


def test_random_fills_draw_from_a_generator():
    """bernoulli_, exponential_ and random_ take `generator=`: a reseeded Generator repeats
    its draws, and the default stream is left where it was."""
    def draws(gen):
        t = Tensor(np.zeros((4, 5), np.float32))
        return [t.bernoulli_(0.3, generator=gen).asnumpy().copy(), t.exponential_(2.0, generator=gen).asnumpy().copy(),
                t.random_(0, 7, generator=gen).asnumpy().copy(), t.bernoulli(generator=gen).asnumpy().copy()]
    ms.set_seed(3)
    before = ops.uniform((3,)).asnumpy()
    ms.set_seed(3)
    first, second = draws(ms.Generator().manual_seed(11)), draws(ms.Generator().manual_seed(11))
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(ops.uniform((3,)).asnumpy(), before)
    assert set(np.unique(first[0])) <= {0.0, 1.0} and (first[1] > 0).all() and set(np.unique(first[2])) <= set(range(7))

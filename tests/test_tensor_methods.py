"""MindSpore 2.10's Tensor methods from graphcell/tensor_methods.py: values against numpy and
torch, eagerly and under jit; results measured on MindSpore 2.10 (CPU); in-place methods
eagerly, in a jitted function, on Parameters in construct, and under grad."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
import torch

import graphcell as ms
from graphcell import Parameter, Tensor, nn, ops

RNG = np.random.default_rng(3)
X = RNG.uniform(-3, 3, (3, 4)).astype(np.float32)
P = RNG.uniform(0.5, 2, (3, 4)).astype(np.float32)          # positive
I = np.array([[7, -7, 6, 0], [5, -5, 0, 9], [-9, 3, -3, 1]], np.int32)
V = RNG.uniform(-1, 1, (4,)).astype(np.float32)
B1 = RNG.uniform(-1, 1, (2, 3, 4)).astype(np.float32)
B2 = RNG.uniform(-1, 1, (2, 4, 3)).astype(np.float32)
NAN = np.array([[1., np.nan, 3., 2.], [np.nan, np.nan, 1., 5.], [4., 4., np.nan, 0.]], np.float32)
IDX = np.array([[0, 2], [3, 1], [1, 1]], np.int64)


def _t(fn, *args):
    return fn(*[torch.from_numpy(a) for a in args]).numpy()


def _fill_diagonal(a, value):
    out = a.copy()
    np.fill_diagonal(out, value, wrap=True)
    return out


CASES = {  # name: (method call, reference, inputs)
    "sigmoid": (lambda x: x.sigmoid(), _t(torch.sigmoid, X), [X]),
    "tanh_cos_sin": (lambda x: x.tanh() + x.cos() * x.sin(), np.tanh(X) + np.cos(X) * np.sin(X), [X]),
    "log1p_expm1": (lambda p: p.log1p() - p.expm1(), np.log1p(P) - np.expm1(P), [P]),
    "rsqrt_reciprocal": (lambda p: p.rsqrt() + p.reciprocal(), 1 / np.sqrt(P) + 1 / P, [P]),
    "erf": (lambda x: x.erf(), _t(torch.erf, X), [X]),
    "neg_int": (lambda i: i.negative(), -I, [I]),
    "softmax": (lambda x: x.softmax(0), _t(lambda a: torch.softmax(a, 0), X), [X]),
    "clamp": (lambda x: x.clamp(-1, 0.5), np.clip(X, -1, 0.5), [X]),
    "clamp_int_float_bounds": (lambda i: i.clamp(0.5, 2.5), np.clip(I, 0.5, 2.5).astype(np.float32), [I]),
    "comparisons": (lambda x, p: x.gt(p).logical_xor(x.le(0)).logical_or(x.eq(p)), (X > P) ^ (X <= 0), [X, P]),
    "maximum_int_float": (lambda i: i.maximum(0.5), np.maximum(I, 0.5).astype(np.float32), [I]),
    "bitwise": (lambda i: i.bitwise_and(6).bitwise_xor(i.bitwise_or(1)), (I & 6) ^ (I | 1), [I]),
    "invert": (lambda i: i.invert(), ~I, [I]),
    "remainder_int": (lambda i: i.remainder(4), I % 4, [I]),
    "fmod_int": (lambda i: i.fmod(4), np.fmod(I, 4), [I]),
    "floor_divide": (lambda x: x.floor_divide(0.7), np.floor_divide(X, np.float32(0.7)), [X]),
    "divide_int": (lambda i: i.divide(4), (I / 4).astype(np.float32), [I]),
    "divide_trunc": (lambda i: i.divide(4, rounding_mode="trunc"), np.trunc(I / 4).astype(np.int32), [I]),
    "subtract_alpha": (lambda x, p: x.subtract(p, alpha=2), X - 2 * P, [X, P]),
    "multiply": (lambda i: i.multiply(1.5), (I * 1.5).astype(np.float32), [I]),
    "true_divide": (lambda x, p: x.true_divide(p), X / P, [X, P]),
    "xdivy": (lambda x, p: (x * (x > 0)).xdivy(p - 1), np.where(X > 0, X / (P - 1), 0).astype(np.float32), [X, P]),
    "isclose": (lambda x, p: x.isclose(x + p * 1e-6) & ~x.isclose(p), np.isclose(X, X + P * 1e-6) & ~np.isclose(X, P),
                [X, P]),
    "where": (lambda x, p: x.where(x > 0, p), np.where(X > 0, X, P), [X, P]),
    "select_condition": (lambda x: x.select(x > 0, 0.0), np.where(X > 0, X, 0), [X]),
    "select_dim_index": (lambda x: x.select(1, -2), X[:, -2], [X]),
    "take_clip": (lambda x: x.take(Tensor(np.array([-1, -20, 30, 4]))), X.ravel()[[-1, 0, -1, 4]], [X]),
    "take_wrap_axis": (lambda x: x.take(Tensor(np.array([[5, -1]])), axis=1, mode="wrap"), np.take(X, [[5, -1]], 1,
                                                                                                     mode="wrap"), [X]),
    "choose": (lambda i, x, p: (i % 2).choose([x, p]), np.choose(I % 2, [X, P]), [I, X, P]),
    "permute": (lambda b: b.permute(2, 0, 1) + b.permute((2, 0, 1)), 2 * B1.transpose(2, 0, 1), [B1]),
    "moveaxis": (lambda b: b.moveaxis((0, 1), (2, 0)), np.moveaxis(B1, (0, 1), (2, 0)), [B1]),
    "broadcast_to": (lambda v: v.broadcast_to(2, -1, 4), np.broadcast_to(V, (2, 3, 4)), [V[None].repeat(3, 0)]),
    "reshape_view_as": (lambda x, b: x.reshape_as(b[0].mT) + x.view_as(b[1].mT), 2 * X.reshape(4, 3), [X, B1]),
    "type_as": (lambda i, x: i.type_as(x), I.astype(np.float32), [I, X]),
    "mT": (lambda b: b.mT, B1.swapaxes(-1, -2), [B1]),
    "sum_to_size": (lambda b: b.sum_to_size(3, 1), B1.sum((0, 2))[:, None], [B1]),
    "resize": (lambda x: x.resize(2, 7), np.concatenate([X.ravel(), np.zeros(2, np.float32)]).reshape(2, 7), [X]),
    "reverse": (lambda x: x.reverse([1]), X[:, ::-1], [X]),
    "dsplit": (lambda b: b.dsplit(2)[1], np.dsplit(B1, 2)[1], [B1]),
    "bmm": (lambda a, b: a.bmm(b), B1 @ B2, [B1, B2]),
    "addmm": (lambda x, a, b: x[:, :3].addmm(a[0], b[0], beta=2, alpha=0.5), 2 * X[:, :3] + 0.5 * B1[0] @ B2[0],
              [X, B1, B2]),
    "addbmm": (lambda x, a, b: x[:, :3].addbmm(a, b, beta=0.5),
               _t(lambda m, p, q: torch.addbmm(m, p, q, beta=0.5), X[:, :3].copy(), B1, B2), [X, B1, B2]),
    "baddbmm": (lambda a, b: a[:, :, :3].baddbmm(a, b, alpha=2), B1[:, :, :3] + 2 * B1 @ B2, [B1, B2]),
    "addmv_addr": (lambda x, v: x[:, 0].addmv(x, v, alpha=2)[:, None] + x[:, :3].addr(x[:, 0], x[0, :3], 2, 3),
                   (X[:, 0] + 2 * X @ V)[:, None] + 2 * X[:, :3] + 3 * np.outer(X[:, 0], X[0, :3]), [X, V]),
    "outer_ger_inner": (lambda v, x: v.outer(v) + v.ger(v) + x.inner(v)[0], 2 * np.outer(V, V) + (X @ V)[0], [V, X]),
    "dot_cross": (lambda v, b: v.dot(v) + b[0, :, :3].cross(b[1, :, :3], dim=1),
                  V @ V + np.cross(B1[0, :, :3], B1[1, :, :3]), [V, B1]),
    "diag_diagonal": (lambda v, x: v.diag()[:3] + x.diagonal(1)[:, None], np.diag(V)[:3] + np.diagonal(X, 1)[:, None],
                      [V, X]),
    "diagflat": (lambda x: x[:2, :2].diagflat(-1), np.diagflat(X[:2, :2], -1), [X]),
    "fill_diagonal": (lambda x: x.fill_diagonal(9.0, wrap=True), _fill_diagonal(X.T, 9.0), [X.T.copy()]),
    "amax_amin_ptp": (lambda x: x.amax(1) - x.amin(1) + x.ptp(0, True)[0, :3], X.max(1) - X.min(1) + np.ptp(X, 0)[:3],
                      [X]),
    "ptp_int": (lambda i: i.ptp(), np.ptp(I), [I]),
    "logsumexp": (lambda x: x.logsumexp(1, True), _t(lambda a: torch.logsumexp(a, 1, True), X), [X]),
    "count_nonzero": (lambda i: i.count_nonzero(1), np.count_nonzero(I, 1).astype(np.int32), [I]),
    "msort": (lambda x: x.msort(), np.sort(X, 0), [X]),
    "kthvalue": (lambda x: x.kthvalue(2, 0)[0], _t(lambda a: torch.kthvalue(a, 2, 0)[0], X), [X]),
    "kthvalue_index": (lambda x: x.kthvalue(3, keepdim=True)[1], _t(lambda a: torch.kthvalue(a, 3, 1, True)[1], X),
                       [X]),
    "nanmedian": (lambda n: n.nanmedian()[0], _t(lambda a: torch.nanmedian(a, -1)[0], NAN), [NAN]),
    "nanmedian_index": (lambda n: n.nanmedian(0)[1], _t(lambda a: torch.nanmedian(a, 0)[1], NAN), [NAN]),
    "argmax_with_value": (lambda x: x.argmax_with_value(1)[1], X.argmax(1), [X]),
    "new_full": (lambda i: i.new_full((2,), 3) + i.new_ones(2) - i.new_zeros((2,)), np.full(2, 4, np.int32), [I]),
    "clone": (lambda x: x.clone(), X, [X]),
}


def test_methods_against_numpy_and_torch():
    """Every case in one jitted function (one compilation; the methods are the same calls
    eagerly, which test_results_measured_on_mindspore_2_10 runs), each checked by name:
    values, dtype and shape."""
    names = sorted(CASES)
    arrays = [a for n in names for a in CASES[n][2]]

    def every_case(*tensors):
        outs, at = [], 0
        for n in names:
            fn, _, inputs = CASES[n]
            outs.append(fn(*tensors[at:at + len(inputs)]))
            at += len(inputs)
        return tuple(outs)

    for n, got in zip(names, ms.jit(every_case)(*[Tensor(a) for a in arrays])):
        want, got = np.asarray(CASES[n][1]), got.asnumpy()
        assert got.shape == want.shape and got.dtype == want.dtype, (n, got.shape, got.dtype, want.shape, want.dtype)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=n)


def test_results_measured_on_mindspore_2_10():
    """Read off MindSpore 2.10.0 (CPU)."""
    f = Tensor(np.array([[1.5, -2., 3.], [4., 0., -6.5]], np.float32))
    i = Tensor(np.array([[1, -2, 3], [4, 0, -6]], np.int32))
    assert f.take(Tensor(np.array([-10, -6, -7, 9], np.int32))).asnumpy().tolist() == [1.5, 1.5, 1.5, -6.5]
    assert f.take(Tensor(np.array([-1, -4], np.int32)), axis=1).asnumpy().tolist() == [[3.0, 1.5], [-6.5, 4.0]]
    assert Tensor(np.array([0, 5, -1, 1], np.int32)).choose(
        [Tensor(np.array([10., 11, 12, 13], np.float32)), Tensor(np.array([20., 21, 22, 23], np.float32))]
    ).asnumpy().tolist() == [10.0, 21.0, 12.0, 23.0]
    values, index = Tensor(np.array([2., 1., 2., 1.], np.float32)).nanmedian()
    assert (values.item(), index.item(), index.dtype) == (1.0, 3, ms.int64)
    values, index = Tensor(np.array([[1., np.nan, 3., 2.], [np.nan, np.nan, 1., 5.]], np.float32)).nanmedian(0, True)
    np.testing.assert_array_equal(values.asnumpy(), [[1.0, np.nan, 1.0, 2.0]])
    assert index.asnumpy().tolist() == [[0, 0, 1, 0]]
    assert i.nanmedian()[0].asnumpy().tolist() == [1, 0] and i.nanmedian()[0].dtype == ms.int32
    assert Tensor(np.zeros((5, 2), np.float32)).fill_diagonal(5.0, wrap=True).asnumpy().tolist() == \
        [[5, 0], [0, 5], [0, 0], [5, 0], [0, 5]]
    assert Tensor(np.zeros((2, 2), np.int32)).fill_diagonal(1.7).asnumpy().tolist() == [[1, 0], [0, 1]]
    assert i.sum_to_size(3).dtype == ms.int64 and i.sum_to_size(3).asnumpy().tolist() == [5, -2, -3]
    assert i.ptp().dtype == ms.int32 and i.ptp().item() == 10
    assert Tensor(np.array([2, 1, -1], np.int32)).inv().asnumpy().tolist() == [0, 1, -1]
    assert f.count_nonzero().dtype == ms.int32 and f.count_nonzero(axis=1, dtype=ms.float32).dtype == ms.float32
    values, index = f.argmax_with_value()
    assert values.asnumpy().tolist() == [4.0, 0.0, 3.0] and index.dtype == ms.int64
    assert f.type() == "Float32" and i.byte().asnumpy().tolist() == [[1, 254, 3], [4, 0, 250]]
    unsigned, boolean = Tensor(np.array([1], np.uint8)), Tensor([True])
    assert (i.is_signed(), unsigned.is_signed(), boolean.is_signed()) == (True, False, False)
    assert (f.is_floating_point(), i.is_floating_point(), f.is_complex(), f.ndimension()) == (True, False, False, 2)
    assert i.new_zeros(3).dtype == ms.int32 and i.new_zeros((2,), ms.float16).dtype == ms.float16
    y = Tensor(np.array([[1., 2.], [3., 4.]], np.float32))
    assert y.itemset(3, 8).asnumpy().tolist() == [[1, 2], [3, 8]] and y.itemset((0, 1), 9).asnumpy()[0, 1] == 9
    assert y.resize((3,)).asnumpy().tolist() == [1, 2, 3] and y.asnumpy().tolist() == [[1, 2], [3, 4]]


def test_mindsporeS_refusals():
    f = Tensor(X)
    with pytest.raises(NotImplementedError, match='"raise" mode is not implemented'):
        f.take(Tensor(np.array([0])), mode="raise")
    with pytest.raises(ValueError, match="at least one of 'min' and 'max'"):
        f.clamp()
    with pytest.raises(ValueError, match="'diagonal' should be '0'"):
        Tensor(V).diag(1)
    with pytest.raises(ValueError, match="only 2-D Tensor is supported"):
        Tensor(B1).H
    with pytest.raises(ValueError, match="all dimensions equal"):
        Tensor(B1).fill_diagonal(1.0)
    with pytest.raises(ValueError, match="not expandable"):
        f.sum_to_size(2, 4)


# -- in place --------------------------------------------------------------------------------

INPLACE = {  # name: (call, numpy's new value of X)
    "add_": (lambda t: t.add_(Tensor(V), alpha=2), X + 2 * V),
    "sub_": (lambda t: t.sub_(1.5), X - 1.5),
    "mul_div_": (lambda t: t.mul_(3).div_(2), X * 3 / 2),
    "floor_divide_remainder_": (lambda t: t.floor_divide_(0.5).remainder_(3), np.floor_divide(X, 0.5) % 3),
    "clamp_": (lambda t: t.clamp_(-1, 1), np.clip(X, -1, 1)),
    "exp_log_": (lambda t: t.exp_().log_(), X),
    "floor_sign_": (lambda t: t.floor_().sign_(), np.sign(np.floor(X))),
    "sigmoid_tanh_": (lambda t: t.sigmoid_().tanh_(), np.tanh(1 / (1 + np.exp(-X)))),
    "erfinv_": (lambda t: t.clamp_(-0.9, 0.9).erfinv_(), torch.erfinv(torch.from_numpy(np.clip(X, -0.9, 0.9))).numpy()),
    "fill_zero_": (lambda t: t.fill_(2.5).add_(t.zero_()), np.zeros_like(X)),
    "copy_": (lambda t: t.copy_(Tensor(V.astype(np.float64))), np.broadcast_to(V, X.shape)),
    "masked_fill_": (lambda t: t.masked_fill_(t > 0, -1.0), np.where(X > 0, -1, X)),
    "scatter_": (lambda t: t.scatter_(1, Tensor(IDX), Tensor(V[:2] + np.zeros((3, 2), np.float32))),
                 _t(lambda a, s: a.scatter(1, torch.from_numpy(IDX), s), X, V[:2] + np.zeros((3, 2), np.float32))),
    "scatter_add_": (lambda t: t.scatter_add_(1, Tensor(IDX), Tensor(np.ones((3, 2), np.float32))),
                     _t(lambda a, s: a.scatter_add(1, torch.from_numpy(IDX), s), X, np.ones((3, 2), np.float32))),
    "scatter_value_add": (lambda t: t.scatter_(1, Tensor(IDX), 2.0, reduce="add"),
                          _t(lambda a: a.scatter(1, torch.from_numpy(IDX), 2.0, reduce="add"), X)),
    "addmm_": (lambda t: t.addmm_(Tensor(B1[0, :, :3]), Tensor(B1[1]), alpha=0.5), X + 0.5 * B1[0, :, :3] @ B1[1]),
    "fill_diagonal_": (lambda t: t.fill_diagonal_(7.0), _fill_diagonal(X, 7.0)),
}


@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_in_place_methods_write_the_tensor_and_return_it(mode):
    """All of them traced (one compilation); a few eagerly (each eager op compiles once)."""
    names = sorted(INPLACE) if mode == "jit" else ["add_", "clamp_", "copy_", "masked_fill_", "scatter_"]

    def run_all(x):
        outs = []
        for n in names:
            t = x * 1.0                          # a Tensor made here, written in place
            returned = INPLACE[n][0](t)
            assert returned is t, n              # in-place methods return the Tensor itself
            outs.append(t)
        return tuple(outs)

    fn = run_all if mode == "eager" else ms.jit(run_all)
    for n, got in zip(names, fn(Tensor(X))):
        np.testing.assert_allclose(got.asnumpy(), INPLACE[n][1], rtol=1e-5, atol=1e-5, err_msg=n)
        assert got.dtype == ms.float32, n


def test_in_place_keeps_the_dtype_and_shape():
    """MindSpore 2.10's graph mode (measured): an int32 Tensor's add_(1.5) stays int32,
    truncated; a result that would broadcast the Tensor itself is refused."""
    i = Tensor(np.array([1, 2, 3], np.int32))
    assert i.add_(1.5) is i and i.dtype == ms.int32 and i.asnumpy().tolist() == [2, 3, 4]
    with pytest.raises(ValueError, match=r"add_: the result has shape \[2, 3\] but this Tensor has \[3\]"):
        Tensor(V[:3]).add_(Tensor(np.ones((2, 3), np.float32)))
    a = Tensor(X)
    b = a.clone()
    b.zero_()
    assert np.array_equal(a.asnumpy(), X) and not b.asnumpy().any()


def test_a_parameters_in_place_method_updates_it_eagerly_and_in_construct():
    """MindSpore 2.10 graph mode (measured): self.p.add_(x) in construct updates the Parameter,
    and the method returns it."""
    p = Parameter(Tensor(np.array([1., 2., 3.], np.float32)), name="p")
    assert p.mul_(2) is p and p.asnumpy().tolist() == [2, 4, 6]
    assert p.requires_grad_(False) is p and not p.requires_grad

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.p = Parameter(Tensor(np.array([1., 2., 3.], np.float32)), name="p")

        def construct(self, x):
            return self.p.add_(x).clamp_(max=3.5) * 1.0

    net = Net()
    step = ms.jit(net.construct)
    np.testing.assert_allclose(step(Tensor(np.ones(3, np.float32))).asnumpy(), [2, 3, 3.5])
    np.testing.assert_allclose(net.p.asnumpy(), [2, 3, 3.5])
    np.testing.assert_allclose(step(Tensor(np.ones(3, np.float32))).asnumpy(), [3, 3.5, 3.5])


def test_in_place_under_grad_matches_jax():
    """d/dx sum(sigmoid(x*x + 2x) clipped): in-place steps differentiate as their values do."""
    def f(x):
        y = x * 1.0
        y.mul_(x).add_(x, alpha=2).sigmoid_()
        return y.clamp_(0.2, 0.9).sum()

    def ref(x):
        return jnp.sum(jnp.clip(jax.nn.sigmoid(x * x + 2 * x), 0.2, 0.9))

    x = X.astype(np.float64)
    want = np.asarray(jax.grad(ref)(x))
    np.testing.assert_allclose(ms.grad(f)(Tensor(x)).asnumpy(), want, rtol=1e-12)
    np.testing.assert_allclose(ms.jit(ms.grad(f))(Tensor(x)).asnumpy(), want, rtol=1e-12)
    np.testing.assert_allclose(ms.vmap(lambda r: r * 1.0 + r.clone().exp_())(Tensor(X)).asnumpy(), X + np.exp(X),
                               rtol=1e-6)


def test_in_place_on_a_tensor_closed_over_by_a_branch_is_a_clear_error():
    def f(x):
        y = x * 1.0

        def branch(a):
            y.add_(1.0)
            return a
        return ops.cond(x.sum() > 0, branch, lambda a: a, x) + y
    with pytest.raises(RuntimeError, match="add_ inside a traced function, branch or loop body writes a Tensor"):
        ms.jit(f)(Tensor(np.ones(3, np.float32)))


def test_random_fills():
    ms.set_seed(5)
    t = Tensor(np.zeros((200,), np.float64))
    assert t.uniform_(2, 3) is t and t.dtype == ms.float64
    values = t.asnumpy()
    assert values.min() >= 2 and values.max() < 3 and values.std() > 0.2
    values = t.normal_(10, 0.5).asnumpy()
    assert abs(values.mean() - 10) < 0.2 and 0.4 < values.std() < 0.6
    fresh = Tensor(np.zeros((3, 2), np.float32)).uniform(-1.0, 1.0)
    assert fresh.shape == (3, 2) and fresh.dtype == ms.float32 and np.abs(fresh.asnumpy()).max() <= 1
    with pytest.raises(TypeError, match="fills a floating-point Tensor"):
        Tensor(I).uniform_()
    with pytest.raises(TypeError, match="'generator' must be a mindspore Generator"):
        t.normal_(generator=object())

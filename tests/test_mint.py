"""graphcell.mint (mindspore.mint's top-level functions, mint.linalg, mint.special) against
torch, which mint mirrors: each case is one function of a module (`mint` or `torch`) and its
Tensors, run on both and compared in value and dtype. Where MindSpore 2.10 differs from torch,
the measured MindSpore literal is the reference. A table of the cases runs under jit (XLA) and
through ONNX in one compilation each, and a few differentiable ones under grad against torch's."""
import numpy as np
import pytest
import torch

import graphcell as ms
from graphcell import Tensor, mint

from tests.modes import run_table

RNG = np.random.default_rng(3)
X = RNG.uniform(-2, 2, (3, 4)).astype(np.float32)
Y = RNG.uniform(0.5, 2, (3, 4)).astype(np.float32)
I = np.array([[1, -2, 4, 0], [-3, 5, -6, 7], [2, 2, -1, 3]], np.int32)
V = np.array([1.0, -2.0, 0.5], np.float32)
S = np.array([[2.0, 1, 0], [1, 3, 1], [0, 1, 4]], np.float32)
U = np.triu(S) + np.eye(3, dtype=np.float32)
B = RNG.uniform(-1, 1, (2, 3, 3)).astype(np.float32)
IDX = np.array([[0, 1, 2, 0], [3, 3, 1, 0], [2, 0, 0, 1]], np.int64)
P = np.array([[0.1, 0.9, 0.0], [0.5, 0.5, 1.0]], np.float32)

F64 = {mint: ms.float64, torch: torch.float64}

# name: (fn(module, *tensors), input arrays[, torch's fn where its name or form differs])
CASES = {
    "add_alpha": (lambda m, a, b: m.add(a, b, alpha=2), [X, Y]),
    "sub_alpha": (lambda m, a, b: m.sub(a, b, alpha=0.5), [X, Y]),
    "add_int_float": (lambda m, a: m.add(a, 2.5), [I]),
    "addcdiv": (lambda m, a, b, c: m.addcdiv(a, b, c, value=2), [X, X, Y]),
    "addcmul": (lambda m, a, b, c: m.addcmul(a, b, c, value=-1), [X, X, Y]),
    "div_int": (lambda m, a: m.div(a, 4), [I]),
    "div_floor": (lambda m, a: m.div(a, 4, rounding_mode="floor"), [I]),
    "div_trunc": (lambda m, a, b: m.div(a, b, rounding_mode="trunc"), [X, Y]),
    "remainder": (lambda m, a: m.remainder(a, 3), [I]),
    "fmod": (lambda m, a: m.fmod(a, 3), [I]),
    "floor_divide": (lambda m, a: m.floor_divide(a, 3), [I]),
    "float_power": (lambda m, a: m.float_power(a, 2), [I]),
    "clamp": (lambda m, a: m.clamp(a, min=-1, max=0.5), [X]),
    "clamp_int_float": (lambda m, a: m.clamp(a, -2, 2.5), [I]),
    "exp_int": (lambda m, a: m.exp(m.div(a, 4)), [I]),
    "sqrt": (lambda m, a: m.sqrt(a), [Y]),
    "frac": (lambda m, a: m.frac(a), [X]),
    "fix": (lambda m, a: m.fix(a), [X]),
    "lerp": (lambda m, a, b: m.lerp(a, b, 0.25), [X, Y]),
    "xlogy": (lambda m, a, b: m.xlogy(a, b), [X, Y]),
    "logaddexp2": (lambda m, a, b: m.logaddexp2(a, b), [X, Y]),
    "atan2": (lambda m, a, b: m.atan2(a, b), [X, Y]),
    "sinc": (lambda m, a: m.sinc(a), [X]),
    "sigmoid": (lambda m, a: m.sigmoid(a), [X]),
    "rsqrt": (lambda m, a: m.rsqrt(a), [Y]),
    "erfinv": (lambda m, a: m.erfinv(m.div(a, 3)), [X]),
    "round": (lambda m, a: m.round(m.mul(a, 2)), [X]),
    "sign": (lambda m, a: m.sign(a), [I]),
    "bitwise_and": (lambda m, a, b: m.bitwise_and(a, b), [I, I[::-1].copy()]),
    "bitwise_not": (lambda m, a: m.bitwise_not(a), [I]),
    "isclose": (lambda m, a, b: m.isclose(a, b, rtol=0.1), [X, Y]),
    "softmax": (lambda m, a: m.softmax(a, 1), [X]),
    "softmax_ext": (lambda m, a: m.softmax_ext(a), [X], lambda m, a: m.softmax(a, -1)),
    "gt": (lambda m, a, b: m.gt(a, b), [X, Y]),
    "logical_xor": (lambda m, a, b: m.logical_xor(a, b), [I, X]),
    # reductions
    "sum_int": (lambda m, a: m.sum(a, dim=1), [I]),
    "sum_keep": (lambda m, a: m.sum(a, 0, keepdim=True, dtype=F64[m]), [X]),
    "mean": (lambda m, a: m.mean(a, (0, 1)), [X]),
    "prod_int": (lambda m, a: m.prod(a, 1), [I]),
    "nansum": (lambda m, a: m.nansum(a, 0), [X]),
    "all": (lambda m, a: m.all(a, 1), [I]),
    "any_keep": (lambda m, a: m.any(a, 0, keepdim=True), [I]),
    "amax": (lambda m, a: m.amax(a, 1), [X]),
    "amin_all": (lambda m, a: m.amin(a), [X], lambda m, a: m.amin(a, (0, 1))),
    "argmax": (lambda m, a: m.argmax(a, dim=1, keepdim=True), [X]),
    "argmin_all": (lambda m, a: m.argmin(a), [X]),
    "max_all": (lambda m, a: m.max(a), [X]),
    "max_dim": (lambda m, a: tuple(m.max(a, 1)), [X]),
    "min_dim": (lambda m, a: tuple(m.min(a, dim=0, keepdim=True)), [I]),
    "max_other": (lambda m, a, b: m.max(a, b), [X, Y]),
    "median_all": (lambda m, a: m.median(a), [X]),
    "median_dim": (lambda m, a: tuple(m.median(a, 1)), [X]),
    "kthvalue": (lambda m, a: tuple(m.kthvalue(a, 2, 1)), [X]),
    "logsumexp": (lambda m, a: m.logsumexp(a, 1), [X]),
    "std": (lambda m, a: m.std(a, 1), [X]),
    "var_c0": (lambda m, a: m.var(a, 0, correction=0, keepdim=True), [X]),
    "std_mean": (lambda m, a: tuple(m.std_mean(a, 1)), [X]),
    "var_mean": (lambda m, a: tuple(m.var_mean(a)), [X]),
    "count_nonzero": (lambda m, a: m.count_nonzero(a, 1), [I]),
    "cumsum_int": (lambda m, a: m.cumsum(a, 1), [I]),
    "cumprod": (lambda m, a: m.cumprod(a, 0), [X]),
    "cummax": (lambda m, a: tuple(m.cummax(a, 1)), [X]),
    "cummin": (lambda m, a: tuple(m.cummin(a, 0)), [I]),
    "diff": (lambda m, a: m.diff(a, 2, 1), [X]),
    "norm": (lambda m, a: m.norm(a), [X]),
    "norm_p1": (lambda m, a: m.norm(a, 1, 1), [X]),
    # layout
    "cat": (lambda m, a, b: m.cat((a, b), 1), [X, Y]),
    "stack": (lambda m, a, b: m.stack([a, b], dim=-1), [X, Y]),
    "chunk": (lambda m, a: tuple(m.chunk(a, 3, 1)), [X]),
    "split": (lambda m, a: tuple(m.split(a, [1, 3], 1)), [X]),
    "flatten": (lambda m, a: m.flatten(a, 1), [B]),
    "meshgrid": (lambda m, a, b: m.meshgrid(a, b[0]), [V, Y], lambda m, a, b: m.meshgrid(a, b[0], indexing="ij")),
    "narrow": (lambda m, a: m.narrow(a, 1, 1, 2), [X]),
    "permute": (lambda m, a: m.permute(a, (2, 0, 1)), [B]),
    "repeat_interleave": (lambda m, a: m.repeat_interleave(a, 2, dim=0), [X]),
    "reshape": (lambda m, a: m.reshape(a, (4, 3)), [X]),
    "roll": (lambda m, a: m.roll(a, 1, 1), [X]),
    "select": (lambda m, a: m.select(a, 1, -1), [X]),
    "squeeze": (lambda m, a: m.squeeze(m.unsqueeze(a, 1), 1), [X]),
    "transpose": (lambda m, a: m.transpose(a, 0, 2), [B]),
    "t": (lambda m, a: m.t(a), [X]),
    "tile": (lambda m, a: m.tile(a, (2, 1)), [X]),
    "tril": (lambda m, a: m.tril(a, -1), [X]),
    "flip": (lambda m, a: m.flip(a, (0, 1)), [X]),
    "unbind": (lambda m, a: tuple(m.unbind(a, 1)), [X]),
    "hstack": (lambda m, a, b: m.hstack([a, b]), [X, Y]),
    # indexing and sorting
    "gather": (lambda m, a, i: m.gather(a, 1, m.remainder(i, 4)), [X, IDX]),
    "index_select": (lambda m, a, i: m.index_select(a, 1, i[0]), [X, IDX]),
    "index_add": (lambda m, a, i, b: m.index_add(a, 1, i[0][:2], b[:, :2], alpha=2), [X, IDX, Y]),
    "scatter": (lambda m, a, i, b: m.scatter(a, 0, i[:, :1] % 3, b[:, :1]), [X, IDX, Y]),
    "scatter_add": (lambda m, a, i, b: m.scatter_add(a, 1, i % 4, b), [X, IDX, Y]),
    "take": (lambda m, a, i: m.take(a, i), [X, IDX]),
    "where": (lambda m, a, b: m.where(a > 0, a, b), [X, Y]),
    "sort": (lambda m, a: tuple(m.sort(a, dim=0, descending=True)), [X]),
    "argsort": (lambda m, a: m.argsort(a, 1), [X]),
    "topk": (lambda m, a: tuple(m.topk(a, 2, dim=0, largest=False)), [X]),
    "searchsorted": (lambda m, a, b: m.searchsorted(a, b, right=True), [np.sort(V), V]),
    # matrices
    "addmm": (lambda m, a, b: m.addmm(a, b, b, beta=0.5, alpha=2), [S, S]),
    "addbmm": (lambda m, a, b: m.addbmm(a, b, b, alpha=3), [S, B]),
    "baddbmm": (lambda m, b: m.baddbmm(b, b, b, beta=2), [B]),
    "addmv": (lambda m, a, b, v: m.addmv(v, a, b, alpha=2), [S, V, V]),
    "addr_": (lambda m, a, v: m.addr_(a, v, v, 2, 3), [S, V], lambda m, a, v: m.addr(a, v, v, beta=2, alpha=3)),
    "bmm": (lambda m, b: m.bmm(b, b), [B]),
    "mm": (lambda m, a, b: m.mm(a, b), [S, U]),
    "mv": (lambda m, a, v: m.mv(a, v), [S, V]),
    "dot": (lambda m, v: m.dot(v, v), [V]),
    "vdot": (lambda m, v: m.vdot(v, v), [V]),
    "outer": (lambda m, v: m.outer(v, v), [V]),
    "cross": (lambda m, a, b: m.cross(a, b, dim=1), [S, U]),
    "diag_vec": (lambda m, v: m.diag(v, 1), [V]),
    "diag_mat": (lambda m, a: m.diag(a, -1), [X]),
    "trace_int": (lambda m, a: m.trace(a), [I]),
    "cdist": (lambda m, a, b: m.cdist(a, b), [X, Y]),
    "inverse": (lambda m, a: m.inverse(a), [S]),
    "matmul": (lambda m, b, a: m.matmul(b, a), [B, S]),
    "einsum": (lambda m, a, b: m.einsum("ij,kj->ik", a, b), [X, Y]),
    "triangular_solve": (lambda m, a, b: tuple(m.triangular_solve(b, a)), [U, S],
                         lambda m, a, b: tuple(torch.triangular_solve(b, a))),
    "conv2d": (lambda m, a, w: m.conv2d(a, w, padding=1), [B[None], B[None, :, :2, :2].repeat(2, 0)],
               lambda m, a, w: torch.nn.functional.conv2d(a, w, padding=1)),
    "conv_tbc": (lambda m, a, w, b: m.conv_tbc(a, w, b, 1), [B, B[:2], V], lambda m, a, w, b: torch.conv_tbc(a, w, b, 1)),
    # creation
    "arange": (lambda m, a: m.add(a[0, 0], m.arange(1, 7, 2)), [I]),
    "full_like": (lambda m, a: m.full_like(a, 3.5), [I]),
    "zeros_like": (lambda m, a: m.zeros_like(a, dtype=F64[m]), [X]),
    "ones": (lambda m, a: m.add(a, m.ones((3, 4))), [X]),
    "eye": (lambda m, a: m.mul(a, m.eye(3)), [S]),
    "linspace": (lambda m, a: m.add(a[0], m.linspace(0, 1, 4)), [X]),
    # linalg and special
    "linalg.inv": (lambda m, a: m.linalg.inv(a), [S]),
    "linalg.vector_norm": (lambda m, a: m.linalg.vector_norm(a, 3, dim=1), [X]),
    "linalg.matrix_norm": (lambda m, b: m.linalg.matrix_norm(b, 1), [B]),
    "linalg.norm": (lambda m, a: m.linalg.norm(a, dim=0, keepdim=True), [X]),
    "special.log_softmax": (lambda m, a: m.special.log_softmax(a, 1), [X]),
    "special.erfc": (lambda m, a: m.special.erfc(a), [X]),
    "special.round": (lambda m, a: m.special.round(m.mul(a, 2)), [X]),
    "special.sinc": (lambda m, a: m.special.sinc(a), [X]),
}

# Cases that need the values (host shapes) or hold no graph: eager only
EAGER_ONLY = {"conv_tbc"}
# Cases onnxruntime lacks a kernel or rule for: jit only
NO_ONNX = set()


def _torch_fn(name):
    case = CASES[name]
    return case[2] if len(case) > 2 else case[0]


def _torch_out(name):
    with torch.no_grad():
        out = _torch_fn(name)(torch, *(torch.from_numpy(np.ascontiguousarray(a)) for a in CASES[name][1]))
    return _np(out)


def _np(out):
    if isinstance(out, (tuple, list)):
        return tuple(_np(o) for o in out)
    return out.numpy() if isinstance(out, torch.Tensor) else out.asnumpy() if isinstance(out, Tensor) else np.asarray(out)


def _mint_fn(name):
    fn = CASES[name][0]
    return lambda *tensors: fn(mint, *tensors)


def _check(name, got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), name
        for g, w in zip(got, want):
            _check(name, g, w)
        return
    assert got.dtype == want.dtype, f"{name}: dtype {got.dtype}, torch's {want.dtype}"
    assert got.shape == want.shape, f"{name}: shape {got.shape}, torch's {want.shape}"
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5, err_msg=name)


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch(name):
    out = _mint_fn(name)(*(Tensor(np.ascontiguousarray(a)) for a in CASES[name][1]))
    _check(name, _np(out), _torch_out(name))


@pytest.mark.parametrize("mode", [pytest.param("jit", marks=pytest.mark.slow), "onnx"])   # jit: ~10 s
def test_the_table_compiled(mode):
    """Every case (bar the eager-only ones) in one jitted function, and in one ONNX model."""
    names = [n for n in CASES if n not in EAGER_ONLY and not (mode == "onnx" and n in NO_ONNX)]
    table = {n: (_mint_fn(n), [np.ascontiguousarray(a) for a in CASES[n][1]]) for n in names}
    outs = run_table(table, names, mode)
    for n in names:
        _check(n, outs[n], _torch_out(n))


# -- where MindSpore 2.10 differs from torch: its measured values --------------------------------

def test_mindspore_dtypes_where_they_differ_from_torch():
    """Measured on MindSpore 2.10 (CPU): mint.mean of Int32 stays Int32, truncating (torch refuses
    integers); mint.nansum of Int32 stays Int32 (torch's is int64); mint.equal is a bool Tensor."""
    xi = Tensor(np.array([[1, 2, 4], [-3, -4, -6]], np.int32))
    out = mint.mean(xi)
    assert out.dtype == ms.int32 and out.asnumpy() == -1
    out = mint.mean(xi, 1)
    assert out.dtype == ms.int32 and out.asnumpy().tolist() == [2, -4]
    out = mint.nansum(xi, 1)
    assert out.dtype == ms.int32 and out.asnumpy().tolist() == [7, -13]
    assert mint.prod(Tensor(np.array([2, 3], np.int8))).dtype == ms.int64
    assert mint.cumprod(xi, 1).dtype == ms.int64
    eq = mint.equal(xi, xi)
    assert isinstance(eq, Tensor) and eq.dtype == ms.bool_ and bool(eq)
    assert not bool(mint.equal(xi, xi[:1]))
    assert isinstance(mint.max(xi, 1), tuple) and type(mint.max(xi, 1)) is tuple   # a plain tuple (measured)


def test_unique_and_random_draws():
    """unique is torch's (sorted, int64 inverse and counts; eager only); the draws have torch's
    shapes, dtypes and ranges."""
    values, inverse, counts = mint.unique(Tensor(np.array([3, 1, 3, 2], np.int32)), return_inverse=True,
                                          return_counts=True)
    assert values.asnumpy().tolist() == [1, 2, 3] and inverse.asnumpy().tolist() == [2, 0, 2, 1]
    assert counts.dtype == ms.int64 and counts.asnumpy().tolist() == [1, 1, 2]
    gen = ms.Generator()
    gen.manual_seed(5)
    a = mint.rand(2, 3, generator=gen)
    gen.manual_seed(5)
    assert np.array_equal(a.asnumpy(), mint.rand((2, 3), generator=gen).asnumpy())
    assert a.dtype == ms.float32 and ((a.asnumpy() >= 0) & (a.asnumpy() < 1)).all()
    r = mint.randint(3, 7, (50,))
    assert r.dtype == ms.int64 and r.asnumpy().min() >= 3 and r.asnumpy().max() < 7
    assert mint.randint_like(Tensor(np.ones(3, np.float32)), 5).dtype == ms.float32   # input's dtype (measured)
    perm = mint.randperm(6)
    assert perm.dtype == ms.int64 and sorted(perm.asnumpy().tolist()) == list(range(6))
    draws = mint.multinomial(Tensor(P), 2)
    assert draws.dtype == ms.int64 and draws.shape == (2, 2)
    assert 2 not in draws.asnumpy()[0].tolist()                     # a zero weight is never drawn
    assert sorted(set(draws.asnumpy()[0].tolist())) == sorted(draws.asnumpy()[0].tolist())   # no repeats
    b = mint.bernoulli(Tensor(np.array([0.0, 1.0, 0.0], np.float32)))
    assert b.asnumpy().tolist() == [0.0, 1.0, 0.0]
    n = mint.normal(Tensor(np.zeros((2, 1), np.float32)), Tensor(np.ones(3, np.float32)))
    assert n.shape == (2, 3) and mint.normal(1.0, 2.0, (4,)).shape == (4,)
    assert mint.empty(2, 3).shape == (2, 3) and mint.full((2,), 3).dtype == ms.int64


# -- gradients -----------------------------------------------------------------------------------

GRAD_CASES = ["addcdiv", "logsumexp", "std", "max_dim", "addbmm", "gather", "cumprod", "linalg.vector_norm",
              "special.log_softmax", "kthvalue"]


@pytest.mark.parametrize("name", GRAD_CASES)
def test_grad_against_torch(name):
    """d sum(first output) / d first input, against torch's autograd."""
    fn, arrays = CASES[name][:2]

    def loss(first, *rest):
        out = fn(mint, first, *rest)
        return mint.sum(out[0] if isinstance(out, tuple) else out)
    got = ms.grad(loss)(*(Tensor(np.ascontiguousarray(a)) for a in arrays)).asnumpy()
    first = torch.tensor(arrays[0], requires_grad=True)
    out = _torch_fn(name)(torch, first, *(torch.from_numpy(np.ascontiguousarray(a)) for a in arrays[1:]))
    (out[0] if isinstance(out, tuple) else out).sum().backward()
    np.testing.assert_allclose(got, first.grad.numpy(), rtol=1e-4, atol=1e-5)
